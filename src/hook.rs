//! `cairn hook`: one payload on stdin, parsed into an [`Event`] and
//! dispatched to the capabilities that handle it.
//!
//! The rule of this module: a hook never hurts a session. Whatever happens
//! (bad JSON, missing files, a panic), the process exits 0, prints nothing
//! that blocks, and leaves one line in the diagnostics log.

use crate::capture;
use crate::config;
use crate::context::Ctx;
use crate::diag::Level;
use crate::event::{self, Event};
use crate::memory::{load, store};
use crate::{gate, guard, transcript};
use anyhow::{Context, Result};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Payloads carry the last assistant message; a few MB is plenty, more is an attack or a bug.
const MAX_PAYLOAD: u64 = 16 * 1024 * 1024;

/// Reads stdin, runs the handler, returns what to print. Never fails and
/// never panics out.
pub fn main(ctx: &Ctx, stdin: impl Read) -> String {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut buf = Vec::new();
        stdin
            .take(MAX_PAYLOAD + 1)
            .read_to_end(&mut buf)
            .context("cannot read the hook payload from stdin")?;
        if buf.len() as u64 > MAX_PAYLOAD {
            anyhow::bail!("hook payload larger than {MAX_PAYLOAD} bytes ignored");
        }
        run(ctx, &buf)
    }));
    match result {
        Ok(Ok(out)) => out.unwrap_or_default(),
        Ok(Err(e)) => {
            ctx.diag(Level::Error, "hook", &format!("{e:#}"));
            String::new()
        }
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            ctx.diag(Level::Error, "hook", &format!("panic: {msg}"));
            String::new()
        }
    }
}

/// Parses and dispatches one payload. `Ok(None)`: print nothing.
pub fn run(ctx: &Ctx, input: &[u8]) -> Result<Option<String>> {
    // cairn's own `claude -p` calls fire hooks too: stop before anything else.
    if ctx.is_nested() {
        return Ok(None);
    }
    match event::parse(input)? {
        Event::Stop(e) => on_stop(ctx, &e),
        Event::SessionEnd(e) => on_session_end(ctx, &e),
        Event::SessionStart(e) => on_session_start(ctx, &e),
        Event::UserPromptSubmit(e) => on_user_prompt(ctx, &e),
        Event::Ignored => Ok(None),
    }
}

/// `CLAUDE_PROJECT_DIR`, else the event's `cwd` walking up to a project.
fn project_root(ctx: &Ctx, cwd: Option<&Path>) -> Option<PathBuf> {
    store::find_root(ctx.env.get("CLAUDE_PROJECT_DIR"), cwd)
}

/// Runs one capability of a hook; its failure is logged and does not stop
/// the others (memory capture must not depend on the guard, nor the reverse).
fn logged<T>(ctx: &Ctx, scope: &str, r: Result<T>) -> Option<T> {
    r.map_err(|e| ctx.diag(Level::Error, scope, &format!("{e:#}")))
        .ok()
}

/// `Stop`: capture the turn, then let the guard look at the context fill
/// that capture's pass saw.
fn on_stop(ctx: &Ctx, stop: &event::Stop) -> Result<Option<String>> {
    let root = project_root(ctx, stop.cwd.as_deref())
        .context("no project root (no CLAUDE_PROJECT_DIR and no cwd)")?;
    // Neither capture nor guard waits for the client to finish the turn:
    // capture has the answer from the payload, and the guard waits itself
    // only when the answer's late line could cross a threshold. Only a file
    // that does not exist yet (a session's first turn) is waited for, and
    // only when the Stop names an answer: a turn ending on a tool call
    // waits for nothing (issue 11); the next Stop's pass reads that turn.
    if let Some(t) = stop.transcript_path.as_deref()
        && stop
            .last_assistant_message
            .as_deref()
            .is_some_and(|a| !a.trim().is_empty())
    {
        transcript::await_file(t);
    }
    // Both capabilities read the transcript: one missing file is one error.
    match stop.transcript_path.as_deref() {
        None => anyhow::bail!("the Stop payload has no transcript_path"),
        Some(t) if !t.is_file() => match t.metadata() {
            Ok(_) => anyhow::bail!("transcript {} is not a regular file; not read", t.display()),
            Err(_) => anyhow::bail!("transcript {} not found", t.display()),
        },
        Some(_) => {}
    }
    let config = config::load_or_default(ctx, Some(&root));
    let captured = logged(
        ctx,
        "capture",
        capture::on_stop(ctx, &config.for_capture(), &root, stop),
    );
    // The capture's pass read the same turn: the guard need not read the
    // file again, unless that pass saw no usage at all.
    let seen = captured.and_then(|c| c.context);
    let spend = crate::usage::Spend::new(ctx, &config.usage);
    let guarded = guard::on_stop(ctx, &config.for_guard(), &root, stop, seen.as_ref(), &spend);
    Ok(logged(ctx, "guard", guarded).flatten())
}

/// `SessionEnd`: capture what no Stop did (a turn stopped with Esc, then
/// the session quit). No guard: there is no next turn to warn. A session
/// that wrote no transcript, or left no project, has nothing to capture.
fn on_session_end(ctx: &Ctx, end: &event::Stop) -> Result<Option<String>> {
    let Some(root) = project_root(ctx, end.cwd.as_deref()) else {
        return Ok(None);
    };
    if !end.transcript_path.as_deref().is_some_and(Path::is_file) {
        return Ok(None);
    }
    let config = config::load_or_default(ctx, Some(&root));
    logged(
        ctx,
        "capture",
        capture::on_stop(ctx, &config.for_capture(), &root, end),
    );
    Ok(None)
}

fn on_user_prompt(ctx: &Ctx, e: &event::PromptSubmit) -> Result<Option<String>> {
    let root = project_root(ctx, e.cwd.as_deref());
    let config = config::load_or_default(ctx, root.as_deref());
    let session = || gate::Session::of(e.transcript_path.as_deref());
    let verdict = gate::check_in(&e.prompt, session, &config.gate);
    if let Some(v) = &verdict {
        logged(
            ctx,
            "gate",
            gate::journal::record(ctx, &e.session_id, root.as_deref(), &v.classes),
        );
    }
    Ok(verdict.map(|v| additional_context("UserPromptSubmit", &v.context)))
}

fn on_session_start(ctx: &Ctx, e: &event::SessionStart) -> Result<Option<String>> {
    let Some(root) = project_root(ctx, e.cwd.as_deref()) else {
        return Ok(None);
    };
    let config = config::load_or_default(ctx, Some(&root));
    let handoff = logged(
        ctx,
        "guard",
        guard::on_session_start(ctx, &config.guard, &root, e),
    )
    .flatten();
    let store = store::Store::discover(&root, &config.memory);
    let cwd = e.cwd.clone().unwrap_or_else(|| root.clone());
    let text = load::session_start_context(
        ctx,
        &config.memory,
        &store,
        store.project_for_dir(&cwd),
        &e.source,
        handoff.as_deref(),
    );
    Ok(text.map(|t| additional_context("SessionStart", &t)))
}

/// The JSON a hook prints to hand text to the model without showing it to the user.
pub fn additional_context(event: &str, text: &str) -> String {
    serde_json::json!({
        "hookSpecificOutput": { "hookEventName": event, "additionalContext": text }
    })
    .to_string()
}
