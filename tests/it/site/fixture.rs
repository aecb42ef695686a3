//! A project with everything the page shows: French and English logs (the
//! seeds' own fixtures, `tests/fixtures/logs/`), hostile bullets, long
//! memory, a checkpoint, an audit report, transcripts of this project in a
//! fake client config folder (two sessions, one crossing the guard's warn
//! level), a guard ratchet that fired, and a gate note.

use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;

/// The bullets a hostile session could have written. None may run.
pub const HOSTILE: &[&str] = &[
    "<script>window.__pwned = 1</script> script tag in a bullet",
    "<img src=x onerror=\"window.__pwned = 2\"> image with onerror",
    "[click me](javascript:window.__pwned=3) javascript link",
    "</script><script>window.__pwned = 4</script> closing the index",
    "![tracker](http://203.0.113.9/pixel.png) remote image",
];

fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// A committed insta snapshot's content: a real audit report, without
/// insta's header and the harness's `[EOF]` mark.
fn snapshot_body(rel: &str) -> String {
    let text = repo_file(rel);
    let body = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .map(|(_, b)| b)
        .unwrap_or(&text);
    body.strip_suffix("[EOF]\n").unwrap_or(body).to_owned()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn usage_line(session: &str, cwd: &Path, n: usize, ts: &str, model: &str, fill: u64) -> String {
    json!({
        "parentUuid": null, "isSidechain": false, "userType": "external",
        "cwd": cwd, "sessionId": session, "version": "2.1.0",
        "message": {
            "id": format!("msg_{session}_{n}"), "type": "message", "role": "assistant",
            "model": model, "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "usage": {
                "input_tokens": 10, "cache_creation_input_tokens": 2000,
                "cache_read_input_tokens": fill.saturating_sub(2010),
                "cache_creation": {"ephemeral_5m_input_tokens": 2000, "ephemeral_1h_input_tokens": 0},
                "output_tokens": 300
            }
        },
        "requestId": format!("req_{session}_{n}"), "type": "assistant",
        "uuid": format!("u_{session}_{n}"), "timestamp": ts
    })
    .to_string()
}

/// Writes the project under `root`, the client's folder under `config`
/// and cairn's state under `state`.
pub fn populate(root: &Path, config: &Path, state: &Path) {
    let logs = root.join("memory_sessions/logs");
    write(
        &logs.join("2026-11-27.md"),
        &repo_file("tests/fixtures/logs/fr_seed.md").replace("2026-03-21", "2026-11-27"),
    );
    write(
        &logs.join("2026-11-28.md"),
        &repo_file("tests/fixtures/logs/en_seed.md").replace("2026-04-02", "2026-11-28"),
    );
    let mut hostile = String::from("# Log session — 2026-11-29\n\n## Problèmes rencontrés\n");
    for h in HOSTILE {
        let _ = writeln!(hostile, "- {h}");
    }
    hostile.push_str("\n## Travail produit\n- Schéma du ledger déplacé dans `src/usage/store.rs` **sans perte**.\n\n## À suivre\n- Vérifier la zébrure du tableau en mode sombre.\n");
    write(&logs.join("2026-11-29.md"), &hostile);
    write(
        &root.join("memory_sessions/long_memory.md"),
        "# Mémoire long terme — proj\n\n## 2026-11-20\n- Le ledger survit au nettoyage des transcripts à 30 jours.\n- <b onmouseover=\"window.__pwned=5\">hover</b> stays text.\n",
    );
    write(
        &root.join("memory_sessions/checkpoints/2026-11-29T101500Z-s-hot.md"),
        "# Checkpoint — s-hot\n\n## Where we are\n- Context at 165K of 200K: hand-off written.\n\n<script>window.__pwned = 6</script>\n",
    );
    write(
        &root.join("docs/audits/token/README.md"),
        "# Token audits\n\n| skill | weighted cost |\n|---|---|\n| deploy | $0.42 |\n",
    );
    write(
        &root.join("docs/audits/token/token_audit_rapport_hebdo.md"),
        &snapshot_body("tests/snapshots/audit_rapport_hebdo_en.snap"),
    );

    // Two sessions of this project: a calm one and one that ran hot.
    let folder = config.join("projects").join("-proj");
    let mut calm = String::new();
    for n in 0..6 {
        let ts = format!("2026-11-28T09:{:02}:00.000Z", n * 5);
        calm += &usage_line(
            "s-calm",
            root,
            n,
            &ts,
            "claude-sonnet-4-5-20250929",
            20_000 + n as u64 * 8_000,
        );
        calm.push('\n');
    }
    write(&folder.join("s-calm.jsonl"), &calm);
    let mut hot = String::new();
    for n in 0..12 {
        let ts = format!("2026-11-29T10:{:02}:00.000Z", n * 4);
        hot += &usage_line(
            "s-hot",
            root,
            n,
            &ts,
            "claude-opus-4-5-20251101",
            30_000 + n as u64 * 13_000,
        );
        hot.push('\n');
    }
    write(&folder.join("s-hot.jsonl"), &hot);

    // What the guard and the gate remembered of the hot session.
    write(
        &state.join("guard/sessions/s-hot.json"),
        &json!({
            "level": "warn",
            "checkpoint": root.join("memory_sessions/checkpoints/2026-11-29T101500Z-s-hot.md"),
            "fires": [{"level": "warn", "at": "2026-11-29T10:36:00Z", "tokens": 147000, "window": 200000}]
        })
        .to_string(),
    );
    write(
        &state.join("gate/notes.jsonl"),
        &format!(
            "{}\n",
            json!({"at": "2026-11-29T10:01:00Z", "session": "s-hot", "root": root, "classes": ["prior_artifact"]})
        ),
    );
}
