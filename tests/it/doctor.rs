//! `cairn doctor` on healthy and broken setups, through the real binary.

use crate::common;

use cairn::capture::spool::Job;
use common::Project;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;

fn doctor(p: &Project, args: &[&str]) -> (String, i32) {
    let o = p.cairn().arg("doctor").args(args).output().unwrap();
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        String::from_utf8(o.stdout).unwrap(),
        o.status.code().unwrap(),
    )
}

fn install(p: &Project) {
    let o = p.cairn().arg("install").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn has_line(out: &str, line: &str) {
    assert!(out.lines().any(|l| l == line), "no line {line:?} in\n{out}");
}

fn line_starting<'a>(out: &'a str, prefix: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?} in\n{out}"))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn exe() -> String {
    assert_cmd::cargo::cargo_bin("cairn")
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn a_fresh_install_is_healthy() {
    let p = Project::new();
    install(&p);
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 0, "{out}");
    let exe = exe();
    let want = [
        format!("ok   binary: cairn {} at {exe}", env!("CARGO_PKG_VERSION")),
        "ok   config: configuration from built-in defaults".to_string(),
        "info plugin: no cairn plugin installed: hooks come from settings files".to_string(),
        "ok   hooks: cairn hook for every event in project .claude/settings.json".to_string(),
        "ok   statusline: cairn statusline in project .claude/settings.json".to_string(),
        "ok   backend: offline: nothing leaves this machine, nothing is billed".to_string(),
    ];
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..want.len()],
        want.iter().map(String::as_str).collect::<Vec<_>>()[..],
        "{out}"
    );
    assert!(line_starting(&out, "ok   state: ").contains(&p.state.display().to_string()));
    for line in [
        "ok   spool: no memory job waiting",
        "ok   dead-letters: no memory job given up",
        "ok   diagnostics: no warning or error in the last day",
        "info ledger: no usage recorded yet (the status line and the hooks fill it)",
        "info long-memory: no long_memory.md yet",
        "info merge-driver: not a git repository: no merge driver needed",
        "cairn doctor: everything works",
    ] {
        has_line(&out, line);
    }
    assert_eq!(out.lines().last(), Some("cairn doctor: everything works"));
}

#[test]
fn hooks_registered_twice_are_a_failure() {
    let p = Project::new();
    install(&p);
    std::fs::copy(
        p.root.join(".claude/settings.json"),
        p.root.join(".claude/settings.local.json"),
    )
    .unwrap();
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 1, "{out}");
    has_line(
        &out,
        "FAIL hooks: cairn hook is registered more than once for every event (in project .claude/settings.json and project .claude/settings.local.json): every event reaches cairn twice; keep one registration: `cairn uninstall` in the project when the plugin is installed, or remove the duplicate entry",
    );
    assert_eq!(
        out.lines().last(),
        Some("cairn doctor: 1 problem, 0 warnings")
    );
}

/// A plugin install as the client records it (format 2 of
/// `installed_plugins.json`), enabled in the user's settings.
fn install_plugin(p: &Project, version: &str) -> std::path::PathBuf {
    let plugin = p.base.join("plugin-cache/cairn/cairn").join(version);
    write(
        &plugin.join(".claude-plugin/plugin.json"),
        &format!(r#"{{"name":"cairn","version":"{version}"}}"#),
    );
    let mut events = serde_json::Map::new();
    for ev in cairn::install::HOOK_EVENTS {
        events.insert(
            ev.to_string(),
            serde_json::json!([{"hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/bin/cairn hook"}]}]),
        );
    }
    write(
        &plugin.join("hooks/hooks.json"),
        &serde_json::json!({ "hooks": events }).to_string(),
    );
    let launcher = plugin.join("bin/cairn");
    // The repository's own launcher, as the plugin ships it.
    let shipped =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/bin/cairn")).unwrap();
    write(&launcher, &shipped);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    write(
        &p.home.join(".claude/plugins/installed_plugins.json"),
        &serde_json::json!({
            "version": 2,
            "plugins": {"cairn@cairn": [{
                "scope": "user",
                "installPath": plugin,
                "version": version,
                "installedAt": "2026-11-30T10:00:00.000Z"
            }]}
        })
        .to_string(),
    );
    write(
        &p.home.join(".claude/settings.json"),
        r#"{"enabledPlugins": {"cairn@cairn": true}}"#,
    );
    plugin
}

#[test]
fn the_plugin_alone_is_fine_and_with_a_project_install_runs_twice() {
    let mut p = Project::new();
    let plugin = install_plugin(&p, env!("CARGO_PKG_VERSION"));
    std::fs::create_dir_all(&p.state).unwrap();
    // Without a binary to find, the launcher's hooks do nothing (quietly).
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 1, "{out}");
    has_line(
        &out,
        &format!(
            "FAIL hooks: the plugin's launcher {} finds no cairn binary: its hooks do nothing; install it: `cargo install --locked cairn` (or set CAIRN_BIN)",
            plugin.join("bin/cairn").display()
        ),
    );
    p.env("CAIRN_BIN", &exe());
    let (out, _) = doctor(&p, &[]);
    has_line(
        &out,
        &format!(
            "ok   hooks: the plugin's launcher {} runs {}",
            plugin.join("bin/cairn").display(),
            exe()
        ),
    );
    has_line(
        &out,
        &format!(
            "ok   plugin: plugin cairn@cairn {} (user scope, {})",
            env!("CARGO_PKG_VERSION"),
            plugin.display()
        ),
    );
    has_line(
        &out,
        "ok   hooks: cairn hook for every event in plugin cairn@cairn",
    );
    assert!(!out.contains("FAIL hooks"), "{out}");

    install(&p);
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        line_starting(&out, "FAIL hooks: ").contains(
            "registered more than once for every event (in plugin cairn@cairn and project .claude/settings.json)"
        ),
        "{out}"
    );
}

#[test]
fn a_plugin_of_another_version_is_a_warning() {
    let p = Project::new();
    install_plugin(&p, "9.9.9");
    let (out, _) = doctor(&p, &[]);
    assert!(
        line_starting(&out, "warn plugin: plugin cairn@cairn 9.9.9 (user scope, ")
            .ends_with(&format!(
                " but the binary is {}; install the matching binary (`cargo install --locked cairn`) or update the plugin",
                env!("CARGO_PKG_VERSION")
            )),
        "{out}"
    );
}

#[test]
fn dead_letters_are_reported_with_their_errors() {
    let p = Project::new();
    install(&p);
    let dead = p.state.join("spool/dead");
    for (id, err) in [
        (
            "01795939200000000000-0000001-0000",
            "claude-cli: timed out after 60s",
        ),
        (
            "01795942800000000000-0000001-0001",
            "anthropic: HTTP 529 from https://api.anthropic.com/v1/messages: overloaded",
        ),
    ] {
        let job = Job {
            id: id.into(),
            project_root: p.root.clone(),
            session_id: "s".into(),
            cwd: p.root.clone(),
            timestamp: "2026-11-30T10:00:00Z".into(),
            digest: Default::default(),
            exchange: None,
            ok_done: false,
            attempts: 5,
            last_error: Some(err.into()),
            not_before: 0,
        };
        write(
            &dead.join(format!("{id}.json")),
            &serde_json::to_string(&job).unwrap(),
        );
    }
    write(&dead.join("garbage.json"), "{not json");
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 1, "{out}");
    let pending = p.state.join("spool/pending");
    has_line(
        &out,
        &format!(
            "FAIL dead-letters: 3 memory jobs were given up after memory.max_attempts: those turns are not in the logs; fix the cause below, then `mv {}/*.json {}/ && cairn worker --drain`",
            dead.display(),
            pending.display()
        ),
    );
    has_line(&out, "       garbage: unreadable job file");
    // The state finding lists the folder entry by entry (state_layout::TOP).
    assert!(
        out.lines().any(|l| l.starts_with("       spool/: ")
            && l.ends_with(", 3 files (memory jobs, pending and dead)")),
        "{out}"
    );
    has_line(
        &out,
        "       01795942800000000000-0000001-0001: anthropic: HTTP 529 from https://api.anthropic.com/v1/messages: overloaded",
    );
    has_line(
        &out,
        "       01795939200000000000-0000001-0000: claude-cli: timed out after 60s",
    );

    let (json, code) = doctor(&p, &["--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["broken"], 1);
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "dead-letters")
        .unwrap();
    assert_eq!(f["status"], "broken");
    assert_eq!(f["details"].as_array().unwrap().len(), 3);
}

#[test]
fn unreadable_settings_json_is_a_failure_with_line_and_column() {
    let p = Project::new();
    std::fs::create_dir_all(&p.state).unwrap();
    write(
        &p.root.join(".claude/settings.json"),
        "{\n  \"hooks\": {\n    \"Stop\": [\n",
    );
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 1, "{out}");
    has_line(
        &out,
        &format!(
            "FAIL settings: {}: invalid JSON at line 4, column 0 (EOF while parsing a list); the client ignores this file, hooks and status line included; fix it (`cairn install` says where)",
            p.root.join(".claude/settings.json").display()
        ),
    );
    has_line(
        &out,
        "FAIL hooks: cairn hook is registered nowhere: no memory is captured, no guard runs; run `cairn install` in the project (or install the cairn plugin)",
    );
    assert_eq!(
        out.lines().last(),
        Some("cairn doctor: 2 problems, 1 warning")
    );
}

#[test]
fn a_missing_state_folder_is_a_warning_and_an_impossible_one_a_failure() {
    let p = Project::new();
    install(&p);
    std::fs::remove_dir_all(&p.state).unwrap();
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 0, "{out}");
    has_line(
        &out,
        &format!(
            "warn state: {} does not exist yet: no cairn hook has run with this state folder; start a Claude Code session here and check again; if sessions ran, the hooks use another CAIRN_STATE_DIR",
            p.state.display()
        ),
    );
    assert!(!p.state.exists(), "the doctor creates nothing");

    let mut p = p;
    let file = p.base.join("a-file");
    std::fs::write(&file, "").unwrap();
    let state = file.join("state");
    p.env("CAIRN_STATE_DIR", state.to_str().unwrap());
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 1, "{out}");
    has_line(
        &out,
        &format!(
            "FAIL state: {} cannot be created: {} is a file; point CAIRN_STATE_DIR at a folder, or move that file aside",
            state.display(),
            file.display()
        ),
    );
}

/// Answers one request with `status`; returns the request it saw.
fn one_shot_server(status: u16) -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 1024];
        while !req.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = s.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            req.extend_from_slice(&buf[..n]);
        }
        let body = r#"{"data":[]}"#;
        let _ = write!(
            s,
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        String::from_utf8_lossy(&req).into_owned()
    });
    (url, handle)
}

#[test]
fn the_api_backend_is_probed_and_its_failures_said() {
    let mut p = Project::new();
    install(&p);
    p.env("CAIRN_MEMORY_BACKEND", "anthropic");
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 1, "{out}");
    has_line(
        &out,
        "FAIL backend: memory.backend is anthropic but $ANTHROPIC_API_KEY is empty; export ANTHROPIC_API_KEY, or set memory.backend = \"offline\"",
    );

    p.env("ANTHROPIC_API_KEY", "sk-ant-test-key-123456");
    let (url, server) = one_shot_server(200);
    p.env("CAIRN_MEMORY_ANTHROPIC_BASE_URL", &url);
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 0, "{out}");
    has_line(
        &out,
        &format!("ok   backend: anthropic (claude-haiku-4-5-20251001, {url}/v1/models) answers"),
    );
    has_line(
        &out,
        "info backend: memory spend today $0.0000 of $0.50 (memory.daily_budget_usd)",
    );
    let req = server.join().unwrap();
    write(
        &p.state.join("ledger/memory.jsonl"),
        r#"{"ts":"t","date":"2026-11-30","kind":"memory","backend":"anthropic/memory","model":"claude-haiku-4-5","input_tokens":1,"output_tokens":1,"usd":0.002}
{"ts":"t","date":"2026-11-29","kind":"memory","backend":"anthropic/memory","model":"claude-haiku-4-5","input_tokens":1,"output_tokens":1,"usd":0.004}
"#,
    );
    let (out, _) = doctor(&p, &["--offline"]);
    has_line(
        &out,
        "info backend: memory spend today $0.0020 of $0.50 (memory.daily_budget_usd); $0.0030 per turn on average over 2 calls",
    );
    p.env("CAIRN_MEMORY_DAILY_BUDGET_USD", "0.001");
    let (out, code) = doctor(&p, &["--offline"]);
    assert_eq!(code, 0, "a warning: {out}");
    has_line(
        &out,
        "warn backend: today's memory spend $0.0020 reached memory.daily_budget_usd ($0.00): the offline extractor runs until tomorrow; raise memory.daily_budget_usd if that is not what you want",
    );
    p.extra_env
        .retain(|(k, _)| k != "CAIRN_MEMORY_DAILY_BUDGET_USD");
    assert!(req.starts_with("GET /v1/models HTTP/1.1\r\n"), "{req}");
    assert!(
        req.contains("x-api-key: sk-ant-test-key-123456\r\n"),
        "{req}"
    );

    let (url, server) = one_shot_server(401);
    p.env("CAIRN_MEMORY_ANTHROPIC_BASE_URL", &url);
    let (out, code) = doctor(&p, &[]);
    server.join().unwrap();
    assert_eq!(code, 1, "{out}");
    assert!(
        line_starting(&out, "FAIL backend: anthropic (").contains("rejects the key (HTTP 401)"),
        "{out}"
    );
    assert!(!out.contains("sk-ant-test-key"), "the key is never printed");

    // Nothing listens there any more.
    let dead = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    p.env("CAIRN_MEMORY_ANTHROPIC_BASE_URL", &dead);
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        line_starting(&out, "FAIL backend: anthropic (").contains("cannot be reached"),
        "{out}"
    );
    let (out, code) = doctor(&p, &["--offline"]);
    assert_eq!(code, 0, "{out}");
    has_line(
        &out,
        &format!(
            "info backend: anthropic (claude-haiku-4-5-20251001, {dead}/v1/models): not probed (--offline)"
        ),
    );
}

#[test]
fn claude_cli_backend_without_the_program_is_a_failure() {
    let mut p = Project::new();
    install(&p);
    p.env("CAIRN_MEMORY_BACKEND", "claude-cli");
    p.env("CAIRN_MEMORY_CLAUDE_COMMAND", "/nonexistent/claude");
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 1, "{out}");
    line_starting(
        &out,
        "FAIL backend: memory.backend is claude-cli but `/nonexistent/claude` is not on PATH",
    );
}

#[test]
fn recent_diagnostics_stale_spool_and_long_memory_over_cap_are_warnings() {
    let mut p = Project::new();
    install(&p);
    write(
        &p.state.join("diagnostics.log"),
        "2026-11-27T09:00:00Z WARN hook: too old to show\n2026-11-30T08:00:00Z INFO worker: fine\n2026-11-30T09:15:00Z ERROR worker: claude-cli: timed out\n",
    );
    // Enqueued at 2026-11-30T10:00:00Z, two hours before the pinned clock.
    let id = "01796032800000000000-0000001-0000";
    let job = Job {
        id: id.into(),
        project_root: p.root.clone(),
        session_id: "s".into(),
        cwd: p.root.clone(),
        timestamp: "2026-11-30T10:00:00Z".into(),
        digest: Default::default(),
        exchange: None,
        ok_done: false,
        attempts: 2,
        last_error: Some("claude-cli: exit 1".into()),
        not_before: 0,
    };
    write(
        &p.state.join(format!("spool/pending/{id}.json")),
        &serde_json::to_string(&job).unwrap(),
    );
    write(
        &p.root.join("memory_sessions/long_memory.md"),
        "# Mémoire long terme — root\n\n## 2026-11-01\n\n- a\n- b\n",
    );
    p.env("CAIRN_MEMORY_LONG_MEMORY_MAX_LINES", "4");
    let (out, code) = doctor(&p, &[]);
    assert_eq!(code, 0, "warnings only: {out}");
    has_line(
        &out,
        &format!(
            "warn diagnostics: 1 warning or error in the last day (1 error); read {}",
            p.state.join("diagnostics.log").display()
        ),
    );
    has_line(
        &out,
        "       2026-11-30T09:15:00Z ERROR worker: claude-cli: timed out",
    );
    has_line(
        &out,
        "warn spool: 1 memory job waiting, the oldest 2 h ago, 1 failed at least once: no worker is draining them; run `cairn worker --drain` and read what it says",
    );
    has_line(
        &out,
        &format!("       {id} (attempt 2): claude-cli: exit 1"),
    );
    has_line(
        &out,
        "warn long-memory: root long memory: 6 lines of 4 (memory.long_memory_max_lines); run `cairn memory promote root` to bring it under the cap",
    );
    assert_eq!(out.lines().last(), Some("cairn doctor: works, 3 warnings"));
}

#[test]
fn outside_a_project_only_user_wide_registrations_are_checked() {
    let p = Project::new();
    std::fs::create_dir_all(&p.state).unwrap();
    let o = p
        .cairn()
        .arg("doctor")
        .current_dir(&p.home)
        .output()
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0), "{out}");
    has_line(
        &out,
        "info hooks: no cairn hook in the user's settings or a plugin; run the doctor inside a project to check its own registration",
    );
    has_line(
        &out,
        "info project: not inside a project (no memory_sessions/, .cairn.toml or .git above here): project checks skipped",
    );
}
