//! `subagents`: how many subagents the session started and what they cost
//! — the spend the client's own figure has been unclear about.

use super::{Facts, Piece, piece, usd, var};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SubagentsConfig {
    /// Variables: `$count`, `$cost`.
    pub format: String,
    /// Also shown when the session has started no subagent.
    pub show_zero: bool,
    pub style: String,
    pub disabled: bool,
}

impl Default for SubagentsConfig {
    fn default() -> Self {
        SubagentsConfig {
            format: "agents $count $cost".into(),
            show_zero: false,
            style: String::new(),
            disabled: false,
        }
    }
}

pub fn render(cfg: &SubagentsConfig, facts: &Facts) -> Option<Piece> {
    let s = facts.spend.as_ref()?;
    if s.subagents == 0 && !cfg.show_zero {
        return None;
    }
    piece(&cfg.format, &cfg.style, &|v| match v {
        "count" => var(s.subagents.to_string()),
        "cost" => var(usd(s.subagents_usd, s.unpriced)),
        _ => None,
    })
}
