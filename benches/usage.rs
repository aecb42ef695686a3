//! `cairn usage daily --json` on a generated transcript corpus: with no
//! state (cold), again with the state it left (warm), the process's peak
//! RSS, and the hot path the status line takes on the corpus' largest
//! transcript (first read, unchanged, after one new response).
//!
//! ```text
//! cargo bench --bench usage                       # generates a 50 MB corpus
//! CAIRN_USAGE_CORPUS_MB=200 cargo bench --bench usage
//! python3 tests/fixtures/usage/gen_corpus.py /tmp/corpus 1000
//! CAIRN_USAGE_CORPUS=/tmp/corpus cargo bench --bench usage
//! ```
//!
//! Without `CAIRN_USAGE_CORPUS` the corpus is generated once per bench
//! process into a temp dir by `tests/fixtures/usage/gen_corpus.py` (seed 7,
//! `CAIRN_USAGE_CORPUS_MB` megabytes, default 50); that needs `python3`,
//! and without it the bench says so and measures nothing.
//! `CAIRN_BENCH_THREADS` sets the readers of a first scan. For whole-process
//! timings against ccusage, see `scripts/bench-vs-peers.sh`.

// A bench prints its figures.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use cairn::context::{Clock, Ctx, Env};
use cairn::usage::{ReportKind, ReportOptions, SessionTotals, report_with, session_totals};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

const DEFAULT_MB: u64 = 50;

fn main() {
    if corpus().is_none() {
        return;
    }
    divan::main();
    if let Some(Some(c)) = CORPUS.get() {
        let v: serde_json::Value = serde_json::from_str(&c.cold_report).unwrap();
        println!(
            "corpus: {:.1} MB in {} ({}); daily totals: {} tokens, ${}",
            c.bytes as f64 / 1e6,
            c.root.display(),
            if c.generated {
                "generated"
            } else {
                "CAIRN_USAGE_CORPUS"
            },
            v["totals"]["totalTokens"],
            v["totals"]["totalCost"]
        );
        println!(
            "largest transcript: {:.1} MB, {} responses, {} subagents",
            c.largest.0 as f64 / 1e6,
            c.largest_totals.responses,
            c.largest_totals.subagent_count()
        );
        let rss = PEAK_RSS_KB_AFTER_COLD.load(Ordering::Relaxed);
        if rss > 0 {
            println!(
                "peak RSS of the process after the cold reports: {:.1} MB",
                rss as f64 / 1024.0
            );
        }
        // A static is never dropped. The dir holds the states (and the
        // corpus when generated), never a corpus `CAIRN_USAGE_CORPUS` names.
        let _ = std::fs::remove_dir_all(&c.dir);
    }
}

struct Corpus {
    /// Everything this process wrote (and, when generated, the corpus).
    dir: PathBuf,
    /// What `CLAUDE_CONFIG_DIR` points at.
    root: PathBuf,
    generated: bool,
    bytes: u64,
    /// The report with no state, which every later one must equal.
    cold_report: String,
    largest: (u64, PathBuf),
    largest_totals: SessionTotals,
}

static CORPUS: OnceLock<Option<Corpus>> = OnceLock::new();
static PEAK_RSS_KB_AFTER_COLD: AtomicU64 = AtomicU64::new(0);

fn corpus() -> Option<&'static Corpus> {
    CORPUS.get_or_init(make_corpus).as_ref()
}

fn make_corpus() -> Option<Corpus> {
    let dir = tempfile::tempdir().unwrap().keep();
    let (root, generated) = match std::env::var_os("CAIRN_USAGE_CORPUS") {
        Some(c) => (PathBuf::from(c), false),
        None => {
            let mb = std::env::var("CAIRN_USAGE_CORPUS_MB")
                .ok()
                .and_then(|m| m.parse().ok())
                .unwrap_or(DEFAULT_MB);
            let script =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/usage/gen_corpus.py");
            let root = dir.join("corpus");
            eprintln!(
                "usage bench: generating a {mb} MB corpus in {}",
                root.display()
            );
            let ran = std::process::Command::new("python3")
                .arg(&script)
                .arg(&root)
                .arg(mb.to_string())
                .status();
            if !ran.is_ok_and(|s| s.success()) {
                println!(
                    "usage bench: skipped: `python3 {}` could not generate the corpus; \
                     install python3 or set CAIRN_USAGE_CORPUS to a corpus folder",
                    script.display()
                );
                let _ = std::fs::remove_dir_all(&dir);
                return None;
            }
            (root, true)
        }
    };
    if !root.join("projects").is_dir() {
        println!(
            "usage bench: skipped: {} has no projects/ folder (CAIRN_USAGE_CORPUS must be \
             what CLAUDE_CONFIG_DIR would point at)",
            root.display()
        );
        let _ = std::fs::remove_dir_all(&dir);
        return None;
    }
    let mut largest = (0, PathBuf::new());
    let mut bytes = 0;
    walk(&root.join("projects"), &mut largest, &mut bytes);
    let cold_report = report_with(&report_ctx(&root, &dir.join("reference")), &options()).unwrap();
    let largest_totals =
        session_totals(&plain_ctx(&dir.join("reference-hot")), &largest.1).unwrap();
    Some(Corpus {
        dir,
        root,
        generated,
        bytes,
        cold_report,
        largest,
        largest_totals,
    })
}

/// The largest main transcript (not a subagent's) and the corpus' bytes.
fn walk(dir: &Path, largest: &mut (u64, PathBuf), bytes: &mut u64) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, largest, bytes);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            let n = std::fs::metadata(&p).unwrap().len();
            *bytes += n;
            let subagent = p.components().any(|c| c.as_os_str() == "subagents");
            if !subagent && n > largest.0 {
                *largest = (n, p);
            }
        }
    }
}

fn report_ctx(corpus: &Path, state: &Path) -> Ctx {
    Ctx::new(
        Env::from_pairs([
            ("HOME", "/nonexistent".to_string()),
            ("CAIRN_STATE_DIR", state.display().to_string()),
            ("CLAUDE_CONFIG_DIR", corpus.display().to_string()),
            ("TZ", "UTC".to_string()),
        ]),
        Clock::System,
    )
}

fn plain_ctx(state: &Path) -> Ctx {
    Ctx::new(
        Env::from_pairs([
            ("HOME", "/nonexistent".to_string()),
            ("CAIRN_STATE_DIR", state.display().to_string()),
            ("TZ", "UTC".to_string()),
        ]),
        Clock::System,
    )
}

fn options() -> ReportOptions {
    let mut o = ReportOptions::new(ReportKind::Daily);
    o.json = true;
    o.threads = std::env::var("CAIRN_BENCH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok());
    o
}

fn peak_rss_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// No state: every transcript is read and the state written.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn daily_report_cold(bencher: divan::Bencher) {
    let c = corpus().unwrap();
    let o = options();
    bencher
        .with_inputs(|| {
            let state = tempfile::tempdir_in(&c.dir).unwrap();
            let ctx = report_ctx(&c.root, state.path());
            (state, ctx)
        })
        .bench_local_refs(|(_state, ctx)| {
            assert_eq!(report_with(ctx, &o).unwrap(), c.cold_report);
        });
    PEAK_RSS_KB_AFTER_COLD.store(peak_rss_kb(), Ordering::Relaxed);
}

/// The state the previous report left, nothing changed.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn daily_report_warm(bencher: divan::Bencher) {
    let c = corpus().unwrap();
    let o = options();
    let ctx = report_ctx(&c.root, &c.dir.join("state"));
    assert_eq!(report_with(&ctx, &o).unwrap(), c.cold_report);
    bencher.bench_local(|| {
        assert_eq!(report_with(&ctx, &o).unwrap(), c.cold_report);
    });
}

/// The largest transcript with no state: the status line's first render.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn session_totals_first(bencher: divan::Bencher) {
    let c = corpus().unwrap();
    bencher
        .with_inputs(|| {
            let state = tempfile::tempdir_in(&c.dir).unwrap();
            let ctx = plain_ctx(state.path());
            (state, ctx)
        })
        .bench_local_refs(|(_state, ctx)| {
            assert_eq!(session_totals(ctx, &c.largest.1).unwrap(), c.largest_totals);
        });
}

/// The largest transcript, unchanged since the last read.
#[divan::bench(sample_count = 51, sample_size = 1)]
fn session_totals_unchanged(bencher: divan::Bencher) {
    let c = corpus().unwrap();
    let ctx = plain_ctx(&c.dir.join("state-hot"));
    session_totals(&ctx, &c.largest.1).unwrap();
    bencher.bench_local(|| {
        assert_eq!(
            session_totals(&ctx, &c.largest.1).unwrap(),
            c.largest_totals
        );
    });
}

/// What the status line sees turn by turn: a copy of the largest file,
/// one response of two lines appended before each call.
#[divan::bench(sample_count = 21, sample_size = 1)]
fn session_totals_after_new_response(bencher: divan::Bencher) {
    let c = corpus().unwrap();
    let scratch = c.dir.join("scratch/proj");
    std::fs::create_dir_all(&scratch).unwrap();
    let copy = scratch.join(c.largest.1.file_name().unwrap());
    std::fs::copy(&c.largest.1, &copy).unwrap();
    let ctx = plain_ctx(&c.dir.join("state-append"));
    let before = session_totals(&ctx, &copy).unwrap().responses;
    let appended = std::cell::Cell::new(0u64);
    bencher
        .with_inputs(|| {
            let i = appended.get();
            appended.set(i + 1);
            let line = format!(
                "{{\"type\":\"assistant\",\"sessionId\":\"x\",\"timestamp\":\"2026-11-30T10:00:00Z\",\"requestId\":\"rb{i}\",\"message\":{{\"id\":\"mb{i}\",\"role\":\"assistant\",\"model\":\"claude-opus-5-5\",\"content\":[{{\"type\":\"text\",\"text\":\"ok\"}}],\"usage\":{{\"input_tokens\":5,\"output_tokens\":50,\"cache_read_input_tokens\":100000}}}}}}\n"
            );
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&copy)
                .unwrap();
            std::io::Write::write_all(&mut f, format!("{line}{line}").as_bytes()).unwrap();
        })
        .bench_local_values(|()| session_totals(&ctx, &copy).unwrap());
    assert_eq!(
        session_totals(&ctx, &copy).unwrap().responses,
        before + appended.get(),
        "each appended response counted once"
    );
}
