//! Removal of `<private>…</private>` blocks.
//!
//! Done by hand rather than with a regex: the result must contain no
//! `<private>` at all (so a second pass is a no-op), even when removing a
//! block glues `<priv` and `ate>` together, and an unclosed or nested tag must
//! not make the work quadratic.

use std::borrow::Cow;

use memchr::memchr;

const OPEN: &[u8] = b"<private>";
const CLOSE: &[u8] = b"</private>";

/// Removes every private block; returns the text and how many blocks went.
///
/// An unclosed `<private>` removes everything after it: losing text is better
/// than leaking it. Nested blocks are honoured for the same reason, so the
/// outer block ends at its own closing tag. A stray `</private>` is kept, and
/// so is a tag quoted as inline code, `` `<private>` ``, which is how people
/// write *about* the feature; content between two such mentions is not
/// private.
pub(super) fn strip(text: &str) -> (Cow<'_, str>, usize) {
    let bytes = text.as_bytes();
    let Some(first) = find_tag(bytes, 0, OPEN) else {
        return (Cow::Borrowed(text), 0);
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first]);
    let mut removed = 0;
    // A tag can only be completed by a `>`: copy up to the next one and look
    // at what the output now ends with, which also catches tags glued
    // together by the removal of a block (`<priv<private>…</private>ate>`).
    let mut pos = first;
    while let Some(k) = memchr(b'>', &bytes[pos..]) {
        let next = pos + k + 1;
        out.push_str(&text[pos..next]);
        pos = next;
        let len = out.len();
        let Some(tag_start) = len.checked_sub(OPEN.len()) else {
            continue;
        };
        if !out.as_bytes()[tag_start..].eq_ignore_ascii_case(OPEN) {
            continue;
        }
        let quoted =
            tag_start > 0 && out.as_bytes()[tag_start - 1] == b'`' && bytes.get(pos) == Some(&b'`');
        if quoted {
            continue;
        }
        out.truncate(tag_start);
        removed += 1;
        match end_of_block(bytes, pos) {
            Some(after) => pos = after,
            None => return (Cow::Owned(out), removed),
        }
    }
    out.push_str(&text[pos..]);
    (Cow::Owned(out), removed)
}

/// Position just after the `</private>` closing the block whose content
/// starts at `from`, counting nested opening tags; `None` if it never closes.
fn end_of_block(bytes: &[u8], from: usize) -> Option<usize> {
    let mut depth = 1usize;
    let mut pos = from;
    while let Some(k) = memchr(b'<', &bytes[pos..]) {
        let at = pos + k;
        let rest = &bytes[at..];
        if starts_with_ci(rest, CLOSE) {
            depth -= 1;
            pos = at + CLOSE.len();
            if depth == 0 {
                return Some(pos);
            }
        } else if starts_with_ci(rest, OPEN) {
            let quoted =
                at > 0 && bytes[at - 1] == b'`' && bytes.get(at + OPEN.len()) == Some(&b'`');
            if !quoted {
                depth += 1;
            }
            pos = at + OPEN.len();
        } else {
            pos = at + 1;
        }
    }
    None
}

fn find_tag(bytes: &[u8], from: usize, tag: &[u8]) -> Option<usize> {
    let mut pos = from;
    while let Some(k) = memchr(b'<', &bytes[pos..]) {
        let at = pos + k;
        if starts_with_ci(&bytes[at..], tag) {
            return Some(at);
        }
        pos = at + 1;
    }
    None
}

fn starts_with_ci(hay: &[u8], tag: &[u8]) -> bool {
    hay.len() >= tag.len() && hay[..tag.len()].eq_ignore_ascii_case(tag)
}

#[cfg(test)]
mod tests {
    use super::strip;

    fn run(s: &str) -> (String, usize) {
        let (out, n) = strip(s);
        (out.into_owned(), n)
    }

    #[test]
    fn removes_block_and_keeps_surroundings() {
        assert_eq!(run("a <private>x</private> b"), ("a  b".into(), 1));
    }

    #[test]
    fn tags_are_case_insensitive_and_blocks_multiline() {
        let s = "keep\n<PRIVATE>line 1\nline 2\n</Private>\nend";
        assert_eq!(run(s), ("keep\n\nend".into(), 1));
    }

    #[test]
    fn unclosed_block_removes_the_rest() {
        assert_eq!(run("before <private> after\nmore"), ("before ".into(), 1));
    }

    #[test]
    fn several_blocks() {
        let s = "1<private>a</private>2<private>b</private>3";
        assert_eq!(run(s), ("123".into(), 2));
    }

    #[test]
    fn nested_blocks_end_at_the_outer_close() {
        let s = "a<private>x<private>y</private>z</private>b";
        assert_eq!(run(s), ("ab".into(), 1));
    }

    #[test]
    fn tag_glued_by_a_removal_is_removed_too() {
        let s = "<priv<private>x</private>ate>secret</private>ok";
        let (out, n) = run(s);
        assert_eq!(out, "ok");
        assert_eq!(n, 2);
        assert_eq!(run(&out).0, out);
    }

    #[test]
    fn stray_close_and_look_alikes_survive() {
        for s in [
            "</private> text",
            "<privacy>",
            "private notes",
            "<private",
            "é<privé>",
        ] {
            assert_eq!(run(s), (s.to_string(), 0));
        }
    }

    #[test]
    fn tags_quoted_as_inline_code_are_mentions() {
        let s = "Wrap it in `<private>` tags; `<private>` is case-insensitive.";
        assert_eq!(run(s), (s.to_string(), 0));
        let s = "Use `<private>x</private>` like this.";
        assert_eq!(run(s), ("Use `` like this.".into(), 1));
        let s = "`<private>`\n<private>secret";
        assert_eq!(run(s), ("`<private>`\n".into(), 1));
        let s = "a <private>the `<private>` tag</private> b";
        assert_eq!(run(s), ("a  b".into(), 1));
    }

    #[test]
    fn multibyte_text_around_blocks() {
        assert_eq!(run("été <private>🔑</private> 🎉"), ("été  🎉".into(), 1));
    }
}
