#!/usr/bin/env bash
# `cairn site`'s page in a real browser: writes the fixture project's page
# (tests/it/site.rs, ignored test `site::write_fixture_site`), then drives headless
# Chromium over the DevTools protocol (scripts/site_browser.mjs).
# Screenshots of every tab at 1280 and 390 px go to target/site-screens/.
# Without chromium or node it skips, loudly; under CI=true it fails instead.
set -euo pipefail
cd "$(dirname "$0")/.."
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
missing=""
[ -x "$CHROMIUM" ] || missing="chromium ($CHROMIUM; Debian package \`chromium\`)"
command -v node >/dev/null || missing="${missing:+$missing, }node"
if [ -n "$missing" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: the site browser test needs $missing" >&2
    exit 1
  fi
  echo "########################################################################" >&2
  echo "## SKIPPED: the site browser test needs $missing" >&2
  echo "## install it (apt-get install -y chromium) to check the page for real" >&2
  echo "########################################################################" >&2
  exit 0
fi
cargo test --quiet --test it -- --ignored --exact site::write_fixture_site
rm -rf target/site-screens
CHROMIUM="$CHROMIUM" node scripts/site_browser.mjs target/site-fixture/index.html target/site-screens \
  2> >(grep -v -e 'dbus' -e 'Fontconfig' >&2)
