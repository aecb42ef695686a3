//! Timings on a generated corpus (not run by default):
//!
//! ```text
//! python3 tests/fixtures/usage/gen_corpus.py /tmp/corpus 200
//! CAIRN_USAGE_CORPUS=/tmp/corpus cargo test --release --test usage_bench -- --ignored --nocapture
//! ```
//!
//! Prints the daily report's time with no state (cold), again (warm), the
//! peak RSS of the process, and the hot path on the largest transcript.

use cairn::context::{Clock, Ctx, Env};
use cairn::usage::{ReportKind, ReportOptions, report_with, session_totals};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn largest(dir: &Path, best: &mut (u64, PathBuf)) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().unwrap() != "subagents" {
                largest(&p, best);
            }
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            let n = std::fs::metadata(&p).unwrap().len();
            if n > best.0 {
                *best = (n, p);
            }
        }
    }
}

#[test]
#[ignore = "benchmark: needs CAIRN_USAGE_CORPUS"]
fn daily_report_cold_and_warm() {
    let Some(corpus) = std::env::var_os("CAIRN_USAGE_CORPUS") else {
        eprintln!("set CAIRN_USAGE_CORPUS");
        return;
    };
    let state = tempfile::tempdir().unwrap();
    let env = Env::from_pairs([
        ("HOME", "/nonexistent".to_string()),
        ("CAIRN_STATE_DIR", state.path().display().to_string()),
        (
            "CLAUDE_CONFIG_DIR",
            PathBuf::from(&corpus).display().to_string(),
        ),
        ("TZ", "UTC".to_string()),
    ]);
    let ctx = Ctx::new(env, Clock::System);
    let mut o = ReportOptions::new(ReportKind::Daily);
    o.json = true;
    if let Some(t) = std::env::var("CAIRN_BENCH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
    {
        o.threads = Some(t);
    }
    let t = Instant::now();
    let cold = report_with(&ctx, &o).unwrap();
    let cold_s = t.elapsed().as_secs_f64();
    let rss_cold = peak_rss_mb();
    let mut warm = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let again = report_with(&ctx, &o).unwrap();
        warm.push(t.elapsed().as_secs_f64());
        assert_eq!(again, cold);
    }
    warm.sort_by(f64::total_cmp);
    let v: serde_json::Value = serde_json::from_str(&cold).unwrap();
    println!(
        "daily --json: cold {:.3} s, warm median {:.4} s (min {:.4}), peak RSS {:.1} MB; totals: {} tokens, ${}",
        cold_s, warm[2], warm[0], rss_cold, v["totals"]["totalTokens"], v["totals"]["totalCost"]
    );

    // The hot path on the largest transcript, with a fresh state.
    let mut big = (0, PathBuf::new());
    largest(Path::new(&corpus), &mut big);
    let state2 = tempfile::tempdir().unwrap();
    let env = Env::from_pairs([
        ("HOME", "/nonexistent".to_string()),
        ("CAIRN_STATE_DIR", state2.path().display().to_string()),
        ("TZ", "UTC".to_string()),
    ]);
    let ctx = Ctx::new(env, Clock::System);
    let t = Instant::now();
    let first = session_totals(&ctx, &big.1).unwrap();
    let first_s = t.elapsed().as_secs_f64();
    let mut times = Vec::new();
    for _ in 0..51 {
        let t = Instant::now();
        assert_eq!(session_totals(&ctx, &big.1).unwrap(), first);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "session_totals on {:.1} MB ({} responses, {} subagents): first {:.3} s, unchanged p50 {:.3} ms",
        big.0 as f64 / 1e6,
        first.responses,
        first.subagent_count(),
        first_s,
        times[25]
    );

    // After each new response (what the status line sees turn by turn): a
    // copy of the main file, one response of two lines appended per round.
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join("proj").join(big.1.file_name().unwrap());
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(&big.1, &copy).unwrap();
    let before = session_totals(&ctx, &copy).unwrap().responses;
    let mut times = Vec::new();
    for i in 0..21 {
        let line = format!(
            "{{\"type\":\"assistant\",\"sessionId\":\"x\",\"timestamp\":\"2026-11-30T10:00:00Z\",\"requestId\":\"rb{i}\",\"message\":{{\"id\":\"mb{i}\",\"role\":\"assistant\",\"model\":\"claude-opus-5-5\",\"content\":[{{\"type\":\"text\",\"text\":\"ok\"}}],\"usage\":{{\"input_tokens\":5,\"output_tokens\":50,\"cache_read_input_tokens\":100000}}}}}}\n"
        );
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&copy)
            .unwrap();
        std::io::Write::write_all(&mut f, format!("{line}{line}").as_bytes()).unwrap();
        drop(f);
        let t = Instant::now();
        session_totals(&ctx, &copy).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    assert_eq!(session_totals(&ctx, &copy).unwrap().responses, before + 21);
    times.sort_by(f64::total_cmp);
    println!(
        "session_totals after one new response ({before} before): p50 {:.3} ms",
        times[10]
    );
}

/// One `daily --json` report into `CAIRN_BENCH_STATE`, for hyperfine:
///
/// ```text
/// BIN=$(ls target/release/deps/usage_bench-* | grep -v '\.d$')
/// hyperfine --prepare 'rm -rf /tmp/st' \
///   "CAIRN_BENCH_STATE=/tmp/st CAIRN_USAGE_CORPUS=/tmp/corpus $BIN --ignored --exact report_once"
/// ```
#[test]
#[ignore = "benchmark: needs CAIRN_USAGE_CORPUS and CAIRN_BENCH_STATE"]
fn report_once() {
    let (Some(corpus), Some(state)) = (
        std::env::var_os("CAIRN_USAGE_CORPUS"),
        std::env::var_os("CAIRN_BENCH_STATE"),
    ) else {
        return;
    };
    let env = Env::from_pairs([
        ("HOME", "/nonexistent".to_string()),
        (
            "CAIRN_STATE_DIR",
            PathBuf::from(state).display().to_string(),
        ),
        (
            "CLAUDE_CONFIG_DIR",
            PathBuf::from(corpus).display().to_string(),
        ),
        ("TZ", "UTC".to_string()),
    ]);
    let ctx = Ctx::new(env, Clock::System);
    let mut o = ReportOptions::new(ReportKind::Daily);
    o.json = true;
    let out = report_with(&ctx, &o).unwrap();
    if std::env::var_os("CAIRN_BENCH_PRINT").is_some() {
        print!("{out}");
    }
}
