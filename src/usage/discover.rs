//! Where the client keeps transcripts, and which files make up a session.
//!
//! ```text
//! <config>/projects/<project>/<session>.jsonl                     main thread
//! <config>/projects/<project>/<session>/subagents/agent-<id>.jsonl  subagents (2.0.42+)
//! <config>/projects/<project>/<session>/subagents/workflows/wf_*/agent-*.jsonl
//! <config>/projects/<project>/agent-<id>.jsonl                    subagents, 2.0.x (flat)
//! ```
//! 1.0.x clients wrote subagent turns into the main file as `isSidechain`
//! records; those are split out when the file is read. Flat agent files
//! name their session only inside (`sessionId`), so the first record is
//! read once and remembered in `<state>/usage/flat.json`.

use crate::context::Ctx;
use crate::transcript::StreamReader;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// One transcript file of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    pub path: PathBuf,
    /// `""` for the main thread's file, else the agent id.
    pub agent: String,
}

/// The transcript files of one session, main file first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFiles {
    pub session_id: String,
    /// The project folder's name (the escaped cwd).
    pub project: String,
    pub files: Vec<SessionFile>,
    /// Folders swept for files: while their mtimes hold, no file was added.
    pub dirs: Vec<PathBuf>,
}

/// The config folders the client uses, in the client's order: every entry
/// of `CLAUDE_CONFIG_DIR` (comma-separated, `~` expanded, an entry may name
/// the `projects` folder itself), else `$XDG_CONFIG_HOME/claude` (default
/// `~/.config/claude`) and `~/.claude`. Only folders with a `projects/`
/// folder are returned.
pub fn config_dirs(ctx: &Ctx) -> Vec<PathBuf> {
    let home = ctx.env.get("HOME").filter(|h| !h.is_empty());
    let expand = |s: &str| -> PathBuf {
        match (s.strip_prefix('~'), home) {
            (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => {
                PathBuf::from(format!("{h}{rest}"))
            }
            _ => PathBuf::from(s),
        }
    };
    let mut candidates = Vec::new();
    match ctx
        .env
        .get("CLAUDE_CONFIG_DIR")
        .filter(|s| !s.trim().is_empty())
    {
        Some(list) => {
            for entry in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let p = expand(entry);
                let p = if p.file_name().is_some_and(|n| n == "projects") {
                    p.parent().map(Path::to_path_buf).unwrap_or(p)
                } else {
                    p
                };
                candidates.push(p);
            }
        }
        None => {
            let xdg = ctx
                .env
                .get("XDG_CONFIG_HOME")
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
                .or_else(|| home.map(|h| PathBuf::from(h).join(".config")));
            if let Some(x) = xdg {
                candidates.push(x.join("claude"));
            }
            if let Some(h) = home {
                candidates.push(PathBuf::from(h).join(".claude"));
            }
        }
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for c in candidates {
        if c.join("projects").is_dir() && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Main transcripts (`<config>/projects/<project>/<session>.jsonl`) last
/// written at or after `since_ns` (nanoseconds since the epoch), with
/// their mtimes: a `readdir` per project folder and a `stat` per main
/// file. A session's subagents write while its main file does (the
/// client records their progress there), so the main file's time stands
/// for the session's.
pub fn main_files_written_since(config_dirs: &[PathBuf], since_ns: u64) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    for c in config_dirs {
        let Ok(projects) = fs::read_dir(c.join("projects")) else {
            continue;
        };
        for p in projects.filter_map(Result::ok) {
            if !p.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let Ok(files) = fs::read_dir(p.path()) else {
                continue;
            };
            for f in files.filter_map(Result::ok) {
                let name = f.file_name();
                let Some(name) = name.to_str() else { continue };
                if !name.ends_with(".jsonl") || name.starts_with("agent-") {
                    continue;
                }
                let Ok(m) = f.metadata() else { continue };
                let mtime = crate::transcript::mark::mtime_ns(&m);
                if m.is_file() && mtime >= since_ns {
                    out.push((f.path(), mtime));
                }
            }
        }
    }
    out
}

/// What the folders in a config list would be, for messages when none exist.
pub fn config_dirs_hint(ctx: &Ctx) -> String {
    match ctx
        .env
        .get("CLAUDE_CONFIG_DIR")
        .filter(|s| !s.trim().is_empty())
    {
        Some(v) => format!("CLAUDE_CONFIG_DIR={v}"),
        None => "~/.config/claude/projects and ~/.claude/projects".to_string(),
    }
}

fn is_jsonl(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "jsonl")
}

fn agent_of(p: &Path) -> String {
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    stem.strip_prefix("agent-").unwrap_or(stem).to_string()
}

/// Every `*.jsonl` under `dir` (a session's folder), as agent files; the
/// folders visited go to `dirs`. Depth-limited, symlinks not followed.
fn sweep_session_dir(
    dir: &Path,
    depth: u32,
    files: &mut Vec<SessionFile>,
    dirs: &mut Vec<PathBuf>,
) {
    dirs.push(dir.to_path_buf());
    let Ok(rd) = fs::read_dir(dir) else { return };
    let mut entries: Vec<(PathBuf, fs::FileType)> = rd
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
        .collect();
    // Byte order of the names: the same order as paths within one folder,
    // without comparing component by component.
    entries.sort_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    for (path, ft) in entries {
        if ft.is_dir() {
            // Spilled tool outputs and file snapshots hold no usage.
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if depth < 5 && name != "tool-results" {
                sweep_session_dir(&path, depth + 1, files, dirs);
            }
        } else if ft.is_file() && is_jsonl(&path) {
            let agent = agent_of(&path);
            files.push(SessionFile { path, agent });
        }
    }
}

/// `agent-*.jsonl` files directly in a project folder → their session id.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct FlatCache {
    /// path → (size when read, session id or "" when none was found yet).
    files: BTreeMap<String, (u64, String)>,
    #[serde(skip)]
    dirty: bool,
}

fn flat_cache_path(ctx: &Ctx) -> PathBuf {
    crate::state_layout::usage_flat(&ctx.state_dir)
}

impl FlatCache {
    fn load(ctx: &Ctx) -> FlatCache {
        fs::read(flat_cache_path(ctx))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    fn save(&self, ctx: &Ctx) {
        if !self.dirty {
            return;
        }
        if let Ok(b) = serde_json::to_vec(self) {
            // A cache: losing it costs one read per flat file.
            let _ = crate::fsutil::atomic_write_unsynced(&flat_cache_path(ctx), &b);
        }
    }

    fn session_of(&mut self, path: &Path) -> String {
        let size = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let key = path.to_string_lossy().into_owned();
        if let Some((s, sid)) = self.files.get(&key)
            && (!sid.is_empty() || *s == size)
        {
            return sid.clone();
        }
        let sid = first_session_id(path).unwrap_or_default();
        self.files.insert(key, (size, sid.clone()));
        self.dirty = true;
        sid
    }
}

/// The `sessionId` of the first records of a transcript (64 KiB at most).
fn first_session_id(path: &Path) -> Option<String> {
    let mut r = StreamReader::open(path, 0).ok()?;
    let mut found = None;
    while r.offset() < 64 * 1024 {
        let Ok(Some(line)) = r.next_line() else { break };
        if let Some(rec) = line.record()
            && let Some(s) = rec.session_id.as_deref()
        {
            found = Some(s.to_string());
            break;
        }
    }
    found
}

/// A project folder's sessions: main files, session folders, flat agent
/// files (attributed through the cache).
fn scan_project(
    project_dir: &Path,
    cache: &mut FlatCache,
    out: &mut BTreeMap<String, SessionFiles>,
) {
    let project = project_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok(rd) = fs::read_dir(project_dir) else {
        return;
    };
    let mut entries: Vec<(PathBuf, fs::FileType)> = rd
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
        .collect();
    // Byte order of the names: the same order as paths within one folder,
    // without comparing component by component.
    entries.sort_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    let new_session = |sid: &str| SessionFiles {
        session_id: sid.to_string(),
        project: project.clone(),
        files: Vec::new(),
        dirs: Vec::new(),
    };
    for (path, ft) in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if ft.is_file() && is_jsonl(&path) {
            if name.starts_with("agent-") {
                let sid = cache.session_of(&path);
                if sid.is_empty() {
                    continue;
                }
                let agent = agent_of(&path);
                let s = out.entry(sid.clone()).or_insert_with(|| new_session(&sid));
                s.files.push(SessionFile { path, agent });
                if !s.dirs.contains(&project_dir.to_path_buf()) {
                    s.dirs.push(project_dir.to_path_buf());
                }
            } else {
                let sid = name.trim_end_matches(".jsonl").to_string();
                let s = out.entry(sid.clone()).or_insert_with(|| new_session(&sid));
                s.project = project.clone();
                // Main file first.
                s.files.insert(
                    0,
                    SessionFile {
                        path,
                        agent: String::new(),
                    },
                );
            }
        } else if ft.is_dir() {
            let s = out
                .entry(name.clone())
                .or_insert_with(|| new_session(&name));
            let (mut files, mut dirs) = (Vec::new(), Vec::new());
            sweep_session_dir(&path, 0, &mut files, &mut dirs);
            s.files.extend(files);
            s.dirs.extend(dirs);
        }
    }
}

/// Every session under every config folder, by session id. A session
/// found in two config folders (a copied `~/.claude`) is one session; its
/// duplicated lines are merged by the dedupe.
pub fn all_sessions(ctx: &Ctx, config_dirs: &[PathBuf]) -> BTreeMap<String, SessionFiles> {
    let mut cache = FlatCache::load(ctx);
    let mut out = BTreeMap::new();
    for c in config_dirs {
        let Ok(rd) = fs::read_dir(c.join("projects")) else {
            continue;
        };
        let mut projects: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        projects.sort();
        for p in projects {
            scan_project(&p, &mut cache, &mut out);
        }
    }
    // A folder holding only tool results is not a session.
    out.retain(|_, s| !s.files.is_empty());
    for s in out.values_mut() {
        // Every session depends on its project folder (new flat files).
        if let Some(main) = s.files.first().filter(|f| f.agent.is_empty())
            && let Some(p) = main.path.parent()
            && !s.dirs.iter().any(|d| d == p)
        {
            s.dirs.insert(0, p.to_path_buf());
        }
    }
    cache.save(ctx);
    out
}

/// The files of the session whose main transcript is `main`: the main
/// file, its session folder swept recursively, and flat agent files of
/// older clients in the same project folder.
pub fn session_of_transcript(ctx: &Ctx, main: &Path) -> SessionFiles {
    let sid = main
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let project_dir = main.parent().unwrap_or(Path::new(".")).to_path_buf();
    let project = project_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut files = vec![SessionFile {
        path: main.to_path_buf(),
        agent: String::new(),
    }];
    let mut dirs = vec![project_dir.clone()];
    sweep_session_dir(&project_dir.join(&sid), 0, &mut files, &mut dirs);
    // Flat agent files (2.0.x): only read a file's first line once.
    let mut flat = Vec::new();
    if let Ok(rd) = fs::read_dir(&project_dir) {
        for e in rd.filter_map(Result::ok) {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("agent-") && name.ends_with(".jsonl") {
                flat.push(e.path());
            }
        }
    }
    if !flat.is_empty() {
        flat.sort();
        let mut cache = FlatCache::load(ctx);
        for path in flat {
            if cache.session_of(&path) == sid {
                let agent = agent_of(&path);
                files.push(SessionFile { path, agent });
            }
        }
        cache.save(ctx);
    }
    SessionFiles {
        session_id: sid,
        project,
        files,
        dirs,
    }
}

pub use crate::transcript::{is_compaction_agent, is_compaction_file};

/// `agentType` from a subagent's `.meta.json` sidecar, if any.
pub fn agent_type(agent_file: &Path) -> Option<String> {
    let meta = agent_file.with_extension("meta.json");
    let bytes = fs::read(meta).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    v.get("agentType")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Clock, Env};

    fn ctx(pairs: &[(&str, String)]) -> Ctx {
        Ctx::new(Env::from_pairs(pairs.iter().cloned()), Clock::System)
    }

    #[test]
    fn config_dirs_follow_the_client() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("home");
        for p in [
            ".claude/projects",
            ".config/claude/projects",
            "a/projects",
            "b/projects",
        ] {
            fs::create_dir_all(home.join(p)).unwrap();
        }
        let h = home.display().to_string();
        // Defaults: XDG (~/.config/claude) then ~/.claude.
        let c = ctx(&[("HOME", h.clone())]);
        assert_eq!(
            config_dirs(&c),
            [home.join(".config/claude"), home.join(".claude")]
        );
        // A comma list; `~` expanded; an entry may name `projects`; missing
        // and repeated entries dropped.
        let c = ctx(&[
            ("HOME", h.clone()),
            (
                "CLAUDE_CONFIG_DIR",
                " ~/a , ~/b/projects,~/nope,~/a".to_string(),
            ),
        ]);
        assert_eq!(config_dirs(&c), [home.join("a"), home.join("b")]);
        assert!(config_dirs_hint(&c).contains("CLAUDE_CONFIG_DIR"));
    }

    #[test]
    fn sessions_gather_main_folder_and_flat_agent_files() {
        let d = tempfile::tempdir().unwrap();
        let proj = d.path().join("cfg/projects/-p");
        fs::create_dir_all(proj.join("s1/subagents/workflows/wf_1")).unwrap();
        fs::create_dir_all(proj.join("s1/tool-results")).unwrap();
        fs::write(proj.join("s1.jsonl"), "").unwrap();
        fs::write(proj.join("s1/subagents/agent-x.jsonl"), "").unwrap();
        fs::write(proj.join("s1/subagents/workflows/wf_1/agent-y.jsonl"), "").unwrap();
        fs::write(proj.join("s1/tool-results/t.jsonl"), "").unwrap();
        fs::write(proj.join("s2.jsonl"), "").unwrap();
        fs::write(
            proj.join("agent-abc1234.jsonl"),
            "{\"type\":\"user\",\"sessionId\":\"s2\",\"agentId\":\"abc1234\"}\n",
        )
        .unwrap();
        let c = ctx(&[(
            "CAIRN_STATE_DIR",
            d.path().join("state").display().to_string(),
        )]);
        let all = all_sessions(&c, &[d.path().join("cfg")]);
        let agents =
            |s: &SessionFiles| -> Vec<String> { s.files.iter().map(|f| f.agent.clone()).collect() };
        assert_eq!(agents(&all["s1"]), ["", "x", "y"]);
        assert_eq!(agents(&all["s2"]), ["", "abc1234"]);
        assert_eq!(all["s1"].project, "-p");
        let one = session_of_transcript(&c, &proj.join("s2.jsonl"));
        assert_eq!(agents(&one), ["", "abc1234"]);
        let one = session_of_transcript(&c, &proj.join("s1.jsonl"));
        assert_eq!(agents(&one), ["", "x", "y"]);
    }
}
