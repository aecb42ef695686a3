//! A tiny phrase matcher over folded word tokens.
//!
//! Patterns are written as space-separated slots (see `lexicon.rs`):
//!
//! | slot          | matches                                                   |
//! |---------------|-----------------------------------------------------------|
//! | `a\|b+c\|@l`  | one alternative; `+` joins words, `@l` is a word list      |
//! | `x?`          | the alternatives above, or nothing                         |
//! | `*N`          | zero to N words of any kind                                |
//! | `!a\|@l`      | zero-width: the next word starts none of these (nor code)  |
//! | `^`           | one capitalised word that is not a common word (a name)    |
//! | `%`           | one word that is not a common word (a possessor, a name)   |
//! | `%?`          | any one word, or nothing (to quote the noun after a hit)   |
//! | `$`           | zero-width: the sentence or clause ends here               |
//! | `~pl`         | zero-width: the next word is not a plural                  |
//!
//! A match never crosses punctuation or a sentence boundary: "Still, errors
//! are logged" is not "still … errors". Patterns are indexed by their first
//! words, so a prompt costs one hash lookup per word plus the few patterns
//! that start with it.

use super::Class;
use super::text::Text;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The alternatives of one slot. Word lists stay the static slices of
/// `lexicon.rs` (nothing is copied at start-up); only the few multi-word
/// alternatives ("last+time") are split into vectors.
#[derive(Debug, Default)]
pub(crate) struct Alts {
    words: Vec<&'static str>,
    lists: Vec<&'static [&'static str]>,
    multis: Vec<Vec<&'static str>>,
}

impl Alts {
    fn has_word(&self, w: &str) -> bool {
        // Word lists are sorted (a unit test checks it): binary search keeps
        // a 70-word list to seven comparisons.
        self.words.contains(&w) || self.lists.iter().any(|l| l.binary_search(&w).is_ok())
    }

    /// Lengths of the alternatives matching at `i`, shortest first.
    fn matches_at(
        &self,
        text: &Text,
        start: usize,
        i: usize,
        end: usize,
    ) -> impl Iterator<Item = usize> {
        let single = can_step(text, start, i, end) && self.has_word(text.word(i));
        let mut out = [0usize; 4];
        let mut n = 0;
        if single {
            out[n] = i + 1;
            n += 1;
        }
        for m in &self.multis {
            if n < out.len()
                && let Some(j) = seq_at(m, text, start, i, end)
                && !out[..n].contains(&j)
            {
                out[n] = j;
                n += 1;
            }
        }
        out.into_iter().take(n)
    }
}

#[derive(Debug)]
pub(crate) enum Slot {
    Alt { alts: Alts, optional: bool },
    Gap(u8),
    Not(Alts),
    Cap,
    Any,
    OptAny,
    End,
    NotPlural,
}

#[derive(Debug)]
pub(crate) struct Pattern {
    pub class: Class,
    pub slots: Vec<Slot>,
}

/// One phrase found in the prompt, as token indices `[first, last)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    pub class: Class,
    pub first: usize,
    pub last: usize,
    pub pattern: usize,
}

/// Hits kept per class (see `Matcher::find`).
pub(crate) const MAX_HITS_PER_CLASS: usize = 32;

/// A set of pattern indices (at most 64 × `MASK_WORDS` patterns).
type Mask = [u64; MASK_WORDS];
const MASK_WORDS: usize = 3;
pub(crate) const MAX_PATTERNS: usize = 64 * MASK_WORDS;

pub(crate) struct Matcher {
    sources: &'static [(Class, &'static str)],
    list: fn(&str) -> List,
    /// Parsed on first use: a prompt needs the few patterns whose first
    /// word it contains, and a hook process checks one prompt.
    patterns: Vec<OnceLock<Pattern>>,
    /// First word → the patterns that can start with it. A bit set rather
    /// than a vector per word keeps start-up to one allocation.
    by_first_word: WordMap<Mask>,
    /// Patterns starting with `^` or `%`, tried on every uncommon word.
    name_first: Vec<u16>,
}

fn parse_alts(spec: &'static str, list: &ListFn) -> Alts {
    let mut out = Alts::default();
    let push = |item: &'static str, out: &mut Alts| {
        if item.contains('+') {
            out.multis.push(item.split('+').collect());
        } else {
            out.words.push(item);
        }
    };
    for alt in spec.split('|') {
        if let Some(name) = alt.strip_prefix('@') {
            match list(name) {
                List::Words(l) => out.lists.push(l),
                List::Phrases(l) => {
                    for item in l {
                        push(item, &mut out);
                    }
                }
            }
        } else {
            push(alt, &mut out);
        }
    }
    out
}

/// A named list of the lexicon: sorted single words, or phrases whose words
/// are joined by `+`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum List {
    Words(&'static [&'static str]),
    Phrases(&'static [&'static str]),
}

pub(crate) type ListFn = dyn Fn(&str) -> List;

/// A fast hasher for the word indexes: the keys are our own short words,
/// so SipHash's protection against chosen keys buys nothing here.
#[derive(Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type WordMap<V> = HashMap<&'static str, V, std::hash::BuildHasherDefault<WordHasher>>;

/// Parses one pattern. Panics on a malformed pattern: they are compiled-in
/// constants and a unit test parses every one of them.
pub(crate) fn parse(class: Class, source: &'static str, list: &ListFn) -> Pattern {
    let mut slots = Vec::new();
    for part in source.split_whitespace() {
        let slot = if let Some(n) = part.strip_prefix('*') {
            Slot::Gap(
                n.parse()
                    .unwrap_or_else(|_| panic!("bad gap in {source:?}")),
            )
        } else if let Some(rest) = part.strip_prefix('!') {
            Slot::Not(parse_alts(rest, list))
        } else {
            match part {
                "^" => Slot::Cap,
                "%" => Slot::Any,
                "%?" => Slot::OptAny,
                "$" => Slot::End,
                "~pl" => Slot::NotPlural,
                _ => {
                    let (spec, optional) = match part.strip_suffix('?') {
                        Some(s) => (s, true),
                        None => (part, false),
                    };
                    Slot::Alt {
                        alts: parse_alts(spec, list),
                        optional,
                    }
                }
            }
        };
        slots.push(slot);
    }
    match slots.first() {
        Some(Slot::Alt {
            optional: false, ..
        })
        | Some(Slot::Cap)
        | Some(Slot::Any) => {}
        _ => panic!("pattern {source:?} must start with words, a name or `%`"),
    }
    Pattern { class, slots }
}

impl Matcher {
    /// Indexes the patterns by the words they can start with, reading only
    /// their first slot.
    pub fn new(sources: &'static [(Class, &'static str)], list: fn(&str) -> List) -> Matcher {
        assert!(sources.len() <= MAX_PATTERNS, "raise MASK_WORDS");
        let mut by_first_word: WordMap<Mask> =
            WordMap::with_capacity_and_hasher(512, Default::default());
        let mut name_first = Vec::new();
        for (i, &(_, src)) in sources.iter().enumerate() {
            let first = src.split_whitespace().next().unwrap_or("");
            if first == "^" || first == "%" {
                name_first.push(i as u16);
                continue;
            }
            let mut add =
                |w: &'static str| by_first_word.entry(w).or_default()[i / 64] |= 1 << (i % 64);
            for alt in first.split('|') {
                match alt.strip_prefix('@').map(list) {
                    Some(List::Words(l)) => l.iter().for_each(|&w| add(w)),
                    Some(List::Phrases(l)) => {
                        l.iter().for_each(|w| add(w.split('+').next().unwrap_or(w)))
                    }
                    None => add(alt.split('+').next().unwrap_or(alt)),
                }
            }
        }
        Matcher {
            sources,
            list,
            patterns: sources.iter().map(|_| OnceLock::new()).collect(),
            by_first_word,
            name_first,
        }
    }

    pub fn pattern(&self, i: usize) -> &Pattern {
        self.patterns[i].get_or_init(|| {
            let (class, src) = self.sources[i];
            parse(class, src, &self.list)
        })
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.sources.len()
    }

    /// The pattern's text (test messages; what a hit points at).
    pub fn source(&self, i: usize) -> &'static str {
        self.sources[i].1
    }

    /// Every phrase of the enabled classes, at most one per class and
    /// starting word (overlapping hits of one class are merged away).
    pub fn find(&self, text: &Text, enabled: &dyn Fn(Class) -> bool) -> Vec<Hit> {
        let mut hits: Vec<Hit> = Vec::new();
        // A few hits per class are quoted; capping them keeps the overlap
        // test below cheap on a prompt that repeats a phrase thousands of
        // times.
        let mut per_class = [0usize; Class::ALL.len()];
        for i in 0..text.toks.len() {
            if text.toks[i].opaque {
                continue;
            }
            let word = text.word(i);
            let named = !super::lexicon::is_common_capital(word);
            let mask = self.by_first_word.get(word).copied().unwrap_or_default();
            let by_word = bits(mask);
            let by_name = self
                .name_first
                .iter()
                .filter(|_| named)
                .map(|&p| p as usize);
            for pid in by_word.chain(by_name) {
                let class = self.sources[pid].0;
                if per_class[class as usize] >= MAX_HITS_PER_CLASS || !enabled(class) {
                    continue;
                }
                let p = self.pattern(pid);
                let end = text.sentence_end(i);
                if let Some(last) = m(&p.slots, i, i, end, text)
                    && last > i
                    && !hits
                        .iter()
                        .any(|h| h.class == p.class && h.first < last && i < h.last)
                {
                    per_class[class as usize] += 1;
                    hits.push(Hit {
                        class: p.class,
                        first: i,
                        last,
                        pattern: pid,
                    });
                }
            }
        }
        hits
    }
}

/// The indices set in a mask, in order.
fn bits(mask: Mask) -> impl Iterator<Item = usize> {
    mask.into_iter().enumerate().flat_map(|(k, mut w)| {
        std::iter::from_fn(move || {
            (w != 0).then(|| {
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                k * 64 + b
            })
        })
    })
}

/// Can the match go on from token `i - 1` to token `i`? Not across
/// punctuation, not into code, not out of the sentence.
fn can_step(text: &Text, start: usize, i: usize, end: usize) -> bool {
    i < end && !text.toks[i].opaque && (i == start || text.toks[i - 1].punct_after == '\0')
}

fn seq_at(alt: &[&str], text: &Text, start: usize, i: usize, end: usize) -> Option<usize> {
    let mut j = i;
    for w in alt {
        if !can_step(text, start, j, end) || text.word(j) != *w {
            return None;
        }
        j += 1;
    }
    Some(j)
}

/// Matches `slots` from token `i`; returns the index after the last token.
fn m(slots: &[Slot], start: usize, i: usize, end: usize, text: &Text) -> Option<usize> {
    let Some((slot, rest)) = slots.split_first() else {
        return Some(i);
    };
    match slot {
        Slot::Alt { alts, optional } => {
            for j in alts.matches_at(text, start, i, end) {
                if let Some(e) = m(rest, start, j, end, text) {
                    return Some(e);
                }
            }
            if *optional {
                m(rest, start, i, end, text)
            } else {
                None
            }
        }
        Slot::Gap(n) => {
            for j in i..=i + usize::from(*n) {
                if let Some(e) = m(rest, start, j, end, text) {
                    return Some(e);
                }
                // A gap may skip a masked anchor ("like `x` before") but
                // never punctuation.
                if j >= end || (j > start && text.toks[j - 1].punct_after != '\0') {
                    return None;
                }
            }
            None
        }
        Slot::Not(alts) => {
            let next_in_clause = i < end && (i == start || text.toks[i - 1].punct_after == '\0');
            if next_in_clause
                && (text.toks[i].opaque || alts.matches_at(text, i, i, end).next().is_some())
            {
                return None;
            }
            m(rest, start, i, end, text)
        }
        Slot::Cap => {
            if can_step(text, start, i, end)
                && text.toks[i].cap
                && !super::lexicon::is_common_capital(text.word(i))
            {
                m(rest, start, i + 1, end, text)
            } else {
                None
            }
        }
        Slot::Any => {
            if can_step(text, start, i, end) && !super::lexicon::is_common_capital(text.word(i)) {
                m(rest, start, i + 1, end, text)
            } else {
                None
            }
        }
        Slot::OptAny => {
            if can_step(text, start, i, end)
                && let Some(e) = m(rest, start, i + 1, end, text)
            {
                return Some(e);
            }
            m(rest, start, i, end, text)
        }
        Slot::End => {
            if i >= end || (i > start && text.toks[i - 1].punct_after != '\0') {
                m(rest, start, i, end, text)
            } else {
                None
            }
        }
        Slot::NotPlural => {
            if can_step(text, start, i, end) && is_plural(text.word(i)) {
                None
            } else {
                m(rest, start, i, end, text)
            }
        }
    }
}

/// English plural by its ending: good enough to tell "the other tests"
/// (every remaining test, a bound set) from "the other page" (which one?).
fn is_plural(w: &str) -> bool {
    w.len() > 3
        && w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("us")
        && !w.ends_with("is")
        && w != "ones"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::text::analyse;

    fn lists(name: &str) -> List {
        match name {
            "fail" => List::Words(&["broken", "failing"]),
            _ => panic!("no list {name}"),
        }
    }

    fn hits(pattern: &'static str, prompt: &str) -> Vec<String> {
        let sources: &'static [(Class, &'static str)] =
            Box::leak(Box::new([(Class::RepeatFailure, pattern)]));
        let m = Matcher::new(sources, lists);
        let t = analyse(prompt);
        m.find(&t, &|_| true)
            .iter()
            .map(|h| prompt[t.toks[h.first].start..t.toks[h.last - 1].end].to_string())
            .collect()
    }

    #[test]
    fn gaps_alternatives_and_sequences() {
        assert_eq!(
            hits("still *2 @fail", "it is still very much broken"),
            ["still very much broken"]
        );
        assert!(hits("still *1 @fail", "it is still very much broken").is_empty());
        assert_eq!(
            hits("back+to+square+one", "we are back to square one"),
            ["back to square one"]
        );
        assert_eq!(hits("still not? @fail", "still failing"), ["still failing"]);
    }

    #[test]
    fn never_across_punctuation_or_sentences() {
        assert!(hits("still *2 @fail", "Still, broken windows are a metaphor").is_empty());
        assert!(hits("still *2 @fail", "it works still. Broken glass").is_empty());
    }

    #[test]
    fn negative_lookahead_end_and_names() {
        assert_eq!(hits("that bug !where|in", "fix that bug"), ["that bug"]);
        assert!(hits("that bug !where|in", "fix that bug where it loops").is_empty());
        assert!(hits("that bug !where|in", "fix that bug \u{1}\u{1}").is_empty());
        assert_eq!(hits("that one $", "use that one, please"), ["that one"]);
        assert!(hits("that one $", "use that one thread").is_empty());
        assert_eq!(hits("^ s fix", "apply Marc's fix"), ["Marc's fix"]);
        assert!(hits("^ s fix", "apply marc's fix").is_empty());
        assert!(hits("the other ~pl", "update the other tests").is_empty());
        assert_eq!(
            hits("the other ~pl %?", "update the other page"),
            ["the other page"]
        );
        assert_eq!(hits("the other ~pl %?", "use the other."), ["the other"]);
        assert_eq!(hits("% s fix", "apply marc's fix"), ["marc's fix"]);
        assert!(hits("% s fix", "let's fix it").is_empty());
    }
}
