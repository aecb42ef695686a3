//! "This file is still the one I read up to offset N": the resume point
//! that capture's cursor, the usage summaries and the audit scan keep per
//! transcript.
//!
//! A transcript is only appended to, so a resume point stays good while the
//! file is no shorter than it and its first bytes are the ones read. A file
//! replaced under the same path (a copy, an edit by hand, a client that
//! rewrites it) fails one test or the other and is read again from 0.
//!
//! Each user keeps its own head length and hash function: both are in
//! files already on users' disks, where a different hash would look like a
//! replaced file and cost a full re-read.

use serde::{Deserialize, Serialize};
use std::io::{self, Read};
use std::path::Path;

/// How a user fingerprints a file's head.
#[derive(Debug, Clone, Copy)]
pub struct Head {
    /// The fingerprint covers at most this many of the file's first bytes.
    pub bytes: u64,
    pub hash: fn(&[u8]) -> u64,
}

impl Head {
    /// The hash of the first `len` bytes of `path` and how many there were
    /// (fewer when the file is shorter).
    pub fn of(&self, path: &Path, len: u64) -> io::Result<(u64, u64)> {
        let mut f = crate::fsutil::confine::open_regular(path)?;
        let mut buf = vec![0u8; len as usize];
        let mut n = 0;
        while n < buf.len() {
            match f.read(&mut buf[n..])? {
                0 => break,
                k => n += k,
            }
        }
        Ok(((self.hash)(&buf[..n]), n as u64))
    }
}

/// A resume point in one file, and what says the file is still that file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadMark {
    /// Just past the last complete line read.
    pub offset: u64,
    /// [`Head::hash`] of the file's first `head_len` bytes.
    pub head: u64,
    /// `min(offset, Head::bytes)`: only bytes that were read are vouched for.
    pub head_len: u64,
}

impl ReadMark {
    /// Whether `path`, now `size` bytes long, still holds what was read up
    /// to [`offset`](Self::offset). An empty head vouches for nothing and
    /// so matches any file.
    pub fn holds(&self, path: &Path, size: u64, head: &Head) -> bool {
        self.offset <= size
            && (self.head_len == 0
                || head
                    .of(path, self.head_len)
                    .is_ok_and(|(h, n)| n == self.head_len && h == self.head))
    }

    /// Moves the mark to `offset`. The head is hashed again only when its
    /// length changes, from `known` (the file's first bytes as the caller
    /// read them) when it holds enough, else from the file.
    pub fn advance(
        &mut self,
        path: &Path,
        offset: u64,
        head: &Head,
        known: &[u8],
    ) -> io::Result<()> {
        self.offset = offset;
        let want = head.bytes.min(offset);
        if want != self.head_len {
            (self.head, self.head_len) = match known.get(..want as usize) {
                Some(bytes) => ((head.hash)(bytes), want),
                None => head.of(path, want)?,
            };
        }
        Ok(())
    }

    /// Back to the start: the next read covers the whole file.
    pub fn reset(&mut self) {
        *self = ReadMark::default();
    }
}

/// What `stat` says of a file, compared to skip unchanged files without
/// opening them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileStat {
    pub size: u64,
    /// Nanoseconds since the epoch (0 before it, or when unknown).
    pub mtime_ns: u64,
    /// 0 where the platform has no inode numbers.
    pub ino: u64,
}

impl FileStat {
    pub fn of(path: &Path) -> Option<FileStat> {
        std::fs::metadata(path).ok().map(|m| FileStat::from(&m))
    }
}

impl From<&std::fs::Metadata> for FileStat {
    fn from(m: &std::fs::Metadata) -> FileStat {
        #[cfg(unix)]
        let ino = std::os::unix::fs::MetadataExt::ino(m);
        #[cfg(not(unix))]
        let ino = 0;
        FileStat {
            size: m.len(),
            mtime_ns: mtime_ns(m),
            ino,
        }
    }
}

/// A file's modification time in nanoseconds since the epoch (0 before it
/// or when the platform does not say).
pub fn mtime_ns(m: &std::fs::Metadata) -> u64 {
    m.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const HEAD: Head = Head {
        bytes: 8,
        hash: crate::hash::fnv1a,
    };

    #[test]
    fn an_appended_file_holds_and_a_replaced_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, "abc\n").unwrap();
        let mut m = ReadMark::default();
        m.advance(&p, 4, &HEAD, b"").unwrap();
        assert_eq!((m.offset, m.head_len), (4, 4));
        assert_eq!(m.head, crate::hash::fnv1a(b"abc\n"));

        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"defghij\n")
            .unwrap();
        assert!(m.holds(&p, 12, &HEAD));
        // Known bytes save the open; the head stops growing at its cap.
        m.advance(&p, 12, &HEAD, b"abc\ndefghij\n").unwrap();
        assert_eq!((m.offset, m.head_len), (12, 8));
        assert_eq!(m.head, crate::hash::fnv1a(b"abc\ndefg"));
        let same = m.head;
        m.advance(&p, 12, &HEAD, b"").unwrap();
        assert_eq!(m.head, same, "not hashed again");

        std::fs::write(&p, "xbc\ndefghij\n").unwrap();
        assert!(!m.holds(&p, 12, &HEAD), "same size, other head");
        assert!(!m.holds(&p, 11, &HEAD), "shorter than the offset");
        assert!(!m.holds(&dir.path().join("gone"), 12, &HEAD));
        m.reset();
        assert!(m.holds(&p, 0, &HEAD), "an empty mark vouches for nothing");
    }

    #[test]
    fn stat_sees_size_and_time() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, "12345").unwrap();
        let s = FileStat::of(&p).unwrap();
        assert_eq!(s.size, 5);
        assert!(s.mtime_ns > 0);
        #[cfg(unix)]
        assert_ne!(s.ino, 0);
        assert_eq!(FileStat::of(&dir.path().join("none")), None);
    }
}
