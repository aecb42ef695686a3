//! Where skills live (research §2.2) and what one skill is made of: its
//! SKILL.md (or legacy command file), header, doc under `docs/skills/` and
//! the files its text points at.

use super::frontmatter::{self, Frontmatter};
use crate::context::Ctx;
use std::fs;
use std::path::{Path, PathBuf};

/// SKILL.md files larger than this are measured but only their head is read:
/// a 5 MB skill is already the finding, and its text is not needed whole.
pub const MAX_READ: u64 = 2 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Project,
    User,
    /// The plugin's name.
    Plugin(String),
    /// A legacy `.claude/commands/*.md` file (project or user).
    Command,
}

impl Scope {
    pub fn label(&self) -> String {
        match self {
            Scope::Project => "project".into(),
            Scope::User => "user".into(),
            Scope::Plugin(p) => format!("plugin {p}"),
            Scope::Command => "command".into(),
        }
    }
}

/// A skill found on disk, not read yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// What the user types after `/` (plugins: `plugin:name`).
    pub name: String,
    pub scope: Scope,
    /// The SKILL.md or the command file.
    pub path: PathBuf,
}

impl Found {
    /// The folder relative references are resolved against.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// The bare name (no plugin prefix), as reports and docs spell it.
    pub fn short_name(&self) -> &str {
        self.name.rsplit(':').next().unwrap_or(&self.name)
    }
}

/// Every skill visible from project `root`, in precedence order: project
/// skills, project commands, user skills and commands, plugin skills.
pub fn discover(ctx: &Ctx, root: &Path) -> Vec<Found> {
    let mut out = Vec::new();
    let project = root.join(".claude");
    skills_in(&project.join("skills"), Scope::Project, None, &mut out);
    commands_in(&project.join("commands"), &mut out);
    for dir in user_dirs(ctx) {
        skills_in(&dir.join("skills"), Scope::User, None, &mut out);
        commands_in(&dir.join("commands"), &mut out);
        plugins_in(&dir.join("plugins"), &mut out);
    }
    // The same name twice: the first (highest precedence) wins, as in the
    // client, except that a skill beats a command of the same name.
    let mut seen: Vec<Found> = Vec::new();
    for f in out {
        match seen.iter().position(|s| s.name == f.name) {
            Some(i) if seen[i].scope == Scope::Command && f.scope != Scope::Command => {
                seen[i] = f;
            }
            Some(_) => {}
            None => seen.push(f),
        }
    }
    seen
}

/// `CLAUDE_CONFIG_DIR` entries, else `~/.claude`.
fn user_dirs(ctx: &Ctx) -> Vec<PathBuf> {
    let home = ctx.env.get("HOME").filter(|h| !h.is_empty());
    match ctx
        .env
        .get("CLAUDE_CONFIG_DIR")
        .filter(|s| !s.trim().is_empty())
    {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| match (s.strip_prefix('~'), home) {
                (Some(rest), Some(h)) => PathBuf::from(format!("{h}{rest}")),
                _ => PathBuf::from(s),
            })
            .collect(),
        None => home
            .map(|h| vec![PathBuf::from(h).join(".claude")])
            .unwrap_or_default(),
    }
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn skills_in(dir: &Path, scope: Scope, plugin: Option<&str>, out: &mut Vec<Found>) {
    for d in sorted_entries(dir) {
        let md = d.join("SKILL.md");
        if !md.is_file() {
            continue;
        }
        let Some(folder) = d.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let name = match plugin {
            Some(p) => format!("{p}:{folder}"),
            None => folder,
        };
        out.push(Found {
            name,
            scope: scope.clone(),
            path: md,
        });
    }
}

fn commands_in(dir: &Path, out: &mut Vec<Found>) {
    for f in sorted_entries(dir) {
        if f.extension().is_some_and(|e| e == "md") && f.is_file() {
            let name = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push(Found {
                name,
                scope: Scope::Command,
                path: f,
            });
        }
    }
}

/// Plugin skills: any `skills/<name>/SKILL.md` under the client's plugin
/// folder (`cache/<marketplace>/<plugin>/<version>/skills/…` today), named
/// after the plugin's manifest, else the folder above the version.
fn plugins_in(dir: &Path, out: &mut Vec<Found>) {
    fn walk(d: &Path, depth: usize, out: &mut Vec<Found>) {
        if depth > 5 {
            return;
        }
        for e in sorted_entries(d) {
            if !e.is_dir()
                || e.file_name()
                    .is_some_and(|n| n == "node_modules" || n == ".git")
            {
                continue;
            }
            if e.file_name().is_some_and(|n| n == "skills") {
                skills_in(
                    &e,
                    Scope::Plugin(plugin_name(d)),
                    Some(&plugin_name(d)),
                    out,
                );
            } else {
                walk(&e, depth + 1, out);
            }
        }
    }
    walk(dir, 0, out);
}

fn plugin_name(root: &Path) -> String {
    let manifest = root.join(".claude-plugin").join("plugin.json");
    if let Ok(text) = crate::fsutil::confine::read_to_string(manifest)
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
        && let Some(n) = v.get("name").and_then(|n| n.as_str())
    {
        return n.to_string();
    }
    let base = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let last = base(root);
    // `…/<plugin>/<version>`: a version folder starts with a digit.
    if last.chars().next().is_some_and(|c| c.is_ascii_digit())
        && let Some(parent) = root.parent()
    {
        return base(parent);
    }
    last
}

/// Finds `name` among `found`: exact name, then the bare name of a plugin
/// skill (`brainstorming` for `superpowers:brainstorming`), then the same
/// name with `-` and `_` taken as equal.
pub fn find<'a>(found: &'a [Found], name: &str) -> Option<&'a Found> {
    let norm = |s: &str| s.trim_start_matches('/').replace('-', "_").to_lowercase();
    let want = norm(name);
    found
        .iter()
        .find(|f| f.name == name.trim_start_matches('/'))
        .or_else(|| found.iter().find(|f| norm(f.short_name()) == want))
        .or_else(|| found.iter().find(|f| norm(&f.name) == want))
}

/// One skill, read.
#[derive(Debug, Clone)]
pub struct Skill {
    pub found: Found,
    /// Size on disk of the SKILL.md.
    pub size: u64,
    /// Its text (lossy UTF-8, at most [`MAX_READ`] bytes).
    pub text: String,
    pub not_utf8: bool,
    pub truncated: bool,
    pub fm: Frontmatter,
    /// Byte offset of the body in `text`.
    pub body_start: usize,
    /// `docs/skills/<kebab-name>.md` when it exists, and its size.
    pub doc: Option<(PathBuf, u64)>,
}

impl Skill {
    pub fn body(&self) -> &str {
        &self.text[self.body_start..]
    }

    pub fn name(&self) -> &str {
        self.found.short_name()
    }

    pub fn description(&self) -> String {
        let mut d = self.fm.get("description").unwrap_or("").to_string();
        if d.is_empty() {
            // The client falls back to the body's first line.
            d = self
                .body()
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("")
                .trim_start_matches('#')
                .trim()
                .to_string();
        }
        if let Some(w) = self.fm.get("when_to_use") {
            d.push(' ');
            d.push_str(w);
        }
        d
    }

    /// `metadata.project`, else `parent` (the seeds' rule).
    pub fn project(&self) -> String {
        self.fm
            .get("metadata.project")
            .unwrap_or("parent")
            .to_string()
    }
}

/// The listing line the client keeps in context on every request: name and
/// description, the description capped at 1 536 characters (research §2.3).
pub fn listing_chars(skill: &Skill) -> usize {
    let d: String = skill.description().chars().take(1536).collect();
    skill.found.name.chars().count() + 4 + d.chars().count()
}

/// Reads a found skill. Never fails on content: unreadable bytes are
/// replaced, a huge file is cut, a broken header is noted.
pub fn read(root: &Path, found: &Found) -> std::io::Result<Skill> {
    use std::io::Read;
    let file = crate::fsutil::confine::open_regular(&found.path)?;
    let size = file.metadata()?.len();
    let mut bytes = Vec::new();
    file.take(MAX_READ).read_to_end(&mut bytes)?;
    let truncated = size > bytes.len() as u64;
    let (text, not_utf8) = match String::from_utf8(bytes) {
        Ok(t) => (t, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    };
    let (fm, body) = frontmatter::split(&text);
    let body_start = text.len() - body.len();
    let kebab = found.short_name().replace('_', "-");
    let doc = [
        root.join("docs/skills").join(format!("{kebab}.md")),
        root.join("docs/skills")
            .join(format!("{}.md", found.short_name())),
    ]
    .into_iter()
    .find_map(|p| {
        fs::metadata(&p)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| (p, m.len()))
    });
    Ok(Skill {
        found: found.clone(),
        size,
        text,
        not_utf8,
        truncated,
        fm,
        body_start,
        doc,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Clock, Env};

    fn ctx_for(home: &Path, config: Option<&Path>) -> Ctx {
        let mut pairs = vec![("HOME".to_string(), home.display().to_string())];
        if let Some(c) = config {
            pairs.push(("CLAUDE_CONFIG_DIR".into(), c.display().to_string()));
        }
        Ctx::new(
            Env::from_pairs(pairs),
            Clock::Fixed(jiff::Timestamp::UNIX_EPOCH),
        )
    }

    fn write(p: &Path, s: &str) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, s).unwrap();
    }

    #[test]
    fn finds_project_user_plugin_and_command_skills_in_precedence_order() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        let cfg = t.path().join("cfg");
        write(
            &root.join(".claude/skills/a/SKILL.md"),
            "---\nname: a\n---\n",
        );
        write(&root.join(".claude/commands/deploy.md"), "Deploy.\n");
        write(
            &root.join(".claude/commands/a.md"),
            "shadowed by the skill\n",
        );
        write(&cfg.join("skills/b/SKILL.md"), "b\n");
        write(&cfg.join("skills/a/SKILL.md"), "user a, shadowed\n");
        write(
            &cfg.join("plugins/cache/mk/superpowers/6.1.1/skills/brainstorming/SKILL.md"),
            "x\n",
        );
        write(
            &cfg.join("plugins/cache/mk/superpowers/6.1.1/skills/notaskill/README.md"),
            "",
        );
        let ctx = ctx_for(t.path(), Some(&cfg));
        let found = discover(&ctx, &root);
        let names: Vec<(String, String)> = found
            .iter()
            .map(|f| (f.name.clone(), f.scope.label()))
            .collect();
        assert_eq!(
            names,
            [
                ("a".to_string(), "project".to_string()),
                ("deploy".into(), "command".into()),
                ("b".into(), "user".into()),
                (
                    "superpowers:brainstorming".into(),
                    "plugin superpowers".into()
                ),
            ]
        );
        assert_eq!(
            find(&found, "brainstorming").unwrap().name,
            "superpowers:brainstorming"
        );
        assert_eq!(find(&found, "/deploy").unwrap().scope, Scope::Command);
        assert!(find(&found, "nope").is_none());
    }

    #[test]
    fn reads_non_utf8_and_finds_the_kebab_doc() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        let p = root.join(".claude/skills/mon_skill/SKILL.md");
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, b"---\nname: mon_skill\n---\nCaf\xe9 \xff\n").unwrap();
        write(&root.join("docs/skills/mon-skill.md"), "doc\n");
        let found = Found {
            name: "mon_skill".into(),
            scope: Scope::Project,
            path: p,
        };
        let s = read(root, &found).unwrap();
        assert!(s.not_utf8);
        assert_eq!(s.fm.get("name"), Some("mon_skill"));
        assert!(s.body().starts_with("Caf"));
        assert_eq!(s.doc.as_ref().unwrap().1, 4);
    }
}
