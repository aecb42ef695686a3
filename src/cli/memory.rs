//! The `cairn memory …` and `cairn worker` commands: argument-free logic that
//! `main.rs` calls, returning what to print.

use crate::config::Config;
use crate::context::Ctx;
use crate::memory::store::Store;
use crate::memory::store::repo_lock_path;
use crate::memory::{load, promote};
use anyhow::Result;
use std::path::Path;

/// `cairn memory load`: the selection SessionStart injects, uncut. With
/// `--json`: `{"today", "projects": [Loaded]}`, each project with
/// `long_memory`, `active_days` (`[{date, days_ago, text}]`, newest first),
/// `open_todos` (`[{date, text}]`, newest first) and `checkpoint`
/// (`{path, text}` or null).
pub fn load(
    ctx: &Ctx,
    config: &Config,
    root: &Path,
    which: Option<&str>,
    json: bool,
) -> Result<String> {
    let store = Store::discover(root, &config.memory);
    let projects = store.select(which).map_err(anyhow::Error::msg)?;
    let today = ctx.today();
    let loaded: Vec<load::Loaded> = projects
        .iter()
        .map(|p| load::load_project(ctx, &store, p, &today))
        .collect();
    if json {
        let mut s = serde_json::to_string_pretty(
            &serde_json::json!({ "today": today, "projects": loaded }),
        )?;
        s.push('\n');
        return Ok(s);
    }
    Ok(load::render(&loaded, config.memory.language))
}

pub fn promote(
    ctx: &Ctx,
    config: &Config,
    root: &Path,
    which: Option<&str>,
    dry_run: bool,
) -> Result<String> {
    let store = Store::discover(root, &config.memory);
    let projects = store.select(which).map_err(anyhow::Error::msg)?;
    let today = ctx.today();
    // Same lock as the worker: a promotion must not race a merge.
    let _guard = crate::fsutil::lock(&repo_lock_path(ctx, root))?;
    let mut out = String::new();
    let kind = crate::extract::resolve_kind(&config.memory, ctx);
    let backend = (kind != crate::config::BackendKind::Offline)
        .then(|| crate::extract::backend_for(&config.memory, ctx));
    for p in projects {
        let mut plan = promote::plan(ctx, &store, p, &config.memory, &today)?;
        let mut via = String::new();
        if let Some(b) = backend.as_ref().filter(|_| plan.facts() > 0) {
            if dry_run {
                via = format!(
                    " (offline preview; `{}` will rewrite long_memory.md)",
                    b.name()
                );
            } else {
                via = rewrite_with(ctx, config, b.as_ref(), p, &mut plan);
            }
        }
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
                out.push_str(&format!(
                    "  > archive {}\n",
                    f.strip_prefix(root).unwrap_or(f).display()
                ));
            }
        } else {
            promote::apply(ctx, &store, p, &plan)?;
        }
        out.push_str(&plan.summary(dry_run));
        out.push_str(&via);
        out.push('\n');
    }
    Ok(out)
}

/// Lets an LLM backend rewrite long memory; on any failure the offline
/// plan stands and the summary says why.
fn rewrite_with(
    ctx: &Ctx,
    config: &Config,
    backend: &dyn crate::extract::Backend,
    project: &crate::memory::store::Project,
    plan: &mut promote::Plan,
) -> String {
    let lang = config.memory.language;
    let max = config.memory.long_memory_max_lines;
    let r = config.redact.redactor();
    let redacted = promote::Plan {
        long_memory_before: r.redact(&plan.long_memory_before),
        knowledge: plan.knowledge.iter().map(|s| r.redact(s)).collect(),
        decisions: plan.decisions.iter().map(|s| r.redact(s)).collect(),
        open_todos: plan.open_todos.iter().map(|s| r.redact(s)).collect(),
        ..plan.clone()
    };
    let prompt = promote::rewrite_prompt(&redacted, &project.name, lang, max);
    match backend.complete(&prompt) {
        None => String::new(),
        Some(Err(e)) => format!(
            " (`{}` failed: {}; offline promotion used)",
            backend.name(),
            crate::diag::one_line(&format!("{e:#}"), 200)
        ),
        Some(Ok(c)) => {
            if let Some(u) = &c.usage {
                crate::usage::ledger::record_call(
                    ctx,
                    &config.prices(),
                    &format!("{}/promotion", backend.name()),
                    u.into(),
                );
            }
            match promote::accept_rewrite(&c.text, &project.name, lang, max).map(|t| r.redact(&t)) {
                Some(text) => {
                    plan.long_memory_after = text;
                    format!(" (rewritten by `{}`)", backend.name())
                }
                None => format!(
                    " (`{}` gave no usable file; offline promotion used)",
                    backend.name()
                ),
            }
        }
    }
}

pub fn archive(
    ctx: &Ctx,
    config: &Config,
    root: &Path,
    which: Option<&str>,
    days: Option<u32>,
) -> Result<String> {
    let store = Store::discover(root, &config.memory);
    let projects = store.select(which).map_err(anyhow::Error::msg)?;
    let today = ctx.today();
    let days = days.unwrap_or(config.memory.archive_days);
    let _guard = crate::fsutil::lock(&repo_lock_path(ctx, root))?;
    let mut out = String::new();
    for p in projects {
        let files = promote::archivable(ctx, &store, p, &today, days);
        promote::archive(ctx, &store, p, &files)?;
        out.push_str(&format!(
            "{}: {} logs archived (older than {days} days)\n",
            p.name,
            files.len()
        ));
    }
    Ok(out)
}

/// One line saying which extraction backend is active and what it costs,
/// from the spend ledger (`cairn install` prints it).
pub fn backend_summary(ctx: &Ctx, config: &Config) -> String {
    use crate::config::BackendKind;
    let kind = crate::extract::resolve_kind(&config.memory, ctx);
    if kind == BackendKind::Offline {
        let auto = if config.memory.backend == BackendKind::Auto {
            " (auto: no `claude` on PATH, no API key)"
        } else {
            ""
        };
        return format!(
            "memory backend: offline{auto}: nothing leaves this machine, nothing is billed\n"
        );
    }
    let name = match kind {
        BackendKind::ClaudeCli => "claude-cli",
        BackendKind::Anthropic => "anthropic",
        _ => "openai",
    };
    let model = crate::extract::model_for(&config.memory, kind);
    let calls: Vec<f64> = crate::usage::ledger::entries(&ctx.state_dir)
        .iter()
        .filter(|e| e.kind == "memory" && e.backend.starts_with(name))
        .filter_map(|e| e.usd)
        .collect();
    let cost = if calls.is_empty() {
        "no call recorded yet".to_string()
    } else {
        format!(
            "${:.4} per turn on average over {} calls",
            calls.iter().sum::<f64>() / calls.len() as f64,
            calls.len()
        )
    };
    format!(
        "memory backend: {name} ({model}): one call per turn, billed as API usage; {cost}; capped at ${:.2}/day (memory.daily_budget_usd)\n",
        config.memory.daily_budget_usd
    )
}
