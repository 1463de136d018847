// Gated MLP (silu(x W1^T) * (x W2^T), nn.Linear without bias) in the form
// torch-mlir's linalg-on-tensors backend emits: weights transposed with
// linalg.transpose, zero-filled accumulators, sigmoid and the products as
// linalg.generic ops reading constants captured from the function body.
//
// Checked: sigmoid (1 / (1 + exp(-x))) in one generic and the product in
// the next fold into ug.silu; the weights enter as stored, read through
// layouts (ug.transpose).
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM

func.func @forward(%arg0: tensor<8x64xf32>, %arg1: tensor<96x64xf32>, %arg2: tensor<96x64xf32>) -> tensor<8x96xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x96xf32>
  %transposed = linalg.transpose ins(%arg1 : tensor<96x64xf32>) outs(%0 : tensor<64x96xf32>) permutation = [1, 0]
  %1 = tensor.empty() : tensor<8x96xf32>
  %2 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<8x96xf32>) -> tensor<8x96xf32>
  %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x64xf32>, tensor<64x96xf32>) outs(%2 : tensor<8x96xf32>) -> tensor<8x96xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8x96xf32>) outs(%1 : tensor<8x96xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.negf %in : f32
    %13 = math.exp %12 : f32
    %14 = arith.addf %13, %cst : f32
    %15 = arith.divf %cst, %14 : f32
    linalg.yield %15 : f32
  } -> tensor<8x96xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3, %4 : tensor<8x96xf32>, tensor<8x96xf32>) outs(%1 : tensor<8x96xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %12 = arith.mulf %in, %in_1 : f32
    linalg.yield %12 : f32
  } -> tensor<8x96xf32>
  %6 = tensor.empty() : tensor<64x96xf32>
  %transposed_2 = linalg.transpose ins(%arg2 : tensor<96x64xf32>) outs(%6 : tensor<64x96xf32>) permutation = [1, 0]
  %7 = linalg.matmul ins(%arg0, %transposed_2 : tensor<8x64xf32>, tensor<64x96xf32>) outs(%2 : tensor<8x96xf32>) -> tensor<8x96xf32>
  %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%5, %7 : tensor<8x96xf32>, tensor<8x96xf32>) outs(%1 : tensor<8x96xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %12 = arith.mulf %in, %in_1 : f32
    linalg.yield %12 : f32
  } -> tensor<8x96xf32>
  return %8 : tensor<8x96xf32>
}

// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x64xf32>, %[[W1:[^:]+]]: tensor<96x64xf32>, %[[W2:[^:]+]]: tensor<96x64xf32>)
// CHECK: call @forward_lax0(%[[X]], %[[W1]], %[[W2]]) : (tensor<8x64xf32>, tensor<96x64xf32>, tensor<96x64xf32>) -> tensor<8x96xf32>
// CHECK-LABEL: func.func private @forward_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x64xf32>, %[[W1:[^:]+]]: tensor<96x64xf32>, %[[W2:[^:]+]]: tensor<96x64xf32>) -> tensor<8x96xf32> attributes {ug.level = "kernel", ug.reference = @forward_lax0_ref} {
// CHECK-NEXT: %[[T0:.*]] = "ug.transpose"(%[[W1]]) {perm = array<i64: 1, 0>} : (tensor<96x64xf32>) -> tensor<64x96xf32>
// CHECK-NEXT: %[[T1:.*]] = "ug.transpose"(%[[W2]]) {perm = array<i64: 1, 0>} : (tensor<96x64xf32>) -> tensor<64x96xf32>
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[T0]]) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
// CHECK-NEXT: %[[SILU:.*]] = "ug.silu"(%[[MM0]]) : (tensor<8x96xf32>) -> tensor<8x96xf32>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[T1]]) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[SILU]], %[[MM1]]) : (tensor<8x96xf32>, tensor<8x96xf32>) -> tensor<8x96xf32>
// CHECK-NEXT: return %[[MUL]] : tensor<8x96xf32>
// REM: {{.*}}:17:{{[0-9]+}}: remark: mirage-lift: '@forward': lifted 1 subprogram (@forward_lax0); 0 tensor ops left in place
// REM: {{.*}}:21:{{[0-9]+}}: remark: mirage-lift: @forward_lax0: 7 ops -> kernel graph of 4 μGraph ops, 3 inputs, 1 output
// NUM-NOT: ill-conditioned
// NUM: ok
