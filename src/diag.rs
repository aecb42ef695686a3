//! diag
