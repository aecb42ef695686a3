//! `cairn hook`: one payload on stdin, dispatched on `hook_event_name`.
//!
//! The rule of this module: a hook never hurts a session. Whatever happens
//! (bad JSON, missing files, a panic), the process exits 0, prints nothing
//! that blocks, and leaves one line in the diagnostics log.

use crate::capture;
use crate::config;
use crate::context::Ctx;
use crate::diag::Level;
use crate::memory::{load, store};
use crate::{gate, guard, transcript};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::PathBuf;

/// The fields cairn reads; everything else the client sends is ignored.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Payload {
    pub session_id: String,
    pub transcript_path: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
    pub hook_event_name: String,
    pub stop_hook_active: bool,
    pub last_assistant_message: Option<String>,
    pub source: Option<String>,
    pub prompt: Option<String>,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub agent_transcript_path: Option<PathBuf>,
}

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
    if input.iter().all(u8::is_ascii_whitespace) {
        anyhow::bail!("empty hook payload on stdin");
    }
    let payload: Payload =
        serde_json::from_slice(input).map_err(|e| anyhow::anyhow!(payload_error(input, &e)))?;
    if payload.stop_hook_active {
        return Ok(None);
    }
    match payload.hook_event_name.as_str() {
        "Stop" => on_stop(ctx, &payload),
        "SessionStart" => on_session_start(ctx, &payload),
        "UserPromptSubmit" => on_user_prompt(ctx, &payload),
        "" => anyhow::bail!("hook payload has no hook_event_name"),
        // Events without a handler (SubagentStop, PreCompact, SessionEnd,
        // tool events, …) are no-ops by design.
        _ => Ok(None),
    }
}

/// The fields of [`Payload`], the only key names a payload error may quote.
const PAYLOAD_FIELDS: [&str; 11] = [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "stop_hook_active",
    "last_assistant_message",
    "source",
    "prompt",
    "agent_id",
    "agent_type",
    "agent_transcript_path",
];

/// A payload that does not parse, said without quoting it: serde's text for
/// a wrong-typed field holds the value (`invalid type: string "sk-…",
/// expected a boolean`), and the value may be a secret. Kept: line, column,
/// the kind of error, the field when it is one of ours, and what was
/// expected (which comes from our types, not the input).
fn payload_error(input: &[u8], e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let at = format!("line {}, column {}", e.line(), e.column());
    let full = e.to_string();
    let serde_says = full
        .rsplit_once(" at line ")
        .map_or(full.as_str(), |(m, _)| m);
    match e.classify() {
        // serde_json's syntax messages are fixed texts ("expected value",
        // "trailing comma", ...): none quotes the input.
        Category::Syntax | Category::Eof => {
            format!("hook payload is not valid JSON ({at}): {serde_says}")
        }
        Category::Io => format!("hook payload could not be read ({at})"),
        Category::Data => {
            let field = field_before(input, e.line(), e.column())
                .map(|f| format!(" in `{f}`"))
                .unwrap_or_default();
            let expected = serde_says
                .rsplit_once(", expected ")
                .map(|(_, x)| format!(": expected {x}"))
                .unwrap_or_default();
            format!("hook payload has a value of the wrong type{field} ({at}){expected}")
        }
    }
}

/// The payload field whose value ends at `line`:`column` (1-based, as
/// serde_json reports them): the last `"key":` before it, if it is ours.
fn field_before(input: &[u8], line: usize, column: usize) -> Option<&'static str> {
    let line_start = if line <= 1 {
        0
    } else {
        memchr::memchr_iter(b'\n', input).nth(line - 2)? + 1
    };
    let end = (line_start + column).min(input.len());
    let before = &input[..end];
    PAYLOAD_FIELDS
        .iter()
        .filter_map(|f| {
            let key = format!("\"{f}\"");
            memchr::memmem::rfind(before, key.as_bytes()).map(|at| (at, *f))
        })
        .max()
        .map(|(_, f)| f)
}

fn project_root(ctx: &Ctx, payload: &Payload) -> Option<PathBuf> {
    store::find_root(ctx.env.get("CLAUDE_PROJECT_DIR"), payload.cwd.as_deref())
}

/// Runs one capability of a hook; its failure is logged and does not stop
/// the others (memory capture must not depend on the guard, nor the reverse).
fn logged<T>(ctx: &Ctx, scope: &str, r: Result<T>) -> Option<T> {
    r.map_err(|e| ctx.diag(Level::Error, scope, &format!("{e:#}")))
        .ok()
}

fn on_stop(ctx: &Ctx, payload: &Payload) -> Result<Option<String>> {
    let root =
        project_root(ctx, payload).context("no project root (no CLAUDE_PROJECT_DIR and no cwd)")?;
    // Neither capture nor guard waits for the client to finish the turn:
    // capture has the answer from the payload, and the guard waits itself
    // only when the answer's late line could cross a threshold. Only a file
    // that does not exist yet (a session's first turn) is waited for, and
    // only when the Stop names an answer: a turn ending on a tool call
    // waits for nothing (issue 11); the next Stop's pass reads that turn.
    if let Some(t) = payload.transcript_path.as_deref()
        && payload
            .last_assistant_message
            .as_deref()
            .is_some_and(|a| !a.trim().is_empty())
    {
        transcript::await_file(t);
    }
    // Both capabilities read the transcript: one missing file is one error.
    match payload.transcript_path.as_deref() {
        None => anyhow::bail!("the Stop payload has no transcript_path"),
        Some(t) if !t.is_file() => match t.metadata() {
            Ok(_) => anyhow::bail!("transcript {} is not a regular file; not read", t.display()),
            Err(_) => anyhow::bail!("transcript {} not found", t.display()),
        },
        Some(_) => {}
    }
    let config = config::load_or_default(ctx, Some(&root));
    let input = capture::StopInput {
        session_id: payload.session_id.clone(),
        transcript_path: payload.transcript_path.clone(),
        cwd: payload.cwd.clone(),
        last_assistant_message: payload.last_assistant_message.clone(),
    };
    let captured = logged(
        ctx,
        "capture",
        capture::on_stop(ctx, &config.for_capture(), &root, &input),
    );
    let info = guard::StopInfo {
        session_id: payload.session_id.clone(),
        transcript_path: payload.transcript_path.clone(),
        cwd: payload.cwd.clone(),
        stop_hook_active: payload.stop_hook_active,
        last_assistant_message: payload.last_assistant_message.clone(),
        // The capture's pass read the same turn: the guard need not read
        // the file again, unless that pass saw no usage at all.
        context: captured.and_then(|c| c.context),
    };
    let spend = crate::usage::SessionSpend::new(ctx, &config.usage);
    let guarded = guard::on_stop(ctx, &config.for_guard(), &root, &info, &spend);
    Ok(logged(ctx, "guard", guarded).flatten())
}

fn on_user_prompt(ctx: &Ctx, payload: &Payload) -> Result<Option<String>> {
    let Some(prompt) = payload.prompt.as_deref() else {
        return Ok(None);
    };
    let root = project_root(ctx, payload);
    let config = config::load_or_default(ctx, root.as_deref());
    let session = || gate::Session::of(payload.transcript_path.as_deref());
    let verdict = gate::check_in(prompt, session, &config.gate);
    if let Some(v) = &verdict {
        logged(
            ctx,
            "gate",
            gate::journal::record(ctx, &payload.session_id, root.as_deref(), &v.classes),
        );
    }
    Ok(verdict.map(|v| additional_context("UserPromptSubmit", &v.context)))
}

fn on_session_start(ctx: &Ctx, payload: &Payload) -> Result<Option<String>> {
    let Some(root) = project_root(ctx, payload) else {
        return Ok(None);
    };
    let config = config::load_or_default(ctx, Some(&root));
    let source = payload.source.as_deref().unwrap_or("startup");
    let info = guard::SessionStartInfo {
        session_id: payload.session_id.clone(),
        source: source.to_string(),
        cwd: payload.cwd.clone(),
    };
    let handoff = logged(
        ctx,
        "guard",
        guard::on_session_start(ctx, &config.for_guard(), &root, &info),
    )
    .flatten();
    let store = store::Store::discover(&root, &config.memory);
    let cwd = payload.cwd.clone().unwrap_or_else(|| root.clone());
    let text = load::session_start_context(
        ctx,
        &config.memory,
        &store,
        store.project_for_dir(&cwd),
        source,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(input: &str) -> String {
        let e = serde_json::from_str::<Payload>(input).unwrap_err();
        payload_error(input.as_bytes(), &e)
    }

    #[test]
    fn payload_fields_are_the_struct_fields() {
        let v = serde_json::to_value(Payload::default()).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, PAYLOAD_FIELDS);
    }

    #[test]
    fn a_wrong_typed_field_is_named_without_its_value() {
        let input =
            "{\"hook_event_name\": \"Stop\",\n \"stop_hook_active\": \"hunter2-correct-horse\"}";
        assert_eq!(
            error_of(input),
            "hook payload has a value of the wrong type in `stop_hook_active` (line 2, column 44): expected a boolean"
        );
        let input = r#"{"session_id": {"pw": "hunter2-correct-horse"}}"#;
        let msg = error_of(input);
        assert!(
            msg.starts_with("hook payload has a value of the wrong type in `session_id`"),
            "{msg}"
        );
        assert!(!msg.contains("hunter2"), "{msg}");
    }

    #[test]
    fn syntax_errors_keep_serdes_words() {
        assert_eq!(
            error_of("{\"cwd\": \"/tmp\",}"),
            "hook payload is not valid JSON (line 1, column 16): trailing comma"
        );
    }
}
