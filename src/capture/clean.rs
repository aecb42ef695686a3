//! What the user asked for, out of what the client wrapped around it.
//!
//! A user record holds much that the user did not type as a request: IDE
//! context (`<ide_opened_file>`, `<ide_selection>`, …), slash-command
//! wrappers, bash-mode input and output, system reminders, hook feedback,
//! compaction summaries, interruption markers, and logs the user pasted.
//! [`classify`] tells them apart; [`clean_prompt`] is public so that the
//! gate can read the same words as capture does.

use crate::extract::digest::RequestKind;
use crate::transcript::text::{is_client_text, starts_with_any, strip_blocks, tag_content};
use std::borrow::Cow;

/// A user record's text, sorted out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserText {
    /// Something the user asked (possibly nothing once cleaned: see
    /// [`Cleaned::kind`]).
    Request(Cleaned),
    /// `[Request interrupted by user…]`: the turn before it was stopped.
    Interrupted,
    /// Output of a command the client ran itself (`/compact`, `/model`…).
    LocalOutput,
    /// What the user's own shell command (bash mode, `!cmd`) printed: the
    /// command and the line that tells, context for the next request
    /// ("fix these").
    ShellOutput {
        command: String,
        telling: Option<String>,
    },
    /// Written by the client or a hook: not a request.
    NotHuman,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleaned {
    pub request: String,
    pub kind: RequestKind,
    /// IDE context, one line each (`opened: path`, `selection: path (lines 3-9)`).
    pub ide: Vec<String>,
    /// The telling line of each pasted log or trace.
    pub pasted: Vec<String>,
    /// A plan handed over as the request ("Implement the following
    /// plan:"): accepted in plan mode before the context was cleared.
    pub plan: Option<String>,
}

/// Sorts out the text of a user record that has no tool result and whose
/// flags (`isMeta`, `isCompactSummary`, an origin that is not a human…) do
/// not already say it is not the user's.
pub fn classify(text: &str, has_image: bool) -> UserText {
    let text = strip_blocks(text, "<system-reminder>", "</system-reminder>");
    let text = strip_harness_preamble(text.trim());
    if text.starts_with("[Request interrupted by user") {
        return UserText::Interrupted;
    }
    if starts_with_any(text, &["<local-command-stdout>", "<local-command-stderr>"]) {
        return UserText::LocalOutput;
    }
    if text.starts_with("<bash-input>")
        || text.starts_with("<bash-stdout>")
        || text.starts_with("<bash-stderr>")
    {
        let command = tag_content(text, "bash-input")
            .unwrap_or("")
            .trim()
            .to_owned();
        let uncoloured = |t: Option<&str>| {
            t.map(|t| {
                if t.contains('\x1b') {
                    crate::format::strip_ansi(t)
                } else {
                    t.to_owned()
                }
            })
        };
        let stderr = uncoloured(tag_content(text, "bash-stderr")).unwrap_or_default();
        let out = [
            uncoloured(tag_content(text, "bash-stdout")),
            Some(stderr.clone()),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("\n");
        let lines: Vec<&str> = out.lines().collect();
        // A program that says why it stopped on stderr (`No test files
        // found, exiting with code 1`) need not say "error".
        let telling = failure_line(&lines)
            .or_else(|| {
                lines
                    .iter()
                    .find(|l| names_an_error(l))
                    .map(|l| l.trim().to_owned())
            })
            .or_else(|| {
                stderr
                    .lines()
                    .map(str::trim)
                    .find(|l| {
                        l.to_lowercase().contains("exit") && l.chars().any(char::is_alphabetic)
                    })
                    .map(str::to_owned)
            });
        return UserText::ShellOutput { command, telling };
    }
    if is_client_text(text) {
        return UserText::NotHuman;
    }
    let cleaned = clean_prompt(text);
    if cleaned.request.is_empty() && cleaned.ide.is_empty() && cleaned.pasted.is_empty() {
        if has_image {
            return UserText::Request(Cleaned {
                request: "[image]".into(),
                kind: RequestKind::Task,
                ..Default::default()
            });
        }
        return UserText::NotHuman;
    }
    UserText::Request(cleaned)
}

/// The request in `text` (a prompt as the client sends it), with IDE
/// context, command wrappers and pastes taken out, and what kind it is.
pub fn clean_prompt(text: &str) -> Cleaned {
    let mut out = Cleaned::default();
    let text = strip_blocks(text, "<system-reminder>", "</system-reminder>");
    let text = strip_harness_preamble(text.trim());

    // IDE context: out of the request, kept as context.
    let (text, ide) = strip_ide(text);
    out.ide = ide;
    let text = text.trim();

    // `<command-name>/x</command-name>` (with `<command-message>` first on older clients).
    if text.starts_with("<command-")
        && let Some(name) = tag_content(text, "command-name")
    {
        let args = tag_content(text, "command-args").unwrap_or("").trim();
        let name = name.trim();
        out.request = if args.is_empty() {
            name.to_owned()
        } else {
            format!("{name} {args}")
        };
        out.kind = RequestKind::Command;
        return out;
    }

    // "Implement the following plan:" and a whole plan (the client's
    // handoff after plan mode clears the context): the plan's title is the
    // request, and the plan is one the user accepted; its code blocks are
    // no paste.
    const HANDOFF: &str = "implement the following plan:";
    if let Some(head) = text.get(..HANDOFF.len())
        && head.eq_ignore_ascii_case(HANDOFF)
        && let Some(title) = crate::extract::plan_title(&text[HANDOFF.len()..])
    {
        let plan = text[HANDOFF.len()..].trim();
        // The client's trailer after the plan points at the old transcript.
        let plan = plan
            .rfind("\n\nIf you need specific details from before exiting plan mode")
            .map_or(plan, |i| plan[..i].trim_end());
        out.request = title;
        out.plan = Some(plan.to_owned());
        out.kind = RequestKind::Task;
        return out;
    }

    // A terminal line ending in `\` is the user's line break (Shift+Enter).
    let joined;
    let text = if text.contains("\\\n") {
        joined = text.replace("\\\n", "\n");
        joined.as_str()
    } else {
        text
    };
    // Pasted out of a terminal box (`  │   ## Context`): the border is
    // no part of the words.
    let unboxed;
    let text = match without_box_border(text) {
        Some(t) => {
            unboxed = t;
            unboxed.as_str()
        }
        None => text,
    };
    // `OK-done` is a command of cairn's, not an acknowledgement.
    if crate::extract::is_ok_done(text) {
        out.request = text.to_owned();
        return out;
    }
    let (prose, pasted) = split_pastes(text);
    out.pasted = pasted;
    // `[Image #1]`: the client's placeholder for a pasted image.
    let prose = without_image_paths(&strip_image_tags(&prose));
    let prose = strip_ack(prose.trim());
    out.request = prose.to_owned();
    out.kind = if out.request.is_empty() {
        RequestKind::None
    } else if is_question(&out.request) {
        RequestKind::Question
    } else {
        RequestKind::Task
    };
    out
}

/// Characters of one text looked at for findings.
const FINDINGS_SCAN: usize = 16 * 1024;

/// A text whose lines (two or more) are framed by a box's `│`, as copied
/// from a terminal UI, without the frame; `None` when it has none.
fn without_box_border(text: &str) -> Option<String> {
    let framed = text
        .lines()
        .filter(|l| l.trim_start().starts_with('│'))
        .take(2)
        .count();
    if framed < 2 {
        return None;
    }
    let lines: Vec<&str> = text
        .lines()
        .map(|l| match l.trim_start().strip_prefix('│') {
            Some(rest) => rest.trim_end().trim_end_matches('│').trim(),
            None => l,
        })
        .collect();
    Some(lines.join("\n"))
}

/// Characters of a text after a failure looked at for its cause.
const CAUSE_SCAN: usize = 1200;

/// What the model says of a failure it just saw, when it says why: one
/// sentence among the first three of its next text that gives a cause
/// ("The test still expects schema_version 1.0, but main is on 1.1."),
/// not narration ("Let me check the config.") nor a bare verdict ("The
/// build failed.").
pub fn failure_cause(text: &str) -> Option<String> {
    const CAUSAL: &[&str] = &[
        " because ",
        " since ",
        " expects ",
        " expected ",
        " instead of ",
        " mismatch",
        " missing",
        " doesn't exist",
        " does not exist",
        " not defined",
        " undefined",
        " not found",
        " requires ",
        " caused by ",
        " due to ",
        " stale",
        " outdated",
        " pre-existing",
        " preexisting",
        " unrelated to ",
        " was renamed",
        " still expect",
        " uses tabs",
        " wrong ",
        " parce que ",
        " à cause ",
        " attend ",
        " manque",
    ];
    const NARRATION: &[&str] = &[
        "let me", "let's", "now ", "i'll", "i will", "i need", "i should", "next", "first", "ok",
        "okay", "good", "great", "perfect", "je vais", "voyons",
    ];
    let text = match text.char_indices().nth(CAUSE_SCAN) {
        Some((at, _)) => &text[..at],
        None => text,
    };
    // Cheap refusal first: most texts between calls are one short line.
    let lower_all = format!(" {}", text.to_lowercase());
    if !CAUSAL.iter().any(|c| lower_all.contains(c)) {
        return None;
    }
    crate::extract::sentences(text)
        .into_iter()
        .take(3)
        .map(|s| s.text.replace("**", "").trim().to_owned())
        .find(|t| {
            let l = format!(" {} ", t.to_lowercase());
            let words = t.split_whitespace().count();
            (6..=60).contains(&words)
                && !t.ends_with('?')
                && !t.ends_with(':')
                && !NARRATION.iter().any(|n| {
                    // A whole word: "Next.js requires …" is no "next".
                    l[1..].strip_prefix(n.trim_end()).is_some_and(|r| {
                        !r.starts_with(|c: char| c.is_alphanumeric() || c == '.' || c == '\'')
                    })
                })
                && CAUSAL.iter().any(|c| l.contains(c))
        })
}

/// What the model says right after an edit of its own failed, when its
/// first sentence is a statement of what it saw ("The indentation uses
/// tabs.", "The formatter reshuffled imports."), not narration ("Let me
/// read the file again.") nor a change of subject ("Actually, wait - …").
pub fn slip_cause(text: &str) -> Option<String> {
    const NOT_A_CAUSE: &[&str] = &[
        "let me", "let's", "now", "i'll", "i will", "i need", "i should", "i'm", "next", "first",
        "ok", "okay", "good", "great", "perfect", "done", "actually", "wait", "hmm", "still",
        "i see", "je vais", "voyons",
    ];
    let first = crate::extract::sentences(text).into_iter().next()?;
    let t = first.text.replace("**", "").trim().to_owned();
    let words = t.split_whitespace().count();
    let lower = t.to_lowercase();
    let opens_with = |n: &&str| {
        lower
            .strip_prefix(*n)
            .is_some_and(|r| !r.starts_with(|c: char| c.is_alphanumeric() || c == '\''))
    };
    ((3..=40).contains(&words)
        && !t.ends_with('?')
        && !t.ends_with(':')
        && !NOT_A_CAUSE.iter().any(opens_with))
    .then_some(t)
}

/// What a text of the model between two tool calls says it found: a
/// line opening with a finding's cue ("Key findings:" and its list, "The
/// root cause is …", "Found it — …"), cut to one entry. Narration ("Let
/// me check …") and plans are not findings.
pub fn findings(text: &str) -> Vec<String> {
    const LEADS: &[&str] = &[
        "key findings",
        "key finding",
        "findings",
        "what i found",
        "found it",
        "found the issue",
        "found the problem",
        "found the bug",
        "the root cause",
        "root cause",
        "the issue is",
        "the problem is",
        "the bug is",
        "the culprit",
        "it turns out",
        "turns out",
        "the key insight",
        "key insight",
        "important:",
        "la cause",
        "le problème vient",
        "j'ai trouvé",
    ];
    let mut out = Vec::new();
    // A finding opens a text; a huge one (pasted output echoed back) is
    // looked at no further than its head, so no text makes this slow.
    let text = match text.char_indices().nth(FINDINGS_SCAN) {
        Some((at, _)) => &text[..at],
        None => text,
    };
    // Cheap refusal first: most texts between calls are one short line.
    let lower_all = text.to_lowercase();
    if !LEADS.iter().any(|l| lower_all.contains(l)) {
        return out;
    }
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let unmark = |l: &str| {
        l.trim_start_matches(['#', '>', ' '])
            .replace("**", "")
            .trim()
            .to_owned()
    };
    let is_item = |l: &str| {
        l.starts_with("- ")
            || l.starts_with("* ")
            || l.split_once(". ")
                .is_some_and(|(n, _)| n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut i = 0;
    while i < lines.len() {
        let whole = unmark(lines[i]);
        i += 1;
        // The cue opens the line or a sentence of it ("Good, I have enough
        // context now. Key findings:").
        let starts = std::iter::once(0).chain(
            whole
                .match_indices(['.', '!', '?'])
                .map(|(at, _)| at + 1)
                .filter(|at| whole[*at..].starts_with(' ')),
        );
        let Some((line, lead)) = starts
            .filter_map(|at| {
                let rest = whole[at..].trim_start();
                // The cue's length is enough: a line of many sentences
                // stays linear.
                let lower: String = rest.chars().take(24).collect::<String>().to_lowercase();
                LEADS
                    .iter()
                    .find(|l| lower.starts_with(**l))
                    .map(|l| (rest.to_owned(), *l))
            })
            .next()
        else {
            continue;
        };
        let lower = line.to_lowercase();
        let mut found = line.clone();
        // A lead-in and its list: one finding with the items (the first
        // few; they are the gist).
        if line.ends_with(':') || lower.trim_end_matches(':') == lead {
            let items: Vec<String> = lines[i..]
                .iter()
                .skip_while(|l| l.is_empty())
                .take_while(|l| is_item(l))
                .take(4)
                .map(|l| {
                    unmark(l.trim_start_matches(['-', '*', ' ']))
                        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                        .trim()
                        .trim_end_matches(['.', ';'])
                        .to_owned()
                })
                .collect();
            if items.is_empty() {
                continue;
            }
            found = format!(
                "{}: {}",
                line.trim_end_matches(':').trim_end(),
                items.join("; ")
            );
        } else {
            // "Found it! The issue is …": what follows the exclamation.
            let body = line
                .get(lead.len()..)
                .unwrap_or("")
                .trim_start_matches(['!', '.', ':', ' ', '—', '-']);
            let body_lower = body.to_lowercase();
            if body.split_whitespace().count() < 5
                || ["let me", "i'll", "i will", "now ", "je vais"]
                    .iter()
                    .any(|n| body_lower.starts_with(n))
            {
                continue;
            }
        }
        // A guess is no finding.
        let lower_found = found.to_lowercase();
        if [
            " likely",
            " might ",
            " may be ",
            " probably",
            " perhaps",
            " possibly",
            " could be ",
            " i think",
            " i suspect",
            " peut-être",
            " sans doute",
        ]
        .iter()
        .any(|g| lower_found.contains(g))
        {
            continue;
        }
        // What the model does next is not part of it.
        let found = match [". Let me ", ". I'll ", ". Now ", ". Next, ", ". Je vais "]
            .iter()
            .filter_map(|n| found.find(n))
            .min()
        {
            Some(at) => format!("{}.", &found[..at]),
            None => found,
        };
        let found = crate::extract::digest::head(&found, crate::extract::digest::MAX_ENTRY_CHARS);
        if !out.contains(&found) {
            out.push(found);
        }
    }
    out
}

/// `text` without the instructions a tool that drives the client puts
/// before every prompt (Conductor's `<system_instruction>…`, and the like):
/// a leading block whose tag names instructions, a system prompt or an
/// environment. Only at the start, so that markup the user pasted inside
/// a request stays theirs.
pub fn strip_harness_preamble(mut text: &str) -> &str {
    const NAMES: &[&str] = &[
        "instruction",
        "system",
        "prompt",
        "environment",
        "guideline",
    ];
    loop {
        let Some(rest) = text.strip_prefix('<') else {
            return text;
        };
        let Some(len) = rest.find('>') else {
            return text;
        };
        let tag = &rest[..len];
        let named = !tag.is_empty()
            && tag.len() <= 40
            && tag
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'-')
            && NAMES.iter().any(|n| tag.contains(n));
        if !named {
            return text;
        }
        let close = format!("</{tag}>");
        let Some(end) = rest.find(&close) else {
            return text;
        };
        text = rest[end + close.len()..].trim_start();
    }
}

/// `text` without its IDE context blocks (`<ide_opened_file>`,
/// `<ide_selection>`, …), each replaced by a line break, and one line of
/// context for each (where the user was, not what they selected). One
/// pass: the text is rebuilt around the blocks, never shifted in place.
pub fn strip_ide(text: &str) -> (Cow<'_, str>, Vec<String>) {
    if !text.contains("<ide_") {
        return (Cow::Borrowed(text), Vec::new());
    }
    let mut ide = Vec::new();
    let mut rest = text;
    let mut kept = String::with_capacity(rest.len());
    while let Some((start, end, tag, body)) = next_ide_block(rest) {
        if let Some(line) = ide_line(tag, body) {
            ide.push(line);
        }
        kept.push_str(&rest[..start]);
        kept.push('\n');
        rest = &rest[end..];
    }
    kept.push_str(rest);
    (Cow::Owned(kept), ide)
}

/// The first `<ide_…>` block: its byte span, tag and body. An unclosed
/// block runs to the end of the text.
fn next_ide_block(text: &str) -> Option<(usize, usize, &str, &str)> {
    let start = text.find("<ide_")?;
    let rest = &text[start + 1..];
    let name_len = rest.find('>')?;
    let tag = &rest[..name_len];
    if tag.is_empty()
        || !tag
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit())
    {
        return None;
    }
    let body_start = start + 1 + name_len + 1;
    let close = format!("</{tag}>");
    match text[body_start..].find(&close) {
        Some(len) => Some((
            start,
            body_start + len + close.len(),
            tag,
            &text[body_start..body_start + len],
        )),
        None => Some((start, text.len(), tag, &text[body_start..])),
    }
}

/// One line of IDE context: where the user was, not what they selected.
fn ide_line(tag: &str, body: &str) -> Option<String> {
    let body = body.trim();
    match tag {
        "ide_opened_file" => {
            let path = between(body, "opened the file ", " in the IDE")?;
            Some(format!("opened: {}", path.trim()))
        }
        "ide_selection" => {
            // "The user selected the lines 508 to 510 from /p/x.py:\n<text>"
            let head = body.lines().next().unwrap_or("");
            let lines = between(head, "selected the lines ", " from ");
            let path = head
                .split_once(" from ")
                .map(|(_, p)| p.trim_end_matches(':').trim());
            match (path, lines) {
                (Some(p), Some(l)) => {
                    Some(format!("selection: {p} (lines {})", l.replace(" to ", "-")))
                }
                (Some(p), None) => Some(format!("selection: {p}")),
                _ => Some("selection".into()),
            }
        }
        _ => {
            let first = body.lines().map(str::trim).find(|l| !l.is_empty())?;
            let name = tag.trim_start_matches("ide_");
            Some(format!(
                "{name}: {}",
                crate::extract::digest::head(first, 200)
            ))
        }
    }
}

fn between<'t>(text: &'t str, start: &str, end: &str) -> Option<&'t str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

/// Splits a prompt into the user's prose and the telling lines of what they
/// pasted. Prose after a paste is kept.
fn split_pastes(text: &str) -> (String, Vec<String>) {
    let mut prose: Vec<&str> = Vec::new();
    let mut pasted = Vec::new();
    for p in paragraphs(text) {
        // A line that long has no room in a digest, whoever wrote it.
        if p.pasted || p.lines.iter().any(|l| l.len() > 2000) {
            // "Can you look at these errors? [Proxy] GET …": the user's
            // question glued to the head of what they pasted.
            let mut lines = p.lines.to_vec();
            if p.session {
                // Another session's exchange: only a line naming what went
                // wrong in it ("Unknown skill: session-end").
                if let Some(l) = lines
                    .iter()
                    .find(|l| names_an_error(l) || is_exception_line(l.trim()))
                {
                    let l = l.trim();
                    let bare = CLIENT_MARKS
                        .iter()
                        .find_map(|m| l.strip_prefix(m))
                        .unwrap_or(l);
                    pasted.push(bare.trim().to_owned());
                }
                continue;
            }
            if !p.fenced
                && let Some(first) = lines.first().copied()
                && !is_log_line(first)
            {
                if let Some(end) = first.rfind('?')
                    && first[..end].split_whitespace().count() >= 3
                {
                    prose.push(first[..=end].trim());
                    prose.push("");
                    lines.remove(0);
                } else if let Some((lead, log)) = first.split_once(": ")
                    && lead.split_whitespace().count() >= 3
                    && is_log_line(log)
                {
                    // "… is written for all nodes:  [WARNING] …": the
                    // user's words, then the first line they pasted.
                    prose.push(lead.trim());
                    prose.push("");
                    lines[0] = log;
                }
            }
            // "… (channel full) . Investigate and suggest fixes.": the
            // request glued to the tail of the paste.
            let mut tail = None;
            if !p.fenced
                && let Some(last) = lines.last().copied()
                && let Some((log, ask)) = last.rsplit_once(". ")
                && crate::extract::is_request_sentence(ask)
                && ask.split_whitespace().count() >= 2
            {
                tail = Some(ask.trim());
                if let Some(l) = lines.last_mut() {
                    *l = log;
                }
            }
            let lines = lines.as_slice();
            // In an app's log, the line saying a program it ran exited
            // with an error ("Cursor Agent CLI exited with code 1 (general
            // error)") tells more than the first line with "error" in it.
            let exited = lines.iter().find(|l| {
                let l = l.to_lowercase();
                l.contains("exited with code") && names_an_error(&l)
            });
            if let Some(line) = exited
                .map(|l| l.trim().to_owned())
                .or_else(|| telling_line(lines))
            {
                pasted.push(line);
            }
            if let Some(ask) = tail {
                prose.push(ask);
                prose.push("");
            }
        } else {
            prose.extend(p.lines.iter().copied());
            prose.push("");
        }
    }
    pasted.dedup();
    let prose = prose.join("\n");
    let prose = prose.trim();
    (prose.strip_prefix("❯ ").unwrap_or(prose).to_owned(), pasted)
}

/// One paragraph of a prompt: lines between blank lines, or a fenced block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paragraph<'t> {
    /// Its lines; a fenced block's without the fences.
    pub lines: Vec<&'t str>,
    /// Pasted rather than written: a fenced block, or a paragraph most of
    /// whose lines look like a log, a trace or data ([`is_log_line`]).
    pub pasted: bool,
    pub fenced: bool,
    /// Copied from the client's own terminal (`❯ …`, `● …`): another
    /// session's exchange, which tells a problem only where it names one.
    pub session: bool,
    /// Byte span in the text (a fenced block's with its fences).
    pub start: usize,
    pub end: usize,
}

/// The paragraphs of `text`, in order. The gate masks the pasted ones where
/// they are; [`clean_prompt`] keeps the others as the request.
pub fn paragraphs(text: &str) -> Vec<Paragraph<'_>> {
    // Lines are slices of `text`: their offsets come from their addresses.
    fn at(text: &str, line: &str) -> usize {
        line.as_ptr() as usize - text.as_ptr() as usize
    }
    // A client session copied from the terminal (`❯ prompt`, `● answer`,
    // `⎿ result`, wrapped lines indented under them) is pasted, up to the
    // next paragraph the user starts at the margin.
    fn flush<'t>(
        text: &'t str,
        para: &mut Vec<&'t str>,
        out: &mut Vec<Paragraph<'t>>,
        in_session: &mut bool,
        copied: bool,
    ) {
        if let (Some(first), Some(last)) = (para.first(), para.last()) {
            let (start, end) = (at(text, first), at(text, last) + last.len());
            // The prompt's own first line copied with its `❯`: the user's
            // words, sent again.
            let own = out.is_empty() && first.starts_with("❯ ");
            let session = copied
                && !own
                && (is_client_line(first)
                    || (*in_session && first.starts_with(char::is_whitespace)));
            *in_session = session;
            let pasted = session || looks_pasted(para);
            out.push(Paragraph {
                lines: std::mem::take(para),
                pasted,
                fenced: false,
                session,
                start,
                end,
            });
        }
    }
    let mut out = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    let mut fence: Option<(usize, Vec<&str>)> = None;
    let mut in_session = false;
    // Marks alone are no session ("Fix these:\n● the header", a shell
    // prompt's `❯ npm test`): the client's own shapes are.
    let copied = copied_session(text);
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            match fence.take() {
                Some((start, body)) => out.push(Paragraph {
                    lines: body,
                    pasted: true,
                    fenced: true,
                    session: false,
                    start,
                    end: at(text, line) + line.len(),
                }),
                None => {
                    flush(text, &mut para, &mut out, &mut in_session, copied);
                    fence = Some((at(text, line), Vec::new()));
                }
            }
            continue;
        }
        if let Some((_, body)) = fence.as_mut() {
            body.push(line);
            continue;
        }
        if line.trim().is_empty() {
            flush(text, &mut para, &mut out, &mut in_session, copied);
        } else if copied
            && let Some(glyph) = client_paste_at(line)
            && !para.first().is_some_and(|f| is_client_line(f))
            && !(out.is_empty() && para.is_empty() && line.starts_with("❯ "))
        {
            // "… then this happened:  ❯ Unknown skill": the user's words,
            // then the session they copied.
            let head = line[..glyph].trim_end();
            if !head.is_empty() {
                para.push(head);
            }
            flush(text, &mut para, &mut out, &mut in_session, copied);
            para.push(&line[glyph..]);
        } else {
            para.push(line);
        }
    }
    if let Some((start, body)) = fence {
        out.push(Paragraph {
            lines: body,
            pasted: true,
            fenced: true,
            session: false,
            start,
            end: text.len(),
        });
    }
    flush(text, &mut para, &mut out, &mut in_session, copied);
    out
}

/// The marks the client's terminal UI puts before a prompt, a message and
/// a tool's result.
const CLIENT_MARKS: &[&str] = &["❯ ", "● ", "⏺ ", "⎿ ", "⎿\u{a0}", "✻ "];

/// Whether a line opens with one of the client's own marks.
fn is_client_line(line: &str) -> bool {
    let t = line.trim_start();
    CLIENT_MARKS.iter().any(|m| t.starts_with(m))
}

/// Where a copied client session starts in `line`: at its start, or after
/// the user's lead-in ending on a colon and the spaces the terminal left
/// ("then this happened:  ❯ …"; not "set the bullet to: ● like the design").
fn client_paste_at(line: &str) -> Option<usize> {
    if is_client_line(line) {
        return Some(line.len() - line.trim_start().len());
    }
    CLIENT_MARKS.iter().find_map(|m| {
        let at = line.find(m)?;
        let before = &line[..at];
        (before.ends_with("  ") && before.trim_end().ends_with(':')).then_some(at)
    })
}

/// Whether `text` holds a session copied from the client's terminal: a
/// tool's result mark (`⎿`), the older answer mark (`⏺`), or a prompt
/// (`❯`) with an answer (`●`) after it, or an answer telling a tool call
/// (`● Read 1 file`, `● Bash(…)`).
fn copied_session(text: &str) -> bool {
    const TOOL_SHAPES: &[&str] = &[
        "Read ", "Bash(", "Update(", "Write(", "Edit(", "Search(", "Task(", "Fetch(", "Explore(",
        "Agent(",
    ];
    let mut prompt = false;
    for line in text.lines().take(2000) {
        let t = line.trim_start();
        if t.starts_with('⎿') || t.starts_with("⏺ ") {
            return true;
        }
        let glued = client_paste_at(line).is_some_and(|at| line[at..].starts_with("❯ "));
        if t.starts_with("❯ ") || glued {
            prompt = true;
        } else if let Some(said) = t.strip_prefix("● ")
            && (prompt || TOOL_SHAPES.iter().any(|s| said.starts_with(s)))
        {
            return true;
        }
    }
    false
}

fn looks_pasted(lines: &[&str]) -> bool {
    let n = lines.len();
    if lines[0].starts_with("diff --git")
        || lines[0].starts_with("--- ")
        || lines[0].starts_with("@@ ")
    {
        return true;
    }
    let loggy = lines.iter().filter(|l| is_log_line(l)).count();
    (n >= 3 && loggy * 2 >= n) || (n >= 2 && loggy == n)
}

/// A line that a program wrote rather than a person.
pub fn is_log_line(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return false;
    }
    let b = t.as_bytes();
    let digits_then =
        |i: usize, c: u8| b.len() > i && b[..i].iter().all(u8::is_ascii_digit) && b[i] == c;
    // 12:01:33, 2025-10-04…
    if digits_then(2, b':') || digits_then(1, b':') || digits_then(4, b'-') {
        return true;
    }
    // syslog and journalctl: `Mar 28 06:39:43 host prog[pid]: …`.
    if b.len() > 15
        && b[..3].iter().all(u8::is_ascii_alphabetic)
        && b[0].is_ascii_uppercase()
        && b[3] == b' '
        && t.get(4..).is_some_and(|r| {
            let r = r.trim_start();
            r.split_once(' ').is_some_and(|(day, rest)| {
                day.len() <= 2
                    && day.bytes().all(|c| c.is_ascii_digit())
                    && rest.len() >= 8
                    && rest.as_bytes()[2] == b':'
                    && rest.as_bytes()[5] == b':'
            })
        })
    {
        return true;
    }
    if starts_with_any(
        t,
        &[
            "at ",
            "File \"",
            "Traceback",
            "{",
            "}",
            "[",
            "]",
            "\"",
            "GET ",
            "POST ",
            "PUT ",
            "DELETE ",
            "http://",
            "https://",
            "$ ",
            "> ",
            "| ",
            "#",
            "npm ERR",
            "error[",
            "error:",
            "Error:",
            "warning:",
            "WARN",
            "ERROR",
            "INFO",
            "DEBUG",
            "TRACE",
            "FAIL",
            "PASS",
            "E ",
            "at\t",
            "...",
            "---",
            "===",
            "+++",
            "@@",
        ],
    ) {
        return true;
    }
    if matches!(t, "GET" | "POST" | "PUT" | "DELETE" | "PATCH" | "HEAD") {
        return true;
    }
    // SHOUTING_IDENTIFIERS (NS_ERROR_CORRUPTED_CONTENT), exception lines.
    let first = t.split_whitespace().next().unwrap_or("");
    if first.len() >= 6
        && first
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c == b'_' || c.is_ascii_digit() || c == b':')
        && first.contains('_')
    {
        return true;
    }
    if is_exception_line(t) {
        return true;
    }
    // path:line[:col]
    if let Some((p, rest)) = first.split_once(':')
        && (p.contains('/') || p.contains('.'))
        && rest.bytes().next().is_some_and(|c| c.is_ascii_digit())
    {
        return true;
    }
    // Mostly punctuation and digits: data, not prose.
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    letters * 2 < t.chars().count()
}

/// `TypeError: …`, `ImportError: …`, `java.lang.NullPointerException`.
pub fn is_exception_line(t: &str) -> bool {
    // Next.js prints `[TypeError: generate is not a function]`.
    // Elixir prints `** (CompileError) f.exs: …`.
    let t = t.strip_prefix("** ").unwrap_or(t);
    let t = t.trim_start_matches(['[', '(']);
    let first = t
        .split([':', ' '])
        .next()
        .unwrap_or("")
        .trim_end_matches(')');
    let name = first.rsplit('.').next().unwrap_or(first);
    (name.ends_with("Error") || name.ends_with("Exception"))
        && name.len() > 5
        && name.bytes().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.bytes().all(|c| c.is_ascii_alphanumeric())
}

/// The line of a paste or an output that says what went wrong: an exception
/// line (the last one: Python prints the cause last), else the first line
/// naming an error, else the first line.
pub fn telling_line(lines: &[&str]) -> Option<String> {
    // Whole lines: `Digest::sanitized` cuts them once redacted (a cut
    // first could leave part of a secret).
    let clean = |l: &str| l.trim().to_owned();
    if let Some(l) = lines.iter().rev().find(|l| is_exception_line(l.trim())) {
        return Some(clean(l));
    }
    // A linter's own finding says more than the hook's status line
    // (`Lint.....Failed`) or its count ("Found 10 errors.").
    if let Some(l) = lines.iter().find(|l| is_finding_line(l.trim())) {
        return Some(clean(l.trim_end_matches(['━', '─', ' '])));
    }
    // git's own reason for a refused push (`! [rejected] main -> main
    // (fetch first)`) says more than its closing "failed to push".
    if let Some(l) = lines.iter().find(|l| {
        let t = l.trim_start();
        t.starts_with("! [rejected]") || t.starts_with("! [remote rejected]")
    }) {
        return Some(clean(l));
    }
    // A script's own check failing (`  FAIL: config created`, `✗ …`): the
    // check it names, not the section it ran in.
    if let Some(l) = lines.iter().find(|l| {
        let t = l.trim_start();
        ["FAIL:", "FAIL ", "✗ ", "✘ ", "not ok "]
            .iter()
            .any(|p| t.starts_with(p))
    }) {
        return Some(clean(l));
    }
    if let Some(at) = lines.iter().position(|l| names_an_error(l)) {
        let line = clean(lines[at]);
        // `Pre-commit validation failed:`: the lead-in says that, the lines
        // after it say what (a `[TAG]` alone names the check, not the fault).
        if line.ends_with(':') {
            let mut said = line.clone();
            for next in lines[at + 1..]
                .iter()
                .map(|l| l.trim())
                .filter(|l| !l.is_empty())
                .take(2)
            {
                said.push(' ');
                said.push_str(next);
                let tag_only = next.starts_with('[') && next.ends_with(']');
                if !tag_only {
                    break;
                }
            }
            return Some(said);
        }
        return Some(line);
    }
    // A script's own section banner (`=== 0. Setup ===`) says where it
    // was, not what went wrong.
    lines
        .iter()
        .map(|l| l.trim())
        .find(|l| {
            !l.is_empty()
                && l.chars().any(char::is_alphabetic)
                && !l.starts_with("===")
                && !l.starts_with("---")
                && !l.starts_with("###")
        })
        .map(clean)
}

/// Words that mark a line as saying what went wrong.
pub fn names_an_error(line: &str) -> bool {
    const WORDS: &[&str] = &[
        "error",
        "exception",
        "fatal",
        "failed",
        "failure",
        "panic",
        "denied",
        "refused",
        "not found",
        "no such file",
        "cannot",
        "can't",
        "could not",
        "couldn't",
        "undefined",
        "traceback",
        "corrupt",
        "blocked",
        "invalid",
        "timed out",
        "timeout",
        "unable to",
        "erreur",
        "échec",
        "impossible",
    ];
    let l = line.to_lowercase();
    WORDS.iter().any(|w| has_word(&l, w))
}

/// `needle` in `hay` with no letter glued to either end ("invalid" is not
/// in "invalidation").
pub fn has_word(hay: &str, needle: &str) -> bool {
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let at = from + i;
        let end = at + needle.len();
        let before = hay[..at].chars().next_back();
        let after = hay[end..].chars().next();
        let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
        if !glued(before) && !glued(after) {
            return true;
        }
        from = at + needle.len().max(1);
        while !hay.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

/// The line of a failing run that names what failed: pytest's `FAILED`
/// summary, an exception, a compiler's `error`; banners are skipped.
pub fn failure_line(lines: &[&str]) -> Option<String> {
    // Whole lines: `Digest::sanitized` cuts them once redacted (a cut
    // first could leave part of a secret).
    let clean = |l: &str| l.trim().to_owned();
    let real = |l: &&&str| {
        let t = l.trim();
        !t.is_empty()
            && t.chars().filter(|c| c.is_alphanumeric()).count() * 2 > t.chars().count() / 2
            && !t.starts_with("===")
            && !t.starts_with("---")
            && !reports_a_pass(t)
    };
    if let Some(l) = lines
        .iter()
        .filter(real)
        .find(|l| l.trim_start().starts_with("FAILED "))
    {
        return Some(clean(l.trim_start().trim_start_matches("FAILED ")));
    }
    // A timestamped log line naming an exception (`16:43:44.048 [error]
    // … ** (Exqlite.Error) database is locked`) is the app talking while
    // the run fails for its own reason: one only if nothing else is.
    let exception = |logged: bool| {
        lines
            .iter()
            .filter(real)
            .rev()
            // Elixir's `** (CompileError) …: cannot compile module X
            // (errors have been logged)`: the errors above say what.
            .find(|l| {
                is_exception_line(l.trim())
                    && timestamped(l) == logged
                    && !l.contains("errors have been logged")
            })
    };
    if let Some(l) = exception(false).or_else(|| exception(true)) {
        return Some(clean(l));
    }
    // A CI runner names the step that failed (act: `❌  Failure - Main
    // Run formatting check`); its "Job failed" banner says nothing.
    if let Some(l) = lines.iter().filter(real).find(|l| {
        l.split_once("Failure - ")
            .is_some_and(|(_, step)| step.chars().any(char::is_alphabetic))
    }) {
        return Some(clean(l));
    }
    // A linter's or type checker's own finding (`f.py:12:5: SIM115 Use a
    // context manager`, `f.py:3:1 - error: …`, `would reformat`) says more
    // than its closing count ("Found 1 error.").
    if let Some(l) = lines
        .iter()
        .filter(real)
        .find(|l| is_finding_line(l.trim()))
    {
        return Some(clean(l.trim_end_matches(['━', '─', ' '])));
    }
    let names_error = |l: &&&str| {
        let t = l.trim_start().to_lowercase();
        t.starts_with("error") || t.starts_with("e   ") || has_word(&t, "error")
    };
    lines
        .iter()
        .filter(real)
        .filter(|l| !timestamped(l))
        .find(names_error)
        .or_else(|| lines.iter().filter(real).find(names_error))
        .map(|l| clean(l))
        .or_else(|| lines.iter().find_map(|l| shell_complaint(l)))
}

/// The shell's own refusal to run a program (`(eval):1: command not
/// found: tox`, `bash: tox: command not found`), without its place.
fn shell_complaint(line: &str) -> Option<String> {
    let t = line.trim();
    let lower = t.to_lowercase();
    if !(lower.contains("command not found") || lower.ends_with(": not found")) {
        return None;
    }
    // `(eval):1:`, `bash: line 3:`, `zsh:1:`, `sh: 1:`: where, not what.
    let mut rest = t;
    while let Some((head, tail)) = rest.split_once(':') {
        let head = head.trim();
        let program = head.rsplit('/').next().unwrap_or(head);
        let place = head.starts_with('(')
            || head.bytes().all(|b| b.is_ascii_digit())
            || head.starts_with("line ")
            || matches!(program, "bash" | "zsh" | "sh" | "fish" | "dash");
        if !place || tail.trim().is_empty() {
            break;
        }
        rest = tail.trim_start();
    }
    Some(rest.to_owned())
}

/// A log line that opens on its time (`16:43:44.048 [error] …`): the
/// program's own talk, not a runner's verdict.
fn timestamped(line: &str) -> bool {
    // `HH:MM:SS` or `YYYY-MM-DD`: eslint's `12:5  error …` is a place.
    let b = line.trim_start().as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    (digits(0..2) && b.get(2) == Some(&b':') && digits(3..5) && b.get(5) == Some(&b':'))
        || (digits(0..4) && b.get(4) == Some(&b'-') && digits(5..7) && b.get(7) == Some(&b'-'))
}

/// A runner's line for a test that passed (bun's `(pass) name`, jest's
/// `✓ name`, `PASS file`, TAP's `ok 3 - name`), after a `pkg:test:`
/// prefix under turbo or nx: a test named "throws an error" passing is no
/// failure.
fn reports_a_pass(t: &str) -> bool {
    let body = match t.split_once(": ") {
        Some((prefix, rest)) if !prefix.contains(' ') && prefix.contains(':') => rest.trim_start(),
        _ => t,
    };
    ["(pass)", "✓", "✔", "√", "PASS ", "ok "]
        .iter()
        .any(|p| body.starts_with(p))
}

/// Whether a check's output names a finding of its own (`f.go:12:3: x is
/// unused (unused)`) or a task runner's failure (`ERROR task failed`): a
/// check piped into `tail` exits 0 whatever it found.
pub fn names_a_finding(lines: &[&str]) -> bool {
    lines.iter().any(|l| {
        let t = l.trim();
        // A warning is no failure: eslint's `[Warning/no-unused-vars]`.
        (is_finding_line(t) && !t.to_lowercase().contains("warning"))
            || t.contains("ERROR task failed")
            || t.starts_with("FAILED ")
    })
}

/// A line a linter, formatter or type checker prints for one finding: a
/// source location followed by a rule code or "error", or a formatter's
/// verdict on a file.
fn is_finding_line(t: &str) -> bool {
    let lower = t.to_lowercase();
    if lower.contains("would reformat") || lower.contains("would be reformatted") {
        return true;
    }
    // ruff's newer layout: the rule and its message, the location below.
    let mut words = t.split_whitespace();
    if words.next().is_some_and(is_rule_code) && words.count() >= 2 {
        return true;
    }
    // `path:line:col` then the finding; a runner's prefix (`[CI/test] |`,
    // mise's `[lint:go]`, whose colon is no location's) may come first.
    let t = match t.strip_prefix('[').and_then(|r| r.split_once("] ")) {
        Some((tag, rest)) if !tag.contains(' ') => rest.trim_start_matches(['|', ' ']),
        _ => t,
    };
    let Some(at) = t.find(|c: char| c == '/' || c.is_alphanumeric()) else {
        return false;
    };
    let mut parts = t[at..].splitn(4, ':');
    let (Some(path), Some(line), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    if !path.contains('.') || line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let col = rest.trim();
    let with_col = !col.is_empty() && col.bytes().all(|b| b.is_ascii_digit());
    let after_col = parts.next();
    let rest = match after_col {
        // `line:col: finding`
        Some(finding) if with_col => finding,
        // `line:col - error: finding` (pyright)
        _ => rest.split_once(' ').map_or(rest, |(_, r)| r),
    };
    let head = rest.trim_start_matches([' ', '-']).trim_start();
    let first = head.split_whitespace().next().unwrap_or("");
    // A compiler's or linter's `file.go:113:18: x undefined (typecheck)`:
    // a column, then words that say a fault, or the linter's name last. A
    // test runner's location line (`file.exs:104:7: Module."test name"`)
    // names no fault.
    let said = with_col
        && after_col.is_some_and(|f| f.starts_with(' '))
        && (says_a_fault(head) || ends_with_linter(head));
    said || is_rule_code(first)
        || head.to_lowercase().starts_with("error")
        // biome: `f.ts:16:40 lint/suspicious/noExplicitAny ━━━`.
        || first.starts_with("lint/")
        || first.starts_with("assist/")
}

/// A compiler's wording of a fault (go, tsc, rustc, javac…).
fn says_a_fault(message: &str) -> bool {
    const WORDS: &[&str] = &[
        "undefined",
        "undeclared",
        "not used",
        "not defined",
        "not found",
        "not checked",
        "cannot",
        "can't",
        "missing",
        "unused",
        "invalid",
        "expected",
        "too many",
        "too few",
        "mismatch",
        "unknown",
        "redeclared",
        "no field",
        "no method",
        "not assignable",
        "could be replaced",
    ];
    let lower = message.to_lowercase();
    WORDS.iter().any(|w| lower.contains(w))
}

/// golangci-lint's way: the finding, then the linter in parentheses
/// (`… (errcheck)`).
fn ends_with_linter(message: &str) -> bool {
    message
        .trim_end()
        .strip_suffix(')')
        .and_then(|m| m.rsplit_once('('))
        .is_some_and(|(before, name)| {
            before.ends_with(' ')
                && !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// A linter's rule code: `SIM115`, `E501`, `F401` (capitals, then digits).
fn is_rule_code(code: &str) -> bool {
    let letters = code.bytes().take_while(u8::is_ascii_uppercase).count();
    let digits = code.len() - letters;
    (1..=4).contains(&letters)
        && (2..=4).contains(&digits)
        && code.bytes().skip(letters).all(|b| b.is_ascii_digit())
}

/// Leading acknowledgements, as lower-case phrases; longest first within a
/// shared start so "thank you" wins over "thank".
const ACKS: &[&str] = &[
    "thank you very much",
    "thank you so much",
    "thanks a lot",
    "thank you",
    "thanks",
    "thx",
    "ty",
    "excellent work",
    "great work",
    "good work",
    "nice work",
    "well done",
    "good job",
    "great job",
    "nice job",
    "fair enough",
    "sounds good",
    "looks good",
    "lgtm",
    "excellent",
    "perfect",
    "awesome",
    "amazing",
    "brilliant",
    "great",
    "nice",
    "cool",
    "good",
    "okay",
    "ok",
    "yes please",
    "yes",
    "yep",
    "yeah",
    "sure",
    "right",
    "alright",
    "got it",
    "i see",
    "oh no",
    "oh",
    "ah",
    "hmm",
    "wait a sec",
    "wait",
    "well",
    "actually",
    "merci beaucoup",
    "merci",
    "parfait",
    "super",
    "génial",
    "très bien",
    "d'accord",
    "oui",
    "ça marche",
    "nickel",
    "bravo",
];

/// Turns with no request of their own: go on, keep going.
const BARE_GO: &[&str] = &[
    "continue",
    "please continue",
    "go on",
    "go ahead",
    "keep going",
    "proceed",
    "please proceed",
    "carry on",
    "do it",
    "vas-y",
    "continue s'il te plaît",
    "on continue",
];

/// The prompt without the acknowledgements it starts with ("Fair enough.",
/// "yes please,"); empty when it was nothing else, or a bare "go ahead".
pub fn strip_ack(text: &str) -> &str {
    let mut rest = text;
    loop {
        let lower = rest.to_lowercase();
        let Some(ack) = ACKS.iter().find(|a| {
            lower.starts_with(*a)
                && lower[a.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric() && c != '-' && c != '\'')
        }) else {
            break;
        };
        // Lower-casing can change byte lengths outside ASCII: cut by chars.
        let n = ack.chars().count();
        let cut = rest.char_indices().nth(n).map_or(rest.len(), |(i, _)| i);
        rest = rest[cut..].trim_start_matches(|c: char| {
            c.is_whitespace()
                || matches!(c, ',' | '.' | '!' | ';' | ':' | '-' | '–' | '—' | ')' | '(')
        });
        if rest.is_empty() {
            return "";
        }
        // Emoji and the like after "thanks".
        rest = rest.trim_start_matches(|c: char| {
            !c.is_alphanumeric()
                && !c.is_whitespace()
                && c != '@'
                && c != '/'
                && c != '`'
                && c != '"'
                && c != '\''
        });
    }
    for filler in ["and ", "so ", "now ", "then ", "et ", "alors "] {
        if rest.len() > filler.len()
            && rest
                .get(..filler.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(filler))
        {
            rest = &rest[filler.len()..];
        }
    }
    let bare = rest
        .trim_end_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace())
        .to_lowercase();
    if BARE_GO.contains(&bare.as_str()) {
        return "";
    }
    rest
}

/// The prompt without the client's `[Image #1]` placeholders.
pub fn strip_image_tags(text: &str) -> String {
    let mut out = text.to_owned();
    while let Some(at) = out.find("[Image #") {
        match out[at..].find(']') {
            Some(end) => out.replace_range(at..at + end + 1, ""),
            None => break,
        }
    }
    out
}

/// A screenshot dragged into the prompt arrives as its path, quoted when
/// it has spaces (`'/var/folders/…/Screenshot 2025-10-24 at 2.54.54 PM.png'`):
/// an image the log cannot show, and a temporary file's name.
fn without_image_paths(text: &str) -> String {
    const IMAGES: &[&str] = &[".png", ".jpg", ".jpeg", ".gif", ".webp", ".heic"];
    // A temporary file or a screenshot's, not `/images/logo.png` of a site.
    const DROPPED: &[&str] = &[
        "/var/folders/",
        "/private/var/",
        "/tmp/",
        "/private/tmp/",
        "screenshot",
        "screen shot",
        "screencapture",
        "cleanshot",
    ];
    let is_image = |p: &str| {
        let l = p.to_lowercase();
        (p.starts_with('/') || p.starts_with("~/"))
            && IMAGES.iter().any(|e| l.ends_with(e))
            && DROPPED.iter().any(|d| l.contains(d))
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // Quoted paths first: they hold spaces.
    while let Some(at) = rest.find(['\'', '"']) {
        let quote = rest[at..].chars().next().unwrap_or('\'');
        let inner = &rest[at + 1..];
        match inner.find(quote) {
            Some(end) if is_image(&inner[..end]) => {
                // Spaces only: the line breaks around it stay.
                out.push_str(rest[..at].trim_end_matches(' '));
                rest = inner[end + 1..].trim_start_matches(' ');
                if !(out.is_empty() || out.ends_with('\n') || rest.starts_with('\n')) {
                    out.push(' ');
                }
            }
            _ => {
                out.push_str(&rest[..at + 1]);
                rest = inner;
            }
        }
    }
    out.push_str(rest);
    let lower = out.to_lowercase();
    if !IMAGES.iter().any(|e| lower.contains(e)) {
        return out.trim_end().to_owned();
    }
    // Then bare ones, word by word, the line breaks kept.
    out.lines()
        .map(|line| {
            line.split(' ')
                .filter(|w| !is_image(w.trim_end_matches([',', '.', ';', ')'])))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A question to be answered, not work asked for as a question ("can you
/// replace them?").
fn is_question(text: &str) -> bool {
    let first_par = text.split("\n\n").next().unwrap_or(text);
    if crate::extract::is_request_sentence(first_par)
        || first_par
            .split(['.', '!', '?', '\n'])
            .any(crate::extract::is_request_sentence)
    {
        return false;
    }
    asks(text)
}

fn asks(text: &str) -> bool {
    let polite = ["would", "could", "can", "should", "shall", "will"];
    let t = text.trim();
    let first_word = t.split_whitespace().next().unwrap_or("").to_lowercase();
    // "Could we reuse X?" asks for work, not for an answer.
    if t.ends_with('?') && polite.contains(&first_word.as_str()) {
        return false;
    }
    if t.ends_with('?') && !t.contains('\n') && t.matches('?').count() == 1 {
        return true;
    }
    const ASKING: &[&str] = &[
        "what", "why", "how", "where", "when", "which", "who", "whose", "is ", "are ", "does ",
        "did ", "was ", "were ", "pourquoi", "comment", "quel", "quelle", "qu'est", "est-ce",
        "où ", "quand ",
    ];
    // Without a question mark, "Do" asks only of someone ("do you think");
    // "Do all of them in one batch" is an order.
    const DO_ASKS: &[&str] = &["do you ", "do we ", "do i ", "do they "];
    let first = text.lines().next().unwrap_or("").trim().to_lowercase();
    (ASKING.iter().any(|w| first.starts_with(w)) || DO_ASKS.iter().any(|w| first.starts_with(w)))
        && !first.starts_with("how about")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After a failed edit, a first sentence that says what the model saw
    /// is its cause; narration, a question or a change of subject is not.
    #[test]
    fn a_slip_s_cause_is_a_statement_of_what_was_seen() {
        assert_eq!(
            slip_cause("The formatter reshuffled imports. Let me read the current head.")
                .as_deref(),
            Some("The formatter reshuffled imports.")
        );
        for not in [
            "Let me read the file again to get the exact formatting:",
            "Now I'll commit this change.",
            "I see the issue now - the CSP with script-src self might be part of it.",
            "Actually, wait - the real issue is that Next.js does not serve it.",
            "Is the file still there?",
            "Odd.",
        ] {
            assert_eq!(slip_cause(not), None, "{not}");
        }
    }

    fn req(text: &str) -> Cleaned {
        match classify(text, false) {
            UserText::Request(c) => c,
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    #[test]
    fn a_cause_may_open_on_a_word_narration_starts_with() {
        assert!(
            failure_cause("Next.js requires the env var because the build reads it.").is_some()
        );
    }

    #[test]
    fn a_failure_s_cause_is_a_sentence_that_says_why() {
        assert_eq!(
            failure_cause(
                "The two failing tests are assertion mismatches because main's schema is newer. \
                 Let me update them."
            )
            .as_deref(),
            Some("The two failing tests are assertion mismatches because main's schema is newer.")
        );
        for narration in [
            "Let me check why the test expects the old value in this case.",
            "The build failed.",
            "Why does it expect a string instead of a list here?",
            "Only one test is still failing after the change.",
            "The car rental test fails on the date parsing here.",
        ] {
            assert_eq!(failure_cause(narration), None, "{narration}");
        }
    }

    #[test]
    fn a_finding_or_a_task_runners_failure_names_a_failed_check_and_a_warning_does_not() {
        assert!(names_a_finding(&[
            "internal/syncer/syncer.go:88:10: error returned from external package is unwrapped (wrapcheck)"
        ]));
        assert!(names_a_finding(&["[lint] ERROR task failed"]));
        assert!(!names_a_finding(&[
            "/p/a.js:3:5: 'x' is assigned a value but never used. [Warning/no-unused-vars]"
        ]));
        assert!(!names_a_finding(&["0 issues."]));
    }

    #[test]
    fn a_plan_handed_over_is_its_title_as_request_and_an_accepted_plan() {
        let c = req(
            "Implement the following plan:\n\n# Fix: Add `--trust` flag\n\n## Context\n\n\
            The CLI now requires trust.\n\n```ts\nconst args = [\"-p\"];\n```\n\n\
            If you need specific details from before exiting plan mode (like exact code snippets), \
            read the full transcript at: /Users/me/.claude/projects/x/1.jsonl",
        );
        assert_eq!(c.request, "Fix: Add `--trust` flag");
        assert_eq!(c.kind, RequestKind::Task);
        assert!(c.pasted.is_empty(), "{:?}", c.pasted);
        let plan = c.plan.expect("the plan is kept");
        assert!(plan.starts_with("# Fix: Add `--trust` flag"), "{plan}");
        assert!(
            plan.ends_with("```"),
            "the client's trailer is not the plan: {plan}"
        );
    }

    #[test]
    fn what_the_model_found_on_the_way_is_kept_and_guesses_are_not() {
        let text = "Good, I have enough context now. Key findings:\n\n\
            - **No installers** exist for credo or dialyxir\n\
            - `mix igniter.install` still adds them as deps\n\n\
            Let me ask you two questions.";
        assert_eq!(
            findings(text),
            [
                "Key findings: No installers exist for credo or dialyxir; `mix igniter.install` still adds them as deps"
            ]
        );
        assert_eq!(
            findings(
                "The root cause: the table is not visible yet when the view is created. Let me add a retry."
            ),
            ["The root cause: the table is not visible yet when the view is created."]
        );
        assert!(findings("The issue is likely that the template shows one link only.").is_empty());
        assert!(findings("Found it! Let me fix the parser now.").is_empty());
        assert!(findings("Let me check the tests.").is_empty());
    }

    #[test]
    fn a_prompt_pasted_from_a_terminal_box_loses_its_frame() {
        let prompt = "Review Devin's work. Do NOT modify any files —\n  │   read-only review.\n  │   ## Context\n  │   Devin vendored content.";
        assert_eq!(
            clean_prompt(prompt).request,
            "Review Devin's work. Do NOT modify any files —\nread-only review.\n## Context\nDevin vendored content."
        );
        // One framed line is the user's own `│`.
        let one = "use │ as the separator\nin the table";
        assert_eq!(clean_prompt(one).request, one);
    }

    #[test]
    fn a_session_copied_from_the_client_s_terminal_is_pasted() {
        let prompt = "the plugin should convert logs to markdown, why is that not working:\n\
            ❯ do you have the history of our chat?\n  directly. certainly we could\n\n\
            ● I don't have the actual conversation.\n\n\
            ● Read 1 file (ctrl+o to expand)\n\n  wrapped under it\n\n\
            and why did it not run?";
        let c = clean_prompt(prompt);
        assert_eq!(
            c.request,
            "the plugin should convert logs to markdown, why is that not working:\n\n\
             and why did it not run?"
        );
        // Nothing in it says what went wrong.
        assert!(c.pasted.is_empty(), "{:?}", c.pasted);
        // Glued to the lead-in, and telling an error.
        let glued =
            "the other session shows:  ❯ /session-end\n\n● Error: Unknown skill: session-end";
        let c = clean_prompt(glued);
        assert_eq!(c.request, "the other session shows:");
        assert_eq!(c.pasted, ["Error: Unknown skill: session-end"]);
        // Their own prompt copied with its mark is still theirs.
        let resent = "❯ This branch is a PR. Feedback:\n\n  Please add tests.\n\n● Sure.";
        assert_eq!(
            clean_prompt(resent).request,
            "This branch is a PR. Feedback:\n\n  Please add tests."
        );
        // A mark inside the user's sentence is theirs, and marks alone are
        // no session.
        for own in [
            "use ● as the bullet in the menu",
            "Set the menu bullet to: ● (U+25CF) like the design",
            "Fix these:\n● the header\n● the footer",
        ] {
            assert_eq!(clean_prompt(own).request, own);
        }
        // A shell prompt's `❯` is a terminal paste like any other.
        let shell = "my tests fail:\n\n❯ npm test\n FAIL src/a.test.ts\n Error: expected 2";
        assert!(
            !clean_prompt(shell).pasted.is_empty(),
            "{:?}",
            clean_prompt(shell)
        );
    }

    #[test]
    fn a_screenshot_dragged_into_the_prompt_is_no_words() {
        assert_eq!(
            clean_prompt("not that button. this one'/var/folders/sr/T/Screenshot 2025-10-24 at 2.54.54 PM.png' the plus button").request,
            "not that button. this one the plus button"
        );
        assert_eq!(
            clean_prompt("see /tmp/shot.png and fix the header").request,
            "see and fix the header"
        );
        // A path the user means is theirs, quoted or not.
        for own in [
            "fix the logo in 'assets/logo.png' and in src/app.ts",
            "fix the 404 on /images/logo.png in the header",
        ] {
            assert_eq!(clean_prompt(own).request, own);
        }
        // The lines around it stay lines.
        assert_eq!(
            clean_prompt("see:\n'/tmp/x.png'\nthen fix the header").request,
            "see:\n\nthen fix the header"
        );
    }

    #[test]
    fn a_drivers_preamble_is_not_the_request() {
        let prompt = "<system_instruction>\nYou are working inside Conductor.\nThe target branch is main.\n</system_instruction>\n\nimplement `Rec 03` in @.context/code-review.md";
        assert_eq!(
            req(prompt).request,
            "implement `Rec 03` in @.context/code-review.md"
        );
        assert_eq!(
            clean_prompt(prompt).request,
            "implement `Rec 03` in @.context/code-review.md"
        );
        // Markup the user wrote stays.
        assert_eq!(
            req("fix <system_instruction>x</system_instruction> parsing").request,
            "fix <system_instruction>x</system_instruction> parsing"
        );
        assert_eq!(
            req("<div>hello</div> is broken").request,
            "<div>hello</div> is broken"
        );
        // Nothing but the preamble: no request.
        assert!(matches!(
            classify("<system_instruction>x</system_instruction>", false),
            UserText::NotHuman
        ));
    }

    #[test]
    fn a_lead_in_takes_the_line_that_says_what() {
        let lines = [
            "Pre-commit validation failed:",
            "",
            "[FORMAT] Code is not formatted.",
            "Run 'mix format'",
        ];
        assert_eq!(
            telling_line(&lines).as_deref(),
            Some("Pre-commit validation failed: [FORMAT] Code is not formatted.")
        );
        let lines = [
            "Check failed:",
            "[CREDO]",
            "Function is too complex",
            "more",
        ];
        assert_eq!(
            telling_line(&lines).as_deref(),
            Some("Check failed: [CREDO] Function is too complex")
        );
        assert_eq!(
            telling_line(&["build failed:"]).as_deref(),
            Some("build failed:")
        );
    }

    #[test]
    fn the_app_s_logged_errors_are_not_the_run_s_failure() {
        let mix = [
            "16:43:44.048 [error] Exqlite.Connection failed to connect: database is locked",
            "     error: undefined variable \"payload\"",
            "== Compilation error in file test/reviews_channel_test.exs ==",
            "** (CompileError) test/reviews_channel_test.exs: cannot compile module ReviewsChannelTest",
        ];
        assert_eq!(failure_line(&mix).unwrap(), mix[3].trim());
        // Which errors, when the exception only says they were logged.
        let logged_above = [
            "16:43:44.048 [error] Exqlite.Connection failed to connect: database is locked",
            "     error: undefined function assert_broadcast/2",
            "** (CompileError) test/x_test.exs: cannot compile module XTest (errors have been logged)",
        ];
        assert_eq!(
            failure_line(&logged_above).unwrap(),
            "error: undefined function assert_broadcast/2"
        );
        let logged_only = ["12:01:33.100 [error] worker crashed", "done"];
        assert_eq!(failure_line(&logged_only).unwrap(), logged_only[0]);
        assert!(is_exception_line("** (RuntimeError) boom"));
        assert!(!is_exception_line("** (nothing here)"));
        assert!(!is_exception_line(
            "* ValidationError messages are localized"
        ));
        // eslint's `line:col  error` is a place, not a time.
        let eslint = [
            "/p/src/a.ts",
            "  12:5  error  'foo' is assigned a value but never used  no-unused-vars",
            "✖ 1 problem (1 error, 0 warnings)",
        ];
        assert_eq!(failure_line(&eslint).unwrap(), eslint[1].trim());
    }

    #[test]
    fn a_passing_test_named_after_an_error_is_no_failure() {
        let bun = [
            "@x/core:test: (pass) planner > throws typed validation error for invalid schema [0.35ms]",
            "@x/cli:test: ✓ reports an error on bad input",
            "@x/pull:test: error: CLICKHOUSE_URL is not set",
        ];
        assert_eq!(failure_line(&bun).unwrap(), bun[2]);
    }

    #[test]
    fn a_failing_run_is_named_by_its_finding_not_its_count() {
        let ruff = [
            "deep_manifest/deep_manifest.py:212:14: SIM115 Use a context manager for opening files",
            "Found 1 error.",
        ];
        assert_eq!(failure_line(&ruff).unwrap(), ruff[0]);
        let ruff_full = [
            "SIM115 Use a context manager for opening files",
            "   --> deep_manifest/deep_manifest.py:191:25",
            "Found 1 error.",
        ];
        assert_eq!(failure_line(&ruff_full).unwrap(), ruff_full[0]);
        assert!(!is_finding_line("HTTP2 is on"));
        let next = [
            "> Build error occurred",
            "[TypeError: generate is not a function]",
            "> next build",
        ];
        assert_eq!(failure_line(&next).unwrap(), next[1]);
        assert!(!is_finding_line("A1 done"));
        let pyright = [
            "  /p/converter.py:184:17 - error: Type of \"x\" is unknown (reportUnknownVariableType)",
            "1 error, 0 warnings, 0 informations",
        ];
        assert_eq!(failure_line(&pyright).unwrap(), pyright[0].trim());
        let act = [
            "[CI/test-2]   | Would reformat: test/test_a.py",
            "[CI/test-2]   | 6 files would be reformatted, 10 files already formatted",
            "[CI/test-2]   ❌  Failure - Main Run formatting check [707.5ms]",
            "Error: Job 'test' failed",
        ];
        assert!(
            failure_line(&act)
                .unwrap()
                .contains("Failure - Main Run formatting check")
        );
        // golangci-lint behind a task runner: the compiler's finding, not
        // the runner's banner nor the package line above it.
        let golangci = [
            "[lint] $ golangci-lint run ./...",
            "[lint] ERROR task failed",
            "",
            "cmd/settings/settings.go:1: : # github.com/x/cli/cmd/settings [github.com/x/cli/cmd/settings.test]",
            "cmd/settings/settings_test.go:113:18: settings.OutputFilter undefined (type *EntireSettings has no field or method OutputFilter)",
            "1 issues:",
            "* typecheck: 1",
        ];
        assert_eq!(failure_line(&golangci).unwrap(), golangci[4]);
        // A test runner's location line and dialyzer's short form name no
        // fault in words.
        assert!(!is_finding_line(
            "└─ test/x/reviews_channel_test.exs:104:7: X.ReviewsChannelTest.\"test broadcasts\""
        ));
        assert!(!is_finding_line("lib/x/otel.ex:57:13:pattern_match"));
        assert!(is_finding_line(
            "a_test.go:35:3: Error return value of `os.Chdir` is not checked (errcheck)"
        ));
        assert!(is_finding_line("main.go:9:2: declared and not used: x"));
        // Not findings: a URL, a time, a count.
        assert!(!is_finding_line("see http://x.org:80/a"));
        assert!(!is_finding_line("at 12:30:01 done"));
        assert_eq!(
            failure_line(&["Found 2 errors.", "error: could not compile `x`"]).unwrap(),
            "error: could not compile `x`"
        );
    }

    #[test]
    fn a_program_the_shell_did_not_find_is_the_failure() {
        for (out, want) in [
            (
                "Exit code 127\n(eval):1: command not found: tox",
                "command not found: tox",
            ),
            (
                "/bin/bash: line 1: pytest: command not found",
                "pytest: command not found",
            ),
            (
                "zsh:1: command not found: python",
                "command not found: python",
            ),
            ("sh: 1: jest: not found", "jest: not found"),
        ] {
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(failure_line(&lines).as_deref(), Some(want), "{out}");
        }
        // An error line the runner printed comes first.
        let lines = ["error: no tests ran", "hint: command not found: x"];
        assert_eq!(failure_line(&lines).as_deref(), Some("error: no tests ran"));
        assert_eq!(failure_line(&["Exit code 1"]), None);
    }

    #[test]
    fn ide_context_is_never_the_request() {
        let c = req(
            "<ide_opened_file>The user opened the file /p/next.config.js in the IDE. This may or may not be related to the current task.</ide_opened_file>\nWould I be able to redirect so the old URL doesn't break?",
        );
        assert_eq!(
            c.request,
            "Would I be able to redirect so the old URL doesn't break?"
        );
        // Asked as a question, but it asks for work.
        assert_eq!(c.kind, RequestKind::Task);
        assert_eq!(c.ide, ["opened: /p/next.config.js"]);
        assert_eq!(
            req("Why does the build fail on CI?").kind,
            RequestKind::Question
        );
        // "Do" without a question mark is an order unless it asks someone.
        assert_eq!(req("Do all of them in one batch").kind, RequestKind::Task);
        assert_eq!(
            req("do you think the cache is stale").kind,
            RequestKind::Question
        );

        let c = req(
            "<ide_selection>The user selected the lines 508 to 510 from /p/x.py:\nAnything we *should* fix, put on your todo list.\n\nThis may or may not be related to the current task.</ide_selection>\nfix this",
        );
        assert_eq!(c.request, "fix this");
        assert_eq!(c.ide, ["selection: /p/x.py (lines 508-510)"]);
        // Only IDE context: no request.
        let c =
            req("<ide_opened_file>The user opened the file /p/a.md in the IDE.</ide_opened_file>");
        assert_eq!((c.request.as_str(), c.kind), ("", RequestKind::None));
    }

    #[test]
    fn acknowledgements_add_nothing() {
        for ack in [
            "Fair enough.",
            "Excellent work, thank you!",
            "thanks 🙏",
            "ok",
            "Perfect, go ahead",
            "merci !",
            "yes",
        ] {
            match classify(ack, false) {
                UserText::NotHuman => {}
                UserText::Request(c) => assert_eq!(c.kind, RequestKind::None, "{ack}"),
                other => panic!("{ack:?} gave {other:?}"),
            }
        }
        assert_eq!(
            req("Fair enough. Can you write a balanced opinion on this approach?").request,
            "Can you write a balanced opinion on this approach?"
        );
        assert_eq!(
            req("yes please, and let's make it cross-browser").request,
            "let's make it cross-browser"
        );
        assert_eq!(
            req("Okay-ish plan: rename it").request,
            "Okay-ish plan: rename it"
        );
        assert_eq!(req("Great Britain is where").kind, RequestKind::Task);
        // Byte lengths differ from char counts: no panic on a cut.
        assert_eq!(req("Crée le fichier").request, "Crée le fichier");
        assert_eq!(req("anéantis ça").request, "anéantis ça");
    }

    #[test]
    fn pasted_logs_are_problems() {
        let c = req(
            "This is annoying, maybe we should use the https repo address?\n\n01:12:38.208\n Detected Next.js version: 13.0.2\n01:12:38.300\n Host key verification failed.\n01:12:38.301\n fatal: Could not read from remote repository.",
        );
        assert_eq!(
            c.request,
            "This is annoying, maybe we should use the https repo address?"
        );
        assert_eq!(c.pasted, ["Host key verification failed."]);
        let c = req(
            "it crashes:\n```\nTraceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nImportError: cannot import name 'x'\n```\nany idea?",
        );
        assert_eq!(c.request, "it crashes:\n\nany idea?");
        assert_eq!(c.pasted, ["ImportError: cannot import name 'x'"]);
        // syslog lines, the user's words glued to the first one by a colon
        // and their request to the last one.
        let c = req(
            "After a checkpoint this warning is written for all nodes:  [WARNING]  wal.go:343: rotation skipped for f0748 (channel full)\nMar 28 06:39:43 mon cc[45645]: [WARNING]  wal.go:343: rotation skipped for f2263 (channel full)\nMar 28 06:39:43 mon cc[45645]: [WARNING]  wal.go:343: rotation skipped for f0481 (channel full) . Investigate and suggest fixes.",
        );
        assert_eq!(
            c.request,
            "After a checkpoint this warning is written for all nodes\n\nInvestigate and suggest fixes."
        );
        assert_eq!(
            c.pasted,
            ["[WARNING]  wal.go:343: rotation skipped for f0748 (channel full)"]
        );
        assert!(is_log_line("Mar 28 06:39:43 mon cc[45645]: started"));
        assert!(!is_log_line("Mar 28 was the day we shipped it"));
    }

    #[test]
    fn paragraphs_say_where_the_pastes_are() {
        let text = "it crashes:\n```\nImportError: x\n```\nok\n\n01:12:38 a\n01:12:39 b";
        let got: Vec<(bool, &str)> = paragraphs(text)
            .iter()
            .map(|p| (p.pasted, &text[p.start..p.end]))
            .collect();
        assert_eq!(
            got,
            [
                (false, "it crashes:"),
                (true, "```\nImportError: x\n```"),
                (false, "ok"),
                (true, "01:12:38 a\n01:12:39 b"),
            ]
        );
        // An unclosed fence runs to the end.
        let p = paragraphs("see\n```\nx");
        assert_eq!(
            (p[1].pasted, p[1].lines.as_slice(), p[1].end),
            (true, &["x"][..], 9)
        );
    }

    #[test]
    fn wrappers_and_client_text() {
        let c = req(
            "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>PR 12</command-args>",
        );
        assert_eq!(
            (c.request.as_str(), c.kind),
            ("/review PR 12", RequestKind::Command)
        );
        assert_eq!(
            classify("<bash-input>ls</bash-input>", false),
            UserText::ShellOutput {
                command: "ls".into(),
                telling: None
            }
        );
        assert_eq!(
            classify(
                "<bash-input>make</bash-input><bash-stdout>cc a.c\na.c:3: error: x undeclared</bash-stdout>",
                false
            ),
            UserText::ShellOutput {
                command: "make".into(),
                telling: Some("a.c:3: error: x undeclared".into())
            }
        );
        // Coloured, and saying why it stopped without the word "error".
        assert_eq!(
            classify(
                "<bash-stdout>\n RUN  v4.0.18\n</bash-stdout><bash-stderr>\u{1b}[31mNo test files found, exiting with code 1\n\u{1b}[39m\ninclude: **/*.test.ts</bash-stderr>",
                false
            ),
            UserText::ShellOutput {
                command: String::new(),
                telling: Some("No test files found, exiting with code 1".into())
            }
        );
        assert_eq!(
            classify("[Request interrupted by user for tool use]", false),
            UserText::Interrupted
        );
        assert_eq!(
            classify("<local-command-stdout>ok</local-command-stdout>", false),
            UserText::LocalOutput
        );
        assert_eq!(
            classify(
                "This session is being continued from a previous conversation that ran out of context.",
                false
            ),
            UserText::NotHuman
        );
        assert_eq!(
            classify("<system-reminder>x</system-reminder>", false),
            UserText::NotHuman
        );
        assert_eq!(req("a<system-reminder>x</system-reminder>b").request, "ab");
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // Hostile or odd prompts (accents, emoji, tags cut anywhere) never
        // make the cleaning panic: a panic would lose the turn.
        #[test]
        fn cleaning_never_panics(s in "(\\PC|[<>/\\[\\]`é🙏\\n\\\\]|ide_|<ide_selection>|</ide_opened_file>|<command-name>|thanks|ok|and |Crée|\\?|Key findings:|\\. The root cause|- |<system_instruction>|</system_instruction>|İ){0,60}") {
            let _ = classify(&s, false);
            let _ = findings(&s);
            let _ = strip_harness_preamble(&s);
            let _ = clean_prompt(&s);
            let lines: Vec<&str> = s.lines().collect();
            let _ = telling_line(&lines);
            let _ = failure_line(&lines);
        }
    }

    #[test]
    fn a_linter_s_finding_says_more_than_a_hook_s_status_line() {
        let out = [
            "Build......................Passed",
            "Lint.......................Failed",
            "- hook id: lint",
            "  Found 10 errors.",
            "  ./.opencode/plugins/entire.ts:16:40 lint/suspicious/noExplicitAny ━━━━━━━━",
            "    × Unexpected any. Specify a different type.",
        ];
        let want = "./.opencode/plugins/entire.ts:16:40 lint/suspicious/noExplicitAny";
        assert_eq!(telling_line(&out).unwrap(), want);
        assert_eq!(failure_line(&out).unwrap(), want);
    }
}
