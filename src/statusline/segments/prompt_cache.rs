//! `cache`: whether the prompt cache is warm and how long until it lapses
//! (`cache 3m`), from the client's `prompt_cache`: a request after that
//! writes the whole context again, at the cache-write price. Shown as cold
//! when the client says so or its expiry has passed (the client reports
//! the cache as of the last request, not as of this render).

use super::{Facts, Input, Piece, human_duration, piece};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    /// While warm. Variable: `$expires` (time left: `3m`, `45s`; empty when
    /// the client sends no expiry).
    pub format: String,
    /// Once cold (no variable).
    pub cold_format: String,
    pub style: String,
    pub cold_style: String,
    pub disabled: bool,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            format: "cache( $expires)".into(),
            cold_format: "cache cold".into(),
            style: String::new(),
            cold_style: "yellow".into(),
            disabled: false,
        }
    }
}

pub fn render(cfg: &CacheConfig, input: &Input, facts: &Facts) -> Option<Piece> {
    let c = input.prompt_cache.as_ref()?;
    let left = c
        .expires_at
        .filter(|_| facts.now > 0)
        .map(|at| at - facts.now);
    let warm = c.warm && left.is_none_or(|s| s > 0);
    if !warm {
        return piece(&cfg.cold_format, &cfg.cold_style, &|_| None);
    }
    let expires = left.map(human_duration);
    piece(&cfg.format, &cfg.style, &|v| match v {
        "expires" => Some(expires.clone()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::statusline::input::PromptCache;

    #[test]
    fn warm_until_it_expires() {
        let cfg = CacheConfig::default();
        let input = |warm, expires_at| Input {
            prompt_cache: Some(PromptCache { warm, expires_at }),
            ..Input::default()
        };
        let facts = Facts {
            now: 1_000,
            ..Facts::default()
        };
        let text = |i: &Input| render(&cfg, i, &facts).map(|p| p.text);
        assert_eq!(text(&input(true, Some(1_185))).as_deref(), Some("cache 3m"));
        assert_eq!(
            text(&input(true, Some(1_045))).as_deref(),
            Some("cache 45s")
        );
        assert_eq!(
            text(&input(true, Some(1_000))).as_deref(),
            Some("cache cold")
        );
        assert_eq!(
            text(&input(false, Some(1_185))).as_deref(),
            Some("cache cold")
        );
        assert_eq!(text(&input(true, None)).as_deref(), Some("cache"));
        assert_eq!(text(&Input::default()), None, "nothing sent, nothing shown");
    }
}
