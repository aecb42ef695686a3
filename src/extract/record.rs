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

/// The bullets per section: the log's type, which the extraction record
/// fills.
pub use crate::memory::log::{Resolution, Revision, Sections};
