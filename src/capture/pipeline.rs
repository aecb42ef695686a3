//! The capture pipeline's two halves around the spool: the Stop hook's
//! (spool the digest, wake the worker; sync mode and the no-spool fallback
//! merge inline) and the worker's (backend call, `.debug/`, merge under the
//! repository lock).

use super::Settings;
use super::spool::{self, Job};
use crate::context::Ctx;
use crate::diag::Level;
use crate::extract::digest::Digest;
use crate::extract::{self, ExtractRequest};
use crate::fsutil::confine::Kind;
use crate::fsutil::{LockGuard, lock};
use crate::memory::config::{BackendKind, MemoryConfig};
use crate::memory::log::{DailyLog, append_long_memory};
use crate::memory::session::{self, AddedTodos};
use crate::memory::store::{Store, repo_lock_path, valid_project_name};
use crate::redact::Redactor;
use crate::usage::ledger;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopOutcome {
    /// Nothing new to remember since the last capture.
    NothingToDo,
    Queued(String),
    /// `memory.sync`: merged before the hook returned.
    Merged,
    /// The spool could not be written (state folder full, read-only, not a
    /// folder): the turns were merged inline instead of being lost.
    MergedWithoutSpool,
}

/// The `timeout` `cairn install` and `hooks/hooks.json` register for every
/// hook: past it the client kills the hook. A unit test keeps the two in step.
pub const REGISTERED_HOOK_TIMEOUT_SECS: u64 = 30;

/// What the Stop hook keeps for itself out of the registered timeout: the
/// wait for a transcript not yet created or for a late answer near a guard
/// level (each at most 500 ms), the guard, process start, a slow disk.
const HOOK_MARGIN_SECS: u64 = 10;

/// How long inline work (sync mode, or the fallback when the spool cannot be
/// written) may wait for a backend: `memory.timeout_secs`, but never so long
/// that the client kills the hook first.
pub fn inline_deadline_secs(timeout_secs: u64) -> u64 {
    timeout_secs.clamp(1, REGISTERED_HOOK_TIMEOUT_SECS - HOOK_MARGIN_SECS)
}

/// Spools one redacted digest as a job and wakes the worker (or, in sync
/// mode, merges it now).
pub(super) fn spool_digest(
    ctx: &Ctx,
    config: &Settings,
    root: &Path,
    input: &crate::event::Stop,
    digest: Digest,
) -> Result<StopOutcome> {
    let now = ctx.clock.now();
    let timestamp = digest
        .last()
        .and_then(|t| t.timestamp.clone())
        .unwrap_or_else(|| now.to_string());
    let job = Job {
        id: spool::new_id(now),
        project_root: root.to_path_buf(),
        session_id: input.session_id.clone(),
        cwd: input.cwd.clone().unwrap_or_else(|| root.to_path_buf()),
        timestamp,
        ok_done: super::is_ok_done(&digest),
        digest,
        exchange: None,
        attempts: 0,
        last_error: None,
        not_before: 0,
    };
    // The job is on disk before any slow work: if the client kills the hook
    // (sync mode and a backend that hangs), the worker still has the turn.
    if let Err(spool_error) = spool::enqueue(&ctx.state_dir, &job) {
        return capture_without_spool(ctx, config, &job, spool_error);
    }
    if config.memory.sync {
        return Ok(sync_inline(ctx, config, job));
    }
    super::worker::wake(ctx);
    Ok(StopOutcome::Queued(job.id))
}

/// `config` with the backend's timeout cut to [`inline_deadline_secs`].
fn inline_config(config: &Settings) -> Settings {
    let mut c = config.clone();
    c.memory.timeout_secs = inline_deadline_secs(c.memory.timeout_secs);
    c
}

/// `memory.sync`: the spooled job is merged now, under the worker lock so a
/// worker cannot merge it at the same time. If a worker holds the lock, the
/// job is its own (it rescans the spool before it exits). If the inline
/// attempt fails or runs out of time, the job stays for the worker.
fn sync_inline(ctx: &Ctx, config: &Settings, job: Job) -> StopOutcome {
    let claim = match super::worker::claim(ctx) {
        Ok(Some(g)) => g,
        Ok(None) => return StopOutcome::Queued(job.id),
        Err(e) => {
            ctx.diag(
                Level::Warn,
                "capture",
                &format!("{e:#}; job left to the worker"),
            );
            super::worker::wake(ctx);
            return StopOutcome::Queued(job.id);
        }
    };
    let outcome = match process_job(ctx, &inline_config(config), &job) {
        Ok(()) => match spool::remove(&ctx.state_dir, &job.id) {
            Ok(()) => StopOutcome::Merged,
            Err(e) => {
                // Merged, but the job is still there: the worker's retry is
                // harmless (merges are idempotent).
                ctx.diag(Level::Warn, "capture", &format!("{e:#}"));
                StopOutcome::Queued(job.id)
            }
        },
        Err(e) => {
            ctx.diag(
                Level::Warn,
                "capture",
                &format!(
                    "sync extraction failed within {}s, job left to the worker: {e:#}",
                    inline_deadline_secs(config.memory.timeout_secs)
                ),
            );
            StopOutcome::Queued(job.id)
        }
    };
    drop(claim);
    // Jobs other hooks spooled while the lock was held started no worker.
    if !spool::pending_ids(&ctx.state_dir).is_empty() {
        super::worker::wake(ctx);
    }
    outcome
}

/// The spool could not be written: merge inline (same deadline as sync mode)
/// rather than lose the turn. The diagnostics log lives in the same state
/// folder and is likely unwritable too, so `cairn doctor` and the status
/// line are where the user learns of it.
fn capture_without_spool(
    ctx: &Ctx,
    config: &Settings,
    job: &Job,
    spool_error: anyhow::Error,
) -> Result<StopOutcome> {
    match process_job(ctx, &inline_config(config), job) {
        Ok(()) => {
            ctx.diag(
                Level::Warn,
                "capture",
                &format!("{spool_error:#}; the turn was captured inline"),
            );
            Ok(StopOutcome::MergedWithoutSpool)
        }
        Err(e) => Err(e.context(format!(
            "{spool_error:#}, and inline capture failed too: turn lost"
        ))),
    }
}

/// The repository lock. When the state folder cannot hold it (full,
/// read-only, not a folder), the project folder itself is locked instead,
/// so inline captures still exclude each other.
fn repo_lock(ctx: &Ctx, root: &Path) -> Result<LockGuard> {
    lock(&repo_lock_path(ctx, root)).or_else(|e| {
        crate::fsutil::lock_dir(root).with_context(|| format!("{e:#}; and no lock on the project"))
    })
}

/// Whether the digest finishes something a to-do of an earlier day may
/// name: a ticket closed, a commit made (a commit left to do), a to-do of
/// the model's list completed.
fn finishes_something(digest: &Digest) -> bool {
    use crate::extract::digest::ActionKind;
    digest.turns.iter().any(|t| {
        t.actions
            .iter()
            .any(|a| a.ok && matches!(a.kind, ActionKind::TicketClosed | ActionKind::Commit))
            || t.todos
                .iter()
                .any(|td| td.status == crate::extract::digest::TodoStatus::Completed)
    })
}

/// The to-dos the logs before `today` leave open, per project, redacted
/// as the logs are when they reach a backend.
fn earlier_open_todos(
    ctx: &Ctx,
    store: &Store,
    today: &str,
    r: &Redactor,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in &store.projects {
        let loaded = crate::memory::load::load_project(ctx, store, p, today);
        for t in loaded
            .open_todos
            .into_iter()
            .filter(|t| t.date.as_str() < today)
        {
            out.push((p.name.clone(), r.redact(&t.text)));
        }
    }
    out
}

/// Every text of `digest` through `r`.
pub(crate) fn redact_digest(r: &Redactor, digest: &mut Digest) {
    digest.map_texts(&mut |s| *s = r.redact(s));
}

/// The worker's work for one job: extract, keep the raw answer in `.debug/`,
/// merge under the repository lock. `Err` means "retry later".
pub fn process_job(ctx: &Ctx, config: &Settings, job: &Job) -> Result<()> {
    let store = Store::discover(&job.project_root, &config.memory);
    let date = turn_date(ctx, &job.timestamp);
    let r: &Redactor = &config.redactor;
    let mut digest = job.digest();
    redact_digest(r, &mut digest);
    let default_project = store.project_for_dir(&job.cwd).to_string();

    let existing_logs: Vec<(String, String)> = store
        .projects
        .iter()
        .filter_map(|p| {
            let text = store.read_text(ctx, &p.log_path(&date))?;
            (!text.trim().is_empty()).then(|| (p.name.clone(), r.redact(&text)))
        })
        .collect();
    let done_candidates = if job.ok_done {
        ok_done_candidates(ctx, &store, &job.session_id, &default_project, &date)
    } else {
        Vec::new()
    };
    let projects = store.project_pairs();
    let earlier_todos = if finishes_something(&digest) {
        earlier_open_todos(ctx, &store, &date, r)
    } else {
        Vec::new()
    };
    let request = ExtractRequest {
        project_root: &job.project_root,
        digest: &digest,
        ok_done: job.ok_done,
        projects: &projects,
        default_project: &default_project,
        existing_logs: &existing_logs,
        done_candidates: &done_candidates,
        earlier_todos: &earlier_todos,
        lang: config.memory.language,
    };
    let backend = extract::backend_for(&budgeted(ctx, config), ctx);
    let answer = backend
        .extract(&request)
        .with_context(|| format!("{} backend failed", backend.name()))?;
    if let Some(u) = &answer.usage {
        ledger::record_call(
            ctx,
            &config.prices,
            &format!("{}/memory", backend.name()),
            u.into(),
        );
    }

    let _guard = repo_lock(ctx, &job.project_root)?;
    let debug_project = store
        .project(&default_project)
        .unwrap_or(&store.projects[0]);
    write_debug(
        ctx,
        &store,
        debug_project.debug_dir(),
        &date,
        &job.id,
        &r.redact(&answer.raw),
    );

    let extraction = match answer.extraction {
        Ok(x) => x,
        Err(reason) => {
            ctx.diag(
                Level::Warn,
                "capture",
                &format!(
                    "{} answer not understood ({reason}); kept in .debug/",
                    backend.name()
                ),
            );
            return Ok(());
        }
    };
    let mut added_todos = Vec::new();
    for mut update in extraction.updates {
        let Some(project) = store
            .project(&update.project)
            .filter(|_| valid_project_name(&update.project))
        else {
            ctx.diag(
                Level::Warn,
                "capture",
                &format!(
                    "update for unknown project `{}` dropped (kept in .debug/)",
                    diag_name(&update.project)
                ),
            );
            continue;
        };
        if job.ok_done {
            // OK-done only closes to-dos, whatever the backend says.
            let done = std::mem::take(&mut update.sections.a_suivre_done);
            update.sections = Default::default();
            update.sections.a_suivre_done = done;
            update.long_memory_update = None;
        }
        for list in update.sections.all_mut() {
            for item in list.iter_mut() {
                *item = r.redact(item);
            }
        }
        // Redacted as the bullets were, so a head still matches its bullet.
        for res in &mut update.sections.problemes_resolus {
            res.head = r.redact(&res.head);
            res.now = r.redact(&res.now);
        }
        for rev in &mut update.sections.travail_revise {
            rev.was = r.redact(&rev.was);
            rev.now = r.redact(&rev.now);
        }
        for item in &mut update.sections.finalise_earlier {
            *item = r.redact(item);
        }
        if !update.sections.is_empty() {
            let path = project.log_path(&date);
            // A log that cannot be read (a link out of the project, a FIFO,
            // over the size cap) is not rewritten: the job is retried and
            // ends in dead letters rather than overwrite what it points at.
            let before = store.read_for_update(ctx, &path)?;
            let mut log = if before.is_empty() {
                DailyLog::new(&date, config.memory.language)
            } else {
                DailyLog::parse(&before, &date, config.memory.language)
            };
            let open_before = log.open_todos();
            log.merge(&update.sections, config.memory.max_bullet_chars);
            let after = log.render();
            if after != before {
                store.write(ctx, &path, after.as_bytes())?;
            }
            let new_todos: Vec<String> = log
                .open_todos()
                .into_iter()
                .filter(|t| !open_before.contains(t))
                .collect();
            if !new_todos.is_empty() {
                added_todos.push(AddedTodos {
                    project: project.name.clone(),
                    date: date.clone(),
                    items: new_todos,
                });
            }
        }
        if let Some(text) = update
            .long_memory_update
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            let text = r.redact(text);
            let path = project.long_memory_path();
            let before = store.read_for_update(ctx, &path)?;
            // A retried job must not append the same block twice.
            if !before.contains(text.trim()) {
                let after = append_long_memory(
                    &before,
                    &project.name,
                    &date,
                    &text,
                    config.memory.language,
                );
                store.write(ctx, &path, after.as_bytes())?;
            }
        }
    }
    if !added_todos.is_empty() {
        let mut state = session::load(&ctx.state_dir, &job.session_id);
        state.last_todos = added_todos;
        // A hint for a later OK-done: losing it (state folder unwritable)
        // must not make the merged job fail and run again.
        if let Err(e) = session::save(&ctx.state_dir, &job.session_id, &state) {
            ctx.diag(Level::Warn, "capture", &format!("{e:#}"));
        }
    }
    Ok(())
}

/// The memory config to extract with: past `memory.daily_budget_usd` of
/// LLM spend today, the offline extractor takes over until tomorrow.
fn budgeted(ctx: &Ctx, config: &Settings) -> MemoryConfig {
    let mut m = config.memory.clone();
    if m.backend != BackendKind::Offline {
        let spent = ledger::memory_spend_on(&ctx.state_dir, &ctx.today());
        if spent >= m.daily_budget_usd {
            ctx.diag(
                Level::Warn,
                "budget",
                &format!("memory spend today ${spent:.2} reached memory.daily_budget_usd ${:.2}; offline extractor until tomorrow", m.daily_budget_usd),
            );
            m.backend = BackendKind::Offline;
        }
    }
    m
}

fn diag_name(s: &str) -> String {
    crate::diag::one_line(s, 64)
}

/// The local date of the turn; the worker may run long after it.
pub fn turn_date(ctx: &Ctx, timestamp: &str) -> String {
    let ts = timestamp
        .parse::<jiff::Timestamp>()
        .unwrap_or_else(|_| ctx.clock.now());
    ctx.local_date(ts)
}

/// Offline OK-done: the open to-dos this session added most recently, else
/// the last open to-do of the day.
fn ok_done_candidates(
    ctx: &Ctx,
    store: &Store,
    session_id: &str,
    project: &str,
    date: &str,
) -> Vec<String> {
    let Some(p) = store.project(project) else {
        return Vec::new();
    };
    let text = store.read_text(ctx, &p.log_path(date)).unwrap_or_default();
    let open = DailyLog::parse(&text, date, Default::default()).open_todos();
    let state = session::load(&ctx.state_dir, session_id);
    let from_session: Vec<String> = state
        .last_todos
        .iter()
        .filter(|t| t.project == project && t.date == date)
        .flat_map(|t| t.items.iter())
        .filter(|i| open.contains(i))
        .cloned()
        .collect();
    if !from_session.is_empty() {
        return from_session;
    }
    open.last().cloned().into_iter().collect()
}

fn write_debug(ctx: &Ctx, store: &Store, dir: PathBuf, date: &str, job_id: &str, raw: &str) {
    let now = ctx.clock.now().to_zoned(ctx.tz());
    // Ignored by git even where `cairn install` never ran: the raw answers are
    // diagnostics, not memory.
    let ignore = dir.join(".gitignore");
    if store
        .jail
        .resolve(&ignore)
        .is_ok_and(|r| r.kind == Kind::Missing)
    {
        let _ = store.write_unsynced(ctx, &ignore, b"*\n");
    }
    // The whole job id: unique per turn, where its last 4 digits (a
    // per-process counter) were `0000` for nearly every hook.
    let name = format!("{date}_{}_{job_id}.json", now.strftime("%H%M%S"));
    if let Err(e) = store.write_unsynced(ctx, &dir.join(name), raw.as_bytes()) {
        ctx.diag(
            Level::Warn,
            "capture",
            &format!("cannot write .debug/: {e:#}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_deadline_fits_the_registered_hook_timeout() {
        // The plugin registers the same timeout as `cairn install`.
        let hooks: serde_json::Value =
            serde_json::from_str(include_str!("../../hooks/hooks.json")).unwrap();
        for (event, entries) in hooks["hooks"].as_object().unwrap() {
            let t = entries[0]["hooks"][0]["timeout"].as_u64();
            assert_eq!(t, Some(REGISTERED_HOOK_TIMEOUT_SECS), "{event}");
        }
        assert_eq!(inline_deadline_secs(60), 20, "the 60 s default is cut");
        assert_eq!(inline_deadline_secs(5), 5);
        assert_eq!(inline_deadline_secs(0), 1);
    }
}
