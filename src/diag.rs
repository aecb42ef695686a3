//! The diagnostics log: where hooks report what went wrong, since they must
//! never say it to the session. One line per event, size-capped, rotated once.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `[diagnostics]` section of the configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DiagnosticsConfig {
    /// Size at which `diagnostics.log` is rotated to `diagnostics.log.1`.
    pub max_bytes: u64,
}

impl Default for DiagnosticsConfig {
    fn default() -> Self {
        DiagnosticsConfig {
            max_bytes: 512 * 1024,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warn,
    Info,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Error => "ERROR",
            Level::Warn => "WARN",
            Level::Info => "INFO",
        }
    }
}

pub fn path(state_dir: &Path) -> PathBuf {
    crate::state_layout::diagnostics_log(state_dir)
}

/// Appends one line. Never fails: a diagnostics log that cannot be written is
/// not worth breaking a session over.
pub fn log(
    state_dir: &Path,
    max_bytes: u64,
    now: jiff::Timestamp,
    level: Level,
    scope: &str,
    msg: &str,
) {
    let _ = try_log(state_dir, max_bytes, now, level, scope, msg);
}

fn try_log(
    state_dir: &Path,
    max_bytes: u64,
    now: jiff::Timestamp,
    level: Level,
    scope: &str,
    msg: &str,
) -> std::io::Result<()> {
    if !state_dir.is_dir() {
        // The log quotes paths and error text: readable by the user only.
        crate::fsutil::create_private_dir_all(state_dir).map_err(std::io::Error::other)?;
    }
    let file = path(state_dir);
    if let Ok(meta) = fs::metadata(&file)
        && meta.len() >= max_bytes
    {
        // One generation is enough to read what happened recently; rename is
        // atomic so two hooks rotating at once lose at most a line.
        let _ = fs::rename(
            &file,
            crate::state_layout::diagnostics_log_rotated(state_dir),
        );
    }
    let line = format!(
        "{} {} {}: {}\n",
        now.round(jiff::Unit::Second).unwrap_or(now),
        level.as_str(),
        scope,
        one_line(&redacted(msg), 600)
    );
    // O_APPEND writes of one short line are not interleaved between processes.
    let mut opts = OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(&file)?;
    f.write_all(line.as_bytes())
}

/// Longest part of a message that is redacted: past it nothing reaches the
/// line (600 characters are at most 2 400 bytes), so a secret cut here is cut
/// far beyond what is kept, and a megabyte of error text costs no more.
const REDACT_BYTES: usize = 8 * 1024;

/// `msg` with secrets redacted (SPEC §1.11: everything written here is).
/// Errors quote paths, commands and backend answers, any of which may hold
/// one. The built-in redactor compiles a rule only when its keyword occurs,
/// so a plain message costs a few substring searches.
fn redacted(msg: &str) -> String {
    let mut end = msg.len().min(REDACT_BYTES);
    while !msg.is_char_boundary(end) {
        end -= 1;
    }
    crate::redact::redact(&msg[..end])
}

/// Makes text safe for a one-line log: control characters become spaces,
/// length capped on a char boundary.
pub fn one_line(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars * 4));
    for (i, c) in s.chars().enumerate() {
        if i >= max_chars {
            out.push('…');
            break;
        }
        out.push(if c.is_control() { ' ' } else { c });
    }
    out
}

/// The last `n` lines of the log (for `cairn doctor` and tests).
pub fn tail(state_dir: &Path, n: usize) -> Vec<String> {
    let text = fs::read_to_string(path(state_dir)).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 9, finding 2: state files are readable by the user only.
    #[cfg(unix)]
    #[test]
    fn regression_diagnostics_log_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let now = jiff::Timestamp::from_second(1_800_000_000).unwrap();
        log(&state, 1 << 20, now, Level::Warn, "hook", "boom");
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path(&state)), 0o600);
        assert_eq!(mode(&state), 0o700);
    }

    #[test]
    fn rotates_when_over_cap_and_keeps_lines_single() {
        let dir = tempfile::tempdir().unwrap();
        let now = jiff::Timestamp::from_second(1_800_000_000).unwrap();
        for i in 0..50 {
            log(
                dir.path(),
                600,
                now,
                Level::Error,
                "hook",
                &format!("boom {i}\nsecond line"),
            );
        }
        let cur = fs::read_to_string(path(dir.path())).unwrap();
        assert!(cur.len() < 800, "current file stays near the cap");
        assert!(dir.path().join("diagnostics.log.1").exists());
        for line in cur.lines() {
            assert!(line.contains("ERROR hook: boom"), "{line}");
            assert!(line.contains("boom") && line.contains("second line"));
        }
        assert_eq!(tail(dir.path(), 1).len(), 1);
    }

    #[test]
    fn regression_diag_redacts_every_message() {
        let dir = tempfile::tempdir().unwrap();
        let now = jiff::Timestamp::from_second(1_800_000_000).unwrap();
        let token = ["ghp_", "0123456789abcdefABCDEF0123456789abcd"].concat();
        log(
            dir.path(),
            10_000,
            now,
            Level::Error,
            "worker",
            &format!("backend said: bad credentials {token}"),
        );
        let line = &tail(dir.path(), 1)[0];
        assert!(
            line.ends_with("backend said: bad credentials [REDACTED:github-token]"),
            "{line}"
        );
    }
}
