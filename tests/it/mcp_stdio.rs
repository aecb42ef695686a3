//! `cairn mcp` as a client sees it: a child process speaking JSON-RPC on
//! stdio. Checks the handshake, the tools, and that bad input (malformed
//! JSON, unknown tools, invalid requests, huge queries, a client that
//! leaves mid-call) gets an error or is skipped while the server keeps
//! serving, and that stdout carries nothing but JSON-RPC.

use crate::common;

use common::Project;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(20);

struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    seen: Vec<String>,
}

fn spawn(p: &Project) -> Session {
    let mut child = p
        .command()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Session {
        child,
        stdin,
        lines: rx,
        seen: Vec::new(),
    }
}

impl Session {
    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, v: Value) {
        self.send_raw(&v.to_string());
    }

    /// The response with this id; anything else on stdout must still be JSON.
    fn response(&mut self, id: i64) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no response to id {id}; saw {:?}", self.seen));
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            self.seen.push(line);
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(id)
    }

    fn initialize(&mut self) -> Value {
        let r = self.call(
            1,
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"}
            }),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    fn tool(&mut self, id: i64, name: &str, args: Value) -> Value {
        self.call(id, "tools/call", json!({"name": name, "arguments": args}))
    }

    /// Closes stdin and waits for the exit status.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                let mut err = String::new();
                std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut err)
                    .unwrap();
                // The client shows a server's stderr to the user: nothing there.
                assert_eq!(err, "", "stderr of cairn mcp");
                return s;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("cairn mcp did not exit after stdin closed");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn project() -> Project {
    let p = Project::new();
    std::fs::write(
        p.root.join("memory_sessions/logs/2026-11-28.md"),
        "# Log session — 2026-11-28\n\n## Décisions prises\n- Les migrations passent par sqlx, pas par diesel\n\n## À suivre\n- Supprimer le vieux script de migration\n",
    )
    .unwrap();
    std::fs::write(p.base.join("outside.md"), "- secret outside\n").unwrap();
    p
}

fn text_of(r: &Value) -> &str {
    r["result"]["content"][0]["text"].as_str().unwrap_or("")
}

#[test]
fn handshake_tools_and_calls() {
    let p = project();
    let mut s = spawn(&p);
    let init = s.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "cairn");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );

    let list = s.call(2, "tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["memory_search", "memory_get", "memory_recent"]);

    // Stemmed, accent-blind: `migration` finds `migrations`.
    let r = s.tool(3, "memory_search", json!({"query": "migration sqlx"}));
    assert_eq!(r["result"]["isError"], json!(false), "{r}");
    let t = text_of(&r);
    assert!(
        t.contains("memory_sessions/logs/2026-11-28.md:4  (2026-11-28, Décisions prises)"),
        "{t}"
    );
    assert!(
        t.contains("Les migrations passent par sqlx, pas par diesel"),
        "{t}"
    );

    let r = s.tool(
        4,
        "memory_get",
        json!({"path": "memory_sessions/logs/2026-11-28.md", "from": 4, "to": 4}),
    );
    assert!(
        text_of(&r).contains("    4  - Les migrations passent par sqlx"),
        "{r}"
    );

    let r = s.tool(5, "memory_get", json!({"path": "../outside.md"}));
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    assert!(!text_of(&r).contains("secret outside"));

    let r = s.tool(6, "memory_recent", json!({"days": 5}));
    let t = text_of(&r);
    assert!(
        t.starts_with("## Open to-dos\n- Supprimer le vieux script de migration (memory_sessions/logs/2026-11-28.md:7)"),
        "{t}"
    );

    assert!(s.finish().success());
    let diag = p.diagnostics();
    assert!(diag.contains("mcp"), "{diag}");
}

#[test]
fn bad_input_gets_errors_and_the_server_keeps_serving() {
    let p = project();
    let mut s = spawn(&p);
    s.initialize();

    // Not JSON at all: skipped (there is no id to answer), and no crash.
    s.send_raw("{this is not json");
    s.send_raw("\u{0}\u{1}garbage");
    // JSON that is not a request: an Invalid Request error.
    s.send(json!({"jsonrpc": "2.0", "id": 10, "method": 42}));
    // Unknown method, unknown tool, wrong argument types: errors with ids.
    let r = s.call(11, "tools/unknown", json!({}));
    assert!(r["error"]["code"].is_i64(), "{r}");
    let r = s.tool(12, "memory_delete_everything", json!({}));
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool")
    );
    let r = s.tool(13, "memory_search", json!({"query": 42}));
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");
    let r = s.tool(14, "memory_search", json!({}));
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");

    // A query of two megabytes is cut and answered.
    let huge = "migration ".repeat(200_000);
    let r = s.tool(15, "memory_search", json!({"query": huge}));
    assert!(text_of(&r).contains("2026-11-28.md:4"), "{r}");

    // Still serving.
    let r = s.tool(16, "memory_search", json!({"query": "diesel"}));
    assert!(text_of(&r).contains("2026-11-28.md:4"), "{r}");
    assert!(s.finish().success());
}

#[test]
fn a_client_leaving_mid_call_ends_the_server_cleanly() {
    let p = project();
    let mut s = spawn(&p);
    s.initialize();
    s.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "memory_search", "arguments": {"query": "migration"}}}));
    // Leave without reading the answer: stdin closed, stdout abandoned.
    let status = s.finish();
    assert!(status.success(), "{status:?}");
}

#[test]
fn eof_before_anything_exits_at_once() {
    let p = project();
    let s = spawn(&p);
    assert!(s.finish().success());
}
