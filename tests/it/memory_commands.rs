//! `cairn memory load|promote|archive`, `cairn config show` and `cairn demo`
//! through the real binary.

use crate::common;
use common::Project;

fn write(p: &Project, rel: &str, text: &str) {
    let path = p.root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn seed_logs(p: &Project) {
    write(
        p,
        "memory_sessions/logs/2026-11-29.md",
        "# Log session — 2026-11-29\n\n## Connaissances acquises\n- Les montants sont en centimes\n\n## Décisions prises\n- On garde PostgreSQL\n\n## À suivre\n- Migrer les factures\n- Écrire la doc\n",
    );
    write(
        p,
        "memory_sessions/logs/2026-11-30.md",
        "# Log session — 2026-11-30\n\n## Connaissances acquises\n- les montants sont en  CENTIMES\n\n## Finalisé\n- ✅ Écrire la doc\n",
    );
    write(
        p,
        "memory_sessions/logs/2026-09-01.md",
        "# Log session — 2026-09-01\n\n## Décisions prises\n- Vieille décision\n",
    );
    write(p, "memory_sessions/logs/notes.md", "not a dated log\n");
}

#[test]
fn load_prints_long_memory_and_the_last_active_days() {
    let p = Project::new();
    seed_logs(&p);
    write(
        &p,
        "memory_sessions/long_memory.md",
        "# Mémoire long terme — root\n\n## 2026-11-01\n\nPostgreSQL 16.\n",
    );
    let o = p.cairn().args(["memory", "load"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("Mémoire chargée pour : root"), "{out}");
    assert!(out.contains("PostgreSQL 16."));
    assert!(
        out.contains("--- Log 2026-11-30 (aujourd'hui) ---"),
        "{out}"
    );
    assert!(
        out.contains("--- Log 2026-11-29 (jour actif précédent, hier) ---"),
        "{out}"
    );
    // Still open, with the day it was written; the one finalised the next
    // day is not listed.
    assert!(
        out.contains(
            "--- À suivre (ouvert, plus récent d'abord) ---\n- Migrer les factures (2026-11-29)\n\n"
        ),
        "{out}"
    );
    assert!(!out.contains("Vieille décision"));

    let o = p
        .cairn()
        .args(["memory", "load", "all", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["projects"][0]["project"], "root");
    let days = &v["projects"][0]["active_days"];
    assert_eq!(days[0]["date"], "2026-11-30");
    assert_eq!(days[0]["days_ago"], 0);
    assert_eq!(days[1]["date"], "2026-11-29");
    assert_eq!(days[1]["days_ago"], 1);
    assert_eq!(days.as_array().unwrap().len(), 2);
    assert_eq!(
        v["projects"][0]["open_todos"],
        serde_json::json!([{"date": "2026-11-29", "text": "Migrer les factures"}])
    );

    let o = p.cairn().args(["memory", "load", "nope"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown project `nope`; known: root"));
}

#[test]
fn promote_dry_run_then_for_real() {
    let p = Project::new();
    seed_logs(&p);
    let o = p
        .cairn()
        .args(["memory", "promote", "--dry-run"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("[dry-run] root: 2 logs read, 3 facts promoted, 1 logs archived"),
        "{out}"
    );
    assert!(out.contains("+ open to-do: Migrer les factures"), "{out}");
    assert!(
        !out.contains("Écrire la doc"),
        "a finished to-do is not promoted: {out}"
    );
    assert!(
        !p.root.join("memory_sessions/long_memory.md").exists(),
        "dry run writes nothing"
    );
    assert!(p.root.join("memory_sessions/logs/2026-09-01.md").exists());

    let o = p
        .cairn()
        .args(["memory", "promote", "root"])
        .output()
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.starts_with("root: 2 logs read, 3 facts promoted, 1 logs archived, long_memory.md"),
        "{out}"
    );
    let long = std::fs::read_to_string(p.root.join("memory_sessions/long_memory.md")).unwrap();
    assert!(long.starts_with("# Mémoire long terme — root\n"), "{long}");
    assert!(long.contains("## Promotion 2026-11-30"));
    // Newest wording kept, the fact once.
    assert_eq!(long.to_lowercase().matches("centimes").count(), 1, "{long}");
    assert!(long.contains("- les montants sont en  CENTIMES"), "{long}");
    assert!(
        p.root
            .join("memory_sessions/logs/archives/2026-09-01.md")
            .exists()
    );
    assert!(!p.root.join("memory_sessions/long_memory.md.bak").exists());

    // Promoting again adds nothing.
    let o = p.cairn().args(["memory", "promote"]).output().unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("0 facts promoted, 0 logs archived"), "{out}");
    assert_eq!(
        std::fs::read_to_string(p.root.join("memory_sessions/long_memory.md")).unwrap(),
        long
    );
}

/// A log dated after today (a skewed clock, a stranger's commit) is read by
/// neither session start nor promotion: its facts are not promoted and it is
/// not archived.
#[test]
fn a_log_dated_in_the_future_is_not_promoted() {
    let p = Project::new();
    seed_logs(&p);
    write(
        &p,
        "memory_sessions/logs/2099-01-01.md",
        "# Log session — 2099-01-01\n\n## Décisions prises\n- Décision venue du futur\n",
    );
    let o = p.cairn().args(["memory", "promote"]).output().unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.starts_with("root: 2 logs read, 3 facts promoted"),
        "{out}"
    );
    let long = std::fs::read_to_string(p.root.join("memory_sessions/long_memory.md")).unwrap();
    assert!(!long.contains("futur"), "{long}");
    assert!(p.root.join("memory_sessions/logs/2099-01-01.md").exists());
}

#[test]
fn promotion_keeps_long_memory_under_the_line_cap() {
    let mut p = Project::new();
    p.env("CAIRN_MEMORY_LONG_MEMORY_MAX_LINES", "20");
    let mut long = String::from("# Mémoire long terme — root\n\n");
    for d in 1..=9 {
        long.push_str(&format!("## 2026-10-0{d}\n\nFait ancien {d}.\n\n"));
    }
    write(&p, "memory_sessions/long_memory.md", &long);
    seed_logs(&p);
    p.cairn().args(["memory", "promote"]).assert().success();
    let after = std::fs::read_to_string(p.root.join("memory_sessions/long_memory.md")).unwrap();
    assert!(after.lines().count() <= 20, "{after}");
    assert!(after.starts_with("# Mémoire long terme — root"));
    assert!(
        after.contains("Migrer les factures"),
        "the new facts are kept: {after}"
    );
    assert!(
        after.contains("Fait ancien 9."),
        "the newest old block is kept: {after}"
    );
    assert!(
        !after.contains("Fait ancien 1."),
        "the oldest goes first: {after}"
    );
}

#[test]
fn archive_moves_old_logs_without_clobbering() {
    let p = Project::new();
    seed_logs(&p);
    write(
        &p,
        "memory_sessions/logs/archives/2026-09-01.md",
        "a different archived file\n",
    );
    let o = p
        .cairn()
        .args(["memory", "archive", "--days", "1"])
        .output()
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(out, "root: 1 logs archived (older than 1 days)\n");
    let arch = p.root.join("memory_sessions/logs/archives");
    assert!(arch.join("2026-09-01-1.md").exists());
    assert!(p.root.join("memory_sessions/logs/2026-11-29.md").exists());
    assert!(p.root.join("memory_sessions/logs/2026-11-30.md").exists());
    assert_eq!(
        std::fs::read_to_string(arch.join("2026-09-01.md")).unwrap(),
        "a different archived file\n"
    );
}

#[test]
fn config_show_names_origins() {
    let mut p = Project::new();
    p.env("CAIRN_MEMORY_LANGUAGE", "en");
    std::fs::write(
        p.root.join(".cairn.toml"),
        "[memory]\nmax_bullet_chars = 120\n",
    )
    .unwrap();
    let o = p.cairn().args(["config", "show"]).output().unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("language = \"en\"  # env CAIRN_MEMORY_LANGUAGE"),
        "{out}"
    );
    assert!(
        out.contains("max_bullet_chars = 120  # ") && out.contains(".cairn.toml"),
        "{out}"
    );
    assert!(out.contains("backend = \"offline\"  # default"), "{out}");
}

#[test]
fn usage_errors_exit_2() {
    let p = Project::new();
    let o = p.cairn().args(["memory", "frobnicate"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn demo_replays_a_session_offline_and_prints_the_log() {
    let p = Project::new();
    let o = p.cairn().args(["demo"]).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("SessionStart"));
    assert_eq!(out.matches("Stop (turn").count(), 3, "{out}");
    assert!(
        out.contains("=== memory_sessions/logs/2026-11-30.md ==="),
        "{out}"
    );
    assert!(out.contains("## Travail produit"), "{out}");
    assert!(
        out.contains("`src/invoice.rs`"),
        "paths are shown relative to the project: {out}"
    );
    assert!(
        out.contains("## Finalisé\n- ✅"),
        "OK-done closed the to-do: {out}"
    );
    assert!(out.contains("=== cairn memory load ==="));
}

/// A fake `claude` answering `answer` (or failing when it is `FAIL`), noting each call.
fn fake_claude(p: &mut Project, answer: &str) -> std::path::PathBuf {
    let bin = p.fake_claude(|d| {
        format!(
            "#!/bin/sh\nif [ \"$1\" = \"--help\" ]; then exit 0; fi\ncat > \"{d}/prompt\"\ntouch \"{d}/called\"\nif [ \"$(cat \"{d}/answer\")\" = FAIL ]; then echo 'rate limited' >&2; exit 1; fi\ncat \"{d}/answer\"\n",
            d = d.display()
        )
    });
    std::fs::write(bin.join("answer"), answer).unwrap();
    bin
}

#[test]
fn promotion_through_a_backend_rewrites_long_memory() {
    let mut p = Project::new();
    seed_logs(&p);
    let bin = fake_claude(
        &mut p,
        "```markdown\n# Mémoire long terme — root\n\n## Connaissances\n- Montants en centimes\n\n## Décisions\n- PostgreSQL\n```\n",
    );
    let o = p
        .cairn()
        .args(["memory", "promote", "--dry-run"])
        .output()
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("`claude-cli` will rewrite long_memory.md"),
        "{out}"
    );
    assert!(!bin.join("called").exists(), "a dry run spends nothing");

    let o = p.cairn().args(["memory", "promote"]).output().unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("(rewritten by `claude-cli`)"), "{out}");
    let long = std::fs::read_to_string(p.root.join("memory_sessions/long_memory.md")).unwrap();
    assert_eq!(
        long,
        "# Mémoire long terme — root\n\n## Connaissances\n- Montants en centimes\n\n## Décisions\n- PostgreSQL\n"
    );
    let prompt = std::fs::read_to_string(bin.join("prompt")).unwrap();
    assert!(
        prompt.contains("- Migrer les factures") && prompt.contains("At most 300 lines"),
        "{prompt}"
    );
    assert!(
        p.root
            .join("memory_sessions/logs/archives/2026-09-01.md")
            .exists()
    );
}

#[test]
fn a_failing_backend_falls_back_to_the_offline_promotion() {
    let mut p = Project::new();
    seed_logs(&p);
    fake_claude(&mut p, "FAIL");
    let o = p.cairn().args(["memory", "promote"]).output().unwrap();
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("`claude-cli` failed") && out.contains("offline promotion used"),
        "{out}"
    );
    let long = std::fs::read_to_string(p.root.join("memory_sessions/long_memory.md")).unwrap();
    assert!(
        long.contains("## Promotion 2026-11-30") && long.contains("Migrer les factures"),
        "{long}"
    );
}

#[test]
fn install_says_which_backend_is_active_and_what_it_costs() {
    let mut p = Project::new();
    let o = p.cairn().arg("install").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.ends_with("memory backend: offline: nothing leaves this machine, nothing is billed\n"),
        "{out}"
    );
    p.env("CAIRN_MEMORY_BACKEND", "anthropic");
    std::fs::create_dir_all(p.state.join("ledger")).unwrap();
    std::fs::write(
        p.state.join("ledger/memory.jsonl"),
        r#"{"ts":"t","date":"2026-11-30","kind":"memory","backend":"anthropic/memory","model":"claude-haiku-4-5","input_tokens":1,"output_tokens":1,"usd":0.002}
{"ts":"t","date":"2026-11-30","kind":"memory","backend":"anthropic/memory","model":"claude-haiku-4-5","input_tokens":1,"output_tokens":1,"usd":0.004}
"#,
    )
    .unwrap();
    let out = String::from_utf8(p.cairn().arg("install").output().unwrap().stdout).unwrap();
    assert!(
        out.contains("memory backend: anthropic (claude-haiku-4-5-20251001)"),
        "{out}"
    );
    assert!(
        out.contains("$0.0030 per turn on average over 2 calls"),
        "{out}"
    );
}
