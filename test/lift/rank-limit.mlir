// The μGraph rank limit (8, MG_MAX_DIMS; 6 until issue 30) as the lifter
// meets it. Rank-6 and rank-7 values lift like any other, at the kernel
// graph's boundary too (exporters write rank-7 views around grouped
// attention); a view that only adds unit dims keeps the μGraph tensor's
// rank; IR values of rank 9 (beyond what the lifter reads) are left in
// place with a remark saying so, and the module passes through unchanged
// there.
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=VAL
// RUN: mirage-opt --mirage-lift %s -o %t.lifted
// RUN: mirage-run --lower %t.lifted | FileCheck %s --check-prefix=VAL
// RUN: mirage-opt --mirage-superopt="cache=false time-budget-s=0 target=sm_80" %s | FileCheck %s --check-prefix=PTX
//
// REM: '@rmsnorm_rank6': lifted 1 subprogram (@rmsnorm_rank6_lax0); 0 tensor ops left in place
// REM: '@rank7_unit_view': lifted 1 subprogram (@rank7_unit_view_lax0); 0 tensor ops left in place
// REM: '@rank7_argument': lifted 1 subprogram (@rank7_argument_lax0); 0 tensor ops left in place
// REM: '@rank7_split': lifted 1 subprogram (@rank7_split_lax0); 0 tensor ops left in place
// REM: '@rank9_argument': nothing lifted; 1 tensor op left in place
// REM: 'tosa.exp' is not lifted: operand 0 has more than 8 dims
//
// VAL: @rmsnorm_rank6_lax0: 1 output, 6144 elements, max abs error {{.*}}: ok
// VAL-NEXT: @rank7_unit_view_lax0: 1 output, 288 elements, max abs error {{.*}}: ok
// VAL-NEXT: @rank7_argument_lax0: 1 output, 32 elements, max abs error {{.*}}: ok
// VAL-NEXT: @rank7_split_lax0: 2 outputs, 432 elements, max abs error {{.*}}: ok
// VAL-NEXT: @rank7_fused_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// VAL-NOT: {{MISMATCH|OVERFLOW}}
// The rank-7 kernel graphs reach PTX (rank-7 memrefs in the host code).
// PTX: gpu.binary @rank7_fused_lax0_gpu

// RMSNorm over the last dim of rank-6 f16 activations with a rank-1
// weight (entering as 1x1x1x1x1x64), the statistics in f32.
// CHECK-LABEL: func.func private @rmsnorm_rank6_lax0(%arg0: tensor<2x3x2x2x4x64xf16>, %arg1: tensor<1x1x1x1x1x64xf16>) -> tensor<2x3x2x2x4x64xf16>
// CHECK: "ug.sum"({{.*}}) {dim = 5 : i64} : (tensor<2x3x2x2x4x64xf32>) -> tensor<2x3x2x2x4x1xf32>
// CHECK: "ug.rsqrt"({{.*}}) : (tensor<2x3x2x2x4x1xf32>) -> tensor<2x3x2x2x4x1xf32>
// CHECK: "ug.mul"({{.*}}, %arg1) : (tensor<2x3x2x2x4x64xf16>, tensor<1x1x1x1x1x64xf16>) -> tensor<2x3x2x2x4x64xf16>
func.func @rmsnorm_rank6(%x: tensor<2x3x2x2x4x64xf16>, %w: tensor<64xf16>) -> tensor<2x3x2x2x4x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %xf = tosa.cast %x : (tensor<2x3x2x2x4x64xf16>) -> tensor<2x3x2x2x4x64xf32>
  %sq = tosa.mul %xf, %xf, %shift : (tensor<2x3x2x2x4x64xf32>, tensor<2x3x2x2x4x64xf32>, tensor<1xi8>) -> tensor<2x3x2x2x4x64xf32>
  %ss = tosa.reduce_sum %sq {axis = 5 : i32} : (tensor<2x3x2x2x4x64xf32>) -> tensor<2x3x2x2x4x1xf32>
  %n = "tosa.const"() <{values = dense<1.562500e-02> : tensor<1x1x1x1x1x1xf32>}> : () -> tensor<1x1x1x1x1x1xf32>
  %mean = tosa.mul %ss, %n, %shift : (tensor<2x3x2x2x4x1xf32>, tensor<1x1x1x1x1x1xf32>, tensor<1xi8>) -> tensor<2x3x2x2x4x1xf32>
  %r = tosa.rsqrt %mean : (tensor<2x3x2x2x4x1xf32>) -> tensor<2x3x2x2x4x1xf32>
  %y = tosa.mul %xf, %r, %shift : (tensor<2x3x2x2x4x64xf32>, tensor<2x3x2x2x4x1xf32>, tensor<1xi8>) -> tensor<2x3x2x2x4x64xf32>
  %yh = tosa.cast %y : (tensor<2x3x2x2x4x64xf32>) -> tensor<2x3x2x2x4x64xf16>
  %s6 = tosa.const_shape {values = dense<[1, 1, 1, 1, 1, 64]> : tensor<6xindex>} : () -> !tosa.shape<6>
  %w6 = tosa.reshape %w, %s6 : (tensor<64xf16>, !tosa.shape<6>) -> tensor<1x1x1x1x1x64xf16>
  %o = tosa.mul %yh, %w6, %shift : (tensor<2x3x2x2x4x64xf16>, tensor<1x1x1x1x1x64xf16>, tensor<1xi8>) -> tensor<2x3x2x2x4x64xf16>
  return %o : tensor<2x3x2x2x4x64xf16>
}

// A rank-7 view that only adds a unit dim: the kernel graph stays rank 6.
// CHECK-LABEL: func.func private @rank7_unit_view_lax0(%arg0: tensor<2x3x2x3x2x4xf32>, %arg1: tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x2x4xf32>
// CHECK-NEXT: %[[E:.*]] = "ug.exp"(%arg0) : (tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x2x4xf32>
// CHECK-NEXT: %[[S:.*]] = "ug.add"(%[[E]], %arg1) : (tensor<2x3x2x3x2x4xf32>, tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x2x4xf32>
// CHECK-NEXT: return %[[S]]
func.func @rank7_unit_view(%x: tensor<2x3x2x3x2x4xf32>, %y: tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x2x4xf32> {
  %s7 = tosa.const_shape {values = dense<[2, 3, 2, 3, 2, 1, 4]> : tensor<7xindex>} : () -> !tosa.shape<7>
  %x7 = tosa.reshape %x, %s7 : (tensor<2x3x2x3x2x4xf32>, !tosa.shape<7>) -> tensor<2x3x2x3x2x1x4xf32>
  %e = tosa.exp %x7 : (tensor<2x3x2x3x2x1x4xf32>) -> tensor<2x3x2x3x2x1x4xf32>
  %s6 = tosa.const_shape {values = dense<[2, 3, 2, 3, 2, 4]> : tensor<6xindex>} : () -> !tosa.shape<6>
  %e6 = tosa.reshape %e, %s6 : (tensor<2x3x2x3x2x1x4xf32>, !tosa.shape<6>) -> tensor<2x3x2x3x2x4xf32>
  %r = tosa.add %e6, %y : (tensor<2x3x2x3x2x4xf32>, tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x2x4xf32>
  return %r : tensor<2x3x2x3x2x4xf32>
}

// A rank-7 argument: a rank-7 kernel graph.
// CHECK-LABEL: func.func private @rank7_argument_lax0(%arg0: tensor<1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x4xf32>
// CHECK-NEXT: "ug.exp"(%arg0) : (tensor<1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x4xf32>
func.func @rank7_argument(%x: tensor<1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x4xf32> {
  %a = tosa.exp %x : (tensor<1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x4xf32>
  return %a : tensor<1x2x1x2x1x2x4xf32>
}

// A reshape into 7 dims larger than 1 and a sum over the last: one
// subprogram, its reshape a rank-7 view.
// CHECK-LABEL: func.func private @rank7_split_lax0(
// CHECK: "ug.reshape"({{.*}}) : (tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x2x2x2xf32>
// CHECK: "ug.sum"({{.*}}) {dim = 6 : i64} : (tensor<2x3x2x3x2x2x2xf32>) -> tensor<2x3x2x3x2x2x1xf32>
func.func @rank7_split(%x: tensor<2x3x2x3x2x4xf32>) -> (tensor<2x3x2x3x2x4xf32>, tensor<2x3x2x3x2x2x1xf32>) {
  %e = tosa.exp %x : (tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x2x4xf32>
  %s7 = tosa.const_shape {values = dense<[2, 3, 2, 3, 2, 2, 2]> : tensor<7xindex>} : () -> !tosa.shape<7>
  %x7 = tosa.reshape %e, %s7 : (tensor<2x3x2x3x2x4xf32>, !tosa.shape<7>) -> tensor<2x3x2x3x2x2x2xf32>
  %sum = tosa.reduce_sum %x7 {axis = 6 : i32} : (tensor<2x3x2x3x2x2x2xf32>) -> tensor<2x3x2x3x2x2x1xf32>
  return %e, %sum : tensor<2x3x2x3x2x4xf32>, tensor<2x3x2x3x2x2x1xf32>
}

// Seven dims larger than 1: exp and add fuse into one rank-7 kernel.
// CHECK-LABEL: func.func private @rank7_fused_lax0(%arg0: tensor<2x2x2x2x2x2x4xf32>, %arg1: tensor<2x2x2x2x2x2x4xf32>)
func.func @rank7_fused(%x: tensor<2x2x2x2x2x2x4xf32>, %y: tensor<2x2x2x2x2x2x4xf32>) -> tensor<2x2x2x2x2x2x4xf32> {
  %e = tosa.exp %x : (tensor<2x2x2x2x2x2x4xf32>) -> tensor<2x2x2x2x2x2x4xf32>
  %r = tosa.add %e, %y : (tensor<2x2x2x2x2x2x4xf32>, tensor<2x2x2x2x2x2x4xf32>) -> tensor<2x2x2x2x2x2x4xf32>
  return %r : tensor<2x2x2x2x2x2x4xf32>
}

// Rank 9: beyond the lifter's reach, left in place.
// CHECK-LABEL: func.func @rank9_argument(
// CHECK-NEXT: tosa.exp %arg0
func.func @rank9_argument(%x: tensor<1x2x1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x1x2x4xf32> {
  %a = tosa.exp %x : (tensor<1x2x1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x1x2x4xf32>
  return %a : tensor<1x2x1x2x1x2x1x2x4xf32>
}
