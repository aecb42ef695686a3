//! Capture (SPEC §1.5): from a Stop to the day's log.
//!
//! The Stop hook's half ([`on_stop`]) makes one pass over the transcript
//! from this session's last captured point ([`pass`]), folds the records
//! into turns ([`turns`], with [`clean`] telling the user's request from
//! what the client wrapped around it and [`shell`] reading command lines),
//! redacts the resulting digest, spools it ([`spool`]) and wakes the worker.
//! The worker's half ([`worker`], [`pipeline`]) extracts bullets from the
//! digest with the configured backend and merges them into the log.
//!
//! Capture sits above `extract` (the digest type and the backends) and
//! `memory` (the log format and the store): they are data and extraction,
//! this is the pipeline.

pub mod clean;
pub mod legacy;
pub mod pass;
pub mod pipeline;
pub mod shell;
pub mod spool;
pub mod turns;
pub mod worker;

pub use pipeline::{
    REGISTERED_HOOK_TIMEOUT_SECS, StopOutcome, inline_deadline_secs, process_job, turn_date,
};

use crate::context::Ctx;
use crate::diag::Level;
use crate::event::Stop;
use crate::extract::digest::{Digest, RequestKind};
use crate::transcript::StopContext;
use anyhow::{Context, Result};
use std::path::Path;

/// What capture reads of the configuration, already validated: the memory
/// section and the redactor compiled from the redact section.
#[derive(Debug, Clone)]
pub struct Settings {
    pub memory: crate::memory::config::MemoryConfig,
    pub redactor: crate::redact::ActiveRedactor,
    /// Prices the backend calls into the memory ledger (`[[usage.prices]]`).
    pub prices: crate::usage::PriceTable,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            memory: Default::default(),
            redactor: crate::redact::RedactConfig::default().redactor(),
            prices: Default::default(),
        }
    }
}

/// What a Stop's capture did, and what its pass saw of the context (the
/// guard's input, so it need not read the file again).
#[derive(Debug)]
pub struct Captured {
    pub outcome: StopOutcome,
    /// `None`: the pass saw no usage.
    pub context: Option<StopContext>,
}

/// The Stop hook's work: one pass, one job. Never calls a backend unless
/// `memory.sync` asks for it.
pub fn on_stop(ctx: &Ctx, config: &Settings, root: &Path, input: &Stop) -> Result<Captured> {
    let Some(path) = input.transcript_path.as_deref() else {
        anyhow::bail!("the Stop payload has no transcript_path");
    };
    // Two Stops of one session at once would read from the same cursor.
    let _lock = crate::session_id::file_stem(&input.session_id)
        .map(|id| {
            crate::fsutil::lock(
                &crate::state_layout::capture(&ctx.state_dir).join(format!("{id}.lock")),
            )
        })
        .transpose()
        .unwrap_or_else(|e| {
            // No lock (state folder unwritable): capture anyway.
            ctx.diag(Level::Warn, "capture", &format!("{e:#}"));
            None
        });
    let cursor = pass::load_cursor(&ctx.state_dir, &input.session_id);
    let mut pass = pass::run(
        path,
        cursor.as_ref(),
        &input.session_id,
        input.cwd.as_deref(),
    )
    .with_context(|| format!("cannot read transcript {}", path.display()))?;
    if pass.lines_skipped > 0 {
        ctx.diag(
            Level::Info,
            "capture",
            &format!(
                "{} unreadable line(s) skipped in {}",
                pass.lines_skipped,
                path.display()
            ),
        );
    }
    let context = pass.context.take();
    if pass.skipped_bytes > 0 {
        ctx.diag(
            Level::Warn,
            "capture",
            &format!(
                "{} bytes of {} since the last capture not read (too far behind); only its end was",
                pass.skipped_bytes,
                path.display()
            ),
        );
    }
    // The payload's text is final; the transcript may still be flushing
    // it. It answers the last prompt, not the rest of an earlier turn.
    // An answer read whole that ends on it stays whole: the payload holds
    // only the model's last message, which may be its reply to a
    // background task's notice after the answer proper.
    if let Some(msg) = input
        .last_assistant_message
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
        && let Some(last) = pass.turns.last_mut().filter(|t| t.prompted)
    {
        if !last.answer.trim_end().ends_with(msg) {
            last.answer = msg.to_owned();
        }
        // The question the next request may answer is this answer's.
        pass.cursor.asked = crate::extract::closing_question(msg);
        pass.cursor.offered = crate::extract::offered_options(msg);
    }
    // Kept in the cursor between Stops: redacted like everything else (a
    // carried error's command line is matched against the bullet the
    // redacted digest wrote, so it matches better redacted too).
    if let Some(q) = &mut pass.cursor.asked {
        *q = config.redactor.redact(q);
    }
    for c in &mut pass.cursor.open {
        c.target = config.redactor.redact(&c.target);
    }
    for (_, gist) in &mut pass.cursor.offered {
        // Redacted, then cut, as the tasks below.
        *gist = config
            .redactor
            .redact(gist)
            .chars()
            .take(crate::extract::digest::MAX_ENTRY_CHARS)
            .collect();
    }
    for step in &mut pass.cursor.skill_steps {
        *step = config.redactor.redact(step);
    }
    for t in &mut pass.cursor.tasks {
        // Redacted, then cut: a cut first could leave part of a secret.
        t.todo.text = config
            .redactor
            .redact(&t.todo.text)
            .chars()
            .take(crate::extract::digest::MAX_ENTRY_CHARS)
            .collect();
    }
    let turns: Vec<_> = std::mem::take(&mut pass.turns)
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect();
    let save_cursor = |ctx: &Ctx| {
        if let Err(e) = pass::save_cursor(&ctx.state_dir, &input.session_id, &pass.cursor) {
            // The next Stop reads the turn again; merges are idempotent.
            ctx.diag(Level::Warn, "capture", &format!("{e:#}"));
        }
    };
    if turns.is_empty() {
        save_cursor(ctx);
        return Ok(Captured {
            outcome: StopOutcome::NothingToDo,
            context,
        });
    }
    // Redact before anything is spooled, and before any cut (SPEC §1.11).
    let redactor = &config.redactor;
    let dropped = turns
        .len()
        .saturating_sub(crate::extract::digest::MAX_TURNS);
    if dropped > 0 {
        ctx.diag(
            Level::Warn,
            "capture",
            &format!(
                "{dropped} older turn(s) since the last capture left out (at most {} per Stop)",
                crate::extract::digest::MAX_TURNS
            ),
        );
    }
    let mut digest = Digest { turns }.sanitized(&|t| redactor.redact(t));
    // `OK-done` only closes to-dos: the turns before it (interrupted, or
    // whose Stop never came) go in a job of their own, in order.
    if is_ok_done(&digest)
        && let Some(at) = digest
            .turns
            .iter()
            .rposition(|t| t.kind != RequestKind::None)
            .filter(|at| *at > 0)
    {
        let ok_done = digest.turns.split_off(at);
        pipeline::spool_digest(ctx, config, root, input, digest)?;
        digest = Digest { turns: ok_done };
    }
    let outcome = pipeline::spool_digest(ctx, config, root, input, digest)?;
    save_cursor(ctx);
    Ok(Captured { outcome, context })
}

/// `OK-done`: the user closing the to-dos of the turn before.
pub fn is_ok_done(digest: &Digest) -> bool {
    digest
        .last()
        .is_some_and(|t| t.kind != RequestKind::None && crate::extract::is_ok_done(&t.request))
}

/// `cairn worker [--drain]`: what to print. `settings_for` loads the
/// configuration of a job's project (the entry point owns the loader).
pub fn worker_command(
    ctx: &Ctx,
    drain: bool,
    settings_for: &dyn Fn(&Path) -> Settings,
) -> Result<String> {
    let r = worker::run(ctx, drain, settings_for)?;
    Ok(if drain {
        format!(
            "{} jobs done, {} to retry, {} dead-lettered, {} pending\n",
            r.done,
            r.retried,
            r.dead,
            spool::pending_ids(&ctx.state_dir).len()
        )
    } else {
        String::new()
    })
}
