//! One file per segment, starship-style: each has a config struct whose
//! `Default` is the documented default and a `render` that turns the
//! payload and the gathered facts into a [`Piece`], or `None` when it has
//! nothing to say (no git repository, no subagents yet).
//!
//! Segments never do I/O: everything they show was gathered beforehand by
//! `facts::gather`, which only fetches what an enabled segment needs.

pub mod branch;
pub mod context;
pub mod cost;
pub mod memory;
pub mod model;
pub mod project;
pub mod prompt_cache;
pub mod rate_limits;
pub mod subagents;
pub mod today;

use super::StatuslineConfig;
use super::facts::Facts;
use super::format;
use super::input::Input;
use super::style::{Piece, Style};
use serde::{Deserialize, Serialize};

/// The segments, by the name used in `statusline.segments`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SegmentName {
    Model,
    Project,
    Branch,
    Context,
    /// `rate_limits.five_hour`.
    #[serde(rename = "five_hour")]
    FiveHour,
    /// `rate_limits.seven_day`.
    #[serde(rename = "seven_day")]
    SevenDay,
    Cost,
    Subagents,
    Today,
    /// `prompt_cache`.
    Cache,
    Memory,
}

impl SegmentName {
    /// Every segment, in the default order: identity first, then the
    /// limits that stop a session (context, the plan's windows), then what
    /// it is costing, then the cache and memory. The ones with nothing to
    /// say (no rate limits for an API key) are left out of the line.
    pub const ALL: [SegmentName; 11] = [
        SegmentName::Model,
        SegmentName::Project,
        SegmentName::Branch,
        SegmentName::Context,
        SegmentName::FiveHour,
        SegmentName::SevenDay,
        SegmentName::Cost,
        SegmentName::Subagents,
        SegmentName::Today,
        SegmentName::Cache,
        SegmentName::Memory,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SegmentName::Model => "model",
            SegmentName::Project => "project",
            SegmentName::Branch => "branch",
            SegmentName::Context => "context",
            SegmentName::FiveHour => "five_hour",
            SegmentName::SevenDay => "seven_day",
            SegmentName::Cache => "cache",
            SegmentName::Cost => "cost",
            SegmentName::Subagents => "subagents",
            SegmentName::Today => "today",
            SegmentName::Memory => "memory",
        }
    }
}

/// Renders one segment.
pub fn render(
    name: SegmentName,
    input: &Input,
    facts: &Facts,
    cfg: &StatuslineConfig,
) -> Option<Piece> {
    match name {
        SegmentName::Model => model::render(&cfg.model, input),
        SegmentName::Project => project::render(&cfg.project, input),
        SegmentName::Branch => branch::render(&cfg.branch, facts),
        SegmentName::Context => context::render(&cfg.context, facts),
        SegmentName::FiveHour => {
            rate_limits::render(&cfg.five_hour, rate_limits::Window::FiveHour, input, facts)
        }
        SegmentName::SevenDay => {
            rate_limits::render(&cfg.seven_day, rate_limits::Window::SevenDay, input, facts)
        }
        SegmentName::Cache => prompt_cache::render(&cfg.cache, input, facts),
        SegmentName::Cost => cost::render(&cfg.cost, input, facts),
        SegmentName::Subagents => subagents::render(&cfg.subagents, facts),
        SegmentName::Today => today::render(&cfg.today, facts),
        SegmentName::Memory => memory::render(&cfg.memory, facts),
    }
}

/// Formats and styles: the last step of every segment.
fn piece(fmt: &str, style: &str, lookup: format::Lookup) -> Option<Piece> {
    Piece::new(&format::render(fmt, lookup), Style::parse(style))
}

/// `Some(Some(v))`: a variable with a value.
fn var(v: impl Into<String>) -> Option<Option<String>> {
    Some(Some(v.into()))
}

/// Token counts the way people say them: `950`, `9.5k`, `21k`, `1.2M`.
/// Rounded down, so a count never shows more than it is (a window at
/// 199 999 tokens must not read `200k`).
pub fn human_tokens(n: u64) -> String {
    if n < 1_000 {
        n.to_string()
    } else if n < 10_000 {
        tenths(n / 100, "k")
    } else if n < 1_000_000 {
        format!("{}k", n / 1_000)
    } else {
        tenths(n / 100_000, "M")
    }
}

fn tenths(t: u64, unit: &str) -> String {
    if t.is_multiple_of(10) {
        format!("{}{unit}", t / 10)
    } else {
        format!("{}.{}{unit}", t / 10, t % 10)
    }
}

/// Time left the way a countdown reads at a glance, the two largest units,
/// rounded down: `3d4h`, `2h10m`, `3m`, `45s`.
pub fn human_duration(secs: i64) -> String {
    let s = secs.max(0);
    let (d, h, m) = (s / 86_400, s % 86_400 / 3_600, s % 3_600 / 60);
    if d > 0 {
        format!("{d}d{h}h")
    } else if h > 0 {
        format!("{h}h{m}m")
    } else if m > 0 {
        format!("{m}m")
    } else {
        format!("{s}s")
    }
}

/// A session figure; `+` when some tokens could not be priced, so it is a
/// floor rather than the total.
fn usd(v: f64, unpriced: bool) -> String {
    let mut s = crate::format::dollars_short(v);
    if unpriced {
        s.push('+');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_like_people_say_them() {
        assert_eq!(human_tokens(0), "0");
        assert_eq!(human_tokens(999), "999");
        assert_eq!(human_tokens(1_000), "1k");
        assert_eq!(human_tokens(9_999), "9.9k");
        assert_eq!(human_tokens(21_112), "21k");
        assert_eq!(human_tokens(199_999), "199k");
        assert_eq!(human_tokens(200_000), "200k");
        assert_eq!(human_tokens(1_000_000), "1M");
        assert_eq!(human_tokens(1_250_000), "1.2M");
        assert_eq!(human_duration(2 * 3600 + 10 * 60 + 59), "2h10m");
        assert_eq!(human_duration(3 * 86_400 + 4 * 3600 + 59 * 60), "3d4h");
        assert_eq!(human_duration(180), "3m");
        assert_eq!(human_duration(45), "45s");
        assert_eq!(human_duration(-5), "0s");
    }

    #[test]
    fn names_round_trip_through_serde() {
        for n in SegmentName::ALL {
            let s = serde_json::to_string(&n).unwrap();
            assert_eq!(s, format!("\"{}\"", n.as_str()));
        }
    }
}
