//! Report rendering on a small hand-made fixture (two sessions, a subagent,
//! split lines, 5-minute and 1-hour cache writes, an unknown model, a
//! synthetic placeholder, one memory-extraction call), with a fixed clock
//! and TZ=UTC. The reports are insta snapshots,
//! `tests/snapshots/usage_report_*.snap` (`cargo insta review` after a
//! change); the fixture itself is `tests/fixtures/usage/golden/projects/`.

use crate::common;

use cairn::context::Ctx;
use cairn::usage::ledger::{self, Entry};
use cairn::usage::{ReportKind, ReportOptions, report_with};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/usage/golden")
}

struct Fx {
    _state: tempfile::TempDir,
    ctx: Ctx,
}

fn fx() -> Fx {
    let state = tempfile::tempdir().unwrap();
    let mut env = common::lib_env(state.path(), Path::new("/nonexistent"));
    env.set("CLAUDE_CONFIG_DIR", &golden_dir().display().to_string());
    let ctx = common::ctx(env);
    ledger::append(
        &ctx.state_dir,
        &Entry {
            ts: "2026-11-29T10:05:00Z".into(),
            date: "2026-11-29".into(),
            kind: "memory".into(),
            backend: "anthropic/extract".into(),
            model: "claude-haiku-4-5".into(),
            input_tokens: 1500,
            output_tokens: 120,
            cache_write_tokens: 0,
            cache_read_tokens: 0,
            usd: Some(0.0021),
        },
    )
    .unwrap();
    Fx { _state: state, ctx }
}

fn run(f: &Fx, kind: ReportKind, json: bool, since: Option<&str>, until: Option<&str>) -> String {
    let mut o = ReportOptions::new(kind);
    o.json = json;
    o.since = since.map(Into::into);
    o.until = until.map(Into::into);
    report_with(&f.ctx, &o).unwrap()
}

/// The report as printed, against its committed snapshot.
fn golden(name: &str, got: &str) {
    let name = name.trim_end_matches(".out").replace('.', "_");
    common::snapshot(&format!("usage_report_{name}"), got);
}

/// The figures the goldens must show, computed by hand from the fixture
/// (USD per million: Opus 4.5 5/25, 5m 6.25, 1h 10, read 0.50; Haiku 4.5
/// 1/5, 5m 1.25, read 0.10; Sonnet 4.5 3/15, 5m 3.75, read 0.30).
fn hand_costs() -> [(&'static str, f64); 3] {
    let a1 = (12.0 * 5.0 + 340.0 * 25.0 + 2000.0 * 6.25 + 10000.0 * 0.5) / 1e6;
    let a2 = (8.0 * 5.0 + 120.0 * 25.0 + 5000.0 * 10.0 + 12000.0 * 0.5) / 1e6;
    let a3 = (3.0 * 5.0 + 40.0 * 25.0 + 17000.0 * 0.5) / 1e6;
    let s1 = (500.0 + 60.0 * 5.0 + 3000.0 * 1.25) / 1e6;
    let s2 = (20.0 + 200.0 * 5.0 + 3000.0 * 0.1) / 1e6;
    let b1 = (30.0 * 3.0 + 500.0 * 15.0 + 8000.0 * 3.75 + 20000.0 * 0.3) / 1e6;
    let b3 = (5.0 * 3.0 + 60.0 * 15.0 + 28000.0 * 0.3) / 1e6;
    [
        ("2026-11-28", a1 + a2 + s1 + s2),
        ("2026-11-29", a3 + b1),
        ("2026-11-30", b3),
    ]
}

#[test]
fn daily_json_matches_hand_figures_and_golden() {
    let f = fx();
    let out = run(&f, ReportKind::Daily, true, None, None);
    let v: Value = serde_json::from_str(&out).unwrap();
    let days = v["daily"].as_array().unwrap();
    for ((date, cost), d) in hand_costs().iter().zip(days) {
        assert_eq!(d["date"], *date);
        assert!(
            (d["totalCost"].as_f64().unwrap() - cost).abs() < 1e-6,
            "{date}"
        );
    }
    let t = &v["totals"];
    // Split lines counted once, the largest (final) usage kept.
    assert_eq!(
        t["outputTokens"],
        340 + 120 + 40 + 60 + 200 + 500 + 100 + 60
    );
    assert_eq!(t["cacheCreation1hTokens"], 5000);
    assert_eq!(t["cacheCreation5mTokens"], 2000 + 3000 + 8000);
    assert_eq!(t["memoryCalls"], 1);
    assert_eq!(v["unknownModels"], serde_json::json!(["claude-opus-9"]));
    golden("daily.json.out", &out);
}

#[test]
fn daily_text_golden() {
    let f = fx();
    golden(
        "daily.txt.out",
        &run(&f, ReportKind::Daily, false, None, None),
    );
}

#[test]
fn session_text_and_json_goldens() {
    let f = fx();
    let out = run(&f, ReportKind::Session, true, None, None);
    let v: Value = serde_json::from_str(&out).unwrap();
    let alpha = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == "s-alpha")
        .unwrap();
    assert_eq!(alpha["subagents"], 1);
    let sub = (500.0 + 300.0 + 3750.0 + 20.0 + 1000.0 + 300.0) / 1e6;
    assert!((alpha["subagentCost"].as_f64().unwrap() - sub).abs() < 1e-9);
    golden("session.json.out", &out);
    golden(
        "session.txt.out",
        &run(&f, ReportKind::Session, false, None, None),
    );
}

#[test]
fn monthly_and_blocks_goldens() {
    let f = fx();
    golden(
        "monthly.txt.out",
        &run(&f, ReportKind::Monthly, false, None, None),
    );
    let out = run(&f, ReportKind::Blocks, true, None, None);
    let v: Value = serde_json::from_str(&out).unwrap();
    let blocks = v["blocks"].as_array().unwrap();
    let kinds: Vec<(bool, bool)> = blocks
        .iter()
        .map(|b| {
            (
                b["isGap"].as_bool().unwrap(),
                b["isActive"].as_bool().unwrap(),
            )
        })
        .collect();
    // 11-28 09:00, gap, 11-29 10:00, gap, 11-29 23:00, gap, 11-30 08:00 (active).
    assert_eq!(
        kinds,
        [
            (false, false),
            (true, false),
            (false, false),
            (true, false),
            (false, false),
            (true, false),
            (false, true)
        ]
    );
    assert_eq!(blocks[0]["startTime"], "2026-11-28T09:00:00.000Z");
    // One response in the active block: no span, so no burn rate yet.
    assert_eq!(blocks[6]["entries"], 1);
    assert!(blocks[6]["burnRate"].is_null());
    golden(
        "blocks.txt.out",
        &run(&f, ReportKind::Blocks, false, None, None),
    );
}

#[test]
fn since_and_until_select_local_dates() {
    let f = fx();
    let v: Value = serde_json::from_str(&run(
        &f,
        ReportKind::Daily,
        true,
        Some("20261129"),
        Some("2026-11-29"),
    ))
    .unwrap();
    let dates: Vec<&str> = v["daily"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["date"].as_str().unwrap())
        .collect();
    assert_eq!(dates, ["2026-11-29"]);
    assert_eq!(v["totals"]["memoryCalls"], 1);
    let mut o = ReportOptions::new(ReportKind::Daily);
    o.since = Some("yesterday".into());
    let e = report_with(&f.ctx, &o).unwrap_err().to_string();
    assert!(e.contains("--since") && e.contains("YYYYMMDD"), "{e}");
}

#[test]
fn a_second_run_reads_only_state_and_gives_the_same_report() {
    let f = fx();
    let first = run(&f, ReportKind::Session, true, None, None);
    // That the warm run opens no transcript is checked in
    // `usage_incremental.rs` (an_unchanged_transcript_is_not_read_again).
    let second = run(&f, ReportKind::Session, true, None, None);
    assert_eq!(first, second);
}

#[test]
fn colour_only_when_asked() {
    let f = fx();
    let mut o = ReportOptions::new(ReportKind::Daily);
    assert!(!report_with(&f.ctx, &o).unwrap().contains('\x1b'));
    o.color = true;
    assert!(report_with(&f.ctx, &o).unwrap().contains("\x1b[1m"));
}

#[test]
fn project_report_sums_its_sessions() {
    let f = fx();
    let sessions: Value =
        serde_json::from_str(&run(&f, ReportKind::Session, true, None, None)).unwrap();
    let out = run(&f, ReportKind::Project, true, None, None);
    let v: Value = serde_json::from_str(&out).unwrap();
    let projects = v["projects"].as_array().unwrap();
    assert!(!projects.is_empty());
    let mut n_sessions = 0;
    for p in projects {
        let name = p["project"].as_str().unwrap();
        let mine: Vec<&Value> = sessions["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| {
                let cwd = s["cwd"].as_str().unwrap();
                (if cwd.is_empty() {
                    s["projectPath"].as_str().unwrap()
                } else {
                    cwd
                }) == name
            })
            .collect();
        assert_eq!(p["sessions"], mine.len(), "{name}");
        n_sessions += mine.len();
        let cost: f64 = mine.iter().map(|s| s["totalCost"].as_f64().unwrap()).sum();
        assert!(
            (p["totalCost"].as_f64().unwrap() - cost).abs() < 1e-6,
            "{name}"
        );
        let out_tokens: u64 = mine
            .iter()
            .map(|s| s["outputTokens"].as_u64().unwrap())
            .sum();
        assert_eq!(p["outputTokens"], out_tokens, "{name}");
    }
    assert_eq!(n_sessions, sessions["sessions"].as_array().unwrap().len());
    // Costliest first.
    let costs: Vec<f64> = projects
        .iter()
        .map(|p| p["totalCost"].as_f64().unwrap())
        .collect();
    assert!(costs.windows(2).all(|w| w[0] >= w[1]), "{costs:?}");
    assert_eq!(
        v["totals"]["outputTokens"],
        sessions["totals"]["outputTokens"]
    );
    golden("project.json.out", &out);
    golden(
        "project.txt.out",
        &run(&f, ReportKind::Project, false, None, None),
    );
}

/// Where a report means what ccusage's `--json` means, a script written for
/// ccusage reads it: the same keys, nesting and types (ccusage's shapes
/// from its source, `rust/crates/ccusage/src/{output,blocks}.rs`).
#[test]
fn json_reads_like_ccusage() {
    let f = fx();
    let json = |kind| -> Value { serde_json::from_str(&run(&f, kind, true, None, None)).unwrap() };
    let is_ts = |v: &Value| {
        v.as_str()
            .is_some_and(|s| s.ends_with('Z') && s.parse::<jiff::Timestamp>().is_ok())
    };
    let counts = [
        "inputTokens",
        "outputTokens",
        "cacheCreationTokens",
        "cacheReadTokens",
        "totalTokens",
    ];
    for (kind, key, period) in [
        (ReportKind::Daily, "daily", "date"),
        (ReportKind::Monthly, "monthly", "month"),
    ] {
        let v = json(kind);
        for row in v[key].as_array().unwrap() {
            assert!(row[period].is_string(), "{row}");
            for c in counts {
                assert!(row[c].is_u64(), "{key}.{c}: {row}");
            }
            assert!(row["totalCost"].is_f64() || row["totalCost"].is_u64());
            assert!(row["modelsUsed"].is_array());
            for b in row["modelBreakdowns"].as_array().unwrap() {
                assert!(b["modelName"].is_string() && b["cost"].is_number(), "{b}");
            }
        }
        for c in counts {
            assert!(v["totals"][c].is_u64(), "totals.{c}");
        }
    }
    let v = json(ReportKind::Session);
    for s in v["sessions"].as_array().unwrap() {
        assert!(s["sessionId"].is_string() && s["projectPath"].is_string());
        // Both ends of a session are instants, not one a date.
        assert!(is_ts(&s["firstActivity"]), "{}", s["firstActivity"]);
        assert!(is_ts(&s["lastActivity"]), "{}", s["lastActivity"]);
        assert!(s["firstActivity"].as_str() <= s["lastActivity"].as_str());
    }
    let beta = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == "s-beta")
        .unwrap();
    assert_eq!(beta["lastActivity"], "2026-11-30T08:15:00.000Z");

    // Blocks: counts under `tokenCounts` with the API's names; a block
    // still running has a burn rate and a projection with integer counts.
    let mut o = ReportOptions::new(ReportKind::Blocks);
    o.json = true;
    let ctx = common::ctx_at(f.ctx.env.clone(), "2026-11-29T12:00:00Z");
    let v: Value = serde_json::from_str(&report_with(&ctx, &o).unwrap()).unwrap();
    let blocks = v["blocks"].as_array().unwrap();
    for b in blocks.iter().filter(|b| b["isGap"] == false) {
        let t = &b["tokenCounts"];
        let mut keys: Vec<&String> = t.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "cacheCreationInputTokens",
                "cacheReadInputTokens",
                "inputTokens",
                "outputTokens"
            ],
            "{b}"
        );
        let sum: u64 = t
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(b["totalTokens"].as_u64(), Some(sum));
        assert!(b.get("inputTokens").is_none(), "counts are nested: {b}");
        assert!(is_ts(&b["startTime"]) && is_ts(&b["endTime"]) && is_ts(&b["actualEndTime"]));
        assert!(b["costUSD"].is_number() && b["models"].is_array());
    }
    let active = blocks
        .iter()
        .find(|b| b["isActive"] == true)
        .expect("a block running at 12:00 on 11-29");
    let rate = &active["burnRate"];
    assert!(rate["tokensPerMinute"].as_f64().unwrap() > 0.0, "{active}");
    assert!(rate["tokensPerMinuteForIndicator"].as_f64().unwrap() > 0.0);
    assert!(rate["costPerHour"].is_number());
    let p = &active["projection"];
    assert!(p["totalTokens"].is_u64(), "{p}");
    assert!(p["remainingMinutes"].is_u64(), "{p}");
    assert_eq!(p["remainingMinutes"], 180, "block 10:00-15:00 at 12:00");
    assert!(p["totalCost"].is_number());
}
