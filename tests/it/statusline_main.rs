//! `statusline::main`: the lab's real payloads end to end (payload → facts
//! → line), the last good line, and the fault matrix — every fault prints a
//! line.

use crate::common;

use cairn::context::Ctx;
use cairn::statusline::style::visible_width;
use cairn::statusline::{
    Fixed, MINIMAL_LINE, SessionSpend, Settings, SpendSource, StatuslineConfig, TodaySpend,
    main_with,
};
use serde_json::Value;
use std::path::{Path, PathBuf};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/statusline");
const NOW: i64 = 1_796_040_000; // 2026-11-30T12:00:00Z
const SESSION: &str = "592d55cf-11d7-4a1b-99fa-bf536f8ae9a6";

/// A scratch world: a repository named like the lab's project, with a
/// branch, today's log and one job waiting in the spool.
struct World {
    _dir: tempfile::TempDir,
    base: PathBuf,
    proj: PathBuf,
    state: PathBuf,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().to_path_buf();
        let proj = base.join("proj-interactive");
        std::fs::create_dir_all(proj.join(".git")).unwrap();
        std::fs::write(proj.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let logs = proj.join("memory_sessions/logs");
        std::fs::create_dir_all(&logs).unwrap();
        std::fs::write(
            logs.join("2026-11-30.md"),
            "# Log session — 2026-11-30\n\n## Travail produit\n- one\n- two\n- three\n",
        )
        .unwrap();
        let state = base.join("state");
        std::fs::create_dir_all(state.join("spool/pending")).unwrap();
        std::fs::write(
            state.join("spool/pending/00000000000000000001-0000001-0000.json"),
            "{}",
        )
        .unwrap();
        World {
            _dir: dir,
            base,
            proj,
            state,
        }
    }

    fn ctx_at(&self, second: i64, extra: &[(&str, &str)]) -> Ctx {
        let mut env = common::lib_env(&self.state, &self.base.join("home"));
        env.set("COLUMNS", "160");
        for (k, v) in extra {
            env.set(k, v);
        }
        common::ctx_on(env, jiff::Timestamp::from_second(second).unwrap())
    }

    fn ctx(&self, extra: &[(&str, &str)]) -> Ctx {
        self.ctx_at(NOW, extra)
    }

    /// A lab payload pointed at this world.
    fn localise(&self, mut p: Value) -> Value {
        let proj = self.proj.to_str().unwrap();
        p["cwd"] = proj.into();
        p["workspace"]["current_dir"] = proj.into();
        p["workspace"]["project_dir"] = proj.into();
        p["transcript_path"] = self
            .base
            .join("no-transcript.jsonl")
            .to_str()
            .unwrap()
            .into();
        p
    }
}

fn spend() -> Fixed {
    Fixed {
        session: Some(SessionSpend {
            total_usd: 0.42,
            main_usd: 0.3,
            subagents: 2,
            subagents_usd: 0.12,
            unpriced: false,
        }),
        today: Some(TodaySpend {
            total_usd: 3.2,
            memory_usd: 0.0,
            partial: false,
            problems: Vec::new(),
        }),
    }
}

/// The dollars cannot be computed (an aggregate error).
struct Failing;

impl SpendSource for Failing {
    fn session(&self, _: &Path) -> Result<Option<SessionSpend>, String> {
        Err("usage aggregate unavailable".into())
    }
    fn today(&self) -> Result<Option<TodaySpend>, String> {
        Ok(None)
    }
}

/// A bug somewhere below the status line.
struct Panicking;

impl SpendSource for Panicking {
    fn session(&self, _: &Path) -> Result<Option<SessionSpend>, String> {
        panic!("boom in the aggregate")
    }
    fn today(&self) -> Result<Option<TodaySpend>, String> {
        Ok(None)
    }
}

fn run_with(ctx: &Ctx, cfg: &StatuslineConfig, stdin: &[u8], src: &dyn SpendSource) -> String {
    let out = main_with(ctx, &Settings::default(), cfg, stdin, src);
    assert!(out.ends_with('\n'), "{out:?}");
    assert_eq!(out.matches('\n').count(), 1, "one line: {out:?}");
    let line = out.trim_end_matches('\n').to_string();
    assert!(!line.trim().is_empty(), "never blank");
    line
}

fn run(ctx: &Ctx, stdin: &[u8], src: &dyn SpendSource) -> String {
    run_with(ctx, &StatuslineConfig::default(), stdin, src)
}

fn lab_payloads() -> Vec<Value> {
    std::fs::read_to_string(Path::new(FIXTURES).join("payloads.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["payload"].clone())
        .collect()
}

fn example() -> Value {
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(FIXTURES).join("example.json")).unwrap(),
    )
    .unwrap();
    v["payload"].clone()
}

fn no_color() -> [(&'static str, &'static str); 1] {
    [("NO_COLOR", "1")]
}

#[test]
fn golden_lines_for_the_lab_payloads() {
    let w = World::new();
    let ctx = w.ctx(&no_color());
    let lines: Vec<String> = lab_payloads()
        .into_iter()
        .map(|p| run(&ctx, w.localise(p).to_string().as_bytes(), &spend()))
        .collect();
    let mut text = lines.join("\n");
    text.push('\n');
    common::snapshot("statusline_golden_lab", &text);
    // What the lines say, beyond "unchanged":
    assert_eq!(
        lines[0],
        "Opus 5.5 | proj-interactive | main | ctx 0% 0/1M | session $0.42 | agents 2 $0.12 \
         | today $3.20 | notes 3 queued 1",
        "first render: current_usage is null and no transcript exists yet"
    );
    assert!(lines[1].contains("| ctx 2% 21k/1M |"), "{}", lines[1]);
    assert!(
        lines[10].contains("| ctx 0% 0/1M |"),
        "after /compact: {}",
        lines[10]
    );
    assert!(lines[13].contains("| ctx 2% 22k/1M |"), "{}", lines[13]);
    // The lab's payloads carry `prompt_cache` from the second render on;
    // on the fixed clock (hours later) every one of them has lapsed.
    assert!(!lines[0].contains("cache"), "{}", lines[0]);
    assert!(lines[1..].iter().all(|l| l.contains("| cache cold |")));
}

#[test]
fn the_example_payload_in_colour() {
    let w = World::new();
    let line = run(
        &w.ctx(&[]),
        w.localise(example()).to_string().as_bytes(),
        &spend(),
    );
    assert_eq!(
        line,
        "\x1b[1mOpus 5.5\x1b[0m | \x1b[34mproj-interactive\x1b[0m | \x1b[35mmain\x1b[0m | \
         \x1b[32mctx 2% 22k/1M\x1b[0m | session $0.42 | agents 2 $0.12 | today $3.20 | \
         \x1b[33mcache cold\x1b[0m | \x1b[2mnotes 3 queued 1\x1b[0m"
    );
}

#[test]
fn columns_decide_what_fits() {
    let w = World::new();
    let stdin = w.localise(example()).to_string();
    for (cols, want) in [
        ("60", "Opus 5.5 | proj-interactive | main | ctx 2% 22k/1M"),
        ("31", "Opus 5.5 | proj-interactive"),
        ("30", "Opus 5.5"),
        ("12", "Opus 5.5"),
    ] {
        let line = run(
            &w.ctx(&[("NO_COLOR", "1"), ("COLUMNS", cols)]),
            stdin.as_bytes(),
            &spend(),
        );
        assert_eq!(line, want, "COLUMNS={cols}");
        let limit: usize = cols.parse::<usize>().unwrap() - 4;
        assert!(visible_width(&line) <= limit);
    }
}

#[test]
fn the_guard_learns_the_window_the_client_reports() {
    let w = World::new();
    run(
        &w.ctx(&[]),
        w.localise(example()).to_string().as_bytes(),
        &spend(),
    );
    let rec = cairn::guard::read_window(&w.ctx(&[]), SESSION)
        .unwrap()
        .unwrap();
    assert_eq!(rec.window, 1_000_000);
    assert_eq!(rec.model.as_deref(), Some("claude-opus-5-5"));
}

#[test]
fn null_usage_reads_the_transcript_tail_even_when_truncated() {
    let w = World::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/transcripts/v2.1.332/print/0ac84ade-4b41-4c80-8e17-cb18a7650ec5.jsonl",
    );
    let mut bytes = std::fs::read(src).unwrap();
    bytes.extend_from_slice(br#"{"type":"assistant","message":{"id":"msg_cut","usage":{"input_"#);
    let t = w.base.join("cut.jsonl");
    std::fs::write(&t, bytes).unwrap();
    let mut p = w.localise(example());
    p["context_window"]["current_usage"] = Value::Null;
    p["transcript_path"] = t.to_str().unwrap().into();
    let line = run(&w.ctx(&no_color()), p.to_string().as_bytes(), &spend());
    assert!(line.contains("| ctx 2% 21k/1M |"), "{line}");
}

#[test]
fn unknown_model_without_a_window_still_shows_its_fill() {
    let w = World::new();
    let mut p = w.localise(example());
    p["model"] = serde_json::json!({"id": "acme-large", "display_name": "Acme Large"});
    p["context_window"]["context_window_size"] = Value::Null;
    let line = run(&w.ctx(&no_color()), p.to_string().as_bytes(), &spend());
    assert!(
        line.starts_with("Acme Large | proj-interactive | main | ctx 22k | session $0.42"),
        "{line}"
    );
}

#[test]
fn garbage_stdin_prints_the_last_good_line_fitted_to_the_width() {
    let w = World::new();
    let good = run(
        &w.ctx(&no_color()),
        w.localise(example()).to_string().as_bytes(),
        &spend(),
    );
    let env = [("NO_COLOR", "1"), ("CLAUDE_CODE_SESSION_ID", SESSION)];
    assert_eq!(run(&w.ctx(&env), b"{not json", &spend()), good);
    // No session in the environment: the most recent line of any session.
    assert_eq!(run(&w.ctx(&no_color()), b"\x00\xff", &spend()), good);
    // Refitted to a narrower terminal, not cut mid-segment.
    let narrow = [
        ("NO_COLOR", "1"),
        ("COLUMNS", "44"),
        ("CLAUDE_CODE_SESSION_ID", SESSION),
    ];
    assert_eq!(
        run(&w.ctx(&narrow), b"", &spend()),
        "Opus 5.5 | proj-interactive | main"
    );
    // And painted when colour is on.
    let coloured = run(
        &w.ctx(&[("CLAUDE_CODE_SESSION_ID", SESSION)]),
        b"[]",
        &spend(),
    );
    assert!(
        coloured.starts_with("\x1b[1mOpus 5.5\x1b[0m"),
        "{coloured:?}"
    );
}

#[test]
fn garbage_stdin_without_history_prints_what_the_environment_gives() {
    let w = World::new();
    let project = w.proj.to_str().unwrap();
    assert_eq!(
        run(
            &w.ctx(&[("NO_COLOR", "1"), ("CLAUDE_PROJECT_DIR", project)]),
            b"oops",
            &spend()
        ),
        "proj-interactive"
    );
    assert_eq!(run(&w.ctx(&no_color()), b"oops", &spend()), MINIMAL_LINE);
    // An object that names no session, model or folder: only what does not
    // depend on the session.
    assert_eq!(run(&w.ctx(&no_color()), b"{}", &spend()), "today $3.20");
    let nothing = Fixed::default();
    assert_eq!(run(&w.ctx(&no_color()), b"{}", &nothing), MINIMAL_LINE);
}

#[test]
fn a_failed_fact_prefers_the_recent_good_line_then_a_labelled_degraded_one() {
    let w = World::new();
    let stdin = w.localise(example()).to_string();
    let good = run(&w.ctx_at(NOW, &no_color()), stdin.as_bytes(), &spend());
    // A minute later the aggregate fails: the good line stands in.
    assert_eq!(
        run(&w.ctx_at(NOW + 60, &no_color()), stdin.as_bytes(), &Failing),
        good
    );
    // Eleven minutes later it is too old to trust: what is known now, with
    // the client's own estimate labelled as such.
    let degraded = run(
        &w.ctx_at(NOW + 660, &no_color()),
        stdin.as_bytes(),
        &Failing,
    );
    assert_eq!(
        degraded,
        "Opus 5.5 | proj-interactive | main | ctx 2% 22k/1M | session $0.13 (client est.) \
         | cache cold | notes 3 queued 1",
    );
    // A session never rendered well: degraded at once.
    let mut other = w.localise(example());
    other["session_id"] = "another".into();
    let line = run(&w.ctx(&no_color()), other.to_string().as_bytes(), &Failing);
    assert!(line.contains("session $0.13 (client est.)"), "{line}");
    // stale_after_secs = 0: the good line has no age limit.
    let cfg = StatuslineConfig {
        stale_after_secs: 0,
        ..StatuslineConfig::default()
    };
    assert_eq!(
        run_with(
            &w.ctx_at(NOW + 86_400, &no_color()),
            &cfg,
            stdin.as_bytes(),
            &Failing
        ),
        good
    );
}

#[test]
fn each_error_is_logged_once() {
    let w = World::new();
    let stdin = w.localise(example()).to_string();
    for _ in 0..3 {
        run(&w.ctx(&no_color()), stdin.as_bytes(), &Failing);
        run(&w.ctx(&no_color()), b"garbage", &spend());
    }
    let log = cairn::diag::tail(&w.state, 50);
    let ours: Vec<&String> = log.iter().filter(|l| l.contains("statusline")).collect();
    assert_eq!(ours.len(), 2, "{log:#?}");
    assert!(
        ours[0].contains("session cost: usage aggregate unavailable"),
        "{}",
        ours[0]
    );
    assert!(ours[1].contains("not JSON"), "{}", ours[1]);
}

#[test]
fn a_panic_below_still_prints_a_line() {
    let w = World::new();
    let stdin = w.localise(example()).to_string();
    let good = run(&w.ctx(&no_color()), stdin.as_bytes(), &spend());
    let env = [("NO_COLOR", "1"), ("CLAUDE_CODE_SESSION_ID", SESSION)];
    assert_eq!(run(&w.ctx(&env), stdin.as_bytes(), &Panicking), good);
    let fresh = World::new();
    assert_eq!(
        run(&fresh.ctx(&no_color()), stdin.as_bytes(), &Panicking),
        MINIMAL_LINE
    );
    assert!(
        cairn::diag::tail(&w.state, 5)
            .iter()
            .any(|l| l.contains("panic: boom"))
    );
}

/// Every fault of the matrix prints one non-empty line (`run` checks it).
#[test]
fn fault_matrix() {
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("stdin closed"))
        }
    }
    let w = World::new();
    let ex = w.localise(example());
    let with = |f: &dyn Fn(&mut Value)| {
        let mut p = ex.clone();
        f(&mut p);
        p.to_string().into_bytes()
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"\x1b[2J garbage".to_vec()),
        ("empty", Vec::new()),
        ("not an object", b"[1,2,3]".to_vec()),
        ("oversized", vec![b' '; 2 * 1024 * 1024]),
        ("missing transcript, no usage yet", with(&|p| {
            p["transcript_path"] = "/nonexistent/x.jsonl".into();
            p["context_window"]["current_usage"] = Value::Null;
        })),
        ("transcript is a folder", with(&|p| {
            p["transcript_path"] = "/".into();
            p["context_window"]["current_usage"] = Value::Null;
        })),
        ("unknown model", with(&|p| p["model"] = serde_json::json!({"id": "x"}))),
        ("no model at all", with(&|p| p["model"] = Value::Null)),
        ("after compact", with(&|p| {
            p["context_window"]["current_usage"] = serde_json::json!({
                "input_tokens": 0, "output_tokens": 0,
                "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
        })),
        ("workspace gone", with(&|p| {
            p["workspace"] = serde_json::json!({"current_dir": "/nonexistent/a"});
        })),
        ("wrong types everywhere", br#"{"session_id":7,"model":[],"workspace":"x","context_window":{"current_usage":"lots"},"cost":{"total_cost_usd":"free"}}"#.to_vec()),
    ];
    for (name, stdin) in &cases {
        let line = run(&w.ctx(&no_color()), stdin, &spend());
        assert!(visible_width(&line) <= 156, "{name}: {line}");
        let failing = run(&w.ctx(&no_color()), stdin, &Failing);
        assert!(!failing.is_empty(), "{name}");
    }
    let out = main_with(
        &w.ctx(&[]),
        &Settings::default(),
        &StatuslineConfig::default(),
        Broken,
        &spend(),
    );
    assert!(!out.trim().is_empty());

    // A state folder that cannot be written (a file where the folder should
    // be: fails even for root): the line is still complete, and the memory
    // segment says the hooks cannot spool (issue 9, finding 7).
    let blocked = w.base.join("blocked");
    std::fs::write(&blocked, "not a folder").unwrap();
    let mut env = common::lib_env(&blocked.join("state"), &w.base.join("home"));
    env.set("COLUMNS", "160");
    env.set("NO_COLOR", "1");
    let ro = common::ctx_on(env, jiff::Timestamp::from_second(NOW).unwrap());
    let line = run(&ro, ex.to_string().as_bytes(), &spend());
    assert_eq!(
        line,
        "Opus 5.5 | proj-interactive | main | ctx 2% 22k/1M | session $0.42 | agents 2 $0.12 \
         | today $3.20 | cache cold | notes 3 state folder not writable"
    );
    assert_eq!(run(&ro, b"garbage", &spend()), MINIMAL_LINE);
}

/// Copies `from` (a file or a folder) to `to`.
fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// The lab's print session (main thread and one subagent), laid out as the
/// client keeps it under the world's config folder: its id and transcript.
fn lab_print_session(w: &World) -> (&'static str, std::path::PathBuf) {
    let sid = "0ac84ade-4b41-4c80-8e17-cb18a7650ec5";
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts/v2.1.332/print");
    let project = w.base.join("claude/projects/-tmp-cclab-proj-print");
    std::fs::create_dir_all(&project).unwrap();
    copy_tree(
        &src.join(format!("{sid}.jsonl")),
        &project.join(format!("{sid}.jsonl")),
    );
    copy_tree(&src.join(sid), &project.join(sid));
    (sid, project.join(format!("{sid}.jsonl")))
}

#[test]
fn dollars_come_from_the_usage_module() {
    // The lab's print session (main thread and one subagent), laid out as
    // the client keeps it.
    let w = World::new();
    let (sid, transcript) = lab_print_session(&w);

    let mut p = w.localise(example());
    p["session_id"] = sid.into();
    p["transcript_path"] = transcript.to_str().unwrap().into();
    p["cost"]["total_cost_usd"] = 99.0.into();
    let ctx = w.ctx(&no_color());
    let out = cairn::statusline::main(
        &ctx,
        &Settings::default(),
        &StatuslineConfig::default(),
        p.to_string().as_bytes(),
    );

    let t = cairn::usage::session_totals(&ctx, &transcript).unwrap();
    assert_eq!(t.subagent_count(), 1);
    assert!(t.cost > 0.0);
    let usd = |v: f64| cairn::format::dollars_short(v);
    let want = format!(
        "| session {} | agents 1 {} |",
        usd(t.cost),
        usd(t.subagent_cost())
    );
    assert!(out.contains(&want), "{out} lacks {want}");
    assert!(!out.contains("99"), "never the client's figure: {out}");
    // The aggregate's day index feeds today's figure (the lab records are
    // dated 2026-11-30, today on the fixed clock).
    let day = cairn::usage::day_totals(&w.state, "2026-11-30");
    assert!(
        out.contains(&format!("| today {} |", usd(day.cost + day.memory_cost))),
        "{out}"
    );
}

#[test]
fn the_default_source_is_the_usage_module() {
    // Whatever the usage module answers, the command prints a line.
    let w = World::new();
    let out = cairn::statusline::main(
        &w.ctx(&no_color()),
        &Settings::default(),
        &StatuslineConfig::default(),
        w.localise(example()).to_string().as_bytes(),
    );
    assert!(
        out.starts_with("Opus 5.5 | proj-interactive | main | ctx 2% 22k/1M"),
        "{out}"
    );
}

/// Same size, same mtime, other bytes: what a file looks like to a reader
/// that trusts its `stat`.
fn blank_behind_its_back(p: &Path) {
    let meta = std::fs::metadata(p).unwrap();
    std::fs::write(p, "\n".repeat(meta.len() as usize)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(meta.modified().unwrap())
        .unwrap();
}

#[test]
fn a_warm_render_reads_no_transcript_bytes() {
    // What keeps a render on a 100 MB session cheap once it was aggregated
    // (`cargo bench --bench statusline`): unchanged files are not opened.
    let w = World::new();
    let (sid, transcript) = lab_print_session(&w);
    let mut p = w.localise(example());
    p["session_id"] = sid.into();
    p["transcript_path"] = transcript.to_str().unwrap().into();
    let render = || {
        cairn::statusline::main(
            &w.ctx(&no_color()),
            &Settings::default(),
            &StatuslineConfig::default(),
            p.to_string().as_bytes(),
        )
    };
    let first = render();
    assert!(first.contains("| session $"), "{first}");

    blank_behind_its_back(&transcript);
    assert_eq!(render(), first);

    // The control: once the main file's mtime moves, its blank bytes are
    // read and the session's dollars change.
    std::thread::sleep(std::time::Duration::from_millis(15));
    std::fs::File::options()
        .write(true)
        .open(&transcript)
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    let session = |line: &str| {
        line.split(" | ")
            .find(|s| s.starts_with("session "))
            .map(String::from)
    };
    let after = render();
    assert!(session(&first).is_some());
    assert_ne!(session(&after), session(&first), "{after}");
}
