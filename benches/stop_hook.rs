//! Stop hook local work (SPEC §6): parse the payload, one pass over the
//! transcript from the session's cursor, the turn digest, the spool job,
//! the guard. Must not grow with transcript size.
//!
//! `stop_hook_next_turn` is the steady state: the previous Stop left the
//! cursor at the start of the last turn. `stop_hook_first_stop` has no
//! cursor (a session's first Stop, cairn installed mid-session): the pass
//! reads the tail.
//!
//! `stop_hook_late_answer` is a Stop that comes before its answer's line
//! (the TUI's 85–170 ms), far from the guard's thresholds: capture takes the
//! answer from the payload and the guard cannot be moved by the late line,
//! so the hook does not wait for it (issue 11; it used to poll up to the
//! settle cap, 500 ms, here where the line never lands).
//!
//! Run: `cargo bench --bench stop_hook`.

use cairn::context::{Clock, Ctx, Env};
use std::io::Write;
use std::path::{Path, PathBuf};

fn main() {
    divan::main();
}

/// A transcript of about `bytes` bytes: realistic turns (prompt, assistant
/// blocks repeating usage, tool calls with large results), last turn complete.
fn make_transcript(dir: &Path, bytes: usize) -> PathBuf {
    let path = dir.join(format!("t{bytes}.jsonl"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let big = "x".repeat(20_000);
    let mut written = 0usize;
    let mut i = 0u64;
    while written < bytes {
        i += 1;
        let lines = [
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":"Turn {i}: fix the parser in src/parse.rs"}},"timestamp":"2026-11-30T10:00:00Z","uuid":"u{i}"}}"#
            ),
            format!(
                r#"{{"type":"assistant","requestId":"r{i}","message":{{"id":"m{i}","model":"claude-sonnet-4-6","content":[{{"type":"text","text":"Reading it."}}],"usage":{{"input_tokens":10,"cache_read_input_tokens":20000,"output_tokens":50}}}},"timestamp":"2026-11-30T10:00:01Z"}}"#
            ),
            format!(
                r#"{{"type":"assistant","requestId":"r{i}","message":{{"id":"m{i}","model":"claude-sonnet-4-6","content":[{{"type":"tool_use","id":"t{i}","name":"Read","input":{{"file_path":"src/parse.rs"}}}}],"usage":{{"input_tokens":10,"cache_read_input_tokens":20000,"output_tokens":50}}}},"timestamp":"2026-11-30T10:00:01Z"}}"#
            ),
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{i}","content":"{big}"}}]}},"timestamp":"2026-11-30T10:00:02Z"}}"#
            ),
            format!(
                r#"{{"type":"assistant","requestId":"s{i}","message":{{"id":"n{i}","model":"claude-sonnet-4-6","content":[{{"type":"text","text":"Fixed the parser. Next step: add a test."}}],"usage":{{"input_tokens":10,"cache_read_input_tokens":21000,"output_tokens":80}}}},"timestamp":"2026-11-30T10:00:03Z"}}"#
            ),
        ];
        for l in lines {
            written += l.len() + 1;
            writeln!(f, "{l}").unwrap();
        }
    }
    f.flush().unwrap();
    path
}

struct Setup {
    _dir: tempfile::TempDir,
    ctx: Ctx,
    payload: Vec<u8>,
    _worker_lock: cairn::fsutil::LockGuard,
    /// Where the previous Stop would have left the cursor.
    cursor: cairn::capture::pass::Cursor,
}

/// The byte offset of the last prompt line: where the last turn starts.
fn last_turn_start(path: &Path) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    let needle = br#"{"type":"user","message":{"role":"user","content":"Turn"#;
    bytes
        .windows(needle.len())
        .rposition(|w| w == needle)
        .unwrap() as u64
}

fn setup(bytes: usize) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    std::fs::create_dir_all(project.join("memory_sessions")).unwrap();
    let transcript = make_transcript(dir.path(), bytes);
    let state = dir.path().join("state");
    let env = Env::from_pairs([
        ("CAIRN_STATE_DIR", state.display().to_string()),
        ("CLAUDE_PROJECT_DIR", project.display().to_string()),
        ("HOME", dir.path().display().to_string()),
    ]);
    let ctx = Ctx::new(env, Clock::System);
    // Holding the worker lock makes the hook see a running worker, as in a
    // busy session, so the measurement is the hook's own work, not a spawn.
    let worker_lock = cairn::fsutil::lock(&state.join("worker.lock")).unwrap();
    let mut mark = cairn::transcript::mark::ReadMark::default();
    mark.advance(
        &transcript,
        last_turn_start(&transcript),
        &cairn::capture::pass::HEAD,
        &[],
    )
    .unwrap();
    let cursor = cairn::capture::pass::Cursor {
        transcript: transcript.clone(),
        mark,
        // As the previous Stop saved it: this transcript names no cwd.
        session_cwd: Some(String::new()),
        ..Default::default()
    };
    let payload = serde_json::json!({
        "session_id": "bench",
        "transcript_path": transcript,
        "cwd": project,
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": "Fixed the parser. Next step: add a test.",
    })
    .to_string()
    .into_bytes();
    Setup {
        _dir: dir,
        ctx,
        payload,
        _worker_lock: worker_lock,
        cursor,
    }
}

#[divan::bench(args = [1usize << 20, 25 << 20], sample_count = 200)]
fn stop_hook_next_turn(bencher: divan::Bencher, bytes: usize) {
    let s = setup(bytes);
    bencher
        .with_inputs(|| {
            cairn::capture::pass::save_cursor(&s.ctx.state_dir, "bench", &s.cursor).unwrap();
        })
        .bench_local_values(|()| {
            let out = cairn::hook::run(&s.ctx, &s.payload).unwrap();
            divan::black_box(out);
        });
    assert_spooled(&s);
}

#[divan::bench(args = [1usize << 20, 25 << 20], sample_count = 100)]
fn stop_hook_first_stop(bencher: divan::Bencher, bytes: usize) {
    let s = setup(bytes);
    let cursor = s.ctx.state_dir.join("capture/bench.json");
    bencher
        .with_inputs(|| {
            let _ = std::fs::remove_file(&cursor);
        })
        .bench_local_values(|()| {
            let out = cairn::hook::run(&s.ctx, &s.payload).unwrap();
            divan::black_box(out);
        });
    assert_spooled(&s);
}

#[divan::bench(args = [1usize << 20], sample_count = 50)]
fn stop_hook_late_answer(bencher: divan::Bencher, bytes: usize) {
    let s = setup(bytes);
    // The last turn without its final line: its prompt and tool result are
    // in the file, the answer only in the payload.
    let path = s.cursor.transcript.clone();
    let text = std::fs::read_to_string(&path).unwrap();
    let cut = text.trim_end_matches('\n').rfind('\n').unwrap() + 1;
    std::fs::write(&path, &text[..cut]).unwrap();
    let payload = String::from_utf8(s.payload.clone())
        .unwrap()
        .replace(
            "Fixed the parser. Next step: add a test.",
            "The answer still on its way.",
        )
        .into_bytes();
    bencher
        .with_inputs(|| {
            cairn::capture::pass::save_cursor(&s.ctx.state_dir, "bench", &s.cursor).unwrap();
        })
        .bench_local_values(|()| {
            let out = cairn::hook::run(&s.ctx, &payload).unwrap();
            divan::black_box(out);
        });
    assert_spooled(&s);
}

fn assert_spooled(s: &Setup) {
    let jobs = std::fs::read_dir(s.ctx.state_dir.join("spool/pending"))
        .unwrap()
        .count();
    assert!(jobs > 0, "the hook must have spooled jobs");
}
