//! The status line's pure renderer: segments, formats, colours and width,
//! with made-up facts (no files, no clock).

use cairn::statusline::style::{strip_ansi, visible_width};
use cairn::statusline::{
    ColorMode, ContextFill, Facts, Input, MemoryState, SegmentName, SessionSpend, StatuslineConfig,
    TodaySpend, render,
};
use proptest::prelude::*;

fn payload(model: &str, window: Option<u64>, usage: Option<[u64; 4]>) -> Input {
    let cw = serde_json::json!({
        "context_window_size": window,
        "current_usage": usage.map(|[i, o, cc, cr]| serde_json::json!({
            "input_tokens": i, "output_tokens": o,
            "cache_creation_input_tokens": cc, "cache_read_input_tokens": cr,
        })),
    });
    let v = serde_json::json!({
        "session_id": "s1",
        "model": {"id": model, "display_name": model},
        "workspace": {"current_dir": "/home/u/cairn", "project_dir": "/home/u/cairn"},
        "cost": {"total_cost_usd": 9.99},
        "context_window": cw,
    });
    Input::parse(v.to_string().as_bytes()).unwrap()
}

fn opus() -> Input {
    payload("Opus 5.5", Some(1_000_000), Some([23, 63, 1013, 21300]))
}

/// The facts a healthy session has: every segment has something to say.
fn full_facts(tokens: u64, window: u64) -> Facts {
    let (warn, hard) = if window > 200_000 {
        (180_000, 240_000)
    } else {
        (window * 3 / 5, window * 4 / 5)
    };
    Facts {
        branch: Some("main".into()),
        context: Some(ContextFill {
            tokens,
            window: Some(window),
            warn,
            hard,
            client_percent: None,
        }),
        spend: Some(SessionSpend {
            total_usd: 1.234,
            main_usd: 0.9,
            subagents: 3,
            subagents_usd: 0.334,
            unpriced: false,
        }),
        spend_failed: false,
        today: Some(TodaySpend {
            total_usd: 12.5,
            memory_usd: 0.02,
            partial: false,
            problems: Vec::new(),
        }),
        memory: Some(MemoryState {
            pending: 2,
            bullets_today: 14,
            state_unwritable: false,
        }),
        now: 1_796_040_000,
        errors: Vec::new(),
    }
}

const FULL: &str = "Opus 5.5 | cairn | main | ctx 2% 22k/1M | session $1.23 | agents 3 $0.33 \
                    | today $12.50 | notes 14 queued 2";

fn plain(input: &Input, facts: &Facts, width: usize) -> String {
    render(input, facts, &StatuslineConfig::default(), width, false)
}

#[test]
fn every_segment_in_the_documented_order() {
    assert_eq!(plain(&opus(), &full_facts(22_336, 1_000_000), 200), FULL);
}

#[test]
fn identity_only_when_nothing_else_is_known() {
    assert_eq!(
        plain(&opus(), &Facts::default(), 200),
        "Opus 5.5 | cairn",
        "absent facts leave their segments out, with no stray separator"
    );
}

#[test]
fn quiet_segments_hide_themselves() {
    let mut f = full_facts(0, 1_000_000);
    f.spend.as_mut().unwrap().subagents = 0;
    f.memory.as_mut().unwrap().pending = 0;
    assert_eq!(
        plain(&opus(), &f, 200),
        "Opus 5.5 | cairn | main | ctx 0% 0/1M | session $1.23 | today $12.50 | notes 14"
    );
    let mut cfg = StatuslineConfig::default();
    cfg.subagents.show_zero = true;
    assert!(render(&opus(), &f, &cfg, 200, false).contains("| agents 0 $0.33 |"));
}

#[test]
fn one_million_window_thresholds_colour_the_fill() {
    let cases = [
        (22_336, "ctx 2% 22k/1M", "\x1b[32m"),
        (179_999, "ctx 17% 179k/1M", "\x1b[32m"),
        (180_000, "ctx 18% 180k/1M", "\x1b[33m"),
        (250_000, "ctx 25% 250k/1M", "\x1b[1;31m"),
    ];
    for (tokens, text, colour) in cases {
        let f = full_facts(tokens, 1_000_000);
        let coloured = render(&opus(), &f, &StatuslineConfig::default(), 200, true);
        assert!(
            coloured.contains(&format!("{colour}{text}\x1b[0m")),
            "{tokens}: {coloured:?}"
        );
    }
}

#[test]
fn two_hundred_k_window() {
    let input = payload("Sonnet 4.5", Some(200_000), Some([5, 10, 0, 130_000]));
    let f = full_facts(130_005, 200_000);
    let coloured = render(&input, &f, &StatuslineConfig::default(), 200, true);
    assert!(
        coloured.contains("\x1b[33mctx 65% 130k/200k\x1b[0m"),
        "{coloured:?}"
    );
}

#[test]
fn unknown_window_shows_tokens_without_percent_and_unstyled() {
    let input = payload("gpt-9", None, Some([1, 1, 0, 5000]));
    let mut f = full_facts(5001, 1);
    f.context = Some(ContextFill {
        tokens: 5001,
        window: None,
        warn: 0,
        hard: 0,
        client_percent: None,
    });
    let coloured = render(&input, &f, &StatuslineConfig::default(), 200, true);
    assert!(coloured.contains(" | ctx 5k | "), "{coloured:?}");
    assert!(!coloured.contains("\x1b[32mctx"), "no level, no colour");
}

#[test]
fn colour_off_is_the_same_text_without_escapes() {
    let f = full_facts(22_336, 1_000_000);
    let cfg = StatuslineConfig::default();
    let on = render(&opus(), &f, &cfg, 200, true);
    let off = render(&opus(), &f, &cfg, 200, false);
    assert!(on.contains("\x1b["));
    assert!(!off.contains('\x1b'));
    assert_eq!(strip_ansi(&on), off);
    assert!(on.starts_with("\x1b[1mOpus 5.5\x1b[0m | "), "{on:?}");
    assert!(on.contains(" | \x1b[2mnotes 14 queued 2\x1b[0m"), "{on:?}");
}

#[test]
fn no_color_and_config_decide_colour() {
    use cairn::context::Env;
    let env = Env::from_pairs([("NO_COLOR", "1")]);
    assert!(!ColorMode::Auto.enabled(&env));
    assert!(ColorMode::Always.enabled(&env));
    assert!(!ColorMode::Never.enabled(&Env::default()));
}

#[test]
fn width_drops_whole_segments_from_the_tail() {
    let f = full_facts(22_336, 1_000_000);
    let full: Vec<&str> = FULL.split(" | ").collect();
    let mut seen = std::collections::BTreeSet::new();
    for width in 1..=FULL.len() + 5 {
        let line = plain(&opus(), &f, width);
        let vis = visible_width(&line);
        if width >= "Opus 5.5".len() {
            assert!(vis <= width, "width {width}: {line:?}");
            let kept: Vec<&str> = line.split(" | ").collect();
            assert_eq!(kept, full[..kept.len()], "head kept at {width}");
            // As wide as possible: the next segment would not have fitted.
            if kept.len() < full.len() {
                assert!(
                    vis + 3 + full[kept.len()].len() > width,
                    "{width}: {line:?}"
                );
            }
        } else {
            assert_eq!(vis, width, "the first segment is cut to fit: {line:?}");
            assert!(line.ends_with('…'));
        }
        seen.insert(line.split(" | ").count());
    }
    assert_eq!(
        seen.len(),
        full.len(),
        "every segment count appears: {seen:?}"
    );
    let coloured = render(&opus(), &f, &StatuslineConfig::default(), 40, true);
    assert_eq!(
        strip_ansi(&coloured),
        "Opus 5.5 | cairn | main | ctx 2% 22k/1M"
    );
}

#[test]
fn order_on_off_and_formats_are_configurable() {
    let f = full_facts(22_336, 1_000_000);
    let mut cfg = StatuslineConfig {
        segments: vec![SegmentName::Context, SegmentName::Model, SegmentName::Cost],
        separator: " · ".into(),
        ..StatuslineConfig::default()
    };
    cfg.cost.disabled = true;
    // Parentheses make a conditional group; escaped, they are text.
    cfg.context.format = "$tokens of $window \\($percent%, warn $warn\\)".into();
    cfg.model.format = "[$id]".into();
    assert_eq!(
        render(&opus(), &f, &cfg, 200, false),
        "22k of 1M (2%, warn 180k) · [Opus 5.5]"
    );

    let toml_cfg: StatuslineConfig = toml::from_str(
        r#"
        segments = ["model", "cost", "today"]
        [cost]
        format = "$cost( of which $main main)"
        [today]
        format = "day $cost( mem $memory)"
        "#,
    )
    .unwrap();
    assert_eq!(
        render(&opus(), &f, &toml_cfg, 200, false),
        "Opus 5.5 | $1.23 of which $0.90 main | day $12.50 mem $0.02"
    );
}

#[test]
fn client_estimate_only_as_a_labelled_fallback() {
    let mut f = full_facts(22_336, 1_000_000);
    f.spend = None;
    assert!(
        !plain(&opus(), &f, 200).contains("9.99"),
        "no figure, no fallback"
    );
    f.spend_failed = true;
    assert!(plain(&opus(), &f, 200).contains("| session $9.99 (client est.) |"));
    let mut cfg = StatuslineConfig::default();
    cfg.cost.client_fallback = false;
    assert!(!render(&opus(), &f, &cfg, 200, false).contains("9.99"));
}

#[test]
fn hostile_text_cannot_reach_the_terminal_raw() {
    let mut f = full_facts(1, 1_000_000);
    f.branch = Some("evil\x1b]0;pwned\x07".into());
    let line = plain(&opus(), &f, 200);
    assert!(!line.contains('\x1b') && !line.contains('\x07'), "{line:?}");
}

fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 ._-]{1,30}",
        "[日本語한국어éè ]{1,12}",
        "\\PC{1,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Whatever the names and figures, the line never takes more columns
    /// than allowed once the first segment fits, and it is a head of the
    /// full line.
    #[test]
    fn never_wider_than_the_limit(
        model in arb_text(),
        project in "[a-zA-Z0-9日本._-]{1,40}",
        branch in arb_text(),
        tokens in 0u64..2_000_000,
        window in prop_oneof![Just(200_000u64), Just(1_000_000u64)],
        usd in 0.0f64..5000.0,
        width in 1usize..220,
        color in any::<bool>(),
    ) {
        let v = serde_json::json!({
            "model": {"display_name": model},
            "workspace": {"project_dir": format!("/x/{project}")},
        });
        let input = Input::parse(v.to_string().as_bytes()).unwrap();
        let mut f = full_facts(tokens, window);
        f.branch = Some(branch);
        f.spend.as_mut().unwrap().total_usd = usd;
        let cfg = StatuslineConfig::default();
        let line = render(&input, &f, &cfg, width, color);
        let full = render(&input, &f, &cfg, 100_000, false);
        let first = full.split(" | ").next().unwrap().to_string();
        prop_assert!(!line.is_empty());
        if visible_width(&first) <= width {
            prop_assert!(visible_width(&line) <= width, "{:?} at {}", line, width);
            prop_assert!(full.starts_with(&strip_ansi(&line)));
        } else {
            // Cut to fit; a wide character that would straddle the edge
            // leaves one column free.
            prop_assert!(visible_width(&line) <= width, "{:?} at {}", line, width);
            prop_assert!(strip_ansi(&line).ends_with('…'));
        }
    }
}

#[test]
fn unpriced_tokens_make_the_figures_a_floor() {
    let mut f = full_facts(22_336, 1_000_000);
    f.spend.as_mut().unwrap().unpriced = true;
    assert!(plain(&opus(), &f, 200).contains("| session $1.23+ | agents 3 $0.33+ |"));
}
