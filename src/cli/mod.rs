//! What the user commands print, above the features they combine: each
//! function takes the sections it needs, already loaded by `main.rs`, and
//! returns the text (or the error) to show.

pub mod memory;
