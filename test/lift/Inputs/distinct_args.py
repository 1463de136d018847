#!/usr/bin/env python3
"""Checks that no lifted kernel graph takes one value twice.

Reads lifted modules (mirage-opt --mirage-lift output) and, in every
function, follows each operand of a call to a kernel graph back through the
boundary reshapes the lift inserts (tensor.expand_shape / collapse_shape
marked ug.boundary) to the value the caller holds. Two operands of one call
that come from the same value mean the kernel graph is not a function of
distinct arguments (mirage-run and the verifier draw arguments
independently). Prints one line per module and exits 1 when any call
repeats a value.

Usage: distinct_args.py lifted.mlir [more.mlir ...]
"""
import re
import sys

FUNC = re.compile(r"^\s*func\.func\b")
BOUNDARY = re.compile(
    r"^\s*(%[\w.$-]+)\s*=\s*tensor\.(?:expand_shape|collapse_shape)\s+"
    r"(%[\w.$-]+)\b.*\{ug\.boundary\}")
KERNEL_CALL = re.compile(r"\bcall\s+@([\w.$-]+_lax\d+)\(([^)]*)\)")


def check(path):
    calls = bad = 0
    source = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FUNC.match(line):
                source = {}  # SSA names are per function
            m = BOUNDARY.match(line)
            if m:
                source[m.group(1)] = m.group(2)
                continue
            m = KERNEL_CALL.search(line)
            if not m:
                continue
            calls += 1
            seen = {}
            for arg in (a.strip() for a in m.group(2).split(",") if a.strip()):
                root = arg
                while root in source:
                    root = source[root]
                if root in seen:
                    bad += 1
                    print(f"{path}: @{m.group(1)} takes {root} twice "
                          f"(as {seen[root]} and {arg})")
                seen.setdefault(root, arg)
    print(f"distinct-args: {path}: {calls} kernel calls, {bad} with a "
          f"repeated value")
    return bad == 0 and calls > 0


def main():
    ok = all([check(p) for p in sys.argv[1:]])
    return 0 if ok and len(sys.argv) > 1 else 1


if __name__ == "__main__":
    sys.exit(main())
