//! The `[memory]` section: how capture extracts, what session start loads,
//! how promotion archives. Owned here, assembled into the aggregate by
//! `crate::config`.

use crate::memory::log::Lang;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackendKind {
    Offline,
    ClaudeCli,
    Anthropic,
    Openai,
    Auto,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    /// `offline` (default), `claude-cli`, `anthropic`, `openai`, `auto`.
    pub backend: BackendKind,
    /// Headings of new logs: `fr` (default) or `en`. Both are always read.
    pub language: Lang,
    /// Extract inline in the Stop hook instead of through the spool and worker.
    pub sync: bool,
    /// Model for LLM backends; empty means the backend's default.
    pub model: String,
    pub max_bullet_chars: usize,
    /// SessionStart injection budget, in tokens (4 bytes each).
    pub session_start_tokens: usize,
    pub long_memory_max_lines: usize,
    /// Logs older than this many days are archived by promotion.
    pub archive_days: u32,
    pub daily_budget_usd: f64,
    pub timeout_secs: u64,
    /// Attempts before a job goes to the dead-letter folder.
    pub max_attempts: u32,
    /// Sub-projects besides the discovered `projects/*/memory_sessions/`.
    pub projects: Vec<String>,
    pub claude_command: String,
    pub anthropic_base_url: String,
    pub anthropic_api_key_env: String,
    pub openai_base_url: String,
    pub openai_api_key_env: String,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            backend: BackendKind::Offline,
            language: Lang::Fr,
            sync: false,
            model: String::new(),
            max_bullet_chars: 400,
            session_start_tokens: 2000,
            long_memory_max_lines: 300,
            archive_days: 30,
            daily_budget_usd: 0.50,
            timeout_secs: 60,
            max_attempts: 5,
            projects: Vec::new(),
            claude_command: "claude".into(),
            anthropic_base_url: "https://api.anthropic.com".into(),
            anthropic_api_key_env: "ANTHROPIC_API_KEY".into(),
            openai_base_url: "http://127.0.0.1:11434/v1".into(),
            openai_api_key_env: "OPENAI_API_KEY".into(),
        }
    }
}
