//! `cairn memory search` (SPEC §1.10). Under construction on its own branch.

use crate::Output;
use crate::config::Config;
use crate::context::Ctx;
use std::path::Path;

#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// Words to look for.
    #[arg(required = true)]
    pub query: Vec<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(
    _ctx: &Ctx,
    _config: &Config,
    _root: &Path,
    _args: SearchArgs,
) -> anyhow::Result<Output> {
    anyhow::bail!("`cairn memory search` is not available in this build yet")
}
