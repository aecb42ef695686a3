//! cairn's block in a project's `.gitignore`.
//!
//! The lines cairn adds sit under a marker comment so uninstall can remove
//! exactly them. A pattern the user already wrote (in any equivalent
//! spelling) is neither duplicated nor ever removed.

pub(crate) const MARKER: &str = "# cairn (added by cairn install)";

/// Raw extractor output (`memory_sessions/**/logs/.debug/`) stays local, and
/// so do the temp files of an atomic write that a `kill -9` left behind
/// (the worker sweeps them after ten minutes; until then `git status` must
/// not offer them).
const LINES: &[(&str, &[&str])] = &[
    (
        "**/.debug/",
        // Without a slash in the middle, git matches the name at any depth, so
        // these all ignore every `.debug` folder.
        &[
            "**/.debug/",
            "**/.debug",
            ".debug/",
            ".debug",
            "/**/.debug/",
            "/**/.debug",
        ],
    ),
    (
        "**/.cairn-tmp-*",
        &["**/.cairn-tmp-*", ".cairn-tmp-*", "/**/.cairn-tmp-*"],
    ),
];

fn newline_of(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

fn is_marker(line: &str) -> bool {
    line.trim_end() == MARKER
}

fn is_cairn_line(line: &str) -> bool {
    LINES.iter().any(|(l, _)| line.trim_end() == *l)
}

/// The text with cairn's lines, or `None` when nothing is missing.
pub(crate) fn install(before: Option<&str>) -> Option<String> {
    let text = before.unwrap_or("");
    let present = |spellings: &[&str]| text.lines().any(|l| spellings.contains(&l.trim()));
    let missing: Vec<&str> = LINES
        .iter()
        .filter(|(_, spellings)| !present(spellings))
        .map(|(line, _)| *line)
        .collect();
    if missing.is_empty() {
        return None;
    }
    let nl = newline_of(text);
    let added: String = missing.iter().map(|l| format!("{l}{nl}")).collect();
    Some(super::marked::add_lines(
        text,
        MARKER,
        is_marker,
        is_cairn_line,
        &added,
        nl,
    ))
}

/// The text without cairn's block(s), or `None` when there is none.
pub(crate) fn uninstall(before: &str) -> Option<String> {
    let lines: Vec<&str> = before.split_inclusive('\n').collect();
    if !lines.iter().any(|l| is_marker(l)) {
        return None;
    }
    let mut out = String::with_capacity(before.len());
    let mut i = 0;
    while i < lines.len() {
        if is_marker(lines[i]) {
            i += 1;
            while i < lines.len() && is_cairn_line(lines[i]) {
                i += 1;
            }
        } else {
            out.push_str(lines[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_a_marked_block_and_removes_exactly_it() {
        let before = "target/\n*.log\n";
        let after = install(Some(before)).unwrap();
        assert_eq!(
            after,
            "target/\n*.log\n# cairn (added by cairn install)\n**/.debug/\n**/.cairn-tmp-*\n"
        );
        assert_eq!(install(Some(&after)), None, "idempotent");
        assert_eq!(uninstall(&after).unwrap(), before);
    }

    #[test]
    fn new_file_and_missing_final_newline() {
        assert_eq!(
            install(None).unwrap(),
            "# cairn (added by cairn install)\n**/.debug/\n**/.cairn-tmp-*\n"
        );
        assert_eq!(uninstall(&install(None).unwrap()).unwrap(), "");
        let after = install(Some("target/")).unwrap();
        assert_eq!(
            after,
            "target/\n# cairn (added by cairn install)\n**/.debug/\n**/.cairn-tmp-*\n"
        );
    }

    #[test]
    fn equivalent_user_line_is_enough_and_survives_uninstall() {
        for line in ["**/.debug/", ".debug", "  .debug/  ", "/**/.debug"] {
            let text = format!("# mine\n{line}\n.cairn-tmp-*\n");
            assert_eq!(install(Some(&text)), None, "{line:?}");
            assert_eq!(uninstall(&text), None);
        }
        // A narrower pattern does not cover sub-projects.
        assert!(install(Some("memory_sessions/logs/.debug/\n.cairn-tmp-*\n")).is_some());
        // Issue 9, finding 9: the temp files a `kill -9` leaves are ignored too.
        assert_eq!(
            install(Some("**/.debug/\n")).unwrap(),
            "**/.debug/\n# cairn (added by cairn install)\n**/.cairn-tmp-*\n"
        );
    }

    #[test]
    fn crlf_is_kept_and_lines_after_the_block_survive() {
        let before = "a\r\n";
        let after = install(Some(before)).unwrap();
        assert_eq!(
            after,
            "a\r\n# cairn (added by cairn install)\r\n**/.debug/\r\n**/.cairn-tmp-*\r\n"
        );
        let edited = format!("{after}user-line\r\n");
        assert_eq!(uninstall(&edited).unwrap(), "a\r\nuser-line\r\n");
    }

    #[test]
    fn orphaned_marker_is_refilled_in_place() {
        let before = "x\n# cairn (added by cairn install)\ny\n";
        let after = install(Some(before)).unwrap();
        assert_eq!(
            after,
            "x\n# cairn (added by cairn install)\n**/.debug/\n**/.cairn-tmp-*\ny\n"
        );
        assert_eq!(uninstall(&after).unwrap(), "x\ny\n");
    }
}
