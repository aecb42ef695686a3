//! cairn's `statusLine` entry in a Claude Code `settings.json`.
//!
//! A settings file holds one status line. A user who already has one (their
//! own script, ccstatusline, ...) keeps it: install only says how to switch.
//! Like the hooks, the text is edited in place and checked against the value
//! we mean (`settings::edit_text`).

use super::jsonspan::{self, Child, Node, Splice};
use super::settings::{self, Problem};
use serde_json::{Value, json};

/// What install did to the `statusLine` key.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Installed {
    /// Added (or repointed to another cairn binary): the new text.
    Changed { text: String, repointed: bool },
    /// cairn's, running the same binary.
    AlreadyOurs,
    /// Someone else's status line: kept. Its command, for the note.
    KeptUsers(String),
}

/// The status line command for `program`, quoted for the shell.
pub(crate) fn command(program: &str) -> String {
    format!("{} statusline", settings::shell_quote(program))
}

fn entry(program: &str) -> Value {
    json!({"type": "command", "command": command(program), "padding": 0})
}

/// `Some(program)` when `cmd` is `<cairn binary> statusline`.
fn cairn_program(cmd: &str) -> Option<String> {
    settings::cairn_program_for(cmd, "statusline")
}

pub(crate) fn is_cairn_statusline(cmd: &str) -> bool {
    cairn_program(cmd).is_some()
}

fn command_of(v: &Value) -> Option<&str> {
    v.get("statusLine")?.get("command")?.as_str()
}

/// Adds cairn's status line to `before` (the settings text, possibly empty).
pub(crate) fn install(before: &str, program: &str) -> Result<Installed, Problem> {
    let (bom, body) = settings::split_bom(before);
    if body.trim().is_empty() {
        let text = settings::pretty(&json!({ "statusLine": entry(program) }), "\n");
        return Ok(Installed::Changed {
            text: format!("{bom}{text}"),
            repointed: false,
        });
    }
    let mut value = settings::parse_value(body)?;
    let root = value
        .as_object_mut()
        .ok_or_else(|| Problem::NotObject("the top level".into()))?;
    let repointed = match root.get("statusLine") {
        None => false,
        Some(current) => {
            let cmd = command_of(&json!({ "statusLine": current }))
                .map(str::to_string)
                .unwrap_or_default();
            match cairn_program(&cmd) {
                Some(p) if p == program => return Ok(Installed::AlreadyOurs),
                Some(_) => true,
                None => return Ok(Installed::KeptUsers(cmd)),
            }
        }
    };
    if repointed {
        root["statusLine"]["command"] = Value::String(command(program));
    } else {
        root.insert("statusLine".into(), entry(program));
    }
    let text = settings::edit_text(body, &value, |text, root, style| {
        let Some((_, member)) = root.get("statusLine") else {
            let e = entry(program);
            return Some(jsonspan::append_child(
                text,
                root,
                Child::Member("statusLine", &e),
                style,
            ));
        };
        command_splice(text, &member.value, program)
    });
    Ok(Installed::Changed {
        text: format!("{bom}{text}"),
        repointed,
    })
}

fn command_splice(text: &str, status: &Node, program: &str) -> Option<Splice> {
    let (_, cmd) = status.get("command")?;
    let current = cmd.value.as_str(text)?;
    if cairn_program(&current).as_deref() == Some(program) {
        return None;
    }
    Some(Splice {
        start: cmd.value.start,
        end: cmd.value.end,
        with: jsonspan::json_string(&command(program)),
    })
}

/// Removes cairn's status line. `None`: there is none (or it is someone
/// else's). The text left may be `{}`.
pub(crate) fn uninstall(before: &str) -> Result<Option<String>, Problem> {
    let (bom, body) = settings::split_bom(before);
    if body.trim().is_empty() {
        return Ok(None);
    }
    let mut value = settings::parse_value(body)?;
    if !command_of(&value).is_some_and(is_cairn_statusline) {
        return Ok(None);
    }
    if let Some(root) = value.as_object_mut() {
        root.remove("statusLine");
    }
    let text = settings::edit_text(body, &value, |_, root, _| {
        let (idx, _) = root.get("statusLine")?;
        Some(jsonspan::remove_child(root, idx))
    });
    Ok(Some(format!("{bom}{text}")))
}

/// Does this settings text run cairn's status line?
pub(crate) fn mentions_cairn(text: &str) -> bool {
    serde_json::from_str::<Value>(settings::split_bom(text).1)
        .is_ok_and(|v| command_of(&v).is_some_and(is_cairn_statusline))
}

/// The command of a status line that is not cairn's, if the text has one.
pub(crate) fn users_command(text: &str) -> Option<String> {
    let v = serde_json::from_str::<Value>(settings::split_bom(text).1).ok()?;
    let cmd = command_of(&v)?;
    (!is_cairn_statusline(cmd)).then(|| cmd.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(r: Result<Installed, Problem>) -> String {
        match r.unwrap() {
            Installed::Changed { text, .. } => text,
            other => panic!("expected a change, got {other:?}"),
        }
    }

    #[test]
    fn added_to_an_empty_file_and_removed_again() {
        let text = changed(install("", "cairn"));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["statusLine"]["command"], "cairn statusline");
        assert_eq!(v["statusLine"]["type"], "command");
        assert_eq!(v["statusLine"]["padding"], 0);
        assert_eq!(uninstall(&text).unwrap().unwrap().trim(), "{}");
    }

    #[test]
    fn appended_in_place_and_removed_to_the_exact_bytes() {
        let before = "{\n    \"model\": \"sonnet\",\n    \"hooks\": {}\n}\n";
        let text = changed(install(before, "/opt/my tools/cairn"));
        assert!(text.starts_with("{\n    \"model\": \"sonnet\",\n    \"hooks\": {},\n    \"statusLine\": {\n        \"type\""), "{text}");
        assert!(
            text.contains(r#""command": "\"/opt/my tools/cairn\" statusline""#),
            "{text}"
        );
        assert_eq!(uninstall(&text).unwrap().unwrap(), before);
    }

    #[test]
    fn a_users_status_line_is_kept() {
        let before = r#"{"statusLine": {"type": "command", "command": "npx ccstatusline"}}"#;
        assert_eq!(
            install(before, "cairn").unwrap(),
            Installed::KeptUsers("npx ccstatusline".into())
        );
        assert_eq!(uninstall(before).unwrap(), None);
        assert_eq!(users_command(before).as_deref(), Some("npx ccstatusline"));
        assert!(!mentions_cairn(before));
    }

    #[test]
    fn ours_is_left_alone_or_repointed() {
        let ours = changed(install("{}", "cairn"));
        assert_eq!(install(&ours, "cairn").unwrap(), Installed::AlreadyOurs);
        match install(&ours, "/usr/local/bin/cairn").unwrap() {
            Installed::Changed { text, repointed } => {
                assert!(repointed);
                assert!(
                    text.contains("\"/usr/local/bin/cairn statusline\""),
                    "{text}"
                );
                assert!(text.contains("\"padding\": 0"), "{text}");
            }
            other => panic!("{other:?}"),
        }
        assert!(mentions_cairn(&ours));
    }

    #[test]
    fn hook_commands_are_not_status_lines_and_back() {
        assert!(!is_cairn_statusline("cairn hook"));
        assert!(is_cairn_statusline("'/a b/cairn' statusline"));
        assert!(is_cairn_statusline("C:\\bin\\cairn.exe statusline"));
        assert!(!is_cairn_statusline("cairnish statusline"));
        assert!(!settings::is_cairn_command("cairn statusline"));
    }

    #[test]
    fn bad_settings_are_refused_not_rewritten() {
        assert!(matches!(
            install("[1]", "cairn"),
            Err(Problem::NotObject(_))
        ));
        assert!(matches!(install("{", "cairn"), Err(Problem::Json { .. })));
    }
}
