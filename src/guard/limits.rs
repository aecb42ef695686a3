//! `[guard]` settings and what they mean for one model: its context window
//! and the two thresholds, in tokens.
//!
//! Where the window comes from, first hit wins:
//! 1. what the status line last reported for the session
//!    (`context_window.context_window_size`, recorded by [`super::record_window`]),
//!    as long as it was reported for the same model;
//! 2. a `[[guard.models]]` rule of the user's with a `window`;
//! 3. the embedded table ([`table_window`]).
//!
//! A model the table does not know and no rule or status line describes has
//! no window: the guard stays silent rather than guess (a gateway model with
//! a 2M window must not be stopped at 120K, one with 128K must not be let
//! through to 240K).

use serde::{Deserialize, Serialize};

/// The classic window, and the reference the 200K thresholds are set for.
pub const WINDOW_200K: u64 = 200_000;
pub const WINDOW_1M: u64 = 1_000_000;

/// `[guard]` settings. `Default` is the documented default (SPEC §2.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GuardConfig {
    /// The context guard blocks at all (Stop). Off: it never reads anything.
    pub enabled: bool,
    /// Warn level for a 200K window, in tokens; smaller windows scale it down
    /// (a 100K window warns at half). 0 turns the warn level off.
    pub warn_tokens: u64,
    /// Hard level for a 200K window (scaled like `warn_tokens`). Sits before
    /// the client's own auto-compaction near window − 13K. 0 turns it off.
    pub hard_tokens: u64,
    /// Warn level for windows over 200K. It is a cost and quality limit, not
    /// a capacity one, so it does not grow with the window; it is capped at
    /// the 200K level's share of the window for mid-size windows.
    pub warn_tokens_1m: u64,
    /// Hard level for windows over 200K (capped like `warn_tokens_1m`).
    pub hard_tokens_1m: u64,
    /// A hand-off note left at the hard level is injected by the next
    /// `SessionStart` (`clear` or `startup`) of the project only if it is at
    /// most this old; an older one would mislead more than help.
    pub handoff_max_age_hours: u64,
    /// Per-model rules, checked in order before the embedded table; the first
    /// whose `match` is a substring of the model id (lower case) applies.
    pub models: Vec<ModelRule>,
}

impl Default for GuardConfig {
    fn default() -> Self {
        GuardConfig {
            enabled: true,
            warn_tokens: 120_000,
            hard_tokens: 160_000,
            warn_tokens_1m: 180_000,
            hard_tokens_1m: 240_000,
            handoff_max_age_hours: 7 * 24,
            models: Vec::new(),
        }
    }
}

/// `[[guard.models]]`: `match = "haiku"`, then any of `window`, `warn`,
/// `hard` (tokens). What a rule leaves out comes from the window rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelRule {
    #[serde(rename = "match")]
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warn: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hard: Option<u64>,
}

/// Where a window figure came from, for the block message and the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WindowSource {
    StatusLine,
    Config,
    Table,
}

/// The window and thresholds in force for one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub window: u64,
    /// 0: that level is off.
    pub warn: u64,
    pub hard: u64,
    pub source: WindowSource,
}

/// The guard's levels, in the order a session climbs them.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    #[default]
    None,
    Warn,
    Hard,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::None => "none",
            Level::Warn => "warn",
            Level::Hard => "hard",
        }
    }
}

impl Limits {
    /// The level a context of `fill` tokens is at.
    pub fn level(&self, fill: u64) -> Level {
        if self.hard > 0 && fill >= self.hard {
            Level::Hard
        } else if self.warn > 0 && fill >= self.warn {
            Level::Warn
        } else {
            Level::None
        }
    }

    /// Under every threshold that is on: the context shrank (a compaction,
    /// a rewind), so the levels it had reached mean nothing any more.
    pub fn below_all(&self, fill: u64) -> bool {
        let lowest = match (self.warn, self.hard) {
            (0, 0) => return true,
            (0, h) => h,
            (w, 0) => w,
            (w, h) => w.min(h),
        };
        fill < lowest
    }

    /// `fill` as a whole percentage of the window, rounded down.
    pub fn percent(&self, fill: u64) -> u64 {
        if self.window == 0 {
            return 0;
        }
        (u128::from(fill) * 100 / u128::from(self.window)) as u64
    }
}

/// Model ids come as `claude-opus-4-8`, `claude-opus-4.8`, `opus[1m]`,
/// `us.anthropic.claude-opus-4-8-v1:0`, …: lower case with dots as dashes
/// makes one substring table cover them.
pub fn normalize(model: &str) -> String {
    model.trim().to_ascii_lowercase().replace('.', "-")
}

/// The same model, whatever context variant was picked: the status line
/// reports `claude-opus-4-8[1m]` while the transcript says `claude-opus-4-8`.
fn base_model(model: &str) -> String {
    let n = normalize(model);
    let n = n.strip_suffix("[1m]").unwrap_or(&n);
    n.trim_end_matches("-1m").to_string()
}

/// Whether the status line's figure (recorded for `recorded_model`) can be
/// trusted for a usage record of `usage_model`. After `/model`, the recorded
/// window describes the previous model until the status line runs again.
pub fn same_model(recorded_model: Option<&str>, usage_model: Option<&str>) -> bool {
    match (recorded_model, usage_model) {
        (Some(a), Some(b)) => base_model(a) == base_model(b),
        _ => true,
    }
}

/// Models whose window is 1M wherever Claude Code runs them (model-config,
/// 2026-08): Opus 4.7 and later, Sonnet 5, Fable, Mythos. Opus 4.6 and
/// Sonnet 4.6 get 1M only on some plans or with `[1m]`, so they are read as
/// 200K: guarding a 1M model at 200K thresholds stops it early, which is
/// safe; the reverse would let a 200K session reach auto-compaction unguarded.
const NATIVE_1M: &[&str] = &[
    "opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "fable", "mythos",
];

/// Anything of these families not listed above is a 200K model.
const FAMILIES_200K: &[&str] = &["claude", "opus", "sonnet", "haiku"];

/// The embedded window table. `None`: not a model cairn knows.
/// `disable_1m` mirrors `CLAUDE_CODE_DISABLE_1M_CONTEXT=1`, which holds
/// native-1M models to 200K.
pub fn table_window(model: &str, disable_1m: bool) -> Option<u64> {
    let n = normalize(model);
    let one_m = n.ends_with("[1m]")
        || n.ends_with("-1m")
        || n.contains("1m-context")
        || n.contains("(1m context)")
        || NATIVE_1M.iter().any(|m| n.contains(m));
    if one_m {
        return Some(if disable_1m { WINDOW_200K } else { WINDOW_1M });
    }
    FAMILIES_200K
        .iter()
        .any(|f| n.contains(f))
        .then_some(WINDOW_200K)
}

/// The status line's figure is a window only within these bounds; anything
/// else is a client bug or garbage and must not move the thresholds.
pub fn plausible_window(w: u64) -> bool {
    (1_000..=100_000_000).contains(&w)
}

impl GuardConfig {
    fn rule_for(&self, model: Option<&str>) -> Option<&ModelRule> {
        let n = normalize(model?);
        self.models
            .iter()
            .find(|r| !r.pattern.trim().is_empty() && n.contains(&normalize(&r.pattern)))
    }

    /// Thresholds for a window, from the 200K and 1M settings.
    pub fn thresholds_for_window(&self, window: u64) -> (u64, u64) {
        let scaled = |t: u64| (u128::from(t) * u128::from(window) / u128::from(WINDOW_200K)) as u64;
        if window <= WINDOW_200K {
            (scaled(self.warn_tokens), scaled(self.hard_tokens))
        } else {
            (
                self.warn_tokens_1m.min(scaled(self.warn_tokens)),
                self.hard_tokens_1m.min(scaled(self.hard_tokens)),
            )
        }
    }

    /// The window and thresholds for `model`, given the window the status
    /// line recorded for the session (with the model it was recorded for).
    /// `None`: nothing says how big this model's window is.
    pub fn limits(
        &self,
        model: Option<&str>,
        recorded: Option<(u64, Option<&str>)>,
        disable_1m: bool,
    ) -> Option<Limits> {
        let rule = self.rule_for(model);
        let from_status = recorded
            .filter(|(w, m)| plausible_window(*w) && same_model(*m, model))
            .map(|(w, _)| (w, WindowSource::StatusLine));
        let from_rule = rule
            .and_then(|r| r.window)
            .filter(|w| plausible_window(*w))
            .map(|w| (w, WindowSource::Config));
        let from_table = model
            .and_then(|m| table_window(m, disable_1m))
            .map(|w| (w, WindowSource::Table));
        let (window, source) = from_status.or(from_rule).or(from_table)?;
        let (warn, hard) = self.thresholds_for_window(window);
        Some(Limits {
            window,
            warn: rule.and_then(|r| r.warn).unwrap_or(warn),
            hard: rule.and_then(|r| r.hard).unwrap_or(hard),
            source,
        })
    }
}
