#!/usr/bin/env python3
"""Fuzz-style checks of --mirage-lift (run by test/lift/fuzz.mlir).

Writes random *valid* modules (TOSA and linalg ops on small static shapes,
liftable or not, with broadcasts, views, reductions, matmuls, dead values and
unsupported ops mixed in) and checks for each that
  1. mirage-opt --mirage-lift --mirage-verify-ugraph succeeds (every kernel
     graph imports back and validates),
  2. mirage-opt --mirage-lift --mirage-unlift prints the same module as
     mirage-opt alone (lifting loses nothing);
then truncates some of them at random bytes and checks that mirage-opt
--mirage-lift exits 0, or 1 with a diagnostic, and is never killed by a
signal. A truncated file that also kills the upstream parser alone
(--upstream, e.g. mlir-opt; MLIR 22's linalg.reduce parser crashes on
`dimensions = [1`) is counted apart: that crash happens before any Mirage
code runs. Deterministic for a given --seed; prints one line per failure and
a summary, exits 1 on any failure.
"""
import argparse
import os
import random
import subprocess
import sys


def ttype(shape, dt):
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), dt)


class Func:
    def __init__(self, rng, name):
        self.rng = rng
        self.name = name
        self.dt = rng.choice(["f32", "f32", "f16"])
        self.rank = rng.choice([2, 3])
        self.base = [rng.choice([2, 3, 4]) for _ in range(self.rank)]
        self.args = []  # (name, type string)
        self.body = []
        self.pool = []  # (ssa name, shape)
        self.n = 0
        for _ in range(rng.randint(1, 3)):
            shape = self.bcast_shape()
            self.pool.append((self.arg(shape), shape))

    def bcast_shape(self):
        return [d if self.rng.random() < 0.75 else 1 for d in self.base]

    def arg(self, shape, dt=None):
        name = "%%a%d" % len(self.args)
        self.args.append((name, ttype(shape, dt or self.dt), shape))
        return name

    def fresh(self):
        self.n += 1
        return "%%v%d" % self.n

    def pick(self):
        return self.rng.choice(self.pool)

    def emit(self, line):
        self.body.append("  " + line)

    def const(self, value, shape, dt=None):
        v = self.fresh()
        t = ttype(shape, dt or self.dt)
        self.emit('%s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s'
                  % (v, value, t, t))
        return v

    def shift(self):
        return self.const("0", [1], "i8")

    def add_op(self):
        r = self.rng.random()
        dt = self.dt
        if r < 0.30:  # tosa binary with broadcasting
            (a, sa), (b, sb) = self.pick(), self.pick()
            so = [max(x, y) for x, y in zip(sa, sb)]
            op = self.rng.choice(["add", "sub", "mul", "mul", "maximum"])
            v = self.fresh()
            if op == "mul":
                s = self.shift()
                self.emit("%s = tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s"
                          % (v, a, b, s, ttype(sa, dt), ttype(sb, dt), ttype(so, dt)))
            else:
                self.emit("%s = tosa.%s %s, %s : (%s, %s) -> %s"
                          % (v, op, a, b, ttype(sa, dt), ttype(sb, dt), ttype(so, dt)))
            self.pool.append((v, so))
        elif r < 0.45:  # tosa unary, some unsupported
            a, sa = self.pick()
            op = self.rng.choice(["exp", "rsqrt", "reciprocal", "sigmoid", "tanh",
                                  "abs", "exp", "clamp"])
            v = self.fresh()
            t = ttype(sa, dt)
            if op == "clamp":
                hi = self.rng.choice(["3.0", "65504.0" if dt == "f16" else "3.40282347E+38"])
                self.emit("%s = tosa.clamp %s {min_val = 0.0 : %s, max_val = %s : %s} : (%s) -> %s"
                          % (v, a, dt, hi, dt, t, t))
            else:
                self.emit("%s = tosa.%s %s : (%s) -> %s" % (v, op, a, t, t))
            self.pool.append((v, sa))
        elif r < 0.52:  # x * sigmoid(x)
            a, sa = self.pick()
            t = ttype(sa, dt)
            s, v = self.fresh(), self.fresh()
            sh = self.shift()
            self.emit("%s = tosa.sigmoid %s : (%s) -> %s" % (s, a, t, t))
            self.emit("%s = tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s"
                      % (v, a, s, sh, t, t, t))
            self.pool.append((v, sa))
        elif r < 0.60:  # reduce_sum keeps the dim
            a, sa = self.pick()
            ax = self.rng.randrange(len(sa))
            so = list(sa)
            so[ax] = 1
            v = self.fresh()
            self.emit("%s = tosa.reduce_sum %s {axis = %d : i32} : (%s) -> %s"
                      % (v, a, ax, ttype(sa, dt), ttype(so, dt)))
            self.pool.append((v, so))
        elif r < 0.66:  # pow / mul by a splat constant
            a, sa = self.pick()
            one = [1] * len(sa)
            c = self.const(self.rng.choice(["2.0", "0.5", "3.0", "0.25"]), one)
            v = self.fresh()
            if self.rng.random() < 0.5:
                self.emit("%s = tosa.pow %s, %s : (%s, %s) -> %s"
                          % (v, a, c, ttype(sa, dt), ttype(one, dt), ttype(sa, dt)))
            else:
                s = self.shift()
                self.emit("%s = tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s"
                          % (v, a, c, s, ttype(sa, dt), ttype(one, dt), ttype(sa, dt)))
            self.pool.append((v, sa))
        elif r < 0.72 and self.rank == 3:  # tosa.matmul against a new weight
            a, sa = self.pick()
            w = self.arg([sa[0], sa[2], sa[2]])
            z = self.const("0.0", [1])
            v = self.fresh()
            self.emit("%s = tosa.matmul %s, %s, %s, %s : (%s, %s, %s, %s) -> %s"
                      % (v, a, w, z, z, ttype(sa, dt), ttype([sa[0], sa[2], sa[2]], dt),
                         ttype([1], dt), ttype([1], dt), ttype(sa, dt)))
            self.pool.append((v, sa))
        elif r < 0.78:  # a view sandwich: reshape there and back, or cast
            a, sa = self.pick()
            v1, v2 = self.fresh(), self.fresh()
            if self.rng.random() < 0.5:
                s1 = [1] + list(sa)
                c1, c2 = self.fresh(), self.fresh()
                self.emit("%s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} : () -> !tosa.shape<%d>"
                          % (c1, ", ".join(map(str, s1)), len(s1), len(s1)))
                self.emit("%s = tosa.reshape %s, %s : (%s, !tosa.shape<%d>) -> %s"
                          % (v1, a, c1, ttype(sa, dt), len(s1), ttype(s1, dt)))
                self.emit("%s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} : () -> !tosa.shape<%d>"
                          % (c2, ", ".join(map(str, sa)), len(sa), len(sa)))
                self.emit("%s = tosa.reshape %s, %s : (%s, !tosa.shape<%d>) -> %s"
                          % (v2, v1, c2, ttype(s1, dt), len(sa), ttype(sa, dt)))
            else:
                other = "f16" if dt == "f32" else "f32"
                self.emit("%s = tosa.cast %s : (%s) -> %s" % (v1, a, ttype(sa, dt), ttype(sa, other)))
                self.emit("%s = tosa.cast %s : (%s) -> %s" % (v2, v1, ttype(sa, other), ttype(sa, dt)))
            self.pool.append((v2, sa))
        elif r < 0.84:  # linalg.generic element-wise with broadcast maps
            (a, sa), (b, sb) = self.pick(), self.pick()
            so = [max(x, y) for x, y in zip(sa, sb)]
            n = len(so)
            dims = ", ".join("d%d" % i for i in range(n))

            def amap(s):
                res = ", ".join("0" if s[i] == 1 and so[i] != 1 else "d%d" % i for i in range(n))
                return "affine_map<(%s) -> (%s)>" % (dims, res)
            e, v = self.fresh(), self.fresh()
            body = self.rng.choice(["addf", "mulf", "subf", "divf"])
            tail = self.rng.choice(["", "exp", "sqrt", "negf"])
            self.emit("%s = tensor.empty() : %s" % (e, ttype(so, dt)))
            self.emit("%s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [%s]} "
                      "ins(%s, %s : %s, %s) outs(%s : %s) {" % (
                          v, amap(sa), amap(sb), amap(so), ", ".join(['"parallel"'] * n),
                          a, b, ttype(sa, dt), ttype(sb, dt), e, ttype(so, dt)))
            self.emit("^bb0(%%x: %s, %%y: %s, %%o: %s):" % (dt, dt, dt))
            self.emit("  %%r0 = arith.%s %%x, %%y : %s" % (body, dt))
            if tail == "negf":
                self.emit("  %%r1 = arith.negf %%r0 : %s" % dt)
            elif tail:
                self.emit("  %%r1 = math.%s %%r0 : %s" % (tail, dt))
            self.emit("  linalg.yield %%r%d : %s" % (1 if tail else 0, dt))
            self.emit("} -> %s" % ttype(so, dt))
            self.pool.append((v, so))
        elif r < 0.90:  # linalg.reduce + expand_shape back to the rank
            a, sa = self.pick()
            n = len(sa)
            d = self.rng.randrange(n)
            sr = [x for i, x in enumerate(sa) if i != d]
            so = list(sa)
            so[d] = 1
            z, e, f, v, x = self.fresh(), self.fresh(), self.fresh(), self.fresh(), self.fresh()
            self.emit("%s = arith.constant 0.0 : %s" % (z, dt))
            self.emit("%s = tensor.empty() : %s" % (e, ttype(sr, dt)))
            self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s"
                      % (f, z, dt, e, ttype(sr, dt), ttype(sr, dt)))
            self.emit("%s = linalg.reduce ins(%s : %s) outs(%s : %s) dimensions = [%d]"
                      % (v, a, ttype(sa, dt), f, ttype(sr, dt), d))
            self.emit("  (%%in: %s, %%init: %s) {" % (dt, dt))
            self.emit("    %%s = arith.addf %%in, %%init : %s" % dt)
            self.emit("    linalg.yield %%s : %s" % dt)
            self.emit("  }")
            groups, j = [], 0
            for i in range(n - 1):  # unit dim d joins a neighbouring group
                g = [j]
                j += 1
                if (d == 0 and i == 0) or (d > 0 and i == d - 1):
                    g.append(j)
                    j += 1
                groups.append(g)
            self.emit("%s = tensor.expand_shape %s [%s] output_shape [%s] : %s into %s" % (
                x, v, ", ".join("[%s]" % ", ".join(map(str, g)) for g in groups),
                ", ".join(map(str, so)), ttype(sr, dt), ttype(so, dt)))
            self.pool.append((x, so))
        else:  # an op with no μGraph counterpart, or one that is not pure
            a, sa = self.pick()
            v = self.fresh()
            t = ttype(sa, dt)
            if self.rank == 3 and self.rng.random() < 0.5:
                idx = self.arg([sa[0], sa[1]], "i32")
                self.emit("%s = tosa.gather %s, %s : (%s, %s) -> %s"
                          % (v, a, idx, t, ttype([sa[0], sa[1]], "i32"), t))
            else:
                self.emit("%s = tosa.floor %s : (%s) -> %s" % (v, a, t, t))
            self.pool.append((v, sa))

    def text(self):
        outs = [self.pool[-1]]
        if self.rng.random() < 0.3 and len(self.pool) > 2:
            outs.append(self.pool[self.rng.randrange(len(self.pool) - 1)])
        rets = ", ".join(v for v, _ in outs)
        rtys = ", ".join(ttype(s, self.dt) for _, s in outs)
        args = ", ".join("%s: %s" % (n, t) for n, t, _ in self.args)
        lines = ["func.func @%s(%s) -> (%s) {" % (self.name, args, rtys)]
        lines += self.body
        lines.append("  return %s : %s" % (rets, rtys))
        lines.append("}")
        return "\n".join(lines) + "\n"


def module(rng, idx):
    out = []
    for f in range(rng.randint(1, 2)):
        fn = Func(rng, "fuzz%d_%d" % (idx, f))
        for _ in range(rng.randint(3, 14)):
            fn.add_op()
        out.append(fn.text())
    return "\n".join(out)


def run(cmd, path):
    p = subprocess.run(cmd + [path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace"), \
        p.stderr.decode("utf-8", "replace")


def pipeline(a, opt, path):
    """Failures of the whole pipeline on one module (0 or 1)."""
    # A bound on work, not time (one thread: the same search at any load).
    flags = "cache=false time-budget-s=0 max-states=200000 threads=1"
    rc, _, err = run(opt + ["--mirage-superopt=" + flags], path)
    if rc != 0:
        print("FAIL %s: superopt (lowered) exit %d:\n%s" % (path, rc, err))
        return 1
    searched = path + ".ug.mlir"
    rc, _, err = run(opt + ["--mirage-superopt=lower=false " + flags, "-o",
                            searched], path)
    if rc != 0:
        print("FAIL %s: superopt (lower=false) exit %d:\n%s" % (path, rc, err))
        return 1
    with open(searched) as f:
        if "ug.reference" not in f.read():
            return 0  # nothing lifted: nothing to compare
    for extra in ([], ["--lower"]):
        rc, out, err = run([a.mirage_run, "--range=0.25"] + extra, searched)
        if rc != 0:
            print("FAIL %s: mirage-run %s exit %d:\n%s%s"
                  % (searched, " ".join(extra), rc, out, err))
            return 1
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirage-opt", default="mirage-opt")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=16)
    ap.add_argument("--truncations", type=int, default=24)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--upstream", default="",
                    help="plain upstream parser (mlir-opt) to tell its own "
                    "crashes apart")
    ap.add_argument("--mirage-run", default="",
                    help="also run the whole pipeline on each module: "
                    "superopt (search, lowering, PTX when possible) must "
                    "succeed, and mirage-run must find the searched "
                    "μGraphs equal to the original ops and their lowering "
                    "equal to the interpreter")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    rng = random.Random(a.seed)
    opt = [a.mirage_opt]
    failures = upstream_crashes = 0
    texts = []
    for i in range(a.count):
        text = module(rng, i)
        texts.append(text)
        path = os.path.join(a.tmp, "m%d.mlir" % i)
        with open(path, "w") as f:
            f.write(text)
        rc, plain, err = run(opt, path)
        if rc != 0:
            print("FAIL %s: generated module does not parse:\n%s%s" % (path, err, text))
            failures += 1
            continue
        rc, _, err = run(opt + ["--mirage-lift", "--mirage-verify-ugraph"], path)
        if rc != 0:
            print("FAIL %s: lift + verify-ugraph exit %d:\n%s" % (path, rc, err))
            failures += 1
        rc, back, err = run(opt + ["--mirage-lift", "--mirage-unlift"], path)
        if rc != 0 or back != plain:
            print("FAIL %s: lift + unlift does not reproduce the module (exit %d)\n%s"
                  % (path, rc, err))
            failures += 1
        if a.mirage_run:
            failures += pipeline(a, opt, path)
    for k in range(a.truncations):
        text = texts[k % len(texts)]
        cut = rng.randrange(1, len(text))
        path = os.path.join(a.tmp, "t%d.mlir" % k)
        with open(path, "w") as f:
            f.write(text[:cut])
        rc, _, err = run(opt + ["--mirage-lift", "--mirage-remarks"], path)
        if (rc < 0 or rc >= 128) and a.upstream:
            up, _, _ = run([a.upstream], path)
            if up < 0 or up >= 128:
                upstream_crashes += 1
                continue
        if rc < 0 or rc >= 128 or rc not in (0, 1) or (rc == 1 and "error" not in err):
            print("FAIL %s: truncated at byte %d: exit %d\n%s" % (path, cut, rc, err))
            failures += 1
    print("fuzz-lift: %d modules, %d truncations, %d failures (%d truncations "
          "crash the upstream parser itself)"
          % (a.count, a.truncations, failures, upstream_crashes))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
