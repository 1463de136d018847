// Tensor functions that --mirage-check-equiv cannot compare: an error at
// the first op that keeps a function from lifting whole (with the reason
// --mirage-lift would give), or at the second function when signatures
// differ; exit 1 in every case. Ops whose results are unused do not count.
//
// RUN: not mirage-opt --mirage-check-equiv="lhs=conv rhs=conv_copy" %s 2>&1 | FileCheck %s --check-prefix=CONV
// RUN: not mirage-opt --mirage-check-equiv="lhs=ref rhs=exp_of_exp" %s 2>&1 | FileCheck %s --check-prefix=EXPEXP
// RUN: not mirage-opt --mirage-check-equiv="lhs=ref rhs=masked_select" %s 2>&1 | FileCheck %s --check-prefix=SELECT
// RUN: not mirage-opt --mirage-check-equiv="lhs=ref rhs=returns_empty" %s 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not mirage-opt --mirage-check-equiv="lhs=ref rhs=other_arg_type" %s 2>&1 | FileCheck %s --check-prefix=ARGTYPE
// RUN: not mirage-opt --mirage-check-equiv="lhs=ref rhs=two_results" %s 2>&1 | FileCheck %s --check-prefix=RESULTS
// RUN: not mirage-opt --mirage-check-equiv="lhs=dynamic rhs=dynamic" %s 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not mirage-opt --mirage-check-equiv="lhs=ref rhs=ref_kernel_f16" %s 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: (mirage-opt --mirage-check-equiv="lhs=ref rhs=dead_op" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=DEAD

// A 3-D convolution (2-D ones lift as im2col and a matmul, issue 30).
func.func @conv(%x: tensor<1x2x4x4x4xf32>, %w: tensor<8x1x1x1x4xf32>, %b: tensor<8xf32>) -> tensor<1x2x4x4x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // CONV: check-equiv-invalid.mlir:[[@LINE+2]]:8: error: '@conv' cannot be checked: 'tosa.conv3d' is not liftable (the μGraph has no counterpart of 'tosa.conv3d')
  // CONV-NOT: error
  %y = tosa.conv3d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<8x1x1x1x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4x4x8xf32>
  %e = tosa.exp %y : (tensor<1x2x4x4x8xf32>) -> tensor<1x2x4x4x8xf32>
  return %e : tensor<1x2x4x4x8xf32>
}
func.func @conv_copy(%x: tensor<1x2x4x4x4xf32>, %w: tensor<8x1x1x1x4xf32>, %b: tensor<8xf32>) -> tensor<1x2x4x4x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv3d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<8x1x1x1x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4x4x8xf32>
  %e = tosa.exp %y : (tensor<1x2x4x4x8xf32>) -> tensor<1x2x4x4x8xf32>
  return %e : tensor<1x2x4x4x8xf32>
}

func.func @ref(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %e = tosa.exp %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %e : tensor<2x8xf32>
}

// Two exps on one path leave LAX: the finite-field verifier cannot model it.
func.func @exp_of_exp(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %e = tosa.exp %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // EXPEXP: check-equiv-invalid.mlir:[[@LINE+1]]:9: error: '@exp_of_exp' cannot be checked: 'tosa.exp' is not liftable (an exp reads an exp result
  %ee = tosa.exp %e : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %ee : tensor<2x8xf32>
}

// A select on an i1 mask lifts as an addition of a mask the call site
// computes (docs/lift.md, Masks): no constant of the function holds it.
func.func @masked_select(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %m = "tosa.const"() <{values = dense<true> : tensor<2x8xi1>}> : () -> tensor<2x8xi1>
  %f = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  // SELECT: check-equiv-invalid.mlir:[[@LINE+1]]:8: error: '@masked_select' cannot be checked: 'tosa.select' is not liftable (a select on an i1 mask
  %y = tosa.select %m, %x, %f : (tensor<2x8xi1>, tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

func.func @returns_empty(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // EMPTY: check-equiv-invalid.mlir:[[@LINE+1]]:8: error: '@returns_empty' cannot be checked: 'tensor.empty' is not liftable (its contents are undefined
  %e = tensor.empty() : tensor<2x8xf32>
  return %e : tensor<2x8xf32>
}

// ARGTYPE: check-equiv-invalid.mlir:[[@LINE+1]]:1: error: '@ref' and '@other_arg_type' have different signatures: argument 0 is 'tensor<2x8xf32>' in '@ref' but 'tensor<2x8xf16>' in '@other_arg_type'
func.func @other_arg_type(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %e = tosa.exp %x : (tensor<2x8xf16>) -> tensor<2x8xf16>
  return %e : tensor<2x8xf16>
}

// RESULTS: check-equiv-invalid.mlir:[[@LINE+1]]:1: error: '@ref' and '@two_results' have different signatures: '@ref' has 1 result, '@two_results' has 2
func.func @two_results(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %e = tosa.exp %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %e, %x : tensor<2x8xf32>, tensor<2x8xf32>
}

// DYNAMIC: check-equiv-invalid.mlir:[[@LINE+1]]:1: error: '@dynamic' cannot be checked: argument 0 has a dynamic shape
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %e = tosa.exp %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %e : tensor<?x8xf32>
}

// A μGraph kernel against a tensor function: signatures are compared too.
// MIXED: check-equiv-invalid.mlir:[[@LINE+1]]:1: error: '@ref' and '@ref_kernel_f16' have different signatures: argument 0 is 'tensor<2x8xf32>' in '@ref' but 'tensor<2x8xf16>' in '@ref_kernel_f16'
func.func @ref_kernel_f16(%x: tensor<2x8xf16>) -> tensor<2x8xf16> attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%x) : (tensor<2x8xf16>) -> tensor<2x8xf16>
  func.return %e : tensor<2x8xf16>
}

// An op whose result is unused changes no result: it is skipped.
// DEAD: remark: '@ref' and '@dead_op' are equivalent
// DEAD-NEXT: exit 0
func.func @dead_op(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %s = tosa.sin %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %e = tosa.exp %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %e : tensor<2x8xf32>
}
