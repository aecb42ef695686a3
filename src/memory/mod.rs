//! Session memory: log format, store, spool, capture, worker, load, promote.

pub mod capture;
pub mod commands;
pub mod load;
pub mod log;
pub mod promote;
pub mod session;
pub mod spool;
pub mod store;
pub mod worker;
