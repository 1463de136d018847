// --mirage-check-equiv on linalg-on-tensors functions, and across
// frontends: linalg against TOSA, and either against a kernel-level μGraph
// function (a hand-written kernel against its reference).
//
// RUN: (mirage-opt --mirage-check-equiv="lhs=scaled_after rhs=scaled_before" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=EQ
// RUN: (mirage-opt --mirage-check-equiv="lhs=scaled_after rhs=scaled_wrong" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=NEQ
// RUN: (mirage-opt --mirage-check-equiv="lhs=scaled_tosa rhs=scaled_before" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=TOSA
// RUN: (mirage-opt --mirage-check-equiv="lhs=scaled_kernel rhs=scaled_after" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=UG
// RUN: (mirage-opt --mirage-check-equiv="lhs=scaled_tosa_transposed rhs=scaled_kernel_transposed" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=LAYOUT
// RUN: (mirage-opt --mirage-check-equiv="lhs=scaled_kernel_transposed rhs=scaled_kernel" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=UGUG

#id = affine_map<(d0, d1) -> (d0, d1)>

// Y = (X·W) * 0.125: linalg.matmul, then a scaling generic.
// EQ: check-equiv-linalg.mlir:[[@LINE+4]]:1: remark: '@scaled_after' and '@scaled_before' are equivalent (error bound <= 2^-{{[4-9][0-9]\.[0-9]}}, 2 tests; seed {{[0-9]+}})
// EQ-NEXT: exit 0
// NEQ: check-equiv-linalg.mlir:[[@LINE+2]]:1: error: '@scaled_after' and '@scaled_wrong' are not equivalent: output 0 differs at element 0 (test 1; seed {{[0-9]+}})
// NEQ-NEXT: exit 1
func.func @scaled_after(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// X / 8 first, then a contraction written as a linalg.generic.
func.func @scaled_before(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %xs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 8.0 : f32
    %r = arith.divf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xs, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}

// Wrong: scaled by 0.25.
func.func @scaled_wrong(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.25 : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// The same in TOSA, as torch-mlir writes it: rank-3 matmul between
// reshapes (the 2-D arguments enter the kernel graph rerooted to rank 3).
// TOSA: check-equiv-linalg.mlir:[[@LINE+2]]:1: remark: '@scaled_tosa' and '@scaled_before' are equivalent
// TOSA-NEXT: exit 0
func.func @scaled_tosa(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3 = tosa.const_shape {values = dense<[1, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3s = tosa.const_shape {values = dense<[1, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %o2 = tosa.const_shape {values = dense<[4, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %x3 = tosa.reshape %x, %s3 : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %w3 = tosa.reshape %w, %w3s : (tensor<8x16xf32>, !tosa.shape<3>) -> tensor<1x8x16xf32>
  %m = tosa.matmul %x3, %w3, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %c = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ms = tosa.mul %m, %c, %shift : (tensor<1x4x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
  %r = tosa.reshape %ms, %o2 : (tensor<1x4x16xf32>, !tosa.shape<2>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// A kernel-level μGraph function against a lifted one (remark at lhs).
// UG: check-equiv-linalg.mlir:[[@LINE+2]]:1: remark: '@scaled_kernel' and '@scaled_after' are equivalent
// UG-NEXT: exit 0
func.func @scaled_kernel(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> attributes {ug.level = "kernel"} {
  %m = "ug.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %y = "ug.mul_scalar"(%m) {scalar = 1.250000e-01 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// x·Wᵀ with W stored 16x8 (as nn.Linear keeps it): TOSA transposes it, the
// kernel reads it through a layout. The comparison takes the stored array
// on both sides. Two μGraph functions are compared as before: this kernel
// and @scaled_kernel read input 1 in different layouts.
// LAYOUT: remark: '@scaled_tosa_transposed' and '@scaled_kernel_transposed' are equivalent
// LAYOUT-NEXT: exit 0
// UGUG: error: cannot compare '@scaled_kernel_transposed' with '@scaled_kernel': input 1 is stored in different layouts
// UGUG-NEXT: exit 1
func.func @scaled_tosa_transposed(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3 = tosa.const_shape {values = dense<[1, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3s = tosa.const_shape {values = dense<[1, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %o2 = tosa.const_shape {values = dense<[4, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %wt = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %x3 = tosa.reshape %x, %s3 : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %w3 = tosa.reshape %wt, %w3s : (tensor<8x16xf32>, !tosa.shape<3>) -> tensor<1x8x16xf32>
  %m = tosa.matmul %x3, %w3, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %c = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ms = tosa.mul %m, %c, %shift : (tensor<1x4x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
  %r = tosa.reshape %ms, %o2 : (tensor<1x4x16xf32>, !tosa.shape<2>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

func.func @scaled_kernel_transposed(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> attributes {ug.level = "kernel"} {
  %wt = "ug.transpose"(%w) {perm = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %m = "ug.matmul"(%x, %wt) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %y = "ug.mul_scalar"(%m) {scalar = 1.250000e-01 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}
