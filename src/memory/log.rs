//! The daily log's Markdown format: parse, render, merge (SPEC §1.2–1.4).
//!
//! PLACEHOLDER INTERFACE — being implemented; the signatures below are the contract.

use crate::extract::record::Sections;

/// Language of headings written into a new file. Both are always read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    Fr,
    En,
}

/// A parsed daily log. Keeps unknown sections and unknown lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DailyLog {
    pub date: String,
    pub lang: Lang,
}

/// What a merge changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeOutcome {
    pub added: usize,
    pub finalized: Vec<String>,
}

impl DailyLog {
    pub fn new(date: &str, lang: Lang) -> Self {
        DailyLog { date: date.to_string(), lang }
    }
    pub fn parse(text: &str, date: &str, default_lang: Lang) -> Self {
        let _ = text;
        Self::new(date, default_lang)
    }
    pub fn render(&self) -> String {
        String::new()
    }
    pub fn merge(&mut self, sections: &Sections, max_len: usize) -> MergeOutcome {
        let _ = (sections, max_len);
        MergeOutcome::default()
    }
    /// Open `À suivre` bullets, text without the `- ` marker.
    pub fn open_todos(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Appends a dated block to `long_memory.md`'s text (creating the title when empty).
pub fn append_long_memory(existing: &str, project: &str, date: &str, text: &str, lang: Lang) -> String {
    let _ = (project, date, text, lang);
    existing.to_string()
}
