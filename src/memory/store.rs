//! Where memory lives on disk: the project root, its projects (root and
//! `projects/<name>/memory_sessions/`), and the paths inside each.

use crate::context::Ctx;
use crate::diag::Level;
use crate::fsutil::confine::{Jail, Kind, Refused};
use crate::memory::config::MemoryConfig;
use std::fs;
use std::path::{Path, PathBuf};

pub const ROOT_PROJECT: &str = "root";
pub const MEMORY_DIR: &str = "memory_sessions";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub name: String,
    /// Folder relative to the project root: `""` for root, `projects/<name>` otherwise.
    pub rel: String,
    /// The project's `memory_sessions/` folder.
    pub dir: PathBuf,
}

impl Project {
    pub fn logs_dir(&self) -> PathBuf {
        self.dir.join("logs")
    }
    pub fn log_path(&self, date: &str) -> PathBuf {
        self.logs_dir().join(format!("{date}.md"))
    }
    pub fn archives_dir(&self) -> PathBuf {
        self.logs_dir().join("archives")
    }
    pub fn debug_dir(&self) -> PathBuf {
        self.logs_dir().join(".debug")
    }
    pub fn long_memory_path(&self) -> PathBuf {
        self.dir.join("long_memory.md")
    }
    pub fn checkpoints_dir(&self) -> PathBuf {
        self.dir.join("checkpoints")
    }
}

/// The memory of one repository. Every memory file is read and written
/// through its [`Jail`]: the repository may be a stranger's clone, with
/// links that point out of it (SPEC §1.11).
#[derive(Debug, Clone)]
pub struct Store {
    pub root: PathBuf,
    pub projects: Vec<Project>,
    pub jail: Jail,
}

/// Says once in the diagnostics log why a memory path was refused.
pub fn report(ctx: &Ctx, r: &Refused) {
    let level = if r.is_hostile() {
        Level::Warn
    } else {
        Level::Error
    };
    ctx.diag(level, "memory", &r.to_string());
}

/// Project names come from config, folder names and LLM answers: only plain
/// identifiers are accepted so none of them can walk out of the tree.
pub fn valid_project_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

impl Store {
    /// Root first, then discovered `projects/*/memory_sessions/` and the
    /// configured ones, sorted by name.
    pub fn discover(root: &Path, config: &MemoryConfig) -> Store {
        let jail = Jail::new(root);
        let mut names: Vec<String> = Vec::new();
        if let Ok(entries) = fs::read_dir(root.join("projects")) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                // A sub-project whose memory folder is a link out of the
                // repository is not a sub-project; reads and writes would
                // refuse it anyway, this keeps it out of listings.
                if valid_project_name(&name)
                    && jail
                        .resolve(&e.path().join(MEMORY_DIR))
                        .is_ok_and(|r| r.kind == Kind::Dir)
                {
                    names.push(name);
                }
            }
        }
        for name in &config.projects {
            if valid_project_name(name) && name != ROOT_PROJECT {
                names.push(name.clone());
            }
        }
        names.sort();
        names.dedup();
        let mut projects = vec![Project {
            name: ROOT_PROJECT.to_string(),
            rel: String::new(),
            dir: root.join(MEMORY_DIR),
        }];
        projects.extend(names.into_iter().map(|name| Project {
            rel: format!("projects/{name}"),
            dir: root.join("projects").join(&name).join(MEMORY_DIR),
            name,
        }));
        Store {
            root: root.to_path_buf(),
            projects,
            jail,
        }
    }

    /// A memory file's text; `None` when it is missing, refused or
    /// unreadable, each refusal said once in the diagnostics log. For
    /// callers that only show memory.
    pub fn read_text(&self, ctx: &Ctx, path: &Path) -> Option<String> {
        match self.jail.read_text(path) {
            Ok(t) => t,
            Err(r) => {
                report(ctx, &r);
                None
            }
        }
    }

    /// [`Store::read_text`] for a read-modify-write: a refusal is an error
    /// (the caller must not write a file it could not read), a missing file
    /// is empty.
    pub fn read_for_update(&self, ctx: &Ctx, path: &Path) -> anyhow::Result<String> {
        match self.jail.read_text(path) {
            Ok(t) => Ok(t.unwrap_or_default()),
            Err(r) => {
                report(ctx, &r);
                Err(r.into())
            }
        }
    }

    /// Replaces a memory file atomically at its real place inside the
    /// project; refused (and said) when that place is outside.
    pub fn write(&self, ctx: &Ctx, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
        let real = self.writable(ctx, path)?;
        crate::fsutil::atomic_write(&real, bytes)
    }

    /// [`Store::write`] without fsync, for `.debug/` copies.
    pub fn write_unsynced(&self, ctx: &Ctx, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
        let real = self.writable(ctx, path)?;
        crate::fsutil::atomic_write_unsynced(&real, bytes)
    }

    /// Where `path` may be written, or the refusal (said once).
    pub fn writable(&self, ctx: &Ctx, path: &Path) -> anyhow::Result<PathBuf> {
        self.jail.writable(path).map_err(|r| {
            report(ctx, &r);
            r.into()
        })
    }

    /// A memory folder's real place inside the project, to create files in.
    pub fn writable_dir(&self, ctx: &Ctx, dir: &Path) -> anyhow::Result<PathBuf> {
        match self.jail.resolve(dir) {
            Ok(r) if r.kind != Kind::File => Ok(r.real),
            Ok(_) => anyhow::bail!("{} is a file, not a folder", dir.display()),
            Err(r) => {
                report(ctx, &r);
                Err(r.into())
            }
        }
    }

    /// The regular files of a memory folder (links followed only inside the
    /// project), sorted by name; refused entries are said.
    pub fn files_in(&self, ctx: &Ctx, dir: &Path) -> Vec<PathBuf> {
        let (entries, refused) = self.jail.list(dir);
        for r in &refused {
            report(ctx, r);
        }
        entries
            .into_iter()
            .filter(|(_, k)| *k == Kind::File)
            .map(|(p, _)| p)
            .collect()
    }

    pub fn project(&self, name: &str) -> Option<&Project> {
        self.projects.iter().find(|p| p.name == name)
    }

    /// `PROJECT|all|None` as the CLI takes it; `None` means every project.
    pub fn select(&self, which: Option<&str>) -> Result<Vec<&Project>, String> {
        match which {
            None | Some("all") => Ok(self.projects.iter().collect()),
            Some(name) => self.project(name).map(|p| vec![p]).ok_or_else(|| {
                format!(
                    "unknown project `{name}`; known: {}",
                    self.projects
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
        }
    }

    /// `(name, rel)` pairs, the shape the extractor's request takes.
    pub fn project_pairs(&self) -> Vec<(String, String)> {
        self.projects
            .iter()
            .map(|p| (p.name.clone(), p.rel.clone()))
            .collect()
    }

    /// The project a working directory belongs to: the deepest
    /// `projects/<name>/…` prefix that names a known project, else root.
    pub fn project_for_dir(&self, cwd: &Path) -> &str {
        if let Ok(rel) = cwd.strip_prefix(&self.root) {
            let mut comps = rel.components();
            if comps
                .next()
                .map(|c| c.as_os_str() == "projects")
                .unwrap_or(false)
                && let Some(name) = comps.next()
                && let Some(p) = self.project(&name.as_os_str().to_string_lossy())
            {
                return &p.name;
            }
        }
        ROOT_PROJECT
    }
}

/// The lock that serialises every write to one repository's memory.
pub fn repo_lock_path(ctx: &Ctx, root: &Path) -> PathBuf {
    // A hash of the path: stable across runs, no path in a file name.
    let h = crate::hash::fnv1a(root.to_string_lossy().as_bytes());
    crate::state_layout::locks(&ctx.state_dir).join(format!("repo-{h:016x}.lock"))
}

/// A hook's project root (SPEC §7): `CLAUDE_PROJECT_DIR`, else walk up from
/// `cwd` to the nearest folder holding `memory_sessions/`, `.cairn.toml` or `.git`.
pub fn find_root(claude_project_dir: Option<&str>, cwd: Option<&Path>) -> Option<PathBuf> {
    if let Some(d) = claude_project_dir.filter(|d| !d.is_empty()) {
        let p = PathBuf::from(d);
        if p.is_dir() {
            return Some(p);
        }
    }
    let mut cur = cwd?;
    loop {
        if cur.join(MEMORY_DIR).is_dir()
            || cur.join(".cairn.toml").is_file()
            || cur.join(".git").exists()
        {
            return Some(cur.to_path_buf());
        }
        cur = cur.parent()?;
    }
}

/// The project root for a user command run from `cwd`.
pub fn root_from(ctx: &Ctx, cwd: &Path) -> anyhow::Result<PathBuf> {
    use anyhow::Context;
    find_root(ctx.env.get("CLAUDE_PROJECT_DIR"), Some(cwd)).with_context(|| {
        format!(
            "no project found from {} (looked for memory_sessions/, .cairn.toml or .git); run `cairn install` in your project",
            cwd.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovers_sub_projects_and_rejects_odd_names() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("memory_sessions")).unwrap();
        fs::create_dir_all(root.join("projects/blog/memory_sessions")).unwrap();
        fs::create_dir_all(root.join("projects/nomem")).unwrap();
        fs::create_dir_all(root.join("projects/.hidden/memory_sessions")).unwrap();
        let store = Store::discover(root, &MemoryConfig::default());
        let names: Vec<_> = store.projects.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["root", "blog"]);
        assert_eq!(
            store.project_for_dir(&root.join("projects/blog/src")),
            "blog"
        );
        assert_eq!(store.project_for_dir(&root.join("projects/nomem")), "root");
        assert_eq!(store.project_for_dir(Path::new("/elsewhere")), "root");
        assert!(
            store
                .select(Some("nope"))
                .unwrap_err()
                .contains("root, blog")
        );
        assert!(!valid_project_name("../x"));
        assert!(!valid_project_name("a/b"));
    }

    #[test]
    fn finds_root_by_markers() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(root.join("a/b")).unwrap();
        assert_eq!(find_root(None, Some(&root.join("a/b"))).unwrap(), root);
        assert_eq!(find_root(Some(root.to_str().unwrap()), None).unwrap(), root);
    }
}
