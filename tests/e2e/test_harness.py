#!/usr/bin/env python3
"""Unit tests of the e2e harness itself (no client, no cairn, stdlib only).

    python3 -m unittest discover -s tests/e2e -p 'test_*.py'

scripts/e2e.sh runs them first, so a broken fake API is reported as such
rather than as a cairn failure.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.request
from http.server import ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


api = load("fake_anthropic_api", os.path.join(ROOT, "scripts", "fake_anthropic_api.py"))
INSPECT = os.path.join(HERE, "inspect.py")

ENV_MSG = {"role": "system", "content": "SessionStart hook additional context: - Objectif : X\n\n"
                                         "# Environment\n - Primary working directory: /tmp/p\n - Is a git repository: true"}
TOOLS = [{"name": "Bash"}, {"name": "Write"}]


def user(*texts):
    return {"role": "user", "content": [{"type": "text", "text": t} for t in texts]}


def tool_result(tid="t1"):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "ok"}]}


def assistant_tool(name, tid="t1"):
    return {"role": "assistant", "content": [{"type": "tool_use", "id": tid, "name": name, "input": {}}]}


class PlanTest(unittest.TestCase):
    def reply(self, messages, tools=TOOLS):
        return api.plan_reply({"messages": messages, "tools": tools}, 7)

    def test_bash_then_final(self):
        content, stop, kind = self.reply([user('Vérifie. E2E_BASH="git status --short"'), ENV_MSG])
        self.assertEqual((stop, kind), ("tool_use", "step:bash"))
        self.assertEqual(content[-1]["name"], "Bash")
        self.assertEqual(content[-1]["input"]["command"], "git status --short")
        content, stop, kind = self.reply([user('Vérifie. E2E_BASH="git status --short"'), ENV_MSG,
                                          assistant_tool("Bash"), tool_result()])
        self.assertEqual((stop, kind), ("end_turn", "final"))
        self.assertEqual(content[0]["text"], "La commande `git status --short` s'est terminée sans erreur.")

    def test_write_resolves_against_client_cwd_and_final_has_followup(self):
        content, stop, _ = self.reply([user("Rédige. E2E_WRITE=notes.md"), ENV_MSG])
        self.assertEqual(content[-1]["input"]["file_path"], "/tmp/p/notes.md")
        self.assertIn("# Plan", content[-1]["input"]["content"])
        content, _, _ = self.reply([user("Rédige. E2E_WRITE=notes.md"), ENV_MSG, assistant_tool("Write"), tool_result()])
        self.assertEqual(content[0]["text"], "J'ai créé notes.md avec le plan. Décision : on garde le format "
                                             "Markdown. Prochaine étape : relire notes.md avec l'équipe.")

    def test_steps_in_order_and_options(self):
        prompt = 'E2E_WRITE=/abs/a.md E2E_CONTENT="l1\\nl2" E2E_BASH="echo \\"hi\\"" E2E_SAY="Fini."'
        c1, _, k1 = self.reply([user(prompt)])
        self.assertEqual((k1, c1[-1]["input"]["file_path"], c1[-1]["input"]["content"]),
                         ("step:write", "/abs/a.md", "l1\nl2"))
        c2, _, k2 = self.reply([user(prompt), assistant_tool("Write"), tool_result()])
        self.assertEqual((k2, c2[-1]["input"]["command"]), ("step:bash", 'echo "hi"'))
        c3, _, _ = self.reply([user(prompt), assistant_tool("Write"), tool_result(),
                               assistant_tool("Bash", "t2"), tool_result("t2")])
        self.assertEqual(c3[0]["text"], "Fini.")

    def test_generic_tool_steps_and_usage_override(self):
        prompt = ('E2E_TOOL=Skill E2E_INPUT={"skill":"demo"} '
                  'E2E_TOOL=mcp__cairn__memory_search E2E_INPUT="{\\"query\\":\\"sqlite\\"}" '
                  'E2E_USAGE={"cache_read_input_tokens":130000}')
        c1, s1, k1 = self.reply([user(prompt)])
        self.assertEqual((s1, k1, c1[-1]["name"], c1[-1]["input"]), ("tool_use", "step:tool", "Skill", {"skill": "demo"}))
        c2, _, _ = self.reply([user(prompt), assistant_tool("Skill"), tool_result()])
        self.assertEqual((c2[-1]["name"], c2[-1]["input"]), ("mcp__cairn__memory_search", {"query": "sqlite"}))
        c3, s3, _ = self.reply([user(prompt), assistant_tool("Skill"), tool_result(),
                                assistant_tool("X", "t2"), tool_result("t2")])
        self.assertEqual((s3, c3[0]["text"]), ("end_turn", "C'est fait."))
        extra = api.usage_override({"messages": [user(prompt)]})
        self.assertEqual(extra, {"cache_read_input_tokens": 130000})
        u = api.usage(3, True, extra)
        self.assertEqual((u["cache_read_input_tokens"], u["input_tokens"], u["output_tokens"]), (130000, 1200, 63))
        self.assertEqual(api.usage(3, False, {"output_tokens": 9})["output_tokens"], 1)
        self.assertIsNone(api.usage_override({"messages": [user("no directive")]}))

    def test_latest_human_prompt_wins_and_reminders_are_not_prompts(self):
        history = [user("E2E_BASH=ls"), assistant_tool("Bash"), tool_result(),
                   {"role": "assistant", "content": [{"type": "text", "text": "done"}]}]
        content, stop, _ = self.reply(history + [user("OK-done")])
        self.assertEqual((stop, content[0]["text"]), ("end_turn", "C'est noté."))
        # hook feedback (a system-reminder user message) is not a new prompt:
        # the plan of the real prompt is not replayed
        content, stop, _ = self.reply(history + [user("<system-reminder>\nStop hook feedback:\nE2E_BASH=rm\n</system-reminder>")])
        self.assertEqual(stop, "end_turn")

    def test_final_replies_without_text(self):
        prompt = user('Relance. E2E_BASH="git status --short" E2E_END=empty')
        content, stop, kind = self.reply([prompt, ENV_MSG])
        self.assertEqual((stop, kind), ("tool_use", "step:bash"))
        done = [prompt, ENV_MSG, assistant_tool("Bash"), tool_result()]
        self.assertEqual(self.reply(done), ([], "end_turn", "final"))
        # The client's nudge after a reply with no visible output comes
        # merged into the tool_result message: the step is still done.
        nudged = done[:-1] + [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
            {"type": "text", "text": "<system-reminder>\n[Your previous response had no visible output. "
                                     "Please continue and produce a user-visible response.]\n</system-reminder>"}]}]
        self.assertEqual(self.reply(nudged), ([], "end_turn", "final"))
        for form, types in (("blank", ["text"]), ("thinking", ["thinking"])):
            content, stop, kind = self.reply([user("Rien. E2E_END=%s" % form)])
            self.assertEqual(([b["type"] for b in content], stop, kind), (types, "end_turn", "final"))
        self.assertEqual(self.reply([user("Rien. E2E_END=blank")])[0][0]["text"], "")

    def test_side_query_and_compaction(self):
        _, _, kind = api.plan_reply({"messages": [user("title?")]}, 1)
        self.assertEqual(kind, "side")
        content, _, kind = self.reply([user("Your task is to create a <summary> ... Do NOT call any tools.")])
        self.assertEqual(kind, "compaction")
        self.assertIn("<summary>", content[0]["text"])


class ServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        api.ARGS = type("A", (), {"log": os.path.join(cls.tmp.name, "req.jsonl")})
        cls.srv = ThreadingHTTPServer(("127.0.0.1", 0), api.Handler)
        cls.port = cls.srv.server_address[1]
        threading.Thread(target=cls.srv.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.shutdown()
        cls.srv.server_close()
        cls.tmp.cleanup()

    def post(self, body):
        req = urllib.request.Request("http://127.0.0.1:%d/v1/messages?beta=true" % self.port,
                                     data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json", "x-api-key": "sk-secret"})
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.headers, r.read().decode()

    def test_stream_is_well_formed_sse(self):
        headers, raw = self.post({"stream": True, "tools": TOOLS, "messages": [user("E2E_WRITE=/x/n.md"), ENV_MSG]})
        self.assertEqual(headers["Content-Type"], "text/event-stream")
        events = [blk.split("\n") for blk in raw.strip().split("\n\n")]
        names = [e[0][len("event: "):] for e in events]
        datas = [json.loads(e[1][len("data: "):]) for e in events]
        self.assertEqual(names[0], "message_start")
        self.assertEqual(names[-2:], ["message_delta", "message_stop"])
        self.assertEqual([d["type"] for d in datas], names)
        start = datas[0]["message"]["usage"]
        self.assertEqual((start["input_tokens"], start["cache_read_input_tokens"], start["output_tokens"]),
                         (1200, 20000, 1))
        self.assertEqual(datas[-2]["delta"]["stop_reason"], "tool_use")
        self.assertGreaterEqual(datas[-2]["usage"]["output_tokens"], 61)
        # the tool input arrives as input_json_delta pieces that join to the input
        pieces = [d["delta"]["partial_json"] for d in datas
                  if d["type"] == "content_block_delta" and d["delta"]["type"] == "input_json_delta"]
        self.assertEqual(json.loads("".join(pieces))["file_path"], "/x/n.md")
        starts = [d for d in datas if d["type"] == "content_block_start"]
        stops = [d for d in datas if d["type"] == "content_block_stop"]
        self.assertEqual([s["index"] for s in starts], [s["index"] for s in stops])

    def test_non_streaming_and_log(self):
        _, raw = self.post({"stream": False, "tools": TOOLS, "messages": [user("bonjour")]})
        msg = json.loads(raw)
        self.assertEqual((msg["type"], msg["stop_reason"], msg["content"][0]["text"]),
                         ("message", "end_turn", "C'est noté."))
        with open(api.ARGS.log, encoding="utf-8") as f:
            last = json.loads(f.readlines()[-1])
        self.assertEqual(last["body"]["messages"][0]["content"][0]["text"], "bonjour")
        self.assertEqual(last["path"], "/v1/messages?beta=true")
        self.assertNotIn("sk-secret", json.dumps(last))

    def test_thinking_block_streams_with_its_signature(self):
        _, raw = self.post({"stream": True, "tools": TOOLS, "messages": [user("Rien. E2E_END=thinking")]})
        datas = [json.loads(e.split("\n")[1][len("data: "):]) for e in raw.strip().split("\n\n")]
        start = [d for d in datas if d["type"] == "content_block_start"]
        self.assertEqual([d["content_block"]["type"] for d in start], ["thinking"])
        deltas = [d["delta"]["type"] for d in datas if d["type"] == "content_block_delta"]
        self.assertEqual(deltas, ["thinking_delta", "signature_delta"])

    def test_head_root(self):
        req = urllib.request.Request("http://127.0.0.1:%d/" % self.port, method="HEAD")
        with urllib.request.urlopen(req, timeout=5) as r:
            self.assertEqual(r.status, 200)


class InspectTest(unittest.TestCase):
    def run_inspect(self, *args):
        p = subprocess.run([sys.executable, INSPECT] + list(args), capture_output=True, text=True)
        return p.returncode, p.stdout

    def test_injected(self):
        with tempfile.TemporaryDirectory() as d:
            req, needles = os.path.join(d, "r.jsonl"), os.path.join(d, "n.txt")
            with open(req, "w") as f:
                for seq, text in ((1, "SessionStart hook additional context: old - bullet A"),
                                  (2, "nothing here"),
                                  (3, "SessionStart hook additional context: ## Objectif\n- bullet B")):
                    f.write(json.dumps({"seq": seq, "body": {"messages": [{"role": "system", "content": text}]}}) + "\n")
            with open(needles, "w") as f:
                f.write("bullet B\n")
            self.assertEqual(self.run_inspect("injected", req, "2", needles)[0], 0)
            self.assertEqual(self.run_inspect("injected", req, "3", needles)[0], 1)
            with open(needles, "w") as f:
                f.write("bullet A\n")
            rc, out = self.run_inspect("injected", req, "1", needles)
            self.assertEqual(rc, 1)
            self.assertIn("bullet B", out)  # shows what was injected instead

    def test_hook_runs(self):
        with tempfile.TemporaryDirectory() as d:
            dbg = os.path.join(d, "debug.log")
            with open(dbg, "w") as f:
                f.write('2026-01-01T00:00:00.000Z [DEBUG] Hooks: SessionStart:startup [/b/cairn hook] finished with status 0 (20ms)\n'
                        '2026-01-01T00:00:00.000Z [DEBUG] Hooks: Stop [/b/cairn hook] finished with status 0 (9ms)\n'
                        '2026-01-01T00:00:00.000Z [DEBUG] SessionEnd:other [/b/cairn hook] completed with status 0\n')
            rc, out = self.run_inspect("hook-runs", dbg, d, "cairn")
            self.assertEqual(rc, 0, out)
            self.assertIn("hook runs (cairn): 3  SessionEnd=1 SessionStart=1 Stop=1", out)
            with open(dbg, "a") as f:
                f.write('2026-01-01T00:00:00.000Z [DEBUG] Hooks: Stop [/b/cairn hook] finished with status 1 (9ms)\n')
            os.makedirs(os.path.join(d, "proj"))
            with open(os.path.join(d, "proj", "s.jsonl"), "w") as f:
                f.write(json.dumps({"type": "attachment", "attachment": {
                    "type": "hook_non_blocking_error", "hookName": "Stop", "stderr": "boom"}}) + "\n")
            rc, out = self.run_inspect("hook-runs", dbg, d, "cairn")
            self.assertEqual(rc, 1)
            self.assertIn("status 1", out)
            self.assertIn("hook_non_blocking_error Stop: boom", out)

    def test_stop_times(self):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.debug.log"), os.path.join(d, "b.debug.log")
            with open(a, "w") as f:
                for ms in (40, 20, 30):
                    f.write("T [DEBUG] Hooks: Stop [/b/cairn hook] finished with status 0 (%dms)\n" % ms)
                f.write("T [DEBUG] Hooks: Stop [other hook] finished with status 0 (5000ms)\n")
                f.write("T [DEBUG] Hooks: SessionStart:startup [/b/cairn hook] finished with status 0 (3000ms)\n")
            with open(b, "w") as f:
                f.write('T [DEBUG] Hooks: Stop ["/p/bin/cairn" hook] (plugin cairn@cairn) finished with status 0 (10ms)\n')
            rc, out = self.run_inspect("stop-times", "1000", "cairn", a, b)
            self.assertEqual(rc, 0, out)
            self.assertIn("stop hook wall time: n=4 p50=20 ms p95=40 ms max=40 ms", out)
            with open(b, "a") as f:
                f.write("T [DEBUG] Hooks: Stop [/b/cairn hook] finished with status 0 (1000ms)\n")
            rc, out = self.run_inspect("stop-times", "1000", "cairn", a, b)
            self.assertEqual(rc, 1)
            self.assertIn("SLOW (>= 1000 ms)", out)
            with open(b, "w") as f:
                f.write("T [DEBUG] Hooks: Stop [/b/cairn hook] finished with status 0\n")
            rc, out = self.run_inspect("stop-times", "1000", "cairn", a, b)
            self.assertEqual(rc, 1)
            self.assertIn("NO TIME", out)
            self.assertEqual(self.run_inspect("stop-times", "1000", "nothing", a)[0], 1)

    def test_ends_without_text(self):
        def rec(kind, content, **kw):
            return dict({"type": kind, "message": {"role": kind, "content": content}}, **kw)
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "proj"))
            t = os.path.join(d, "proj", "s.jsonl")
            turn = [rec("user", "Tour six : relis"),
                    rec("assistant", [{"type": "text", "text": "Je lis."}]),
                    rec("assistant", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]),
                    rec("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]),
                    rec("user", "[Your previous response had no visible output.]", isMeta=True)]
            with open(t, "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in turn))
            rc, out = self.run_inspect("ends-without-text", d, "Tour six")
            self.assertEqual(rc, 0, out)
            with open(t, "a") as f:
                f.write(json.dumps(rec("assistant", [{"type": "text", "text": "Lu."}])) + "\n")
            self.assertEqual(self.run_inspect("ends-without-text", d, "Tour six")[0], 1)
            self.assertEqual(self.run_inspect("ends-without-text", d, "Tour sept")[0], 1)

    def test_stop_payloads(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "h.jsonl")
            with open(log, "w") as f:
                for p in ({"hook_event_name": "UserPromptSubmit", "prompt": "un"},
                          {"hook_event_name": "Stop", "last_assistant_message": "Fait."},
                          {"hook_event_name": "UserPromptSubmit", "prompt": "deux"},
                          {"hook_event_name": "Stop"}):
                    f.write(json.dumps(p) + "\n")
            self.assertEqual(self.run_inspect("stop-payloads", log, "un"), (0, "Fait.\n"))
            self.assertEqual(self.run_inspect("stop-payloads", log, "deux"), (0, "no answer\n"))
            self.assertEqual(self.run_inspect("stop-payloads", log, "trois")[0], 1)

    def test_settings_hooks_and_seed(self):
        with tempfile.TemporaryDirectory() as d:
            s = os.path.join(d, "settings.json")
            with open(s, "w") as f:
                json.dump({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/x/cairn hook"}]}],
                                     "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "cairn hook"}]}]}}, f)
            self.assertEqual(self.run_inspect("settings-hooks", s), (0, "Stop\t/x/cairn hook\nPreToolUse\tcairn hook\n"))
            cfg = os.path.join(d, "home", ".claude.json")
            self.assertEqual(self.run_inspect("seed", cfg, "sk-ant-0123456789abcdefghijKLMN", d)[0], 0)
            with open(cfg) as f:
                c = json.load(f)
            self.assertTrue(c["hasCompletedOnboarding"])
            self.assertEqual(c["customApiKeyResponses"]["approved"], ["456789abcdefghijKLMN"])
            self.assertTrue(c["projects"][d]["hasTrustDialogAccepted"])


if __name__ == "__main__":
    unittest.main()
