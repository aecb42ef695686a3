//! Branch and last commit for the hand-off note, read straight from `.git`
//! (`HEAD`, the ref file or `packed-refs`, the last reflog line): three small
//! reads instead of spawning `git`, which costs tens of milliseconds and may
//! not even be on the hook's PATH.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitInfo {
    /// `None` on a detached HEAD.
    pub branch: Option<String>,
    /// Full hash of the commit HEAD points at; `None` before the first commit.
    pub commit: Option<String>,
    /// Its subject, when the last reflog entry is that commit being made.
    pub subject: Option<String>,
}

/// How far up from the working directory a `.git` is looked for.
const MAX_DEPTH: usize = 64;

/// The repository holding `start`, if any.
pub fn git_info(start: &Path) -> Option<GitInfo> {
    let (git_dir, common_dir) = find_git_dir(start)?;
    let head = crate::fsutil::confine::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let mut info = GitInfo::default();
    if let Some(refname) = head.strip_prefix("ref:").map(str::trim) {
        info.branch = Some(
            refname
                .strip_prefix("refs/heads/")
                .unwrap_or(refname)
                .to_string(),
        );
        info.commit = resolve_ref(&git_dir, &common_dir, refname);
    } else if is_hash(head) {
        info.commit = Some(head.to_string());
    }
    if let Some(c) = &info.commit {
        info.subject = reflog_subject(&git_dir, c);
    }
    Some(info)
}

/// `(git dir, common dir)`. A worktree or submodule has a `.git` file
/// pointing at its git dir, whose `commondir` names where refs live.
fn find_git_dir(start: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut cur = Some(start);
    for _ in 0..MAX_DEPTH {
        let dir = cur?;
        let dot = dir.join(".git");
        if dot.is_dir() {
            return Some((dot.clone(), dot));
        }
        if dot.is_file() {
            let text = crate::fsutil::confine::read_to_string(&dot).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            let git_dir = dir.join(target);
            let common = crate::fsutil::confine::read_to_string(git_dir.join("commondir"))
                .ok()
                .map(|c| git_dir.join(c.trim()))
                .unwrap_or_else(|| git_dir.clone());
            return Some((git_dir, common));
        }
        cur = dir.parent();
    }
    None
}

fn is_hash(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn resolve_ref(git_dir: &Path, common_dir: &Path, refname: &str) -> Option<String> {
    // Ref names come from a file we did not write: refuse anything that
    // could walk out of the repository.
    if refname.split('/').any(|c| c.is_empty() || c == "..") {
        return None;
    }
    for base in [git_dir, common_dir] {
        if let Ok(s) = crate::fsutil::confine::read_to_string(base.join(refname)) {
            let s = s.trim();
            if is_hash(s) {
                return Some(s.to_string());
            }
        }
    }
    let packed = crate::fsutil::confine::read_to_string(common_dir.join("packed-refs")).ok()?;
    packed.lines().find_map(|l| {
        let (hash, name) = l.split_once(' ')?;
        (name.trim() == refname && is_hash(hash)).then(|| hash.to_string())
    })
}

/// The last line of `logs/HEAD` is `old new name <email> time tz\tmessage`;
/// when `new` is HEAD's commit and the message is a commit's
/// (`commit: …`, `commit (amend): …`), the rest is its subject.
fn reflog_subject(git_dir: &Path, commit: &str) -> Option<String> {
    const TAIL: u64 = 8 * 1024;
    let mut f = crate::fsutil::confine::open_regular(git_dir.join("logs/HEAD")).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut buf = Vec::new();
    f.take(TAIL).read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf);
    let last = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let (head, message) = last.split_once('\t')?;
    let new = head.split(' ').nth(1)?;
    if new != commit {
        return None;
    }
    let (kind, subject) = message.split_once(": ")?;
    (kind == "commit" || kind.starts_with("commit ("))
        .then(|| subject.trim().to_string())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    #[test]
    fn reads_branch_commit_and_subject_from_loose_refs() {
        let d = tempfile::tempdir().unwrap();
        let g = d.path().join(".git");
        fs::create_dir_all(g.join("refs/heads/feat")).unwrap();
        fs::create_dir_all(g.join("logs")).unwrap();
        fs::write(g.join("HEAD"), "ref: refs/heads/feat/x\n").unwrap();
        fs::write(g.join("refs/heads/feat/x"), format!("{B}\n")).unwrap();
        fs::write(
            g.join("logs/HEAD"),
            format!("{A} {B} Ann <a@x> 1700000000 +0100\tcommit: guard: add the ratchet\n"),
        )
        .unwrap();
        fs::create_dir_all(d.path().join("src/deep")).unwrap();
        let info = git_info(&d.path().join("src/deep")).unwrap();
        assert_eq!(info.branch.as_deref(), Some("feat/x"));
        assert_eq!(info.commit.as_deref(), Some(B));
        assert_eq!(info.subject.as_deref(), Some("guard: add the ratchet"));
    }

    #[test]
    fn packed_refs_detached_head_and_foreign_reflog() {
        let d = tempfile::tempdir().unwrap();
        let g = d.path().join(".git");
        fs::create_dir_all(g.join("logs")).unwrap();
        fs::write(g.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::write(
            g.join("packed-refs"),
            format!("# pack-refs with: peeled\n{A} refs/heads/main\n"),
        )
        .unwrap();
        fs::write(
            g.join("logs/HEAD"),
            format!("{B} {A} Ann <a@x> 1 +0000\tcheckout: moving from x to main\n"),
        )
        .unwrap();
        let info = git_info(d.path()).unwrap();
        assert_eq!(info.commit.as_deref(), Some(A));
        assert_eq!(info.subject, None, "a checkout is not a commit subject");

        fs::write(g.join("HEAD"), format!("{B}\n")).unwrap();
        let info = git_info(d.path()).unwrap();
        assert_eq!((info.branch, info.commit.as_deref()), (None, Some(B)));

        fs::write(g.join("HEAD"), "ref: refs/../../etc/passwd\n").unwrap();
        assert_eq!(git_info(d.path()).unwrap().commit, None);
    }

    #[test]
    fn worktree_git_file_points_at_its_git_dir() {
        let d = tempfile::tempdir().unwrap();
        let main = d.path().join("main/.git");
        let wt = main.join("worktrees/wt");
        fs::create_dir_all(&wt).unwrap();
        fs::create_dir_all(main.join("refs/heads")).unwrap();
        fs::write(main.join("refs/heads/topic"), A).unwrap();
        fs::write(wt.join("HEAD"), "ref: refs/heads/topic\n").unwrap();
        fs::write(wt.join("commondir"), "../..\n").unwrap();
        let tree = d.path().join("tree");
        fs::create_dir_all(&tree).unwrap();
        fs::write(tree.join(".git"), format!("gitdir: {}\n", wt.display())).unwrap();
        let info = git_info(&tree).unwrap();
        assert_eq!(info.branch.as_deref(), Some("topic"));
        assert_eq!(info.commit.as_deref(), Some(A));
    }

    #[test]
    fn no_repository_no_info() {
        let d = tempfile::tempdir().unwrap();
        // A temp dir may sit inside some repository on a dev machine; only
        // check that a missing HEAD reads as no information.
        fs::create_dir_all(d.path().join(".git")).unwrap();
        assert_eq!(git_info(d.path()), None);
    }
}
