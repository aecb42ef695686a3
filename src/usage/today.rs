//! Today's spend as `cairn usage daily` counts it, cheap enough for every
//! status-line render.
//!
//! The day index (see [`super::ledger`]) knows the sessions cairn has
//! aggregated today. A session whose status line never rendered here (print
//! mode, another status line, a state folder created this morning) would
//! be missing from it, so each render also lists the client's project
//! folders and brings up to date every session whose main transcript was
//! written since local midnight: a `readdir` per project folder, a `stat`
//! per main transcript, and for a session that changed only its new bytes,
//! at most [`READ_BUDGET`] of them per render (the newest sessions first).
//! Whatever is left waits for the next render, and the figure says it is a
//! floor meanwhile.
//!
//! The figure is what the report computes for today's row: the records of
//! every session the index lists for today, merged across sessions (a
//! response copied into a fork counts once), kept when their local date is
//! today, priced. Counting that from the record logs costs milliseconds on
//! a long session, so it is done when the set of today's sessions changes
//! (a copy arrives with the session that holds it: a fork, a resumed 1.0
//! session) and kept as the difference between the sessions' own day parts
//! (each session deduplicated alone, kept current by the aggregate) and
//! the merged count. Renders in between add the index's parts and take
//! that difference off: one small file read.

use super::aggregate::{self, LocalDates};
use super::dedupe::Dedup;
use super::discover;
use super::ledger;
use super::pricing::{PriceTable, Rates};
use super::store::{self, Log};
use crate::context::Ctx;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::PathBuf;

/// Transcript bytes one render may read for sessions other than its own
/// (a few milliseconds of parsing): a first render on a day of long
/// sessions catches up over several renders instead of stalling one.
pub const READ_BUDGET: u64 = 8 << 20;

/// Today's spend.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Today {
    pub date: String,
    /// Sessions' spend today, deduplicated across sessions.
    pub cost: f64,
    pub tokens: u64,
    pub responses: u64,
    /// Sessions with at least one response today.
    pub sessions: usize,
    /// cairn's own memory-extraction spend today (not in `cost`).
    pub memory_cost: f64,
    /// Every session written today was read to its end; `false`: the
    /// figure is a floor (the read budget ran out, or a session failed).
    pub complete: bool,
    /// Sessions left out and why, for the caller to log (once: this runs
    /// on every render).
    pub problems: Vec<String>,
}

/// The figure and what it was computed from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Cached {
    date: String,
    tz: String,
    prices: u64,
    /// Today's sessions when the merged count was made.
    sessions_seen: Vec<String>,
    /// What the sessions' own parts count twice: their sum minus the
    /// merged figure.
    twice: Figure,
    /// Sessions with a response today, after the merge.
    sessions: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
struct Figure {
    cost: f64,
    tokens: u64,
    responses: u64,
}

fn cache_path(ctx: &Ctx) -> PathBuf {
    crate::state_layout::usage_today(&ctx.state_dir)
}

/// Today's spend, every session the client wrote today brought up to date
/// first (within [`READ_BUDGET`]).
pub fn today(ctx: &Ctx, prices: &PriceTable) -> Result<Today> {
    let date = ctx.today();
    let day: jiff::civil::Date = date.parse().context("today's date")?;
    let midnight = day
        .to_zoned(ctx.tz())
        .map(|z| z.timestamp().as_nanosecond())
        .unwrap_or(0);
    let since = u64::try_from(midnight).unwrap_or(0);
    let mut problems = Vec::new();
    let mut complete = catch_up(ctx, prices, since, &mut problems);

    let index = ledger::read_day(&ctx.state_dir, &date);
    let sum = index.values().fold(Figure::default(), |mut f, p| {
        f.cost += p.cost;
        f.tokens += p.tokens;
        f.responses += p.responses;
        f
    });
    let sessions_seen: Vec<String> = index.keys().cloned().collect();
    let tz = aggregate::tz_key(ctx);
    let cached = std::fs::read(cache_path(ctx))
        .ok()
        .and_then(|b| serde_json::from_slice::<Cached>(&b).ok())
        .filter(|c| {
            c.date == date
                && c.tz == tz
                && c.prices == prices.fingerprint()
                && c.sessions_seen == sessions_seen
        });
    let c = match cached {
        Some(c) => c,
        None => {
            let (merged, sessions, all_read) =
                merged(ctx, prices, day, &sessions_seen, &mut problems);
            complete &= all_read;
            let c = Cached {
                date: date.clone(),
                tz,
                prices: prices.fingerprint(),
                sessions_seen,
                twice: Figure {
                    cost: sum.cost - merged.cost,
                    tokens: sum.tokens.saturating_sub(merged.tokens),
                    responses: sum.responses.saturating_sub(merged.responses),
                },
                sessions,
            };
            // A cache: a lost write costs the next render a recount. A
            // count missing a session is not kept, so it is not taken for
            // a whole one later.
            if all_read && let Ok(b) = serde_json::to_vec(&c) {
                let _ = crate::fsutil::atomic_write_unsynced(&cache_path(ctx), &b);
            }
            c
        }
    };
    let figure = Figure {
        cost: aggregate::round_cost((sum.cost - c.twice.cost).max(0.0)),
        tokens: sum.tokens.saturating_sub(c.twice.tokens),
        responses: sum.responses.saturating_sub(c.twice.responses),
    };
    Ok(Today {
        date: date.clone(),
        cost: figure.cost,
        tokens: figure.tokens,
        responses: figure.responses,
        sessions: c.sessions,
        memory_cost: ledger::memory_spend_on(&ctx.state_dir, &date),
        complete,
        problems,
    })
}

/// Brings every session written since `since_ns` up to date, newest
/// first, starting no new session once [`READ_BUDGET`] bytes were read (a
/// session is read to its end: its aggregate saves one offset per file).
/// `false` when some were left for later or failed.
fn catch_up(ctx: &Ctx, prices: &PriceTable, since_ns: u64, problems: &mut Vec<String>) -> bool {
    let dirs = discover::config_dirs(ctx);
    let mut mains = discover::main_files_written_since(&dirs, since_ns);
    mains.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut read = 0u64;
    let mut complete = true;
    for (path, _) in mains {
        if read >= READ_BUDGET {
            return false;
        }
        match aggregate::refresh(ctx, prices, &path) {
            Ok((_, n)) => read += n,
            // One unreadable session must not hide the others.
            Err(e) => {
                problems.push(format!("today's spend without {}: {e:#}", path.display()));
                complete = false;
            }
        }
    }
    complete
}

/// The report's figure for `day` over `sessions`, from their record
/// logs; with the number of sessions it counts and whether every log was
/// read.
fn merged(
    ctx: &Ctx,
    prices: &PriceTable,
    day: jiff::civil::Date,
    sessions: &[String],
    problems: &mut Vec<String>,
) -> (Figure, usize, bool) {
    let mut dedup = Dedup::new();
    let mut models: Vec<String> = Vec::new();
    let mut model_index: HashMap<String, u16> = HashMap::new();
    let mut all_read = true;
    for (owner, sid) in sessions.iter().enumerate() {
        let path = store::session_paths(&ctx.state_dir, sid).log;
        let log = match Log::load(&path) {
            Ok(l) => l,
            Err(e) => {
                problems.push(format!("today's spend without session {sid}: {e:#}"));
                all_read = false;
                continue;
            }
        };
        let map: Vec<u16> = log
            .models
            .iter()
            .map(|m| {
                let next = u16::try_from(models.len()).unwrap_or(u16::MAX);
                *model_index.entry(m.clone()).or_insert_with(|| {
                    models.push(m.clone());
                    next
                })
            })
            .collect();
        for r in &log.recs {
            let mut g = *r;
            g.model = map.get(usize::from(r.model)).copied().unwrap_or(0);
            dedup.offer(g, owner as u32);
        }
    }
    let mut dates = LocalDates::new(ctx);
    let mut rates: Vec<Option<Option<Rates>>> = vec![None; models.len()];
    let mut owners = std::collections::BTreeSet::new();
    let mut out = Figure::default();
    for (r, owner) in dedup.recs.iter().zip(&dedup.owners) {
        if dates.date(r.ts_ms) != day {
            continue;
        }
        let i = usize::from(r.model);
        if let Some(slot) = rates.get_mut(i)
            && let Some(rt) = slot.get_or_insert_with(|| prices.rates(&models[i]))
        {
            out.cost += super::pricing::price_with(
                rt,
                &r.usage(),
                Some(r.ts_ms.div_euclid(1000)),
                r.fast(),
            )
            .total();
        }
        out.tokens += r.total_tokens();
        out.responses += 1;
        owners.insert(*owner);
    }
    (out, owners.len(), all_read)
}
