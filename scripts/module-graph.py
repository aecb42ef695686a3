#!/usr/bin/env python3
"""Prints the graph of cairn's top-level modules and any import cycle.

Reads every `crate::<module>` reference in the non-test code of src/
(`#[cfg(test)]` items and files named `tests.rs`, `*_tests.rs` or
`proptests.rs` are left out) and reports, per top-level module, the
modules it uses. Exit status 1 when the modules do not form a DAG.

    python3 scripts/module-graph.py [--dot]
"""
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
TEST_FILES = re.compile(r"(^|/)(tests|proptests|[a-z_]+_tests)\.rs$")
REF = re.compile(r"\bcrate::([a-z_][a-z0-9_]*)")
USE_GROUP = re.compile(r"\buse\s+crate::\{([^;]*)\}", re.S)


def top_module(path):
    rel = path.relative_to(SRC)
    if len(rel.parts) == 1:
        return rel.stem
    return rel.parts[0]


def strip_tests(text):
    """Drops every item behind `#[cfg(test)]` (brace-matched) and comments."""
    text = re.sub(r"//[^\n]*", "", text)
    out, i = [], 0
    while True:
        j = text.find("#[cfg(test)]", i)
        if j < 0:
            out.append(text[i:])
            break
        out.append(text[i:j])
        k = j + len("#[cfg(test)]")
        semi, brace = text.find(";", k), text.find("{", k)
        if brace < 0 or (0 <= semi < brace):
            i = semi + 1  # `#[cfg(test)] mod tests;`
            continue
        depth, k = 0, brace
        while k < len(text):
            if text[k] == "{":
                depth += 1
            elif text[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1
    return "".join(out)


def graph():
    modules = {top_module(p) for p in SRC.rglob("*.rs")} - {"lib", "main"}
    edges = {m: set() for m in modules}
    for path in SRC.rglob("*.rs"):
        rel = str(path.relative_to(SRC))
        if TEST_FILES.search(rel):
            continue
        src = top_module(path)
        if src in ("lib", "main"):
            continue
        text = strip_tests(path.read_text())
        names = set(REF.findall(text))
        for group in USE_GROUP.findall(text):
            names |= set(re.findall(r"(?:^|[,{\s])([a-z_][a-z0-9_]*)\s*(?:::|,|\}|$)", group))
        for name in names:
            if name in modules and name != src:
                edges[src].add(name)
    return edges


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def layers(edges):
    """Each module's height: 0 for a leaf, else one above its highest import."""
    height = {}

    def h(v, seen=()):
        if v in height:
            return height[v]
        if v in seen:
            return 0
        height[v] = 1 + max((h(w, seen + (v,)) for w in edges[v]), default=-1)
        return height[v]

    for v in edges:
        h(v)
    return height


def main():
    edges = graph()
    if "--dot" in sys.argv:
        print("digraph cairn {")
        for m in sorted(edges):
            for d in sorted(edges[m]):
                print(f'  "{m}" -> "{d}";')
        print("}")
        return 0
    found = cycles(edges)
    if not found:
        height = layers(edges)
        for m in sorted(edges, key=lambda m: (height[m], m)):
            deps = " ".join(sorted(edges[m])) or "-"
            print(f"{height[m]:>2} {m:<12} -> {deps}")
        print(f"{len(edges)} modules, no cycle")
        return 0
    for m in sorted(edges):
        deps = " ".join(sorted(edges[m])) or "-"
        print(f"   {m:<12} -> {deps}")
    for comp in found:
        print(f"cycle of {len(comp)} modules: {' '.join(comp)}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
