//! Session memory as data: the log format, the store (project root,
//! sub-projects, confined paths), per-session state, loading, promotion.
//! Capturing turns into it is `capture`'s job.

pub mod config;
pub mod load;
pub mod log;
pub mod promote;
pub mod session;
pub mod store;
