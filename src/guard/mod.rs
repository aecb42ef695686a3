//! The context guard (SPEC §2.2): stops a session twice as its context
//! fills — once to write a hand-off note and reflect, once to hand off and
//! `/clear` — and never more often than that.
//!
//! # API (called by the hook dispatcher and the status line)
//!
//! - [`on_stop`] (`Stop`): `Ok(Some(json))` is the
//!   `{"decision":"block","reason":…,"systemMessage":…}` to print. [`check`]
//!   is the same with a structured [`Outcome`] and a [`SpendSource`] for
//!   subagent dollars.
//! - `SubagentStop`: no handler, the hook reads it as
//!   [`crate::event::Event::Ignored`] (a subagent has its own context).
//! - [`on_session_start`] (`SessionStart`): `compact` re-arms the ratchet;
//!   `clear` and `startup` return (and consume) the pending hand-off note
//!   for the caller to inject. [`pending_handoff`] only peeks.
//! - [`record_window`]: the status line reports the session's window.
//! - [`limits_for`]: thresholds for the status line's colours.
//!
//! # How one Stop is judged
//!
//! 1. Fill = input + cache creation + cache read of the main thread's last
//!    usage, from the capture's pass or the transcript's tail
//!    ([`crate::transcript::context_at_stop`]: sidechain, `<synthetic>` and
//!    API-error records skipped, `None` after a compaction). When the Stop
//!    names an answer whose call is not in the file yet, the guard waits for
//!    it (at most [`crate::transcript::SETTLE_WAIT`]) only if that call could
//!    reach a level the seen fill does not (`late`). No usage: silent.
//! 2. Window and thresholds: [`GuardConfig::limits`]. Unknown model: silent.
//! 3. The ratchet ([`Ratchet`]): each level fires once; when the fill has
//!    dropped below every threshold (a compaction happened) or a
//!    `SessionStart` with `source: compact` arrives, it re-arms. The cheap
//!    check runs without the lock; a change re-checks under it, so
//!    concurrent calls never fire a level twice.
//! 4. Warn: a note is written and the model is asked to refine it and
//!    pause. Hard: the model finishes the note and tells the user to
//!    `/clear`; the note becomes the project's pending hand-off.
//!
//! Errors are `Err` and never a block: the dispatcher logs them and exits 0.

mod git;
pub mod history;
mod late;
mod limits;
mod note;
mod scan;
mod state;

#[cfg(test)]
mod tests;

pub use git::{GitInfo, git_info};
pub use limits::{
    GuardConfig, Level, Limits, ModelRule, WINDOW_1M, WINDOW_200K, WindowSource, normalize,
    table_window,
};
pub use note::{NoteInput, SubagentSpend, group_digits};
pub use scan::{Facts, FileTouch, SCAN_BYTES, scan};
pub use state::{Fire, PendingHandoff, Ratchet, WindowRecord, file_id, read_ratchet, read_window};

use crate::context::Ctx;
use crate::event::{SessionStart, Stop};
use crate::memory::log::{DailyLog, SectionKey};
use crate::memory::store::Store;
use crate::transcript::StopContext;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Prices a session's subagents for the note: `usage::Spend` (the
/// aggregate) in the hook; [`Unpriced`] leaves the dollar figure out and
/// the note says so.
pub use crate::spend::{SpendSource, Unpriced};

/// What the guard reads of the configuration, already validated: its own
/// section, where checkpoint notes go and in which language (the memory
/// section), and the compiled redactor notes pass through.
#[derive(Debug, Clone)]
pub struct Settings {
    pub guard: GuardConfig,
    pub memory: crate::memory::config::MemoryConfig,
    pub redactor: crate::redact::ActiveRedactor,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            guard: GuardConfig::default(),
            memory: Default::default(),
            redactor: crate::redact::RedactConfig::default().redactor(),
        }
    }
}

/// Why a Stop did not block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quiet {
    Disabled,
    /// The stop is already the continuation of a block.
    StopHookActive,
    NoSession,
    NoTranscript,
    /// No main-thread usage in the tail, or none since a compaction.
    NoUsage,
    /// No window known for the model.
    UnknownModel,
    /// Under the next level.
    Below,
    /// The level reached has fired already.
    AlreadyFired,
    /// The usage record is the one the last block was about (stale read).
    SameRecord,
}

/// A block, with what it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    pub level: Level,
    pub fill: u64,
    pub limits: Limits,
    pub checkpoint: PathBuf,
    /// Whether this call wrote the note (false: the hard level reused the
    /// one the warn level wrote).
    pub wrote_checkpoint: bool,
    /// For the model (the hook feedback).
    pub reason: String,
    /// For the user (one line in the client).
    pub system_message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Silent(Quiet),
    /// The context shrank below every threshold: the levels are armed again.
    Rearmed,
    Block(Blocked),
}

impl Outcome {
    /// What the Stop hook prints: the block JSON, or nothing.
    pub fn hook_output(&self) -> Option<String> {
        match self {
            Outcome::Block(b) => Some(
                serde_json::json!({
                    "decision": "block",
                    "reason": b.reason,
                    "systemMessage": b.system_message,
                })
                .to_string(),
            ),
            _ => None,
        }
    }
}

/// `Stop`: `Ok(Some(json))` to print, `Ok(None)` to stay silent.
/// `spend` prices the subagents a checkpoint note mentions (the usage
/// aggregate in the hook, which wires it).
pub fn on_stop(
    ctx: &Ctx,
    config: &Settings,
    root: &Path,
    info: &Stop,
    seen: Option<&StopContext>,
    spend: &dyn SpendSource,
) -> Result<Option<String>> {
    Ok(check(ctx, config, root, info, seen, spend)?.hook_output())
}

/// `SessionStart`. `compact`: re-arms the session's ratchet. `clear` and
/// `startup`: returns the project's pending hand-off note (and forgets it,
/// so it is injected once) when it is recent enough and still exists;
/// `startup` also tidies old per-session files. `resume`: nothing (the
/// ratchet of a resumed session still holds).
pub fn on_session_start(
    ctx: &Ctx,
    config: &GuardConfig,
    root: &Path,
    info: &SessionStart,
) -> Result<Option<PathBuf>> {
    match info.source.as_str() {
        "compact" => {
            rearm(ctx, &info.session_id)?;
            Ok(None)
        }
        "clear" | "startup" => {
            if info.source == "startup" {
                state::prune(ctx, std::time::Duration::from_secs(30 * 24 * 3600));
            }
            take_handoff(ctx, config, root)
        }
        _ => Ok(None),
    }
}

/// The pending hand-off note of the project at `root`, without consuming
/// it (for `cairn memory load` or the status line).
pub fn pending_handoff(ctx: &Ctx, config: &GuardConfig, root: &Path) -> Option<PathBuf> {
    let h = state::read_handoff(ctx, root).ok()??;
    usable_handoff(ctx, config, &h)
}

/// The status line reports the window the client uses for the session;
/// it beats the embedded table. Only written when it changed.
pub fn record_window(
    ctx: &Ctx,
    session_id: &str,
    model: Option<&str>,
    context_window_size: u64,
) -> Result<()> {
    if !limits::plausible_window(context_window_size) {
        return Ok(());
    }
    let Some(id) = state::file_id(session_id) else {
        return Ok(());
    };
    state::write_window(
        ctx,
        &id,
        &WindowRecord {
            window: context_window_size,
            model: model.map(str::to_string),
        },
    )
}

/// The thresholds for a model and (when known) its window, as the guard
/// applies them: the status line colours the fill with these.
pub fn limits_for(
    ctx: &Ctx,
    cfg: &GuardConfig,
    model: Option<&str>,
    window: Option<u64>,
) -> Option<Limits> {
    cfg.limits(model, window.map(|w| (w, model)), disable_1m(ctx))
}

/// `CLAUDE_CODE_DISABLE_1M_CONTEXT=1` holds native-1M models to 200K.
fn disable_1m(ctx: &Ctx) -> bool {
    ctx.env
        .get("CLAUDE_CODE_DISABLE_1M_CONTEXT")
        .is_some_and(|v| matches!(v.trim(), "1" | "true" | "yes"))
}

enum Action {
    Nothing(Quiet),
    Rearm,
    Fire(Level),
}

/// The ratchet's whole rule. Re-arming comes first: a fill under every
/// level after one fired means the context was rebuilt (a compaction, a
/// rewind). A level fires when the fill is past it and the ratchet below
/// it, and never twice for the same usage record.
fn decide(r: &Ratchet, limits: &Limits, fill: u64, message_id: Option<&str>) -> Action {
    let now = limits.level(fill);
    if r.level > Level::None && limits.below_all(fill) {
        return Action::Rearm;
    }
    if now <= r.level {
        return Action::Nothing(if now == Level::None {
            Quiet::Below
        } else {
            Quiet::AlreadyFired
        });
    }
    if message_id.is_some() && message_id == r.last_fire_message.as_deref() {
        return Action::Nothing(Quiet::SameRecord);
    }
    Action::Fire(now)
}

/// [`on_stop`] with a structured answer. `seen`: the main thread's context
/// as the capture's pass of this Stop left it; `None`: read the tail.
pub fn check(
    ctx: &Ctx,
    config: &Settings,
    root: &Path,
    info: &Stop,
    seen: Option<&StopContext>,
    spend: &dyn SpendSource,
) -> Result<Outcome> {
    let cfg = &config.guard;
    if !cfg.enabled {
        return Ok(Outcome::Silent(Quiet::Disabled));
    }
    if info.stop_hook_active {
        return Ok(Outcome::Silent(Quiet::StopHookActive));
    }
    let Some(id) = state::file_id(&info.session_id) else {
        return Ok(Outcome::Silent(Quiet::NoSession));
    };
    let Some(transcript) = info.transcript_path.as_deref() else {
        return Ok(Outcome::Silent(Quiet::NoTranscript));
    };
    let cannot_read = || format!("guard: cannot read the transcript {}", transcript.display());
    // The capture's pass read this turn already: the file is read again only
    // when that pass saw no usage, or to wait for a late answer.
    let seen = match seen {
        Some(known) => known.clone(),
        None => crate::transcript::context_at_stop(transcript).with_context(cannot_read)?,
    };
    let recorded = state::read_window(ctx, &id)?;
    let limits_of = |u: &crate::transcript::ContextUsage| {
        cfg.limits(
            u.model.as_deref(),
            recorded.as_ref().map(|r| (r.window, r.model.as_deref())),
            disable_1m(ctx),
        )
    };
    // Most turns change nothing: decide on a lock-free read (files are
    // replaced atomically) and take the lock only to change something.
    let fired = state::read_ratchet(ctx, &id)?;
    let usage = match info
        .last_assistant_message
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty())
    {
        // The call that wrote the answer is not in the file yet: a prompt or
        // tool result follows the last usage, or that usage's text is not
        // the answer. Without a usage to start from (a session's first
        // call, the first after a compaction) nothing bounds its fill.
        Some(answer)
            if seen.answer_pending
                || !crate::transcript::names_answer(seen.usage.as_ref(), answer) =>
        {
            let near = seen.usage.as_ref().is_none_or(|u| {
                limits_of(u).is_some_and(|l| {
                    let bound = late::late_fill_bound(u, seen.bytes_after);
                    late::could_cross(&l, fired.level, u.fill(), bound)
                })
            });
            if near {
                let settled = crate::transcript::settle_at_stop(transcript, Some(answer))
                    .with_context(cannot_read)?;
                if settled.timed_out {
                    ctx.diag(
                        crate::diag::Level::Info,
                        "guard",
                        &format!(
                            "the answer this Stop names was not in {} after {} ms; judged what is there",
                            transcript.display(),
                            crate::transcript::SETTLE_WAIT.as_millis()
                        ),
                    );
                }
                settled.usage
            } else {
                seen.usage
            }
        }
        _ => seen.usage,
    };
    let Some(usage) = usage else {
        return Ok(Outcome::Silent(Quiet::NoUsage));
    };
    let Some(limits) = limits_of(&usage) else {
        return Ok(Outcome::Silent(Quiet::UnknownModel));
    };
    let fill = usage.fill();
    let message_id = usage.message_id.as_deref();

    if let Action::Nothing(q) = decide(&fired, &limits, fill, message_id) {
        return Ok(Outcome::Silent(q));
    }
    let _lock = state::lock(ctx)?;
    let mut r = state::read_ratchet(ctx, &id)?;
    match decide(&r, &limits, fill, message_id) {
        Action::Nothing(q) => Ok(Outcome::Silent(q)),
        Action::Rearm => {
            r.rearm();
            state::write_ratchet(ctx, &id, &r)?;
            Ok(Outcome::Rearmed)
        }
        Action::Fire(level) => {
            let fire = FireCtx {
                ctx,
                config,
                root,
                info,
                spend,
                id: &id,
                transcript,
                level,
                fill,
                limits,
                model: usage.model.as_deref(),
                message_id,
            };
            fire.run(r).map(Outcome::Block)
        }
    }
}

struct FireCtx<'a> {
    ctx: &'a Ctx,
    config: &'a Settings,
    root: &'a Path,
    info: &'a Stop,
    spend: &'a dyn SpendSource,
    id: &'a str,
    transcript: &'a Path,
    level: Level,
    fill: u64,
    limits: Limits,
    model: Option<&'a str>,
    message_id: Option<&'a str>,
}

impl FireCtx<'_> {
    /// Called with the lock held.
    fn run(&self, mut r: Ratchet) -> Result<Blocked> {
        let now = self.ctx.clock.now();
        // The hard level reuses the note of the warn level: the model has
        // refined it since, and rewriting it would throw that away.
        let existing = r.checkpoint.clone().filter(|p| p.is_file());
        let (note_path, store) = match &existing {
            Some(p) => (p.clone(), None),
            None => {
                let store = Store::discover(self.root, &self.config.memory);
                (self.new_note_path(&store, now), Some(store))
            }
        };
        let previous = r.clone();
        r.checkpoint = Some(note_path.clone());
        r.record_fire(Fire {
            level: self.level,
            at: now.to_string(),
            tokens: self.fill,
            window: self.limits.window,
            message_id: self.message_id.map(str::to_string),
        });
        // The ratchet first: writing it proves the state folder is
        // writable, so a folder that is not cannot leave a new note in the
        // project on every turn.
        state::write_ratchet(self.ctx, self.id, &r)?;
        if let Some(store) = &store
            && let Err(e) = self.write_note(store, &note_path, now)
        {
            let _ = state::write_ratchet(self.ctx, self.id, &previous);
            return Err(e);
        }
        // For `cairn site`, past the sweep of the ratchets: one appended
        // line, from figures already here.
        if let Err(e) = history::record(
            self.ctx,
            &history::Entry {
                session: self.info.session_id.clone(),
                root: self.root.to_path_buf(),
                level: self.level,
                at: now.to_string(),
                tokens: self.fill,
                window: self.limits.window,
                checkpoint: Some(note_path.clone()),
            },
        ) {
            self.ctx.diag(
                crate::diag::Level::Warn,
                "guard",
                &format!("cannot record the fire in the guard's history: {e:#}"),
            );
        }
        if self.level == Level::Hard {
            state::write_handoff(
                self.ctx,
                self.root,
                &PendingHandoff {
                    path: note_path.clone(),
                    session_id: self.info.session_id.clone(),
                    at: now.to_string(),
                    root: self.root.to_path_buf(),
                },
            )?;
        }
        Ok(Blocked {
            level: self.level,
            fill: self.fill,
            limits: self.limits,
            reason: self.reason(&note_path),
            system_message: self.system_message(&note_path),
            checkpoint: note_path,
            wrote_checkpoint: existing.is_none(),
        })
    }

    fn cwd(&self) -> PathBuf {
        self.info
            .cwd
            .clone()
            .unwrap_or_else(|| self.root.to_path_buf())
    }

    /// `<project>/memory_sessions/checkpoints/<UTC time>-<session8>.md`, in
    /// the project the session's directory belongs to; names sort by time.
    fn new_note_path(&self, store: &Store, now: jiff::Timestamp) -> PathBuf {
        let cwd = self.cwd();
        let name = store.project_for_dir(&cwd).to_string();
        let dir = store
            .project(&name)
            .map(|p| p.checkpoints_dir())
            .unwrap_or_else(|| self.root.join("memory_sessions/checkpoints"));
        let short: String = self.id.chars().take(8).collect();
        let stamp = now.strftime("%Y-%m-%dT%H%M%SZ").to_string();
        let mut path = dir.join(format!("{stamp}-{short}.md"));
        let mut n = 2;
        while path.exists() {
            path = dir.join(format!("{stamp}-{short}-{n}.md"));
            n += 1;
        }
        path
    }

    fn write_note(&self, store: &Store, path: &Path, now: jiff::Timestamp) -> Result<()> {
        let lang = self.config.memory.language;
        // Redacted before any cut to length (SPEC §1.11), and the whole note
        // once more after rendering.
        let redactor = &self.config.redactor;
        let clean = |t: &str| redactor.redact(t);
        // A transcript that cannot be read again gives a thinner note, not
        // a failed block: the figures and the gaps to fill are still there.
        let facts = scan::scan_with(self.transcript, SCAN_BYTES, &clean).unwrap_or_default();
        let cwd_buf = self.info.cwd.clone();
        let cwd_str = cwd_buf
            .as_deref()
            .map(|p| p.to_string_lossy().into_owned())
            .or_else(|| facts.cwd.clone());
        let cwd = cwd_str
            .as_deref()
            .map(PathBuf::from)
            .unwrap_or_else(|| self.root.to_path_buf());

        let today = self.ctx.local_date(now);
        let project = store.project(store.project_for_dir(&cwd));
        let (decisions, open_items) = project
            .and_then(|p| store.read_text(self.ctx, &p.log_path(&today)))
            .map(|text| {
                let log = DailyLog::parse(&text, &today, lang);
                let take = |v: Vec<String>| v.into_iter().take(10).collect::<Vec<_>>();
                (
                    take(
                        log.bullets(SectionKey::Decisions)
                            .into_iter()
                            .map(str::to_string)
                            .collect(),
                    ),
                    take(log.open_todos()),
                )
            })
            .unwrap_or_default();
        let git = git::git_info(&cwd).or_else(|| git::git_info(self.root));
        let subagents = SubagentSpend {
            transcripts: count_subagent_transcripts(self.transcript),
            cost_usd: match self.spend.session(self.transcript) {
                Ok(s) => s.map(|s| s.subagents_usd),
                Err(e) => {
                    self.ctx.diag(
                        crate::diag::Level::Warn,
                        "guard",
                        &format!("subagent spend unknown: {e}"),
                    );
                    None
                }
            },
        };
        let when = now
            .to_zoned(self.ctx.tz())
            .strftime("%Y-%m-%d %H:%M")
            .to_string();
        let last_answer = self
            .info
            .last_assistant_message
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .or(facts.last_answer.as_deref())
            .map(clean);
        let text = note::render(&NoteInput {
            lang,
            session_id: &self.info.session_id,
            level: self.level,
            fill: self.fill,
            limits: self.limits,
            model: self.model,
            when: &when,
            root: self.root,
            cwd: cwd_str.as_deref(),
            last_answer: last_answer.as_deref(),
            facts: &facts,
            git: git.as_ref(),
            decisions: &decisions,
            open_items: &open_items,
            subagents,
        });
        let text = redactor.redact(&text);
        // Through the store: a `checkpoints/` link out of the project is refused.
        store
            .write(self.ctx, path, text.as_bytes())
            .with_context(|| format!("guard: cannot write the checkpoint {}", path.display()))
    }

    fn figures(&self) -> String {
        let g = |n| group_digits(n, crate::memory::log::Lang::En);
        format!(
            "{}% of the window ({} / {} tokens)",
            self.limits.percent(self.fill),
            g(self.fill),
            g(self.limits.window)
        )
    }

    /// The hook feedback the model reads. English: it is an instruction to
    /// the model, not a text for the user; kept well under 1,000 characters.
    fn reason(&self, note: &Path) -> String {
        let g = |n| group_digits(n, crate::memory::log::Lang::En);
        let figures = self.figures();
        let note = note.display();
        match self.level {
            Level::Hard => format!(
                "cairn context guard: the context is at {figures}, past the hard level ({} tokens). \
                 Start no new work. Finish the hand-off note at {note}: goal, state, decisions and why, \
                 open items with the exact next action first, files touched as path:line; under 500 \
                 words, no secrets. Then end your reply by telling the user that the context is nearly \
                 full and to run /clear: the next session starts from this note automatically.",
                g(self.limits.hard)
            ),
            _ => {
                let next = if self.limits.hard > self.limits.warn {
                    format!(
                        " This will not stop you again before the hard level ({} tokens).",
                        g(self.limits.hard)
                    )
                } else {
                    String::new()
                };
                format!(
                    "cairn context guard: the context is at {figures}, past the warn level ({} tokens). \
                     A hand-off note was written to {note}. Pause for reflection before going on: \
                     1. Refine the note in place: the goal in one or two sentences, where the work \
                     stands, decisions and why, open items with the next action first, files touched \
                     as path:line; under 500 words, no secrets. 2. Consider what in the context is no \
                     longer needed and what you would do differently. 3. Then continue the task where \
                     you left off.{next}",
                    g(self.limits.warn)
                )
            }
        }
    }

    /// The line the user sees in the client.
    fn system_message(&self, note: &Path) -> String {
        let shown = note::display_path(&note.to_string_lossy(), self.root, None);
        match self.level {
            Level::Hard => format!(
                "cairn: context at {}; hand-off note ready ({shown}): /clear to resume from it",
                self.figures()
            ),
            _ => format!(
                "cairn: context at {}; checkpoint written to {shown}",
                self.figures()
            ),
        }
    }
}

/// `SessionStart` with `source: compact`: the context was rebuilt, so both
/// levels may fire again. Sessions the guard never fired in have no file
/// and cost one `stat`.
fn rearm(ctx: &Ctx, session_id: &str) -> Result<()> {
    let Some(id) = state::file_id(session_id) else {
        return Ok(());
    };
    if !state::ratchet_exists(ctx, &id) {
        return Ok(());
    }
    let _lock = state::lock(ctx)?;
    let mut r = state::read_ratchet(ctx, &id)?;
    if r.level == Level::None && r.checkpoint.is_none() {
        return Ok(());
    }
    r.rearm();
    state::write_ratchet(ctx, &id, &r)
}

fn usable_handoff(ctx: &Ctx, config: &GuardConfig, h: &PendingHandoff) -> Option<PathBuf> {
    let at: jiff::Timestamp = h.at.parse().ok()?;
    let age = ctx.clock.now().duration_since(at);
    let max = jiff::SignedDuration::from_hours(
        i64::try_from(config.handoff_max_age_hours).unwrap_or(i64::MAX / 3600),
    );
    (age <= max && h.path.is_file()).then(|| h.path.clone())
}

fn take_handoff(ctx: &Ctx, config: &GuardConfig, root: &Path) -> Result<Option<PathBuf>> {
    // Peek first: most session starts have nothing pending and should not
    // take a lock (or create the state folder) to learn it.
    if state::read_handoff(ctx, root)?.is_none() {
        return Ok(None);
    }
    let _lock = state::lock(ctx)?;
    let Some(h) = state::read_handoff(ctx, root)? else {
        return Ok(None);
    };
    state::remove_handoff(ctx, root)?;
    Ok(usable_handoff(ctx, config, &h))
}

/// Subagent transcripts of a session: `<session>/subagents/agent-*.jsonl`,
/// workflow agents one or two folders deeper.
fn count_subagent_transcripts(transcript: &Path) -> usize {
    fn walk(dir: &Path, depth: usize) -> usize {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return 0;
        };
        let mut n = 0;
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && depth < 3 {
                n += walk(&e.path(), depth + 1);
            } else if kind.is_file()
                && name.starts_with("agent-")
                && name.ends_with(".jsonl")
                && !crate::transcript::is_compaction_file(&name)
            {
                n += 1;
            }
        }
        n
    }
    walk(&transcript.with_extension("").join("subagents"), 0)
}
