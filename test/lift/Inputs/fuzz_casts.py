#!/usr/bin/env python3
"""Fuzz-style checks of --mirage-lift around casts (run by fuzz-casts.mlir).

Writes random chains of element-type casts (f32 / f16 / bf16) and the ops
next to them: unary ops (exp, rsqrt, tanh, log, erf, sigmoid, reciprocal,
negate, relu, sqrt, square), binary ops with an argument or with a splat
constant (x * c, x + c, x * reciprocal(c)), reductions (sum, max), and in
TOSA views (transpose, a reshape adding a unit dim) and matmuls with f32
results. The same chains are written three ways: TOSA (tosa.cast), linalg
with one generic per step (arith.extf / truncf generics), and linalg with
the casts folded into the body of the next op. Each module must
  1. lift, and pass --mirage-verify-ugraph, with exit status 0 and no
     "internal" diagnostic or remark (what cannot lift is left in place
     with a reason);
  2. lift + unlift to the module mirage-opt prints;
  3. with --mirage-run, agree numerically (mirage-run --lift).
With --mirage-run, casts go through f32 only: the upstream lowering that
mirage-run JIT-compiles references with turns a direct f16 <-> bf16
tosa.cast into an arith.truncf the verifier rejects. Deterministic for a
given --seed; prints one line per failure and a summary, exits 1 on any
failure.
"""
import argparse
import os
import random
import subprocess
import sys

SHAPE = [2, 4, 8]
DTYPES = ["f32", "f16", "bf16"]
UNARY = ["exp", "rsqrt", "tanh", "log", "erf", "sigmoid", "reciprocal",
         "negate", "relu", "sqrt", "square"]
BINARY = ["add", "sub", "mul", "maximum", "mulc", "addc", "divc"]
REDUCE = ["reduce_sum", "reduce_max"]
MATH = {"exp": "math.exp", "rsqrt": "math.rsqrt", "tanh": "math.tanh",
        "log": "math.log", "erf": "math.erf", "sqrt": "math.sqrt"}
# Splat constants per binary step: distinct values, so that no constant is
# both folded (x * c) and passed in (x + c) by one kernel graph, which
# mirage-run cannot check (docs/lift.md, the contract).
SPLAT = {"mulc": "1.250000e-01", "addc": "2.500000e-01", "divc": "8.000000e+00"}
MAX_FINITE = {"f32": "3.40282347e+38", "f16": "65504.0",
              "bf16": "3.38953139e+38"}
LOWEST = {"f32": "0xFF800000", "f16": "0xFC00", "bf16": "0xFF80"}
ID3 = "affine_map<(d0, d1, d2) -> (d0, d1, d2)>"
ROW3 = "affine_map<(d0, d1, d2) -> (d0, d1, 0)>"


def ttype(shape, dt):
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), dt)


class Func:
    def __init__(self, name):
        self.name = name
        self.lines = []
        self.n = 0
        self.args = []
        self.consts = {}

    def fresh(self):
        self.n += 1
        return "%%v%d" % self.n

    def arg(self, shape, dt):
        a = "%%a%d" % len(self.args)
        self.args.append((a, ttype(shape, dt)))
        return a

    def const(self, value, shape, dt):
        key = (value, tuple(shape), dt)
        if key not in self.consts:
            c = self.fresh()
            t = ttype(shape, dt)
            self.lines.append('%s = "tosa.const"() <{values = dense<%s> : %s}> '
                              ': () -> %s' % (c, value, t, t))
            self.consts[key] = c
        return self.consts[key]

    def shift(self):
        return self.const("0", [1], "i8")

    def text(self, result, rtype):
        sig = ", ".join("%s: %s" % a for a in self.args)
        body = "\n".join("  " + line for line in self.lines)
        return "func.func @%s(%s) -> %s {\n%s\n  return %s : %s\n}\n" % (
            self.name, sig, rtype, body, result, rtype)


def tosa_step(f, v, shape, dt, step, rng):
    kind, p = step
    r = f.fresh()
    t = ttype(shape, dt)
    if kind == "cast":
        f.lines.append("%s = tosa.cast %s : (%s) -> %s" % (r, v, t, ttype(shape, p)))
        return r, shape, p
    if kind == "view" and p == "transpose":
        perm = list(range(len(shape)))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        ns = [shape[i] for i in perm]
        f.lines.append("%s = tosa.transpose %s {perms = array<i32: %s>} : (%s) -> %s"
                       % (r, v, ", ".join(map(str, perm)), t, ttype(ns, dt)))
        return r, ns, dt
    if kind == "view":  # add a leading unit dim (rank 6 at most, the limit)
        if len(shape) >= 6:
            return v, shape, dt
        ns = [1] + list(shape)
        cs = f.fresh()
        f.lines.append("%s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} "
                       ": () -> !tosa.shape<%d>"
                       % (cs, ", ".join(map(str, ns)), len(ns), len(ns)))
        f.lines.append("%s = tosa.reshape %s, %s : (%s, !tosa.shape<%d>) -> %s"
                       % (r, v, cs, t, len(ns), ttype(ns, dt)))
        return r, ns, dt
    if kind == "matmul":  # f32 result, as torch-mlir writes f16 matmuls
        if len(shape) != 3:
            return v, shape, dt
        ws = [shape[0], shape[2], 8]
        w = f.arg(ws, dt)
        z = f.const("0.0", [1], dt)
        ns = [shape[0], shape[1], 8]
        f.lines.append("%s = tosa.matmul %s, %s, %s, %s : (%s, %s, %s, %s) -> %s"
                       % (r, v, w, z, z, t, ttype(ws, dt), ttype([1], dt),
                          ttype([1], dt), ttype(ns, "f32")))
        return r, ns, "f32"
    if kind == "un":
        ones = [1] * len(shape)
        if p == "negate":
            z = f.const("0.0", [1], dt)
            f.lines.append("%s = tosa.negate %s, %s, %s : (%s, %s, %s) -> %s"
                           % (r, v, z, z, t, ttype([1], dt), ttype([1], dt), t))
        elif p == "relu":
            f.lines.append("%s = tosa.clamp %s {max_val = %s : %s, min_val = 0.0 : %s} "
                           ": (%s) -> %s" % (r, v, MAX_FINITE[dt], dt, dt, t, t))
        elif p in ("sqrt", "square"):
            e = f.const("5.000000e-01" if p == "sqrt" else "2.000000e+00", ones, dt)
            f.lines.append("%s = tosa.pow %s, %s : (%s, %s) -> %s"
                           % (r, v, e, t, ttype(ones, dt), t))
        else:
            f.lines.append("%s = tosa.%s %s : (%s) -> %s" % (r, p, v, t, t))
        return r, shape, dt
    if kind == "bin":
        ones = [1] * len(shape)
        ct = ttype(ones, dt)
        if p in SPLAT:
            c = f.const(SPLAT[p], ones, dt)
            if p == "addc":
                f.lines.append("%s = tosa.add %s, %s : (%s, %s) -> %s" % (r, v, c, t, ct, t))
                return r, shape, dt
            if p == "divc":  # torch-mlir's x / c
                rc = f.fresh()
                f.lines.append("%s = tosa.reciprocal %s : (%s) -> %s" % (rc, c, ct, ct))
                c = rc
            f.lines.append("%s = tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s"
                           % (r, v, c, f.shift(), t, ct, t))
            return r, shape, dt
        y = f.arg(shape, dt) if rng.random() < 0.5 else v
        if p == "mul":
            f.lines.append("%s = tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s"
                           % (r, v, y, f.shift(), t, t, t))
        else:
            f.lines.append("%s = tosa.%s %s, %s : (%s, %s) -> %s" % (r, p, v, y, t, t, t))
        return r, shape, dt
    assert kind == "red"
    ns = list(shape)
    ns[-1] = 1
    f.lines.append("%s = tosa.%s %s {axis = %d : i32} : (%s) -> %s"
                   % (r, p, v, len(shape) - 1, t, ttype(ns, dt)))
    return r, ns, dt


def cast_lines(dst, src, a, b):
    if a != "f32" and b != "f32":  # f16 <-> bf16 goes through f32
        return ["%s_w = arith.extf %s : %s to f32" % (dst, src, a),
                "%s = arith.truncf %s_w : f32 to %s" % (dst, dst, b)]
    op = "arith.extf" if b == "f32" else "arith.truncf"
    return ["%s = %s %s : %s to %s" % (dst, op, src, a, b)]


def body_op(kind, p, cur, cd):
    """Body lines computing %r from `cur` (of type `cd`)."""
    if kind == "un":
        if p in MATH:
            return ["%%r = %s %s : %s" % (MATH[p], cur, cd)]
        if p == "negate":
            return ["%%r = arith.negf %s : %s" % (cur, cd)]
        if p == "square":
            return ["%%r = arith.mulf %s, %s : %s" % (cur, cur, cd)]
        if p == "reciprocal":
            return ["%%one = arith.constant 1.0 : %s" % cd,
                    "%%r = arith.divf %%one, %s : %s" % (cur, cd)]
        if p == "relu":
            return ["%%z = arith.constant 0.0 : %s" % cd,
                    "%%r = arith.maximumf %s, %%z : %s" % (cur, cd)]
        assert p == "sigmoid"
        return ["%%n = arith.negf %s : %s" % (cur, cd),
                "%%e = math.exp %%n : %s" % cd,
                "%%one = arith.constant 1.0 : %s" % cd,
                "%%d = arith.addf %%one, %%e : %s" % cd,
                "%%r = arith.divf %%one, %%d : %s" % cd]
    if kind == "bin":
        if p in SPLAT:
            op = {"mulc": "arith.mulf", "addc": "arith.addf", "divc": "arith.divf"}[p]
            value = {"mulc": "0.125", "addc": "0.25", "divc": "8.0"}[p]
            return ["%%k = arith.constant %s : %s" % (value, cd),
                    "%%r = %s %s, %%k : %s" % (op, cur, cd)]
        op = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf",
              "maximum": "arith.maximumf"}[p]
        return ["%%r = %s %s, %s : %s" % (op, cur, cur, cd)]
    op = "arith.addf" if p == "reduce_sum" else "arith.maximumf"
    return ["%%r = %s %s, %%out : %s" % (op, cur, cd)]


def linalg_func(name, steps, dt0, fuse):
    """One generic per op; casts get their own generic, or (fuse) open the
    body of the op after them."""
    f = Func(name)
    v = f.arg(SHAPE, dt0)
    shape, dt = list(SHAPE), dt0
    pending = []  # casts (from, to) waiting for the next op's body

    def generic(src, src_dt, out_dt, out_shape, body, reduce_init=None):
        r, e = f.fresh(), f.fresh()
        outt = ttype(out_shape, out_dt)
        f.lines.append("%s = tensor.empty() : %s" % (e, outt))
        if reduce_init is None:
            maps, its = [ID3, ID3], '"parallel", "parallel", "parallel"'
        else:
            z, fl = f.fresh(), f.fresh()
            f.lines.append("%s = arith.constant %s : %s" % (z, reduce_init, out_dt))
            f.lines.append("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s"
                           % (fl, z, out_dt, e, outt, outt))
            e = fl
            maps, its = [ID3, ROW3], '"parallel", "parallel", "reduction"'
        f.lines.append("%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} "
                       "ins(%s : %s) outs(%s : %s) {"
                       % (r, ", ".join(maps), its, src, ttype(shape, src_dt), e, outt))
        f.lines.append("^bb0(%%in0: %s, %%out: %s):" % (src_dt, out_dt))
        f.lines.extend("  " + line for line in body)
        f.lines.append("} -> %s" % outt)
        return r

    def casts(cur, chain):
        lines = []
        for i, (a, b) in enumerate(chain):
            nxt = "%%c%d" % i
            lines += cast_lines(nxt, cur, a, b)
            cur = nxt
        return lines, cur

    for kind, p in steps:
        if kind == "cast":
            if fuse:
                pending.append((dt, p))
            else:
                lines, cur = casts("%in0", [(dt, p)])
                v = generic(v, dt, p, shape, lines + ["linalg.yield %s : %s" % (cur, p)])
            dt = p
            continue
        if kind not in ("un", "bin", "red"):
            continue  # views and matmuls are TOSA only here
        src_dt = pending[0][0] if pending else dt
        lines, cur = casts("%in0", pending)
        lines += body_op(kind, p, cur, dt) + ["linalg.yield %%r : %s" % dt]
        if kind == "red":
            ns = list(shape)
            ns[-1] = 1
            init = "0.0" if p == "reduce_sum" else LOWEST[dt]
            v = generic(v, src_dt, dt, ns, lines, init)
            shape = ns
        else:
            v = generic(v, src_dt, dt, shape, lines)
        pending = []
    if pending:
        src_dt = pending[0][0]
        lines, cur = casts("%in0", pending)
        v = generic(v, src_dt, dt, shape, lines + ["linalg.yield %s : %s" % (cur, dt)])
    return f.text(v, ttype(shape, dt))


def tosa_func(name, steps, dt0, rng):
    f = Func(name)
    v = f.arg(SHAPE, dt0)
    shape, dt = list(SHAPE), dt0
    for step in steps:
        v, shape, dt = tosa_step(f, v, shape, dt, step, rng)
    return f.text(v, ttype(shape, dt))


def random_steps(rng, dt, n, through_f32, views):
    steps, last_cast, rank = [], False, len(SHAPE)
    for _ in range(n):
        if rng.random() < 0.4 and not last_cast:
            to = rng.choice([d for d in DTYPES if d != dt and
                             (not through_f32 or "f32" in (d, dt))])
            steps.append(("cast", to))
            dt, last_cast = to, True
            continue
        last_cast = False
        r = rng.random()
        if views and r < 0.2:
            choices = [("view", "transpose")]
            choices += [("view", "reshape")] if rank < 6 else []
            choices += [("matmul", "")] if rank == 3 else []
            steps.append(rng.choice(choices))
            rank += steps[-1] == ("view", "reshape")
            dt = "f32" if steps[-1][0] == "matmul" else dt
        elif r < 0.55:
            steps.append(("un", rng.choice(UNARY)))
        elif r < 0.85 or any(k == "red" for k, _ in steps):
            steps.append(("bin", rng.choice(BINARY)))
        else:
            steps.append(("red", rng.choice(REDUCE)))
    return steps


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirage-opt", default="mirage-opt")
    ap.add_argument("--mirage-run", default="",
                    help="also compare numbers with mirage-run --lift")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=8, help="modules")
    ap.add_argument("--funcs", type=int, default=8, help="functions per module")
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    failures = 0
    for m in range(a.count):
        rng = random.Random(a.seed * 1000003 + m)
        text = ""
        for i in range(a.funcs):
            style = rng.choice(["tosa", "linalg", "linalg-fused"])
            dt0 = rng.choice(["f32", "f16", "f16", "bf16"])
            steps = random_steps(rng, dt0, rng.randint(2, 5), bool(a.mirage_run),
                                 style == "tosa")
            name = "f%d_%d" % (m, i)
            text += (tosa_func(name, steps, dt0, rng) if style == "tosa"
                     else linalg_func(name, steps, dt0, style == "linalg-fused"))
        path = os.path.join(a.tmp, "casts%d.mlir" % m)
        with open(path, "w") as out:
            out.write(text)
        why = ""
        rc, base, err = run([a.mirage_opt, path])
        if rc != 0:
            why = "the generated module does not parse: " + err.strip()[-300:]
        if not why:
            rc, out, err = run([a.mirage_opt, "--mirage-lift", "--mirage-remarks",
                                "--mirage-verify-ugraph", path])
            if rc != 0 or "internal" in err:
                why = "lift rc=%d: %s" % (rc, err.strip()[-400:])
        if not why:
            rc, rt, err = run([a.mirage_opt, "--mirage-lift", "--mirage-unlift", path])
            if rc != 0 or rt != base:
                why = "lift + unlift does not print the input (rc=%d)" % rc
        if not why and a.mirage_run:
            rc, out, err = run([a.mirage_run, "--lift", path])
            # OVERFLOW: the original program overflows on these inputs
            # (exp(rsqrt(x^4)) in bf16); nothing to compare there.
            if "MISMATCH" in out or "error" in err or (rc != 0 and "OVERFLOW" not in out):
                why = "mirage-run rc=%d: %s" % (rc, (out + err).strip()[-400:])
        if why:
            failures += 1
            print("FAIL %s: %s" % (path, why))
    print("fuzz-casts: %d modules of %d functions, %d failures"
          % (a.count, a.funcs, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
