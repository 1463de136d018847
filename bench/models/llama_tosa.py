#!/usr/bin/env python3
"""Writes a Llama-style decoder (RMSNorm, rotary attention with a causal
mask and a stable softmax, gated MLP, residuals) as TOSA in the form
torch-mlir's TOSA backend emits: weights are function arguments in
nn.Linear's (out, in) layout, transposed and wrapped in rank-3 reshapes
around tosa.matmul, rank-1 norm weights reshaped to rank 3, heads split and
merged by reshape + transpose, rotate-half by slice + negate + concat, f32
statistics behind casts. Our own text, written for these benchmarks.

Usage: llama_tosa.py [--layers N] [--seq S] [--hidden D] [--heads H]
                     [--ffn F] [--dtype f16|bf16]   (defaults: 7B shapes,
                     32 layers, seq 16, f16)"""
import argparse
import math


class Writer:
    def __init__(self, dt):
        self.dt, self.lines, self.n = dt, [], 0

    def v(self):
        self.n += 1
        return f"%{self.n}"

    def emit(self, text):
        self.lines.append("  " + text)

    def print_func(self, header, name, args, result, shape):
        """Prints the function: `args` are (name, shape) pairs."""
        sig = ", ".join(f"{n}: {self.t(s)}" for n, s in args)
        print(header)
        print(f"func.func @{name}({sig}) -> {self.t(shape)} {{")
        print("\n".join(self.lines))
        print(f"  return {result} : {self.t(shape)}")
        print("}")

    def t(self, shape, dt=None):
        return "tensor<" + "x".join(str(d) for d in shape) + "x" + (dt or self.dt) + ">"

    def const(self, value, shape, dt):
        r = self.v()
        self.emit(f'{r} = "tosa.const"() <{{values = dense<{value}> : {self.t(shape, dt)}}}> : () -> {self.t(shape, dt)}')
        return r

    def shape(self, dims):
        r = self.v()
        self.emit(f"{r} = tosa.const_shape {{values = dense<[{', '.join(map(str, dims))}]> : tensor<{len(dims)}xindex>}} : () -> !tosa.shape<{len(dims)}>")
        return r

    def unary(self, op, x, shape, dt=None, rdt=None):
        r = self.v()
        self.emit(f"{r} = tosa.{op} {x} : ({self.t(shape, dt)}) -> {self.t(shape, rdt or dt)}")
        return r

    def binary(self, op, a, sa, b, sb, dt=None):
        out = [max(x, y) for x, y in zip(sa, sb)]
        r = self.v()
        if op == "mul":
            shift = self.const(0, [1], "i8")
            self.emit(f"{r} = tosa.mul {a}, {b}, {shift} : ({self.t(sa, dt)}, {self.t(sb, dt)}, tensor<1xi8>) -> {self.t(out, dt)}")
        else:
            self.emit(f"{r} = tosa.{op} {a}, {b} : ({self.t(sa, dt)}, {self.t(sb, dt)}) -> {self.t(out, dt)}")
        return r

    def reshape(self, x, src, dst, dt=None):
        s = self.shape(dst)
        r = self.v()
        self.emit(f"{r} = tosa.reshape {x}, {s} : ({self.t(src, dt)}, !tosa.shape<{len(dst)}>) -> {self.t(dst, dt)}")
        return r

    def transpose(self, x, src, perm, dt=None):
        r = self.v()
        dst = [src[p] for p in perm]
        self.emit(f"{r} = tosa.transpose {x} {{perms = array<i32: {', '.join(map(str, perm))}>}} : ({self.t(src, dt)}) -> {self.t(dst, dt)}")
        return r, dst

    def reduce(self, op, x, shape, axis, dt=None):
        out = list(shape)
        out[axis] = 1
        r = self.v()
        self.emit(f"{r} = tosa.reduce_{op} {x} {{axis = {axis} : i32}} : ({self.t(shape, dt)}) -> {self.t(out, dt)}")
        return r, out

    def matmul(self, a, sa, b, sb):
        """Batched (B,M,K) x (B,K,N) with an f32 result cast back."""
        zp = self.const("0.000000e+00", [1], self.dt)
        r = self.v()
        out = [sa[0], sa[1], sb[2]]
        self.emit(f"{r} = tosa.matmul {a}, {b}, {zp}, {zp} : ({self.t(sa)}, {self.t(sb)}, {self.t([1])}, {self.t([1])}) -> {self.t(out, 'f32')}")
        return self.unary("cast", r, out, "f32", self.dt), out

    def slice(self, x, src, start, size):
        s0, s1 = self.shape(start), self.shape(size)
        r = self.v()
        self.emit(f"{r} = tosa.slice {x}, {s0}, {s1} : ({self.t(src)}, !tosa.shape<{len(src)}>, !tosa.shape<{len(src)}>) -> {self.t(size)}")
        return r


def rmsnorm(w, x, weight, S, D, eps=1e-5):
    x32 = w.unary("cast", x, [1, S, D], w.dt, "f32")
    two = w.const("2.000000e+00", [1, 1, 1], "f32")
    sq = w.binary("pow", x32, [1, S, D], two, [1, 1, 1], "f32")
    ss, _ = w.reduce("sum", sq, [1, S, D], 2, "f32")
    inv = w.const(f"{1.0 / D:.9e}", [1, 1, 1], "f32")
    mean = w.binary("mul", ss, [1, S, 1], inv, [1, 1, 1], "f32")
    e = w.const(f"{eps:.9e}", [1, 1, 1], "f32")
    var = w.binary("add", mean, [1, S, 1], e, [1, 1, 1], "f32")
    r = w.unary("rsqrt", var, [1, S, 1], "f32")
    n = w.binary("mul", x32, [1, S, D], r, [1, S, 1], "f32")
    n16 = w.unary("cast", n, [1, S, D], "f32", w.dt)
    w3 = w.reshape(weight, [D], [1, 1, D])
    return w.binary("mul", w3, [1, 1, D], n16, [1, S, D])


def linear(w, x, weight, S, din, dout):
    """x (1,S,din) times nn.Linear weight (dout, din), as torch-mlir writes it."""
    wt, _ = w.transpose(weight, [dout, din], [1, 0])
    x2 = w.reshape(x, [1, S, din], [S, din])
    x3 = w.reshape(x2, [S, din], [1, S, din])
    w3 = w.reshape(wt, [din, dout], [1, din, dout])
    y, _ = w.matmul(x3, [1, S, din], w3, [1, din, dout])
    return y


def rope(w, x, cos, sin, H, S, hd):
    shape = [1, H, S, hd]
    half = hd // 2
    x1 = w.slice(x, shape, [0, 0, 0, 0], [1, H, S, half])
    x2 = w.slice(x, shape, [0, 0, 0, half], [1, H, S, half])
    zp = w.const("0.000000e+00", [1], w.dt)
    n2 = w.v()
    w.emit(f"{n2} = tosa.negate {x2}, {zp}, {zp} : ({w.t([1, H, S, half])}, {w.t([1])}, {w.t([1])}) -> {w.t([1, H, S, half])}")
    rot = w.v()
    w.emit(f"{rot} = tosa.concat {n2}, {x1} {{axis = 3 : i32}} : ({w.t([1, H, S, half])}, {w.t([1, H, S, half])}) -> {w.t(shape)}")
    a = w.binary("mul", x, shape, cos, [1, 1, S, hd])
    b = w.binary("mul", rot, shape, sin, [1, 1, S, hd])
    return w.binary("add", a, shape, b, shape)


def layer(w, x, p, cos, sin, mask, S, D, H, F):
    hd = D // H
    h = rmsnorm(w, x, p["ln1"], S, D)
    heads = {}
    for name in ("q", "k", "v"):
        y = linear(w, h, p[name], S, D, D)
        y4 = w.reshape(y, [1, S, D], [1, S, H, hd])
        heads[name], _ = w.transpose(y4, [1, S, H, hd], [0, 2, 1, 3])
    q = rope(w, heads["q"], cos, sin, H, S, hd)
    k = rope(w, heads["k"], cos, sin, H, S, hd)
    kt, _ = w.transpose(k, [1, H, S, hd], [0, 1, 3, 2])
    q3 = w.reshape(q, [1, H, S, hd], [H, S, hd])
    k3 = w.reshape(kt, [1, H, hd, S], [H, hd, S])
    s, _ = w.matmul(q3, [H, S, hd], k3, [H, hd, S])
    s4 = w.reshape(s, [H, S, S], [1, H, S, S])
    scale = w.const(f"{1.0 / math.sqrt(hd):.9e}", [1, 1, 1, 1], w.dt)
    s4 = w.binary("mul", s4, [1, H, S, S], scale, [1, 1, 1, 1])
    s4 = w.binary("add", s4, [1, H, S, S], mask, [1, 1, S, S])
    m, _ = w.reduce("max", s4, [1, H, S, S], 3)
    d = w.binary("sub", s4, [1, H, S, S], m, [1, H, S, 1])
    e = w.unary("exp", d, [1, H, S, S])
    z, _ = w.reduce("sum", e, [1, H, S, S], 3)
    rz = w.unary("reciprocal", z, [1, H, S, 1])
    pr = w.binary("mul", e, [1, H, S, S], rz, [1, H, S, 1])
    p3 = w.reshape(pr, [1, H, S, S], [H, S, S])
    v3 = w.reshape(heads["v"], [1, H, S, hd], [H, S, hd])
    o, _ = w.matmul(p3, [H, S, S], v3, [H, S, hd])
    o4 = w.reshape(o, [H, S, hd], [1, H, S, hd])
    ot, _ = w.transpose(o4, [1, H, S, hd], [0, 2, 1, 3])
    om = w.reshape(ot, [1, S, H, hd], [1, S, D])
    attn = linear(w, om, p["o"], S, D, D)
    x = w.binary("add", x, [1, S, D], attn, [1, S, D])
    h = rmsnorm(w, x, p["ln2"], S, D)
    g = linear(w, h, p["gate"], S, D, F)
    u = linear(w, h, p["up"], S, D, F)
    sg = w.unary("sigmoid", g, [1, S, F])
    act = w.binary("mul", g, [1, S, F], sg, [1, S, F])
    m = w.binary("mul", act, [1, S, F], u, [1, S, F])
    down = linear(w, m, p["down"], S, F, D)
    return w.binary("add", x, [1, S, D], down, [1, S, D])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--ffn", type=int, default=11008)
    ap.add_argument("--dtype", default="f16", choices=["f16", "bf16"])
    a = ap.parse_args()
    S, D, H, F = a.seq, a.hidden, a.heads, a.ffn
    w = Writer(a.dtype)
    args = [("%x", [1, S, D]), ("%cos", [1, 1, S, D // H]), ("%sin", [1, 1, S, D // H]),
            ("%mask", [1, 1, S, S])]
    shapes = {"ln1": [D], "q": [D, D], "k": [D, D], "v": [D, D], "o": [D, D], "ln2": [D],
              "gate": [F, D], "up": [F, D], "down": [D, F]}
    params = []
    for i in range(a.layers):
        p = {}
        for name, shape in shapes.items():
            p[name] = f"%l{i}_{name}"
            args.append((p[name], shape))
        params.append(p)
    x = "%x"
    for p in params:
        x = layer(w, x, p, "%cos", "%sin", "%mask", S, D, H, F)
    w.print_func(f"// Llama-style decoder, {a.layers} layers, seq {S}, hidden {D}, {H} heads, "
                 f"ffn {F}, {a.dtype}\n// (bench/models/llama_tosa.py)",
                 "forward", args, x, [1, S, D])


if __name__ == "__main__":
    main()
