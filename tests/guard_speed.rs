//! How long the context guard takes on a 25 MB transcript. A timing loop,
//! not a benchmark harness and not asserted (machines differ); run it in
//! release to read the figures:
//!
//! ```text
//! cargo test --release --test guard_speed -- --nocapture
//! ```

#[path = "fixtures/guard/support.rs"]
mod support;

use cairn::config::Config;
use cairn::guard;
use serde_json::json;
use std::time::{Duration, Instant};
use support::*;

/// A long session: reads of big files, commands, edits, answers and the
/// records around them, until the file passes `bytes`. Ten turns are
/// generated, then their bytes repeated: the guard reads the end only, so
/// repeated ids in the middle change nothing, and a debug build stays fast.
fn long_session(s: &Scratch, sid: &str, bytes: u64, last_fill: u64) -> Session {
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
    while len < bytes {
        std::io::Write::write_all(&mut f, &block).unwrap();
        len += block.len() as u64;
    }
    drop(f);
    t.answer(last_fill, "Latest answer.");
    t.stop_summary();
    t
}

fn stats(mut v: Vec<Duration>) -> String {
    v.sort();
    let p = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    format!(
        "n={} p50={:.3} ms p90={:.3} ms max={:.3} ms",
        v.len(),
        p(0.5).as_secs_f64() * 1e3,
        p(0.9).as_secs_f64() * 1e3,
        v[v.len() - 1].as_secs_f64() * 1e3
    )
}

#[test]
fn guard_timing_on_a_25_mb_transcript() {
    let s = Scratch::new();
    let mut t = long_session(&s, SID, 25 * 1024 * 1024, 100_000);
    let len = std::fs::metadata(&t.path).unwrap().len();
    let (_, tail) =
        cairn::transcript::last_context_usage_with(&t.path, &Default::default()).unwrap();
    let cfg = Config::default();
    let ctx = s.ctx();
    // Debug builds parse JSON ~40 times slower: fewer slow rounds there.
    let slow_rounds = if cfg!(debug_assertions) { 3 } else { 20 };
    let info = s.stop_info(&t);
    let time = |n: usize, f: &mut dyn FnMut(usize)| {
        (0..n)
            .map(|i| {
                let t0 = Instant::now();
                f(i);
                t0.elapsed()
            })
            .collect::<Vec<_>>()
    };

    // Below the levels: the common turn.
    let below = time(300, &mut |_| {
        assert!(
            guard::on_stop(&ctx, &cfg, &s.root, &info)
                .unwrap()
                .is_none()
        );
    });

    // Firing: a note written from the 4 MiB tail (twice a session at most).
    // Each call is a new session on the same transcript, so each fires.
    t.answer(125_000, "Past the warn level.");
    let firing = time(slow_rounds, &mut |i| {
        let mut info = info.clone();
        info.session_id = format!("fire-{i}");
        assert!(
            guard::on_stop(&ctx, &cfg, &s.root, &info)
                .unwrap()
                .is_some()
        );
    });
    let scan = time(slow_rounds, &mut |_| {
        guard::scan(&t.path, guard::SCAN_BYTES).unwrap();
    });

    // Past a level that already fired: one more small read (the ratchet).
    assert!(
        guard::on_stop(&ctx, &cfg, &s.root, &info)
            .unwrap()
            .is_some()
    );
    let fired = time(300, &mut |_| {
        assert!(
            guard::on_stop(&ctx, &cfg, &s.root, &info)
                .unwrap()
                .is_none()
        );
    });

    println!(
        "\ncontext guard, {:.1} MB transcript (tail read {} bytes, {} lines parsed):",
        len as f64 / 1e6,
        tail.bytes_read,
        tail.lines
    );
    println!("  below the levels:        {}", stats(below));
    println!("  level already fired:     {}", stats(fired));
    println!("  firing (note + fsyncs):  {}", stats(firing));
    println!("    of which the 4 MiB scan: {}", stats(scan));
}
