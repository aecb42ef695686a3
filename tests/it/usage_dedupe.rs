//! Dedupe proven on the lab's real transcripts (2.1.332, 2.1.112, 2.0.77,
//! 1.0.128): summing usage per line over-counts; cairn's totals equal the
//! per-response sums computed here by an independent, deliberately naive
//! reader (serde_json::Value, no cairn code).

use crate::common;
use cairn::context::Ctx;
use cairn::usage::{ReportKind, ReportOptions, report_with, session_totals};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/usage")
        .join(name)
}

fn ctx_for(config: &Path, state: &Path) -> Ctx {
    let mut env = common::lib_env(state, &state.join("home"));
    env.set("CLAUDE_CONFIG_DIR", &config.display().to_string());
    common::ctx_at(env, "2026-12-01T00:00:00Z")
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct T {
    input: u64,
    output: u64,
    cache_write: u64,
    cache_read: u64,
}

impl T {
    fn total(&self) -> u64 {
        self.input + self.output + self.cache_write + self.cache_read
    }
    fn add(&mut self, o: &T) {
        self.input += o.input;
        self.output += o.output;
        self.cache_write += o.cache_write;
        self.cache_read += o.cache_read;
    }
}

/// Every usage line of every `.jsonl` under `dir`: (session of the file,
/// key, tokens). The session is the main file's stem, the session folder's
/// name, or (flat `agent-*.jsonl`) the records' `sessionId`.
fn usage_lines(dir: &Path, out: &mut Vec<(String, (String, String), T)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            usage_lines(&p, out);
            continue;
        }
        if p.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if v["type"] != "assistant" || v["isApiErrorMessage"] == true {
                continue;
            }
            let msg = &v["message"];
            let u = &msg["usage"];
            if !u.is_object() || msg["model"] == "<synthetic>" || !v["timestamp"].is_string() {
                continue;
            }
            let n = |k: &str| u[k].as_u64().unwrap_or(0);
            let t = T {
                input: n("input_tokens"),
                output: n("output_tokens"),
                cache_write: n("cache_creation_input_tokens"),
                cache_read: n("cache_read_input_tokens"),
            };
            let session = v["sessionId"].as_str().unwrap().to_string();
            let key = (
                msg["id"].as_str().unwrap_or("").to_string(),
                v["requestId"].as_str().unwrap_or("").to_string(),
            );
            out.push((session, key, t));
        }
    }
}

/// Naive per-line sums and per-response sums (largest usage per key),
/// overall and by session.
fn expected(config: &Path) -> (T, T, HashMap<String, T>) {
    let mut lines = Vec::new();
    usage_lines(&config.join("projects"), &mut lines);
    let mut naive = T::default();
    let mut best: HashMap<(String, String), (String, T)> = HashMap::new();
    for (s, k, t) in &lines {
        naive.add(t);
        let e = best.entry(k.clone()).or_insert((s.clone(), *t));
        if t.total() > e.1.total() {
            e.1 = *t;
        }
    }
    let mut deduped = T::default();
    let mut by_session: HashMap<String, T> = HashMap::new();
    for (s, t) in best.values() {
        deduped.add(t);
        by_session.entry(s.clone()).or_default().add(t);
    }
    (naive, deduped, by_session)
}

fn json_totals(v: &Value) -> T {
    let t = &v["totals"];
    T {
        input: t["inputTokens"].as_u64().unwrap(),
        output: t["outputTokens"].as_u64().unwrap(),
        cache_write: t["cacheCreationTokens"].as_u64().unwrap(),
        cache_read: t["cacheReadTokens"].as_u64().unwrap(),
    }
}

fn check_layout(name: &str) -> (T, T) {
    let config = fixture(name);
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(&config, state.path());
    let (naive, deduped, by_session) = expected(&config);

    let mut opts = ReportOptions::new(ReportKind::Daily);
    opts.json = true;
    let v: Value = serde_json::from_str(&report_with(&ctx, &opts).unwrap()).unwrap();
    assert_eq!(json_totals(&v), deduped, "{name}: daily totals");
    opts.kind = ReportKind::Session;
    let v: Value = serde_json::from_str(&report_with(&ctx, &opts).unwrap()).unwrap();
    assert_eq!(json_totals(&v), deduped, "{name}: session totals");
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), by_session.len(), "{name}");
    for s in sessions {
        let id = s["sessionId"].as_str().unwrap();
        let want = by_session[id];
        let got = T {
            input: s["inputTokens"].as_u64().unwrap(),
            output: s["outputTokens"].as_u64().unwrap(),
            cache_write: s["cacheCreationTokens"].as_u64().unwrap(),
            cache_read: s["cacheReadTokens"].as_u64().unwrap(),
        };
        assert_eq!(got, want, "{name}: session {id}");
    }

    // The hot path agrees, session by session, from a fresh state.
    let state2 = tempfile::tempdir().unwrap();
    let ctx2 = ctx_for(&config, state2.path());
    for (id, want) in &by_session {
        let main = std::fs::read_dir(config.join("projects"))
            .unwrap()
            .map(|e| e.unwrap().path().join(format!("{id}.jsonl")))
            .find(|p| p.exists())
            .unwrap();
        let t = session_totals(&ctx2, &main).unwrap();
        let got = T {
            input: t.tokens.input,
            output: t.tokens.output,
            cache_write: t.tokens.cache_write(),
            cache_read: t.tokens.cache_read,
        };
        assert_eq!(&got, want, "{name}: session_totals {id}");
    }
    (naive, deduped)
}

#[test]
fn current_client_split_lines_are_counted_once() {
    let (naive, deduped) = check_layout("current");
    // 2.1.332 writes one line per content block, each with the full usage.
    assert!(naive.total() > deduped.total(), "{naive:?} vs {deduped:?}");
    assert!(naive.cache_read > deduped.cache_read);
    let ratio = naive.total() as f64 / deduped.total() as f64;
    assert!(ratio > 1.5, "naive sum over-counts by {ratio:.2}x");
}

#[test]
fn v2_1_112_with_subagent_folder() {
    let (naive, deduped) = check_layout("v2.1.112");
    assert!(naive.total() > deduped.total());
}

#[test]
fn v2_0_77_flat_agent_files_and_first_usage_lines() {
    // Split lines mostly carry output_tokens 1; the largest line wins.
    let (naive, deduped) = check_layout("v2.0.77");
    assert!(naive.total() > deduped.total());
}

#[test]
fn v1_0_128_sidechain_records_in_the_main_file() {
    let (naive, deduped) = check_layout("v1.0.128");
    assert!(naive.total() > deduped.total());
}
