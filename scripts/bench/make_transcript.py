#!/usr/bin/env python3
"""Write a Claude Code transcript of about N bytes, shaped like the 2.1.332
client's (see ../shared/lab/samples/transcripts/), and the Stop payload the
client would send for its last turn.

Each turn: a typed human prompt; an assistant response written one line per
content block (thinking, text, tool_use), every line repeating the same
`message.id`, `requestId` and full usage; tool results as `user` records with
the client's `toolUseResult` copy (a Read result carries the file twice, an
Edit result the whole original file); bookkeeping records (`attachment`,
`file-history-snapshot`, `last-prompt`, `system/stop_hook_summary`) in between.
The file ends with a complete turn: human prompt, tool calls, final answer.
All timestamps are of today (the last turn is "now"), so a log keyed on the
turn's date and one keyed on the wall clock are the same file.

Usage: make_transcript.py --bytes N --out PATH --payload PATH --cwd DIR
                          [--session-id ID] [--seed N]
"""

import argparse
import datetime as dt
import json
import os
import random
import uuid

VERSION = "2.1.332"
MODEL = "claude-opus-5-5"

PROMPTS = [
    "Fix the off-by-one in the tail reader ({file}) and add a regression test.",
    "Why does the status line flicker when the transcript is rotated? Look at {file}.",
    "Refactor {file} so the parser no longer allocates per line.",
    "The merge drops bullets with trailing spaces: find out why in {file}.",
    "Add French headings support to {file}, keep the English ones working.",
    "Run the test suite and fix whatever fails in {file}.",
]
FILES = [
    "src/transcript/tail.rs", "src/transcript/stream.rs", "src/memory/log.rs",
    "src/memory/store.rs", "src/extract/offline.rs", "src/hook.rs",
    "src/config.rs", "src/redact/rules.rs", "src/statusline/mod.rs",
]
WORDS = ("let mut buf offset len block read seek tail record usage line bytes "
         "parse json serde value option result error context path file state "
         "spool worker lock merge bullet section title today project").split()

LAST_PROMPT = ("Make the daily-log merge idempotent in src/memory/log.rs, "
               "then run the tests.")
LAST_ANSWER = ("Done: the merge in src/memory/log.rs now compares bullets after "
               "normalising case and spaces, so merging the same record twice "
               "changes nothing, and the tests pass. Decision: we keep the "
               "first spelling of a duplicate bullet. Next step: add a "
               "property test for merge idempotence.")


class Writer:
    def __init__(self, f, session_id, cwd, rng):
        self.f = f
        self.session_id = session_id
        self.cwd = cwd
        self.rng = rng
        self.parent = None
        self.size = 0
        self.req = 0

    def uid(self):
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def common(self, ts):
        return {"timestamp": ts, "session_id": self.session_id,
                "userType": "external", "entrypoint": "cli", "cwd": self.cwd,
                "sessionId": self.session_id, "version": VERSION, "gitBranch": "main"}

    def emit(self, rec):
        line = json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n"
        self.f.write(line)
        self.size += len(line.encode("utf-8"))

    def chained(self, rec, ts):
        u = self.uid()
        full = {"parentUuid": self.parent, "isSidechain": False}
        full.update(rec)
        full["uuid"] = u
        full.update(self.common(ts))
        self.emit(full)
        self.parent = u
        return u

    def human(self, text, ts, prompt_id, index):
        self.emit({"type": "last-prompt", "lastPrompt": text, "leafUuid": self.parent or self.uid(),
                   "sessionId": self.session_id})
        self.emit({"type": "file-history-snapshot", "messageId": self.uid(),
                   "snapshot": {"messageId": self.uid(), "trackedFileBackups": {}, "timestamp": ts},
                   "isSnapshotUpdate": False})
        self.chained({"promptId": prompt_id, "type": "user",
                      "message": {"role": "user", "content": text},
                      "permissionMode": "default", "origin": {"kind": "human"},
                      "promptSource": "typed", "turnOrigin": "human",
                      "turnPosition": {"promptIndex": index, "turnIndex": index}}, ts)
        self.chained({"attachment": {"type": "date", "date": ts[:10]}, "type": "attachment",
                      "rendered": [{"content": f"<system-reminder>\nToday's date is {ts[:10]}.\n</system-reminder>"}],
                      "renderedRole": "system"}, ts)

    def response(self, blocks, ts, stop_reason):
        """One API response: one line per content block, usage repeated."""
        self.req += 1
        msg_id = f"msg_bench_{self.req:06d}"
        req_id = f"req_bench_{self.req:06d}"
        usage = {"input_tokens": 3 + self.req % 7,
                 "cache_creation_input_tokens": 800 + self.req % 400,
                 "cache_read_input_tokens": 20000 + 37 * self.req,
                 "output_tokens": 40 + 13 * len(blocks),
                 "output_tokens_details": {"thinking_tokens": 0},
                 "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
                 "service_tier": "standard",
                 "cache_creation": {"ephemeral_1h_input_tokens": 0,
                                    "ephemeral_5m_input_tokens": 800 + self.req % 400},
                 "inference_geo": "", "iterations": [], "speed": "standard",
                 "fallback_credit": None}
        for k, block in enumerate(blocks):
            self.chained({"message": {"id": msg_id, "type": "message", "role": "assistant",
                                      "model": MODEL, "content": [block],
                                      "stop_reason": stop_reason, "stop_sequence": None,
                                      "usage": usage, "stop_details": None},
                          "apiBlockIndex": k, "requestId": req_id, "requestRef": self.uid(),
                          "requestedModel": MODEL, "promptCacheRequested": "5m",
                          "type": "assistant", "effort": "medium", "perTurnEffort": "medium",
                          "madeBy": "model"}, ts)

    def tool_result(self, tool_id, content, result, ts, prompt_id, is_error=False):
        self.chained({"promptId": prompt_id, "type": "user",
                      "message": {"role": "user", "content": [
                          {"tool_use_id": tool_id, "type": "tool_result",
                           "content": content, "is_error": is_error}]},
                      "toolUseResult": result, "sandboxed": False,
                      "sourceToolAssistantUUID": self.parent,
                      "permissionDecision": {"decision": "accept", "source": "config",
                                             "reasonType": "rule"}}, ts)

    def stop_summary(self, ts):
        self.chained({"type": "system", "subtype": "stop_hook_summary", "hookCount": 1,
                      "hookInfos": [{"command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/memory-session.sh"}],
                      "hookErrors": [], "failedHookErrorIndexes": [], "hookAdditionalContext": [],
                      "preventedContinuation": False, "stopReason": "", "hasOutput": False,
                      "level": "suggestion", "toolUseID": self.uid()}, ts)


def source_file(rng, lines):
    out = []
    for n in range(lines):
        depth = rng.randrange(0, 4)
        words = rng.choices(WORDS, k=rng.randrange(2, 9))
        kind = rng.random()
        if kind < 0.15:
            out.append("    " * depth + "// " + " ".join(words) + ".")
        elif kind < 0.3:
            out.append("    " * depth + f"fn {words[0]}_{words[1]}(&mut self, {words[-1]}: &str) -> Result<usize> {{")
        else:
            out.append("    " * depth + f"let {words[0]} = {words[1]}.{words[-1]}(\"{' '.join(words[2:])}\")?;")
    return "\n".join(out) + "\n"


def numbered(text):
    return "".join(f"{i:6}\t{l}\n" for i, l in enumerate(text.split("\n")[:-1], 1))


def turn(w, rng, ts_of, index, prompt, answer, file_lines, path=None, fail=None):
    prompt_id = w.uid()
    path = path or rng.choice(FILES)
    abs_path = os.path.join(w.cwd, path)
    w.human(prompt.format(file=path), ts_of(0), prompt_id, index)
    # 1. think, say, read the file
    read_id = f"toolu_bench_{w.req + 1:06d}_r"
    w.response([{"type": "thinking", "thinking": f"The user wants a change in {path}; read it first.",
                 "signature": "benchsig" + "0" * 24},
                {"type": "text", "text": f"I'll start by reading {path}."},
                {"type": "tool_use", "id": read_id, "name": "Read", "input": {"file_path": abs_path}}],
               ts_of(1), "tool_use")
    content = source_file(rng, file_lines)
    n = content.count("\n")
    w.tool_result(read_id, numbered(content),
                  {"type": "text", "file": {"filePath": abs_path, "content": content,
                                            "numLines": n, "startLine": 1, "totalLines": n}},
                  ts_of(2), prompt_id)
    # 2. edit it
    edit_id = f"toolu_bench_{w.req + 1:06d}_e"
    old = content.split("\n")[n // 2]
    new = old + "  // bench: edited"
    w.response([{"type": "tool_use", "id": edit_id, "name": "Edit",
                 "input": {"file_path": abs_path, "old_string": old, "new_string": new,
                           "replace_all": False}}], ts_of(3), "tool_use")
    w.tool_result(edit_id, f"The file {abs_path} has been updated successfully.",
                  {"filePath": abs_path, "oldString": old, "newString": new,
                   "originalFile": content, "structuredPatch": [
                       {"oldStart": n // 2 + 1, "oldLines": 1, "newStart": n // 2 + 1,
                        "newLines": 1, "lines": ["-" + old, "+" + new]}],
                   "userModified": False, "replaceAll": False},
                  ts_of(4), prompt_id)
    # 3. run the tests (some fail)
    bash_id = f"toolu_bench_{w.req + 1:06d}_b"
    w.response([{"type": "tool_use", "id": bash_id, "name": "Bash",
                 "input": {"command": "cargo test --quiet", "description": "Run the tests"}}],
               ts_of(5), "tool_use")
    failed = rng.random() < 0.2 if fail is None else fail
    out = "".join(f"test {rng.choice(WORDS)}::{rng.choice(WORDS)}_{k} ... ok\n" for k in range(rng.randrange(20, 120)))
    out += "test result: FAILED. 1 failed" if failed else "test result: ok."
    w.tool_result(bash_id, out, {"stdout": out, "stderr": "", "interrupted": False,
                                 "isImage": False, "noOutputExpected": False},
                  ts_of(6), prompt_id, is_error=failed)
    # 4. the answer
    w.response([{"type": "text", "text": answer}], ts_of(7), "end_turn")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bytes", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--payload", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--session-id", default=None)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    session_id = args.session_id or str(uuid.UUID(int=rng.getrandbits(128), version=4))
    # Timestamps run forward from an hour ago (never before local midnight,
    # so every record is dated today) in quarter seconds; the last turn is now.
    now = dt.datetime.now(dt.timezone.utc)
    midnight = dt.datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    clock = {"t": max(now - dt.timedelta(hours=1), midnight.astimezone(dt.timezone.utc)
                      + dt.timedelta(seconds=1))}

    def iso(t):
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"

    def ticking(step):
        clock["t"] = min(clock["t"] + dt.timedelta(milliseconds=250), now - dt.timedelta(seconds=5))
        return iso(clock["t"])

    def final(step):
        return iso(now - dt.timedelta(seconds=2) + dt.timedelta(milliseconds=200 * step))

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        w = Writer(f, session_id, args.cwd, rng)
        w.emit({"type": "permission-mode", "permissionMode": "default", "sessionId": session_id})
        # room for the last turn (its file is small: ~1/10 of a regular one)
        budget = args.bytes - 12_000
        index = 0
        while w.size < budget:
            index += 1
            remaining = budget - w.size
            # a regular turn holds its file ~3 times, ~45 bytes a line
            lines = max(20, min(rng.randrange(80, 400), remaining // 150))
            answer = (f"Turn {index}: I edited the file and ran the tests. "
                      f"{rng.choice(['All green.', 'One test still fails; I will look at it next.'])}")
            turn(w, rng, ticking, index, rng.choice(PROMPTS), answer, lines)
            w.stop_summary(ticking(8))
        index += 1
        turn(w, rng, final, index, LAST_PROMPT, LAST_ANSWER, 30, path="src/memory/log.rs", fail=False)
        size = w.size

    payload = {"session_id": session_id, "transcript_path": os.path.abspath(args.out),
               "cwd": args.cwd, "prompt_id": w.uid(), "permission_mode": "default",
               "effort": {"level": "medium"}, "hook_event_name": "Stop",
               "stop_hook_active": False, "last_assistant_message": LAST_ANSWER,
               "background_tasks": [], "session_crons": []}
    with open(args.payload, "w", encoding="utf-8") as f:
        json.dump(payload, f, ensure_ascii=False)
    print(size)


if __name__ == "__main__":
    main()
