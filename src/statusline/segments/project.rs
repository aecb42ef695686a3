//! `project`: the name of the folder the session belongs to.

use super::{Input, Piece, piece, var};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProjectConfig {
    /// Variables: `$name` (last component of `workspace.project_dir`, else
    /// of the current folder), `$dir` (the current folder's name, empty when
    /// it is the project folder itself).
    pub format: String,
    pub style: String,
    pub disabled: bool,
}

impl Default for ProjectConfig {
    fn default() -> Self {
        ProjectConfig {
            format: "$name".into(),
            style: "blue".into(),
            disabled: false,
        }
    }
}

pub fn render(cfg: &ProjectConfig, input: &Input) -> Option<Piece> {
    let project = input.project_dir()?;
    let name = folder_name(project)?;
    let dir = input
        .work_dir()
        .filter(|d| *d != project)
        .and_then(folder_name);
    piece(&cfg.format, &cfg.style, &|v| match v {
        "name" => var(name.as_str()),
        "dir" => Some(dir.clone()),
        _ => None,
    })
}

/// `/` has no name; show it as `/` rather than nothing.
fn folder_name(p: &std::path::Path) -> Option<String> {
    match p.file_name() {
        Some(n) => Some(n.to_string_lossy().into_owned()),
        None => p.has_root().then(|| "/".to_string()),
    }
}
