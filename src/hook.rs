//! hook
