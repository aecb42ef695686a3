//! The hook's wire payload and the typed event it becomes.
//!
//! Claude Code sends one JSON object per hook call, the same shape for
//! every event. [`parse`] reads it once into an [`Event`]: each variant
//! holds what its handlers use, so nothing below `hook` matches event
//! names or copies payload fields.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The fields cairn reads; everything else the client sends is ignored.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
struct Payload {
    session_id: String,
    transcript_path: Option<PathBuf>,
    cwd: Option<PathBuf>,
    hook_event_name: String,
    stop_hook_active: bool,
    last_assistant_message: Option<String>,
    source: Option<String>,
    prompt: Option<String>,
    agent_id: Option<String>,
    agent_type: Option<String>,
    agent_transcript_path: Option<PathBuf>,
}

/// A hook call, as the handlers see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Stop(Stop),
    /// `SessionEnd`: the session closed, maybe on a turn whose Stop never
    /// came (stopped with Esc, then quit): what is left to capture is.
    SessionEnd(Stop),
    SessionStart(SessionStart),
    UserPromptSubmit(PromptSubmit),
    /// Nothing to do: an event without a handler (SubagentStop, PreCompact,
    /// tool events, …), a `Stop` that continues a block
    /// (`stop_hook_active`), a prompt event without a prompt.
    Ignored,
}

/// `Stop`: the main thread finished a turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stop {
    pub session_id: String,
    /// The main session's transcript.
    pub transcript_path: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
    /// This Stop continues a block a Stop hook asked for.
    pub stop_hook_active: bool,
    /// The final assistant text: the transcript may not hold it yet at Stop.
    pub last_assistant_message: Option<String>,
}

/// `SessionStart`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionStart {
    pub session_id: String,
    /// `startup`, `resume`, `compact`, `clear`.
    pub source: String,
    pub cwd: Option<PathBuf>,
}

/// `UserPromptSubmit`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptSubmit {
    pub session_id: String,
    pub transcript_path: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
    pub prompt: String,
}

impl Event {
    /// The folder the client ran in, when the event names one.
    pub fn cwd(&self) -> Option<&std::path::Path> {
        match self {
            Event::Stop(e) | Event::SessionEnd(e) => e.cwd.as_deref(),
            Event::SessionStart(e) => e.cwd.as_deref(),
            Event::UserPromptSubmit(e) => e.cwd.as_deref(),
            Event::Ignored => None,
        }
    }
}

/// Reads one payload. An error says what is wrong without quoting the
/// input (a value may be a secret).
pub fn parse(input: &[u8]) -> anyhow::Result<Event> {
    if input.iter().all(u8::is_ascii_whitespace) {
        anyhow::bail!("empty hook payload on stdin");
    }
    let p: Payload =
        serde_json::from_slice(input).map_err(|e| anyhow::anyhow!(payload_error(input, &e)))?;
    if p.stop_hook_active {
        return Ok(Event::Ignored);
    }
    Ok(match p.hook_event_name.as_str() {
        "Stop" => Event::Stop(Stop {
            session_id: p.session_id,
            transcript_path: p.transcript_path,
            cwd: p.cwd,
            stop_hook_active: p.stop_hook_active,
            last_assistant_message: p.last_assistant_message,
        }),
        "SessionEnd" => Event::SessionEnd(Stop {
            session_id: p.session_id,
            transcript_path: p.transcript_path,
            cwd: p.cwd,
            stop_hook_active: false,
            last_assistant_message: None,
        }),
        "SessionStart" => Event::SessionStart(SessionStart {
            session_id: p.session_id,
            source: p.source.unwrap_or_else(|| "startup".to_string()),
            cwd: p.cwd,
        }),
        "UserPromptSubmit" => match p.prompt {
            Some(prompt) => Event::UserPromptSubmit(PromptSubmit {
                session_id: p.session_id,
                transcript_path: p.transcript_path,
                cwd: p.cwd,
                prompt,
            }),
            None => Event::Ignored,
        },
        "" => anyhow::bail!("hook payload has no hook_event_name"),
        _ => Event::Ignored,
    })
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
