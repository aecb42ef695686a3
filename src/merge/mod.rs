//! The git merge driver for memory files (SPEC §1.12): `cairn merge-driver
//! %O %A %B %P`, registered by `cairn install` for `memory_sessions/**/*.md`.
//!
//! Two people's logs of the same day (and their `long_memory.md`) merge
//! section by section ([`three_way`]); the result replaces `%A` atomically
//! and the driver exits 0, which tells git the file is merged. What the
//! section merge cannot settle goes to git's own line merge
//! (`git merge-file`), whose conflict markers the user resolves as usual;
//! then the driver exits 1. Either way no line of either side is dropped.

mod doc;
pub mod three_way;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use crate::Output;
use crate::context::Ctx;
use anyhow::Context as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The git config name of the driver (`merge.<name>.driver`) and the
/// attribute value (`merge=<name>`).
pub const DRIVER_NAME: &str = "cairn-memory";

#[derive(clap::Args, Debug)]
pub struct DriverArgs {
    /// The common ancestor's version (%O); empty when both sides created it.
    pub base: PathBuf,
    /// Our version (%A); the result is written here.
    pub ours: PathBuf,
    /// Their version (%B).
    pub theirs: PathBuf,
    /// The file's path in the repository (%P), for messages.
    pub path: Option<String>,
    /// Length of conflict markers (%L).
    #[arg(long, default_value_t = 7)]
    pub marker_size: usize,
}

pub fn run_driver(_ctx: &Ctx, args: DriverArgs) -> anyhow::Result<Output> {
    let read = |p: &Path| std::fs::read(p).with_context(|| format!("cannot read {}", p.display()));
    let (base, ours, theirs) = (read(&args.base)?, read(&args.ours)?, read(&args.theirs)?);
    let name = args
        .path
        .clone()
        .unwrap_or_else(|| args.ours.display().to_string());
    let texts = (
        std::str::from_utf8(&base),
        std::str::from_utf8(&ours),
        std::str::from_utf8(&theirs),
    );
    let why = match texts {
        (Ok(o), Ok(a), Ok(b)) => match merge_guarded(o, a, b) {
            Ok(merged) => {
                if merged.as_bytes() != ours {
                    crate::fsutil::atomic_write(&args.ours, merged.as_bytes())?;
                }
                return Ok(Output::default());
            }
            Err(conflict) => conflict.0,
        },
        _ => "not UTF-8 text".to_string(),
    };
    let (merged, conflicts) = line_merge(&args, &ours, &base, &theirs);
    crate::fsutil::atomic_write(&args.ours, &merged)?;
    if conflicts {
        Ok(Output {
            stderr: format!(
                "cairn: merge-driver: {name}: {why}; left conflict markers, resolve them as usual\n"
            ),
            code: 1,
            ..Output::default()
        })
    } else {
        Ok(Output {
            stderr: format!(
                "cairn: merge-driver: {name}: {why}; git's line merge applied cleanly\n"
            ),
            ..Output::default()
        })
    }
}

/// The section merge, with a bug in it turned into a fallback: exiting on a
/// panic would leave `%A` as ours alone, their side only in git's index.
fn merge_guarded(o: &str, a: &str, b: &str) -> Result<String, three_way::Conflict> {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(|| three_way::merge(o, a, b));
    std::panic::set_hook(quiet);
    result.unwrap_or_else(|_| {
        Err(three_way::Conflict(
            "cairn's section merge failed (a bug: please report it)".to_string(),
        ))
    })
}

/// Git's ordinary three-way line merge of the three versions, and whether it
/// left conflicts. Without a working `git`, one conflict spanning the whole
/// file, so that nothing is lost either way.
fn line_merge(args: &DriverArgs, ours: &[u8], base: &[u8], theirs: &[u8]) -> (Vec<u8>, bool) {
    let out = Command::new("git")
        .arg("merge-file")
        .arg("-p")
        .arg(format!("--marker-size={}", args.marker_size))
        .args(["-L", "ours", "-L", "base", "-L", "theirs"])
        .arg(&args.ours)
        .arg(&args.base)
        .arg(&args.theirs)
        .stdin(std::process::Stdio::null())
        .output();
    // Exit status: the number of conflicts, or negative (255) on error.
    if let Ok(out) = out
        && let Some(code @ 0..=127) = out.status.code()
    {
        return (out.stdout, code > 0);
    }
    (
        whole_file_conflict(ours, base, theirs, args.marker_size),
        true,
    )
}

fn whole_file_conflict(ours: &[u8], base: &[u8], theirs: &[u8], size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut part = |marker: char, label: &str, body: &[u8]| {
        out.extend(marker.to_string().repeat(size).as_bytes());
        if !label.is_empty() {
            out.push(b' ');
            out.extend(label.as_bytes());
        }
        out.push(b'\n');
        out.extend(body);
        if !body.is_empty() && !body.ends_with(b"\n") {
            out.push(b'\n');
        }
    };
    part('<', "ours", ours);
    part('|', "base", base);
    part('=', "", theirs);
    out.extend(">".repeat(size).as_bytes());
    out.extend(b" theirs\n");
    out
}
