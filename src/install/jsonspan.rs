//! Byte spans of a JSON document, and the splices that edit it in place.
//!
//! Re-serialising a user's `settings.json` would reflow their arrays, respell
//! their numbers and escapes, and make `uninstall` unable to give back the
//! exact text it found. Editing the text at known spans keeps every byte we
//! do not mean to change. The text is validated by `serde_json` first, so
//! this parser only has to find boundaries, not report errors.

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{Formatter, PrettyFormatter, Serializer};
use std::io;

#[derive(Debug)]
pub(crate) struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug)]
pub(crate) enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    String,
    Other,
}

#[derive(Debug)]
pub(crate) struct Member {
    pub key: String,
    pub key_start: usize,
    pub key_end: usize,
    pub value: Node,
}

impl Node {
    pub fn members(&self) -> Option<&[Member]> {
        match &self.kind {
            Kind::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn elements(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Array(e) => Some(e),
            _ => None,
        }
    }

    /// The value of `key`; the last one wins on duplicates, as in the
    /// client's `JSON.parse` and in serde_json.
    pub fn get(&self, key: &str) -> Option<(usize, &Member)> {
        self.members()?
            .iter()
            .enumerate()
            .rev()
            .find(|(_, m)| m.key == key)
    }

    /// The decoded text of a string node.
    pub fn as_str(&self, text: &str) -> Option<String> {
        match self.kind {
            Kind::String => serde_json::from_str(&text[self.start..self.end]).ok(),
            _ => None,
        }
    }

    /// Spans of the direct children, members including their key.
    fn child_spans(&self) -> Vec<(usize, usize)> {
        match &self.kind {
            Kind::Object(m) => m.iter().map(|m| (m.key_start, m.value.end)).collect(),
            Kind::Array(e) => e.iter().map(|n| (n.start, n.end)).collect(),
            _ => Vec::new(),
        }
    }
}

/// Parses an already validated document. `None` means the text was not the
/// JSON serde_json accepted, which would be a bug here, never user input.
pub(crate) fn parse(text: &str) -> Option<Node> {
    let mut p = Parser {
        b: text.as_bytes(),
        i: 0,
        text,
    };
    p.ws();
    let node = p.value()?;
    p.ws();
    (p.i == p.b.len()).then_some(node)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn value(&mut self) -> Option<Node> {
        let start = self.i;
        let kind = match self.peek()? {
            b'{' => Kind::Object(self.object()?),
            b'[' => Kind::Array(self.array()?),
            b'"' => {
                self.string()?;
                Kind::String
            }
            _ => {
                while self.i < self.b.len()
                    && !matches!(
                        self.b[self.i],
                        b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.i += 1;
                }
                if self.i == start {
                    return None;
                }
                Kind::Other
            }
        };
        Some(Node {
            start,
            end: self.i,
            kind,
        })
    }

    fn string(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            match self.peek()? {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                _ => self.i += 1,
            }
        }
    }

    fn object(&mut self) -> Option<Vec<Member>> {
        self.i += 1;
        let mut members = Vec::new();
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(members);
        }
        loop {
            self.ws();
            let key_start = self.i;
            if self.peek()? != b'"' {
                return None;
            }
            self.string()?;
            let key_end = self.i;
            let key = serde_json::from_str(&self.text[key_start..key_end]).ok()?;
            self.ws();
            if self.peek()? != b':' {
                return None;
            }
            self.i += 1;
            self.ws();
            let value = self.value()?;
            members.push(Member {
                key,
                key_start,
                key_end,
                value,
            });
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(members);
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self) -> Option<Vec<Node>> {
        self.i += 1;
        let mut elements = Vec::new();
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some(elements);
        }
        loop {
            self.ws();
            elements.push(self.value()?);
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(elements);
                }
                _ => return None,
            }
        }
    }
}

/// Replace `text[start..end]` with `with`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Splice {
    pub start: usize,
    pub end: usize,
    pub with: String,
}

impl Splice {
    pub fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + self.with.len());
        out.push_str(&text[..self.start]);
        out.push_str(&self.with);
        out.push_str(&text[self.end..]);
        out
    }
}

/// How the document is laid out, so inserted text looks like its neighbours.
#[derive(Debug, Clone)]
pub(crate) struct Style {
    pub indent: String,
    pub newline: &'static str,
}

impl Style {
    pub fn detect(text: &str, root: &Node) -> Style {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let indent = root
            .child_spans()
            .first()
            .map(|&(start, _)| ws_before(text, start))
            .and_then(|ws| ws.rfind('\n').map(|nl| ws[nl + 1..].to_string()))
            .filter(|i| !i.is_empty())
            .unwrap_or_else(|| "  ".to_string());
        Style { indent, newline }
    }

    /// `value` pretty-printed with this indent unit, its continuation lines
    /// shifted right by `base`, the indentation of the line it starts on.
    fn render(&self, value: &Value, base: &str) -> String {
        let pretty = write_with(value, PrettyFormatter::with_indent(self.indent.as_bytes()));
        // A JSON string never holds a raw newline, so every '\n' is layout.
        pretty.replace('\n', &format!("{}{}", self.newline, base))
    }
}

/// One-line output with a space after `:` and `,`, for containers the user
/// wrote on one line.
pub(crate) struct OneLine;

impl Formatter for OneLine {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

pub(crate) fn write_with<F: Formatter>(value: &Value, formatter: F) -> String {
    let mut buf = Vec::new();
    let mut ser = Serializer::with_formatter(&mut buf, formatter);
    // Serialising a Value into memory cannot fail, and serde_json writes UTF-8.
    value.serialize(&mut ser).expect("serialising a JSON value");
    String::from_utf8(buf).expect("serde_json writes UTF-8")
}

pub(crate) fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("serialising a string")
}

/// The run of JSON whitespace that ends at `pos`.
fn ws_before(text: &str, pos: usize) -> &str {
    let head = &text[..pos];
    let trimmed = head.trim_end_matches([' ', '\t', '\n', '\r']);
    &head[trimmed.len()..]
}

/// Leading whitespace of the line holding `pos`.
fn line_indent(text: &str, pos: usize) -> &str {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// What to append to a container: a bare value for an array, a key and a
/// value for an object.
pub(crate) enum Child<'a> {
    Element(&'a Value),
    Member(&'a str, &'a Value),
}

/// Appends `child` after the last child of `container`, laid out like its
/// siblings. Removing it again with [`remove_child`] restores the exact text.
pub(crate) fn append_child(
    text: &str,
    container: &Node,
    child: Child<'_>,
    style: &Style,
) -> Splice {
    let colon = container
        .members()
        .and_then(|m| m.last())
        .map(|m| text[m.key_end..m.value.start].to_string())
        .unwrap_or_else(|| ": ".to_string());
    let render = |base: Option<&str>| -> String {
        let (key, value) = match child {
            Child::Element(v) => (None, v),
            Child::Member(k, v) => (Some(k), v),
        };
        let body = match base {
            Some(base) => style.render(value, base),
            None => write_with(value, OneLine),
        };
        match key {
            Some(k) => format!("{}{colon}{body}", json_string(k)),
            None => body,
        }
    };
    let spans = container.child_spans();
    match spans.last() {
        Some(&(last_start, last_end)) => {
            let sep = ws_before(text, last_start);
            let with = match sep.rfind('\n') {
                Some(nl) => format!(",{sep}{}", render(Some(&sep[nl + 1..]))),
                None => format!(", {}", render(None)),
            };
            Splice {
                start: last_end,
                end: last_end,
                with,
            }
        }
        None => {
            let outer = line_indent(text, container.start);
            let inner = format!("{outer}{}", style.indent);
            let nl = style.newline;
            let with = format!("{nl}{inner}{}{nl}{outer}", render(Some(&inner)));
            Splice {
                start: container.start + 1,
                end: container.end - 1,
                with,
            }
        }
    }
}

/// Removes child `idx` of `container` with the separator that joined it.
/// The last child goes with the comma before it, so an appended child comes
/// out exactly as it went in; an only child leaves `{}` / `[]`.
pub(crate) fn remove_child(container: &Node, idx: usize) -> Splice {
    let spans = container.child_spans();
    let (start, end) = if spans.len() == 1 {
        (container.start + 1, container.end - 1)
    } else if idx > 0 {
        (spans[idx - 1].1, spans[idx].1)
    } else {
        (spans[0].0, spans[1].0)
    };
    Splice {
        start,
        end,
        with: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn roundtrip(text: &str, container_path: &[&str], child: Child<'_>) -> String {
        let root = parse(text).unwrap();
        let mut node = &root;
        for k in container_path {
            node = &node.get(k).unwrap().1.value;
        }
        let style = Style::detect(text, &root);
        let added = append_child(text, node, child, &style).apply(text);
        serde_json::from_str::<Value>(&added).expect("valid after append");
        let root2 = parse(&added).unwrap();
        let mut node2 = &root2;
        for k in container_path {
            node2 = &node2.get(k).unwrap().1.value;
        }
        let n = node2.child_spans().len();
        let removed = remove_child(node2, n - 1).apply(&added);
        assert_eq!(removed, text, "append then remove restores the text");
        added
    }

    #[test]
    fn parses_spans_of_nested_values() {
        let text = r#" {"a": [1, "x\"y", {"b": null}], "c": true} "#;
        let root = parse(text).unwrap();
        let (_, a) = root.get("a").unwrap();
        let els = a.value.elements().unwrap();
        assert_eq!(&text[els[1].start..els[1].end], r#""x\"y""#);
        assert_eq!(els[1].as_str(text).unwrap(), "x\"y");
        assert_eq!(&text[els[2].start..els[2].end], r#"{"b": null}"#);
        assert!(parse("{").is_none());
    }

    #[test]
    fn appends_into_multiline_object_like_its_siblings() {
        let text = "{\n    \"a\": 1,\n    \"b\": [1, 2]\n}\n";
        let out = roundtrip(text, &[], Child::Member("h", &json!({"x": [1]})));
        assert_eq!(
            out,
            "{\n    \"a\": 1,\n    \"b\": [1, 2],\n    \"h\": {\n        \"x\": [\n            1\n        ]\n    }\n}\n"
        );
    }

    #[test]
    fn appends_into_one_line_array_on_one_line() {
        let text = "{\"b\": [1, 2]}";
        let out = roundtrip(text, &["b"], Child::Element(&json!({"k": "v", "n": 3})));
        assert_eq!(out, "{\"b\": [1, 2, {\"k\": \"v\", \"n\": 3}]}");
    }

    #[test]
    fn appends_into_empty_containers_and_back() {
        let out = roundtrip("{}\n", &[], Child::Member("h", &json!(1)));
        assert_eq!(out, "{\n  \"h\": 1\n}\n");
        let out = roundtrip("{\n  \"s\": []\n}", &["s"], Child::Element(&json!(2)));
        assert_eq!(out, "{\n  \"s\": [\n    2\n  ]\n}");
    }

    #[test]
    fn keeps_crlf_and_tabs() {
        let text = "{\r\n\t\"a\": 1\r\n}\r\n";
        let out = roundtrip(text, &[], Child::Member("h", &json!([true])));
        assert_eq!(
            out,
            "{\r\n\t\"a\": 1,\r\n\t\"h\": [\r\n\t\ttrue\r\n\t]\r\n}\r\n"
        );
    }

    #[test]
    fn removes_first_and_middle_children() {
        let text = "[1, 2, 3]";
        let root = parse(text).unwrap();
        assert_eq!(remove_child(&root, 0).apply(text), "[2, 3]");
        assert_eq!(remove_child(&root, 1).apply(text), "[1, 3]");
        assert_eq!(remove_child(&root, 2).apply(text), "[1, 2]");
    }
}
