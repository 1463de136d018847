"""Prints a causal, scaled stable softmax over attention scores in TOSA, as
torch-mlir writes HF-style eager attention: the 1/sqrt(d) scale and the
mask applied in f16, then softmax(s.float(), -1).half(). The last M of N
positions attend (query i sees keys j <= N - M + i). Two functions: the
mask as ONNX Where(mask, s, -inf) (@causal_select) and as SDPA's additive
0 / -inf attn_mask (@causal_additive).

Usage: causal_softmax.py [B M N]   (default 2 256 4096)
"""
import sys


def mask_hex(m, n, visible, pack_bits):
    """Hex payload of a 1 x m x n constant, row-major. i1 is bit-packed
    (little-endian within each byte); f16 is two bytes per element."""
    out = []
    if pack_bits:
        bits = [1 if visible(i, j) else 0 for i in range(m) for j in range(n)]
        for k in range(0, len(bits), 8):
            out.append("%02X" % sum(b << t for t, b in enumerate(bits[k:k + 8])))
    else:
        zero, ninf = "0000", "00FC"  # 0.0 and -inf, little-endian f16
        for i in range(m):
            out.append("".join(zero if visible(i, j) else ninf for j in range(n)))
    return '"0x' + "".join(out) + '"'


def main():
    b, m, n = (int(a) for a in sys.argv[1:4]) if len(sys.argv) == 4 else (2, 256, 4096)
    visible = lambda i, j: j <= n - m + i
    s16, s32 = f"tensor<{b}x{m}x{n}xf16>", f"tensor<{b}x{m}x{n}xf32>"
    r32, one = f"tensor<{b}x{m}x1xf32>", "tensor<1x1x1xf16>"
    mi1, mf16 = f"tensor<1x{m}x{n}xi1>", f"tensor<1x{m}x{n}xf16>"
    forms = {
        "causal_select": (
            f'%mask = "tosa.const"() <{{values = dense<{mask_hex(m, n, visible, True)}> : {mi1}}}> : () -> {mi1}\n'
            f'  %ninf = "tosa.const"() <{{values = dense<0xFC00> : {one}}}> : () -> {one}\n'
            f"  %x16 = tosa.select %mask, %ss, %ninf : ({mi1}, {s16}, {one}) -> {s16}"),
        "causal_additive": (
            f'%mask = "tosa.const"() <{{values = dense<{mask_hex(m, n, visible, False)}> : {mf16}}}> : () -> {mf16}\n'
            f"  %x16 = tosa.add %ss, %mask : ({s16}, {mf16}) -> {s16}"),
    }
    for name, masked in forms.items():
        print(f"""func.func @{name}(%s: {s16}) -> {s16} {{
  %shift = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{{values = dense<1.250000e-01> : {one}}}> : () -> {one}
  %ss = tosa.mul %s, %scale, %shift : ({s16}, {one}, tensor<1xi8>) -> {s16}
  {masked}
  %x = tosa.cast %x16 : ({s16}) -> {s32}
  %max = tosa.reduce_max %x {{axis = 2 : i32}} : ({s32}) -> {r32}
  %d = tosa.sub %x, %max : ({s32}, {r32}) -> {s32}
  %e = tosa.exp %d : ({s32}) -> {s32}
  %sum = tosa.reduce_sum %e {{axis = 2 : i32}} : ({s32}) -> {r32}
  %r = tosa.reciprocal %sum : ({r32}) -> {r32}
  %p = tosa.mul %e, %r, %shift : ({s32}, {r32}, tensor<1xi8>) -> {s32}
  %p16 = tosa.cast %p : ({s32}) -> {s16}
  return %p16 : {s16}
}}
""")


main()
