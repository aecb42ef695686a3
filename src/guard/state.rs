//! What the guard remembers between hook calls, in cairn's state folder
//! (never in the project):
//!
//! ```text
//! guard/ratchet.lock              one lock for every read-modify-write below
//! guard/sessions/<session>.json   the ratchet: highest level fired, the note
//! guard/windows/<session>.json    the window the status line last reported
//! guard/handoff/<root-key>.json   the hand-off note the next session injects
//! guard/history.jsonl             every fire, for `cairn site` (`history`;
//!                                 not swept with the files above)
//! ```
//!
//! Every file is replaced atomically, so a reader never sees half of one and
//! the hot path can read without the lock; only writers take it.

use super::limits::Level;
use crate::context::Ctx;
use crate::fsutil;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub(super) fn guard_dir(ctx: &Ctx) -> PathBuf {
    crate::state_layout::guard(&ctx.state_dir)
}

/// One lock for all sessions: it is held for microseconds (a few
/// milliseconds when a note is written), so contention never matters, and
/// unlike per-session lock files it never needs cleaning up — deleting a
/// lock file someone holds would silently split the lock in two.
pub(super) fn lock(ctx: &Ctx) -> Result<fsutil::LockGuard> {
    fsutil::lock(&guard_dir(ctx).join("ratchet.lock"))
}

/// A file name for a session id. Ids are UUIDs in practice; anything else
/// (a path separator, `..`, a kilobyte of junk) is hashed so no payload can
/// name a file outside the folder. `None` for an empty id.
pub fn file_id(session_id: &str) -> Option<String> {
    crate::session_id::file_stem(session_id)
}

/// Reads a JSON state file. Missing: `None`. Unreadable as JSON (edited by
/// hand, a foreign version): also `None`, after one diagnostics line, so a
/// bad file costs one extra block at worst instead of a guard that fails on
/// every turn.
fn read_json<T: for<'de> Deserialize<'de>>(ctx: &Ctx, path: &Path) -> Result<Option<T>> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        // A state folder that is a file reads as empty too: nothing was
        // ever written there, and the writes will say what is wrong.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    match serde_json::from_slice(&bytes) {
        Ok(v) => Ok(Some(v)),
        Err(e) => {
            ctx.diag(
                crate::diag::Level::Warn,
                "guard",
                &format!("ignoring unreadable state file {}: {e}", path.display()),
            );
            Ok(None)
        }
    }
}

// ---------------------------------------------------------------------------
// The ratchet.

/// One time a level fired.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Fire {
    pub level: Level,
    /// RFC 3339.
    pub at: String,
    pub tokens: u64,
    pub window: u64,
    pub message_id: Option<String>,
}

/// A session's ratchet: it only moves up, until a compaction re-arms it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Ratchet {
    /// Highest level fired since the session started or was last re-armed.
    pub level: Level,
    /// The hand-off note written since the last arming: the hard level
    /// reuses the one the warn level wrote (and the model refined).
    pub checkpoint: Option<PathBuf>,
    /// The usage record (`message.id`) the last block was about. Kept
    /// across re-arming: a stale read of that same record (the transcript
    /// lags at Stop time) must not fire again.
    pub last_fire_message: Option<String>,
    /// Recent fires, oldest first, for `cairn doctor` and the curious.
    pub fires: Vec<Fire>,
    /// How many times a compaction re-armed the ratchet.
    pub rearms: u32,
}

const MAX_FIRES_KEPT: usize = 16;

impl Ratchet {
    pub(super) fn record_fire(&mut self, fire: Fire) {
        self.level = self.level.max(fire.level);
        self.last_fire_message = fire.message_id.clone();
        self.fires.push(fire);
        if self.fires.len() > MAX_FIRES_KEPT {
            let extra = self.fires.len() - MAX_FIRES_KEPT;
            self.fires.drain(..extra);
        }
    }

    pub(super) fn rearm(&mut self) {
        self.level = Level::None;
        self.checkpoint = None;
        self.rearms = self.rearms.saturating_add(1);
    }
}

fn ratchet_path(ctx: &Ctx, id: &str) -> PathBuf {
    guard_dir(ctx).join("sessions").join(format!("{id}.json"))
}

/// The session's ratchet; a fresh one when none was written yet.
pub fn read_ratchet(ctx: &Ctx, id: &str) -> Result<Ratchet> {
    Ok(read_json(ctx, &ratchet_path(ctx, id))?.unwrap_or_default())
}

pub(super) fn ratchet_exists(ctx: &Ctx, id: &str) -> bool {
    ratchet_path(ctx, id).exists()
}

/// Durable: losing it in a power cut would block the same level again.
pub(super) fn write_ratchet(ctx: &Ctx, id: &str, r: &Ratchet) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(r).context("cannot serialise the ratchet")?;
    fsutil::atomic_write_private(&ratchet_path(ctx, id), &bytes)
}

// ---------------------------------------------------------------------------
// The window the status line saw.

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRecord {
    pub window: u64,
    /// The model the window was reported for (`model.id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

fn window_path(ctx: &Ctx, id: &str) -> PathBuf {
    guard_dir(ctx).join("windows").join(format!("{id}.json"))
}

pub fn read_window(ctx: &Ctx, id: &str) -> Result<Option<WindowRecord>> {
    read_json(ctx, &window_path(ctx, id))
}

/// Written only when it changed: the status line calls this on every
/// render, and an unchanged figure should cost one small read. No fsync: a
/// lost figure is reported again on the next render.
pub(super) fn write_window(ctx: &Ctx, id: &str, rec: &WindowRecord) -> Result<()> {
    let path = window_path(ctx, id);
    if read_json::<WindowRecord>(ctx, &path)?.as_ref() == Some(rec) {
        return Ok(());
    }
    let bytes = serde_json::to_vec(rec).context("cannot serialise the window record")?;
    fsutil::atomic_write_private_unsynced(&path, &bytes)
}

// ---------------------------------------------------------------------------
// The pending hand-off.

/// A hand-off note waiting for the next session of a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingHandoff {
    pub path: PathBuf,
    /// The session that wrote it.
    pub session_id: String,
    /// RFC 3339, when the hard level fired.
    pub at: String,
    pub root: PathBuf,
}

/// One pending note per project root: the folder the hooks resolve for the
/// session (`CLAUDE_PROJECT_DIR`, else the root found from `cwd`), in its
/// canonical form so `/tmp/x` and `/private/tmp/x` agree.
fn handoff_path(ctx: &Ctx, root: &Path) -> PathBuf {
    let canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let key = crate::hash::fnv1a(canon.as_os_str().as_encoded_bytes());
    guard_dir(ctx)
        .join("handoff")
        .join(format!("{key:016x}.json"))
}

pub(super) fn write_handoff(ctx: &Ctx, root: &Path, h: &PendingHandoff) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(h).context("cannot serialise the hand-off")?;
    fsutil::atomic_write_private(&handoff_path(ctx, root), &bytes)
}

pub(super) fn read_handoff(ctx: &Ctx, root: &Path) -> Result<Option<PendingHandoff>> {
    read_json(ctx, &handoff_path(ctx, root))
}

pub(super) fn remove_handoff(ctx: &Ctx, root: &Path) -> Result<()> {
    let path = handoff_path(ctx, root);
    match fs::remove_file(&path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("cannot remove {}", path.display()))
        }
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------
// Housekeeping.

/// Removes per-session files untouched for `max_age`: one is written for
/// every session the status line renders, and the client itself deletes
/// transcripts after 30 days, so older ratchets guard nothing. Returns how
/// many files went. Errors are ignored: this is tidying, not work.
///
/// Ages are measured against the system clock, not the injected one: file
/// times are the file system's, and a pinned test clock would make every
/// file look years old (or not yet written).
pub(super) fn prune(ctx: &Ctx, max_age: std::time::Duration) -> usize {
    ["sessions", "windows", "handoff"]
        .iter()
        .map(|sub| crate::fsutil::remove_older_than(&guard_dir(ctx).join(sub), max_age, |_| true))
        .sum()
}
