//! `cairn mcp` from process start to the `initialize` response (target:
//! under 100 ms), and to the answer of a first `memory_search` on a small
//! project (index built on the way). The client starts the server at each
//! session start; this is what the user waits for.
//!
//! Run: `cargo bench --bench mcp_start` (builds the release binary first).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn main() {
    divan::main();
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    state: std::path::PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    let logs = root.join("memory_sessions/logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    for d in 1..=28 {
        std::fs::write(
            logs.join(format!("2026-11-{d:02}.md")),
            format!(
                "# Log session — 2026-11-{d:02}\n\n## Contexte\n- Jour {d}: migration du cache\n"
            ),
        )
        .unwrap();
    }
    let state = dir.path().join("state");
    Fixture {
        _dir: dir,
        root,
        state,
    }
}

/// Starts the server, sends `requests` one after the other, reads each
/// answer, closes stdin and waits for the exit.
fn session(f: &Fixture, requests: &[&str]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .arg("mcp")
        .env("CAIRN_STATE_DIR", &f.state)
        .current_dir(&f.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
        stdin.flush().unwrap();
        line.clear();
        out.read_line(&mut line).unwrap();
        assert!(line.contains("\"result\""), "{line}");
    }
    drop(stdin);
    child.wait().unwrap();
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
const SEARCH: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"cache"}}}"#;

/// Spawn, `initialize`, answer read; exit included.
#[divan::bench(sample_count = 40)]
fn start_to_initialize(bencher: divan::Bencher) {
    let f = fixture();
    bencher.bench_local(|| session(&f, &[INIT]));
}

/// Spawn, `initialize`, then a first search whose index must be built.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn start_to_first_search_cold(bencher: divan::Bencher) {
    let f = fixture();
    let index_dir = f.state.join("search");
    bencher
        .with_inputs(|| {
            let _ = std::fs::remove_dir_all(&index_dir);
        })
        .bench_local_values(|()| session(&f, &[INIT, SEARCH]));
}
