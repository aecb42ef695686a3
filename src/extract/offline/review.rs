//! What a code review found, out of the answer that reports it.
//!
//! A review (`/review`, `/security-review`, "review PR #36") ends in one
//! long Markdown answer whose findings are its headings (`### 🔴 --no-network
//! parsed but ignored — root.go:236`, `#### C1. Open redirect`) or the bold
//! leads of list items under a findings section (`- **Triple Write*NDJSON
//! functions** collapse to one helper`), with a verdict somewhere ("**Verdict:
//! Approve.**", a `## Recommendation` paragraph). Sentence scoring keeps
//! two or three fragments of such an answer; whoever resumes needs the list
//! of findings and the verdict instead.

use crate::extract::cues::cap;

/// Findings kept from one answer: enough for the list, few enough for a
/// log someone reads.
const MAX_FINDINGS: usize = 6;

/// Longest finding or verdict, in characters.
const MAX_CHARS: usize = 180;

/// What one review answer reports.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Review {
    /// The findings, most severe kept first, in the answer's order.
    pub findings: Vec<String>,
    pub verdict: Option<String>,
}

/// Sections whose headings and bold-led items are findings.
const FINDING_SECTIONS: &[&str] = &[
    "bug",
    "issue",
    "finding",
    "correctness",
    "security",
    "test",
    "simplif",
    "nit",
    "minor",
    "blocker",
    "blocking",
    "concern",
    "must fix",
    "should fix",
    "critical",
    "high",
    "medium",
    "low",
    "problem",
    "risk",
    "improvement",
    "performance",
    "error handling",
    "problème",
    "sécurité",
    "correction",
    "risque",
];

/// Sections that describe, praise or plan: never findings.
const OTHER_SECTIONS: &[&str] = &[
    "scope",
    "overview",
    "summary",
    "strength",
    "what's good",
    "what is good",
    "what works",
    "positive",
    "highlight",
    "note",
    "workflow",
    "good",
    "verification",
    "context",
    "changes",
    "files",
    "périmètre",
    "résumé",
    "points forts",
];

/// What an item says of a point the review cleared.
const CLEARED: &[&str] = &[
    "— safe",
    " safe.",
    "not exploitable",
    "no injection",
    "not a security issue",
    "not in this diff",
    "out of scope",
    "no issue",
    "looks good",
    "looks correct",
    " good.",
    "✅",
    "no action needed",
    "no change needed",
    "is justified",
    "so bundling them here is justified",
    "nothing to fix",
];

const MARKS: &[char] = &[
    '🔴', '🟠', '🟡', '🟢', '🔵', '⚪', '⚠', '❗', '‼', '\u{fe0f}',
];

/// Whether a request asks for a review or an audit (`/review`, "review PR
/// #36", "do a security audit").
pub(super) fn asks_for_review(request: &str) -> bool {
    // A word of its own: `ARCHITECTURE_REVIEW.md`, `code-review.md` name a
    // file, they ask for nothing.
    request.split_whitespace().any(|w| {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '-')
            .to_lowercase();
        matches!(
            w.as_str(),
            "review"
                | "reviews"
                | "audit"
                | "revue"
                | "relis"
                | "relire"
                | "/review"
                | "/security-review"
                | "/code-review"
        )
    })
}

/// The findings and verdict of `answer`, when it reads as a review: two
/// findings at least (a heading or a bold lead is no review on its own).
pub(super) fn review(answer: &str) -> Review {
    // (rank, text): 0 the most severe.
    let mut found: Vec<(u8, String)> = Vec::new();
    let mut verdict = None;
    let mut section = String::new();
    let mut in_fence = false;
    let mut recommendation = false;
    for raw in answer.lines() {
        let line = raw.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || line.is_empty() || line.starts_with('|') {
            continue;
        }
        if verdict.is_none()
            && let Some(v) = verdict_of(line)
        {
            verdict = Some(v);
            continue;
        }
        if let Some(title) = line
            .strip_prefix('#')
            .map(|t| t.trim_start_matches('#').trim())
        {
            let level = line.chars().take_while(|c| *c == '#').count();
            let plain = strip_marks(title);
            let t = plain.to_lowercase();
            recommendation = ["recommendation", "verdict", "bottom line", "recommandation"]
                .iter()
                .any(|k| t.starts_with(k));
            let marked = title.starts_with(MARKS);
            let coded = severity_code(&plain);
            let under_findings = is_findings(&section);
            // A heading that only names a kind ("Performance Issues") is a
            // section of findings, not one.
            let names_a_section =
                is_findings(&t) && !marked && !coded && t.split_whitespace().count() <= 3;
            if level >= 3
                && (marked || coded || under_findings)
                && !is_other(&t)
                && !recommendation
                && !names_a_section
            {
                found.push((rank(title, &plain, &section), plain));
                continue;
            }
            // A heading above the findings names their section.
            if level <= 3 {
                section = t;
            }
            continue;
        }
        if recommendation && verdict.is_none() {
            let first = first_sentence(&strip_marks(&line.replace("**", "")));
            if first.split_whitespace().count() >= 2 {
                verdict = Some(cap(&first, MAX_CHARS));
            }
            recommendation = false;
            continue;
        }
        // `- **Lead** rest`, `1. **Lead** rest` under a findings section.
        if is_findings(&section)
            && !is_other(&section)
            && let Some(item) = list_item(line)
            && let Some(lead) = bold_lead(item)
        {
            let rest = item
                .split_once("**")
                .and_then(|(_, r)| r.split_once("**"))
                .map_or("", |(_, r)| r)
                .trim_start_matches([' ', ':', '—', '-', '–', '.'])
                .trim();
            // "… — no injection vector. Good.", "… — safe": a point the
            // review checked and cleared is no finding.
            // Said at the item's end: "if it is out of scope, fine — but
            // …" earlier on clears nothing.
            let l = item.to_lowercase();
            let end = l
                .char_indices()
                .rev()
                .nth(60)
                .map_or(l.as_str(), |(at, _)| &l[at..]);
            if CLEARED.iter().any(|c| end.contains(c)) {
                continue;
            }
            let text = if lead.split_whitespace().count() < 5 && !rest.is_empty() {
                format!("{lead} — {}", first_sentence(rest))
            } else {
                lead
            };
            found.push((rank("", "", &section), strip_marks(&text)));
        }
    }
    if found.len() < 2 {
        return Review {
            findings: Vec::new(),
            verdict: verdict.filter(|_| !found.is_empty()),
        };
    }
    // The most severe first when there are too many, then the answer's order.
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by_key(|&i| (found[i].0, i));
    order.truncate(MAX_FINDINGS);
    order.sort_unstable();
    Review {
        findings: order
            .into_iter()
            .map(|i| cap(&found[i].1.replace("**", ""), MAX_CHARS))
            .collect(),
        verdict,
    }
}

/// `**Verdict: Approve.**`, `Verdict — close to ready`, `Overall verdict: …`.
fn verdict_of(line: &str) -> Option<String> {
    // On the line itself, ASCII-case-insensitively: lower-casing may change
    // byte lengths, so no offset of a lowered copy indexes the line.
    let plain = line.trim_start_matches(['*', '#', ' ', '-']);
    let strip = |s: &'_ str, p: &str| -> Option<usize> {
        s.get(..p.len())
            .filter(|h| h.eq_ignore_ascii_case(p))
            .map(|_| p.len())
    };
    let plain = strip(plain, "overall ").map_or(plain, |n| &plain[n..]);
    let rest = strip(plain, "verdict")
        .or_else(|| strip(plain, "recommendation"))
        .map(|n| &plain[n..])?;
    if !rest.starts_with([':', ' ', '*', '—', '-']) {
        return None;
    }
    let said = rest
        .trim_start_matches([':', ' ', '*', '—', '-', '–'])
        .replace("**", "");
    let said = strip_marks(said.trim());
    (!said.is_empty()).then(|| cap(&first_sentence(&said), MAX_CHARS))
}

/// `C1.`, `H2`, `M3.`, `L1:`: a severity-coded finding id.
fn severity_code(title: &str) -> bool {
    let mut c = title.chars();
    matches!(c.next(), Some('C' | 'H' | 'M' | 'L'))
        && c.next().is_some_and(|d| d.is_ascii_digit())
        && c.next().is_some_and(|s| matches!(s, '.' | ':' | ' ' | ')'))
}

/// Whether a section's heading names findings: one of its words starts
/// with a key ("Bugs", "Minor nits"), or it holds a key of several words
/// ("Must fix"); "Highlights", "Unit of work" or "Workflow" do not.
fn is_findings(section: &str) -> bool {
    let words: Vec<&str> = section
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    FINDING_SECTIONS.iter().any(|k| {
        if k.contains(' ') {
            section.contains(k)
        } else {
            words.iter().any(|w| w.starts_with(k))
        }
    }) && !is_other(section)
}

fn is_other(section: &str) -> bool {
    let first = section
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    OTHER_SECTIONS.iter().any(|k| first.starts_with(k))
}

/// How severe a finding is, 0 the most: by its mark (`🔴`, `🟠`, `🟡`),
/// its code (`C1`, `H1`, `M1`, `L1`) or its section's name.
fn rank(title: &str, plain: &str, section: &str) -> u8 {
    let code = severity_code(plain).then(|| plain.chars().next()).flatten();
    if title.starts_with(['🔴', '❗', '‼']) || code == Some('C') {
        return 0;
    }
    if title.starts_with('🟠') || code == Some('H') {
        return 1;
    }
    if title.starts_with('🟡') || code == Some('M') {
        return 2;
    }
    if code == Some('L') || title.starts_with(['🟢', '🔵', '⚪']) {
        return 3;
    }
    let words: Vec<&str> = section.split(|c: char| !c.is_alphanumeric()).collect();
    let has = |k: &str| words.iter().any(|w| w.starts_with(k));
    if has("critical") || has("blocker") || has("blocking") || section.contains("must fix") {
        0
    } else if has("bug") || has("security") || has("high") {
        1
    } else if has("medium") || has("correctness") {
        2
    } else {
        3
    }
}

fn list_item(line: &str) -> Option<&str> {
    for bullet in ["- ", "* ", "+ "] {
        if let Some(r) = line.strip_prefix(bullet) {
            return Some(r.trim_start());
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    (1..=2)
        .contains(&digits)
        .then(|| line[digits..].strip_prefix(['.', ')']))
        .flatten()
        .map(str::trim_start)
}

/// The bold text an item opens with, when it is a title (a few words).
fn bold_lead(item: &str) -> Option<String> {
    let rest = item.strip_prefix("**")?;
    let (lead, _) = rest.split_once("**")?;
    let lead = lead.trim().trim_end_matches([':', '.']).trim();
    let words = lead.split_whitespace().count();
    (1..=16).contains(&words).then(|| lead.to_owned())
}

fn strip_marks(text: &str) -> String {
    text.trim_start_matches(|c: char| MARKS.contains(&c) || c.is_whitespace())
        .trim()
        .to_owned()
}

/// Up to the first `. ` outside backticks.
fn first_sentence(text: &str) -> String {
    let mut in_code = false;
    for (i, c) in text.char_indices() {
        match c {
            '`' => in_code = !in_code,
            '.' | '!' if !in_code && text[i + 1..].starts_with(' ') => {
                return text[..=i].trim().to_owned();
            }
            _ => {}
        }
    }
    text.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reviews_headings_and_bold_items_are_its_findings() {
        let answer = "Now I have a complete picture.\n\n# Code Review — `feature`\n\n\
            ## Scope\n\n- **Committed**: `97c9c59` and `3c7913e`\n\n\
            ## Correctness\n\n### 🔴 `--no-network` parsed but ignored — root.go:236-238\n\
            The flag sets `flags.NoNetwork`, but nothing reads it.\n\n\
            ### 🟡 Go import block regex captures from comments — provider.go:541\n\
            `scanGoImports` switches into block mode.\n\n\
            ```go\nimport (\n    // see \"x\"\n)\n```\n\n\
            ## Simplification\n\n\
            - **Triple Write*NDJSON functions** (provider.go:283) collapse to one helper. Minor.\n\n\
            ## Recommendation\n\nClose to ready. Fix the flag first.\n";
        let r = review(answer);
        assert_eq!(
            r.findings,
            [
                "`--no-network` parsed but ignored — root.go:236-238",
                "Go import block regex captures from comments — provider.go:541",
                "Triple Write*NDJSON functions — (provider.go:283) collapse to one helper.",
            ]
        );
        assert_eq!(r.verdict.as_deref(), Some("Close to ready."));
    }

    #[test]
    fn a_bold_verdict_and_coded_findings_count_and_too_many_keep_the_severe() {
        let answer = "**Verdict: Approve.** The fix is correct.\n\n## Minor nits\n\n\
            - **`objectSpec` vs `rev:path`** in the wrapped error.\n\
            - **newCmd doc comment** reads backwards.\n";
        let r = review(answer);
        assert_eq!(r.verdict.as_deref(), Some("Approve."));
        assert_eq!(r.findings.len(), 2);
        let mut many = String::from("## Findings\n\n");
        for i in 1..=4 {
            many.push_str(&format!("#### L{i}. Low thing number {i}\n\n"));
        }
        many.push_str("#### C1. Open redirect in the login handler\n\n#### H1. CORS with credentials\n\n#### M1. No HSTS header\n");
        let r = review(&many);
        assert_eq!(r.findings.len(), MAX_FINDINGS);
        assert!(
            r.findings.iter().any(|f| f.starts_with("C1.")),
            "{:?}",
            r.findings
        );
    }

    #[test]
    fn only_a_request_for_a_review_or_an_audit_asks_for_one() {
        assert!(asks_for_review("/review /security-review"));
        assert!(asks_for_review("Do a security audit of the authentication"));
        assert!(!asks_for_review("analyse this issue and suggest fixes"));
        assert!(!asks_for_review(
            "implement Rec 03 in .context/code-review.md"
        ));
        assert!(!asks_for_review(
            "Phase 2 from docs/ARCHITECTURE_REVIEW-2025.md"
        ));
        assert!(asks_for_review("Review the branch / PR"));
        // A heading that names a kind of finding is their section.
        let r = review(
            "## Review\n\n### Performance Issues\n\n- **Main thread blocking** freezes the UI\n- **Sequential loading** is slow\n\n### Recommendation\n\nShip it.",
        );
        assert_eq!(
            r.findings,
            [
                "Main thread blocking — freezes the UI",
                "Sequential loading — is slow"
            ]
        );
        assert_eq!(r.verdict.as_deref(), Some("Ship it."));
        let cleared = review(
            "## Security\n\n- **Structured args throughout** — no shell, no injection vector. Good.\n- **Hooks** are gated — safe.\n- **No file-size cap** before reading.\n- **`--repo` accepts any path** including `/`.",
        );
        assert_eq!(
            cleared.findings,
            [
                "No file-size cap — before reading.",
                "`--repo` accepts any path — including `/`."
            ]
        );
    }

    #[test]
    fn severity_is_graded_praise_is_no_finding_and_odd_text_does_not_panic() {
        let mut many = String::from("## Findings\n\n");
        for i in 1..=5 {
            many.push_str(&format!("#### L{i}. Low thing number {i}\n\n"));
        }
        many.push_str("#### C1. Open redirect\n\n#### H1. CORS with credentials\n");
        let r = review(&many);
        assert!(
            r.findings.iter().any(|f| f.starts_with("H1.")),
            "{:?}",
            r.findings
        );
        assert!(
            !r.findings.iter().any(|f| f.starts_with("L5.")),
            "{:?}",
            r.findings
        );
        let praise = "## Highlights\n\n- **Clean API** — easy to follow.\n- **Good tests** cover the edges.\n\n## Unit of work\n\n- **One** — two.\n- **Three** — four.";
        assert_eq!(review(praise), Review::default());
        // Lower-casing changes byte lengths: nothing indexes a lowered copy.
        let r = review(
            "Verdict:é 5\u{212A} fine\nVerdict: İİ Approve with nits.\n## Bugs\n- **a b** c\n- **d e** f",
        );
        assert_eq!(r.verdict.as_deref(), Some("é 5\u{212A} fine"));
    }

    #[test]
    fn a_work_summary_or_a_lone_heading_is_no_review() {
        let summary = "Done.\n\n## Changes\n\n- **parser.rs**: handles tabs\n- **lexer.rs**: new token\n\n## Verification\n\nAll tests pass.";
        assert_eq!(review(summary), Review::default());
        let lone = "## Bugs\n\n### 🔴 The cache never expires\n\nThat is the only one.";
        assert!(review(lone).findings.is_empty());
        assert_eq!(review("Verdict: fine, nothing else."), Review::default());
    }
}
