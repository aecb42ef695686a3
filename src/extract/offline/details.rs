//! What a final answer says was done to each file it changed.
//!
//! A bare "Updated `pyproject.toml`" tells tomorrow's reader nothing they
//! could not get from `git log`. The answer usually says what the change
//! was, in a section of changes: `## Changes Made to pyproject.toml`, then
//! `1. **Switched to Hatchling** (lines 1-3): …`. The item's label is the
//! detail worth keeping; the prose after it is the model's commentary.
//!
//! Precision first: an item gives a detail only when it sits under a
//! heading or a lead-in about changes or fixes (or one naming the file)
//! and can be tied to one changed file: it names it, its heading names it,
//! or the turn changed only that file. Anything else gives nothing.
//!
//! Under a list of fixes (`Both type checking issues have been resolved:`),
//! the item's label says what was wrong and the clause after it how it was
//! fixed: both are kept (`Fixed possibly-unbound-attribute warning → Added
//! null check …`).

use super::super::cues::cap;

/// Details kept per file.
const MAX_DETAILS: usize = 3;
/// The longest detail, in characters.
const MAX_DETAIL: usize = 90;
/// The longest fix (what was wrong → how), in characters.
const MAX_FIX: usize = 140;
/// Once a file's details are this long, no more are added.
const MAX_TOTAL: usize = 220;
/// Words of a label without bold: more is a sentence, not a label.
const MAX_LABEL_WORDS: usize = 8;

/// Headings and lead-ins of a list of changes, lower case.
const CHANGE_WORDS: &[&str] = &[
    "change",
    "what i did",
    "what was done",
    "here's what i",
    "implementation",
    "updates",
    "modif",
    "ce qui a été fait",
];

/// Headings and lead-ins of a list of fixes, lower case.
const FIX_WORDS: &[&str] = &[
    "fix",
    "resolved",
    "broke",
    "because:",
    "root cause",
    "issues",
    "bugs",
    "corrig",
    "résolu",
];

/// Openings of an unlabelled item saying what a change did.
const CHANGE_OPENINGS: &[&str] = &[
    "added ",
    "adding ",
    "updated ",
    "updating ",
    "fixed ",
    "fixing ",
    "changed ",
    "changing ",
    "replaced ",
    "replacing ",
    "removed ",
    "removing ",
    "renamed ",
    "moved ",
    "switched ",
    "using ",
    "ajouté ",
    "ajout ",
    "corrigé ",
    "remplacé ",
    "supprimé ",
    "renommé ",
];

/// More openings of a lead-in saying what was done (with those of an
/// item, `CHANGE_OPENINGS`).
const LEAD_OPENINGS: &[&str] = &[
    "restored ",
    "reworked ",
    "rewrote ",
    "rewritten ",
    "created ",
    "implemented ",
    "refactored ",
    "documented ",
    "converted ",
    "extracted ",
    "migrated ",
    "reorganized ",
    "reorganised ",
    "restauré ",
    "réécrit ",
    "créé ",
    "implémenté ",
    "documenté ",
];

/// What the list under the current heading or lead-in is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    Changes,
    Fixes,
}

/// One detail and the item it came from (so the answer's lessons do not
/// say it again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Detail {
    pub text: String,
    pub source: String,
}

/// What a heading or a lead-in announces, and the changed file it names.
fn announces(text: &str, files: &[String]) -> Option<(List, Option<usize>)> {
    let lower = text.to_lowercase();
    let named = named_file(text, files);
    // "Restored all the sections PR #757 dropped:", "Updated. The todo now
    // frames this as …, with:": a lead-in that opens on what was done.
    let opens_on_a_change = CHANGE_OPENINGS.iter().chain(LEAD_OPENINGS).any(|o| {
        lower
            .strip_prefix(o.trim_end())
            .is_some_and(|rest| rest.starts_with([' ', '.', ',']))
    });
    if FIX_WORDS.iter().any(|k| lower.contains(k)) {
        Some((List::Fixes, named))
    } else if named.is_some() || opens_on_a_change || CHANGE_WORDS.iter().any(|k| lower.contains(k))
    {
        Some((List::Changes, named))
    } else {
        None
    }
}

/// For each file of `files` (as the log shows them) that the answer says
/// something about, its index and the details, in the answer's order.
pub(super) fn file_details(answer: &str, files: &[String]) -> Vec<(usize, Vec<Detail>)> {
    let mut out: Vec<(usize, Vec<Detail>)> = Vec::new();
    if files.is_empty() {
        return out;
    }
    let mut section: Option<(List, Option<usize>)> = None;
    let mut lead_in: Option<(List, Option<usize>)> = None;
    let mut fenced = false;
    let mut bare_parent: Option<usize> = None;
    for line in answer.lines() {
        let t = line.trim_end();
        if t.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || t.trim().is_empty() {
            continue;
        }
        if let Some(h) = heading(t) {
            section = announces(&h, files);
            lead_in = None;
            bare_parent = None;
            continue;
        }
        // `**Fix** — [omp.zsh:165](…) now sets …`: a labelled paragraph
        // that names a changed file is an item about it, list or not.
        if item_text(t).is_none()
            && let Some(p) = labelled_paragraph(t)
            && let Some(target) = named_file(p, files)
            && let Some((label, rest, _)) = label(p)
            && named_file(&label, files).is_none()
        {
            // Its first sentence: a path's `:165` is no clause's end here.
            let rest = unmark(
                rest.trim_start()
                    .trim_start_matches(['—', '-', ':'])
                    .trim_start(),
            );
            let how = rest.split(". ").next().unwrap_or("").trim_end_matches('.');
            // `**C1 — Open redirect** (…): redirect now validated …`: a
            // label that names the change says what the clause does not.
            let text = if is_generic_label(&label) {
                clean(how, MAX_DETAIL)
            } else {
                clean(&format!("{label}: {how}"), MAX_FIX)
            };
            if text.split_whitespace().count() >= 3 {
                let d = Detail {
                    text,
                    source: unmark(p),
                };
                match out.iter_mut().find(|(j, _)| *j == target) {
                    Some((_, ds))
                        if ds.len() < MAX_DETAILS && !ds.iter().any(|x| x.text == d.text) =>
                    {
                        ds.push(d)
                    }
                    Some(_) => {}
                    None => out.push((target, vec![d])),
                }
            }
            continue;
        }
        let Some(item) = item_text(t) else {
            // A paragraph: a lead-in when it ends with a colon, else the
            // end of the list before it.
            let p = unmark(t.trim());
            bare_parent = None;
            lead_in = if p.ends_with(':') {
                announces(&p, files)
            } else {
                None
            };
            continue;
        };
        // `- **Modified**: `app.js` - …` says it is a change, under any
        // heading.
        let tool_item = label(item)
            .is_some_and(|(l, rest, _)| is_generic_label(&l) && after_a_name(rest).is_some());
        let Some((list, named)) = lead_in
            .or(section)
            .or(tool_item.then_some((List::Changes, None)))
        else {
            continue;
        };
        // Top-level items only: a sub-item elaborates its parent, and
        // says what it did only when the parent names no more than the
        // file (`**Updated `AppSidebar.tsx`** (line 58):`).
        if line.starts_with("  ") || line.starts_with('\t') {
            if let Some(target) = bare_parent.take() {
                let text = clean(
                    &first_clause(item).unwrap_or_else(|| unmark(item)),
                    MAX_DETAIL,
                );
                // "- `NavUser.tsx` now receives the prop": another file's.
                let other = named_file(item, files).is_some_and(|j| j != target);
                if text.split_whitespace().count() >= 3
                    && !other
                    && says_something(&text)
                    && !out.iter().any(|(j, _)| *j == target)
                {
                    out.push((
                        target,
                        vec![Detail {
                            text,
                            source: unmark(item),
                        }],
                    ));
                }
            }
            continue;
        }
        bare_parent = None;
        let Some((target, text)) = detail(item, list, named, files) else {
            continue;
        };
        if !says_something(&without_location(&text)) {
            bare_parent = Some(target);
            continue;
        }
        let text = clean(
            &text,
            if list == List::Fixes {
                MAX_FIX
            } else {
                MAX_DETAIL
            },
        );
        if text.split_whitespace().count() < 2 {
            continue;
        }
        let d = Detail {
            text,
            source: unmark(item),
        };
        match out.iter_mut().find(|(j, _)| *j == target) {
            Some((_, ds)) => {
                let len: usize = ds.iter().map(|d| d.text.chars().count() + 2).sum();
                if ds.len() < MAX_DETAILS && len < MAX_TOTAL && !ds.iter().any(|x| x.text == d.text)
                {
                    ds.push(d);
                }
            }
            None => out.push((target, vec![d])),
        }
    }
    if out.is_empty()
        && files.len() == 1
        && let Some(d) = first_person_change(answer)
    {
        out.push((0, vec![d]));
    }
    for (_, ds) in &mut out {
        for d in ds.iter_mut() {
            d.text = without_location(&d.text);
        }
        ds.retain(|d| says_something(&d.text));
    }
    out.retain(|(_, ds)| !ds.is_empty());
    // "`tool_get_track.go` now tells the model …": a sentence of prose
    // naming one changed file and what it now does, for a file nothing
    // above described.
    for line in answer.lines().take(80) {
        let t = line.trim();
        if t.is_empty() || t.starts_with("```") || t.starts_with('|') || t.starts_with('#') {
            continue;
        }
        for sentence in t.split_inclusive(". ") {
            let Some((before, after)) = sentence.split_once(" now ") else {
                continue;
            };
            let Some(target) = named_file(before, files) else {
                continue;
            };
            if out.iter().any(|(j, _)| *j == target) {
                continue;
            }
            let text = clean(after.trim().trim_end_matches([':', '.']), MAX_DETAIL);
            if text.split_whitespace().count() >= 3 {
                out.push((
                    target,
                    vec![Detail {
                        text,
                        source: unmark(sentence.trim()),
                    }],
                ));
            }
        }
    }
    // "Created [launch.json](…) with 23 debug configurations — one per
    // command", "Also fixed a syntax error I found at main.py:849 — …": a
    // sentence that opens on the change and names one changed file, for a
    // file nothing above described.
    for line in answer.lines().take(80) {
        let t = line.trim();
        if t.is_empty() || t.starts_with("```") || t.starts_with('|') || t.starts_with('#') {
            continue;
        }
        for sentence in t.split_inclusive(". ") {
            let plain = unmark(sentence.trim());
            let lower = plain.to_lowercase();
            let opening = ["also ", "i've ", "i have ", "i "]
                .iter()
                .fold(lower.as_str(), |l, p| l.strip_prefix(p).unwrap_or(l));
            let changed = [
                "created ",
                "added ",
                "fixed ",
                "updated ",
                "rewrote ",
                "replaced ",
                "wrote ",
                "removed ",
            ]
            .iter()
            .any(|v| opening.starts_with(v));
            if !changed {
                continue;
            }
            let Some(target) = named_file(&plain, files) else {
                continue;
            };
            if out.iter().any(|(j, _)| *j == target) {
                continue;
            }
            // "I've created a CLAUDE.md file for this repository" says no
            // more than the bullet's verb and file.
            const EMPTY: &[&str] = &[
                "also",
                "i've",
                "i",
                "have",
                "the",
                "a",
                "an",
                "file",
                "for",
                "this",
                "repository",
                "repo",
                "project",
                "at",
                "in",
                "to",
                "with",
                "new",
                "specification",
                "and",
            ];
            let more = opening
                .split_whitespace()
                .skip(1)
                .filter(|w| !w.contains('.') && !w.contains('/'))
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
                .filter(|w| !w.is_empty() && !EMPTY.contains(w))
                .count();
            let text = clean(plain.trim_end_matches(['.', ' ']), MAX_DETAIL);
            if more >= 3 && says_something(&text) {
                out.push((
                    target,
                    vec![Detail {
                        text,
                        source: plain,
                    }],
                ));
            }
        }
    }
    out
}

/// A detail without the place it points at first
/// (`'/Users/me/p/README.md:78-95' → Cursor section now documents …`).
fn without_location(text: &str) -> String {
    let t = text.trim();
    for arrow in [" → ", " -> ", ": "] {
        if let Some((head, rest)) = t.split_once(arrow) {
            let h = head.trim().trim_matches(['\'', '`', '"']);
            let path_like = !h.contains(' ') && (h.contains('/') || h.contains('.'));
            if path_like && !rest.trim().is_empty() {
                return rest.trim().to_owned();
            }
        }
    }
    t.to_owned()
}

/// Whether a detail says more than the tool did ("Created:
/// '.opencode/plugins/entire.js'" says nothing the verb does not).
fn says_something(text: &str) -> bool {
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            !w.is_empty() && !w.contains('/') && !w.contains('.')
        })
        .collect();
    let tool_words = [
        "created", "updated", "modified", "wrote", "written", "edited",
    ];
    let only_tool = words.iter().all(|w| {
        tool_words.contains(
            &w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
                .as_str(),
        )
    });
    words.len() >= 2 && !only_tool
}

/// "— I just fixed the one inaccuracy where it said Apache instead of
/// nginx.": the answer saying in the first person what it changed, when
/// the turn changed one file and no list said more. What follows the verb.
fn first_person_change(answer: &str) -> Option<Detail> {
    const VERBS: &[&str] = &[
        "fixed",
        "changed",
        "updated",
        "added",
        "removed",
        "replaced",
        "renamed",
        "corrected",
    ];
    for line in answer.lines().take(40) {
        let line = line.trim();
        if line.starts_with("```") || line.starts_with('|') {
            continue;
        }
        for sentence in line.split_inclusive(". ") {
            let words: Vec<&str> = sentence.split_whitespace().collect();
            // "I fixed", "I've changed", "I have also added".
            let Some(at) = words
                .iter()
                .position(|w| matches!(*w, "I" | "I've" | "I’ve"))
            else {
                continue;
            };
            let mut v = at + 1;
            if words[at] == "I" && words.get(v) == Some(&"have") {
                v += 1;
            }
            if words
                .get(v)
                .is_some_and(|w| matches!(*w, "just" | "also" | "only"))
            {
                v += 1;
            }
            let Some(verb) = words
                .get(v)
                .filter(|w| VERBS.contains(&w.trim_end_matches(',')))
            else {
                continue;
            };
            let rest = words[v + 1..].join(" ");
            let text = clean(&format!("{verb} {rest}"), MAX_DETAIL);
            if text.split_whitespace().count() >= 4 {
                return Some(Detail {
                    text,
                    source: unmark(sentence.trim()),
                });
            }
        }
    }
    None
}

/// The file an item is about and what it says of it.
fn detail(
    item: &str,
    list: List,
    named: Option<usize>,
    files: &[String],
) -> Option<(usize, String)> {
    // The only changed file owns an item, unless the item names another
    // file (`Added CONTRIBUTING.md …` in a commit's summary).
    let only = (files.len() == 1 && !names_other_file(item, files)).then_some(0);
    match label(item) {
        // `**New files:** a.md, b.md`: a file list, which the work bullets
        // already give.
        Some((label, ..)) if is_file_list(&label) => None,
        // `**Modified**: `app.js` - shared socket, live badge`: the tool's
        // verb, the file, then what was done to it.
        Some((label, rest, _))
            if is_generic_label(&label)
                && let Some((name, how)) = after_a_name(rest)
                && let Some(target) = named_file(name, files)
                && let Some(how) = first_clause(how) =>
        {
            Some((target, how))
        }
        // `**src/app.py**: added the retry loop`: what follows the name.
        Some((label, rest, _)) if is_just_a_name(&label) && named_file(&label, files).is_some() => {
            Some((named_file(&label, files)?, first_clause(rest)?))
        }
        Some((label, rest, continues)) => {
            let target = named_file(item, files).or(named).or(only)?;
            let how = first_clause(rest);
            let short = label.split_whitespace().count() <= 2;
            let text = match (list, how) {
                (_, Some(how)) if continues => format!("{label} {how}"),
                // What was wrong, then how it was fixed.
                (List::Fixes, Some(how)) => format!("{label} → {how}"),
                // `**Trigger**: now runs on all pushes`: a field and its value.
                (List::Changes, Some(how)) if short => format!("{label}: {how}"),
                _ => label,
            };
            Some((target, text))
        }
        None => {
            let lower = item.to_lowercase();
            // Under a heading naming the file (`**New file: `x`**`), any
            // item is about it; elsewhere it must say what changed.
            if named.is_none() && !CHANGE_OPENINGS.iter().any(|o| lower.starts_with(o)) {
                return None;
            }
            let target = named_file(item, files).or(named).or(only)?;
            Some((target, first_clause(item).unwrap_or_else(|| unmark(item))))
        }
    }
}

/// `` `app.js` - shared socket `` split into the name and what follows
/// its separator (` - `, ` — `, `: `).
fn after_a_name(rest: &str) -> Option<(&str, &str)> {
    let r = rest.trim_start();
    let inner = r.strip_prefix('`')?;
    let close = inner.find('`')?;
    let name = &inner[..close];
    let after = inner[close + 1..].trim_start();
    let how = ["- ", "— ", "– ", ": "]
        .iter()
        .find_map(|sep| after.strip_prefix(sep))?;
    (!name.contains(' ') && !how.trim().is_empty()).then_some((name, how))
}

/// A Markdown heading's text, or a line that is all bold and ends with a
/// colon (`**Changes made:**`).
fn heading(line: &str) -> Option<String> {
    let t = line.trim();
    if let Some(h) = t.strip_prefix('#') {
        return Some(unmark(h.trim_start_matches('#').trim()));
    }
    let inner = t.strip_prefix("**")?.strip_suffix("**")?;
    // `**New file: `entitlements.plist`**`: a bold line naming a file is
    // its section too.
    let names_a_file = inner.contains('`') && inner.contains(':');
    ((inner.ends_with(':') || names_a_file) && !inner.contains("**")).then(|| unmark(inner))
}

/// A label that only says a change follows (`**Fix**:`, `**Root
/// cause**:`), not what it is.
fn is_generic_label(label: &str) -> bool {
    const GENERIC: &[&str] = &[
        "fix",
        "fixed",
        "the fix",
        "fixes",
        "change",
        "changes",
        "changed",
        "update",
        "updated",
        "note",
        "result",
        "why",
        "how",
        "cause",
        "root cause",
        "solution",
        "what changed",
        "done",
        "summary",
        "before",
        "after",
        "file",
        "files",
        "where",
        "location",
        "correctif",
        "correction",
        "modification",
        "résultat",
        "cause racine",
    ];
    // `**Created:**`, `**Updated spec:**`: what the tool did.
    const TOOL: &[&str] = &[
        "created", "updated", "modified", "edited", "wrote", "written", "added", "new", "créé",
        "modifié", "ajouté",
    ];
    let l = label.trim().trim_end_matches(':').trim().to_lowercase();
    let words: Vec<&str> = l.split_whitespace().collect();
    GENERIC.contains(&l.as_str())
        || (words.len() <= 2 && words.first().is_some_and(|w| TOOL.contains(w)))
}

/// A paragraph that opens with a bold label and a separator (`**Fix** —
/// …`, `**Fix**: …`), trimmed.
fn labelled_paragraph(line: &str) -> Option<&str> {
    let t = line.trim();
    let r = t.strip_prefix("**")?;
    let end = r.find("**")?;
    let mut after = r[end + 2..].trim_start();
    // `**H1 — CORS** (`server.go:132`): …`: where, then the separator.
    if after.starts_with('(')
        && let Some(close) = after.find(')')
    {
        after = after[close + 1..].trim_start();
    }
    (end > 0
        && end <= 40
        && (after.starts_with('—')
            || after.starts_with("- ")
            || after.starts_with(':')
            || r[..end].ends_with(':')))
    .then_some(t)
}

/// The text of a list item (`- `, `* `, `1. `, `1) `).
fn item_text(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if let Some(r) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
        return Some(r.trim());
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 2 {
        return None;
    }
    t[digits..]
        .strip_prefix(". ")
        .or_else(|| t[digits..].strip_prefix(") "))
        .map(str::trim)
}

/// The item's label and what follows it: `**Label**: rest`, or `Label:
/// rest` when the part before the colon is short enough to be one.
fn label(item: &str) -> Option<(String, &str, bool)> {
    if let Some(r) = item.strip_prefix("**") {
        let end = r.find("**")?;
        let raw = r[..end].trim();
        let label = raw.trim_end_matches(':').trim();
        let after = r[end + 2..].trim_start();
        // `**Sidechain messages** weren't getting …`: the bold is the
        // subject of the sentence that goes on.
        if after.chars().next().is_some_and(char::is_lowercase) && !raw.ends_with(':') {
            return Some((unmark(label), after, true));
        }
        let mut rest = after;
        // "(lines 1-3): …": where in the file, which the diff keeps.
        if rest.starts_with('(')
            && let Some(close) = rest.find(')')
        {
            rest = &rest[close + 1..];
        }
        let rest = rest.trim_start_matches([':', ' ', '-', '–', '—']);
        return (!label.is_empty()).then(|| (unmark(label), rest, false));
    }
    let at = colon_outside_code(item)?;
    let label = item[..at].trim();
    (label.split_whitespace().count() <= MAX_LABEL_WORDS && !label.is_empty())
        .then(|| (unmark(label), &item[at + 2..], false))
}

/// The first `: ` not inside a code span (`` `display: none` ``).
fn colon_outside_code(text: &str) -> Option<usize> {
    let mut code = false;
    for (i, c) in text.char_indices() {
        match c {
            '`' => code = !code,
            ':' if !code && text[i + 1..].starts_with(' ') => return Some(i),
            _ => {}
        }
    }
    None
}

/// The changed file a text names, by its shown path or its file name, when
/// it names exactly one.
fn named_file(text: &str, files: &[String]) -> Option<usize> {
    // A whole path names its file even when another changed file has the
    // same name (`core/src/index.ts` and `pull/src/index.ts`).
    // Windows paths (`src\shell\omp.zsh`) are named with either separator.
    let unified: Vec<String> = files.iter().map(|f| f.replace('\\', "/")).collect();
    let by_path: Vec<usize> = (0..files.len())
        .filter(|&i| {
            unified[i].contains('/') && (mentions(text, &files[i]) || mentions(text, &unified[i]))
        })
        .collect();
    match by_path.as_slice() {
        [one] => return Some(*one),
        [] => {}
        _ => return None,
    }
    let mut hit = None;
    for (i, f) in files.iter().enumerate() {
        let name = f.rsplit(['/', '\\']).next().unwrap_or(f);
        if mentions(text, f) || (name.contains('.') && mentions(text, name)) {
            if hit.is_some_and(|h| h != i) {
                return None;
            }
            hit = Some(i);
        }
    }
    hit
}

/// `name` appears in `text` as a whole word (not `main.py` in `domain.pyc`).
fn mentions(text: &str, name: &str) -> bool {
    let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || "_-.".contains(c)));
    let mut from = 0;
    while let Some(at) = text[from..].find(name) {
        let start = from + at;
        let end = start + name.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        // A sentence's full stop after the name is still a boundary.
        let after_ok = boundary(after)
            || (after == Some('.')
                && text[end + 1..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace));
        if boundary(before) && after_ok {
            return true;
        }
        from = end;
    }
    false
}

/// A label that announces files (`New files`, `Modified files`).
fn is_file_list(label: &str) -> bool {
    let l = label.to_lowercase();
    l.ends_with("files") || l.ends_with("file") || l.starts_with("fichiers")
}

/// Names, in backticks, a file that is not one of `files`.
fn names_other_file(text: &str, files: &[String]) -> bool {
    text.split('`').skip(1).step_by(2).any(|code| {
        let c = code.trim();
        let file_like = !c.contains(' ')
            && (c.contains('/')
                || c.rsplit_once('.').is_some_and(|(stem, ext)| {
                    !stem.is_empty()
                        && (1..=5).contains(&ext.len())
                        && ext.chars().all(|x| x.is_ascii_alphanumeric())
                }));
        file_like && named_file(c, files).is_none()
    })
}

/// A label that is only a file name (`` `src/app.py` ``), not a phrase.
fn is_just_a_name(label: &str) -> bool {
    let l = label.trim_matches(|c: char| c == '`' || c == '[' || c == ']');
    !l.contains(' ')
}

/// The first clause of what follows a label: up to the first full stop or
/// colon, when it is short.
fn first_clause(rest: &str) -> Option<String> {
    let rest = unmark(rest.trim());
    let end = [
        rest.find(". "),
        colon_outside_code(&rest),
        rest.find(" - "),
        rest.find(" — "),
    ]
    .into_iter()
    .flatten()
    .min()
    .unwrap_or(rest.len());
    let c = rest[..end].trim().trim_end_matches('.');
    (!c.is_empty() && c.split_whitespace().count() <= 20).then(|| c.to_owned())
}

/// Without Markdown emphasis and links (`[x](x)` reads `x`).
fn unmark(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find("](") else {
            break;
        };
        let Some(end) = after[close + 2..].find(')') else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&after[..close]);
        rest = &after[close + 2 + end + 1..];
    }
    out.push_str(rest);
    out.replace("**", "").replace("__", "")
}

/// A detail as the log shows it: no line numbers, no trailing colon, one
/// line, capped.
fn clean(detail: &str, max: usize) -> String {
    // A hostile one-line item is cut before the rescans below; an
    // editor's link (`[vercel.json](vercel.json:20:8-23:9)`) is its name.
    let mut d: String = super::answer::unlink(&detail.chars().take(max * 4).collect::<String>());
    // "(lines 1-3)", "(line 36)": where in the file, which the diff keeps.
    // Not "(linear …)": only a line reference.
    while let Some(at) = d.find("(line ").or_else(|| d.find("(lines ")) {
        let Some(end) = d[at..].find(')') else { break };
        d.replace_range(at..at + end + 1, "");
    }
    let d = d
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches([':', '.', ';', ','])
        .replace('`', "'");
    cap(d.trim(), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn texts(answer: &str, changed: &[&str]) -> Vec<(usize, Vec<String>)> {
        file_details(answer, &files(changed))
            .into_iter()
            .map(|(i, ds)| (i, ds.into_iter().map(|d| d.text).collect()))
            .collect()
    }

    // From a real session: the section names the file, bold labels say
    // what changed, the prose after them is commentary.
    /// The place a detail points at first is not its text; a detail that
    /// only says the tool's verb says nothing.
    #[test]
    fn a_detail_says_what_changed_not_where_nor_the_tool_s_verb() {
        assert_eq!(
            without_location(
                "'/Users/me/p/README.md:78-95' → Cursor section now documents both paths"
            ),
            "Cursor section now documents both paths"
        );
        assert_eq!(without_location("retries: 3 → 0"), "retries: 3 → 0");
        assert!(!says_something("Created: '.opencode/plugins/entire.js'"));
        assert!(!says_something("Updated: `INSTALL.md`"));
        assert!(says_something("registers the skills directory"));
    }

    #[test]
    fn bold_labels_under_a_heading_naming_the_file() {
        let answer = "Perfect! Your project is now installable.\n\n\
            ## Changes Made to [pyproject.toml](pyproject.toml)\n\n\
            1. **Switched to Hatchling** (lines 1-3): Changed from setuptools\n\
            2. **Fixed module reference** (line 36): Updated entry point\n\
            3. **Added file mapping** (lines 38-39): Configured Hatchling\n\n\
            ## How to Use\n\n\
            - **Install globally:** run it\n";
        let d = texts(answer, &["pyproject.toml", "README.md"]);
        assert_eq!(
            d,
            vec![(
                0,
                vec![
                    "Switched to Hatchling".to_owned(),
                    "Fixed module reference".to_owned(),
                    "Added file mapping".to_owned()
                ]
            )]
        );
    }

    // Real sessions: a lead-in that opens on what was done, over the
    // only file the turn changed; with two files, items must name theirs.
    #[test]
    fn the_first_person_change_of_a_one_file_turn() {
        for (answer, said) in [
            (
                "Done! I've changed the button variant from `ghost` to `default`, giving it a background.",
                "changed the button variant from 'ghost' to 'default', giving it a background",
            ),
            (
                "I have also added the redirect to [vercel.json](vercel.json:20:8-23:9) for the old URL.",
                "added the redirect to vercel.json for the old URL",
            ),
        ] {
            assert_eq!(
                texts(answer, &["src/x.tsx"]),
                vec![(0, vec![said.to_owned()])]
            );
        }
    }

    #[test]
    fn an_item_naming_only_its_file_is_told_by_its_first_sub_item() {
        let answer = "## Summary\n\n### Changes Made:\n\n\
            1. **Updated `AppSidebar.tsx`** (line 58):\n   \
            - Changed from `user?.name` to `user?.username` since the model has no name\n   \
            - Removed the email fallback\n\n\
            2. **Added a `getInitials()` helper** in `NavUser.tsx`:\n   \
            - Handles usernames\n";
        // A sub-item about another changed file is that file's, not its.
        let other = "### Changes Made:\n\n1. **Updated `AppSidebar.tsx`**:\n   \
            - `NavUser.tsx` now receives the username prop\n";
        assert!(
            texts(other, &["src/AppSidebar.tsx", "src/NavUser.tsx"])
                .iter()
                .all(|(j, _)| *j != 0)
        );
        assert_eq!(
            texts(answer, &["src/AppSidebar.tsx", "src/NavUser.tsx"]),
            vec![
                (
                    0,
                    vec![
                        "Changed from 'user?.name' to 'user?.username' since the model has no name"
                            .to_owned()
                    ]
                ),
                (
                    1,
                    vec!["Added a 'getInitials()' helper in 'NavUser.tsx'".to_owned()]
                ),
            ]
        );
    }

    #[test]
    fn a_sentence_saying_what_a_file_now_does() {
        let answer = "Done. The workflow `release.yml` now submits only the two `.msix` URLs. \
            Tests pass.";
        assert_eq!(
            texts(answer, &["release.yml", "build.ps1"]),
            vec![(0, vec!["submits only the two '.msix' URLs".to_owned()])]
        );
        // Naming no changed file, or two, it says nothing of one.
        assert!(texts("It now works.", &["release.yml"]).is_empty());
        assert!(texts("a.rs and b.rs now agree on it.", &["a.rs", "b.rs"]).is_empty());
    }

    #[test]
    fn a_sentence_opening_on_the_change_of_one_file() {
        let answer = "Created [.vscode/launch.json](.vscode/launch.json) with 23 debug configurations, one per command.\n\n\
            Also fixed a syntax error I found at [main.py:849](src/cli/main.py#L849): a stray annotation inside a call.";
        let got = texts(answer, &["src/cli/main.py", ".vscode/launch.json"]);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(
            got.iter()
                .any(|(i, d)| *i == 1 && d[0].contains("23 debug configurations")),
            "{got:?}"
        );
        assert!(
            got.iter()
                .any(|(i, d)| *i == 0 && d[0].contains("syntax error")),
            "{got:?}"
        );
        // Saying no more than the verb and the file: nothing.
        assert!(
            texts(
                "I've created a CLAUDE.md file for this repository.",
                &["CLAUDE.md", "x.rs"]
            )
            .is_empty()
        );
    }

    #[test]
    fn the_answer_saying_what_it_changed_in_the_only_file() {
        let answer = "Pushed. The README already had the instructions — I just fixed the one \
            inaccuracy where it said \"Apache proxy\" instead of nginx.";
        assert_eq!(
            texts(answer, &["README.md"]),
            vec![(
                0,
                vec![
                    "fixed the one inaccuracy where it said \"Apache proxy\" instead of nginx"
                        .to_owned()
                ]
            )]
        );
        assert!(texts(answer, &["README.md", "b.md"]).is_empty());
        assert!(texts("Done. I think it works now.", &["README.md"]).is_empty());
    }

    #[test]
    fn a_bold_line_naming_a_file_heads_its_changes() {
        let answer = "Here's a summary:\n\n**New file: `entitlements.plist`**\n\
            - Minimal macOS entitlements for Bun-compiled CLI binaries\n\n\
            **Modified: `.github/workflows/ci.yml`**\n\
            - Split the single `release` job into 3 jobs:\n";
        assert_eq!(
            texts(answer, &["entitlements.plist", ".github/workflows/ci.yml"]),
            vec![
                (
                    0,
                    vec!["Minimal macOS entitlements for Bun-compiled CLI binaries".to_owned()]
                ),
                (
                    1,
                    vec!["Split the single 'release' job into 3 jobs".to_owned()]
                )
            ]
        );
    }

    #[test]
    fn a_lead_in_saying_what_was_done_to_the_only_file() {
        let answer = "Restored all the sections that were dropped in PR #757:\n\
            - **Evaluator Type System** — kebab-case conventions\n\
            - **Git Workflow** — commit convention, issue claiming\n";
        assert_eq!(
            texts(answer, &["AGENTS.md"]),
            vec![(
                0,
                vec![
                    "Evaluator Type System".to_owned(),
                    "Git Workflow: commit convention, issue claiming".to_owned()
                ]
            )]
        );
        let answer = "Updated. The todo now frames this as an exercise, with:\n\
            - **Dual-read support** — old pointers fall back to HKDF\n";
        assert_eq!(
            texts(answer, &["todo.md"]),
            vec![(
                0,
                vec!["Dual-read support: old pointers fall back to HKDF".to_owned()]
            )]
        );
        assert!(texts(answer, &["todo.md", "b.md"]).is_empty());
        // A lead-in about something else gives nothing.
        let answer = "Here is what I found in the logs:\n- **Git Workflow** — it fails\n";
        assert!(texts(answer, &["AGENTS.md"]).is_empty());
    }

    #[test]
    fn items_naming_their_file_give_what_follows_the_name() {
        let answer = "## Changes\n\n\
            - **`src/app.py`**: added the retry loop. It waits 2 s.\n\
            - **`tests/test_app.py`** - covers the retry path\n\
            - **Docs**: the README explains retries\n";
        let d = texts(answer, &["src/app.py", "tests/test_app.py", "README.md"]);
        // `Docs` names no file and three files changed: no detail.
        assert_eq!(
            d,
            vec![
                (0, vec!["added the retry loop".to_owned()]),
                (1, vec!["covers the retry path".to_owned()]),
            ]
        );
    }

    #[test]
    fn a_labelled_paragraph_naming_a_changed_file_details_it() {
        let answer = "All three deliverables are done:\n\n\
            **Fix** — [omp.zsh:165](src/shell/omp.zsh:165) now sets `no_monitor` before the coproc spawn. Verified in WSL.\n\n\
            **Commit** — `2b47979a` on `next`.\n";
        assert_eq!(
            texts(answer, &["src/shell/omp.zsh", "scratch/test.yaml"]),
            vec![(
                0,
                vec!["omp.zsh:165 now sets 'no_monitor' before the coproc spawn".to_owned()]
            )]
        );
    }

    #[test]
    fn a_labelled_paragraph_with_its_place_keeps_a_label_that_names_the_change() {
        let answer = "All tests pass. Summary of changes:\n\n\
            **C1 — Open redirect** (`internal/auth/auth.go:393-398`): redirect parameter now validated as a relative path.\n\n\
            **H1 — CORS** (`cmd/server.go:132`): `AllowCredentials: true` → `false`. Same-origin clients still work.\n\n\
            **Created:** `cmd/server.go` with the middleware.\n";
        assert_eq!(
            texts(answer, &["internal/auth/auth.go", "cmd/server.go"]),
            vec![
                (
                    0,
                    vec![
                        "C1 — Open redirect: redirect parameter now validated as a relative path"
                            .to_owned()
                    ]
                ),
                (
                    1,
                    vec![
                        "H1 — CORS: 'AllowCredentials: true' → 'false'".to_owned(),
                        "'cmd/server.go' with the middleware".to_owned(),
                    ]
                ),
            ]
        );
    }

    #[test]
    fn a_tool_verb_label_then_the_file_says_what_it_got_under_any_heading() {
        let answer = "### spotter-0zw.2: Live sidebar badge\n\
            - **New**: `ReviewsChannel` (`reviews:counts` topic) - returns a snapshot on join\n\
            - **Modified**: `app.js` - shared socket, reviews channel consumer\n\
            - **Modified**: All 5 LiveViews to broadcast counts\n";
        assert_eq!(
            texts(answer, &["assets/js/app.js", "lib/reviews_channel.ex"]),
            vec![(
                0,
                vec!["shared socket, reviews channel consumer".to_owned()]
            )]
        );
    }

    #[test]
    fn a_windows_path_is_named_with_either_separator() {
        let answer = "## Changes\n\n- **`src/shell/omp.zsh`**: sets `no_monitor` first\n- `serve.go`: no signal handling added\n";
        assert_eq!(
            texts(answer, &["src\\shell\\omp.zsh", "src\\cli\\serve.go"]),
            vec![
                (0, vec!["sets 'no_monitor' first".to_owned()]),
                (1, vec!["no signal handling added".to_owned()]),
            ]
        );
    }

    #[test]
    fn a_whole_path_names_its_file_among_files_of_the_same_name() {
        let answer = "**Changes made:**\n\n\
            1. **`packages/core/src/index.ts`** — Added `split` to the public exports.\n\n\
            2. **`packages/pull/src/index.ts`** — Replaced the local copy with a wrapper.\n";
        assert_eq!(
            texts(
                answer,
                &["packages/core/src/index.ts", "packages/pull/src/index.ts"]
            ),
            vec![
                (0, vec!["Added 'split' to the public exports".to_owned()]),
                (1, vec!["Replaced the local copy with a wrapper".to_owned()]),
            ]
        );
    }

    #[test]
    fn one_changed_file_owns_an_untitled_list_of_changes() {
        let answer = "## Changes Made\n\n\
            1. **Updated Quick Start** (lines 16-30): now shows the command\n\
            2. **Updated Python requirement**: 3.6+ to 3.10+\n";
        assert_eq!(
            texts(answer, &["README.md"]),
            vec![(
                0,
                vec![
                    "Updated Quick Start".to_owned(),
                    "Updated Python requirement".to_owned()
                ]
            )]
        );
        // Two files and nothing to tie an item to either: nothing.
        assert!(file_details(answer, &files(&["README.md", "setup.py"])).is_empty());
    }

    #[test]
    fn lists_outside_a_section_of_changes_give_nothing() {
        let answer = "## How to Use\n\n- **Install globally**: `uv tool install .`\n\n\
            ## Next steps\n\n1. **Add tests for the parser**\n\n\
            ```\n## Changes\n- **Fake change**: in a code block\n```\n";
        assert!(file_details(answer, &files(&["README.md"])).is_empty());
    }

    #[test]
    fn a_colon_in_code_is_not_a_label() {
        let answer = "## Changes\n\n- Removed the `display: none` rule from the panel\n";
        assert_eq!(
            texts(answer, &["public/tokenizer.css"]),
            vec![(
                0,
                vec!["Removed the 'display: none' rule from the panel".to_owned()]
            )]
        );
    }

    // From real sessions: a lead-in announcing fixes, labels saying what
    // was wrong and the clause after them how it was fixed.
    #[test]
    fn fixes_keep_what_was_wrong_and_how() {
        let answer = "Perfect! Both type checking issues have been resolved:\n\n\
            1. **Fixed possibly-unbound-attribute warning**: Added null check \
            `assert cached_data is not None` before accessing `cached_data.version` \
            in `test/test_cache.py:203`\n\n\
            2. **Fixed call-non-callable error**: Added `# type: ignore[misc]` comment to \
            suppress the `ty` type checker's incorrect analysis of `pytest.skip()`\n";
        let d = texts(answer, &["test/test_cache.py"]);
        assert_eq!(d.len(), 1);
        assert_eq!(
            d[0].1[0],
            "Fixed possibly-unbound-attribute warning → Added null check 'assert cached_data \
             is not None' before accessing 'cached_data.version' in…"
        );
        assert!(
            d[0].1[1].starts_with("Fixed call-non-callable error → Added '# type: ignore[misc]'")
        );
        // A paragraph after the list ends it.
        let after = "Fixes:\n\n- **Bad path** - was wrong\n\nThat is all.\n\n- **Other thing**: done here\n";
        assert_eq!(
            texts(after, &["a.py"]),
            vec![(0, vec!["Bad path → was wrong".to_owned()])]
        );
    }

    // From a real session: a commit's summary lists other files; only the
    // line about the changed file is its detail.
    #[test]
    fn items_about_other_files_are_not_the_only_files_detail() {
        let answer = "Done. I committed all pending changes including:\n\n\
            - **New files:** `CLAUDE.md` and `CONTRIBUTING.md`\n\
            - Added `CONTRIBUTING.md` with development setup\n\
            - Fixed `.gitignore` (it had `main.py.oldscratch` instead of two entries)\n";
        let d = texts(answer, &[".gitignore"]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].1.len(), 1, "{d:?}");
        assert!(d[0].1[0].starts_with("Fixed '.gitignore' (it had"), "{d:?}");
    }

    #[test]
    fn a_bold_subject_reads_as_one_sentence() {
        let answer = "The refactoring broke some functionality because:\n\n\
            1. **Sidechain messages** weren't getting the proper CSS class - Fixed by adding a check\n";
        assert_eq!(
            texts(answer, &["html_generator.py"]),
            vec![(
                0,
                vec!["Sidechain messages weren't getting the proper CSS class".to_owned()]
            )]
        );
    }

    #[test]
    fn file_names_match_as_words() {
        assert!(mentions("see `main.py`.", "main.py"));
        assert!(mentions("main.py: fixed", "main.py"));
        assert!(!mentions("domain.pyc", "main.py"));
        assert!(!mentions("test_main.py", "main.py"));
    }
}
