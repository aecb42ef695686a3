//! The background worker that drains the spool. One at a time per state
//! folder (a lock file says who); started by the Stop hook when idle.

use super::Settings;
use crate::capture::pipeline::process_job;
use crate::capture::spool;
use crate::context::Ctx;
use crate::diag::Level;
use crate::fsutil::{lock, try_lock};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub done: usize,
    pub retried: usize,
    pub dead: usize,
    /// Another worker was running and this one had nothing to do.
    pub busy: bool,
}

fn lock_path(ctx: &Ctx) -> PathBuf {
    crate::state_layout::worker_lock(&ctx.state_dir)
}

/// The worker lock, if free: whoever holds it is the only one merging
/// spooled jobs (the worker, or a sync-mode hook working inline).
pub fn claim(ctx: &Ctx) -> anyhow::Result<Option<crate::fsutil::LockGuard>> {
    try_lock(&lock_path(ctx))
}

/// How long a background worker waits for a failed job's retry time before
/// leaving it to the next Stop hook.
const MAX_IDLE_WAIT: Duration = Duration::from_secs(60);

/// Starts a detached `cairn worker` unless one holds the lock. Never fails:
/// the job is on disk, a later hook or `cairn worker --drain` will get to it.
pub fn wake(ctx: &Ctx) {
    match try_lock(&lock_path(ctx)) {
        Ok(Some(guard)) => {
            drop(guard);
            if let Err(e) = spawn_detached(ctx) {
                ctx.diag(
                    Level::Warn,
                    "worker",
                    &format!("cannot start the worker: {e:#}"),
                );
            }
        }
        Ok(None) => {} // a running worker rescans before it exits
        Err(e) => ctx.diag(Level::Warn, "worker", &format!("{e:#}")),
    }
}

fn spawn_detached(ctx: &Ctx) -> anyhow::Result<()> {
    let exe = match ctx.env.get("CAIRN_EXE") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => std::env::current_exe()?,
    };
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("worker")
        .env_clear()
        .envs(ctx.env.iter())
        .env("CAIRN_STATE_DIR", &ctx.state_dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    #[cfg(unix)]
    {
        // Its own process group: the client may signal the hook's group when
        // the hook exits, and the worker must outlive it.
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    cmd.spawn()?;
    Ok(())
}

/// Drains the spool. `drain`: wait for the lock, try every pending job once
/// now (ignoring retry delays), then exit.
pub fn run(
    ctx: &Ctx,
    drain: bool,
    settings_for: &dyn Fn(&std::path::Path) -> Settings,
) -> anyhow::Result<Report> {
    let mut report = Report::default();
    let mut configs: BTreeMap<PathBuf, Settings> = BTreeMap::new();
    // Once per worker, off the hook's path.
    super::pass::prune_cursors(&ctx.state_dir, super::pass::CURSOR_KEEP);
    loop {
        let guard = if drain {
            lock(&lock_path(ctx))?
        } else {
            match try_lock(&lock_path(ctx))? {
                Some(g) => g,
                None => {
                    report.busy = true;
                    return Ok(report);
                }
            }
        };
        // Who holds the lock, for `cairn doctor` and for tests that kill it.
        let _ = std::fs::write(
            crate::state_layout::worker_pid(&ctx.state_dir),
            std::process::id().to_string(),
        );
        spool::tidy(&ctx.state_dir);
        let mut tried: BTreeSet<String> = BTreeSet::new();
        // Real elapsed time, not the injected clock: a pinned clock must not
        // keep a worker waiting forever.
        let mut idle = Duration::ZERO;
        loop {
            let now = ctx.clock.now().as_second();
            let ids = spool::pending_ids(&ctx.state_dir);
            let mut next_due: Option<i64> = None;
            let mut progressed = false;
            for id in ids {
                if tried.contains(&id) {
                    continue;
                }
                let job = match spool::load(&ctx.state_dir, &id) {
                    Ok(j) => j,
                    Err(e) => {
                        ctx.diag(
                            Level::Error,
                            "worker",
                            &format!("{e:#}; moved to dead letters"),
                        );
                        let _ = spool::bury_redacted(&ctx.state_dir, &id, &crate::redact::redact);
                        report.dead += 1;
                        continue;
                    }
                };
                if !drain && job.not_before > now {
                    next_due = Some(next_due.map_or(job.not_before, |n| n.min(job.not_before)));
                    continue;
                }
                tried.insert(id.clone());
                progressed = true;
                let config = configs
                    .entry(job.project_root.clone())
                    .or_insert_with(|| {
                        let config = settings_for(&job.project_root);
                        sweep_project(&job.project_root, &config);
                        config
                    })
                    .clone();
                handle(ctx, &config, job, &mut report);
            }
            if progressed {
                continue;
            }
            match next_due {
                Some(due) if !drain => {
                    let wait = Duration::from_secs((due - now).max(1) as u64);
                    if idle + wait > MAX_IDLE_WAIT {
                        break;
                    }
                    std::thread::sleep(wait);
                    idle += wait;
                }
                _ => break,
            }
        }
        drop(guard);
        // A hook that spooled a job while we held the lock did not start a
        // worker; look once more after letting go so that job is not stranded.
        let now = ctx.clock.now().as_second();
        let stranded = spool::pending_ids(&ctx.state_dir).into_iter().any(|id| {
            !tried.contains(&id)
                && spool::load(&ctx.state_dir, &id).is_ok_and(|j| j.not_before <= now)
        });
        if drain || !stranded {
            return Ok(report);
        }
    }
}

/// Temp files a killed worker left in a project's logs folders (they show
/// in `git status` and hold a whole log); once per project per worker.
fn sweep_project(root: &std::path::Path, config: &Settings) {
    let store = crate::memory::store::Store::discover(root, &config.memory);
    for p in &store.projects {
        crate::fsutil::sweep_stale_temp_files(
            &p.logs_dir(),
            spool::STALE_TEMP_AGE,
            std::time::SystemTime::now(),
        );
    }
}

fn handle(ctx: &Ctx, config: &Settings, mut job: spool::Job, report: &mut Report) {
    match process_job(ctx, config, &job) {
        Ok(()) => {
            if let Err(e) = spool::remove(&ctx.state_dir, &job.id) {
                ctx.diag(Level::Error, "worker", &format!("{e:#}"));
            }
            report.done += 1;
        }
        Err(e) => {
            job.attempts += 1;
            let msg = crate::diag::one_line(&format!("{e:#}"), 300);
            job.last_error = Some(msg.clone());
            if job.attempts >= config.memory.max_attempts.max(1) {
                ctx.diag(
                    Level::Error,
                    "worker",
                    &format!(
                        "job {} failed {} times, moved to dead letters: {msg}",
                        job.id, job.attempts
                    ),
                );
                // Redacted again: a job spooled by an older version may
                // hold the raw exchange, and dead letters stay forever.
                job.digest = job.digest();
                job.exchange = None;
                crate::capture::pipeline::redact_digest(&config.redactor, &mut job.digest);
                let _ = spool::save(&ctx.state_dir, &job);
                let _ = spool::bury(&ctx.state_dir, &job.id);
                report.dead += 1;
            } else {
                // 30 s, 1 min, 2 min… capped at 30 min.
                let delay = 30i64 << job.attempts.saturating_sub(1).min(6);
                job.not_before = ctx.clock.now().as_second() + delay.min(1800);
                ctx.diag(
                    Level::Warn,
                    "worker",
                    &format!(
                        "job {} attempt {} failed, retry in {delay}s: {msg}",
                        job.id, job.attempts
                    ),
                );
                let _ = spool::save(&ctx.state_dir, &job);
                report.retried += 1;
            }
        }
    }
}
