//! Hostile repositories: what a stranger's clone can commit into
//! `memory_sessions/` (symbolic links to the user's keys, a link loop
//! through a sub-project, links on the folders cairn writes into, FIFOs, a
//! 2 GiB sparse log, a log of 80 000 bullets). Every memory command is run
//! on it — SessionStart, `memory load`, Stop + worker, `memory promote`,
//! MCP `memory_get`, `memory search` — each under the watchdog and an
//! address-space cap. Nothing outside the project is read, printed or
//! written; nothing hangs; memory stays bounded.

use super::harness::*;
use crate::common::{Project, Turn};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

/// The user's secrets outside the project, and the words that betray them.
struct Outside {
    dir: PathBuf,
    /// Strings that must never come out of cairn: the fake keys (each
    /// line of the files also holds the word `zebracanary`, for search).
    markers: Vec<String>,
}

fn outside(p: &Project) -> Outside {
    let dir = p.base.join("outside");
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    std::fs::create_dir_all(dir.join("debug")).unwrap();
    std::fs::create_dir_all(dir.join("checkpoints")).unwrap();
    // Fabricated, assembled at run time (no scanner reads a key here).
    let key_id = ["AK", "IA", "QXZ3R7T2V5W8Y4N6"].concat();
    let secret = ["wJalrXUtnFEMI", "/K7MDENG/bPxRfiCY", "zebra0CANARY0KEY"].concat();
    let creds = format!(
        "[default]\n- zebracanary aws_access_key_id = {key_id}\n- zebracanary aws_secret_access_key = {secret}\n"
    );
    std::fs::write(dir.join("credentials"), &creds).unwrap();
    std::fs::write(
        dir.join("id_ed25519"),
        format!("# Log session — {DAY}\n\n## Travail produit\n- zebracanary {secret}\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join(format!("logs/{DAY}.md")),
        format!("# Log session — {DAY}\n\n## À suivre\n- zebracanary {key_id}\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("checkpoints/2026-11-30T110000Z-aaaaaaaa.md"),
        format!("# Checkpoint\n\n- zebracanary {secret}\n"),
    )
    .unwrap();
    Outside {
        dir,
        // Not the word itself: `memory search zebracanary` may echo its query.
        markers: vec![key_id, secret],
    }
}

/// Everything in the scratch folder that is neither the project nor the
/// state folder: what must not change.
fn snapshot_outside(p: &Project) -> Vec<(PathBuf, Vec<u8>)> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(&p.base).unwrap().flatten() {
        let path = e.path();
        if path == p.root || path == p.state {
            continue;
        }
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            all.extend(files_under(&path, 1 << 20));
        } else {
            let bytes = if ft.is_file() {
                std::fs::read(&path).unwrap_or_default()
            } else {
                Vec::new()
            };
            all.push((path, bytes));
        }
    }
    all.sort();
    all
}

/// A minimal MCP client: initialize, then one `memory_get` per path, under
/// the watchdog. Returns each answer's text (or why there was none).
fn mcp_get(p: &Project, paths: &[&str]) -> Result<Vec<String>, String> {
    let mut child = p
        .command()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |v: Value| {
        let _ = stdin.write_all(format!("{v}\n").as_bytes());
        let _ = stdin.flush();
    };
    send(
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"reliability","version":"0"}}}),
    );
    send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    for (i, path) in paths.iter().enumerate() {
        send(
            json!({"jsonrpc":"2.0","id":i + 2,"method":"tools/call","params":{"name":"memory_get","arguments":{"path":path}}}),
        );
    }
    let deadline = Instant::now() + WATCHDOG;
    let mut answers = vec![None; paths.len()];
    let result = loop {
        if answers.iter().all(Option::is_some) {
            break Ok(answers.into_iter().map(Option::unwrap).collect());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                let Ok(v) = serde_json::from_str::<Value>(&line) else {
                    break Err(format!("non-JSON on stdout: {line}"));
                };
                if let Some(id) = v["id"].as_u64().filter(|id| *id >= 2) {
                    answers[id as usize - 2] = Some(v.to_string());
                }
            }
            Err(_) => {
                let missing: Vec<_> = paths
                    .iter()
                    .zip(&answers)
                    .filter(|(_, a)| a.is_none())
                    .map(|(p, _)| *p)
                    .collect();
                break Err(format!(
                    "no answer to memory_get {missing:?} within {} s (hang)",
                    WATCHDOG.as_secs()
                ));
            }
        }
    };
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    result
}

/// The paths a client would ask `memory_get` for in this repository.
const MCP_PATHS: [&str; 4] = [
    "memory_sessions/long_memory.md",
    "memory_sessions/logs/2026-11-30.md",
    "memory_sessions/logs",
    "projects/docs/memory_sessions/long_memory.md",
];

/// Runs every memory command on the project and returns what went wrong.
fn every_command(p: &Project, o: &Outside, t: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let leaks = |what: &str, text: &str, problems: &mut Vec<String>| {
        for m in &o.markers {
            if text.contains(m.as_str()) {
                problems.push(format!("{what} printed {m:?}: {}", truncate(text, 300)));
            }
        }
    };
    let check = |what: &str, r: Run, problems: &mut Vec<String>| {
        if r.hung {
            problems.push(format!("{what}: {}", r.describe()));
        } else if r.status.and_then(|s| s.code()).is_none() {
            problems.push(format!(
                "{what}: killed by a signal (memory cap?) {}",
                r.describe()
            ));
        }
        leaks(what, &r.out(), problems);
        leaks(what, &r.err(), problems);
        r
    };

    let start = json!({"session_id":"h","transcript_path":"/x","cwd":p.root,"hook_event_name":"SessionStart","source":"startup"});
    let mut c = p.command();
    c.arg("hook");
    let r = check(
        "SessionStart",
        run_capped(c, start.to_string().as_bytes()),
        &mut problems,
    );
    if r.status.is_some_and(|s| !s.success()) {
        problems.push(format!("SessionStart exited {:?}", r.status));
    }

    let mut c = p.command();
    c.args(["memory", "load"]);
    check("memory load", run_capped(c, b""), &mut problems);

    // Stop, then the worker, each watched (the test holds the worker lock
    // so the hook starts no worker of its own that nobody watches).
    {
        let _hold = cairn::fsutil::lock(&p.state.join("worker.lock")).unwrap();
        let mut c = p.command();
        c.arg("hook");
        let r = check(
            "Stop",
            run_capped(c, p.stop(t, None).to_string().as_bytes()),
            &mut problems,
        );
        if r.status.is_some_and(|s| !s.success()) {
            problems.push(format!("Stop exited {:?}", r.status));
        }
    }
    let mut c = p.command();
    c.args(["worker", "--drain"]);
    check("worker --drain", run_capped(c, b""), &mut problems);

    let mut c = p.command();
    c.args(["memory", "promote"]);
    check("memory promote", run_capped(c, b""), &mut problems);

    match mcp_get(p, &MCP_PATHS) {
        Ok(answers) => {
            for (path, a) in MCP_PATHS.iter().zip(answers) {
                leaks(&format!("memory_get {path}"), &a, &mut problems);
            }
        }
        Err(e) => problems.push(format!("cairn mcp: {e}")),
    }

    let mut c = p.command();
    c.args(["memory", "search", "zebracanary"]);
    check("memory search", run_capped(c, b""), &mut problems);
    problems
}

/// Runs a hostile case end to end and fails with everything that went wrong.
fn hostile_case(name: &str, plant: impl FnOnce(&Project, &Outside)) {
    let p = Project::new();
    let _reaper = Reaper(p.state.clone());
    let o = outside(&p);
    plant(&p, &o);
    let t = p.transcript(
        "hostile",
        &[Turn::new("Create src/hostile.rs and note it", "Created.").write("src/hostile.rs")],
    );
    let links_before = links_in(&p.root);
    let before = snapshot_outside(&p);
    let mut problems = every_command(&p, &o, &t);
    wait_idle(&p.state);

    let after = snapshot_outside(&p);
    if after != before {
        let changed: Vec<_> = after
            .iter()
            .filter(|f| !before.contains(f))
            .map(|(path, _)| path.display().to_string())
            .collect();
        problems.push(format!("files outside the project written: {changed:?}"));
    }
    if p.home.join("long_memory.md").exists() {
        problems.push("promote wrote $HOME/long_memory.md".into());
    }
    for (path, bytes) in files_under(&p.root, 1 << 20)
        .into_iter()
        .chain(files_under(&p.state, 1 << 20))
    {
        let text = String::from_utf8_lossy(&bytes);
        for m in &o.markers {
            if text.contains(m.as_str()) {
                problems.push(format!("{} holds {m:?}", path.display()));
            }
        }
    }
    if links_in(&p.root) != links_before {
        problems.push(format!(
            "committed links replaced: before {links_before:?}, after {:?}",
            links_in(&p.root)
        ));
    }
    figures(
        "hostile",
        &format!("case={name} commands=6 problems={}", problems.len()),
    );
    assert!(problems.is_empty(), "{name}:\n  {}", problems.join("\n  "));
}

/// The symbolic links under `dir`, with their targets.
fn links_in(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let ft = e.file_type().unwrap();
            if ft.is_symlink() {
                out.push((e.path(), std::fs::read_link(e.path()).unwrap()));
            } else if ft.is_dir() {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    out
}

fn mem(p: &Project, rel: &str) -> PathBuf {
    p.root.join("memory_sessions").join(rel)
}

fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn a_clean_repository_passes_the_hostile_checks() {
    // The control: the same commands on a repository with ordinary files
    // find nothing to report, so a problem reported below is the link's.
    hostile_case("control", |p, _| {
        std::fs::write(
            mem(p, "long_memory.md"),
            "# Mémoire long terme — root\n\n## 2026-11-01\n\nLe projet utilise PostgreSQL 16.\n",
        )
        .unwrap();
    });
}

#[test]
fn long_memory_linked_to_the_users_credentials_is_refused() {
    hostile_case("long_memory_link", |p, o| {
        symlink(o.dir.join("credentials"), mem(p, "long_memory.md")).unwrap();
    });
}

#[test]
fn day_logs_linked_outside_are_refused() {
    hostile_case("day_log_links", |p, o| {
        symlink(o.dir.join("id_ed25519"), mem(p, &format!("logs/{DAY}.md"))).unwrap();
        symlink("../../../outside/credentials", mem(p, "logs/2026-11-29.md")).unwrap();
    });
}

#[test]
fn a_sub_project_memory_linked_to_the_parent_of_the_project_is_refused() {
    hostile_case("subproject_loop", |p, _| {
        std::fs::create_dir_all(p.root.join("projects/docs")).unwrap();
        symlink("../../..", p.root.join("projects/docs/memory_sessions")).unwrap();
    });
}

#[test]
fn memory_folders_linked_outside_are_not_written_through() {
    hostile_case("folder_links", |p, o| {
        std::fs::remove_dir_all(mem(p, "logs")).unwrap();
        symlink(o.dir.join("logs"), mem(p, "logs")).unwrap();
        symlink(o.dir.join("checkpoints"), mem(p, "checkpoints")).unwrap();
    });
}

#[test]
fn a_debug_folder_linked_outside_is_not_written_through() {
    hostile_case("debug_link", |p, o| {
        symlink(o.dir.join("debug"), mem(p, "logs/.debug")).unwrap();
    });
}

#[test]
fn a_fifo_as_a_day_log_hangs_nothing() {
    hostile_case("fifo_day_log", |p, _| {
        mkfifo(&mem(p, &format!("logs/{DAY}.md")))
    });
}

/// Under the address-space cap a 2 GiB read fails (std's `fs::read`
/// reserves fallibly) instead of taking the machine's memory: this checks
/// no hang, no crash and nothing leaked, not the size cap finding 4 asks for.
#[test]
fn a_huge_sparse_day_log_costs_bounded_memory_and_time() {
    hostile_case("sparse_2GiB_log", |p, _| {
        let f = std::fs::File::create(mem(p, &format!("logs/{DAY}.md"))).unwrap();
        f.set_len(2 << 30).unwrap();
    });
}

#[test]
fn a_log_of_80000_bullets_does_not_stall_session_start() {
    hostile_case("80000_bullets", |p, _| {
        let mut log = format!("# Log session — {DAY}\n\n## Travail produit\n");
        for i in 0..80_000 {
            log.push_str(&format!(
                "- Travail numéro {i} sur le module de facturation\n"
            ));
        }
        log.push_str("\n## À suivre\n- Relire la PR 42\n");
        std::fs::write(mem(p, &format!("logs/{DAY}.md")), log).unwrap();
    });
}

/// Finding 5: a `transcript_path` naming a FIFO blocks the Stop hook and
/// the status line in `open()` forever.
#[test]
fn a_fifo_as_transcript_path_hangs_neither_stop_nor_the_status_line() {
    let p = Project::new();
    let _reaper = Reaper(p.state.clone());
    let fifo = p.base.join("transcript.jsonl");
    mkfifo(&fifo);
    let r = hook(&p, &p.stop(&fifo, Some("Created.")));
    assert_silent("Stop on a FIFO transcript", &r);
    let mut c = p.command();
    c.arg("statusline");
    let payload = json!({"session_id":"s","transcript_path":fifo,"cwd":p.root,
        "model":{"id":"claude-sonnet-4-5","display_name":"Sonnet 4.5"},
        "workspace":{"current_dir":p.root,"project_dir":p.root}});
    let r = run_watched(c, payload.to_string().as_bytes());
    assert!(r.ok(), "statusline on a FIFO transcript: {}", r.describe());
}
