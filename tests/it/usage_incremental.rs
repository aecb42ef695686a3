//! The incremental aggregate through its public API: appends, repeats,
//! torn and rewritten files, subagent files, deleted transcripts (the
//! ledger), legacy layouts, state rebuilds.

use crate::common;
use cairn::context::Ctx;
use cairn::usage::{
    PriceTable, ReportKind, ReportOptions, day_totals, note_context_window, report_with,
    session_totals, session_totals_with,
};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

struct Fx {
    _dir: tempfile::TempDir,
    config: PathBuf,
    state: PathBuf,
    project: PathBuf,
}

impl Fx {
    fn new() -> Fx {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("claude");
        let project = config.join("projects/-home-u-app");
        std::fs::create_dir_all(&project).unwrap();
        Fx {
            state: dir.path().join("state"),
            config,
            project,
            _dir: dir,
        }
    }

    fn ctx(&self) -> Ctx {
        let mut env = common::lib_env(&self.state, Path::new("/nonexistent"));
        env.set("CLAUDE_CONFIG_DIR", &self.config.display().to_string());
        common::ctx(env)
    }

    fn main(&self, sid: &str) -> PathBuf {
        self.project.join(format!("{sid}.jsonl"))
    }

    fn agent(&self, sid: &str, agent: &str) -> PathBuf {
        let d = self.project.join(sid).join("subagents");
        std::fs::create_dir_all(&d).unwrap();
        d.join(format!("agent-{agent}.jsonl"))
    }
}

/// One assistant line as 2.1.x writes it.
#[allow(clippy::too_many_arguments)]
fn line(
    sid: &str,
    msg: &str,
    ts: &str,
    input: u64,
    output: u64,
    cw: u64,
    cr: u64,
    agent: Option<&str>,
) -> String {
    let mut v = json!({
        "parentUuid": "p", "isSidechain": agent.is_some(), "type": "assistant",
        "sessionId": sid, "timestamp": ts, "requestId": format!("req_{msg}"), "cwd": "/home/u/app",
        "message": {"id": msg, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
            "usage": {"input_tokens": input, "output_tokens": output,
                "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr,
                "cache_creation": {"ephemeral_5m_input_tokens": cw, "ephemeral_1h_input_tokens": 0}}}
    });
    if let Some(a) = agent {
        v["agentId"] = json!(a);
    }
    let mut s = v.to_string();
    s.push('\n');
    s
}

fn user(sid: &str, text: &str) -> String {
    format!(
        "{}\n",
        json!({"type": "user", "sessionId": sid, "timestamp": "2026-11-30T10:00:00Z",
            "message": {"role": "user", "content": text}})
    )
}

fn append(p: &Path, s: &str) {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(p)
        .unwrap()
        .write_all(s.as_bytes())
        .unwrap();
}

/// mtimes must move between writes even on coarse clocks.
fn tick() {
    std::thread::sleep(std::time::Duration::from_millis(15));
}

const TS: &str = "2026-11-30T10:00:01Z";

#[test]
fn appended_lines_are_counted_once_and_repeats_change_nothing() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    append(&p, &user("s1", "hello usage"));
    // One response written as three lines (thinking, text, tool_use).
    for _ in 0..3 {
        append(&p, &line("s1", "m1", TS, 10, 50, 1000, 20000, None));
    }
    let a = session_totals(&ctx, &p).unwrap();
    assert_eq!((a.tokens.input, a.tokens.output, a.responses), (10, 50, 1));
    assert_eq!(a.tokens.cache_read, 20000);
    let b = session_totals(&ctx, &p).unwrap();
    assert_eq!(a, b);

    tick();
    append(&p, &line("s1", "m2", TS, 5, 7, 0, 21000, None));
    append(&p, &line("s1", "m2", TS, 5, 7, 0, 21000, None));
    let c = session_totals(&ctx, &p).unwrap();
    assert_eq!((c.tokens.input, c.tokens.output, c.responses), (15, 57, 2));
    assert_eq!(c.tokens.cache_read, 41000);
    // $3 in, $15 out, $3.75 5m writes, $0.30 reads (Sonnet 4.5).
    let want = (15.0 * 3.0 + 57.0 * 15.0 + 1000.0 * 3.75 + 41000.0 * 0.3) / 1e6;
    assert!((c.cost - want).abs() < 1e-12, "{} vs {want}", c.cost);
    assert_eq!(session_totals(&ctx, &p).unwrap(), c);
}

/// The resume test on a real client's transcript (2.1.332 print mode: one
/// line per content block, each repeating the response's usage), through
/// the aggregate the status line and the reports run: appended in uneven
/// chunks that cut lines anywhere, updated after each, it ends with the
/// totals of one read of the whole file, each response counted once.
#[test]
fn a_real_transcript_resumed_in_uneven_chunks_equals_one_read() {
    let sid = "0ac84ade-4b41-4c80-8e17-cb18a7650ec5";
    let content = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/transcripts/v2.1.332/print")
            .join(format!("{sid}.jsonl")),
    )
    .unwrap();
    let whole = Fx::new();
    std::fs::write(whole.main(sid), &content).unwrap();
    let want = session_totals(&whole.ctx(), &whole.main(sid)).unwrap();
    // Three lines of msg_lab_p1_0001 and more of the others: fewer
    // responses than usage lines, so a line counted twice would show.
    let lines = String::from_utf8_lossy(&content)
        .lines()
        .filter(|l| l.contains("\"usage\"") && l.contains("\"assistant\""))
        .count() as u64;
    assert!(want.responses > 0 && want.responses < lines, "{want:?}");

    let fx = Fx::new();
    let p = fx.main(sid);
    for chunk in content.chunks(7919) {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(chunk)
            .unwrap();
        session_totals(&fx.ctx(), &p).unwrap();
    }
    let got = session_totals(&fx.ctx(), &p).unwrap();
    assert_eq!(got.tokens, want.tokens);
    assert_eq!(got.responses, want.responses);
    assert_eq!(got.cost, want.cost);
}

#[test]
fn the_largest_usage_wins_across_two_updates() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    // Older clients: the stream's first usage (output 1) on the first line.
    append(&p, &line("s1", "m1", TS, 10, 1, 0, 100, None));
    assert_eq!(session_totals(&ctx, &p).unwrap().tokens.output, 1);
    tick();
    append(&p, &line("s1", "m1", TS, 10, 55, 0, 100, None));
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!((t.tokens.output, t.responses), (55, 1));
    // And an early line seen again later does not lower it.
    tick();
    append(&p, &line("s1", "m1", TS, 10, 1, 0, 100, None));
    assert_eq!(session_totals(&ctx, &p).unwrap().tokens.output, 55);
}

#[test]
fn a_torn_last_line_counts_once_completed() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    append(&p, &line("s1", "m1", TS, 10, 20, 0, 0, None));
    let full = line("s1", "m2", TS, 1, 2, 0, 0, None);
    let (head, tail) = full.split_at(full.len() / 2);
    append(&p, head);
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!((t.tokens.input, t.responses), (10, 1));
    tick();
    append(&p, tail);
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!((t.tokens.input, t.tokens.output, t.responses), (11, 22, 2));
}

#[test]
fn a_truncated_or_rewritten_file_is_read_again() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    append(&p, &line("s1", "m1", TS, 100, 0, 0, 0, None));
    append(&p, &line("s1", "m2", TS, 200, 0, 0, 0, None));
    assert_eq!(session_totals(&ctx, &p).unwrap().tokens.input, 300);
    // Replaced by a shorter file with other content.
    tick();
    std::fs::write(&p, line("s1", "m3", TS, 7, 0, 0, 0, None)).unwrap();
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!((t.tokens.input, t.responses), (7, 1));
    // Rewritten in place to a longer file whose start differs.
    tick();
    let mut s = line("s1", "m4", TS, 1000, 0, 0, 0, None);
    s.push_str(&line("s1", "m5", TS, 2000, 0, 0, 0, None));
    std::fs::write(&p, s).unwrap();
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!((t.tokens.input, t.responses), (3000, 2));
}

/// The status line's warm render and a warm report rest on this: a file
/// whose size, mtime and inode are unchanged is not opened again. Its
/// content is blanked behind the aggregate's back (same size, same mtime):
/// read again, it would count nothing.
#[test]
fn an_unchanged_transcript_is_not_read_again() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    append(&p, &user("s1", "hello"));
    append(&p, &line("s1", "m1", TS, 10, 50, 1000, 20000, None));
    append(&p, &line("s1", "m2", TS, 5, 7, 0, 21000, None));
    let mut o = ReportOptions::new(ReportKind::Daily);
    o.json = true;
    let report = report_with(&ctx, &o).unwrap();
    let totals = session_totals(&ctx, &p).unwrap();
    assert_eq!(totals.responses, 2);

    let meta = std::fs::metadata(&p).unwrap();
    let blank = "\n".repeat(meta.len() as usize);
    std::fs::write(&p, blank).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(meta.modified().unwrap())
        .unwrap();
    assert_eq!(session_totals(&ctx, &p).unwrap(), totals);
    assert_eq!(report_with(&ctx, &o).unwrap(), report);

    // The control: once the mtime moves, the blank file is read.
    tick();
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    assert_eq!(session_totals(&ctx, &p).unwrap().responses, 0);
}

#[test]
fn subagent_files_are_swept_and_kept_apart() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    append(&p, &line("s1", "m1", TS, 10, 10, 0, 0, None));
    assert_eq!(session_totals(&ctx, &p).unwrap().subagent_count(), 0);
    // A subagent starts after the first render; no SubagentStop needed.
    tick();
    let a = fx.agent("s1", "a1");
    std::fs::write(
        a.with_extension("meta.json"),
        r#"{"agentType":"Explore","description":"look"}"#,
    )
    .unwrap();
    append(&a, &line("s1", "s1m1", TS, 3, 4, 0, 0, Some("a1")));
    append(&a, &line("s1", "s1m1", TS, 3, 4, 0, 0, Some("a1")));
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!(t.subagent_count(), 1);
    assert_eq!(t.subagents[0].agent_id, "a1");
    assert_eq!(t.subagents[0].agent_type.as_deref(), Some("Explore"));
    assert_eq!((t.subagents[0].tokens.input, t.main.tokens.input), (3, 10));
    assert_eq!((t.tokens.input, t.responses), (13, 2));
    assert!((t.cost - t.main.cost - t.subagent_cost()).abs() < 1e-12);
    // A second agent in a workflow folder.
    tick();
    let wf = fx.project.join("s1/subagents/workflows/wf_1");
    std::fs::create_dir_all(&wf).unwrap();
    append(
        &wf.join("agent-a2.jsonl"),
        &line("s1", "s1m2", TS, 1, 1, 0, 0, Some("a2")),
    );
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!(t.subagent_count(), 2);
}

#[test]
fn a_deleted_transcript_keeps_its_totals_in_the_ledger() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("old");
    append(
        &p,
        &line("old", "m1", "2026-10-01T09:00:00Z", 100, 10, 0, 0, None),
    );
    let a = fx.agent("old", "a1");
    append(
        &a,
        &line(
            "old",
            "om1",
            "2026-10-01T09:01:00Z",
            50,
            5,
            0,
            0,
            Some("a1"),
        ),
    );
    let before = session_totals(&ctx, &p).unwrap();
    assert_eq!(before.tokens.input, 150);
    // The client's 30-day cleanup.
    std::fs::remove_file(&p).unwrap();
    std::fs::remove_dir_all(fx.project.join("old")).unwrap();
    let after = session_totals(&ctx, &p).unwrap();
    assert_eq!(after.tokens, before.tokens);
    assert_eq!(after.cost, before.cost);
    assert_eq!(after.missing_files, 2);

    let p2 = fx.main("new");
    append(&p2, &line("new", "n1", TS, 1, 1, 0, 0, None));
    let mut o = ReportOptions::new(ReportKind::Session);
    o.json = true;
    let v: Value = serde_json::from_str(&report_with(&ctx, &o).unwrap()).unwrap();
    let rows = v["sessions"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v:#}");
    let old = rows.iter().find(|r| r["sessionId"] == "old").unwrap();
    assert_eq!(old["inputTokens"], 150);
    assert_eq!(old["transcriptMissing"], true);
    assert_eq!(old["subagents"], 1);
    o.kind = ReportKind::Monthly;
    let v: Value = serde_json::from_str(&report_with(&ctx, &o).unwrap()).unwrap();
    let months: Vec<&str> = v["monthly"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["month"].as_str().unwrap())
        .collect();
    assert_eq!(months, ["2026-10", "2026-11"]);
    // A report run from a fresh process finds the ledger-only session too.
    let v: Value = serde_json::from_str(&report_with(&ctx, &o).unwrap()).unwrap();
    assert_eq!(v["totals"]["inputTokens"], 151);
}

#[test]
fn lost_or_old_summaries_are_rebuilt_without_double_counting() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    append(&p, &line("s1", "m1", TS, 10, 20, 30, 40, None));
    append(&p, &line("s1", "m2", TS, 1, 2, 3, 4, None));
    let want = session_totals(&ctx, &p).unwrap();
    let summary = fx.state.join("usage/sessions/s1.json");
    // Another version's summary.
    let mut v: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    v["v"] = json!(999);
    std::fs::write(&summary, v.to_string()).unwrap();
    assert_eq!(session_totals(&ctx, &p).unwrap(), want);
    // No summary at all.
    std::fs::remove_file(&summary).unwrap();
    assert_eq!(session_totals(&ctx, &p).unwrap(), want);
    // Garbage.
    std::fs::write(&summary, "{oops").unwrap();
    assert_eq!(session_totals(&ctx, &p).unwrap(), want);
}

#[test]
fn legacy_layouts_attribute_subagents() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/usage");
    let state = tempfile::tempdir().unwrap();
    let ctx = common::ctx(common::lib_env(state.path(), Path::new("/nonexistent")));
    // 2.0.77: flat agent-<7 hex>.jsonl files next to the sessions; each
    // names its session inside.
    let dir = root.join("v2.0.77/projects/-tmp-cclab-2-0-77-proj-print");
    let t = session_totals(
        &ctx,
        &dir.join("502b6456-48ee-4f67-853b-8640402f54c3.jsonl"),
    )
    .unwrap();
    let mut ids: Vec<&str> = t.subagents.iter().map(|a| a.agent_id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["a0f3899", "ab5913b", "adf562c", "aed1791"]);
    assert!(t.subagent_cost() > 0.0 && t.main.cost > 0.0);
    let t = session_totals(
        &ctx,
        &dir.join("f292ccb3-a8c6-482a-a15a-1e441e7e9638.jsonl"),
    )
    .unwrap();
    assert_eq!(t.subagent_count(), 3);
    // 1.0.128: the subagent's turns are sidechain records in the main file.
    let p = root.join("v1.0.128/projects/-tmp-cclab-1-0-128-proj-print/701bf4da-596a-477b-a128-75f846acb24e.jsonl");
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!(t.subagent_count(), 1);
    assert_eq!(t.subagents[0].agent_id, "sidechain");
    assert!(t.subagents[0].responses >= 2, "{t:#?}");
    assert!(t.main.responses >= 2);
    // 2.1.112: subagents/ folder with a .meta.json.
    let p = root.join("v2.1.112/projects/-tmp-cclab-2-1-112-proj-print/10c2c049-38e7-4786-8116-9d4383d9df4e.jsonl");
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!(t.subagent_count(), 1);
    assert_eq!(t.subagents[0].agent_id, "a3b44639ebab1d59f");
}

#[test]
fn prices_context_window_and_day_index() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    append(&p, &line("s1", "m1", TS, 100_000, 0, 0, 0, None));
    let t = session_totals(&ctx, &p).unwrap();
    assert!((t.cost - 0.3).abs() < 1e-9);
    // Another table re-prices without re-reading.
    let cheap = PriceTable::with_overrides(&[serde_json::from_value(json!({
        "model": "claude-sonnet-4-5", "input": 1.0, "output": 1.0
    }))
    .unwrap()]);
    let t = session_totals_with(&ctx, &cheap, &p).unwrap();
    assert!((t.cost - 0.1).abs() < 1e-9);
    let t = session_totals(&ctx, &p).unwrap();
    assert!((t.cost - 0.3).abs() < 1e-9);

    note_context_window(&ctx, &p, 1_000_000).unwrap();
    assert_eq!(
        session_totals(&ctx, &p).unwrap().context_window,
        Some(1_000_000)
    );
    tick();
    append(&p, &line("s1", "m2", TS, 1, 0, 0, 0, None));
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!(
        (t.context_window, t.tokens.input),
        (Some(1_000_000), 100_001)
    );

    let day = day_totals(&ctx.state_dir, "2026-11-30");
    assert!((day.cost - t.cost).abs() < 1e-12);
    assert_eq!((day.sessions, day.responses), (1, 2));
}

#[test]
fn unknown_models_are_flagged_and_priced_zero() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    append(
        &p,
        &line("s1", "m1", TS, 10, 10, 0, 0, None)
            .replace("claude-sonnet-4-5-20250929", "claude-opus-9"),
    );
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!(t.unknown_models, ["claude-opus-9"]);
    assert_eq!((t.cost, t.tokens.input), (0.0, 10));
}

#[test]
fn a_read_only_state_folder_still_gives_totals() {
    let fx = Fx::new();
    let p = fx.main("s1");
    append(&p, &line("s1", "m1", TS, 10, 10, 0, 0, None));
    // The state "folder" is a file: nothing can be created under it.
    std::fs::write(&fx.state, b"not a folder").unwrap();
    let t = session_totals(&fx.ctx(), &p).unwrap();
    assert_eq!(t.tokens.input, 10);
}

#[test]
fn concurrent_updates_never_double_count() {
    let fx = Fx::new();
    let p = fx.main("s1");
    let mut want = 0;
    for i in 0..200u64 {
        append(&p, &line("s1", &format!("m{i}"), TS, i, 1, 0, 0, None));
        want += i;
    }
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let ctx = fx.ctx();
                for _ in 0..5 {
                    session_totals(&ctx, &p).unwrap();
                }
            });
        }
        s.spawn(|| {
            for i in 200..260u64 {
                append(&p, &line("s1", &format!("m{i}"), TS, 1, 1, 0, 0, None));
            }
        });
    });
    tick();
    let t = session_totals(&fx.ctx(), &p).unwrap();
    assert_eq!((t.tokens.input, t.responses), (want + 60, 260));
}

#[test]
fn a_sidechain_replay_of_a_main_message_counts_once() {
    // `/btw` and forks replay a parent message under a new request id.
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    append(&p, &line("s1", "m1", TS, 100, 10, 0, 0, None));
    let a = fx.agent("s1", "side");
    let replay = line("s1", "m1", TS, 100, 10, 0, 0, Some("side")).replace("req_m1", "req_other");
    append(&a, &replay);
    append(&a, &line("s1", "own", TS, 1, 1, 0, 0, Some("side")));
    let t = session_totals(&ctx, &p).unwrap();
    assert_eq!((t.tokens.input, t.responses), (101, 2));
    assert_eq!(t.main.tokens.input, 100);
}

#[test]
fn reports_refresh_the_day_index() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    append(&fx.main("s1"), &line("s1", "m1", TS, 1000, 10, 0, 0, None));
    append(&fx.main("s2"), &line("s2", "m2", TS, 2000, 20, 0, 0, None));
    let mut o = ReportOptions::new(ReportKind::Daily);
    o.json = true;
    let v: Value = serde_json::from_str(&report_with(&ctx, &o).unwrap()).unwrap();
    let day = day_totals(&ctx.state_dir, "2026-11-30");
    assert_eq!(day.sessions, 2);
    assert!((day.cost - v["daily"][0]["totalCost"].as_f64().unwrap()).abs() < 1e-6);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Whatever the byte boundaries the updates fall on (mid-line
        /// included), the incremental totals equal one read of the whole file.
        #[test]
        fn incremental_equals_one_shot(
            resp in proptest::collection::vec((0u64..4, 1u64..50, 1u64..3), 1..12),
            cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..6),
        ) {
            let mut text = String::new();
            for (i, (msg, out, copies)) in resp.iter().enumerate() {
                for c in 0..*copies {
                    // Later lines of a response may carry a larger output.
                    let o = if c == 0 { 1 } else { *out };
                    text.push_str(&line("s1", &format!("m{msg}"), TS, i as u64 + 1, o, 0, 0, None));
                }
            }
            let whole = Fx::new();
            std::fs::write(whole.main("s1"), &text).unwrap();
            let want = session_totals(&whole.ctx(), &whole.main("s1")).unwrap();

            let fx = Fx::new();
            let p = fx.main("s1");
            let mut points: Vec<usize> = cuts.iter().map(|c| c.index(text.len())).collect();
            points.sort();
            let mut at = 0;
            for cut in points.into_iter().chain([text.len()]) {
                append(&p, &text[at..cut]);
                at = cut;
                session_totals(&fx.ctx(), &p).unwrap();
            }
            let got = session_totals(&fx.ctx(), &p).unwrap();
            prop_assert_eq!(got.tokens, want.tokens);
            prop_assert_eq!(got.responses, want.responses);
            prop_assert_eq!(got.cost, want.cost);
        }
    }
}

#[test]
fn fast_mode_is_priced_from_usage_speed() {
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    let fast = line("s1", "m1", TS, 1_000_000, 0, 0, 0, None)
        .replace("claude-sonnet-4-5-20250929", "claude-opus-4-6")
        .replace(
            "\"cache_creation\":",
            "\"speed\":\"fast\",\"cache_creation\":",
        );
    append(&p, &fast);
    // Text quoting the word must not make a standard request fast.
    append(
        &p,
        &line("s1", "m2", TS, 1_000_000, 0, 0, 0, None)
            .replace("claude-sonnet-4-5-20250929", "claude-opus-4-6")
            .replace("\"hi\"", "\"fast\""),
    );
    let t = session_totals(&ctx, &p).unwrap();
    // Opus 4.6: $5 per million input, 6x in fast mode; no long-context
    // premium for a request made after 2026-03-13.
    assert!((t.cost - (30.0 + 5.0)).abs() < 1e-9, "{}", t.cost);
}

#[test]
fn a_copy_of_a_session_under_another_path_is_read() {
    // Found by the benchmark: the fast path returned the totals of the
    // first path without looking at the second.
    let fx = Fx::new();
    let ctx = fx.ctx();
    let p = fx.main("s1");
    append(&p, &line("s1", "m1", TS, 10, 1, 0, 0, None));
    assert_eq!(session_totals(&ctx, &p).unwrap().responses, 1);
    let other = fx.config.join("projects/-elsewhere/s1.jsonl");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::copy(&p, &other).unwrap();
    assert_eq!(session_totals(&ctx, &other).unwrap().responses, 1);
    append(&other, &line("s1", "m2", TS, 10, 1, 0, 0, None));
    let t = session_totals(&ctx, &other).unwrap();
    assert_eq!((t.responses, t.tokens.input), (2, 20));
}
