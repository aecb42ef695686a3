//! The eight known sections of a daily log and how their headings are read.

use super::Lang;

/// A known section of the daily log, in the order the file lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SectionKey {
    Contexte,
    Objectif,
    Problemes,
    Connaissances,
    Travail,
    Decisions,
    ASuivre,
    Finalise,
}

/// Heading text, extraction-record key, French title, English title.
const TABLE: [(SectionKey, &str, &str, &str); 8] = [
    (
        SectionKey::Contexte,
        "contexte",
        "## Contexte",
        "## Context",
    ),
    (SectionKey::Objectif, "objectif", "## Objectif", "## Goal"),
    (
        SectionKey::Problemes,
        "problemes",
        "## Problèmes rencontrés",
        "## Problems",
    ),
    (
        SectionKey::Connaissances,
        "connaissances",
        "## Connaissances acquises",
        "## Knowledge",
    ),
    (
        SectionKey::Travail,
        "travail",
        "## Travail produit",
        "## Work done",
    ),
    (
        SectionKey::Decisions,
        "decisions",
        "## Décisions prises",
        "## Decisions",
    ),
    (SectionKey::ASuivre, "a_suivre", "## À suivre", "## To do"),
    (SectionKey::Finalise, "finalise", "## Finalisé", "## Done"),
];

/// Heading texts a person or an older tool may have written, after folding
/// (lower case, accents dropped, `-`/`_` as spaces, white space collapsed).
/// Short forms are accepted because people shorten headings when they edit
/// a log by hand; the seeds themselves only ever wrote the canonical ones.
const ALIASES: &[(&str, SectionKey)] = &[
    ("contexte", SectionKey::Contexte),
    ("context", SectionKey::Contexte),
    ("objectif", SectionKey::Objectif),
    ("objectifs", SectionKey::Objectif),
    ("goal", SectionKey::Objectif),
    ("goals", SectionKey::Objectif),
    ("objective", SectionKey::Objectif),
    ("problemes rencontres", SectionKey::Problemes),
    ("problemes", SectionKey::Problemes),
    ("problems", SectionKey::Problemes),
    ("problems encountered", SectionKey::Problemes),
    ("connaissances acquises", SectionKey::Connaissances),
    ("connaissances", SectionKey::Connaissances),
    ("knowledge", SectionKey::Connaissances),
    ("knowledge gained", SectionKey::Connaissances),
    ("travail produit", SectionKey::Travail),
    ("travail", SectionKey::Travail),
    ("work done", SectionKey::Travail),
    ("work", SectionKey::Travail),
    ("decisions prises", SectionKey::Decisions),
    ("decisions", SectionKey::Decisions),
    ("decisions made", SectionKey::Decisions),
    ("a suivre", SectionKey::ASuivre),
    ("a faire", SectionKey::ASuivre),
    ("to do", SectionKey::ASuivre),
    ("todo", SectionKey::ASuivre),
    ("next steps", SectionKey::ASuivre),
    ("finalise", SectionKey::Finalise),
    ("finalises", SectionKey::Finalise),
    ("finalisees", SectionKey::Finalise),
    ("done", SectionKey::Finalise),
    ("completed", SectionKey::Finalise),
];

impl SectionKey {
    /// Every known section, in the order they are written.
    pub const ALL: [SectionKey; 8] = [
        SectionKey::Contexte,
        SectionKey::Objectif,
        SectionKey::Problemes,
        SectionKey::Connaissances,
        SectionKey::Travail,
        SectionKey::Decisions,
        SectionKey::ASuivre,
        SectionKey::Finalise,
    ];

    /// Position in [`SectionKey::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The heading line written for this section, `## ` included.
    pub fn heading(self, lang: Lang) -> &'static str {
        let (_, _, fr, en) = TABLE[self.index()];
        match lang {
            Lang::Fr => fr,
            Lang::En => en,
        }
    }

    /// The key of this section in the extraction record (`finalise` has none
    /// there: it is only filled through `a_suivre_done`).
    pub fn json_key(self) -> &'static str {
        TABLE[self.index()].1
    }

    /// Inverse of [`SectionKey::json_key`].
    pub fn from_json_key(key: &str) -> Option<SectionKey> {
        TABLE.iter().find(|row| row.1 == key).map(|row| row.0)
    }

    /// Recognises a section heading in either language, tolerantly: case,
    /// missing accents, a trailing colon, closing `#`s and stray white space
    /// do not matter. Takes the heading line (`## À suivre`) or its bare text
    /// (`A suivre`). A `### …` line is not a section: people use sub-headings
    /// inside a section, and reading them as sections would tear it apart.
    pub fn from_heading(line: &str) -> Option<SectionKey> {
        read_heading(line).map(|(key, _)| key)
    }
}

/// The section a heading names, and the language it is written in when it
/// is exactly one of the canonical headings (used to guess a file's language).
pub(super) fn read_heading(line: &str) -> Option<(SectionKey, Option<Lang>)> {
    let text = heading_text(line)?;
    let folded = fold(text);
    let key = ALIASES
        .iter()
        .find(|(alias, _)| *alias == folded)
        .map(|(_, key)| *key)?;
    let lower = collapse(&text.to_lowercase());
    let (_, _, fr, en) = TABLE[key.index()];
    let lang = if lower == fr[3..].to_lowercase() {
        Some(Lang::Fr)
    } else if lower == en[3..].to_lowercase() {
        Some(Lang::En)
    } else {
        None
    };
    Some((key, lang))
}

/// The text of a level-2 heading (or of a bare title), without its markers.
fn heading_text(line: &str) -> Option<&str> {
    let line = line.trim();
    let text = match line.strip_prefix("##") {
        Some(rest) => {
            if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
                return None;
            }
            rest
        }
        None if line.starts_with('#') => return None,
        None => line,
    };
    let text = text.trim();
    // A closing sequence counts only after white space: `## C#` names C#.
    let unclosed = text.trim_end_matches('#');
    let text = if unclosed.len() < text.len()
        && (unclosed.is_empty() || unclosed.ends_with(char::is_whitespace))
    {
        unclosed.trim_end()
    } else {
        text
    };
    let text = text.trim_end_matches(':').trim_end();
    // `- Contexte` or `✅ Done` is a line of content, not a heading's text.
    text.starts_with(char::is_alphanumeric).then_some(text)
}

fn fold(text: &str) -> String {
    collapse(&super::text::fold_accents(text).replace(['-', '_'], " "))
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_headings_round_trip_in_both_languages() {
        for key in SectionKey::ALL {
            for lang in [Lang::Fr, Lang::En] {
                let heading = key.heading(lang);
                assert_eq!(read_heading(heading), Some((key, Some(lang))), "{heading}");
            }
            assert_eq!(SectionKey::from_json_key(key.json_key()), Some(key));
        }
    }

    #[test]
    fn tolerant_forms_are_recognised() {
        let cases = [
            ("## A suivre", SectionKey::ASuivre),
            ("## à SUIVRE  ", SectionKey::ASuivre),
            ("##\tTo-do", SectionKey::ASuivre),
            ("## Problemes rencontres", SectionKey::Problemes),
            ("## Problèmes", SectionKey::Problemes),
            ("## Decisions prises:", SectionKey::Decisions),
            ("## Finalise ##", SectionKey::Finalise),
            ("## Finalise\u{301}", SectionKey::Finalise),
            ("Work done", SectionKey::Travail),
            ("## CONTEXT", SectionKey::Contexte),
        ];
        for (heading, key) in cases {
            assert_eq!(SectionKey::from_heading(heading), Some(key), "{heading}");
        }
    }

    #[test]
    fn other_levels_and_unknown_titles_are_not_sections() {
        for heading in [
            "### À suivre",
            "# Contexte",
            "##Contexte",
            "## Notes",
            "## C#",
            "- Contexte",
            "",
        ] {
            assert_eq!(SectionKey::from_heading(heading), None, "{heading}");
        }
    }

    #[test]
    fn json_keys_match_the_record() {
        let keys: Vec<_> = SectionKey::ALL.iter().map(|k| k.json_key()).collect();
        assert_eq!(
            keys,
            [
                "contexte",
                "objectif",
                "problemes",
                "connaissances",
                "travail",
                "decisions",
                "a_suivre",
                "finalise"
            ]
        );
        assert_eq!(SectionKey::from_json_key("a_suivre_done"), None);
    }
}
