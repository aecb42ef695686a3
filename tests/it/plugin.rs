//! The repository as a Claude Code plugin: manifests that agree with the
//! binary, and the `bin/cairn` launcher that never breaks a hook.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn json(rel: &str) -> Value {
    let text = std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn manifests_agree_with_the_crate() {
    let plugin = json(".claude-plugin/plugin.json");
    assert_eq!(plugin["name"], "cairn");
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
    let market = json(".claude-plugin/marketplace.json");
    let entry = &market["plugins"][0];
    assert_eq!(entry["name"], "cairn");
    assert_eq!(entry["source"], "./");
    assert_eq!(entry["version"], env!("CARGO_PKG_VERSION"));
    // Every skill the plugin lists is one `cairn install` ships.
    for s in plugin["skills"].as_array().unwrap() {
        let dir = s.as_str().unwrap();
        assert!(dir.starts_with("./") && !dir.contains(".."), "{dir}");
        let skill = root().join(dir).join("SKILL.md");
        assert!(skill.is_file(), "{}", skill.display());
    }
}

#[test]
fn plugin_hooks_are_the_events_install_registers() {
    let hooks = json("hooks/hooks.json");
    let events: Vec<&str> = hooks["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(events, cairn::install::HOOK_EVENTS);
    for (ev, groups) in hooks["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                let cmd = h["command"].as_str().unwrap();
                assert_eq!(cmd, "\"${CLAUDE_PLUGIN_ROOT}/bin/cairn\" hook", "{ev}");
                assert!(
                    cairn::install::is_cairn_hook_command(cmd),
                    "{ev}: doctor must see it"
                );
            }
        }
    }
    let mcp = json(".mcp.json");
    assert_eq!(
        mcp["mcpServers"]["cairn"]["command"],
        "${CLAUDE_PLUGIN_ROOT}/bin/cairn"
    );
    assert_eq!(
        mcp["mcpServers"]["cairn"]["args"],
        serde_json::json!(["mcp"])
    );
}

/// Runs `bin/cairn` with exactly this PATH and HOME (nothing inherited).
fn launcher(
    args: &[&str],
    path: &str,
    home: &Path,
    extra: &[(&str, &str)],
) -> std::process::Output {
    let mut c = Command::new("sh");
    crate::common::clear_env(&mut c, home, &home.join("state"));
    // The PATH under test replaces the developer's.
    c.arg(root().join("bin/cairn"))
        .args(args)
        .env("PATH", path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"hook_event_name":"Stop","session_id":"s"}"#);
    child.wait_with_output().unwrap()
}

const SYS_PATH: &str = "/usr/bin:/bin";

#[test]
fn a_missing_binary_never_fails_a_hook() {
    let home = tempfile::tempdir().unwrap();
    let o = launcher(&["hook"], SYS_PATH, home.path(), &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty(), "nothing the client would inject");
    assert!(String::from_utf8_lossy(&o.stderr).contains("cargo install --locked cairn"));

    let o = launcher(&["statusline"], SYS_PATH, home.path(), &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("cargo install --locked cairn"));

    let o = launcher(&["doctor"], SYS_PATH, home.path(), &[]);
    assert_eq!(o.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not installed"));
}

#[test]
fn the_binary_is_found_on_path_in_cargo_home_or_by_cairn_bin() {
    let bin = assert_cmd::cargo::cargo_bin("cairn");
    let bin_dir = bin.parent().unwrap().to_str().unwrap().to_string();
    let home = tempfile::tempdir().unwrap();
    let version = format!("cairn {}", env!("CARGO_PKG_VERSION"));

    let o = launcher(
        &["--version"],
        &format!("{bin_dir}:{SYS_PATH}"),
        home.path(),
        &[],
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&version),
        "{o:?}"
    );

    let o = launcher(
        &["--version"],
        SYS_PATH,
        home.path(),
        &[("CAIRN_BIN", bin.to_str().unwrap())],
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&version),
        "{o:?}"
    );

    let cargo_bin = home.path().join(".cargo/bin");
    std::fs::create_dir_all(&cargo_bin).unwrap();
    std::os::unix::fs::symlink(&bin, cargo_bin.join("cairn")).unwrap();
    let o = launcher(&["--version"], SYS_PATH, home.path(), &[]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&version),
        "{o:?}"
    );
}

/// The plugin's bin/ is on the Bash tool's PATH, and another copy of the
/// launcher (a symlink, an older plugin version) may be too: never exec a
/// launcher from a launcher.
#[test]
fn the_launcher_does_not_run_itself_in_a_loop() {
    let home = tempfile::tempdir().unwrap();
    let other = home.path().join("old-plugin/bin");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(root().join("bin/cairn"), other.join("cairn")).unwrap();
    let link = home.path().join("link");
    std::fs::create_dir_all(&link).unwrap();
    std::os::unix::fs::symlink(root().join("bin/cairn"), link.join("cairn")).unwrap();
    let path = format!(
        "{}:{}:{}:{SYS_PATH}",
        root().join("bin").display(),
        other.display(),
        link.display()
    );
    // Every `cairn` on that PATH is this launcher or a copy: none is picked,
    // so the hook takes the not-installed branch instead of exec'ing one.
    let which = launcher(&["--launcher-which"], &path, home.path(), &[]);
    assert_eq!(which.status.code(), Some(1), "{which:?}");
    assert!(which.stdout.is_empty(), "{which:?}");
    let o = launcher(&["hook"], &path, home.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(o.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("the cairn binary is not installed"),
        "{o:?}"
    );
}

/// `cairn doctor` asks the launcher which binary it would run.
#[test]
fn the_launcher_says_which_binary_it_would_run() {
    let bin = assert_cmd::cargo::cargo_bin("cairn");
    let home = tempfile::tempdir().unwrap();
    let o = launcher(
        &["--launcher-which"],
        SYS_PATH,
        home.path(),
        &[("CAIRN_BIN", bin.to_str().unwrap())],
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        bin.to_str().unwrap()
    );
    let o = launcher(&["--launcher-which"], SYS_PATH, home.path(), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
}
