//! Reading Claude Code transcripts (JSONL): records, the tail reader used by
//! hooks, and the resumable forward reader used by aggregation.
//!
//! PLACEHOLDER INTERFACE — being implemented; the signatures below are the contract.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// What the turn did, built from the structured records (tool calls and
/// results) rather than from prose, so the offline extractor has facts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_read: Vec<String>,
    /// Files changed by Edit/MultiEdit/NotebookEdit, and created by Write.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_edited: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_written: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_errors: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<String>,
}

/// The last human prompt of a transcript and what answered it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    pub human: String,
    pub assistant: String,
    /// RFC 3339 timestamp of the turn (the human prompt's record), if known.
    pub timestamp: Option<String>,
    pub digest: Digest,
}

/// Tail-read `path` for the last exchange. `None` when there is no human text.
pub fn last_exchange(path: &Path) -> std::io::Result<Option<Exchange>> {
    let _ = path;
    Ok(None)
}
