//! Words to index terms: lower case, Snowball stems in French and English,
//! accents folded.
//!
//! Stemming happens here, in Rust, rather than in an FTS5 tokenizer: a custom
//! tokenizer would have to be registered on every connection through
//! SQLite's C API, and an index written with one tokenizer is unreadable
//! by a connection without it. Pre-stemmed text in a plain `unicode61`
//! column keeps the index an ordinary SQLite file that any build opens.
//!
//! A log does not say which language a bullet is in (French logs are full
//! of English identifiers), so every word is indexed under its French stem
//! and its English stem, and a query word matches either. Both stems are
//! taken from the accented word (the French rules need the accents) and
//! folded afterwards, plus the French stem of the folded word, so that
//! `decision` typed without accents still finds `décisions`.

use rust_stemmers::{Algorithm, Stemmer};
use std::collections::HashMap;

/// Words longer than this are hashes, base64 or paths run together: they
/// are kept whole (folded) but not stemmed.
const MAX_STEMMED: usize = 40;
/// Longer tokens are dropped: nobody types them and they bloat the index.
const MAX_TOKEN: usize = 64;

/// Turns text into index terms. Holds both stemmers and a cache of words
/// already seen, which matters when a whole corpus is indexed.
pub struct Normalizer {
    fr: Stemmer,
    en: Stemmer,
    cache: HashMap<String, Vec<String>>,
}

impl Default for Normalizer {
    fn default() -> Self {
        Self::new()
    }
}

impl Normalizer {
    pub fn new() -> Self {
        Normalizer {
            fr: Stemmer::create(Algorithm::French),
            en: Stemmer::create(Algorithm::English),
            cache: HashMap::new(),
        }
    }

    /// The terms of one word (lower-cased already), one to three of them.
    pub fn terms(&mut self, word: &str) -> &[String] {
        if !self.cache.contains_key(word) {
            let terms = self.compute(word);
            self.cache.insert(word.to_string(), terms);
        }
        &self.cache[word]
    }

    fn compute(&self, word: &str) -> Vec<String> {
        let folded = fold(word);
        let mut out: Vec<String> = Vec::with_capacity(3);
        if word.chars().count() > MAX_STEMMED || word.chars().all(|c| c.is_ascii_digit()) {
            out.push(folded);
            return out;
        }
        for t in [
            fold(&self.fr.stem(word)),
            fold(&self.en.stem(word)),
            self.fr.stem(&folded).into_owned(),
        ] {
            if !t.is_empty() && !out.contains(&t) {
                out.push(t);
            }
        }
        if out.is_empty() {
            out.push(folded);
        }
        out
    }

    /// The space-separated terms of a text, what the index's `norm` column holds.
    pub fn index_text(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() * 2);
        for word in words(text) {
            for t in self.terms(&word) {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(t);
            }
        }
        out
    }
}

/// Lower-cased words of a text: runs of letters and digits. `_`, `-`, `'`
/// and `.` split, so `memory_search`, `l'index` and `fts5.rs` give their parts.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && w.len() <= MAX_TOKEN)
        .map(str::to_lowercase)
}

/// Lower case with the accents of Latin letters removed.
pub use crate::format::fold_accents as fold;

/// Words that would make an all-words query fail for no reason.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on",
    "or", "the", "to", "was", "with", "au", "aux", "ce", "ces", "d", "dans", "de", "des", "du",
    "en", "est", "et", "l", "la", "le", "les", "n", "ne", "ou", "par", "pas", "pour", "qu", "que",
    "qui", "s", "sur", "un", "une",
];

/// The most words a query keeps: a pasted paragraph must not turn into an
/// expression SQLite takes seconds to plan.
pub const MAX_QUERY_WORDS: usize = 24;

/// A query as FTS5 match expressions: every word (`all`) and any word
/// (`any`, the fallback when nothing holds them all). `None` when the query
/// has no searchable word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchExpr {
    pub all: String,
    pub any: String,
    pub words: Vec<String>,
}

pub fn match_expr(norm: &mut Normalizer, query: &str) -> Option<MatchExpr> {
    let mut all_words: Vec<String> = Vec::new();
    for w in words(query) {
        if !all_words.contains(&w) {
            all_words.push(w);
        }
        if all_words.len() >= MAX_QUERY_WORDS * 2 {
            break;
        }
    }
    let content: Vec<String> = all_words
        .iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    // A query made only of stop words still means something ("to do").
    let mut kept = if content.is_empty() {
        all_words
    } else {
        content
    };
    kept.truncate(MAX_QUERY_WORDS);
    if kept.is_empty() {
        return None;
    }
    // Terms are letters and digits only, so quoting them is enough to keep
    // FTS5 from reading a word as an operator (`AND`, `NEAR`, `NOT`).
    let groups: Vec<String> = kept
        .iter()
        .map(|w| {
            let terms = norm.terms(w);
            let quoted: Vec<String> = terms.iter().map(|t| format!("\"{t}\"")).collect();
            if quoted.len() == 1 {
                quoted[0].clone()
            } else {
                format!("({})", quoted.join(" OR "))
            }
        })
        .collect();
    Some(MatchExpr {
        all: groups.join(" AND "),
        any: groups.join(" OR "),
        words: kept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares_term(n: &mut Normalizer, a: &str, b: &str) -> bool {
        let ta = n.terms(a).to_vec();
        n.terms(b).iter().any(|t| ta.contains(t))
    }

    #[test]
    fn french_and_english_inflections_meet() {
        let mut n = Normalizer::new();
        for (a, b) in [
            ("migrations", "migration"),
            ("caching", "cached"),
            ("décisions", "décision"),
            ("décisions", "decision"),
            ("indexées", "indexe"),
            ("rencontrés", "rencontre"),
            ("deployments", "deploying"),
        ] {
            assert!(
                shares_term(&mut n, a, b),
                "{a} / {b}: {:?} {:?}",
                n.terms(a).to_vec(),
                n.terms(b).to_vec()
            );
        }
        assert!(!shares_term(&mut n, "cache", "migration"));
    }

    #[test]
    fn words_split_identifiers_and_fold_case() {
        let got: Vec<String> = words("Use `memory_search` in l'Index, FTS5.rs!").collect();
        assert_eq!(
            got,
            ["use", "memory", "search", "in", "l", "index", "fts5", "rs"]
        );
        assert_eq!(fold("Été À ÇA œuvre"), "ete a ca oeuvre");
    }

    #[test]
    fn query_expressions_quote_terms_and_drop_stop_words() {
        let mut n = Normalizer::new();
        let e = match_expr(&mut n, "the NEAR cache AND").unwrap();
        assert_eq!(e.words, ["near", "cache"]);
        assert!(e.all.contains(" AND "), "{}", e.all);
        assert!(!e.all.contains("NEAR"));
        assert!(match_expr(&mut n, "  ,;  ").is_none());
        assert_eq!(match_expr(&mut n, "to the").unwrap().words, ["to", "the"]);
        let huge = "mot ".repeat(10_000) + &(0..500).map(|i| format!("w{i} ")).collect::<String>();
        assert!(match_expr(&mut n, &huge).unwrap().words.len() <= MAX_QUERY_WORDS);
    }
}
