//! Per-session memory state kept in cairn's state folder: which to-dos the
//! session added last, so the offline backend knows what `OK-done` closes.

use crate::fsutil::atomic_write_private_unsynced;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// The to-dos added by the most recent turn of this session that added any.
    #[serde(default)]
    pub last_todos: Vec<AddedTodos>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedTodos {
    pub project: String,
    pub date: String,
    pub items: Vec<String>,
}

fn path(state_dir: &Path, session_id: &str) -> Option<PathBuf> {
    crate::session_id::file_stem(session_id)
        .map(|id| crate::state_layout::memory_sessions(state_dir).join(format!("{id}.json")))
}

pub fn load(state_dir: &Path, session_id: &str) -> SessionState {
    path(state_dir, session_id)
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

pub fn save(state_dir: &Path, session_id: &str, state: &SessionState) -> anyhow::Result<()> {
    if let Some(p) = path(state_dir, session_id) {
        // Only a hint for the offline OK-done: not worth an fsync on the hot path.
        atomic_write_private_unsynced(&p, &serde_json::to_vec(state)?)?;
    }
    Ok(())
}
