//! The turn digest: what happened in a session since its last capture, as
//! facts with their evidence rather than raw text. `capture` builds it from
//! the transcript; every backend extracts from it (the offline one from its
//! structure, the LLM ones from its rendering), and an LLM's answer is
//! checked against it.
//!
//! Every text in it is whole when built; [`Digest::sanitized`] redacts, then
//! cuts, in that order (a cut first could leave half a secret).

use serde::{Deserialize, Serialize};

/// One or more turns: the Stop that captures them may come after turns that
/// were interrupted or whose Stop never came.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    pub turns: Vec<Turn>,
}

/// What the user asked for, with what the client wrapped around it removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// Work to do (the default for any prose that is not one of the others).
    #[default]
    Task,
    /// A question to be answered.
    Question,
    /// No request: thanks, ok, fair enough, only IDE context, only a paste.
    None,
    /// A slash command (`/review`, `/init`): `request` is `/name args`.
    Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Created,
    Updated,
    Deleted,
    /// Moved or renamed; `FileChange::from` holds the old path.
    Moved,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: String,
    pub change: Change,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Commit,
    Push,
    Merge,
    Tag,
    Release,
    Migration,
    Install,
    Deploy,
    /// An issue opened in a tracker (`bd create`, `gh issue create`): work
    /// the session left for later, under the tracker's id.
    TicketOpened,
    /// Issues closed in a tracker (`bd close a b`, `gh issue close 12`).
    TicketClosed,
    /// A comment posted on an issue or a pull request (`gh issue comment
    /// 12`, `gh pr comment`): what the people there were told.
    Commented,
    /// Another host changed over ssh (a file written, a service reloaded):
    /// `host: what, what`.
    Remote,
}

/// A command that changed the world outside the working tree's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    pub kind: ActionKind,
    /// The commit message's first line, the tag, the package, the branch…
    pub detail: String,
    /// The command line (first line).
    pub command: String,
    pub ok: bool,
    /// What the tool answered the action is known by: the id of an opened
    /// ticket (`spotter-0p7`, `#12`), a commit's short hash, an opened
    /// pull request's number (`#106`). Empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// A commit made with `--no-verify`: the hooks that check it did not
    /// run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped_hooks: bool,
    /// The branch a commit went on, as git printed it (`[develop a4253d1]
    /// …`): the turn may have switched branch since, or before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The commits a push moved its branch over, as git printed them
    /// (`dfb6f1d..69c48f6`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<String>,
}

/// A test or build run and what it reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// The command line (first line).
    pub command: String,
    /// A test run (else a build, a lint or a type check).
    #[serde(default)]
    pub test: bool,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<u64>,
    /// The total coverage a test run printed (`100%`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<String>,
    /// The line that says what happened (the summary, or the error).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// A failing run that a later run of the same program passed: the
    /// files changed in between.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed_in: Vec<String>,
    /// Files changed after this run in its turn: what it said may not hold
    /// for the work the turn left.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changed_after: bool,
    /// What the model said of the failure right after it, when it says
    /// why ("the test still expects schema_version 1.0").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
}

/// A failed tool call, paired with what resolved it later in the turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolError {
    pub tool: String,
    /// The command or the file the call was about.
    pub target: String,
    /// The line of the output that says what went wrong.
    pub message: String,
    /// The same thing worked later in the turn.
    #[serde(default)]
    pub resolved: bool,
    /// Files changed between the failure and the success: the fix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed_in: Vec<String>,
    /// The command that then worked, when it was not the same one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<String>,
    /// What the model said of the failure right after it, when it says
    /// why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
}

/// An error of an earlier turn (its Stop already wrote it as unresolved)
/// that a command of this turn got past.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EarlierFix {
    pub tool: String,
    /// The failed call's target, as [`ToolError::target`] had it.
    pub target: String,
    /// The command that then worked.
    pub by: String,
}

/// The user said no to a tool call (with their reason when they gave one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declined {
    pub tool: String,
    pub target: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Todo {
    pub text: String,
    pub status: TodoStatus,
}

/// A tracker's issue the turn looked at, and its title: what an id in the
/// request is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TicketSeen {
    pub id: String,
    pub title: String,
}

/// Commits a branch holds that its upstream does not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ahead {
    pub upstream: String,
    pub commits: u32,
}

/// A CI run the turn looked at (`gh run list`, `gh run view`, `gh run
/// watch`), as it last saw it: whether what was pushed passes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CiRun {
    /// The workflow's name (`CI`, `Build and Deploy`).
    pub workflow: String,
    /// The run's id (`22424267252`).
    pub id: String,
    /// The branch it ran on, when the output said it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub branch: String,
    pub state: CiState,
    /// The failed jobs' failed steps (`Test`), when a failed run's view
    /// listed them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_steps: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CiState {
    Queued,
    Running,
    Passed,
    Failed,
    Cancelled,
}

/// A question the model asked and the user's own answer: a choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub question: String,
    pub answer: String,
}

/// A subagent's work, read from its own transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subagent {
    /// What it was asked to do (the call's description).
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileChange>,
    /// Its errors that nothing in its own work resolved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ToolError>,
    /// The first lines of its report.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub report: String,
}

/// One turn: a request and everything up to the next one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// RFC 3339 timestamp of the request's record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The request, cleaned (see [`RequestKind`]); may be empty.
    #[serde(default)]
    pub request: String,
    #[serde(default)]
    pub kind: RequestKind,
    /// The session's first request: its goal whatever its form.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first: bool,
    /// The turn before ended with the user declining a call or stopping
    /// it: this request is the user's correction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub after_refusal: bool,
    /// The question the previous answer ended on, when this request
    /// answers it: the user's choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replies_to: Option<String>,
    /// The option of those the previous answer offered ("**B. Three
    /// tabs**") this request picks, as label and gist (`B — Three tabs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub picked: Option<String>,
    /// IDE context sent with the request (`selection: path (lines 3-9)`,
    /// `opened: path`): context for the goal, never the goal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ide: Vec<String>,
    /// The telling line of each log or stack trace the user pasted: a
    /// problem, not a goal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pasted: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileChange>,
    /// Files read that matter to the request (named in it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<String>,
    /// What the turn looked up on the web: WebSearch queries and the
    /// addresses WebFetch read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub web: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Check>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ToolError>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declined: Vec<Declined>,
    /// Errors left unresolved by earlier turns that this one resolved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resolved_earlier: Vec<EarlierFix>,
    /// The user stopped the turn (Esc) before it ended.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The model's to-do list as the turn left it (TodoWrite, or the task
    /// tools of newer clients).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub todos: Vec<Todo>,
    /// A plan the user accepted (ExitPlanMode), its first lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Choice>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<Subagent>,
    /// What the model said it found on the way, before its last text
    /// ("Key findings: …", "The root cause is …"): knowledge the final
    /// answer often leaves out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
    /// Tracker issues the turn looked at (`bd show`, `gh issue view`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tickets: Vec<TicketSeen>,
    /// CI runs the turn looked at, each as last seen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ci: Vec<CiRun>,
    /// Commits not pushed as the turn last saw it (`git status`: ahead of
    /// `origin/main` by 2), cleared by a push or a status level with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ahead: Option<Ahead>,
    /// The git branch the client recorded as the turn ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The model's last text of the turn.
    #[serde(default)]
    pub answer: String,
    /// The turn began with a user record (not the rest of a turn captured
    /// earlier, read on from a cursor). Not spooled: only the pass uses it.
    #[serde(skip)]
    pub prompted: bool,
    /// Tool calls the model made in the turn: a bare "yes" followed by
    /// work is a go-ahead, not chit-chat.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tool_calls: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Longest request kept, in characters.
pub const MAX_REQUEST_CHARS: usize = 4000;
/// Longest answer kept (its end), in characters: a review's findings
/// open its answer, and a long review runs to 10 000 characters or more.
pub const MAX_ANSWER_CHARS: usize = 16_000;
/// Longest plan or subagent report kept, in characters.
pub const MAX_PLAN_CHARS: usize = 1500;
/// Longest other entry (a command, an error line, a to-do), in characters.
pub const MAX_ENTRY_CHARS: usize = 300;
/// Longest file path kept: a cut path names another file, so the cap only
/// guards against absurd values.
pub const MAX_PATH_CHARS: usize = 1000;
/// Most entries kept in each list of a turn.
pub const MAX_ENTRIES: usize = 60;
/// Most turns kept in one digest (the newest).
pub const MAX_TURNS: usize = 30;

impl Digest {
    /// The newest turn with a request, else the newest turn.
    pub fn last(&self) -> Option<&Turn> {
        self.turns
            .iter()
            .rev()
            .find(|t| t.kind != RequestKind::None)
            .or(self.turns.last())
    }

    pub fn is_empty(&self) -> bool {
        self.turns.iter().all(Turn::is_empty)
    }

    /// Applies `clean` (the caller's redactor) to every text, then cuts each
    /// to its cap.
    pub fn sanitized(mut self, clean: &dyn Fn(&str) -> String) -> Digest {
        let keep = self.turns.len().saturating_sub(MAX_TURNS);
        self.turns.drain(..keep);
        for t in &mut self.turns {
            t.visit_texts(&mut |kind, s| {
                let c = clean(s);
                *s = match kind {
                    TextKind::Request => head(&c, MAX_REQUEST_CHARS),
                    TextKind::Answer => tail(&c, MAX_ANSWER_CHARS),
                    TextKind::Long => head(&c, MAX_PLAN_CHARS),
                    TextKind::Path => head(&c, MAX_PATH_CHARS),
                    TextKind::Entry => head(&c, MAX_ENTRY_CHARS),
                }
            });
            t.cap_lists();
        }
        self
    }

    /// Every text, mutably (redaction in the worker, defence in depth).
    pub fn map_texts(&mut self, f: &mut dyn FnMut(&mut String)) {
        for t in &mut self.turns {
            t.visit_texts(&mut |_, s| f(s));
        }
    }
}

/// Which cap a text gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    Request,
    Answer,
    Long,
    Path,
    Entry,
}

impl Turn {
    /// Nothing to remember: no request and no activity.
    pub fn is_empty(&self) -> bool {
        self.kind == RequestKind::None
            && self.pasted.is_empty()
            && self.files.is_empty()
            && self.actions.is_empty()
            && self.checks.is_empty()
            && self.errors.is_empty()
            && self.todos.is_empty()
            && self.plan.is_none()
            && self.choices.is_empty()
            && self.tool_calls == 0
            && self
                .subagents
                .iter()
                .all(|s| s.files.is_empty() && s.errors.is_empty())
    }

    pub fn visit_texts(&mut self, f: &mut dyn FnMut(TextKind, &mut String)) {
        use TextKind::*;
        f(Request, &mut self.request);
        f(Answer, &mut self.answer);
        if let Some(q) = &mut self.replies_to {
            f(Entry, q);
        }
        if let Some(p) = &mut self.picked {
            f(Entry, p);
        }
        if let Some(b) = &mut self.branch {
            f(Entry, b);
        }
        if let Some(a) = &mut self.ahead {
            f(Entry, &mut a.upstream);
        }
        for s in self.ide.iter_mut().chain(&mut self.pasted) {
            f(Entry, s);
        }
        let file = |f: &mut dyn FnMut(TextKind, &mut String), c: &mut FileChange| {
            f(Path, &mut c.path);
            if let Some(from) = &mut c.from {
                f(Path, from);
            }
        };
        for c in &mut self.files {
            file(f, c);
        }
        for r in &mut self.reads {
            f(Path, r);
        }
        for w in &mut self.web {
            f(Entry, w);
        }
        for a in &mut self.actions {
            f(Entry, &mut a.detail);
            f(Entry, &mut a.command);
            f(Entry, &mut a.id);
            for b in [&mut a.branch, &mut a.range].into_iter().flatten() {
                f(Entry, b);
            }
        }
        for c in &mut self.checks {
            f(Entry, &mut c.command);
            f(Entry, &mut c.summary);
            for p in &mut c.fixed_in {
                f(Path, p);
            }
            if let Some(x) = &mut c.cause {
                f(Entry, x);
            }
        }
        for e in &mut self.errors {
            f(Entry, &mut e.tool);
            f(Entry, &mut e.target);
            f(Entry, &mut e.message);
            for p in &mut e.fixed_in {
                f(Path, p);
            }
            if let Some(r) = &mut e.resolved_by {
                f(Entry, r);
            }
            if let Some(x) = &mut e.cause {
                f(Entry, x);
            }
        }
        for d in &mut self.declined {
            f(Entry, &mut d.tool);
            f(Entry, &mut d.target);
            f(Entry, &mut d.reason);
        }
        for t in &mut self.todos {
            f(Entry, &mut t.text);
        }
        for x in &mut self.findings {
            f(Entry, x);
        }
        for x in &mut self.tickets {
            f(Entry, &mut x.id);
            f(Entry, &mut x.title);
        }
        for r in &mut self.ci {
            f(Entry, &mut r.workflow);
            f(Entry, &mut r.id);
            f(Entry, &mut r.branch);
            for step in &mut r.failed_steps {
                f(Entry, step);
            }
        }
        if let Some(p) = &mut self.plan {
            f(Long, p);
        }
        for c in &mut self.choices {
            f(Entry, &mut c.question);
            f(Entry, &mut c.answer);
        }
        for s in &mut self.subagents {
            f(Entry, &mut s.description);
            f(Long, &mut s.report);
            for c in &mut s.files {
                file(f, c);
            }
            // Every text of a subagent's errors, as of the turn's own.
            for e in &mut s.errors {
                f(Entry, &mut e.tool);
                f(Entry, &mut e.target);
                f(Entry, &mut e.message);
                for p in &mut e.fixed_in {
                    f(Path, p);
                }
                for x in e.resolved_by.iter_mut().chain(&mut e.cause) {
                    f(Entry, x);
                }
            }
        }
    }

    fn cap_lists(&mut self) {
        self.ide.truncate(MAX_ENTRIES);
        self.pasted.truncate(MAX_ENTRIES);
        self.files.truncate(MAX_ENTRIES);
        self.reads.truncate(MAX_ENTRIES);
        self.web.truncate(MAX_ENTRIES);
        self.actions.truncate(MAX_ENTRIES);
        self.checks.truncate(MAX_ENTRIES);
        self.errors.truncate(MAX_ENTRIES);
        self.declined.truncate(MAX_ENTRIES);
        self.todos.truncate(MAX_ENTRIES);
        self.findings.truncate(MAX_ENTRIES);
        self.tickets.truncate(MAX_ENTRIES);
        self.ci.truncate(MAX_ENTRIES);
        self.choices.truncate(MAX_ENTRIES);
        self.subagents.truncate(MAX_ENTRIES);
        for s in &mut self.subagents {
            s.files.truncate(MAX_ENTRIES);
            s.errors.truncate(MAX_ENTRIES);
        }
    }

    /// Files this turn and its subagents changed, the turn's own first.
    pub fn all_files(&self) -> impl Iterator<Item = &FileChange> {
        self.files
            .iter()
            .chain(self.subagents.iter().flat_map(|s| s.files.iter()))
    }
}

/// At most `max` characters from the start, ending in `…` when cut.
pub fn head(text: &str, max: usize) -> String {
    crate::transcript::text::truncate_head(text, max)
}

/// At most `max` characters from the end, starting with `…` when cut.
pub fn tail(text: &str, max: usize) -> String {
    crate::transcript::truncate_tail(text, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitized_redacts_before_it_cuts() {
        let secret = "SECRET".repeat(100);
        let mut t = Turn {
            request: format!("{}{secret}", "x".repeat(MAX_REQUEST_CHARS - 3)),
            ..Default::default()
        };
        t.errors.push(ToolError {
            tool: "Bash".into(),
            target: "make".into(),
            message: secret.clone(),
            resolved: false,
            fixed_in: Vec::new(),
            resolved_by: None,
            cause: None,
        });
        let d = Digest { turns: vec![t] }.sanitized(&|s| s.replace("SECRET", "[x]"));
        let t = &d.turns[0];
        assert!(!t.request.contains("SEC"), "no part of a secret survives");
        assert_eq!(t.request.chars().count(), MAX_REQUEST_CHARS);
        assert!(t.errors[0].message.starts_with("[x][x]"));
    }

    #[test]
    fn the_question_a_request_answers_and_action_ids_are_redacted_too() {
        let t = Turn {
            replies_to: Some("Use SECRET or the other key?".into()),
            actions: vec![Action {
                kind: ActionKind::Push,
                detail: "PR".into(),
                command: "gh pr create".into(),
                ok: true,
                id: "#SECRET".into(),
                skipped_hooks: false,
                range: None,
                branch: None,
            }],
            ..Default::default()
        };
        let d = Digest { turns: vec![t] }.sanitized(&|s| s.replace("SECRET", "[x]"));
        let t = &d.turns[0];
        assert_eq!(t.replies_to.as_deref(), Some("Use [x] or the other key?"));
        assert_eq!(t.actions[0].id, "#[x]");
    }

    /// What a tool printed about a CI run or an offered option is the
    /// output's text: redacted and capped like the rest.
    #[test]
    fn ci_runs_and_picked_options_are_redacted_and_capped() {
        let run = CiRun {
            workflow: format!("Deploy SECRET {}", "x".repeat(5000)),
            id: "SECRET".into(),
            branch: "SECRET".into(),
            state: CiState::Failed,
            failed_steps: vec!["step SECRET".into()],
        };
        let t = Turn {
            ci: vec![run; MAX_ENTRIES + 3],
            picked: Some("B — rotate SECRET".into()),
            ..Default::default()
        };
        let d = Digest { turns: vec![t] }.sanitized(&|s| s.replace("SECRET", "[x]"));
        let t = &d.turns[0];
        assert_eq!(t.ci.len(), MAX_ENTRIES);
        let r = &t.ci[0];
        assert!(r.workflow.starts_with("Deploy [x]"));
        assert!(r.workflow.chars().count() <= MAX_ENTRY_CHARS);
        assert_eq!((r.id.as_str(), r.branch.as_str()), ("[x]", "[x]"));
        assert_eq!(r.failed_steps, ["step [x]"]);
        assert_eq!(t.picked.as_deref(), Some("B — rotate [x]"));
    }

    #[test]
    fn old_turns_are_dropped_first() {
        let turns = (0..MAX_TURNS + 5)
            .map(|i| Turn {
                request: i.to_string(),
                ..Default::default()
            })
            .collect();
        let d = Digest { turns }.sanitized(&str::to_owned);
        assert_eq!(d.turns.len(), MAX_TURNS);
        assert_eq!(d.turns[0].request, "5");
    }

    #[test]
    fn serde_round_trip_keeps_everything() {
        let t = Turn {
            timestamp: Some("2026-12-01T10:00:00Z".into()),
            request: "fix it".into(),
            files: vec![FileChange {
                path: "a.rs".into(),
                change: Change::Moved,
                from: Some("b.rs".into()),
            }],
            todos: vec![Todo {
                text: "ship".into(),
                status: TodoStatus::InProgress,
            }],
            interrupted: true,
            ..Default::default()
        };
        let d = Digest { turns: vec![t] };
        let json = serde_json::to_string(&d).unwrap();
        assert!(json.contains(r#""status":"in_progress""#), "{json}");
        let back: Digest = serde_json::from_str(&json).unwrap();
        assert_eq!(back, d);
    }
}
