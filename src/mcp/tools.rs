//! The three tools: their schemas, argument checks and answers, as plain
//! functions the server calls and tests run without a transport.
//!
//! Two kinds of failure: a malformed call (unknown tool, missing or
//! mistyped argument) is a JSON-RPC error; a well-formed call the memory
//! cannot satisfy (unknown project, a path outside the memory, no match) is
//! a tool result flagged as an error, which the model reads and can act on.

use crate::context::Ctx;
use crate::fsutil::confine::{Kind, MAX_MEMORY_FILE_BYTES, Refused, read_regular};
use crate::memory::config::MemoryConfig;
use crate::memory::log::{SectionKey, bullet_key};
use crate::memory::store::{Project, Store};
use crate::search::{self, Request, scan};
use rmcp::ErrorData as McpError;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// Characters of one answer. Tool results stay in the context for the rest
/// of the session: a page, never a dump.
pub const MAX_ANSWER_CHARS: usize = 12_000;
/// Lines `memory_get` returns at most in one call.
pub const MAX_GET_LINES: usize = 300;
/// Days `memory_recent` looks back at most.
pub const MAX_RECENT_DAYS: u64 = 31;

#[derive(Debug)]
pub enum Answer {
    Text(String),
    Refused(String),
}

fn schema(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("schemas are objects"),
    }
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
}

pub fn list() -> Vec<Tool> {
    let filters = json!({
        "project": {"type": "string", "description": "Only this project: `root` or a sub-project name."},
        "section": {"type": "string", "description": "Only this log section, French or English (`Décisions prises`, `decisions`, `to do`, `problems`), or part of a long-memory heading."},
        "since": {"type": "string", "description": "First date included, YYYY-MM-DD."},
        "until": {"type": "string", "description": "Last date included, YYYY-MM-DD."},
        "limit": {"type": "integer", "minimum": 1, "maximum": search::MAX_LIMIT, "description": "Number of results (default 10)."}
    });
    let mut search_props = filters.as_object().cloned().unwrap_or_default();
    search_props.insert(
        "query".into(),
        json!({"type": "string", "description": "Words to look for, in French or English; inflections and accents do not matter."}),
    );
    vec![
        Tool::new(
            "memory_search",
            "Search this project's session memory (daily logs, archives, checkpoints, long memory), \
             ranked by relevance. Returns bullets as `path:line (date, section)` then the text.",
            schema(json!({"type": "object", "properties": search_props, "required": ["query"]})),
        )
        .with_annotations(read_only()),
        Tool::new(
            "memory_get",
            "Read a memory file (a path from memory_search, relative to the project root, under \
             memory_sessions/), or a range of its lines. A folder lists its files.",
            schema(json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "e.g. memory_sessions/logs/2026-11-28.md"},
                    "from": {"type": "integer", "minimum": 1, "description": "First line (1-based)."},
                    "to": {"type": "integer", "minimum": 1, "description": "Last line included."}
                },
                "required": ["path"]
            })),
        )
        .with_annotations(read_only()),
        Tool::new(
            "memory_recent",
            "The last days of session logs, newest first, with the open to-dos listed first.",
            schema(json!({
                "type": "object",
                "properties": {
                    "days": {"type": "integer", "minimum": 1, "maximum": MAX_RECENT_DAYS, "description": "Days to look back, today included (default 2)."},
                    "project": {"type": "string", "description": "Only this project."}
                }
            })),
        )
        .with_annotations(read_only()),
    ]
}

pub fn call(
    ctx: &Ctx,
    memory: &MemoryConfig,
    root: &Path,
    name: &str,
    args: &JsonObject,
) -> Result<Answer, McpError> {
    let store = Store::discover(root, memory);
    match name {
        "memory_search" => memory_search(ctx, &store, args),
        "memory_get" => memory_get(ctx, &store, args),
        "memory_recent" => memory_recent(ctx, &store, args),
        other => Err(McpError::invalid_params(
            format!(
                "unknown tool `{}`; tools: memory_search, memory_get, memory_recent",
                crate::diag::one_line(other, 80)
            ),
            None,
        )),
    }
}

fn string(args: &JsonObject, key: &str) -> Result<Option<String>, McpError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(McpError::invalid_params(
            format!("`{key}` must be a string"),
            None,
        )),
    }
}

fn required(args: &JsonObject, key: &str) -> Result<String, McpError> {
    string(args, key)?.ok_or_else(|| McpError::invalid_params(format!("missing `{key}`"), None))
}

fn number(args: &JsonObject, key: &str) -> Result<Option<u64>, McpError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| {
            McpError::invalid_params(format!("`{key}` must be a positive integer"), None)
        }),
    }
}

fn memory_search(ctx: &Ctx, store: &Store, args: &JsonObject) -> Result<Answer, McpError> {
    let req = Request {
        query: required(args, "query")?,
        project: string(args, "project")?,
        section: string(args, "section")?,
        since: string(args, "since")?,
        until: string(args, "until")?,
        limit: Some(number(args, "limit")?.unwrap_or(10) as usize),
    };
    let outcome = match search::search(ctx, store, &req) {
        Ok(o) => o,
        Err(e) => return Ok(Answer::Refused(format!("{e:#}"))),
    };
    let mut out = String::new();
    for n in &outcome.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    if outcome.results.is_empty() {
        out.push_str(&format!("No memory entry matches `{}`.\n", outcome.query));
    } else {
        out.push_str(&search::render(&outcome.results));
    }
    Ok(Answer::Text(bounded(out)))
}

/// Resolves a path given by the client to a file or folder inside one of
/// the projects' `memory_sessions/`, after symlinks: `..`, absolute paths
/// elsewhere and links pointing out are all refused.
fn resolve(ctx: &Ctx, store: &Store, given: &str) -> Result<(std::path::PathBuf, Kind), String> {
    let p = Path::new(given);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        store.root.join(p)
    };
    let outside = || {
        format!(
            "`{given}` is outside the project's memory (memory_sessions/); memory_get reads only memory files"
        )
    };
    let r = match store.jail.resolve(&joined) {
        Ok(r) => r,
        Err(e @ (Refused::Outside { .. } | Refused::Climbs { .. })) => {
            // Only a link is worth a line: a wrong path the model typed is not.
            if joined.symlink_metadata().is_ok() {
                crate::memory::store::report(ctx, &e);
            }
            return Err(outside());
        }
        Err(e) if e.is_hostile() => {
            crate::memory::store::report(ctx, &e);
            return Err(format!("`{given}` is not a regular file or folder"));
        }
        Err(_) => return Err(format!("no such memory file: {given}")),
    };
    if r.kind == Kind::Missing {
        return Err(format!("no such memory file: {given}"));
    }
    // Each memory folder is itself resolved inside the project: a
    // `memory_sessions` that links to the home folder confines nothing.
    let inside = store.projects.iter().any(|proj| {
        store
            .jail
            .resolve(&proj.dir)
            .is_ok_and(|d| d.kind == Kind::Dir && r.real.starts_with(&d.real))
    });
    if !inside {
        return Err(outside());
    }
    Ok((r.real, r.kind))
}

fn memory_get(ctx: &Ctx, store: &Store, args: &JsonObject) -> Result<Answer, McpError> {
    let given = required(args, "path")?;
    let from = number(args, "from")?;
    let to = number(args, "to")?;
    let (real, kind) = match resolve(ctx, store, &given) {
        Ok(p) => p,
        Err(why) => return Ok(Answer::Refused(why)),
    };
    let canon_root = store
        .root
        .canonicalize()
        .unwrap_or_else(|_| store.root.clone());
    let shown = scan::rel_path(&canon_root, &real);
    if kind == Kind::Dir {
        let mut names: Vec<String> = std::fs::read_dir(&real)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| {
                let mut n = e.file_name().to_string_lossy().into_owned();
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    n.push('/');
                }
                n
            })
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        let mut out = format!("{shown}/ ({} entries)\n", names.len());
        for n in names {
            out.push_str(&format!("{shown}/{n}\n"));
        }
        return Ok(Answer::Text(bounded(out)));
    }
    let bytes = match read_regular(&real, MAX_MEMORY_FILE_BYTES) {
        Ok(b) => b,
        Err(e) => return Ok(Answer::Refused(format!("cannot read {shown}: {e}"))),
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    let first = from.unwrap_or(1).max(1) as usize;
    if total == 0 {
        return Ok(Answer::Text(format!("{shown} is empty\n")));
    }
    if first > total {
        return Ok(Answer::Refused(format!(
            "{shown} has {total} lines; `from` {first} is past its end"
        )));
    }
    let asked_last = to.map_or(total, |t| (t as usize).min(total));
    if asked_last < first {
        return Ok(Answer::Refused(format!(
            "`to` {asked_last} is before `from` {first}"
        )));
    }
    let last = asked_last.min(first + MAX_GET_LINES - 1);
    let mut out = format!("{shown} (lines {first}-{last} of {total})\n");
    for (i, line) in lines[first - 1..last].iter().enumerate() {
        out.push_str(&format!("{:>5}  {line}\n", first + i));
    }
    if last < asked_last {
        out.push_str(&format!(
            "… {} more lines: call again with from={}\n",
            asked_last - last,
            last + 1
        ));
    }
    Ok(Answer::Text(bounded(out)))
}

fn memory_recent(ctx: &Ctx, store: &Store, args: &JsonObject) -> Result<Answer, McpError> {
    let days = number(args, "days")?.unwrap_or(2).clamp(1, MAX_RECENT_DAYS);
    let which = string(args, "project")?;
    let projects = match store.select(which.as_deref()) {
        Ok(p) => p,
        Err(why) => return Ok(Answer::Refused(why)),
    };
    let today: jiff::civil::Date = match ctx.today().parse() {
        Ok(d) => d,
        Err(_) => return Ok(Answer::Refused("cannot tell today's date".into())),
    };
    let dates: Vec<String> = (0..days as i64)
        .filter_map(|d| today.checked_sub(jiff::Span::new().days(d)).ok())
        .map(|d| d.to_string())
        .collect();

    struct Day {
        rel: String,
        entries: Vec<scan::Entry>,
    }
    let mut found: Vec<Day> = Vec::new();
    for date in &dates {
        for p in &projects {
            if let Some(day) = read_day(ctx, store, p, date) {
                found.push(day);
            }
        }
    }
    fn read_day(ctx: &Ctx, store: &Store, p: &Project, date: &str) -> Option<Day> {
        let name = format!("{date}.md");
        let (path, text) = [p.logs_dir().join(&name), p.archives_dir().join(&name)]
            .into_iter()
            .find_map(|p| Some((p.clone(), store.read_text(ctx, &p)?)))?;
        let entries = scan::entries(scan::Kind::Log, Some(date), &text);
        Some(Day {
            rel: scan::rel_path(&store.root, &path),
            entries,
        })
    }

    let mut done = std::collections::HashSet::new();
    for day in &found {
        for e in &day.entries {
            if e.section_key == Some(SectionKey::Finalise) {
                done.insert(bullet_key(&e.text));
            }
        }
    }
    let mut out = String::new();
    let mut open = 0;
    out.push_str("## Open to-dos\n");
    for day in &found {
        for e in &day.entries {
            if e.section_key == Some(SectionKey::ASuivre) && !done.contains(&bullet_key(&e.text)) {
                out.push_str(&format!("- {} ({}:{})\n", e.text, day.rel, e.line));
                open += 1;
            }
        }
    }
    if open == 0 {
        out.push_str("(none)\n");
    }
    if found.is_empty() {
        out.push_str(&format!(
            "\nNo session log in the last {days} day(s) ({} to {}).\n",
            dates.last().map_or("", String::as_str),
            dates[0]
        ));
    }
    for day in &found {
        out.push_str(&format!("\n## {}\n", day.rel));
        let mut section = None;
        for e in &day.entries {
            if e.section_key == Some(SectionKey::ASuivre) {
                continue;
            }
            if section != Some(&e.section) {
                out.push_str(&format!("{}:\n", e.section));
                section = Some(&e.section);
            }
            out.push_str(&format!("- {} (:{})\n", e.text, e.line));
        }
    }
    Ok(Answer::Text(bounded(out)))
}

/// Cuts an answer at a line boundary under the cap, and says so.
fn bounded(text: String) -> String {
    if text.chars().count() <= MAX_ANSWER_CHARS {
        return text;
    }
    let mut out = String::new();
    for line in text.lines() {
        if out.chars().count() + line.chars().count() + 1 > MAX_ANSWER_CHARS - 120 {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("… (cut to stay small; narrow the request or use memory_get with a line range)\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Clock, Env};
    use std::fs;

    fn setup() -> (tempfile::TempDir, Ctx, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let ctx = Ctx::new(
            Env::from_pairs([
                (
                    "CAIRN_STATE_DIR",
                    dir.path().join("state").to_str().unwrap(),
                ),
                ("TZ", "UTC"),
            ]),
            Clock::Fixed("2026-11-30T12:00:00Z".parse().unwrap()),
        );
        let logs = root.join("memory_sessions/logs");
        fs::create_dir_all(&logs).unwrap();
        fs::write(
            logs.join("2026-11-30.md"),
            "# Log session — 2026-11-30\n\n## Contexte\n- Travail sur le serveur MCP\n\n## À suivre\n- Mesurer le démarrage\n\n## Finalisé\n- ✅ Écrire le schéma\n",
        )
        .unwrap();
        fs::write(
            logs.join("2026-11-29.md"),
            "# Log session — 2026-11-29\n\n## À suivre\n- Écrire le schéma\n- Relire la doc rmcp\n",
        )
        .unwrap();
        fs::write(
            logs.join("2026-11-01.md"),
            "# Log session — 2026-11-01\n\n## Contexte\n- Ancien travail\n",
        )
        .unwrap();
        fs::write(dir.path().join("secret.txt"), "top secret\n").unwrap();
        (dir, ctx, root)
    }

    fn text(a: Answer) -> String {
        match a {
            Answer::Text(t) => t,
            Answer::Refused(r) => panic!("refused: {r}"),
        }
    }

    fn refused(a: Answer) -> String {
        match a {
            Answer::Refused(r) => r,
            Answer::Text(t) => panic!("answered: {t}"),
        }
    }

    fn args(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn recent_lists_open_todos_first_and_skips_finalised_ones() {
        let (_d, ctx, root) = setup();
        let c = MemoryConfig::default();
        let out = text(call(&ctx, &c, &root, "memory_recent", &args(json!({}))).unwrap());
        let todos = out.split("\n\n").next().unwrap();
        assert_eq!(
            todos,
            "## Open to-dos\n- Mesurer le démarrage (memory_sessions/logs/2026-11-30.md:7)\n- Relire la doc rmcp (memory_sessions/logs/2026-11-29.md:5)"
        );
        assert!(out.contains("- Travail sur le serveur MCP (:4)"));
        assert!(!out.contains("Ancien travail"));
        let month =
            text(call(&ctx, &c, &root, "memory_recent", &args(json!({"days": 31}))).unwrap());
        assert!(month.contains("Ancien travail"));
        assert!(
            call(
                &ctx,
                &c,
                &root,
                "memory_recent",
                &args(json!({"days": "two"}))
            )
            .is_err()
        );
    }

    #[test]
    fn get_reads_ranges_and_refuses_paths_outside_memory() {
        let (d, ctx, root) = setup();
        let c = MemoryConfig::default();
        let get = |v: Value| call(&ctx, &c, &root, "memory_get", &args(v)).unwrap();
        let out = text(get(
            json!({"path": "memory_sessions/logs/2026-11-30.md", "from": 6, "to": 7}),
        ));
        assert_eq!(
            out,
            "memory_sessions/logs/2026-11-30.md (lines 6-7 of 10)\n    6  ## À suivre\n    7  - Mesurer le démarrage\n"
        );
        let list = text(get(json!({"path": "memory_sessions/logs"})));
        assert!(
            list.contains("memory_sessions/logs/2026-11-29.md"),
            "{list}"
        );
        for bad in [
            "../secret.txt".to_string(),
            d.path().join("secret.txt").display().to_string(),
            "memory_sessions/../../secret.txt".into(),
            "/etc/passwd".into(),
            "Cargo.toml".into(),
        ] {
            let why = refused(get(json!({ "path": bad })));
            assert!(
                why.contains("outside") || why.contains("no such"),
                "{bad}: {why}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                d.path().join("secret.txt"),
                root.join("memory_sessions/link.md"),
            )
            .unwrap();
            let why = refused(get(json!({"path": "memory_sessions/link.md"})));
            assert!(why.contains("outside"), "{why}");
        }
        assert!(
            refused(get(
                json!({"path": "memory_sessions/logs/2026-11-30.md", "from": 99})
            ))
            .contains("past its end")
        );
        assert!(call(&ctx, &c, &root, "memory_get", &args(json!({}))).is_err());
        assert!(call(&ctx, &c, &root, "memory_get", &args(json!({"path": 3}))).is_err());
    }

    /// Issue 9, finding 1: the confinement compared against the memory
    /// folder's own resolved path, so a `memory_sessions` linked to the home
    /// folder served every file under it.
    #[cfg(unix)]
    #[test]
    fn regression_memory_get_refuses_a_linked_memory_folder() {
        let (d, ctx, root) = setup();
        let c = MemoryConfig::default();
        let aws = d.path().join(".aws");
        fs::create_dir_all(&aws).unwrap();
        fs::write(
            aws.join("credentials"),
            "aws_secret_access_key = wJalrXUtnFEMI\n",
        )
        .unwrap();
        fs::create_dir_all(root.join("projects/docs")).unwrap();
        std::os::unix::fs::symlink("../../..", root.join("projects/docs/memory_sessions")).unwrap();
        let get =
            |p: &str| call(&ctx, &c, &root, "memory_get", &args(json!({ "path": p }))).unwrap();
        for p in [
            "projects/docs/memory_sessions/.aws/credentials",
            aws.join("credentials").to_str().unwrap(),
        ] {
            let why = refused(get(p));
            assert!(why.contains("outside"), "{p}: {why}");
        }
        // The root project's own folder linked out confines nothing either.
        let root2 = d.path().join("repo2");
        fs::create_dir_all(&root2).unwrap();
        std::os::unix::fs::symlink(d.path(), root2.join("memory_sessions")).unwrap();
        let a = call(
            &ctx,
            &c,
            &root2,
            "memory_get",
            &args(json!({"path": "memory_sessions/.aws/credentials"})),
        )
        .unwrap();
        assert!(refused(a).contains("outside"));
        let diag = fs::read_to_string(ctx.state_dir.join("diagnostics.log")).unwrap();
        assert!(diag.contains("outside the project"), "{diag}");
        assert!(!diag.contains("wJalrXUtnFEMI"));
    }

    /// Issue 9, finding 5: `memory_get` on a FIFO froze the MCP server.
    #[cfg(unix)]
    #[test]
    fn regression_memory_get_on_a_fifo_answers_at_once() {
        let (_d, ctx, root) = setup();
        let c = MemoryConfig::default();
        let fifo = root.join("memory_sessions/logs/2026-11-28.md");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let a = call(
            &ctx,
            &c,
            &root,
            "memory_get",
            &args(json!({"path": "memory_sessions/logs/2026-11-28.md"})),
        )
        .unwrap();
        assert!(refused(a).contains("not a regular file"));
        // Listing the folder and the recent days still work around it.
        let list = text(
            call(
                &ctx,
                &c,
                &root,
                "memory_get",
                &args(json!({"path": "memory_sessions/logs"})),
            )
            .unwrap(),
        );
        assert!(list.contains("2026-11-30.md"), "{list}");
        let recent =
            text(call(&ctx, &c, &root, "memory_recent", &args(json!({"days": 3}))).unwrap());
        assert!(recent.contains("Mesurer le démarrage"), "{recent}");
    }

    #[test]
    fn search_answers_and_unknown_tools_are_protocol_errors() {
        let (_d, ctx, root) = setup();
        let c = MemoryConfig::default();
        let out = text(
            call(
                &ctx,
                &c,
                &root,
                "memory_search",
                &args(json!({"query": "serveurs mcp"})),
            )
            .unwrap(),
        );
        assert!(
            out.contains("memory_sessions/logs/2026-11-30.md:4"),
            "{out}"
        );
        let huge = "cache ".repeat(200_000);
        let out = text(
            call(
                &ctx,
                &c,
                &root,
                "memory_search",
                &args(json!({"query": huge})),
            )
            .unwrap(),
        );
        assert!(
            out.contains("No memory entry matches"),
            "{}",
            &out[..200.min(out.len())]
        );
        let why = refused(
            call(
                &ctx,
                &c,
                &root,
                "memory_search",
                &args(json!({"query": "x", "project": "nope"})),
            )
            .unwrap(),
        );
        assert!(why.contains("unknown project"));
        let err = call(&ctx, &c, &root, "rm_rf", &args(json!({}))).unwrap_err();
        assert!(err.message.contains("unknown tool"));
        assert!(bounded("x\n".repeat(50_000)).chars().count() <= MAX_ANSWER_CHARS);
    }
}
