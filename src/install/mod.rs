//! `cairn install` and `cairn uninstall`: what cairn adds to a project, and
//! how it takes exactly that back out.
//!
//! Both commands first compute a [`Plan`] (every file or folder they would
//! create, change or remove, with the text before and after) without touching
//! the disk; `--dry-run` prints [`Plan::diff`], otherwise [`Plan::apply`]
//! writes it. Planning reads, applying writes: a plan whose files changed on
//! disk in between is refused rather than applied over someone's edit.
//!
//! ```ignore
//! let opts = InstallOptions { command: "cairn".into(), ..Default::default() };
//! let plan = plan_install(root, &opts)?;
//! if opts.dry_run { print!("{}", plan.diff()) } else { for l in plan.apply()? { println!("{l}") } }
//! for note in &plan.notes { println!("{note}") }
//! ```
//! [`run_install`] / [`run_uninstall`] do exactly that and return the text to
//! print.
//!
//! What install adds, in the project root:
//! - `.claude/settings.json`: one group running `<command> hook` under each of
//!   [`HOOK_EVENTS`], appended after the user's own groups, and a `statusLine`
//!   running `<command> statusline` unless a status line is already set there
//!   or in the user's settings; edited in place so their layout and key order
//!   survive; the file as it was before cairn first edited it goes to
//!   `.claude/settings.json.cairn.bak` (kept as is by later reinstalls), and
//!   a file install creates is recorded in cairn's state folder instead. A
//!   cairn registration already there (a teammate committed it) counts as
//!   present: not repointed, not cairn's to take out.
//!
//! `--user` ([`plan_user_install`]) writes only the status line, into the
//! user's settings (plugins cannot carry one).
//! - `memory_sessions/` with `logs/` and a `.gitkeep` (never removed: it is
//!   the user's data).
//! - a marked block in `.gitignore` for `**/.debug/`.
//! - in a git repository, the merge driver for memory files: a marked block
//!   in `.gitattributes` and `merge.cairn-memory.*` in the local git config
//!   (`gitattributes.rs`).
//! - the skills `memory_load`, `memory_promotion` and `token_audit` under `.claude/skills/`.
//!
//! Uninstall removes the hook entries and status line install added (not
//! a registration the original file had) and any group, event list or
//! `hooks` object that removal left empty (unless the original had it), the
//! marked `.gitignore` block, the skills if they are still cairn's text, and
//! the folders those removals empty. When what is left means the backup, the
//! backup's exact bytes are written back and the backup goes.
//! `settings.json` itself goes only when `{}` is all that is left and the
//! state folder records that install created it. `memory_sessions/`
//! always stays.

mod gitattributes;
mod gitignore;
mod jsonspan;
mod marked;
mod settings;
mod statusline;

use anyhow::{Context, bail};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The events cairn registers: only those 1.0.x clients know, because naming
/// any other makes such a client ignore every hook in the file.
pub use settings::EVENTS as HOOK_EVENTS;

/// The merge driver's registration (`.gitattributes` and git config).
pub use gitattributes::{
    Registration as MergeDriverRegistration, driver_command as merge_driver_command,
    registration as merge_driver_registration,
};

/// Is `cmd` a hook command that runs cairn (`cairn hook`, possibly by an
/// absolute or quoted path)? For `cairn doctor`.
pub fn is_cairn_hook_command(cmd: &str) -> bool {
    settings::is_cairn_command(cmd)
}

/// Is `cmd` cairn's status line command (`<cairn> statusline`)? For
/// `cairn doctor`.
pub fn is_cairn_statusline_command(cmd: &str) -> bool {
    statusline::is_cairn_statusline(cmd)
}

const SETTINGS: &str = ".claude/settings.json";
const SETTINGS_BACKUP: &str = ".claude/settings.json.cairn.bak";
const SETTINGS_LOCAL: &str = ".claude/settings.local.json";
const MEMORY_DIR: &str = "memory_sessions";
const GITIGNORE: &str = ".gitignore";

const SKILLS: [(&str, &str); 3] = [
    (
        "memory_load",
        include_str!("../../assets/skills/memory_load/SKILL.md"),
    ),
    (
        "memory_promotion",
        include_str!("../../assets/skills/memory_promotion/SKILL.md"),
    ),
    (
        "token_audit",
        include_str!("../../assets/skills/token_audit/SKILL.md"),
    ),
];

/// Texts of cairn's skills as earlier releases shipped them: a project that
/// holds one of them has cairn's skill, not an edited one, so install brings
/// it up to date and uninstall removes it.
const FORMER_SKILLS: [(&str, &str); 1] = [(
    "memory_load",
    include_str!("../../assets/skills-former/memory_load.1.md"),
)];

fn former_skill(name: &str, current: &str) -> bool {
    FORMER_SKILLS
        .iter()
        .any(|(n, text)| *n == name && same_skill(current, text))
}

#[derive(Debug, Clone)]
pub struct InstallOptions {
    /// Only used by [`run_install`] / [`run_uninstall`]: show the diff, write
    /// nothing.
    pub dry_run: bool,
    /// The program the hooks run: `cairn` (found on PATH) or a path to the
    /// binary. Unquoted; it is quoted for the shell when needed.
    pub command: String,
    /// Lock file that serialises concurrent installs (e.g. in cairn's state
    /// folder); `None` takes no lock. Never put it inside the project.
    pub lock_path: Option<PathBuf>,
    /// Register cairn's status line too (unless one is already set).
    pub statusline: bool,
    /// The user's settings file (`$CLAUDE_CONFIG_DIR/settings.json`): a
    /// project install reads it so as not to hide the user's status line.
    pub user_settings: Option<PathBuf>,
    /// Where install remembers that it created `.claude/settings.json` (a
    /// folder in cairn's state folder, never inside the project, where a
    /// teammate could commit it). `None` remembers nothing: uninstall then
    /// never deletes a settings file, since it cannot tell cairn's from one
    /// somebody committed with the same text.
    pub record_dir: Option<PathBuf>,
}

impl Default for InstallOptions {
    fn default() -> Self {
        InstallOptions {
            dry_run: false,
            command: "cairn".to_string(),
            lock_path: None,
            statusline: true,
            user_settings: None,
            record_dir: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    /// A copy of a file cairn is about to edit: applied like a file, shown in
    /// a diff as one line rather than the whole file again.
    Backup,
    /// A key of the repository's local git config (`path` is the project
    /// root; `before`/`after` are the values).
    GitConfig(&'static str),
    /// cairn's own note, in its state folder, that install created the
    /// settings file: applied like a file, never shown.
    Record,
}

/// One planned change. `None` means absent; a folder that exists is
/// `Some("")`. So `before: None` creates, `after: None` removes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: PathBuf,
    pub kind: EntryKind,
    pub before: Option<String>,
    pub after: Option<String>,
    /// Why, for the human line; may be empty.
    pub summary: String,
}

#[derive(Debug, Clone)]
pub struct Plan {
    /// The project root the paths are shown relative to.
    pub root: PathBuf,
    /// In the order they are applied (a backup before the file it saves).
    pub changes: Vec<FileChange>,
    /// Things the user should know that are not changes (a skill kept
    /// because it was edited, `memory_sessions/` kept, ...).
    pub notes: Vec<String>,
    pub lock_path: Option<PathBuf>,
    verb: &'static str,
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "{}: invalid JSON at line {line}, column {column} ({msg}); fix it or move it aside, then run `{verb}` again",
        path.display()
    )]
    InvalidJson {
        path: PathBuf,
        line: usize,
        column: usize,
        msg: String,
        verb: &'static str,
    },
    #[error(
        "{}: {what} is not a JSON object, so cairn cannot merge its hooks safely; fix it by hand, then run `{verb}` again",
        path.display()
    )]
    NotObject {
        path: PathBuf,
        what: String,
        verb: &'static str,
    },
    #[error(
        "{}: {what} is not an array of hook groups; make it one (`[]` if empty), then run `{verb}` again",
        path.display()
    )]
    NotArray {
        path: PathBuf,
        what: String,
        verb: &'static str,
    },
    #[error("{}: not UTF-8 text, cairn will not edit it; convert it to UTF-8, then run `{verb}` again", path.display())]
    NotUtf8 { path: PathBuf, verb: &'static str },
    #[error("{}: exists but is not a folder; move it aside, then run `{verb}` again", path.display())]
    NotADirectory { path: PathBuf, verb: &'static str },
    #[error(
        "{}: resolves to {}, outside the project (or to something that is not a file or folder); cairn will not read or write there. Remove the link, then run `{verb}` again",
        path.display(),
        real.display()
    )]
    Outside {
        path: PathBuf,
        real: PathBuf,
        verb: &'static str,
    },
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

const INSTALL: &str = "cairn install";
const UNINSTALL: &str = "cairn uninstall";

fn read_opt(path: &Path, verb: &'static str) -> Result<Option<String>, InstallError> {
    match crate::fsutil::confine::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| InstallError::NotUtf8 {
                path: path.to_path_buf(),
                verb,
            }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(InstallError::Io {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}

fn settings_error(path: &Path, p: settings::Problem, verb: &'static str) -> InstallError {
    let path = path.to_path_buf();
    match p {
        settings::Problem::Json { line, column, msg } => InstallError::InvalidJson {
            path,
            line,
            column,
            msg,
            verb,
        },
        settings::Problem::NotObject(what) => InstallError::NotObject { path, what, verb },
        settings::Problem::NotArray(what) => InstallError::NotArray { path, what, verb },
    }
}

fn file(
    path: PathBuf,
    before: Option<String>,
    after: Option<String>,
    summary: impl Into<String>,
) -> FileChange {
    FileChange {
        path,
        kind: EntryKind::File,
        before,
        after,
        summary: summary.into(),
    }
}

fn backup(
    path: PathBuf,
    before: Option<String>,
    after: Option<String>,
    summary: &str,
) -> FileChange {
    FileChange {
        kind: EntryKind::Backup,
        ..file(path, before, after, summary)
    }
}

fn dir(path: PathBuf, create: bool) -> FileChange {
    let (before, after) = if create {
        (None, Some(String::new()))
    } else {
        (Some(String::new()), None)
    };
    FileChange {
        path,
        kind: EntryKind::Dir,
        before,
        after,
        summary: String::new(),
    }
}

fn event_list(events: &[&str]) -> String {
    if events.len() == HOOK_EVENTS.len() {
        format!("every event ({})", events.join(", "))
    } else {
        events.join(", ")
    }
}

/// Every path of the project that install or uninstall reads or writes.
fn project_paths(root: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = [
        ".claude",
        SETTINGS,
        SETTINGS_BACKUP,
        SETTINGS_LOCAL,
        ".claude/skills",
        MEMORY_DIR,
        GITIGNORE,
        gitattributes::FILE,
    ]
    .iter()
    .map(|p| root.join(p))
    .collect();
    paths.push(root.join(MEMORY_DIR).join("logs"));
    paths.push(root.join(MEMORY_DIR).join(".gitkeep"));
    for (name, _) in SKILLS {
        let skill = skill_path(root, name);
        paths.extend(skill.parent().map(Path::to_path_buf));
        paths.push(skill);
    }
    paths
}

/// The project may be a stranger's clone: a committed `.claude` linked to
/// `~/.claude` would have install edit the user's own settings, and a diff
/// shown by `--dry-run` would print a file from outside. Links that stay
/// inside the project (a dotfiles folder in the repository) are followed.
fn confine_project(root: &Path, verb: &'static str) -> Result<(), InstallError> {
    use crate::fsutil::confine::{Jail, Refused};
    let jail = Jail::new(root);
    for path in project_paths(root) {
        match jail.resolve(&path) {
            Ok(_) => {}
            Err(Refused::Io { .. }) => {}
            Err(Refused::Outside { real, .. }) => {
                return Err(InstallError::Outside { path, real, verb });
            }
            Err(_) => {
                let real = fs::read_link(&path).unwrap_or_else(|_| path.clone());
                return Err(InstallError::Outside { path, real, verb });
            }
        }
    }
    Ok(())
}

/// What `cairn install` would change in `project_root`.
pub fn plan_install(project_root: &Path, opts: &InstallOptions) -> Result<Plan, InstallError> {
    let verb = INSTALL;
    let root = project_root;
    confine_project(root, verb)?;
    let mut changes = Vec::new();
    let mut notes = Vec::new();

    let settings_path = root.join(SETTINGS);
    let before = read_opt(&settings_path, verb)?;
    let SettingsPast {
        backup_path,
        saved,
        record,
        created,
    } = settings_past(root, opts, &settings_path, verb)?;
    let original = original_settings(before.as_deref(), saved.as_deref(), created);
    // A registration that was there before cairn first edited the file is
    // someone else's (a teammate committed it): present, not cairn's to
    // repoint, and left alone by uninstall.
    let theirs = original.map(settings::cairn_events).unwrap_or_default();
    let their_status = original.is_some_and(statusline::mentions_cairn);
    let installed = settings::install(before.as_deref(), &opts.command, &theirs)
        .map_err(|p| settings_error(&settings_path, p, verb))?;
    let hooks_changed = installed.is_some();
    let mut what = Vec::new();
    let mut after = before.clone();
    if let Some(done) = installed {
        if !done.added.is_empty() {
            what.push(format!("cairn hook added for {}", event_list(&done.added)));
        }
        if !done.updated.is_empty() {
            what.push(format!(
                "cairn hook now runs `{}` for {}",
                settings::hook_command(&opts.command),
                event_list(&done.updated)
            ));
        }
        after = Some(done.text);
    }
    if opts.statusline && !their_status {
        // A status line the user set for every project stays theirs: a
        // project entry would silently hide it here.
        let users_global = opts
            .user_settings
            .as_deref()
            .and_then(|p| crate::fsutil::confine::read_to_string(p).ok())
            .and_then(|t| statusline::users_command(&t));
        match users_global {
            Some(cmd) if !after.as_deref().is_some_and(statusline::mentions_cairn) => {
                notes.push(format!(
                    "kept your status line (`{cmd}`, user settings); `cairn install --user` switches it to cairn's."
                ));
            }
            _ => match plan_statusline(after.as_deref(), &opts.command, &settings_path, verb)? {
                (Some(text), line, note) => {
                    after = Some(text);
                    what.extend(line);
                    notes.extend(note);
                }
                (None, _, note) => notes.extend(note),
            },
        }
    }
    if after != before {
        // The backup keeps the text from before cairn's first edit, whatever
        // reinstalls come after: it is what uninstall gives back. A file
        // cairn created has none; the record says so instead.
        if let Some(original) = original
            && saved.as_deref() != Some(original)
        {
            changes.push(backup(
                backup_path,
                saved.clone(),
                Some(original.to_string()),
                "backup of the previous settings",
            ));
        }
        if before.is_none()
            && let Some(record) = record
        {
            let was = read_opt(&record, verb)?;
            let text = format!("{}\n", settings_path.display());
            if was.as_deref() != Some(text.as_str()) {
                changes.push(FileChange {
                    kind: EntryKind::Record,
                    ..file(record, was, Some(text), "")
                });
            }
        }
        changes.push(file(
            settings_path.clone(),
            before.clone(),
            after,
            what.join("; "),
        ));
    }
    if hooks_changed {
        notes.push(
            "Claude Code reads hooks when a session starts: restart running sessions.".to_string(),
        );
    }
    if let Some(text) = &before
        && disables_hooks(text)
    {
        notes.push(format!(
            "{SETTINGS} sets \"disableAllHooks\": true, so no hook runs until it is removed."
        ));
    }
    if read_opt(&root.join(SETTINGS_LOCAL), verb)?.is_some_and(|t| settings::mentions_cairn(&t)) {
        notes.push(format!(
            "{SETTINGS_LOCAL} also runs cairn hook, so every event would reach cairn twice; remove it there."
        ));
    }

    let memory = root.join(MEMORY_DIR);
    for p in [&memory, &memory.join("logs")] {
        if p.exists() && !p.is_dir() {
            return Err(InstallError::NotADirectory {
                path: p.clone(),
                verb,
            });
        }
    }
    let memory_is_empty = match fs::read_dir(&memory) {
        Ok(mut entries) => entries.next().is_none(),
        Err(_) => true,
    };
    if memory_is_empty {
        changes.push(file(
            memory.join(".gitkeep"),
            None,
            Some(String::new()),
            "keeps the memory folder in git",
        ));
    }
    if !memory.join("logs").exists() {
        changes.push(dir(memory.join("logs"), true));
    }

    let gitignore_path = root.join(GITIGNORE);
    let before = read_opt(&gitignore_path, verb)?;
    if let Some(after) = gitignore::install(before.as_deref()) {
        changes.push(file(
            gitignore_path,
            before,
            Some(after),
            "ignore **/.debug/ (raw extractor output)",
        ));
    }
    gitattributes::plan_install(root, &opts.command, verb, &mut changes, &mut notes)?;

    for (name, content) in SKILLS {
        let path = skill_path(root, name);
        match read_opt(&path, verb)? {
            None => changes.push(file(path, None, Some(content.to_string()), format!("skill /{name}"))),
            Some(current) if same_skill(&current, content) => {}
            Some(current) if former_skill(name, &current) => changes.push(file(
                path,
                Some(current),
                Some(content.to_string()),
                format!("skill /{name} (this release's text)"),
            )),
            Some(_) => notes.push(format!(
                "kept {}: it differs from cairn's (edited?); delete it and run `cairn install` again to get cairn's.",
                display(root, &path)
            )),
        }
    }
    let writes_skills = changes.iter().any(|c| c.path.ends_with("SKILL.md"));
    if writes_skills && opts.command != "cairn" {
        notes.push(format!(
            "the hooks run {}, but the skills call `cairn` from PATH: make sure it is there.",
            settings::hook_command(&opts.command)
        ));
    }

    Ok(Plan {
        root: root.to_path_buf(),
        changes,
        notes,
        lock_path: opts.lock_path.clone(),
        verb,
    })
}

/// What `cairn uninstall` would change in `project_root`: everything install
/// added that is still as install left it, and nothing else.
pub fn plan_uninstall(project_root: &Path, opts: &InstallOptions) -> Result<Plan, InstallError> {
    let verb = UNINSTALL;
    confine_project(project_root, verb)?;
    let root = project_root;
    let mut changes = Vec::new();
    let mut notes = Vec::new();
    let mut removed: HashSet<PathBuf> = HashSet::new();

    let settings_path = root.join(SETTINGS);
    if let Some(before) = read_opt(&settings_path, verb)? {
        let SettingsPast {
            backup_path,
            saved,
            record,
            created,
        } = settings_past(root, opts, &settings_path, verb)?;
        let original = original_settings(Some(&before), saved.as_deref(), created);
        let keep = settings::Keep::from_original(original);
        let their_status = original.is_some_and(statusline::mentions_cairn);
        let undone = strip_cairn(&before, &keep, their_status)
            .map_err(|p| settings_error(&settings_path, p, verb))?;
        if !keep.theirs.is_empty() || their_status {
            notes.push(format!(
                "kept cairn's registration in {SETTINGS}: it was there before `cairn install` (committed by someone?); remove it by hand if you no longer want it."
            ));
        }
        if let Some(undone) = undone {
            let restores_backup = saved.is_some()
                && original == saved.as_deref()
                && same_settings(&undone.text, original.unwrap_or_default());
            // Only a file cairn created goes, and only when `{}` is left.
            let delete = created && undone.empty;
            let after = if delete {
                None
            } else if restores_backup {
                // The exact bytes from before install (an empty file stays
                // empty), not a re-rendering that means the same.
                saved.clone()
            } else {
                Some(undone.text)
            };
            let mut summary = Vec::new();
            if undone.removed > 0 {
                summary.push(format!(
                    "removed {} cairn hook entr{}",
                    undone.removed,
                    plural_y(undone.removed)
                ));
            }
            if undone.statusline {
                summary.push("removed cairn's status line".to_string());
            }
            let summary = summary.join("; ");
            if delete {
                removed.insert(settings_path.clone());
            }
            changes.push(file(settings_path, Some(before), after, summary));
            if restores_backup {
                changes.push(backup(
                    backup_path.clone(),
                    saved,
                    None,
                    "same as the restored settings",
                ));
                removed.insert(backup_path);
            }
            if delete && let Some(record) = record {
                let was = read_opt(&record, verb)?;
                changes.push(FileChange {
                    kind: EntryKind::Record,
                    ..file(record, was, None, "")
                });
            }
        }
    }
    if read_opt(&root.join(SETTINGS_LOCAL), verb)?.is_some_and(|t| settings::mentions_cairn(&t)) {
        notes.push(format!("{SETTINGS_LOCAL} still runs cairn hook; cairn install never writes it, remove it there by hand."));
    }

    let gitignore_path = root.join(GITIGNORE);
    if let Some(before) = read_opt(&gitignore_path, verb)?
        && let Some(after) = gitignore::uninstall(&before)
    {
        let after = (!after.is_empty()).then_some(after);
        if after.is_none() {
            removed.insert(gitignore_path.clone());
        }
        let why = if after.is_some() {
            "removed cairn's block"
        } else {
            "it held only cairn's block"
        };
        changes.push(file(gitignore_path, Some(before), after, why));
    }
    gitattributes::plan_uninstall(root, verb, &mut changes, &mut removed)?;

    for (name, content) in SKILLS {
        let path = skill_path(root, name);
        match read_opt(&path, verb)? {
            Some(current) if same_skill(&current, content) || former_skill(name, &current) => {
                changes.push(file(path.clone(), Some(current), None, format!("skill /{name}")));
                removed.insert(path);
            }
            Some(_) => notes.push(format!(
                "kept {}: it differs from cairn's (edited?); delete it yourself if you no longer want it.",
                display(root, &path)
            )),
            None => {}
        }
    }
    let claude = root.join(".claude");
    let skills = claude.join("skills");
    let folders = SKILLS
        .iter()
        .map(|(name, _)| skills.join(name))
        .chain([skills.clone(), claude]);
    for folder in folders.collect::<Vec<_>>() {
        if emptied_by(&folder, &removed) {
            changes.push(dir(folder.clone(), false));
            removed.insert(folder);
        }
    }

    if root.join(MEMORY_DIR).is_dir() {
        notes.push(format!("kept {MEMORY_DIR}/: it holds your session memory; delete it yourself if you no longer want it."));
    }

    Ok(Plan {
        root: root.to_path_buf(),
        changes,
        notes,
        lock_path: opts.lock_path.clone(),
        verb,
    })
}

/// The settings text with cairn's status line (`None`: unchanged), the line
/// describing the change, and a note for a status line kept.
type StatusPlan = (Option<String>, Option<String>, Option<String>);

fn plan_statusline(
    text: Option<&str>,
    program: &str,
    path: &Path,
    verb: &'static str,
) -> Result<StatusPlan, InstallError> {
    let done = statusline::install(text.unwrap_or(""), program)
        .map_err(|p| settings_error(path, p, verb))?;
    Ok(match done {
        statusline::Installed::Changed { text, repointed } => {
            let line = if repointed {
                format!("status line now runs `{}`", statusline::command(program))
            } else {
                "status line added".to_string()
            };
            (Some(text), Some(line), None)
        }
        statusline::Installed::AlreadyOurs => (None, None, None),
        statusline::Installed::KeptUsers(cmd) => (
            None,
            None,
            Some(format!(
                "kept your status line (`{cmd}`); set its command to `{}` to use cairn's.",
                statusline::command(program)
            )),
        ),
    })
}

struct Stripped {
    text: String,
    removed: usize,
    statusline: bool,
    empty: bool,
}

/// The settings text without cairn's hooks and status line (except those in
/// `keep.theirs`, and the status line when `their_status`); `None` when it
/// had none of cairn's own.
fn strip_cairn(
    text: &str,
    keep: &settings::Keep,
    their_status: bool,
) -> Result<Option<Stripped>, settings::Problem> {
    let hooks = settings::uninstall(text, keep)?;
    let (after_hooks, removed) = match &hooks {
        Some(u) => (u.text.as_str(), u.removed),
        None => (text, 0),
    };
    let status = if their_status {
        None
    } else {
        statusline::uninstall(after_hooks)?
    };
    if hooks.is_none() && status.is_none() {
        return Ok(None);
    }
    let statusline = status.is_some();
    let text = status.unwrap_or_else(|| after_hooks.to_string());
    let empty = serde_json::from_str::<serde_json::Value>(settings::split_bom(&text).1)
        .is_ok_and(|v| v.as_object().is_some_and(|o| o.is_empty()));
    Ok(Some(Stripped {
        text,
        removed,
        statusline,
        empty,
    }))
}

/// The settings as they were before cairn first edited them: `None` when
/// cairn created the file. While the file holds a cairn registration, that
/// is the backup if there is one (kept from the first install on), else the
/// file itself: a registration with neither record nor backup was not made
/// here. A file without any is its own original (a backup or record left
/// from an earlier install is stale).
fn original_settings<'a>(
    current: Option<&'a str>,
    backup: Option<&'a str>,
    created: bool,
) -> Option<&'a str> {
    let current = current?;
    if !(settings::mentions_cairn(current) || statusline::mentions_cairn(current)) {
        return Some(current);
    }
    if created {
        return None;
    }
    backup.or(Some(current))
}

/// Do two settings texts mean the same, key order included? A blank file
/// means `{}`.
fn same_settings(a: &str, b: &str) -> bool {
    let value = |t: &str| {
        let body = settings::split_bom(t).1;
        if body.trim().is_empty() {
            Ok(serde_json::Value::Object(serde_json::Map::new()))
        } else {
            serde_json::from_str::<serde_json::Value>(body)
        }
    };
    match (value(a), value(b)) {
        (Ok(a), Ok(b)) => serde_json::to_string(&a).ok() == serde_json::to_string(&b).ok(),
        _ => false,
    }
}

/// What install left of a settings file's past: the backup of the file as
/// it was before cairn first edited it, and the record that cairn created it.
struct SettingsPast {
    backup_path: PathBuf,
    saved: Option<String>,
    record: Option<PathBuf>,
    created: bool,
}

fn settings_past(
    root: &Path,
    opts: &InstallOptions,
    settings_path: &Path,
    verb: &'static str,
) -> Result<SettingsPast, InstallError> {
    let backup_path = root.join(SETTINGS_BACKUP);
    let saved = read_opt(&backup_path, verb)?;
    let record = opts
        .record_dir
        .as_deref()
        .map(|d| record_path(d, settings_path));
    let created = record.as_deref().is_some_and(Path::exists);
    Ok(SettingsPast {
        backup_path,
        saved,
        record,
        created,
    })
}

/// Where install notes that it created `settings`: one file per settings
/// path, named by its hash.
fn record_path(record_dir: &Path, settings: &Path) -> PathBuf {
    let h = crate::usage::store::hash(&[settings.to_string_lossy().as_bytes()]);
    record_dir.join(format!("created-{h:016x}"))
}

fn plural_y(n: usize) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}

/// A checkout with `core.autocrlf` turns cairn's skill into CRLF; that is
/// still cairn's text, not the user's edit.
fn same_skill(current: &str, ours: &str) -> bool {
    current == ours || current.replace("\r\n", "\n") == ours
}

/// Dotfile managers symlink settings files: write through the link rather
/// than replace it with a plain file.
fn write_target(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

fn skill_path(root: &Path, name: &str) -> PathBuf {
    root.join(".claude/skills").join(name).join("SKILL.md")
}

fn disables_hooks(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}'))
        .is_ok_and(|v| v.get("disableAllHooks") == Some(&serde_json::Value::Bool(true)))
}

/// Would `folder` be left empty by removing `removed`, and only because of
/// that? A folder that was already empty is not ours to remove.
fn emptied_by(folder: &Path, removed: &HashSet<PathBuf>) -> bool {
    let Ok(entries) = fs::read_dir(folder) else {
        return false;
    };
    let mut any = false;
    for entry in entries {
        let Ok(entry) = entry else { return false };
        if !removed.contains(&entry.path()) {
            return false;
        }
        any = true;
    }
    any
}

fn display(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.to_string_lossy().replace('\\', "/")
}

fn current_state(change: &FileChange) -> anyhow::Result<Option<String>> {
    match change.kind {
        EntryKind::GitConfig(key) => Ok(gitattributes::current(change, key)),
        EntryKind::Dir => Ok(change.path.is_dir().then(String::new)),
        EntryKind::File | EntryKind::Backup | EntryKind::Record => {
            match crate::fsutil::confine::read(&change.path) {
                Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e).with_context(|| format!("cannot read {}", change.path.display())),
            }
        }
    }
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// A unified diff of every change (folders as `mkdir`/`rmdir` lines).
    pub fn diff(&self) -> String {
        let mut out = String::new();
        for c in &self.changes {
            let rel = display(&self.root, &c.path);
            match (c.kind, &c.after) {
                (EntryKind::GitConfig(key), after) => {
                    let _ = writeln!(out, "{}", gitattributes::describe(key, after.as_deref()));
                    continue;
                }
                (EntryKind::Dir, Some(_)) => {
                    let _ = writeln!(out, "mkdir {rel}/");
                    continue;
                }
                (EntryKind::Dir, None) => {
                    let _ = writeln!(out, "rmdir {rel}/");
                    continue;
                }
                (EntryKind::Backup, Some(_)) => {
                    let _ = writeln!(out, "write {rel} ({})", c.summary);
                    continue;
                }
                (EntryKind::Backup, None) => {
                    let _ = writeln!(out, "rm {rel} ({})", c.summary);
                    continue;
                }
                (EntryKind::Record, _) => continue,
                (EntryKind::File, _) => {}
            }
            let old_name = if c.before.is_some() {
                format!("a/{rel}")
            } else {
                "/dev/null".into()
            };
            let new_name = if c.after.is_some() {
                format!("b/{rel}")
            } else {
                "/dev/null".into()
            };
            let old = c.before.as_deref().unwrap_or("");
            let new = c.after.as_deref().unwrap_or("");
            if old == new {
                // An empty file created or removed: no lines to show.
                let _ = writeln!(out, "--- {old_name}\n+++ {new_name}");
                continue;
            }
            let diff = similar::TextDiff::from_lines(old, new);
            let _ = write!(
                out,
                "{}",
                diff.unified_diff()
                    .context_radius(3)
                    .header(&old_name, &new_name)
            );
        }
        out
    }

    /// Writes the plan (each file atomically) and returns one line per change.
    /// Refuses, before writing anything, if a file is no longer what the
    /// plan was computed from.
    pub fn apply(&self) -> anyhow::Result<Vec<String>> {
        let _lock = match &self.lock_path {
            Some(p) => Some(crate::fsutil::lock(p)?),
            None => None,
        };
        for c in &self.changes {
            if current_state(c)? != c.before {
                bail!(
                    "{} changed while `{}` was running; nothing was written, run it again",
                    display(&self.root, &c.path),
                    self.verb
                );
            }
        }
        let mut lines = Vec::with_capacity(self.changes.len());
        for c in &self.changes {
            let p = &c.path;
            match (c.kind, &c.after) {
                (EntryKind::GitConfig(key), after) => {
                    gitattributes::git_config_set(p, key, after.as_deref())?
                }
                (EntryKind::File | EntryKind::Backup, Some(text)) => {
                    crate::fsutil::atomic_write(&write_target(p), text.as_bytes())?
                }
                (EntryKind::Record, Some(text)) => {
                    crate::fsutil::atomic_write(p, text.as_bytes())?;
                    continue;
                }
                (EntryKind::File | EntryKind::Backup, None) => {
                    fs::remove_file(p).with_context(|| format!("cannot remove {}", p.display()))?
                }
                (EntryKind::Record, None) => {
                    match fs::remove_file(p) {
                        Err(e) if e.kind() != io::ErrorKind::NotFound => {
                            Err(e).with_context(|| format!("cannot remove {}", p.display()))?
                        }
                        _ => {}
                    }
                    continue;
                }
                (EntryKind::Dir, Some(_)) => fs::create_dir_all(p)
                    .with_context(|| format!("cannot create {}", p.display()))?,
                (EntryKind::Dir, None) => {
                    fs::remove_dir(p).with_context(|| format!("cannot remove {}", p.display()))?
                }
            }
            lines.push(c.describe(&self.root));
        }
        Ok(lines)
    }
}

impl FileChange {
    /// `created .claude/skills/memory_load/SKILL.md: skill /memory_load`.
    pub fn describe(&self, root: &Path) -> String {
        if let EntryKind::GitConfig(key) = self.kind {
            return gitattributes::describe(key, self.after.as_deref());
        }
        let verb = match (&self.before, &self.after) {
            (None, _) => "created",
            (_, None) => "removed",
            _ => "updated",
        };
        let slash = if self.kind == EntryKind::Dir { "/" } else { "" };
        let rel = display(root, &self.path);
        if self.summary.is_empty() {
            format!("{verb} {rel}{slash}")
        } else {
            format!("{verb} {rel}{slash}: {}", self.summary)
        }
    }
}

/// What `cairn install --user` would change: cairn's status line in the
/// user's settings (`settings_path`, usually `~/.claude/settings.json`).
/// Hooks are not written there: they belong to a project or to the plugin,
/// and a second registration would run every hook twice.
pub fn plan_user_install(
    settings_path: &Path,
    opts: &InstallOptions,
) -> Result<Plan, InstallError> {
    let verb = "cairn install --user";
    let root = settings_path.parent().unwrap_or(Path::new("."));
    let mut changes = Vec::new();
    let mut notes = Vec::new();
    let before = read_opt(settings_path, verb)?;
    let (text, line, note) =
        plan_statusline(before.as_deref(), &opts.command, settings_path, verb)?;
    if let Some(text) = text {
        changes.extend(settings_backup(
            backup_path_of(settings_path),
            &before,
            verb,
        )?);
        changes.push(file(
            settings_path.to_path_buf(),
            before.clone(),
            Some(text),
            line.unwrap_or_default(),
        ));
        notes.push("The status line shows in sessions started from now on.".to_string());
    }
    notes.extend(note);
    Ok(Plan {
        root: root.to_path_buf(),
        changes,
        notes,
        lock_path: opts.lock_path.clone(),
        verb,
    })
}

/// What `cairn uninstall --user` would change: cairn's status line out of
/// the user's settings, nothing else.
pub fn plan_user_uninstall(
    settings_path: &Path,
    opts: &InstallOptions,
) -> Result<Plan, InstallError> {
    let verb = "cairn uninstall --user";
    let root = settings_path.parent().unwrap_or(Path::new("."));
    let mut changes = Vec::new();
    if let Some(before) = read_opt(settings_path, verb)?
        && let Some(after) =
            statusline::uninstall(&before).map_err(|p| settings_error(settings_path, p, verb))?
    {
        let backup_path = backup_path_of(settings_path);
        let saved = read_opt(&backup_path, verb)?;
        // Back to the text the backup holds: the backup is now a stray copy.
        let drop_backup = saved.as_deref() == Some(after.as_str());
        changes.push(file(
            settings_path.to_path_buf(),
            Some(before),
            Some(after),
            "removed cairn's status line",
        ));
        if drop_backup {
            changes.push(backup(
                backup_path,
                saved,
                None,
                "same as the restored settings",
            ));
        }
    }
    Ok(Plan {
        root: root.to_path_buf(),
        changes,
        notes: Vec::new(),
        lock_path: opts.lock_path.clone(),
        verb,
    })
}

/// A copy of the settings about to change, unless the backup already holds
/// exactly that text (a file install created has nothing to back up).
fn settings_backup(
    backup_path: PathBuf,
    previous: &Option<String>,
    verb: &'static str,
) -> Result<Option<FileChange>, InstallError> {
    let Some(previous) = previous else {
        return Ok(None);
    };
    let old = read_opt(&backup_path, verb)?;
    Ok((old.as_deref() != Some(previous.as_str())).then(|| {
        backup(
            backup_path,
            old,
            Some(previous.clone()),
            "backup of the previous settings",
        )
    }))
}

fn backup_path_of(settings_path: &Path) -> PathBuf {
    let mut name = settings_path.file_name().unwrap_or_default().to_os_string();
    name.push(".cairn.bak");
    settings_path.with_file_name(name)
}

/// Plans and (unless `dry_run`) applies a `--user` install.
pub fn run_user_install(settings_path: &Path, opts: &InstallOptions) -> anyhow::Result<String> {
    let plan = plan_user_install(settings_path, opts)?;
    run(
        plan,
        opts.dry_run,
        "cairn's status line is already in your user settings: nothing to change.",
    )
}

/// Plans and (unless `dry_run`) applies a `--user` uninstall.
pub fn run_user_uninstall(settings_path: &Path, opts: &InstallOptions) -> anyhow::Result<String> {
    let plan = plan_user_uninstall(settings_path, opts)?;
    run(
        plan,
        opts.dry_run,
        "cairn's status line is not in your user settings: nothing to remove.",
    )
}

/// Plans and (unless `dry_run`) applies an install; returns what to print.
pub fn run_install(project_root: &Path, opts: &InstallOptions) -> anyhow::Result<String> {
    let plan = plan_install(project_root, opts)?;
    run(
        plan,
        opts.dry_run,
        "cairn is already installed here: nothing to change.",
    )
}

/// Plans and (unless `dry_run`) applies an uninstall; returns what to print.
pub fn run_uninstall(project_root: &Path, opts: &InstallOptions) -> anyhow::Result<String> {
    let plan = plan_uninstall(project_root, opts)?;
    run(
        plan,
        opts.dry_run,
        "cairn is not installed here: nothing to remove.",
    )
}

fn run(plan: Plan, dry_run: bool, nothing: &str) -> anyhow::Result<String> {
    let mut out = String::new();
    if plan.is_empty() {
        let _ = writeln!(out, "{nothing}");
    } else if dry_run {
        out.push_str(&plan.diff());
        let _ = writeln!(out, "(dry run: nothing written)");
    } else {
        for line in plan.apply()? {
            let _ = writeln!(out, "{line}");
        }
    }
    for note in &plan.notes {
        let _ = writeln!(out, "note: {note}");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skills_have_frontmatter_that_calls_the_binary() {
        for (name, text) in SKILLS {
            let front = text
                .strip_prefix("---\n")
                .and_then(|t| t.split("\n---\n").next())
                .unwrap();
            assert!(front.contains(&format!("name: {name}\n")), "{name}");
            assert!(front.contains("description: "), "{name}");
            assert!(front.contains("allowed-tools: Bash(cairn "), "{name}");
        }
        assert!(SKILLS[0].1.contains("cairn memory load $ARGUMENTS"));
        assert!(
            SKILLS[1]
                .1
                .contains("cairn memory promote $ARGUMENTS --dry-run")
        );
        assert!(SKILLS[2].1.contains("cairn audit skill $ARGUMENTS"));
    }

    #[test]
    fn emptied_by_ignores_folders_that_were_already_empty() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("d");
        fs::create_dir(&d).unwrap();
        assert!(!emptied_by(&d, &HashSet::new()));
        fs::write(d.join("f"), "").unwrap();
        assert!(emptied_by(&d, &HashSet::from([d.join("f")])));
        fs::write(d.join("g"), "").unwrap();
        assert!(!emptied_by(&d, &HashSet::from([d.join("f")])));
    }
}
