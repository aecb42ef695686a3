//! Issue 11: the status line's "today" is what `cairn usage daily` says of
//! today, whatever sessions this machine rendered before; the client's
//! compaction call is no agent; a session whose main file never existed is
//! reported as such. The real binary, on the lab's real 2.1.332
//! transcripts (all dated 2026-11-30, the fixed clock's day) laid out as
//! the client keeps them.

use crate::common;

use common::Project;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

const PRINT: &str = "0ac84ade-4b41-4c80-8e17-cb18a7650ec5";
const FAILED_READ: &str = "9b46cfd4-81d8-4944-b28a-5650b3682d24";
const INTERACTIVE: &str = "592d55cf-11d7-4a1b-99fa-bf536f8ae9a6";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            copy_tree(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// A config folder holding the lab's three sessions of the day, in their
/// two project folders; `CLAUDE_CONFIG_DIR` points at it.
struct Day {
    p: Project,
    projects: PathBuf,
}

impl Day {
    fn new() -> Day {
        let mut p = Project::new();
        let config = p.base.join("claude");
        let projects = config.join("projects");
        let print = projects.join("-tmp-cclab-proj-print");
        let interactive = projects.join("-tmp-cclab-proj-interactive");
        std::fs::create_dir_all(&print).unwrap();
        std::fs::create_dir_all(&interactive).unwrap();
        let src = fixtures().join("transcripts/v2.1.332");
        for sid in [PRINT, FAILED_READ] {
            let f = format!("{sid}.jsonl");
            copy_tree(&src.join("print").join(&f), &print.join(&f));
        }
        copy_tree(&src.join("print").join(PRINT), &print.join(PRINT));
        let f = format!("{INTERACTIVE}.jsonl");
        copy_tree(&src.join("interactive").join(&f), &interactive.join(&f));
        p.env("CLAUDE_CONFIG_DIR", config.to_str().unwrap());
        Day { p, projects }
    }

    fn transcript(&self, project: &str, sid: &str) -> PathBuf {
        self.projects.join(project).join(format!("{sid}.jsonl"))
    }

    /// `cairn statusline` for one session, as the client runs it.
    fn render(&self, project: &str, sid: &str) -> String {
        let payload = serde_json::json!({
            "session_id": sid,
            "transcript_path": self.transcript(project, sid),
            "cwd": self.p.root,
            "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
            "workspace": {"current_dir": self.p.root, "project_dir": self.p.root},
            "context_window": {"context_window_size": 1_000_000, "current_usage": null},
        });
        let out = self
            .p
            .cairn()
            .arg("statusline")
            .env("NO_COLOR", "1")
            .env("COLUMNS", "400")
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .trim_end()
            .to_string()
    }

    fn report(&self, kind: &str) -> Value {
        let out = self
            .p
            .cairn()
            .args(["usage", kind, "--json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// `cairn usage daily --json`'s row for the fixed clock's day, as the
    /// status line prints dollars (sessions and memory extraction).
    fn daily_today(&self) -> String {
        let v = self.report("daily");
        let row = v["daily"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["date"] == "2026-11-30")
            .cloned()
            .unwrap_or_default();
        let usd =
            row["totalCost"].as_f64().unwrap_or(0.0) + row["memoryCost"].as_f64().unwrap_or(0.0);
        cairn::format::dollars_short(usd)
    }
}

fn segment<'a>(line: &'a str, head: &str) -> Option<&'a str> {
    line.split(" | ").find(|s| s.starts_with(head))
}

/// The client's response records as the lab's session wrote them, with
/// new message ids: one more turn of the session.
fn append_copy_of_responses(from: &Path, to: &Path, tag: &str) {
    let text = std::fs::read_to_string(from).unwrap();
    let mut out = std::fs::OpenOptions::new().append(true).open(to).unwrap();
    for line in text.lines().filter(|l| l.contains("\"usage\"")) {
        let line = line
            .replace("\"msg_", &format!("\"msg_{tag}_"))
            .replace("\"req_", &format!("\"req_{tag}_"));
        writeln!(out, "{line}").unwrap();
    }
}

#[test]
fn today_equals_usage_daily_on_a_fresh_state_and_a_warm_one() {
    let day = Day::new();
    // Fresh state: only one session's status line ever renders here.
    let line = day.render("-tmp-cclab-proj-print", FAILED_READ);
    let want = day.daily_today();
    assert_ne!(want, "$0.00", "the lab's sessions cost something");
    assert_eq!(
        segment(&line, "today "),
        Some(format!("today {want}").as_str()),
        "{line}"
    );

    // Warm: another session (never rendered here) gets a new turn.
    let other = day.transcript("-tmp-cclab-proj-interactive", INTERACTIVE);
    append_copy_of_responses(&other, &other, "t2");
    let line = day.render("-tmp-cclab-proj-print", FAILED_READ);
    let grown = day.daily_today();
    assert_ne!(grown, want, "the new turn costs something");
    assert_eq!(
        segment(&line, "today "),
        Some(format!("today {grown}").as_str()),
        "{line}"
    );
}

#[test]
fn a_session_not_written_today_is_not_read() {
    let day = Day::new();
    // Yesterday's session (by its file's time) costs today nothing and is
    // not opened: blanked behind the aggregate's back, it changes nothing.
    let old = day.transcript("-tmp-cclab-proj-interactive", INTERACTIVE);
    // 2026-11-29T10:53Z.
    let yesterday = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_950_000);
    std::fs::write(&old, "{oops\n".repeat(10)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(yesterday)
        .unwrap();
    let line = day.render("-tmp-cclab-proj-print", FAILED_READ);
    // (Asked before the report, which reads every session.)
    assert!(
        !day.p
            .state
            .join("usage/sessions")
            .join(format!("{INTERACTIVE}.json"))
            .exists(),
        "an old session is not aggregated for today"
    );
    assert!(
        day.p
            .state
            .join("usage/sessions")
            .join(format!("{PRINT}.json"))
            .exists(),
        "today's other session is"
    );
    assert_eq!(
        segment(&line, "today "),
        Some(format!("today {}", day.daily_today()).as_str()),
        "{line}"
    );
}

#[test]
fn the_compaction_call_is_no_agent() {
    let day = Day::new();
    let sub = day
        .projects
        .join("-tmp-cclab-proj-print")
        .join(PRINT)
        .join("subagents");
    let before = day.render("-tmp-cclab-proj-print", PRINT);
    let agents_before = segment(&before, "agents ").unwrap_or_default();
    assert!(agents_before.starts_with("agents 1 "), "{before}");
    let session_before = segment(&before, "session ").unwrap().to_string();

    // The client's compaction call, as 2.1.x keeps it beside the session's
    // subagents: `agent-acompact-<hex>.jsonl` (here the lab subagent's
    // responses under new ids) with an empty `agentType`.
    let real = sub.join("agent-a807bf6f4639670c0.jsonl");
    let compact = sub.join("agent-acompact-5f0c1e2d3a4b5c6d.jsonl");
    std::fs::write(&compact, "").unwrap();
    append_copy_of_responses(&real, &compact, "c1");
    std::fs::write(
        sub.join("agent-acompact-5f0c1e2d3a4b5c6d.meta.json"),
        "{\"agentType\":\"\"}",
    )
    .unwrap();

    let after = day.render("-tmp-cclab-proj-print", PRINT);
    assert_eq!(
        segment(&after, "agents "),
        Some(agents_before),
        "still one agent, same spend: {after}"
    );
    assert_ne!(
        segment(&after, "session ").unwrap(),
        session_before,
        "the compaction's tokens are paid for: {after}"
    );
    let v = day.report("session");
    let row = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == PRINT)
        .unwrap()
        .clone();
    assert_eq!(row["subagents"], 1, "{row}");
}

#[test]
fn transcript_missing_when_the_main_file_never_existed() {
    let day = Day::new();
    // A session folder with a subagent's file and no main file beside it.
    let orphan = "7b1c0000-0000-4000-8000-000000000001";
    let sub = day
        .projects
        .join("-tmp-cclab-proj-print")
        .join(orphan)
        .join("subagents");
    std::fs::create_dir_all(&sub).unwrap();
    let real = day
        .projects
        .join("-tmp-cclab-proj-print")
        .join(PRINT)
        .join("subagents/agent-a807bf6f4639670c0.jsonl");
    let text = std::fs::read_to_string(real)
        .unwrap()
        .replace(PRINT, orphan)
        .replace("\"msg_", "\"msg_orphan_");
    std::fs::write(sub.join("agent-a807bf6f4639670c0.jsonl"), text).unwrap();

    let v = day.report("session");
    let rows = v["sessions"].as_array().unwrap();
    let missing = |sid: &str| {
        rows.iter()
            .find(|s| s["sessionId"] == sid)
            .unwrap_or_else(|| panic!("{sid} in {v:#}"))["transcriptMissing"]
            .clone()
    };
    assert_eq!(missing(orphan), true);
    assert_eq!(missing(PRINT), false);
}

#[test]
fn a_day_of_long_sessions_is_caught_up_over_renders_and_says_so_meanwhile() {
    let day = Day::new();
    // Two more sessions of today, each longer than one render may read
    // (`usage::today::READ_BUDGET`): tool output as filler, then the lab's
    // responses under new ids.
    let src = day.transcript("-tmp-cclab-proj-print", FAILED_READ);
    let filler = format!(
        "{{\"type\":\"user\",\"timestamp\":\"2026-11-30T04:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n",
        "x".repeat(64 * 1024)
    );
    for (i, sid) in [
        "3c0f0000-0000-4000-8000-000000000001",
        "3c0f0000-0000-4000-8000-000000000002",
    ]
    .iter()
    .enumerate()
    {
        let path = day.transcript("-tmp-cclab-proj-print", sid);
        let n = (cairn::usage::today::READ_BUDGET as usize) / filler.len() + 1;
        std::fs::write(&path, filler.repeat(n)).unwrap();
        append_copy_of_responses(&src, &path, &format!("long{i}"));
    }
    let first = day.render("-tmp-cclab-proj-print", FAILED_READ);
    let partial = segment(&first, "today ").unwrap();
    assert!(partial.ends_with('+'), "a floor until all is read: {first}");
    let mut last = first.clone();
    for _ in 0..3 {
        last = day.render("-tmp-cclab-proj-print", FAILED_READ);
    }
    assert_eq!(
        segment(&last, "today "),
        Some(format!("today {}", day.daily_today()).as_str()),
        "{last}"
    );
}

#[test]
fn a_response_copied_into_a_fork_counts_once_then_new_turns_count() {
    let day = Day::new();
    // A fork: a new session file holding the same responses (same message
    // and request ids), as the client copies history into it.
    let src = day.transcript("-tmp-cclab-proj-print", PRINT);
    let fork = day.transcript(
        "-tmp-cclab-proj-print",
        "f0f00000-0000-4000-8000-000000000001",
    );
    std::fs::copy(&src, &fork).unwrap();
    let line = day.render("-tmp-cclab-proj-print", FAILED_READ);
    assert_eq!(
        segment(&line, "today "),
        Some(format!("today {}", day.daily_today()).as_str()),
        "{line}"
    );
    // The fork goes on with turns of its own: they count, the copy still once.
    append_copy_of_responses(
        &day.transcript("-tmp-cclab-proj-print", FAILED_READ),
        &fork,
        "f1",
    );
    let line = day.render("-tmp-cclab-proj-print", FAILED_READ);
    assert_eq!(
        segment(&line, "today "),
        Some(format!("today {}", day.daily_today()).as_str()),
        "{line}"
    );
}
