//! The refine gate's matching on UserPromptSubmit: every prompt of the
//! labelled corpus (English and French) and every real prompt of
//! `tests/fixtures/real_sessions/`, checked one after the other in a warm
//! process (the lexicon's index is built once; a hook process pays that
//! once too, about 0.1 ms).
//!
//! Run: `cargo bench --bench gate`. Divide by the prompt counts printed at
//! the end for the cost of one prompt (target: well under 1 ms).
//!
//! `session_*` time what the hook adds when a prompt has something to say:
//! the tail read of the transcript that tells a first prompt from a later
//! one, on real transcripts cut where the prompt arrived.

// A bench prints its figures.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use cairn::gate::{GateConfig, Session, check};
use serde_json::Value;
use std::sync::OnceLock;

fn main() {
    divan::main();
    println!(
        "prompts: corpus {}, real {}",
        corpus().len(),
        real_prompts().len()
    );
    if let Some(t) = TRANSCRIPTS.get() {
        for (name, path) in [("mid", &t.mid), ("first", &t.first)] {
            let (_, stats) = cairn::transcript::prior_turns(path).unwrap();
            println!(
                "session_{name}: {} bytes of {} read, {} lines",
                stats.bytes_read,
                std::fs::metadata(path).unwrap().len(),
                stats.lines
            );
        }
    }
}

struct Transcripts {
    _dir: tempfile::TempDir,
    /// A long real session (9e953218, 1.0.128), cut at its last prompt.
    mid: std::path::PathBuf,
    /// A real first prompt (a7da6a22 after `/context` and `/model`).
    first: std::path::PathBuf,
}

static TRANSCRIPTS: OnceLock<Transcripts> = OnceLock::new();

fn transcripts() -> &'static Transcripts {
    TRANSCRIPTS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let cut = |session: &str, line: usize, name: &str| {
            let text = std::fs::read(fixtures().join("real_sessions").join(session)).unwrap();
            let prefix: Vec<u8> = text
                .split_inclusive(|&b| b == b'\n')
                .take(line)
                .flatten()
                .copied()
                .collect();
            let path = dir.path().join(name);
            std::fs::write(&path, prefix).unwrap();
            path
        };
        let mid = cut(
            "claude-code-log/projects/-Users-dain-workspace-danieldemmel-me-next/9e953218-585f-4692-89df-9e0747a31c68.jsonl",
            225,
            "mid.jsonl",
        );
        let first = cut(
            "claude-code-log/projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl",
            12,
            "first.jsonl",
        );
        Transcripts {
            _dir: dir,
            mid,
            first,
        }
    })
}

#[divan::bench]
fn session_mid(bencher: divan::Bencher) {
    let t = transcripts();
    bencher.bench(|| Session::of(Some(divan::black_box(&t.mid))));
}

#[divan::bench]
fn session_first(bencher: divan::Bencher) {
    let t = transcripts();
    bencher.bench(|| Session::of(Some(divan::black_box(&t.first))));
}

fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn corpus() -> &'static [String] {
    static C: OnceLock<Vec<String>> = OnceLock::new();
    C.get_or_init(|| {
        std::fs::read_to_string(fixtures().join("gate/corpus.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                v["prompt"].as_str().unwrap().to_string()
            })
            .collect()
    })
}

/// The real prompts as the hook gets them: the user record's text blocks.
fn real_prompts() -> &'static [String] {
    static R: OnceLock<Vec<String>> = OnceLock::new();
    R.get_or_init(|| {
        std::fs::read_to_string(fixtures().join("gate/real_prompts.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                let path = fixtures()
                    .join("real_sessions")
                    .join(v["session"].as_str().unwrap());
                let line_no = v["line"].as_u64().unwrap() as usize;
                let text = std::fs::read_to_string(path).unwrap();
                let rec: Value =
                    serde_json::from_str(text.lines().nth(line_no - 1).unwrap()).unwrap();
                match &rec["message"]["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(blocks) => blocks
                        .iter()
                        .filter_map(|b| b["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                }
            })
            .collect()
    })
}

#[divan::bench]
fn corpus_all(bencher: divan::Bencher) {
    let cfg = GateConfig::default();
    let prompts = corpus();
    bencher.bench(|| {
        for p in prompts {
            divan::black_box(check(divan::black_box(p), &cfg));
        }
    });
}

#[divan::bench]
fn real_all(bencher: divan::Bencher) {
    let cfg = GateConfig::default();
    let prompts = real_prompts();
    bencher.bench(|| {
        for p in prompts {
            divan::black_box(check(divan::black_box(p), &cfg));
        }
    });
}

/// One everyday prompt, the cost a user pays on most turns.
#[divan::bench]
fn one_prompt(bencher: divan::Bencher) {
    let cfg = GateConfig::default();
    let p = "Can you re-apply the fix from last week? It got lost in the merge.";
    bencher.bench(|| divan::black_box(check(divan::black_box(p), &cfg)));
}

/// A pasted log of about 100 KiB ending in a complaint: the gate's cost
/// grows with the prompt, so this bounds what one hook can spend.
#[divan::bench]
fn pasted_log_100kib(bencher: divan::Bencher) {
    let cfg = GateConfig::default();
    let big = "Please look at this log.\n".repeat(4000) + "It's still broken.";
    bencher.bench(|| divan::black_box(check(divan::black_box(&big), &cfg)));
}
