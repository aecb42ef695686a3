//! Session memory: log format, store, spool, worker, load, promote.

pub mod log;
