//! A memory file cut into the pieces the merge reasons about: sections
//! (`## ` headings) holding units (a bullet with the indented lines that hang
//! from it, or any other line or literal block), every line kept verbatim.
//!
//! This is deliberately not [`crate::memory::log::DailyLog`]: that reader
//! normalises layout (section order, blank lines) when it writes back, which
//! is right for cairn's own rewrites but would turn every merge of a
//! hand-laid file (or of `long_memory.md`, whose `## date` blocks are not log
//! sections) into a reformatting. Here `render(parse(x)) == x` for every
//! text whose lines end alike; what is shared with the log format is what
//! decides identity: [`SectionKey::from_heading`] (French, English and the
//! hand-written aliases name the same section) and [`bullet_key`] (the
//! comparison key of the log merge, SPEC §1.4).

use crate::memory::log::{SectionKey, bullet_key};

/// Which section a heading opens, as the merge matches them across versions.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum SectionId {
    /// Everything before the first `## ` heading (title, front matter).
    Head,
    /// A log section, whatever language or alias its heading is written in;
    /// the number tells apart a section written twice.
    Known(SectionKey, usize),
    /// Any other heading, by its text; the number tells apart equal
    /// headings (two `## 2026-03-21` blocks in long memory).
    Other(String, usize),
}

/// How a unit is recognised in the other versions.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum UnitId {
    /// A `- ` bullet: its comparison key, and its rank among the bullets of
    /// the section with that key.
    Bullet(String, usize),
    /// Any other line or block: its exact text, and its rank among equal ones.
    Text(String, usize),
}

impl UnitId {
    pub(super) fn bullet_key(&self) -> Option<&str> {
        match self {
            UnitId::Bullet(k, _) => Some(k),
            UnitId::Text(..) => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unit {
    pub id: UnitId,
    /// Blank lines right before it, verbatim.
    pub blanks_before: Vec<String>,
    /// The bullet (or text) line first, then the lines attached to it.
    pub lines: Vec<String>,
    /// The line that would close a code block or comment this unit opens
    /// and never closes (it runs to the end of its file).
    pub unclosed: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Section {
    pub id: SectionId,
    /// The heading line verbatim; `None` for [`SectionId::Head`].
    pub heading: Option<String>,
    pub units: Vec<Unit>,
    /// Blank lines after the last unit, verbatim.
    pub trailing: Vec<String>,
}

impl Section {
    fn new(id: SectionId, heading: Option<String>) -> Section {
        Section {
            id,
            heading,
            units: Vec::new(),
            trailing: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Doc {
    pub bom: bool,
    pub crlf: bool,
    pub final_newline: bool,
    /// The head first (possibly empty), then one entry per heading.
    pub sections: Vec<Section>,
}

impl Doc {
    pub(super) fn parse(text: &str) -> Doc {
        let bom = text.starts_with('\u{feff}');
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let crlf = text.find('\n').is_some_and(|at| text[..at].ends_with('\r'));
        let final_newline = text.ends_with('\n');
        let mut lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
        if text.is_empty() || final_newline {
            lines.pop();
        }

        let mut sections = vec![Section::new(SectionId::Head, None)];
        let mut seen_known: std::collections::HashMap<SectionKey, usize> = Default::default();
        let mut seen_other: std::collections::HashMap<String, usize> = Default::default();
        let mut blanks: Vec<String> = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            if is_heading(line) {
                close(sections.last_mut().expect("head"), &mut blanks);
                let id = match SectionKey::from_heading(line) {
                    Some(key) => {
                        let n = seen_known.entry(key).or_default();
                        *n += 1;
                        SectionId::Known(key, *n - 1)
                    }
                    None => {
                        let name = line.trim_end().to_string();
                        let n = seen_other.entry(name.clone()).or_default();
                        *n += 1;
                        SectionId::Other(name, *n - 1)
                    }
                };
                sections.push(Section::new(id, Some(line.to_string())));
                i += 1;
                continue;
            }
            if line.trim().is_empty() {
                blanks.push(line.to_string());
                i += 1;
                continue;
            }
            let (mut group, next, unclosed) = read_group(&lines, i);
            i = next;
            let section = sections.last_mut().expect("head");
            // Indented lines right under a bullet (no blank between) belong
            // to it: a sub-list or a note moves and merges with its bullet.
            if blanks.is_empty()
                && group[0].starts_with([' ', '\t'])
                && let Some(last) = section.units.last_mut()
                && bullet_text(&last.lines[0]).is_some()
            {
                last.lines.append(&mut group);
                last.unclosed = unclosed;
                continue;
            }
            section.units.push(Unit {
                id: UnitId::Text(String::new(), 0),
                blanks_before: std::mem::take(&mut blanks),
                lines: group,
                unclosed,
            });
        }
        close(sections.last_mut().expect("head"), &mut blanks);
        for section in &mut sections {
            number_units(&mut section.units);
        }
        Doc {
            bom,
            crlf,
            final_newline,
            sections,
        }
    }

    pub(super) fn render(&self) -> String {
        let mut out: Vec<&str> = Vec::new();
        for section in &self.sections {
            if let Some(h) = &section.heading {
                out.push(h);
            }
            for unit in &section.units {
                out.extend(unit.blanks_before.iter().map(String::as_str));
                out.extend(unit.lines.iter().map(String::as_str));
            }
            out.extend(section.trailing.iter().map(String::as_str));
        }
        let nl = if self.crlf { "\r\n" } else { "\n" };
        let mut text = String::new();
        if self.bom {
            text.push('\u{feff}');
        }
        text.push_str(&out.join(nl));
        if self.final_newline && !out.is_empty() {
            text.push_str(nl);
        }
        text
    }

    pub(super) fn section(&self, id: &SectionId) -> Option<&Section> {
        self.sections.iter().find(|s| s.id == *id)
    }

    /// How many times each bullet key occurs in the whole file.
    pub(super) fn bullet_counts(&self) -> std::collections::HashMap<&str, usize> {
        let mut counts = std::collections::HashMap::new();
        for unit in self.sections.iter().flat_map(|s| &s.units) {
            if let Some(k) = unit.id.bullet_key() {
                *counts.entry(k).or_default() += 1;
            }
        }
        counts
    }
}

fn close(section: &mut Section, blanks: &mut Vec<String>) {
    section.trailing = std::mem::take(blanks);
}

/// Gives every unit its identity: bullets by their comparison key, other
/// lines by their text, each with its rank among equals in the section.
pub(super) fn number_units(units: &mut [Unit]) {
    let mut seen: std::collections::HashMap<(bool, String), usize> = Default::default();
    for unit in units {
        let key = bullet_text(&unit.lines[0])
            .map(bullet_key)
            .filter(|k| !k.is_empty());
        let (is_bullet, key) = match key {
            Some(k) => (true, k),
            None => (false, unit.lines.join("\n")),
        };
        let n = seen.entry((is_bullet, key.clone())).or_default();
        unit.id = if is_bullet {
            UnitId::Bullet(key, *n)
        } else {
            UnitId::Text(key, *n)
        };
        *n += 1;
    }
}

/// The text of a `- ` bullet line, as the log format reads it.
pub(super) fn bullet_text(line: &str) -> Option<&str> {
    line.strip_prefix("- ")
        .filter(|rest| !rest.trim().is_empty())
}

/// A `## ` heading (not `###`), unindented, as the log format reads them.
fn is_heading(line: &str) -> bool {
    line.strip_prefix("##")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

/// One line, or a literal block (fenced code, multi-line HTML comment) read
/// whole so that a `## ` or `- ` line inside it is not structure. A block
/// never closed runs to the end of the file, as a viewer shows it.
fn read_group(lines: &[&str], start: usize) -> (Vec<String>, usize, Option<String>) {
    type Closer = (Box<dyn Fn(&str) -> bool>, String);
    let first = lines[start];
    let t = first.trim_start();
    let closer: Option<Closer> = if let Some(rest) = t.strip_prefix("<!--") {
        (!rest.contains("-->")).then(|| {
            (
                Box::new(|l: &str| l.contains("-->")) as Box<_>,
                "-->".to_string(),
            )
        })
    } else {
        let mark = t.chars().next().filter(|c| matches!(c, '`' | '~'));
        mark.and_then(|mark| {
            let len = t.chars().take_while(|&c| c == mark).count();
            let info = &t[len * mark.len_utf8()..];
            (len >= 3 && !(mark == '`' && info.contains('`'))).then(|| {
                let closed = Box::new(move |l: &str| {
                    let l = l.trim();
                    l.chars().count() >= len && l.chars().all(|c| c == mark)
                }) as Box<_>;
                (closed, mark.to_string().repeat(len))
            })
        })
    };
    let mut group = vec![first.to_string()];
    let Some((closed_by, closing)) = closer else {
        return (group, start + 1, None);
    };
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        group.push(line.to_string());
        if closed_by(line) {
            return (group, i + 1, None);
        }
    }
    (group, lines.len(), Some(closing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_verbatim() {
        for text in [
            "",
            "\n",
            "# Log session — 2026-03-21\n\n## Contexte\n- a\n  - sub\n\n## À suivre\n- b\n",
            "\u{feff}# T\r\n\r\n## Notes\r\ntext\r\n",
            "no newline at end",
            "# T\n\n\n   \n## X\n```\n## not a heading\n- not a bullet\n```\n- y\n\n\n",
            "## 2026-01-01\n\ntext\n\n## 2026-01-01\n\nother\n",
            "<!-- open\n## hidden\n",
        ] {
            assert_eq!(Doc::parse(text).render(), text, "{text:?}");
        }
    }

    #[test]
    fn sections_are_matched_across_languages_and_units_by_key() {
        let doc = Doc::parse("# T\n## To do\n- Fix  A\n  detail\n- fix a\ntext\n## Notes\n");
        let ids: Vec<_> = doc.sections.iter().map(|s| s.id.clone()).collect();
        assert_eq!(
            ids,
            [
                SectionId::Head,
                SectionId::Known(SectionKey::ASuivre, 0),
                SectionId::Other("## Notes".into(), 0)
            ]
        );
        let units = &doc.sections[1].units;
        assert_eq!(units[0].id, UnitId::Bullet("fix a".into(), 0));
        assert_eq!(units[0].lines, ["- Fix  A", "  detail"]);
        assert_eq!(units[1].id, UnitId::Bullet("fix a".into(), 1));
        assert_eq!(units[2].id, UnitId::Text("text".into(), 0));
    }
}
