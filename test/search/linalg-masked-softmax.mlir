// End to end, the causal, scaled stable softmax of stable-softmax.mlir's
// MASKED lines as torch-mlir's linalg backend writes it, at a smaller
// shape (2 x 64 queries x 512 keys, f16; the last 64 of 512 positions
// attend): the 1/√d scale
// and torch.where(keep, s, -inf) in one f16 generic (an arith.select in the
// body after the mulf), then softmax(x.float(), -1).half() in generics.
// The mask is computed at run time by an arith.cmpi generic on
// linalg.index (@causal_where) or passed in (@causal_where_argument).
// Each is ONE LAX subprogram (the select becomes s + A, A computed by the
// caller from the mask: test/lift/linalg-masks.mlir) and becomes ONE
// kernel; the two kernel graphs are one μGraph, searched once. mirage-run
// draws A at random like every other input, so the pairs are checked on
// random masks.
//
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false" --mirage-remarks %s -o %t 2>%t.err
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: mirage-opt --mirage-verify-ugraph %t > /dev/null
// RUN: mirage-run --range=1 %t | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --range=8 %t | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lower --range=1 %t | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lower --range=8 %t | FileCheck %s --check-prefix=NUM

// REMARK: remark: mirage-lift: '@causal_where': lifted 1 subprogram (@causal_where_lax0); 1 tensor op left in place
// REMARK: remark: mirage-lift: @causal_where_lax0: 6 ops -> kernel graph of 7 μGraph ops, 2 inputs, 1 output
// REMARK: remark: mirage-lift: '@causal_where_argument': lifted 1 subprogram (@causal_where_argument_lax0); 0 tensor ops left in place
// REMARK: remark: mirage-lift: @causal_where_argument_lax0: 6 ops -> kernel graph of 7 μGraph ops, 2 inputs, 1 output
// REMARK: remark: mirage-search: '@causal_where_lax0' replaced by a verified μGraph: 7 kernel(s) -> 1, estimated {{[0-9.]+}} us -> {{[0-9.]+}} us, roofline {{[0-9.]+}} us -> {{[0-9.]+}} us on sm_90{{$}}
// REMARK: remark: mirage-search: '@causal_where_argument_lax0' replaced by a verified μGraph: 7 kernel(s) -> 1, estimated {{[0-9.]+}} us -> {{[0-9.]+}} us, roofline {{[0-9.]+}} us -> {{[0-9.]+}} us on sm_90 (the same μGraph as '@causal_where_lax0')
// REMARK-NOT: numerically unstable

// The mask's generic stays in the caller; A is made from it just before
// the call.
// CHECK-LABEL: func.func @causal_where(
// CHECK: arith.cmpi ule
// CHECK: %[[A:[0-9]+]] = linalg.generic {{.*}} ins(%{{[0-9]+}} : tensor<64x512xi1>) outs(%{{[0-9]+}} : tensor<64x512xf16>) attrs = {ug.boundary}
// CHECK: %[[A3:.*]] = tensor.expand_shape %[[A]] {{.*}} {ug.boundary} : tensor<64x512xf16> into tensor<1x64x512xf16>
// CHECK-NEXT: call @causal_where_lax0(%arg0, %[[A3]])
// CHECK-LABEL: func.func private @causal_where_lax0_k1(%arg0: tensor<2x64x512xf16>, %arg1: tensor<1x64x512xf16>)
// CHECK-NEXT: %[[X:[0-9]+]] = "ug.iterator"(%arg0)
// CHECK-NEXT: %[[A:[0-9]+]] = "ug.iterator"(%arg1)
// CHECK-NEXT: %[[SS:[0-9]+]] = "ug.mul_scalar"(%[[X]]) {scalar = 1.250000e-01 : f64}
// CHECK-NEXT: %[[XM:[0-9]+]] = "ug.add"(%[[A]], %[[SS]])
// CHECK-NEXT: %[[M:[0-9]+]] = "ug.reduce_max"(%[[XM]]) {dim = 2 : i64}
// CHECK-NEXT: %[[D:[0-9]+]] = "ug.sub"(%[[XM]], %[[M]])
// CHECK-NEXT: %[[E:[0-9]+]] = "ug.exp"(%[[D]])
// CHECK-NEXT: %[[S:[0-9]+]] = "ug.sum"(%[[E]]) {dim = 2 : i64}
// CHECK-NEXT: %[[Q:[0-9]+]] = "ug.div"(%[[E]], %[[S]])
// CHECK-NEXT: "ug.saver"(%[[Q]])
// CHECK-LABEL: func.func private @causal_where_lax0(
// CHECK-NEXT: %[[Y:[0-9]+]] = "ug.custom"(%arg0, %arg1) {kernel = @causal_where_lax0_k1,
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @causal_where_argument(
// CHECK-SAME: %[[KEEP:[^:]+]]: tensor<64x512xi1>)
// CHECK: linalg.generic {{.*}} ins(%[[KEEP]] : tensor<64x512xi1>) {{.*}} attrs = {ug.boundary}
// CHECK: call @causal_where_argument_lax0(%arg0, %{{.*}})
// CHECK-LABEL: func.func private @causal_where_argument_lax0(
// CHECK-NEXT: %[[Y:[0-9]+]] = "ug.custom"(%arg0, %arg1) {kernel = @causal_where_argument_lax0_k1,
// CHECK-NEXT: return %[[Y]]

// NUM: @causal_where_lax0: 1 output, 65536 elements, max abs error {{.*}}: ok
// NUM-NEXT: @causal_where_argument_lax0: 1 output, 65536 elements, max abs error {{.*}}: ok
// NUM-NOT: {{MISMATCH|OVERFLOW|ill-conditioned|nan|inf}}

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#rows = affine_map<(d0, d1, d2) -> (d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @causal_where(%s: tensor<2x64x512xf16>) -> tensor<2x64x512xf16> {
  %cst = arith.constant 1.250000e-01 : f16
  %cst_0 = arith.constant 0xFC00 : f16
  %cst_1 = arith.constant 0xFF800000 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x512xi1>
  %keep = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<64x512xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c448 = arith.constant 448 : index
    %last = arith.addi %i, %c448 : index
    %le = arith.cmpi ule, %j, %last : index
    linalg.yield %le : i1
  } -> tensor<64x512xi1>
  %0 = tensor.empty() : tensor<2x64x512xf16>
  %1 = linalg.generic {indexing_maps = [#rows, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%keep, %s : tensor<64x512xi1>, tensor<2x64x512xf16>) outs(%0 : tensor<2x64x512xf16>) {
  ^bb0(%in: i1, %in_3: f16, %out: f16):
    %10 = arith.mulf %in_3, %cst : f16
    %11 = arith.select %in, %10, %cst_0 : f16
    linalg.yield %11 : f16
  } -> tensor<2x64x512xf16>
  %2 = tensor.empty() : tensor<2x64x512xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<2x64x512xf16>) outs(%2 : tensor<2x64x512xf32>) {
  ^bb0(%in: f16, %out: f32):
    %10 = arith.extf %in : f16 to f32
    linalg.yield %10 : f32
  } -> tensor<2x64x512xf32>
  %4 = tensor.empty() : tensor<2x64x1xf32>
  %5 = linalg.fill ins(%cst_1 : f32) outs(%4 : tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%3 : tensor<2x64x512xf32>) outs(%5 : tensor<2x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %10 = arith.maximumf %in, %out : f32
    linalg.yield %10 : f32
  } -> tensor<2x64x1xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %6 : tensor<2x64x512xf32>, tensor<2x64x1xf32>) outs(%2 : tensor<2x64x512xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %10 = arith.subf %in, %in_3 : f32
    %11 = math.exp %10 : f32
    linalg.yield %11 : f32
  } -> tensor<2x64x512xf32>
  %8 = linalg.fill ins(%cst_2 : f32) outs(%4 : tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %9 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%7 : tensor<2x64x512xf32>) outs(%8 : tensor<2x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %10 = arith.addf %in, %out : f32
    linalg.yield %10 : f32
  } -> tensor<2x64x1xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %9 : tensor<2x64x512xf32>, tensor<2x64x1xf32>) outs(%0 : tensor<2x64x512xf16>) {
  ^bb0(%in: f32, %in_3: f32, %out: f16):
    %11 = arith.divf %in, %in_3 : f32
    %12 = arith.truncf %11 : f32 to f16
    linalg.yield %12 : f16
  } -> tensor<2x64x512xf16>
  return %10 : tensor<2x64x512xf16>
}

func.func @causal_where_argument(%s: tensor<2x64x512xf16>, %keep: tensor<64x512xi1>) -> tensor<2x64x512xf16> {
  %cst = arith.constant 1.250000e-01 : f16
  %cst_0 = arith.constant 0xFC00 : f16
  %cst_1 = arith.constant 0xFF800000 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x64x512xf16>
  %1 = linalg.generic {indexing_maps = [#rows, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%keep, %s : tensor<64x512xi1>, tensor<2x64x512xf16>) outs(%0 : tensor<2x64x512xf16>) {
  ^bb0(%in: i1, %in_3: f16, %out: f16):
    %10 = arith.mulf %in_3, %cst : f16
    %11 = arith.select %in, %10, %cst_0 : f16
    linalg.yield %11 : f16
  } -> tensor<2x64x512xf16>
  %2 = tensor.empty() : tensor<2x64x512xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<2x64x512xf16>) outs(%2 : tensor<2x64x512xf32>) {
  ^bb0(%in: f16, %out: f32):
    %10 = arith.extf %in : f16 to f32
    linalg.yield %10 : f32
  } -> tensor<2x64x512xf32>
  %4 = tensor.empty() : tensor<2x64x1xf32>
  %5 = linalg.fill ins(%cst_1 : f32) outs(%4 : tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%3 : tensor<2x64x512xf32>) outs(%5 : tensor<2x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %10 = arith.maximumf %in, %out : f32
    linalg.yield %10 : f32
  } -> tensor<2x64x1xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %6 : tensor<2x64x512xf32>, tensor<2x64x1xf32>) outs(%2 : tensor<2x64x512xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %10 = arith.subf %in, %in_3 : f32
    %11 = math.exp %10 : f32
    linalg.yield %11 : f32
  } -> tensor<2x64x512xf32>
  %8 = linalg.fill ins(%cst_2 : f32) outs(%4 : tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %9 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%7 : tensor<2x64x512xf32>) outs(%8 : tensor<2x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %10 = arith.addf %in, %out : f32
    linalg.yield %10 : f32
  } -> tensor<2x64x1xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %9 : tensor<2x64x512xf32>, tensor<2x64x1xf32>) outs(%0 : tensor<2x64x512xf16>) {
  ^bb0(%in: f32, %in_3: f32, %out: f16):
    %11 = arith.divf %in, %in_3 : f32
    %12 = arith.truncf %11 : f32 to f16
    linalg.yield %12 : f16
  } -> tensor<2x64x512xf16>
  return %10 : tensor<2x64x512xf16>
}
