//! What the hand-off note says about the session, read from the end of the
//! transcript: the last human prompts, files touched (with line numbers
//! where the tool results give them), recent commands, the branch.
//!
//! This runs only when a level fires (a few times per session at most), so
//! it can afford a forward parse of the last few megabytes; the hot path of
//! every Stop never comes here.

use crate::format::truncate_head as cut;
use crate::transcript::{Block, Content, Record, StreamReader};
use memchr::memmem;
use serde::Deserialize;
use std::collections::{HashMap, VecDeque};

use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// The same budget as the tail reader: what a hand-off needs is recent.
pub const SCAN_BYTES: u64 = crate::transcript::MAX_TAIL_BYTES;
const MAX_PROMPTS: usize = 3;
const MAX_PROMPT_CHARS: usize = 400;
const MAX_COMMANDS: usize = 5;
const MAX_COMMAND_CHARS: usize = 160;
const MAX_FILES: usize = 30;
const MAX_LINES_PER_FILE: usize = 4;
const MAX_PATH_CHARS: usize = 300;

/// One file the session read or changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileTouch {
    /// As the tool got it (usually absolute).
    pub path: String,
    /// Tool names in first-use order: `Edit`, `Read`, …
    pub tools: Vec<String>,
    /// Line numbers the results pointed at (first changed line of each
    /// hunk, or where a partial read started), oldest first.
    pub lines: Vec<u64>,
    /// Position of the latest touch, to list the most recent first.
    seq: u64,
}

/// Facts from the tail of a transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// The last human prompts, oldest first, one line each.
    pub prompts: Vec<String>,
    /// The main thread's last text block.
    pub last_answer: Option<String>,
    /// Most recent first.
    pub files: Vec<FileTouch>,
    /// First lines of the last Bash commands, oldest first.
    pub commands: Vec<String>,
    /// `gitBranch` of the last record that had one.
    pub git_branch: Option<String>,
    pub cwd: Option<String>,
}

/// Reads the last `max_bytes` of `path`. Lines that are not records are
/// skipped; a missing file is an error.
pub fn scan(path: &Path, max_bytes: u64) -> io::Result<Facts> {
    scan_with(path, max_bytes, &|t| t.to_string())
}

/// [`scan`] with `clean` (the redactor) applied to every prompt, command
/// and path before it is cut to length: a secret straddling the cut would
/// otherwise survive in part. The last answer is kept whole, for the note
/// to redact and cut.
pub fn scan_with(path: &Path, max_bytes: u64, clean: &dyn Fn(&str) -> String) -> io::Result<Facts> {
    let len = std::fs::metadata(path)?.len();
    let start = len.saturating_sub(max_bytes);
    // Starting mid-file lands inside a line unless the byte before is `\n`;
    // that partial line must not be read as a record.
    let mut cut_line_start = None;
    if start > 0 {
        let mut f = crate::fsutil::confine::open_regular(path)?;
        f.seek(SeekFrom::Start(start - 1))?;
        let mut b = [0u8; 1];
        f.read_exact(&mut b)?;
        if b[0] != b'\n' {
            cut_line_start = Some(start);
        }
    }
    let mut reader = StreamReader::open(path, start)?;
    let mut b = Builder {
        clean: Some(clean),
        ..Builder::default()
    };
    while let Some(line) = reader.next_line()? {
        let line_start = line.end_offset - line.bytes.len() as u64 - 1;
        if Some(line_start) == cut_line_start {
            continue;
        }
        b.line(line.bytes);
    }
    Ok(b.finish())
}

#[derive(Default)]
struct Builder<'a> {
    /// Applied before every cut; see [`scan_with`].
    clean: Option<&'a dyn Fn(&str) -> String>,
    prompts: VecDeque<String>,
    last_answer: Option<String>,
    files: HashMap<String, FileTouch>,
    /// Tool calls waiting for their result: id → (path, tool).
    pending: HashMap<String, (String, String)>,
    commands: VecDeque<String>,
    git_branch: Option<String>,
    cwd: Option<String>,
    seq: u64,
}

impl Builder<'_> {
    fn clean(&self, text: &str) -> String {
        self.clean.map_or_else(|| text.to_string(), |f| f(text))
    }

    fn line(&mut self, bytes: &[u8]) {
        let Some(rec) = Record::parse(bytes) else {
            return;
        };
        // Subagent records (inside the main file on old clients) are their
        // own work; their spend is counted apart.
        if rec.is_sidechain {
            return;
        }
        if let Some(b) = rec.git_branch.as_deref().filter(|b| !b.is_empty()) {
            self.git_branch = Some(b.to_string());
        }
        if let Some(c) = rec.cwd.as_deref().filter(|c| !c.is_empty()) {
            self.cwd = Some(c.to_string());
        }
        if rec.is_assistant() {
            if !rec.is_synthetic() && !rec.is_api_error_message {
                self.assistant(&rec);
            }
        } else if rec.is_user() {
            self.user(&rec, bytes);
        }
    }

    fn assistant(&mut self, rec: &Record) {
        if let Content::Text(t) = rec.content()
            && !t.trim().is_empty()
        {
            self.last_answer = Some(t.trim().to_string());
        }
        for block in rec.content().blocks() {
            match block {
                Block::Text(t) if !t.trim().is_empty() => {
                    self.last_answer = Some(t.trim().to_string());
                }
                Block::ToolUse(tu) => {
                    let name = tu.name.as_ref();
                    if name == "Bash" {
                        if let Some(c) = tu
                            .input
                            .command
                            .as_deref()
                            .map(|c| self.clean(c))
                            .as_deref()
                            .and_then(first_line)
                        {
                            push_capped(
                                &mut self.commands,
                                cut(&c, MAX_COMMAND_CHARS),
                                MAX_COMMANDS,
                            );
                        }
                        continue;
                    }
                    if !is_file_tool(name) {
                        continue;
                    }
                    let Some(path) = tu
                        .input
                        .file_path
                        .as_deref()
                        .or(tu.input.notebook_path.as_deref())
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                    else {
                        continue;
                    };
                    let path = cut(&self.clean(path), MAX_PATH_CHARS);
                    match tu.id.as_deref() {
                        // Counted once its result says it worked.
                        Some(id) => {
                            self.pending
                                .insert(id.to_string(), (path, name.to_string()));
                        }
                        None => self.touch(path, name, &[]),
                    }
                }
                _ => {}
            }
        }
    }

    fn user(&mut self, rec: &Record, bytes: &[u8]) {
        let blocks = rec.content().blocks();
        if blocks.iter().any(|b| matches!(b, Block::ToolResult(_))) {
            let mut hints: Option<Vec<u64>> = None;
            for b in blocks {
                let Block::ToolResult(tr) = b else { continue };
                let Some(id) = tr.tool_use_id.as_deref() else {
                    continue;
                };
                let Some((path, tool)) = self.pending.remove(id) else {
                    continue;
                };
                // A failed read or edit did not touch the file.
                if tr.is_error {
                    continue;
                }
                let hints = hints.get_or_insert_with(|| line_hints(bytes));
                self.touch(path, &tool, hints);
            }
            return;
        }
        if let Some(p) = human_prompt(rec) {
            let p = cut(&one_line(&self.clean(&p)), MAX_PROMPT_CHARS);
            push_capped(&mut self.prompts, p, MAX_PROMPTS);
        }
    }

    fn touch(&mut self, path: String, tool: &str, lines: &[u64]) {
        self.seq += 1;
        let seq = self.seq;
        let e = self.files.entry(path.clone()).or_insert_with(|| FileTouch {
            path,
            ..FileTouch::default()
        });
        if !e.tools.iter().any(|t| t == tool) {
            e.tools.push(tool.to_string());
        }
        for &l in lines {
            e.lines.retain(|x| *x != l);
            e.lines.push(l);
        }
        if e.lines.len() > MAX_LINES_PER_FILE {
            let extra = e.lines.len() - MAX_LINES_PER_FILE;
            e.lines.drain(..extra);
        }
        e.seq = seq;
    }

    fn finish(mut self) -> Facts {
        // Calls whose result is not written yet (the turn is still running
        // or the transcript lags): the file was most likely touched.
        let mut pending: Vec<(String, String)> = self.pending.drain().map(|(_, v)| v).collect();
        pending.sort();
        for (path, tool) in pending {
            self.touch(path, &tool, &[]);
        }
        let mut files: Vec<FileTouch> = self.files.into_values().collect();
        files.sort_by_key(|f| std::cmp::Reverse(f.seq));
        files.truncate(MAX_FILES);
        Facts {
            prompts: self.prompts.into(),
            last_answer: self.last_answer,
            files,
            commands: self.commands.into(),
            git_branch: self.git_branch,
            cwd: self.cwd,
        }
    }
}

fn is_file_tool(name: &str) -> bool {
    matches!(
        name,
        "Read" | "Edit" | "MultiEdit" | "Write" | "NotebookEdit" | "NotebookRead"
    )
}

fn push_capped(q: &mut VecDeque<String>, item: String, cap: usize) {
    if q.back() == Some(&item) {
        return;
    }
    q.push_back(item);
    while q.len() > cap {
        q.pop_front();
    }
}

/// Line numbers from a tool result's `toolUseResult`, which the `Record`
/// parser does not keep: `structuredPatch` hunks for edits and writes,
/// `file.startLine` for a partial read. Parsed only when the raw line holds
/// those keys, so ordinary results cost a substring search.
fn line_hints(bytes: &[u8]) -> Vec<u64> {
    let has = |k: &[u8]| memmem::find(bytes, k).is_some();
    if !has(b"\"toolUseResult\"") || !(has(b"\"structuredPatch\"") || has(b"\"startLine\"")) {
        return Vec::new();
    }
    #[derive(Deserialize)]
    struct Line {
        #[serde(rename = "toolUseResult", default)]
        result: Option<serde_json::Value>,
    }
    let Ok(Line { result: Some(r) }) = serde_json::from_slice::<Line>(bytes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(hunks) = r.get("structuredPatch").and_then(|v| v.as_array()) {
        for h in hunks.iter().take(MAX_LINES_PER_FILE) {
            let Some(start) = h.get("newStart").and_then(|v| v.as_u64()) else {
                continue;
            };
            // Hunks open with context lines (` ` prefix): the change itself
            // starts after them.
            let context = h.get("lines").and_then(|v| v.as_array()).map_or(0, |ls| {
                ls.iter()
                    .take_while(|l| l.as_str().is_some_and(|s| s.starts_with(' ')))
                    .count() as u64
            });
            out.push(start.max(1) + context);
        }
    }
    if let Some(start) = r
        .get("file")
        .and_then(|f| f.get("startLine"))
        .and_then(|v| v.as_u64())
        .filter(|s| *s > 1)
    {
        out.push(start);
    }
    out
}

/// Something a person typed, whole (the caller redacts, then cuts); `None` for everything the client
/// writes into user records itself (hook feedback, compaction summaries,
/// task notifications, slash-command plumbing, interruptions).
fn human_prompt(rec: &Record) -> Option<String> {
    if rec.is_meta || rec.is_compact_summary || rec.is_visible_in_transcript_only {
        return None;
    }
    if rec.origin_kind.as_deref().is_some_and(|k| k != "human")
        || rec.prompt_source.as_deref() == Some("system")
    {
        return None;
    }
    let mut text = String::new();
    for t in rec.content().texts() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(t);
    }
    let text = strip_spans(&text, "<system-reminder>", "</system-reminder>");
    let text = text.trim();
    if text.is_empty() || text.starts_with('<') {
        return None;
    }
    const CLIENT_TEXT: &[&str] = &[
        "[Request interrupted by user",
        "Caveat: The messages below were generated by the user",
    ];
    if CLIENT_TEXT.iter().any(|p| text.starts_with(p)) {
        return None;
    }
    let first = text.lines().next().unwrap_or("");
    if first
        .strip_suffix(" hook feedback:")
        .is_some_and(|e| !e.contains(' '))
    {
        return None;
    }
    Some(text.to_string())
}

fn strip_spans(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(open) {
        out.push_str(&rest[..i]);
        let after = &rest[i + open.len()..];
        rest = after.find(close).map_or("", |j| &after[j + close.len()..]);
    }
    out.push_str(rest);
    out
}

/// White space runs (newlines included) as one space: a note's bullet is one line.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}
