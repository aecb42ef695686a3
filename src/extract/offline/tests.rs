use super::*;
use crate::extract::digest::{Action, Check, Choice, Declined, Subagent, Todo};
use crate::extract::record::Revision;

const ROOT: &str = "/home/me/repo";

fn projects() -> Vec<(String, String)> {
    vec![
        ("root".into(), "".into()),
        ("api".into(), "projects/api".into()),
    ]
}

fn run_with(turns: Vec<Turn>, lang: Lang, logs: &[(String, String)]) -> Sections {
    let projects = projects();
    let digest = Digest { turns };
    let req = ExtractRequest {
        digest: &digest,
        ok_done: false,
        projects: &projects,
        default_project: "root",
        existing_logs: logs,
        done_candidates: &[],
        earlier_todos: &[],
        lang,
        project_root: Path::new(ROOT),
    };
    let mut x = extract(&req);
    assert!(x.updates.len() <= 1, "{x:?}");
    x.updates.pop().map(|u| u.sections).unwrap_or_default()
}

/// The extraction of `turns` when an earlier day left `todo` open.
fn with_earlier(turns: Vec<Turn>, lang: Lang, todo: &str) -> Extraction {
    let projects = projects();
    let digest = Digest { turns };
    let earlier = vec![("root".to_string(), todo.to_string())];
    let req = ExtractRequest {
        digest: &digest,
        ok_done: false,
        projects: &projects,
        default_project: "root",
        existing_logs: &[],
        done_candidates: &[],
        earlier_todos: &earlier,
        lang,
        project_root: Path::new(ROOT),
    };
    extract(&req)
}

fn run(turns: Vec<Turn>) -> Sections {
    run_with(turns, Lang::Fr, &[])
}

fn turn(request: &str) -> Turn {
    Turn {
        request: request.into(),
        kind: RequestKind::Task,
        first: true,
        ..Default::default()
    }
}

fn file(path: &str, change: Change) -> FileChange {
    FileChange {
        path: format!("{ROOT}/{path}"),
        change,
        from: None,
    }
}

#[test]
fn goal_work_and_commit_in_french() {
    let mut t =
        turn("Can you please add tests for the cache check? See _is_compatible in @src/cache.py");
    t.files = vec![
        file("src/cache.py", Change::Updated),
        file("tests/test_cache.py", Change::Created),
    ];
    t.actions = vec![Action {
        kind: ActionKind::Commit,
        detail: "Add cache tests".into(),
        command: "git commit -m 'Add cache tests'".into(),
        ok: true,
        id: String::new(),
        skipped_hooks: false,
        range: None,
        branch: None,
    }];
    t.checks = vec![Check {
        command: "uv run pytest".into(),
        test: true,
        ok: true,
        passed: Some(27),
        failed: Some(0),
        coverage: None,
        summary: String::new(),
        fixed_in: Vec::new(),
        changed_after: false,
        cause: None,
    }];
    let s = run(vec![t]);
    assert_eq!(
        s.objectif,
        ["Add tests for the cache check. See _is_compatible in src/cache.py"]
    );
    assert_eq!(
        s.travail,
        [
            "Modifié `src/cache.py`",
            "Créé `tests/test_cache.py`",
            "Commit « Add cache tests »",
            "Tests : 27 réussis (`uv run pytest`)"
        ]
    );
    assert!(s.problemes.is_empty() && s.decisions.is_empty() && s.a_suivre.is_empty());
}

#[test]
fn english_wording() {
    let mut t = turn("fix the parser");
    t.files = vec![file("src/parser.rs", Change::Updated)];
    let s = run_with(vec![t], Lang::En, &[]);
    assert_eq!(s.objectif, ["Fix the parser"]);
    assert_eq!(s.travail, ["Updated `src/parser.rs`"]);
}

#[test]
fn chit_chat_questions_and_complaints() {
    let mut thanks = turn("");
    thanks.kind = RequestKind::None;
    thanks.first = false;
    let mut question = turn("Why does it only run on main?");
    question.kind = RequestKind::Question;
    question.first = false;
    let mut complaint = turn("The redirection doesn't work :( maybe move it to vercel.json?");
    complaint.first = false;
    complaint.files = vec![file("vercel.json", Change::Updated)];
    let s = run(vec![thanks, question, complaint]);
    assert!(s.objectif.is_empty(), "{:?}", s.objectif);
    assert_eq!(
        s.problemes,
        [
            "Signalé : The redirection doesn't work :( maybe move it to vercel.json? → modifié `vercel.json`"
        ]
    );
}

#[test]
fn problems_carry_their_fix_or_stay_open() {
    let mut t = turn("make it build");
    t.files = vec![file("src/main.rs", Change::Updated)];
    t.errors = vec![
        ToolError {
            tool: "Bash".into(),
            target: "python3 tool.py".into(),
            message: "ModuleNotFoundError: No module named 'yaml'".into(),
            resolved: true,
            fixed_in: vec![format!("{ROOT}/src/main.rs")],
            resolved_by: None,
            cause: None,
        },
        ToolError {
            tool: "Bash".into(),
            target: "./deploy.sh".into(),
            message: "fatal: remote rejected".into(),
            resolved: false,
            fixed_in: vec![],
            resolved_by: None,
            cause: None,
        },
        ToolError {
            tool: "Bash".into(),
            target: "make".into(),
            message: "flaky".into(),
            resolved: true,
            fixed_in: vec![],
            resolved_by: None,
            cause: None,
        },
    ];
    t.checks = vec![
        Check {
            command: "uv run pytest".into(),
            test: true,
            ok: false,
            passed: Some(10),
            failed: Some(2),
            coverage: None,
            summary: "test_a.py::test_x".into(),
            fixed_in: vec![format!("{ROOT}/src/main.rs")],
            changed_after: false,
            cause: None,
        },
        Check {
            command: "uv run pytest".into(),
            test: true,
            ok: true,
            passed: Some(12),
            failed: Some(0),
            coverage: None,
            summary: String::new(),
            fixed_in: Vec::new(),
            changed_after: false,
            cause: None,
        },
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.problemes,
        [
            "`python3 tool.py` : ModuleNotFoundError: No module named 'yaml' → corrigé en modifiant `src/main.rs`",
            "`./deploy.sh` : fatal: remote rejected (non résolu)",
            "Tests : 2 en échec (test_a.py::test_x) → corrigé en modifiant `src/main.rs`",
        ]
    );
}

#[test]
fn a_plans_context_says_why_and_a_plan_handed_over_is_the_goal_once() {
    // Handed over after plan mode: the title is the request.
    let mut t = turn("Fix: Add `--trust` flag");
    t.plan = Some(
        "# Fix: Add `--trust` flag\n\n## Context\n\nThe CLI now requires workspace trust on headless servers.\n\n## Change\n\n1. args"
            .into(),
    );
    let s = run(vec![t]);
    assert_eq!(s.objectif, ["Fix: Add `--trust` flag"]);
    assert_eq!(
        s.contexte,
        ["The CLI now requires workspace trust on headless servers."]
    );
    assert!(s.decisions.is_empty(), "{:?}", s.decisions);
    // Accepted in the turn (ExitPlanMode): the plan is a decision too.
    let mut t = turn("the WAL warnings, fix them");
    t.plan = Some("# Fix: WAL rotation warnings\n\n## Context\n\nAfter every checkpoint all nodes log a skipped rotation.".into());
    let s = run(vec![t]);
    assert_eq!(
        s.contexte,
        ["After every checkpoint all nodes log a skipped rotation."]
    );
    assert_eq!(s.decisions, ["Plan accepté : Fix: WAL rotation warnings"]);
}

#[test]
fn decisions_come_from_evidence_only() {
    let mut t = turn("add tar support");
    t.plan = Some("# Plan: Add Tar Archive Support\n\n1. parse".into());
    t.choices = vec![Choice {
        question: "Which formats to read? This picks the archive code and the tests.".into(),
        answer: "Also .tgz (Recommended)".into(),
    }];
    t.declined = vec![
        Declined {
            tool: "Bash".into(),
            target: "npm install".into(),
            reason: "use pnpm".into(),
        },
        Declined {
            tool: "Bash".into(),
            target: "rm -rf x".into(),
            reason: String::new(),
        },
        Declined {
            tool: "Bash".into(),
            target: "make clean".into(),
            reason: "why?".into(),
        },
        Declined {
            tool: "Edit".into(),
            target: "settings.go".into(),
            reason: "Can't we provide a setting to UnmarshalJSON to be strict?".into(),
        },
    ];
    t.answer = "We decided to use the tarfile module. The decision is final.".into();
    let s = run(vec![t]);
    assert_eq!(
        s.decisions,
        [
            "Plan accepté : Add Tar Archive Support",
            "Choix : Which formats to read? → Also .tgz",
            "Refusé par l'utilisateur (`npm install`) : « use pnpm »",
            "Refusé par l'utilisateur (`settings.go`) : « Can't we provide a setting to UnmarshalJSON to be strict? »",
        ]
    );
    let mut correction = turn("You can set group.visible using the vis library which is less work");
    correction.first = false;
    correction.after_refusal = true;
    let s = run(vec![correction]);
    assert!(s.objectif.is_empty());
    assert_eq!(
        s.decisions,
        [
            "Consigne de l'utilisateur : « You can set group.visible using the vis library which is less work »"
        ]
    );
}

#[test]
fn todos_and_files_merge_with_todays_log() {
    let log = "# Log session — 2026-12-01\n\n## Travail produit\n- Modifié `src/a.rs`\n\n## À suivre\n- Write tests\n".to_string();
    let mut t = turn("go on");
    t.first = false;
    t.files = vec![
        file("src/a.rs", Change::Updated),
        file("src/b.rs", Change::Updated),
    ];
    t.todos = vec![
        Todo {
            text: "Write tests".into(),
            status: TodoStatus::Completed,
        },
        Todo {
            text: "Ship the release".into(),
            status: TodoStatus::InProgress,
        },
    ];
    let s = run_with(vec![t], Lang::Fr, &[("root".into(), log)]);
    assert_eq!(
        s.travail,
        ["Modifié `src/b.rs`"],
        "a.rs is already in today's log"
    );
    assert_eq!(s.a_suivre, ["Ship the release"]);
    assert_eq!(s.a_suivre_done, ["Write tests"]);
}

#[test]
fn files_outside_the_project_and_subagents() {
    let mut t = turn("plan it");
    t.files = vec![
        FileChange {
            path: "/home/me/.claude/plans/humble-wolf.md".into(),
            change: Change::Created,
            from: None,
        },
        FileChange {
            path: "/tmp/scratch.py".into(),
            change: Change::Created,
            from: None,
        },
        FileChange {
            path: "/home/me/other-repo/README.md".into(),
            change: Change::Updated,
            from: None,
        },
        FileChange {
            path: "/home/me/.ssh/config".into(),
            change: Change::Updated,
            from: None,
        },
    ];
    t.subagents = vec![Subagent {
        description: "Create components".into(),
        files: vec![
            file("src/A.tsx", Change::Created),
            file("src/B.tsx", Change::Created),
        ],
        report: "Done".into(),
        errors: vec![ToolError {
            tool: "Bash".into(),
            target: "npm run build".into(),
            message: "TypeError: generate is not a function".into(),
            resolved: false,
            fixed_in: vec![],
            resolved_by: None,
            cause: None,
        }],
    }];
    let s = run(vec![t]);
    assert_eq!(
        s.travail,
        [
            "Modifié `/home/me/other-repo/README.md`",
            "Sous-agent « Create components » : créé `src/A.tsx`, `src/B.tsx`"
        ]
    );
    assert_eq!(
        s.problemes,
        [
            "Sous-agent « Create components » : `npm run build` : TypeError: generate is not a function (non résolu)"
        ]
    );
}

/// A brief written for an agent says its goal after "Your job is to".
#[test]
fn an_agent_brief_s_job_is_the_goal() {
    let s = run(vec![turn(
        "You are reviewing work that another agent just completed. Your job is to verify the \
         implementation is correct and report any issues.",
    )]);
    assert_eq!(
        s.objectif,
        ["Verify the implementation is correct and report any issues."]
    );
}

/// A skill's command that did work is the goal; the client's own commands,
/// and those that only commit or set a tool up, are not, nor one that did
/// nothing.
#[test]
fn a_skill_command_that_did_work_is_the_goal() {
    let command = |text: &str, calls: u32| {
        let mut t = turn(text);
        t.kind = RequestKind::Command;
        t.tool_calls = calls;
        t
    };
    let s = run(vec![
        command("/codex:adversarial-review", 4),
        command("/model", 2),
        command("/commit-commands:commit", 3),
        command("/codex:setup", 1),
        command("/wfc-housekeeping", 0),
    ]);
    assert_eq!(s.objectif, ["`/codex:adversarial-review`"]);
}

#[test]
fn slash_commands_and_short_pointing_requests() {
    let mut init = turn("/init");
    init.kind = RequestKind::Command;
    let mut bare = turn("/clear");
    bare.kind = RequestKind::Command;
    let mut these = turn("please fix these");
    these.pasted = vec!["uv run ty check: error[call-non-callable]: pytest.skip".into()];
    let s = run(vec![init, bare, these]);
    assert_eq!(
        s.objectif,
        [
            "Initialiser `CLAUDE.md` (`/init`)",
            "Fix these (`uv run ty check: error[call-non-callable]: pytest.skip`)"
        ]
    );
}

#[test]
fn ok_done_only_closes() {
    let projects = projects();
    let digest = Digest {
        turns: vec![turn("OK-done")],
    };
    let logs = vec![("root".to_string(), "## À suivre\n- Ship\n".to_string())];
    let req = ExtractRequest {
        digest: &digest,
        ok_done: true,
        projects: &projects,
        default_project: "root",
        existing_logs: &logs,
        done_candidates: &["Ship".to_string()],
        earlier_todos: &[],
        lang: Lang::Fr,
        project_root: Path::new(ROOT),
    };
    let x = extract(&req);
    assert_eq!(x.updates.len(), 1);
    let s = &x.updates[0].sections;
    assert_eq!(s.a_suivre_done, ["Ship"]);
    assert!(s.objectif.is_empty() && s.travail.is_empty());
}

#[test]
fn answers_teach_and_cleanups_are_not_work() {
    // A question answered with nothing changed: its direct answer is knowledge.
    let mut q = turn("Search if claude -p can use WebSearch. Summarize the findings.");
    q.answer = "## Summary\n\n### WebSearch in `-p` Mode\n**Yes, WebSearch is available** in `claude -p` (print mode).\n\nThe WebSearch tool provides real-time web access.".into();
    let s = run(vec![q]);
    assert_eq!(
        s.connaissances,
        vec!["Yes, WebSearch is available in `claude -p` (print mode)."]
    );
    // A change's why goes with the work; a clean of build output is no work.
    let mut w = turn("Hey Claude, can you please add the token totals to the index?");
    w.files = vec![
        file("converter.py", Change::Updated),
        file(".venv", Change::Deleted),
        file("demo.egg-info", Change::Deleted),
    ];
    w.answer = "Perfect! Here's a summary:\n\n- Added token aggregation for each project\n- Used `seen_request_ids` to avoid double-counting tokens from duplicate messages".into();
    let s = run(vec![w]);
    assert_eq!(s.objectif, vec!["Add the token totals to the index"]);
    assert_eq!(
        s.travail,
        vec![
            "Modifié `converter.py`",
            "Used `seen_request_ids` to avoid double-counting tokens from duplicate messages"
        ]
    );
    // A write that was refused: the answer claiming it is not kept.
    let mut r = turn("/init");
    r.kind = RequestKind::Command;
    r.errors = vec![ToolError {
        tool: "Write".into(),
        target: format!("{ROOT}/CLAUDE.md"),
        message: "permission not granted".into(),
        resolved: false,
        fixed_in: vec![],
        resolved_by: None,
        cause: None,
    }];
    r.answer = "I've created a basic CLAUDE.md file. Since there are no files to analyze, the file is a foundation that should be updated as the project develops.".into();
    let s = run(vec![r]);
    assert!(s.connaissances.is_empty(), "{s:?}");
    assert_eq!(
        s.problemes,
        vec!["`CLAUDE.md` : permission not granted (non résolu)"]
    );
    // "I think we should …" asks for something.
    let mut later = turn("does it only run on main? I think we should run it on all push?");
    later.first = false;
    later.files = vec![file("ci.yml", Change::Updated)];
    let s = run(vec![later]);
    assert_eq!(s.objectif, vec!["I think we should run it on all push?"]);
}

#[test]
fn a_proposal_waiting_for_a_yes_is_not_work_done() {
    let mut p = turn("Set up credo, dialyzer and mix_audit");
    p.files = vec![file("plan.md", Change::Created)];
    p.answer = "Good. Let me write the plan for your approval.\n\n## Proposed Beads\n\n- Add three standard Elixir quality tools as dev dependencies, to avoid drift: Credo, Dialyxir, mix_audit".into();
    let s = run(vec![p.clone()]);
    assert_eq!(s.travail, vec!["Créé `plan.md`"]);
    // The same list after the work was done is its why.
    p.answer = "Done:\n\n- Added three standard Elixir quality tools as dev dependencies, to avoid drift between machines".into();
    let s = run(vec![p]);
    assert_eq!(s.travail.len(), 2, "{:?}", s.travail);
}

/// A check that ran, with nothing else said of it.
fn check_of(command: &str, test: bool, ok: bool) -> Check {
    Check {
        command: command.into(),
        test,
        ok,
        passed: None,
        failed: None,
        coverage: None,
        summary: String::new(),
        fixed_in: Vec::new(),
        changed_after: false,
        cause: None,
    }
}

/// An action that went through, known by `id`.
fn done(kind: ActionKind, detail: &str, command: &str, id: &str) -> Action {
    Action {
        kind,
        detail: detail.into(),
        command: command.into(),
        ok: true,
        id: id.into(),
        skipped_hooks: false,
        range: None,
        branch: None,
    }
}

fn ticket(kind: ActionKind, detail: &str, id: &str) -> Action {
    Action {
        kind,
        detail: detail.into(),
        command: format!("bd {detail}"),
        ok: true,
        id: id.into(),
        skipped_hooks: false,
        range: None,
        branch: None,
    }
}

#[test]
fn opened_tickets_are_to_dos_under_their_id_and_closing_one_finishes_it() {
    let mut t = turn("create the beads");
    t.actions = vec![
        ticket(ActionKind::TicketOpened, "Setup quality tools", "app-0p7"),
        ticket(
            ActionKind::TicketOpened,
            "Add a `mix quality` alias",
            "app-0p7.1",
        ),
        // Opened and closed in one job: it was never open.
        ticket(ActionKind::TicketOpened, "Spike", "app-0p8"),
        ticket(ActionKind::TicketClosed, "app-0p8", ""),
        // Failed: no id, nothing opened.
        Action {
            ok: false,
            ..ticket(ActionKind::TicketOpened, "Broken", "")
        },
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.a_suivre,
        [
            "Ticket `app-0p7` : Setup quality tools",
            "Ticket `app-0p7.1` : Add a 'mix quality' alias"
        ]
    );
    assert_eq!(s.travail, ["Ticket fermé : `app-0p8`"]);

    // Closing the epic tomorrow's way: today's log holds its to-do; the
    // task whose id only starts like it stays open.
    let log = "## À suivre\n- Ticket `app-0p7.1` : Add alias\n- Ticket `app-0p7` : Setup\n";
    let mut t = turn("close the epic");
    t.actions = vec![ticket(ActionKind::TicketClosed, "app-0p7 #12", "")];
    let s = run_with(vec![t], Lang::En, &[("root".into(), log.into())]);
    assert_eq!(s.a_suivre_done, ["Ticket `app-0p7` : Setup"]);
    assert_eq!(s.travail, ["Closed ticket: `#12`"]);
}

#[test]
fn a_file_reworked_later_in_the_day_gets_its_latest_detail_first() {
    let answer = "## Changes\n\n- **`src/app.py`**: switched to bun publish, no restore step\n";
    // Today's log already says what an earlier turn did to it.
    let log = "## Travail produit\n- Modifié `src/app.py` : resolve then restore versions\n- Modifié `src/b.py`, `src/app.py`\n";
    let mut t = turn("use bun publish instead");
    t.first = false;
    t.files = vec![file("src/app.py", Change::Updated)];
    t.answer = answer.into();
    let s = run_with(vec![t.clone()], Lang::Fr, &[("root".into(), log.into())]);
    assert!(s.travail.is_empty(), "{:?}", s.travail);
    assert_eq!(
        s.travail_revise,
        [Revision {
            was: "Modifié `src/app.py` : resolve then restore versions".into(),
            now: "Modifié `src/app.py` : switched to bun publish, no restore step; resolve then restore versions".into(),
        }]
    );

    // Both turns in one job: the record's own bullet is rewritten.
    let mut first = turn("make the release work");
    first.files = vec![file("src/app.py", Change::Created)];
    first.answer = "## Changes\n\n- **`src/app.py`**: resolve then restore versions\n".into();
    let s = run(vec![first, t.clone()]);
    assert_eq!(
        s.travail,
        [
            "Créé `src/app.py` : switched to bun publish, no restore step; resolve then restore versions"
        ]
    );
    assert!(s.travail_revise.is_empty());

    // Said again shorter ("Added unit tests" after "Added unit tests to
    // verify …"): the earlier telling holds it, nothing is revised.
    let log =
        "## Travail produit\n- Modifié `src/app.py` : added unit tests to verify the parser…\n";
    let mut again = t.clone();
    again.answer = "## Changes\n\n- **`src/app.py`**: added unit tests\n".into();
    let s = run_with(vec![again], Lang::Fr, &[("root".into(), log.into())]);
    assert!(s.travail.is_empty() && s.travail_revise.is_empty(), "{s:?}");
}

#[test]
fn a_narrower_run_passing_does_not_fix_the_suite() {
    assert!(covers("(source .venv/bin/activate && pytest)", "pytest"));
    assert!(covers("uv run pytest -q", "pytest"));
    assert!(covers("pytest tests/a.py", "pytest tests/a.py 2>&1 | tail"));
    assert!(!covers("bun test a.test.ts b.test.ts", "bun run test"));
    assert!(!covers("pytest tests/a.py", "pytest"));

    let check = |command: &str, ok: bool, passed: u64| Check {
        command: command.into(),
        test: true,
        ok,
        passed: Some(passed),
        failed: Some(u64::from(!ok)),
        coverage: None,
        summary: if ok {
            String::new()
        } else {
            "error: DB_URL is not set".into()
        },
        fixed_in: Vec::new(),
        changed_after: false,
        cause: None,
    };
    let mut t = turn("unify the splitter");
    t.checks = vec![
        check("bun run test", false, 39),
        check("bun test packages/core/src/index.test.ts", true, 40),
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.problemes,
        ["Tests : 1 en échec (error: DB_URL is not set) (non résolu)"]
    );
}

#[test]
fn a_later_request_picking_one_way_over_another_is_the_users_decision() {
    let first = turn("make the release script work");
    let mut t = turn("can we publish with `bun publish` instead of npm publish");
    t.first = false;
    let s = run(vec![first, t]);
    assert_eq!(s.objectif, ["Make the release script work"]);
    assert_eq!(
        s.decisions,
        [
            "Consigne de l'utilisateur : « Can we publish with `bun publish` instead of npm publish »"
        ]
    );
    assert!(!picks_a_way("add a retry instead"));
    assert!(picks_a_way("no, use a map instead."));
}

#[test]
fn a_fixed_check_says_what_fixed_it_when_the_answer_names_the_error() {
    let mut t = turn("please fix these");
    t.files = vec![file("test/test_cache.py", Change::Updated)];
    t.checks = vec![
        Check {
            command: "uv run ty check".into(),
            test: false,
            ok: false,
            passed: None,
            failed: None,
            coverage: None,
            summary: "error[call-non-callable]: Object is not callable".into(),
            fixed_in: vec![format!("{ROOT}/test/test_cache.py")],
            changed_after: false,
            cause: None,
        },
        Check {
            command: "uv run ty check".into(),
            test: false,
            ok: true,
            passed: None,
            failed: None,
            coverage: None,
            summary: "All checks passed!".into(),
            fixed_in: Vec::new(),
            changed_after: false,
            cause: None,
        },
    ];
    t.answer = "Both issues are resolved:\n\n\
        1. **Fixed call-non-callable error**: added `# type: ignore[misc]` on `pytest.skip()` in `test/test_cache.py`\n\
        2. **Fixed the import order** in `test/test_cache.py`\n"
        .into();
    let s = run(vec![t]);
    assert_eq!(s.problemes.len(), 1, "{:?}", s.problemes);
    assert!(
        s.problemes[0].ends_with("→ corrigé en modifiant `test/test_cache.py` — added '# type: ignore[misc]' on 'pytest.skip()' in 'test/test_cache.py'"),
        "{:?}",
        s.problemes
    );
    assert_eq!(
        distinctive_terms("error: could not open the file"),
        Vec::<String>::new()
    );
}

#[test]
fn passing_tests_say_the_count_the_turn_started_from() {
    let check = |command: &str, passed: u64| Check {
        command: command.into(),
        test: true,
        ok: true,
        passed: Some(passed),
        failed: Some(0),
        coverage: None,
        summary: String::new(),
        fixed_in: Vec::new(),
        changed_after: false,
        cause: None,
    };
    let mut t = turn("add the tracing tests");
    t.checks = vec![
        check("mix test test/a_test.exs", 4),
        check("mix test", 297),
        check("mix test", 309),
    ];
    let s = run(vec![t.clone()]);
    assert_eq!(s.travail, ["Tests : 309 réussis, avant : 297 (`mix test`)"]);
    // The same count: nothing to compare.
    t.checks = vec![check("mix test", 309), check("mix test", 309)];
    assert_eq!(run(vec![t]).travail, ["Tests : 309 réussis (`mix test`)"]);
}

#[test]
fn the_py_file_a_user_names_is_named_in_the_log() {
    let mut t = turn("make it installable");
    t.files = vec![file("pyproject.toml", Change::Updated)];
    t.plan =
        Some("## Plan\n\n### What stays the same\n- Filename: `extract-feedback.py` ✓\n".into());
    t.declined = vec![Declined {
        tool: "ExitPlanMode".into(),
        target: String::new(),
        reason: "Let's keep the name of the py file but change the pyproject script".into(),
    }];
    let s = run(vec![t.clone()]);
    assert_eq!(
        s.decisions.last().unwrap(),
        "Refusé par l'utilisateur (ExitPlanMode) : « Let's keep the name of the py file but change the pyproject script » (`extract-feedback.py`)"
    );
    // Two candidates: nothing is guessed.
    t.files.push(file("a.py", Change::Updated));
    t.files.push(file("b.py", Change::Updated));
    let s = run(vec![t]);
    assert!(s.decisions.last().unwrap().ends_with("script »"));
}

#[test]
fn gits_own_files_are_not_the_projects_work() {
    let mut t = turn("use the https address for the submodule");
    t.files = vec![
        file(".git/modules/public/tokenizer", Change::Deleted),
        file("public/tokenizer", Change::Deleted),
        file(".gitmodules", Change::Updated),
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.travail,
        ["Supprimé `public/tokenizer`", "Modifié `.gitmodules`"]
    );
}

#[test]
fn a_to_do_of_an_earlier_day_the_list_completes_is_finished_there() {
    let mut t = turn("finish the docs");
    t.todos = vec![Todo {
        text: "Write the README".into(),
        status: TodoStatus::Completed,
    }];
    let x = with_earlier(vec![t], Lang::Fr, "Write the README");
    let s = &x.updates[0].sections;
    assert_eq!(s.finalise_earlier, ["Write the README"]);
    assert!(s.a_suivre_done.is_empty() && s.travail.is_empty(), "{s:?}");
}

#[test]
fn a_goal_naming_a_ticket_says_what_the_ticket_is() {
    let mut t = turn("Work on bead app-4te. Start with the first ready task.");
    t.tickets = vec![
        crate::extract::digest::TicketSeen {
            id: "app-4te.1".into(),
            title: "Add deps".into(),
        },
        crate::extract::digest::TicketSeen {
            id: "app-4te".into(),
            title: "End-to-end tracing".into(),
        },
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.objectif,
        ["Work on bead app-4te. Start with the first ready task. — `app-4te` : End-to-end tracing"]
    );
}

#[test]
fn the_clients_own_files_are_not_the_projects_work() {
    let mut t = turn("test it in WSL");
    t.files = vec![
        file("src/shell/omp.zsh", Change::Updated),
        FileChange {
            path: "C:\\Users\\me\\.claude\\projects\\D--repo\\memory\\wsl.md".into(),
            change: Change::Updated,
            from: None,
        },
        FileChange {
            path: "C:\\Users\\me\\AppData\\Local\\Temp\\claude\\D--repo\\s1\\scratchpad\\t.yaml"
                .into(),
            change: Change::Created,
            from: None,
        },
        file(".claude/skills/zsh/SKILL.md", Change::Updated),
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.travail,
        ["Modifié `src/shell/omp.zsh`, `.claude/skills/zsh/SKILL.md`"]
    );
}

#[test]
fn a_fixed_test_run_says_what_fixed_it_when_the_answer_names_the_test() {
    let run_of = |ok: bool, failed: u64, fixed_in: Vec<String>| Check {
        command: "uv run pytest".into(),
        test: true,
        ok,
        passed: Some(40),
        failed: Some(failed),
        coverage: None,
        summary: if ok {
            String::new()
        } else {
            "tests/test_unit.py::test_process_invalid_input_type".into()
        },
        fixed_in,
        changed_after: false,
        cause: None,
    };
    let mut t = turn("make the tests pass");
    t.files = vec![file("tests/test_unit.py", Change::Updated)];
    t.checks = vec![
        run_of(false, 1, vec![format!("{ROOT}/tests/test_unit.py")]),
        run_of(true, 0, Vec::new()),
    ];
    t.answer = "## Fixes\n\n- **test_process_invalid_input_type**: now expects a `TypeError` in `tests/test_unit.py`\n".into();
    let s = run(vec![t]);
    assert!(
        s.problemes[0].ends_with("→ corrigé en modifiant `tests/test_unit.py` — now expects a 'TypeError' in 'tests/test_unit.py'"),
        "{:?}",
        s.problemes
    );
}

#[test]
fn a_commit_the_answer_leaves_to_do_is_open_until_a_commit_is_made() {
    let mut t = turn("update the docs for posh-git");
    t.files = vec![
        file("website/docs/git.mdx", Change::Updated),
        file("website/docs/faq.mdx", Change::Updated),
    ];
    t.answer = "Only the two docs files touched.\n\nReady to commit. Suggested message: \
                `docs(git): steer posh-git users to source: pwsh`. Go ahead?"
        .into();
    let s = run(vec![t.clone()]);
    assert_eq!(
        s.a_suivre,
        ["Commit à faire : « docs(git): steer posh-git users to source: pwsh »"]
    );

    // Without a message, the files; a clean tree or an answer that says
    // nothing of committing leaves no to-do.
    t.answer = "All done; the working tree is ready for you to review and commit.".into();
    let s = run_with(vec![t.clone()], Lang::En, &[]);
    assert_eq!(
        s.a_suivre,
        ["To commit: `website/docs/git.mdx`, `website/docs/faq.mdx`"]
    );
    t.answer = "Worktrees are clean and still at round-1 commits: no uncommitted work.".into();
    assert!(run(vec![t.clone()]).a_suivre.is_empty());
    // Saying nothing of it, the turn leaves its changes uncommitted: a
    // state, not a commit asked for.
    t.answer = "Done.".into();
    assert_eq!(
        run(vec![t]).a_suivre,
        ["Modifications non commitées : `website/docs/git.mdx`, `website/docs/faq.mdx`"]
    );

    // A later turn's commit finishes it.
    let log = "## À suivre\n- Commit à faire : « docs(git): steer posh-git users »\n";
    let logs = vec![("root".to_string(), log.to_string())];
    let mut commit = turn("go ahead");
    commit.actions = vec![Action {
        kind: ActionKind::Commit,
        detail: "docs(git): steer posh-git users".into(),
        command: "git commit -m '…'".into(),
        ok: true,
        id: String::new(),
        skipped_hooks: false,
        range: None,
        branch: None,
    }];
    let s = run_with(vec![commit.clone()], Lang::Fr, &logs);
    assert_eq!(
        s.a_suivre_done,
        ["Commit à faire : « docs(git): steer posh-git users »"]
    );
    // Every commit left to do before it, not only the first.
    let log = "## À suivre\n- Commit à faire : `a.js`\n- Relire la doc\n- Commit à faire : `b.js`, `c.js`\n";
    let logs = vec![("root".to_string(), log.to_string())];
    let s = run_with(vec![commit], Lang::Fr, &logs);
    assert_eq!(
        s.a_suivre_done,
        ["Commit à faire : `a.js`", "Commit à faire : `b.js`, `c.js`"]
    );
}

#[test]
fn a_commit_refused_earlier_and_made_now_is_one_bullet() {
    let log = "## Travail produit\n- Commit « feat: instrument hook controllers with trace spans » (échec)\n";
    let logs = vec![("root".to_string(), log.to_string())];
    let mut t = turn("continue implementation");
    t.actions = vec![Action {
        kind: ActionKind::Commit,
        detail: "feat: instrument hook controllers with OTEL trace spans (app-4te)".into(),
        command: "git commit -m '…'".into(),
        ok: true,
        id: String::new(),
        skipped_hooks: false,
        range: None,
        branch: None,
    }];
    let s = run_with(vec![t.clone()], Lang::Fr, &logs);
    assert!(s.travail.is_empty(), "{:?}", s.travail);
    assert_eq!(
        s.travail_revise,
        [Revision {
            was: "Commit « feat: instrument hook controllers with trace spans » (échec)".into(),
            now: "Commit « feat: instrument hook controllers with OTEL trace spans (app-4te) »"
                .into(),
        }]
    );
    // Another commit is no retry of it.
    t.actions[0].detail = "docs: tracing guide".into();
    let s = run_with(vec![t], Lang::Fr, &logs);
    assert!(s.travail_revise.is_empty());
    assert_eq!(s.travail, ["Commit « docs: tracing guide »"]);
}

#[test]
fn a_commit_a_hook_refused_twice_then_made_is_one_problem_that_names_the_commit() {
    let mut t = turn("commit it");
    let refused = |why: &str| crate::extract::digest::ToolError {
        tool: "Bash".into(),
        target: "git commit -m \"feat: spans\"".into(),
        message: format!("Pre-commit validation failed: {why}"),
        resolved: true,
        fixed_in: Vec::new(),
        resolved_by: Some("git add a.ex && git commit -m \"feat: spans\"".into()),
        cause: None,
    };
    t.errors = vec![
        refused("[CREDO] too complex"),
        refused("[DIALYZER] no match"),
    ];
    t.actions = vec![Action {
        kind: ActionKind::Commit,
        detail: "feat: spans".into(),
        command: "git add a.ex && git commit -m \"feat: spans\"".into(),
        ok: true,
        id: String::new(),
        skipped_hooks: false,
        range: None,
        branch: None,
    }];
    let s = run(vec![t]);
    assert_eq!(
        s.problemes,
        [
            "`git commit -m \"feat: spans\"` : Pre-commit validation failed: [CREDO] too complex; \
          [DIALYZER] no match → résolu ensuite : commit « feat: spans »"
        ]
    );
}

#[test]
fn a_commit_names_its_hash_and_an_opened_pull_request_its_number() {
    let mut t = turn("ship it");
    t.actions = vec![
        Action {
            kind: ActionKind::Commit,
            detail: "docs: add todo".into(),
            command: "git commit -m 'docs: add todo'".into(),
            ok: true,
            id: "c076c55a9f".into(),
            skipped_hooks: false,
            range: None,
            branch: None,
        },
        Action {
            kind: ActionKind::Push,
            detail: "PR: docs: add todo".into(),
            command: "gh pr create --title 'docs: add todo'".into(),
            ok: true,
            id: "#180".into(),
            skipped_hooks: false,
            range: None,
            branch: None,
        },
    ];
    assert_eq!(
        run(vec![t.clone()]).travail,
        [
            "Commit « docs: add todo » (`c076c55a9`)",
            "PR #180 ouverte : « docs: add todo »"
        ]
    );
    assert_eq!(
        run_with(vec![t], Lang::En, &[]).travail,
        [
            "Commit « docs: add todo » (`c076c55a9`)",
            "Opened PR #180: « docs: add todo »"
        ]
    );
}

#[test]
fn the_user_s_answer_to_a_closing_question_is_a_choice_not_a_goal() {
    let mut t = turn("lets get this in early, but after mfa");
    t.first = false;
    t.replies_to = Some("Where would you want it in the M2 sequence?".into());
    t.answer = "Phase 12.1 inserted after Phase 12:\n\n- **Directory:** x".into();
    let s = run(vec![t]);
    assert!(s.objectif.is_empty(), "{:?}", s.objectif);
    assert_eq!(
        s.decisions,
        [
            "Choix : Where would you want it in the M2 sequence? → « Lets get this in early, but \
          after mfa » ; Phase 12.1 inserted after Phase 12"
        ]
    );
}

#[test]
fn taking_up_a_recommended_way_is_the_user_s_choice() {
    let mut t = turn("let's do the auto fallback with error join");
    t.first = false;
    t.replies_to = Some(
        "My take: in `auto` mode over SSH, fall back to v1 on any v2 probe error, joining both \
         errors if v1 also fails."
            .into(),
    );
    t.answer = "Summary of changes:\n- refs.go: auto mode falls back to v1.".into();
    let s = run(vec![t]);
    assert!(s.objectif.is_empty(), "{:?}", s.objectif);
    assert_eq!(s.decisions.len(), 1, "{:?}", s.decisions);
    assert!(
        s.decisions[0].contains("My take: in `auto` mode")
            && s.decisions[0].contains("« Let's do the auto fallback with error join »"),
        "{:?}",
        s.decisions
    );
}

#[test]
fn a_request_ending_on_this_carries_the_sentence_it_points_back_to() {
    let s = run(vec![turn(
        "The todo mentions a clean break. I feel that this change is exactly the kind of task \
         for the new migration techniques. Can you update the todo to reflect this?",
    )]);
    assert_eq!(
        s.objectif,
        [
            "I feel that this change is exactly the kind of task for the new migration techniques. \
          Update the todo to reflect this"
        ]
    );
}

#[test]
fn moving_the_working_copy_is_no_goal() {
    for r in [
        "ok lets get back to main",
        "lets get back to main again",
        "before you go doing that, we need to get back to main, and pull in latest.",
    ] {
        assert!(is_housekeeping(r), "{r}");
    }
    assert!(!is_housekeeping(
        "merge main back into the feature branch and fix conflicts"
    ));
    assert!(!is_housekeeping("switch the parser to the new lexer"));
    assert!(is_shipping("Commit, push and pr it"));
    assert!(is_shipping("commit a"));
    assert!(is_shipping("Commit and push these changes"));
    assert!(!is_shipping("commit the fix for the parser and add a test"));
    let mut t = turn("ok lets get back to main");
    t.answer = "On `main`, up to date (our fix already merged). Ready for the next task.".into();
    let s = run(vec![t]);
    assert!(s.objectif.is_empty() && s.connaissances.is_empty(), "{s:?}");
}

#[test]
fn a_question_answered_is_kept_with_its_reply() {
    let mut t = turn("In the schemas doc, section 14 has no folder IPNS records. Why?");
    t.kind = RequestKind::Question;
    t.first = false;
    t.answer = "Good catch. But I think your question is about the table itself. The answer is: \
                **because folder IPNS keys aren't derived — they're random.**\n\nSection 14 \
                documents HKDF derivations specifically."
        .into();
    let s = run(vec![t.clone()]);
    assert_eq!(
        s.connaissances[0],
        "In the schemas doc, section 14 has no folder IPNS records. Why? → because folder IPNS \
         keys aren't derived — they're random."
    );
    // A reply that is neither strong nor a lesson is not kept.
    t.answer = "Everything looks good! Nothing else to add here today.".into();
    assert!(run(vec![t]).connaissances.is_empty());
}

#[test]
fn a_commit_that_skipped_the_hooks_says_so_and_leftovers_are_context() {
    let mut t = turn("commit the changelog");
    t.files = vec![file("CHANGELOG.md", Change::Updated)];
    t.actions = vec![Action {
        kind: ActionKind::Commit,
        detail: "Release version 0.3.0".into(),
        command: "git commit --no-verify -m \"Release version 0.3.0\"".into(),
        ok: true,
        id: "19729ce".into(),
        skipped_hooks: true,
        range: None,
        branch: None,
    }];
    t.answer =
        "Committed the changelog with the hooks skipped, since the failing tests are unrelated \
                to it. The other modified files remain unstaged as they were pre-existing changes."
            .into();
    let s = run(vec![t]);
    assert!(
        s.travail
            .contains(&"Commit « Release version 0.3.0 » (`19729ce`, `--no-verify`)".to_string()),
        "{:?}",
        s.travail
    );
    assert_eq!(
        s.contexte,
        ["The other modified files remain unstaged as they were pre-existing changes."]
    );
}

#[test]
fn a_request_stopped_then_asked_again_is_one_goal() {
    let mut stopped = turn("restore the login footer with the API status");
    stopped.interrupted = true;
    let mut again = turn("restore the login footer with the API status");
    again.first = false;
    again.files = vec![file("src/login.tsx", Change::Updated)];
    let s = run(vec![stopped, again]);
    assert_eq!(s.objectif, ["Restore the login footer with the API status"]);
}

#[test]
fn a_bare_push_names_the_branch_it_updated() {
    let mut t = turn("push it");
    t.actions = vec![Action {
        kind: ActionKind::Push,
        detail: "git push".into(),
        command: "git push".into(),
        ok: true,
        id: "dipree/entire-wingman".into(),
        skipped_hooks: false,
        range: None,
        branch: None,
    }];
    assert_eq!(
        run(vec![t]).travail,
        ["Poussé `git push` → `dipree/entire-wingman`"]
    );
}

#[test]
fn a_passing_run_that_says_no_count_is_said_after_changes() {
    let mut t = turn("fix the test");
    t.files = vec![file("cmd/x_test.go", Change::Updated)];
    let run_of = |command: &str| Check {
        command: command.into(),
        test: true,
        ok: true,
        passed: None,
        failed: None,
        coverage: None,
        summary: String::new(),
        fixed_in: Vec::new(),
        changed_after: false,
        cause: None,
    };
    t.checks = vec![run_of("go test ./cmd/...")];
    assert!(
        run(vec![t.clone()])
            .travail
            .contains(&"Tests : réussis (`go test ./cmd/...`)".to_string())
    );
    // Piped, its status is the pipe's.
    t.checks = vec![run_of("go test ./... | tail -5")];
    assert!(
        !run(vec![t.clone()])
            .travail
            .iter()
            .any(|b| b.starts_with("Tests"))
    );
    // Unless its output said every package passed.
    t.checks[0].summary = "21 packages ok".into();
    assert!(
        run(vec![t])
            .travail
            .contains(&"Tests : réussis, 21 packages ok (`go test ./...`)".to_string())
    );
}

#[test]
fn a_build_that_passed_once_the_shell_was_set_up_names_the_setup() {
    let mut t = turn("build it");
    let build = |command: &str, ok: bool| Check {
        command: command.into(),
        test: false,
        ok,
        passed: None,
        failed: None,
        coverage: None,
        summary: String::new(),
        fixed_in: Vec::new(),
        changed_after: false,
        cause: None,
    };
    t.checks = vec![
        build("cd go && go build ./cmd/mcp-server/", false),
        build(
            "PATH=$PATH:/usr/local/go/bin && cd go && go build ./cmd/mcp-server/",
            true,
        ),
    ];
    assert_eq!(
        run(vec![t.clone()]).problemes,
        ["Build `go build ./cmd/mcp-server/` échec → résolu avec `PATH=$PATH:/usr/local/go/bin`"]
    );
    // A plain rerun that passed teaches nothing.
    t.checks[1] = build("cd go && go build ./cmd/mcp-server/", true);
    assert!(run(vec![t]).problemes.is_empty());
}

#[test]
fn the_checks_a_turn_leaves_passing_are_its_state() {
    let mut t = turn("fix the lint");
    t.files = vec![file("src/a.go", Change::Updated)];
    let build = |command: &str, ok: bool, summary: &str| Check {
        command: command.into(),
        test: false,
        ok,
        passed: None,
        failed: None,
        coverage: None,
        summary: summary.into(),
        fixed_in: Vec::new(),
        changed_after: false,
        cause: None,
    };
    t.checks = vec![
        build("mise run lint 2>&1 | tail -30", true, "0 issues."),
        build(
            "PATH=$PATH:/usr/local/go/bin && cd go && go build ./cmd/x/ 2>&1",
            true,
            "",
        ),
    ];
    assert_eq!(
        run(vec![t.clone()]).travail,
        [
            "Modifié `src/a.go`",
            "Contrôles réussis : `mise run lint` (0 issues), `go build ./cmd/x/`"
        ]
    );
    // A `cd` into the project eats the room; one out of it may be why the
    // command behaved as it did.
    t.checks = vec![
        build(&format!("cd {ROOT}/go && go vet ./..."), true, ""),
        build("cd /tmp && go build ./cmd/x/", true, ""),
    ];
    assert_eq!(
        run(vec![t.clone()]).travail,
        [
            "Modifié `src/a.go`",
            "Contrôles réussis : `go vet ./...`, `cd /tmp && go build ./cmd/x/`"
        ]
    );
    // Piped, with nothing in its output saying it was clean: its status
    // is `tail`'s.
    t.checks = vec![build("go vet ./... 2>&1 | tail -5", true, "")];
    assert_eq!(run(vec![t.clone()]).travail, ["Modifié `src/a.go`"]);
    // Files changed after it: it says nothing of the work left.
    t.checks = vec![Check {
        changed_after: true,
        cause: None,
        ..build("go vet ./...", true, "")
    }];
    assert_eq!(run(vec![t.clone()]).travail, ["Modifié `src/a.go`"]);
    // Its last run failing: the problem says it, not this.
    t.checks = vec![
        build("go vet ./...", true, ""),
        build("go vet ./...", false, "a.go:3:1: unreachable code"),
    ];
    assert_eq!(run(vec![t.clone()]).travail, ["Modifié `src/a.go`"]);
    // A turn that changed nothing checked nothing of its own.
    t.files.clear();
    t.checks = vec![build("go vet ./...", true, "")];
    assert!(run(vec![t]).travail.is_empty());
}

#[test]
fn a_bare_go_ahead_followed_by_work_keeps_what_its_answer_teaches() {
    let mut t = turn("");
    t.kind = RequestKind::None;
    t.first = false;
    t.answer = "It's working now. Here's what was wrong and what was fixed:\n\n**Root Cause:** \
                CloudFront connects to the origin server using the hostname \
                `origin-simplemap.safecast.org`, whose nginx site routes everything to the map."
        .into();
    assert!(
        run(vec![t.clone()]).connaissances.is_empty(),
        "no call: chit-chat"
    );
    t.tool_calls = 3;
    let s = run(vec![t]);
    assert!(
        s.connaissances
            .iter()
            .any(|b| b.contains("origin-simplemap")),
        "{s:?}"
    );
    assert!(s.objectif.is_empty());
}

#[test]
fn a_failing_lint_is_told_by_the_run_that_names_a_place() {
    let mut t = turn("address the issues in mise lint");
    t.files = vec![file("cmd/settings_test.go", Change::Updated)];
    let lint = |summary: &str, ok: bool, fixed: &[&str]| Check {
        command: "mise run lint".into(),
        test: false,
        ok,
        passed: None,
        failed: None,
        coverage: None,
        summary: summary.into(),
        fixed_in: fixed.iter().map(|f| format!("{ROOT}/{f}")).collect(),
        changed_after: false,
        cause: None,
    };
    t.checks = vec![
        lint("[lint] ERROR task failed", false, &["cmd/settings_test.go"]),
        lint(
            "cmd/settings_test.go:35:3: Error return value of `os.Chdir` is not checked",
            false,
            &["cmd/settings_test.go"],
        ),
        lint("", true, &[]),
    ];
    let s = run(vec![t]);
    assert!(
        s.problemes[0].starts_with("Build `mise run lint` échec : cmd/settings_test.go:35:3"),
        "{:?}",
        s.problemes
    );
}

/// A lint passing as one piece of an `&&` chain fixed the failing run;
/// `mise run test` passing says nothing of `mise run lint`.
/// A counted run is the one told, unless the same runner then passed
/// without its filter (the wider run says more).
#[test]
fn a_wider_run_after_a_filtered_count_is_the_one_told() {
    let check = |command: &str, passed: Option<u64>, summary: &str| Check {
        passed,
        summary: summary.into(),
        ..check_of(command, true, true)
    };
    let told = |checks: Vec<Check>| {
        let mut t = turn("fix the tests");
        t.files = vec![file("x_test.go", Change::Updated)];
        t.checks = checks;
        run(vec![t])
            .travail
            .into_iter()
            .filter(|b| b.starts_with("Tests"))
            .collect::<Vec<_>>()
    };
    let b = told(vec![
        check("go test ./authcode/ -run TestSignal -v", Some(8), ""),
        check("go test ./...", None, "9 packages ok"),
    ]);
    assert!(b.iter().any(|b| b.contains("9 packages ok")), "{b:?}");
    let b = told(vec![
        check("go test ./... -v", Some(120), ""),
        check("go test ./internal/foo", None, "ok x/internal/foo"),
    ]);
    assert!(b.iter().any(|b| b.contains("120")), "{b:?}");
}

#[test]
fn a_lint_passing_inside_a_chain_is_the_fix() {
    let run_with = |later: &str| {
        let mut t = turn("fix the linting error");
        t.files = vec![file("internal/refs_test.go", Change::Updated)];
        let check = |command: &str, summary: &str, ok: bool, fixed: &[&str]| Check {
            summary: summary.into(),
            fixed_in: fixed.iter().map(|f| format!("{ROOT}/{f}")).collect(),
            ..check_of(command, false, ok)
        };
        t.checks = vec![
            check(
                "mise run lint 2>&1 | tail -80",
                "[lint:go] internal/refs_test.go:58:52: string `refs/heads/main` has 3 occurrences (goconst)",
                false,
                &["internal/refs_test.go"],
            ),
            check(later, "Finished in 1.93s", true, &[]),
        ];
        run(vec![t]).problemes
    };
    let p = run_with("go vet ./internal/... 2>&1 && mise run lint 2>&1 | tail -30");
    assert!(
        p[0].contains("goconst") && p[0].contains("corrigé") && !p[0].contains("non résolu"),
        "{p:?}"
    );
    let p = run_with("mise run test 2>&1 | tail -30");
    assert!(p[0].contains("non résolu"), "{p:?}");
}

#[test]
fn a_cause_the_answer_states_is_kept_with_its_problem_or_as_knowledge() {
    assert_eq!(
        cause_sentence(
            "Done.\n\n**Problem**: The CLI exited with code 1 and no output, but logging only ran in `verbose` mode."
        )
        .as_deref(),
        Some("The CLI exited with code 1 and no output, but logging only ran in `verbose` mode.")
    );
    assert_eq!(
        cause_sentence("Both symptoms trace to the serve daemon started with `coproc`.").as_deref(),
        Some("Both symptoms trace to the serve daemon started with `coproc`.")
    );
    // Too short to say anything, or asked.
    assert_eq!(cause_sentence("**Problem**: solved."), None);
    assert_eq!(
        cause_sentence("Is it caused by the cache layer somehow?"),
        None
    );
    // A pasted error carries it.
    let mut t = turn("can you look at this error");
    t.pasted = vec!["Error: CLI exited with code 1".into()];
    t.files = vec![file("src/p.ts", Change::Updated)];
    t.answer = "Problem: the CLI failed silently because logging only ran in verbose mode.".into();
    let s = run(vec![t.clone()]);
    assert_eq!(
        s.problemes,
        [
            "Erreur signalée : Error: CLI exited with code 1 — cause : the CLI failed silently because logging only ran in verbose mode."
        ]
    );
    assert!(s.connaissances.is_empty(), "{s:?}");
    // Nothing reported: what the turn found.
    t.pasted.clear();
    t.request = "analyse the issue #7660".into();
    t.answer = "Both symptoms trace to the serve daemon, which zsh announces like a job.".into();
    let s = run(vec![t]);
    assert_eq!(
        s.connaissances,
        ["Cause : Both symptoms trace to the serve daemon, which zsh announces like a job."]
    );
}

/// A server fixed over ssh in several calls is one bullet per host, in
/// the order the changes were made; a failed call stays apart.
#[test]
fn changes_made_over_ssh_are_one_bullet_per_host() {
    let mut t = turn("why does /mcp-http return HTML?");
    let remote = |detail: &str, ok: bool| Action {
        kind: ActionKind::Remote,
        detail: detail.into(),
        command: "ssh …".into(),
        ok,
        id: String::new(),
        skipped_hooks: false,
        range: None,
        branch: None,
    };
    t.actions = vec![
        remote("root@10.0.0.1: > /etc/nginx/sites-enabled/origin", true),
        remote("root@10.0.0.1: systemctl reload nginx", true),
        remote("db: systemctl restart postgresql", false),
        remote("root@10.0.0.1: systemctl reload nginx", true),
    ];
    assert_eq!(
        run(vec![t.clone()]).travail,
        [
            "Sur `root@10.0.0.1` (ssh) : écrit `/etc/nginx/sites-enabled/origin`, `systemctl reload nginx`",
            "Sur `db` (ssh) : `systemctl restart postgresql` (échec)",
        ]
    );
    assert_eq!(
        run_with(vec![t], Lang::En, &[]).travail,
        [
            "On `root@10.0.0.1` (ssh): wrote `/etc/nginx/sites-enabled/origin`, `systemctl reload nginx`",
            "On `db` (ssh): `systemctl restart postgresql` (failed)",
        ]
    );
}

/// The CI runs a turn looked at: the last of each workflow and branch, a
/// failure as a problem with its steps, the rest as the work's state.
#[test]
fn a_ci_run_is_said_as_last_seen() {
    use crate::extract::digest::{CiRun, CiState};
    let ci = |id: &str, branch: &str, state: CiState, steps: &[&str]| CiRun {
        workflow: "CI".into(),
        id: id.into(),
        branch: branch.into(),
        state,
        failed_steps: steps.iter().map(|s| s.to_string()).collect(),
    };
    let mut t = turn("fix ci");
    t.ci = vec![
        ci("1", "fix", CiState::Failed, &["Test"]),
        ci("2", "main", CiState::Failed, &["Test", "Build"]),
        ci("3", "fix", CiState::Passed, &[]),
    ];
    let s = run_with(vec![t.clone()], Lang::En, &[]);
    assert_eq!(s.travail, ["CI `CI` passed (`fix`, run 3)"]);
    assert_eq!(
        s.problemes,
        ["CI `CI` failed at step `Test`, `Build` (`main`, run 2)"]
    );
    t.ci = vec![ci("4", "", CiState::Queued, &[])];
    assert_eq!(
        run(vec![t.clone()]).travail,
        ["CI `CI` en file d'attente (run 4)"]
    );
    t.ci = vec![ci("5", "main", CiState::Cancelled, &[])];
    assert!(run(vec![t]).travail.is_empty());
}

/// A later answer telling again what is left (the same secrets to add) is
/// no second to-do; one that names something new is.
#[test]
fn a_to_do_told_again_is_said_once() {
    let old = "Required GitHub Secrets: `MACOS_CERTIFICATE`, `APPLE_ID`, `APPLE_TEAM_ID`";
    assert!(restates(
        "Add these secrets in Settings: `MACOS_CERTIFICATE`, `APPLE_ID`",
        old
    ));
    assert!(!restates("Add `MACOS_CERTIFICATE` and `NEW_ONE`", old));
    assert!(!restates("Set `APPLE_ID`", old), "one name says too little");
}

/// A plain retry teaches nothing, but a hook that refuses first attempts
/// is how the project's setup behaves.
#[test]
fn a_hook_refusing_a_first_attempt_is_said_with_its_retry() {
    let mut t = turn("add the workflow");
    t.files = vec![file(".github/workflows/a.yml", Change::Created)];
    let error = |message: &str| ToolError {
        tool: "Write".into(),
        target: format!("{ROOT}/.github/workflows/a.yml"),
        message: message.into(),
        resolved: true,
        fixed_in: Vec::new(),
        resolved_by: None,
        cause: None,
    };
    t.errors = vec![error(
        "PreToolUse:Write hook error: [python3 hook.py]: You are editing a workflow file",
    )];
    assert_eq!(
        run(vec![t.clone()]).problemes,
        [
            "`.github/workflows/a.yml` : PreToolUse:Write hook error: [python3 hook.py]: You are editing a workflow file → passé en refaisant le même appel"
        ]
    );
    t.errors = vec![error("connection reset by peer")];
    assert!(run(vec![t]).problemes.is_empty());
}

/// An edit redone at once is worth a line only when it says how the
/// project's files behave: they change under the model (a formatter
/// hook), or the model said why its text was not there.
#[test]
fn an_edit_redone_is_said_when_it_tells_how_the_files_behave() {
    let mut t = turn("tidy the runner");
    t.files = vec![file("src/runner.ts", Change::Updated)];
    let error = |message: &str, cause: Option<&str>| ToolError {
        tool: "Edit".into(),
        target: format!("{ROOT}/src/runner.ts"),
        message: message.into(),
        resolved: true,
        fixed_in: Vec::new(),
        resolved_by: None,
        cause: cause.map(str::to_owned),
    };
    t.errors = vec![error(
        "File has been modified since read, either by the user or by a linter.",
        None,
    )];
    assert_eq!(
        run(vec![t.clone()]).problemes,
        [
            "`src/runner.ts` : File has been modified since read, either by the user or by a linter. → refait ensuite"
        ]
    );
    t.errors = vec![error(
        "String to replace not found in file.",
        Some("The indentation uses tabs."),
    )];
    assert_eq!(
        run(vec![t.clone()]).problemes,
        [
            "`src/runner.ts` : String to replace not found in file. → refait ensuite — cause : The indentation uses tabs."
        ]
    );
    t.errors = vec![error("String to replace not found in file.", None)];
    assert!(run(vec![t]).problemes.is_empty());
}

/// A bare label picking one of the options offered is the user's choice,
/// said with the option it names.
#[test]
fn a_pick_among_offered_options_names_the_option() {
    let mut t = turn("B");
    t.first = false;
    t.replies_to = Some("Which do you want?".into());
    t.picked = Some("B — Three tabs, results inline".into());
    assert_eq!(
        run(vec![t.clone()]).decisions,
        ["Choix : Which do you want? → B — Three tabs, results inline"]
    );
    t.request = "1 we're moving forward with rust".into();
    t.replies_to = None;
    t.picked = Some("1 — The reset was intentional".into());
    assert_eq!(
        run(vec![t]).decisions,
        ["Choix : 1 — The reset was intentional (« 1 we're moving forward with rust »)"]
    );
}

/// The context in a first paragraph, the request in the next: the goal
/// is the request, said with its short context; a pasted snippet after
/// it is no request.
#[test]
fn a_request_after_its_context_paragraph_is_the_goal() {
    assert_eq!(
        objective(
            "a separate process added a new schema type called `contact`\n\nevaluate the impact of that change.\n\nthen, commit & pr the change",
            false
        )
        .as_deref(),
        Some("A separate process added a new schema type called `contact` — Evaluate the impact of that change.")
    );
    assert_eq!(
        objective(
            "this fails on CI\n\n    def test_x():\n        assert run() == 1",
            false
        ),
        None
    );
}

/// A turn that changed the project's files and made no commit leaves
/// them uncommitted: said once a day, not when the answer says a commit
/// was made, and finished by a later commit.
#[test]
fn changes_left_uncommitted_are_open_until_a_commit() {
    let mut t = turn("fix the parser");
    t.files = vec![file("src/parser.rs", Change::Updated)];
    t.answer = "Fixed the off-by-one in the parser.".into();
    assert_eq!(
        run(vec![t.clone()]).a_suivre,
        ["Modifications non commitées : `src/parser.rs`"]
    );
    assert_eq!(
        run_with(vec![t.clone()], Lang::En, &[]).a_suivre,
        ["Uncommitted changes: `src/parser.rs`"]
    );
    // Said already today: said again with this turn's files, once, and
    // not when it names them all already.
    let log = "## À suivre\n- Modifications non commitées : `src/lexer.rs`\n";
    let logs = vec![("root".to_string(), log.to_string())];
    let s = run_with(vec![t.clone()], Lang::Fr, &logs);
    assert_eq!(
        s.a_suivre,
        ["Modifications non commitées : `src/lexer.rs`, `src/parser.rs`"]
    );
    assert_eq!(
        s.a_suivre_done,
        ["Modifications non commitées : `src/lexer.rs`"]
    );
    let both = "## À suivre\n- Modifications non commitées : `src/lexer.rs`, `src/parser.rs`\n";
    let s = run_with(
        vec![t.clone()],
        Lang::Fr,
        &[("root".to_string(), both.to_string())],
    );
    assert!(s.a_suivre.is_empty() && s.a_suivre_done.is_empty(), "{s:?}");
    // Past three names it no longer knows all it holds: left as it is.
    let many = "## À suivre\n- Modifications non commitées : `a`, `b`, `c`, +2 autres\n";
    let s = run_with(
        vec![t.clone()],
        Lang::Fr,
        &[("root".to_string(), many.to_string())],
    );
    assert!(s.a_suivre.is_empty() && s.a_suivre_done.is_empty(), "{s:?}");
    // A commit the answer reports (made by a subagent): none left.
    t.answer = "Committed as `abc1234`.".into();
    assert!(run(vec![t.clone()]).a_suivre.is_empty());
    t.answer = "The fix is not committed yet.".into();
    assert!(!run(vec![t]).a_suivre.is_empty());
    // A later commit finishes it.
    let commit = lexer_commit();
    assert_eq!(
        run_with(vec![commit], Lang::Fr, &logs).a_suivre_done,
        ["Modifications non commitées : `src/lexer.rs`"]
    );
}

#[test]
fn the_question_the_last_answer_waits_on_is_open_until_the_next_turn() {
    let mut t = turn("why does the plugin not load in Cursor");
    t.answer = "Cursor does not scan that folder.\n\nWant me to set up one or both probes?".into();
    assert_eq!(
        run(vec![t.clone()]).a_suivre,
        ["Question en suspens : Want me to set up one or both probes?"]
    );
    assert_eq!(
        run_with(vec![t.clone()], Lang::En, &[]).a_suivre,
        ["Open question: Want me to set up one or both probes?"]
    );
    // Only the last turn of the job waits: an earlier one was answered.
    let mut next = turn("set up both");
    next.answer = "Both probes are in place.".into();
    assert!(run(vec![t.clone(), next.clone()]).a_suivre.is_empty());
    // Whatever the user says next closes an earlier Stop's question.
    let log = "## À suivre\n- Question en suspens : Want me to set up one or both probes?\n";
    let logs = vec![("root".to_string(), log.to_string())];
    let s = run_with(vec![next], Lang::Fr, &logs);
    assert_eq!(
        s.a_suivre_done,
        ["Question en suspens : Want me to set up one or both probes?"]
    );
    assert!(s.a_suivre.is_empty());
    // Asked again word for word: still the one open, neither closed nor doubled.
    let s = run_with(vec![t], Lang::Fr, &logs);
    assert!(s.a_suivre.is_empty() && s.a_suivre_done.is_empty(), "{s:?}");
}

/// One of the ways offered, named by its label or its name, is a pick; a
/// setting called an option is not.
#[test]
fn a_request_naming_an_offered_way_picks_it() {
    assert!(picks_a_way(
        "Adopt handleError using the runtime.Caller option"
    ));
    assert!(picks_a_way("Yeah for the plan we should do Option B"));
    assert!(!picks_a_way(
        "A segfault occurs when the option enable-job-taggers is set. Fix it."
    ));
    assert!(!picks_a_way("Add a --dry-run option to the export command"));
    for request in [
        "Add the --json option to the export command",
        "Remove the deprecated option from the CLI",
        "Use the same approach for the signup form",
    ] {
        assert!(!picks_a_way(request), "{request}");
    }
}

/// The request after a lead-in's colon is the goal; a colon inside code
/// or after a docstring's field name leads nothing in.
#[test]
fn a_request_after_a_lead_in_colon_is_the_goal() {
    assert_eq!(
        objective(
            "Hello buddy, welcome to the repo. Two initial taskings: read all the documentation and review the first issue.",
            true
        )
        .as_deref(),
        Some("Read all the documentation and review the first issue.")
    );
    assert_eq!(
        objective(
            "Imeplement `Rec 03: Unify the splitters` in review.md",
            true
        )
        .as_deref(),
        Some("Imeplement `Rec 03: Unify the splitters` in review.md")
    );
    assert_eq!(
        objective("Returns: List of working directories", false),
        None
    );
}

/// "Committed" denied or deferred a few words before is no commit made;
/// a request to make something work is no shipping; a short first
/// paragraph is context only when it is words.
#[test]
fn commits_said_denied_shipping_and_contexts() {
    for answer in [
        "The changes haven't been committed.",
        "Nothing has been committed yet.",
        "These were never actually committed.",
        "You can review before it gets committed.",
        "I committed nothing; the tree is as it was.",
    ] {
        assert!(!says_committed(answer), "{answer}");
    }
    assert!(says_committed("Committed as `abc1234` on main."));
    assert!(!is_shipping("make the push work"));
    assert_eq!(
        objective("ok\n\nnow add tests for the parser", false).as_deref(),
        None
    );
    let url_first = objective(
        "https://github.com/x/y/issues/12\n\nlook into it please",
        false,
    );
    assert!(!url_first.is_some_and(|g| g.starts_with("Https")));
}

/// An earlier day's uncommitted changes are stale: a commit today does
/// not finish them as a task.
#[test]
fn an_earlier_days_uncommitted_changes_are_not_finished_by_a_commit() {
    let x = with_earlier(
        vec![lexer_commit()],
        Lang::En,
        "Uncommitted changes: `src/lexer.rs`",
    );
    assert!(
        x.updates
            .iter()
            .all(|u| u.sections.finalise_earlier.is_empty()),
        "{x:?}"
    );
}

/// A later turn that only commits the lexer fix.
fn lexer_commit() -> Turn {
    let mut commit = turn("commit it");
    commit.first = false;
    commit.actions = vec![done(
        ActionKind::Commit,
        "Fix the lexer",
        "git commit -m 'Fix the lexer'",
        "",
    )];
    commit
}

/// A commit on a feature branch says where it is; one on the main line, or
/// with no branch recorded, does not. A review names the branch it reads.
#[test]
fn commits_and_reviews_name_their_feature_branch() {
    let mut commit = lexer_commit();
    commit.branch = Some("fix/lexer-tabs".into());
    assert_eq!(
        run(vec![commit.clone()]).travail,
        ["Commit « Fix the lexer » sur `fix/lexer-tabs`"]
    );
    // A backtick in a branch name would end the code span.
    commit.branch = Some("fix/`x".into());
    assert_eq!(
        run(vec![commit.clone()]).travail,
        ["Commit « Fix the lexer » sur `fix/'x`"]
    );
    commit.branch = Some("main".into());
    assert_eq!(run(vec![commit]).travail, ["Commit « Fix the lexer »"]);
    let mut review = turn("Review the branch and tell me what to fix");
    review.branch = Some("semantic-provider-contract".into());
    assert_eq!(
        run(vec![review]).objectif,
        ["Review the branch and tell me what to fix (branche `semantic-provider-contract`)"]
    );
}

/// Commits left unpushed, as the last `git status` said, are open until a
/// push; a later status replaces the count.
#[test]
fn unpushed_commits_are_open_until_a_push() {
    use crate::extract::digest::Ahead;
    let mut t = turn("what is left?");
    t.ahead = Some(Ahead {
        upstream: "origin/main".into(),
        commits: 2,
    });
    assert_eq!(
        run(vec![t.clone()]).a_suivre,
        ["Commits non poussés : 2 commits (`origin/main`)"]
    );
    let log = "## À suivre\n- Commits non poussés : 2 commits (`origin/main`)\n";
    let logs = vec![("root".to_string(), log.to_string())];
    let mut push = turn("push it");
    push.actions = vec![done(ActionKind::Push, "git push", "git push", "")];
    let s = run_with(vec![push], Lang::Fr, &logs);
    assert_eq!(
        s.a_suivre_done,
        ["Commits non poussés : 2 commits (`origin/main`)"]
    );
    // Deleting remote branches pushes no commit.
    let mut delete = turn("delete the merged branches");
    delete.actions = vec![done(
        ActionKind::Push,
        "git push --delete origin fix/a",
        "git push origin --delete fix/a",
        "",
    )];
    let s = run_with(vec![delete], Lang::Fr, &logs);
    assert!(s.a_suivre_done.is_empty(), "{s:?}");
    // Seen again unchanged: still the one open.
    let s = run_with(vec![t], Lang::Fr, &logs);
    assert!(s.a_suivre.is_empty() && s.a_suivre_done.is_empty(), "{s:?}");
}

/// A research turn's searches and pages are its context; a turn that
/// changed files has its work to tell instead.
#[test]
fn what_a_research_turn_looked_up_is_its_context() {
    let mut t = turn("what are Claude Code's response types?");
    t.kind = RequestKind::Question;
    t.web = vec![
        "Claude Code response types".into(),
        "https://docs.example.com/sdk/?x=1#types".into(),
    ];
    assert_eq!(
        run(vec![t.clone()]).contexte,
        ["Recherches web : « Claude Code response types », `docs.example.com/sdk`"]
    );
    t.files = vec![file("src/types.ts", Change::Updated)];
    assert!(
        run(vec![t])
            .contexte
            .iter()
            .all(|c| !c.starts_with("Recherches web"))
    );
}

/// What the user says is wrong before asking is a problem of its own: the
/// goal keeps only the ask.
#[test]
fn what_the_user_says_is_wrong_before_asking_is_a_problem() {
    let t = turn(
        "The username I am logged in with is jnarowski but the menu says Guest User. \
         We should use the initials from the username if name isn't present",
    );
    assert_eq!(
        run(vec![t]).problemes,
        [
            "Problème signalé : « The username I am logged in with is jnarowski but the menu says Guest User »"
        ]
    );
    // Good news said before the ask is none.
    for said in [
        "The name bids-utils is not yet taken on PyPI. Let's keep it as the CLI name",
        "The docs are fine but short. Can you add a usage section?",
    ] {
        assert!(run(vec![turn(said)]).problemes.is_empty(), "{said}");
    }
}

/// The items under an answer's "Key design decisions:" are the ways the
/// work took; the same list in an answer that changed nothing, or that
/// asks to go ahead, decided nothing yet.
#[test]
fn an_answer_s_list_of_decisions_is_told_after_the_work() {
    let answer = "The scaffold is complete.\n\n**Key design decisions:**\n\
        - **Commands** are `disable-model-invocation: true` — user-only slash commands\n\
        - **Existing scripts** stay in `scripts/` at plugin root\n\n\
        Ready for step 3?";
    let mut t = turn("scaffold the plugin");
    t.files = vec![file("hooks/hooks.json", Change::Created)];
    t.answer = answer.into();
    assert_eq!(
        run(vec![t.clone()]).decisions,
        [
            "Commands are `disable-model-invocation: true` — user-only slash commands",
            "Existing scripts stay in `scripts/` at plugin root"
        ]
    );
    t.files.clear();
    assert!(run(vec![t]).decisions.is_empty());
}

/// A plan the user turned down is a way not taken, with their reason when
/// they gave one; a plain call refused without a reason says nothing.
#[test]
fn a_plan_turned_down_is_a_decision_reason_or_none() {
    let mut t = turn("move the + button");
    t.declined = vec![
        Declined {
            tool: "ExitPlanMode".into(),
            target: "Web Worker Analysis".into(),
            reason: String::new(),
        },
        Declined {
            tool: "ExitPlanMode".into(),
            target: "Make Project Installable".into(),
            reason: "keep the name of the py file".into(),
        },
        Declined {
            tool: "Bash".into(),
            target: "git init".into(),
            reason: String::new(),
        },
    ];
    assert_eq!(
        run(vec![t.clone()]).decisions,
        [
            "Plan refusé : Web Worker Analysis",
            "Plan refusé : Make Project Installable — « keep the name of the py file »"
        ]
    );
    // Turned down without a word, then accepted as it was: the accepted one.
    t.declined.truncate(1);
    t.plan = Some("# Web Worker Analysis\n\nMove tokenising off the main thread.".into());
    let d = run(vec![t]).decisions;
    assert!(d.iter().all(|x| !x.starts_with("Plan refusé")), "{d:?}");
}

/// A task that asks ("Check the hooks. Does SessionStart have an agent
/// hook?") and changes nothing keeps its reply with what it answers.
#[test]
fn a_task_that_asks_keeps_the_question_with_its_reply() {
    let mut t = turn("Check the hooks configuration. Does SessionStart have an agent hook?");
    t.answer = "Yes, SessionStart has both a command hook and an agent hook. \
        The agent hook summarises pending files."
        .into();
    let k = run(vec![t.clone()]).connaissances;
    assert_eq!(
        k.first().map(String::as_str),
        Some(
            "Check the hooks configuration. Does SessionStart have an agent hook? → Yes, \
             SessionStart has both a command hook and an agent hook. The agent hook \
             summarises pending files."
        ),
        "{k:?}"
    );
    // A URL's `?` asks nothing.
    t.request = "Check https://example.com/api?id=3 returns the hooks".into();
    assert!(
        run(vec![t.clone()])
            .connaissances
            .iter()
            .all(|k| !k.contains(" → "))
    );
    // Asking nothing, the same reply is no question's answer.
    t.request = "Check the hooks configuration".into();
    assert!(
        run(vec![t])
            .connaissances
            .iter()
            .all(|k| !k.contains(" → "))
    );
}

/// A pull request opened is open until a later turn merges it, by
/// number, by a merge naming none, or by an answer saying it is merged;
/// `--auto` only queues the merge, and "once merged" is not merged.
#[test]
fn an_opened_pull_request_waits_until_merged() {
    let mut t = turn("open a PR");
    t.actions = vec![done(
        ActionKind::Push,
        "PR: chore: sync develop → main",
        "gh pr create --title x",
        "#45",
    )];
    t.answer = "PR #45 is open. Once #45 is merged, main and develop are identical.".into();
    let open = "PR en attente de fusion : #45 « chore: sync develop → main »";
    assert_eq!(run(vec![t.clone()]).a_suivre, [open]);
    let logs = vec![("root".to_string(), format!("## À suivre\n- {open}\n"))];
    let merge = |command: &str, detail: &str| {
        let mut m = turn("merge it");
        m.actions = vec![done(ActionKind::Merge, detail, command, "")];
        m
    };
    for closing in [
        merge("gh pr merge 45 --squash", "PR 45"),
        merge(
            "gh pr merge https://github.com/o/r/pull/45",
            "PR https://github.com/o/r/pull/45",
        ),
        merge("gh pr merge --squash", "PR "),
    ] {
        let s = run_with(vec![closing], Lang::Fr, &logs);
        assert_eq!(s.a_suivre_done, [open], "{s:?}");
    }
    let mut said = turn("is it in?");
    said.answer = "Yes: PR #45 is already merged (12 checks passed).".into();
    assert_eq!(run_with(vec![said], Lang::Fr, &logs).a_suivre_done, [open]);
    for still_open in [
        merge("gh pr merge 45 --auto --squash", "PR 45"),
        merge("gh pr merge 451", "PR 451"),
    ] {
        let s = run_with(vec![still_open], Lang::Fr, &logs);
        assert!(s.a_suivre_done.is_empty(), "{s:?}");
    }
    // Two open: a merge naming none merges the branch's own, not known.
    let other = "PR en attente de fusion : #46 « docs »";
    let two = vec![(
        "root".to_string(),
        format!("## À suivre\n- {open}\n- {other}\n"),
    )];
    let s = run_with(vec![merge("gh pr merge --squash", "PR ")], Lang::Fr, &two);
    assert!(s.a_suivre_done.is_empty(), "{s:?}");
    // Opened and merged in the same turn: nothing left open.
    let mut both = t;
    both.actions
        .push(done(ActionKind::Merge, "PR 45", "gh pr merge 45", ""));
    assert!(run(vec![both]).a_suivre.is_empty());
}

/// With no `git status` seen, an answer saying its new commits wait
/// ("Not pushed — commits only") leaves them open; saying it with no
/// commit made, or "nothing to push", does not.
#[test]
fn commits_the_answer_says_are_not_pushed_are_open() {
    let commit = done(
        ActionKind::Commit,
        "changelog: promote Unreleased to v0.5.0",
        "git commit -m x",
        "87a27bd",
    );
    let mut t = turn("update the CHANGELOG for 0.5.0");
    t.actions = vec![commit.clone()];
    t.branch = Some("authcode-loopback-flow".into());
    t.answer = "CHANGELOG promoted and committed.\n\nNot pushed — commit only.".into();
    assert_eq!(
        run(vec![t.clone()]).a_suivre,
        ["Commits non poussés sur `authcode-loopback-flow`"]
    );
    let mut no_commit = t.clone();
    no_commit.actions.clear();
    assert!(run(vec![no_commit]).a_suivre.is_empty());
    for said in [
        // Says a phrase of the list, but of nothing left to push.
        "Committed and already pushed: not pushed twice.",
        // Of something else than the commits.
        "Committed. The pre-push hook checks that secrets are not pushed.",
    ] {
        let mut other = t.clone();
        other.answer = said.into();
        assert!(run(vec![other]).a_suivre.is_empty(), "{said}");
    }
}

/// The cause the model gave right after a failure goes with its problem,
/// before the unresolved mark a later fix rewrites.
#[test]
fn a_failure_s_cause_goes_before_its_unresolved_mark() {
    let mut t = turn("run the tests");
    t.checks = vec![Check {
        passed: Some(1083),
        failed: Some(11),
        summary: "E 110 | EOF".into(),
        ..check_of("pytest", true, false)
    }];
    t.checks[0].cause =
        Some("The 11 errors are pre-existing Docker-in-Docker issues, not regressions.".into());
    let p = run(vec![t]).problemes;
    assert_eq!(
        p,
        [
            "Tests : 11 en échec (E 110 | EOF) — cause : The 11 errors are pre-existing \
          Docker-in-Docker issues, not regressions. (non résolu)"
        ]
    );
}

/// A commit is on the branch git printed, not the one the turn ended on.
#[test]
fn a_commit_is_on_the_branch_git_printed() {
    let mut t = turn("fix the merge conflicts");
    t.branch = Some("feat/teamcharter".into());
    let commit = |branch: Option<&str>| Action {
        branch: branch.map(str::to_owned),
        ..done(
            ActionKind::Commit,
            "merge: resolve conflicts",
            "git commit -m x",
            "a4253d1",
        )
    };
    t.actions = vec![
        commit(Some("develop")),
        commit(Some("merge/main-to-develop")),
    ];
    let s = run(vec![t]);
    assert!(
        s.travail.iter().any(|b| b.ends_with("(`a4253d1`)")),
        "{:?}",
        s.travail
    );
    assert!(
        s.travail
            .iter()
            .any(|b| b.ends_with("sur `merge/main-to-develop`")),
        "{:?}",
        s.travail
    );
    assert!(
        !s.travail.iter().any(|b| b.contains("feat/teamcharter")),
        "{:?}",
        s.travail
    );
}

/// What a choice led to is one statement of the answer's first line.
#[test]
fn a_choices_outcome_is_one_statement_of_the_answers_opening() {
    assert_eq!(
        choice_outcome("Done. Phase 12.1 inserted after Phase 12:\n\n- a").as_deref(),
        Some("Phase 12.1 inserted after Phase 12")
    );
    assert_eq!(
        choice_outcome("All tests pass. Summary of changes:\n\n| a |").as_deref(),
        Some("All tests pass")
    );
    assert_eq!(choice_outcome("Done."), None);
}

#[test]
fn a_command_shown_without_the_environment_it_runs_in() {
    assert_eq!(
        without_environment(
            r#"env -i HOME="$HOME" PATH="/a b:/bin" /opt/conda/bin/conda run -n flits python -m pytest -q"#
        ),
        "python -m pytest -q"
    );
    assert_eq!(without_environment("RUST_LOG=1 cargo test"), "cargo test");
    assert_eq!(without_environment("env -u X -- make"), "make");
    // Nothing left to show once the setup is gone: the line as it was.
    assert_eq!(without_environment("FOO=1"), "FOO=1");
    assert_eq!(without_environment("pytest -x"), "pytest -x");
}

fn test_check(command: &str, ok: bool, counts: (u64, u64), summary: &str) -> Check {
    Check {
        command: command.into(),
        test: true,
        ok,
        passed: Some(counts.0),
        failed: Some(counts.1),
        coverage: None,
        summary: summary.into(),
        fixed_in: Vec::new(),
        changed_after: false,
        cause: None,
    }
}

#[test]
fn a_failure_fixed_while_others_remain_is_two_problems() {
    let mut t = turn("finish the review fixes");
    t.files = vec![file("tests/test_bypass.py", Change::Updated)];
    let mut first = test_check(
        "uv run pytest tests/ -q",
        false,
        (827, 14),
        "tests/test_bypass.py::test_expired",
    );
    first.fixed_in = vec![format!("{ROOT}/tests/test_bypass.py")];
    // The narrower rerun is the one the model explains.
    let mut narrow = test_check(
        "uv run pytest tests/test_bypass.py -k expired",
        false,
        (0, 3),
        "tests/test_bypass.py::test_expired",
    );
    narrow.fixed_in = first.fixed_in.clone();
    narrow.cause = Some("naive and aware datetimes compared".into());
    t.checks = vec![
        first,
        narrow,
        test_check(
            "uv run pytest tests/test_bypass.py",
            true,
            (13, 0),
            "13 passed in 0.06s",
        ),
        test_check(
            "uv run pytest tests/ -q",
            false,
            (830, 11),
            "ERROR tests/test_docker.py::test_version",
        ),
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.problemes,
        [
            "Tests : 3 en échec (tests/test_bypass.py::test_expired) → corrigé en modifiant `tests/test_bypass.py` — cause : naive and aware datetimes compared",
            "Tests : 11 en échec, 830 réussis (ERROR tests/test_docker.py::test_version) (non résolu)",
        ]
    );

    // The same failure still there at the end: one open problem.
    let mut t = turn("fix the suite");
    let mut first = test_check("pytest", false, (10, 3), "tests/test_a.py::test_x");
    first.fixed_in = vec![format!("{ROOT}/src/a.py")];
    t.files = vec![file("src/a.py", Change::Updated)];
    t.checks = vec![
        first,
        test_check("pytest", false, (11, 2), "tests/test_a.py::test_x"),
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.problemes,
        ["Tests : 3 en échec (tests/test_a.py::test_x) (non résolu)"]
    );
}

#[test]
fn a_second_failure_on_the_way_to_the_fix_is_told_unless_in_the_same_file() {
    let fixed = |mut c: Check| {
        c.fixed_in = vec![format!("{ROOT}/test/reviews_test.exs")];
        c
    };
    let mut t = turn("live review updates");
    t.files = vec![file("test/reviews_test.exs", Change::Updated)];
    t.checks = vec![
        fixed(test_check(
            "mix test",
            false,
            (0, 1),
            "error: undefined variable \"payload\"",
        )),
        fixed(test_check(
            "mix test",
            false,
            (0, 1),
            "error: undefined function assert_broadcast/2",
        )),
        test_check("mix test", true, (6, 0), "6 tests, 0 failures"),
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.problemes,
        [
            "Tests : 1 en échec (error: undefined variable \"payload\"; puis error: undefined function assert_broadcast/2) → corrigé en modifiant `test/reviews_test.exs`"
        ]
    );

    // Another test of the same file failing next adds nothing.
    let mut t = turn("fix the link");
    t.files = vec![file("test/reviews_test.exs", Change::Updated)];
    t.checks = vec![
        fixed(test_check(
            "pytest",
            false,
            (3, 2),
            "test/test_link.py::test_empty",
        )),
        fixed(test_check(
            "pytest",
            false,
            (4, 1),
            "test/test_link.py::test_other",
        )),
        test_check("pytest", true, (5, 0), ""),
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.problemes,
        [
            "Tests : 2 en échec (test/test_link.py::test_empty) → corrigé en modifiant `test/reviews_test.exs`"
        ]
    );
}

#[test]
fn pushes_of_one_branch_in_a_row_are_one_bullet_whose_range_grows() {
    let push = |range: &str| Action {
        kind: ActionKind::Push,
        detail: "git push".into(),
        command: "git push".into(),
        ok: true,
        id: "main".into(),
        skipped_hooks: false,
        range: Some(range.into()),
        branch: None,
    };
    let commit = |id: &str| Action {
        kind: ActionKind::Commit,
        detail: format!("fix {id}"),
        command: "git commit -m x".into(),
        ok: true,
        id: id.into(),
        skipped_hooks: false,
        range: None,
        branch: None,
    };
    // In one turn: after the commits it covers.
    let mut t = turn("ship it");
    t.actions = vec![
        commit("981f2fd"),
        push("2734b4c..981f2fd"),
        commit("769fc1b"),
        push("981f2fd..769fc1b"),
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.travail,
        [
            "Commit « fix 981f2fd » (`981f2fd`)",
            "Commit « fix 769fc1b » (`769fc1b`)",
            "Poussé `git push` → `main` (`2734b4c..769fc1b`)",
        ]
    );
    // Pushed earlier today: that bullet is revised.
    let was = "Poussé `git push` → `main` (`2734b4c..981f2fd`)";
    let logs = vec![("root".to_string(), format!("## Travail produit\n- {was}\n"))];
    let mut t = turn("ship it");
    t.actions = vec![push("981f2fd..769fc1b")];
    let s = run_with(vec![t.clone()], Lang::Fr, &logs);
    assert!(s.travail.is_empty(), "{:?}", s.travail);
    assert_eq!(
        s.travail_revise,
        [Revision {
            was: was.into(),
            now: "Poussé `git push` → `main` (`2734b4c..769fc1b`)".into(),
        }]
    );
    // A push that does not start where that one ended stands alone.
    t.actions = vec![push("aaaaaaa..bbbbbbb")];
    let s = run_with(vec![t], Lang::Fr, &logs);
    assert!(s.travail_revise.is_empty());
    assert_eq!(
        s.travail,
        ["Poussé `git push` → `main` (`aaaaaaa..bbbbbbb`)"]
    );
}

#[test]
fn a_test_run_that_passed_another_way_says_which() {
    let mut t = turn("sweep tests");
    let mut failed = test_check("tox 2>&1", false, (0, 0), "command not found: tox");
    failed.passed = None;
    failed.failed = None;
    t.checks = vec![
        failed.clone(),
        test_check(
            "uv run tox 2>&1",
            true,
            (1111, 0),
            "Success: no issues found",
        ),
    ];
    let s = run(vec![t.clone()]);
    assert_eq!(
        s.problemes,
        ["Tests en échec (command not found: tox) → 1111 réussis (résolu avec `uv run tox`)"]
    );
    // Run again the same way: the count is the news, not the command.
    t.checks[1].command = "tox 2>&1".into();
    failed.summary = "error: flaky network".into();
    t.checks[0] = failed;
    let s = run(vec![t]);
    assert_eq!(
        s.problemes,
        ["Tests en échec (error: flaky network) → 1111 réussis"]
    );
}

#[test]
fn a_point_by_point_answer_to_what_was_offered_is_a_decision() {
    let mut t = turn("let's apply the fixes you suggest:\n\n1. fail loud.\n\n2. leave it alone.");
    t.first = false;
    let s = run(vec![t]);
    assert!(s.objectif.is_empty(), "{:?}", s.objectif);
    assert_eq!(
        s.decisions,
        [
            "Consigne de l'utilisateur : « Let's apply the fixes you suggest: 1. fail loud; 2. leave it alone »"
        ]
    );
    // A list that is the work asked for is the goal, with its items.
    let t = turn("Please add these checks:\n- lint on push\n- tests on PR");
    let s = run(vec![t]);
    assert!(s.decisions.is_empty(), "{:?}", s.decisions);
    assert_eq!(s.objectif, ["Add these checks: lint on push; tests on PR"]);
    // A long list, or one of code, is not shown.
    let t = turn("Please fix these:\n\n1. `a.rs` fails with `E0382`\n2. the docs are stale");
    let s = run(vec![t]);
    assert!(
        s.objectif.iter().all(|g| !g.contains("E0382")),
        "{:?}",
        s.objectif
    );
}

#[test]
fn the_same_program_denied_twice_is_one_refusal() {
    let denied = |cmd: &str| ToolError {
        tool: "Bash".into(),
        target: cmd.into(),
        message: format!("Permission to use Bash with command {cmd} has been denied."),
        resolved: false,
        fixed_in: vec![],
        resolved_by: None,
        cause: None,
    };
    let mut t = turn("fix the merge");
    t.errors = vec![
        denied("git reset --hard HEAD~1"),
        denied("git reset --hard 7642e85"),
        denied("rm -rf build"),
    ];
    let s = run(vec![t]);
    assert_eq!(
        s.problemes,
        [
            "Bash : Permission to use Bash with command `git reset --hard HEAD~1`, `git reset --hard 7642e85` has been denied. (non résolu)",
            "`rm -rf build` : Permission to use Bash with command rm -rf build has been denied. (non résolu)",
        ]
    );
}

#[test]
fn a_goal_that_only_says_to_go_on_is_left_out() {
    for said in [
        "Run it",
        "Do that",
        "Apply the edits",
        "Continue implementation",
        "Can you commit?",
        "Commit and continue",
        "Can you push",
    ] {
        let mut t = turn(said);
        t.first = false;
        let s = run(vec![t]);
        assert!(s.objectif.is_empty(), "{said}: {:?}", s.objectif);
    }
    // A review of "the changes" is one, said with its branch.
    let mut t = turn("Review the changes");
    t.first = false;
    t.branch = Some("fix/race".into());
    let s = run(vec![t]);
    assert_eq!(s.objectif, ["Review the changes (branche `fix/race`)"]);
    // Naming what is run or fixed is a goal.
    for said in ["Run the migration script", "Fix the flaky login test"] {
        let mut t = turn(said);
        t.first = false;
        let s = run(vec![t]);
        assert_eq!(s.objectif, [said], "{said}");
    }
}

#[test]
fn a_test_run_is_shown_without_what_the_line_does_around_it() {
    let mut t = turn("fix the race");
    t.files = vec![file("authcode/authcode.go", Change::Updated)];
    t.checks = vec![test_check(
        "echo \"=== tests ===\" && go test -race ./... 2>&1 | tail -15 && git add -A && git commit -m x",
        true,
        (9, 0),
        "",
    )];
    let s = run(vec![t]);
    assert!(
        s.travail
            .contains(&"Tests : 9 réussis (`go test -race ./...`)".to_string()),
        "{:?}",
        s.travail
    );
}

#[test]
fn one_line_running_the_tests_and_the_linter_is_one_bullet() {
    let mut t = turn("fix the race");
    t.files = vec![file("authcode/authcode.go", Change::Updated)];
    let line = "go test ./internal/... && mise run lint";
    let mut lint = test_check(line, true, (0, 0), "Finished in 2.7s");
    lint.test = false;
    (lint.passed, lint.failed) = (None, None);
    t.checks = vec![test_check(line, true, (12, 0), ""), lint];
    let s = run(vec![t]);
    assert_eq!(
        s.travail,
        [
            "Modifié `authcode/authcode.go`",
            "Tests : 12 réussis (`go test ./internal/... && mise run lint`)"
        ]
    );
}

#[test]
fn the_shell_refusing_twice_in_a_turn_is_one_problem() {
    let globbed = |cmd: &str| ToolError {
        tool: "Bash".into(),
        target: cmd.into(),
        message: format!("(eval):1: no matches found: {cmd}"),
        resolved: true,
        fixed_in: vec![],
        resolved_by: Some("gh api 'repos/o/r?ref=x'".into()),
        cause: None,
    };
    let mut t = turn("review PR 36");
    t.errors = vec![
        globbed("repos/o/r/a.go?ref=x"),
        globbed("repos/o/r/go.mod?ref=x"),
    ];
    let s = run(vec![t]);
    assert_eq!(s.problemes.len(), 1, "{:?}", s.problemes);
    assert!(s.problemes[0].contains("a.go?ref=x"), "{:?}", s.problemes);
}

#[test]
fn a_long_review_command_keeps_the_branch_it_reviews() {
    let mut t = turn(&format!(
        "/review /security-review\n/simplify\n\nScope: review the commits unique to this branch vs origin/main, {}",
        "plus any uncommitted changes in the working tree, ignoring code outside this scope entirely. ".repeat(3)
    ));
    t.kind = RequestKind::Command;
    t.tool_calls = 3;
    t.branch = Some("semantic-provider-contract".into());
    let s = run(vec![t]);
    assert_eq!(s.objectif.len(), 1, "{:?}", s.objectif);
    assert!(
        s.objectif[0].ends_with("(branche `semantic-provider-contract`)"),
        "{:?}",
        s.objectif
    );
}
