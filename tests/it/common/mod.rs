//! Shared helpers for integration tests: a scratch project, a cleared
//! environment, transcripts and payloads shaped like the real client's.

pub mod fake;
pub mod guard;

use assert_cmd::Command;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The clock every test process reads (`CAIRN_NOW`), unless a test moves it.
pub const NOW: &str = "2026-11-30T12:00:00Z";

/// Leaves `c` with nothing of the developer's environment but `PATH`: its
/// own home and state folders, UTC and the fixed clock [`NOW`]. Every
/// process a test starts (cairn, git, the status line command) goes through
/// here, so no test depends on the machine or the hour it runs at.
pub fn clear_env(c: &mut std::process::Command, home: &Path, state: &Path) {
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("CAIRN_STATE_DIR", state)
        .env("TZ", "UTC")
        .env("CAIRN_NOW", NOW);
}

pub struct Project {
    pub _dir: tempfile::TempDir,
    pub base: PathBuf,
    pub root: PathBuf,
    pub state: PathBuf,
    pub home: PathBuf,
    pub extra_env: Vec<(String, String)>,
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().to_path_buf();
        let root = base.join("proj");
        std::fs::create_dir_all(root.join("memory_sessions/logs")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        let state = base.join("state");
        let home = base.join("home");
        std::fs::create_dir_all(&home).unwrap();
        Project {
            _dir: dir,
            base,
            root,
            state,
            home,
            extra_env: Vec::new(),
        }
    }

    pub fn env(&mut self, k: &str, v: &str) -> &mut Self {
        self.extra_env.push((k.to_string(), v.to_string()));
        self
    }

    /// `cairn` with a cleared environment: only what the test sets.
    pub fn cairn(&self) -> Command {
        Command::from_std(self.command())
    }

    /// `cairn` as a plain `std::process::Command`, with the same cleared
    /// environment as [`Project::cairn`]: for tests that spawn, time out or
    /// kill the process themselves.
    pub fn command(&self) -> std::process::Command {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("cairn"));
        clear_env(&mut c, &self.home, &self.state);
        c.env("CAIRN_EXE", assert_cmd::cargo::cargo_bin("cairn"))
            .current_dir(&self.root);
        for (k, v) in &self.extra_env {
            c.env(k, v);
        }
        c
    }

    /// Puts a fake `claude` first on PATH and selects the claude-cli
    /// backend. `script` gets the fake's folder (for the files it reads or
    /// leaves) and returns the `sh` script; the folder is returned.
    pub fn fake_claude(&mut self, script: impl FnOnce(&Path) -> String) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let bin = self.base.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let path = bin.join("claude");
        std::fs::write(&path, script(&bin)).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path_var = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        self.env("PATH", &path_var)
            .env("CAIRN_MEMORY_BACKEND", "claude-cli");
        bin
    }

    /// Runs `cairn <args>` to the end, for [`snapshot_output`].
    pub fn run(&self, args: &[&str]) -> std::process::Output {
        self.cairn().args(args).output().unwrap()
    }

    pub fn hook(&self, payload: &Value) -> std::process::Output {
        self.cairn()
            .arg("hook")
            .write_stdin(payload.to_string())
            .output()
            .unwrap()
    }

    pub fn hook_raw(&self, bytes: Vec<u8>) -> std::process::Output {
        self.cairn()
            .arg("hook")
            .write_stdin(bytes)
            .output()
            .unwrap()
    }

    pub fn drain(&self) -> String {
        let o = self.cairn().args(["worker", "--drain"]).output().unwrap();
        assert!(
            o.status.success(),
            "drain failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    }

    pub fn log(&self, date: &str) -> String {
        std::fs::read_to_string(self.root.join(format!("memory_sessions/logs/{date}.md")))
            .unwrap_or_default()
    }

    pub fn diagnostics(&self) -> String {
        std::fs::read_to_string(self.state.join("diagnostics.log")).unwrap_or_default()
    }

    pub fn pending(&self) -> usize {
        std::fs::read_dir(self.state.join("spool/pending"))
            .map(|d| d.count())
            .unwrap_or(0)
    }

    pub fn transcript(&self, name: &str, turns: &[Turn]) -> PathBuf {
        let path = self.base.join(format!("{name}.jsonl"));
        let mut f = std::fs::File::create(&path).unwrap();
        for (i, t) in turns.iter().enumerate() {
            for line in t.lines(i, &self.root) {
                writeln!(f, "{line}").unwrap();
            }
        }
        path
    }

    pub fn stop(&self, transcript: &Path, last: Option<&str>) -> Value {
        let mut v = json!({
            "session_id": "0ac84ade-4b41-4c80-8e17-cb18a7650ec5",
            "transcript_path": transcript,
            "cwd": self.root,
            "prompt_id": "ead46b37-bc00-4232-aa89-634907a2be72",
            "permission_mode": "default",
            "effort": {"level": "medium"},
            "hook_event_name": "Stop",
            "stop_hook_active": false,
            "background_tasks": [],
            "session_crons": []
        });
        if let Some(l) = last {
            v["last_assistant_message"] = json!(l);
        }
        v
    }
}

/// One turn of a generated transcript.
#[derive(Clone, Default)]
pub struct Turn {
    pub prompt: String,
    pub answer: String,
    pub timestamp: String,
    /// Files created with the Write tool.
    pub writes: Vec<String>,
}

impl Turn {
    pub fn new(prompt: &str, answer: &str) -> Turn {
        Turn {
            prompt: prompt.into(),
            answer: answer.into(),
            timestamp: "2026-11-30T10:00:00.000Z".into(),
            ..Turn::default()
        }
    }
    pub fn at(mut self, ts: &str) -> Turn {
        self.timestamp = ts.into();
        self
    }
    pub fn write(mut self, path: &str) -> Turn {
        self.writes.push(path.into());
        self
    }

    fn lines(&self, i: usize, root: &Path) -> Vec<String> {
        let ts = &self.timestamp;
        let usage = json!({"input_tokens": 10, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 20000, "output_tokens": 60});
        let mut out = vec![
            json!({"type":"user","isSidechain":false,"message":{"role":"user","content":self.prompt},"timestamp":ts,"uuid":format!("u{i}"),"origin":{"kind":"human"},"promptSource":"typed"}).to_string(),
        ];
        let mut n = 0;
        let tools: Vec<(String, Value)> = self
            .writes
            .iter()
            .map(|w| {
                (
                    "Write".to_string(),
                    json!({"file_path": root.join(w), "content": "x"}),
                )
            })
            .collect();
        for (name, input) in tools {
            n += 1;
            let id = format!("toolu_{i}_{n}");
            out.push(json!({"type":"assistant","isSidechain":false,"requestId":format!("req_{i}_{n}"),"message":{"id":format!("msg_{i}_{n}"),"role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"tool_use","id":id,"name":name,"input":input}],"usage":usage},"timestamp":ts}).to_string());
            out.push(json!({"type":"user","isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":id,"content":"ok","is_error":false}]},"timestamp":ts}).to_string());
        }
        out.push(json!({"type":"assistant","isSidechain":false,"requestId":format!("req_{i}_end"),"message":{"id":format!("msg_{i}_end"),"role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":self.answer}],"usage":usage},"timestamp":ts}).to_string());
        out
    }
}

/// A log's `- ` bullets under a heading.
pub fn section<'a>(log: &'a str, heading: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in log.lines() {
        if line.starts_with("## ") {
            inside = line.trim() == heading;
            continue;
        }
        if inside && let Some(b) = line.strip_prefix("- ") {
            out.push(b);
        }
    }
    out
}

/// Appends `bytes` to `path` (creating it) now.
pub fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(bytes).unwrap();
}

/// Appends `bytes` to `path` (creating it) after `ms` milliseconds, from
/// another thread: the client writes its transcript asynchronously, so a
/// hook can run before the turn it is about is in the file. Join the handle
/// after the hook.
pub fn append_later(path: &Path, bytes: Vec<u8>, ms: u64) -> std::thread::JoinHandle<()> {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(ms));
        append(&path, &bytes);
    })
}

/// Checks `text` against the committed snapshot `tests/snapshots/<name>.snap`.
/// One folder for every test file, so that the snapshots do not move with
/// the test that checks them. A mismatch fails; locally insta leaves a
/// `.snap.new` to review with `cargo insta review`, in CI (`CI=true`) it
/// writes nothing. insta ignores trailing whitespace, so the text ends with
/// `[EOF]`: a lost or added final newline still fails.
pub fn snapshot(name: &str, text: &str) {
    assert_snapshot(name, &format!("{text}[EOF]\n"));
}

/// Checks a finished command, stdout, stderr and exit status together (see
/// [`output_text`]), against the committed snapshot `name`.
pub fn snapshot_output(name: &str, o: &std::process::Output) {
    assert_snapshot(name, &output_text(o));
}

fn assert_snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// A finished command as one text: stdout, stderr and the exit status
/// together, so a snapshot of it shows everything the user would see and a
/// change in any of the three fails. `[EOF]` marks where each stream ends,
/// which keeps a missing or extra final newline visible.
pub fn output_text(o: &std::process::Output) -> String {
    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.push_str("[EOF]\n");
    if !o.stderr.is_empty() {
        text.push_str("------- stderr -------\n");
        text.push_str(&String::from_utf8_lossy(&o.stderr));
        text.push_str("[EOF]\n");
    }
    match o.status.code() {
        Some(0) => {}
        Some(code) => text.push_str(&format!("[exit status: {code}]\n")),
        None => text.push_str(&format!("[{}]\n", o.status)),
    }
    text
}

/// What [`clear_env`] gives a process, as a library call's environment:
/// `home` (and its `.config`), the state folder and UTC. Add what a test
/// needs besides with `Env::set`.
pub fn lib_env(state: &Path, home: &Path) -> cairn::context::Env {
    cairn::context::Env::from_pairs([
        ("HOME", home.display().to_string()),
        (
            "XDG_CONFIG_HOME",
            home.join(".config").display().to_string(),
        ),
        ("CAIRN_STATE_DIR", state.display().to_string()),
        ("TZ", "UTC".to_string()),
    ])
}

/// A library context on the fixed clock [`NOW`], with exactly `env`.
pub fn ctx(env: cairn::context::Env) -> cairn::context::Ctx {
    ctx_at(env, NOW)
}

/// A library context with exactly `env`, its clock stopped at `now`.
pub fn ctx_at(env: cairn::context::Env, now: &str) -> cairn::context::Ctx {
    ctx_on(env, now.parse().expect("an RFC 3339 instant"))
}

/// [`ctx_at`] for a test that moves the clock by seconds.
pub fn ctx_on(env: cairn::context::Env, now: jiff::Timestamp) -> cairn::context::Ctx {
    cairn::context::Ctx::new(env, cairn::context::Clock::Fixed(now))
}
