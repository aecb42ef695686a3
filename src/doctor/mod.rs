//! `cairn doctor`: what is installed where, whether it works, and what to do
//! when it does not (SPEC §4).
//!
//! Each check yields findings of one line each, `ok`, `info`, `warn` or
//! `FAIL`, the last two with what to do. `FAIL` means something does not
//! work now (a hook that runs twice or not at all, a backend that cannot
//! answer, memory turns given up in the dead-letter folder…) and makes the
//! command exit 1. The doctor only reads: it creates, locks and repairs
//! nothing, so it is safe to run at any time, even while a worker runs.
//!
//! Checks, in the order printed: `install` (module `registrations`: binary,
//! plugin, hooks, status line, settings files), `backend`, `state` (spool,
//! dead letters, diagnostics, state folder, usage ledger) and `project`
//! (long memory against its cap, the merge driver).

mod backend;
mod project;
mod registrations;
mod state;

use crate::Output;
use crate::context::Ctx;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug, Default, Clone)]
pub struct DoctorArgs {
    #[arg(long)]
    pub json: bool,
    /// Skip the network probe of an API memory backend.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Info,
    Warn,
    Broken,
}

impl Status {
    fn tag(self) -> &'static str {
        match self {
            Status::Ok => "ok  ",
            Status::Info => "info",
            Status::Warn => "warn",
            Status::Broken => "FAIL",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Which check: `binary`, `hooks`, `backend`, `spool`…
    pub check: &'static str,
    pub status: Status,
    pub message: String,
    /// What to do, for `warn` and `FAIL`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// Lines quoted under the finding (diagnostics, dead-letter errors).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}

impl Finding {
    fn new(check: &'static str, status: Status, message: impl Into<String>) -> Finding {
        Finding {
            check,
            status,
            message: message.into(),
            fix: None,
            details: Vec::new(),
        }
    }
    pub(crate) fn ok(check: &'static str, message: impl Into<String>) -> Finding {
        Finding::new(check, Status::Ok, message)
    }
    pub(crate) fn info(check: &'static str, message: impl Into<String>) -> Finding {
        Finding::new(check, Status::Info, message)
    }
    pub(crate) fn warn(
        check: &'static str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Finding {
        Finding {
            fix: Some(fix.into()),
            ..Finding::new(check, Status::Warn, message)
        }
    }
    pub(crate) fn broken(
        check: &'static str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Finding {
        Finding {
            fix: Some(fix.into()),
            ..Finding::new(check, Status::Broken, message)
        }
    }
    pub(crate) fn with_details(mut self, details: Vec<String>) -> Finding {
        self.details = details;
        self
    }
}

/// What the checks look at, resolved once.
pub(crate) struct Scene<'a> {
    pub ctx: &'a Ctx,
    /// The project root, when the doctor runs inside one.
    pub root: Option<PathBuf>,
    /// The client's user configuration folder (`CLAUDE_CONFIG_DIR`, `~/.claude`).
    pub claude_dir: Option<PathBuf>,
    pub config: crate::config::Config,
    pub offline: bool,
}

/// Every finding, in report order.
pub fn diagnose(ctx: &Ctx, cwd: &Path, args: &DoctorArgs) -> Vec<Finding> {
    let root = crate::memory::store::find_root(ctx.env.get("CLAUDE_PROJECT_DIR"), Some(cwd));
    let mut findings = Vec::new();
    let config = match crate::config::load_for(ctx, root.as_deref()) {
        Ok(loaded) => {
            let files: Vec<&String> = loaded
                .origins
                .values()
                .filter(|o| *o != "default")
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let from = if files.is_empty() {
                "built-in defaults".to_string()
            } else {
                files
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            findings.push(Finding::ok("config", format!("configuration from {from}")));
            loaded.config
        }
        Err(e) => {
            findings.push(Finding::broken(
                "config",
                format!("{e}"),
                "fix that key; until then hooks run on the defaults and user commands refuse to run",
            ));
            crate::config::Config::default()
        }
    };
    let scene = Scene {
        ctx,
        root,
        claude_dir: ctx.claude_config_dir(),
        config,
        offline: args.offline,
    };
    let mut all = registrations::check(&scene);
    // After the binary line, before the rest.
    let at = all.len().min(1);
    all.splice(at..at, findings);
    all.extend(backend::check(&scene));
    all.extend(state::check(&scene));
    all.extend(project::check(&scene));
    all
}

pub fn run(ctx: &Ctx, cwd: &Path, args: DoctorArgs) -> anyhow::Result<Output> {
    let findings = diagnose(ctx, cwd, &args);
    let broken = findings
        .iter()
        .filter(|f| f.status == Status::Broken)
        .count();
    let warnings = findings.iter().filter(|f| f.status == Status::Warn).count();
    let stdout = if args.json {
        let mut s = serde_json::to_string_pretty(&serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            "broken": broken,
            "warnings": warnings,
            "findings": findings,
        }))?;
        s.push('\n');
        s
    } else {
        render(&findings, broken, warnings)
    };
    Ok(Output {
        stdout,
        code: u8::from(broken > 0),
        ..Output::default()
    })
}

fn render(findings: &[Finding], broken: usize, warnings: usize) -> String {
    let mut out = String::new();
    for f in findings {
        let _ = write!(out, "{} {}: {}", f.status.tag(), f.check, f.message);
        if let Some(fix) = &f.fix {
            let _ = write!(out, "; {fix}");
        }
        out.push('\n');
        for d in &f.details {
            let _ = writeln!(out, "       {d}");
        }
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let _ = match (broken, warnings) {
        (0, 0) => writeln!(out, "cairn doctor: everything works"),
        (0, w) => writeln!(
            out,
            "cairn doctor: works, {}",
            plural(w, "warning", "warnings")
        ),
        (b, w) => writeln!(
            out,
            "cairn doctor: {}, {}",
            plural(b, "problem", "problems"),
            plural(w, "warning", "warnings")
        ),
    };
    out
}

/// The program a command line runs: its first shell word, quotes undone.
pub(crate) fn program_of(cmd: &str) -> String {
    let s = cmd.trim_start();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => break,
            (_, c) => word.push(c),
        }
    }
    word
}

/// Where a program named in a command is: an absolute or relative path as
/// it is, a bare name looked up on `PATH`.
pub(crate) fn resolve_program(program: &str, env: &crate::context::Env) -> Option<PathBuf> {
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let p = PathBuf::from(program);
        return p.is_file().then_some(p);
    }
    env.get("PATH")?
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(program))
        .find(|p| p.is_file())
}

/// `2.4 MiB`-style sizes.
pub(crate) fn human_bytes(n: u64) -> String {
    crate::format::human_bytes(n, 1)
}

/// `3 min ago`-style ages.
pub(crate) fn human_age(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..=59 => format!("{s} s ago"),
        60..=3599 => format!("{} min ago", s / 60),
        3600..=86_399 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_words_and_sizes() {
        assert_eq!(program_of("cairn hook"), "cairn");
        assert_eq!(
            program_of("\"/opt/my tools/cairn\" hook"),
            "/opt/my tools/cairn"
        );
        assert_eq!(program_of("'/a b/cairn' merge-driver %O"), "/a b/cairn");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(3 * 1024 * 1024 / 2), "1.5 MiB");
        assert_eq!(human_age(125), "2 min ago");
        assert_eq!(human_age(2 * 86_400 + 5), "2 days ago");
    }

    #[test]
    fn report_ends_with_a_summary_and_fixes_follow_messages() {
        let f = vec![
            Finding::ok("binary", "cairn 0.1.0"),
            Finding::broken("hooks", "runs twice", "remove one"),
        ];
        assert_eq!(
            render(&f, 1, 0),
            "ok   binary: cairn 0.1.0\nFAIL hooks: runs twice; remove one\ncairn doctor: 1 problem, 0 warnings\n"
        );
    }
}
