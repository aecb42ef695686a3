//! Reading Claude Code transcripts (JSONL): records, the tail reader used by
//! hooks, and the resumable forward reader used by aggregation.
//!
//! A transcript is one JSON record per line, appended while the session
//! runs. Lines may be torn (still being written), megabytes long, not UTF-8
//! or of types this version does not know: they are skipped, never an error.
//! A line counts once it ends with `\n`; anything after the last `\n` is
//! "not there yet" for every reader here.
//!
//! - **tail** ([`last_exchange`], [`last_context_usage`]): backwards in
//!   64 KiB blocks, at most 4 MiB, so hooks cost the same on any file size.
//! - **full** ([`last_exchange_full`], [`last_context_usage_full`]): the
//!   same answers from a forward read of the whole file; the test oracle.
//! - **stream** ([`StreamReader`]): forwards from a remembered offset.

mod exchange;
mod history;
mod record;
mod stream;
mod tail;
pub mod text;
mod usage;

#[cfg(test)]
mod tests;

pub use exchange::{
    MAX_ASSISTANT_CHARS, MAX_DIGEST_ENTRIES, MAX_DIGEST_ENTRY_CHARS, MAX_HUMAN_CHARS,
};
pub use history::{PRIOR_MAX_BYTES, Prior, prior_turns, prior_turns_with};
pub use record::{
    Block, Content, Message, Record, Todo, ToolInput, ToolResult, ToolUse, ToolUseResult,
};
pub use stream::{Line, StreamReader};
pub use tail::{BLOCK_SIZE, MAX_LINE, MAX_TAIL_BYTES, TailOptions, TailStats};
pub use text::truncate_tail;
pub use usage::{ContextUsage, Usage, UsageDedup, UsageEntry, dedup_usage};

use exchange::{Item, Selector};
use serde::{Deserialize, Serialize};

use std::io;
use std::ops::ControlFlow;
use std::path::Path;
use usage::ContextEvent;

/// What the turn did, built from the structured records (tool calls and
/// results) rather than from prose, so the offline extractor has facts.
/// Each list keeps first-seen order without duplicates, at most
/// [`MAX_DIGEST_ENTRIES`] entries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    /// Files read (`Read`), unless the read failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_read: Vec<String>,
    /// Files changed by Edit/MultiEdit/NotebookEdit, unless the edit failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_edited: Vec<String>,
    /// Files created or overwritten by Write, unless the write failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_written: Vec<String>,
    /// First line of each Bash command.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    /// First line of each failed tool call, prefixed by the tool's name
    /// when the call is in the same turn (`Read: File does not exist.`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_errors: Vec<String>,
    /// Description of each subagent started (Agent/Task).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<String>,
}

/// The last human prompt of a transcript and what answered it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    /// What the human typed (system reminders removed; a slash command as
    /// `/name args`); at most [`MAX_HUMAN_CHARS`] characters once
    /// [`Exchange::sanitized`], whole as the readers return it.
    pub human: String,
    /// The main thread's text after the prompt, blocks joined by a blank
    /// line; [`Exchange::sanitized`] keeps its last [`MAX_ASSISTANT_CHARS`].
    /// Empty when the model has not written any text yet.
    pub assistant: String,
    /// RFC 3339 timestamp of the turn (the human prompt's record), if known.
    pub timestamp: Option<String>,
    pub digest: Digest,
}

/// Tail-read `path` for the last exchange. `None` when there is no human
/// text within the last [`MAX_TAIL_BYTES`]. A missing file is an error
/// (`NotFound`).
pub fn last_exchange(path: &Path) -> io::Result<Option<Exchange>> {
    last_exchange_with(path, &TailOptions::default()).map(|(ex, _)| ex)
}

/// [`last_exchange`] with explicit limits, reporting what it read.
pub fn last_exchange_with(
    path: &Path,
    opts: &TailOptions,
) -> io::Result<(Option<Exchange>, TailStats)> {
    let mut file = crate::fsutil::confine::open_regular(path)?;
    let mut stats = TailStats::default();
    let mut unparsed = 0;
    // Items after the prompt, last first.
    let mut after: Vec<Item> = Vec::new();
    let mut line_items: Vec<Item> = Vec::new();
    let mut selector = Selector::default();
    let mut prompt = None;
    tail::for_each_line_rev(&mut file, opts, &mut stats, |line| {
        let Some(rec) = Record::parse(line) else {
            unparsed += 1;
            return ControlFlow::Continue(());
        };
        line_items.clear();
        exchange::items_of(&rec, &mut line_items);
        while let Some(item) = line_items.pop() {
            if selector.is_last_prompt(&item) {
                prompt = Some(item);
                return ControlFlow::Break(());
            }
            after.push(item);
        }
        ControlFlow::Continue(())
    })?;
    stats.lines_skipped += unparsed;
    let Some(Item::Prompt(prompt)) = prompt else {
        return Ok((None, stats));
    };
    after.reverse();
    Ok((Some(exchange::build(prompt, &after)), stats))
}

/// The same answer as [`last_exchange`] from a forward read of the whole
/// file, with no byte budget (lines over [`MAX_LINE`] are still skipped).
pub fn last_exchange_full(path: &Path) -> io::Result<Option<Exchange>> {
    last_exchange_full_with(path, &TailOptions::default())
}

/// [`last_exchange_full`] with the line limit of `opts` (the other limits
/// do not apply to a full read).
pub fn last_exchange_full_with(path: &Path, opts: &TailOptions) -> io::Result<Option<Exchange>> {
    let mut reader = StreamReader::open(path, 0)?.with_max_line(opts.max_line);
    let mut items = Vec::new();
    reader.for_each_record(|_, rec| {
        exchange::items_of(&rec, &mut items);
        ControlFlow::Continue(())
    })?;
    let mut selector = Selector::default();
    let Some(at) = items.iter().rposition(|item| selector.is_last_prompt(item)) else {
        return Ok(None);
    };
    let mut rest = items.split_off(at);
    let Item::Prompt(prompt) = rest.remove(0) else {
        unreachable!("the selector only accepts prompts")
    };
    Ok(Some(exchange::build(prompt, &rest)))
}

/// Tail-read `path` for the main thread's last usage: what fills the
/// context now. `None` when a compaction came after it, or there is none
/// within the last [`MAX_TAIL_BYTES`].
pub fn last_context_usage(path: &Path) -> io::Result<Option<ContextUsage>> {
    last_context_usage_with(path, &TailOptions::default()).map(|(u, _)| u)
}

/// [`last_context_usage`] with explicit limits, reporting what it read.
pub fn last_context_usage_with(
    path: &Path,
    opts: &TailOptions,
) -> io::Result<(Option<ContextUsage>, TailStats)> {
    let mut file = crate::fsutil::confine::open_regular(path)?;
    let mut stats = TailStats::default();
    let mut unparsed = 0;
    let mut found: Option<ContextEvent> = None;
    tail::for_each_line_rev(&mut file, opts, &mut stats, |line| {
        let Some(rec) = Record::parse(line) else {
            unparsed += 1;
            return ControlFlow::Continue(());
        };
        found = usage::context_event(&rec);
        if found.is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    stats.lines_skipped += unparsed;
    Ok(match found {
        Some(ContextEvent::Usage(u)) => (Some(u), stats),
        _ => (None, stats),
    })
}

/// What the guard reads at a `Stop`: the main thread's last usage, and
/// whether a main-thread user record (a prompt or a tool result) comes
/// after it. The client writes the transcript asynchronously, so the hook
/// can run before the answer it is about reaches the file; a user record
/// after the last usage is the sign of that.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StopContext {
    pub usage: Option<ContextUsage>,
    pub answer_pending: bool,
    /// [`settle_at_stop`] gave up waiting: what it returns may be the
    /// previous turn.
    pub timed_out: bool,
}

/// Tail-reads `path` for [`StopContext`], within the default limits.
pub fn context_at_stop(path: &Path) -> io::Result<StopContext> {
    let mut file = crate::fsutil::confine::open_regular(path)?;
    let mut stats = TailStats::default();
    let mut out = StopContext::default();
    tail::for_each_line_rev(&mut file, &TailOptions::default(), &mut stats, |line| {
        let Some(rec) = Record::parse(line) else {
            return ControlFlow::Continue(());
        };
        if rec.is_user()
            && !rec.is_sidechain
            && !rec.is_meta
            && !rec.is_compact_summary
            && !rec.is_visible_in_transcript_only
        {
            out.answer_pending = true;
            return ControlFlow::Continue(());
        }
        match usage::context_event(&rec) {
            Some(ContextEvent::Usage(u)) => {
                out.usage = Some(u);
                ControlFlow::Break(())
            }
            Some(ContextEvent::Reset) => ControlFlow::Break(()),
            None => ControlFlow::Continue(()),
        }
    })?;
    Ok(out)
}

/// How long a Stop waits for the client to write the answer it names (or,
/// with no answer named, for the file itself on a session's first turn).
/// Late answers land 85–170 ms after the hook starts with the real client;
/// only a Stop whose turn is not in the file yet pays the wait.
pub const SETTLE_WAIT: std::time::Duration = std::time::Duration::from_millis(500);
const SETTLE_POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// [`context_at_stop`] once the file holds the turn a Stop is about. The
/// client writes transcripts asynchronously and a Stop can come a few
/// milliseconds before the final answer's line (or the prompt's, or, on a
/// session's first turn, before the file exists): read
/// then, the memory would log the previous prompt and the guard judge the
/// previous call's fill. So this polls (at most [`SETTLE_WAIT`]) while a
/// user record follows the last usage, or while `answer` (the payload's
/// `last_assistant_message`) is not the text of that usage's line. Past the
/// limit it returns what the file holds.
pub fn settle_at_stop(path: &Path, answer: Option<&str>) -> io::Result<StopContext> {
    let answer = answer.map(str::trim).filter(|a| !a.is_empty());
    // No text to wait for: the client ended the turn on a tool call and
    // never writes an answer line for it (issue 11), so waiting would only
    // ever run to the limit.
    if answer.is_none() {
        // Only the file itself may still be missing (a session's first
        // turn): that, and nothing else, is worth the bounded wait.
        let deadline = std::time::Instant::now() + SETTLE_WAIT;
        loop {
            match context_at_stop(path) {
                Err(e)
                    if e.kind() == io::ErrorKind::NotFound
                        && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(SETTLE_POLL)
                }
                other => return other,
            }
        }
    }
    let settled = |c: &StopContext| {
        if c.answer_pending {
            return false;
        }
        match (answer, c.usage.as_ref().map(|u| u.text.trim())) {
            // A tool call or thinking line says nothing about the text.
            (Some(a), Some(t)) if !t.is_empty() => a.contains(t) || t.contains(a),
            _ => true,
        }
    };
    let deadline = std::time::Instant::now() + SETTLE_WAIT;
    loop {
        let seen = context_at_stop(path);
        // On a session's first turn the file itself may not exist yet; any
        // other error will not go away by waiting.
        if let Err(e) = &seen
            && e.kind() != io::ErrorKind::NotFound
        {
            return seen;
        }
        let done = std::time::Instant::now() >= deadline;
        match seen {
            Ok(c) if settled(&c) => return Ok(c),
            Ok(c) if done => {
                return Ok(StopContext {
                    timed_out: true,
                    ..c
                });
            }
            Err(e) if done => return Err(e),
            _ => std::thread::sleep(SETTLE_POLL),
        }
    }
}

/// The same answer as [`last_context_usage`] from a forward read of the
/// whole file.
pub fn last_context_usage_full(path: &Path) -> io::Result<Option<ContextUsage>> {
    last_context_usage_full_with(path, &TailOptions::default())
}

/// [`last_context_usage_full`] with the line limit of `opts`.
pub fn last_context_usage_full_with(
    path: &Path,
    opts: &TailOptions,
) -> io::Result<Option<ContextUsage>> {
    let mut reader = StreamReader::open(path, 0)?.with_max_line(opts.max_line);
    let mut last = None;
    reader.for_each_record(|_, rec| {
        match usage::context_event(&rec) {
            Some(ContextEvent::Reset) => last = None,
            Some(ContextEvent::Usage(u)) => last = Some(u),
            None => {}
        }
        ControlFlow::Continue(())
    })?;
    Ok(last)
}

/// Every usage line from `offset` on, with the offset to resume from. Feed
/// the entries to a [`UsageDedup`] (kept across resumes) to count each API
/// response once.
pub fn usage_entries_from(path: &Path, offset: u64) -> io::Result<(Vec<UsageEntry>, u64)> {
    let mut reader = StreamReader::open(path, offset)?;
    let mut out = Vec::new();
    reader.for_each_record(|_, rec| {
        out.extend(UsageEntry::from_record(&rec));
        ControlFlow::Continue(())
    })?;
    Ok((out, reader.offset()))
}

/// What `rec` says about the main thread's context, read forwards:
/// `Some(None)` for a compaction (the fill starts again), `Some(Some(u))`
/// for a main-thread usage, `None` for a record that says nothing of it.
pub fn context_change(rec: &Record) -> Option<Option<ContextUsage>> {
    match usage::context_event(rec)? {
        ContextEvent::Reset => Some(None),
        ContextEvent::Usage(u) => Some(Some(u)),
    }
}
