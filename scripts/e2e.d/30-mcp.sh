# Sourced by scripts/e2e.sh (functions and variables in scope): the real
# client starts `cairn mcp` from a project's .mcp.json and the model calls
# its memory_search tool.
#
# What a user of the MCP tools would check:
#   1. the client starts cairn's server from .mcp.json and sees its tools;
#   2. a call made by the model returns the bullet of a memory log, with its
#      path:line, in the tool_result the client sends back to the model and
#      writes to the transcript;
#   3. the server leaves no process behind and wrote nothing on stderr that
#      the client reported as an error.
#
# The server command is one variable: the lead will point it at the plugin's
# .mcp.json later.

MCP_P="$W/mcp-projet"
MCP_SERVER_CMD="${CAIRN_E2E_MCP_CMD:-$CAIRN}"
MCP_TOOL="mcp__cairn__memory_search"
MCP_BULLET="Les files d'attente passent par Kraken, pas par RabbitMQ"
MCP_DAY="2026-11-20"

mkdir -p "$MCP_P/memory_sessions/logs" "$MCP_P/.claude"
printf '# Projet MCP\n' >"$MCP_P/README.md"
(cd "$MCP_P" && run_env git init -q && run_env git add README.md &&
  run_env git -c user.name=e2e -c user.email=e2e@example.invalid commit -qm "Premier commit") >/dev/null
printf '# Log session — %s\n\n## Contexte\n- Reprise du projet après la migration\n\n## Décisions prises\n- %s\n' \
  "$MCP_DAY" "$MCP_BULLET" >"$MCP_P/memory_sessions/logs/$MCP_DAY.md"
python3 - "$MCP_P" "$MCP_SERVER_CMD" <<'EOF'
import json, os, sys
root, cmd = sys.argv[1], sys.argv[2]
json.dump({"mcpServers": {"cairn": {"command": cmd, "args": ["mcp"]}}},
          open(os.path.join(root, ".mcp.json"), "w"), indent=2)
# A project's .mcp.json servers run only once approved; this is the
# approval a user gives by trusting the project's servers.
json.dump({"enableAllProjectMcpServers": True},
          open(os.path.join(root, ".claude", "settings.json"), "w"), indent=2)
EOF
"${INSPECT[@]}" seed "$W/home/.claude/.claude.json" "$FAKE_KEY" "$MCP_P" >/dev/null
CONTEXT_FILES+=("$MCP_P/.mcp.json" "$MCP_P/.claude/settings.json")

MCP_SEQ0="$("${INSPECT[@]}" last-seq "$API/requests.jsonl")"
MCP_MAIN_P="$P"
P="$MCP_P"   # run_claude works in $P
run_claude mcp "recherche-faite" --allowedTools "$MCP_TOOL" -- \
  "Que sait-on de la file d'attente ? E2E_TOOL=$MCP_TOOL E2E_INPUT={\"query\":\"kraken\"} E2E_SAY=recherche-faite"
P="$MCP_MAIN_P"
CONTEXT_FILES+=("$OUT/mcp.debug.log")

# The client started the server and saw its tools. (MCP tools reach the
# model as deferred tools, not in the request's tool list.)
grep -qE 'MCP server "cairn": Connection established with capabilities: .*"hasTools":true' \
  "$OUT/mcp.debug.log" || fail "MCP: the client connects to cairn mcp" \
  "'MCP server \"cairn\": Connection established' with tools in the debug log" \
  "$(grep -F 'MCP server "cairn"' "$OUT/mcp.debug.log" | head -n 20)"

# The tool_result the client sent back to the model, from the API log, and
# the one it wrote in the transcript.
mcp_check="$(python3 - "$API/requests.jsonl" "$MCP_SEQ0" "$W/home/.claude/projects" \
  "$MCP_TOOL" "$MCP_BULLET" "memory_sessions/logs/$MCP_DAY.md:7" <<'EOF'
import json, os, sys
reqs, seq0, projects, tool, bullet, place = sys.argv[1:7]
seq0 = int(seq0 or 0)

def text_of(block):
    c = block.get("content")
    if isinstance(c, str):
        return c
    return "".join(b.get("text", "") for b in c or [] if isinstance(b, dict))

use_ids = set()
results = []
for line in open(reqs, encoding="utf-8", errors="replace"):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("seq", 0) <= seq0 or not isinstance(r.get("body"), dict):
        continue
    body = r["body"]
    for m in body.get("messages") or []:
        for b in m.get("content") if isinstance(m.get("content"), list) else []:
            if b.get("type") == "tool_use" and b.get("name") == tool:
                use_ids.add(b.get("id"))
            if b.get("type") == "tool_result" and b.get("tool_use_id") in use_ids:
                results.append(text_of(b))
if not results:
    print("no tool_result for a %s call in the requests" % tool); sys.exit(1)
if not any(bullet in t and place in t for t in results):
    print("tool_result without the bullet and %s: %s" % (place, results[-1][:600])); sys.exit(1)

found = 0
for d, _, files in os.walk(projects):
    for f in files:
        if not f.endswith(".jsonl"):
            continue
        for line in open(os.path.join(d, f), encoding="utf-8", errors="replace"):
            if '"tool_result"' in line and bullet in line and place in line:
                found += 1
if not found:
    print("the transcript under %s has no tool_result with the bullet" % projects); sys.exit(1)
print("mcp: %s answered with %s (%d tool_result(s), in the transcript too)" % (tool, place, len(results)))
EOF
)" || fail "MCP: the model's memory_search call" \
  "a tool_result holding '$MCP_BULLET' at memory_sessions/logs/$MCP_DAY.md:7" "$mcp_check"
log "$mcp_check"

# The client ended the server with the session: no cairn mcp left running.
sleep 0.5
mcp_left=""
for f in /proc/[0-9]*/cmdline; do
  pid="${f#/proc/}"; pid="${pid%/cmdline}"
  grep -qzxF "E2E_RUN_DIR=$W" "/proc/$pid/environ" 2>/dev/null || continue
  tr '\0' ' ' <"$f" 2>/dev/null | grep -qE '(^|/)cairn mcp' && mcp_left="$mcp_left $pid"
done
[ -z "$mcp_left" ] || fail "MCP: server processes after the client exited" "none" "pids:$mcp_left"
if grep -qiE 'mcp.*(error|failed)' "$OUT/mcp.stderr" 2>/dev/null; then
  fail "MCP: client stderr" "no MCP error" "$(grep -iE 'mcp.*(error|failed)' "$OUT/mcp.stderr")"
fi
