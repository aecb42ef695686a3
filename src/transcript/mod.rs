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
pub mod mark;
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
pub use usage::{ContextUsage, Usage, UsageEntry};

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

/// The client's compaction call keeps its transcript beside the session's
/// subagents (`agent-acompact-<hex>.jsonl`, an empty `agentType`): its
/// tokens are the main thread's, and it is no agent the user started.
pub fn is_compaction_agent(agent_id: &str) -> bool {
    agent_id.starts_with("acompact")
}

/// [`is_compaction_agent`] for a transcript's file name.
pub fn is_compaction_file(file_name: &str) -> bool {
    file_name
        .strip_prefix("agent-")
        .is_some_and(is_compaction_agent)
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
/// what follows it. The client writes the transcript asynchronously, so the
/// hook can run before the answer it is about reaches the file; a user
/// record after the last usage is the sign of that.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StopContext {
    /// `None`: no usage within reach, or a compaction after the last one.
    pub usage: Option<ContextUsage>,
    /// A main-thread prompt or tool result follows that usage: the call
    /// that answers it is not in the file (yet).
    pub answer_pending: bool,
    /// Bytes of the complete lines after the usage's line (a lower bound
    /// when a line was too long to read): what the next call's input holds
    /// beyond the usage's own context and output.
    pub bytes_after: u64,
    /// [`settle_at_stop`] gave up waiting: what it returns may be the
    /// previous turn.
    pub timed_out: bool,
}

/// A record that makes a Stop's answer pending: a main-thread prompt or
/// tool result (hook feedback, the client's own nudges, compaction
/// summaries and transcript-only records are not sent as the user's turn).
fn is_main_user_turn(rec: &Record) -> bool {
    rec.is_user()
        && !rec.is_sidechain
        && !rec.is_meta
        && !rec.is_compact_summary
        && !rec.is_visible_in_transcript_only
}

/// An assistant record of the main thread the client wrote itself in place
/// of the model's answer (an API error, a synthetic reply).
fn is_synthetic_answer(rec: &Record) -> bool {
    rec.is_assistant() && !rec.is_sidechain && (rec.is_synthetic() || rec.is_api_error_message)
}

/// Tail-reads `path` for [`StopContext`], within the default limits.
pub fn context_at_stop(path: &Path) -> io::Result<StopContext> {
    let mut file = crate::fsutil::confine::open_regular(path)?;
    let mut stats = TailStats::default();
    let mut out = StopContext::default();
    // A synthetic reply (an API error the client shows as the answer) after
    // the last prompt is that prompt's answer: it carries no usage, and no
    // usage line will follow it.
    let mut answered = false;
    tail::for_each_line_rev(&mut file, &TailOptions::default(), &mut stats, |line| {
        let Some(rec) = Record::parse(line) else {
            out.bytes_after += line.len() as u64 + 1;
            return ControlFlow::Continue(());
        };
        match usage::context_event(&rec) {
            Some(ContextEvent::Usage(u)) => {
                out.usage = Some(u);
                return ControlFlow::Break(());
            }
            Some(ContextEvent::Reset) => return ControlFlow::Break(()),
            None => {}
        }
        if !out.answer_pending && is_synthetic_answer(&rec) {
            answered = true;
        }
        out.answer_pending |= is_main_user_turn(&rec) && !answered;
        out.bytes_after += line.len() as u64 + 1;
        ControlFlow::Continue(())
    })?;
    // The reader skips lines over MAX_LINE without handing them over; each
    // is at least that long.
    out.bytes_after += stats.lines_skipped * MAX_LINE as u64;
    Ok(out)
}

/// [`StopContext`] built forwards, from the records a reader goes through
/// anyway (capture's pass): no second read of the file.
#[derive(Debug, Clone, Default)]
pub struct StopTracker {
    /// Offset just past the last usage (or compaction) line, once one was fed.
    after_usage: Option<u64>,
    answer_pending: bool,
}

impl StopTracker {
    /// `end`: the offset just past `rec`'s line.
    pub fn feed(&mut self, end: u64, rec: &Record) {
        if usage::says_context(rec) {
            self.after_usage = Some(end);
            self.answer_pending = false;
        } else if self.after_usage.is_some() && is_main_user_turn(rec) {
            self.answer_pending = true;
        } else if is_synthetic_answer(rec) {
            self.answer_pending = false;
        }
    }

    /// What was fed up to `end`, with `usage` (the same reader's
    /// [`context_change`] fold). `None` when no usage or compaction was fed.
    pub fn finish(&self, end: u64, usage: Option<ContextUsage>) -> Option<StopContext> {
        let after = self.after_usage?;
        Some(StopContext {
            usage,
            answer_pending: self.answer_pending,
            bytes_after: end.saturating_sub(after),
            timed_out: false,
        })
    }
}

/// Whether `usage`'s line is the answer a Stop names (`answer`, the
/// payload's `last_assistant_message`). A line without text (thinking, a
/// tool call) says nothing either way.
pub fn names_answer(usage: Option<&ContextUsage>, answer: &str) -> bool {
    let answer = answer.trim();
    match usage.map(|u| u.text.trim()) {
        Some(t) if !t.is_empty() => answer.contains(t) || t.contains(answer),
        _ => true,
    }
}

/// How long a Stop waits for the client to write what it needs: the file
/// itself on a session's first turn, or the answer the guard needs to see.
/// Late answers land 85–170 ms after the hook starts with the real client.
pub const SETTLE_WAIT: std::time::Duration = std::time::Duration::from_millis(500);
const SETTLE_POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// Waits (at most [`SETTLE_WAIT`]) while `path` does not exist: on a
/// session's first turn the client may fire Stop before it creates the
/// file. Returns at once when it exists, or for any other answer.
pub fn await_file(path: &Path) {
    // No folder for it: the client is not writing this session at all
    // (`--no-session-persistence`, a stale path), and waiting would only
    // ever run to the limit.
    if !path.parent().is_some_and(Path::is_dir) {
        return;
    }
    let deadline = std::time::Instant::now() + SETTLE_WAIT;
    while std::time::Instant::now() < deadline {
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => std::thread::sleep(SETTLE_POLL),
            _ => return,
        }
    }
}

/// [`context_at_stop`] once the file holds the answer a Stop names. The
/// client writes transcripts asynchronously and a Stop can come a few
/// milliseconds before the final answer's line: read then, the guard would
/// judge the previous call's fill. So this polls (at most [`SETTLE_WAIT`])
/// while a user record follows the last usage, or while `answer` (the
/// payload's `last_assistant_message`) is not the text of that usage's
/// line. Past the limit it returns what the file holds. No answer named:
/// one read, no wait (the turn ended on a tool call, for which the client
/// never writes an answer line, so waiting would only run to the limit).
pub fn settle_at_stop(path: &Path, answer: Option<&str>) -> io::Result<StopContext> {
    let Some(answer) = answer.map(str::trim).filter(|a| !a.is_empty()) else {
        return context_at_stop(path);
    };
    let settled = |c: &StopContext| !c.answer_pending && names_answer(c.usage.as_ref(), answer);
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

/// What `rec` says about the main thread's context, read forwards:
/// `Some(None)` for a compaction (the fill starts again), `Some(Some(u))`
/// for a main-thread usage, `None` for a record that says nothing of it.
pub fn context_change(rec: &Record) -> Option<Option<ContextUsage>> {
    match usage::context_event(rec)? {
        ContextEvent::Reset => Some(None),
        ContextEvent::Usage(u) => Some(Some(u)),
    }
}

#[cfg(test)]
mod stop_tests {
    use super::*;
    use std::io::Write;

    fn write(lines: &[String]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        let mut f = std::fs::File::create(&p).unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
        (dir, p)
    }

    fn usage_line(id: &str, text: &str, fill: u64) -> String {
        serde_json::json!({"type":"assistant","message":{"id":id,"model":"claude-sonnet-4-5",
            "content":[{"type":"text","text":text}],
            "usage":{"input_tokens":0,"cache_read_input_tokens":fill,"output_tokens":40}}})
        .to_string()
    }

    fn user_line(text: &str) -> String {
        serde_json::json!({"type":"user","message":{"role":"user","content":text}}).to_string()
    }

    fn meta_line(text: &str) -> String {
        serde_json::json!({"type":"user","isMeta":true,"message":{"role":"user","content":text}})
            .to_string()
    }

    fn forward(path: &Path) -> Option<StopContext> {
        let mut reader = StreamReader::open(path, 0).unwrap();
        let mut t = StopTracker::default();
        let mut last = None;
        reader
            .for_each_record(|end, rec| {
                t.feed(end, &rec);
                if let Some(c) = context_change(&rec) {
                    last = Some(c);
                }
                ControlFlow::Continue(())
            })
            .unwrap();
        t.finish(reader.offset(), last.flatten())
    }

    /// The capture's pass (forwards) and the guard's own tail read
    /// (backwards) must tell the guard the same thing.
    #[test]
    fn the_forward_tracker_agrees_with_the_tail_read() {
        let compact = serde_json::json!({"type":"system","subtype":"compact_boundary"}).to_string();
        let cases: Vec<Vec<String>> = vec![
            vec![user_line("a"), usage_line("m1", "done", 1000)],
            vec![
                usage_line("m1", "done", 1000),
                user_line("next"),
                "not json".into(),
            ],
            vec![
                usage_line("m1", "done", 1000),
                meta_line("[Your previous response had no visible output.]"),
            ],
            vec![usage_line("m1", "done", 1000), compact, user_line("after")],
            // An API error the client wrote as the answer: nothing to wait for.
            vec![
                usage_line("m1", "done", 1000),
                user_line("next"),
                synthetic_line("API Error: 401"),
            ],
        ];
        for lines in cases {
            let (_d, p) = write(&lines);
            let back = context_at_stop(&p).unwrap();
            assert_eq!(forward(&p), Some(back), "{lines:?}");
        }
        let (_d, p) = write(&[user_line("only a prompt")]);
        assert_eq!(forward(&p), None, "nothing said the fill");
        assert!(context_at_stop(&p).unwrap().answer_pending);
        let (_d, p) = write(&[user_line("a prompt"), synthetic_line("API Error: 401")]);
        assert!(!context_at_stop(&p).unwrap().answer_pending);
        let (_d, p) = write(&[synthetic_line("API Error: 401"), user_line("again")]);
        assert!(context_at_stop(&p).unwrap().answer_pending);
    }

    fn synthetic_line(text: &str) -> String {
        serde_json::json!({"type":"assistant","isApiErrorMessage":true,"message":{"model":"<synthetic>",
            "content":[{"type":"text","text":text}],
            "usage":{"input_tokens":0,"output_tokens":0}}})
        .to_string()
    }

    #[test]
    fn bytes_after_count_the_lines_after_the_usage() {
        let next = user_line("next");
        let (_d, p) = write(&[usage_line("m1", "done", 1000), next.clone()]);
        let c = context_at_stop(&p).unwrap();
        assert!(c.answer_pending);
        assert_eq!(c.bytes_after, next.len() as u64 + 1);
        // A line too long to read counts for at least its limit.
        let huge = user_line(&"x".repeat(MAX_LINE + 10));
        let (_d, p) = write(&[usage_line("m1", "done", 1000), huge]);
        assert!(context_at_stop(&p).unwrap().bytes_after >= MAX_LINE as u64);
    }

    #[test]
    fn a_text_line_names_the_answer_only_when_the_texts_agree() {
        let u = |t: &str| ContextUsage {
            text: t.into(),
            ..Default::default()
        };
        assert!(names_answer(Some(&u("Fixed.")), " Fixed. "));
        assert!(names_answer(
            Some(&u("Part two.")),
            "Part one.\n\nPart two."
        ));
        assert!(!names_answer(Some(&u("Something else.")), "Fixed."));
        assert!(names_answer(Some(&u("")), "Fixed."), "a tool call line");
        assert!(names_answer(None, "Fixed."));
    }

    #[test]
    fn no_answer_named_is_one_read_and_no_wait() {
        let (_d, p) = write(&[usage_line("m1", "Using Bash.", 1000), user_line("result")]);
        let c = settle_at_stop(&p, None).unwrap();
        assert!(c.answer_pending && !c.timed_out);
        let c = settle_at_stop(&p, Some("  ")).unwrap();
        assert!(!c.timed_out);
    }
}
