//! Regression tests for issue 9's capture findings: what the spool holds,
//! redaction before every cut, sync mode with a hung backend, a state folder
//! that cannot be written, `.debug/` names, orphaned temp files.

// Tests report what they saw to the developer.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use crate::common;

use common::{Project, Turn};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// 40 characters, the shape of a GitHub personal token.
const TOKEN: &str = "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5";

/// A Messages API on 127.0.0.1 that records every request body and answers
/// with `reply` (an assistant text), or never answers (`None`).
struct FakeApi {
    url: String,
    bodies: Arc<Mutex<Vec<String>>>,
}

impl FakeApi {
    fn start(reply: Option<&str>) -> FakeApi {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&bodies);
        let reply = reply.map(|text| {
            json!({
                "id": "msg_01", "type": "message", "role": "assistant",
                "model": "claude-haiku-4-5-20251001",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 5}
            })
            .to_string()
        });
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = Arc::clone(&log);
                let reply = reply.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut len = 0;
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
                            break;
                        }
                        if let Some(v) = h.to_lowercase().strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; len];
                    let _ = reader.read_exact(&mut body);
                    log.lock()
                        .unwrap()
                        .push(String::from_utf8_lossy(&body).into_owned());
                    let Some(reply) = reply else {
                        // Accepts, reads, never answers.
                        std::thread::sleep(Duration::from_secs(600));
                        return;
                    };
                    let mut stream = stream;
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                        reply.len()
                    );
                });
            }
        });
        FakeApi { url, bodies }
    }

    fn bodies(&self) -> Vec<String> {
        self.bodies.lock().unwrap().clone()
    }
}

fn use_api(p: &mut Project, api: &FakeApi) {
    p.env("CAIRN_MEMORY_BACKEND", "anthropic")
        .env("CAIRN_MEMORY_ANTHROPIC_BASE_URL", &api.url)
        .env("ANTHROPIC_API_KEY", "sk-test-not-a-key");
}

/// Hooks spool but start no worker: the test decides when jobs run.
fn no_worker(p: &mut Project) {
    p.env("CAIRN_EXE", "/bin/true");
}

fn spooled_jobs(p: &Project) -> Vec<String> {
    let dir = p.state.join("spool/pending");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        out.push(std::fs::read_to_string(e.path()).unwrap());
    }
    out
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn pem_key() -> (String, Vec<String>) {
    let lines: Vec<String> = (0..27)
        .map(|i| {
            let c = (b'A' + i as u8 % 26) as char;
            format!("MII{}", c.to_string().repeat(61))
        })
        .collect();
    let key = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----",
        lines.join("\n")
    );
    (key, lines)
}

#[test]
fn regression_spool_holds_no_secret() {
    let mut p = Project::new();
    no_worker(&mut p);
    let (pem, lines) = pem_key();
    let t = p.transcript(
        "t",
        &[Turn::new(
            &format!("deploy with {TOKEN}"),
            &format!("Here is the key:\n{pem}\nDone."),
        )],
    );
    let o = p.hook(&p.stop(&t, None));
    assert!(o.status.success());
    let jobs = spooled_jobs(&p);
    assert_eq!(jobs.len(), 1);
    assert!(!jobs[0].contains(&TOKEN[4..]), "{}", jobs[0]);
    for l in &lines {
        assert!(!jobs[0].contains(l.as_str()), "PEM line spooled: {l}");
    }
    #[cfg(unix)]
    {
        let pending = p.state.join("spool/pending");
        let job = std::fs::read_dir(&pending)
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(mode(&job.path()), 0o600);
        assert_eq!(mode(&pending), 0o700);
    }
}

/// The assistant text keeps its last 6 000 characters: here the cut falls
/// 20 characters into the token, so a cut before redaction sends the
/// token's last 20 characters to the backend.
#[test]
fn regression_redact_before_cut_token_straddling_the_answer_cut() {
    let mut p = Project::new();
    no_worker(&mut p);
    let api = FakeApi::start(Some("not json"));
    let filler: String = "lorem ipsum ".repeat(600).chars().take(5978).collect();
    let answer = format!("{TOKEN} {filler}");
    let t = p.transcript("t", &[Turn::new("finish the release", &answer)]);
    assert!(p.hook(&p.stop(&t, Some(&answer))).status.success());
    use_api(&mut p, &api);
    p.drain();
    let bodies = api.bodies();
    assert_eq!(bodies.len(), 1, "one backend call");
    let tail = &TOKEN[20..];
    assert!(
        !bodies[0].contains(tail),
        "token tail {tail} reached the backend"
    );
    assert!(spooled_jobs(&p).iter().all(|j| !j.contains(tail)));
}

/// A PEM key whose header falls before the 6 000-character cut: cut first,
/// its base64 lines no longer look like a key.
#[test]
fn regression_redact_before_cut_pem_header_before_the_cut() {
    let mut p = Project::new();
    no_worker(&mut p);
    let api = FakeApi::start(Some("not json"));
    let (pem, lines) = pem_key();
    let header_and_a_line = 32 + 65;
    let filler: String = "lorem ipsum "
        .repeat(600)
        .chars()
        .take(5999 - (pem.chars().count() - header_and_a_line) - 1)
        .collect();
    let answer = format!("{pem}\n{filler}");
    // From the transcript this time (no last_assistant_message).
    let t = p.transcript("t", &[Turn::new("rotate the key", &answer)]);
    assert!(p.hook(&p.stop(&t, None)).status.success());
    use_api(&mut p, &api);
    p.drain();
    let bodies = api.bodies();
    assert_eq!(bodies.len(), 1);
    let leaked: Vec<&String> = lines
        .iter()
        .filter(|l| bodies[0].contains(l.as_str()))
        .collect();
    assert!(
        leaked.is_empty(),
        "{} PEM lines reached the backend",
        leaked.len()
    );
}

/// Checkpoint notes cut the last answer at 600 characters; the token
/// starts at 580, so a cut first kept its first 19 characters.
#[test]
fn regression_redact_before_cut_checkpoint_note() {
    let p = Project::new();
    let answer = format!("{} {TOKEN} and more words after it", "w".repeat(579));
    let t = p.transcript("t", &[Turn::new("Refactor src/lib.rs", "Refactored.")]);
    let rec = json!({"type":"assistant","isSidechain":false,"requestId":"req_fill","timestamp":"2026-11-30T10:01:00.000Z",
        "message":{"id":"msg_fill","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":answer}],
        "usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":129_900,"output_tokens":50}}});
    common::append(&t, format!("{rec}\n").as_bytes());
    let o = p.hook(&p.stop(&t, Some(&answer)));
    let v: Value = serde_json::from_slice(&o.stdout).expect("a block at warn");
    assert_eq!(v["decision"], "block");
    let dir = p.root.join("memory_sessions/checkpoints");
    let note = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap();
    let text = std::fs::read_to_string(note.path()).unwrap();
    assert!(text.contains("wwww"), "the last answer is in the note");
    assert!(
        !text.contains(&TOKEN[..12]),
        "token head in the note:\n{text}"
    );
}

/// With `memory.sync` the hook used to extract before spooling: killed by
/// the client at its hook timeout while the backend hung, it lost the turn.
#[test]
fn regression_sync_hung_backend_keeps_turn() {
    let mut p = Project::new();
    let api = FakeApi::start(None);
    use_api(&mut p, &api);
    p.env("CAIRN_MEMORY_SYNC", "true");
    let t = p.transcript(
        "t",
        &[Turn::new("Add the login page", "Added src/login.rs.").write("src/login.rs")],
    );

    // 1. The client kills the hook while it waits (as at its 30 s timeout).
    // `assert_cmd` cannot spawn; the same environment as `Project::cairn`.
    let mut cmd = p.command();
    cmd.arg("hook").env("CAIRN_EXE", "/bin/true");
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(p.stop(&t, None).to_string().as_bytes())
        .unwrap();
    // Waits for a fact (the backend got the request), not for a duration.
    while api.bodies().is_empty() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the hook must be waiting on the backend"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        p.pending(),
        1,
        "the turn was spooled before the backend call"
    );

    // 2. Left alone, the hook gives up within its deadline and leaves the job.
    p.env("CAIRN_MEMORY_TIMEOUT_SECS", "1");
    p.env("CAIRN_EXE", "/bin/true");
    let t2 = p.transcript(
        "t2",
        &[Turn::new("Add the logout page", "Added src/logout.rs.").write("src/logout.rs")],
    );
    let o = p.hook(&p.stop(&t2, None));
    assert!(o.status.success());
    assert_eq!(p.pending(), 2);

    p.env("CAIRN_MEMORY_BACKEND", "offline");
    p.drain();
    assert_eq!(p.pending(), 0);
    let log = p.log("2026-11-30");
    // Each turn's work once (the first also left its file uncommitted).
    assert_eq!(log.matches("Créé `src/login.rs`").count(), 1, "{log}");
    assert_eq!(log.matches("Créé `src/logout.rs`").count(), 1, "{log}");
}

fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Async mode dropped every turn when the spool could not be written.
#[test]
fn regression_full_state_falls_back_inline() {
    // A regular file where the state folder should be.
    let mut p = Project::new();
    std::fs::write(&p.state, "not a folder").unwrap();
    let t = p.transcript(
        "t",
        &[Turn::new("Add the login page", "Added.").write("src/login.rs")],
    );
    assert!(p.hook(&p.stop(&t, None)).status.success());
    assert!(
        p.log("2026-11-30").contains("src/login.rs"),
        "file state: turn lost"
    );
    let doctor = p.cairn().args(["doctor", "--offline"]).output().unwrap();
    let out = String::from_utf8_lossy(&doctor.stdout);
    assert!(out.contains("not a folder"), "{out}");

    // A read-only state folder; root writes through chmod, so there the
    // state path goes under a regular file instead.
    let p2 = Project::new();
    let _ = &mut p;
    #[cfg(unix)]
    let p2 = {
        use std::os::unix::fs::PermissionsExt;
        let mut p2 = p2;
        if is_root() {
            eprintln!("running as root: read-only case uses a state path under a file");
            let blocker = p2.base.join("blocker");
            std::fs::write(&blocker, "x").unwrap();
            p2.env("CAIRN_STATE_DIR", blocker.join("state").to_str().unwrap());
        } else {
            std::fs::create_dir_all(&p2.state).unwrap();
            std::fs::set_permissions(&p2.state, std::fs::Permissions::from_mode(0o500)).unwrap();
        }
        p2
    };
    let t = p2.transcript(
        "t",
        &[Turn::new("Add the logout page", "Added.").write("src/logout.rs")],
    );
    assert!(p2.hook(&p2.stop(&t, None)).status.success());
    assert!(
        p2.log("2026-11-30").contains("src/logout.rs"),
        "read-only state: turn lost"
    );
    let doctor = p2.cairn().args(["doctor", "--offline"]).output().unwrap();
    let out = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        out.contains("not writable") || out.contains("is a file"),
        "{out}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&p2.state, std::fs::Permissions::from_mode(0o700));
    }
}

/// `.debug/` names ended in the job id's last 4 characters, nearly always
/// `0000`: ten answers in one second left one file.
#[test]
fn regression_debug_names_unique() {
    let mut p = Project::new();
    no_worker(&mut p);
    let api = FakeApi::start(Some("I would rather not answer in JSON."));
    for i in 0..10 {
        let t = p.transcript(
            &format!("t{i}"),
            &[Turn::new(&format!("question {i}"), "answer")],
        );
        assert!(p.hook(&p.stop(&t, None)).status.success());
    }
    assert_eq!(p.pending(), 10);
    use_api(&mut p, &api);
    p.drain();
    assert_eq!(api.bodies().len(), 10);
    let debug = p.root.join("memory_sessions/logs/.debug");
    let kept = std::fs::read_dir(&debug)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .count();
    assert_eq!(kept, 10);
}

/// `kill -9` between write and rename left `.cairn-tmp-*` files in the
/// spool (whole jobs) and in the logs folder, forever.
#[test]
fn regression_tmp_files_swept() {
    let mut p = Project::new();
    no_worker(&mut p);
    let t = p.transcript("t", &[Turn::new("Add the login page", "Added.")]);
    assert!(p.hook(&p.stop(&t, None)).status.success());
    let pending = p.state.join("spool/pending");
    let logs = p.root.join("memory_sessions/logs");
    let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let mut stale = Vec::new();
    let mut fresh = Vec::new();
    for dir in [&pending, &logs] {
        let old = dir.join(".cairn-tmp-killed");
        std::fs::write(&old, "half a job").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        stale.push(old);
        let new = dir.join(".cairn-tmp-mid-write");
        std::fs::write(&new, "being written").unwrap();
        fresh.push(new);
    }
    p.drain();
    for s in &stale {
        assert!(!s.exists(), "stale {} kept", s.display());
    }
    for f in &fresh {
        assert!(f.exists(), "fresh {} removed", f.display());
    }
    assert!(p.log("2026-11-30").contains("login"), "the job itself ran");
}
