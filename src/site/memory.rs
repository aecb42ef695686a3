//! The Memory tab: days newest first with their sections, long memory,
//! checkpoints, the to-dos still open, and the search index.
//!
//! Files are cut by the search's reader (`search::scan`), which keeps line
//! numbers and reads French and English headings alike; open to-dos come
//! from `memory load`'s own rule, so the page and the SessionStart agree.

use super::html::{inline, markdown_with_lines};
use crate::context::Ctx;
use crate::memory::load;
use crate::memory::log::{SectionKey, fold_accents};
use crate::memory::store::Store;
use crate::search::scan::{self, Kind};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Checkpoints shown whole; older ones are listed by name.
const CHECKPOINTS_SHOWN: usize = 20;
/// Days whose bullets the timeline shows; older days are listed with a link
/// and a count, and their bullets stay in the search index. Three years of
/// bullets in full would be a page of tens of megabytes that a phone cannot
/// lay out; `--since` brings older days back in full.
const DAYS_IN_FULL: usize = 120;

#[derive(Debug, Serialize)]
pub struct Tab {
    pub projects: Vec<ProjectView>,
    pub bullets: usize,
    pub days: usize,
}

#[derive(Debug, Serialize)]
pub struct ProjectView {
    pub name: String,
    pub long_memory: Option<Doc>,
    pub todos: Vec<Todo>,
    pub checkpoints: Vec<Doc>,
    pub older_checkpoints: Vec<Link>,
    pub days: Vec<Day>,
    /// Days past [`DAYS_IN_FULL`], listed by date only.
    pub listed: usize,
    /// Memory files the project's jail refused (links out of the project,
    /// FIFOs, files over the cap), with why: a day missing from the
    /// timeline says so instead of vanishing.
    pub refused: Vec<(String, String)>,
}

#[derive(Debug, Serialize)]
pub struct Doc {
    pub title: String,
    pub href: String,
    /// Rendered by [`markdown_with_lines`]: escaped, no raw HTML.
    pub html: String,
}

#[derive(Debug, Serialize)]
pub struct Link {
    pub title: String,
    pub href: String,
}

#[derive(Debug, Serialize)]
pub struct Todo {
    pub date: String,
    pub html: String,
    pub href: String,
    pub loc: String,
}

#[derive(Debug, Serialize)]
pub struct Day {
    pub date: String,
    pub archived: bool,
    pub href: String,
    pub bullets: usize,
    /// Empty for the days past [`DAYS_IN_FULL`].
    pub sections: Vec<SectionView>,
}

#[derive(Debug, Serialize)]
pub struct SectionView {
    pub title: String,
    /// `travail`, `a_suivre`…: a CSS hook; empty for unknown sections.
    pub key: &'static str,
    pub bullets: Vec<BulletView>,
}

#[derive(Debug, Serialize)]
pub struct BulletView {
    pub line: usize,
    pub html: String,
    pub href: String,
}

/// What the search box reads: files, their dates and section headings
/// once, then one row per entry.
#[derive(Debug, Default, Serialize)]
pub struct Index {
    pub files: Vec<String>,
    pub dates: Vec<String>,
    pub sections: Vec<String>,
    /// `[file, line, section, text]`, text as written (the page folds case
    /// and accents itself, the way the query is folded).
    pub rows: Vec<(u32, u32, u32, String)>,
    #[serde(skip)]
    section_ids: HashMap<String, u32>,
}

impl Index {
    fn section(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.section_ids.get(s) {
            return i;
        }
        let i = self.sections.len() as u32;
        self.sections.push(s.to_string());
        self.section_ids.insert(s.to_string(), i);
        i
    }
}

/// `#L12` after the file: editors and forges that read it jump there; a
/// browser opening the file simply ignores it.
fn href(rel: &str, line: usize) -> String {
    if line == 0 {
        rel.to_string()
    } else {
        format!("{rel}#L{line}")
    }
}

fn section_slug(key: Option<SectionKey>) -> &'static str {
    match key {
        Some(SectionKey::Contexte) => "contexte",
        Some(SectionKey::Objectif) => "objectif",
        Some(SectionKey::Problemes) => "problemes",
        Some(SectionKey::Connaissances) => "connaissances",
        Some(SectionKey::Travail) => "travail",
        Some(SectionKey::Decisions) => "decisions",
        Some(SectionKey::ASuivre) => "a_suivre",
        Some(SectionKey::Finalise) => "finalise",
        None => "",
    }
}

pub fn build(ctx: &Ctx, store: &Store, since: Option<&str>) -> (Tab, Index) {
    let mut index = Index::default();
    let sources = scan::sources(store);
    let mut projects = Vec::new();
    let mut bullets = 0;
    let mut day_count = 0;
    for p in &store.projects {
        let mut view = ProjectView {
            name: p.name.clone(),
            long_memory: None,
            todos: Vec::new(),
            checkpoints: Vec::new(),
            older_checkpoints: Vec::new(),
            days: Vec::new(),
            listed: 0,
            refused: Vec::new(),
        };
        let mut refusals = Vec::new();
        // `scan::sources` skips what is not a regular file in the memory
        // folders; the jail's listing says what that was.
        for dir in [p.logs_dir(), p.archives_dir(), p.checkpoints_dir()] {
            if dir.exists() || dir.is_symlink() {
                refusals.extend(store.jail.list(&dir).1);
            }
        }
        if let Err(r) = store.jail.resolve(&p.long_memory_path()) {
            refusals.push(r);
        }
        // (date, folded to-do text) → where it is written, for the links.
        let mut todo_lines: HashMap<(String, String), (String, usize)> = HashMap::new();
        let mut days: BTreeMap<(String, String), Day> = BTreeMap::new();
        let mut checkpoints = Vec::new();
        for src in sources.iter().filter(|s| s.project == p.name) {
            let too_old = match (since, src.date.as_deref()) {
                (Some(s), Some(d)) => d < s,
                _ => false,
            };
            if too_old && src.kind != Kind::LongMemory {
                continue;
            }
            let text = match store.jail.read_text(&src.path) {
                Ok(Some(t)) => t,
                Ok(None) => continue,
                Err(r) => {
                    crate::memory::store::report(ctx, &r);
                    refusals.push(r);
                    continue;
                }
            };
            let file_no = index.files.len() as u32;
            index.files.push(src.rel.clone());
            index.dates.push(src.date.clone().unwrap_or_default());
            let entries = scan::entries(src.kind, src.date.as_deref(), &text);
            for e in &entries {
                let section = index.section(&e.section);
                index
                    .rows
                    .push((file_no, e.line as u32, section, e.text.clone()));
            }
            match src.kind {
                Kind::LongMemory => {
                    view.long_memory = Some(Doc {
                        title: src.rel.clone(),
                        href: src.rel.clone(),
                        html: markdown_with_lines(&text, &src.rel),
                    });
                }
                Kind::Checkpoint => checkpoints.push((src.rel.clone(), text)),
                Kind::Log | Kind::Archive => {
                    let date = src.date.clone().unwrap_or_else(|| src.rel.clone());
                    let day = days
                        .entry((date.clone(), src.rel.clone()))
                        .or_insert_with(|| Day {
                            date: date.clone(),
                            archived: src.kind == Kind::Archive,
                            href: src.rel.clone(),
                            bullets: 0,
                            sections: Vec::new(),
                        });
                    for e in entries {
                        if e.section_key == Some(SectionKey::ASuivre) {
                            todo_lines.insert(
                                (date.clone(), fold_accents(&e.text)),
                                (src.rel.clone(), e.line),
                            );
                        }
                        let title = if e.section.is_empty() {
                            String::new()
                        } else {
                            e.section.clone()
                        };
                        if day.sections.last().is_none_or(|s| s.title != title) {
                            day.sections.push(SectionView {
                                title,
                                key: section_slug(e.section_key),
                                bullets: Vec::new(),
                            });
                        }
                        bullets += 1;
                        day.bullets += 1;
                        let s = day.sections.last_mut().expect("pushed above");
                        s.bullets.push(BulletView {
                            line: e.line,
                            html: inline(&e.text),
                            href: href(&src.rel, e.line),
                        });
                    }
                }
            }
        }
        view.refused = refusals
            .iter()
            .map(|r| {
                (
                    scan::rel_path(&store.root, super::refused_path(r)),
                    super::refused_reason(r),
                )
            })
            .collect();
        view.refused.sort();
        view.refused.dedup();
        day_count += days.len();
        view.days = days.into_values().rev().collect();
        let full = if since.is_some() {
            usize::MAX
        } else {
            DAYS_IN_FULL
        };
        for d in view.days.iter_mut().skip(full) {
            d.sections = Vec::new();
            view.listed += 1;
        }

        // Newest first: checkpoint names start with their UTC time.
        checkpoints.sort_by(|a, b| b.0.cmp(&a.0));
        for (i, (rel, text)) in checkpoints.into_iter().enumerate() {
            let title = rel.rsplit('/').next().unwrap_or(&rel).to_string();
            if i < CHECKPOINTS_SHOWN {
                view.checkpoints.push(Doc {
                    title,
                    html: markdown_with_lines(&text, &rel),
                    href: rel,
                });
            } else {
                view.older_checkpoints.push(Link { title, href: rel });
            }
        }

        let today = ctx.today();
        let loaded = load::load_project(ctx, store, p, &today);
        for t in loaded.open_todos {
            let key = fold_accents(&t.text);
            // `memory load` cuts long to-dos; the log holds the whole text.
            let found = todo_lines
                .get(&(t.date.clone(), key.clone()))
                .cloned()
                .or_else(|| {
                    todo_lines
                        .iter()
                        .find(|((d, k), _)| {
                            *d == t.date && k.starts_with(key.trim_end_matches('…'))
                        })
                        .map(|(_, v)| v.clone())
                });
            let (rel, line) =
                found.unwrap_or_else(|| (scan::rel_path(&store.root, &p.log_path(&t.date)), 0));
            view.todos.push(Todo {
                loc: if line > 0 {
                    format!("{rel}:{line}")
                } else {
                    rel.clone()
                },
                href: href(&rel, line),
                html: inline(&t.text),
                date: t.date,
            });
        }
        projects.push(view);
    }
    (
        Tab {
            projects,
            bullets,
            days: day_count,
        },
        index,
    )
}

/// The to-dos list's count, for the tab's badge.
pub fn open_todos(tab: &Tab) -> usize {
    tab.projects.iter().map(|p| p.todos.len()).sum()
}
