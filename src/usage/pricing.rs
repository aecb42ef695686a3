//! One dated price table, in US dollars per million tokens.

/// Prices as published on the date below; override in config later (§2.3).
pub const PRICES_AS_OF: &str = "2026-11-01";

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_write_5m: f64,
    pub cache_write_1h: f64,
    pub cache_read: f64,
}

const fn price(input: f64, output: f64) -> Price {
    // Anthropic's rule: 5-minute cache writes cost 1.25× input, 1-hour 2×, reads 0.1×.
    Price {
        input,
        output,
        cache_write_5m: input * 1.25,
        cache_write_1h: input * 2.0,
        cache_read: input * 0.1,
    }
}

/// Model id (as the API reports it) → price; matched by family prefix so
/// dated ids (`claude-haiku-4-5-20251001`) resolve.
pub fn for_model(model: &str) -> Option<Price> {
    let m = model.to_ascii_lowercase();
    let table: &[(&str, Price)] = &[
        ("claude-opus-4-1", price(15.0, 75.0)),
        ("claude-opus-4-0", price(15.0, 75.0)),
        ("claude-opus-4-2", price(15.0, 75.0)),
        ("claude-opus-4-", price(5.0, 25.0)),
        ("claude-opus-5", price(5.0, 25.0)),
        ("claude-opus", price(15.0, 75.0)),
        ("claude-sonnet", price(3.0, 15.0)),
        ("claude-3-7-sonnet", price(3.0, 15.0)),
        ("claude-3-5-sonnet", price(3.0, 15.0)),
        ("claude-haiku-4", price(1.0, 5.0)),
        ("claude-3-5-haiku", price(0.8, 4.0)),
        ("claude-3-haiku", price(0.25, 1.25)),
    ];
    if m == "claude-opus-4" || m.starts_with("claude-opus-4-2025") {
        return Some(price(15.0, 75.0));
    }
    table
        .iter()
        .find(|(p, _)| m.starts_with(p))
        .map(|(_, p)| *p)
}

/// Dollars for plain input/output tokens; `None` for a model not in the table
/// (local models through the OpenAI-compatible backend cost nothing we know of).
pub fn cost(model: &str, input_tokens: u64, output_tokens: u64) -> Option<f64> {
    cost_with_cache(model, input_tokens, output_tokens, 0, 0)
}

/// [`cost`] plus prompt-cache writes (priced as 5-minute writes, what the
/// API and the CLI use by default) and cache reads.
pub fn cost_with_cache(
    model: &str,
    input: u64,
    output: u64,
    cache_write: u64,
    cache_read: u64,
) -> Option<f64> {
    let p = for_model(model)?;
    let micro = input as f64 * p.input
        + output as f64 * p.output
        + cache_write as f64 * p.cache_write_5m
        + cache_read as f64 * p.cache_read;
    Some(micro / 1_000_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_resolve_and_unknown_models_have_no_price() {
        assert_eq!(cost("claude-haiku-4-5-20251001", 1_000_000, 0), Some(1.0));
        assert_eq!(cost("claude-haiku-4-5", 0, 1_000_000), Some(5.0));
        assert_eq!(cost("claude-sonnet-4-6", 1_000_000, 1_000_000), Some(18.0));
        assert_eq!(for_model("claude-opus-4-1-20250805").unwrap().input, 15.0);
        assert_eq!(for_model("claude-opus-4-5").unwrap().input, 5.0);
        assert_eq!(for_model("claude-opus-5-5").unwrap().output, 25.0);
        assert_eq!(cost("llama3.2", 10, 10), None);
        let c = cost_with_cache("claude-haiku-4-5", 0, 0, 1_000_000, 1_000_000).unwrap();
        assert!((c - 1.35).abs() < 1e-9, "{c}");
    }
}
