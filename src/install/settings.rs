//! cairn's hook entries in a Claude Code `settings.json`.
//!
//! Every edit is made twice: on the text (so the user's layout survives and
//! uninstall can give back the exact bytes) and on a `serde_json::Value` (the
//! meaning we want). If the two ever disagree the text edit is a bug, and the
//! pretty-printed value is written instead: a reflowed file beats a wrong one.

use super::jsonspan::{self, Child, Node, Splice, Style};
use serde_json::{Map, Value, json};

/// Only events that 1.0.x clients know: naming a newer one (`PostCompact`,
/// ...) makes those clients silently drop every hook in the file.
pub const EVENTS: [&str; 6] = [
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];

const TIMEOUT_SECS: u64 = 30;

/// Why a settings file cannot be edited safely.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    Json {
        line: usize,
        column: usize,
        msg: String,
    },
    NotObject(String),
    NotArray(String),
}

#[derive(Debug)]
pub(crate) struct Installed {
    pub text: String,
    pub added: Vec<&'static str>,
    pub updated: Vec<&'static str>,
}

#[derive(Debug)]
pub(crate) struct Uninstalled {
    pub text: String,
    pub removed: usize,
}

/// The hook command for `program`, quoted for the shell the client runs it in.
pub(crate) fn hook_command(program: &str) -> String {
    format!("{} hook", shell_quote(program))
}

pub(crate) fn shell_quote(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=~".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        return s.to_string();
    }
    // Double quotes also work in cmd.exe and keep Windows backslashes as they
    // are, as long as nothing inside is special to a POSIX shell.
    let special_in_double = s.contains(['"', '$', '`']) || s.contains("\\\\") || s.ends_with('\\');
    if !special_in_double {
        return format!("\"{s}\"");
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Splits off the first shell word, undoing quotes. Outside quotes a
/// backslash escapes only a space or a quoting character, so unquoted
/// Windows paths still read as paths.
fn first_word(cmd: &str) -> (String, &str) {
    let s = cmd.trim_start();
    let mut word = String::new();
    let mut chars = s.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        match c {
            c if c.is_whitespace() => return (word, &s[i..]),
            '\'' => {
                chars.next();
                for (_, c) in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
                continue;
            }
            '"' => {
                chars.next();
                while let Some((_, c)) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some((_, '"' | '\\' | '$' | '`'))) => {
                            word.push(chars.next().map(|(_, c)| c).unwrap_or('\\'));
                        }
                        c => word.push(c),
                    }
                }
                continue;
            }
            '\\' => {
                chars.next();
                match chars.peek() {
                    Some(&(_, c @ (' ' | '\'' | '"' | '\\' | '$' | '`'))) => {
                        word.push(c);
                        chars.next();
                    }
                    _ => word.push('\\'),
                }
                continue;
            }
            c => word.push(c),
        }
        chars.next();
    }
    (word, "")
}

/// The program of a cairn hook command, or `None` for anybody else's command.
/// cairn's own entry is `<path to a binary named cairn> hook`.
fn cairn_program(cmd: &str) -> Option<String> {
    cairn_program_for(cmd, "hook")
}

/// The program of `<path to a binary named cairn> <subcommand>`.
pub(crate) fn cairn_program_for(cmd: &str, subcommand: &str) -> Option<String> {
    let (program, rest) = first_word(cmd);
    if rest.trim() != subcommand {
        return None;
    }
    let base = program.rsplit(['/', '\\']).next().unwrap_or("");
    let stem = base
        .len()
        .checked_sub(4)
        .filter(|&n| base.is_char_boundary(n) && base[n..].eq_ignore_ascii_case(".exe"))
        .map_or(base, |n| &base[..n]);
    (stem == "cairn").then_some(program)
}

pub(crate) fn is_cairn_command(cmd: &str) -> bool {
    cairn_program(cmd).is_some()
}

fn group(command: &str) -> Value {
    json!({
        "matcher": "",
        "hooks": [{"type": "command", "command": command, "timeout": TIMEOUT_SECS}],
    })
}

fn all_events(command: &str) -> Value {
    Value::Object(
        EVENTS
            .iter()
            .map(|ev| (ev.to_string(), json!([group(command)])))
            .collect(),
    )
}

pub(crate) fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    }
}

pub(crate) fn parse_value(body: &str) -> Result<Value, Problem> {
    serde_json::from_str(body).map_err(|e| {
        let full = e.to_string();
        // serde_json appends " at line L column C"; we report those apart.
        let msg = full.split(" at line ").next().unwrap_or(&full).to_string();
        Problem::Json {
            line: e.line(),
            column: e.column(),
            msg,
        }
    })
}

pub(crate) fn pretty(value: &Value, newline: &str) -> String {
    let s = serde_json::to_string_pretty(value).expect("serialising a JSON value");
    let s = if newline == "\n" {
        s
    } else {
        s.replace('\n', newline)
    };
    format!("{s}{newline}")
}

fn same(a: &Value, b: &Value) -> bool {
    // Value's == ignores key order; the user's order is part of what we keep.
    serde_json::to_string(a).ok() == serde_json::to_string(b).ok()
}

/// Adds (or repoints) cairn's hook for every event. `None`: already there.
/// `theirs` are the events whose cairn entry was in the file before cairn
/// first edited it (a teammate committed it): present, so nothing is added,
/// and not cairn's to repoint.
pub(crate) fn install(
    before: Option<&str>,
    program: &str,
    theirs: &[String],
) -> Result<Option<Installed>, Problem> {
    let command = hook_command(program);
    let (bom, body) = split_bom(before.unwrap_or(""));
    if body.trim().is_empty() {
        let text = format!(
            "{bom}{}",
            pretty(&json!({ "hooks": all_events(&command) }), "\n")
        );
        return Ok(Some(Installed {
            text,
            added: EVENTS.to_vec(),
            updated: Vec::new(),
        }));
    }
    let value = parse_value(body)?;
    check_shape(&value)?;
    let (expected, added, updated) = install_value(value, program, &command, theirs);
    if added.is_empty() && updated.is_empty() {
        return Ok(None);
    }
    let text = edit_text(body, &expected, |text, root, style| {
        next_install_splice(text, root, style, program, &command, theirs)
    });
    Ok(Some(Installed {
        text: format!("{bom}{text}"),
        added,
        updated,
    }))
}

/// What uninstall must leave, read from the settings as they were before
/// cairn first edited them (the backup): the containers the user had
/// (emptied by uninstall, they stay as `{}` / `[]` instead of going) and the
/// events whose cairn entry was already there (someone else's registration).
#[derive(Debug, Default)]
pub(crate) struct Keep {
    hooks: bool,
    events: Vec<String>,
    pub theirs: Vec<String>,
}

impl Keep {
    /// From the original settings text (`None`: cairn created the file, so
    /// nothing in it is kept).
    pub fn from_original(original: Option<&str>) -> Keep {
        let Some(mut v) = original.and_then(|b| serde_json::from_str::<Value>(split_bom(b).1).ok())
        else {
            return Keep::default();
        };
        let theirs = cairn_events_of(&v);
        uninstall_value(&mut v, &Keep::default());
        match v.get("hooks").and_then(Value::as_object) {
            Some(hooks) => Keep {
                hooks: true,
                events: hooks.keys().cloned().collect(),
                theirs,
            },
            None => Keep {
                theirs,
                ..Keep::default()
            },
        }
    }
}

/// The events of `text` that run `cairn hook` (empty when it does not parse).
pub(crate) fn cairn_events(text: &str) -> Vec<String> {
    serde_json::from_str::<Value>(split_bom(text).1)
        .map(|v| cairn_events_of(&v))
        .unwrap_or_default()
}

fn cairn_events_of(v: &Value) -> Vec<String> {
    let Some(hooks) = v.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    hooks
        .iter()
        .filter(|(_, groups)| {
            groups.as_array().is_some_and(|groups| {
                groups
                    .iter()
                    .filter_map(|g| g.get("hooks").and_then(Value::as_array))
                    .flatten()
                    .any(|h| {
                        h.get("command")
                            .and_then(Value::as_str)
                            .is_some_and(is_cairn_command)
                    })
            })
        })
        .map(|(ev, _)| ev.clone())
        .collect()
}

/// Removes every cairn hook entry. `None`: there was none.
pub(crate) fn uninstall(before: &str, keep: &Keep) -> Result<Option<Uninstalled>, Problem> {
    let (bom, body) = split_bom(before);
    if body.trim().is_empty() {
        return Ok(None);
    }
    let mut expected = parse_value(body)?;
    let removed = uninstall_value(&mut expected, keep);
    if removed == 0 {
        return Ok(None);
    }
    let text = edit_text(body, &expected, |text, root, _| {
        next_uninstall_splice(text, root, keep)
    });
    Ok(Some(Uninstalled {
        text: format!("{bom}{text}"),
        removed,
    }))
}

/// Does this settings text run `cairn hook` anywhere?
pub(crate) fn mentions_cairn(text: &str) -> bool {
    let Ok(mut v) = serde_json::from_str::<Value>(split_bom(text).1) else {
        return false;
    };
    uninstall_value(&mut v, &Keep::default()) > 0
}

/// Applies splices one at a time, re-parsing in between (the files are
/// small), then checks the result means `expected`.
pub(crate) fn edit_text(
    body: &str,
    expected: &Value,
    next: impl Fn(&str, &Node, &Style) -> Option<Splice>,
) -> String {
    let newline = if body.contains("\r\n") { "\r\n" } else { "\n" };
    let fallback = || {
        let mut s = pretty(expected, newline);
        if !body.ends_with('\n') {
            s.truncate(s.len() - newline.len());
        }
        s
    };
    let Some(root) = jsonspan::parse(body) else {
        return fallback();
    };
    let style = Style::detect(body, &root);
    let mut text = body.to_string();
    // Each splice settles one entry; the bound only guards against a bug.
    for _ in 0..256 {
        let Some(root) = jsonspan::parse(&text) else {
            return fallback();
        };
        match next(&text, &root, &style) {
            Some(splice) => text = splice.apply(&text),
            None => break,
        }
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(got) if same(&got, expected) => text,
        _ => fallback(),
    }
}

fn check_shape(value: &Value) -> Result<(), Problem> {
    let root = value
        .as_object()
        .ok_or_else(|| Problem::NotObject("the top level".into()))?;
    let Some(hooks) = root.get("hooks") else {
        return Ok(());
    };
    let hooks = hooks
        .as_object()
        .ok_or_else(|| Problem::NotObject("`hooks`".into()))?;
    for ev in EVENTS {
        if hooks.get(ev).is_some_and(|v| !v.is_array()) {
            return Err(Problem::NotArray(format!("`hooks.{ev}`")));
        }
    }
    Ok(())
}

/// Calls `f` on every cairn command string inside one event's group list.
fn for_each_cairn_command(groups: &mut [Value], mut f: impl FnMut(&mut Value)) {
    for g in groups {
        let Some(hooks) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
            continue;
        };
        for h in hooks {
            if let Some(cmd) = h.get_mut("command")
                && cmd.as_str().is_some_and(is_cairn_command)
            {
                f(cmd);
            }
        }
    }
}

fn install_value(
    mut value: Value,
    program: &str,
    command: &str,
    theirs: &[String],
) -> (Value, Vec<&'static str>, Vec<&'static str>) {
    let (mut added, mut updated) = (Vec::new(), Vec::new());
    let root = value.as_object_mut().expect("shape checked");
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .expect("shape checked");
    for ev in EVENTS {
        let groups = hooks
            .entry(ev)
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .expect("shape checked");
        let mut found = false;
        let mut changed = false;
        let ours = !theirs.iter().any(|t| t == ev);
        for_each_cairn_command(groups, |cmd| {
            found = true;
            if ours && cmd.as_str().and_then(cairn_program).as_deref() != Some(program) {
                *cmd = Value::String(command.to_string());
                changed = true;
            }
        });
        if !found {
            groups.push(group(command));
            added.push(ev);
        } else if changed {
            updated.push(ev);
        }
    }
    (value, added, updated)
}

/// Removes cairn's hooks and the containers that removal left empty, except
/// those in `keep`. Returns how many hooks went.
fn uninstall_value(value: &mut Value, keep: &Keep) -> usize {
    let Some(root) = value.as_object_mut() else {
        return 0;
    };
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return 0;
    };
    let mut removed = 0;
    let mut emptied_events = Vec::new();
    for (ev, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        if keep.theirs.contains(ev) {
            continue;
        }
        let before = removed;
        groups.retain_mut(|g| {
            let Some(list) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let n = list.len();
            list.retain(|h| {
                !h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(is_cairn_command)
            });
            removed += n - list.len();
            !(list.is_empty() && n > 0)
        });
        if removed > before && groups.is_empty() && !keep.events.contains(ev) {
            emptied_events.push(ev.clone());
        }
    }
    hooks.retain(|k, _| !emptied_events.contains(k));
    if removed > 0 && hooks.is_empty() && !keep.hooks {
        root.retain(|k, _| k != "hooks");
    }
    removed
}

struct CommandAt<'a> {
    group: usize,
    hook: usize,
    node: &'a Node,
}

fn cairn_command_nodes<'a>(groups: &'a Node, text: &str) -> Vec<CommandAt<'a>> {
    let mut out = Vec::new();
    for (gi, g) in groups.elements().unwrap_or_default().iter().enumerate() {
        let Some(list) = g.get("hooks").and_then(|(_, m)| m.value.elements()) else {
            continue;
        };
        for (hi, h) in list.iter().enumerate() {
            if let Some((_, cmd)) = h.get("command")
                && cmd.value.as_str(text).is_some_and(|s| is_cairn_command(&s))
            {
                out.push(CommandAt {
                    group: gi,
                    hook: hi,
                    node: &cmd.value,
                });
            }
        }
    }
    out
}

fn next_install_splice(
    text: &str,
    root: &Node,
    style: &Style,
    program: &str,
    command: &str,
    theirs: &[String],
) -> Option<Splice> {
    let Some((_, hooks)) = root.get("hooks") else {
        let all = all_events(command);
        return Some(jsonspan::append_child(
            text,
            root,
            Child::Member("hooks", &all),
            style,
        ));
    };
    for ev in EVENTS {
        let Some((_, event)) = hooks.value.get(ev) else {
            let groups = json!([group(command)]);
            return Some(jsonspan::append_child(
                text,
                &hooks.value,
                Child::Member(ev, &groups),
                style,
            ));
        };
        let found = cairn_command_nodes(&event.value, text);
        if found.is_empty() {
            let g = group(command);
            return Some(jsonspan::append_child(
                text,
                &event.value,
                Child::Element(&g),
                style,
            ));
        }
        if theirs.iter().any(|t| t == ev) {
            continue;
        }
        for at in found {
            let current = at.node.as_str(text).and_then(|s| cairn_program(&s));
            if current.as_deref() != Some(program) {
                let with = jsonspan::json_string(command);
                return Some(Splice {
                    start: at.node.start,
                    end: at.node.end,
                    with,
                });
            }
        }
    }
    None
}

fn next_uninstall_splice(text: &str, root: &Node, keep: &Keep) -> Option<Splice> {
    let (hooks_idx, hooks) = root.get("hooks")?;
    for (ev_idx, event) in hooks.value.members()?.iter().enumerate() {
        if keep.theirs.contains(&event.key) {
            continue;
        }
        let Some(at) = cairn_command_nodes(&event.value, text).into_iter().next() else {
            continue;
        };
        let group = &event.value.elements()?[at.group];
        let list = &group.get("hooks")?.1.value;
        // Outermost first; climb while the container would be left empty
        // and is not one the user had.
        let levels = [
            (root, hooks_idx),
            (&hooks.value, ev_idx),
            (&event.value, at.group),
            (list, at.hook),
        ];
        let mut lvl = levels.len() - 1;
        while lvl > 0 && child_count(levels[lvl].0) == 1 {
            let user_owned = match lvl - 1 {
                0 => keep.hooks,
                1 => keep.events.contains(&event.key),
                _ => false,
            };
            if user_owned {
                break;
            }
            lvl -= 1;
        }
        return Some(jsonspan::remove_child(levels[lvl].0, levels[lvl].1));
    }
    None
}

fn child_count(node: &Node) -> usize {
    node.members()
        .map_or_else(|| node.elements().map_or(0, <[_]>::len), <[_]>::len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(hook_command("cairn"), "cairn hook");
        assert_eq!(
            hook_command("/usr/local/bin/cairn"),
            "/usr/local/bin/cairn hook"
        );
        assert_eq!(
            hook_command("/opt/my tools/cairn"),
            "\"/opt/my tools/cairn\" hook"
        );
        assert_eq!(hook_command("/a $b/cairn"), "'/a $b/cairn' hook");
        assert_eq!(hook_command("/it's $x/cairn"), r"'/it'\''s $x/cairn' hook");
        assert_eq!(
            hook_command(r"C:\Program Files\cairn.exe"),
            r#""C:\Program Files\cairn.exe" hook"#
        );
    }

    #[test]
    fn recognises_cairn_commands_in_every_spelling() {
        for program in [
            "cairn",
            "/usr/local/bin/cairn",
            "/opt/my tools/cairn",
            "/a $b/cairn",
            "/it's $x/cairn",
        ] {
            let cmd = hook_command(program);
            assert_eq!(cairn_program(&cmd).as_deref(), Some(program), "{cmd}");
        }
        assert!(is_cairn_command(r"C:\tools\cairn.EXE hook"));
        assert!(is_cairn_command("/my\\ dir/cairn hook"));
        assert!(is_cairn_command("  cairn   hook  "));
        for other in [
            "cairn statusline",
            "cairn hook extra",
            "notcairn hook",
            "python3 cairn.py hook",
            "cairn",
            "echo cairn hook",
        ] {
            assert!(!is_cairn_command(other), "{other}");
        }
    }

    #[test]
    fn fresh_settings_name_only_old_events() {
        let out = install(None, "cairn", &[]).unwrap().unwrap();
        let v: Value = serde_json::from_str(&out.text).unwrap();
        let keys: Vec<_> = v["hooks"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, EVENTS);
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "cairn hook");
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["timeout"], 30);
        assert!(
            out.text
                .starts_with("{\n  \"hooks\": {\n    \"SessionStart\": [\n")
        );
        assert!(out.text.ends_with("}\n"));
    }

    #[test]
    fn keeps_numbers_and_escapes_the_user_wrote() {
        let before = "{\n  \"n\": 1.50,\n  \"s\": \"caf\\u00e9\",\n  \"a\": [1,2]\n}";
        let out = install(Some(before), "cairn", &[]).unwrap().unwrap();
        assert!(out.text.starts_with(
            "{\n  \"n\": 1.50,\n  \"s\": \"caf\\u00e9\",\n  \"a\": [1,2],\n  \"hooks\": {"
        ));
        assert!(
            out.text.ends_with("\n}"),
            "no newline added where there was none"
        );
        assert_eq!(
            uninstall(&out.text, &Keep::default())
                .unwrap()
                .unwrap()
                .text,
            before
        );
    }

    #[test]
    fn cairn_hook_inside_a_user_group_is_found_and_removed_alone() {
        let before = r#"{"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "lint"}, {"type": "command", "command": "cairn hook"}]}]}}"#;
        let out = install(Some(before), "cairn", &[]).unwrap().unwrap();
        assert!(!out.added.contains(&"Stop"));
        let un = uninstall(&out.text, &Keep::default()).unwrap().unwrap();
        let v: Value = serde_json::from_str(&un.text).unwrap();
        assert_eq!(
            v,
            json!({"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "lint"}]}]}})
        );
    }

    #[test]
    fn uninstall_keeps_containers_that_were_already_empty() {
        let before = "{\n  \"hooks\": {\n    \"Notification\": [],\n    \"Stop\": [\n      {\"hooks\": [{\"command\": \"cairn hook\"}]}\n    ]\n  }\n}\n";
        let un = uninstall(before, &Keep::default()).unwrap().unwrap();
        assert_eq!(
            un.text,
            "{\n  \"hooks\": {\n    \"Notification\": []\n  }\n}\n"
        );
        assert_eq!(un.removed, 1);
    }

    #[test]
    fn uninstall_of_a_cairn_only_file_leaves_an_empty_object() {
        let out = install(None, "cairn", &[]).unwrap().unwrap();
        let un = uninstall(&out.text, &Keep::default()).unwrap().unwrap();
        assert_eq!(un.text, "{}\n");
        assert_eq!(un.removed, 6);
    }

    #[test]
    fn shape_problems_name_the_key() {
        assert_eq!(
            install(Some("[]"), "cairn", &[]).unwrap_err(),
            Problem::NotObject("the top level".into())
        );
        assert_eq!(
            install(Some(r#"{"hooks": []}"#), "cairn", &[]).unwrap_err(),
            Problem::NotObject("`hooks`".into())
        );
        assert_eq!(
            install(Some(r#"{"hooks": {"Stop": {}}}"#), "cairn", &[]).unwrap_err(),
            Problem::NotArray("`hooks.Stop`".into())
        );
        match install(Some("{\n  \"a\": 1,\n}"), "cairn", &[]).unwrap_err() {
            Problem::Json { line, column, .. } => assert_eq!((line, column), (3, 1)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bom_is_kept() {
        let before = "\u{feff}{\"a\": 1}\n";
        let out = install(Some(before), "cairn", &[]).unwrap().unwrap();
        assert!(out.text.starts_with("\u{feff}{\"a\": 1, \"hooks\": {"));
        assert_eq!(
            uninstall(&out.text, &Keep::default())
                .unwrap()
                .unwrap()
                .text,
            before
        );
    }

    #[test]
    fn text_and_value_edits_agree_on_tricky_layouts() {
        let cases = [
            "{}",
            "{ }",
            "{\"hooks\":{}}",
            "{\n\t\"hooks\": {\n\t\t\"Stop\": [ ]\n\t}\n}\n",
            "{\r\n  \"x\": [\r\n    1\r\n  ]\r\n}\r\n",
            "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"command\": \"/old/cairn hook\"}]}], \"PreToolUse\": []}}",
        ];
        for before in cases {
            let value: Value = serde_json::from_str(before).unwrap();
            let out = install(Some(before), "/new path/cairn", &[])
                .unwrap()
                .unwrap();
            let (expected, ..) = install_value(
                value,
                "/new path/cairn",
                &hook_command("/new path/cairn"),
                &[],
            );
            let root = jsonspan::parse(before).unwrap();
            let style = Style::detect(before, &root);
            let mut text = before.to_string();
            while let Some(s) = next_install_splice(
                &text,
                &jsonspan::parse(&text).unwrap(),
                &style,
                "/new path/cairn",
                &hook_command("/new path/cairn"),
                &[],
            ) {
                text = s.apply(&text);
            }
            assert_eq!(
                text, out.text,
                "text edit used, not the fallback: {before:?}"
            );
            assert!(
                same(&serde_json::from_str(&text).unwrap(), &expected),
                "{before:?}"
            );
            assert!(
                install(Some(&out.text), "/new path/cairn", &[])
                    .unwrap()
                    .is_none()
            );
        }
    }

    mod props {
        use super::*;
        use proptest::prelude::*;
        use serde_json::ser::{CompactFormatter, PrettyFormatter};

        fn arb_settings() -> impl Strategy<Value = Value> {
            let command = prop_oneof![
                "[a-z./]{1,10}( --[a-z]{1,5})?",
                Just("cairn statusline".to_string()),
                Just("python3 cairn.py hook".to_string()),
            ];
            let hook = command.prop_map(|c| json!({"type": "command", "command": c}));
            let group = (
                prop::option::of("[A-Za-z*|]{0,6}"),
                prop::collection::vec(hook, 0..3),
            )
                .prop_map(|(matcher, hooks)| {
                    let mut g = Map::new();
                    if let Some(m) = matcher {
                        g.insert("matcher".into(), m.into());
                    }
                    g.insert("hooks".into(), Value::Array(hooks));
                    Value::Object(g)
                });
            let event = prop::sample::select(vec![
                "PreToolUse",
                "Stop",
                "SessionStart",
                "Notification",
                "PostCompact",
            ]);
            let hooks = prop::collection::vec((event, prop::collection::vec(group, 0..3)), 0..4)
                .prop_map(|evs| {
                    Value::Object(
                        evs.into_iter()
                            .map(|(k, v)| (k.to_string(), Value::Array(v)))
                            .collect(),
                    )
                });
            (prop::option::of(hooks), any::<bool>(), any::<bool>()).prop_map(
                |(hooks, perms, status)| {
                    let mut root = Map::new();
                    if perms {
                        root.insert(
                            "permissions".into(),
                            json!({"allow": ["Read", "Bash(ls:*)"], "deny": []}),
                        );
                    }
                    if let Some(h) = hooks {
                        root.insert("hooks".into(), h);
                    }
                    if status {
                        root.insert(
                            "statusLine".into(),
                            json!({"type": "command", "command": "x", "padding": 0}),
                        );
                    }
                    Value::Object(root)
                },
            )
        }

        fn render(v: &Value, style: u8) -> String {
            match style {
                0 => jsonspan::write_with(v, PrettyFormatter::with_indent(b"  ")) + "\n",
                1 => jsonspan::write_with(v, PrettyFormatter::with_indent(b"    ")),
                2 => {
                    jsonspan::write_with(v, PrettyFormatter::with_indent(b"\t"))
                        .replace('\n', "\r\n")
                        + "\r\n"
                }
                3 => jsonspan::write_with(v, CompactFormatter),
                _ => jsonspan::write_with(v, jsonspan::OneLine) + "\n",
            }
        }

        proptest! {
            #[test]
            fn install_then_uninstall_gives_back_the_exact_text(v in arb_settings(), style in 0u8..5) {
                let before = render(&v, style);
                let out = install(Some(&before), "cairn", &[]).unwrap().unwrap();
                prop_assert!(install(Some(&out.text), "cairn", &[]).unwrap().is_none());
                let moved = install(Some(&out.text), "/opt/x y/cairn", &[]).unwrap().unwrap();
                prop_assert_eq!(moved.updated.len(), EVENTS.len());
                let keep = Keep::from_original(Some(&before));
                let undone = uninstall(&moved.text, &keep).unwrap().unwrap();
                prop_assert_eq!(undone.removed, EVENTS.len());
                prop_assert_eq!(undone.text, before);
            }
        }
    }
}
