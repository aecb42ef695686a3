//! Secret redaction applied before any backend call and any write (SPEC §1.11).
//!
//! Every secret is replaced by `[REDACTED:<kind>]` and the text around it is
//! kept: for `key=value` pairs, headers and URLs only the value goes
//! (`postgres://app:[REDACTED:url-password]@db/prod`), so the memory still
//! says *which* credential was involved. `<private>…</private>` blocks are
//! removed outright.
//!
//! How it stays cheap on the hot path: a rule's regex runs only if one of
//! its literal keywords (`ghp_`, `AKIA`, `password`…) occurs in the text, and
//! is compiled the first time that happens. Keywords are found with SIMD
//! substring search rather than a `RegexSet`: hooks are short-lived
//! processes redacting a few kilobytes, and building the set cost more
//! (about 2 ms) than searching for every keyword (a fraction of that); on
//! 5 MB the substring search stays within a few tens of milliseconds. The
//! regex crate matches in linear time, and the two things a regex would do
//! badly (private blocks, PEM blocks without an end) are done by hand.
//!
//! Redaction is idempotent: passes repeat until nothing changes, because
//! replacing one secret can reveal another (a token glued to the previous one
//! gains its word boundary), and text inside an existing `[REDACTED:…]` is
//! never matched again.

mod pem;
mod private;
mod rules;
mod value;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

use memchr::memmem::Finder;
use regex::bytes::{Regex, RegexBuilder};
use serde::Serialize;

use rules::{BOUNDED, Found, KEY_WORDS, RULES, Rule, at_word_start};

/// Kind reported for text removed between `<private>` tags.
pub const PRIVATE_KIND: &str = "private";

/// Kind used for matches of `redact.extra_patterns`.
pub const CUSTOM_KIND: &str = "custom";

/// More passes than any real text needs (one, or two when secrets are glued
/// together); the cap only bounds hostile input.
const MAX_PASSES: usize = 16;

/// Windows of a later pass closer than this are scanned as one.
const WINDOW_GAP: usize = 4096;

/// Largest compiled size accepted for one user pattern: a typo such as
/// `\w{1000}{1000}` must fail with a message, not eat memory on every hook.
const EXTRA_PATTERN_SIZE_LIMIT: usize = 2 << 20;

/// Redacts secrets and removes `<private>…</private>` blocks, with the
/// built-in rules only.
pub fn redact(text: &str) -> String {
    Redactor::builtin().redact(text)
}

/// A `redact.extra_patterns` entry that is not a usable regex.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedactError {
    #[error("redact.extra_patterns: invalid regex `{pattern}`: {reason}; fix or remove it")]
    InvalidPattern { pattern: String, reason: String },
}

/// Built-in rules plus the user's extra patterns.
#[derive(Debug)]
pub struct Redactor {
    /// For each rule of `RULES`, what must occur for it to run; `None` for
    /// rules that always run.
    triggers: Vec<Option<Keywords>>,
    pem_trigger: Finder<'static>,
    compiled: Vec<OnceLock<Regex>>,
    pem_header: OnceLock<Regex>,
    extra: Vec<Regex>,
}

/// Literal keywords of one rule; case-insensitive ones are stored lower-case
/// and searched in a lower-cased copy of the text.
#[derive(Debug)]
struct Keywords {
    finders: Vec<Finder<'static>>,
    case_insensitive: bool,
}

impl Keywords {
    fn occur_in(&self, hay: &[u8], lower: &mut Option<Vec<u8>>) -> bool {
        let hay = if self.case_insensitive {
            lower.get_or_insert_with(|| hay.to_ascii_lowercase())
        } else {
            hay
        };
        self.finders.iter().any(|f| f.find(hay).is_some())
    }
}

/// How many secrets of each kind were removed. Never holds a secret, so it
/// can go to the diagnostics log as is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Report {
    counts: BTreeMap<&'static str, usize>,
}

impl Report {
    /// Number of secrets and private blocks removed.
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Count for one kind, such as `"github-token"` or [`PRIVATE_KIND`].
    pub fn get(&self, kind: &str) -> usize {
        self.counts.get(kind).copied().unwrap_or(0)
    }

    /// Kinds in alphabetical order with their counts.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, usize)> + '_ {
        self.counts.iter().map(|(k, n)| (*k, *n))
    }

    fn add(&mut self, kind: &'static str, n: usize) {
        *self.counts.entry(kind).or_insert(0) += n;
    }
}

impl fmt::Display for Report {
    /// `2 github-token, 1 password`, or `nothing` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("nothing");
        }
        for (i, (kind, n)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n} {kind}")?;
        }
        Ok(())
    }
}

/// One candidate secret, as a byte span of the text.
#[derive(Debug, Clone, Copy)]
struct Hit {
    start: usize,
    end: usize,
    kind: &'static str,
    rank: Rank,
}

/// Which hit names a span when several start at the same place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// A whole private key block: also swallows placeholders inside it, so
    /// that no part of the key can survive.
    Block,
    /// A provider format, so `TOKEN=ghp_…` reports a `github-token`.
    Specific,
    /// Found from the surroundings (`password=`, `Authorization:`, URLs).
    Context,
}

impl Redactor {
    /// Built-in rules plus `extra_patterns` (config `redact.extra_patterns`).
    ///
    /// An extra pattern replaces its whole match, or only its group named
    /// `secret` if it has one (`api_secret=(?P<secret>\w+)` keeps the key),
    /// by `[REDACTED:custom]`.
    pub fn new(extra_patterns: &[String]) -> Result<Redactor, RedactError> {
        let extra = extra_patterns
            .iter()
            .map(|p| {
                RegexBuilder::new(p)
                    .size_limit(EXTRA_PATTERN_SIZE_LIMIT)
                    .build()
                    .map_err(|e| RedactError::InvalidPattern {
                        pattern: p.clone(),
                        reason: one_line(&e),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self::with_extra(extra))
    }

    /// The shared redactor with built-in rules only, built on first use.
    pub fn builtin() -> &'static Redactor {
        static BUILTIN: OnceLock<Redactor> = OnceLock::new();
        BUILTIN.get_or_init(|| Self::with_extra(Vec::new()))
    }

    fn with_extra(extra: Vec<Regex>) -> Redactor {
        let triggers = RULES
            .iter()
            .map(|rule| {
                (!rule.keywords.is_empty()).then(|| Keywords {
                    finders: rule
                        .keywords
                        .iter()
                        .map(|k| {
                            let k = if rule.keywords_ci {
                                k.to_ascii_lowercase()
                            } else {
                                k.to_string()
                            };
                            Finder::new(k.as_bytes()).into_owned()
                        })
                        .collect(),
                    case_insensitive: rule.keywords_ci,
                })
            })
            .collect();
        Redactor {
            triggers,
            pem_trigger: Finder::new(b"-----BEGIN").into_owned(),
            compiled: RULES.iter().map(|_| OnceLock::new()).collect(),
            pem_header: OnceLock::new(),
            extra,
        }
    }

    /// Returns `text` with secrets replaced and private blocks removed.
    pub fn redact(&self, text: &str) -> String {
        self.redact_with_report(text).0
    }

    /// How many secrets and private blocks `redact` would remove.
    pub fn count(&self, text: &str) -> usize {
        self.redact_with_report(text).1.total()
    }

    /// Redacts and says what was removed, by kind.
    pub fn redact_with_report(&self, text: &str) -> (String, Report) {
        let mut report = Report::default();
        let (mut current, blocks) = private::strip(text);
        if blocks > 0 {
            report.add(PRIVATE_KIND, blocks);
        }
        // The first pass sees the whole text. Built-in rules never match
        // across a line break, so later passes only need the lines the
        // previous one changed; user patterns might, so they get it all.
        let mut windows = vec![(0, current.len())];
        for _ in 0..MAX_PASSES {
            let mut hits = Vec::new();
            let mut protected = Vec::new();
            for &(start, end) in &windows {
                self.collect(&current[start..end], start, &mut hits);
                if !hits.is_empty() {
                    placeholders(&current.as_bytes()[start..end], start, &mut protected);
                }
            }
            let hits = resolve(hits, &protected, &current);
            if hits.is_empty() {
                break;
            }
            let (next, spans) = apply(&current, &hits, &mut report);
            windows = if self.extra.is_empty() {
                lines_around(&next, &spans)
            } else {
                vec![(0, next.len())]
            };
            current = Cow::Owned(next);
        }
        (current.into_owned(), report)
    }

    /// Appends the candidate secrets of `text`, a window of the whole text
    /// starting at byte `base`.
    fn collect(&self, text: &str, base: usize, hits: &mut Vec<Hit>) {
        let hay = text.as_bytes();
        #[cfg(test)]
        tests::COLLECTED.with(|n| n.set(n.get() + hay.len()));
        let mut lower = None;
        for ((rule, slot), trigger) in RULES.iter().zip(&self.compiled).zip(&self.triggers) {
            if trigger
                .as_ref()
                .is_some_and(|k| !k.occur_in(hay, &mut lower))
            {
                continue;
            }
            if rule.gate.is_some_and(|gate| !gate(hay)) {
                continue;
            }
            let re = slot.get_or_init(|| compile(rule));
            for caps in re.captures_iter(hay) {
                let Some(found) = Found::new(&caps, hay, rule.kind) else {
                    continue;
                };
                if found.value.is_empty()
                    || (rule.bounded() && !at_word_start(hay, found.value.start()))
                {
                    continue;
                }
                if let Some(kind) = (rule.check)(&found) {
                    hits.push(Hit {
                        start: base + found.value.start(),
                        end: base + found.value.end(),
                        kind,
                        rank: if rule.specific {
                            Rank::Specific
                        } else {
                            Rank::Context
                        },
                    });
                }
            }
        }
        if self.pem_trigger.find(hay).is_some() {
            let header = self.pem_header.get_or_init(|| {
                Regex::new(pem::HEADER).expect("PEM header regex compiles (tested)")
            });
            let mut spans = Vec::new();
            pem::find(header, hay, &mut spans);
            hits.extend(spans.into_iter().map(|(start, end)| Hit {
                start: base + start,
                end: base + end,
                kind: "private-key",
                rank: Rank::Block,
            }));
        }
        for re in &self.extra {
            for caps in re.captures_iter(hay) {
                let Some(m) = caps.name("secret").or_else(|| caps.get(0)) else {
                    continue;
                };
                if !m.is_empty() {
                    hits.push(Hit {
                        start: base + m.start(),
                        end: base + m.end(),
                        kind: CUSTOM_KIND,
                        rank: Rank::Specific,
                    });
                }
            }
        }
    }
}

fn compile(rule: &Rule) -> Regex {
    let body = rule.pattern.strip_prefix(BOUNDED).unwrap_or(rule.pattern);
    let pattern = format!("(?-u){}", body.replace("{W}", KEY_WORDS));
    Regex::new(&pattern).expect("built-in redaction patterns compile (tested)")
}

/// Turns overlapping candidates into disjoint spans: overlapping hits merge
/// into their union, so a secret partly covered by another match cannot
/// leave its tail behind; the leftmost, then longest, then best ranked hit
/// names the result. Hits touching an existing placeholder are dropped,
/// except key blocks.
fn resolve(mut hits: Vec<Hit>, protected: &[(usize, usize)], text: &str) -> Vec<Hit> {
    hits.retain_mut(|hit| {
        // Patterns run on bytes; a value cut inside a multi-byte character
        // is widened to whole characters.
        while !text.is_char_boundary(hit.start) {
            hit.start -= 1;
        }
        while !text.is_char_boundary(hit.end) {
            hit.end += 1;
        }
        let i = protected.partition_point(|&(_, end)| end <= hit.start);
        hit.rank == Rank::Block || protected.get(i).is_none_or(|&(start, _)| start >= hit.end)
    });
    hits.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(a.rank.cmp(&b.rank))
    });
    let mut merged: Vec<Hit> = Vec::with_capacity(hits.len());
    for hit in hits {
        match merged.last_mut() {
            Some(last) if hit.start < last.end => last.end = last.end.max(hit.end),
            _ => merged.push(hit),
        }
    }
    merged
}

/// Writes the placeholders; returns the new text and where they now are.
fn apply(text: &str, hits: &[Hit], report: &mut Report) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(text.len());
    let mut spans = Vec::with_capacity(hits.len());
    let mut pos = 0;
    for hit in hits {
        out.push_str(&text[pos..hit.start]);
        let start = out.len();
        out.push_str("[REDACTED:");
        out.push_str(hit.kind);
        out.push(']');
        spans.push((start, out.len()));
        pos = hit.end;
        report.add(hit.kind, 1);
    }
    out.push_str(&text[pos..]);
    (out, spans)
}

/// The whole lines holding `spans` (sorted), merged, without their `\n`.
///
/// Each byte is scanned at most once even when thousands of spans share one
/// long line (a JSONL transcript record). Windows closer than `WINDOW_GAP`
/// merge: rescanning a few clean lines is cheaper than starting a search.
fn lines_around(text: &str, spans: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for &(start, end) in spans {
        let floor = windows.last().map_or(0, |w| w.1);
        if end <= floor {
            continue;
        }
        let from = floor.min(start);
        let line_end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i);
        let line_start = memchr::memrchr(b'\n', &bytes[from..start]).map(|i| from + i + 1);
        match (line_start, windows.last_mut()) {
            (Some(line_start), Some(last)) if line_start.saturating_sub(last.1) < WINDOW_GAP => {
                last.1 = line_end
            }
            (Some(line_start), _) => windows.push((line_start, line_end)),
            (None, Some(last)) => last.1 = line_end,
            (None, None) => windows.push((0, line_end)),
        }
    }
    windows
}

/// Appends the spans of the `[REDACTED]` / `[REDACTED:kind]` placeholders
/// already in `hay` (a window starting at `base`), in order; they must never
/// be matched again.
fn placeholders(hay: &[u8], base: usize, spans: &mut Vec<(usize, usize)>) {
    const OPEN: &[u8] = b"[REDACTED";
    for start in memchr::memmem::find_iter(hay, OPEN) {
        let rest = &hay[start + OPEN.len()..];
        let len = match rest.first() {
            Some(b']') => Some(1),
            Some(b':') => {
                let name = rest[1..]
                    .iter()
                    .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || **b == b'-')
                    .count();
                (name > 0 && rest.get(1 + name) == Some(&b']')).then_some(name + 2)
            }
            _ => None,
        };
        if let Some(len) = len {
            spans.push((base + start, base + start + OPEN.len() + len));
        }
    }
}

/// The regex crate's syntax errors span several lines with a caret; the
/// last line says what is wrong.
fn one_line(e: &regex::Error) -> String {
    match e {
        regex::Error::CompiledTooBig(_) => "pattern too large once compiled".to_string(),
        _ => {
            let text = e.to_string();
            let last = text
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or(&text);
            last.trim().trim_start_matches("error: ").to_string()
        }
    }
}

/// The `[redact]` section of the configuration.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedactConfig {
    /// Extra regular expressions whose matches (or their `secret` group) are
    /// replaced by `[REDACTED:custom]`.
    pub extra_patterns: Vec<String>,
}

impl RedactConfig {
    /// The built-in rules plus these extra patterns, compiled once per
    /// process: the configuration loader compiles them to validate them,
    /// every later caller with the same patterns gets that same redactor.
    pub fn compile(&self) -> Result<ActiveRedactor, RedactError> {
        if self.extra_patterns.is_empty() {
            return Ok(ActiveRedactor::Builtin(Redactor::builtin()));
        }
        type Compiled = Vec<(Vec<String>, std::sync::Arc<Redactor>)>;
        static COMPILED: OnceLock<std::sync::Mutex<Compiled>> = OnceLock::new();
        let cache = COMPILED.get_or_init(Default::default);
        let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, r)) = cache.iter().find(|(p, _)| *p == self.extra_patterns) {
            return Ok(ActiveRedactor::Custom(r.clone()));
        }
        let r = std::sync::Arc::new(Redactor::new(&self.extra_patterns)?);
        cache.push((self.extra_patterns.clone(), r.clone()));
        Ok(ActiveRedactor::Custom(r))
    }

    /// [`compile`](Self::compile), falling back to the built-in rules: the
    /// patterns were validated when the configuration was loaded, so the
    /// fallback only guards a section built by hand.
    pub fn redactor(&self) -> ActiveRedactor {
        self.compile()
            .unwrap_or_else(|_| ActiveRedactor::Builtin(Redactor::builtin()))
    }
}

/// The shared built-in redactor, or one with the user's extra patterns.
#[derive(Debug, Clone)]
pub enum ActiveRedactor {
    Builtin(&'static Redactor),
    Custom(std::sync::Arc<Redactor>),
}

impl std::ops::Deref for ActiveRedactor {
    type Target = Redactor;
    fn deref(&self) -> &Redactor {
        match self {
            ActiveRedactor::Builtin(r) => r,
            ActiveRedactor::Custom(r) => r,
        }
    }
}

#[cfg(test)]
mod tests;
