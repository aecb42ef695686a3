//! The usage state on disk: per session, a record log (the ledger, the
//! truth) and a summary (a cache of totals and read offsets).
//!
//! ```text
//! <state>/usage/sessions/<session>.rec    one record per API response kept
//! <state>/usage/sessions/<session>.json   offsets, file stats, totals
//! ```
//!
//! Updates hold an advisory lock on the record log itself (no lock file:
//! a first report creates state for hundreds of sessions, and every file
//! created costs).
//!
//! The record log outlives the transcripts (the client deletes them after
//! 30 days), so it is never thrown away: it is append-only, versioned by a
//! header, and tolerant of a torn tail (a crash mid-append loses only the
//! entry being written, which the next update reads again from the
//! transcript). The summary is disposable: a missing, stale or
//! other-version summary means "read every transcript again from 0", and
//! the records already logged make that re-read count nothing twice.

use crate::transcript::mark::ReadMark;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bumped when the summary's shape or meaning changes: summaries of another
/// version are rebuilt from the transcripts and the record log.
pub const SUMMARY_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"CAIRNUSG";
/// Record log format. A change here needs a reader for the old format: the
/// log is the only copy of deleted transcripts' usage.
const LOG_VERSION: u32 = 1;
const HEADER_LEN: usize = 16;
const TAG_STRING: u8 = 1;
const TAG_USAGE: u8 = 2;
const USAGE_LEN: usize = 56;

/// FNV-1a, 64 bits: a hash that is the same in every process and release
/// (std's hasher is neither guaranteed), for dedupe keys kept on disk.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(crate::hash::Fnv1a);

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

impl Fnv {
    pub fn new() -> Fnv {
        Fnv(crate::hash::Fnv1a::new())
    }
    pub fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }
    pub fn finish(&self) -> u64 {
        // 0 means "no message id" in records.
        self.0.finish().max(1)
    }
}

pub fn hash(parts: &[&[u8]]) -> u64 {
    let mut h = Fnv::new();
    for p in parts {
        h.write(p);
        h.write(&[0xff]);
    }
    h.finish()
}

pub const FLAG_SIDECHAIN: u16 = 1;
pub const FLAG_FAST: u16 = 2;
/// The line had no message id: its key is its position, it is never merged.
pub const FLAG_NO_ID: u16 = 4;

/// One API response's usage, as logged. Token counts of one response fit
/// in 32 bits by far (the largest context window is 1M tokens).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rec {
    /// Dedupe key: hash of (message id, request id).
    pub key: u64,
    /// Hash of the message id alone (0: none), for replays under a new
    /// request id.
    pub msg: u64,
    /// Milliseconds since the Unix epoch.
    pub ts_ms: i64,
    /// Indexes into the log's string tables.
    pub model: u16,
    pub agent: u16,
    pub file: u16,
    pub flags: u16,
    pub input: u32,
    pub output: u32,
    pub cache_write_5m: u32,
    pub cache_write_1h: u32,
    pub cache_read: u32,
    pub web_search: u32,
}

impl Rec {
    pub fn sidechain(&self) -> bool {
        self.flags & FLAG_SIDECHAIN != 0
    }
    pub fn fast(&self) -> bool {
        self.flags & FLAG_FAST != 0
    }
    /// What "largest usage" compares, as ccusage does.
    pub fn total_tokens(&self) -> u64 {
        u64::from(self.input)
            + u64::from(self.output)
            + u64::from(self.cache_write_5m)
            + u64::from(self.cache_write_1h)
            + u64::from(self.cache_read)
    }
    pub fn usage(&self) -> crate::transcript::Usage {
        crate::transcript::Usage {
            input_tokens: self.input.into(),
            output_tokens: self.output.into(),
            cache_creation_input_tokens: u64::from(self.cache_write_5m)
                + u64::from(self.cache_write_1h),
            cache_read_input_tokens: self.cache_read.into(),
            cache_creation_5m: self.cache_write_5m.into(),
            cache_creation_1h: self.cache_write_1h.into(),
            web_search_requests: self.web_search.into(),
            web_fetch_requests: 0,
        }
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.push(TAG_USAGE);
        out.extend_from_slice(&self.key.to_le_bytes());
        out.extend_from_slice(&self.msg.to_le_bytes());
        out.extend_from_slice(&self.ts_ms.to_le_bytes());
        for v in [self.model, self.agent, self.file, self.flags] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [
            self.input,
            self.output,
            self.cache_write_5m,
            self.cache_write_1h,
            self.cache_read,
            self.web_search,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }

    fn decode(b: &[u8]) -> Rec {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let u16_at = |i: usize| u16::from_le_bytes(b[i..i + 2].try_into().unwrap());
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        Rec {
            key: u64_at(0),
            msg: u64_at(8),
            ts_ms: u64_at(16) as i64,
            model: u16_at(24),
            agent: u16_at(26),
            file: u16_at(28),
            flags: u16_at(30),
            input: u32_at(32),
            output: u32_at(36),
            cache_write_5m: u32_at(40),
            cache_write_1h: u32_at(44),
            cache_read: u32_at(48),
            web_search: u32_at(52),
        }
    }
}

/// Saturating conversion for token counts.
pub fn u32_of(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// String tables of a record log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Table {
    Model = 0,
    Agent = 1,
    File = 2,
    /// `key=value` facts about the session (project, cwd, agent types).
    Meta = 3,
}

impl Table {
    fn from_u8(b: u8) -> Option<Table> {
        Some(match b {
            0 => Table::Model,
            1 => Table::Agent,
            2 => Table::File,
            3 => Table::Meta,
            _ => return None,
        })
    }
}

/// A session's record log in memory, plus the bytes not yet written.
#[derive(Debug, Clone, Default)]
pub struct Log {
    pub models: Vec<String>,
    pub agents: Vec<String>,
    pub files: Vec<String>,
    pub meta: BTreeMap<String, String>,
    pub recs: Vec<Rec>,
    index: HashMap<(Table, String), u16>,
    /// Valid bytes on disk (header included; 0 when there is no file).
    pub disk_len: u64,
    pending: Vec<u8>,
}

impl Log {
    /// Reads a log; a missing file is an empty log. Stops at the first
    /// entry that is torn or unknown: what follows is rewritten over.
    pub fn load(path: &Path) -> Result<Log> {
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Log::default()),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        Log::parse(&bytes).with_context(|| format!("cannot read {}", path.display()))
    }

    pub fn parse(bytes: &[u8]) -> Result<Log> {
        let mut log = Log::default();
        if bytes.len() < HEADER_LEN {
            // Empty or torn header: nothing was ever logged in full.
            return Ok(log);
        }
        anyhow::ensure!(&bytes[..8] == MAGIC, "not a cairn usage log");
        let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
        anyhow::ensure!(
            version == LOG_VERSION,
            "usage log version {version} is not supported by this cairn (expects {LOG_VERSION}); upgrade cairn"
        );
        let mut i = HEADER_LEN;
        while let Some(&tag) = bytes.get(i) {
            match tag {
                TAG_USAGE if i + 1 + USAGE_LEN <= bytes.len() => {
                    log.recs.push(Rec::decode(&bytes[i + 1..i + 1 + USAGE_LEN]));
                    i += 1 + USAGE_LEN;
                }
                TAG_STRING if i + 6 <= bytes.len() => {
                    let table = bytes[i + 1];
                    let idx = u16::from_le_bytes([bytes[i + 2], bytes[i + 3]]);
                    let len = usize::from(u16::from_le_bytes([bytes[i + 4], bytes[i + 5]]));
                    if i + 6 + len > bytes.len() {
                        break;
                    }
                    let s = String::from_utf8_lossy(&bytes[i + 6..i + 6 + len]).into_owned();
                    let Some(table) = Table::from_u8(table) else {
                        break;
                    };
                    log.define(table, idx, s);
                    i += 6 + len;
                }
                _ => break,
            }
        }
        log.disk_len = i as u64;
        Ok(log)
    }

    fn define(&mut self, table: Table, idx: u16, s: String) {
        if table == Table::Meta {
            if let Some((k, v)) = s.split_once('=') {
                self.meta.insert(k.to_string(), v.to_string());
            }
            return;
        }
        let list = match table {
            Table::Model => &mut self.models,
            Table::Agent => &mut self.agents,
            _ => &mut self.files,
        };
        let idx = usize::from(idx);
        if list.len() <= idx {
            list.resize(idx + 1, String::new());
        }
        list[idx] = s.clone();
        self.index.insert((table, s), idx as u16);
    }

    fn write_string(out: &mut Vec<u8>, table: Table, idx: u16, s: &str) {
        // Strings are ids and paths; a longer one is cut at a char boundary.
        let mut end = s.len().min(u16::MAX as usize);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        out.push(TAG_STRING);
        out.push(table as u8);
        out.extend_from_slice(&idx.to_le_bytes());
        out.extend_from_slice(&(end as u16).to_le_bytes());
        out.extend_from_slice(&s.as_bytes()[..end]);
    }

    /// The index of `s` in `table`, defining it (to be written) if new.
    pub fn intern(&mut self, table: Table, s: &str) -> u16 {
        if let Some(&i) = self.index.get(&(table, s.to_string())) {
            return i;
        }
        let list = match table {
            Table::Model => &mut self.models,
            Table::Agent => &mut self.agents,
            Table::File => &mut self.files,
            Table::Meta => unreachable!("meta is set with set_meta"),
        };
        // 65 535 distinct models or agents in one session does not happen;
        // the last slot is shared rather than failing.
        let idx = u16::try_from(list.len()).unwrap_or(u16::MAX);
        if usize::from(idx) == list.len() {
            list.push(s.to_string());
        }
        self.index.insert((table, s.to_string()), idx);
        Log::write_string(&mut self.pending, table, idx, s);
        idx
    }

    /// Records a fact about the session (written only when it changes).
    pub fn set_meta(&mut self, key: &str, value: &str) {
        if self.meta.get(key).map(String::as_str) == Some(value) {
            return;
        }
        self.meta.insert(key.to_string(), value.to_string());
        Log::write_string(&mut self.pending, Table::Meta, 0, &format!("{key}={value}"));
    }

    pub fn push(&mut self, r: Rec) {
        r.encode(&mut self.pending);
        self.recs.push(r);
    }

    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Appends what was added since the load. A torn tail left by a crash
    /// is cut first, so the new entries follow the last whole one.
    pub fn flush_append(&mut self, path: &Path) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if let Some(d) = path.parent() {
            fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
        }
        let mut f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let on_disk = f.metadata()?.len();
        if self.disk_len < HEADER_LEN as u64 {
            f.set_len(0)?;
            let mut header = Vec::with_capacity(HEADER_LEN);
            header.extend_from_slice(MAGIC);
            header.extend_from_slice(&LOG_VERSION.to_le_bytes());
            header.extend_from_slice(&0u32.to_le_bytes());
            f.write_all(&header)?;
            self.disk_len = HEADER_LEN as u64;
        } else if on_disk != self.disk_len {
            f.set_len(self.disk_len)?;
        }
        use std::io::{Seek, SeekFrom};
        f.seek(SeekFrom::Start(self.disk_len))?;
        f.write_all(&self.pending)
            .with_context(|| format!("cannot write {}", path.display()))?;
        self.disk_len += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }

    /// Writes the whole log anew (after records were dropped), atomically.
    pub fn rewrite(&mut self, path: &Path) -> Result<()> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.recs.len() * (USAGE_LEN + 1));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&LOG_VERSION.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        for (table, list) in [
            (Table::Model, &self.models),
            (Table::Agent, &self.agents),
            (Table::File, &self.files),
        ] {
            for (i, s) in list.iter().enumerate() {
                Log::write_string(&mut out, table, i as u16, s);
            }
        }
        for (k, v) in &self.meta {
            Log::write_string(&mut out, Table::Meta, 0, &format!("{k}={v}"));
        }
        for r in &self.recs {
            r.encode(&mut out);
        }
        crate::fsutil::atomic_write(path, &out)?;
        self.disk_len = out.len() as u64;
        self.pending.clear();
        Ok(())
    }

    pub fn model(&self, r: &Rec) -> &str {
        self.models
            .get(usize::from(r.model))
            .map_or("", String::as_str)
    }
    pub fn agent(&self, r: &Rec) -> &str {
        self.agents
            .get(usize::from(r.agent))
            .map_or("", String::as_str)
    }
}

/// One transcript file as last read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileState {
    pub path: String,
    /// `""` for the main thread's file.
    pub agent: String,
    /// Resume point: just past the last complete line read.
    pub offset: u64,
    pub size: u64,
    pub mtime_ns: u64,
    #[serde(default)]
    pub ino: u64,
    /// Fingerprint of the first `head_len` bytes: a file rewritten in place
    /// is read again from 0.
    pub head_len: u64,
    pub head: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missing: bool,
}

impl FileState {
    /// The resume point as the shared type. The fields stay spelled out
    /// here rather than flattened: summaries are read on every status-line
    /// render, and serde's flatten buffers each struct first.
    pub fn mark(&self) -> ReadMark {
        ReadMark {
            offset: self.offset,
            head: self.head,
            head_len: self.head_len,
        }
    }

    pub fn set_mark(&mut self, m: ReadMark) {
        (self.offset, self.head, self.head_len) = (m.offset, m.head, m.head_len);
    }
}

/// A folder whose listing was swept, by mtime: unchanged means no new file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DirState {
    pub path: String,
    pub mtime_ns: u64,
}

/// The cache in front of a session's record log.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub v: u32,
    pub session_id: String,
    /// Bytes of the record log these totals cover.
    pub log_len: u64,
    /// [`crate::usage::pricing::PriceTable::fingerprint`] of the costs.
    pub prices: u64,
    /// The time zone the per-day parts were cut in.
    #[serde(default)]
    pub tz: String,
    pub files: Vec<FileState>,
    pub dirs: Vec<DirState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    pub totals: crate::usage::aggregate::SessionTotals,
    /// Cost and tokens by local date, for the day index.
    #[serde(default)]
    pub days: BTreeMap<String, crate::usage::ledger::DayPart>,
}

impl Summary {
    pub fn load(path: &Path) -> Option<Summary> {
        let bytes = fs::read(path).ok()?;
        let s: Summary = serde_json::from_slice(&bytes).ok()?;
        (s.v == SUMMARY_VERSION).then_some(s)
    }
}

/// A summary without its totals: what an update and a report's check
/// need, parsed without the per-agent figures (a session with a hundred
/// subagents has a long summary, read after every new response).
#[derive(Debug, Clone, Deserialize)]
pub struct SummaryState {
    pub v: u32,
    pub log_len: u64,
    pub prices: u64,
    #[serde(default)]
    pub tz: String,
    pub files: Vec<FileState>,
    #[serde(default)]
    pub context_window: Option<u64>,
    #[serde(default)]
    pub days: BTreeMap<String, crate::usage::ledger::DayPart>,
}

impl SummaryState {
    pub fn load(path: &Path) -> Option<SummaryState> {
        let bytes = fs::read(path).ok()?;
        let s: SummaryState = serde_json::from_slice(&bytes).ok()?;
        (s.v == SUMMARY_VERSION).then_some(s)
    }
}

/// Where a session's state lives.
#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub log: PathBuf,
    pub summary: PathBuf,
}

/// A session's lock: an exclusive advisory lock on its record log,
/// released on drop.
#[derive(Debug)]
pub struct SessionLock {
    file: fs::File,
}

impl Drop for SessionLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

#[cfg(unix)]
fn same_file(f: &fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (f.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &fs::File, path: &Path) -> bool {
    path.exists()
}

impl SessionPaths {
    /// Takes the session's lock, waiting when `wait`; `Ok(None)` when it is
    /// held elsewhere and `wait` is false. A log rewritten (renamed over)
    /// while this process waited is a new file: the lock is taken again on
    /// the file the path names now.
    pub fn lock(&self, wait: bool) -> Result<Option<SessionLock>> {
        if let Some(d) = self.log.parent() {
            fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
        }
        loop {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .append(true)
                .open(&self.log)
                .with_context(|| format!("cannot open {}", self.log.display()))?;
            if wait {
                file.lock()
                    .with_context(|| format!("cannot lock {}", self.log.display()))?;
            } else {
                match file.try_lock() {
                    Ok(()) => {}
                    Err(fs::TryLockError::WouldBlock) => return Ok(None),
                    Err(fs::TryLockError::Error(e)) => {
                        return Err(e)
                            .with_context(|| format!("cannot lock {}", self.log.display()));
                    }
                }
            }
            if same_file(&file, &self.log) {
                return Ok(Some(SessionLock { file }));
            }
        }
    }
}

pub fn sessions_dir(state_dir: &Path) -> PathBuf {
    crate::state_layout::usage_sessions(state_dir)
}

/// The stem of a session's ledger files: the crate's one rule
/// (`crate::session_id`); an empty id gets the stem of the older rule.
pub fn session_file_stem(session_id: &str) -> String {
    crate::session_id::file_stem(session_id).unwrap_or_else(|| legacy_file_stem(session_id))
}

/// The rule ledgers were named by before `crate::session_id` (it kept dots
/// and hashed differently): the same for every UUID, so only an odd id's
/// ledger can carry it, and [`session_paths`] still finds that one.
fn legacy_file_stem(session_id: &str) -> String {
    let safe = !session_id.is_empty()
        && session_id.len() <= 128
        && !session_id.starts_with('.')
        && session_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if safe {
        session_id.to_string()
    } else {
        format!("h{:016x}", hash(&[session_id.as_bytes()]))
    }
}

pub fn session_paths(state_dir: &Path, session_id: &str) -> SessionPaths {
    let dir = sessions_dir(state_dir);
    let mut stem = session_file_stem(session_id);
    let legacy = legacy_file_stem(session_id);
    if legacy != stem
        && !dir.join(format!("{stem}.rec")).exists()
        && dir.join(format!("{legacy}.rec")).exists()
    {
        stem = legacy;
    }
    SessionPaths {
        log: dir.join(format!("{stem}.rec")),
        summary: dir.join(format!("{stem}.json")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(key: u64, out: u32) -> Rec {
        Rec {
            key,
            msg: key,
            ts_ms: 1_764_476_446_000,
            output: out,
            input: 7,
            ..Rec::default()
        }
    }

    #[test]
    fn log_round_trips_and_survives_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.rec");
        let mut log = Log::load(&p).unwrap();
        let m = log.intern(Table::Model, "claude-opus-5");
        let a = log.intern(Table::Agent, "");
        log.set_meta("project", "-tmp-x");
        log.push(Rec {
            model: m,
            agent: a,
            ..rec(1, 10)
        });
        log.flush_append(&p).unwrap();
        let good_len = fs::metadata(&p).unwrap().len();

        let mut log = Log::load(&p).unwrap();
        assert_eq!(log.recs.len(), 1);
        assert_eq!(log.models, ["claude-opus-5"]);
        assert_eq!(log.meta["project"], "-tmp-x");
        assert_eq!(log.intern(Table::Model, "claude-opus-5"), 0);
        assert!(!log.has_pending());
        // A crash in the middle of an append leaves half a record.
        let mut torn = Vec::new();
        rec(2, 20).encode(&mut torn);
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(&torn[..20]).unwrap();
        drop(f);
        let mut log = Log::load(&p).unwrap();
        assert_eq!((log.recs.len(), log.disk_len), (1, good_len));
        log.push(rec(3, 30));
        log.flush_append(&p).unwrap();
        let log = Log::load(&p).unwrap();
        let outs: Vec<u32> = log.recs.iter().map(|r| r.output).collect();
        assert_eq!(outs, [10, 30]);

        let mut again = log.clone();
        again.recs.retain(|r| r.output != 10);
        again.rewrite(&p).unwrap();
        let log = Log::load(&p).unwrap();
        assert_eq!(log.recs.len(), 1);
        assert_eq!(log.models, ["claude-opus-5"]);
        assert_eq!(log.meta["project"], "-tmp-x");
    }

    #[test]
    fn other_versions_and_foreign_files_are_refused() {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&9u32.to_le_bytes());
        b.extend_from_slice(&[0; 4]);
        let e = Log::parse(&b).unwrap_err().to_string();
        assert!(e.contains("version 9"), "{e}");
        assert!(Log::parse(b"hello world, not a log").is_err());
        assert!(Log::parse(b"").unwrap().recs.is_empty());
    }

    #[test]
    fn the_lock_follows_a_log_rewritten_while_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let paths = session_paths(dir.path(), "s1");
        let held = paths.lock(false).unwrap().unwrap();
        assert!(paths.lock(false).unwrap().is_none());
        let (tx, rx) = std::sync::mpsc::channel();
        let p2 = paths.clone();
        let waiter = std::thread::spawn(move || {
            let g = p2.lock(true).unwrap().unwrap();
            tx.send(()).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(100));
            drop(g);
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        // Rewrite: a new file renamed over the one the waiter has open.
        let mut log = Log::default();
        log.push(Rec::default());
        log.rewrite(&paths.log).unwrap();
        drop(held);
        rx.recv().unwrap();
        // The waiter holds the new file's lock, not the old inode's.
        assert!(paths.lock(false).unwrap().is_none());
        waiter.join().unwrap();
        assert!(paths.lock(false).unwrap().is_some());
    }

    #[test]
    fn session_stems_are_safe() {
        assert_eq!(session_file_stem("592d55cf-11d7"), "592d55cf-11d7");
        assert!(session_file_stem("../../etc").starts_with('h'));
        assert!(session_file_stem("").starts_with('h'));
        assert_ne!(hash(&[b"a", b"bc"]), hash(&[b"ab", b"c"]));
    }

    #[test]
    fn a_ledger_named_by_the_older_rule_is_still_found() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = session_paths(dir.path(), "odd.id");
        assert!(
            fresh
                .log
                .ends_with(format!("{}.rec", session_file_stem("odd.id")))
        );
        assert!(session_file_stem("odd.id").starts_with("h-"));
        std::fs::create_dir_all(sessions_dir(dir.path())).unwrap();
        std::fs::write(sessions_dir(dir.path()).join("odd.id.rec"), b"").unwrap();
        let old = session_paths(dir.path(), "odd.id");
        assert!(old.log.ends_with("odd.id.rec"), "{}", old.log.display());
        assert!(old.summary.ends_with("odd.id.json"));
        // Once a file follows the one rule, it wins.
        std::fs::write(&fresh.log, b"").unwrap();
        assert_eq!(session_paths(dir.path(), "odd.id").log, fresh.log);
    }
}
