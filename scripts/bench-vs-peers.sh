#!/usr/bin/env bash
# bench-vs-peers.sh — `cairn usage daily --json` against `ccusage daily --json`
# on a generated ~1 GiB Claude Code transcript corpus (cold and warm), and
# `cairn statusline` against ccstatusline on the corpus' ~100 MiB session.
#
#   scripts/bench-vs-peers.sh [--gb X] [--seed N] [--end-date YYYY-MM-DD]
#                             [--corpus DIR] [--keep] [--runs N] [--warm-runs N]
#                             [--sl-runs N] [--mem-runs N] [--build]
#                             [--python-timer] [--no-statusline]
#
#   --gb X          corpus size in GiB (default 1.0; 0.05 for a smoke run)
#   --seed N        generator seed (default 42)
#   --end-date D    last UTC day of the corpus, 60 days in all (default: today,
#                   up to the current time: today's spend is part of it)
#   --corpus DIR    reuse the corpus in DIR (made by an earlier run: DIR/truth.json);
#                   if DIR has no corpus yet, generate it there and keep it
#   --keep          keep the work dir (its path is printed; its corpus/ can be
#                   passed to --corpus next time)
#   --runs N        timed runs of ccusage and of cairn cold (default 10)
#   --warm-runs N   timed runs of cairn warm (default 30)
#   --sl-runs N     timed runs of each status line case (default 20)
#   --mem-runs N    runs under /usr/bin/time for peak memory (default 3)
#   --build         cargo build --release even if target/release/cairn exists
#   --python-timer  use the Python timing loop even if hyperfine is installed
#   --no-statusline skip the status line part
#
# What is measured:
# - ccusage (npm `ccusage`, installed into ${CAIRN_BENCH_CACHE:-~/.cache/cairn-bench})
#   runs as `ccusage daily --json --offline --timezone UTC` (offline: its
#   embedded price snapshot, no network). Its native binary is timed directly,
#   without the npm package's Node launcher. It keeps no state, so one timing
#   serves both ratios.
# - cairn runs as `cairn usage daily --json` with TZ=UTC, CLAUDE_CONFIG_DIR at
#   the corpus and CAIRN_STATE_DIR in the work dir. "cold" = no cairn state
#   (removed before every run); "warm" = the state the previous run left.
# - The page cache cannot be dropped here, so nothing is "disk cold": the corpus
#   is read once and every tool runs once before timing, so every timed run
#   reads from the page cache.
# - Peak memory: max RSS from /usr/bin/time (--mem-runs runs each).
# - Correctness: tokens per day (input, output, cache creation, cache read) of
#   cairn must equal ccusage's and the generator's ground truth (deduplicated
#   by message id + request id); dollar differences are printed per model.
# - Status line: ccstatusline (npm) with widgets model, context %, session cost
#   and total tokens, against `cairn statusline`, on one 2.1.332 payload whose
#   transcript is the corpus' largest session; first render (no state or cache
#   of either tool) and warm render; median of --sl-runs runs.
#
# Results: a table on stdout and target/bench-vs-peers.json. Exit 0 when all
# ran and every token total agrees, 1 on a token mismatch, 2 when cairn lacks
# `usage daily --json` or `statusline` (the peer side is still measured).
#
# Environment: CAIRN_BIN (default target/release/cairn, built if missing),
# CAIRN_BENCH_CACHE (npm install folder), CCUSAGE_VERSION (default 20.0.24),
# CCSTATUSLINE_VERSION (default 2.2.30), BENCH_NO_INSTALL=1 (never apt-get).
# Needs python3, node and npm (the npm registry is the only network used).
set -euo pipefail

ORIG_PWD=$(pwd)
cd "$(dirname "$0")/.."
REPO=$(pwd)
PEERS="$REPO/scripts/bench/peers"

die() { echo "bench-vs-peers: $*" >&2; exit 1; }
step() { echo "== $*"; }
abs() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$2/$1" ;; esac; }

GB=1.0
SEED=42
END_DATE=$(date -u +%Y-%m-%d)
END_TIME=$(date -u +%H:%M)
CORPUS_ARG=""
KEEP=0
RUNS=10
WARM_RUNS=30
SL_RUNS=20
MEM_RUNS=3
BUILD=0
TIMER_KIND=auto
STATUSLINE=1
while [ $# -gt 0 ]; do
  case "$1" in
    --gb) GB=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --end-date) END_DATE=$2; END_TIME=23:59; shift 2 ;;
    --corpus) CORPUS_ARG=$(abs "$2" "$ORIG_PWD"); shift 2 ;;
    --keep) KEEP=1; shift ;;
    --runs) RUNS=$2; shift 2 ;;
    --warm-runs) WARM_RUNS=$2; shift 2 ;;
    --sl-runs) SL_RUNS=$2; shift 2 ;;
    --mem-runs) MEM_RUNS=$2; shift 2 ;;
    --build) BUILD=1; shift ;;
    --python-timer) TIMER_KIND=python; shift ;;
    --no-statusline) STATUSLINE=0; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "bench-vs-peers: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$RUNS$WARM_RUNS$SL_RUNS$MEM_RUNS$SEED" in *[!0-9]*) die "--runs, --warm-runs, --sl-runs, --mem-runs and --seed take whole numbers" ;; esac
if [ "$RUNS" -lt 2 ] || [ "$WARM_RUNS" -lt 2 ] || [ "$SL_RUNS" -lt 2 ]; then die "each run count must be at least 2"; fi
[ "$MEM_RUNS" -ge 1 ] || die "--mem-runs must be at least 1"
[ "$SL_RUNS" -ge 20 ] || echo "bench-vs-peers: warning: $SL_RUNS status line runs (the issue asks for at least 20)" >&2
python3 -c "import sys; v=float(sys.argv[1]); assert 0 < v <= 64" "$GB" 2>/dev/null || die "--gb takes a size in GiB (0 < X <= 64), got '$GB'"

for tool in python3 node npm; do command -v "$tool" >/dev/null || die "$tool is needed"; done
CACHE=${CAIRN_BENCH_CACHE:-$HOME/.cache/cairn-bench}
CACHE=$(abs "$CACHE" "$ORIG_PWD")
CCUSAGE_VERSION=${CCUSAGE_VERSION:-20.0.24}
CCSTATUSLINE_VERSION=${CCSTATUSLINE_VERSION:-2.2.30}
if [ -n "${CAIRN_BIN:-}" ]; then CAIRN=$(abs "$CAIRN_BIN" "$ORIG_PWD"); else CAIRN="$REPO/target/release/cairn"; fi

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "0 0 0")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench-vs-peers.XXXXXX")
cleanup() {
  if [ "$KEEP" = 1 ]; then echo "work dir kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
R="$WORK/results"
mkdir -p "$R/timing" "$R/mem" "$R/out" "$WORK/home" "$WORK/tmp" "$WORK/bin"
NOTES=()

# --- 1. tools: apt (hyperfine, GNU time), npm (ccusage, ccstatusline) -----------
apt_install() { # PACKAGE
  [ -z "${BENCH_NO_INSTALL:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 1
  DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq "$1" >/dev/null 2>&1 \
    || { timeout 300 apt-get update -qq >/dev/null 2>&1 \
         && DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq "$1" >/dev/null 2>&1; }
}
if [ "$TIMER_KIND" = auto ] && ! command -v hyperfine >/dev/null 2>&1; then
  step "installing hyperfine (Debian package)"
  apt_install hyperfine || echo "   could not install hyperfine; using the Python timing loop"
fi
if [ "$TIMER_KIND" = auto ] && command -v hyperfine >/dev/null 2>&1; then
  TIMER_KIND=hyperfine; TIMER=$(hyperfine --version)
else
  TIMER_KIND=python; TIMER="python scripts/bench/time_cmd.py"
fi
if ! /usr/bin/time -f '%M' true >/dev/null 2>&1; then
  step "installing GNU time (Debian package)"
  apt_install time || die "/usr/bin/time (GNU time) is needed for peak memory; install the 'time' package"
fi

step "peers: ccusage@$CCUSAGE_VERSION and ccstatusline@$CCSTATUSLINE_VERSION in $CACHE/npm"
NPM_DIR="$CACHE/npm"
mkdir -p "$NPM_DIR"
[ -f "$NPM_DIR/package.json" ] || echo '{"name": "cairn-bench-peers", "private": true}' >"$NPM_DIR/package.json"
installed_version() { # PACKAGE
  node -e 'try { console.log(require(process.argv[1] + "/node_modules/" + process.argv[2] + "/package.json").version) } catch { }' \
    "$NPM_DIR" "$1"
}
if [ "$(installed_version ccusage)" != "$CCUSAGE_VERSION" ] || [ "$(installed_version ccstatusline)" != "$CCSTATUSLINE_VERSION" ]; then
  (cd "$NPM_DIR" && timeout 600 npm install --no-audit --no-fund --loglevel=error --include=optional \
      "ccusage@$CCUSAGE_VERSION" "ccstatusline@$CCSTATUSLINE_VERSION") \
    || die "npm install of ccusage@$CCUSAGE_VERSION / ccstatusline@$CCSTATUSLINE_VERSION failed"
fi
PLATFORM=$(node -p 'process.platform + "-" + process.arch')
CCUSAGE_NATIVE="$NPM_DIR/node_modules/@ccusage/ccusage-$PLATFORM/bin/ccusage"
if [ -x "$CCUSAGE_NATIVE" ]; then
  CCUSAGE=("$CCUSAGE_NATIVE")
  CCUSAGE_KIND="native binary of @ccusage/ccusage-$PLATFORM (the npm launcher is not timed)"
else
  # before 20.x the package was a Node program
  CCUSAGE_JS=$(node -e 'const p=require(process.argv[1]+"/node_modules/ccusage/package.json"); const b=typeof p.bin==="string"?p.bin:p.bin.ccusage; console.log(require("path").join(process.argv[1],"node_modules/ccusage",b))' "$NPM_DIR")
  CCUSAGE=(node "$CCUSAGE_JS")
  CCUSAGE_KIND="Node program $CCUSAGE_JS"
fi
"${CCUSAGE[@]}" --version >/dev/null 2>&1 \
  || die "ccusage@$CCUSAGE_VERSION does not run here (${CCUSAGE[*]}); its native package for $PLATFORM may be missing from the registry (20.0.26 has none): set CCUSAGE_VERSION"
CCUSAGE_REPORTED=$("${CCUSAGE[@]}" --version 2>/dev/null | head -n 1)
CCS_JS="$NPM_DIR/node_modules/ccstatusline/dist/ccstatusline.js"
[ -f "$CCS_JS" ] || die "ccstatusline's dist/ccstatusline.js is missing in $NPM_DIR"
NODE_VERSION=$(node --version)
echo "   ccusage: $CCUSAGE_REPORTED, $CCUSAGE_KIND"
echo "   ccstatusline: $(installed_version ccstatusline) on node $NODE_VERSION"

# --- 2. cairn ---------------------------------------------------------------------
step "cairn: $CAIRN"
if [ -n "${CAIRN_BIN:-}" ]; then
  [ "$BUILD" = 0 ] || die "--build builds target/release/cairn: unset CAIRN_BIN to use it"
  [ -x "$CAIRN" ] || die "CAIRN_BIN=$CAIRN_BIN is not an executable"
elif [ ! -x "$CAIRN" ] || [ "$BUILD" = 1 ]; then
  echo "   cargo build --release"
  cargo build --release --quiet || die "cargo build --release failed"
  [ -x "$CAIRN" ] || die "cargo build --release did not produce $CAIRN"
fi
CAIRN_VERSION=$("$CAIRN" --version 2>/dev/null || echo unknown)
GIT_REV=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ]; then GIT_REV="$GIT_REV+dirty"; fi
HAS_USAGE=0; "$CAIRN" usage daily --help >/dev/null 2>&1 && HAS_USAGE=1
HAS_SL=0; "$CAIRN" statusline --help >/dev/null 2>&1 && HAS_SL=1
MISSING=()
[ "$HAS_USAGE" = 1 ] || MISSING+=("cairn usage daily --json")
[ "$HAS_SL" = 1 ] || [ "$STATUSLINE" = 0 ] || MISSING+=("cairn statusline")
echo "   $CAIRN_VERSION ($GIT_REV); usage daily: $([ "$HAS_USAGE" = 1 ] && echo yes || echo MISSING); statusline: $([ "$HAS_SL" = 1 ] && echo yes || echo MISSING)"

# --- 3. corpus ----------------------------------------------------------------------
REUSED=0
if [ -n "$CORPUS_ARG" ]; then CORPUS=$CORPUS_ARG; else CORPUS="$WORK/corpus"; fi
if [ -f "$CORPUS/truth.json" ]; then
  REUSED=1
  step "corpus: reusing $CORPUS"
  python3 - "$CORPUS/truth.json" "$GB" "$SEED" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["params"]
if abs(p["gb"] - float(sys.argv[2])) > 1e-9 or p["seed"] != int(sys.argv[3]):
    print("   note: the corpus was made with --gb %s --seed %s --end-date %s (not this run's --gb/--seed)"
          % (p["gb"], p["seed"], p["end_date"]))
PY
else
  [ ! -e "$CORPUS" ] || [ -z "$(ls -A "$CORPUS")" ] || die "--corpus $CORPUS is not empty and has no truth.json"
  step "corpus: generating ${GB} GiB into $CORPUS (seed $SEED, 60 days to $END_DATE $END_TIME UTC)"
  python3 "$PEERS/make_corpus.py" --out "$CORPUS" --gb "$GB" --seed "$SEED" --end-date "$END_DATE" \
    --end-time "$END_TIME" \
    || die "corpus generation failed"
fi
[ -d "$CORPUS/claude/projects" ] || die "$CORPUS/claude/projects is missing"
TRUTH="$CORPUS/truth.json"
step "page cache: reading the corpus once (dropping caches is not possible here)"
t0=$(date +%s.%N)
find "$CORPUS/claude" -type f -print0 | xargs -0 cat >/dev/null
echo "   $(du -sh "$CORPUS/claude" | cut -f1) read in $(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)") s"
NOTES+=("page cache not dropped (not permitted here): the corpus was read once and each tool ran before timing, so every timed run reads from the page cache; cold for cairn means no cairn state")

# --- 4. an isolated world for the tools ------------------------------------------------
STATE="$WORK/state"
while IFS= read -r v; do unset "$v"; done < <(compgen -e | grep '^CAIRN_' || true)
unset CCUSAGE_CONFIG CLAUDE_CODE_ENTRYPOINT CLAUDECODE 2>/dev/null || true
export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config" XDG_CACHE_HOME="$WORK/home/.cache" \
  XDG_STATE_HOME="$WORK/home/.local/state" XDG_DATA_HOME="$WORK/home/.local/share" TMPDIR="$WORK/tmp" \
  TZ=UTC LC_ALL=C.UTF-8 NO_COLOR=1 COLUMNS=160 LINES=50 \
  CLAUDE_CONFIG_DIR="$CORPUS/claude" CAIRN_STATE_DIR="$STATE"
# What a cold run must not find: cairn's state and any cache it might keep under
# HOME (or, for the status line, ccstatusline's cache). It is moved aside, not
# deleted, until the end: deleting ~1,000 files before every run would make
# the next run's file creations pay for ext4's skipping of recently deleted
# inodes, which a real first run does not meet.
mkdir -p "$WORK/trash"
write_reset() { # SCRIPT DIR...
  local script=$1; shift
  {
    echo '#!/usr/bin/env bash'
    echo "t=$(printf '%q' "$WORK/trash")/\$(date +%s%N); mkdir -p \"\$t\"; i=0"
    echo "for d in $(printf '%q ' "$@"); do i=\$((i + 1)); if [ -e \"\$d\" ]; then mv \"\$d\" \"\$t/\$i\"; fi; done"
  } >"$script"
  chmod +x "$script"
}
RESET_CMD="$WORK/bin/reset-cairn-state"
write_reset "$RESET_CMD" "$STATE" "$WORK/home/.cache/cairn" "$WORK/home/.local/state/cairn" "$WORK/home/.local/share/cairn"
CCS_RESET_CMD="$WORK/bin/reset-ccstatusline-cache"
write_reset "$CCS_RESET_CMD" "$WORK/home/.cache/ccstatusline"
reset_state() { "$RESET_CMD"; }

CCUSAGE_ARGS=(daily --json --offline --timezone UTC)
CAIRN_USAGE_ARGS=(usage daily --json)

measure_mem() { # KEY OUT -- CMD... : one run under /usr/bin/time, output kept in OUT
  local key=$1 out=$2; shift 3
  /usr/bin/time -f '%M %e %U %S' -a -o "$R/mem/$key.txt" "$@" </dev/null >"$out" 2>"$out.err" \
    || { tail -n 5 "$out.err" >&2; die "$key: '$*' failed (stderr above)"; }
}

time_it() { # KEY NAME RUNS WARMUP STDIN PREPARE -- CMD...   (STDIN, PREPARE: "" for none)
  local key=$1 name=$2 runs=$3 warmup=$4 stdin=$5 prepare=$6; shift 7
  local out="$R/timing/$key.json" cmd
  cmd=$(printf '%q ' "$@")
  if [ "$TIMER_KIND" = hyperfine ]; then
    local -a hf=(hyperfine --style basic --time-unit millisecond --warmup "$warmup" --runs "$runs"
                 --export-json "$out" --command-name "$name")
    [ -z "$prepare" ] || hf+=(--prepare "$prepare")
    if [ -n "$stdin" ]; then
      hf+=("$cmd< $(printf '%q' "$stdin")")
    else
      hf+=(-N "$cmd")
    fi
    "${hf[@]}" || die "hyperfine failed for $name"
  else
    local -a py=(python3 "$PEERS/../time_cmd.py" --name "$name" --warmup "$warmup" --runs "$runs" --export-json "$out")
    [ -z "$stdin" ] || py+=(--input "$stdin")
    [ -z "$prepare" ] || py+=(--prepare "$prepare")
    "${py[@]}" -- "$@" || die "timing failed for $name"
  fi
}

# --- 5. usage daily: correctness and memory --------------------------------------------
step "usage: ccusage ${CCUSAGE_ARGS[*]} ($MEM_RUNS run(s) under /usr/bin/time)"
for _ in $(seq "$MEM_RUNS"); do
  measure_mem usage.ccusage "$R/out/ccusage.json" -- "${CCUSAGE[@]}" "${CCUSAGE_ARGS[@]}"
done
COMPARE_ARGS=(--truth "$TRUTH" --ccusage "$R/out/ccusage.json" --out "$R/compare.json")
if [ "$HAS_USAGE" = 1 ]; then
  step "usage: cairn ${CAIRN_USAGE_ARGS[*]}, cold ($MEM_RUNS run(s), no state before each) then warm ($MEM_RUNS)"
  for _ in $(seq "$MEM_RUNS"); do
    reset_state
    measure_mem usage.cairn_cold "$R/out/cairn-cold.json" -- "$CAIRN" "${CAIRN_USAGE_ARGS[@]}"
  done
  for _ in $(seq "$MEM_RUNS"); do
    measure_mem usage.cairn_warm "$R/out/cairn-warm.json" -- "$CAIRN" "${CAIRN_USAGE_ARGS[@]}"
  done
  STATE_BYTES=$(du -sb "$STATE" 2>/dev/null | cut -f1 || echo 0)
  STRAY=$(cd "$WORK/home" && find . -mindepth 1 -maxdepth 3 -newer "$R/out/ccusage.json" 2>/dev/null \
    | { grep -v '^\./\.cache$\|^\./\.local$' || true; } | head -n 5 | tr '\n' ' ')
  [ -z "$STRAY" ] || NOTES+=("files cairn (or ccusage) wrote under HOME besides CAIRN_STATE_DIR: $STRAY")
  echo "   cairn state after the runs: ${STATE_BYTES:-0} bytes"
  COMPARE_ARGS+=(--cairn "$R/out/cairn-cold.json" --cairn-warm "$R/out/cairn-warm.json")
else
  STATE_BYTES=0
fi
step "correctness: tokens per day, truth vs ccusage$([ "$HAS_USAGE" = 1 ] && echo " vs cairn")"
TOKENS_OK=1
python3 "$PEERS/compare.py" "${COMPARE_ARGS[@]}" || TOKENS_OK=0

# --- 6. usage daily: timing ---------------------------------------------------------------
step "usage: timing ccusage (1 warmup + $RUNS runs)"
time_it usage.ccusage "ccusage daily" "$RUNS" 1 "" "" -- "${CCUSAGE[@]}" "${CCUSAGE_ARGS[@]}"
if [ "$HAS_USAGE" = 1 ]; then
  step "usage: timing cairn cold (no state before each run; 1 warmup + $RUNS runs)"
  time_it usage.cairn_cold "cairn usage daily (cold)" "$RUNS" 1 "" "$RESET_CMD" -- "$CAIRN" "${CAIRN_USAGE_ARGS[@]}"
  step "usage: timing cairn warm (state kept; 2 warmup + $WARM_RUNS runs)"
  time_it usage.cairn_warm "cairn usage daily (warm)" "$WARM_RUNS" 2 "" "" -- "$CAIRN" "${CAIRN_USAGE_ARGS[@]}"
fi

# --- 7. status line ------------------------------------------------------------------------
SL_BYTES=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["statusline"]["transcript_bytes"])' "$TRUTH")
if [ "$STATUSLINE" = 1 ]; then
  PAYLOAD="$WORK/statusline-payload.json"
  python3 "$PEERS/make_payload.py" --corpus "$CORPUS" --out "$PAYLOAD"
  CCS_CONFIG="$WORK/ccstatusline-settings.json"
  cat >"$CCS_CONFIG" <<'EOF'
{"version": 4, "colorLevel": 0, "flexMode": "full",
 "lines": [[{"id": "1", "type": "model"}, {"id": "2", "type": "separator"},
            {"id": "3", "type": "context-percentage"}, {"id": "4", "type": "separator"},
            {"id": "5", "type": "session-cost"}, {"id": "6", "type": "separator"},
            {"id": "7", "type": "tokens-total"}], [], []]}
EOF
  export CCSTATUSLINE_WIDTH=160
  CCS=(node "$CCS_JS" --config "$CCS_CONFIG")
  NOTES+=("ccstatusline: widgets model, context-percentage, session-cost, tokens-total; CCSTATUSLINE_WIDTH=160 spares it its ps/stty width probe; it reads the whole transcript and the subagent files it references on every render")
  step "status line: $(python3 -c "print('%.1f' % ($SL_BYTES / 1048576))") MiB transcript; validation and memory"
  sl_mem() { # KEY OUT -- CMD...
    local key=$1 out=$2; shift 3
    /usr/bin/time -f '%M %e %U %S' -a -o "$R/mem/$key.txt" "$@" <"$PAYLOAD" >"$out" 2>"$out.err" \
      || { tail -n 5 "$out.err" >&2; die "$key: '$*' failed"; }
    [ -s "$out" ] || die "$key: '$*' printed nothing"
  }
  for _ in $(seq "$MEM_RUNS"); do
    "$CCS_RESET_CMD"
    sl_mem sl.ccstatusline_first "$R/out/ccstatusline.txt" -- "${CCS[@]}"
    sl_mem sl.ccstatusline_warm "$R/out/ccstatusline.txt" -- "${CCS[@]}"
  done
  # (ccstatusline separates with no-break spaces)
  python3 -c 'import json, sys; name = json.load(open(sys.argv[1]))["statusline"]["display_name"]
sys.exit(name not in open(sys.argv[2], encoding="utf-8").read().replace("\u00a0", " "))' "$TRUTH" "$R/out/ccstatusline.txt" \
    || die "ccstatusline's line does not show the model: $(cat "$R/out/ccstatusline.txt")"
  echo "   ccstatusline: $(head -n 1 "$R/out/ccstatusline.txt")"
  if [ "$HAS_SL" = 1 ]; then
    for _ in $(seq "$MEM_RUNS"); do
      reset_state
      sl_mem sl.cairn_first "$R/out/cairn-statusline.txt" -- "$CAIRN" statusline
      sl_mem sl.cairn_warm "$R/out/cairn-statusline.txt" -- "$CAIRN" statusline
    done
    echo "   cairn:        $(head -n 1 "$R/out/cairn-statusline.txt")"
    step "status line: timing ($SL_RUNS runs per case)"
    time_it sl.cairn_first "cairn statusline (first)" "$SL_RUNS" 1 "$PAYLOAD" "$RESET_CMD" -- "$CAIRN" statusline
    time_it sl.cairn_warm "cairn statusline (warm)" "$SL_RUNS" 3 "$PAYLOAD" "" -- "$CAIRN" statusline
  else
    step "status line: timing ccstatusline only ($SL_RUNS runs per case): cairn has no statusline command"
  fi
  time_it sl.ccstatusline_first "ccstatusline (first)" "$SL_RUNS" 1 "$PAYLOAD" "$CCS_RESET_CMD" -- "${CCS[@]}"
  time_it sl.ccstatusline_warm "ccstatusline (warm)" "$SL_RUNS" 1 "$PAYLOAD" "" -- "${CCS[@]}"
fi

# --- 8. report --------------------------------------------------------------------------------
step "results"
NOTES+=("ccusage keeps no state: its one timing is compared with cairn cold and with cairn warm")
NOTES+=("before each cold or first-render run the previous state is moved aside, not deleted (deleting it would make the next run's file creations slower on ext4 than a real first run)")
NOTES+=("load average at start: $LOAD_START (2 cores are shared with anything else running here)")
CCS_VERSION=$(installed_version ccstatusline)
if [ "$KEEP" = 1 ] || [ -n "$CORPUS_ARG" ]; then CORPUS_KEPT=1; else CORPUS_KEPT=0; fi
MISSING_LIST=$(IFS=';'; echo "${MISSING[*]:-}")
NOTES_TEXT=$(printf '%s\n' "${NOTES[@]}")
export B_TIMER="$TIMER" B_RUNS="$RUNS" B_WARM_RUNS="$WARM_RUNS" B_SL_RUNS="$SL_RUNS" B_MEM_RUNS="$MEM_RUNS" \
  B_LOAD="$LOAD_START" B_CAIRN="$CAIRN" B_CAIRN_VERSION="$CAIRN_VERSION" B_GIT="$GIT_REV" \
  B_CCUSAGE="$CCUSAGE_REPORTED" B_CCUSAGE_KIND="$CCUSAGE_KIND" B_CCUSAGE_ARGS="${CCUSAGE_ARGS[*]}" \
  B_CAIRN_ARGS="${CAIRN_USAGE_ARGS[*]}" B_CCS="$CCS_VERSION" B_NODE="$NODE_VERSION" \
  B_CORPUS="$CORPUS" B_REUSED="$REUSED" B_KEPT="$CORPUS_KEPT" \
  B_STATE_BYTES="${STATE_BYTES:-0}" B_MISSING="$MISSING_LIST" \
  B_NOTES="$NOTES_TEXT"
python3 - "$TRUTH" "$WORK/meta.json" <<'PY'
import datetime, json, os, platform, sys
e = os.environ
truth = json.load(open(sys.argv[1]))
corpus = dict(truth["corpus"], days=len(truth["days"]), params=truth["params"])
if e["B_KEPT"] == "1":
    corpus["path"] = e["B_CORPUS"]
meta = {
    "generated_at": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    "host": {"system": platform.platform(), "cpus": os.cpu_count(),
             "loadavg_at_start": [float(x) for x in e["B_LOAD"].split()],
             "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]},
    "timer": e["B_TIMER"],
    "runs": {"usage": int(e["B_RUNS"]), "usage_warm": int(e["B_WARM_RUNS"]),
             "statusline": int(e["B_SL_RUNS"]), "memory": int(e["B_MEM_RUNS"])},
    "corpus": corpus, "corpus_reused": e["B_REUSED"] == "1",
    "statusline": truth["statusline"],
    "ccusage": {"version": e["B_CCUSAGE"], "runs_as": e["B_CCUSAGE_KIND"], "args": e["B_CCUSAGE_ARGS"]},
    "ccstatusline": {"version": e["B_CCS"], "node": e["B_NODE"]},
    "cairn": {"binary": e["B_CAIRN"], "version": e["B_CAIRN_VERSION"], "git": e["B_GIT"],
              "args": e["B_CAIRN_ARGS"], "state_bytes_after_warm": int(e["B_STATE_BYTES"] or 0)},
    "env": {"TZ": "UTC", "CLAUDE_CONFIG_DIR": "<corpus>/claude", "CAIRN_STATE_DIR": "<work>/state"},
    "missing": [m for m in e["B_MISSING"].split(";") if m],
    "notes": [n for n in e["B_NOTES"].split("\n") if n],
}
json.dump(meta, open(sys.argv[2], "w"), indent=1)
PY
python3 "$PEERS/report.py" --results "$R" --meta "$WORK/meta.json" --out "$REPO/target/bench-vs-peers.json"
if [ "${#MISSING[@]}" -gt 0 ]; then
  echo "bench-vs-peers: not measured, missing in $CAIRN: ${MISSING[*]}" >&2
  exit 2
fi
[ "$TOKENS_OK" = 1 ] || { echo "bench-vs-peers: token totals differ (see above)" >&2; exit 1; }
