//! Whether a session already holds turns when a prompt arrives: the
//! question the refine gate asks on UserPromptSubmit ("the above", "yes
//! please", "fix these" point at something only when there is something
//! before them).
//!
//! The client writes the prompt's own user record before the hook runs
//! (2.1.x; older clients may not have created the file yet), so the current
//! prompt proves nothing. What does: an answer of the main thread, a
//! compaction summary, or the output of the user's own bash-mode command,
//! which the model sees as well. A `/clear` met before any of them means
//! the session starts over there. Read from the tail: on a later prompt the
//! previous answer is a few lines back, whatever the file's size.

use super::record::Record;
use super::tail::{self, TailOptions, TailStats};
use std::io;
use std::ops::ControlFlow;
use std::path::Path;

/// What the tail said about the turns before the current prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prior {
    /// The start of the file, or a `/clear`, came before any turn.
    Nothing,
    /// An answer, a compaction summary or bash-mode output came first.
    Turns,
    /// The budget ran out, or a line too long to read was skipped: it
    /// cannot be told.
    Unknown,
}

/// The gate reads at most this much: the previous answer is normally in
/// the last few kilobytes, and a doubt is an answer too.
pub const PRIOR_MAX_BYTES: u64 = 1024 * 1024;

/// Tail-reads `path` for turns before its last prompt. A missing file is an
/// error (`NotFound`): the caller decides what it means.
pub fn prior_turns(path: &Path) -> io::Result<(Prior, TailStats)> {
    let opts = TailOptions {
        max_bytes: PRIOR_MAX_BYTES,
        ..TailOptions::default()
    };
    prior_turns_with(path, &opts)
}

pub fn prior_turns_with(path: &Path, opts: &TailOptions) -> io::Result<(Prior, TailStats)> {
    let mut file = crate::fsutil::confine::open_regular(path)?;
    let mut stats = TailStats::default();
    let mut found = None;
    tail::for_each_line_rev(&mut file, opts, &mut stats, |line| {
        // Most lines are neither: skip them unparsed.
        let maybe = memchr::memmem::find(line, b"assistant").is_some()
            || memchr::memmem::find(line, b"<bash-").is_some()
            || memchr::memmem::find(line, b"isCompactSummary").is_some()
            || memchr::memmem::find(line, b"clear</command-name>").is_some();
        if !maybe {
            return ControlFlow::Continue(());
        }
        let Some(rec) = Record::parse(line) else {
            return ControlFlow::Continue(());
        };
        if rec.is_sidechain {
            return ControlFlow::Continue(());
        }
        // A synthetic answer (an interruption) still follows a prompt the
        // model saw.
        if rec.is_assistant() || rec.is_compact_summary {
            found = Some(Prior::Turns);
            return ControlFlow::Break(());
        }
        if rec.is_user() && !rec.is_meta {
            let text = rec.content().texts().next().unwrap_or("").trim_start();
            if text.starts_with("<bash-input>")
                || text.starts_with("<bash-stdout>")
                || text.starts_with("<bash-stderr>")
            {
                found = Some(Prior::Turns);
                return ControlFlow::Break(());
            }
            // 1.0.x wrote `/clear` as `clear`, later clients as `/clear`.
            if text.starts_with("<command-")
                && super::text::tag_content(text, "command-name")
                    .is_some_and(|n| matches!(n.trim(), "/clear" | "clear"))
            {
                found = Some(Prior::Nothing);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    let prior = match found {
        Some(p) => p,
        None if stats.hit_cap || stats.lines_skipped > 0 => Prior::Unknown,
        None => Prior::Nothing,
    };
    Ok((prior, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::Write;

    fn file_of(records: &[serde_json::Value]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for r in records {
            writeln!(f, "{r}").unwrap();
        }
        f
    }

    fn user(text: &str) -> serde_json::Value {
        json!({"type":"user","message":{"role":"user","content":text}})
    }

    fn answer(text: &str) -> serde_json::Value {
        json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":text}]}})
    }

    fn prior(records: &[serde_json::Value]) -> Prior {
        prior_turns(file_of(records).path()).unwrap().0
    }

    #[test]
    fn the_first_prompt_has_nothing_before_it() {
        assert_eq!(prior(&[]), Prior::Nothing);
        assert_eq!(
            prior(&[
                json!({"type":"file-history-snapshot","snapshot":{}}),
                json!({"type":"attachment","attachment":{"type":"hook_success"}}),
                user("Fix the bug"),
            ]),
            Prior::Nothing
        );
    }

    #[test]
    fn an_answer_a_summary_or_bash_output_is_a_turn() {
        assert_eq!(
            prior(&[user("a"), answer("done"), user("do the same here")]),
            Prior::Turns
        );
        assert_eq!(
            prior(&[
                json!({"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued…"}}),
                user("go on")
            ]),
            Prior::Turns
        );
        assert_eq!(
            prior(&[
                user("<bash-input>cargo test</bash-input>"),
                user("<bash-stdout>1 failed</bash-stdout>"),
                user("fix these"),
            ]),
            Prior::Turns
        );
    }

    #[test]
    fn a_clear_starts_over_and_sidechains_do_not_count() {
        assert_eq!(
            prior(&[
                user("a"),
                answer("done"),
                user(
                    "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"
                ),
                user("<local-command-stdout></local-command-stdout>"),
                user("fix these"),
            ]),
            Prior::Nothing
        );
        let mut side = answer("subagent");
        side["isSidechain"] = json!(true);
        assert_eq!(prior(&[user("a"), side, user("b")]), Prior::Nothing);
    }

    #[test]
    fn a_spent_budget_is_a_doubt_and_costs_what_it_says() {
        let mut records = vec![user("a"), answer("done")];
        for _ in 0..50 {
            records.push(json!({"type":"progress","data":"x".repeat(100)}));
        }
        records.push(user("b"));
        let f = file_of(&records);
        let opts = TailOptions {
            block_size: 256,
            max_bytes: 1024,
            max_line: 1 << 20,
        };
        let (p, stats) = prior_turns_with(f.path(), &opts).unwrap();
        assert_eq!(p, Prior::Unknown);
        assert!(stats.hit_cap && stats.bytes_read <= 1024);
        // The default budget reaches the answer.
        assert_eq!(prior_turns(f.path()).unwrap().0, Prior::Turns);
    }

    #[test]
    fn a_missing_file_is_not_found() {
        let e = prior_turns(Path::new("/nonexistent/cairn/t.jsonl")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }
}
