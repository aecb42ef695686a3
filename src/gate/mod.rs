//! The refine gate (UserPromptSubmit, SPEC §2.1).
//!
//! PLACEHOLDER — being implemented.

use serde::{Deserialize, Serialize};

/// `[gate]` settings. Every pattern class can be turned off.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateConfig {}
