//! The command line's contract: completions, exit codes for bad usage.

use crate::common;
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
    common::snapshot_output("cli_bad_shell", &p.run(&["completions", "tcsh"]));
    common::snapshot_output("cli_unknown_command", &p.run(&["frobnicate"]));
}
