//! Full and read-only folders: the state folder and the project on a small
//! tmpfs filled to the last block (when this process may mount one), read
//! only (a read-only remount for root, whom `chmod 0500` does not stop;
//! `chmod` otherwise), and a state path that is a regular file. No hook
//! exits non-zero or prints anything; nothing already written is damaged;
//! a turn that cannot be spooled is captured inline.

use super::harness::*;
use crate::common::{Project, Turn};
use serde_json::json;
use std::path::Path;

/// Why a state folder cannot be written.
#[derive(Debug, Clone, Copy)]
enum Broken {
    Full,
    ReadOnly,
    RegularFile,
}

/// What keeps a broken folder broken until the test ends.
enum Keep {
    Mount(Tmpfs),
    Mode(std::path::PathBuf),
    Nothing,
}

impl Drop for Keep {
    fn drop(&mut self) {
        if let Keep::Mode(dir) = self {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
        }
    }
}

fn writable(dir: &Path) -> bool {
    let probe = dir.join(".probe");
    let ok = std::fs::write(&probe, b"x").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// Makes `dir` full or read-only. `None` (with a loud note) when this
/// process cannot: then that sub-case is skipped and the others run.
fn break_folder(dir: &Path, how: Broken, populate: impl Fn(&Path)) -> Option<Keep> {
    match how {
        Broken::RegularFile => {
            if dir.exists() {
                std::fs::remove_dir_all(dir).unwrap();
            }
            std::fs::write(dir, "not a folder\n").unwrap();
            Some(Keep::Nothing)
        }
        Broken::Full => {
            let Some(m) = Tmpfs::mount(dir, "256k") else {
                skipped(
                    &format!("full folder {}", dir.display()),
                    "cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)",
                );
                return None;
            };
            populate(dir);
            m.fill();
            Some(Keep::Mount(m))
        }
        Broken::ReadOnly => {
            use std::os::unix::fs::PermissionsExt;
            std::fs::create_dir_all(dir).unwrap();
            populate(dir);
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
            if !writable(dir) {
                return Some(Keep::Mode(dir.to_path_buf()));
            }
            // Root writes through 0555: a read-only mount is the only way.
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
            let Some(m) = Tmpfs::mount(dir, "1m") else {
                skipped(
                    &format!("read-only folder {}", dir.display()),
                    "running as root (chmod does not stop writes) and cannot mount a tmpfs",
                );
                return None;
            };
            populate(dir);
            assert!(m.remount("ro"), "remount read-only");
            assert!(!writable(dir), "the read-only remount still takes writes");
            Some(Keep::Mount(m))
        }
    }
}

fn turn(p: &Project, name: &str) -> serde_json::Value {
    let file = format!("src/{name}.rs");
    let t = p.transcript(
        name,
        &[Turn::new(&format!("Create {file}"), "Created.").write(&file)],
    );
    p.stop(&t, None)
}

/// Every event a session sends, against a project whose state is broken.
fn session_against(p: &Project, what: &str) {
    let r = hook(
        p,
        &json!({"session_id":"s","transcript_path":"/x","cwd":p.root,"hook_event_name":"SessionStart","source":"startup"}),
    );
    assert!(r.ok(), "{what}: SessionStart {}", r.describe());
    let r = hook(
        p,
        &json!({"session_id":"s","transcript_path":"/x","cwd":p.root,"hook_event_name":"UserPromptSubmit","prompt":"Create src/a.rs"}),
    );
    assert!(r.ok(), "{what}: UserPromptSubmit {}", r.describe());
    for name in ["broken_a", "broken_b"] {
        assert_silent(&format!("{what}: Stop {name}"), &hook(p, &turn(p, name)));
    }
}

const STATE_CASES: [Broken; 3] = [Broken::Full, Broken::ReadOnly, Broken::RegularFile];

#[test]
fn a_full_read_only_or_file_state_folder_never_hurts_the_session() {
    let mut ran = 0;
    for how in STATE_CASES {
        let p = Project::new();
        let _reaper = Reaper(p.state.clone());
        // Today's log, written before the disk broke, must survive as is.
        let log = p.root.join(format!("memory_sessions/logs/{DAY}.md"));
        std::fs::write(
            &log,
            "# Log session — 2026-11-30\n\n## Travail produit\n- Avant\n",
        )
        .unwrap();
        let Some(_keep) = break_folder(&p.state, how, |_| {}) else {
            continue;
        };
        ran += 1;
        session_against(&p, &format!("{how:?} state"));
        wait_idle(&p.state);
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.contains("- Avant\n"), "{how:?}: {text}");
        assert_log_is_whole(&text);
    }
    figures("folders", &format!("broken state folders tried={ran}/3"));
    assert!(ran > 0);
}

/// Finding 7: in async mode, a turn the hook cannot spool is dropped
/// silently. It must be captured inline instead.
#[test]
fn a_turn_that_cannot_be_spooled_is_captured_inline() {
    for how in STATE_CASES {
        let p = Project::new();
        let _reaper = Reaper(p.state.clone());
        let Some(_keep) = break_folder(&p.state, how, |_| {}) else {
            continue;
        };
        assert_silent(&format!("{how:?}"), &hook(&p, &turn(&p, "inline_turn")));
        wait_idle(&p.state);
        let log = p.log(DAY);
        assert_eq!(
            times_logged(&log, "src/inline_turn.rs"),
            1,
            "{how:?}: {log}"
        );
        assert_log_is_whole(&log);
    }
}

/// The project's disk full or read-only: the job waits in the spool, the
/// log already there is untouched, and once the disk is back the turn
/// lands once.
#[test]
fn a_full_or_read_only_project_keeps_the_job_and_damages_nothing() {
    let mut ran = 0;
    for how in [Broken::Full, Broken::ReadOnly] {
        let p = Project::new();
        let _reaper = Reaper(p.state.clone());
        let logs = p.root.join("memory_sessions/logs");
        let before = "# Log session — 2026-11-30\n\n## Travail produit\n- Avant\n";
        let populate = |dir: &Path| {
            std::fs::write(dir.join(format!("{DAY}.md")), before).unwrap();
        };
        let Some(keep) = break_folder(&logs, how, populate) else {
            continue;
        };
        ran += 1;
        assert_silent(&format!("{how:?}"), &hook(&p, &turn(&p, "later")));
        wait_idle(&p.state);
        p.drain();
        assert_eq!(
            p.log(DAY),
            before,
            "{how:?}: the log changed on a broken disk"
        );
        assert_eq!(
            cairn::capture::spool::pending_ids(&p.state).len(),
            1,
            "{how:?}: the job must wait\n{}",
            p.diagnostics()
        );
        assert!(
            p.diagnostics().contains("WARN worker"),
            "{}",
            p.diagnostics()
        );
        // The disk comes back.
        match &keep {
            Keep::Mount(m) => {
                let _ = std::fs::remove_file(m.0.join("filler"));
                assert!(m.remount("rw"));
            }
            Keep::Mode(dir) => {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
            Keep::Nothing => {}
        }
        p.drain();
        let log = p.log(DAY);
        assert_eq!(times_logged(&log, "src/later.rs"), 1, "{how:?}: {log}");
        assert!(log.contains("- Avant\n"), "{log}");
        assert_log_is_whole(&log);
        drop(keep);
    }
    figures("folders", &format!("broken project folders tried={ran}/2"));
    if ran == 0 {
        skipped("full/read-only project", "no sub-case could be set up");
    }
}
