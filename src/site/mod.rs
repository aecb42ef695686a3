//! `cairn site`: everything cairn knows about a project as one static page
//! (memory, spend, guard, audits) that opens from `file://` with no network.
//!
//! One file per tab builds that tab's data from the readers the rest of
//! cairn uses (`search::scan` for memory files, `usage::report` for spend,
//! the guard's ratchet, `audit::index`); the templates under `assets/site/`
//! turn it into HTML with minijinja, escaping every value. The few pieces
//! that are HTML already (Markdown, inline SVG) are built by [`html`] and
//! [`svg`], which escape their inputs themselves.
//!
//! The page carries a Content-Security-Policy with a per-build nonce: even
//! if some markup slipped through escaping, no script or style without the
//! nonce runs and nothing may be fetched.

mod audits;
mod guard;
pub mod html;
mod memory;
mod spend;
pub mod svg;

use crate::context::Ctx;
use crate::fsutil::confine::Refused;
use crate::memory::store::Store;
use crate::usage::{PriceTable, ReportKind, ReportOptions};
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};

const PAGE: &str = include_str!("../../assets/site/page.html");
const MEMORY: &str = include_str!("../../assets/site/memory.html");
const SPEND: &str = include_str!("../../assets/site/spend.html");
const GUARD: &str = include_str!("../../assets/site/guard.html");
const AUDITS: &str = include_str!("../../assets/site/audits.html");
const CSS: &str = include_str!("../../assets/site/site.css");
const JS: &str = include_str!("../../assets/site/site.js");

#[derive(Debug, Clone, clap::Args)]
pub struct SiteArgs {
    /// Folder to write index.html into (default: `<state>/site/<project>-<hash>/`,
    /// the folder's name and a short hash of the project root's path).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Open the page in the default browser once written.
    #[arg(long)]
    pub open: bool,
    /// First date shown (YYYY-MM-DD or YYYYMMDD).
    #[arg(long)]
    pub since: Option<String>,
    /// Other machines' `cairn usage export` files, counted once with this one's.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub merge: Vec<PathBuf>,
    /// Print what was written as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The configuration the page is built from: where memory lives and its
/// daily budget, the guard's levels for the fill charts, the prices for
/// spend. Built by the entry layer (`Config::for_site`).
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub memory: crate::memory::config::MemoryConfig,
    pub guard: crate::guard::GuardConfig,
    pub prices: PriceTable,
}

/// What a build depends on besides the repository, explicit for tests.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `YYYY-MM-DD`.
    pub since: Option<String>,
    pub merge: Vec<PathBuf>,
    /// Config folders the usage scan reads; `None`: the client's.
    pub config_dirs: Option<Vec<PathBuf>>,
}

/// The page and what it holds, for the command's summary.
#[derive(Debug, Serialize)]
pub struct Page {
    #[serde(skip)]
    pub html: String,
    pub bytes: usize,
    pub days: usize,
    pub bullets: usize,
    pub open_todos: usize,
    pub sessions_drawn: usize,
    pub gate_notes: usize,
    pub audits: usize,
    pub total_cost: String,
}

#[derive(Serialize)]
struct TabLink {
    id: &'static str,
    label: &'static str,
    badge: Option<String>,
}

/// `2026-11-28` or `20261128` → `2026-11-28`.
fn parse_since(s: &str) -> Result<String> {
    let t = s.trim();
    let iso = if t.len() == 8 && t.bytes().all(|b| b.is_ascii_digit()) {
        format!("{}-{}-{}", &t[..4], &t[4..6], &t[6..])
    } else {
        t.to_string()
    };
    iso.parse::<jiff::civil::Date>()
        .map(|d| d.to_string())
        .map_err(|_| anyhow::anyhow!("invalid --since `{s}`: expected YYYYMMDD or YYYY-MM-DD"))
}

/// The project's name in paths and titles: its folder's name.
pub fn project_name(root: &Path) -> String {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".into());
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `file:///a%20b/` for the `<base>` the page's relative links resolve
/// against: the repository, wherever the page itself was written.
fn file_url(dir: &Path) -> String {
    let mut out = String::from("file://");
    let s = dir.to_string_lossy();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if !out.ends_with('/') {
        out.push('/');
    }
    out
}

/// Not a secret, only unguessable by whoever wrote the memory files before
/// the build: the time of the build and the process, hashed.
fn nonce(ctx: &Ctx) -> String {
    let now = ctx.clock.now().as_nanosecond();
    let h = crate::usage::store::hash(&[
        &now.to_le_bytes(),
        &std::process::id().to_le_bytes(),
        ctx.state_dir.as_os_str().as_encoded_bytes(),
    ]);
    format!("{h:016x}")
}

/// Why a repository file is not on the page, without the paths: the page
/// may be shared, and where a link points on this machine is nobody
/// else's business.
pub(crate) fn refused_reason(r: &Refused) -> String {
    match r {
        Refused::Outside { .. } => "not shown: a link to a file outside the project".into(),
        Refused::NotRegular { what, .. } => format!("not shown: {what}, not a regular file"),
        Refused::TooLarge { len, cap, .. } => format!(
            "not shown: {:.1} MiB, over the {:.0} MiB cap",
            *len as f64 / f64::from(1 << 20),
            *cap as f64 / f64::from(1 << 20)
        ),
        Refused::Dangling { .. } => "not shown: a link that points nowhere".into(),
        Refused::Climbs { .. } => "not shown: a path climbing out of the project".into(),
        Refused::Io { source, .. } => format!("cannot read: {source}"),
    }
}

/// The path a refusal is about.
pub(crate) fn refused_path(r: &Refused) -> &Path {
    match r {
        Refused::Outside { path, .. }
        | Refused::NotRegular { path, .. }
        | Refused::TooLarge { path, .. }
        | Refused::Dangling { path }
        | Refused::Climbs { path }
        | Refused::Io { path, .. } => path,
    }
}

/// Builds the page in memory.
pub fn build(ctx: &Ctx, settings: &Settings, root: &Path, opts: &Options) -> Result<Page> {
    let since = opts.since.as_deref();
    let store = Store::discover(root, &settings.memory);
    let (memory, index) = memory::build(ctx, &store, since);

    let usage = ReportOptions {
        since: opts.since.clone(),
        prices: settings.prices.clone(),
        config_dirs: opts.config_dirs.clone(),
        merge: opts.merge.clone(),
        ..ReportOptions::new(ReportKind::Daily)
    };
    let reports = crate::usage::report::reports_json(
        ctx,
        &usage,
        &[
            ReportKind::Daily,
            ReportKind::Monthly,
            ReportKind::Session,
            ReportKind::Blocks,
        ],
    )?;
    let spend = spend::build(&reports, settings.memory.daily_budget_usd, &ctx.tz());
    // Read again for the Guard tab: the reports keep only their totals.
    let merged = if opts.merge.is_empty() {
        crate::usage::export::Merged::default()
    } else {
        crate::usage::export::read_all(&opts.merge)?
    };
    let guard = guard::build(ctx, &settings.guard, root, since, merged);
    let audits = audits::build(root);

    let mut env = minijinja::Environment::new();
    // The same escaping as the Markdown and SVG pieces (minijinja's own also
    // escapes `/`, which only makes every path three times longer).
    env.set_formatter(|out, _state, value| {
        if value.is_undefined() || value.is_none() {
            return Ok(());
        }
        if value.is_safe() {
            out.write_str(value.as_str().unwrap_or_default())?;
        } else if let Some(s) = value.as_str() {
            out.write_str(&html::esc(s))?;
        } else {
            out.write_str(&html::esc(&value.to_string()))?;
        }
        Ok(())
    });
    for (name, src) in [
        ("page.html", PAGE),
        ("memory.html", MEMORY),
        ("spend.html", SPEND),
        ("guard.html", GUARD),
        ("audits.html", AUDITS),
    ] {
        env.add_template(name, src)
            .with_context(|| format!("template {name}"))?;
    }
    let todos = memory::open_todos(&memory);
    let tabs = [
        TabLink {
            id: "memory",
            label: "Memory",
            badge: (todos > 0).then(|| todos.to_string()),
        },
        TabLink {
            id: "spend",
            label: "Spend",
            badge: Some(spend.total.clone()),
        },
        TabLink {
            id: "guard",
            label: "Guard",
            badge: None,
        },
        TabLink {
            id: "audits",
            label: "Audits",
            badge: (!audits.reports.is_empty()).then(|| audits.reports.len().to_string()),
        },
    ];
    let generated = ctx
        .clock
        .now()
        .to_zoned(ctx.tz())
        .strftime("%Y-%m-%d %H:%M %Z")
        .to_string();
    let html = env
        .get_template("page.html")?
        .render(minijinja::context! {
            project => project_name(root),
            version => env!("CARGO_PKG_VERSION"),
            generated => generated,
            since => since,
            merged => opts.merge.len(),
            base => file_url(root),
            nonce => nonce(ctx),
            css => CSS,
            js => JS,
            index => html::json_for_script(&index),
            tabs => tabs,
            memory => &memory,
            spend => &spend,
            guard => &guard,
            audits => &audits,
        })
        .context("cannot render the page")?;
    Ok(Page {
        bytes: html.len(),
        days: memory.days,
        bullets: memory.bullets,
        open_todos: todos,
        sessions_drawn: guard.sessions.len(),
        gate_notes: guard.gate_total,
        audits: audits.reports.len(),
        total_cost: spend.total.clone(),
        html,
    })
}

/// Where the page goes when `--out` is not given: `<name>-<hash>`. The
/// name alone let two checkouts called `api` overwrite each other's page;
/// the hash of the canonical root keeps them apart (the same key the
/// search index uses), the name keeps the folder recognisable.
pub fn default_dir(ctx: &Ctx, root: &Path) -> PathBuf {
    let canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let h = crate::hash::fnv1a(canon.as_os_str().as_encoded_bytes());
    crate::state_layout::site(&ctx.state_dir).join(format!(
        "{}-{:08x}",
        project_name(root),
        h >> 32
    ))
}

/// Earlier versions wrote the page to `<state>/site/<name>/`: left there,
/// it would go stale while a bookmark still opens it. It is removed only
/// when its `<base>` names this root, so a same-named project's page stays.
fn retire_nameonly_page(ctx: &Ctx, root: &Path) -> Option<PathBuf> {
    let dir = crate::state_layout::site(&ctx.state_dir).join(project_name(root));
    let old = dir.join("index.html");
    let meta = std::fs::symlink_metadata(&old).ok()?;
    // A generated page is a few MB; a 16 MiB cap keeps a stray file cheap.
    if !meta.is_file() || meta.len() > 16 << 20 {
        return None;
    }
    let html = std::fs::read_to_string(&old).ok()?;
    if !html.contains(&format!("<base href=\"{}\">", file_url(root))) {
        return None;
    }
    std::fs::remove_file(&old).ok()?;
    // Only if nothing else is in it.
    let _ = std::fs::remove_dir(&dir);
    Some(old)
}

/// Builds and writes `index.html`; returns its path and the page.
pub fn write(
    ctx: &Ctx,
    settings: &Settings,
    root: &Path,
    dir: &Path,
    opts: &Options,
) -> Result<(PathBuf, Page)> {
    let page = build(ctx, settings, root, opts)?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join("index.html");
    crate::fsutil::atomic_write(&path, page.html.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok((path, page))
}

/// `cairn site` for the project at `root` (the caller found it and loaded
/// its configuration).
pub fn run(ctx: &Ctx, root: &Path, settings: &Settings, args: SiteArgs) -> Result<crate::Output> {
    let root = root.to_path_buf();
    let opts = Options {
        since: args.since.as_deref().map(parse_since).transpose()?,
        merge: args.merge,
        config_dirs: None,
    };
    let default = args.out.is_none();
    let dir = args.out.unwrap_or_else(|| default_dir(ctx, &root));
    let (path, page) = write(ctx, settings, &root, &dir, &opts)?;
    let retired = if default {
        retire_nameonly_page(ctx, &root)
    } else {
        None
    };
    let mut out = if args.json {
        let mut v = serde_json::to_value(&page)?;
        v["path"] = serde_json::json!(path);
        if let Some(old) = &retired {
            v["removed_old_page"] = serde_json::json!(old);
        }
        serde_json::to_string_pretty(&v)? + "\n"
    } else {
        format!(
            "Wrote {} ({} KB): {}, {}, {}, {} spent, {}, {}, {}.\n",
            path.display(),
            page.bytes.div_ceil(1024),
            count(page.days, "day", "days"),
            count(page.bullets, "bullet", "bullets"),
            count(page.open_todos, "open to-do", "open to-dos"),
            page.total_cost,
            count(page.sessions_drawn, "session drawn", "sessions drawn"),
            count(page.gate_notes, "gate note", "gate notes"),
            count(page.audits, "audit", "audits"),
        )
    };
    if let Some(old) = retired.filter(|_| !args.json) {
        out.push_str(&format!(
            "Removed the page an earlier cairn wrote for this project at {} (it would no longer be updated).\n",
            old.display()
        ));
    }
    let mut err = String::new();
    if args.open
        && let Err(e) = open_in_browser(&path)
    {
        // On stderr with --json, where stdout must stay one JSON value.
        let note = format!(
            "cannot open a browser ({e}); open {} yourself\n",
            path.display()
        );
        if args.json {
            err.push_str(&note);
        } else {
            out.push_str(&note);
        }
    }
    let mut output = crate::Output::ok(out);
    output.stderr = err;
    Ok(output)
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn open_in_browser(path: &Path) -> std::io::Result<()> {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    std::process::Command::new(opener)
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
}
