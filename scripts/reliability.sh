#!/usr/bin/env bash
# The long part of the reliability suite (docs/RELIABILITY.md): the same
# tests as `cargo test --test it -- reliability::`, knobs raised, release build,
# then the figures. Override any knob from the environment, e.g.
#   CAIRN_REL_CRASH_TURNS=50 CAIRN_FUZZ_SECS=10 scripts/reliability.sh
# CAIRN_REL_PROFILE=debug skips the (slow, LTO) release build.
set -uo pipefail
cd "$(dirname "$0")/.."

export CAIRN_REL_CRASH_RUNS="${CAIRN_REL_CRASH_RUNS:-3}"
export CAIRN_REL_CRASH_TURNS="${CAIRN_REL_CRASH_TURNS:-200}"
export CAIRN_REL_CRASH_KILLS="${CAIRN_REL_CRASH_KILLS:-100}"
export CAIRN_REL_CONC_HOOKS="${CAIRN_REL_CONC_HOOKS:-64}"
export CAIRN_REL_CONC_ROUNDS="${CAIRN_REL_CONC_ROUNDS:-10}"
export CAIRN_FUZZ_SECS="${CAIRN_FUZZ_SECS:-600}"
# Ignored checks (waiting for a fix of issue 9) run too with INCLUDE_IGNORED=1.
extra=()
[ "${INCLUDE_IGNORED:-0}" = 1 ] && extra+=(--include-ignored)
profile=(--release)
[ "${CAIRN_REL_PROFILE:-release}" = debug ] && profile=()

log="$(mktemp -t cairn-reliability.XXXXXX)"
echo "== reliability: crash ${CAIRN_REL_CRASH_RUNS}x${CAIRN_REL_CRASH_TURNS} turns/${CAIRN_REL_CRASH_KILLS} kills, concurrency ${CAIRN_REL_CONC_HOOKS}x${CAIRN_REL_CONC_ROUNDS}, fuzz ${CAIRN_FUZZ_SECS}s/target"
echo "== commit $(git rev-parse --short HEAD) $(git diff --quiet || echo '(dirty)') on $(date -u +%Y-%m-%d)"
start=$(date +%s)
cargo test "${profile[@]}" --test it -- reliability:: --nocapture --test-threads=1 "${extra[@]}" >"$log" 2>&1
status=$?
end=$(date +%s)

echo "== figures"
grep -ao 'RELIABILITY .*' "$log" | sed 's/^RELIABILITY /  /'
echo "== totals"
grep -ao 'RELIABILITY crash:.*' "$log" | awk '
  { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] += kv[2] } }
  END { printf "  crash: turns accepted %d, in log %d, lost %d, duplicated %d, worker kills %d, hook kills %d\n",
        v["accepted"], v["in_log"], v["lost"], v["duplicated"], v["kills_worker"], v["kills_hook"] }'
grep -ao 'RELIABILITY fuzz:.*' "$log" | awk '
  { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "inputs") n += kv[2] } }
  END { printf "  fuzz: %d inputs, 0 panics unless a test failed below\n", n }'
hangs=$(grep -ac 'hung (killed after' "$log")
echo "  hangs caught by the watchdog: $hangs"
grep -a -E '^test .*(FAILED|ignored)|^test result' "$log" | sed 's/^/  /'
echo "== $((end - start)) s, full output in $log"
exit $status
