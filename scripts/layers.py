#!/usr/bin/env python3
"""Checks that lib/lower calls in one direction only (docs/lower.md, "Layers").

Usage: scripts/layers.py [LIB_LOWER_DIR] [--dump]

A file's layer is its folder: text/ < decide/ < write/ < form/ < the
driver (the files directly in lib/lower). A file may use an mg_* function
defined in its own layer or a lower one, never in a higher one; within a
layer the files' uses must not form a cycle. Exits 1 naming each
offending use (file: function -> file of its definition), 0 when the
layering holds. --dump prints every cross-file use instead.

The scan is lexical, enough for this code base's style: comments and
literals are dropped, a function definition is `name(...) {` at brace
depth 0, and a use is any later mention of a defined mg_* name (a call or
a callback passed by name).
"""
import os
import re
import sys

LAYERS = ["text", "decide", "write", "form", ""]  # "": the driver, lib/lower
NAMES = {"": "driver"}

TOKEN = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|"
                   r"[A-Za-z_]\w*|\S", re.S)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined"}


def tokens(text):
    for m in TOKEN.finditer(text):
        t = m.group(0)
        if t.startswith("//") or t.startswith("/*"):
            continue
        if t[0] in "\"'":
            yield '""'
            continue
        yield t


def scan(path):
    """Functions defined at depth 0 and every identifier used per function."""
    toks = list(tokens(open(path, encoding="utf-8").read()))
    defs, uses = [], {}
    depth, i, current = 0, 0, None
    while i < len(toks):
        t = toks[i]
        if t == "{":
            if depth == 0:
                current = definition_name(toks, i)
                if current:
                    defs.append(current)
                    uses.setdefault(current, [])
            depth += 1
        elif t == "}":
            depth -= 1
            if depth == 0:
                current = None
        elif depth > 0 and current and re.match(r"[A-Za-z_]", t):
            uses[current].append(t)
        i += 1
    return defs, uses


def definition_name(toks, brace):
    """The function a `{` at depth 0 opens, or None (struct, initializer)."""
    j = brace - 1
    if j < 0 or toks[j] != ")":
        return None
    level = 0
    while j >= 0:
        if toks[j] == ")":
            level += 1
        elif toks[j] == "(":
            level -= 1
            if level == 0:
                break
        j -= 1
    name = toks[j - 1] if j > 0 else ""
    if not re.match(r"[A-Za-z_]\w*$", name) or name in KEYWORDS:
        return None
    return name


def layer_of(root, path):
    rel = os.path.relpath(os.path.dirname(path), root)
    folder = "" if rel == "." else rel.split(os.sep)[0]
    return LAYERS.index(folder) if folder in LAYERS else None


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    dump = "--dump" in argv
    root = os.path.abspath(args[0] if args else
                           os.path.join(os.path.dirname(__file__), "..", "lib", "lower"))
    files = []
    for d, _, names in os.walk(root):
        files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".c")]
    files.sort()
    owner, scanned, problems = {}, {}, []
    for f in files:
        if layer_of(root, f) is None:
            problems.append("%s: not in a layer's folder (%s)" %
                            (os.path.relpath(f, root), ", ".join(l or "." for l in LAYERS)))
            continue
        defs, uses = scan(f)
        scanned[f] = uses
        for name in defs:
            if name.startswith("mg_"):
                owner.setdefault(name, f)
    edges = {}  # (file, file) -> first function used
    for f, uses in scanned.items():
        for fn, names in uses.items():
            for n in names:
                g = owner.get(n)
                if g and g != f:
                    edges.setdefault((f, g), "%s -> %s" % (fn, n))
    rel = lambda f: os.path.relpath(f, root)
    if dump:
        for (f, g), what in sorted(edges.items()):
            print("%s -> %s: %s" % (rel(f), rel(g), what))
        return 0
    for (f, g), what in sorted(edges.items()):
        lf, lg = layer_of(root, f), layer_of(root, g)
        if lg > lf:
            problems.append("%s: %s calls up a layer (%s -> %s, %s)" %
                            (rel(f), what, NAMES.get(LAYERS[lf], LAYERS[lf]),
                             NAMES.get(LAYERS[lg], LAYERS[lg]), rel(g)))
    for cycle in same_layer_cycles(root, edges):
        problems.append("cycle within a layer: %s" %
                        " -> ".join("%s (%s)" % (rel(a), edges[(a, b)])
                                    for a, b in zip(cycle, cycle[1:] + cycle[:1])))
    for p in problems:
        print("layers.py: " + p)
    return 1 if problems else 0


def same_layer_cycles(root, edges):
    """One cycle per strongly connected set of files of one layer."""
    graph = {}
    for f, g in edges:
        if layer_of(root, f) == layer_of(root, g):
            graph.setdefault(f, []).append(g)
    index, low, stack, on, out = {}, {}, [], set(), []

    def strong(v):  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, [])):
            if w not in index:
                strong(w)
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
                out.append(cycle_in(graph, set(comp)))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def cycle_in(graph, comp):
    """A simple cycle through the smallest file of a strongly connected set."""
    start = min(comp)
    path, seen = [start], {start}
    while True:
        nxt = sorted(w for w in graph.get(path[-1], []) if w in comp)
        if start in nxt and len(path) > 1:
            return path
        step = next((w for w in nxt if w not in seen), None)
        if step is None:  # a dead end: back up
            path.pop()
            if not path:
                return [start]
            continue
        path.append(step)
        seen.add(step)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
