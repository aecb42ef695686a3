//! The outside world in one place: environment, clock, state folder.
//! Logic takes a `&Ctx` so tests inject every one of them.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// A snapshot of environment variables.
#[derive(Debug, Clone, Default)]
pub struct Env(BTreeMap<String, String>);

impl Env {
    pub fn from_process() -> Self {
        Env(std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect())
    }
    pub fn from_pairs<I, K, V>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        Env(pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect())
    }
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }
    /// Set or replace one variable (tests, and the nested-call marker).
    pub fn set(&mut self, key: &str, value: &str) {
        self.0.insert(key.to_string(), value.to_string());
    }
    pub fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.0.iter()
    }
}

/// The variable cairn sets on every process it starts that may fire hooks
/// (`claude -p` for extraction): a hook that sees it exits at once.
pub const NESTED_MARKER: &str = "CAIRN_NESTED";

/// Injected clock: a fixed instant in tests, the system clock otherwise.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    System,
    Fixed(jiff::Timestamp),
}

impl Clock {
    pub fn now(&self) -> jiff::Timestamp {
        match self {
            Clock::System => jiff::Timestamp::now(),
            Clock::Fixed(t) => *t,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Ctx {
    pub env: Env,
    pub clock: Clock,
    pub state_dir: PathBuf,
    /// Size cap of the diagnostics log (`diagnostics.max_bytes`), set by
    /// the entry point once the configuration is loaded.
    /// Shared by clones: the cap is the process's, not one copy's.
    diag_max_bytes: std::sync::Arc<std::sync::atomic::AtomicU64>,
    tz: std::sync::OnceLock<jiff::tz::TimeZone>,
}

impl Ctx {
    pub fn from_process() -> Self {
        let env = Env::from_process();
        // `CAIRN_NOW` pins the clock (tests, reproducible demos), like jj's
        // `JJ_TIMESTAMP`; an unparseable value is ignored.
        let clock = env
            .get("CAIRN_NOW")
            .and_then(|s| s.parse::<jiff::Timestamp>().ok())
            .map_or(Clock::System, Clock::Fixed);
        Ctx::new(env, clock)
    }

    pub fn new(env: Env, clock: Clock) -> Self {
        let state_dir = state_dir(&env);
        Ctx {
            env,
            clock,
            state_dir,
            diag_max_bytes: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(
                crate::diag::DiagnosticsConfig::default().max_bytes,
            )),
            tz: std::sync::OnceLock::new(),
        }
    }

    /// Applies `diagnostics.max_bytes` to every later [`diag`](Self::diag).
    pub fn set_diag_max_bytes(&self, max_bytes: u64) {
        self.diag_max_bytes
            .store(max_bytes, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn diag_max_bytes(&self) -> u64 {
        self.diag_max_bytes
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// One line in the diagnostics log; never fails.
    pub fn diag(&self, level: crate::diag::Level, scope: &str, msg: &str) {
        crate::diag::log(
            &self.state_dir,
            self.diag_max_bytes(),
            self.clock.now(),
            level,
            scope,
            msg,
        );
    }

    /// Time zone for "the turn's local date": `TZ` from the injected env,
    /// else the system zone. Looked up once per process.
    pub fn tz(&self) -> jiff::tz::TimeZone {
        self.tz
            .get_or_init(|| match self.env.get("TZ").filter(|s| !s.is_empty()) {
                Some(name) => named_zone(name.trim_start_matches(':')).unwrap_or_else(system_zone),
                None => system_zone(),
            })
            .clone()
    }

    /// `YYYY-MM-DD` of `ts` in local time.
    pub fn local_date(&self, ts: jiff::Timestamp) -> String {
        ts.to_zoned(self.tz()).date().to_string()
    }

    pub fn today(&self) -> String {
        self.local_date(self.clock.now())
    }

    /// Is this process a nested call made by cairn itself?
    pub fn is_nested(&self) -> bool {
        self.env
            .get(NESTED_MARKER)
            .is_some_and(|v| !v.is_empty() && v != "0")
    }
}

/// A `TZ` value: `UTC`, a zoneinfo file read directly (jiff's database
/// lookup lists the whole zoneinfo tree first, milliseconds per process),
/// else a POSIX rule like `CET-1CEST`.
fn named_zone(name: &str) -> Option<jiff::tz::TimeZone> {
    if matches!(name, "UTC" | "Etc/UTC" | "UTC0" | "Z") {
        return Some(jiff::tz::TimeZone::UTC);
    }
    #[cfg(unix)]
    if !name.contains("..")
        && let Ok(bytes) = std::fs::read(std::path::Path::new("/usr/share/zoneinfo").join(name))
        && let Ok(tz) = jiff::tz::TimeZone::tzif(name, &bytes)
    {
        return Some(tz);
    }
    jiff::tz::TimeZone::get(name)
        .or_else(|_| jiff::tz::TimeZone::posix(name))
        .ok()
}

/// The system zone's rules, read straight from `/etc/localtime`: jiff's own
/// lookup also works out the zone's name, which can mean walking the whole
/// zoneinfo tree — milliseconds a hook does not need to spend.
fn system_zone() -> jiff::tz::TimeZone {
    #[cfg(unix)]
    if let Ok(bytes) = std::fs::read("/etc/localtime")
        && let Ok(tz) = jiff::tz::TimeZone::tzif("Local", &bytes)
    {
        return tz;
    }
    jiff::tz::TimeZone::system()
}

/// `CAIRN_STATE_DIR`, else `$XDG_STATE_HOME/cairn`, else `~/.local/state/cairn`.
pub fn state_dir(env: &Env) -> PathBuf {
    if let Some(d) = env.get("CAIRN_STATE_DIR").filter(|s| !s.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(d) = env.get("XDG_STATE_HOME").filter(|s| !s.is_empty()) {
        return PathBuf::from(d).join("cairn");
    }
    match env.get("HOME").filter(|s| !s.is_empty()) {
        Some(h) => PathBuf::from(h).join(".local/state/cairn"),
        None => std::env::temp_dir().join("cairn-state"),
    }
}

impl Ctx {
    /// How hooks should call this binary: plain `cairn` when that is what
    /// PATH finds, else this executable's absolute path.
    pub fn self_command(&self) -> String {
        let Ok(exe) = std::env::current_exe() else {
            return "cairn".into();
        };
        let exe = exe.canonicalize().unwrap_or(exe);
        let on_path = self
            .env
            .get("PATH")
            .unwrap_or_default()
            .split(':')
            .find_map(|d| {
                let p = std::path::Path::new(d).join("cairn");
                p.is_file().then(|| p.canonicalize().unwrap_or(p))
            });
        if on_path.as_deref() == Some(exe.as_path()) {
            "cairn".into()
        } else {
            exe.display().to_string()
        }
    }

    /// The client's user configuration folder: `CLAUDE_CONFIG_DIR` (its
    /// first entry, `~` expanded) or `~/.claude`. `None` without a home.
    pub fn claude_config_dir(&self) -> Option<PathBuf> {
        let home = self.env.get("HOME").filter(|h| !h.is_empty());
        if let Some(first) = self
            .env
            .get("CLAUDE_CONFIG_DIR")
            .and_then(|v| v.split(',').map(str::trim).find(|s| !s.is_empty()))
        {
            return Some(match (first.strip_prefix('~'), home) {
                (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => {
                    PathBuf::from(format!("{h}{rest}"))
                }
                _ => PathBuf::from(first),
            });
        }
        home.map(|h| PathBuf::from(h).join(".claude"))
    }

    /// The user's settings file, where `cairn install --user` writes.
    pub fn user_settings_path(&self) -> Option<PathBuf> {
        self.claude_config_dir().map(|d| d.join("settings.json"))
    }
}
