#!/usr/bin/env python3
"""Rebuild the seeds' Stop hook (`.claude/hooks/memory-session.sh`) from the
seed text, whose copy lost every leading space.

Bash does not care about indentation, Python does: this script extracts the
hook from the seed file, finds its six Python snippets (three `python3 -c "…"`
one-liners and three `<<'PYEOF'` heredocs) and re-indents them. It only ever
*adds* leading spaces; every line's text is otherwise kept byte for byte (this
is checked), so the rebuilt hook runs exactly the seed's logic. The one other
change allowed is `--lock-file`, which moves the flock file out of /tmp.

How the indentation is found:
- a statement ending with `:` (outside strings, brackets and comments) opens
  a block; the next statement goes one level deeper;
- `else` / `elif` / `except` / `finally` close back to their `if` / `try`;
- `def`, `import` and `from … import` are top level in this file;
- `continue` / `break` / `return` / `pass` / `raise` end the block they are in;
- lines inside brackets are continuation lines; lines inside a triple-quoted
  string are string content and are left exactly as they are;
- where the text alone cannot tell (a statement after a nested block, which
  `if` an `elif` belongs to), a hint table written for this one file says
  which block the statement belongs to. Every hint must fire exactly as often
  as expected, otherwise the seed text is not the one this was written for
  and the script fails loudly rather than guess.

Usage: reindent_seed.py SEED_TXT OUT_HOOK [--lock-file PATH] [--segments DIR]
Exit status: 0 when the hook was rebuilt and every snippet compiles; 1 with a
one-line reason on stderr otherwise.
"""

import argparse
import os
import re
import sys

START_MARKER = ".claude/hooks/memory-session.sh"
END_MARKER = ".claude/skills/memory_load/SKILL.md"
SECTION_MARKER = "Code complet"
SEED_LOCK_LINE = 'LOCK_FILE="/tmp/.memory-session-product-agents.lock"'
INDENT = "    "

FLOW_ENDERS = ("continue", "break", "return", "pass", "raise")
CONTINUERS = {
    "else": ("if", "elif", "for", "while", "try", "except"),
    "elif": ("if", "elif"),
    "except": ("try", "except"),
    "finally": ("try", "except", "else"),
}

# Hints, per snippet: (exact stripped statement, [action for each of its
# occurrences, in order]); None in that list means "the rules decide".
#   ("top",)            the statement is at module level
#   ("body", PREFIX)    the statement is in the body of the innermost open
#                       block whose header starts with PREFIX
#   ("sibling", PREFIX) an elif/else/except of that block
#   ("dedent", N)       close N blocks
TOP = ("top",)
HINTS = {
    # `with open(…) as f: d = json.load(f)`, then the print (either level runs
    # the same; top level is the usual way to write it)
    "human_len": [
        ("print(len(d.get('human', '')))", [TOP]),
    ],
    "step1_exchange": [
        # after `if isinstance(content, list): …`: every user/assistant record
        # is kept (string contents too), then filtered by extract_text
        ('messages.append({"role": d["type"], "content": content})',
         [("body", 'if d.get("type") in ("user", "assistant"):')]),
        ('Path(output_file).write_text(json.dumps({"human": human_msg, "assistant": assistant_msg}))',
         [TOP]),
    ],
    "step2_prompt": [
        ('human = d["human"][:800]', [TOP]),
        ("if existing_logs:", [TOP]),
        ('is_ok_done = human.strip().lower().replace("-", " ").replace("_", " ").strip() in ("ok done", "okdone")',
         [TOP]),
        ('prompt = """Tu es un assistant de mémoire de session Claude. Analyse cet échange et classe les informations.',
         [TOP]),
    ],
    "step4_write_memory": [
        # the `elif` of `if line.startswith("## ")`, not of the nested `if`:
        # otherwise no bullet of an existing log would ever be read back
        ("elif current_title is not None:", [("sibling", 'if line.startswith("## "):')]),
        ("return sections", [("body", "def parse_sections(")]),
        # first occurrence: after `if title not in sections: …`, still under
        # `if items:`; the second one (unknown sections) follows the rules
        ("for item in items:", [("body", "if items:"), None]),
        ('done_items = new_sections.get("a_suivre_done", [])', [("body", "def merge_log(")]),
        ("if not matched:", [("body", 'for line in sections["## À suivre"]:')]),
        ('sections["## À suivre"] = remaining',
         [("body", 'if done_items and "## À suivre" in sections:')]),
        ('lines = [f"# Log session — {today_str}", ""]', [("body", "def merge_log(")]),
        ("for title, items in sections.items():", [("body", "def merge_log(")]),
        # the blank line after each written section: it closes `for item in …`
        # and stays inside the `if` that writes the section (the seed's
        # documented format: non-empty sections only, each followed by a blank)
        ('lines.append("")', [("dedent", 1), ("dedent", 1)]),
        ('return "\\n".join(lines).rstrip() + "\\n"', [("body", "def merge_log(")]),
        ('for update in data.get("updates", []):', [TOP]),
        ('long_memory = (update.get("long_memory_update") or "").strip()',
         [("body", 'for update in data.get("updates", []):')]),
        ('with open(long_file, "a") as f:', [("body", "if long_memory:")]),
        # the .debug copy uses `logs_dir`, which only exists per update: it is
        # the end of the loop body (at top level it would raise NameError
        # whenever the answer has no update)
        ('debug_dir = logs_dir / ".debug"', [("body", 'for update in data.get("updates", []):')]),
    ],
}


class ReindentError(Exception):
    pass


def extract_hook(seed_text):
    lines = seed_text.split("\n")
    try:
        section = lines.index(SECTION_MARKER)
    except ValueError:
        raise ReindentError(f"no line '{SECTION_MARKER}' in the seed text")
    try:
        start = lines.index(START_MARKER, section + 1)
    except ValueError:
        raise ReindentError(f"no line '{START_MARKER}' after '{SECTION_MARKER}'")
    try:
        end = lines.index(END_MARKER, start + 1)
    except ValueError:
        raise ReindentError(f"no line '{END_MARKER}' after the hook")
    hook = lines[start + 1:end]
    if not hook or not hook[0].startswith("#!"):
        raise ReindentError("the extracted hook does not start with a #! line")
    if hook[-1].strip() != "exit 0":
        raise ReindentError("the extracted hook does not end with 'exit 0'")
    return hook


class LineScanner:
    """Tracks strings and brackets across the lines of one Python snippet."""

    def __init__(self):
        self.depth = 0          # open brackets
        self.string = None      # open triple-quote delimiter, or None

    def scan(self, line):
        """Scans one line. Returns (code without comment, in_string_at_start)."""
        started_in_string = self.string is not None
        code = []
        i, n = 0, len(line)
        while i < n:
            if self.string:
                if line.startswith(self.string, i):
                    code.append(self.string)
                    i += len(self.string)
                    self.string = None
                elif line[i] == "\\":
                    code.append(line[i:i + 2])
                    i += 2
                else:
                    code.append(line[i])
                    i += 1
                continue
            c = line[i]
            if c == "#":
                break
            if c in "\"'":
                delim = c * 3 if line.startswith(c * 3, i) else c
                j = i + len(delim)
                raw = i > 0 and line[i - 1] in "rR"
                if len(delim) == 3:
                    self.string = delim
                    code.append(delim)
                    i = j
                    continue
                # single-line string: find its end on this line
                while j < n and line[j] != c:
                    j += 2 if (line[j] == "\\" and not raw) else 1
                if j >= n:
                    raise ReindentError(f"unterminated string in: {line!r}")
                code.append(line[i:j + 1])
                i = j + 1
                continue
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth -= 1
            code.append(c)
            i += 1
        return "".join(code).rstrip(), started_in_string


def first_word(stmt):
    m = re.match(r"[A-Za-z_]+", stmt)
    return m.group(0) if m else ""


def reindent_python(lines, name):
    """Returns the lines with indentation restored (one string per line)."""
    # per statement text: the action for each of its occurrences (None: rules)
    hints = {text: [actions, 0] for text, actions in HINTS.get(name, [])}
    scanner = LineScanner()
    stack = []              # open blocks: (header text, level)
    out = []                # (level or None for verbatim, is_comment, text)
    stmt_level = 0          # level of the statement being continued
    stmt_first = ""         # first line of that statement
    pending_open = False    # the current statement ends with ':'
    for raw in lines:
        text = raw
        if text != text.lstrip():
            raise ReindentError(f"{name}: line already indented: {raw!r}")
        in_brackets = scanner.depth > 0
        code, in_string = scanner.scan(text)
        if in_string:
            out.append((None, False, text))           # string content, verbatim
        elif in_brackets:
            closing = text[:1] in ")]}"
            out.append((stmt_level + (0 if closing else 1), False, text))
        elif not text.strip():
            out.append((None, False, text))
        elif text.startswith("#"):
            out.append(("comment", True, text))
        else:
            # a new statement
            stripped = text.strip()
            word = first_word(stripped)
            hint = hints.get(stripped)
            action = None
            if hint:
                if hint[1] >= len(hint[0]):
                    raise ReindentError(
                        f"{name}: '{stripped}' occurs more often than expected: "
                        "the seed text is not the one this re-indenter knows")
                action = hint[0][hint[1]]
                hint[1] += 1
            if action:
                if action[0] == "top":
                    stack.clear()
                elif action[0] in ("body", "sibling"):
                    while stack and not stack[-1][0].startswith(action[1]):
                        stack.pop()
                    if not stack:
                        raise ReindentError(f"{name}: no open block '{action[1]}' for: {stripped}")
                    if action[0] == "sibling":
                        stack.pop()
                elif action[0] == "dedent":
                    for _ in range(action[1]):
                        stack.pop()
            elif word in CONTINUERS and stripped.endswith(":"):
                while stack and first_word(stack[-1][0]) not in CONTINUERS[word]:
                    stack.pop()
                if not stack:
                    raise ReindentError(f"{name}: '{word}' without its block: {stripped}")
                stack.pop()
            elif word in ("def", "class", "import", "from"):
                stack.clear()
            level = len(stack)
            out.append((level, False, text))
            stmt_level, stmt_first = level, stripped
        # statement end: open a block, or close one after a flow ender
        if scanner.depth == 0 and scanner.string is None and code.strip():
            if code.endswith(":") and not in_string:
                stack.append((stmt_first, stmt_level))
            elif first_word(stmt_first) in FLOW_ENDERS:
                if stack:
                    stack.pop()
    if scanner.depth != 0 or scanner.string is not None:
        raise ReindentError(f"{name}: unbalanced brackets or strings at the end")
    for text, (actions, used) in hints.items():
        if used != len(actions):
            raise ReindentError(
                f"{name}: '{text}' occurs {used} time(s), expected {len(actions)}: "
                "the seed text is not the one this re-indenter knows")
    # comments take the indentation of the statement that follows them
    result = []
    next_level = 0
    for level, is_comment, text in reversed(out):
        if is_comment:
            result.append(INDENT * next_level + text)
        elif level is None:
            result.append(text)
        else:
            next_level = level
            result.append(INDENT * level + text)
    result.reverse()
    return result


def find_snippets(hook):
    """Yields (name, first line index, end index exclusive) of each Python snippet."""
    names_c = iter(["stop_hook_active", "transcript_path", "human_len"])
    names_heredoc = iter(["step1_exchange", "step2_prompt", "step4_write_memory"])
    i = 0
    while i < len(hook):
        line = hook[i]
        if re.search(r'python3 -c "$', line):
            j = i + 1
            while j < len(hook) and not hook[j].startswith('"'):
                j += 1
            if j == len(hook):
                raise ReindentError(f"unterminated python3 -c snippet at line {i + 1}")
            yield next(names_c), i + 1, j
            i = j
        elif re.search(r"python3 - .*<<'PYEOF'$", line):
            j = i + 1
            while j < len(hook) and hook[j] != "PYEOF":
                j += 1
            if j == len(hook):
                raise ReindentError(f"unterminated PYEOF heredoc at line {i + 1}")
            yield next(names_heredoc), i + 1, j
            i = j
        i += 1


def rebuild(seed_text, lock_file=None):
    hook = extract_hook(seed_text)
    out = list(hook)
    snippets = {}
    for name, start, end in find_snippets(hook):
        fixed = reindent_python(hook[start:end], name)
        out[start:end] = fixed
        snippets[name] = "\n".join(fixed) + "\n"
    expected = {"stop_hook_active", "transcript_path", "human_len",
                "step1_exchange", "step2_prompt", "step4_write_memory"}
    if set(snippets) != expected:
        raise ReindentError(f"found Python snippets {sorted(snippets)}, expected {sorted(expected)}")
    # Only leading spaces were added: every line is otherwise the seed's.
    for before, after in zip(hook, out):
        if after.lstrip(" ") != before or not after.endswith(before):
            raise ReindentError(f"re-indentation changed a line: {before!r} -> {after!r}")
    if lock_file:
        hits = [k for k, l in enumerate(out) if l == SEED_LOCK_LINE]
        if len(hits) != 1:
            raise ReindentError(f"expected one line '{SEED_LOCK_LINE}', found {len(hits)}")
        out[hits[0]] = f'LOCK_FILE="{lock_file}"'
    for name, src in snippets.items():
        try:
            compile(src, f"<seed {name}>", "exec")
        except SyntaxError as e:
            raise ReindentError(f"snippet {name} does not compile after re-indentation: {e}")
    return "\n".join(out) + "\n", snippets


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed_txt")
    ap.add_argument("out_hook")
    ap.add_argument("--lock-file", help="replace the seed's /tmp lock file path")
    ap.add_argument("--segments", help="also write each Python snippet to DIR/<name>.py")
    args = ap.parse_args()
    try:
        with open(args.seed_txt, encoding="utf-8") as f:
            seed_text = f.read()
        hook, snippets = rebuild(seed_text, args.lock_file)
    except (OSError, ReindentError) as e:
        print(f"reindent_seed: {e}", file=sys.stderr)
        return 1
    with open(args.out_hook, "w", encoding="utf-8") as f:
        f.write(hook)
    os.chmod(args.out_hook, 0o755)
    if args.segments:
        os.makedirs(args.segments, exist_ok=True)
        for name, src in snippets.items():
            with open(os.path.join(args.segments, f"{name}.py"), "w", encoding="utf-8") as f:
                f.write(src)
    return 0


if __name__ == "__main__":
    sys.exit(main())
