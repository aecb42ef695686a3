//! `cairn install` / `cairn uninstall` on scratch projects.

use crate::common;

use cairn::install::{
    EntryKind, HOOK_EVENTS, InstallOptions, plan_install, plan_uninstall, run_install,
    run_uninstall,
};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

const USER_SETTINGS: &str = r#"{
  "permissions": {
    "allow": ["Bash(npm test:*)", "Read"],
    "deny": []
  },
  "env": {
    "FOO": "1"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "./scripts/guard.sh" }
        ]
      }
    ],
    "Stop": [
      {
        "matcher": "",
        "hooks": [
          { "type": "command", "command": "notify-send done" }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh"
  }
}
"#;

const CAIRN_GROUP: &str = r#"{
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "cairn hook",
            "timeout": 30
          }
        ]
      }"#;

/// cairn's state folder for these tests: where install records that it
/// created a settings file (one record per settings path, so tests sharing
/// it do not see each other's).
fn record_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap())
        .path()
        .join("install")
}

fn opts(command: &str) -> InstallOptions {
    InstallOptions {
        command: command.to_string(),
        record_dir: Some(record_dir()),
        ..Default::default()
    }
}

fn install(root: &Path, command: &str) -> Vec<String> {
    plan_install(root, &opts(command)).unwrap().apply().unwrap()
}

fn uninstall(root: &Path) -> Vec<String> {
    plan_uninstall(root, &opts("cairn"))
        .unwrap()
        .apply()
        .unwrap()
}

fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap()
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// Every path under `root`, folders with a trailing slash, sorted.
fn tree(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for e in fs::read_dir(dir).unwrap() {
            let p: PathBuf = e.unwrap().path();
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if p.is_dir() {
                out.push(format!("{rel}/"));
                walk(&p, root, out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

fn settings(root: &Path) -> Value {
    serde_json::from_str(&read(root, ".claude/settings.json")).unwrap()
}

fn commands(v: &Value, event: &str) -> Vec<String> {
    v["hooks"][event]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap())
        .map(|h| h["command"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn fresh_project_gets_everything() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let lines = install(root, "cairn");
    assert_eq!(
        lines,
        [
            "created .claude/settings.json: cairn hook added for every event (SessionStart, UserPromptSubmit, Stop, SubagentStop, PreCompact, SessionEnd); status line added",
            "created memory_sessions/.gitkeep: keeps the memory folder in git",
            "created memory_sessions/logs/",
            "created .gitignore: ignore **/.debug/ (raw extractor output)",
            "created .claude/skills/memory_load/SKILL.md: skill /memory_load",
            "created .claude/skills/memory_promotion/SKILL.md: skill /memory_promotion",
            "created .claude/skills/token_audit/SKILL.md: skill /token_audit",
        ]
    );
    assert_eq!(
        tree(root),
        [
            ".claude/",
            ".claude/settings.json",
            ".claude/skills/",
            ".claude/skills/memory_load/",
            ".claude/skills/memory_load/SKILL.md",
            ".claude/skills/memory_promotion/",
            ".claude/skills/memory_promotion/SKILL.md",
            ".claude/skills/token_audit/",
            ".claude/skills/token_audit/SKILL.md",
            ".gitignore",
            "memory_sessions/",
            "memory_sessions/.gitkeep",
            "memory_sessions/logs/",
        ]
    );
    let v = settings(root);
    let events: Vec<_> = v["hooks"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(events, HOOK_EVENTS);
    assert_eq!(
        v["hooks"]["SessionStart"],
        serde_json::from_str::<Value>(&format!("[{CAIRN_GROUP}]")).unwrap()
    );
    assert!(read(root, ".claude/settings.json").ends_with("}\n"));
    assert_eq!(
        read(root, ".gitignore"),
        "# cairn (added by cairn install)\n**/.debug/\n**/.cairn-tmp-*\n"
    );
    assert!(
        read(root, ".claude/skills/memory_load/SKILL.md").contains("cairn memory load $ARGUMENTS")
    );
    assert!(
        plan_install(root, &opts("cairn")).unwrap().is_empty(),
        "second install changes nothing"
    );
}

#[test]
fn merges_into_user_settings_keeping_everything_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".claude/settings.json", USER_SETTINGS);
    install(root, "cairn");
    let after = read(root, ".claude/settings.json");

    let user_stop = r#"{
        "matcher": "",
        "hooks": [
          { "type": "command", "command": "notify-send done" }
        ]
      }"#;
    let new_events: String = [
        "SessionStart",
        "UserPromptSubmit",
        "SubagentStop",
        "PreCompact",
        "SessionEnd",
    ]
    .iter()
    .map(|ev| format!(",\n    \"{ev}\": [\n      {CAIRN_GROUP}\n    ]"))
    .collect();
    let expected = USER_SETTINGS.replace(
        &format!("    \"Stop\": [\n      {user_stop}\n    ]\n  }},"),
        &format!(
            "    \"Stop\": [\n      {user_stop},\n      {CAIRN_GROUP}\n    ]{new_events}\n  }},"
        ),
    );
    assert_ne!(expected, USER_SETTINGS, "the test's own replace matched");
    assert_eq!(after, expected);

    let v = settings(root);
    let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["permissions", "env", "hooks", "statusLine"]);
    let events: Vec<_> = v["hooks"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        events,
        [
            "PreToolUse",
            "Stop",
            "SessionStart",
            "UserPromptSubmit",
            "SubagentStop",
            "PreCompact",
            "SessionEnd"
        ]
    );
    assert_eq!(commands(&v, "Stop"), ["notify-send done", "cairn hook"]);
    assert_eq!(commands(&v, "PreToolUse"), ["./scripts/guard.sh"]);
}

#[test]
fn second_install_is_a_no_op() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".claude/settings.json", USER_SETTINGS);
    write(root, ".gitignore", "target/\n");
    install(root, "cairn");
    let snapshot: Vec<_> = tree(root)
        .iter()
        .map(|p| (p.clone(), fs::read(root.join(p)).ok()))
        .collect();
    let plan = plan_install(root, &opts("cairn")).unwrap();
    assert!(plan.is_empty(), "{:?}", plan.changes);
    assert_eq!(plan.diff(), "");
    let out = run_install(root, &opts("cairn")).unwrap();
    assert_eq!(
        out,
        "cairn is already installed here: nothing to change.\n\
         note: kept your status line (`~/.claude/statusline.sh`); set its command to `cairn statusline` to use cairn's.\n"
    );
    let again: Vec<_> = tree(root)
        .iter()
        .map(|p| (p.clone(), fs::read(root.join(p)).ok()))
        .collect();
    assert_eq!(snapshot, again);
}

#[test]
fn a_new_command_path_updates_the_entry_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".claude/settings.json", USER_SETTINGS);
    install(root, "/usr/local/bin/cairn");
    assert_eq!(
        commands(&settings(root), "Stop"),
        ["notify-send done", "/usr/local/bin/cairn hook"]
    );

    let plan = plan_install(root, &opts("/opt/my tools/cairn")).unwrap();
    let paths: Vec<_> = plan
        .changes
        .iter()
        .map(|c| c.path.strip_prefix(root).unwrap().to_path_buf())
        .collect();
    // The backup keeps the file from before the first install.
    assert_eq!(paths, [PathBuf::from(".claude/settings.json")]);
    assert_eq!(read(root, ".claude/settings.json.cairn.bak"), USER_SETTINGS);
    let before = read(root, ".claude/settings.json");
    plan.apply().unwrap();
    let after = read(root, ".claude/settings.json");
    assert_eq!(
        after,
        before.replace(
            "\"/usr/local/bin/cairn hook\"",
            r#""\"/opt/my tools/cairn\" hook""#
        )
    );
    let v = settings(root);
    for ev in HOOK_EVENTS {
        let cairn: Vec<_> = commands(&v, ev)
            .into_iter()
            .filter(|c| c.contains("cairn"))
            .collect();
        assert_eq!(cairn, ["\"/opt/my tools/cairn\" hook"], "{ev}");
    }
    assert!(
        plan_install(root, &opts("/opt/my tools/cairn"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn backup_holds_the_previous_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".claude/settings.json", USER_SETTINGS);
    install(root, "cairn");
    assert_eq!(read(root, ".claude/settings.json.cairn.bak"), USER_SETTINGS);

    // A fresh project has nothing to back up.
    let fresh = tempfile::tempdir().unwrap();
    install(fresh.path(), "cairn");
    assert!(
        !fresh
            .path()
            .join(".claude/settings.json.cairn.bak")
            .exists()
    );
}

#[test]
fn invalid_json_is_refused_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let broken = "{\n  \"env\": {\"A\": \"1\"},\n  \"hooks\": {\n}\n";
    write(root, ".claude/settings.json", broken);
    let err = plan_install(root, &opts("cairn")).unwrap_err().to_string();
    assert!(
        err.contains("settings.json: invalid JSON at line 5, column 0"),
        "{err}"
    );
    assert!(
        err.contains("fix it or move it aside, then run `cairn install` again"),
        "{err}"
    );
    assert!(!err.contains('\n'), "one line: {err}");
    let err = plan_uninstall(root, &opts("cairn"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("line 5, column 0") && err.contains("`cairn uninstall`"),
        "{err}"
    );
    assert_eq!(read(root, ".claude/settings.json"), broken);
}

#[test]
fn hooks_that_are_not_an_object_are_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".claude/settings.json", "{\n  \"hooks\": []\n}\n");
    let err = plan_install(root, &opts("cairn")).unwrap_err().to_string();
    assert!(
        err.contains("settings.json: `hooks` is not a JSON object"),
        "{err}"
    );

    write(
        root,
        ".claude/settings.json",
        "{\"hooks\": {\"Stop\": {\"command\": \"x\"}}}",
    );
    let err = plan_install(root, &opts("cairn")).unwrap_err().to_string();
    assert!(err.contains("`hooks.Stop` is not an array"), "{err}");

    write(root, ".claude/settings.json", "[1]");
    let err = plan_install(root, &opts("cairn")).unwrap_err().to_string();
    assert!(err.contains("the top level is not a JSON object"), "{err}");
}

#[test]
fn dry_run_writes_nothing_and_shows_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".claude/settings.json", USER_SETTINGS);
    let before = tree(root);
    let dry = InstallOptions {
        dry_run: true,
        ..opts("cairn")
    };
    let out = run_install(root, &dry).unwrap();
    assert_eq!(tree(root), before);
    assert_eq!(read(root, ".claude/settings.json"), USER_SETTINGS);
    assert!(
        out.contains("--- a/.claude/settings.json\n+++ b/.claude/settings.json\n"),
        "{out}"
    );
    assert!(
        out.contains("+            \"command\": \"cairn hook\",\n"),
        "{out}"
    );
    assert!(out.contains("--- /dev/null\n+++ b/.gitignore\n@@ -0,0 +1,3 @@\n+# cairn (added by cairn install)\n+**/.debug/\n+**/.cairn-tmp-*\n"), "{out}");
    assert!(out.contains("mkdir memory_sessions/logs/\n"), "{out}");
    assert!(
        out.contains("+++ b/.claude/skills/memory_load/SKILL.md\n"),
        "{out}"
    );
    assert!(out.contains("\n(dry run: nothing written)\n"), "{out}");
    let plan = plan_install(root, &opts("cairn")).unwrap();
    let diff = plan.diff();
    assert!(diff.starts_with("write .claude/settings.json.cairn.bak (backup of the previous settings)\n--- a/.claude/settings.json\n"), "{diff}");
    let removed = diff
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .count();
    assert_eq!(removed, 0, "merging only adds lines: {diff}");
}

#[test]
fn uninstall_restores_the_exact_original() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let gitignore = "target/\n# my notes\n*.log\n";
    write(root, ".claude/settings.json", USER_SETTINGS);
    write(root, ".gitignore", gitignore);
    install(root, "cairn");
    // The user edits one skill and adds a line of their own after cairn's block.
    write(
        root,
        ".claude/skills/memory_promotion/SKILL.md",
        "my own version\n",
    );
    let edited_gitignore = format!("{}dist/\n", read(root, ".gitignore"));
    write(root, ".gitignore", &edited_gitignore);

    let plan = plan_uninstall(root, &opts("cairn")).unwrap();
    let lines = plan.apply().unwrap();
    assert_eq!(
        read(root, ".claude/settings.json"),
        USER_SETTINGS,
        "byte-identical"
    );
    assert_eq!(read(root, ".gitignore"), format!("{gitignore}dist/\n"));
    assert_eq!(
        read(root, ".claude/skills/memory_promotion/SKILL.md"),
        "my own version\n"
    );
    assert_eq!(
        lines,
        [
            "updated .claude/settings.json: removed 6 cairn hook entries",
            "removed .claude/settings.json.cairn.bak: same as the restored settings",
            "updated .gitignore: removed cairn's block",
            "removed .claude/skills/memory_load/SKILL.md: skill /memory_load",
            "removed .claude/skills/token_audit/SKILL.md: skill /token_audit",
            "removed .claude/skills/memory_load/",
            "removed .claude/skills/token_audit/",
        ]
    );
    assert!(
        plan.notes
            .iter()
            .any(|n| n.starts_with("kept .claude/skills/memory_promotion/SKILL.md")),
        "{:?}",
        plan.notes
    );
    assert!(
        plan.notes
            .iter()
            .any(|n| n.starts_with("kept memory_sessions/")),
        "{:?}",
        plan.notes
    );
    assert_eq!(
        tree(root),
        [
            ".claude/",
            ".claude/settings.json",
            ".claude/skills/",
            ".claude/skills/memory_promotion/",
            ".claude/skills/memory_promotion/SKILL.md",
            ".gitignore",
            "memory_sessions/",
            "memory_sessions/.gitkeep",
            "memory_sessions/logs/",
        ]
    );
    assert!(plan_uninstall(root, &opts("cairn")).unwrap().is_empty());
}

#[test]
fn uninstall_of_a_fresh_install_leaves_only_the_memory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    install(root, "cairn");
    write(
        root,
        "memory_sessions/logs/2026-03-21.md",
        "# Log session — 2026-03-21\n",
    );
    let out = run_uninstall(root, &opts("cairn")).unwrap();
    assert!(out.contains("removed .claude/\n"), "{out}");
    assert!(
        out.contains("removed .gitignore: it held only cairn's block\n"),
        "{out}"
    );
    assert!(out.contains("note: kept memory_sessions/"), "{out}");
    assert_eq!(
        tree(root),
        [
            "memory_sessions/",
            "memory_sessions/.gitkeep",
            "memory_sessions/logs/",
            "memory_sessions/logs/2026-03-21.md"
        ]
    );
}

#[test]
fn uninstall_when_never_installed_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".claude/settings.json", USER_SETTINGS);
    write(root, ".gitignore", "**/.debug/\n");
    write(root, ".claude/skills/other/SKILL.md", "x\n");
    fs::create_dir_all(root.join(".claude/skills/memory_load")).unwrap();
    let before: Vec<_> = tree(root)
        .iter()
        .map(|p| (p.clone(), fs::read(root.join(p)).ok()))
        .collect();
    let plan = plan_uninstall(root, &opts("cairn")).unwrap();
    assert!(plan.is_empty(), "{:?}", plan.changes);
    assert_eq!(
        run_uninstall(root, &opts("cairn")).unwrap(),
        "cairn is not installed here: nothing to remove.\n"
    );
    let after: Vec<_> = tree(root)
        .iter()
        .map(|p| (p.clone(), fs::read(root.join(p)).ok()))
        .collect();
    assert_eq!(before, after);

    let empty = tempfile::tempdir().unwrap();
    assert!(
        plan_uninstall(empty.path(), &opts("cairn"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_user_debug_line_is_not_duplicated_nor_removed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let gitignore = "# Debug JSON des appels Haiku (memory-session hook)\n**/.debug/\n";
    write(root, ".gitignore", gitignore);
    install(root, "cairn");
    assert_eq!(
        read(root, ".gitignore"),
        format!("{gitignore}# cairn (added by cairn install)\n**/.cairn-tmp-*\n")
    );
    uninstall(root);
    assert_eq!(read(root, ".gitignore"), gitignore);
}

#[test]
fn a_user_edited_skill_is_left_alone_at_install() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        ".claude/skills/memory_load/SKILL.md",
        "# /memory_load\nCharge la mémoire.\n",
    );
    let plan = plan_install(root, &opts("cairn")).unwrap();
    assert!(
        !plan
            .changes
            .iter()
            .any(|c| c.path.ends_with("memory_load/SKILL.md"))
    );
    assert!(
        plan.notes
            .iter()
            .any(|n| n.starts_with("kept .claude/skills/memory_load/SKILL.md: it differs"))
    );
    plan.apply().unwrap();
    assert_eq!(
        read(root, ".claude/skills/memory_load/SKILL.md"),
        "# /memory_load\nCharge la mémoire.\n"
    );
}

/// A skill as an earlier release shipped it is cairn's, not the user's:
/// install brings it to this release's text, uninstall removes it.
#[test]
fn a_skill_from_an_earlier_release_is_updated_then_removed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let former = include_str!("../../assets/skills-former/memory_load.1.md");
    let ours = include_str!("../../assets/skills/memory_load/SKILL.md");
    assert_ne!(former, ours);
    write(root, ".claude/skills/memory_load/SKILL.md", former);
    let lines = install(root, "cairn");
    assert!(
        lines.iter().any(|l| l.contains("memory_load/SKILL.md")),
        "{lines:?}"
    );
    assert_eq!(read(root, ".claude/skills/memory_load/SKILL.md"), ours);
    write(root, ".claude/skills/memory_load/SKILL.md", former);
    uninstall(root);
    assert!(!root.join(".claude/skills/memory_load/SKILL.md").exists());
}

#[test]
fn existing_memory_is_never_touched() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "memory_sessions/long_memory.md", "# facts\n");
    let plan = plan_install(root, &opts("cairn")).unwrap();
    let memory: Vec<_> = plan
        .changes
        .iter()
        .filter(|c| c.path.starts_with(root.join("memory_sessions")))
        .map(|c| (c.path.strip_prefix(root).unwrap().to_path_buf(), c.kind))
        .collect();
    assert_eq!(
        memory,
        [(PathBuf::from("memory_sessions/logs"), EntryKind::Dir)]
    );
}

#[test]
fn a_plan_is_not_applied_over_a_concurrent_edit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".claude/settings.json", USER_SETTINGS);
    let plan = plan_install(root, &opts("cairn")).unwrap();
    write(root, ".claude/settings.json", "{}\n");
    let err = plan.apply().unwrap_err().to_string();
    assert!(
        err.contains(".claude/settings.json changed while `cairn install` was running"),
        "{err}"
    );
    assert_eq!(
        tree(root),
        [".claude/", ".claude/settings.json"],
        "nothing written"
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_settings_file_stays_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "dotfiles/settings.json", USER_SETTINGS);
    fs::create_dir_all(root.join(".claude")).unwrap();
    std::os::unix::fs::symlink(
        root.join("dotfiles/settings.json"),
        root.join(".claude/settings.json"),
    )
    .unwrap();
    install(root, "cairn");
    assert!(
        fs::symlink_metadata(root.join(".claude/settings.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(read(root, "dotfiles/settings.json").contains("\"cairn hook\""));
    uninstall(root);
    assert_eq!(read(root, "dotfiles/settings.json"), USER_SETTINGS);
}

/// A stranger's clone may link `.claude` (or one file in it) to the user's
/// own `~/.claude`: install and uninstall refuse before reading or writing
/// anything there, and say which link to remove.
#[cfg(unix)]
#[test]
fn links_out_of_the_project_are_refused_before_anything_is_read_or_written() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".claude/settings.json", USER_SETTINGS);
    write(home.path(), "skills/memory_load/SKILL.md", "mine\n");
    let before = snapshot(home.path());
    let links: [(&str, PathBuf); 4] = [
        (".claude", home.path().join(".claude")),
        (
            ".claude/settings.json",
            home.path().join(".claude/settings.json"),
        ),
        (".claude/skills", home.path().join("skills")),
        ("memory_sessions", home.path().to_path_buf()),
    ];
    for (link, target) in links {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        if let Some(parent) = Path::new(link).parent() {
            fs::create_dir_all(root.join(parent)).unwrap();
        }
        std::os::unix::fs::symlink(&target, root.join(link)).unwrap();
        let project = tree(root);
        for plan in [
            plan_install(root, &opts("cairn")),
            plan_uninstall(root, &opts("cairn")),
        ] {
            let err = plan
                .err()
                .unwrap_or_else(|| panic!("{link}: a plan was made"))
                .to_string();
            assert!(
                err.contains("outside the project") && err.contains(link),
                "{link}: {err}"
            );
            assert!(
                !err.contains("permissions"),
                "{link}: the outside file was shown: {err}"
            );
        }
        assert_eq!(tree(root), project, "{link}: the project changed");
    }
    assert_eq!(
        snapshot(home.path()),
        before,
        "a file outside the project changed"
    );
}

#[test]
fn a_crlf_checkout_of_a_skill_is_still_cairns() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    install(root, "cairn");
    let skill = ".claude/skills/memory_load/SKILL.md";
    let crlf = read(root, skill).replace('\n', "\r\n");
    write(root, skill, &crlf);
    assert!(
        plan_install(root, &opts("cairn"))
            .unwrap()
            .notes
            .iter()
            .all(|n| !n.contains("memory_load"))
    );
    uninstall(root);
    assert!(!root.join(skill).exists());
}

#[test]
fn reinstall_with_a_new_path_then_uninstall_leaves_no_trace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    install(root, "cairn");
    install(root, "/usr/local/bin/cairn");
    assert!(
        !root.join(".claude/settings.json.cairn.bak").exists(),
        "a file cairn created has nothing to back up"
    );
    let lines = uninstall(root);
    assert!(lines.contains(&"removed .claude/".to_string()), "{lines:?}");
    assert_eq!(
        tree(root),
        [
            "memory_sessions/",
            "memory_sessions/.gitkeep",
            "memory_sessions/logs/"
        ]
    );
}

#[test]
fn empty_hook_containers_the_user_had_come_back_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for original in [
        "{\n  \"hooks\": {}\n}\n",
        "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n",
    ] {
        write(root, ".claude/settings.json", original);
        install(root, "cairn");
        assert!(settings(root)["hooks"]["Stop"][0].is_object());
        uninstall(root);
        assert_eq!(read(root, ".claude/settings.json"), original);
        assert!(!root.join(".claude/settings.json.cairn.bak").exists());
    }
}

/// Every file under `root` with its bytes (folders with `None`).
fn snapshot(root: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    tree(root)
        .into_iter()
        .map(|p| {
            let bytes = fs::read(root.join(&p)).ok();
            (p, bytes)
        })
        .collect()
}

fn run_cli(p: &common::Project, verb: &str) -> String {
    let out = p.cairn().arg(verb).output().unwrap();
    assert!(
        out.status.success(),
        "{verb}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Issue 9, finding 10: a teammate committed settings that already run
/// `cairn hook` (from PATH; this install runs cairn by its absolute path).
/// Install used to repoint those entries and add its status line, and
/// uninstall then deleted the file, its backup and `.claude/`.
#[test]
fn regression_preregistered_settings_survive_install_and_uninstall() {
    let p = common::Project::new();
    let committed = USER_SETTINGS
        .replace(
            r#"{ "type": "command", "command": "notify-send done" }"#,
            r#"{ "type": "command", "command": "notify-send done" },
          { "type": "command", "command": "cairn hook", "timeout": 30 }"#,
        )
        .replace(
            "  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"~/.claude/statusline.sh\"\n  }\n",
            "  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"cairn statusline\"\n  }\n",
        );
    assert!(committed.contains("\"cairn statusline\""));
    // Every event registered, the way `cairn install` writes it.
    let mut v: Value = serde_json::from_str(&committed).unwrap();
    for ev in HOOK_EVENTS {
        if ev != "Stop" {
            v["hooks"][ev] = serde_json::from_str(&format!("[{CAIRN_GROUP}]")).unwrap();
        }
    }
    for committed in [
        committed.clone(),
        serde_json::to_string_pretty(&v).unwrap() + "\n",
    ] {
        let _ = fs::remove_dir_all(p.root.join(".claude"));
        write(&p.root, ".claude/settings.json", &committed);
        let installed = run_cli(&p, "install");
        let text = read(&p.root, ".claude/settings.json");
        let v: Value = serde_json::from_str(&text).unwrap();
        assert!(
            commands(&v, "Stop").contains(&"cairn hook".to_string()),
            "the teammate's entry is not rewritten: {text}"
        );
        assert_eq!(v["statusLine"]["command"], "cairn statusline", "{text}");
        let uninstalled = run_cli(&p, "uninstall");
        assert_eq!(
            read(&p.root, ".claude/settings.json"),
            committed,
            "byte for byte\ninstall: {installed}\nuninstall: {uninstalled}"
        );
        assert!(!p.root.join(".claude/settings.json.cairn.bak").exists());
        assert!(p.root.join(".claude").is_dir());
        assert!(
            uninstalled.contains("kept cairn's registration in .claude/settings.json"),
            "{uninstalled}"
        );
    }
}

/// Issue 9, finding 10: an empty (0 bytes) `settings.json` came back as `{}`
/// with a `settings.json.cairn.bak` left beside it.
#[test]
fn regression_empty_settings_survive_install_and_uninstall() {
    let p = common::Project::new();
    write(&p.root, ".claude/settings.json", "");
    write(&p.root, ".claude/notes.md", "mine\n");
    let before = snapshot(&p.root);
    run_cli(&p, "install");
    assert!(read(&p.root, ".claude/settings.json").contains("cairn"));
    run_cli(&p, "uninstall");
    assert_eq!(read(&p.root, ".claude/settings.json"), "");
    assert!(!p.root.join(".claude/settings.json.cairn.bak").exists());
    let mut after = snapshot(&p.root);
    // install's own `.gitignore` and `.gitattributes` blocks go; the memory
    // folder it seeded stays (it is the user's data).
    after.retain(|(path, _)| !path.starts_with("memory_sessions/"));
    let mut expected = before;
    expected.retain(|(path, _)| !path.starts_with("memory_sessions/"));
    assert_eq!(after, expected);
}

/// A settings file cairn created is deleted by uninstall only because the
/// state folder remembers creating it: without that record, the same text
/// could be a teammate's commit, so it stays.
#[test]
fn without_a_record_uninstall_never_deletes_settings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let forgetful = InstallOptions {
        record_dir: None,
        ..opts("cairn")
    };
    plan_install(root, &forgetful).unwrap().apply().unwrap();
    let created = read(root, ".claude/settings.json");
    let plan = plan_uninstall(root, &forgetful).unwrap();
    plan.apply().unwrap();
    assert_eq!(read(root, ".claude/settings.json"), created);
    assert!(
        plan.notes
            .iter()
            .any(|n| n.starts_with("kept cairn's registration")),
        "{:?}",
        plan.notes
    );
}
