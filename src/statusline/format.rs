//! The per-segment format strings, starship-style:
//! - `$name` is replaced by the segment's variable `name`;
//! - `( … )` is a conditional group, shown only when at least one variable
//!   inside it has a value (so `( $pending queued)` vanishes at zero);
//! - `\` escapes the next character (`\$`, `\(`, `\)`, `\\`).
//!
//! A name the segment does not know is printed as written (`$typo`), so a
//! mistake in the config shows on the line instead of silently vanishing.
//! Hand-written and allocation-light: it runs on every render, and the
//! status line compiles no regex.

/// What a segment answers for `$name`: `None` when it has no such
/// variable, `Some(None)` when the variable is known but empty.
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<Option<String>>;

pub fn render(format: &str, lookup: Lookup) -> String {
    let chars: Vec<char> = format.chars().collect();
    let mut i = 0;
    let mut out = String::new();
    sequence(&chars, &mut i, false, lookup, &mut out);
    out
}

/// Renders until the end or, inside a group, its closing `)`. Returns
/// whether a variable with a value was written.
fn sequence(
    chars: &[char],
    i: &mut usize,
    in_group: bool,
    lookup: Lookup,
    out: &mut String,
) -> bool {
    let mut any = false;
    while *i < chars.len() {
        let c = chars[*i];
        *i += 1;
        match c {
            '\\' => {
                if let Some(&next) = chars.get(*i) {
                    out.push(next);
                    *i += 1;
                }
            }
            '$' => {
                let start = *i;
                while *i < chars.len() && (chars[*i].is_ascii_alphanumeric() || chars[*i] == '_') {
                    *i += 1;
                }
                let name: String = chars[start..*i].iter().collect();
                if name.is_empty() {
                    out.push('$');
                    continue;
                }
                match lookup(&name) {
                    Some(Some(v)) if !v.is_empty() => {
                        out.push_str(&v);
                        any = true;
                    }
                    Some(_) => {}
                    None => {
                        out.push('$');
                        out.push_str(&name);
                    }
                }
            }
            '(' => {
                let mut inner = String::new();
                if sequence(chars, i, true, lookup, &mut inner) {
                    out.push_str(&inner);
                    any = true;
                }
            }
            ')' if in_group => return any,
            c => out.push(c),
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Option<Option<String>> {
        match name {
            "a" => Some(Some("1".into())),
            "b" => Some(None),
            "c" => Some(Some(String::new())),
            _ => None,
        }
    }

    fn r(f: &str) -> String {
        render(f, &vars)
    }

    #[test]
    fn variables_groups_and_escapes() {
        assert_eq!(r("x $a y"), "x 1 y");
        assert_eq!(r("x( b=$b)"), "x");
        assert_eq!(r("x( c=$c)"), "x");
        assert_eq!(r("x( a=$a b=$b)"), "x a=1 b=");
        assert_eq!(r("(outer (inner $b))"), "");
        assert_eq!(r("(outer (inner $a))"), "outer inner 1");
        assert_eq!(r("\\$a \\(lit\\) 100$"), "$a (lit) 100$");
        assert_eq!(r("$unknown!"), "$unknown!");
        assert_eq!(r("unclosed ($a"), "unclosed 1");
        assert_eq!(r("stray )"), "stray )");
        assert_eq!(r("$a%"), "1%");
        assert_eq!(r(""), "");
    }
}
