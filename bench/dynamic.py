#!/usr/bin/env python3
"""What one μGraph for every size costs (issue 29): for each program with a
dynamic token/row count or KV length, written as torch-mlir's TOSA path emits it,
`mirage-opt --mirage-superopt` (lower=false, cold: cache=false) once on the
dynamic program and once per representative size on its static copy. Prints
the search seconds of each (the static copy's at its smallest and largest
representative size) and, per size, the estimate of the dynamic
program's generalized μGraph (chosen or not), of the static program's best
at that size, and the program's bound. Asserts nothing.
Usage: bench/dynamic.py [--threads N] [--target sm_90] [--only NAME]"""
import argparse, os, re, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(os.environ.get("MIRAGE_BUILD_DIR", os.path.join(ROOT, "build")), "bin")
SIZES = [1, 16, 256, 4096]
LENGTHS = [128, 1024, 8192, 32768]  # KV lengths, for programs reducing over `?`

SHIFT = '%shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>'


def softmax(d):
    t = f"tensor<?x{d}xf16>"
    r = "tensor<?x1xf16>"
    return f"""func.func @softmax(%x: {t}) -> {t} {{
  %m = tosa.reduce_max %x {{axis = 1 : i32}} : ({t}) -> {r}
  %s0 = tosa.sub %x, %m : ({t}, {r}) -> {t}
  %e = tosa.exp %s0 : ({t}) -> {t}
  %s = tosa.reduce_sum %e {{axis = 1 : i32}} : ({t}) -> {r}
  %i = tosa.reciprocal %s : ({r}) -> {r}
  {SHIFT}
  %y = tosa.mul %e, %i, %shift : ({t}, {r}, tensor<1xi8>) -> {t}
  return %y : {t}
}}
"""


def rmsnorm(d, n):
    x, w, o = f"tensor<1x?x{d}xf16>", f"tensor<1x{d}x{n}xf16>", f"tensor<1x?x{n}xf16>"
    r, c = "tensor<1x?x1xf16>", "tensor<1x1x1xf16>"
    return f"""func.func @rmsnorm_matmul(%x: {x}, %w: {w}) -> {o} {{
  {SHIFT}
  %zp = "tosa.const"() <{{values = dense<0.0> : tensor<1xf16>}}> : () -> tensor<1xf16>
  %inv_n = "tosa.const"() <{{values = dense<{1.0 / d}> : {c}}}> : () -> {c}
  %sq = tosa.mul %x, %x, %shift : ({x}, {x}, tensor<1xi8>) -> {x}
  %sum = tosa.reduce_sum %sq {{axis = 2 : i32}} : ({x}) -> {r}
  %mean = tosa.mul %sum, %inv_n, %shift : ({r}, {c}, tensor<1xi8>) -> {r}
  %inv = tosa.rsqrt %mean : ({r}) -> {r}
  %nx = tosa.mul %x, %inv, %shift : ({x}, {r}, tensor<1xi8>) -> {x}
  %y = tosa.matmul %nx, %w, %zp, %zp : ({x}, {w}, tensor<1xf16>, tensor<1xf16>) -> {o}
  return %y : {o}
}}
"""


def gated(d, n):
    x, w, o = f"tensor<1x?x{d}xf16>", f"tensor<1x{d}x{n}xf16>", f"tensor<1x?x{n}xf16>"
    return f"""func.func @gated_mlp(%x: {x}, %wg: {w}, %wu: {w}) -> {o} {{
  {SHIFT}
  %zp = "tosa.const"() <{{values = dense<0.0> : tensor<1xf16>}}> : () -> tensor<1xf16>
  %g = tosa.matmul %x, %wg, %zp, %zp : ({x}, {w}, tensor<1xf16>, tensor<1xf16>) -> {o}
  %sg = tosa.sigmoid %g : ({o}) -> {o}
  %a = tosa.mul %g, %sg, %shift : ({o}, {o}, tensor<1xi8>) -> {o}
  %u = tosa.matmul %x, %wu, %zp, %zp : ({x}, {w}, tensor<1xf16>, tensor<1xf16>) -> {o}
  %y = tosa.mul %a, %u, %shift : ({o}, {o}, tensor<1xi8>) -> {o}
  return %y : {o}
}}
"""


def decode_attention(h, d):
    q, k, s = f"tensor<{h}x1x{d}xf16>", f"tensor<{h}x?x{d}xf16>", f"tensor<{h}x1x?xf16>"
    kt, r = f"tensor<{h}x{d}x?xf16>", f"tensor<{h}x1x1xf16>"
    return f"""func.func @decode_attention(%q: {q}, %k: {k}, %v: {k}) -> {q} {{
  {SHIFT}
  %zp = "tosa.const"() <{{values = dense<0.0> : tensor<1xf16>}}> : () -> tensor<1xf16>
  %kt = tosa.transpose %k {{perms = array<i32: 0, 2, 1>}} : ({k}) -> {kt}
  %s = tosa.matmul %q, %kt, %zp, %zp : ({q}, {kt}, tensor<1xf16>, tensor<1xf16>) -> {s}
  %m = tosa.reduce_max %s {{axis = 2 : i32}} : ({s}) -> {r}
  %d = tosa.sub %s, %m : ({s}, {r}) -> {s}
  %e = tosa.exp %d : ({s}) -> {s}
  %sum = tosa.reduce_sum %e {{axis = 2 : i32}} : ({s}) -> {r}
  %o = tosa.matmul %e, %v, %zp, %zp : ({s}, {k}, tensor<1xf16>, tensor<1xf16>) -> {q}
  %i = tosa.reciprocal %sum : ({r}) -> {r}
  %y = tosa.mul %o, %i, %shift : ({q}, {r}, tensor<1xi8>) -> {q}
  return %y : {q}
}}
"""


def gqa_decode():
    # The lit test's program (grouped-query decode over a ? KV cache), comments dropped.
    path = os.path.join(ROOT, "test", "search", "dynamic-gqa.mlir")
    return "".join(l for l in open(path) if not l.startswith("//"))


PROGRAMS = {
    "softmax 4096": (softmax(4096), SIZES),
    "rmsnorm+matmul 4096x6144": (rmsnorm(4096, 6144), SIZES),
    "gated mlp 4096x4096": (gated(4096, 4096), SIZES),
    "decode attention 2x?x64": (decode_attention(2, 64), LENGTHS),
    "gqa decode 8q/2kv x?x64": (gqa_decode(), LENGTHS),
}

EST = re.compile(r"at \?=(\d+): estimated ([0-9.]+) us(?:, the generalized μGraph ([0-9.]+) us)? \(program bound ([0-9.]+) us\)")
REPLACED = re.compile(r"replaced by a verified μGraph: .*?estimated ([0-9.]+) us -> ([0-9.]+) us")


def superopt(text, args):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    opts = f"lower=false cache=false threads={args.threads} target={args.target}"
    t0 = time.time()
    p = subprocess.run([os.path.join(BIN, "mirage-opt"), f"--mirage-superopt={opts}",
                        "--mirage-remarks", f.name, "-o", os.devnull],
                       capture_output=True, text=True)
    dt = time.time() - t0
    os.unlink(f.name)
    if p.returncode:
        sys.exit(f"mirage-opt failed:\n{p.stderr}")
    return dt, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--target", default="sm_90")
    ap.add_argument("--only")
    args = ap.parse_args()
    print(f"| program | search s: dynamic | static, first size | static, last size | size | "
          f"original us | generalized μGraph us | static best us | bound us | chosen |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, (text, sizes) in PROGRAMS.items():
        if args.only and args.only not in name:
            continue
        dyn_s, log = superopt(text, args)
        chosen = "generalized" if "replaced by a verified" in log else "original"
        per = {int(m.group(1)): m for m in EST.finditer(log)}
        static = {}
        for n in sizes:
            s, slog = superopt(text.replace("?", str(n)), args)
            m = REPLACED.search(slog)
            orig = float(per[n].group(2)) if n in per else float("nan")
            static[n] = (s, float(m.group(2)) if m else orig)
        for i, n in enumerate(sizes):
            m = per.get(n)
            gen = m.group(3) if m and m.group(3) else "-"
            first = i == 0
            print(f"| {name if first else ''} | {f'{dyn_s:.1f}' if first else ''} | "
                  f"{f'{static[sizes[0]][0]:.1f}' if first else ''} | "
                  f"{f'{static[sizes[-1]][0]:.1f}' if first else ''} | {n} | "
                  f"{m.group(2) if m else '-'} | {gen} | {static[n][1]:.2f} | "
                  f"{m.group(4) if m else '-'} | {chosen if first else ''} |")


if __name__ == "__main__":
    main()
