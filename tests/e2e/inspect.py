#!/usr/bin/env python3
"""JSON-side helpers of scripts/e2e.sh (Python 3 standard library only).

Each subcommand prints what it found; an exit status of 1 means "assertion
failed" and the message on stdout says what was expected and what was found.

  seed CONFIG_JSON API_KEY PROJECT_DIR
      Seed the isolated client config (.claude.json): onboarding done, the
      fake key approved (the client stores its last 20 characters), the
      project trusted (so permissions apply and no dialog appears).
  settings-hooks SETTINGS_JSON
      Print one "Event<TAB>command" line per command hook registered.
  injected REQUESTS_JSONL AFTER_SEQ NEEDLE_FILE
      Pass when a /v1/messages request with seq > AFTER_SEQ carries a message
      text holding "SessionStart hook additional context" and one of the lines
      of NEEDLE_FILE (memory bullets). Prints the seq and the bullet found.
  hook-runs DEBUG_LOG TRANSCRIPT_DIR CMD_SUBSTRING
      From the client's --debug-file and transcripts: count hook runs whose
      command contains CMD_SUBSTRING (per event), and list every hook error
      (non-zero status, [ERROR] hook lines, hook_*error attachments,
      stop_hook_summary.hookErrors). Exit 1 when there is any error or no run.
  last-seq REQUESTS_JSONL
      Print the highest request seq logged so far (0 when none).
  stop-blocks REQUESTS_JSONL
      One line per Stop-hook block the model received: a main-conversation
      request whose last message carries "Stop hook feedback" (the client's
      continuation after a block). Prints "seq N: <first reason line>".
  prompt-context REQUESTS_JSONL NEEDLE
      The first main-conversation request whose latest human prompt holds
      NEEDLE: print "gate" when the messages from that prompt on carry
      cairn's <cairn-refine-gate> context, else "none"; exit 1 when no such
      request exists.
  dump-hooks HOOK_LOG
      (--client-only self-check) print "Event detail" per payload dumped by
      tests/e2e/dump_hook.sh.
  stop-times LIMIT_MS CMD_SUBSTRING DEBUG_LOG...
      Every Stop hook run whose command contains CMD_SUBSTRING, with the
      wall time the client measured (its --debug-file line "Hooks: Stop
      [cmd] finished with status S (N ms)"): one line per run, then
      "stop hook wall time: n=N p50=X ms p95=Y ms max=Z ms". Exit 1 when a
      run took LIMIT_MS or more, a run has no time, or there is no run.
  ends-without-text TRANSCRIPT_DIR NEEDLE
      The main-thread turn whose prompt holds NEEDLE ended on a tool call
      with no text: its last assistant line is a tool_use (nothing the
      client wrote after the last tool result). Prints what it found.
  stop-payloads HOOK_LOG NEEDLE
      (--client-only) the Stop payload of the turn whose prompt holds
      NEEDLE: prints "no answer" when it has no last_assistant_message (or
      an empty one), else the answer; exit 1 when there is no such Stop.
"""
import json
import os
import re
import sys
from collections import Counter

INJECT_PREFIX = "SessionStart hook additional context"


def load_jsonl(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def strings(obj):
    """Every string inside a JSON value."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, list):
        for x in obj:
            yield from strings(x)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from strings(x)


def cmd_seed(config, key, project):
    cfg = {}
    if os.path.exists(config):
        with open(config, encoding="utf-8") as f:
            cfg = json.load(f)
    cfg["hasCompletedOnboarding"] = True
    cfg.setdefault("theme", "dark")
    cfg["customApiKeyResponses"] = {"approved": [key[-20:]], "rejected": []}
    entry = cfg.setdefault("projects", {}).setdefault(os.path.abspath(project), {})
    entry.update({"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True})
    entry.setdefault("allowedTools", [])
    os.makedirs(os.path.dirname(os.path.abspath(config)), exist_ok=True)
    with open(config, "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
    return 0


def cmd_settings_hooks(path):
    try:
        with open(path, encoding="utf-8") as f:
            settings = json.load(f)
    except (OSError, ValueError) as e:
        print("cannot read %s: %s" % (path, e))
        return 1
    hooks = settings.get("hooks") or {}
    for event, groups in hooks.items():
        for group in groups or []:
            for h in (group or {}).get("hooks") or []:
                if h.get("type") == "command":
                    print("%s\t%s" % (event, h.get("command", "")))
    return 0


def cmd_injected(requests, after_seq, needle_file):
    after = int(after_seq)
    with open(needle_file, encoding="utf-8") as f:
        needles = [l.strip() for l in f if l.strip()]
    injected_texts = []
    for r in load_jsonl(requests):
        if not isinstance(r.get("seq"), int) or r["seq"] <= after:
            continue
        for msg in (r.get("body") or {}).get("messages") or []:
            for s in strings(msg.get("content")):
                if INJECT_PREFIX in s:
                    injected_texts.append((r["seq"], s))
                    for n in needles:
                        if n in s:
                            print("request #%d carries the SessionStart context with: %s" % (r["seq"], n))
                            return 0
    print("expected: a request after #%d whose messages hold %r and one of these bullets:" % (after, INJECT_PREFIX))
    for n in needles:
        print("    %s" % n)
    if not injected_texts:
        print("found: no %r text in any of those requests" % INJECT_PREFIX)
    else:
        seq, s = injected_texts[-1]
        print("found (request #%d, %d chars):" % (seq, len(s)))
        print("    " + s[:3000].replace("\n", "\n    "))
    return 1


# "[DEBUG] Hooks: Stop [<command>] finished with status 0 (9ms)",
# "[DEBUG] SessionEnd:other [<command>] completed with status 0"
HOOK_RUN_RE = re.compile(r"\] (?:Hooks: )?([A-Za-z]+)(?::\S*)? \[(.*)\] (?:finished|completed) with status (-?\d+)")


def cmd_hook_runs(debug_log, transcript_dir, substring):
    runs = Counter()
    errors = []
    if os.path.exists(debug_log):
        with open(debug_log, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = HOOK_RUN_RE.search(line)
                if m and substring in m.group(2):
                    runs[m.group(1)] += 1
                    if m.group(3) != "0":
                        errors.append("debug log: " + line.strip())
                elif "hook" in line.lower() and ("[ERROR]" in line or "timed out" in line.lower()):
                    errors.append("debug log: " + line.strip())
    for root, _dirs, files in os.walk(transcript_dir):
        for name in sorted(files):
            if not name.endswith(".jsonl"):
                continue
            for rec in load_jsonl(os.path.join(root, name)):
                att = rec.get("attachment") if rec.get("type") == "attachment" else None
                if isinstance(att, dict) and "error" in str(att.get("type", "")) and "hook" in str(att.get("type", "")):
                    errors.append("transcript %s: %s %s: %s" % (
                        name, att.get("type"), att.get("hookName"),
                        (att.get("stderr") or att.get("content") or "")[:500]))
                if rec.get("type") == "system" and rec.get("subtype") == "stop_hook_summary":
                    for e in rec.get("hookErrors") or []:
                        errors.append("transcript %s: stop_hook_summary error: %s" % (name, str(e)[:500]))
    total = sum(runs.values())
    print("hook runs (%s): %d  %s" % (substring, total,
                                       " ".join("%s=%d" % kv for kv in sorted(runs.items()))))
    for e in errors:
        print("HOOK ERROR " + e)
    if total == 0:
        print("expected: hook runs of commands containing %r in %s; found none" % (substring, debug_log))
        return 1
    return 1 if errors else 0


def cmd_last_seq(requests):
    seqs = [r["seq"] for r in load_jsonl(requests) if isinstance(r.get("seq"), int)]
    print(max(seqs) if seqs else 0)
    return 0


def cmd_dump_hooks(path):
    for p in load_jsonl(path):
        ev = p.get("hook_event_name", "?")
        detail = p.get("source") or p.get("tool_name") or ""
        if ev == "PostToolUse":
            detail = "%s %s" % (p.get("tool_name"), json.dumps(p.get("tool_input"), ensure_ascii=False))
        if ev == "Stop":
            detail = p.get("last_assistant_message") or ""
        if ev == "UserPromptSubmit":
            detail = p.get("prompt") or ""
        print("%s %s" % (ev, detail))
    return 0


def messages_of(r):
    body = r.get("body") or {}
    return body.get("messages") or [] if isinstance(body, dict) else []


def cmd_stop_blocks(requests):
    for r in load_jsonl(requests):
        msgs = messages_of(r)
        if not msgs or not (r.get("body") or {}).get("tools"):
            continue
        text = "\n".join(strings(msgs[-1].get("content")))
        if "Stop hook feedback" in text:
            reason = text.split("Stop hook feedback:", 1)[-1].strip().splitlines()
            print("seq %s: %s" % (r.get("seq"), reason[0][:160] if reason else ""))
    return 0


def cmd_prompt_context(requests, needle):
    for r in load_jsonl(requests):
        msgs = messages_of(r)
        if not (r.get("body") or {}).get("tools"):
            continue
        idx = None
        for i in range(len(msgs) - 1, -1, -1):
            m = msgs[i]
            if m.get("role") != "user":
                continue
            text = "\n".join(strings(m.get("content")))
            if needle in re.sub(r"<system-reminder>.*?</system-reminder>", "", text, flags=re.S):
                idx = i
                break
        if idx is None:
            continue
        rest = "\n".join(t for m in msgs[idx:] for t in strings(m.get("content")))
        print("gate" if "<cairn-refine-gate>" in rest else "none")
        return 0
    print("expected: a request whose prompt holds %r; found none" % needle)
    return 1


# "[DEBUG] Hooks: Stop [cairn hook] finished with status 0 (49ms)"; plugin
# hooks add "(plugin cairn@cairn)" between the command and "finished".
STOP_RUN_RE = re.compile(r"\] (?:Hooks: )?Stop \[(.*)\].*? (?:finished|completed) with status (-?\d+)(?: \((\d+)ms\))?")


def percentile(sorted_values, q):
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return 0
    k = max(0, min(len(sorted_values) - 1, -(-len(sorted_values) * q // 100) - 1))
    return sorted_values[int(k)]


def cmd_stop_times(limit_ms, substring, *debug_logs):
    limit = int(limit_ms)
    times, untimed, slow = [], [], []
    for path in debug_logs:
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = STOP_RUN_RE.search(line)
                if not m or substring not in m.group(1):
                    continue
                where = "%s: %s" % (os.path.basename(path), line.strip()[:200])
                if m.group(3) is None:
                    untimed.append(where)
                    continue
                ms = int(m.group(3))
                times.append(ms)
                print("%6d ms  %s" % (ms, os.path.basename(path)))
                if ms >= limit:
                    slow.append(where)
    if not times:
        print("expected: Stop hook runs of commands containing %r with their time; found none" % substring)
        return 1
    t = sorted(times)
    print("stop hook wall time: n=%d p50=%d ms p95=%d ms max=%d ms" % (
        len(t), percentile(t, 50), percentile(t, 95), t[-1]))
    for w in untimed:
        print("NO TIME " + w)
    for w in slow:
        print("SLOW (>= %d ms) %s" % (limit, w))
    return 1 if untimed or slow else 0


def prompt_text(content):
    """The text of a user record's prompt: a string, or its text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(
            isinstance(b, dict) and b.get("type") == "text" for b in content):
        return "\n".join(b.get("text", "") for b in content)
    return None


def turn_records(transcript_dir, needle):
    """The main-thread records of the last turn whose prompt holds needle."""
    best = None
    for root, _dirs, files in os.walk(transcript_dir):
        if "subagents" in root:
            continue
        for name in sorted(files):
            if not name.endswith(".jsonl"):
                continue
            cur = None
            for r in load_jsonl(os.path.join(root, name)):
                if r.get("isSidechain"):
                    continue
                text = prompt_text((r.get("message") or {}).get("content"))
                if r.get("type") == "user" and not r.get("isMeta") and text is not None:
                    cur = [] if needle in text else None
                    if cur is not None:
                        best = cur
                    continue
                if cur is not None:
                    cur.append(r)
    return best


def cmd_ends_without_text(transcript_dir, needle):
    recs = turn_records(transcript_dir, needle)
    if recs is None:
        print("expected: a turn whose prompt holds %r; found none" % needle)
        return 1
    last = None
    for r in recs:
        if r.get("type") == "assistant":
            last = r
    content = [b for b in ((last or {}).get("message") or {}).get("content") or [] if isinstance(b, dict)]
    blocks = [b.get("type") for b in content]
    texts = [b.get("text", "") for b in content if b.get("type") == "text"]
    if "tool_use" in blocks and not any(t.strip() for t in texts):
        print("turn %r ends on a tool call with no text after it (last assistant line: %s)" % (needle, blocks))
        return 0
    print("expected: the turn %r ends on a tool call with no text; its last assistant line: %s %r" % (
        needle, blocks, texts))
    return 1


def cmd_stop_payloads(hook_log, needle):
    seen = False
    for p in load_jsonl(hook_log):
        if p.get("hook_event_name") == "UserPromptSubmit":
            seen = needle in (p.get("prompt") or "")
        elif p.get("hook_event_name") == "Stop" and seen:
            answer = (p.get("last_assistant_message") or "").strip()
            print(answer if answer else "no answer")
            return 0
    print("expected: a Stop payload after the prompt holding %r; found none" % needle)
    return 1


COMMANDS = {
    "stop-times": (cmd_stop_times, None),
    "ends-without-text": (cmd_ends_without_text, 2),
    "stop-payloads": (cmd_stop_payloads, 2),
    "stop-blocks": (cmd_stop_blocks, 1),
    "prompt-context": (cmd_prompt_context, 2),
    "seed": (cmd_seed, 3),
    "settings-hooks": (cmd_settings_hooks, 1),
    "injected": (cmd_injected, 3),
    "hook-runs": (cmd_hook_runs, 3),
    "last-seq": (cmd_last_seq, 1),
    "dump-hooks": (cmd_dump_hooks, 1),
}


def main(argv):
    if len(argv) < 2 or argv[1] not in COMMANDS:
        sys.stderr.write(__doc__)
        return 2
    arity = COMMANDS[argv[1]][1]
    if (arity is None and len(argv) < 5) or (arity is not None and len(argv) - 2 != arity):
        sys.stderr.write(__doc__)
        return 2
    fn, _ = COMMANDS[argv[1]]
    return fn(*argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
