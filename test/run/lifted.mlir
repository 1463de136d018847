// The lifter's output contract, written by hand: @F calls kernel graphs
// @F_lax<k> (ug.level = "kernel", ug.reference = @F_lax<k>_ref) and each
// reference keeps the original ops. Without --compare, mirage-run checks
// every such pair and prints one line per kernel graph, in module order.
// RUN: mirage-run %s | FileCheck %s
// RUN: mirage-run --seed=12345 %s | FileCheck %s
// RUN: not mirage-run %S/Inputs/lifted-wrong.mlir | FileCheck %s --check-prefix=WRONG

// CHECK: @block_lax0: 1 output, 128 elements, max abs error {{.*}} (tolerance {{.*}}): ok
// CHECK-NEXT: @block_lax1: 2 outputs, 72 elements, max abs error {{.*}} (tolerance {{.*}}): ok
// CHECK-NEXT: @scale_lax0: 1 output, 64 elements, max abs error 0 (tolerance {{.*}}): ok
// CHECK-NOT: MISMATCH

// One subprogram is right, the other is not: both are reported, exit 1.
// WRONG: @mlp_lax0: 1 output, 64 elements, max abs error {{.*}}: ok
// WRONG-NEXT: @mlp_lax1: MISMATCH at output 0 element 0: jit

func.func @block(%x: tensor<1x4x32xf16>, %w: tensor<1x32x32xf16>, %g: tensor<8x4xf32>, %h: tensor<4x8xf32>) -> (tensor<1x4x32xf16>, tensor<8x8xf32>, tensor<8x1xf32>) {
  %y = func.call @block_lax0(%x, %w) : (tensor<1x4x32xf16>, tensor<1x32x32xf16>) -> tensor<1x4x32xf16>
  %p:2 = func.call @block_lax1(%g, %h) : (tensor<8x4xf32>, tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<8x1xf32>)
  return %y, %p#0, %p#1 : tensor<1x4x32xf16>, tensor<8x8xf32>, tensor<8x1xf32>
}

// Subprogram 0: f16 TOSA, relu(X·W) (relu as tosa.clamp).
func.func private @block_lax0(%x: tensor<1x4x32xf16>, %w: tensor<1x32x32xf16>) -> tensor<1x4x32xf16> attributes {ug.level = "kernel", ug.reference = @block_lax0_ref} {
  %m = "ug.matmul"(%x, %w) : (tensor<1x4x32xf16>, tensor<1x32x32xf16>) -> tensor<1x4x32xf16>
  %r = "ug.relu"(%m) : (tensor<1x4x32xf16>) -> tensor<1x4x32xf16>
  func.return %r : tensor<1x4x32xf16>
}
func.func private @block_lax0_ref(%x: tensor<1x4x32xf16>, %w: tensor<1x32x32xf16>) -> tensor<1x4x32xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x32xf16>
  %r = tosa.clamp %m {min_val = 0.0 : f16, max_val = 6.550400e+04 : f16} : (tensor<1x4x32xf16>) -> tensor<1x4x32xf16>
  return %r : tensor<1x4x32xf16>
}

// Subprogram 1: two results, f32 linalg with a transpose feeding a matmul
// and a row sum: P = G · Hᵀᵀ (H transposed twice), S = Σ_last P.
func.func private @block_lax1(%g: tensor<8x4xf32>, %h: tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<8x1xf32>) attributes {ug.level = "kernel", ug.reference = @block_lax1_ref} {
  %p = "ug.matmul"(%g, %h) : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %s = "ug.sum"(%p) {dim = 1 : i64} : (tensor<8x8xf32>) -> tensor<8x1xf32>
  func.return %p, %s : tensor<8x8xf32>, tensor<8x1xf32>
}
func.func private @block_lax1_ref(%g: tensor<8x4xf32>, %h: tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<8x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<8x4xf32>
  %ht = linalg.transpose ins(%h : tensor<4x8xf32>) outs(%et : tensor<8x4xf32>) permutation = [1, 0]
  %eh = tensor.empty() : tensor<4x8xf32>
  %htt = linalg.transpose ins(%ht : tensor<8x4xf32>) outs(%eh : tensor<4x8xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = linalg.matmul ins(%g, %htt : tensor<8x4xf32>, tensor<4x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.reduce ins(%p : tensor<8x8xf32>) outs(%z1 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  %s2 = tensor.expand_shape %s [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  return %p, %s2 : tensor<8x8xf32>, tensor<8x1xf32>
}

// A second function with an exact subprogram: doubling is exact in any
// float type, so the error is exactly 0 (bf16, with a constant operand).
func.func @scale(%x: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %y = func.call @scale_lax0(%x) : (tensor<4x16xbf16>) -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}
func.func private @scale_lax0(%x: tensor<4x16xbf16>) -> tensor<4x16xbf16> attributes {ug.level = "kernel", ug.reference = @scale_lax0_ref} {
  %y = "ug.mul_scalar"(%x) {scalar = 2.000000e+00 : f64} : (tensor<4x16xbf16>) -> tensor<4x16xbf16>
  func.return %y : tensor<4x16xbf16>
}
func.func private @scale_lax0_ref(%x: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1xbf16>}> : () -> tensor<1x1xbf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.mul %x, %two, %shift : (tensor<4x16xbf16>, tensor<1x1xbf16>, tensor<1xi8>) -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}
