//! Layered configuration: built-in defaults < user file < project `.cairn.toml`
//! < `CAIRN_<SECTION>_<KEY>` environment variables (SPEC §0.3).
//!
//! Unknown keys and bad values are errors naming the key and the file. User
//! commands refuse to run on them; hooks log once and fall back to defaults.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub use crate::diag::DiagnosticsConfig;
pub use crate::memory::config::{BackendKind, MemoryConfig};
pub use crate::redact::RedactConfig;

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

/// Narrow views for the features: each takes its own section, validated
/// and compiled (the redactor's regexes once per process), never the
/// whole aggregate.
impl Config {
    /// The price table of `[[usage.prices]]` over the built-in rows: one
    /// table for reports, the status line, audits and memory spend.
    pub fn prices(&self) -> crate::usage::PriceTable {
        crate::usage::PriceTable::from_config(&self.usage)
    }

    pub fn for_capture(&self) -> crate::capture::Settings {
        crate::capture::Settings {
            memory: self.memory.clone(),
            redactor: self.redact.redactor(),
            prices: self.prices(),
        }
    }

    pub fn for_guard(&self) -> crate::guard::Settings {
        crate::guard::Settings {
            guard: self.guard.clone(),
            memory: self.memory.clone(),
            redactor: self.redact.redactor(),
        }
    }

    pub fn for_statusline(&self) -> crate::statusline::Settings {
        crate::statusline::Settings {
            guard: self.guard.clone(),
            memory: self.memory.clone(),
            prices: self.prices(),
        }
    }

    pub fn for_site(&self) -> crate::site::Settings {
        crate::site::Settings {
            memory: self.memory.clone(),
            guard: self.guard.clone(),
            prices: self.prices(),
        }
    }

    pub fn for_audit(&self) -> crate::audit::Settings {
        crate::audit::Settings {
            audit: self.audit.clone(),
            language: self.memory.language,
            prices: self.prices(),
        }
    }
}

/// A configuration error: which key, which file (or variable), what is wrong.
pub use crate::layers::ConfigError;

/// The merged configuration and where each leaf value came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub config: Config,
    /// `section.key` → `default`, a file path, or `env CAIRN_…`.
    pub origins: BTreeMap<String, String>,
}

pub use crate::layers::user_config_path;

/// Loads and merges every layer (defaults < user file < `.cairn.toml` in
/// `project_root` < `CAIRN_<SECTION>_<KEY>`), then validates what a
/// feature would otherwise find broken later: the user's regexes are
/// compiled here, once for the process.
pub fn load(env: &crate::context::Env, project_root: Option<&Path>) -> Result<Loaded, ConfigError> {
    let mut files = Vec::new();
    if let Some(p) = user_config_path(env) {
        files.push(p);
    }
    if let Some(root) = project_root {
        files.push(root.join(".cairn.toml"));
    }
    let crate::layers::Layered {
        value: config,
        origins,
    } = crate::layers::load::<Config>(env, &files, "CAIRN")?;
    // A bad secret pattern must be caught here, where the message can name
    // the file, not later in a hook where it would silently redact less.
    if let Err(e) = config.redact.compile() {
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

/// `cairn config show`: every leaf with its value and origin, TOML-like.
pub fn show(loaded: &Loaded) -> String {
    crate::layers::show(&loaded.config, &loaded.origins)
}

/// [`load`] for a process that runs with `ctx`: what the configuration
/// sets for the whole process (the diagnostics log's cap) takes effect on
/// it. Every command loads through here or [`load_or_default`], so
/// `diagnostics.max_bytes` holds for the MCP server's log lines too.
pub fn load_for(ctx: &crate::context::Ctx, root: Option<&Path>) -> Result<Loaded, ConfigError> {
    let loaded = load(&ctx.env, root)?;
    ctx.set_diag_max_bytes(loaded.config.diagnostics.max_bytes);
    Ok(loaded)
}

/// The configuration for hooks, the worker and the status line: on any
/// error, log it once per distinct message and run on defaults, because a
/// typo must never break a session.
pub fn load_or_default(ctx: &crate::context::Ctx, root: Option<&Path>) -> Config {
    match load_for(ctx, root) {
        Ok(l) => l.config,
        Err(e) => {
            let msg = e.to_string();
            let seen = crate::state_layout::config_error_seen(&ctx.state_dir);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Env;
    use crate::memory::log::Lang;

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

    #[test]
    fn diagnostics_max_bytes_takes_effect_once_loaded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".cairn.toml"),
            "[diagnostics]\nmax_bytes = 300\n",
        )
        .unwrap();
        let mut env = env_with(dir.path(), &[]);
        env.set(
            "CAIRN_STATE_DIR",
            &dir.path().join("state").display().to_string(),
        );
        let ctx = crate::context::Ctx::new(env, crate::context::Clock::System);
        assert_eq!(ctx.diag_max_bytes(), DiagnosticsConfig::default().max_bytes);
        load_for(&ctx, Some(dir.path())).unwrap();
        assert_eq!(ctx.diag_max_bytes(), 300);
        ctx.set_diag_max_bytes(DiagnosticsConfig::default().max_bytes);
        load_or_default(&ctx, Some(dir.path()));
        assert_eq!(ctx.diag_max_bytes(), 300);
        // The log is rotated at that size: never much more than 300 bytes.
        for i in 0..20 {
            ctx.diag(
                crate::diag::Level::Info,
                "test",
                &format!("line {i} of twenty"),
            );
        }
        let len = std::fs::metadata(crate::diag::path(&ctx.state_dir))
            .unwrap()
            .len();
        assert!(len < 400, "{len}");
    }
}
