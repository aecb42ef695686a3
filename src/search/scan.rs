//! Which files are searched, and how each is cut into entries: a bullet (with
//! the indented lines that hang from it) or a paragraph, with its line, its
//! section and its date.
//!
//! The search needs line numbers, which `memory::log::DailyLog` does not keep
//! (it normalises layout), so this reader walks the lines itself; section
//! headings are recognised by `memory::log::SectionKey`, the same tolerant
//! reader the log merge uses, so French, English and hand-edited headings
//! all land in the same section.

use crate::fsutil::confine::Kind as JailKind;
use crate::memory::log::SectionKey;
use crate::memory::store::Store;
use std::fs;
use std::path::{Path, PathBuf};

/// What kind of memory file an entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Log,
    Archive,
    Checkpoint,
    LongMemory,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Log => "log",
            Kind::Archive => "archive",
            Kind::Checkpoint => "checkpoint",
            Kind::LongMemory => "long_memory",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "log" => Kind::Log,
            "archive" => Kind::Archive,
            "checkpoint" => Kind::Checkpoint,
            "long_memory" => Kind::LongMemory,
            _ => return None,
        })
    }
}

/// One memory file that the index covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub path: PathBuf,
    /// Relative to the repository root, `/`-separated: what results show.
    pub rel: String,
    pub project: String,
    pub kind: Kind,
    /// From the file name (`YYYY-MM-DD….md`), when it has one.
    pub date: Option<String>,
    /// `(mtime in ns, size)` when listed: what tells the index a file changed.
    pub stamp: Option<(i64, i64)>,
}

/// One searchable piece of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line of the bullet or of the paragraph's first line.
    pub line: usize,
    /// The heading text as written (`Décisions prises`, `2026-11-28`), or empty.
    pub section: String,
    pub section_key: Option<SectionKey>,
    pub date: Option<String>,
    pub text: String,
}

/// Text kept per entry: a bullet is a line, a runaway paragraph is cut.
const MAX_ENTRY_CHARS: usize = 2_000;

/// Every memory file of every project, in a stable order.
pub fn sources(store: &Store) -> Vec<Source> {
    let mut out = Vec::new();
    for p in &store.projects {
        let mut push = |path: PathBuf, kind: Kind, meta: Option<fs::Metadata>| {
            let date = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(date_prefix);
            let rel = rel_path(&store.root, &path);
            out.push(Source {
                path,
                rel,
                project: p.name.clone(),
                kind,
                date,
                stamp: meta.as_ref().map(stamp),
            });
        };
        // Only what resolves inside the project is indexed: a committed
        // `long_memory.md -> ~/.aws/credentials` must not become searchable.
        let lm = p.long_memory_path();
        if let Ok(r) = store.jail.resolve(&lm)
            && r.kind == JailKind::File
            && let Ok(meta) = fs::metadata(&r.real)
        {
            push(lm, Kind::LongMemory, Some(meta));
        }
        for (dir, kind) in [
            (p.logs_dir(), Kind::Log),
            (p.archives_dir(), Kind::Archive),
            (p.checkpoints_dir(), Kind::Checkpoint),
        ] {
            if !store
                .jail
                .resolve(&dir)
                .is_ok_and(|r| r.kind == JailKind::Dir)
            {
                continue;
            }
            // `md_files` keeps regular files only: links inside are skipped.
            for (path, meta) in md_files(&dir) {
                push(path, kind, meta);
            }
        }
    }
    out
}

/// The `.md` files of a folder with their metadata. `DirEntry::metadata`
/// stats relative to the open folder: on a warm search, statting every log
/// of three years is most of the cost, and this halves it.
fn md_files(dir: &Path) -> Vec<(PathBuf, Option<fs::Metadata>)> {
    let mut files: Vec<(PathBuf, Option<fs::Metadata>)> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| {
            Path::new(&e.file_name())
                .extension()
                .is_some_and(|x| x == "md")
        })
        .map(|e| (e.path(), e.metadata().ok()))
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

fn stamp(m: &fs::Metadata) -> (i64, i64) {
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64);
    (mtime, m.len() as i64)
}

pub fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// `2026-11-28` from `2026-11-28.md`, `2026-11-28-1.md` or
/// `2026-11-28T101500Z-abcd1234.md`, when it is a real date.
pub fn date_prefix(s: &str) -> Option<String> {
    let head = s.get(..10)?;
    head.parse::<jiff::civil::Date>()
        .ok()
        .map(|_| head.to_string())
}

/// A date written anywhere in a heading (`## 2026-11-28`, `## Promotion 2026-11-30`).
fn date_in(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(9)).find_map(|i| {
        text.is_char_boundary(i)
            .then(|| date_prefix(&text[i..]))
            .flatten()
    })
}

#[derive(PartialEq)]
enum Open {
    None,
    Bullet,
    Paragraph,
}

/// Cuts a memory file into entries. Never fails: odd lines are text.
pub fn entries(kind: Kind, file_date: Option<&str>, text: &str) -> Vec<Entry> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out: Vec<Entry> = Vec::new();
    let mut section = String::new();
    let mut section_key: Option<SectionKey> = None;
    let mut section_date: Option<String> = None;
    let mut open = Open::None;
    let mut fence: Option<&str> = None;
    let mut comment = false;
    let mut front_matter = false;

    for (i, raw) in text.split('\n').enumerate() {
        let line = raw.trim_end_matches('\r');
        let trimmed = line.trim();
        if i == 0 && trimmed == "---" {
            front_matter = true;
            continue;
        }
        if front_matter {
            if trimmed == "---" || trimmed == "..." {
                front_matter = false;
            }
            continue;
        }
        if comment {
            if trimmed.contains("-->") {
                comment = false;
            }
            continue;
        }
        if let Some(marker) = fence {
            if trimmed.starts_with(marker) {
                fence = None;
            } else if !trimmed.is_empty() {
                // Code inside a bullet or a paragraph belongs to it.
                match out.last_mut() {
                    Some(last) if open != Open::None => append(&mut last.text, trimmed),
                    _ => {
                        out.push(Entry {
                            line: i + 1,
                            section: section.clone(),
                            section_key,
                            date: entry_date(kind, file_date, &section_date),
                            text: cap(trimmed),
                        });
                        open = Open::Paragraph;
                    }
                }
            }
            continue;
        }
        if trimmed.starts_with("<!--") {
            if !trimmed.contains("-->") {
                comment = true;
            }
            continue;
        }
        if let Some(marker) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
            fence = Some(marker);
            continue;
        }
        if trimmed.is_empty() {
            open = Open::None;
            continue;
        }
        if is_h2(line) {
            section = line[2..].trim().trim_end_matches('#').trim().to_string();
            section_key = SectionKey::from_heading(line);
            section_date = date_in(&section);
            open = Open::None;
            continue;
        }
        if line.starts_with("# ") || line == "#" {
            // The title repeats the file name's date; it says nothing else.
            open = Open::None;
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        let bullet = if indented { None } else { bullet_body(line) };
        let date = entry_date(kind, file_date, &section_date);
        match bullet {
            Some(body) => {
                out.push(Entry {
                    line: i + 1,
                    section: section.clone(),
                    section_key,
                    date,
                    text: cap(body.trim()),
                });
                open = Open::Bullet;
            }
            None => {
                let body = trimmed.trim_start_matches('#').trim();
                let joins = match open {
                    Open::Bullet => indented,
                    Open::Paragraph => true,
                    Open::None => false,
                };
                if joins && let Some(last) = out.last_mut() {
                    append(&mut last.text, body);
                } else {
                    out.push(Entry {
                        line: i + 1,
                        section: section.clone(),
                        section_key,
                        date,
                        text: cap(body),
                    });
                    open = Open::Paragraph;
                }
            }
        }
    }
    out.retain(|e| !e.text.is_empty());
    out
}

/// A dated heading wins; long memory has no date of its own otherwise.
fn entry_date(
    kind: Kind,
    file_date: Option<&str>,
    section_date: &Option<String>,
) -> Option<String> {
    section_date.clone().or_else(|| {
        (kind != Kind::LongMemory)
            .then(|| file_date.map(str::to_string))
            .flatten()
    })
}

fn is_h2(line: &str) -> bool {
    line.strip_prefix("##")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

/// `- x`, `* x`, `+ x`, `1. x`: the text after the marker.
fn bullet_body(line: &str) -> Option<&str> {
    for m in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(m) {
            return Some(rest);
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits < 4 {
        let rest = &line[digits..];
        return rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") "));
    }
    None
}

fn append(text: &mut String, more: &str) {
    if text.chars().count() >= MAX_ENTRY_CHARS || more.is_empty() {
        return;
    }
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(more);
    if text.chars().count() > MAX_ENTRY_CHARS {
        *text = cap(text);
    }
}

fn cap(s: &str) -> String {
    crate::format::truncate_head(s, MAX_ENTRY_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bullets_keep_their_line_section_and_date() {
        let log = "# Log session — 2026-11-28\n\n## Contexte\n- Travail sur l'index\n\n## Décisions prises\n- Utiliser FTS5\n  parce que SQLite est déjà là\n- Stemming en Rust\n\n## Notes perso\nUn paragraphe\nsur deux lignes\n";
        let e = entries(Kind::Log, Some("2026-11-28"), log);
        let got: Vec<_> = e
            .iter()
            .map(|e| (e.line, e.section.as_str(), e.section_key, e.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    4,
                    "Contexte",
                    Some(SectionKey::Contexte),
                    "Travail sur l'index"
                ),
                (
                    7,
                    "Décisions prises",
                    Some(SectionKey::Decisions),
                    "Utiliser FTS5 parce que SQLite est déjà là"
                ),
                (
                    9,
                    "Décisions prises",
                    Some(SectionKey::Decisions),
                    "Stemming en Rust"
                ),
                (12, "Notes perso", None, "Un paragraphe sur deux lignes"),
            ]
        );
        assert!(e.iter().all(|e| e.date.as_deref() == Some("2026-11-28")));
    }

    #[test]
    fn english_headings_fences_comments_and_crlf() {
        let log = "---\ntags: x\n---\n# Session log — 2026-01-02\r\n## To do\r\n- ship it\r\n<!-- a\n## Done\n- hidden\n-->\n```\n## Goal\ncode line\n```\n";
        let e = entries(Kind::Log, Some("2026-01-02"), log);
        // The comment hides its lines; the fence's lines join the bullet
        // above, and its `## Goal` is not a heading.
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].section_key, Some(SectionKey::ASuivre));
        assert_eq!(e[0].line, 6);
        assert_eq!(e[0].text, "ship it ## Goal code line");
    }

    #[test]
    fn long_memory_dates_come_from_headings() {
        let lm = "# Mémoire long terme — root\n\nIntro sans date\n\n## 2026-11-20\n\n- fait ancien\n\n## Promotion 2026-11-30\n\n- fait récent\n";
        let e = entries(Kind::LongMemory, None, lm);
        let got: Vec<_> = e
            .iter()
            .map(|e| (e.text.as_str(), e.date.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("Intro sans date", None),
                ("fait ancien", Some("2026-11-20")),
                ("fait récent", Some("2026-11-30"))
            ]
        );
    }

    #[test]
    fn dates_from_file_names() {
        assert_eq!(date_prefix("2026-11-28.md").as_deref(), Some("2026-11-28"));
        assert_eq!(
            date_prefix("2026-11-28T101500Z-abcd.md").as_deref(),
            Some("2026-11-28")
        );
        assert_eq!(date_prefix("2026-13-28.md"), None);
        assert_eq!(date_prefix("notes.md"), None);
        assert_eq!(
            date_in("Promotion 2026-11-30").as_deref(),
            Some("2026-11-30")
        );
        assert_eq!(date_in("é 2026-11-30").as_deref(), Some("2026-11-30"));
    }

    #[test]
    fn hostile_text_never_panics() {
        for t in [
            "",
            "\u{feff}",
            "- ",
            "##",
            "```",
            "<!--",
            "1.",
            "\r\r\n",
            "ééé\n  - x",
        ] {
            let _ = entries(Kind::Log, None, t);
        }
        let big = format!("- {}", "é".repeat(10_000));
        assert!(entries(Kind::Log, None, &big)[0].text.chars().count() <= MAX_ENTRY_CHARS);
    }
}
