# shellcheck shell=bash
# Scenario: token audit measured from real runs (issue 4). Sourced by
# scripts/e2e.sh with its functions and variables in scope.
#
# In a fresh project of its own: a project skill `rapport_hebdo`, invoked
# once by the user as `/rapport_hebdo` and once by the model through the
# Skill tool, then `cairn audit skill rapport_hebdo` with the run's config
# folder. The measured tokens must equal the deduplicated usage sum of the
# skill's responses, recomputed here twice without cairn: from the
# transcript (assistant records attributed to the skill, one per message id
# + request id, largest usage kept) and from the fake API's request log
# (the usage each reply really carried). The report is printed to the log.

AUDIT_P="$W/audit-projet"
AUDIT_SKILL=rapport_hebdo
mkdir -p "$AUDIT_P/.claude/skills/$AUDIT_SKILL" "$AUDIT_P/notes" "$AUDIT_P/rapports"
cat >"$AUDIT_P/.claude/skills/$AUDIT_SKILL/SKILL.md" <<'SKILL'
---
name: rapport_hebdo
description: Rédige le rapport hebdomadaire de l'équipe à partir des notes.
metadata:
  project: audit-projet
---

# /rapport_hebdo

## Étape 1 — Lire les notes

Lire `notes/semaine.md` avec Read.

## Étape 2 — Historique

Lancer `git log --oneline` avec Bash.

## Étape 3 — Rédiger

Écrire le rapport complet dans `rapports/<semaine>.md` avec Write.
SKILL
printf '# Notes\n\nLivraison du module export. Revue du contrat.\n' >"$AUDIT_P/notes/semaine.md"
printf '# Rapport 2026-W47\n\nRésumé de la semaine précédente.\n' >"$AUDIT_P/rapports/2026-W47.md"
printf '# Projet audit\n' >"$AUDIT_P/README.md"
(cd "$AUDIT_P" && run_env git init -q && run_env git add -A &&
  run_env git -c user.name=e2e -c user.email=e2e@example.invalid commit -qm "init") >/dev/null
"${INSPECT[@]}" seed "$W/home/.claude/.claude.json" "$FAKE_KEY" "$AUDIT_P" >/dev/null

SAVED_P="$P"
P="$AUDIT_P"
# (a) typed by the user; the replies carry a cache write so the figures are
# not all alike.
run_claude audit-slash "s'est terminée sans erreur" --allowedTools Skill -- \
  "/$AUDIT_SKILL E2E_USAGE={\"cache_creation_input_tokens\":3000} E2E_BASH=\"git log --oneline\""
# (b) the model calls the Skill tool.
run_claude audit-tool "C'est noté." --continue --allowedTools Skill -- \
  "Fais le rapport de la semaine. E2E_TOOL=Skill E2E_INPUT={\"skill\":\"$AUDIT_SKILL\"}"
P="$SAVED_P"

AUDIT_TX="$(ls "$W/home/.claude/projects/"*audit-projet*/*.jsonl 2>/dev/null | head -n 1)"
[ -n "$AUDIT_TX" ] || fail "audit: transcript of the audit project" "a .jsonl under projects/*audit-projet*" \
  "$(ls -R "$W/home/.claude/projects" | head -20)"
CONTEXT_FILES+=("$AUDIT_TX")

# The expected figures, without cairn.
read -r AUDIT_RESP AUDIT_TX_SUM AUDIT_API_SUM < <(python3 - "$AUDIT_TX" "$API/requests.jsonl" "$AUDIT_SKILL" <<'PY'
import json, sys
tx, log, skill = sys.argv[1:4]
best = {}
for line in open(tx, encoding="utf-8", errors="replace"):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("type") != "assistant" or r.get("attributionSkill") != skill:
        continue
    m = r.get("message") or {}
    u = m.get("usage") or {}
    key = (m.get("id"), r.get("requestId"))
    vals = [u.get(k, 0) or 0 for k in ("input_tokens", "cache_creation_input_tokens",
                                        "cache_read_input_tokens", "output_tokens")]
    old = best.get(key)
    best[key] = vals if old is None else [max(a, b) for a, b in zip(old, vals)]
tx_sum = sum(sum(v) for v in best.values())
seqs = {int(k[0].rsplit("_", 1)[1]) for k in best if k[0] and k[0].startswith("msg_e2e_")}
api_sum = 0
for line in open(log, encoding="utf-8"):
    r = json.loads(line)
    if r.get("seq") in seqs and r.get("reply"):
        u = r["reply"]["usage"]
        api_sum += sum(u.get(k, 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                             "cache_read_input_tokens", "output_tokens"))
print(len(best), tx_sum, api_sum)
PY
)
log "audit: $AUDIT_RESP responses attributed to $AUDIT_SKILL: $AUDIT_TX_SUM tokens (transcript), $AUDIT_API_SUM (fake API log)"
[ "${AUDIT_RESP:-0}" -ge 2 ] || fail "audit: the skill's responses in the transcript" \
  "at least 2 assistant responses with attributionSkill=$AUDIT_SKILL" "${AUDIT_RESP:-none}"
[ "$AUDIT_TX_SUM" = "$AUDIT_API_SUM" ] || fail "audit: transcript usage vs API log" \
  "$AUDIT_API_SUM tokens (replies of the fake API)" "$AUDIT_TX_SUM tokens (deduplicated transcript)"

audit_run() {  # audit_run <name>: cairn audit skill in the audit project
  local rc=0
  (cd "$AUDIT_P" && run_env "$CAIRN" audit skill "$AUDIT_SKILL") </dev/null >"$OUT/$1.out" 2>&1 || rc=$?
  CONTEXT_FILES+=("$OUT/$1.out")
  [ "$rc" = 0 ] || fail "cairn audit skill $AUDIT_SKILL exited with status $rc" "exit status 0" "$(cat "$OUT/$1.out")"
}
audit_run audit-1
grep -q "measured: 2 runs, $AUDIT_TX_SUM tokens in all" "$OUT/audit-1.out" || fail "audit: measured tokens" \
  "measured: 2 runs, $AUDIT_TX_SUM tokens in all" "$(cat "$OUT/audit-1.out")"
grep -q "level of proof measured" "$OUT/audit-1.out" || fail "audit: level of proof" "measured" "$(cat "$OUT/audit-1.out")"
AUDIT_REPORT="$AUDIT_P/docs/audits/token/token_audit_$AUDIT_SKILL.md"
CONTEXT_FILES+=("$AUDIT_REPORT")
grep -q '^| Exécutions trouvées | 2 (1 par /rapport_hebdo, 1 par l'"'"'outil Skill, 0 par attribution) |$' "$AUDIT_REPORT" ||
  fail "audit: report" "2 runs, one per path, in the report" "$(grep -n 'Exécutions' "$AUDIT_REPORT" || echo none)"
[ -f "$AUDIT_P/docs/audits/token/README.md" ] || fail "audit: index" "docs/audits/token/README.md" "no such file"
cp "$AUDIT_REPORT" "$OUT/token_audit_first.md"
# A second audit reads nothing again.
audit_run audit-2
grep -q " 0 B read this time" "$OUT/audit-2.out" || fail "audit: second run rescans" \
  "0 B read this time" "$(grep transcripts: "$OUT/audit-2.out")"
log "audit: $(grep '^measured:' "$OUT/audit-1.out")"
log "audit: report produced from this run's transcript:"
sed 's/^/    /' "$OUT/token_audit_first.md" >&2
