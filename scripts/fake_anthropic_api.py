#!/usr/bin/env python3
"""Scripted fake of the Anthropic Messages API, for cairn's end-to-end test.

Python 3 standard library only. Binds 127.0.0.1 only. Used by scripts/e2e.sh
to drive the real Claude Code client offline; see tests/e2e/README.md.

    python3 scripts/fake_anthropic_api.py --port 0 --log requests.jsonl \
        [--port-file port.txt]

With --port 0 the OS picks a free port; the chosen port is printed on stdout as
one line ``PORT=<n>`` and, with --port-file, written alone to that file (the
file appears only once the server accepts connections).

Endpoints
---------
POST /v1/messages[?beta=true]   scripted reply, streamed (SSE) when the body
                                has "stream": true, else one JSON message
POST /v1/messages/count_tokens  {"input_tokens": 1200}
HEAD /, GET /                   200 (older clients probe the base URL)
GET /v1/models                  empty list
Every request is appended to --log as one JSON line:
{"seq", "ts", "method", "path", "headers" (key redacted), "body", "reply"}.

Directives (the script of a conversation)
----------------------------------------
Replies to the main conversation are scripted by directives written in the
latest *human* user prompt: the newest ``user`` message that has a text block
which is neither a tool result nor a ``<system-reminder>`` (hook feedback,
injected context). Syntax: ``E2E_<NAME>=<value>`` where value is a bare token
(up to white space) or a double-quoted string (``\\n``, ``\\"`` and ``\\\\``
are unescaped).

  E2E_BASH=<command>   one step: a Bash tool_use running <command>
  E2E_WRITE=<path>     one step: a Write tool_use creating <path> (relative
                       paths are resolved against the client's working
                       directory, read from the request) with E2E_CONTENT
  E2E_READ=<path>      one step: a Read tool_use of <path>
  E2E_TOOL=<name>      one step: a tool_use of any tool (Skill, an MCP tool
                       such as mcp__cairn__memory_search, ...) whose input is
                       the JSON object of the next E2E_INPUT (default {})
  E2E_INPUT=<json>     input of the E2E_TOOL before it
  E2E_USAGE=<json>     usage fields merged over the defaults below for every
                       reply to this prompt, e.g.
                       E2E_USAGE='{"cache_read_input_tokens":130000}'
  E2E_CONTENT=<text>   content for E2E_WRITE (default: a short Markdown plan)
  E2E_SAY=<text>       the final answer's text (default: see below)
  E2E_END=<form>       the form of the final reply instead of one text block:
                       "empty" (no content block at all), "blank" (one text
                       block holding ""), "thinking" (one thinking block),
                       "tool" (a Bash tool_use of `true` with stop_reason
                       end_turn); each with stop_reason end_turn. What the
                       client makes of these (does Stop name an answer?) is
                       in tests/e2e/README.md.

Step directives run in the order they appear, one tool_use per model turn.
The step to play is the number of user messages carrying a tool_result after
the prompt, so a plan survives the client's tool round trips. Once the plan is
done the model answers with the final text and stop_reason "end_turn".
Default final texts (French, the shape a user of cairn's default language
would see; they carry the cues cairn's offline extractor looks for):
  after a Write of F: "J'ai créé F avec le plan. Décision : on garde le format
                       Markdown. Prochaine étape : relire F avec l'équipe."
  after a Bash only:  "La commande `C` s'est terminée sans erreur."
  no step:            "C'est noté."
A prompt without directives gets the "no step" answer.

Requests that are not the main conversation get a plain short text answer:
requests without tools (side queries, titles) and compaction requests (the
latter answered with <analysis>/<summary> tags, which the client requires).

Usage numbers (fixed, realistic for a cached Claude Code turn; n = request
sequence number since the server started, so a figure can be traced):
  input_tokens 1200, cache_creation_input_tokens 0,
  cache_read_input_tokens 20000, output_tokens 1 in message_start and
  60 + n in the final message_delta (the value the client keeps).
Context fill per turn is therefore 21,200 tokens: far below any guard
threshold, so cairn's context guard stays silent.
"""
import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

INPUT_TOKENS = 1200
CACHE_CREATION_TOKENS = 0
CACHE_READ_TOKENS = 20000
OUTPUT_BASE = 60

LOCK = threading.Lock()
STATE = {"n": 0}
ARGS = None

DIRECTIVE_RE = re.compile(r'E2E_([A-Z]+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))')
REMINDER_RE = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
CWD_RE = re.compile(r"Primary working directory: (\S+)")
STEP_NAMES = ("BASH", "WRITE", "READ", "TOOL")

DEFAULT_CONTENT = (
    "# Plan\n\n"
    "- Garder le journal de session au format Markdown.\n"
    "- Relire ce plan avec l'équipe.\n"
)


def next_seq():
    with LOCK:
        STATE["n"] += 1
        return STATE["n"]


def log_line(obj):
    with LOCK:
        with open(ARGS.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")


def unescape(s):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


def blocks_of(content):
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def human_text(msg):
    """The human text of a user message: text blocks minus system reminders."""
    if msg.get("role") != "user":
        return ""
    parts = []
    for b in blocks_of(msg.get("content")):
        if b.get("type") == "text":
            t = REMINDER_RE.sub("", b.get("text", "")).strip()
            if t:
                parts.append(t)
    return "\n".join(parts)


def is_tool_result_only(msg):
    bl = blocks_of(msg.get("content"))
    return bool(bl) and all(b.get("type") == "tool_result" for b in bl)


def has_tool_result(msg):
    return any(b.get("type") == "tool_result" for b in blocks_of(msg.get("content")))


def plain_text(content):
    out = []
    for b in blocks_of(content):
        if b.get("type") == "text":
            out.append(b.get("text", ""))
        elif b.get("type") == "tool_result":
            out.append(plain_text(b.get("content")))
    return "\n".join(out)


def usage(n, final, extra=None):
    u = {
        "input_tokens": INPUT_TOKENS,
        "cache_creation_input_tokens": CACHE_CREATION_TOKENS,
        "cache_read_input_tokens": CACHE_READ_TOKENS,
        "cache_creation": {"ephemeral_5m_input_tokens": CACHE_CREATION_TOKENS,
                           "ephemeral_1h_input_tokens": 0},
        "output_tokens": OUTPUT_BASE + n if final else 1,
        "service_tier": "standard",
    }
    for k, v in (extra or {}).items():
        if k == "output_tokens" and not final:
            continue
        u[k] = v
    if extra and "cache_creation_input_tokens" in extra and "cache_creation" not in extra:
        u["cache_creation"] = {"ephemeral_5m_input_tokens": extra["cache_creation_input_tokens"],
                               "ephemeral_1h_input_tokens": 0}
    return u


def tool_inputs(directives):
    """The E2E_INPUT object paired with each E2E_TOOL, in order."""
    out, pending = [], None
    for k, v in directives:
        if k == "TOOL":
            if pending is not None:
                out.append({})
            pending = v
        elif k == "INPUT" and pending is not None:
            out.append(json.loads(v))
            pending = None
    if pending is not None:
        out.append({})
    return out


def parse_directives(prompt):
    """[(NAME, value)] in order of appearance."""
    out = []
    for m in DIRECTIVE_RE.finditer(prompt):
        val = unescape(m.group(2)) if m.group(2) is not None else m.group(3)
        out.append((m.group(1), val))
    return out


def working_dir(body):
    """The client's working directory, from its environment system message."""
    texts = [plain_text(m.get("content")) for m in body.get("messages") or [] if isinstance(m, dict)]
    texts.append(plain_text(body.get("system") or ""))
    for t in texts:
        m = CWD_RE.search(t)
        if m:
            return m.group(1)
    return None


def resolve(path, cwd):
    if os.path.isabs(path) or not cwd:
        return path
    return os.path.join(cwd, path)


def default_final(steps):
    writes = [v for k, v in steps if k == "WRITE"]
    if writes:
        name = os.path.basename(writes[-1])
        return ("J'ai créé %s avec le plan. Décision : on garde le format Markdown. "
                "Prochaine étape : relire %s avec l'équipe." % (name, name))
    bashes = [v for k, v in steps if k == "BASH"]
    if bashes:
        return "La commande `%s` s'est terminée sans erreur." % bashes[-1]
    return "C'est noté."


def usage_override(body):
    """The E2E_USAGE object of the latest human prompt, if any."""
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "user" and not is_tool_result_only(m):
            t = human_text(m)
            if t:
                for k, v in parse_directives(t):
                    if k == "USAGE":
                        return json.loads(v)
                return None
    return None


def plan_reply(body, n):
    """(content blocks, stop_reason, kind) for one /v1/messages request."""
    msgs = body.get("messages") or []
    if not body.get("tools"):
        return [{"type": "text", "text": "Réponse courte (requête annexe %d)." % n}], "end_turn", "side"
    last = plain_text(msgs[-1].get("content")) if msgs else ""
    if "<summary>" in last and "Do NOT call any tools" in last:
        return [{"type": "text", "text": (
            "<analysis>Résumé de la session de test.</analysis>\n"
            "<summary>L'utilisateur a lancé des commandes et créé des fichiers "
            "pendant le test de bout en bout.</summary>")}], "end_turn", "compaction"

    idx, prompt = None, ""
    for i in range(len(msgs) - 1, -1, -1):
        if msgs[i].get("role") == "user" and not is_tool_result_only(msgs[i]):
            t = human_text(msgs[i])
            if t:
                idx, prompt = i, t
                break
    directives = parse_directives(prompt)
    steps = [(k, v) for k, v in directives if k in STEP_NAMES]
    opts = {k: v for k, v in directives if k not in STEP_NAMES}
    # A step is done once a user message carries its tool_result, alone or
    # with a reminder the client merged into it (after a reply with no
    # visible output the client adds "[Your previous response had no
    # visible output…]" to the tool_result message and asks again).
    done = 0 if idx is None else sum(
        1 for m in msgs[idx + 1:] if m.get("role") == "user" and has_tool_result(m))

    if done < len(steps):
        kind, val = steps[done]
        tid = "toolu_e2e_%04d" % n
        cwd = working_dir(body)
        if kind == "BASH":
            pre = "Je lance la commande demandée."
            tool = {"type": "tool_use", "id": tid, "name": "Bash",
                    "input": {"command": val, "description": "Run the requested command"}}
        elif kind == "WRITE":
            pre = "Je crée le fichier %s." % os.path.basename(val)
            tool = {"type": "tool_use", "id": tid, "name": "Write",
                    "input": {"file_path": resolve(val, cwd),
                              "content": opts.get("CONTENT", DEFAULT_CONTENT)}}
        elif kind == "TOOL":
            pre = "J'appelle l'outil %s." % val
            k = sum(1 for s2 in steps[:done] if s2[0] == "TOOL")
            tool = {"type": "tool_use", "id": tid, "name": val,
                    "input": tool_inputs(directives)[k]}
        else:
            pre = "Je lis %s." % os.path.basename(val)
            tool = {"type": "tool_use", "id": tid, "name": "Read",
                    "input": {"file_path": resolve(val, cwd)}}
        return [{"type": "text", "text": pre}, tool], "tool_use", "step:%s" % kind.lower()

    end = opts.get("END")
    if end in END_FORMS:
        return END_FORMS[end](n), "end_turn", "final"
    if kind_is_tool_only(steps):
        return [{"type": "text", "text": opts.get("SAY") or "C'est fait."}], "end_turn", "final"
    text = opts.get("SAY") or default_final(steps)
    return [{"type": "text", "text": text}], "end_turn", "final"


# Final replies without answer text (E2E_END), keyed by form.
END_FORMS = {
    "empty": lambda n: [],
    "blank": lambda n: [{"type": "text", "text": ""}],
    "thinking": lambda n: [{"type": "thinking", "thinking": "Rien à ajouter (requête %d)." % n,
                            "signature": "e2e-signature-%04d" % n}],
    "tool": lambda n: [{"type": "tool_use", "id": "toolu_e2e_%04d" % n, "name": "Bash",
                        "input": {"command": "true", "description": "Nothing to add"}}],
}


def kind_is_tool_only(steps):
    return bool(steps) and all(k == "TOOL" for k, _ in steps)


def sse(event, data):
    return ("event: %s\ndata: %s\n\n" % (event, json.dumps(data, ensure_ascii=False))).encode("utf-8")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "CairnFakeAnthropic/1"

    def log_message(self, fmt, *a):  # quiet: everything goes to --log
        pass

    def _headers_for_log(self):
        h = {}
        for k, v in self.headers.items():
            if k.lower() in ("x-api-key", "authorization"):
                v = "<redacted len=%d>" % len(v)
            h[k] = v
        return h

    def _read_body(self):
        ln = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(ln) if ln else b""
        if not raw and self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            raw = b"".join(chunks)
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return {"_unparsed": raw[:2000].decode("utf-8", "replace")}

    def _send_json(self, code, obj, extra=None):
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _log(self, seq, body, reply=None):
        log_line({"seq": seq, "ts": time.time(), "method": self.command, "path": self.path,
                  "headers": self._headers_for_log(), "body": body, "reply": reply})

    def do_HEAD(self):
        self._log(None, None)
        self._send_json(200, {})

    def do_GET(self):
        self._log(None, None)
        if self.path.split("?")[0].endswith("/v1/models"):
            self._send_json(200, {"data": [], "has_more": False, "first_id": None, "last_id": None})
        else:
            self._send_json(200, {})

    def do_POST(self):
        body = self._read_body()
        base = self.path.split("?")[0]
        if base.endswith("/v1/messages/count_tokens"):
            self._log(None, body)
            self._send_json(200, {"input_tokens": INPUT_TOKENS})
            return
        if not base.endswith("/v1/messages"):
            self._log(None, body)
            self._send_json(404, {"type": "error", "error": {
                "type": "not_found_error", "message": "fake API: unknown path %s" % base}})
            return
        n = next_seq()
        body = body if isinstance(body, dict) else {}
        extra = None
        try:
            content, stop, kind = plan_reply(body, n)
            extra = usage_override(body) if body.get("tools") else None
        except Exception as e:  # a bug here must show up in the log, not hang the client
            content, stop, kind = [{"type": "text", "text": "fake API error: %r" % e}], "end_turn", "error"
        self._log(n, body, {"kind": kind, "content": content, "stop_reason": stop, "usage": usage(n, True, extra)})
        model = body.get("model") or "claude-e2e"
        msg_id, req_id = "msg_e2e_%04d" % n, "req_e2e_%04d" % n
        if not body.get("stream"):
            self._send_json(200, {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                                  "content": content, "stop_reason": stop, "stop_sequence": None,
                                  "usage": usage(n, True, extra)}, {"request-id": req_id})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("request-id", req_id)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(b):
            self.wfile.write(b"%x\r\n" % len(b) + b + b"\r\n")
            self.wfile.flush()

        chunk(sse("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": usage(n, False, extra)}}))
        chunk(sse("ping", {"type": "ping"}))
        for i, b in enumerate(content):
            if b["type"] == "text":
                chunk(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                  "content_block": {"type": "text", "text": ""}}))
                t = b["text"]
                for part in (t[:len(t) // 2], t[len(t) // 2:]):
                    chunk(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                      "delta": {"type": "text_delta", "text": part}}))
            elif b["type"] == "thinking":
                chunk(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                  "content_block": {"type": "thinking", "thinking": "",
                                                                    "signature": ""}}))
                chunk(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                  "delta": {"type": "thinking_delta",
                                                            "thinking": b["thinking"]}}))
                chunk(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                  "delta": {"type": "signature_delta",
                                                            "signature": b["signature"]}}))
            elif b["type"] == "tool_use":
                chunk(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                  "content_block": {"type": "tool_use", "id": b["id"],
                                                                    "name": b["name"], "input": {}}}))
                js = json.dumps(b["input"], ensure_ascii=False)
                for part in (js[:len(js) // 2], js[len(js) // 2:]):
                    chunk(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                      "delta": {"type": "input_json_delta",
                                                                "partial_json": part}}))
            chunk(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
        final = usage(n, True, extra)
        final.pop("cache_creation")
        final.pop("service_tier")
        chunk(sse("message_delta", {"type": "message_delta",
                                    "delta": {"stop_reason": stop, "stop_sequence": None},
                                    "usage": final}))
        chunk(sse("message_stop", {"type": "message_stop"}))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0, help="0: let the OS choose")
    ap.add_argument("--log", required=True, help="JSONL file, one line per request")
    ap.add_argument("--port-file", help="write the chosen port here once listening")
    ARGS = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    srv.daemon_threads = True
    port = srv.server_address[1]
    if ARGS.port_file:
        tmp = ARGS.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.replace(tmp, ARGS.port_file)
    print("PORT=%d" % port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
