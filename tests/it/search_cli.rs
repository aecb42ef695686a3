//! `cairn memory search` as a user runs it: output, exit status, the note
//! about the index, filters, errors.

use crate::common;

use common::Project;
use serde_json::Value;

fn project() -> Project {
    let p = Project::new();
    let logs = p.root.join("memory_sessions/logs");
    std::fs::write(
        logs.join("2026-11-28.md"),
        "# Log session — 2026-11-28\n\n## Décisions prises\n- Les migrations passent par sqlx\n\n## À suivre\n- Supprimer le vieux script de migration\n",
    )
    .unwrap();
    std::fs::write(
        logs.join("2026-11-29.md"),
        "# Session log — 2026-11-29\n\n## Decisions\n- Migrated the billing tables\n",
    )
    .unwrap();
    let sub = p.root.join("projects/web/memory_sessions/logs");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("2026-11-27.md"),
        "# Log session — 2026-11-27\n\n## Contexte\n- Migration du front vers Vite\n",
    )
    .unwrap();
    p
}

fn run(p: &Project, args: &[&str]) -> (String, String, i32) {
    let o = p
        .cairn()
        .args(["memory", "search"])
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
        o.status.code().unwrap(),
    )
}

#[test]
fn ranks_across_languages_and_projects_and_notes_the_first_build_once() {
    let p = project();
    let (out, err, code) = run(&p, &["migration"]);
    assert_eq!(code, 0, "{err}");
    for place in [
        "memory_sessions/logs/2026-11-28.md:4  (2026-11-28, Décisions prises)",
        "memory_sessions/logs/2026-11-28.md:7  (2026-11-28, À suivre)",
        "memory_sessions/logs/2026-11-29.md:4  (2026-11-29, Decisions)",
        "projects/web/memory_sessions/logs/2026-11-27.md:4  (2026-11-27, Contexte)",
    ] {
        assert!(out.contains(place), "{place} missing from:\n{out}");
    }
    assert_eq!(
        err,
        "cairn: note: search index was missing; built it from 3 memory files\n"
    );
    let (again, err, _) = run(&p, &["migration"]);
    assert_eq!(again, out);
    assert_eq!(err, "");
}

#[test]
fn filters_and_json() {
    let p = project();
    let (out, _, code) = run(
        &p,
        &[
            "migration",
            "--section",
            "decisions",
            "--since",
            "2026-11-29",
            "--json",
        ],
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let r = v["results"].as_array().unwrap();
    assert_eq!(r.len(), 1, "{out}");
    assert_eq!(r[0]["path"], "memory_sessions/logs/2026-11-29.md");
    assert_eq!(r[0]["line"], 4);
    assert_eq!(r[0]["section"], "Decisions");
    assert_eq!(r[0]["date"], "2026-11-29");
    assert_eq!(r[0]["text"], "Migrated the billing tables");

    let (out, _, _) = run(&p, &["vite", "--project", "web"]);
    assert!(out.starts_with("projects/web/"), "{out}");
    let (out, _, code) = run(&p, &["vite", "--project", "root"]);
    assert_eq!((out.as_str(), code), ("", 1));
}

#[test]
fn errors_and_empty_results() {
    let p = project();
    let (out, err, code) = run(&p, &["kubernetes"]);
    assert_eq!((out.as_str(), code), ("", 1));
    assert!(
        err.ends_with("cairn: no memory entry matches `kubernetes`\n"),
        "{err}"
    );
    let (_, err, code) = run(&p, &["x", "--project", "nope"]);
    assert_eq!(code, 1);
    assert_eq!(err, "cairn: unknown project `nope`; known: root, web\n");
    let (_, err, code) = run(&p, &["x", "--until", "30/11/2026"]);
    assert_eq!(code, 1);
    assert!(err.contains("`30/11/2026` is not a date"), "{err}");
}

#[test]
fn a_truncated_index_is_rebuilt_and_said_once() {
    let p = project();
    let (before, _, _) = run(&p, &["migration"]);
    let dir = p.state.join("search");
    let index = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|f| f.extension().is_some_and(|x| x == "sqlite"))
        .unwrap();
    for extra in ["-wal", "-shm"] {
        let mut s = index.as_os_str().to_owned();
        s.push(extra);
        let _ = std::fs::remove_file(std::path::PathBuf::from(s));
    }
    std::fs::write(&index, b"SQLite format 3\0 and then nothing useful").unwrap();
    let (out, err, code) = run(&p, &["migration"]);
    assert_eq!(code, 0);
    assert_eq!(out, before);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("cairn: note: search index was unreadable"),
        "{err}"
    );
    let (_, err, _) = run(&p, &["migration"]);
    assert_eq!(err, "");
}
