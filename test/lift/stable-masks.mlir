// Causal masks and the 1/√d scale around a stable attention, as frontends
// write them, in f16 (Q, K, V 2x16x16, mask 1x16x16 broadcast over the
// batch). Each masked attention is ONE subprogram:
//  - @causal_select: ONNX Where(mask, s, -inf): tosa.select on a constant
//    i1 mask with a -inf splat on the false side;
//  - @causal_masked_fill: torch's s.masked_fill(triu(ones, 1), finfo.min):
//    the fill (-65504) on the true side;
//  - @causal_additive: s + mask with a constant 0 / -inf tensor (SDPA's
//    attn_mask), and @causal_additive_linalg the same in torch-mlir's linalg.
// The μGraph has no select: with a constant mask, select(mask, s, fill) is
// s + A, A = select(mask, 0, fill), never s·m + fill·(1 - m) (-inf·0 is
// NaN). A is a new constant, so it becomes a kernel graph input like the
// additive mask: the caller computes it right before the call (a tosa.select
// of the mask, a zero splat and the fill, marked ug.boundary: -inf stays
// the original 0xFC00 constant), the reference adds it (tosa.add marked
// ug.boundary, standing for the select), and unlift restores the select:
// lift + unlift prints the input again.
// Not a mask, and cut with the reason: a select with a fill of 0. An i1
// mask passed as an argument (@mask_argument) lifts the same way as a
// constant one (run-time masks: runtime-masks.mlir).
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// Lifting twice lifts nothing more (the boundary select is a constant op).
// RUN: mirage-opt --mirage-lift %s | mirage-opt --mirage-lift | mirage-opt --mirage-unlift > %t.rt2
// RUN: diff %t.in %t.rt2
// The numbers. mirage-run draws every kernel graph input at random, the
// additive mask A included, so the pairs check the μGraph against its
// reference on random masks (the three forms are the same pair then); the
// -inf fill itself is exercised in the references of stable-softmax.mlir
// and stable-max.mlir.
// RUN: mirage-run --lift --range=1 %s | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --lift --range=8 %s | FileCheck %s --check-prefix=VAL
//
// REM: '@causal_select': lifted 1 subprogram (@causal_select_lax0); 0 tensor ops left in place
// REM: @causal_select_lax0: 12 ops -> kernel graph of 9 μGraph ops, 4 inputs, 1 output
// REM: '@causal_masked_fill': lifted 1 subprogram (@causal_masked_fill_lax0); 0 tensor ops left in place
// REM: '@causal_additive': lifted 1 subprogram (@causal_additive_lax0); 0 tensor ops left in place
// REM: '@not_a_mask': lifted 2 subprograms (@not_a_mask_lax0, @not_a_mask_lax1); 1 tensor op left in place
// REM: 'tosa.select' is not lifted: a masked select lifts only with a -inf or large negative fill (got 0)
// REM: '@mask_argument': lifted 1 subprogram (@mask_argument_lax0); 0 tensor ops left in place
// REM: '@causal_additive_linalg': lifted 1 subprogram (@causal_additive_linalg_lax0); 0 tensor ops left in place
//
// VAL: @causal_select_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @causal_masked_fill_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @causal_additive_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @not_a_mask_lax0: {{.*}}: ok
// VAL-NEXT: @not_a_mask_lax1: {{.*}}: ok
// VAL-NEXT: @mask_argument_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @causal_additive_linalg_lax0: 1 output, 512 elements, max abs error {{.*}}: ok
// VAL-NOT: {{MISMATCH|OVERFLOW}}

func.func @causal_select(%q: tensor<2x16x16xf16>, %k: tensor<2x16x16xf16>, %v: tensor<2x16x16xf16>) -> tensor<2x16x16xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %s16 = tosa.cast %s : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s16, %scale, %shift : (tensor<2x16x16xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x16x16xf16>
  %mask = "tosa.const"() <{values = dense<[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]> : tensor<1x16x16xi1>}> : () -> tensor<1x16x16xi1>
  %ninf = "tosa.const"() <{values = dense<0xFC00> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %x = tosa.select %mask, %ss, %ninf : (tensor<1x16x16xi1>, tensor<2x16x16xf16>, tensor<1x1x1xf16>) -> tensor<2x16x16xf16>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
  %d = tosa.sub %x, %m : (tensor<2x16x16xf16>, tensor<2x16x1xf16>) -> tensor<2x16x16xf16>
  %e = tosa.exp %d : (tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf16>, tensor<2x16x1xf16>, tensor<1xi8>) -> tensor<2x16x16xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %o16 = tosa.cast %o : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  return %o16 : tensor<2x16x16xf16>
}

func.func @causal_masked_fill(%q: tensor<2x16x16xf16>, %k: tensor<2x16x16xf16>, %v: tensor<2x16x16xf16>) -> tensor<2x16x16xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %s16 = tosa.cast %s : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s16, %scale, %shift : (tensor<2x16x16xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x16x16xf16>
  %mask = "tosa.const"() <{values = dense<[[[false, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true], [false, false, true, true, true, true, true, true, true, true, true, true, true, true, true, true], [false, false, false, true, true, true, true, true, true, true, true, true, true, true, true, true], [false, false, false, false, true, true, true, true, true, true, true, true, true, true, true, true], [false, false, false, false, false, true, true, true, true, true, true, true, true, true, true, true], [false, false, false, false, false, false, true, true, true, true, true, true, true, true, true, true], [false, false, false, false, false, false, false, true, true, true, true, true, true, true, true, true], [false, false, false, false, false, false, false, false, true, true, true, true, true, true, true, true], [false, false, false, false, false, false, false, false, false, true, true, true, true, true, true, true], [false, false, false, false, false, false, false, false, false, false, true, true, true, true, true, true], [false, false, false, false, false, false, false, false, false, false, false, true, true, true, true, true], [false, false, false, false, false, false, false, false, false, false, false, false, true, true, true, true], [false, false, false, false, false, false, false, false, false, false, false, false, false, true, true, true], [false, false, false, false, false, false, false, false, false, false, false, false, false, false, true, true], [false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, true], [false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false]]]> : tensor<1x16x16xi1>}> : () -> tensor<1x16x16xi1>
  %lowest = "tosa.const"() <{values = dense<-6.550400e+04> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %x = tosa.select %mask, %lowest, %ss : (tensor<1x16x16xi1>, tensor<1x1x1xf16>, tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
  %d = tosa.sub %x, %m : (tensor<2x16x16xf16>, tensor<2x16x1xf16>) -> tensor<2x16x16xf16>
  %e = tosa.exp %d : (tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf16>, tensor<2x16x1xf16>, tensor<1xi8>) -> tensor<2x16x16xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %o16 = tosa.cast %o : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  return %o16 : tensor<2x16x16xf16>
}

func.func @causal_additive(%q: tensor<2x16x16xf16>, %k: tensor<2x16x16xf16>, %v: tensor<2x16x16xf16>) -> tensor<2x16x16xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %s16 = tosa.cast %s : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s16, %scale, %shift : (tensor<2x16x16xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x16x16xf16>
  %mask = "tosa.const"() <{values = dense<[[[0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]> : tensor<1x16x16xf16>}> : () -> tensor<1x16x16xf16>
  %x = tosa.add %ss, %mask : (tensor<2x16x16xf16>, tensor<1x16x16xf16>) -> tensor<2x16x16xf16>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
  %d = tosa.sub %x, %m : (tensor<2x16x16xf16>, tensor<2x16x1xf16>) -> tensor<2x16x16xf16>
  %e = tosa.exp %d : (tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf16>, tensor<2x16x1xf16>, tensor<1xi8>) -> tensor<2x16x16xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %o16 = tosa.cast %o : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  return %o16 : tensor<2x16x16xf16>
}

func.func @not_a_mask(%q: tensor<2x16x16xf16>, %k: tensor<2x16x16xf16>, %v: tensor<2x16x16xf16>) -> tensor<2x16x16xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %s16 = tosa.cast %s : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s16, %scale, %shift : (tensor<2x16x16xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x16x16xf16>
  %mask = "tosa.const"() <{values = dense<[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]> : tensor<1x16x16xi1>}> : () -> tensor<1x16x16xi1>
  %zero = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %x = tosa.select %mask, %ss, %zero : (tensor<1x16x16xi1>, tensor<2x16x16xf16>, tensor<1x1x1xf16>) -> tensor<2x16x16xf16>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
  %d = tosa.sub %x, %m : (tensor<2x16x16xf16>, tensor<2x16x1xf16>) -> tensor<2x16x16xf16>
  %e = tosa.exp %d : (tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf16>, tensor<2x16x1xf16>, tensor<1xi8>) -> tensor<2x16x16xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %o16 = tosa.cast %o : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  return %o16 : tensor<2x16x16xf16>
}

func.func @mask_argument(%q: tensor<2x16x16xf16>, %k: tensor<2x16x16xf16>, %v: tensor<2x16x16xf16>, %mask: tensor<1x16x16xi1>) -> tensor<2x16x16xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %s16 = tosa.cast %s : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s16, %scale, %shift : (tensor<2x16x16xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x16x16xf16>
  %ninf = "tosa.const"() <{values = dense<0xFC00> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %x = tosa.select %mask, %ss, %ninf : (tensor<1x16x16xi1>, tensor<2x16x16xf16>, tensor<1x1x1xf16>) -> tensor<2x16x16xf16>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
  %d = tosa.sub %x, %m : (tensor<2x16x16xf16>, tensor<2x16x1xf16>) -> tensor<2x16x16xf16>
  %e = tosa.exp %d : (tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf16>, tensor<2x16x1xf16>, tensor<1xi8>) -> tensor<2x16x16xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %o16 = tosa.cast %o : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  return %o16 : tensor<2x16x16xf16>
}

func.func @causal_additive_linalg(%arg0: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %mask = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<16x16xf32>
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x16xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %mask : tensor<2x16x16xf32>, tensor<16x16xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %9 = arith.addf %in, %in_1 : f32
    linalg.yield %9 : f32
  } -> tensor<2x16x16xf32>
  %2 = tensor.empty() : tensor<2x16x1xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%1 : tensor<2x16x16xf32>) outs(%3 : tensor<2x16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %9 = arith.maximumf %in, %out : f32
    linalg.yield %9 : f32
  } -> tensor<2x16x1xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %4 : tensor<2x16x16xf32>, tensor<2x16x1xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %9 = arith.subf %in, %in_1 : f32
    %10 = math.exp %9 : f32
    linalg.yield %10 : f32
  } -> tensor<2x16x16xf32>
  %6 = linalg.fill ins(%cst_0 : f32) outs(%2 : tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%5 : tensor<2x16x16xf32>) outs(%6 : tensor<2x16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %9 = arith.addf %in, %out : f32
    linalg.yield %9 : f32
  } -> tensor<2x16x1xf32>
  %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %7 : tensor<2x16x16xf32>, tensor<2x16x1xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %9 = arith.divf %in, %in_1 : f32
    linalg.yield %9 : f32
  } -> tensor<2x16x16xf32>
  return %8 : tensor<2x16x16xf32>
}


// The caller computes the additive mask from the original mask and -inf.
// CHECK-LABEL: func.func @causal_select(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf16>, %[[K:[^:]+]]: tensor<2x16x16xf16>, %[[V:[^:]+]]: tensor<2x16x16xf16>)
// CHECK: %[[MASK:[0-9]+]] = "tosa.const"() <{values = dense<"0x0100030007000F00{{[0-9A-F]*}}"> : tensor<1x16x16xi1>}>
// CHECK-NEXT: %[[NINF:[0-9]+]] = "tosa.const"() <{values = dense<0xFC00> : tensor<1x1x1xf16>}>
// CHECK-NEXT: %[[ZERO:[0-9]+]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1x1xf16>}> {ug.boundary}
// CHECK-NEXT: %[[A:[0-9]+]] = tosa.select %[[MASK]], %[[ZERO]], %[[NINF]] {ug.boundary} : (tensor<1x16x16xi1>, tensor<1x1x1xf16>, tensor<1x1x1xf16>) -> tensor<1x16x16xf16>
// CHECK-NEXT: call @causal_select_lax0(%[[Q]], %[[K]], %[[V]], %[[A]]) : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-LABEL: func.func private @causal_select_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf16>, %[[K:[^:]+]]: tensor<2x16x16xf16>, %[[V:[^:]+]]: tensor<2x16x16xf16>, %[[A:[^:]+]]: tensor<1x16x16xf16>) -> tensor<2x16x16xf16> attributes {ug.level = "kernel", ug.reference = @causal_select_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[Q]], %[[K]]) : (tensor<2x16x16xf16>, tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[MM0]]) {scalar = 2.500000e-01 : f64} : (tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[MULS]], %[[A]]) : (tensor<2x16x16xf16>, tensor<1x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[ADD]]) {dim = 2 : i64} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[ADD]], %[[MAX]]) : (tensor<2x16x16xf16>, tensor<2x16x1xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[SUB]]) : (tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x16x16xf16>) -> tensor<2x16x1xf16>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]]) : (tensor<2x16x16xf16>, tensor<2x16x1xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[DIV]], %[[V]]) : (tensor<2x16x16xf16>, tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: return %[[MM1]] : tensor<2x16x16xf16>
// The reference adds the argument where the select was.
// CHECK-LABEL: func.func private @causal_select_lax0_ref(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf16>, %[[K:[^:]+]]: tensor<2x16x16xf16>, %[[V:[^:]+]]: tensor<2x16x16xf16>, %[[A:[^:]+]]: tensor<1x16x16xf16>)
// CHECK: %[[SS:[0-9]+]] = tosa.mul
// CHECK: %[[X:[0-9]+]] = tosa.add %[[SS]], %[[A]] {ug.boundary} : (tensor<2x16x16xf16>, tensor<1x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: tosa.reduce_max %[[X]] {axis = 2 : i32}
// The fill on the true side: A = select(mask, fill, 0).
// CHECK-LABEL: func.func @causal_masked_fill(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf16>, %[[K:[^:]+]]: tensor<2x16x16xf16>, %[[V:[^:]+]]: tensor<2x16x16xf16>)
// CHECK: %[[MASK:[0-9]+]] = "tosa.const"() <{values = dense<"0xFEFFFCFF{{[0-9A-F]*}}"> : tensor<1x16x16xi1>}>
// CHECK-NEXT: %[[FILL:[0-9]+]] = "tosa.const"() <{values = dense<-6.550400e+04> : tensor<1x1x1xf16>}>
// CHECK-NEXT: %[[ZERO:[0-9]+]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1x1xf16>}> {ug.boundary}
// CHECK-NEXT: %[[A:[0-9]+]] = tosa.select %[[MASK]], %[[FILL]], %[[ZERO]] {ug.boundary}
// CHECK-NEXT: call @causal_masked_fill_lax0(%[[Q]], %[[K]], %[[V]], %[[A]])
// CHECK-LABEL: func.func private @causal_masked_fill_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf16>, %[[K:[^:]+]]: tensor<2x16x16xf16>, %[[V:[^:]+]]: tensor<2x16x16xf16>, %[[A:[^:]+]]: tensor<1x16x16xf16>)
// CHECK: %[[MULS:.*]] = "ug.mul_scalar"
// CHECK-NEXT: "ug.add"(%[[MULS]], %[[A]]) : (tensor<2x16x16xf16>, tensor<1x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: "ug.reduce_max"
// The additive mask is passed as it is.
// CHECK-LABEL: func.func @causal_additive(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf16>, %[[K:[^:]+]]: tensor<2x16x16xf16>, %[[V:[^:]+]]: tensor<2x16x16xf16>)
// CHECK: %[[MASK:[0-9]+]] = "tosa.const"() <{values = dense<"0x0000{{(00FC)+}}{{[0-9A-F]*}}"> : tensor<1x16x16xf16>}>
// CHECK-NEXT: call @causal_additive_lax0(%[[Q]], %[[K]], %[[V]], %[[MASK]])
// CHECK-LABEL: func.func private @causal_additive_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf16>, %[[K:[^:]+]]: tensor<2x16x16xf16>, %[[V:[^:]+]]: tensor<2x16x16xf16>, %[[MASK:[^:]+]]: tensor<1x16x16xf16>)
// CHECK: %[[MULS:.*]] = "ug.mul_scalar"
// CHECK-NEXT: "ug.add"(%[[MULS]], %[[MASK]]) : (tensor<2x16x16xf16>, tensor<1x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: "ug.reduce_max"
// CHECK-LABEL: func.func @not_a_mask(
// CHECK: call @not_a_mask_lax0(
// CHECK: tosa.select
// CHECK-NEXT: call @not_a_mask_lax1(
// CHECK-LABEL: func.func @causal_additive_linalg(
// CHECK-SAME: %[[S:[^:]+]]: tensor<2x16x16xf32>)
// CHECK: call @causal_additive_linalg_lax0(%[[S]], %expanded) : (tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-LABEL: func.func private @causal_additive_linalg_lax0(
// CHECK-SAME: %[[S:[^:]+]]: tensor<2x16x16xf32>, %[[EXPANDED:[^:]+]]: tensor<1x16x16xf32>)
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[S]], %[[EXPANDED]]) : (tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[ADD]]) {dim = 2 : i64} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[ADD]], %[[MAX]])
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[SUB]])
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64}
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]])
// CHECK-NEXT: return %[[DIV]] : tensor<2x16x16xf32>
