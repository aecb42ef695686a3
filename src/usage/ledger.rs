//! The persistent ledger of money cairn itself spends (memory extraction).
//! Append-only JSON lines in the state folder, one per backend call, so it
//! outlives transcripts and survives concurrent writers.

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub ts: String,
    /// Local date the spend counts against.
    pub date: String,
    pub kind: String,
    pub backend: String,
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// `None` when the model has no known price.
    pub usd: Option<f64>,
}

pub fn path(state_dir: &Path) -> PathBuf {
    state_dir.join("ledger/memory.jsonl")
}

pub fn append(state_dir: &Path, entry: &Entry) -> std::io::Result<()> {
    let p = path(state_dir);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d)?;
    }
    let mut line = serde_json::to_string(entry)?;
    line.push('\n');
    // One short O_APPEND write per entry: concurrent workers do not interleave.
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(p)?
        .write_all(line.as_bytes())
}

/// Entries of the ledger; unreadable lines are skipped.
pub fn entries(state_dir: &Path) -> Vec<Entry> {
    std::fs::read_to_string(path(state_dir))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Dollars spent on memory extraction on `date`.
pub fn memory_spend_on(state_dir: &Path, date: &str) -> f64 {
    entries(state_dir)
        .iter()
        .filter(|e| e.date == date && e.kind == "memory")
        .filter_map(|e| e.usd)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spend_sums_one_day_and_skips_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let e = |date: &str, usd| Entry {
            ts: "t".into(),
            date: date.into(),
            kind: "memory".into(),
            backend: "anthropic".into(),
            model: "claude-haiku-4-5".into(),
            input_tokens: 1,
            output_tokens: 1,
            cache_write_tokens: 0,
            cache_read_tokens: 0,
            usd,
        };
        append(dir.path(), &e("2026-11-30", Some(0.25))).unwrap();
        append(dir.path(), &e("2026-11-30", None)).unwrap();
        append(dir.path(), &e("2026-11-29", Some(9.0))).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(path(dir.path()))
            .unwrap()
            .write_all(b"{oops\n")
            .unwrap();
        append(dir.path(), &e("2026-11-30", Some(0.5))).unwrap();
        assert_eq!(memory_spend_on(dir.path(), "2026-11-30"), 0.75);
    }
}
