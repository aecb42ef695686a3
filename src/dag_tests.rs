//! The crate's top-level modules form a DAG (docs/ARCHITECTURE.md, "The
//! parts").
//!
//! Reads every `crate::<module>` reference of the non-test code under
//! `src/` (as `scripts/module-graph.py` does) and fails on a cycle, naming
//! the modules in it and one file behind each edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Edges between top-level modules, each with one file that makes it.
type Graph = BTreeMap<String, BTreeMap<String, PathBuf>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn is_test_file(rel: &Path) -> bool {
    let name = rel.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    name == "tests" || name == "proptests" || name.ends_with("_tests")
}

/// The text without line comments and without the items behind `#[cfg(test)]`.
fn without_tests(text: &str) -> String {
    let text: String = text
        .lines()
        .map(|l| l.find("//").map_or(l, |at| &l[..at]))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let (semi, brace) = (after.find(';'), after.find('{'));
        match (semi, brace) {
            (Some(s), Some(b)) if s < b => rest = &after[s + 1..],
            (_, Some(b)) => {
                let mut depth = 0usize;
                let mut end = after.len();
                for (i, c) in after[b..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &after[end..];
            }
            (Some(s), None) => rest = &after[s + 1..],
            (None, None) => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// Names `text` reaches through `crate::name` or `use crate::{name, …}`.
fn referenced(text: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for part in group.split(',') {
                names.insert(ident(part.trim()));
            }
        } else {
            names.insert(ident(rest));
        }
    }
    names
}

fn graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let top = |p: &Path| -> String {
        let rel = p.strip_prefix(src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files
        .iter()
        .map(|p| top(p))
        .filter(|m| m != "lib" && m != "main")
        .collect();
    let mut g: Graph = modules
        .iter()
        .map(|m| (m.clone(), BTreeMap::new()))
        .collect();
    for path in &files {
        let from = top(path);
        if !modules.contains(&from) || is_test_file(path.strip_prefix(src).unwrap()) {
            continue;
        }
        let text = without_tests(&std::fs::read_to_string(path).unwrap());
        for to in referenced(&text) {
            if to != from && modules.contains(&to) {
                g.get_mut(&from)
                    .unwrap()
                    .entry(to)
                    .or_insert_with(|| path.clone());
            }
        }
    }
    g
}

/// One cycle of `g`, in order, if there is any (depth-first search).
fn find_cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit(
        g: &Graph,
        m: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            return Some(path[at..].to_vec());
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for to in g.get(m).into_iter().flat_map(|e| e.keys()) {
            if let Some(c) = visit(g, to, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    g.keys()
        .find_map(|m| visit(g, m, &mut Vec::new(), &mut done))
}

#[test]
fn top_level_modules_form_a_dag() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&src);
    assert!(g.len() > 10, "too few modules found: {:?}", g.keys());
    if let Some(cycle) = find_cycle(&g) {
        let edges: Vec<String> = cycle
            .iter()
            .zip(cycle.iter().cycle().skip(1))
            .map(|(a, b)| format!("{a} -> {b} ({})", g[a][b].display()))
            .collect();
        panic!(
            "the top-level modules form a cycle:\n  {}\n(see scripts/module-graph.py)",
            edges.join("\n  ")
        );
    }
}

#[test]
fn a_cycle_is_found_and_test_code_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("b")).unwrap();
    std::fs::write(src.join("a.rs"), "use crate::b::x;\n").unwrap();
    std::fs::write(src.join("b/mod.rs"), "fn f() { crate::c::g() }\n").unwrap();
    std::fs::write(src.join("c.rs"), "use crate::{a, d};\n").unwrap();
    std::fs::write(
        src.join("d.rs"),
        "// crate::a in a comment\n#[cfg(test)]\nmod tests { use crate::a; fn t() { {} } }\n",
    )
    .unwrap();
    std::fs::write(src.join("b/tests.rs"), "use crate::d;\n").unwrap();
    let g = graph(src);
    assert!(g["d"].is_empty(), "{g:?}");
    assert!(!g["b"].contains_key("d"), "{g:?}");
    assert_eq!(
        find_cycle(&g),
        Some(vec!["a".into(), "b".into(), "c".into()])
    );
    std::fs::write(src.join("c.rs"), "use crate::d;\n").unwrap();
    assert_eq!(find_cycle(&graph(src)), None);
}
