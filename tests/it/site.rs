//! `cairn site` on a fixture project: the page's structure, its escaping of
//! hostile memory text, and `--merge` counting each response once.

#[path = "site/fixture.rs"]
mod fixture;
#[path = "site/outline.rs"]
mod outline;

use crate::common::Project;
use serde_json::Value;
use std::path::{Path, PathBuf};

struct Site {
    p: Project,
    config: PathBuf,
}

impl Site {
    fn new() -> Site {
        let mut p = Project::new();
        let config = p.base.join("claude");
        fixture::populate(&p.root, &config, &p.state);
        p.env("CLAUDE_CONFIG_DIR", config.to_str().unwrap());
        Site { p, config }
    }

    fn run(&self, args: &[&str]) -> (String, String) {
        let out = self
            .p
            .cairn()
            .current_dir(&self.p.root)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    fn page(&self, extra: &[&str]) -> String {
        let dir = self.p.base.join("site");
        let mut args = vec!["site", "--out", dir.to_str().unwrap(), "--json"];
        args.extend(extra);
        let (out, _) = self.run(&args);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            Path::new(v["path"].as_str().unwrap()),
            dir.join("index.html")
        );
        std::fs::read_to_string(dir.join("index.html")).unwrap()
    }
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> &'a str {
    let i = s.find(start).unwrap_or_else(|| panic!("no {start}")) + start.len();
    let j = s[i..].find(end).map_or(s.len(), |j| i + j);
    &s[i..j]
}

#[test]
fn hostile_bullets_render_as_text_and_nothing_can_load_or_run() {
    let s = Site::new();
    let html = s.page(&[]);
    // Exactly the page's own two scripts: the index and the code.
    assert_eq!(html.matches("<script").count(), 2, "{html}");
    assert!(!html.contains("window.__pwned = 1</script>"));
    assert!(
        html.contains("&lt;script&gt;window.__pwned = 1&lt;/script&gt; script tag in a bullet")
    );
    assert!(html.contains(r#"&lt;img src=x onerror="window.__pwned = 2"&gt;"#));
    assert!(html.contains(r#"&lt;b onmouseover="window.__pwned=5"&gt;"#));
    // No tag carries an event handler, a script URL or a remote source.
    let tags = regex::Regex::new(r"<[a-zA-Z][^>]*>").unwrap();
    for t in tags.find_iter(&html).map(|m| m.as_str()) {
        let lower = t.to_ascii_lowercase();
        assert!(!lower.contains(" on"), "handler in {t}");
        assert!(!lower.contains("javascript:"), "script URL in {t}");
        assert!(!lower.contains("src="), "a source in {t}");
        assert!(
            !lower.starts_with("<img")
                && !lower.starts_with("<link")
                && !lower.starts_with("<iframe"),
            "{t}"
        );
    }
    let memory = between(&html, r#"id="panel-memory""#, "</section>");
    assert!(
        !memory.contains("http://203.0.113.9"),
        "the image's URL went into the page"
    );
    assert!(html.contains("tracker"), "the image's alt text stays");
    // The search index cannot close its element.
    let index = between(&html, r#"id="search-index""#, "</script>");
    assert!(!index.contains('<'));
    assert!(index.contains("window.__pwned = 4"));
    // A Content-Security-Policy keeps anything that slipped through inert.
    let csp = between(&html, "Content-Security-Policy\" content=\"", "\"");
    assert!(
        csp.starts_with("default-src 'none'; style-src 'nonce-"),
        "{csp}"
    );
    let nonce = between(csp, "'nonce-", "'");
    assert_eq!(html.matches(&format!("nonce=\"{nonce}\"")).count(), 3);
}

#[test]
fn the_page_has_four_tabs_and_the_memory_newest_first() {
    let s = Site::new();
    let html = s.page(&[]);
    assert_eq!(html.matches(r#"role="tab" "#).count(), 4);
    for id in ["memory", "spend", "guard", "audits"] {
        assert!(
            html.contains(&format!(r#"id="panel-{id}" aria-labelledby="tab-{id}""#)),
            "{id}"
        );
    }
    let pos = |d: &str| {
        html.find(&format!(r#"id="day-{d}""#))
            .unwrap_or_else(|| panic!("{d}"))
    };
    assert!(pos("2026-11-29") < pos("2026-11-28") && pos("2026-11-28") < pos("2026-11-27"));
    // Both languages' headings, each bullet linked to its file and line.
    assert!(html.contains("<h5>Problèmes rencontrés</h5>"));
    assert!(html.contains("<h5>Problems</h5>"));
    assert!(
        html.contains(r#"href="memory_sessions/logs/2026-11-29.md#L4">:4</a>"#),
        "{html}"
    );
    assert!(html.contains("<code>src/usage/store.rs</code> <strong>sans perte</strong>"));
    // The to-dos still open across days, each where it is written.
    let todos = between(&html, r#"<ul class="todos">"#, "</ul>");
    assert!(
        todos.contains("Ajouter le verrou flock sur macOS"),
        "{todos}"
    );
    assert!(
        todos.contains("Benchmark the Stop hook on a 25 MB transcript."),
        "{todos}"
    );
    assert!(
        todos.contains("memory_sessions/logs/2026-11-29.md:14"),
        "{todos}"
    );
    // Long memory's and checkpoints' bullets lead to their line too.
    assert!(
        html.contains(r#"Le ledger survit au nettoyage des transcripts à 30 jours. <a class="ln" href="memory_sessions/long_memory.md#L4">:4</a></li>"#),
        "{html}"
    );
    assert!(
        html.contains(
            r#"<a class="ln" href="memory_sessions/checkpoints/2026-11-29T101500Z-s-hot.md#L"#
        ),
        "{html}"
    );
    assert!(html.contains("2026-11-29T101500Z-s-hot.md"));
    // The base makes those relative links point into the repository.
    let base = between(&html, "<base href=\"", "\"");
    assert!(
        base.starts_with("file:///") && base.ends_with("/proj/"),
        "{base}"
    );
}

#[test]
fn spend_matches_the_usage_report_and_the_guard_shows_the_fire() {
    let s = Site::new();
    let html = s.page(&[]);
    let (daily, _) = s.run(&["usage", "daily", "--json"]);
    let total = serde_json::from_str::<Value>(&daily).unwrap()["totals"]["totalCost"]
        .as_f64()
        .unwrap();
    assert!(total > 0.0);
    assert!(
        html.contains(&format!("<p class=\"lead\">${total:.2} over 2 days")),
        "{total}"
    );
    let spend = between(&html, r#"id="panel-spend""#, "</section>");
    assert!(
        spend.contains("<title>2026-11-29 — $"),
        "stacked bars carry titles"
    );
    assert!(spend.contains("opus-4-5") && spend.contains("sonnet-4-5"));
    assert!(spend.contains("<th>Date</th>"), "a table beside the chart");
    let guard = between(&html, r#"id="panel-guard""#, "</section>");
    assert!(guard.contains("s-hot"), "{guard}");
    assert!(guard.contains("fired ×1"), "{guard}");
    assert!(guard.contains(r#"class="rule warn""#) && guard.contains(r#"class="rule hard""#));
    assert!(guard.contains("<circle class=\"fire\""), "{guard}");
    assert!(
        guard.contains(r#"href="memory_sessions/checkpoints/2026-11-29T101500Z-s-hot.md""#),
        "{guard}"
    );
    assert!(guard.contains("<td>2026-11-29</td><td class=\"num\">1</td><td class=\"num\">1</td><td>prior_artifact ×1</td>"), "{guard}");
    let audits = between(&html, r#"id="panel-audits""#, "</section>");
    assert!(audits.contains("token_audit_rapport_hebdo.md"));
    assert!(
        audits.contains("<table>"),
        "the index's Markdown table is rendered"
    );
}

#[test]
fn since_drops_older_days() {
    let s = Site::new();
    let html = s.page(&["--since", "20261128"]);
    assert!(html.contains(r#"id="day-2026-11-28""#));
    assert!(!html.contains(r#"id="day-2026-11-27""#));
    assert!(html.contains("since 2026-11-28"));
}

fn daily_total(out: &str) -> f64 {
    serde_json::from_str::<Value>(out).unwrap()["totals"]["totalCost"]
        .as_f64()
        .unwrap()
}

#[test]
fn merged_exports_count_each_response_once() {
    let a = Site::new();
    let export = a.p.base.join("laptop.json");
    let (said, _) = a.run(&["usage", "export", "--out", export.to_str().unwrap()]);
    assert!(said.contains("2 sessions, 18 responses"), "{said}");
    let (own, _) = a.run(&["usage", "daily", "--json"]);
    let own = daily_total(&own);

    // The same machine merging its own export: nothing counted twice.
    let (same, _) = a.run(&[
        "usage",
        "daily",
        "--json",
        "--merge",
        export.to_str().unwrap(),
    ]);
    assert_eq!(daily_total(&same), own);

    // Another machine with no transcript of its own sees the laptop's total,
    // once even when the file is given twice.
    let mut b = Project::new();
    let empty = b.base.join("claude");
    std::fs::create_dir_all(empty.join("projects")).unwrap();
    b.env("CLAUDE_CONFIG_DIR", empty.to_str().unwrap());
    let out = b
        .cairn()
        .args(["usage", "daily", "--json", "--merge"])
        .arg(&export)
        .arg(&export)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(daily_total(&String::from_utf8_lossy(&out.stdout)), own);

    // With transcripts of its own, the totals add up.
    let desktop = Site::new();
    let (alone, _) = desktop.run(&["usage", "daily", "--json"]);
    let _ = alone;
    let cfg = desktop.config.join("projects/-proj");
    for f in ["s-calm.jsonl", "s-hot.jsonl"] {
        let t = std::fs::read_to_string(cfg.join(f))
            .unwrap()
            .replace("msg_s", "msg_d")
            .replace("req_s", "req_d");
        std::fs::write(cfg.join(f), t).unwrap();
    }
    let (mine, _) = desktop.run(&["usage", "daily", "--json"]);
    let (both, _) = desktop.run(&[
        "usage",
        "daily",
        "--json",
        "--merge",
        export.to_str().unwrap(),
    ]);
    assert!((daily_total(&both) - (daily_total(&mine) + own)).abs() < 1e-6);

    // The site reads the merged files too.
    let html = desktop.page(&["--merge", export.to_str().unwrap()]);
    assert!(html.contains("1 merged file"));
    assert!(html.contains(&format!("${:.2} over 2 days", daily_total(&both))));
}

#[test]
fn a_torn_merge_file_is_an_error_naming_it() {
    let s = Site::new();
    let bad = s.p.base.join("bad.json");
    std::fs::write(&bad, "{\"format\":").unwrap();
    let out =
        s.p.cairn()
            .args(["usage", "daily", "--merge"])
            .arg(&bad)
            .output()
            .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("not a cairn usage export"),
        "{err}"
    );
}

/// Writes the fixture's page where `scripts/site_browser.mjs` loads it:
/// `cargo test --test it -- --ignored --exact site::write_fixture_site`.
#[test]
#[ignore = "run by scripts/test.sh before the browser test"]
fn write_fixture_site() {
    let s = Site::new();
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/site-fixture");
    let _ = std::fs::remove_dir_all(&out);
    // The project itself must outlive the test: the page links into it.
    let keep = out.join("project");
    copy_dir(&s.p.root, &keep);
    let (o, _) = s.run(&["site", "--out", out.to_str().unwrap()]);
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let base = format!("file://{}/", s.p.root.display());
    std::fs::write(
        out.join("index.html"),
        html.replace(&base, &format!("file://{}/", keep.display())),
    )
    .unwrap();
    assert!(o.contains("Wrote"), "{o}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

/// Gate notes were not recorded before the site needed them: the hook now
/// appends one line per note, without the prompt, and the page counts it.
#[test]
fn a_gate_note_is_recorded_without_the_prompt_and_shown_per_day() {
    let s = Site::new();
    let secret = "Fix the bug like last time, token sk-ant-api03-XYZ";
    let o = s.p.hook(&serde_json::json!({
        "session_id": "s-gate", "transcript_path": "/x", "cwd": s.p.root,
        "hook_event_name": "UserPromptSubmit", "prompt": secret
    }));
    assert!(o.status.success() && !o.stdout.is_empty());
    let journal = std::fs::read_to_string(s.p.state.join("gate/notes.jsonl")).unwrap();
    let last: Value = serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    assert_eq!(last["session"], "s-gate");
    assert_eq!(last["at"], "2026-11-30T12:00:00Z");
    assert!(!journal.contains("sk-ant") && !journal.contains("like last time"));
    // A prompt the gate lets through leaves no line.
    let quiet = s.p.hook(&serde_json::json!({
        "session_id": "s-gate", "transcript_path": "/x", "cwd": s.p.root,
        "hook_event_name": "UserPromptSubmit", "prompt": "Fix the off-by-one in src/parse.rs:42"
    }));
    assert!(quiet.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(s.p.state.join("gate/notes.jsonl")).unwrap(),
        journal
    );
    let html = s.page(&[]);
    let guard = between(&html, r#"id="panel-guard""#, "</section>");
    assert!(
        guard.contains("<td>2026-11-30</td><td class=\"num\">1</td>"),
        "{guard}"
    );
}

#[test]
fn days_past_the_newest_120_are_listed_and_stay_searchable() {
    let s = Site::new();
    let logs = s.p.root.join("memory_sessions/logs");
    let start: jiff::civil::Date = "2026-06-01".parse().unwrap();
    for d in 0..125 {
        let date = start.checked_add(jiff::Span::new().days(d)).unwrap();
        std::fs::write(
            logs.join(format!("{date}.md")),
            format!("# Session log — {date}\n\n## Work done\n- bullet of {date}\n"),
        )
        .unwrap();
    }
    let html = s.page(&[]);
    let memory = between(&html, r#"id="panel-memory""#, "</section>");
    // 128 days in all: the oldest (2026-06-01 …) are one line each.
    assert!(memory.contains(r#"<li class="day short" id="day-2026-06-01"><a href="memory_sessions/logs/2026-06-01.md">2026-06-01</a> <span class="muted">1 bullet</span></li>"#), "{memory}");
    assert!(!memory.contains("bullet of 2026-06-01"));
    assert!(
        memory.contains("bullet of 2026-10-02"),
        "a recent day is in full"
    );
    let index = between(&html, r#"id="search-index""#, "</script>");
    assert!(index.contains("bullet of 2026-06-01"));
    // Asked for, older days come back in full.
    let since = s.page(&["--since", "2026-06-01"]);
    assert!(between(&since, r#"id="panel-memory""#, "</section>").contains("bullet of 2026-06-01"));
}

#[test]
fn the_command_says_what_it_wrote_and_export_prints_to_stdout() {
    let s = Site::new();
    let (out, _) = s.run(&["site"]);
    let path = default_page(&s.p.state, "proj");
    assert!(
        path.exists(),
        "the default place is <state>/site/<project>-<hash>/"
    );
    assert!(
        out.starts_with(&format!("Wrote {} (", path.display()))
            && out.contains("KB): 3 days, 28 bullets, 4 open to-dos, $0.98 spent, 2 sessions drawn, 1 gate note, 1 audit."),
        "{out}"
    );
    let (json, _) = s.run(&["usage", "export"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["format"], "cairn-usage-export");
    assert_eq!(v["version"], 2);
    assert_eq!(v["sessions"].as_array().unwrap().len(), 2);
}

/// The one `<state>/site/<name>-<8 hex>/index.html` page of a project
/// named `name`.
fn default_page(state: &Path, name: &str) -> PathBuf {
    let shape = regex::Regex::new(&format!("^{name}-[0-9a-f]{{8}}$")).unwrap();
    let dirs: Vec<PathBuf> = std::fs::read_dir(state.join("site"))
        .unwrap()
        .flatten()
        .filter(|e| shape.is_match(&e.file_name().to_string_lossy()))
        .map(|e| e.path().join("index.html"))
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.into_iter().next().unwrap()
}

/// Two checkouts both called `proj` wrote `<state>/site/proj/index.html`,
/// each overwriting the other's page. The folder now carries a hash of the
/// root: each project keeps its page, and a rebuild lands in the same place.
#[test]
fn regression_same_named_projects_get_their_own_default_page() {
    let s = Site::new();
    let other = s.p.base.join("elsewhere/proj");
    std::fs::create_dir_all(other.join(".git")).unwrap();
    std::fs::create_dir_all(other.join("memory_sessions/logs")).unwrap();
    std::fs::write(
        other.join("memory_sessions/logs/2026-11-30.md"),
        "# Session log — 2026-11-30\n\n## Work done\n- only in the other checkout\n",
    )
    .unwrap();
    let site_json = |cwd: &Path| -> PathBuf {
        let out =
            s.p.cairn()
                .current_dir(cwd)
                .args(["site", "--json"])
                .output()
                .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        PathBuf::from(v["path"].as_str().unwrap())
    };
    let first = site_json(&s.p.root);
    let second = site_json(&other);
    assert_ne!(first, second);
    for p in [&first, &second] {
        assert_eq!(
            p.parent().unwrap().parent().unwrap(),
            s.p.state.join("site")
        );
        assert!(
            p.parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("proj-"),
            "{p:?}"
        );
    }
    let mine = std::fs::read_to_string(&first).unwrap();
    let theirs = std::fs::read_to_string(&second).unwrap();
    assert!(!mine.contains("only in the other checkout"));
    assert!(theirs.contains("only in the other checkout"));
    assert!(!theirs.contains("Ajouter le verrou flock sur macOS"));
    // Built again from the same checkout: the same page, not a third one.
    assert_eq!(site_json(&s.p.root), first);
    assert_eq!(
        std::fs::read_dir(s.p.state.join("site")).unwrap().count(),
        2
    );
}

/// The page an earlier version wrote at `<state>/site/<name>/` would stay
/// there, stale, after the move: it is removed when its `<base>` names this
/// project's root, and a same-named project's old page is left alone.
#[test]
fn the_old_name_only_page_of_this_project_is_removed() {
    let s = Site::new();
    // What the earlier version left: this project's page, then the page of
    // another checkout also called `proj`.
    let old = s.p.state.join("site/proj/index.html");
    std::fs::create_dir_all(old.parent().unwrap()).unwrap();
    let mine = format!(
        "<!doctype html><base href=\"file://{}/\">stale",
        s.p.root.display()
    );
    std::fs::write(&old, &mine).unwrap();
    let (out, _) = s.run(&["site"]);
    assert!(
        out.contains(&format!(
            "Removed the page an earlier cairn wrote for this project at {}",
            old.display()
        )),
        "{out}"
    );
    assert!(!old.exists() && !old.parent().unwrap().exists());
    assert!(default_page(&s.p.state, "proj").exists());

    let theirs = "<!doctype html><base href=\"file:///elsewhere/proj/\">theirs";
    std::fs::create_dir_all(old.parent().unwrap()).unwrap();
    std::fs::write(&old, theirs).unwrap();
    let (out, _) = s.run(&["site", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v.get("removed_old_page").is_none(), "{v}");
    assert_eq!(std::fs::read_to_string(&old).unwrap(), theirs);
}

#[cfg(unix)]
#[test]
fn regression_audit_reports_linked_out_of_the_project_are_not_published() {
    let s = Site::new();
    let secret = s.p.base.join("outside-secret.md");
    std::fs::write(&secret, "# Secret\n\nAWS_KEY=outside-the-project\n").unwrap();
    let dir = s.p.root.join("docs/audits/token");
    std::fs::remove_file(dir.join("README.md")).unwrap();
    std::os::unix::fs::symlink(&secret, dir.join("README.md")).unwrap();
    std::os::unix::fs::symlink(&secret, dir.join("token_audit_leak.md")).unwrap();
    let html = s.page(&[]);
    assert!(
        !html.contains("outside-the-project"),
        "the secret was published"
    );
    let audits = between(&html, "id=\"panel-audits\"", "</section>");
    assert!(
        audits.contains("README.md: not shown: a link to a file outside the project"),
        "{audits}"
    );
    // The reason does not say where the link points.
    assert!(!audits.contains("outside-secret"), "{audits}");
    // The real report is still there.
    assert!(audits.contains("token_audit_rapport_hebdo.md"), "{audits}");
}

#[cfg(unix)]
#[test]
fn regression_a_fifo_given_to_merge_is_refused_instead_of_blocking() {
    let s = Site::new();
    let fifo = s.p.base.join("export.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()));
    let out =
        s.p.cairn()
            .current_dir(&s.p.root)
            .args(["site", "--merge"])
            .arg(&fifo)
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("export.fifo") && err.contains("not a regular file"),
        "{err}"
    );
}

fn memory_line(ts: &str, input: u64) -> String {
    format!(
        "{}\n",
        serde_json::json!({
            "ts": ts, "date": &ts[..10], "kind": "memory", "backend": "anthropic/memory",
            "model": "claude-haiku-4-5", "input_tokens": input, "output_tokens": 800,
            "cache_write_tokens": 0, "cache_read_tokens": 0, "usd": null
        })
    )
}

fn day<'a>(report: &'a Value, date: &str) -> &'a Value {
    report["daily"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["date"] == date)
        .unwrap_or_else(|| panic!("no {date} in {report}"))
}

/// Memory spend was not in the export: a merged machine's extraction cost
/// was lost. It is now, once per call, with each machine's share per day.
#[test]
fn merged_exports_carry_memory_spend_once_per_call() {
    let laptop = Site::new();
    let ledger = laptop.p.state.join("ledger/memory.jsonl");
    std::fs::create_dir_all(ledger.parent().unwrap()).unwrap();
    std::fs::write(
        &ledger,
        memory_line("2026-11-28T09:30:00.000000001Z", 300_000)
            + &memory_line("2026-11-29T10:05:00.000000002Z", 200_000),
    )
    .unwrap();
    let export = laptop.p.base.join("laptop.json");
    let (said, _) = laptop.run(&["usage", "export", "--out", export.to_str().unwrap()]);
    assert!(said.contains("2 memory calls"), "{said}");
    let (own, _) = laptop.run(&["usage", "daily", "--json"]);
    let own: Value = serde_json::from_str(&own).unwrap();
    let own_cost = own["totals"]["memoryCost"].as_f64().unwrap();
    assert!(own_cost > 0.0, "{own}");

    // Merging its own export back changes nothing.
    let (same, _) = laptop.run(&[
        "usage",
        "daily",
        "--json",
        "--merge",
        export.to_str().unwrap(),
    ]);
    let same: Value = serde_json::from_str(&same).unwrap();
    assert_eq!(same["totals"]["memoryCost"], own["totals"]["memoryCost"]);
    assert_eq!(same["totals"]["memoryCalls"], 2);

    // A desktop with a call of its own on the 29th sees both machines.
    let desktop = Site::new();
    let ledger = desktop.p.state.join("ledger/memory.jsonl");
    std::fs::create_dir_all(ledger.parent().unwrap()).unwrap();
    std::fs::write(
        &ledger,
        memory_line("2026-11-29T15:00:00.000000003Z", 100_000),
    )
    .unwrap();
    let (alone, _) = desktop.run(&["usage", "daily", "--json"]);
    let alone: Value = serde_json::from_str(&alone).unwrap();
    let (both, _) = desktop.run(&[
        "usage",
        "daily",
        "--json",
        "--merge",
        export.to_str().unwrap(),
    ]);
    let both: Value = serde_json::from_str(&both).unwrap();
    assert_eq!(both["totals"]["memoryCalls"], 3);
    let sum = alone["totals"]["memoryCost"].as_f64().unwrap() + own_cost;
    assert!(
        (both["totals"]["memoryCost"].as_f64().unwrap() - sum).abs() < 1e-6,
        "{both}"
    );
    let d29 = day(&both, "2026-11-29");
    assert_eq!(d29["memoryCalls"], 2);
    let machines: Vec<&str> = d29["memoryByMachine"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["machine"].as_str().unwrap())
        .collect();
    assert_eq!(machines, ["this machine", "laptop.json"]);
    // Without --merge the report keeps its shape.
    assert!(day(&alone, "2026-11-29").get("memoryByMachine").is_none());

    // The page's memory table says who spent what.
    let html = desktop.page(&["--merge", export.to_str().unwrap()]);
    let spend = between(&html, "<h3>Memory spend against", "</section>");
    let row = between(spend, "<td>2026-11-29</td>", "</tr>");
    assert!(
        row.contains("this machine $") && row.contains("laptop.json $"),
        "{row}"
    );
    assert!(spend.contains("<td>2026-11-28</td>"), "{spend}");
}

/// Sessions from another machine's export were marked "transcript missing".
#[test]
fn merged_sessions_are_from_another_machine_not_missing() {
    let laptop = Site::new();
    let export = laptop.p.base.join("laptop.json");
    laptop.run(&["usage", "export", "--out", export.to_str().unwrap()]);
    let mut b = Project::new();
    let empty = b.base.join("claude");
    std::fs::create_dir_all(empty.join("projects")).unwrap();
    b.env("CLAUDE_CONFIG_DIR", empty.to_str().unwrap());
    let run = |args: &[&str]| {
        let out = b
            .cairn()
            .args(args)
            .arg("--merge")
            .arg(&export)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let v: Value = serde_json::from_str(&run(&["usage", "session", "--json"])).unwrap();
    let rows = v["sessions"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    for r in rows {
        assert_eq!(r["transcriptMissing"], false, "{r}");
        assert_eq!(r["mergedFrom"], "laptop.json", "{r}");
    }
    let text = run(&["usage", "session"]);
    assert!(text.contains("s-hot+"), "{text}");
    assert!(text.contains("+ from another machine"), "{text}");
    assert!(!text.contains("transcript not found"), "{text}");

    let dir = b.base.join("site");
    run(&["site", "--out", dir.to_str().unwrap()]);
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let sessions = between(&html, "<h3>Costliest sessions</h3>", "</table>");
    assert_eq!(sessions.matches("other machine").count(), 2, "{sessions}");
    assert!(!sessions.contains(">ledger<"), "{sessions}");
    // The export carries no guard or gate history: the Guard tab says its
    // fires are this machine's instead of looking like the whole picture,
    // and the laptop's sessions ran elsewhere, so none is drawn.
    let guard = between(&html, r#"id="panel-guard""#, "</section>");
    assert!(
        guard.contains("Fires and gate notes are this machine's only"),
        "{guard}"
    );
    assert!(
        guard.contains("No session of this project in the usage ledger nor, under this project's path, in the merged files yet."),
        "{guard}"
    );
    let alone = laptop.page(&[]);
    assert!(!between(&alone, r#"id="panel-guard""#, "</section>").contains("this machine's only"));
}

/// Under `--merge` the Guard tab drew this machine's sessions only, though
/// the export holds every response's context fill. Another machine's
/// session of the same path (a synced home, a dev container) is now drawn,
/// marked, without fires; one both machines hold is drawn once, with them.
#[test]
fn the_guard_tab_draws_merged_sessions_of_the_same_path() {
    let laptop = Site::new();
    let export = laptop.p.base.join("laptop.json");
    laptop.run(&["usage", "export", "--out", export.to_str().unwrap()]);

    // Merging its own export: each session once, the fire still there.
    let own = laptop.page(&["--merge", export.to_str().unwrap()]);
    let guard = between(&own, r#"id="panel-guard""#, "</section>");
    assert_eq!(guard.matches("<code>s-hot</code>").count(), 1, "{guard}");
    assert!(guard.contains("fired ×1"), "{guard}");
    assert!(!guard.contains("other machine"), "{guard}");

    // A desktop whose checkout has the laptop's path: the laptop's
    // sessions are drawn from the file.
    let mut b = Project::new();
    let empty = b.base.join("claude");
    std::fs::create_dir_all(empty.join("projects")).unwrap();
    b.env("CLAUDE_CONFIG_DIR", empty.to_str().unwrap());
    let same_path = b.base.join("laptop.json");
    let text = std::fs::read_to_string(&export).unwrap().replace(
        &laptop.p.root.display().to_string(),
        &b.root.display().to_string(),
    );
    std::fs::write(&same_path, text).unwrap();
    let dir = b.base.join("site");
    let out = b
        .cairn()
        .args(["site", "--out"])
        .arg(&dir)
        .arg("--merge")
        .arg(&same_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 sessions drawn"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let guard = between(&html, r#"id="panel-guard""#, "</section>");
    let hot = between(guard, "<code>s-hot</code>", "</details>");
    assert!(
        hot.contains(r#"title="from laptop.json">other machine</span>"#),
        "{hot}"
    );
    assert!(hot.contains("From laptop.json: the guard's fires"), "{hot}");
    assert!(!hot.contains("fired ×"), "{hot}");
    assert!(hot.contains("<svg"), "{hot}");
}

/// The guard's 30-day sweep removed the ratchets, and with them every fire
/// the Guard tab showed. Fires are now also kept in `guard/history.jsonl`.
#[test]
fn guard_fires_outlive_the_sweep_of_the_ratchets() {
    let s = Site::new();
    let ratchet = s.p.state.join("guard/sessions/s-hot.json");
    std::fs::remove_file(&ratchet).unwrap();
    let transcript = s.config.join("projects/-proj/s-hot.jsonl");
    let stop = serde_json::json!({
        "session_id": "s-hot", "transcript_path": transcript, "cwd": s.p.root,
        "hook_event_name": "Stop", "stop_hook_active": false,
        "last_assistant_message": "ok"
    });
    let out = s.p.hook(&stop);
    let said: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no block: {}", s.p.diagnostics()));
    assert_eq!(said["decision"], "block");
    assert!(ratchet.exists());
    let history = std::fs::read_to_string(s.p.state.join("guard/history.jsonl")).unwrap();
    assert_eq!(history.lines().count(), 1, "{history}");
    assert!(
        !history.contains("\"ok\""),
        "no text of the session: {history}"
    );

    // 40 days later a session starts and the sweep removes the ratchet.
    let aged = std::process::Command::new("touch")
        .args(["-d", "40 days ago"])
        .arg(&ratchet)
        .status();
    assert!(aged.is_ok_and(|a| a.success()));
    let start = serde_json::json!({
        "session_id": "s-next", "cwd": s.p.root, "hook_event_name": "SessionStart",
        "source": "startup"
    });
    assert!(s.p.hook(&start).status.success());
    assert!(!ratchet.exists(), "the sweep ran");

    let html = s.page(&[]);
    let guard = between(&html, r#"id="panel-guard""#, "</section>");
    let hot = between(guard, "<code>s-hot</code>", "</details>");
    assert!(hot.contains("fired ×1"), "{hot}");
    assert!(hot.contains("<td>hard</td>"), "{hot}");
    assert!(hot.contains("<circle class=\"fire\""), "{hot}");
    assert!(
        hot.contains(r#"<p>Checkpoint: <a href="memory_sessions/checkpoints/"#),
        "{hot}"
    );
}

/// The page's structure on the fixture project, as an outline (tabs,
/// headings, every bullet's HTML as written, tables and charts by count),
/// with the command's own output: a change to any of them shows here.
#[test]
fn the_page_outline_on_the_fixture() {
    let s = Site::new();
    let dir = s.p.base.join("site");
    let o =
        s.p.cairn()
            .current_dir(&s.p.root)
            .args(["site", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
    let base = s.p.base.display().to_string();
    // The size moves with every CSS edit; the counts are what matter here.
    let kb = regex::Regex::new(r"\(\d+ KB\)").unwrap();
    let cli = crate::common::output_text(&o).replace(&base, "[BASE]");
    let cli = kb.replace(&cli, "([N] KB)");
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let page = outline::outline(&html, &s.p.root.display().to_string());
    for h in fixture::HOSTILE {
        let first = h.split(' ').next().unwrap();
        assert!(!page.contains(&format!("- {first}")), "{h} unescaped");
    }
    crate::common::snapshot(
        "site_fixture_outline",
        &format!("{cli}------- page outline -------\n{page}"),
    );
}

/// Memory files the jail refuses were skipped without a word: the page now
/// says which and why, and still publishes none of their content.
#[cfg(unix)]
#[test]
fn refused_memory_files_are_named_on_the_page_never_published() {
    let s = Site::new();
    let secret = s.p.base.join("credentials");
    std::fs::write(&secret, "- aws_secret_access_key = outside-the-project\n").unwrap();
    let mem = s.p.root.join("memory_sessions");
    std::fs::remove_file(mem.join("long_memory.md")).unwrap();
    std::os::unix::fs::symlink(&secret, mem.join("long_memory.md")).unwrap();
    std::os::unix::fs::symlink(&secret, mem.join("logs/2026-11-30.md")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(mem.join("logs/2026-11-26.md"))
        .status();
    assert!(made.is_ok_and(|s| s.success()));
    let huge = format!(
        "# Log\n\n## Travail produit\n- big\n{}",
        "x".repeat(9 << 20)
    );
    std::fs::write(mem.join("logs/2026-11-25.md"), huge).unwrap();
    let html = s.page(&[]);
    assert!(!html.contains("outside-the-project"), "published");
    let memory = between(&html, r#"id="panel-memory""#, "</section>");
    for want in [
        "memory_sessions/long_memory.md: not shown: a link to a file outside the project",
        "memory_sessions/logs/2026-11-30.md: not shown: a link to a file outside the project",
        "memory_sessions/logs/2026-11-26.md: not shown: a FIFO, not a regular file",
        "memory_sessions/logs/2026-11-25.md: not shown: 9.0 MiB, over the 8 MiB cap",
    ] {
        assert!(memory.contains(want), "{want}");
    }
    assert!(!memory.contains(&s.p.base.join("credentials").display().to_string()));
    // The readable days are all there.
    assert!(memory.contains(r#"id="day-2026-11-29""#));
}

/// The Spend tab showed UTC times beside the Guard tab's local ones.
#[test]
fn spend_times_are_in_the_local_zone_like_the_rest_of_the_page() {
    let mut s = Site::new();
    s.p.env("TZ", "Europe/Paris");
    let html = s.page(&[]);
    assert!(
        html.contains("Written 2026-11-30 13:00 CET"),
        "the header's zone"
    );
    let blocks = between(&html, "<h3>Costliest 5-hour blocks</h3>", "</table>");
    assert!(blocks.contains("<td>2026-11-29 11:00</td>"), "{blocks}");
    let sessions = between(&html, "<h3>Costliest sessions</h3>", "</table>");
    assert!(sessions.contains("<td>2026-11-29 11:44</td>"), "{sessions}");
    let guard = between(&html, r#"id="panel-guard""#, "</section>");
    assert!(guard.contains("2026-11-29 11:00 · claude-opus"), "{guard}");
    assert!(guard.contains("<td>2026-11-29 11:36</td>"), "{guard}");
}
