use super::*;
use serde_json::json;

fn build(lines: &[serde_json::Value]) -> Vec<Turn> {
    let texts: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut b = Builder::new(&NoSubagents);
    for t in &texts {
        if let Some(r) = Record::parse(t.as_bytes()) {
            b.feed(&r);
        }
    }
    b.finish()
}

fn user(text: &str) -> serde_json::Value {
    json!({"type":"user","message":{"role":"user","content":text},"timestamp":"2026-12-01T10:00:00Z"})
}

fn calls(calls: &[(&str, &str, serde_json::Value)]) -> serde_json::Value {
    let blocks: Vec<_> = calls
        .iter()
        .map(|(id, name, input)| json!({"type":"tool_use","id":id,"name":name,"input":input}))
        .collect();
    json!({"type":"assistant","message":{"role":"assistant","content":blocks}})
}

fn result(id: &str, text: &str, error: bool, tur: serde_json::Value) -> serde_json::Value {
    json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":id,"content":text,"is_error":error}]},"toolUseResult":tur})
}

fn say(text: &str) -> serde_json::Value {
    json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":text}]}})
}

#[test]
fn writes_are_created_or_updated_as_the_client_says() {
    let turns = build(&[
        user("write the docs"),
        calls(&[
            ("1", "Write", json!({"file_path":"/p/README.md"})),
            ("2", "Write", json!({"file_path":"/p/new.md"})),
            ("3", "Edit", json!({"file_path":"/p/lib.rs"})),
            ("4", "Edit", json!({"file_path":"/p/broken.rs"})),
        ]),
        result(
            "1",
            "ok",
            false,
            json!({"type":"update","filePath":"/p/README.md"}),
        ),
        result(
            "2",
            "ok",
            false,
            json!({"type":"create","filePath":"/p/new.md"}),
        ),
        result("3", "ok", false, json!({})),
        result(
            "4",
            "<tool_use_error>String to replace not found in file.</tool_use_error>",
            true,
            json!("Error"),
        ),
        say("Done."),
    ]);
    assert_eq!(turns.len(), 1);
    let t = &turns[0];
    let files: Vec<(&str, Change)> = t
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.change))
        .collect();
    assert_eq!(
        files,
        [
            ("/p/README.md", Change::Updated),
            ("/p/new.md", Change::Created),
            ("/p/lib.rs", Change::Updated)
        ]
    );
    assert!(
        t.errors.is_empty(),
        "the model's own slip is no problem: {:?}",
        t.errors
    );
    assert_eq!(t.answer, "Done.");
}

#[test]
fn an_error_is_paired_with_the_fix_that_made_it_pass() {
    let turns = build(&[
        user("make the build pass"),
        calls(&[("1", "Bash", json!({"command":"cd /p && cargo build"}))]),
        result(
            "1",
            "Exit code 101\nerror[E0425]: cannot find value `x`",
            true,
            json!("Error"),
        ),
        calls(&[("2", "Edit", json!({"file_path":"/p/src/main.rs"}))]),
        result("2", "ok", false, json!({})),
        calls(&[("3", "Bash", json!({"command":"cd /p && cargo build"}))]),
        result(
            "3",
            "Finished",
            false,
            json!({"stdout":"Finished dev","stderr":""}),
        ),
        calls(&[("4", "Bash", json!({"command":"./deploy.sh"}))]),
        result(
            "4",
            "Exit code 1\nfatal: remote rejected",
            true,
            json!("Error"),
        ),
    ]);
    let checks = &turns[0].checks;
    assert_eq!(checks.len(), 2);
    assert!(!checks[0].ok && checks[1].ok);
    assert!(
        checks[0].summary.contains("cannot find value"),
        "{checks:?}"
    );
    let e = &turns[0].errors;
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].target, "./deploy.sh");
    assert_eq!(e[0].message, "fatal: remote rejected");
    assert!(!e[0].resolved);

    let turns = build(&[
        user("run the script"),
        calls(&[("1", "Bash", json!({"command":"python3 tool.py"}))]),
        result(
            "1",
            "Exit code 1\nTraceback (most recent call last):\n  File \"tool.py\", line 3\nModuleNotFoundError: No module named 'yaml'",
            true,
            json!("Error"),
        ),
        calls(&[("2", "Edit", json!({"file_path":"/p/tool.py"}))]),
        result("2", "ok", false, json!({})),
        calls(&[("3", "Bash", json!({"command":"python3 tool.py --check"}))]),
        result("3", "ok", false, json!({"stdout":"fine"})),
    ]);
    let e = &turns[0].errors[0];
    assert_eq!(e.message, "ModuleNotFoundError: No module named 'yaml'");
    assert!(e.resolved);
    assert_eq!(e.fixed_in, ["/p/tool.py"]);
}

#[test]
fn refusals_and_interruptions_are_what_they_are() {
    let turns = build(&[
        user("commit it"),
        calls(&[("1", "Bash", json!({"command":"git commit -m wip"}))]),
        // 2.0.x: the user's words in place of the result.
        result(
            "1",
            "please add transformer.js too first",
            true,
            json!("Error: please add transformer.js too first"),
        ),
        user("[Request interrupted by user for tool use]"),
        user("ok now add it and commit"),
        calls(&[(
            "2",
            "Bash",
            json!({"command":"git add transformer.js && git commit -m \"Add transformer.js\""}),
        )]),
        result(
            "2",
            "[main 1a2b3c4] Add transformer.js",
            false,
            json!({"stdout":"[main 1a2b3c4] Add transformer.js"}),
        ),
        say("Committed."),
        user("now refactor the parser"),
        calls(&[("3", "Edit", json!({"file_path":"/p/parser.rs"}))]),
        user("[Request interrupted by user]"),
    ]);
    assert_eq!(turns.len(), 3);
    assert!(turns[0].errors.is_empty());
    assert_eq!(
        turns[0].declined[0].reason,
        "please add transformer.js too first"
    );
    assert!(
        !turns[0].interrupted,
        "the marker after a refusal is the refusal"
    );
    assert!(turns[1].after_refusal);
    assert_eq!(
        turns[1].actions[0].kind,
        crate::extract::digest::ActionKind::Commit
    );
    assert_eq!(turns[1].actions[0].detail, "Add transformer.js");
    assert!(turns[2].interrupted);
    assert!(
        turns[2].files.is_empty(),
        "a call with no result changed nothing"
    );
}

/// A shell's or a core utility's complaint reads like a sentence, yet is
/// a failure, not the user typing in the permission prompt (1.0.x wrote
/// both as `Error: …`).
#[test]
fn a_shell_s_complaint_is_an_error_not_the_user_declining() {
    let mut records = vec![user("move the sources to src")];
    for (id, command, said) in [
        (
            "1",
            "mv data-capture/*.ts src/",
            "(eval):1: no matches found: data-capture/*.ts",
        ),
        (
            "2",
            "cd .. && mv data-capture/*.ts src/",
            "mv: src/ is not a directory",
        ),
        (
            "3",
            "rmdir data-capture/node_modules",
            "rmdir: data-capture/node_modules: Directory not empty",
        ),
    ] {
        records.push(calls(&[(id, "Bash", json!({ "command": command }))]));
        records.push(result(id, said, true, json!(format!("Error: {said}"))));
    }
    // The user's own words in the prompt, errno phrase or not.
    let said = [
        "no: keep build, remove dist instead",
        "no, that folder does not exist anymore, use src/app",
        "not permitted here, ask me first",
    ];
    for (i, words) in said.iter().enumerate() {
        let id = format!("u{i}");
        records.push(calls(&[(
            id.as_str(),
            "Bash",
            json!({"command":"rm -rf build"}),
        )]));
        records.push(result(&id, words, true, json!(format!("Error: {words}"))));
    }
    records.push(say("Moved."));
    let turns = build(&records);
    assert_eq!(turns[0].errors.len(), 3, "{:?}", turns[0].errors);
    let reasons: Vec<&str> = turns[0]
        .declined
        .iter()
        .map(|d| d.reason.as_str())
        .collect();
    assert_eq!(reasons, said, "{:?}", turns[0].declined);
}

/// A turn's web searches and the pages it fetched are what it looked up,
/// once each; a failed fetch looked up nothing.
#[test]
fn web_searches_and_fetches_are_what_the_turn_looked_up() {
    let turns = build(&[
        user("what are Claude Code's response types?"),
        calls(&[
            (
                "1",
                "WebSearch",
                json!({"query":"Claude Code response types"}),
            ),
            (
                "2",
                "WebFetch",
                json!({"url":"https://docs.example.com/sdk?x=1","prompt":"types"}),
            ),
            (
                "3",
                "WebSearch",
                json!({"query":"Claude Code response types"}),
            ),
            (
                "4",
                "WebFetch",
                json!({"url":"https://down.example.com/","prompt":"types"}),
            ),
        ]),
        result(
            "1",
            "Links: …",
            false,
            json!({"query":"Claude Code response types"}),
        ),
        result("2", "The SDK has types.", false, json!({"code":200})),
        result(
            "3",
            "Links: …",
            false,
            json!({"query":"Claude Code response types"}),
        ),
        result(
            "4",
            "Request failed with status code 503",
            true,
            json!("Error: 503"),
        ),
        say("It has TypeScript types."),
    ]);
    assert_eq!(
        turns[0].web,
        [
            "Claude Code response types",
            "https://docs.example.com/sdk?x=1"
        ]
    );
}

/// Piped into `head`, a program refusing its options exits 0: its only
/// say is the refusal, which is a failure; a long output naming one is not.
#[test]
fn a_piped_program_refusing_its_options_failed() {
    let turns = build(&[
        user("test the plugin"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"claude --plugin-dir . -p \"list skills\" --no-input 2>&1 | head -50"}),
        )]),
        result(
            "1",
            "error: unknown option '--no-input'",
            false,
            json!({"stdout":"error: unknown option '--no-input'","stderr":""}),
        ),
        calls(&[("2", "Bash", json!({"command":"cat notes.txt | head"}))]),
        result(
            "2",
            "a\nb\nc\nerror: unknown option is what the old tool said\nd",
            false,
            json!({"stdout":"a\nb\nc\nerror: unknown option is what the old tool said\nd","stderr":""}),
        ),
        say("The flag does not exist."),
    ]);
    let e = &turns[0].errors;
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].message, "error: unknown option '--no-input'");
}

/// A 1.0.x client wrote a refusal only as its own sentence: a short
/// failure of its reads like prose, yet is no user's words; a 2.0.x one
/// may put the user's words in the result's place.
#[test]
fn an_old_client_s_short_failure_is_no_refusal() {
    let turn_of = |version: &str| {
        let mut u = user("find the folder");
        u["version"] = json!(version);
        let mut r = result(
            "1",
            "the old project folder moved somewhere else today",
            true,
            json!("Error: the old project folder moved somewhere else today"),
        );
        r["version"] = json!(version);
        build(&[
            u,
            calls(&[("1", "Bash", json!({"command":"mv app ~/projects/app"}))]),
            r,
            say("It is gone."),
        ])
    };
    let old = turn_of("1.0.89");
    assert!(old[0].declined.is_empty(), "{:?}", old[0].declined);
    assert_eq!(old[0].errors.len(), 1, "{:?}", old[0].errors);
    let newer = turn_of("2.0.28");
    assert_eq!(newer[0].declined.len(), 1, "{:?}", newer[0]);
}

/// A server run under a time limit, killed by it once it said it was up,
/// did not fail; one killed before, or after an error, did.
#[test]
fn a_server_killed_by_the_time_limit_once_up_did_not_fail() {
    let up = "Command timed out after 10s (node:63503) ExperimentalWarning: Type Stripping is experimental\n\
        (Use `node --trace-warnings ...` to show where the warning was created)\n\
        info: Data Capture Service started successfully";
    let crashed = "Command timed out after 10s\nlistening on :8080\nError: connect ECONNREFUSED 127.0.0.1:5432";
    let hung = "Command timed out after 2m 0.0s";
    let busy = "Command timed out after 2m\nPort 3000 already in use, retrying in 5s";
    let mut records = vec![user("start it")];
    for (id, said) in [("1", up), ("2", crashed), ("3", hung), ("4", busy)] {
        records.push(calls(&[(id, "Bash", json!({"command":"npm start"}))]));
        records.push(result(id, said, true, json!(format!("Error: {said}"))));
    }
    records.push(say("It starts."));
    let turns = build(&records);
    let e = &turns[0].errors;
    assert_eq!(e.len(), 3, "{e:?}");
    assert!(
        e.iter().all(|e| !e.message.contains("ExperimentalWarning")),
        "{e:?}"
    );
}

/// A deletion that failed is got past by the later one that removed the
/// same thing (the folder holding it, or the file by its full path).
#[test]
fn a_failed_deletion_is_resolved_by_the_one_that_removed_it() {
    let turns = build(&[
        user("drop the old folder"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"rmdir data/node_modules && rmdir data"}),
        )]),
        result(
            "1",
            "rmdir: data/node_modules: Directory not empty",
            true,
            json!("Error: rmdir: data/node_modules: Directory not empty"),
        ),
        calls(&[("2", "Bash", json!({"command":"rm old.js"}))]),
        result(
            "2",
            "rm: old.js: No such file or directory",
            true,
            json!("Error: rm: old.js: No such file or directory"),
        ),
        calls(&[("3", "Bash", json!({"command":"rm -rf data"}))]),
        result("3", "", false, json!({"stdout":"","stderr":""})),
        calls(&[("4", "Bash", json!({"command":"rm lib/old.js"}))]),
        result("4", "", false, json!({"stdout":"","stderr":""})),
        calls(&[(
            "7",
            "Bash",
            json!({"command":"rm -rf /srv/app/node_modules"}),
        )]),
        result(
            "7",
            "rm: /srv/app/node_modules: Permission denied",
            true,
            json!("Error: rm: /srv/app/node_modules: Permission denied"),
        ),
        calls(&[("8", "Bash", json!({"command":"rm -rf web/node_modules"}))]),
        result("8", "", false, json!({"stdout":"","stderr":""})),
        calls(&[("5", "Bash", json!({"command":"rm keep.txt"}))]),
        result(
            "5",
            "rm: keep.txt: Permission denied",
            true,
            json!("Error: rm: keep.txt: Permission denied"),
        ),
        calls(&[("6", "Bash", json!({"command":"rm other.txt"}))]),
        result("6", "", false, json!({"stdout":"","stderr":""})),
        say("Done."),
    ]);
    let e = &turns[0].errors;
    assert_eq!(e.len(), 4, "{e:?}");
    assert!(
        e[0].resolved && e[0].resolved_by.as_deref() == Some("rm -rf data"),
        "{e:?}"
    );
    assert!(e[1].resolved && e[1].resolved_by.as_deref() == Some("rm lib/old.js"));
    // Another folder of the same name is not the one refused.
    assert!(!e[2].resolved, "{:?}", e[2]);
    // Removing another file gets past nothing.
    assert!(!e[3].resolved, "{:?}", e[3]);
}

/// The client's own refusals of a call (a file changed since it was read,
/// a parallel call that failed) are never the user declining; a file
/// changed under the model (a formatter hook, the user's editor) is one
/// problem of the turn, whatever the files, and a parallel call that
/// failed is none.
#[test]
fn the_client_s_refusals_are_not_the_user_s() {
    let turns = build(&[
        user("wire the channel"),
        calls(&[
            ("1", "Edit", json!({"file_path":"/p/lib/live.ex"})),
            ("2", "Edit", json!({"file_path":"/p/lib/other.ex"})),
        ]),
        result(
            "1",
            "<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>",
            true,
            json!("Error: File has been modified since read"),
        ),
        result(
            "2",
            "<tool_use_error>Sibling tool call errored</tool_use_error>",
            true,
            json!("Sibling tool call errored"),
        ),
        // 2.1.4x: no `<tool_use_error>` wrapper, and prose a user could
        // have typed.
        calls(&[("4", "Edit", json!({"file_path":"/p/CLAUDE.md"}))]),
        result(
            "4",
            "File has been unexpectedly modified. Read it again before attempting to write it.",
            true,
            json!("Error: File has been unexpectedly modified."),
        ),
        calls(&[("3", "Bash", json!({"command":"mix compile"}))]),
        result(
            "3",
            "<tool_use_error>Cancelled: a plain few words here</tool_use_error>",
            true,
            json!("x"),
        ),
        say("Done."),
    ]);
    assert!(turns[0].declined.is_empty(), "{:?}", turns[0].declined);
    let messages: Vec<&str> = turns[0].errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "File has been modified since read, either by the user or by a linter.",
            "Cancelled: a plain few words here"
        ]
    );
}

#[test]
fn todos_plans_choices_and_subagents() {
    struct One;
    impl SubagentFiles for One {
        fn files(&self, id: &str) -> Vec<FileChange> {
            assert_eq!(id, "a1b2");
            vec![FileChange {
                path: "/p/src/hooks/useTodos.ts".into(),
                change: Change::Created,
                from: None,
            }]
        }
    }
    let texts: Vec<String> = [
        user("build the app"),
        calls(&[("1", "TodoWrite", json!({"todos":[{"content":"Scaffold","status":"completed"},{"content":"Write tests","status":"pending"}]}))]),
        result("1", "ok", false, json!({})),
        calls(&[("2", "ExitPlanMode", json!({"plan":"# Plan: Add tar support\n\n1. …"}))]),
        result("2", "User has approved your plan.", false, json!({"plan":"# Plan: Add tar support\n\n1. …"})),
        calls(&[("3", "AskUserQuestion", json!({}))]),
        result("3", "answered", false, json!({"answers":{"Which formats?":"Also .tgz"}})),
        calls(&[("4", "Task", json!({"description":"Create hooks","prompt":"…"}))]),
        result("4", "Created the useTodos hook.\nagentId: a1b2", false, json!({"agentId":"a1b2","status":"completed"})),
        calls(&[("5", "Task", json!({"description":"evil","prompt":"…"}))]),
        result("5", "x", false, json!({"agentId":"../../etc/passwd"})),
    ]
    .iter()
    .map(|l| l.to_string())
    .collect();
    let mut b = Builder::new(&One);
    for t in &texts {
        b.feed(&Record::parse(t.as_bytes()).unwrap());
    }
    let t = &b.finish()[0];
    assert_eq!(t.todos.len(), 2);
    assert_eq!(t.todos[1].status, TodoStatus::Pending);
    assert_eq!(t.plan.as_deref(), Some("# Plan: Add tar support\n\n1. …"));
    assert_eq!(t.choices[0].answer, "Also .tgz");
    assert_eq!(t.subagents[0].description, "Create hooks");
    assert_eq!(t.subagents[0].report, "Created the useTodos hook.");
    assert_eq!(t.subagents[0].files[0].path, "/p/src/hooks/useTodos.ts");
    assert!(
        t.subagents[1].files.is_empty(),
        "an unsafe agent id names no file"
    );
}

#[test]
fn ide_context_local_commands_and_rebased_paths() {
    let texts: Vec<String> = [
        json!({"type":"user","cwd":"/Users/x/proj","message":{"content":"<command-name>/clear</command-name><command-args></command-args>"}}),
        json!({"type":"user","message":{"content":"<local-command-stdout></local-command-stdout>"}}),
        json!({"type":"user","message":{"content":[{"type":"text","text":"<ide_opened_file>The user opened the file /Users/x/proj/a.py in the IDE.</ide_opened_file>"},{"type":"text","text":"rename the helper"}]}}),
        calls(&[("1", "Edit", json!({"file_path":"/Users/x/proj/a.py"})), ("2", "Bash", json!({"command":"git mv old.py new.py"}))]),
        result("1", "ok", false, json!({})),
        result("2", "", false, json!({"stdout":""})),
    ]
    .iter()
    .map(|l| l.to_string())
    .collect();
    let mut b =
        Builder::new(&NoSubagents).rebased_onto(None, Some(std::path::Path::new("/home/me/proj")));
    for t in &texts {
        b.feed(&Record::parse(t.as_bytes()).unwrap());
    }
    let turns = b.finish();
    assert_eq!(turns.len(), 1, "/clear ran locally: not a turn");
    assert!(
        !turns[0].first,
        "this builder was not told the session starts here"
    );
    let t = &turns[0];
    assert_eq!(t.request, "rename the helper");
    assert_eq!(t.ide, ["opened: /Users/x/proj/a.py"]);
    assert_eq!(t.files[0].path, "/home/me/proj/a.py");
    assert_eq!(t.files[1].path, "/home/me/proj/new.py");
    assert_eq!(t.files[1].from.as_deref(), Some("/home/me/proj/old.py"));
}

#[test]
fn note_change_merges_a_files_story() {
    let mut f = Vec::new();
    note_change(&mut f, "a", Change::Created, None);
    note_change(&mut f, "a", Change::Updated, None);
    assert_eq!(f[0].change, Change::Created);
    note_change(&mut f, "a", Change::Deleted, None);
    assert!(f.is_empty(), "created then deleted: nothing happened");
    note_change(&mut f, "b", Change::Updated, None);
    note_change(&mut f, "b", Change::Deleted, None);
    assert_eq!(f[0].change, Change::Deleted);
}

#[test]
fn huge_turns_keep_bounded_lists() {
    let paths: Vec<String> = (0..20_000).map(|i| format!("f{i}.txt")).collect();
    let cmd = format!("rm {}", paths.join(" "));
    let turns = build(&[
        user("clean up"),
        calls(&[("1", "Bash", json!({"command": cmd}))]),
        result("1", "", false, json!({"stdout":""})),
    ]);
    assert_eq!(turns[0].files.len(), BUILD_CAP);
}

#[test]
fn lines_are_kept_whole_for_the_redactor_to_see() {
    let secret = "AKIAIOSFODNN7EXAMPLE";
    let line = format!("{} {secret}", "Error: upload failed for key".repeat(7));
    let turns = build(&[
        user("deploy"),
        calls(&[("1", "Bash", json!({"command":"./upload.sh"}))]),
        result("1", &format!("Exit code 1\n{line}"), true, json!("Error")),
    ]);
    assert!(
        turns[0].errors[0].message.ends_with(secret),
        "{:?}",
        turns[0].errors
    );
}

#[test]
fn a_local_clear_leaves_the_first_request_to_come() {
    let texts: Vec<String> = [
        json!({"type":"user","message":{"content":"<command-name>/clear</command-name><command-args></command-args>"}}),
        json!({"type":"user","message":{"content":"<local-command-stdout></local-command-stdout>"}}),
        user("We've just done a big refactoring and the browser tests are failing."),
    ]
    .iter()
    .map(|l| l.to_string())
    .collect();
    let mut b = Builder::new(&NoSubagents).starts_session();
    for t in &texts {
        b.feed(&Record::parse(t.as_bytes()).unwrap());
    }
    let turns = b.finish();
    assert_eq!(turns.len(), 1);
    assert!(
        turns[0].first,
        "the session's first real request is its goal"
    );
}

#[test]
fn newer_clients_task_lists_are_the_turns_todos() {
    let turns = build(&[
        user("plan the research"),
        calls(&[
            ("1", "TaskCreate", json!({"subject":"Research plan mode"})),
            ("2", "TaskCreate", json!({"subject":"Write the comparison"})),
        ]),
        result(
            "1",
            "Task #1 created successfully: Research plan mode",
            false,
            json!({"task":{"id":"1"}}),
        ),
        result(
            "2",
            "Task #2 created successfully: Write the comparison",
            false,
            json!({"task":{"id":"2"}}),
        ),
        calls(&[(
            "3",
            "TaskUpdate",
            json!({"taskId":"1","status":"completed"}),
        )]),
        result(
            "3",
            "Updated task #1 status",
            false,
            json!({"success":true}),
        ),
    ]);
    let todos: Vec<(&str, TodoStatus)> = turns[0]
        .todos
        .iter()
        .map(|t| (t.text.as_str(), t.status))
        .collect();
    assert_eq!(
        todos,
        [
            ("Research plan mode", TodoStatus::Completed),
            ("Write the comparison", TodoStatus::Pending)
        ]
    );
}

#[test]
fn a_1_0_client_s_sidechains_are_each_their_task_s_work() {
    let side = |uuid: &str, parent: Option<&str>, mut v: serde_json::Value| {
        v["isSidechain"] = json!(true);
        v["uuid"] = json!(uuid);
        v["parentUuid"] = json!(parent);
        v
    };
    let lines = vec![
        user("Build the app"),
        calls(&[
            (
                "t1",
                "Task",
                json!({"description":"Setup","prompt":"Create the project"}),
            ),
            (
                "t2",
                "Task",
                json!({"description":"Hooks","prompt":"Write the hooks"}),
            ),
        ]),
        // Two subagents running at once: their records interleave.
        side("a1", None, user("Create the project")),
        side("b1", None, user("Write the hooks")),
        side(
            "a2",
            Some("a1"),
            calls(&[("w1", "Write", json!({"file_path":"/p/app/page.tsx"}))]),
        ),
        side(
            "b2",
            Some("b1"),
            calls(&[("w2", "Write", json!({"file_path":"/p/hooks/useTodos.ts"}))]),
        ),
        side(
            "a3",
            Some("a2"),
            result("w1", "ok", false, json!({"type":"create"})),
        ),
        side(
            "b3",
            Some("b2"),
            result("w2", "ok", false, json!({"type":"create"})),
        ),
        side(
            "b4",
            Some("b3"),
            calls(&[("x", "Bash", json!({"command":"npm run build"}))]),
        ),
        side(
            "b5",
            Some("b4"),
            result(
                "x",
                "TypeError: generate is not a function",
                true,
                json!(null),
            ),
        ),
        result("t1", "Project created", false, json!({})),
        result("t2", "Hooks written", false, json!({})),
        // A sidechain whose start this pass never saw: its writes, unclaimed.
        side(
            "z2",
            Some("gone"),
            calls(&[("w3", "Write", json!({"file_path":"/p/late.ts"}))]),
        ),
        say("Done."),
    ];
    let t = &build(&lines)[0];
    let by = |d: &str| t.subagents.iter().find(|s| s.description == d).unwrap();
    assert_eq!(by("Setup").files.len(), 1);
    assert_eq!(by("Setup").files[0].path, "/p/app/page.tsx");
    assert_eq!(by("Hooks").files[0].path, "/p/hooks/useTodos.ts");
    assert_eq!(by("Hooks").errors.len(), 1, "{:?}", by("Hooks"));
    assert!(by("Setup").errors.is_empty());
    assert_eq!(by("subagent").files[0].path, "/p/late.ts");
}

// A real session: `pytest` was not on PATH, the same run inside the venv's
// subshell passed. The subshell's `)` hid the program, so the pass was never
// seen as a test run and the failure stayed open.
#[test]
fn a_test_run_in_a_subshell_closes_the_failed_bare_run() {
    let turns = build(&[
        user("do all the tests pass?"),
        calls(&[("1", "Bash", json!({"command":"pytest"}))]),
        result(
            "1",
            "Exit code 127\n/bin/bash: line 1: pytest: command not found",
            true,
            json!(null),
        ),
        calls(&[(
            "2",
            "Bash",
            json!({"command":"(source .venv/bin/activate && pytest)"}),
        )]),
        result(
            "2",
            "collected 40 items\nTOTAL   123   0   38   0   100%\n===== 40 passed in 2.78s =====",
            false,
            json!(null),
        ),
        say("All 40 tests pass."),
    ]);
    let checks = &turns[0].checks;
    assert_eq!(checks.len(), 2, "{checks:?}");
    assert!(!checks[0].ok);
    assert!(checks[1].ok && checks[1].test);
    assert_eq!(checks[1].passed, Some(40));
    assert_eq!(checks[1].coverage.as_deref(), Some("100%"));
    assert_eq!(
        command_key("(source .venv/bin/activate && pytest)"),
        "pytest"
    );
}

// A real session: the installed tool's `--help` crashed with an import
// error, the packaging was fixed, and `--help` then worked. A failing
// `--help` is usually an answer; a crashing one is the tool broken.
#[test]
fn a_crashing_help_probe_is_an_error_its_rerun_resolves() {
    let turns = build(&[
        user("make it installable"),
        calls(&[("1", "Bash", json!({"command":"cd /tmp && tool --help"}))]),
        result(
            "1",
            "Exit code 1\nTraceback (most recent call last):\n  File \"/bin/tool\", line 4\nModuleNotFoundError: No module named 'tool_mod'",
            true,
            json!(null),
        ),
        calls(&[(
            "2",
            "Edit",
            json!({"file_path":"/p/pyproject.toml","old_string":"a","new_string":"b"}),
        )]),
        result(
            "2",
            "The file /p/pyproject.toml has been updated.",
            false,
            json!({"filePath":"/p/pyproject.toml"}),
        ),
        calls(&[("3", "Bash", json!({"command":"cd /tmp && tool --help"}))]),
        result("3", "usage: tool [-h]", false, json!(null)),
        calls(&[("4", "Bash", json!({"command":"mytool --version"}))]),
        result(
            "4",
            "Exit code 127\nmytool: command not found",
            true,
            json!(null),
        ),
        say("Done."),
    ]);
    let errors = &turns[0].errors;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].message.starts_with("ModuleNotFoundError"));
    assert!(errors[0].resolved);
    assert_eq!(errors[0].fixed_in, ["/p/pyproject.toml"]);
}

/// An error a turn ended with is resolved by a later turn's success of the
/// same program, within one pass and across passes (the cursor carries it).
#[test]
fn an_error_left_open_is_resolved_by_a_later_turn() {
    let lines = [
        user("commit the work"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"git add -A && git commit -m \"feat: wire it\""}),
        )]),
        result(
            "1",
            "Pre-commit validation failed: credo",
            true,
            json!("Error: Pre-commit validation failed: credo"),
        ),
        say("The hook refused the commit."),
    ];
    let later = [
        user("now wire the readme too"),
        calls(&[(
            "2",
            "Bash",
            json!({"command":"git add lib/a.ex && git commit -m \"feat: wire it (x-1)\""}),
        )]),
        result(
            "2",
            "[main 1a2b3c4] feat: wire it (x-1)",
            false,
            json!({"stdout":"[main 1a2b3c4] feat"}),
        ),
        say("Committed."),
    ];
    let feed = |b: &mut Builder, lines: &[serde_json::Value]| {
        for l in lines {
            if let Some(r) = Record::parse(l.to_string().as_bytes()) {
                b.feed(&r);
            }
        }
    };
    // One pass.
    let mut b = Builder::new(&NoSubagents);
    feed(&mut b, &lines);
    feed(&mut b, &later);
    let (turns, open) = b.finish_carrying();
    assert!(!turns[0].errors[0].resolved, "{turns:#?}");
    assert_eq!(turns[1].resolved_earlier.len(), 1);
    assert_eq!(
        turns[1].resolved_earlier[0].target,
        "git add -A && git commit -m \"feat: wire it\""
    );
    assert!(open.is_empty());
    // Two passes: the first leaves it open, the second resolves it.
    let mut b = Builder::new(&NoSubagents);
    feed(&mut b, &lines);
    let (_, open) = b.finish_carrying();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].key, "git commit");
    let mut b = Builder::new(&NoSubagents).carrying(open);
    feed(&mut b, &later);
    let (turns, open) = b.finish_carrying();
    assert_eq!(turns[0].resolved_earlier.len(), 1);
    assert!(open.is_empty());
    // A success of another program resolves nothing.
    let mut b = Builder::new(&NoSubagents);
    feed(&mut b, &lines);
    let (_, open) = b.finish_carrying();
    let mut b = Builder::new(&NoSubagents).carrying(open);
    feed(
        &mut b,
        &[
            user("status?"),
            calls(&[("3", "Bash", json!({"command":"git add README.md"}))]),
            result("3", "", false, json!({"stdout":""})),
        ],
    );
    let (turns, open) = b.finish_carrying();
    assert!(turns[0].resolved_earlier.is_empty());
    assert_eq!(open.len(), 1);
}

#[test]
fn findings_said_between_calls_and_in_a_subagents_report_are_kept() {
    let t = &build(&[
        user("why is CI failing?"),
        say("Let me look at the logs."),
        calls(&[("1", "Bash", json!({"command":"gh run view --log-failed"}))]),
        result("1", "timeout", false, json!({})),
        say("Found it! The plugin runtime tests time out at the 5000 ms default on the runner."),
        calls(&[(
            "2",
            "Task",
            json!({"description":"Compare with main","prompt":"…"}),
        )]),
        result(
            "2",
            "Key findings:\n- main fails the same 6 tests\n- nothing in this PR touches them\nagentId: a1",
            false,
            json!({}),
        ),
        say("CI fails on timeouts that main has too."),
    ])[0];
    assert_eq!(
        t.findings,
        [
            "Found it! The plugin runtime tests time out at the 5000 ms default on the runner.",
            "Key findings: main fails the same 6 tests; nothing in this PR touches them",
        ]
    );
    assert_eq!(t.answer, "CI fails on timeouts that main has too.");
}

#[test]
fn a_programs_colours_are_not_part_of_its_error() {
    let t = &build(&[
        user("check the workflow"),
        calls(&[("1", "Bash", json!({"command":"./release.sh"}))]),
        result(
            "1",
            "Exit code 1\n\u{1b}[31;1mFileNotFoundError: no such file\u{1b}[0m",
            true,
            json!("Error"),
        ),
        say("The file is missing."),
    ])[0];
    assert_eq!(
        t.errors.first().map(|e| e.message.as_str()),
        Some("FileNotFoundError: no such file"),
        "{t:?}"
    );
}

#[test]
fn a_scratch_folder_made_and_removed_in_the_turn_changed_nothing() {
    let t = &build(&[
        user("check the template renders"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"mkdir -p /p/src/cmd/tmplcheck"}),
        )]),
        result("1", "", false, json!({})),
        calls(&[(
            "2",
            "Write",
            json!({"file_path":"/p/src/cmd/tmplcheck/main.go","content":"x"}),
        )]),
        result(
            "2",
            "ok",
            false,
            json!({"type":"create","filePath":"/p/src/cmd/tmplcheck/main.go"}),
        ),
        calls(&[(
            "3",
            "Bash",
            json!({"command":"go run ./src/cmd/tmplcheck && rm -rf /p/src/cmd/tmplcheck /p/old.txt"}),
        )]),
        result("3", "[main ↑2]", false, json!({})),
        say("It renders like posh-git."),
    ])[0];
    assert_eq!(
        t.files,
        [FileChange {
            path: "/p/old.txt".into(),
            change: Change::Deleted,
            from: None,
        }]
    );
}

/// A push refused until the branch is rebased: the same command succeeding
/// next owes it to the step in between, which the error names as its cure.
#[test]
fn a_refused_push_is_cured_by_the_rebase_in_between() {
    let turns = build(&[
        user("push directly to main"),
        calls(&[("1", "Bash", json!({"command":"git push origin main"}))]),
        result(
            "1",
            "Exit code 1\nTo https://example.com/r.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'https://example.com/r.git'",
            true,
            json!(null),
        ),
        calls(&[("2", "Bash", json!({"command":"git status"}))]),
        result("2", "On branch main", false, json!(null)),
        calls(&[(
            "3",
            "Bash",
            json!({"command":"git pull --rebase origin main"}),
        )]),
        result(
            "3",
            "Successfully rebased and updated refs/heads/main.",
            false,
            json!(null),
        ),
        calls(&[("4", "Bash", json!({"command":"git push origin main"}))]),
        result(
            "4",
            "To https://example.com/r.git\n   6c08f5a..b02b3c0  main -> main",
            false,
            json!(null),
        ),
        say("Pushed."),
    ]);
    let e = &turns[0].errors[0];
    assert_eq!(e.message, "! [rejected]        main -> main (fetch first)");
    assert!(e.resolved && e.fixed_in.is_empty());
    assert_eq!(
        e.resolved_by.as_deref(),
        Some("git pull --rebase origin main")
    );

    // A plain retry (nothing in between but reads) names no cure.
    let turns = build(&[
        user("push"),
        calls(&[("1", "Bash", json!({"command":"git push"}))]),
        result(
            "1",
            "Exit code 128\nfatal: unable to access: Could not resolve host",
            true,
            json!(null),
        ),
        calls(&[("2", "Bash", json!({"command":"git log --oneline -3"}))]),
        result("2", "abc fix", false, json!(null)),
        calls(&[("3", "Bash", json!({"command":"git push"}))]),
        result("3", "Everything up-to-date", false, json!(null)),
        say("Pushed."),
    ]);
    let e = &turns[0].errors[0];
    assert!(e.resolved && e.resolved_by.is_none(), "{e:?}");
}

/// A commit is known by the hash git printed, a pull request by its number.
#[test]
fn a_commit_s_hash_and_a_pull_request_s_number() {
    let turns = build(&[
        user("commit and open a PR"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"git commit -m \"docs: add todo\""}),
        )]),
        result(
            "1",
            "[chore/add-todo c076c55a9] docs: add todo\n 2 files changed, 40 insertions(+)",
            false,
            json!(null),
        ),
        calls(&[(
            "2",
            "Bash",
            json!({"command":"gh pr create --title \"docs: add todo\" --body x"}),
        )]),
        result("2", "https://github.com/o/r/pull/180", false, json!(null)),
        say("Opened #180."),
    ]);
    let ids: Vec<&str> = turns[0].actions.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["c076c55a9", "#180"]);
    assert_eq!(
        shell::commit_hash("[main (root-commit) 0c1d2e3] init"),
        Some("0c1d2e3".into())
    );
    assert_eq!(shell::commit_hash("[INFO] Checking 88 files"), None);
    assert_eq!(
        shell::opened_pull_request(
            "Creating merge request\nhttps://gitlab.com/o/r/-/merge_requests/12\n"
        ),
        Some("#12".into())
    );
}

/// A request right after an answer that asked the user to choose is their
/// choice, within one pass and across passes (the cursor carries the
/// question); a new instruction is not.
#[test]
fn a_reply_to_the_answer_s_question_is_the_user_s_choice() {
    let q = "Where would you want it in the M2 sequence?";
    let turns = build(&[
        user("how big is this?"),
        say(&format!(
            "Enough for a phase.\n\n{q} It could go early or late."
        )),
        user("lets get this in early, but after mfa"),
        say("Phase 12.1 inserted after Phase 12."),
        user("now add tests for the parser"),
        say("Added."),
    ]);
    assert_eq!(turns[1].replies_to.as_deref(), Some(q));
    assert_eq!(turns[2].replies_to, None);

    let b = Builder::new(&NoSubagents);
    let mut b = b.asked_before(Some(q.to_owned()));
    for l in [user("the second one"), say("OK.")] {
        b.feed(&Record::parse(l.to_string().as_bytes()).unwrap());
    }
    assert_eq!(b.ends_asking(), None);
    let turns = b.finish();
    assert_eq!(turns[0].replies_to.as_deref(), Some(q));
}

/// What a commit added that the session never wrote is new in the
/// repository: the commit's files are the work.
#[test]
fn files_a_commit_adds_are_created() {
    let out = "[chore/enable-entire 7ff3be18] chore: enable entire dev tool\n 2 files changed, 9 insertions(+)\n create mode 100644 .entire/.gitignore\n create mode 100644 .entire/settings.json";
    let turns = build(&[
        user("commit the entire config"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"git add .entire && git commit -m \"chore: enable entire dev tool\""}),
        )]),
        result("1", out, false, json!(null)),
        calls(&[(
            "2",
            "Bash",
            json!({"command":"cd ../other && git commit -m \"x\""}),
        )]),
        result(
            "2",
            "[main abc1234] x\n create mode 100644 elsewhere.txt",
            false,
            json!(null),
        ),
        say("Committed."),
    ]);
    let files: Vec<(&str, Change)> = turns[0]
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.change))
        .collect();
    assert_eq!(
        files,
        [
            (".entire/.gitignore", Change::Created),
            (".entire/settings.json", Change::Created)
        ]
    );
}

/// A wrapper that refused its command line ran no tests: an error, not a
/// failing run; the same run through the wrapper that works is a check.
#[test]
fn a_refused_command_line_is_no_test_run() {
    let turns = build(&[
        user("run the tests"),
        calls(&[("1", "Bash", json!({"command":"rtk bun run test 2>&1"}))]),
        result(
            "1",
            "Exit code 2\nerror: unrecognized subcommand 'bun'\n\nUsage: rtk [OPTIONS] <COMMAND>",
            true,
            json!(null),
        ),
        calls(&[("2", "Bash", json!({"command":"rtk test bun test src/"}))]),
        result("2", " 20 pass\n 0 fail", false, json!(null)),
        say("Done."),
    ]);
    let t = &turns[0];
    assert_eq!(t.checks.len(), 1, "{:?}", t.checks);
    assert!(t.checks[0].ok && t.checks[0].passed == Some(20));
    assert_eq!(t.errors.len(), 1);
    assert_eq!(t.errors[0].message, "error: unrecognized subcommand 'bun'");
}

/// `--no-verify` after a here-document's message is still the commit's.
#[test]
fn a_commit_that_skips_its_hooks_is_known() {
    let turns = build(&[
        user("commit it"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"git commit -m \"$(cat <<'EOF'\nRelease version 0.3.0\nEOF\n)\" --no-verify"}),
        )]),
        result(
            "1",
            "[main 19729ce] Release version 0.3.0",
            false,
            json!(null),
        ),
        say("Done."),
    ]);
    let a = &turns[0].actions[0];
    assert!(a.skipped_hooks && a.id == "19729ce", "{a:?}");
}

/// A bare `git push` is known by the branch git says it updated.
#[test]
fn a_bare_push_names_its_branch() {
    let turns = build(&[
        user("push it"),
        calls(&[("2", "Bash", json!({"command":"git push"}))]),
        result(
            "2",
            "To github.com:o/r.git\n   6289e2b..7a1c0de  dipree/entire-wingman -> dipree/entire-wingman",
            false,
            json!(null),
        ),
        say("Pushed."),
    ]);
    let t = &turns[0];
    assert_eq!(t.actions[0].id, "dipree/entire-wingman");
    assert_eq!(
        shell::pushed_ref(" * [new branch]      fix/x -> fix/x"),
        Some("fix/x".into())
    );
    assert_eq!(shell::pushed_ref("Everything up-to-date"), None);
}

/// Newer clients put the user's words after "the user said:".
#[test]
fn a_newer_client_s_rejection_keeps_the_user_s_words() {
    let turns = build(&[
        user("make the settings parsing strict"),
        calls(&[(
            "1",
            "Edit",
            json!({"file_path":"/p/settings.go","old_string":"a","new_string":"b"}),
        )]),
        result(
            "1",
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nreally?   Can't we provide a setting to UnmarshalJSON to be strict?",
            true,
            json!(null),
        ),
        say("Using DisallowUnknownFields."),
    ]);
    assert_eq!(
        turns[0].declined[0].reason,
        "really? Can't we provide a setting to UnmarshalJSON to be strict?"
    );
}

/// A build that failed for want of the toolchain on PATH passes once the
/// shell's PATH is set: the same build, fixed.
#[test]
fn a_build_run_again_after_setting_path_is_the_same_build() {
    let turns = build(&[
        user("build it"),
        calls(&[("1", "Bash", json!({"command":"cd /p && go build ./..."}))]),
        result(
            "1",
            "Exit code 127\n/bin/bash: go: command not found",
            true,
            json!(null),
        ),
        calls(&[(
            "2",
            "Bash",
            json!({"command":"export PATH=$PATH:/usr/local/go/bin && cd /p && go build ./..."}),
        )]),
        result("2", "", false, json!(null)),
        calls(&[("3", "Bash", json!({"command":"cd /p && go vet ./..."}))]),
        result(
            "3",
            "Exit code 127\n/bin/bash: go: command not found",
            true,
            json!(null),
        ),
        calls(&[(
            "4",
            "Bash",
            json!({"command":"PATH=$PATH:/usr/local/go/bin && cd /p && go vet ./..."}),
        )]),
        result("4", "", false, json!(null)),
        say("Built."),
    ]);
    let checks = &turns[0].checks;
    assert_eq!(checks.len(), 2, "{checks:?}");
    assert!(!checks[0].ok && checks[1].ok);
    assert_eq!(
        command_key(&checks[0].command),
        command_key(&checks[1].command)
    );
    assert_eq!(
        command_key("PATH=$PATH:/usr/local/go/bin && cd /p && go vet ./..."),
        "go vet"
    );
}

/// A file a tool wrote is not created again by the commit that adds it,
/// and `git add -n` is no commit skipping its hooks.
#[test]
fn a_commit_of_a_written_file_adds_nothing_and_only_commit_flags_count() {
    let turns = build(&[
        user("write it and commit"),
        calls(&[(
            "1",
            "Write",
            json!({"file_path":"/p/src/x.rs","content":"x"}),
        )]),
        result(
            "1",
            "File created successfully at: /p/src/x.rs",
            false,
            json!({"type":"create","filePath":"/p/src/x.rs"}),
        ),
        calls(&[(
            "2",
            "Bash",
            json!({"command":"git add -n . && git commit -m \"add x\""}),
        )]),
        result(
            "2",
            "[main 1a2b3c4] add x\n create mode 100644 src/x.rs",
            false,
            json!(null),
        ),
        say("Done."),
    ]);
    let t = &turns[0];
    assert_eq!(t.files.len(), 1, "{:?}", t.files);
    assert!(!t.actions[0].skipped_hooks);
}

#[test]
fn a_check_knows_whether_files_changed_after_it_and_what_said_it_was_clean() {
    let turns = build(&[
        user("fix the lint"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"mise run test:ci 2>&1 | tail -40"}),
        )]),
        result(
            "1",
            "[test:ci] $ go test ./...\nok  \tgithub.com/x/cli\t12.2s\nok  \tgithub.com/x/cli/agent\t(cached)",
            false,
            json!({}),
        ),
        calls(&[("2", "Edit", json!({"file_path":"/p/a.go"}))]),
        result("2", "ok", false, json!({})),
        calls(&[(
            "3",
            "Bash",
            json!({"command":"mise run lint 2>&1 | tail -30"}),
        )]),
        result(
            "3",
            "[lint] $ golangci-lint run ./...\n0 issues.",
            false,
            json!({}),
        ),
        say("All clean."),
    ]);
    let c = &turns[0].checks;
    assert_eq!(c.len(), 2, "{c:?}");
    assert!(c[0].test && c[0].changed_after);
    assert_eq!(c[0].summary, "2 packages ok");
    assert!(!c[1].test && !c[1].changed_after);
    assert_eq!(c[1].summary, "0 issues.");
    // `10 errors` is no clean run, nor `0 warnings` beside errors.
    assert!(says_clean("found 0 errors"));
    assert!(!says_clean("found 10 errors"));
    assert!(!says_clean("3 errors, 0 warnings"));
}

/// Piped into `tail`, a linter exits 0 whatever it found: its findings say
/// it failed, and the clean run after the edit is its fix.
#[test]
fn a_piped_linter_that_printed_findings_failed() {
    let turns = build(&[
        user("fix the lint"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"which golangci-lint && golangci-lint run ./... 2>&1 | tail -30"}),
        )]),
        result(
            "1",
            "internal/syncer/syncer.go:88:10: error returned from external package is unwrapped (wrapcheck)\n1 issues:\n* wrapcheck: 1",
            false,
            json!({}),
        ),
        calls(&[(
            "2",
            "Edit",
            json!({"file_path":"/p/internal/syncer/syncer.go"}),
        )]),
        result("2", "ok", false, json!({})),
        calls(&[(
            "3",
            "Bash",
            json!({"command":"golangci-lint run ./... 2>&1 | tail -30"}),
        )]),
        result("3", "0 issues.", false, json!({})),
        say("Lint is clean."),
    ]);
    let c = &turns[0].checks;
    assert_eq!(c.len(), 2, "{c:?}");
    assert!(!c[0].ok, "{c:?}");
    assert!(c[0].summary.contains("wrapcheck"), "{c:?}");
    assert_eq!(c[0].fixed_in, ["/p/internal/syncer/syncer.go"]);
    assert!(c[1].ok);
}

/// A commit made from a message file is known by the subject git printed.
#[test]
fn a_commit_from_a_message_file_has_git_s_subject() {
    let turns = build(&[
        user("commit it"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"git add -A && git commit -F .git-meta/COMMIT_MSG"}),
        )]),
        result(
            "1",
            "[001-inout bd93a9a] feat: consistent input/output\n 3 files changed",
            false,
            json!({}),
        ),
        say("Committed."),
    ]);
    let a = &turns[0].actions;
    assert_eq!(a[0].detail, "feat: consistent input/output", "{a:?}");
    assert_eq!(a[0].id, "bd93a9a");
}

/// A command continued over lines by `\\` is known by all of it.
#[test]
fn a_continued_command_line_is_one_command() {
    let turns = build(&[
        user("delete the merged branches"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"# Delete the merged branches\ngit push origin --delete \\\n  fix/a \\\n  fix/b"}),
        )]),
        result(
            "1",
            "To github.com:o/r.git\n - [deleted]         fix/a\n - [deleted]         fix/b",
            false,
            json!({}),
        ),
        say("Deleted."),
    ]);
    let a = &turns[0].actions;
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0].command, "git push origin --delete fix/a fix/b");
    assert_eq!(a[0].detail, "git push --delete origin fix/a fix/b", "{a:?}");
}

/// Coloured runner output is read without its escape codes.
#[test]
fn coloured_test_output_is_counted() {
    let turns = build(&[
        user("add the tests"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"npx vitest run tests/agent_logs.test.ts"}),
        )]),
        result(
            "1",
            "\u{1b}[2m Test Files \u{1b}[22m \u{1b}[1m\u{1b}[32m1 passed\u{1b}[39m\u{1b}[22m\u{1b}[90m (1)\u{1b}[39m\n\u{1b}[2m      Tests \u{1b}[22m \u{1b}[1m\u{1b}[32m14 passed\u{1b}[39m\u{1b}[22m\u{1b}[90m (14)\u{1b}[39m",
            false,
            json!({}),
        ),
        say("Done."),
    ]);
    let c = &turns[0].checks;
    assert_eq!(c[0].passed, Some(14), "{c:?}");
}

/// What the model says right after a failure, when it says why, is the
/// failure's cause; a later text after other calls is not.
#[test]
fn the_model_s_next_words_after_a_failure_give_its_cause() {
    let turns = build(&[
        user("rebase on main"),
        calls(&[("1", "Bash", json!({"command":"go test ./internal/..."}))]),
        result(
            "1",
            "--- FAIL: TestSchema (0.00s)\nFAIL\tx/internal/cli\t0.1s",
            false,
            json!({}),
        ),
        say("The test still expects schema_version 1.0 because main moved to 1.1."),
        calls(&[(
            "2",
            "Edit",
            json!({"file_path":"/p/internal/cli/root_test.go"}),
        )]),
        result("2", "ok", false, json!({})),
        calls(&[("3", "Bash", json!({"command":"npm run build"}))]),
        result(
            "3",
            "error TS2322: Type 'boolean' is not assignable to type 'void'.",
            true,
            json!({}),
        ),
        calls(&[("4", "Bash", json!({"command":"ls"}))]),
        result("4", "a b", false, json!({})),
        say("That failed because of something said too late to count here."),
        calls(&[("5", "Bash", json!({"command":"go test ./internal/..."}))]),
        result("5", "ok\tx/internal/cli\t0.1s", false, json!({})),
        say("Done."),
    ]);
    let t = &turns[0];
    assert_eq!(
        t.checks[0].cause.as_deref(),
        Some("The test still expects schema_version 1.0 because main moved to 1.1."),
        "{:?}",
        t.checks
    );
    assert!(
        t.checks.iter().skip(1).all(|c| c.cause.is_none()),
        "{:?}",
        t.checks
    );
}

/// A merge stopped on conflicts is done once its commit goes through:
/// the files edited in between resolved it, and the merge happened.
#[test]
fn a_merge_stopped_on_conflicts_is_settled_by_its_commit() {
    let turns = build(&[
        user("make main and develop match"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"git merge origin/main --no-edit"}),
        )]),
        result(
            "1",
            "Auto-merging CLAUDE.md\nCONFLICT (content): Merge conflict in CLAUDE.md\nAutomatic merge failed; fix conflicts and then commit the result.",
            true,
            json!({}),
        ),
        calls(&[("2", "Edit", json!({"file_path":"/p/CLAUDE.md"}))]),
        result("2", "ok", false, json!({})),
        calls(&[(
            "3",
            "Bash",
            json!({"command":"git add CLAUDE.md && git commit -m 'chore: sync main into develop'"}),
        )]),
        result(
            "3",
            "[sync 96d71ea] chore: sync main into develop",
            false,
            json!({}),
        ),
        say("Merged."),
    ]);
    let t = &turns[0];
    assert_eq!(t.errors.len(), 1, "{:?}", t.errors);
    assert!(t.errors[0].resolved, "{:?}", t.errors);
    assert_eq!(t.errors[0].fixed_in, ["/p/CLAUDE.md"]);
    let merge = t
        .actions
        .iter()
        .find(|a| a.kind == ActionKind::Merge)
        .expect("the merge");
    assert!(merge.ok, "{:?}", t.actions);
    // A merge refused for another reason is not settled by a commit.
    let turns = build(&[
        user("merge main"),
        calls(&[("1", "Bash", json!({"command":"git merge origin/main"}))]),
        result(
            "1",
            "error: Your local changes to the following files would be overwritten by merge:\n\tmain.py",
            true,
            json!({}),
        ),
        calls(&[("2", "Bash", json!({"command":"git commit -am wip"}))]),
        result("2", "[main 1a2b3c4] wip", false, json!({})),
        say("Committed."),
    ]);
    let t = &turns[0];
    assert!(!t.errors[0].resolved, "{:?}", t.errors);
    let merge = t
        .actions
        .iter()
        .find(|a| a.kind == ActionKind::Merge)
        .expect("the merge");
    assert!(!merge.ok, "{:?}", t.actions);
}

/// Conflicts settled by taking one side are told by that command.
#[test]
fn conflicts_settled_by_taking_a_side_say_which() {
    let turns = build(&[
        user("sync develop into main"),
        calls(&[("1", "Bash", json!({"command":"git merge origin/develop"}))]),
        result(
            "1",
            "CONFLICT (content): Merge conflict in CLAUDE.md\nAutomatic merge failed; fix conflicts and then commit the result.",
            true,
            json!({}),
        ),
        calls(&[(
            "2",
            "Bash",
            json!({"command":"git checkout --theirs CLAUDE.md && git add CLAUDE.md"}),
        )]),
        result("2", "", false, json!({})),
        calls(&[("3", "Bash", json!({"command":"git commit --no-edit"}))]),
        result("3", "[sync 0baf708] Merge origin/develop", false, json!({})),
        say("Merged."),
    ]);
    let e = &turns[0].errors[0];
    assert!(e.resolved, "{e:?}");
    assert_eq!(
        e.resolved_by.as_deref(),
        Some("git checkout --theirs CLAUDE.md && git add CLAUDE.md")
    );
}

/// A test run on the old code put back right after (`perl -pi … && go
/// test …; git checkout f`) proves the new test: it is no check of the
/// work. A run that then switches branch is one.
#[test]
fn a_check_on_a_tree_put_back_after_is_not_the_work_s() {
    let run = |command: &str| {
        build(&[
            user("address the findings"),
            calls(&[("1", "Bash", json!({ "command": command }))]),
            result(
                "1",
                "--- FAIL: TestSignal (0.00s)\nFAIL\nFAIL\tx/authcode\t0.1s",
                false,
                json!({}),
            ),
            say("The new test fails on the old ordering."),
        ])
    };
    let reverted = "git stash list >/dev/null; \\\nperl -0pi -e 's/a/b/' authcode/authcode.go && \\\n\
        go test ./authcode/ -run TestSignal -count=1 2>&1 | tail -8; \\\ngit checkout authcode/authcode.go";
    assert!(
        run(reverted)[0].checks.is_empty(),
        "{:?}",
        run(reverted)[0].checks
    );
    assert!(
        run("git stash && go test ./... ; git stash pop")[0]
            .checks
            .is_empty()
    );
    // Nothing changed the tree for the run, or the restore ran only after
    // a pass: the run is the work's.
    for kept in [
        "go test ./... ; git checkout -b fix/x",
        "npm run build && git checkout dist/",
        "cargo test ; git checkout release/1.4",
    ] {
        let turns = run(kept);
        assert_eq!(turns[0].checks.len(), 1, "{kept}: {:?}", turns[0].checks);
    }
}

/// mise prefixes each task's lines (`[lint:go] f.go:58:52: … (goconst)`):
/// the finding is the failure's line, not its `ERROR task failed` banner,
/// and a passing `go vet ./... && mise run lint` closes the failed
/// `mise run lint`, while `mise run test` passing would not.
#[test]
fn a_task_runner_finding_is_the_failure_and_a_chain_that_passes_closes_it() {
    let lint_output = "[lint:go] $ ~/p/mise-tasks/lint/go\n\
        [lint:go] internal/refs_test.go:58:52: string `refs/heads/main` has 3 occurrences, but such constant `refsHeadsMain` already exists (goconst)\n\
        [lint:go] 1 issues:\n[lint:go] * goconst: 1\nFinished in 906.6ms\n[lint:go] ERROR task failed";
    let run = |later: &str| {
        build(&[
            user("fix the lint"),
            calls(&[(
                "1",
                "Bash",
                json!({"command":"mise run lint 2>&1 | tail -80"}),
            )]),
            result("1", lint_output, false, json!({})),
            calls(&[("2", "Edit", json!({"file_path":"/p/internal/refs_test.go"}))]),
            result("2", "ok", false, json!({})),
            calls(&[("3", "Bash", json!({"command": later}))]),
            result("3", "ok\nFinished in 1.93s", false, json!({})),
            say("Lint passes."),
        ])
    };
    let turns = run("go vet ./internal/... 2>&1 && mise run lint 2>&1 | tail -30");
    let c = &turns[0].checks;
    assert!(!c[0].ok, "{c:?}");
    assert!(c[0].summary.contains("goconst"), "{c:?}");
    assert_eq!(c[0].fixed_in, ["/p/internal/refs_test.go"]);
    let turns = run("mise run test 2>&1 | tail -30");
    assert!(
        turns[0].checks[0].fixed_in.is_empty(),
        "{:?}",
        turns[0].checks
    );
    // After `;`, a piece's own outcome is unknown: only the line's first
    // program counts.
    let turns = run("go vet ./... ; mise run lint 2>&1 | tail -30");
    assert!(
        turns[0].checks[0].fixed_in.is_empty(),
        "{:?}",
        turns[0].checks
    );
}

/// Piped into `head`, a wrapper refusing its command line exits 0: still
/// an error, and the program running at all (its tests failing) gets past it.
#[test]
fn a_refused_command_line_piped_into_head_is_an_error_the_real_run_resolves() {
    let turns = build(&[
        user("run the tests"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"rtk bun run test | head -20"}),
        )]),
        result(
            "1",
            "error: unrecognized subcommand 'bun'\n\nUsage: rtk [OPTIONS] <COMMAND>",
            false,
            json!(null),
        ),
        calls(&[("2", "Bash", json!({"command":"bun run test"}))]),
        result("2", "Exit code 1\n 18 pass\n 2 fail", true, json!(null)),
        say("Two tests fail."),
    ]);
    let t = &turns[0];
    let refused: Vec<_> = t
        .errors
        .iter()
        .filter(|e| e.message.contains("unrecognized subcommand"))
        .collect();
    assert_eq!(refused.len(), 1, "{:?}", t.errors);
    assert!(refused[0].resolved, "{:?}", refused[0]);
    assert_eq!(refused[0].resolved_by.as_deref(), Some("bun run test"));
    assert!(
        t.checks
            .iter()
            .all(|c| c.command != "rtk bun run test | head -20"),
        "a refused line ran no tests: {:?}",
        t.checks
    );
}

/// A replayed session's `cd /their/repo && …` reads as this checkout's.
#[test]
fn a_cd_into_the_session_s_folder_is_rebased_like_its_paths() {
    let b = Builder::new(&NoSubagents).rebased_onto(
        Some("/Users/x/proj"),
        Some(std::path::Path::new("/home/me/proj")),
    );
    assert_eq!(
        b.rebased_cd("cd /Users/x/proj/go && go build ./..."),
        "cd /home/me/proj/go && go build ./..."
    );
    assert_eq!(
        b.rebased_cd("cd /tmp && ls && cd /Users/x/proj && make"),
        "cd /tmp && ls && cd /home/me/proj && make"
    );
    assert_eq!(
        b.rebased_cd("make -C /Users/x/proj"),
        "make -C /Users/x/proj"
    );
}

/// What a failed `&&` chain did before its failing step happened, and is
/// not what the retry of that step owes its success to.
#[test]
fn a_failed_chain_keeps_what_ran_before_its_failing_step() {
    let turns = build(&[
        user("drop the store workflow and rename the folder"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"git rm -q .github/store.yml && git mv pkg/msi pkg/msix && git rm -q pkg/msix/x.wxs"}),
        )]),
        result(
            "1",
            "Exit code 1\nerror: the following file has changes staged in the index:\n    pkg/msix/x.wxs",
            true,
            json!(null),
        ),
        calls(&[("2", "Bash", json!({"command":"git rm -qf pkg/msix/x.wxs"}))]),
        result("2", "", false, json!(null)),
        say("Done."),
    ]);
    let t = &turns[0];
    let changed: Vec<(&str, Change)> = t
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.change))
        .collect();
    assert_eq!(
        changed,
        [
            (".github/store.yml", Change::Deleted),
            ("pkg/msix", Change::Moved),
            ("pkg/msix/x.wxs", Change::Deleted),
        ]
    );
    assert_eq!(t.errors.len(), 1, "{:?}", t.errors);
    assert!(
        t.errors[0].resolved && t.errors[0].fixed_in.is_empty(),
        "{:?}",
        t.errors[0]
    );
    assert_eq!(
        t.errors[0].resolved_by.as_deref(),
        Some("git rm -qf pkg/msix/x.wxs")
    );
}

/// "Chat about this" in the question form: the client's words, no refusal
/// of the user's, and the next request is no correction.
#[test]
fn wanting_to_clarify_a_question_is_no_refusal() {
    let turns = build(&[
        user("find a tagline"),
        calls(&[(
            "1",
            "AskUserQuestion",
            json!({"questions":[{"question":"Short or long?"}]}),
        )]),
        result(
            "1",
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nThe user wants to clarify these questions.\n    This means they may have additional information.",
            true,
            json!(null),
        ),
        say("What would you like to clarify?"),
        user("none of those fit, it should not sound generated"),
        say("Here are other ideas."),
    ]);
    assert!(turns.iter().all(|t| t.declined.is_empty()), "{turns:?}");
    assert!(turns.iter().all(|t| t.errors.is_empty()));
    assert!(!turns[1].after_refusal);
}

/// A hook refusing the first write of a file, the same write made again:
/// got past, with nothing changed in between.
#[test]
fn a_write_a_hook_refused_then_made_is_resolved() {
    let turns = build(&[
        user("add the workflow"),
        calls(&[(
            "1",
            "Write",
            json!({"file_path":"/p/.github/workflows/a.yml"}),
        )]),
        result(
            "1",
            "PreToolUse:Write hook error: [python3 hook.py]: You are editing a GitHub Actions workflow file.",
            true,
            json!(null),
        ),
        calls(&[(
            "2",
            "Write",
            json!({"file_path":"/p/.github/workflows/a.yml"}),
        )]),
        result("2", "ok", false, json!({"type":"create"})),
        say("Added."),
    ]);
    let t = &turns[0];
    assert_eq!(t.errors.len(), 1);
    let e = &t.errors[0];
    assert!(
        e.resolved && e.fixed_in.is_empty() && e.resolved_by.is_none(),
        "{e:?}"
    );
    assert_eq!(t.files[0].change, Change::Created);
}

/// A few lines of script fail at their end; a quoted message or a
/// continued line is one command; a rerun that only trims its output is
/// the same command.
#[test]
fn the_line_a_script_failed_at_and_the_same_command_again() {
    assert_eq!(failing_line("chmod +x t.sh\nbash t.sh"), "bash t.sh");
    assert_eq!(
        failing_line("git commit -m \"Add x\n\nlong body\" && git push"),
        "git commit -m \"Add x"
    );
    assert_eq!(
        failing_line("source lib.sh && \\\n  run_it | grep x"),
        "source lib.sh && \\"
    );
    assert_eq!(
        failing_line("git commit -m \"$(cat <<'EOF'\nfix\nEOF\n)\""),
        "git commit -m \"$(cat <<'EOF'"
    );
    assert!(same_command("bash t.sh", "bash t.sh 2>&1 | tail -20"));
    assert!(!same_command("bash t.sh", "bash u.sh"));
}

/// A loop or a test fails inside, not at its closing line; a pipe into
/// `tailwind` is no output trim.
#[test]
fn a_loop_is_known_by_its_first_line_and_only_tail_or_head_trims() {
    assert_eq!(
        failing_line("for h in web1 web2; do\n  scp dist.tgz $h:/srv/\ndone"),
        "for h in web1 web2; do"
    );
    assert_eq!(failing_line("set -e\ncargo build\ncargo test"), "set -e");
    assert!(!same_command("npm run build", "npm run build | tailwind"));
}

/// `gh run watch --exit-status` failing with the run is the CI run, not
/// a second problem.
#[test]
fn a_watched_run_failing_is_no_tool_error() {
    let turns = build(&[
        user("watch the CI"),
        calls(&[(
            "1",
            "Bash",
            json!({"command":"gh run watch 42 --exit-status"}),
        )]),
        result(
            "1",
            "Exit code 1\nX main CI · 42\nJOBS\nX test in 1m (ID 7)\n  X Run tests\n",
            true,
            json!(null),
        ),
        say("CI failed on the tests."),
    ]);
    let t = &turns[0];
    assert!(t.errors.is_empty(), "{:?}", t.errors);
    assert_eq!(t.ci.len(), 1);
    assert_eq!(t.ci[0].failed_steps, ["Run tests"]);
}

/// The carried list drops completed tasks first: an open one may still be
/// updated a Stop later.
#[test]
fn carried_tasks_keep_the_open_ones() {
    let mut lines = vec![user("plan it")];
    for i in 0..=MAX_CARRIED_TASKS {
        let id = i.to_string();
        lines.push(calls(&[(
            &format!("c{i}"),
            "TaskCreate",
            json!({"subject": format!("task {i}")}),
        )]));
        lines.push(result(
            &format!("c{i}"),
            &format!("Task #{id} created successfully: task {i}"),
            false,
            json!(null),
        ));
    }
    lines.push(calls(&[(
        "u",
        "TaskUpdate",
        json!({"taskId": "32", "status": "completed"}),
    )]));
    lines.push(result("u", "Updated task #32 status", false, json!(null)));
    let texts: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut b = Builder::new(&NoSubagents);
    for t in &texts {
        b.feed(&Record::parse(t.as_bytes()).unwrap());
    }
    let (_, _, tasks) = b.finish_with_tasks();
    assert_eq!(tasks.len(), MAX_CARRIED_TASKS);
    assert!(
        tasks.iter().any(|(id, _)| id == "0"),
        "the oldest open task stays"
    );
    assert!(
        !tasks.iter().any(|(id, _)| id == "32"),
        "the completed one went"
    );
}

/// A background agent's end comes as a `<task-notification>`: its report
/// is the turn's subagent work, never a request.
#[test]
fn a_background_agent_s_notification_is_its_work() {
    let note = "<task-notification>\n<task-id>addbb80a3b64cbf2e</task-id>\n<status>completed</status>\n<summary>Agent \"Car 31: register CSS fix\" finished</summary>\n<result>## Report\nThe root cause: `.register-nominal` has no color rule.\nLanded 9c4730a on car/31-register-css.</result>\n</task-notification>";
    let turns = build(&[
        user("fix issue 31 in the background"),
        say("Dispatched Car 31."),
        json!({"type":"user","origin":{"kind":"task-notification"},"message":{"role":"user","content":note}}),
        say("Car 31 is done."),
    ]);
    assert_eq!(turns.len(), 1, "{turns:?}");
    let t = &turns[0];
    assert_eq!(t.request, "fix issue 31 in the background");
    assert_eq!(t.subagents.len(), 1);
    assert_eq!(t.subagents[0].description, "Car 31: register CSS fix");
    assert!(t.subagents[0].report.contains("9c4730a"));
    // A failed or killed one says nothing it did.
    let killed = note.replace("completed", "killed");
    let turns = build(&[
        user("fix issue 31 in the background"),
        json!({"type":"user","origin":{"kind":"task-notification"},"message":{"role":"user","content":killed}}),
        say("It was stopped."),
    ]);
    assert!(turns[0].subagents.is_empty());
}

/// The branch a turn ended on is the one its last record names.
#[test]
fn a_turn_keeps_the_branch_it_ended_on() {
    let mut first = user("make a branch and commit");
    first["gitBranch"] = json!("main");
    let mut answer = say("Committed on the new branch.");
    answer["gitBranch"] = json!("fix/lexer");
    let turns = build(&[first, answer]);
    assert_eq!(turns[0].branch.as_deref(), Some("fix/lexer"));
}

/// The answer given before a background task's notice stays the answer:
/// the model's reply to the notice comes after it, and a short "will
/// report when it finishes" before one is no answer.
#[test]
fn the_answer_before_a_background_notice_is_kept() {
    let note = "<task-notification>\n<task-id>b57276d</task-id>\n<status>completed</status>\n<summary>Background command \"Run full test suite\" completed (exit code 0)</summary>\n</task-notification>";
    let summary = "All done. Here is everything delivered: the reviews channel publishes counts on join, \
        the sidebar badge updates live through a shared socket, and both review pages show which subagent \
        an annotation targets. 359 tests pass and the branch is pushed.";
    let read = || {
        calls(&[(
            "r",
            "Read",
            json!({"file_path":"/tmp/tasks/b57276d.output"}),
        )])
    };
    let turns = build(&[
        user("work on the reviews epic"),
        say(summary),
        json!({"type":"user","origin":{"kind":"task-notification"},"message":{"role":"user","content":note}}),
        read(),
        result("r", "354 tests, 0 failures", false, json!(null)),
        say("That was the earlier failed run. No action needed."),
    ]);
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert!(
        turns[0].answer.starts_with("All done."),
        "{}",
        turns[0].answer
    );
    assert!(
        turns[0].answer.ends_with("No action needed."),
        "{}",
        turns[0].answer
    );
    let turns = build(&[
        user("run the coverage sweep"),
        say("Sweep running in background. Will report when it finishes."),
        json!({"type":"user","origin":{"kind":"task-notification"},"message":{"role":"user","content":note}}),
        read(),
        result("r", "405 passed", false, json!(null)),
        say("The sweep is done: 405 passed, total coverage 34%."),
    ]);
    assert_eq!(
        turns[0].answer,
        "The sweep is done: 405 passed, total coverage 34%."
    );
}

/// An edit whose text was not in the file is kept only when the model
/// says why (tabs, a formatter's rewrite), even once it has read the file
/// again; a bare retry or narration leaves nothing.
#[test]
fn an_edit_not_found_is_kept_only_with_what_the_model_saw() {
    let not_found =
        "<tool_use_error>String to replace not found in file.\nString: \tif x {</tool_use_error>";
    let turns = build(&[
        user("guard the runner"),
        calls(&[("1", "Edit", json!({"file_path":"/p/runner.ts"}))]),
        result("1", not_found, true, json!("Error")),
        say("The indentation uses tabs. Let me check the exact content."),
        calls(&[("2", "Edit", json!({"file_path":"/p/runner.ts"}))]),
        result("2", "ok", false, json!({})),
        user("now the docs"),
        calls(&[("3", "Edit", json!({"file_path":"/p/SKILL.md"}))]),
        result("3", not_found, true, json!("Error")),
        calls(&[("4", "Read", json!({"file_path":"/p/SKILL.md"}))]),
        result("4", "1\tbody", false, json!({})),
        say("The deletion left a numbering gap (6 jumps to 8)."),
        calls(&[("5", "Edit", json!({"file_path":"/p/SKILL.md"}))]),
        result("5", "ok", false, json!({})),
        user("and the config"),
        calls(&[("6", "Edit", json!({"file_path":"/p/app.json"}))]),
        result("6", not_found, true, json!("Error")),
        say("Let me read the file again to get the exact formatting:"),
        calls(&[("7", "Read", json!({"file_path":"/p/app.json"}))]),
        result("7", "1\t{}", false, json!({})),
        say("Now I'll apply it."),
        calls(&[("8", "Edit", json!({"file_path":"/p/app.json"}))]),
        result("8", "ok", false, json!({})),
        say("Done."),
    ]);
    assert_eq!(turns.len(), 3);
    let e = &turns[0].errors;
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].message, "String to replace not found in file.");
    assert_eq!(e[0].cause.as_deref(), Some("The indentation uses tabs."));
    assert!(e[0].resolved);
    let e = &turns[1].errors;
    assert_eq!(
        e.iter().map(|e| e.cause.as_deref()).collect::<Vec<_>>(),
        [Some("The deletion left a numbering gap (6 jumps to 8).")]
    );
    assert!(turns[2].errors.is_empty(), "{:?}", turns[2].errors);
}

/// A slip dropped at the end of its turn takes nothing else with it: the
/// failure after it still waits for the later turn that gets past it.
#[test]
fn a_dropped_slip_leaves_the_turn_s_other_failures_whole() {
    let turns = build(&[
        user("publish it"),
        calls(&[("1", "Edit", json!({"file_path":"/p/src/lib.rs"}))]),
        result(
            "1",
            "<tool_use_error>String to replace not found in file.</tool_use_error>",
            true,
            json!("Error"),
        ),
        calls(&[("2", "Bash", json!({"command":"./scripts/publish.sh"}))]),
        result("2", "error: upload failed: 503", true, json!("Error")),
        say("It still fails."),
        user("try again"),
        calls(&[("3", "Bash", json!({"command":"./scripts/publish.sh"}))]),
        result("3", "published", false, json!({})),
        say("Builds now."),
    ]);
    let e = &turns[0].errors;
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].target, "./scripts/publish.sh");
    assert_eq!(
        turns[1]
            .resolved_earlier
            .iter()
            .map(|f| f.target.as_str())
            .collect::<Vec<_>>(),
        ["./scripts/publish.sh"]
    );
}

/// A check run in the background is counted when its output is read:
/// through TaskOutput, a Read of the task's output file, or a command
/// reading the log it was sent to; a notice's exit code says whether it
/// failed.
#[test]
fn a_background_check_is_counted_when_its_output_is_read() {
    let started = |id: &str| {
        format!(
            "Command running in background with ID: {id}. Output is being written to: /tmp/claude/tasks/{id}.output"
        )
    };
    let suite = |id: &str, cmd: &str| {
        calls(&[(
            id,
            "Bash",
            json!({"command": cmd, "run_in_background": true}),
        )])
    };
    // TaskOutput, with the runner's counts and the client's exit code.
    let turns = build(&[
        user("run the full suite"),
        suite("a", "uv run pytest tests/ -q"),
        result("a", &started("b61e392"), false, json!(null)),
        calls(&[("o", "TaskOutput", json!({"task_id": "b61e392"}))]),
        result(
            "o",
            "<retrieval_status>success</retrieval_status>\n<task_id>b61e392</task_id>\n<status>completed</status>\n<exit_code>1</exit_code>\n<output>\nFAILED tests/test_bypass.py::test_expired - TypeError: can't compare\n==== 3 failed, 827 passed in 300.1s ====\n</output>",
            false,
            json!(null),
        ),
    ]);
    let c = &turns[0].checks[0];
    assert_eq!(
        (c.passed, c.failed, c.ok),
        (Some(827), Some(3), false),
        "{c:?}"
    );
    assert!(c.summary.contains("test_bypass.py"), "{c:?}");

    // A Read of the task's output file (line numbers and all).
    let turns = build(&[
        user("run the sweep"),
        suite("a", "pytest --cov"),
        result("a", &started("b2"), false, json!(null)),
        calls(&[(
            "r",
            "Read",
            json!({"file_path": "/tmp/claude/tasks/b2.output"}),
        )]),
        result(
            "r",
            "     1\t==== 405 passed, 1 skipped in 30s ====",
            false,
            json!(null),
        ),
    ]);
    let c = &turns[0].checks[0];
    assert_eq!(
        (c.passed, c.failed, c.ok),
        (Some(405), Some(0), true),
        "{c:?}"
    );

    // The log the command wrote to, read with another command; a later
    // read of it again changes nothing once counted.
    let turns = build(&[
        user("run the sweep"),
        suite("a", "pytest --cov > scratch/sweep.log 2>&1"),
        result("a", &started("b3"), false, json!(null)),
        calls(&[("g", "Bash", json!({"command": "tail -3 scratch/sweep.log"}))]),
        result(
            "g",
            "==== 2 failed, 10 passed in 3s ====",
            false,
            json!(null),
        ),
        calls(&[(
            "h",
            "Bash",
            json!({"command": "grep passed scratch/sweep.log"}),
        )]),
        result("h", "==== 12 passed in 3s ====", false, json!(null)),
    ]);
    let c = &turns[0].checks[0];
    assert_eq!(
        (c.passed, c.failed, c.ok),
        (Some(10), Some(2), false),
        "{c:?}"
    );

    // Only the notice, with its exit code.
    let note = "<task-notification>\n<task-id>b4</task-id>\n<status>completed</status>\n<summary>Background command \"Run tests\" completed (exit code 1)</summary>\n</task-notification>";
    let turns = build(&[
        user("run the tests"),
        suite("a", "cargo test"),
        result("a", &started("b4"), false, json!(null)),
        say("Running in the background."),
        json!({"type":"user","origin":{"kind":"task-notification"},"message":{"role":"user","content":note}}),
        say("The tests failed."),
    ]);
    assert!(!turns[0].checks[0].ok, "{:?}", turns[0].checks);
    // A command that is not a read of that task leaves it as it was.
    let turns = build(&[
        user("run the tests"),
        suite("a", "cargo test"),
        result("a", &started("b5"), false, json!(null)),
        calls(&[(
            "r",
            "Read",
            json!({"file_path": "/tmp/claude/tasks/other.output"}),
        )]),
        result(
            "r",
            "1\ttest result: FAILED. 1 passed; 2 failed",
            false,
            json!(null),
        ),
    ]);
    let c = &turns[0].checks[0];
    assert_eq!((c.passed, c.failed), (None, None), "{c:?}");
}

/// Newer clients write a bash-mode command and its output as two
/// records; a program that says why it stopped on stderr, in colour, is
/// the trouble the next request asks about.
#[test]
fn the_users_shell_failing_just_before_is_what_they_ask_about() {
    let turns = build(&[
        user("refactor the tests"),
        say("done"),
        json!({"type":"user","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>Caveat: x</local-command-caveat>"}}),
        user("<bash-input>npx vitest</bash-input>"),
        user(
            "<bash-stdout>\n RUN v4\n</bash-stdout><bash-stderr>\u{1b}[31mNo test files found, exiting with code 1\n</bash-stderr>",
        ),
        user("debug why I cannot run the new vitest files"),
        say("ok"),
    ]);
    assert_eq!(turns.len(), 2, "{turns:?}");
    assert_eq!(
        turns[1].pasted,
        ["npx vitest: No test files found, exiting with code 1"]
    );
    // A request that does not speak of it leaves it out.
    let turns = build(&[
        user("<bash-input>npx vitest</bash-input>"),
        user("<bash-stderr>No test files found, exiting with code 1</bash-stderr>"),
        user("add a README section on deployment"),
        say("ok"),
    ]);
    assert!(turns[0].pasted.is_empty(), "{turns:?}");
}

/// A skill's checklist copied into the model's to-do list is the skill's
/// process: left out, in this pass and the next; the project's own
/// to-dos stay.
#[test]
fn a_skills_checklist_is_no_to_do_of_the_project() {
    let skill = "Base directory for this skill: /p/skills/brainstorming\n\n# Brainstorming\n\n1. **Explore project context** — check files\n3. **Propose 2-3 approaches** — with trade-offs and your recommendation\n7. **Spec self-review** — quick inline check\n\nNot a step: write the design doc first.";
    let todos = json!({"todos": [
        {"content": "Explore project context (workflows, README)", "status": "completed", "activeForm": "x"},
        {"content": "Propose 2-3 approaches with tradeoffs", "status": "pending", "activeForm": "x"},
        {"content": "Spec self-review", "status": "pending", "activeForm": "x"},
        {"content": "Wire cargo nightly publishing from nightly.yml", "status": "pending", "activeForm": "x"},
    ]});
    let lines = [
        user("design the nightly channel"),
        json!({"type":"user","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":skill}]}}),
        calls(&[("t", "TodoWrite", todos.clone())]),
        result(
            "t",
            "Todos have been modified successfully.",
            false,
            json!(null),
        ),
        say("Here is the plan."),
    ];
    let texts = |t: &Turn| t.todos.iter().map(|t| t.text.clone()).collect::<Vec<_>>();
    let turns = build(&lines);
    assert_eq!(
        texts(&turns[0]),
        ["Wire cargo nightly publishing from nightly.yml"]
    );
    // The skill read in an earlier pass: its steps come with the cursor.
    let mut b = Builder::new(&NoSubagents);
    for l in &lines[..2] {
        b.feed(&Record::parse(l.to_string().as_bytes()).unwrap());
    }
    let steps = b.skill_steps().to_vec();
    assert_eq!(steps.len(), 3, "{steps:?}");
    let mut b = Builder::new(&NoSubagents).with_skill_steps(steps);
    for l in [
        user("go on"),
        calls(&[("t", "TodoWrite", todos)]),
        result("t", "ok", false, json!(null)),
    ] {
        b.feed(&Record::parse(l.to_string().as_bytes()).unwrap());
    }
    let turns = b.finish();
    assert_eq!(
        texts(&turns[0]),
        ["Wire cargo nightly publishing from nightly.yml"]
    );
    // A key in a skill's step is not kept.
    assert_eq!(
        step_words("1. Export ghp_4f9a8b7c6d5e4f3a2b1c before the Deploy"),
        ["export", "ghp", "before", "the", "deploy"]
    );
    // Without the skill, every to-do is the project's.
    let turns = build(&[
        user("plan it"),
        calls(&[(
            "t",
            "TodoWrite",
            json!({"todos": [{"content": "Spec self-review", "status": "pending", "activeForm": "x"}]}),
        )]),
        result("t", "ok", false, json!(null)),
    ]);
    assert_eq!(texts(&turns[0]), ["Spec self-review"]);
}

/// A piped line the shell refused to run (zsh globbing a `?`) exits 0
/// through its pipe: still a failure, resolved by the quoted rerun.
#[test]
fn a_line_the_shell_refused_behind_a_pipe_failed() {
    let turns = build(&[
        user("review PR 36"),
        calls(&[(
            "a",
            "Bash",
            json!({"command": "gh api repos/o/r/contents/go.mod?ref=fix --jq .content | base64 -d"}),
        )]),
        result(
            "a",
            "(eval):1: no matches found: repos/o/r/contents/go.mod?ref=fix",
            false,
            json!(null),
        ),
        calls(&[(
            "b",
            "Bash",
            json!({"command": "gh api 'repos/o/r/contents/go.mod?ref=fix' --jq .content | base64 -d"}),
        )]),
        result("b", "module example.com/r\n\ngo 1.24", false, json!(null)),
        say("The module is on Go 1.24."),
    ]);
    let e = &turns[0].errors;
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].message.contains("no matches found") && e[0].resolved,
        "{e:?}"
    );
    // A line whose output only mentions the words ran.
    let turns = build(&[
        user("search the logs"),
        calls(&[(
            "a",
            "Bash",
            json!({"command": "grep -r 'no matches found' logs | head"}),
        )]),
        result(
            "a",
            "logs/a.txt: zsh: no matches found: *.rs",
            false,
            json!(null),
        ),
    ]);
    assert!(turns[0].errors.is_empty(), "{:?}", turns[0].errors);
}
