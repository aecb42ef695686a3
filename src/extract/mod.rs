//! Turning one exchange into an extraction record: the prompt, the answer
//! parser, and the backends (offline, claude-cli, anthropic, openai).
//!
//! PLACEHOLDER INTERFACE — being implemented; the signatures below are the contract.

pub mod record;

use crate::memory::log::Lang;
use crate::transcript::Exchange;
use record::Extraction;

/// Everything a backend needs for one turn. The exchange is already redacted.
#[derive(Debug, Clone)]
pub struct ExtractRequest<'a> {
    pub exchange: &'a Exchange,
    /// The user's message was `OK-done`: only `a_suivre_done` may be filled.
    pub ok_done: bool,
    /// Known projects, `root` first, with their folder relative to the
    /// project root (`""` for root, `projects/<name>` for sub-projects).
    pub projects: &'a [(String, String)],
    /// Where the turn happened when nothing else routes it (from `cwd`).
    pub default_project: &'a str,
    /// Today's existing log per project (already redacted), so nothing is repeated.
    pub existing_logs: &'a [(String, String)],
    /// Offline OK-done: the open to-dos to finalise, chosen by the worker.
    pub done_candidates: &'a [String],
    pub lang: Lang,
}

/// Token counts of one backend call, for the ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallUsage {
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// A backend's answer: the raw text (kept in `.debug/`) and what it parsed to.
#[derive(Debug, Clone)]
pub struct Answer {
    pub raw: String,
    pub extraction: Result<Extraction, String>,
    pub usage: Option<CallUsage>,
}

pub trait Backend {
    fn name(&self) -> &'static str;
    /// `Err` means the call itself failed (retry later); a parse failure is `Ok` with `extraction: Err`.
    fn extract(&self, req: &ExtractRequest) -> anyhow::Result<Answer>;
}
