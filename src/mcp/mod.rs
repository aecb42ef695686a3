//! `cairn mcp`: the memory tools over MCP on stdio. Under construction on its
//! own branch.

use crate::Output;
use crate::context::Ctx;
use std::path::Path;

pub fn serve(_ctx: &Ctx, _cwd: &Path) -> anyhow::Result<Output> {
    anyhow::bail!("`cairn mcp` is not available in this build yet")
}
