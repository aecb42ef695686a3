//! `cost`: what the session has cost so far, main thread and subagents,
//! priced by cairn's usage ledger (SPEC §2.3).
//!
//! The client's own `cost.total_cost_usd` is never shown as if it were
//! cairn's: it is a list-price estimate whose scope (subagents or not) has
//! changed between client versions. It appears only when cairn's figure is
//! unavailable and no recent good line can stand in, and then with
//! `client_format`, which says where it came from.

use super::{Facts, Input, Piece, piece, usd, var};
use crate::format::dollars_short;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CostConfig {
    /// Variables: `$cost` (main thread and subagents), `$main` (main
    /// thread only). A figure ends in `+` when some tokens were of a model
    /// the price table does not know: it is then a floor.
    pub format: String,
    /// Used for the client's estimate when cairn's figure is unavailable.
    /// Variable: `$cost`. (Literal parentheses are escaped: a bare `( … )`
    /// is a conditional group.)
    pub client_format: String,
    /// Show the client's estimate (with `client_format`) when cairn's figure
    /// is unavailable; off: the segment is left out instead.
    pub client_fallback: bool,
    pub style: String,
    pub disabled: bool,
}

impl Default for CostConfig {
    fn default() -> Self {
        CostConfig {
            format: "session $cost".into(),
            client_format: "session $cost \\(client est.\\)".into(),
            client_fallback: true,
            style: String::new(),
            disabled: false,
        }
    }
}

pub fn render(cfg: &CostConfig, input: &Input, facts: &Facts) -> Option<Piece> {
    if let Some(s) = &facts.spend {
        return piece(&cfg.format, &cfg.style, &|v| match v {
            "cost" => var(usd(s.total_usd, s.unpriced)),
            "main" => var(usd(s.main_usd, s.unpriced)),
            _ => None,
        });
    }
    if cfg.client_fallback && facts.spend_failed {
        let client = input.client_cost_usd?;
        return piece(&cfg.client_format, &cfg.style, &|v| match v {
            "cost" => var(dollars_short(client)),
            _ => None,
        });
    }
    None
}
