//! Where cairn is wired into the client: the binary itself, the plugin, the
//! hooks in every settings file the client reads, the status line.
//!
//! The client runs every hook group it finds, from every source, so cairn's
//! hook listed in two places (the project's settings and the plugin, say)
//! makes every event reach cairn twice: two extractions per turn, two
//! checkpoints. That is why duplicates are a failure, not a warning.

use super::{Finding, Scene, program_of, resolve_program};
use crate::install::{HOOK_EVENTS, is_cairn_hook_command, is_cairn_statusline_command};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One place hooks can come from.
struct Source {
    /// `project .claude/settings.json`, `plugin cairn@cairn`…
    label: String,
    /// The parsed JSON holding a `hooks` object (and maybe `statusLine`).
    value: Value,
    /// `${CLAUDE_PLUGIN_ROOT}` for a plugin's commands.
    plugin_root: Option<PathBuf>,
}

/// A plugin record from `installed_plugins.json`.
#[derive(Debug, Clone)]
struct Installed {
    name: String,
    scope: String,
    install_path: PathBuf,
    version: Option<String>,
}

pub(super) fn check(scene: &Scene) -> Vec<Finding> {
    let mut out = vec![binary()];
    let mut sources: Vec<Source> = Vec::new();
    // Settings files in the client's precedence order, most specific first.
    let mut settings: Vec<(String, PathBuf)> = Vec::new();
    if let Some(root) = &scene.root {
        settings.push((
            "project .claude/settings.local.json".into(),
            root.join(".claude/settings.local.json"),
        ));
        settings.push((
            "project .claude/settings.json".into(),
            root.join(".claude/settings.json"),
        ));
    }
    if let Some(dir) = &scene.claude_dir {
        settings.push((
            format!("user {}", dir.join("settings.json").display()),
            dir.join("settings.json"),
        ));
    }
    for (label, path) in &settings {
        match read_json(path) {
            Ok(None) => {}
            Ok(Some(value)) => sources.push(Source {
                label: label.clone(),
                value,
                plugin_root: None,
            }),
            Err(why) => out.push(Finding::broken(
                "settings",
                format!("{}: {why}", path.display()),
                "the client ignores this file, hooks and status line included; fix it (`cairn install` says where)",
            )),
        }
    }

    let plugins = installed_plugins(scene);
    let enabled = |name: &str| -> bool {
        // The most specific settings file that says anything wins.
        sources
            .iter()
            .find_map(|s| s.value.get("enabledPlugins")?.get(name)?.as_bool())
            .unwrap_or(false)
    };
    let mut plugin_sources = Vec::new();
    let mut found = false;
    for p in &plugins {
        let hooks = plugin_hooks(&p.install_path);
        let is_cairn = p.name.split('@').next() == Some("cairn")
            || hooks
                .as_ref()
                .is_some_and(|h| !cairn_hooks(h, Some(&p.install_path)).0.is_empty());
        if !is_cairn {
            continue;
        }
        found = true;
        let manifest = read_json(&p.install_path.join(".claude-plugin/plugin.json"))
            .ok()
            .flatten();
        let version = manifest
            .as_ref()
            .and_then(|m| m.get("version")?.as_str().map(str::to_string))
            .or_else(|| p.version.clone())
            .unwrap_or_else(|| "(no version)".into());
        let on = enabled(&p.name);
        let what = format!(
            "plugin {} {version} ({} scope, {}){}",
            p.name,
            p.scope,
            p.install_path.display(),
            if on { "" } else { ", disabled" }
        );
        if !p.install_path.is_dir() {
            out.push(Finding::broken(
                "plugin",
                format!("{what}: the install folder is missing"),
                format!("reinstall it: claude plugin install {}", p.name),
            ));
            continue;
        }
        if version != env!("CARGO_PKG_VERSION") {
            out.push(Finding::warn(
                "plugin",
                format!("{what} but the binary is {}", env!("CARGO_PKG_VERSION")),
                "install the matching binary (`cargo install --locked cairn`) or update the plugin",
            ));
        } else {
            out.push(Finding::ok("plugin", what));
        }
        if on && let Some(h) = hooks {
            plugin_sources.push(Source {
                label: format!("plugin {}", p.name),
                value: h,
                plugin_root: Some(p.install_path.clone()),
            });
        }
    }
    if !found {
        out.push(Finding::info(
            "plugin",
            "no cairn plugin installed: hooks come from settings files",
        ));
    }

    out.extend(hooks_findings(scene, &sources, &plugin_sources));
    out.push(statusline_finding(scene, &sources));
    out
}

fn binary() -> Finding {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "(unknown path)".into());
    Finding::ok(
        "binary",
        format!("cairn {} at {exe}", env!("CARGO_PKG_VERSION")),
    )
}

/// A JSON file: `Ok(None)` when absent, `Err` with line and column when it
/// does not parse or is not an object.
fn read_json(path: &Path) -> Result<Option<Value>, String> {
    let bytes = match crate::fsutil::confine::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read it ({e})")),
    };
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
    let body = text.trim_start_matches('\u{feff}');
    let value: Value = serde_json::from_str(body).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        format!(
            "invalid JSON at line {}, column {} ({msg})",
            e.line(),
            e.column()
        )
    })?;
    if !value.is_object() {
        return Err("the top level is not a JSON object".into());
    }
    Ok(Some(value))
}

/// `installed_plugins.json` (format 2: name → list of installs; format 1:
/// name → one install) under the client's plugin folder, keeping installs
/// that apply here: user and managed scope, or this project's.
fn installed_plugins(scene: &Scene) -> Vec<Installed> {
    let dir = scene
        .ctx
        .env
        .get("CLAUDE_CODE_PLUGIN_CACHE_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| scene.claude_dir.as_ref().map(|d| d.join("plugins")));
    let Some(dir) = dir else { return Vec::new() };
    let Some(doc) = ["installed_plugins.json", "installed_plugins_v2.json"]
        .iter()
        .find_map(|f| read_json(&dir.join(f)).ok().flatten())
    else {
        return Vec::new();
    };
    let Some(plugins) = doc.get("plugins").and_then(Value::as_object) else {
        return Vec::new();
    };
    let here = scene.root.as_ref().map(|r| canonical(r));
    let mut out = Vec::new();
    for (name, entry) in plugins {
        let records: Vec<&Value> = match entry {
            Value::Array(list) => list.iter().collect(),
            other => vec![other],
        };
        for r in records {
            let scope = r.get("scope").and_then(Value::as_str).unwrap_or("user");
            if matches!(scope, "project" | "local") {
                let project = r.get("projectPath").and_then(Value::as_str).map(Path::new);
                if project.map(canonical) != here || here.is_none() {
                    continue;
                }
            }
            let Some(path) = r.get("installPath").and_then(Value::as_str) else {
                continue;
            };
            out.push(Installed {
                name: name.clone(),
                scope: scope.to_string(),
                install_path: PathBuf::from(path),
                version: r.get("version").and_then(Value::as_str).map(str::to_string),
            });
        }
    }
    out
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// A plugin's hooks: `hooks` in its manifest (a `./path` or the object
/// itself), else `hooks/hooks.json`.
fn plugin_hooks(root: &Path) -> Option<Value> {
    let manifest = read_json(&root.join(".claude-plugin/plugin.json"))
        .ok()
        .flatten();
    match manifest.as_ref().and_then(|m| m.get("hooks")) {
        Some(Value::Object(o)) if o.contains_key("hooks") => Some(Value::Object(o.clone())),
        Some(Value::Object(o)) => Some(serde_json::json!({ "hooks": o })),
        Some(Value::String(rel)) if !rel.contains("..") => {
            read_json(&root.join(rel.trim_start_matches("./")))
                .ok()
                .flatten()
        }
        _ => read_json(&root.join("hooks/hooks.json")).ok().flatten(),
    }
}

/// cairn's hook commands in a `{"hooks": {event: [groups]}}` value: how many
/// per event, and the commands (plugin root substituted).
fn cairn_hooks(
    value: &Value,
    plugin_root: Option<&Path>,
) -> (BTreeMap<String, usize>, Vec<String>) {
    let mut per_event = BTreeMap::new();
    let mut commands = Vec::new();
    let Some(events) = value.get("hooks").and_then(Value::as_object) else {
        return (per_event, commands);
    };
    for (event, groups) in events {
        for group in groups.as_array().into_iter().flatten() {
            for hook in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(cmd) = hook.get("command").and_then(Value::as_str) else {
                    continue;
                };
                let cmd = match plugin_root {
                    Some(r) => cmd.replace("${CLAUDE_PLUGIN_ROOT}", &r.display().to_string()),
                    None => cmd.to_string(),
                };
                if is_cairn_hook_command(&cmd) {
                    *per_event.entry(event.clone()).or_default() += 1;
                    commands.push(cmd);
                }
            }
        }
    }
    (per_event, commands)
}

fn hooks_findings(scene: &Scene, settings: &[Source], plugins: &[Source]) -> Vec<Finding> {
    let mut out = Vec::new();
    for s in settings {
        if s.value.get("disableAllHooks") == Some(&Value::Bool(true)) {
            out.push(Finding::broken(
                "hooks",
                format!("{} sets \"disableAllHooks\": true: no hook runs", s.label),
                "remove that key",
            ));
        }
    }
    // event → the places registering cairn there (one entry per registration).
    let mut places: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut programs: Vec<String> = Vec::new();
    for s in settings.iter().chain(plugins) {
        let (per_event, commands) = cairn_hooks(&s.value, s.plugin_root.as_deref());
        for (event, n) in per_event {
            for _ in 0..n {
                places
                    .entry(event.clone())
                    .or_default()
                    .push(s.label.clone());
            }
        }
        for c in commands {
            let p = program_of(&c);
            if !programs.contains(&p) {
                programs.push(p);
            }
        }
    }
    if places.is_empty() && scene.root.is_none() {
        out.push(Finding::info(
            "hooks",
            "no cairn hook in the user's settings or a plugin; run the doctor inside a project to check its own registration",
        ));
        return out;
    }
    if places.is_empty() {
        out.push(Finding::broken(
            "hooks",
            "cairn hook is registered nowhere: no memory is captured, no guard runs",
            "run `cairn install` in the project (or install the cairn plugin)",
        ));
        return out;
    }
    let mut by_place: BTreeMap<&String, Vec<&str>> = BTreeMap::new();
    for (event, ps) in &places {
        for p in ps {
            let list = by_place.entry(p).or_default();
            if !list.contains(&event.as_str()) {
                list.push(event);
            }
        }
    }
    for (place, events) in by_place {
        let all = HOOK_EVENTS.iter().all(|e| events.contains(e));
        let list = if all {
            "every event".to_string()
        } else {
            let mut events = events;
            events.sort_by_key(|e| {
                HOOK_EVENTS
                    .iter()
                    .position(|h| h == e)
                    .unwrap_or(usize::MAX)
            });
            events.join(", ")
        };
        out.push(Finding::ok(
            "hooks",
            format!("cairn hook for {list} in {place}"),
        ));
    }
    let doubled: Vec<(&String, &Vec<String>)> =
        places.iter().filter(|(_, p)| p.len() > 1).collect();
    if !doubled.is_empty() {
        let events: Vec<&str> = HOOK_EVENTS
            .iter()
            .copied()
            .filter(|e| doubled.iter().any(|(d, _)| d.as_str() == *e))
            .chain(
                doubled
                    .iter()
                    .map(|(e, _)| e.as_str())
                    .filter(|e| !HOOK_EVENTS.contains(e)),
            )
            .collect();
        let events = if events.len() >= HOOK_EVENTS.len() {
            "every event".to_string()
        } else {
            events.join(", ")
        };
        let mut wheres: Vec<String> = doubled
            .iter()
            .flat_map(|(_, p)| p.iter().cloned())
            .collect();
        wheres.sort();
        wheres.dedup();
        out.push(Finding::broken(
            "hooks",
            format!(
                "cairn hook is registered more than once for {} (in {}): every event reaches cairn twice",
                events,
                wheres.join(" and ")
            ),
            "keep one registration: `cairn uninstall` in the project when the plugin is installed, or remove the duplicate entry",
        ));
    }
    let missing: Vec<&str> = HOOK_EVENTS
        .iter()
        .copied()
        .filter(|e| !places.contains_key(*e))
        .collect();
    if !missing.is_empty() {
        out.push(Finding::warn(
            "hooks",
            format!("cairn hook is not registered for {}", missing.join(", ")),
            "run `cairn install` again to register every event",
        ));
    }
    let me = std::env::current_exe().ok().map(|p| canonical(&p));
    for program in programs {
        let found = resolve_program(&program, &scene.ctx.env);
        if let Some(launcher) = found.as_deref().filter(|p| is_launcher(p)) {
            match launcher_target(launcher, &scene.ctx.env) {
                Some(bin) => out.push(Finding::ok(
                    "hooks",
                    format!(
                        "the plugin's launcher {} runs {}",
                        launcher.display(),
                        bin.display()
                    ),
                )),
                None => out.push(Finding::broken(
                    "hooks",
                    format!(
                        "the plugin's launcher {} finds no cairn binary: its hooks do nothing",
                        launcher.display()
                    ),
                    "install it: `cargo install --locked cairn` (or set CAIRN_BIN)",
                )),
            }
            continue;
        }
        match found {
            None => out.push(Finding::broken(
                "hooks",
                format!("the hooks run `{program}`, which is not found"),
                "put cairn on PATH (`cargo install --locked --path .`) or run `cairn install` again to record this binary's path",
            )),
            Some(found) if Some(canonical(&found)) != me => out.push(Finding::info(
                "hooks",
                format!(
                    "the hooks run {} (this doctor is {})",
                    found.display(),
                    me.as_deref().map_or("?".into(), |p| p.display().to_string())
                ),
            )),
            Some(_) => {}
        }
    }
    out
}

/// The plugin's `bin/cairn` shell launcher (it says so in its first lines).
fn is_launcher(path: &Path) -> bool {
    let mut head = [0u8; 200];
    let n = crate::fsutil::confine::open_regular(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    const MARK: &[u8] = b"cairn plugin launcher";
    head[..n].starts_with(b"#!") && head[..n].windows(MARK.len()).any(|w| w == MARK)
}

/// The binary the launcher would run, as the launcher itself answers
/// (`bin/cairn --launcher-which`) in the doctor's environment: one search,
/// kept in the launcher, so the doctor cannot drift from what hooks do.
fn launcher_target(launcher: &Path, env: &crate::context::Env) -> Option<PathBuf> {
    let out = std::process::Command::new("sh")
        .arg(launcher)
        .arg("--launcher-which")
        .env_clear()
        .envs(env.iter())
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let path = String::from_utf8(out.stdout).ok()?;
    let path = path.trim();
    (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
}

fn statusline_finding(scene: &Scene, settings: &[Source]) -> Finding {
    let effective = settings.iter().find_map(|s| {
        let cmd = s.value.get("statusLine")?.get("command")?.as_str()?;
        Some((s, cmd))
    });
    match effective {
        None => Finding::warn(
            "statusline",
            "no status line registered",
            "run `cairn install` (project) or `cairn install --user`",
        ),
        Some((s, cmd)) if is_cairn_statusline_command(cmd) => {
            let program = program_of(cmd);
            if resolve_program(&program, &scene.ctx.env).is_none() {
                Finding::broken(
                    "statusline",
                    format!("{} runs `{program}`, which is not found", s.label),
                    "put cairn on PATH or run `cairn install` again",
                )
            } else {
                Finding::ok("statusline", format!("cairn statusline in {}", s.label))
            }
        }
        Some((s, cmd)) => Finding::info(
            "statusline",
            format!("the status line is `{cmd}` (from {}), not cairn's", s.label),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Clock, Ctx, Env};

    fn scene(home: &Path, root: Option<&Path>) -> Scene<'static> {
        let ctx = Ctx::new(
            Env::from_pairs([("HOME", home.to_str().unwrap())]),
            Clock::System,
        );
        let ctx: &'static Ctx = Box::leak(Box::new(ctx));
        Scene {
            ctx,
            root: root.map(Path::to_path_buf),
            claude_dir: ctx.claude_config_dir(),
            config: Default::default(),
            offline: true,
        }
    }

    #[test]
    fn both_formats_of_installed_plugins_and_scopes() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        let project = home.join("proj");
        std::fs::create_dir_all(&project).unwrap();
        let file = home.join(".claude/plugins/installed_plugins.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            r#"{"version":1,"plugins":{"cairn@m":{"version":"0.1.0","installPath":"/p/1"}}}"#,
        )
        .unwrap();
        let got = installed_plugins(&scene(home, None));
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].scope.as_str(), got[0].install_path.as_path()),
            ("user", Path::new("/p/1"))
        );

        let v2 = serde_json::json!({"version":2,"plugins":{"cairn@m":[
            {"scope":"project","projectPath": project, "installPath":"/p/here"},
            {"scope":"local","projectPath":"/elsewhere","installPath":"/p/there"},
            {"scope":"user","installPath":"/p/user","version":"0.1.0"}
        ]}});
        std::fs::write(&file, v2.to_string()).unwrap();
        let paths = |s: &Scene| -> Vec<PathBuf> {
            installed_plugins(s)
                .into_iter()
                .map(|p| p.install_path)
                .collect()
        };
        assert_eq!(
            paths(&scene(home, Some(&project))),
            [PathBuf::from("/p/here"), PathBuf::from("/p/user")]
        );
        assert_eq!(paths(&scene(home, None)), [PathBuf::from("/p/user")]);
    }

    #[test]
    fn plugin_hooks_come_from_the_manifest_or_hooks_json() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
        std::fs::create_dir_all(root.join("hooks")).unwrap();
        let group =
            r#"[{"hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/bin/cairn hook"}]}]"#;
        std::fs::write(
            root.join("hooks/hooks.json"),
            format!(r#"{{"hooks":{{"Stop":{group}}}}}"#),
        )
        .unwrap();
        std::fs::write(
            root.join(".claude-plugin/plugin.json"),
            r#"{"name":"cairn"}"#,
        )
        .unwrap();
        let (per_event, commands) = cairn_hooks(&plugin_hooks(root).unwrap(), Some(root));
        assert_eq!(per_event.get("Stop"), Some(&1));
        assert_eq!(commands, [format!("{}/bin/cairn hook", root.display())]);
        std::fs::write(
            root.join(".claude-plugin/plugin.json"),
            format!(r#"{{"name":"cairn","hooks":{{"SessionStart":{group},"Stop":{group}}}}}"#),
        )
        .unwrap();
        let (per_event, _) = cairn_hooks(&plugin_hooks(root).unwrap(), Some(root));
        assert_eq!(per_event.len(), 2);
    }
}
