//! Shared by the `guard_*` tests: a scratch project
//! and state folder, and transcripts shaped like Claude Code 2.1.332's —
//! one line per content block, every line repeating the response's usage,
//! plus the records that surround them (attachments, API requests, hook
//! summaries, compaction markers).

use cairn::config::Config;
use cairn::context::{Clock, Ctx, Env};
use cairn::event::Stop as StopInfo;
use cairn::guard::{self, Outcome};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The harness clock, `common::NOW`; spelled out because `benches/guard.rs`
/// includes this file on its own.
pub const NOW: &str = "2026-11-30T12:00:00Z";
pub const SID: &str = "592d55cf-11d7-4a1b-99fa-bf536f8ae9a6";
pub const HAIKU: &str = "claude-haiku-4-5";
pub const OPUS_1M: &str = "claude-opus-5-5";

pub struct Scratch {
    pub _dir: tempfile::TempDir,
    pub base: PathBuf,
    pub root: PathBuf,
    pub state: PathBuf,
    pub projects: PathBuf,
}

impl Scratch {
    pub fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("proj");
        std::fs::create_dir_all(root.join("memory_sessions/logs")).unwrap();
        let state = base.join("state");
        let projects = base.join("config/projects/-proj");
        std::fs::create_dir_all(&projects).unwrap();
        Scratch {
            _dir: dir,
            base,
            root,
            state,
            projects,
        }
    }

    pub fn ctx(&self) -> Ctx {
        self.ctx_at(NOW)
    }

    pub fn ctx_at(&self, now: &str) -> Ctx {
        Ctx::new(
            Env::from_pairs([
                ("CAIRN_STATE_DIR", self.state.display().to_string()),
                ("HOME", self.base.join("home").display().to_string()),
                ("TZ", "UTC".to_string()),
            ]),
            Clock::Fixed(now.parse().unwrap()),
        )
    }

    pub fn session(&self, sid: &str) -> Session {
        Session::new(&self.projects.join(format!("{sid}.jsonl")), sid, &self.root)
    }

    pub fn stop_info(&self, s: &Session) -> StopInfo {
        StopInfo {
            session_id: s.sid.clone(),
            transcript_path: Some(s.path.clone()),
            cwd: Some(self.root.clone()),
            stop_hook_active: false,
            last_assistant_message: None,
        }
    }

    pub fn check(&self, s: &Session) -> Outcome {
        self.check_with(&Config::default(), s)
    }

    pub fn check_with(&self, config: &Config, s: &Session) -> Outcome {
        guard::check(
            &self.ctx(),
            &config.for_guard(),
            &self.root,
            &self.stop_info(s),
            None,
            &guard::Unpriced,
        )
        .unwrap()
    }

    pub fn checkpoints(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.root.join("memory_sessions/checkpoints"))
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        v.sort();
        v
    }
}

/// What an outcome is, in one word, for compact assertions.
pub fn kind(o: &Outcome) -> String {
    match o {
        Outcome::Silent(q) => format!("silent:{q:?}"),
        Outcome::Rearmed => "rearmed".into(),
        Outcome::Block(b) => format!("block:{}", b.level.as_str()),
    }
}

/// A transcript being written, the way the client writes it.
pub struct Session {
    pub path: PathBuf,
    pub sid: String,
    pub cwd: String,
    pub model: String,
    pub branch: String,
    n: u64,
    parent: String,
}

impl Session {
    pub fn new(path: &Path, sid: &str, cwd: &Path) -> Session {
        std::fs::File::create(path).unwrap();
        Session {
            path: path.to_path_buf(),
            sid: sid.to_string(),
            cwd: cwd.display().to_string(),
            model: HAIKU.to_string(),
            branch: "main".to_string(),
            n: 0,
            parent: String::new(),
        }
    }

    pub fn model(mut self, m: &str) -> Session {
        self.model = m.to_string();
        self
    }

    fn next(&mut self) -> (String, String) {
        self.n += 1;
        let uuid = format!("00000000-0000-4000-8000-{:012}", self.n);
        let ts = format!(
            "2026-11-30T11:{:02}:{:02}.000Z",
            (self.n / 60) % 60,
            self.n % 60
        );
        (uuid, ts)
    }

    /// The fields every conversation record carries.
    fn envelope(&mut self, kind: &str) -> serde_json::Map<String, Value> {
        let (uuid, ts) = self.next();
        let parent = std::mem::replace(&mut self.parent, uuid.clone());
        let v = json!({
            "parentUuid": if parent.is_empty() { Value::Null } else { Value::String(parent) },
            "isSidechain": false,
            "type": kind,
            "uuid": uuid,
            "timestamp": ts,
            "userType": "external",
            "entrypoint": "cli",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": "2.1.332",
            "gitBranch": self.branch,
        });
        v.as_object().unwrap().clone()
    }

    pub fn append(&self, line: &str) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .unwrap();
        f.write_all(line.as_bytes()).unwrap();
        f.write_all(b"\n").unwrap();
    }

    pub fn append_raw(&self, bytes: &[u8]) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .unwrap();
        f.write_all(bytes).unwrap();
    }

    fn push(&self, v: serde_json::Map<String, Value>) {
        self.append(&Value::Object(v).to_string());
    }

    /// Records without conversation: the client writes many around each turn.
    pub fn noise(&mut self) {
        let mut a = self.envelope("attachment");
        a.insert(
            "attachment".into(),
            json!({"type": "hook_success", "content": "ok"}),
        );
        self.push(a);
        self.append(&json!({"type": "api-request", "id": format!("req-{}", self.n)}).to_string());
        self.append(&json!({"type": "file-history-snapshot", "messageId": "x"}).to_string());
    }

    pub fn prompt(&mut self, text: &str) {
        let mut r = self.envelope("user");
        r.insert("message".into(), json!({"role": "user", "content": text}));
        r.insert("origin".into(), json!({"kind": "human"}));
        r.insert("promptSource".into(), json!("typed"));
        r.insert("permissionMode".into(), json!("default"));
        self.push(r);
        self.noise();
    }

    /// Hook feedback, as the client records a block's reason.
    pub fn hook_feedback(&mut self, text: &str) {
        let mut r = self.envelope("user");
        r.insert(
            "message".into(),
            json!({"role": "user", "content": format!("Stop hook feedback:\n{text}")}),
        );
        r.insert("isMeta".into(), json!(true));
        r.insert("rowSource".into(), json!("hook"));
        self.push(r);
    }

    pub fn task_notification(&mut self) {
        let mut r = self.envelope("user");
        r.insert(
            "message".into(),
            json!({"role": "user", "content": "<task-notification>\n<task-id>a1</task-id>\n</task-notification>"}),
        );
        r.insert("origin".into(), json!({"kind": "task-notification"}));
        r.insert("promptSource".into(), json!("system"));
        self.push(r);
    }

    /// One API response: one line per block, each with the same usage.
    /// The context fill is `fill` tokens (input + cache write + cache read).
    pub fn response(&mut self, fill: u64, blocks: &[Value]) -> String {
        let id = format!("msg_{:04}", self.n + 1);
        let req = format!("req_{:04}", self.n + 1);
        let usage = json!({
            "input_tokens": 11,
            "cache_creation_input_tokens": 1000,
            "cache_read_input_tokens": fill.saturating_sub(1011),
            "output_tokens": 51,
            "output_tokens_details": {"thinking_tokens": 0},
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 1000},
            "speed": "standard"
        });
        let stop = if blocks.iter().any(|b| b["type"] == "tool_use") {
            "tool_use"
        } else {
            "end_turn"
        };
        for (i, b) in blocks.iter().enumerate() {
            let mut r = self.envelope("assistant");
            r.insert(
                "message".into(),
                json!({
                    "id": id, "type": "message", "role": "assistant", "model": self.model,
                    "content": [b], "stop_reason": stop, "stop_sequence": null,
                    "usage": usage, "stop_details": null
                }),
            );
            r.insert("requestId".into(), json!(req));
            r.insert("apiBlockIndex".into(), json!(i));
            r.insert("requestedModel".into(), json!(self.model));
            self.push(r);
        }
        id
    }

    /// A text-only answer at `fill`.
    pub fn answer(&mut self, fill: u64, text: &str) -> String {
        self.response(
            fill,
            &[
                json!({"type": "thinking", "thinking": "", "signature": "sig"}),
                json!({"type": "text", "text": text}),
            ],
        )
    }

    /// A tool call and its result. `result` is the record's `toolUseResult`.
    pub fn tool(
        &mut self,
        fill: u64,
        name: &str,
        input: Value,
        output: &str,
        is_error: bool,
        result: Value,
    ) {
        let tid = format!("toolu_{:04}", self.n + 1);
        self.response(
            fill,
            &[
                json!({"type": "text", "text": format!("Using {name}.")}),
                json!({"type": "tool_use", "id": tid, "name": name, "input": input}),
            ],
        );
        let mut r = self.envelope("user");
        r.insert(
            "message".into(),
            json!({"role": "user", "content": [
                {"tool_use_id": tid, "type": "tool_result", "content": output, "is_error": is_error}
            ]}),
        );
        r.insert("toolUseResult".into(), result);
        self.push(r);
        self.noise();
    }

    pub fn stop_summary(&mut self) {
        let mut r = self.envelope("system");
        r.insert("subtype".into(), json!("stop_hook_summary"));
        r.insert("hookCount".into(), json!(1));
        r.insert("hookErrors".into(), json!([]));
        self.push(r);
        let mut r = self.envelope("system");
        r.insert("subtype".into(), json!("turn_duration"));
        r.insert("durationMs".into(), json!(1234));
        self.push(r);
    }

    /// `/compact`: the boundary, then the summary the client writes.
    pub fn compact(&mut self, pre: u64) {
        let mut r = self.envelope("system");
        r.insert("subtype".into(), json!("compact_boundary"));
        r.insert("parentUuid".into(), Value::Null);
        r.insert(
            "compactMetadata".into(),
            json!({"trigger": "manual", "preTokens": pre, "postTokens": 2958}),
        );
        self.push(r);
        let mut r = self.envelope("user");
        r.insert(
            "message".into(),
            json!({"role": "user", "content": "This session is being continued from a previous conversation that ran out of context. Summary: …"}),
        );
        r.insert("isVisibleInTranscriptOnly".into(), json!(true));
        r.insert("isCompactSummary".into(), json!(true));
        self.push(r);
    }

    /// A subagent's transcript beside the session's.
    pub fn subagent_file(&self, agent_id: &str) {
        let dir = self.path.with_extension("").join("subagents");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("agent-{agent_id}.jsonl")), "{}\n").unwrap();
        std::fs::write(
            dir.join(format!("agent-{agent_id}.meta.json")),
            r#"{"agentType":"general-purpose"}"#,
        )
        .unwrap();
    }
}
