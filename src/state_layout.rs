//! The layout of cairn's state folder, in one place: every feature asks
//! here where its files go, so two features cannot pick the same name and
//! `cairn doctor` can describe the folder without knowing the features.
//!
//! ```text
//! <state>/                         crate::context::state_dir
//!   diagnostics.log(.1)            diagnostics_log
//!   config-error.last              config_error_seen
//!   worker.lock, worker.pid        worker_lock, worker_pid
//!   spool/pending/, spool/dead/    spool_pending, spool_dead
//!   capture/<session>.json, .lock  capture          (cursor and its lock)
//!   sessions/<session>.json        memory_sessions  (offline OK-done)
//!   locks/repo-*.lock, audit-*.lock, install.lock   locks
//!   install/created-<hash>         install_records
//!   ledger/memory.jsonl            memory_ledger
//!   usage/sessions/<session>.rec, .json             usage_sessions
//!   usage/days/<date>.json         usage_days
//!   usage/today.json               usage_today
//!   usage/flat.json                usage_flat
//!   guard/                         guard            (ratchets, windows, hand-offs)
//!   guard/history.jsonl            guard_history
//!   gate/notes.jsonl               gate_notes
//!   statusline/<session>.json, errors.seen          statusline
//!   audit/scan.json                audit_scan
//!   search/<hash>.sqlite           search
//!   site/<project>-<hash>/index.html  site
//! ```
//!
//! A leaf: it names paths and imports nothing of the crate. Per-session and
//! per-project file names stay with their feature (`crate::session_id`
//! makes the stems); only the folders and fixed names are here.

use std::path::{Path, PathBuf};

/// One top-level entry of the state folder and what it holds, for
/// `cairn doctor` (the order of the tree above).
pub struct Entry {
    pub name: &'static str,
    pub what: &'static str,
}

impl Entry {
    pub fn path(&self, state: &Path) -> PathBuf {
        state.join(self.name)
    }
}

/// Every top-level entry of `<state>/`.
pub const TOP: &[Entry] = &[
    Entry {
        name: DIAGNOSTICS_LOG,
        what: "what went wrong in hooks and the worker",
    },
    Entry {
        name: CONFIG_ERROR_SEEN,
        what: "the last config error, logged once",
    },
    Entry {
        name: WORKER_LOCK,
        what: "held by whoever merges spooled jobs",
    },
    Entry {
        name: WORKER_PID,
        what: "the running worker",
    },
    Entry {
        name: SPOOL,
        what: "memory jobs, pending and dead",
    },
    Entry {
        name: CAPTURE,
        what: "capture cursors and their locks",
    },
    Entry {
        name: MEMORY_SESSIONS,
        what: "to-dos a session added last",
    },
    Entry {
        name: LOCKS,
        what: "repository, audit and install locks",
    },
    Entry {
        name: INSTALL,
        what: "settings files `cairn install` created",
    },
    Entry {
        name: LEDGER,
        what: "every LLM call cairn made, priced",
    },
    Entry {
        name: USAGE,
        what: "usage ledger, summaries, day index",
    },
    Entry {
        name: GUARD,
        what: "ratchets, windows, hand-offs, fire history",
    },
    Entry {
        name: GATE,
        what: "notes the refine gate gave",
    },
    Entry {
        name: STATUSLINE,
        what: "the last good line per session",
    },
    Entry {
        name: AUDIT,
        what: "skill-run scan of the transcripts",
    },
    Entry {
        name: SEARCH,
        what: "search indexes (a cache)",
    },
    Entry {
        name: SITE,
        what: "pages `cairn site` built",
    },
];

const DIAGNOSTICS_LOG: &str = "diagnostics.log";
const CONFIG_ERROR_SEEN: &str = "config-error.last";
const WORKER_LOCK: &str = "worker.lock";
const WORKER_PID: &str = "worker.pid";
const SPOOL: &str = "spool";
const CAPTURE: &str = "capture";
const MEMORY_SESSIONS: &str = "sessions";
const LOCKS: &str = "locks";
const INSTALL: &str = "install";
const LEDGER: &str = "ledger";
const USAGE: &str = "usage";
const GUARD: &str = "guard";
const GATE: &str = "gate";
const STATUSLINE: &str = "statusline";
const AUDIT: &str = "audit";
const SEARCH: &str = "search";
const SITE: &str = "site";

/// `diagnostics.log`; rotation renames it to `diagnostics.log.1` beside it.
pub fn diagnostics_log(state: &Path) -> PathBuf {
    state.join(DIAGNOSTICS_LOG)
}

/// Where rotation moves [`diagnostics_log`].
pub fn diagnostics_log_rotated(state: &Path) -> PathBuf {
    state.join(format!("{DIAGNOSTICS_LOG}.1"))
}

/// `config-error.last`: the last config error logged, so a broken config
/// costs one diagnostics line, not one per hook.
pub fn config_error_seen(state: &Path) -> PathBuf {
    state.join(CONFIG_ERROR_SEEN)
}

pub fn worker_lock(state: &Path) -> PathBuf {
    state.join(WORKER_LOCK)
}

pub fn worker_pid(state: &Path) -> PathBuf {
    state.join(WORKER_PID)
}

/// `spool/pending/`: jobs waiting for the worker.
pub fn spool_pending(state: &Path) -> PathBuf {
    state.join(SPOOL).join("pending")
}

/// `spool/dead/`: jobs that failed too often.
pub fn spool_dead(state: &Path) -> PathBuf {
    state.join(SPOOL).join("dead")
}

/// `capture/`: `<session>.json` (the cursor) and `<session>.lock`.
pub fn capture(state: &Path) -> PathBuf {
    state.join(CAPTURE)
}

/// `sessions/`: `<session>.json`, the to-dos a session added last.
pub fn memory_sessions(state: &Path) -> PathBuf {
    state.join(MEMORY_SESSIONS)
}

/// `locks/`: `repo-<hash>.lock`, `audit-<hash>.lock`, `install.lock`.
pub fn locks(state: &Path) -> PathBuf {
    state.join(LOCKS)
}

/// `install/`: `created-<hash>` per settings file `cairn install` created.
pub fn install_records(state: &Path) -> PathBuf {
    state.join(INSTALL)
}

/// `ledger/memory.jsonl`: cairn's own LLM spend.
pub fn memory_ledger(state: &Path) -> PathBuf {
    state.join(LEDGER).join("memory.jsonl")
}

/// `ledger/`.
pub fn ledger(state: &Path) -> PathBuf {
    state.join(LEDGER)
}

/// `usage/`.
pub fn usage(state: &Path) -> PathBuf {
    state.join(USAGE)
}

/// `usage/sessions/`: `<session>.rec` (the record log) and `<session>.json`.
pub fn usage_sessions(state: &Path) -> PathBuf {
    usage(state).join("sessions")
}

/// `usage/days/`: `<date>.json` and the `.lock` of their updates.
pub fn usage_days(state: &Path) -> PathBuf {
    usage(state).join("days")
}

/// `usage/today.json`.
pub fn usage_today(state: &Path) -> PathBuf {
    usage(state).join("today.json")
}

/// `usage/flat.json`: the file list of the flat transcript layout.
pub fn usage_flat(state: &Path) -> PathBuf {
    usage(state).join("flat.json")
}

/// `guard/`: `sessions/`, `windows/`, `handoff/`, `ratchet.lock`.
pub fn guard(state: &Path) -> PathBuf {
    state.join(GUARD)
}

/// `guard/history.jsonl`: every fire, kept past the guard's sweep.
pub fn guard_history(state: &Path) -> PathBuf {
    guard(state).join("history.jsonl")
}

/// `gate/notes.jsonl`.
pub fn gate_notes(state: &Path) -> PathBuf {
    state.join(GATE).join("notes.jsonl")
}

/// `statusline/`: `<session>.json` and `errors.seen`.
pub fn statusline(state: &Path) -> PathBuf {
    state.join(STATUSLINE)
}

/// `audit/scan.json`.
pub fn audit_scan(state: &Path) -> PathBuf {
    state.join(AUDIT).join("scan.json")
}

/// `search/`: `<hash of root>.sqlite`.
pub fn search(state: &Path) -> PathBuf {
    state.join(SEARCH)
}

/// `site/`: `<project>-<hash>/index.html`.
pub fn site(state: &Path) -> PathBuf {
    state.join(SITE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paths are on users' disks: a rename here orphans their state.
    #[test]
    fn paths_are_the_ones_on_disk() {
        let s = Path::new("/s");
        let cases = [
            (diagnostics_log(s), "/s/diagnostics.log"),
            (diagnostics_log_rotated(s), "/s/diagnostics.log.1"),
            (config_error_seen(s), "/s/config-error.last"),
            (worker_lock(s), "/s/worker.lock"),
            (worker_pid(s), "/s/worker.pid"),
            (spool_pending(s), "/s/spool/pending"),
            (spool_dead(s), "/s/spool/dead"),
            (capture(s), "/s/capture"),
            (memory_sessions(s), "/s/sessions"),
            (locks(s), "/s/locks"),
            (install_records(s), "/s/install"),
            (memory_ledger(s), "/s/ledger/memory.jsonl"),
            (usage_sessions(s), "/s/usage/sessions"),
            (usage_days(s), "/s/usage/days"),
            (usage_today(s), "/s/usage/today.json"),
            (usage_flat(s), "/s/usage/flat.json"),
            (guard(s), "/s/guard"),
            (guard_history(s), "/s/guard/history.jsonl"),
            (gate_notes(s), "/s/gate/notes.jsonl"),
            (statusline(s), "/s/statusline"),
            (audit_scan(s), "/s/audit/scan.json"),
            (search(s), "/s/search"),
            (site(s), "/s/site"),
        ];
        for (got, want) in cases {
            assert_eq!(got, Path::new(want));
        }
    }

    #[test]
    fn every_top_entry_is_named_once() {
        let mut names: Vec<&str> = TOP.iter().map(|e| e.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), TOP.len());
    }
}
