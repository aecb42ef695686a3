//! What the status line remembers between renders, in cairn's state folder:
//!
//! ```text
//! statusline/<session>.json   the last good line of a session, as pieces
//! statusline/errors.seen      errors already logged today (one line each)
//! ```
//!
//! The last good line is kept as segments, not as text, so it can be fitted
//! to today's width and painted with or without colour when it is replayed.

use super::style::Piece;
use crate::context::Ctx;
use crate::fsutil::atomic_write_unsynced;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cached {
    /// Unix seconds of the render that produced it (or last confirmed it).
    pub at: i64,
    pub pieces: Vec<Piece>,
}

/// An unchanged line is rewritten at most this often, only to keep `at`
/// meaning "last known good" without a write on every render.
const REFRESH_SECS: i64 = 60;
/// Session files untouched this long are removed (the client drops its
/// transcripts after 30 days, so no one will resume them).
const KEEP: Duration = Duration::from_secs(30 * 24 * 3600);
const MAX_SEEN_ERRORS: usize = 64;

pub fn dir(state_dir: &Path) -> PathBuf {
    crate::state_layout::statusline(state_dir)
}

/// A file name for a session id: ids are UUIDs; anything else (a `/`, `..`,
/// a kilobyte of junk) is hashed so no payload names a file elsewhere.
fn file_name(session_id: &str) -> Option<String> {
    crate::session_id::file_stem(session_id).map(|stem| format!("{stem}.json"))
}

/// The session's last good line; without a session id (stdin was garbage),
/// the most recently written line of any session.
pub fn load(state_dir: &Path, session_id: Option<&str>) -> Option<Cached> {
    let path = match session_id.and_then(file_name) {
        Some(name) => dir(state_dir).join(name),
        None => newest(&dir(state_dir))?,
    };
    let bytes = fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn newest(dir: &Path) -> Option<PathBuf> {
    fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p)
}

/// Remembers a good line. Skips the write when the same line was stored
/// less than a minute ago: most renders change nothing.
pub fn store(ctx: &Ctx, session_id: &str, pieces: &[Piece]) -> anyhow::Result<()> {
    let Some(name) = file_name(session_id) else {
        return Ok(());
    };
    let now = ctx.clock.now().as_second();
    let path = dir(&ctx.state_dir).join(name);
    let previous: Option<Cached> = fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    if let Some(p) = &previous
        && p.pieces == pieces
        && (0..REFRESH_SECS).contains(&(now - p.at))
    {
        return Ok(());
    }
    let bytes = serde_json::to_vec(&Cached {
        at: now,
        pieces: pieces.to_vec(),
    })?;
    atomic_write_unsynced(&path, &bytes)?;
    if previous.is_none() {
        // A new session: the moment to tidy, once per session, not per render.
        prune(&dir(&ctx.state_dir));
    }
    Ok(())
}

/// File ages are the file system's, so they are compared with the system
/// clock, not the injected one.
fn prune(dir: &Path) {
    let now = SystemTime::now();
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > KEEP);
        if old && e.file_name().to_string_lossy().ends_with(".json") {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// Logs each distinct error once a day: the status line runs after every
/// message, and a lasting fault must not flood the diagnostics log.
pub fn log_once(ctx: &Ctx, message: &str) {
    let key = format!("{} {}", ctx.today(), crate::diag::one_line(message, 300));
    let path = dir(&ctx.state_dir).join("errors.seen");
    let seen = fs::read_to_string(&path).unwrap_or_default();
    if seen.lines().any(|l| l == key) {
        return;
    }
    ctx.diag(crate::diag::Level::Warn, "statusline", message);
    let mut lines: Vec<&str> = seen.lines().collect();
    lines.push(&key);
    let start = lines.len().saturating_sub(MAX_SEEN_ERRORS);
    let mut text = lines[start..].join("\n");
    text.push('\n');
    // Best effort: a read-only state folder means the error is logged again
    // next time (if the log itself can be written at all).
    let _ = atomic_write_unsynced(&path, text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Clock, Env};
    use crate::statusline::style::Style;

    fn ctx(dir: &Path, second: i64) -> Ctx {
        Ctx::new(
            Env::from_pairs([("CAIRN_STATE_DIR", dir.to_str().unwrap()), ("TZ", "UTC")]),
            Clock::Fixed(jiff::Timestamp::from_second(second).unwrap()),
        )
    }

    fn pieces(t: &str) -> Vec<Piece> {
        vec![Piece::new(t, Style::parse("bold")).unwrap()]
    }

    #[test]
    fn stores_per_session_and_skips_unchanged_writes() {
        let dir = tempfile::tempdir().unwrap();
        let t0 = 1_800_000_000;
        store(&ctx(dir.path(), t0), "s1", &pieces("a")).unwrap();
        store(&ctx(dir.path(), t0 + 10), "s1", &pieces("a")).unwrap();
        assert_eq!(
            load(dir.path(), Some("s1")).unwrap().at,
            t0,
            "unchanged: no write"
        );
        store(&ctx(dir.path(), t0 + 61), "s1", &pieces("a")).unwrap();
        assert_eq!(
            load(dir.path(), Some("s1")).unwrap().at,
            t0 + 61,
            "refreshed"
        );
        store(&ctx(dir.path(), t0 + 62), "s1", &pieces("b")).unwrap();
        assert_eq!(load(dir.path(), Some("s1")).unwrap().pieces, pieces("b"));
        assert!(load(dir.path(), Some("s2")).is_none());
        assert_eq!(
            load(dir.path(), None).unwrap().pieces,
            pieces("b"),
            "newest of any session"
        );
    }

    #[test]
    fn odd_session_ids_stay_in_the_folder() {
        assert_eq!(file_name("592d55cf-11d7").unwrap(), "592d55cf-11d7.json");
        let odd = file_name("../../etc/passwd").unwrap();
        assert!(odd.starts_with("h-") && !odd.contains('/'), "{odd}");
        assert_eq!(file_name("  "), None);
    }

    #[test]
    fn each_error_is_logged_once_a_day() {
        let dir = tempfile::tempdir().unwrap();
        let day = 1_800_000_000;
        for _ in 0..3 {
            log_once(&ctx(dir.path(), day), "boom");
        }
        log_once(&ctx(dir.path(), day), "other");
        log_once(&ctx(dir.path(), day + 86_400), "boom");
        let lines = crate::diag::tail(dir.path(), 10);
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].ends_with("WARN statusline: boom"), "{}", lines[0]);
    }
}
