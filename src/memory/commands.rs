//! The `cairn memory …` and `cairn worker` commands: argument-free logic that
//! `main.rs` calls, returning what to print.

use crate::config::Config;
use crate::context::Ctx;
use crate::memory::capture::repo_lock_path;
use crate::memory::store::Store;
use crate::memory::{load, promote, worker};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The project root for a user command run from `cwd`.
pub fn root_from(ctx: &Ctx, cwd: &Path) -> Result<PathBuf> {
    crate::memory::store::find_root(ctx.env.get("CLAUDE_PROJECT_DIR"), Some(cwd)).with_context(|| {
        format!(
            "no project found from {} (looked for memory_sessions/, .cairn.toml or .git); run `cairn install` in your project",
            cwd.display()
        )
    })
}

pub fn load(ctx: &Ctx, config: &Config, root: &Path, which: Option<&str>, json: bool) -> Result<String> {
    let store = Store::discover(root, config);
    let projects = store.select(which).map_err(anyhow::Error::msg)?;
    let today = ctx.today();
    let loaded: Vec<load::Loaded> = projects.iter().map(|p| load::load_project(p, &today)).collect();
    if json {
        let mut s = serde_json::to_string_pretty(&serde_json::json!({ "today": today, "projects": loaded }))?;
        s.push('\n');
        return Ok(s);
    }
    Ok(load::render(&loaded, config.memory.language))
}

pub fn promote(ctx: &Ctx, config: &Config, root: &Path, which: Option<&str>, dry_run: bool) -> Result<String> {
    let store = Store::discover(root, config);
    let projects = store.select(which).map_err(anyhow::Error::msg)?;
    let today = ctx.today();
    // Same lock as the worker: a promotion must not race a merge.
    let _guard = crate::fsutil::lock(&repo_lock_path(ctx, root))?;
    let mut out = String::new();
    for p in projects {
        let plan = promote::plan(p, config, &today)?;
        if dry_run {
            for (label, items) in [
                ("knowledge", &plan.knowledge),
                ("decision", &plan.decisions),
                ("open to-do", &plan.open_todos),
            ] {
                for i in items {
                    out.push_str(&format!("  + {label}: {i}\n"));
                }
            }
            for f in &plan.to_archive {
                out.push_str(&format!("  > archive {}\n", f.strip_prefix(root).unwrap_or(f).display()));
            }
        } else {
            promote::apply(p, &plan)?;
        }
        out.push_str(&plan.summary(dry_run));
        out.push('\n');
    }
    Ok(out)
}

pub fn archive(ctx: &Ctx, config: &Config, root: &Path, which: Option<&str>, days: Option<u32>) -> Result<String> {
    let store = Store::discover(root, config);
    let projects = store.select(which).map_err(anyhow::Error::msg)?;
    let today = ctx.today();
    let days = days.unwrap_or(config.memory.archive_days);
    let _guard = crate::fsutil::lock(&repo_lock_path(ctx, root))?;
    let mut out = String::new();
    for p in projects {
        let files = promote::archivable(p, &today, days);
        promote::archive(p, &files)?;
        out.push_str(&format!("{}: {} logs archived (older than {days} days)\n", p.name, files.len()));
    }
    Ok(out)
}

pub fn worker(ctx: &Ctx, drain: bool) -> Result<String> {
    let r = worker::run(ctx, drain)?;
    Ok(if drain {
        format!(
            "{} jobs done, {} to retry, {} dead-lettered, {} pending\n",
            r.done,
            r.retried,
            r.dead,
            crate::memory::spool::pending_ids(&ctx.state_dir).len()
        )
    } else {
        String::new()
    })
}
