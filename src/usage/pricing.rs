//! One dated price table, in US dollars per million tokens.
//!
//! Source: Anthropic's pricing page
//! (<https://platform.claude.com/docs/en/about-claude/pricing>), read through
//! the dated snapshots listed in `../shared/research/usage-guard-anchors.md`
//! §5 (2025-12-20, 2026-02-08, 2026-03-11/14, 2026-08-22 revisions) and the
//! later rows quoted from the live page between 2026-09-20 and 2026-10-09
//! (Opus 5.5, Sonnet 5.5, Haiku 5.5, Fable/Mythos 5.1). Prices change often:
//! every row is overridable from `[[usage.prices]]` (see
//! [`crate::usage::config`]), and a model the table does not know is priced
//! at zero and flagged rather than guessed.
//!
//! Rules applied per API request (one deduplicated assistant turn):
//! - cache writes are split by lifetime from `usage.cache_creation`: the
//!   1-hour part at the 1-hour rate, the rest (and unsplit writes from older
//!   clients) at the 5-minute rate;
//! - long context: where the page documents a premium tier (Sonnet 4 and 4.5
//!   above 200K prompt tokens; Opus 4.6 and Sonnet 4.6 above 200K until the
//!   1M window became standard-priced; Haiku 5.5 above 100K), a request whose
//!   prompt (input + cache writes + cache reads) exceeds the threshold is
//!   billed entirely at the tier's rates, output included — the page's rule,
//!   which is per request, not per token category as ccusage applies it;
//! - fast mode (`usage.speed == "fast"`): the documented multiplier;
//! - web search: $10 per 1,000 searches (`server_tool_use.web_search_requests`).
//!
//! Not modelled (the transcript does not say): Batch discounts (Claude Code
//! never batches), the 1.1× US-only data-residency multiplier, regional cloud
//! endpoints.

use crate::transcript::Usage;
use serde::{Deserialize, Serialize};

/// The day the table below was last checked against the pricing page.
pub const PRICES_AS_OF: &str = "2026-10-09";

/// Where the table comes from.
pub const PRICES_SOURCE: &str = "https://platform.claude.com/docs/en/about-claude/pricing";

/// Dollars per search with the web search server tool.
pub const WEB_SEARCH_USD: f64 = 10.0 / 1000.0;

/// Per-million-token rates of one model (or of one of its tiers).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_write_5m: f64,
    pub cache_write_1h: f64,
    pub cache_read: f64,
}

/// The documented multipliers: 5-minute cache writes cost 1.25× input,
/// 1-hour writes 2×, reads 0.1×.
const fn price(input: f64, output: f64) -> Price {
    Price {
        input,
        output,
        cache_write_5m: input * 1.25,
        cache_write_1h: input * 2.0,
        cache_read: input * 0.1,
    }
}

/// [`price`] with its own cache-read rate (Opus 5.5 reads at 0.05×, Fable
/// and Mythos 5.1 at 0.025×, Sonnet 5.5 at 0.05×, Haiku 3 rounded by the page).
const fn price_read(input: f64, output: f64, cache_read: f64) -> Price {
    Price {
        cache_read,
        ..price(input, output)
    }
}

/// A premium tier: requests whose prompt is over `above` tokens are billed
/// entirely at `price`, for requests made before `until` (seconds since the
/// Unix epoch) when the tier was withdrawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tier {
    pub above: u64,
    pub price: Price,
    pub until: Option<i64>,
}

/// Everything needed to price one request of a model.
#[derive(Debug, Clone, PartialEq)]
pub struct Rates {
    /// The table key that matched (a model id prefix).
    pub key: String,
    pub base: Price,
    pub long_context: Option<Tier>,
    /// Multiplier on every rate when the response says `speed: "fast"`.
    pub fast_multiplier: f64,
}

struct Row {
    prefix: &'static str,
    base: Price,
    long_context: Option<Tier>,
    fast: f64,
}

const fn row(prefix: &'static str, base: Price) -> Row {
    Row {
        prefix,
        base,
        long_context: None,
        fast: 1.0,
    }
}

const fn with_tier(mut r: Row, above: u64, price: Price, until: Option<i64>) -> Row {
    r.long_context = Some(Tier {
        above,
        price,
        until,
    });
    r
}

const fn with_fast(mut r: Row, fast: f64) -> Row {
    r.fast = fast;
    r
}

/// 2026-03-13T00:00:00Z: between the 2026-03-11 and 2026-03-14 revisions the
/// page dropped the long-context premium of Opus 4.6 and Sonnet 4.6 ("include
/// the full 1M window at standard pricing"); Claude Code 2.1.75 (2026-03-13)
/// made 1M the default the same day. The exact hour is not published.
const LONG_CONTEXT_4_6_UNTIL: i64 = 1_773_360_000;

/// The table. Keys are API model ids without a date suffix; see
/// [`builtin_matches`] for how dated, Bedrock and Vertex ids resolve.
const TABLE: &[Row] = &[
    // Fable / Mythos (limited availability).
    row("claude-fable-5-1", price_read(10.0, 50.0, 0.25)),
    row("claude-mythos-5-1", price_read(10.0, 50.0, 0.25)),
    row("claude-fable-5", price(10.0, 50.0)),
    row("claude-mythos-5", price(10.0, 50.0)),
    // Opus. Fast mode: 6× on Opus 4.6 (research preview, Feb–Apr 2026), 2×
    // on Opus 4.8 and 5 (2026-08 page) and 5.5 ($8/$40, 2026-09).
    with_fast(row("claude-opus-5-5", price_read(4.0, 20.0, 0.20)), 2.0),
    with_fast(row("claude-opus-5", price(5.0, 25.0)), 2.0),
    with_fast(row("claude-opus-4-8", price(5.0, 25.0)), 2.0),
    row("claude-opus-4-7", price(5.0, 25.0)),
    with_fast(
        with_tier(
            row("claude-opus-4-6", price(5.0, 25.0)),
            200_000,
            price(10.0, 37.5),
            Some(LONG_CONTEXT_4_6_UNTIL),
        ),
        6.0,
    ),
    row("claude-opus-4-5", price(5.0, 25.0)),
    row("claude-opus-4-1", price(15.0, 75.0)),
    row("claude-opus-4-0", price(15.0, 75.0)),
    row("claude-opus-4", price(15.0, 75.0)),
    row("claude-3-opus", price(15.0, 75.0)),
    // Sonnet. 4 and 4.5 kept the 1M-beta premium above 200K; 4.6 had it
    // until 2026-03-13; 5 is standard-priced on its whole window.
    row("claude-sonnet-5-5", price_read(2.0, 10.0, 0.10)),
    row("claude-sonnet-5", price(2.0, 10.0)),
    with_tier(
        row("claude-sonnet-4-6", price(3.0, 15.0)),
        200_000,
        price(6.0, 22.5),
        Some(LONG_CONTEXT_4_6_UNTIL),
    ),
    with_tier(
        row("claude-sonnet-4-5", price(3.0, 15.0)),
        200_000,
        price(6.0, 22.5),
        None,
    ),
    with_tier(
        row("claude-sonnet-4-0", price(3.0, 15.0)),
        200_000,
        price(6.0, 22.5),
        None,
    ),
    with_tier(
        row("claude-sonnet-4", price(3.0, 15.0)),
        200_000,
        price(6.0, 22.5),
        None,
    ),
    row("claude-3-7-sonnet", price(3.0, 15.0)),
    row("claude-3-5-sonnet", price(3.0, 15.0)),
    // Haiku. 5.5 has two prices by prompt length (up to / over 100K).
    with_tier(
        row(
            "claude-haiku-5-5",
            Price {
                input: 0.10,
                output: 0.50,
                cache_write_5m: 0.125,
                cache_write_1h: 0.20,
                cache_read: 0.01,
            },
        ),
        100_000,
        Price {
            input: 0.50,
            output: 2.50,
            cache_write_5m: 0.625,
            cache_write_1h: 1.0,
            cache_read: 0.05,
        },
        None,
    ),
    row("claude-haiku-4-5", price(1.0, 5.0)),
    row("claude-3-5-haiku", price(0.8, 4.0)),
    row(
        "claude-3-haiku",
        Price {
            input: 0.25,
            output: 1.25,
            cache_write_5m: 0.30,
            cache_write_1h: 0.50,
            cache_read: 0.03,
        },
    ),
];

/// The id as the table knows it: lower case, and starting at `claude-` so
/// Bedrock (`us.anthropic.claude-…-v1:0`) and Vertex (`claude-…@date`) ids
/// resolve like API ids.
pub fn normalize_model(model: &str) -> String {
    let m = model.trim().to_ascii_lowercase();
    match m.find("claude-") {
        Some(i) => m[i..].to_string(),
        None => m,
    }
}

/// Does a built-in key cover `model`? The rest of the id must not start
/// with another version number: `claude-opus-4` covers
/// `claude-opus-4-20250514` but not `claude-opus-4-9`, so a release the
/// table does not know is flagged instead of priced as its predecessor.
fn builtin_matches(model: &str, key: &str) -> bool {
    let Some(rest) = model.strip_prefix(key) else {
        return false;
    };
    let Some(after_dash) = rest.strip_prefix('-') else {
        // End of id, `[1m]`, `@20250929`, `:0` …
        return rest.is_empty() || !rest.starts_with(|c: char| c.is_ascii_alphanumeric());
    };
    let digits = after_dash.bytes().take_while(u8::is_ascii_digit).count();
    // A date (8 digits) or a non-numeric suffix (`-v1`, `-fast`, `-latest`).
    digits == 0 || digits >= 6
}

/// A user's override row: `model` is a prefix of the model id; the cache
/// rates default to the documented multipliers of `input`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceOverride {
    pub model: String,
    pub input: f64,
    pub output: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_5m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// Prompt size above which every token of a request is billed at the
    /// `long_context_*` rates (0: no premium tier).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub long_context_above: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_context_input: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_context_output: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_multiplier: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl PriceOverride {
    fn rates(&self) -> Rates {
        let mut base = price(self.input, self.output);
        if let Some(v) = self.cache_write_5m {
            base.cache_write_5m = v;
        }
        if let Some(v) = self.cache_write_1h {
            base.cache_write_1h = v;
        }
        if let Some(v) = self.cache_read {
            base.cache_read = v;
        }
        let long_context = (self.long_context_above > 0).then(|| {
            let input = self.long_context_input.unwrap_or(self.input * 2.0);
            let output = self.long_context_output.unwrap_or(self.output * 1.5);
            Tier {
                above: self.long_context_above,
                price: price(input, output),
                until: None,
            }
        });
        Rates {
            key: normalize_model(&self.model),
            base,
            long_context,
            fast_multiplier: self.fast_multiplier.unwrap_or(1.0),
        }
    }
}

/// The dollars of one request, by kind. `known` is false when the model is
/// not in the table: every figure is then 0 and reports flag the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub input: f64,
    pub output: f64,
    pub cache_write_5m: f64,
    pub cache_write_1h: f64,
    pub cache_read: f64,
    pub web_search: f64,
    pub known: bool,
    /// The long-context tier applied.
    pub long_context: bool,
    pub fast: bool,
}

impl Cost {
    pub fn total(&self) -> f64 {
        self.input
            + self.output
            + self.cache_write_5m
            + self.cache_write_1h
            + self.cache_read
            + self.web_search
    }
}

/// Cache writes of a usage split by lifetime: `(5-minute, 1-hour)`. Writes
/// the client did not split (older clients) count as 5-minute writes, what
/// the API does by default.
pub fn cache_write_split(u: &Usage) -> (u64, u64) {
    let total = u
        .cache_creation_input_tokens
        .max(u.cache_creation_5m + u.cache_creation_1h);
    let one_hour = u.cache_creation_1h.min(total);
    (total - one_hour, one_hour)
}

/// The price table in force: the user's overrides, then the built-in rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable {
    overrides: Vec<Rates>,
}

impl PriceTable {
    /// The built-in table alone.
    pub fn embedded() -> PriceTable {
        PriceTable::default()
    }

    /// The built-in table under the `[[usage.prices]]` rows.
    pub fn from_config(cfg: &crate::usage::config::UsageConfig) -> PriceTable {
        PriceTable::with_overrides(&cfg.prices)
    }

    pub fn with_overrides(rows: &[PriceOverride]) -> PriceTable {
        let mut overrides: Vec<Rates> = rows.iter().map(PriceOverride::rates).collect();
        // Longest prefix first, so `claude-opus-5-5` beats `claude-opus`.
        overrides.sort_by_key(|r| std::cmp::Reverse(r.key.len()));
        PriceTable { overrides }
    }

    /// The rates for `model`, `None` when neither the overrides nor the
    /// table know it.
    pub fn rates(&self, model: &str) -> Option<Rates> {
        let m = normalize_model(model);
        if let Some(r) = self.overrides.iter().find(|r| m.starts_with(&r.key)) {
            return Some(r.clone());
        }
        TABLE
            .iter()
            .filter(|r| builtin_matches(&m, r.prefix))
            .max_by_key(|r| r.prefix.len())
            .map(|r| Rates {
                key: r.prefix.to_string(),
                base: r.base,
                long_context: r.long_context,
                fast_multiplier: r.fast,
            })
    }

    /// Prices one request. `at` (seconds since the epoch) selects dated
    /// rules; `None` means "now", when every withdrawn tier is over.
    pub fn price(&self, model: &str, u: &Usage, at: Option<i64>, fast: bool) -> Cost {
        match self.rates(model) {
            Some(r) => price_with(&r, u, at, fast),
            None => Cost::default(),
        }
    }

    /// A stable hash of the overrides, stored with cached costs so a
    /// changed table re-prices them.
    pub fn fingerprint(&self) -> u64 {
        let mut h = crate::usage::store::Fnv::new();
        h.write(PRICES_AS_OF.as_bytes());
        for r in &self.overrides {
            h.write(format!("{r:?}").as_bytes());
        }
        h.finish()
    }
}

/// Prices one request with explicit rates.
pub fn price_with(r: &Rates, u: &Usage, at: Option<i64>, fast: bool) -> Cost {
    let (w5, w1) = cache_write_split(u);
    let prompt = u.input_tokens + w5 + w1 + u.cache_read_input_tokens;
    let tier = r.long_context.filter(|t| {
        prompt > t.above
            && match (t.until, at) {
                (Some(until), Some(at)) => at < until,
                (Some(_), None) => false,
                (None, _) => true,
            }
    });
    let p = tier.map_or(r.base, |t| t.price);
    let mult = if fast { r.fast_multiplier } else { 1.0 };
    let m = |tokens: u64, rate: f64| tokens as f64 * rate * mult / 1_000_000.0;
    Cost {
        input: m(u.input_tokens, p.input),
        output: m(u.output_tokens, p.output),
        cache_write_5m: m(w5, p.cache_write_5m),
        cache_write_1h: m(w1, p.cache_write_1h),
        cache_read: m(u.cache_read_input_tokens, p.cache_read),
        web_search: u.web_search_requests as f64 * WEB_SEARCH_USD,
        known: true,
        long_context: tier.is_some(),
        fast: fast && mult != 1.0,
    }
}

/// Prices one request with the built-in table at today's rules.
pub fn price_usage(model: &str, usage: &Usage) -> Cost {
    PriceTable::embedded().price(model, usage, None, false)
}

/// [`price_usage`] for a request made at `at` (seconds since the epoch).
pub fn price_usage_at(model: &str, usage: &Usage, at: i64) -> Cost {
    PriceTable::embedded().price(model, usage, Some(at), false)
}

/// Model id → base price from the built-in table; `None` when unknown.
pub fn for_model(model: &str) -> Option<Price> {
    PriceTable::embedded().rates(model).map(|r| r.base)
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
    PriceTable::embedded().cost_with_cache(model, input, output, cache_write, cache_read)
}

impl PriceTable {
    /// Dollars of one call by its token counts, with this table; `None`
    /// for a model it does not know.
    pub fn cost_with_cache(
        &self,
        model: &str,
        input: u64,
        output: u64,
        cache_write: u64,
        cache_read: u64,
    ) -> Option<f64> {
        let r = self.rates(model)?;
        let u = Usage {
            input_tokens: input,
            output_tokens: output,
            cache_creation_input_tokens: cache_write,
            cache_read_input_tokens: cache_read,
            ..Usage::default()
        };
        Some(price_with(&r, &u, None, false).total())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn families_resolve_and_unknown_models_have_no_price() {
        assert_eq!(cost("claude-haiku-4-5-20251001", 1_000_000, 0), Some(1.0));
        assert_eq!(cost("claude-haiku-4-5", 0, 1_000_000), Some(5.0));
        assert_eq!(cost("claude-sonnet-4-6", 1_000_000, 1_000_000), Some(18.0));
        assert_eq!(for_model("claude-opus-4-1-20250805").unwrap().input, 15.0);
        assert_eq!(for_model("claude-opus-4-20250514").unwrap().input, 15.0);
        assert_eq!(for_model("claude-opus-4-0").unwrap().input, 15.0);
        assert_eq!(for_model("claude-opus-4-5").unwrap().input, 5.0);
        assert_eq!(for_model("claude-opus-5").unwrap().output, 25.0);
        assert_eq!(for_model("claude-opus-5-5").unwrap().output, 20.0);
        assert_eq!(for_model("claude-3-5-haiku-20241022").unwrap().input, 0.8);
        assert_eq!(for_model("claude-3-7-sonnet-20250219").unwrap().input, 3.0);
        assert_eq!(for_model("claude-sonnet-4-20250514").unwrap().input, 3.0);
        assert_eq!(for_model("claude-sonnet-5").unwrap().input, 2.0);
        assert_eq!(
            for_model("claude-3-haiku-20240307").unwrap().cache_read,
            0.03
        );
        assert_eq!(cost("llama3.2", 10, 10), None);
        let c = cost_with_cache("claude-haiku-4-5", 0, 0, 1_000_000, 1_000_000).unwrap();
        assert!((c - 1.35).abs() < 1e-9, "{c}");
    }

    #[test]
    fn cloud_ids_and_suffixes_resolve_but_new_point_releases_do_not() {
        let t = PriceTable::embedded();
        for id in [
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "claude-sonnet-4-5@20250929",
            "claude-sonnet-4-5[1m]",
            "Claude-Sonnet-4-5",
        ] {
            assert_eq!(t.rates(id).unwrap().key, "claude-sonnet-4-5", "{id}");
        }
        // A release the table does not know is flagged, not priced as 4.
        assert!(t.rates("claude-opus-4-9").is_none());
        assert!(t.rates("claude-opus-5-7").is_none());
        assert!(t.rates("<synthetic>").is_none());
        assert!(!price_usage("gpt-5", &Usage::default()).known);
    }

    #[test]
    fn cache_writes_are_split_by_lifetime() {
        let u = Usage {
            input_tokens: 1_000,
            output_tokens: 2_000,
            cache_creation_input_tokens: 30_000,
            cache_creation_5m: 10_000,
            cache_creation_1h: 20_000,
            cache_read_input_tokens: 400_000,
            ..Usage::default()
        };
        // Opus 4.5: $5 in, $25 out, $6.25 5m, $10 1h, $0.50 read.
        let c = price_usage("claude-opus-4-5-20251101", &u);
        assert!(close(c.input, 0.005), "{c:?}");
        assert!(close(c.output, 0.05));
        assert!(close(c.cache_write_5m, 0.0625));
        assert!(close(c.cache_write_1h, 0.2));
        assert!(close(c.cache_read, 0.2));
        assert!(close(c.total(), 0.5175));
        // The same writes unsplit (older clients) are all 5-minute writes.
        let old = Usage {
            cache_creation_5m: 0,
            cache_creation_1h: 0,
            ..u
        };
        let c = price_usage("claude-opus-4-5", &old);
        assert!(close(c.cache_write_5m, 0.1875) && c.cache_write_1h == 0.0);
        assert_eq!(cache_write_split(&old), (30_000, 0));
    }

    #[test]
    fn long_context_premium_applies_to_the_whole_request() {
        let big = Usage {
            input_tokens: 1_000,
            cache_read_input_tokens: 250_000,
            output_tokens: 10_000,
            ..Usage::default()
        };
        // Sonnet 4.5 above 200K: $6 in, $22.50 out, read 0.60.
        let c = price_usage("claude-sonnet-4-5-20250929", &big);
        assert!(c.long_context);
        assert!(close(
            c.total(),
            (1_000.0 * 6.0 + 250_000.0 * 0.6 + 10_000.0 * 22.5) / 1e6
        ));
        // At exactly 200K the base rates apply.
        let edge = Usage {
            cache_read_input_tokens: 199_000,
            ..big
        };
        assert!(!price_usage("claude-sonnet-4-5", &edge).long_context);
        // Sonnet 4.6: premium only before 2026-03-13.
        let feb = "2026-02-20T10:00:00Z".parse::<jiff::Timestamp>().unwrap();
        let apr = "2026-04-20T10:00:00Z".parse::<jiff::Timestamp>().unwrap();
        assert!(price_usage_at("claude-sonnet-4-6", &big, feb.as_second()).long_context);
        assert!(!price_usage_at("claude-sonnet-4-6", &big, apr.as_second()).long_context);
        assert!(!price_usage("claude-sonnet-4-6", &big).long_context);
        // Haiku 5.5's second price starts above 100K.
        let mid = Usage {
            input_tokens: 150_000,
            ..Usage::default()
        };
        assert!(close(price_usage("claude-haiku-5-5", &mid).total(), 0.075));
    }

    #[test]
    fn fast_mode_and_web_search() {
        let u = Usage {
            input_tokens: 1_000_000,
            web_search_requests: 3,
            ..Usage::default()
        };
        let t = PriceTable::embedded();
        let c = t.price("claude-opus-4-6", &u, None, true);
        assert!(c.fast && close(c.input, 30.0));
        assert!(close(c.web_search, 0.03));
        let c = t.price("claude-opus-5", &u, None, true);
        assert!(close(c.input, 10.0));
        // No fast tier: standard price, not flagged fast.
        let c = t.price("claude-haiku-4-5", &u, None, true);
        assert!(!c.fast && close(c.input, 1.0));
    }

    #[test]
    fn overrides_win_by_longest_prefix() {
        let t = PriceTable::with_overrides(&[
            PriceOverride {
                model: "claude-opus".into(),
                input: 1.0,
                output: 2.0,
                cache_write_5m: None,
                cache_write_1h: None,
                cache_read: Some(0.5),
                long_context_above: 0,
                long_context_input: None,
                long_context_output: None,
                fast_multiplier: None,
            },
            PriceOverride {
                model: "my-local-model".into(),
                input: 0.0,
                output: 0.0,
                cache_write_5m: None,
                cache_write_1h: None,
                cache_read: None,
                long_context_above: 1000,
                long_context_input: Some(1.0),
                long_context_output: None,
                fast_multiplier: None,
            },
        ]);
        let r = t.rates("claude-opus-5-5").unwrap();
        assert_eq!(
            (r.base.input, r.base.cache_read, r.base.cache_write_5m),
            (1.0, 0.5, 1.25)
        );
        assert_eq!(t.rates("claude-sonnet-5").unwrap().base.input, 2.0);
        let u = Usage {
            input_tokens: 2000,
            ..Usage::default()
        };
        let c = t.price("my-local-model-7b", &u, None, false);
        assert!(c.known && c.long_context && close(c.input, 0.002));
        assert_ne!(t.fingerprint(), PriceTable::embedded().fingerprint());
    }
}
