//! The context guard at Stop on a 25 MB transcript (target: p50 under
//! 3 ms for the turn below the levels): the common turn, a turn past a
//! level that already fired, and the turn that fires (note + fsyncs, twice
//! a session at most), with the 4 MiB scan the note is built from.
//!
//! Run: `cargo bench --bench guard`.
//!
//! Before the guard, `cairn hook` waits for the client to write the turn a
//! Stop names (`transcript::settle_at_stop`, shared with capture): the
//! `settle_*` cases time that step alone, on the same transcript, when the
//! answer is written (no wait) and when it never comes (the 2 s bound).

// A bench prints its figures.
#![allow(clippy::print_stdout, clippy::print_stderr)]

// The bench uses part of the test harness.
#[allow(dead_code)]
#[path = "../tests/it/common/guard.rs"]
mod support;

use cairn::config::Config;
use cairn::event::Stop as StopInfo;
use cairn::guard;
use serde_json::json;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::*;

const BYTES: u64 = 25 * 1024 * 1024;
/// Below the default levels of a 200k window.
const BELOW_FILL: u64 = 100_000;
const BELOW_ANSWER: &str = "Latest answer.";
/// Past the warn level.
const PAST_WARN_FILL: u64 = 125_000;
const PAST_WARN_SID: &str = "0b7e2f44-6a51-4c0e-9d7a-3f1c2b8e5a90";

fn main() {
    divan::main();
    if let Some(f) = FIXTURE.get() {
        let (_, tail) =
            cairn::transcript::last_context_usage_with(&f.below.path, &Default::default()).unwrap();
        println!(
            "fixture: {:.1} MB transcript; the guard's tail read: {} bytes, {} lines parsed",
            std::fs::metadata(&f.below.path).unwrap().len() as f64 / 1e6,
            tail.bytes_read,
            tail.lines
        );
        // A static is never dropped: remove the 50 MB of fixtures here.
        let _ = std::fs::remove_dir_all(&f.scratch.base);
    }
}

struct Fixture {
    scratch: Scratch,
    /// Last answer at [`BELOW_FILL`].
    below: Session,
    /// The same session, then an answer at [`PAST_WARN_FILL`].
    past_warn: Session,
}

static FIXTURE: OnceLock<Fixture> = OnceLock::new();

/// Both transcripts, written once per bench process.
fn fixture() -> &'static Fixture {
    FIXTURE.get_or_init(|| {
        let scratch = Scratch::new();
        let below = long_session(&scratch, SID, BELOW_FILL, BELOW_ANSWER);
        let mut past_warn = long_session(&scratch, PAST_WARN_SID, BELOW_FILL, BELOW_ANSWER);
        past_warn.answer(PAST_WARN_FILL, "Past the warn level.");
        Fixture {
            scratch,
            below,
            past_warn,
        }
    })
}

/// A long session: reads of big files, commands, edits, answers and the
/// records around them, until the file passes [`BYTES`]. Ten turns are
/// generated, then their bytes repeated: the guard reads the end only, so
/// repeated ids in the middle change nothing.
fn long_session(s: &Scratch, sid: &str, last_fill: u64, last_answer: &str) -> Session {
    let mut t = s.session(sid);
    let body = "fn handler(ctx: &Ctx) -> Result<()> { /* ... */ }\n".repeat(240); // ~12 KB
    for i in 0..10u64 {
        if i % 10 == 0 {
            t.prompt(&format!(
                "Step {i}: continue the refactor of src/module_{i}.rs"
            ));
        }
        let path = s
            .root
            .join(format!("src/module_{i}.rs"))
            .display()
            .to_string();
        t.tool(
            20_000 + i * 10,
            "Read",
            json!({"file_path": path}),
            &body,
            false,
            json!({"type": "text", "file": {"filePath": path, "content": body, "numLines": 240, "startLine": 1, "totalLines": 240}}),
        );
        t.tool(
            20_000 + i * 10,
            "Bash",
            json!({"command": "cargo test", "description": "test"}),
            &"test result: ok. 12 passed\n".repeat(60),
            false,
            json!({"stdout": "ok", "stderr": "", "interrupted": false}),
        );
        t.tool(
            20_000 + i * 10,
            "Edit",
            json!({"file_path": path, "old_string": "a", "new_string": "b"}),
            "The file has been updated.",
            false,
            json!({"filePath": path, "originalFile": body, "structuredPatch": [{"oldStart": 7, "oldLines": 1, "newStart": 7, "newLines": 1, "lines": ["-a", "+b"]}]}),
        );
        t.answer(20_000 + i * 10, "Done with this step; moving on.");
        t.stop_summary();
    }
    let block = std::fs::read(&t.path).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&t.path)
        .unwrap();
    let mut len = block.len() as u64;
    while len < BYTES {
        std::io::Write::write_all(&mut f, &block).unwrap();
        len += block.len() as u64;
    }
    drop(f);
    t.answer(last_fill, last_answer);
    t.stop_summary();
    t
}

/// A session id no other case uses, so each starts with no ratchet.
fn fresh_sid(prefix: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!("{prefix}-{}", N.fetch_add(1, Ordering::Relaxed))
}

fn stop(ctx: &cairn::context::Ctx, info: &StopInfo) -> Option<String> {
    let f = fixture();
    let config = Config::default();
    let spend = cairn::usage::Spend::new(ctx, &config.usage);
    guard::on_stop(
        ctx,
        &config.for_guard(),
        &f.scratch.root,
        info,
        None,
        &spend,
    )
    .unwrap()
}

/// The common turn: below both levels, nothing written.
#[divan::bench(sample_count = 300, sample_size = 1)]
fn below_levels(bencher: divan::Bencher) {
    let f = fixture();
    let ctx = f.scratch.ctx();
    let info = f.scratch.stop_info(&f.below);
    bencher.bench_local(|| assert!(stop(&ctx, &info).is_none()));
}

/// The hook's settle step when the payload names the answer the
/// transcript ends with, as the client sends it once the line is written:
/// one tail read, no wait.
#[divan::bench(sample_count = 300, sample_size = 1)]
fn settle_matching_answer(bencher: divan::Bencher) {
    let f = fixture();
    let answer = format!("{BELOW_ANSWER}\n");
    bencher.bench_local(|| {
        let c = cairn::transcript::settle_at_stop(&f.below.path, Some(&answer)).unwrap();
        assert!(c.usage.is_some() && !c.answer_pending);
    });
}

/// The settle step when the named answer never reaches the file: it polls
/// until its 2 s bound, then returns what it read.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn settle_stale_answer(bencher: divan::Bencher) {
    let f = fixture();
    bencher.bench_local(|| {
        let c = cairn::transcript::settle_at_stop(
            &f.below.path,
            Some("An answer the client has not written."),
        )
        .unwrap();
        assert!(c.usage.is_some());
    });
}

/// Past a level that already fired: the ratchet says no, one small read more.
#[divan::bench(sample_count = 300, sample_size = 1)]
fn level_already_fired(bencher: divan::Bencher) {
    let f = fixture();
    let ctx = f.scratch.ctx();
    let mut info = f.scratch.stop_info(&f.past_warn);
    info.session_id = fresh_sid("fired");
    assert!(
        stop(&ctx, &info).is_some(),
        "the first Stop past warn fires"
    );
    bencher.bench_local(|| assert!(stop(&ctx, &info).is_none()));
}

/// Firing: the note written from the 4 MiB tail, the ratchet saved. Each
/// call is a new session on the same transcript, so each fires.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn firing(bencher: divan::Bencher) {
    let f = fixture();
    let ctx = f.scratch.ctx();
    bencher
        .with_inputs(|| {
            let mut info = f.scratch.stop_info(&f.past_warn);
            info.session_id = fresh_sid("fire");
            info
        })
        .bench_local_refs(|info| assert!(stop(&ctx, info).is_some()));
}

/// Of the firing turn: the scan of the transcript's last 4 MiB.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn firing_scan_only(bencher: divan::Bencher) {
    let f = fixture();
    bencher.bench_local(|| guard::scan(&f.past_warn.path, guard::SCAN_BYTES).unwrap());
}
