# Sourced by scripts/e2e.sh (functions and variables in scope): the
# interactive client in tmux, with cairn installed in a project of its own.
#
# What a user of the session guard would check:
#   1. the status line on screen shows the model, a context percentage and a
#      cost;
#   2. with the fake API reporting 131 200 tokens of context on a 200K model
#      (Sonnet 4.5), the context guard blocks once at warn: the next request
#      carries the hook feedback and a checkpoint note exists;
#   3. another turn at the same level is not blocked;
#   4. 171 200 tokens: one block at hard;
#   5. after /compact the guard is armed again: 131 200 tokens block again;
#   6. a vague prompt gets the refine gate's context in the request body, an
#      anchored one does not;
#   7. a turn that ends on a tool call with no text (a Read, then a reply
#      with no content) is not blocked, and its Stop, like every other, is
#      timed by scripts/e2e.sh from the client's debug log.
# The fake API's E2E_USAGE directive sets the usage of every reply to a
# prompt (scripts/fake_anthropic_api.py).

TUI_P="$W/tui"
TUI_SOCK="$W/tmp/tmux.sock"
TUI_MODEL="claude-sonnet-4-5"
TUI_REQ="$API/requests.jsonl"

command -v tmux >/dev/null || skip_or_fail "tmux not found (the interactive scenario needs it)"

tm() { tmux -S "$TUI_SOCK" "$@"; }
tui_screen() { tm capture-pane -p -t cc 2>/dev/null || true; }
tui_save() { tui_screen >"$OUT/tui.$1.screen.txt"; CONTEXT_FILES+=("$OUT/tui.$1.screen.txt"); }
tui_type() {  # a line typed into the prompt box, then Enter
  tm send-keys -t cc -l "$1"
  sleep 0.5
  tm send-keys -t cc Enter
}
wait_for() {  # wait_for <what> <timeout s> <command...>: poll until it succeeds
  local what="$1" limit="$2" t=0; shift 2
  while [ "$t" -lt $((limit * 5)) ]; do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2; t=$((t + 1))
  done
  tui_save timeout
  fail "interactive: $what" "within ${limit} s" "timed out; screen: $(tui_screen | grep -v '^\s*$' | tail -n 15)"
}
tui_blocks() { "${INSPECT[@]}" stop-blocks "$TUI_REQ" | grep -c . || true; }
blocks_are() { [ "$(tui_blocks)" = "$1" ]; }
final_reply_for() {  # a main-conversation final reply to the prompt holding $1
  python3 - "$TUI_REQ" "$1" <<'EOF'
import json, sys
needle = sys.argv[2]
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    body = r.get("body") or {}
    if not isinstance(body, dict) or not body.get("tools") or (r.get("reply") or {}).get("kind") != "final":
        continue
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "user" and needle in json.dumps(m, ensure_ascii=False):
            sys.exit(0)
sys.exit(1)
EOF
}
checkpoints() { find "$TUI_P/memory_sessions/checkpoints" -name '*.md' 2>/dev/null | wc -l; }
turn() {  # turn <marker> <prompt>: type it, wait for the model's final answer
  tui_type "$2"
  wait_for "final answer to '$1'" 60 final_reply_for "$1"
  # The Stop hook runs after the answer is shown; a block starts a new
  # request at once. Give it time to happen (or not).
  sleep 3
}

mkdir -p "$TUI_P"
printf '# Projet interactif\n' >"$TUI_P/README.md"
(cd "$TUI_P" && run_env git init -q && run_env git add README.md &&
  run_env git -c user.name=e2e -c user.email=e2e@example.invalid commit -qm "Premier commit") >/dev/null
"${INSPECT[@]}" seed "$W/home/.claude/.claude.json" "$FAKE_KEY" "$TUI_P" >/dev/null
rc=0; (cd "$TUI_P" && run_env "$CAIRN" install) </dev/null >"$OUT/tui.install.out" 2>&1 || rc=$?
CONTEXT_FILES+=("$OUT/tui.install.out" "$TUI_P/.claude/settings.json")
[ "$rc" = 0 ] || fail "interactive: cairn install" "exit status 0" "$(cat "$OUT/tui.install.out")"
grep -q '"statusLine"' "$TUI_P/.claude/settings.json" || fail "interactive: cairn install" \
  "a statusLine entry in .claude/settings.json" "$(cat "$TUI_P/.claude/settings.json")"

client_cmd="$(printf '%q ' "${CLAUDE[@]}") --model $TUI_MODEL --debug-file $(printf '%q' "$OUT/tui.debug.log")"
(cd "$TUI_P" && run_env tmux -S "$TUI_SOCK" new-session -d -s cc -x 200 -y 50 -c "$TUI_P" \
  "$client_cmd; echo CLAUDE_EXITED rc=\$?; sleep 600")
tui_cleanup() { tm kill-server 2>/dev/null || true; }
trap 'tui_rc=$?; tui_cleanup; (exit "$tui_rc"); cleanup' EXIT
# Keys typed before the prompt box is ready are lost: wait for cairn's
# status line, which the client draws once the UI is up.
status_shown() { tui_screen | grep -qE 'Sonnet.*ctx [0-9]+%'; }
wait_for "cairn's status line at startup" 60 status_shown
sleep 1
tui_save startup

# 1. A first, anchored turn: the status line fills in with the session's
#    figures, and the guard blocks at warn.
turn "Tour un" "Tour un : résume README.md en une phrase. E2E_USAGE={\"cache_read_input_tokens\":130000} E2E_SAY=\"Le README présente le projet.\""
wait_for "one Stop-hook block at warn" 30 blocks_are 1
tui_save after_warn
line="$(tui_screen | grep -E 'Sonnet' | grep -E '[0-9]+%' | grep -E '\$[0-9]' | head -n 1 || true)"
[ -n "$line" ] || fail "interactive: status line" \
  "a screen line with the model (Sonnet), a context percentage and a dollar cost" "$(tui_screen | grep -v '^\s*$' | tail -n 8)"
log "status line: $(printf '%s' "$line" | sed 's/^[[:space:]]*//')"
warn="$("${INSPECT[@]}" stop-blocks "$TUI_REQ" | head -n 1)"
[ "$(checkpoints)" -ge 1 ] || fail "interactive: checkpoint after the warn block" \
  "a note in memory_sessions/checkpoints/" "$(ls -la "$TUI_P/memory_sessions" 2>&1)"
log "guard block 1 (warn): $warn"

# 2. Same level again: no second block.
turn "Tour deux" "Tour deux : relis README.md. E2E_USAGE={\"cache_read_input_tokens\":135000} E2E_SAY=\"README relu.\""
sleep 2
blocks_are 1 || fail "interactive: same level twice" "still 1 Stop-hook block" \
  "$("${INSPECT[@]}" stop-blocks "$TUI_REQ")"

# 3. Hard level: one more block. The jump of 35 000 tokens comes with the
#    turn's first call (a Read), as a real one would come with what the
#    turn adds: the guard waits for a late answer only when the answer's
#    call could cross a level from what the file shows (src/guard/late.rs),
#    and a tiny prompt cannot carry 35 000 tokens.
turn "Tour trois" "Tour trois : vérifie README.md. E2E_READ=README.md E2E_USAGE={\"cache_read_input_tokens\":170000} E2E_SAY=\"README vérifié.\""
wait_for "a second Stop-hook block, at hard" 30 blocks_are 2
log "guard block 2 (hard): $("${INSPECT[@]}" stop-blocks "$TUI_REQ" | sed -n 2p)"

# 4. /compact re-arms the guard.
n_before="$("${INSPECT[@]}" last-seq "$TUI_REQ")"
tui_type "/compact"
compacted() { grep -q '"kind": "compaction"' "$TUI_REQ" && tui_screen | grep -qiE 'compact'; }
wait_for "the compaction request" 90 compacted
sleep 4
tui_save after_compact
turn "Tour quatre" "Tour quatre : relis README.md. E2E_USAGE={\"cache_read_input_tokens\":130000} E2E_SAY=\"README relu après compaction.\""
wait_for "a third Stop-hook block after /compact (re-armed)" 30 blocks_are 3
log "guard block 3 (warn, after /compact): $("${INSPECT[@]}" stop-blocks "$TUI_REQ" | sed -n 3p)"

# 5. The refine gate: a vague prompt gets its context, an anchored one not.
turn "Tour cinq" "Tour cinq : corrige le bug comme la dernière fois."
gate_vague="$("${INSPECT[@]}" prompt-context "$TUI_REQ" "Tour cinq")"
gate_anchored="$("${INSPECT[@]}" prompt-context "$TUI_REQ" "Tour un")"
[ "$gate_vague" = gate ] || fail "interactive: refine gate on a vague prompt" \
  "<cairn-refine-gate> in the request after 'Tour cinq'" "$gate_vague"
[ "$gate_anchored" = none ] || fail "interactive: refine gate on an anchored prompt" \
  "no gate context after 'Tour un' (it names README.md)" "$gate_anchored"
blocks_are 3 || fail "interactive: no block at low fill" "still 3 blocks" "$("${INSPECT[@]}" stop-blocks "$TUI_REQ")"

# 6. A turn that ends on a tool call with no text: the client fires Stop
#    without last_assistant_message and writes no answer line.
turn "Tour six" "Tour six : relis README.md. E2E_READ=README.md E2E_END=empty"
ended="$("${INSPECT[@]}" ends-without-text "$W/home/.claude/projects" "Tour six")" ||
  fail "interactive: the turn's shape" "a turn ending on a tool call with no text" "$ended"
log "interactive: $ended"
blocks_are 3 || fail "interactive: no block on a turn with no text" "still 3 blocks" "$("${INSPECT[@]}" stop-blocks "$TUI_REQ")"

tui_type "/exit"
wait_for "the client to exit" 30 sh -c "tmux -S '$TUI_SOCK' capture-pane -p -t cc | grep -q CLAUDE_EXITED"
tui_save exit
tui_cleanup

errs="$(cat "$W/state/diagnostics.log.1" "$W/state/diagnostics.log" 2>/dev/null | awk '$2 == "ERROR"' || true)"
[ -z "$errs" ] || fail "interactive: cairn diagnostics log" "no ERROR line" "$errs"
log "interactive: status line, 3 guard blocks (warn, hard, warn after /compact), gate on the vague prompt only, a turn with no text (${n_before} requests before /compact)"
