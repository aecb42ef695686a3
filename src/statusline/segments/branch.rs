//! `branch`: the git branch of the folder the user is in, read from
//! `.git/HEAD` — never by running git, which costs more than the whole
//! render budget on a cold cache.

use super::{Facts, Piece, piece, var};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BranchConfig {
    /// Variables: `$branch` (the branch, or the first 7 characters of the
    /// commit when HEAD is detached).
    pub format: String,
    pub style: String,
    pub disabled: bool,
}

impl Default for BranchConfig {
    fn default() -> Self {
        BranchConfig {
            format: "$branch".into(),
            style: "magenta".into(),
            disabled: false,
        }
    }
}

pub fn render(cfg: &BranchConfig, facts: &Facts) -> Option<Piece> {
    let branch = facts.branch.as_deref()?;
    piece(&cfg.format, &cfg.style, &|v| match v {
        "branch" => var(branch),
        _ => None,
    })
}

/// Folders walked up from the start before giving up; deeper trees are not
/// worth the stats.
const MAX_DEPTH: usize = 64;

/// The branch of the repository containing `start`. `Ok(None)`: not in a
/// repository, or HEAD says nothing usable.
pub fn read_branch(start: &Path) -> io::Result<Option<String>> {
    let Some(git_dir) = find_git_dir(start)? else {
        return Ok(None);
    };
    let head = match crate::fsutil::confine::read_to_string(git_dir.join("HEAD")) {
        Ok(h) => h,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(parse_head(&head))
}

/// `ref: refs/heads/x` → `x`; a detached commit → its short form.
pub fn parse_head(head: &str) -> Option<String> {
    let head = head.trim();
    if let Some(r) = head.strip_prefix("ref:") {
        let r = r.trim();
        let name = r
            .strip_prefix("refs/heads/")
            .or_else(|| r.strip_prefix("refs/"))
            .unwrap_or(r);
        return (!name.is_empty()).then(|| name.to_string());
    }
    let hex = head.len() >= 7 && head.bytes().all(|b| b.is_ascii_hexdigit());
    hex.then(|| head[..7].to_string())
}

/// The nearest `.git` upwards: a folder, or a file saying `gitdir: …`
/// (worktrees and submodules), whose target may be relative.
fn find_git_dir(start: &Path) -> io::Result<Option<PathBuf>> {
    let mut dir = Some(start);
    for _ in 0..MAX_DEPTH {
        let Some(d) = dir else { break };
        let dot_git = d.join(".git");
        match fs::metadata(&dot_git) {
            Ok(m) if m.is_dir() => return Ok(Some(dot_git)),
            Ok(_) => {
                let text = crate::fsutil::confine::read_to_string(&dot_git)?;
                return Ok(text
                    .lines()
                    .find_map(|l| l.strip_prefix("gitdir:"))
                    .map(|p| d.join(p.trim())));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => return Ok(None),
            Err(e) => return Err(e),
        }
        dir = d.parent();
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_of_every_kind() {
        assert_eq!(
            parse_head("ref: refs/heads/main\n").as_deref(),
            Some("main")
        );
        assert_eq!(
            parse_head("ref: refs/heads/feat/x").as_deref(),
            Some("feat/x")
        );
        assert_eq!(
            parse_head("ref: refs/remotes/o/m").as_deref(),
            Some("remotes/o/m")
        );
        assert_eq!(
            parse_head("4320c33aa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6\n").as_deref(),
            Some("4320c33")
        );
        assert_eq!(parse_head("garbage"), None);
        assert_eq!(parse_head(""), None);
    }

    #[test]
    fn finds_head_upwards_and_through_a_worktree_file() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::create_dir_all(repo.join("a/b")).unwrap();
        fs::write(repo.join(".git/HEAD"), "ref: refs/heads/dev\n").unwrap();
        assert_eq!(
            read_branch(&repo.join("a/b")).unwrap().as_deref(),
            Some("dev")
        );

        let wt = dir.path().join("wt");
        fs::create_dir_all(repo.join(".git/worktrees/wt")).unwrap();
        fs::write(
            repo.join(".git/worktrees/wt/HEAD"),
            "ref: refs/heads/side\n",
        )
        .unwrap();
        fs::create_dir_all(&wt).unwrap();
        fs::write(wt.join(".git"), "gitdir: ../repo/.git/worktrees/wt\n").unwrap();
        assert_eq!(read_branch(&wt).unwrap().as_deref(), Some("side"));

        let bare = dir.path().join("nogit");
        fs::create_dir_all(&bare).unwrap();
        // tempdirs live under /tmp, which is not in a repository.
        assert_eq!(read_branch(&bare).unwrap(), None);
    }
}
