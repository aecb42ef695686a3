//! The git merge driver for memory files (SPEC §1.12). Under construction on
//! its own branch.

use crate::Output;
use crate::context::Ctx;

#[derive(clap::Args, Debug)]
pub struct DriverArgs {
    /// %O %A %B %P as git passes them.
    pub files: Vec<std::path::PathBuf>,
}

pub fn run_driver(_ctx: &Ctx, _args: DriverArgs) -> anyhow::Result<Output> {
    anyhow::bail!("the merge driver is not available in this build yet")
}
