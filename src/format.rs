//! Numbers and text as people read them, shared by every report, note and
//! line: digit groups, byte sizes, dollar amounts (a bill's, a status
//! line's, one run's), cuts on char boundaries, and the one accent folding
//! (gate, search, log headings).

const ELLIPSIS: char = '…';

/// `1234567` → `1,234,567` with `sep` between groups of three digits.
pub fn group_digits(n: u64, sep: char) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * sep.len_utf8());
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// `2.4 MiB`-style sizes in binary units: bytes as they are, one decimal
/// above, `gib_decimals` decimals from 1 GiB.
pub fn human_bytes(n: u64, gib_decimals: usize) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{n} B"),
        3 => format!("{v:.gib_decimals$} GiB"),
        _ => format!("{v:.1} {}", UNITS[unit]),
    }
}

/// Two decimals, like a bill; a non-zero amount under a cent is not shown
/// as `$0.00`.
pub fn dollars(x: f64) -> String {
    if x > 0.0 && x < 0.005 {
        "<$0.01".to_string()
    } else {
        format!("${:.2}", x.max(0.0))
    }
}

/// Dollars in a report's tables and chart labels: whole dollars from $100,
/// cents below.
pub fn dollars_compact(x: f64) -> String {
    if x >= 100.0 {
        format!("${x:.0}")
    } else {
        format!("${x:.2}")
    }
}

/// Dollars on a status line: cents below $1000, whole dollars above, `$?`
/// for a figure that cannot be one.
pub fn dollars_short(usd: f64) -> String {
    // An empty sum of floats is -0.0, and subtracting prices can leave a
    // hair below zero: neither is a refund worth a minus sign.
    let usd = if usd > -0.005 && usd <= 0.0 { 0.0 } else { usd };
    if !usd.is_finite() || usd < 0.0 {
        "$?".to_string()
    } else if usd < 1000.0 {
        format!("${usd:.2}")
    } else {
        format!("${usd:.0}")
    }
}

/// Dollars of one run, where cents hide the difference: four decimals
/// below $1.
pub fn dollars_fine(x: f64) -> String {
    if x >= 1.0 {
        format!("${x:.2}")
    } else {
        format!("${x:.4}")
    }
}

/// At most `max` characters from the start, ending in `…` when cut.
pub fn truncate_head(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let keep = max.saturating_sub(1);
            let cut = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
            let mut s = text[..cut].to_owned();
            s.push(ELLIPSIS);
            s
        }
    }
}

/// At most `max` characters from the end, starting with `…` when cut.
pub fn truncate_tail(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_owned();
    }
    let skip = n - max.saturating_sub(1);
    let cut = text.char_indices().nth(skip).map_or(text.len(), |(i, _)| i);
    let mut s = String::with_capacity(text.len() - cut + ELLIPSIS.len_utf8());
    if max > 0 {
        s.push(ELLIPSIS);
    }
    s.push_str(&text[cut..]);
    s
}

/// Lower case with the accents of Latin letters removed, so words written
/// with or without them (or with the accent typed as a separate combining
/// mark) meet: `Même`, `meme` and `me\u{301}me` all give `meme`.
pub fn fold_accents(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_folded(&mut out, c);
    }
    out
}

/// [`fold_accents`] of one character, appended to `buf`: for a tokenizer
/// that folds as it goes.
pub fn push_folded(buf: &mut String, c: char) {
    if c.is_ascii() {
        buf.push(c.to_ascii_lowercase());
        return;
    }
    for l in c.to_lowercase() {
        match l {
            // No canonical decomposition: the ligatures people spell out.
            'œ' => buf.push_str("oe"),
            'æ' => buf.push_str("ae"),
            'ß' => buf.push_str("ss"),
            // Only Latin letters lose their marks: decomposing other
            // scripts (Hangul into jamo, Greek tonos) would change words
            // rather than spellings.
            '\u{c0}'..='\u{24f}' | '\u{1e00}'..='\u{1eff}' => {
                unicode_normalization::char::decompose_canonical(l, |d| {
                    if !is_combining_accent(d) {
                        buf.push(d);
                    }
                });
            }
            l if is_combining_accent(l) => {}
            l => buf.push(l),
        }
    }
}

/// The combining diacritical marks (U+0300–U+036F): the accents of Latin
/// letters once decomposed, or as typed by some keyboards.
pub fn is_combining_accent(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// `text` without its CSI escape sequences (`ESC [ … final byte`): the
/// colours a terminal program writes, which are noise once the text is not
/// on a terminal.
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, then one final byte in @..~.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_bytes_and_dollars() {
        assert_eq!(group_digits(0, ','), "0");
        assert_eq!(group_digits(999, ','), "999");
        assert_eq!(group_digits(1_234_567, ','), "1,234,567");
        assert_eq!(group_digits(826_000, '\u{202f}'), "826\u{202f}000");
        assert_eq!(human_bytes(1023, 1), "1023 B");
        assert_eq!(human_bytes(2_516_582, 1), "2.4 MiB");
        assert_eq!(human_bytes(3 << 30, 1), "3.0 GiB");
        assert_eq!(human_bytes((5 << 30) / 2, 2), "2.50 GiB");
        assert_eq!(dollars(0.004), "<$0.01");
        assert_eq!(dollars(0.0), "$0.00");
        assert_eq!(dollars(-1.0), "$0.00");
        assert_eq!(dollars(12.345), "$12.35");
    }

    #[test]
    fn dollar_formats() {
        assert_eq!(dollars_short(0.0), "$0.00");
        assert_eq!(dollars_short(0.134979), "$0.13");
        assert_eq!(dollars_short(12.5), "$12.50");
        assert_eq!(dollars_short(1234.4), "$1234");
        assert_eq!(dollars_short(f64::NAN), "$?");
        assert_eq!(dollars_short(-0.0), "$0.00");
        assert_eq!(dollars_short(std::iter::empty::<f64>().sum()), "$0.00");
        assert_eq!(dollars_short(-1e-12), "$0.00");
        assert_eq!(dollars_short(-3.0), "$?");
        assert_eq!(dollars_fine(0.01234), "$0.0123");
        assert_eq!(dollars_fine(2.5), "$2.50");
    }

    #[test]
    fn cuts_keep_char_boundaries() {
        let s = "éééééé";
        assert_eq!(truncate_head(s, 10), s);
        assert_eq!(truncate_head(s, 4), "ééé…");
        assert_eq!(truncate_tail(s, 4), "…ééé");
        assert_eq!(truncate_tail(s, 10), s);
        assert_eq!(truncate_head(s, 0), "…");
        assert_eq!(truncate_tail(s, 0), "");
    }

    #[test]
    fn folding_removes_latin_accents_composed_or_not() {
        assert_eq!(fold_accents("Le MÊME Problème"), "le meme probleme");
        assert_eq!(fold_accents("me\u{301}me"), "meme");
        assert_eq!(fold_accents("Œuvre Æther Straße"), "oeuvre aether strasse");
        assert_eq!(
            fold_accents("àáâäãå ç ñ ÿý Dvořák Łódź"),
            "aaaaaa c n yy dvorak łodz"
        );
        // Other scripts keep their letters.
        assert_eq!(fold_accents("한국 Ωμέγα"), "한국 ωμέγα");
        assert_eq!(fold_accents("ø"), "ø");
    }
}
