//! `context`: how full the main thread's context is, in percent and
//! tokens/window, coloured by the context guard's thresholds for the model
//! (green below warn, yellow from warn, red from hard) so the line warns
//! before the guard blocks.

use super::{Facts, Piece, human_tokens, piece, var};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ContextConfig {
    /// Variables: `$percent` (of the window, rounded down), `$tokens`,
    /// `$window`, `$warn`, `$hard` (the guard's thresholds), `$client`
    /// (the client's own percentage, only when it and cairn's differ by
    /// more than `disagree_points`). Window-based variables are empty for
    /// a model whose window nothing describes.
    pub format: String,
    /// How far apart, in points, cairn's percentage and the client's may
    /// be before `$client` says so (they differ when the two disagree on
    /// the window, or the payload's usage is not the last request's).
    pub disagree_points: f64,
    /// Below the warn threshold.
    pub style: String,
    /// From the warn threshold.
    pub warn_style: String,
    /// From the hard threshold.
    pub hard_style: String,
    pub disabled: bool,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            format: "ctx( $percent%) $tokens(/$window)( \\(client $client%\\))".into(),
            disagree_points: 2.0,
            style: "green".into(),
            warn_style: "yellow".into(),
            hard_style: "bold red".into(),
            disabled: false,
        }
    }
}

/// Where the fill stands against the guard's thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Ok,
    Warn,
    Hard,
    /// No threshold is known for this model: shown unstyled.
    Unknown,
}

pub fn render(cfg: &ContextConfig, facts: &Facts) -> Option<Piece> {
    let c = facts.context.as_ref()?;
    let percent = c
        .window
        .filter(|w| *w > 0)
        .map(|w| (u128::from(c.tokens) * 100 / u128::from(w)).to_string());
    let nonzero = |t: u64| (t > 0).then(|| human_tokens(t));
    let exact = c
        .window
        .filter(|w| *w > 0)
        .map(|w| c.tokens as f64 * 100.0 / w as f64);
    let client = match (exact, c.client_percent) {
        (Some(ours), Some(theirs)) if (ours - theirs).abs() > cfg.disagree_points => {
            Some(format!("{}", theirs.floor() as u64))
        }
        _ => None,
    };
    let style = match c.level() {
        Level::Ok => cfg.style.as_str(),
        Level::Warn => cfg.warn_style.as_str(),
        Level::Hard => cfg.hard_style.as_str(),
        Level::Unknown => "",
    };
    piece(&cfg.format, style, &|v| match v {
        "percent" => Some(percent.clone()),
        "tokens" => var(human_tokens(c.tokens)),
        "window" => Some(c.window.map(human_tokens)),
        "warn" => Some(nonzero(c.warn)),
        "hard" => Some(nonzero(c.hard)),
        "client" => Some(client.clone()),
        _ => None,
    })
}
