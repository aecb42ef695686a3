//! Tokens and sentences of a prompt, for the phrase matcher.
//!
//! The gate matches phrase lists on lower-cased, accent-folded words instead
//! of running big case-insensitive Unicode regexes: building those costs
//! milliseconds per process, and the gate runs on every prompt. Folding
//! accents also makes French patterns match what people actually type
//! ("meme", "deja", "derniere").
//!
//! The input here is already *masked* (see `anchor::scan`): code spans and
//! anchors are replaced, byte for byte, by [`OPAQUE`], so offsets still point
//! into the original prompt and a masked region reads as one opaque token.

use crate::format::{is_combining_accent, push_folded};
use std::ops::Range;

/// The byte that stands for masked text (code, paths, URLs…). Control
/// characters of the prompt itself are blanked before masking, so it can
/// only come from the mask.
pub(crate) const OPAQUE: char = '\u{1}';

#[derive(Debug, Clone)]
pub(crate) struct Tok {
    /// Byte span in the prompt.
    pub start: usize,
    pub end: usize,
    /// Span of the folded form in `Text::buf`.
    norm: Range<u32>,
    pub sent: u32,
    /// First punctuation mark between this token and the next one, or `'\0'`.
    /// Apostrophes and hyphens split words but are not punctuation: "it's",
    /// "d'avant" and "peux-tu" stay one phrase.
    pub punct_after: char,
    /// The original first character was upper case (names: "Marc's fix").
    pub cap: bool,
    /// Stands for a masked region.
    pub opaque: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Sentence {
    /// Byte span in the prompt.
    pub start: usize,
    pub end: usize,
    pub toks: Range<usize>,
    /// Last non-blank character before the boundary (`?`, `:`, `.`, a letter…).
    pub last: char,
}

#[derive(Debug, Default)]
pub(crate) struct Text {
    buf: String,
    pub toks: Vec<Tok>,
    pub sents: Vec<Sentence>,
}

impl Text {
    /// The folded form of token `i` (empty for an opaque token).
    pub fn word(&self, i: usize) -> &str {
        let r = &self.toks[i].norm;
        &self.buf[r.start as usize..r.end as usize]
    }

    /// Number of real (non-opaque) words.
    pub fn word_count(&self) -> usize {
        self.toks.iter().filter(|t| !t.opaque).count()
    }

    pub fn sentence_end(&self, i: usize) -> usize {
        self.sents[self.toks[i].sent as usize].toks.end
    }
}

fn is_punct(c: char) -> bool {
    matches!(
        c,
        ',' | ';'
            | ':'
            | '.'
            | '!'
            | '?'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '"'
            | '<'
            | '>'
            | '«'
            | '»'
            | '“'
            | '”'
            | '…'
            | '¿'
            | '¡'
    )
}

/// Characters after which a `.`, `!`, `?` or `…` ends a sentence.
fn closes_sentence(next: Option<char>) -> bool {
    match next {
        None => true,
        Some(c) => c.is_whitespace() || matches!(c, '"' | '\'' | ')' | ']' | '»' | '”' | '’' | '*'),
    }
}

/// Splits masked text into tokens and sentences. Newlines and `.!?…`
/// followed by a blank end a sentence; a `.` inside a word (`e.g`, `v1.2`)
/// does not.
pub(crate) fn analyse(masked: &str) -> Text {
    let mut t = Text {
        buf: String::with_capacity(masked.len()),
        toks: Vec::with_capacity(masked.len() / 5 + 1),
        sents: Vec::new(),
    };
    // Open token: (start byte, buf start, opaque).
    let mut open: Option<(usize, usize, bool, bool)> = None;
    let mut sent_start = 0usize;
    let mut sent_first_tok = 0usize;
    let mut last = '\0';

    let close = |t: &mut Text, open: &mut Option<(usize, usize, bool, bool)>, end: usize| {
        if let Some((start, nb, opaque, cap)) = open.take() {
            let sent = t.sents.len() as u32;
            t.toks.push(Tok {
                start,
                end,
                norm: nb as u32..t.buf.len() as u32,
                sent,
                punct_after: '\0',
                cap,
                opaque,
            });
        }
    };
    let end_sentence =
        |t: &mut Text, start: &mut usize, first: &mut usize, last: &mut char, at: usize| {
            if t.toks.len() > *first {
                t.sents.push(Sentence {
                    start: *start,
                    end: at,
                    toks: *first..t.toks.len(),
                    last: *last,
                });
            }
            *start = at;
            *first = t.toks.len();
            *last = '\0';
        };

    let mut chars = masked.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == OPAQUE {
            match open {
                Some((_, _, true, _)) => {}
                Some(_) => {
                    close(&mut t, &mut open, i);
                    open = Some((i, t.buf.len(), true, false));
                }
                None => open = Some((i, t.buf.len(), true, false)),
            }
            last = c;
            continue;
        }
        if c.is_alphanumeric() {
            match open {
                Some((_, _, false, _)) => {}
                Some(_) => {
                    close(&mut t, &mut open, i);
                    open = Some((i, t.buf.len(), false, c.is_uppercase()));
                }
                None => open = Some((i, t.buf.len(), false, c.is_uppercase())),
            }
            push_folded(&mut t.buf, c);
            last = c;
            continue;
        }
        // An accent typed as its own combining mark belongs to the word it
        // follows (folding drops it), as the composed letter would.
        if is_combining_accent(c) && matches!(open, Some((_, _, false, _))) {
            last = c;
            continue;
        }
        close(&mut t, &mut open, i);
        if c == '\n' {
            end_sentence(
                &mut t,
                &mut sent_start,
                &mut sent_first_tok,
                &mut last,
                i + 1,
            );
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            continue;
        }
        last = c;
        if is_punct(c) {
            // Only the first mark counts: it is what separates the words.
            let in_sentence = t.toks.len() > sent_first_tok;
            if let Some(tok) = t.toks.last_mut()
                && tok.punct_after == '\0'
                && in_sentence
            {
                tok.punct_after = c;
            }
        }
        // Not `;`: it joins two halves of one thought ("… are in
        // notes.md; write the next ones in the same style").
        if matches!(c, '.' | '!' | '?' | '…') && closes_sentence(chars.peek().map(|&(_, n)| n)) {
            end_sentence(
                &mut t,
                &mut sent_start,
                &mut sent_first_tok,
                &mut last,
                i + c.len_utf8(),
            );
        }
    }
    close(&mut t, &mut open, masked.len());
    end_sentence(
        &mut t,
        &mut sent_start,
        &mut sent_first_tok,
        &mut last,
        masked.len(),
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(t: &Text) -> Vec<String> {
        (0..t.toks.len())
            .map(|i| {
                if t.toks[i].opaque {
                    "#".to_string()
                } else {
                    t.word(i).to_string()
                }
            })
            .collect()
    }

    #[test]
    fn folds_case_and_accents_and_splits_elisions() {
        let t = analyse("Le MÊME comportement qu'avant, peux-tu ?");
        assert_eq!(
            words(&t),
            ["le", "meme", "comportement", "qu", "avant", "peux", "tu"]
        );
        assert_eq!(t.toks[4].punct_after, ',');
        assert_eq!(
            t.toks[3].punct_after, '\0',
            "an apostrophe is not punctuation"
        );
        assert_eq!(t.sents.len(), 1);
        assert_eq!(t.sents[0].last, '?');
    }

    #[test]
    fn a_combining_accent_stays_in_its_word() {
        let t = analyse("Le me\u{302}me comportement");
        assert_eq!(words(&t), ["le", "meme", "comportement"]);
    }

    #[test]
    fn sentences_break_on_terminators_and_newlines_not_inside_words() {
        let t = analyse("Use v1.2 e.g. here. It's still broken!\nnext line");
        let s: Vec<_> = t.sents.iter().map(|s| (s.toks.len(), s.last)).collect();
        // "e.g." followed by a blank ends a sentence: an accepted imprecision.
        assert_eq!(s, [(5, '.'), (1, '.'), (4, '!'), (2, 'e')]);
    }

    #[test]
    fn opaque_runs_are_one_token() {
        let t = analyse("fix \u{1}\u{1}\u{1} now");
        assert_eq!(words(&t), ["fix", "#", "now"]);
        assert!(t.toks[1].opaque);
    }

    #[test]
    fn capitals_are_remembered() {
        let t = analyse("apply Marc's fix");
        assert!(t.toks[1].cap);
        assert!(!t.toks[0].cap);
    }
}
