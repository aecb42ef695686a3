//! The offline backend: bullets built from the turn digest's structure,
//! deterministically, with nothing leaving the machine.
//!
//! Precision first: no bullet is better than a noisy one. Every bullet
//! comes from a fact the digest holds with its evidence (a file the client
//! says it created, a commit that ran, an error and what fixed it, the
//! model's own to-do list, a plan the user accepted, the user's answer to a
//! question); prose contributes only the request (the goal) and, for a
//! problem, a sentence of the answer that names its cause.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::cues::{self, cap, is_request_sentence, plan_title};
use super::digest::{
    Action, ActionKind, Change, Check, Digest, FileChange, RequestKind, TodoStatus, ToolError, Turn,
};
use super::record::{Extraction, Revision, Sections, Update};
use super::route::{display_path, known_default, log_bullets, project_of};
use super::{Answer, Backend, ExtractRequest};
use crate::memory::log::{Lang, OPEN_PULL, PENDING_QUESTION, UNCOMMITTED, UNPUSHED};

/// Longest bullet the offline backend writes; the merge caps again by config.
const MAX_BULLET: usize = 240;
/// Files named in one work bullet before the rest is counted.
const MAX_FILES_SHOWN: usize = 8;
/// Files a turn that changed nothing only read, listed as its context.
const MAX_CONTEXT_READS: usize = 3;
/// Characters of paths in one bullet's file list (the bullet is capped at
/// [`MAX_BULLET`], with its verb and the count of the others).
const MAX_FILE_LIST: usize = 200;
/// Longest goal, in characters.
const MAX_GOAL: usize = 200;

pub struct OfflineBackend;

impl Backend for OfflineBackend {
    fn name(&self) -> &'static str {
        "offline"
    }

    fn extract(&self, req: &ExtractRequest) -> anyhow::Result<Answer> {
        let extraction = extract(req);
        let raw = serde_json::to_string_pretty(&extraction)?;
        Ok(Answer {
            raw,
            extraction: Ok(extraction),
            usage: None,
        })
    }
}

/// The wording of the bullets, per log language. Content words (paths,
/// commit messages, the user's request) stay as written.
struct Words {
    created: &'static str,
    updated: &'static str,
    deleted: &'static str,
    moved: &'static str,
    and_more: &'static str,
    commit: &'static str,
    push: &'static str,
    merge: &'static str,
    tag: &'static str,
    release: &'static str,
    migration: &'static str,
    install: &'static str,
    deploy: &'static str,
    read: &'static str,
    before: &'static str,
    outcome: &'static str,
    /// Before each finding a review answer reports, and its verdict.
    finding: &'static str,
    verdict: &'static str,
    /// Around a git branch: `(branche `x`)`, `sur `x``.
    branch: &'static str,
    on_branch: &'static str,
    ticket: &'static str,
    commented: &'static str,
    /// Before a host changed over ssh: `Sur` `host` `(ssh)`.
    remote: &'static str,
    /// A file written on that host.
    wrote: &'static str,
    /// A CI run's state as last seen: queued, running, passed, failed,
    /// and before the failed steps.
    ci: [&'static str; 4],
    ci_at_step: &'static str,
    tickets_closed: (&'static str, &'static str),
    failed: &'static str,
    tests: &'static str,
    build: &'static str,
    passed: &'static str,
    /// The builds, linters and type checkers that pass at a turn's end.
    checks_passed: &'static str,
    passed_one: &'static str,
    coverage: &'static str,
    failing: &'static str,
    /// Between two failures met one after the other.
    then: &'static str,
    fixed_by: &'static str,
    changed: &'static str,
    works_with: &'static str,
    /// A hook's refusal the same call got past when made again.
    on_retry: &'static str,
    redone: &'static str,
    resolved_later: &'static str,
    resolved_later_bare: &'static str,
    unresolved: &'static str,
    /// Before what the user says is wrong, ahead of their request.
    symptom: &'static str,
    /// Before what a turn that changed nothing looked up on the web.
    web: &'static str,
    reported: &'static str,
    said: &'static str,
    cause: &'static str,
    plan: &'static str,
    /// A plan the user turned down (ExitPlanMode declined).
    plan_declined: &'static str,
    choice: &'static str,
    declined: &'static str,
    subagent: &'static str,
    interrupted: &'static str,
    selection: &'static str,
    init: &'static str,
    correction: &'static str,
    /// The to-do of a turn that left its changes to be committed.
    to_commit: &'static str,
    /// Before the files a turn changed and did not commit: one of
    /// [`UNCOMMITTED`].
    uncommitted: &'static str,
    /// Before the question the last answer waits on: one of
    /// [`PENDING_QUESTION`].
    pending: &'static str,
    /// Before the commits a branch holds that its upstream does not: one
    /// of [`UNPUSHED`].
    unpushed: &'static str,
    /// Around a pull request's number: `PR #12 ouverte`, `Opened PR #12`.
    pr_opened: (&'static str, &'static str),
    /// Before a pull request opened and not merged: one of [`OPEN_PULL`].
    open_pull: &'static str,
    colon: &'static str,
}

impl Words {
    /// "1 réussi", "2 réussis".
    fn passed_word(&self, n: u64) -> &'static str {
        if n == 1 { self.passed_one } else { self.passed }
    }
}

const FR: Words = Words {
    created: "Créé",
    updated: "Modifié",
    deleted: "Supprimé",
    moved: "Déplacé",
    and_more: "autres",
    commit: "Commit",
    push: "Poussé",
    merge: "Fusionné",
    tag: "Tag",
    release: "Publié",
    migration: "Migration",
    install: "Installé",
    deploy: "Déployé",
    read: "Consulté",
    before: "avant :",
    outcome: "Résultat",
    finding: "Constat de revue",
    branch: "branche",
    on_branch: "sur",
    verdict: "Verdict de revue",
    ticket: "Ticket",
    commented: "Commentaire publié sur",
    remote: "Sur",
    wrote: "écrit",
    ci: ["en file d'attente", "en cours", "réussie", "en échec"],
    ci_at_step: "à l'étape",
    tickets_closed: ("Ticket fermé", "Tickets fermés"),
    failed: "échec",
    tests: "Tests",
    build: "Build",
    passed: "réussis",
    checks_passed: "Contrôles réussis",
    passed_one: "réussi",
    coverage: "couverture",
    failing: "en échec",
    then: "puis",
    fixed_by: "corrigé en modifiant",
    changed: "modifié",
    works_with: "résolu avec",
    on_retry: "passé en refaisant le même appel",
    redone: "refait ensuite",
    resolved_later: "résolu ensuite avec",
    resolved_later_bare: "résolu ensuite",
    unresolved: "non résolu",
    reported: "Erreur signalée",
    symptom: "Problème signalé",
    web: "Recherches web",
    said: "Signalé",
    cause: "cause",
    plan: "Plan accepté",
    plan_declined: "Plan refusé",
    choice: "Choix",
    declined: "Refusé par l'utilisateur",
    subagent: "Sous-agent",
    interrupted: "interrompu",
    selection: "sélection",
    init: "Initialiser `CLAUDE.md` (`/init`)",
    correction: "Consigne de l'utilisateur",
    to_commit: "Commit à faire",
    uncommitted: UNCOMMITTED[0],
    pending: PENDING_QUESTION[0],
    unpushed: UNPUSHED[0],
    open_pull: OPEN_PULL[0],
    pr_opened: ("PR ", " ouverte"),
    colon: " :",
};

const EN: Words = Words {
    created: "Created",
    updated: "Updated",
    deleted: "Deleted",
    moved: "Moved",
    and_more: "more",
    commit: "Commit",
    push: "Pushed",
    merge: "Merged",
    tag: "Tag",
    release: "Released",
    migration: "Migration",
    install: "Installed",
    deploy: "Deployed",
    read: "Read",
    before: "was",
    outcome: "Outcome",
    finding: "Review finding",
    branch: "branch",
    on_branch: "on",
    verdict: "Review verdict",
    ticket: "Ticket",
    commented: "Commented on",
    remote: "On",
    wrote: "wrote",
    ci: ["queued", "running", "passed", "failed"],
    ci_at_step: "at step",
    tickets_closed: ("Closed ticket", "Closed tickets"),
    failed: "failed",
    tests: "Tests",
    build: "Build",
    passed: "passed",
    checks_passed: "Checks passed",
    passed_one: "passed",
    coverage: "coverage",
    failing: "failing",
    then: "then",
    fixed_by: "fixed by changing",
    changed: "changed",
    works_with: "solved with",
    on_retry: "went through when made again",
    redone: "redone afterwards",
    resolved_later: "solved later with",
    resolved_later_bare: "solved later",
    unresolved: "unresolved",
    reported: "Reported error",
    symptom: "Reported problem",
    web: "Looked up on the web",
    said: "Reported",
    cause: "cause",
    plan: "Plan accepted",
    plan_declined: "Plan rejected",
    choice: "Choice",
    declined: "Declined by the user",
    subagent: "Subagent",
    interrupted: "interrupted",
    selection: "selection",
    init: "Set up `CLAUDE.md` (`/init`)",
    correction: "User's instruction",
    to_commit: "To commit",
    uncommitted: UNCOMMITTED[1],
    pending: PENDING_QUESTION[1],
    unpushed: UNPUSHED[1],
    open_pull: OPEN_PULL[1],
    pr_opened: ("Opened PR ", ""),
    colon: ":",
};

fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::Fr => &FR,
        Lang::En => &EN,
    }
}

/// One `Update` per project, in the order of the known projects.
struct Record<'a> {
    projects: &'a [(String, String)],
    updates: Vec<(String, Sections)>,
    seen: HashSet<(String, String)>,
}

impl<'a> Record<'a> {
    fn new(projects: &'a [(String, String)]) -> Self {
        Record {
            projects,
            updates: Vec::new(),
            seen: HashSet::new(),
        }
    }

    fn sections(&mut self, project: &str) -> &mut Sections {
        let i = match self.updates.iter().position(|(p, _)| p == project) {
            Some(i) => i,
            None => {
                self.updates
                    .push((project.to_string(), Sections::default()));
                self.updates.len() - 1
            }
        };
        &mut self.updates[i].1
    }

    /// Adds a bullet unless the same text (case and spacing aside) is
    /// already in this project's record.
    fn push(&mut self, project: &str, pick: fn(&mut Sections) -> &mut Vec<String>, text: &str) {
        let text = cap(text.trim(), MAX_BULLET);
        if text.is_empty() || !self.seen.insert((project.to_string(), normalise(&text))) {
            return;
        }
        pick(self.sections(project)).push(text);
    }

    /// The work bullet this record holds about `path` alone, if any.
    fn one_file_bullet(&mut self, project: &str, path: &str, w: &Words) -> Option<&mut String> {
        let (_, s) = self.updates.iter_mut().find(|(p, _)| p == project)?;
        s.travail
            .iter_mut()
            .find(|b| one_file_bullet(b, w).is_some_and(|(_, p)| p == path))
    }

    /// The to-dos this record opened for `project`.
    fn open<'s>(&'s self, project: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.updates
            .iter()
            .filter(move |(p, _)| p == project)
            .flat_map(|(_, s)| s.a_suivre.iter().map(String::as_str))
    }

    /// Removes the first to-do this record opened for `project` that
    /// `names`: opened and finished in one job, it was never open.
    fn take_open(&mut self, project: &str, names: impl Fn(&str) -> bool) -> bool {
        let Some((_, s)) = self.updates.iter_mut().find(|(p, _)| p == project) else {
            return false;
        };
        match s.a_suivre.iter().position(|b| names(b)) {
            Some(at) => {
                s.a_suivre.remove(at);
                true
            }
            None => false,
        }
    }

    fn finish(self) -> Extraction {
        let order = |name: &str| {
            self.projects
                .iter()
                .position(|(p, _)| p == name)
                .unwrap_or(usize::MAX)
        };
        let mut updates: Vec<_> = self.updates.iter().filter(|(_, s)| !s.is_empty()).collect();
        updates.sort_by_key(|(p, _)| order(p));
        Extraction {
            updates: updates
                .into_iter()
                .map(|(project, sections)| Update {
                    project: project.clone(),
                    sections: sections.clone(),
                    long_memory_update: None,
                })
                .collect(),
        }
    }
}

fn normalise(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(['.', '!', ';', ':'])
        .to_lowercase()
}

/// What today's log already says, so a fact is not written twice.
struct Known {
    /// Backticked paths in work bullets, per project.
    files: HashSet<(String, String)>,
    /// Work bullets about one created or updated file, per project and
    /// path: its verb and the bullet as written, for a later turn to
    /// revise.
    file_bullets: HashMap<(String, String), (&'static str, String)>,
    /// Work bullets of commits that failed (a hook refused them), per
    /// project, as written: a later commit of the same work revises them.
    failed_commits: Vec<(String, String)>,
    /// Work bullets of pushes that say their range, per project, as
    /// written: the next push of the same branch extends them.
    pushes: Vec<(String, String)>,
    /// Open to-dos, per project, normalised.
    todos: Vec<(String, String, String)>,
    /// Open to-dos of earlier days, the same way.
    earlier: Vec<(String, String, String)>,
}

impl Known {
    fn of(req: &ExtractRequest) -> Known {
        let mut files = HashSet::new();
        let mut file_bullets = HashMap::new();
        let mut todos = Vec::new();
        let mut failed_commits = Vec::new();
        let mut pushes = Vec::new();
        let w = words(req.lang);
        for (project, log) in req.existing_logs {
            for b in log_bullets(log, "travail") {
                if failed_commit_message(&b).is_some() {
                    failed_commits.push((project.clone(), b.clone()));
                }
                if push_range(&b).is_some() {
                    pushes.push((project.clone(), b.clone()));
                }
                for path in backticked(&b) {
                    files.insert((project.clone(), path.to_owned()));
                }
                if let Some((verb, path)) = one_file_bullet(&b, w) {
                    file_bullets.insert((project.clone(), path), (verb, b.clone()));
                }
            }
            for t in log_bullets(log, "a_suivre") {
                let bare = t
                    .trim_start_matches("[ ]")
                    .trim_start_matches("[x]")
                    .trim()
                    .to_string();
                todos.push((project.clone(), normalise(&bare), bare));
            }
        }
        let earlier = req
            .earlier_todos
            .iter()
            .map(|(p, t)| (p.clone(), normalise(t), t.clone()))
            .collect();
        Known {
            files,
            file_bullets,
            failed_commits,
            pushes,
            todos,
            earlier,
        }
    }

    /// The earlier day's open to-do of `project` that `names`, as written.
    fn earlier_todo_where(&self, project: &str, names: impl Fn(&str) -> bool) -> Option<&str> {
        find_todo(&self.earlier, project, |_, t| names(t))
    }

    /// The earlier day's open to-do of `project` that `text` finishes.
    fn earlier_todo(&self, project: &str, text: &str) -> Option<&str> {
        let key = normalise(text);
        find_todo(&self.earlier, project, |k, _| k == key)
    }

    /// Every to-do of `project` in `list` (today's or earlier days') that
    /// `names`, as written.
    fn todos_where<'k>(
        &self,
        list: &'k [(String, String, String)],
        project: &str,
        names: impl Fn(&str) -> bool,
    ) -> Vec<&'k str> {
        list.iter()
            .filter(|(p, _, t)| p == project && names(t))
            .map(|(_, _, t)| t.as_str())
            .collect()
    }

    /// The first open to-do of `project` that `names`, as written there.
    fn open_todo_where(&self, project: &str, names: impl Fn(&str) -> bool) -> Option<&str> {
        find_todo(&self.todos, project, |_, t| names(t))
    }

    /// The open to-do of `project` that `text` finishes, as written there.
    fn open_todo(&self, project: &str, text: &str) -> Option<&str> {
        let key = normalise(text);
        find_todo(&self.todos, project, |k, _| k == key)
    }
}

/// The first to-do of `project` in `list` (project, normalised, as written)
/// that `hit(normalised, as written)`, as written.
fn find_todo<'a>(
    list: &'a [(String, String, String)],
    project: &str,
    hit: impl Fn(&str, &str) -> bool,
) -> Option<&'a str> {
    list.iter()
        .find(|(p, k, t)| p == project && hit(k, t))
        .map(|(_, _, t)| t.as_str())
}

/// `Modifié `a.rs`` or `Créé `a.rs` : what it does`: a work bullet about
/// one file, its verb and path. Lists of files and other bullets are not.
fn one_file_bullet(bullet: &str, w: &Words) -> Option<(&'static str, String)> {
    let b = bullet.trim();
    [w.created, w.updated].into_iter().find_map(|verb| {
        let rest = b.strip_prefix(verb)?.strip_prefix(" `")?;
        let (path, after) = rest.split_once('`')?;
        let after = after.trim_start();
        (after.is_empty() || after.starts_with(':')).then(|| (verb, path.to_owned()))
    })
}

/// The answer's opening line when it states what was done, short and
/// plain ("Phase 12.1 inserted after Phase 12:"); not an acknowledgement
/// ("Done!", "Great choice.") or a question.
fn choice_outcome(answer: &str) -> Option<String> {
    let line = answer.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line.replace("**", "");
    // "All tests pass. Summary of changes:": one statement of the line, not
    // the heading after it; "Done. Phase 12.1 inserted after Phase 12:" the
    // one after its "Done".
    cues::sentences(&line).into_iter().find_map(|s| {
        let text = s.text.trim_end_matches([':', '.', '!']).trim().to_owned();
        let lower = text.to_lowercase();
        let words = text.split_whitespace().count();
        ((3..=14).contains(&words) && !text.contains('?') && !answer::opens_as_filler(&lower))
            .then_some(text)
    })
}

/// The question a request asks, short enough for a bullet: the whole
/// request when short, else its last question (with the sentence before a
/// bare "Why?").
fn asked(request: &str) -> Option<String> {
    let text = one_line(request);
    if text.chars().count() <= 140 {
        return Some(capitalise(text.trim()));
    }
    let sents = cues::sentences(request);
    let at = sents
        .iter()
        .rposition(|s| s.text.trim_end().ends_with('?'))?;
    let q = sents[at].text.trim();
    let q = if q.split_whitespace().count() < 4 && at > 0 {
        format!("{} {q}", sents[at - 1].text.trim())
    } else {
        q.to_owned()
    };
    Some(capitalise(&q))
}

/// A sentence saying changes were left out of what was committed ("the
/// other modified files remain unstaged", "pre-existing changes not
/// committed").
fn leaves_changes_behind(text: &str) -> bool {
    let l = text.to_lowercase();
    [
        "remain unstaged",
        "remains unstaged",
        "left unstaged",
        "still unstaged",
        "remain uncommitted",
        "left uncommitted",
        "pre-existing changes",
        "non indexés",
        "non commités",
    ]
    .iter()
    .any(|p| l.contains(p))
}

/// A request only to ship what is done ("Commit, push and pr it"): no
/// goal, the commit and push bullets say it; its answer may still teach.
/// A goal that only says to go on: a verb and what it points back at
/// (`Run it`, `Apply the edits`), or carrying on (`Continue`).
fn says_only_go_on(goal: &str) -> bool {
    const POINTING: &[&str] = &[
        "it", "that", "this", "them", "these", "those", "ça", "cela", "ceci", "edits", "changes",
        "fixes",
    ];
    const GO_ON: &[&str] = &[
        "continue",
        "continue implementation",
        "keep going",
        "go ahead",
        "go on",
        "proceed",
        "carry on",
        "continue the implementation",
        "continue with the implementation",
        "vas-y",
        "continue l'implémentation",
        "on continue",
    ];
    let l = goal.trim().trim_end_matches(['.', '!', '?']).to_lowercase();
    let words: Vec<&str> = l
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    GO_ON.contains(&l.as_str())
        || (words.len() <= 3
            && words.len() >= 2
            && words.last().is_some_and(|w| POINTING.contains(w))
            && words[..words.len() - 1]
                .iter()
                .all(|w| !POINTING.contains(w) || matches!(*w, "the")))
}

fn is_shipping(request: &str) -> bool {
    const SHIPPING: &[&str] = &[
        "commit",
        "push",
        "pr",
        "it",
        "and",
        "please",
        "the",
        "changes",
        "all",
        "a",
        "them",
        "this",
        "these",
        "those",
        "that",
        "my",
        "everything",
        "up",
        "ok",
        "now",
        "then",
        "open",
        "create",
        "make",
        "committe",
        "pousse",
        "change",
        // "Can you commit?", "Commit and continue".
        "can",
        "you",
        "we",
        "continue",
    ];
    let l = request.trim().to_lowercase();
    let words: Vec<&str> = l
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.len() <= 6
        && words
            .iter()
            .any(|w| matches!(*w, "commit" | "push" | "committe" | "pousse"))
        && words.iter().all(|w| SHIPPING.contains(w))
}

/// A command whose own name says it commits, pushes or sets a tool up
/// (`/commit-commands:commit`, `/codex:setup`): the commit's or push's
/// bullet says what it did; a setup is no goal of the project.
fn ships_or_sets_up(request: &str) -> bool {
    let name = command_name(request);
    let last = name.rsplit([':', '/']).next().unwrap_or(name);
    last.split(['-', '_']).any(|w| {
        matches!(
            w,
            "commit" | "push" | "setup" | "install" | "login" | "config"
        )
    })
}

/// The client's own commands that set the session up (`/model`, `/mcp`,
/// `/clear`…): no goal of the project, whatever they print.
fn is_client_command(request: &str) -> bool {
    const CLIENT: &[&str] = &[
        "clear",
        "compact",
        "exit",
        "quit",
        "model",
        "mcp",
        "rename",
        "copy",
        "login",
        "logout",
        "cost",
        "help",
        "config",
        "settings",
        "resume",
        "status",
        "doctor",
        "permissions",
        "hooks",
        "agents",
        "ide",
        "memory",
        "context",
        "export",
        "add-dir",
        "bug",
        "vim",
        "terminal-setup",
        "upgrade",
        "usage",
        "plugin",
        "plugins",
        "statusline",
        "output-style",
        "todos",
        "release-notes",
        "privacy-settings",
        "install-github-app",
        "fast",
        "theme",
        "sandbox",
        "rewind",
        "feedback",
        "skills",
        "tasks",
        "bashes",
        "allowed-tools",
        "migrate-installer",
        "extra-usage",
        "remote-env",
        "stats",
        "effort",
        "init",
    ];
    CLIENT.contains(&command_name(request))
}

/// A slash command's name, without its `/` and arguments.
fn command_name(request: &str) -> &str {
    request
        .trim()
        .trim_start_matches('/')
        .split_whitespace()
        .next()
        .unwrap_or("")
}

/// A request that only moves the working copy around ("ok lets get back
/// to main", "pull in the latest", "switch to develop"): no goal, and its
/// answer ("On `main`, up to date.") no lesson.
fn is_housekeeping(request: &str) -> bool {
    let l = request.trim().to_lowercase();
    let l = l.trim_end_matches(['.', '!', ' ']);
    let words: Vec<&str> = l
        .split(|c: char| !(c.is_alphanumeric() || c == '/' || c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() || words.len() > 16 {
        return false;
    }
    const FILLER: &[&str] = &[
        "ok",
        "okay",
        "lets",
        "let",
        "s",
        "let's",
        "please",
        "now",
        "we",
        "go",
        "again",
        "and",
        "then",
        "the",
        "in",
        "can",
        "you",
        "need",
        "to",
        "get",
        "head",
        "move",
        "switch",
        "back",
        "checkout",
        "check",
        "out",
        "pull",
        "latest",
        "fetch",
        "rebase",
        "on",
        "onto",
        "branch",
        "git",
        "up",
        "date",
        "sync",
        "with",
        "origin",
        "first",
        "before",
        "doing",
        "that",
        "main",
        "master",
        "develop",
        "trunk",
        "retourne",
        "retournons",
        "sur",
        "revenons",
        "à",
        "passe",
        "la",
        "branche",
    ];
    let moves = words.iter().any(|w| {
        matches!(
            *w,
            "back" | "switch" | "checkout" | "pull" | "retourne" | "revenons" | "retournons"
        )
    });
    let names_branch = words
        .iter()
        .any(|w| matches!(*w, "main" | "master" | "develop" | "trunk" | "latest"));
    moves && names_branch && words.iter().all(|w| FILLER.contains(w))
}

/// A commit's hash as git printed it (lower-case hex, 7 to 40 digits).
fn is_hash(id: &str) -> bool {
    (7..=40).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The hash shown in a bullet: git's short form, at most 9 digits.
fn short_hash(id: &str) -> &str {
    &id[..id.len().min(9)]
}

/// The message of a work bullet saying a commit failed (`Commit « x »
/// (échec)`, in either language).
fn failed_commit_message(bullet: &str) -> Option<&str> {
    let rest = bullet.trim().strip_prefix(FR.commit)?.strip_prefix(" « ")?;
    [FR.failed, EN.failed]
        .iter()
        .find_map(|f| rest.strip_suffix(&format!(" » ({f})")))
}

/// Whether two commit messages name the same work: most words of the one
/// that failed are in the one that went through (a hook refused the
/// first, the message was reworded a little).
fn same_commit(failed: &str, made: &str) -> bool {
    let words = |m: &str| -> Vec<String> {
        m.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 2)
            .map(str::to_lowercase)
            .collect()
    };
    let (f, m) = (words(failed), words(made));
    !f.is_empty() && f.iter().filter(|w| m.contains(w)).count() * 3 >= f.len() * 2
}

fn backticked(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}

/// A question without the context the form adds after it ("What stack
/// does the server run on? This picks the test runner, …").
fn question_itself(question: &str) -> String {
    let q = one_line(question);
    match q.find("? ") {
        Some(at) if q[..at].split_whitespace().count() >= 3 => q[..=at].to_owned(),
        _ => q,
    }
}

/// The first three files, then how many more: a to-do names the work,
/// the work bullets list it whole.
fn first_files(files: &[&str], w: &Words) -> String {
    let mut list: Vec<String> = files.iter().take(3).map(|f| format!("`{f}`")).collect();
    if files.len() > 3 {
        list.push(format!("+{} {}", files.len() - 3, w.and_more));
    }
    list.join(", ")
}

/// The branch a turn ended on, unless it is a repository's main line
/// (the log need not say what every commit is on), ready to show in
/// backticks (git allows one in a branch name; it would end the code span).
fn feature_branch(t: &Turn) -> Option<String> {
    named_feature_branch(t.branch.as_deref())
}

/// A branch worth naming: not the trunk, which goes without saying.
fn named_feature_branch(branch: Option<&str>) -> Option<String> {
    branch
        .filter(|b| !matches!(*b, "main" | "master" | "trunk" | "develop" | "dev"))
        .map(|b| b.replace('`', "'"))
}

/// A to-do about a commit still to make: asked for ("Commit à faire")
/// or changes left uncommitted; a commit finishes it.
fn leaves_a_commit(todo: &str) -> bool {
    [FR.to_commit, EN.to_commit]
        .iter()
        .chain(UNCOMMITTED)
        .any(|p| todo.starts_with(p))
}

/// Whether an answer says a commit was made (by a subagent, a tool cairn
/// does not read as one): "Committed as `abc123`", not "not committed".
fn says_committed(answer: &str) -> bool {
    let l = answer.to_lowercase();
    // "No uncommitted work", "working tree clean": nothing left either.
    if cues::TREE_CLEAN.iter().any(|c| l.contains(c)) {
        return true;
    }
    // The few words before the verb deny or defer it ("haven't been
    // committed", "before it gets committed"); "committed nothing" too.
    const DENY: &[&str] = &[
        "not", "n't", "never", "nothing", "pas", "jamais", "rien", "be", "gets", "get", "before",
        "until", "once", "when", "if", "un",
    ];
    ["committed", "commité", "commitée", "commités"]
        .iter()
        .any(|w| {
            l.match_indices(w).any(|(at, _)| {
                let before: Vec<&str> = l[..at]
                    .split(|c: char| !(c.is_alphanumeric() || c == '\''))
                    .filter(|x| !x.is_empty())
                    .rev()
                    .take(4)
                    .collect();
                let glued_un = l[..at].ends_with("un");
                let denied = glued_un
                    || before
                        .iter()
                        .any(|b| DENY.contains(b) || b.ends_with("n't"));
                let nothing = l[at + w.len()..].trim_start().starts_with("nothing");
                !denied && !nothing
            })
        })
}

/// Whether to-do `new` names nothing `old` does not: two backticked
/// names at least, all of them in `old`.
fn restates(new: &str, old: &str) -> bool {
    let names: Vec<&str> = backticked(new).filter(|n| !n.trim().is_empty()).collect();
    let olds: HashSet<&str> = backticked(old).collect();
    names.len() >= 2 && names.iter().all(|n| olds.contains(n))
}

/// Builds the record of one job (one or more turns).
pub(crate) fn extract(req: &ExtractRequest) -> Extraction {
    let default = known_default(req.projects, req.default_project);
    let mut rec = Record::new(req.projects);
    if req.ok_done {
        finalise(req, default, &mut rec);
        return rec.finish();
    }
    let mut known = Known::of(req);
    let w = words(req.lang);
    let d: &Digest = req.digest;
    let last_with_todos = d.turns.iter().rposition(|t| !t.todos.is_empty());
    for (i, turn) in d.turns.iter().enumerate() {
        let mut ctx = TurnCtx {
            req,
            w,
            default,
            turn,
            primary: String::new(),
            shown: Vec::new(),
            details: Vec::new(),
        };
        ctx.primary = ctx.primary_project();
        ctx.shown = turn.files.iter().map(|f| ctx.shown(&f.path)).collect();
        ctx.details = details::file_details(&turn.answer, &ctx.shown);
        ctx.goal(&mut rec);
        ctx.plan_context(&mut rec);
        ctx.context(&mut rec, &known);
        ctx.work(&mut rec, &mut known);
        ctx.problems(&mut rec);
        ctx.resolved_earlier(&mut rec);
        ctx.decisions(&mut rec);
        ctx.lessons(&mut rec);
        ctx.findings(&mut rec);
        ctx.commits_left(&mut rec, &known, i + 1 == d.turns.len());
        if Some(i) == last_with_todos {
            ctx.todos(&mut rec, &known);
        } else if last_with_todos.is_none() && i + 1 == d.turns.len() {
            // No list of the model's own: the open items its last answer
            // names explicitly.
            for step in cues::next_steps(&turn.answer) {
                // An answer telling again what an earlier one left to do
                // (the same six secrets to add): said once.
                let said = known
                    .todos
                    .iter()
                    .filter(|(p, _, _)| *p == ctx.primary)
                    .map(|(_, _, t)| t.as_str())
                    .chain(rec.open(&ctx.primary))
                    .any(|old| restates(&step, old));
                if !said {
                    rec.push(&ctx.primary, |s| &mut s.a_suivre, &capitalise(&step));
                }
            }
        }
        ctx.pending_question(&mut rec, &known, i + 1 == d.turns.len());
        ctx.unpushed(&mut rec, &known, i + 1 == d.turns.len());
        ctx.open_pulls(&mut rec, &known);
    }
    rec.finish()
}

/// The items of an answer's list of decisions told, at most.
const MAX_DECISIONS_TOLD: usize = 4;

struct TurnCtx<'r> {
    req: &'r ExtractRequest<'r>,
    w: &'static Words,
    default: &'r str,
    turn: &'r Turn,
    primary: String,
    /// The turn's changed files as the log shows them, and what the answer
    /// says of each (indices into `shown`): read once, used by the work
    /// bullets, the problems' fixes and the lessons.
    shown: Vec<String>,
    details: Vec<(usize, Vec<details::Detail>)>,
}

impl TurnCtx<'_> {
    fn route(&self, path: &str) -> String {
        project_of(self.req.projects, self.req.project_root, path, self.default).to_string()
    }

    fn shown(&self, path: &str) -> String {
        display_path(self.req.project_root, path).replace('`', "'")
    }

    /// Inside the project: files elsewhere (the client's plan files, `/tmp`)
    /// are not the project's work.
    fn in_project(&self, path: &str) -> bool {
        let root = self.req.project_root;
        let p = Path::new(path);
        if !p.is_absolute() {
            return !path.starts_with("~") && !path.starts_with("..");
        }
        root.as_os_str().is_empty() || p.starts_with(root)
    }

    /// A check's command line as a bullet shows it: without the `cd` into
    /// the project and the shell setup it starts with (an absolute path that
    /// eats the room), nor the pipe into `tail` or `head` that only trims
    /// its output. A `cd` out of the project (`cd /tmp && tool`) stays: it
    /// may be why the command failed.
    fn shown_command(&self, command: &str, max: usize) -> String {
        let line = one_line(command);
        let mut parts: Vec<&str> = line.split(" && ").collect();
        let into_project = |p: &str| {
            p.strip_prefix("cd ")
                .is_some_and(|d| self.in_project(d.trim().trim_matches(['"', '\''])))
        };
        while parts.len() > 1 && (into_project(parts[0]) || is_shell_setup(parts[0])) {
            parts.remove(0);
        }
        if let Some(first) = parts.first_mut() {
            *first = without_environment(first);
        }
        untrimmed_command(&parts.join(" && "), max)
    }

    /// A test or build run as its bullet shows it: the runner, without
    /// what the line does around it (`echo "=== gofmt ===" && …`, `… 2>&1
    /// | tail -15 && git add -A && git commit …`).
    fn shown_check(&self, command: &str, max: usize) -> String {
        let line = one_line(command);
        let aside = |p: &str| {
            let prog = p.split_whitespace().next().unwrap_or("");
            matches!(
                prog,
                "git"
                    | "echo"
                    | "printf"
                    | "ls"
                    | "cat"
                    | "tail"
                    | "head"
                    | "pwd"
                    | "wc"
                    | "true"
                    | "sleep"
                    | "clear"
            )
        };
        let mut parts: Vec<&str> = line.split(" && ").map(str::trim).collect();
        if parts.iter().any(|p| !aside(p)) {
            parts.retain(|p| !aside(p));
        }
        // A pipe into a pager or a filter changes what is shown, not what
        // ran.
        let parts: Vec<String> = parts
            .iter()
            .map(|p| {
                let p = match p.split_once(" | ") {
                    Some((run, into)) if aside(into) || into.trim_start().starts_with("grep ") => {
                        run
                    }
                    _ => p,
                };
                p.replace(" 2>&1", "").replace(" 2>/dev/null", "")
            })
            .collect();
        self.shown_command(&parts.join(" && "), max)
    }

    /// Worth a work bullet: the project's files, and those of another
    /// repository the session worked in (shown whole); not the client's
    /// own files (`~/.claude/…`: plans, settings) nor scratch files.
    fn worth_listing(&self, path: &str) -> bool {
        // Git's own files (`.git/modules/x` after a submodule is removed)
        // are not the project's work.
        if path.starts_with(".git/") || path.contains("/.git/") || path == ".git" {
            return false;
        }
        // Nor the client's own: its per-project memory, plans and to-dos
        // under the user's `.claude/`, its scratchpad in the temp folder
        // (written with either separator).
        let unified = path.replace('\\', "/").to_lowercase();
        if [
            "/.claude/projects/",
            "/.claude/plans/",
            "/.claude/todos/",
            "/temp/claude/",
            "/tmp/claude/",
        ]
        .iter()
        .any(|c| unified.contains(c))
        {
            return false;
        }
        if self.in_project(path) {
            return true;
        }
        // Another repository beside this one (`~/work/a` for `~/work/b`),
        // nothing else: a log is committed, and a path elsewhere (`~/.ssh`,
        // the client's own files, scratch files) is nobody's business.
        let p = Path::new(path);
        let Some(parent) = self
            .req
            .project_root
            .parent()
            .filter(|p| p.components().count() > 1)
        else {
            return false;
        };
        p.is_absolute()
            && p.starts_with(parent)
            && !p
                .strip_prefix(parent)
                .unwrap_or(p)
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
    }

    /// The project the turn is about: where most of its files are.
    fn primary_project(&self) -> String {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for f in self.turn.all_files().filter(|f| self.in_project(&f.path)) {
            let p = self.route(&f.path);
            match counts.iter_mut().find(|(k, _)| *k == p) {
                Some((_, n)) => *n += 1,
                None => counts.push((p, 1)),
            }
        }
        let max = counts.iter().map(|(_, n)| *n).max();
        let tied: Vec<&String> = counts
            .iter()
            .filter(|(_, n)| Some(*n) == max)
            .map(|(k, _)| k)
            .collect();
        tied.iter()
            .find(|k| k.as_str() == self.default)
            .or(tied.first())
            .map(|s| s.to_string())
            .unwrap_or_else(|| self.default.to_string())
    }

    fn goal(&self, rec: &mut Record) {
        let t = self.turn;
        if is_housekeeping(&t.request) || is_shipping(&t.request) {
            return;
        }
        let text = match t.kind {
            RequestKind::None => return,
            // A slash command is a goal only with what it was asked to do.
            RequestKind::Command => match t.request.split_once(' ') {
                // Cut here when the branch a review is of follows, so the
                // bullet's own cut does not take the branch with its tail.
                Some((_, args)) if args.split_whitespace().count() >= 2 => {
                    let room = if review::asks_for_review(&t.request) && feature_branch(t).is_some()
                    {
                        140
                    } else {
                        usize::MAX
                    };
                    format!("`{}`", cap(&one_line(&t.request), room).replace('`', "'"))
                }
                // The client's own command whose meaning is fixed.
                None if t.request == "/init" => self.w.init.to_owned(),
                // A skill or plugin command that did the work
                // (`/codex:adversarial-review`, `/wfc-housekeeping`): its
                // name is what was asked.
                _ if t.tool_calls > 0
                    && !is_client_command(&t.request)
                    && !ships_or_sets_up(&t.request) =>
                {
                    format!("`{}`", cap(&one_line(&t.request), 120).replace('`', "'"))
                }
                _ => return,
            },
            // Later in a session, a complaint is a problem, not a goal, and
            // a question is answered and forgotten.
            RequestKind::Task | RequestKind::Question if !t.first && is_complaint(&t.request) => {
                self.complaint(rec);
                return;
            }
            // A question that led to changes was a request.
            RequestKind::Question if !t.first && t.all_files().next().is_none() => return,
            // What the user said right after declining or stopping a call
            // corrects the course: a decision of theirs. So does a later
            // request that picks one way over another ("use `bun publish`
            // instead of npm publish").
            // The user's answer to the question the previous answer ended
            // on: their choice (a decision), not a new goal.
            // A pick among the options the previous answer offered: the
            // option it names, whatever the reply's length ("B").
            RequestKind::Task if !t.first && t.picked.is_some() => {
                let picked = t.picked.as_deref().unwrap_or_default();
                let said = objective(&t.request, true)
                    .filter(|s| s.split_whitespace().count() > 2)
                    .map(|s| format!(" (« {} »)", cap(&s, 120)))
                    .unwrap_or_default();
                let asked = t
                    .replies_to
                    .as_deref()
                    .map(|q| format!("{} → ", cap(&one_line(q), 110)))
                    .unwrap_or_default();
                rec.push(
                    &self.primary,
                    |s| &mut s.decisions,
                    &format!(
                        "{}{} {asked}{}{said}",
                        self.w.choice,
                        self.w.colon,
                        cap(&one_line(picked), 100)
                    ),
                );
                return;
            }
            RequestKind::Task if !t.first && t.replies_to.is_some() => {
                if let (Some(q), Some(said)) = (&t.replies_to, objective(&t.request, true)) {
                    // What the choice led to, when the answer opens on it
                    // ("Phase 12.1 inserted after Phase 12:").
                    let led_to = choice_outcome(&t.answer)
                        .map(|o| format!(" ; {}", cap(&o, 100)))
                        .unwrap_or_default();
                    rec.push(
                        &self.primary,
                        |s| &mut s.decisions,
                        &format!(
                            "{}{} {} → « {} »{led_to}",
                            self.w.choice,
                            self.w.colon,
                            cap(&one_line(q), 110),
                            cap(&said, 160)
                        ),
                    );
                }
                return;
            }
            RequestKind::Task | RequestKind::Question
                if t.after_refusal || (!t.first && picks_a_way(&t.request)) =>
            {
                if let Some(said) = objective(&t.request, true) {
                    rec.push(
                        &self.primary,
                        |s| &mut s.decisions,
                        &format!(
                            "{}{} « {} »",
                            self.w.correction,
                            self.w.colon,
                            cap(&said, 180)
                        ),
                    );
                }
                return;
            }
            RequestKind::Task | RequestKind::Question => match objective(&t.request, t.first) {
                Some(g) => g,
                None => return,
            },
        };
        let mut bullet = text;
        // "Run it", "Do that", "Continue implementation": said to go on
        // with what the previous answer offered; tomorrow it says nothing.
        // A review of "these changes" is said with its branch below.
        if t.pasted.is_empty()
            && t.ide.is_empty()
            && !review::asks_for_review(&t.request)
            && says_only_go_on(&bullet)
        {
            return;
        }
        // "Fix these" says what with what the user pasted.
        if bullet.split_whitespace().count() < 6
            && let Some(p) = t.pasted.first()
        {
            bullet = format!("{bullet} (`{}`)", cap(&one_line(p).replace('`', "'"), 120));
        }
        // A short, pointing request ("fix this") says more with where the
        // user was pointing.
        if bullet.split_whitespace().count() < 8
            && let Some(sel) = t.ide.iter().find_map(|l| l.strip_prefix("selection: "))
        {
            let (path, lines) = match sel.split_once(" (lines ") {
                Some((p, l)) => (p, format!(" l. {}", l.trim_end_matches(')'))),
                None => (sel, String::new()),
            };
            bullet = format!(
                "{bullet} ({} `{}`{lines})",
                self.w.selection,
                self.shown(path)
            );
        }
        // "Work on bead x-4te": what x-4te is, when the turn looked it up.
        for tk in &t.tickets {
            let named = bullet
                .split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '#')))
                .any(|w| w.trim_end_matches('.') == tk.id);
            if named && !bullet.contains(tk.title.as_str()) {
                bullet = format!(
                    "{bullet} — `{}`{} {}",
                    tk.id.replace('`', "'"),
                    self.w.colon,
                    cap(&one_line(&tk.title), 120)
                );
                break;
            }
        }
        if t.interrupted && t.files.is_empty() {
            // Stopped, then asked again word for word: one goal.
            let asked_again = self
                .req
                .digest
                .turns
                .iter()
                .skip_while(|o| !std::ptr::eq(*o, t))
                .skip(1)
                .any(|o| o.request.trim() == t.request.trim());
            if asked_again {
                return;
            }
            bullet = format!("{bullet} ({})", self.w.interrupted);
        }
        // "Review this branch": which one, when the request does not say.
        if review::asks_for_review(&t.request)
            && let Some(b) = feature_branch(t)
            && !bullet.contains(b.as_str())
        {
            bullet = format!("{bullet} ({} `{b}`)", self.w.branch);
        }
        rec.push(&self.primary, |s| &mut s.objectif, &bullet);
        if matches!(t.kind, RequestKind::Task | RequestKind::Question) {
            for more in more_objectives(&t.request) {
                rec.push(&self.primary, |s| &mut s.objectif, &more);
            }
        }
    }

    /// The user saying something does not work: a problem, with what the
    /// turn changed about it.
    /// Where a turn that changed nothing looked: an investigation cut short
    /// or a question about the code is resumed from those files. Only a
    /// few, or the ones the answer names: twenty files skimmed say nothing.
    /// Why the work of an accepted plan was asked for, as the plan says:
    /// the goal names what, this the situation it answers.
    fn plan_context(&self, rec: &mut Record) {
        if let Some(why) = self.turn.plan.as_deref().and_then(cues::plan_background) {
            rec.push(&self.primary, |s| &mut s.contexte, &why);
        }
    }

    fn context(&self, rec: &mut Record, known: &Known) {
        let t = self.turn;
        self.looked_up(rec);
        if t.reads.is_empty()
            || t.all_files().next().is_some()
            || !t.actions.is_empty()
            || !matches!(t.kind, RequestKind::Task | RequestKind::Question)
        {
            return;
        }
        let mut reads: Vec<String> = Vec::new();
        for r in &t.reads {
            let shown = self.shown(r);
            if self.in_project(r)
                && !is_artifact(r)
                && !reads.contains(&shown)
                && !known.files.contains(&(self.primary.clone(), shown.clone()))
            {
                reads.push(shown);
            }
        }
        let named: Vec<String> = reads
            .iter()
            .filter(|f| {
                let name = f.rsplit('/').next().unwrap_or(f);
                name.len() > 2 && (t.answer.contains(name) || t.request.contains(name))
            })
            .cloned()
            .collect();
        let shown = if !named.is_empty() {
            named
        } else if reads.len() <= MAX_CONTEXT_READS {
            reads
        } else {
            return;
        };
        let shown: Vec<String> = shown.into_iter().take(MAX_CONTEXT_READS).collect();
        if shown.is_empty() {
            return;
        }
        rec.push(
            &self.primary,
            |s| &mut s.contexte,
            &format!("{} {}", self.w.read, list(&shown, self.w)),
        );
    }

    /// The user saying something does not work: a problem, with what the
    /// turn changed about it.
    fn complaint(&self, rec: &mut Record) {
        let t = self.turn;
        let Some(said) = objective(&t.request, true) else {
            return;
        };
        let fixed: Vec<String> = t
            .files
            .iter()
            .filter(|f| self.in_project(&f.path) && self.worth_listing(&f.path))
            .map(|f| self.shown(&f.path))
            .collect();
        let mut b = format!("{}{} {}", self.w.said, self.w.colon, cap(&said, 160));
        if let Some(c) = cause_sentence(&t.answer) {
            b = format!("{b} — {}{} {}", self.w.cause, self.w.colon, cap(&c, 120));
        }
        // What the turn changed, not "fixed": the next turn may say it
        // still does not work.
        if !fixed.is_empty() {
            b = format!("{b} → {} {}", self.w.changed, list(&fixed, self.w));
        }
        rec.push(&self.primary, |s| &mut s.problemes, &b);
    }

    fn work(&self, rec: &mut Record, known: &mut Known) {
        let t = self.turn;
        let w = self.w;
        // Files, per project and kind of change, the ones today's log
        // already names left out (a file updated in three turns is one fact).
        let mut groups: Vec<(String, Change, Vec<String>)> = Vec::new();
        let mut seen_before: Vec<&FileChange> = Vec::new();
        for f in &t.files {
            let key = (self.route(&f.path), self.shown(&f.path));
            if matches!(f.change, Change::Created | Change::Updated) && known.files.contains(&key) {
                seen_before.push(f);
            }
            self.group_file(f, &mut groups, known);
        }
        // What the answer says was done to a file goes with it.
        let detail_of = |file: &str| {
            self.details
                .iter()
                .find(|(i, _)| self.shown[*i] == file)
                .map(|(_, d)| {
                    d.iter()
                        .map(|d| d.text.as_str())
                        .collect::<Vec<_>>()
                        .join("; ")
                })
        };
        // A file an earlier turn of the day already listed: what this turn
        // says it did comes first in that bullet, what it said before after
        // it, as far as the bullet's length allows (the latest state of a
        // reworked change first); its verb stays (created today is still
        // created).
        for f in seen_before {
            let (project, path) = (self.route(&f.path), self.shown(&f.path));
            let Some(d) = detail_of(&path) else {
                continue;
            };
            let rewrite = |verb: &str, was: &str| {
                let head = format!("{verb} `{path}`");
                let before = was
                    .trim()
                    .strip_prefix(head.as_str())
                    .map(|r| r.trim_start().trim_start_matches(':').trim())
                    .unwrap_or("");
                // What this turn says again, an earlier telling already
                // holds whole ("Added unit tests" after "Added unit tests
                // to verify …"): the earlier telling says it.
                let said: Vec<&str> = d
                    .split("; ")
                    .filter(|p| {
                        !before
                            .split("; ")
                            .any(|o| normalise(o).contains(&normalise(p)))
                    })
                    .collect();
                if said.is_empty() {
                    return was.trim().to_owned();
                }
                let mut text = format!("{head}{} {}", w.colon, said.join("; "));
                for part in before.split("; ") {
                    if !part.is_empty() && !normalise(&text).contains(&normalise(part)) {
                        if text.chars().count() + part.chars().count() + 2 > MAX_BULLET {
                            break;
                        }
                        text = format!("{text}; {part}");
                    }
                }
                text
            };
            if let Some(b) = rec.one_file_bullet(&project, &path, w) {
                let verb = one_file_bullet(b, w).map_or(w.updated, |(v, _)| v);
                *b = rewrite(verb, b);
            } else if let Some((verb, was)) =
                known.file_bullets.get(&(project.clone(), path.clone()))
            {
                let now = rewrite(verb, was);
                if normalise(&now) != normalise(was) {
                    rec.sections(&project).travail_revise.push(Revision {
                        was: was.clone(),
                        now: now.clone(),
                    });
                    let verb = *verb;
                    known.file_bullets.insert((project, path), (verb, now));
                }
            }
        }
        for (project, change, files) in groups {
            let verb = match change {
                Change::Created => w.created,
                Change::Updated => w.updated,
                Change::Deleted => w.deleted,
                Change::Moved => w.moved,
            };
            let (told, bare): (Vec<String>, Vec<String>) = files.into_iter().partition(|f| {
                matches!(change, Change::Created | Change::Updated) && detail_of(f).is_some()
            });
            for f in &told {
                let d = detail_of(f).unwrap_or_default();
                rec.push(
                    &project,
                    |s| &mut s.travail,
                    &format!("{verb} `{f}`{} {d}", w.colon),
                );
            }
            if !bare.is_empty() {
                // When not all fit, the ones the answer talks about first.
                let mut bare = bare;
                let answer = t.answer.as_str();
                bare.sort_by_key(|f| {
                    let name = f.rsplit('/').next().unwrap_or(f);
                    !(name.len() > 2 && answer.contains(name))
                });
                rec.push(
                    &project,
                    |s| &mut s.travail,
                    &format!("{verb} {}", list(&bare, w)),
                );
            }
        }
        for s in &t.subagents {
            let mut groups = Vec::new();
            for f in &s.files {
                self.group_file(f, &mut groups, known);
            }
            if groups.is_empty() {
                continue;
            }
            let parts: Vec<String> = groups
                .iter()
                .map(|(_, change, files)| {
                    let verb = match change {
                        Change::Created => w.created,
                        Change::Updated => w.updated,
                        Change::Deleted => w.deleted,
                        Change::Moved => w.moved,
                    };
                    format!("{} {}", verb.to_lowercase(), list(files, w))
                })
                .collect();
            let desc = one_line(&s.description);
            rec.push(
                &groups[0].0,
                |s| &mut s.travail,
                &format!(
                    "{} « {} »{} {}",
                    w.subagent,
                    cap(&desc, 80),
                    w.colon,
                    parts.join(", ")
                ),
            );
        }
        let actions = remote::merged(&t.actions);
        for (i, a) in actions.iter().enumerate() {
            // A commit a hook refused, then made: the one that went through
            // is the fact.
            let redone = !a.ok && actions[i + 1..].iter().any(|b| b.ok && b.kind == a.kind);
            if redone {
                continue;
            }
            let Some(b) = self.action(a) else { continue };
            // A commit that failed in an earlier turn and went through now:
            // its bullet says so, no second one.
            if a.ok && a.kind == ActionKind::Commit {
                let at = known.failed_commits.iter().position(|(p, was)| {
                    *p == self.primary
                        && failed_commit_message(was).is_some_and(|m| same_commit(m, &a.detail))
                });
                if let Some(at) = at {
                    let (_, was) = known.failed_commits.remove(at);
                    rec.sections(&self.primary)
                        .travail_revise
                        .push(Revision { was, now: b });
                    continue;
                }
            }
            // The same branch pushed again from where the last push left
            // it: one bullet whose range grows.
            if let Some((what, from, to)) = push_range(&b) {
                let follows =
                    |was: &str| push_range(was).is_some_and(|(w, _, end)| w == what && end == from);
                let now = |was: &str| {
                    let (_, start, _) = push_range(was).unwrap_or_default();
                    format!("{what} (`{start}..{to}`)")
                };
                let sec = rec.sections(&self.primary);
                // Said in this turn: moved after the commits it now covers.
                if let Some(at) = sec.travail.iter().rposition(|b| follows(b)) {
                    let was = sec.travail.remove(at);
                    sec.travail.push(now(&was));
                    continue;
                }
                let at = known
                    .pushes
                    .iter()
                    .rposition(|(p, was)| *p == self.primary && follows(was));
                if let Some(at) = at {
                    let (p, was) = known.pushes.remove(at);
                    let revised = now(&was);
                    known.pushes.push((p, revised.clone()));
                    sec.travail_revise.push(Revision { was, now: revised });
                    continue;
                }
            }
            rec.push(&self.primary, |s| &mut s.travail, &b);
        }
        self.tickets(rec, known);
        self.ci_runs(rec);
        // The turn's last test run, when it passed: the state the work left.
        if let Some(c) = passing_tests(t) {
            // The count the turn started from, when the same suite ran
            // first with another (tests added, or some failing then).
            let before = t
                .checks
                .iter()
                .find(|b| {
                    // The same suite, passing: a file run first is not the
                    // count before, nor a run that stopped at its first
                    // failure (`pytest -x`).
                    b.test
                        && b.ok
                        && b.failed.unwrap_or(0) == 0
                        && b.passed.is_some()
                        && covers(&c.command, &b.command)
                        && covers(&b.command, &c.command)
                })
                .map(|b| b.passed.unwrap_or(0) + b.failed.unwrap_or(0))
                .filter(|n| *n != c.passed.unwrap_or(0) + c.failed.unwrap_or(0))
                .map(|n| format!(", {} {n}", w.before))
                .unwrap_or_default();
            rec.push(
                &self.primary,
                |s| &mut s.travail,
                &format!(
                    "{}{} {} {}{}{before} (`{}`)",
                    w.tests,
                    w.colon,
                    c.passed.unwrap_or(0),
                    w.passed_word(c.passed.unwrap_or(0)),
                    c.coverage
                        .as_deref()
                        .map(|p| format!(", {} {p}", w.coverage))
                        .unwrap_or_default(),
                    self.shown_check(&c.command, 60)
                ),
            );
        } else if let Some(c) = t
            .checks
            .iter()
            .rev()
            .find(|c| c.test)
            // Piped into `grep` or `head`, its exit status is theirs: only
            // a run whose output said so (`12 packages ok`).
            .filter(|c| {
                c.ok && c.passed.is_none()
                    && c.failed.is_none()
                    && (!c.command.contains('|') || !c.summary.is_empty())
            })
            .filter(|_| !t.files.is_empty())
        {
            // A runner that says no count (`go test ./...`: `ok` per
            // package), after changes: that they pass is the state left.
            let said = if c.summary.is_empty() || c.summary.chars().count() > 40 {
                String::new()
            } else {
                format!(", {}", c.summary.trim_end_matches('.'))
            };
            rec.push(
                &self.primary,
                |s| &mut s.travail,
                &format!(
                    "{}{} {}{said} (`{}`)",
                    w.tests,
                    w.colon,
                    w.passed,
                    self.shown_check(&c.command, 60)
                ),
            );
        }
        self.checks_passed(rec, t);
        // Completed to-dos nobody wrote down as open: what was done, in the
        // model's own words.
        for todo in t.todos.iter().filter(|t| t.status == TodoStatus::Completed) {
            // Only when subagents did the work the list describes: a list
            // ticked off with no file changed may claim what did not happen.
            // (and not a list whose subagents each say what they did).
            let subagent_work = t
                .subagents
                .iter()
                .any(|s| !s.files.is_empty() && s.description == "subagent");
            if known.open_todo(&self.primary, &todo.text).is_none()
                && known.earlier_todo(&self.primary, &todo.text).is_none()
                && t.files.is_empty()
                && subagent_work
            {
                rec.push(&self.primary, |s| &mut s.travail, &capitalise(&todo.text));
            }
        }
    }

    fn group_file(
        &self,
        f: &FileChange,
        groups: &mut Vec<(String, Change, Vec<String>)>,
        known: &mut Known,
    ) {
        if !self.worth_listing(&f.path) || (f.change == Change::Deleted && is_artifact(&f.path)) {
            return;
        }
        let project = self.route(&f.path);
        let shown = self.shown(&f.path);
        // Listed once a day; a deletion or a move is news even so.
        let news = matches!(f.change, Change::Deleted | Change::Moved);
        if !known.files.insert((project.clone(), shown.clone())) && !news {
            return;
        }
        let shown = match &f.from {
            Some(from) if f.change == Change::Moved => format!("{shown}` ← `{}", self.shown(from)),
            _ => shown,
        };
        match groups
            .iter_mut()
            .find(|(p, c, _)| *p == project && *c == f.change)
        {
            Some((_, _, files)) => files.push(shown),
            None => groups.push((project, f.change, vec![shown])),
        }
    }

    fn action(&self, a: &Action) -> Option<String> {
        let w = self.w;
        let detail = one_line(&a.detail).replace('`', "'");
        // Installing the project itself (`uv tool install .`) is a local
        // step, repeated at will; a dependency added is the fact.
        if a.kind == ActionKind::Install
            && (detail.is_empty()
                || detail == "."
                || detail.starts_with('-')
                || detail.starts_with("./"))
        {
            return None;
        }
        let verb = match a.kind {
            ActionKind::Commit => {
                if detail.is_empty() {
                    return None;
                }
                // Hooks skipped: what they check was not checked.
                let no_verify = if a.ok && a.skipped_hooks {
                    ", `--no-verify`"
                } else {
                    ""
                };
                // Made on a feature branch: where to find it.
                // Where git said it went, else where the turn ended.
                let branch = a.branch.as_deref().or(self.turn.branch.as_deref());
                let on = match named_feature_branch(branch) {
                    Some(b) if a.ok => format!(" {} `{b}`", w.on_branch),
                    _ => String::new(),
                };
                return Some(if a.ok && is_hash(&a.id) {
                    format!(
                        "{} « {} » (`{}`{no_verify}){on}",
                        w.commit,
                        cap(&detail, 160),
                        short_hash(&a.id)
                    )
                } else if a.ok && !no_verify.is_empty() {
                    format!("{} « {} » (`--no-verify`){on}", w.commit, cap(&detail, 160))
                } else if a.ok {
                    format!("{} « {} »{on}", w.commit, cap(&detail, 160))
                } else {
                    format!("{} « {} » ({})", w.commit, cap(&detail, 160), w.failed)
                });
            }
            // `gh pr create` printed the request's address.
            ActionKind::Push if a.ok && a.id.starts_with('#') => {
                let title = detail
                    .strip_prefix("PR")
                    .map(|t| t.trim_start_matches(':').trim())
                    .unwrap_or("");
                let (before, after) = w.pr_opened;
                let pr = format!("{before}{}{after}", a.id);
                return Some(if title.is_empty() {
                    pr
                } else {
                    format!("{pr}{} « {} »", w.colon, cap(title, 140))
                });
            }
            ActionKind::Push => w.push,
            ActionKind::Merge => w.merge,
            ActionKind::Tag => w.tag,
            ActionKind::Release => w.release,
            ActionKind::Migration => w.migration,
            ActionKind::Install => w.install,
            ActionKind::Deploy => w.deploy,
            ActionKind::Commented => w.commented,
            ActionKind::Remote => {
                let (host, what) = detail.split_once(": ")?;
                let failed = if a.ok {
                    String::new()
                } else {
                    format!(" ({})", w.failed)
                };
                let what: Vec<String> = what
                    .split(", ")
                    .take(6)
                    .map(|c| match c.strip_prefix("> ") {
                        Some(file) => format!("{} `{}`", w.wrote, cap(file, 90)),
                        None => format!("`{}`", cap(c, 90)),
                    })
                    .collect();
                return Some(format!(
                    "{} `{host}` (ssh){} {}{failed}",
                    w.remote,
                    w.colon,
                    what.join(", ")
                ));
            }
            // To-dos and what closed them: `tickets`.
            ActionKind::TicketOpened | ActionKind::TicketClosed => return None,
        };
        let mut what = if detail.is_empty() || detail == "." || detail.starts_with("-") {
            format!("(`{}`)", cap(&one_line(&a.command).replace('`', "'"), 80))
        } else {
            format!("`{}`", cap(&detail, 100))
        };
        // A bare `git push`: the branch it updated, as git printed it.
        let refspecs = detail
            .split_whitespace()
            .skip(2)
            .filter(|w| !w.starts_with('-'))
            .count();
        if a.kind == ActionKind::Push
            && !a.id.is_empty()
            && !a.id.starts_with('#')
            && detail.starts_with("git push")
            && refspecs <= 1
        {
            what = format!("{what} → `{}`", a.id.replace('`', "'"));
        }
        // Which commits went out: what a reader checks against the log.
        if let Some(r) = a.range.as_deref().filter(|_| a.kind == ActionKind::Push) {
            what = format!("{what} (`{r}`)");
        }
        let failed = if a.ok {
            String::new()
        } else {
            format!(" ({})", w.failed)
        };
        Some(format!("{verb} {what}{failed}"))
    }

    fn problems(&self, rec: &mut Record) {
        let t = self.turn;
        let w = self.w;
        let cause = cause_sentence(&t.answer);
        // The final answer naming the cause, after a fix: said with the
        // first fixed error (said once, not on every bullet).
        let resolved = t.errors.iter().filter(|e| e.resolved).count();
        let mut cause_for_fix = cause.clone().filter(|_| resolved == 1);
        // One failing command refused twice for two reasons (a hook's
        // linter, then its type checker), and cured the same way: one
        // bullet that says both.
        let mut errors: Vec<ToolError> = Vec::new();
        for e in &t.errors {
            // The same program denied again (`git reset --hard HEAD~1`,
            // then `… 7642e85`): one refusal, both commands named.
            if let Some(cmd) = denied_command(&e.message) {
                let again = errors.iter_mut().find(|m| {
                    m.tool == e.tool
                        && m.resolved == e.resolved
                        && denied_commands(&m.message).is_some_and(|cs| {
                            cs.iter()
                                .any(|c| segment_program(c) == segment_program(cmd))
                        })
                });
                if let Some(m) = again {
                    let mut cs = denied_commands(&m.message).unwrap_or_default();
                    if !cs.contains(&cmd) && cs.len() < 4 {
                        cs.push(cmd);
                    }
                    let shown: Vec<String> =
                        cs.iter().map(|c| format!("`{}`", cap(c, 60))).collect();
                    m.message = format!(
                        "Permission to use {} with command {} has been denied.",
                        m.tool,
                        shown.join(", ")
                    );
                    m.target.clear();
                    continue;
                }
            }
            // The shell globbing a `?` twice in a turn: one lesson.
            let complaint = ["no matches found", "command not found"]
                .into_iter()
                .find(|k| e.message.contains(k));
            if let Some(k) = complaint
                && errors
                    .iter()
                    .any(|m| m.tool == e.tool && m.resolved == e.resolved && m.message.contains(k))
            {
                continue;
            }
            let same = errors.iter_mut().find(|m| {
                !m.target.is_empty()
                    && m.target == e.target
                    && m.resolved == e.resolved
                    && m.resolved_by == e.resolved_by
                    && m.fixed_in == e.fixed_in
            });
            match same {
                Some(m) if !m.message.contains(&e.message) => {
                    // Said once: the lead-in both share ("Pre-commit
                    // validation failed:").
                    let lead = m
                        .message
                        .split_once(": ")
                        .map(|(l, _)| format!("{l}: "))
                        .filter(|l| e.message.starts_with(l.as_str()));
                    let rest = lead.map_or(e.message.as_str(), |l| &e.message[l.len()..]);
                    m.message = format!("{}; {rest}", m.message);
                }
                Some(_) => {}
                None => errors.push(e.clone()),
            }
        }
        // An edit redone at once (its text was not there, the file had
        // changed under it) says less than any other failure: last when
        // there are more than fit.
        errors.sort_by_key(|e| {
            matches!(
                e.tool.as_str(),
                "Edit" | "MultiEdit" | "Write" | "NotebookEdit"
            ) && e.resolved
                && e.fixed_in.is_empty()
                && e.resolved_by.is_none()
        });
        for e in errors.iter().take(4) {
            if let Some(mut b) = self.error(e) {
                if e.resolved
                    && let Some(c) = cause_for_fix.take()
                {
                    b = format!("{b} — {}{} {}", w.cause, w.colon, cap(&c, 120));
                } else {
                    b = self.with_cause(b, e.cause.as_deref());
                }
                rec.push(&self.primary, |s| &mut s.problemes, &b);
            }
        }
        // Tests: failing then passing is a fix; failing at the end is open.
        let tests: Vec<&Check> = t.checks.iter().filter(|c| c.test).collect();
        let first_failing = tests.iter().find(|c| !c.ok);
        // A narrower run passing (three test files after the whole suite
        // failed) does not say the failure is gone: such a last run counts
        // as no run after the failure.
        let last = tests.last().filter(|l| match first_failing {
            Some(f) if !std::ptr::eq(**l, *f) && l.ok && f.fixed_in.is_empty() => {
                covers(&l.command, &f.command)
            }
            _ => true,
        });
        let last = last.or(first_failing);
        // A failure fixed, and the last run still failing for another
        // reason (fewer failures, another test): what is left is a problem
        // of its own, and the first one reads as fixed.
        let left_other = first_failing
            .zip(tests.last())
            .filter(|(f, l)| {
                !l.ok
                    && !f.fixed_in.is_empty()
                    && l.failed.zip(f.failed).is_some_and(|(n, m)| n > 0 && n < m)
                    && !l.summary.is_empty()
                    && l.summary != f.summary
            })
            .map(|(_, l)| *l);
        if let (Some(f), Some(l)) = (first_failing, last) {
            // Of the failures, those the last run no longer has were fixed.
            let failed = f.failed.unwrap_or(0) - left_other.and_then(|l| l.failed).unwrap_or(0);
            // The runs failing on the way to the fix, the first one first.
            let on_the_way: Vec<&Check> = tests
                .iter()
                .skip_while(|c| !std::ptr::eq(**c, *f))
                .take_while(|c| !c.ok && !left_other.is_some_and(|l| std::ptr::eq(**c, l)))
                .copied()
                .collect();
            let what = if failed > 0 {
                format!("{}{} {failed} {}", w.tests, w.colon, w.failing)
            } else {
                format!("{} {}", w.tests, w.failing)
            };
            let told = |c: &Check| {
                !(c.summary.is_empty()
                    || c.summary.contains(" passed")
                    || c.summary.contains(" failed"))
            };
            let fixed = self.fixed_shown(&f.fixed_in);
            // A second failure met on the way to the fix (the first error
            // gone, another under it, in another file) is part of the story.
            let then = on_the_way
                .iter()
                .skip(1)
                .filter(|_| (l.ok || left_other.is_some()) && !fixed.is_empty())
                .find(|c| told(c) && c.summary != f.summary && !same_place(&c.summary, &f.summary))
                .map(|c| format!("; {} {}", w.then, cap(&c.summary, 70)))
                .unwrap_or_default();
            let summary = if told(f) {
                format!(" ({}{then})", cap(&f.summary, 100))
            } else {
                String::new()
            };
            // A run that says neither what failed nor how many (`pytest:
            // command not found`) is named by its command.
            let vague = failed == 0 && summary.is_empty();
            let b = match (l.ok || left_other.is_some(), fixed.is_empty()) {
                // Passed again with nothing changed in between, and nothing
                // said of why it failed: the passing run's bullet is the news.
                (true, true) if vague => None,
                // Run another way (`tox` not found, `uv run tox` passing):
                // that way is the fix.
                (true, true) => Some(format!(
                    "{what}{summary} → {} {}{}",
                    l.passed.unwrap_or(0),
                    w.passed_word(l.passed.unwrap_or(0)),
                    if program(&l.command) == program(&f.command) {
                        String::new()
                    } else {
                        format!(" ({} `{}`)", w.works_with, self.shown_check(&l.command, 60))
                    }
                )),
                (true, false) => Some(format!(
                    "{what}{summary} → {} {}{}",
                    w.fixed_by,
                    list(&fixed, w),
                    self.fix_told(&f.summary, &fixed)
                )),
                (false, _) if vague => Some(format!(
                    "{what} (`{}`, {})",
                    self.shown_check(&f.command, 60),
                    w.unresolved
                )),
                (false, _) => Some(format!("{what}{summary} ({})", w.unresolved)),
            };
            if let Some(b) = b {
                // Said after the narrower rerun, the cause is still this
                // failure's.
                let cause = on_the_way.iter().find_map(|c| c.cause.as_deref());
                let b = self.with_cause(b, cause);
                rec.push(&self.primary, |s| &mut s.problemes, &b);
            }
        }
        if let Some(l) = left_other {
            let n = l.failed.unwrap_or(0);
            let passed = l
                .passed
                .map(|p| format!(", {p} {}", w.passed_word(p)))
                .unwrap_or_default();
            let b = format!(
                "{}{} {n} {}{passed} ({}) ({})",
                w.tests,
                w.colon,
                w.failing,
                cap(&l.summary, 100),
                w.unresolved
            );
            rec.push(&self.primary, |s| &mut s.problemes, &b);
        }
        // A failing build or lint: fixed if the same program later passed.
        let builds: Vec<&Check> = t.checks.iter().filter(|c| !c.test).collect();
        if let Some(at) = builds.iter().position(|c| !c.ok) {
            let prog = program(&builds[at].command);
            // Of the failing runs of that program, the one whose summary
            // points at a place (`x_test.go:35:3: Error return…`) says
            // more than a runner's "task failed".
            let c = builds[at..]
                .iter()
                .filter(|c| !c.ok && program(&c.command) == prog)
                .find(|c| names_a_location(&c.summary))
                .copied()
                .unwrap_or(builds[at]);
            let passed = builds[at + 1..]
                .iter()
                .find(|x| x.ok && programs_passed(&x.command).contains(&prog));
            let later_ok = passed.is_some();
            // Passed once the shell was set up (`PATH=$PATH:/usr/local/go/bin
            // && …`): that setup is the cure.
            let setup: Vec<&str> = passed
                .map(|x| {
                    x.command
                        .lines()
                        .next()
                        .unwrap_or("")
                        .split("&&")
                        .map(str::trim)
                        .filter(|s| is_shell_setup(s))
                        .filter(|s| !c.command.contains(*s))
                        .collect()
                })
                .unwrap_or_default();
            let fixed = self.fixed_shown(&c.fixed_in);
            let how = if later_ok {
                self.fix_told(&c.summary, &fixed)
            } else {
                String::new()
            };
            // Room in the bullet for the fix when the answer tells it.
            let room = if how.is_empty() { 140 } else { 90 };
            let summary = if c.summary.is_empty() {
                String::new()
            } else {
                format!("{} {}", w.colon, cap(&c.summary, room))
            };
            let head = format!(
                "{} `{}` {}{summary}",
                w.build,
                self.shown_check(&c.command, 60),
                w.failed
            );
            let bullet = match (later_ok, fixed.is_empty()) {
                (true, false) => Some(format!("{head} → {} {}{how}", w.fixed_by, list(&fixed, w))),
                (true, true) if !setup.is_empty() => Some(format!(
                    "{head} → {} `{}`",
                    w.works_with,
                    cap(&setup.join(" && ").replace('`', "'"), 70)
                )),
                // Passed on a plain rerun: nothing to learn.
                (true, true) => None,
                (false, _) => Some(format!("{head} ({})", w.unresolved)),
            };
            if let Some(b) = bullet {
                // The cause, unless the answer's own telling of the fix
                // already says why; sized on the whole bullet.
                let b = if how.is_empty() {
                    self.with_cause(b, c.cause.as_deref())
                } else {
                    b
                };
                rec.push(&self.primary, |s| &mut s.problemes, &b);
            }
        }
        // What a subagent could not get past.
        for sub in &t.subagents {
            for e in sub.errors.iter().take(2) {
                if let Some(b) = self.error(e) {
                    let desc = cap(&one_line(&sub.description), 60);
                    rec.push(
                        &self.primary,
                        |s| &mut s.problemes,
                        &format!("{} « {desc} »{} {b}", w.subagent, w.colon),
                    );
                }
            }
        }
        // "I'm logged in as jnarowski but the menu says Guest User. Use
        // the username": what is wrong, said before what to do.
        if matches!(t.kind, RequestKind::Task | RequestKind::Question)
            && let Some(said) = reported_symptom(&t.request)
        {
            rec.push(
                &self.primary,
                |s| &mut s.problemes,
                &format!("{}{} « {} »", w.symptom, w.colon, cap(&said, 200)),
            );
        }
        for p in t.pasted.iter().take(2) {
            // A warning the user pasted is what they ask about, though it
            // names no failure ("WAL rotation skipped … (channel full)").
            let lower = p.trim_start().to_lowercase();
            let warns = ["[warning]", "[warn]", "warning:", "warn ", "[error]"]
                .iter()
                .any(|m| lower.starts_with(m))
                // A program that stopped saying why (`No test files
                // found, exiting with code 1`).
                || ["exiting with code", "exit code", "exited with code"]
                    .iter()
                    .any(|m| lower.contains(m) && !lower.contains("code 0"));
            // Already said by a failing check of the same turn.
            if !(warns || cues::has_problem_word(p))
                || t.checks
                    .iter()
                    .any(|c| !c.summary.is_empty() && p.contains(&c.summary))
            {
                continue;
            }
            let mut b = format!("{}{} {}", w.reported, w.colon, cap(p, 160));
            if let Some(c) = &cause {
                b = format!("{b} — {}{} {}", w.cause, w.colon, cap(c, 120));
            }
            rec.push(&self.primary, |s| &mut s.problemes, &b);
        }
    }

    /// The builds, linters and type checkers of a turn that changed files,
    /// each by its last run, when that run passed and nothing changed after
    /// it: the state the work was left in, which tomorrow starts from.
    fn checks_passed(&self, rec: &mut Record, t: &Turn) {
        if t.files.is_empty() {
            return;
        }
        let mut last: Vec<&Check> = Vec::new();
        for c in t.checks.iter().filter(|c| !c.test) {
            let p = program(&c.command);
            last.retain(|x| program(&x.command) != p);
            last.push(c);
        }
        let shown: Vec<String> = last
            .iter()
            .filter(|c| c.ok && !c.changed_after)
            // Piped into `tail`, its exit status is the pipe's: only a run
            // whose output said it was clean (`0 issues.`).
            .filter(|c| !c.command.contains('|') || !c.summary.is_empty())
            // One line that ran the tests and the linter: the tests' bullet
            // names it already.
            .filter(|c| {
                !t.checks
                    .iter()
                    .any(|x| x.test && x.ok && x.command == c.command)
            })
            .take(4)
            .map(|c| {
                let cmd = format!("`{}`", self.shown_check(&c.command, 50));
                if c.summary.is_empty() || c.summary.chars().count() > 40 {
                    cmd
                } else {
                    format!("{cmd} ({})", c.summary.trim_end_matches('.'))
                }
            })
            .collect();
        if !shown.is_empty() {
            let w = self.w;
            rec.push(
                &self.primary,
                |s| &mut s.travail,
                &format!("{}{} {}", w.checks_passed, w.colon, shown.join(", ")),
            );
        }
    }

    /// The project's files among those changed before a fix, as shown.
    fn fixed_shown(&self, fixed_in: &[String]) -> Vec<String> {
        fixed_in
            .iter()
            .filter(|p| self.in_project(p))
            .map(|p| self.shown(p))
            .collect()
    }

    /// What the answer says was done to one of the `fixed` files about
    /// this `problem` (" — Added `# type: ignore[misc]` to …"), empty when
    /// it says nothing that names it: the fix, not only where it was made.
    fn fix_told(&self, problem: &str, fixed: &[String]) -> String {
        let terms = distinctive_terms(problem);
        if terms.is_empty() {
            return String::new();
        }
        let of_fixed = self
            .details
            .iter()
            .filter(|(i, _)| fixed.contains(&self.shown[*i]));
        for (_, ds) in of_fixed {
            for d in ds {
                let source = d.source.to_lowercase();
                if terms.iter().any(|t| source.contains(t.as_str())) {
                    // "Fixed X → Added Y": Y is the fix.
                    let fix = d
                        .text
                        .rsplit_once(" → ")
                        .map_or(d.text.as_str(), |(_, y)| y);
                    return format!(" — {}", cap(fix, 90));
                }
            }
        }
        String::new()
    }

    /// A failed call's target as its problem bullet starts with it.
    fn error_target(&self, target: &str) -> String {
        // A file the call was about reads as the project's other paths do.
        let target = if target.starts_with('/') && self.in_project(target) {
            self.shown(target)
        } else {
            target.to_owned()
        };
        self.shown_command(&target, 70)
    }

    /// A problem's bullet with the cause the model gave right after the
    /// failure, unless the bullet already says it. Before the unresolved
    /// mark, which a later turn's fix rewrites only at the bullet's end.
    fn with_cause(&self, bullet: String, cause: Option<&str>) -> String {
        let w = self.w;
        let Some(c) = cause.map(one_line).filter(|c| !bullet.contains(c.as_str())) else {
            return bullet;
        };
        let mark = format!(" ({})", w.unresolved);
        let (head, mark) = match bullet.strip_suffix(mark.as_str()) {
            Some(head) => (head, mark.as_str()),
            None => (bullet.as_str(), ""),
        };
        // Within the bullet's cap, the mark kept whole; a cause with no
        // room to say anything is left out.
        let lead = format!(" — {}{} ", w.cause, w.colon);
        let used = head.chars().count() + lead.chars().count() + mark.chars().count();
        let room = MAX_BULLET.saturating_sub(used).min(120);
        if room < 40 {
            return bullet;
        }
        format!("{head}{lead}{}{mark}", cap(&c, room))
    }

    /// Problems earlier turns left unresolved that this turn got past: the
    /// bullet written then gets what worked.
    fn resolved_earlier(&self, rec: &mut Record) {
        let w = self.w;
        for f in &self.turn.resolved_earlier {
            let target = self.error_target(&f.target);
            if target.is_empty() {
                continue;
            }
            let res = crate::extract::record::Resolution {
                head: format!("`{target}`{}", w.colon),
                was: format!("({})", w.unresolved),
                now: format!(
                    "→ {} `{}`",
                    w.resolved_later,
                    cap(&one_line(&f.by).replace('`', "'"), 70)
                ),
            };
            let list = &mut rec.sections(&self.primary).problemes_resolus;
            if !list.contains(&res) {
                list.push(res);
            }
        }
    }

    fn error(&self, e: &ToolError) -> Option<String> {
        let w = self.w;
        if e.message.trim().is_empty() {
            return None;
        }
        let target = self.error_target(&e.target);
        let fixed = self.fixed_shown(&e.fixed_in);
        let how = if e.resolved && !fixed.is_empty() {
            self.fix_told(&e.message, &fixed)
        } else {
            String::new()
        };
        let room = if how.is_empty() { 140 } else { 90 };
        let head = if target.is_empty() {
            format!("{}{} {}", e.tool, w.colon, cap(&e.message, room))
        } else {
            format!("`{target}`{} {}", w.colon, cap(&e.message, room))
        };
        if e.resolved {
            if !fixed.is_empty() {
                return Some(format!("{head} → {} {}{how}", w.fixed_by, list(&fixed, w)));
            }
            if let Some(by) = &e.resolved_by {
                // The commit a hook refused, made later: the commit says it.
                let made = self.turn.actions.iter().find(|a| {
                    a.ok && a.kind == ActionKind::Commit && a.command == *by && !a.detail.is_empty()
                });
                if let Some(a) = made {
                    // Made by skipping the hook that refused it: said.
                    let no_verify = if a.skipped_hooks {
                        " (`--no-verify`)"
                    } else {
                        ""
                    };
                    return Some(format!(
                        "{head} → {}{} {} « {} »{no_verify}",
                        w.resolved_later_bare,
                        w.colon,
                        w.commit.to_lowercase(),
                        cap(&one_line(&a.detail).replace('`', "'"), 80)
                    ));
                }
                return Some(format!(
                    "{head} → {} `{}`",
                    w.works_with,
                    untrimmed_command(by, 70)
                ));
            }
            // A hook that refuses a first attempt (a security reminder on
            // workflow files) is how this project's setup behaves: worth
            // knowing. Any other plain retry teaches nothing.
            let hook = e.message.starts_with("PreToolUse:") || e.message.contains(" hook error");
            if hook {
                return Some(format!("{head} → {}", w.on_retry));
            }
            // An edit refused because the file changed under it (a
            // formatter hook, the user's editor), or whose text was not
            // there for a reason the model said (tabs): how this
            // project's files behave.
            let edit = matches!(
                e.tool.as_str(),
                "Edit" | "MultiEdit" | "Write" | "NotebookEdit"
            );
            let changed_under = e.message.contains("modified since read")
                || e.message.contains("unexpectedly modified");
            return (edit && (changed_under || e.cause.is_some()))
                .then(|| format!("{head} → {}", w.redone));
        }
        Some(format!("{head} ({})", w.unresolved))
    }

    fn decisions(&self, rec: &mut Record) {
        let t = self.turn;
        let w = self.w;
        // A plan handed over as the request is already the goal.
        if let Some(plan) = &t.plan
            && let Some(title) = plan_title(plan)
            && title != t.request
        {
            rec.push(
                &self.primary,
                |s| &mut s.decisions,
                &format!("{}{} {}", w.plan, w.colon, cap(&title, 180)),
            );
        }
        // "**Key design decisions:**" then its items: the ways the work
        // took, said as such. Not in a proposal waiting for a yes.
        if !is_proposal(&t.answer) && (t.all_files().next().is_some() || !t.actions.is_empty()) {
            let mut kept = 0;
            for s in cues::sentences(&t.answer) {
                if kept == MAX_DECISIONS_TOLD {
                    break;
                }
                if s.item
                    && s.list_cue == Some(cues::Cue::Decision)
                    && s.text.split_whitespace().count() >= 4
                {
                    rec.push(
                        &self.primary,
                        |x| &mut x.decisions,
                        &cap(&s.text.replace("**", ""), 180),
                    );
                    kept += 1;
                }
            }
        }
        for c in &t.choices {
            // The form's "(Recommended)" is the model's advice, not the
            // user's words.
            let answer = one_line(&c.answer)
                .replace(" (Recommended)", "")
                .replace(" (recommended)", "")
                .replace(" (Recommandé)", "")
                .replace(" (recommandé)", "");
            if answer.trim().is_empty() {
                continue;
            }
            rec.push(
                &self.primary,
                |s| &mut s.decisions,
                &format!(
                    "{}{} {} → {}",
                    w.choice,
                    w.colon,
                    cap(&question_itself(&c.question), 110),
                    cap(answer.trim(), 90)
                ),
            );
        }
        for d in &t.declined {
            // Without a reason, or with a question instead, a refusal says
            // nothing durable.
            // "Can't we make UnmarshalJSON strict?": a question that
            // proposes another way is a steer, and says it.
            let steer = {
                let r = d.reason.trim().to_lowercase().replace('’', "'");
                [
                    "can't we",
                    "cannot we",
                    "couldn't we",
                    "could we",
                    "can we",
                    "why not",
                    "shouldn't we",
                    "should we",
                    "what about",
                    "how about",
                    "wouldn't it",
                    "isn't there",
                    "pourquoi ne pas",
                    "on ne peut pas",
                    "et si",
                ]
                .iter()
                .any(|p| {
                    r.split(['?', '.', '!'])
                        .any(|part| part.trim_start().starts_with(p))
                })
            };
            // A plan turned down is a way not taken, reason or none: the
            // user's next words say what instead.
            // The file "the py file" means, for tomorrow's reader.
            let named = || {
                self.file_meant(&d.reason)
                    .map(|f| format!(" (`{f}`)"))
                    .unwrap_or_default()
            };
            // Turned down, then accepted as it was: the accepted plan says it.
            let accepted_as_is = d.reason.trim().is_empty()
                && t.plan.as_deref().and_then(plan_title).as_deref() == Some(d.target.as_str());
            if d.tool == "ExitPlanMode" && !d.target.is_empty() && !accepted_as_is {
                let why = if d.reason.trim().is_empty() {
                    String::new()
                } else {
                    format!(" — « {} »{}", cap(&one_line(&d.reason), 120), named())
                };
                rec.push(
                    &self.primary,
                    |s| &mut s.decisions,
                    &format!(
                        "{}{} {}{why}",
                        w.plan_declined,
                        w.colon,
                        cap(&one_line(&d.target), 140)
                    ),
                );
                continue;
            }
            if d.reason.trim().is_empty() || (d.reason.contains('?') && !steer) {
                continue;
            }
            // A file the call was to change, as the log shows files.
            let target = if matches!(
                d.tool.as_str(),
                "Edit" | "MultiEdit" | "Write" | "NotebookEdit"
            ) {
                self.shown(&d.target)
            } else {
                d.target.clone()
            };
            let target = cap(&one_line(&target).replace('`', "'"), 60);
            let what = if target.is_empty() {
                d.tool.clone()
            } else {
                format!("`{target}`")
            };
            rec.push(
                &self.primary,
                |s| &mut s.decisions,
                &format!(
                    "{} ({what}){} « {} »{}",
                    w.declined,
                    w.colon,
                    cap(&one_line(&d.reason), 140),
                    named()
                ),
            );
        }
    }

    /// The file "the py file" means: the only file of that kind the turn
    /// changed or read. The reader of the log tomorrow has no transcript
    /// to look it up in.
    fn file_meant(&self, text: &str) -> Option<String> {
        const KINDS: &[&str] = &[
            "py", "js", "ts", "tsx", "jsx", "rs", "go", "rb", "java", "kt", "swift", "c", "cpp",
            "h", "md", "toml", "json", "yaml", "yml", "sh", "css", "html", "sql", "ex", "exs",
            "php", "vue", "svelte",
        ];
        let lower = text.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let ext = words.windows(3).find_map(|w| {
            (matches!(w[0], "the" | "this" | "that" | "le" | "ce") && w[2] == "file"
                || w[0] == "fichier" && matches!(w[1], "py" | "js" | "ts" | "rs" | "md"))
            .then_some(w[1])
            .filter(|e| KINDS.contains(e))
        })?;
        let t = self.turn;
        let mut names: Vec<String> = Vec::new();
        for p in t
            .all_files()
            .map(|f| f.path.as_str())
            .chain(t.reads.iter().map(String::as_str))
        {
            if !self.in_project(p) {
                continue;
            }
            let shown = self.shown(p);
            if shown.rsplit('.').next() == Some(ext) && !names.contains(&shown) {
                names.push(shown);
            }
        }
        // Or the one the plan names (`x.py`), what the user was reading
        // when they said it; else the answer.
        for text in [t.plan.as_deref().unwrap_or(""), t.answer.as_str()] {
            if !names.is_empty() {
                break;
            }
            for name in backticked(text) {
                let name = name.trim();
                if !name.contains(' ')
                    && name
                        .rsplit_once('.')
                        .is_some_and(|(stem, e)| !stem.is_empty() && e == ext)
                    && !names.iter().any(|n| n == name)
                {
                    names.push(name.to_owned());
                }
            }
        }
        match names.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// What the model said it found on the way: knowledge, when the
    /// answer's lessons and problems do not already say it.
    fn findings(&self, rec: &mut Record) {
        let t = self.turn;
        if t.kind == RequestKind::None {
            return;
        }
        let answer = normalise(&t.answer);
        let mut kept = 0;
        for f in &t.findings {
            let n = normalise(f);
            let head: String = n.chars().take(50).collect();
            if kept == 2 || f.split_whitespace().count() < 6 || answer.contains(&head) {
                continue;
            }
            rec.push(&self.primary, |s| &mut s.connaissances, &cap(f, 220));
            kept += 1;
        }
    }

    /// What the answer teaches: knowledge after a turn that changed
    /// nothing (an explanation, a review), the why of a change otherwise.
    fn lessons(&self, rec: &mut Record) {
        let t = self.turn;
        // A change that was refused or failed and never made: the answer
        // may still describe it ("I've created a basic CLAUDE.md").
        let edit = |tool: &str| matches!(tool, "Write" | "Edit" | "MultiEdit" | "NotebookEdit");
        let lost_change = t.declined.iter().any(|d| edit(&d.tool))
            || t.errors.iter().any(|e| !e.resolved && edit(&e.tool));
        // A bare "yes" to go ahead: its answer teaches when the turn did
        // something, or says what was wrong ("Root cause: …").
        let went_ahead = t.kind == RequestKind::None && t.tool_calls > 0;
        if (t.kind == RequestKind::None && !went_ahead)
            || t.answer.trim().is_empty()
            || lost_change
            || is_housekeeping(&t.request)
        {
            return;
        }
        // An answer that proposes and asks ("Proceed?") teaches only what
        // it says it found; the rest is a plan not yet accepted.
        let proposal = is_proposal(&t.answer);
        let changed = t.all_files().next().is_some() || !t.actions.is_empty();
        if (changed || !t.checks.is_empty())
            && let Some(o) = answer::outcome_opening(&t.answer, passing_tests(t).is_some())
        {
            rec.push(
                &self.primary,
                |s| &mut s.travail,
                &format!("{}{} {}", self.w.outcome, self.w.colon, o),
            );
        }
        // A review's answer is its findings and its verdict, not the few
        // sentences scoring would keep of it.
        // Probes in a scratch repository are no change of the project's.
        let project_changed = t.all_files().any(|f| self.in_project(&f.path));
        if !project_changed && review::asks_for_review(&t.request) {
            let r = review::review(&t.answer);
            if !r.findings.is_empty() {
                for f in &r.findings {
                    rec.push(
                        &self.primary,
                        |s| &mut s.connaissances,
                        &format!("{}{} {f}", self.w.finding, self.w.colon),
                    );
                }
                if let Some(v) = r.verdict {
                    rec.push(
                        &self.primary,
                        |s| &mut s.connaissances,
                        &format!("{}{} {v}", self.w.verdict, self.w.colon),
                    );
                }
                return;
            }
        }
        let kind = if changed {
            answer::Kind::Work
        } else {
            answer::Kind::Informational
        };
        // The cause the problems already carry is not said twice (only a
        // turn with a problem bullet carries it).
        let has_problem = !t.errors.is_empty()
            || t.checks.iter().any(|c| !c.ok)
            || !t.pasted.is_empty()
            || (!t.first && is_complaint(&t.request));
        let stated = cause_sentence(&t.answer);
        // No problem bullet to carry it: the cause the answer states is what
        // the turn found ("Both symptoms trace to the serve daemon").
        if !has_problem && let Some(c) = &stated {
            rec.push(
                &self.primary,
                |s| &mut s.connaissances,
                &format!(
                    "{}{} {}",
                    capitalise(self.w.cause),
                    self.w.colon,
                    cap(c, 220)
                ),
            );
        }
        let cause = stated.map(|c| normalise(&c));
        let turn = answer::Turn {
            kind,
            opening: t.checks.is_empty(),
            tests_counted: passing_tests(t).is_some(),
            findings_only: proposal,
        };
        // What the file bullets already took from the answer.
        let mut taken: Vec<String> = self
            .details
            .iter()
            .flat_map(|(_, ds)| ds.iter().map(|d| normalise(&d.source)))
            .collect();
        // "The other modified files remain unstaged": the state the
        // working tree was left in, for whoever resumes.
        if let Some(left) = cues::sentences(&t.answer)
            .into_iter()
            .find(|s| !s.question && leaves_changes_behind(&s.text))
        {
            let text = cap(&left.text, 220);
            taken.push(normalise(&text));
            rec.push(&self.primary, |s| &mut s.contexte, &text);
        }
        let lessons = answer::lessons(&t.answer, turn);
        // A question the turn answered without changing anything: the
        // question and its direct reply, together (the reply alone loses
        // what it answers). A weak reply only when it is a lesson anyway.
        // "Check the hooks. Do you see SessionStart?": a task that asks.
        let asks = t.kind == RequestKind::Question
            || (t.kind == RequestKind::Task
                && t.request
                    .split_whitespace()
                    .any(|w| w.ends_with('?') && !w.contains("://")));
        if asks
            && !changed
            && !proposal
            && let Some(q) = asked(&t.request)
            && let Some((reply, strong)) = answer::direct_answer(&t.answer)
            && (strong || lessons.iter().any(|l| normalise(l) == normalise(&reply)))
        {
            rec.push(
                &self.primary,
                |s| &mut s.connaissances,
                &format!("{} → {}", cap(&q, 140), reply),
            );
            taken.push(normalise(&reply));
        }
        for l in lessons {
            if cause
                .as_ref()
                .is_some_and(|c| normalise(&l).contains(c.as_str()))
            {
                continue;
            }
            let n = normalise(&l);
            let head: String = n.chars().take(40).collect();
            if taken
                .iter()
                .any(|s| s.contains(&head) || n.contains(s.as_str()))
            {
                continue;
            }
            match kind {
                answer::Kind::Informational => {
                    rec.push(&self.primary, |s| &mut s.connaissances, &l)
                }
                // "The key insight: …" after a change is still what was
                // learnt, not what was done.
                answer::Kind::Work if answer::says_a_lesson(&l) => {
                    rec.push(&self.primary, |s| &mut s.connaissances, &l)
                }
                answer::Kind::Work => rec.push(&self.primary, |s| &mut s.travail, &l),
            }
        }
    }

    /// What a turn that changed nothing looked up on the web: its
    /// searches, and the pages it read (by host and path: a query string
    /// is no part of the page's name). A research turn's sources.
    fn looked_up(&self, rec: &mut Record) {
        let t = self.turn;
        if t.web.is_empty()
            || t.all_files().next().is_some()
            || !t.actions.is_empty()
            || !matches!(t.kind, RequestKind::Task | RequestKind::Question)
        {
            return;
        }
        let shown: Vec<String> = t
            .web
            .iter()
            .take(4)
            .map(|w| {
                let w = one_line(w);
                match w
                    .strip_prefix("https://")
                    .or_else(|| w.strip_prefix("http://"))
                {
                    Some(page) => {
                        let page = page.split(['?', '#']).next().unwrap_or(page);
                        format!(
                            "`{}`",
                            cap(page.trim_end_matches('/'), 80).replace('`', "'")
                        )
                    }
                    None => format!("« {} »", cap(&w, 80)),
                }
            })
            .collect();
        let more = t.web.len().saturating_sub(4);
        let more = if more > 0 {
            format!(", +{more} {}", self.w.and_more)
        } else {
            String::new()
        };
        rec.push(
            &self.primary,
            |s| &mut s.contexte,
            &format!("{}{} {}{more}", self.w.web, self.w.colon, shown.join(", ")),
        );
    }

    /// A ticket opened is work left for later, under the tracker's id; one
    /// closed finishes the to-do that names its id (today's, or one this
    /// job opened), and is said in the work otherwise.
    fn tickets(&self, rec: &mut Record, known: &Known) {
        let w = self.w;
        let t = self.turn;
        let mut closed: Vec<String> = Vec::new();
        for a in t.actions.iter().filter(|a| a.ok) {
            match a.kind {
                ActionKind::TicketOpened if !a.id.is_empty() => {
                    let title = cap(&one_line(&a.detail).replace('`', "'"), 120);
                    let id = a.id.replace('`', "'");
                    let text = if title.is_empty() {
                        format!("{} `{id}`", w.ticket)
                    } else {
                        format!("{} `{id}`{} {title}", w.ticket, w.colon)
                    };
                    rec.push(&self.primary, |s| &mut s.a_suivre, &text);
                }
                ActionKind::TicketClosed => {
                    for id in a.detail.split_whitespace() {
                        let id = id.replace('`', "'");
                        if !closed.contains(&id) {
                            closed.push(id);
                        }
                    }
                }
                _ => {}
            }
        }
        let mut said: Vec<String> = Vec::new();
        for id in closed {
            let mark = format!("`{id}`");
            let names = |b: &str| b.contains(&mark);
            if rec.take_open(&self.primary, names) {
                said.push(id);
            } else if let Some(open) = known.open_todo_where(&self.primary, names) {
                rec.push(&self.primary, |s| &mut s.a_suivre_done, open);
            } else if let Some(open) = known.earlier_todo_where(&self.primary, names) {
                rec.push(&self.primary, |s| &mut s.finalise_earlier, open);
            } else {
                said.push(id);
            }
        }
        if !said.is_empty() {
            let (one, many) = w.tickets_closed;
            let lead = if said.len() == 1 { one } else { many };
            rec.push(
                &self.primary,
                |s| &mut s.travail,
                &format!("{lead}{} {}", w.colon, list(&said, w)),
            );
        }
    }

    /// The model's list as the job's last list left it: pending and in
    /// progress are open; completed ones close the to-dos they match.
    /// A commit left to do: the job's last answer says the turn's changes
    /// await one ("Ready to commit. Go ahead?"), and the turn made none.
    /// A later commit finishes it (today's, or an earlier day's).
    fn commits_left(&self, rec: &mut Record, known: &Known, last: bool) {
        let committed = self
            .turn
            .actions
            .iter()
            .any(|a| a.ok && a.kind == ActionKind::Commit);
        if committed {
            let is_left = leaves_a_commit;
            // Every commit left to do before this one: what it did not
            // take, the next "ready to commit" says again.
            for open in known.todos_where(&known.todos, &self.primary, is_left) {
                rec.push(&self.primary, |s| &mut s.a_suivre_done, open);
            }
            // An earlier day's uncommitted changes are stale, not done.
            for open in known.todos_where(&known.earlier, &self.primary, is_left) {
                if !UNCOMMITTED.iter().any(|p| open.starts_with(p)) {
                    rec.push(&self.primary, |s| &mut s.finalise_earlier, open);
                }
            }
            while rec.take_open(&self.primary, is_left) {}
            return;
        }
        if !last {
            return;
        }
        let Some(message) = cues::commit_left(&self.turn.answer) else {
            self.left_uncommitted(rec, known);
            return;
        };
        let files = self.listed_files(false);
        // The changes may be earlier turns' of the day (the last turn only
        // checked them): the log's work bullets say there are some.
        let earlier_work = known.files.iter().any(|(p, _)| *p == self.primary);
        if files.is_empty() && (!earlier_work || message.is_none()) {
            return;
        }
        let w = self.w;
        let what = match message {
            Some(m) => format!("« {} »", cap(&one_line(&m).replace('`', "'"), 160)),
            None => first_files(&files, w),
        };
        rec.push(
            &self.primary,
            |s| &mut s.a_suivre,
            &format!("{}{} {what}", w.to_commit, w.colon),
        );
    }

    /// The turn's changed files worth listing, as shown; only the project's
    /// own when `in_project`.
    fn listed_files(&self, in_project: bool) -> Vec<&str> {
        self.turn
            .files
            .iter()
            .zip(&self.shown)
            .filter(|(f, _)| {
                (!in_project || self.in_project(&f.path)) && self.worth_listing(&f.path)
            })
            .map(|(_, shown)| shown.as_str())
            .collect()
    }

    /// Commits the branch holds that its upstream does not, as the job's
    /// last `git status` said: a state, replaced by what a later turn saw
    /// and gone with a push.
    fn unpushed(&self, rec: &mut Record, known: &Known, last: bool) {
        let t = self.turn;
        // Deleting remote branches pushes no commit.
        let pushed = t.actions.iter().any(|a| {
            a.ok && a.kind == ActionKind::Push
                && !a.detail.starts_with("git push --delete")
                && !a.detail.starts_with("git push -d ")
        });
        let w = self.w;
        let now = t.ahead.as_ref().filter(|_| last).map(|a| {
            let s = if a.commits == 1 { "" } else { "s" };
            format!(
                "{}{} {} commit{s} (`{}`)",
                w.unpushed,
                w.colon,
                a.commits,
                a.upstream.replace('`', "'")
            )
        });
        // No status seen, but the answer says the commits it just made
        // wait ("Not pushed — commits only").
        let committed = t
            .actions
            .iter()
            .any(|a| a.ok && a.kind == ActionKind::Commit);
        let said =
            (now.is_none() && !pushed && committed && cues::says_unpushed(&t.answer)).then(|| {
                // The branch git printed for the last commit, else the turn's.
                let branch = t
                    .actions
                    .iter()
                    .rev()
                    .find(|a| a.ok && a.kind == ActionKind::Commit)
                    .and_then(|a| a.branch.as_deref())
                    .or(t.branch.as_deref());
                match branch {
                    Some(b) => format!("{} {} `{}`", w.unpushed, w.on_branch, b.replace('`', "'")),
                    None => w.unpushed.to_owned(),
                }
            });
        if !pushed && t.ahead.is_none() && said.is_none() {
            return;
        }
        self.replace_state(rec, known, UNPUSHED, now.or(said));
    }

    /// Pull requests opened and not merged: a state each, gone once a
    /// later turn merges it (`gh pr merge 45`, or the answer saying "#45 is
    /// merged"). `gh pr merge --auto` only queues the merge.
    fn open_pulls(&self, rec: &mut Record, known: &Known) {
        let t = self.turn;
        let w = self.w;
        // The numbers merged, `None` for a merge naming none (the branch's
        // own pull request).
        let merged: Vec<Option<String>> = t
            .actions
            .iter()
            .filter(|a| a.ok && a.kind == ActionKind::Merge && a.detail.starts_with("PR"))
            .filter(|a| !a.command.split_whitespace().any(|w| w == "--auto"))
            .map(|a| {
                let n: String = a
                    .detail
                    .rsplit(['/', ' ', '#'])
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                (!n.is_empty()).then(|| format!("#{n}"))
            })
            .collect();
        let number_of = |todo: &str| -> Option<String> {
            let rest = todo.split_once('#')?.1;
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            (!n.is_empty()).then(|| format!("#{n}"))
        };
        // A merge naming no number (`gh pr merge --squash`) merges the
        // branch's own: known only when a single one is open.
        let open_now = known
            .todos_where(&known.todos, &self.primary, |x| {
                OPEN_PULL.iter().any(|p| x.starts_with(p))
            })
            .len()
            + rec
                .open(&self.primary)
                .filter(|x| OPEN_PULL.iter().any(|p| x.starts_with(p)))
                .count();
        let is_merged = |n: &str| {
            merged
                .iter()
                .any(|m| m.as_deref().map_or(open_now == 1, |m| m == n))
                || cues::says_merged(&t.answer, n)
        };
        let done = |todo: &str| {
            OPEN_PULL.iter().any(|p| todo.starts_with(p))
                && number_of(todo).is_some_and(|n| is_merged(&n))
        };
        for open in known.todos_where(&known.todos, &self.primary, done) {
            rec.push(&self.primary, |s| &mut s.a_suivre_done, open);
        }
        while rec.take_open(&self.primary, done) {}
        for a in &t.actions {
            if !(a.ok && a.kind == ActionKind::Push && a.id.starts_with('#')) || is_merged(&a.id) {
                continue;
            }
            let title = a
                .detail
                .strip_prefix("PR")
                .map(|t| t.trim_start_matches(':').trim())
                .unwrap_or("");
            let text = if title.is_empty() {
                format!("{}{} {}", w.open_pull, w.colon, a.id)
            } else {
                format!(
                    "{}{} {} « {} »",
                    w.open_pull,
                    w.colon,
                    a.id,
                    cap(title, 100)
                )
            };
            if known.open_todo(&self.primary, &text).is_none() {
                rec.push(&self.primary, |s| &mut s.a_suivre, &text);
            }
        }
    }

    /// A state to-do (one of `prefixes`) as this turn leaves it: the open
    /// one goes, unless `now` says it again word for word, and `now`, if
    /// any, is open instead.
    fn replace_state(
        &self,
        rec: &mut Record,
        known: &Known,
        prefixes: &[&str; 2],
        now: Option<String>,
    ) {
        let is_it = |t: &str| prefixes.iter().any(|p| t.starts_with(p));
        for open in known.todos_where(&known.todos, &self.primary, is_it) {
            if now.as_deref() != Some(open) {
                rec.push(&self.primary, |s| &mut s.a_suivre_done, open);
            }
        }
        while rec.take_open(&self.primary, is_it) {}
        if let Some(n) = now
            && known.open_todo(&self.primary, &n).is_none()
        {
            rec.push(&self.primary, |s| &mut s.a_suivre, &n);
        }
    }

    /// Where the work stopped when the last answer waits on the user: its
    /// question, until the next turn (whatever the user says then answers
    /// it or moves on). A state, not a task: dropped, not finalised.
    fn pending_question(&self, rec: &mut Record, known: &Known, last: bool) {
        let w = self.w;
        let asked = last
            .then(|| cues::pending_question(&self.turn.answer))
            .flatten()
            .map(|q| format!("{}{} {}", w.pending, w.colon, cap(&one_line(&q), 220)));
        // Asked again, word for word: still the one waiting.
        self.replace_state(rec, known, PENDING_QUESTION, asked);
    }

    /// The turn changed the project's files, made no commit, and its
    /// answer neither asks for one nor says one was made: the changes are
    /// left uncommitted, which whoever resumes needs to know. Said once a
    /// day, and named again with a later turn's files while it lists all it
    /// holds (past three, the work bullets name the rest), finished by a
    /// later commit, and never carried past the day's
    /// log (`memory::load`): by the next session the user may have
    /// committed by hand.
    fn left_uncommitted(&self, rec: &mut Record, known: &Known) {
        // The model's own list still open: the work goes on, and its
        // items say what is left.
        let listed_open = self
            .turn
            .todos
            .iter()
            .any(|t| t.status != TodoStatus::Completed);
        if listed_open || says_committed(&self.turn.answer) {
            return;
        }
        let files = self.listed_files(true);
        if files.is_empty() {
            return;
        }
        let w = self.w;
        let is_state = |t: &str| UNCOMMITTED.iter().any(|p| t.starts_with(p));
        // Said already today: it names this turn's files too, while it names
        // all it holds (not "+8 autres", whose files it no longer knows).
        let said = known
            .open_todo_where(&self.primary, is_state)
            .map(str::to_owned)
            .or_else(|| {
                rec.open(&self.primary)
                    .find(|t| is_state(t))
                    .map(str::to_owned)
            });
        if let Some(old) = said {
            let mut all: Vec<&str> = backticked(&old).collect();
            let whole = !old.contains(&format!(" {}", w.and_more));
            let before = all.len();
            for f in &files {
                if !all.contains(f) {
                    all.push(f);
                }
            }
            if whole && all.len() > before {
                let now = format!("{}{} {}", w.uncommitted, w.colon, first_files(&all, w));
                self.replace_state(rec, known, UNCOMMITTED, Some(now));
            }
            return;
        }
        if known
            .open_todo_where(&self.primary, leaves_a_commit)
            .is_some()
            || rec.open(&self.primary).any(leaves_a_commit)
        {
            return;
        }
        rec.push(
            &self.primary,
            |s| &mut s.a_suivre,
            &format!("{}{} {}", w.uncommitted, w.colon, first_files(&files, w)),
        );
    }

    fn todos(&self, rec: &mut Record, known: &Known) {
        for todo in &self.turn.todos {
            match todo.status {
                TodoStatus::Pending | TodoStatus::InProgress => {
                    rec.push(&self.primary, |s| &mut s.a_suivre, &capitalise(&todo.text));
                }
                TodoStatus::Completed => {
                    if let Some(open) = known.open_todo(&self.primary, &todo.text) {
                        rec.push(&self.primary, |s| &mut s.a_suivre_done, open);
                    } else if let Some(open) = known.earlier_todo(&self.primary, &todo.text) {
                        rec.push(&self.primary, |s| &mut s.finalise_earlier, open);
                    }
                }
            }
        }
    }
}

/// Whether a run of `later` covers what `earlier` ran: the same runner
/// and subcommands (`bun run test` is not `bun test`), and no narrower
/// (paths named where the earlier run named none, or other paths).
fn covers(later: &str, earlier: &str) -> bool {
    fn parts(cmd: &str) -> (Vec<&str>, Vec<&str>) {
        let line = cmd.lines().next().unwrap_or("");
        let line = line.split('|').next().unwrap_or("");
        let line = line.rsplit("&&").next().unwrap_or("");
        let (mut words, mut paths) = (Vec::new(), Vec::new());
        for w in line.split_whitespace() {
            let w = w.trim_matches(['(', ')']);
            if w.is_empty() || w.starts_with('-') || w.contains('>') || w.contains('=') {
                continue;
            }
            if w.contains('/') || w.contains('.') || w.contains("::") {
                paths.push(w);
            } else {
                words.push(w);
            }
        }
        // `uv run pytest` runs what `pytest` runs.
        for wrapper in [
            &["uv", "run"][..],
            &["poetry", "run"],
            &["pnpm", "exec"],
            &["npx"],
            &["bunx"],
            &["python"],
            &["python3"],
        ] {
            if words.starts_with(wrapper) {
                words.drain(..wrapper.len());
                break;
            }
        }
        (words, paths)
    }
    let (lw, lp) = parts(later);
    let (ew, ep) = parts(earlier);
    lw == ew && (lp.is_empty() || lp == ep)
}

/// The turn's last counted test run, when it passed and no later run of
/// the same runner without its filter passed, saying only what it covered
/// (`go test ./...`: `9 packages ok` after `go test -run TestX -v`
/// counted 8).
fn passing_tests(t: &Turn) -> Option<&Check> {
    let at = t.checks.iter().rposition(|c| c.passed.is_some())?;
    let c = &t.checks[at];
    let told_after = t.checks[at + 1..].iter().any(|x| {
        x.test
            && x.ok
            && x.passed.is_none()
            && x.failed.is_none()
            && !x.summary.is_empty()
            && filtered(&c.command)
            && !filtered(&x.command)
            && program(&x.command) == program(&c.command)
    });
    (c.ok && !told_after).then_some(c)
}

/// The command of the client's "Permission to use Bash with command X has
/// been denied." (a rule or mode that refuses it).
fn denied_command(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Permission to use ")?;
    let (_, cmd) = rest.split_once(" with command ")?;
    let cmd = cmd.trim_end().strip_suffix(" has been denied.")?;
    (!cmd.contains('`')).then_some(cmd.trim())
}

/// The commands of a refusal, as the client said it or as merged.
fn denied_commands(message: &str) -> Option<Vec<&str>> {
    if let Some(c) = denied_command(message) {
        return Some(vec![c]);
    }
    let rest = message.strip_prefix("Permission to use ")?;
    let (_, cmds) = rest.split_once(" with command ")?;
    let cmds = cmds.strip_suffix(" has been denied.")?;
    Some(
        cmds.split(", ")
            .map(|c| c.trim_matches('`'))
            .filter(|c| !c.is_empty())
            .collect(),
    )
}

/// A push's bullet that ends with its range: what precedes the range,
/// and the range's two ends.
fn push_range(bullet: &str) -> Option<(&str, &str, &str)> {
    let (what, range) = bullet.rsplit_once(" (`")?;
    let (from, to) = range.strip_suffix("`)")?.split_once("..")?;
    let hex = |h: &str| h.len() >= 7 && h.bytes().all(|c| c.is_ascii_hexdigit());
    (hex(from) && hex(to)).then_some((what, from, to))
}

/// Two failure lines naming the same file (`a_test.py::test_x`, then
/// `a_test.py::test_y`).
fn same_place(a: &str, b: &str) -> bool {
    fn files(s: &str) -> Vec<&str> {
        s.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '"' | '\'' | '`' | ','))
            .map(|t| t.split("::").next().unwrap_or(t))
            .map(|t| {
                t.rsplit('/')
                    .next()
                    .unwrap_or(t)
                    .trim_end_matches([':', '.'])
            })
            .filter(|t| {
                t.rsplit_once('.').is_some_and(|(stem, ext)| {
                    !stem.is_empty()
                        && (1..=4).contains(&ext.len())
                        && ext.bytes().all(|b| b.is_ascii_alphabetic())
                })
            })
            .collect()
    }
    let (fa, fb) = (files(a), files(b));
    fa.iter().any(|f| fb.contains(f))
}

/// A test run narrowed to some tests (`-run X`, `-k x`, `file::test`).
fn filtered(command: &str) -> bool {
    command.split_whitespace().any(|w| {
        matches!(w, "-run" | "-k" | "--filter" | "-t" | "--testNamePattern") || w.contains("::")
    })
}

/// What a build or a tool made and a clean removes (`rm -rf .venv dist
/// *.egg-info`): removing it changes nothing of the project.
fn is_artifact(path: &str) -> bool {
    const ARTIFACTS: &[&str] = &[
        ".venv",
        "venv",
        "build",
        "dist",
        "node_modules",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".tox",
        ".next",
        ".turbo",
        ".cache",
        "target",
        "coverage",
        ".coverage",
        "htmlcov",
    ];
    let name = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path);
    name.contains('*')
        || ARTIFACTS.contains(&name)
        || name.ends_with(".egg-info")
        || name.ends_with(".pyc")
}

/// A command line without what only trims its output (`2>&1 | tail -30`):
/// for a cure, whose `cd` or shell setup may be what made it work.
fn untrimmed_command(command: &str, max: usize) -> String {
    let c = one_line(command);
    cap(&without_output_trim(&c).replace('`', "'"), max)
}

/// A command line without what only trims its output (`2>&1 | tail -30`,
/// `| head`; not `| tailwind`): capture pairs a rerun with the run it
/// repeats by it, the bullets show commands without it.
pub(crate) fn without_output_trim(command: &str) -> &str {
    let mut c = command.trim();
    if let Some((head, tail)) = c.rsplit_once(" | ") {
        let prog = tail.split_whitespace().next().unwrap_or("");
        if matches!(prog, "tail" | "head") && !tail.contains(['&', ';']) {
            c = head.trim_end();
        }
    }
    c.strip_suffix("2>&1").map_or(c, str::trim_end)
}

/// The program a command line runs, to pair a failing run with a later one.
fn program(command: &str) -> String {
    segment_program(
        command
            .split("&&")
            .map(str::trim)
            .find(|s| !is_preamble(s))
            .unwrap_or(command),
    )
}

/// A piece of a command line's program: two words, three for a script
/// runner (`mise run lint` is not `mise run test`).
fn segment_program(segment: &str) -> String {
    let words: Vec<&str> = segment
        .split_whitespace()
        .filter(|w| !w.contains('='))
        .collect();
    let take = match words.as_slice() {
        [prog, "run", ..] if matches!(*prog, "npm" | "pnpm" | "yarn" | "bun" | "deno" | "mise") => {
            3
        }
        _ => 2,
    };
    words[..take.min(words.len())].join(" ")
}

/// The programs a command line that passed ran to success: each piece of
/// an `&&` chain (`go vet ./... && mise run lint`); with `;` or `||` in it,
/// only its program as [`program`] names it.
fn programs_passed(command: &str) -> Vec<String> {
    let first = command.lines().next().unwrap_or("");
    if first.contains(';') || first.contains("||") {
        return vec![program(command)];
    }
    first
        .split("&&")
        .map(str::trim)
        .filter(|s| !is_preamble(s))
        .map(segment_program)
        .collect()
}

/// Whether a summary points at a place in a file (`a_test.go:35:3`).
fn names_a_location(summary: &str) -> bool {
    summary.split_whitespace().any(|w| {
        let mut parts = w.split(':');
        let path = parts.next().unwrap_or("");
        path.contains('.')
            && parts
                .next()
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// A piece of a command line that only sets the shell up (`export
/// PATH=…`, `PATH=$PATH:/usr/local/go/bin`, `set -e`). Capture's command
/// keys skip it too.
fn is_shell_setup(segment: &str) -> bool {
    let s = segment.trim();
    s.starts_with("export ")
        || s.starts_with("set -")
        || (!s.is_empty() && s.split_whitespace().all(|w| w.contains('=')))
}

/// A command line without what only sets up where its program runs
/// (`env -i HOME=… PATH=…`, `VAR=value`, `conda run -n flits`), which a
/// bullet has no room for: `python -m pytest tests/ -q`.
pub(crate) fn without_environment(segment: &str) -> &str {
    let mut rest = segment.trim_start();
    loop {
        let mut w: Vec<String> = Vec::new();
        let mut tail = rest;
        while !tail.is_empty() && w.len() < 12 {
            let (word, after) = shell_word(tail);
            w.push(word);
            tail = after;
        }
        let Some(first) = w.first() else { return rest };
        let prog = first.rsplit('/').next().unwrap_or(first);
        let skip = match prog {
            "env" => 1 + flag_words(&w[1..], &["-u", "--unset", "-C", "--chdir"]),
            "conda" | "mamba" | "micromamba" if w.get(1).is_some_and(|s| s == "run") => {
                2 + flag_words(&w[2..], &["-n", "--name", "-p", "--prefix", "--cwd"])
            }
            _ if first.contains('=') && !first.starts_with(['-', '=']) => 1,
            _ => 0,
        };
        if skip == 0 || skip >= w.len() {
            return rest;
        }
        for _ in 0..skip {
            rest = shell_word(rest).1;
        }
    }
}

/// `text`'s first shell word without its quotes, and what follows it
/// after the blanks.
fn shell_word(text: &str) -> (String, &str) {
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c.is_whitespace() => return (word, text[i..].trim_start()),
            None => word.push(c),
        }
    }
    (word, "")
}

/// How many of `words` are flags, with the value of those in `valued`,
/// before the first word that is neither.
pub(crate) fn flag_words(words: &[String], valued: &[&str]) -> usize {
    let mut i = 0;
    while let Some(a) = words.get(i) {
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') {
            break;
        }
        i += if valued.contains(&a.as_str()) { 2 } else { 1 };
    }
    i.min(words.len())
}

/// A piece of a `&&` chain that is not the program the line is about: a
/// `cd`, a `source`, the shell's setup, looking the program up (`which
/// golangci-lint &&`), or setting the turn's changes aside around it
/// (`git stash && make lint; git stash pop`). Capture's command keys and
/// the bullets' program names both skip it.
pub(crate) fn is_preamble(segment: &str) -> bool {
    let s = segment.trim();
    s.is_empty()
        || s == "\\"
        || s.starts_with("cd ")
        || s.starts_with("source ")
        || s.starts_with("(source ")
        || s.starts_with("which ")
        || s.starts_with("command -v ")
        || s == "git stash"
        || s == "git stash pop"
        || is_shell_setup(s)
}

/// `a`, `b` (+3 more): whole paths only, as many as fit in a bullet, so
/// that the count of the others is true (a path cut in its middle names
/// no file).
fn list(files: &[String], w: &Words) -> String {
    let mut out = String::new();
    let mut shown = 0;
    for f in files.iter().take(MAX_FILES_SHOWN) {
        let piece = format!("`{f}`");
        if shown > 0 && out.chars().count() + piece.chars().count() + 2 > MAX_FILE_LIST {
            break;
        }
        if shown > 0 {
            out.push_str(", ");
        }
        out.push_str(&piece);
        shown += 1;
    }
    if files.len() > shown {
        let more = files.len() - shown;
        let word = if more == 1 {
            w.and_more.trim_end_matches('s')
        } else {
            w.and_more
        };
        out.push_str(&format!(" (+{more} {word})"));
    }
    out
}

/// OK-done: the worker's candidates, each in the project whose open to-dos
/// hold it, and nothing else.
fn finalise(req: &ExtractRequest, default: &str, rec: &mut Record) {
    for item in req.done_candidates {
        let project = req
            .existing_logs
            .iter()
            .find(|(_, log)| {
                log_bullets(log, "a_suivre")
                    .iter()
                    .any(|b| b == item.trim())
            })
            .map_or(default, |(p, _)| p.as_str());
        rec.push(project, |s| &mut s.a_suivre_done, item);
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_uppercase() && !chars.clone().next().is_some_and(char::is_uppercase) => {
            c.to_lowercase().chain(chars).collect()
        }
        _ => s.to_string(),
    }
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_lowercase() => c.to_uppercase().chain(chars).collect(),
        _ => s.to_string(),
    }
}

/// The words of an error message that name its thing rather than say
/// "error": identifiers (`call-non-callable`, `text_value`, `TypeError`,
/// `events_rollup`) and long words, lower case. Paths are left out (the
/// fixed file is already named).
fn distinctive_terms(message: &str) -> Vec<String> {
    const COMMON: &[&str] = &[
        "error",
        "errors",
        "failed",
        "failure",
        "warning",
        "exception",
        "expected",
        "received",
        "undefined",
        "unknown",
        "cannot",
        "command",
        "directory",
        "possibly",
        "object",
        "because",
        "traceback",
        "assertion",
        "assertionerror",
    ];
    let mut out: Vec<String> = Vec::new();
    for raw in message.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')))
    {
        let t = raw.trim_matches(['.', '-']);
        if t.contains('/') || t.chars().count() < 5 {
            continue;
        }
        let lower = t.to_lowercase();
        let identifier = t.contains(['_', '-'])
            || t.chars().skip(1).any(char::is_uppercase)
            || (t.chars().any(|c| c.is_ascii_digit()) && t.chars().any(char::is_alphabetic));
        let long = t.chars().count() >= 8 && t.chars().all(char::is_alphabetic);
        if (identifier || long) && !COMMON.contains(&lower.as_str()) && !out.contains(&lower) {
            out.push(lower);
        }
        if out.len() == 8 {
            break;
        }
    }
    out
}

/// A request that chooses between ways of doing something: the user's
/// decision, in their words.
fn picks_a_way(request: &str) -> bool {
    const MARKS: &[&str] = &[
        " instead of ",
        " instead.",
        " instead,",
        " rather than ",
        " plutôt que ",
        " au lieu de ",
        " au lieu d'",
        " i prefer ",
        " je préfère ",
        " let's go with ",
        " go with ",
    ];
    let first = request.split("\n\n").next().unwrap_or("");
    let padded = format!(" {} ", first.to_lowercase().replace('\n', " "));
    // "we should do Option B", "using the runtime.Caller option": one of
    // the ways offered, by its label or its name ("when the option
    // enable-job-taggers is set" names a setting).
    let words: Vec<&str> = padded
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | '.' | '!' | ':' | ';')))
        .collect();
    let names_an_option = words.windows(2).any(|p| {
        matches!(p[0], "option" | "approach" | "l'option")
            && p[1].chars().count() == 1
            && p[1].chars().all(|c| c.is_ascii_alphanumeric())
    }) || words.windows(3).any(|p| {
        // A name from code (`runtime.Caller`), not a word ("the verbose
        // option") nor a flag ("the --json option").
        p[0] == "the"
            && matches!(p[2], "option" | "approach")
            && !p[1].starts_with('-')
            && p[1].contains(['.', '_', '(', '`', ':'])
    });
    // "Let's apply the fixes you suggest:\n\n1. fail loud.\n2. leave it
    // alone.": an answer, point by point, to what was offered.
    const OFFERED: &[&str] = &[
        "you suggest",
        "you propose",
        "you recommend",
        "your suggestion",
        "your recommendation",
        "tu proposes",
        "tu suggères",
        "vous proposez",
        "tes suggestions",
        "vos suggestions",
    ];
    let point_by_point = first.trim_end().ends_with(':')
        && OFFERED.iter().any(|o| padded.contains(o))
        && request[first.len()..]
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .all(|l| l.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '*' | '•')));
    first.split_whitespace().count() <= 60
        && (names_an_option || point_by_point || MARKS.iter().any(|m| padded.contains(m)))
}

/// The user saying something does not work (or is wrong).
fn is_complaint(request: &str) -> bool {
    const SAYS: &[&str] = &[
        "doesn't work",
        "does not work",
        "didn't work",
        "did not work",
        "isn't working",
        "not working",
        "still doesn't",
        "still not",
        "still broken",
        "still fails",
        "still failing",
        "still getting",
        "is broken",
        "are broken",
        "it fails",
        "keeps failing",
        "i get an error",
        "i'm getting",
        "i am getting",
        "getting an error",
        "doesn't load",
        "won't load",
        "crashes",
        "is wrong",
        "is annoying",
        "being annoying",
        "annoying",
        "ne marche pas",
        "ne marche toujours pas",
        "ne fonctionne pas",
        "ne fonctionne toujours pas",
        "toujours pas",
        "j'ai une erreur",
        "ça plante",
        "est cassé",
    ];
    let first = request
        .split("\n\n")
        .next()
        .unwrap_or("")
        .to_lowercase()
        .replace('’', "'");
    SAYS.iter().any(|s| first.contains(s))
}

/// A sentence of the answer that says why something failed, when it says
/// so explicitly.
fn cause_sentence(answer: &str) -> Option<String> {
    const CUES: &[&str] = &[
        "the root cause",
        "root cause:",
        "the cause is",
        "the cause was",
        "the issue is that",
        "the issue was that",
        "the problem is that",
        "the problem was that",
        "this happens because",
        "this happened because",
        "the error occurs because",
        "the error occurred because",
        "la cause est",
        "la cause était",
        "le problème vient",
        "le problème venait",
        "cela vient de",
    ];
    // A paragraph labelled as the problem or its cause ("**Problem**: …").
    const LABELS: &[&str] = &[
        "problem:",
        "the problem:",
        "cause:",
        "the cause:",
        "issue:",
        "the issue:",
        "why:",
        "problème :",
        "problème:",
        "cause :",
    ];
    // Said inside the sentence: "Both symptoms trace to the serve daemon".
    const WITHIN: &[&str] = &[
        " is caused by ",
        " was caused by ",
        " are caused by ",
        " were caused by ",
        " trace to ",
        " traces to ",
        " trace back to ",
        " traces back to ",
        " stems from ",
        " stem from ",
        " est causé par ",
        " était causé par ",
        " vient du fait ",
    ];
    for s in cues::sentences(answer) {
        if s.question {
            continue;
        }
        let unbold = s.text.replace("**", "");
        let t = unbold.trim().trim_start_matches(['*', '-', ' ']).trim();
        let lower = t.to_lowercase();
        if let Some(label) = LABELS.iter().find(|c| lower.starts_with(*c)) {
            let rest = t.get(label.len()..).unwrap_or("").trim();
            if rest.split_whitespace().count() >= 5 {
                return Some(one_line(rest));
            }
        }
        if t.split_whitespace().count() >= 6 && WITHIN.iter().any(|c| lower.contains(c)) {
            return Some(one_line(t));
        }
        if let Some(cue) = CUES.iter().find(|c| lower.starts_with(*c))
            && t.split_whitespace().count() >= 5
        {
            // "The root cause is X" says X.
            let rest = t.get(cue.len()..).unwrap_or(t);
            let rest = rest
                .trim_start_matches([' ', ':'])
                .trim_start_matches("is ")
                .trim_start_matches("was ")
                .trim_start_matches("that ");
            let rest = if rest.split_whitespace().count() >= 3 {
                rest
            } else {
                t
            };
            return Some(one_line(rest).replace("**", ""));
        }
    }
    None
}

/// How a request is asked, not what it asks: "Peux-tu ajouter X ?" is the
/// goal "Ajouter X".
const ASKING: &[&str] = &[
    "your job is to",
    "your task is to",
    "your goal is to",
    "est-ce que tu pourrais",
    "est-ce que tu peux",
    "peux-tu",
    "pourrais-tu",
    "tu peux",
    "tu pourrais",
    "can you please",
    "could you please",
    "can you",
    "could you",
    "would you",
    "will you",
    "i want you to",
    "i'd like you to",
    "i would like you to",
    "j'aimerais que tu",
    "please",
];

/// Openings that ask nothing: greetings, the model's name, fillers.
/// An answer that proposes and waits for a yes ("Let me write the plan for
/// your approval. ## Proposed …"): what it lists is to be done, not done,
/// and a plan the user accepts is recorded as such.
fn is_proposal(answer: &str) -> bool {
    const ASKS: &[&str] = &[
        "for your approval",
        "for your review before",
        "shall i proceed",
        "should i proceed",
        "want me to proceed",
        "would you like me to proceed",
        "ready to proceed?",
        "let me know if you'd like me to proceed",
        "je procède ?",
        "voulez-vous que je procède",
        "pour validation",
    ];
    let lower = answer.to_lowercase();
    let proposed_heading = lower.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with('#')
            && ["proposed", "proposal", "proposition", "plan proposé"]
                .iter()
                .any(|w| l.contains(w))
    });
    proposed_heading || ASKS.iter().any(|a| lower.contains(a))
}

fn is_thanks(word: &str) -> bool {
    matches!(
        word.to_lowercase().as_str(),
        "thanks" | "thank" | "you" | "merci" | "great" | "perfect" | "parfait" | "cool" | "nice"
    )
}

const GREETING: &[&str] = &[
    "bonjour", "bonsoir", "salut", "coucou", "hello", "hi", "hey", "please", "stp", "svp",
    "claude", "also", "okay", "ok", "so", "and",
];

/// The goal of a request: its first sentence that says something (the
/// first line when sentences run long), greetings and the asking removed.
/// `any_sentence`: the session's first request, whose goal is its first
/// sentence when none reads as a request; later, only a sentence that asks
/// for something is a goal ("I very much like this idea" is not).
fn objective(request: &str, any_sentence: bool) -> Option<String> {
    let mut pars = request
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty());
    let first_par = pars.next()?;
    // "A separate process added a `contact` type.\n\nEvaluate its impact":
    // the context first, the request in the paragraph after.
    // Prose, not a pasted snippet whose first line reads as an order.
    let prose = |p: &&str| {
        !p.contains(['{', '}', '=', '`', '(', '<', '>', '|'])
            && !p.contains("\"\"\"")
            && !p.lines().any(|l| l.starts_with([' ', '\t']))
    };
    // A context of a few words of prose: not "ok", a URL, a pasted error.
    let context = first_par.split_whitespace().count();
    // Inline code (`contact`) is fine there; a pasted error is not.
    let context_ok = (3..=40).contains(&context)
        && !first_par.contains(['{', '}', '=', '(', '<', '>', '|'])
        && !first_par.contains("://")
        && !first_par.lines().any(|l| l.starts_with([' ', '\t']));
    // "Let's apply the fixes you suggest:\n\n1. fail loud.\n2. leave it
    // alone.": the short list after the colon is what was chosen.
    let lead = request.trim().lines().next().unwrap_or("").trim();
    let listed = || -> Option<String> {
        if !lead.ends_with(':') {
            return None;
        }
        let rest = request.trim()[lead.len()..].trim();
        let items: Vec<&str> = rest
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let item = |l: &str| -> Option<String> {
            let body = l
                .strip_prefix(['-', '*', '•'])
                .or_else(|| {
                    let digits = l.find(|c: char| !c.is_ascii_digit())?;
                    (digits > 0)
                        .then(|| l[digits..].strip_prefix(['.', ')']))
                        .flatten()
                })?
                .trim();
            (body.split_whitespace().count() <= 12 && !body.contains(['`', '{', '<', '|']))
                .then(|| body.trim_end_matches('.').to_owned())
        };
        if !(1..=6).contains(&items.len()) {
            return None;
        }
        let numbered = items
            .iter()
            .all(|l| l.starts_with(|c: char| c.is_ascii_digit()));
        let bodies: Vec<String> = items.iter().map(|l| item(l)).collect::<Option<_>>()?;
        let shown: Vec<String> = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| {
                if numbered {
                    format!("{}. {b}", i + 1)
                } else {
                    b.clone()
                }
            })
            .collect();
        Some(shown.join("; "))
    };
    let with_list = listed().and_then(|l| {
        // The lead-in of a list asks for it, whatever its words.
        let g = objective_in(lead.trim_end_matches(':'), true)?;
        (g.chars().count() + l.chars().count() < MAX_GOAL)
            .then(|| format!("{}: {l}", g.trim_end_matches([':', ' '])))
    });
    with_list
        .or_else(|| objective_in(first_par, false))
        .or_else(|| {
            pars.next()
                .filter(|p| prose(p) && context_ok)
                .and_then(|p| objective_in(p, false))
                // "Evaluate that change" says what with a short context.
                .map(|g| {
                    if context <= 20 {
                        let context = capitalise(one_line(first_par).trim_end_matches(['.', ':']));
                        format!("{context} — {g}")
                    } else {
                        g
                    }
                })
        })
        .or_else(|| {
            any_sentence
                .then(|| objective_in(first_par, true))
                .flatten()
        })
}

/// What the request's first paragraph says is wrong before it asks for
/// anything: a sentence naming a failure, or setting what is against
/// what was expected ("… but the menu says Guest User").
fn reported_symptom(request: &str) -> Option<String> {
    const AGAINST: &[&str] = &[" but ", " mais "];
    const SHOWS: &[&str] = &[
        "says", "shows", "displays", "still", "doesn't", "does not", "isn't", "is not", "won't",
        "can't", "cannot", "nothing", "empty", "blank", "wrong", "instead", "affiche", "toujours",
        "rien", "vide",
    ];
    let first_par = request.split("\n\n").next()?.trim();
    let sentences = cues::sentences(first_par);
    let asking = sentences
        .iter()
        .position(|s| is_request_sentence(&s.text))?;
    sentences[..asking]
        .iter()
        .map(|s| one_line(&s.text))
        .find(|t| {
            let l = format!(" {} ", t.to_lowercase());
            let words = t.split_whitespace().count();
            (4..=40).contains(&words)
                && !t.contains('`')
                && (cues::has_problem_word(t)
                    || (AGAINST.iter().any(|a| l.contains(a))
                        && SHOWS.iter().any(|w| l.contains(&format!(" {w} ")))))
        })
        .map(|t| t.trim_end_matches('.').to_owned())
}

/// Requests in the paragraphs after the first ("Also, can you…"): more
/// goals of the same turn.
fn more_objectives(request: &str) -> Vec<String> {
    request
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .skip(1)
        .filter_map(|p| objective_in(p, false))
        .take(2)
        .collect()
}

fn objective_in(first_par: &str, any_sentence: bool) -> Option<String> {
    let sentences = cues::sentences(first_par);
    // "Two initial taskings: read all the docs…": the request after a
    // lead-in's colon.
    let after_colon = |t: &str| -> Option<String> {
        let (lead, r) = t.split_once(": ")?;
        // A lead-in of words, not `Rec 03: …` inside code nor a
        // docstring's `Returns: List of …`.
        let words = lead.split_whitespace().count();
        let prose = (2..=8).contains(&words)
            && !lead.contains(['`', '_', '(', '"', '\'', '=', '/'])
            && lead
                .chars()
                .all(|c| c.is_alphanumeric() || c.is_whitespace() || c == '-');
        (prose && is_request_sentence(r.trim())).then(|| r.trim().to_owned())
    };
    let asking = sentences
        .iter()
        .position(|s| is_request_sentence(&s.text) || after_colon(&s.text).is_some());
    let start = match asking {
        Some(i) => i,
        None if any_sentence => 0,
        None => return None,
    };
    let mut goal = String::new();
    let mut used = start;
    let mut led_in = false;
    for s in &sentences[start..] {
        used += 1;
        let lead_in = (!is_request_sentence(&s.text))
            .then(|| after_colon(&s.text))
            .flatten();
        led_in = lead_in.is_some();
        let mut rest = lead_in.as_deref().unwrap_or(s.text.trim());
        while let Some(r) = cues::strip_any_ci(rest, GREETING) {
            if !r.starts_with(|c: char| c.is_whitespace() || ",;:!.".contains(c)) {
                break;
            }
            rest = r.trim_start_matches(|c: char| c.is_whitespace() || ",;:!.".contains(c));
        }
        if rest.split_whitespace().count() < 2 {
            continue;
        }
        goal = match cues::strip_any_ci(rest, ASKING) {
            Some(asked)
                if asked.starts_with(char::is_whitespace)
                    && asked.split_whitespace().count() >= 2 =>
            {
                asked
                    .trim()
                    .trim_end_matches(['?', ' ', '\u{a0}'])
                    .to_string()
            }
            _ => rest.to_string(),
        };
        break;
    }
    if goal.is_empty() {
        return None;
    }
    // "Can you find out why?" says what only with the sentence before it;
    // so does "Work on bead X. Run …": a short sentence before the asking
    // one names what it is about.
    let before_words = start
        .checked_sub(1)
        .map(|i| {
            let t = sentences[i].text.trim();
            let greeting_only = t
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .all(|w| GREETING.iter().any(|g| g.eq_ignore_ascii_case(w)) || is_thanks(w));
            // A question before is asked and answered, not the subject.
            if greeting_only || t.ends_with('?') {
                0
            } else {
                t.split_whitespace().count()
            }
        })
        .unwrap_or(0);
    // "… can you update the todo to reflect this?": what "this" is, is
    // the sentence before, however long.
    let points_back = goal
        .trim_end_matches(['.', '!', '?', ' '])
        .rsplit(' ')
        .next()
        .is_some_and(|w| {
            ["this", "that", "it", "these", "those", "ça", "cela", "ceci"]
                .iter()
                .any(|a| w.eq_ignore_ascii_case(a))
        })
        && before_words > 0;
    // A lead-in ("Two initial taskings:") was its own context.
    if start > 0
        && !led_in
        && (goal.split_whitespace().count() < 6 || (2..=8).contains(&before_words) || points_back)
    {
        let before = sentences[start - 1]
            .text
            .trim()
            .trim_end_matches(['.', '!', ' ']);
        if before.chars().count() + goal.chars().count() < MAX_GOAL {
            goal = if goal.split_whitespace().count() < 6 {
                format!("{before}: {}", lower_first(&goal))
            } else {
                format!("{before}. {}", capitalise(&goal))
            };
        }
    }
    // The sentences after it say what the request is about ("See
    // `_is_cache_version_compatible` in cache.py"), while they fit.
    for s in sentences.iter().skip(used) {
        let next = s.text.trim();
        if goal.chars().count() + next.chars().count() + 1 > MAX_GOAL
            || is_complaint(next)
            || next.ends_with(':')
        {
            break;
        }
        let sep = if goal.ends_with(['.', '!', '?', ':']) {
            " "
        } else {
            ". "
        };
        goal = format!("{goal}{sep}{next}");
    }
    // The "@" the client puts before mentioned files.
    let goal = goal
        .split_whitespace()
        .map(|w| {
            w.strip_prefix('@')
                .filter(|r| r.contains('/') || r.contains('.'))
                .unwrap_or(w)
        })
        .collect::<Vec<_>>()
        .join(" ");
    Some(cap(&capitalise(goal.trim_end_matches(':')), MAX_GOAL))
}

mod answer;
mod ci;
mod details;
mod remote;
mod review;
#[cfg(test)]
mod tests;
