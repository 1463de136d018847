// An f16 RMSNorm over 4,096 values whose input is first scaled by 64
// (√4096, as Gemma scales its embeddings): at --range=1 the sum of squares
// is about 4096 · 64²/3 ≈ 5.6e6, past f16's 65504. The reference (f16)
// saturates it to inf, rsqrt(inf) = 0 and every output is ±0: finite, so
// no inf/NaN reaches the output, but the results mean nothing. mirage-run
// finds the intermediate past its type's range in the kernel graph (run
// exactly), reports an OVERFLOW of the original program rather than a
// mismatch (exit 2), and suggests a range; at that range the pair agrees.
// Without the scale the same RMSNorm agrees at --range=1.
// RUN: (mirage-run --lift %s; echo "exit $?") | FileCheck %s --check-prefix=RANGE1
// RUN: (mirage-run --lift --range=0.0625 %s; echo "exit $?") | FileCheck %s --check-prefix=SUGGESTED

// RANGE1: @rms_scaled_lax0: OVERFLOW: the original program overflows f16 at --range=1: an intermediate (the result of 'ug.sum', f16) reaches 5.69e+06, past f16's largest finite value 65504, so the reference's results are not meaningful (at output 0 element 1: jit -0 vs interpreter -1.6019); try --range=0.0625
// RANGE1-NEXT: @rms_plain_lax0: 1 output, 8192 elements, max abs error {{.*}}: ok
// RANGE1-NEXT: exit 2
// SUGGESTED: @rms_scaled_lax0: 1 output, 8192 elements, max abs error {{.*}}: ok
// SUGGESTED-NEXT: @rms_plain_lax0: 1 output, 8192 elements, max abs error {{.*}}: ok
// SUGGESTED-NEXT: exit 0

func.func @rms_scaled(%x: tensor<1x2x4096xf16>) -> tensor<1x2x4096xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<64.0> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %inv_n = "tosa.const"() <{values = dense<0.000244140625> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %h = tosa.mul %x, %scale, %shift : (tensor<1x2x4096xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x4096xf16>
  %sq = tosa.mul %h, %h, %shift : (tensor<1x2x4096xf16>, tensor<1x2x4096xf16>, tensor<1xi8>) -> tensor<1x2x4096xf16>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x2x4096xf16>) -> tensor<1x2x1xf16>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x2x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x1xf16>
  %inv = tosa.rsqrt %mean : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %y = tosa.mul %h, %inv, %shift : (tensor<1x2x4096xf16>, tensor<1x2x1xf16>, tensor<1xi8>) -> tensor<1x2x4096xf16>
  return %y : tensor<1x2x4096xf16>
}

func.func @rms_plain(%x: tensor<1x2x4096xf16>) -> tensor<1x2x4096xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_n = "tosa.const"() <{values = dense<0.000244140625> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %sq = tosa.mul %x, %x, %shift : (tensor<1x2x4096xf16>, tensor<1x2x4096xf16>, tensor<1xi8>) -> tensor<1x2x4096xf16>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x2x4096xf16>) -> tensor<1x2x1xf16>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x2x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x1xf16>
  %inv = tosa.rsqrt %mean : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %y = tosa.mul %x, %inv, %shift : (tensor<1x2x4096xf16>, tensor<1x2x1xf16>, tensor<1xi8>) -> tensor<1x2x4096xf16>
  return %y : tensor<1x2x4096xf16>
}
