//! The daily log's Markdown format: parse, render, merge (SPEC §1.2–1.4),
//! and the dated blocks of `long_memory.md`.
//!
//! A log is a title, then `## ` sections of `- ` bullets. The reader keeps
//! everything it does not understand, because people edit these files by
//! hand and a rewrite must never cost them a line:
//! - text before the first section (front matter, notes) stays at the top;
//! - inside a section, every non-bullet line (paragraphs, `  - sub-bullets`,
//!   `* x`, one-line HTML comments) stays where it was, verbatim;
//! - fenced code blocks and multi-line HTML comments are kept whole, and a
//!   `## ` line inside them is not a heading;
//! - unknown sections are kept, in their order, after the known ones;
//! - a known section written twice (or once per language) becomes one.
//!
//! Normalisation on rewrite, all of it layout rather than content:
//! - known sections come in SPEC order with their canonical heading in the
//!   file's language; empty known sections are dropped;
//! - one blank line between blocks: blank lines at the start or end of a
//!   section are dropped, runs of them collapse (blank lines inside a code
//!   block or comment are kept as they are);
//! - the file ends with exactly one line ending; its line-ending style (LF or
//!   CRLF, from its first line) and a UTF-8 byte-order mark are kept;
//! - a missing title is added; a fence or comment never closed runs to the
//!   end of the file, as a viewer shows it, and gets its closing line there
//!   (otherwise reordered or new sections would fall inside it).
//!
//! A file written by the seeds' prototype is already in this form and comes
//! back byte for byte.

mod section;
mod text;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

pub use section::SectionKey;
pub use text::{bullet_key, clean_bullet, fold_accents};

use text::{Closer, contains_either, long_memory_body, one_line};

/// One list of bullets per section key of the seeds' format.
/// Unknown keys in an answer are ignored; missing keys are empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Sections {
    pub contexte: Vec<String>,
    pub objectif: Vec<String>,
    pub problemes: Vec<String>,
    pub connaissances: Vec<String>,
    pub travail: Vec<String>,
    pub decisions: Vec<String>,
    pub a_suivre: Vec<String>,
    pub a_suivre_done: Vec<String>,
    /// Problems an earlier Stop of the day wrote as unresolved that a later
    /// turn got past. cairn's own field (not the seeds'), absent from an
    /// LLM's answer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problemes_resolus: Vec<Resolution>,
    /// Work bullets of today's log a later turn says more about (a file
    /// whose change was reworked): the bullet as written, and what it
    /// reads now. cairn's own field, like `problemes_resolus`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub travail_revise: Vec<Revision>,
    /// To-dos an earlier day's log left open that today finished, as they
    /// were written there: today's `Finalisé` says so, which closes them
    /// for every later session start. cairn's own field.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalise_earlier: Vec<String>,
}

/// The work bullet of today's log that reads `was` reads `now` instead.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Revision {
    pub was: String,
    pub now: String,
}

/// The problem bullet of today's log that starts with `head` and ends
/// with `was` (the unresolved mark) ends with `now` instead.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Resolution {
    pub head: String,
    pub was: String,
    pub now: String,
}

impl Sections {
    pub fn is_empty(&self) -> bool {
        self.contexte.is_empty()
            && self.objectif.is_empty()
            && self.problemes.is_empty()
            && self.connaissances.is_empty()
            && self.travail.is_empty()
            && self.decisions.is_empty()
            && self.a_suivre.is_empty()
            && self.a_suivre_done.is_empty()
            && self.problemes_resolus.is_empty()
            && self.travail_revise.is_empty()
            && self.finalise_earlier.is_empty()
    }

    /// Every bullet list that is appended as-is (all but `a_suivre_done`), with its key.
    pub fn appendable(&self) -> [(&'static str, &Vec<String>); 7] {
        [
            ("contexte", &self.contexte),
            ("objectif", &self.objectif),
            ("problemes", &self.problemes),
            ("connaissances", &self.connaissances),
            ("travail", &self.travail),
            ("decisions", &self.decisions),
            ("a_suivre", &self.a_suivre),
        ]
    }

    pub fn all_mut(&mut self) -> [&mut Vec<String>; 8] {
        [
            &mut self.contexte,
            &mut self.objectif,
            &mut self.problemes,
            &mut self.connaissances,
            &mut self.travail,
            &mut self.decisions,
            &mut self.a_suivre,
            &mut self.a_suivre_done,
        ]
    }
}

/// How a to-do saying a turn's changes were left uncommitted starts, in
/// French and English. A state more than a task: true when written, stale
/// once the user may have committed by hand, so session start never
/// carries it past the log that holds it.
pub const UNCOMMITTED: &[&str; 2] = &["Modifications non commitées", "Uncommitted changes"];

/// How a to-do saying the last answer waits on the user's reply starts,
/// in French and English: a state like [`UNCOMMITTED`], gone once the
/// user says anything next (the reply answers it or moves on).
pub const PENDING_QUESTION: &[&str; 2] = &["Question en suspens", "Open question"];

/// How a to-do saying commits were left unpushed starts: a state too,
/// gone with the next push or a status level with the upstream.
pub const UNPUSHED: &[&str; 2] = &["Commits non poussés", "Unpushed commits"];

/// How a to-do saying a pull request was opened and not yet merged
/// starts: a state too, gone once it is merged. Not carried past its log:
/// it may be merged on the forge, where no session sees it.
pub const OPEN_PULL: &[&str; 2] = &["PR en attente de fusion", "PR awaiting merge"];

/// Whether a to-do (without its checkbox) is a state rather than a task:
/// true when written, dropped rather than finalised once it stops being
/// true, never carried past its own log.
pub fn is_state(todo: &str) -> bool {
    let bare = todo.trim_start().trim_start_matches('✅').trim_start();
    UNCOMMITTED
        .iter()
        .chain(PENDING_QUESTION)
        .chain(UNPUSHED)
        .chain(OPEN_PULL)
        .any(|p| bare.starts_with(p))
}

/// Language of headings written into a new file. Both are always read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    Fr,
    En,
}

impl Lang {
    /// The title line of a daily log.
    pub fn log_title(self, date: &str) -> String {
        match self {
            Lang::Fr => format!("# Log session — {date}"),
            Lang::En => format!("# Session log — {date}"),
        }
    }

    /// The title line of `long_memory.md`.
    pub fn long_memory_title(self, project: &str) -> String {
        match self {
            Lang::Fr => format!("# Mémoire long terme — {project}"),
            Lang::En => format!("# Long-term memory — {project}"),
        }
    }

    fn of_title(title: &str) -> Option<Lang> {
        let lower = title.to_lowercase();
        if lower.contains("session log") {
            Some(Lang::En)
        } else if lower.contains("log session") || lower.contains("journal de session") {
            Some(Lang::Fr)
        } else {
            None
        }
    }
}

/// One line (or one indivisible group of lines) of a log, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogLine {
    /// A `- ` line: the text after the marker, verbatim.
    Bullet(String),
    /// A line the format gives no meaning to, verbatim: a paragraph, an
    /// indented sub-bullet, `* x`, a one-line HTML comment.
    Text(String),
    /// A blank line.
    Blank,
    /// Lines read literally and kept together: a fenced code block, a
    /// multi-line HTML comment, a front matter.
    Block(Vec<String>),
}

impl LogLine {
    fn is_bullet(&self) -> bool {
        matches!(self, LogLine::Bullet(_))
    }

    /// An indented line right under a bullet belongs to it (a sub-bullet, a
    /// continuation, an indented code block).
    fn is_indented(&self) -> bool {
        let first = match self {
            LogLine::Text(t) => t.as_str(),
            LogLine::Block(lines) => lines.first().map_or("", String::as_str),
            _ => return false,
        };
        first.starts_with([' ', '\t'])
    }

    fn write(&self, out: &mut Vec<String>) {
        match self {
            LogLine::Bullet(t) => out.push(format!("- {t}")),
            LogLine::Text(t) => out.push(t.clone()),
            LogLine::Blank => out.push(String::new()),
            LogLine::Block(lines) => out.extend(lines.iter().cloned()),
        }
    }
}

/// A `## ` section the format does not know, kept as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownSection {
    /// The heading line, `## ` included, trailing white space removed.
    pub heading: String,
    pub lines: Vec<LogLine>,
}

/// A parsed daily log. Keeps unknown sections and unknown lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DailyLog {
    pub date: String,
    /// Language of the headings written: the file's own when it was parsed.
    pub lang: Lang,
    /// A title that is not the canonical one for `lang` and `date`, kept as is.
    title: Option<String>,
    /// Lines above the title (a front matter).
    above_title: Vec<LogLine>,
    /// Lines between the title and the first section.
    preamble: Vec<LogLine>,
    known: [Vec<LogLine>; 8],
    unknown: Vec<UnknownSection>,
    crlf: bool,
    bom: bool,
}

/// What a merge changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeOutcome {
    /// Bullets appended (to-dos moved to `Finalisé` not included).
    pub added: usize,
    /// To-dos moved from `À suivre` to `Finalisé`, as they were written there.
    pub finalized: Vec<String>,
    /// `a_suivre_done` items that matched no open to-do (nor one already
    /// finalised), cleaned; they changed nothing.
    pub unmatched: Vec<String>,
    /// Problem bullets marked resolved by `problemes_resolus`.
    pub resolved: usize,
    /// Work bullets rewritten by `travail_revise`.
    pub revised: usize,
}

impl DailyLog {
    pub fn new(date: &str, lang: Lang) -> Self {
        DailyLog {
            date: date.to_string(),
            lang,
            ..DailyLog::default()
        }
    }

    /// Reads a log. Never fails: whatever is not understood is kept as text.
    /// `default_lang` applies when the file says nothing about its language
    /// (empty, or no title and no canonical heading).
    pub fn parse(text: &str, date: &str, default_lang: Lang) -> Self {
        let log = Self::parse_once(text, date, default_lang);
        // A BOM starting the first line written (`\n\u{feff}\n# Log…`: the
        // blank line above it is dropped) would be read as the file's own
        // BOM by the next parse, which would then drop the blank line that
        // BOM leaves behind. Read the text that way now, so the first
        // rewrite is final (the reparse has a BOM: it cannot come back here).
        if !log.bom && log.renders_a_leading_bom() {
            return Self::parse_once(&log.render(), date, default_lang);
        }
        log
    }

    /// Does [`render`](Self::render) start with U+FEFF without it being
    /// the file's BOM? Only the first line above the title can (a title
    /// starts with `#`).
    fn renders_a_leading_bom(&self) -> bool {
        let first = match self.above_title.first() {
            Some(LogLine::Text(t)) => t.as_str(),
            Some(LogLine::Block(lines)) => lines.first().map_or("", String::as_str),
            _ => "",
        };
        first.starts_with('\u{feff}')
    }

    fn parse_once(text: &str, date: &str, default_lang: Lang) -> Self {
        let bom = text.starts_with('\u{feff}');
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let crlf = text.find('\n').is_some_and(|at| text[..at].ends_with('\r'));
        let mut lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
        if text.is_empty() || text.ends_with('\n') {
            lines.pop();
        }

        let mut head = Vec::new();
        // Each occurrence of a known heading, with the language it is
        // spelled in when canonical.
        let mut known_parts: [Vec<(Option<Lang>, Vec<LogLine>)>; 8] = Default::default();
        let mut unknown: Vec<UnknownSection> = Vec::new();
        enum Target {
            Head,
            Known(usize),
            Unknown(usize),
        }
        let mut target = Target::Head;
        for token in tokenize(&lines) {
            match token {
                Token::Heading(line) => match section::read_heading(line) {
                    Some((key, lang)) => {
                        known_parts[key.index()].push((lang, Vec::new()));
                        target = Target::Known(key.index());
                    }
                    None => {
                        unknown.push(UnknownSection {
                            heading: line.trim_end().to_string(),
                            lines: Vec::new(),
                        });
                        target = Target::Unknown(unknown.len() - 1);
                    }
                },
                Token::Line(line) => {
                    let into = match target {
                        Target::Head => &mut head,
                        Target::Known(i) => {
                            &mut known_parts[i].last_mut().expect("pushed with target").1
                        }
                        Target::Unknown(i) => &mut unknown[i].lines,
                    };
                    into.push(line);
                }
            }
        }

        // Only headings with content vote: an empty one is not written back,
        // and the language must be read again the same from the rewrite.
        let mut votes = [0usize; 2];
        let known = known_parts.map(|parts| {
            let parts: Vec<Vec<LogLine>> = parts
                .into_iter()
                .map(|(lang, lines)| {
                    let lines = tidy(lines, false);
                    match lang {
                        Some(Lang::Fr) if !lines.is_empty() => votes[0] += 1,
                        Some(Lang::En) if !lines.is_empty() => votes[1] += 1,
                        _ => {}
                    }
                    lines
                })
                .collect();
            join_parts(parts)
        });
        for section in &mut unknown {
            section.lines = tidy(std::mem::take(&mut section.lines), false);
        }

        let title_at = head
            .iter()
            .position(|l| matches!(l, LogLine::Text(t) if is_title(t)));
        let (above_title, title, preamble) = match title_at {
            Some(at) => {
                let mut rest = head.split_off(at);
                let LogLine::Text(title) = rest.remove(0) else {
                    unreachable!("title position holds a text line")
                };
                (head, Some(title.trim_end().to_string()), rest)
            }
            None => {
                let front_matter =
                    matches!(head.first(), Some(LogLine::Block(b)) if b[0].trim_end() == "---");
                let rest = head.split_off(usize::from(front_matter));
                (head, None, rest)
            }
        };

        let by_votes = match votes[0].cmp(&votes[1]) {
            std::cmp::Ordering::Greater => Some(Lang::Fr),
            std::cmp::Ordering::Less => Some(Lang::En),
            std::cmp::Ordering::Equal => None,
        };
        let lang = title
            .as_deref()
            .and_then(Lang::of_title)
            .or(by_votes)
            .unwrap_or(default_lang);
        let title = title.filter(|t| *t != lang.log_title(date));

        DailyLog {
            date: date.to_string(),
            lang,
            title,
            above_title: tidy(above_title, true),
            preamble: tidy(preamble, false),
            known,
            unknown,
            crlf,
            bom,
        }
    }

    pub fn render(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        for line in &self.above_title {
            line.write(&mut out);
        }
        out.push(self.title());
        out.push(String::new());
        let blocks = std::iter::once((None, &self.preamble))
            .chain(
                SectionKey::ALL
                    .iter()
                    .map(|k| (Some(k.heading(self.lang)), &self.known[k.index()])),
            )
            .filter(|(_, lines)| !lines.is_empty())
            .chain(
                self.unknown
                    .iter()
                    .map(|s| (Some(s.heading.as_str()), &s.lines)),
            );
        for (heading, lines) in blocks {
            if let Some(heading) = heading {
                out.push(heading.to_string());
            }
            for line in lines {
                line.write(&mut out);
            }
            out.push(String::new());
        }
        out.pop();
        let nl = if self.crlf { "\r\n" } else { "\n" };
        let mut text = String::with_capacity(out.iter().map(|l| l.len() + 2).sum::<usize>() + 3);
        if self.bom {
            text.push('\u{feff}');
        }
        for line in out {
            text.push_str(&line);
            text.push_str(nl);
        }
        text
    }

    /// The title line as it will be written.
    pub fn title(&self) -> String {
        self.title
            .clone()
            .unwrap_or_else(|| self.lang.log_title(&self.date))
    }

    /// Merges one extraction record (SPEC §1.4). Deterministic and
    /// idempotent; nothing already in the file is removed, except open to-dos
    /// that `a_suivre_done` moves to `Finalisé` (with their indented lines).
    pub fn merge(&mut self, sections: &Sections, max_len: usize) -> MergeOutcome {
        let mut outcome = MergeOutcome::default();
        for key in SectionKey::ALL {
            for item in incoming(sections, key) {
                let Some(text) = clean_bullet(item, max_len) else {
                    continue;
                };
                let item_key = bullet_key(&text);
                // A to-do finished earlier today must not come back as open.
                let present = item_key.is_empty()
                    || self.has_bullet(key, &item_key)
                    || (key == SectionKey::ASuivre
                        && self.has_bullet(SectionKey::Finalise, &item_key));
                if !present {
                    let lines = &mut self.known[key.index()];
                    let at = insertion_point(lines);
                    lines.insert(at, LogLine::Bullet(text));
                    outcome.added += 1;
                }
            }
        }
        for item in &sections.a_suivre_done {
            self.finalize(item, max_len, &mut outcome);
        }
        for r in &sections.problemes_resolus {
            outcome.resolved += self.resolve(r, max_len);
        }
        for r in &sections.travail_revise {
            outcome.revised += self.revise(r, max_len);
        }
        for item in &sections.finalise_earlier {
            let Some(text) = clean_bullet(item, max_len) else {
                continue;
            };
            let key = bullet_key(&text);
            if key.is_empty() || self.has_bullet(SectionKey::Finalise, &key) {
                continue;
            }
            let finals = &mut self.known[SectionKey::Finalise.index()];
            let at = insertion_point(finals);
            finals.insert(
                at,
                LogLine::Bullet(format!("✅ {}", text.trim_start_matches('✅').trim())),
            );
            outcome.finalized.push(text);
        }
        outcome
    }

    /// Rewrites the work bullet that still reads `r.was`; how many (0 or
    /// 1). A bullet a person edited since no longer matches and is kept.
    fn revise(&mut self, r: &Revision, max_len: usize) -> usize {
        let was = bullet_key(&r.was);
        let Some(now) = clean_bullet(&r.now, max_len) else {
            return 0;
        };
        if was.is_empty() || bullet_key(&now) == was {
            return 0;
        }
        let now_key = bullet_key(&now);
        let work = &mut self.known[SectionKey::Travail.index()];
        // The same text already there (an earlier revision): nothing to do.
        if work
            .iter()
            .any(|l| matches!(l, LogLine::Bullet(b) if bullet_key(b) == now_key))
        {
            return 0;
        }
        for line in work.iter_mut() {
            if let LogLine::Bullet(text) = line
                && bullet_key(text) == was
            {
                *text = now;
                return 1;
            }
        }
        0
    }

    /// Rewrites the unresolved mark of the problem bullets `r` names; how
    /// many. Only a bullet that still ends with the mark is touched: a
    /// person's edit of it, or a second resolution, leaves it alone.
    fn resolve(&mut self, r: &Resolution, max_len: usize) -> usize {
        if r.head.trim().is_empty() || r.was.trim().is_empty() {
            return 0;
        }
        let mut n = 0;
        for line in self.known[SectionKey::Problemes.index()].iter_mut() {
            let LogLine::Bullet(text) = line else {
                continue;
            };
            let body = text.trim();
            let Some(kept) = body
                .strip_suffix(r.was.as_str())
                .filter(|_| body.starts_with(r.head.as_str()))
            else {
                continue;
            };
            if let Some(now) = clean_bullet(&format!("{} {}", kept.trim_end(), r.now), max_len) {
                *text = now;
                n += 1;
            }
        }
        n
    }

    /// Matches one `a_suivre_done` item: against open to-dos and finalised
    /// items together, so that an item finalised by an earlier merge (or
    /// earlier in this one) is found again there instead of finalising a
    /// second, merely similar to-do. Ranking: equal keys before whole-word
    /// containment, then the closest length, then already finalised, then
    /// the exact spelling, then file order. One item finalises at most one
    /// to-do (the seeds moved every to-do containing it, so a short item
    /// could close several unrelated ones).
    fn finalize(&mut self, item: &str, max_len: usize, outcome: &mut MergeOutcome) {
        let Some(done) = clean_bullet(item, max_len) else {
            return;
        };
        let done_key = bullet_key(&done);
        if done_key.is_empty() {
            return;
        }
        let done_len = done_key.chars().count();
        let mut best: Option<Rank> = None;
        for (open, key) in [(true, SectionKey::ASuivre), (false, SectionKey::Finalise)] {
            for (at, line) in self.known[key.index()].iter().enumerate() {
                let LogLine::Bullet(text) = line else {
                    continue;
                };
                let text_key = bullet_key(text);
                let tier = if text_key == done_key {
                    0
                } else if contains_either(&text_key, &done_key) {
                    1
                } else {
                    continue;
                };
                let rank = Rank {
                    tier,
                    len_gap: text_key.chars().count().abs_diff(done_len),
                    open,
                    respelled: text.trim().trim_start_matches('✅').trim() != done,
                    at,
                };
                best = Some(best.map_or(rank, |b| b.min(rank)));
            }
        }
        let at = match best {
            None => {
                outcome.unmatched.push(done);
                return;
            }
            Some(Rank { open: false, .. }) => return,
            Some(rank) => rank.at,
        };

        let todos = &mut self.known[SectionKey::ASuivre.index()];
        let end = attached_end(todos, at);
        let mut moved: Vec<LogLine> = todos.drain(at..end).collect();
        *todos = tidy(std::mem::take(todos), false);
        let LogLine::Bullet(text) = moved.remove(0) else {
            unreachable!("candidates are bullets")
        };
        // Changes left uncommitted, then committed; a question, then
        // answered: a state that stopped being true goes, it was no task
        // done.
        if is_state(&text) {
            outcome.finalized.push(text.trim().to_string());
            return;
        }
        let text_key = bullet_key(&text);
        let finals = &mut self.known[SectionKey::Finalise.index()];
        let twin = finals
            .iter()
            .position(|l| matches!(l, LogLine::Bullet(b) if bullet_key(b) == text_key));
        match twin {
            // Already there: not doubled, but its indented lines are kept.
            Some(twin) => {
                let at = attached_end(finals, twin);
                finals.splice(at..at, moved);
            }
            None => {
                let at = insertion_point(finals);
                let bare = text.trim_start();
                let line = if bare.starts_with('✅') {
                    bare.to_string()
                } else {
                    format!("✅ {bare}")
                };
                finals.splice(at..at, std::iter::once(LogLine::Bullet(line)).chain(moved));
            }
        }
        outcome.finalized.push(text.trim().to_string());
    }

    fn has_bullet(&self, key: SectionKey, item_key: &str) -> bool {
        self.known[key.index()]
            .iter()
            .any(|l| matches!(l, LogLine::Bullet(b) if bullet_key(b) == item_key))
    }

    /// The bullets of a known section, text without the `- ` marker.
    pub fn bullets(&self, key: SectionKey) -> Vec<&str> {
        self.known[key.index()]
            .iter()
            .filter_map(|l| match l {
                LogLine::Bullet(t) => Some(t.trim()),
                _ => None,
            })
            .collect()
    }

    /// `Finalisé` bullets without their `✅` mark.
    pub fn finalized(&self) -> Vec<&str> {
        self.bullets(SectionKey::Finalise)
            .into_iter()
            .map(|b| b.strip_prefix('✅').map_or(b, str::trim_start))
            .collect()
    }

    /// Everything a known section holds, bullets and kept lines.
    pub fn lines(&self, key: SectionKey) -> &[LogLine] {
        &self.known[key.index()]
    }

    /// Open `À suivre` bullets, text without the `- ` marker.
    pub fn open_todos(&self) -> Vec<String> {
        self.bullets(SectionKey::ASuivre)
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// Bullets in all known sections.
    pub fn bullet_count(&self) -> usize {
        self.known
            .iter()
            .flatten()
            .filter(|l| l.is_bullet())
            .count()
    }

    /// Sections whose heading the format does not know, in file order.
    pub fn unknown_sections(&self) -> &[UnknownSection] {
        &self.unknown
    }

    /// Lines before the first section, title excluded.
    pub fn preamble(&self) -> impl Iterator<Item = &LogLine> {
        self.above_title.iter().chain(&self.preamble)
    }

    /// True when the log holds nothing but (at most) its title.
    pub fn is_empty(&self) -> bool {
        self.above_title.is_empty()
            && self.preamble.is_empty()
            && self.known.iter().all(Vec::is_empty)
            && self.unknown.is_empty()
    }
}

/// How well a bullet matches an `a_suivre_done` item; the smallest wins.
/// Field order is the ranking order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Rank {
    /// 0: same key; 1: one key holds the other as whole words.
    tier: u8,
    len_gap: usize,
    /// A finalised item (`false`) wins a tie, which keeps the merge idempotent.
    open: bool,
    respelled: bool,
    at: usize,
}

/// The bullets a record brings for one known section.
fn incoming(sections: &Sections, key: SectionKey) -> &[String] {
    match key {
        SectionKey::Contexte => &sections.contexte,
        SectionKey::Objectif => &sections.objectif,
        SectionKey::Problemes => &sections.problemes,
        SectionKey::Connaissances => &sections.connaissances,
        SectionKey::Travail => &sections.travail,
        SectionKey::Decisions => &sections.decisions,
        SectionKey::ASuivre => &sections.a_suivre,
        SectionKey::Finalise => &[],
    }
}

enum Token<'a> {
    Heading(&'a str),
    Line(LogLine),
}

fn tokenize<'a>(lines: &[&'a str]) -> Vec<Token<'a>> {
    let mut tokens = Vec::with_capacity(lines.len());
    let mut i = front_matter(lines).map_or(0, |(start, end)| {
        // Blank lines above it are layout; the render drops them anyway.
        let block = lines[start..=end].iter().map(|l| l.to_string()).collect();
        tokens.push(Token::Line(LogLine::Block(block)));
        end + 1
    });
    while i < lines.len() {
        let line = lines[i];
        if is_heading_line(line) {
            tokens.push(Token::Heading(line));
            i += 1;
        } else if let Some(closer) = Closer::opened_by(line) {
            let (block, next) = read_block(lines, i, &closer);
            tokens.push(Token::Line(LogLine::Block(block)));
            i = next;
        } else {
            tokens.push(Token::Line(classify(line)));
            i += 1;
        }
    }
    tokens
}

/// Reads a literal block from its opening line to its closing one, across
/// headings, as any Markdown viewer shows it (a commented-out section stays
/// commented out). A block never closed runs to the end of the file and is
/// closed by a written line, so that later sections, once reordered or
/// added, cannot fall inside it.
fn read_block(lines: &[&str], start: usize, closer: &Closer) -> (Vec<String>, usize) {
    let mut block = vec![lines[start].to_string()];
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        block.push(line.to_string());
        if closer.closed_by(line) {
            return (block, i + 1);
        }
    }
    block.push(closer.closing_line());
    (block, lines.len())
}

/// A front matter, as the range of its lines: `---` on the first line that
/// is not blank, closed by `---` or `...` before any section or log title
/// (`# Log session — …`). Both limits keep parse ∘ render stable: the render
/// drops leading blank lines, and a title between two rules is a title, not
/// YAML.
fn front_matter(lines: &[&str]) -> Option<(usize, usize)> {
    let start = lines.iter().position(|l| !l.trim().is_empty())?;
    if lines[start].trim_end() != "---" {
        return None;
    }
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if is_heading_line(line) || (is_title(line) && Lang::of_title(line).is_some()) {
            return None;
        }
        if matches!(line.trim_end(), "---" | "...") {
            return Some((start, i));
        }
    }
    None
}

fn classify(line: &str) -> LogLine {
    if line.trim().is_empty() {
        return LogLine::Blank;
    }
    match line.strip_prefix("- ") {
        Some(rest) if !rest.trim().is_empty() => LogLine::Bullet(rest.to_string()),
        _ => LogLine::Text(line.to_string()),
    }
}

/// A `## ` line, unindented as the seeds wrote and read them.
fn is_heading_line(line: &str) -> bool {
    line.strip_prefix("##")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

fn is_title(line: &str) -> bool {
    line == "#" || line.starts_with("# ") || line.starts_with("#\t")
}

/// Blank lines at the start (and, unless `keep_last`, the end) dropped and
/// runs collapsed: blank lines are layout, and one canonical layout is what
/// makes render ∘ parse stable.
fn tidy(lines: Vec<LogLine>, keep_last: bool) -> Vec<LogLine> {
    let mut out: Vec<LogLine> = Vec::with_capacity(lines.len());
    for line in lines {
        let blank = line == LogLine::Blank;
        if blank && out.last().is_none_or(|l| *l == LogLine::Blank) {
            continue;
        }
        out.push(line);
    }
    if !keep_last && out.last() == Some(&LogLine::Blank) {
        out.pop();
    }
    out
}

/// One section from its occurrences in the file. Bullet runs that meet are
/// joined as one list; anything else is kept apart by a blank line.
fn join_parts(parts: Vec<Vec<LogLine>>) -> Vec<LogLine> {
    let mut out: Vec<LogLine> = Vec::new();
    for part in parts {
        let part = tidy(part, false);
        let Some(first) = part.first() else {
            continue;
        };
        if out
            .last()
            .is_some_and(|last| !(last.is_bullet() && first.is_bullet()))
        {
            out.push(LogLine::Blank);
        }
        out.extend(part);
    }
    out
}

/// Where a new bullet goes: after the last bullet and the lines that hang
/// from it (up to a blank line), so a note or sub-list stays with the bullet
/// it explains and the list stays one list; at the end when there is none.
fn insertion_point(lines: &[LogLine]) -> usize {
    match lines.iter().rposition(LogLine::is_bullet) {
        None => lines.len(),
        Some(last) => {
            let after = &lines[last + 1..];
            last + 1
                + after
                    .iter()
                    .position(|l| *l == LogLine::Blank)
                    .unwrap_or(after.len())
        }
    }
}

/// The end of a bullet and its indented lines.
fn attached_end(lines: &[LogLine], at: usize) -> usize {
    let after = &lines[at + 1..];
    at + 1
        + after
            .iter()
            .position(|l| !l.is_indented())
            .unwrap_or(after.len())
}

/// Appends a dated block to `long_memory.md`'s text, the seeds' layout:
/// `\n## YYYY-MM-DD\n\n<text>\n`, after a `# Mémoire long terme — <project>`
/// title and a blank line when the file is empty. Headings inside `text` are
/// demoted (see `text::long_memory_body`). Appending the same block twice
/// in a row (a retried job) leaves the text as it was.
pub fn append_long_memory(
    existing: &str,
    project: &str,
    date: &str,
    text: &str,
    lang: Lang,
) -> String {
    let body = long_memory_body(text);
    if body.is_empty() {
        return existing.to_string();
    }
    let crlf = existing
        .find('\n')
        .is_some_and(|at| existing[..at].ends_with('\r'));
    let nl = if crlf { "\r\n" } else { "\n" };
    let block = format!("{nl}## {}{nl}{nl}{}{nl}", one_line(date), body.join(nl));
    if existing.ends_with(&block) {
        return existing.to_string();
    }
    let mut out = if existing.trim().is_empty() {
        format!("{}{nl}{nl}", lang.long_memory_title(&one_line(project)))
    } else {
        existing.to_string()
    };
    if !out.ends_with('\n') {
        out.push_str(nl);
    }
    out.push_str(&block);
    out
}
