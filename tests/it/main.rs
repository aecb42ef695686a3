//! Every integration test, compiled into one binary: one link instead of
//! thirty on a small machine, and one place for the shared harness
//! (`common`: cleared environment, fixed clock, scratch folders,
//! snapshots). Each module is the file that used to be `tests/<name>.rs`;
//! run one with `cargo test --test it <name>::`.

mod common;

mod audit;
mod backends;
mod cli;
mod doctor;
mod gate_corpus;
mod guard_concurrency;
mod guard_context;
mod guard_wiring;
mod hook_pipeline;
mod install;
mod install_statusline;
mod mcp_stdio;
mod memory_commands;
mod memory_quality;
mod memory_resume;
mod merge_driver;
mod plugin;
mod redact_corpus;
mod reliability;
mod search_cli;
mod site;
mod spool_regression;
mod statusline_main;
mod statusline_render;
mod statusline_segments;
mod statusline_today;
mod untrusted_repo;
mod usage_cli;
mod usage_dedupe;
mod usage_incremental;
mod usage_report;
mod worker_faults;
