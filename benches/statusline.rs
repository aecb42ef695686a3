//! One status-line render on a 100 MB transcript (target: p50 under 5 ms
//! once the session is aggregated): the first render (the usage aggregate
//! reads everything once), renders after it (a `stat` per file and a
//! summary read), and a render after a new turn is appended (only the new
//! bytes). Then what of the latter is not the status line's own: the usage
//! aggregate alone, the line with dollars injected, `render()` alone.
//!
//! The config folder also holds what a working machine has beside the
//! session: `OTHER_TODAY` small sessions written today (which "today" must
//! count) and `OLD_SESSIONS` from earlier days (which it must only `stat`).
//!
//! Run: `cargo bench --bench statusline` (writes 100 MB to a temp dir once;
//! the first-render case reads it all per sample: a few minutes in all).

// A bench prints its figures.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use cairn::config::Config;
use cairn::context::{Clock, Ctx, Env};
use cairn::statusline::{
    self, Facts, Fixed, Input, SessionSpend, StatuslineConfig, TodaySpend, main_with, render,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

const SID: &str = "11111111-2222-3333-4444-555555555555";
const TARGET_BYTES: u64 = 100 * 1024 * 1024;
const OTHER_TODAY: u64 = 3;
const OLD_SESSIONS: u64 = 500;

fn main() {
    divan::main();
    if let Some(f) = FIXTURE.get() {
        println!(
            "fixture: {:.1} MB transcript at the end, {} turns",
            std::fs::metadata(&f.transcript).unwrap().len() as f64 / 1e6,
            f.turns.load(Ordering::Relaxed)
        );
        println!(
            "line: {}",
            statusline::main(
                &f.ctx(&f.state),
                &Config::default().for_statusline(),
                &f.sl,
                f.payload.as_bytes()
            )
            .trim_end()
        );
        // A static is never dropped: remove the 100 MB here.
        let _ = std::fs::remove_dir_all(&f.dir);
    }
}

struct Fixture {
    dir: PathBuf,
    transcript: PathBuf,
    /// The state folder of the warm cases (the first-render case gets a new
    /// one per sample).
    state: PathBuf,
    payload: String,
    sl: StatuslineConfig,
    /// Turns written so far: appended turns carry new message ids.
    turns: AtomicU64,
}

impl Fixture {
    fn ctx(&self, state: &Path) -> Ctx {
        let config = self.dir.join("claude");
        Ctx::new(
            Env::from_pairs([
                ("CAIRN_STATE_DIR", state.to_str().unwrap()),
                ("CLAUDE_CONFIG_DIR", config.to_str().unwrap()),
                ("TZ", "UTC"),
                ("COLUMNS", "160"),
            ]),
            Clock::Fixed("2026-11-30T12:00:00Z".parse().unwrap()),
        )
    }

    /// One more turn at the end of the transcript, as the client appends it.
    fn append_turn(&self) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.transcript)
            .unwrap();
        write_turn(&mut f, self.turns.fetch_add(1, Ordering::Relaxed)).unwrap();
    }
}

static FIXTURE: OnceLock<Fixture> = OnceLock::new();

/// The transcript, a repository with today's log and the payload, written
/// once per bench process.
fn fixture() -> &'static Fixture {
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let project = dir.join("claude/projects/-tmp-proj");
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
        other_sessions(&dir.join("claude/projects"));

        let repo = dir.join("proj");
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
        Fixture {
            state: dir.join("state"),
            dir,
            transcript,
            payload,
            sl: StatuslineConfig::default(),
            turns: AtomicU64::new(n),
        }
    })
}

/// Small sessions in ten other project folders: `OTHER_TODAY` of them
/// written today, `OLD_SESSIONS` last written the day before.
fn other_sessions(projects: &Path) {
    let yesterday = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_000_000 - 86_400);
    for i in 0..OTHER_TODAY + OLD_SESSIONS {
        let project = projects.join(format!("-tmp-other-{}", i % 10));
        std::fs::create_dir_all(&project).unwrap();
        let path = project.join(format!("00000000-0000-4000-8000-{i:012}.jsonl"));
        let mut f = std::fs::File::create(&path).unwrap();
        for n in 0..20 {
            write_turn(&mut f, 1_000_000 * (i + 1) + n).unwrap();
        }
        if i >= OTHER_TODAY {
            f.set_modified(yesterday).unwrap();
        }
    }
}

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

fn render_line(f: &Fixture, ctx: &Ctx) -> String {
    let line = statusline::main(
        ctx,
        &Config::default().for_statusline(),
        &f.sl,
        f.payload.as_bytes(),
    );
    assert!(line.contains("Opus 5.5"), "not a full line: {line}");
    line
}

/// No state yet: the aggregate reads the whole transcript once.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn first_render(bencher: divan::Bencher) {
    let f = fixture();
    bencher
        .with_inputs(|| {
            let state = tempfile::tempdir_in(&f.dir).unwrap();
            let ctx = f.ctx(state.path());
            (state, ctx)
        })
        .bench_local_refs(|(_state, ctx)| render_line(f, ctx));
}

/// Once aggregated, nothing new: what most renders are.
#[divan::bench(sample_count = 300, sample_size = 1)]
fn warm_render(bencher: divan::Bencher) {
    let f = fixture();
    let ctx = f.ctx(&f.state);
    render_line(f, &ctx);
    bencher.bench_local(|| render_line(f, &ctx));
}

/// A turn was appended since the last render: only its bytes are read.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn after_new_turn(bencher: divan::Bencher) {
    let f = fixture();
    let ctx = f.ctx(&f.state);
    render_line(f, &ctx);
    bencher
        .with_inputs(|| f.append_turn())
        .bench_local_values(|()| render_line(f, &ctx));
}

/// Of the above: the usage aggregate alone, after a new turn.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn after_new_turn_usage_aggregate_only(bencher: divan::Bencher) {
    let f = fixture();
    let ctx = f.ctx(&f.state);
    cairn::usage::session_totals(&ctx, &f.transcript).unwrap();
    bencher
        .with_inputs(|| f.append_turn())
        .bench_local_values(|()| cairn::usage::session_totals(&ctx, &f.transcript).unwrap());
}

/// Of the above: the status line without the usage module (dollars
/// injected): the guard's window record, the branch, the spool, today's
/// log, the cache.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn after_new_turn_dollars_injected(bencher: divan::Bencher) {
    let f = fixture();
    let ctx = f.ctx(&f.state);
    let fixed = Fixed {
        session: Some(SessionSpend {
            total_usd: 1.0,
            ..SessionSpend::default()
        }),
        today: Some(TodaySpend {
            total_usd: 2.0,
            memory_usd: 0.0,
            partial: false,
            problems: Vec::new(),
        }),
    };
    let config = Config::default().for_statusline();
    bencher
        .with_inputs(|| f.append_turn())
        .bench_local_values(|()| main_with(&ctx, &config, &f.sl, f.payload.as_bytes(), &fixed));
}

/// The renderer alone, facts given.
#[divan::bench]
fn render_only(bencher: divan::Bencher) {
    let f = fixture();
    let input = Input::parse(f.payload.as_bytes()).unwrap();
    let facts = Facts::default();
    bencher.bench_local(|| render(&input, &facts, &f.sl, 156, true));
}
