"""Runs each input through mirage-opt and stock mlir-opt (no passes) and
compares acceptance; for inputs both reject, also where the first error is
(line:column). Prints one line per input and a summary; exits 1 on any
difference. mlir-opt gets the μGraph dialect with --irdl-file.
Usage: compare_acceptance.py MIRAGE_OPT MLIR_OPT UGRAPH_IRDL FILE..."""
import re
import subprocess
import sys


def run(tool, path):
    p = subprocess.run(tool + [path], capture_output=True, text=True)
    m = re.search(r":(\d+:\d+): error:", p.stderr)
    return p.returncode == 0, m.group(1) if m else None, p.returncode


def main():
    mirage, mlir = [sys.argv[1]], [sys.argv[2], "--irdl-file=" + sys.argv[3]]
    files = sys.argv[4:]
    differ = 0
    for path in files:
        (ok_a, line_a, rc_a), (ok_b, line_b, _) = run(mirage, path), run(mlir, path)
        name = path.rsplit("/", 1)[-1]
        if rc_a < 0 or rc_a > 1:
            print(f"{name}: mirage-opt exit {rc_a}")
            differ += 1
        elif ok_a != ok_b or line_a != line_b:
            print(f"{name}: differ: mirage-opt {'accepts' if ok_a else 'rejects'} (at {line_a}), "
                  f"mlir-opt {'accepts' if ok_b else 'rejects'} (at {line_b})")
            differ += 1
        else:
            print(f"{name}: both {'accept' if ok_a else f'reject at {line_a}'}")
    print(f"{len(files)} inputs, {len(files) - differ} same, {differ} differ")
    return 1 if differ else 0


sys.exit(main())
