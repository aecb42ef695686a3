//! One forward pass over a transcript, from where this session's last
//! capture stopped to the end of what the client has written: the turns to
//! capture, and the main thread's context fill for the guard.
//!
//! The cursor (`<state>/capture/<session>.json`) holds the byte offset the
//! last pass stopped at and a fingerprint of the file's first bytes. A
//! later pass starts there, so a turn whose Stop never came (the user
//! interrupted it, the client crashed) is captured by the next Stop, and no
//! turn twice. Without a cursor (the session's first Stop, a replaced
//! file), the pass reads back from the end, further each time
//! (`FIRST_PASS_STEPS`), until the last prompt is within what it read, and
//! keeps only the last turn: what came before happened before cairn was
//! there.

use super::turns::{Builder, Carried, SubagentFiles};
use crate::extract::digest::{FileChange, RequestKind, Todo, ToolError, Turn};
use crate::fsutil::atomic_write_private_unsynced;
use crate::transcript::mark::{Head, ReadMark};
use crate::transcript::{StopContext, StopTracker, StreamReader};
use serde::{Deserialize, Serialize};
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// How far back a pass without a cursor reads, in turn, until the last
/// prompt is within it (a tool may print megabytes into one turn).
const FIRST_PASS_STEPS: [u64; 3] = [256 << 10, 4 << 20, 64 << 20];
/// A subagent transcript is read up to this size.
const SUBAGENT_BYTES: u64 = 32 << 20;
/// Furthest back a cursor is left for a call waiting for its result.
const REWIND_BYTES: u64 = 4 << 20;
/// Most bytes a pass reads on from a cursor.
const BACKLOG_BYTES: u64 = 64 << 20;
/// The cursor's fingerprint: FNV-1a of the file's first 4 KiB.
pub const HEAD: Head = Head {
    bytes: 4096,
    hash: crate::hash::fnv1a,
};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    pub transcript: PathBuf,
    /// Where the next pass starts, and the fingerprint ([`HEAD`]) that
    /// says the file is still the one read.
    #[serde(flatten)]
    pub mark: ReadMark,
    /// The folder the session started in (its first record's `cwd`; empty
    /// when the head names none), so later passes need not read the head
    /// for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_cwd: Option<String>,
    /// The last turn read ended with the user declining or stopping a
    /// call: the next request is their correction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
    /// Errors the turns read so far ended with: a success in a later turn
    /// resolves the bullet an earlier Stop wrote as unresolved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open: Vec<Carried>,
    /// The question the last answer read ended on: the next request may
    /// be the user's choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<String>,
    /// The model's task list (TaskCreate, TaskUpdate) so far: a later
    /// pass's update names a task by id only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<CarriedTask>,
    /// The options the last answer read offered to pick from (label,
    /// gist): the next request may be a bare "B".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offered: Vec<(String, String)>,
    /// The checklist steps of the skills loaded so far: a later to-do
    /// copied from one is the skill's process, not the project's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skill_steps: Vec<String>,
}

/// What a pass takes over from the one before (see [`Cursor`]).
#[derive(Default)]
struct Carry {
    refused: bool,
    open: Vec<Carried>,
    asked: Option<String>,
    tasks: Vec<CarriedTask>,
    offered: Vec<(String, String)>,
    skill_steps: Vec<String>,
}

/// One task of [`Cursor::tasks`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarriedTask {
    pub id: String,
    #[serde(flatten)]
    pub todo: Todo,
}

/// What one pass found.
#[derive(Debug, Default)]
pub struct Pass {
    pub turns: Vec<Turn>,
    /// The main thread's context as the pass left it, for the guard (its
    /// `usage` is `None` after a compaction); `None` when the pass saw no
    /// usage at all.
    pub context: Option<StopContext>,
    /// Where the next pass starts.
    pub cursor: Cursor,
    pub lines_skipped: u64,
    /// No cursor could be used: only the last turn was kept.
    pub first: bool,
    /// Bytes between a cursor too far behind and the tail that was read.
    pub skipped_bytes: u64,
}

fn cursor_path(state_dir: &Path, session_id: &str) -> Option<PathBuf> {
    crate::session_id::file_stem(session_id)
        .map(|id| crate::state_layout::capture(state_dir).join(format!("{id}.json")))
}

pub fn load_cursor(state_dir: &Path, session_id: &str) -> Option<Cursor> {
    let p = cursor_path(state_dir, session_id)?;
    let bytes = crate::fsutil::confine::read_regular(&p, 1 << 18).ok()?;
    serde_json::from_slice(&bytes).ok()
}

pub fn save_cursor(state_dir: &Path, session_id: &str, c: &Cursor) -> anyhow::Result<()> {
    let Some(p) = cursor_path(state_dir, session_id) else {
        return Ok(());
    };
    atomic_write_private_unsynced(&p, &serde_json::to_vec(c)?)?;
    Ok(())
}

/// Cursors untouched this long are removed: the client deletes its
/// transcripts after 30 days, so there is nothing left to resume from, and
/// one file per session would otherwise pile up for ever.
pub const CURSOR_KEEP: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// Removes the cursors last written more than `max_age` ago; returns how
/// many went. Ages are the file system's (system clock), as for the
/// guard's state. Errors are ignored: this is tidying.
pub fn prune_cursors(state_dir: &Path, max_age: std::time::Duration) -> usize {
    crate::fsutil::remove_older_than(&crate::state_layout::capture(state_dir), max_age, |n| {
        n.ends_with(".json")
    })
}

/// The folder the session started in: the first `cwd` among the records
/// of the file's first [`CWD_SCAN_BYTES`].
fn session_cwd(path: &Path) -> Option<String> {
    let mut reader = StreamReader::open(path, 0).ok()?;
    let mut found = None;
    let _ = reader.for_each_record(|end, rec| {
        if let Some(c) = rec.cwd.as_deref().filter(|c| c.starts_with('/')) {
            found = Some(c.to_owned());
            return ControlFlow::Break(());
        }
        if end > CWD_SCAN_BYTES {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    found
}

const CWD_SCAN_BYTES: u64 = 64 << 10;

/// Subagent transcripts beside the session's: `<session>/subagents/agent-<id>.jsonl`
/// (2.1.x) or `agent-<id>.jsonl` in the same folder (2.0.x).
pub struct SubagentDir {
    pub dir: PathBuf,
    pub session_id: String,
    /// Where the session's folder is for this hook (see `Builder::rebased_onto`).
    pub here: Option<PathBuf>,
    pub session_cwd: Option<String>,
    /// Each agent's files, read once per pass whatever the number of
    /// results naming it; and the bytes still allowed for reading them.
    cache: std::cell::RefCell<std::collections::HashMap<String, Work>>,
    budget: std::cell::Cell<u64>,
}

/// Bytes of subagent transcripts one pass may read in all.
const SUBAGENT_BUDGET: u64 = 64 << 20;

/// What one subagent's transcript says it did.
#[derive(Debug, Clone, Default)]
struct Work {
    files: Vec<FileChange>,
    /// Its errors nothing resolved.
    errors: Vec<ToolError>,
}

impl SubagentFiles for SubagentDir {
    fn files(&self, agent_id: &str) -> Vec<FileChange> {
        self.work(agent_id).files
    }

    fn errors(&self, agent_id: &str) -> Vec<ToolError> {
        self.work(agent_id).errors
    }
}

impl SubagentDir {
    fn work(&self, agent_id: &str) -> Work {
        if let Some(known) = self.cache.borrow().get(agent_id) {
            return known.clone();
        }
        let work = self.read(agent_id);
        self.cache
            .borrow_mut()
            .insert(agent_id.to_owned(), work.clone());
        work
    }

    fn read(&self, agent_id: &str) -> Work {
        let name = format!("agent-{agent_id}.jsonl");
        let mut candidates = Vec::new();
        if crate::session_id::is_plain(&self.session_id) {
            candidates.push(
                self.dir
                    .join(&self.session_id)
                    .join("subagents")
                    .join(&name),
            );
        }
        candidates.push(self.dir.join(&name));
        for p in candidates {
            match subagent_files(
                &p,
                self.session_cwd.as_deref(),
                self.here.as_deref(),
                &self.budget,
            ) {
                Ok(work) => return work,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(_) => return Work::default(),
            }
        }
        Work::default()
    }
}

fn subagent_files(
    path: &Path,
    session_cwd: Option<&str>,
    here: Option<&Path>,
    budget: &std::cell::Cell<u64>,
) -> io::Result<Work> {
    let size = crate::fsutil::confine::open_regular(path)?
        .metadata()?
        .len();
    if size > SUBAGENT_BYTES || size > budget.get() {
        return Ok(Work::default());
    }
    budget.set(budget.get() - size);
    let mut reader = StreamReader::open(path, 0)?;
    let mut b = Builder::for_subagent().rebased_onto(session_cwd, here);
    reader.for_each_record(|_, rec| {
        b.feed(&rec);
        ControlFlow::Continue(())
    })?;
    let (files, errors) = super::turns::subagent_work(b.finish());
    Ok(Work { files, errors })
}

/// Reads `path` from the session's cursor (or, without one, its tail) to
/// the end. Does not save the cursor: the caller does once the turns are
/// safe (spooled).
pub fn run(
    path: &Path,
    cursor: Option<&Cursor>,
    session_id: &str,
    here: Option<&Path>,
) -> io::Result<Pass> {
    let size = crate::fsutil::confine::open_regular(path)?
        .metadata()?
        .len();
    let resume = cursor.filter(|c| c.transcript == path && c.mark.holds(path, size, &HEAD));
    let start_cwd = match resume.and_then(|c| c.session_cwd.clone()) {
        Some(known) => Some(known).filter(|c| !c.is_empty()),
        None => session_cwd(path),
    };
    let subagents = SubagentDir {
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        session_id: session_id.to_owned(),
        here: here.map(Path::to_path_buf),
        session_cwd: start_cwd.clone(),
        cache: Default::default(),
        budget: std::cell::Cell::new(SUBAGENT_BUDGET),
    };
    // Paths are rebased only for a transcript recorded on another machine
    // (a replay): here, the folder it names is the folder it means, and a
    // `cd` into another repository must not move its files into this one.
    let rebase_from = start_cwd.as_deref().filter(|c| !Path::new(c).is_dir());
    let here = (rebase_from, here.filter(|_| rebase_from.is_some()));
    // A cursor far behind (hooks that were off, or kept failing): the
    // backlog is not read in one hook; the tail is, as for a first Stop.
    let resume = resume.filter(|c| size - c.mark.offset <= BACKLOG_BYTES);
    let skipped = match (cursor, resume) {
        (Some(c), None) if c.transcript == path && c.mark.offset <= size => size - c.mark.offset,
        _ => 0,
    };
    let mut pass = match resume {
        Some(c) => read_from(
            path,
            c.mark.offset,
            &subagents,
            here,
            Carry {
                refused: c.refused,
                open: c.open.clone(),
                asked: c.asked.clone(),
                tasks: c.tasks.clone(),
                offered: c.offered.clone(),
                skill_steps: c.skill_steps.clone(),
            },
        )?,
        None => {
            let mut p = Pass::default();
            let mut whole = false;
            for back in FIRST_PASS_STEPS {
                let from = size.saturating_sub(back);
                p = read_from(path, from, &subagents, here, Carry::default())?;
                whole = back >= size;
                if p.turns.iter().any(|t| t.prompted) || whole {
                    break;
                }
            }
            // Read from the start, the pass saw the whole session: every
            // turn is new (turns interrupted before this first Stop too).
            // Else only the last turn with a request, and what followed it.
            if whole {
                // Not the turns of an earlier day, though: a resumed session
                // may start as a copy of the history another session
                // already captured.
                let day = |t: &crate::extract::digest::Turn| {
                    t.timestamp
                        .as_deref()
                        .and_then(|ts| ts.get(..10))
                        .map(str::to_owned)
                };
                let last_day = p.turns.iter().rev().find(|t| t.prompted).and_then(day);
                p.turns.retain(|t| {
                    (t.prompted || !t.is_empty()) && (day(t).is_none() || day(t) == last_day)
                });
            } else if let Some(at) = p.turns.iter().rposition(|t| t.prompted) {
                p.turns.drain(..at);
                // cairn's first look at this session: its goal.
                p.turns[0].first = p.turns[0].kind != RequestKind::None;
            } else {
                p.turns.clear();
            }
            p.first = true;
            p
        }
    };
    pass.skipped_bytes = skipped;
    // From the mark checked above: a head of the same length is not read
    // twice.
    let mut mark = resume.map_or_else(ReadMark::default, |c| c.mark);
    mark.advance(path, pass.cursor.mark.offset, &HEAD, &[])?;
    pass.cursor.transcript = path.to_path_buf();
    pass.cursor.mark = mark;
    pass.cursor.session_cwd = Some(start_cwd.unwrap_or_default());
    Ok(pass)
}

fn read_from(
    path: &Path,
    offset: u64,
    subagents: &SubagentDir,
    (session_cwd, here): (Option<&str>, Option<&Path>),
    carry: Carry,
) -> io::Result<Pass> {
    let Carry {
        refused,
        open: carried,
        asked,
        tasks,
        offered,
        skill_steps,
    } = carry;
    let mut reader = StreamReader::open(path, offset)?;
    if offset > 0 {
        // Mid-file without a cursor: the first line is likely a piece of
        // one; start at the next full line.
        let mut f = crate::fsutil::confine::open_regular(path)?;
        f.seek(SeekFrom::Start(offset - 1))?;
        let mut one = [0u8; 1];
        f.read_exact(&mut one)?;
        if one[0] != b'\n' {
            let _ = reader.next_line()?;
        }
    }
    let mut b = Builder::new(subagents)
        .rebased_onto(session_cwd, here)
        .after_refusal(refused)
        .carrying(carried)
        .asked_before(asked)
        .with_tasks(tasks.into_iter().map(|t| (t.id, t.todo)).collect())
        .offered_before(offered)
        .with_skill_steps(skill_steps);
    if offset == 0 {
        b = b.starts_session();
    }
    let mut start = reader.offset();
    let mut stop = StopTracker::default();
    reader.for_each_record(|end, rec| {
        b.feed_at(start, &rec);
        stop.feed(end, &rec);
        start = end;
        ControlFlow::Continue(())
    })?;
    let refused = b.ends_refused();
    let end = reader.offset();
    let context = stop.finish(end, b.context().flatten().cloned());
    // A call of the last turn still without its result: the next pass
    // starts at it (within reason), so the result finds its call.
    let next = b
        .pending_since()
        .filter(|at| end - at <= REWIND_BYTES)
        .unwrap_or(end);
    // A turn still waiting on a call has not said its last word.
    let asked = if next == end { b.ends_asking() } else { None };
    let offered = if next == end {
        b.ends_offering()
    } else {
        Vec::new()
    };
    let skill_steps = b.skill_steps().to_vec();
    let (turns, open, tasks) = b.finish_with_tasks();
    Ok(Pass {
        turns,
        context,
        cursor: Cursor {
            mark: ReadMark {
                offset: next,
                ..ReadMark::default()
            },
            refused,
            open,
            asked,
            tasks: tasks
                .into_iter()
                .map(|(id, todo)| CarriedTask { id, todo })
                .collect(),
            offered,
            skill_steps,
            ..Default::default()
        },
        lines_skipped: reader.lines_skipped(),
        first: false,
        skipped_bytes: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::digest::Change;
    use serde_json::json;
    use std::io::Write;

    /// The cursor's fields moved into `ReadMark`; the file keeps its shape.
    #[test]
    fn a_cursor_file_keeps_its_shape() {
        let text =
            r#"{"transcript":"/t.jsonl","offset":10,"head":123,"head_len":10,"session_cwd":""}"#;
        let c: Cursor = serde_json::from_str(text).unwrap();
        assert_eq!(
            c.mark,
            ReadMark {
                offset: 10,
                head: 123,
                head_len: 10
            }
        );
        assert_eq!(serde_json::to_string(&c).unwrap(), text);
    }

    #[test]
    fn old_cursors_are_pruned_and_recent_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cursor::default();
        save_cursor(dir.path(), "old-session", &c).unwrap();
        save_cursor(dir.path(), "new-session", &c).unwrap();
        let old = dir.path().join("capture/old-session.json");
        let month_ago =
            std::time::SystemTime::now() - std::time::Duration::from_secs(31 * 24 * 3600);
        std::fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(month_ago)
            .unwrap();
        assert_eq!(prune_cursors(dir.path(), CURSOR_KEEP), 1);
        assert!(!old.exists());
        assert!(load_cursor(dir.path(), "new-session").is_some());
        assert_eq!(prune_cursors(dir.path(), CURSOR_KEEP), 0);
    }

    fn append(path: &Path, lines: &[serde_json::Value]) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
    }

    fn prompt(text: &str) -> serde_json::Value {
        json!({"type":"user","message":{"role":"user","content":text},"timestamp":"2026-12-01T10:00:00Z"})
    }

    fn edit(id: &str, path: &str) -> serde_json::Value {
        json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":id,"name":"Edit","input":{"file_path":path}}]}})
    }

    fn done(id: &str) -> serde_json::Value {
        json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":id,"content":"ok"}]},"toolUseResult":{}})
    }

    #[test]
    fn a_result_written_after_the_stop_finds_its_call_in_the_next_pass() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.jsonl");
        append(&t, &[prompt("fix a.rs"), edit("1", "/p/a.rs")]);
        let p1 = run(&t, None, "s", None).unwrap();
        assert!(p1.turns[0].files.is_empty(), "no result yet");
        append(
            &t,
            &[
                done("1"),
                prompt("fix b.rs too"),
                edit("2", "/p/b.rs"),
                done("2"),
            ],
        );
        let p2 = run(&t, Some(&p1.cursor), "s", None).unwrap();
        let files: Vec<&str> = p2
            .turns
            .iter()
            .flat_map(|t| t.files.iter().map(|f| f.path.as_str()))
            .collect();
        assert_eq!(files, ["/p/a.rs", "/p/b.rs"]);
        assert_eq!(p2.turns[1].request, "fix b.rs too");
        // Nothing pending any more: the next pass reads nothing again.
        let p3 = run(&t, Some(&p2.cursor), "s", None).unwrap();
        assert!(p3.turns.is_empty(), "{:?}", p3.turns);
    }

    /// Newer clients' tasks are made in one Stop and updated by id in a
    /// later one: the cursor carries the list, so the update finds them.
    #[test]
    fn a_task_made_before_this_pass_is_updated_by_its_id() {
        use crate::extract::digest::TodoStatus;
        let call = |id: &str, name: &str, input: serde_json::Value| json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":id,"name":name,"input":input}]}});
        let said = |id: &str, text: &str| json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":id,"content":text}]}});
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.jsonl");
        append(
            &t,
            &[
                prompt("plan the fix"),
                call("1", "TaskCreate", json!({"subject":"Write the manifest"})),
                said("1", "Task #1 created successfully: Write the manifest"),
                call("2", "TaskCreate", json!({"subject":"Drop the old file"})),
                said("2", "Task #2 created successfully: Drop the old file"),
            ],
        );
        let p1 = run(&t, None, "s", None).unwrap();
        assert_eq!(p1.cursor.tasks.len(), 2);
        append(
            &t,
            &[
                prompt("go on"),
                call(
                    "3",
                    "TaskUpdate",
                    json!({"taskId":"1","status":"completed"}),
                ),
                done("3"),
                call("4", "TaskUpdate", json!({"taskId":"2","status":"deleted"})),
                done("4"),
            ],
        );
        // Through the cursor file, as between two hooks.
        save_cursor(dir.path(), "s", &p1.cursor).unwrap();
        let c = load_cursor(dir.path(), "s").unwrap();
        let p2 = run(&t, Some(&c), "s", None).unwrap();
        let todos: Vec<(&str, TodoStatus)> = p2.turns[0]
            .todos
            .iter()
            .map(|t| (t.text.as_str(), t.status))
            .collect();
        assert_eq!(todos, [("Write the manifest", TodoStatus::Completed)]);
    }

    /// The options an answer offered wait in the cursor: the bare "B" of
    /// the next Stop picks one of them.
    #[test]
    fn a_pick_in_the_next_stop_finds_the_options_offered() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.jsonl");
        append(
            &t,
            &[
                prompt("how should the tabs work?"),
                answer(
                    "1",
                    "Two ways:\n\n**A. Keep four tabs** — visuals only.\n**B. Three tabs, results inline** — merge Scan and Extract.\n\nWhich do you want?",
                    0,
                ),
            ],
        );
        let p1 = run(&t, None, "s", None).unwrap();
        assert_eq!(p1.cursor.offered.len(), 2);
        save_cursor(dir.path(), "s", &p1.cursor).unwrap();
        let c = load_cursor(dir.path(), "s").unwrap();
        append(&t, &[prompt("B"), answer("2", "Going with B.", 0)]);
        let p2 = run(&t, Some(&c), "s", None).unwrap();
        assert_eq!(
            p2.turns[0].picked.as_deref(),
            Some("B — Three tabs, results inline")
        );
        assert_eq!(
            p2.turns[0].replies_to.as_deref(),
            Some("Which do you want?")
        );
    }

    fn answer(id: &str, text: &str, fill: u64) -> serde_json::Value {
        json!({"type":"assistant","requestId":format!("r{id}"),"message":{"id":format!("m{id}"),"model":"claude-sonnet-4-5",
            "content":[{"type":"text","text":text}],
            "usage":{"input_tokens":10,"cache_read_input_tokens":fill,"output_tokens":60}}})
    }

    /// Issue 11: capture does not wait for the final answer's line; the
    /// Stop hands the answer over in its payload. When that line lands
    /// after the pass, the next pass reads it before the next prompt: it is
    /// neither a turn of its own, nor the next turn's answer, and nothing
    /// of either turn is lost.
    #[test]
    fn regression_issue_11_an_answer_written_after_the_pass_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.jsonl");
        append(
            &t,
            &[
                prompt("fix a.rs"),
                answer("0", "On it.", 20_000),
                edit("1", "/p/a.rs"),
                done("1"),
            ],
        );
        let p1 = run(&t, None, "s", None).unwrap();
        assert_eq!(p1.turns.len(), 1);
        assert_eq!(p1.turns[0].request, "fix a.rs");
        assert_eq!(p1.turns[0].files[0].path, "/p/a.rs");
        let seen = p1.context.as_ref().unwrap();
        assert!(
            seen.answer_pending,
            "the tool result follows the last usage"
        );
        assert_eq!(seen.usage.as_ref().unwrap().cache_read_input_tokens, 20_000);
        let after = [edit("1", "/p/a.rs"), done("1")];
        let after: usize = after.iter().map(|l| l.to_string().len() + 1).sum();
        assert_eq!(seen.bytes_after, after as u64);

        append(
            &t,
            &[
                answer("2", "Fixed a.rs.", 20_500),
                prompt("fix b.rs too"),
                edit("3", "/p/b.rs"),
                done("3"),
                answer("4", "Fixed b.rs.", 21_000),
            ],
        );
        let p2 = run(&t, Some(&p1.cursor), "s", None).unwrap();
        let kept: Vec<_> = p2.turns.iter().filter(|t| !t.is_empty()).collect();
        assert_eq!(kept.len(), 1, "{:?}", p2.turns);
        assert_eq!(kept[0].request, "fix b.rs too");
        assert_eq!(kept[0].answer, "Fixed b.rs.");
        let files: Vec<&str> = kept[0].files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(files, ["/p/b.rs"]);
        let seen = p2.context.unwrap();
        assert!(!seen.answer_pending);
        assert_eq!(seen.bytes_after, 0);
        assert_eq!(seen.usage.unwrap().text, "Fixed b.rs.");
    }

    #[test]
    fn a_first_pass_over_the_whole_file_keeps_every_turn() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.jsonl");
        append(
            &t,
            &[
                prompt("set up the CI workflow"),
                edit("1", "/p/ci.yml"),
                done("1"),
                prompt("[Request interrupted by user]"),
                prompt("now also add caching"),
            ],
        );
        let p = run(&t, None, "s", None).unwrap();
        assert_eq!(p.turns.len(), 2, "{:?}", p.turns);
        assert!(p.turns[0].first);
        assert!(p.turns[0].interrupted);
        assert_eq!(p.turns[0].files[0].change, Change::Updated);
    }

    #[test]
    fn a_replaced_file_is_read_as_new_and_a_cursor_far_behind_reads_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.jsonl");
        append(&t, &[prompt("one"), edit("1", "/p/a.rs"), done("1")]);
        let p1 = run(&t, None, "s", None).unwrap();
        std::fs::remove_file(&t).unwrap();
        append(
            &t,
            &[
                prompt("two, in a new file"),
                edit("2", "/p/b.rs"),
                done("2"),
            ],
        );
        let p2 = run(&t, Some(&p1.cursor), "s", None).unwrap();
        assert_eq!(p2.turns.len(), 1);
        assert_eq!(p2.turns[0].request, "two, in a new file");

        let far = Cursor {
            mark: ReadMark {
                offset: 0,
                ..p2.cursor.mark
            },
            ..p2.cursor.clone()
        };
        let big = "x".repeat(1 << 20);
        for i in 0..70 {
            append(&t, &[prompt(&format!("turn {i} {big}"))]);
        }
        append(&t, &[prompt("the last one")]);
        let p3 = run(&t, Some(&far), "s", None).unwrap();
        assert!(p3.skipped_bytes > BACKLOG_BYTES, "{}", p3.skipped_bytes);
        assert_eq!(p3.turns.last().unwrap().request, "the last one");
    }

    #[test]
    fn a_resumed_copy_of_earlier_days_is_not_captured_again() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.jsonl");
        let at = |text: &str, ts: &str| json!({"type":"user","message":{"role":"user","content":text},"timestamp":ts});
        append(
            &t,
            &[
                at("yesterday's work", "2026-11-30T10:00:00Z"),
                edit("1", "/p/old.rs"),
                done("1"),
                at("today's request", "2026-12-01T09:00:00Z"),
            ],
        );
        let p = run(&t, None, "s", None).unwrap();
        let requests: Vec<&str> = p.turns.iter().map(|t| t.request.as_str()).collect();
        assert_eq!(requests, ["today's request"]);
    }
}
