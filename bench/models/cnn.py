#!/usr/bin/env python3
"""Writes two convolution nets for the coverage benchmark, in the forms their
frontends emit (our own text):
  --form torch-linalg: a ResNet-style net as torch-mlir's linalg path writes
    it: NCHW linalg.conv_2d_nchw_fchw on tensor.pad'ded inputs, inference
    batch norm as per-channel linalg.generic (x - mean) * scale + shift,
    ReLU as arith.maximumf, linalg.pooling_nchw_max (a -inf fill), basic
    and downsampling blocks with residual adds, a global average pool
    (a reduction generic and a divide) and the classifier matmul.
  --form onnx-tosa: a MobileNetV2-style net as ONNX importers write TOSA:
    the NCHW input transposed to NHWC, tosa.conv2d / tosa.depthwise_conv2d
    with biases, ReLU6 as tosa.clamp, an inverted residual block, a global
    tosa.avg_pool2d and the classifier as reshape + tosa.matmul.
Usage: cnn.py --form torch-linalg|onnx-tosa [--size S] [--width C]"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jax_linalg import W as Text  # noqa: E402  (fresh SSA names, lines)


def t(shape, dt="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{dt}>"


# ---------------------------------------------------------------- linalg

def l_empty(w, shape):
    e = w.v()
    w.emit(f"{e} = tensor.empty() : {t(shape)}")
    return e


def l_fill(w, shape, value):
    e, f = l_empty(w, shape), w.v()
    w.emit(f"{f} = linalg.fill ins({value} : f32) outs({e} : {t(shape)}) -> {t(shape)}")
    return f


def l_conv(w, x, xs, wt, cout, k, stride, pad):
    n, c, h, wd = xs
    if pad:
        p = w.v()
        ps = [n, c, h + 2 * pad, wd + 2 * pad]
        w.emit(f"{p} = tensor.pad {x} low[0, 0, {pad}, {pad}] high[0, 0, {pad}, {pad}] {{")
        w.emit("^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
        w.emit("  tensor.yield %zero : f32")
        w.emit(f"}} : {t(xs)} to {t(ps)}")
        x, xs = p, ps
    ho = (xs[2] - k) // stride + 1
    wo = (xs[3] - k) // stride + 1
    out = [n, cout, ho, wo]
    z, y = l_fill(w, out, "%zero"), w.v()
    w.emit(f"{y} = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, "
           f"strides = dense<{stride}> : tensor<2xi64>}} ins({x}, {wt} : {t(xs)}, "
           f"{t([cout, c, k, k])}) outs({z} : {t(out)}) -> {t(out)}")
    return y, out


CH = "affine_map<(n, c, h, w) -> (c)>"
ID4 = "affine_map<(n, c, h, w) -> (n, c, h, w)>"
PAR4 = '["parallel", "parallel", "parallel", "parallel"]'


def l_bn(w, x, s, mean, scale, shift, relu):
    e, y = l_empty(w, s), w.v()
    w.emit(f"{y} = linalg.generic {{indexing_maps = [{ID4}, {CH}, {CH}, {CH}, {ID4}], "
           f"iterator_types = {PAR4}}} ins({x}, {mean}, {scale}, {shift} : {t(s)}, "
           f"{t([s[1]])}, {t([s[1]])}, {t([s[1]])}) outs({e} : {t(s)}) {{")
    w.emit("^bb0(%a: f32, %m: f32, %k: f32, %b: f32, %o: f32):")
    w.emit("  %d = arith.subf %a, %m : f32")
    w.emit("  %p = arith.mulf %d, %k : f32")
    if relu:
        w.emit("  %q = arith.addf %p, %b : f32")
        w.emit("  %r = arith.maximumf %q, %zero : f32")
        w.emit("  linalg.yield %r : f32")
    else:
        w.emit("  %q = arith.addf %p, %b : f32")
        w.emit("  linalg.yield %q : f32")
    w.emit(f"}} -> {t(s)}")
    return y


def l_add_relu(w, a, b, s):
    e, y = l_empty(w, s), w.v()
    w.emit(f"{y} = linalg.generic {{indexing_maps = [{ID4}, {ID4}, {ID4}], "
           f"iterator_types = {PAR4}}} ins({a}, {b} : {t(s)}, {t(s)}) outs({e} : {t(s)}) {{")
    w.emit("^bb0(%a: f32, %b: f32, %o: f32):")
    w.emit("  %s = arith.addf %a, %b : f32")
    w.emit("  %r = arith.maximumf %s, %zero : f32")
    w.emit("  linalg.yield %r : f32")
    w.emit(f"}} -> {t(s)}")
    return y


def torch_linalg(size, width):
    w, args = Text(), []

    def param(name, shape):
        args.append(f"%{name}: {t(shape)}")
        return f"%{name}"

    def conv_bn(x, s, name, cout, k, stride, pad, relu):
        wt = param(f"{name}_w", [cout, s[1], k, k])
        y, o = l_conv(w, x, s, wt, cout, k, stride, pad)
        bn = [param(f"{name}_{p}", [cout]) for p in ("mean", "scale", "shift")]
        return l_bn(w, y, o, *bn, relu), o

    x = param("x", [1, 3, size, size])
    y, s = conv_bn(x, [1, 3, size, size], "stem", width, 3, 1, 1, True)
    # max pool 2x2 / 2, a -inf fill as torch-mlir writes it
    ps = [1, width, s[2] // 2, s[3] // 2]
    win, f, p = w.v(), l_fill(w, ps, "%ninf"), w.v()
    w.emit(f"{win} = tensor.empty() : tensor<2x2xf32>")
    w.emit(f"{p} = linalg.pooling_nchw_max {{dilations = dense<1> : vector<2xi64>, "
           f"strides = dense<2> : vector<2xi64>}} ins({y}, {win} : {t(s)}, tensor<2x2xf32>) "
           f"outs({f} : {t(ps)}) -> {t(ps)}")
    y, s = p, ps
    # basic block
    a, sa = conv_bn(y, s, "b1c1", width, 3, 1, 1, True)
    b, sb = conv_bn(a, sa, "b1c2", width, 3, 1, 1, False)
    y = l_add_relu(w, b, y, sb)
    # downsampling block with a 1x1 shortcut
    a, sa = conv_bn(y, s, "b2c1", 2 * width, 3, 2, 1, True)
    b, sb = conv_bn(a, sa, "b2c2", 2 * width, 3, 1, 1, False)
    sc, _ = conv_bn(y, s, "b2sc", 2 * width, 1, 2, 0, False)
    y, s = l_add_relu(w, b, sc, sb), sb
    # global average pool and the classifier
    c = s[1]
    z, g = l_fill(w, [1, c], "%zero"), w.v()
    w.emit(f"{g} = linalg.generic {{indexing_maps = [{ID4}, affine_map<(n, c, h, w) -> (n, c)>], "
           f'iterator_types = ["parallel", "parallel", "reduction", "reduction"]}} '
           f"ins({y} : {t(s)}) outs({z} : {t([1, c])}) {{")
    w.emit("^bb0(%a: f32, %o: f32):")
    w.emit("  %s = arith.addf %a, %o : f32")
    w.emit("  linalg.yield %s : f32")
    w.emit(f"}} -> {t([1, c])}")
    e, m = l_empty(w, [1, c]), w.v()
    w.emit(f"{m} = linalg.generic {{indexing_maps = [affine_map<(n, c) -> (n, c)>, "
           f'affine_map<(n, c) -> (n, c)>], iterator_types = ["parallel", "parallel"]}} '
           f"ins({g} : {t([1, c])}) outs({e} : {t([1, c])}) {{")
    w.emit("^bb0(%a: f32, %o: f32):")
    w.emit(f"  %d = arith.divf %a, %area : f32")
    w.emit("  linalg.yield %d : f32")
    w.emit(f"}} -> {t([1, c])}")
    fc = param("fc_w", [c, 10])
    z, o = l_fill(w, [1, 10], "%zero"), w.v()
    w.emit(f"{o} = linalg.matmul ins({m}, {fc} : {t([1, c])}, {t([c, 10])}) "
           f"outs({z} : {t([1, 10])}) -> {t([1, 10])}")
    head = [f"func.func @resnet({', '.join(args)}) -> {t([1, 10])} {{",
            "  %zero = arith.constant 0.000000e+00 : f32",
            "  %ninf = arith.constant 0xFF800000 : f32",
            f"  %area = arith.constant {float(s[2] * s[3]):.6e} : f32"]
    return "\n".join(head + w.lines + [f"  return {o} : {t([1, 10])}", "}"]) + "\n"


# ------------------------------------------------------------------ TOSA

def onnx_tosa(size, width):
    w, args = Text(), []

    def param(name, shape):
        args.append(f"%{name}: {t(shape)}")
        return f"%{name}"

    def conv(x, s, name, cout, k, stride, depthwise=False, relu6=True):
        # ONNX's SAME_UPPER: a stride-2 window pads only after (TOSA wants
        # the window to divide the padded extent exactly)
        lo = 0 if stride > 1 else k // 2
        hi = (k - 1) - lo if stride == 1 else 1 if k > 1 else 0
        ho = (s[1] + lo + hi - k) // stride + 1
        out = [1, ho, ho, cout]
        b = param(f"{name}_b", [cout])
        y = w.v()
        attrs = (f"{{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: {lo}, {hi}, "
                 f"{lo}, {hi}>, stride = array<i64: {stride}, {stride}>}}")
        if depthwise:
            wt = param(f"{name}_w", [k, k, s[3], 1])
            w.emit(f"{y} = tosa.depthwise_conv2d {x}, {wt}, {b}, %zp, %zp {attrs} : ({t(s)}, "
                   f"{t([k, k, s[3], 1])}, {t([cout])}, tensor<1xf32>, tensor<1xf32>) -> {t(out)}")
        else:
            wt = param(f"{name}_w", [cout, k, k, s[3]])
            w.emit(f"{y} = tosa.conv2d {x}, {wt}, {b}, %zp, %zp {attrs} : ({t(s)}, "
                   f"{t([cout, k, k, s[3]])}, {t([cout])}, tensor<1xf32>, tensor<1xf32>) -> {t(out)}")
        if relu6:
            r = w.v()
            w.emit(f"{r} = tosa.clamp {y} {{max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32}} "
                   f": ({t(out)}) -> {t(out)}")
            y = r
        return y, out

    x = param("x", [1, 3, size, size])
    xt = w.v()
    s = [1, size, size, 3]
    w.emit(f"{xt} = tosa.transpose {x} {{perms = array<i32: 0, 2, 3, 1>}} : ({t([1, 3, size, size])}) -> {t(s)}")
    y, s = conv(xt, s, "stem", width, 3, 2)
    y, s = conv(y, s, "dw1", width, 3, 1, depthwise=True)
    y, s = conv(y, s, "pw1", width, 1, 1, relu6=False)
    # inverted residual: expand 1x1, depthwise 3x3, project 1x1, add
    e, se = conv(y, s, "ex2", 4 * width, 1, 1)
    d, sd = conv(e, se, "dw2", 4 * width, 3, 1, depthwise=True)
    p, sp = conv(d, sd, "pj2", width, 1, 1, relu6=False)
    r = w.v()
    w.emit(f"{r} = tosa.add {y}, {p} : ({t(s)}, {t(sp)}) -> {t(s)}")
    y = r
    # strided depthwise block
    y, s = conv(y, s, "dw3", width, 3, 2, depthwise=True)
    y, s = conv(y, s, "pw3", 2 * width, 1, 1)
    # global average pool, classifier
    g = w.v()
    ps = [1, 1, 1, s[3]]
    w.emit(f"{g} = tosa.avg_pool2d {y}, %zp, %zp {{acc_type = f32, kernel = array<i64: {s[1]}, {s[2]}>, "
           f"pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : ({t(s)}, tensor<1xf32>, "
           f"tensor<1xf32>) -> {t(ps)}")
    sh, g3 = w.v(), w.v()
    w.emit(f"{sh} = tosa.const_shape {{values = dense<[1, 1, {s[3]}]> : tensor<3xindex>}} : () -> !tosa.shape<3>")
    w.emit(f"{g3} = tosa.reshape {g}, {sh} : ({t(ps)}, !tosa.shape<3>) -> {t([1, 1, s[3]])}")
    fc = param("fc_w", [1, s[3], 10])
    o = w.v()
    w.emit(f"{o} = tosa.matmul {g3}, {fc}, %zp, %zp : ({t([1, 1, s[3]])}, {t([1, s[3], 10])}, "
           f"tensor<1xf32>, tensor<1xf32>) -> {t([1, 1, 10])}")
    head = [f"func.func @mobilenet({', '.join(args)}) -> {t([1, 1, 10])} {{",
            '  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>']
    return "\n".join(head + w.lines + [f"  return {o} : {t([1, 1, 10])}", "}"]) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--form", required=True, choices=["torch-linalg", "onnx-tosa"])
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--width", type=int, default=16)
    a = ap.parse_args()
    write = torch_linalg if a.form == "torch-linalg" else onnx_tosa
    print(write(a.size, a.width), end="")


if __name__ == "__main__":
    main()
