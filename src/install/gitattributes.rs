//! The merge driver's registration (SPEC §1.12): cairn's block in the
//! project's `.gitattributes`, and `merge.cairn-memory.*` in the repository's
//! local git config.
//!
//! The attribute lines sit under a marker comment, as in `.gitignore`, so
//! uninstall removes exactly them; a line the user already wrote is neither
//! duplicated nor removed. The git config is set with `git config --local`
//! (never a file of cairn's inside `.git/`), only where the root is inside a
//! git work tree; uninstall unsets cairn's keys and drops the section when
//! nothing else is left in it.

use super::{EntryKind, FileChange, InstallError, file, read_opt};
use crate::merge::DRIVER_NAME;
use std::path::Path;
use std::process::Command;

pub(crate) const MARKER: &str = "# cairn (added by cairn install)";
pub(crate) const FILE: &str = ".gitattributes";

/// The root project's memory and each sub-project's.
fn lines() -> [String; 2] {
    [
        format!("memory_sessions/**/*.md merge={DRIVER_NAME}"),
        format!("projects/*/memory_sessions/**/*.md merge={DRIVER_NAME}"),
    ]
}

const NAME_VALUE: &str = "cairn: section-by-section merge of session memory";

/// The git config keys cairn sets, with the value for a given program.
fn keys(program: &str) -> [(&'static str, String); 2] {
    [
        ("merge.cairn-memory.name", NAME_VALUE.to_string()),
        ("merge.cairn-memory.driver", driver_command(program)),
    ]
}

/// What git runs to merge a memory file.
pub fn driver_command(program: &str) -> String {
    format!(
        "{} merge-driver %O %A %B %P",
        super::settings::shell_quote(program)
    )
}

fn same(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// The text with cairn's lines, or `None` when nothing is missing.
pub(crate) fn install_text(before: Option<&str>) -> Option<String> {
    let text = before.unwrap_or("");
    let ours = lines();
    let missing: Vec<&String> = ours
        .iter()
        .filter(|l| !text.lines().any(|have| same(have, l)))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let added: String = missing.iter().map(|l| format!("{l}{nl}")).collect();
    Some(super::marked::add_lines(
        text,
        MARKER,
        |l| l.trim_end() == MARKER,
        is_ours,
        &added,
        nl,
    ))
}

fn is_ours(line: &str) -> bool {
    lines().iter().any(|l| line.trim_end() == l)
}

/// The text without cairn's block(s), or `None` when there is none.
pub(crate) fn uninstall_text(before: &str) -> Option<String> {
    let parts: Vec<&str> = before.split_inclusive('\n').collect();
    if !parts.iter().any(|l| l.trim_end() == MARKER) {
        return None;
    }
    let mut out = String::with_capacity(before.len());
    let mut i = 0;
    while i < parts.len() {
        if parts[i].trim_end() == MARKER {
            i += 1;
            while i < parts.len() && is_ours(parts[i]) {
                i += 1;
            }
        } else {
            out.push_str(parts[i]);
            i += 1;
        }
    }
    Some(out)
}

fn git(root: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(root).stdin(std::process::Stdio::null());
    c
}

/// Is `root` inside a git work tree (and git on PATH)?
pub fn is_git_repo(root: &Path) -> bool {
    git(root)
        .args(["rev-parse", "--is-inside-work-tree"])
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"true"))
}

/// A key of the repository's local config, `None` when unset.
pub fn git_config_get(root: &Path, key: &str) -> Option<String> {
    let out = git(root)
        .args(["config", "--local", "--get", key])
        .output()
        .ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .trim_end_matches('\n')
            .to_string()
    })
}

/// Sets (or unsets) one key; unsetting the last key of cairn's section
/// removes the section header git would otherwise leave behind.
pub(crate) fn git_config_set(root: &Path, key: &str, value: Option<&str>) -> anyhow::Result<()> {
    let mut c = git(root);
    c.args(["config", "--local"]);
    match value {
        Some(v) => c.args([key, v]),
        None => c.args(["--unset-all", key]),
    };
    let out = c
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run git config: {e}"))?;
    if !out.status.success() {
        anyhow::bail!(
            "git config --local {key} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    if value.is_none() {
        let section = format!("merge.{DRIVER_NAME}");
        let left = git(root)
            .args(["config", "--local", "--get-regexp"])
            .arg(format!("^{}\\.", section.replace('.', "\\.")))
            .output();
        if left.is_ok_and(|o| o.stdout.is_empty()) {
            // Fails harmlessly when git already dropped it.
            let _ = git(root)
                .args(["config", "--local", "--remove-section", &section])
                .output();
        }
    }
    Ok(())
}

fn config_change(
    root: &Path,
    key: &'static str,
    before: Option<String>,
    after: Option<String>,
) -> FileChange {
    FileChange {
        path: root.to_path_buf(),
        kind: EntryKind::GitConfig(key),
        before,
        after,
        summary: String::new(),
    }
}

/// The `.gitattributes` block and the git config, for `cairn install`.
pub(super) fn plan_install(
    root: &Path,
    program: &str,
    verb: &'static str,
    changes: &mut Vec<FileChange>,
    notes: &mut Vec<String>,
) -> Result<(), InstallError> {
    if !is_git_repo(root) {
        // Said on the install that changes something, not on every re-run.
        if !changes.is_empty() {
            notes.push(format!(
                "not a git repository: the merge driver for memory files ({FILE} and git config) is not registered; run `cairn install` again after `git init`."
            ));
        }
        return Ok(());
    }
    let path = root.join(FILE);
    let before = read_opt(&path, verb)?;
    if let Some(after) = install_text(before.as_deref()) {
        changes.push(file(
            path,
            before,
            Some(after),
            format!("merge memory files with cairn ({DRIVER_NAME})"),
        ));
    }
    for (key, value) in keys(program) {
        let current = git_config_get(root, key);
        if current.as_deref() != Some(value.as_str()) {
            changes.push(config_change(root, key, current, Some(value)));
        }
    }
    Ok(())
}

/// Removes cairn's `.gitattributes` block and, in a git repository, the
/// driver's git config, for `cairn uninstall`.
pub(super) fn plan_uninstall(
    root: &Path,
    verb: &'static str,
    changes: &mut Vec<FileChange>,
    removed: &mut std::collections::HashSet<std::path::PathBuf>,
) -> Result<(), InstallError> {
    let path = root.join(FILE);
    if let Some(before) = read_opt(&path, verb)?
        && let Some(after) = uninstall_text(&before)
    {
        let after = (!after.is_empty()).then_some(after);
        let why = if after.is_some() {
            "removed cairn's block"
        } else {
            "it held only cairn's block"
        };
        if after.is_none() {
            removed.insert(path.clone());
        }
        changes.push(file(path, Some(before), after, why));
    }
    if is_git_repo(root) {
        for (key, _) in keys("cairn") {
            if let Some(current) = git_config_get(root, key) {
                changes.push(config_change(root, key, Some(current), None));
            }
        }
    }
    Ok(())
}

/// The value a planned config change was computed from, as it is now.
pub(super) fn current(c: &FileChange, key: &str) -> Option<String> {
    git_config_get(&c.path, key)
}

/// `git config --local KEY VALUE` / `--unset`, for a dry run and the summary.
pub(super) fn describe(key: &str, after: Option<&str>) -> String {
    match after {
        Some(v) => format!(
            "git config --local {key} {}",
            super::settings::shell_quote(v)
        ),
        None => format!("git config --local --unset {key}"),
    }
}

/// Whether the project registers cairn's merge driver, for `cairn doctor`:
/// the attribute lines cairn writes, and the driver command in git config.
pub fn registration(root: &Path) -> Registration {
    let text = crate::fsutil::confine::read_to_string(root.join(FILE)).unwrap_or_default();
    let attributes = lines()
        .iter()
        .all(|l| text.lines().any(|have| same(have, l)));
    let git_repo = is_git_repo(root);
    let driver = if git_repo {
        git_config_get(root, "merge.cairn-memory.driver")
    } else {
        None
    };
    Registration {
        git_repo,
        attributes,
        driver,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    pub git_repo: bool,
    /// `.gitattributes` routes memory files to the driver.
    pub attributes: bool,
    /// `merge.cairn-memory.driver`, when set.
    pub driver: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_is_added_once_and_removed_exactly() {
        let before = "*.png binary\n";
        let after = install_text(Some(before)).unwrap();
        assert_eq!(
            after,
            "*.png binary\n# cairn (added by cairn install)\nmemory_sessions/**/*.md merge=cairn-memory\nprojects/*/memory_sessions/**/*.md merge=cairn-memory\n"
        );
        assert_eq!(install_text(Some(&after)), None);
        assert_eq!(uninstall_text(&after).unwrap(), before);
        assert_eq!(uninstall_text(&install_text(None).unwrap()).unwrap(), "");
        assert_eq!(uninstall_text(before), None);
    }

    #[test]
    fn user_lines_are_kept_and_crlf_respected() {
        let mine = "memory_sessions/**/*.md   merge=cairn-memory\r\n";
        let after = install_text(Some(mine)).unwrap();
        assert_eq!(
            after,
            format!(
                "{mine}# cairn (added by cairn install)\r\nprojects/*/memory_sessions/**/*.md merge=cairn-memory\r\n"
            )
        );
        assert_eq!(uninstall_text(&after).unwrap(), mine);
    }

    #[test]
    fn driver_command_quotes_the_program() {
        assert_eq!(driver_command("cairn"), "cairn merge-driver %O %A %B %P");
        assert_eq!(
            driver_command("/opt/my tools/cairn"),
            "\"/opt/my tools/cairn\" merge-driver %O %A %B %P"
        );
    }
}
