//! Scores the daily logs of one replayed session against its part of the key.

use super::key::{Fact, Forbid, Key, Session};
use cairn::memory::log::{DailyLog, Lang, SectionKey};
use regex::Regex;
use std::path::Path;

/// One `- ` bullet of a produced log.
#[derive(Debug, Clone)]
pub struct Bullet {
    pub date: String,
    pub section: &'static str,
    pub text: String,
}

/// The produced logs of a project: (file name, text), in date order.
pub fn read_logs(root: &Path) -> Vec<(String, String)> {
    let dir = root.join("memory_sessions/logs");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| {
                let p = e.ok()?.path();
                let name = p.file_name()?.to_string_lossy().into_owned();
                name.ends_with(".md")
                    .then(|| (name, std::fs::read_to_string(&p).unwrap_or_default()))
            })
            .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The bullets of the logs, and what is wrong with the logs themselves.
pub fn bullets(logs: &[(String, String)]) -> (Vec<Bullet>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (name, text) in logs {
        let date = name.trim_end_matches(".md").to_string();
        let log = DailyLog::parse(text, &date, Lang::Fr);
        // cairn writes its logs through the same renderer it reads with: a
        // log that does not come back byte for byte, or with sections the
        // format does not know, was written wrong.
        if log.render() != *text {
            problems.push(format!("{name}: not in the format's canonical form"));
        }
        for u in log.unknown_sections() {
            problems.push(format!("{name}: unknown section {:?}", u.heading));
        }
        for key in SectionKey::ALL {
            for b in log.bullets(key) {
                out.push(Bullet {
                    date: date.clone(),
                    section: key.json_key(),
                    text: b.to_string(),
                });
            }
        }
    }
    (out, problems)
}

/// Lower case, accents dropped, typographic apostrophes and spaces made
/// plain: the log may be French or English, the key's terms are neither.
pub fn fold(text: &str) -> String {
    cairn::memory::log::fold_accents(text)
        .replace(['’', '‘'], "'")
        .replace(['\u{a0}', '\u{202f}'], " ")
}

/// Does this bullet hold the fact?
pub fn holds(fact: &Fact, bullet: &Bullet) -> bool {
    if !fact.sections.iter().any(|s| s == bullet.section) {
        return false;
    }
    let text = fold(&bullet.text);
    fact.all.iter().all(|t| text.contains(&fold(t)))
        && (fact.any.is_empty() || fact.any.iter().any(|t| text.contains(&fold(t))))
}

struct Rule<'a> {
    re: Regex,
    forbid: &'a Forbid,
}

impl Rule<'_> {
    fn hits(&self, b: &Bullet) -> bool {
        (self.forbid.sections.is_empty() || self.forbid.sections.iter().any(|s| s == b.section))
            && self.re.is_match(&b.text)
    }
}

/// A session's score.
pub struct Score {
    /// Per fact: the bullet that holds it, if one does.
    pub facts: Vec<Option<Bullet>>,
    /// Bullets that break a rule, each with the reasons.
    pub forbidden: Vec<(Bullet, Vec<String>)>,
    pub bullets: usize,
}

impl Score {
    pub fn found(&self) -> usize {
        self.facts.iter().filter(|f| f.is_some()).count()
    }
}

pub fn score(key: &Key, session: &Session, bullets: &[Bullet]) -> Score {
    let rules: Vec<Rule> = key
        .forbid
        .iter()
        .chain(&session.forbid)
        .map(|f| Rule {
            re: Regex::new(&f.re).expect("checked by key::problems"),
            forbid: f,
        })
        .collect();
    let facts = session
        .fact
        .iter()
        .map(|f| bullets.iter().find(|b| holds(f, b)).cloned())
        .collect();
    let forbidden = bullets
        .iter()
        .filter_map(|b| {
            let why: Vec<String> = rules
                .iter()
                .filter(|r| r.hits(b))
                .map(|r| r.forbid.why.clone())
                .collect();
            (!why.is_empty()).then(|| (b.clone(), why))
        })
        .collect();
    Score {
        facts,
        forbidden,
        bullets: bullets.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(sections: &[&str], all: &[&str], any: &[&str]) -> Fact {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect();
        Fact {
            sections: v(sections),
            all: v(all),
            any: v(any),
            note: String::new(),
        }
    }

    fn bullet(section: &'static str, text: &str) -> Bullet {
        Bullet {
            date: "2025-01-01".into(),
            section,
            text: text.into(),
        }
    }

    #[test]
    fn a_fact_needs_all_terms_one_any_term_and_an_allowed_section() {
        let f = fact(
            &["problemes", "travail"],
            &["MD034", "lint"],
            &["désactivé", "disabled"],
        );
        assert!(holds(
            &f,
            &bullet("travail", "Règle md034 de markdownLint DESACTIVEE")
        ));
        assert!(holds(&f, &bullet("problemes", "md034 lint disabled")));
        assert!(
            !holds(&f, &bullet("travail", "md034 désactivée")),
            "one `all` term missing"
        );
        assert!(
            !holds(&f, &bullet("travail", "md034 lint")),
            "no `any` term"
        );
        assert!(
            !holds(&f, &bullet("objectif", "md034 lint disabled")),
            "section not allowed"
        );
    }

    #[test]
    fn folding_ignores_case_accents_and_typography() {
        assert_eq!(fold("Créé À l’Été\u{a0}:"), "cree a l'ete :");
        assert_eq!(fold("Cre\u{301}e\u{301}"), "cree");
    }

    #[test]
    fn a_forbid_may_be_limited_to_sections() {
        let f = Forbid {
            re: "(?i)^ok\\b".into(),
            why: "chit-chat".into(),
            sections: vec!["objectif".into()],
        };
        let r = Rule {
            re: Regex::new(&f.re).unwrap(),
            forbid: &f,
        };
        assert!(r.hits(&bullet("objectif", "OK, thanks")));
        assert!(!r.hits(&bullet("travail", "OK, thanks")));
    }
}
