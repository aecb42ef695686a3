//! The incremental aggregate: per session and per agent, one record per API
//! response, token counts by kind and their cost.
//!
//! Each transcript file is read forwards from the byte offset reached last
//! time; lines that are new are reduced to records, merged with the ones
//! already logged ([`super::dedupe`]) and appended to the session's record
//! log when they change it. A file that shrank or was rewritten is read
//! again from 0 (the log makes that count nothing twice). Reading the same
//! lines again, or calling twice, changes nothing.
//!
//! The hot callers (status line, context guard, SubagentStop) go through
//! [`session_totals`]: a summary read and one `stat` per file and folder
//! when nothing changed.

use super::dedupe::{Dedup, Offer};
use super::discover::{self, SessionFiles};
use super::ledger::DayPart;
use super::pricing::{PriceTable, Rates};
use super::store::{
    self, DirState, FLAG_FAST, FLAG_NO_ID, FLAG_SIDECHAIN, FileState, Log, Rec, SUMMARY_VERSION,
    Summary, Table, hash, u32_of,
};
use crate::context::Ctx;
use crate::transcript::mark::{FileStat, Head, ReadMark};
use crate::transcript::{StreamReader, UsageEntry};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

/// Token counts by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
    pub cache_read: u64,
    #[serde(default)]
    pub web_search_requests: u64,
}

impl Tokens {
    pub fn cache_write(&self) -> u64 {
        self.cache_write_5m + self.cache_write_1h
    }
    /// Input, output, cache writes and reads (what ccusage calls total).
    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_write() + self.cache_read
    }
    pub fn add(&mut self, o: &Tokens) {
        self.input += o.input;
        self.output += o.output;
        self.cache_write_5m += o.cache_write_5m;
        self.cache_write_1h += o.cache_write_1h;
        self.cache_read += o.cache_read;
        self.web_search_requests += o.web_search_requests;
    }
    pub fn of(r: &Rec) -> Tokens {
        Tokens {
            input: r.input.into(),
            output: r.output.into(),
            cache_write_5m: r.cache_write_5m.into(),
            cache_write_1h: r.cache_write_1h.into(),
            cache_read: r.cache_read.into(),
            web_search_requests: r.web_search.into(),
        }
    }
}

/// One agent of a session: the main thread (`agent_id == ""`) or a subagent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentTotals {
    pub agent_id: String,
    /// From the subagent's `.meta.json` (`Explore`, `general-purpose`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    pub tokens: Tokens,
    pub cost: f64,
    /// Deduplicated API responses.
    pub responses: u64,
    pub models: Vec<String>,
    /// RFC 3339 of the first response.
    #[serde(default)]
    pub first: String,
}

/// What the status line and the guard need about one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionTotals {
    pub session_id: String,
    /// The project folder's name (the escaped cwd).
    pub project: String,
    /// The working directory the transcript records, when seen.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cwd: String,
    /// All agents together.
    pub tokens: Tokens,
    pub cost: f64,
    pub responses: u64,
    pub main: AgentTotals,
    /// Subagents with at least one response, in order of first response.
    pub subagents: Vec<AgentTotals>,
    pub models: Vec<String>,
    /// Models the price table does not know: their tokens are priced at 0.
    pub unknown_models: Vec<String>,
    /// RFC 3339 of the first and last responses (empty when none).
    pub first: String,
    pub last: String,
    /// `context_window_size` last reported by the status line, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Transcript files that no longer exist; their usage is kept.
    #[serde(default)]
    pub missing_files: usize,
}

impl SessionTotals {
    pub fn subagent_count(&self) -> usize {
        self.subagents.len()
    }
    pub fn subagent_cost(&self) -> f64 {
        self.subagents.iter().map(|a| a.cost).sum()
    }
    pub fn subagent_tokens(&self) -> Tokens {
        let mut t = Tokens::default();
        for a in &self.subagents {
            t.add(&a.tokens);
        }
        t
    }
}

/// What kind of update the caller wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UpdateOptions {
    /// Return the session's records even when nothing changed (reports).
    pub need_records: bool,
    /// Write day-index changes now (hot paths) or hand them back (reports
    /// write them once at the end).
    pub write_days: bool,
    /// When another process is updating this session, return its last
    /// summary instead of waiting (hot paths; a report may hold the lock
    /// through a long first read).
    pub stale_ok: bool,
    /// Read subagents' `.meta.json` for their type (one open per agent).
    pub agent_types: bool,
    /// The caller already saw a change: skip the unlocked look.
    pub known_changed: bool,
}

/// The outcome of updating one session.
pub(crate) struct Updated {
    /// `None` when a report found the session unchanged (it reads only the
    /// summary's file list then).
    pub summary: Option<Summary>,
    /// The deduplicated records and the log's tables, when asked for or read.
    pub records: Option<(Log, Vec<Rec>)>,
    pub day_changes: BTreeMap<String, Option<DayPart>>,
    /// Transcript bytes read.
    pub bytes_read: u64,
}

fn stat(path: &Path) -> Option<FileStat> {
    FileStat::of(path)
}

fn dir_mtime(path: &Path) -> u64 {
    stat(path).map_or(0, |s| s.mtime_ns)
}

fn file_unchanged(f: &FileState) -> bool {
    match stat(Path::new(&f.path)) {
        None => f.missing,
        Some(s) => !f.missing && s.size == f.size && s.mtime_ns == f.mtime_ns && s.ino == f.ino,
    }
}

fn dirs_unchanged(dirs: &[DirState]) -> bool {
    dirs.iter()
        .all(|d| dir_mtime(Path::new(&d.path)) == d.mtime_ns)
}

/// The key that says which time zone the per-day parts were cut in.
pub(crate) fn tz_key(ctx: &Ctx) -> String {
    ctx.env.get("TZ").unwrap_or("").to_string()
}

/// The summaries' file fingerprint: their hash of the first 512 bytes.
const HEAD: Head = Head {
    bytes: 512,
    hash: head_hash,
};

fn head_hash(bytes: &[u8]) -> u64 {
    hash(&[bytes])
}

/// The usage of a session whose main transcript is `transcript_path`,
/// priced with the built-in table. See [`session_totals_with`].
pub fn session_totals(ctx: &Ctx, transcript_path: &Path) -> Result<SessionTotals> {
    session_totals_with(ctx, &PriceTable::embedded(), transcript_path)
}

/// The usage of a session (main thread and every subagent), brought up to
/// date: a summary read and a `stat` per file when nothing changed; else
/// only the new bytes are read. A missing transcript with no state gives
/// empty totals; one whose state exists gives what was recorded.
pub fn session_totals_with(
    ctx: &Ctx,
    prices: &PriceTable,
    transcript_path: &Path,
) -> Result<SessionTotals> {
    refresh(ctx, prices, transcript_path).map(|(t, _)| t)
}

/// [`session_totals_with`] and the transcript bytes it read (0 when the
/// summary was current).
pub(crate) fn refresh(
    ctx: &Ctx,
    prices: &PriceTable,
    transcript_path: &Path,
) -> Result<(SessionTotals, u64)> {
    let sid = transcript_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let paths = store::session_paths(&ctx.state_dir, &sid);
    let main = transcript_path.to_string_lossy();
    if let Some(s) = Summary::load(&paths.summary)
        && s.prices == prices.fingerprint()
        && s.tz == tz_key(ctx)
        // The same session id under another path (a copied or moved
        // transcript) is not what the summary describes.
        && s.files.iter().any(|f| f.path == main)
        && dirs_unchanged(&s.dirs)
        && s.files.iter().all(file_unchanged)
    {
        return Ok((s.totals, 0));
    }
    let files = discover::session_of_transcript(ctx, transcript_path);
    let up = update(
        ctx,
        prices,
        &files,
        UpdateOptions {
            need_records: false,
            write_days: true,
            stale_ok: true,
            agent_types: true,
            known_changed: true,
        },
    )?;
    Ok((
        up.summary.map(|s| s.totals).unwrap_or_default(),
        up.bytes_read,
    ))
}

/// Remembers the context window the status line reported for a session,
/// so the guard and later totals use it. Cheap when it is already known.
pub fn note_context_window(ctx: &Ctx, transcript_path: &Path, window: u64) -> Result<()> {
    let sid = transcript_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let paths = store::session_paths(&ctx.state_dir, &sid);
    if Summary::load(&paths.summary).is_some_and(|s| s.context_window == Some(window)) {
        return Ok(());
    }
    // Best effort: while a report holds the session, the next render retries.
    let Some(_guard) = paths.lock(false)? else {
        return Ok(());
    };
    let mut s = Summary::load(&paths.summary).unwrap_or_else(|| Summary {
        v: SUMMARY_VERSION,
        session_id: sid.clone(),
        ..Summary::default()
    });
    s.context_window = Some(window);
    s.totals.context_window = Some(window);
    crate::fsutil::atomic_write_unsynced(&paths.summary, &serde_json::to_vec(&s)?)
}

/// Brings one session up to date. Looks first without the lock (most
/// calls find nothing to do); takes the session's lock to read and write.
/// When the state folder cannot be written the totals are still computed
/// and returned.
pub(crate) fn update(
    ctx: &Ctx,
    prices: &PriceTable,
    files: &SessionFiles,
    opts: UpdateOptions,
) -> Result<Updated> {
    let paths = store::session_paths(&ctx.state_dir, &files.session_id);
    if !opts.known_changed
        && let Some(up) = unchanged(ctx, prices, files, &paths, opts)?
    {
        return Ok(up);
    }
    let guard = match paths.lock(false) {
        Ok(Some(g)) => Ok(g),
        Ok(None) => {
            if opts.stale_ok
                && let Some(s) = Summary::load(&paths.summary)
            {
                return Ok(Updated {
                    summary: Some(s),
                    records: None,
                    day_changes: BTreeMap::new(),
                    bytes_read: 0,
                });
            }
            paths
                .lock(true)
                .map(|g| g.expect("a waiting lock is taken"))
        }
        Err(e) => Err(e),
    };
    let writable = guard.is_ok();
    let up = update_locked(ctx, prices, files, &paths, opts, writable);
    drop(guard);
    up
}

/// The summary's files, plus newly discovered ones, plus ones it knows
/// that discovery no longer finds (deleted: kept, so their usage stays).
fn file_states(old: &[FileState], files: &SessionFiles) -> (Vec<FileState>, bool) {
    let known: HashMap<&str, &FileState> = old.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut states: Vec<FileState> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut new_files = false;
    for f in &files.files {
        let p = f.path.to_string_lossy().into_owned();
        if !seen.insert(p.clone()) {
            continue;
        }
        let st = match known.get(p.as_str()) {
            Some(s) => (*s).clone(),
            None => {
                new_files = true;
                FileState {
                    path: p,
                    agent: f.agent.clone(),
                    ..FileState::default()
                }
            }
        };
        states.push(st);
    }
    for f in old {
        if seen.insert(f.path.clone()) {
            states.push(f.clone());
        }
    }
    (states, new_files)
}

fn file_changed(f: &FileState, s: Option<&FileStat>) -> bool {
    match s {
        None => !f.missing,
        Some(s) => f.missing || s.size != f.size || s.mtime_ns != f.mtime_ns || s.ino != f.ino,
    }
}

fn dir_states(files: &SessionFiles) -> Vec<DirState> {
    files
        .dirs
        .iter()
        .map(|d| DirState {
            path: d.to_string_lossy().into_owned(),
            mtime_ns: dir_mtime(d),
        })
        .collect()
}

/// The no-lock look: `Some` when the summary is current for every file.
fn unchanged(
    ctx: &Ctx,
    prices: &PriceTable,
    files: &SessionFiles,
    paths: &store::SessionPaths,
    opts: UpdateOptions,
) -> Result<Option<Updated>> {
    let current = |v: u32, p: u64, tz: &str, old: &[FileState]| -> bool {
        if v != SUMMARY_VERSION || p != prices.fingerprint() || tz != tz_key(ctx) {
            return false;
        }
        let (states, new_files) = file_states(old, files);
        !new_files
            && !states
                .iter()
                .any(|f| file_changed(f, stat(Path::new(&f.path)).as_ref()))
    };
    if opts.need_records {
        let Some(head) = store::SummaryState::load(&paths.summary) else {
            return Ok(None);
        };
        if !current(head.v, head.prices, &head.tz, &head.files) {
            return Ok(None);
        }
        // Appends by a concurrent writer are whole records or a torn tail
        // the parser stops at, so no lock is needed to read.
        let mut log = Log::load(&paths.log)?;
        if log.disk_len < head.log_len {
            return Ok(None);
        }
        // The log's history, not folded: the report folds every session's
        // records in one pass, which gives the same set.
        let recs = std::mem::take(&mut log.recs);
        return Ok(Some(Updated {
            summary: None,
            records: Some((log, recs)),
            day_changes: BTreeMap::new(),
            bytes_read: 0,
        }));
    }
    let Some(mut s) = Summary::load(&paths.summary) else {
        return Ok(None);
    };
    if !current(s.v, s.prices, &s.tz, &s.files)
        || stat(&paths.log).map_or(0, |st| st.size) != s.log_len
    {
        return Ok(None);
    }
    // The hot path also refreshes the folder stamps it checks first.
    let dirs = dir_states(files);
    if s.dirs != dirs
        && let Ok(Some(_g)) = paths.lock(false)
    {
        s.dirs = dirs;
        let _ = write_summary(&paths.summary, &s);
    }
    Ok(Some(Updated {
        summary: Some(s),
        records: None,
        day_changes: BTreeMap::new(),
        bytes_read: 0,
    }))
}

/// The update proper, under the session's lock (or without state).
fn update_locked(
    ctx: &Ctx,
    prices: &PriceTable,
    files: &SessionFiles,
    paths: &store::SessionPaths,
    opts: UpdateOptions,
    writable: bool,
) -> Result<Updated> {
    let old = store::SummaryState::load(&paths.summary);
    let fingerprint = prices.fingerprint();
    let tz = tz_key(ctx);
    let (mut states, _) = file_states(old.as_ref().map_or(&[][..], |s| &s.files), files);
    let stats: Vec<Option<FileStat>> = states.iter().map(|f| stat(Path::new(&f.path))).collect();
    let changed: Vec<bool> = states
        .iter()
        .zip(&stats)
        .map(|(f, s)| file_changed(f, s.as_ref()))
        .collect();
    let dirs = dir_states(files);

    let mut log = match Log::load(&paths.log) {
        Ok(l) => l,
        // No usable state folder: count from the transcripts alone.
        Err(_) if !writable => Log::default(),
        Err(e) => return Err(e),
    };
    // A summary that covers more log than there is (the log was lost or cut
    // by hand) cannot be trusted for offsets: read everything again.
    let offsets_ok = old.as_ref().is_some_and(|s| s.log_len <= log.disk_len);
    let mut reset_all = !offsets_ok;
    for (i, f) in states.iter().enumerate() {
        let Some(s) = stats[i] else { continue };
        if !changed[i] || f.offset == 0 {
            continue;
        }
        let rewritten =
            (f.ino != 0 && s.ino != f.ino) || !f.mark().holds(Path::new(&f.path), s.size, &HEAD);
        if rewritten {
            reset_all = true;
        }
    }
    let mut rewrite_log = false;
    if reset_all {
        // Drop what came from files that still exist and read them all
        // again: records of deleted files are all that is left of them.
        let present: BTreeSet<u16> = log
            .files
            .iter()
            .enumerate()
            .filter(|(_, p)| Path::new(p.as_str()).exists())
            .map(|(i, _)| i as u16)
            .collect();
        let before = log.recs.len();
        log.recs.retain(|r| !present.contains(&r.file));
        rewrite_log = log.recs.len() != before || log.has_pending();
        for f in &mut states {
            f.set_mark(ReadMark::default());
        }
    }

    let mut dedup = Dedup::with_capacity(log.recs.len() + 64);
    for r in &log.recs {
        dedup.offer(*r, 0);
    }
    if !files.project.is_empty() {
        log.set_meta("project", &files.project);
    }
    // A `.meta.json` read per agent is an open per file: worth it for the
    // status line, not for a report over thousands of files. An empty value
    // marks "looked, none".
    if opts.agent_types {
        for f in states.iter().filter(|f| !f.agent.is_empty() && !f.missing) {
            let key = format!("agent_type:{}", f.agent);
            if !log.meta.contains_key(&key) {
                let t = discover::agent_type(Path::new(&f.path)).unwrap_or_default();
                log.set_meta(&key, &t);
            }
        }
    }
    let mut bytes_read = 0;
    for (i, f) in states.iter_mut().enumerate() {
        let Some(s) = stats[i] else {
            f.missing = true;
            continue;
        };
        if !(changed[i] || reset_all) {
            continue;
        }
        let start = f.offset;
        let (end, head) = read_file(f, &mut log, &mut dedup)?;
        bytes_read += end.saturating_sub(start);
        let mut mark = f.mark();
        // Unreadable now: the head stays shorter, and still vouches for
        // what it covers.
        let _ = mark.advance(Path::new(&f.path), end, &HEAD, &head);
        f.set_mark(mark);
        f.size = s.size;
        f.mtime_ns = s.mtime_ns;
        f.ino = s.ino;
        f.missing = false;
    }

    let recs = dedup.recs;
    if writable {
        let written = if rewrite_log {
            log.recs = recs.clone();
            log.rewrite(&paths.log)
        } else {
            log.flush_append(&paths.log)
        };
        if let Err(e) = written {
            ctx.diag(
                crate::diag::Level::Warn,
                "usage",
                &format!(
                    "cannot save the usage log of session {}: {e:#}",
                    files.session_id
                ),
            );
        }
    }

    let mut dates = LocalDates::new(ctx);
    let (mut totals, days) = tally(&files.session_id, &log, &recs, prices, Some(&mut dates));
    let context_window = old.as_ref().and_then(|s| s.context_window);
    totals.context_window = context_window;
    totals.missing_files = states.iter().filter(|f| f.missing).count();
    let mut day_changes = BTreeMap::new();
    let old_days = old.as_ref().map(|s| &s.days);
    for (d, p) in &days {
        if old_days.and_then(|o| o.get(d)) != Some(p) {
            day_changes.insert(d.clone(), Some(*p));
        }
    }
    for d in old_days.into_iter().flat_map(|o| o.keys()) {
        if !days.contains_key(d) {
            day_changes.insert(d.clone(), None);
        }
    }
    let summary = Summary {
        v: SUMMARY_VERSION,
        session_id: files.session_id.clone(),
        log_len: log.disk_len,
        prices: fingerprint,
        tz,
        files: states,
        dirs,
        context_window,
        totals,
        days,
    };
    if writable {
        if let Err(e) = write_summary(&paths.summary, &summary) {
            ctx.diag(
                crate::diag::Level::Warn,
                "usage",
                &format!(
                    "cannot save the usage summary of session {}: {e:#}",
                    files.session_id
                ),
            );
        }
        if opts.write_days && !day_changes.is_empty() {
            let mut ch = BTreeMap::new();
            for (d, p) in &day_changes {
                ch.insert(d.clone(), BTreeMap::from([(files.session_id.clone(), *p)]));
            }
            if let Err(e) = super::ledger::update_days(&ctx.state_dir, &ch) {
                ctx.diag(
                    crate::diag::Level::Warn,
                    "usage",
                    &format!("cannot update the day index: {e:#}"),
                );
            }
        }
    }
    Ok(Updated {
        summary: Some(summary),
        records: Some((log, recs)),
        day_changes,
        bytes_read,
    })
}

fn write_summary(path: &Path, s: &Summary) -> Result<()> {
    // A cache: a power cut costs a re-read, never a wrong total (its
    // `log_len` must match the log), so no fsync on the hot path.
    crate::fsutil::atomic_write_unsynced(path, &serde_json::to_vec(s)?)
}

/// The kept records of a log's history.
pub(crate) fn fold(recs: &[Rec]) -> Vec<Rec> {
    let mut d = Dedup::with_capacity(recs.len());
    for r in recs {
        d.offer(*r, 0);
    }
    d.recs
}

/// Is `message.usage.speed` `"fast"`? Checked only on lines that contain
/// `"fast"`, so content quoting the word costs a second parse, not a wrong
/// price.
fn is_fast(line: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Line {
        message: Option<Msg>,
    }
    #[derive(Deserialize)]
    struct Msg {
        usage: Option<U>,
    }
    #[derive(Deserialize)]
    struct U {
        speed: Option<String>,
    }
    serde_json::from_slice::<Line>(line)
        .ok()
        .and_then(|l| l.message?.usage?.speed)
        .is_some_and(|s| s == "fast")
}

/// Reads one file from its offset into the log; returns the new offset
/// and, when reading from 0, the file's first bytes (for the rewrite
/// fingerprint, saving a second open).
fn read_file(f: &FileState, log: &mut Log, dedup: &mut Dedup) -> Result<(u64, Vec<u8>)> {
    let path = Path::new(&f.path);
    let mut reader = match StreamReader::open(path, f.offset) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((f.offset, Vec::new())),
        Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot read {}", f.path))),
    };
    let mut head: Vec<u8> = Vec::new();
    let mut head_open = f.offset == 0;
    let usage_finder = memchr::memmem::Finder::new(b"\"usage\"");
    let assistant_finder = memchr::memmem::Finder::new(b"\"assistant\"");
    let fast_finder = memchr::memmem::Finder::new(b"\"fast\"");
    let file_idx = log.intern(Table::File, &f.path);
    // Interning allocates: remember the last model and agent.
    let mut last_model: Option<(String, u16)> = None;
    let mut last_agent: Option<(String, u16)> = None;
    let mut need_cwd = !log.meta.contains_key("cwd");
    while let Some(line) = reader
        .next_line()
        .map_err(|e| anyhow::Error::new(e).context(format!("cannot read {}", f.path)))?
    {
        if head_open {
            // Contiguous from byte 0 only: a skipped over-long line ends it.
            let start = line.end_offset - line.bytes.len() as u64 - 1;
            if start == head.len() as u64 {
                let room = HEAD.bytes as usize - head.len();
                head.extend_from_slice(&line.bytes[..line.bytes.len().min(room)]);
                if line.bytes.len() < room {
                    head.push(b'\n');
                }
                head_open = head.len() < HEAD.bytes as usize;
            } else {
                head_open = false;
            }
        }
        // Only assistant lines with a usage are parsed: both words appear
        // quoted in them whatever the spacing, and rarely together in the
        // tool results that make up most of a transcript's bytes.
        if usage_finder.find(line.bytes).is_none() || assistant_finder.find(line.bytes).is_none() {
            continue;
        }
        let Some(rec) = line.record() else { continue };
        // Placeholders the client writes itself (interruptions, API errors)
        // carry zeros and no real model.
        if rec.is_synthetic() || rec.is_api_error_message {
            continue;
        }
        let Some(entry) = UsageEntry::from_record(&rec) else {
            continue;
        };
        // Like ccusage: a usage line without a time cannot be put on a day.
        let Some(ts_ms) = entry
            .timestamp
            .as_deref()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
            .map(|t| t.as_millisecond())
        else {
            continue;
        };
        if need_cwd
            && f.agent.is_empty()
            && !entry.is_sidechain
            && let Some(cwd) = rec.cwd.as_deref()
        {
            log.set_meta("cwd", cwd);
            need_cwd = false;
        }
        let agent: &str = if !f.agent.is_empty() {
            &f.agent
        } else if entry.is_sidechain {
            // 1.0.x: subagent turns inside the main file.
            entry.agent_id.as_deref().unwrap_or("sidechain")
        } else {
            ""
        };
        let agent_idx = match &last_agent {
            Some((a, i)) if a == agent => *i,
            _ => {
                let i = log.intern(Table::Agent, agent);
                last_agent = Some((agent.to_string(), i));
                i
            }
        };
        let model = entry.model.as_deref().unwrap_or("");
        let model_idx = match &last_model {
            Some((m, i)) if m == model => *i,
            _ => {
                let i = log.intern(Table::Model, model);
                last_model = Some((model.to_string(), i));
                i
            }
        };
        let mut flags = 0;
        if entry.is_sidechain {
            flags |= FLAG_SIDECHAIN;
        }
        if fast_finder.find(line.bytes).is_some() && is_fast(line.bytes) {
            flags |= FLAG_FAST;
        }
        let (key, msg) = match entry.message_id.as_deref() {
            Some(id) => (
                hash(&[
                    id.as_bytes(),
                    entry.request_id.as_deref().unwrap_or("").as_bytes(),
                ]),
                hash(&[id.as_bytes()]),
            ),
            None => {
                flags |= FLAG_NO_ID;
                (
                    hash(&[f.path.as_bytes(), &line.end_offset.to_le_bytes()]),
                    0,
                )
            }
        };
        let u = &entry.usage;
        let (w5, w1) = super::pricing::cache_write_split(u);
        let r = Rec {
            key,
            msg,
            ts_ms,
            model: model_idx,
            agent: agent_idx,
            file: file_idx,
            flags,
            input: u32_of(u.input_tokens),
            output: u32_of(u.output_tokens),
            cache_write_5m: u32_of(w5),
            cache_write_1h: u32_of(w1),
            cache_read: u32_of(u.cache_read_input_tokens),
            web_search: u32_of(u.web_search_requests),
        };
        if dedup.offer(r, 0) != Offer::Dropped {
            log.push(r);
        }
    }
    Ok((reader.offset(), head))
}

/// RFC 3339 in UTC with milliseconds, as the client writes them.
pub(crate) fn ts_string(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_default()
}

/// Costs are kept to the nano-dollar: a figure with few significant
/// digits reads back from the JSON summary as exactly the same number, so a
/// cached total equals a freshly computed one.
pub(crate) fn round_cost(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// Totals of a session's kept records.
pub(crate) fn totals_of(sid: &str, log: &Log, recs: &[Rec], prices: &PriceTable) -> SessionTotals {
    tally(sid, log, recs, prices, None).0
}

/// One agent's running sums, by the log's indexes.
#[derive(Default)]
struct AgentAcc {
    tokens: Tokens,
    cost: f64,
    responses: u64,
    first_ms: i64,
    models: BTreeSet<u16>,
}

/// Totals and, when `dates` is given, cost by local date: one pass over
/// the records, each priced once, grouped by table index (this runs on the
/// status line's path after every new response).
fn tally(
    sid: &str,
    log: &Log,
    recs: &[Rec],
    prices: &PriceTable,
    mut dates: Option<&mut LocalDates>,
) -> (SessionTotals, BTreeMap<String, DayPart>) {
    let mut rates: Vec<Option<Option<Rates>>> = vec![None; log.models.len()];
    let mut agents: Vec<Option<AgentAcc>> = Vec::new();
    agents.resize_with(log.agents.len().max(1), || None);
    let mut used: BTreeSet<u16> = BTreeSet::new();
    let mut unknown: BTreeSet<u16> = BTreeSet::new();
    let mut by_date: BTreeMap<jiff::civil::Date, DayPart> = BTreeMap::new();
    let (mut first, mut last) = (i64::MAX, i64::MIN);
    for r in recs {
        let mi = usize::from(r.model);
        let cost = match rates.get_mut(mi) {
            Some(slot) => {
                let model = &log.models[mi];
                match slot.get_or_insert_with(|| prices.rates(model)) {
                    Some(rt) => super::pricing::price_with(
                        rt,
                        &r.usage(),
                        Some(r.ts_ms.div_euclid(1000)),
                        r.fast(),
                    )
                    .total(),
                    None => {
                        unknown.insert(r.model);
                        0.0
                    }
                }
            }
            None => {
                unknown.insert(r.model);
                0.0
            }
        };
        used.insert(r.model);
        let ai = usize::from(r.agent);
        if agents.len() <= ai {
            agents.resize_with(ai + 1, || None);
        }
        let a = agents[ai].get_or_insert_with(|| AgentAcc {
            first_ms: i64::MAX,
            ..AgentAcc::default()
        });
        a.tokens.add(&Tokens::of(r));
        a.cost += cost;
        a.responses += 1;
        a.first_ms = a.first_ms.min(r.ts_ms);
        a.models.insert(r.model);
        first = first.min(r.ts_ms);
        last = last.max(r.ts_ms);
        if let Some(d) = dates.as_deref_mut() {
            let p = by_date.entry(d.date(r.ts_ms)).or_default();
            p.cost += cost;
            p.tokens += r.total_tokens();
            p.responses += 1;
        }
    }
    let name = |i: &u16| -> String {
        match log.models.get(usize::from(*i)).map(String::as_str) {
            None | Some("") => "unknown".to_string(),
            Some(m) => m.to_string(),
        }
    };
    let sorted = |set: &BTreeSet<u16>| -> Vec<String> {
        let names: BTreeSet<String> = set.iter().map(name).collect();
        names.into_iter().collect()
    };
    let mut main = AgentTotals::default();
    let mut subagents = Vec::new();
    let mut all = Tokens::default();
    let (mut cost, mut responses) = (0.0, 0);
    for (i, acc) in agents.into_iter().enumerate() {
        let Some(acc) = acc else { continue };
        let id = log.agents.get(i).map_or("", String::as_str);
        let a = AgentTotals {
            agent_id: id.to_string(),
            agent_type: log
                .meta
                .get(&format!("agent_type:{id}"))
                .filter(|t| !t.is_empty())
                .cloned(),
            tokens: acc.tokens,
            cost: round_cost(acc.cost),
            responses: acc.responses,
            models: sorted(&acc.models),
            first: ts_string(acc.first_ms),
        };
        all.add(&a.tokens);
        cost += a.cost;
        responses += a.responses;
        // Several indexes may name the main thread after a table was
        // rebuilt, and the compaction calls work for it: one agent. Decided
        // here rather than when reading, so ledgers written before count
        // the same.
        if id.is_empty() || discover::is_compaction_agent(id) {
            main.tokens.add(&a.tokens);
            main.cost = round_cost(main.cost + a.cost);
            main.responses += a.responses;
            let mut m: BTreeSet<String> = main.models.drain(..).collect();
            m.extend(a.models);
            main.models = m.into_iter().collect();
            if main.first.is_empty() || a.first < main.first {
                main.first = a.first;
            }
        } else {
            subagents.push((acc.first_ms, a));
        }
    }
    subagents.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.agent_id.cmp(&b.1.agent_id)));
    let stamp = |ms: i64| {
        if recs.is_empty() {
            String::new()
        } else {
            ts_string(ms)
        }
    };
    let totals = SessionTotals {
        session_id: sid.to_string(),
        project: log.meta.get("project").cloned().unwrap_or_default(),
        cwd: log.meta.get("cwd").cloned().unwrap_or_default(),
        tokens: all,
        cost: round_cost(cost),
        responses,
        main,
        subagents: subagents.into_iter().map(|(_, a)| a).collect(),
        models: sorted(&used),
        unknown_models: sorted(&unknown),
        first: stamp(first),
        last: stamp(last),
        context_window: None,
        missing_files: 0,
    };
    let days = by_date
        .into_iter()
        .map(|(d, mut p)| {
            p.cost = round_cost(p.cost);
            (d.to_string(), p)
        })
        .collect();
    (totals, days)
}

/// Local dates of timestamps, cached by quarter hour: every zone's offset
/// is a multiple of 15 minutes, so one conversion serves a whole quarter.
/// Records come mostly in time order, so the last quarter answers first.
pub(crate) struct LocalDates {
    tz: jiff::tz::TimeZone,
    cache: HashMap<i64, jiff::civil::Date, std::hash::BuildHasherDefault<super::dedupe::KeyHasher>>,
    last: Option<(i64, jiff::civil::Date)>,
}

impl LocalDates {
    pub fn new(ctx: &Ctx) -> LocalDates {
        LocalDates {
            tz: ctx.tz(),
            cache: HashMap::default(),
            last: None,
        }
    }
    pub fn date(&mut self, ms: i64) -> jiff::civil::Date {
        let q = ms.div_euclid(900_000);
        if let Some((lq, d)) = self.last
            && lq == q
        {
            return d;
        }
        let d = *self.cache.entry(q).or_insert_with(|| {
            jiff::Timestamp::from_millisecond(q * 900_000)
                .map(|t| t.to_zoned(self.tz.clone()).date())
                .unwrap_or_default()
        });
        self.last = Some((q, d));
        d
    }
}

/// Sessions that exist only in the state folder (their transcripts are
/// gone, or are in a config folder not scanned this time).
pub(crate) fn state_sessions(ctx: &Ctx) -> Vec<(String, PathBuf)> {
    let dir = store::sessions_dir(&ctx.state_dir);
    let Ok(rd) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = rd
        .filter_map(Result::ok)
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "rec").then(|| {
                let stem = p.file_stem()?.to_string_lossy().into_owned();
                Some((stem, p))
            })?
        })
        .collect();
    out.sort();
    out
}
