//! Text hygiene for what enters a log: one-line bullets, comparison keys,
//! literal blocks, and headings demoted inside long-memory text.

/// Turns one extracted string into the text of one bullet, or `None` when
/// nothing is left.
///
/// The bullet is written after `- ` on a line of its own, so whatever the
/// string holds (new lines, `## À suivre`, `- ✅ x`, a title, a JSON blob)
/// cannot start a line of the file: structure can only come from the file.
/// Steps: every control character, new line, tab or other white space becomes
/// a space and runs collapse to one; invisible direction overrides and
/// zero-width spaces are dropped (they can hide text from a reviewer);
/// leading Markdown markers are stripped repeatedly (`>` always; a run of
/// `#`, `-`, `*` or `+` when followed by a space, so `#123`, `--flag` and
/// `**bold**` keep their meaning); then the text is capped at `max_len`
/// characters, an ellipsis included.
pub fn clean_bullet(s: &str, max_len: usize) -> Option<String> {
    let line = one_line(s);
    let body = strip_markers(&line);
    if body.is_empty() || max_len == 0 {
        return None;
    }
    Some(cap(body, max_len))
}

/// The form two bullets are compared in: one line, markers and a leading
/// `✅` stripped, a trailing ellipsis (left by the cap) ignored, lower case.
/// Other modules that deduplicate bullets use it to agree with the merge.
pub fn bullet_key(s: &str) -> String {
    let line = one_line(s);
    let mut body = strip_markers(&line);
    // `✅ > x` (a finalised `> x`) must keep the key of `> x`.
    while let Some(rest) = body.strip_prefix('✅') {
        body = strip_markers(rest);
    }
    body.trim_end_matches('…').trim_end().to_lowercase()
}

/// Whether one key holds the other as whole words. Whole words, and three
/// characters at least, so that `test` does not finalise "attestation".
pub(super) fn contains_either(a: &str, b: &str) -> bool {
    let (short, long) = if a.chars().count() <= b.chars().count() {
        (a, b)
    } else {
        (b, a)
    };
    short.chars().count() >= 3 && contains_words(long, short)
}

fn contains_words(hay: &str, needle: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    hay.match_indices(needle).any(|(at, _)| {
        let before = hay[..at].chars().next_back();
        let after = hay[at + needle.len()..].chars().next();
        let edge_ok = |outside: Option<char>, inside: Option<char>| match (outside, inside) {
            (Some(o), Some(i)) => !(is_word(o) && is_word(i)),
            _ => true,
        };
        edge_ok(before, needle.chars().next()) && edge_ok(after, needle.chars().next_back())
    })
}

pub(super) fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if is_invisible(c) {
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200b}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}'
    )
}

fn strip_markers(s: &str) -> &str {
    let mut s = s.trim_start();
    loop {
        if let Some(rest) = s.strip_prefix('>') {
            s = rest.trim_start();
            continue;
        }
        match s.chars().next() {
            Some(c @ ('#' | '-' | '*' | '+')) => {
                let rest = s.trim_start_matches(c);
                if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                    s = rest.trim_start();
                    continue;
                }
                return s;
            }
            _ => return s,
        }
    }
}

fn cap(s: &str, max_len: usize) -> String {
    if s.chars().count() <= max_len {
        return s.to_string();
    }
    let kept: String = s.chars().take(max_len - 1).collect();
    format!("{}…", kept.trim_end())
}

/// How a literal block (fenced code, multi-line HTML comment) ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Closer {
    Fence { mark: char, len: usize },
    Comment,
}

impl Closer {
    /// The block a line opens, if any. Only a line that starts with the
    /// marker opens one, so a bullet (`- …`) never does: merged text cannot
    /// swallow the rest of a file into a code block or a comment.
    pub(super) fn opened_by(line: &str) -> Option<Closer> {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("<!--") {
            return (!rest.contains("-->")).then_some(Closer::Comment);
        }
        let mark = t.chars().next().filter(|c| matches!(c, '`' | '~'))?;
        let len = t.chars().take_while(|&c| c == mark).count();
        // Backticks in the info string make it inline code, not a fence.
        let info = &t[len..];
        (len >= 3 && !(mark == '`' && info.contains('`'))).then_some(Closer::Fence { mark, len })
    }

    pub(super) fn closed_by(&self, line: &str) -> bool {
        match self {
            Closer::Comment => line.contains("-->"),
            Closer::Fence { mark, len } => {
                let t = line.trim();
                t.chars().count() >= *len && t.chars().all(|c| c == *mark)
            }
        }
    }

    /// The line written when the file never closed the block, so that the
    /// block stays inside its section once sections are reordered.
    pub(super) fn closing_line(&self) -> String {
        match self {
            Closer::Comment => "-->".to_string(),
            Closer::Fence { mark, len } => mark.to_string().repeat(*len),
        }
    }
}

/// Long-memory text made safe to append under a `## date` heading: line
/// endings normalised, outer blank lines dropped, `#` and `##` headings
/// demoted to `###` (outside code fences) so the text cannot add a title or
/// a date block of its own, and an unclosed fence or comment closed so it
/// cannot swallow the blocks appended after it.
pub(super) fn long_memory_body(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text
        .trim()
        .split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(last - first + 2);
    let mut open: Option<Closer> = None;
    for line in &lines[first..=last] {
        match &open {
            Some(closer) => {
                let in_fence = matches!(closer, Closer::Fence { .. });
                if closer.closed_by(line) {
                    open = None;
                }
                out.push(if in_fence {
                    line.to_string()
                } else {
                    demote(line)
                });
            }
            None => {
                open = Closer::opened_by(line);
                out.push(demote(line));
            }
        }
    }
    if let Some(closer) = open {
        out.push(closer.closing_line());
    }
    out
}

fn demote(line: &str) -> String {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return line.to_string();
    }
    let rest = &line[indent..];
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    let after = &rest[hashes..];
    if (hashes == 1 || hashes == 2) && (after.is_empty() || after.starts_with([' ', '\t'])) {
        let title = after.trim();
        if title.is_empty() {
            "###".to_string()
        } else {
            format!("### {title}")
        }
    } else {
        line.to_string()
    }
}

pub use crate::format::fold_accents;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_bullet_makes_one_trimmed_line() {
        assert_eq!(
            clean_bullet("  a\nb\r\n\tc  \u{7}d ", 400).as_deref(),
            Some("a b c d")
        );
        assert_eq!(clean_bullet(" \n\t ", 400), None);
        assert_eq!(clean_bullet("", 400), None);
    }

    #[test]
    fn clean_bullet_strips_leading_markers_repeatedly() {
        let cases = [
            ("- x", "x"),
            ("## À suivre", "À suivre"),
            ("> > - ## x", "x"),
            ("* - x", "x"),
            ("-- x", "x"),
            (">quoted", "quoted"),
            ("# Log session — 2026-03-21", "Log session — 2026-03-21"),
            ("\n## À suivre\n- ✅ x", "À suivre - ✅ x"),
            ("#123 fixed", "#123 fixed"),
            ("--release build", "--release build"),
            ("**Cause**: bad", "**Cause**: bad"),
            ("-5 °C", "-5 °C"),
        ];
        for (input, want) in cases {
            assert_eq!(clean_bullet(input, 400).as_deref(), Some(want), "{input:?}");
        }
        for markers_only in ["-", "##", "> ", "---", "- * #"] {
            assert_eq!(clean_bullet(markers_only, 400), None, "{markers_only:?}");
        }
    }

    #[test]
    fn clean_bullet_caps_on_a_char_boundary() {
        assert_eq!(clean_bullet("abcdef", 6).as_deref(), Some("abcdef"));
        assert_eq!(clean_bullet("abcdefg", 6).as_deref(), Some("abcde…"));
        assert_eq!(clean_bullet("éééééééé", 4).as_deref(), Some("ééé…"));
        assert_eq!(clean_bullet("ab cdef", 4).as_deref(), Some("ab…"));
        assert_eq!(clean_bullet("abc", 0), None);
        let capped = clean_bullet(&"€".repeat(1000), 400).unwrap();
        assert_eq!(capped.chars().count(), 400);
    }

    #[test]
    fn clean_bullet_drops_invisible_overrides() {
        assert_eq!(
            clean_bullet("a\u{202e}b\u{200b}c", 400).as_deref(),
            Some("abc")
        );
    }

    #[test]
    fn bullet_key_ignores_case_space_done_mark_and_ellipsis() {
        assert_eq!(bullet_key("✅  Fix   THE bug"), "fix the bug");
        assert_eq!(bullet_key("fix the bug…"), "fix the bug");
        assert_eq!(bullet_key("- fix\tthe bug"), "fix the bug");
    }

    #[test]
    fn substring_match_needs_whole_words() {
        assert!(contains_either(
            "revalider découverte skills",
            "découverte skills"
        ));
        assert!(contains_either("fix ci", "fix ci on windows"));
        assert!(!contains_either("attestation", "test"));
        assert!(!contains_either("ab", "ab cd"));
    }

    #[test]
    fn fences_and_comments_open_only_at_line_start() {
        assert_eq!(
            Closer::opened_by("```rust"),
            Some(Closer::Fence { mark: '`', len: 3 })
        );
        assert_eq!(
            Closer::opened_by("  ~~~~"),
            Some(Closer::Fence { mark: '~', len: 4 })
        );
        assert_eq!(Closer::opened_by("```x```"), None);
        assert_eq!(Closer::opened_by("<!-- note"), Some(Closer::Comment));
        assert_eq!(Closer::opened_by("<!-- note -->"), None);
        assert_eq!(Closer::opened_by("- <!-- note"), None);
        assert_eq!(Closer::opened_by("- ```"), None);
        let fence = Closer::Fence { mark: '`', len: 3 };
        assert!(fence.closed_by("````"));
        assert!(!fence.closed_by("``"));
        assert!(!fence.closed_by("```rust"));
    }

    #[test]
    fn long_memory_headings_are_demoted_outside_fences() {
        let body = long_memory_body(
            "\r\n# Titre\r\n## 2026-01-01\ntexte\n### garde\n#tag\n```sh\n# commentaire\n```\n\n",
        );
        assert_eq!(
            body,
            [
                "### Titre",
                "### 2026-01-01",
                "texte",
                "### garde",
                "#tag",
                "```sh",
                "# commentaire",
                "```"
            ]
        );
        assert_eq!(long_memory_body("```\n# x"), ["```", "# x", "```"]);
        assert!(long_memory_body(" \n\n").is_empty());
    }
}
