//! The page as an outline a reviewer can read in a snapshot: the tabs and
//! their badges, every heading and summary, each bullet's HTML as written
//! (so escaping shows), tables by row count, charts by what they draw. The
//! whole HTML would be a snapshot nobody reads; this one changes when the
//! structure does.

use regex::Regex;
use std::sync::LazyLock;

static TAGS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<[^>]*>").unwrap());
static TH: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<th[^>]*>([^<]*)</th>").unwrap());

/// Elements whose text becomes one outline line when they close.
const HEADINGS: &[&str] = &["h1", "h2", "h3", "h4", "h5", "summary", "button"];
/// Markdown blocks and list items shown per `.md` document, at most.
const MD_BLOCKS: usize = 6;
/// Characters of an item's HTML kept on its line.
const WIDTH: usize = 110;

struct Open {
    tag: String,
    attrs: String,
    /// Where its inner HTML starts in the page.
    start: usize,
    /// Outline lines it indents.
    indents: bool,
}

fn attr<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("{name}=\"");
    let i = attrs.find(&key)? + key.len();
    attrs[i..].find('"').map(|j| &attrs[i..i + j])
}

fn class_has(attrs: &str, c: &str) -> bool {
    attr(attrs, "class").is_some_and(|v| v.split(' ').any(|x| x == c))
}

fn text_of(html: &str) -> String {
    let t = TAGS.replace_all(html, "");
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cut(s: &str) -> String {
    match s.char_indices().nth(WIDTH) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// `html` with `root` written as `[ROOT]`.
pub fn outline(html: &str, root: &str) -> String {
    let html = html.replace(root, "[ROOT]");
    let tok = Regex::new(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>").unwrap();
    let nonce = Regex::new(r"nonce-[0-9a-f]+").unwrap();
    let mut out = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut md_blocks = 0usize;
    let mut md_more = 0usize;
    let depth = |stack: &[Open]| stack.iter().filter(|o| o.indents).count();
    let line =
        |out: &mut Vec<String>, d: usize, s: String| out.push(format!("{}{s}", "  ".repeat(d)));
    for m in tok.captures_iter(&html) {
        let whole = m.get(0).unwrap();
        let (close, tag, attrs) = (&m[1] == "/", m[2].to_ascii_lowercase(), m[3].to_string());
        if tag == "meta" {
            if attr(&attrs, "http-equiv") == Some("Content-Security-Policy") {
                let csp = attr(&attrs, "content").unwrap_or("");
                out.push(format!("csp: {}", nonce.replace_all(csp, "nonce-[N]")));
            }
            continue;
        }
        if tag == "base" {
            out.push(format!("base: {}", attr(&attrs, "href").unwrap_or("")));
            continue;
        }
        if !close {
            if matches!(
                tag.as_str(),
                "br" | "hr" | "img" | "input" | "line" | "rect" | "circle" | "path" | "polyline"
            ) || attrs.ends_with('/')
            {
                continue;
            }
            let d = depth(&stack);
            let mut indents = false;
            if tag == "section" {
                line(
                    &mut out,
                    d,
                    format!("panel {}", attr(&attrs, "id").unwrap_or("?")),
                );
                indents = true;
            } else if tag == "details"
                || (tag == "li" && class_has(&attrs, "day") && !class_has(&attrs, "short"))
            {
                indents = true;
            } else if tag == "div" && class_has(&attrs, "md") {
                line(&mut out, d, "markdown:".into());
                indents = true;
                md_blocks = 0;
                md_more = 0;
            } else if tag == "script" {
                let kind = attr(&attrs, "type").unwrap_or("code");
                let nonced = attr(&attrs, "nonce").is_some();
                line(
                    &mut out,
                    d,
                    format!(
                        "script {kind}{}",
                        if nonced { " (nonce)" } else { " (NO NONCE)" }
                    ),
                );
            }
            stack.push(Open {
                tag,
                attrs,
                start: whole.end(),
                indents,
            });
            continue;
        }
        // A closing tag: find its element (HTML here is well nested).
        let Some(pos) = stack.iter().rposition(|o| o.tag == tag) else {
            continue;
        };
        let open = stack.remove(pos);
        stack.truncate(pos);
        let inner = &html[open.start..whole.start()];
        let d = depth(&stack);
        let in_md = stack
            .iter()
            .any(|o| o.tag == "div" && class_has(&o.attrs, "md"));
        let in_day_list = stack.iter().any(|o| o.tag == "ul")
            && stack.iter().any(|o| {
                o.tag == "li" && class_has(&o.attrs, "day")
                    || o.tag == "ul" && class_has(&o.attrs, "todos")
            });
        match tag.as_str() {
            "title" if !stack.iter().any(|o| o.tag == "svg") => {
                out.insert(0, format!("title: {}", text_of(inner)))
            }
            t if HEADINGS.contains(&t) => {
                if t == "button" && attr(&open.attrs, "role") != Some("tab") {
                    line(&mut out, d, format!("button {}", text_of(inner)));
                } else {
                    let label = if t == "button" { "tab" } else { t };
                    line(&mut out, d, format!("{label} {}", text_of(inner)));
                }
            }
            "div" if class_has(&open.attrs, "md") && md_more > 0 => {
                line(&mut out, d + 1, format!("… {md_more} more blocks"));
            }
            "p" | "li" | "tr" | "pre" if in_md => {
                // Blocks directly inside the document (a list item or a row
                // counts as one block; what they hold is in their text).
                let nested = stack
                    .iter()
                    .rev()
                    .take_while(|o| !(o.tag == "div" && class_has(&o.attrs, "md")))
                    .any(|o| matches!(o.tag.as_str(), "li" | "tr" | "p"));
                if !nested {
                    if md_blocks < MD_BLOCKS {
                        line(&mut out, d, format!("{tag}: {}", cut(inner.trim())));
                    } else {
                        md_more += 1;
                    }
                    md_blocks += 1;
                }
            }
            "li" if in_day_list => line(&mut out, d, format!("- {}", cut(inner.trim()))),
            "li" if class_has(&open.attrs, "short") => {
                line(&mut out, d, format!("day (listed) {}", text_of(inner)))
            }
            "table" if !in_md => {
                let cols: Vec<String> = TH.captures_iter(inner).map(|c| c[1].to_string()).collect();
                let rows = inner.matches("<tr").count().saturating_sub(1);
                line(
                    &mut out,
                    d,
                    format!("table [{}]: {rows} rows", cols.join(" | ")),
                );
            }
            "svg" => {
                let label = attr(&open.attrs, "aria-label").unwrap_or("");
                let count = |s: &str| inner.matches(s).count();
                line(
                    &mut out,
                    d,
                    format!(
                        "chart \"{label}\": {} bars, {} lines, {} rules, {} marks, {} titles",
                        count("<rect"),
                        count("<polyline"),
                        count("class=\"rule"),
                        count("<circle"),
                        count("<title>"),
                    ),
                );
            }
            "p" if class_has(&open.attrs, "warning")
                || class_has(&open.attrs, "muted")
                || class_has(&open.attrs, "lead") =>
            {
                let t = text_of(inner);
                if !t.is_empty() {
                    line(&mut out, d, format!("p: {}", cut(&t)));
                }
            }
            _ => {}
        }
    }
    out.join("\n") + "\n"
}
