#!/usr/bin/env bash
# bench-vs-seed.sh — the seeds' own Stop hook (bash + Python, rebuilt from the
# seed text) against `cairn hook` in sync offline mode, on the same Stop
# payloads and the same transcripts (~1 MiB and ~25 MiB, 2.1.332 shape).
#
#   scripts/bench-vs-seed.sh [--runs N] [--warmup N] [--sizes "1 25"]
#                            [--min-ratio X] [--build] [--python-timer] [--keep]
#
#   --runs N        timed runs per tool and size (default 20)
#   --warmup N      untimed runs first (default 3)
#   --sizes "A B"   transcript sizes in MiB (default "1 25")
#   --min-ratio X   exit 1 when a seed/cairn ratio (of medians) is under X
#   --build         cargo build --release even if target/release/cairn exists
#   --python-timer  use the Python timing loop even if hyperfine is installed
#   --keep          keep the work dir (its path is printed)
#
# Both tools do the whole job every run: read the payload, find the last
# exchange in the transcript, produce the turn's record, merge it into
# <project>/memory_sessions/logs/<today>.md. The seed's `claude` call goes to a
# fake CLI that answers at once (scripts/bench/fake-claude), so its time is its
# own shell and Python work. Every run starts from a fresh memory_sessions/
# (and a fresh cairn state folder). Results: a table on stdout and
# target/bench-vs-seed.json.
#
# Environment: SEEDS_DIR (default ../shared/seeds), CAIRN_BIN (default
# target/release/cairn, built if missing), SEED_PYTHON (the python3 the seed
# runs; default /usr/bin/python3 when present, else the real interpreter
# behind `python3`), BENCH_NO_INSTALL=1 (never apt-get install hyperfine).
# Needs python3; uses hyperfine when installed, else a Python timing loop.
set -euo pipefail

ORIG_PWD=$(pwd)
cd "$(dirname "$0")/.."
REPO=$(pwd)
BENCH="$REPO/scripts/bench"

die() { echo "bench-vs-seed: $*" >&2; exit 1; }
step() { echo "== $*"; }
abs() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$2/$1" ;; esac; }

RUNS=20
WARMUP=3
SIZES="1 25"
MIN_RATIO=""
TIMER_KIND=auto
BUILD=0
KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --min-ratio) MIN_RATIO=$2; shift 2 ;;
    --build) BUILD=1; shift ;;
    --python-timer) TIMER_KIND=python; shift ;;
    --keep) KEEP=1; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "bench-vs-seed: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$RUNS$WARMUP" in *[!0-9]*) die "--runs and --warmup take whole numbers" ;; esac
[ "$RUNS" -ge 2 ] || die "--runs must be at least 2"
[ "$RUNS" -ge 20 ] || echo "bench-vs-seed: warning: $RUNS runs (fewer than the 20 a published figure needs)" >&2
for s in $SIZES; do case "$s" in ''|*[!0-9]*) die "--sizes takes whole MiB counts, got '$s'" ;; esac; done

if [ -n "${SEEDS_DIR:-}" ]; then SEEDS_DIR=$(abs "$SEEDS_DIR" "$ORIG_PWD"); else SEEDS_DIR="$REPO/../shared/seeds"; fi
SEED_TXT="$SEEDS_DIR/001_fa4adf886461110c.txt"
if [ -n "${CAIRN_BIN:-}" ]; then CAIRN=$(abs "$CAIRN_BIN" "$ORIG_PWD"); else CAIRN="$REPO/target/release/cairn"; fi
command -v python3 >/dev/null || die "python3 is needed (the seed hook and the helpers are Python)"

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench-vs-seed.XXXXXX")
cleanup() { if [ "$KEEP" = 1 ]; then echo "work dir kept: $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
mkdir -p "$WORK/bin" "$WORK/seed" "$WORK/tmp" "$WORK/home" "$WORK/xdg" "$WORK/results"

# --- 1. the seed hook, extracted from the seed text and re-indented ----------
step "seed: extract .claude/hooks/memory-session.sh from $SEED_TXT and repair its Python"
[ -f "$SEED_TXT" ] || die "seed text not found: $SEED_TXT (set SEEDS_DIR)"
SEED_HOOK_SRC="$WORK/seed/memory-session.sh"
python3 "$BENCH/reindent_seed.py" "$SEED_TXT" "$SEED_HOOK_SRC" \
    --lock-file "$WORK/seed/memory-session.lock" --segments "$WORK/seed/py" \
  || die "could not rebuild the seed hook from $SEED_TXT: extraction or re-indentation failed (see above)"
for f in "$WORK"/seed/py/*.py; do
  PYTHONPYCACHEPREFIX="$WORK/pycache" python3 -m py_compile "$f" \
    || die "seed snippet $(basename "$f" .py) does not compile after repair"
done
bash -n "$SEED_HOOK_SRC" || die "the rebuilt seed hook is not valid bash"
echo "   6 Python snippets re-indented, each compiles; bash -n passes"

# The seed calls `python3` and `claude` from PATH: give it a real interpreter
# (not a pyenv-style shim, which would bill the seed ~100 ms of wrapper per
# call) and the fake model.
if [ -n "${SEED_PYTHON:-}" ]; then
  SEED_PY=$(abs "$SEED_PYTHON" "$ORIG_PWD")
elif [ -x /usr/bin/python3 ]; then
  SEED_PY=/usr/bin/python3
else
  SEED_PY=$(python3 -c 'import sys; print(sys.executable)')
fi
[ -x "$SEED_PY" ] || die "no usable python3 for the seed: $SEED_PY"
ln -s "$SEED_PY" "$WORK/bin/python3"
cp "$BENCH/fake-claude" "$WORK/bin/claude"
chmod +x "$WORK/bin/claude"
SEED_PY_VERSION=$("$WORK/bin/python3" -c 'import sys; print(sys.version.split()[0])')

# --- 2. the cairn binary ----------------------------------------------------
step "cairn: $CAIRN"
if [ -n "${CAIRN_BIN:-}" ]; then
  [ "$BUILD" = 0 ] || die "--build builds target/release/cairn: unset CAIRN_BIN to use it"
  [ -x "$CAIRN" ] || die "CAIRN_BIN=$CAIRN_BIN is not an executable"
elif [ ! -x "$CAIRN" ] || [ "$BUILD" = 1 ]; then
  echo "   cargo build --release"
  cargo build --release --quiet || die "cargo build --release failed; cannot benchmark cairn"
  [ -x "$CAIRN" ] || die "cargo build --release did not produce $CAIRN"
fi
CAIRN_VERSION=$("$CAIRN" --version 2>/dev/null || echo unknown)
GIT_REV=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ]; then GIT_REV="$GIT_REV+dirty"; fi

# --- 3. an isolated world: project, state, config, temp ---------------------
PROJ="$WORK/project"
TEMPLATE="$WORK/template"
STATE="$WORK/state"
mkdir -p "$TEMPLATE/.claude/hooks" "$TEMPLATE/memory_sessions/logs"
touch "$TEMPLATE/memory_sessions/.gitkeep"
cp "$SEED_HOOK_SRC" "$TEMPLATE/.claude/hooks/memory-session.sh"
cp -a "$TEMPLATE" "$PROJ"
SEED_HOOK="$PROJ/.claude/hooks/memory-session.sh"   # the seed finds its project from $0
# Reset before every run: a fresh memory_sessions/ and a fresh cairn state,
# then `sync`, so the reset's own dirty blocks are on disk before the timed
# run (cairn fsyncs what it writes; it must not pay for the harness's writes).
cat >"$WORK/reset.sh" <<EOF
rm -rf '$PROJ/memory_sessions' '$STATE' && cp -a '$TEMPLATE/memory_sessions' '$PROJ/' && sync
EOF
TRANSCRIPTS="$WORK/claude/projects/$(printf '%s' "$PROJ" | sed 's/[^A-Za-z0-9]/-/g')"
mkdir -p "$TRANSCRIPTS"

# Nothing from the caller's environment reaches either tool: no CAIRN_*
# setting, no user config, no real home, temp files in the work dir.
while IFS= read -r v; do unset "$v"; done < <(compgen -e | grep '^CAIRN_' || true)
export PATH="$WORK/bin:$PATH" HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/xdg" \
  XDG_STATE_HOME="$WORK/home/.local/state" TMPDIR="$WORK/tmp" CLAUDE_CONFIG_DIR="$WORK/claude" \
  CLAUDE_PROJECT_DIR="$PROJ" CAIRN_MEMORY_SYNC=true CAIRN_MEMORY_BACKEND=offline CAIRN_STATE_DIR="$STATE"
unset FAKE_CLAUDE_CAPTURE NO_COLOR 2>/dev/null || true

make_transcript() { # BYTES NAME -> prints the transcript's size
  python3 "$BENCH/make_transcript.py" --bytes "$1" --cwd "$PROJ" \
    --out "$TRANSCRIPTS/bench-$2.jsonl" --payload "$WORK/payload-$2.json" \
    --session-id "$(python3 -c 'import uuid; print(uuid.uuid4())')"
}
log_file() { # the daily log a run left (newest *.md in logs/), or nothing
  { ls -t "$PROJ"/memory_sessions/logs/*.md 2>/dev/null || true; } | head -n 1
}
count_bullets() { grep -c '^- ' "$1" || true; }

# --- 4. validate: the repaired seed really does the seed's job --------------
step "seed: validation run on a small transcript"
make_transcript 20000 smoke >/dev/null
TODAY=$(date +%Y-%m-%d)
LAST_PROMPT=$(python3 -c "import sys; sys.path.insert(0, '$BENCH'); import make_transcript as m; print(m.LAST_PROMPT)")
bash "$WORK/reset.sh"
FAKE_CLAUDE_CAPTURE="$WORK/prompt1.txt" "$SEED_HOOK" <"$WORK/payload-smoke.json" \
  || die "the rebuilt seed hook exited non-zero on the validation payload"
LOG="$PROJ/memory_sessions/logs/$TODAY.md"
[ -f "$LOG" ] || die "the rebuilt seed hook wrote no memory_sessions/logs/$TODAY.md"
EXPECTED=$(printf '# Log session — %s\n\n## Travail produit\n- %s' "$TODAY" \
  "Fusion du log quotidien rendue idempotente (src/memory/log.rs).")
[ "$(cat "$LOG")" = "$EXPECTED" ] || {
  echo "--- expected"; echo "$EXPECTED"; echo "--- got"; cat "$LOG"
  die "the seed's log is not in the seed's format"
}
grep -qF "Humain: $LAST_PROMPT" "$WORK/prompt1.txt" \
  || die "the seed's prompt lacks the last human prompt: its transcript parsing did not work"
grep -qF "Claude: Done: the merge" "$WORK/prompt1.txt" \
  || die "the seed's prompt lacks the last assistant answer"
grep -qF "(aucun log existant)" "$WORK/prompt1.txt" || die "the seed's first prompt should say there is no log yet"
ls "$PROJ"/memory_sessions/logs/.debug/*.json >/dev/null 2>&1 || die "the seed wrote no .debug/ copy"
FAKE_CLAUDE_CAPTURE="$WORK/prompt2.txt" "$SEED_HOOK" <"$WORK/payload-smoke.json" || die "second seed run failed"
[ "$(cat "$LOG")" = "$EXPECTED" ] || die "the seed's merge is not idempotent: the same bullet was added twice"
grep -qF "### root" "$WORK/prompt2.txt" || die "the seed's second prompt does not include today's log"
bash "$WORK/reset.sh"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['stop_hook_active']=True; json.dump(d, open(sys.argv[2],'w'))" \
  "$WORK/payload-smoke.json" "$WORK/payload-active.json"
"$SEED_HOOK" <"$WORK/payload-active.json" || die "the seed failed on stop_hook_active"
[ -z "$(log_file)" ] || die "the seed wrote a log although stop_hook_active was true"
echo "   log in the seed's format, prompt holds the exchange, merge idempotent, anti-loop honoured"

step "cairn: validation run (sync, offline)"
bash "$WORK/reset.sh"
"$CAIRN" hook <"$WORK/payload-smoke.json" >"$WORK/cairn-smoke.out" 2>"$WORK/cairn-smoke.err" \
  || die "cairn hook exited non-zero on the validation payload"
CLOG=$(log_file)
[ -n "$CLOG" ] || { cat "$WORK/cairn-smoke.err" >&2; die "cairn hook (sync, offline) wrote no daily log under $PROJ/memory_sessions/logs/"; }
head -n 1 "$CLOG" | grep -q '^# Log session — ' || die "cairn's log does not start with '# Log session — DATE'"
[ "$(count_bullets "$CLOG")" -ge 1 ] || die "cairn's log has no bullet"
echo "   $(basename "$CLOG"): $(count_bullets "$CLOG") bullet(s)"

# --- 5. timer ------------------------------------------------------------------
if [ "$TIMER_KIND" = auto ] && ! command -v hyperfine >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
   && [ -z "${BENCH_NO_INSTALL:-}" ]; then
  step "installing hyperfine (Debian package)"
  DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq hyperfine >/dev/null 2>&1 \
    || { timeout 300 apt-get update -qq >/dev/null 2>&1 \
         && DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq hyperfine >/dev/null 2>&1; } \
    || echo "   could not install hyperfine; using the Python timing loop"
fi
if [ "$TIMER_KIND" = auto ] && command -v hyperfine >/dev/null 2>&1; then
  TIMER_KIND=hyperfine
  TIMER="$(hyperfine --version)"
else
  TIMER_KIND=python
  TIMER="python scripts/bench/time_cmd.py"
fi

time_tool() { # LABEL TOOL PAYLOAD
  local label=$1 tool=$2 payload=$3 out="$WORK/results/$1.$2.json"
  local -a cmd
  if [ "$tool" = seed ]; then cmd=("$SEED_HOOK"); else cmd=("$CAIRN" hook); fi
  if [ "$TIMER_KIND" = hyperfine ]; then
    hyperfine --style basic --time-unit millisecond --warmup "$WARMUP" --runs "$RUNS" \
      --prepare "bash $(printf '%q' "$WORK/reset.sh")" --export-json "$out" \
      --command-name "$tool $label" "$(printf '%q ' "${cmd[@]}")< $(printf '%q' "$payload")" \
      || die "hyperfine failed for $tool on the $label transcript"
  else
    python3 "$BENCH/time_cmd.py" --name "$tool $label" --input "$payload" \
      --prepare "bash $(printf '%q' "$WORK/reset.sh")" --warmup "$WARMUP" --runs "$RUNS" \
      --export-json "$out" -- "${cmd[@]}" || die "timing failed for $tool on the $label transcript"
  fi
  # The last timed run's output is still there: make sure it did the job.
  local log
  log=$(log_file)
  [ -n "$log" ] || die "$tool wrote no daily log during the $label runs: refusing to report its time"
  [ "$(count_bullets "$log")" -ge 1 ] || die "$tool's daily log from the $label runs has no bullet"
  printf '{"path": "%s", "bytes": %s, "bullets": %s}' "${log#"$PROJ"/}" "$(wc -c <"$log")" \
    "$(count_bullets "$log")" >"$WORK/results/$label.$tool.log.json"
}

# --- 6. the runs ----------------------------------------------------------------
LABELS=()
for mib in $SIZES; do
  label="${mib}MB"
  LABELS+=("$label")
  step "transcript $label: generating"
  bytes=$(make_transcript $((mib * 1024 * 1024)) "$label")
  echo "   $bytes bytes, $(wc -l <"$TRANSCRIPTS/bench-$label.jsonl") lines"
  for tool in seed cairn; do
    step "transcript $label: timing $tool ($WARMUP warmup + $RUNS runs, fresh memory_sessions/ each run)"
    time_tool "$label" "$tool" "$WORK/payload-$label.json"
  done
  python3 - "$WORK/results" "$label" "$bytes" <<'PY'
import json, sys, os
d, label, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
logs = {t: json.load(open(os.path.join(d, f"{label}.{t}.log.json"))) for t in ("seed", "cairn")}
json.dump({"transcript_bytes": size, "logs": logs}, open(os.path.join(d, f"{label}.facts.json"), "w"))
PY
done

# --- 7. report --------------------------------------------------------------------
step "results"
export B_TIMER="$TIMER" B_WARMUP="$WARMUP" B_RUNS="$RUNS" B_SIZES="${LABELS[*]}" B_LOAD="$LOAD_START" \
  B_SEED_TXT="$SEED_TXT" B_SEED_PY="$SEED_PY $SEED_PY_VERSION" B_CAIRN="$CAIRN" \
  B_CAIRN_VERSION="$CAIRN_VERSION" B_GIT="$GIT_REV"
python3 - "$WORK/meta.json" <<'PY'
import datetime, hashlib, json, os, platform, sys
e = os.environ
meta = {
    "generated_at": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    "host": {"system": platform.platform(), "cpus": os.cpu_count(),
             "loadavg_at_start": [float(x) for x in e["B_LOAD"].split()],
             "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]},
    "timer": e["B_TIMER"], "warmup": int(e["B_WARMUP"]), "runs": int(e["B_RUNS"]),
    "expected_ratio": 50,
    "sizes": e["B_SIZES"].split(),
    "seed": {"source": e["B_SEED_TXT"],
             "source_sha256": hashlib.sha256(open(e["B_SEED_TXT"], "rb").read()).hexdigest(),
             "hook": ".claude/hooks/memory-session.sh, re-indented by scripts/bench/reindent_seed.py",
             "python": e["B_SEED_PY"],
             "claude": "scripts/bench/fake-claude (fixed answer, no model)"},
    "cairn": {"binary": e["B_CAIRN"], "version": e["B_CAIRN_VERSION"], "git": e["B_GIT"],
              "env": {"CAIRN_MEMORY_SYNC": "true", "CAIRN_MEMORY_BACKEND": "offline"}},
    "method": ("same Stop payload and transcript for both tools; before every run a fresh "
               "memory_sessions/ and cairn state folder, then sync (not timed)"),
}
json.dump(meta, open(sys.argv[1], "w"), indent=2)
PY
REPORT_ARGS=(--results "$WORK/results" --meta "$WORK/meta.json" --out "$REPO/target/bench-vs-seed.json")
[ -z "$MIN_RATIO" ] || REPORT_ARGS+=(--min-ratio "$MIN_RATIO")
echo "timer: $TIMER; seed python: $SEED_PY ($SEED_PY_VERSION); cairn: $CAIRN_VERSION ($GIT_REV)"
python3 "$BENCH/report.py" "${REPORT_ARGS[@]}"
