#!/usr/bin/env bash
# The whole test suite: formatting, lints, doc links, unit + integration tests,
# then the real-client end-to-end test (which installs Claude Code from npm
# itself).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets -- -D warnings
echo "== cargo doc"
# A doc comment that links to a renamed, removed or private item fails here
# instead of going stale.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps
echo "== cargo test"
cargo test
# tests/it/memory_quality.rs leaves its figures there; libtest hides test output.
if [ -f target/memory-quality/report.md ]; then
  echo "== memory quality (target/memory-quality/report.md)"
  cat target/memory-quality/report.md
fi
echo "== real-client end-to-end"
# cargo test built target/debug/cairn: reuse it instead of a second, release build.
CAIRN_BIN=target/debug/cairn bash scripts/e2e.sh
echo "== cairn site in headless Chromium"
bash scripts/site_browser.sh
