//! A session id and the one rule that turns it into a file name, for every
//! per-session file under `<state>/` (capture cursor and lock, offline
//! to-dos, guard ratchet, status line cache, usage ledger).

use std::borrow::Cow;

/// The client's session id, trimmed and not empty.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionId<'a>(&'a str);

impl<'a> SessionId<'a> {
    /// `None` for an empty (or blank) id.
    pub fn new(raw: &'a str) -> Option<SessionId<'a>> {
        let id = raw.trim();
        (!id.is_empty()).then_some(SessionId(id))
    }

    pub fn as_str(&self) -> &'a str {
        self.0
    }

    /// A plain token: ASCII letters, digits, `-` and `_`, at most 128
    /// bytes. Every id the client makes (a UUID) is one; such an id may
    /// be a path component as it is.
    pub fn is_plain(&self) -> bool {
        is_plain(self.0)
    }

    /// The stem of this session's files: the id when [plain](Self::is_plain),
    /// else `h-` and a hash of it, so no payload (a `/`, `..`, a kilobyte of
    /// junk) names a file outside its folder.
    pub fn file_stem(&self) -> Cow<'a, str> {
        if self.is_plain() {
            Cow::Borrowed(self.0)
        } else {
            Cow::Owned(format!("h-{:016x}", crate::hash::fnv1a(self.0.as_bytes())))
        }
    }
}

/// A plain token (see [`SessionId::is_plain`]), as it is: a raw id that
/// passes may be joined to a path.
pub fn is_plain(raw: &str) -> bool {
    !raw.is_empty()
        && raw.len() <= 128
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// [`SessionId::file_stem`] of a raw id; `None` for an empty one.
pub fn file_stem(raw: &str) -> Option<String> {
    SessionId::new(raw).map(|id| id.file_stem().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uuid_is_its_own_stem_and_anything_else_is_hashed() {
        let uuid = "592d55cf-11d7-4a1b-99fa-bf536f8ae9a6";
        assert_eq!(file_stem(uuid).as_deref(), Some(uuid));
        assert_eq!(file_stem(&format!("  {uuid}\n")).as_deref(), Some(uuid));
        for odd in ["../../etc/passwd", "a/b", "a.b", &"x".repeat(129)] {
            let stem = file_stem(odd).unwrap();
            assert!(stem.starts_with("h-") && stem.len() == 18, "{odd}: {stem}");
        }
        assert_ne!(file_stem("a/b"), file_stem("a/c"));
        assert_eq!(file_stem(""), None);
        assert_eq!(file_stem("  "), None);
    }
}
