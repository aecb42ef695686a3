//! Properties of the three-way merge: no bullet of either side is lost.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;

use super::doc::{Doc, SectionId};
use super::three_way::merge;
use crate::extract::record::Sections;
use crate::memory::log::{DailyLog, Lang, SectionKey};

const DATE: &str = "2026-11-30";
const SECTIONS: [SectionKey; 3] = [
    SectionKey::Contexte,
    SectionKey::Travail,
    SectionKey::ASuivre,
];

/// Every bullet key of a file, with the sections holding it.
fn placement(text: &str) -> HashMap<String, Vec<SectionId>> {
    let mut out: HashMap<String, Vec<SectionId>> = HashMap::new();
    for s in Doc::parse(text).sections {
        for u in &s.units {
            if let Some(k) = u.id.bullet_key() {
                out.entry(k.to_string()).or_default().push(s.id.clone());
            }
        }
    }
    out
}

fn known(key: SectionKey) -> SectionId {
    SectionId::Known(key, 0)
}

/// One side's day: the ancestor's bullets it kept (in order), those it
/// added, then the to-dos it finalised, written by cairn's own log writer.
#[derive(Debug, Clone)]
struct Side {
    keep: Vec<bool>,
    finalise: Vec<bool>,
    added: Vec<(usize, u8)>,
}

fn side() -> impl Strategy<Value = Side> {
    (
        proptest::collection::vec(prop::bool::weighted(0.8), 12),
        proptest::collection::vec(prop::bool::weighted(0.3), 12),
        proptest::collection::vec((0usize..3, 0u8..12), 0..8),
    )
        .prop_map(|(keep, finalise, mut added)| {
            // A side writes each new bullet once.
            let mut seen = HashSet::new();
            added.retain(|(_, n)| seen.insert(*n));
            Side {
                keep,
                finalise,
                added,
            }
        })
}

fn base_items(present: &[bool]) -> Vec<(usize, String)> {
    present
        .iter()
        .enumerate()
        .filter(|(_, p)| **p)
        .map(|(i, _)| (i % 3, format!("item {i}")))
        .collect()
}

fn write(items: &[(usize, String)], done: &[String]) -> String {
    let mut record = Sections::default();
    for (s, text) in items {
        let list = match SECTIONS[*s] {
            SectionKey::Contexte => &mut record.contexte,
            SectionKey::Travail => &mut record.travail,
            _ => &mut record.a_suivre,
        };
        list.push(text.clone());
    }
    let mut log = DailyLog::new(DATE, Lang::Fr);
    log.merge(&record, 400);
    log.merge(
        &Sections {
            a_suivre_done: done.to_vec(),
            ..Sections::default()
        },
        400,
    );
    if log.is_empty() {
        String::new()
    } else {
        log.render()
    }
}

fn side_text(base: &[(usize, String)], s: &Side) -> String {
    let mut items: Vec<(usize, String)> = base
        .iter()
        .filter(|(_, t)| s.keep[t[5..].parse::<usize>().unwrap()])
        .cloned()
        .collect();
    for (sec, n) in &s.added {
        items.push((*sec, format!("new {n}")));
    }
    let done: Vec<String> = items
        .iter()
        .filter(|(sec, t)| {
            *sec == 2 && t.starts_with("item") && s.finalise[t[5..].parse::<usize>().unwrap()]
        })
        .map(|(_, t)| t.clone())
        .collect();
    write(&items, &done)
}

/// Lines people put in memory files, for the merge of arbitrary text.
fn line() -> impl Strategy<Value = String> {
    let fixed: Vec<&'static str> = vec![
        "",
        "# Log session — 2026-11-30",
        "# Autre titre",
        "## Contexte",
        "## Context",
        "## À suivre",
        "## To do",
        "## Finalisé",
        "## Notes",
        "## 2026-11-30",
        "- A",
        "- b",
        "- ✅ A",
        "- ✅ c",
        "  - sous-point",
        "texte libre",
        "```",
        "<!--",
        "-->",
        "---",
    ];
    prop_oneof![
        4 => proptest::sample::select(fixed).prop_map(str::to_string),
        1 => "- [a-e]{1,2}",
        1 => "[#\\- ✅ab`~<!]{0,6}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(line(), 0..16).prop_map(|lines| {
        let mut t = lines.join("\n");
        t.push('\n');
        t
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Two days of cairn-written logs from one ancestor: every bullet either
    /// side added is there once, every bullet both kept is there once, a
    /// bullet one side deleted while the other left it alone is gone, and a
    /// to-do finalised on either side is not open any more.
    #[test]
    fn logs_merge_without_losing_or_doubling_bullets(
        present in proptest::collection::vec(prop::bool::weighted(0.6), 12),
        a in side(),
        b in side(),
    ) {
        let items = base_items(&present);
        let base = write(&items, &[]);
        let (ours, theirs) = (side_text(&items, &a), side_text(&items, &b));
        let merged = merge(&base, &ours, &theirs).unwrap_or_else(|c| panic!("{c}\n{base}\n--\n{ours}\n--\n{theirs}"));
        let (po, pa, pb, pm) = (placement(&base), placement(&ours), placement(&theirs), placement(&merged));
        for (k, places) in &pm {
            prop_assert_eq!(places.len(), 1, "{} twice in\n{}", k, merged);
        }
        for k in pa.keys().chain(pb.keys()) {
            let deleted_by = |mine: &HashMap<String, Vec<SectionId>>, other: &HashMap<String, Vec<SectionId>>| {
                po.contains_key(k) && !mine.contains_key(k) && other.get(k) == po.get(k)
            };
            if deleted_by(&pa, &pb) || deleted_by(&pb, &pa) {
                prop_assert!(!pm.contains_key(k), "{} deleted on one side yet in\n{}", k, merged);
            } else {
                prop_assert!(pm.contains_key(k), "{} lost from\n{}\n--\n{}\n--\n{}", k, merged, ours, theirs);
            }
        }
        let done = |p: &HashMap<String, Vec<SectionId>>| -> HashSet<String> {
            p.iter().filter(|(_, s)| s.contains(&known(SectionKey::Finalise))).map(|(k, _)| k.clone()).collect()
        };
        for k in done(&pa).union(&done(&pb)) {
            prop_assert_eq!(pm.get(k), Some(&vec![known(SectionKey::Finalise)]), "{} in\n{}", k, merged);
        }
        // The same bullets whichever side is ours.
        let swapped = merge(&base, &theirs, &ours).unwrap();
        let keys = |p: &HashMap<String, Vec<SectionId>>| p.keys().cloned().collect::<HashSet<_>>();
        prop_assert_eq!(keys(&pm), keys(&placement(&swapped)));
    }

    /// Arbitrary text (unknown sections, fences, comments, titles): the merge
    /// never panics, and when it succeeds no bullet either side added is lost.
    #[test]
    fn arbitrary_text_never_loses_an_added_bullet(o in text(), a in text(), b in text()) {
        if let Ok(merged) = merge(&o, &a, &b) {
            let (po, pm) = (placement(&o), placement(&merged));
            for k in placement(&a).keys().chain(placement(&b).keys()) {
                if !po.contains_key(k) {
                    prop_assert!(pm.contains_key(k), "{:?} lost:\n{}\n--\n{}\n--\n{}\n==\n{}", k, o, a, b, merged);
                }
            }
            // Nor any other line either side added (bullets are the same by
            // key, checked above), but the heading of a log section, which
            // both sides may spell their own way.
            let lines = |t: &str| -> HashSet<String> { t.lines().map(str::to_string).collect() };
            let (lo, lm) = (lines(&o), lines(&merged));
            for l in lines(&a).union(&lines(&b)) {
                let known_heading = l.starts_with("##") && SectionKey::from_heading(l).is_some();
                let bullet = super::doc::bullet_text(l).is_some();
                if !lo.contains(l) && !l.trim().is_empty() && !known_heading && !bullet {
                    prop_assert!(lm.contains(l), "line {:?} lost:\n{}\n--\n{}\n--\n{}\n==\n{}", l, o, a, b, merged);
                }
            }
            // Merging the result with itself is the result.
            prop_assert_eq!(merge(&o, &merged, &merged).unwrap(), merged.clone());
        }
    }
}
