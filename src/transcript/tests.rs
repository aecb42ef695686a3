//! Tests on transcripts written by real clients (tests/fixtures/transcripts,
//! captured by the offline lab), generated transcripts (tail == full parse)
//! and large files (the tail reader's cost does not grow with them).

use super::*;
use proptest::prelude::*;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(rel)
}

const P1_2_1_332: &str = "v2.1.332/print/0ac84ade-4b41-4c80-8e17-cb18a7650ec5.jsonl";
const P2_2_1_332: &str = "v2.1.332/print/9b46cfd4-81d8-4944-b28a-5650b3682d24.jsonl";
const NO_PROMPT_2_1_332: &str = "v2.1.332/print/0eb84a63-4a8f-49f0-8439-3a0cf0d4bcc1.jsonl";
const SUBAGENT_2_1_332: &str =
    "v2.1.332/print/0ac84ade-4b41-4c80-8e17-cb18a7650ec5/subagents/agent-a807bf6f4639670c0.jsonl";
const TUI_2_1_332: &str = "v2.1.332/interactive/592d55cf-11d7-4a1b-99fa-bf536f8ae9a6.jsonl";
const P1_2_1_112: &str = "v2.1.112/10c2c049-38e7-4786-8116-9d4383d9df4e.jsonl";
const P2_2_1_112: &str = "v2.1.112/2e8af158-f701-4ba1-b2d5-81ebee50a622.jsonl";
const SUBAGENT_2_1_112: &str =
    "v2.1.112/10c2c049-38e7-4786-8116-9d4383d9df4e/subagents/agent-a3b44639ebab1d59f.jsonl";
const P1_2_0_77: &str = "v2.0.77/502b6456-48ee-4f67-853b-8640402f54c3.jsonl";
const P2_2_0_77: &str = "v2.0.77/d9e08bb9-5e96-4bbe-b49c-6df7192c3e0c.jsonl";
const AGENT_2_0_77: &str = "v2.0.77/agent-a0f3899.jsonl";
const P1_1_0_128: &str = "v1.0.128/701bf4da-596a-477b-a128-75f846acb24e.jsonl";
const P2_1_0_128: &str = "v1.0.128/98a14b48-d287-4519-9252-4785c391e67d.jsonl";

const ALL_FIXTURES: &[&str] = &[
    P1_2_1_332,
    P2_2_1_332,
    NO_PROMPT_2_1_332,
    SUBAGENT_2_1_332,
    TUI_2_1_332,
    P1_2_1_112,
    P2_2_1_112,
    SUBAGENT_2_1_112,
    P1_2_0_77,
    P2_2_0_77,
    AGENT_2_0_77,
    P1_1_0_128,
    P2_1_0_128,
];

/// A temporary file holding `content`.
struct TempTranscript {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn temp_transcript(content: &[u8]) -> TempTranscript {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    std::fs::write(&path, content).unwrap();
    TempTranscript { _dir: dir, path }
}

/// The lines of a fixture before the first one containing `needle`: the
/// transcript as it was when that earlier turn's Stop hook ran.
fn prefix_before(rel: &str, needle: &str) -> TempTranscript {
    let content = std::fs::read(fixture(rel)).unwrap();
    let needle = needle.as_bytes();
    let mut out = Vec::new();
    for line in content.split_inclusive(|&b| b == b'\n') {
        if line.windows(needle.len()).any(|w| w == needle) {
            break;
        }
        out.extend_from_slice(line);
    }
    assert!(out.len() < content.len(), "{needle:?} not found in {rel}");
    temp_transcript(&out)
}

fn exchange(path: &Path) -> Exchange {
    let tail = last_exchange(path).unwrap();
    assert_eq!(
        tail,
        last_exchange_full(path).unwrap(),
        "tail != full for {path:?}"
    );
    tail.unwrap_or_else(|| panic!("no exchange in {path:?}"))
}

fn context(path: &Path) -> Option<ContextUsage> {
    let tail = last_context_usage(path).unwrap();
    assert_eq!(
        tail,
        last_context_usage_full(path).unwrap(),
        "tail != full for {path:?}"
    );
    tail
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------------------
// Real transcripts, client 2.1.332.

#[test]
fn p1_first_turn_has_prompt_answer_and_digest() {
    let t = prefix_before(P1_2_1_332, "Lab run four");
    let ex = exchange(&t.path);
    assert_eq!(
        ex.human,
        "Lab run one. LAB_PLAN=bash,read,task LAB_THINK LAB_READ=/tmp/cclab/proj-print/README.md"
    );
    assert_eq!(ex.timestamp.as_deref(), Some("2026-11-30T04:20:46.153Z"));
    assert!(ex.assistant.starts_with(
        "I will run a shell command (request 1).\n\nI will read a file (request 2).\n\nI will delegate to a subagent (request 3).\n\nLAB final answer #7 from main."
    ));
    // The Stop hook's feedback (isMeta) continued the same turn.
    assert!(ex.assistant.ends_with(
        "LAB final answer #8 from main. markers seen in request: LAB_UPS_CONTEXT_MARKER,LAB_SESSIONSTART_CONTEXT_MARKER,LAB_STOP_BLOCK_REASON_MARKER,LAB_SUBAGENTSTOP_BLOCK_REASON_MARKER,LAB_POSTTOOL_CONTEXT_MARKER,LAB_PRETOOL_CONTEXT_MARKER"
    ));
    assert!(!ex.assistant.contains("Lab thinking"));
    assert_eq!(
        ex.digest,
        Digest {
            files_read: strings(&["/tmp/cclab/proj-print/README.md"]),
            commands: strings(&["echo lab-bash-output-1 && pwd"]),
            subagents: strings(&["Lab subagent task"]),
            ..Digest::default()
        }
    );
    let usage = context(&t.path).unwrap();
    assert_eq!(usage.message_id.as_deref(), Some("msg_lab_p1_0008"));
    assert_eq!(usage.fill(), 18 + 1008 + 20800);
}

#[test]
fn p1_resumed_session_ends_with_the_resumed_turn() {
    let path = fixture(P1_2_1_332);
    let ex = exchange(&path);
    assert_eq!(ex.human, "Lab run four, resumed. LAB_PLAN=bash");
    assert_eq!(ex.timestamp.as_deref(), Some("2026-11-30T04:21:02.387Z"));
    assert!(
        ex.assistant.starts_with(
            "I will run a shell command (request 1).\n\nLAB final answer #2 from main."
        )
    );
    assert_eq!(ex.digest.commands, ["echo lab-bash-output-1 && pwd"]);
    assert!(ex.digest.files_read.is_empty() && ex.digest.subagents.is_empty());

    let usage = context(&path).unwrap();
    assert_eq!(
        usage,
        ContextUsage {
            input_tokens: 12,
            cache_creation_input_tokens: 1002,
            cache_read_input_tokens: 20200,
            output_tokens: 52,
            model: Some("claude-opus-5-5".into()),
            message_id: Some("msg_lab_p4_0002".into()),
            timestamp: Some("2026-11-30T04:21:03.647Z".into()),
            text: usage.text.clone(),
        }
    );
    assert_eq!(usage.fill(), 21214);
}

#[test]
fn p2_failed_read_is_an_error_not_a_file_read() {
    let ex = exchange(&fixture(P2_2_1_332));
    assert_eq!(
        ex.human,
        "Lab run two. LAB_PLAN=bash,read_missing LAB_READ=/tmp/cclab/proj-print/README.md"
    );
    assert!(ex.digest.files_read.is_empty());
    assert_eq!(
        ex.digest.tool_errors,
        [
            "Read: File does not exist. Note: your current working directory is /tmp/cclab/proj-print."
        ]
    );
    assert_eq!(ex.digest.commands, ["echo lab-bash-output-1 && pwd"]);
    assert!(ex.assistant.contains("LAB final answer #3 from main."));
    assert!(ex.assistant.contains("LAB final answer #4 from main."));
    assert!(!ex.assistant.contains("Stop hook feedback"));
}

#[test]
fn a_session_without_prompt_has_no_exchange() {
    let path = fixture(NO_PROMPT_2_1_332);
    assert_eq!(last_exchange(&path).unwrap(), None);
    assert_eq!(last_exchange_full(&path).unwrap(), None);
    assert_eq!(context(&path), None);
}

#[test]
fn subagent_files_are_all_sidechain() {
    for rel in [SUBAGENT_2_1_332, SUBAGENT_2_1_112, AGENT_2_0_77] {
        let path = fixture(rel);
        assert_eq!(last_exchange(&path).unwrap(), None, "{rel}");
        assert_eq!(last_exchange_full(&path).unwrap(), None, "{rel}");
        assert_eq!(context(&path), None, "{rel}");
    }
}

#[test]
fn interactive_last_turn_after_compaction() {
    let path = fixture(TUI_2_1_332);
    let ex = exchange(&path);
    assert_eq!(ex.human, "Interactive three after compact. LAB_PLAN=bash");
    assert_eq!(ex.timestamp.as_deref(), Some("2026-11-30T04:22:52.784Z"));
    assert_eq!(ex.digest.commands, ["echo lab-bash-output-12 && pwd"]);
    assert!(ex.assistant.ends_with(
        "LAB final answer #13 from main. markers seen in request: LAB_UPS_CONTEXT_MARKER,LAB_SESSIONSTART_CONTEXT_MARKER,LAB_STOP_BLOCK_REASON_MARKER"
    ));
    let usage = context(&path).unwrap();
    assert_eq!(usage.message_id.as_deref(), Some("msg_lab_i1_0013"));
    assert_eq!(usage.fill(), 23 + 1013 + 21300);
}

#[test]
fn interactive_compact_command_is_not_the_prompt() {
    // Right after `/compact`: the boundary, the summary, the caveat, the
    // command and its local output. None of them is a human prompt.
    let t = prefix_before(TUI_2_1_332, "Interactive three after compact");
    let ex = exchange(&t.path);
    assert_eq!(ex.human, "Interactive two. LAB_PLAN=bash_write");
    assert_eq!(ex.digest.commands, ["touch lab_written_9.txt"]);
    assert!(!ex.assistant.contains("LAB compact summary"));
    // The compaction reset the context: no usage describes it yet.
    assert_eq!(context(&t.path), None);
}

#[test]
fn interactive_task_notification_is_not_the_prompt() {
    let t = prefix_before(TUI_2_1_332, "Interactive two.");
    let ex = exchange(&t.path);
    assert_eq!(ex.human, "Interactive one. LAB_PLAN=bash,task");
    assert_eq!(ex.digest.subagents, ["Lab subagent task"]);
    assert_eq!(ex.digest.commands, ["echo lab-bash-output-1 && pwd"]);
    // The answers to the notification belong to the human's turn.
    assert!(ex.assistant.contains("LAB final answer #7 from main."));
    assert!(ex.assistant.contains("LAB final answer #8 from main."));
    assert!(!ex.human.contains("task-notification"));
}

// ---------------------------------------------------------------------------
// Older clients.

#[test]
fn v2_1_112_layout() {
    let ex = exchange(&fixture(P1_2_1_112));
    assert_eq!(ex.human, "Lab run four, resumed. LAB_PLAN=bash");
    assert_eq!(ex.digest.commands, ["echo lab-bash-output-1 && pwd"]);

    let t = prefix_before(P1_2_1_112, "Lab run four");
    let ex = exchange(&t.path);
    assert_eq!(
        ex.human,
        "Lab run one. LAB_PLAN=bash,read,task LAB_THINK LAB_READ=/tmp/cclab-2.1.112/proj-print/README.md"
    );
    assert_eq!(
        ex.digest,
        Digest {
            files_read: strings(&["/tmp/cclab-2.1.112/proj-print/README.md"]),
            commands: strings(&["echo lab-bash-output-1 && pwd"]),
            subagents: strings(&["Lab subagent task"]),
            ..Digest::default()
        }
    );
    assert!(ex.assistant.contains("LAB final answer #8 from main."));

    let ex = exchange(&fixture(P2_2_1_112));
    assert_eq!(ex.digest.tool_errors.len(), 1);
    assert!(ex.digest.tool_errors[0].starts_with("Read: File does not exist."));
}

#[test]
fn v2_0_77_layout() {
    let ex = exchange(&fixture(P1_2_0_77));
    assert_eq!(ex.human, "Lab run four, resumed. LAB_PLAN=bash");
    assert_eq!(ex.digest.commands, ["echo lab-bash-output-5 && pwd"]);
    assert!(ex.assistant.contains("LAB final answer #7 from main."));

    let t = prefix_before(P1_2_0_77, "Lab run four");
    let ex = exchange(&t.path);
    assert!(ex.human.starts_with("Lab run one. LAB_PLAN=bash,read,task"));
    assert_eq!(
        ex.digest.files_read,
        ["/tmp/cclab-2.0.77/proj-print/README.md"]
    );
    assert_eq!(ex.digest.subagents, ["Lab subagent task"]);
    assert!(ex.assistant.contains("LAB final answer #17 from main."));
    // The stream's first usage (output_tokens 1) is what 2.0.x recorded;
    // the input side is right, which is all the context fill needs.
    let usage = context(&t.path).unwrap();
    assert_eq!(usage.message_id.as_deref(), Some("msg_lab_p1_0017"));
    assert_eq!(usage.fill(), 27 + 1017 + 21700);

    let ex = exchange(&fixture(P2_2_0_77));
    assert_eq!(ex.digest.tool_errors, ["Read: File does not exist."]);
    assert!(ex.digest.files_read.is_empty());
}

#[test]
fn v1_0_128_sidechain_records_inside_the_main_file() {
    let ex = exchange(&fixture(P1_1_0_128));
    assert_eq!(ex.human, "Lab run four, resumed. LAB_PLAN=bash");
    assert_eq!(ex.digest.commands, ["echo lab-bash-output-3 && pwd"]);

    let t = prefix_before(P1_1_0_128, "Lab run four");
    let ex = exchange(&t.path);
    assert!(ex.human.starts_with("Lab run one. LAB_PLAN=bash,read,task"));
    // The subagent's own Bash call and answers are sidechain records.
    assert_eq!(
        ex.digest,
        Digest {
            files_read: strings(&["/tmp/cclab-1.0.128/proj-print/README.md"]),
            commands: strings(&["echo lab-bash-output-2 && pwd"]),
            subagents: strings(&["Lab subagent task"]),
            ..Digest::default()
        }
    );
    assert!(!ex.assistant.contains("from subagent"));
    // Unflagged hook output and "Stop hook feedback" are not the prompt.
    assert!(ex.assistant.contains("LAB final answer #11 from main."));
    let usage = context(&t.path).unwrap();
    assert_eq!(usage.message_id.as_deref(), Some("msg_lab_p1_0011"));

    let ex = exchange(&fixture(P2_1_0_128));
    assert!(ex.human.starts_with("Lab run two."));
    assert_eq!(ex.digest.tool_errors, ["Read: File does not exist."]);
    assert!(ex.assistant.contains("LAB final answer #8 from main."));
}

/// Every prefix of every fixture (a Stop hook can run at any line, and a
/// line can be half written): tail == full, for several block sizes.
#[test]
fn every_prefix_of_every_fixture_agrees_with_the_full_parse() {
    for rel in ALL_FIXTURES {
        let content = std::fs::read(fixture(rel)).unwrap();
        let mut cuts: Vec<usize> = content
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1)
            .collect();
        // Half-written lines too.
        let halves: Vec<usize> = cuts
            .windows(2)
            .step_by(3)
            .map(|w| (w[0] + w[1]) / 2)
            .collect();
        cuts.extend(halves);
        cuts.push(0);
        let dir = tempfile::tempdir().unwrap();
        for (i, cut) in cuts.into_iter().enumerate() {
            // A new file each time: rewriting a truncated file makes some
            // file systems flush it, which is slow.
            let path = dir.path().join(format!("t{i}.jsonl"));
            std::fs::write(&path, &content[..cut]).unwrap();
            let full_ex = last_exchange_full(&path).unwrap();
            let full_ctx = last_context_usage_full(&path).unwrap();
            let block_size = [64 * 1024, 1000, 37][i % 3];
            let opts = TailOptions {
                block_size,
                ..TailOptions::default()
            };
            let (ex, _) = last_exchange_with(&path, &opts).unwrap();
            assert_eq!(ex, full_ex, "{rel} cut at {cut}");
            let (ctx, _) = last_context_usage_with(&path, &opts).unwrap();
            assert_eq!(ctx, full_ctx, "{rel} cut at {cut}");
            std::fs::remove_file(&path).unwrap();
        }
    }
}

// ---------------------------------------------------------------------------
// Edge files.

#[test]
fn missing_file_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.jsonl");
    for err in [
        last_exchange(&path).unwrap_err(),
        last_exchange_full(&path).unwrap_err(),
        last_context_usage(&path).unwrap_err(),
        last_context_usage_full(&path).unwrap_err(),
        StreamReader::open(&path, 0).unwrap_err(),
    ] {
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}

#[test]
fn empty_file() {
    let t = temp_transcript(b"");
    let (ex, stats) = last_exchange_with(&t.path, &TailOptions::default()).unwrap();
    assert_eq!(ex, None);
    assert_eq!(stats, TailStats::default());
    assert_eq!(last_exchange_full(&t.path).unwrap(), None);
    assert_eq!(last_context_usage(&t.path).unwrap(), None);
    assert_eq!(last_context_usage_full(&t.path).unwrap(), None);
}

#[test]
fn file_of_only_garbage() {
    let mut content = Vec::new();
    let mut x: u32 = 12345;
    for i in 0..5000 {
        let len = (i * 37) % 300;
        for _ in 0..len {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let b = (x >> 16) as u8;
            content.push(if b == b'\n' { b'x' } else { b });
        }
        content.push(b'\n');
    }
    content.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"unfinished");
    let t = temp_transcript(&content);
    let (ex, stats) = last_exchange_with(&t.path, &TailOptions::default()).unwrap();
    assert_eq!(ex, None);
    assert_eq!(stats.lines, 5000);
    assert_eq!(stats.lines_skipped, 5000);
    assert_eq!(last_exchange_full(&t.path).unwrap(), None);
    assert_eq!(last_context_usage(&t.path).unwrap(), None);
    assert_eq!(last_context_usage_full(&t.path).unwrap(), None);
}

fn user_line(text: &str) -> String {
    json!({"type":"user","message":{"role":"user","content":text},"timestamp":"2026-01-01T00:00:00Z"})
        .to_string()
        + "\n"
}

fn assistant_line(id: &str, text: &str, input: u64) -> String {
    json!({"type":"assistant","requestId":format!("req_{id}"),"message":{"id":id,"model":"claude-x","role":"assistant",
        "content":[{"type":"text","text":text}],
        "usage":{"input_tokens":input,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}})
    .to_string()
        + "\n"
}

fn big_line(len: usize) -> String {
    json!({"type":"attachment","attachment":{"content":"x".repeat(len)}}).to_string() + "\n"
}

#[test]
fn a_torn_last_line_is_not_there_yet() {
    let mut s = user_line("first") + &assistant_line("m1", "answer", 5);
    // The client is writing the next prompt: no newline yet.
    s += user_line("second").trim_end();
    let t = temp_transcript(s.as_bytes());
    assert_eq!(exchange(&t.path).human, "first");
    assert_eq!(context(&t.path).unwrap().input_tokens, 5);
}

#[test]
fn non_utf8_lines_are_skipped() {
    let mut s = user_line("kept").into_bytes();
    s.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"bad \xff\xfe\"}}\n");
    let t = temp_transcript(&s);
    assert_eq!(exchange(&t.path).human, "kept");
}

#[test]
fn five_megabyte_single_line() {
    // One 5 MB prompt: over the line limit, never parsed, and the tail
    // reader stops at its budget.
    let line = user_line(&"y".repeat(5 * 1024 * 1024));
    let t = temp_transcript(line.as_bytes());
    let (ex, stats) = last_exchange_with(&t.path, &TailOptions::default()).unwrap();
    assert_eq!(ex, None);
    assert!(stats.hit_cap);
    assert_eq!(stats.bytes_read, MAX_TAIL_BYTES);
    assert_eq!(stats.lines, 0);
    assert_eq!(last_exchange_full(&t.path).unwrap(), None);

    // A 5 MB line before the last exchange costs nothing.
    let s =
        big_line(5 * 1024 * 1024) + &user_line("after the big one") + &assistant_line("m", "ok", 3);
    let t = temp_transcript(s.as_bytes());
    let (ex, stats) = last_exchange_with(&t.path, &TailOptions::default()).unwrap();
    assert_eq!(ex.unwrap().human, "after the big one");
    assert!(stats.bytes_read <= BLOCK_SIZE as u64, "{stats:?}");
    assert_eq!(
        last_exchange_full(&t.path).unwrap().unwrap().human,
        "after the big one"
    );

    // A 5 MB line inside the last turn puts its prompt beyond the budget:
    // the tail reader says so instead of reading on.
    let s = user_line("before") + &big_line(5 * 1024 * 1024) + &assistant_line("m", "ok", 3);
    let t = temp_transcript(s.as_bytes());
    let (ex, stats) = last_exchange_with(&t.path, &TailOptions::default()).unwrap();
    assert_eq!(ex, None);
    assert!(stats.hit_cap && stats.bytes_read == MAX_TAIL_BYTES);
    // The usage record after it is found at once.
    let (u, stats) = last_context_usage_with(&t.path, &TailOptions::default()).unwrap();
    assert_eq!(u.unwrap().input_tokens, 3);
    assert!(!stats.hit_cap && stats.bytes_read <= BLOCK_SIZE as u64);
}

/// A 30 MB transcript of many turns, built like a long session.
fn big_transcript(dir: &Path, size: usize, last_turn: &str) -> PathBuf {
    let path = dir.join("big.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut written = 0;
    let mut turn = 0;
    while written < size {
        let mut s = user_line(&format!("turn {turn}"));
        s += &assistant_line(&format!("m{turn}"), "working", turn);
        s += &big_line(40_000 + (turn as usize % 7) * 10_000);
        s += &json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"z".repeat(20_000)}]}}).to_string();
        s += "\n";
        s += &assistant_line(&format!("m{turn}b"), "done", turn);
        f.write_all(s.as_bytes()).unwrap();
        written += s.len();
        turn += 1;
    }
    f.write_all(last_turn.as_bytes()).unwrap();
    f.flush().unwrap();
    path
}

#[test]
fn thirty_megabytes_cost_what_the_last_turn_costs() {
    let dir = tempfile::tempdir().unwrap();
    let last = user_line("the last question")
        + &json!({"type":"assistant","message":{"id":"mz","content":[{"type":"tool_use","id":"tz","name":"Edit","input":{"file_path":"/src/lib.rs"}}],
            "usage":{"input_tokens":7,"cache_creation_input_tokens":70,"cache_read_input_tokens":700,"output_tokens":1}}}).to_string()
        + "\n"
        + &assistant_line("mz2", "the last answer", 9)
        + &json!({"type":"system","subtype":"stop_hook_summary"}).to_string()
        + "\n";
    let path = big_transcript(dir.path(), 30 * 1024 * 1024, &last);
    assert!(std::fs::metadata(&path).unwrap().len() > 30 * 1024 * 1024);

    let (ex, stats) = last_exchange_with(&path, &TailOptions::default()).unwrap();
    let ex = ex.unwrap();
    assert_eq!(ex.human, "the last question");
    assert_eq!(ex.assistant, "the last answer");
    assert_eq!(ex.digest.files_edited, ["/src/lib.rs"]);
    assert_eq!(stats.bytes_read, BLOCK_SIZE as u64, "{stats:?}");

    let (u, stats) = last_context_usage_with(&path, &TailOptions::default()).unwrap();
    assert_eq!(u.unwrap().fill(), 9);
    assert_eq!(stats.bytes_read, BLOCK_SIZE as u64);

    // A last turn with 6 MB of tool output: the prompt is out of reach,
    // and the reader stops at its budget rather than reading 30 MB.
    let mut long_turn = user_line("a long turn");
    for i in 0..100 {
        long_turn += &big_line(60_000);
        long_turn += &assistant_line(&format!("long{i}"), "step", 11);
    }
    let path = big_transcript(dir.path(), 30 * 1024 * 1024, &long_turn);
    let (ex, stats) = last_exchange_with(&path, &TailOptions::default()).unwrap();
    assert_eq!(ex, None);
    assert!(stats.hit_cap);
    assert_eq!(stats.bytes_read, MAX_TAIL_BYTES);
    let (u, stats) = last_context_usage_with(&path, &TailOptions::default()).unwrap();
    assert_eq!(u.unwrap().input_tokens, 11);
    assert!(stats.bytes_read <= BLOCK_SIZE as u64);
}

// ---------------------------------------------------------------------------
// Generated transcripts: the tail reader answers what a full parse answers.

#[derive(Debug, Clone)]
enum Ev {
    Prompt {
        text: String,
        blocks: bool,
        origin: bool,
    },
    NotHuman(u8),
    Command {
        local: bool,
    },
    Assistant {
        id: u32,
        blocks: Vec<Blk>,
        side: bool,
        synthetic: bool,
        usage: (u64, u64, u64),
    },
    ToolResult {
        id: u32,
        error: bool,
        text: String,
    },
    Compact,
    Other(u8),
    Big(usize),
    Garbage(Vec<u8>),
    NonUtf8,
    Truncated,
}

#[derive(Debug, Clone)]
enum Blk {
    Thinking,
    Text(String),
    Tool {
        id: u32,
        name: &'static str,
        arg: String,
    },
}

fn text_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,30}",
        "[a-zé€😀\n ]{1,20}",
        Just("line one\nline two\n".to_string()),
        Just("<system-reminder>hidden</system-reminder>visible".to_string()),
        Just("   ".to_string()),
    ]
}

fn block_strategy() -> impl Strategy<Value = Blk> {
    prop_oneof![
        Just(Blk::Thinking),
        text_strategy().prop_map(Blk::Text),
        (
            0u32..8,
            prop::sample::select(vec![
                "Read",
                "Edit",
                "Write",
                "Bash",
                "Agent",
                "Task",
                "MultiEdit",
                "Grep"
            ]),
            "[a-z/.]{1,12}( && [a-z]{1,5}\n[a-z]{1,4})?"
        )
            .prop_map(|(id, name, arg)| Blk::Tool { id, name, arg }),
    ]
}

fn event_strategy() -> impl Strategy<Value = Ev> {
    prop_oneof![
        6 => (text_strategy(), any::<bool>(), any::<bool>())
            .prop_map(|(text, blocks, origin)| Ev::Prompt { text, blocks, origin }),
        3 => (0u8..9).prop_map(Ev::NotHuman),
        1 => any::<bool>().prop_map(|local| Ev::Command { local }),
        10 => (
            0u32..6,
            prop::collection::vec(block_strategy(), 1..4),
            prop::bool::weighted(0.15),
            prop::bool::weighted(0.1),
            (0u64..1000, 0u64..1000, 0u64..100_000),
        )
            .prop_map(|(id, blocks, side, synthetic, usage)| Ev::Assistant { id, blocks, side, synthetic, usage }),
        4 => (0u32..8, prop::bool::weighted(0.3), "[a-z \n]{0,20}")
            .prop_map(|(id, error, text)| Ev::ToolResult { id, error, text }),
        1 => Just(Ev::Compact),
        3 => (0u8..4).prop_map(Ev::Other),
        1 => (100_000usize..320_000).prop_map(Ev::Big),
        2 => prop::collection::vec(any::<u8>(), 0..40).prop_map(Ev::Garbage),
        1 => Just(Ev::NonUtf8),
        1 => Just(Ev::Truncated),
    ]
}

fn render(ev: &Ev, out: &mut Vec<u8>, seq: &mut u32) {
    *seq += 1;
    let ts = format!(
        "2026-01-01T00:00:{:02}.{:03}Z",
        *seq / 1000 % 60,
        *seq % 1000
    );
    let mut line = |v: serde_json::Value| {
        out.extend_from_slice(v.to_string().as_bytes());
        out.push(b'\n');
    };
    match ev {
        Ev::Prompt {
            text,
            blocks,
            origin,
        } => {
            let content = if *blocks {
                json!([{"type":"text","text":text}])
            } else {
                json!(text)
            };
            let mut v =
                json!({"type":"user","message":{"role":"user","content":content},"timestamp":ts});
            if *origin {
                v["origin"] = json!({"kind":"human"});
            }
            line(v);
        }
        Ev::NotHuman(k) => line(match k {
            0 => {
                json!({"type":"user","isMeta":true,"message":{"content":"Stop hook feedback:\ncontinue"}})
            }
            1 => {
                json!({"type":"user","origin":{"kind":"task-notification"},"message":{"content":"<task-notification>x</task-notification>"}})
            }
            2 => json!({"type":"user","isCompactSummary":true,"message":{"content":"summary"}}),
            3 => json!({"type":"user","isSidechain":true,"message":{"content":"subagent task"}}),
            4 => {
                json!({"type":"user","message":{"content":"<session-start-hook>ctx</session-start-hook>"}})
            }
            5 => {
                json!({"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}})
            }
            6 => {
                json!({"type":"user","message":{"content":"<local-command-stdout>out</local-command-stdout>"}})
            }
            7 => json!({"type":"user","message":{"content":"Stop hook feedback:\n- old client"}}),
            _ => {
                json!({"type":"user","message":{"content":"<system-reminder>only</system-reminder>"}})
            }
        }),
        Ev::Command { local } => {
            line(
                json!({"type":"user","timestamp":ts,"message":{"content":"<command-name>/model</command-name>\n<command-args>opus</command-args>"}}),
            );
            if *local {
                line(
                    json!({"type":"user","message":{"content":"<local-command-stdout>Set model</local-command-stdout>"}}),
                );
            }
        }
        Ev::Assistant {
            id,
            blocks,
            side,
            synthetic,
            usage,
        } => {
            // One line per block, each repeating the message's usage.
            for b in blocks {
                let block = match b {
                    Blk::Thinking => json!({"type":"thinking","thinking":"hmm","signature":"s"}),
                    Blk::Text(t) => json!({"type":"text","text":t}),
                    Blk::Tool { id, name, arg } => {
                        json!({"type":"tool_use","id":format!("t{id}"),"name":name,
                        "input":{"file_path":arg,"command":arg,"description":arg,"notebook_path":arg}})
                    }
                };
                let model = if *synthetic {
                    "<synthetic>"
                } else {
                    "claude-x"
                };
                line(
                    json!({"type":"assistant","isSidechain":side,"requestId":format!("r{id}"),"timestamp":ts,
                    "message":{"id":format!("m{id}"),"model":model,"role":"assistant","content":[block],
                        "usage":{"input_tokens":usage.0,"cache_creation_input_tokens":usage.1,"cache_read_input_tokens":usage.2,"output_tokens":3}}}),
                );
            }
        }
        Ev::ToolResult { id, error, text } => line(json!({"type":"user","message":{"content":[
            {"type":"tool_result","tool_use_id":format!("t{id}"),"is_error":error,"content":text}]}})),
        Ev::Compact => {
            line(
                json!({"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}),
            );
            line(
                json!({"type":"user","isCompactSummary":true,"message":{"content":"This session is being continued"}}),
            );
        }
        Ev::Other(k) => line(match k {
            0 => json!({"type":"system","subtype":"stop_hook_summary"}),
            1 => json!({"type":"queue-operation","operation":"enqueue","content":"a prompt"}),
            2 => json!({"type":"cost-state","totalCostUSD":0.1}),
            _ => json!({"type":"future-record","message":{"content":"text"}}),
        }),
        Ev::Big(n) => line(json!({"type":"user","message":{"content":[
            {"type":"tool_result","tool_use_id":"tbig","content":"b".repeat(*n)}]}})),
        Ev::Garbage(bytes) => {
            out.extend(bytes.iter().map(|&b| if b == b'\n' { b' ' } else { b }));
            out.push(b'\n');
        }
        Ev::NonUtf8 => out
            .extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"\xc3\x28 bad\"}}\n"),
        Ev::Truncated => {
            let s = json!({"type":"user","message":{"content":"cut short"}}).to_string();
            out.extend_from_slice(&s.as_bytes()[..s.len() / 2]);
            out.push(b'\n');
        }
    }
}

fn transcript_strategy() -> impl Strategy<Value = (Vec<u8>, usize, usize)> {
    (
        prop::collection::vec(event_strategy(), 0..40),
        // The torn end: nothing, a whole record without its newline, or half of one.
        0u8..3,
        prop::sample::select(vec![1usize, 7, 100, 4096, 65536]),
        prop::sample::select(vec![MAX_LINE, 150_000]),
    )
        .prop_map(|(events, torn, block, max_line)| {
            let mut out = Vec::new();
            let mut seq = 0;
            for ev in &events {
                render(ev, &mut out, &mut seq);
            }
            let tail = user_line("torn prompt");
            match torn {
                1 => out.extend_from_slice(tail.trim_end().as_bytes()),
                2 => out.extend_from_slice(&tail.as_bytes()[..tail.len() / 2]),
                _ => {}
            }
            (out, block, max_line)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn tail_reader_equals_full_parse((content, block_size, max_line) in transcript_strategy()) {
        let t = temp_transcript(&content);
        let unlimited = TailOptions { block_size, max_bytes: u64::MAX, max_line };
        let full_ex = last_exchange_full_with(&t.path, &unlimited).unwrap();
        let full_ctx = last_context_usage_full_with(&t.path, &unlimited).unwrap();

        let (ex, stats) = last_exchange_with(&t.path, &unlimited).unwrap();
        prop_assert_eq!(&ex, &full_ex);
        prop_assert!(!stats.hit_cap);
        let (ctx, _) = last_context_usage_with(&t.path, &unlimited).unwrap();
        prop_assert_eq!(&ctx, &full_ctx);

        // With a small budget the reader either answers like the full parse
        // or says it ran out, never more than the budget.
        let capped = TailOptions { max_bytes: 300_000, ..unlimited };
        let (ex, stats) = last_exchange_with(&t.path, &capped).unwrap();
        prop_assert!(stats.bytes_read <= capped.max_bytes);
        if stats.hit_cap {
            prop_assert_eq!(ex, None);
        } else {
            prop_assert_eq!(ex, full_ex);
        }
        let (ctx, stats) = last_context_usage_with(&t.path, &capped).unwrap();
        prop_assert!(stats.bytes_read <= capped.max_bytes);
        if stats.hit_cap {
            prop_assert_eq!(ctx, None);
        } else {
            prop_assert_eq!(ctx, full_ctx);
        }
    }

    /// Resuming from the offsets the reader hands back, while the file grows
    /// in arbitrary pieces, returns each complete line exactly once.
    #[test]
    fn stream_resume_sees_each_line_once(
        lines in prop::collection::vec(
            prop_oneof![8 => "[a-z{}\":]{0,30}", 1 => "[a-z]{2000,3000}"], 0..30),
        cuts in prop::collection::vec(0usize..10_000, 0..12),
        max_line in prop::sample::select(vec![2500usize, MAX_LINE]),
    ) {
        let content: Vec<u8> = lines.iter().flat_map(|l| l.bytes().chain([b'\n'])).collect();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (content.len() + 1)).collect();
        cuts.push(content.len());
        cuts.sort_unstable();

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut file = std::fs::File::create(&path).unwrap();
        let (mut written, mut offset, mut got) = (0, 0, Vec::new());
        for cut in cuts {
            file.write_all(&content[written..cut]).unwrap();
            written = cut;
            let mut r = StreamReader::open(&path, offset).unwrap().with_max_line(max_line);
            while let Some(l) = r.next_line().unwrap() {
                got.push((l.end_offset, l.bytes.to_vec()));
            }
            offset = r.offset();
        }
        let mut want = Vec::new();
        let mut end = 0u64;
        for l in &lines {
            end += l.len() as u64 + 1;
            if l.len() <= max_line {
                want.push((end, l.as_bytes().to_vec()));
            }
        }
        prop_assert_eq!(got, want);
        prop_assert_eq!(offset, content.len() as u64);
    }
}
