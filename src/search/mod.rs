//! `cairn memory search` (SPEC §1.10): ranked bullets and paragraphs from
//! daily logs, archives, checkpoints and long memory, for every project of
//! the repository.
//!
//! `scan` cuts the Markdown into entries, `text` turns words into stemmed
//! terms, `index` keeps them in a SQLite FTS5 file under the state folder
//! (BM25 ranking). The Markdown is the truth: the index is brought up to
//! date before every query and rebuilt, or bypassed, whenever it cannot be
//! trusted, with one note saying so.

pub mod index;
pub mod scan;
pub mod text;

#[cfg(test)]
mod tests;

use crate::Output;
use crate::context::Ctx;
use crate::diag::Level;
use crate::memory::config::MemoryConfig;
use crate::memory::log::SectionKey;
use crate::memory::store::Store;
use anyhow::{Result, bail};
pub use index::{Filters, Hit, SectionFilter};
use index::{Index, Trouble};
use std::path::Path;

/// Results shown when `--limit` is not given.
pub const DEFAULT_LIMIT: usize = 20;
/// Hard cap: a search answers with a page, never with the whole memory.
pub const MAX_LIMIT: usize = 200;
/// Characters of a query looked at; the rest is ignored.
pub const MAX_QUERY_CHARS: usize = 1_000;

#[derive(clap::Args, Debug, Default)]
pub struct SearchArgs {
    /// Words to look for.
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Only this project (`root` or a sub-project name).
    #[arg(long)]
    pub project: Option<String>,
    /// Only this section: a heading in French or English (`Décisions prises`,
    /// `decisions`, `to do`) or part of a long-memory/checkpoint heading.
    #[arg(long)]
    pub section: Option<String>,
    /// First date included (YYYY-MM-DD or YYYYMMDD).
    #[arg(long)]
    pub since: Option<String>,
    /// Last date included.
    #[arg(long)]
    pub until: Option<String>,
    /// Number of results.
    #[arg(long, default_value_t = DEFAULT_LIMIT)]
    pub limit: usize,
    #[arg(long)]
    pub json: bool,
}

/// What a search found, and what it has to say about how.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Outcome {
    pub query: String,
    pub results: Vec<Hit>,
    /// Said once per search: the index was built, rebuilt or bypassed.
    pub notes: Vec<String>,
    /// `index` (the file in the state folder) or `markdown` (read directly).
    pub source: &'static str,
}

/// A search request as the CLI and the MCP server both build it.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub query: String,
    pub project: Option<String>,
    pub section: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub limit: Option<usize>,
}

pub fn run(ctx: &Ctx, config: &MemoryConfig, root: &Path, args: SearchArgs) -> Result<Output> {
    let store = Store::discover(root, config);
    let req = Request {
        query: args.query.join(" "),
        project: args.project,
        section: args.section,
        since: args.since,
        until: args.until,
        limit: Some(args.limit),
    };
    let outcome = search(ctx, &store, &req)?;
    let mut stderr: String = outcome
        .notes
        .iter()
        .map(|n| format!("cairn: note: {n}\n"))
        .collect();
    let code = u8::from(outcome.results.is_empty());
    let stdout = if args.json {
        let mut s = serde_json::to_string_pretty(&outcome)?;
        s.push('\n');
        s
    } else {
        if outcome.results.is_empty() {
            stderr.push_str(&format!(
                "cairn: no memory entry matches `{}`\n",
                outcome.query
            ));
        }
        render(&outcome.results)
    };
    Ok(Output {
        stdout,
        stderr,
        code,
    })
}

/// Plain text: `path:line  (date, section)` then the entry, indented.
pub fn render(hits: &[Hit]) -> String {
    let mut out = String::new();
    for h in hits {
        out.push_str(&format!("{}:{}", h.path, h.line));
        let meta: Vec<&str> = [h.date.as_deref(), Some(h.section.as_str())]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect();
        if !meta.is_empty() {
            out.push_str(&format!("  ({})", meta.join(", ")));
        }
        out.push_str("\n    ");
        out.push_str(&crate::format::truncate_head(&h.text, 400));
        out.push('\n');
    }
    out
}

/// Checks a request and turns it into filters.
pub fn filters(store: &Store, req: &Request) -> Result<Filters> {
    if let Some(p) = &req.project {
        store.select(Some(p)).map_err(anyhow::Error::msg)?;
    }
    let project = req.project.clone().filter(|p| p != "all");
    let section = match req.section.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => Some(parse_section(s)),
    };
    let since = req.since.as_deref().map(parse_date).transpose()?;
    let until = req.until.as_deref().map(parse_date).transpose()?;
    if let (Some(a), Some(b)) = (&since, &until)
        && a > b
    {
        bail!("--since {a} is after --until {b}");
    }
    Ok(Filters {
        project,
        section,
        since,
        until,
        limit: req.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT),
    })
}

/// A section named by its log heading in either language, its record key
/// (`a_suivre`), or any other heading text.
pub fn parse_section(s: &str) -> SectionFilter {
    SectionKey::from_json_key(&s.to_lowercase())
        .or_else(|| SectionKey::from_heading(s))
        .map_or_else(|| SectionFilter::Text(s.to_string()), SectionFilter::Key)
}

/// `YYYY-MM-DD` or `YYYYMMDD`, checked.
pub fn parse_date(s: &str) -> Result<String> {
    let s = s.trim();
    let dashed = if s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit()) {
        format!("{}-{}-{}", &s[..4], &s[4..6], &s[6..])
    } else {
        s.to_string()
    };
    match dashed.parse::<jiff::civil::Date>() {
        Ok(d) => Ok(d.to_string()),
        Err(_) => bail!("`{s}` is not a date (YYYY-MM-DD)"),
    }
}

/// Runs a search over a repository's memory. Fails only on a bad request
/// (unknown project, bad date, nothing to search for); any trouble with the
/// index ends in a rebuild or a direct read of the Markdown, and a note.
pub fn search(ctx: &Ctx, store: &Store, req: &Request) -> Result<Outcome> {
    let f = filters(store, req)?;
    let query: String = req.query.chars().take(MAX_QUERY_CHARS).collect();
    let mut norm = text::Normalizer::new();
    let Some(expr) = text::match_expr(&mut norm, &query) else {
        bail!("nothing to search for in `{}`", query.trim());
    };
    let sources = scan::sources(store);
    let path = index::index_path(&ctx.state_dir, &store.root);
    let mut notes = Vec::new();
    // An empty file is what a crash while creating it leaves: missing too.
    let existed = path.metadata().is_ok_and(|m| m.len() > 0);

    let on_disk = |notes: &mut Vec<String>| -> Result<Vec<Hit>, Trouble> {
        let mut idx = Index::open(&path, &store.root)?;
        let sync = idx.sync(&sources)?;
        if !existed {
            let s = if sync.files == 1 { "" } else { "s" };
            notes.push(format!(
                "search index was missing; built it from {} memory file{s}",
                sync.files
            ));
        }
        idx.query(&expr, &f)
    };

    let (results, source) = match on_disk(&mut notes) {
        Ok(hits) => (hits, "index"),
        Err(Trouble::Broken(why)) => {
            ctx.diag(
                Level::Warn,
                "search",
                &format!("index {}: {why}", path.display()),
            );
            index::remove(&path);
            let mut ignored = Vec::new();
            match on_disk(&mut ignored) {
                Ok(hits) => {
                    notes.push(format!(
                        "search index was unreadable ({}); rebuilt it from the memory files",
                        crate::diag::one_line(&why, 160)
                    ));
                    (hits, "index")
                }
                Err(again) => {
                    let why = match again {
                        Trouble::Busy => "busy".to_string(),
                        Trouble::Broken(w) => w,
                    };
                    notes.push(format!(
                        "search index unusable ({}); searched the memory files directly",
                        crate::diag::one_line(&why, 160)
                    ));
                    (direct(store, &sources, &expr, &f)?, "markdown")
                }
            }
        }
        Err(Trouble::Busy) => {
            notes.push(
                "search index is locked by another process; searched the memory files directly"
                    .to_string(),
            );
            (direct(store, &sources, &expr, &f)?, "markdown")
        }
    };
    for n in &notes {
        ctx.diag(Level::Info, "search", n);
    }
    Ok(Outcome {
        query: query.trim().to_string(),
        results,
        notes,
        source,
    })
}

/// The same search on an index built in memory from the Markdown.
fn direct(
    store: &Store,
    sources: &[scan::Source],
    expr: &text::MatchExpr,
    f: &Filters,
) -> Result<Vec<Hit>> {
    let run = || -> Result<Vec<Hit>, Trouble> {
        let mut idx = Index::in_memory(&store.root)?;
        idx.sync(sources)?;
        idx.query(expr, f)
    };
    run().map_err(|t| match t {
        Trouble::Busy => anyhow::anyhow!("in-memory search index busy"),
        Trouble::Broken(w) => anyhow::anyhow!("search failed: {w}"),
    })
}
