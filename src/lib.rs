//! cairn: session memory, guard rails and token audit for Claude Code.
//!
//! `main.rs` parses arguments and hands most commands their project root and
//! config; the work lives here so it can be tested without spawning the
//! binary. See `docs/ARCHITECTURE.md`.

pub mod audit;
pub mod capture;
pub mod cli;
pub mod config;
pub mod context;
pub mod demo;
pub mod diag;
pub mod doctor;
pub mod event;
pub mod extract;
pub mod format;
pub mod fsutil;
pub mod gate;
pub mod guard;
pub mod hash;
pub mod hook;
pub mod install;
pub mod layers;
pub mod mcp;
pub mod memory;
pub mod merge;
pub mod redact;
pub mod search;
pub mod session_id;
pub mod site;
pub mod spend;
pub mod state_layout;
pub mod statusline;
pub mod transcript;
pub mod usage;

/// What a command prints and the status it exits with. Most commands only
/// print; `doctor` (something broken) and `audit skill` without a name (a
/// list and a hint) exit non-zero without it being an error.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: u8,
}

impl Output {
    pub fn ok(stdout: impl Into<String>) -> Output {
        Output {
            stdout: stdout.into(),
            ..Output::default()
        }
    }
}

impl From<String> for Output {
    fn from(stdout: String) -> Output {
        Output::ok(stdout)
    }
}

#[cfg(test)]
mod dag_tests;
