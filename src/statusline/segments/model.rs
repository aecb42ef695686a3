//! `model`: the model's display name (`Opus 5.5`), first on the line.

use super::{Input, Piece, piece, var};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelConfig {
    /// Variables: `$name` (display name, else id), `$id`.
    pub format: String,
    pub style: String,
    pub disabled: bool,
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            format: "$name".into(),
            style: "bold".into(),
            disabled: false,
        }
    }
}

pub fn render(cfg: &ModelConfig, input: &Input) -> Option<Piece> {
    let name = input.model_label()?;
    piece(&cfg.format, &cfg.style, &|v| match v {
        "name" => var(name),
        "id" => Some(input.model_id.clone()),
        _ => None,
    })
}
