//! cairn: session memory, guard rails and token audit for Claude Code.
//!
//! `main.rs` only parses arguments; everything else lives here so it can be
//! tested without spawning the binary. See `docs/ARCHITECTURE.md`.

pub mod config;
pub mod context;
pub mod demo;
pub mod diag;
pub mod extract;
pub mod fsutil;
pub mod gate;
pub mod guard;
pub mod hook;
pub mod install;
pub mod memory;
pub mod redact;
pub mod statusline;
pub mod transcript;
pub mod usage;
