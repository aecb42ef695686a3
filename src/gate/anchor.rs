//! Anchors: the concrete artefacts a prompt can name.
//!
//! A path, a file name with a known extension, a 7–40 hex commit, a
//! `file:line`, a URL, a backticked identifier or a fenced code block, an
//! issue number (`#123`, `GH-123`, `PROJ-42`, "issue 42"), plus a few
//! code-shaped words (`parse_date`, `Config::load`, `run()`, `--json`,
//! `HEAD~2`, `v1.4.2`) that name an artefact as surely as backticks do.
//!
//! `scan` finds them without regexes (a whitespace split and byte tests are
//! enough, and cost nothing to set up) and returns the prompt *masked*:
//! every anchor and code span replaced byte for byte by `\u{1}`, so the
//! phrase matcher neither reads "previous" inside `src/previous/fix.rs` nor
//! loses the offsets of what it quotes.

use super::text::OPAQUE;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AnchorKind {
    Url,
    Path,
    File,
    FileLine,
    Commit,
    Issue,
    Backticked,
    CodeBlock,
    CodeShaped,
    /// A paragraph the user pasted (a log, a trace, a diff): see
    /// `capture::clean::paragraphs`.
    Paste,
    /// `@src/x.rs`, `@README.md`: the client's file mention.
    Mention,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Anchor {
    pub kind: AnchorKind,
    pub start: usize,
    pub end: usize,
}

pub(crate) struct Scan {
    pub masked: String,
    pub anchors: Vec<Anchor>,
}

/// Extensions that make `name.ext` a file. A list, not "any letters": "e.g.",
/// "Node.js"-style names and domains must not anchor a prompt.
#[rustfmt::skip]
const EXTENSIONS: &[&str] = &[
    "adoc", "asm", "astro", "avro", "babelrc", "bak", "bash", "bat", "bazel", "bib", "bz2", "bzl",
    "c", "cabal", "cc", "cfg", "cjs", "clj", "cljs", "cmake", "cmd", "conf", "cpp", "crt", "cs",
    "csproj", "css", "csv", "cts", "cu", "cue", "cuh", "cxx", "d", "dart", "db", "diff", "dist",
    "dll", "dockerignore", "dylib", "editorconfig", "edn", "ejs", "elm", "env", "erb", "erl",
    "eslintrc", "ex", "example", "exe", "exs", "feature", "fish", "fs", "fsproj", "gemspec", "gif",
    "gitignore", "glsl", "go", "gql", "gradle", "graphql", "groovy", "gz", "h", "haml", "hbs",
    "hcl", "hh", "hlsl", "hpp", "hrl", "hs", "htm", "html", "http", "hxx", "ico", "ini", "ipynb",
    "j2", "jar", "java", "jinja", "jinja2", "jl", "jpeg", "jpg", "js", "json", "json5", "jsonl",
    "jsx", "kdl", "kt", "kts", "less", "liquid", "ll", "local", "lock", "log", "lua", "m",
    "markdown", "md", "mdx", "metal", "mjs", "mk", "ml", "mli", "mm", "mod", "mp3", "mp4", "mts",
    "mustache", "nim", "nix", "npmrc", "nvmrc", "org", "orig", "parquet", "patch", "pbxproj",
    "pdf", "pem", "php", "pl", "plist", "pm", "png", "po", "podspec", "pot", "prettierrc",
    "properties", "props", "proto", "ps1", "pug", "py", "pyi", "r", "rb", "rego", "ron", "rs",
    "rst", "s", "sample", "sass", "scala", "scss", "service", "sh", "sln", "snap", "so", "sol",
    "sql", "sqlite", "star", "styl", "sum", "sv", "svelte", "svg", "swift", "tar", "targets",
    "template", "tex", "tf", "tfvars", "tgz", "thrift", "tmpl", "toml", "tpl", "ts", "tsv", "tsx",
    "ttf", "txt", "v", "vb", "vcxproj", "vhd", "vue", "wasm", "wat", "wav", "webp", "wgsl", "woff",
    "woff2", "xml", "xz", "yaml", "yml", "zig", "zip", "zsh",
];

/// "Node.js" and friends are products, not files in this repository.
#[rustfmt::skip]
const PRODUCT_NAMES: &[&str] = &[
    "alpine.js", "angular.js", "backbone.js", "bun.sh", "chart.js", "d3.js", "day.js", "deno.js",
    "ember.js", "express.js", "moment.js", "nest.js", "next.js", "node.js", "nuxt.js", "p5.js",
    "react.js", "socket.io", "solid.js", "svelte.js", "three.js", "vite.js", "vue.js",
];

/// Files known by their bare name.
#[rustfmt::skip]
const BARE_FILES: &[&str] = &[
    "brewfile", "cargo.lock", "changelog", "codeowners", "containerfile", "dockerfile", "gemfile",
    "jenkinsfile", "justfile", "makefile", "pipfile", "procfile", "rakefile", "readme",
    "vagrantfile",
];

/// `a/b` pairs that are prose, not paths.
#[rustfmt::skip]
const SLASH_PROSE: &[&str] = &[
    "a/b", "and/", "and/or", "avant/apres", "avant/après", "b/c", "before/after", "c/o", "ci/cd",
    "client/server", "debug/release", "dev/prod", "either/or", "entrée/sortie", "et/ou",
    "front/back", "frontend/backend", "gb/s", "get/post", "get/set", "he/she", "here/there",
    "him/her", "his/her", "i/o", "il/elle", "input/output", "kb/s", "km/h", "lecture/écriture",
    "left/right", "m/s", "mb/s", "min/max", "n/a", "on/off", "open/close", "ops/s", "or/",
    "oui/non", "per/", "pros/cons", "q/a", "read/write", "req/s", "rx/tx", "s/he", "staging/prod",
    "start/stop", "tcp/ip", "this/that", "true/false", "ui/ux", "up/down", "ux/ui", "w/", "w/o",
    "x/y", "y/n", "yes/no",
];

/// Jira-style keys that are standards, not tickets.
#[rustfmt::skip]
const NOT_ISSUE_KEYS: &[&str] = &[
    "A", "AES", "B", "C", "CET", "COVID", "CP", "CVE", "ECMA", "EN", "ES", "EST", "F", "FR", "GMT",
    "GPT", "H", "HTTP", "IEEE", "IPV", "ISO", "K", "L", "MD", "MP", "N", "P", "PEP", "PST", "R",
    "RFC", "RSA", "SHA", "SSL", "TLS", "TOP", "U", "UT", "UTC", "UTF", "V", "WIN", "X",
];

#[rustfmt::skip]
const ISSUE_WORDS: &[&str] = &[
    "#", "bug", "card", "gh", "incident", "issue", "issues", "jira", "linear", "mr", "pr",
    "problème", "pull", "request", "story", "tache", "task", "ticket", "tickets", "tâche",
];

#[cfg(test)]
pub(crate) fn scan(prompt: &str) -> Scan {
    scan_with(prompt, &[])
}

/// Masks `pastes` (byte ranges), code spans and anchors. Control characters
/// other than newline and tab become blanks first, so a `\u{1}` in the
/// prompt cannot fake a mask.
pub(crate) fn scan_with(prompt: &str, pastes: &[(usize, usize)]) -> Scan {
    let mut bytes: Vec<u8> = prompt
        .bytes()
        .map(|b| {
            if (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f {
                b' '
            } else {
                b
            }
        })
        .collect();
    let mut anchors = Vec::new();
    for &(start, end) in pastes {
        let end = end.min(bytes.len());
        if start < end && prompt.is_char_boundary(start) && prompt.is_char_boundary(end) {
            anchors.push(Anchor {
                kind: AnchorKind::Paste,
                start,
                end,
            });
            fill(&mut bytes, start, end);
        }
    }
    mask_code(&mut bytes, &mut anchors);
    // Blanking ASCII bytes and masking whole characters keep UTF-8 valid.
    let code_masked = String::from_utf8(bytes).unwrap_or_default();
    let mut bytes = code_masked.clone().into_bytes();
    let mut prev: Option<&str> = None;
    for (start, chunk) in chunks(&code_masked) {
        let (off, word) = trim_chunk(chunk);
        if word.is_empty() || word.contains(OPAQUE) {
            prev = Some(word);
            continue;
        }
        if let Some(kind) = classify(word, prev) {
            let s = start + off;
            let e = s + word.len();
            anchors.push(Anchor {
                kind,
                start: s,
                end: e,
            });
            fill(&mut bytes, s, e);
        }
        prev = Some(word);
    }
    anchors.sort_by_key(|a| a.start);
    Scan {
        masked: String::from_utf8(bytes).unwrap_or_default(),
        anchors,
    }
}

fn fill(bytes: &mut [u8], start: usize, end: usize) {
    for b in &mut bytes[start..end] {
        if *b != b'\n' {
            *b = OPAQUE as u8;
        }
    }
}

/// Fenced blocks (``` or ~~~ at a line start, up to the closing fence or the
/// end) and inline backtick spans.
fn mask_code(bytes: &mut [u8], anchors: &mut Vec<Anchor>) {
    let n = bytes.len();
    let mut i = 0;
    let mut line_start = true;
    while i < n {
        if line_start {
            let mut j = i;
            while j < n && j - i < 4 && bytes[j] == b' ' {
                j += 1;
            }
            if let Some(fence) = fence_at(bytes, j) {
                let close = find_closing_fence(bytes, j + 3, fence);
                anchors.push(Anchor {
                    kind: AnchorKind::CodeBlock,
                    start: j,
                    end: close,
                });
                fill(bytes, j, close);
                i = close;
                line_start = i > 0 && bytes.get(i - 1) == Some(&b'\n');
                continue;
            }
        }
        match bytes[i] {
            b'\n' => {
                line_start = true;
                i += 1;
            }
            b'`' => {
                let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                match find_run(bytes, i + run, run) {
                    Some(close) => {
                        let end = close + run;
                        let inner = &bytes[i + run..close];
                        if inner.iter().any(|b| !b.is_ascii_whitespace()) {
                            anchors.push(Anchor {
                                kind: AnchorKind::Backticked,
                                start: i,
                                end,
                            });
                        }
                        fill(bytes, i, end);
                        i = end;
                    }
                    None => i += run,
                }
                line_start = false;
            }
            _ => {
                line_start = false;
                i += 1;
            }
        }
    }
}

fn fence_at(bytes: &[u8], j: usize) -> Option<u8> {
    let c = *bytes.get(j)?;
    (matches!(c, b'`' | b'~') && bytes.get(j + 1) == Some(&c) && bytes.get(j + 2) == Some(&c))
        .then_some(c)
}

/// End of the closing fence line, or the end of the text.
fn find_closing_fence(bytes: &[u8], from: usize, fence: u8) -> usize {
    let n = bytes.len();
    // Skip the rest of the opening line (the info string).
    let mut i = memchr::memchr(b'\n', &bytes[from.min(n)..]).map_or(n, |p| from + p + 1);
    while i < n {
        let mut j = i;
        while j < n && j - i < 4 && bytes[j] == b' ' {
            j += 1;
        }
        if fence_at(bytes, j) == Some(fence) {
            let end = memchr::memchr(b'\n', &bytes[j..]).map_or(n, |p| j + p);
            return end;
        }
        i = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |p| i + p + 1);
    }
    n
}

/// A closing run of exactly `run` backticks, within a bounded distance: an
/// unmatched backtick must not swallow the rest of a long prompt.
fn find_run(bytes: &[u8], from: usize, run: usize) -> Option<usize> {
    let limit = (from + 2000).min(bytes.len());
    let mut i = from;
    while i < limit {
        let p = memchr::memchr(b'`', &bytes[i..limit])? + i;
        let len = bytes[p..].iter().take_while(|&&b| b == b'`').count();
        if len == run {
            return Some(p);
        }
        i = p + len;
    }
    None
}

/// Whitespace-separated chunks with their byte offsets.
fn chunks(s: &str) -> impl Iterator<Item = (usize, &str)> {
    s.split(|c: char| c.is_whitespace())
        .scan(0usize, |pos, part| {
            let start = *pos;
            // Every separator is one whitespace char; find its width.
            let next = start + part.len();
            let sep = s[next..].chars().next().map_or(0, char::len_utf8);
            *pos = next + sep;
            Some((start, part))
        })
        .filter(|(_, p)| !p.is_empty())
}

/// Strips the punctuation around a word: `(src/x.rs),` → `src/x.rs`.
fn trim_chunk(chunk: &str) -> (usize, &str) {
    let lead = |c: char| {
        matches!(
            c,
            '(' | '[' | '{' | '<' | '"' | '\'' | '«' | '“' | '‘' | '*'
        )
    };
    let trail = |c: char| {
        matches!(
            c,
            ')' | ']'
                | '}'
                | '>'
                | '"'
                | '\''
                | '»'
                | '”'
                | '’'
                | ','
                | ';'
                | '!'
                | '?'
                | '.'
                | ':'
                | '*'
        )
    };
    let t = chunk.trim_start_matches(lead);
    let off = chunk.len() - t.len();
    let mut t = t.trim_end_matches(trail);
    // Keep the parentheses of a call: "run()," → "run()".
    while t.ends_with('(') && chunk[off + t.len()..].starts_with(')') {
        t = &chunk[off..off + t.len() + 1];
        t = t.trim_end_matches(|c: char| c != ')' && trail(c));
    }
    (off, t)
}

fn classify(w: &str, prev: Option<&str>) -> Option<AnchorKind> {
    // Most chunks are plain words: only a bare file name or HEAD can anchor
    // them, and that is decided without allocating.
    if w.chars().all(char::is_alphabetic) {
        let bare =
            BARE_FILES.iter().any(|b| b.eq_ignore_ascii_case(w)) || w == "LICENSE" || w == "NOTICE";
        return if bare {
            Some(AnchorKind::File)
        } else if w == "HEAD" {
            Some(AnchorKind::CodeShaped)
        } else {
            None
        };
    }
    let lower = w.to_ascii_lowercase();
    if lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("file://")
        || lower.starts_with("ssh://")
        || lower.starts_with("git@")
        || lower.starts_with("www.")
    {
        return Some(AnchorKind::Url);
    }
    if is_issue(w, prev) {
        return Some(AnchorKind::Issue);
    }
    if is_mention(w) {
        return Some(AnchorKind::Mention);
    }
    if let Some(base) = strip_line_suffix(w)
        && (is_path(base) || is_file(base))
    {
        return Some(AnchorKind::FileLine);
    }
    if is_path(w) {
        return Some(AnchorKind::Path);
    }
    if is_file(w) {
        return Some(AnchorKind::File);
    }
    if is_commit(w) {
        return Some(AnchorKind::Commit);
    }
    if is_code_shaped(w) {
        return Some(AnchorKind::CodeShaped);
    }
    None
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn is_issue(w: &str, prev: Option<&str>) -> bool {
    let digits_after_hash = |s: &str| s.strip_prefix('#').is_some_and(all_digits);
    if digits_after_hash(w) {
        return true;
    }
    // owner/repo#12, PR#12, GH#12
    if let Some(p) = w.rfind('#')
        && p > 0
        && all_digits(&w[p + 1..])
        && w[..p]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/_.-".contains(&b))
    {
        return true;
    }
    // GH-123, PROJ-42 (upper-case key, dash, number)
    if let Some((key, num)) = w.split_once('-')
        && all_digits(num)
        && key.len() >= 2
        && key.len() <= 10
        && key.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
        && key
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && !NOT_ISSUE_KEYS.contains(&key)
    {
        return true;
    }
    if is_beads_id(w) {
        return true;
    }
    // "issue 42", "ticket #42", "la PR 12", "n°42"
    let bare = w
        .trim_start_matches('#')
        .trim_start_matches("n°")
        .trim_start_matches("no.");
    all_digits(bare)
        && prev.is_some_and(|p| {
            let p = p.to_lowercase();
            ISSUE_WORDS.contains(&p.trim_end_matches(['#', ':']))
        })
}

/// A beads-style issue id: a lower-case prefix, a dash, and a short hash
/// (`spotter-gqc`, `bd-a1b2`, `bd-a1b2.3` for a child). The hash tells it
/// from a hyphenated word ("cross-browser", "re-run"): it has a letter and
/// either a digit or no vowel at all.
fn is_beads_id(w: &str) -> bool {
    let Some((prefix, id)) = w.split_once('-') else {
        return false;
    };
    let hash = id
        .split_once('.')
        .map_or(id, |(h, child)| if all_digits(child) { h } else { "" });
    let lower_alnum = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    };
    prefix.len() >= 2
        && prefix
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase())
        && lower_alnum(prefix)
        && (2..=8).contains(&hash.len())
        && lower_alnum(hash)
        && hash.bytes().any(|b| b.is_ascii_lowercase())
        && (hash.bytes().any(|b| b.is_ascii_digit())
            || !hash.bytes().any(|b| b"aeiouy".contains(&b)))
}

/// `@path`: what the client inserts when the user picks a file or folder.
fn is_mention(w: &str) -> bool {
    w.strip_prefix('@').is_some_and(|p| {
        p.len() >= 2
            && p.chars().any(char::is_alphabetic)
            && p.chars()
                .all(|c| c.is_alphanumeric() || "._-/~".contains(c))
    })
}

/// `main.rs:12`, `src/x.rs:12:5`, `x.py#L10-L20` → the file part.
fn strip_line_suffix(w: &str) -> Option<&str> {
    if let Some(p) = w.find("#L") {
        let rest = &w[p + 2..];
        if rest.bytes().next().is_some_and(|b| b.is_ascii_digit())
            && rest
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'-' || b == b'L')
        {
            return Some(&w[..p]);
        }
    }
    let mut base = w;
    let mut stripped = false;
    while let Some(p) = base.rfind(':') {
        let tail = &base[p + 1..];
        if all_digits(tail) || (stripped && tail.is_empty()) {
            base = &base[..p];
            stripped = true;
        } else if let Some((a, b)) = tail.split_once('-')
            && all_digits(a)
            && all_digits(b)
        {
            base = &base[..p];
            stripped = true;
        } else {
            break;
        }
    }
    (stripped && !base.is_empty()).then_some(base)
}

fn is_path(w: &str) -> bool {
    if w.contains('\\') {
        return is_backslash_path(w);
    }
    if !w.contains('/') || w.contains("://") {
        return false;
    }
    if w.starts_with("./") || w.starts_with("../") || w.starts_with("~/") {
        return w.len() > 2;
    }
    if SLASH_PROSE.contains(&w.to_lowercase().as_str()) {
        return false;
    }
    let segs: Vec<&str> = w
        .trim_start_matches('/')
        .trim_end_matches('/')
        .split('/')
        .collect();
    if segs.iter().any(|s| s.is_empty()) {
        return false;
    }
    let ok_char = |c: char| c.is_alphanumeric() || "._-@+~$%=,{}*".contains(c);
    if !segs.iter().all(|s| s.chars().all(ok_char)) {
        return false;
    }
    // "TCP/UDP", "React/Vue": two capitalised names are prose; paths are
    // mostly lower case, or have more segments or an extension.
    if segs.len() == 2
        && !w.contains('.')
        && segs
            .iter()
            .all(|s| s.chars().next().is_some_and(char::is_uppercase))
    {
        return false;
    }
    // Dates and fractions: 12/03/2025, 1/2, 50/50.
    if segs
        .iter()
        .all(|s| s.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    {
        return false;
    }
    // "/etc/hosts", "/tmp": absolute. "src/gate", "feature/login": relative
    // with at least one segment that is not a bare number.
    segs.iter().any(|s| s.chars().any(|c| c.is_alphabetic()))
}

fn is_backslash_path(w: &str) -> bool {
    let drive = w.len() > 3 && w.as_bytes()[1] == b':' && w.as_bytes()[2] == b'\\';
    let segs: Vec<&str> = w.split('\\').filter(|s| !s.is_empty()).collect();
    drive
        || (segs.len() >= 2
            && segs.iter().all(|s| {
                s.len() >= 2 && s.chars().all(|c| c.is_alphanumeric() || "._-".contains(c))
            }))
}

fn is_file(w: &str) -> bool {
    let lower = w.to_lowercase();
    if BARE_FILES.contains(&lower.as_str()) || w == "LICENSE" || w == "NOTICE" {
        return true;
    }
    if PRODUCT_NAMES.contains(&lower.as_str()) {
        return false;
    }
    let Some(dot) = lower.rfind('.') else {
        return false;
    };
    let (stem, ext) = (&lower[..dot], &lower[dot + 1..]);
    if !EXTENSIONS.contains(&ext) {
        return false;
    }
    let ok_char = |c: char| c.is_alphanumeric() || "._-+@".contains(c);
    if !stem.chars().all(ok_char) {
        return false;
    }
    // ".env", ".gitignore": a dot file; "x.rs": a stem with a letter or digit.
    stem.is_empty() || stem.chars().any(|c| c.is_alphanumeric())
}

/// 7–40 hex digits with at least one digit and one letter: "deadbeef" and
/// "facade" are words, "20250312" a date.
fn is_commit(w: &str) -> bool {
    (7..=40).contains(&w.len())
        && w.bytes().all(|b| b.is_ascii_hexdigit())
        && w.bytes().any(|b| b.is_ascii_digit())
        && w.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Words only code has: `parse_date`, `MAX_RETRIES`, `Config::load`,
/// `run()`, `--json`, `$HOME`, `HEAD~2`, `v1.4.2`.
fn is_code_shaped(w: &str) -> bool {
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            && s.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
    };
    if let Some(p) = w.find("::") {
        return p > 0 && w.len() > p + 2;
    }
    if let Some(call) = w.strip_suffix("()") {
        return ident(call);
    }
    if let Some(flag) = w.strip_prefix("--") {
        return flag.len() >= 2
            && flag.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            && flag
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    }
    if let Some(var) = w.strip_prefix('$') {
        return var.len() >= 2
            && var
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    }
    if w == "HEAD" || w.starts_with("HEAD~") || w.starts_with("HEAD^") || w.starts_with("HEAD@") {
        return true;
    }
    if let Some(v) = w.strip_prefix('v').or_else(|| w.strip_prefix('V'))
        && v.contains('.')
        && v.split('.').all(all_digits)
    {
        return true;
    }
    // snake_case / SCREAMING_CASE: an underscore between two letters or
    // digits (not markdown emphasis like _this_).
    let b = w.as_bytes();
    ident(w)
        && !w.contains('.')
        && (1..b.len().saturating_sub(1)).any(|i| {
            b[i] == b'_' && b[i - 1].is_ascii_alphanumeric() && b[i + 1].is_ascii_alphanumeric()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(prompt: &str) -> Vec<(AnchorKind, String)> {
        scan(prompt)
            .anchors
            .into_iter()
            .map(|a| (a.kind, prompt[a.start..a.end].to_string()))
            .collect()
    }

    fn one(prompt: &str) -> Option<AnchorKind> {
        let k = kinds(prompt);
        assert!(k.len() <= 1, "{prompt}: {k:?}");
        k.first().map(|x| x.0)
    }

    #[test]
    fn paths() {
        for p in [
            "look at src/x.rs",
            "open ./a/b",
            "see /etc/hosts",
            "in ../lib",
            "edit ~/notes",
            "the src/gate module",
            "on feature/login",
            "see C:\\Users\\me",
            "in src\\main\\app",
        ] {
            assert!(
                matches!(one(p), Some(AnchorKind::Path | AnchorKind::File)),
                "{p}"
            );
        }
        for p in [
            "read and/or write",
            "input/output",
            "TCP/UDP",
            "React/Vue",
            "the 12/03/2025 build",
            "50/50",
            "yes/no",
            "use \\d+ here",
        ] {
            assert_eq!(one(p), None, "{p}");
        }
    }

    #[test]
    fn files_with_extensions_and_bare_names() {
        for p in [
            "fix main.rs",
            "update README.md.",
            "the .env file",
            "(Cargo.toml)",
            "edit the Makefile",
            "the README",
            "__init__.py",
        ] {
            assert!(matches!(one(p), Some(AnchorKind::File)), "{p}");
        }
        for p in [
            "e.g. this",
            "migrate to Node.js",
            "see example.com",
            "v1.2 of it",
            "done.Then",
        ] {
            assert!(!matches!(one(p), Some(AnchorKind::File)), "{p}");
        }
    }

    #[test]
    fn file_line_forms() {
        for p in [
            "main.rs:12",
            "src/x.rs:12:5",
            "at x.py#L10-L20",
            "lib.rs:3-9,",
        ] {
            assert_eq!(one(p), Some(AnchorKind::FileLine), "{p}");
        }
    }

    #[test]
    fn commits_urls_issues() {
        assert_eq!(one("revert a1b2c3d"), Some(AnchorKind::Commit));
        assert_eq!(
            one("revert 3f9e2b1c0d4a5e6f7a8b9c0d1e2f3a4b5c6d7e8f"),
            Some(AnchorKind::Commit)
        );
        assert_eq!(one("a decade facade"), None);
        assert_eq!(one("on 20250312"), None);
        assert_eq!(one("see https://example.com/x?y=1"), Some(AnchorKind::Url));
        assert_eq!(one("see www.example.com"), Some(AnchorKind::Url));
        for p in [
            "fix #123",
            "fix GH-123",
            "see PROJ-42",
            "issue 42",
            "ticket #7",
            "the PR 12",
            "org/repo#3",
        ] {
            assert_eq!(one(p), Some(AnchorKind::Issue), "{p}");
        }
        for p in ["implement spotter-gqc", "close bd-a1b2", "see bd-a1b2.3"] {
            assert_eq!(one(p), Some(AnchorKind::Issue), "{p}");
        }
        for p in [
            "UTF-8 text",
            "SHA-256 sums",
            "issue of 42 people",
            "make it cross-browser",
            "a re-run",
            "the follow-up",
            "x86-64 builds",
        ] {
            assert_eq!(one(p), None, "{p}");
        }
    }

    #[test]
    fn code_spans_and_code_shaped_words() {
        assert_eq!(one("fix `parse_date` now"), Some(AnchorKind::Backticked));
        assert_eq!(one("an empty `` ` `` span"), Some(AnchorKind::Backticked));
        assert_eq!(one("nothing ` unmatched"), None);
        assert_eq!(
            one("here:\n```rust\nfn x() {}\n```\nthanks"),
            Some(AnchorKind::CodeBlock)
        );
        assert_eq!(one("unclosed\n~~~\nstuff"), Some(AnchorKind::CodeBlock));
        for p in [
            "fix parse_date",
            "Config::load",
            "call run()",
            "add --json",
            "$HOME",
            "reset HEAD~2",
            "tag v1.4.2",
            "MAX_RETRIES",
        ] {
            assert_eq!(one(p), Some(AnchorKind::CodeShaped), "{p}");
        }
        for p in ["_this_ matters", "a re-run", "HEADER"] {
            assert_eq!(one(p), None, "{p}");
        }
    }

    #[test]
    fn mentions_and_pastes() {
        assert_eq!(one("reuse @src/nav.html"), Some(AnchorKind::Mention));
        assert_eq!(one("see @Makefile"), Some(AnchorKind::Mention));
        assert_eq!(one("see @docs"), Some(AnchorKind::Mention));
        assert_eq!(one("mail me @ noon"), None);
        let p = "same error:\n\n01:12 the old fix failed\n01:13 x";
        let s = scan_with(p, &[(13, p.len())]);
        assert_eq!(s.anchors[0].kind, AnchorKind::Paste);
        assert!(!s.masked.contains("old fix"));
        assert!(s.masked.starts_with("same error:"));
    }

    #[test]
    fn masking_keeps_offsets_and_newlines() {
        let s = scan("fix src/x.rs then\n```\na\n```\nok");
        assert_eq!(s.masked.len(), "fix src/x.rs then\n```\na\n```\nok".len());
        assert_eq!(
            s.masked,
            "fix \u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1} then\n\u{1}\u{1}\u{1}\n\u{1}\n\u{1}\u{1}\u{1}\nok"
        );
    }

    #[test]
    fn control_characters_cannot_fake_a_mask() {
        let s = scan("a\u{1}b\u{0}c");
        assert_eq!(s.masked, "a b c");
        assert!(s.anchors.is_empty());
    }
}
