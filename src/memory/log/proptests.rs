//! Properties of the format over generated files and records.

use std::collections::HashMap;

use proptest::prelude::*;

use super::*;

const DATE: &str = "2026-03-21";

/// Lines people and tools actually put in these files, plus noise made of
/// the characters that matter to the format.
fn line() -> impl Strategy<Value = String> {
    let fixed: Vec<&'static str> = vec![
        "",
        "   ",
        "# Log session — 2026-03-21",
        "# Session log — 2026-03-21",
        "# Autre titre",
        "## Contexte",
        "## Context",
        "## À suivre",
        "## A suivre",
        "## To do",
        "## Finalisé",
        "## Done",
        "## Travail produit",
        "## Décisions prises",
        "## Notes",
        "## Liens",
        "##",
        "### Sous-partie",
        "- Revalider découverte skills.",
        "- ✅ Revalider découverte skills.",
        "- Fix A",
        "- Fix A on Windows",
        "- ✅ x",
        "-",
        "- ",
        "  - sous-point",
        "\t- tabulé",
        "* étoile",
        "texte libre",
        "```",
        "```rust",
        "~~~",
        "<!--",
        "<!-- commentaire -->",
        "-->",
        "---",
        "...",
        "> citation",
    ];
    prop_oneof![
        3 => proptest::sample::select(fixed).prop_map(str::to_string),
        1 => "[#\\-✅ ab\\r\\t>*`~<!é]{0,12}",
        1 => "- [a-zA-Z ]{1,10}",
    ]
}

fn file() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(line(), 0..30),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, final_newline)| {
            let nl = if crlf { "\r\n" } else { "\n" };
            let mut text = lines.join(nl);
            if final_newline && !text.is_empty() {
                text.push_str(nl);
            }
            text
        })
}

/// Files whose lines may start with a byte order mark (an editor that saved
/// one part, a concatenation of two files) and hold runs of blank lines.
fn file_with_boms() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        3 => line(),
        1 => Just(String::new()),
        1 => Just("\u{feff}".to_string()),
    ];
    (
        proptest::collection::vec((line, any::<bool>()), 0..20),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, final_newline)| {
            let nl = if crlf { "\r\n" } else { "\n" };
            let lines: Vec<String> = lines
                .into_iter()
                .map(|(l, bom)| if bom { format!("\u{feff}{l}") } else { l })
                .collect();
            let mut text = lines.join(nl);
            if final_newline && !text.is_empty() {
                text.push_str(nl);
            }
            text
        })
}

fn item() -> impl Strategy<Value = String> {
    let fixed: Vec<&'static str> = vec![
        "Revalider découverte skills.",
        "revalider   DÉCOUVERTE skills.",
        "Fix A",
        "Fix A on Windows",
        "x",
        "x\n## À suivre\n- ✅ y",
        "# Log session — 2026-01-01",
        "```",
        "<!-- ouvert",
        "skills",
        "",
    ];
    prop_oneof![
        2 => proptest::sample::select(fixed).prop_map(str::to_string),
        1 => "[#\\-✅ ab\\n\\r\\t>*`é]{0,16}",
    ]
}

fn items() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(item(), 0..4)
}

fn sections() -> impl Strategy<Value = Sections> {
    (
        items(),
        items(),
        items(),
        items(),
        (items(), items(), items(), items()),
    )
        .prop_map(
            |(
                contexte,
                objectif,
                problemes,
                connaissances,
                (travail, decisions, a_suivre, a_suivre_done),
            )| {
                Sections {
                    contexte,
                    objectif,
                    problemes,
                    connaissances,
                    travail,
                    decisions,
                    a_suivre,
                    a_suivre_done,
                    problemes_resolus: Vec::new(),
                    travail_revise: Vec::new(),
                    finalise_earlier: Vec::new(),
                }
            },
        )
}

fn lines_of(text: &str) -> Vec<&str> {
    text.split('\n').map(|l| l.trim_end_matches('\r')).collect()
}

fn is_known_heading(line: &str) -> bool {
    is_heading_line(line) && SectionKey::from_heading(line).is_some()
}

/// Lines that carry content: not blank, not a known heading (rewritten in
/// canonical form).
fn content_counts(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for line in lines_of(text) {
        if !line.trim().is_empty() && !is_known_heading(line) {
            *counts.entry(line.trim_end().to_string()).or_insert(0) += 1;
        }
    }
    counts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn render_then_parse_is_identity(text in file(), en in any::<bool>()) {
        let lang = if en { Lang::En } else { Lang::Fr };
        let log = DailyLog::parse(&text, DATE, lang);
        let rendered = log.render();
        let again = DailyLog::parse(&rendered, DATE, lang);
        prop_assert_eq!(&again, &log);
        prop_assert_eq!(again.render(), rendered);
    }

    /// The first rewrite is final: rewriting it again changes nothing
    /// (a BOM after a blank first line used to gain a blank line on the
    /// second rewrite).
    #[test]
    fn the_first_rewrite_is_a_fixed_point(text in file_with_boms(), en in any::<bool>()) {
        let lang = if en { Lang::En } else { Lang::Fr };
        let once = DailyLog::parse(&text, DATE, lang).render();
        let twice = DailyLog::parse(&once, DATE, lang).render();
        prop_assert_eq!(twice, once);
    }

    #[test]
    fn every_line_of_content_survives(text in file()) {
        let rendered = DailyLog::parse(&text, DATE, Lang::Fr).render();
        let out = content_counts(&rendered);
        for (line, n) in content_counts(&text) {
            prop_assert!(
                out.get(&line).copied().unwrap_or(0) >= n,
                "line {:?} lost (x{}) in {:?}", line, n, rendered
            );
        }
    }

    #[test]
    fn merging_twice_is_merging_once(text in file(), record in sections()) {
        let mut log = DailyLog::parse(&text, DATE, Lang::Fr);
        log.merge(&record, 60);
        let once = log.render();
        let second = log.merge(&record, 60);
        prop_assert_eq!(log.render(), once);
        prop_assert_eq!(second.added, 0);
        prop_assert!(second.finalized.is_empty());
    }

    #[test]
    fn merged_logs_round_trip(text in file(), record in sections()) {
        let mut log = DailyLog::parse(&text, DATE, Lang::Fr);
        log.merge(&record, 60);
        let reread = DailyLog::parse(&log.render(), DATE, Lang::Fr);
        prop_assert_eq!(reread, log);
    }

    #[test]
    fn generated_logs_round_trip(first in sections(), second in sections(), en in any::<bool>()) {
        let lang = if en { Lang::En } else { Lang::Fr };
        let mut log = DailyLog::new(DATE, lang);
        log.merge(&first, 400);
        log.merge(&second, 400);
        prop_assert_eq!(DailyLog::parse(&log.render(), DATE, Lang::Fr), log);
    }

    #[test]
    fn merge_only_moves_finalised_todos(text in file(), record in sections()) {
        let mut log = DailyLog::parse(&text, DATE, Lang::Fr);
        let before = content_counts(&log.render());
        let before_total: usize = before.values().sum();
        let outcome = log.merge(&record, 60);
        let after_text = log.render();
        let after = content_counts(&after_text);
        let mut moved: HashMap<String, usize> = HashMap::new();
        for text in &outcome.finalized {
            *moved.entry(text.clone()).or_insert(0) += 1;
        }
        for (line, n) in before {
            let kept = after.get(&line).copied().unwrap_or(0);
            if kept >= n {
                continue;
            }
            let bullet = line.strip_prefix("- ").map(str::trim).unwrap_or_default();
            let slot = moved.get_mut(bullet);
            prop_assert!(
                slot.as_ref().is_some_and(|m| **m >= n - kept),
                "line {:?} removed by merge: {:?}", line, after_text
            );
            *slot.unwrap() -= n - kept;
        }
        let after_total: usize = after.values().sum();
        prop_assert!(after_total <= before_total + outcome.added);
    }

    #[test]
    fn clean_bullet_is_one_line_and_capped(s in "\\PC*|[#\\-*> \\n\\r\\t✅]{0,30}x?", max in 0usize..50) {
        if let Some(b) = clean_bullet(&s, max) {
            prop_assert!(!b.is_empty());
            prop_assert!(b.chars().count() <= max);
            prop_assert!(!b.chars().any(|c| c.is_control() || (c.is_whitespace() && c != ' ')));
            prop_assert_eq!(b.trim(), b.as_str());
            prop_assert!(clean_bullet(&b, max).is_some());
        }
    }

    #[test]
    fn long_memory_appends_one_block(existing in file(), body in "[#\\- ab\\n]{0,40}") {
        let out = append_long_memory(&existing, "root", DATE, &body, Lang::Fr);
        prop_assert!(out.starts_with(&existing) || existing.trim().is_empty());
        let added = if existing.trim().is_empty() { out.as_str() } else { &out[existing.len()..] };
        for line in lines_of(added) {
            let top = line.starts_with("# ") || line.starts_with("## ") || line == "#" || line == "##";
            prop_assert!(
                !top || line == "## 2026-03-21" || line == "# Mémoire long terme — root",
                "heading {:?} injected", line
            );
        }
    }
}
