//! Unit tests of the guard: thresholds, the decision table, the note's
//! pieces. End-to-end behaviour (ratchet across calls, concurrency, the
//! fault matrix) is in `tests/guard_*.rs`.

use super::*;
use crate::memory::log::Lang;

fn cfg() -> GuardConfig {
    GuardConfig::default()
}

#[test]
fn defaults_are_the_documented_ones() {
    let c = cfg();
    assert!(c.enabled);
    assert_eq!((c.warn_tokens, c.hard_tokens), (120_000, 160_000));
    assert_eq!((c.warn_tokens_1m, c.hard_tokens_1m), (180_000, 240_000));
}

#[test]
fn table_recognises_1m_models_and_families() {
    for m in [
        "claude-opus-5-5",
        "claude-opus-4-8",
        "claude-opus-4.7",
        "us.anthropic.claude-opus-4-8-v1:0",
        "claude-sonnet-5",
        "claude-fable-5",
        "claude-sonnet-4-6[1m]",
        "opus[1m]",
        "Opus 4.6 (1M context)",
    ] {
        assert_eq!(table_window(m, false), Some(WINDOW_1M), "{m}");
        assert_eq!(
            table_window(m, true),
            Some(WINDOW_200K),
            "{m} with 1M disabled"
        );
    }
    for m in [
        "claude-sonnet-4-6",
        "claude-opus-4-6",
        "claude-opus-4-5-20251101",
        "claude-haiku-4-5",
        "claude-3-5-sonnet-20241022",
        "claude-sonnet-4-5",
    ] {
        assert_eq!(table_window(m, false), Some(WINDOW_200K), "{m}");
    }
    for m in ["gpt-5", "my-gateway-model", "", "<synthetic>"] {
        assert_eq!(table_window(m, false), None, "{m}");
    }
}

#[test]
fn thresholds_per_window_class() {
    let c = cfg();
    let l = c.limits(Some("claude-haiku-4-5"), None, false).unwrap();
    assert_eq!((l.window, l.warn, l.hard), (200_000, 120_000, 160_000));
    assert_eq!(l.source, WindowSource::Table);
    let l = c.limits(Some("claude-opus-5-5"), None, false).unwrap();
    assert_eq!((l.window, l.warn, l.hard), (1_000_000, 180_000, 240_000));
    // A smaller window scales the 200K levels down.
    assert_eq!(c.thresholds_for_window(100_000), (60_000, 80_000));
    // A mid-size window keeps the large levels under the 200K shares.
    assert_eq!(c.thresholds_for_window(256_000), (153_600, 204_800));
    assert_eq!(c.thresholds_for_window(400_000), (180_000, 240_000));
    assert!(c.limits(Some("gpt-5"), None, false).is_none());
    assert!(c.limits(None, None, false).is_none());
}

#[test]
fn the_status_line_window_wins_for_the_same_model_only() {
    let c = cfg();
    // The transcript says `claude-sonnet-4-6`; the status line saw the 1M variant.
    let l = c
        .limits(
            Some("claude-sonnet-4-6"),
            Some((1_000_000, Some("claude-sonnet-4-6[1m]"))),
            false,
        )
        .unwrap();
    assert_eq!(
        (l.window, l.warn, l.source),
        (1_000_000, 180_000, WindowSource::StatusLine)
    );
    // Recorded for another model (a `/model` switch since): ignored.
    let l = c
        .limits(
            Some("claude-haiku-4-5"),
            Some((1_000_000, Some("claude-opus-5-5"))),
            false,
        )
        .unwrap();
    assert_eq!((l.window, l.source), (200_000, WindowSource::Table));
    // An unknown model with a known window is guarded.
    let l = c
        .limits(Some("gpt-5"), Some((400_000, None)), false)
        .unwrap();
    assert_eq!((l.warn, l.hard), (180_000, 240_000));
    // Garbage windows are not windows.
    let l = c
        .limits(Some("claude-haiku-4-5"), Some((7, None)), false)
        .unwrap();
    assert_eq!(l.window, 200_000);
}

#[test]
fn config_rules_override_window_and_levels() {
    let mut c = cfg();
    c.models = vec![
        ModelRule {
            pattern: "Haiku".into(),
            window: None,
            warn: Some(100_000),
            hard: None,
        },
        ModelRule {
            pattern: "gateway".into(),
            window: Some(128_000),
            warn: None,
            hard: Some(100_000),
        },
    ];
    let l = c.limits(Some("claude-haiku-4-5"), None, false).unwrap();
    assert_eq!((l.window, l.warn, l.hard), (200_000, 100_000, 160_000));
    let l = c.limits(Some("my-gateway-model"), None, false).unwrap();
    assert_eq!((l.window, l.warn, l.hard), (128_000, 76_800, 100_000));
    assert_eq!(l.source, WindowSource::Config);
    // The status line still wins over a rule's window.
    let l = c
        .limits(Some("my-gateway-model"), Some((64_000, None)), false)
        .unwrap();
    assert_eq!((l.window, l.source), (64_000, WindowSource::StatusLine));
}

#[test]
fn config_parses_from_toml_and_rejects_unknown_keys() {
    let text = r#"
        enabled = true
        warn_tokens = 100000
        [[models]]
        match = "haiku"
        hard = 150000
    "#;
    let c: GuardConfig = toml::from_str(text).unwrap();
    assert_eq!(c.warn_tokens, 100_000);
    assert_eq!(c.hard_tokens, 160_000);
    assert_eq!(c.models[0].hard, Some(150_000));
    assert!(toml::from_str::<GuardConfig>("warn = 1").is_err());
    assert!(toml::from_str::<GuardConfig>("[[models]]\nmatch = \"x\"\nwidow = 1").is_err());
    // The defaults survive the round trip the config loader does.
    let v = toml::Value::try_from(GuardConfig::default()).unwrap();
    assert_eq!(v.try_into::<GuardConfig>().unwrap(), GuardConfig::default());
}

fn limits() -> Limits {
    cfg().limits(Some("claude-haiku-4-5"), None, false).unwrap()
}

fn fired(level: Level, msg: &str) -> Ratchet {
    let mut r = Ratchet::default();
    r.record_fire(Fire {
        level,
        message_id: Some(msg.into()),
        ..Fire::default()
    });
    r
}

fn action(r: &Ratchet, fill: u64, msg: &str) -> String {
    match decide(r, &limits(), fill, Some(msg)) {
        Action::Nothing(q) => format!("{q:?}"),
        Action::Rearm => "Rearm".into(),
        Action::Fire(l) => format!("Fire({})", l.as_str()),
    }
}

#[test]
fn decision_table() {
    let none = Ratchet::default();
    assert_eq!(action(&none, 119_999, "m"), "Below");
    assert_eq!(action(&none, 120_000, "m"), "Fire(warn)");
    // A jump past both levels fires the hard one directly.
    assert_eq!(action(&none, 170_000, "m"), "Fire(hard)");
    let warned = fired(Level::Warn, "m1");
    assert_eq!(action(&warned, 130_000, "m2"), "AlreadyFired");
    assert_eq!(action(&warned, 160_000, "m2"), "Fire(hard)");
    assert_eq!(action(&warned, 160_000, "m1"), "SameRecord");
    // Shrunk below every level: a compaction happened.
    assert_eq!(action(&warned, 20_000, "m3"), "Rearm");
    let hard = fired(Level::Hard, "m1");
    assert_eq!(action(&hard, 199_000, "m2"), "AlreadyFired");
    // Between the levels after a hard fire: not a compaction, no re-arm.
    assert_eq!(action(&hard, 130_000, "m2"), "AlreadyFired");
    assert_eq!(action(&hard, 10, "m2"), "Rearm");
    // Re-armed by a compaction, the stale record that fired stays quiet.
    let mut rearmed = hard.clone();
    rearmed.rearm();
    assert_eq!(action(&rearmed, 170_000, "m1"), "SameRecord");
    assert_eq!(action(&rearmed, 125_000, "m9"), "Fire(warn)");
}

#[test]
fn zero_turns_a_level_off() {
    let l = Limits {
        window: 200_000,
        warn: 0,
        hard: 160_000,
        source: WindowSource::Table,
    };
    assert_eq!(l.level(150_000), Level::None);
    assert_eq!(l.level(160_000), Level::Hard);
    assert!(l.below_all(150_000));
    let off = Limits { hard: 0, ..l };
    assert_eq!(off.level(u64::MAX), Level::None);
}

#[test]
fn file_ids_never_leave_the_folder() {
    assert_eq!(
        file_id("592d55cf-11d7-4a1b-99fa-bf536f8ae9a6").as_deref(),
        Some("592d55cf-11d7-4a1b-99fa-bf536f8ae9a6")
    );
    for bad in ["../../etc/passwd", "a/b", "x y", &"z".repeat(500)] {
        let id = file_id(bad).unwrap();
        assert!(id.starts_with("h-") && id.len() == 18, "{bad} -> {id}");
    }
    assert_eq!(file_id(""), None);
    assert_eq!(file_id("  "), None);
    assert_ne!(file_id("a/b"), file_id("a/c"));
}

#[test]
fn digits_are_grouped_per_language() {
    assert_eq!(group_digits(124_000, Lang::En), "124,000");
    assert_eq!(group_digits(1_000_000, Lang::Fr), "1 000 000");
    assert_eq!(group_digits(999, Lang::En), "999");
    assert_eq!(group_digits(0, Lang::En), "0");
}

#[test]
fn paths_are_shown_relative_to_the_root() {
    let root = Path::new("/work/proj");
    assert_eq!(
        note::display_path("/work/proj/src/a.rs", root, None),
        "src/a.rs"
    );
    assert_eq!(
        note::display_path("b.rs", root, Some("/work/proj/sub")),
        "sub/b.rs"
    );
    assert_eq!(note::display_path("/etc/hosts", root, None), "/etc/hosts");
    assert_eq!(note::display_path("rel.rs", root, None), "rel.rs");
}

#[test]
fn hook_output_is_the_block_json() {
    let b = Outcome::Block(Blocked {
        level: Level::Warn,
        fill: 1,
        limits: limits(),
        checkpoint: PathBuf::from("/x.md"),
        wrote_checkpoint: true,
        reason: "R".into(),
        system_message: "S".into(),
    });
    assert_eq!(
        b.hook_output().unwrap(),
        r#"{"decision":"block","reason":"R","systemMessage":"S"}"#
    );
    assert_eq!(Outcome::Silent(Quiet::Below).hook_output(), None);
    assert_eq!(Outcome::Rearmed.hook_output(), None);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    /// A turn: a new usage record at some fill, or a compaction
    /// (`SessionStart` with `source: compact`).
    #[derive(Debug, Clone)]
    enum Step {
        Fill(u64),
        Compact,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            8 => (0u64..220_000).prop_map(Step::Fill),
            1 => Just(Step::Compact),
        ]
    }

    proptest! {
        /// Between two armings each level fires at most once; a level is
        /// never skipped silently (crossing it with the ratchet below it
        /// fires); the ratchet never goes down without a re-arm.
        #[test]
        fn each_level_fires_at_most_once_per_arming(steps in prop::collection::vec(step(), 1..60)) {
            let l = limits();
            let mut r = Ratchet::default();
            let mut fired_since_arm: Vec<Level> = Vec::new();
            for (i, s) in steps.iter().enumerate() {
                let msg = format!("m{i}");
                match s {
                    Step::Compact => {
                        r.rearm();
                        fired_since_arm.clear();
                    }
                    Step::Fill(fill) => {
                        let before = r.level;
                        match decide(&r, &l, *fill, Some(&msg)) {
                            Action::Fire(level) => {
                                prop_assert!(level > before);
                                prop_assert!(!fired_since_arm.contains(&level));
                                prop_assert_eq!(level, l.level(*fill));
                                fired_since_arm.push(level);
                                r.record_fire(Fire { level, message_id: Some(msg), ..Fire::default() });
                            }
                            Action::Rearm => {
                                prop_assert!(l.below_all(*fill));
                                r.rearm();
                                fired_since_arm.clear();
                            }
                            Action::Nothing(q) => {
                                prop_assert!(l.level(*fill) <= r.level, "{:?} at {}", q, fill);
                                prop_assert_ne!(q, Quiet::SameRecord);
                            }
                        }
                    }
                }
            }
        }
    }
}
