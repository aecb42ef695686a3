//! install
