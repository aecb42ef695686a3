//! The project's memory: long memory against its cap, and the merge driver
//! that keeps two people's memory files mergeable.

use super::{Finding, Scene, program_of, resolve_program};
use crate::memory::store::Store;

/// The driver registered by hand, for projects that take cairn's hooks from
/// the plugin and so must not run `cairn install`.
const SET_DRIVER: &str = "git config merge.cairn-memory.driver 'cairn merge-driver %O %A %B %P'";

pub(super) fn check(scene: &Scene) -> Vec<Finding> {
    let Some(root) = &scene.root else {
        return vec![Finding::info(
            "project",
            "not inside a project (no memory_sessions/, .cairn.toml or .git above here): project checks skipped",
        )];
    };
    let mut out = Vec::new();
    let cap = scene.config.memory.long_memory_max_lines;
    let store = Store::discover(root, &scene.config.memory);
    for p in &store.projects {
        let path = p.long_memory_path();
        let text = match store.jail.read_text(&path) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(r) if r.is_hostile() => {
                out.push(Finding::broken(
                    "memory-path",
                    format!("{r}: cairn will not read or write it"),
                    "replace the link or special file by a regular file inside the project (a cloned repository may carry links that point out of it)",
                ));
                continue;
            }
            Err(_) => continue,
        };
        let lines = text.lines().count();
        let what = format!(
            "{} long memory: {lines} lines of {cap} (memory.long_memory_max_lines)",
            p.name
        );
        if lines > cap {
            out.push(Finding::warn(
                "long-memory",
                what,
                format!(
                    "run `cairn memory promote {}` to bring it under the cap",
                    p.name
                ),
            ));
        } else {
            out.push(Finding::ok("long-memory", what));
        }
    }
    if out.is_empty() {
        out.push(Finding::info("long-memory", "no long_memory.md yet"));
    }
    out.push(merge_driver(scene, root));
    out
}

fn merge_driver(scene: &Scene, root: &std::path::Path) -> Finding {
    let reg = crate::install::merge_driver_registration(root);
    if !reg.git_repo {
        return Finding::info(
            "merge-driver",
            "not a git repository: no merge driver needed",
        );
    }
    match (reg.attributes, reg.driver) {
        (true, Some(driver)) => {
            let program = program_of(&driver);
            if resolve_program(&program, &scene.ctx.env).is_none() {
                Finding::broken(
                    "merge-driver",
                    format!(
                        "git runs `{program}` to merge memory files, and it is not found: merges of memory files will fail"
                    ),
                    "run `cairn install` again with cairn on PATH",
                )
            } else {
                Finding::ok(
                    "merge-driver",
                    format!("memory files merge with `{driver}`"),
                )
            }
        }
        (true, None) => Finding::warn(
            "merge-driver",
            ".gitattributes names the cairn-memory driver but git config does not define it: git merges memory files line by line",
            format!(
                "git config is not shared by git: run `cairn install` in this clone (plugin route: {SET_DRIVER})"
            ),
        ),
        (false, _) => Finding::warn(
            "merge-driver",
            "memory files are merged line by line by git: two people's logs of the same day conflict",
            format!(
                "run `cairn install` (plugin route, where install would register the hooks twice: {SET_DRIVER}, and add `memory_sessions/**/*.md merge=cairn-memory` to .gitattributes)"
            ),
        ),
    }
}
