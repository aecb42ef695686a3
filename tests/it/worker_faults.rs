//! The worker against failing backends: a killed worker, a dead, slow or
//! babbling backend, and dead letters. Nothing is lost, nothing is doubled.

use crate::common;
use common::{Project, Turn, section};
use std::path::Path;
use std::time::{Duration, Instant};

const DAY: &str = "2026-11-30";

/// A fake `claude` whose behaviour is read from `<bin>/mode` at each call.
fn fake_claude(p: &mut Project) -> std::path::PathBuf {
    p.fake_claude(|bin| {
        format!(
            r#"#!/bin/sh
if [ "$1" = "--help" ]; then echo "Usage: claude [options]"; exit 0; fi
cat > /dev/null
touch "{dir}/started"
case "$(cat "{dir}/mode")" in
  sleep) sleep 30 ;;
  fail) echo "upstream overloaded" >&2; exit 3 ;;
  garbage) echo "Sorry, I cannot help with that." ;;
  *) echo '{{"updates":[{{"project":"root","sections":{{"travail":["Travail extrait par le modèle"]}}}}]}}' ;;
esac
"#,
            dir = bin.display()
        )
    })
}

fn set_mode(bin: &Path, mode: &str) {
    std::fs::write(bin.join("mode"), mode).unwrap();
}

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_worker_killed_mid_job_loses_nothing_and_doubles_nothing() {
    let mut p = Project::new();
    let bin = fake_claude(&mut p);
    set_mode(&bin, "sleep");
    let t = p.transcript("t", &[Turn::new("Refactor the parser", "Done.")]);
    assert!(p.hook(&p.stop(&t, None)).status.success());
    // The hook started a background worker, now stuck in the backend call.
    wait_for("the backend call", || bin.join("started").exists());
    let pid: i32 = std::fs::read_to_string(p.state.join("worker.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Its own process group: kill the worker and its `claude` child at once.
    let killed = std::process::Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{pid}")])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(p.pending(), 1, "the job survives the crash");

    set_mode(&bin, "ok");
    let first = p.drain();
    assert!(
        first.contains("1 jobs done"),
        "{first}\n{}",
        p.diagnostics()
    );
    p.drain();
    assert_eq!(p.pending(), 0);
    let log = p.log(DAY);
    assert_eq!(
        section(&log, "## Travail produit"),
        vec!["Travail extrait par le modèle"],
        "{log}\n{}",
        p.diagnostics()
    );
}

#[test]
fn failing_jobs_are_retried_then_dead_lettered() {
    let mut p = Project::new();
    let bin = fake_claude(&mut p);
    p.env("CAIRN_MEMORY_MAX_ATTEMPTS", "2");
    set_mode(&bin, "fail");
    let t = p.transcript("t", &[Turn::new("Refactor the parser", "Done.")]);
    // Keep the hook from starting its own worker: the test drives the worker.
    let _hold = cairn::fsutil::lock(&p.state.join("worker.lock")).unwrap();
    assert!(p.hook(&p.stop(&t, None)).status.success());
    drop(_hold);
    let out = p.drain();
    assert!(out.contains("1 to retry"), "{out}");
    assert_eq!(p.pending(), 1);
    let out = p.drain();
    assert!(out.contains("1 dead-lettered"), "{out}");
    assert_eq!(p.pending(), 0);
    let dead: Vec<_> = std::fs::read_dir(p.state.join("spool/dead"))
        .unwrap()
        .collect();
    assert_eq!(dead.len(), 1);
    let job = std::fs::read_to_string(dead[0].as_ref().unwrap().path()).unwrap();
    assert!(
        job.contains("upstream overloaded") && job.contains("\"attempts\":2"),
        "{job}"
    );
    let diag = p.diagnostics();
    assert!(
        diag.contains("WARN worker") && diag.contains("ERROR worker"),
        "{diag}"
    );
}

#[test]
fn a_slow_backend_in_sync_mode_times_out_and_spools_the_turn() {
    let mut p = Project::new();
    let bin = fake_claude(&mut p);
    p.env("CAIRN_MEMORY_SYNC", "true")
        .env("CAIRN_MEMORY_TIMEOUT_SECS", "1");
    set_mode(&bin, "sleep");
    // No worker may take the job after the hook gives up (a held worker
    // lock would make a sync hook leave the job to that worker untried).
    p.env("CAIRN_EXE", "/bin/true");
    let t = p.transcript("t", &[Turn::new("Refactor the parser", "Done.")]);
    let o = p.hook(&p.stop(&t, None));
    assert!(o.status.success() && o.stdout.is_empty());
    assert_eq!(p.pending(), 1, "the turn waits in the spool");
    // Bounded by the configured second, not by the fake's 30: the backend
    // was killed at its deadline and the hook said so.
    let diag = p.diagnostics();
    assert_eq!(diag.lines().count(), 1, "{diag}");
    assert!(
        diag.contains("sync extraction failed within 1s")
            && diag.contains("no answer within 1s (memory.timeout_secs); the process was killed"),
        "{diag}"
    );
}

#[test]
fn a_dead_backend_spools_the_turn() {
    let mut p = Project::new();
    p.env("CAIRN_MEMORY_SYNC", "true")
        .env("CAIRN_MEMORY_BACKEND", "anthropic")
        .env("ANTHROPIC_API_KEY", "sk-ant-test-key-not-real")
        .env("CAIRN_MEMORY_ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
        .env("CAIRN_MEMORY_TIMEOUT_SECS", "2");
    // No worker may take the job after the hook gives up (a held worker
    // lock would make a sync hook leave the job to that worker untried).
    p.env("CAIRN_EXE", "/bin/true");
    let t = p.transcript("t", &[Turn::new("Refactor the parser", "Done.")]);
    let o = p.hook(&p.stop(&t, None));
    assert!(o.status.success() && o.stdout.is_empty());
    assert_eq!(p.pending(), 1);
    let diag = p.diagnostics();
    assert_eq!(diag.lines().count(), 1, "{diag}");
    assert!(!diag.contains("sk-ant-test-key-not-real"), "{diag}");
}

#[test]
fn a_babbling_backend_changes_nothing_but_debug() {
    let mut p = Project::new();
    let bin = fake_claude(&mut p);
    p.env("CAIRN_MEMORY_SYNC", "true");
    set_mode(&bin, "garbage");
    let t = p.transcript("t", &[Turn::new("Refactor the parser", "Done.")]);
    let o = p.hook(&p.stop(&t, None));
    assert!(o.status.success() && o.stdout.is_empty());
    assert_eq!(p.pending(), 0, "an unparseable answer is not retried");
    assert!(
        !p.root
            .join(format!("memory_sessions/logs/{DAY}.md"))
            .exists()
    );
    let debug: Vec<_> = std::fs::read_dir(p.root.join("memory_sessions/logs/.debug"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(debug.len(), 1);
    assert!(
        std::fs::read_to_string(&debug[0])
            .unwrap()
            .contains("Sorry, I cannot help")
    );
    assert_eq!(p.diagnostics().lines().count(), 1, "{}", p.diagnostics());
}

#[test]
fn past_the_daily_budget_the_offline_extractor_takes_over() {
    let mut p = Project::new();
    let bin = fake_claude(&mut p);
    set_mode(&bin, "ok");
    p.env("CAIRN_MEMORY_SYNC", "true")
        .env("CAIRN_MEMORY_DAILY_BUDGET_USD", "0.10");
    std::fs::create_dir_all(p.state.join("ledger")).unwrap();
    std::fs::write(
        p.state.join("ledger/memory.jsonl"),
        r#"{"ts":"t","date":"2026-11-30","kind":"memory","backend":"claude-cli/memory","model":"claude-haiku-4-5","input_tokens":1,"output_tokens":1,"usd":0.12}
"#,
    )
    .unwrap();
    let t = p.transcript(
        "t",
        &[Turn::new("Create src/budget.rs", "Created.").write("src/budget.rs")],
    );
    assert!(p.hook(&p.stop(&t, None)).status.success());
    assert!(
        !bin.join("started").exists(),
        "no paid call past the budget"
    );
    let log = p.log(DAY);
    assert!(
        log.contains("src/budget.rs") && !log.contains("Travail extrait par le modèle"),
        "{log}"
    );
    assert!(
        p.diagnostics().contains("WARN budget"),
        "{}",
        p.diagnostics()
    );
}
