//! Issue 9: a stranger's repository must not turn cairn against its user.
//! Each test is named after what broke; each runs the real binary on a
//! repository that carries links, FIFOs or huge files, and checks that
//! nothing outside the project is read, written or printed, and that
//! nothing hangs. Commands run under a watchdog (`timeout`) so a hang fails
//! the test instead of freezing the suite; no test measures time.
#![cfg(unix)]

use crate::common;

use common::{Project, Turn};
use serde_json::json;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;

const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const SSH_LINE: &str = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ";
const WATCHDOG: Duration = Duration::from_secs(30);

/// A home folder with the files a hostile repository aims at.
fn plant_secrets(p: &Project) {
    let aws = p.home.join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    std::fs::write(
        aws.join("credentials"),
        format!("[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = {AWS_SECRET}\n"),
    )
    .unwrap();
    let ssh = p.home.join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(
        ssh.join("id_ed25519"),
        format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{SSH_LINE}\n-----END OPENSSH PRIVATE KEY-----\n"
        ),
    )
    .unwrap();
}

/// Every byte the run left anywhere: the project, the state folder, the home.
fn everything_under(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            everything_under(&e.path(), out);
        } else if ft.is_file() {
            out.push((
                e.path().display().to_string(),
                std::fs::read(e.path()).unwrap_or_default(),
            ));
        }
    }
}

fn assert_no_secret_in(what: &str, text: &str) {
    for s in [AWS_SECRET, SSH_LINE] {
        assert!(!text.contains(&s[..16]), "{what} holds a secret:\n{text}");
    }
}

/// No file cairn wrote (in the project or the state folder) holds a
/// secret, and the originals in the home folder are untouched.
fn assert_no_secret_written(p: &Project) {
    let mut files = Vec::new();
    everything_under(&p.root, &mut files);
    everything_under(&p.state, &mut files);
    for (path, bytes) in &files {
        assert_no_secret_in(path, &String::from_utf8_lossy(bytes));
    }
    assert!(
        !p.home.join("long_memory.md").exists(),
        "promote wrote into the home folder"
    );
    assert!(
        !p.home.join("logs").exists(),
        "cairn wrote into the home folder"
    );
}

fn session_start(p: &Project, source: &str) -> String {
    let out = p
        .cairn()
        .arg("hook")
        .timeout(WATCHDOG)
        .write_stdin(
            json!({
                "session_id": "s1",
                "transcript_path": p.base.join("none.jsonl"),
                "cwd": p.root,
                "hook_event_name": "SessionStart",
                "source": source
            })
            .to_string(),
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "SessionStart did not finish");
    String::from_utf8(out.stdout).unwrap()
}

fn stop_turn(p: &Project, prompt: &str) {
    let t = p.transcript(
        "t",
        &[Turn::new(prompt, "Fait : j'ai ajouté le test.").at("2026-11-30T10:00:00.000Z")],
    );
    let out = watched(
        p,
        &["hook"],
        Some(&p.stop(&t, Some("Fait : j'ai ajouté le test."))),
    );
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    p.drain();
}

#[test]
fn regression_linked_memory_files_are_not_injected_printed_or_rewritten() {
    let p = Project::new();
    plant_secrets(&p);
    let mem = p.root.join("memory_sessions");
    symlink(p.home.join(".aws/credentials"), mem.join("long_memory.md")).unwrap();
    symlink(
        p.home.join(".ssh/id_ed25519"),
        mem.join("logs/2026-11-30.md"),
    )
    .unwrap();
    symlink(
        p.home.join(".ssh/id_ed25519"),
        mem.join("logs/2026-11-29.md"),
    )
    .unwrap();

    // SessionStart: nothing of the linked files reaches the model.
    let injected = session_start(&p, "startup");
    assert_no_secret_in("SessionStart output", &injected);

    // `cairn memory load` (the /memory_load skill) prints none of it.
    let load = watched(&p, &["memory", "load"], None);
    assert!(load.status.success());
    assert_no_secret_in("memory load", &String::from_utf8_lossy(&load.stdout));

    // `cairn memory search` indexes none of it.
    let search = watched(&p, &["memory", "search", "aws_secret_access_key"], None);
    assert_no_secret_in("memory search", &String::from_utf8_lossy(&search.stdout));

    // A Stop, then promote: the links are neither followed nor replaced by
    // regular files holding the keys (the commit-your-memory workflow would
    // publish them).
    stop_turn(&p, "Ajoute un test pour `src/lib.rs`");
    let promote = watched(&p, &["memory", "promote"], None);
    for name in ["long_memory.md", "logs/2026-11-30.md", "logs/2026-11-29.md"] {
        let m = std::fs::symlink_metadata(mem.join(name)).unwrap();
        assert!(m.file_type().is_symlink(), "{name} was replaced");
    }
    assert_no_secret_in("promote", &String::from_utf8_lossy(&promote.stdout));
    assert_no_secret_in("promote", &String::from_utf8_lossy(&promote.stderr));
    assert_no_secret_written(&p);
    let diag = p.diagnostics();
    assert!(
        diag.contains("outside the project"),
        "each refusal leaves a diagnostics line:\n{diag}"
    );
}

#[test]
fn regression_linked_sub_project_memory_does_not_write_into_home() {
    let p = Project::new();
    plant_secrets(&p);
    // `projects/docs/memory_sessions -> ../../..`: the folder above the project.
    let docs = p.root.join("projects/docs");
    std::fs::create_dir_all(&docs).unwrap();
    symlink("../../..", docs.join("memory_sessions")).unwrap();
    // And one that points straight at the home folder.
    let blog = p.root.join("projects/blog");
    std::fs::create_dir_all(&blog).unwrap();
    symlink(&p.home, blog.join("memory_sessions")).unwrap();
    std::fs::write(p.home.join("2026-11-30.md"), "- home file\n").unwrap();

    stop_turn(&p, "Corrige `projects/blog/src/main.rs` pour le test");
    let promote = watched(&p, &["memory", "promote", "all"], None);
    let out = String::from_utf8_lossy(&promote.stdout);
    assert!(!out.contains("blog") && !out.contains("docs"), "{out}");
    assert_no_secret_written(&p);
    assert_eq!(
        std::fs::read_to_string(p.home.join("2026-11-30.md")).unwrap(),
        "- home file\n"
    );
    assert!(!p.base.join("logs").exists() && !p.base.join("long_memory.md").exists());
    // The turn itself still lands in the root project's log.
    assert!(!p.log("2026-11-30").is_empty(), "the turn was lost");
}

#[test]
fn regression_linked_memory_folders_are_not_written_through() {
    for linked in [
        "memory_sessions",
        "memory_sessions/logs",
        "memory_sessions/logs/.debug",
        "memory_sessions/checkpoints",
    ] {
        let p = Project::new();
        let outside = p.base.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let link = p.root.join(linked);
        if link.exists() {
            std::fs::remove_dir_all(&link).unwrap();
        }
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        symlink(&outside, &link).unwrap();
        if linked.ends_with("checkpoints") {
            // Only a guard firing writes a checkpoint: a turn past the warn level.
            guard_firing_stop(&p);
        } else {
            stop_turn(&p, "Ajoute un test pour `src/lib.rs`");
        }
        let mut written = Vec::new();
        everything_under(&outside, &mut written);
        assert!(
            written.is_empty(),
            "{linked}: cairn wrote through the link: {:?}",
            written.iter().map(|w| &w.0).collect::<Vec<_>>()
        );
        assert!(
            p.diagnostics().contains("outside the project"),
            "{linked}: {}",
            p.diagnostics()
        );
    }
}

#[test]
fn regression_fifo_transcript_does_not_hang_the_stop_hook_or_the_status_line() {
    let p = Project::new();
    let fifo = p.base.join("t.jsonl");
    mkfifo(&fifo);
    let out = watched(&p, &["hook"], Some(&p.stop(&fifo, Some("done"))));
    assert!(
        out.status.success(),
        "the Stop hook was killed by the watchdog"
    );
    assert!(out.stdout.is_empty());
    assert!(
        p.diagnostics().contains("not a regular file"),
        "{}",
        p.diagnostics()
    );

    let line = p
        .cairn()
        .arg("statusline")
        .timeout(WATCHDOG)
        .write_stdin(
            json!({
                "session_id": "s1",
                "transcript_path": fifo,
                "cwd": p.root,
                "model": {"id": "claude-sonnet-4-6", "display_name": "Sonnet 4.6"},
                "workspace": {"current_dir": p.root, "project_dir": p.root}
            })
            .to_string(),
        )
        .output()
        .unwrap();
    assert!(
        line.status.success(),
        "the status line was killed by the watchdog"
    );
    assert!(String::from_utf8_lossy(&line.stdout).contains("Sonnet 4.6"));
}

#[test]
fn regression_fifo_memory_files_do_not_hang_session_start_or_load() {
    let p = Project::new();
    let mem = p.root.join("memory_sessions");
    mkfifo(&mem.join("long_memory.md"));
    mkfifo(&mem.join("logs/2026-11-30.md"));
    std::fs::create_dir_all(mem.join("checkpoints")).unwrap();
    mkfifo(&mem.join("checkpoints/2026-11-30T100000Z-s1.md"));
    std::fs::write(
        mem.join("logs/2026-11-29.md"),
        "# Log\n\n## À suivre\n- Relire le test\n",
    )
    .unwrap();
    let injected = session_start(&p, "clear");
    assert!(injected.contains("Relire le test"), "{injected}");
    let load = watched(&p, &["memory", "load"], None);
    assert!(load.status.success());
    assert!(p.diagnostics().contains("a FIFO"), "{}", p.diagnostics());
}

#[test]
fn regression_huge_sparse_log_is_refused_not_read() {
    let p = Project::new();
    let log = p.root.join("memory_sessions/logs/2026-11-30.md");
    std::fs::File::create(&log)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    std::fs::write(
        p.root.join("memory_sessions/logs/2026-11-29.md"),
        "# Log\n\n## À suivre\n- Relire le test\n",
    )
    .unwrap();
    // Memory stays bounded: were the 2 GiB read, this would need gigabytes.
    let injected = session_start(&p, "startup");
    assert!(injected.contains("Relire le test"), "{injected}");
    assert!(
        p.diagnostics().contains("cap for memory files"),
        "{}",
        p.diagnostics()
    );
    // The worker refuses to rewrite it (the turn waits in the spool rather
    // than truncating the file).
    let t = p.transcript(
        "t",
        &[Turn::new("Ajoute un test pour `src/lib.rs`", "Fait.")],
    );
    let out = p.hook(&p.stop(&t, Some("Fait.")));
    assert!(out.status.success());
    p.drain();
    assert_eq!(std::fs::metadata(&log).unwrap().len(), 2 << 30);
}

#[test]
fn regression_session_start_on_a_log_of_80000_bullets_keeps_the_newest() {
    let p = Project::new();
    let mut text = String::from("# Log session — 2026-11-30\n\n## Travail produit\n");
    for i in 0..80_000 {
        text.push_str(&format!("- étape {i:05} du travail\n"));
    }
    std::fs::write(p.root.join("memory_sessions/logs/2026-11-30.md"), &text).unwrap();
    let injected = session_start(&p, "startup");
    let v: serde_json::Value = serde_json::from_str(&injected).unwrap();
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    // Oldest bullets dropped first: the last one is there, the first is not.
    assert!(ctx.contains("étape 79999"), "{ctx}");
    assert!(!ctx.contains("étape 00000"));
    assert!(ctx.chars().count() <= 9_500);
}

/// A Stop whose context fill (130 000 tokens on a 200K model) crosses the
/// guard's warn level, so it writes a checkpoint.
fn guard_firing_stop(p: &Project) {
    let t = p.base.join("big.jsonl");
    let ts = "2026-11-30T10:00:00.000Z";
    let lines = [
        json!({"type":"user","isSidechain":false,"message":{"role":"user","content":"Ajoute un test pour `src/lib.rs`"},"timestamp":ts,"uuid":"u1"}),
        json!({"type":"assistant","isSidechain":false,"requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Fait."}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":130000,"output_tokens":50}},"timestamp":ts}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&t, text).unwrap();
    let out = watched(p, &["hook"], Some(&p.stop(&t, Some("Fait."))));
    assert!(out.status.success());
    p.drain();
}

/// `cairn ARGS` with `stdin`, killed by the watchdog if it hangs.
fn watched(p: &Project, args: &[&str], stdin: Option<&serde_json::Value>) -> std::process::Output {
    let mut c = p.cairn();
    c.args(args).timeout(WATCHDOG);
    if let Some(v) = stdin {
        c.write_stdin(v.to_string());
    }
    c.output().unwrap()
}

fn mkfifo(p: &Path) {
    let made = std::process::Command::new("mkfifo").arg(p).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", p.display());
}
