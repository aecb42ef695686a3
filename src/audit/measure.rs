//! Real runs of a skill, measured from the user's transcripts (SPEC §3.4,
//! research §3).
//!
//! A run starts at a `<command-name>` record confirmed by the injected body
//! (the user typed `/name`), or just after the response that called the
//! Skill tool (the model invoked it), or at the first response carrying
//! `attributionSkill` when no marker was seen. It ends at the next human
//! prompt or the next skill. Responses are deduplicated by message id +
//! request id, the largest usage kept. On clients that write
//! `attributionSkill` (2.1.181+), only responses attributed to the skill
//! count; on older ones every response of the interval does. Subagent
//! files of a session are added to the run they ran in: by attribution,
//! else by time.
//!
//! Every transcript is scanned once: what each file holds about skill runs
//! (of any skill) is kept in `<state>/audit/scan.json` with the byte offset
//! reached, and a later audit reads only what was appended since.

use crate::context::Ctx;
use crate::transcript::mark::{FileStat, Head, ReadMark};
use crate::transcript::{Block, Record, StreamReader, Usage};
use crate::usage::PriceTable;
use crate::usage::discover::{self, SessionFiles};
use anyhow::Result;
use memchr::memmem;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

const SCAN_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Via {
    /// `/name` typed by the user.
    Slash,
    /// The model called the Skill tool.
    Tool,
    /// Only `attributionSkill` showed it (after a compaction, say).
    Attribution,
}

/// One deduplicated API response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resp {
    pub key: u64,
    pub model: String,
    pub ts_ms: i64,
    pub usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attr: Option<String>,
    /// What the response did: `Read notes.md`, `Bash`, `text`.
    pub step: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub skill: String,
    pub via: Via,
    pub start_ms: i64,
    /// The closing prompt's time, `i64::MAX` while open.
    pub end_ms: i64,
    pub resp: Vec<Resp>,
}

/// What is remembered of one transcript file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct FileScan {
    size: u64,
    mtime_ns: u64,
    ino: u64,
    head: u64,
    offset: u64,
    /// Bytes `head` covers. Scans written before it was kept hashed the
    /// first `min(size, 1 KiB)` bytes, which is what `None` stands for.
    #[serde(default)]
    head_len: Option<u64>,
    runs: Vec<Run>,
    /// The last run is still open (no human prompt after it yet).
    open: bool,
    /// A `/name` tag waiting for its injected body: (name, time).
    pending_slash: Option<(String, i64)>,
    /// A Skill call: the run opens once the calling response is over.
    pending_tool: Option<(String, u64)>,
    /// Subagent files: every response (they are attributed at report time).
    agent: Vec<Resp>,
    /// Whether `agent` is being filled (only for sessions that ran a skill).
    #[serde(default)]
    full: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ScanCache {
    v: u32,
    files: BTreeMap<String, FileScan>,
}

/// Counters of one scan, for the report and the benchmark note.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub files: u64,
    pub bytes_total: u64,
    pub bytes_read: u64,
    pub sessions: u64,
}

/// One run of the audited skill, measured.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTotals {
    pub session: String,
    pub via: Via,
    pub start_ms: i64,
    pub responses: usize,
    pub usage: Usage,
    pub tokens: u64,
    pub cost: f64,
    /// Fresh input ×1, cache reads ×0.1, output ×5: the seed's units in
    /// steady state, comparable with the estimate's cache view.
    pub units: u64,
    pub model: String,
    pub steps: Vec<(String, u64, u64)>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measured {
    pub runs: Vec<RunTotals>,
    pub stats: ScanStats,
}

fn cache_path(ctx: &Ctx) -> PathBuf {
    crate::state_layout::audit_scan(&ctx.state_dir)
}

/// Scans (incrementally) every transcript under the client's config
/// folders and returns the runs of `skill`.
pub fn measure(ctx: &Ctx, prices: &PriceTable, skill: &str) -> Result<Measured> {
    let dirs = discover::config_dirs(ctx);
    let sessions = discover::all_sessions(ctx, &dirs);
    measure_sessions(ctx, prices, skill, &sessions)
}

pub fn measure_sessions(
    ctx: &Ctx,
    prices: &PriceTable,
    skill: &str,
    sessions: &BTreeMap<String, SessionFiles>,
) -> Result<Measured> {
    let path = cache_path(ctx);
    std::fs::create_dir_all(path.parent().expect("has parent"))?;
    let _lock = crate::fsutil::lock(&path.with_extension("lock"))?;
    let mut cache: ScanCache = crate::fsutil::confine::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .filter(|c: &ScanCache| c.v == SCAN_VERSION)
        .unwrap_or_default();
    cache.v = SCAN_VERSION;
    let mut stats = ScanStats::default();
    let mut changed = false;
    let mut live: HashSet<String> = HashSet::new();
    let mut out = Vec::new();

    for (sid, s) in sessions {
        let Some(main) = s.files.iter().find(|f| f.agent.is_empty()) else {
            continue;
        };
        stats.sessions += 1;
        let key = main.path.display().to_string();
        live.insert(key.clone());
        let scan = cache.files.entry(key).or_default();
        changed |= refresh(&main.path, scan, Mode::Main, &mut stats);
        let runs = scan.runs.clone();
        // Every response of a subagent is kept only for sessions whose main
        // thread ran a skill (they join its runs); elsewhere a subagent file
        // is only searched for runs of its own (a skill the agent called).
        let full = !runs.is_empty();
        let mut agents: Vec<Resp> = Vec::new();
        let mut agent_runs: Vec<Run> = Vec::new();
        for f in s.files.iter().filter(|f| !f.agent.is_empty()) {
            let k = f.path.display().to_string();
            live.insert(k.clone());
            let a = cache.files.entry(k).or_default();
            changed |= refresh(&f.path, a, Mode::Agent { full }, &mut stats);
            if full {
                agents.extend(a.agent.iter().cloned());
            } else {
                agent_runs.extend(a.runs.iter().cloned());
            }
        }
        for run in runs.iter().filter(|r| same_skill(&r.skill, skill)) {
            out.push(totals(sid, run, &agents, skill, prices));
        }
        for run in agent_runs.iter().filter(|r| same_skill(&r.skill, skill)) {
            out.push(totals(sid, run, &[], skill, prices));
        }
    }
    let before = cache.files.len();
    cache.files.retain(|k, _| live.contains(k));
    changed |= cache.files.len() != before;
    if changed {
        crate::fsutil::atomic_write_unsynced(&path, &serde_json::to_vec(&cache)?)?;
    }
    out.sort_by_key(|r| r.start_ms);
    Ok(Measured { runs: out, stats })
}

/// `superpowers:brainstorming` is the run of `brainstorming` too.
pub fn same_skill(run: &str, wanted: &str) -> bool {
    let bare = |s: &str| {
        s.trim_start_matches('/')
            .rsplit(':')
            .next()
            .unwrap_or("")
            .to_string()
    };
    run == wanted || bare(run) == bare(wanted)
}

/// The scan's file fingerprint: its hash of the file's first KiB.
const HEAD: Head = Head {
    bytes: 1024,
    hash: head_hash,
};

fn head_hash(bytes: &[u8]) -> u64 {
    crate::usage::store::hash(&[bytes])
}

impl FileScan {
    fn mark(&self) -> ReadMark {
        ReadMark {
            offset: self.offset,
            head: self.head,
            head_len: self.head_len.unwrap_or(self.size.min(HEAD.bytes)),
        }
    }

    fn set_mark(&mut self, m: ReadMark) {
        (self.offset, self.head, self.head_len) = (m.offset, m.head, Some(m.head_len));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Main,
    /// `full`: keep every response, not only those of runs.
    Agent {
        full: bool,
    },
}

/// Brings one file's scan up to date; true when it changed.
fn refresh(path: &Path, scan: &mut FileScan, mode: Mode, stats: &mut ScanStats) -> bool {
    stats.files += 1;
    let Some(now) = FileStat::of(path) else {
        return false;
    };
    stats.bytes_total += now.size;
    let full = matches!(mode, Mode::Agent { full: true });
    // A subagent file scanned without its responses is read again, once,
    // when its session turns out to need them.
    let upgrade = full && !scan.full;
    let same_file = scan.ino == now.ino && scan.mark().holds(path, now.size, &HEAD);
    if !upgrade && same_file && scan.size == now.size && scan.mtime_ns == now.mtime_ns {
        return false;
    }
    // Appended to: resume. Replaced or truncated: start again.
    if upgrade || !same_file {
        *scan = FileScan::default();
    }
    scan.full |= full;
    let mut mark = scan.mark();
    let from = mark.offset;
    let mut reader = match StreamReader::open(path, from) {
        Ok(r) => r,
        Err(_) => return false,
    };
    let mut st = State::from(std::mem::take(scan));
    while let Ok(Some(line)) = reader.next_line() {
        st.main_line(line.bytes);
        if full {
            st.agent_line(line.bytes);
        }
    }
    *scan = st.into_scan();
    // Unreadable now: the head stays shorter, and still vouches for what
    // it covers.
    let _ = mark.advance(path, reader.offset(), &HEAD, &[]);
    scan.set_mark(mark);
    stats.bytes_read += mark.offset.saturating_sub(from);
    scan.size = now.size;
    scan.mtime_ns = now.mtime_ns;
    scan.ino = now.ino;
    true
}

/// The scanner of one file, resumable through [`FileScan`].
struct State {
    scan: FileScan,
    /// key → index in the open run.
    index: HashMap<u64, usize>,
    /// key → index in `agent`.
    agent_index: HashMap<u64, usize>,
    skill_needle: memmem::Finder<'static>,
    command_needle: memmem::Finder<'static>,
}

impl State {
    fn from(scan: FileScan) -> State {
        let mut index = HashMap::new();
        if scan.open
            && let Some(r) = scan.runs.last()
        {
            for (i, x) in r.resp.iter().enumerate() {
                index.insert(x.key, i);
            }
        }
        let agent_index = scan
            .agent
            .iter()
            .enumerate()
            .map(|(i, x)| (x.key, i))
            .collect();
        State {
            scan,
            index,
            agent_index,
            skill_needle: memmem::Finder::new(b"Skill\""),
            command_needle: memmem::Finder::new(b"command-name>"),
        }
    }

    fn into_scan(self) -> FileScan {
        self.scan
    }

    fn agent_line(&mut self, line: &[u8]) {
        let Some(rec) = Record::parse(line) else {
            return;
        };
        let Some(resp) = response(&rec, line) else {
            return;
        };
        match self.agent_index.get(&resp.key) {
            Some(&i) => merge(&mut self.scan.agent[i], &resp),
            None => {
                self.agent_index.insert(resp.key, self.scan.agent.len());
                self.scan.agent.push(resp);
            }
        }
    }

    fn main_line(&mut self, line: &[u8]) {
        let quiet = !self.scan.open
            && self.scan.pending_slash.is_none()
            && self.scan.pending_tool.is_none();
        // Outside a run only markers matter: most lines are skipped unparsed.
        if quiet
            && self.skill_needle.find(line).is_none()
            && self.command_needle.find(line).is_none()
        {
            return;
        }
        let Some(rec) = Record::parse(line) else {
            return;
        };
        let ts = rec.timestamp.as_deref().map(ts_ms).unwrap_or(0);
        if rec.is_user() {
            self.user(&rec, line, ts);
        } else if rec.is_assistant() && !rec.is_synthetic() && !rec.is_api_error_message {
            self.assistant(&rec, line, ts);
        } else if rec.is_compact_boundary() {
            self.scan.pending_slash = None;
        }
    }

    fn user(&mut self, rec: &Record, line: &[u8], ts: i64) {
        let text: String = rec.content().texts().collect::<Vec<_>>().join("\n");
        let only_results = !rec.content().blocks().is_empty()
            && rec
                .content()
                .blocks()
                .iter()
                .all(|b| matches!(b, Block::ToolResult(_)));
        // The Skill call's result: the run starts now, under the name the
        // client resolved (`commandName`).
        if only_results {
            if let Some((name, _)) = self.scan.pending_tool.take() {
                let resolved = json_str(line, b"\"commandName\":\"").unwrap_or(name);
                self.open(resolved, Via::Tool, ts);
            }
            return;
        }
        if let Some(name) = tag(&text, "command-name") {
            self.close(ts);
            let name = name.trim().trim_start_matches('/').to_string();
            if text.contains("<command-contents>") {
                self.open(name, Via::Slash, ts);
            } else {
                self.scan.pending_slash = Some((name, ts));
            }
            return;
        }
        if let Some((name, at)) = self.scan.pending_slash.take() {
            // The injected body confirms a skill or command; a client
            // command (`/compact`, `/mcp`) prints local output instead.
            let local = text.trim_start().starts_with("<local-command") || rec.is_compact_summary;
            if !local && (rec.is_meta || !text.is_empty()) {
                self.open(name, Via::Slash, at);
                return;
            }
        }
        if rec.is_meta || rec.is_compact_summary || rec.is_visible_in_transcript_only {
            return;
        }
        let t = text.trim_start();
        let system = t.starts_with("<local-command")
            || t.starts_with("<task-notification")
            || t.starts_with("<system-reminder")
            || rec.origin_kind.as_deref().is_some_and(|k| k != "human");
        if !t.is_empty() && !system {
            self.close(ts);
            self.scan.pending_tool = None;
        }
    }

    fn assistant(&mut self, rec: &Record, line: &[u8], ts: i64) {
        let Some(resp) = response(rec, line) else {
            return;
        };
        if let Some((name, at)) = self.scan.pending_slash.take() {
            self.open(name, Via::Slash, at);
        }
        if let Some((name, key)) = self.scan.pending_tool.clone()
            && key != resp.key
        {
            self.scan.pending_tool = None;
            self.open(name, Via::Tool, ts);
        }
        // A response attributed to another skill than the open run's (or
        // with no run open): that skill's run, even without a marker.
        if let Some(a) = &resp.attr {
            let same = self.scan.open
                && self
                    .scan
                    .runs
                    .last()
                    .is_some_and(|r| same_skill(&r.skill, a));
            let pending = self
                .scan
                .pending_tool
                .as_ref()
                .is_some_and(|(_, k)| *k == resp.key);
            if !same && !pending {
                self.open(a.clone(), Via::Attribution, ts);
            }
        }
        let skill_call = skill_call(rec, line);
        let calling = self
            .scan
            .pending_tool
            .as_ref()
            .is_some_and(|(_, k)| *k == resp.key);
        if self.scan.open && !calling {
            let run = self.scan.runs.last_mut().expect("open run");
            match self.index.get(&resp.key) {
                Some(&i) => merge(&mut run.resp[i], &resp),
                None => {
                    self.index.insert(resp.key, run.resp.len());
                    run.resp.push(resp.clone());
                }
            }
        }
        // The calling response belongs before the skill (to the run open
        // then, if any): the skill's run opens once it is over.
        if let Some(name) = skill_call {
            self.scan.pending_tool = Some((name, resp.key));
        }
    }

    fn open(&mut self, skill: String, via: Via, ts: i64) {
        self.close(ts);
        self.scan.runs.push(Run {
            skill,
            via,
            start_ms: ts,
            end_ms: i64::MAX,
            resp: Vec::new(),
        });
        self.scan.open = true;
        self.index.clear();
    }

    fn close(&mut self, ts: i64) {
        if self.scan.open {
            if let Some(r) = self.scan.runs.last_mut() {
                r.end_ms = ts.max(r.start_ms);
            }
            self.scan.open = false;
            self.index.clear();
        }
    }
}

fn merge(into: &mut Resp, from: &Resp) {
    into.usage.max_with(&from.usage);
    if into.attr.is_none() {
        into.attr.clone_from(&from.attr);
    }
    if into.step == "text" && from.step != "text" {
        into.step.clone_from(&from.step);
    } else if from.step != "text" && !into.step.contains(&from.step) {
        into.step = format!("{} + {}", into.step, from.step);
    }
}

fn response(rec: &Record, line: &[u8]) -> Option<Resp> {
    if !rec.is_assistant() || rec.is_synthetic() {
        return None;
    }
    let usage = *rec.usage()?;
    let id = rec.message_id().unwrap_or("");
    let req = rec.request_id.as_deref().unwrap_or("");
    let key = if id.is_empty() {
        crate::usage::store::hash(&[line])
    } else {
        crate::usage::store::hash(&[id.as_bytes(), b"\0", req.as_bytes()])
    };
    let mut step = String::from("text");
    for b in rec.content().blocks() {
        if let Block::ToolUse(t) = b {
            let arg = t
                .input
                .file_path
                .as_deref()
                .map(|p| p.rsplit('/').next().unwrap_or(p).to_string())
                .or_else(|| t.input.subagent_type.as_deref().map(str::to_string))
                .or_else(|| {
                    t.input
                        .command
                        .as_deref()
                        .map(|c| c.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
                });
            let s = match arg {
                Some(a) if !a.is_empty() => {
                    format!("{} {}", t.name, crate::format::truncate_tail(&a, 40))
                }
                _ => t.name.to_string(),
            };
            step = if step == "text" {
                s
            } else {
                format!("{step} + {s}")
            };
        }
    }
    Some(Resp {
        key,
        model: rec.model().unwrap_or("").to_string(),
        ts_ms: rec.timestamp.as_deref().map(ts_ms).unwrap_or(0),
        usage,
        attr: json_str(line, b"\"attributionSkill\":\""),
        step,
    })
}

/// The skill a Skill tool call names (`input.skill`).
fn skill_call(rec: &Record, line: &[u8]) -> Option<String> {
    let has = rec
        .content()
        .blocks()
        .iter()
        .any(|b| matches!(b, Block::ToolUse(t) if t.name == "Skill"));
    if !has {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    v.pointer("/message/content")?
        .as_array()?
        .iter()
        .filter(|b| b.get("name").and_then(|n| n.as_str()) == Some("Skill"))
        .find_map(|b| b.pointer("/input/skill").and_then(|s| s.as_str()))
        .map(|s| s.trim_start_matches('/').to_string())
}

/// The string value following `prefix` (a `"key":"` pattern) on the line.
fn json_str(line: &[u8], prefix: &[u8]) -> Option<String> {
    let i = memmem::find(line, prefix)? + prefix.len();
    let rest = &line[i..];
    let end = memchr::memchr(b'"', rest)?;
    let s = std::str::from_utf8(&rest[..end]).ok()?;
    (!s.is_empty() && !s.contains('\\')).then(|| s.to_string())
}

fn tag(text: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let i = text.find(&open)? + open.len();
    let j = text[i..].find(&close)? + i;
    Some(text[i..j].to_string())
}

fn ts_ms(s: &str) -> i64 {
    s.parse::<jiff::Timestamp>()
        .map(|t| t.as_millisecond())
        .unwrap_or(0)
}

fn cache_write(u: &Usage) -> u64 {
    u.cache_creation_input_tokens
        .max(u.cache_creation_5m + u.cache_creation_1h)
}

/// Every token of a response: input, cache writes, cache reads, output.
pub fn usage_tokens(u: &Usage) -> u64 {
    u.input_tokens + cache_write(u) + u.cache_read_input_tokens + u.output_tokens
}

fn totals(sid: &str, run: &Run, agents: &[Resp], skill: &str, prices: &PriceTable) -> RunTotals {
    let attributed = run.resp.iter().any(|r| r.attr.is_some());
    let mut picked: Vec<&Resp> = run
        .resp
        .iter()
        .filter(|r| !attributed || r.attr.as_deref().is_some_and(|a| same_skill(a, skill)))
        .collect();
    for a in agents {
        let in_time = a.ts_ms >= run.start_ms && a.ts_ms <= run.end_ms;
        let ok = match &a.attr {
            Some(x) => same_skill(x, skill) && in_time,
            None => in_time && !attributed,
        };
        if ok {
            picked.push(a);
        }
    }
    let mut seen = HashSet::new();
    picked.retain(|r| seen.insert(r.key));
    let mut usage = Usage::default();
    let (mut cost, mut tokens, mut units) = (0.0, 0u64, 0f64);
    let mut by_model: BTreeMap<&str, u64> = BTreeMap::new();
    let mut steps: Vec<(String, u64, u64)> = Vec::new();
    for r in &picked {
        let u = &r.usage;
        usage.input_tokens += u.input_tokens;
        usage.output_tokens += u.output_tokens;
        usage.cache_creation_input_tokens += cache_write(u);
        usage.cache_read_input_tokens += u.cache_read_input_tokens;
        usage.cache_creation_5m += u.cache_creation_5m;
        usage.cache_creation_1h += u.cache_creation_1h;
        let t = usage_tokens(u);
        tokens += t;
        let w = (u.input_tokens + cache_write(u)) as f64
            + u.cache_read_input_tokens as f64 * 0.1
            + u.output_tokens as f64 * 5.0;
        units += w;
        cost += prices
            .price(&r.model, u, Some(r.ts_ms / 1000), false)
            .total();
        *by_model.entry(r.model.as_str()).or_default() += t;
        steps.push((r.step.clone(), t, w.round() as u64));
    }
    let model = by_model
        .iter()
        .max_by_key(|(_, t)| **t)
        .map(|(m, _)| m.to_string())
        .unwrap_or_default();
    RunTotals {
        session: sid.to_string(),
        via: run.via,
        start_ms: run.start_ms,
        responses: picked.len(),
        usage,
        tokens,
        cost,
        units: units.round() as u64,
        model,
        steps,
    }
}

/// Median and 90th percentile (nearest rank) of `v`.
pub fn median_p90(mut v: Vec<f64>) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    let rank = ((0.9 * n as f64).ceil() as usize).clamp(1, n);
    (median, v[rank - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append(p: &Path, text: &str) {
        use std::io::Write;
        std::fs::OpenOptions::new()
            .append(true)
            .open(p)
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }

    #[test]
    fn a_file_is_resumed_when_appended_and_read_again_when_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, "{\"type\":\"user\"}\n").unwrap();
        let mut scan = FileScan::default();
        let mut st = ScanStats::default();
        assert!(refresh(&p, &mut scan, Mode::Main, &mut st));
        assert_eq!((scan.offset, scan.head_len), (16, Some(16)));
        assert!(!refresh(&p, &mut scan, Mode::Main, &mut st), "unchanged");

        append(&p, "{\"type\":\"assistant\"}\n");
        let before = st.bytes_read;
        assert!(refresh(&p, &mut scan, Mode::Main, &mut st));
        assert_eq!(st.bytes_read - before, 21, "only the appended line");

        // Longer than what was read, so only the head tells.
        std::fs::write(&p, "{\"type\":\"system\"}\n".repeat(3)).unwrap();
        let before = st.bytes_read;
        assert!(refresh(&p, &mut scan, Mode::Main, &mut st));
        assert_eq!(st.bytes_read - before, 54, "a replaced file from 0");
    }

    /// Scans of older versions have no `head_len`: their head covered the
    /// first `min(size, 1 KiB)` bytes, so an appended file still resumes.
    #[test]
    fn a_scan_written_without_head_len_still_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        let first = "{\"type\":\"user\"}\n";
        std::fs::write(&p, first).unwrap();
        let now = FileStat::of(&p).unwrap();
        let old = serde_json::json!({
            "size": now.size, "mtime_ns": 0, "ino": now.ino,
            "head": head_hash(first.as_bytes()), "offset": now.size,
            "runs": [], "open": false, "pending_slash": null, "pending_tool": null,
            "agent": [],
        });
        let mut scan: FileScan = serde_json::from_value(old).unwrap();
        assert_eq!(scan.mark().head_len, now.size);
        append(&p, "{\"type\":\"assistant\"}\n");
        let mut st = ScanStats::default();
        assert!(refresh(&p, &mut scan, Mode::Main, &mut st));
        assert_eq!(st.bytes_read, 21, "resumed, not read again");
        assert_eq!(scan.head_len, Some(37));
    }

    #[test]
    fn percentiles() {
        assert_eq!(median_p90(vec![3.0, 1.0, 2.0]), (2.0, 3.0));
        assert_eq!(median_p90(vec![1.0, 2.0, 3.0, 4.0]), (2.5, 4.0));
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median_p90(v), (5.5, 9.0));
        assert_eq!(median_p90(vec![]), (0.0, 0.0));
    }

    #[test]
    fn names_match_across_plugin_prefixes() {
        assert!(same_skill("superpowers:brainstorming", "brainstorming"));
        assert!(same_skill("x", "/x"));
        assert!(!same_skill("xy", "x"));
    }

    #[test]
    fn tags_and_json_strings() {
        assert_eq!(
            tag("<command-name>/a</command-name>", "command-name").as_deref(),
            Some("/a")
        );
        assert_eq!(
            json_str(
                br#"{"attributionSkill":"rapport","x":1}"#,
                b"\"attributionSkill\":\""
            )
            .as_deref(),
            Some("rapport")
        );
        assert_eq!(json_str(b"{}", b"\"attributionSkill\":\""), None);
    }
}
