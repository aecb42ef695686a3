# shellcheck shell=bash
# Scenario: token audit measured from real runs (issue 4). Sourced by
# scripts/e2e.sh with its functions and variables in scope.
#
# In a fresh project of its own: a project skill `rapport_hebdo`, invoked once
# by the user as `/rapport_hebdo` and once by the model through the Skill
# tool, then `cairn audit skill rapport_hebdo`. The measured tokens must equal
# the deduplicated usage sum of the skill's runs, recomputed here from the
# transcript on our own (python, independent of cairn's reader).

AUDIT_P="$W/audit-projet"
mkdir -p "$AUDIT_P/.claude/skills/rapport_hebdo"
cat >"$AUDIT_P/.claude/skills/rapport_hebdo/SKILL.md" <<'SKILL'
---
name: rapport_hebdo
description: Rédige le rapport hebdomadaire de l'équipe à partir des notes.
metadata:
  project: audit-projet
---

# /rapport_hebdo

## Étape 1 — Lire les notes

Lire `notes/semaine.md` avec Read.

## Étape 2 — Rédiger

Écrire le rapport dans `rapports/semaine.md` (Write).
SKILL
printf '# Projet audit\n' >"$AUDIT_P/README.md"
(cd "$AUDIT_P" && run_env git init -q && run_env git add README.md .claude &&
  run_env git -c user.name=e2e -c user.email=e2e@example.invalid commit -qm "init") >/dev/null
"${INSPECT[@]}" seed "$W/home/.claude/.claude.json" "$FAKE_KEY" "$AUDIT_P" >/dev/null

SAVED_P="$P"
P="$AUDIT_P"
run_claude audit-slash "" --allowedTools Skill -- '/rapport_hebdo E2E_BASH="echo hebdo"'
run_claude audit-tool "" --continue --allowedTools Skill -- \
  'Fais le rapport de la semaine. E2E_TOOL=Skill E2E_INPUT={"skill":"rapport_hebdo"} E2E_BASH="echo fini"'
P="$SAVED_P"
