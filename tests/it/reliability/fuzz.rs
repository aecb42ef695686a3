//! Mutation fuzzing for a bounded budget: the log parser (parse/render),
//! the merge driver's three-way merge, the hook payload reader
//! (`hook::run`) and the transcript readers (tail against full read). A
//! small deterministic mutator (bit flips, truncations, splices, huge
//! lines, invalid UTF-8) works from the project's fixtures. `cargo test`
//! runs `CAIRN_FUZZ_ITERS` inputs per target (small by default);
//! `CAIRN_FUZZ_SECS` runs each target for that many seconds instead.

use super::harness::*;
use crate::common;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// The budget of one target: a count, or a duration for the long part.
struct Budget {
    iters: usize,
    until: Option<Instant>,
}

impl Budget {
    fn new(quick: usize) -> Budget {
        let secs = std::env::var("CAIRN_FUZZ_SECS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok());
        let iters = std::env::var("CAIRN_FUZZ_ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(quick);
        Budget {
            iters,
            until: secs.map(|s| Instant::now() + Duration::from_secs(s)),
        }
    }
    fn more(&self, done: usize) -> bool {
        match self.until {
            Some(t) => Instant::now() < t,
            None => done < self.iters,
        }
    }
}

/// One mutation of `seed` (with `other` for splices), 1–4 steps deep.
fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = v.len().max(1);
        match rng.below(9) {
            0 => {
                for _ in 0..1 + rng.below(8) {
                    if !v.is_empty() {
                        let i = rng.below(v.len());
                        v[i] ^= 1 << rng.below(8);
                    }
                }
            }
            1 => v.truncate(rng.below(len)),
            2 => {
                // Splice a piece of another input in.
                if !other.is_empty() {
                    let a = rng.below(other.len());
                    let b = (a + rng.below(512)).min(other.len());
                    let at = rng.below(len).min(v.len());
                    v.splice(at..at, other[a..b].iter().copied());
                }
            }
            3 => {
                // A huge line.
                let at = rng.below(len).min(v.len());
                let n = 1 + rng.below(200_000);
                let byte = [b'x', b'-', b'#', b' ', b'\n', 0xff][rng.below(6)];
                v.splice(at..at, std::iter::repeat_n(byte, n));
            }
            4 => {
                // Invalid UTF-8 and control bytes.
                let at = rng.below(len).min(v.len());
                let junk: &[u8] = [
                    &[0xff, 0xfe][..],
                    &[0xc3],
                    &[0xe2, 0x80],
                    &[0],
                    b"\r",
                    &[0xef, 0xbb, 0xbf],
                ][rng.below(6)];
                v.splice(at..at, junk.iter().copied());
            }
            5 => {
                // Duplicate a range (repeated sections, repeated records).
                let a = rng.below(len).min(v.len());
                let b = (a + rng.below(2048)).min(v.len());
                let piece = v[a..b].to_vec();
                v.splice(b..b, piece);
            }
            6 => {
                // Delete a range.
                let a = rng.below(len).min(v.len());
                let b = (a + rng.below(256)).min(v.len());
                v.drain(a..b);
            }
            7 => {
                // Markdown and JSON tokens the parsers branch on.
                let tokens: [&[u8]; 10] = [
                    b"\n## ", b"\n- ", b"\n```\n", b"<!--", b"-->", b"\n# ", b"{", b"\"}",
                    b"\\u0000", b"\n---\n",
                ];
                let at = rng.below(len).min(v.len());
                v.splice(at..at, tokens[rng.below(tokens.len())].iter().copied());
            }
            _ => {
                if !v.is_empty() {
                    let i = rng.below(v.len());
                    v[i] = rng.next() as u8;
                }
            }
        }
    }
    v
}

fn files(dir: &str, ext: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::from(FIXTURES).join(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(std::fs::read(&p).unwrap());
            }
        }
    }
    out.sort();
    assert!(!out.is_empty(), "no {ext} fixtures under {dir}");
    out
}

/// A mutation of one seed, spliced with another.
fn mutant(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let a = rng.below(seeds.len());
    mutant_of(rng, &seeds[a], seeds)
}

fn mutant_of(rng: &mut Rng, base: &[u8], seeds: &[Vec<u8>]) -> Vec<u8> {
    let b = rng.below(seeds.len());
    mutate(rng, base, &seeds[b])
}

fn no_panic<T>(what: &str, input: &[u8], f: impl FnOnce() -> T) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => {
            let path =
                std::env::temp_dir().join(format!("cairn-fuzz-{what}-{}.bin", std::process::id()));
            std::fs::write(&path, input).unwrap();
            panic!("{what} panicked; input kept in {}", path.display());
        }
    }
}

#[test]
fn fuzz_log_parse_render() {
    use cairn::memory::log::{DailyLog, Lang};
    let seeds = files("logs", "md");
    let mut rng = Rng::new(11);
    let budget = Budget::new(300);
    let mut n = 0;
    while budget.more(n) {
        let input = mutant(&mut rng, &seeds);
        let text = String::from_utf8_lossy(&input).into_owned();
        let once = no_panic("log", &input, || {
            DailyLog::parse(&text, DAY, Lang::Fr).render()
        });
        let twice = DailyLog::parse(&once, DAY, Lang::Fr).render();
        // Finding 12 (a BOM after a blank first line) is the one known way
        // for the second rewrite to differ; the third must be stable.
        let thrice = DailyLog::parse(&twice, DAY, Lang::Fr).render();
        assert_eq!(
            thrice,
            twice,
            "rewrite is not stable for {:?}",
            truncate(&text, 2000)
        );
        // Nothing a person wrote is lost: every non-blank line survives.
        for line in text
            .split('\n')
            .map(|l| l.trim_end_matches('\r').trim_end())
        {
            let line = line.trim_start_matches('\u{feff}');
            if !line.trim().is_empty() && !line.starts_with('#') {
                assert!(
                    once.contains(line),
                    "line {line:?} lost from {:?}",
                    truncate(&text, 2000)
                );
            }
        }
        n += 1;
    }
    figures(
        "fuzz",
        &format!("target=log_parse_render inputs={n} panics=0"),
    );
}

/// Finding 12 says a BOM after a blank first line gains a blank line on
/// the second rewrite. The shapes below do not reproduce it on this
/// branch, and neither do the mutants; kept as the guard.
#[test]
fn log_rewrite_is_a_fixed_point_after_one_pass() {
    use cairn::memory::log::{DailyLog, Lang};
    for text in [
        "\n\u{feff}# Log session — 2026-11-30\n\n## Travail produit\n- a\n",
        "\u{feff}\n# Log session — 2026-11-30\n\n## Travail produit\n- a\n",
        "\n\u{feff}\n## Travail produit\n- a\n",
        "\u{feff}\n\n## Travail produit\n- a\n",
    ] {
        let once = DailyLog::parse(text, DAY, Lang::Fr).render();
        let twice = DailyLog::parse(&once, DAY, Lang::Fr).render();
        assert_eq!(twice, once, "{text:?}");
    }
    let seeds = files("logs", "md");
    let mut rng = Rng::new(12);
    let budget = Budget::new(300);
    let mut n = 0;
    while budget.more(n) {
        let input = mutant(&mut rng, &seeds);
        let text = String::from_utf8_lossy(&input).into_owned();
        let once = DailyLog::parse(&text, DAY, Lang::Fr).render();
        let twice = DailyLog::parse(&once, DAY, Lang::Fr).render();
        assert_eq!(twice, once, "for {:?}", truncate(&text, 2000));
        n += 1;
    }
}

#[test]
fn fuzz_three_way_merge() {
    use cairn::merge::three_way::merge;
    let seeds = files("logs", "md");
    let mut rng = Rng::new(13);
    let budget = Budget::new(200);
    let (mut n, mut conflicts) = (0, 0);
    while budget.more(n) {
        let base = mutant(&mut rng, &seeds);
        let ours = mutant_of(&mut rng, &base, &seeds);
        let theirs = mutant_of(&mut rng, &base, &seeds);
        let [b, o, t] = [&base, &ours, &theirs].map(|v| String::from_utf8_lossy(v).into_owned());
        let mut all = base.clone();
        all.extend_from_slice(b"\n=====\n");
        all.extend_from_slice(&ours);
        all.extend_from_slice(b"\n=====\n");
        all.extend_from_slice(&theirs);
        match no_panic("merge", &all, || merge(&b, &o, &t)) {
            Ok(m) => {
                // Merging the result with itself changes nothing (the
                // property the driver's own proptests state).
                let again = no_panic("merge", &all, || merge(&b, &m, &m));
                assert_eq!(again.as_deref(), Ok(m.as_str()), "merge(b, m, m) != m");
            }
            Err(_) => conflicts += 1,
        }
        n += 1;
    }
    figures(
        "fuzz",
        &format!("target=three_way_merge inputs={n} conflicts={conflicts} panics=0"),
    );
}

#[test]
fn fuzz_hook_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir_all(root.join("memory_sessions/logs")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let transcript = dir.path().join("t.jsonl");
    let t = files("transcripts/v2.1.332/print", "jsonl");
    std::fs::write(&transcript, &t[0]).unwrap();
    let mut env = common::lib_env(&dir.path().join("state"), &dir.path().join("home"));
    // A hook would start a detached worker: make it a no-op.
    env.set("CAIRN_EXE", "/bin/true");
    let ctx = common::ctx(env);
    let r = root.display().to_string();
    let tp = transcript.display().to_string();
    let seeds: Vec<Vec<u8>> = [
        serde_json::json!({"session_id":"s","transcript_path":tp,"cwd":r,"hook_event_name":"Stop","stop_hook_active":false,"permission_mode":"default"}),
        serde_json::json!({"session_id":"s","transcript_path":tp,"cwd":r,"hook_event_name":"SessionStart","source":"startup"}),
        serde_json::json!({"session_id":"s","transcript_path":tp,"cwd":r,"hook_event_name":"UserPromptSubmit","prompt":"Fix the bug like last time"}),
        serde_json::json!({"session_id":"s","transcript_path":tp,"cwd":r,"hook_event_name":"SubagentStop","agent_id":"a1","agent_type":"general-purpose","agent_transcript_path":tp}),
        serde_json::json!({"session_id":"s","transcript_path":tp,"cwd":r,"hook_event_name":"SessionStart","source":"compact"}),
    ]
    .iter()
    .map(|v| v.to_string().into_bytes())
    .collect();
    let mut rng = Rng::new(14);
    let budget = Budget::new(300);
    let (mut n, mut skipped_slow) = (0, 0);
    while budget.more(n) {
        let input = mutant(&mut rng, &seeds);
        // A Stop whose transcript is missing waits up to 500 ms for the
        // client to create it (tested in hook_pipeline.rs): skipped, or the
        // budget would go to sleeping. A Stop naming an answer the file does
        // not hold yet no longer waits, unless the guard is near a level.
        if let Ok(cairn::event::Event::Stop(p)) = cairn::event::parse(&input)
            && !p.transcript_path.as_deref().is_some_and(Path::is_file)
        {
            skipped_slow += 1;
            n += 1;
            continue;
        }
        let _ = no_panic("hook::run", &input, || cairn::hook::run(&ctx, &input));
        n += 1;
    }
    figures(
        "fuzz",
        &format!("target=hook_payload inputs={n} skipped_slow_stop={skipped_slow} panics=0"),
    );
}

/// The capture's pass, which every Stop runs: mutated transcripts never
/// make it panic, and a pass resumed from a cursor saved at any line
/// boundary sees no request the whole read does not (nothing invented,
/// nothing counted twice by the cursor).
#[test]
fn fuzz_capture_pass() {
    let seeds: Vec<Vec<u8>> = files("transcripts", "jsonl")
        .into_iter()
        .filter(|s| s.len() < 64 << 10)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let mut rng = Rng::new(29);
    let budget = Budget::new(150);
    let mut n = 0;
    while budget.more(n) {
        let input = mutant(&mut rng, &seeds);
        std::fs::write(&path, &input).unwrap();
        let whole = no_panic("capture pass", &input, || {
            cairn::capture::pass::run(&path, None, "s", None)
        })
        .unwrap();
        // Resume at a line boundary of the same file.
        let cut = input
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1)
            .nth(rng.below(8));
        if let Some(cut) = cut {
            std::fs::write(&path, &input[..cut]).unwrap();
            let first = no_panic("capture pass (prefix)", &input, || {
                cairn::capture::pass::run(&path, None, "s", None)
            })
            .unwrap();
            std::fs::write(&path, &input).unwrap();
            let rest = no_panic("capture pass (resumed)", &input, || {
                cairn::capture::pass::run(&path, Some(&first.cursor), "s", None)
            })
            .unwrap();
            let all: Vec<&str> = whole.turns.iter().map(|t| t.request.as_str()).collect();
            for t in rest.turns.iter().filter(|t| t.prompted) {
                assert!(
                    all.contains(&t.request.as_str()),
                    "a resumed pass saw a request the whole read did not: {:?} (input in {})",
                    t.request,
                    keep(&input)
                );
            }
        }
        n += 1;
    }
}

#[test]
fn fuzz_transcript_tail_against_full_read() {
    let seeds: Vec<Vec<u8>> = files("transcripts", "jsonl")
        .into_iter()
        .filter(|s| s.len() < 64 << 10)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let mut rng = Rng::new(15);
    let budget = Budget::new(150);
    let mut n = 0;
    while budget.more(n) {
        let input = mutant(&mut rng, &seeds);
        std::fs::write(&path, &input).unwrap();
        let (tail, stats) = no_panic("last_exchange", &input, || {
            cairn::transcript::last_exchange_with(&path, &Default::default())
        })
        .unwrap();
        let full = no_panic("last_exchange_full", &input, || {
            cairn::transcript::last_exchange_full(&path)
        })
        .unwrap();
        if !stats.hit_cap {
            assert_eq!(
                tail,
                full,
                "tail reader and full read disagree (input in {})",
                keep(&input)
            );
        }
        let tail_u = no_panic("last_context_usage", &input, || {
            cairn::transcript::last_context_usage(&path)
        })
        .unwrap();
        let full_u = no_panic("last_context_usage_full", &input, || {
            cairn::transcript::last_context_usage_full(&path)
        })
        .unwrap();
        assert_eq!(
            tail_u,
            full_u,
            "context usage: tail and full disagree (input in {})",
            keep(&input)
        );
        let _ = no_panic("context_at_stop", &input, || {
            cairn::transcript::context_at_stop(&path)
        });
        n += 1;
    }
    figures(
        "fuzz",
        &format!("target=transcript_readers inputs={n} panics=0"),
    );
}

fn keep(input: &[u8]) -> String {
    let path = std::env::temp_dir().join(format!(
        "cairn-fuzz-transcript-{}.jsonl",
        std::process::id()
    ));
    std::fs::write(&path, input).unwrap();
    path.display().to_string()
}
