//! fsutil
