//! One transcript line, parsed leniently and borrowed from the line where
//! the JSON allows it.
//!
//! The client adds record types and fields from one release to the next, and
//! a field we read today may change type tomorrow. So every visitor here
//! accepts any JSON value: a value of an unexpected type reads as absent
//! instead of failing the whole line. Only a line that is not a JSON object
//! (garbage, truncated, not UTF-8) fails, and callers skip it.

use super::usage::Usage;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// One JSONL record. Only the fields cairn reads are kept; strings borrow
/// from the line unless the JSON escaped them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record<'a> {
    /// `type`: `user`, `assistant`, `system`, `attachment`, `summary`, …
    pub kind: Option<Cow<'a, str>>,
    pub subtype: Option<Cow<'a, str>>,
    pub is_meta: bool,
    pub is_sidechain: bool,
    pub is_compact_summary: bool,
    pub is_api_error_message: bool,
    /// Set on hook context and compaction summaries written as user records.
    pub is_visible_in_transcript_only: bool,
    /// `origin.kind`: `human`, `task-notification`, … (recent clients only).
    pub origin_kind: Option<Cow<'a, str>>,
    /// `promptSource`: `sdk`, `typed`, `system` (recent clients only).
    pub prompt_source: Option<Cow<'a, str>>,
    pub timestamp: Option<Cow<'a, str>>,
    pub message: Option<Message<'a>>,
    pub request_id: Option<Cow<'a, str>>,
    pub agent_id: Option<Cow<'a, str>>,
    pub session_id: Option<Cow<'a, str>>,
    pub cwd: Option<Cow<'a, str>>,
    pub git_branch: Option<Cow<'a, str>>,
    /// `version`: the client that wrote the record (`1.0.57`, `2.1.34`).
    pub version: Option<Cow<'a, str>>,
    /// `uuid` and `parentUuid`: how a 1.0.x client's subagent records
    /// (sidechains in the main file) chain to the prompt that started them.
    pub uuid: Option<Cow<'a, str>>,
    pub parent_uuid: Option<Cow<'a, str>>,
    /// `toolUseResult`: the client's structured account of a tool call, next
    /// to the tool result it sent the model.
    pub tool_use_result: Option<ToolUseResult<'a>>,
}

/// The parts of `toolUseResult` capture reads. Its shape depends on the
/// tool (and the client version); a string stands for an error text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolUseResult<'a> {
    /// `type`: `create` or `update` for Write, `text` for Read, …
    pub kind: Option<Cow<'a, str>>,
    pub file_path: Option<Cow<'a, str>>,
    /// TodoWrite: the list after the call.
    pub new_todos: Vec<Todo<'a>>,
    /// ExitPlanMode: the plan the user accepted.
    pub plan: Option<Cow<'a, str>>,
    /// Agent/Task: the subagent that ran, whose transcript holds its work.
    pub agent_id: Option<Cow<'a, str>>,
    /// Bash: what the command printed.
    pub stdout: Option<Cow<'a, str>>,
    pub stderr: Option<Cow<'a, str>>,
    pub interrupted: bool,
    /// AskUserQuestion: question → the user's answer.
    pub answers: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// The whole value was a string (an error text on most clients).
    pub text: Option<Cow<'a, str>>,
}

/// One item of a TodoWrite list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Todo<'a> {
    pub content: Cow<'a, str>,
    /// `pending`, `in_progress`, `completed`.
    pub status: Cow<'a, str>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Message<'a> {
    pub id: Option<Cow<'a, str>>,
    pub model: Option<Cow<'a, str>>,
    pub role: Option<Cow<'a, str>>,
    pub content: Content<'a>,
    pub usage: Option<Usage>,
}

/// `content` of a message or of a tool result: a plain string or blocks.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Content<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub enum Block<'a> {
    Text(Cow<'a, str>),
    /// Thinking text is never needed, so it is not kept.
    Thinking,
    /// Boxed: its arguments (a to-do list, a plan) make it the largest block.
    ToolUse(Box<ToolUse<'a>>),
    ToolResult(ToolResult<'a>),
    Image,
    /// A block of a type cairn does not read (or not an object at all).
    #[default]
    Other,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolUse<'a> {
    pub id: Option<Cow<'a, str>>,
    pub name: Cow<'a, str>,
    pub input: ToolInput<'a>,
}

/// The few tool arguments the activity digest uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolInput<'a> {
    pub file_path: Option<Cow<'a, str>>,
    pub notebook_path: Option<Cow<'a, str>>,
    pub command: Option<Cow<'a, str>>,
    pub description: Option<Cow<'a, str>>,
    pub subagent_type: Option<Cow<'a, str>>,
    pub prompt: Option<Cow<'a, str>>,
    /// TodoWrite's list.
    pub todos: Vec<Todo<'a>>,
    /// ExitPlanMode's plan.
    pub plan: Option<Cow<'a, str>>,
    /// TaskCreate's subject; TaskUpdate's task id and status.
    pub subject: Option<Cow<'a, str>>,
    pub task_id: Option<Cow<'a, str>>,
    pub status: Option<Cow<'a, str>>,
    /// WebSearch's query; WebFetch's address.
    pub query: Option<Cow<'a, str>>,
    pub url: Option<Cow<'a, str>>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolResult<'a> {
    pub tool_use_id: Option<Cow<'a, str>>,
    pub is_error: bool,
    pub content: Content<'a>,
}

impl<'a> Record<'a> {
    /// Parse one line (without its newline). `None` for anything that is not
    /// a JSON object: the caller skips the line.
    pub fn parse(line: &'a [u8]) -> Option<Record<'a>> {
        serde_json::from_slice(line).ok()
    }

    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    pub fn is_user(&self) -> bool {
        self.kind() == "user"
    }

    pub fn is_assistant(&self) -> bool {
        self.kind() == "assistant"
    }

    /// A compaction: the context the model sees starts again after it.
    pub fn is_compact_boundary(&self) -> bool {
        self.kind() == "system" && self.subtype.as_deref() == Some("compact_boundary")
    }

    pub fn content(&self) -> &Content<'a> {
        match &self.message {
            Some(m) => &m.content,
            None => &Content::None,
        }
    }

    pub fn model(&self) -> Option<&str> {
        self.message.as_ref()?.model.as_deref()
    }

    pub fn message_id(&self) -> Option<&str> {
        self.message.as_ref()?.id.as_deref()
    }

    pub fn usage(&self) -> Option<&Usage> {
        self.message.as_ref()?.usage.as_ref()
    }

    /// Written by the client itself (interruptions, errors), not by a model.
    pub fn is_synthetic(&self) -> bool {
        self.model() == Some("<synthetic>")
    }
}

impl<'a> Content<'a> {
    pub fn blocks(&self) -> &[Block<'a>] {
        match self {
            Content::Blocks(b) => b,
            _ => &[],
        }
    }

    /// The text of a string content or of its `text` blocks, in order.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        let single = match self {
            Content::Text(t) => Some(t.as_ref()),
            _ => None,
        };
        let blocks = self.blocks().iter().filter_map(|b| match b {
            Block::Text(t) => Some(t.as_ref()),
            _ => None,
        });
        single.into_iter().chain(blocks)
    }
}

// ---------------------------------------------------------------------------
// Lenient deserialisation.

/// Visitor methods that accept a JSON value of the wrong kind and yield the
/// visitor's default value, consuming nested arrays and objects.
macro_rules! ignore {
    (bool) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (num) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (unit) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (str) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (seq) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
    };
    (map) => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
    };
    ($($k:ident),+) => { $(ignore!($k);)+ };
}

/// Implements `Deserialize` for a wrapper by handing any JSON value to its
/// visitor.
macro_rules! lenient {
    ($ty:ident, $visitor:ident, $what:literal) => {
        struct $visitor;
        impl<'de> Deserialize<'de> for $ty<'de> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any($visitor)
            }
        }
        impl $visitor {
            fn expecting_text(f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str($what)
            }
        }
    };
}

#[derive(Default)]
struct Str<'a>(Option<Cow<'a, str>>);
lenient!(Str, StrV, "a string");
impl<'de> Visitor<'de> for StrV {
    type Value = Str<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Self::expecting_text(f)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Str(Some(Cow::Borrowed(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Str(Some(Cow::Owned(v.to_owned()))))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Str(Some(Cow::Owned(v))))
    }
    ignore!(bool, num, unit, seq, map);
}

#[derive(Default)]
struct Bool(bool);
struct BoolV;
impl<'de> Deserialize<'de> for Bool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BoolV)
    }
}
impl<'de> Visitor<'de> for BoolV {
    type Value = Bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a boolean")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Bool(v))
    }
    ignore!(num, unit, str, seq, map);
}

#[derive(Default)]
pub(super) struct Count(pub(super) u64);
struct CountV;
impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CountV)
    }
}
impl<'de> Visitor<'de> for CountV {
    type Value = Count;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a token count")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Count(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Count(v.max(0) as u64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        // `as` saturates; NaN becomes 0.
        Ok(Count(if v > 0.0 { v as u64 } else { 0 }))
    }
    ignore!(bool, unit, str, seq, map);
}

/// Deserialises a map whose keys are matched by `$body`, for visitors that
/// read an object into `$value` (a `mut` binding) and ignore other kinds.
macro_rules! read_map {
    ($map:ident, $key:ident => $body:expr) => {{
        while let Some(Str(k)) = $map.next_key::<Str<'de>>()? {
            let $key = k.as_deref().unwrap_or("");
            $body
        }
    }};
}

struct RecordV;
impl<'de> Deserialize<'de> for Record<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RecordV)
    }
}
impl<'de> Visitor<'de> for RecordV {
    type Value = Record<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a transcript record (a JSON object)")
    }
    // Anything but an object is an error, so the caller skips the line.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut r = Record::default();
        read_map!(map, key => match key {
            "type" => r.kind = map.next_value::<Str>()?.0,
            "subtype" => r.subtype = map.next_value::<Str>()?.0,
            "isMeta" => r.is_meta = map.next_value::<Bool>()?.0,
            "isSidechain" => r.is_sidechain = map.next_value::<Bool>()?.0,
            "isCompactSummary" => r.is_compact_summary = map.next_value::<Bool>()?.0,
            "isApiErrorMessage" => r.is_api_error_message = map.next_value::<Bool>()?.0,
            "isVisibleInTranscriptOnly" => {
                r.is_visible_in_transcript_only = map.next_value::<Bool>()?.0
            }
            "origin" => r.origin_kind = map.next_value::<Origin>()?.0,
            "promptSource" => r.prompt_source = map.next_value::<Str>()?.0,
            "timestamp" => r.timestamp = map.next_value::<Str>()?.0,
            "message" => r.message = map.next_value::<OptMessage>()?.0,
            "requestId" => r.request_id = map.next_value::<Str>()?.0,
            "agentId" => r.agent_id = map.next_value::<Str>()?.0,
            "sessionId" => r.session_id = map.next_value::<Str>()?.0,
            "cwd" => r.cwd = map.next_value::<Str>()?.0,
            "gitBranch" => r.git_branch = map.next_value::<Str>()?.0,
            "version" => r.version = map.next_value::<Str>()?.0,
            "uuid" => r.uuid = map.next_value::<Str>()?.0,
            "parentUuid" => r.parent_uuid = map.next_value::<Str>()?.0,
            "toolUseResult" => r.tool_use_result = map.next_value::<OptToolUseResult>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        });
        Ok(r)
    }
}

#[derive(Default)]
struct Origin<'a>(Option<Cow<'a, str>>);
lenient!(Origin, OriginV, "an origin object");
impl<'de> Visitor<'de> for OriginV {
    type Value = Origin<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Self::expecting_text(f)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut kind = None;
        read_map!(map, key => match key {
            "kind" => kind = map.next_value::<Str>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        });
        Ok(Origin(kind))
    }
    ignore!(bool, num, unit, str, seq);
}

#[derive(Default)]
struct OptMessage<'a>(Option<Message<'a>>);
lenient!(OptMessage, MessageV, "a message object");
impl<'de> Visitor<'de> for MessageV {
    type Value = OptMessage<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Self::expecting_text(f)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut m = Message::default();
        read_map!(map, key => match key {
            "id" => m.id = map.next_value::<Str>()?.0,
            "model" => m.model = map.next_value::<Str>()?.0,
            "role" => m.role = map.next_value::<Str>()?.0,
            "content" => m.content = map.next_value::<Content>()?,
            "usage" => m.usage = map.next_value::<OptUsage>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        });
        Ok(OptMessage(Some(m)))
    }
    ignore!(bool, num, unit, str, seq);
}

lenient!(Content, ContentV, "a string or a list of blocks");
impl<'de> Visitor<'de> for ContentV {
    type Value = Content<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Self::expecting_text(f)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Content::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Content::Text(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Content::Text(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(16));
        while let Some(b) = seq.next_element::<Block>()? {
            blocks.push(b);
        }
        Ok(Content::Blocks(blocks))
    }
    ignore!(bool, num, unit, map);
}

lenient!(Block, BlockV, "a content block");
impl<'de> Visitor<'de> for BlockV {
    type Value = Block<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Self::expecting_text(f)
    }
    // The block's `type` may come after the fields it governs, so every
    // field any block type uses is read first and sorted out at the end.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut kind = None;
        let mut text = None;
        let mut id = None;
        let mut name = None;
        let mut input = ToolInput::default();
        let mut tool_use_id = None;
        let mut is_error = false;
        let mut content = Content::None;
        read_map!(map, key => match key {
            "type" => kind = map.next_value::<Str>()?.0,
            "text" => text = map.next_value::<Str>()?.0,
            "id" => id = map.next_value::<Str>()?.0,
            "name" => name = map.next_value::<Str>()?.0,
            "input" => input = map.next_value::<ToolInput>()?,
            "tool_use_id" => tool_use_id = map.next_value::<Str>()?.0,
            "is_error" => is_error = map.next_value::<Bool>()?.0,
            "content" => content = map.next_value::<Content>()?,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        });
        Ok(match kind.as_deref() {
            Some("text") => Block::Text(text.unwrap_or_default()),
            Some("thinking" | "redacted_thinking") => Block::Thinking,
            Some("tool_use" | "server_tool_use") => Block::ToolUse(Box::new(ToolUse {
                id,
                name: name.unwrap_or_default(),
                input,
            })),
            Some("tool_result") => Block::ToolResult(ToolResult {
                tool_use_id,
                is_error,
                content,
            }),
            Some("image") => Block::Image,
            _ => Block::Other,
        })
    }
    ignore!(bool, num, unit, str, seq);
}

lenient!(ToolInput, ToolInputV, "tool arguments");
impl<'de> Visitor<'de> for ToolInputV {
    type Value = ToolInput<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Self::expecting_text(f)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut t = ToolInput::default();
        read_map!(map, key => match key {
            "file_path" => t.file_path = map.next_value::<Str>()?.0,
            "notebook_path" => t.notebook_path = map.next_value::<Str>()?.0,
            "command" => t.command = map.next_value::<Str>()?.0,
            "description" => t.description = map.next_value::<Str>()?.0,
            "subagent_type" => t.subagent_type = map.next_value::<Str>()?.0,
            "prompt" => t.prompt = map.next_value::<Str>()?.0,
            "todos" => t.todos = map.next_value::<Todos>()?.0,
            "plan" => t.plan = map.next_value::<Str>()?.0,
            "subject" => t.subject = map.next_value::<Str>()?.0,
            "taskId" => t.task_id = map.next_value::<Str>()?.0,
            "status" => t.status = map.next_value::<Str>()?.0,
            "query" => t.query = map.next_value::<Str>()?.0,
            "url" => t.url = map.next_value::<Str>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        });
        Ok(t)
    }
    ignore!(bool, num, unit, str, seq);
}

#[derive(Default)]
struct OptUsage(Option<Usage>);
struct UsageV;
impl<'de> Deserialize<'de> for OptUsage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UsageV)
    }
}
impl<'de> Visitor<'de> for UsageV {
    type Value = OptUsage;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a usage object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut u = Usage::default();
        read_map!(map, key => match key {
            "input_tokens" => u.input_tokens = map.next_value::<Count>()?.0,
            "output_tokens" => u.output_tokens = map.next_value::<Count>()?.0,
            "cache_creation_input_tokens" => {
                u.cache_creation_input_tokens = map.next_value::<Count>()?.0
            }
            "cache_read_input_tokens" => u.cache_read_input_tokens = map.next_value::<Count>()?.0,
            "cache_creation" => {
                let split = map.next_value::<Counts>()?;
                u.cache_creation_5m = split.get("ephemeral_5m_input_tokens");
                u.cache_creation_1h = split.get("ephemeral_1h_input_tokens");
            }
            "server_tool_use" => {
                let tools = map.next_value::<Counts>()?;
                u.web_search_requests = tools.get("web_search_requests");
                u.web_fetch_requests = tools.get("web_fetch_requests");
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        });
        Ok(OptUsage(Some(u)))
    }
    ignore!(bool, num, unit, str, seq);
}

/// A small object of named counts (`cache_creation`, `server_tool_use`).
#[derive(Default)]
struct Counts(Vec<(String, u64)>);
struct CountsV;
impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CountsV)
    }
}
impl Counts {
    fn get(&self, name: &str) -> u64 {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map_or(0, |(_, v)| *v)
    }
}
impl<'de> Visitor<'de> for CountsV {
    type Value = Counts;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of counts")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        read_map!(map, key => {
            let v = map.next_value::<Count>()?.0;
            if v > 0 {
                out.push((key.to_owned(), v));
            }
        });
        Ok(Counts(out))
    }
    ignore!(bool, num, unit, str, seq);
}

#[derive(Default)]
struct OptToolUseResult<'a>(Option<ToolUseResult<'a>>);
lenient!(OptToolUseResult, ToolUseResultV, "a tool use result");
impl<'de> Visitor<'de> for ToolUseResultV {
    type Value = OptToolUseResult<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Self::expecting_text(f)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(OptToolUseResult(Some(ToolUseResult {
            text: Some(Cow::Borrowed(v)),
            ..Default::default()
        })))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.visit_string(v.to_owned())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(OptToolUseResult(Some(ToolUseResult {
            text: Some(Cow::Owned(v)),
            ..Default::default()
        })))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut t = ToolUseResult::default();
        read_map!(map, key => match key {
            "type" => t.kind = map.next_value::<Str>()?.0,
            "filePath" => t.file_path = map.next_value::<Str>()?.0,
            "newTodos" => t.new_todos = map.next_value::<Todos>()?.0,
            "plan" => t.plan = map.next_value::<Str>()?.0,
            "agentId" => t.agent_id = map.next_value::<Str>()?.0,
            "stdout" => t.stdout = map.next_value::<Str>()?.0,
            "stderr" => t.stderr = map.next_value::<Str>()?.0,
            "interrupted" => t.interrupted = map.next_value::<Bool>()?.0,
            "answers" => t.answers = map.next_value::<Pairs>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        });
        Ok(OptToolUseResult(Some(t)))
    }
    ignore!(bool, num, unit, seq);
}

#[derive(Default)]
struct Todos<'a>(Vec<Todo<'a>>);
lenient!(Todos, TodosV, "a to-do list");
impl<'de> Visitor<'de> for TodosV {
    type Value = Todos<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Self::expecting_text(f)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(OptTodo(t)) = seq.next_element::<OptTodo>()? {
            out.extend(t);
        }
        Ok(Todos(out))
    }
    ignore!(bool, num, unit, str, map);
}

#[derive(Default)]
struct OptTodo<'a>(Option<Todo<'a>>);
lenient!(OptTodo, TodoV, "a to-do");
impl<'de> Visitor<'de> for TodoV {
    type Value = OptTodo<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Self::expecting_text(f)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut content = None;
        let mut status = None;
        read_map!(map, key => match key {
            "content" => content = map.next_value::<Str>()?.0,
            "status" => status = map.next_value::<Str>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        });
        Ok(OptTodo(content.map(|content| Todo {
            content,
            status: status.unwrap_or_default(),
        })))
    }
    ignore!(bool, num, unit, str, seq);
}

/// An object of strings (`answers`): other values are skipped.
#[derive(Default)]
struct Pairs<'a>(Vec<(Cow<'a, str>, Cow<'a, str>)>);
lenient!(Pairs, PairsV, "an object of strings");
impl<'de> Visitor<'de> for PairsV {
    type Value = Pairs<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Self::expecting_text(f)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Str(k)) = map.next_key::<Str<'de>>()? {
            let Str(v) = map.next_value::<Str>()?;
            if let (Some(k), Some(v)) = (k, v) {
                out.push((k, v));
            }
        }
        Ok(Pairs(out))
    }
    ignore!(bool, num, unit, str, seq);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Option<Record<'_>> {
        Record::parse(s.as_bytes())
    }

    #[test]
    fn assistant_line_from_2_1_332() {
        let line = r#"{"parentUuid":"x","isSidechain":false,"message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"echo hi && pwd","description":"Print"}}],"stop_reason":"tool_use","usage":{"input_tokens":11,"cache_creation_input_tokens":1001,"cache_read_input_tokens":20100,"output_tokens":51,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":1001},"fallback_credit":null}},"requestId":"req_1","type":"assistant","timestamp":"2026-11-30T04:20:46.670Z","cwd":"/tmp/p","sessionId":"s","gitBranch":"master"}"#;
        let r = parse(line).unwrap();
        assert!(r.is_assistant());
        assert_eq!(r.message_id(), Some("msg_1"));
        assert_eq!(r.request_id.as_deref(), Some("req_1"));
        assert_eq!(r.model(), Some("claude-opus-5-5"));
        assert_eq!(r.git_branch.as_deref(), Some("master"));
        let u = r.usage().unwrap();
        assert_eq!(
            (
                u.input_tokens,
                u.cache_creation_input_tokens,
                u.cache_read_input_tokens
            ),
            (11, 1001, 20100)
        );
        assert_eq!(
            (u.output_tokens, u.cache_creation_5m, u.cache_creation_1h),
            (51, 1001, 0)
        );
        let Block::ToolUse(t) = &r.content().blocks()[0] else {
            panic!("not a tool_use: {:?}", r.content())
        };
        assert_eq!(t.name, "Bash");
        assert_eq!(t.input.command.as_deref(), Some("echo hi && pwd"));
        // No escapes: nothing was copied.
        assert!(matches!(t.input.command, Some(Cow::Borrowed(_))));
    }

    #[test]
    fn tool_result_type_after_content_and_nested_blocks() {
        let line = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","content":[{"type":"text","text":"a\nb"}],"is_error":true,"type":"tool_result"}]}}"#;
        let r = parse(line).unwrap();
        let Block::ToolResult(tr) = &r.content().blocks()[0] else {
            panic!()
        };
        assert!(tr.is_error);
        assert_eq!(tr.tool_use_id.as_deref(), Some("t1"));
        assert_eq!(tr.content.texts().collect::<Vec<_>>(), ["a\nb"]);
    }

    #[test]
    fn wrong_types_read_as_absent() {
        let line = r#"{"type":"user","isMeta":"yes","isSidechain":1,"origin":"human","timestamp":12,"message":{"id":[1],"content":{"a":1},"usage":{"input_tokens":"9","output_tokens":-3,"cache_read_input_tokens":2.5}},"cwd":null,"extra":{"deep":[1,{"x":null}]}}"#;
        let r = parse(line).unwrap();
        assert!(r.is_user());
        assert!(!r.is_meta && !r.is_sidechain);
        assert_eq!(r.origin_kind, None);
        assert_eq!(r.timestamp, None);
        assert_eq!(r.content(), &Content::None);
        let u = r.usage().unwrap();
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.cache_read_input_tokens),
            (0, 0, 2)
        );
    }

    #[test]
    fn unknown_blocks_and_odd_block_values() {
        let line = r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"future_block","x":1},7,"str",null,{"type":"image","source":{"data":"AAAA"}},{"type":"text","text":"caf\u00e9"}]}}"#;
        let r = parse(line).unwrap();
        let b = r.content().blocks();
        assert_eq!(b.len(), 7);
        assert_eq!(b[0], Block::Thinking);
        assert!(b[1..5].iter().all(|b| *b == Block::Other));
        assert_eq!(b[5], Block::Image);
        // Escaped text is owned, and decoded.
        assert_eq!(b[6], Block::Text(Cow::Owned("café".into())));
    }

    #[test]
    fn non_records_fail() {
        for bad in [
            &b""[..],
            b"   ",
            b"[1,2]",
            b"\"text\"",
            b"{\"type\":\"user\"",
            b"{\"type\":\"us\xffer\"}",
            b"{\"type\":\"user\"} trailing",
            b"nul\x00l",
        ] {
            assert!(
                Record::parse(bad).is_none(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn origin_and_flags() {
        let line = r#"{"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"origin":{"kind":"task-notification","producer":"x"},"promptSource":"system","agentId":"a1","isApiErrorMessage":true}"#;
        let r = parse(line).unwrap();
        assert!(r.is_compact_summary && r.is_visible_in_transcript_only && r.is_api_error_message);
        assert_eq!(r.origin_kind.as_deref(), Some("task-notification"));
        assert_eq!(r.prompt_source.as_deref(), Some("system"));
        assert_eq!(r.agent_id.as_deref(), Some("a1"));
    }

    #[test]
    fn tool_use_results() {
        let line = r#"{"type":"user","toolUseResult":{"type":"update","filePath":"/p/a.md","content":"x","structuredPatch":[]}}"#;
        let t = parse(line).unwrap().tool_use_result.unwrap();
        assert_eq!(t.kind.as_deref(), Some("update"));
        assert_eq!(t.file_path.as_deref(), Some("/p/a.md"));
        let line = r#"{"type":"user","toolUseResult":{"oldTodos":[],"newTodos":[{"content":"Write tests","status":"pending","activeForm":"x"},7,{"status":"completed"},{"content":"Ship","status":"completed"}]}}"#;
        let t = parse(line).unwrap().tool_use_result.unwrap();
        let todos: Vec<(&str, &str)> = t
            .new_todos
            .iter()
            .map(|t| (t.content.as_ref(), t.status.as_ref()))
            .collect();
        assert_eq!(todos, [("Write tests", "pending"), ("Ship", "completed")]);
        let line = r#"{"type":"user","toolUseResult":"Error: please add it first"}"#;
        let t = parse(line).unwrap().tool_use_result.unwrap();
        assert_eq!(t.text.as_deref(), Some("Error: please add it first"));
        let line =
            r#"{"type":"user","toolUseResult":{"answers":{"Which?":"Both","n":3},"questions":[]}}"#;
        let t = parse(line).unwrap().tool_use_result.unwrap();
        assert_eq!(
            t.answers,
            [(Cow::Borrowed("Which?"), Cow::Borrowed("Both"))]
        );
        let line = r#"{"type":"user","toolUseResult":[1,2]}"#;
        assert_eq!(parse(line).unwrap().tool_use_result, None);
    }
}
