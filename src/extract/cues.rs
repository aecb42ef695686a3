//! The offline extractor's reading of prose: split an answer into clean
//! sentences and sort them by their cue words (French and English).
//!
//! Deliberately conservative: a sentence lands in the log only when a cue
//! says what it is, and filler (offers, questions, narration of tool use)
//! never does. A missed bullet costs little; a noisy log is ignored.

use regex::Regex;
use std::collections::HashSet;
use std::sync::LazyLock;

/// What a sentence says, by its cue words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cue {
    FollowUp,
    Problem,
    Decision,
    Knowledge,
    /// Options offered ("Possible fixes:"): none of them is chosen yet, so
    /// none is a lesson or a to-do.
    Proposal,
}

/// One sentence of prose, cleaned of Markdown, with the cue of the list it
/// sits in (`Next steps:` followed by bullets) when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sentence {
    pub text: String,
    pub list_cue: Option<Cue>,
    pub question: bool,
    /// A list item (bullet or numbered).
    pub item: bool,
    /// The title of the heading it sits under, if any.
    pub section: Option<String>,
}

/// Cue patterns are written in lower case and matched against lower-cased
/// text: `(?i)` over Unicode turns every letter into a class, which made
/// compiling them the largest cost of a Stop hook (several milliseconds).
fn re(pattern: &str) -> Regex {
    debug_assert!(
        !pattern.chars().any(char::is_uppercase),
        "cue patterns are lower case: {pattern}"
    );
    Regex::new(pattern).expect("cue pattern compiles")
}

fn lower(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(char::is_uppercase) {
        std::borrow::Cow::Owned(s.to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

// Cue words are plain phrase lists matched on word boundaries, not regular
// expressions: compiling the equivalent Unicode alternations cost several
// milliseconds per Stop hook, more than everything else the hook does.

const PROBLEM: &[&str] = &[
    "error",
    "errors",
    "failed",
    "fails",
    "failing",
    "failure",
    "failures",
    "exception",
    "exceptions",
    "panic",
    "panics",
    "panicked",
    "crash",
    "crashes",
    "crashed",
    "bug",
    "bugs",
    "broken",
    "regression",
    "regressions",
    "traceback",
    "segfault",
    "erreur",
    "erreurs",
    "échec",
    "échecs",
    "échoue",
    "échouent",
    "échoué",
    "échouait",
    "plantage",
    "plantages",
    "plante",
    "planté",
    "plantait",
    "bogue",
    "bogues",
    "cassé",
    "cassée",
    "cassés",
    "cassées",
    "régression",
    "régressions",
];

/// Phrases with an error word that report no problem: removed before testing
/// `PROBLEM`, so "no errors" or "error handling" stay out of `problemes`.
/// Compiled only for sentences that hold an error word.
static NOT_A_PROBLEM: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(error[- ]handling|handles? errors|handling errors|no errors?|without (?:any )?errors?|zero errors?|0 (?:errors?|failed|failures?)|regression tests?|non-regression|error messages?|messages? d'erreurs?|in case of (?:an? )?(?:failure|error)|on (?:failure|error)|(?:if|when|whenever) (?:it|this|that|one|the \w+) (?:fails|errors)|en cas d'(?:échec|erreur)|si (?:ça|cela|il|elle|le \w+|la \w+) échoue|(?:returns?|returning|raises?|raising|throws?|throwing) (?:an? |the )?(?:\w+ )?(?:errors?|exceptions?)|error (?:types?|variants?|enums?)|(?:renvoie|retourne|lève|lever|renvoyer|retourner) (?:une |l')?(?:erreur|exception)|gestion des erreurs|gérer les erreurs|tests? de (?:non-)?régression|sans (?:aucune )?erreurs?|aucune erreur|aucun échec|0 échecs?)\b",
    )
});

/// Headings and lead-in lines that announce what the following list holds
/// (matched at the start of the title).
const LIST_HEAD: &[(&[&str], Cue)] = &[
    (
        &[
            "next step",
            "next steps",
            "todo",
            "to-do",
            "to do",
            "follow-up",
            "follow up",
            "follow-ups",
            "follow ups",
            "remaining",
            "open points",
            "open questions",
            "open items",
            "still to do",
            "still open",
            "still pending",
            "left to do",
            "left open",
            "pending",
            "outstanding",
            "not done",
            "not yet done",
            "what's left",
            "what remains",
            "known issues",
            "open threads",
            "à suivre",
            "à faire",
            "reste à faire",
            "prochaine étape",
            "prochaines étapes",
            "prochaines étape",
            "prochaine étapes",
            "point ouvert",
            "points ouverts",
            "point ouverts",
            "points ouvert",
        ],
        Cue::FollowUp,
    ),
    (
        &[
            "decision",
            "decisions",
            "choices",
            "key decisions",
            "key design decisions",
            "design decisions",
            "design choices",
            "key choices",
            "décision",
            "décisions",
            "choix",
            "décisions clés",
            "choix de conception",
        ],
        Cue::Decision,
    ),
    (
        &[
            "key findings",
            "key learnings",
            "key takeaways",
            "findings",
            "learnings",
            "lessons learned",
            "what i learned",
            "note",
            "notes",
            "root cause",
            "breaking change",
            "breaking-change",
            "à retenir",
            "à noter",
            "enseignements",
            "ce qu'il faut retenir",
            "cause",
        ],
        Cue::Knowledge,
    ),
    (
        &[
            "problem",
            "problems",
            "issue",
            "issues",
            "error",
            "errors",
            "known issues",
            "bug",
            "bugs",
            "problème",
            "problèmes",
            "erreur",
            "erreurs",
        ],
        Cue::Problem,
    ),
    (
        &[
            "possible fixes",
            "possible fix",
            "possible solutions",
            "possible approaches",
            "possible causes",
            "options",
            "option",
            "alternatives",
            "suggestions",
            "suggested fixes",
            "ideas",
            "approaches",
            "you could",
            "we could",
            "pistes",
            "solutions possibles",
            "options possibles",
            "correctifs possibles",
        ],
        Cue::Proposal,
    ),
];

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Is `phrase` in `text` with a word boundary on both sides? Both lower case.
fn has_phrase(text: &str, phrase: &str) -> bool {
    text.match_indices(phrase).any(|(i, m)| {
        let before = text[..i].chars().next_back();
        let after = text[i + m.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

fn has_any(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| has_phrase(text, p))
}

/// Does `text` start with one of `phrases`, followed by a word boundary?
fn starts_with_any(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| {
        text.strip_prefix(p)
            .is_some_and(|rest| !rest.chars().next().is_some_and(is_word_char))
    })
}

/// `text` without a leading `phrase` (compared case-insensitively, `phrase`
/// in lower case) that ends on a word boundary.
pub(crate) fn strip_phrase_ci<'a>(text: &'a str, phrase: &str) -> Option<&'a str> {
    let mut want = phrase.chars();
    let mut end = 0;
    for (i, c) in text.char_indices() {
        let mut lc = c.to_lowercase();
        let (Some(l), None) = (lc.next(), lc.next()) else {
            return None;
        };
        match want.next() {
            Some(w) if w == l => end = i + c.len_utf8(),
            Some(_) => return None,
            None => break,
        }
    }
    if want.next().is_some() {
        return None;
    }
    let rest = &text[end..];
    (!rest.chars().next().is_some_and(is_word_char)).then_some(rest)
}

/// Strips the first of `phrases` that `text` starts with.
pub(crate) fn strip_any_ci<'a>(text: &'a str, phrases: &[&str]) -> Option<&'a str> {
    phrases.iter().find_map(|p| strip_phrase_ci(text, p))
}

fn is_problem(text: &str) -> bool {
    has_any(text, PROBLEM) && has_any(&NOT_A_PROBLEM.replace_all(text, " "), PROBLEM)
}

/// Words after which a period does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "cf", "ex", "p.ex", "approx", "env", "resp", "no", "fig", "mr",
    "dr", "m",
];

/// The cue a heading or a label names (`Next steps`, `Décisions`), if any.
fn heading_cue(title: &str) -> Option<Cue> {
    let title = &*lower(title);
    LIST_HEAD
        .iter()
        .find(|(phrases, _)| starts_with_any(title, phrases))
        .map(|(_, cue)| *cue)
}

/// Openings of an offer or a question to the user about the model's own
/// next move ("Want me to commit?"), lower case.
const OFFERS: &[&str] = &[
    "would you like",
    "do you want",
    "let me know",
    "if you want",
    "if you'd like",
    "if you would like",
    "i can ",
    "want me to",
    "shall i",
    "should i",
    "voulez-vous",
    "veux-tu",
    "souhaitez-vous",
    "si vous voulez",
    "si tu veux",
    "je peux",
    "dites-moi",
    "dis-moi",
];

/// An offer to the user or a question about the model's own next move
/// ("Want me to commit?", "Shall I push?", "Voulez-vous que je…").
pub(crate) fn is_offer(text: &str) -> bool {
    let l = lower(text.trim());
    // "Would you like it early or late?" asks for a choice; "Would you
    // like me to…", "Shall I…", "Go ahead?" for a go-ahead.
    let about_me = [
        "me to",
        "should i ",
        "shall i ",
        "can i ",
        "i can ",
        "i could ",
        "que je",
        "je peux",
    ]
    .iter()
    .any(|o| l.contains(o));
    let a_choice = has_any(&l, &["or", "ou"]);
    // "Want me to do the minimal fix, or the restructure?" offers two ways;
    // "…, or not?", "…, or leave it?" only asks for a go-ahead.
    let between_ways = {
        let after = l
            .rsplit_once(", or ")
            .or_else(|| l.rsplit_once(", ou "))
            .map_or("", |(_, r)| r.trim_end_matches(['?', '.', ' ']));
        !starts_with_any(
            after,
            &[
                "not",
                "no",
                // "…, or would you prefer to test first?": me now or the
                // user first is a go-ahead, not two ways of the work.
                "would you",
                "do you",
                "is that",
                "is there",
                "is this",
                "should i leave",
                "leave it for",
                "that's it",
                "that's enough",
                "you",
                "should we wait",
                "préférez-vous",
                "tu préfères",
                "leave it",
                "leave them",
                "skip",
                "something else",
                "anything else",
                "hold off",
                "wait",
                "pas",
                "non",
            ],
        ) && !after.is_empty()
    };
    (about_me && !between_ways)
        || (OFFERS.iter().any(|o| l.starts_with(o)) && !a_choice)
        || l.split_whitespace().count() < 4
}

/// Characters at the end of an answer looked at for its closing question.
const CLOSING_SCAN: usize = 2000;

/// The question an answer ends on when it asks the user to choose
/// ("Where would you want it in the M2 sequence?"); not an offer ("Want
/// me to commit?"), which a yes settles and says nothing of the project.
pub(crate) fn closing_question(answer: &str) -> Option<String> {
    // Only the answer's end can hold it: a huge answer is not read whole
    // at every turn's close.
    let answer = match answer.char_indices().rev().nth(CLOSING_SCAN) {
        Some((at, _)) => &answer[at..],
        None => answer,
    };
    // "Where would you want it? It could go early or late.": the question
    // may have a sentence of context after it.
    let all = sentences(answer);
    let last = all.iter().rev().take(3).map(|s| s.text.trim());
    // "Tell me which findings you'd like fixed": asked without a mark.
    if let Some(text) = last.clone().find(|t| {
        !t.ends_with('?')
            && has_any(
                &lower(t),
                &[
                    "tell me which",
                    "let me know which",
                    "dites-moi lequel",
                    "dis-moi lequel",
                ],
            )
    }) {
        return (text.chars().count() <= 240).then(|| text.to_owned());
    }
    let Some(text) = last.clone().find(|t| t.ends_with('?')) else {
        // No question, but a way recommended ("My take: fall back on any
        // error"): the user's "let's do that fallback" settles it.
        return recommendation(&all);
    };
    let lower_text = lower(text);
    let asks_to_choose = has_any(&lower_text, &["or", "ou"])
        || starts_with_any(
            &lower_text,
            &[
                "where", "which", "when", "what", "how", "who", "où", "quel", "quelle", "quand",
                "comment",
            ],
        );
    (asks_to_choose && text.chars().count() <= 240 && !is_offer(text)).then(|| text.to_owned())
}

/// How an answer opens the way it recommends, the user still to decide.
const RECOMMENDS: &[&str] = &[
    "my take:",
    "my take is",
    "my recommendation",
    "recommendation:",
    "i'd recommend",
    "i would recommend",
    "i recommend",
    "i'd suggest",
    "i would suggest",
    "my suggestion",
    "i'd go with",
    "i would go with",
    "my vote",
    "je recommande",
    "je suggère",
    "ma recommandation",
    "mon avis :",
];

/// Whether a sentence recommends a way ("My take: …", "I'd recommend …").
pub(crate) fn is_recommendation(sentence: &str) -> bool {
    let t = lower(sentence.trim().trim_start_matches(['*', '-', ' ', '>']))
        .replace("**", "")
        .replace('’', "'");
    starts_with_any(&t, RECOMMENDS)
}

/// The last sentence of an answer's end that recommends a way, for the
/// user's reply to settle: a statement, not a question nor an offer.
fn recommendation(all: &[Sentence]) -> Option<String> {
    all.iter()
        .rev()
        .take(12)
        .map(|s| s.text.trim())
        .find(|t| is_recommendation(t) && !t.ends_with('?') && t.split_whitespace().count() >= 5)
        .filter(|t| t.chars().count() <= 240)
        .map(|t| t.replace("**", ""))
}

/// The question an answer ends on that waits for the user: a choice, an
/// offer of more work, a request for something only they can give ("Can
/// you paste the output of step 2?"). Not the ritual ones ("Anything
/// else?", "Does that help?"), nor a bare offer to commit or push, which
/// the log's commit to-dos already say.
pub(crate) fn pending_question(answer: &str) -> Option<String> {
    const RITUAL: &[&str] = &[
        "anything else",
        "does that help",
        "does this help",
        "make sense",
        "does that make sense",
        "does this make sense",
        "sound good",
        "sounds good",
        "does that work",
        "look good",
        "looks good",
        "does that look",
        "does this look",
        "any questions",
        "any other",
        "is there anything",
        "autre chose",
        "ça te va",
        "ça vous va",
    ];
    let answer = match answer.char_indices().rev().nth(CLOSING_SCAN) {
        Some((at, _)) => &answer[at..],
        None => answer,
    };
    let all = sentences(answer);
    let text = all
        .iter()
        .rev()
        .take(2)
        .map(|s| s.text.trim())
        .find(|t| t.ends_with('?'))?;
    let l = lower(text);
    let words = text.split_whitespace().count();
    let ritual = RITUAL.iter().any(|r| has_phrase(&l, r));
    // "Why did the build fail? The lock file was stale.": asked and
    // answered by the answer itself, not of the user.
    let to_the_user = has_any(
        &l,
        &[
            "you", "your", "me", "i", "we", "shall", "should", "vous", "tu", "je",
        ],
    );
    if !to_the_user {
        return None;
    }
    let ships_only = has_any(&l, &["commit", "push", "merge"]) && !l.contains(", or ");
    ((5..=60).contains(&words) && !ritual && !ships_only).then(|| text.to_owned())
}

/// How far back from an answer's end its offered options are looked for.
const OPTIONS_SCAN: usize = 6000;

/// The options an answer ends by offering ("**A. Keep four tabs** — …",
/// "1. **The reset was intentional** — …", "- **C)** Someone else …"),
/// label and gist, when its end asks to pick one: the last run of labels
/// in order from `A` or `1`. A numbered list of steps the answer does not
/// ask about is no offer.
pub(crate) fn offered_options(answer: &str) -> Vec<(String, String)> {
    let answer = match answer.char_indices().rev().nth(OPTIONS_SCAN) {
        Some((at, _)) => &answer[at..],
        None => answer,
    };
    let end: String = {
        let n = answer.chars().count();
        lower(
            &answer
                .chars()
                .skip(n.saturating_sub(400))
                .collect::<String>(),
        )
        .into_owned()
    };
    // Asked to pick one ("Which one?", "A or B?"); "Shall I start?" after
    // a plan asks no such thing.
    let asks = [
        "pick", "choose", "which", "prefer", "option", " or ", "choisi", "lequel", "laquelle",
        "quelle", " ou ",
    ]
    .iter()
    .any(|w| end.contains(w));
    if !asks {
        return Vec::new();
    }
    // Every run of labels in order from `A` or `1`, with the line that
    // introduced it; the last run that is no list of steps or of things
    // done is the offer.
    let mut runs: Vec<(String, Vec<(char, String)>)> = Vec::new();
    let mut intro = String::new();
    for line in answer.lines() {
        match option_line(line) {
            Some((label, text)) => {
                let goes_on = runs.last().is_some_and(|(_, r)| {
                    r.last()
                        .is_some_and(|(l, _)| (*l as u32) + 1 == label as u32)
                });
                if matches!(label, 'A' | '1') {
                    runs.push((intro.clone(), vec![(label, text)]));
                } else if goes_on && let Some((_, r)) = runs.last_mut() {
                    r.push((label, text));
                }
            }
            None if !line.trim().is_empty() && !line.starts_with([' ', '\t']) => {
                intro = lower(line.trim()).into_owned();
            }
            None => {}
        }
    }
    const NOT_OFFERS: &[&str] = &[
        "step",
        "done",
        "plan",
        "changes",
        "changed",
        "next",
        "todo",
        "to do",
        "what i did",
        "summary",
        "étape",
        "fait",
        "modifi",
    ];
    runs.into_iter()
        .rev()
        .find(|(intro, r)| {
            r.len() >= 2 && !(intro.ends_with(':') && NOT_OFFERS.iter().any(|w| intro.contains(w)))
        })
        .map(|(_, r)| r.into_iter().map(|(l, t)| (l.to_string(), t)).collect())
        .unwrap_or_default()
}

/// One line offering an option: its label (`A`-`F`, `1`-`6`) and its
/// gist (its bold title, or its first clause).
fn option_line(line: &str) -> Option<(char, String)> {
    let mut t = line.trim_start();
    for bullet in ["- ", "* ", "+ "] {
        if let Some(r) = t.strip_prefix(bullet) {
            t = r.trim_start();
        }
    }
    let bold = t.starts_with("**");
    let t = t.trim_start_matches('*');
    let t = ["Option ", "option ", "Approach ", "Approche "]
        .iter()
        .find_map(|p| t.strip_prefix(p))
        .unwrap_or(t);
    let mut chars = t.chars();
    let label = chars.next()?;
    if !matches!(label, 'A'..='F' | '1'..='6') {
        return None;
    }
    let rest = chars.as_str();
    // `A.`, `A)`, `A:`, `**A**`, `Option A —`: the label stands alone.
    let sep = rest.chars().next()?;
    if !matches!(sep, '.' | ')' | ':' | '*' | ' ')
        || (sep == ' ' && !bold && !line.contains("ption"))
    {
        return None;
    }
    let rest = rest.trim_start_matches(['.', ')', ':', '*', ' ', '—', '-', '–']);
    let title = match rest.strip_prefix("**") {
        Some(r) => r.split("**").next().unwrap_or(r),
        None => match rest.find("**") {
            // `A. Keep four tabs** — …`: the bold title the label opened.
            Some(at) if bold => &rest[..at],
            _ => rest,
        },
    };
    let gist = title
        .split(" — ")
        .next()
        .unwrap_or(title)
        .split(" - ")
        .next()
        .unwrap_or(title)
        .trim()
        .trim_end_matches([':', '.', ' ', '*'])
        .replace("**", "");
    // Whole: it is redacted before anything cuts it (a cut first could
    // leave part of a secret).
    // A bold or named option may be one word (`**B. Utility/data-dense**`);
    // a bare `A.` in prose needs more to be one.
    let words = gist.split_whitespace().count();
    let marked = bold || line.contains("ption") || line.contains("pproach");
    (words >= 2 || (words == 1 && marked)).then_some((label, gist))
}

/// The option of `offered` a reply picks: "B", "b.", "Option B", "go with
/// 2", "1 we're moving forward with rust", "Yes to A", as label and gist.
pub(crate) fn picked_option(reply: &str, offered: &[(String, String)]) -> Option<String> {
    if offered.is_empty() {
        return None;
    }
    let t = reply.trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.is_empty() || words.len() > 40 {
        return None;
    }
    let lead = [
        "option",
        "yes to",
        "go with",
        "let's go with",
        "lets go with",
        "let's do",
        "lets do",
        "i pick",
        "pick",
        "approach",
        "choice",
        "va pour",
        "plutôt",
    ];
    let l = lower(t).replace('’', "'");
    let after = lead
        .iter()
        .find_map(|p| l.strip_prefix(p).filter(|r| r.starts_with(' ')))
        .map(str::trim_start);
    let led = after.is_some();
    let src = after.unwrap_or(&l);
    let token: String = src.chars().take_while(|c| c.is_alphanumeric()).collect();
    if token.chars().count() != 1 {
        return None;
    }
    let rest = &src[token.len()..];
    // The label stands alone: the reply's end, or punctuation, or words
    // that go on about it; not `B/c`, not "A few more tweaks", not "2 more
    // things" or "1 question".
    let next_word = rest
        .trim_start_matches([' ', ',', '.', ')', ':', '—', '-', '–'])
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches(|c: char| !c.is_alphanumeric());
    let glued = rest.starts_with(|c: char| !(c.is_whitespace() || ",.):—-–!".contains(c)));
    const COUNTED: &[&str] = &[
        "more",
        "other",
        "few",
        "of",
        "question",
        "questions",
        "thing",
        "things",
        "issue",
        "issues",
        "problem",
        "problems",
        "bug",
        "bugs",
        "file",
        "files",
        "test",
        "tests",
        "minute",
        "minutes",
        "small",
        "last",
        "quick",
        "little",
        "lot",
        "bit",
    ];
    let article = !led
        && token == "a"
        && rest.starts_with(' ')
        && t.chars().nth(2).is_some_and(char::is_lowercase);
    if glued || article || (!led && rest.starts_with(' ') && COUNTED.contains(&next_word)) {
        return None;
    }
    let label = token.to_uppercase();
    offered
        .iter()
        .find(|(l, _)| *l == label)
        .map(|(l, g)| format!("{l} — {g}"))
}

/// Whether `request`, sent right after the answer asked `closing_question`,
/// reads as the user's choice: a short statement, neither a question nor a
/// new instruction ("the second one", "early, but after MFA").
pub(crate) fn is_a_choice(request: &str) -> bool {
    let t = request.trim();
    let first = sentences(t)
        .into_iter()
        .next()
        .map(|s| s.text)
        .unwrap_or_default();
    // "Let's get it in early", "go with the second": a pick, said as one.
    let picks = starts_with_any(
        &lower(&first).replace('’', "'"),
        &[
            "let's",
            "lets",
            "let us",
            "go with",
            "option",
            "the first",
            "the second",
            "the last",
            "both",
            "neither",
            "allons",
            "on part sur",
            "plutôt",
        ],
    );
    // "do the proper fix": a few words ordering one of the ways asked
    // about, whose words the reply takes up ([`answers`] checks them);
    // "Fix 1-3" after "tell me which…". Not any short new request.
    let terse = t.split_whitespace().count() <= 6
        && starts_with_any(&lower(&first), &["do", "fix", "just do", "go for"]);
    !t.is_empty()
        && t.split_whitespace().count() <= 40
        && !t.contains('?')
        && (picks || terse || !is_request_sentence(&first))
}

/// Whether `reply` answers `question` (the one the previous answer ended
/// on): a yes or a no, a pick ("the second", "let's"), or words of the
/// question's own. "The words are too small" after "Commit now, or preview
/// first?" is the next request, not a choice between the two.
pub(crate) fn answers(question: &str, reply: &str) -> bool {
    const SHORT: &str = "yes yeah yep yup no nope nah sure ok okay oui non ouais d'accord go do \
        commit both neither either none first second third last option a b c 1 2 3 please \
        absolutely definitely correct right exactly fine let's lets let allons plutôt";
    // Words any question or reply has; "commit" and "push" are not among
    // them: "commit it" answers "commit now or preview first?".
    const COMMON: &str = "want would like should could that this these those with from your \
        have make then them they what which there here into about just also more some will \
        need know think does their it's i'll i'd something anything thing things right well \
        much very really still even only tell keep the and you for not but can are was has \
        had its our out now all any one two get got may how why who too way see say did \
        veux voulez faire plus tout cette avec pour dans les des une est pas que qui";
    let short: HashSet<&str> = SHORT.split_whitespace().collect();
    let common: HashSet<&str> = COMMON.split_whitespace().collect();
    // "tokens" answers "token": the plural's `s` is not the word.
    let stem = |w: &str| -> String {
        match w.strip_suffix('s') {
            Some(r) if r.chars().count() >= 3 => r.to_owned(),
            _ => w.to_owned(),
        }
    };
    let words = |t: &str| -> Vec<String> {
        lower(t)
            .replace('’', "'")
            .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
            .map(|w| w.trim_matches(['\'', '-']).to_owned())
            .filter(|w| !w.is_empty())
            .collect()
    };
    // An open question ("What should it say?") is answered by whatever
    // the user says next; only one between ways ("X, or Y?") asks for one
    // of them.
    // A recommendation is settled only by a reply taking up its words
    // ("let's do the auto fallback" after "My take: fall back on any
    // error"), or by a short yes.
    let recommends = is_recommendation(question);
    let q = format!(" {} ", lower(question));
    if !recommends && !q.contains(" or ") && !q.contains(" ou ") {
        return true;
    }
    let said = words(reply);
    let Some(first) = said.first() else {
        return false;
    };
    // "No", "commit it", "yes, go": a short reply that opens on its pick;
    // "ok the header is too small though" is the next request.
    if short.contains(first.as_str()) && said.len() <= 5 {
        return true;
    }
    let asked: HashSet<String> = words(question)
        .into_iter()
        .filter(|w| w.chars().count() >= 3 && !common.contains(w.as_str()))
        .map(|w| stem(&w))
        .collect();
    // A recommendation: taken up by a pick ("let's", "go with") saying two
    // of its words; "fix the login tests" after "I'd recommend rate
    // limiting the login endpoint" is the next request.
    if recommends {
        let picks = starts_with_any(
            &lower(reply).replace('’', "'"),
            &[
                "let's", "lets", "let us", "go with", "go for", "yes", "yeah", "ok", "okay", "sure",
            ],
        );
        let shared = said
            .iter()
            .map(|w| stem(w))
            .filter(|w| asked.contains(w))
            .collect::<HashSet<_>>()
            .len();
        return picks && shared >= 2;
    }
    said.iter().any(|w| asked.contains(&stem(w)))
}

/// The open items an answer names explicitly: the items of a list under a
/// "Next steps" / "À suivre" heading or lead-in, and a line labelled so
/// ("Prochaine étape : …"). Offers and questions to the user are not open
/// items of the project.
pub(crate) fn next_steps(answer: &str) -> Vec<String> {
    // What the answer leaves to the user to do by hand ("Make sure the
    // secret is set in GitHub"): open as much as a listed next step.
    const LEFT_TO_THE_USER: &[&str] = &[
        "make sure",
        "remember to",
        "don't forget",
        "do not forget",
        "you'll need to",
        "you will need to",
        "you need to",
        "you may want to",
        "you might want to",
        "you'll want to",
        "you still need to",
        "still on your plate",
        "left for you",
        "up to you to",
        "n'oubliez pas",
        "n'oublie pas",
        "pensez à",
        "pense à",
        "vous devrez",
        "tu devras",
    ];
    // What the answer says it left undone, anywhere in a sentence ("The
    // `wakil enrich` item stays unchecked", "Whether it also belongs in
    // CLAUDE.md is yours").
    const LEFT_UNDONE: &[&str] = &[
        "stays unchecked",
        "remains unchecked",
        "still unchecked",
        "still pending",
        "still deferred",
        "on the deferred list",
        "reste à décider",
        "reste en attente",
        "toujours en attente",
    ];
    let mut out = Vec::new();
    for s in sentences(answer) {
        let lower_text = lower(&s.text);
        let left_undone = s.list_cue != Some(Cue::Proposal)
            && s.text.split_whitespace().count() >= 5
            && !has_any(
                &lower_text,
                &["nothing", "no longer", "none", "rien", "plus aucun"],
            )
            && (LEFT_UNDONE.iter().any(|p| {
                // A closing "." is the sentence's end, not part of a word.
                match p.strip_suffix('.') {
                    Some(end) => lower_text.trim_end().ends_with(end) || lower_text.contains(p),
                    None => has_phrase(&lower_text, p),
                }
            })
                // "Whether it belongs in `CLAUDE.md` is yours": a choice
                // left to the user, when it says which ("The call is yours"
                // names none).
                || (["is yours to decide", "is your call", "is yours.", "are yours."]
                    .iter()
                    .any(|p| lower_text.contains(p))
                    && (starts_with_any(&lower_text, &["whether", "which", "if "])
                        || s.text.contains('`')))
                // "Left it untouched since you didn't confirm": waiting on
                // the user. "Everything else is left untouched" is scope.
                || (has_any(&lower_text, &["left it untouched", "left them untouched"])
                    && has_any(
                        &lower_text,
                        &["since you", "until you", "unless you", "for now", "for later"],
                    )));
        let left_to_user = s.list_cue != Some(Cue::Proposal)
            && (left_undone
                || starts_with_any(&lower_text, LEFT_TO_THE_USER)
                || has_any(
                    &lower_text,
                    &[
                        "you may want to",
                        "you might want to",
                        "still on your plate",
                    ],
                ));
        let text = match s.list_cue {
            Some(Cue::FollowUp) => Some(s.text.clone()),
            _ if left_to_user => Some(s.text.clone()),
            _ => s.text.split_once(':').and_then(|(label, rest)| {
                // "Remaining for you (per CLAUDE.md):" is labelled by its
                // words before the aside.
                let label = label.split_once(" (").map_or(label, |(l, _)| l).trim();
                let is_label = label.chars().count() <= 30
                    && heading_cue(label) == Some(Cue::FollowUp)
                    && label.split_whitespace().count() <= 4;
                (is_label && !rest.trim().is_empty()).then(|| rest.trim().to_owned())
            }),
        };
        let Some(text) = text else { continue };
        let text = with_block_after(answer, text);
        let lower = text.to_lowercase();
        if s.question || text.ends_with('?') || OFFERS.iter().any(|o| lower.starts_with(o)) {
            continue;
        }
        if text.split_whitespace().count() >= 2 && !out.contains(&text) {
            out.push(text);
        }
    }
    if let Some(run) = commands_left(answer)
        && !out.contains(&run)
    {
        out.push(run);
    }
    if let Some(left) = list_left(answer)
        && !out.contains(&left)
    {
        out.push(left);
    }
    out.truncate(3);
    out
}

/// Whether the answer says its commits are not pushed yet ("Not pushed —
/// commits only", "Say the word to push"): the branch is ahead of its
/// upstream though no `git status` said so. "Nothing to push" is not it.
pub(crate) fn says_unpushed(answer: &str) -> bool {
    const SAYS: &[&str] = &[
        "not pushed",
        "not yet pushed",
        "haven't pushed",
        "have not pushed",
        "not been pushed",
        "nothing has been pushed",
        "nothing pushed",
        "word to push",
        "ready to push",
        "want me to push",
        "like me to push",
        "shall i push",
        "should i push",
        "pas encore poussé",
        "pas encore poussés",
        "non poussé",
        "non poussés",
        "rien n'est poussé",
    ];
    // "Not pushed — commits only", "Committed locally, not pushed": the
    // phrase opens the sentence, or the sentence speaks of commits ("the
    // pre-push hook keeps secrets from being not pushed" does neither).
    sentences(answer).into_iter().any(|s| {
        let l = lower(s.text.trim_start_matches(['*', '-', ' '])).replace('’', "'");
        let about_commits = l.contains("commit") || l.starts_with("say the word");
        // "Branch is now 11 ahead of origin — push with `git push
        // --force-with-lease` when ready": a count ahead of the remote, or a
        // push left for when the user is ready.
        let ahead = has_any(
            &l,
            &[
                "ahead of origin",
                "ahead of `origin",
                "ahead of the remote",
                "ahead of upstream",
                "ahead of its upstream",
            ],
        ) && !has_any(
            &l,
            &[
                "is 0 ahead",
                "0 commits ahead",
                "not ahead",
                "no longer ahead",
            ],
        );
        let push_when_ready = l.contains("push")
            && has_any(
                &l,
                &[
                    "when ready",
                    "when you're ready",
                    "whenever you're ready",
                    "quand tu es prêt",
                    "quand vous êtes prêt",
                ],
            );
        (starts_with_any(&l, SAYS)
            || (about_commits && has_any(&l, SAYS))
            || ahead
            || push_when_ready)
            && !l.contains("nothing to push")
            && !l.contains("already pushed")
    })
}

/// Whether the answer says the pull request `number` (`#45`) is merged
/// ("PR #44 is already merged", "#12 fusionnée"), not that it will be
/// once something happens ("once #45 is merged, main and develop match").
pub(crate) fn says_merged(answer: &str, number: &str) -> bool {
    const MERGED: &[&str] = &["merged", "fusionnée", "fusionné", "fusionnee"];
    const NOT_YET: &[&str] = &[
        "not",
        "once",
        "when",
        "after",
        "until",
        "before",
        "wait",
        "waits",
        "waiting",
        "to be merged",
        "can be merged",
        "ready to",
        "if",
        "pas",
        "une fois",
        "dès que",
        "quand",
        "attend",
        "attente",
        "avant",
        "si",
    ];
    let names = |l: &str| {
        l.match_indices(number).any(|(at, _)| {
            !l[at + number.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
    };
    sentences(answer).into_iter().any(|s| {
        let l = lower(&s.text).replace('’', "'");
        // One clause: "#45 is open; #44 was merged" merges #44 only. What
        // holds the merge back comes before it ("once #45 is merged"); what
        // comes after tells of it ("merged after CI passed").
        l.split([';', ',']).any(|c| {
            let Some(at) = MERGED.iter().filter_map(|m| c.find(m)).min() else {
                return false;
            };
            let before = &c[..at];
            names(c)
                && !has_any(before, NOT_YET)
                && !before.contains("n't")
                && !has_any(c, &["to be merged", "can be merged", "not merged"])
        })
    })
}

/// A step that ends on a colon before a fenced command ("tag the merge
/// commit:" then ```git tag -a v0.5.0```) says what with the command's
/// first line.
fn with_block_after(answer: &str, text: String) -> String {
    if !text.ends_with(':') {
        return text;
    }
    let tail: String = {
        let chars: Vec<char> = text.chars().collect();
        chars[chars.len().saturating_sub(24)..].iter().collect()
    };
    let Some(at) = answer.find(&tail) else {
        return text;
    };
    let mut lines = answer[at + tail.len()..]
        .lines()
        .skip(1)
        .skip_while(|l| l.trim().is_empty());
    let opens = lines
        .next()
        .is_some_and(|l| l.trim_start().starts_with("```"));
    match lines
        .next()
        .map(str::trim)
        .filter(|l| opens && !l.is_empty() && !l.starts_with("```"))
    {
        Some(cmd) => format!("{} `{}`", text, cap(&cmd.replace('`', "'"), 120)),
        None => text,
    }
}

/// What an answer says of a working tree with nothing left to commit
/// (lower case).
pub(crate) const TREE_CLEAN: &[&str] = &[
    "no uncommitted",
    "nothing to commit",
    "nothing uncommitted",
    "tree is clean",
    "tree clean",
    "trees are clean",
    "rien à commiter",
];

/// Whether the answer leaves the turn's changes to be committed ("Ready to
/// commit.", "Want me to commit these changes?", "not committed yet"), and
/// the commit message it proposes, if it names one in backticks. Saying
/// the tree is clean ("no uncommitted work") leaves nothing.
pub(crate) fn commit_left(answer: &str) -> Option<Option<String>> {
    const LEFT: &[&str] = &[
        "ready to commit",
        "ready to be committed",
        "ready for you to review and commit",
        "for you to review and commit",
        "staged and ready",
        "like me to commit",
        "want me to commit",
        "shall i commit",
        "should i commit",
        "not committed yet",
        "not yet committed",
        "haven't committed",
        "have not committed",
        "left uncommitted",
        "changes are uncommitted",
        "prêt à être commité",
        "prêt à commiter",
        "prêtes à être commitées",
        "pas encore commité",
        "pas encore commités",
        "pas encore commitées",
        "non commité",
        "non commités",
        "non commitées",
        "que je commite",
    ];
    let said = sentences(answer).into_iter().any(|s| {
        let l = lower(&s.text);
        has_any(&l, LEFT) && !has_any(&l, TREE_CLEAN)
    });
    if !said {
        return None;
    }
    // "Suggested message: `docs(git): …`", "Commit message: `fix: …`".
    let message = answer.lines().find_map(|line| {
        let l = lower(line);
        let at = l.find("message")?;
        let rest = line.get(at..)?;
        let (_, after) = rest.split_once('`')?;
        let (msg, _) = after.split_once('`')?;
        let msg = msg.trim();
        (msg.split_whitespace().count() >= 2 && !msg.contains('\n')).then(|| msg.to_owned())
    });
    Some(message)
}

/// The answer's first lead-in line (ending with a colon, outside code,
/// bold marks dropped) that `is_lead` accepts in lower case, and the
/// trimmed lines after it.
fn first_lead_in(answer: &str, is_lead: impl Fn(&str) -> bool) -> Option<(String, Vec<&str>)> {
    let lines: Vec<&str> = answer.lines().map(str::trim).collect();
    let mut in_fence = false;
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        let lead = line.replace("**", "");
        let lead = lead.trim();
        if !in_fence && lead.ends_with(':') && is_lead(&lower(lead)) {
            return Some((lead.to_owned(), lines[i + 1..].to_vec()));
        }
    }
    None
}

/// "To complete the setup, you need to add these 6 secrets:" and the list
/// or table under it: what the answer leaves to the user, with the names
/// it lists ("…: `MACOS_CERTIFICATE`, `APPLE_ID`").
fn list_left(answer: &str) -> Option<String> {
    const LEADS: &[&str] = &[
        "you need to",
        "you'll need to",
        "you will need to",
        "you must",
        "you still need to",
        "must be configured",
        "must be set",
        "need to be configured",
        "need to be set",
        "needs to be configured",
        "vous devez",
        "tu dois",
        "il faut",
        "à configurer",
    ];
    let (lead, after) = first_lead_in(answer, |l| has_any(l, LEADS))?;
    let mut names: Vec<String> = Vec::new();
    let mut started = false;
    for l in &after {
        if l.is_empty() {
            if started {
                break;
            }
            continue;
        }
        let cell = if let Some(row) = l.strip_prefix('|') {
            let first = row.split('|').next().unwrap_or("").trim();
            // The header row and its rule.
            if first.chars().all(|c| c == '-' || c == ':' || c == ' ') || !first.contains('`') {
                started = true;
                continue;
            }
            first.to_owned()
        } else if let Some(item) = l.strip_prefix("- ").or_else(|| l.strip_prefix("* ")) {
            item.to_owned()
        } else {
            break;
        };
        started = true;
        // The item's name: its first code span, else its head.
        let name = match cell.split('`').nth(1) {
            Some(code) if !code.trim().is_empty() => format!("`{}`", code.trim()),
            _ => cap(cell.split([' ', ':']).next().unwrap_or(""), 40),
        };
        if !name.is_empty() && names.len() < 8 && !names.contains(&name) {
            names.push(name);
        }
    }
    if names.is_empty() {
        return None;
    }
    // The lead-in's own sentence, not the ones before it on its line.
    let lead = lead.trim_end_matches(':').trim();
    let lead = lead.rsplit(". ").next().unwrap_or(lead).trim();
    Some(cap(&format!("{lead}: {}", names.join(", ")), 300))
}

/// "To proceed with the release, run:" and the code block under it: the
/// commands the answer leaves to the user, as one open item
/// ("To proceed with the release, run `a`, `b`").
fn commands_left(answer: &str) -> Option<String> {
    const LEADS: &[&str] = &[
        "next up",
        "up next",
        "to proceed",
        "to finish",
        "to complete",
        "to continue",
        "to release",
        "to deploy",
        "to publish",
        "to apply",
        "to finalize",
        "to finalise",
        "next, run",
        "then run",
        "pour continuer",
        "pour terminer",
        "pour finir",
        "pour publier",
        "pour déployer",
        "ensuite, lance",
    ];
    let (lead, after) = first_lead_in(answer, |l| starts_with_any(l, LEADS))?;
    let mut rest = after.into_iter().skip_while(|l| l.is_empty());
    let lead = lead.trim_end_matches(':').trim();
    // "…, run `a`" reads on; "Next up after MFA: `a`" needs its colon.
    let ends_on_a_verb = ["run", "lance", "exécute", "execute"]
        .iter()
        .any(|v| lower(lead).ends_with(v));
    let lead = if ends_on_a_verb {
        lead.to_owned()
    } else {
        format!("{lead}:")
    };
    let next = rest.next()?;
    // "**Next up** after MFA completes:" then a line of inline code
    // (`/gsd:plan-phase 12.1`).
    if next.starts_with('`') && !next.starts_with("```") && next.ends_with('`') {
        let commands: Vec<String> = next
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|c| !c.trim().is_empty())
            .take(3)
            .map(|c| format!("`{}`", cap(c.trim(), 80)))
            .collect();
        return (!commands.is_empty()).then(|| format!("{lead} {}", commands.join(", ")));
    }
    if !next.starts_with("```") {
        return None;
    }
    let commands: Vec<String> = rest
        .take_while(|l| !l.starts_with("```"))
        .map(|l| {
            l.split(" #")
                .next()
                .unwrap_or("")
                .trim()
                .trim_start_matches("$ ")
        })
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(3)
        .map(|c| format!("`{}`", cap(&c.replace('`', "'"), 80)))
        .collect();
    if commands.is_empty() {
        return None;
    }
    Some(format!("{lead} {}", commands.join(", ")))
}

pub(crate) fn has_problem_word(text: &str) -> bool {
    let text = &*lower(text);
    is_problem(text)
}

/// The lines of `text` with hard-wrapped prose joined back ("Add tests in
/// setup_test.go that set" / "$SHELL to fish"): a line that stops mid-
/// sentence, followed by one that goes on in lower case, is one line, as
/// Markdown reads it. Fences, headings, tables and list items stay apart.
fn unwrapped_lines(text: &str) -> Vec<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    let mut out: Vec<Cow<'_, str>> = Vec::new();
    let mut in_fence = false;
    let mut joinable = false;
    for raw in text.lines() {
        let line = raw.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            in_fence = !in_fence;
            joinable = false;
            out.push(Cow::Borrowed(raw));
            continue;
        }
        let goes_on = line
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || c == '$' || c == '`' || c == '(');
        let (_, is_item) = strip_markers(line);
        if !in_fence
            && joinable
            && goes_on
            && !is_item
            && let Some(prev) = out.last_mut()
        {
            // Appended in place: a paragraph of many wrapped lines stays
            // linear to join.
            let joined = prev.to_mut();
            joined.truncate(joined.trim_end().len());
            joined.push(' ');
            joined.push_str(line);
            continue;
        }
        joinable = !in_fence
            && !line.starts_with('#')
            && !line.starts_with('|')
            && line
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == ',');
        out.push(Cow::Borrowed(raw));
    }
    out
}

/// Splits prose into cleaned sentences: code blocks, tables and rules are
/// skipped; list markers, heading marks and emphasis are removed; a heading
/// or a lead-in ending in `:` that names a section (`Next steps:`) passes
/// its cue to the list items below it.
pub(crate) fn sentences(text: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut in_fence = false;
    let mut list_cue: Option<Cue> = None;
    let mut section: Option<String> = None;
    let mut prev_blank = false;
    for raw in unwrapped_lines(text) {
        let line = raw.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if line.is_empty() {
            prev_blank = true;
            continue;
        }
        if line.starts_with('|')
            || line
                .chars()
                .all(|c| matches!(c, '-' | '=' | '*' | '_' | ' '))
        {
            continue;
        }
        let is_heading = line.starts_with('#');
        let (body, is_item) = strip_markers(line);
        let body = clean_inline(&body);
        if body.is_empty() {
            continue;
        }
        let lead_in = is_heading || (!is_item && body.ends_with(':'));
        if is_heading {
            section = Some(body.trim_end_matches(':').trim().to_owned());
        }
        if lead_in {
            let title = body.trim_end_matches(':').trim();
            list_cue = heading_cue(title);
            // A lead-in with its content on the same line ("Next step: wire
            // the worker") is also a sentence; a bare title is not.
            if is_heading || title.split_whitespace().count() <= 4 {
                prev_blank = false;
                continue;
            }
        } else if !is_item && prev_blank {
            // Plain prose after a blank line ends the list the cue applied to.
            list_cue = None;
        }
        prev_blank = false;
        let item_cue = if is_item { list_cue } else { None };
        for s in split_sentences(&body) {
            let question = s.ends_with('?');
            out.push(Sentence {
                text: s,
                list_cue: item_cue,
                question,
                item: is_item,
                section: section.clone(),
            });
        }
        if !is_item && !lead_in {
            list_cue = None;
        }
    }
    out
}

/// The first heading or line of a plan (`# Fix: add --trust`, `# Plan: …`),
/// without its `Plan:` label.
pub(crate) fn plan_title(plan: &str) -> Option<String> {
    let line = plan
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())?;
    let line = line
        .strip_prefix("Plan:")
        .or_else(|| line.strip_prefix("Plan :"))
        .unwrap_or(line)
        .trim();
    (!line.is_empty()).then(|| line.to_owned())
}

/// Why a plan was made, as it says itself: the first sentences of its
/// `Context` (or `Background`, `Problem`, `Motivation`) section, or of
/// the prose straight under its title. Its steps, files and code are the
/// work, told by what the turn did; what it says about itself ("This plan
/// …") or the user ("The user wants:") is not why.
pub(crate) fn plan_background(plan: &str) -> Option<String> {
    const HEADINGS: &[&str] = &[
        "context",
        "background",
        "problem",
        "the problem",
        "problem statement",
        "motivation",
        "why",
        "contexte",
        "problème",
        "le problème",
    ];
    let title = plan_title(plan)?;
    let mut picked: Vec<String> = Vec::new();
    for s in sentences(plan) {
        let Some(section) = s.section.as_deref() else {
            continue;
        };
        let section = section
            .strip_prefix("Plan:")
            .or_else(|| section.strip_prefix("Plan :"))
            .unwrap_or(section)
            .trim();
        let why = HEADINGS.iter().any(|h| section.eq_ignore_ascii_case(h)) || section == title;
        if !why || s.item || s.question || s.text.ends_with(':') || s.text == title {
            continue;
        }
        let lower = s.text.to_lowercase();
        // What the user asked is the goal; a sentence about them ("When
        // the user runs init twice…") may still be why.
        if starts_with_any(
            &lower,
            &[
                "we need",
                "i need",
                "the user wants",
                "the user asked",
                "the user requested",
                "the user can",
                "after review",
            ],
        ) || has_any(
            &lower,
            &["this plan", "this document", "change plan", "the plan"],
        ) {
            continue;
        }
        picked.push(s.text);
        if picked.len() == 2 {
            break;
        }
    }
    let text = picked.join(" ");
    (text.split_whitespace().count() >= 5).then(|| cap(&text, 280))
}

/// Removes heading marks, quote marks, list bullets, numbering, checkboxes.
/// Returns the rest and whether the line was a list item.
fn strip_markers(line: &str) -> (String, bool) {
    let mut s = line.trim_start_matches('#').trim_start();
    while let Some(rest) = s.strip_prefix('>') {
        s = rest.trim_start();
    }
    let mut item = false;
    for marker in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = s.strip_prefix(marker) {
            s = rest.trim_start();
            item = true;
            break;
        }
    }
    if let Some(rest) = strip_numbering(s) {
        s = rest;
        item = true;
    }
    for box_ in ["[ ]", "[x]", "[X]"] {
        if let Some(rest) = s
            .strip_prefix(box_)
            .filter(|r| r.starts_with(char::is_whitespace))
        {
            s = rest.trim_start();
        }
    }
    (s.to_string(), item)
}

/// `1. `, `12) `, `a. ` list numbering: the rest of the line after it.
fn strip_numbering(s: &str) -> Option<&str> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let marker = match digits {
        1..=3 => digits,
        0 if s.as_bytes().first().is_some_and(u8::is_ascii_lowercase) => 1,
        _ => return None,
    };
    let rest = s[marker..].strip_prefix(['.', ')'])?;
    rest.starts_with(char::is_whitespace)
        .then(|| rest.trim_start())
}

/// Drops emphasis markers and leading pictograms (`⚠️`, `✅`), and
/// collapses white space.
fn clean_inline(s: &str) -> String {
    let s = s.replace("**", "").replace("__", "");
    let s = s.trim_start_matches(|c: char| {
        !(c.is_alphanumeric() || c.is_whitespace() || "`\"'([«<{/.~$@#*_-".contains(c))
    });
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Splits one line at `.`, `!` or `?` followed by a space, except after an
/// abbreviation, and keeps the terminators.
fn split_sentences(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    let mut in_code = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'`' {
            in_code = !in_code;
            continue;
        }
        if in_code || !matches!(b, b'.' | b'!' | b'?') {
            continue;
        }
        let next = bytes.get(i + 1).copied();
        if !matches!(next, Some(b' ')) {
            continue;
        }
        if b == b'.' {
            let word = line[start..i]
                .rsplit(' ')
                .next()
                .unwrap_or("")
                .to_lowercase();
            let word = word.trim_start_matches(['(', '"', '\'']);
            // A bare number ends a sentence ("… répondre 422. Ensuite"),
            // except as a list marker at the start of the line ("1. Lire").
            let list_marker =
                word.chars().all(|c| c.is_ascii_digit()) && line[start..i].trim() == word;
            if ABBREVIATIONS.contains(&word) || list_marker {
                continue;
            }
        }
        let s = line[start..=i].trim();
        if !s.is_empty() {
            out.push(s.to_string());
        }
        start = i + 1;
    }
    let rest = line[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// Cuts `s` to at most `max` characters at a word boundary, marking the cut.
pub(crate) fn cap(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max.saturating_sub(1)).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end_matches([' ', ',', ';', ':']))
}

/// Verbs and phrases that open a request for work, lower-case.
const REQUESTING: &[&str] = &[
    "do",
    "add",
    "create",
    "make",
    "fix",
    "implement",
    "write",
    "update",
    "change",
    "remove",
    "delete",
    "rename",
    "move",
    "refactor",
    "review",
    "explain",
    "look",
    "check",
    "find",
    "search",
    "use",
    "run",
    "set",
    "build",
    "test",
    "deploy",
    "commit",
    "push",
    "merge",
    "install",
    "migrate",
    "convert",
    "replace",
    "improve",
    "optimise",
    "optimize",
    "document",
    "describe",
    "list",
    "show",
    "help",
    "investigate",
    "debug",
    "examine",
    "read",
    "analyse",
    "analyze",
    "compare",
    "summarise",
    "summarize",
    "generate",
    "prepare",
    "clean",
    "split",
    "extract",
    "support",
    "handle",
    "port",
    "upgrade",
    "bump",
    "revert",
    "undo",
    "keep",
    "try",
    "start",
    "finish",
    "go",
    "include",
    "enable",
    "disable",
    "allow",
    "hide",
    "reuse",
    "put",
    "give",
    "let's",
    "let us",
    "lets",
    "please",
    "can you",
    "could you",
    "would you",
    "will you",
    "can we",
    "could we",
    "should we",
    "i want",
    "i'd like",
    "i would like",
    "i need",
    "we need",
    "we should",
    "we must",
    "need to",
    "new feature",
    "first commit",
    "ajoute",
    "ajouter",
    "crée",
    "créer",
    "fais",
    "faire",
    "corrige",
    "corriger",
    "implémente",
    "écris",
    "mets",
    "modifie",
    "supprime",
    "renomme",
    "déplace",
    "peux-tu",
    "pourrais-tu",
    "il faut",
    "on doit",
    "je veux",
    "j'aimerais",
    "je voudrais",
    "vérifie",
    "lance",
    "teste",
    "explique",
    "cherche",
    "increase",
    "decrease",
    "reduce",
    "raise",
    "expose",
    "ensure",
    "publish",
    "release",
    "configure",
    "adjust",
    "drop",
    "wire",
    "integrate",
    "verify",
    "validate",
    "complete",
    "continue",
    "resolve",
    "address",
    "rewrite",
    "restore",
    "rerun",
    "re-run",
    "retry",
    "rebase",
    "squash",
    "unify",
    "simplify",
    "avoid",
    "prevent",
    "skip",
    "sync",
    "translate",
    "align",
    "draft",
    "propose",
    "suggest",
    "research",
    "websearch",
    "benchmark",
    "measure",
    "evaluate",
    "adopt",
    "apply",
    "choose",
    "pick",
    "switch",
    "assess",
    "audit",
    "inspect",
    "diagnose",
    "reproduce",
    "profile",
    "plan",
    "design",
    "evalue",
    "évalue",
    "analyse",
    "augmente",
    "réduis",
    "publie",
    "configure",
    "continue",
    "termine",
    "relance",
];

/// A sentence that asks for something to be done.
pub fn is_request_sentence(sentence: &str) -> bool {
    let t = sentence
        .trim()
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
        .replace('’', "'");
    let mut t = t.as_str();
    for filler in [
        "claude, ",
        "hey claude, ",
        "fine, ",
        "right, ",
        "so, ",
        "so ",
        "ok, ",
        "ok so ",
        "and ",
        "also, ",
        "also ",
        "then ",
        "now ",
        "maybe ",
        "just ",
        "i think ",
        "i guess ",
        "i feel ",
        "je pense que ",
        "je pense qu'",
        "alors ",
        "et ",
        // A brief written for an agent: "Your job is to verify …".
        "your job is to ",
        "your task is to ",
        "your goal is to ",
    ] {
        if let Some(r) = t.strip_prefix(filler) {
            t = r.trim_start();
        }
    }
    // "Do you…", "do all the tests pass?": asked, not ordered.
    if starts_with_any(t, &["do you", "do i", "do we", "do they"])
        || t.starts_with("does ")
        || (t.starts_with("do ") && t.ends_with('?'))
    {
        return false;
    }
    REQUESTING.iter().any(|v| {
        t.strip_prefix(v)
            .is_some_and(|r| r.is_empty() || r.starts_with(|c: char| !c.is_alphanumeric()))
    }) || t.contains(" please ")
        || t.contains(" can you ")
        || t.contains(" could you ")
        || t.contains(" make sure ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<String> {
        sentences(text).into_iter().map(|s| s.text).collect()
    }

    #[test]
    fn a_plans_background_is_its_context_not_its_steps_nor_its_talk_of_itself() {
        let plan = "# Fix: Add `--trust` flag\n\n## Context\n\n\
            The CLI now requires **explicit** workspace trust. On the server, runs fail with:\n\n\
            ```\nWorkspace Trust Required\n```\n\n\
            This blocks every run on headless servers. A third sentence.\n\n\
            ## Change\n\nAdd `--trust` to the base args.";
        assert_eq!(
            plan_background(plan).as_deref(),
            Some(
                "The CLI now requires explicit workspace trust. This blocks every run on headless servers."
            )
        );
        // Prose straight under the title counts; a plan's talk of itself and
        // of what the user asked does not.
        assert_eq!(
            plan_background("# Plan: Tar archives\n\nThe manifest skips tar files entirely.\n\n## Steps\n1. parse")
                .as_deref(),
            Some("The manifest skips tar files entirely.")
        );
        let audit = "# Security audit\n\n## Context\n\nThe user requested an audit of auth. \
            This document is the report. It is not a change plan.\n\n## Findings\n\nC1 open redirect.";
        assert_eq!(plan_background(audit), None);
        // Steps and lists are the work, not why.
        assert_eq!(
            plan_background(
                "# Plan: X\n\n## Overview\n\nAdd tar support to the reader.\n\n## Steps\n- one\n- two"
            ),
            None
        );
        assert_eq!(
            plan_title("## Plan: Make it installable\n\nbody").as_deref(),
            Some("Make it installable")
        );
        assert_eq!(
            plan_background("# Plan : Tar archives\n\nThe manifest skips tar files entirely.\n")
                .as_deref(),
            Some("The manifest skips tar files entirely.")
        );
    }

    #[test]
    fn splits_sentences_but_not_paths_versions_or_abbreviations() {
        assert_eq!(
            texts("Fixed `src/main.rs`. Bumped to v1.2.3 e.g. for tests! Done? Yes"),
            [
                "Fixed `src/main.rs`.",
                "Bumped to v1.2.3 e.g. for tests!",
                "Done?",
                "Yes"
            ]
        );
        assert_eq!(texts("Call `a. b` now. Then"), ["Call `a. b` now.", "Then"]);
    }

    #[test]
    fn skips_code_tables_and_rules_and_strips_markdown() {
        let text = "## Summary\n\n```rust\nlet x = error();\n```\n| a | b |\n|---|---|\n---\n> **Note** that it works.\n1. First item here\n- [x] Checked item";
        assert_eq!(
            texts(text),
            ["Note that it works.", "First item here", "Checked item"]
        );
    }

    #[test]
    fn lead_ins_pass_their_cue_to_the_list_below() {
        let text =
            "Done.\n\n**Next steps:**\n- Wire the worker\n- Add a benchmark\n\nThe parser is fine.";
        let s = sentences(text);
        let cues: Vec<_> = s.iter().map(|s| (s.text.as_str(), s.list_cue)).collect();
        assert_eq!(
            cues,
            [
                ("Done.", None),
                ("Wire the worker", Some(Cue::FollowUp)),
                ("Add a benchmark", Some(Cue::FollowUp)),
                ("The parser is fine.", None),
            ]
        );
        let fr = "## Décisions\n1. Garder SQLite\n\n## Prochaines étapes\n- Migrer les tests";
        let s = sentences(fr);
        assert_eq!(s[0].list_cue, Some(Cue::Decision));
        assert_eq!(s[1].list_cue, Some(Cue::FollowUp));
        let s = sentences("**Key design decisions:**\n- Keep SQLite for the cache");
        assert_eq!(s[0].list_cue, Some(Cue::Decision));
    }

    #[test]
    fn numbers_end_sentences_but_list_markers_do_not() {
        assert_eq!(
            split_sentences("L'API répond 422. Prochaine étape : ajouter un test."),
            ["L'API répond 422.", "Prochaine étape : ajouter un test."]
        );
        assert_eq!(
            split_sentences("1. Lire le fichier"),
            ["1. Lire le fichier"]
        );
    }

    #[test]
    fn phrases_match_on_word_boundaries_only() {
        assert!(has_phrase("the build failed.", "failed"));
        assert!(!has_phrase("unfailed", "failed"));
        assert!(has_phrase("d'erreurs ici", "erreurs"));
        assert!(!has_phrase("erreursx", "erreurs"));
        assert_eq!(
            strip_phrase_ci("Bonjour, ajoute X", "bonjour"),
            Some(", ajoute X")
        );
        assert_eq!(strip_phrase_ci("Bonjourno", "bonjour"), None);
        assert_eq!(strip_phrase_ci("ÉTÉ chaud", "été"), Some(" chaud"));
        assert_eq!(strip_phrase_ci("Bon", "bonjour"), None);
    }

    #[test]
    fn cap_cuts_at_a_word() {
        assert_eq!(cap("short", 10), "short");
        assert_eq!(cap("one two three four five", 12), "one two…");
        assert_eq!(cap("abcdefghijklmnop", 6), "abcde…");
        assert_eq!(cap("éééééééé", 4), "ééé…");
    }

    #[test]
    fn next_steps_are_labelled_or_listed_and_never_offers() {
        assert_eq!(
            next_steps("Le module est écrit. Prochaine étape : ajouter l'export en UTF-8."),
            ["ajouter l'export en UTF-8."]
        );
        assert_eq!(
            next_steps(
                "Done.\n\n## Next steps\n- Wire the worker\n- Would you like me to add tests?\n- Add a benchmark\n\nThe TODO comment in main.rs is gone."
            ),
            ["Wire the worker", "Add a benchmark"]
        );
        assert!(next_steps("I can also add tests if you want. Remaining: nothing?").is_empty());
    }

    #[test]
    fn what_the_answer_says_it_left_undone_is_open() {
        let answer = "Done — checked off the smoke test on PR #14. The `wakil enrich` item stays unchecked.\n\n\
            Part B's rule lands in the templates. Whether it also belongs in `CLAUDE.md` doctrine is yours.\n\n\
            The choice is yours. The final call here is your call.";
        assert_eq!(
            next_steps(answer),
            [
                "The `wakil enrich` item stays unchecked.",
                "Whether it also belongs in `CLAUDE.md` doctrine is yours."
            ]
        );
        // Said of a thing done, or asked, it is not open.
        assert!(next_steps("Is the review still pending on your side?").is_empty());
        assert_eq!(
            next_steps(
                "The README still has the old line — left it untouched since you didn't confirm that one."
            ),
            [
                "The README still has the old line — left it untouched since you didn't confirm that one."
            ]
        );
        assert!(next_steps("Fixed the parser. Everything else is left untouched.").is_empty());
        assert!(next_steps("Fixed the parser and left it untouched otherwise.").is_empty());
        assert!(next_steps("All four findings are fixed; nothing is still pending.").is_empty());
    }

    #[test]
    fn commits_ahead_of_the_remote_or_a_push_left_for_later_are_unpushed() {
        assert!(says_unpushed(
            "Committed as `98a36eb`. Branch is now 11 ahead of origin — push with `git push --force-with-lease` when ready."
        ));
        assert!(says_unpushed("When you're ready, push with `git push`."));
        assert!(!says_unpushed("The branch is no longer ahead of origin."));
        assert!(!says_unpushed(
            "Pushed; the branch is 0 ahead of origin/main."
        ));
        assert!(!says_unpushed("Committed `abc123` and pushed to origin."));
    }

    #[test]
    fn what_is_left_on_the_users_plate_is_open() {
        let answer = "Removed the MSI package.\n\n\
            Still on your plate outside the repo: the winget manifest PR.\n\n\
            The tree is ready for you to review and commit.";
        assert_eq!(
            next_steps(answer),
            ["Still on your plate outside the repo: the winget manifest PR."]
        );
        // The commit left to do is its own to-do (`commit_left`).
        assert_eq!(commit_left(answer), Some(None));
    }

    #[test]
    fn a_commit_left_to_do_and_its_message() {
        assert_eq!(
            commit_left("Ready to commit. Suggested message: `docs(git): add FAQ`. Go ahead?"),
            Some(Some("docs(git): add FAQ".to_owned()))
        );
        assert_eq!(
            commit_left("Would you like me to commit these changes?"),
            Some(None)
        );
        assert_eq!(
            commit_left("Les changements ne sont pas encore commités."),
            Some(None)
        );
        assert_eq!(commit_left("Modifications non commitées."), Some(None));
        assert_eq!(
            commit_left("Worktrees are clean: no uncommitted work."),
            None
        );
        assert_eq!(commit_left("Committed as `fix: x`."), None);
    }

    #[test]
    fn the_question_an_answer_waits_on_is_kept_and_rituals_are_not() {
        assert_eq!(
            pending_question(
                "Two probes would settle it.\n\nWant me to set up one or both probes?"
            )
            .as_deref(),
            Some("Want me to set up one or both probes?")
        );
        assert_eq!(
            pending_question("Can you paste the output of step 2? That tells us the source.")
                .as_deref(),
            Some("Can you paste the output of step 2?")
        );
        for ritual in [
            "Done. Anything else you'd like me to change?",
            "Fixed. Does that make sense to you now?",
            "Ready. Want me to commit these changes?",
            "What do you want?",
            "Done.",
            "Is this right? I removed the cache and the tests pass again now.\n\nAll green.",
            "Why did the build fail on CI? The lock file was stale after the rebase.",
        ] {
            assert_eq!(pending_question(ritual), None, "{ritual}");
        }
    }

    #[test]
    fn a_next_step_labelled_with_an_aside_and_its_command() {
        let answer = "CHANGELOG promoted and committed.\n\n**Remaining for you (per CLAUDE.md):** \
            after this branch merges to main, tag the merge commit:\n```\ngit tag -a v0.5.0 -m \"...\" \
            && git push --tags\n```\n\nNot pushed — commit only.";
        let steps = next_steps(answer);
        assert!(
            steps.iter().any(|s| s
                == "after this branch merges to main, tag the merge commit: `git tag -a v0.5.0 -m \"...\" && git push --tags`"),
            "{steps:?}"
        );
    }

    #[test]
    fn a_pull_request_said_merged_is_merged_and_one_to_merge_is_not() {
        for merged in [
            "PR #44 is already merged (12 checks passed).",
            "Done: #12 fusionnée dans main.",
            "PR #44 was merged after CI passed.",
            "Merged #44 — not much else to do.",
        ] {
            let n = if merged.contains("#12") { "#12" } else { "#44" };
            assert!(says_merged(merged, n), "{merged}");
        }
        for open in [
            "Once #45 is merged, main and develop are identical.",
            "PR #45 waits for CI before it can be merged.",
            "PR #45 is not merged yet.",
            "PR #451 is merged.",
            "#45 is open; #44 was merged.",
        ] {
            assert!(!says_merged(open, "#45"), "{open}");
        }
    }

    #[test]
    fn a_recommendation_is_settled_by_a_reply_taking_up_its_words() {
        let answer = "Other SSH servers won't trip this path.\n\nMy take: in `auto` mode over \
            SSH, drop the string match and fall back to v1 on **any** v2 probe error, joining \
            both errors if v1 also fails. The worst case is one wasted attempt.\n\nIf you want \
            a guardrail, scope it to SSH only.";
        let q = closing_question(answer).expect("the recommendation");
        assert!(q.starts_with("My take: in `auto` mode"), "{q}");
        assert!(!q.contains("**"), "{q}");
        let reply = "let's do the auto fallback with error join";
        assert!(is_a_choice(reply) && answers(&q, reply));
        assert!(answers(&q, "yes, do it"));
        // The next request, not a word of the recommendation's.
        assert!(!answers(&q, "let's look at the CLI flags next"));
        let advice = "I'd recommend adding rate limiting to the login endpoint later.";
        assert!(!answers(advice, "fix the login endpoint tests"));
        // An answer that recommends nothing asks nothing.
        assert_eq!(closing_question("Done: the fallback is in."), None);
        // A question at the end is the one asked.
        assert_eq!(
            closing_question("I'd recommend the second. Which do you want, A or B?").as_deref(),
            Some("Which do you want, A or B?")
        );
    }

    #[test]
    fn a_closing_question_and_the_choice_that_answers_it() {
        let answer = "It's enough for a phase.\n\nWhere would you want it in the M2 sequence? \
            It has no dependency on MFA, so it could go early (after Phase 12) or late.";
        assert_eq!(
            closing_question(answer).as_deref(),
            Some("Where would you want it in the M2 sequence?")
        );
        assert_eq!(
            closing_question("Done. Should it run on push or on tag?").as_deref(),
            Some("Should it run on push or on tag?")
        );
        for offer in [
            "Done. Want me to commit?",
            "Ready to commit. Go ahead?",
            "Would you like me to add tests or docs?",
            "Would you like me to tackle that next, or would you prefer to test the current changes first?",
            "Want me to push it, or leave it local?",
            "Done. Does that look right?",
            "Done.",
        ] {
            assert_eq!(closing_question(offer), None, "{offer}");
        }
        assert!(is_a_choice(
            "lets get this in quite early, but not top prio. that still remains to be mfa"
        ));
        assert!(is_a_choice("the second one"));
        // Two ways the model offers to take, one of them ordered in a few
        // words; a list to pick from, asked without a question mark.
        let ways = "Want me to implement the minimal fix (add `name:` frontmatter), or the marketplace restructure?";
        assert_eq!(
            closing_question(&format!("Found it.\n\n{ways}")).as_deref(),
            Some(ways)
        );
        assert!(is_a_choice("do the proper fix") && answers(ways, "do the proper fix"));
        assert_eq!(
            closing_question(
                "C1 is critical. Tell me which findings you'd like fixed and I'll implement them."
            )
            .as_deref(),
            Some("Tell me which findings you'd like fixed and I'll implement them.")
        );
        assert!(is_a_choice("Fix 1-3"));
        // A new request in a few words is no choice.
        assert!(!is_a_choice("also add a README section"));
        for go_ahead in [
            "Done. Want me to fix the lexer lint too, or is that enough?",
            "Want me to open the PR now, or should I leave it for later?",
        ] {
            assert_eq!(closing_question(go_ahead), None, "{go_ahead}");
        }
        assert!(!is_a_choice(
            "List, in 5 bullet points, what are the strengths"
        ));
        assert!(!is_a_choice(
            "Would I be able to redirect so the old URL doesn't break?"
        ));
        // Between two ways, the reply picks one or says yes or no; the next
        // request said instead is no choice. An open question takes any.
        let ways = "Want to eyeball it before I commit, or commit and push now?";
        assert!(answers(ways, "commit and push"));
        assert!(answers(ways, "yes go ahead"));
        assert!(answers(ways, "eyeball first please, I'll check it"));
        assert!(!answers(
            ways,
            "the words space pulsating is kinda weird and too small"
        ));
        assert!(!answers(
            "Commit and push, or preview first?",
            "its also a little too faded"
        ));
        for reply in [
            "no idea, but the footer is broken",
            "ok the header is too small though",
            "too small",
        ] {
            assert!(!answers(ways, reply), "{reply}");
        }
        assert!(answers(
            "Where would you want it in the M2 sequence?",
            "early, but not top prio"
        ));
        assert!(answers(
            "Should it run on push or on tag?",
            "lets get it on tag only, it is cheaper"
        ));
        assert!(answers(
            "Should the job use the token or a GitHub App?",
            "the app, we rotate tokens too often"
        ));
    }

    /// What is left and what breaks are announced in many words.
    #[test]
    fn headings_of_what_is_left_and_what_breaks() {
        for h in [
            "Still open",
            "Pending",
            "What's left",
            "Known issues",
            "Left to do",
        ] {
            assert_eq!(heading_cue(h), Some(Cue::FollowUp), "{h}");
        }
        assert_eq!(
            heading_cue("Breaking-change callouts for your release notes"),
            Some(Cue::Knowledge)
        );
    }

    /// The options an answer ends by offering, and the reply that picks
    /// one by its label.
    #[test]
    fn options_offered_and_the_one_a_reply_picks() {
        let answer = "Steps left:\n1. Cargo nightly publishing\n2. Tighten the skip gate\n\n\
            Three ways:\n\n**A. Keep four tabs as-is** (Scan / Extract) — change only the visuals.\n\
            **B. Three tabs, results inline** — `Wallet files` merges Scan and Extract.\n\
            - **C)** Someone else is on it — I write the spec only.\n\n\
            My recommendation is **B**. Which do you want?";
        let offered = offered_options(answer);
        assert_eq!(
            offered,
            [
                ("A".to_string(), "Keep four tabs as-is".to_string()),
                ("B".to_string(), "Three tabs, results inline".to_string()),
                ("C".to_string(), "Someone else is on it".to_string()),
            ]
        );
        assert_eq!(
            picked_option("B", &offered).as_deref(),
            Some("B — Three tabs, results inline")
        );
        assert_eq!(
            picked_option("Option c, and keep it short", &offered).as_deref(),
            Some("C — Someone else is on it")
        );
        assert_eq!(picked_option("a quick note first", &offered), None);
        assert_eq!(picked_option("D", &offered), None);
        let numbered = "Two readings:\n\n1. **The reset was intentional** — greenfield.\n\
            2. **The reset was unintentional** — recover 83e1d15.\n\nWhich is it?";
        let offered = offered_options(numbered);
        assert_eq!(
            picked_option("1 we're moving forward with rust", &offered).as_deref(),
            Some("1 — The reset was intentional")
        );
        // Lists of steps the answer does not ask about offer nothing.
        assert!(
            offered_options("Plan:\n1. Add the parser\n2. Wire the CLI\n\nShall I start?")
                .is_empty()
        );
        // The offer, not the steps listed under one of its options.
        let offers = offered_options(
            "**A. Keep four tabs** — x\n**B. Three tabs inline** — y\n\nSteps for B:\n1. Merge scan\n2. Move extract\n\nWhich one?",
        );
        assert_eq!(offers.len(), 2, "{offers:?}");
        assert_eq!(offers[1].1, "Three tabs inline");
        // A reply that only opens with a label's letter or digit picks nothing.
        for reply in [
            "A few more tweaks: make the header bigger",
            "A quick question first: why is the footer gone?",
            "B/c the tests fail, revert it",
        ] {
            assert_eq!(picked_option(reply, &offers), None, "{reply}");
        }
        let numbered2 =
            offered_options("Two ways:\n1. **Fix it here** — a\n2. **Open a PR** — b\n\nWhich?");
        for reply in [
            "2 more things: fix the header",
            "1 question: does this break the API?",
        ] {
            assert_eq!(picked_option(reply, &numbered2), None, "{reply}");
        }
        assert!(picked_option("2, but keep it small", &numbered2).is_some());
        assert!(
            offered_options("Done:\n1. Added the parser\n2. Wrote the tests\n\nAll green.")
                .is_empty()
        );
        // A bold title may be one word; a bare label in prose needs two.
        let cards = offered_options(
            "Three directions:\n\n- **A. Modern SaaS** (Linear): dark\n- **B. Utility/data-dense** (GitHub): light\n\nClick a card to pick one.",
        );
        assert_eq!(
            picked_option("B", &cards).as_deref(),
            Some("B — Utility/data-dense")
        );
        assert!(offered_options("Notes:\n1. Parser\n2. Tests\n\nWhich one first?").is_empty());
    }

    #[test]
    fn what_the_user_must_set_up_is_open_with_its_names() {
        let answer = "Works as designed.\n\nIt works. To complete the setup, you need to add these 2 \
            secrets in the repo settings:\n\n| Secret | Value |\n|---|---|\n\
            | `MACOS_CERTIFICATE` | Base64 .p12 |\n| `APPLE_ID` | Apple ID email |\n\n\
            Once the secrets are configured, re-run the workflow.";
        assert_eq!(
            next_steps(answer),
            [
                "To complete the setup, you need to add these 2 secrets in the repo settings: \
              `MACOS_CERTIFICATE`, `APPLE_ID`"
            ]
        );
        let listed = "**Required GitHub Secrets** (must be configured in repo settings):\n\
            - `MACOS_CERTIFICATE` - Base64-encoded .p12\n- `APPLE_TEAM_ID` - Team ID\n";
        assert_eq!(
            next_steps(listed),
            [
                "Required GitHub Secrets (must be configured in repo settings): \
              `MACOS_CERTIFICATE`, `APPLE_TEAM_ID`"
            ]
        );
        assert!(next_steps("Here is what changed:\n- `a.rs`: fixed\n").is_empty());
    }

    #[test]
    fn hard_wrapped_prose_is_one_sentence() {
        let s = sentences(
            "Add tests in setup_test.go that set\n$SHELL to fish and verify the path.\n- an item\nNext line.",
        );
        let texts: Vec<&str> = s.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Add tests in setup_test.go that set $SHELL to fish and verify the path.",
                "an item",
                "Next line."
            ]
        );
    }

    #[test]
    fn a_command_named_next_up_is_open() {
        let answer = "Phase 12.1 inserted.\n\n---\n\n**Next up** after MFA completes:\n\n\
            `/gsd:plan-phase 12.1`\n\n`/clear` first for fresh context";
        assert_eq!(
            next_steps(answer),
            ["Next up after MFA completes: `/gsd:plan-phase 12.1`"]
        );
        // A lead-in followed by prose is no command left.
        assert!(next_steps("Next up:\n\nwe see.").is_empty());
    }

    #[test]
    fn commands_left_to_run_are_open() {
        let answer = "Created 4 changesets.\n\nTo proceed with the release, run:\n\n```bash\nbun run version-packages   # bump\nbun verify\n```\n\nThen publish. Want me to run it?";
        assert_eq!(
            next_steps(answer),
            ["To proceed with the release, run `bun run version-packages`, `bun verify`"]
        );
        // A lead-in without its block says nothing to run.
        assert!(next_steps("To proceed, run:\n\nthe tests.").is_empty());
    }

    #[test]
    fn what_is_left_to_the_user_is_open_and_options_offered_are_not() {
        let answer = "Done — added the secret to the Test step.\n\n\
            Make sure the `DB` secret is configured in the repo's settings.\n\
            The push also says you may want to update the remote URL.\n\n\
            **Possible fixes:**\n\
            1. Make sure nothing else runs concurrently\n\
            2. Increase the timeout\n";
        assert_eq!(
            next_steps(answer),
            [
                "Make sure the `DB` secret is configured in the repo's settings.",
                "The push also says you may want to update the remote URL."
            ]
        );
        let s = sentences(answer);
        let fix = s.iter().find(|s| s.text.starts_with("Increase")).unwrap();
        assert_eq!(fix.list_cue, Some(Cue::Proposal));
        assert!(is_request_sentence(
            "also increase the default timeout to 15 seconds"
        ));
        assert!(is_request_sentence(
            "I just added a DB make sure it is exposed in CI"
        ));
        // "Do" orders unless it asks.
        assert!(is_request_sentence("Do all of them in one batch"));
        assert!(is_request_sentence("just do the other changes first"));
        for asked in [
            "Do i add it to actions secrets?",
            "do we still need the cache",
            "do all the tests pass?",
            "don't",
        ] {
            assert!(!is_request_sentence(asked), "{asked}");
        }
    }
}
