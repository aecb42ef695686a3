//! Reading a transcript forwards from a remembered byte offset.
//!
//! Aggregation reads each transcript once and then only what was appended
//! since, so a reader must stop cleanly before a line the client is still
//! writing and leave an offset that a later run resumes from.

use super::record::Record;
use super::tail::MAX_LINE;
use memchr::memchr;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

const READ_SIZE: usize = 64 * 1024;

/// A forward reader over the complete lines of a transcript.
///
/// ```no_run
/// # fn main() -> std::io::Result<()> {
/// use cairn::transcript::StreamReader;
/// let mut r = StreamReader::open("s.jsonl".as_ref(), 0)?;
/// while let Some(line) = r.next_line()? {
///     if let Some(rec) = line.record() {
///         println!("{} ends at {}", rec.kind(), line.end_offset);
///     }
/// }
/// let resume_at = r.offset(); // remember this for next time
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct StreamReader {
    file: File,
    buf: Vec<u8>,
    /// `buf[start..filled]` holds the current line's bytes read so far.
    start: usize,
    filled: usize,
    /// File offset of the current line's first byte: the resume point.
    offset: u64,
    /// Bytes of the current line already dropped because it is too long.
    dropped: u64,
    skipping: bool,
    /// Where in `buf[start..filled]` the search for `\n` resumes.
    scanned: usize,
    max_line: usize,
    lines_skipped: u64,
}

/// One complete line (without its `\n`) and the offset just past it.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub end_offset: u64,
    pub bytes: &'a [u8],
}

impl<'a> Line<'a> {
    /// `None` when the line is not a record (garbage, not UTF-8, …).
    pub fn record(&self) -> Option<Record<'a>> {
        Record::parse(self.bytes)
    }
}

impl StreamReader {
    /// Opens `path` and positions at `offset`, which should be 0 or an
    /// offset this reader returned (the start of a line). An offset past the
    /// end of the file (the file was replaced) yields no lines.
    pub fn open(path: &Path, offset: u64) -> io::Result<StreamReader> {
        let mut file = crate::fsutil::confine::open_regular(path)?;
        file.seek(SeekFrom::Start(offset))?;
        Ok(StreamReader {
            file,
            buf: Vec::new(),
            start: 0,
            filled: 0,
            offset,
            dropped: 0,
            skipping: false,
            scanned: 0,
            max_line: MAX_LINE,
            lines_skipped: 0,
        })
    }

    /// Lines longer than `max_line` bytes are skipped (default 1 MiB).
    pub fn with_max_line(mut self, max_line: usize) -> StreamReader {
        self.max_line = max_line;
        self
    }

    /// The offset to resume from: just past the last complete line returned
    /// or skipped, never inside an incomplete final line.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Lines skipped so far because they were longer than the limit.
    pub fn lines_skipped(&self) -> u64 {
        self.lines_skipped
    }

    /// The next complete line, or `None` at the end of what is complete. A
    /// later call reads again, so lines appended meanwhile are returned.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        loop {
            if let Some(i) = memchr(b'\n', &self.buf[self.scanned..self.filled]) {
                let nl = self.scanned + i;
                let line_len = self.dropped + (nl - self.start) as u64;
                let end_offset = self.offset + line_len + 1;
                let (a, skip) = (self.start, self.skipping || line_len > self.max_line as u64);
                self.start = nl + 1;
                self.scanned = self.start;
                self.offset = end_offset;
                self.dropped = 0;
                self.skipping = false;
                if skip {
                    self.lines_skipped += 1;
                    continue;
                }
                return Ok(Some(Line {
                    end_offset,
                    bytes: &self.buf[a..nl],
                }));
            }
            self.scanned = self.filled;
            let pending = self.filled - self.start;
            if self.skipping || self.dropped + pending as u64 > self.max_line as u64 {
                // Too long to ever be returned: keep only the count.
                self.skipping = true;
                self.dropped += pending as u64;
                self.start = 0;
                self.filled = 0;
                self.scanned = 0;
            } else if self.start > 0 {
                self.buf.copy_within(self.start..self.filled, 0);
                self.filled = pending;
                self.scanned = pending;
                self.start = 0;
            }
            if self.buf.len() - self.filled < READ_SIZE {
                self.buf.resize(self.filled + READ_SIZE, 0);
            }
            let n = loop {
                match self.file.read(&mut self.buf[self.filled..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            if n == 0 {
                return Ok(None);
            }
            self.filled += n;
        }
    }

    /// Calls `f` with each record and the offset just past its line; lines
    /// that are not records are skipped. Stops early when `f` breaks.
    pub fn for_each_record(
        &mut self,
        mut f: impl FnMut(u64, Record<'_>) -> ControlFlow<()>,
    ) -> io::Result<()> {
        while let Some(line) = self.next_line()? {
            if let Some(rec) = line.record()
                && f(line.end_offset, rec).is_break()
            {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn collect(path: &Path, offset: u64, max_line: usize) -> (Vec<(u64, Vec<u8>)>, u64) {
        let mut r = StreamReader::open(path, offset)
            .unwrap()
            .with_max_line(max_line);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.end_offset, l.bytes.to_vec()));
        }
        (out, r.offset())
    }

    #[test]
    fn stops_before_the_torn_line_and_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut f = File::create(&path).unwrap();
        f.write_all(b"one\ntwo\nthr").unwrap();
        let (lines, off) = collect(&path, 0, 100);
        assert_eq!(lines, [(4, b"one".to_vec()), (8, b"two".to_vec())]);
        assert_eq!(off, 8);

        f.write_all(b"ee\nfour").unwrap();
        let (lines, off) = collect(&path, off, 100);
        assert_eq!(lines, [(14, b"three".to_vec())]);
        assert_eq!(off, 14);
    }

    #[test]
    fn the_same_reader_sees_appended_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut f = File::create(&path).unwrap();
        f.write_all(b"a\nb").unwrap();
        let mut r = StreamReader::open(&path, 0).unwrap();
        assert_eq!(r.next_line().unwrap().unwrap().bytes, b"a");
        assert!(r.next_line().unwrap().is_none());
        f.write_all(b"c\n").unwrap();
        let l = r.next_line().unwrap().unwrap();
        assert_eq!((l.bytes, l.end_offset), (&b"bc"[..], 5));
    }

    #[test]
    fn long_lines_are_skipped_but_counted_in_offsets() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let big = vec![b'x'; 3 * READ_SIZE + 17];
        let mut content = b"short\n".to_vec();
        content.extend_from_slice(&big);
        content.extend_from_slice(b"\nafter\n");
        content.extend_from_slice(&big); // torn and too long
        std::fs::write(&path, &content).unwrap();
        let mut r = StreamReader::open(&path, 0).unwrap().with_max_line(1000);
        let mut got = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            got.push((l.end_offset, l.bytes.to_vec()));
        }
        let after_end = 6 + big.len() as u64 + 1 + 6;
        assert_eq!(
            got,
            [(6, b"short".to_vec()), (after_end, b"after".to_vec())]
        );
        assert_eq!(r.lines_skipped(), 1);
        // The torn long line is not consumed: a resume starts at it.
        assert_eq!(r.offset(), after_end);
    }

    #[test]
    fn offset_past_the_end_yields_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, b"a\n").unwrap();
        let (lines, off) = collect(&path, 50, 100);
        assert!(lines.is_empty());
        assert_eq!(off, 50);
    }

    #[test]
    fn for_each_record_skips_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(
            &path,
            b"{\"type\":\"user\"}\ngarbage\n\xff\xfe\n{\"type\":\"assistant\"}\n{\"type\":",
        )
        .unwrap();
        let mut r = StreamReader::open(&path, 0).unwrap();
        let mut kinds = Vec::new();
        r.for_each_record(|off, rec| {
            kinds.push((off, rec.kind().to_owned()));
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(kinds, [(16, "user".into()), (48, "assistant".into())]);
        assert_eq!(r.offset(), 48);
    }
}
