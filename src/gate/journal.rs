//! Which prompts the gate spoke on, kept so `cairn site` can show gate notes
//! per day: one JSON line per note in `<state>/gate/notes.jsonl` (when, the
//! session, the project root, the classes). The prompt itself is never
//! kept: it may hold secrets, and the classes are what the page shows.
//!
//! Nothing recorded it before cairn 0.1's site: older notes are not there.

use super::Class;
use crate::context::Ctx;
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Past this size the file is halved (the older half dropped): the gate is
/// a hot path and must never append to an unbounded file.
const MAX_BYTES: u64 = 1 << 20;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// RFC 3339.
    pub at: String,
    pub session: String,
    pub root: String,
    pub classes: Vec<String>,
}

pub fn path(state_dir: &Path) -> PathBuf {
    crate::state_layout::gate_notes(state_dir)
}

/// Appends one line. Errors are the caller's to log: losing a line of
/// history must not change what the gate says.
pub fn record(
    ctx: &Ctx,
    session: &str,
    root: Option<&Path>,
    classes: &[Class],
) -> anyhow::Result<()> {
    let note = Note {
        at: ctx.clock.now().to_string(),
        session: session.to_string(),
        root: root.map(|r| r.display().to_string()).unwrap_or_default(),
        classes: classes.iter().map(|c| c.as_str().to_string()).collect(),
    };
    let p = path(&ctx.state_dir);
    if let Some(dir) = p.parent() {
        crate::fsutil::create_private_dir_all(dir)?;
    }
    if std::fs::metadata(&p).is_ok_and(|m| m.len() > MAX_BYTES) {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let half = text.len() / 2;
        let cut = text[half..].find('\n').map_or(text.len(), |i| half + i + 1);
        crate::fsutil::atomic_write_private_unsynced(&p, &text.as_bytes()[cut..])?;
    }
    let mut line = serde_json::to_string(&note)?;
    line.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&p)?;
    f.write_all(line.as_bytes())?;
    Ok(())
}

/// Every note recorded, oldest first; unreadable lines are skipped.
pub fn read(state_dir: &Path) -> Vec<Note> {
    std::fs::read_to_string(path(state_dir))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_appended_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx::new(
            crate::context::Env::from_pairs([("CAIRN_STATE_DIR", dir.path().to_str().unwrap())]),
            crate::context::Clock::Fixed("2026-11-28T10:00:00Z".parse().unwrap()),
        );
        record(&ctx, "s1", Some(Path::new("/w/p")), &[Class::PriorArtifact]).unwrap();
        record(&ctx, "s2", None, &[]).unwrap();
        let notes = read(&ctx.state_dir);
        assert_eq!(notes.len(), 2);
        assert_eq!(notes[0].session, "s1");
        assert_eq!(notes[0].root, "/w/p");
        assert_eq!(notes[0].at, "2026-11-28T10:00:00Z");
        assert!(
            !std::fs::read_to_string(path(&ctx.state_dir))
                .unwrap()
                .contains("prompt")
        );
    }
}
