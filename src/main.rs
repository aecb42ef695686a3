//! The `cairn` command line: parse arguments, find the project root and load
//! its config for the commands that take them, dispatch, print. The
//! commands' work lives in the library; see `lib.rs` for the parts.

// The entry point is where output is written.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use cairn::Output;
use cairn::context::Ctx;
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cairn",
    version,
    about = "Session memory, guard rails and token audit for Claude Code"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Handle one Claude Code hook payload on stdin (always exits 0).
    Hook,
    /// Print the status line for the client's JSON on stdin (always exits 0).
    Statusline,
    /// Drain the memory spool (started automatically by the Stop hook).
    Worker {
        /// Process every pending job now, in the foreground, then exit.
        #[arg(long)]
        drain: bool,
    },
    /// Read, promote and archive session memory.
    #[command(subcommand)]
    Memory(MemoryCommand),
    /// Token and dollar usage over every transcript the client keeps.
    Usage(UsageArgs),
    /// Register cairn's hooks, status line and skills in this project.
    Install(InstallArgs),
    /// Remove exactly what `cairn install` added.
    Uninstall(UninstallArgs),
    /// Show the merged configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// What a skill costs, estimated step by step and measured from real runs.
    #[command(subcommand)]
    Audit(cairn::audit::AuditCommand),
    /// Write the project's memory, spend, guard and audits as one static page.
    Site(cairn::site::SiteArgs),
    /// Check the installation and say what to fix.
    Doctor(cairn::doctor::DoctorArgs),
    /// Serve the memory tools over MCP on stdio.
    Mcp,
    /// Git merge driver for memory files (registered by `cairn install`).
    #[command(hide = true)]
    MergeDriver(cairn::merge::DriverArgs),
    /// Print a shell completion script.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Replay a bundled session through `cairn hook` in a scratch project, offline.
    Demo {
        /// Keep the scratch project in this folder instead of a temporary one.
        #[arg(long)]
        dir: Option<std::path::PathBuf>,
    },
}

#[derive(Subcommand)]
enum MemoryCommand {
    /// Print the latest checkpoint, open to-dos, the last active days' logs and long memory.
    Load {
        /// A project name, or `all` (default).
        project: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Merge durable facts of recent logs into long_memory.md and archive old logs.
    Promote {
        project: Option<String>,
        #[arg(long)]
        dry_run: bool,
    },
    /// Search logs, archives, checkpoints and long memory (ranked).
    Search(cairn::search::SearchArgs),
    /// Move logs older than N days to logs/archives/.
    Archive {
        project: Option<String>,
        #[arg(long)]
        days: Option<u32>,
    },
}

#[derive(Args)]
struct UsageArgs {
    /// daily, monthly, session, project, blocks (5-hour billing blocks),
    /// or export (this machine's ledger as a file for `--merge` elsewhere).
    #[arg(value_parser = ["daily", "monthly", "session", "project", "blocks", "export"])]
    kind: String,
    /// Other machines' `cairn usage export` files; each response counts once.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    merge: Vec<std::path::PathBuf>,
    /// With `export`: the file to write (default: stdout).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// First local date included (YYYY-MM-DD or YYYYMMDD).
    #[arg(long)]
    since: Option<String>,
    /// Last local date included.
    #[arg(long)]
    until: Option<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Print every setting with the layer it came from.
    Show,
}

#[derive(Args)]
struct InstallArgs {
    /// Show the changes as a diff and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Only register cairn's status line, in your user settings
    /// ($CLAUDE_CONFIG_DIR or ~/.claude), for every project.
    #[arg(long)]
    user: bool,
    /// Do not register cairn's status line in the project.
    #[arg(long, conflicts_with = "user")]
    no_statusline: bool,
}

#[derive(Args)]
struct UninstallArgs {
    /// Show the changes as a diff and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Only remove cairn's status line from your user settings.
    #[arg(long)]
    user: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ctx = Ctx::from_process();
    if let Command::Hook = cli.command {
        // Panics are caught and logged inside; keep the default hook from
        // writing to the client's stderr.
        std::panic::set_hook(Box::new(|_| {}));
        let out = cairn::hook::main(&ctx, std::io::stdin().lock());
        print_out(&out);
        return ExitCode::SUCCESS;
    }
    if let Command::Statusline = cli.command {
        std::panic::set_hook(Box::new(|_| {}));
        let cwd = std::env::current_dir().ok();
        let root =
            cairn::memory::store::find_root(ctx.env.get("CLAUDE_PROJECT_DIR"), cwd.as_deref());
        let config = cairn::config::load_or_default(&ctx, root.as_deref());
        print_out(&cairn::statusline::main(
            &ctx,
            &config.for_statusline(),
            &config.statusline,
            std::io::stdin().lock(),
        ));
        return ExitCode::SUCCESS;
    }
    match run(&ctx, cli.command) {
        Ok(out) => {
            print_out(&out.stdout);
            if !out.stderr.is_empty() {
                eprint!("{}", out.stderr);
            }
            ExitCode::from(out.code)
        }
        Err(e) => {
            eprintln!("cairn: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn install_options(ctx: &Ctx, dry_run: bool) -> cairn::install::InstallOptions {
    cairn::install::InstallOptions {
        dry_run,
        command: ctx.self_command(),
        lock_path: Some(cairn::state_layout::locks(&ctx.state_dir).join("install.lock")),
        statusline: true,
        user_settings: ctx.user_settings_path(),
        record_dir: Some(cairn::state_layout::install_records(&ctx.state_dir)),
    }
}

fn user_settings(ctx: &Ctx) -> anyhow::Result<std::path::PathBuf> {
    ctx.user_settings_path()
        .ok_or_else(|| anyhow::anyhow!("no user settings folder: set HOME or CLAUDE_CONFIG_DIR"))
}

/// A closed pipe (`cairn memory load | head`) is success, not a panic.
fn print_out(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes()).and_then(|_| out.flush());
}

fn run(ctx: &Ctx, command: Command) -> anyhow::Result<Output> {
    use cairn::cli::memory as mem;
    let cwd = std::env::current_dir()?;
    match command {
        Command::Hook | Command::Statusline => unreachable!("handled before"),
        Command::Worker { drain } => {
            // Each job's project has its own `.cairn.toml`.
            let settings_for = |root: &std::path::Path| {
                cairn::config::load_or_default(ctx, Some(root)).for_capture()
            };
            cairn::capture::worker_command(ctx, drain, &settings_for).map(Output::ok)
        }
        Command::Memory(m) => {
            let root = cairn::memory::store::root_from(ctx, &cwd)?;
            let config = cairn::config::load_for(ctx, Some(&root))?.config;
            match m {
                MemoryCommand::Load { project, json } => {
                    mem::load(ctx, &config, &root, project.as_deref(), json).map(Output::ok)
                }
                MemoryCommand::Promote { project, dry_run } => {
                    mem::promote(ctx, &config, &root, project.as_deref(), dry_run).map(Output::ok)
                }
                MemoryCommand::Archive { project, days } => {
                    mem::archive(ctx, &config, &root, project.as_deref(), days).map(Output::ok)
                }
                MemoryCommand::Search(args) => cairn::search::run(ctx, &config.memory, &root, args),
            }
        }
        Command::Usage(a) if a.kind == "export" => {
            cairn::usage::export::run(ctx, a.out.as_deref()).map(Output::ok)
        }
        Command::Usage(a) => {
            // The project's `.cairn.toml` may override prices: a report run
            // inside it uses them, like the status line there does.
            let root =
                cairn::memory::store::find_root(ctx.env.get("CLAUDE_PROJECT_DIR"), Some(&cwd));
            let config = cairn::config::load_for(ctx, root.as_deref())?.config;
            cairn::usage::report_merging(
                ctx,
                &config.prices(),
                a.kind.parse()?,
                a.since.as_deref(),
                a.until.as_deref(),
                a.json,
                &a.merge,
            )
            .map(Output::ok)
        }
        Command::Site(a) => {
            let root = cairn::memory::store::root_from(ctx, &cwd)?;
            let config = cairn::config::load_for(ctx, Some(&root))?.config;
            cairn::site::run(ctx, &root, &config.for_site(), a)
        }
        Command::Install(a) if a.user => {
            cairn::install::run_user_install(&user_settings(ctx)?, &install_options(ctx, a.dry_run))
                .map(Output::ok)
        }
        Command::Uninstall(a) if a.user => cairn::install::run_user_uninstall(
            &user_settings(ctx)?,
            &install_options(ctx, a.dry_run),
        )
        .map(Output::ok),
        Command::Install(a) => {
            let root = cairn::memory::store::root_from(ctx, &cwd).unwrap_or(cwd);
            let config = cairn::config::load_for(ctx, Some(&root))?.config;
            let opts = cairn::install::InstallOptions {
                statusline: !a.no_statusline,
                ..install_options(ctx, a.dry_run)
            };
            let out = cairn::install::run_install(&root, &opts)?;
            Ok(Output::ok(out + &mem::backend_summary(ctx, &config)))
        }
        Command::Uninstall(a) => {
            let root = cairn::memory::store::root_from(ctx, &cwd).unwrap_or(cwd);
            cairn::install::run_uninstall(&root, &install_options(ctx, a.dry_run)).map(Output::ok)
        }
        Command::Config(ConfigCommand::Show) => {
            let root =
                cairn::memory::store::find_root(ctx.env.get("CLAUDE_PROJECT_DIR"), Some(&cwd));
            let loaded = cairn::config::load_for(ctx, root.as_deref())?;
            Ok(Output::ok(cairn::config::show(&loaded)))
        }
        Command::Demo { dir } => cairn::demo::run(ctx, dir.as_deref()).map(Output::ok),
        Command::Audit(a) => {
            let root =
                cairn::memory::store::find_root(ctx.env.get("CLAUDE_PROJECT_DIR"), Some(&cwd))
                    .unwrap_or_else(|| cwd.clone());
            let config = cairn::config::load_for(ctx, Some(&root))?.config;
            cairn::audit::run(ctx, &root, &config.for_audit(), a)
        }
        Command::Doctor(a) => cairn::doctor::run(ctx, &cwd, a),
        Command::Mcp => cairn::mcp::serve(ctx, &cwd),
        Command::MergeDriver(a) => cairn::merge::run_driver(ctx, a),
        Command::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(
                shell,
                &mut <Cli as clap::CommandFactory>::command(),
                "cairn",
                &mut buf,
            );
            Ok(Output::ok(String::from_utf8_lossy(&buf).into_owned()))
        }
    }
}
