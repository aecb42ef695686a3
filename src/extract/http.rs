//! What the HTTP backends share: one POST of JSON with a time budget,
//! bounded retries, proxies from the injected environment, and errors that
//! never carry the API key.

use std::time::{Duration, Instant};

use anyhow::anyhow;
use serde_json::Value;

use crate::context::Env;

/// When and how often a failed call is tried again.
#[derive(Debug, Clone)]
pub struct Retry {
    /// Calls in all, the first one included.
    pub attempts: u32,
    /// First wait; doubled after each failure.
    pub backoff_base: Duration,
    /// Longest wait, whatever `retry-after` asks for.
    pub max_wait: Duration,
    /// Performs a wait between attempts. Tests replace it to see which
    /// waits were asked for without spending them.
    pub sleep: fn(Duration),
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            attempts: 3,
            backoff_base: Duration::from_millis(500),
            max_wait: Duration::from_secs(20),
            sleep: std::thread::sleep,
        }
    }
}

/// An API key: usable, but never printed.
#[derive(Clone)]
pub(crate) struct Secret(String);

impl Secret {
    /// The key in `env[var]`, if set and not blank.
    pub(crate) fn from_env(env: &Env, var: &str) -> Option<Secret> {
        env.get(var)
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(|k| Secret(k.to_string()))
    }
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
    /// `text` with every occurrence of the key blanked out, for messages
    /// built from what a server sent back.
    pub(crate) fn scrub(&self, text: &str) -> String {
        if self.0.len() < 4 {
            text.to_string()
        } else {
            text.replace(&self.0, "[REDACTED]")
        }
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([REDACTED])")
    }
}

/// `base` + `path`, without doubling the slash or the `/v1` a user may
/// have included in the base URL.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    let path = path.trim_start_matches('/');
    match path.strip_prefix("v1/") {
        Some(rest) if base.ends_with("/v1") => format!("{base}/{rest}"),
        _ => format!("{base}/{path}"),
    }
}

/// The proxy the injected environment asks for this URL, if any. Loopback
/// hosts (a local Ollama) and `NO_PROXY` hosts go direct.
pub(crate) fn proxy_for(url: &str, env: &Env) -> Option<ureq::Proxy> {
    let host = host_of(url)?;
    if matches!(host.as_str(), "localhost" | "127.0.0.1" | "::1") || host.starts_with("127.") {
        return None;
    }
    let get = |name: &str| {
        env.get(name)
            .or_else(|| env.get(&name.to_lowercase()))
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    if let Some(list) = get("NO_PROXY") {
        let bypass = list
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .any(|entry| {
                let entry = entry.trim_start_matches("*.").trim_start_matches('.');
                entry == "*" || host == entry || host.ends_with(&format!(".{entry}"))
            });
        if bypass {
            return None;
        }
    }
    let https = url.trim_start().to_ascii_lowercase().starts_with("https:");
    let proxy = if https {
        get("HTTPS_PROXY")
    } else {
        get("HTTP_PROXY")
    }
    .or_else(|| get("ALL_PROXY"))?;
    ureq::Proxy::new(proxy).ok()
}

fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        authority.split(':').next()?
    };
    Some(host.to_ascii_lowercase())
}

/// One JSON POST as the backends make it.
pub(crate) struct Post<'a> {
    /// Names the backend in errors (`anthropic`, `openai`).
    pub label: &'a str,
    pub url: &'a str,
    pub headers: Vec<(&'static str, String)>,
    pub body: &'a Value,
    /// Budget for the whole call, retries and waits included.
    pub timeout: Duration,
    pub retry: &'a Retry,
    pub proxy: Option<ureq::Proxy>,
    /// Blanked out of every error message.
    pub secret: Option<&'a Secret>,
}

enum Failure {
    /// Worth another attempt; the wait a `retry-after` asked for, if any.
    Transient(String, Option<Duration>),
    Permanent(String),
}

/// Sends the request, retrying on 429, 5xx, timeouts and dropped
/// connections with exponential backoff (or the server's `retry-after`,
/// capped) while the time budget lasts. Returns the parsed 2xx body.
pub(crate) fn post_json(post: Post) -> anyhow::Result<Value> {
    let scrub = |s: String| match post.secret {
        Some(k) => k.scrub(&s),
        None => s,
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(post.timeout))
        .proxy(post.proxy.clone())
        .user_agent(concat!("cairn/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let deadline = Instant::now() + post.timeout;
    let attempts = post.retry.attempts.max(1);
    let mut last = String::new();
    for attempt in 1..=attempts {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            break;
        }
        let failure = match send_once(&agent, &post, remaining) {
            Ok(value) => return Ok(value),
            Err(f) => f,
        };
        let wait_asked = match failure {
            Failure::Permanent(msg) => {
                return Err(anyhow!(scrub(format!("{}: {msg}", post.label))));
            }
            Failure::Transient(msg, wait) => {
                last = msg;
                wait
            }
        };
        if attempt == attempts {
            break;
        }
        let backoff = post
            .retry
            .backoff_base
            .saturating_mul(1 << (attempt - 1).min(16));
        let wait = wait_asked.unwrap_or(backoff).min(post.retry.max_wait);
        if Instant::now() + wait >= deadline {
            break;
        }
        (post.retry.sleep)(wait);
    }
    if last.is_empty() {
        last = format!("no answer within {}s", post.timeout.as_secs_f32());
    }
    Err(anyhow!(scrub(format!(
        "{}: {last} (gave up after {} attempt(s) within {}s; check memory.timeout_secs and the server)",
        post.label,
        attempts,
        post.timeout.as_secs_f32()
    ))))
}

fn send_once(agent: &ureq::Agent, post: &Post, remaining: Duration) -> Result<Value, Failure> {
    let mut req = agent
        .post(post.url)
        .config()
        .timeout_global(Some(remaining))
        .build();
    for (name, value) in &post.headers {
        req = req.header(*name, value.as_str());
    }
    let mut resp = match req.send_json(post.body) {
        Ok(r) => r,
        Err(e) => return Err(transport_failure(post.url, e)),
    };
    let status = resp.status().as_u16();
    let retry_after = resp
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Duration::from_secs_f64(s.min(3600.0)));
    let body = match resp.body_mut().read_to_string() {
        Ok(b) => b,
        Err(e) => return Err(transport_failure(post.url, e)),
    };
    if (200..300).contains(&status) {
        return serde_json::from_str(&body).map_err(|e| {
            Failure::Permanent(format!(
                "{} answered {status} with a body that is not JSON ({e})",
                post.url
            ))
        });
    }
    let msg = format!("HTTP {status} from {}: {}", post.url, server_message(&body));
    if status == 408 || status == 429 || (500..600).contains(&status) {
        Err(Failure::Transient(msg, retry_after))
    } else {
        Err(Failure::Permanent(msg))
    }
}

fn transport_failure(url: &str, e: ureq::Error) -> Failure {
    match e {
        ureq::Error::Timeout(_) => {
            Failure::Transient(format!("no answer from {url} in time ({e})"), None)
        }
        ureq::Error::Io(_) | ureq::Error::ConnectionFailed => {
            Failure::Transient(format!("cannot reach {url} ({e})"), None)
        }
        other => Failure::Permanent(format!("request to {url} failed ({other})")),
    }
}

/// The human part of an error body: `error.message` (both APIs), else a
/// short prefix of the body.
fn server_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error"))
            .or_else(|| v.get("message"))
            .and_then(Value::as_str)
    });
    let text = message
        .unwrap_or(body)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if text.is_empty() {
        return "(empty body)".to_string();
    }
    let mut short: String = text.chars().take(200).collect();
    if text.chars().count() > 200 {
        short.push('…');
    }
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_do_not_print() {
        let s = Secret("sk-ant-abcdef".into());
        assert_eq!(format!("{s:?}"), "Secret([REDACTED])");
        assert_eq!(s.scrub("bad key sk-ant-abcdef!"), "bad key [REDACTED]!");
    }

    #[test]
    fn urls_join_without_doubling() {
        assert_eq!(
            join_url("https://api.anthropic.com", "/v1/messages"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            join_url("https://api.anthropic.com/", "v1/messages"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            join_url("https://proxy.local/v1/", "v1/messages"),
            "https://proxy.local/v1/messages"
        );
        assert_eq!(
            join_url("http://127.0.0.1:11434/v1", "chat/completions"),
            "http://127.0.0.1:11434/v1/chat/completions"
        );
    }

    #[test]
    fn proxies_come_from_the_injected_env() {
        let env = Env::from_pairs([
            ("HTTPS_PROXY", "http://proxy:3128"),
            ("no_proxy", "internal.corp,.lan"),
        ]);
        assert!(proxy_for("https://api.anthropic.com/v1/messages", &env).is_some());
        assert!(proxy_for("http://api.example.com/v1", &env).is_none());
        assert!(proxy_for("https://llm.internal.corp/v1", &env).is_none());
        assert!(proxy_for("https://box.lan/v1", &env).is_none());
        assert!(proxy_for("https://127.0.0.1:8080/v1", &env).is_none());
        assert!(proxy_for("https://[::1]:8080/v1", &env).is_none());
        assert!(proxy_for("https://api.anthropic.com", &Env::default()).is_none());
        let all = Env::from_pairs([("all_proxy", "http://p:1")]);
        assert!(proxy_for("http://api.example.com/v1", &all).is_some());
    }

    #[test]
    fn server_messages_are_short() {
        assert_eq!(
            server_message(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "Overloaded"
        );
        assert_eq!(
            server_message(r#"{"error":"model not found"}"#),
            "model not found"
        );
        assert_eq!(server_message(""), "(empty body)");
        assert_eq!(server_message(&"x".repeat(300)).chars().count(), 201);
    }
}
