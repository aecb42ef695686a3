//! Secrets across every place cairn writes. The formats of the redaction
//! corpus (`tests/it/redact_corpus.rs`, built the same way: fabricated and
//! assembled at run time) go into prompts, assistant answers (transcript
//! and `last_assistant_message`), tool commands and tool outputs, some
//! straddling the cuts (the assistant text keeps its last 6 000 characters,
//! checkpoint notes cut the answer at 600). Then every file cairn wrote —
//! state folder (spool, diagnostics, ledger, sessions, usage, search) and
//! project (logs, long memory, `.debug/`, checkpoints) — is scanned for
//! each secret and for any 12-character fragment of one.

use super::harness::*;
use crate::common::Project;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common::fake::*;

/// One secret and the sentence that carries it the way it turns up in a
/// session (the corpus's contexts: the redactor keys some formats on them).
struct Secret {
    value: String,
    in_context: String,
}

fn secret(value: String, context: &str) -> Secret {
    Secret {
        in_context: context.replace("{}", &value),
        value,
    }
}

/// The secret formats of the redaction corpus.
fn corpus() -> Vec<Secret> {
    vec![
        secret(
            p(&["sk-", "ant-api03-", &fake(1, 93, B64URL), "AA"]),
            "export ANTHROPIC_API_KEY={}",
        ),
        secret(
            p(&["sk-", "proj-", &fake(3, 120, B64URL)]),
            "client = OpenAI(api_key=\"{}\")",
        ),
        secret(
            p(&["sk-", "svcacct-", &fake(6, 64, B64URL)]),
            "OPENAI_API_KEY='{}'",
        ),
        secret(
            p(&["gh", "p_", &fake(7, 36, ALNUM)]),
            "git remote set-url origin https://{}@github.com/acme/app.git",
        ),
        secret(
            p(&["gh", "o_", &fake(8, 36, ALNUM)]),
            "The CLI stored `{}` in hosts.yml.",
        ),
        secret(
            p(&[
                "github",
                "_pat_",
                &fake(10, 22, ALNUM),
                "_",
                &fake(11, 59, ALNUM),
            ]),
            "token: {}",
        ),
        secret(
            p(&["gl", "pat-", &fake(12, 20, ALNUM)]),
            "curl --header \"PRIVATE-TOKEN: {}\" https://gitlab.example.com",
        ),
        secret(
            p(&["AK", "IA", &fake(13, 16, UPPER_DIGITS)]),
            "aws_access_key_id = {}",
        ),
        secret(fake(14, 40, B64), "export AWS_SECRET_ACCESS_KEY=\"{}\""),
        secret(
            p(&[
                "xo",
                "xb-",
                &fake(15, 11, b"0123456789"),
                "-",
                &fake(16, 12, b"0123456789"),
                "-",
                &fake(17, 24, ALNUM),
            ]),
            "SLACK_BOT_TOKEN={}",
        ),
        secret(
            p(&["sk", "_live_", &fake(24, 24, ALNUM)]),
            "stripe.api_key = \"{}\"",
        ),
        secret(
            p(&["AI", "za", &fake(27, 35, B64URL)]),
            "https://maps.googleapis.com/maps/api/geocode/json?key={}",
        ),
        secret(
            p(&["GOC", "SPX-", &fake(28, 28, B64URL)]),
            "client_secret: {}",
        ),
        secret(
            p(&[
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
                ".",
                "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
                ".",
                &fake(29, 43, B64URL),
            ]),
            "Authorization: Bearer {}",
        ),
        secret(
            p(&["np", "m_", &fake(30, 36, ALNUM)]),
            "//registry.npmjs.org/:_authToken={}",
        ),
        secret(
            p(&["h", "f_", &fake(31, 34, ALNUM)]),
            "huggingface-cli login --token {}",
        ),
        secret(
            p(&["S", "G.", &fake(32, 22, B64URL), ".", &fake(33, 43, B64URL)]),
            "SENDGRID_API_KEY={}",
        ),
        secret(
            p(&["do", "p_v1_", &fake(36, 64, HEX)]),
            "DIGITALOCEAN_TOKEN={}",
        ),
        secret(p(&["hv", "s.", &fake(40, 90, B64URL)]), "VAULT_TOKEN={}"),
        secret(fake(50, 24, ALNUM), "DB_PASSWORD={}"),
        secret(
            fake(51, 20, ALNUM),
            "postgres://app:{}@db.internal:5432/app",
        ),
    ]
}

/// A PEM private key: its base64 lines are secrets too.
fn pem() -> (String, Vec<String>) {
    let lines: Vec<String> = (0..6).map(|i| fake(41 + i, 64, B64)).collect();
    let label = ["PRIVATE", " KEY"].concat();
    (
        format!(
            "-----BEGIN {label}-----\n{}\n-----END {label}-----",
            lines.join("\n")
        ),
        lines,
    )
}

/// Every 12-character window of every secret.
fn fragments(secrets: &[String]) -> HashSet<Vec<u8>> {
    secrets
        .iter()
        .flat_map(|s| {
            s.as_bytes()
                .windows(12)
                .map(<[u8]>::to_vec)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Files under `dirs` holding a secret or a fragment of one.
fn leaks(dirs: &[&Path], secrets: &[String]) -> Vec<String> {
    let frags = fragments(secrets);
    let mut out = Vec::new();
    let mut scanned = 0;
    for dir in dirs {
        for (path, bytes) in files_under(dir, 64 << 20) {
            scanned += 1;
            if let Some(w) = bytes.windows(12).find(|w| frags.contains(*w)) {
                out.push(format!(
                    "{}: {:?}",
                    path.display(),
                    String::from_utf8_lossy(w)
                ));
            }
        }
    }
    assert!(
        scanned > 0,
        "nothing written under {dirs:?}: nothing was tested"
    );
    out
}

/// A transcript line by line, shaped like the client's (see
/// `tests/it/common/mod.rs`), with a tool call whose command and output
/// carry secrets, one failed call, and a final usage of `fill` tokens.
fn transcript(
    p: &Project,
    name: &str,
    prompt: &str,
    command: &str,
    output: &str,
    answer: &str,
    fill: u64,
) -> PathBuf {
    let ts = "2026-11-30T10:00:00.000Z";
    let usage = json!({"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": fill - 100, "output_tokens": 60});
    let lines = [
        json!({"type":"user","isSidechain":false,"message":{"role":"user","content":prompt},"timestamp":ts,"uuid":"u0","origin":{"kind":"human"},"promptSource":"typed"}),
        json!({"type":"assistant","isSidechain":false,"requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":command}}],"usage":usage},"timestamp":ts}),
        json!({"type":"user","isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":output,"is_error":false}]},"timestamp":ts}),
        json!({"type":"assistant","isSidechain":false,"requestId":"req_2","message":{"id":"msg_2","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"tool_use","id":"toolu_2","name":"Write","input":{"file_path":p.root.join("src/secrets.rs"),"content":output}}],"usage":usage},"timestamp":ts}),
        json!({"type":"user","isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":format!("Error: {output}"),"is_error":true}]},"timestamp":ts}),
        json!({"type":"assistant","isSidechain":false,"requestId":"req_3","message":{"id":"msg_3","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":answer}],"usage":usage},"timestamp":ts}),
    ];
    let path = p.base.join(format!("{name}.jsonl"));
    let mut f = std::fs::File::create(&path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    path
}

fn stop_payload(p: &Project, t: &Path, answer: &str) -> Value {
    let mut v = p.stop(t, Some(answer));
    v["session_id"] = "secrets-session".into();
    v
}

/// A filler that the redactor leaves alone, `n` characters long.
fn filler(n: usize) -> String {
    "Le module est prêt. ".chars().cycle().take(n).collect()
}

#[test]
fn secrets_in_every_field_leave_no_trace_in_any_file_after_the_drain() {
    let p = Project::new();
    let _reaper = Reaper(p.state.clone());
    let corpus = corpus();
    let (key, key_lines) = pem();
    let mut all: Vec<String> = corpus.iter().map(|s| s.value.clone()).collect();
    all.extend(key_lines);
    for (i, s) in corpus.iter().enumerate() {
        let t = transcript(
            &p,
            &format!("s{i}"),
            &format!("Configure src/secrets.rs: {}", s.in_context),
            &format!("echo '{}' >> .env", s.in_context),
            &format!("{}\n{key}", s.in_context),
            &format!("Fait : {} est dans src/secrets.rs.", s.in_context),
            20_000,
        );
        let answer = format!("Fait : {} est dans src/secrets.rs.", s.in_context);
        assert_silent(
            &format!("Stop {i}"),
            &hook(&p, &stop_payload(&p, &t, &answer)),
        );
    }
    wait_idle(&p.state);
    p.drain();
    let log = p.log(DAY);
    assert!(
        log.contains("src/secrets.rs"),
        "the turns were captured: {log}"
    );
    let found = leaks(&[&p.root, &p.state], &all);
    figures(
        "secrets",
        &format!(
            "kinds={} turns={} files_with_a_secret={}",
            all.len(),
            corpus.len(),
            found.len()
        ),
    );
    assert!(
        found.is_empty(),
        "secrets written:\n  {}",
        found.join("\n  ")
    );
}

/// Finding 2: the hook spools the raw exchange (redaction happens only in
/// the worker), in world-readable files.
#[test]
fn the_spool_never_holds_a_secret_and_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let p = Project::new();
    let _reaper = Reaper(p.state.clone());
    let s = &corpus()[3];
    let t = transcript(
        &p,
        "spool",
        &format!("Use {}", s.in_context),
        &format!("echo {}", s.in_context),
        &s.in_context,
        &s.in_context,
        20_000,
    );
    let _hold = cairn::fsutil::lock(&p.state.join("worker.lock")).unwrap();
    assert_silent("Stop", &hook(&p, &stop_payload(&p, &t, &s.in_context)));
    let found = leaks(&[&p.state.join("spool")], std::slice::from_ref(&s.value));
    assert!(
        found.is_empty(),
        "raw secret in the spool:\n  {}",
        found.join("\n  ")
    );
    for dir in [p.state.clone(), p.state.join("spool/pending")] {
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o077;
        assert_eq!(mode, 0, "{} is readable by others", dir.display());
    }
    for (path, _) in files_under(&p.state.join("spool"), 0) {
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o077;
        assert_eq!(mode, 0, "{} is readable by others", path.display());
    }
}

/// Finding 3: the assistant text is cut to its last 6 000 characters and
/// redacted after, so a secret whose head falls before the cut is no
/// longer recognised and its tail is kept.
#[test]
fn a_secret_straddling_the_assistant_cut_leaves_no_fragment() {
    let mut p = Project::new();
    // What reaches a backend is what the finding is about: a fake `claude`
    // keeps every prompt it is sent, and that folder is scanned too.
    let backend = fake_claude(&mut p);
    let _reaper = Reaper(p.state.clone());
    let corpus = corpus();
    let mut all = Vec::new();
    let mut n = 0;
    for s in corpus.iter().step_by(4) {
        for before in [4, 8, 12] {
            // `before` characters of the secret fall before the kept tail.
            let at = s.in_context.find(&s.value).unwrap() + before;
            let tail = 6000 - (s.in_context.len() - at);
            let answer = format!("{}\n{}", s.in_context, filler(tail - 1));
            let t = transcript(
                &p,
                &format!("cut{n}"),
                &format!("Turn {n}: keep src/cut_{n}.rs"),
                "ls",
                "ok",
                &answer,
                20_000,
            );
            assert_silent("Stop", &hook(&p, &stop_payload(&p, &t, &answer)));
            all.push(s.value.clone());
            n += 1;
        }
    }
    wait_idle(&p.state);
    p.drain();
    let found = leaks(&[&p.root, &p.state, &backend], &all);
    figures(
        "secrets",
        &format!(
            "straddling_6000_cut cases={n} files_with_a_fragment={}",
            found.len()
        ),
    );
    assert!(
        found.is_empty(),
        "fragments kept:\n  {}",
        found.join("\n  ")
    );
}

/// Finding 3, checkpoint notes: the last answer is cut at 600 characters,
/// then redacted.
#[test]
fn a_secret_straddling_the_checkpoint_cut_leaves_no_fragment() {
    let p = Project::new();
    let _reaper = Reaper(p.state.clone());
    let s = &corpus()[3];
    let at = s.in_context.find(&s.value).unwrap();
    // The cut at 600 falls 24 characters into the token.
    let answer = format!("{}{}", filler(600 - 24 - at), s.in_context);
    let t = transcript(
        &p,
        "cp",
        "Refactor src/lib.rs",
        "ls",
        "ok",
        &answer,
        130_000,
    );
    let r = hook(&p, &stop_payload(&p, &t, &answer));
    assert!(r.ok(), "{}", r.describe());
    assert!(r.out().contains("block"), "the guard fired: {}", r.out());
    wait_idle(&p.state);
    p.drain();
    let found = leaks(
        &[&p.root.join("memory_sessions/checkpoints")],
        std::slice::from_ref(&s.value),
    );
    assert!(
        found.is_empty(),
        "fragments kept:\n  {}",
        found.join("\n  ")
    );
}

/// Finding 11: the diagnostics log quotes serde's error text, so a secret
/// in a wrong-typed payload field is written there in full.
#[test]
fn a_secret_in_a_wrong_typed_payload_field_stays_out_of_the_diagnostics() {
    let p = Project::new();
    let s = &corpus()[3];
    let payload = json!({"session_id":"s","transcript_path":"/x","cwd":p.root,"hook_event_name":"Stop","stop_hook_active": s.value});
    assert_silent("Stop", &hook(&p, &payload));
    assert!(!p.diagnostics().is_empty(), "the bad payload is reported");
    let found = leaks(&[&p.state], std::slice::from_ref(&s.value));
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Finding 11: formats the redactor misses (Mailgun keys, a GCP service
/// account's `private_key_id`).
#[test]
fn mailgun_keys_and_gcp_private_key_ids_are_redacted_everywhere() {
    let p = Project::new();
    let _reaper = Reaper(p.state.clone());
    let mailgun = p_key("key-", &fake(60, 32, HEX));
    let key_id = fake(61, 40, HEX);
    let text = format!(
        "La clé Mailgun est {mailgun} pour mg.example.com\n{{\"type\": \"service_account\", \"project_id\": \"acme\", \"private_key_id\": \"{key_id}\", \"client_email\": \"ci@acme.iam.gserviceaccount.com\"}}"
    );
    let t = transcript(
        &p,
        "mg",
        &format!("Configure src/mail.rs: {text}"),
        "ls",
        &text,
        &text,
        20_000,
    );
    assert_silent("Stop", &hook(&p, &stop_payload(&p, &t, &text)));
    wait_idle(&p.state);
    p.drain();
    let found = leaks(&[&p.root, &p.state], &[mailgun, key_id]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

fn p_key(prefix: &str, body: &str) -> String {
    [prefix, body].concat()
}

/// A fake `claude` on PATH that keeps each prompt it receives in its own
/// folder and answers one valid extraction.
fn fake_claude(p: &mut Project) -> PathBuf {
    p.fake_claude(|bin| {
        format!(
            "#!/bin/sh\nif [ \"$1\" = \"--help\" ]; then echo 'Usage: claude [options]'; exit 0; fi\ncat > \"{dir}/prompt.$$\"\necho '{{\"updates\":[{{\"project\":\"root\",\"sections\":{{\"travail\":[\"Travail extrait\"]}}}}]}}'\n",
            dir = bin.display()
        )
    })
}
