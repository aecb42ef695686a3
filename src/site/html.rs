//! Escaping and Markdown for the page. Memory text is written by a model
//! from whatever a session saw, so every string is hostile: nothing reaches
//! the page unescaped, raw HTML in Markdown becomes text, and a link can
//! only point somewhere a click cannot run code or fetch anything on load.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// Text for an element's content or a quoted attribute value.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON inside `<script type="application/json">`: `</script>` or `<!--`
/// in a bullet would end the element early, so `<` never appears raw.
pub fn json_for_script(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|_| "null".into())
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// Schemes a link may use. Anything else (`javascript:`, `data:`,
/// `vbscript:`) becomes an inert `#`.
fn safe_url(url: &str) -> bool {
    // Browsers ignore tabs, newlines and leading control characters inside
    // a scheme (`java\tscript:`), so they are dropped before looking.
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_control() && !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    match cleaned.find(':') {
        None => true,
        Some(colon) => {
            let before = &cleaned[..colon];
            // `a/b:c` or `?x=y:z` is a relative path, not a scheme.
            before.contains(['/', '?', '#'])
                || ["http", "https", "mailto", "file"].contains(&before)
        }
    }
}

fn safe_event(ev: Event<'_>) -> Option<Event<'_>> {
    match ev {
        Event::Html(h) | Event::InlineHtml(h) => Some(Event::Text(h)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let dest_url = if safe_url(&dest_url) {
                dest_url
            } else {
                CowStr::Borrowed("#")
            };
            Some(Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }))
        }
        // An image would be fetched when the page opens: only its alt text
        // stays (the events between start and end).
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        other => Some(other),
    }
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
}

/// A YAML header (`---` … `---`, an audit report's) as a small table of
/// its `key: value` lines, every cell escaped. Without this the header
/// would read as a paragraph turned into a heading by its closing `---`.
fn metadata_table(yaml: &str) -> String {
    let mut out = String::from("<table class=\"meta\"><tbody>");
    for l in yaml.lines().filter(|l| !l.trim().is_empty()) {
        let (k, v) = l.split_once(':').unwrap_or((l, ""));
        out.push_str(&format!(
            "<tr><th>{}</th><td>{}</td></tr>",
            esc(k.trim()),
            esc(v.trim())
        ));
    }
    out.push_str("</tbody></table>\n");
    out
}

/// A Markdown document (an audit report).
pub fn markdown(src: &str) -> String {
    render(src, None)
}

/// A memory document (long memory, a checkpoint) whose list items each end
/// with a link to their line in `rel`, like the timeline's bullets: the
/// Memory tab promises every bullet leads back to where it is written.
pub fn markdown_with_lines(src: &str, rel: &str) -> String {
    render(src, Some(rel))
}

/// The `:N` link after an item's own text: before its nested list or the
/// end of its first paragraph, so it sits on the item's line.
fn line_link(rel: &str, line: usize) -> Event<'static> {
    Event::InlineHtml(format!(" <a class=\"ln\" href=\"{}#L{line}\">:{line}</a>", esc(rel)).into())
}

fn render(src: &str, lines_of: Option<&str>) -> String {
    let mut out = String::with_capacity(src.len() * 3 / 2);
    let mut meta: Option<String> = None;
    // Line starts, to turn an item's byte offset into its 1-based line.
    let starts: Vec<usize> = if lines_of.is_some() {
        std::iter::once(0)
            .chain(src.match_indices('\n').map(|(i, _)| i + 1))
            .collect()
    } else {
        Vec::new()
    };
    // Per open item, innermost last: the line still to be linked.
    let mut items: Vec<Option<usize>> = Vec::new();
    let linked = Parser::new_ext(src, options())
        .into_offset_iter()
        .flat_map(|(ev, range)| {
            let mut pending = None;
            if let Some(rel) = lines_of {
                match &ev {
                    Event::Start(Tag::Item) => {
                        items.push(Some(starts.partition_point(|&s| s <= range.start)));
                    }
                    Event::Start(Tag::List(_)) | Event::End(TagEnd::Paragraph) => {
                        if let Some(line) = items.last_mut().and_then(Option::take) {
                            pending = Some(line_link(rel, line));
                        }
                    }
                    Event::End(TagEnd::Item) => {
                        if let Some(line) = items.pop().flatten() {
                            pending = Some(line_link(rel, line));
                        }
                    }
                    _ => {}
                }
            }
            pending.into_iter().chain(safe_event(ev))
        });
    let events = linked.filter_map(|ev| match ev {
        Event::Start(Tag::MetadataBlock(_)) => {
            meta = Some(String::new());
            None
        }
        Event::End(TagEnd::MetadataBlock(_)) => {
            meta.take().map(|m| Event::Html(metadata_table(&m).into()))
        }
        Event::Text(t) if meta.is_some() => {
            meta.as_mut().expect("checked").push_str(&t);
            None
        }
        other => Some(other),
    });
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

/// One bullet's text: inline Markdown only, without the paragraph around it.
pub fn inline(src: &str) -> String {
    // Only text that looks like Markdown pays for the parser: most bullets
    // are plain sentences, and three years of them are tens of thousands.
    if !src.contains(['*', '_', '`', '[', '<', '&', '~', '\\', '#', '!']) && !starts_like_block(src)
    {
        return esc(src);
    }
    let html = markdown(&inline_only(src));
    let t = html.trim_end();
    match t.strip_prefix("<p>").and_then(|r| r.strip_suffix("</p>")) {
        Some(inner) if !inner.contains("<p>") => inner.to_string(),
        _ => t.to_string(),
    }
}

/// A bullet starting like `1. x`, `> x`, `# x` or `---` would parse as a block.
fn starts_like_block(s: &str) -> bool {
    let s = s.trim_start();
    s.starts_with(['>', '-', '+', '=', '|', '#', '*'])
        || s.bytes().next().is_some_and(|b| b.is_ascii_digit())
}

/// The bullet's text with a leading block marker escaped, so it stays the
/// characters the log holds instead of becoming a list or a heading.
fn inline_only(src: &str) -> String {
    let t = src.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && t[digits..].starts_with(['.', ')']) {
        format!("{}\\{}", &t[..digits], &t[digits..])
    } else if t.starts_with(['>', '-', '+', '=', '|', '#', '*']) {
        format!("\\{t}")
    } else {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_every_special_character() {
        assert_eq!(
            esc(r#"<a href="x" onerror='y'>&"#),
            "&lt;a href=&quot;x&quot; onerror=&#39;y&#39;&gt;&amp;"
        );
    }

    #[test]
    fn raw_html_in_markdown_is_text() {
        let h = markdown("hi <script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n");
        assert!(!h.contains("<script"), "{h}");
        assert!(!h.contains("<img"), "{h}");
        assert!(h.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{h}");
        assert!(h.contains("&lt;img src=x onerror=alert(2)&gt;"), "{h}");
    }

    #[test]
    fn bullets_keep_inline_markup_and_lose_html() {
        assert_eq!(
            inline("run `cargo test` **now**"),
            "run <code>cargo test</code> <strong>now</strong>"
        );
        assert_eq!(
            inline("<b onmouseover=x>hi</b>"),
            "&lt;b onmouseover=x&gt;hi&lt;/b&gt;"
        );
        assert_eq!(
            inline("plain \"quoted\" text"),
            "plain &quot;quoted&quot; text"
        );
        assert_eq!(inline("1. not a list"), "1. not a list");
        assert_eq!(inline("# not a heading"), "# not a heading");
        assert_eq!(inline("> not a quote"), "&gt; not a quote");
    }

    #[test]
    fn dangerous_links_are_disarmed_and_images_dropped() {
        for bad in [
            "[x](javascript:alert(1))",
            "[x](<JaVa\tScRiPt:alert(1)>)",
            "[x](<data:text/html,<script>>)",
            "[x](vbscript:msgbox)",
            "[x]: javascript:alert(1)\n\n[y][x]",
        ] {
            let h = markdown(bad);
            assert!(!h.to_ascii_lowercase().contains("script:"), "{bad} -> {h}");
            assert!(!h.contains("href=\"data:"), "{bad} -> {h}");
        }
        assert!(inline("[x](javascript:alert(1))").contains(r##"href="#""##));
        assert!(inline("[d](docs/a.md)").contains(r#"href="docs/a.md""#));
        assert!(inline("[d](https://example.com)").contains(r#"href="https://example.com""#));
        let img = markdown("![alt text](http://evil.example/x.png)");
        assert!(!img.contains("<img"), "{img}");
        assert!(img.contains("alt text"), "{img}");
    }

    #[test]
    fn a_yaml_header_is_a_table_of_escaped_cells() {
        let h = markdown("---\nskill: <script>x</script>\nlangue: en\n---\n# Title\n");
        assert!(h.starts_with("<table class=\"meta\">"), "{h}");
        assert!(
            h.contains("<tr><th>skill</th><td>&lt;script&gt;x&lt;/script&gt;</td></tr>"),
            "{h}"
        );
        assert!(h.contains("<h1>Title</h1>"), "{h}");
        assert!(!h.contains("<h2>"), "{h}");
    }

    #[test]
    fn memory_items_link_to_their_own_line() {
        let src = "# T\n\n- one\n- two <b>x</b>\n  - nested\n\n1. loose\n\n   more\n";
        let h = markdown_with_lines(src, "m.md");
        let ln = |n: u32| format!(r#" <a class="ln" href="m.md#L{n}">:{n}</a>"#);
        assert!(h.contains(&format!("<li>one{}</li>", ln(3))), "{h}");
        assert!(
            h.contains(&format!("<li>two &lt;b&gt;x&lt;/b&gt;{}\n<ul>", ln(4))),
            "{h}"
        );
        assert!(h.contains(&format!("<li>nested{}</li>", ln(5))), "{h}");
        assert!(
            h.contains(&format!("<p>loose{}</p>\n<p>more</p>", ln(7))),
            "{h}"
        );
        assert_eq!(h.matches("class=\"ln\"").count(), 4, "{h}");
        // The file name is escaped like any other text.
        let odd = markdown_with_lines("- x\n", "a\"b<.md");
        assert!(odd.contains(r#"href="a&quot;b&lt;.md#L1""#), "{odd}");
        // Audit reports keep their plain rendering.
        assert!(!markdown(src).contains("class=\"ln\""));
    }

    #[test]
    fn script_json_cannot_close_its_element() {
        let s = json_for_script(&vec!["</script><script>alert(1)</script>"]);
        assert!(!s.contains('<'), "{s}");
        let back: Vec<String> = serde_json::from_str(&s).unwrap();
        assert_eq!(back[0], "</script><script>alert(1)</script>");
    }
}
