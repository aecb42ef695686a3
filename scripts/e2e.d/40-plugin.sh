# Sourced by scripts/e2e.sh (functions and variables in scope): cairn as a
# Claude Code plugin, the way a user gets it.
#
#   1. `claude plugin validate` passes on the repository;
#   2. the repository's tracked files (what a clone holds: no target/) are a
#      local marketplace; `claude plugin marketplace add` and
#      `claude plugin install cairn@cairn` succeed (user scope);
#   3. in a fresh project where `cairn install` was NOT run, a `claude -p`
#      turn runs the plugin's hooks through bin/cairn (which finds the
#      binary on PATH) and the memory log of the day appears;
#   4. the plugin's MCP server answers the model's memory_search with the
#      bullet those hooks wrote;
#   5. the plugin is uninstalled again so later scenarios start clean.

PLUG_SRC="$W/plugin-src"
PLUG_P="$W/plugproj"

mkdir -p "$PLUG_SRC" "$PLUG_P"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
  xargs -0 cp --parents -t "$PLUG_SRC") || fail "plugin: copy of the repository" \
  "the tracked files copied to $PLUG_SRC" "cp failed"

plug() {  # plug <name> <args...>: a `claude plugin ...` command, output kept
  local name="$1" rc=0; shift
  (cd "$PLUG_SRC" && run_env timeout 120 "${CLAUDE[@]}" plugin "$@") </dev/null \
    >"$OUT/plugin.$name.out" 2>&1 || rc=$?
  CONTEXT_FILES+=("$OUT/plugin.$name.out")
  [ "$rc" = 0 ] || fail "plugin: claude plugin $*" "exit status 0" "status $rc: $(tail -n 20 "$OUT/plugin.$name.out")"
}

plug validate validate "$PLUG_SRC"
grep -q 'Validation passed' "$OUT/plugin.validate.out" || fail "plugin: validate" \
  "'Validation passed'" "$(tail -n 20 "$OUT/plugin.validate.out")"
plug add marketplace add "$PLUG_SRC"
plug install install cairn@cairn
plug details details cairn@cairn
for hook in SessionStart UserPromptSubmit Stop SubagentStop; do
  grep -q "$hook" "$OUT/plugin.details.out" || fail "plugin: details" \
    "the plugin's $hook hook listed" "$(cat "$OUT/plugin.details.out")"
done
log "plugin installed: $(grep -E '^ *(Skills|Hooks|MCP servers)' "$OUT/plugin.details.out" | sed 's/^ *//' | tr '\n' ';')"

printf '# Projet greffon\n' >"$PLUG_P/README.md"
(cd "$PLUG_P" && run_env git init -q && run_env git add README.md &&
  run_env git -c user.name=e2e -c user.email=e2e@example.invalid commit -qm "Premier commit") >/dev/null
"${INSPECT[@]}" seed "$W/home/.claude/.claude.json" "$FAKE_KEY" "$PLUG_P" >/dev/null
[ ! -e "$PLUG_P/.claude/settings.json" ] || fail "plugin: project" "no project settings" "found one"

P_SAVED="$P"; P="$PLUG_P"
run_claude plugin_turn "s'est terminée sans erreur" -- 'Vérifie le dépôt du greffon. E2E_BASH="git log --oneline"'
drain plugin_turn
P="$P_SAVED"
PLUG_LOG="$PLUG_P/memory_sessions/logs/$(run_env date +%F).md"
[ -f "$PLUG_LOG" ] || fail "plugin: hooks ran from the plugin" "$PLUG_LOG written by the Stop hook" \
  "$(ls -la "$PLUG_P" "$PLUG_P/memory_sessions" 2>&1)"
grep -qF 'dépôt du greffon' "$PLUG_LOG" || fail "plugin: memory log" \
  "a bullet about 'dépôt du greffon'" "$(cat "$PLUG_LOG")"
runs="$(grep -cE 'Hooks: [A-Za-z:]+ \[.*bin/cairn" hook\] \(plugin cairn@cairn\) (finished|completed) with status 0' "$OUT/plugin_turn.debug.log" || true)"
[ "${runs:-0}" -ge 3 ] || fail "plugin: hook runs through bin/cairn" \
  "SessionStart, UserPromptSubmit and Stop through the plugin's launcher, status 0" \
  "$(grep -E 'Hooks: ' "$OUT/plugin_turn.debug.log" | head -n 20)"
log "plugin: $runs hook runs through bin/cairn, memory log written ($(grep -c '^- ' "$PLUG_LOG") bullets)"

# The plugin's MCP server (.mcp.json → bin/cairn mcp): the model searches
# the memory the hooks just wrote.
PLUG_TOOL="mcp__plugin_cairn_cairn__memory_search"
PLUG_SEQ0="$("${INSPECT[@]}" last-seq "$API/requests.jsonl")"
P_SAVED="$P"; P="$PLUG_P"
run_claude plugin_mcp "recherche-greffon" --allowedTools "$PLUG_TOOL" -- \
  "Que dit la mémoire du greffon ? E2E_TOOL=$PLUG_TOOL E2E_INPUT={\"query\":\"greffon\"} E2E_SAY=recherche-greffon"
P="$P_SAVED"
CONTEXT_FILES+=("$OUT/plugin_mcp.debug.log")
plug_mcp="$(python3 - "$API/requests.jsonl" "$PLUG_SEQ0" "$PLUG_TOOL" 'dépôt du greffon' <<'PY'
import json, sys
reqs, seq0, tool, needle = sys.argv[1], int(sys.argv[2] or 0), sys.argv[3], sys.argv[4]
ids, results = set(), []
for line in open(reqs, encoding="utf-8", errors="replace"):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if (r.get("seq") or 0) <= seq0 or not isinstance(r.get("body"), dict):
        continue
    for m in r["body"].get("messages") or []:
        for b in m.get("content") if isinstance(m.get("content"), list) else []:
            if b.get("type") == "tool_use" and b.get("name") == tool:
                ids.add(b.get("id"))
            if b.get("type") == "tool_result" and b.get("tool_use_id") in ids:
                c = b.get("content")
                results.append(c if isinstance(c, str) else "".join(x.get("text", "") for x in c or []))
if not any(needle in t and "memory_sessions/logs/" in t for t in results):
    print("no %s tool_result holding %r: %s" % (tool, needle, (results or ["(none)"])[-1][:400]))
    sys.exit(1)
print("plugin MCP: %s found the hooks' bullet (%d tool_result(s))" % (tool, len(results)))
PY
)" || fail "plugin: the MCP server from the plugin's .mcp.json" \
  "a $PLUG_TOOL tool_result holding the bullet the hooks wrote" \
  "$plug_mcp; $(grep -F 'MCP server' "$OUT/plugin_mcp.debug.log" | head -n 5)"
log "$plug_mcp"

plug uninstall uninstall cairn@cairn
