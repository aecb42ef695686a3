//! The refine gate (UserPromptSubmit, SPEC §2.1).
//!
//! It reads the prompt's *shape*, not its subject, and when the prompt
//! points at things the model cannot see ("the previous fix", "like the
//! other page", "it's still broken", "applique la solution de Marc") it adds
//! a short note asking the model to bind each reference to a concrete
//! artefact before acting, or to ask the user one batch of questions. It
//! never blocks, and on the common case it prints nothing.
//!
//! First the prompt is read the way capture reads it (`prompt.rs`, on
//! `capture::clean`): IDE context, system reminders, image placeholders and
//! leading acknowledgements out, pastes masked where they are. Text inside
//! an IDE selection or a paste is never matched as the user's words. Then
//! two stages:
//! 1. **Unbound references**, five classes of phrases in English and French
//!    (`lexicon.rs`), matched on folded words with word boundaries.
//! 2. **Structural**: a sentence that asks for work ("fix…", "peux-tu
//!    ajouter…") in a prompt that names no anchor at all (`anchor.rs`).
//!
//! Both depend on the [`Session`]: whether earlier turns are there for the
//! prompt to point at (`transcript::prior_turns`, a bounded tail read).
//! On the first prompt of a session, or the first after `/clear`, both
//! stages speak. Later, the structural stage is silent ("yes please, and
//! make it cross-browser" answers the model's offer) and so is every
//! phrase that can point at the conversation ("the above status report",
//! "this approach", "the previous fix", "still broken"): only phrases whose
//! sentence puts the referent outside the session ("like last time", "the
//! approach from the meeting", "comme d'habitude") or that name someone's
//! solution ("Marc's fix") remain.
//!
//! Decisions a user may want to know about:
//! - An anchor binds the vague phrases of its clause: "the previous fix in
//!   `src/auth.rs` broke login", "revert the previous fix, it is a1b2c3d",
//!   "the notes are in docs/0.3.md; write the next ones in the same style".
//!   A clause ends where a conjunction or a self-correction adds a request
//!   ("… and make …", "… no wait, bring back …"), not at a comma or a
//!   semicolon. So in "Fix the typo in README.md and make the footer like
//!   the other page", "the other page" is still unbound. A sentence ending
//!   with `:` is bound by an anchor on the next line, and pasted code binds
//!   the paragraph that introduces it ("Same error again:" + the log), not
//!   the one after it. Any anchor at all (an issue key such as `ABC-123`,
//!   `#12` or `spotter-gqc`, an `@file` mention, a paste, an IDE selection
//!   or open file, a screenshot, or "the last commit") silences the
//!   structural stage.
//! - Questions are left alone (a sentence ending with `?`, or opening with
//!   what/why/how/pourquoi/comment/est-ce que/explain…): they ask for an
//!   answer, not a change, so "why does the previous build fail?" is
//!   silent. Two exceptions: a request dressed as a question ("can you fix
//!   that bug?", "peux-tu corriger comme avant ?"), and an English statement
//!   with a question mark ("It's still broken?"), which keeps the
//!   statement's word order. In a prompt mixing statements and questions,
//!   only the phrases inside question sentences are ignored.
//! - A sentence that reports success and asks nothing ("As before, all
//!   tests pass", "looks much better than the old one") needs no binding.
//! - Thanks and chit-chat, `OK-done`, slash commands and the client's own
//!   turns (`<task-notification>`…) are silent, and so is a bare
//!   continuation ("fix it", "corrige ça", "go ahead"): the model has just
//!   said what "it" is.
//! - A prompt over 32 KiB is read as its first and last 16 KiB (the words
//!   around a pasted log matter, its middle does not) and gets no
//!   structural nudge: it carries its own material.
//! - In doubt about the session (no transcript path, a file that cannot be
//!   read, a tail longer than the read's budget) the gate takes it as
//!   ongoing, the quieter answer. A transcript that does not exist yet is
//!   a new session: older clients create it after the first prompt.
//!
//! Hot path: no regex is compiled unless the user configured
//! `extra_patterns`. The first prompt of a process builds a first-word
//! index (no pattern is parsed until a prompt contains its first word);
//! measured in release on the development VM: about 0.1 ms for the index,
//! 0.2–0.3 ms for the whole first check, then 10–15 µs per prompt
//! (`cargo bench --bench gate`). The session's tail read stops at the
//! previous answer, a few kilobytes back, and never reads more than
//! 1 MiB.

mod anchor;
pub mod journal;
mod lexicon;
mod matcher;
mod prompt;
mod text;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::OnceLock;
use text::Text;

/// `[gate]` settings. Every pattern class can be turned off.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateConfig {
    /// The whole gate. Off: UserPromptSubmit prints nothing.
    pub enabled: bool,
    /// "the previous fix", "like before", "that bug", "le correctif d'avant".
    pub prior_artifact: bool,
    /// "the approach we discussed", "Marc's fix", "la solution de Marc".
    pub unlocated_solution: bool,
    /// "like the other one", "same as the old version", "comme l'autre page".
    pub unstated_comparison: bool,
    /// "exactly what it did", "le même comportement qu'avant".
    pub exact_behaviour: bool,
    /// "it's still broken", "same error again", "ça ne marche toujours pas".
    pub repeat_failure: bool,
    /// A work request ("fix…", "ajoute…") naming no file, commit, line,
    /// URL, identifier or issue.
    pub structural: bool,
    /// Extra case-insensitive regular expressions, reported as class
    /// `custom`. Compiled only when present; invalid ones are ignored (see
    /// [`invalid_extra_patterns`]).
    pub extra_patterns: Vec<String>,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            enabled: true,
            prior_artifact: true,
            unlocated_solution: true,
            unstated_comparison: true,
            exact_behaviour: true,
            repeat_failure: true,
            structural: true,
            extra_patterns: Vec::new(),
        }
    }
}

impl GateConfig {
    pub fn class_enabled(&self, class: Class) -> bool {
        match class {
            Class::PriorArtifact => self.prior_artifact,
            Class::UnlocatedSolution => self.unlocated_solution,
            Class::UnstatedComparison => self.unstated_comparison,
            Class::ExactBehaviour => self.exact_behaviour,
            Class::RepeatFailure => self.repeat_failure,
            Class::Unanchored => self.structural,
            Class::Custom => !self.extra_patterns.is_empty(),
        }
    }
}

/// What the gate found. Ordered as reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    PriorArtifact,
    UnlocatedSolution,
    UnstatedComparison,
    ExactBehaviour,
    RepeatFailure,
    /// The structural stage: a work request with no anchor.
    Unanchored,
    /// One of the user's `extra_patterns`.
    Custom,
}

impl Class {
    pub const ALL: [Class; 7] = [
        Class::PriorArtifact,
        Class::UnlocatedSolution,
        Class::UnstatedComparison,
        Class::ExactBehaviour,
        Class::RepeatFailure,
        Class::Unanchored,
        Class::Custom,
    ];

    /// The stable name (config docs, corpus, JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Class::PriorArtifact => "prior-artifact",
            Class::UnlocatedSolution => "unlocated-solution",
            Class::UnstatedComparison => "unstated-comparison",
            Class::ExactBehaviour => "exact-behaviour",
            Class::RepeatFailure => "repeat-failure",
            Class::Unanchored => "unanchored",
            Class::Custom => "custom",
        }
    }

    pub fn parse(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// How the injected note names the class to the model.
    fn label(self) -> &'static str {
        match self {
            Class::PriorArtifact => "prior-artifact shorthand",
            Class::UnlocatedSolution => "named but unlocated solution",
            Class::UnstatedComparison => "comparison to an unstated referent",
            Class::ExactBehaviour => "exact-behaviour reference",
            Class::RepeatFailure => "repeat failure",
            Class::Unanchored => "work request with no anchor",
            Class::Custom => "project pattern",
        }
    }

    /// The one extra step each class asks for.
    fn hint(self) -> &'static str {
        match self {
            Class::PriorArtifact => {
                "find which earlier change, version or session is meant (git log, this conversation, the project memory)"
            }
            Class::UnlocatedSolution => {
                "find where that solution is written down (commit, file, link); if it lives only in a meeting or chat you cannot read, ask for it"
            }
            Class::UnstatedComparison => {
                "name the exact file, component or version being compared to"
            }
            Class::ExactBehaviour => {
                "pin the reference behaviour to a commit, or to a test or command you can run against both versions"
            }
            Class::RepeatFailure => {
                "reproduce the failure and quote the exact command and error, and what changed since the last attempt"
            }
            Class::Unanchored => "locate the files involved and name them before editing",
            Class::Custom => "bind it like the others",
        }
    }
}

/// One vague phrase, quoted from the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub class: Class,
    pub phrase: String,
}

/// The gate's answer for a prompt that needs binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Distinct classes, in [`Class`] order.
    pub classes: Vec<Class>,
    /// The phrases behind them (the structural stage has none).
    pub found: Vec<Found>,
    /// The `additionalContext` text: English, under [`MAX_CONTEXT`] chars.
    pub context: String,
}

/// Upper bound of the injected text, in characters.
pub const MAX_CONTEXT: usize = 1500;
/// A longer prompt is read as its first and last `MAX_SCAN / 2` bytes: the
/// words around a pasted log ("here is the log: … it's still broken")
/// matter, the middle of the log does not, and the gate must stay fast.
const MAX_SCAN: usize = 32 * 1024;
const MAX_QUOTES_PER_CLASS: usize = 3;
const MAX_QUOTES: usize = 6;
const MAX_QUOTE_CHARS: usize = 60;

/// Whether the session already holds turns for a prompt to point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Session {
    /// The first prompt of a session, or the first after `/clear`.
    New,
    /// Earlier turns are there, or it cannot be told.
    Ongoing,
}

impl Session {
    /// From the transcript the payload names (see the module doc for what
    /// a doubt means).
    pub fn of(transcript: Option<&Path>) -> Session {
        use crate::transcript::Prior;
        let Some(path) = transcript else {
            return Session::Ongoing;
        };
        match crate::transcript::prior_turns(path) {
            Ok((Prior::Nothing, _)) => Session::New,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Session::New,
            _ => Session::Ongoing,
        }
    }
}

/// Looks at one prompt as the first of its session. `None`: print nothing.
pub fn check(prompt: &str, cfg: &GateConfig) -> Option<Verdict> {
    check_in(prompt, || Session::New, cfg)
}

/// Looks at one prompt. `session` is asked only when the prompt has
/// something to say without it, so most prompts never read the
/// transcript. `None`: print nothing.
pub fn check_in(
    prompt: &str,
    session: impl FnOnce() -> Session,
    cfg: &GateConfig,
) -> Option<Verdict> {
    if !cfg.enabled {
        return None;
    }
    let prompt = prompt.trim();
    if prompt.is_empty()
        || is_client_turn(prompt)
        || is_slash_command(prompt)
        || crate::extract::is_ok_done(prompt)
    {
        return None;
    }
    let (prompt, cut) = head_and_tail(prompt, MAX_SCAN);
    let prepared = prompt::prepare(&prompt)?;
    let prompt: &str = &prepared.text;
    let scan = anchor::scan_with(prompt, &prepared.pastes);
    let text = text::analyse(&scan.masked);
    if text.word_count() == 0 || is_chitchat(&text) {
        return None;
    }
    let sents = classify_sentences(&text, &scan.masked);
    if sents
        .iter()
        .all(|s| s.question || s.chitchat || s.words == 0)
    {
        return None;
    }

    let mut found: Vec<(Class, usize, usize)> = Vec::new();
    // Per phrase: does it still need binding mid-session?
    let mut beyond: Vec<bool> = Vec::new();
    let keep = |tok: usize| {
        let s = &sents[text.toks[tok].sent as usize];
        !s.question && !s.success && !s.bound && !s.clause_bound(tok)
    };
    let outside = |tok: usize| outside_session(&text, text.toks[tok].sent as usize);
    for hit in matcher().find(&text, &|c| cfg.class_enabled(c)) {
        if keep(hit.first) {
            beyond
                .push(lexicon::names_someone(matcher().source(hit.pattern)) || outside(hit.first));
            found.push((
                hit.class,
                text.toks[hit.first].start,
                text.toks[hit.last - 1].end,
            ));
        }
    }
    if cfg.repeat_failure {
        let mut added = 0;
        for (first, last) in statement_repeats(&text, &sents) {
            let start = text.toks[first].start;
            let covered = found
                .iter()
                .any(|f| f.0 == Class::RepeatFailure && f.1 <= start && start < f.2);
            if keep(first) && !covered && added < matcher::MAX_HITS_PER_CLASS {
                beyond.push(outside(first));
                found.push((Class::RepeatFailure, start, text.toks[last].end));
                added += 1;
            }
        }
    }
    if !cfg.extra_patterns.is_empty() {
        for (start, end) in extra_matches(&cfg.extra_patterns, &scan.masked) {
            if let Some(tok) = token_at(&text, start)
                && keep(tok)
            {
                beyond.push(true);
                found.push((Class::Custom, start, end));
            }
        }
    }

    // A prompt long enough to be cut carries its own material.
    let unanchored = cfg.structural
        && !cut
        && !prepared.shown
        && scan.anchors.is_empty()
        && !names_git_ref(&text)
        && !is_continuation(&text, &sents)
        && sents.iter().any(|s| s.work.is_some() && !s.question);

    if found.is_empty() && !unanchored {
        return None;
    }
    // Only now is the transcript read. After the first prompt, a request
    // without an anchor continues the conversation (the session is its
    // anchor), and only what the session cannot hold needs binding.
    let (mut found, unanchored) = match session() {
        Session::New => (found, unanchored),
        Session::Ongoing => {
            let found: Vec<_> = found
                .into_iter()
                .zip(beyond)
                .filter_map(|(f, b)| b.then_some(f))
                .collect();
            if found.is_empty() {
                return None;
            }
            (found, false)
        }
    };
    found.sort_by_key(|&(c, s, _)| (c, s));
    let mut classes: Vec<Class> = found.iter().map(|f| f.0).collect();
    if unanchored {
        classes.push(Class::Unanchored);
    }
    classes.sort();
    classes.dedup();
    let found: Vec<Found> = found
        .into_iter()
        .map(|(class, s, e)| Found {
            class,
            phrase: quote(&prompt[s..e]),
        })
        .collect();
    let context = render(&classes, &found);
    Some(Verdict {
        classes,
        found,
        context,
    })
}

/// The `extra_patterns` that do not compile, with the reason, so that
/// `cairn config show` or the diagnostics log can name them.
pub fn invalid_extra_patterns(cfg: &GateConfig) -> Vec<(String, String)> {
    cfg.extra_patterns
        .iter()
        .filter_map(|p| compile_extra(p).err().map(|e| (p.clone(), e.to_string())))
        .collect()
}

/// One user pattern, compiled once per process: the configuration loader
/// compiles it to validate it, every prompt after that reuses it.
fn compile_extra(p: &str) -> Result<regex::Regex, regex::Error> {
    type Compiled = std::collections::HashMap<String, Result<regex::Regex, regex::Error>>;
    static COMPILED: OnceLock<std::sync::Mutex<Compiled>> = OnceLock::new();
    let mut compiled = COMPILED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    compiled
        .entry(p.to_string())
        .or_insert_with(|| {
            regex::RegexBuilder::new(p)
                .case_insensitive(true)
                .size_limit(1 << 20)
                .build()
        })
        .clone()
}

fn extra_matches(patterns: &[String], masked: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for p in patterns {
        let Ok(re) = compile_extra(p) else { continue };
        for m in re.find_iter(masked).take(MAX_QUOTES_PER_CLASS) {
            // Code and anchors are masked: a match made only of them binds
            // nothing.
            if !m.as_str().is_empty() && m.as_str().chars().any(|c| c.is_alphanumeric()) {
                out.push((m.start(), m.end()));
            }
        }
    }
    out
}

fn matcher() -> &'static matcher::Matcher {
    static M: OnceLock<matcher::Matcher> = OnceLock::new();
    M.get_or_init(|| matcher::Matcher::new(lexicon::PATTERNS, lexicon::list))
}

/// The prompt, or its head and tail joined by a blank line when it is
/// longer than `max` bytes (`true`: it was cut).
fn head_and_tail(s: &str, max: usize) -> (std::borrow::Cow<'_, str>, bool) {
    if s.len() <= max {
        return (s.into(), false);
    }
    let mut head = max / 2;
    while !s.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = s.len() - max / 2;
    while !s.is_char_boundary(tail) {
        tail += 1;
    }
    (format!("{}\n\n{}", &s[..head], &s[tail..]).into(), true)
}

/// Turns the client writes on the user's behalf.
fn is_client_turn(p: &str) -> bool {
    const TAGS: &[&str] = &[
        "<task-notification",
        "<command-name>",
        "<command-message>",
        "<command-args>",
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
        "<bash-input>",
        "<bash-stdout>",
        "<bash-stderr>",
        "<system-reminder>",
        "<user-memory-input>",
    ];
    TAGS.iter().any(|t| p.starts_with(t))
        || p.starts_with("Caveat: The messages below were generated")
}

/// `/compact`, `/review 12`, `/mcp:tool`: the first word is `/name` with no
/// second slash (`/etc/hosts is wrong` is a path, not a command).
fn is_slash_command(p: &str) -> bool {
    let Some(rest) = p.strip_prefix('/') else {
        return false;
    };
    let first = rest.split(char::is_whitespace).next().unwrap_or("");
    !first.is_empty()
        && first
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
        && first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_:.".contains(c))
}

fn is_chitchat(text: &Text) -> bool {
    let words = text.word_count();
    words <= 12
        && (0..text.toks.len()).all(|i| text.toks[i].opaque || lexicon::is_chitchat(text.word(i)))
}

/// What each sentence is, for the filters.
#[derive(Debug, Clone, Default)]
struct SentenceInfo {
    words: usize,
    chitchat: bool,
    /// Index of the work verb, when the sentence asks for work.
    work: Option<usize>,
    /// A question (and not a request dressed as one).
    question: bool,
    /// The whole sentence is bound (by the next line or by pasted code).
    bound: bool,
    /// Reports success and asks for nothing.
    success: bool,
    /// Clauses as (first token, holds an anchor).
    clauses: Vec<(usize, bool)>,
}

impl SentenceInfo {
    fn clause_bound(&self, tok: usize) -> bool {
        self.clauses
            .iter()
            .rev()
            .find(|c| c.0 <= tok)
            .is_some_and(|c| c.1)
    }
}

fn classify_sentences(text: &Text, masked: &str) -> Vec<SentenceInfo> {
    let n = text.sents.len();
    let mut out = vec![SentenceInfo::default(); n];
    let mut opaque_only = vec![false; n];
    let mut paragraph = vec![0usize; n];
    for (k, s) in text.sents.iter().enumerate() {
        let toks = &text.toks[s.toks.clone()];
        let words = toks.iter().filter(|t| !t.opaque).count();
        let info = &mut out[k];
        info.words = words;
        info.chitchat = words > 0
            && s.toks
                .clone()
                .all(|i| text.toks[i].opaque || lexicon::is_chitchat(text.word(i)));
        opaque_only[k] = words == 0;
        let (work, starts) = work_request(text, s.toks.clone());
        info.work = work;
        info.success = work.is_none() && is_success_report(text, s.toks.clone());
        info.clauses = starts
            .iter()
            .enumerate()
            .map(|(c, &first)| {
                let end = starts.get(c + 1).copied().unwrap_or(s.toks.end);
                (first, (first..end).any(|i| text.toks[i].opaque))
            })
            .collect();
        info.question = info.work.is_none() && is_question(text, k);
        if k > 0 {
            // A blank line between two sentences starts a paragraph.
            let prev_end = text.sents[k - 1].end;
            let gap = &masked.as_bytes()[prev_end.saturating_sub(1)..s.start];
            let newlines = gap.iter().filter(|&&b| b == b'\n').count();
            paragraph[k] = paragraph[k - 1]
                + usize::from(newlines >= 2 || opaque_only[k] != opaque_only[k - 1]);
        }
    }
    // "…like before:" followed by an anchor on the next line.
    for (k, pair) in text.sents.windows(2).enumerate() {
        let next_has_anchor = text.toks[pair[1].toks.clone()].iter().any(|t| t.opaque);
        if pair[0].last == ':' && next_has_anchor {
            out[k].bound = true;
        }
    }
    // Pasted code binds the paragraph that introduces it. Not the one after:
    // "<component>\n\nMake the footer like the other page" still hides
    // which page. One pass: paragraphs are contiguous.
    let mut introduces_code = vec![false; paragraph.last().map_or(0, |p| p + 1)];
    let mut last_words_paragraph = None;
    for k in 0..n {
        if opaque_only[k] {
            if let Some(p) = last_words_paragraph {
                introduces_code[p] = true;
            }
        } else {
            last_words_paragraph = Some(paragraph[k]);
        }
    }
    for (info, &p) in out.iter_mut().zip(&paragraph) {
        info.bound |= introduces_code[p];
    }
    out
}

/// The first token at or after a byte offset.
fn token_at(text: &Text, byte: usize) -> Option<usize> {
    let i = text.toks.partition_point(|t| t.end <= byte);
    (i < text.toks.len()).then_some(i)
}

/// Multi-word phrase lists (request markers, question openers) indexed by
/// first word, so a clause start costs one lookup instead of a scan.
struct Phrases(matcher::WordMap<Vec<&'static str>>);

impl Phrases {
    fn new(list: &'static [&'static str]) -> Phrases {
        let mut map: matcher::WordMap<Vec<&'static str>> =
            matcher::WordMap::with_capacity_and_hasher(list.len(), Default::default());
        for p in list {
            map.entry(p.split('+').next().unwrap_or(p))
                .or_default()
                .push(p);
        }
        // Longest first: "can you please" before "can you".
        for v in map.values_mut() {
            v.sort_by_key(|p| std::cmp::Reverse(p.len()));
        }
        Phrases(map)
    }

    /// The length in words of the longest phrase at `i`.
    fn len_at(&self, text: &Text, i: usize, end: usize) -> Option<usize> {
        if i >= end || text.toks[i].opaque {
            return None;
        }
        self.0
            .get(text.word(i))?
            .iter()
            .find_map(|p| phrase_len(text, p, i, end))
    }
}

fn markers() -> &'static Phrases {
    static P: OnceLock<Phrases> = OnceLock::new();
    P.get_or_init(|| Phrases::new(lexicon::REQUEST_MARKERS))
}

fn git_refs() -> &'static Phrases {
    static P: OnceLock<Phrases> = OnceLock::new();
    P.get_or_init(|| Phrases::new(lexicon::GIT_REF_PHRASES))
}

/// "the last commit", "le dernier commit", "the staged changes": git binds
/// these to one artefact, so they anchor a work request like a hash does.
fn names_git_ref(text: &Text) -> bool {
    (0..text.toks.len()).any(|i| git_refs().len_at(text, i, text.toks.len()).is_some())
}

fn outside_words() -> &'static Phrases {
    static P: OnceLock<Phrases> = OnceLock::new();
    P.get_or_init(|| Phrases::new(lexicon::OUTSIDE_SESSION))
}

/// Does sentence `k` put its referent outside the session ("like last
/// time", "from the meeting", "comme d'habitude")?
fn outside_session(text: &Text, k: usize) -> bool {
    let toks = text.sents[k].toks.clone();
    let end = toks.end;
    toks.into_iter()
        .any(|i| outside_words().len_at(text, i, end).is_some())
}

fn question_openers() -> &'static Phrases {
    static P: OnceLock<Phrases> = OnceLock::new();
    P.get_or_init(|| Phrases::new(lexicon::INTERROGATIVE_PHRASES))
}

/// The length of a request marker ("can you", "peux-tu", "il faut") at `i`.
fn marker_len(text: &Text, i: usize, end: usize) -> Option<usize> {
    markers().len_at(text, i, end)
}

fn phrase_len(text: &Text, phrase: &str, i: usize, end: usize) -> Option<usize> {
    let mut j = i;
    for w in phrase.split('+') {
        if j >= end || text.toks[j].opaque || text.word(j) != w {
            return None;
        }
        j += 1;
    }
    Some(j - i)
}

/// Does the clause starting at `i` ask for work? Returns the verb's index.
fn work_at(text: &Text, mut i: usize, end: usize, mid_sentence: bool) -> Option<usize> {
    let mut marked = false;
    while i < end && !text.toks[i].opaque {
        // "go with the plan…": a choice to act on, and "go" is no filler then.
        if text.word(i) == "go" && i + 1 < end && text.word(i + 1) == "with" {
            return Some(i);
        }
        if let Some(n) = marker_len(text, i, end) {
            i += n;
            marked = true;
        } else if i + 1 < end && lexicon::is_filler(text.word(i)) {
            i += 1;
        } else {
            break;
        }
    }
    if i >= end || text.toks[i].opaque {
        return None;
    }
    let w = text.word(i);
    let next = (i + 1 < end).then(|| text.word(i + 1));
    let is_verb = if w == "comment" {
        next.is_some_and(|n| {
            lexicon::comment_is_english(n, (i + 2 < end).then(|| text.word(i + 2)))
        })
    } else {
        lexicon::is_work_verb_en(w)
            || lexicon::is_work_verb_fr(w)
            || (marked && lexicon::is_work_gerund_en(w))
    };
    if !is_verb || text.toks[i].punct_after == ':' {
        return None;
    }
    // "let's move on", "carry on": proceed, not change anything.
    if text.toks[i].punct_after == '\0' && next.is_some_and(|n| lexicon::is_idiom_follower(w, n)) {
        return None;
    }
    if text.toks[i].punct_after == '\0' && next.is_some_and(lexicon::noun_follower) {
        return None;
    }
    if mid_sentence && !marked {
        // "… and fix the bug" yes; "the build and deploy steps" no.
        let obj =
            i + 1 < end && (text.toks[i + 1].opaque || lexicon::is_object_start(text.word(i + 1)));
        if !obj {
            return None;
        }
    }
    Some(i)
}

/// Finds the work requests of a sentence: at its start or after a
/// conjunction or a mark ("look at the logs and fix the bug", "ok, corrige
/// le test"). Returns the first verb and the starts of the clauses an
/// anchor binds within: the sentence start, then each request that a
/// conjunction or a self-correction adds ("…README.md and make the header
/// like…", "…`archived_at` — no wait, bring back…"). A comma or a
/// semicolon does not cut: "revert the previous fix, it is a1b2c3d".
fn work_request(text: &Text, toks: std::ops::Range<usize>) -> (Option<usize>, Vec<usize>) {
    let end = toks.end;
    let mut first = work_at(text, toks.start, end, false);
    let mut starts = vec![toks.start];
    let mut i = toks.start;
    while i + 1 < end {
        let t = &text.toks[i];
        let w = if t.opaque { "" } else { text.word(i) };
        // A conjunction, or a self-correction ("no wait, first…"), adds a
        // request of its own.
        let conjunction = matches!(
            w,
            "and"
                | "then"
                | "et"
                | "puis"
                | "ensuite"
                | "also"
                | "but"
                | "mais"
                | "plus"
                | "wait"
                | "actually"
                | "instead"
                | "attends"
                | "plutot"
        );
        let opener = matches!(w, "so" | "donc" | "please" | "stp" | "svp");
        let after_mark = matches!(t.punct_after, ',' | ':' | ';' | '(' | ')' | '-');
        if (conjunction || opener || after_mark)
            && let Some(v) = work_at(text, i + 1, end, true)
        {
            first.get_or_insert(v);
            if conjunction {
                starts.push(i + 1);
            }
            i = v + 1;
            continue;
        }
        i += 1;
    }
    (first, starts)
}

/// Repeat failures told as plain statements, beyond the phrase lists: "the
/// sidebar collapses on load again", "the webhook still fires twice". Only
/// in statements: "run the tests again" asks, "it works again" reports
/// success, "I still think…" is an opinion. Returns token spans.
fn statement_repeats(text: &Text, sents: &[SentenceInfo]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (k, s) in text.sents.iter().enumerate() {
        let info = &sents[k];
        if info.work.is_some()
            || info.question
            || info.success
            || opens_with_imperative(text, s.toks.clone())
        {
            continue;
        }
        let end = s.toks.end;
        for i in s.toks.clone() {
            let t = &text.toks[i];
            if t.opaque {
                continue;
            }
            let clause_end = i + 1 == end || t.punct_after != '\0';
            match text.word(i) {
                "again" | "encore"
                    if clause_end && i > s.toks.start && text.toks[i - 1].punct_after == '\0' =>
                {
                    out.push((i - 1, i));
                }
                // "la modale se ferme encore quand…": after a verb, before
                // no quantity.
                "encore"
                    if !clause_end
                        && i > s.toks.start
                        && i + 1 < end
                        && text.toks[i - 1].punct_after == '\0'
                        && !text.toks[i - 1].opaque
                        && !text.toks[i + 1].opaque
                        && !lexicon::is_not_before_encore(text.word(i - 1))
                        && !lexicon::is_not_after_encore(text.word(i + 1)) =>
                {
                    out.push((i - 1, i));
                }
                "still"
                    if !clause_end
                        && i + 1 < end
                        && !text.toks[i + 1].opaque
                        && !lexicon::is_mental_after_still(text.word(i + 1)) =>
                {
                    out.push((i, i + 1));
                }
                _ => {}
            }
        }
    }
    out
}

/// Does the sentence open with a verb in the imperative ("run the tests
/// again", "relance le job encore")? Then it asks, even if the verb changes
/// nothing.
fn opens_with_imperative(text: &Text, toks: std::ops::Range<usize>) -> bool {
    let end = toks.end;
    let mut i = toks.start;
    while i + 1 < end
        && !text.toks[i].opaque
        && (lexicon::is_filler(text.word(i)) || marker_len(text, i, end).is_some())
    {
        i += marker_len(text, i, end).unwrap_or(1);
    }
    i < end && !text.toks[i].opaque && {
        let w = text.word(i);
        lexicon::is_action_verb(w) || lexicon::is_work_verb_en(w) || lexicon::is_work_verb_fr(w)
    }
}

/// "As before, all tests pass", "looks much better than the old one": a
/// sentence that reports success and asks for nothing. Its vague words
/// need no binding.
fn is_success_report(text: &Text, toks: std::ops::Range<usize>) -> bool {
    let mut success = false;
    for i in toks {
        if text.toks[i].opaque {
            continue;
        }
        let w = text.word(i);
        if lexicon::is_negation(w) {
            return false;
        }
        success |= lexicon::is_success(w);
    }
    success
}

fn is_question(text: &Text, k: usize) -> bool {
    let s = &text.sents[k];
    let end = s.toks.end;
    let mut i = s.toks.start;
    while i + 1 < end && !text.toks[i].opaque && lexicon::is_filler(text.word(i)) {
        i += 1;
    }
    if i >= end || text.toks[i].opaque {
        return s.last == '?';
    }
    let w = text.word(i);
    if s.last == '?' {
        // "It's still broken?" keeps the statement's word order: English
        // asks by inverting ("Is it still broken?"), so this is a complaint
        // with a question mark. French asks without inverting all the time
        // ("Le build a échoué ?"), hence English subjects only.
        return !(lexicon::is_english_subject(w) && !(i + 1 < end && text.word(i + 1) == "mean"));
    }
    if w == "comment" {
        let after = (i + 2 < end).then(|| text.word(i + 2));
        return !(i + 1 < end && lexicon::comment_is_english(text.word(i + 1), after));
    }
    lexicon::is_interrogative(w) || question_openers().len_at(text, i, end).is_some()
}

/// "fix it", "corrige ça", "ok go ahead and do it": a short request whose
/// only object is a pronoun. The model has just said what it is.
fn is_continuation(text: &Text, sents: &[SentenceInfo]) -> bool {
    if text.word_count() > 6 {
        return false;
    }
    let Some(verb) = sents.iter().find_map(|s| s.work) else {
        return false;
    };
    (verb + 1..text.toks.len())
        .all(|i| !text.toks[i].opaque && lexicon::is_continuation_word(text.word(i)))
}

/// A phrase as the note quotes it: one line, no quotes or angle brackets
/// (the note is wrapped in a tag), at most `MAX_QUOTE_CHARS` characters.
fn quote(s: &str) -> String {
    let mut out = String::new();
    let words = s
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty());
    for (n, c) in words
        .flat_map(|w| w.chars().chain(std::iter::once(' ')))
        .enumerate()
    {
        if n >= MAX_QUOTE_CHARS {
            out.push('…');
            return out;
        }
        match c {
            '"' => out.push('\''),
            '<' | '>' => {}
            c => out.push(c),
        }
    }
    out.trim_end().to_string()
}

fn render(classes: &[Class], found: &[Found]) -> String {
    let structural_only = classes == [Class::Unanchored];
    let head = if structural_only {
        "<cairn-refine-gate>\nThis prompt asks for work but names no file, commit, line, URL or \
         identifier.\n"
    } else {
        "<cairn-refine-gate>\nThis prompt refers to things it does not show:\n"
    };
    let tail = if structural_only {
        "Before changing anything, find the files involved (search the repository) and say which \
         ones you will change. If the request could mean different places, ask the user ONE batch \
         of questions, then wait. If the context already makes the target unambiguous, just \
         proceed.\n</cairn-refine-gate>"
    } else {
        "Before changing anything, bind each reference to a concrete artefact (file path, commit, \
         file:line, URL, test or command) using this conversation, git and a search of the \
         repository, and state each binding in one line. If one cannot be bound with confidence, \
         do not guess: ask the user ONE batch of questions, then wait. If the context already \
         makes everything unambiguous, just proceed.\n</cairn-refine-gate>"
    };
    let line = |c: Class| format!("- {}{{quotes}} -> {}.\n", c.label(), c.hint());
    let fixed: usize = head.chars().count()
        + tail.chars().count()
        + classes
            .iter()
            .map(|&c| line(c).chars().count() - "{quotes}".len())
            .sum::<usize>();
    // Distinct phrases per class. Every class gets one quote before any gets
    // a second, within MAX_QUOTES and the room the fixed text leaves, so the
    // note never needs cutting.
    let per_class: Vec<Vec<&str>> = classes
        .iter()
        .map(|&c| {
            let mut v: Vec<&str> = Vec::new();
            for f in found.iter().filter(|f| f.class == c) {
                if !v.iter().any(|p| p.eq_ignore_ascii_case(&f.phrase)) {
                    v.push(&f.phrase);
                }
            }
            v
        })
        .collect();
    let mut room = (MAX_CONTEXT - 1).saturating_sub(fixed);
    let mut count = MAX_QUOTES;
    let mut shown = vec![0usize; classes.len()];
    let mut full = vec![false; classes.len()];
    for round in 0..MAX_QUOTES_PER_CLASS {
        for (k, phrases) in per_class.iter().enumerate() {
            let Some(p) = phrases.get(round) else {
                continue;
            };
            // `: "p"` or `, "p"`.
            let cost = p.chars().count() + 4;
            if count == 0 || full[k] || cost > room {
                full[k] = true;
                continue;
            }
            shown[k] += 1;
            count -= 1;
            room -= cost;
        }
    }
    let mut out = String::from(head);
    for (k, &class) in classes.iter().enumerate() {
        let mut quotes = String::new();
        for (n, p) in per_class[k].iter().take(shown[k]).enumerate() {
            quotes.push_str(if n == 0 { ": \"" } else { ", \"" });
            quotes.push_str(p);
            quotes.push('"');
        }
        out.push_str(&line(class).replace("{quotes}", &quotes));
    }
    out.push_str(tail);
    out
}
