//! PEM private key blocks (`-----BEGIN … PRIVATE KEY-----` to `-----END …`).
//!
//! The header is found with a regex but the end by hand: a lazy regex running
//! to the next `-----END` would rescan the rest of the text for every header
//! that has no end, which hostile input can repeat thousands of times.

use memchr::memmem;
use regex::bytes::Regex;

/// Matches the opening line; kept small so it costs nothing to compile.
pub(super) const HEADER: &str = r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY[ A-Z]{0,12}-----";

/// How far past `-----END` the closing dashes may be (`-----END OPENSSH
/// PRIVATE KEY-----` and friends fit easily).
const END_LABEL_MAX: usize = 64;

/// An unclosed header is only a key if this much base64 follows it.
const MIN_UNCLOSED_BODY: usize = 32;

/// Appends the span of every private key block to `spans`.
///
/// A block without an end (a truncated paste) extends over the key body that
/// follows, since leaking half a key is still leaking it.
pub(super) fn find(header: &Regex, hay: &[u8], spans: &mut Vec<(usize, usize)>) {
    let end_finder = memmem::Finder::new(b"-----END");
    // The first `-----END` at or after a position only moves forward as the
    // headers do, so remembering it keeps the whole scan linear.
    let mut next_end: Option<Option<usize>> = None;
    let mut covered = 0;
    for m in header.find_iter(hay) {
        if m.start() < covered {
            continue;
        }
        let body = m.end();
        let end = match next_end {
            Some(Some(p)) if p >= body => Some(p),
            Some(None) => None,
            _ => {
                #[cfg(test)]
                tests::SCANNED.with(|n| n.set(n.get() + hay.len() - body));
                let found = end_finder.find(&hay[body..]).map(|k| body + k);
                next_end = Some(found);
                found
            }
        };
        let stop = match end {
            Some(p) => close_of_end_line(hay, p),
            None => {
                let len = unclosed_body_len(&hay[body..]);
                // A lone header is code or documentation about PEM files
                // (`b"-----BEGIN PRIVATE KEY-----"`), not a key.
                let key_chars = hay[body..body + len]
                    .iter()
                    .filter(|b| b.is_ascii_alphanumeric())
                    .count();
                if key_chars < MIN_UNCLOSED_BODY {
                    continue;
                }
                body + len
            }
        };
        spans.push((m.start(), stop));
        covered = stop;
    }
}

/// Position after the dashes closing the `-----END …-----` line at `at`.
fn close_of_end_line(hay: &[u8], at: usize) -> usize {
    let label = at + b"-----END".len();
    let limit = hay.len().min(label + END_LABEL_MAX);
    let window = &hay[label..limit];
    let line = window
        .iter()
        .position(|&b| b == b'\n' || b == b'\\')
        .unwrap_or(window.len());
    match memmem::find(&window[..line], b"-----") {
        Some(k) => {
            // Swallow the dashes run fully, however many there are.
            let mut stop = label + k;
            while stop < hay.len() && hay[stop] == b'-' {
                stop += 1;
            }
            stop
        }
        None => label + line,
    }
}

/// Length of the base64 body (with PEM headers such as `Proc-Type` and
/// escaped newlines) that follows an unclosed header.
fn unclosed_body_len(rest: &[u8]) -> usize {
    rest.iter()
        .position(|&b| {
            !(b.is_ascii_alphanumeric()
                || matches!(b, b'+' | b'/' | b'=' | b'\\' | b':' | b',' | b'-')
                || b.is_ascii_whitespace())
        })
        .unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<(usize, usize)> {
        let re = Regex::new(HEADER).unwrap();
        let mut out = Vec::new();
        find(&re, text.as_bytes(), &mut out);
        out
    }

    fn block(label: &str) -> String {
        format!(
            "-----BEGIN {label}-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nAbCdEf0123==\n-----END {label}-----"
        )
    }

    #[test]
    fn finds_each_flavour_whole() {
        for label in [
            "RSA PRIVATE KEY",
            "EC PRIVATE KEY",
            "OPENSSH PRIVATE KEY",
            "PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "PGP PRIVATE KEY BLOCK",
        ] {
            let key = block(label);
            let text = format!("before\n{key}\nafter");
            assert_eq!(spans(&text), vec![(7, 7 + key.len())], "{label}");
        }
    }

    #[test]
    fn json_escaped_block() {
        let text =
            r#"{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----\n"}"#;
        let (s, e) = spans(text)[0];
        assert_eq!(&text[e..], r#"\n"}"#);
        assert!(text[s..].starts_with("-----BEGIN"));
    }

    #[test]
    fn unclosed_block_takes_the_body() {
        let text = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi+/==\n\n# end of paste";
        let (s, e) = spans(text)[0];
        assert_eq!((s, &text[e..]), (0, "# end of paste"));
    }

    #[test]
    fn lone_header_is_not_a_key() {
        assert!(spans(r#"const TAG: &[u8] = b"-----BEGIN PRIVATE KEY-----";"#).is_empty());
    }

    #[test]
    fn public_blocks_are_not_matched() {
        assert!(spans("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----").is_empty());
        assert!(spans("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----").is_empty());
    }

    thread_local! {
        /// Bytes the search for `-----END` has gone through on this thread:
        /// the cost that turns quadratic if each header searches afresh.
        pub(super) static SCANNED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn many_unclosed_headers_stay_linear() {
        let text = "-----BEGIN PRIVATE KEY-----!".repeat(50_000);
        SCANNED.with(|n| n.set(0));
        assert!(spans(&text).is_empty());
        // One search from the first header finds no end, and that answer
        // holds for every later header.
        let scanned = SCANNED.with(|n| n.get());
        assert!(
            scanned <= text.len(),
            "{scanned} bytes searched for {}",
            text.len()
        );
    }
}
