//! Token audit of skills (SPEC §3): `cairn audit skill [NAME]` and
//! `cairn audit index`. Under construction on its own branch.

use crate::Output;
use crate::context::Ctx;
use std::path::Path;

#[derive(clap::Subcommand, Debug)]
pub enum AuditCommand {
    /// Estimate and measure what one skill costs; list skills without NAME.
    Skill {
        name: Option<String>,
        /// Skip the scan of transcripts for real runs.
        #[arg(long)]
        no_measured: bool,
        /// Report language: fr or en (default: memory.language).
        #[arg(long)]
        lang: Option<String>,
    },
    /// Rebuild docs/audits/token/README.md from every report.
    Index,
}

pub fn run(_ctx: &Ctx, _cwd: &Path, _cmd: AuditCommand) -> anyhow::Result<Output> {
    anyhow::bail!("`cairn audit` is not available in this build yet")
}
