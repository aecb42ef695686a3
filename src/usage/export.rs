//! `cairn usage export` and `--merge FILE…`: one machine's ledger as a
//! portable file, and other machines' files read back into a report.
//!
//! A record keeps the dedupe keys the ledger already computes (hashes of
//! the message id and request id, stable across machines and versions), so
//! merged files go through the same one-record-per-response rule as local
//! sessions: a transcript synced to two machines counts once, and two
//! machines' different sessions add up.
//!
//! The file is JSON, one object: `format`, `version`, `exported_at`,
//! `sessions`, each with its string tables and its records as arrays (keys
//! in hex, so tools that read numbers as doubles keep them exact), and
//! (since version 2) `memory`: the lines of the machine's memory ledger
//! (`<state>/ledger/memory.jsonl`), what its memory extraction cost. A
//! version 1 file, written before, reads as one without memory spend.
//!
//! A memory call has no id of its own; its line (time to the nanosecond,
//! backend, model, tokens) is one, so an export merged into the machine
//! that wrote it, or merged twice, counts each call once.

use super::aggregate;
use super::ledger::{self, Entry};
use super::store::{Log, Rec, Summary};
use crate::context::Ctx;
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FORMAT: &str = "cairn-usage-export";
pub const VERSION: u32 = 2;
/// The oldest version still read (1: no memory spend).
const OLDEST_READ: u32 = 1;

/// A merged file larger than this is refused rather than read whole.
const MAX_FILE_BYTES: u64 = 2 << 30;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExportFile {
    pub format: String,
    pub version: u32,
    pub exported_at: String,
    pub sessions: Vec<ExportSession>,
    /// The memory ledger's lines; absent from version 1 files.
    #[serde(default)]
    pub memory: Vec<Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExportSession {
    pub id: String,
    #[serde(default)]
    pub project: String,
    #[serde(default)]
    pub cwd: String,
    pub models: Vec<String>,
    pub agents: Vec<String>,
    /// `[key, msg, ts_ms, model, agent, flags, input, output,
    /// cache_write_5m, cache_write_1h, cache_read, web_search]`.
    pub recs: Vec<RecRow>,
}

pub type RecRow = (
    String,
    String,
    i64,
    u16,
    u16,
    u16,
    u32,
    u32,
    u32,
    u32,
    u32,
    u32,
);

fn row_of(r: &Rec) -> RecRow {
    (
        format!("{:016x}", r.key),
        format!("{:016x}", r.msg),
        r.ts_ms,
        r.model,
        r.agent,
        // The file index means nothing on another machine.
        r.flags,
        r.input,
        r.output,
        r.cache_write_5m,
        r.cache_write_1h,
        r.cache_read,
        r.web_search,
    )
}

fn rec_of(row: &RecRow) -> Result<Rec> {
    let hex = |s: &str| u64::from_str_radix(s, 16).with_context(|| format!("bad key `{s}`"));
    Ok(Rec {
        key: hex(&row.0)?,
        msg: hex(&row.1)?,
        ts_ms: row.2,
        model: row.3,
        agent: row.4,
        file: 0,
        flags: row.5,
        input: row.6,
        output: row.7,
        cache_write_5m: row.8,
        cache_write_1h: row.9,
        cache_read: row.10,
        web_search: row.11,
    })
}

/// Every session the ledger holds, as the export file's value. Callers
/// bring the ledger up to date first (a report does).
pub fn export(ctx: &Ctx) -> Result<ExportFile> {
    let mut sessions = Vec::new();
    for (stem, path) in aggregate::state_sessions(ctx) {
        let log = Log::load(&path)?;
        let recs = aggregate::fold(&log.recs);
        if recs.is_empty() {
            continue;
        }
        let id = Summary::load(&path.with_extension("json"))
            .map(|s| s.session_id)
            .unwrap_or(stem);
        sessions.push(ExportSession {
            id,
            project: log.meta.get("project").cloned().unwrap_or_default(),
            cwd: log.meta.get("cwd").cloned().unwrap_or_default(),
            models: log.models.clone(),
            agents: log.agents.clone(),
            recs: recs.iter().map(row_of).collect(),
        });
    }
    Ok(ExportFile {
        format: FORMAT.into(),
        version: VERSION,
        exported_at: ctx.clock.now().to_string(),
        sessions,
        memory: ledger::entries(&ctx.state_dir),
    })
}

/// A session read back from an export file: its identity and a record log
/// shaped like a local one, so the report adds it the same way.
pub struct Imported {
    /// Its file's index in [`Merged::sources`].
    pub origin: u32,
    pub id: String,
    pub project: String,
    pub cwd: String,
    pub log: Log,
}

/// What every `--merge` file holds, read once for a report.
#[derive(Default)]
pub struct Merged {
    pub sessions: Vec<Imported>,
    /// Memory calls, each with the index of its file in `sources`.
    pub memory: Vec<(Entry, u32)>,
    /// `this machine`, then each file's name, in the order given: where a
    /// memory call was made (each machine has its own daily budget).
    pub sources: Vec<String>,
}

/// The name a merged file's machine goes by on the page and in reports.
pub const THIS_MACHINE: &str = "this machine";

/// One export file's sessions and memory calls.
pub struct Parsed {
    pub sessions: Vec<Imported>,
    pub memory: Vec<Entry>,
}

pub fn parse(bytes: &[u8]) -> Result<Parsed> {
    let file: ExportFile = serde_json::from_slice(bytes).context("not a cairn usage export")?;
    if file.format != FORMAT {
        bail!("not a cairn usage export (format `{}`)", file.format);
    }
    if !(OLDEST_READ..=VERSION).contains(&file.version) {
        bail!(
            "usage export version {} is not supported by this cairn (expects {VERSION}); export again with the same version",
            file.version
        );
    }
    let mut out = Vec::with_capacity(file.sessions.len());
    for s in file.sessions {
        let mut log = Log::default();
        log.models = s.models;
        log.agents = s.agents;
        for row in &s.recs {
            let r = rec_of(row).with_context(|| format!("session {}", s.id))?;
            // An index past the tables would be read as "unknown" by the
            // report; refusing it says the file was edited or is torn.
            if usize::from(r.model) >= log.models.len().max(1)
                || usize::from(r.agent) >= log.agents.len().max(1)
            {
                bail!(
                    "session {}: a record names a model or agent the file does not list",
                    s.id
                );
            }
            log.recs.push(r);
        }
        out.push(Imported {
            origin: 0,
            id: s.id,
            project: s.project,
            cwd: s.cwd,
            log,
        });
    }
    Ok(Parsed {
        sessions: out,
        memory: file.memory,
    })
}

/// Every `--merge` file, in the order given.
pub fn read_all(paths: &[PathBuf]) -> Result<Merged> {
    let mut out = Merged {
        sources: vec![THIS_MACHINE.to_string()],
        ..Merged::default()
    };
    for p in paths {
        let parsed = read(p)?;
        let origin = out.sources.len() as u32;
        out.sources.push(
            p.file_name()
                .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into()),
        );
        out.sessions.extend(
            parsed
                .sessions
                .into_iter()
                .map(|s| Imported { origin, ..s }),
        );
        out.memory
            .extend(parsed.memory.into_iter().map(|e| (e, origin)));
    }
    Ok(out)
}

/// This machine's memory calls (origin 0) and the merged files' ones, each
/// call once: the first source that holds it keeps it.
pub fn memory_calls(local: Vec<Entry>, merged: Vec<(Entry, u32)>) -> Vec<(Entry, u32)> {
    let mut seen = std::collections::HashSet::new();
    local
        .into_iter()
        .map(|e| (e, 0))
        .chain(merged)
        .filter(|(e, _)| {
            seen.insert((
                e.ts.clone(),
                e.kind.clone(),
                e.backend.clone(),
                e.model.clone(),
                [
                    e.input_tokens,
                    e.output_tokens,
                    e.cache_write_tokens,
                    e.cache_read_tokens,
                ],
            ))
        })
        .collect()
}

fn read(path: &Path) -> Result<Parsed> {
    // A regular file only: a FIFO named by mistake would block the report.
    let bytes = crate::fsutil::confine::read_regular(path, MAX_FILE_BYTES).map_err(|e| {
        if e.kind() == std::io::ErrorKind::FileTooLarge {
            anyhow::anyhow!("--merge file {} is larger than 2 GiB", path.display())
        } else {
            anyhow::Error::new(e).context(format!("cannot read --merge file {}", path.display()))
        }
    })?;
    parse(&bytes).with_context(|| format!("--merge file {}", path.display()))
}

/// `cairn usage export [--out FILE]`: the ledger brought up to date, then
/// written (stdout when no file is named).
pub fn run(ctx: &Ctx, out: Option<&Path>) -> Result<String> {
    super::report::refresh(ctx, &super::ReportOptions::new(super::ReportKind::Daily))?;
    let file = export(ctx)?;
    let json = serde_json::to_string(&file).context("cannot serialise the export")?;
    match out {
        None => Ok(json + "\n"),
        Some(p) => {
            crate::fsutil::atomic_write(p, json.as_bytes())
                .with_context(|| format!("cannot write {}", p.display()))?;
            let recs: usize = file.sessions.iter().map(|s| s.recs.len()).sum();
            let calls = file.memory.iter().filter(|e| e.kind == "memory").count();
            Ok(format!(
                "Wrote {} ({} sessions, {} responses, {} memory call{}). Merge it elsewhere with `cairn usage daily --merge {}`.\n",
                p.display(),
                file.sessions.len(),
                recs,
                calls,
                if calls == 1 { "" } else { "s" },
                p.display()
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(key: u64, out: u32) -> Rec {
        Rec {
            key,
            msg: key.wrapping_add(1000),
            ts_ms: 1_764_000_000_000 + (key % 1000) as i64,
            input: 10,
            output: out,
            cache_read: 7,
            ..Rec::default()
        }
    }

    #[test]
    fn a_session_survives_the_round_trip() {
        let file = ExportFile {
            format: FORMAT.into(),
            version: VERSION,
            exported_at: "2026-12-01T00:00:00Z".into(),
            sessions: vec![ExportSession {
                id: "s1".into(),
                project: "p".into(),
                cwd: "/w/p".into(),
                models: vec!["claude-opus-4-5".into()],
                agents: vec![String::new()],
                recs: vec![row_of(&rec(u64::MAX - 3, 5)), row_of(&rec(2, 9))],
            }],
            memory: vec![memory_call("2026-12-01T10:00:00.123456789Z", 0.02)],
        };
        let back = parse(&serde_json::to_vec(&file).unwrap()).unwrap();
        assert_eq!(back.sessions.len(), 1);
        let s = &back.sessions[0];
        assert_eq!(s.log.recs, vec![rec(u64::MAX - 3, 5), rec(2, 9)]);
        assert_eq!(s.cwd, "/w/p");
        assert_eq!(back.memory, file.memory);
    }

    fn memory_call(ts: &str, usd: f64) -> Entry {
        Entry {
            ts: ts.into(),
            date: ts[..10].into(),
            kind: "memory".into(),
            backend: "anthropic/memory".into(),
            model: "claude-haiku-4-5".into(),
            input_tokens: 4000,
            output_tokens: 300,
            cache_write_tokens: 0,
            cache_read_tokens: 0,
            usd: Some(usd),
        }
    }

    /// Files written before memory spend was exported still merge.
    #[test]
    fn a_version_1_file_reads_without_memory_spend() {
        let v1 = r#"{"format":"cairn-usage-export","version":1,"exported_at":"2026-11-30T00:00:00Z","sessions":[
            {"id":"s","project":"p","cwd":"/w/p","models":["m"],"agents":[""],"recs":[["01","02",1,0,0,0,1,1,0,0,0,0]]}]}"#;
        let back = parse(v1.as_bytes()).unwrap();
        assert_eq!(back.sessions.len(), 1);
        assert!(back.memory.is_empty());
    }

    #[test]
    fn a_memory_call_on_two_machines_counts_once() {
        let a = memory_call("2026-12-01T10:00:00.1Z", 0.02);
        let b = memory_call("2026-12-01T11:00:00.2Z", 0.03);
        let c = memory_call("2026-12-01T12:00:00.3Z", 0.04);
        // This machine's own export merged back, and a laptop's file twice.
        let merged = vec![
            (a.clone(), 1),
            (b.clone(), 2),
            (c.clone(), 2),
            (c.clone(), 3),
        ];
        let all = memory_calls(vec![a.clone(), b.clone()], merged);
        assert_eq!(all, vec![(a, 0), (b, 0), (c, 2)]);
    }

    #[test]
    fn foreign_or_torn_files_are_refused_with_a_reason() {
        let e = parse(br#"{"format":"x","version":1,"exported_at":"","sessions":[]}"#)
            .err()
            .unwrap();
        assert!(format!("{e:#}").contains("format `x`"), "{e:#}");
        let e =
            parse(br#"{"format":"cairn-usage-export","version":9,"exported_at":"","sessions":[]}"#)
                .err()
                .unwrap();
        assert!(format!("{e:#}").contains("version 9"), "{e:#}");
        let bad = r#"{"format":"cairn-usage-export","version":1,"exported_at":"","sessions":[
            {"id":"s","models":["m"],"agents":[""],"recs":[["01","02",1,3,0,0,1,1,0,0,0,0]]}]}"#;
        let e = parse(bad.as_bytes()).err().unwrap();
        assert!(format!("{e:#}").contains("does not list"), "{e:#}");
    }
}
