//! `cairn demo`: the main job end to end, offline, in a scratch project.
//! A bundled session is replayed through the real `cairn hook` process the
//! way Claude Code calls it (SessionStart, then UserPromptSubmit and Stop per
//! turn), the worker is drained, and the resulting memory is printed.

use crate::context::Ctx;
use anyhow::{Context, Result};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SESSION: &str = include_str!("../assets/demo/session.jsonl");
const RECORDED_DIR: &str = "/home/alex/facturation";

/// One replayed turn: the transcript lines it adds, its prompt and final text.
struct Turn {
    lines: Vec<Value>,
    prompt: String,
    last_text: String,
}

fn is_human_prompt(v: &Value) -> bool {
    v["type"] == "user" && v["message"]["content"].is_string() && v["isMeta"] != true
}

fn split_turns(records: Vec<Value>) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    let mut head = Vec::new();
    for v in records {
        if is_human_prompt(&v) {
            let prompt = v["message"]["content"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let mut lines = std::mem::take(&mut head);
            lines.push(v);
            turns.push(Turn {
                lines,
                prompt,
                last_text: String::new(),
            });
            continue;
        }
        match turns.last_mut() {
            Some(t) => {
                if v["type"] == "assistant" {
                    for b in v["message"]["content"].as_array().into_iter().flatten() {
                        if b["type"] == "text" {
                            t.last_text = b["text"].as_str().unwrap_or_default().to_string();
                        }
                    }
                }
                t.lines.push(v);
            }
            None => head.push(v),
        }
    }
    turns
}

pub fn run(ctx: &Ctx, dir: Option<&Path>) -> Result<String> {
    let tmp;
    let base: PathBuf = match dir {
        Some(d) => d.to_path_buf(),
        None => {
            tmp = tempfile::Builder::new().prefix("cairn-demo-").tempdir()?;
            tmp.path().to_path_buf()
        }
    };
    let project = base.join("facturation");
    let state = base.join("state");
    let config_dir = base.join("claude-config");
    std::fs::create_dir_all(project.join("memory_sessions/logs"))?;
    std::fs::create_dir_all(project.join("src"))?;
    std::fs::create_dir_all(&state)?;
    let session_id = "7f3c2a10-5b8e-4d21-9c4a-1e2f3a4b5c6d";
    let tdir = config_dir
        .join("projects")
        .join(escape_project_dir(&project));
    std::fs::create_dir_all(&tdir)?;
    let transcript = tdir.join(format!("{session_id}.jsonl"));

    let exe = std::env::current_exe().context("cannot find the cairn binary")?;
    let mut env: Vec<(String, String)> = vec![
        ("CAIRN_STATE_DIR".into(), state.display().to_string()),
        ("CAIRN_MEMORY_BACKEND".into(), "offline".into()),
        ("CAIRN_MEMORY_SYNC".into(), "false".into()),
        ("CLAUDE_PROJECT_DIR".into(), project.display().to_string()),
        ("CLAUDE_CONFIG_DIR".into(), config_dir.display().to_string()),
        ("CAIRN_EXE".into(), exe.display().to_string()),
    ];
    if let Some(tz) = ctx.env.get("TZ") {
        env.push(("TZ".into(), tz.to_string()));
    }
    // The demo's own config must not be changed by the user's.
    env.push((
        "XDG_CONFIG_HOME".into(),
        base.join("xdg").display().to_string(),
    ));

    // The bundled session was recorded in /home/alex/facturation; point every
    // path (cwd, tool inputs) at the scratch project instead.
    let project_json = serde_json::to_string(&project.display().to_string())?;
    let project_json = project_json.trim_matches('"');
    let records: Vec<Value> = SESSION
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(&l.replace(RECORDED_DIR, project_json)))
        .collect::<Result<_, _>>()
        .context("bundled demo session is corrupt")?;
    let turns = split_turns(records);
    let mut out = String::new();
    writeln!(out, "cairn demo: scratch project {}", project.display())?;

    let common = |event: &str| {
        json!({
            "session_id": session_id,
            "transcript_path": transcript,
            "cwd": project,
            "hook_event_name": event,
        })
    };
    let mut payload = common("SessionStart");
    payload["source"] = json!("startup");
    let said = call_hook(&exe, &env, &payload)?;
    writeln!(out, "  SessionStart      -> {}", describe(&said))?;

    // Each turn's records are re-dated to now so the log is today's.
    let now = ctx.clock.now();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&transcript)?;
    let mut tick = 0i64;
    for (i, turn) in turns.iter().enumerate() {
        let mut p = common("UserPromptSubmit");
        p["prompt"] = json!(turn.prompt);
        let said = call_hook(&exe, &env, &p)?;
        writeln!(
            out,
            "  UserPromptSubmit  -> {} ({})",
            describe(&said),
            short(&turn.prompt)
        )?;
        for line in &turn.lines {
            let mut line = line.clone();
            if line.get("timestamp").is_some() {
                tick += 1;
                let ts = now - jiff::SignedDuration::from_secs(600 - tick);
                line["timestamp"] = json!(ts.to_string());
            }
            writeln!(file, "{line}")?;
        }
        file.flush()?;
        let mut p = common("Stop");
        p["stop_hook_active"] = json!(false);
        p["last_assistant_message"] = json!(turn.last_text);
        let said = call_hook(&exe, &env, &p)?;
        writeln!(out, "  Stop (turn {})     -> {}", i + 1, describe(&said))?;
    }

    let drained = run_cairn(&exe, &env, &["worker", "--drain"], &project)?;
    writeln!(out, "  worker --drain    -> {}", drained.trim())?;

    let date = ctx.local_date(now);
    let log = project
        .join("memory_sessions/logs")
        .join(format!("{date}.md"));
    let text = std::fs::read_to_string(&log)
        .with_context(|| format!("the demo wrote no log at {}", log.display()))?;
    writeln!(
        out,
        "\n=== memory_sessions/logs/{date}.md ===\n{}",
        text.trim_end()
    )?;
    let loaded = run_cairn(&exe, &env, &["memory", "load"], &project)?;
    writeln!(out, "\n=== cairn memory load ===\n{}", loaded.trim_end())?;
    if dir.is_none() {
        writeln!(
            out,
            "\n(scratch project removed; run `cairn demo --dir DIR` to keep it)"
        )?;
    }
    Ok(out)
}

/// The client's folder name for a project: every non-alphanumeric character becomes `-`.
pub fn escape_project_dir(p: &Path) -> String {
    p.display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn call_hook(exe: &Path, env: &[(String, String)], payload: &Value) -> Result<String> {
    let mut child = Command::new(exe)
        .arg("hook")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run `cairn hook`")?;
    child
        .stdin
        .take()
        .context("no stdin")?
        .write_all(payload.to_string().as_bytes())?;
    let o = child.wait_with_output()?;
    anyhow::ensure!(o.status.success(), "`cairn hook` exited with {}", o.status);
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

fn run_cairn(exe: &Path, env: &[(String, String)], args: &[&str], cwd: &Path) -> Result<String> {
    let o = Command::new(exe)
        .args(args)
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .with_context(|| format!("cannot run `cairn {}`", args.join(" ")))?;
    anyhow::ensure!(
        o.status.success(),
        "`cairn {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr).trim()
    );
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

fn describe(stdout: &str) -> String {
    if stdout.trim().is_empty() {
        return "exit 0, no output".into();
    }
    match serde_json::from_str::<Value>(stdout) {
        Ok(v) => match v["hookSpecificOutput"]["additionalContext"].as_str() {
            Some(c) => format!(
                "exit 0, {} chars of context for the model",
                c.chars().count()
            ),
            None => format!("exit 0, {}", short(stdout)),
        },
        Err(_) => format!("exit 0, {}", short(stdout)),
    }
}

fn short(s: &str) -> String {
    let one = crate::diag::one_line(s.trim(), 60);
    format!("\"{one}\"")
}
