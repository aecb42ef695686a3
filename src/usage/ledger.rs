//! The persistent ledgers: money cairn itself spends (memory extraction),
//! and the day index of session spend the status line reads.
//!
//! - `<state>/ledger/memory.jsonl`: append-only JSON lines, one per backend
//!   call, so it outlives transcripts and survives concurrent writers.
//! - `<state>/usage/days/<YYYY-MM-DD>.json`: for one local date, each
//!   session's cost and tokens that day, rewritten when a session's
//!   aggregate changes, so "today's cost" is one small read. The sessions'
//!   record logs (see [`crate::usage::store`]) remain the truth; a report
//!   rebuilds the index entries of every session it reads.

use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub ts: String,
    /// Local date the spend counts against.
    pub date: String,
    pub kind: String,
    pub backend: String,
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// `None` when the model has no known price.
    pub usd: Option<f64>,
}

pub fn path(state_dir: &Path) -> PathBuf {
    crate::state_layout::memory_ledger(state_dir)
}

pub fn append(state_dir: &Path, entry: &Entry) -> std::io::Result<()> {
    let p = path(state_dir);
    if let Some(d) = p.parent() {
        crate::fsutil::create_private_dir_all(d).map_err(std::io::Error::other)?;
    }
    let mut line = serde_json::to_string(entry)?;
    line.push('\n');
    // One short O_APPEND write per entry: concurrent workers do not interleave.
    let mut o = std::fs::OpenOptions::new();
    o.create(true).append(true);
    #[cfg(unix)]
    {
        // What the user's sessions cost is the user's business.
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(p)?.write_all(line.as_bytes())
}

/// Entries of the ledger; unreadable lines are skipped.
/// The tokens of one backend call of cairn's own (memory extraction,
/// promotion), to be priced into the ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Call {
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_write_tokens: u64,
    pub cache_read_tokens: u64,
}

/// Prices one backend call into the ledger as memory spend (`backend` names
/// the backend and what the call was for: `claude-cli/memory`), with the
/// table reports use (`[[usage.prices]]` over the built-in rows), so
/// `memory.daily_budget_usd` counts the dollars `cairn usage` shows. A
/// failed write is logged: the spend is lost, never the turn.
pub fn record_call(
    ctx: &crate::context::Ctx,
    prices: &super::PriceTable,
    backend: &str,
    call: Call,
) {
    let entry = Entry {
        ts: ctx.clock.now().to_string(),
        date: ctx.today(),
        kind: "memory".into(),
        backend: backend.to_owned(),
        usd: prices.cost_with_cache(
            &call.model,
            call.input_tokens,
            call.output_tokens,
            call.cache_write_tokens,
            call.cache_read_tokens,
        ),
        model: call.model,
        input_tokens: call.input_tokens,
        output_tokens: call.output_tokens,
        cache_write_tokens: call.cache_write_tokens,
        cache_read_tokens: call.cache_read_tokens,
    };
    if let Err(e) = append(&ctx.state_dir, &entry) {
        ctx.diag(
            crate::diag::Level::Warn,
            "ledger",
            &format!("cannot record memory spend: {e}"),
        );
    }
}

pub fn entries(state_dir: &Path) -> Vec<Entry> {
    std::fs::read_to_string(path(state_dir))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Dollars spent on memory extraction on `date`.
pub fn memory_spend_on(state_dir: &Path, date: &str) -> f64 {
    entries(state_dir)
        .iter()
        .filter(|e| e.date == date && e.kind == "memory")
        .filter_map(|e| e.usd)
        .sum()
}

/// One session's share of one day.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct DayPart {
    pub cost: f64,
    pub tokens: u64,
    pub responses: u64,
}

/// Spend on one local date, as far as the day index knows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DayTotals {
    pub date: String,
    /// Transcript spend (deduplicated per session), all sessions.
    pub cost: f64,
    pub tokens: u64,
    pub responses: u64,
    pub sessions: usize,
    /// cairn's own memory-extraction spend that day (not in `cost`).
    pub memory_cost: f64,
    pub memory_calls: usize,
}

fn days_dir(state_dir: &Path) -> PathBuf {
    crate::state_layout::usage_days(state_dir)
}

fn day_path(state_dir: &Path, date: &str) -> PathBuf {
    days_dir(state_dir).join(format!("{date}.json"))
}

pub(crate) type DayFile = BTreeMap<String, DayPart>;

pub(crate) fn read_day(state_dir: &Path, date: &str) -> DayFile {
    std::fs::read(day_path(state_dir, date))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Applies per-session changes to the day index: `date → session → part`
/// (`None` removes the session from that date). One lock for all dates: the
/// writes are small and rare (a session's aggregate changed).
pub fn update_days(
    state_dir: &Path,
    changes: &BTreeMap<String, BTreeMap<String, Option<DayPart>>>,
) -> Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    let _guard = crate::fsutil::lock(&days_dir(state_dir).join(".lock"))?;
    for (date, sessions) in changes {
        let mut file = read_day(state_dir, date);
        let before = file.clone();
        for (sid, part) in sessions {
            match part {
                Some(p) => file.insert(sid.clone(), *p),
                None => file.remove(sid),
            };
        }
        if file != before {
            let bytes = serde_json::to_vec(&file)?;
            crate::fsutil::atomic_write_unsynced(&day_path(state_dir, date), &bytes)?;
        }
    }
    Ok(())
}

/// Today's (or any date's) spend: the day index plus the memory ledger.
/// Cheap: two small files. Sessions whose aggregate has not been updated
/// since their last turn (no status line, no report) are not in it yet.
pub fn day_totals(state_dir: &Path, date: &str) -> DayTotals {
    let file = read_day(state_dir, date);
    let memory: Vec<Entry> = entries(state_dir)
        .into_iter()
        .filter(|e| e.date == date && e.kind == "memory")
        .collect();
    DayTotals {
        date: date.to_string(),
        cost: file.values().map(|p| p.cost).sum(),
        tokens: file.values().map(|p| p.tokens).sum(),
        responses: file.values().map(|p| p.responses).sum(),
        sessions: file.values().filter(|p| p.responses > 0).count(),
        memory_cost: memory.iter().filter_map(|e| e.usd).sum(),
        memory_calls: memory.len(),
    }
}

/// [`day_totals`] for today's local date (the status line's "today").
pub fn today(ctx: &crate::context::Ctx) -> DayTotals {
    day_totals(&ctx.state_dir, &ctx.today())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_index_sums_sessions_and_memory() {
        let dir = tempfile::tempdir().unwrap();
        let part = |cost, tokens| {
            Some(DayPart {
                cost,
                tokens,
                responses: 1,
            })
        };
        let mut ch = BTreeMap::new();
        ch.entry("2026-11-30".to_string())
            .or_insert_with(BTreeMap::new)
            .extend([
                ("a".to_string(), part(1.5, 10)),
                ("b".to_string(), part(0.25, 5)),
            ]);
        update_days(dir.path(), &ch).unwrap();
        let mut ch = BTreeMap::new();
        ch.entry("2026-11-30".to_string())
            .or_insert_with(BTreeMap::new)
            .extend([("a".to_string(), part(2.0, 20)), ("b".to_string(), None)]);
        update_days(dir.path(), &ch).unwrap();
        append(
            dir.path(),
            &Entry {
                ts: "t".into(),
                date: "2026-11-30".into(),
                kind: "memory".into(),
                backend: "anthropic/extract".into(),
                model: "claude-haiku-4-5".into(),
                input_tokens: 1,
                output_tokens: 1,
                cache_write_tokens: 0,
                cache_read_tokens: 0,
                usd: Some(0.01),
            },
        )
        .unwrap();
        let t = day_totals(dir.path(), "2026-11-30");
        assert_eq!((t.cost, t.tokens, t.sessions), (2.0, 20, 1));
        assert_eq!((t.memory_cost, t.memory_calls), (0.01, 1));
        assert_eq!(day_totals(dir.path(), "2026-11-29").cost, 0.0);
    }

    #[test]
    fn spend_sums_one_day_and_skips_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let e = |date: &str, usd| Entry {
            ts: "t".into(),
            date: date.into(),
            kind: "memory".into(),
            backend: "anthropic".into(),
            model: "claude-haiku-4-5".into(),
            input_tokens: 1,
            output_tokens: 1,
            cache_write_tokens: 0,
            cache_read_tokens: 0,
            usd,
        };
        append(dir.path(), &e("2026-11-30", Some(0.25))).unwrap();
        append(dir.path(), &e("2026-11-30", None)).unwrap();
        append(dir.path(), &e("2026-11-29", Some(9.0))).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(path(dir.path()))
            .unwrap()
            .write_all(b"{oops\n")
            .unwrap();
        append(dir.path(), &e("2026-11-30", Some(0.5))).unwrap();
        assert_eq!(memory_spend_on(dir.path(), "2026-11-30"), 0.75);
    }

    #[test]
    fn memory_spend_is_priced_with_the_configured_table() {
        let dir = tempfile::tempdir().unwrap();
        let env = crate::context::Env::from_pairs([(
            "CAIRN_STATE_DIR",
            dir.path().display().to_string(),
        )]);
        let ctx = crate::context::Ctx::new(env, crate::context::Clock::System);
        let cfg: crate::usage::config::UsageConfig =
            toml::from_str("[[prices]]\nmodel = \"claude-haiku-4-5\"\ninput = 100\noutput = 100\n")
                .unwrap();
        let call = || Call {
            model: "claude-haiku-4-5".into(),
            input_tokens: 10_000,
            output_tokens: 0,
            ..Call::default()
        };
        record_call(
            &ctx,
            &crate::usage::PriceTable::from_config(&cfg),
            "t/memory",
            call(),
        );
        // $100 per million input tokens: 10 000 tokens cost $1.
        assert!((memory_spend_on(dir.path(), &ctx.today()) - 1.0).abs() < 1e-9);
        record_call(
            &ctx,
            &crate::usage::PriceTable::embedded(),
            "t/memory",
            call(),
        );
        let builtin = memory_spend_on(dir.path(), &ctx.today()) - 1.0;
        assert!(builtin > 0.0 && builtin < 0.1, "{builtin}");
    }
}
