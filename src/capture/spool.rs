//! The durable queue between the Stop hook and the worker. One JSON file per
//! job in `<state>/spool/pending/`, written atomically; a job leaves the
//! folder only after its merge is on disk, so a crash loses nothing and a
//! retry is harmless (merges are idempotent).
//!
//! Jobs are redacted by the Stop hook before they get here, and the files
//! and folders are the user's only (0600 / 0700): a turn is private.

use crate::extract::digest::Digest;
use crate::fsutil::{atomic_write_private, create_private_dir_all};
use crate::transcript::Exchange;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub id: String,
    pub project_root: PathBuf,
    pub session_id: String,
    pub cwd: PathBuf,
    /// RFC 3339 time of the turn; the log entry is dated from it.
    pub timestamp: String,
    /// What happened since the session's last capture. Already redacted:
    /// secrets never reach the spool.
    #[serde(default)]
    pub digest: Digest,
    /// Jobs spooled by versions before the turn digest carried the raw
    /// exchange; read so that an upgrade loses no pending turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<Exchange>,
    pub ok_done: bool,
    #[serde(default)]
    pub attempts: u32,
    #[serde(default)]
    pub last_error: Option<String>,
    /// Unix seconds before which a failed job is not retried.
    #[serde(default)]
    pub not_before: i64,
}

impl Job {
    /// The job's digest; for a job of an older version, its exchange as a
    /// one-turn digest.
    pub fn digest(&self) -> Digest {
        match &self.exchange {
            Some(ex) if self.digest.turns.is_empty() => crate::capture::legacy::digest_of(ex),
            _ => self.digest.clone(),
        }
    }
}

pub fn pending_dir(state_dir: &Path) -> PathBuf {
    crate::state_layout::spool_pending(state_dir)
}

pub fn dead_dir(state_dir: &Path) -> PathBuf {
    crate::state_layout::spool_dead(state_dir)
}

/// Ids sort in enqueue order: nanoseconds since the epoch, then pid and a
/// per-process counter so two hooks in the same nanosecond cannot collide.
pub fn new_id(now: jiff::Timestamp) -> String {
    static SEQ: AtomicU32 = AtomicU32::new(0);
    format!(
        "{:020}-{:07}-{:04}",
        now.as_nanosecond().max(0),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed) % 10_000
    )
}

fn job_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
}

pub fn enqueue(state_dir: &Path, job: &Job) -> Result<PathBuf> {
    let dir = pending_dir(state_dir);
    let path = job_path(&dir, &job.id);
    let bytes = serde_json::to_vec(job)?;
    atomic_write_private(&path, &bytes).context("cannot write the spool job")?;
    Ok(path)
}

/// Pending job ids in order. Temp files and strangers are ignored.
pub fn pending_ids(state_dir: &Path) -> Vec<String> {
    let mut ids: Vec<String> = fs::read_dir(pending_dir(state_dir))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let id = name.strip_suffix(".json")?;
            (!id.starts_with('.')).then(|| id.to_string())
        })
        .collect();
    ids.sort();
    ids
}

pub fn load(state_dir: &Path, id: &str) -> Result<Job> {
    let path = job_path(&pending_dir(state_dir), id);
    let bytes = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("corrupt spool job {}", path.display()))
}

pub fn save(state_dir: &Path, job: &Job) -> Result<()> {
    enqueue(state_dir, job).map(|_| ())
}

pub fn remove(state_dir: &Path, id: &str) -> Result<()> {
    let path = job_path(&pending_dir(state_dir), id);
    match fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("cannot remove {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// Moves a job (or an unreadable job file) to the dead-letter folder.
pub fn bury(state_dir: &Path, id: &str) -> Result<()> {
    let from = job_path(&pending_dir(state_dir), id);
    let dead = dead_dir(state_dir);
    create_private_dir_all(&dead)?;
    fs::rename(&from, job_path(&dead, id))
        .with_context(|| format!("cannot move {} to dead letters", from.display()))
}

/// Orphaned temp files younger than this may be a hook mid-write.
pub const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(600);

/// Housekeeping when a worker starts: spool folders made by older versions
/// (0755) become the user's only, and temp files left by a process killed
/// mid-write (each a whole job) are swept once stale.
pub fn tidy(state_dir: &Path) -> usize {
    for dir in [pending_dir(state_dir), dead_dir(state_dir)] {
        make_private(&dir);
    }
    crate::fsutil::sweep_stale_temp_files(
        &pending_dir(state_dir),
        STALE_TEMP_AGE,
        std::time::SystemTime::now(),
    )
}

/// Buries an unreadable job file: a redacted copy goes to dead letters (it
/// may be an older version's unredacted job), then the file is removed.
pub fn bury_redacted(state_dir: &Path, id: &str, redact: &dyn Fn(&str) -> String) -> Result<()> {
    let from = job_path(&pending_dir(state_dir), id);
    let bytes = fs::read(&from).with_context(|| format!("cannot read {}", from.display()))?;
    let text = redact(&String::from_utf8_lossy(&bytes));
    atomic_write_private(&job_path(&dead_dir(state_dir), id), text.as_bytes())?;
    remove(state_dir, id)
}

#[cfg(unix)]
fn make_private(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(m) = fs::symlink_metadata(dir)
        && m.is_dir()
        && m.permissions().mode() & 0o077 != 0
    {
        let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    }
}

#[cfg(not(unix))]
fn make_private(_: &Path) {}

pub fn dead_ids(state_dir: &Path) -> Vec<String> {
    let mut ids: Vec<String> = fs::read_dir(dead_dir(state_dir))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .into_string()
                .ok()?
                .strip_suffix(".json")
                .map(str::to_string)
        })
        .collect();
    ids.sort();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str) -> Job {
        Job {
            id: id.to_string(),
            project_root: "/p".into(),
            session_id: "s".into(),
            cwd: "/p".into(),
            timestamp: "2026-11-30T10:00:00Z".into(),
            digest: Digest::default(),
            exchange: None,
            ok_done: false,
            attempts: 0,
            last_error: None,
            not_before: 0,
        }
    }

    #[test]
    fn ids_sort_in_enqueue_order_and_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let t = jiff::Timestamp::from_second(1_800_000_000).unwrap();
        let a = new_id(t);
        let b = new_id(t);
        let c = new_id(t + jiff::SignedDuration::from_nanos(1));
        for id in [&c, &a, &b] {
            enqueue(dir.path(), &job(id)).unwrap();
        }
        assert_eq!(
            pending_ids(dir.path()),
            vec![a.clone(), b.clone(), c.clone()]
        );
        assert_eq!(load(dir.path(), &a).unwrap(), job(&a));
        bury(dir.path(), &a).unwrap();
        remove(dir.path(), &b).unwrap();
        assert_eq!(pending_ids(dir.path()), vec![c]);
        assert_eq!(dead_ids(dir.path()), vec![a]);
    }
}
