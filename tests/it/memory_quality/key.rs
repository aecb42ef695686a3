//! The labelled key (`tests/fixtures/real_sessions/key.toml`): what a good
//! memory must hold for each real session, and what it must never hold.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The section keys of a daily log, as the key names them.
pub const SECTIONS: [&str; 8] = [
    "contexte",
    "objectif",
    "problemes",
    "connaissances",
    "travail",
    "decisions",
    "a_suivre",
    "finalise",
];

/// The splits of the key: `dev` may be tuned on; `holdout` is for measuring
/// only; `fresh` holds sessions from a newer source, labelled before cairn
/// was run on them, measured and listed like dev, with no floor until
/// `min_recall_fresh` sets one; `fresh2` holds sessions of a fourth source,
/// labelled before cairn was run on them after `fresh` had been tuned on,
/// measured and listed like `fresh`, with no floor until
/// `min_recall_fresh2` sets one; `fresh3` likewise (`min_recall_fresh3`), a
/// fifth source labelled before cairn was run on it after `fresh2` had been
/// tuned on; `fresh4` to `fresh30` likewise, one more source each.
pub const SPLITS: [&str; 32] = [
    "dev", "holdout", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7",
    "fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14", "fresh15",
    "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21", "fresh22", "fresh23",
    "fresh24", "fresh25", "fresh26", "fresh27", "fresh28", "fresh29", "fresh30",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Key {
    pub goals: Goals,
    #[serde(default)]
    pub forbid: Vec<Forbid>,
    pub session: Vec<Session>,
}

/// Not `deny_unknown_fields` (serde cannot pair it with `flatten`): the
/// check below refuses any other key instead.
#[derive(Debug, Deserialize)]
pub struct Goals {
    pub min_recall_dev: f64,
    pub min_recall_holdout: f64,
    pub max_forbidden: usize,
    pub max_bullets_per_fact: f64,
    /// `min_recall_<split>` for the fresh splits: optional, since a split is
    /// only measured until it has been tuned on and a floor is set.
    #[serde(flatten)]
    pub fresh_floors: std::collections::BTreeMap<String, f64>,
}

impl Goals {
    /// The recall floor of a split, if it has one.
    pub fn min_recall(&self, split: &str) -> Option<f64> {
        match split {
            "dev" => Some(self.min_recall_dev),
            "holdout" => Some(self.min_recall_holdout),
            _ => self
                .fresh_floors
                .get(&format!("min_recall_{split}"))
                .copied(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Forbid {
    pub re: String,
    pub why: String,
    /// Empty: every section.
    #[serde(default)]
    pub sections: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    pub name: String,
    /// Path of the main transcript under the fixtures folder.
    pub origin: String,
    pub split: String,
    pub summary: String,
    #[serde(default)]
    pub fact: Vec<Fact>,
    #[serde(default)]
    pub forbid: Vec<Forbid>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fact {
    pub sections: Vec<String>,
    #[serde(default)]
    pub all: Vec<String>,
    #[serde(default)]
    pub any: Vec<String>,
    pub note: String,
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real_sessions")
}

pub fn load() -> Key {
    let path = fixtures().join("key.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Everything wrong with the key, so that a typo fails loudly instead of
/// silently making a fact unfindable.
pub fn problems(key: &Key) -> Vec<String> {
    let mut out = Vec::new();
    let check_forbid = |f: &Forbid, whose: &str, out: &mut Vec<String>| {
        if let Err(e) = regex::Regex::new(&f.re) {
            out.push(format!("{whose}: forbid {:?} does not compile: {e}", f.re));
        }
        if f.why.trim().is_empty() {
            out.push(format!("{whose}: forbid {:?} has no why", f.re));
        }
        for s in &f.sections {
            if !SECTIONS.contains(&s.as_str()) {
                out.push(format!("{whose}: forbid {:?}: unknown section {s}", f.re));
            }
        }
    };
    for name in key.goals.fresh_floors.keys() {
        let known = name
            .strip_prefix("min_recall_")
            .is_some_and(|split| split.starts_with("fresh") && SPLITS.contains(&split));
        if !known {
            out.push(format!("goals: {name} is no fresh split's floor"));
        }
    }
    for f in &key.forbid {
        check_forbid(f, "global", &mut out);
    }
    let mut names = std::collections::BTreeSet::new();
    for s in &key.session {
        if !names.insert(s.name.as_str()) {
            out.push(format!("{}: name used twice", s.name));
        }
        if !SPLITS.contains(&s.split.as_str()) {
            out.push(format!(
                "{}: split {:?} is none of {SPLITS:?}",
                s.name, s.split
            ));
        }
        if !fixtures().join(&s.origin).is_file() {
            out.push(format!("{}: origin {} not found", s.name, s.origin));
        }
        if s.fact.is_empty() {
            out.push(format!("{}: no facts", s.name));
        }
        for f in &s.fact {
            if f.all.is_empty() && f.any.is_empty() {
                out.push(format!("{}: fact {:?} has no term", s.name, f.note));
            }
            if f.all.iter().chain(&f.any).any(|t| t.trim().is_empty()) {
                out.push(format!("{}: fact {:?} has an empty term", s.name, f.note));
            }
            if f.sections.is_empty() {
                out.push(format!("{}: fact {:?} allows no section", s.name, f.note));
            }
            for sec in &f.sections {
                if !SECTIONS.contains(&sec.as_str()) {
                    out.push(format!(
                        "{}: fact {:?}: unknown section {sec}",
                        s.name, f.note
                    ));
                }
            }
        }
        for f in &s.forbid {
            check_forbid(f, &s.name, &mut out);
        }
    }
    out
}
