//! Terminal styling and width: the only place that knows about ANSI escapes.
//!
//! A segment is rendered as a [`Piece`] (plain text + style) and painted at
//! the very end, so the width logic measures plain text and the last good
//! line can be replayed with or without colour.

use serde::{Deserialize, Serialize};

/// SGR parameters (`1;32`), parsed once from a style string such as
/// `"bold green"`. Empty means "no styling".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Style(String);

impl Style {
    /// Words: `bold`, `dim`, `italic`, `underline`, a colour name
    /// (`black` … `white`, `bright-red` …), a 256-colour number, `bg:<colour>`,
    /// `none`. Unknown words are ignored rather than failing a render: the
    /// worst a typo can do is leave text unstyled.
    pub fn parse(spec: &str) -> Style {
        let mut codes: Vec<String> = Vec::new();
        for word in spec.split_whitespace() {
            let word = word.to_ascii_lowercase();
            let (bg, name) = match word.strip_prefix("bg:") {
                Some(rest) => (true, rest),
                None => (false, word.strip_prefix("fg:").unwrap_or(&word)),
            };
            let code = match name {
                "none" => return Style::default(),
                "bold" if !bg => Some("1".to_string()),
                "dim" if !bg => Some("2".to_string()),
                "italic" if !bg => Some("3".to_string()),
                "underline" if !bg => Some("4".to_string()),
                _ => colour_code(name, bg),
            };
            codes.extend(code);
        }
        Style(codes.join(";"))
    }

    pub fn is_plain(&self) -> bool {
        self.0.is_empty()
    }

    /// Appends `text` to `out`, wrapped in this style when `color` is on.
    pub fn paint(&self, text: &str, color: bool, out: &mut String) {
        if color && !self.is_plain() {
            out.push_str("\x1b[");
            out.push_str(&self.0);
            out.push('m');
            out.push_str(text);
            out.push_str("\x1b[0m");
        } else {
            out.push_str(text);
        }
    }
}

fn colour_code(name: &str, bg: bool) -> Option<String> {
    const NAMES: [&str; 8] = [
        "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
    ];
    let (bright, base) = match name.strip_prefix("bright-") {
        Some(b) => (true, b),
        None => (false, name),
    };
    if let Some(i) = NAMES.iter().position(|n| *n == base) {
        let first = match (bright, bg) {
            (false, false) => 30,
            (false, true) => 40,
            (true, false) => 90,
            (true, true) => 100,
        };
        return Some((first + i).to_string());
    }
    let n: u8 = name.parse().ok()?;
    Some(format!("{};5;{n}", if bg { 48 } else { 38 }))
}

/// One rendered segment, before painting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    pub text: String,
    #[serde(default)]
    pub style: Style,
}

impl Piece {
    /// `None` for text with nothing visible, so an empty segment never leaves
    /// a doubled separator. Control characters are replaced: segment text
    /// comes from files and payloads (a branch name, a model name) and must
    /// not smuggle escape sequences into the user's terminal.
    pub fn new(text: &str, style: Style) -> Option<Piece> {
        let text: String = text
            .trim()
            .chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect();
        (!text.is_empty()).then_some(Piece { text, style })
    }

    pub fn width(&self) -> usize {
        text_width(&self.text)
    }
}

/// Columns a character takes in a terminal, by Unicode's East Asian Width
/// tables (the `unicode-width` crate): combining marks and zero-width
/// characters 0, wide characters 2, control characters 0 (they are never
/// printed).
pub fn char_width(c: char) -> usize {
    unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)
}

/// Width of plain text (no escapes).
pub fn text_width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// Width of text as the terminal shows it: CSI sequences (`ESC [ … final`)
/// take no room.
pub fn visible_width(s: &str) -> usize {
    text_width(&strip_ansi(s))
}

/// Removes CSI escape sequences (what [`Style::paint`] writes).
pub use crate::format::strip_ansi;

/// The longest prefix of `s` that fits in `max` columns, with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if text_width(s) <= max {
        return s.to_string();
    }
    let budget = max.saturating_sub(1);
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = char_width(c);
        if used + w > budget {
            break;
        }
        used += w;
        out.push(c);
    }
    if max > 0 {
        out.push('…');
    }
    out
}

/// Joins pieces with `sep`, keeping the longest head that fits in `width`
/// columns: whole segments go from the tail, never a cut in the middle of
/// one. When not even the first fits, it is truncated with `…` — a cut
/// model name still says more than a blank row.
pub fn fit(pieces: &[Piece], sep: &str, width: usize, color: bool) -> String {
    let sep_w = text_width(sep);
    let mut used = 0;
    let mut keep = 0;
    for (i, p) in pieces.iter().enumerate() {
        let add = p.width() + if i > 0 { sep_w } else { 0 };
        if used + add > width {
            break;
        }
        used += add;
        keep += 1;
    }
    let mut out = String::new();
    if keep == 0 {
        if let Some(first) = pieces.first() {
            // At least one column, so the row is never empty.
            first
                .style
                .paint(&truncate(&first.text, width.max(1)), color, &mut out);
        }
        return out;
    }
    for (i, p) in pieces[..keep].iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        p.style.paint(&p.text, color, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(t: &str) -> Piece {
        Piece::new(t, Style::parse("bold red")).unwrap()
    }

    #[test]
    fn styles_parse_to_sgr() {
        assert_eq!(Style::parse("bold green").0, "1;32");
        assert_eq!(Style::parse("bright-red bg:blue").0, "91;44");
        assert_eq!(Style::parse("208").0, "38;5;208");
        assert_eq!(Style::parse("sparkly").0, "");
        assert_eq!(Style::parse("bold none").0, "");
        let mut s = String::new();
        Style::parse("dim").paint("x", true, &mut s);
        assert_eq!(s, "\x1b[2mx\x1b[0m");
        assert_eq!(visible_width(&s), 1);
    }

    #[test]
    fn widths_and_escapes() {
        assert_eq!(text_width("abc"), 3);
        assert_eq!(text_width("日本"), 4);
        assert_eq!(text_width("e\u{301}"), 1);
        assert_eq!(strip_ansi("\x1b[1;31mred\x1b[0m!"), "red!");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("日本語", 4), "日…");
        assert_eq!(truncate("abc", 3), "abc");
    }

    #[test]
    fn control_characters_never_reach_the_terminal() {
        let piece = Piece::new("main\x1b[2J", Style::default()).unwrap();
        assert_eq!(piece.text, "main?[2J");
        assert!(Piece::new("  ", Style::default()).is_none());
    }

    #[test]
    fn fit_drops_whole_tail_segments() {
        let ps = [p("aaaa"), p("bb"), p("cccc")];
        assert_eq!(fit(&ps, " | ", 100, false), "aaaa | bb | cccc");
        assert_eq!(fit(&ps, " | ", 16, false), "aaaa | bb | cccc");
        assert_eq!(fit(&ps, " | ", 15, false), "aaaa | bb");
        assert_eq!(fit(&ps, " | ", 9, false), "aaaa | bb");
        assert_eq!(fit(&ps, " | ", 8, false), "aaaa");
        assert_eq!(fit(&ps, " | ", 3, false), "aa…");
        assert_eq!(fit(&ps, " | ", 0, false), "…");
        let coloured = fit(&ps, " | ", 9, true);
        assert_eq!(visible_width(&coloured), 9);
        assert!(coloured.starts_with("\x1b[1;31m"));
    }
}
