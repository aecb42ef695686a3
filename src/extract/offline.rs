//! The offline backend: the record built from the activity digest and the
//! text alone, deterministically, with nothing leaving the machine.
//!
//! Facts come first (files changed, tool errors); prose contributes only
//! sentences whose cue words say what they are (see `cues`).

use std::collections::HashSet;
use std::path::Path;

use regex::Regex;
use std::sync::LazyLock;

use super::cues::{self, Cue, cap};
use super::record::{Extraction, Sections, Update};
use super::route::{display_path, known_default, log_bullets, log_has_section, project_of};
use super::{Answer, Backend, ExtractRequest};
use crate::memory::log::Lang;

/// Longest bullet the offline backend writes; the merge caps again by config.
const MAX_BULLET: usize = 220;
/// Files listed one bullet each (so the merge deduplicates them across turns)
/// before the rest is summarised in one bullet.
const MAX_FILES: usize = 8;

pub struct OfflineBackend;

impl Backend for OfflineBackend {
    fn name(&self) -> &'static str {
        "offline"
    }

    fn extract(&self, req: &ExtractRequest) -> anyhow::Result<Answer> {
        let extraction = extract(req);
        let raw = serde_json::to_string_pretty(&extraction)?;
        Ok(Answer {
            raw,
            extraction: Ok(extraction),
            usage: None,
        })
    }
}

/// The wording of the bullets the offline backend writes itself.
struct Words {
    created: &'static str,
    edited: &'static str,
    more_created: &'static str,
    more_edited: &'static str,
    command: &'static str,
    commands: &'static str,
    subagent: &'static str,
    tool_error: &'static str,
    area: &'static str,
}

const FR: Words = Words {
    created: "Créé",
    edited: "Modifié",
    more_created: "autres fichiers créés",
    more_edited: "autres fichiers modifiés",
    command: "Commande exécutée :",
    commands: "Commandes exécutées :",
    subagent: "Sous-agent lancé :",
    tool_error: "Erreur d'outil",
    area: "Zone de travail :",
};

const EN: Words = Words {
    created: "Created",
    edited: "Edited",
    more_created: "more files created",
    more_edited: "more files edited",
    command: "Command run:",
    commands: "Commands run:",
    subagent: "Subagent started:",
    tool_error: "Tool error",
    area: "Working in",
};

fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::Fr => &FR,
        Lang::En => &EN,
    }
}

/// One `Update` per project, in the order of the known projects.
struct Record<'a> {
    projects: &'a [(String, String)],
    updates: Vec<(String, Sections)>,
    seen: HashSet<(String, String)>,
}

impl<'a> Record<'a> {
    fn new(projects: &'a [(String, String)]) -> Self {
        Record {
            projects,
            updates: Vec::new(),
            seen: HashSet::new(),
        }
    }

    fn sections(&mut self, project: &str) -> &mut Sections {
        let i = match self.updates.iter().position(|(p, _)| p == project) {
            Some(i) => i,
            None => {
                self.updates
                    .push((project.to_string(), Sections::default()));
                self.updates.len() - 1
            }
        };
        &mut self.updates[i].1
    }

    /// Adds a bullet unless the same text (case and spacing aside) is
    /// already in this project's record.
    fn push(
        &mut self,
        project: &str,
        pick: fn(&mut Sections) -> &mut Vec<String>,
        text: &str,
    ) -> bool {
        let text = text.trim();
        if text.is_empty() || !self.seen.insert((project.to_string(), normalise(text))) {
            return false;
        }
        pick(self.sections(project)).push(text.to_string());
        true
    }

    fn count(&self, project: &str, pick: fn(&Sections) -> &Vec<String>) -> usize {
        self.updates
            .iter()
            .find(|(p, _)| p == project)
            .map_or(0, |(_, s)| pick(s).len())
    }

    fn finish(self) -> Extraction {
        let order = |name: &str| {
            self.projects
                .iter()
                .position(|(p, _)| p == name)
                .unwrap_or(usize::MAX)
        };
        let mut updates: Vec<_> = self.updates.iter().filter(|(_, s)| !s.is_empty()).collect();
        updates.sort_by_key(|(p, _)| order(p));
        Extraction {
            updates: updates
                .into_iter()
                .map(|(project, sections)| Update {
                    project: project.clone(),
                    sections: sections.clone(),
                    long_memory_update: None,
                })
                .collect(),
        }
    }
}

fn normalise(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(['.', '!', ';', ':'])
        .to_lowercase()
}

/// Builds the record of one turn.
pub(crate) fn extract(req: &ExtractRequest) -> Extraction {
    let default = known_default(req.projects, req.default_project);
    let mut rec = Record::new(req.projects);
    if req.ok_done {
        finalise(req, default, &mut rec);
        return rec.finish();
    }
    let w = words(req.lang);
    let digest = &req.exchange.digest;
    let root = req.project_root;
    let route = |path: &str| project_of(req.projects, root, path, default).to_string();

    // Work done: one bullet per file created, then per file edited.
    let created = unique(&digest.files_written);
    let edited: Vec<&str> = unique(&digest.files_edited)
        .into_iter()
        .filter(|f| !created.contains(f))
        .collect();
    let mut touched: Vec<(String, usize)> = Vec::new();
    for (files, verb, more) in [
        (&created, w.created, w.more_created),
        (&edited, w.edited, w.more_edited),
    ] {
        let mut extra: Vec<(String, usize)> = Vec::new();
        for path in files {
            let project = route(path);
            tally(&mut touched, &project);
            if rec.count(&project, |s| &s.travail) < MAX_FILES {
                let shown = display_path(root, path).replace('`', "'");
                rec.push(&project, |s| &mut s.travail, &format!("{verb} `{shown}`"));
            } else {
                tally(&mut extra, &project);
            }
        }
        for (project, n) in extra {
            rec.push(&project, |s| &mut s.travail, &format!("… {n} {more}"));
        }
    }

    // The project the prose is about: where most files changed, else where
    // most were read, else where the turn ran.
    let primary = busiest(&touched, default)
        .or_else(|| {
            let mut read = Vec::new();
            for path in unique(&digest.files_read) {
                tally(&mut read, &route(path));
            }
            busiest(&read, default)
        })
        .unwrap_or_else(|| default.to_string());

    // Commands and subagents only when no file says what the work was.
    if touched.is_empty() {
        let commands: Vec<String> = unique(&digest.commands)
            .into_iter()
            .filter_map(|c| c.lines().map(str::trim).find(|l| !l.is_empty()))
            .filter(|c| !is_trivial_command(c))
            .map(|c| format!("`{}`", cap(&c.replace('`', "'"), 80)))
            .fold(Vec::new(), |mut acc, c| {
                if !acc.contains(&c) {
                    acc.push(c);
                }
                acc
            });
        match commands.len() {
            0 => {}
            1 => {
                rec.push(
                    &primary,
                    |s| &mut s.travail,
                    &format!("{} {}", w.command, commands[0]),
                );
            }
            n => {
                let shown = commands[..n.min(3)].join(", ");
                rec.push(
                    &primary,
                    |s| &mut s.travail,
                    &format!("{} {shown}", w.commands),
                );
            }
        }
        for agent in unique(&digest.subagents).into_iter().take(2) {
            let agent = one_line(agent);
            if !agent.is_empty() {
                rec.push(
                    &primary,
                    |s| &mut s.travail,
                    &format!("{} {}", w.subagent, cap(&agent, 120)),
                );
            }
        }
    }

    // The request is the goal.
    let goal = objective(&req.exchange.human);
    if let Some((bullet, _)) = &goal {
        rec.push(&primary, |s| &mut s.objectif, bullet);
    }

    // Cued sentences: the assistant's answer first, then the rest of the
    // user's message.
    let mut prose: Vec<cues::Sentence> = cues::sentences(&req.exchange.assistant);
    let skip = goal.as_ref().map(|(_, source)| source.as_str());
    prose.extend(
        cues::sentences(&req.exchange.human)
            .into_iter()
            .filter(|s| Some(s.text.as_str()) != skip),
    );
    for s in prose {
        if s.question || cues::is_filler(&s.text) {
            continue;
        }
        let Some(cue) = cues::effective_cue(&s) else {
            continue;
        };
        let words_in = s.text.split_whitespace().count();
        let long_enough = if s.list_cue.is_some() {
            words_in >= 2 && s.text.chars().count() >= 8
        } else {
            words_in >= 4 && s.text.chars().count() >= 20
        };
        if !long_enough {
            continue;
        }
        let (pick, limit): (fn(&mut Sections) -> &mut Vec<String>, usize) = match cue {
            Cue::FollowUp => (|s| &mut s.a_suivre, 5),
            Cue::Problem => (|s| &mut s.problemes, 3),
            Cue::Decision => (|s| &mut s.decisions, 3),
            Cue::Knowledge => (|s| &mut s.connaissances, 3),
        };
        if pick(rec.sections(&primary)).len() < limit {
            let text = capitalise(s.text.trim_end_matches(':').trim());
            rec.push(&primary, pick, &cap(&text, MAX_BULLET));
        }
    }

    // Tool errors that say something; the tool's own retries are noise.
    let mut errors = 0;
    for raw in unique(&digest.tool_errors) {
        if errors == 3 {
            break;
        }
        if let Some((tool, line)) = tool_error_line(raw) {
            let line = cap(&line, 180);
            let bullet = match (tool, req.lang) {
                (Some(tool), Lang::Fr) => format!("{} ({tool}) : {line}", w.tool_error),
                (Some(tool), Lang::En) => format!("{} ({tool}): {line}", w.tool_error),
                (None, Lang::Fr) => format!("{} : {line}", w.tool_error),
                (None, Lang::En) => format!("{}: {line}", w.tool_error),
            };
            if rec.push(&primary, |s| &mut s.problemes, &bullet) {
                errors += 1;
            }
        }
    }

    // Context, once a day per project: where the work happens.
    let mut places: Vec<&str> = touched.iter().map(|(p, _)| p.as_str()).collect();
    if !places.contains(&primary.as_str()) {
        places.push(&primary);
    }
    for project in places {
        let existing = existing_log(req, project);
        if log_has_section(existing, "contexte") || rec.count(project, |s| &s.contexte) > 0 {
            continue;
        }
        let files = digest
            .files_written
            .iter()
            .chain(&digest.files_edited)
            .chain(&digest.files_read);
        let dirs = top_dirs(
            files
                .filter(|f| route(f) == project)
                .map(|f| display_path(root, f)),
        );
        if !dirs.is_empty() {
            rec.push(
                project,
                |s| &mut s.contexte,
                &format!("{} {}", w.area, dirs.join(", ")),
            );
        }
    }

    rec.finish()
}

/// OK-done: the worker's candidates, each in the project whose open to-dos
/// hold it, and nothing else.
fn finalise(req: &ExtractRequest, default: &str, rec: &mut Record) {
    for item in req.done_candidates {
        let project = req
            .existing_logs
            .iter()
            .find(|(_, log)| {
                log_bullets(log, "a_suivre")
                    .iter()
                    .any(|b| b == item.trim())
            })
            .map_or(default, |(p, _)| p.as_str());
        rec.push(project, |s| &mut s.a_suivre_done, item);
    }
}

fn existing_log<'r>(req: &'r ExtractRequest, project: &str) -> &'r str {
    req.existing_logs
        .iter()
        .find(|(p, _)| p == project)
        .map_or("", |(_, log)| log.as_str())
}

fn unique(items: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for item in items {
        let item = item.trim();
        if !item.is_empty() && !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

fn tally(counts: &mut Vec<(String, usize)>, key: &str) {
    match counts.iter_mut().find(|(k, _)| k == key) {
        Some((_, n)) => *n += 1,
        None => counts.push((key.to_string(), 1)),
    }
}

/// The key counted most; ties go to `preferred`, then to the first seen.
fn busiest(counts: &[(String, usize)], preferred: &str) -> Option<String> {
    let max = counts.iter().map(|(_, n)| *n).max()?;
    let tied: Vec<&String> = counts
        .iter()
        .filter(|(_, n)| *n == max)
        .map(|(k, _)| k)
        .collect();
    Some(
        tied.iter()
            .find(|k| k.as_str() == preferred)
            .unwrap_or(&tied[0])
            .to_string(),
    )
}

/// Up to three folders holding the turn's files, busiest first.
fn top_dirs(paths: impl Iterator<Item = String>) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for path in paths {
        if let Some(parent) = Path::new(&path).parent() {
            let parent = parent.to_string_lossy();
            if !parent.is_empty() && parent != "/" {
                tally(&mut counts, &format!("`{}/`", parent.replace('`', "'")));
            }
        }
    }
    // Stable sort: equal counts keep their first-seen order.
    counts.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    counts.into_iter().take(3).map(|(d, _)| d).collect()
}

/// Commands that only look around; they do not describe work.
fn is_trivial_command(cmd: &str) -> bool {
    const LOOKING: &[&str] = &[
        "ls", "ll", "cat", "pwd", "echo", "cd", "head", "tail", "grep", "rg", "find", "fd", "wc",
        "which", "file", "stat", "tree", "less", "more", "du", "df", "env", "printenv", "whoami",
        "date", "true", "sleep",
    ];
    const GIT_LOOKING: &[&str] = &[
        "status",
        "diff",
        "log",
        "show",
        "branch",
        "remote",
        "blame",
        "rev-parse",
    ];
    let mut words = cmd.split_whitespace();
    match words.next() {
        None => true,
        Some("git") => words.next().is_none_or(|sub| GIT_LOOKING.contains(&sub)),
        Some(first) => LOOKING.contains(&first.rsplit('/').next().unwrap_or(first)),
    }
}

static NOISY_TOOL_ERROR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(has not been read yet|string to replace not found|matches of the string to replace|has been modified since|doesn't want to (?:proceed|take this action)|user (?:rejected|denied|declined)|interrupted by user|request interrupted|permission .*denied|inputvalidationerror|file does not exist\.|no changes to make)",
    )
    .expect("pattern compiles")
});
static EXIT_CODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^exit (?:code|status):? ?\d+$").expect("pattern compiles"));

/// The digest names the failing tool before its message (`Bash: …`).
static TOOL_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(Bash|BashOutput|Read|Edit|MultiEdit|Write|NotebookEdit|Glob|Grep|LS|WebFetch|WebSearch|Task|Agent|TodoWrite|KillShell|Skill|SlashCommand|mcp__[\w-]+): ")
        .expect("pattern compiles")
});

/// The failing tool and the informative line of its error (the exception
/// of a traceback, else the first line with an error word, else the first),
/// or `None` for the tools' routine complaints and bare exit codes.
fn tool_error_line(raw: &str) -> Option<(Option<String>, String)> {
    let text = raw
        .replace("<tool_use_error>", "")
        .replace("</tool_use_error>", "");
    let text = text.trim();
    let (tool, text) = match TOOL_PREFIX.captures(text) {
        Some(c) => (Some(c[1].to_string()), &text[c[0].len()..]),
        None => (None, text),
    };
    if NOISY_TOOL_ERROR.is_match(text) {
        return None;
    }
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !EXIT_CODE.is_match(l))
        .collect();
    // A traceback ends with the exception; compilers lead with the error.
    let line = if lines.iter().any(|l| l.starts_with("Traceback")) {
        lines.last()
    } else {
        lines
            .iter()
            .find(|l| cues::has_problem_word(l))
            .or(lines.first())
    }?;
    Some((tool, one_line(line)))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_lowercase() => c.to_uppercase().chain(chars).collect(),
        _ => s.to_string(),
    }
}

/// How a request is asked, not what it asks: "Peux-tu ajouter X ?" is the
/// goal "Ajouter X".
const ASKING: &[&str] = &[
    "est-ce que tu pourrais",
    "est-ce que tu peux",
    "peux-tu",
    "pourrais-tu",
    "tu peux",
    "tu pourrais",
    "can you",
    "could you",
    "would you",
    "will you",
    "i want you to",
    "i'd like you to",
    "i would like you to",
    "j'aimerais que tu",
    "please",
];

const GREETING: &[&str] = &[
    "bonjour",
    "bonsoir",
    "salut",
    "coucou",
    "hello",
    "hi",
    "hey",
    "okay",
    "ok",
    "d'accord",
    "merci beaucoup",
    "merci",
    "thanks",
    "thank you",
    "parfait",
    "super",
    "great",
    "cool",
    "nice",
    "top",
    "yes",
    "oui",
    "please",
    "stp",
    "svp",
    "s'il te plaît",
    "s'il te plait",
    "s'il vous plaît",
    "s'il vous plait",
];

/// The text without its leading greetings and acknowledgements.
fn strip_greetings(mut text: &str) -> &str {
    while let Some(rest) = cues::strip_any_ci(text, GREETING) {
        text = rest.trim_start_matches(|c: char| c.is_whitespace() || ",;:!.".contains(c));
    }
    text
}

/// The request without how it is asked ("Peux-tu ajouter X" → "ajouter X").
fn strip_asking(text: &str) -> Option<&str> {
    let rest = cues::strip_any_ci(text, ASKING)?;
    rest.starts_with(char::is_whitespace)
        .then(|| rest.trim_start())
}

/// Messages that carry no goal of their own.
const ACKS: &[&str] = &[
    "continue",
    "go",
    "go on",
    "vas-y",
    "vas y",
    "allez",
    "on continue",
    "next",
    "suite",
    "la suite",
    "lgtm",
    "c'est bon",
    "ça marche",
    "ca marche",
    "done",
    "fait",
    "sure",
    "yep",
    "nope",
    "non",
    "no",
    "retry",
    "réessaie",
    "encore",
    "again",
    "et ensuite",
    "and then",
    "ok merci",
    "top merci",
];

/// The goal of the turn: the user's first sentence that says something,
/// greetings and acknowledgements removed. Also returns the sentence it came
/// from, so it is not read again for cues.
fn objective(human: &str) -> Option<(String, String)> {
    for s in cues::sentences(human) {
        let rest = strip_greetings(&s.text);
        let rest = rest.trim().trim_end_matches(':').trim();
        if rest.is_empty() {
            continue;
        }
        let bare = rest.trim_end_matches(['.', '!', '?', ' ']).to_lowercase();
        if ACKS.contains(&bare.as_str()) || rest.split_whitespace().count() < 2 {
            return None;
        }
        let goal = match strip_asking(rest) {
            Some(asked) if asked.split_whitespace().count() >= 2 => {
                asked.trim_end_matches(['?', ' ', '\u{a0}']).to_string()
            }
            _ => rest.to_string(),
        };
        return Some((cap(&capitalise(&goal), 200), s.text));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Digest, Exchange};

    fn projects() -> Vec<(String, String)> {
        vec![
            ("root".into(), "".into()),
            ("api".into(), "projects/api".into()),
            ("web".into(), "projects/web".into()),
        ]
    }

    fn run(
        exchange: &Exchange,
        lang: Lang,
        default: &str,
        logs: &[(String, String)],
    ) -> Extraction {
        let projects = projects();
        let req = ExtractRequest {
            exchange,
            ok_done: false,
            projects: &projects,
            default_project: default,
            existing_logs: logs,
            done_candidates: &[],
            lang,
            project_root: Path::new("/home/me/repo"),
        };
        extract(&req)
    }

    fn ex(human: &str, assistant: &str, digest: Digest) -> Exchange {
        Exchange {
            human: human.into(),
            assistant: assistant.into(),
            timestamp: None,
            digest,
        }
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn objective_drops_greetings_and_acks() {
        let o = |h: &str| objective(h).map(|(b, _)| b);
        assert_eq!(
            o("Bonjour ! Peux-tu corriger le bug du login ? Merci"),
            Some("Corriger le bug du login".into())
        );
        assert_eq!(
            o("Can you fix the flaky test?"),
            Some("Fix the flaky test".into())
        );
        assert_eq!(o("Can you help?"), Some("Can you help?".into()));
        assert_eq!(
            o("Pourquoi le build échoue ?"),
            Some("Pourquoi le build échoue ?".into())
        );
        assert_eq!(
            o("ok, now add tests for the parser"),
            Some("Now add tests for the parser".into())
        );
        assert_eq!(o("continue"), None);
        assert_eq!(o("OK merci !"), None);
        assert_eq!(o("Thanks!"), None);
        assert_eq!(o("Vas-y."), None);
        assert_eq!(o("Refactor"), None);
        assert_eq!(
            o("```\ncode\n```\nwhy does this panic"),
            Some("Why does this panic".into())
        );
    }

    #[test]
    fn trivial_commands_are_recognised() {
        for c in [
            "ls -la",
            "git status",
            "git diff HEAD",
            "/usr/bin/cat x",
            "rg foo",
            "git",
        ] {
            assert!(is_trivial_command(c), "{c}");
        }
        for c in ["cargo test", "git commit -m x", "npm run build", "make"] {
            assert!(!is_trivial_command(c), "{c}");
        }
    }

    #[test]
    fn tool_errors_keep_the_informative_line() {
        let line = |raw: &str| tool_error_line(raw).map(|(tool, l)| (tool.unwrap_or_default(), l));
        assert_eq!(
            line(
                "Exit code 101\n   Compiling cairn\nerror[E0308]: mismatched types\n --> src/a.rs:3:5"
            ),
            Some((String::new(), "error[E0308]: mismatched types".into()))
        );
        assert_eq!(
            line(
                "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
            ),
            None
        );
        assert_eq!(line("Read: File does not exist."), None);
        assert_eq!(line("Bash: Exit code 101"), None);
        assert_eq!(line("Exit code 1"), None);
        assert_eq!(
            line("WebFetch: Request failed with status code 404"),
            Some((
                "WebFetch".into(),
                "Request failed with status code 404".into()
            ))
        );
        assert_eq!(
            line("Traceback (most recent call last):\n  File \"a.py\", line 3\nKeyError: 'id'"),
            Some((String::new(), "KeyError: 'id'".into()))
        );
        assert_eq!(
            line("KeyError: 'id'"),
            Some((String::new(), "KeyError: 'id'".into()))
        );
    }

    #[test]
    fn files_are_routed_and_shown_relative() {
        let digest = Digest {
            files_edited: strings(&[
                "/home/me/repo/src/main.rs",
                "/home/me/repo/projects/api/src/db.rs",
            ]),
            files_written: strings(&["projects/api/tests/db.rs"]),
            ..Digest::default()
        };
        let e = run(&ex("Add a db test", "", digest), Lang::Fr, "root", &[]);
        let got: Vec<_> = e
            .updates
            .iter()
            .map(|u| (u.project.as_str(), u.sections.travail.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("root", strings(&["Modifié `src/main.rs`"])),
                (
                    "api",
                    strings(&[
                        "Créé `projects/api/tests/db.rs`",
                        "Modifié `projects/api/src/db.rs`"
                    ])
                ),
            ]
        );
        // The goal follows the files.
        assert_eq!(e.updates[1].sections.objectif, ["Add a db test"]);
        assert!(e.updates[0].sections.objectif.is_empty());
    }

    #[test]
    fn many_files_are_summarised() {
        let files: Vec<String> = (0..11).map(|i| format!("src/m{i}.rs")).collect();
        let digest = Digest {
            files_edited: files,
            ..Digest::default()
        };
        let e = run(
            &ex("Rename the helper everywhere", "", digest),
            Lang::En,
            "root",
            &[],
        );
        let travail = &e.updates[0].sections.travail;
        assert_eq!(travail.len(), 9);
        assert_eq!(travail[7], "Edited `src/m7.rs`");
        assert_eq!(travail[8], "… 3 more files edited");
    }

    #[test]
    fn commands_only_when_no_file_changed() {
        let digest = Digest {
            commands: strings(&["ls", "cargo test --lib", "git status", "cargo test --lib"]),
            ..Digest::default()
        };
        let e = run(
            &ex("Lance les tests", "", digest.clone()),
            Lang::Fr,
            "root",
            &[],
        );
        assert_eq!(
            e.updates[0].sections.travail,
            ["Commande exécutée : `cargo test --lib`"]
        );

        let with_file = Digest {
            files_edited: strings(&["src/a.rs"]),
            ..digest
        };
        let e = run(&ex("Lance les tests", "", with_file), Lang::Fr, "root", &[]);
        assert_eq!(e.updates[0].sections.travail, ["Modifié `src/a.rs`"]);
    }

    #[test]
    fn context_once_a_day() {
        let digest = Digest {
            files_read: strings(&["/home/me/repo/src/extract/mod.rs"]),
            files_edited: strings(&[
                "/home/me/repo/src/extract/offline.rs",
                "/home/me/repo/Cargo.toml",
            ]),
            ..Digest::default()
        };
        let e = run(
            &ex("Write the offline backend", "", digest.clone()),
            Lang::En,
            "root",
            &[],
        );
        assert_eq!(
            e.updates[0].sections.contexte,
            ["Working in `src/extract/`"]
        );
        let logs = vec![(
            "root".to_string(),
            "# Session log — x\n\n## Context\n- Earlier\n".to_string(),
        )];
        let e = run(
            &ex("Write the offline backend", "", digest),
            Lang::En,
            "root",
            &logs,
        );
        assert!(e.updates[0].sections.contexte.is_empty());
    }

    #[test]
    fn ok_done_yields_only_the_candidates() {
        let projects = projects();
        let exchange = ex(
            "OK-done",
            "Great, closing it. Next step: deploy.",
            Digest {
                files_edited: strings(&["src/a.rs"]),
                ..Digest::default()
            },
        );
        let logs = vec![
            (
                "root".to_string(),
                "## À suivre\n- Relire la doc\n".to_string(),
            ),
            (
                "api".to_string(),
                "## À suivre\n- Migrer la base\n".to_string(),
            ),
        ];
        let candidates = strings(&["Migrer la base", "Inconnu"]);
        let req = ExtractRequest {
            exchange: &exchange,
            ok_done: true,
            projects: &projects,
            default_project: "root",
            existing_logs: &logs,
            done_candidates: &candidates,
            lang: Lang::Fr,
            project_root: Path::new("/home/me/repo"),
        };
        let e = extract(&req);
        assert_eq!(e.updates.len(), 2);
        assert_eq!(e.updates[0].project, "root");
        assert_eq!(
            e.updates[0].sections,
            Sections {
                a_suivre_done: strings(&["Inconnu"]),
                ..Sections::default()
            }
        );
        assert_eq!(e.updates[1].project, "api");
        assert_eq!(
            e.updates[1].sections,
            Sections {
                a_suivre_done: strings(&["Migrer la base"]),
                ..Sections::default()
            }
        );

        let req = ExtractRequest {
            done_candidates: &[],
            ..req
        };
        assert_eq!(extract(&req), Extraction::default());
    }

    #[test]
    fn unknown_default_project_goes_to_root() {
        let e = run(
            &ex("Fix the flaky login test", "", Digest::default()),
            Lang::En,
            "ghost",
            &[],
        );
        assert_eq!(e.updates[0].project, "root");
    }

    #[test]
    fn an_acknowledgement_alone_yields_nothing() {
        let e = run(
            &ex(
                "merci !",
                "Avec plaisir ! N'hésitez pas si besoin.",
                Digest::default(),
            ),
            Lang::Fr,
            "root",
            &[],
        );
        assert_eq!(e, Extraction::default());
    }
}
