//! cairn's state folder: the spool and its dead letters, the diagnostics
//! log, the usage ledger, and the folder itself.

use super::{Finding, Scene, human_age, human_bytes};
use crate::capture::spool::{self, Job};
use std::path::{Path, PathBuf};

/// A pending job older than this while nothing drains it means no worker.
const STALE_SECS: i64 = 15 * 60;

pub(super) fn check(scene: &Scene) -> Vec<Finding> {
    let state = &scene.ctx.state_dir;
    let mut out = vec![folder(state)];
    if !state.is_dir() {
        return out;
    }
    let now = scene.ctx.clock.now();
    out.push(pending(state, now));
    out.push(dead(state));
    out.push(diagnostics(state, now));
    out.push(ledger(state, now));
    out
}

fn folder(state: &Path) -> Finding {
    match std::fs::metadata(state) {
        Ok(m) if m.is_dir() => {
            if let Err(e) = probe_write(state) {
                return Finding::broken(
                    "state",
                    format!(
                        "{} is not writable ({e}): hooks cannot spool, so each turn is captured inline, and their diagnostics are lost",
                        state.display()
                    ),
                    "free some space or make the folder writable, or point CAIRN_STATE_DIR elsewhere",
                );
            }
            let (bytes, files) = size(state);
            Finding::ok(
                "state",
                format!(
                    "{} ({}, {files} files)",
                    state.display(),
                    human_bytes(bytes)
                ),
            )
            .with_details(contents(state))
        }
        Ok(_) => Finding::broken(
            "state",
            format!(
                "{} exists but is not a folder: hooks cannot spool, log or lock",
                state.display()
            ),
            "move it aside, or point CAIRN_STATE_DIR elsewhere",
        ),
        Err(_) => {
            // Missing: fine if it can be created on the first hook.
            let mut up = state.parent();
            while let Some(p) = up {
                if let Ok(m) = std::fs::metadata(p) {
                    if !m.is_dir() {
                        return Finding::broken(
                            "state",
                            format!(
                                "{} cannot be created: {} is a file",
                                state.display(),
                                p.display()
                            ),
                            "point CAIRN_STATE_DIR at a folder, or move that file aside",
                        );
                    }
                    if m.permissions().readonly() {
                        return Finding::broken(
                            "state",
                            format!(
                                "{} cannot be created: {} is read-only",
                                state.display(),
                                p.display()
                            ),
                            "point CAIRN_STATE_DIR at a writable folder",
                        );
                    }
                    break;
                }
                up = p.parent();
            }
            Finding::warn(
                "state",
                format!(
                    "{} does not exist yet: no cairn hook has run with this state folder",
                    state.display()
                ),
                "start a Claude Code session here and check again; if sessions ran, the hooks use another CAIRN_STATE_DIR",
            )
        }
    }
}

/// Creates, fills and removes a scratch file: the only sure test that hooks
/// can spool (a full disk or a read-only mount shows in no mode bit). One
/// block, fsynced, because a full disk may still accept an empty file.
fn probe_write(dir: &Path) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = tempfile::Builder::new()
        .prefix(crate::fsutil::TEMP_PREFIX)
        .tempfile_in(dir)?;
    f.write_all(&[0u8; 4096])?;
    f.as_file().sync_all()
}

/// What the state folder holds, entry by entry, in the layout's words:
/// where the bytes are when the folder grows.
fn contents(state: &Path) -> Vec<String> {
    crate::state_layout::TOP
        .iter()
        .filter_map(|e| {
            let path = e.path(state);
            let m = std::fs::symlink_metadata(&path).ok()?;
            let (bytes, files) = if m.is_dir() {
                size(&path)
            } else {
                (m.len(), 1)
            };
            let slash = if m.is_dir() { "/" } else { "" };
            Some(format!(
                "{}{slash}: {}, {files} file{} ({})",
                e.name,
                human_bytes(bytes),
                if files == 1 { "" } else { "s" },
                e.what
            ))
        })
        .collect()
}

/// Bytes and files under a folder (links not followed).
fn size(dir: &Path) -> (u64, usize) {
    let mut bytes = 0;
    let mut files = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(m) = e.metadata() else { continue };
            if m.is_dir() {
                stack.push(e.path());
            } else {
                bytes += m.len();
                files += 1;
            }
        }
    }
    (bytes, files)
}

/// Seconds since the job id's enqueue time (ids start with nanoseconds).
fn age_of(id: &str, now: jiff::Timestamp) -> Option<i64> {
    let nanos: i128 = id.split('-').next()?.parse().ok()?;
    let then = jiff::Timestamp::from_nanosecond(nanos).ok()?;
    Some(now.as_second() - then.as_second())
}

fn read_job(path: &Path) -> Option<Job> {
    serde_json::from_slice(&crate::fsutil::confine::read(path).ok()?).ok()
}

fn pending(state: &Path, now: jiff::Timestamp) -> Finding {
    let ids = spool::pending_ids(state);
    if ids.is_empty() {
        return Finding::ok("spool", "no memory job waiting");
    }
    let dir = spool::pending_dir(state);
    let jobs: Vec<(String, Option<Job>)> = ids
        .iter()
        .map(|id| (id.clone(), read_job(&dir.join(format!("{id}.json")))))
        .collect();
    let oldest = age_of(&ids[0], now).unwrap_or(0);
    let failing: Vec<String> = jobs
        .iter()
        .filter_map(|(id, j)| {
            let j = j.as_ref()?;
            let e = j.last_error.as_ref()?;
            Some(format!(
                "{id} (attempt {}): {}",
                j.attempts,
                crate::diag::one_line(e, 300)
            ))
        })
        .collect();
    let mut msg = format!(
        "{} memory job{} waiting, the oldest {}",
        ids.len(),
        if ids.len() == 1 { "" } else { "s" },
        human_age(oldest)
    );
    if !failing.is_empty() {
        msg.push_str(&format!(", {} failed at least once", failing.len()));
    }
    let details: Vec<String> = failing.iter().rev().take(3).cloned().collect();
    if oldest > STALE_SECS {
        Finding::warn(
            "spool",
            format!("{msg}: no worker is draining them"),
            "run `cairn worker --drain` and read what it says",
        )
        .with_details(details)
    } else {
        Finding::info("spool", msg).with_details(details)
    }
}

fn dead(state: &Path) -> Finding {
    let ids = spool::dead_ids(state);
    if ids.is_empty() {
        return Finding::ok("dead-letters", "no memory job given up");
    }
    let dir = spool::dead_dir(state);
    let details: Vec<String> = ids
        .iter()
        .rev()
        .take(3)
        .map(|id| match read_job(&dir.join(format!("{id}.json"))) {
            Some(j) => format!(
                "{id}: {}",
                j.last_error
                    .as_deref()
                    .map_or("(no error recorded)".into(), |e| crate::diag::one_line(
                        e, 300
                    ))
            ),
            None => format!("{id}: unreadable job file"),
        })
        .collect();
    Finding::broken(
        "dead-letters",
        format!(
            "{} memory job{} given up after memory.max_attempts: those turns are not in the logs",
            ids.len(),
            if ids.len() == 1 { " was" } else { "s were" }
        ),
        format!(
            "fix the cause below, then `mv {}/*.json {}/ && cairn worker --drain`",
            dir.display(),
            spool::pending_dir(state).display()
        ),
    )
    .with_details(details)
}

/// WARN and ERROR lines of the last day, newest last.
fn diagnostics(state: &Path, now: jiff::Timestamp) -> Finding {
    let path = crate::diag::path(state);
    let since = now.as_second() - 86_400;
    let mut lines: Vec<String> = Vec::new();
    for file in [PathBuf::from(format!("{}.1", path.display())), path.clone()] {
        let Ok(bytes) = crate::fsutil::confine::read(&file) else {
            continue;
        };
        for line in String::from_utf8_lossy(&bytes).lines() {
            let mut words = line.splitn(3, ' ');
            let (Some(ts), Some(level)) = (words.next(), words.next()) else {
                continue;
            };
            let recent = ts
                .parse::<jiff::Timestamp>()
                .is_ok_and(|t| t.as_second() >= since);
            if recent && matches!(level, "WARN" | "ERROR") {
                lines.push(crate::diag::one_line(line, 300));
            }
        }
    }
    if lines.is_empty() {
        return Finding::ok("diagnostics", "no warning or error in the last day");
    }
    let errors = lines.iter().filter(|l| l.contains(" ERROR ")).count();
    let details = lines[lines.len().saturating_sub(5)..].to_vec();
    Finding::warn(
        "diagnostics",
        format!(
            "{} warning{} or error{} in the last day ({errors} error{})",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            if lines.len() == 1 { "" } else { "s" },
            if errors == 1 { "" } else { "s" }
        ),
        format!("read {}", path.display()),
    )
    .with_details(details)
}

/// The newest write under the usage folders.
fn ledger(state: &Path, now: jiff::Timestamp) -> Finding {
    let mut newest: Option<std::time::SystemTime> = None;
    let mut sessions = 0;
    let mut stack = vec![
        crate::state_layout::usage(state),
        crate::state_layout::ledger(state),
    ];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(m) = e.metadata() else { continue };
            if m.is_dir() {
                stack.push(e.path());
                continue;
            }
            if e.path().extension().is_some_and(|x| x == "rec") {
                sessions += 1;
            }
            if let Ok(t) = m.modified() {
                newest = Some(newest.map_or(t, |n| n.max(t)));
            }
        }
    }
    let Some(t) = newest.and_then(|t| jiff::Timestamp::try_from(t).ok()) else {
        return Finding::info(
            "ledger",
            "no usage recorded yet (the status line and the hooks fill it)",
        );
    };
    Finding::ok(
        "ledger",
        format!(
            "usage ledger last written {} ({}), {sessions} session{}",
            t.round(jiff::Unit::Second).unwrap_or(t),
            human_age(now.as_second() - t.as_second()),
            if sessions == 1 { "" } else { "s" }
        ),
    )
}
