//! Concurrent guard calls on one session never fire a level twice: the
//! ratchet is re-read and updated under a lock, from threads and from
//! separate processes alike.

// The child process reports its outcome on stdout.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use crate::common::guard::*;
use cairn::config::Config;
use cairn::guard;
use std::path::PathBuf;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// Runs `n` simultaneous checks on one session; returns each outcome's kind.
fn race_threads(s: &Arc<Scratch>, t: &Session, n: usize) -> Vec<String> {
    let barrier = Arc::new(Barrier::new(n));
    let info = s.stop_info(t);
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let (s, b, info) = (Arc::clone(s), Arc::clone(&barrier), info.clone());
            std::thread::spawn(move || {
                b.wait();
                let o = guard::check(
                    &s.ctx(),
                    &Config::default().for_guard(),
                    &s.root,
                    &info,
                    None,
                    &guard::Unpriced,
                )
                .unwrap();
                kind(&o)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

fn count(v: &[String], k: &str) -> usize {
    v.iter().filter(|x| x.as_str() == k).count()
}

#[test]
fn threads_never_fire_a_level_twice() {
    let s = Arc::new(Scratch::new());
    for round in 0..5 {
        let sid = format!("race-{round}");
        let mut t = s.session(&sid);
        t.answer(125_000, "a");
        let got = race_threads(&s, &t, 24);
        assert_eq!(count(&got, "block:warn"), 1, "{got:?}");
        assert_eq!(count(&got, "silent:AlreadyFired"), 23, "{got:?}");
        t.answer(170_000, "b");
        let got = race_threads(&s, &t, 24);
        assert_eq!(count(&got, "block:hard"), 1, "{got:?}");
        assert_eq!(count(&got, "silent:AlreadyFired"), 23, "{got:?}");
        // Compaction races with itself too: one re-arm.
        t.compact(170_000);
        t.answer(20_000, "c");
        let got = race_threads(&s, &t, 24);
        assert_eq!(count(&got, "rearmed"), 1, "{got:?}");
        assert_eq!(count(&got, "silent:Below"), 23, "{got:?}");
    }
    // One note per session (warn wrote it, hard reused it).
    assert_eq!(s.checkpoints().len(), 5, "{:?}", s.checkpoints());
}

const CHILD: &str = "CAIRN_GUARD_TEST_CHILD";

/// Not a test on its own: the body of one racing process (see below).
/// Without the variable it does nothing.
#[test]
fn child_process_entry() {
    let Ok(spec) = std::env::var(CHILD) else {
        return;
    };
    let parts: Vec<&str> = spec.split('\n').collect();
    let [state, root, transcript, sid, go] = parts[..] else {
        panic!("bad spec {spec:?}")
    };
    let ctx = crate::common::ctx(crate::common::lib_env(
        state.as_ref(),
        std::path::Path::new("/nonexistent"),
    ));
    let deadline = Instant::now() + Duration::from_secs(20);
    while !std::path::Path::new(go).exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_micros(200));
    }
    let info = cairn::event::Stop {
        session_id: sid.into(),
        transcript_path: Some(PathBuf::from(transcript)),
        cwd: Some(PathBuf::from(root)),
        ..Default::default()
    };
    let o = guard::check(
        &ctx,
        &Config::default().for_guard(),
        root.as_ref(),
        &info,
        None,
        &guard::Unpriced,
    )
    .unwrap();
    println!("\nOUTCOME={}", kind(&o));
}

#[test]
fn processes_never_fire_a_level_twice() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let s = Scratch::new();
    let exe = std::env::current_exe().unwrap();
    // The test's name inside the one test binary: its module path minus
    // the crate's name.
    let child_test = match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::child_process_entry"),
        None => "child_process_entry".to_string(),
    };
    let mut t = s.session(SID);
    for (i, fill, want) in [(0, 125_000, "block:warn"), (1, 170_000, "block:hard")] {
        t.answer(fill, "a");
        let go = s.base.join(format!("go-{i}"));
        let spec = [
            s.state.display().to_string(),
            s.root.display().to_string(),
            t.path.display().to_string(),
            SID.to_string(),
            go.display().to_string(),
        ]
        .join("\n");
        let children: Vec<_> = (0..12)
            .map(|_| {
                std::process::Command::new(&exe)
                    .args(["--exact", &child_test, "--nocapture", "--test-threads=1"])
                    .env(CHILD, &spec)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        std::fs::write(&go, "").unwrap();
        let outs: Vec<String> = children
            .into_iter()
            .map(|c| {
                let o = c.wait_with_output().unwrap();
                assert!(o.status.success());
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    // libtest prints `test … ` on the same line first.
                    .find_map(|l| l.split_once("OUTCOME=").map(|(_, k)| k.trim().to_string()))
                    .unwrap_or_else(|| panic!("child said: {}", String::from_utf8_lossy(&o.stdout)))
            })
            .collect();
        assert_eq!(count(&outs, want), 1, "{outs:?}");
        assert_eq!(count(&outs, "silent:AlreadyFired"), 11, "{outs:?}");
    }
}
