//! A block of lines under a marker comment, in a file the user owns
//! (`.gitignore`, `.gitattributes`): how cairn adds its lines to it.

/// `text` with the whole lines `added` put in cairn's block: right after
/// the block's current lines when a marker line is there (its lines deleted
/// by the user come back in place rather than under a second marker), else
/// as a new block at the end of the file.
pub(crate) fn add_lines(
    text: &str,
    marker: &str,
    is_marker: impl Fn(&str) -> bool,
    is_ours: impl Fn(&str) -> bool,
    added: &str,
    nl: &str,
) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if let Some(m) = lines.iter().position(|l| is_marker(l)) {
        let mut end = m + 1;
        while end < lines.len() && is_ours(lines[end]) {
            end += 1;
        }
        let mut out: String = lines[..end].concat();
        if !out.ends_with('\n') {
            out.push_str(nl);
        }
        out.push_str(added);
        out.push_str(&lines[end..].concat());
        return out;
    }
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(nl);
    }
    out.push_str(marker);
    out.push_str(nl);
    out.push_str(added);
    out
}
