//! Reading a transcript backwards, line by line, under a byte budget.
//!
//! Hooks want the end of a file that only grows (tens of megabytes in long
//! sessions) within a few milliseconds, so the cost must depend on how far
//! back the answer is, never on the file's size.

use memchr::memrchr;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;

/// Knobs of the tail reader. The defaults are the production values; tests
/// shrink them to reach block and cap edges with small files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailOptions {
    /// Bytes per backward read.
    pub block_size: usize,
    /// At most this many bytes are read in total.
    pub max_bytes: u64,
    /// Longer lines (megabytes of tool output) are skipped unparsed. The
    /// full-parse oracles and the stream reader apply the same limit.
    pub max_line: usize,
}

pub const BLOCK_SIZE: usize = 64 * 1024;
pub const MAX_TAIL_BYTES: u64 = 4 * 1024 * 1024;
pub const MAX_LINE: usize = 1024 * 1024;

impl Default for TailOptions {
    fn default() -> Self {
        TailOptions {
            block_size: BLOCK_SIZE,
            max_bytes: MAX_TAIL_BYTES,
            max_line: MAX_LINE,
        }
    }
}

/// What a tail read cost, so callers can log it and tests can bound it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TailStats {
    pub bytes_read: u64,
    /// Complete lines handed to the parser.
    pub lines: u64,
    /// Lines skipped: too long, or not a record.
    pub lines_skipped: u64,
    /// The budget ran out before the answer was found.
    pub hit_cap: bool,
}

/// Calls `f` on each complete line of `file` (without its `\n`), last line
/// first, until `f` breaks, the start of the file, or the byte budget.
///
/// Bytes after the last `\n` are a line the client is still writing: they
/// are not there yet. A line cut by the budget is never delivered.
pub(super) fn for_each_line_rev(
    file: &mut File,
    opts: &TailOptions,
    stats: &mut TailStats,
    mut f: impl FnMut(&[u8]) -> ControlFlow<()>,
) -> io::Result<()> {
    let block_size = opts.block_size.max(1);
    let mut pos = file.metadata()?.len();
    let mut block = vec![0u8; block_size.min(pos as usize)];
    // The current line's bytes read so far, latest piece first. Pieces are
    // joined once the line's start is found, so each byte is copied once.
    let mut pieces: Vec<Vec<u8>> = Vec::new();
    let mut pending_len = 0usize;
    let mut oversize = false;
    let mut joined = Vec::new();
    // Until the first `\n` is seen we are inside the torn final line.
    let mut seen_newline = false;

    let mut deliver = |first: &[u8],
                       pieces: &mut Vec<Vec<u8>>,
                       pending_len: usize,
                       oversize: bool,
                       stats: &mut TailStats|
     -> ControlFlow<()> {
        let flow = if oversize || first.len() + pending_len > opts.max_line {
            stats.lines_skipped += 1;
            ControlFlow::Continue(())
        } else if pieces.is_empty() {
            stats.lines += 1;
            f(first)
        } else {
            joined.clear();
            joined.extend_from_slice(first);
            for p in pieces.iter().rev() {
                joined.extend_from_slice(p);
            }
            stats.lines += 1;
            f(&joined)
        };
        pieces.clear();
        flow
    };

    while pos > 0 {
        let budget = opts.max_bytes.saturating_sub(stats.bytes_read);
        if budget == 0 {
            stats.hit_cap = true;
            return Ok(());
        }
        let want = (block_size as u64).min(pos).min(budget) as usize;
        let start = pos - want as u64;
        file.seek(SeekFrom::Start(start))?;
        let buf = &mut block[..want];
        file.read_exact(buf)?;
        stats.bytes_read += want as u64;
        pos = start;

        let mut end = want;
        while let Some(nl) = memrchr(b'\n', &buf[..end]) {
            if seen_newline {
                let flow = deliver(&buf[nl + 1..end], &mut pieces, pending_len, oversize, stats);
                if flow.is_break() {
                    return Ok(());
                }
            }
            seen_newline = true;
            pending_len = 0;
            oversize = false;
            end = nl;
        }
        if seen_newline && !oversize {
            if pending_len + end > opts.max_line {
                oversize = true;
                pieces.clear();
            } else if end > 0 {
                pieces.push(buf[..end].to_vec());
            }
        }
        pending_len += end;
    }
    // The first line of the file starts at offset 0.
    if seen_newline {
        let _ = deliver(&[], &mut pieces, pending_len, oversize, stats);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn lines_rev(content: &[u8], opts: TailOptions) -> (Vec<Vec<u8>>, TailStats) {
        let mut tmp = tempfile::tempfile().unwrap();
        tmp.write_all(content).unwrap();
        let mut out = Vec::new();
        let mut stats = TailStats::default();
        for_each_line_rev(&mut tmp, &opts, &mut stats, |l| {
            out.push(l.to_vec());
            ControlFlow::Continue(())
        })
        .unwrap();
        (out, stats)
    }

    fn expected(content: &[u8], max_line: usize) -> Vec<Vec<u8>> {
        let Some(last_nl) = content.iter().rposition(|&b| b == b'\n') else {
            return vec![];
        };
        let mut v: Vec<Vec<u8>> = content[..last_nl]
            .split(|&b| b == b'\n')
            .filter(|l| l.len() <= max_line)
            .map(<[u8]>::to_vec)
            .collect();
        v.reverse();
        v
    }

    #[test]
    fn splits_like_a_forward_read_for_every_block_size() {
        let content = b"first\n\nthird line\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nlast\ntorn";
        for block_size in 1..40 {
            for max_line in 0..=33 {
                let opts = TailOptions {
                    block_size,
                    max_bytes: u64::MAX,
                    max_line,
                };
                let (got, stats) = lines_rev(content, opts);
                assert_eq!(
                    got,
                    expected(content, max_line),
                    "block {block_size} max {max_line}"
                );
                assert_eq!(stats.bytes_read, content.len() as u64);
                assert!(!stats.hit_cap);
            }
        }
    }

    #[test]
    fn no_newline_means_no_line() {
        let (got, _) = lines_rev(b"{\"type\":\"user\"}", TailOptions::default());
        assert!(got.is_empty());
        let (got, _) = lines_rev(b"", TailOptions::default());
        assert!(got.is_empty());
        let (got, _) = lines_rev(b"\n", TailOptions::default());
        assert_eq!(got, [b""]);
    }

    #[test]
    fn stops_at_the_budget_without_a_cut_line() {
        let content = b"aaaa\nbbbb\ncccc\n";
        let opts = TailOptions {
            block_size: 3,
            max_bytes: 8,
            max_line: 100,
        };
        let (got, stats) = lines_rev(content, opts);
        // 8 bytes from the end reach into "bbbb" but not its start.
        assert_eq!(got, [b"cccc"]);
        assert_eq!(stats.bytes_read, 8);
        assert!(stats.hit_cap);
    }

    #[test]
    fn break_stops_reading() {
        let mut tmp = tempfile::tempfile().unwrap();
        tmp.write_all(&b"x\n".repeat(100_000)).unwrap();
        let mut stats = TailStats::default();
        let mut n = 0;
        for_each_line_rev(&mut tmp, &TailOptions::default(), &mut stats, |_| {
            n += 1;
            if n == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
        assert_eq!(n, 3);
        assert_eq!(stats.bytes_read, BLOCK_SIZE as u64);
    }
}
