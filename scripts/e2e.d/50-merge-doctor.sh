# Sourced by scripts/e2e.sh after the memory scenario (see the comment there).
# Team merges (SPEC §1.12) with the day's real log as the common ancestor,
# then `cairn doctor` in the scenario's project, where real sessions ran.

# 1. cairn doctor where the client really ran cairn's hooks.
rc=0; (cd "$P" && run_env "$CAIRN" doctor --offline) </dev/null >"$OUT/doctor.out" 2>&1 || rc=$?
CONTEXT_FILES+=("$OUT/doctor.out")
[ "$rc" = 0 ] || fail "cairn doctor in the e2e project" "exit status 0" "status $rc"
for want in \
  "ok   hooks: cairn hook for every event in project .claude/settings.json" \
  "ok   dead-letters: no memory job given up" \
  'ok   merge-driver: memory files merge with `cairn merge-driver %O %A %B %P`'; do
  grep -qxF -- "$want" "$OUT/doctor.out" || fail "cairn doctor" "a line: $want" "$(cat "$OUT/doctor.out")"
done
log "doctor in the e2e project: $(tail -n 1 "$OUT/doctor.out")"

# 2. Two branches edit the same day's log; git merges it through the driver.
M="$W/merge-project"
MLOG="memory_sessions/logs/$TODAY.md"
mkdir -p "$M/memory_sessions/logs"
cp "$LOG" "$M/$MLOG"
mgit() { (cd "$M" && run_env git -c user.name=e2e -c user.email=e2e@example.invalid "$@"); }
edit_log() {  # edit_log <add|finalise> <heading> <text>: as cairn's writer lays it out
  python3 - "$M/$MLOG" "$@" <<'PY'
import sys
path, op, heading, text = sys.argv[1:]
lines = open(path, encoding="utf-8").read().split("\n")
def section(h):
    try:
        at = lines.index("## " + h)
    except ValueError:
        return None
    end = at + 1
    while end < len(lines) and lines[end].startswith("- "):
        end += 1
    return at, end
def add(h, bullet):
    s = section(h)
    if s is None:
        order = ["Contexte", "Objectif", "Problèmes rencontrés", "Connaissances acquises",
                 "Travail produit", "Décisions prises", "À suivre", "Finalisé"]
        later = [section(x) for x in order[order.index(h) + 1:]]
        at = next((x[0] for x in later if x), len(lines) - 1)
        lines[at:at] = ["## " + h, "- " + bullet, ""]
    else:
        lines.insert(s[1], "- " + bullet)
if op == "add":
    add(heading, text)
else:
    s = section("À suivre")
    lines.remove("- " + text)
    if section("À suivre") and section("À suivre")[1] == section("À suivre")[0] + 1:
        at = section("À suivre")[0]
        del lines[at:at + 2]
    add("Finalisé", "✅ " + text)
open(path, "w", encoding="utf-8").write("\n".join(lines))
PY
}
mgit init -q -b main
(cd "$M" && run_env "$CAIRN" install) </dev/null >"$OUT/merge-install.out" 2>&1 ||
  fail "cairn install in the merge project" "exit status 0" "$(cat "$OUT/merge-install.out")"
edit_log add "À suivre" "Publier la release 1.0."
mgit add -A && mgit commit -qm base
mgit checkout -q -b alice
edit_log add "Travail produit" "Alice : tests de la release écrits."
edit_log finalise "À suivre" "Publier la release 1.0."
mgit commit -qam alice
mgit checkout -q main
edit_log add "Travail produit" "Bob : changelog rédigé."
edit_log add "À suivre" "Bob : prévenir l'équipe."
mgit commit -qam bob
cp "$M/$MLOG" "$OUT/merge-ours.md"
rc=0; mgit merge --no-edit alice >"$OUT/merge.out" 2>&1 || rc=$?
CONTEXT_FILES+=("$OUT/merge.out" "$M/$MLOG")
[ "$rc" = 0 ] || fail "git merge of two branches' logs" "exit status 0" "status $rc: $(cat "$OUT/merge.out")"
merged="$M/$MLOG"
! grep -qE '^(<<<<<<<|=======|>>>>>>>)' "$merged" || fail "merged log" "no conflict markers" "$(cat "$merged")"
[ -z "$(mgit ls-files -u)" ] || fail "merged log" "nothing left unmerged" "$(mgit ls-files -u)"
# Every bullet of both sides, as many times as the side that has it most
# (the day's real log may hold a line in two sections).
mgit show alice:"$MLOG" >"$OUT/merge-theirs.md"
while IFS= read -r b; do
  [ "$b" = "- Publier la release 1.0." ] && continue
  n="$(grep -cxF -- "$b" "$merged" || true)"
  na="$(grep -cxF -- "$b" "$OUT/merge-ours.md" || true)"
  nb="$(grep -cxF -- "$b" "$OUT/merge-theirs.md" || true)"
  want=$(( na > nb ? na : nb ))
  [ "$n" = "$want" ] || fail "merged log: every bullet once" "$b $want time(s)" "$n: $(cat "$merged")"
done < <(cat "$OUT/merge-ours.md" "$OUT/merge-theirs.md" | grep '^- ' | sort -u)
section "$merged" 'Finalisé' | grep -qxF '✅ Publier la release 1.0.' ||
  fail "merged log: to-do finalised by alice" "- ✅ Publier la release 1.0. in ## Finalisé" "$(cat "$merged")"
! section "$merged" 'À suivre' | grep -qxF 'Publier la release 1.0.' ||
  fail "merged log: to-do left open by bob" "gone from ## À suivre" "$(cat "$merged")"
log "team merge: $(grep -c '^- ' "$merged") bullets merged without conflict"

# 3. cairn doctor over the real client's plugin records: 40-plugin.sh added
#    the local marketplace; install the plugin again for this check.
if declare -F plug >/dev/null && [ -n "${PLUG_P:-}" ]; then
  plug reinstall install cairn@cairn
  rc=0; (cd "$PLUG_P" && run_env "$CAIRN" doctor --offline) </dev/null >"$OUT/doctor.plugin.out" 2>&1 || rc=$?
  CONTEXT_FILES+=("$OUT/doctor.plugin.out" "$W/home/.claude/plugins/installed_plugins.json")
  [ "$rc" = 0 ] || fail "cairn doctor with the plugin installed" "exit status 0" "status $rc"
  grep -qE '^ok   plugin: plugin cairn@cairn [0-9.]+ \(user scope, .+\)$' "$OUT/doctor.plugin.out" ||
    fail "cairn doctor: the plugin" "ok   plugin: plugin cairn@cairn <version> (user scope, <path>)" "$(cat "$OUT/doctor.plugin.out")"
  for want in "ok   hooks: cairn hook for every event in plugin cairn@cairn" \
              "ok   hooks: the plugin's launcher "; do
    grep -qF -- "$want" "$OUT/doctor.plugin.out" || fail "cairn doctor: plugin hooks" "$want" "$(cat "$OUT/doctor.plugin.out")"
  done
  # The scenario's project also ran `cairn install`: every hook twice.
  rc=0; (cd "$P" && run_env "$CAIRN" doctor --offline) </dev/null >"$OUT/doctor.twice.out" 2>&1 || rc=$?
  CONTEXT_FILES+=("$OUT/doctor.twice.out")
  [ "$rc" = 1 ] || fail "cairn doctor with plugin and project install" "exit status 1" "status $rc: $(cat "$OUT/doctor.twice.out")"
  want="FAIL hooks: cairn hook is registered more than once for every event (in plugin cairn@cairn and project .claude/settings.json)"
  grep -qF -- "$want" "$OUT/doctor.twice.out" || fail "cairn doctor: double registration" "$want" "$(cat "$OUT/doctor.twice.out")"
  plug reuninstall uninstall cairn@cairn
  log "cairn doctor: plugin found in the client's records; plugin + project install reported as hooks run twice"
fi
