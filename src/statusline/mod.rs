//! `cairn statusline` (SPEC §2.4): one line under Claude Code's prompt —
//! model, project, branch, then context fill coloured by the guard's
//! thresholds, session cost, subagent spend, today's cost and memory state.
//!
//! The shape of one render:
//! 1. parse the payload ([`input`]) leniently, field by field;
//! 2. gather the facts the enabled segments need ([`facts`]) — the usage
//!    aggregate, the guard's limits, `.git/HEAD`, the spool, today's logs;
//!    no subprocess, no regex, no full transcript read;
//! 3. render each segment to a plain [`style::Piece`] ([`segments`], one
//!    file each), then fit them to the width by dropping whole segments from
//!    the tail and paint them.
//!
//! The client blanks the row when the command fails or prints nothing, so
//! this never does either: a render that could not gather everything
//! prints the session's last good line (kept in the state folder) while it
//! is recent, else the best line the payload allows, else a fixed word.
//! Errors go to the diagnostics log, once per distinct error and day.

mod cache;
pub mod config;
pub mod facts;
pub mod format;
pub mod input;
pub mod segments;
pub mod style;

pub use config::{ColorMode, StatuslineConfig};
pub use facts::{
    ContextFill, FactError, Facts, Fixed, MemoryState, SessionSpend, SpendSource, TodaySpend,
};
pub use input::{CurrentUsage, Input};
pub use segments::SegmentName;

use crate::context::Ctx;
use std::io::Read;
use std::path::PathBuf;
use style::Piece;

/// Terminal width when nothing says otherwise.
pub const DEFAULT_WIDTH: usize = 80;

/// Printed only when there is nothing at all to show: not even a project
/// name, and no recent good line.
pub const MINIMAL_LINE: &str = "cairn: status unavailable";

/// What a render reads of the configuration besides its own section: the
/// guard's thresholds (the context colours), the memory section (which
/// projects' logs to count) and the price table of `[[usage.prices]]`.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub guard: crate::guard::GuardConfig,
    pub memory: crate::memory::config::MemoryConfig,
    pub prices: crate::usage::PriceTable,
}

/// Reads the client's payload from `stdin` and returns the line to print,
/// newline included. Never panics out, never returns an empty line.
///
/// `config` is the merged configuration (the guard's thresholds, the usage
/// prices and the memory projects live in their own sections); `statusline`
/// is its `[statusline]` section.
pub fn main(
    ctx: &Ctx,
    config: &Settings,
    statusline: &StatuslineConfig,
    stdin: impl Read,
) -> String {
    let spend = crate::usage::Spend::with_prices(ctx, &config.prices);
    main_with(ctx, config, statusline, stdin, &spend)
}

/// [`main`] with the dollars taken from `spend` instead of the usage module.
pub fn main_with(
    ctx: &Ctx,
    config: &Settings,
    sl: &StatuslineConfig,
    stdin: impl Read,
    spend: &dyn SpendSource,
) -> String {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    let color = sl.color.enabled(&ctx.env);
    let width = usable_width(ctx, sl);
    let line = catch_unwind(AssertUnwindSafe(|| {
        run(ctx, config, sl, stdin, spend, width, color)
    }))
    .unwrap_or_else(|panic| {
        let msg = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        // The fallback reads files too: if it fails the same way, the
        // fixed line still goes out.
        catch_unwind(AssertUnwindSafe(|| {
            cache::log_once(ctx, &format!("panic: {msg}"));
            fallback(ctx, sl, &env_input(ctx), Vec::new(), width, color)
        }))
        .unwrap_or_default()
    });
    let mut line = if line.trim().is_empty() {
        MINIMAL_LINE.to_string()
    } else {
        line
    };
    line.push('\n');
    line
}

/// Renders the line for `input` and `facts` in `width` columns. Pure: no
/// I/O, so every case can be tested with made-up facts.
pub fn render(
    input: &Input,
    facts: &Facts,
    cfg: &StatuslineConfig,
    width: usize,
    color: bool,
) -> String {
    style::fit(&pieces(input, facts, cfg), &cfg.separator, width, color)
}

fn pieces(input: &Input, facts: &Facts, cfg: &StatuslineConfig) -> Vec<Piece> {
    cfg.active()
        .into_iter()
        .filter_map(|s| segments::render(s, input, facts, cfg))
        .collect()
}

fn run(
    ctx: &Ctx,
    config: &Settings,
    cfg: &StatuslineConfig,
    stdin: impl Read,
    spend: &dyn SpendSource,
    width: usize,
    color: bool,
) -> String {
    let input = match read_input(stdin) {
        Ok(i) => i,
        Err(e) => {
            cache::log_once(ctx, &e);
            return fallback(ctx, cfg, &env_input(ctx), Vec::new(), width, color);
        }
    };
    // Even with the context segment off: the guard judges the fill against
    // the window the client actually uses, which only this payload carries.
    if let Err(e) = facts::guard_wiring::record_window(ctx, &input) {
        cache::log_once(ctx, &format!("cannot record the context window: {e}"));
    }
    let mut facts = facts::gather(ctx, config, cfg, &input, spend);
    let mut pieces = pieces(&input, &facts, cfg);
    if facts.errors.is_empty() && !pieces.is_empty() {
        if let Some(sid) = &input.session_id
            && let Err(e) = cache::store(ctx, sid, &pieces)
        {
            // The line is good; only its replay is lost.
            cache::log_once(ctx, &format!("cannot keep the last good line: {e:#}"));
            // The same failure stops the Stop hook from spooling: the
            // memory segment says so, at the cost of a second (pure) render
            // only on this rare path.
            if let Some(m) = facts.memory.as_mut() {
                m.state_unwritable = true;
                pieces = self::pieces(&input, &facts, cfg);
            }
        }
        return style::fit(&pieces, &cfg.separator, width, color);
    }
    for e in &facts.errors {
        cache::log_once(ctx, &e.to_string());
    }
    fallback(ctx, cfg, &input, pieces, width, color)
}

fn read_input(stdin: impl Read) -> Result<Input, String> {
    let mut buf = Vec::new();
    stdin
        .take(input::MAX_PAYLOAD + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read the status line payload: {e}"))?;
    if buf.len() as u64 > input::MAX_PAYLOAD {
        return Err(format!(
            "status line payload over {} bytes ignored",
            input::MAX_PAYLOAD
        ));
    }
    Input::parse(&buf).map_err(|e| e.to_string())
}

/// A render that could not be completed: the session's last good line
/// while it is recent, else `degraded` (what could be rendered, the cost
/// possibly from the client, labelled), else identity from the payload,
/// else [`MINIMAL_LINE`].
fn fallback(
    ctx: &Ctx,
    cfg: &StatuslineConfig,
    input: &Input,
    degraded: Vec<Piece>,
    width: usize,
    color: bool,
) -> String {
    let session = input
        .session_id
        .as_deref()
        .or(ctx.env.get("CLAUDE_CODE_SESSION_ID"))
        .filter(|s| !s.is_empty());
    if let Some(last) = cache::load(&ctx.state_dir, session) {
        let age = ctx.clock.now().as_second() - last.at;
        let fresh = cfg.stale_after_secs == 0 || age <= cfg.stale_after_secs as i64;
        if fresh && !last.pieces.is_empty() {
            return style::fit(&last.pieces, &cfg.separator, width, color);
        }
    }
    let pieces = if degraded.is_empty() {
        pieces(input, &Facts::default(), cfg)
    } else {
        degraded
    };
    if pieces.is_empty() {
        return MINIMAL_LINE.to_string();
    }
    style::fit(&pieces, &cfg.separator, width, color)
}

/// What the environment says when stdin does not: the client sets
/// `CLAUDE_CODE_SESSION_ID` and `CLAUDE_PROJECT_DIR` for the command.
fn env_input(ctx: &Ctx) -> Input {
    let get = |k| ctx.env.get(k).filter(|s| !s.is_empty());
    Input {
        session_id: get("CLAUDE_CODE_SESSION_ID").map(str::to_owned),
        project_dir: get("CLAUDE_PROJECT_DIR").map(PathBuf::from),
        ..Input::default()
    }
}

/// Columns the line may use: the terminal's width minus what the client
/// keeps around the row, never less than 1.
fn usable_width(ctx: &Ctx, cfg: &StatuslineConfig) -> usize {
    let columns = resolve_width(ctx.env.get("COLUMNS"), cfg.width, || {
        terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0))
    });
    columns.saturating_sub(cfg.reserve).max(1)
}

/// `COLUMNS` (the client sets it), else the configured width, else the
/// terminal's (a person running the command by hand), else 80.
pub fn resolve_width(
    columns: Option<&str>,
    configured: usize,
    terminal: impl FnOnce() -> Option<usize>,
) -> usize {
    columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0)
        .or((configured > 0).then_some(configured))
        .or_else(|| terminal().filter(|w| *w > 0))
        .unwrap_or(DEFAULT_WIDTH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_comes_from_columns_then_config_then_terminal() {
        let none = || None;
        assert_eq!(resolve_width(Some("160"), 100, none), 160);
        assert_eq!(resolve_width(Some("abc"), 100, none), 100);
        assert_eq!(resolve_width(Some("0"), 0, || Some(120)), 120);
        assert_eq!(resolve_width(None, 0, none), DEFAULT_WIDTH);
    }
}
