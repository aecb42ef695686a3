//! Usage accounting (SPEC §2.3): what Claude Code sessions cost, from their
//! transcripts, kept in cairn's own ledger.
//!
//! - [`pricing`]: one dated price table (embedded, overridable).
//! - [`aggregate`]: the incremental per-session, per-agent aggregate the
//!   status line and the guard read ([`session_totals`]).
//! - [`store`] and [`dedupe`]: the record log per session (the ledger that
//!   outlives deleted transcripts) and the one-record-per-response rule.
//! - [`ledger`]: cairn's own memory-extraction spend and the day index.
//! - [`mod@report`]: `cairn usage daily|monthly|session|project|blocks`.
//! - [`discover`]: the client's config folders and a session's files.
//! - [`today`]: today's spend for the status line, equal to the report's.
//! - [`export`]: the ledger as a portable file, and `--merge` of such files.

pub mod aggregate;
pub mod config;
pub mod dedupe;
pub mod discover;
pub mod export;
pub mod ledger;
pub mod pricing;
pub mod report;
pub mod store;
pub mod today;

pub use aggregate::{
    AgentTotals, SessionTotals, Tokens, note_context_window, session_totals, session_totals_with,
};
pub use ledger::{DayTotals, day_totals};
pub use pricing::{Cost, PriceTable, price_usage};
pub use report::{ReportKind, ReportOptions, report, report_merging, report_with};

use crate::context::Ctx;
use std::path::Path;

/// The guard's source of subagent dollars: the session's aggregate, priced
/// with the table the user configured (the same figures the status line
/// shows).
pub struct SessionSpend<'a> {
    ctx: &'a Ctx,
    prices: PriceTable,
}

impl<'a> SessionSpend<'a> {
    pub fn new(ctx: &'a Ctx, config: &config::UsageConfig) -> SessionSpend<'a> {
        SessionSpend {
            ctx,
            prices: PriceTable::from_config(config),
        }
    }
}

impl crate::guard::SpendSource for SessionSpend<'_> {
    fn subagent_cost_usd(&self, _session_id: &str, transcript: &Path) -> Option<f64> {
        match session_totals_with(self.ctx, &self.prices, transcript) {
            Ok(t) => Some(t.subagent_cost()),
            Err(e) => {
                self.ctx.diag(
                    crate::diag::Level::Warn,
                    "guard",
                    &format!("subagent spend unknown: {e:#}"),
                );
                None
            }
        }
    }
}
