#!/usr/bin/env python3
"""Lists C function definitions with more than N parameters (default 6).

Usage: scripts/params.py [--max N] [PATH...]   (default paths: lib tools)
Prints one 'file:line: name (count)' per definition, then the total.
A rough scanner, not a parser: it strips comments, strings and
preprocessor lines, then takes 'name(...) {' at brace depth 0.
"""
import os
import re
import sys

NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                   re.S)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof"}


def blank(match):
    # Keep newlines so line numbers survive.
    return re.sub(r'[^\n]', ' ', match.group(0))


def strip(text):
    text = NOISE.sub(blank, text)
    return re.sub(r'(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', blank, text)


def count_params(params):
    params = params.strip()
    if params in ("", "void"):
        return 0
    depth, count = 0, 1
    for ch in params:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            count += 1
    return count


def definitions(text):
    """Yields (offset, name, count) for each definition at depth 0."""
    depth = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "(" and depth == 0:
            m = re.search(r'([A-Za-z_]\w*)\s*$', text[max(0, i - 200):i])
            close, pd = i, 0
            while close < n:
                if text[close] == "(":
                    pd += 1
                elif text[close] == ")":
                    pd -= 1
                    if pd == 0:
                        break
                close += 1
            rest = text[close + 1:close + 400].lstrip()
            if m and m.group(1) not in KEYWORDS and rest.startswith("{"):
                yield i, m.group(1), count_params(text[i + 1:close])
            i = close
        i += 1


def scan(path, limit):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = strip(f.read())
    for off, name, count in definitions(text):
        if count > limit:
            yield text.count("\n", 0, off) + 1, name, count


def main(argv):
    limit = 6
    if len(argv) >= 2 and argv[0] == "--max":
        limit, argv = int(argv[1]), argv[2:]
    roots = argv or ["lib", "tools"]
    total = 0
    for root in roots:
        files = [root] if os.path.isfile(root) else sorted(
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)
        for path in sorted(files):
            if not path.endswith((".c", ".h", ".cpp")):
                continue
            for line, name, count in scan(path, limit):
                print(f"{path}:{line}: {name} ({count})")
                total += 1
    print(f"total: {total} definitions with more than {limit} parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
