//! The Audits tab: the audit index and every report, as the files say them
//! (`docs/audits/token/`), rendered from their Markdown.
//!
//! The folder is the repository's, so a report may be a link to a file
//! outside it, a FIFO or a huge file: each is read through the project's
//! [`Jail`], and a refused one is listed with the reason instead of shown.

use super::html::markdown;
use crate::audit::index;
use crate::fsutil::confine::Jail;
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Default, Serialize)]
pub struct Tab {
    pub index: Option<Report>,
    pub reports: Vec<Report>,
    pub invalid: Vec<(String, String)>,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub name: String,
    pub href: String,
    pub html: String,
}

pub fn build(root: &Path) -> Tab {
    let jail = Jail::new(root);
    let rel = |name: &str| format!("{}/{name}", index::DIR);
    let mut invalid = Vec::new();
    let mut read = |name: &str| match jail.read_text(&index::dir(root).join(name)) {
        Ok(t) => t,
        Err(refused) => {
            invalid.push((name.to_string(), super::refused_reason(&refused)));
            None
        }
    };
    let index = read("README.md").map(|t| Report {
        name: "README.md".into(),
        href: rel("README.md"),
        html: markdown(&t),
    });
    let (ok, bad) = index::read_all(root);
    let reports = ok
        .iter()
        .filter_map(|(name, _)| {
            let t = read(name)?;
            Some(Report {
                name: name.clone(),
                href: rel(name),
                html: markdown(&t),
            })
        })
        .collect();
    invalid.extend(bad);
    Tab {
        index,
        reports,
        invalid,
    }
}
