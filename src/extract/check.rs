//! An LLM's answer checked against the digest it was given, before it is
//! merged. Dropped:
//!
//! - a bullet naming a file that no turn shows and today's log does not
//!   name either;
//! - a work bullet claiming a commit, push, merge, tag, release, migration,
//!   install or deploy when no turn ran one of that kind;
//! - an `a_suivre_done` item that closes no open to-do of its project's log.
//!
//! The offline backend builds its bullets from the digest itself and needs
//! no check. What the check drops stays in the raw answer in `.debug/`.
//!
//! Evidence for a file: the turns' files (and where they moved from),
//! reads, subagents' files, errors' targets, fixes and messages, refused
//! calls' targets and reasons, actions, checks, the request, the IDE
//! context, pasted lines, the to-do list, the accepted plan, the user's
//! choices, and today's logs. Not Claude's answer nor a subagent's report:
//! a file only the model's prose names is what an invented path looks like,
//! and a missing bullet costs less than a wrong one.
//!
//! Linear in the size of the digest and the answer: the evidence is indexed
//! once, each bullet token is a few hash lookups.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::digest::{ActionKind, Digest, FileChange};
use super::record::{Extraction, Sections};
use super::route::display_path;
use super::{Answer, ExtractRequest};
use crate::context::Ctx;
use crate::diag::Level;
use crate::memory::log::DailyLog;

/// Extensions that make a token a file name. A list rather than "anything
/// after a dot": `ctx.diag`, `e.g`, `v1.2` and `example.com` are not files.
const EXTENSIONS: &[&str] = &[
    "adoc",
    "bash",
    "bat",
    "c",
    "cc",
    "cfg",
    "cjs",
    "clj",
    "cmake",
    "conf",
    "cpp",
    "cs",
    "css",
    "csv",
    "cts",
    "dart",
    "diff",
    "dockerfile",
    "el",
    "env",
    "erl",
    "ex",
    "exs",
    "fish",
    "gif",
    "go",
    "gradle",
    "graphql",
    "h",
    "hcl",
    "hpp",
    "hs",
    "htm",
    "html",
    "ini",
    "ipynb",
    "java",
    "jpeg",
    "jpg",
    "js",
    "json",
    "json5",
    "jsonl",
    "jsx",
    "kt",
    "kts",
    "less",
    "lock",
    "log",
    "lua",
    "md",
    "mdx",
    "mjs",
    "mk",
    "ml",
    "mts",
    "nix",
    "patch",
    "pdf",
    "php",
    "pl",
    "png",
    "properties",
    "proto",
    "ps1",
    "py",
    "pyi",
    "r",
    "rb",
    "rs",
    "rst",
    "sass",
    "scala",
    "scss",
    "sh",
    "sql",
    "svelte",
    "svg",
    "swift",
    "tex",
    "tf",
    "toml",
    "ts",
    "tsv",
    "tsx",
    "txt",
    "vue",
    "wasm",
    "xml",
    "yaml",
    "yml",
    "zig",
    "zsh",
];

/// Runs of path segments indexed per evidence path: enough for any path a
/// bullet writes, bounded for absurdly deep ones.
const MAX_RUN: usize = 8;

/// Claims of an action, per kind, as word sequences of a lower-cased
/// bullet. Past forms and commands, not bare nouns that also name features
/// ("push notifications", "merge the helpers", "install script").
const CLAIMS: &[(ActionKind, &[&[&str]])] = &[
    (
        ActionKind::Commit,
        &[
            &["git", "commit"],
            &["committed"],
            &["commité"],
            &["commitée"],
            &["commités"],
            &["commitées"],
            &["committé"],
            &["committée"],
        ],
    ),
    (
        ActionKind::Push,
        &[
            &["pushed"],
            &["pushé"],
            &["pushée"],
            &["pushés"],
            &["poussé"],
            &["poussée"],
            &["poussés"],
            &["poussées"],
            &["git", "push"],
        ],
    ),
    (
        ActionKind::Merge,
        &[
            &["git", "merge"],
            &["mergé"],
            &["mergée"],
            &["merged", "branch"],
            &["merged", "the", "branch"],
            &["merged", "pr"],
            &["merged", "the", "pr"],
            &["merged", "pull", "request"],
            &["merged", "the", "pull", "request"],
            &["pr", "merged"],
            &["branche", "fusionnée"],
            &["fusionné", "la", "branche"],
        ],
    ),
    (
        ActionKind::Tag,
        &[
            &["tagged"],
            &["tagué"],
            &["taguée"],
            &["taggé"],
            &["taggée"],
            &["git", "tag"],
        ],
    ),
    (
        ActionKind::Release,
        &[
            &["released", "version"],
            &["released", "to"],
            &["published", "to"],
            &["published", "on"],
            &["publié", "sur"],
            &["publiée", "sur"],
            &["publiés", "sur"],
            &["release", "published"],
            &["release", "publiée"],
            &["cargo", "publish"],
            &["npm", "publish"],
            &["gh", "release"],
        ],
    ),
    (
        ActionKind::Migration,
        &[
            &["migration", "applied"],
            &["migrations", "applied"],
            &["applied", "the", "migration"],
            &["applied", "the", "migrations"],
            &["applied", "migration"],
            &["applied", "migrations"],
            &["ran", "the", "migration"],
            &["ran", "the", "migrations"],
            &["ran", "migrations"],
            &["migration", "appliquée"],
            &["migrations", "appliquées"],
            &["migration", "exécutée"],
            &["migrations", "exécutées"],
            &["appliqué", "la", "migration"],
            &["appliqué", "les", "migrations"],
            &["exécuté", "la", "migration"],
            &["exécuté", "les", "migrations"],
        ],
    ),
    (
        ActionKind::Install,
        &[
            &["installed"],
            &["installé"],
            &["installée"],
            &["installés"],
            &["installées"],
            &["npm", "install"],
            &["pip", "install"],
            &["cargo", "install"],
            &["cargo", "add"],
            &["brew", "install"],
            &["apt", "install"],
            &["apt-get", "install"],
        ],
    ),
    (
        ActionKind::Deploy,
        &[
            &["deployed"],
            &["déployé"],
            &["déployée"],
            &["déployés"],
            &["déployées"],
            &["docker", "push"],
        ],
    ),
];

/// Claims only as a bullet's first word ("Commit « Fix login »"): elsewhere
/// the noun is as often about code ("the commit message template").
const LEADING_CLAIMS: &[(ActionKind, &str)] = &[
    (ActionKind::Commit, "commit"),
    (ActionKind::Commit, "commits"),
];

/// Words that, just before a claim, deny it ("not pushed yet", "pas encore
/// déployé"): a bullet saying an action did not happen claims nothing.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "without", "nor", "pas", "jamais", "sans", "non", "ni", "aucun",
    "aucune", "rien",
];

/// Why a bullet was dropped. Only the kind is reported: a bullet's text may
/// hold what the redactor missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reason {
    UnknownFile,
    ActionNotRun(ActionKind),
    NotOpen,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Report {
    /// Bullets looked at (long-memory updates included).
    pub checked: usize,
    /// Section key and reason of each bullet dropped, in answer order.
    pub dropped: Vec<(&'static str, Reason)>,
}

impl Report {
    /// The diagnostics line, when something was dropped: counts and
    /// reasons, never the bullets.
    pub(crate) fn diag_line(&self, backend: &str) -> Option<String> {
        if self.dropped.is_empty() {
            return None;
        }
        let mut counts: Vec<((&str, Reason), usize)> = Vec::new();
        for d in &self.dropped {
            match counts.iter_mut().find(|(k, _)| k == d) {
                Some((_, n)) => *n += 1,
                None => counts.push((*d, 1)),
            }
        }
        let reasons: Vec<String> = counts
            .iter()
            .map(|((section, reason), n)| {
                let why = match reason {
                    Reason::UnknownFile => "a file no turn shows".to_string(),
                    Reason::ActionNotRun(k) => format!("a {} no turn ran", kind_name(*k)),
                    Reason::NotOpen => "no such open to-do".to_string(),
                };
                format!("{section}: {n} × {why}")
            })
            .collect();
        Some(format!(
            "{backend} answer checked against the digest: {} of {} bullets dropped ({})",
            self.dropped.len(),
            self.checked,
            reasons.join("; ")
        ))
    }
}

fn kind_name(k: ActionKind) -> &'static str {
    match k {
        ActionKind::Commit => "commit",
        ActionKind::Push => "push",
        ActionKind::Merge => "merge",
        ActionKind::Tag => "tag",
        ActionKind::Release => "release",
        ActionKind::Migration => "migration",
        ActionKind::Install => "install",
        ActionKind::Deploy => "deploy",
        ActionKind::TicketOpened => "ticket opened",
        ActionKind::TicketClosed => "ticket closed",
        ActionKind::Commented => "comment",
        ActionKind::Remote => "change over ssh",
    }
}

/// What an LLM backend's `extract` returns: its answer with the extraction
/// checked, and the drops, if any, in the diagnostics log.
pub(crate) fn checked(
    ctx: &Ctx,
    backend: &str,
    req: &ExtractRequest,
    mut answer: Answer,
) -> Answer {
    if let Ok(extraction) = &mut answer.extraction {
        let report = check(extraction, req);
        if let Some(line) = report.diag_line(backend) {
            ctx.diag(Level::Info, "capture", &line);
        }
    }
    answer
}

/// Drops from `extraction` what the digest does not back (see the module
/// docs).
pub(crate) fn check(extraction: &mut Extraction, req: &ExtractRequest) -> Report {
    let evidence = Evidence::of(req);
    let mut report = Report::default();
    let mut logs: HashMap<String, Option<DailyLog>> = HashMap::new();
    for update in &mut extraction.updates {
        let s = &mut update.sections;
        for (key, list) in [
            ("contexte", &mut s.contexte),
            ("objectif", &mut s.objectif),
            ("problemes", &mut s.problemes),
            ("connaissances", &mut s.connaissances),
            ("travail", &mut s.travail),
            ("decisions", &mut s.decisions),
            ("a_suivre", &mut s.a_suivre),
        ] {
            list.retain(|bullet| {
                report.checked += 1;
                let reason = evidence.unknown_file(bullet).then_some(Reason::UnknownFile);
                // Only work bullets say what was done; elsewhere "installed"
                // or "committed to" describe, plan or decide.
                let reason = reason.or_else(|| {
                    (key == "travail")
                        .then(|| evidence.action_not_run(bullet))
                        .flatten()
                        .map(Reason::ActionNotRun)
                });
                if let Some(r) = reason {
                    report.dropped.push((key, r));
                }
                reason.is_none()
            });
        }

        if !s.a_suivre_done.is_empty() {
            let log = logs.entry(update.project.clone()).or_insert_with(|| {
                req.existing_logs
                    .iter()
                    .find(|(p, _)| *p == update.project)
                    .map(|(_, text)| DailyLog::parse(text, "", req.lang))
            });
            s.a_suivre_done.retain(|item| {
                report.checked += 1;
                let open = log
                    .as_mut()
                    .is_some_and(|log| closes_an_open_todo(log, item));
                if !open {
                    report.dropped.push(("a_suivre_done", Reason::NotOpen));
                }
                open
            });
        }

        if let Some(text) = &update.long_memory_update {
            report.checked += 1;
            if evidence.unknown_file(text) {
                report
                    .dropped
                    .push(("long_memory_update", Reason::UnknownFile));
                update.long_memory_update = None;
            }
        }
    }
    report
}

/// Does `item` finalise an open to-do of `log`? Asked of the merge itself,
/// on the log as the items before it left it, so that the check and the
/// merge cannot disagree on what matches.
fn closes_an_open_todo(log: &mut DailyLog, item: &str) -> bool {
    let sections = Sections {
        a_suivre_done: vec![item.to_string()],
        ..Sections::default()
    };
    // The merge caps bullets at `memory.max_bullet_chars`; a longer cap
    // here only keeps more of the item to match with.
    !log.merge(&sections, 4_000).finalized.is_empty()
}

/// The digest indexed for the check.
struct Evidence<'r> {
    root: &'r Path,
    /// Every run of up to [`MAX_RUN`] consecutive `/`-separated segments
    /// of every token of the evidence.
    paths: HashSet<String>,
    /// Tokens already indexed: the same path comes back in every turn.
    seen: HashSet<String>,
    /// The kinds of action the turns ran (eight at most).
    actions: Vec<ActionKind>,
}

impl<'r> Evidence<'r> {
    fn of(req: &'r ExtractRequest) -> Self {
        let mut ev = Evidence {
            root: req.project_root,
            paths: HashSet::new(),
            seen: HashSet::new(),
            actions: Vec::new(),
        };
        ev.index_digest(req.digest);
        for (_, log) in req.existing_logs {
            ev.index(log);
        }
        ev
    }

    fn index_digest(&mut self, digest: &Digest) {
        let file = |ev: &mut Self, f: &FileChange| {
            ev.index(&f.path);
            if let Some(from) = &f.from {
                ev.index(from);
            }
        };
        for t in &digest.turns {
            self.index(&t.request);
            for s in t.ide.iter().chain(&t.pasted).chain(&t.reads) {
                self.index(s);
            }
            for f in t.all_files() {
                file(self, f);
            }
            // A push the remote rejected backs no "pushed" bullet.
            for a in t.actions.iter().filter(|a| a.ok) {
                if !self.actions.contains(&a.kind) {
                    self.actions.push(a.kind);
                }
                self.index(&a.command);
                self.index(&a.detail);
            }
            for c in &t.checks {
                self.index(&c.command);
                self.index(&c.summary);
            }
            for e in &t.errors {
                self.index(&e.target);
                self.index(&e.message);
                for p in &e.fixed_in {
                    self.index(p);
                }
                if let Some(by) = &e.resolved_by {
                    self.index(by);
                }
            }
            for d in &t.declined {
                self.index(&d.target);
                self.index(&d.reason);
            }
            for todo in &t.todos {
                self.index(&todo.text);
            }
            if let Some(plan) = &t.plan {
                self.index(plan);
            }
            for c in &t.choices {
                self.index(&c.question);
                self.index(&c.answer);
            }
        }
    }

    /// Indexes every token of `text`, plain words too: `rm -rf target`
    /// backs a bullet naming `target/`.
    fn index(&mut self, text: &str) {
        for token in tokens(text) {
            let norm = normalise(self.root, token);
            if !self.seen.insert(norm.clone()) {
                continue;
            }
            let segments: Vec<&str> = norm.split('/').filter(|s| !s.is_empty()).collect();
            for start in 0..segments.len() {
                for end in start + 1..=segments.len().min(start + MAX_RUN) {
                    self.paths.insert(segments[start..end].join("/"));
                }
            }
        }
    }

    /// Known: the path itself, or the path with leading folders removed
    /// (a bullet may write the path from the root where the turn wrote it
    /// from a sub-project), down to two segments.
    fn knows(&self, path: &str) -> bool {
        let norm = normalise(self.root, path);
        let mut rest = norm.trim_start_matches('/');
        loop {
            if self.paths.contains(rest) {
                return true;
            }
            match rest.split_once('/') {
                Some((_, tail)) if tail.contains('/') => rest = tail,
                _ => return false,
            }
        }
    }

    fn unknown_file(&self, bullet: &str) -> bool {
        tokens(bullet).any(|t| is_file_like(t) && !self.knows(t))
    }

    fn action_not_run(&self, bullet: &str) -> Option<ActionKind> {
        claimed(bullet).find(|k| !self.actions.contains(k))
    }
}

/// `token` as the evidence index keeps it: relative to the project root,
/// without `@`, `./` or a trailing `/`.
fn normalise(root: &Path, token: &str) -> String {
    let token = token.trim_start_matches('@');
    display_path(root, token).trim_end_matches('/').to_string()
}

/// The words of a text that could name a file: split at blanks, quotes,
/// brackets and punctuation, URLs left out, trailing dots dropped.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .filter(|w| !w.contains("://"))
        .flat_map(|w| {
            w.split([
                '`', '"', '\'', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', ':', '=', '«',
                '»', '“', '”', '‘', '’', '|',
            ])
        })
        .map(|t| t.trim_end_matches(['.', '!', '?', '…']))
        .filter(|t| !t.is_empty())
}

/// Does a token name a file or a folder? A known extension, a folder
/// written with its trailing `/`, or a relative path of three segments or
/// more. Two segments alone (`origin/main`, `and/or`, `client/server`) and
/// extensionless absolute paths (`/v1/messages`, `/review`) are too often
/// something else.
fn is_file_like(token: &str) -> bool {
    let token = token.trim_start_matches('@');
    if !token.chars().any(char::is_alphabetic) || token.contains(['*', '$', '%', '\\', '#']) {
        return false;
    }
    let trimmed = token.trim_end_matches('/');
    let last = trimmed.rsplit('/').next().unwrap_or(trimmed);
    if let Some((name, ext)) = last.rsplit_once('.') {
        let ext = ext.to_ascii_lowercase();
        // `Node.js`, `Vue.js`: a product, not a file.
        let product =
            ext == "js" && !trimmed.contains('/') && name.starts_with(|c: char| c.is_uppercase());
        if EXTENSIONS.contains(&ext.as_str()) && !product && !name.ends_with('.') {
            return true;
        }
    }
    let relative = !token.starts_with(['/', '~']);
    let folders = trimmed.matches('/').count();
    relative && ((token.ends_with('/') && trimmed.chars().count() >= 2) || folders >= 2)
}

/// The action kinds a bullet claims were done.
fn claimed(bullet: &str) -> impl Iterator<Item = ActionKind> {
    let lower = bullet.to_lowercase().replace('’', "'");
    let words: Vec<String> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    let mut kinds: Vec<ActionKind> = LEADING_CLAIMS
        .iter()
        .filter(|(_, w)| words.first().is_some_and(|first| first == w))
        .map(|(k, _)| *k)
        .collect();
    for i in 0..words.len() {
        let denied = words[i.saturating_sub(3)..i]
            .iter()
            .any(|w| NEGATIONS.contains(&w.as_str()) || w.ends_with("n't"));
        if denied {
            continue;
        }
        for (kind, phrases) in CLAIMS {
            let says = phrases.iter().any(|p| {
                words.len() - i >= p.len() && p.iter().zip(&words[i..]).all(|(a, b)| *a == b)
            });
            if says && !kinds.contains(kind) {
                kinds.push(*kind);
            }
        }
    }
    kinds.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::digest::{Action, Change, Todo, TodoStatus, ToolError, Turn};
    use crate::extract::record::Update;
    use crate::memory::log::Lang;

    const ROOT: &str = "/repo";

    fn request<'a>(digest: &'a Digest, logs: &'a [(String, String)]) -> ExtractRequest<'a> {
        ExtractRequest {
            digest,
            ok_done: false,
            projects: &[],
            default_project: "root",
            existing_logs: logs,
            done_candidates: &[],
            earlier_todos: &[],
            lang: Lang::En,
            project_root: Path::new(ROOT),
        }
    }

    fn updated(path: &str) -> FileChange {
        FileChange {
            path: path.into(),
            change: Change::Updated,
            from: None,
        }
    }

    fn commit(message: &str) -> Action {
        Action {
            kind: ActionKind::Commit,
            detail: message.into(),
            command: format!("git commit -m '{message}'"),
            ok: true,
            id: String::new(),
            skipped_hooks: false,
            range: None,
            branch: None,
        }
    }

    fn digest() -> Digest {
        Digest {
            turns: vec![Turn {
                request: "Fix the login in projects/api (see `docs/login.md`)".into(),
                ide: vec!["opened: /repo/projects/api/src/routes.rs".into()],
                files: vec![updated("/repo/projects/api/src/auth.rs")],
                reads: vec!["/repo/projects/api/Cargo.toml".into()],
                actions: vec![commit("Fix login")],
                errors: vec![ToolError {
                    tool: "Bash".into(),
                    target: "cargo test".into(),
                    message: "error: could not compile `api` (lib)".into(),
                    resolved: true,
                    fixed_in: vec!["/repo/projects/api/src/token.rs".into()],
                    resolved_by: None,
                    cause: None,
                }],
                answer: "I also looked at `src/secret_plan.rs`.".into(),
                ..Default::default()
            }],
        }
    }

    fn sections(travail: &[&str]) -> Extraction {
        Extraction {
            updates: vec![Update {
                project: "root".into(),
                sections: Sections {
                    travail: travail.iter().map(|s| s.to_string()).collect(),
                    ..Sections::default()
                },
                long_memory_update: None,
            }],
        }
    }

    fn kept(travail: &[&str], logs: &[(String, String)]) -> (Vec<String>, Report) {
        let d = digest();
        let mut x = sections(travail);
        let report = check(&mut x, &request(&d, logs));
        (x.updates[0].sections.travail.clone(), report)
    }

    #[test]
    fn files_the_turns_show_are_kept_in_any_spelling() {
        let good = [
            "Updated `projects/api/src/auth.rs`",
            "Updated `/repo/projects/api/src/auth.rs` and `src/token.rs`",
            "Fixed auth.rs, token.rs.",
            "Read `projects/api/Cargo.toml` (`routes.rs` was open)",
            "Worked in `projects/api/src/` following docs/login.md",
            "Documented in `docs/login.md:12`",
            "Commit « Fix login » on `origin/main`, see https://example.com/a/b.rs",
            "Uses Node.js and `ctx.diag`, e.g. version v1.2.3, and/or client/server",
        ];
        let (travail, report) = kept(&good, &[]);
        assert_eq!(travail, good, "{report:?}");
        assert!(report.dropped.is_empty());
        assert_eq!(report.diag_line("x"), None);
    }

    #[test]
    fn a_file_nobody_touched_is_dropped_unless_todays_log_names_it() {
        let bad = [
            "Updated `src/payment.rs`",
            "Edited src/secret_plan.rs",
            "Created `projects/web/src/` folder",
            "Cleaned lib/legacy/helpers/",
        ];
        let (travail, report) = kept(&bad, &[]);
        assert!(travail.is_empty(), "{travail:?}");
        assert_eq!(report.dropped, vec![("travail", Reason::UnknownFile); 4]);

        let logs = vec![(
            "root".to_string(),
            "## Travail produit\n- Created `src/payment.rs`\n".to_string(),
        )];
        let (travail, _) = kept(&bad[..1], &logs);
        assert_eq!(travail, ["Updated `src/payment.rs`"]);
    }

    #[test]
    fn a_folder_a_command_named_is_known() {
        let d = Digest {
            turns: vec![Turn {
                declined: vec![crate::extract::digest::Declined {
                    tool: "Bash".into(),
                    target: "rm -rf target".into(),
                    reason: "keep the build cache".into(),
                }],
                ..Default::default()
            }],
        };
        let mut x = sections(&[]);
        x.updates[0].sections.decisions =
            vec!["Keep `target/`: the user refused to delete it".into()];
        let report = check(&mut x, &request(&d, &[]));
        assert!(report.dropped.is_empty(), "{report:?}");
    }

    #[test]
    fn a_more_qualified_path_is_known_but_another_folder_is_not() {
        let d = Digest {
            turns: vec![Turn {
                files: vec![updated("src/auth.rs")],
                ..Default::default()
            }],
        };
        let mut x = sections(&[
            "Updated `projects/api/src/auth.rs`",
            "Updated `lib/auth.rs`",
        ]);
        check(&mut x, &request(&d, &[]));
        assert_eq!(
            x.updates[0].sections.travail,
            ["Updated `projects/api/src/auth.rs`"]
        );
    }

    #[test]
    fn an_action_claim_needs_an_action_of_its_kind() {
        let claims = [
            "Commit « Fix login »",
            "Committed the fix",
            "Ran git commit --amend",
            "Pushed to `origin/main`",
            "Poussé sur main",
            "Merged the PR #12",
            "Tagged v1.2.0",
            "Published to crates.io",
            "Applied the migration 0042",
            "Installed serde",
            "Déployé en production",
        ];
        let (travail, report) = kept(&claims, &[]);
        assert_eq!(
            travail,
            [
                "Commit « Fix login »",
                "Committed the fix",
                "Ran git commit --amend"
            ]
        );
        let kinds: Vec<Reason> = report.dropped.iter().map(|(_, r)| *r).collect();
        assert_eq!(
            kinds,
            [
                Reason::ActionNotRun(ActionKind::Push),
                Reason::ActionNotRun(ActionKind::Push),
                Reason::ActionNotRun(ActionKind::Merge),
                Reason::ActionNotRun(ActionKind::Tag),
                Reason::ActionNotRun(ActionKind::Release),
                Reason::ActionNotRun(ActionKind::Migration),
                Reason::ActionNotRun(ActionKind::Install),
                Reason::ActionNotRun(ActionKind::Deploy),
            ]
        );
    }

    #[test]
    fn mentions_and_denials_are_not_claims() {
        let fine = [
            "Not pushed yet",
            "Changes were not deployed",
            "Pas encore poussé",
            "Added push notifications",
            "Merged the two helpers into one",
            "Added a pre-commit hook and a commit-msg check",
            "Improved the commit message template",
            "Wrote the install script",
        ];
        let (travail, report) = kept(&fine, &[]);
        assert_eq!(travail, fine, "{report:?}");
    }

    #[test]
    fn claims_are_checked_in_work_bullets_only() {
        let d = digest();
        let mut x = sections(&[]);
        let s = &mut x.updates[0].sections;
        s.decisions = vec!["Committed to SQLite".into()];
        s.problemes = vec!["serde is not installed, install failed".into()];
        s.a_suivre = vec!["Deploy to staging".into(), "Push the tag".into()];
        let before = x.clone();
        let report = check(&mut x, &request(&d, &[]));
        assert_eq!(x, before, "{report:?}");
        assert_eq!(report.checked, 4);
    }

    #[test]
    fn done_items_must_close_an_open_todo_of_their_project() {
        let d = digest();
        let logs = vec![
            (
                "root".to_string(),
                "## À suivre\n- Relire la doc\n- Migrer la base\n\n## Finalisé\n- ✅ Old\n"
                    .to_string(),
            ),
            ("web".to_string(), "## À suivre\n- Ship it\n".to_string()),
        ];
        let mut x = sections(&[]);
        x.updates[0].sections.a_suivre_done = vec![
            "Relire la doc".into(),
            "Ship it".into(),
            "Old".into(),
            "Something invented".into(),
            "Relire la doc".into(),
        ];
        x.updates.push(Update {
            project: "ghost".into(),
            sections: Sections {
                a_suivre_done: vec!["Ship it".into()],
                ..Sections::default()
            },
            long_memory_update: None,
        });
        let report = check(&mut x, &request(&d, &logs));
        assert_eq!(x.updates[0].sections.a_suivre_done, ["Relire la doc"]);
        assert!(x.updates[1].sections.a_suivre_done.is_empty());
        assert_eq!(report.dropped, vec![("a_suivre_done", Reason::NotOpen); 5]);
    }

    #[test]
    fn long_memory_naming_an_unknown_file_is_dropped() {
        let d = digest();
        let mut x = sections(&[]);
        x.updates[0].long_memory_update = Some("Tokens live in `src/vault.rs`".into());
        check(&mut x, &request(&d, &[]));
        assert_eq!(x.updates[0].long_memory_update, None);
        x.updates[0].long_memory_update = Some("Tokens live in `src/token.rs`".into());
        check(&mut x, &request(&d, &[]));
        assert!(x.updates[0].long_memory_update.is_some());
    }

    #[test]
    fn the_diagnostics_line_counts_reasons_without_the_bullets() {
        let (_, report) = kept(
            &[
                "Updated `src/payment.rs`",
                "Updated `src/ledger.rs`",
                "Pushed to main",
                "Updated `projects/api/src/auth.rs`",
            ],
            &[],
        );
        let line = report.diag_line("anthropic").unwrap();
        assert_eq!(
            line,
            "anthropic answer checked against the digest: 3 of 4 bullets dropped (travail: 2 × a file no turn shows; travail: 1 × a push no turn ran)"
        );
        assert!(!line.contains("payment"));
    }

    #[test]
    fn tokens_and_file_likeness() {
        let t: Vec<&str> =
            tokens("See `src/a.rs:12`, (b.toml); «c.md» https://x.io/d.rs e.").collect();
        assert_eq!(t, ["See", "src/a.rs", "12", "b.toml", "c.md", "e"]);
        for yes in [
            "a.rs",
            "src/a/",
            "a/b/c",
            "@src/x.ts",
            ".env",
            "/etc/hosts.conf",
            "README.md",
        ] {
            assert!(is_file_like(yes), "{yes}");
        }
        for no in [
            "origin/main",
            "and/or",
            "/v1/messages",
            "/review",
            "ctx.diag",
            "e.g",
            "v1.2.3",
            "example.com",
            "Node.js",
            "src/*.rs",
            "1/2/3",
            "w/",
        ] {
            assert!(!is_file_like(no), "{no}");
        }
    }

    #[test]
    fn the_check_is_cheap_on_a_large_digest() {
        let turn = Turn {
            files: (0..60)
                .map(|i| updated(&format!("/repo/{}/f{i}.rs", "deep/".repeat(50))))
                .collect(),
            todos: (0..60)
                .map(|i| Todo {
                    text: format!("do {i} in src/m{i}.rs"),
                    status: TodoStatus::Pending,
                })
                .collect(),
            ..Default::default()
        };
        let d = Digest {
            turns: vec![turn; 30],
        };
        let bullets: Vec<String> = (0..200).map(|i| format!("Updated `src/m{i}.rs`")).collect();
        let refs: Vec<&str> = bullets.iter().map(String::as_str).collect();
        let mut x = sections(&refs);
        let report = check(&mut x, &request(&d, &[]));
        assert_eq!(x.updates[0].sections.travail.len(), 60);
        assert_eq!(report.dropped.len(), 140);
    }
}
