//! The static estimate (SPEC §3.1–3.3, the seed's steps 2–4): a SKILL.md cut
//! into steps, each typed by the tools and verbs it mentions, volumes
//! measured on files of earlier runs when they exist, else taken from the
//! text's own figures, else from size classes; weighted units
//! `input × 1 + output × 5`.

use super::AuditConfig;
use super::skills::Skill;
use std::fs;
use std::path::{Path, PathBuf};

/// Output tokens cost five input tokens (every listed model, research §6.1).
pub const OUTPUT_WEIGHT: u64 = 5;
/// Cached system context in steady state costs a tenth.
pub const CACHE_READ_FACTOR: f64 = 0.1;

/// Size classes of the seed: small < 500, medium 500–5 000, large > 5 000.
pub const SMALL: u64 = 300;
pub const MEDIUM: u64 = 2_000;
pub const LARGE: u64 = 8_000;
/// A plain reply, with no tool and no reasoning verb.
pub const ANSWER: u64 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    System,
    Read,
    Bash,
    WebFetch,
    Agent,
    Ask,
    Reasoning,
    Write,
    Accumulated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// Sizes of files on disk (the skill, its inputs, outputs of earlier runs).
    Measured,
    /// A figure written in the SKILL.md.
    Hint,
    /// A size class.
    Class,
}

/// Files a step reads or writes, measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Files {
    pub count: u64,
    pub bytes: u64,
    pub tokens: u64,
    /// The folder when the step reads or writes a whole family of files.
    pub folder: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// `0`, `3`, `3a`, `—`.
    pub id: String,
    pub label: String,
    pub kind: Kind,
    pub input: u64,
    pub output: u64,
    pub basis: Basis,
    pub files: Files,
    /// Reads every file of a folder that grows with each run.
    pub read_all: bool,
    /// Writes again a file that already exists in full.
    pub regenerates: bool,
    /// The step's text, for the optimisation rules.
    pub text: String,
}

impl Row {
    pub fn units(&self) -> u64 {
        self.input + OUTPUT_WEIGHT * self.output
    }
}

/// A fenced block of the SKILL.md (an inline template when large).
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub line: usize,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub rows: Vec<Row>,
    /// Numbered steps found (the accumulated-context rule counts these).
    pub steps: usize,
    pub input: u64,
    pub output: u64,
    pub units: u64,
    /// Units with the system context read from cache (× 0.1).
    pub cached_units: u64,
    pub system_tokens: u64,
    /// Whether any volume was measured on files of the project.
    pub example_based: bool,
    /// Example outputs found (files of earlier runs), for the basis line.
    pub examples: u64,
    pub blocks: Vec<Block>,
    /// CLAUDE.md bytes counted in the system context.
    pub claude_md: u64,
}

impl Estimate {
    /// Whether the cached view differs enough to be shown (> 10 %).
    pub fn show_cache(&self) -> bool {
        self.units > 0 && (self.units - self.cached_units) * 10 > self.units
    }

    pub fn costliest(&self) -> Option<&Row> {
        self.rows
            .iter()
            .filter(|r| r.kind != Kind::Accumulated)
            .max_by_key(|r| (r.units(), std::cmp::Reverse(r.id.clone())))
    }
}

/// Bytes per token by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    Prose,
    Json,
    Code,
    Markdown,
}

pub fn ratio(cfg: &AuditConfig, c: Content) -> f64 {
    match c {
        Content::Prose => cfg.bytes_per_token_prose,
        Content::Json => cfg.bytes_per_token_json,
        Content::Code => cfg.bytes_per_token_code,
        Content::Markdown => cfg.bytes_per_token_markdown,
    }
}

pub fn tokens(cfg: &AuditConfig, c: Content, bytes: u64) -> u64 {
    (bytes as f64 / ratio(cfg, c)).round() as u64
}

/// What a file holds, from its extension and, for text, a sample: prose
/// when almost no line is code or markup.
pub fn content_of(path: &Path) -> Content {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "json" | "jsonl" | "ndjson" | "yaml" | "yml" | "toml" | "csv" => Content::Json,
        "rs" | "py" | "js" | "ts" | "tsx" | "jsx" | "php" | "vue" | "sh" | "go" | "java" | "c"
        | "h" | "cpp" | "rb" | "kt" | "swift" | "sql" | "css" | "html" => Content::Code,
        "md" | "markdown" | "txt" | "rst" => {
            let mut sample = vec![0u8; 16 * 1024];
            let n = crate::fsutil::confine::open_regular(path)
                .and_then(|mut f| std::io::Read::read(&mut f, &mut sample))
                .unwrap_or(0);
            classify_text(&String::from_utf8_lossy(&sample[..n]))
        }
        _ => Content::Markdown,
    }
}

/// Prose (mostly sentences) or mixed Markdown (tables, code, lists).
pub fn classify_text(text: &str) -> Content {
    let (mut lines, mut markup) = (0usize, 0usize);
    let mut fenced = false;
    for l in text.lines() {
        let t = l.trim_start();
        if t.is_empty() {
            continue;
        }
        lines += 1;
        if t.starts_with("```") {
            fenced = !fenced;
            markup += 1;
        } else if fenced || t.starts_with('|') || t.starts_with("    ") || t.starts_with('{') {
            markup += 1;
        }
    }
    if lines > 0 && markup * 10 <= lines {
        Content::Prose
    } else {
        Content::Markdown
    }
}

// ---------------------------------------------------------------------------
// Steps.

struct Step {
    id: String,
    title: String,
    text: String,
}

/// A heading's step id: `Étape 3 — …`, `Phase 5b`, `3bis-c. …`, `## 2) …`.
fn step_id(title: &str) -> Option<String> {
    let t = title.trim().trim_start_matches(['*', '_']);
    let lower = t.to_lowercase();
    let mut rest = t;
    for w in ["étape", "etape", "step", "phase", "partie", "part", "stage"] {
        if lower.starts_with(w) {
            rest = t[w.len()..].trim_start();
            break;
        }
    }
    let id: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '.' | '-'))
        .collect();
    let id = id.trim_end_matches(['.', '-']).to_string();
    if id.chars().next().is_some_and(|c| c.is_ascii_digit()) && id.len() <= 12 {
        Some(id)
    } else {
        None
    }
}

/// The title without its `Étape 3 —` prefix.
fn strip_id(title: &str) -> String {
    let t = title.trim().trim_start_matches(['*', '_']);
    let lower = t.to_lowercase();
    let mut rest = t;
    for w in ["étape", "etape", "step", "phase", "partie", "part", "stage"] {
        if lower.starts_with(w) {
            rest = t[w.len()..].trim_start();
            break;
        }
    }
    let rest = rest.trim_start_matches(|c: char| c.is_alphanumeric() || matches!(c, '.' | '-'));
    let rest = rest.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '—' | '–' | '-' | ':' | '.' | ')')
    });
    let rest = rest.trim().trim_end_matches(['*', '_']);
    if rest.is_empty() {
        title.trim().to_string()
    } else {
        rest.to_string()
    }
}

fn split_steps(body: &str) -> Vec<Step> {
    let lines: Vec<&str> = body.lines().collect();
    let mut fenced = false;
    // (line index, level, id, title)
    let mut heads: Vec<(usize, usize, Option<String>, String)> = Vec::new();
    let mut items: Vec<(usize, String, String)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let level = l.chars().take_while(|&c| c == '#').count();
        if (1..=4).contains(&level) && l[level..].starts_with(' ') {
            let title = l[level..].trim().to_string();
            let id = step_id(&title);
            let title = if id.is_some() {
                strip_id(&title)
            } else {
                title
            };
            heads.push((i, level, id, title));
            continue;
        }
        // Top-level numbered list items: `1. Lire …`.
        let digits: String = l.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty()
            && (l[digits.len()..].starts_with(". ") || l[digits.len()..].starts_with(") "))
        {
            let title = l[digits.len() + 2..].trim().to_string();
            items.push((i, digits, title));
        }
    }
    let text_between = |a: usize, b: usize| lines[a..b.min(lines.len())].join("\n");
    let numbered: Vec<_> = heads.iter().filter(|h| h.2.is_some()).collect();
    if !numbered.is_empty() {
        let mut out = Vec::new();
        for (k, h) in heads.iter().enumerate() {
            let Some(id) = &h.2 else { continue };
            let end = heads.get(k + 1).map_or(lines.len(), |n| n.0);
            out.push(Step {
                id: id.clone(),
                title: h.3.clone(),
                text: text_between(h.0, end),
            });
        }
        return out;
    }
    if items.len() >= 2 {
        return items
            .iter()
            .enumerate()
            .map(|(k, (i, n, t))| {
                let end = items.get(k + 1).map_or(lines.len(), |x| x.0);
                Step {
                    id: n.clone(),
                    title: t.clone(),
                    text: text_between(*i, end),
                }
            })
            .collect();
    }
    let h2: Vec<_> = heads.iter().enumerate().filter(|(_, h)| h.1 == 2).collect();
    if !h2.is_empty() {
        return h2
            .iter()
            .enumerate()
            .map(|(n, (k, h))| {
                let end = heads.get(k + 1).map_or(lines.len(), |x| x.0);
                Step {
                    id: (n + 1).to_string(),
                    title: h.3.clone(),
                    text: text_between(h.0, end),
                }
            })
            .collect();
    }
    if body.trim().is_empty() {
        return Vec::new();
    }
    vec![Step {
        id: "1".into(),
        title: lines
            .iter()
            .map(|l| l.trim().trim_start_matches('#').trim())
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string(),
        text: body.to_string(),
    }]
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn has_any(words: &[String], exact: &[&str], lower: &[&str]) -> bool {
    words.iter().any(|w| {
        exact.contains(&w.as_str()) || {
            let l = w.to_lowercase();
            lower.contains(&l.as_str())
        }
    })
}

const READ_EXACT: &[&str] = &["Read", "Glob", "Grep", "NotebookRead"];
const READ_WORDS: &[&str] = &[
    "lire",
    "lit",
    "relire",
    "lis",
    "charger",
    "read",
    "reads",
    "load",
    "ouvrir",
    "open",
    "parcourir",
    "consulter",
];
const WRITE_EXACT: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];
const WRITE_WORDS: &[&str] = &[
    "écrire",
    "écrit",
    "rédiger",
    "rédige",
    "générer",
    "génère",
    "generate",
    "write",
    "writes",
    "régénérer",
    "regenerate",
    "réécrire",
    "rewrite",
    "créer",
    "create",
    "produire",
    "produce",
    "enregistrer",
    "save",
    "mettre",
    "update",
    "ajouter",
    "append",
];
const BASH_EXACT: &[&str] = &["Bash"];
const BASH_WORDS: &[&str] = &[
    "bash",
    "python",
    "python3",
    "script",
    "scripts",
    "git",
    "wc",
    "npm",
    "cargo",
    "make",
    "cairn",
    "exécuter",
    "execute",
    "lancer",
    "shell",
    "jq",
];
const ASK_EXACT: &[&str] = &["AskUserQuestion"];
const ASK_WORDS: &[&str] = &["demander", "ask", "confirmer", "confirm"];
const WEB_EXACT: &[&str] = &["WebFetch", "WebSearch"];
const WEB_WORDS: &[&str] = &["webfetch", "websearch", "télécharger", "fetch"];
const AGENT_EXACT: &[&str] = &["Agent", "Task"];
const AGENT_WORDS: &[&str] = &["subagent", "sous", "subagents"];
const REASON_WORDS: &[&str] = &[
    "analyser",
    "classifier",
    "classer",
    "résumer",
    "synthèse",
    "synthétiser",
    "décider",
    "analyze",
    "classify",
    "summarize",
    "summarise",
    "evaluate",
    "évaluer",
    "identifier",
    "identify",
    "calculer",
    "compute",
    "comparer",
    "compare",
    "vérifier",
    "check",
    "réfléchir",
    "think",
    "raisonner",
    "choisir",
    "choose",
    "trier",
    "sort",
];
const REGEN_WORDS: &[&str] = &[
    "régénérer",
    "regenerate",
    "réécrire",
    "rewrite",
    "regénérer",
    "régénération",
    "mettre",
    "update",
    "remplacer",
    "replace",
    "écraser",
    "overwrite",
];
const ALL_WORDS: &[&str] = &[
    "tous", "toutes", "all", "every", "chaque", "each", "ensemble", "whole", "entier", "entière",
];

/// Which kinds of operation a piece of text mentions, in table order.
fn kinds_of(text: &str) -> Vec<Kind> {
    let w = words(text);
    let lower = text.to_lowercase();
    let mut k = Vec::new();
    if has_any(&w, READ_EXACT, READ_WORDS) {
        k.push(Kind::Read);
    }
    let shell_fence = ["```bash", "```sh", "```shell", "```console"]
        .iter()
        .any(|f| lower.contains(f));
    if has_any(&w, BASH_EXACT, BASH_WORDS) || shell_fence {
        k.push(Kind::Bash);
    }
    if has_any(&w, WEB_EXACT, WEB_WORDS) {
        k.push(Kind::WebFetch);
    }
    if has_any(&w, AGENT_EXACT, AGENT_WORDS)
        && (w.iter().any(|x| x == "Agent" || x == "Task")
            || lower.contains("sous-agent")
            || lower.contains("subagent"))
    {
        k.push(Kind::Agent);
    }
    if has_any(&w, ASK_EXACT, ASK_WORDS) {
        k.push(Kind::Ask);
    }
    if has_any(&w, &[], REASON_WORDS) {
        k.push(Kind::Reasoning);
    }
    if has_any(&w, WRITE_EXACT, WRITE_WORDS) {
        k.push(Kind::Write);
    }
    k
}

/// Paths a text points at: `code spans` and `[links](targets)` that look
/// like files or folders (a slash, or a dot with an extension).
pub fn references(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut push = |s: &str| {
        let s = s.trim().trim_matches(['"', '\'']);
        let s = s.split_whitespace().next().unwrap_or("");
        let looks = !s.is_empty()
            && s.len() < 200
            && !s.contains("://")
            && !s.starts_with('-')
            && !s.starts_with('$')
            && (s.contains('/')
                || s.rsplit_once('.').is_some_and(|(a, e)| {
                    !a.is_empty()
                        && (1..=5).contains(&e.len())
                        && e.chars().all(|c| c.is_ascii_alphanumeric())
                }));
        if looks && !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    };
    let mut rest = text;
    while let Some(i) = rest.find('`') {
        let after = &rest[i + 1..];
        if let Some(fence) = after.strip_prefix("``") {
            // A fence: skip to its end.
            match fence.find("```") {
                Some(j) => rest = &fence[j + 3..],
                None => break,
            }
            continue;
        }
        match after.find('`') {
            Some(j) => {
                push(&after[..j]);
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => {
                push(after[..j].split('#').next().unwrap_or(""));
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
    out
}

fn is_pattern(s: &str) -> bool {
    s.contains('<') || s.contains('{') || s.contains('*') || s.contains("YYYY") || s.contains("NNN")
}

/// What a reference designates on disk.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    File(PathBuf, u64),
    /// Every file of a folder (or matching a pattern), non-recursive.
    /// The flag is set when the text named a pattern (`<name>.md`): one
    /// file of the family per use, not all of them.
    Family(String, Vec<(PathBuf, u64)>, bool),
}

fn resolve(root: &Path, skill_dir: &Path, r: &str) -> Option<Target> {
    let r = r.trim_start_matches("./");
    let bases = [root, skill_dir];
    if is_pattern(r) {
        // `analyses/<nom>.md`, `out/*.json`: the files beside, same extension.
        let cut = r.find(['<', '{', '*']).unwrap_or(r.len());
        let cut = r.find("YYYY").map_or(cut, |y| y.min(cut));
        let (dir_part, prefix) = match r[..cut].rfind('/') {
            Some(i) => (&r[..i], &r[i + 1..cut]),
            None => ("", &r[..cut]),
        };
        if dir_part.contains(['<', '{', '*']) {
            return None;
        }
        let ext = Path::new(r)
            .extension()
            .map(|e| e.to_string_lossy().into_owned());
        for b in bases {
            let d = b.join(dir_part);
            if d.is_dir() {
                let files = family(&d, |p| {
                    let name = p
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    name.starts_with(prefix)
                        && ext
                            .as_deref()
                            .is_none_or(|e| p.extension().is_some_and(|x| x.to_string_lossy() == e))
                });
                if !files.is_empty() {
                    return Some(Target::Family(
                        format!("{}/", dir_part.trim_end_matches('/')),
                        files,
                        true,
                    ));
                }
            }
        }
        return None;
    }
    for b in bases {
        let p = b.join(r);
        let Ok(m) = fs::metadata(&p) else { continue };
        if m.is_file() {
            return Some(Target::File(p, m.len()));
        }
        if m.is_dir() {
            let files = family(&p, |_| true);
            if !files.is_empty() {
                return Some(Target::Family(
                    format!("{}/", r.trim_end_matches('/')),
                    files,
                    false,
                ));
            }
        }
    }
    None
}

/// Regular files of a folder and its direct sub-folders (skipping hidden
/// ones and `README.md`/`_index` summaries), capped to keep a huge folder
/// cheap to measure.
fn family(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.filter_map(Result::ok) {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() && depth < 1 {
                stack.push((p, depth + 1));
            } else if ft.is_file() && !name.eq_ignore_ascii_case("README.md") && keep(&p) {
                let len = e.metadata().map(|m| m.len()).unwrap_or(0);
                out.push((p, len));
            }
            if out.len() >= 20_000 {
                return out;
            }
        }
    }
    out.sort();
    out
}

/// Figures the text gives: `~2 000 tokens`, `5k tok`, `12 Ko`, `×5`.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Hints {
    tokens: Option<u64>,
    times: Option<u64>,
    class: Option<u64>,
}

fn hints(text: &str) -> Hints {
    let mut h = Hints::default();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if (c == '×' || c == 'x')
            && i + 1 < chars.len()
            && chars[i + 1].is_ascii_digit()
            && (i == 0 || !chars[i - 1].is_alphanumeric())
        {
            let n: String = chars[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if h.times.is_none() {
                h.times = n.parse().ok().filter(|&n: &u64| (1..=10_000).contains(&n));
            }
            i += 1 + n.len();
            continue;
        }
        if c.is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric()) {
            // A number with thin/normal spaces as thousands separators.
            let mut j = i;
            let mut digits = String::new();
            while j < chars.len()
                && (chars[j].is_ascii_digit()
                    || (matches!(chars[j], ' ' | '\u{202f}' | '\u{2009}' | '\u{a0}' | ',')
                        && j + 3 < chars.len() + 1
                        && chars.get(j + 1).is_some_and(char::is_ascii_digit)
                        && chars[j + 1..]
                            .iter()
                            .take_while(|c| c.is_ascii_digit())
                            .count()
                            == 3))
            {
                if chars[j].is_ascii_digit() {
                    digits.push(chars[j]);
                }
                j += 1;
            }
            let mut mult = 1u64;
            let mut k = j;
            if k < chars.len() && (chars[k] == 'k' || chars[k] == 'K') {
                mult = 1000;
                k += 1;
            }
            let unit: String = chars[k..]
                .iter()
                .skip_while(|c| c.is_whitespace())
                .take_while(|c| c.is_alphabetic())
                .collect::<String>()
                .to_lowercase();
            let n: u64 = digits.parse::<u64>().unwrap_or(0).saturating_mul(mult);
            let tok = match unit.as_str() {
                "tokens" | "token" | "tok" => Some(n),
                "ko" | "kb" | "kio" | "kib" => Some(n * 1024 / 4),
                "octets" | "bytes" | "o" | "b" => Some(n / 4),
                _ => None,
            };
            if let Some(t) = tok
                && h.tokens.is_none()
                && t > 0
            {
                h.tokens = Some(t);
            }
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    let w = words(&text.to_lowercase());
    let any = |l: &[&str]| w.iter().any(|x| l.contains(&x.as_str()));
    h.class = if any(&[
        "gros",
        "grosse",
        "large",
        "big",
        "volumineux",
        "volumineuse",
        "huge",
    ]) {
        Some(LARGE)
    } else if any(&["moyen", "moyenne", "medium"]) {
        Some(MEDIUM)
    } else if any(&["petit", "petite", "small", "court", "courte", "short"]) {
        Some(SMALL)
    } else {
        None
    };
    h
}

// ---------------------------------------------------------------------------
// The estimate.

pub fn estimate(cfg: &AuditConfig, root: &Path, skill: &Skill) -> Estimate {
    let skill_dir = skill.found.dir().to_path_buf();
    let mut rows = Vec::new();
    let mut example_based = false;
    let mut examples = 0u64;

    // 0 — system context: the SKILL.md as injected, and CLAUDE.md, always loaded.
    let md_ratio = ratio(cfg, Content::Markdown);
    let claude_md = fs::metadata(root.join("CLAUDE.md"))
        .map(|m| m.len())
        .unwrap_or(0);
    let system_tokens = (skill.size as f64 / md_ratio).round() as u64
        + if claude_md > 0 {
            tokens(cfg, content_of(&root.join("CLAUDE.md")), claude_md)
        } else {
            0
        };
    rows.push(Row {
        id: "0".into(),
        label: String::new(),
        kind: Kind::System,
        input: system_tokens,
        output: 0,
        basis: Basis::Measured,
        files: Files {
            count: 1 + u64::from(claude_md > 0),
            bytes: skill.size + claude_md,
            tokens: system_tokens,
            folder: None,
        },
        read_all: false,
        regenerates: false,
        text: String::new(),
    });

    let steps = split_steps(skill.body());
    for step in &steps {
        let body_text = step.text.lines().skip(1).collect::<Vec<_>>().join("\n");
        if body_text.trim().is_empty() {
            // A heading whose sub-steps carry the work.
            continue;
        }
        let mut kinds = kinds_of(&step.text);
        let title_kinds = kinds_of(&step.title);
        let w = words(&step.text);
        // A script does the writing when the step runs one and names no
        // writing tool; reasoning counts apart when it is the step's point.
        if kinds.contains(&Kind::Bash) && !w.iter().any(|x| WRITE_EXACT.contains(&x.as_str())) {
            kinds.retain(|k| *k != Kind::Write);
        }
        if kinds.len() > 1 && !title_kinds.contains(&Kind::Reasoning) {
            kinds.retain(|k| *k != Kind::Reasoning);
        }
        let plain = kinds.is_empty();
        let kinds = if plain { vec![Kind::Reasoning] } else { kinds };
        let step_regen = w
            .iter()
            .any(|x| REGEN_WORDS.contains(&x.to_lowercase().as_str()));
        // Paths go to the operation of their line: a line with a write verb
        // names an output, any other line an input.
        let mut reads: Vec<Target> = Vec::new();
        let mut writes: Vec<(Target, bool)> = Vec::new();
        let mut read_all = false;
        let mut regen = false;
        for line in step.text.lines() {
            let refs = references(line);
            if refs.is_empty() {
                continue;
            }
            let lk = kinds_of(line);
            let w = words(&line.to_lowercase());
            let line_all = w.iter().any(|x| ALL_WORDS.contains(&x.as_str()));
            let line_regen = w.iter().any(|x| REGEN_WORDS.contains(&x.as_str()));
            for r in refs {
                let Some(t) = resolve(root, &skill_dir, &r) else {
                    continue;
                };
                if same_file(&t, &skill.found.path) {
                    continue;
                }
                let is_write = lk.contains(&Kind::Write) && !lk.contains(&Kind::Read);
                if is_write {
                    let exists_whole = matches!(t, Target::File(..));
                    regen |= line_regen || exists_whole;
                    writes.push((t, exists_whole));
                } else {
                    if matches!(t, Target::Family(_, _, false)) && (line_all || r.ends_with('/')) {
                        read_all = true;
                    }
                    reads.push(t);
                }
            }
        }
        let h = hints(&step.text);
        let times = h.times.unwrap_or(1);
        let multi = kinds.len() > 1;
        // `0` is the system context's row: a step 0 becomes 0b (the seed's way).
        let step_id = if step.id == "0" {
            "0b".to_string()
        } else {
            step.id.clone()
        };
        for (n, kind) in kinds.iter().enumerate() {
            let id = if multi {
                format!("{}{}", step_id, (b'a' + n.min(25) as u8) as char)
            } else {
                step_id.clone()
            };
            let mut row = Row {
                id,
                label: step.title.clone(),
                kind: *kind,
                input: 0,
                output: 0,
                basis: Basis::Class,
                files: Files::default(),
                read_all: false,
                regenerates: false,
                text: step.text.clone(),
            };
            match kind {
                Kind::Read => {
                    if !reads.is_empty() {
                        let mut f = measure(cfg, &reads);
                        // Named by a pattern: one file like the average, per use.
                        if !read_all
                            && reads
                                .iter()
                                .all(|t| matches!(t, Target::Family(_, _, true)))
                        {
                            f.tokens = f.tokens / f.count.max(1) * times;
                        }
                        row.input = f.tokens;
                        row.files = f;
                        row.basis = Basis::Measured;
                        row.read_all = read_all;
                        example_based = true;
                    } else {
                        row.input = h.tokens.or(h.class).unwrap_or(MEDIUM) * times;
                        row.basis = basis_of(&h);
                    }
                }
                Kind::Write => {
                    let targets: Vec<Target> = writes.iter().map(|(t, _)| t.clone()).collect();
                    if !targets.is_empty() {
                        // One output like the average example, per repetition.
                        let f = measure(cfg, &targets);
                        let avg = f.tokens / f.count.max(1);
                        examples += f.count;
                        row.output = avg * times;
                        row.files = f;
                        row.basis = Basis::Measured;
                        row.regenerates = regen || step_regen;
                        example_based = true;
                    } else {
                        row.output = h.tokens.or(h.class).unwrap_or(MEDIUM) * times;
                        row.basis = basis_of(&h);
                    }
                }
                Kind::Bash => {
                    let quiet = step_is_quiet(&step.text);
                    row.input = if quiet {
                        0
                    } else {
                        h.class.unwrap_or(SMALL).min(MEDIUM) * times
                    };
                    row.basis = Basis::Class;
                }
                Kind::WebFetch => {
                    row.input = h.tokens.unwrap_or(3_000) * times;
                    row.basis = basis_of(&h);
                }
                Kind::Agent => {
                    row.input = h.tokens.unwrap_or(1_500) * times;
                    row.basis = basis_of(&h);
                }
                Kind::Ask => {
                    row.input = 300 * times;
                    row.output = 100 * times;
                }
                Kind::Reasoning => {
                    // Hints in a mixed step describe its reads or writes.
                    // A plain answer (no tool, no reasoning verb) is short.
                    let base = if plain {
                        ANSWER
                    } else if multi {
                        SMALL
                    } else {
                        h.class.unwrap_or(SMALL)
                    };
                    row.output = base * times;
                }
                Kind::System | Kind::Accumulated => {}
            }
            rows.push(row);
        }
    }

    // Each step's output is carried into the following requests' input:
    // the seed counts it once, as input.
    if steps.len() > 5 {
        let ops: Vec<&Row> = rows.iter().filter(|r| r.kind != Kind::System).collect();
        let carried: u64 = ops
            .iter()
            .take(ops.len().saturating_sub(1))
            .map(|r| r.output)
            .sum();
        rows.push(Row {
            id: "—".into(),
            label: String::new(),
            kind: Kind::Accumulated,
            input: carried,
            output: 0,
            basis: Basis::Class,
            files: Files::default(),
            read_all: false,
            regenerates: false,
            text: String::new(),
        });
    }

    let input: u64 = rows.iter().map(|r| r.input).sum();
    let output: u64 = rows.iter().map(|r| r.output).sum();
    let units = input + OUTPUT_WEIGHT * output;
    let cached_units =
        units - system_tokens + (system_tokens as f64 * CACHE_READ_FACTOR).round() as u64;
    Estimate {
        rows,
        steps: steps.len(),
        input,
        output,
        units,
        cached_units,
        system_tokens,
        example_based,
        examples,
        blocks: fenced_blocks(&skill.text),
        claude_md,
    }
}

fn basis_of(h: &Hints) -> Basis {
    if h.tokens.is_some() {
        Basis::Hint
    } else {
        Basis::Class
    }
}

fn same_file(t: &Target, p: &Path) -> bool {
    matches!(t, Target::File(f, _) if f == p)
}

/// Commands whose output is nothing (`mv`, `mkdir`, …) cost no input.
fn step_is_quiet(text: &str) -> bool {
    let quiet = ["mv ", "mkdir ", "chmod ", "rm ", "cp ", "touch "];
    let cmds: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            let first = l.split_whitespace().next().unwrap_or("");
            [
                "mv", "mkdir", "chmod", "rm", "cp", "touch", "git", "python3", "python", "wc",
                "cairn", "bash", "sh",
            ]
            .contains(&first)
        })
        .collect();
    !cmds.is_empty() && cmds.iter().all(|l| quiet.iter().any(|q| l.starts_with(q)))
}

fn measure(cfg: &AuditConfig, targets: &[Target]) -> Files {
    let mut f = Files::default();
    for t in targets {
        match t {
            Target::File(p, len) => {
                f.count += 1;
                f.bytes += len;
                f.tokens += tokens(cfg, content_of(p), *len);
            }
            Target::Family(folder, files, _) => {
                f.folder.get_or_insert_with(|| folder.clone());
                // One content class for the family, from its first file.
                let c = files
                    .first()
                    .map_or(Content::Markdown, |(p, _)| content_of(p));
                for (_, len) in files {
                    f.count += 1;
                    f.bytes += len;
                }
                f.tokens += tokens(cfg, c, files.iter().map(|(_, l)| l).sum());
            }
        }
    }
    f
}

/// Every file or folder the skill's text points at that exists: (as
/// written, files, bytes).
pub fn referenced(root: &Path, skill: &Skill) -> Vec<(String, u64, u64)> {
    let dir = skill.found.dir().to_path_buf();
    let mut out: Vec<(String, u64, u64)> = Vec::new();
    for r in references(skill.body()) {
        if out.len() >= 200 {
            break;
        }
        match resolve(root, &dir, &r) {
            Some(Target::File(p, len)) if p != skill.found.path => out.push((r, 1, len)),
            Some(Target::Family(_, files, _)) => {
                out.push((r, files.len() as u64, files.iter().map(|(_, l)| l).sum()))
            }
            _ => {}
        }
    }
    out
}

/// Fenced blocks of the SKILL.md with their first line (1-based) and size.
pub fn fenced_blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, u64)> = None;
    for (i, l) in text.lines().enumerate() {
        if l.trim_start().starts_with("```") {
            match open.take() {
                Some((line, bytes)) => out.push(Block { line, bytes }),
                None => open = Some((i + 1, 0)),
            }
        } else if let Some((_, b)) = open.as_mut() {
            *b += l.len() as u64 + 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_ids_from_headings() {
        assert_eq!(step_id("Étape 3 — Mesurer").as_deref(), Some("3"));
        assert_eq!(step_id("Phase 5b - fiches").as_deref(), Some("5b"));
        assert_eq!(step_id("3bis-c. update").as_deref(), Some("3bis-c"));
        assert_eq!(step_id("5.1 Déléguer").as_deref(), Some("5.1"));
        assert_eq!(step_id("Entrée"), None);
        assert_eq!(step_id("Step two"), None);
    }

    #[test]
    fn kinds_follow_tools_and_verbs() {
        assert_eq!(kinds_of("Lire `a.md` avec Read"), [Kind::Read]);
        assert_eq!(kinds_of("Run `python3 x.py`"), [Kind::Bash]);
        assert_eq!(kinds_of("Écrire le rapport"), [Kind::Write]);
        assert_eq!(
            kinds_of("Demander à l'utilisateur avec AskUserQuestion"),
            [Kind::Ask]
        );
        assert_eq!(kinds_of("WebFetch de la page"), [Kind::WebFetch]);
        assert_eq!(
            kinds_of("Lancer un sous-agent Agent"),
            [Kind::Bash, Kind::Agent]
        );
        assert_eq!(kinds_of("Réfléchir."), [Kind::Reasoning]);
        assert!(kinds_of("Répondre « Bonjour ».").is_empty());
    }

    #[test]
    fn hints_read_figures_and_repetitions() {
        let h = hints("Lire les documents (×5, avg 5 000 tok)");
        assert_eq!((h.tokens, h.times), (Some(5000), Some(5)));
        assert_eq!(hints("environ 12 Ko").tokens, Some(3072));
        assert_eq!(hints("un gros fichier").class, Some(LARGE));
        assert_eq!(hints("2k tokens").tokens, Some(2000));
        assert_eq!(hints("étape 3 sur 5").tokens, None);
    }

    #[test]
    fn references_are_code_spans_and_links() {
        let r =
            references("Lire `notes/a.md` puis [doc](docs/x.md#top), `git status`, `v1.2`, `x`");
        assert_eq!(r, ["notes/a.md", "v1.2", "docs/x.md"]);
    }

    #[test]
    fn prose_and_markdown_are_told_apart() {
        assert_eq!(
            classify_text("Une phrase.\nUne autre phrase.\n"),
            Content::Prose
        );
        assert_eq!(
            classify_text("| a | b |\n| 1 | 2 |\ntext\n"),
            Content::Markdown
        );
    }
}
