//! `cairn mcp`: the repository's memory as MCP tools on stdio (SPEC §1.10),
//! so the model can look things up itself instead of having everything
//! injected at session start.
//!
//! - `memory_search`: the ranked search of `cairn memory search`;
//! - `memory_get`: a memory file, or a line range of it, only under a
//!   project's `memory_sessions/`;
//! - `memory_recent`: the last days' logs, open to-dos first.
//!
//! The client owns stdout: every byte there is JSON-RPC, so trouble goes to
//! the diagnostics log. The server is single-client and sequential (a
//! current-thread runtime; tools run inline) and ends when stdin closes, so
//! no process outlives its session. Answers are bounded in size: a tool
//! result is context the client pays for on every later turn.

mod tools;

use crate::Output;
use crate::context::Ctx;
use crate::diag::Level;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use std::path::{Path, PathBuf};

/// Longest request line read; longer ones are dropped with a log line.
/// A memory query is a few words; this only stops a runaway client.
const MAX_LINE: usize = 8 * 1024 * 1024;

pub fn serve(ctx: &Ctx, cwd: &Path) -> anyhow::Result<Output> {
    let root = crate::memory::store::root_from(ctx, cwd).unwrap_or_else(|_| cwd.to_path_buf());
    // The tools read the memory only: the server keeps only that section.
    let memory = match crate::config::load_for(ctx, Some(&root)) {
        Ok(l) => l.config.memory,
        Err(e) => {
            // A typo in .cairn.toml must not take the tools away.
            ctx.diag(
                Level::Warn,
                "mcp",
                &format!("config: {e:#}; using defaults"),
            );
            Default::default()
        }
    };
    ctx.diag(Level::Info, "mcp", &format!("serving {}", root.display()));
    let server = Server {
        ctx: ctx.clone(),
        root,
        memory,
    };
    // Time too: rmcp arms timers when a session winds down.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    let outcome = rt.block_on(async {
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(
            tokio::io::stdin(),
            tokio::io::stdout(),
        )
        .with_max_line_length(MAX_LINE);
        let running = server.serve(transport).await?;
        running.waiting().await?;
        anyhow::Ok(())
    });
    // stdin is read on a blocking thread that cannot be interrupted: do not
    // wait for it once the client has gone.
    rt.shutdown_background();
    match outcome {
        Ok(()) => ctx.diag(Level::Info, "mcp", "client closed the connection"),
        Err(e) => {
            ctx.diag(Level::Warn, "mcp", &format!("session ended: {e:#}"));
        }
    }
    Ok(Output::ok(String::new()))
}

struct Server {
    ctx: Ctx,
    root: PathBuf,
    memory: crate::memory::config::MemoryConfig,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("cairn", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "This project's session memory (daily logs, archives, checkpoints, long memory). \
                 Use memory_search to find past decisions, problems and to-dos (results are \
                 path:line), memory_get to read a file or lines around a result, memory_recent \
                 for the last days with open to-dos first.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::list().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        let started = std::time::Instant::now();
        let result = tools::call(&self.ctx, &self.memory, &self.root, &name, &args);
        let ms = started.elapsed().as_millis();
        match result {
            Ok(tools::Answer::Text(text)) => {
                self.ctx.diag(
                    Level::Info,
                    "mcp",
                    &format!("{name}: {} chars, {ms} ms", text.len()),
                );
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
            }
            Ok(tools::Answer::Refused(why)) => {
                self.ctx
                    .diag(Level::Info, "mcp", &format!("{name} refused: {why}"));
                Ok(CallToolResult::error(vec![ContentBlock::text(why)]).into())
            }
            Err(e) => {
                self.ctx
                    .diag(Level::Warn, "mcp", &format!("{name}: {}", e.message));
                Err(e)
            }
        }
    }
}
