//! The client's status-line payload (SPEC §2.4, lab `samples/statusline/`).
//!
//! Read field by field from a JSON value rather than through a strict serde
//! struct: a client that renames or retypes one field must cost us that
//! field, not the whole line.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// Largest payload read from stdin; real ones are about 2 KB.
pub const MAX_PAYLOAD: u64 = 1024 * 1024;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input {
    pub session_id: Option<String>,
    pub transcript_path: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
    pub model_id: Option<String>,
    pub model_name: Option<String>,
    /// `workspace.current_dir` (follows `cd` and worktrees).
    pub current_dir: Option<PathBuf>,
    /// `workspace.project_dir` (where the session started).
    pub project_dir: Option<PathBuf>,
    pub version: Option<String>,
    /// `cost.total_cost_usd`: the client's own estimate, only ever shown as
    /// a labelled fallback (see `cost.rs`).
    pub client_cost_usd: Option<f64>,
    /// `context_window.context_window_size`.
    pub context_window_size: Option<u64>,
    /// `context_window.current_usage`: `None` when absent or `null` (before
    /// the first request); all zeros right after `/compact`.
    pub current_usage: Option<CurrentUsage>,
    /// `context_window.used_percentage`: the client's own fill, 0–100.
    pub client_used_percentage: Option<f64>,
    /// `rate_limits.five_hour` and `rate_limits.seven_day`: sent to Claude.ai
    /// subscribers once the session's first response came back (2.1.80+);
    /// absent for API-key users.
    pub five_hour: Option<RateWindow>,
    pub seven_day: Option<RateWindow>,
    /// `prompt_cache` (absent before the first response).
    pub prompt_cache: Option<PromptCache>,
}

/// One of the plan's rate-limit windows.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RateWindow {
    /// `used_percentage`, 0–100 (a little over 100 when the limit was
    /// passed).
    pub used_percentage: f64,
    /// `resets_at` in seconds since the epoch.
    pub resets_at: Option<i64>,
}

/// What the client knows of its prompt cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PromptCache {
    /// `warm`: the last request read from the cache.
    pub warm: bool,
    /// `expires_at` in seconds since the epoch: when the cached prefix
    /// lapses without another request.
    pub expires_at: Option<i64>,
}

/// The latest main-thread request's usage, as the client reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CurrentUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

impl CurrentUsage {
    /// Tokens in context: input and both cache kinds, output excluded — the
    /// formula of the client's `used_percentage` and of the guard (§2.2).
    pub fn fill(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("status line payload is not JSON: {0}")]
    NotJson(#[from] serde_json::Error),
    #[error("status line payload is not a JSON object")]
    NotObject,
}

impl Input {
    pub fn parse(bytes: &[u8]) -> Result<Input, InputError> {
        let v: Value = serde_json::from_slice(bytes)?;
        if !v.is_object() {
            return Err(InputError::NotObject);
        }
        let s = |path: &[&str]| {
            at(&v, path)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let p = |path: &[&str]| s(path).map(PathBuf::from);
        let cw = |key: &str| at(&v, &["context_window", key]);
        let current_usage = cw("current_usage")
            .filter(|u| u.is_object())
            .map(|u| CurrentUsage {
                input_tokens: count(u.get("input_tokens")),
                output_tokens: count(u.get("output_tokens")),
                cache_creation_input_tokens: count(u.get("cache_creation_input_tokens")),
                cache_read_input_tokens: count(u.get("cache_read_input_tokens")),
            });
        Ok(Input {
            session_id: s(&["session_id"]),
            transcript_path: p(&["transcript_path"]),
            cwd: p(&["cwd"]),
            model_id: s(&["model", "id"]),
            model_name: s(&["model", "display_name"]),
            current_dir: p(&["workspace", "current_dir"]),
            project_dir: p(&["workspace", "project_dir"]),
            version: s(&["version"]),
            client_cost_usd: at(&v, &["cost", "total_cost_usd"])
                .and_then(Value::as_f64)
                .filter(|c| c.is_finite() && *c >= 0.0),
            context_window_size: cw("context_window_size")
                .and_then(Value::as_u64)
                .filter(|w| *w > 0),
            current_usage,
            client_used_percentage: cw("used_percentage")
                .and_then(Value::as_f64)
                .filter(|p| p.is_finite() && *p >= 0.0),
            five_hour: rate_window(at(&v, &["rate_limits", "five_hour"])),
            seven_day: rate_window(at(&v, &["rate_limits", "seven_day"])),
            prompt_cache: at(&v, &["prompt_cache"])
                .filter(|c| c.is_object())
                .map(|c| PromptCache {
                    warm: c.get("warm").and_then(Value::as_bool).unwrap_or(false),
                    expires_at: c.get("expires_at").and_then(epoch_seconds),
                }),
        })
    }

    /// The folder the session belongs to: `workspace.project_dir`, else
    /// `workspace.current_dir`, else `cwd`.
    pub fn project_dir(&self) -> Option<&Path> {
        self.project_dir
            .as_deref()
            .or(self.current_dir.as_deref())
            .or(self.cwd.as_deref())
    }

    /// The folder the user is in now (for the branch: a worktree has its own).
    pub fn work_dir(&self) -> Option<&Path> {
        self.current_dir
            .as_deref()
            .or(self.cwd.as_deref())
            .or(self.project_dir.as_deref())
    }

    /// What the model is called on the line: display name, else id.
    pub fn model_label(&self) -> Option<&str> {
        self.model_name.as_deref().or(self.model_id.as_deref())
    }
}

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

fn rate_window(v: Option<&Value>) -> Option<RateWindow> {
    let v = v.filter(|v| v.is_object())?;
    let used = v.get("used_percentage").and_then(|p| match p {
        Value::String(s) => s.trim().trim_end_matches('%').parse::<f64>().ok(),
        other => other.as_f64(),
    })?;
    (used.is_finite() && used >= 0.0).then(|| RateWindow {
        used_percentage: used,
        resets_at: v.get("resets_at").and_then(epoch_seconds),
    })
}

/// An instant the client sends: epoch seconds (what 2.1.x sends), epoch
/// milliseconds, or an RFC 3339 string (what some early write-ups
/// described), each taken as what it is.
fn epoch_seconds(v: &Value) -> Option<i64> {
    let secs = |n: f64| {
        // Past the year 33658 in seconds means milliseconds.
        let s = if n.abs() >= 1e12 { n / 1000.0 } else { n };
        s.is_finite().then_some(s as i64)
    };
    match v {
        Value::Number(n) => n.as_f64().and_then(secs),
        Value::String(s) => {
            let s = s.trim();
            match s.parse::<f64>() {
                Ok(n) => secs(n),
                Err(_) => s.parse::<jiff::Timestamp>().ok().map(|t| t.as_second()),
            }
        }
        _ => None,
    }
}

/// A token count; floats and negatives from a confused client become sane.
fn count(v: Option<&Value>) -> u64 {
    match v {
        Some(Value::Number(n)) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f > 0.0).map(|f| f as u64))
            .unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_lab_example_and_tolerates_odd_fields() {
        let raw = br#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/w",
            "model":{"id":"claude-opus-5-5","display_name":"Opus 5.5"},
            "workspace":{"current_dir":"/w/sub","project_dir":"/w"},
            "cost":{"total_cost_usd":0.13},
            "context_window":{"context_window_size":1000000,"current_usage":
              {"input_tokens":23,"output_tokens":63,"cache_creation_input_tokens":1013,
               "cache_read_input_tokens":21300}}}"#;
        let i = Input::parse(raw).unwrap();
        assert_eq!(i.model_label(), Some("Opus 5.5"));
        assert_eq!(i.project_dir(), Some(Path::new("/w")));
        assert_eq!(i.work_dir(), Some(Path::new("/w/sub")));
        assert_eq!(i.current_usage.unwrap().fill(), 22336);
        assert_eq!(i.context_window_size, Some(1_000_000));

        let odd = br#"{"model":"opus","context_window":{"current_usage":null,
            "context_window_size":"big"},"cost":{"total_cost_usd":-1}}"#;
        let i = Input::parse(odd).unwrap();
        assert_eq!(i.model_label(), None);
        assert_eq!(i.current_usage, None);
        assert_eq!(i.context_window_size, None);
        assert_eq!(i.client_cost_usd, None);

        assert_eq!(i.client_used_percentage, None);
        assert_eq!((i.five_hour, i.prompt_cache), (None, None));

        // The documented shape (2.1.80+, Claude.ai plans) and the lab's
        // `prompt_cache` (2.1.332), then the lenient readings: ISO and
        // millisecond instants, a percentage as text.
        let rl = br#"{"context_window":{"used_percentage":52},
            "rate_limits":{"five_hour":{"used_percentage":23.5,"resets_at":1738425600},
              "seven_day":{"used_percentage":"41%","resets_at":"2025-02-06T16:00:00Z"}},
            "prompt_cache":{"warm":true,"ttl":"5m","expires_at":1796012874000}}"#;
        let i = Input::parse(rl).unwrap();
        assert_eq!(i.client_used_percentage, Some(52.0));
        let w = |used_percentage, at| {
            Some(RateWindow {
                used_percentage,
                resets_at: Some(at),
            })
        };
        assert_eq!(i.five_hour, w(23.5, 1_738_425_600));
        assert_eq!(i.seven_day, w(41.0, 1_738_857_600));
        assert_eq!(
            i.prompt_cache,
            Some(PromptCache {
                warm: true,
                expires_at: Some(1_796_012_874)
            })
        );
        let none = br#"{"rate_limits":{"five_hour":{"resets_at":1},"seven_day":null}}"#;
        let i = Input::parse(none).unwrap();
        assert_eq!((i.five_hour, i.seven_day), (None, None));

        assert!(matches!(Input::parse(b"[1]"), Err(InputError::NotObject)));
        assert!(matches!(
            Input::parse(b"{oops"),
            Err(InputError::NotJson(_))
        ));
    }
}
