//! Heuristics deciding whether the value of a `key = value` pair is a secret.
//!
//! The key only says a secret *could* be there. Conversations are full of
//! code and documentation where the value is a variable, a type or a
//! template (`password=os.environ[…]`, `token: string`, `${DB_PASSWORD}`);
//! redacting those would garble the memory without protecting anything.
//! Everything here works on bytes: only ASCII properties matter.

/// Values that stand for a secret without being one: empty, masked
/// (`****`), env-var, template and format references, `<your-password>` (or
/// any value opening a tag or a generic), earlier redactions.
pub(super) fn is_placeholder(v: &[u8]) -> bool {
    let Some(&first) = v.first() else {
        return true;
    };
    let last = v[v.len() - 1];
    if !v.iter().any(u8::is_ascii_alphanumeric) {
        return true;
    }
    // `$VAR`, `${VAR}`, `%VAR%`, `%s`, `{name}`, `{{ var }}`, `<your-key>`.
    if matches!(first, b'$' | b'%' | b'{' | b'<') {
        return true;
    }
    if (first == b'[' && last == b']') || v.starts_with(b"[REDACTED") {
        return true;
    }
    if starts_with_ci(v, b"your") || contains(v, b"...") || contains(v, "…".as_bytes()) {
        return true;
    }
    v.iter()
        .all(|b| matches!(b, b'x' | b'X' | b'*' | b'.' | b'-' | b'_'))
}

/// Bare words that are states or types, not secrets (`token: expired`,
/// `password: String`, `secret=false`, `id-token: write`).
#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "true", "false", "null", "nil", "none", "undefined", "yes", "no", "on", "off",
    "required", "optional", "empty", "unset", "set", "expired", "invalid", "missing",
    "hidden", "redacted", "enabled", "disabled", "read", "write",
    "string", "str", "&str", "bool", "boolean", "int", "integer", "number", "bytes", "any",
    "object", "char", "mut", "const", "dyn", "impl", "secretstr", "secretstring", "secret",
];

pub(super) fn is_stop_word(v: &[u8]) -> bool {
    STOP_WORDS
        .iter()
        .any(|w| v.eq_ignore_ascii_case(w.as_bytes()))
        || is_primitive_type(v)
}

/// `u8`, `usize`, `f64`, `__u32`, `c_char`: field types in Rust and C.
fn is_primitive_type(v: &[u8]) -> bool {
    let t = v.trim_ascii_start();
    let t = &t[t.iter().take_while(|b| **b == b'_').count()..];
    if let Some(rest) = t.strip_prefix(b"c_") {
        return !rest.is_empty() && rest.iter().all(u8::is_ascii_lowercase);
    }
    match t.split_first() {
        Some((b'u' | b'i' | b's' | b'f', size)) => {
            matches!(size, b"8" | b"16" | b"32" | b"64" | b"128" | b"size")
        }
        _ => false,
    }
}

/// Numbers too short to be a credential, such as enum values and flags
/// (`NL80211_ATTR_SAE_PASSWORD = 277`, `FLAGS_PASS = 0x04`, `AUTH = 16u32`).
pub(super) fn is_small_number(v: &[u8]) -> bool {
    // Rust writes the type after the digits: `16u32`, `0x04usize`.
    let v = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
    ]
    .iter()
    .find_map(|t| v.strip_suffix(t.as_bytes()))
    .unwrap_or(v);
    let (body, hex) = match v.strip_prefix(b"0x") {
        Some(hex) => (hex, true),
        None => (v, false),
    };
    let digit = |b: &u8| {
        if hex {
            b.is_ascii_hexdigit()
        } else {
            b.is_ascii_digit()
        }
    };
    v.len() < 8 && !body.is_empty() && body.iter().all(digit)
}

/// An expression rather than a literal in any language: a call, an index,
/// a generic, a path (`sys::FLAG`), a pointer or reference (`*mut`, `&cfg`).
pub(super) fn is_code(v: &[u8]) -> bool {
    v.iter().any(|b| matches!(b, b'(' | b'[' | b'<'))
        || contains(v, b"::")
        || contains(v, b"->")
        || (matches!(v.first(), Some(b'*' | b'&'))
            && v.get(1)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && v[1..]
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'_'))
}

/// Letters and underscores only: an identifier without digits.
pub(super) fn is_plain_word(v: &[u8]) -> bool {
    v.iter().all(|b| b.is_ascii_alphabetic() || *b == b'_')
}

/// A bare value that reads as a reference in code: a path through fields
/// (`os.environ`, `settings.DB_PASSWORD`) or a variable named after the key
/// (`password=password`, `token=auth_token`). Not applied to environment
/// files, where `PASSWORD=my.pass.word` is a literal.
pub(super) fn is_code_ref(v: &[u8], word: &[u8]) -> bool {
    if is_code(v) {
        return true;
    }
    let ident_start = |b: &u8| b.is_ascii_alphabetic() || *b == b'_' || *b == b'$';
    let ident_char = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$';
    let dotted = v.contains(&b'.')
        && v.split(|&b| b == b'.')
            .all(|seg| seg.first().is_some_and(ident_start) && seg.iter().all(ident_char));
    if dotted {
        return true;
    }
    let plain_ident = v.first().is_some_and(ident_start) && v.iter().all(ident_char);
    if !plain_ident {
        return false;
    }
    // `generate_private_key: x25519_generate_private_key` names the key as
    // a word of its own; `password123` only starts with it.
    let lower = v.to_ascii_lowercase();
    let word = word.to_ascii_lowercase();
    let own_word = lower == word
        || lower
            .strip_suffix(word.as_slice())
            .is_some_and(|r| r.ends_with(b"_"))
        || lower
            .strip_prefix(word.as_slice())
            .is_some_and(|r| r.starts_with(b"_"));
    own_word || (!v.iter().any(u8::is_ascii_digit) && contains_ci(v, &word))
}

/// Whether a bare value that sits in running text (`Password: …` followed
/// by more words, `--token …`) has the texture of a credential rather than
/// of a word.
pub(super) fn looks_secret(v: &[u8]) -> bool {
    if is_screaming_snake(v) {
        return false;
    }
    let digit = v.iter().any(u8::is_ascii_digit);
    let symbol = v.iter().any(|b| {
        b.is_ascii_punctuation() && !matches!(b, b'-' | b'_' | b'.' | b',' | b'\'' | b'?' | b'!')
    });
    let lower = v.iter().any(u8::is_ascii_lowercase);
    // Words and CamelCase names put a lower-case letter after each capital
    // (`JavaScript`, `ZeroizeOnDrop`); random strings and base64 soon have
    // two capitals in a row.
    (v.len() >= 4 && (digit || symbol)) || (v.len() >= 10 && lower && random_enough(v))
}

/// `WINBIO_PRESENCE_0`, `IKEEXT_CREDENTIALS0`: a constant's name, whose
/// digits do not make it random.
pub(super) fn is_screaming_snake(v: &[u8]) -> bool {
    v.contains(&b'_')
        && v.split(|&b| b == b'_').all(|seg| {
            !seg.is_empty()
                && (seg.iter().all(u8::is_ascii_digit)
                    || (seg[0].is_ascii_uppercase()
                        && seg
                            .iter()
                            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())))
        })
}

/// Whether a long alphanumeric body is random rather than an identifier
/// such as `AutoModelForSequenceClassification`: random bodies almost
/// always hold a digit or two capitals in a row.
pub(super) fn random_enough(v: &[u8]) -> bool {
    v.iter().any(u8::is_ascii_digit)
        || v.windows(2)
            .any(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase())
}

pub(super) fn starts_with_ci(hay: &[u8], prefix: &[u8]) -> bool {
    hay.len() >= prefix.len() && hay[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders() {
        for v in [
            "",
            "****",
            "${DB_PASSWORD}",
            "$PASSWORD",
            "$(cat pw.txt)",
            "${{ secrets.TOKEN }}",
            "%PASSWORD%",
            "%s",
            "<your-password>",
            "{{ vault_pw }}",
            "{password}",
            "{password!r",
            "[REDACTED:token]",
            "your_api_key_here",
            "YOUR-TOKEN",
            "xxxxxxxx",
            "sk-...",
            "|",
            "-",
        ] {
            assert!(is_placeholder(v.as_bytes()), "{v:?}");
        }
        for v in ["hunter2", "s3cr3t!", "xoxo1", "P@ssw0rd"] {
            assert!(!is_placeholder(v.as_bytes()), "{v:?}");
        }
    }

    #[test]
    fn code_refs() {
        for v in [
            "os.environ[",
            "getenv(",
            "self.password",
            "settings.DB_PASSWORD",
            "password",
            "db_password",
            "Foo::new",
            "*mut",
            "&cfg",
        ] {
            assert!(is_code_ref(v.as_bytes(), b"password"), "{v:?}");
        }
        for v in ["hunter2", "password123", "correcthorse"] {
            assert!(!is_code_ref(v.as_bytes(), b"password"), "{v:?}");
        }
    }

    #[test]
    fn secret_texture() {
        for v in ["hunter2", "p@ss", "dXNlcjpwYXNz", "aBCdefGHijKLmnop"] {
            assert!(looks_secret(v.as_bytes()), "{v:?}");
        }
        for v in [
            "reset",
            "8",
            "v2",
            "well-known",
            "settings",
            "Hunter",
            "e.g.",
            "JavaScript",
            "ZeroizeOnDrop",
        ] {
            assert!(!looks_secret(v.as_bytes()), "{v:?}");
        }
    }

    #[test]
    fn numbers_and_types() {
        for v in ["7", "0x04", "277", "1234567", "16u32", "0x10usize"] {
            assert!(is_small_number(v.as_bytes()), "{v:?}");
        }
        for v in ["12345678", "0x", "0xZZ", "12a"] {
            assert!(!is_small_number(v.as_bytes()), "{v:?}");
        }
        for v in ["u8", "__u32", "usize", "i128", "f64", "c_char", "string"] {
            assert!(is_stop_word(v.as_bytes()), "{v:?}");
        }
        for v in ["u7", "hunter2", "c_", "s3cret"] {
            assert!(!is_stop_word(v.as_bytes()), "{v:?}");
        }
    }

    #[test]
    fn randomness() {
        assert!(random_enough(b"aZ3kq"));
        assert!(random_enough(b"abcDEfg"));
        assert!(!random_enough(b"AutoModelForSequenceClassification"));
    }
}
