//! The command line's contract: completions, exit codes for bad usage.

mod common;
use common::Project;

#[test]
fn completion_scripts_name_the_subcommands() {
    let p = Project::new();
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef cairn"),
        ("fish", "complete -c cairn"),
    ] {
        let out = p.cairn().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(marker),
            "{shell}: {}",
            &text[..200.min(text.len())]
        );
        for sub in ["install", "usage", "memory", "doctor", "audit"] {
            assert!(text.contains(sub), "{shell} lacks {sub}");
        }
    }
}

#[test]
fn bad_usage_exits_2_and_says_why() {
    let p = Project::new();
    let out = p.cairn().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value"));
    let out = p.cairn().arg("frobnicate").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
