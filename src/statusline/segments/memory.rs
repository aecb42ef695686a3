//! `memory`: the state of session memory — bullets written to today's logs
//! and extraction jobs still waiting in the spool (a growing queue means the
//! worker is stuck or the backend is down).

use super::{Facts, Piece, piece, var};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    /// Variables: `$bullets` (in today's logs, every project of the
    /// repository), `$pending` (jobs waiting; empty at zero), `$warning`
    /// (`state folder not writable` when cairn's state folder refuses
    /// writes; empty otherwise).
    pub format: String,
    pub style: String,
    pub disabled: bool,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            format: "notes $bullets( queued $pending)( $warning)".into(),
            style: "dim".into(),
            disabled: false,
        }
    }
}

pub fn render(cfg: &MemoryConfig, facts: &Facts) -> Option<Piece> {
    let m = facts.memory.as_ref()?;
    piece(&cfg.format, &cfg.style, &|v| match v {
        "bullets" => var(m.bullets_today.to_string()),
        "pending" => Some((m.pending > 0).then(|| m.pending.to_string())),
        "warning" => Some(
            m.state_unwritable
                .then(|| "state folder not writable".to_string()),
        ),
        _ => None,
    })
}
