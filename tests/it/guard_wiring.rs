//! The session guard through `cairn hook`: the gate on UserPromptSubmit, the
//! context guard on Stop (next to memory capture), the hand-off at SessionStart.

use crate::common;
use common::{Project, Turn};
use serde_json::{Value, json};
use std::io::Write;

fn prompt(p: &Project, text: &str) -> std::process::Output {
    p.hook(&json!({"session_id":"s1","transcript_path":"/x","cwd":p.root,"hook_event_name":"UserPromptSubmit","prompt":text}))
}

#[test]
fn the_gate_asks_for_anchors_only_when_the_prompt_has_none() {
    let p = Project::new();
    let o = prompt(&p, "Fix the bug like last time, it's still broken");
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).expect("gate output is JSON");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.chars().count() < 1500, "{ctx}");
    for o in [
        prompt(&p, "Fix the off-by-one in src/parse.rs:42"),
        prompt(&p, "/compact"),
        prompt(&p, "OK-done"),
        prompt(&p, "merci !"),
    ] {
        assert!(
            o.status.success() && o.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    std::fs::write(p.root.join(".cairn.toml"), "[gate]\nenabled = false\n").unwrap();
    assert!(
        prompt(&p, "Fix the bug like last time, it's still broken")
            .stdout
            .is_empty()
    );
}

/// A transcript whose last main-thread usage fills `fill` tokens of a 200K model.
fn transcript_with_fill(p: &Project, name: &str, fill: u64) -> std::path::PathBuf {
    let t = p.transcript(
        name,
        &[Turn::new("Refactor src/lib.rs", "Refactored.").write("src/lib.rs")],
    );
    let mut f = std::fs::OpenOptions::new().append(true).open(&t).unwrap();
    let rec = json!({"type":"assistant","isSidechain":false,"requestId":format!("req_{fill}"),"timestamp":"2026-11-30T10:01:00.000Z",
        "message":{"id":format!("msg_{fill}"),"role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Refactored."}],
        "usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":fill - 100,"output_tokens":50}}});
    writeln!(f, "{rec}").unwrap();
    t
}

#[test]
fn the_guard_blocks_once_per_level_and_capture_still_runs() {
    let mut p = Project::new();
    p.env("CAIRN_MEMORY_SYNC", "true");
    let t = transcript_with_fill(&p, "t1", 130_000);
    let o = p.hook(&p.stop(&t, Some("Refactored.")));
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).expect("a block at warn");
    assert_eq!(v["decision"], "block");
    assert!(
        v["reason"].as_str().unwrap().contains("checkpoints/"),
        "{v}"
    );
    let notes: Vec<_> = std::fs::read_dir(p.root.join("memory_sessions/checkpoints"))
        .unwrap()
        .collect();
    assert_eq!(notes.len(), 1);
    assert!(
        p.log("2026-11-30").contains("src/lib.rs"),
        "memory capture ran too"
    );

    // Same level again: no second block.
    let o = p.hook(&p.stop(&t, Some("Refactored.")));
    assert!(
        o.status.success() && o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );

    // Hard level: one more block, then the next session starts from the note.
    let t2 = transcript_with_fill(&p, "t2", 170_000);
    let o = p.hook(&p.stop(&t2, Some("Refactored.")));
    let v: Value = serde_json::from_slice(&o.stdout).expect("a block at hard");
    assert!(v["reason"].as_str().unwrap().contains("/clear"), "{v}");
    let o = p.hook(&json!({"session_id":"s2","transcript_path":"/x","cwd":p.root,"hook_event_name":"SessionStart","source":"startup"}));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.contains("Checkpoint de la session précédente"), "{ctx}");
    assert!(p.diagnostics().is_empty(), "{}", p.diagnostics());
}

/// What `SubagentStop` does end to end: nothing the session can see or the
/// state keeps. Even past the blocking threshold it never blocks (a
/// subagent cannot compact), the compaction call (`agent_type: ""`)
/// included, and it leaves no state: the guard counts subagent transcripts
/// itself when it writes a note, and usage finds them from the main one.
#[test]
fn subagent_stop_never_blocks_and_records_nothing() {
    let p = Project::new();
    let t = transcript_with_fill(&p, "t", 190_000);
    for agent_type in ["general-purpose", ""] {
        let o = p.hook(&json!({"session_id":"s","transcript_path":t,"cwd":p.root,"hook_event_name":"SubagentStop",
            "agent_id":"a123","agent_type":agent_type,"agent_transcript_path":"/nope","stop_hook_active":false}));
        assert!(o.status.success(), "{o:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), "");
        assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    }
    assert!(
        !p.state.exists(),
        "SubagentStop wrote under the state folder"
    );
    // The same fill on Stop does block: the silence above is the event's,
    // not the transcript's.
    let o = p.hook(&json!({"session_id":"s","transcript_path":t,"cwd":p.root,"hook_event_name":"Stop","stop_hook_active":false}));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("\"decision\""),
        "{o:?}"
    );
}

#[test]
fn the_status_line_command_always_prints_one_line_and_exits_0() {
    let p = Project::new();
    let payload = json!({
        "session_id": "s1", "transcript_path": p.base.join("none.jsonl"), "cwd": p.root,
        "model": {"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet 4.5"},
        "workspace": {"current_dir": p.root, "project_dir": p.root},
        "context_window": {"context_window_size": 200000, "current_usage": null},
        "version": "2.1.332"
    });
    for input in [
        payload.to_string().into_bytes(),
        b"garbage{".to_vec(),
        Vec::new(),
    ] {
        let o = p
            .cairn()
            .env("COLUMNS", "60")
            .env("NO_COLOR", "1")
            .arg("statusline")
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(o.status.success());
        let out = String::from_utf8(o.stdout).unwrap();
        assert_eq!(out.lines().count(), 1, "{out:?}");
        assert!(out.trim_end().chars().count() <= 60, "{out:?}");
    }
    let o = p
        .cairn()
        .env("NO_COLOR", "1")
        .arg("statusline")
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with("Sonnet 4.5"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn the_checkpoint_prices_subagents_from_the_usage_aggregate() {
    let p = Project::new();
    let t = transcript_with_fill(&p, "t3", 130_000);
    let sub = t.with_extension("").join("subagents");
    std::fs::create_dir_all(&sub).unwrap();
    // Sonnet 4.5: $3 per million input tokens, $15 per million output
    // (under the 200K long-context line): 100K input + 10K output = $0.45,
    // written twice (one line per content block, as the client does):
    // counted once.
    let rec = json!({"type":"assistant","isSidechain":true,"agentId":"a1","sessionId":"t3","requestId":"req_sub",
        "timestamp":"2026-11-30T10:00:30.000Z",
        "message":{"id":"msg_sub","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Found it."}],
        "usage":{"input_tokens":100_000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":10_000}}});
    std::fs::write(sub.join("agent-a1.jsonl"), format!("{rec}\n{rec}\n")).unwrap();
    let o = p.hook(&p.stop(&t, Some("Refactored.")));
    let v: Value = serde_json::from_slice(&o.stdout).expect("a block at warn");
    assert_eq!(v["decision"], "block");
    let dir = p.root.join("memory_sessions/checkpoints");
    let note = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .next()
        .unwrap();
    assert!(note.contains(", dépense : $0.45\n"), "{note}");
    assert!(p.diagnostics().is_empty(), "{}", p.diagnostics());
}

fn assistant_line(id: &str, fill: u64, text: &str) -> String {
    json!({"type":"assistant","isSidechain":false,"requestId":format!("req_{id}"),"timestamp":"2026-11-30T10:05:00.000Z",
        "message":{"id":format!("msg_{id}"),"role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":text}],
        "usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":fill - 100,"output_tokens":50}}})
    .to_string()
}

/// The client writes its transcript asynchronously: a Stop can arrive
/// before the answer's line. Near a threshold the guard waits for it rather
/// than judge the previous call's fill.
#[test]
fn near_a_level_the_guard_waits_for_the_answer_the_stop_names() {
    let p = Project::new();
    // Turn 1 at 117K (silent, but within one reply's reach of warn at
    // 120K); turn 2's prompt is written, its answer (at 121K: warn)
    // arrives 150 ms after the Stop.
    let t = transcript_with_fill(&p, "t4", 117_000);
    let prompt = json!({"type":"user","isSidechain":false,"timestamp":"2026-11-30T10:04:00.000Z",
        "message":{"role":"user","content":"Relis src/lib.rs"}});
    common::append(&t, format!("{prompt}\n").as_bytes());
    let late = common::append_later(
        &t,
        format!(
            "{}\n",
            assistant_line("late", 121_000, "Relu, rien à signaler.")
        )
        .into_bytes(),
        150,
    );
    let o = p.hook(&p.stop(&t, Some("Relu, rien à signaler.")));
    late.join().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).expect("a block at warn");
    assert!(v["reason"].as_str().unwrap().contains("121,000"), "{v}");

    // Same text as an earlier answer is no proof either way; a different
    // last text is: wait for the named one (here: it comes at 161K, hard).
    common::append(
        &t,
        format!("{}\n", assistant_line("mid", 157_000, "Autre chose.")).as_bytes(),
    );
    let late = common::append_later(
        &t,
        format!("{}\n", assistant_line("hard", 161_000, "Fini pour de bon.")).into_bytes(),
        150,
    );
    let o = p.hook(&p.stop(&t, Some("Fini pour de bon.")));
    late.join().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).expect("a block at hard");
    assert!(v["reason"].as_str().unwrap().contains("161,000"), "{v}");
    assert!(p.diagnostics().is_empty(), "{}", p.diagnostics());
}

/// A Stop whose answer never shows up, near a threshold, costs a bounded
/// wait (one diagnostics line says so), then the guard decides on what the
/// file holds.
#[test]
fn a_missing_answer_near_a_level_costs_a_bounded_wait() {
    let p = Project::new();
    let t = transcript_with_fill(&p, "t5", 117_000);
    let o = p.hook(&p.stop(&t, Some("A text that is not in the transcript.")));
    assert!(o.status.success());
    assert!(o.stdout.is_empty(), "decided on 117K: below warn");
    let diag = p.diagnostics();
    assert!(
        diag.contains("INFO guard: the answer this Stop names was not in")
            && diag.contains("after 500 ms; judged what is there"),
        "{diag}"
    );
}

/// Issue 11: far from every threshold, a late answer cannot change what
/// the guard decides, so the Stop does not wait for it; nor when the Stop
/// names no answer (the turn ended on a tool call), however near the fill.
/// A wait that ran to its end would leave its diagnostics line.
#[test]
fn regression_issue_11_no_wait_when_the_late_answer_cannot_cross_a_level() {
    let p = Project::new();
    // Far: 60K, a late answer cannot reach 120K.
    let far = transcript_with_fill(&p, "t6", 60_000);
    let prompt = json!({"type":"user","isSidechain":false,"timestamp":"2026-11-30T10:04:00.000Z",
        "message":{"role":"user","content":"Relis src/lib.rs"}});
    common::append(&far, format!("{prompt}\n").as_bytes());
    let o = p.hook(&p.stop(&far, Some("An answer that never lands.")));
    assert!(o.status.success() && o.stdout.is_empty());
    // Near, and no answer named.
    let near = transcript_with_fill(&p, "t7", 119_000);
    common::append(&near, format!("{prompt}\n").as_bytes());
    let o = p.hook(&p.stop(&near, None));
    assert!(o.status.success() && o.stdout.is_empty());
    let o = p.hook(&p.stop(&near, Some("")));
    assert!(o.status.success() && o.stdout.is_empty());
    // Warn fired already and hard is out of reach: no wait either.
    let fired = transcript_with_fill(&p, "t8", 130_000);
    let o = p.hook(&p.stop(&fired, Some("Refactored.")));
    assert_eq!(
        serde_json::from_slice::<Value>(&o.stdout).unwrap()["decision"],
        "block"
    );
    common::append(&fired, format!("{prompt}\n").as_bytes());
    let o = p.hook(&p.stop(&fired, Some("Another answer that never lands.")));
    assert!(o.status.success() && o.stdout.is_empty());
    assert!(p.diagnostics().is_empty(), "{}", p.diagnostics());
}
