//! The extraction record: the seeds' JSON shape, whatever the backend.

use serde::{Deserialize, Serialize};

/// `{"updates":[…]}` as the seeds' prompt asks for it and `.debug/` keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extraction {
    #[serde(default)]
    pub updates: Vec<Update>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Update {
    #[serde(default)]
    pub project: String,
    #[serde(default)]
    pub sections: Sections,
    #[serde(default)]
    pub long_memory_update: Option<String>,
}

/// One list of bullets per section key of the seeds' format.
/// Unknown keys in an answer are ignored; missing keys are empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sections {
    pub contexte: Vec<String>,
    pub objectif: Vec<String>,
    pub problemes: Vec<String>,
    pub connaissances: Vec<String>,
    pub travail: Vec<String>,
    pub decisions: Vec<String>,
    pub a_suivre: Vec<String>,
    pub a_suivre_done: Vec<String>,
    /// Problems an earlier Stop of the day wrote as unresolved that a later
    /// turn got past. cairn's own field (not the seeds'), absent from an
    /// LLM's answer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problemes_resolus: Vec<Resolution>,
}

/// The problem bullet of today's log that starts with `head` and ends
/// with `was` (the unresolved mark) ends with `now` instead.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Resolution {
    pub head: String,
    pub was: String,
    pub now: String,
}

impl Sections {
    pub fn is_empty(&self) -> bool {
        self.contexte.is_empty()
            && self.objectif.is_empty()
            && self.problemes.is_empty()
            && self.connaissances.is_empty()
            && self.travail.is_empty()
            && self.decisions.is_empty()
            && self.a_suivre.is_empty()
            && self.a_suivre_done.is_empty()
            && self.problemes_resolus.is_empty()
    }

    /// Every bullet list that is appended as-is (all but `a_suivre_done`), with its key.
    pub fn appendable(&self) -> [(&'static str, &Vec<String>); 7] {
        [
            ("contexte", &self.contexte),
            ("objectif", &self.objectif),
            ("problemes", &self.problemes),
            ("connaissances", &self.connaissances),
            ("travail", &self.travail),
            ("decisions", &self.decisions),
            ("a_suivre", &self.a_suivre),
        ]
    }

    pub fn all_mut(&mut self) -> [&mut Vec<String>; 8] {
        [
            &mut self.contexte,
            &mut self.objectif,
            &mut self.problemes,
            &mut self.connaissances,
            &mut self.travail,
            &mut self.decisions,
            &mut self.a_suivre,
            &mut self.a_suivre_done,
        ]
    }
}
