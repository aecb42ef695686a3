//! What the client already knows, shown (issue 11, item 4): the plan's
//! rate-limit windows, the prompt cache, and the context cross-checked
//! against the client's own percentage. The real binary on the lab's real
//! 2.1.332 payload (`tests/fixtures/statusline/example.json`: an API-key
//! session, so no `rate_limits`), with the windows added in the shape
//! Claude Code documents for Claude.ai plans since 2.1.80:
//! `rate_limits.{five_hour,seven_day}.{used_percentage,resets_at}`,
//! `resets_at` in epoch seconds.

use crate::common;

use common::Project;
use serde_json::{Value, json};
use std::path::Path;

/// `CAIRN_NOW` of [`Project::cairn`]: 2026-11-30T12:00:00Z.
const NOW: i64 = 1_796_040_000;

fn example(p: &Project) -> Value {
    let raw = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/statusline/example.json"),
    )
    .unwrap();
    let mut v: Value = serde_json::from_str::<Value>(&raw).unwrap()["payload"].clone();
    let root = p.root.to_str().unwrap();
    v["cwd"] = root.into();
    v["workspace"]["current_dir"] = root.into();
    v["workspace"]["project_dir"] = root.into();
    v["transcript_path"] = p.base.join("none.jsonl").to_str().unwrap().into();
    v
}

fn line(p: &Project, payload: &Value, colour: bool) -> String {
    let mut c = p.cairn();
    c.arg("statusline").env("COLUMNS", "400");
    if !colour {
        c.env("NO_COLOR", "1");
    }
    let out = c.write_stdin(payload.to_string()).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .trim_end()
        .to_string()
}

fn subscriber(p: &Project) -> Value {
    let mut v = example(p);
    v["rate_limits"] = json!({
        "five_hour": {"used_percentage": 35.2, "resets_at": NOW + 2 * 3600 + 10 * 60 + 20},
        "seven_day": {"used_percentage": 91, "resets_at": NOW + 3 * 86_400 + 4 * 3600},
    });
    v["prompt_cache"]["warm"] = true.into();
    v["prompt_cache"]["expires_at"] = (NOW + 185).into();
    v
}

#[test]
fn an_api_key_session_shows_no_windows_and_a_lapsed_cache() {
    let p = Project::new();
    let l = line(&p, &example(&p), false);
    assert!(!l.contains("5h ") && !l.contains("7d "), "{l}");
    // The lab's cache expired at 1796012874, before the fixed clock.
    assert!(l.contains(" | cache cold"), "{l}");
    // The client says 2 %, as cairn does (22k of 1M): nothing to flag.
    assert!(l.contains("ctx 2% 22k/1M | "), "{l}");
    assert!(!l.contains("client"), "{l}");
}

#[test]
fn a_subscriber_sees_both_windows_and_the_cache_countdown() {
    let p = Project::new();
    let payload = subscriber(&p);
    let l = line(&p, &payload, false);
    assert!(
        l.contains("ctx 2% 22k/1M | 5h 35% 2h10m | 7d 91% 3d4h | "),
        "{l}"
    );
    assert!(l.contains(" | cache 3m"), "{l}");
    // Coloured like the context: green below 70 %, bold red from 90 %.
    let c = line(&p, &payload, true);
    assert!(c.contains("\x1b[32m5h 35% 2h10m\x1b[0m"), "{c:?}");
    assert!(c.contains("\x1b[1;31m7d 91% 3d4h\x1b[0m"), "{c:?}");
}

#[test]
fn each_new_segment_can_be_turned_off() {
    let p = Project::new();
    std::fs::write(
        p.root.join(".cairn.toml"),
        "[statusline.five_hour]\ndisabled = true\n[statusline.cache]\ndisabled = true\n",
    )
    .unwrap();
    let l = line(&p, &subscriber(&p), false);
    assert!(!l.contains("5h "), "{l}");
    assert!(!l.contains("cache"), "{l}");
    assert!(l.contains(" | 7d 91% 3d4h | "), "{l}");
}

#[test]
fn the_context_says_when_the_client_disagrees() {
    let p = Project::new();
    let mut v = example(&p);
    // cairn counts 22 336 tokens of 1M (2 %); a client saying 9 % is
    // counting something else, and the line says so.
    v["context_window"]["used_percentage"] = 9.into();
    let l = line(&p, &v, false);
    assert!(l.contains("ctx 2% 22k/1M (client 9%) | "), "{l}");
    // Within 2 points is agreement.
    v["context_window"]["used_percentage"] = 4.into();
    let l = line(&p, &v, false);
    assert!(l.contains("ctx 2% 22k/1M | "), "{l}");
}
