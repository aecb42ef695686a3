//! The context guard (Stop/SubagentStop, SPEC §2.2).
//!
//! PLACEHOLDER — being implemented.

use serde::{Deserialize, Serialize};

/// `[guard]` settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GuardConfig {}
