//! `cairn install` and the status line: the project entry, `--user`, and a
//! status line the user already has. Runs the real binary.

use crate::common;

use common::Project;
use serde_json::Value;
use std::fs;

const USER_SETTINGS: &str = "{\n  \"model\": \"sonnet\",\n  \"env\": {\"A\": \"1\"}\n}\n";

fn json(path: &std::path::Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn project_install_registers_the_status_line_and_uninstall_takes_it_back() {
    let p = Project::new();
    let out = p.cairn().arg("install").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&p.root.join(".claude/settings.json"));
    let cmd = v["statusLine"]["command"].as_str().unwrap();
    assert!(cmd.ends_with("cairn statusline"), "{cmd}");
    assert_eq!(v["statusLine"]["type"], "command");
    assert_eq!(v["statusLine"]["padding"], 0);
    assert!(
        stdout(&out).contains("status line added"),
        "{}",
        stdout(&out)
    );

    // The registered command really prints a status line.
    let mut sh = std::process::Command::new("sh");
    common::clear_env(&mut sh, &p.home, &p.state);
    let run = sh
        .arg("-c")
        .arg(cmd)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(
                br#"{"model":{"id":"claude-sonnet-4-5","display_name":"Sonnet 4.5"}}"#,
            )?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(String::from_utf8_lossy(&run.stdout).contains("Sonnet 4.5"));

    let out = p.cairn().arg("uninstall").output().unwrap();
    assert!(out.status.success());
    assert!(!p.root.join(".claude/settings.json").exists());
}

#[test]
fn no_statusline_flag_leaves_it_out() {
    let p = Project::new();
    p.cairn()
        .args(["install", "--no-statusline"])
        .assert()
        .success();
    let v = json(&p.root.join(".claude/settings.json"));
    assert!(v.get("statusLine").is_none());
    assert!(v["hooks"]["Stop"].is_array());
}

#[test]
fn user_install_writes_only_the_status_line_and_uninstall_restores_the_bytes() {
    let mut p = Project::new();
    let cfg = p.base.join("claude-config");
    fs::create_dir_all(&cfg).unwrap();
    fs::write(cfg.join("settings.json"), USER_SETTINGS).unwrap();
    p.env("CLAUDE_CONFIG_DIR", cfg.to_str().unwrap());

    let out = p.cairn().args(["install", "--user"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).contains("status line added"),
        "{}",
        stdout(&out)
    );
    let v = json(&cfg.join("settings.json"));
    assert!(
        v["statusLine"]["command"]
            .as_str()
            .unwrap()
            .ends_with("cairn statusline")
    );
    assert_eq!(v["model"], "sonnet");
    assert!(v.get("hooks").is_none(), "--user registers no hook");
    assert_eq!(
        fs::read_to_string(cfg.join("settings.json.cairn.bak")).unwrap(),
        USER_SETTINGS
    );
    assert!(
        !p.root.join(".claude").exists(),
        "--user leaves the project alone"
    );

    let again = p.cairn().args(["install", "--user"]).output().unwrap();
    assert!(
        stdout(&again).contains("already in your user settings"),
        "{}",
        stdout(&again)
    );

    let out = p.cairn().args(["uninstall", "--user"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        fs::read_to_string(cfg.join("settings.json")).unwrap(),
        USER_SETTINGS
    );
    assert!(!cfg.join("settings.json.cairn.bak").exists());
    let out = p.cairn().args(["uninstall", "--user"]).output().unwrap();
    assert!(stdout(&out).contains("nothing to remove"));
}

#[test]
fn user_install_without_a_settings_file_creates_it() {
    let p = Project::new();
    p.cairn()
        .args(["install", "--user", "--dry-run"])
        .assert()
        .success();
    assert!(
        !p.home.join(".claude/settings.json").exists(),
        "dry run writes nothing"
    );
    p.cairn().args(["install", "--user"]).assert().success();
    let v = json(&p.home.join(".claude/settings.json"));
    assert!(
        v["statusLine"]["command"]
            .as_str()
            .unwrap()
            .ends_with("statusline")
    );
}

#[test]
fn someone_elses_status_line_is_kept_everywhere() {
    let mut p = Project::new();
    let cfg = p.base.join("claude-config");
    fs::create_dir_all(&cfg).unwrap();
    let theirs = r#"{"statusLine": {"type": "command", "command": "npx -y ccstatusline@latest"}}"#;
    fs::write(cfg.join("settings.json"), theirs).unwrap();
    p.env("CLAUDE_CONFIG_DIR", cfg.to_str().unwrap());

    let out = p.cairn().args(["install", "--user"]).output().unwrap();
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("kept your status line (`npx -y ccstatusline@latest`)"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        fs::read_to_string(cfg.join("settings.json")).unwrap(),
        theirs
    );

    // A project install does not hide the user's status line either.
    let out = p.cairn().arg("install").output().unwrap();
    assert!(out.status.success());
    assert!(
        stdout(&out)
            .contains("kept your status line (`npx -y ccstatusline@latest`, user settings)"),
        "{}",
        stdout(&out)
    );
    let v = json(&p.root.join(".claude/settings.json"));
    assert!(v.get("statusLine").is_none());
}

#[test]
fn a_broken_user_settings_file_is_refused_and_left_alone() {
    let mut p = Project::new();
    let cfg = p.base.join("claude-config");
    fs::create_dir_all(&cfg).unwrap();
    fs::write(cfg.join("settings.json"), "{\"model\": ").unwrap();
    p.env("CLAUDE_CONFIG_DIR", cfg.to_str().unwrap());
    let out = p.cairn().args(["install", "--user"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("settings.json: invalid JSON at line 1"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(cfg.join("settings.json")).unwrap(),
        "{\"model\": "
    );
}
