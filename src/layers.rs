//! The generic layered loader: a serde type's defaults, overlaid by TOML
//! files and then environment variables, each leaf remembering its origin.
//!
//! It knows nothing of cairn's sections: `crate::config` names the files
//! and the type, and validates what the features need validated. Unknown
//! keys and values of the wrong type are errors naming the key and the
//! layer.

use crate::context::Env;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A configuration error: which key, which file (or variable), what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("config error in {source_name}: {message}")]
pub struct ConfigError {
    pub source_name: String,
    pub message: String,
}

/// The merged value and where each leaf came from.
#[derive(Debug, Clone)]
pub struct Layered<T> {
    pub value: T,
    /// `section.key` → `default`, a file path, or `env <PREFIX>_…`.
    pub origins: BTreeMap<String, String>,
}

/// The user config file: `$XDG_CONFIG_HOME/cairn/config.toml`, else `~/.config/cairn/config.toml`.
pub fn user_config_path(env: &Env) -> Option<PathBuf> {
    if let Some(x) = env.get("XDG_CONFIG_HOME").filter(|s| !s.is_empty()) {
        return Some(PathBuf::from(x).join("cairn/config.toml"));
    }
    env.get("HOME")
        .filter(|s| !s.is_empty())
        .map(|h| PathBuf::from(h).join(".config/cairn/config.toml"))
}

/// Loads `T`'s defaults, overlays each of `files` that exists (in order,
/// a missing file is no layer) and then `<PREFIX>_<SECTION>_<KEY>`
/// environment variables. Every leaf remembers the layer it came from.
pub fn load<T>(env: &Env, files: &[PathBuf], env_prefix: &str) -> Result<Layered<T>, ConfigError>
where
    T: Serialize + DeserializeOwned + Default,
{
    let defaults = toml::Value::try_from(T::default()).expect("defaults serialise");
    let mut merged = defaults.clone();
    let mut origins = BTreeMap::new();
    let mut leaves = Vec::new();
    collect_leaves(&defaults, "", &mut leaves);
    for path in &leaves {
        origins.insert(path.clone(), "default".to_string());
    }

    for file in files {
        let text = match crate::fsutil::confine::read_to_string(file) {
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
        let var = format!(
            "{env_prefix}_{}",
            path.replace('.', "_").to_ascii_uppercase()
        );
        let Some(raw) = env.get(&var) else { continue };
        let default_leaf = lookup(&defaults, path).expect("leaf exists");
        let value = parse_env_value(raw, default_leaf).map_err(|message| ConfigError {
            source_name: format!("environment variable {var}"),
            message,
        })?;
        set(&mut merged, path, value);
        origins.insert(path.clone(), format!("env {var}"));
    }

    let value: T = merged.clone().try_into().map_err(|e: toml::de::Error| {
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
                probe.try_into::<T>().is_err()
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
    Ok(Layered { value, origins })
}

/// Every leaf of a two-level value with its origin, TOML-like (`cairn config show`).
pub fn show<T: Serialize>(value: &T, origins: &BTreeMap<String, String>) -> String {
    let value = toml::Value::try_from(value).expect("config serialises");
    let mut out = String::new();
    if let toml::Value::Table(sections) = &value {
        for (section, body) in sections {
            out.push_str(&format!("[{section}]\n"));
            if let toml::Value::Table(keys) = body {
                for (k, v) in keys {
                    let origin = origins
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
