//! The extraction backends end to end: the offline extractor on realistic
//! turn digests, a fake `claude` executable for `claude-cli`, and fake HTTP
//! servers on 127.0.0.1 for `anthropic` and `openai`, each answering well,
//! partly wrong (checked against the digest), or in prose.

use crate::common;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use cairn::config::{BackendKind, MemoryConfig};
use cairn::context::{Ctx, Env};
use cairn::extract::digest::{
    Action, ActionKind, Change, Check, Choice, Digest, FileChange, RequestKind, Todo, TodoStatus,
    ToolError, Turn,
};
use cairn::extract::record::{Extraction, Sections, Update};
use cairn::extract::{
    Answer, AnthropicBackend, Backend, CallUsage, ExtractRequest, OfflineBackend, OpenAiBackend,
    Retry, backend_for, parse_answer,
};
use cairn::memory::log::Lang;
use serde_json::{Value, json};

const KEY: &str = "sk-test-SECRET-9f8e7d6c5b4a3210";
const ROOT: &str = "/home/dev/shop";

fn projects() -> Vec<(String, String)> {
    vec![
        ("root".to_string(), String::new()),
        ("meteo".to_string(), "projects/meteo".to_string()),
        ("web".to_string(), "projects/web".to_string()),
    ]
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The session's first turn: a request of `kind` and Claude's answer.
fn turn(kind: RequestKind, request: &str, answer: &str) -> Turn {
    Turn {
        request: request.to_string(),
        kind,
        first: true,
        answer: answer.to_string(),
        ..Turn::default()
    }
}

fn file(path: &str, change: Change) -> FileChange {
    FileChange {
        path: path.to_string(),
        change,
        from: None,
    }
}

fn check(command: &str, ok: bool, passed: u64, failed: u64) -> Check {
    Check {
        command: command.to_string(),
        test: true,
        ok,
        passed: Some(passed),
        failed: Some(failed),
        coverage: None,
        summary: String::new(),
        fixed_in: Vec::new(),
        changed_after: false,
        cause: None,
    }
}

fn todo(text: &str, status: TodoStatus) -> Todo {
    Todo {
        text: text.to_string(),
        status,
    }
}

/// One job's request with the usual projects.
struct Case {
    digest: Digest,
    projects: Vec<(String, String)>,
    default_project: String,
    logs: Vec<(String, String)>,
    candidates: Vec<String>,
    lang: Lang,
    ok_done: bool,
}

impl Case {
    fn new(turn: Turn, lang: Lang) -> Self {
        Case {
            digest: Digest { turns: vec![turn] },
            projects: projects(),
            default_project: "root".to_string(),
            logs: Vec::new(),
            candidates: Vec::new(),
            lang,
            ok_done: false,
        }
    }

    fn request(&self) -> ExtractRequest<'_> {
        ExtractRequest {
            digest: &self.digest,
            ok_done: self.ok_done,
            projects: &self.projects,
            default_project: &self.default_project,
            existing_logs: &self.logs,
            done_candidates: &self.candidates,
            earlier_todos: &[],
            lang: self.lang,
            project_root: Path::new(ROOT),
        }
    }

    fn offline(&self) -> Extraction {
        let answer = OfflineBackend
            .extract(&self.request())
            .expect("offline never fails");
        let extraction = answer.extraction.expect("offline always parses");
        // What `.debug/` keeps reads back to the same record.
        assert_eq!(parse_answer(&answer.raw).as_ref(), Ok(&extraction));
        assert_eq!(answer.usage, None);
        extraction
    }
}

/// An update with the given sections filled.
fn update(project: &str, fill: &[(&str, &[&str])]) -> Update {
    let mut s = Sections::default();
    for (key, items) in fill {
        let list = match *key {
            "contexte" => &mut s.contexte,
            "objectif" => &mut s.objectif,
            "problemes" => &mut s.problemes,
            "connaissances" => &mut s.connaissances,
            "travail" => &mut s.travail,
            "decisions" => &mut s.decisions,
            "a_suivre" => &mut s.a_suivre,
            "a_suivre_done" => &mut s.a_suivre_done,
            other => panic!("unknown section {other}"),
        };
        *list = strings(items);
    }
    Update {
        project: project.to_string(),
        sections: s,
        long_memory_update: None,
    }
}

// ---------------------------------------------------------------------------
// Offline: realistic digests, exact bullets.
// ---------------------------------------------------------------------------

#[test]
fn offline_french_feature_in_a_sub_project() {
    let case = Case::new(
        Turn {
            reads: strings(&["/home/dev/shop/projects/meteo/src/client.rs"]),
            files: vec![
                file("/home/dev/shop/projects/meteo/src/cache.rs", Change::Created),
                file("/home/dev/shop/projects/meteo/src/client.rs", Change::Updated),
                file("/home/dev/shop/projects/meteo/src/lib.rs", Change::Updated),
            ],
            checks: vec![check("cargo test -p meteo", true, 12, 0)],
            todos: vec![
                todo("Ajouter le module de cache", TodoStatus::Completed),
                todo(
                    "Ajouter une métrique du taux de succès du cache",
                    TodoStatus::Pending,
                ),
            ],
            ..turn(
                RequestKind::Task,
                "Salut ! Peux-tu ajouter un cache au client HTTP de l'API météo ? Les appels sont trop lents.",
                "J'ai ajouté un cache en mémoire devant le client HTTP.

- `projects/meteo/src/client.rs` : le client passe par le cache avant chaque appel.
- `projects/meteo/src/cache.rs` : nouveau module, entrées expirées après 10 minutes.

On garde un cache en mémoire plutôt que Redis pour l'instant, car le service tourne sur une seule instance.

Voulez-vous que j'ajoute aussi un cache disque ?",
            )
        },
        Lang::Fr,
    );
    assert_eq!(
        case.offline().updates,
        [update(
            "meteo",
            &[
                (
                    "objectif",
                    &[
                        "Ajouter un cache au client HTTP de l'API météo. Les appels sont trop lents."
                    ]
                ),
                (
                    "travail",
                    &[
                        "Créé `projects/meteo/src/cache.rs`",
                        "Modifié `projects/meteo/src/client.rs`, `projects/meteo/src/lib.rs`",
                        "Tests : 12 réussis (`cargo test -p meteo`)",
                    ]
                ),
                (
                    "a_suivre",
                    &[
                        "Ajouter une métrique du taux de succès du cache",
                        "Question en suspens : Voulez-vous que j'ajoute aussi un cache disque ?"
                    ]
                ),
            ]
        )]
    );
}

#[test]
fn offline_english_debugging_session() {
    let case = Case::new(
        Turn {
            reads: strings(&["jobs/export.py", "jobs/schema.py"]),
            files: vec![
                file("jobs/export.py", Change::Updated),
                file("tests/test_export.py", Change::Created),
            ],
            checks: vec![
                Check {
                    fixed_in: strings(&["jobs/export.py", "tests/test_export.py"]),
                    changed_after: false,
                    cause: None,
                    ..check("pytest tests/test_export.py", false, 2, 1)
                },
                check("pytest tests/test_export.py", true, 3, 0),
            ],
            errors: vec![ToolError {
                tool: "Bash".into(),
                target: "python -m jobs.export --dry-run".into(),
                message: "KeyError: 'customer_id'".into(),
                resolved: true,
                fixed_in: strings(&["jobs/export.py"]),
                resolved_by: None,
                cause: None,
            }],
            ..turn(
                RequestKind::Task,
                "The nightly export job crashes with `KeyError: 'customer_id'` since yesterday's deploy. Can you find out why?",
                "Found it. The root cause is the new CSV schema: the upstream team renamed `customer_id` to `client_id` in v2 of the export.

I updated `jobs/export.py` to read either column, and added a regression test in `tests/test_export.py`.

Let me know if you want me to run the backfill.",
            )
        },
        Lang::En,
    );
    assert_eq!(
        case.offline().updates,
        [update(
            "root",
            &[
                (
                    "objectif",
                    &[
                        "The nightly export job crashes with `KeyError: 'customer_id'` since yesterday's deploy: find out why"
                    ]
                ),
                (
                    "problemes",
                    &[
                        "`python -m jobs.export --dry-run`: KeyError: 'customer_id' → fixed by changing `jobs/export.py` — cause: the new CSV schema: the upstream team renamed `customer_id` to `client_id` in v2 of the export.",
                        "Tests: 1 failing → fixed by changing `jobs/export.py`, `tests/test_export.py`",
                    ]
                ),
                (
                    "travail",
                    &[
                        "Updated `jobs/export.py`",
                        "Created `tests/test_export.py`",
                        "Tests: 3 passed (`pytest tests/test_export.py`)",
                    ]
                ),
                (
                    "a_suivre",
                    &["Uncommitted changes: `jobs/export.py`, `tests/test_export.py`"]
                ),
            ]
        )]
    );
}

#[test]
fn offline_french_test_run_without_changes() {
    let case = Case::new(
        Turn {
            checks: vec![check("cargo test --workspace", true, 214, 0)],
            ..turn(
                RequestKind::Task,
                "Lance la suite de tests et dis-moi où on en est",
                "Les 214 tests passent, aucune erreur. Le temps total est de 38 s, dont 30 s pour les tests d'intégration.",
            )
        },
        Lang::Fr,
    );
    assert_eq!(
        case.offline().updates,
        [update(
            "root",
            &[
                (
                    "objectif",
                    &["Lance la suite de tests et dis-moi où on en est"]
                ),
                (
                    "travail",
                    &["Tests : 214 réussis (`cargo test --workspace`)"]
                ),
            ]
        )]
    );
}

#[test]
fn offline_french_design_discussion() {
    let mut case = Case::new(
        Turn {
            choices: vec![Choice {
                question: "Quel stockage pour les sessions ?".into(),
                answer: "SQLite avec le mode WAL".into(),
            }],
            ..turn(
                RequestKind::Question,
                "On hésite entre SQLite et Postgres pour le stockage des sessions. Qu'est-ce que tu recommandes ?",
                "Pour votre cas, je recommande SQLite.

Il faut savoir que SQLite verrouille toute la base en écriture : au-delà de quelques centaines d'écritures par seconde, Postgres devient préférable.",
            )
        },
        Lang::Fr,
    );
    case.default_project = "web".to_string();
    case.logs = vec![(
        "web".to_string(),
        "# Log session — 2026-03-21\n\n## Contexte\n- Refonte du stockage des sessions\n"
            .to_string(),
    )];
    assert_eq!(
        case.offline().updates,
        [update(
            "web",
            &[
                (
                    "objectif",
                    &[
                        "On hésite entre SQLite et Postgres pour le stockage des sessions. Qu'est-ce que tu recommandes ?"
                    ]
                ),
                // What the answer teaches, in its own words.
                (
                    "connaissances",
                    &[
                        "Il faut savoir que SQLite verrouille toute la base en écriture : au-delà de quelques centaines d'écritures par seconde, Postgres devient préférable."
                    ]
                ),
                (
                    "decisions",
                    &["Choix : Quel stockage pour les sessions ? → SQLite avec le mode WAL"]
                ),
            ]
        )]
    );
}

#[test]
fn offline_english_work_across_projects_with_a_tool_error() {
    let mut case = Case::new(
        Turn {
            files: vec![
                file("/home/dev/shop/src/money.rs", Change::Created),
                file("/home/dev/shop/src/lib.rs", Change::Updated),
                file("/home/dev/shop/projects/web/src/cart.ts", Change::Updated),
                file(
                    "/home/dev/shop/projects/web/src/checkout.ts",
                    Change::Updated,
                ),
            ],
            errors: vec![ToolError {
                tool: "Bash".into(),
                target: "npm run build".into(),
                message: "error TS2305: Module './format' has no exported member 'formatPrice'"
                    .into(),
                resolved: true,
                fixed_in: strings(&["/home/dev/shop/src/lib.rs"]),
                resolved_by: None,
                cause: None,
            }],
            todos: vec![todo(
                "Delete the old helper once the mobile app stops importing it",
                TodoStatus::Pending,
            )],
            ..turn(
                RequestKind::Task,
                "Please move the price formatting helper from the web app into the shared crate",
                "Done. `format_price` now lives in `src/money.rs` and the web app imports it.",
            )
        },
        Lang::En,
    );
    // Two files changed on each side: the tie goes to the turn's default
    // project, which gets the goal, the problem and the to-do.
    assert_eq!(
        case.offline().updates,
        [
            update(
                "root",
                &[
                    (
                        "objectif",
                        &[
                            "Move the price formatting helper from the web app into the shared crate"
                        ]
                    ),
                    (
                        "problemes",
                        &[
                            "`npm run build`: error TS2305: Module './format' has no exported member 'formatPrice' → fixed by changing `src/lib.rs`"
                        ]
                    ),
                    (
                        "travail",
                        &["Created `src/money.rs`", "Updated `src/lib.rs`"]
                    ),
                    (
                        "a_suivre",
                        &["Delete the old helper once the mobile app stops importing it"]
                    ),
                ]
            ),
            update(
                "web",
                &[(
                    "travail",
                    &["Updated `projects/web/src/cart.ts`, `projects/web/src/checkout.ts`"]
                )]
            ),
        ]
    );

    // One more web file and the web project is where the work happened.
    case.digest.turns[0].files.push(file(
        "/home/dev/shop/projects/web/src/index.ts",
        Change::Updated,
    ));
    let updates = case.offline().updates;
    assert_eq!(updates[0].sections.objectif, Vec::<String>::new());
    assert_eq!(
        updates[1].sections.objectif,
        ["Move the price formatting helper from the web app into the shared crate"]
    );
}

#[test]
fn offline_acknowledgements_leave_no_trace() {
    for (request, answer, lang) in [
        (
            "merci !",
            "Avec plaisir ! N'hésitez pas si vous avez d'autres questions.",
            Lang::Fr,
        ),
        (
            "ok thanks",
            "You're welcome! Let me know if you need anything else.",
            Lang::En,
        ),
        ("continue", "", Lang::En),
    ] {
        let case = Case::new(turn(RequestKind::None, request, answer), lang);
        assert_eq!(case.offline(), Extraction::default(), "{request}");
    }
}

#[test]
fn offline_ok_done_finalises_only_the_candidates() {
    let mut case = Case::new(
        Turn {
            files: vec![file("src/a.rs", Change::Updated)],
            ..turn(
                RequestKind::Task,
                "OK-done",
                "Parfait, c'est noté. Prochaine étape : déployer.",
            )
        },
        Lang::Fr,
    );
    case.ok_done = true;
    case.logs = vec![(
        "meteo".to_string(),
        "## À suivre\n- Invalider le cache quand la clé d'API change\n".to_string(),
    )];
    case.candidates = strings(&["Invalider le cache quand la clé d'API change"]);
    assert_eq!(
        case.offline().updates,
        [update(
            "meteo",
            &[(
                "a_suivre_done",
                &["Invalider le cache quand la clé d'API change"]
            )]
        )]
    );
}

// ---------------------------------------------------------------------------
// claude-cli: a fake `claude` on PATH.
// ---------------------------------------------------------------------------

/// A fake `claude` in a temp dir: records what it saw under `rec/`, then
/// runs `body`. `help` is what `--help` prints.
struct FakeClaude {
    _dir: tempfile::TempDir,
    bin_dir: PathBuf,
    rec: PathBuf,
    state: PathBuf,
}

impl FakeClaude {
    fn new(help: &str, body: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bin_dir = dir.path().join("bin");
        let rec = dir.path().join("rec");
        std::fs::create_dir_all(&bin_dir).unwrap();
        std::fs::create_dir_all(&rec).unwrap();
        let script = format!(
            r#"#!/bin/sh
rec='{rec}'
if [ "$1" = "--help" ]; then
  echo call >> "$rec/help_calls"
  cat <<'HELP'
{help}
HELP
  exit 0
fi
pwd > "$rec/cwd"
ls -A > "$rec/ls"
printf '%s' "${{CAIRN_NESTED-unset}}" > "$rec/nested"
printf '%s' "${{CARGO_PKG_NAME-unset}}/${{FROM_CTX-unset}}" > "$rec/env"
for a in "$@"; do printf '%s\n' "$a"; done > "$rec/args"
cat > "$rec/stdin"
{body}
"#,
            rec = rec.display()
        );
        let bin = bin_dir.join("claude");
        std::fs::write(&bin, script).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        FakeClaude {
            state: dir.path().join("state"),
            _dir: dir,
            bin_dir,
            rec,
        }
    }

    fn ctx(&self) -> Ctx {
        let path = format!("{}:/usr/bin:/bin", self.bin_dir.display());
        let state = self.state.display().to_string();
        common::ctx(Env::from_pairs([
            ("PATH", path.as_str()),
            ("FROM_CTX", "yes"),
            ("CAIRN_STATE_DIR", state.as_str()),
        ]))
    }

    fn seen(&self, name: &str) -> String {
        std::fs::read_to_string(self.rec.join(name)).unwrap_or_default()
    }
}

const HELP_WITH_FLAG: &str = "Usage: claude [options] [prompt]\n  --no-session-persistence  Do not save this session to disk";
const HELP_WITHOUT_FLAG: &str =
    "Usage: claude [options] [prompt]\n  -p, --print  Print response and exit";

fn cli_config(timeout_secs: u64) -> MemoryConfig {
    MemoryConfig {
        backend: BackendKind::ClaudeCli,
        timeout_secs,
        ..MemoryConfig::default()
    }
}

fn answer_json() -> Value {
    json!({"updates": [{"project": "root", "sections": {
        "objectif": ["Corriger le test de login"],
        "travail": ["Modifié `src/auth.rs`"],
        "a_suivre": []
    }, "long_memory_update": null}]})
}

fn expected_answer() -> Vec<Update> {
    vec![update(
        "root",
        &[
            ("objectif", &["Corriger le test de login"]),
            ("travail", &["Modifié `src/auth.rs`"]),
        ],
    )]
}

fn login_turn() -> Case {
    Case::new(
        Turn {
            files: vec![file("/home/dev/shop/src/auth.rs", Change::Updated)],
            ..turn(
                RequestKind::Task,
                "Corrige le test de login qui échoue (marqueur ZEBRA-42)",
                "Le jeton expirait trop tôt ; c'est corrigé dans `src/auth.rs`.",
            )
        },
        Lang::Fr,
    )
}

#[cfg(unix)]
#[test]
fn claude_cli_runs_isolated_with_the_prompt_on_stdin() {
    let body = format!("cat <<'JSON'\n{}\nJSON", answer_json());
    let fake = FakeClaude::new(HELP_WITH_FLAG, &body);
    let ctx = fake.ctx();
    let backend = backend_for(&cli_config(30), &ctx);
    assert_eq!(backend.name(), "claude-cli");
    let turn = login_turn();

    let answer = backend.extract(&turn.request()).unwrap();
    assert_eq!(answer.extraction.unwrap().updates, expected_answer());
    assert_eq!(answer.usage, None, "plain output carries no usage");
    assert_eq!(answer.raw, answer_json().to_string());

    assert_eq!(
        fake.seen("args"),
        "--print\n--model\nclaude-haiku-4-5-20251001\n--output-format\njson\n--no-session-persistence\n"
    );
    assert_eq!(fake.seen("nested"), "1");
    assert_eq!(
        fake.seen("env"),
        "unset/yes",
        "exactly ctx.env, not the test's own environment"
    );
    let cwd = fake.seen("cwd");
    let cwd = Path::new(cwd.trim());
    assert_eq!(fake.seen("ls"), "", "the scratch directory was empty");
    assert!(
        cwd.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("cairn-claude-"),
        "{cwd:?}"
    );
    assert!(!cwd.exists(), "the scratch directory is removed afterwards");
    let stdin = fake.seen("stdin");
    assert!(stdin.contains("<cairn-data kind=\"request\">\nCorrige le test de login qui échoue (marqueur ZEBRA-42)\n</cairn-data>"));
    assert!(stdin.contains("Fichiers modifiés : src/auth.rs\n"));

    // The --help probe ran once for this program, however many calls follow.
    backend.extract(&turn.request()).unwrap();
    assert_eq!(fake.seen("help_calls").lines().count(), 1);
}

#[cfg(unix)]
#[test]
fn claude_cli_reads_the_json_envelope_and_skips_unknown_flags() {
    let envelope = json!({
        "type": "result", "subtype": "success", "is_error": false,
        "result": format!("Voici :\n```json\n{}\n```", answer_json()),
        "usage": {"input_tokens": 12, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 14000, "output_tokens": 85},
        "total_cost_usd": 0.0031
    });
    let fake = FakeClaude::new(
        HELP_WITHOUT_FLAG,
        &format!("cat <<'JSON'\n{envelope}\nJSON"),
    );
    let cfg = MemoryConfig {
        model: "claude-sonnet-4-5".into(),
        ..cli_config(30)
    };
    let answer = backend_for(&cfg, &fake.ctx())
        .extract(&login_turn().request())
        .unwrap();
    assert_eq!(answer.extraction.unwrap().updates, expected_answer());
    assert!(answer.raw.starts_with("Voici :\n```json\n"));
    assert_eq!(
        answer.usage,
        Some(CallUsage {
            model: "claude-sonnet-4-5".into(),
            input_tokens: 12,
            output_tokens: 85,
            cache_read_tokens: 14000,
            cache_write_tokens: 300,
        })
    );
    assert_eq!(
        fake.seen("args"),
        "--print\n--model\nclaude-sonnet-4-5\n--output-format\njson\n"
    );
}

#[cfg(unix)]
#[test]
fn claude_cli_unparseable_answer_is_ok_with_a_parse_error() {
    let fake = FakeClaude::new(HELP_WITH_FLAG, "echo 'Sorry, I cannot produce JSON today.'");
    let answer = backend_for(&cli_config(30), &fake.ctx())
        .extract(&login_turn().request())
        .unwrap();
    assert_eq!(answer.raw, "Sorry, I cannot produce JSON today.");
    assert!(answer.extraction.is_err());
}

#[cfg(unix)]
#[test]
fn claude_cli_is_killed_on_timeout() {
    let fake = FakeClaude::new(
        HELP_WITH_FLAG,
        "echo $$ > \"$rec/pid\"\nsleep 30\necho done > \"$rec/finished\"\necho '{\"updates\":[]}'",
    );
    let err = backend_for(&cli_config(1), &fake.ctx())
        .extract(&login_turn().request())
        .unwrap_err();
    let msg = format!("{err:#}");
    // The configured budget is the one the deadline was computed from.
    assert!(msg.contains("no answer within 1s"), "{msg}");
    // Killed, not waited for: the fake never got past its sleep, and it is
    // gone (reaped) by the time the error comes back.
    assert_eq!(fake.seen("finished"), "");
    let pid = fake.seen("pid");
    let alive = std::process::Command::new("kill")
        .args(["-0", pid.trim()])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(!alive, "the fake (pid {}) still runs", pid.trim());
    let cwd = fake.seen("cwd");
    assert!(
        !Path::new(cwd.trim()).exists(),
        "scratch directory removed after a kill"
    );
}

#[cfg(unix)]
#[test]
fn claude_cli_failure_reports_the_first_stderr_line_only() {
    let fake = FakeClaude::new(
        HELP_WITH_FLAG,
        "echo 'API Error: 401 {\"type\":\"authentication_error\"}' >&2\necho 'second line' >&2\nexit 2",
    );
    let err = backend_for(&cli_config(30), &fake.ctx())
        .extract(&login_turn().request())
        .unwrap_err();
    let msg = format!("{err:#}");
    assert_eq!(
        msg,
        "claude-cli: `claude` exited with status 2: API Error: 401 {\"type\":\"authentication_error\"}"
    );
    assert!(
        !msg.contains("ZEBRA-42"),
        "the prompt never appears in errors"
    );
}

#[test]
fn claude_cli_missing_program_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = common::ctx(Env::from_pairs([("PATH", dir.path().to_str().unwrap())]));
    let err = backend_for(&cli_config(5), &ctx)
        .extract(&login_turn().request())
        .unwrap_err();
    assert!(
        err.to_string().contains("`claude` not found on PATH"),
        "{err}"
    );
    assert!(err.to_string().contains("memory.claude_command"), "{err}");
}

// ---------------------------------------------------------------------------
// HTTP: a scripted server on 127.0.0.1.
// ---------------------------------------------------------------------------

#[derive(Clone)]
enum Reply {
    Json {
        status: u16,
        headers: Vec<(&'static str, &'static str)>,
        body: String,
    },
    /// Reads the request and never answers; notes whether the client
    /// hung up before the server's own patience (30 s) ran out.
    Hang,
}

fn ok(body: Value) -> Reply {
    Reply::Json {
        status: 200,
        headers: vec![],
        body: body.to_string(),
    }
}

fn status(code: u16, headers: Vec<(&'static str, &'static str)>, body: &str) -> Reply {
    Reply::Json {
        status: code,
        headers,
        body: body.to_string(),
    }
}

#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("the request body is JSON")
    }
}

struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    hangups: mpsc::Receiver<bool>,
}

impl Server {
    /// Answers the n-th connection with `replies[n]`, then repeats the last.
    fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let (hangup_tx, hangups) = mpsc::channel();
        std::thread::spawn(move || {
            for (i, stream) in listener.incoming().enumerate() {
                let Ok(stream) = stream else { continue };
                let reply = replies.get(i).or(replies.last()).cloned().expect("a reply");
                let log = Arc::clone(&log);
                let hangup_tx = hangup_tx.clone();
                std::thread::spawn(move || serve_one(stream, reply, log, hangup_tx));
            }
        });
        Server { url, seen, hangups }
    }

    fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Whether the client gave up on the next `Hang` reply before the
    /// server did; waits for that reply to end.
    fn next_hangup(&self) -> bool {
        self.hangups.recv().expect("a Hang reply ends")
    }
}

fn serve_one(
    stream: TcpStream,
    reply: Reply,
    log: Arc<Mutex<Vec<Seen>>>,
    hangups: mpsc::Sender<bool>,
) {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_lowercase(), v.trim().to_string()));
        }
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if let Some(len) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(len, 0);
        reader.read_exact(&mut body).unwrap();
    } else if get("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).unwrap();
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    log.lock().unwrap().push(Seen {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let mut stream = stream;
    match reply {
        Reply::Hang => {
            // A client that honours its timeout closes the connection: the
            // read ends with EOF (or a reset) long before this read timeout.
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            let mut rest = [0u8; 1024];
            let client_left = loop {
                match reader.read(&mut rest) {
                    Ok(0) => break true,
                    Ok(_) => continue,
                    Err(e) => {
                        break !matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        );
                    }
                }
            };
            let _ = hangups.send(client_left);
        }
        Reply::Json {
            status,
            headers,
            body,
        } => {
            let mut out = format!(
                "HTTP/1.1 {status} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                out.push_str(&format!("{k}: {v}\r\n"));
            }
            out.push_str("\r\n");
            out.push_str(&body);
            let _ = stream.write_all(out.as_bytes());
            let _ = stream.flush();
        }
    }
}

fn fast_retry() -> Retry {
    Retry {
        attempts: 3,
        backoff_base: Duration::from_millis(10),
        max_wait: Duration::from_millis(50),
        sleep: record_wait,
    }
}

std::thread_local! {
    /// The waits between attempts asked for on this thread (each test runs
    /// on its own thread, and the backends call from the caller's).
    static WAITS: std::cell::RefCell<Vec<Duration>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn record_wait(wait: Duration) {
    WAITS.with(|w| w.borrow_mut().push(wait));
}

/// The waits asked for since the last call.
fn waits() -> Vec<Duration> {
    WAITS.with(|w| std::mem::take(&mut *w.borrow_mut()))
}

/// A 1 s budget against a server that never answers: the one request
/// spends it all (the budget covers the whole call, so no retry fits), the
/// client hangs up on its own, and the error names the budget.
fn assert_gave_up_on_the_hang(server: &Server, err: &anyhow::Error) {
    assert_eq!(server.requests().len(), 1);
    assert_eq!(waits(), []);
    assert!(
        server.next_hangup(),
        "the server, not the client, ended the call"
    );
    let msg = format!("{err:#}");
    assert!(msg.contains("within 1s"), "{msg}");
}

fn http_ctx(key_var: &str) -> Ctx {
    common::ctx(Env::from_pairs([(key_var, KEY)]))
}

/// A context with the key and its own state folder (for the diagnostics log).
fn http_ctx_in(key_var: &str, state: &Path) -> Ctx {
    let state = state.display().to_string();
    common::ctx(Env::from_pairs([
        (key_var, KEY),
        ("CAIRN_STATE_DIR", state.as_str()),
    ]))
}

fn anthropic(server: &Server, timeout_secs: u64) -> AnthropicBackend {
    anthropic_with(server, timeout_secs, &http_ctx("ANTHROPIC_API_KEY"))
}

fn anthropic_with(server: &Server, timeout_secs: u64, ctx: &Ctx) -> AnthropicBackend {
    let cfg = MemoryConfig {
        backend: BackendKind::Anthropic,
        anthropic_base_url: server.url.clone(),
        timeout_secs,
        ..MemoryConfig::default()
    };
    let mut backend = AnthropicBackend::from_config(&cfg, ctx);
    backend.retry = fast_retry();
    backend
}

fn messages_response(content: Value) -> Value {
    json!({
        "id": "msg_01", "type": "message", "role": "assistant",
        "model": "claude-haiku-4-5-20251001",
        "content": content,
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1834, "output_tokens": 96, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    })
}

fn tool_use_response() -> Value {
    messages_response(json!([{
        "type": "tool_use", "id": "toolu_01", "name": "record_session_memory", "input": answer_json()
    }]))
}

fn text_response(text: &str) -> Value {
    messages_response(json!([{"type": "text", "text": text}]))
}

/// The key appears nowhere an error is shown or logged.
fn assert_no_key(err: &anyhow::Error) {
    for shown in [format!("{err}"), format!("{err:#}"), format!("{err:?}")] {
        assert!(!shown.contains(KEY), "key leaked: {shown}");
    }
}

#[test]
fn anthropic_sends_a_forced_tool_call_and_reads_its_input() {
    let server = Server::start(vec![ok(tool_use_response())]);
    let answer = anthropic(&server, 10)
        .extract(&login_turn().request())
        .unwrap();
    assert_eq!(answer.extraction.unwrap().updates, expected_answer());
    assert!(!answer.raw.contains(KEY));
    assert_eq!(
        answer.usage,
        Some(CallUsage {
            model: "claude-haiku-4-5-20251001".into(),
            input_tokens: 1834,
            output_tokens: 96,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
        })
    );

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert!(
        r.header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    assert_eq!(r.header("authorization"), None);
    let body = r.json();
    assert_eq!(body["model"], "claude-haiku-4-5-20251001");
    assert!(body["max_tokens"].as_u64().unwrap() >= 1024);
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "record_session_memory"})
    );
    assert_eq!(body["tools"][0]["name"], "record_session_memory");
    let schema = &body["tools"][0]["input_schema"];
    assert_eq!(schema["required"], json!(["updates"]));
    assert_eq!(
        schema["properties"]["updates"]["items"]["properties"]["project"]["enum"],
        json!(["root", "meteo", "web"])
    );
    let prompt = body["messages"][0]["content"].as_str().unwrap();
    assert_eq!(body["messages"][0]["role"], "user");
    assert!(prompt.contains("Corrige le test de login qui échoue (marqueur ZEBRA-42)"));
    assert!(prompt.contains("Le jeton expirait trop tôt"));
    assert!(!prompt.contains(KEY));
}

#[test]
fn anthropic_accepts_text_answers_in_prose_or_fences() {
    let record = answer_json().to_string();
    for text in [
        format!("Voici l'analyse demandée :\n{record}\nBonne journée."),
        format!("```json\n{record}\n```"),
    ] {
        let server = Server::start(vec![ok(text_response(&text))]);
        let answer = anthropic(&server, 10)
            .extract(&login_turn().request())
            .unwrap();
        assert_eq!(answer.raw, text);
        assert_eq!(answer.extraction.unwrap().updates, expected_answer());
    }
}

#[test]
fn anthropic_malformed_json_is_ok_with_a_parse_error() {
    let text = r#"{"updates":[{"project":"root","sections":{"travail":["Modifié"#;
    let server = Server::start(vec![ok(text_response(text))]);
    let answer = anthropic(&server, 10)
        .extract(&login_turn().request())
        .unwrap();
    assert_eq!(answer.raw, text);
    assert!(answer.extraction.is_err());
    assert!(
        answer.usage.is_some(),
        "a call that parsed badly still cost tokens"
    );
}

#[test]
fn anthropic_retries_after_429_honouring_a_capped_retry_after() {
    let server = Server::start(vec![
        status(
            429,
            vec![("retry-after", "30")],
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"}}"#,
        ),
        ok(tool_use_response()),
    ]);
    waits();
    let answer = anthropic(&server, 10)
        .extract(&login_turn().request())
        .unwrap();
    assert_eq!(answer.extraction.unwrap().updates, expected_answer());
    assert_eq!(server.requests().len(), 2);
    // retry-after asked for 30 s; the cap (50 ms here) wins.
    assert_eq!(waits(), [Duration::from_millis(50)]);
}

#[test]
fn anthropic_waits_as_long_as_retry_after_asks_within_the_cap() {
    let server = Server::start(vec![
        status(529, vec![("retry-after", "1")], "{}"),
        ok(tool_use_response()),
    ]);
    let mut backend = anthropic(&server, 10);
    backend.retry.max_wait = Duration::from_secs(5);
    waits();
    backend.extract(&login_turn().request()).unwrap();
    assert_eq!(waits(), [Duration::from_secs(1)]);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn anthropic_gives_up_after_three_5xx_without_leaking_the_key() {
    let echo = format!(
        r#"{{"type":"error","error":{{"type":"api_error","message":"upstream failed for key {KEY}"}}}}"#
    );
    let server = Server::start(vec![Reply::Json {
        status: 500,
        headers: vec![],
        body: echo,
    }]);
    let err = anthropic(&server, 10)
        .extract(&login_turn().request())
        .unwrap_err();
    assert_eq!(server.requests().len(), 3);
    let msg = format!("{err:#}");
    assert!(msg.starts_with("anthropic: HTTP 500 from"), "{msg}");
    assert!(msg.contains("upstream failed for key [REDACTED]"), "{msg}");
    assert!(msg.contains("gave up after 3 attempt(s)"), "{msg}");
    assert_no_key(&err);
}

#[test]
fn anthropic_does_not_retry_a_client_error() {
    let echo = format!(
        r#"{{"type":"error","error":{{"type":"authentication_error","message":"invalid x-api-key {KEY}"}}}}"#
    );
    let server = Server::start(vec![Reply::Json {
        status: 401,
        headers: vec![],
        body: echo,
    }]);
    let err = anthropic(&server, 10)
        .extract(&login_turn().request())
        .unwrap_err();
    assert_eq!(server.requests().len(), 1);
    assert!(format!("{err:#}").contains("HTTP 401"), "{err:#}");
    assert_no_key(&err);
}

#[test]
fn anthropic_times_out_when_the_server_never_answers() {
    let server = Server::start(vec![Reply::Hang]);
    waits();
    let err = anthropic(&server, 1)
        .extract(&login_turn().request())
        .unwrap_err();
    assert_gave_up_on_the_hang(&server, &err);
    assert!(format!("{err:#}").contains("no answer from"), "{err:#}");
    assert_no_key(&err);
}

#[test]
fn anthropic_without_a_key_names_the_variable() {
    let server = Server::start(vec![ok(tool_use_response())]);
    let cfg = MemoryConfig {
        anthropic_base_url: server.url.clone(),
        ..MemoryConfig::default()
    };
    let backend = AnthropicBackend::from_config(&cfg, &common::ctx(Env::default()));
    let err = backend.extract(&login_turn().request()).unwrap_err();
    assert!(err.to_string().contains("set ANTHROPIC_API_KEY"), "{err}");
    assert!(server.requests().is_empty());
}

fn openai(server: &Server, timeout_secs: u64, with_key: bool) -> OpenAiBackend {
    let ctx = if with_key {
        http_ctx("OPENAI_API_KEY")
    } else {
        common::ctx(Env::default())
    };
    openai_with(server, timeout_secs, &ctx)
}

fn openai_with(server: &Server, timeout_secs: u64, ctx: &Ctx) -> OpenAiBackend {
    let cfg = MemoryConfig {
        backend: BackendKind::Openai,
        openai_base_url: format!("{}/v1", server.url),
        timeout_secs,
        ..MemoryConfig::default()
    };
    let mut backend = OpenAiBackend::from_config(&cfg, ctx);
    backend.retry = fast_retry();
    backend
}

fn chat_response(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "llama3.2",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1610, "completion_tokens": 77, "total_tokens": 1687}
    })
}

#[test]
fn openai_asks_for_json_mode_and_reads_the_message() {
    let server = Server::start(vec![ok(chat_response(&answer_json().to_string()))]);
    let answer = openai(&server, 10, true)
        .extract(&login_turn().request())
        .unwrap();
    assert_eq!(answer.extraction.unwrap().updates, expected_answer());
    assert_eq!(
        answer.usage,
        Some(CallUsage {
            model: "llama3.2".into(),
            input_tokens: 1610,
            output_tokens: 77,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
        })
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body = r.json();
    assert_eq!(body["model"], "llama3.2");
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
    let prompt = body["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains("Corrige le test de login qui échoue (marqueur ZEBRA-42)"));
    assert!(prompt.contains("JSON"));
}

#[test]
fn openai_sends_no_authorization_without_a_key() {
    let server = Server::start(vec![ok(chat_response(&answer_json().to_string()))]);
    openai(&server, 10, false)
        .extract(&login_turn().request())
        .unwrap();
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[test]
fn openai_accepts_prose_and_fences_and_flags_malformed_json() {
    let record = answer_json().to_string();
    for content in [
        format!("Here is the JSON you asked for:\n{record}\nHope it helps!"),
        format!("```json\n{record}\n```"),
    ] {
        let server = Server::start(vec![ok(chat_response(&content))]);
        let answer = openai(&server, 10, false)
            .extract(&login_turn().request())
            .unwrap();
        assert_eq!(
            answer.extraction.unwrap().updates,
            expected_answer(),
            "{content}"
        );
    }
    let server = Server::start(vec![ok(chat_response("{\"updates\": [ {\"project\": "))]);
    let answer = openai(&server, 10, false)
        .extract(&login_turn().request())
        .unwrap();
    assert_eq!(answer.raw, "{\"updates\": [ {\"project\": ");
    assert!(answer.extraction.is_err());
}

#[test]
fn openai_retries_429_then_succeeds() {
    let server = Server::start(vec![
        status(
            429,
            vec![],
            r#"{"error":{"message":"slow down","type":"rate_limit"}}"#,
        ),
        ok(chat_response(&answer_json().to_string())),
    ]);
    let answer = openai(&server, 10, true)
        .extract(&login_turn().request())
        .unwrap();
    assert_eq!(answer.extraction.unwrap().updates, expected_answer());
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn openai_gives_up_after_three_5xx_without_leaking_the_key() {
    let echo = format!(r#"{{"error":{{"message":"bad gateway, Authorization: Bearer {KEY}"}}}}"#);
    let server = Server::start(vec![Reply::Json {
        status: 502,
        headers: vec![],
        body: echo,
    }]);
    let err = openai(&server, 10, true)
        .extract(&login_turn().request())
        .unwrap_err();
    assert_eq!(server.requests().len(), 3);
    assert!(format!("{err:#}").contains("HTTP 502"), "{err:#}");
    assert_no_key(&err);
}

#[test]
fn openai_times_out_when_the_server_never_answers() {
    let server = Server::start(vec![Reply::Hang]);
    waits();
    let err = openai(&server, 1, true)
        .extract(&login_turn().request())
        .unwrap_err();
    assert_gave_up_on_the_hang(&server, &err);
    assert_no_key(&err);
}

#[test]
fn unreachable_server_is_an_error_after_retries() {
    // Bind then drop: the port is (almost certainly) closed.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cfg = MemoryConfig {
        openai_base_url: format!("http://127.0.0.1:{port}/v1"),
        timeout_secs: 5,
        ..MemoryConfig::default()
    };
    let mut backend = OpenAiBackend::from_config(&cfg, &http_ctx("OPENAI_API_KEY"));
    backend.retry = fast_retry();
    let err = backend.extract(&login_turn().request()).unwrap_err();
    assert!(format!("{err:#}").contains("cannot reach"), "{err:#}");
    assert_no_key(&err);
}

// ---------------------------------------------------------------------------
// Every LLM backend: the digest in the prompt, the answer checked against it.
// ---------------------------------------------------------------------------

/// A turn with the evidence the check reads (files, a fixed error, test
/// runs, an open to-do) and no commit; today's log names another file and
/// has an open to-do.
fn payment_case() -> Case {
    let mut case = Case::new(
        Turn {
            files: vec![
                file("/home/dev/shop/src/payment.rs", Change::Updated),
                file("/home/dev/shop/tests/payment_test.rs", Change::Created),
            ],
            checks: vec![
                check("cargo test", false, 13, 1),
                check("cargo test", true, 14, 0),
            ],
            errors: vec![ToolError {
                tool: "Bash".into(),
                target: "cargo test".into(),
                message: "assertion failed: amount > 0".into(),
                resolved: true,
                fixed_in: strings(&["/home/dev/shop/src/payment.rs"]),
                resolved_by: None,
                cause: None,
            }],
            todos: vec![todo(
                "Documenter la validation des montants",
                TodoStatus::Pending,
            )],
            ..turn(
                RequestKind::Task,
                "Refuse les montants négatifs dans le paiement",
                "C'est fait : `validate_amount` refuse les montants ≤ 0. Rien n'est commité.",
            )
        },
        Lang::Fr,
    );
    case.logs = vec![(
        "root".to_string(),
        "# Log session — 2026-03-21\n\n## Travail produit\n- Créé `src/ledger.rs`\n\n## À suivre\n- Relire la doc du paiement\n".to_string(),
    )];
    case
}

/// What a model that sticks to the evidence answers: 8 bullets.
fn good_record() -> Value {
    json!({"updates": [{"project": "root", "sections": {
        "objectif": ["Refuser les montants négatifs dans le paiement"],
        "problemes": ["Test en échec `amount > 0` → corrigé dans `src/payment.rs`"],
        "travail": [
            "`validate_amount` refuse les montants ≤ 0 dans `src/payment.rs`",
            "Créé `tests/payment_test.rs`",
            "Tests : 14 réussis (`cargo test`)",
            "Les écritures passent par `src/ledger.rs`"
        ],
        "a_suivre": ["Documenter la validation des montants"],
        "a_suivre_done": ["Relire la doc du paiement"]
    }, "long_memory_update": null}]})
}

/// The same with four inventions among them: 12 bullets.
fn partly_wrong_record() -> Value {
    json!({"updates": [{"project": "root", "sections": {
        "objectif": ["Refuser les montants négatifs dans le paiement"],
        "problemes": [
            "Erreur de timeout dans `src/gateway/stripe.rs`",
            "Test en échec `amount > 0` → corrigé dans `src/payment.rs`"
        ],
        "travail": [
            "`validate_amount` refuse les montants ≤ 0 dans `src/payment.rs`",
            "Modifié `src/billing/invoice.rs`",
            "Créé `tests/payment_test.rs`",
            "Commit « Refuser les montants négatifs »",
            "Tests : 14 réussis (`cargo test`)",
            "Les écritures passent par `src/ledger.rs`"
        ],
        "a_suivre": ["Documenter la validation des montants"],
        "a_suivre_done": ["Déployer en production", "Relire la doc du paiement"]
    }, "long_memory_update": null}]})
}

fn good_updates() -> Vec<Update> {
    serde_json::from_value::<Extraction>(good_record())
        .unwrap()
        .updates
}

fn diagnostics(state: &Path) -> String {
    std::fs::read_to_string(state.join("diagnostics.log")).unwrap_or_default()
}

/// What each LLM backend made of a fake model answering `text` for `case`:
/// its name, the answer, the prompt the fake received, and the diagnostics
/// log of its context.
fn every_backend(text: &str, case: &Case) -> Vec<(&'static str, Answer, String, String)> {
    let mut out = Vec::new();
    #[cfg(unix)]
    {
        let fake = FakeClaude::new(HELP_WITH_FLAG, &format!("cat <<'JSON'\n{text}\nJSON"));
        let answer = backend_for(&cli_config(30), &fake.ctx())
            .extract(&case.request())
            .unwrap();
        out.push((
            "claude-cli",
            answer,
            fake.seen("stdin"),
            diagnostics(&fake.state),
        ));
    }

    let state = tempfile::tempdir().unwrap();
    let server = Server::start(vec![ok(text_response(text))]);
    let ctx = http_ctx_in("ANTHROPIC_API_KEY", state.path());
    let answer = anthropic_with(&server, 10, &ctx)
        .extract(&case.request())
        .unwrap();
    let prompt = server.requests()[0].json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    out.push(("anthropic", answer, prompt, diagnostics(state.path())));

    let state = tempfile::tempdir().unwrap();
    let server = Server::start(vec![ok(chat_response(text))]);
    let ctx = http_ctx_in("OPENAI_API_KEY", state.path());
    let answer = openai_with(&server, 10, &ctx)
        .extract(&case.request())
        .unwrap();
    let prompt = server.requests()[0].json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    out.push(("openai", answer, prompt, diagnostics(state.path())));
    out
}

/// The diagnostics line a partly wrong answer leaves: counts and reasons.
fn assert_drops_logged(name: &str, diag: &str) {
    let lines: Vec<&str> = diag.lines().collect();
    assert_eq!(lines.len(), 1, "{name}: one line per answer\n{diag}");
    let line = lines[0];
    assert!(
        line.contains(&format!(
            "INFO capture: {name} answer checked against the digest: 4 of 12 bullets dropped ("
        )),
        "{line}"
    );
    for reason in [
        "problemes: 1 × a file no turn shows",
        "travail: 1 × a file no turn shows",
        "travail: 1 × a commit no turn ran",
        "a_suivre_done: 1 × no such open to-do",
    ] {
        assert!(line.contains(reason), "{reason:?} missing in {line}");
    }
    // A bullet may hold what the redactor missed: none is quoted.
    for text in ["stripe", "invoice", "Refuser", "production"] {
        assert!(!line.contains(text), "{text:?} in {line}");
    }
}

#[test]
fn every_backend_sends_the_digest_and_keeps_an_answer_it_backs() {
    let case = payment_case();
    let results = every_backend(&good_record().to_string(), &case);
    assert_eq!(results.len(), if cfg!(unix) { 3 } else { 2 });
    for (name, answer, prompt, diag) in results {
        assert_eq!(answer.extraction.unwrap().updates, good_updates(), "{name}");
        assert_eq!(diag, "", "{name}: nothing dropped, nothing logged");
        for evidence in [
            "<cairn-data kind=\"request\">\nRefuse les montants négatifs dans le paiement\n</cairn-data>",
            "Fichiers créés : tests/payment_test.rs\n",
            "Fichiers modifiés : src/payment.rs\n",
            "- `cargo test` → échoué, 13 réussis, 1 en échec\n- `cargo test` → réussi, 14 réussis, 0 en échec\n",
            "- Bash `cargo test` : assertion failed: amount > 0 → résolu en modifiant src/payment.rs\n",
            "- [à faire] Documenter la validation des montants\n",
            "<cairn-data kind=\"answer\">\nC'est fait",
            "<cairn-data kind=\"log\" project=\"root\">",
            "rédigé en français",
        ] {
            assert!(prompt.contains(evidence), "{name}: {evidence:?} missing");
        }
    }
}

#[test]
fn every_backend_drops_a_file_nobody_touched_and_a_commit_not_made() {
    let case = payment_case();
    let record = partly_wrong_record().to_string();
    for (name, answer, _, diag) in every_backend(&record, &case) {
        assert_eq!(
            answer.extraction.unwrap().updates,
            good_updates(),
            "{name}: the inventions are dropped, the rest kept in order"
        );
        assert_eq!(
            answer.raw, record,
            "{name}: .debug/ keeps the answer as it came"
        );
        assert_drops_logged(name, &diag);
    }
}

#[test]
fn every_backend_reads_json_wrapped_in_prose_and_checks_it() {
    let case = payment_case();
    for record in [good_record(), partly_wrong_record()] {
        for text in [
            format!("Voici les points à retenir :\n{record}\nBonne journée !"),
            format!("Here you go:\n```json\n{record}\n```\nAnything else?"),
        ] {
            for (name, answer, _, _) in every_backend(&text, &case) {
                assert_eq!(answer.raw, text, "{name}");
                assert_eq!(
                    answer.extraction.unwrap().updates,
                    good_updates(),
                    "{name}: {text}"
                );
            }
        }
    }
}

#[test]
fn anthropic_checks_the_forced_tool_call_input_too() {
    let state = tempfile::tempdir().unwrap();
    let server = Server::start(vec![ok(messages_response(json!([{
        "type": "tool_use", "id": "toolu_01", "name": "record_session_memory",
        "input": partly_wrong_record()
    }])))]);
    let ctx = http_ctx_in("ANTHROPIC_API_KEY", state.path());
    let answer = anthropic_with(&server, 10, &ctx)
        .extract(&payment_case().request())
        .unwrap();
    assert_eq!(answer.extraction.unwrap().updates, good_updates());
    assert_drops_logged("anthropic", &diagnostics(state.path()));
}

#[test]
fn a_commit_that_ran_backs_its_bullet() {
    let mut case = payment_case();
    case.digest.turns[0].actions.push(Action {
        kind: ActionKind::Commit,
        detail: "Refuser les montants négatifs".into(),
        command: "git commit -m 'Refuser les montants négatifs'".into(),
        ok: true,
        id: String::new(),
        skipped_hooks: false,
        range: None,
        branch: None,
    });
    let server = Server::start(vec![ok(chat_response(&partly_wrong_record().to_string()))]);
    let state = tempfile::tempdir().unwrap();
    let answer = openai_with(&server, 10, &http_ctx_in("OPENAI_API_KEY", state.path()))
        .extract(&case.request())
        .unwrap();
    let travail = answer.extraction.unwrap().updates[0]
        .sections
        .travail
        .clone();
    assert!(
        travail.contains(&"Commit « Refuser les montants négatifs »".to_string()),
        "{travail:?}"
    );
    assert!(!travail.iter().any(|b| b.contains("invoice.rs")));
    assert!(diagnostics(state.path()).contains("3 of 12 bullets dropped"));
}
