// Attention without max-subtraction (the paper's GQA form), as torch-mlir's
// linalg backend emits `p = exp(q @ k.transpose(1, 2) * s); p / p.sum(-1,
// keepdim=True) @ v`: the keepdim sum is a reduction generic whose output map
// keeps the reduced dim as a constant 0, and an RMS scale of v written with
// linalg.reduce + tensor.expand_shape.
//
// Checked: the keepdim reduction generic (output map with a constant 0),
// linalg.reduce + tensor.expand_shape, broadcast generics, a scale by a
// constant captured from the function body, and the K transpose of an
// argument (an input read through a layout) all lift into one kernel graph.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM

func.func @forward(%arg0: tensor<2x4x8xf32>, %arg1: tensor<2x16x8xf32>, %arg2: tensor<2x16x8xf32>) -> tensor<2x4x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0.35355339059327373 : f32
  %cst_1 = arith.constant 8.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x8x16xf32>
  %transposed = linalg.transpose ins(%arg1 : tensor<2x16x8xf32>) outs(%0 : tensor<2x8x16xf32>) permutation = [0, 2, 1]
  %1 = tensor.empty() : tensor<2x4x16xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %3 = linalg.batch_matmul ins(%arg0, %transposed : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%2 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3 : tensor<2x4x16xf32>) outs(%1 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %20 = arith.mulf %in, %cst_0 : f32
    %21 = math.exp %20 : f32
    linalg.yield %21 : f32
  } -> tensor<2x4x16xf32>
  %5 = tensor.empty() : tensor<2x4x1xf32>
  %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%4 : tensor<2x4x16xf32>) outs(%6 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %20 = arith.addf %in, %out : f32
    linalg.yield %20 : f32
  } -> tensor<2x4x1xf32>
  %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %7 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%1 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %20 = arith.divf %in, %in_2 : f32
    linalg.yield %20 : f32
  } -> tensor<2x4x16xf32>
  %9 = tensor.empty() : tensor<2x16x8xf32>
  %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2 : tensor<2x16x8xf32>) outs(%9 : tensor<2x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %20 = arith.mulf %in, %in : f32
    linalg.yield %20 : f32
  } -> tensor<2x16x8xf32>
  %11 = tensor.empty() : tensor<2x16xf32>
  %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %reduced = linalg.reduce ins(%10 : tensor<2x16x8xf32>) outs(%12 : tensor<2x16xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %20 = arith.addf %in, %init : f32
      linalg.yield %20 : f32
    }
  %expanded = tensor.expand_shape %reduced [[0], [1, 2]] output_shape [2, 16, 1] : tensor<2x16xf32> into tensor<2x16x1xf32>
  %13 = tensor.empty() : tensor<2x16x1xf32>
  %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded : tensor<2x16x1xf32>) outs(%13 : tensor<2x16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %20 = arith.divf %in, %cst_1 : f32
    %21 = math.rsqrt %20 : f32
    linalg.yield %21 : f32
  } -> tensor<2x16x1xf32>
  %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2, %14 : tensor<2x16x8xf32>, tensor<2x16x1xf32>) outs(%9 : tensor<2x16x8xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %20 = arith.mulf %in, %in_2 : f32
    linalg.yield %20 : f32
  } -> tensor<2x16x8xf32>
  %16 = tensor.empty() : tensor<2x4x8xf32>
  %17 = linalg.fill ins(%cst : f32) outs(%16 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %18 = linalg.batch_matmul ins(%8, %15 : tensor<2x4x16xf32>, tensor<2x16x8xf32>) outs(%17 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %18 : tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x8xf32>, %[[K:[^:]+]]: tensor<2x16x8xf32>, %[[V:[^:]+]]: tensor<2x16x8xf32>)
// CHECK: call @forward_lax0(%[[Q]], %[[K]], %[[V]]) : (tensor<2x4x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
// CHECK-LABEL: func.func private @forward_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x8xf32>, %[[K:[^:]+]]: tensor<2x16x8xf32>, %[[V:[^:]+]]: tensor<2x16x8xf32>) -> tensor<2x4x8xf32> attributes {ug.level = "kernel", ug.reference = @forward_lax0_ref} {
// CHECK-NEXT: %[[T:.*]] = "ug.transpose"(%[[K]]) {perm = array<i64: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[Q]], %[[T]]) : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[MM0]]) {scalar = 0.35355338454246521 : f64} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MULS]]) : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: %[[SUM0:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x4x16xf32>) -> tensor<2x4x1xf32>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM0]]) : (tensor<2x4x16xf32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: %[[SQ:.*]] = "ug.square"(%[[V]]) : (tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
// CHECK-NEXT: %[[SUM1:.*]] = "ug.sum"(%[[SQ]]) {dim = 2 : i64} : (tensor<2x16x8xf32>) -> tensor<2x16x1xf32>
// CHECK-NEXT: %[[DIVS:.*]] = "ug.div_scalar"(%[[SUM1]]) {scalar = 8.000000e+00 : f64} : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[DIVS]]) : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[V]], %[[RSQRT]]) : (tensor<2x16x8xf32>, tensor<2x16x1xf32>) -> tensor<2x16x8xf32>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[DIV]], %[[MUL]]) : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: return %[[MM1]] : tensor<2x4x8xf32>
// REM: {{.*}}:19:{{[0-9]+}}: remark: mirage-lift: '@forward': lifted 1 subprogram (@forward_lax0); 0 tensor ops left in place
// REM: {{.*}}:24:{{[0-9]+}}: remark: mirage-lift: @forward_lax0: 11 ops -> kernel graph of 11 μGraph ops, 3 inputs, 1 output
// NUM-NOT: ill-conditioned
// NUM: ok
