//! Layered configuration: built-in defaults < user file < project `.cairn.toml`
//! < `CAIRN_<SECTION>_<KEY>` environment variables (SPEC §0.3).
//!
//! Unknown keys and bad values are errors naming the key and the file. User
//! commands refuse to run on them; hooks log once and fall back to defaults.

use crate::memory::log::Lang;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub memory: MemoryConfig,
    pub redact: RedactConfig,
    pub diagnostics: DiagnosticsConfig,
    pub gate: crate::gate::GateConfig,
    pub guard: crate::guard::GuardConfig,
    pub usage: crate::usage::config::UsageConfig,
    pub statusline: crate::statusline::StatuslineConfig,
    pub audit: crate::audit::AuditConfig,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackendKind {
    Offline,
    ClaudeCli,
    Anthropic,
    Openai,
    Auto,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    /// `offline` (default), `claude-cli`, `anthropic`, `openai`, `auto`.
    pub backend: BackendKind,
    /// Headings of new logs: `fr` (default) or `en`. Both are always read.
    pub language: Lang,
    /// Extract inline in the Stop hook instead of through the spool and worker.
    pub sync: bool,
    /// Model for LLM backends; empty means the backend's default.
    pub model: String,
    pub max_bullet_chars: usize,
    /// SessionStart injection budget, in tokens (4 bytes each).
    pub session_start_tokens: usize,
    pub long_memory_max_lines: usize,
    /// Logs older than this many days are archived by promotion.
    pub archive_days: u32,
    pub daily_budget_usd: f64,
    pub timeout_secs: u64,
    /// Attempts before a job goes to the dead-letter folder.
    pub max_attempts: u32,
    /// Sub-projects besides the discovered `projects/*/memory_sessions/`.
    pub projects: Vec<String>,
    pub claude_command: String,
    pub anthropic_base_url: String,
    pub anthropic_api_key_env: String,
    pub openai_base_url: String,
    pub openai_api_key_env: String,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            backend: BackendKind::Offline,
            language: Lang::Fr,
            sync: false,
            model: String::new(),
            max_bullet_chars: 400,
            session_start_tokens: 2000,
            long_memory_max_lines: 300,
            archive_days: 30,
            daily_budget_usd: 0.50,
            timeout_secs: 60,
            max_attempts: 5,
            projects: Vec::new(),
            claude_command: "claude".into(),
            anthropic_base_url: "https://api.anthropic.com".into(),
            anthropic_api_key_env: "ANTHROPIC_API_KEY".into(),
            openai_base_url: "http://127.0.0.1:11434/v1".into(),
            openai_api_key_env: "OPENAI_API_KEY".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedactConfig {
    /// Extra regular expressions whose matches (or their `secret` group) are
    /// replaced by `[REDACTED:custom]`.
    pub extra_patterns: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DiagnosticsConfig {
    /// Size at which `diagnostics.log` is rotated to `diagnostics.log.1`.
    pub max_bytes: u64,
}

impl Default for DiagnosticsConfig {
    fn default() -> Self {
        DiagnosticsConfig {
            max_bytes: 512 * 1024,
        }
    }
}

/// A configuration error: which key, which file (or variable), what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("config error in {source_name}: {message}")]
pub struct ConfigError {
    pub source_name: String,
    pub message: String,
}

/// The merged configuration and where each leaf value came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub config: Config,
    /// `section.key` → `default`, a file path, or `env CAIRN_…`.
    pub origins: BTreeMap<String, String>,
}

/// The user config file: `$XDG_CONFIG_HOME/cairn/config.toml`, else `~/.config/cairn/config.toml`.
pub fn user_config_path(env: &crate::context::Env) -> Option<PathBuf> {
    if let Some(x) = env.get("XDG_CONFIG_HOME").filter(|s| !s.is_empty()) {
        return Some(PathBuf::from(x).join("cairn/config.toml"));
    }
    env.get("HOME")
        .filter(|s| !s.is_empty())
        .map(|h| PathBuf::from(h).join(".config/cairn/config.toml"))
}

/// Loads and merges every layer. `project_root` is where `.cairn.toml` is looked for.
pub fn load(env: &crate::context::Env, project_root: Option<&Path>) -> Result<Loaded, ConfigError> {
    let defaults = toml::Value::try_from(Config::default()).expect("defaults serialise");
    let mut merged = defaults.clone();
    let mut origins = BTreeMap::new();
    let mut leaves = Vec::new();
    collect_leaves(&defaults, "", &mut leaves);
    for path in &leaves {
        origins.insert(path.clone(), "default".to_string());
    }

    let mut files = Vec::new();
    if let Some(p) = user_config_path(env) {
        files.push(p);
    }
    if let Some(root) = project_root {
        files.push(root.join(".cairn.toml"));
    }
    for file in files {
        let text = match crate::fsutil::confine::read_to_string(&file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return Err(ConfigError {
                    source_name: file.display().to_string(),
                    message: format!("cannot read: {e}"),
                });
            }
        };
        let name = file.display().to_string();
        let layer: toml::Value = toml::from_str(&text).map_err(|e| ConfigError {
            source_name: name.clone(),
            message: e.message().to_string(),
        })?;
        overlay(&mut merged, &defaults, &layer, "", &name, &mut origins)?;
    }

    for path in &leaves {
        let var = format!("CAIRN_{}", path.replace('.', "_").to_ascii_uppercase());
        let Some(raw) = env.get(&var) else { continue };
        let default_leaf = lookup(&defaults, path).expect("leaf exists");
        let value = parse_env_value(raw, default_leaf).map_err(|message| ConfigError {
            source_name: format!("environment variable {var}"),
            message,
        })?;
        set(&mut merged, path, value);
        origins.insert(path.clone(), format!("env {var}"));
    }

    let config: Config = merged.clone().try_into().map_err(|e: toml::de::Error| {
        // Find the overridden key whose value alone breaks the defaults, so
        // the message names the key and the layer it came from.
        let culprit = origins
            .iter()
            .filter(|(_, o)| o.as_str() != "default")
            .find(|(path, _)| {
                let mut probe = defaults.clone();
                set(
                    &mut probe,
                    path,
                    lookup(&merged, path).cloned().expect("leaf exists"),
                );
                probe.try_into::<Config>().is_err()
            });
        match culprit {
            Some((key, origin)) => ConfigError {
                source_name: origin.clone(),
                message: format!("bad value for `{key}`: {}", e.message()),
            },
            None => ConfigError {
                source_name: "configuration".into(),
                message: e.message().to_string(),
            },
        }
    })?;
    // A bad secret pattern must be caught here, where the message can name
    // the file, not later in a hook where it would silently redact less.
    if let Err(e) = crate::redact::Redactor::new(&config.redact.extra_patterns) {
        return Err(ConfigError {
            source_name: origins
                .get("redact.extra_patterns")
                .cloned()
                .unwrap_or_default(),
            message: e.to_string(),
        });
    }
    if let Some((key, reason)) = config.audit.invalid() {
        return Err(ConfigError {
            source_name: origins
                .get(&format!("audit.{key}"))
                .cloned()
                .unwrap_or_default(),
            message: format!("bad value for `audit.{key}`: {reason}"),
        });
    }
    if let Some((pattern, reason)) = crate::gate::invalid_extra_patterns(&config.gate).first() {
        return Err(ConfigError {
            source_name: origins
                .get("gate.extra_patterns")
                .cloned()
                .unwrap_or_default(),
            message: format!(
                "gate.extra_patterns: invalid regex `{pattern}`: {}; fix or remove it",
                // The regex crate's message spans lines; its last line says what is wrong.
                reason
                    .lines()
                    .map(str::trim)
                    .rfind(|l| !l.is_empty())
                    .unwrap_or(reason)
            ),
        });
    }
    Ok(Loaded { config, origins })
}

fn collect_leaves(v: &toml::Value, prefix: &str, out: &mut Vec<String>) {
    if let toml::Value::Table(t) = v {
        for (k, v) in t {
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            if v.is_table() {
                collect_leaves(v, &path, out);
            } else {
                out.push(path);
            }
        }
    }
}

fn lookup<'a>(v: &'a toml::Value, path: &str) -> Option<&'a toml::Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

fn set(v: &mut toml::Value, path: &str, value: toml::Value) {
    let mut cur = v;
    let mut parts = path.split('.').peekable();
    while let Some(k) = parts.next() {
        let table = cur.as_table_mut().expect("path walks tables");
        if parts.peek().is_none() {
            table.insert(k.to_string(), value);
            return;
        }
        cur = table.get_mut(k).expect("path exists");
    }
}

fn overlay(
    merged: &mut toml::Value,
    defaults: &toml::Value,
    layer: &toml::Value,
    prefix: &str,
    source: &str,
    origins: &mut BTreeMap<String, String>,
) -> Result<(), ConfigError> {
    let toml::Value::Table(t) = layer else {
        return Ok(());
    };
    for (k, v) in t {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let Some(default) = lookup(defaults, &path) else {
            return Err(ConfigError {
                source_name: source.to_string(),
                message: format!("unknown key `{path}`"),
            });
        };
        if default.is_table() {
            if !v.is_table() {
                return Err(ConfigError {
                    source_name: source.to_string(),
                    message: format!("`{path}` must be a table"),
                });
            }
            overlay(merged, defaults, v, &path, source, origins)?;
        } else {
            if std::mem::discriminant(default) != std::mem::discriminant(v)
                && !(default.is_float() && v.is_integer())
                && !(default.is_str() && v.is_bool())
            {
                return Err(ConfigError {
                    source_name: source.to_string(),
                    message: format!(
                        "bad value for `{path}`: expected {}, found {}",
                        default.type_str(),
                        v.type_str()
                    ),
                });
            }
            let v = match (default, v) {
                (toml::Value::Float(_), toml::Value::Integer(i)) => toml::Value::Float(*i as f64),
                // Tri-state settings (`color = "auto"`) also take a plain boolean.
                (toml::Value::String(_), toml::Value::Boolean(b)) => {
                    toml::Value::String(b.to_string())
                }
                _ => v.clone(),
            };
            set(merged, &path, v);
            origins.insert(path, source.to_string());
        }
    }
    Ok(())
}

fn parse_env_value(raw: &str, default: &toml::Value) -> Result<toml::Value, String> {
    Ok(match default {
        toml::Value::String(_) => toml::Value::String(raw.to_string()),
        toml::Value::Boolean(_) => match raw.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => toml::Value::Boolean(true),
            "0" | "false" | "no" | "off" | "" => toml::Value::Boolean(false),
            other => return Err(format!("expected true or false, found `{other}`")),
        },
        toml::Value::Integer(_) => toml::Value::Integer(
            raw.trim()
                .parse()
                .map_err(|_| format!("expected an integer, found `{raw}`"))?,
        ),
        toml::Value::Float(_) => toml::Value::Float(
            raw.trim()
                .parse()
                .map_err(|_| format!("expected a number, found `{raw}`"))?,
        ),
        toml::Value::Array(_) => toml::Value::Array(
            raw.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| toml::Value::String(s.to_string()))
                .collect(),
        ),
        _ => return Err("this key cannot be set from the environment".to_string()),
    })
}

/// The configuration for hooks, the worker and the status line: on any
/// error, log it once per distinct message and run on defaults, because a
/// typo must never break a session.
pub fn load_or_default(ctx: &crate::context::Ctx, root: Option<&Path>) -> Config {
    match load(&ctx.env, root) {
        Ok(l) => l.config,
        Err(e) => {
            let msg = e.to_string();
            let seen = ctx.state_dir.join("config-error.last");
            if crate::fsutil::confine::read_to_string(&seen)
                .ok()
                .as_deref()
                != Some(msg.as_str())
            {
                ctx.diag(
                    crate::diag::Level::Error,
                    "config",
                    &format!("{msg}; running on defaults"),
                );
                let _ = crate::fsutil::atomic_write_unsynced(&seen, msg.as_bytes());
            }
            Config::default()
        }
    }
}

/// `cairn config show`: every leaf with its value and origin, TOML-like.
pub fn show(loaded: &Loaded) -> String {
    let value = toml::Value::try_from(&loaded.config).expect("config serialises");
    let mut out = String::new();
    if let toml::Value::Table(sections) = &value {
        for (section, body) in sections {
            out.push_str(&format!("[{section}]\n"));
            if let toml::Value::Table(keys) = body {
                for (k, v) in keys {
                    let origin = loaded
                        .origins
                        .get(&format!("{section}.{k}"))
                        .map(String::as_str)
                        .unwrap_or("default");
                    out.push_str(&format!("{k} = {v}  # {origin}\n"));
                }
            }
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Env;

    fn env_with(home: &Path, pairs: &[(&str, &str)]) -> Env {
        let mut env = Env::from_pairs([("HOME", home.display().to_string())]);
        for (k, v) in pairs {
            env.set(k, v);
        }
        env
    }

    #[test]
    fn layers_apply_in_order_and_remember_origins() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".config/cairn")).unwrap();
        std::fs::write(
            home.join(".config/cairn/config.toml"),
            "[memory]\nlanguage = \"en\"\nmax_bullet_chars = 200\n",
        )
        .unwrap();
        let proj = dir.path().join("proj");
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::write(
            proj.join(".cairn.toml"),
            "[memory]\nmax_bullet_chars = 300\ndaily_budget_usd = 1\n",
        )
        .unwrap();
        let env = env_with(
            &home,
            &[
                ("CAIRN_MEMORY_SYNC", "true"),
                ("CAIRN_MEMORY_PROJECTS", "a, b"),
            ],
        );
        let l = load(&env, Some(&proj)).unwrap();
        assert_eq!(l.config.memory.language, Lang::En);
        assert_eq!(l.config.memory.max_bullet_chars, 300);
        assert_eq!(l.config.memory.daily_budget_usd, 1.0);
        assert!(l.config.memory.sync);
        assert_eq!(l.config.memory.projects, ["a", "b"]);
        assert!(l.origins["memory.language"].ends_with("config.toml"));
        assert!(l.origins["memory.max_bullet_chars"].ends_with(".cairn.toml"));
        assert_eq!(l.origins["memory.sync"], "env CAIRN_MEMORY_SYNC");
        assert_eq!(l.origins["memory.backend"], "default");
        let shown = show(&l);
        assert!(
            shown.contains("sync = true  # env CAIRN_MEMORY_SYNC"),
            "{shown}"
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_name_key_and_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".cairn.toml"),
            "[memory]\nbakend = \"offline\"\n",
        )
        .unwrap();
        let e = load(&env_with(dir.path(), &[]), Some(dir.path())).unwrap_err();
        assert!(
            e.to_string().contains("memory.bakend") && e.to_string().contains(".cairn.toml"),
            "{e}"
        );

        std::fs::write(dir.path().join(".cairn.toml"), "[memroy]\n").unwrap();
        let e = load(&env_with(dir.path(), &[]), Some(dir.path())).unwrap_err();
        assert!(e.to_string().contains("unknown key `memroy`"), "{e}");

        std::fs::write(dir.path().join(".cairn.toml"), "[memory]\nsync = \"yes\"\n").unwrap();
        let e = load(&env_with(dir.path(), &[]), Some(dir.path())).unwrap_err();
        assert!(
            e.to_string().contains("memory.sync") && e.to_string().contains("boolean"),
            "{e}"
        );

        std::fs::write(
            dir.path().join(".cairn.toml"),
            "[memory]\nbackend = \"gpt\"\n",
        )
        .unwrap();
        let e = load(&env_with(dir.path(), &[]), Some(dir.path())).unwrap_err();
        assert!(e.to_string().contains("memory.backend"), "{e}");

        std::fs::write(dir.path().join(".cairn.toml"), "[memory\n").unwrap();
        let e = load(&env_with(dir.path(), &[]), Some(dir.path())).unwrap_err();
        assert!(e.to_string().contains(".cairn.toml"), "{e}");

        std::fs::remove_file(dir.path().join(".cairn.toml")).unwrap();
        let e = load(
            &env_with(dir.path(), &[("CAIRN_MEMORY_TIMEOUT_SECS", "soon")]),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("CAIRN_MEMORY_TIMEOUT_SECS"), "{e}");
        let e = load(
            &env_with(dir.path(), &[("CAIRN_MEMORY_LANGUAGE", "de")]),
            None,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("memory.language")
                && e.to_string().contains("CAIRN_MEMORY_LANGUAGE"),
            "{e}"
        );
    }
}
