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
use std::borrow::Cow;
use std::path::Path;

/// The spend port ([`crate::spend::SpendSource`]) answered from the
/// aggregate: the guard's note and the status line show the same figures,
/// priced with the table the user configured.
pub struct Spend<'a> {
    ctx: &'a Ctx,
    prices: Cow<'a, PriceTable>,
}

impl<'a> Spend<'a> {
    pub fn new(ctx: &'a Ctx, config: &config::UsageConfig) -> Spend<'a> {
        Spend {
            ctx,
            prices: Cow::Owned(PriceTable::from_config(config)),
        }
    }

    /// With a table already built (the status line's settings hold one).
    pub fn with_prices(ctx: &'a Ctx, prices: &'a PriceTable) -> Spend<'a> {
        Spend {
            ctx,
            prices: Cow::Borrowed(prices),
        }
    }
}

impl crate::spend::SpendSource for Spend<'_> {
    /// The incremental aggregate: a summary read and a `stat` per file when
    /// nothing changed, only the new bytes otherwise. It also refreshes the
    /// day index, so [`today`](crate::spend::SpendSource::today) (asked
    /// next) includes this turn.
    fn session(&self, transcript: &Path) -> Result<Option<crate::spend::SessionSpend>, String> {
        let t = session_totals_with(self.ctx, &self.prices, transcript)
            .map_err(|e| format!("{e:#}"))?;
        Ok(Some(crate::spend::SessionSpend {
            total_usd: t.cost,
            main_usd: t.main.cost,
            subagents: u32::try_from(t.subagent_count()).unwrap_or(u32::MAX),
            subagents_usd: t.subagent_cost(),
            unpriced: !t.unknown_models.is_empty(),
        }))
    }

    /// What `cairn usage daily` says of today (every session the client
    /// wrote today, found and brought up to date incrementally) plus
    /// cairn's own memory-extraction calls.
    fn today(&self) -> Result<Option<crate::spend::TodaySpend>, String> {
        let d = today::today(self.ctx, &self.prices).map_err(|e| format!("{e:#}"))?;
        Ok(Some(crate::spend::TodaySpend {
            total_usd: d.cost + d.memory_cost,
            memory_usd: d.memory_cost,
            partial: !d.complete,
            problems: d.problems,
        }))
    }
}
