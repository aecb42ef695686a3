//! The `claude-cli` backend: `claude --print --model <model>` with the
//! prompt on stdin, as the seeds did, made safe to run from a worker.
//!
//! - It runs in a fresh empty directory, so no project `CLAUDE.md` or
//!   settings reach the model (the seeds' `/tmp` trick, without sharing /tmp).
//! - The child gets cairn's nested-call marker: cairn's own hooks inside it
//!   exit at once instead of extracting the extraction.
//! - `--no-session-persistence` keeps these calls out of the user's resume
//!   list where the installed client knows the flag (probed once per process).
//! - A deadline kills the child; stdout and stderr are drained on threads so
//!   a chatty child cannot block on a full pipe.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail};
use serde_json::Value;

use super::check;
use super::parse::parse_answer;
use super::{Answer, Backend, CallUsage, Completion, ExtractRequest, build_prompt};
use crate::context::{Ctx, Env, NESTED_MARKER};
use crate::memory::config::{BackendKind, MemoryConfig};

const NO_SESSION_PERSISTENCE: &str = "--no-session-persistence";
/// Output kept per stream; the rest is read and dropped.
const OUTPUT_CAP: usize = 8 * 1024 * 1024;
/// How long to wait for the pipes once the child has exited: a grandchild
/// may still hold them open.
const DRAIN_GRACE: Duration = Duration::from_secs(2);
const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

pub struct ClaudeCliBackend {
    /// `memory.claude_command`: a name looked up on `PATH`, or a path.
    pub command: String,
    pub model: String,
    pub timeout: Duration,
    /// The child's whole environment, and where the answer check reports
    /// what it dropped.
    ctx: Ctx,
}

impl ClaudeCliBackend {
    pub fn from_config(cfg: &MemoryConfig, ctx: &Ctx) -> Self {
        ClaudeCliBackend {
            command: cfg.claude_command.clone(),
            model: super::model_for(cfg, BackendKind::ClaudeCli),
            timeout: Duration::from_secs(cfg.timeout_secs.max(1)),
            ctx: ctx.clone(),
        }
    }

    /// The command line after the program: the documented flags, plus JSON
    /// output (for usage) and `--no-session-persistence` when known.
    fn args(&self, program: &Path) -> Vec<String> {
        let mut args: Vec<String> = ["--print", "--model", &self.model, "--output-format", "json"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if knows_flag(
            program,
            &self.ctx.env,
            self.timeout.min(PROBE_TIMEOUT),
            NO_SESSION_PERSISTENCE,
        ) {
            args.push(NO_SESSION_PERSISTENCE.to_string());
        }
        args
    }
}

impl Backend for ClaudeCliBackend {
    fn name(&self) -> &'static str {
        "claude-cli"
    }

    fn extract(&self, req: &ExtractRequest) -> anyhow::Result<Answer> {
        let (raw, usage) = self.call(&build_prompt(req))?;
        let answer = Answer {
            extraction: parse_answer(&raw),
            raw,
            usage,
        };
        Ok(check::checked(&self.ctx, self.name(), req, answer))
    }

    fn complete(&self, prompt: &str) -> Option<anyhow::Result<Completion>> {
        Some(
            self.call(prompt)
                .map(|(text, usage)| Completion { text, usage }),
        )
    }
}

impl ClaudeCliBackend {
    /// One `claude --print` call: the answer's text and, from the JSON
    /// envelope, its usage.
    fn call(&self, prompt: &str) -> anyhow::Result<(String, Option<CallUsage>)> {
        let program = find_program(&self.command, &self.ctx.env).ok_or_else(|| {
            anyhow!(
                "claude-cli: `{}` not found on PATH: install Claude Code, set memory.claude_command, or choose another memory.backend",
                self.command
            )
        })?;
        let args = self.args(&program);
        let out = run(
            &program,
            &args,
            Some(prompt.as_bytes()),
            &self.ctx.env,
            self.timeout,
        )
        .with_context(|| format!("claude-cli: running `{}`", self.command))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let result = result_envelope(&stdout);
        if !out.status.success() {
            let why = first_line(&String::from_utf8_lossy(&out.stderr))
                .or_else(|| result.as_ref().and_then(|r| first_line(&r.text)))
                .unwrap_or_else(|| "no error output".to_string());
            bail!(
                "claude-cli: `{}` exited with {}: {why}",
                self.command,
                describe(out.status)
            );
        }
        match result {
            Some(r) if r.is_error => {
                bail!(
                    "claude-cli: `{}` reported an error: {}",
                    self.command,
                    first_line(&r.text).unwrap_or_default()
                )
            }
            Some(r) => {
                let usage = r.usage.map(|mut u| {
                    u.model = self.model.clone();
                    u
                });
                Ok((r.text, usage))
            }
            None => Ok((stdout.trim().to_string(), None)),
        }
    }
}

/// `--output-format json`'s envelope: `{"type":"result","result":…,"usage":…}`.
struct Envelope {
    text: String,
    is_error: bool,
    usage: Option<CallUsage>,
}

fn result_envelope(stdout: &str) -> Option<Envelope> {
    let v: Value = serde_json::from_str(stdout.trim()).ok()?;
    if v.get("type").and_then(Value::as_str) != Some("result") {
        return None;
    }
    let text = v
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let is_error = v.get("is_error").and_then(Value::as_bool).unwrap_or(false);
    let count = |key: &str| {
        v.pointer(&format!("/usage/{key}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let usage = v.get("usage").filter(|u| u.is_object()).map(|_| CallUsage {
        model: String::new(),
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        cache_read_tokens: count("cache_read_input_tokens"),
        cache_write_tokens: count("cache_creation_input_tokens"),
    });
    Some(Envelope {
        text,
        is_error,
        usage,
    })
}

fn first_line(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let mut short: String = line.chars().take(200).collect();
    if line.chars().count() > 200 {
        short.push('…');
    }
    Some(short)
}

fn describe(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("status {code}"),
        None => "a signal".to_string(),
    }
}

/// `command` resolved like a shell would, but on the injected `PATH`.
pub(crate) fn find_program(command: &str, env: &Env) -> Option<PathBuf> {
    let command = command.trim();
    if command.is_empty() {
        return None;
    }
    if command.contains('/') {
        let p = PathBuf::from(command);
        return is_executable(&p).then_some(p);
    }
    env.get("PATH")?
        .split(':')
        .filter(|dir| !dir.is_empty())
        .map(|dir| Path::new(dir).join(command))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Does `program --help` mention `flag`? Asked once per program and flag
/// per process: a worker draining many jobs pays for it once.
fn knows_flag(program: &Path, env: &Env, timeout: Duration, flag: &str) -> bool {
    static PROBES: OnceLock<Mutex<HashMap<(PathBuf, String), bool>>> = OnceLock::new();
    let probes = PROBES.get_or_init(Default::default);
    let mut cache = probes
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let key = (program.to_path_buf(), flag.to_string());
    if let Some(known) = cache.get(&key) {
        return *known;
    }
    let known = run(program, &["--help".to_string()], None, env, timeout)
        .map(|out| {
            String::from_utf8_lossy(&out.stdout).contains(flag)
                || String::from_utf8_lossy(&out.stderr).contains(flag)
        })
        .unwrap_or(false);
    cache.insert(key, known);
    known
}

struct Output {
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs `program` in a fresh empty directory (removed afterwards) with
/// exactly `env` plus the nested-call marker, feeding `stdin`, and kills it
/// when `timeout` expires.
fn run(
    program: &Path,
    args: &[String],
    stdin: Option<&[u8]>,
    env: &Env,
    timeout: Duration,
) -> anyhow::Result<Output> {
    let scratch = tempfile::Builder::new()
        .prefix("cairn-claude-")
        .tempdir()
        .context("creating a scratch directory")?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(scratch.path())
        .env_clear()
        .envs(env.iter())
        .env(NESTED_MARKER, "1")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))?;

    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let input = input.to_vec();
        // A child that exits without reading its input is not an error here;
        // its exit status tells what happened.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());

    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(2);
    let status = loop {
        if let Some(status) = child.try_wait().context("waiting for the child")? {
            break status;
        }
        if Instant::now() >= deadline {
            kill(&mut child);
            bail!(
                "no answer within {}s (memory.timeout_secs); the process was killed",
                timeout.as_secs_f32()
            );
        }
        std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    let stdout = stdout.recv_timeout(DRAIN_GRACE).unwrap_or_default();
    let stderr = stderr.recv_timeout(DRAIN_GRACE).unwrap_or_default();
    drop(scratch);
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}

/// Reads a pipe to its end on a thread, keeping the first `OUTPUT_CAP` bytes.
fn drain(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    match pipe {
        Some(mut pipe) => {
            std::thread::spawn(move || {
                let mut kept = Vec::new();
                let mut buf = [0u8; 16 * 1024];
                loop {
                    match pipe.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            let room = OUTPUT_CAP.saturating_sub(kept.len());
                            kept.extend_from_slice(&buf[..n.min(room)]);
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(_) => break,
                    }
                }
                let _ = tx.send(kept);
            });
        }
        None => {
            let _ = tx.send(Vec::new());
        }
    }
    rx
}

/// Ends the child. It stays in the worker's process group on purpose: a
/// worker killed as a group takes its `claude` call with it.
fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_is_unwrapped_with_usage() {
        let out = r#"{"type":"result","subtype":"success","is_error":false,"result":"{\"updates\":[]}","usage":{"input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":14000,"output_tokens":42},"total_cost_usd":0.002}"#;
        let e = result_envelope(out).unwrap();
        assert_eq!(e.text, "{\"updates\":[]}");
        assert!(!e.is_error);
        assert_eq!(
            e.usage,
            Some(CallUsage {
                model: String::new(),
                input_tokens: 3,
                output_tokens: 42,
                cache_read_tokens: 14000,
                cache_write_tokens: 100
            })
        );
        assert!(result_envelope("{\"updates\":[]}").is_none());
        assert!(result_envelope("plain text").is_none());
    }

    #[test]
    fn programs_are_found_on_the_injected_path_only() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("fakeclaude");
        std::fs::write(&bin, "#!/bin/sh\n").unwrap();
        let env = Env::from_pairs([("PATH", format!("/nonexistent::{}", dir.path().display()))]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(find_program("fakeclaude", &env), None, "not executable yet");
            std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert_eq!(find_program("fakeclaude", &env), Some(bin.clone()));
        assert_eq!(
            find_program(bin.to_str().unwrap(), &Env::default()),
            Some(bin)
        );
        assert_eq!(find_program("fakeclaude", &Env::default()), None);
        assert_eq!(find_program("  ", &env), None);
    }

    #[test]
    fn first_line_skips_blanks_and_caps() {
        assert_eq!(
            first_line("\n  \nError: bad model\nmore"),
            Some("Error: bad model".into())
        );
        assert_eq!(first_line(""), None);
        assert_eq!(first_line(&"y".repeat(300)).unwrap().chars().count(), 201);
    }
}
