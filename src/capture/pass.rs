//! One forward pass over a transcript, from where this session's last
//! capture stopped to the end of what the client has written: the turns to
//! capture, and the main thread's context fill for the guard.
//!
//! The cursor (`<state>/capture/<session>.json`) holds the byte offset the
//! last pass stopped at and a fingerprint of the file's first bytes. A
//! later pass starts there, so a turn whose Stop never came (the user
//! interrupted it, the client crashed) is captured by the next Stop, and no
//! turn twice. Without a cursor (the session's first Stop, a replaced
//! file), the pass reads the last [`FIRST_PASS_BYTES`] and keeps only the
//! last turn: what came before happened before cairn was there.

use super::turns::{Builder, SubagentFiles, note_change};
use crate::extract::digest::{FileChange, RequestKind, Turn};
use crate::fsutil::atomic_write_private_unsynced;
use crate::transcript::{ContextUsage, StreamReader};
use serde::{Deserialize, Serialize};
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// How far back a pass without a cursor reads, in turn, until the last
/// prompt is within it (a tool may print megabytes into one turn).
const FIRST_PASS_STEPS: [u64; 3] = [256 << 10, 4 << 20, 64 << 20];
/// A subagent transcript is read up to this size.
const SUBAGENT_BYTES: u64 = 32 << 20;
/// Bytes of the file's head the cursor fingerprints.
const HEAD_BYTES: usize = 4096;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    pub transcript: PathBuf,
    pub offset: u64,
    /// FNV-1a of the file's first bytes (at most [`HEAD_BYTES`]).
    pub head: u64,
    pub head_len: usize,
    /// The folder the session started in (its first record's `cwd`; empty
    /// when the head names none), so later passes need not read the head
    /// for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_cwd: Option<String>,
    /// The last turn read ended with the user declining or stopping a
    /// call: the next request is their correction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

/// What one pass found.
#[derive(Debug, Default)]
pub struct Pass {
    pub turns: Vec<Turn>,
    /// The main thread's context as the pass left it: `Some(None)` after a
    /// compaction, `None` when the pass saw no usage at all.
    pub context: Option<Option<ContextUsage>>,
    /// Where the next pass starts.
    pub cursor: Cursor,
    pub lines_skipped: u64,
    /// No cursor could be used: only the last turn was kept.
    pub first: bool,
}

fn cursor_path(state_dir: &Path, session_id: &str) -> Option<PathBuf> {
    crate::memory::session::safe_id(session_id)
        .map(|id| state_dir.join("capture").join(format!("{id}.json")))
}

pub fn load_cursor(state_dir: &Path, session_id: &str) -> Option<Cursor> {
    let p = cursor_path(state_dir, session_id)?;
    let bytes = crate::fsutil::confine::read_regular(&p, 1 << 16).ok()?;
    serde_json::from_slice(&bytes).ok()
}

pub fn save_cursor(state_dir: &Path, session_id: &str, c: &Cursor) -> anyhow::Result<()> {
    let Some(p) = cursor_path(state_dir, session_id) else {
        return Ok(());
    };
    atomic_write_private_unsynced(&p, &serde_json::to_vec(c)?)?;
    Ok(())
}

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// The folder the session started in: the first `cwd` among the records
/// of the file's first [`CWD_SCAN_BYTES`].
fn session_cwd(path: &Path) -> Option<String> {
    let mut reader = StreamReader::open(path, 0).ok()?;
    let mut found = None;
    let _ = reader.for_each_record(|end, rec| {
        if let Some(c) = rec.cwd.as_deref().filter(|c| c.starts_with('/')) {
            found = Some(c.to_owned());
            return ControlFlow::Break(());
        }
        if end > CWD_SCAN_BYTES {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    found
}

const CWD_SCAN_BYTES: u64 = 64 << 10;

/// The cursor fingerprint of the first `len` bytes of `path` (0 when it
/// cannot be read).
pub fn fingerprint(path: &Path, len: usize) -> u64 {
    head_of(path, len).map_or(0, |(h, _)| h)
}

fn head_of(path: &Path, len: usize) -> io::Result<(u64, usize)> {
    let mut f = crate::fsutil::confine::open_regular(path)?;
    let mut buf = vec![0u8; len];
    let mut n = 0;
    while n < len {
        let k = f.read(&mut buf[n..])?;
        if k == 0 {
            break;
        }
        n += k;
    }
    Ok((fnv(&buf[..n]), n))
}

/// Subagent transcripts beside the session's: `<session>/subagents/agent-<id>.jsonl`
/// (2.1.x) or `agent-<id>.jsonl` in the same folder (2.0.x).
pub struct SubagentDir {
    pub dir: PathBuf,
    pub session_id: String,
    /// Where the session's folder is for this hook (see `Builder::rebased_onto`).
    pub here: Option<PathBuf>,
    pub session_cwd: Option<String>,
}

impl SubagentFiles for SubagentDir {
    fn files(&self, agent_id: &str) -> Vec<FileChange> {
        let name = format!("agent-{agent_id}.jsonl");
        let mut candidates = Vec::new();
        if crate::memory::session::safe_id(&self.session_id).is_some() {
            candidates.push(
                self.dir
                    .join(&self.session_id)
                    .join("subagents")
                    .join(&name),
            );
        }
        candidates.push(self.dir.join(&name));
        for p in candidates {
            match subagent_files(&p, self.session_cwd.as_deref(), self.here.as_deref()) {
                Ok(files) => return files,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(_) => return Vec::new(),
            }
        }
        Vec::new()
    }
}

fn subagent_files(
    path: &Path,
    session_cwd: Option<&str>,
    here: Option<&Path>,
) -> io::Result<Vec<FileChange>> {
    let size = crate::fsutil::confine::open_regular(path)?
        .metadata()?
        .len();
    if size > SUBAGENT_BYTES {
        return Ok(Vec::new());
    }
    let mut reader = StreamReader::open(path, 0)?;
    let mut b = Builder::for_subagent().rebased_onto(session_cwd, here);
    reader.for_each_record(|_, rec| {
        b.feed(&rec);
        ControlFlow::Continue(())
    })?;
    let mut files = Vec::new();
    for t in b.finish() {
        for f in t.all_files() {
            note_change(&mut files, &f.path, f.change, f.from.as_deref());
        }
    }
    Ok(files)
}

/// Reads `path` from the session's cursor (or, without one, its tail) to
/// the end. Does not save the cursor: the caller does once the turns are
/// safe (spooled).
pub fn run(
    path: &Path,
    cursor: Option<&Cursor>,
    session_id: &str,
    here: Option<&Path>,
) -> io::Result<Pass> {
    let size = crate::fsutil::confine::open_regular(path)?
        .metadata()?
        .len();
    let resume = cursor.filter(|c| {
        c.transcript == path
            && c.offset <= size
            && head_of(path, c.head_len).is_ok_and(|(h, n)| n == c.head_len && h == c.head)
    });
    let start_cwd = match resume.and_then(|c| c.session_cwd.clone()) {
        Some(known) => Some(known).filter(|c| !c.is_empty()),
        None => session_cwd(path),
    };
    let subagents = SubagentDir {
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        session_id: session_id.to_owned(),
        here: here.map(Path::to_path_buf),
        session_cwd: start_cwd.clone(),
    };
    let here = (start_cwd.as_deref(), here);
    let mut pass = match resume {
        Some(c) => read_from(path, c.offset, &subagents, here, c.refused)?,
        None => {
            let mut p = Pass::default();
            for back in FIRST_PASS_STEPS {
                p = read_from(path, size.saturating_sub(back), &subagents, here, false)?;
                if p.turns.iter().any(|t| t.prompted) || back >= size {
                    break;
                }
            }
            // Only the last turn with a request, and what followed it.
            if let Some(at) = p.turns.iter().rposition(|t| t.prompted) {
                p.turns.drain(..at);
                // cairn's first look at this session: its goal.
                p.turns[0].first = p.turns[0].kind != RequestKind::None;
            } else {
                p.turns.clear();
            }
            p.first = true;
            p
        }
    };
    let (head, head_len) = head_of(path, HEAD_BYTES.min(pass.cursor.offset as usize))?;
    pass.cursor.transcript = path.to_path_buf();
    pass.cursor.head = head;
    pass.cursor.head_len = head_len;
    pass.cursor.session_cwd = Some(start_cwd.unwrap_or_default());
    Ok(pass)
}

fn read_from(
    path: &Path,
    offset: u64,
    subagents: &SubagentDir,
    (session_cwd, here): (Option<&str>, Option<&Path>),
    refused: bool,
) -> io::Result<Pass> {
    let mut reader = StreamReader::open(path, offset)?;
    if offset > 0 {
        // Mid-file without a cursor: the first line is likely a piece of
        // one; start at the next full line.
        let mut f = crate::fsutil::confine::open_regular(path)?;
        f.seek(SeekFrom::Start(offset - 1))?;
        let mut one = [0u8; 1];
        f.read_exact(&mut one)?;
        if one[0] != b'\n' {
            let _ = reader.next_line()?;
        }
    }
    let mut b = Builder::new(subagents)
        .rebased_onto(session_cwd, here)
        .after_refusal(refused);
    if offset == 0 {
        b = b.starts_session();
    }
    reader.for_each_record(|_, rec| {
        b.feed(&rec);
        ControlFlow::Continue(())
    })?;
    let context = b.context().map(|c| c.cloned());
    let refused = b.ends_refused();
    Ok(Pass {
        turns: b.finish(),
        context,
        cursor: Cursor {
            offset: reader.offset(),
            refused,
            ..Default::default()
        },
        lines_skipped: reader.lines_skipped(),
        first: false,
    })
}
