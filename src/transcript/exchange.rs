//! Finding the last human prompt of a transcript and what answered it.
//!
//! Records are first reduced to [`Item`]s, the few facts a turn is made of.
//! The tail reader produces them last-first and stops at the prompt; the
//! full-parse oracle produces all of them first-to-last. Both then use the
//! same [`Selector`] and [`build`], so they can only differ in which lines
//! they read, which is what the property tests check.

use super::record::{Block, Content, Record};
use super::text::{
    is_client_text, starts_with_any, strip_blocks, tag_content, truncate_head, truncate_tail,
};
use super::{Digest, Exchange};
use std::collections::{HashMap, HashSet};

/// Longest human text kept, in characters.
pub const MAX_HUMAN_CHARS: usize = 4000;
/// Longest assistant text kept, in characters (the end is kept).
pub const MAX_ASSISTANT_CHARS: usize = 6000;
/// Longest digest entry (a command, an error), in characters.
pub const MAX_DIGEST_ENTRY_CHARS: usize = 200;
/// Most entries kept in each digest list.
pub const MAX_DIGEST_ENTRIES: usize = 50;
/// Longest file path kept: a cut path names another file, so the cap only
/// guards against absurd values.
const MAX_PATH_CHARS: usize = 1000;

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Prompt {
    pub text: String,
    pub timestamp: Option<String>,
    /// A slash command (`<command-name>` wrapper) rather than typed prose.
    pub command: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Op {
    Read(String),
    Edit(String),
    Write(String),
    Command(String),
    Subagent(String),
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Item {
    Prompt(Prompt),
    /// Output of a command the client ran itself (`/compact`, `/model`, …).
    LocalOutput,
    /// Any main-thread assistant record, even one without text.
    Assistant,
    AssistantText(String),
    ToolUse {
        id: Option<String>,
        name: String,
        op: Op,
    },
    ToolError {
        tool_use_id: Option<String>,
        line: String,
    },
}

/// Appends the items of one record, in the record's own order.
pub(super) fn items_of(rec: &Record, out: &mut Vec<Item>) {
    // Subagents work for the main thread; their records (inside the main
    // file on 1.0.x clients) are neither prompts nor the turn's activity.
    if rec.is_sidechain {
        return;
    }
    if rec.is_assistant() {
        out.push(Item::Assistant);
        if rec.is_synthetic() || rec.is_api_error_message {
            return;
        }
        for block in rec.content().blocks() {
            match block {
                Block::Text(t) => {
                    let t = t.trim();
                    if !t.is_empty() {
                        out.push(Item::AssistantText(t.to_owned()));
                    }
                }
                Block::ToolUse(tu) => out.push(Item::ToolUse {
                    id: tu.id.as_deref().map(str::to_owned),
                    name: tu.name.to_string(),
                    op: op_of(&tu.name, &tu.input),
                }),
                _ => {}
            }
        }
        // Very old clients stored a plain string.
        if let Content::Text(t) = rec.content() {
            let t = t.trim();
            if !t.is_empty() {
                out.push(Item::AssistantText(t.to_owned()));
            }
        }
        return;
    }
    if !rec.is_user() {
        return;
    }
    let blocks = rec.content().blocks();
    if blocks.iter().any(|b| matches!(b, Block::ToolResult(_))) {
        for b in blocks {
            if let Block::ToolResult(tr) = b
                && tr.is_error
            {
                let text: Vec<&str> = tr.content.texts().collect();
                out.push(Item::ToolError {
                    tool_use_id: tr.tool_use_id.as_deref().map(str::to_owned),
                    line: error_line(&text.join("\n")),
                });
            }
        }
        return;
    }
    match classify_user(rec) {
        UserText::Prompt(p) => out.push(Item::Prompt(p)),
        UserText::LocalOutput => out.push(Item::LocalOutput),
        UserText::NotHuman => {}
    }
}

fn op_of(name: &str, input: &super::record::ToolInput) -> Op {
    let path = || {
        input
            .file_path
            .as_deref()
            .or(input.notebook_path.as_deref())
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
    };
    let op = match name {
        "Read" | "NotebookRead" => path().map(Op::Read),
        "Edit" | "MultiEdit" | "NotebookEdit" => path().map(Op::Edit),
        "Write" => path().map(Op::Write),
        "Bash" => input
            .command
            .as_deref()
            .and_then(first_line)
            .map(Op::Command),
        "Agent" | "Task" => [&input.description, &input.subagent_type, &input.prompt]
            .into_iter()
            .find_map(|s| s.as_deref().and_then(first_line))
            .map(Op::Subagent),
        _ => None,
    };
    op.unwrap_or(Op::Other)
}

enum UserText {
    Prompt(Prompt),
    LocalOutput,
    NotHuman,
}

/// Whether a user record (without tool results) is something a human typed.
fn classify_user(rec: &Record) -> UserText {
    if rec.is_meta || rec.is_compact_summary || rec.is_visible_in_transcript_only {
        return UserText::NotHuman;
    }
    if rec.origin_kind.as_deref().is_some_and(|k| k != "human")
        || rec.prompt_source.as_deref() == Some("system")
    {
        return UserText::NotHuman;
    }
    let content = rec.content();
    let mut text = String::new();
    for t in content.texts() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(t);
    }
    let has_image = content.blocks().contains(&Block::Image);
    let text = strip_blocks(&text, "<system-reminder>", "</system-reminder>");
    let text = text.trim();

    if starts_with_any(text, &["<local-command-stdout>", "<local-command-stderr>"]) {
        return UserText::LocalOutput;
    }
    if is_client_text(text) {
        return UserText::NotHuman;
    }
    // `<command-name>` (and on older clients `<command-message>` first).
    if let Some(name) = text
        .starts_with("<command-")
        .then(|| tag_content(text, "command-name"))
        .flatten()
    {
        let args = tag_content(text, "command-args").unwrap_or("");
        let line = format!("{} {}", name.trim(), args.trim());
        return UserText::Prompt(Prompt {
            text: line.trim().to_owned(),
            timestamp: rec.timestamp.as_deref().map(str::to_owned),
            command: true,
        });
    }
    let text = if text.is_empty() && has_image {
        "[image]"
    } else {
        text
    };
    if text.is_empty() {
        return UserText::NotHuman;
    }
    UserText::Prompt(Prompt {
        text: text.to_owned(),
        timestamp: rec.timestamp.as_deref().map(str::to_owned),
        command: false,
    })
}

/// The first non-blank line, trimmed (not capped: see [`Exchange::sanitized`]).
fn first_line(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(line.to_owned())
}

fn error_line(text: &str) -> String {
    let text = text
        .replace("<tool_use_error>", "")
        .replace("</tool_use_error>", "");
    first_line(&text).unwrap_or_else(|| "(no message)".to_owned())
}

/// Recognises the prompt when items are fed last-first.
#[derive(Debug, Default)]
pub(super) struct Selector {
    /// A local command's output was seen and no assistant record since.
    local_output_after: bool,
}

impl Selector {
    /// True when `item` is the prompt that starts the last exchange.
    pub(super) fn is_last_prompt(&mut self, item: &Item) -> bool {
        match item {
            Item::LocalOutput => {
                self.local_output_after = true;
                false
            }
            Item::Assistant => {
                self.local_output_after = false;
                false
            }
            // A slash command the client ran itself got no answer from the
            // model: it is not what the turn is about.
            Item::Prompt(p) if p.command && self.local_output_after => {
                self.local_output_after = false;
                false
            }
            Item::Prompt(_) => true,
            _ => false,
        }
    }
}

/// The exchange made of `prompt` and the items after it, in file order.
/// Texts are whole: cutting them is [`Exchange::sanitized`]'s job, after the
/// caller's redaction.
pub(super) fn build(prompt: Prompt, after: &[Item]) -> Exchange {
    let mut failed: HashSet<&str> = HashSet::new();
    let mut names: HashMap<&str, &str> = HashMap::new();
    for item in after {
        match item {
            Item::ToolError {
                tool_use_id: Some(id),
                ..
            } => {
                failed.insert(id);
            }
            Item::ToolUse {
                id: Some(id), name, ..
            } => {
                names.insert(id, name);
            }
            _ => {}
        }
    }

    let mut digest = Digest::default();
    let mut texts: Vec<&str> = Vec::new();
    for item in after {
        match item {
            Item::AssistantText(t) => texts.push(t),
            Item::ToolUse { id, op, .. } => {
                // A read or edit that failed did not touch the file; its
                // error is in `tool_errors`. A failed command still ran.
                let failed = id.as_deref().is_some_and(|id| failed.contains(id));
                match op {
                    Op::Read(p) if !failed => push_unique(&mut digest.files_read, p),
                    Op::Edit(p) if !failed => push_unique(&mut digest.files_edited, p),
                    Op::Write(p) if !failed => push_unique(&mut digest.files_written, p),
                    Op::Command(c) => push_unique(&mut digest.commands, c),
                    Op::Subagent(d) => push_unique(&mut digest.subagents, d),
                    _ => {}
                }
            }
            Item::ToolError { tool_use_id, line } => {
                let name = tool_use_id.as_deref().and_then(|id| names.get(id));
                let entry = match name {
                    Some(name) => format!("{name}: {line}"),
                    None => line.clone(),
                };
                push_unique(&mut digest.tool_errors, &entry);
            }
            _ => {}
        }
    }
    Exchange {
        human: prompt.text,
        assistant: texts.join("\n\n"),
        timestamp: prompt.timestamp,
        digest,
    }
}

impl Exchange {
    /// Applies `clean` (the caller's redactor) to every text, then cuts each
    /// to its cap. In this order because a cut first could split a secret:
    /// a token whose head falls before the cut, or a PEM key whose header
    /// does, no longer looks like a secret and its rest would survive.
    /// The readers return whole texts so that no one can cut before this.
    pub fn sanitized(self, clean: &dyn Fn(&str) -> String) -> Exchange {
        let entries = |list: Vec<String>, max: usize| {
            let mut out: Vec<String> = Vec::with_capacity(list.len());
            for e in list {
                let e = truncate_head(&clean(&e), max);
                // Two entries may become one once cut or redacted.
                if !out.contains(&e) {
                    out.push(e);
                }
            }
            out
        };
        let d = self.digest;
        Exchange {
            human: truncate_head(&clean(&self.human), MAX_HUMAN_CHARS),
            assistant: truncate_tail(&clean(&self.assistant), MAX_ASSISTANT_CHARS),
            timestamp: self.timestamp,
            digest: Digest {
                files_read: entries(d.files_read, MAX_PATH_CHARS),
                files_edited: entries(d.files_edited, MAX_PATH_CHARS),
                files_written: entries(d.files_written, MAX_PATH_CHARS),
                commands: entries(d.commands, MAX_DIGEST_ENTRY_CHARS),
                tool_errors: entries(d.tool_errors, MAX_DIGEST_ENTRY_CHARS),
                subagents: entries(d.subagents, MAX_DIGEST_ENTRY_CHARS),
            },
        }
    }
}

fn push_unique(list: &mut Vec<String>, entry: &str) {
    if list.len() < MAX_DIGEST_ENTRIES && !list.iter().any(|e| e == entry) {
        list.push(entry.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(lines: &[&str]) -> Vec<Item> {
        let mut out = Vec::new();
        for l in lines {
            if let Some(r) = Record::parse(l.as_bytes()) {
                items_of(&r, &mut out);
            }
        }
        out
    }

    fn user(text: &str) -> String {
        serde_json::json!({"type":"user","message":{"role":"user","content":text},"timestamp":"T"})
            .to_string()
    }

    fn prompt_text(line: &str) -> Option<String> {
        match items(&[line]).pop()? {
            Item::Prompt(p) => Some(p.text),
            _ => None,
        }
    }

    #[test]
    fn human_text_rules() {
        assert_eq!(
            prompt_text(&user("  fix the bug  ")).as_deref(),
            Some("fix the bug")
        );
        assert_eq!(
            prompt_text(&user(
                "<system-reminder>\nctx\n</system-reminder>\nreal ask<system-reminder>x</system-reminder>"
            ))
            .as_deref(),
            Some("real ask")
        );
        assert_eq!(
            prompt_text(&user("<system-reminder>only</system-reminder>")),
            None
        );
        assert_eq!(
            prompt_text(&user("a<system-reminder>unclosed")).as_deref(),
            Some("a")
        );
        for not_human in [
            "<task-notification>\n<task-id>x</task-id>",
            "<session-start-hook>ctx</session-start-hook>",
            "<user-prompt-submit-hook>ctx</user-prompt-submit-hook>",
            "<post-tool-use-hook>ctx</post-tool-use-hook>",
            "Stop hook feedback:\n- please continue",
            "SubagentStop hook feedback:\nmore",
            "[Request interrupted by user]",
            "[Request interrupted by user for tool use]",
            "<local-command-caveat>The command below…</local-command-caveat>",
            "<bash-input>ls</bash-input>",
            "",
            "   ",
        ] {
            assert_eq!(prompt_text(&user(not_human)), None, "{not_human:?}");
        }
        // Looks like a tag but is prose.
        assert_eq!(
            prompt_text(&user("<my custom-hook> is broken")).as_deref(),
            Some("<my custom-hook> is broken")
        );
        assert_eq!(
            prompt_text(&user("Why did the Stop hook feedback: fail?")).as_deref(),
            Some("Why did the Stop hook feedback: fail?")
        );
    }

    #[test]
    fn flags_that_mark_non_human_records() {
        for extra in [
            r#""isMeta":true"#,
            r#""isCompactSummary":true"#,
            r#""isVisibleInTranscriptOnly":true"#,
            r#""isSidechain":true"#,
            r#""origin":{"kind":"task-notification"}"#,
            r#""promptSource":"system""#,
        ] {
            let line = format!(r#"{{"type":"user","message":{{"content":"hello"}},{extra}}}"#);
            assert_eq!(prompt_text(&line), None, "{extra}");
        }
        let line = r#"{"type":"user","message":{"content":"hello"},"origin":{"kind":"human"},"promptSource":"typed"}"#;
        assert_eq!(prompt_text(line).as_deref(), Some("hello"));
    }

    #[test]
    fn block_prompts_and_images() {
        let line = r#"{"type":"user","message":{"content":[{"type":"text","text":"look"},{"type":"image","source":{}},{"type":"text","text":"here"}]}}"#;
        assert_eq!(prompt_text(line).as_deref(), Some("look\nhere"));
        let line = r#"{"type":"user","message":{"content":[{"type":"image","source":{}}]}}"#;
        assert_eq!(prompt_text(line).as_deref(), Some("[image]"));
        // Text next to a tool result is the client's, not the human's.
        let line = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"},{"type":"text","text":"note"}]}}"#;
        assert_eq!(items(&[line]), []);
    }

    #[test]
    fn slash_commands() {
        let cmd = user(
            "<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args>keep the LAB notes</command-args>",
        );
        assert_eq!(
            prompt_text(&cmd).as_deref(),
            Some("/compact keep the LAB notes")
        );
        let old = user(
            "<command-message>review is running…</command-message>\n<command-name>/review</command-name>",
        );
        assert_eq!(prompt_text(&old).as_deref(), Some("/review"));
        let prose = user("why does <command-name>x</command-name> show up?");
        assert_eq!(
            prompt_text(&prose).as_deref(),
            Some("why does <command-name>x</command-name> show up?")
        );
        let out = user("<local-command-stdout>Compacted</local-command-stdout>");
        let answer = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"ok"}]}}"#;
        let typed = user("earlier question");

        let find = |lines: &[&str]| {
            let items = items(lines);
            let mut sel = Selector::default();
            items.iter().rev().find_map(|i| match i {
                Item::Prompt(p) if sel.is_last_prompt(i) => Some(p.text.clone()),
                _ => {
                    sel.is_last_prompt(i);
                    None
                }
            })
        };
        // A command the client ran locally is passed over…
        assert_eq!(
            find(&[&typed, answer, &cmd, &out]).as_deref(),
            Some("earlier question")
        );
        // …one the model answered (a custom command) is the prompt.
        assert_eq!(
            find(&[&typed, answer, &cmd, answer]).as_deref(),
            Some("/compact keep the LAB notes")
        );
    }

    #[test]
    fn digest_and_answer() {
        let prompt = user("do it");
        let lines = [
            prompt.as_str(),
            r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hm"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"  first  "}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"1","name":"Read","input":{"file_path":"/a.rs"}},{"type":"tool_use","id":"2","name":"Read","input":{"file_path":"/missing.rs"}},{"type":"tool_use","id":"3","name":"Bash","input":{"command":"\n  cargo test \\\n  --all\n"}},{"type":"tool_use","id":"4","name":"Edit","input":{"file_path":"/a.rs"}},{"type":"tool_use","id":"5","name":"Write","input":{"file_path":"/b.rs"}},{"type":"tool_use","id":"6","name":"Task","input":{"subagent_type":"explorer","prompt":"look"}},{"type":"tool_use","id":"7","name":"NotebookEdit","input":{"notebook_path":"/n.ipynb"}},{"type":"tool_use","id":"8","name":"Grep","input":{"pattern":"x"}},{"type":"tool_use","id":"9","name":"Read","input":{"file_path":"/a.rs"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"2","is_error":true,"content":"<tool_use_error>File does not exist.</tool_use_error>"},{"type":"tool_result","tool_use_id":"3","is_error":true,"content":[{"type":"text","text":"\nExit code 101\nmore"}]},{"type":"tool_result","tool_use_id":"1","content":"fine"}]}}"#,
            r#"{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"text","text":"sub"},{"type":"tool_use","id":"s","name":"Read","input":{"file_path":"/side.rs"}}]}}"#,
            r#"{"type":"assistant","model":"x","isApiErrorMessage":true,"message":{"content":[{"type":"text","text":"API Error"}]}}"#,
            r#"{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]}}"#,
        ];
        let all = items(&lines);
        let Item::Prompt(p) = all[0].clone() else {
            panic!()
        };
        let ex = build(p, &all[1..]);
        assert_eq!(ex.human, "do it");
        assert_eq!(ex.timestamp.as_deref(), Some("T"));
        assert_eq!(ex.assistant, "first\n\ndone");
        let d = ex.digest;
        assert_eq!(d.files_read, ["/a.rs"]);
        assert_eq!(d.files_edited, ["/a.rs", "/n.ipynb"]);
        assert_eq!(d.files_written, ["/b.rs"]);
        assert_eq!(d.commands, ["cargo test \\"]);
        assert_eq!(d.subagents, ["explorer"]);
        assert_eq!(
            d.tool_errors,
            ["Read: File does not exist.", "Bash: Exit code 101"]
        );
    }

    #[test]
    fn caps_cut_on_char_boundaries() {
        let s = "é".repeat(10);
        assert_eq!(truncate_head(&s, 10), s);
        assert_eq!(truncate_head(&s, 4), "ééé…");
        assert_eq!(truncate_tail(&s, 4), "…ééé");
        assert_eq!(truncate_tail(&s, 10), s);
        assert_eq!(truncate_head(&s, 0), "…");
        assert_eq!(truncate_tail(&s, 0), "");

        let long = format!("{}end", "x".repeat(7000));
        let ex = build(
            Prompt {
                text: "y".repeat(5000),
                timestamp: None,
                command: false,
            },
            &[Item::AssistantText(long)],
        );
        assert_eq!(
            ex.assistant.chars().count(),
            7003,
            "the reader does not cut"
        );
        let ex = ex.sanitized(&str::to_owned);
        assert_eq!(ex.human.chars().count(), MAX_HUMAN_CHARS);
        assert_eq!(ex.assistant.chars().count(), MAX_ASSISTANT_CHARS);
        assert!(ex.assistant.starts_with('…') && ex.assistant.ends_with("end"));
    }

    #[test]
    fn digest_lists_are_capped_and_deduplicated() {
        let mut after = Vec::new();
        for i in 0..(MAX_DIGEST_ENTRIES + 20) {
            for _ in 0..2 {
                after.push(Item::ToolUse {
                    id: None,
                    name: "Bash".into(),
                    op: Op::Command(format!("echo {i}")),
                });
            }
        }
        let p = Prompt {
            text: "x".into(),
            timestamp: None,
            command: false,
        };
        let d = build(p, &after).digest;
        assert_eq!(d.commands.len(), MAX_DIGEST_ENTRIES);
        assert_eq!(d.commands[1], "echo 1");
    }
}
