//! What the guard did, kept after its per-session files are swept.
//!
//! The ratchets in `guard/sessions/` go once untouched for 30 days
//! (`state::prune`): they only guard live sessions. `cairn site`
//! shows older sessions too (their fill comes from the usage ledger, which
//! outlives transcripts), so each fire is also appended as one JSON line to
//! `<state>/guard/history.jsonl`, which the sweep does not touch.
//!
//! Written only when a level fires (at most twice per session between
//! compactions, next to the checkpoint note that costs far more), never on
//! an ordinary Stop, and from figures the guard already holds: no read of
//! the transcript, no read of this file on the hot path. Past
//! `MAX_BYTES` (2 MiB) the older half is dropped, about 10 000 fires.

use super::limits::Level;
use crate::context::Ctx;
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// A line is about 250 bytes: years of fires for anyone.
const MAX_BYTES: u64 = 2 << 20;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub session: String,
    pub root: PathBuf,
    pub level: Level,
    /// RFC 3339.
    pub at: String,
    pub tokens: u64,
    pub window: u64,
    /// The hand-off note the fire wrote or reused.
    #[serde(default)]
    pub checkpoint: Option<PathBuf>,
}

pub fn path(state_dir: &Path) -> PathBuf {
    crate::state_layout::guard_history(state_dir)
}

/// Appends one line (one `O_APPEND` write, so concurrent fires of two
/// sessions do not interleave). The caller logs an error: losing a line of
/// history must not undo the fire.
pub(super) fn record(ctx: &Ctx, entry: &Entry) -> anyhow::Result<()> {
    let p = path(&ctx.state_dir);
    if let Some(dir) = p.parent() {
        crate::fsutil::create_private_dir_all(dir)?;
    }
    if std::fs::metadata(&p).is_ok_and(|m| m.len() > MAX_BYTES) {
        let text = std::fs::read(&p).unwrap_or_default();
        let half = text.len() / 2;
        let cut = text[half..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| half + i + 1);
        crate::fsutil::atomic_write_private_unsynced(&p, &text[cut..])?;
    }
    let mut line = serde_json::to_vec(entry)?;
    line.push(b'\n');
    let mut o = std::fs::OpenOptions::new();
    o.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(&p)?.write_all(&line)?;
    Ok(())
}

/// Every fire recorded, oldest first; unreadable lines are skipped.
pub fn read(state_dir: &Path) -> Vec<Entry> {
    std::fs::read(path(state_dir))
        .unwrap_or_default()
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(dir: &Path) -> Ctx {
        Ctx::new(
            crate::context::Env::from_pairs([("CAIRN_STATE_DIR", dir.to_str().unwrap())]),
            crate::context::Clock::Fixed("2026-11-28T10:00:00Z".parse().unwrap()),
        )
    }

    fn entry(n: u64) -> Entry {
        Entry {
            session: format!("s{n}"),
            root: PathBuf::from("/w/p"),
            level: Level::Warn,
            at: "2026-11-28T10:00:00Z".into(),
            tokens: 150_000 + n,
            window: 200_000,
            checkpoint: Some(PathBuf::from("/w/p/memory_sessions/checkpoints/a.md")),
        }
    }

    #[test]
    fn fires_are_appended_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        record(&ctx, &entry(1)).unwrap();
        record(&ctx, &entry(2)).unwrap();
        assert_eq!(read(&ctx.state_dir), vec![entry(1), entry(2)]);
    }

    #[test]
    fn a_full_history_drops_its_older_half_and_keeps_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        let line = serde_json::to_string(&entry(0)).unwrap() + "\n";
        let n = (MAX_BYTES as usize / line.len()) + 2;
        std::fs::create_dir_all(dir.path().join("guard")).unwrap();
        std::fs::write(path(&ctx.state_dir), line.repeat(n)).unwrap();
        record(&ctx, &entry(7)).unwrap();
        let back = read(&ctx.state_dir);
        assert!(
            back.len() < n / 2 + 2 && back.len() > n / 3,
            "{}",
            back.len()
        );
        assert_eq!(back.last(), Some(&entry(7)));
        let text = std::fs::read_to_string(path(&ctx.state_dir)).unwrap();
        assert_eq!(text.lines().count(), back.len(), "no torn line");
    }
}
