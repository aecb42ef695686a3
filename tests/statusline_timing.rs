//! How long one status-line render takes on a 100 MB transcript: the first
//! render (the aggregate reads everything once), then renders after it
//! (only a `stat` per file and a summary read), then a render after a new
//! turn is appended (only the new bytes). Figures are printed, not
//! asserted: run
//!
//! ```text
//! cargo test --release --test statusline_timing -- --ignored --nocapture
//! ```

use cairn::config::Config;
use cairn::context::{Clock, Ctx, Env};
use cairn::statusline::{
    Facts, Fixed, Input, SessionSpend, StatuslineConfig, TodaySpend, main, main_with, render,
};
use std::io::Write;
use std::time::{Duration, Instant};

const SID: &str = "11111111-2222-3333-4444-555555555555";
const TARGET_BYTES: u64 = 100 * 1024 * 1024;

/// One turn as the client writes it: a user prompt, a tool result of a few
/// KB, and one response split over two lines that repeat its usage.
fn write_turn(out: &mut impl Write, n: u64) -> std::io::Result<()> {
    let ts = format!("2026-11-30T{:02}:{:02}:00.000Z", (n / 60) % 12, n % 60);
    let filler = "lorem ipsum dolor sit amet ".repeat(300);
    let user = serde_json::json!({
        "parentUuid": null, "isSidechain": false, "type": "user", "uuid": format!("u{n}"),
        "timestamp": ts, "sessionId": SID, "cwd": "/tmp/proj",
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("t{n}"), "content": filler}
        ]}
    });
    writeln!(out, "{user}")?;
    for block in ["thinking", "text"] {
        let a = serde_json::json!({
            "parentUuid": format!("u{n}"), "isSidechain": false, "type": "assistant",
            "uuid": format!("a{n}{block}"), "timestamp": ts, "sessionId": SID,
            "requestId": format!("req_{n}"), "cwd": "/tmp/proj",
            "message": {"id": format!("msg_{n}"), "type": "message", "role": "assistant",
                "model": "claude-opus-5-5",
                "content": [{"type": block, "text": "ok, reading the file next"}],
                "usage": {"input_tokens": 12, "output_tokens": 180,
                    "cache_creation_input_tokens": 900, "cache_read_input_tokens": 60_000 + n,
                    "cache_creation": {"ephemeral_5m_input_tokens": 900, "ephemeral_1h_input_tokens": 0}}}
        });
        writeln!(out, "{a}")?;
    }
    Ok(())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

#[test]
#[ignore = "writes 100 MB; run with --release -- --ignored --nocapture"]
fn render_on_a_100_mb_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("claude/projects/-tmp-proj");
    std::fs::create_dir_all(&project).unwrap();
    let transcript = project.join(format!("{SID}.jsonl"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&transcript).unwrap());
    let mut n = 0;
    while std::fs::metadata(&transcript).map(|m| m.len()).unwrap_or(0) < TARGET_BYTES {
        for _ in 0..500 {
            write_turn(&mut f, n).unwrap();
            n += 1;
        }
        f.flush().unwrap();
    }
    drop(f);
    let size = std::fs::metadata(&transcript).unwrap().len();

    let repo = dir.path().join("proj");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::create_dir_all(repo.join("memory_sessions/logs")).unwrap();
    std::fs::write(
        repo.join("memory_sessions/logs/2026-11-30.md"),
        "# Session log — 2026-11-30\n\n## Travail produit\n- a\n- b\n",
    )
    .unwrap();
    let payload = serde_json::json!({
        "session_id": SID, "transcript_path": transcript, "cwd": repo,
        "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
        "workspace": {"current_dir": repo, "project_dir": repo},
        "cost": {"total_cost_usd": 1.0},
        "context_window": {"context_window_size": 1_000_000, "current_usage":
            {"input_tokens": 12, "output_tokens": 180, "cache_creation_input_tokens": 900,
             "cache_read_input_tokens": 60_000}},
    })
    .to_string();
    let ctx = Ctx::new(
        Env::from_pairs([
            (
                "CAIRN_STATE_DIR",
                dir.path().join("state").to_str().unwrap(),
            ),
            ("TZ", "UTC"),
            ("COLUMNS", "160"),
        ]),
        Clock::Fixed("2026-11-30T12:00:00Z".parse().unwrap()),
    );
    let (config, sl) = (Config::default(), StatuslineConfig::default());
    let once = || {
        let t = Instant::now();
        let line = main(&ctx, &config, &sl, payload.as_bytes());
        (t.elapsed(), line)
    };

    let (first, line) = once();
    let mut warm: Vec<Duration> = (0..300).map(|_| once().0).collect();
    warm.sort();

    // A new turn: only its bytes are read.
    let mut appended = Vec::new();
    for _ in 0..20 {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        write_turn(&mut f, n).unwrap();
        n += 1;
        drop(f);
        appended.push(once().0);
    }
    appended.sort();

    // The same, the usage aggregate alone: what of the above is not ours.
    let mut aggregate_only = Vec::new();
    for _ in 0..20 {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        write_turn(&mut f, n).unwrap();
        n += 1;
        drop(f);
        let t = Instant::now();
        cairn::usage::session_totals(&ctx, &transcript).unwrap();
        aggregate_only.push(t.elapsed());
    }
    aggregate_only.sort();

    // And the status line without the usage module (dollars injected): the
    // guard's window record, the branch, the spool, today's log, the cache.
    let fixed = Fixed {
        session: Some(SessionSpend {
            total_usd: 1.0,
            ..SessionSpend::default()
        }),
        today: Some(TodaySpend {
            total_usd: 2.0,
            memory_usd: 0.0,
        }),
    };
    let mut ours = Vec::new();
    for _ in 0..20 {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        write_turn(&mut f, n).unwrap();
        n += 1;
        drop(f);
        let t = Instant::now();
        main_with(&ctx, &config, &sl, payload.as_bytes(), &fixed);
        ours.push(t.elapsed());
    }
    ours.sort();

    // The renderer alone, facts given.
    let input = Input::parse(payload.as_bytes()).unwrap();
    let facts = Facts::default();
    let t = Instant::now();
    for _ in 0..10_000 {
        std::hint::black_box(render(&input, &facts, &sl, 156, true));
    }
    let pure = t.elapsed() / 10_000;

    println!("transcript: {:.1} MB, {n} turns", size as f64 / 1e6);
    println!("line: {}", line.trim_end());
    println!("first render (fresh aggregate): {}", ms(first));
    println!(
        "after aggregation, 300 renders: p50 {}  p90 {}  max {}",
        ms(percentile(&warm, 0.5)),
        ms(percentile(&warm, 0.9)),
        ms(*warm.last().unwrap())
    );
    println!(
        "after appending one turn, 20 renders: p50 {}  max {}",
        ms(percentile(&appended, 0.5)),
        ms(*appended.last().unwrap())
    );
    println!(
        "  of which usage::session_totals after one turn: p50 {}",
        ms(percentile(&aggregate_only, 0.5))
    );
    println!(
        "  the status line with dollars injected, after one turn: p50 {}",
        ms(percentile(&ours, 0.5))
    );
    println!("render() alone: {:.1} µs", pure.as_secs_f64() * 1e6);
}
