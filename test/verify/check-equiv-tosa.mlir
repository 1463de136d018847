// --mirage-check-equiv on TOSA functions: each is lifted whole into one
// kernel graph (not partitioned) and the two are compared by the
// finite-field verifier. Equal pairs give a remark with the bound (exit 0),
// others an error with the first differing element (exit 1).
//
// RUN: (mirage-opt --mirage-check-equiv="lhs=chain_left rhs=chain_right" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=ASSOC
// RUN: (mirage-opt --mirage-check-equiv="lhs=chain_left rhs=chain_right_wrong_scale" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=SCALE
// RUN: (mirage-opt --mirage-check-equiv="lhs=softmax_plain rhs=softmax_shifted" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=SHIFT
// RUN: (mirage-opt --mirage-check-equiv="lhs=softmax_plain rhs=softmax_shifted_full" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=SHIFT-FULL
// RUN: (mirage-opt --mirage-check-equiv="lhs=softmax_shifted rhs=softmax_stable" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=STABLE
// RUN: (mirage-opt --mirage-check-equiv="lhs=softmax_plain rhs=softmax_wrong_axis" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=AXIS
// RUN: (mirage-opt --mirage-check-equiv="lhs=softmax_plain rhs=softmax_shift_not_broadcast" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=CONST
// RUN: (mirage-opt --mirage-check-equiv="lhs=masked rhs=masked_stable" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=MASK
// RUN: (mirage-opt --mirage-check-equiv="lhs=softmax_plain rhs=masked" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=UNMASKED
// RUN: (mirage-opt --mirage-check-equiv="lhs=bias_f32 rhs=bias_f16" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=F16
// RUN: (mirage-opt --mirage-check-equiv="lhs=bias_f32 rhs=bias_bf16" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=BF16
// The module is printed unchanged.
// RUN: mirage-opt --mirage-check-equiv="lhs=chain_left rhs=chain_right" %s 2>/dev/null | FileCheck %s --check-prefix=IR

// IR-LABEL: func.func @chain_left(
// IR-NOT: ug.
// IR: tosa.matmul

//===----------------------------------------------------------------------===//
// A reassociated matmul chain: (A·B)·C against A·(B·C), and a wrong scale.
//===----------------------------------------------------------------------===//

// ASSOC: check-equiv-tosa.mlir:[[@LINE+3]]:1: remark: '@chain_left' and '@chain_right' are equivalent (error bound <= 2^-{{[4-9][0-9]\.[0-9]}}, 2 tests; seed {{[0-9]+}})
// ASSOC-NEXT: exit 0
// SCALE: check-equiv-tosa.mlir:[[@LINE+1]]:1: error: '@chain_left' and '@chain_right_wrong_scale' are not equivalent: output 0 differs at element 0 (test 1; seed {{[0-9]+}})
func.func @chain_left(%a: tensor<1x4x8xf32>, %b: tensor<1x8x16xf32>, %c: tensor<1x16x4xf32>) -> tensor<1x4x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ab = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %abc = tosa.matmul %ab, %c, %zp, %zp : (tensor<1x4x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4xf32>
  %r = tosa.mul %abc, %s, %shift : (tensor<1x4x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x4xf32>
  return %r : tensor<1x4x4xf32>
}
// SCALE-NEXT: exit 1

// The scale moved onto B (as x/8).
func.func @chain_right(%a: tensor<1x4x8xf32>, %b: tensor<1x8x16xf32>, %c: tensor<1x16x4xf32>) -> tensor<1x4x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %eight = "tosa.const"() <{values = dense<8.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %inv = tosa.reciprocal %eight : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %bs = tosa.mul %b, %inv, %shift : (tensor<1x8x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x16xf32>
  %bc = tosa.matmul %bs, %c, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  %r = tosa.matmul %a, %bc, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4xf32>
  return %r : tensor<1x4x4xf32>
}

// Wrong: B scaled by 1/4 instead of 1/8.
func.func @chain_right_wrong_scale(%a: tensor<1x4x8xf32>, %b: tensor<1x8x16xf32>, %c: tensor<1x16x4xf32>) -> tensor<1x4x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %bs = tosa.mul %b, %s, %shift : (tensor<1x8x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x16xf32>
  %bc = tosa.matmul %bs, %c, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  %r = tosa.matmul %a, %bc, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4xf32>
  return %r : tensor<1x4x4xf32>
}

//===----------------------------------------------------------------------===//
// Softmax: exp(x)/Σexp(x) against exp(x − c)/Σexp(x − c) for a constant c
// (the constant keeps its value in the tests: as a random input of full
// shape it would not cancel), against the stable form exp(x − max x), and
// against a sum over the wrong axis. Stability is not part of this check:
// the unstable and stable forms compute the same function.
//===----------------------------------------------------------------------===//

// SHIFT: check-equiv-tosa.mlir:[[@LINE+6]]:1: remark: '@softmax_plain' and '@softmax_shifted' are equivalent (error bound <= 2^-{{[4-9][0-9]\.[0-9]}}, 2 tests; seed {{[0-9]+}})
// SHIFT-NEXT: exit 0
// SHIFT-FULL: check-equiv-tosa.mlir:[[@LINE+4]]:1: remark: '@softmax_plain' and '@softmax_shifted_full' are equivalent (error bound <= 2^-{{[4-9][0-9]\.[0-9]}}, 2 tests; seed {{[0-9]+}})
// SHIFT-FULL-NEXT: exit 0
// AXIS: check-equiv-tosa.mlir:[[@LINE+2]]:1: error: '@softmax_plain' and '@softmax_wrong_axis' are not equivalent: output 0 differs at element 0 (test 1; seed {{[0-9]+}})
// AXIS-NEXT: exit 1
func.func @softmax_plain(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e = tosa.exp %x : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %y = tosa.mul %e, %r, %shift : (tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// STABLE: check-equiv-tosa.mlir:[[@LINE+2]]:1: remark: '@softmax_shifted' and '@softmax_stable' are equivalent (error bound <= 2^-{{[4-9][0-9]\.[0-9]}}, 2 tests; seed {{[0-9]+}})
// STABLE-NEXT: exit 0
func.func @softmax_shifted(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<3.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %d = tosa.sub %x, %c : (tensor<1x4x8xf32>, tensor<1x1x1xf32>) -> tensor<1x4x8xf32>
  %e = tosa.exp %d : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %y = tosa.mul %e, %r, %shift : (tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// The shift as a splat of the full shape.
func.func @softmax_shifted_full(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<3.0> : tensor<1x4x8xf32>}> : () -> tensor<1x4x8xf32>
  %d = tosa.sub %x, %c : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %e = tosa.exp %d : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %y = tosa.mul %e, %r, %shift : (tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

func.func @softmax_stable(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %d = tosa.sub %x, %m : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %e = tosa.exp %d : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %y = tosa.mul %e, %r, %shift : (tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// Wrong: normalised over dim 1 (columns) instead of dim 2.
func.func @softmax_wrong_axis(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e = tosa.exp %x : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<1x4x8xf32>) -> tensor<1x1x8xf32>
  %r = tosa.reciprocal %s : (tensor<1x1x8xf32>) -> tensor<1x1x8xf32>
  %y = tosa.mul %e, %r, %shift : (tensor<1x4x8xf32>, tensor<1x1x8xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// Wrong: a constant shift that varies along the normalised dim does not
// cancel (its values are read: element 1 of each row differs).
// CONST: error: '@softmax_plain' and '@softmax_shift_not_broadcast' are not equivalent: output 0 differs at element 0 (test 1; seed {{[0-9]+}})
// CONST-NEXT: exit 1
func.func @softmax_shift_not_broadcast(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<[[[3.0, 1.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]]]> : tensor<1x1x8xf32>}> : () -> tensor<1x1x8xf32>
  %d = tosa.sub %x, %c : (tensor<1x4x8xf32>, tensor<1x1x8xf32>) -> tensor<1x4x8xf32>
  %e = tosa.exp %d : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %y = tosa.mul %e, %r, %shift : (tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

//===----------------------------------------------------------------------===//
// An additive mask with -inf: the field has no image of -inf, so the mask
// is a random unknown, the same one in both functions (equal constants).
//===----------------------------------------------------------------------===//

// MASK: check-equiv-tosa.mlir:[[@LINE+4]]:1: remark: '@masked' and '@masked_stable' are equivalent (error bound <= 2^-{{[4-9][0-9]\.[0-9]}}, 2 tests; 1 non-finite constant compared as unknown; seed {{[0-9]+}})
// MASK-NEXT: exit 0
// UNMASKED: error: '@softmax_plain' and '@masked' are not equivalent
// UNMASKED-NEXT: exit 1
func.func @masked(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %mask = "tosa.const"() <{values = dense<[[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000]]]> : tensor<1x4x8xf32>}> : () -> tensor<1x4x8xf32>
  %d = tosa.add %x, %mask : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %e = tosa.exp %d : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %y = tosa.mul %e, %r, %shift : (tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

func.func @masked_stable(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %mask = "tosa.const"() <{values = dense<[[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000]]]> : tensor<1x4x8xf32>}> : () -> tensor<1x4x8xf32>
  %xm = tosa.add %mask, %x : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %m = tosa.reduce_max %xm {axis = 2 : i32} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %d = tosa.sub %xm, %m : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %e = tosa.exp %d : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %y = tosa.mul %e, %r, %shift : (tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

//===----------------------------------------------------------------------===//
// Dense constants are read element by element (f16 and bf16 through a
// cast): the same values in f32 and f16 are equal; in bf16, 65504 rounds to
// 65536, so element 4 differs.
//===----------------------------------------------------------------------===//

// F16: check-equiv-tosa.mlir:[[@LINE+4]]:1: remark: '@bias_f32' and '@bias_f16' are equivalent
// F16-NEXT: exit 0
// BF16: check-equiv-tosa.mlir:[[@LINE+2]]:1: error: '@bias_f32' and '@bias_bf16' are not equivalent: output 0 differs at element 4 (test 1; constants' term 2^-{{[0-9.]+}} per test; seed {{[0-9]+}})
// BF16-NEXT: exit 1
func.func @bias_f32(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %c = "tosa.const"() <{values = dense<[[1.5, -2.25, 3.0, 0.125, 65504.0, 6.103515625E-5, 5.9604644775390625E-8, -1.0]]> : tensor<1x8xf32>}> : () -> tensor<1x8xf32>
  %a = tosa.add %c, %x : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %a : tensor<1x8xf32>
}

func.func @bias_f16(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %c = "tosa.const"() <{values = dense<[[1.5, -2.25, 3.0, 0.125, 65504.0, 6.103515625E-5, 5.9604644775390625E-8, -1.0]]> : tensor<1x8xf16>}> : () -> tensor<1x8xf16>
  %cf = tosa.cast %c : (tensor<1x8xf16>) -> tensor<1x8xf32>
  %a = tosa.add %x, %cf : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %a : tensor<1x8xf32>
}

func.func @bias_bf16(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %c = "tosa.const"() <{values = dense<[[1.5, -2.25, 3.0, 0.125, 65504.0, 6.103515625E-5, 5.9604644775390625E-8, -1.0]]> : tensor<1x8xbf16>}> : () -> tensor<1x8xbf16>
  %cf = tosa.cast %c : (tensor<1x8xbf16>) -> tensor<1x8xf32>
  %a = tosa.add %x, %cf : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %a : tensor<1x8xf32>
}
