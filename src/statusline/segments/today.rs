//! `today`: what today has cost across every session, from the ledger —
//! including cairn's own memory-extraction calls.

use super::{Facts, Piece, piece, usd, var};
use crate::format::dollars_short;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TodayConfig {
    /// Variables: `$cost` (sessions and memory extraction; ends in `+`
    /// while some of today's sessions are still being read), `$memory`
    /// (memory extraction alone, empty when nothing was spent on it).
    pub format: String,
    pub style: String,
    pub disabled: bool,
}

impl Default for TodayConfig {
    fn default() -> Self {
        TodayConfig {
            format: "today $cost".into(),
            style: String::new(),
            disabled: false,
        }
    }
}

pub fn render(cfg: &TodayConfig, facts: &Facts) -> Option<Piece> {
    let t = facts.today.as_ref()?;
    piece(&cfg.format, &cfg.style, &|v| match v {
        "cost" => var(usd(t.total_usd, t.partial)),
        "memory" => Some((t.memory_usd > 0.0).then(|| dollars_short(t.memory_usd))),
        _ => None,
    })
}
