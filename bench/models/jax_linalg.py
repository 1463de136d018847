#!/usr/bin/env python3
"""Writes a pre-norm transformer MLP block (RMSNorm, GELU-tanh MLP with
biases, residual) as linalg on tensors in the form JAX programs take after
StableHLO -> linalg: every element-wise op its own linalg.generic, rank-1
parameters broadcast by indexing maps (broadcast_in_dim), dot_general as a
linalg.generic contraction over (batch, seq, hidden) with the weight in its
stored (in, out) layout, reductions as linalg.reduce followed by
tensor.expand_shape, constants as arith.constant splats captured by bodies.
Our own text, written for the coverage benchmark.

Usage: jax_linalg.py [--batch B] [--seq S] [--hidden D] [--ffn F]"""
import argparse

MAP3 = "affine_map<(d0, d1, d2) -> (d0, d1, d2)>"
ROW = "affine_map<(d0, d1, d2) -> (d2)>"
STAT = "affine_map<(d0, d1, d2) -> (d0, d1, 0)>"


class W:
    def __init__(self):
        self.lines, self.n = [], 0

    def v(self):
        self.n += 1
        return f"%v{self.n}"

    def emit(self, s):
        self.lines.append("  " + s)


def t(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def generic(w, ins, maps, shape, body):
    """An element-wise linalg.generic; `body(args)` returns (lines, result)."""
    e, r = w.v(), w.v()
    w.emit(f"{e} = tensor.empty() : {t(shape)}")
    args = [f"%a{i}" for i in range(len(ins))]
    lines, res = body(args)
    in_list = ", ".join(v for v, _ in ins)
    in_types = ", ".join(t(s) for _, s in ins)
    all_maps = ", ".join(maps + [MAP3])
    w.emit(f"{r} = linalg.generic {{indexing_maps = [{all_maps}], iterator_types = "
           f"[\"parallel\", \"parallel\", \"parallel\"]}} ins({in_list} : {in_types}) "
           f"outs({e} : {t(shape)}) {{")
    w.emit("^bb0(" + ", ".join(f"{a}: f32" for a in args) + ", %o: f32):")
    for l in lines:
        w.emit("  " + l)
    w.emit(f"  linalg.yield {res} : f32")
    w.emit(f"}} -> {t(shape)}")
    return r


def binop(w, op, a, sa, b, sb, shape, maps):
    return generic(w, [(a, sa), (b, sb)], maps, shape,
                   lambda x: ([f"%r = arith.{op} {x[0]}, {x[1]} : f32"], "%r"))


def rmsnorm(w, x, g, B, S, D):
    shape = [B, S, D]
    sq = generic(w, [(x, shape)], [MAP3], shape,
                 lambda a: ([f"%r = arith.mulf {a[0]}, {a[0]} : f32"], "%r"))
    z, f, red = w.v(), w.v(), w.v()
    w.emit(f"{z} = tensor.empty() : {t([B, S])}")
    w.emit(f"{f} = linalg.fill ins(%zero : f32) outs({z} : {t([B, S])}) -> {t([B, S])}")
    w.emit(f"{red} = linalg.reduce ins({sq} : {t(shape)}) outs({f} : {t([B, S])}) dimensions = [2]")
    w.emit("  (%in: f32, %acc: f32) {")
    w.emit("    %s = arith.addf %in, %acc : f32")
    w.emit("    linalg.yield %s : f32")
    w.emit("  }")
    ex = w.v()
    w.emit(f"{ex} = tensor.expand_shape {red} [[0], [1, 2]] output_shape [{B}, {S}, 1] : {t([B, S])} into {t([B, S, 1])}")
    rs = generic(w, [(ex, [B, S, 1])], [MAP3], [B, S, 1],
                 lambda a: ([f"%m = arith.mulf {a[0]}, %invd : f32",
                             "%e = arith.addf %m, %eps : f32",
                             "%r = math.rsqrt %e : f32"], "%r"))
    n = binop(w, "mulf", x, shape, rs, [B, S, 1], shape, [MAP3, STAT])
    return binop(w, "mulf", n, shape, g, [D], shape, [MAP3, ROW])


def dense(w, x, wt, bias, B, S, din, dout):
    """dot_general contracting hidden, then the bias broadcast."""
    shape = [B, S, dout]
    e, f, r = w.v(), w.v(), w.v()
    w.emit(f"{e} = tensor.empty() : {t(shape)}")
    w.emit(f"{f} = linalg.fill ins(%zero : f32) outs({e} : {t(shape)}) -> {t(shape)}")
    w.emit(f"{r} = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, "
           f"affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], "
           f"iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"reduction\"]}} "
           f"ins({x}, {wt} : {t([B, S, din])}, {t([din, dout])}) outs({f} : {t(shape)}) {{")
    w.emit("^bb0(%a: f32, %b: f32, %acc: f32):")
    w.emit("  %p = arith.mulf %a, %b : f32")
    w.emit("  %s = arith.addf %acc, %p : f32")
    w.emit("  linalg.yield %s : f32")
    w.emit(f"}} -> {t(shape)}")
    return binop(w, "addf", r, shape, bias, [dout], shape, [MAP3, ROW])


def gelu_tanh(w, x, shape):
    return generic(w, [(x, shape)], [MAP3], shape, lambda a: ([
        f"%x2 = arith.mulf {a[0]}, {a[0]} : f32",
        f"%x3 = arith.mulf %x2, {a[0]} : f32",
        "%k = arith.mulf %x3, %c044715 : f32",
        f"%in = arith.addf {a[0]}, %k : f32",
        "%s = arith.mulf %in, %sqrt2pi : f32",
        "%th = math.tanh %s : f32",
        "%t1 = arith.addf %th, %one : f32",
        f"%hx = arith.mulf {a[0]}, %half : f32",
        "%r = arith.mulf %hx, %t1 : f32"], "%r"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--ffn", type=int, default=2048)
    a = ap.parse_args()
    B, S, D, F = a.batch, a.seq, a.hidden, a.ffn
    w = W()
    for name, val in [("zero", 0.0), ("one", 1.0), ("half", 0.5), ("eps", 1e-6),
                      ("invd", 1.0 / D), ("c044715", 0.044715), ("sqrt2pi", 0.7978845608)]:
        w.emit(f"%{name} = arith.constant {val:.9e} : f32")
    h = rmsnorm(w, "%x", "%g", B, S, D)
    u = gelu_tanh(w, dense(w, h, "%w1", "%b1", B, S, D, F), [B, S, F])
    y = dense(w, u, "%w2", "%b2", B, S, F, D)
    out = binop(w, "addf", "%x", [B, S, D], y, [B, S, D], [B, S, D], [MAP3, MAP3])
    print(f"// Pre-norm MLP block, batch {B}, seq {S}, hidden {D}, ffn {F}, f32, JAX-style linalg")
    print("// (bench/models/jax_linalg.py)")
    print(f"func.func @mlp_block(%x: {t([B, S, D])}, %g: {t([D])}, %w1: {t([D, F])}, "
          f"%b1: {t([F])}, %w2: {t([F, D])}, %b2: {t([D])}) -> {t([B, S, D])} {{")
    print("\n".join(w.lines))
    print(f"  return {out} : {t([B, S, D])}")
    print("}")


if __name__ == "__main__":
    main()
