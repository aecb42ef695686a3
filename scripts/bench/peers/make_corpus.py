#!/usr/bin/env python3
"""Generate a Claude Code transcript corpus for scripts/bench-vs-peers.sh.

Writes a fake CLAUDE_CONFIG_DIR under OUT/claude:

    projects/<escaped-cwd>/<session>.jsonl
    projects/<escaped-cwd>/<session>/subagents/agent-<id>.jsonl + .meta.json
    projects/<escaped-cwd>/<session>/subagents/workflows/wf_<id>/agent-<id>.jsonl (a few)
    projects/<escaped-cwd>/<session>/tool-results/<id>.txt (spilled outputs, a few)
    history.jsonl

in the record layout the 2.1.332 client writes (../shared/lab/REPORT.md §8):
one `assistant` line per content block (thinking, text, tool_use), each
repeating the identical full `usage` with `message.id` + `requestId`;
`user` prompts and tool results with a rich `toolUseResult` (Read, Bash,
Grep, Edit, Agent: the synchronous Agent result carries its own `usage`
object inside a `user` record); attachments; `system` records
(stop_hook_summary, turn_duration, compact_boundary); `api-request`,
`api-request-blob`, `api-request-shape`, `cost-state`, `file-history-snapshot`,
`last-prompt`, `mode`, `permission-mode`, `atis-latch`, `tools-used`,
`queue-operation`; `<synthetic>` and API-error assistant lines with zero
usage; sessions resumed days later (one file spanning several days);
several models (Opus, Sonnet, Haiku ids, some past 200K tokens per request,
a few in fast mode); `cache_creation` split into 5-minute and 1-hour writes.

Also writes OUT/truth.json: the ground truth, i.e. the token totals per UTC
day (and per model) deduplicated by (message.id, requestId) — each response
counted once — plus what a per-line sum would give, the corpus' size and
the session picked for the status line benchmark (the largest main
transcript, about --big-mb MiB).

Deterministic: the same arguments give the same bytes.

Usage: make_corpus.py --out DIR [--gb 1.0] [--seed 42] [--days 60]
                      [--end-date 2026-11-28] [--end-time 23:59] [--projects 40]
                      [--big-mb 100]
"""

import argparse
import datetime as dt
import json
import math
import os
import random
import string
import sys
import time

VERSION = "2.1.332"
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)

# model id -> (weight as a session's main model, context window, display name)
MAIN_MODELS = [
    ("claude-opus-5-5", 34, 1_000_000, "Opus 5.5"),
    ("claude-opus-4-6", 16, 1_000_000, "Opus 4.6"),
    ("claude-sonnet-4-5-20250929", 18, 1_000_000, "Sonnet 4.5"),
    ("claude-sonnet-4-6", 10, 1_000_000, "Sonnet 4.6"),
    ("claude-opus-4-1-20250805", 6, 200_000, "Opus 4.1"),
    ("claude-haiku-4-5-20251001", 8, 200_000, "Haiku 4.5"),
    ("claude-sonnet-5", 8, 1_000_000, "Sonnet 5"),
]
WINDOWS = {m: w for m, _, w, _ in MAIN_MODELS}
DISPLAY = {m: d for m, _, _, d in MAIN_MODELS}
FAST_OK = {"claude-opus-4-6", "claude-opus-5-5"}
HAIKU = "claude-haiku-4-5-20251001"

WORDS = (
    "the a to of and in is for on that with as it be this by are from or at an not "
    "function return value error state file path config test result parse read write "
    "buffer offset record session usage token model cache request response line json "
    "transcript hook guard status ledger price input output index map vec string slice "
    "iterator option some none match impl struct enum trait async await lock mutex "
    "thread spawn channel send recv serde derive clone debug default from into new "
    "build release cargo crate module public private const static mut ref self super "
    "déjà naïve façade über café résumé — → ✓"
).split()
IDENT = string.ascii_letters + string.digits
B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"

PROJECT_NAMES = [
    "api-server", "web.frontend", "data_pipeline", "infra", "mobile-app", "docs-site",
    "billing", "auth-service", "ml.training", "etl_jobs", "cli-tool", "design-system",
    "search", "notifications", "gateway", "analytics", "scheduler", "storage-engine",
    "compiler", "game.engine", "bot", "crawler", "dashboards", "sdk-python", "sdk-go",
    "payments", "kernel-module", "firmware", "blog", "dotfiles", "monorepo", "website",
    "chat-app", "image.service", "video_transcode", "queue", "cache-layer", "tracing",
    "feature-flags", "admin-panel", "mail", "geo", "recommender", "ledger", "wiki",
]


def iso(ms):
    """2026-11-30T04:21:18.468Z from milliseconds since the epoch."""
    s, rem = divmod(ms, 1000)
    t = time.gmtime(s)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (t[0], t[1], t[2], t[3], t[4], t[5], rem)


def day_of(ms):
    t = time.gmtime(ms // 1000)
    return "%04d-%02d-%02d" % (t[0], t[1], t[2])


def escape_cwd(cwd):
    return "".join(c if c.isalnum() and c.isascii() else "-" for c in cwd)


class Rng(random.Random):
    def uuid(self):
        h = "%032x" % self.getrandbits(128)
        h = h[:12] + "4" + h[13:16] + "89ab"[self.getrandbits(2)] + h[17:]
        return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])

    def b62(self, n):
        return "".join(self.choice(B62) for _ in range(n))

    def hexs(self, n):
        return "%0*x" % (n, self.getrandbits(4 * n))

    def lognorm_int(self, median, sigma, lo, hi):
        return int(min(hi, max(lo, self.lognormvariate(math.log(median), sigma))))


class TextPool:
    """A few MB of code-like text; content is sliced out of it."""

    def __init__(self, rng, size=6 << 20):
        parts, n = [], 0
        while n < size:
            k = rng.randint(3, 14)
            indent = "    " * rng.randint(0, 3)
            w = " ".join(rng.choice(WORDS) for _ in range(k))
            if rng.random() < 0.3:
                w = '%slet %s = "%s";' % (indent, rng.choice(WORDS), w)
            elif rng.random() < 0.2:
                w = '%s{"key": "%s", "n": %d}' % (indent, rng.choice(WORDS), rng.randint(0, 99999))
            else:
                w = indent + w
            parts.append(w)
            n += len(w) + 1
        self.text = "\n".join(parts)
        self.n = len(self.text)

    def take(self, rng, chars):
        chars = max(1, min(chars, self.n - 1))
        off = rng.randrange(0, self.n - chars)
        return self.text[off:off + chars]


class Truth:
    def __init__(self):
        self.days = {}
        self.naive = dict(inputTokens=0, outputTokens=0, cacheCreationTokens=0, cacheReadTokens=0)
        self.responses = 0
        self.assistant_lines = 0
        self.zero_usage_lines = 0

    @staticmethod
    def _blank():
        return dict(inputTokens=0, outputTokens=0, cacheCreationTokens=0, cacheReadTokens=0,
                    cacheCreation5mTokens=0, cacheCreation1hTokens=0, totalTokens=0, responses=0,
                    webSearchRequests=0, requestsOver200k=0, fastRequests=0)

    def add(self, ms, model, u):
        d = self.days.setdefault(day_of(ms), {"totals": self._blank(), "models": {}})
        for bucket in (d["totals"], d["models"].setdefault(model, self._blank())):
            bucket["inputTokens"] += u["input_tokens"]
            bucket["outputTokens"] += u["output_tokens"]
            bucket["cacheCreationTokens"] += u["cache_creation_input_tokens"]
            bucket["cacheReadTokens"] += u["cache_read_input_tokens"]
            bucket["cacheCreation5mTokens"] += u["cache_creation"]["ephemeral_5m_input_tokens"]
            bucket["cacheCreation1hTokens"] += u["cache_creation"]["ephemeral_1h_input_tokens"]
            bucket["totalTokens"] += (u["input_tokens"] + u["output_tokens"]
                                      + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"])
            bucket["responses"] += 1
            # what pricing rules act on (for explaining dollar differences)
            bucket["webSearchRequests"] += u["server_tool_use"]["web_search_requests"]
            bucket["requestsOver200k"] += (u["input_tokens"] + u["cache_creation_input_tokens"]
                                           + u["cache_read_input_tokens"]) > 200_000
            bucket["fastRequests"] += u.get("speed") == "fast"
        self.responses += 1

    def line(self, u):
        self.assistant_lines += 1
        self.naive["inputTokens"] += u["input_tokens"]
        self.naive["outputTokens"] += u["output_tokens"]
        self.naive["cacheCreationTokens"] += u["cache_creation_input_tokens"]
        self.naive["cacheReadTokens"] += u["cache_read_input_tokens"]


class Out:
    """One JSONL file being written."""

    def __init__(self, path, stats, dry=False):
        self.path = path
        self.f = None
        if not dry:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            self.f = open(path, "wb", buffering=1 << 20)
        self.bytes = 0
        self.lines = 0
        self.last_ms = 0
        self.stats = stats

    def write(self, rec, ms=None):
        b = (json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")
        if self.f:
            self.f.write(b)
        self.bytes += len(b)
        self.lines += 1
        if ms:
            self.last_ms = max(self.last_ms, ms)

    def close(self):
        if self.f:
            self.f.close()
        if self.f and self.last_ms:
            os.utime(self.path, (self.last_ms / 1000, self.last_ms / 1000))
        self.stats["bytes"] += self.bytes
        self.stats["last_record_ms"] = max(self.stats["last_record_ms"], self.last_ms)
        self.stats["lines"] += self.lines
        self.stats["jsonl_files"] += 1


class Session:
    """One conversation (main thread or subagent) and its running state."""

    def __init__(self, g, out, sid, cwd, model, t_ms, sidechain=False, agent_id=None,
                 agent_type=None, ttl="5m", fast=False, entry="cli"):
        self.g, self.out, self.sid, self.cwd, self.model = g, out, sid, cwd, model
        self.t = t_ms
        self.sidechain = sidechain
        self.agent_id = agent_id
        self.agent_type = agent_type
        self.parent = None
        self.ctx = g.rng.randint(14_000, 26_000)  # system prompt + tools
        self.window = WINDOWS.get(model, 200_000)
        limit = 167_000 if self.window <= 200_000 else g.rng.choice([180_000, 350_000, 500_000, 800_000])
        self.compact_at = limit
        self.ttl = ttl
        self.fast = fast
        self.entry = entry
        self.branch = g.rng.choice(["main", "master", "dev", "feature/" + g.rng.choice(WORDS)])
        self.prompt_index = 0
        self.turn_index = 0
        self.cost = 0.0
        self.model_usage = {}
        self.tools_used = set()
        self.last_usage = None
        self.pending_new = 0  # tokens added since the last request (prompt, results)
        self.pending_blobs = []
        self.notifications = []
        self.last_tool_uuid = None

    # --- common fields -------------------------------------------------------
    def base(self, rtype, ms):
        r = {"parentUuid": self.parent, "isSidechain": self.sidechain}
        if self.agent_id:
            r["agentId"] = self.agent_id
        return r

    def tail(self, r, ms):
        r["uuid"] = u = self.g.rng.uuid()
        r["timestamp"] = iso(ms)
        r["userType"] = "external"
        r["entrypoint"] = self.entry
        r["cwd"] = self.cwd
        r["sessionId"] = self.sid
        r["version"] = VERSION
        r["gitBranch"] = self.branch
        self.parent = u
        return r

    def tick(self, lo_ms, hi_ms):
        self.t += self.g.rng.randint(lo_ms, hi_ms)
        return self.t

    def meta_line(self, r):
        r["sessionId"] = self.sid
        self.out.write(r, None)

    # --- records ------------------------------------------------------------
    def user_prompt(self, text, origin="human", meta=None):
        g = self.g
        ms = self.tick(500, 4000)
        self.prompt_index += 1
        self.turn_index += 1
        r = self.base("user", ms)
        r.update({"promptId": g.rng.uuid(), "type": "user",
                  "message": {"role": "user", "content": text}})
        if meta:
            r.update(meta)
        if not self.sidechain:
            r.update({"permissionMode": "default", "origin": {"kind": origin},
                      "promptSource": "typed" if origin == "human" else "system",
                      "turnOrigin": origin if origin == "human" else "task_notification",
                      "turnPosition": {"promptIndex": self.prompt_index, "turnIndex": self.turn_index}})
        self.out.write(self.tail(r, ms), ms)
        self.pending_new += len(text) // 3 + 20

    def attachment(self, att, rendered=None, role="system"):
        ms = self.tick(1, 30)
        r = self.base("attachment", ms)
        r["attachment"] = att
        r["type"] = "attachment"
        if rendered is not None:
            r["rendered"] = [{"content": rendered}]
            r["renderedRole"] = role
        self.out.write(self.tail(r, ms), ms)
        if rendered:
            self.pending_new += len(rendered) // 4

    def system(self, subtype, fields):
        ms = self.tick(5, 200)
        r = self.base("system", ms)
        r.update({"type": "system", "subtype": subtype})
        r.update(fields)
        self.out.write(self.tail(r, ms), ms)
        return r

    def api_request(self, blobs):
        g = self.g
        ms = self.t
        hashes = []
        for content in blobs:
            h = g.rng.hexs(64)
            hashes.append(h)
            self.out.write({"type": "api-request-blob", "sessionId": self.sid, "hash": h,
                            "message": {"role": "user", "content": content}}, ms)
        rid = g.rng.uuid()
        self.out.write({
            "type": "api-request", "sessionId": self.sid, "id": rid, "timestamp": iso(ms),
            "version": VERSION, "querySource": "agent:" + (self.agent_type or "custom") if self.sidechain else "repl_main_thread",
            "shapeHash": g.shape_hash,
            "params": {"model": self.model, "betas": ["claude-code-20250219", "interleaved-thinking-2025-05-14",
                                                      "context-management-2025-06-27", "effort-2025-11-24"],
                       "max_tokens": 128000, "thinking": {"type": "adaptive", "display": "updates"},
                       "output_config": {"effort": "medium"}},
            "thread": {"type": "none"}, "keep": 0, "tail": hashes,
            "cacheControl": [{"path": ["system", 0], "value": {"type": "ephemeral"}}],
            "requestDigest": g.rng.hexs(64)}, ms)
        return rid

    def next_usage(self):
        """Token usage of the next request, and the context it leaves."""
        rng = self.g.rng
        new = max(40, self.pending_new + rng.randint(0, 400))
        self.pending_new = 0
        out_tokens = rng.lognorm_int(320, 1.1, 8, 16_000)
        if rng.random() < 0.03:  # cache miss: the whole prefix is written again
            read, write = 0, self.ctx + new
        else:
            read, write = self.ctx, new
        inp = rng.randint(1, 12) if rng.random() < 0.93 else rng.randint(100, 6000)
        if self.ttl == "5m":
            w5, w1 = write, 0
        elif self.ttl == "1h":
            w5, w1 = 0, write
        else:
            w1 = rng.randint(0, write)
            w5 = write - w1
        self.ctx = read + write + inp + out_tokens
        u = {"input_tokens": inp, "cache_creation_input_tokens": write,
             "cache_read_input_tokens": read, "output_tokens": out_tokens,
             "output_tokens_details": {"thinking_tokens": out_tokens // 3},
             "server_tool_use": {"web_search_requests": 1 if rng.random() < 0.01 else 0,
                                 "web_fetch_requests": 0},
             "service_tier": "standard",
             "cache_creation": {"ephemeral_1h_input_tokens": w1, "ephemeral_5m_input_tokens": w5},
             "inference_geo": "", "iterations": [],
             "speed": "fast" if self.fast else "standard", "fallback_credit": None}
        return u

    def assistant_response(self, blocks, stop_reason):
        """One API response: one line per content block, identical usage."""
        g = self.g
        u = self.next_usage()
        msg_id = "msg_01" + g.rng.b62(22)
        req_id = "req_011C" + g.rng.b62(20)
        rref = self.api_request(self.pending_blobs or [[{"type": "text", "text": "continue"}]])
        self.pending_blobs = []
        ms = self.tick(800, 25_000)
        # keep all lines of one response on the same UTC day (ground truth by day)
        if day_of(ms) != day_of(ms + 60 * len(blocks) + 60):
            ms = self.t = (ms // 86_400_000 + 1) * 86_400_000 + 500
        first_ms = ms
        for i, block in enumerate(blocks):
            r = self.base("assistant", ms)
            r["message"] = {"id": msg_id, "type": "message", "role": "assistant", "model": self.model,
                            "content": [block], "stop_reason": stop_reason, "stop_sequence": None,
                            "usage": u, "stop_details": None}
            if block["type"] == "thinking":
                r["thinkingDurationMs"] = g.rng.randint(100, 9000)
                r["thinkingDisplay"] = "omitted"
            if block["type"] == "tool_use":
                r["toolInputStreamMs"] = g.rng.randint(1, 400)
            r.update({"apiBlockIndex": i, "requestId": req_id, "requestRef": rref,
                      "requestedModel": self.model, "promptCacheRequested": self.ttl if self.ttl != "mixed" else "1h",
                      "type": "assistant"})
            if self.sidechain and self.agent_type:
                r["attributionAgent"] = self.agent_type
            r.update({"effort": "medium", "perTurnEffort": "medium", "madeBy": "model"})
            self.tail(r, ms)
            if not self.sidechain and g.rng.random() < 0.5:
                r["session_id"] = self.sid
            self.out.write(r, ms)
            g.truth.line(u)
            ms = self.tick(3, 60)
        g.truth.add(first_ms, self.model, u)
        self.last_usage = u
        mu = self.model_usage.setdefault(self.model, [0, 0, 0, 0])
        mu[0] += u["input_tokens"]
        mu[1] += u["output_tokens"]
        mu[2] += u["cache_read_input_tokens"]
        mu[3] += u["cache_creation_input_tokens"]
        self.cost += (u["input_tokens"] * 5 + u["output_tokens"] * 25 + u["cache_read_input_tokens"] * 0.5
                      + u["cache_creation_input_tokens"] * 6.25) / 1e6
        return u

    def zero_usage_line(self, text, api_error=False):
        """`<synthetic>` assistant line (interrupt, API error): no tokens."""
        g = self.g
        ms = self.tick(50, 2000)
        u = {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0, "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
             "service_tier": None, "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}}
        r = self.base("assistant", ms)
        r["message"] = {"id": g.rng.uuid(), "model": "<synthetic>", "role": "assistant", "stop_reason": "stop_sequence",
                        "stop_sequence": "", "type": "message", "usage": u,
                        "content": [{"type": "text", "text": text}]}
        r["type"] = "assistant"
        if api_error:
            r["isApiErrorMessage"] = True
            r["error"] = "overloaded_error"
        self.out.write(self.tail(r, ms), ms)
        g.truth.zero_usage_lines += 1

    def tool_result(self, tool_use, content, tool_use_result, is_error=False):
        ms = self.tick(30, 20_000)
        r = self.base("user", ms)
        r.update({"promptId": self.g.rng.uuid(), "type": "user",
                  "message": {"role": "user", "content": [
                      {"tool_use_id": tool_use["id"], "type": "tool_result", "content": content,
                       "is_error": is_error}]}})
        self.tail(r, ms)
        r["toolUseResult"] = tool_use_result
        r["sourceToolAssistantUUID"] = self.last_tool_uuid
        if not self.sidechain:
            r["permissionDecision"] = {"decision": "accept", "source": "config", "reasonType": "rule",
                                       "ruleSource": "projectSettings"}
        self.out.write(r, ms)
        text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
        self.pending_new += len(text) // 3 + 30
        self.pending_blobs.append([{"tool_use_id": tool_use["id"], "type": "tool_result",
                                    "content": text[:3000]}])


class Generator:
    def __init__(self, args, dry=False):
        self.args = args
        self.dry = dry
        self.rng = Rng(args.seed)
        self.pool = TextPool(Rng(args.seed + 1))
        self.truth = Truth()
        self.stats = dict(bytes=0, lines=0, jsonl_files=0, other_files=0, main_sessions=0,
                          subagent_files=0, workflow_agent_files=0, projects=0, resumed_sessions=0,
                          compactions=0, fast_sessions=0, last_record_ms=0)
        self.root = os.path.join(args.out, "claude")
        self.shape_hash = self.rng.hexs(64)
        self.system_prompt = self.pool.take(self.rng, 40_000)
        self.skill_listing = self.pool.take(self.rng, 13_000)
        self.agent_listing = self.pool.take(self.rng, 6_000)
        end = dt.datetime.strptime(args.end_date, "%Y-%m-%d").replace(tzinfo=dt.timezone.utc)
        day0 = int((end - EPOCH).total_seconds() * 1000)
        hh, mm = (int(x) for x in args.end_time.split(":"))
        # nothing is written after the end time (the bench passes "now")
        self.end_ms = day0 + (hh * 60 + mm) * 60_000 + 59_999
        self.start_ms = day0 + 86_400_000 - args.days * 86_400_000
        self.projects = []
        for i in range(args.projects):
            name = PROJECT_NAMES[i % len(PROJECT_NAMES)] + ("" if i < len(PROJECT_NAMES) else "-%d" % i)
            owner = self.rng.choice(["dev", "alice", "build"])
            cwd = "/home/%s/src/%s" % (owner, name)
            self.projects.append(cwd)
        self.history = []
        self.big = None

    # --- content ------------------------------------------------------------
    def text(self, chars):
        return self.pool.take(self.rng, chars)

    def tool_call(self, s):
        """A tool_use block and a function producing its result."""
        rng = self.rng
        kind = rng.choices(["Read", "Bash", "Grep", "Edit", "Write", "Glob", "Agent", "WebFetch"],
                           [30, 28, 12, 12, 4, 5, 1.5 if not s.sidechain else 0, 2])[0]
        tid = "toolu_01" + rng.b62(22)
        path = "%s/src/%s/%s.rs" % (s.cwd, rng.choice(WORDS[:40]), rng.choice(WORDS[:60]))
        if kind == "Read":
            inp = {"file_path": path}
        elif kind == "Bash":
            inp = {"command": "cargo test --quiet 2>&1 | tail -n %d" % rng.randint(20, 400),
                   "description": "Run the tests"}
        elif kind == "Grep":
            inp = {"pattern": rng.choice(WORDS), "path": s.cwd, "output_mode": "content", "-n": True}
        elif kind in ("Edit", "Write"):
            inp = {"file_path": path, "old_string": self.text(rng.randint(40, 600)),
                   "new_string": self.text(rng.randint(40, 900))}
            if kind == "Write":
                inp = {"file_path": path, "content": self.text(rng.randint(500, 12_000))}
        elif kind == "Glob":
            inp = {"pattern": "**/*.%s" % rng.choice(["rs", "ts", "py", "md"])}
        elif kind == "WebFetch":
            inp = {"url": "https://example.com/docs/%s" % rng.choice(WORDS[:40]), "prompt": "summarise"}
        else:
            inp = {"description": "Investigate " + rng.choice(WORDS), "prompt": self.text(rng.randint(200, 1500)),
                   "subagent_type": rng.choice(["general-purpose", "Explore", "Plan"]),
                   "run_in_background": rng.random() < 0.4}
        block = {"type": "tool_use", "id": tid, "name": kind, "input": inp}
        s.tools_used.add(kind)
        return block

    def run_tool(self, s, block):
        rng = self.rng
        kind = block["name"]
        big = rng.random() < 0.04
        if kind == "Read":
            n = rng.lognorm_int(3_500, 1.1, 200, 120_000 if not big else 400_000)
            body = self.text(n)
            lines = body.count("\n") + 1
            numbered = body  # the client numbers lines; the size is what matters
            s.tool_result(block, numbered, {"type": "text", "file": {
                "filePath": block["input"]["file_path"], "content": body, "numLines": lines,
                "startLine": 1, "totalLines": lines}})
        elif kind == "Bash":
            n = rng.lognorm_int(700, 1.4, 20, 60_000 if not big else 300_000)
            out = self.text(n)
            err = rng.random() < 0.08
            s.tool_result(block, out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False,
                                       "noOutputExpected": False}, is_error=err)
            if n > 30_000 and rng.random() < 0.5:
                self.spill(s, block["id"], out)
        elif kind == "Grep":
            n = rng.lognorm_int(1_200, 1.2, 50, 80_000)
            out = self.text(n)
            s.tool_result(block, out, {"mode": "content", "numFiles": rng.randint(1, 40), "filenames": [],
                                       "content": out, "numLines": out.count("\n") + 1})
        elif kind in ("Edit", "Write"):
            inp = block["input"]
            patch = [{"oldStart": rng.randint(1, 900), "oldLines": 5, "newStart": 1, "newLines": 7,
                      "lines": ["-" + inp.get("old_string", "")[:200], "+" + inp.get("new_string", inp.get("content", ""))[:400]]}]
            s.tool_result(block, "The file %s has been updated." % inp["file_path"],
                          {"filePath": inp["file_path"], "oldString": inp.get("old_string", ""),
                           "newString": inp.get("new_string", ""), "originalFile": self.text(rng.lognorm_int(4_000, 1.0, 300, 60_000)),
                           "structuredPatch": patch, "userModified": False, "replaceAll": False})
        elif kind == "Glob":
            files = ["%s/src/%s.rs" % (s.cwd, rng.choice(WORDS)) for _ in range(rng.randint(3, 120))]
            s.tool_result(block, "\n".join(files), {"filenames": files, "durationMs": rng.randint(2, 80),
                                                    "numFiles": len(files), "truncated": False})
        elif kind == "WebFetch":
            out = self.text(rng.randint(1_000, 20_000))
            s.tool_result(block, out, {"bytes": len(out) * 3, "code": 200, "codeText": "OK", "result": out,
                                       "durationMs": rng.randint(300, 5000), "url": block["input"]["url"]})
        else:
            self.subagent(s, block)

    def spill(self, s, tid, out):
        if self.dry:
            return
        d = os.path.join(os.path.dirname(s.out.path), s.sid, "tool-results")
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, tid + ".txt")
        with open(p, "w", encoding="utf-8") as f:
            f.write(out)
        self.stats["other_files"] += 1
        self.stats["bytes"] += len(out.encode("utf-8"))

    # --- subagents ----------------------------------------------------------
    def subagent(self, s, block):
        rng = self.rng
        inp = block["input"]
        aid = "a" + rng.hexs(16)
        atype = inp["subagent_type"]
        model = HAIKU if atype == "Explore" else (s.model if rng.random() < 0.7 else "claude-sonnet-4-5-20250929")
        workflow = rng.random() < 0.06
        base = os.path.join(os.path.dirname(s.out.path), s.sid, "subagents")
        if workflow:
            base = os.path.join(base, "workflows", "wf_" + rng.hexs(12))
        path = os.path.join(base, "agent-%s.jsonl" % aid)
        out = Out(path, self.stats, self.dry)
        sub = Session(self, out, s.sid, s.cwd, model, s.t + rng.randint(50, 400), sidechain=True,
                      agent_id=aid, agent_type=atype, ttl=s.ttl, entry=s.entry)
        sub.pending_blobs = []
        sub.branch = s.branch
        sub.user_prompt(inp["prompt"])
        sub.attachment({"type": "skill_listing", "content": self.skill_listing[:4000], "isInitial": True},
                       "<system-reminder>\n" + self.skill_listing[:4000] + "\n</system-reminder>")
        n_calls = rng.randint(2, 20)
        totals = [0, 0, 0, 0]
        last = None
        for i in range(n_calls):
            final = i == n_calls - 1
            blocks = []
            if rng.random() < 0.4:
                blocks.append({"type": "thinking", "thinking": self.text(rng.randint(100, 1500)), "signature": rng.b62(200)})
            if final or rng.random() < 0.5:
                blocks.append({"type": "text", "text": self.text(rng.randint(80, 2500 if final else 400))})
            tools = [] if final else [self.tool_call(sub) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
            blocks.extend(tools)
            u = sub.assistant_response(blocks, "end_turn" if final else "tool_use")
            sub.last_tool_uuid = sub.parent
            for t in tools:
                self.run_tool(sub, t)
            last = u
        out.close()
        meta = {"agentType": atype, "isBuiltIn": True, "launchedWithDefaults": True,
                "description": inp["description"], "toolUseId": block["id"], "spawnDepth": 1,
                "requestShape": "background" if inp["run_in_background"] else "foreground",
                "requestNonInteractive": True, "model": model, "modelNotNamed": True,
                "pickedEffortModel": model, "finished": True}
        if not self.dry:
            with open(path[:-len(".jsonl")] + ".meta.json", "w") as f:
                json.dump(meta, f, separators=(",", ":"))
        self.stats["other_files"] += 1
        self.stats["subagent_files"] += 1
        if workflow:
            self.stats["workflow_agent_files"] += 1
        s.t = max(s.t, sub.t) if not inp["run_in_background"] else s.t + rng.randint(100, 900)
        result = self.text(rng.randint(200, 3000))
        total = last["input_tokens"] + last["cache_creation_input_tokens"] + last["cache_read_input_tokens"] + last["output_tokens"]
        if inp["run_in_background"]:
            s.tool_result(block, [{"type": "text", "text": "Async agent launched successfully.\nagentId: %s\n" % aid}],
                          {"isAsync": True, "status": "async_launched", "agentId": aid,
                           "description": inp["description"], "resolvedModel": model, "prompt": inp["prompt"],
                           "outputFile": "/tmp/claude-0/%s/%s/tasks/%s.output" % (escape_cwd(s.cwd), s.sid, aid),
                           "canReadOutputFile": True, "canContinueAgent": True})
            s.notifications.append((aid, block["id"], inp["description"], result, total, sub.t))
        else:
            # the synchronous result carries the agent's last usage in a `user` record
            s.tool_result(block, [{"type": "text", "text": "[Subagent hand-back] " + result +
                                   "\nagentId: %s\n<usage>subagent_tokens: %d\ntool_uses: %d</usage>" % (aid, total, n_calls)}],
                          {"status": "completed", "prompt": inp["prompt"], "agentId": aid, "agentType": atype,
                           "toolsUsed": sorted(sub.tools_used), "content": [{"type": "text", "text": result}],
                           "resolvedModel": model, "totalDurationMs": sub.t - s.t + 1000, "totalTokens": total,
                           "totalToolUseCount": n_calls, "usage": last, "canContinueAgent": True})

    # --- sessions -----------------------------------------------------------
    def first_turn_attachments(self, s):
        rng = self.rng
        s.attachment({"type": "hook_success", "hookName": "SessionStart:startup", "toolUseID": rng.uuid(),
                      "hookEvent": "SessionStart", "content": "", "stdout": "", "stderr": "", "exitCode": 0,
                      "command": "cairn hook", "durationMs": rng.randint(2, 900)})
        s.attachment({"type": "environment", "snapshot": {"workingDirectory": s.cwd, "isWorktree": False,
                      "isGitRepo": True, "platform": "linux", "shell": "bash"}},
                      "<system-reminder>\n# Environment\n - Primary working directory: %s\n</system-reminder>" % s.cwd)
        s.attachment({"type": "model", "identity": {"modelId": s.model, "marketingName": DISPLAY.get(s.model, s.model)}},
                     "<system-reminder>\nYou are powered by the model %s.\n</system-reminder>" % s.model)
        s.attachment({"type": "agent_listing_delta", "addedTypes": ["general-purpose", "Explore", "Plan"],
                      "addedLines": [self.agent_listing]}, "<system-reminder>\n" + self.agent_listing + "\n</system-reminder>")
        s.attachment({"type": "skill_listing", "content": self.skill_listing, "isInitial": True},
                     "<system-reminder>\n" + self.skill_listing + "\n</system-reminder>")
        s.attachment({"type": "date", "date": day_of(s.t)},
                     "<system-reminder>\nToday's date is %s.\n</system-reminder>" % day_of(s.t))
        s.out.write({"type": "api-request-shape", "sessionId": s.sid, "shapeHash": self.shape_hash,
                     "timestamp": iso(s.t), "version": VERSION,
                     "shape": {"system": [{"type": "text", "text": self.system_prompt}], "tools": []}}, s.t)

    def turn(self, s, first):
        rng = self.rng
        g = self
        if s.entry == "cli":
            s.out.write({"type": "file-history-snapshot", "messageId": rng.uuid(),
                         "snapshot": {"messageId": rng.uuid(), "trackedFileBackups": {}, "timestamp": iso(s.t)},
                         "isSnapshotUpdate": False}, s.t)
        if s.notifications and rng.random() < 0.8:
            aid, tid, desc, result, total, at = s.notifications.pop(0)
            s.t = max(s.t, at)
            note = ("<task-notification>\n<task-id>%s</task-id>\n<tool-use-id>%s</tool-use-id>\n<status>completed</status>\n"
                    "<summary>Agent \"%s\" finished</summary>\n<result>%s</result>\n<usage><subagent_tokens>%d</subagent_tokens>"
                    "</usage>\n</task-notification>" % (aid, tid, desc, result, total))
            s.out.write({"type": "queue-operation", "operation": "enqueue", "timestamp": iso(s.t),
                         "sessionId": s.sid, "content": note}, s.t)
            s.user_prompt(note, origin="task-notification")
        else:
            prompt = self.text(rng.lognorm_int(300, 1.2, 10, 12_000))
            s.user_prompt(prompt)
            self.history.append({"display": prompt[:200], "pastedContents": {}, "timestamp": s.t,
                                 "project": s.cwd, "sessionId": s.sid})
        if first:
            self.first_turn_attachments(s)
        else:
            s.attachment({"type": "hook_success", "hookName": "UserPromptSubmit", "toolUseID": rng.uuid(),
                          "hookEvent": "UserPromptSubmit", "content": "", "stdout": "", "stderr": "",
                          "exitCode": 0, "command": "cairn hook", "durationMs": rng.randint(2, 80)})
            if rng.random() < 0.3:
                s.attachment({"type": "date", "date": day_of(s.t)},
                             "<system-reminder>\nToday's date is %s.\n</system-reminder>" % day_of(s.t))
        s.pending_blobs = [[{"type": "text", "text": "prompt"}]]
        n_calls = max(1, int(rng.lognormvariate(math.log(6), 0.9)))
        n_calls = min(n_calls, 60)
        for i in range(n_calls):
            final = i == n_calls - 1
            if rng.random() < 0.004:
                s.zero_usage_line("API Error: Repeated 529 Overloaded errors", api_error=True)
            blocks = []
            if rng.random() < 0.55:
                blocks.append({"type": "thinking", "thinking": self.text(rng.randint(100, 3000)),
                               "signature": rng.b62(rng.randint(200, 800))})
            if final or rng.random() < 0.6:
                blocks.append({"type": "text", "text": self.text(rng.randint(40, 4000 if final else 500))})
            tools = [] if final else [self.tool_call(s) for _ in range(rng.choice([1, 1, 1, 1, 2, 2, 3, 4]))]
            blocks.extend(tools)
            s.assistant_response(blocks, "end_turn" if final else "tool_use")
            s.last_tool_uuid = s.parent
            for t in tools:
                self.run_tool(s, t)
                if rng.random() < 0.1:
                    s.attachment({"type": "hook_success", "hookName": "PostToolUse:" + t["name"], "toolUseID": t["id"],
                                  "hookEvent": "PostToolUse", "content": "", "stdout": "", "stderr": "",
                                  "exitCode": 0, "command": "cairn hook", "durationMs": rng.randint(2, 60)})
            if s.ctx > s.compact_at:
                self.compact(s, "auto")
        if rng.random() < 0.01:
            s.zero_usage_line("No response requested.")
        s.system("stop_hook_summary", {"hookCount": 1, "hookInfos": [{"command": "cairn hook"}], "hookErrors": [],
                                       "preventedContinuation": False, "stopReason": "", "hasOutput": False,
                                       "level": "suggestion", "toolUseID": rng.uuid()})
        s.system("turn_duration", {"durationMs": rng.randint(2_000, 600_000), "messageCount": n_calls * 3,
                                   "isMeta": False})
        for r in ({"type": "last-prompt", "leafUuid": s.parent},
                  {"type": "tools-used", "tools": sorted(s.tools_used)},
                  {"type": "atis-latch", "atis": ""}):
            s.meta_line(r)
        if rng.random() < 0.1:
            s.meta_line({"type": "permission-mode", "permissionMode": rng.choice(["default", "acceptEdits", "plan"])})
            s.meta_line({"type": "mode", "mode": "normal"})

    def compact(self, s, trigger):
        rng = self.rng
        pre = s.ctx
        post = rng.randint(8_000, 40_000)
        self.stats["compactions"] += 1
        s.parent = None
        s.system("compact_boundary", {"logicalParentUuid": rng.uuid(), "content": "Conversation compacted",
                                      "level": "info", "compactMetadata": {"trigger": trigger, "preTokens": pre,
                                                                           "postTokens": post,
                                                                           "durationMs": rng.randint(5_000, 90_000)}})
        s.user_prompt("This session is being continued from a previous conversation that ran out of context.\n\nSummary:\n"
                      + self.text(rng.randint(3_000, 12_000)), meta={"isVisibleInTranscriptOnly": True, "isCompactSummary": True})
        s.prompt_index -= 1
        s.ctx = post

    def session(self, target_bytes, t_ms, cwd=None, model=None, gap_median_ms=90_000, resume=True,
                margin_ms=7_200_000):
        rng = self.rng
        cwd = cwd or rng.choice(self.projects)
        if model is None:
            model = rng.choices([m for m, _, _, _ in MAIN_MODELS], [w for _, w, _, _ in MAIN_MODELS])[0]
        sid = rng.uuid()
        path = os.path.join(self.root, "projects", escape_cwd(cwd), sid + ".jsonl")
        out = Out(path, self.stats, self.dry)
        fast = model in FAST_OK and rng.random() < 0.06
        ttl = rng.choices(["5m", "1h", "mixed"], [60, 30, 10])[0]
        entry = "cli" if rng.random() < 0.85 else "sdk-cli"
        s = Session(self, out, sid, cwd, model, t_ms, ttl=ttl, fast=fast, entry=entry)
        s.notifications = []
        s.pending_blobs = []
        self.stats["main_sessions"] += 1
        self.stats["fast_sessions"] += fast
        s.meta_line({"type": "mode", "mode": "normal"})
        s.meta_line({"type": "permission-mode", "permissionMode": "default"})
        first = True
        resumed = False
        while out.bytes < target_bytes and s.t < self.end_ms - margin_ms:
            self.turn(s, first)
            first = False
            if rng.random() < 0.25:
                s.out.write({"type": "cost-state", "sessionId": sid, "totalCostUSD": s.cost,
                             "totalAPIDuration": rng.randint(1000, 10 ** 7), "totalDuration": s.t - t_ms,
                             "modelUsage": {m: {"inputTokens": v[0], "outputTokens": v[1],
                                                "cacheReadInputTokens": v[2], "cacheCreationInputTokens": v[3],
                                                "costUSD": s.cost} for m, v in s.model_usage.items()},
                             "hasUnknownModelCost": False}, s.t)
            # idle between prompts; sometimes the session is resumed days later
            gap = rng.randint(1, 4) * 86_400_000 + rng.randint(0, 8 * 3_600_000)
            if (resume and rng.random() < 0.015 and out.bytes < target_bytes * 0.8
                    and s.t + gap < self.end_ms - 7_200_000):
                s.t += gap
                resumed = True
                s.attachment({"type": "hook_success", "hookName": "SessionStart:resume", "toolUseID": rng.uuid(),
                              "hookEvent": "SessionStart", "content": "", "stdout": "", "stderr": "",
                              "exitCode": 0, "command": "cairn hook", "durationMs": rng.randint(2, 900)})
            else:
                s.t += int(rng.lognormvariate(math.log(gap_median_ms), 1.3))
        self.stats["resumed_sessions"] += resumed
        out.close()
        return s

    def big_session(self, target_bytes, t_ms):
        return self.session(target_bytes, t_ms, cwd=self.projects[0], model="claude-opus-5-5",
                            gap_median_ms=20_000, resume=False, margin_ms=60_000)

    def run(self):
        args = self.args
        rng = self.rng
        target = int(args.gb * (1 << 30))
        big_target = min(int(args.big_mb * (1 << 20)), max(1 << 20, target // 8))
        # The status line's session: one large, busy main transcript that is
        # still going at the end time ("now"). A dry run of it (same random
        # sequence, nothing written) gives its time span, so the real one
        # starts early enough to end about 15 minutes before the end time.
        probe = Generator(args, dry=True)
        probe.big_session(big_target, probe.start_ms)
        span = probe.stats["last_record_ms"] - probe.start_ms
        big = self.big_session(big_target, max(self.start_ms, self.end_ms - span - 15 * 60_000))
        self.big = big
        self.big_size = big.out.bytes
        if self.big_size < big_target * 0.9:
            print("make_corpus: warning: the status line session reached only %.1f MiB of %.1f MiB "
                  "before the corpus' last day" % (self.big_size / 1048576, big_target / 1048576), file=sys.stderr)
        while self.stats["bytes"] < target:
            size = rng.lognorm_int(600_000, 1.5, 15_000, 60 << 20)
            size = min(size, max(15_000, target - self.stats["bytes"]))
            day = rng.randrange(args.days)
            # more sessions on weekdays and in recent weeks
            t = self.start_ms + day * 86_400_000 + rng.randint(6, 22) * 3_600_000 + rng.randint(0, 3_599_999)
            if t > self.end_ms - 7_200_000:
                continue
            if time.gmtime(t // 1000).tm_wday >= 5 and rng.random() < 0.6:
                continue
            self.session(size, t)
            if self.stats["main_sessions"] % 50 == 0:
                print("\r  %6.0f MiB of %.0f MiB, %d sessions" % (self.stats["bytes"] / 1048576, target / 1048576,
                                                                  self.stats["main_sessions"]),
                      end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        hp = os.path.join(self.root, "history.jsonl")
        with open(hp, "w", encoding="utf-8") as f:
            for h in self.history[-5000:]:
                f.write(json.dumps(h, separators=(",", ":"), ensure_ascii=False) + "\n")
        self.stats["other_files"] += 1
        self.stats["projects"] = len(os.listdir(os.path.join(self.root, "projects")))

    def write_truth(self, path, elapsed):
        t = self.truth
        days = dict(sorted(t.days.items()))
        totals = Truth._blank()
        for d in days.values():
            for k in totals:
                totals[k] += d["totals"][k]
        big = self.big
        u = big.last_usage
        truth = {
            "generator": "scripts/bench/peers/make_corpus.py",
            "client_version": VERSION,
            "params": {"gb": self.args.gb, "seed": self.args.seed, "days": self.args.days,
                       "end_date": self.args.end_date, "end_time": self.args.end_time, "projects": self.args.projects, "big_mb": self.args.big_mb},
            "timezone": "UTC",
            "dedupe": "one response per (message.id, requestId); every line of a response repeats the same usage",
            "corpus": dict(self.stats, config_dir="claude", assistant_lines=t.assistant_lines,
                           last_record_at=iso(self.stats["last_record_ms"]),
                           responses=t.responses, zero_usage_lines=t.zero_usage_lines,
                           generate_seconds=round(elapsed, 1)),
            "days": days,
            "totals": totals,
            "per_line_totals": t.naive,
            "statusline": {
                "session_id": big.sid, "cwd": big.cwd, "model": big.model,
                "display_name": DISPLAY[big.model], "context_window_size": WINDOWS[big.model],
                "transcript": os.path.relpath(big.out.path, self.args.out),
                "transcript_bytes": self.big_size,
                "last_usage": {k: u[k] for k in ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                                                 "cache_read_input_tokens")},
                "cost_usd": round(big.cost, 6),
            },
        }
        with open(path, "w") as f:
            json.dump(truth, f, indent=1)
            f.write("\n")
        return truth


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="corpus folder (created; must be empty or absent)")
    ap.add_argument("--gb", type=float, default=1.0, help="size in GiB of the files written (default 1.0)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--days", type=int, default=60)
    ap.add_argument("--end-date", default="2026-11-28", help="last UTC day of the corpus")
    ap.add_argument("--end-time", default="23:59", help="UTC time on the last day after which nothing is written")
    ap.add_argument("--projects", type=int, default=40)
    ap.add_argument("--big-mb", type=float, default=100.0,
                    help="size of the status line's main transcript in MiB (capped at 1/8 of --gb)")
    args = ap.parse_args()
    if os.path.exists(args.out) and os.listdir(args.out):
        sys.exit("make_corpus: %s exists and is not empty" % args.out)
    t0 = time.monotonic()
    g = Generator(args)
    g.run()
    truth = g.write_truth(os.path.join(args.out, "truth.json"), time.monotonic() - t0)
    c = truth["corpus"]
    print("make_corpus: %.1f MiB in %d JSONL files (%d sessions, %d subagent files, %d projects), %d lines, "
          "%d responses on %d assistant lines, %d days, %.0f s" % (
              c["bytes"] / 1048576, c["jsonl_files"], c["main_sessions"], c["subagent_files"], c["projects"],
              c["lines"], c["responses"], c["assistant_lines"], len(truth["days"]), c["generate_seconds"]),
          file=sys.stderr)


if __name__ == "__main__":
    main()
