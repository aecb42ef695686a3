//! The Audits tab: the audit index and every report, as the files say them
//! (`docs/audits/token/`), rendered from their Markdown.

use super::html::markdown;
use crate::audit::index;
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

fn read(path: &Path) -> Option<String> {
    let bytes = crate::fsutil::confine::read(path).ok()?;
    String::from_utf8(bytes).ok()
}

pub fn build(root: &Path) -> Tab {
    let rel = |name: &str| format!("{}/{name}", index::DIR);
    let (ok, invalid) = index::read_all(root);
    let index = read(&index::dir(root).join("README.md")).map(|t| Report {
        name: "README.md".into(),
        href: rel("README.md"),
        html: markdown(&t),
    });
    let reports = ok
        .iter()
        .filter_map(|(name, _)| {
            let t = read(&index::dir(root).join(name))?;
            Some(Report {
                name: name.clone(),
                href: rel(name),
                html: markdown(&t),
            })
        })
        .collect();
    Tab {
        index,
        reports,
        invalid,
    }
}
