//! `[usage]` settings.
//!
//! PLACEHOLDER — being implemented.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UsageConfig {}
