// x @ W with x of rank 3 and W of rank 2, as JAX (jnp.einsum / dot_general)
// and torch-mlir's linalg path write nn.Linear on (batch, seq, in): one
// linalg.generic with two parallel loops that only x and the result walk.
// The μGraph matmul has equal batch dims, so the two row loops merge: x is
// viewed as (batch·seq, in), the product is 2-D, and the result is viewed
// back (row-major reshapes, no copy). Until issue 30 this was cut ("the
// contraction is not a (batched) matmul"). Row loops that are not
// consecutive in x still are.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="lower=false cache=false time-budget-s=0" %s > %t.opt
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=NUM

// CHECK-LABEL: func.func private @linear_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8x16xf32>, %[[W:[^:]+]]: tensor<16x32xf32>
// CHECK: %[[R:.*]] = "ug.reshape"(%[[X]]) : (tensor<2x8x16xf32>) -> tensor<16x16xf32>
// CHECK-NEXT: %[[M:.*]] = "ug.matmul"(%[[R]], %[[W]]) : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT: "ug.reshape"(%[[M]]) : (tensor<16x32xf32>) -> tensor<2x8x32xf32>

// REM-DAG: remark: mirage-lift: '@linear': lifted 1 subprogram (@linear_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: 'linalg.generic' is not lifted: the contraction is not a (batched) matmul

// NUM-DAG: @linear_lax0: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM-NOT: MISMATCH

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#y = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>

// y = x @ W + b, then gelu-free: the contraction and the bias add.
func.func @linear(%x: tensor<2x8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<2x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %m = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<2x8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<2x8x32xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x8x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%m, %b : tensor<2x8x32xf32>, tensor<32xf32>) outs(%e : tensor<2x8x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x8x32xf32>
  return %r : tensor<2x8x32xf32>
}

#xs = affine_map<(d0, d1, d2, d3) -> (d1, d3, d0)>
// The row loops apart in x (its dims (s, k, b)): no view merges them.
func.func @rows_apart(%x: tensor<8x16x2xf32>, %w: tensor<16x32xf32>) -> tensor<2x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %m = linalg.generic {indexing_maps = [#xs, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<8x16x2xf32>, tensor<16x32xf32>) outs(%f : tensor<2x8x32xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x8x32xf32>
  return %m : tensor<2x8x32xf32>
}
