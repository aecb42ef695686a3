//! The YAML frontmatter of a SKILL.md or command file, read leniently.
//!
//! Skills carry a handful of flat keys, one nested map (`metadata`) and
//! short lists; a YAML library would be a dependency for that and would
//! reject the slightly broken headers users write by hand, which the client
//! itself still loads (body kept, metadata empty). So this reads a subset:
//! `key: value` (plain, single- or double-quoted), nested maps by
//! indentation, `- item` lists and `[a, b]` flow lists, `|`/`>` block
//! scalars. A line it cannot read is noted in `problems` and skipped.

use std::collections::BTreeMap;

/// A parsed header. Keys of nested maps are joined with dots
/// (`metadata.project`); list values are joined with `, `.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    /// Whether the text starts with a `---` header that is closed.
    pub present: bool,
    pub fields: BTreeMap<String, String>,
    /// What could not be read, for the report (`line 3: …`).
    pub problems: Vec<String>,
}

impl Frontmatter {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .get(key)
            .map(String::as_str)
            .filter(|s| !s.is_empty())
    }
}

/// Splits `text` into its header and body. Without a closed header the whole
/// text is the body.
pub fn split(text: &str) -> (Frontmatter, &str) {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first_end = t.find('\n').unwrap_or(t.len());
    if t[..first_end].trim_end() != "---" {
        return (Frontmatter::default(), t);
    }
    let rest = &t[(first_end + 1).min(t.len())..];
    let mut pos = 0;
    for line in rest.split_inclusive('\n') {
        let l = line.trim_end();
        if l == "---" || l == "..." {
            let header = &rest[..pos];
            let body = &rest[pos + line.len()..];
            let mut fm = parse(header);
            fm.present = true;
            return (fm, body);
        }
        pos += line.len();
    }
    let fm = Frontmatter {
        problems: vec!["the `---` header is never closed; read as body".into()],
        ..Frontmatter::default()
    };
    (fm, t)
}

/// Parses header lines (without the `---` fences).
pub fn parse(header: &str) -> Frontmatter {
    let mut fm = Frontmatter::default();
    // (indent, key path) of the open maps.
    let mut stack: Vec<(usize, String)> = Vec::new();
    let lines: Vec<&str> = header.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        i += 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = raw.len() - raw.trim_start_matches([' ', '\t']).len();
        if let Some(item) = trimmed
            .strip_prefix("- ")
            .or((trimmed == "-").then_some(""))
        {
            // A list item under the last key that had no inline value.
            if let Some((_, key)) = stack.last() {
                let entry = fm.fields.entry(key.clone()).or_default();
                if !entry.is_empty() {
                    entry.push_str(", ");
                }
                entry.push_str(&scalar(item));
            } else {
                fm.problems
                    .push(format!("line {i}: list item without a key"));
            }
            continue;
        }
        while stack.last().is_some_and(|(ind, _)| *ind >= indent) {
            stack.pop();
        }
        let Some((key, value)) = split_key(trimmed) else {
            fm.problems
                .push(format!("line {i}: not `key: value`: {}", shorten(trimmed)));
            continue;
        };
        let path = match stack.last() {
            Some((_, parent)) => format!("{parent}.{key}"),
            None => key.to_string(),
        };
        let value = value.trim();
        if value.is_empty() {
            // A nested map or a list follows, or the value is empty.
            stack.push((indent, path.clone()));
            fm.fields.entry(path).or_default();
            continue;
        }
        if value == "|" || value == ">" || value.starts_with("|-") || value.starts_with(">-") {
            let folded = value.starts_with('>');
            let mut parts = Vec::new();
            while i < lines.len() {
                let l = lines[i];
                let ind = l.len() - l.trim_start().len();
                if !l.trim().is_empty() && ind <= indent {
                    break;
                }
                parts.push(l.trim());
                i += 1;
            }
            let sep = if folded { " " } else { "\n" };
            fm.fields.insert(path, parts.join(sep).trim().to_string());
            continue;
        }
        if let Some(inner) = value.strip_prefix('[') {
            let Some(inner) = inner.strip_suffix(']') else {
                fm.problems
                    .push(format!("line {i}: unclosed `[` in `{key}`"));
                fm.fields.insert(path, scalar(inner));
                continue;
            };
            let items: Vec<String> = inner
                .split(',')
                .map(scalar)
                .filter(|s| !s.is_empty())
                .collect();
            fm.fields.insert(path, items.join(", "));
            continue;
        }
        if (value.starts_with('"') && !(value.len() > 1 && value.ends_with('"')))
            || (value.starts_with('\'') && !(value.len() > 1 && value.ends_with('\'')))
        {
            fm.problems
                .push(format!("line {i}: unclosed quote in `{key}`"));
        }
        fm.fields.insert(path, scalar(value));
    }
    fm
}

fn split_key(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let key = line[..colon].trim();
    let rest = &line[colon + 1..];
    if key.is_empty()
        || !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t'))
        || !key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return None;
    }
    Some((key, rest))
}

/// A plain or quoted scalar, comments after plain values removed.
fn scalar(v: &str) -> String {
    let v = v.trim();
    if let Some(inner) = v.strip_prefix('"') {
        let inner = inner.strip_suffix('"').unwrap_or(inner);
        return inner.replace("\\\"", "\"").replace("\\n", "\n");
    }
    if let Some(inner) = v.strip_prefix('\'') {
        let inner = inner.strip_suffix('\'').unwrap_or(inner);
        return inner.replace("''", "'");
    }
    match v.find(" #") {
        Some(i) => v[..i].trim_end().to_string(),
        None => v.to_string(),
    }
}

fn shorten(s: &str) -> String {
    crate::format::truncate_tail(s, 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_flat_nested_lists_and_block_scalars() {
        let text = "---\nname: competitor_analyze\ndescription: \"Analyse: les concurrents\"\nmetadata:\n  project: veille\n  owner: 'l''équipe'\nallowed-tools:\n  - Read\n  - Bash(python3:*)\nmodel: opus # the big one\nwhen_to_use: >\n  quand un document\n  arrive\npaths: [a, \"b\"]\n---\n# Body\n";
        let (fm, body) = split(text);
        assert!(fm.present);
        assert_eq!(body, "# Body\n");
        assert_eq!(fm.get("name"), Some("competitor_analyze"));
        assert_eq!(fm.get("description"), Some("Analyse: les concurrents"));
        assert_eq!(fm.get("metadata.project"), Some("veille"));
        assert_eq!(fm.get("metadata.owner"), Some("l'équipe"));
        assert_eq!(fm.get("allowed-tools"), Some("Read, Bash(python3:*)"));
        assert_eq!(fm.get("model"), Some("opus"));
        assert_eq!(fm.get("when_to_use"), Some("quand un document arrive"));
        assert_eq!(fm.get("paths"), Some("a, b"));
        assert!(fm.problems.is_empty(), "{:?}", fm.problems);
    }

    #[test]
    fn broken_headers_keep_what_they_can_and_never_panic() {
        let (fm, body) =
            split("---\nname: x\n: nope\n  - orphan\ndescription: \"open\nmodel: [a, b\n---\nbody");
        assert!(fm.present);
        assert_eq!(body, "body");
        assert_eq!(fm.get("name"), Some("x"));
        assert!(fm.problems.len() >= 2, "{:?}", fm.problems);

        let (fm, body) = split("---\nname: x\nno end");
        assert!(!fm.present);
        assert_eq!(body, "---\nname: x\nno end");
        assert_eq!(fm.problems.len(), 1);

        let (fm, body) = split("# Just a body\n");
        assert!(!fm.present && fm.problems.is_empty());
        assert_eq!(body, "# Just a body\n");

        for weird in [
            "",
            "---",
            "---\n",
            "---\n---",
            "\u{feff}---\na: b\n---\n",
            "---\n- a\n:\n---\n",
        ] {
            let _ = split(weird);
        }
    }
}
