//! What a final answer teaches someone resuming the work tomorrow.
//!
//! Most of an answer retells what the digest already holds (the files, the
//! commands, the tests) or is filler ("Perfect!", "Let me know…", "clean and
//! maintainable"). A few of its lines are worth keeping: the direct answer
//! to a question ("Yes, WebSearch is available in `-p` mode"), a conclusion
//! ("In short: …"), what a thing is, and why a change was made the way it was
//! ("… to avoid double-counting", "… instead of …"). Each sentence is scored
//! on such evidence and only the few that clear a bar are kept: a turn with
//! nothing worth keeping gives nothing.

use super::super::cues::{self, Cue, Sentence, cap};

/// What the turn was, which decides what its answer can teach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Nothing changed: the answer is the outcome (an explanation, a
    /// review, an opinion).
    Informational,
    /// Files or the world changed: the answer may say why, or how.
    Work,
}

/// What the rest of the digest already says about the turn.
#[derive(Debug, Clone, Copy)]
pub(super) struct Turn {
    pub kind: Kind,
    /// With no strong line, an informational answer's opening statement
    /// is kept (an explanation, not a run the checks already tell).
    pub opening: bool,
    /// A passing test run with its counts is already a work bullet: the
    /// answer saying "66 tests pass" again is no lesson.
    pub tests_counted: bool,
    /// The answer proposes and asks ("Proceed?"): only what it says it
    /// found is a lesson, the rest is a plan nobody accepted yet.
    pub findings_only: bool,
}

/// The longest lesson kept, in characters.
const MAX_LESSON: usize = 220;

/// Openings of a conclusion, lower case.
const CONCLUSION: &[&str] = &[
    "in short",
    "in summary",
    "to summarize",
    "to sum up",
    "bottom line",
    "tl;dr",
    "tldr",
    "in conclusion",
    "overall,",
    "the recommended",
    "my recommendation",
    "recommendation:",
    "the key takeaway",
    "the takeaway",
    "the key insight",
    "key insight",
    "the trick is",
    "the catch is",
    "it turns out",
    "turns out",
    "root cause:",
    "root cause is",
    "the root cause",
    "a pragmatic middle ground",
    "the verdict",
    "verdict:",
    "findings stand",
    "findings:",
    "key findings:",
    "the findings:",
    "net result",
    "the upshot",
    "conclusion:",
    "en résumé",
    "conclusion :",
    "constat :",
    "en bref",
    "bref,",
    "en conclusion",
    "pour résumer",
    "ma recommandation",
    "recommandation :",
];

/// Openings that say the sentence is something learnt, whatever the turn
/// changed. Not "the root cause" (after a fix, the cause of the problem
/// fixed, said with the work), nor "Note:" (as often an instruction).
const LEARNT: &[&str] = &[
    "the key insight",
    "key insight",
    "it turns out",
    "turns out",
    "the trick is",
    "the catch is",
    "the key takeaway",
    "the takeaway",
    "lesson learned",
    "à retenir",
];

/// Whether a lesson opens as something found: learnt, or the cause of a
/// problem ("Root cause: …").
pub(super) fn says_a_finding(text: &str) -> bool {
    says_a_lesson(text)
        || starts_with_any(
            &text.to_lowercase(),
            &[
                "root cause",
                "the root cause",
                "the cause",
                "cause:",
                "la cause",
                "diagnosis",
            ],
        )
}

/// Whether a lesson opens as something learnt ("The key insight: …").
pub(super) fn says_a_lesson(text: &str) -> bool {
    starts_with_any(&text.to_lowercase(), LEARNT)
}

/// Section titles whose first sentence is the answer's gist.
const GIST_SECTIONS: &[&str] = &[
    "summary",
    "project summary",
    "overview",
    "conclusion",
    "findings",
    "key findings",
    "answer",
    "short answer",
    "tl;dr",
    "root cause",
    "diagnosis",
    "verdict",
    "bottom line",
    "what i found",
    "résumé",
    "synthèse",
    "conclusion",
    "diagnostic",
    "cause",
    "réponse",
];

/// Sections that hold nothing to learn: links, instructions the README
/// already has, the file list the work bullets already say, the to-dos
/// read elsewhere.
const SKIP_SECTIONS: &[&str] = &[
    "source",
    "reference",
    "link",
    "how to use",
    "usage",
    "next step",
    "files modified",
    "files changed",
    "files created",
    "files updated",
    "modified files",
    "changed files",
    "new files",
    "prochaine",
    "fichiers modifiés",
    "fichiers créés",
    "liens",
];

/// Words that say why or how: the part of a change a diff does not show.
const BECAUSE: &[&str] = &[
    " because ",
    " so that ",
    " to avoid ",
    " to prevent ",
    " instead of ",
    " rather than ",
    " by default",
    " which means",
    " which simply",
    " is still used",
    " only when ",
    " unless ",
    " otherwise ",
    " the reason ",
    " due to ",
    " caused by ",
    " parce que ",
    " à cause d",
    " dû à ",
    " due à ",
    " afin de ",
    " afin d'",
    " pour éviter ",
    " au lieu de ",
    " au lieu d'",
    " plutôt que ",
    " par défaut",
    " sinon ",
    " car ",
];

/// Praise and padding: a sentence made of it tells nothing.
const FILLER: &[&str] = &[
    "comprehensive",
    "successfully",
    "maintainable",
    "cleaner",
    "user experience",
    "user-friendly",
    "seamless",
    "robust",
    "as expected",
    "more efficient",
    "better performance",
    "beautifully",
    "intuitive",
    "professional",
    "much more",
    "ensures",
    "ensure that",
    "helpful",
    "great question",
    "avec succès",
    "plus propre",
];

/// Openings of narration, acknowledgement and offers, lower case.
const NOT_A_LESSON: &[&str] = &[
    "perfect",
    "great",
    "excellent",
    "done",
    "all done",
    "got it",
    "looking at",
    "i can see",
    "i see ",
    "i notice",
    "the changes look good",
    "sure",
    "okay",
    "ok,",
    "let me",
    "i'll",
    "i will",
    "i'm going",
    "i am going",
    "here's",
    "here is",
    "here are",
    "now ",
    "next, i",
    "would you like",
    "do you want",
    "let me know",
    "if you want",
    "if you'd like",
    "feel free",
    "is there anything",
    "is there something",
    "you can now",
    "you're welcome",
    // Said to the user about the user: "You're ready to `just dev`
    // whenever you like", "You're asking about X, not Y".
    "you're ready",
    "you are ready",
    "you're all set",
    "you're asking",
    "you are asking",
    "implementation is complete",
    "the changes ensure",
    "both sections are",
    // Progress said as it happens: "Creating quick task 011: …".
    "creating ",
    "running ",
    "checking ",
    "starting ",
    "launching ",
    "spawning ",
    "good question",
    "sounds good",
    "voici",
    "parfait",
    "bonne question",
    "d'accord",
    "très bien",
    "je vais",
    "n'hésite",
    "n'hésitez",
    "dis-moi",
    "dites-moi",
    // A reaction to what the user just said: it points back at their
    // message and holds nothing of its own ("That's a useful signal").
    "ah ",
    "ah,",
    "ah —",
    "oh ",
    "oh,",
    "hmm",
    "aha",
    "yeah",
    "good call",
    "good catch",
    "good point",
    "fair point",
    "fair enough",
    "makes sense",
    "that makes sense",
    "that's fair",
    "that's true",
    "that's right",
    "that's a good",
    "that's a great",
    "that's a useful",
    "that's a fair",
    "that's helpful",
    "that's tighter",
    "that's better",
    "that's closer",
    "that's interesting",
    "bonne remarque",
    "bien vu",
    // A way offered for the user to pick, not what was found: "My
    // recommendation: A", "Recommended: Option A".
    "my recommendation",
    "recommendation:",
    "recommended:",
    "i'd recommend",
    "i recommend",
    "i'd suggest",
    "i suggest",
    "ma recommandation",
    "je recommande",
    "je suggère",
    // A check that came back as expected: "Good, version 2.1.34 — well
    // above the minimum."
    "good,",
    "good —",
    "good.",
];

/// Verbs that open a line saying what a change did.
const CHANGE_VERBS: &[&str] = &[
    "added",
    "updated",
    "fixed",
    "changed",
    "switched",
    "replaced",
    "removed",
    "used",
    "made",
    "moved",
    "refactored",
    "renamed",
    "configured",
    "kept",
    "dropped",
    "split",
    "merged",
    "ajouté",
    "modifié",
    "corrigé",
    "remplacé",
    "supprimé",
    "renommé",
    "déplacé",
];

struct Candidate {
    text: String,
    score: i32,
    order: usize,
}

/// The lessons of one answer, in its order: at most two for an
/// informational turn, one for a work turn (two when both are strong).
pub(super) fn lessons(answer: &str, turn: Turn) -> Vec<String> {
    let kind = turn.kind;
    if answer.split_whitespace().count() < 12 {
        return Vec::new();
    }
    let sents = cues::sentences(answer);
    let mut cands = Vec::new();
    let mut fallback = None;
    let mut i = 0;
    let mut seen_section: Option<Option<&str>> = None;
    while i < sents.len() {
        let s = &sents[i];
        let first_in_section = seen_section != Some(s.section.as_deref());
        seen_section = Some(s.section.as_deref());
        // A lead-in and its short list say one thing together ("combines
        // both criteria: least nested path; most recent").
        if !s.item && s.text.ends_with(':') {
            let items: Vec<&Sentence> = sents[i + 1..]
                .iter()
                .take_while(|t| t.item && t.section == s.section)
                .collect();
            let short = items
                .iter()
                .all(|t| t.text.split_whitespace().count() <= 12);
            // Examples and file lists are not a rule.
            let examples = items.iter().any(|t| t.text.starts_with('`'))
                || starts_with_any(
                    &s.text.to_lowercase(),
                    &[
                        "this way",
                        "for example",
                        "for instance",
                        "e.g",
                        "such as",
                        "like this",
                        "par exemple",
                    ],
                );
            if (2..=4).contains(&items.len()) && short && !examples {
                let joined = items
                    .iter()
                    .map(|t| t.text.trim_end_matches(['.', ';']))
                    .collect::<Vec<_>>()
                    .join("; ");
                let text = format!("{} {joined}", s.text);
                if let Some(score) = score(&text, s, first_in_section, turn) {
                    cands.push(Candidate {
                        text,
                        score: score + 3,
                        order: i,
                    });
                }
                i += 1 + items.len();
                continue;
            }
            i += 1;
            continue;
        }
        if let Some(score) = score(&s.text, s, first_in_section, turn) {
            if fallback.is_none() && !s.item && score >= 0 && s.text.split_whitespace().count() >= 8
            {
                fallback = Some(s.text.clone());
            }
            cands.push(Candidate {
                text: s.text.clone(),
                score,
                order: i,
            });
        }
        i += 1;
    }
    if kind == Kind::Informational {
        cands.extend(flows(answer));
    }
    cands.retain(|c| c.score >= 3 && (!turn.findings_only || says_a_finding(&c.text)));
    cands.sort_by(|a, b| b.score.cmp(&a.score).then(a.order.cmp(&b.order)));
    let keep = match kind {
        Kind::Informational if cands.get(2).is_some_and(|c| c.score >= 5) => 3,
        Kind::Informational => 2,
        Kind::Work if cands.get(1).is_some_and(|c| c.score >= 4) => 2,
        Kind::Work => 1,
    };
    cands.truncate(keep);
    // Read in the answer's order.
    cands.sort_by_key(|c| c.order);
    let mut out: Vec<String> = cands
        .into_iter()
        .map(|c| cap(&unlink(&c.text), MAX_LESSON))
        .collect();
    // An explanation with no strong line still has its opening statement.
    if out.is_empty()
        && kind == Kind::Informational
        && turn.opening
        && !turn.findings_only
        && let Some(f) = fallback
    {
        out.push(cap(&unlink(&f), MAX_LESSON));
    }
    out
}

/// The answer's direct reply to the question it answers, and whether it
/// is a strong one: what follows "The answer is", or its opening "Yes…" /
/// "No…" with the sentence after it (strong); else its first plain
/// statement (weak: only worth keeping when it is a lesson anyway).
/// Compliments and lead-ins ("Great question —", "Here's…") are no reply
/// ([`opens_as_filler`]).
pub(super) fn direct_answer(answer: &str) -> Option<(String, bool)> {
    let sents = cues::sentences(answer);
    let plain = |s: &&Sentence| !s.item && !s.question && !s.text.ends_with(':');
    for s in sents.iter().filter(plain).take(12) {
        let l = s.text.to_lowercase();
        if let Some(at) = l.find("the answer is") {
            let rest = s.text[at + "the answer is".len()..]
                .trim_start_matches([':', ' '])
                .trim();
            if rest.split_whitespace().count() >= 3 {
                return Some((cap(&unlink(rest), MAX_LESSON), true));
            }
        }
    }
    let mut it = sents.iter().filter(plain);
    // "**SessionStart**: Yes, has both hooks:": the reply given item by
    // item, under a lead-in ("Here's what I found:").
    let itemised = || labelled_replies(answer).map(|r| (cap(&unlink(&r), MAX_LESSON), true));
    let Some(first) = it.next() else {
        return itemised();
    };
    let l = first.text.to_lowercase();
    let yes_or_no = starts_with_any(&l, &["yes", "no", "oui", "non"]);
    // "Yes, exactly." alone says nothing; with the sentence after it, it
    // says what is so.
    if opens_as_filler(&l) || (first.text.split_whitespace().count() < 3 && !yes_or_no) {
        return itemised();
    }
    if yes_or_no {
        let text = match it.next() {
            Some(next) if first.text.split_whitespace().count() <= 14 => {
                format!("{} {}", first.text, next.text)
            }
            _ => first.text.clone(),
        };
        return Some((cap(&unlink(&text), MAX_LESSON), true));
    }
    Some((cap(&unlink(&first.text), MAX_LESSON), false))
}

/// The top-level list items of an answer that reply yes or no under
/// their own label (`- **SessionStart**: Yes, has **both** hooks:`), with
/// the labels of the items under one ending on a colon ("— Command hook,
/// Agent hook"); at most two, joined.
fn labelled_replies(answer: &str) -> Option<String> {
    let lines: Vec<&str> = answer.lines().take(200).collect();
    let item = |l: &str| -> Option<String> {
        let t = l.trim_start();
        let rest = t
            .strip_prefix("- ")
            .or_else(|| t.strip_prefix("* "))
            .or_else(|| {
                let digits = t.find(|c: char| !c.is_ascii_digit())?;
                (digits > 0).then(|| t[digits..].strip_prefix(". "))?
            })?;
        Some(rest.replace("**", "").replace('`', "'"))
    };
    let mut out: Vec<String> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if out.len() == 2 || line.starts_with(char::is_whitespace) {
            continue;
        }
        let Some(text) = item(line) else {
            continue;
        };
        let Some((label, reply)) = text.split_once(": ") else {
            continue;
        };
        let lower = reply.to_lowercase();
        // "Yes, …", "No —": the word whole ("Normally", "Nowhere" are not).
        let first_word: String = lower.chars().take_while(|c| c.is_alphanumeric()).collect();
        if label.split_whitespace().count() > 4
            || !["yes", "no", "oui", "non"].contains(&first_word.as_str())
        {
            continue;
        }
        let mut said = format!("{label}: {}", reply.trim_end_matches(':'));
        if reply.ends_with(':') {
            let under: Vec<String> = lines[i + 1..]
                .iter()
                .take_while(|l| l.trim().is_empty() || l.starts_with(char::is_whitespace))
                .filter_map(|l| item(l))
                .map(|t| {
                    let end = t.find([':', '(', '—']).unwrap_or(t.len());
                    t[..end].trim().to_owned()
                })
                .filter(|t| !t.is_empty())
                .take(3)
                .collect();
            if !under.is_empty() {
                said = format!("{said} — {}", under.join(", "));
            }
        }
        out.push(said);
    }
    (!out.is_empty()).then(|| out.join("; "))
}

/// The short statement a work turn's answer opens with when it is the
/// outcome ("CI is green.", "The deploy succeeded."), not an
/// acknowledgement, nor what the test and action bullets already say.
pub(super) fn outcome_opening(answer: &str, tests_counted: bool) -> Option<String> {
    const SAYS_DONE: &[&str] = &[
        "green",
        "passing",
        "passes",
        "succeeded",
        "succeeds",
        "successful",
        "deployed",
        "is live",
        "are live",
        "resolved",
        "vert",
        "verte",
        "passe",
        "déployé",
        "déployée",
        "réussi",
        "réussie",
    ];
    const VAGUE: &[&str] = &[
        "all",
        "everything",
        "it",
        "this",
        "that",
        "done",
        "tout",
        "c'est",
        "ça",
        "cela",
    ];
    let first = cues::sentences(answer).into_iter().next()?;
    if first.item || first.question || first.section.is_some() {
        return None;
    }
    let text = first.text.trim().trim_end_matches(['.', '!']);
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    if !(2..=10).contains(&words.len())
        || starts_with_any(&lower, NOT_A_LESSON)
        || VAGUE.contains(&words[0].trim_matches(|c: char| !c.is_alphanumeric()))
        || (tests_counted && ["test", "suite", "spec"].iter().any(|w| lower.contains(w)))
    {
        return None;
    }
    let padded = format!(" {} ", lower.replace([',', ';', ':'], " "));
    SAYS_DONE
        .iter()
        .any(|w| padded.contains(&format!(" {w} ")))
        .then(|| text.to_owned())
}

/// `[next.config.js](next.config.js:184:8-187:10)` reads `next.config.js`:
/// an editor's link target is noise in a log.
pub(super) fn unlink(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find("](") else { break };
        let label = &after[..close];
        let Some(end) = after[close + 2..].find(')') else {
            break;
        };
        if label.contains(['[', ']']) {
            out.push_str(&rest[..=open]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..open]);
        out.push_str(label);
        rest = &after[close + 2 + end + 1..];
    }
    out.push_str(rest);
    out
}

/// Whether a lower-cased sentence opens as narration, acknowledgement,
/// praise or an offer ("Great question —", "Let me…", "Done."): never
/// a lesson, a direct reply or an outcome.
pub(super) fn opens_as_filler(lower: &str) -> bool {
    starts_with_any(lower, NOT_A_LESSON)
}

fn starts_with_any(lower: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| lower.starts_with(p))
}

/// The evidence a sentence holds; `None` when it can never be a lesson.
fn score(text: &str, s: &Sentence, first_in_section: bool, turn: Turn) -> Option<i32> {
    let kind = turn.kind;
    let words = text.split_whitespace().count();
    if s.question || text.ends_with('?') || !(5..=70).contains(&words) {
        return None;
    }
    if matches!(s.list_cue, Some(Cue::FollowUp | Cue::Proposal)) {
        return None;
    }
    let lower = text.to_lowercase();
    // "No — and the reason is ordering." answers a question it does not
    // repeat: without a name in it, tomorrow it says nothing.
    if words < 12
        && ["yes", "no", "oui", "non"].iter().any(|y| {
            lower
                .strip_prefix(y)
                .is_some_and(|r| r.starts_with([' ', ',', '—', '-', '.', '!']))
        })
        && !names_code(text)
        && !text
            .split_whitespace()
            .skip(1)
            .any(|w| w.chars().next().is_some_and(char::is_uppercase))
    {
        return None;
    }
    // "Question 1 of ~4: …": one of the questions the answer asks.
    let asks_in_turn = lower
        .strip_prefix("question ")
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    if starts_with_any(&lower, NOT_A_LESSON)
        || asks_in_turn
        || lower.contains("http://")
        || lower.contains("https://")
    {
        return None;
    }
    let section = s.section.as_deref().map(str::to_lowercase);
    let section = section.as_deref().map(|t| {
        t.trim_matches(|c: char| !c.is_alphanumeric())
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
            .to_owned()
    });
    if let Some(t) = &section
        && SKIP_SECTIONS.iter().any(|k| t.starts_with(k))
    {
        return None;
    }
    let mut score = 0;
    if starts_with_any(&lower, CONCLUSION) {
        score += 4;
    }
    if kind == Kind::Informational
        && ["yes,", "yes ", "no,", "oui,", "non,"]
            .iter()
            .any(|p| lower.starts_with(p))
    {
        score += 4;
    }
    if let Some(t) = &section
        && GIST_SECTIONS
            .iter()
            .any(|k| t == k || t.starts_with(&format!("{k} ")))
    {
        score += if first_in_section { 3 } else { 1 };
    }
    if matches!(s.list_cue, Some(Cue::Knowledge)) {
        score += 3;
    }
    let padded = format!(" {lower} ");
    if BECAUSE.iter().any(|b| padded.contains(b)) {
        score += 2;
    }
    if is_definition(&lower) {
        score += 2;
    }
    let outcome = [
        "tests pass",
        "tests passed",
        "tests now pass",
        "all tests",
        "coverage",
    ]
    .iter()
    .any(|p| lower.contains(p));
    if outcome {
        if turn.tests_counted {
            return None;
        }
        score += 2;
    }
    if names_code(text) {
        score += 1;
    }
    if kind == Kind::Work {
        let first = lower.split_whitespace().next().unwrap_or("");
        if CHANGE_VERBS.contains(&first) {
            score += 1;
        }
        // A line about a file is what the work bullets already say.
        if text.starts_with('`') {
            score -= 2;
        }
    }
    if FILLER.iter().any(|f| lower.contains(f)) {
        score -= 3;
    }
    if ["i ", "i'", "we ", "je ", "j'", "nous "]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        score -= 2;
    }
    Some(score)
}

/// "X is a …", "X are …": a sentence saying what something is. The subject
/// is short and names something (not "it", "this", "everything").
fn is_definition(lower: &str) -> bool {
    const VAGUE: &[&str] = &[
        "it",
        "this",
        "that",
        "these",
        "those",
        "there",
        "everything",
        "which",
        "here",
        "ce",
        "cela",
        "ça",
        "il",
        "elle",
    ];
    // "X is a …", not "X is now passing": the verb and what follows it.
    const VERBS: &[&str] = &[
        " is a ",
        " is an ",
        " is the ",
        " are the ",
        " is not ",
        " are not ",
        " is still ",
        " is only ",
        " is available",
        " are available",
        " is used ",
        " est un ",
        " est une ",
        " est le ",
        " est la ",
        " sont des ",
        " n'est pas ",
        " est disponible",
    ];
    for verb in VERBS {
        if let Some(at) = lower.find(verb)
            && at <= 40
        {
            let subject = &lower[..at];
            let first = subject.split_whitespace().next().unwrap_or("");
            return !subject.trim().is_empty()
                && !VAGUE.contains(&first)
                && subject.split_whitespace().count() <= 5;
        }
    }
    false
}

/// Holds a code identifier in backticks that is not a path.
fn names_code(text: &str) -> bool {
    text.split('`')
        .skip(1)
        .step_by(2)
        .any(|c| !c.is_empty() && !c.contains('/') && !c.contains(' ') && c.len() <= 60)
}

/// Flow lines (`parser.py → factories/ → renderer.py`): an architecture in
/// one line, usually in a code block the sentence splitter skips.
fn flows(answer: &str) -> Vec<Candidate> {
    answer
        .lines()
        .enumerate()
        .filter_map(|(order, l)| {
            let t = l.trim();
            let arrows = t.matches('→').count() + t.matches("->").count();
            (arrows >= 2
                && t.chars().count() <= 160
                && t.chars().any(char::is_alphabetic)
                && !t.starts_with(['$', '#', '|']))
            .then(|| Candidate {
                text: t.to_owned(),
                score: 3,
                order: 10_000 + order,
            })
        })
        .take(1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn informational() -> Turn {
        Turn {
            kind: Kind::Informational,
            opening: true,
            tests_counted: false,
            findings_only: false,
        }
    }

    fn work(tests_counted: bool) -> Turn {
        Turn {
            kind: Kind::Work,
            opening: true,
            tests_counted,
            findings_only: false,
        }
    }

    #[test]
    fn a_test_count_already_in_the_work_is_not_said_again() {
        let a = "## Summary\n\n**Test Results:**\n- 66 tests pass (26 new tests added)\n- 100% branch coverage maintained";
        assert!(
            lessons(a, work(true)).is_empty(),
            "{:?}",
            lessons(a, work(true))
        );
        assert!(!lessons(a, work(false)).is_empty());
    }

    #[test]
    fn the_findings_an_investigation_ends_on_are_kept() {
        let a = "Verified. Cross-check confirms the attribution from two independent paths:\n\n\
            - **Impact gate (oracle):** matches the precomputed column to 3e-16.\n\n\
            Findings stand: 0/49 recoverable as-is; impact>100 kpc is the binding gate (45/49); \
            two catalogs are never queried (33/49).";
        let l = lessons(a, work(false));
        assert!(
            l.iter()
                .any(|l| l.starts_with("Findings stand: 0/49 recoverable")),
            "{l:?}"
        );
    }

    #[test]
    fn a_question_keeps_its_direct_answers() {
        let a = "## Summary: `-p` with WebSearch and Task\n\n### WebSearch in `-p` Mode\n**Yes, WebSearch is available** in `claude -p` (print mode). You can pre-approve it with:\n```bash\nclaude -p \"x\" --allowedTools \"WebSearch\"\n```\n\n### Task Tool with Haiku\n**Yes, the Task tool supports Haiku** via the optional `model` parameter:\n- Enum values: sonnet, opus, haiku\n- Default: inherits\n\n### Sources\n- [CLI reference](https://code.claude.com/docs)\n";
        let l = lessons(a, informational());
        assert_eq!(l.len(), 2, "{l:?}");
        assert!(l[0].starts_with("Yes, WebSearch is available"), "{l:?}");
        assert!(l[1].contains("Task tool supports Haiku"), "{l:?}");
    }

    #[test]
    fn a_reply_given_item_by_item_is_the_direct_answer() {
        let a = "Here's what I found:\n\n**`hooks/hooks.json`**:\n\n\
            - **SessionStart**: Yes, has **both** hooks:\n  \
            1. **Command hook** (line 7-8) — runs `session-start-hook.sh`\n  \
            2. **Agent hook** (line 15-16) — type `agent`\n\n\
            - **SessionEnd**: Has **one** hook:\n  1. **Command hook** — 30s timeout\n";
        assert_eq!(
            direct_answer(a),
            Some((
                "SessionStart: Yes, has both hooks — Command hook, Agent hook".to_owned(),
                true
            ))
        );
        // A bare "Yes, exactly." says what with the statement after it.
        assert_eq!(
            direct_answer(
                "Yes, exactly. With the fix we just pushed:\n\n- **SessionEnd fires** → archived\n\n\
                 Either way, the pending markdown gets created."
            ),
            Some((
                "Yes, exactly. Either way, the pending markdown gets created.".to_owned(),
                true
            ))
        );
        // Items that reply nothing are no answer, nor a word that only
        // starts like one.
        for none in [
            "Here's what I found:\n\n- **A**: has one hook\n",
            "Here's what I found:\n\n- **Sessions**: Normally kept in memory\n",
        ] {
            assert_eq!(direct_answer(none), None, "{none}");
        }
    }

    #[test]
    fn an_overview_keeps_its_gist_and_its_flow() {
        let a = "Here's an overview of the **claude-code-log** project:\n\n## Project Summary\n\nA Python CLI/TUI tool that converts Claude Code transcript JSONL files into readable HTML and Markdown formats. It enables browsing.\n\n## Data Pipeline\n\n```\nJSONL File → parser.py → factories/ → renderer.py → html/ or markdown/\n```\n";
        let l = lessons(a, informational());
        assert!(l[0].starts_with("A Python CLI/TUI tool"), "{l:?}");
        assert!(l[1].contains("parser.py → factories/"), "{l:?}");
    }

    #[test]
    fn what_the_answer_says_of_the_user_is_no_lesson() {
        for said in [
            "You're ready to `just dev` whenever you like, the ports are in `.env` now.",
            "You're asking about improving the project's developer documentation, not about my learning.",
        ] {
            assert!(lessons(said, informational()).is_empty(), "{said}");
        }
    }

    #[test]
    fn a_way_offered_or_a_question_asked_is_no_lesson() {
        for said in [
            "My recommendation: A — `gh release list --json tagName` sorted newest-first, because it is exact.",
            "Recommended: Option A — CWD by default, but honor `--dataset` if already provided because users expect it.",
            "Question 1 of ~4: The skip-gate in the current `nightly.yml` compares to commits in the last 24h because of cron.",
            "Good, version 2.1.34 — well above the 1.0.33 minimum the plugin system needs because of hooks.",
        ] {
            assert!(lessons(said, informational()).is_empty(), "{said}");
        }
        // What was found, said with a reason, still is.
        let found = "The cache is rebuilt on every start because the key includes the process id.";
        assert_eq!(lessons(found, informational()), [found]);
    }

    #[test]
    fn a_work_answer_keeps_why_not_praise() {
        let a = "Perfect! I have successfully updated the index. Here's a summary:\n\n## Changes Made\n\n### 1. Updated `converter.py`:\n- Added token aggregation logic for each project\n- Used `seen_request_ids` to avoid double-counting tokens from duplicate assistant messages\n\n## Features Added\n\n1. **Proper Deduplication**: Avoids double-counting tokens using comprehensive request ID tracking\n\nThe implementation follows the same patterns and is more maintainable.";
        let l = lessons(a, work(false));
        assert_eq!(
            l,
            vec![
                "Used `seen_request_ids` to avoid double-counting tokens from duplicate assistant messages"
            ]
        );
    }

    #[test]
    fn a_lead_in_and_its_short_list_are_one_lesson() {
        let a = "The implementation now combines both criteria:\n1. **Primary**: Least nested path (fewer path parts)\n2. **Tiebreaker**: Most recent (lower index in the list)\n\nThis way it picks the project root.";
        let l = lessons(a, work(false));
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(
            l[0].contains("Least nested path") && l[0].contains("Most recent"),
            "{l:?}"
        );
    }

    #[test]
    fn narration_offers_and_padding_give_nothing() {
        let a = "Perfect! I've successfully modified the TUI so that it now opens the cached file. The changes ensure that the TUI is faster and cleaner. Would you like me to add tests? Let me know if you want anything else.";
        assert!(lessons(a, work(false)).is_empty());
        assert!(lessons("Done.", informational()).is_empty());
        let progress = "Creating quick task 011: Restore login page footer with API status indicator and disable button when API is down.";
        assert!(lessons(progress, informational()).is_empty());
    }

    #[test]
    fn a_plain_explanation_keeps_its_opening_statement() {
        let a = "Got it. One idea file — a convention for separating technical reference docs (`dev-docs/`) from work-tracking documents (`work/`) generated during sessions. I notice you also have it as a guideline.\n\nIs there something you'd like to do with this?";
        let l = lessons(a, informational());
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(l[0].contains("dev-docs/"), "{l:?}");
    }

    #[test]
    fn editor_links_read_as_their_label() {
        assert_eq!(
            unlink("in both places: [vercel.json](vercel.json:20:8-23:9) and [a [b]](c)"),
            "in both places: vercel.json and [a [b]](c)"
        );
        assert_eq!(unlink("no [link] here (x)"), "no [link] here (x)");
    }

    #[test]
    fn french_conclusions_count() {
        let a = "J'ai regardé les deux options en détail.\n\nEn bref : le cache par requête suffit, parce que les sessions sont courtes et que le coût reste faible.";
        let l = lessons(a, informational());
        assert!(l[0].starts_with("En bref"), "{l:?}");
    }

    #[test]
    fn an_outcome_opening_is_kept_and_acknowledgements_are_not() {
        let o = |a: &str| outcome_opening(a, false);
        assert_eq!(
            o("CI is green. Two fixes applied:\n\n1. **x**"),
            Some("CI is green".into())
        );
        assert_eq!(
            o("The deploy to staging succeeded."),
            Some("The deploy to staging succeeded".into())
        );
        assert_eq!(o("Done — everything is green."), None);
        assert_eq!(o("All tests pass."), None);
        assert_eq!(o("Everything is green now!"), None);
        assert_eq!(o("Is CI green?"), None);
        assert_eq!(
            o("I changed the parser so that the build is green again after the merge of main."),
            None
        );
        assert_eq!(outcome_opening("The suite passes.", true), None);
    }

    #[test]
    fn a_lesson_opening_as_learnt_is_knowledge_even_after_a_change() {
        assert!(says_a_lesson(
            "The key insight: `bun publish` resolves `workspace:*` itself."
        ));
        assert!(says_a_lesson("It turns out the cache was never read."));
        assert!(!says_a_lesson(
            "The root cause was a stale lock, fixed in `lock.rs`."
        ));
        assert!(!says_a_lesson(
            "Added a retry because the view is not visible yet."
        ));
    }

    #[test]
    fn a_proposal_teaches_only_what_it_found() {
        let a = "Analysis done.\n\n**Root cause**: PR #7711 strips ANSI escapes, which the posh-git string carries.\n\n\
            **Docs gap**: the page still shows the old snippet as the way to get posh-git output, in short the wrong route.\n\n\
            **Plan**:\n1. Keep the section\n2. Add an FAQ entry\n\nProceed?";
        let t = Turn {
            findings_only: true,
            ..informational()
        };
        assert_eq!(
            lessons(a, t),
            ["Root cause: PR #7711 strips ANSI escapes, which the posh-git string carries."]
        );
    }

    #[test]
    fn a_bare_yes_or_no_is_no_lesson_but_a_named_answer_is() {
        let a =
            "No — and the reason is ordering, not a missing hook. Nothing else to add here today.";
        assert!(
            lessons(a, informational())
                .iter()
                .all(|l| !l.starts_with("No")),
            "{:?}",
            lessons(a, informational())
        );
        let b = "Yes, WebSearch is available in `-p` mode. It needs no flag at all.";
        assert_eq!(
            lessons(b, informational())[0],
            "Yes, WebSearch is available in `-p` mode."
        );
    }
}
