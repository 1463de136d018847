// Inputs read with other unit dims than their IR type: a rank-1 bias or
// norm weight broadcast against a rank-3 activation (TOSA's reshape to
// 1x1xD, linalg's (d0, d1, d2) -> (d2) map) and a 2-D weight wrapped to
// rank 3 for tosa.matmul. The kernel graph reads a 1x1xD / 1xKxN input;
// the call passes the IR value through tensor.expand_shape {ug.boundary}
// (a view), the reference starts with the inverse tensor.collapse_shape,
// and unlift drops both, so the round trip is exact.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// The superoptimized kernels (lowered on the CPU) agree too, and the whole
// pipeline to PTX accepts the reshapes left in the caller.
// RUN: mirage-opt --mirage-superopt="lower=false cache=false time-budget-s=0" %s > %t.opt
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=LOWER
// RUN: mirage-opt --mirage-superopt="cache=false time-budget-s=0 ptx=false" %s | FileCheck %s --check-prefix=HOST

// CHECK-LABEL: func.func @dense_bias_tosa(
// CHECK-DAG: %[[W:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2]] output_shape [1, 32, 16] {ug.boundary} : tensor<32x16xf32> into tensor<1x32x16xf32>
// CHECK-DAG: %[[B:.*]] = tensor.expand_shape %arg2 {{\[\[}}0, 1, 2]] output_shape [1, 1, 16] {ug.boundary} : tensor<16xf32> into tensor<1x1x16xf32>
// CHECK: call @dense_bias_tosa_lax0(%arg0, %[[W]], %[[B]])
// CHECK-LABEL: func.func private @dense_bias_tosa_lax0(%arg0: tensor<1x8x32xf32>, %arg1: tensor<1x32x16xf32>, %arg2: tensor<1x1x16xf32>)
// CHECK-NEXT: "ug.matmul"(%arg0, %arg1)
// CHECK-NEXT: "ug.add"
// CHECK-LABEL: func.func private @dense_bias_tosa_lax0_ref(
// CHECK-NEXT: tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2]] {ug.boundary} : tensor<1x32x16xf32> into tensor<32x16xf32>
// CHECK-NEXT: tensor.collapse_shape %arg2 {{\[\[}}0, 1, 2]] {ug.boundary} : tensor<1x1x16xf32> into tensor<16xf32>
// CHECK-LABEL: func.func @scale_linalg(
// CHECK: %[[G:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1, 2]] output_shape [1, 1, 16] {ug.boundary}
// CHECK-NEXT: call @scale_linalg_lax0(%arg0, %[[G]])
// CHECK-LABEL: func.func private @scale_linalg_lax0(%arg0: tensor<2x4x16xf32>, %arg1: tensor<1x1x16xf32>)

// REM-NOT: is not lifted
// REM: module: 7 of 7 tensor ops lifted (100.0 %) into 3 subprograms
// NUM-COUNT-3: : ok
// LOWER-NOT: mismatch
// LOWER: ok
// HOST-LABEL: func.func @dense_bias_tosa(
// HOST: tensor.expand_shape %arg1 {{.*}} {ug.boundary}

func.func @dense_bias_tosa(%x: tensor<1x8x32xf32>, %w: tensor<32x16xf32>, %b: tensor<16xf32>) -> tensor<1x8x16xf32> {
  %s3 = tosa.const_shape {values = dense<[1, 32, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %w, %s3 : (tensor<32x16xf32>, !tosa.shape<3>) -> tensor<1x32x16xf32>
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %w3, %zp, %zp : (tensor<1x8x32xf32>, tensor<1x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %sb = tosa.const_shape {values = dense<[1, 1, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %b3 = tosa.reshape %b, %sb : (tensor<16xf32>, !tosa.shape<3>) -> tensor<1x1x16xf32>
  %o = tosa.add %y, %b3 : (tensor<1x8x16xf32>, tensor<1x1x16xf32>) -> tensor<1x8x16xf32>
  %e = tosa.exp %o : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  return %e : tensor<1x8x16xf32>
}

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d2)>
func.func @scale_linalg(%x: tensor<2x4x16xf32>, %g: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %e = tensor.empty() : tensor<2x4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %g : tensor<2x4x16xf32>, tensor<16xf32>) outs(%e : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %t = math.exp %m : f32
    linalg.yield %t : f32
  } -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// A 16x1 column of scales read as 1x1x16: no single expand or collapse
// does it, so the call collapses to the non-unit dims and expands back.
#col = affine_map<(d0, d1, d2) -> (d2, 0)>
func.func @column_scale(%x: tensor<2x4x16xf32>, %g: tensor<16x1xf32>) -> tensor<2x4x16xf32> {
  %e = tensor.empty() : tensor<2x4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %g : tensor<2x4x16xf32>, tensor<16x1xf32>) outs(%e : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %t = math.exp %m : f32
    linalg.yield %t : f32
  } -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}
// CHECK-LABEL: func.func @column_scale(
// CHECK: %[[C:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] {ug.boundary} : tensor<16x1xf32> into tensor<16xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1, 2]] output_shape [1, 1, 16] {ug.boundary} : tensor<16xf32> into tensor<1x1x16xf32>
// CHECK-NEXT: call @column_scale_lax0(%arg0, %[[E]])
// CHECK-LABEL: func.func private @column_scale_lax0_ref(
// CHECK-NEXT: tensor.collapse_shape %arg1 {{\[\[}}0, 1, 2]] {ug.boundary} : tensor<1x1x16xf32> into tensor<16xf32>
// CHECK-NEXT: tensor.expand_shape {{.*}} {{\[\[}}0, 1]] output_shape [16, 1] {ug.boundary} : tensor<16xf32> into tensor<16x1xf32>
