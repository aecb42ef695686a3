//! The turn model: records, in file order, folded into [`Turn`]s.
//!
//! One [`Builder`] sees each record once. A user prompt starts a turn; the
//! assistant's tool calls are held until their results say how they went
//! (a Write the client marks `update` is not a creation, a failed Edit
//! changed nothing, a rejected call is the user's choice, not an error); an
//! error is paired with what made the same thing work later in the turn.

use super::clean::{self, UserText};
use super::shell::{self, Effect};
use crate::extract::digest::{
    Action, ActionKind, Change, Check, Choice, Declined, EarlierFix, FileChange, RequestKind,
    Subagent, TicketSeen, Todo, TodoStatus, ToolError, Turn,
};
use crate::transcript::{Block, Content, ContextUsage, Record, ToolUse, ToolUseResult};
use std::collections::HashMap;

/// A tool call waiting for its result.
#[derive(Debug, Clone)]
struct Call {
    /// Byte offset of the record that made the call, and the turn it is in:
    /// a pass that ends before its result rewinds the cursor to it.
    at: u64,
    turn: usize,
    name: String,
    path: Option<String>,
    command: Option<String>,
    description: Option<String>,
    /// Task: the head of the prompt, which a 1.0.x client's sidechain
    /// starts with.
    prompt: Option<String>,
    plan: Option<String>,
    /// TaskCreate's subject; TaskUpdate's task id and new status.
    subject: Option<String>,
    task_id: Option<String>,
    status: Option<String>,
    /// What a WebSearch looked for, or the page a WebFetch read.
    web: Option<String>,
}

/// An error waiting for what resolves it.
/// An error a turn ended with, carried to the turns after it (and, in the
/// capture cursor, to the next Stop's pass): a later success of the same
/// program resolves it there.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Carried {
    pub key: String,
    pub tool: String,
    pub target: String,
}

/// Most carried errors kept (the newest).
const MAX_CARRIED: usize = 16;
/// Most tasks carried to the next pass (the newest).
pub const MAX_CARRIED_TASKS: usize = 32;

#[derive(Debug, Clone)]
struct OpenError {
    /// Index in `Turn::errors`.
    at: usize,
    key: String,
    /// How long the turn's change log was when it failed.
    files_then: usize,
    /// The last command since that changed the repository's state without
    /// touching a file (`git pull --rebase` after a refused push): what
    /// the same command succeeding next owes its success to.
    cured_by: Option<String>,
    /// A wrapper refused the command line (`rtk bun run test`): the
    /// program running at all, whatever it then reports, gets past it.
    refused: bool,
    /// What the failed command meant to delete (`rmdir a/node_modules`):
    /// a later command deleting it (`rm -rf a`) got past the failure.
    deletes: Vec<String>,
}

#[derive(Debug, Default)]
struct Current {
    turn: Turn,
    /// Texts after the last tool call: the final answer.
    texts_since_tool: Vec<String>,
    last_text: Option<String>,
    open_errors: Vec<OpenError>,
    /// The last thing that happened was the user declining a call: the
    /// interruption marker that follows is that, not an Esc.
    just_declined: bool,
    /// A slash command the client ran itself (its output came back and no
    /// model answered): not a turn.
    local_only: bool,
    saw_assistant: bool,
    /// Work done by subagents inside the main file (1.0.x clients) that no
    /// Task call claimed.
    sidechain: Subagent,
    /// Every path the turn changed, in order (capped): what changed between
    /// a failure and the success that resolved it.
    change_log: Vec<String>,
    /// Folders this turn's commands made (`mkdir -p x`): scratch the turn
    /// may remove again, which then changed nothing.
    made_dirs: Vec<String>,
    /// For each check, how long the change log was when it ran.
    check_marks: Vec<usize>,
    /// The turn created or updated a task (newer clients' to-do list).
    tasks_touched: bool,
    /// The last call failed: the model's next words may say why.
    awaiting_cause: Option<Failure>,
    /// Errors that are the model's own slips, dropped at the end of the
    /// turn unless the model said why they happened.
    slips: Vec<usize>,
    /// Checks run in the background: their outcome comes later (the
    /// task's output, the log file they write to).
    background: Vec<Background>,
    /// The last `git checkout --ours|--theirs …` that went through: how
    /// the conflicts a later commit settles were resolved.
    conflict_side: Option<String>,
    /// What the model had answered when a background task's end was told
    /// to it: its replies to that notice come after, and do not replace
    /// the answer to the request.
    answered: Vec<String>,
}

/// Answers kept from before background tasks' notices, per turn.
const MAX_ANSWERED: usize = 3;
/// Words an answer before such a notice needs to be kept as one.
const MIN_ANSWERED_WORDS: usize = 30;

/// A check the client ran in the background (`run_in_background`), whose
/// counts are read when its output is.
#[derive(Debug, Clone)]
struct Background {
    /// The client's id of the task (`Command running in background with
    /// ID: b61e392`).
    id: String,
    /// The file its output was sent to (`> scratch/sweep.log`).
    log: Option<String>,
    /// Index in `Turn::checks`.
    at: usize,
}

/// Background checks followed per turn.
const MAX_BACKGROUND: usize = 8;

/// A failure of the turn, by where it is kept.
#[derive(Debug, Clone, Copy)]
enum Failure {
    Error(usize),
    Check(usize),
    /// An edit whose text was not in the file: kept only with its cause,
    /// which the model may say only once it has read the file again (the
    /// reads it may still make).
    Slip(usize, u8),
}

/// A refused edit worth a line, unlike the model's other slips.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EditSlip {
    /// The file changed between the read and the edit.
    ChangedUnder,
    /// The text to replace is not in the file.
    NotFound,
}

fn edit_slip(tool: &str, text: &str) -> Option<EditSlip> {
    if !matches!(tool, "Edit" | "MultiEdit" | "Write" | "NotebookEdit") {
        return None;
    }
    if text.contains("File has been modified since read")
        || text.contains("File has been unexpectedly modified")
    {
        Some(EditSlip::ChangedUnder)
    } else if text.contains("String to replace not found") {
        Some(EditSlip::NotFound)
    } else {
        None
    }
}

/// The client's message up to its first full stop: what went wrong, not
/// its advice to the model ("Read it again before attempting to write
/// it.") nor the text it could not find.
fn first_sentence(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    match line.find(". ") {
        Some(at) => line[..=at].to_owned(),
        None => line.to_owned(),
    }
}

/// Entries a turn keeps while it is built, per list: bounds the work of a
/// transcript with a hundred thousand files in one `rm` (the digest keeps
/// fewer still once sanitized).
pub const BUILD_CAP: usize = 4 * crate::extract::digest::MAX_ENTRIES;

/// Findings kept per turn: the first ones, said before the work.
const MAX_FINDINGS: usize = 4;
/// Tracker issues looked up kept per turn, with their titles.
const MAX_TICKETS: usize = 16;
/// CI runs kept per turn.
const MAX_CI_RUNS: usize = 8;

impl Current {
    /// `path` written: a write of it that failed earlier in the turn (a
    /// hook's refusal, a permission) is got past, on a plain retry.
    fn written(&mut self, path: &str) {
        let failed_write = |key: &str| {
            key.split_once(':').is_some_and(|(tool, target)| {
                matches!(tool, "Write" | "Edit" | "MultiEdit" | "NotebookEdit") && target == path
            })
        };
        for o in self.open_errors.iter().filter(|o| failed_write(&o.key)) {
            if let Some(e) = self.turn.errors.get_mut(o.at) {
                e.resolved = true;
            }
        }
        self.open_errors.retain(|o| !failed_write(&o.key));
    }

    /// Files or folders a command removed.
    fn deleted(&mut self, paths: &[String]) {
        for p in paths {
            // Files this turn created inside a folder it removes are gone
            // with it.
            let inside = format!("{}/", p.trim_end_matches('/'));
            self.turn
                .files
                .retain(|f| !(f.change == Change::Created && f.path.starts_with(&inside)));
            // A folder this turn made and removes was scratch.
            if self
                .made_dirs
                .iter()
                .any(|m| m.trim_end_matches('/') == p.trim_end_matches('/'))
            {
                continue;
            }
            self.change(p, Change::Deleted, None);
        }
    }

    fn change(&mut self, path: &str, change: Change, from: Option<&str>) {
        note_change(&mut self.turn.files, path, change, from);
        if self.change_log.len() < BUILD_CAP {
            self.change_log.push(path.to_owned());
        }
    }
}

/// Sidechain threads kept per turn, and the records they are followed by:
/// bounds a transcript made of subagents.
const MAX_THREADS: usize = 64;
const MAX_THREAD_RECORDS: usize = 100_000;

/// A 1.0.x subagent inside the main file.
struct Thread {
    prompt: String,
    /// `None` once its Task call returned and took the work.
    builder: Option<Builder<'static>>,
}

/// The head of a subagent's prompt: enough to tell one Task's sidechain
/// from another's.
fn prompt_head(prompt: &str) -> String {
    prompt.trim().chars().take(200).collect()
}

/// What a subagent's own turns leave: the files it changed and the errors
/// nothing in its work resolved.
pub fn subagent_work(turns: Vec<Turn>) -> (Vec<FileChange>, Vec<ToolError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for t in turns {
        for f in t.all_files() {
            note_change(&mut files, &f.path, f.change, f.from.as_deref());
        }
        // A build or test run that failed and never passed afterwards is
        // what the subagent could not get past, as an error would be.
        let stuck = t.checks.iter().enumerate().filter(|(i, c)| {
            !c.ok
                && !t.checks[i + 1..]
                    .iter()
                    .any(|l| l.ok && l.command == c.command)
        });
        let mut stuck_errors: Vec<ToolError> = Vec::new();
        for (_, c) in stuck {
            if stuck_errors.iter().any(|e| e.target == c.command) {
                continue;
            }
            stuck_errors.push(ToolError {
                tool: "Bash".into(),
                target: c.command.clone(),
                message: c.summary.clone(),
                resolved: false,
                fixed_in: Vec::new(),
                resolved_by: None,
                cause: None,
            });
        }
        let unresolved = t.errors.into_iter().filter(|e| !e.resolved);
        for e in unresolved.chain(stuck_errors) {
            if errors.len() < crate::extract::digest::MAX_ENTRIES
                && !errors
                    .iter()
                    .any(|x: &ToolError| x.target == e.target && x.message == e.message)
            {
                errors.push(e);
            }
        }
    }
    (files, errors)
}

/// Reads a subagent's own transcript: its file changes and nothing else.
pub trait SubagentFiles {
    fn files(&self, agent_id: &str) -> Vec<FileChange>;
    /// Its errors that nothing in its own transcript resolved.
    fn errors(&self, agent_id: &str) -> Vec<ToolError> {
        let _ = agent_id;
        Vec::new()
    }
}

/// No subagent transcripts (tests, and a subagent transcript of its own).
pub struct NoSubagents;
impl SubagentFiles for NoSubagents {
    fn files(&self, _: &str) -> Vec<FileChange> {
        Vec::new()
    }
}

pub struct Builder<'s> {
    done: Vec<Turn>,
    cur: Option<Current>,
    calls: HashMap<String, Call>,
    /// Files read or changed so far, for a Write the client did not mark.
    seen_files: std::collections::HashSet<String>,
    /// The main thread's context as the last usage (or compaction) left it.
    context: Option<Option<ContextUsage>>,
    subagents: &'s dyn SubagentFiles,
    /// Records of the main thread only (a subagent's own file is all sidechain).
    main_only: bool,
    /// The folder the client ran in, as the records say (`cwd`), and where
    /// that folder is for this hook (the payload's `cwd`): paths under the
    /// first are shown under the second. The same folder in real use; a
    /// transcript replayed elsewhere keeps its files inside the project.
    record_cwd: Option<String>,
    here: Option<std::path::PathBuf>,
    /// The next request is the session's first.
    at_start: bool,
    /// The user's own shell command just before (bash mode) and its telling line.
    shell: Option<String>,
    /// A shell command whose output has not come yet (its own record).
    shell_command: Option<String>,
    /// The checklist steps of the skills loaded so far, as their words: a
    /// to-do copied from one is the skill's process, not the project's.
    skill_steps: Vec<String>,
    /// The turn before what was fed ended with the user declining or
    /// stopping a call (the previous pass said so).
    refused_before: bool,
    /// Byte offset of the record being fed.
    offset: u64,
    /// Newer clients' task list (TaskCreate / TaskUpdate), by task id.
    tasks: Vec<(String, Todo)>,
    /// 1.0.x clients' subagents, each a sidechain inside the main file
    /// from its prompt on, built as a subagent's own file would be.
    threads: Vec<Thread>,
    /// Which thread a sidechain record's uuid belongs to.
    thread_of: HashMap<String, usize>,
    /// Errors earlier turns ended with (see [`Carried`]).
    carried: Vec<Carried>,
    /// The question the last closed turn's answer ended on (or, before
    /// any, the previous pass's): a request right after answers it.
    asked: Option<String>,
    /// The options the last answer offered to pick from (label, gist).
    offered: Vec<(String, String)>,
    /// The `cwd` of the record being fed: where the shell is now (a `cd`
    /// in an earlier call stays).
    cwd_now: Option<String>,
    /// The records are a 1.0.x client's: it wrote a refusal only as its
    /// own sentence, never the user's words in a result's place.
    old_client: bool,
}

impl<'s> Builder<'s> {
    pub fn new(subagents: &'s dyn SubagentFiles) -> Self {
        Builder {
            done: Vec::new(),
            cur: None,
            calls: HashMap::new(),
            seen_files: Default::default(),
            context: None,
            subagents,
            main_only: true,
            record_cwd: None,
            here: None,
            at_start: false,
            shell: None,
            shell_command: None,
            skill_steps: Vec::new(),
            refused_before: false,
            offset: 0,
            tasks: Vec::new(),
            threads: Vec::new(),
            thread_of: HashMap::new(),
            carried: Vec::new(),
            asked: None,
            offered: Vec::new(),
            cwd_now: None,
            old_client: false,
        }
    }

    /// The question the previous pass's last answer ended on.
    pub fn asked_before(mut self, asked: Option<String>) -> Self {
        self.asked = asked;
        self
    }

    /// The options the previous pass's last answer offered.
    pub fn offered_before(mut self, offered: Vec<(String, String)>) -> Self {
        self.offered = offered;
        self
    }

    /// The options the last answer fed so far offers, for the next pass.
    pub fn ends_offering(&self) -> Vec<(String, String)> {
        match &self.cur {
            Some(c) if c.turn.prompted || c.saw_assistant => {
                crate::extract::offered_options(&answer_of(c).unwrap_or_default())
            }
            _ => self.offered.clone(),
        }
    }

    /// The question the last answer fed so far ends on, for the next pass.
    pub fn ends_asking(&self) -> Option<String> {
        match &self.cur {
            Some(c) if c.turn.prompted || c.saw_assistant => {
                crate::extract::closing_question(&answer_of(c).unwrap_or_default())
            }
            _ => self.asked.clone(),
        }
    }

    /// The skill checklist steps the previous passes saw.
    pub fn with_skill_steps(mut self, steps: Vec<String>) -> Self {
        self.skill_steps = steps;
        self
    }

    /// The skill checklist steps seen so far, for the next pass.
    pub fn skill_steps(&self) -> &[String] {
        &self.skill_steps
    }

    /// Errors the previous pass's turns ended with.
    pub fn carrying(mut self, carried: Vec<Carried>) -> Self {
        self.carried = carried;
        self
    }

    /// The turns (see [`Builder::finish`]) and the errors they leave
    /// unresolved, for the next pass (the tests' view of
    /// [`Builder::finish_with_tasks`]).
    #[cfg(test)]
    pub fn finish_carrying(self) -> (Vec<Turn>, Vec<Carried>) {
        let (turns, open, _) = self.finish_with_tasks();
        (turns, open)
    }

    /// The model's task list (newer clients' TaskCreate and TaskUpdate) as
    /// the previous pass left it: a task made before this pass is updated
    /// by id in it.
    pub fn with_tasks(mut self, tasks: Vec<(String, Todo)>) -> Self {
        self.tasks = tasks;
        self
    }

    /// The turns, the errors they leave unresolved and the task list for
    /// the next pass (at most [`MAX_CARRIED_TASKS`], completed ones dropped
    /// first).
    pub fn finish_with_tasks(mut self) -> (Vec<Turn>, Vec<Carried>, Vec<(String, Todo)>) {
        self.close();
        let mut tasks = self.tasks;
        // Completed ones go first: an open task may still be updated.
        while tasks.len() > MAX_CARRIED_TASKS {
            let at = tasks
                .iter()
                .position(|(_, t)| t.status == TodoStatus::Completed)
                .unwrap_or(0);
            tasks.remove(at);
        }
        (self.done, self.carried, tasks)
    }

    /// Paths under `session_cwd` (the folder the session started in, as
    /// its first record says) are rebased onto `here` (see the field).
    /// Without `session_cwd`, the first `cwd` the records give is used: a
    /// later one may be another repository the shell went to.
    pub fn rebased_onto(
        mut self,
        session_cwd: Option<&str>,
        here: Option<&std::path::Path>,
    ) -> Self {
        self.record_cwd = session_cwd.map(|c| c.trim_end_matches('/').to_owned());
        self.here = here.map(std::path::Path::to_path_buf);
        self
    }

    /// The turn before what is fed ended with a refusal or an interruption.
    pub fn after_refusal(mut self, refused: bool) -> Self {
        self.refused_before = refused;
        self
    }

    /// Whether the last turn fed so far ended with the user declining or
    /// stopping a call, for the next pass.
    pub fn ends_refused(&self) -> bool {
        match &self.cur {
            Some(c) if c.turn.prompted => c.turn.interrupted || !c.turn.declined.is_empty(),
            Some(c) => self.refused_before || c.turn.interrupted || !c.turn.declined.is_empty(),
            None => self.refused_before,
        }
    }

    /// The first request of the session is in what was fed.
    pub fn starts_session(mut self) -> Self {
        self.at_start = true;
        self
    }

    fn path(&self, p: &str) -> String {
        let p = p.trim();
        let (Some(from), Some(here)) = (self.record_cwd.as_deref(), self.here.as_deref()) else {
            return p.to_owned();
        };
        if std::path::Path::new(p).is_relative() {
            return here
                .join(p.trim_start_matches("./"))
                .to_string_lossy()
                .into_owned();
        }
        match p.strip_prefix(from) {
            Some("") => here.to_string_lossy().into_owned(),
            Some(rest) if rest.starts_with('/') => {
                here.join(&rest[1..]).to_string_lossy().into_owned()
            }
            _ => p.to_owned(),
        }
    }

    /// A command line whose `cd`s go to absolute folders of the session's,
    /// rebased like its paths: a replayed or moved session's
    /// `cd /home/them/repo/go && go build` reads as this checkout's.
    fn rebased_cd(&self, line: &str) -> String {
        if !line.contains("cd /") {
            return line.to_owned();
        }
        line.split(" && ")
            .map(|seg| match seg.strip_prefix("cd ") {
                Some(dir) if dir.starts_with('/') && !dir.contains(' ') => {
                    format!("cd {}", self.path(dir))
                }
                _ => seg.to_owned(),
            })
            .collect::<Vec<_>>()
            .join(" && ")
    }

    /// A builder for a subagent's own transcript, whose records are all
    /// flagged as sidechain.
    pub fn for_subagent() -> Builder<'static> {
        Builder {
            main_only: false,
            ..Builder::new(&NoSubagents)
        }
    }

    /// The main thread's context after the records fed so far: `Some(None)`
    /// when a compaction came last, `None` when nothing said anything.
    pub fn context(&self) -> Option<Option<&ContextUsage>> {
        self.context.as_ref().map(Option::as_ref)
    }

    /// [`Builder::feed`] for the record that starts at byte `offset`.
    pub fn feed_at(&mut self, offset: u64, rec: &Record) {
        self.offset = offset;
        self.feed(rec);
    }

    /// Where the oldest call of the last turn still waiting for its result
    /// was made: the next pass must read from there, or the result would
    /// find no call (the client writes it after the Stop on a turn that
    /// ends on a tool call).
    pub fn pending_since(&self) -> Option<u64> {
        let turn = self.done.len();
        self.calls
            .values()
            .filter(|c| c.turn == turn && self.cur.is_some())
            .map(|c| c.at)
            .min()
    }

    pub fn feed(&mut self, rec: &Record) {
        if let Some(v) = rec.version.as_deref() {
            self.old_client = v.starts_with("1.") || v.starts_with("0.");
        }
        if let Some(cwd) = rec.cwd.as_deref() {
            self.cwd_now = Some(cwd.trim_end_matches('/').to_owned());
        }
        if self.record_cwd.is_none()
            && let Some(cwd) = rec.cwd.as_deref().filter(|c| c.starts_with('/'))
        {
            self.record_cwd = Some(cwd.trim_end_matches('/').to_owned());
        }
        if let Some(c) = crate::transcript::context_change(rec) {
            self.context = Some(c);
        }
        if rec.is_sidechain && self.main_only {
            self.sidechain(rec);
            return;
        }
        if rec.is_assistant() {
            self.assistant(rec);
        } else if rec.is_user() {
            self.user(rec);
        }
        // The branch as the turn left it (a `git checkout -b` in the turn
        // shows in the records after it).
        if let Some(b) = rec
            .git_branch
            .as_deref()
            .filter(|b| !b.is_empty() && *b != "HEAD")
            && let Some(c) = self.cur.as_mut()
            && c.turn.branch.as_deref() != Some(b)
        {
            c.turn.branch = Some(b.to_owned());
        }
    }

    /// The turns, the last one included (it may be still running: its
    /// calls without results are left out).
    pub fn finish(mut self) -> Vec<Turn> {
        self.close();
        self.done
    }

    fn cur(&mut self) -> &mut Current {
        // Records before the first prompt of a pass: the rest of a turn
        // captured earlier, kept only if they did something.
        self.cur.get_or_insert_with(|| Current {
            turn: Turn {
                kind: RequestKind::None,
                ..Default::default()
            },
            ..Default::default()
        })
    }

    fn close(&mut self) {
        let Some(mut c) = self.cur.take() else { return };
        if c.local_only && !c.saw_assistant {
            // `/clear` ran locally: the session's first request is still to come.
            self.at_start |= c.turn.first;
            return;
        }
        c.turn.answer = answer_of(&c).unwrap_or_default();
        drop_silent_slips(&mut c);
        let changes = c.change_log.len();
        for (check, mark) in c.turn.checks.iter_mut().zip(&c.check_marks) {
            check.changed_after = *mark < changes;
        }
        self.asked = crate::extract::closing_question(&c.turn.answer);
        self.offered = crate::extract::offered_options(&c.turn.answer);
        if c.tasks_touched && c.turn.todos.is_empty() {
            c.turn.todos = self.tasks.iter().map(|(_, t)| t.clone()).collect();
        }
        // Threads no Task result claimed (a call interrupted, a pass that
        // ends mid-call): their files, with nobody's description.
        for t in std::mem::take(&mut self.threads) {
            if let Some(b) = t.builder {
                let (files, errors) = subagent_work(b.finish());
                for f in files {
                    note_change(&mut c.sidechain.files, &f.path, f.change, f.from.as_deref());
                }
                c.sidechain.errors.extend(errors);
            }
        }
        self.thread_of.clear();
        // What this turn could not get past waits for a later success.
        for o in &c.open_errors {
            let e = &c.turn.errors[o.at];
            let carried = Carried {
                key: o.key.clone(),
                tool: e.tool.clone(),
                target: e.target.clone(),
            };
            if !self.carried.contains(&carried) {
                self.carried.push(carried);
            }
        }
        if self.carried.len() > MAX_CARRIED {
            self.carried.drain(..self.carried.len() - MAX_CARRIED);
        }
        if !c.sidechain.files.is_empty() {
            c.sidechain.description = "subagent".into();
            c.turn.subagents.push(std::mem::take(&mut c.sidechain));
        }
        self.done.push(c.turn);
    }

    fn assistant(&mut self, rec: &Record) {
        let synthetic = rec.is_synthetic() || rec.is_api_error_message;
        let cur = self.cur();
        cur.saw_assistant = true;
        if synthetic {
            return;
        }
        let mut texts: Vec<String> = Vec::new();
        if let Content::Text(t) = rec.content() {
            texts.push(t.trim().to_owned());
        }
        let mut calls = Vec::new();
        for b in rec.content().blocks() {
            match b {
                Block::Text(t) if !t.trim().is_empty() => texts.push(t.trim().to_owned()),
                Block::ToolUse(tu) => calls.push(tu),
                _ => {}
            }
        }
        for t in texts.into_iter().filter(|t| !t.is_empty()) {
            cur.last_text = Some(t.clone());
            cur.texts_since_tool.push(t);
        }
        for tu in calls {
            self.call(tu);
        }
    }

    fn call(&mut self, tu: &ToolUse) {
        let input = &tu.input;
        let path = input
            .file_path
            .as_deref()
            .or(input.notebook_path.as_deref())
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| self.path(p));
        let cur = self.cur();
        // Right after a failure, the model often says why ("The test still
        // expects schema_version 1.0; main is on 1.1.").
        if let Some(failure) = cur.awaiting_cause.take()
            && let Some(cause) = match failure {
                // Its explanation rarely has a causal word: "The
                // indentation uses tabs.", "The formatter reshuffled
                // imports."
                Failure::Slip(at, reads) => {
                    let cause = cur
                        .texts_since_tool
                        .first()
                        .and_then(|t| clean::slip_cause(t));
                    if cause.is_none() && reads > 0 && matches!(&*tu.name, "Read" | "Grep" | "Glob")
                    {
                        cur.awaiting_cause = Some(Failure::Slip(at, reads - 1));
                    }
                    cause
                }
                _ => cur
                    .texts_since_tool
                    .iter()
                    .find_map(|t| clean::failure_cause(t)),
            }
        {
            let slot = match failure {
                Failure::Error(at) | Failure::Slip(at, _) => {
                    cur.turn.errors.get_mut(at).map(|e| &mut e.cause)
                }
                Failure::Check(at) => cur.turn.checks.get_mut(at).map(|c| &mut c.cause),
            };
            if let Some(slot) = slot {
                *slot = Some(cause);
            }
        }
        // Texts before a call are the model thinking aloud: what it says
        // it found is kept; the rest is narration.
        for t in cur.texts_since_tool.drain(..) {
            if cur.turn.findings.len() < MAX_FINDINGS {
                for f in clean::findings(&t) {
                    if cur.turn.findings.len() < MAX_FINDINGS && !cur.turn.findings.contains(&f) {
                        cur.turn.findings.push(f);
                    }
                }
            }
        }
        cur.just_declined = false;
        if tu.name == "TodoWrite" && !input.todos.is_empty() {
            let todos: Vec<Todo> = input
                .todos
                .iter()
                .filter_map(|t| {
                    Some(Todo {
                        text: t.content.trim().to_owned(),
                        status: todo_status(&t.status)?,
                    })
                })
                .filter(|t| !t.text.is_empty() && !skill_step(&t.text, &self.skill_steps))
                .collect();
            self.cur().turn.todos = todos;
        }
        let call = Call {
            at: self.offset,
            turn: self.done.len(),
            name: tu.name.to_string(),
            path,
            command: input.command.as_deref().map(|c| c.trim().to_owned()),
            description: [&input.description, &input.subagent_type]
                .into_iter()
                .find_map(|s| s.as_deref().map(str::trim).filter(|s| !s.is_empty()))
                .map(str::to_owned),
            prompt: (tu.name == "Task" || tu.name == "Agent")
                .then(|| input.prompt.as_deref().map(prompt_head))
                .flatten(),
            plan: input.plan.as_deref().map(str::to_owned),
            subject: input.subject.as_deref().map(str::to_owned),
            task_id: input.task_id.as_deref().map(str::to_owned),
            status: input.status.as_deref().map(str::to_owned),
            web: match tu.name.as_ref() {
                "WebSearch" => input.query.as_deref(),
                "WebFetch" => input.url.as_deref(),
                _ => None,
            }
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(str::to_owned),
        };
        if let Some(id) = tu.id.as_deref() {
            self.calls.insert(id.to_owned(), call);
        }
        // Counted in a turn a prompt started (the rest of a turn captured
        // before stays what it was: empty unless it did something).
        if let Some(cur) = self.cur.as_mut().filter(|c| c.turn.prompted) {
            cur.turn.tool_calls = cur.turn.tool_calls.saturating_add(1);
        }
    }

    fn user(&mut self, rec: &Record) {
        let blocks = rec.content().blocks();
        if blocks.iter().any(|b| matches!(b, Block::ToolResult(_))) {
            let results: Vec<_> = blocks
                .iter()
                .filter_map(|b| match b {
                    Block::ToolResult(tr) => Some(tr),
                    _ => None,
                })
                .collect();
            // The client writes one result per record with its
            // `toolUseResult`; with several, that account is ambiguous.
            let tur = (results.len() == 1)
                .then_some(rec.tool_use_result.as_ref())
                .flatten();
            for tr in results {
                let Some(call) = tr
                    .tool_use_id
                    .as_deref()
                    .and_then(|id| self.calls.remove(id))
                else {
                    continue;
                };
                let text: Vec<&str> = tr.content.texts().collect();
                let mut text = text.join("\n");
                // A program's colours (PowerShell writes its errors in red)
                // are not part of what it said.
                if text.contains('\x1b') {
                    text = crate::format::strip_ansi(&text);
                }
                self.result(&call, tr.is_error, &text, tur);
            }
            return;
        }
        let content = rec.content();
        // A background agent's end, told to the main thread: its report,
        // and what its own transcript shows it changed.
        if let Some(first) = content.texts().next()
            && first.trim_start().starts_with("<task-notification>")
        {
            let cur = self.cur();
            // "Sweep running in background, will report when it
            // finishes" is no answer: the reply to the notice is.
            let said = cur.texts_since_tool.join("\n\n");
            if said.split_whitespace().count() >= MIN_ANSWERED_WORDS
                && cur.answered.len() < MAX_ANSWERED
            {
                cur.texts_since_tool.clear();
                cur.answered.push(said);
            }
            let text: Vec<&str> = content.texts().collect();
            self.task_notified(&text.join("\n"));
            return;
        }
        if rec.is_meta
            && let Some(first) = content.texts().next()
            && first
                .trim_start()
                .starts_with("Base directory for this skill:")
        {
            for line in first.lines() {
                // `3. **Ask clarifying questions** — one at a time`,
                // `- [ ] Spec self-review`: a step of its checklist.
                let t = line.trim_start();
                let numbered = t
                    .find(|c: char| !c.is_ascii_digit())
                    .is_some_and(|n| n > 0 && t[n..].starts_with(['.', ')']));
                if !(numbered || t.starts_with(['-', '*'])) {
                    continue;
                }
                let words = step_words(t);
                if words.len() >= 2 && self.skill_steps.len() < MAX_SKILL_STEPS {
                    let step = words[..words.len().min(16)].join(" ");
                    if !self.skill_steps.contains(&step) {
                        self.skill_steps.push(step);
                    }
                }
            }
            return;
        }
        if rec.is_meta
            || rec.is_compact_summary
            || rec.is_visible_in_transcript_only
            || rec.origin_kind.as_deref().is_some_and(|k| k != "human")
            || rec.prompt_source.as_deref() == Some("system")
        {
            return;
        }
        let text: Vec<&str> = content.texts().collect();
        let has_image = content.blocks().contains(&Block::Image);
        match clean::classify(&text.join("\n"), has_image) {
            UserText::ShellOutput { command, telling } => {
                // Newer clients write the command and its output as two
                // records.
                let command = if command.is_empty() {
                    self.shell_command.take().unwrap_or_default()
                } else {
                    command
                };
                if telling.is_none() {
                    self.shell_command = Some(command.clone()).filter(|c| !c.is_empty());
                }
                self.shell = telling.map(|t| {
                    if command.is_empty() {
                        t
                    } else {
                        format!("{command}: {t}")
                    }
                });
            }
            UserText::Request(mut c) => {
                // "Fix these", right after the user's shell printed errors.
                if let Some(shell) = self.shell.take()
                    && c.pasted.is_empty()
                    && points_back(&c.request)
                {
                    c.pasted.push(shell);
                }
                let after_refusal = self.ends_refused();
                self.close();
                let offered = std::mem::take(&mut self.offered);
                let picked = (c.kind == RequestKind::Task)
                    .then(|| crate::extract::picked_option(&c.request, &offered))
                    .flatten();
                let replies_to = self.asked.take().filter(|q| {
                    picked.is_some()
                        || (c.kind == RequestKind::Task
                            && crate::extract::is_a_choice(&c.request)
                            && crate::extract::answers(q, &c.request))
                });
                let first = std::mem::take(&mut self.at_start) && c.kind != RequestKind::None;
                if c.kind == RequestKind::None {
                    // Still waiting for the session's first real request.
                    self.at_start |= first;
                }
                let cur = self.cur();
                cur.turn = Turn {
                    prompted: true,
                    first,
                    after_refusal: after_refusal && !first,
                    replies_to: replies_to.filter(|_| !first),
                    picked: picked.filter(|_| !first),
                    timestamp: rec.timestamp.as_deref().map(str::to_owned),
                    request: c.request,
                    kind: c.kind,
                    ide: c.ide,
                    pasted: c.pasted,
                    plan: c.plan,
                    ..Default::default()
                };
            }
            UserText::Interrupted => {
                let cur = self.cur();
                if !cur.just_declined {
                    cur.turn.interrupted = true;
                }
            }
            UserText::LocalOutput => {
                let cur = self.cur();
                if cur.turn.kind == RequestKind::Command && !cur.saw_assistant {
                    cur.local_only = true;
                }
            }
            UserText::NotHuman => {}
        }
    }

    /// `<task-notification>`: a background agent finished. Its work is
    /// the turn's like a subagent's (its files from its own transcript,
    /// when the client kept one; the head of its report; what the report
    /// says it found).
    fn task_notified(&mut self, text: &str) {
        let tag = |name: &str| tag_of(text, name);
        // A background command's end: its exit code (`completed (exit code
        // 1)`), all a notice tells of it.
        if let Some(id) = tag("task-id")
            && let Some(code) = tag("summary")
                .and_then(|s| s.rsplit_once("(exit code "))
                .and_then(|(_, c)| c.trim_end_matches(')').trim().parse::<i32>().ok())
        {
            let id = id.to_owned();
            self.background_outcome(|b| b.id == id, "", Some(code));
        }
        if tag("status") != Some("completed") {
            return;
        }
        let Some(result) = tag("result").filter(|r| !r.is_empty()) else {
            return;
        };
        let (files, errors) = match tag("task-id").filter(|id| safe_agent_id(id)) {
            Some(id) => (self.subagents.files(id), self.subagents.errors(id)),
            None => Default::default(),
        };
        // `Agent "Car 31: register CSS fix" finished`.
        let description = tag("summary")
            .and_then(|s| s.split('"').nth(1))
            .unwrap_or("background agent")
            .to_owned();
        let report = result
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(12)
            .collect::<Vec<_>>()
            .join("\n");
        let cur = self.cur();
        for f in clean::findings(result) {
            if cur.turn.findings.len() < MAX_FINDINGS && !cur.turn.findings.contains(&f) {
                cur.turn.findings.push(f);
            }
        }
        if cur.turn.subagents.len() < BUILD_CAP {
            cur.turn.subagents.push(Subagent {
                description,
                files,
                errors,
                report,
            });
        }
    }

    /// A 1.0.x subagent's record: into the thread its parent is in, or a
    /// new thread when it is a prompt nothing leads to.
    fn sidechain(&mut self, rec: &Record) {
        let parent = rec
            .parent_uuid
            .as_deref()
            .and_then(|p| self.thread_of.get(p).copied());
        let at = match parent {
            Some(at) => at,
            None if rec.is_user() && self.threads.len() < MAX_THREADS => {
                let text: Vec<&str> = rec.content().texts().collect();
                let text = text.join("\n");
                if text.trim().is_empty() {
                    return self.unclaimed(rec);
                }
                let mut b = Builder::for_subagent();
                b.record_cwd = self.record_cwd.clone();
                b.here = self.here.clone();
                self.threads.push(Thread {
                    prompt: prompt_head(&text),
                    builder: Some(b),
                });
                self.threads.len() - 1
            }
            // The start of the thread was before this pass (or there are
            // too many): what its calls wrote, at least.
            None => return self.unclaimed(rec),
        };
        if let Some(u) = rec.uuid.as_deref()
            && self.thread_of.len() < MAX_THREAD_RECORDS
        {
            self.thread_of.insert(u.to_owned(), at);
        }
        match self.threads[at].builder.as_mut() {
            Some(b) => b.feed(rec),
            // Its Task already returned: a straggler.
            None => self.unclaimed(rec),
        }
    }

    /// The work of the thread a Task call started, once its result is in.
    fn claim_thread(&mut self, prompt: &str) -> Option<(Vec<FileChange>, Vec<ToolError>)> {
        let t = self
            .threads
            .iter_mut()
            .find(|t| t.builder.is_some() && t.prompt == prompt)?;
        Some(subagent_work(t.builder.take()?.finish()))
    }

    fn unclaimed(&mut self, rec: &Record) {
        if !rec.is_assistant() {
            return;
        }
        for b in rec.content().blocks() {
            if let Block::ToolUse(tu) = b {
                let path = tu.input.file_path.as_deref().map(str::trim);
                let change = match tu.name.as_ref() {
                    "Write" => Change::Created,
                    "Edit" | "MultiEdit" | "NotebookEdit" => Change::Updated,
                    _ => continue,
                };
                if let Some(p) = path.filter(|p| !p.is_empty()) {
                    let p = self.path(p);
                    let files = &mut self.cur().sidechain.files;
                    note_change(files, &p, change, None);
                }
            }
        }
    }

    fn result(&mut self, call: &Call, is_error: bool, text: &str, tur: Option<&ToolUseResult>) {
        let name = call.name.as_str();
        if is_error {
            self.failed(call, text, tur);
            return;
        }
        match name {
            "Write" => {
                let Some(p) = call.path.clone() else { return };
                let change = match tur.and_then(|t| t.kind.as_deref()) {
                    Some("update") => Change::Updated,
                    Some("create") => Change::Created,
                    _ if self.seen_files.contains(&p) => Change::Updated,
                    _ => Change::Created,
                };
                self.seen_files.insert(p.clone());
                self.cur().change(&p, change, None);
                self.cur().written(&p);
            }
            "Edit" | "MultiEdit" | "NotebookEdit" => {
                let Some(p) = call.path.clone() else { return };
                self.seen_files.insert(p.clone());
                self.cur().change(&p, Change::Updated, None);
                self.cur().written(&p);
            }
            "WebSearch" | "WebFetch" => {
                if let Some(w) = &call.web {
                    let web = &mut self.cur().turn.web;
                    if web.len() < BUILD_CAP && !web.contains(w) {
                        web.push(w.clone());
                    }
                }
            }
            "TaskOutput" => {
                let id = call
                    .task_id
                    .clone()
                    .or_else(|| tag_of(text, "task_id").map(str::to_owned));
                let done = matches!(tag_of(text, "status"), Some("completed" | "failed"));
                if let Some(id) = id.filter(|_| done) {
                    let exit = tag_of(text, "exit_code").and_then(|c| c.parse().ok());
                    let output = text.split_once("<output>").map_or("", |(_, o)| o);
                    let output = output.split("</output>").next().unwrap_or(output);
                    self.background_outcome(|b| b.id == id, output, exit);
                }
            }
            "Read" | "NotebookRead" => {
                if let Some(p) = &call.path
                    && let Some(id) = p
                        .rsplit_once("/tasks/")
                        .and_then(|(_, f)| f.strip_suffix(".output"))
                {
                    let output = without_line_numbers(text);
                    self.background_outcome(|b| b.id == id, &output, None);
                }
                if let Some(p) = &call.path {
                    self.seen_files.insert(p.clone());
                    let reads = &mut self.cur().turn.reads;
                    if reads.len() < BUILD_CAP && !reads.contains(p) {
                        reads.push(p.clone());
                    }
                }
            }
            "Bash" => {
                let Some(cmd) = call.command.clone() else {
                    return;
                };
                let output = bash_output(text, tur);
                // Piped into `head`, a wrapper refusing its command line
                // exits 0: what was asked never ran. So does any program
                // whose whole say is that refusal (`claude … --no-input 2>&1
                // | head`: `error: unknown option '--no-input'`).
                let piped = logical_first_line(&cmd).replace("||", "").contains(" | ");
                let only_refusal =
                    piped && output.lines().filter(|l| !l.trim().is_empty()).count() <= 3;
                if refused_command_line(&output)
                    && (only_refusal
                        || shell::effects(&cmd)
                            .iter()
                            .any(|e| matches!(e, Effect::Check { .. })))
                {
                    self.failed(call, text, tur);
                    return;
                }
                // `gh api repos/x?ref=y | base64 -d` in zsh: the `?` globbed,
                // nothing ran, and the pipe's last program exited 0.
                if piped && shell_refused_all(&output) {
                    self.failed(call, text, tur);
                    return;
                }
                // `grep passed sweep.log`: a background check's counts.
                let reads_a_log = !shell::effects(&cmd)
                    .iter()
                    .any(|e| matches!(e, Effect::Check { .. }));
                if reads_a_log {
                    let line = logical_first_line(&cmd);
                    let names = |l: &str| {
                        line.split_whitespace()
                            .map(|w| w.trim_matches(['"', '\'', ';', ')']))
                            .any(|w| w == l)
                    };
                    self.background_outcome(|b| b.log.as_deref().is_some_and(names), &output, None);
                }
                self.bash_done(&cmd, true, &output);
            }
            "ExitPlanMode" => {
                let plan = tur
                    .and_then(|t| t.plan.as_deref())
                    .or(call.plan.as_deref())
                    .map(str::trim)
                    .filter(|p| !p.is_empty());
                if let Some(p) = plan {
                    self.cur().turn.plan = Some(p.to_owned());
                }
            }
            "TaskCreate" => {
                // "Task #3 created successfully: <subject>"
                let id = text
                    .split_once("Task #")
                    .map(|(_, r)| {
                        r.chars()
                            .take_while(char::is_ascii_digit)
                            .collect::<String>()
                    })
                    .filter(|id| !id.is_empty());
                let subject = call
                    .subject
                    .as_deref()
                    .map(str::trim)
                    .filter(|s| !s.is_empty());
                if let (Some(id), Some(subject)) = (id, subject)
                    && self.tasks.len() < BUILD_CAP
                    && !skill_step(subject, &self.skill_steps)
                {
                    self.tasks.push((
                        id,
                        Todo {
                            text: subject.to_owned(),
                            status: TodoStatus::Pending,
                        },
                    ));
                    self.cur().tasks_touched = true;
                }
            }
            "TaskUpdate" => {
                if let (Some(id), Some(status)) = (call.task_id.as_deref(), call.status.as_deref())
                {
                    if status == "deleted" {
                        self.tasks.retain(|(t, _)| t != id);
                    } else if let Some(new) = todo_status(status)
                        && let Some((_, t)) = self.tasks.iter_mut().find(|(t, _)| t == id)
                    {
                        t.status = new;
                    }
                    self.cur().tasks_touched = true;
                }
            }
            "AskUserQuestion" => {
                let choices = tur.map(|t| t.answers.as_slice()).unwrap_or_default();
                for (q, a) in choices {
                    self.cur().turn.choices.push(Choice {
                        question: q.trim().to_owned(),
                        answer: a.trim().to_owned(),
                    });
                }
            }
            "Task" | "Agent" => {
                let id = tur
                    .and_then(|t| t.agent_id.as_deref())
                    .filter(|id| safe_agent_id(id));
                let (files, errors) = match (id, call.prompt.as_deref()) {
                    (Some(id), _) => (self.subagents.files(id), self.subagents.errors(id)),
                    // 1.0.x: the subagent's records are in this file.
                    (None, Some(p)) => self.claim_thread(p).unwrap_or_default(),
                    (None, None) => Default::default(),
                };
                let report = text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with("agentId:"))
                    .take(12)
                    .collect::<Vec<_>>()
                    .join("\n");
                // What a research subagent reports it found is the turn's
                // finding as much as the model's own (its summary comes
                // first: `findings` reads the head only).
                let cur = self.cur();
                if cur.turn.findings.len() < MAX_FINDINGS {
                    for f in clean::findings(text) {
                        if cur.turn.findings.len() < MAX_FINDINGS && !cur.turn.findings.contains(&f)
                        {
                            cur.turn.findings.push(f);
                        }
                    }
                }
                cur.turn.subagents.push(Subagent {
                    description: call
                        .description
                        .clone()
                        .unwrap_or_else(|| "subagent".into()),
                    files,
                    errors,
                    report,
                });
            }
            _ => {}
        }
    }

    /// A Bash call's outcome: file effects, actions, checks, and the errors
    /// of this turn that it resolves.
    fn bash_done(&mut self, cmd: &str, ok: bool, output: &str) {
        let first = self.rebased_cd(&logical_first_line(cmd));
        // A push, then `git status` in the same line: the status is the
        // later word.
        if ok && cmd.contains("git push") && !cmd.contains("--delete") && !cmd.contains(" -d ") {
            self.cur().turn.ahead = None;
        }
        if let Some(ahead) = shell::ahead_of_upstream(output) {
            self.cur().turn.ahead = ahead
                .map(|(upstream, commits)| crate::extract::digest::Ahead { upstream, commits });
        }
        let effects: Vec<Effect> = shell::effects(cmd)
            .into_iter()
            .map(|e| match e {
                Effect::Delete(paths) => {
                    Effect::Delete(paths.iter().map(|p| self.path(p)).collect())
                }
                Effect::MakeDir(paths) => {
                    Effect::MakeDir(paths.iter().map(|p| self.path(p)).collect())
                }
                Effect::RemoveDir(paths) => {
                    Effect::RemoveDir(paths.iter().map(|p| self.path(p)).collect())
                }
                Effect::Move { from, to } => Effect::Move {
                    from: self.path(&from),
                    to: self.path(&to),
                },
                other => other,
            })
            .collect();
        // Files a commit added that the session never wrote (made by a
        // tool, or by the user before): what the commit holds.
        // Paths git prints are the repository's: only for a commit made
        // where the session is (no `cd`, no `git -C`).
        let here = !first.contains("cd ")
            && !first.contains("git -C")
            && match (&self.record_cwd, &self.cwd_now) {
                (Some(start), Some(now)) => start == now,
                _ => true,
            };
        let committed: Vec<String> = if ok
            && here
            && self.main_only
            && effects.iter().any(|e| {
                matches!(
                    e,
                    Effect::Action {
                        kind: ActionKind::Commit,
                        ..
                    }
                )
            }) {
            shell::committed_new_files(output)
                .iter()
                .map(|p| self.path(p))
                .collect()
        } else {
            Vec::new()
        };
        let cur = self.cur();
        for p in committed {
            // The same file written by a tool is known by its full path.
            let known = cur.turn.files.iter().any(|f| {
                f.path == p
                    || f.path
                        .strip_suffix(p.as_str())
                        .is_some_and(|head| head.ends_with('/'))
            });
            if !known {
                note_change(&mut cur.turn.files, &p, Change::Created, None);
            }
        }
        // What this command itself deletes or moves is not what fixed an
        // earlier failure: only the changes made before it count.
        let changes_before = cur.change_log.len();
        // Read only for a command that opens tickets: outputs can be long.
        let opened = if effects.iter().any(|e| {
            matches!(
                e,
                Effect::Action {
                    kind: ActionKind::TicketOpened,
                    ..
                }
            )
        }) {
            shell::opened_tickets(output)
        } else {
            Vec::new()
        };
        let mut opened_at = 0;
        for e in &effects {
            match e {
                Effect::Action { kind, detail } => cur.turn.actions.push(Action {
                    kind: *kind,
                    // `git commit -F msg.txt`: the subject git printed.
                    detail: match kind {
                        ActionKind::Commit if ok && detail.is_empty() => {
                            shell::commit_subject(output).unwrap_or_default()
                        }
                        _ => detail.clone(),
                    },
                    command: first.clone(),
                    ok,
                    // `bd create a && bd create b` prints both ids in order.
                    id: match kind {
                        ActionKind::TicketOpened if ok => {
                            opened_at += 1;
                            opened.get(opened_at - 1).cloned().unwrap_or_default()
                        }
                        ActionKind::Commit if ok => shell::commit_hash(output).unwrap_or_default(),
                        ActionKind::Push if ok && detail.starts_with("PR") => {
                            shell::opened_pull_request(output).unwrap_or_default()
                        }
                        // `git push` alone: the branch it updated.
                        ActionKind::Push if ok => shell::pushed_ref(output).unwrap_or_default(),
                        _ => String::new(),
                    },
                    // The flag may follow a here-document's message, past
                    // the first line.
                    skipped_hooks: *kind == ActionKind::Commit
                        && cmd
                            .split_whitespace()
                            .skip_while(|w| *w != "commit")
                            .any(|w| w == "--no-verify" || w == "-n"),
                    branch: (*kind == ActionKind::Commit && ok)
                        .then(|| shell::commit_branch(output))
                        .flatten(),
                    range: (*kind == ActionKind::Push && ok)
                        .then(|| shell::pushed_range(output))
                        .flatten(),
                }),
                // The runner never ran: its command line was refused.
                Effect::Check { .. } if !ok && refused_command_line(output) => {}
                // Run on a tree changed for the occasion and put back after
                // (`perl -pi … && go test …; git checkout f`, `git stash;
                // …; git stash pop`): the old code failing proves a test,
                // it is no problem of the work, nor its fix.
                Effect::Check { .. } if restores_after(cmd) => {}
                Effect::Check { test } if cur.turn.checks.len() < BUILD_CAP => {
                    let (passed, failed) = if *test {
                        shell::test_counts(output)
                    } else {
                        (None, None)
                    };
                    let coverage = test.then(|| shell::coverage(output)).flatten();
                    let lines: Vec<&str> = output.lines().collect();
                    // `golangci-lint run | tail -30` exits as `tail` does:
                    // the findings it printed say it failed.
                    // A real pipe, not `||` nor `grep 'a|b'`.
                    let piped = first.replace("||", "").contains(" | ");
                    let ok = ok && !(!*test && piped && clean::names_a_finding(&lines));
                    let go_ok = (*test && passed.is_none() && failed.is_none())
                        .then(|| shell::go_packages_ok(output))
                        .flatten();
                    let summary = if let Some(n) = go_ok.filter(|_| ok) {
                        format!("{n} package{} ok", if n == 1 { "" } else { "s" })
                    } else if ok && failed.unwrap_or(0) == 0 {
                        summary_line(&lines).unwrap_or_default()
                    } else {
                        clean::failure_line(&lines).unwrap_or_default()
                    };
                    let passed_now = ok && failed.unwrap_or(0) == 0;
                    // A pass closes the failing runs of the same program:
                    // what changed since each is its fix. Every piece of
                    // an `&&` chain that passed has passed (`go vet ./...
                    // && mise run lint` closes a failed `mise run lint`).
                    let keys = passing_keys(cmd);
                    if passed_now {
                        for at in 0..cur.turn.checks.len() {
                            let c = &cur.turn.checks[at];
                            if !c.ok
                                && c.fixed_in.is_empty()
                                && keys.contains(&command_key(&c.command))
                            {
                                let since = cur.check_marks.get(at).copied().unwrap_or(0);
                                let mut files: Vec<String> = Vec::new();
                                for p in &cur.change_log[since.min(cur.change_log.len())..] {
                                    if !files.contains(p)
                                        && files.len() < crate::extract::digest::MAX_ENTRIES
                                    {
                                        files.push(p.clone());
                                    }
                                }
                                cur.turn.checks[at].fixed_in = files;
                            }
                        }
                    }
                    cur.check_marks.push(cur.change_log.len());
                    if !(ok && failed.unwrap_or(0) == 0) {
                        cur.awaiting_cause = Some(Failure::Check(cur.turn.checks.len()));
                    }
                    cur.turn.checks.push(Check {
                        fixed_in: Vec::new(),
                        changed_after: false,
                        cause: None,
                        command: first.clone(),
                        test: *test,
                        ok: ok && failed.unwrap_or(0) == 0,
                        passed,
                        failed,
                        coverage,
                        summary,
                    });
                    if let Some(id) = background_id(output)
                        && cur.background.len() < MAX_BACKGROUND
                    {
                        let at = cur.turn.checks.len() - 1;
                        cur.turn.checks[at].summary.clear();
                        let log = shell::output_file(&first);
                        // A rerun into the same log: what is read there
                        // from now on is the rerun's.
                        cur.background.retain(|b| log.is_none() || b.log != log);
                        cur.background.push(Background { id, log, at });
                    }
                }
                // `gh run watch --exit-status` fails when the run does.
                Effect::WatchCi => {
                    if let Some(run) = shell::ci_run(output) {
                        let ci = &mut cur.turn.ci;
                        match ci.iter().position(|r| r.id == run.id) {
                            Some(at) => ci[at] = run,
                            None if ci.len() < MAX_CI_RUNS => ci.push(run),
                            None => {}
                        }
                    }
                }
                Effect::ShowTicket(id) if ok && cur.turn.tickets.len() < MAX_TICKETS => {
                    if let Some(title) = shell::ticket_title(id, output)
                        && !cur.turn.tickets.iter().any(|t| t.id == *id)
                    {
                        cur.turn.tickets.push(TicketSeen {
                            id: id.clone(),
                            title,
                        });
                    }
                }
                Effect::MakeDir(paths) if ok => {
                    for p in paths {
                        if cur.made_dirs.len() < BUILD_CAP && !cur.made_dirs.contains(p) {
                            cur.made_dirs.push(p.clone());
                        }
                    }
                }
                Effect::Delete(paths) if ok => cur.deleted(paths),
                Effect::Move { from, to } if ok => {
                    cur.change(to, Change::Moved, Some(from));
                }
                _ => {}
            }
        }
        // A failed `&&` chain: what ran before the failing step did happen
        // (`git rm a && git mv b c && git rm d` failing on `d`).
        if !ok {
            for e in shell::effects_before_failure(cmd, output) {
                match e {
                    Effect::Delete(paths) => {
                        let paths: Vec<String> = paths.iter().map(|p| self.path(p)).collect();
                        self.cur().deleted(&paths);
                    }
                    Effect::Move { from, to } => {
                        let (from, to) = (self.path(&from), self.path(&to));
                        self.cur().change(&to, Change::Moved, Some(&from));
                    }
                    _ => {}
                }
            }
        }
        let cur = self.cur();
        let keys = command_keys(cmd);
        if ok && (first.contains(" --ours") || first.contains(" --theirs")) {
            cur.conflict_side = Some(first.clone());
        }
        // The program ran this time (its tests may fail): the wrapper that
        // refused its command line before is got past.
        if !refused_command_line(output) {
            for o in cur
                .open_errors
                .iter()
                .filter(|o| o.refused && keys.contains(&o.key))
            {
                let e = &mut cur.turn.errors[o.at];
                e.resolved = true;
                if !same_command(&e.target, &first) {
                    e.resolved_by = Some(first.clone());
                }
            }
            cur.open_errors
                .retain(|o| !(o.refused && keys.contains(&o.key)));
        }
        if !ok {
            return;
        }
        // A deletion that failed (a wrong folder, a non-empty directory)
        // is got past by the one that removed the same thing.
        let removed: Vec<&String> = deleted_paths(&effects).collect();
        if !removed.is_empty() {
            let gone = |p: &str, by_name: bool| {
                let name = p.trim_end_matches('/').rsplit('/').next().unwrap_or(p);
                removed.iter().any(|r| {
                    let r = r.trim_end_matches('/');
                    p == r
                        || p.starts_with(&format!("{r}/"))
                        || (by_name && r.rsplit('/').next() == Some(name))
                })
            };
            // By its name alone only when it was not where the command
            // looked (`rm x` from the wrong folder).
            let errors = &cur.turn.errors;
            let got_past: Vec<bool> = cur
                .open_errors
                .iter()
                .map(|o| {
                    let elsewhere = errors[o.at].message.to_lowercase().contains("no such file");
                    !o.deletes.is_empty() && o.deletes.iter().all(|p| gone(p, elsewhere))
                })
                .collect();
            for (o, hit) in cur.open_errors.iter().zip(&got_past) {
                if *hit {
                    let e = &mut cur.turn.errors[o.at];
                    e.resolved = true;
                    e.resolved_by = Some(first.clone());
                }
            }
            let mut hits = got_past.into_iter();
            cur.open_errors.retain(|_| !hits.next().unwrap_or(false));
        }
        // A success resolves the open errors of the same program, this
        // turn's and those earlier turns ended with.
        if changes_state(&first) {
            for o in &mut cur.open_errors {
                if !keys.contains(&o.key) {
                    o.cured_by = Some(first.clone());
                }
            }
        }
        let mut earlier = Vec::new();
        self.carried.retain(|c| {
            let hit = keys.contains(&c.key);
            if hit {
                earlier.push(EarlierFix {
                    tool: c.tool.clone(),
                    target: c.target.clone(),
                    by: first.clone(),
                });
            }
            !hit
        });
        let cur = self.cur();
        cur.turn.resolved_earlier.extend(earlier);
        // A merge, rebase or pick that stopped on conflicts is done once
        // its commit (or `--continue`) goes through: the files changed in
        // between are its resolution.
        let settles = keys.iter().any(|k| k == "git commit")
            || (first.starts_with("git ") && first.contains(" --continue"));
        let errors = &cur.turn.errors;
        let conflict = |o: &OpenError| settles && stopped_on_conflicts(&errors[o.at]);
        let hits: Vec<bool> = cur
            .open_errors
            .iter()
            .map(|o| keys.contains(&o.key) || conflict(o))
            .collect();
        // The merge happened only if what this settles is its conflicts.
        if cur.open_errors.iter().any(conflict) {
            for a in cur.turn.actions.iter_mut().rev() {
                if a.kind == ActionKind::Merge && !a.ok {
                    a.ok = true;
                    break;
                }
            }
        }
        let changed_since: Vec<(usize, Vec<String>, Option<String>)> = cur
            .open_errors
            .iter()
            .zip(&hits)
            .filter(|(_, h)| **h)
            .map(|(o, _)| o)
            .map(|o| {
                let mut files: Vec<String> = Vec::new();
                for p in &cur.change_log[o.files_then.min(changes_before)..changes_before] {
                    if !files.contains(p) && files.len() < crate::extract::digest::MAX_ENTRIES {
                        files.push(p.clone());
                    }
                }
                (o.at, files, o.cured_by.clone())
            })
            .collect();
        let side = if settles {
            cur.conflict_side.take()
        } else {
            None
        };
        for (at, files, cured_by) in changed_since {
            let e = &mut cur.turn.errors[at];
            e.resolved = true;
            // Conflicts settled by taking one side (`git checkout --theirs
            // CLAUDE.md`): that is how.
            if let Some(side) = side.as_ref().filter(|_| stopped_on_conflicts(e)) {
                e.resolved_by = Some(side.clone());
            } else if !same_command(&e.target, &first) {
                e.resolved_by = Some(first.clone());
            } else if files.is_empty() {
                // The same command again, after a step that made it work.
                e.resolved_by = cured_by;
            }
            e.fixed_in = files;
        }
        let mut hits = hits.into_iter();
        cur.open_errors.retain(|_| !hits.next().unwrap_or(false));
    }

    /// What a background check printed, or its exit code, once known:
    /// its counts and its outcome. Counts, once read, are final.
    fn background_outcome(
        &mut self,
        which: impl Fn(&Background) -> bool,
        output: &str,
        exit: Option<i32>,
    ) {
        let cur = self.cur();
        let mut counted = Vec::new();
        for b in cur.background.iter().filter(|b| which(b)) {
            let Some(c) = cur.turn.checks.get_mut(b.at) else {
                continue;
            };
            let (passed, failed) = if c.test {
                shell::test_counts(output)
            } else {
                (None, None)
            };
            let counts = passed.is_some() || failed.is_some();
            if !counts && exit.is_none() {
                continue;
            }
            if counts {
                c.passed = passed;
                c.failed = failed;
                counted.push(b.at);
            }
            if let Some(cov) = c.test.then(|| shell::coverage(output)).flatten() {
                c.coverage = Some(cov);
            }
            c.ok = exit.map_or(c.ok, |e| e == 0) && c.failed.unwrap_or(0) == 0;
            let lines: Vec<&str> = output.lines().collect();
            let said = if c.ok {
                summary_line(&lines)
            } else {
                clean::failure_line(&lines)
            };
            if let Some(said) = said {
                c.summary = said;
            }
        }
        cur.background.retain(|b| !counted.contains(&b.at));
    }

    fn failed(&mut self, call: &Call, text: &str, tur: Option<&ToolUseResult>) {
        // The client wraps its own refusals (a stale read, a sibling call
        // that failed) in this tag; a user's words never are.
        let from_client = text.trim_start().starts_with("<tool_use_error>");
        let text = text
            .replace("<tool_use_error>", "")
            .replace("</tool_use_error>", "");
        // A hook that blocked the call may print its message JSON-escaped:
        // `failed:\n\n[FORMAT] …` on one line is several lines.
        let first_line = text.lines().next().unwrap_or("");
        let text = if first_line.matches("\\n").count() >= 2 {
            text.replace("\\n", "\n")
        } else {
            text
        };
        let text = text.trim();
        let target = call
            .command
            .as_deref()
            .map(|c| self.rebased_cd(failing_line(c)))
            .or_else(|| call.path.clone())
            // A plan is known by its title.
            .or_else(|| call.plan.as_deref().and_then(crate::extract::plan_title))
            .unwrap_or_default();
        // The user said no: their choice, with their reason.
        // Only a 2.0.x or newer client, outside its own wrapper, may put
        // the user's words where the result goes.
        let words_possible = !from_client && !self.old_client;
        if let Some(reason) = declined_reason(text, call, words_possible) {
            let cur = self.cur();
            cur.just_declined = true;
            cur.turn.declined.push(Declined {
                tool: call.name.clone(),
                target,
                reason,
            });
            return;
        }
        let files_then = self.cur().change_log.len();
        // The client refused the call for want of a permission: what was
        // asked for did not happen.
        if is_permission_refusal(text)
            && matches!(
                call.name.as_str(),
                "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "Bash"
            )
        {
            let key = format!("{}:{target}", call.name);
            self.push_error(
                call,
                target,
                "permission not granted".into(),
                key,
                files_then,
            );
            return;
        }
        if call.name == "Bash"
            && let Some(cmd) = call.command.clone()
        {
            let output = bash_output(text, tur);
            // Effects of a failed command: a failed check is a check.
            self.bash_done(&cmd, false, &output);
            let effects = shell::effects(&cmd);
            let is_check = effects.iter().any(|e| matches!(e, Effect::Check { .. }))
                && !refused_command_line(&output);
            // `gh run watch --exit-status` failing with the run: the CI run
            // says it, with its failed steps.
            let watched = effects.iter().any(|e| matches!(e, Effect::WatchCi))
                && shell::ci_run(&output).is_some();
            // `tool --help` crashing is the tool broken, not an answer.
            let crashed =
                is_help_probe(&cmd) && output.lines().any(|l| clean::is_exception_line(l.trim()));
            // A server run under a time limit to see it start: killed by
            // the limit once it said it was up is no failure.
            let came_up = text.starts_with("Command timed out") && server_came_up(&output);
            if is_check || watched || came_up || (is_probe(&cmd) && !crashed) || is_model_slip(text)
            {
                // Failing tests are in `checks`; a probe (`ls x`, `grep`)
                // failing is an answer, not a problem.
                return;
            }
            let lines: Vec<&str> = output.lines().filter(|l| !is_exit_code(l)).collect();
            let message = clean::telling_line(&lines).unwrap_or_default();
            let open = self.cur().open_errors.len();
            // What the failed line itself did before failing (a `git rm`
            // ahead of the step that failed) fixes nothing of it.
            let files_then = self.cur().change_log.len();
            self.push_error(call, target, message, error_key(&cmd), files_then);
            let deletes: Vec<String> = deleted_paths(&effects).map(|p| self.path(p)).collect();
            if let Some(o) = self.cur().open_errors.get_mut(open) {
                o.refused = refused_command_line(&output);
                // A deletion is got past by removing the same thing, not by
                // any `rm -rf` that works.
                let rm = o
                    .key
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| w == "rm" || w == "rmdir");
                if rm && !deletes.is_empty() {
                    o.key = format!("delete:{}", o.key);
                }
                o.deletes = deletes;
            }
            return;
        }
        if !reports_problems(&call.name) {
            return;
        }
        let key = format!("{}:{target}", call.name);
        match edit_slip(&call.name, text) {
            Some(EditSlip::ChangedUnder) => {
                // Something else writes the files between two calls (a
                // formatter hook, the user's editor): worth knowing once a
                // turn, not at each file.
                let message = first_sentence(text);
                let told =
                    |e: &ToolError| edit_slip(&e.tool, &e.message) == Some(EditSlip::ChangedUnder);
                if self.cur().turn.errors.iter().any(told) {
                    return;
                }
                self.push_error(call, target, message, key, files_then);
            }
            Some(EditSlip::NotFound) => {
                let at = self.cur().turn.errors.len();
                self.push_error(call, target, first_sentence(text), key, files_then);
                let cur = self.cur();
                if cur.turn.errors.len() > at {
                    // Kept only if the model then says why (tabs, a
                    // reformatted file): a bare retry teaches nothing.
                    cur.slips.push(at);
                    cur.awaiting_cause = Some(Failure::Slip(at, 2));
                }
            }
            None if is_model_slip(text) => {}
            None => {
                let lines: Vec<&str> = text.lines().collect();
                let message = clean::telling_line(&lines).unwrap_or_default();
                self.push_error(call, target, message, key, files_then);
            }
        }
    }

    fn push_error(
        &mut self,
        call: &Call,
        target: String,
        message: String,
        key: String,
        files_then: usize,
    ) {
        let cur = self.cur();
        if cur.turn.errors.len() >= BUILD_CAP
            || cur
                .turn
                .errors
                .iter()
                .any(|e| e.target == target && e.message == message)
        {
            return;
        }
        cur.open_errors.push(OpenError {
            at: cur.turn.errors.len(),
            key,
            files_then,
            cured_by: None,
            refused: false,
            deletes: Vec::new(),
        });
        cur.awaiting_cause = Some(Failure::Error(cur.turn.errors.len()));
        cur.turn.errors.push(ToolError {
            tool: call.name.clone(),
            target,
            message,
            resolved: false,
            fixed_in: Vec::new(),
            resolved_by: None,
            cause: None,
        });
    }
}

/// `Command running in background with ID: b61e392. Output is being
/// written to: …`: the task's id.
fn background_id(output: &str) -> Option<String> {
    let (_, rest) = output.split_once("running in background with ID: ")?;
    let id: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    (!id.is_empty()).then_some(id)
}

/// `<name>value</name>` in a tool's result or a notice, trimmed.
fn tag_of<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    crate::transcript::text::tag_content(text, name).map(str::trim)
}

/// A file as the Read tool shows it (`12\t405 passed`), without its line
/// numbers.
fn without_line_numbers(text: &str) -> String {
    text.lines()
        .map(|l| match l.trim_start().split_once('\t') {
            Some((n, rest)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => rest,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The slips of a turn the model said nothing of: gone, with what waited
/// on them.
fn drop_silent_slips(c: &mut Current) {
    let drop: Vec<usize> = std::mem::take(&mut c.slips)
        .into_iter()
        .filter(|at| c.turn.errors.get(*at).is_some_and(|e| e.cause.is_none()))
        .collect();
    if drop.is_empty() {
        return;
    }
    c.open_errors.retain(|o| !drop.contains(&o.at));
    for o in &mut c.open_errors {
        o.at -= drop.iter().filter(|d| **d < o.at).count();
    }
    let mut at = 0;
    c.turn.errors.retain(|_| {
        at += 1;
        !drop.contains(&(at - 1))
    });
}

/// The final answer of a turn: its texts after the last tool call, else
/// its last text; after what it had answered before a background task's
/// notice ("All done: …", then "That was the earlier run, no action
/// needed").
fn answer_of(c: &Current) -> Option<String> {
    let now = if !c.texts_since_tool.is_empty() {
        Some(c.texts_since_tool.join("\n\n"))
    } else if c.answered.is_empty() {
        c.last_text.clone()
    } else {
        None
    };
    let parts: Vec<&str> = c
        .answered
        .iter()
        .map(String::as_str)
        .chain(now.as_deref())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// A program that refused its command line (clap's `error: unrecognized
/// subcommand 'bun'`, `Unknown command`): what was asked never ran.
fn refused_command_line(output: &str) -> bool {
    output.lines().take(20).any(|l| {
        let l = l.trim().to_lowercase();
        l.starts_with("error: unrecognized subcommand")
            || l.starts_with("error: unexpected argument")
            || l.starts_with("error: unknown command")
            || l.starts_with("unknown command")
            || l.starts_with("error: no such command")
            || l.starts_with("error: unknown option")
            || l.starts_with("error: unrecognized arguments")
            || l.starts_with("error: unknown flag")
            || l.contains(": unrecognized option")
            || l.contains(": invalid option")
            || l.contains(": illegal option")
    })
}

/// An output that is only the shell refusing to run the line (`(eval):1:
/// no matches found: x?ref=y`, `zsh: command not found: x`), separators
/// aside.
fn shell_refused_all(output: &str) -> bool {
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && l.chars().any(char::is_alphanumeric))
        .collect();
    !lines.is_empty()
        && lines.len() <= 6
        && lines.iter().all(|l| {
            let shell = l.starts_with("(eval):") || l.starts_with("zsh:") || l.starts_with("bash:");
            shell && (l.contains("no matches found") || l.contains("command not found"))
        })
}

/// A request that points at something just shown ("fix these").
fn points_back(request: &str) -> bool {
    let lower = request.to_lowercase();
    // "Debug why I cannot run the tests": what the shell just printed is
    // the trouble spoken of.
    [
        "these", "this", "that", "them", "those", "it", "ça", "ces", "cela", "ceci", "why",
        "cannot", "can't", "debug", "pourquoi", "marche",
    ]
    .iter()
    .any(|w| clean::has_word(&lower, w))
}

/// Skill checklist steps kept per session (carried in the cursor).
const MAX_SKILL_STEPS: usize = 120;

/// The words a checklist step is matched on: lowercase, three letters or
/// more, what is in parentheses left out (`Explore project context (web
/// app)` adds the project's words to the skill's step).
fn step_words(text: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    // A long or mixed token (a key, a hash) is no word of a step, and
    // steps are kept in the cursor.
    let wordlike = |w: &str| {
        let n = w.chars().count();
        (3..=20).contains(&n) && !(n >= 12 && w.chars().any(|c| c.is_ascii_digit()))
    };
    plain
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| wordlike(w))
        .map(str::to_owned)
        .collect()
}

/// A to-do that is a step of a skill's own checklist (`Spec self-review`,
/// `Propose 2-3 approaches with tradeoffs`): nearly all its words on one
/// line of the skill, starting with its first.
fn skill_step(todo: &str, steps: &[String]) -> bool {
    let words = step_words(todo);
    if words.len() < 2 || words.len() > 10 {
        return false;
    }
    steps.iter().any(|step| {
        let line: Vec<&str> = step.split(' ').collect();
        // `tradeoffs` for the skill's `trade-offs`.
        let joined = step.replace(' ', "");
        let on_line = words
            .iter()
            .filter(|w| line.contains(&w.as_str()) || (w.len() >= 6 && joined.contains(w.as_str())))
            .count();
        line.contains(&words[0].as_str()) && on_line * 4 >= words.len() * 3
    })
}

fn todo_status(s: &str) -> Option<TodoStatus> {
    match s {
        "pending" => Some(TodoStatus::Pending),
        "in_progress" => Some(TodoStatus::InProgress),
        "completed" => Some(TodoStatus::Completed),
        _ => None,
    }
}

/// Records one change of `path`, merged with what the turn already did to
/// it: created then edited is created; created then deleted is gone.
pub fn note_change(files: &mut Vec<FileChange>, path: &str, change: Change, from: Option<&str>) {
    let known = files.iter().position(|f| f.path == path);
    if known.is_none() && files.len() >= BUILD_CAP {
        return;
    }
    if let Some(at) = known {
        let before = files[at].change;
        match (before, change) {
            (Change::Created, Change::Deleted) => {
                files.remove(at);
            }
            (Change::Created | Change::Moved, Change::Updated) => {}
            _ => files[at].change = change,
        }
        return;
    }
    // A moved file's later edits are on its new path; its old entry goes.
    if let Some(from) = from
        && let Some(at) = files.iter().position(|f| f.path == from)
    {
        let old = files.remove(at);
        if old.change == Change::Created {
            files.push(FileChange {
                path: path.to_owned(),
                change: Change::Created,
                from: None,
            });
            return;
        }
    }
    files.push(FileChange {
        path: path.to_owned(),
        change,
        from: from.map(str::to_owned),
    });
}

/// What a Bash call printed: the structured account when there is one.
fn bash_output(text: &str, tur: Option<&ToolUseResult>) -> String {
    let out = tur
        .map(|t| {
            [t.stdout.as_deref(), t.stderr.as_deref()]
                .into_iter()
                .flatten()
                .filter(|s| !s.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|out| !out.is_empty())
        .unwrap_or_else(|| text.to_owned());
    // Coloured output (vitest, jest under FORCE_COLOR): `Tests  14 passed`
    // is read without its escape codes.
    if out.contains('\x1b') {
        crate::format::strip_ansi(&out)
    } else {
        out
    }
}

fn is_exit_code(line: &str) -> bool {
    line.trim()
        .strip_prefix("Exit code ")
        .is_some_and(|n| n.trim().parse::<i32>().is_ok())
}

/// The last line of a successful run that reads like its summary.
fn summary_line(lines: &[&str]) -> Option<String> {
    lines
        .iter()
        .rev()
        .map(|l| l.trim().trim_matches('=').trim())
        .find(|l| {
            let l = l.to_lowercase();
            l.contains("passed")
                || says_clean(&l)
                || l.contains(" tests, ")
                || l.contains(" test, ")
                || l.contains("test result")
                || l.contains("passing")
                || l.contains("built")
                || l.contains("finished")
                || l.contains("success")
        })
        .map(str::to_owned)
}

/// A linter's or type checker's closing line when it found nothing:
/// `0 issues.`, `Found 0 errors`, `No problems found` (lower-cased).
fn says_clean(l: &str) -> bool {
    let words: Vec<&str> = l
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|p| {
        matches!(p[0], "0" | "no")
            && matches!(
                p[1],
                "issue" | "issues" | "error" | "errors" | "problem" | "problems"
            )
    })
}

/// Which program a command runs, to pair a failure with a later success:
/// the first segment that does something, by its first two words.
fn command_key(cmd: &str) -> String {
    let first = logical_first_line(cmd);
    let segs = segments(&first);
    segment_key(segs.first().copied().unwrap_or(&first))
}

/// The programs a command line runs, in order: the pieces of its `&&`,
/// `||` or `;` chain that run none ([`crate::extract::is_preamble`]) left
/// out.
fn segments(line: &str) -> Vec<&str> {
    line.split("&&")
        .flat_map(|s| s.split("||"))
        .flat_map(|s| s.split(';'))
        .map(str::trim)
        .filter(|s| !crate::extract::is_preamble(s))
        .collect()
}

/// Two command lines that differ only in what trims their output
/// (`2>&1 | tail -20`): run again, not run otherwise.
fn same_command(a: &str, b: &str) -> bool {
    crate::extract::without_output_trim(a) == crate::extract::without_output_trim(b)
}

/// The line of a failed command that failed: a script of a few lines
/// fails at its end (`chmod +x t.sh` then `bash t.sh`); a here-document's
/// last lines are its body, so such a command is known by its first.
fn failing_line(cmd: &str) -> &str {
    let lines: Vec<&str> = cmd
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let first = cmd.lines().next().unwrap_or("").trim();
    // A quoted string or a `\`-continued line going on below, a loop or a
    // test whose last line only closes it, `set -e` failing anywhere: one
    // command, known by its first line.
    let block = |l: &&str| {
        let w = l.split_whitespace().next().unwrap_or("");
        matches!(
            w,
            "for" | "while" | "until" | "if" | "case" | "done" | "fi" | "esac" | "}" | ")" | "set"
        )
    };
    let one_line = first.matches('"').count() % 2 == 1
        || first.matches('\'').count() % 2 == 1
        || lines.iter().any(|l| l.ends_with('\\'))
        || lines.iter().any(block);
    match lines.as_slice() {
        [.., last] if (2..=10).contains(&lines.len()) && !cmd.contains("<<") && !one_line => last,
        _ => first,
    }
}

/// What a failed command's error is filed under: the chain's last program,
/// the one the chain was for (`git add -A && git commit` failed on the
/// commit; `cd x && pytest` on the tests).
fn error_key(cmd: &str) -> String {
    let first = failing_line(cmd);
    segments(first)
        .last()
        .map(|s| segment_key(s))
        .unwrap_or_else(|| command_key(cmd))
}

/// Every program of a command's first line: a success resolves the errors
/// of any of them (`bd sync --import-only && bd ready` after `bd ready`
/// failed asking for exactly that).
/// A command that changes the repository's or the machine's state without
/// editing a file the turn tracks: syncing with the remote, stashing,
/// switching branches, installing, granting a permission. Run between a
/// failure and the same command succeeding, it is what cured it.
fn changes_state(first_line: &str) -> bool {
    segments(first_line).into_iter().any(|seg| {
        let words: Vec<&str> = seg
            .split_whitespace()
            .filter(|w| !w.contains('='))
            .collect();
        let (prog, sub) = (
            words.first().copied().unwrap_or(""),
            words.get(1).copied().unwrap_or(""),
        );
        match prog {
            "git" => matches!(
                sub,
                "pull"
                    | "fetch"
                    | "rebase"
                    | "stash"
                    | "reset"
                    | "checkout"
                    | "switch"
                    | "merge"
                    | "restore"
                    | "remote"
                    | "submodule"
                    | "config"
                    | "add"
                    | "rm"
            ),
            "npm" | "pnpm" | "yarn" | "bun" | "pip" | "pip3" | "uv" | "cargo" | "go" | "gem"
            | "poetry" | "composer" => {
                matches!(sub, "install" | "i" | "add" | "sync" | "ci" | "get")
            }
            "brew" | "apt" | "apt-get" | "dnf" => sub == "install",
            "chmod" | "chown" | "ssh-add" => true,
            "gh" => sub == "auth",
            _ => false,
        }
    })
}

fn command_keys(cmd: &str) -> Vec<String> {
    let first = logical_first_line(cmd);
    let mut keys: Vec<String> = segments(&first).into_iter().map(segment_key).collect();
    keys.push(command_key(cmd));
    keys
}

/// A command's first line (past leading comments) with the lines a
/// trailing `\\` continues it
/// onto (`git push origin --delete \\` then the branches): the command as
/// it runs, not its first fragment.
fn logical_first_line(cmd: &str) -> String {
    let mut out = String::new();
    // A leading comment (`# Delete the merged branches`) runs nothing.
    let lines = cmd
        .lines()
        .skip_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    for line in lines.take(12) {
        let line = line.trim();
        match line.strip_suffix('\\') {
            Some(head) => {
                out.push_str(head.trim_end());
                out.push(' ');
            }
            None => {
                out.push_str(line);
                return out;
            }
        }
    }
    out.trim_end().to_owned()
}

/// Whether a failed git merge, rebase, pick or pull stopped on conflicts
/// (not another tool's "could not apply").
fn stopped_on_conflicts(e: &ToolError) -> bool {
    const GIT: &[&str] = &[
        "git merge",
        "git rebase",
        "git cherry-pick",
        "git pull",
        "git stash",
        "git revert",
    ];
    const SAYS: &[&str] = &[
        "Automatic merge failed",
        "CONFLICT (",
        "Merge conflict in",
        "could not apply",
    ];
    e.tool == "Bash"
        && GIT.iter().any(|c| e.target.contains(c))
        && SAYS.iter().any(|m| e.message.contains(m))
}

/// Whether a command line ends by putting the tree back (`git checkout
/// f`, `git restore f`, `git stash pop`): what ran before it saw a tree
/// that is gone.
fn restores_after(cmd: &str) -> bool {
    // After `;` (or on a line of its own), the restore runs whatever the
    // run did; after `&&` it runs only if the run passed.
    let steps: Vec<&str> = cmd
        .lines()
        .flat_map(|l| l.split(';'))
        .map(|p| p.trim().trim_end_matches('\\').trim())
        .filter(|p| !p.is_empty())
        .collect();
    let Some((last, before)) = steps.split_last() else {
        return false;
    };
    // Something changed the tree for the run: an in-place edit, a stash, a
    // patch, a file written from another revision.
    let mutated = before.iter().flat_map(|s| s.split("&&")).any(|p| {
        let p = p.trim();
        let w: Vec<&str> = p.split_whitespace().collect();
        match w.as_slice() {
            ["sed", rest @ ..] => rest.iter().any(|a| a.starts_with("-i")),
            ["perl", rest @ ..] => rest.iter().any(|a| a.starts_with('-') && a.contains('i')),
            ["git", "stash", rest @ ..] => {
                !matches!(rest.first(), Some(&"list" | &"pop" | &"apply" | &"show"))
            }
            ["git", "apply" | "revert", ..] | ["patch", ..] => true,
            ["git", "show", ..] => p.contains('>'),
            ["git", "checkout", rev, "--", ..] => !rev.starts_with('-'),
            _ => false,
        }
    });
    if !mutated {
        return false;
    }
    let words: Vec<&str> = last.split_whitespace().collect();
    match words.as_slice() {
        ["git", "stash", "pop" | "apply", ..] => true,
        ["git", "restore", rest @ ..] => !rest.is_empty(),
        // `git checkout f` (or `-- f`), not `git checkout main`: a path.
        ["git", "checkout", rest @ ..] => {
            !rest
                .iter()
                .any(|w| w.starts_with("-b") || w.starts_with("-B"))
                && rest
                    .iter()
                    .any(|w| *w == "--" || w.contains('.') || w.contains('/'))
        }
        _ => false,
    }
}

/// The programs a command line that exited 0 ran to success: each piece
/// of an `&&` chain. With `;` or `||` in it, which pieces passed is not
/// known: the line keeps its first program's key, as every check does.
fn passing_keys(cmd: &str) -> Vec<String> {
    let first = logical_first_line(cmd);
    if first.contains(';') || first.contains("||") {
        vec![command_key(cmd)]
    } else {
        command_keys(cmd)
    }
}

fn segment_key(seg: &str) -> String {
    let words: Vec<&str> = seg
        .trim_start_matches('(')
        .split_whitespace()
        .filter(|w| !w.contains('='))
        // `(… && pytest)`: the subshell's parenthesis is not the program's.
        .map(|w| w.trim_end_matches(')'))
        .filter(|w| !w.is_empty())
        .collect();
    let skip = match words.first().copied() {
        Some("uv" | "poetry" | "pipenv" | "bundle") if words.get(1) == Some(&"run") => 2,
        Some("npx" | "time" | "sudo") => 1,
        Some("rtk") if matches!(words.get(1), Some(&"proxy" | &"test")) => 2,
        Some("rtk") => 1,
        _ => 0,
    };
    let words = &words[skip.min(words.len())..];
    // `bun run lint` is not `bun run test`: a script runner's key holds
    // the script.
    let take = match words {
        [prog, "run", ..] if matches!(*prog, "npm" | "pnpm" | "yarn" | "bun" | "deno" | "mise") => {
            3
        }
        _ => 2,
    };
    words
        .iter()
        .take(take)
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Commands that only look: their failure answers a question.
fn is_probe(cmd: &str) -> bool {
    let key = command_key(cmd);
    let prog = key.split_whitespace().next().unwrap_or("");
    matches!(
        prog,
        "ls" | "cat"
            | "head"
            | "tail"
            | "grep"
            | "rg"
            | "find"
            | "fd"
            | "which"
            | "type"
            | "test"
            | "["
            | "stat"
            | "file"
            | "wc"
            | "tree"
            | "echo"
            | "pwd"
            | "sleep"
            | "ps"
            | "lsof"
            | "diff"
            | "command"
            | "readlink"
            | "realpath"
            | "du"
            | "df"
            | "lsd"
            | "kill"
            | "pkill"
    ) || key.starts_with("git status")
        || key.starts_with("git log")
        || key.starts_with("git show")
        || key.starts_with("git diff")
        || key.starts_with("git branch")
        || key.starts_with("git rev-parse")
        || key.starts_with("python -c")
        || key.starts_with("python3 -c")
        || key.starts_with("node -e")
        || is_help_probe(cmd)
}

/// `tool --help`, `tool --version`: asking a program about itself.
fn is_help_probe(cmd: &str) -> bool {
    let key = command_key(cmd);
    key.ends_with("--help") || key.ends_with("--version")
}

fn is_permission_refusal(text: &str) -> bool {
    [
        "requested permissions",
        "haven't granted",
        "requires approval",
    ]
    .iter()
    .any(|s| text.contains(s))
}

/// Mistakes of the model's own tool use, which it fixes by itself on the
/// next call: never something to remember.
fn is_model_slip(text: &str) -> bool {
    const SLIPS: &[&str] = &[
        "File has not been read yet",
        "String to replace not found",
        "Found 2 matches",
        "matches of the string to replace",
        "InputValidationError",
        "No such tool available",
        "EISDIR",
        "File does not exist",
        "requested permissions",
        "requires approval",
        "was blocked",
        "haven't granted",
        "File content (",
        "exceeds maximum allowed",
        "is not running, so cannot be killed",
        "Modifications to files",
        "old_string and new_string",
        "File has been modified since read",
        "File has been unexpectedly modified",
        "Sibling tool call errored",
    ];
    SLIPS.iter().any(|s| text.contains(s))
}

/// Tools whose failure can be a problem of the project (not of the web,
/// nor of the model looking around).
fn reports_problems(tool: &str) -> bool {
    !matches!(
        tool,
        "Read"
            | "NotebookRead"
            | "Glob"
            | "Grep"
            | "LS"
            | "WebFetch"
            | "WebSearch"
            | "KillShell"
            | "KillBash"
            | "BashOutput"
            | "TodoWrite"
            | "ExitPlanMode"
            | "AskUserQuestion"
            | "ToolSearch"
            | "Task"
            | "Agent"
            | "SendMessage"
            | "TaskCreate"
            | "TaskUpdate"
            | "TaskList"
            | "TaskGet"
    )
}

/// `Some(reason)` when a failed call's text is the user declining it: the
/// client's rejection text, or (2.0.x and newer, when `words_possible`) the
/// user's own words in its place.
fn declined_reason(text: &str, call: &Call, words_possible: bool) -> Option<String> {
    const REJECTED: &[&str] = &[
        "The user doesn't want to proceed with this tool use",
        "The user doesn't want to take this action right now",
        "[Request interrupted by user for tool use]",
    ];
    if REJECTED.iter().any(|r| text.starts_with(r)) {
        // Older clients: "…reason for the rejection: x"; newer ones: "To
        // tell you how to proceed, the user said:\n x".
        let reason = ["reason for the rejection:", "the user said:"]
            .iter()
            .find_map(|lead| text.split_once(lead))
            .map(|(_, r)| r.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        // The question form's "Chat about this": the client's words, not
        // the user's, and no refusal (the user's next message says what).
        if reason.starts_with("The user wants to clarify these questions") {
            return Some(String::new()).filter(|_| call.name != "AskUserQuestion");
        }
        return Some(reason);
    }
    // The user typed in the permission prompt instead of approving: one or
    // two lines of prose, none of the words a failing program prints.
    let permissioned = words_possible
        && matches!(
            call.name.as_str(),
            "Bash" | "Edit" | "MultiEdit" | "Write" | "NotebookEdit" | "WebFetch"
        );
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    let prose = lines <= 3
        && text.len() < 800
        && text.contains(' ')
        && !text.starts_with("Exit code")
        && !clean::names_an_error(text)
        && !clean::is_log_line(text.lines().next().unwrap_or(""))
        && !is_model_slip(text)
        && !text.contains("status code")
        && !text.contains("command not found")
        && !is_shell_complaint(text)
        && text.chars().filter(|c| c.is_alphabetic()).count() * 3 > text.chars().count() * 2;
    (permissioned && prose).then(|| text.trim().to_owned())
}

/// The paths a command's effects delete, files and empty folders alike.
fn deleted_paths(effects: &[Effect]) -> impl Iterator<Item = &String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Delete(paths) | Effect::RemoveDir(paths) => Some(paths),
            _ => None,
        })
        .flatten()
}

/// Whether a program's output says a server it started is up
/// ("Chart server running at http://localhost:8080/", "Service started
/// successfully"), with no error after the client's own timeout line.
fn server_came_up(output: &str) -> bool {
    const UP: &[&str] = &[
        "running at http",
        "running on http",
        "listening on",
        "listening at",
        "started successfully",
        "server started",
        "server running",
        "started server",
        "ready in",
        "ready on http",
        "local:   http",
        "serving http",
        "application startup complete",
    ];
    // A phrase at a word's start: "ready in" is not "already in use".
    let says = |l: &str, p: &str| {
        l.match_indices(p).any(|(at, _)| {
            !l[..at]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        })
    };
    let lines = || output.lines().skip(1).map(str::to_lowercase);
    lines().any(|l| UP.iter().any(|u| says(&l, u)))
        && !lines().any(|l| {
            clean::is_exception_line(l.trim())
                || (l.contains("error") && !says(&l, "0 error") && !l.contains("no error"))
        })
}

/// A shell or a core utility saying why it could not do it (`mv: src/
/// is not a directory`, `(eval):1: no matches found: *.ts`): a program's
/// words, however much they read like a sentence.
fn is_shell_complaint(text: &str) -> bool {
    const ERRNO: &[&str] = &[
        "no such file or directory",
        "does not exist",
        "not a directory",
        "is a directory",
        "directory not empty",
        "no matches found",
        "permission denied",
        "file exists",
        "operation not permitted",
        "not permitted",
        "illegal option",
        "invalid option",
        "unknown option",
        "usage:",
        "read-only file system",
        "no space left",
        "device or resource busy",
        "bad substitution",
        "syntax error",
        "parse error",
    ];
    let t = text.trim_start();
    // `(eval):1:`, `zsh:1:`: a shell names itself and the line first; a
    // person's "no: use bun" has no line number.
    let program_first = t.split_whitespace().next().is_some_and(|w| {
        w.ends_with(':')
            && w.chars().any(|c| c.is_ascii_digit() || c == '(')
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "():._-/".contains(c))
    });
    let lower = t.to_lowercase();
    // "no, that folder does not exist anymore, use src/app": a person
    // speaks to someone, a program does not.
    const PERSON: &[&str] = &[
        "i", "i'm", "me", "my", "you", "your", "we", "us", "our", "please", "don't", "let's",
        "instead", "ask", "use", "keep", "no", "yes", "ok", "okay",
    ];
    let speaks = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| PERSON.contains(&w));
    program_first || (!speaks && ERRNO.iter().any(|e| lower.contains(e)))
}

/// Agent ids name files: nothing but the characters the client uses.
pub fn safe_agent_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests;
