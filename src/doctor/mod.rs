//! `cairn doctor`. Under construction on its own branch.

use crate::Output;
use crate::context::Ctx;
use std::path::Path;

#[derive(clap::Args, Debug)]
pub struct DoctorArgs {
    #[arg(long)]
    pub json: bool,
}

pub fn run(_ctx: &Ctx, _cwd: &Path, _args: DoctorArgs) -> anyhow::Result<Output> {
    anyhow::bail!("`cairn doctor` is not available in this build yet")
}
