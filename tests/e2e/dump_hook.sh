#!/bin/sh
# Hook used by `scripts/e2e.sh --client-only`, the harness's self-check that
# runs without cairn: it proves the client, the fake API and the hook plumbing
# work before cairn is blamed for anything.
#
# Appends each payload (one JSON line) to $E2E_HOOK_LOG. On SessionStart it
# answers with additionalContext, as cairn's memory injection does, carrying
# the text of $E2E_DUMP_CONTEXT_FILE when it exists (the self-check writes a
# "memory" bullet there), so the harness can check that it reached the model.
payload=$(cat)
printf '%s\n' "$payload" >>"${E2E_HOOK_LOG:?E2E_HOOK_LOG is not set}"
case $payload in
  *'"hook_event_name":"SessionStart"'*)
    ctx="E2E dump hook context"
    if [ -n "${E2E_DUMP_CONTEXT_FILE:-}" ] && [ -f "$E2E_DUMP_CONTEXT_FILE" ]; then
      ctx="$ctx: $(tr -d '"\\\n' <"$E2E_DUMP_CONTEXT_FILE")"
    fi
    printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"}}\n' "$ctx"
    ;;
esac
exit 0
