//! `five_hour` and `seven_day`: how much of the plan's rate-limit windows
//! is used and when each resets, as the client reports them
//! (`rate_limits.five_hour` / `rate_limits.seven_day`, Claude.ai plans
//! only). Coloured like the context: yellow from 70 %, red from 90 %.
//! Nothing is shown when the client sends no window (API-key users, or
//! before the session's first response).

use super::{Facts, Input, Piece, human_duration, piece, var};
use crate::statusline::input::RateWindow;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimitConfig {
    /// Variables: `$window` (`5h`, `7d`), `$percent` (used, rounded
    /// down), `$resets` (time left until the window resets: `2h10m`,
    /// `3d4h`; empty once it has).
    pub format: String,
    /// Below `warn_percent`.
    pub style: String,
    /// From `warn_percent`.
    pub warn_style: String,
    /// From `hard_percent`.
    pub hard_style: String,
    pub warn_percent: f64,
    pub hard_percent: f64,
    pub disabled: bool,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        RateLimitConfig {
            format: "$window $percent%( $resets)".into(),
            style: "green".into(),
            warn_style: "yellow".into(),
            hard_style: "bold red".into(),
            warn_percent: 70.0,
            hard_percent: 90.0,
            disabled: false,
        }
    }
}

/// Which of the two windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    FiveHour,
    SevenDay,
}

pub fn render(cfg: &RateLimitConfig, which: Window, input: &Input, facts: &Facts) -> Option<Piece> {
    let w: &RateWindow = match which {
        Window::FiveHour => input.five_hour.as_ref()?,
        Window::SevenDay => input.seven_day.as_ref()?,
    };
    let used = w.used_percentage;
    let style = if used >= cfg.hard_percent {
        &cfg.hard_style
    } else if used >= cfg.warn_percent {
        &cfg.warn_style
    } else {
        &cfg.style
    };
    let left = w
        .resets_at
        .filter(|_| facts.now > 0)
        .map(|at| at - facts.now)
        .filter(|s| *s > 0)
        .map(human_duration);
    piece(&cfg.format, style, &|v| match v {
        "window" => var(match which {
            Window::FiveHour => "5h",
            Window::SevenDay => "7d",
        }),
        "percent" => var((used.floor() as u64).to_string()),
        "resets" => Some(left.clone()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::statusline::style::Style;

    #[test]
    fn percent_time_left_and_the_colour_of_the_level() {
        let cfg = RateLimitConfig::default();
        let facts = Facts {
            now: 10_000,
            ..Facts::default()
        };
        let input = |used, resets_at| Input {
            five_hour: Some(RateWindow {
                used_percentage: used,
                resets_at,
            }),
            ..Input::default()
        };
        let five = |i: &Input| render(&cfg, Window::FiveHour, i, &facts).unwrap();
        let p = five(&input(35.9, Some(10_000 + 2 * 3600 + 10 * 60 + 30)));
        assert_eq!(p.text, "5h 35% 2h10m");
        assert_eq!(p.style, Style::parse("green"));
        assert_eq!(five(&input(70.0, None)).style, Style::parse("yellow"));
        assert_eq!(five(&input(90.0, None)).style, Style::parse("bold red"));
        assert_eq!(
            five(&input(104.0, Some(9_000))).text,
            "5h 104%",
            "reset already"
        );
        assert!(render(&cfg, Window::SevenDay, &input(1.0, None), &facts).is_none());
    }
}
