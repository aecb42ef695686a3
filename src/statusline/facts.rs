//! Everything the segments show that is not in the payload, gathered in one
//! place and only for the segments that are on (starship's rule: a fact
//! nobody displays is never computed).
//!
//! Each fact is either known, absent (nothing to say: no repository, no
//! memory folder), or failed. A failed fact makes the render "not good":
//! `main` then prefers the last good line (see `mod.rs`).
//!
//! The two sections marked WIRING are the only calls into the usage and
//! guard modules; everything else here reads cairn's own files and
//! `.git/HEAD`.

use super::Settings;
use super::StatuslineConfig;
use super::input::Input;
use super::segments::{SegmentName, branch, context::Level};
use crate::context::Ctx;
pub use crate::spend::{Fixed, SessionSpend, SpendSource, TodaySpend};
use std::io;
use std::path::Path;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub branch: Option<String>,
    pub context: Option<ContextFill>,
    /// cairn's figure for the session (usage aggregate, ledger prices).
    pub spend: Option<SessionSpend>,
    /// The session figure was wanted and could not be computed: the cost
    /// segment may then show the client's estimate, labelled as such.
    pub spend_failed: bool,
    pub today: Option<TodaySpend>,
    pub memory: Option<MemoryState>,
    /// The clock, in seconds since the epoch, for the times left until a
    /// rate limit resets or the prompt cache lapses; 0: unknown (those
    /// times are then left out).
    pub now: i64,
    /// What went wrong; empty for a good render.
    pub errors: Vec<FactError>,
}

/// The main thread's context against the guard's view of the model.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ContextFill {
    pub tokens: u64,
    /// `None`: nothing says how big this model's window is.
    pub window: Option<u64>,
    /// The guard's thresholds in tokens; 0 means that level is off.
    pub warn: u64,
    pub hard: u64,
    /// The client's own figure (`context_window.used_percentage`), to
    /// cross-check cairn's.
    pub client_percent: Option<f64>,
}

impl ContextFill {
    pub fn level(&self) -> Level {
        if self.warn == 0 && self.hard == 0 {
            Level::Unknown
        } else if self.hard > 0 && self.tokens >= self.hard {
            Level::Hard
        } else if self.warn > 0 && self.tokens >= self.warn {
            Level::Warn
        } else {
            Level::Ok
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryState {
    pub pending: usize,
    pub bullets_today: usize,
    /// The state folder refused this render's cache write: hooks cannot
    /// spool either (they capture inline, and their diagnostics are lost).
    /// Known only after a render, so it costs no probe.
    pub state_unwritable: bool,
}

/// One fact that could not be gathered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactError {
    pub fact: &'static str,
    pub message: String,
}

impl std::fmt::Display for FactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.fact, self.message)
    }
}

/// Gathers what the enabled segments need.
pub fn gather(
    ctx: &Ctx,
    config: &Settings,
    cfg: &StatuslineConfig,
    input: &Input,
    spend: &dyn SpendSource,
) -> Facts {
    let mut facts = Facts {
        now: ctx.clock.now().as_second(),
        ..Facts::default()
    };
    let on = |s| cfg.enabled(s);
    let fail = |fact: &'static str, message: String| FactError { fact, message };
    let mut errors = Vec::new();

    if on(SegmentName::Branch)
        && let Some(dir) = input.work_dir()
    {
        match branch::read_branch(dir) {
            Ok(b) => facts.branch = b,
            Err(e) => errors.push(fail("branch", format!("{}: {e}", dir.display()))),
        }
    }

    if on(SegmentName::Context) {
        match context_fill(ctx, config, input) {
            Ok(c) => facts.context = c,
            Err(e) => errors.push(fail("context", e)),
        }
    }

    // No session and no transcript: nothing to aggregate.
    let has_session = input.session_id.is_some() || input.transcript_path.is_some();
    if has_session && (on(SegmentName::Cost) || on(SegmentName::Subagents)) {
        let got = match input.transcript_path.as_deref() {
            Some(path) => spend.session(path),
            None => Ok(None),
        };
        match got {
            Ok(s) => facts.spend = s,
            Err(e) => {
                facts.spend_failed = true;
                errors.push(fail("session cost", e));
            }
        }
    }

    if on(SegmentName::Today) {
        match spend.today() {
            Ok(t) => {
                for p in t.iter().flat_map(|t| &t.problems) {
                    super::cache::log_once(ctx, p);
                }
                facts.today = t;
            }
            Err(e) => errors.push(fail("today's cost", e)),
        }
    }

    if on(SegmentName::Memory) {
        match memory_state(ctx, config, input) {
            Ok(m) => facts.memory = m,
            Err(e) => errors.push(fail("memory", e)),
        }
    }

    facts.errors = errors;
    facts
}

/// Tokens in context: the payload's `current_usage` when the client gives
/// one (all zeros right after `/compact` is a real answer: empty). When it
/// is `null` — the first render of a session, or of a resumed one — the
/// transcript's tail says what the last request left (64 KiB reads, never
/// the whole file); no transcript file yet means nothing in context. A
/// payload with neither says nothing about the context.
fn context_fill(
    ctx: &Ctx,
    config: &Settings,
    input: &Input,
) -> Result<Option<ContextFill>, String> {
    let tokens = match input.current_usage {
        Some(u) => u.fill(),
        None => match input.transcript_path.as_deref() {
            None => return Ok(None),
            Some(path) => match crate::transcript::last_context_usage(path) {
                Ok(u) => u.map_or(0, |u| u.fill()),
                Err(e) if e.kind() == io::ErrorKind::NotFound => 0,
                Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
            },
        },
    };
    let (window, warn, hard) = guard_wiring::limits(ctx, config, input);
    Ok(Some(ContextFill {
        tokens,
        window,
        warn,
        hard,
        client_percent: input.client_used_percentage,
    }))
}

/// Bullets in today's logs of every project of the repository, and the
/// spool's backlog. `None` when the repository keeps no session memory.
fn memory_state(
    ctx: &Ctx,
    config: &Settings,
    input: &Input,
) -> Result<Option<MemoryState>, String> {
    use crate::capture::spool;
    use crate::memory::store;
    let project_dir = input
        .project_dir()
        .map(|p| p.to_string_lossy().into_owned());
    let root = store::find_root(
        project_dir.as_deref().or(ctx.env.get("CLAUDE_PROJECT_DIR")),
        input.work_dir(),
    );
    let Some(root) = root.filter(|r| r.join(store::MEMORY_DIR).is_dir()) else {
        return Ok(None);
    };
    let today = ctx.today();
    let store = store::Store::discover(&root, &config.memory);
    let mut bullets = 0;
    for p in &store.projects {
        bullets += count_bullets(&store, &p.log_path(&today), &today)?;
    }
    Ok(Some(MemoryState {
        pending: spool::pending_ids(&ctx.state_dir).len(),
        bullets_today: bullets,
        state_unwritable: false,
    }))
}

fn count_bullets(
    store: &crate::memory::store::Store,
    path: &Path,
    date: &str,
) -> Result<usize, String> {
    use crate::memory::log::{DailyLog, Lang};
    match store.jail.read_text(path) {
        Ok(Some(text)) => Ok(DailyLog::parse(&text, date, Lang::default()).bullet_count()),
        Ok(None) => Ok(0),
        Err(e) => Err(e.to_string()),
    }
}

// ---------------------------------------------------------------------------
// WIRING: guard (SPEC §2.2). The window and thresholds the guard uses for
// this model, and the window the client reported, recorded for the guard.

pub(super) mod guard_wiring {
    use super::*;

    /// `(window, warn, hard)` as the guard applies them to this model at the
    /// window the client reports; thresholds 0 when the guard knows none (a
    /// model no table, rule or status line describes).
    pub fn limits(ctx: &Ctx, config: &Settings, input: &Input) -> (Option<u64>, u64, u64) {
        match crate::guard::limits_for(
            ctx,
            &config.guard,
            input.model_id.as_deref(),
            input.context_window_size,
        ) {
            Some(l) => (Some(l.window), l.warn, l.hard),
            None => (input.context_window_size, 0, 0),
        }
    }

    /// Tells the guard (and the usage aggregate, which keeps it with the
    /// session's totals) the window the client reported for this session.
    /// Both write only when the figure changed.
    pub fn record_window(ctx: &Ctx, input: &Input) -> Result<(), String> {
        let Some(window) = input.context_window_size else {
            return Ok(());
        };
        if let Some(sid) = &input.session_id {
            crate::guard::record_window(ctx, sid, input.model_id.as_deref(), window)
                .map_err(|e| format!("{e:#}"))?;
        }
        if let Some(path) = &input.transcript_path {
            crate::usage::note_context_window(ctx, path, window).map_err(|e| format!("{e:#}"))?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// WIRING: usage (SPEC §2.3). Dollars shown on the line come from here only.
