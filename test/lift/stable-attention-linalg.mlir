// The stable attention of stable-attention-tosa.mlir as torch-mlir's linalg
// backend writes it: linalg.batch_matmul for Q·K in f16, the 1/√d scale and
// the widening to f32 in one generic (a constant captured from the
// function), the softmax in f32 (a keepdim max generic from a -inf fill,
// sub + exp, sum, divide + truncf), P·V accumulated in f32 and truncated,
// at GQA shapes (Q 2x256x64, K 2x64x4096, V 2x4096x64) and decoding one
// token (Q 2x1x64). Each is ONE subprogram (@F_lax0 only).
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// The numbers as in stable-attention-tosa.mlir: 8 query rows and all 4096
// keys in [-1, 1]; Q 2x8x16, K 2x16x128, V 2x128x16 in [-1, 1] and [-8, 8].
// RUN: sed -e 's/x256x/x8x/g' %s > %t.rows.mlir
// RUN: mirage-run --lift --range=1 %t.rows.mlir | FileCheck %s --check-prefix=VAL
// RUN: sed -e 's/x256x/x8x/g; s/x4096x/x128x/g; s/x64x/x16x/g' %s > %t.small.mlir
// RUN: mirage-run --lift --range=1 %t.small.mlir | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --lift --range=8 %t.small.mlir | FileCheck %s --check-prefix=VAL
//
// REM: '@gqa_prefill': lifted 1 subprogram (@gqa_prefill_lax0); 0 tensor ops left in place
// REM: @gqa_prefill_lax0: 8 ops -> kernel graph of 8 μGraph ops, 3 inputs, 1 output
// REM: '@gqa_decode': lifted 1 subprogram (@gqa_decode_lax0); 0 tensor ops left in place
// REM: @gqa_decode_lax0: 8 ops -> kernel graph of 8 μGraph ops, 3 inputs, 1 output
// REM: module: 16 of 16 tensor ops lifted (100.0 %) into 2 subprograms, 8.0 μGraph ops each on average; 0 left in place{{$}}
//
// VAL: @gqa_prefill_lax0: 1 output, {{[0-9]+}} elements, max abs error {{.*}}: ok
// VAL-NEXT: @gqa_decode_lax0: 1 output, {{[0-9]+}} elements, max abs error {{.*}}: ok
// VAL-NOT: {{MISMATCH|OVERFLOW}}

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @gqa_prefill(%arg0: tensor<2x256x64xf16>, %arg1: tensor<2x64x4096xf16>, %arg2: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %cst_0 = arith.constant 1.250000e-01 : f16
  %cst_1 = arith.constant 0xFF800000 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x256x4096xf16>
  %1 = linalg.fill ins(%cst : f16) outs(%0 : tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
  %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<2x256x64xf16>, tensor<2x64x4096xf16>) outs(%1 : tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
  %3 = tensor.empty() : tensor<2x256x4096xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<2x256x4096xf16>) outs(%3 : tensor<2x256x4096xf32>) {
  ^bb0(%in: f16, %out: f32):
    %14 = arith.mulf %in, %cst_0 : f16
    %15 = arith.extf %14 : f16 to f32
    linalg.yield %15 : f32
  } -> tensor<2x256x4096xf32>
  %5 = tensor.empty() : tensor<2x256x1xf32>
  %6 = linalg.fill ins(%cst_1 : f32) outs(%5 : tensor<2x256x1xf32>) -> tensor<2x256x1xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%4 : tensor<2x256x4096xf32>) outs(%6 : tensor<2x256x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.maximumf %in, %out : f32
    linalg.yield %14 : f32
  } -> tensor<2x256x1xf32>
  %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %7 : tensor<2x256x4096xf32>, tensor<2x256x1xf32>) outs(%3 : tensor<2x256x4096xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %14 = arith.subf %in, %in_3 : f32
    %15 = math.exp %14 : f32
    linalg.yield %15 : f32
  } -> tensor<2x256x4096xf32>
  %9 = linalg.fill ins(%cst_2 : f32) outs(%5 : tensor<2x256x1xf32>) -> tensor<2x256x1xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%8 : tensor<2x256x4096xf32>) outs(%9 : tensor<2x256x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.addf %in, %out : f32
    linalg.yield %14 : f32
  } -> tensor<2x256x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %10 : tensor<2x256x4096xf32>, tensor<2x256x1xf32>) outs(%0 : tensor<2x256x4096xf16>) {
  ^bb0(%in: f32, %in_3: f32, %out: f16):
    %14 = arith.divf %in, %in_3 : f32
    %15 = arith.truncf %14 : f32 to f16
    linalg.yield %15 : f16
  } -> tensor<2x256x4096xf16>
  %12 = tensor.empty() : tensor<2x256x64xf32>
  %cst_4 = arith.constant 0.000000e+00 : f32
  %13 = linalg.fill ins(%cst_4 : f32) outs(%12 : tensor<2x256x64xf32>) -> tensor<2x256x64xf32>
  %14 = linalg.batch_matmul ins(%11, %arg2 : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>) outs(%13 : tensor<2x256x64xf32>) -> tensor<2x256x64xf32>
  %15 = tensor.empty() : tensor<2x256x64xf16>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14 : tensor<2x256x64xf32>) outs(%15 : tensor<2x256x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %17 = arith.truncf %in : f32 to f16
    linalg.yield %17 : f16
  } -> tensor<2x256x64xf16>
  return %16 : tensor<2x256x64xf16>
}

func.func @gqa_decode(%arg0: tensor<2x1x64xf16>, %arg1: tensor<2x64x4096xf16>, %arg2: tensor<2x4096x64xf16>) -> tensor<2x1x64xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %cst_0 = arith.constant 1.250000e-01 : f16
  %cst_1 = arith.constant 0xFF800000 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x1x4096xf16>
  %1 = linalg.fill ins(%cst : f16) outs(%0 : tensor<2x1x4096xf16>) -> tensor<2x1x4096xf16>
  %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<2x1x64xf16>, tensor<2x64x4096xf16>) outs(%1 : tensor<2x1x4096xf16>) -> tensor<2x1x4096xf16>
  %3 = tensor.empty() : tensor<2x1x4096xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<2x1x4096xf16>) outs(%3 : tensor<2x1x4096xf32>) {
  ^bb0(%in: f16, %out: f32):
    %14 = arith.mulf %in, %cst_0 : f16
    %15 = arith.extf %14 : f16 to f32
    linalg.yield %15 : f32
  } -> tensor<2x1x4096xf32>
  %5 = tensor.empty() : tensor<2x1x1xf32>
  %6 = linalg.fill ins(%cst_1 : f32) outs(%5 : tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%4 : tensor<2x1x4096xf32>) outs(%6 : tensor<2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.maximumf %in, %out : f32
    linalg.yield %14 : f32
  } -> tensor<2x1x1xf32>
  %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %7 : tensor<2x1x4096xf32>, tensor<2x1x1xf32>) outs(%3 : tensor<2x1x4096xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %14 = arith.subf %in, %in_3 : f32
    %15 = math.exp %14 : f32
    linalg.yield %15 : f32
  } -> tensor<2x1x4096xf32>
  %9 = linalg.fill ins(%cst_2 : f32) outs(%5 : tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%8 : tensor<2x1x4096xf32>) outs(%9 : tensor<2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.addf %in, %out : f32
    linalg.yield %14 : f32
  } -> tensor<2x1x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %10 : tensor<2x1x4096xf32>, tensor<2x1x1xf32>) outs(%0 : tensor<2x1x4096xf16>) {
  ^bb0(%in: f32, %in_3: f32, %out: f16):
    %14 = arith.divf %in, %in_3 : f32
    %15 = arith.truncf %14 : f32 to f16
    linalg.yield %15 : f16
  } -> tensor<2x1x4096xf16>
  %12 = tensor.empty() : tensor<2x1x64xf32>
  %cst_4 = arith.constant 0.000000e+00 : f32
  %13 = linalg.fill ins(%cst_4 : f32) outs(%12 : tensor<2x1x64xf32>) -> tensor<2x1x64xf32>
  %14 = linalg.batch_matmul ins(%11, %arg2 : tensor<2x1x4096xf16>, tensor<2x4096x64xf16>) outs(%13 : tensor<2x1x64xf32>) -> tensor<2x1x64xf32>
  %15 = tensor.empty() : tensor<2x1x64xf16>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14 : tensor<2x1x64xf32>) outs(%15 : tensor<2x1x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %17 = arith.truncf %in : f32 to f16
    linalg.yield %17 : f16
  } -> tensor<2x1x64xf16>
  return %16 : tensor<2x1x64xf16>
}

// CHECK-LABEL: func.func @gqa_prefill(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x256x64xf16>, %[[K:[^:]+]]: tensor<2x64x4096xf16>, %[[V:[^:]+]]: tensor<2x4096x64xf16>)
// CHECK: call @gqa_prefill_lax0(%[[Q]], %[[K]], %[[V]]) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
// CHECK-LABEL: func.func private @gqa_prefill_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x256x64xf16>, %[[K:[^:]+]]: tensor<2x64x4096xf16>, %[[V:[^:]+]]: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> attributes {ug.level = "kernel", ug.reference = @gqa_prefill_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[Q]], %[[K]]) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[MM0]]) {scalar = 1.250000e-01 : f64} : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[MULS]]) {dim = 2 : i64} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf32>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[MULS]], %[[MAX]]) : (tensor<2x256x4096xf16>, tensor<2x256x1xf32>) -> tensor<2x256x4096xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[SUB]]) : (tensor<2x256x4096xf32>) -> tensor<2x256x4096xf32>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x256x4096xf32>) -> tensor<2x256x1xf32>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]]) : (tensor<2x256x4096xf32>, tensor<2x256x1xf32>) -> tensor<2x256x4096xf32>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[DIV]], %[[V]]) : (tensor<2x256x4096xf32>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: return %[[MM1]] : tensor<2x256x64xf16>
// CHECK-LABEL: func.func @gqa_decode(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x1x64xf16>, %[[K:[^:]+]]: tensor<2x64x4096xf16>, %[[V:[^:]+]]: tensor<2x4096x64xf16>)
// CHECK: call @gqa_decode_lax0(%[[Q]], %[[K]], %[[V]]) : (tensor<2x1x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x1x64xf16>
// CHECK-LABEL: func.func private @gqa_decode_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x1x64xf16>, %[[K:[^:]+]]: tensor<2x64x4096xf16>, %[[V:[^:]+]]: tensor<2x4096x64xf16>) -> tensor<2x1x64xf16> attributes {ug.level = "kernel", ug.reference = @gqa_decode_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[Q]], %[[K]]) : (tensor<2x1x64xf16>, tensor<2x64x4096xf16>) -> tensor<2x1x4096xf16>
// CHECK-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[MM0]]) {scalar = 1.250000e-01 : f64} : (tensor<2x1x4096xf16>) -> tensor<2x1x4096xf16>
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[MULS]]) {dim = 2 : i64} : (tensor<2x1x4096xf16>) -> tensor<2x1x1xf32>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[MULS]], %[[MAX]]) : (tensor<2x1x4096xf16>, tensor<2x1x1xf32>) -> tensor<2x1x4096xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[SUB]]) : (tensor<2x1x4096xf32>) -> tensor<2x1x4096xf32>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x1x4096xf32>) -> tensor<2x1x1xf32>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]]) : (tensor<2x1x4096xf32>, tensor<2x1x1xf32>) -> tensor<2x1x4096xf32>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[DIV]], %[[V]]) : (tensor<2x1x4096xf32>, tensor<2x4096x64xf16>) -> tensor<2x1x64xf16>
// CHECK-NEXT: return %[[MM1]] : tensor<2x1x64xf16>
