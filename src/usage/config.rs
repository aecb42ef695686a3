//! `[usage]` settings.
//!
//! ```toml
//! # Price overrides, USD per million tokens. `model` is a prefix of the
//! # model id; the longest matching prefix wins over the built-in table.
//! # Cache rates default to 1.25× (5-minute writes), 2× (1-hour writes) and
//! # 0.1× (reads) of `input`.
//! [[usage.prices]]
//! model = "claude-opus-5-5"
//! input = 4.0
//! output = 20.0
//! cache_read = 0.2
//!
//! [[usage.prices]]
//! model = "my-gateway-model"
//! input = 1.0
//! output = 2.0
//! long_context_above = 200000   # whole request at the rates below past this
//! long_context_input = 2.0
//! long_context_output = 3.0
//! ```
//!
//! An array of tables rather than a table keyed by prefix: the layered
//! loader checks every key against the defaults, and model ids are open.

use super::pricing::PriceOverride;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UsageConfig {
    /// Price rows that take precedence over the built-in table.
    pub prices: Vec<PriceOverride>,
}

#[cfg(test)]
mod tests {
    use crate::context::Env;

    #[test]
    fn price_rows_load_through_the_layered_config() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".cairn.toml"),
            "[[usage.prices]]\nmodel = \"claude-opus-5-5\"\ninput = 4\noutput = 20.5\n",
        )
        .unwrap();
        let env = Env::from_pairs([("HOME", dir.path().display().to_string())]);
        let l = crate::config::load(&env, Some(dir.path())).unwrap();
        let p = &l.config.usage.prices[0];
        assert_eq!(
            (p.model.as_str(), p.input, p.output),
            ("claude-opus-5-5", 4.0, 20.5)
        );

        std::fs::write(
            dir.path().join(".cairn.toml"),
            "[[usage.prices]]\nmodel = \"x\"\ninput = 1\noutput = 1\ncache_wrte = 2\n",
        )
        .unwrap();
        let e = crate::config::load(&env, Some(dir.path())).unwrap_err();
        assert!(e.to_string().contains("usage.prices"), "{e}");
    }
}
