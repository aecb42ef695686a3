//! The hand-off note: a Markdown checkpoint in the project's
//! `memory_sessions/checkpoints/`, written by the guard and refined by the
//! model, that a fresh session can resume from.
//!
//! cairn fills what it can know for sure (the prompts, files with lines,
//! branch and commit, the figures) and leaves marked gaps for what only the
//! model knows (why, what is half done); the block reason asks it to fill
//! them. Headings follow `memory.language`, like the daily logs.

use super::git::GitInfo;
use super::limits::{Level, Limits};
use super::scan::{Facts, one_line};
use crate::format::truncate_head as cut;
use crate::memory::log::Lang;
use std::path::Path;

/// Subagent work of the session, for the note.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SubagentSpend {
    /// Subagent transcripts found beside the session's.
    pub transcripts: usize,
    /// Dollars, once something prices them (see [`super::SpendSource`]).
    pub cost_usd: Option<f64>,
}

/// Everything the note is made of.
#[derive(Debug, Clone)]
pub struct NoteInput<'a> {
    pub lang: Lang,
    pub session_id: &'a str,
    pub level: Level,
    pub fill: u64,
    pub limits: Limits,
    pub model: Option<&'a str>,
    /// Local date and time, `YYYY-MM-DD HH:MM`.
    pub when: &'a str,
    pub root: &'a Path,
    pub cwd: Option<&'a str>,
    /// The payload's `last_assistant_message`, else the tail's last text.
    pub last_answer: Option<&'a str>,
    pub facts: &'a Facts,
    pub git: Option<&'a GitInfo>,
    /// From today's log of the project.
    pub decisions: &'a [String],
    pub open_items: &'a [String],
    pub subagents: SubagentSpend,
}

struct Words {
    goal: &'static str,
    state: &'static str,
    decisions: &'static str,
    open: &'static str,
    files: &'static str,
    git: &'static str,
    subagents: &'static str,
    resume: &'static str,
    intro: &'static str,
    goal_gap: &'static str,
    state_gap: &'static str,
    decisions_gap: &'static str,
    open_gap: &'static str,
    no_files: &'static str,
    context: &'static str,
    level: &'static str,
    session: &'static str,
    cwd: &'static str,
    last_answer: &'static str,
    commands: &'static str,
    branch: &'static str,
    detached: &'static str,
    commit: &'static str,
    no_commit: &'static str,
    no_repo: &'static str,
    transcripts: &'static str,
    spend: &'static str,
    unpriced: &'static str,
    no_subagents: &'static str,
    resume_1: &'static str,
    resume_2: &'static str,
    from_log: &'static str,
    /// `:` in English, ` :` in French typography.
    colon: &'static str,
}

const EN: Words = Words {
    goal: "## Goal",
    state: "## State",
    decisions: "## Decisions",
    open: "## Open items",
    files: "## Files touched",
    git: "## Git",
    subagents: "## Subagents",
    resume: "## Resume",
    intro: "Written by cairn's context guard; the model refines it and the next session resumes from it.",
    goal_gap: "_(to fill in: what this session is for, in one or two sentences)_",
    state_gap: "_(to fill in: where the work stands, what was verified, what is half done)_",
    decisions_gap: "_(to fill in: decisions taken in this session, and why)_",
    open_gap: "_(to fill in: the exact next action first, then what remains)_",
    no_files: "_(none seen in the end of the transcript)_",
    context: "Context",
    level: "level",
    session: "Session",
    cwd: "Working directory",
    last_answer: "Last answer",
    commands: "Recent commands",
    branch: "Branch",
    detached: "(detached HEAD)",
    commit: "Last commit",
    no_commit: "(no commit yet)",
    no_repo: "_(not in a git repository)_",
    transcripts: "subagent transcripts",
    spend: "spend",
    unpriced: "not priced yet",
    no_subagents: "none",
    resume_1: "Read this note first, then at most one targeted search; do not re-read files it already summarises.",
    resume_2: "Keep it under 500 words; quote tool output sparingly; never paste secrets.",
    from_log: "from today's log",
    colon: ":",
};

const FR: Words = Words {
    goal: "## Objectif",
    state: "## État",
    decisions: "## Décisions",
    open: "## À suivre",
    files: "## Fichiers touchés",
    git: "## Git",
    subagents: "## Sous-agents",
    resume: "## Reprise",
    intro: "Écrit par le garde de contexte de cairn ; le modèle le complète et la session suivante reprend à partir de lui.",
    goal_gap: "_(à compléter : à quoi sert cette session, en une ou deux phrases)_",
    state_gap: "_(à compléter : où en est le travail, ce qui est vérifié, ce qui est à moitié fait)_",
    decisions_gap: "_(à compléter : décisions prises dans cette session, et pourquoi)_",
    open_gap: "_(à compléter : l'action suivante exacte d'abord, puis le reste)_",
    no_files: "_(aucun vu dans la fin du transcript)_",
    context: "Contexte",
    level: "niveau",
    session: "Session",
    cwd: "Répertoire de travail",
    last_answer: "Dernière réponse",
    commands: "Commandes récentes",
    branch: "Branche",
    detached: "(HEAD détachée)",
    commit: "Dernier commit",
    no_commit: "(aucun commit)",
    no_repo: "_(hors dépôt git)_",
    transcripts: "transcripts de sous-agents",
    spend: "dépense",
    unpriced: "pas encore chiffrée",
    no_subagents: "aucun",
    resume_1: "Lire cette note d'abord, puis au plus une recherche ciblée ; ne pas relire les fichiers qu'elle résume déjà.",
    resume_2: "Rester sous 500 mots ; citer les sorties d'outils avec parcimonie ; jamais de secret.",
    from_log: "du log du jour",
    colon: " :",
};

fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::Fr => &FR,
        Lang::En => &EN,
    }
}

/// `124,000` / `124 000`: figures a person reads at a glance.
pub fn group_digits(n: u64, lang: Lang) -> String {
    let sep = match lang {
        Lang::Fr => ' ',
        Lang::En => ',',
    };
    crate::format::group_digits(n, sep)
}

/// `path` as the note shows it: relative to the project root when inside
/// it (the note lives in the repository and may be read on another
/// machine), else as given.
pub fn display_path(path: &str, root: &Path, cwd: Option<&str>) -> String {
    let p = Path::new(path);
    let p = if p.is_relative() {
        match cwd {
            Some(c) => Path::new(c).join(p),
            None => return path.to_string(),
        }
    } else {
        p.to_path_buf()
    };
    let canon_root = root.canonicalize().ok();
    for r in std::iter::once(root).chain(canon_root.as_deref()) {
        if let Ok(rel) = p.strip_prefix(r)
            && !rel.as_os_str().is_empty()
        {
            return rel.to_string_lossy().into_owned();
        }
    }
    p.to_string_lossy().into_owned()
}

/// Inline code that survives any content: a backtick inside the text
/// would close a single-backtick span early.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// The note, before redaction.
pub fn render(n: &NoteInput) -> String {
    let w = words(n.lang);
    let pct_sign = match n.lang {
        Lang::Fr => " %",
        Lang::En => "%",
    };
    let figures = format!(
        "{} / {} tokens ({}{pct_sign})",
        group_digits(n.fill, n.lang),
        group_digits(n.limits.window, n.lang),
        n.limits.percent(n.fill)
    );
    let short: String = n.session_id.chars().take(8).collect();
    let mut out = String::new();
    let mut line = |s: &str| {
        out.push_str(s);
        out.push('\n');
    };

    line(&format!("# Checkpoint — {} — session {short}", n.when));
    line("");
    line(&format!("> {}", w.intro));
    line("");

    line(w.goal);
    for p in &n.facts.prompts {
        line(&format!("- {p}"));
    }
    line(&format!("- {}", w.goal_gap));
    line("");

    line(w.state);
    let model = n
        .model
        .map(|m| format!(", {}", code(m)))
        .unwrap_or_default();
    let c = w.colon;
    line(&format!(
        "- {}{c} {figures}, {} {}{model}",
        w.context,
        w.level,
        n.level.as_str()
    ));
    line(&format!("- {}{c} {}", w.session, code(n.session_id)));
    if let Some(d) = n.cwd {
        line(&format!("- {}{c} {}", w.cwd, code(d)));
    }
    if let Some(a) = n.last_answer.map(one_line).filter(|a| !a.is_empty()) {
        line(&format!("- {}{c} {}", w.last_answer, cut(&a, 600)));
    }
    if !n.facts.commands.is_empty() {
        let cmds: Vec<String> = n.facts.commands.iter().map(|c| code(c)).collect();
        line(&format!("- {}{c} {}", w.commands, cmds.join(" ; ")));
    }
    line(&format!("- {}", w.state_gap));
    line("");

    line(w.decisions);
    for d in n.decisions {
        line(&format!("- {} ({})", one_line(d), w.from_log));
    }
    line(&format!("- {}", w.decisions_gap));
    line("");

    line(w.open);
    for t in n.open_items {
        line(&format!("- {} ({})", one_line(t), w.from_log));
    }
    line(&format!("- {}", w.open_gap));
    line("");

    line(w.files);
    if n.facts.files.is_empty() {
        line(&format!("- {}", w.no_files));
    }
    for f in &n.facts.files {
        let shown = display_path(&f.path, n.root, n.cwd);
        // The scan keeps the most recent lines; in the note they read
        // best in file order.
        let mut lines = f.lines.clone();
        lines.sort_unstable();
        let refs: Vec<String> = if lines.is_empty() {
            vec![code(&shown)]
        } else {
            lines
                .iter()
                .map(|l| code(&format!("{shown}:{l}")))
                .collect()
        };
        line(&format!("- {} — {}", refs.join(" "), f.tools.join(", ")));
    }
    line("");

    line(w.git);
    match n.git {
        None => match n.facts.git_branch.as_deref() {
            // The transcript knows the branch even when the folder is gone.
            Some(b) => line(&format!("- {}{c} {}", w.branch, code(b))),
            None => line(&format!("- {}", w.no_repo)),
        },
        Some(g) => {
            let branch = g
                .branch
                .as_deref()
                .or(n.facts.git_branch.as_deref())
                .map(code)
                .unwrap_or_else(|| w.detached.to_string());
            line(&format!("- {}{c} {branch}", w.branch));
            let commit = match (&g.commit, &g.subject) {
                (Some(c), Some(s)) => format!("{} {}", code(&c[..12.min(c.len())]), one_line(s)),
                (Some(c), None) => code(&c[..12.min(c.len())]),
                (None, _) => w.no_commit.to_string(),
            };
            line(&format!("- {}{c} {commit}", w.commit));
        }
    }
    line("");

    line(w.subagents);
    if n.subagents.transcripts == 0 && n.subagents.cost_usd.is_none_or(|c| c == 0.0) {
        line(&format!("- {}", w.no_subagents));
    } else {
        let spend = match n.subagents.cost_usd {
            Some(c) => format!("${c:.2}"),
            None => w.unpriced.to_string(),
        };
        line(&format!(
            "- {} {}, {}{c} {spend}",
            n.subagents.transcripts, w.transcripts, w.spend
        ));
    }
    line("");

    line(w.resume);
    line(&format!("- {}", w.resume_1));
    line(&format!("- {}", w.resume_2));
    out
}
