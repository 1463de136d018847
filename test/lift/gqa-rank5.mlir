// Grouped-query attention written with head groups, rank 5, as torch-mlir's
// TOSA backend (and ONNX importers) emit it: 8 query heads share 2 KV heads,
// so Q [1,8,s,d] is reshaped to [1,2,4,s,d] (kv_heads, group); K gets a unit
// group dim and is transposed; the broadcast over the group is folded into
// the rows of rank-3 tosa.matmuls ([2,4s,d] x [2,d,s]); the scores are
// reshaped back to rank 5 for the scaled, stable softmax; P·V the same way;
// the heads merged again. f16 data, tosa.matmul's f32 results cast back.
// Each function lifts as ONE subprogram whose kernel graph computes at
// rank 5 (the μGraph limit is 6); K and V enter through unit-dim views and
// K through an input layout (ug.transpose of the argument as stored).
// @gqa_head_groups keeps rank 4 at its boundary; @gqa_groups_masked takes
// Q, an additive mask broadcast over heads and groups, and returns its
// result at rank 5, with the softmax in f32.
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// The numbers: the kernel graph (interpreter) against the original ops
// (JIT), then the lowering's CPU form against the interpreter.
// RUN: mirage-run --lift --range=1 %s | FileCheck %s --check-prefix=VAL
// RUN: mirage-opt --mirage-lift %s -o %t.lifted
// RUN: mirage-run --lower --range=1 %t.lifted | FileCheck %s --check-prefix=VAL
// The search's kernels (block graphs whose tiles are rank 5) agree too,
// and lower to GPU kernels.
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false" %t.lifted -o %t.searched
// RUN: mirage-opt --mirage-verify-ugraph %t.searched > /dev/null
// RUN: mirage-run --range=1 %t.searched | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --lower --range=1 %t.searched | FileCheck %s --check-prefix=VAL
// RUN: mirage-opt --mirage-lower="ptx=false" %t.searched | FileCheck %s --check-prefix=GPU
//
// REM: '@gqa_head_groups': lifted 1 subprogram (@gqa_head_groups_lax0); 0 tensor ops left in place
// REM: @gqa_head_groups_lax0: 21 ops -> kernel graph of 8 μGraph ops, 3 inputs, 1 output
// REM: '@gqa_groups_masked': lifted 1 subprogram (@gqa_groups_masked_lax0); 0 tensor ops left in place
// REM: @gqa_groups_masked_lax0: 19 ops -> kernel graph of 9 μGraph ops, 4 inputs, 1 output
// REM: module: 40 of 40 tensor ops lifted (100.0 %) into 2 subprograms
//
// VAL: @gqa_head_groups_lax0: 1 output, 16384 elements, max abs error {{.*}}: ok
// VAL-NEXT: @gqa_groups_masked_lax0: 1 output, 4096 elements, max abs error {{.*}}: ok
// VAL-NOT: {{MISMATCH|OVERFLOW|ill-conditioned}}
//
// GPU: gpu.module @
// GPU-NOT: "ug.

// The call passes Q as it is and K, V without their unit head-group dim;
// the kernel graph reshapes Q straight to the matmul's rows (the rank-5
// reshape in between folds away), computes the softmax on rank-5 scores
// and merges the heads with one reshape.
// CHECK-LABEL: func.func @gqa_head_groups(
// CHECK-DAG: %[[K:.*]] = tensor.collapse_shape %arg1 {{\[}}[0, 1], [2], [3]] {ug.boundary} : tensor<1x2x32x64xf16> into tensor<2x32x64xf16>
// CHECK-DAG: %[[V:.*]] = tensor.collapse_shape %arg2 {{\[}}[0, 1], [2], [3]] {ug.boundary} : tensor<1x2x32x64xf16> into tensor<2x32x64xf16>
// CHECK: %[[R:.*]] = call @gqa_head_groups_lax0(%arg0, %[[K]], %[[V]])
// CHECK-NEXT: return %[[R]] : tensor<1x8x32x64xf16>
// CHECK-LABEL: func.func private @gqa_head_groups_lax0(
// CHECK-NEXT: %[[KT:.*]] = "ug.transpose"(%arg1) {perm = array<i64: 0, 2, 1>} : (tensor<2x32x64xf16>) -> tensor<2x64x32xf16>
// CHECK-NEXT: %[[Q:.*]] = "ug.reshape"(%arg0) : (tensor<1x8x32x64xf16>) -> tensor<2x128x64xf16>
// CHECK-NEXT: %[[QK:.*]] = "ug.matmul"(%[[Q]], %[[KT]]) : (tensor<2x128x64xf16>, tensor<2x64x32xf16>) -> tensor<2x128x32xf16>
// CHECK-NEXT: %[[S:.*]] = "ug.reshape"(%[[QK]]) : (tensor<2x128x32xf16>) -> tensor<1x2x4x32x32xf16>
// CHECK-NEXT: %[[SS:.*]] = "ug.mul_scalar"(%[[S]]) {scalar = 1.250000e-01 : f64} : (tensor<1x2x4x32x32xf16>) -> tensor<1x2x4x32x32xf16>
// CHECK-NEXT: %[[M:.*]] = "ug.reduce_max"(%[[SS]]) {dim = 4 : i64} : (tensor<1x2x4x32x32xf16>) -> tensor<1x2x4x32x1xf16>
// CHECK-NEXT: %[[D:.*]] = "ug.sub"(%[[SS]], %[[M]]) : (tensor<1x2x4x32x32xf16>, tensor<1x2x4x32x1xf16>) -> tensor<1x2x4x32x32xf16>
// CHECK-NEXT: %[[E:.*]] = "ug.exp"(%[[D]]) : (tensor<1x2x4x32x32xf16>) -> tensor<1x2x4x32x32xf16>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[E]]) {dim = 4 : i64} : (tensor<1x2x4x32x32xf16>) -> tensor<1x2x4x32x1xf16>
// CHECK-NEXT: %[[P:.*]] = "ug.div"(%[[E]], %[[SUM]]) : (tensor<1x2x4x32x32xf16>, tensor<1x2x4x32x1xf16>) -> tensor<1x2x4x32x32xf16>
// CHECK-NEXT: %[[P3:.*]] = "ug.reshape"(%[[P]]) : (tensor<1x2x4x32x32xf16>) -> tensor<2x128x32xf16>
// CHECK-NEXT: %[[O:.*]] = "ug.matmul"(%[[P3]], %arg2) : (tensor<2x128x32xf16>, tensor<2x32x64xf16>) -> tensor<2x128x64xf16>
// CHECK-NEXT: %[[O4:.*]] = "ug.reshape"(%[[O]]) : (tensor<2x128x64xf16>) -> tensor<1x8x32x64xf16>
// CHECK-NEXT: return %[[O4]] : tensor<1x8x32x64xf16>
// CHECK-NOT: func.func private @gqa_head_groups_lax1(

func.func @gqa_head_groups(%q: tensor<1x8x32x64xf16>, %k: tensor<1x2x32x64xf16>, %v: tensor<1x2x32x64xf16>) -> tensor<1x8x32x64xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s5 = tosa.const_shape {values = dense<[1, 2, 4, 32, 64]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %q5 = tosa.reshape %q, %s5 : (tensor<1x8x32x64xf16>, !tosa.shape<5>) -> tensor<1x2x4x32x64xf16>
  %k1 = tosa.const_shape {values = dense<[1, 2, 1, 32, 64]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %k5 = tosa.reshape %k, %k1 : (tensor<1x2x32x64xf16>, !tosa.shape<5>) -> tensor<1x2x1x32x64xf16>
  %kt = tosa.transpose %k5 {perms = array<i32: 0, 1, 2, 4, 3>} : (tensor<1x2x1x32x64xf16>) -> tensor<1x2x1x64x32xf16>
  %s3q = tosa.const_shape {values = dense<[2, 128, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %q5, %s3q : (tensor<1x2x4x32x64xf16>, !tosa.shape<3>) -> tensor<2x128x64xf16>
  %s3k = tosa.const_shape {values = dense<[2, 64, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k3 = tosa.reshape %kt, %s3k : (tensor<1x2x1x64x32xf16>, !tosa.shape<3>) -> tensor<2x64x32xf16>
  %qk = tosa.matmul %q3, %k3, %zp, %zp : (tensor<2x128x64xf16>, tensor<2x64x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x128x32xf32>
  %qkh = tosa.cast %qk : (tensor<2x128x32xf32>) -> tensor<2x128x32xf16>
  %s5s = tosa.const_shape {values = dense<[1, 2, 4, 32, 32]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %sc5 = tosa.reshape %qkh, %s5s : (tensor<2x128x32xf16>, !tosa.shape<5>) -> tensor<1x2x4x32x32xf16>
  %scale = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1x1x1xf16>}> : () -> tensor<1x1x1x1x1xf16>
  %ss = tosa.mul %sc5, %scale, %shift : (tensor<1x2x4x32x32xf16>, tensor<1x1x1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x4x32x32xf16>
  %mx = tosa.reduce_max %ss {axis = 4 : i32} : (tensor<1x2x4x32x32xf16>) -> tensor<1x2x4x32x1xf16>
  %d = tosa.sub %ss, %mx : (tensor<1x2x4x32x32xf16>, tensor<1x2x4x32x1xf16>) -> tensor<1x2x4x32x32xf16>
  %e = tosa.exp %d : (tensor<1x2x4x32x32xf16>) -> tensor<1x2x4x32x32xf16>
  %sum = tosa.reduce_sum %e {axis = 4 : i32} : (tensor<1x2x4x32x32xf16>) -> tensor<1x2x4x32x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<1x2x4x32x1xf16>) -> tensor<1x2x4x32x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<1x2x4x32x32xf16>, tensor<1x2x4x32x1xf16>, tensor<1xi8>) -> tensor<1x2x4x32x32xf16>
  %s3p = tosa.const_shape {values = dense<[2, 128, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %p3 = tosa.reshape %p, %s3p : (tensor<1x2x4x32x32xf16>, !tosa.shape<3>) -> tensor<2x128x32xf16>
  %s3v = tosa.const_shape {values = dense<[2, 32, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %v3 = tosa.reshape %v, %s3v : (tensor<1x2x32x64xf16>, !tosa.shape<3>) -> tensor<2x32x64xf16>
  %o = tosa.matmul %p3, %v3, %zp, %zp : (tensor<2x128x32xf16>, tensor<2x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x128x64xf32>
  %oh = tosa.cast %o : (tensor<2x128x64xf32>) -> tensor<2x128x64xf16>
  %so5 = tosa.const_shape {values = dense<[1, 2, 4, 32, 64]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %o5 = tosa.reshape %oh, %so5 : (tensor<2x128x64xf16>, !tosa.shape<5>) -> tensor<1x2x4x32x64xf16>
  %so4 = tosa.const_shape {values = dense<[1, 8, 32, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o4 = tosa.reshape %o5, %so4 : (tensor<1x2x4x32x64xf16>, !tosa.shape<4>) -> tensor<1x8x32x64xf16>
  return %o4 : tensor<1x8x32x64xf16>
}

// Rank 5 at the boundary: Q, the mask (broadcast over kv heads and
// groups) and the result.
// CHECK-LABEL: func.func @gqa_groups_masked(
// CHECK: call @gqa_groups_masked_lax0(%arg0, %{{.*}}, %{{.*}}, %arg3) : (tensor<1x2x4x16x32xf16>, tensor<2x16x32xf16>, tensor<2x16x32xf16>, tensor<1x1x1x16x16xf32>) -> tensor<1x2x4x16x32xf16>
// CHECK-LABEL: func.func private @gqa_groups_masked_lax0(
// CHECK: "ug.reshape"(%arg0) : (tensor<1x2x4x16x32xf16>) -> tensor<2x64x32xf16>
// CHECK: "ug.matmul"({{.*}}) : (tensor<2x64x32xf16>, tensor<2x32x16xf16>) -> tensor<2x64x16xf32>
// CHECK: "ug.add"({{.*}}, %arg3) : (tensor<1x2x4x16x16xf32>, tensor<1x1x1x16x16xf32>) -> tensor<1x2x4x16x16xf32>
// CHECK: "ug.div"({{.*}}) : (tensor<1x2x4x16x16xf32>, tensor<1x2x4x16x1xf32>) -> tensor<1x2x4x16x16xf16>
// CHECK: %[[OUT:.*]] = "ug.reshape"({{.*}}) : (tensor<2x64x32xf16>) -> tensor<1x2x4x16x32xf16>
// CHECK-NEXT: return %[[OUT]] : tensor<1x2x4x16x32xf16>
// CHECK-NOT: func.func private @gqa_groups_masked_lax1(

func.func @gqa_groups_masked(%q: tensor<1x2x4x16x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>, %mask: tensor<1x1x1x16x16xf32>) -> tensor<1x2x4x16x32xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x16x32xf16>) -> tensor<1x2x32x16xf16>
  %s3q = tosa.const_shape {values = dense<[2, 64, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %q, %s3q : (tensor<1x2x4x16x32xf16>, !tosa.shape<3>) -> tensor<2x64x32xf16>
  %s3k = tosa.const_shape {values = dense<[2, 32, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k3 = tosa.reshape %kt, %s3k : (tensor<1x2x32x16xf16>, !tosa.shape<3>) -> tensor<2x32x16xf16>
  %qk = tosa.matmul %q3, %k3, %zp, %zp : (tensor<2x64x32xf16>, tensor<2x32x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x64x16xf32>
  %s5 = tosa.const_shape {values = dense<[1, 2, 4, 16, 16]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %sc = tosa.reshape %qk, %s5 : (tensor<2x64x16xf32>, !tosa.shape<5>) -> tensor<1x2x4x16x16xf32>
  %scale = "tosa.const"() <{values = dense<0.176776695> : tensor<1x1x1x1x1xf32>}> : () -> tensor<1x1x1x1x1xf32>
  %ss = tosa.mul %sc, %scale, %shift : (tensor<1x2x4x16x16xf32>, tensor<1x1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x2x4x16x16xf32>
  %sm = tosa.add %ss, %mask : (tensor<1x2x4x16x16xf32>, tensor<1x1x1x16x16xf32>) -> tensor<1x2x4x16x16xf32>
  %mx = tosa.reduce_max %sm {axis = 4 : i32} : (tensor<1x2x4x16x16xf32>) -> tensor<1x2x4x16x1xf32>
  %d = tosa.sub %sm, %mx : (tensor<1x2x4x16x16xf32>, tensor<1x2x4x16x1xf32>) -> tensor<1x2x4x16x16xf32>
  %e = tosa.exp %d : (tensor<1x2x4x16x16xf32>) -> tensor<1x2x4x16x16xf32>
  %sum = tosa.reduce_sum %e {axis = 4 : i32} : (tensor<1x2x4x16x16xf32>) -> tensor<1x2x4x16x1xf32>
  %inv = tosa.reciprocal %sum : (tensor<1x2x4x16x1xf32>) -> tensor<1x2x4x16x1xf32>
  %p = tosa.mul %e, %inv, %shift : (tensor<1x2x4x16x16xf32>, tensor<1x2x4x16x1xf32>, tensor<1xi8>) -> tensor<1x2x4x16x16xf32>
  %ph = tosa.cast %p : (tensor<1x2x4x16x16xf32>) -> tensor<1x2x4x16x16xf16>
  %s3p = tosa.const_shape {values = dense<[2, 64, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %p3 = tosa.reshape %ph, %s3p : (tensor<1x2x4x16x16xf16>, !tosa.shape<3>) -> tensor<2x64x16xf16>
  %s3v = tosa.const_shape {values = dense<[2, 16, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %v3 = tosa.reshape %v, %s3v : (tensor<1x2x16x32xf16>, !tosa.shape<3>) -> tensor<2x16x32xf16>
  %o = tosa.matmul %p3, %v3, %zp, %zp : (tensor<2x64x16xf16>, tensor<2x16x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x64x32xf32>
  %oh = tosa.cast %o : (tensor<2x64x32xf32>) -> tensor<2x64x32xf16>
  %so5 = tosa.const_shape {values = dense<[1, 2, 4, 16, 32]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %o5 = tosa.reshape %oh, %so5 : (tensor<2x64x32xf16>, !tosa.shape<5>) -> tensor<1x2x4x16x32xf16>
  return %o5 : tensor<1x2x4x16x32xf16>
}
