//! Concurrency: N `cairn hook` Stop processes at once, half of them in
//! distinct sessions and half in one shared session, round after round,
//! each starting (or finding) the background worker. Every turn lands in
//! the log exactly once.

use super::harness::*;
use crate::common::{Project, Turn};
use std::io::Write;
use std::process::Stdio;

#[test]
fn concurrent_stop_hooks_in_distinct_and_shared_sessions_land_once() {
    let n = knob("CONC_HOOKS", 16);
    let rounds = knob("CONC_ROUNDS", 3);
    let p = Project::new();
    let _reaper = Reaper(p.state.clone());
    let needle = |r: usize, i: usize| format!("src/conc_r{r:02}_h{i:03}.rs");
    let mut accepted = 0;
    for r in 0..rounds {
        let payloads: Vec<String> = (0..n)
            .map(|i| {
                let t = p.transcript(
                    &format!("c{r}_{i}"),
                    &[Turn::new(&format!("Create {}", needle(r, i)), "Created.")
                        .write(&needle(r, i))],
                );
                let mut v = p.stop(&t, None);
                v["session_id"] = if i % 2 == 0 {
                    format!("conc-distinct-{r}-{i}").into()
                } else {
                    "conc-shared".into()
                };
                v.to_string()
            })
            .collect();
        // Start them all before waiting for any.
        let children: Vec<_> = payloads
            .iter()
            .map(|payload| {
                let mut c = p
                    .command()
                    .arg("hook")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                c.stdin
                    .take()
                    .unwrap()
                    .write_all(payload.as_bytes())
                    .unwrap();
                c
            })
            .collect();
        for (i, c) in children.into_iter().enumerate() {
            let o = c.wait_with_output().unwrap();
            assert!(
                o.status.success() && o.stdout.is_empty(),
                "round {r} hook {i}: {:?} {}",
                o.status,
                String::from_utf8_lossy(&o.stdout)
            );
            accepted += 1;
        }
    }
    wait_idle(&p.state);
    p.drain();
    assert_eq!(p.pending(), 0, "{}", p.diagnostics());
    let log = p.log(DAY);
    let (mut lost, mut duplicated) = (0, 0);
    for r in 0..rounds {
        for i in 0..n {
            match times_logged(&log, &needle(r, i)) {
                0 => lost += 1,
                1 => {}
                _ => duplicated += 1,
            }
        }
    }
    figures(
        "concurrency",
        &format!(
            "hooks={n} rounds={rounds} accepted={accepted} in_log={} lost={lost} duplicated={duplicated}",
            accepted - lost - duplicated
        ),
    );
    assert_eq!((lost, duplicated), (0, 0), "{log}\n{}", p.diagnostics());
    assert_log_is_whole(&log);
    assert!(p.diagnostics().is_empty(), "{}", p.diagnostics());
}
