#!/usr/bin/env python3
"""Writes a BERT-style encoder layer as TOSA in the form ONNX importers emit
(onnx-mlir / torch-onnx lowering to TOSA): everything rank 3, biases and
LayerNorm parameters as rank-1 constants reshaped to rank 3, LayerNorm as
mean / sub / pow 2 / mean / add eps / rsqrt, GELU in its erf form, scaled
dot-product attention with an additive mask, heads split by reshape +
transpose. Our own text, written for the coverage benchmark.

Usage: bert_tosa.py [--seq S] [--hidden D] [--heads H] [--ffn F]"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_tosa import Writer  # noqa: E402


def rank3(w, v, n):
    return w.reshape(v, [n], [1, 1, n])


def layernorm(w, x, gamma, beta, S, D, eps=1e-12):
    inv = w.const(f"{1.0 / D:.9e}", [1, 1, 1], w.dt)
    s, _ = w.reduce("sum", x, [1, S, D], 2)
    mean = w.binary("mul", s, [1, S, 1], inv, [1, 1, 1])
    d = w.binary("sub", x, [1, S, D], mean, [1, S, 1])
    two = w.const("2.000000e+00", [1, 1, 1], w.dt)
    sq = w.binary("pow", d, [1, S, D], two, [1, 1, 1])
    vs, _ = w.reduce("sum", sq, [1, S, D], 2)
    var = w.binary("mul", vs, [1, S, 1], inv, [1, 1, 1])
    e = w.const(f"{eps:.9e}", [1, 1, 1], w.dt)
    r = w.unary("rsqrt", w.binary("add", var, [1, S, 1], e, [1, 1, 1]), [1, S, 1])
    n = w.binary("mul", d, [1, S, D], r, [1, S, 1])
    n = w.binary("mul", n, [1, S, D], rank3(w, gamma, D), [1, 1, D])
    return w.binary("add", n, [1, S, D], rank3(w, beta, D), [1, 1, D])


def dense(w, x, weight, bias, S, din, dout):
    """ONNX MatMul + Add: the (din, dout) initializer reshaped to rank 3."""
    w3 = w.reshape(weight, [din, dout], [1, din, dout])
    y, _ = w.matmul(x, [1, S, din], w3, [1, din, dout])
    return w.binary("add", y, [1, S, dout], rank3(w, bias, dout), [1, 1, dout])


def gelu_erf(w, x, shape):
    r2 = w.const("7.071067690e-01", [1, 1, 1], w.dt)
    e = w.unary("erf", w.binary("mul", x, shape, r2, [1, 1, 1]), shape)
    one = w.const("1.000000e+00", [1, 1, 1], w.dt)
    half = w.const("5.000000e-01", [1, 1, 1], w.dt)
    hx = w.binary("mul", x, shape, half, [1, 1, 1])
    return w.binary("mul", hx, shape, w.binary("add", e, shape, one, [1, 1, 1]), shape)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--ffn", type=int, default=3072)
    a = ap.parse_args()
    S, D, H, F = a.seq, a.hidden, a.heads, a.ffn
    hd = D // H
    w = Writer("f32")
    args = [("%x", [1, S, D]), ("%mask", [1, 1, 1, S])]
    for n, s in [("wq", [D, D]), ("bq", [D]), ("wk", [D, D]), ("bk", [D]), ("wv", [D, D]),
                 ("bv", [D]), ("wo", [D, D]), ("bo", [D]), ("g1", [D]), ("b1", [D]),
                 ("wi", [D, F]), ("bi", [F]), ("wf", [F, D]), ("bf", [D]), ("g2", [D]),
                 ("b2", [D])]:
        args.append(("%" + n, s))
    heads = {}
    for n in ("q", "k", "v"):
        y = dense(w, "%x", "%w" + n, "%b" + n, S, D, D)
        y4 = w.reshape(y, [1, S, D], [1, S, H, hd])
        heads[n], _ = w.transpose(y4, [1, S, H, hd], [0, 2, 1, 3])
    kt, _ = w.transpose(heads["k"], [1, H, S, hd], [0, 1, 3, 2])
    q3 = w.reshape(heads["q"], [1, H, S, hd], [H, S, hd])
    k3 = w.reshape(kt, [1, H, hd, S], [H, hd, S])
    s, _ = w.matmul(q3, [H, S, hd], k3, [H, hd, S])
    s4 = w.reshape(s, [H, S, S], [1, H, S, S])
    sc = w.const(f"{1.0 / math.sqrt(hd):.9e}", [1, 1, 1, 1], w.dt)
    s4 = w.binary("mul", s4, [1, H, S, S], sc, [1, 1, 1, 1])
    s4 = w.binary("add", s4, [1, H, S, S], "%mask", [1, 1, 1, S])
    m, _ = w.reduce("max", s4, [1, H, S, S], 3)
    e = w.unary("exp", w.binary("sub", s4, [1, H, S, S], m, [1, H, S, 1]), [1, H, S, S])
    z, _ = w.reduce("sum", e, [1, H, S, S], 3)
    p = w.binary("mul", e, [1, H, S, S], w.unary("reciprocal", z, [1, H, S, 1]), [1, H, S, 1])
    o, _ = w.matmul(w.reshape(p, [1, H, S, S], [H, S, S]), [H, S, S],
                    w.reshape(heads["v"], [1, H, S, hd], [H, S, hd]), [H, S, hd])
    ot, _ = w.transpose(w.reshape(o, [H, S, hd], [1, H, S, hd]), [1, H, S, hd], [0, 2, 1, 3])
    attn = dense(w, w.reshape(ot, [1, S, H, hd], [1, S, D]), "%wo", "%bo", S, D, D)
    x1 = layernorm(w, w.binary("add", "%x", [1, S, D], attn, [1, S, D]), "%g1", "%b1", S, D)
    h = gelu_erf(w, dense(w, x1, "%wi", "%bi", S, D, F), [1, S, F])
    y = dense(w, h, "%wf", "%bf", S, F, D)
    out = layernorm(w, w.binary("add", x1, [1, S, D], y, [1, S, D]), "%g2", "%b2", S, D)
    w.print_func(f"// BERT-style encoder layer, seq {S}, hidden {D}, {H} heads, ffn {F}, f32\n"
                 "// (bench/models/bert_tosa.py)", "encoder", args, out, [1, S, D])


if __name__ == "__main__":
    main()
