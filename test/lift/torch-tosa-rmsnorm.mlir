// RMSNorm (HF LlamaRMSNorm style, f16 weights, f32 statistics) followed by a
// linear layer, in the form torch-mlir's TOSA backend emits.
//
// Checked: one kernel graph holds the statistics (f32), the weight scale,
// the cast back to f16 and the matmul; the activation cast of the argument
// starts the subprogram (a view), the epsilon splat enters as an input (the
// μGraph has no add-scalar), and the 1-D weight's reshape to 1x64 is lifted:
// the kernel reads the weight as a 1x64 input, which the call passes through
// a tensor.expand_shape marked ug.boundary (a view; unlift drops it).
// The f32 matmul result is stored as f16 directly (the cast is its only
// reader). Round trip, validation and numbers as in every lift test.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM

func.func @forward(%arg0: tensor<2x64xf16>, %arg1: tensor<64xf16>, %arg2: tensor<64x96xf16>) -> tensor<2x96xf16> {
  %0 = tosa.cast %arg0 : (tensor<2x64xf16>) -> tensor<2x64xf32>
  %1 = "tosa.const"() <{values = dense<2.000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %2 = tosa.pow %0, %1 : (tensor<2x64xf32>, tensor<1x1xf32>) -> tensor<2x64xf32>
  %3 = tosa.reduce_sum %2 {axis = 1 : i32} : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %4 = "tosa.const"() <{values = dense<6.400000e+01> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %5 = tosa.reciprocal %4 : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %6 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %7 = tosa.mul %3, %5, %6 : (tensor<2x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x1xf32>
  %8 = "tosa.const"() <{values = dense<9.99999997E-7> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %9 = tosa.add %7, %8 : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>
  %10 = tosa.rsqrt %9 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %11 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %12 = tosa.mul %0, %10, %11 : (tensor<2x64xf32>, tensor<2x1xf32>, tensor<1xi8>) -> tensor<2x64xf32>
  %13 = tosa.cast %12 : (tensor<2x64xf32>) -> tensor<2x64xf16>
  %14 = tosa.const_shape  {values = dense<[1, 64]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %15 = tosa.reshape %arg1, %14 : (tensor<64xf16>, !tosa.shape<2>) -> tensor<1x64xf16>
  %16 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %17 = tosa.mul %15, %13, %16 : (tensor<1x64xf16>, tensor<2x64xf16>, tensor<1xi8>) -> tensor<2x64xf16>
  %18 = tosa.const_shape  {values = dense<[1, 2, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %19 = tosa.reshape %17, %18 : (tensor<2x64xf16>, !tosa.shape<3>) -> tensor<1x2x64xf16>
  %20 = tosa.const_shape  {values = dense<[1, 64, 96]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %21 = tosa.reshape %arg2, %20 : (tensor<64x96xf16>, !tosa.shape<3>) -> tensor<1x64x96xf16>
  %22 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %23 = tosa.matmul %19, %21, %22, %22 : (tensor<1x2x64xf16>, tensor<1x64x96xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x96xf32>
  %24 = tosa.cast %23 : (tensor<1x2x96xf32>) -> tensor<1x2x96xf16>
  %25 = tosa.const_shape  {values = dense<[2, 96]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %26 = tosa.reshape %24, %25 : (tensor<1x2x96xf16>, !tosa.shape<2>) -> tensor<2x96xf16>
  return %26 : tensor<2x96xf16>
}

// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x64xf16>, %[[NORM_W:[^:]+]]: tensor<64xf16>, %[[PROJ_W:[^:]+]]: tensor<64x96xf16>)
// CHECK: %[[EPS:.*]] = "tosa.const"() <{values = dense<9.99999997E-7> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
// CHECK: %[[W:.*]] = tensor.expand_shape %[[NORM_W]] {{\[\[}}0, 1]] output_shape [1, 64] {ug.boundary} : tensor<64xf16> into tensor<1x64xf16>
// CHECK-NEXT: call @forward_lax0(%[[X]], %[[W]], %[[PROJ_W]], %[[EPS]]) : (tensor<2x64xf16>, tensor<1x64xf16>, tensor<64x96xf16>, tensor<1x1xf32>) -> tensor<2x96xf16>
// CHECK-LABEL: func.func private @forward_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x64xf16>, %[[NORM_W:[^:]+]]: tensor<1x64xf16>, %[[PROJ_W:[^:]+]]: tensor<64x96xf16>, %[[EPS:[^:]+]]: tensor<1x1xf32>) -> tensor<2x96xf16> attributes {ug.level = "kernel", ug.reference = @forward_lax0_ref} {
// CHECK-NEXT: %[[MUL0:.*]] = "ug.mul"(%[[X]], %[[X]]) : (tensor<2x64xf16>, tensor<2x64xf16>) -> tensor<2x64xf32>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[MUL0]]) {dim = 1 : i64} : (tensor<2x64xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[SUM]]) {scalar = 1.562500e-02 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[MULS]], %[[EPS]]) : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[ADD]]) : (tensor<2x1xf32>) -> tensor<2x1xf32>
// The cast back to f16 is the product's only reader: the product stores f16.
// CHECK-NEXT: %[[MUL1:.*]] = "ug.mul"(%[[X]], %[[RSQRT]]) : (tensor<2x64xf16>, tensor<2x1xf32>) -> tensor<2x64xf16>
// CHECK-NEXT: %[[MUL2:.*]] = "ug.mul"(%[[NORM_W]], %[[MUL1]]) : (tensor<1x64xf16>, tensor<2x64xf16>) -> tensor<2x64xf16>
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[MUL2]], %[[PROJ_W]]) : (tensor<2x64xf16>, tensor<64x96xf16>) -> tensor<2x96xf16>
// CHECK-NEXT: return %[[MM]] : tensor<2x96xf16>
// The reference reads the weight back through the inverse reshape.
// CHECK-LABEL: func.func private @forward_lax0_ref(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x64xf16>, %[[NORM_W:[^:]+]]: tensor<1x64xf16>, %[[PROJ_W:[^:]+]]: tensor<64x96xf16>, %[[EPS:[^:]+]]: tensor<1x1xf32>)
// CHECK-NEXT: %collapsed = tensor.collapse_shape %[[NORM_W]] {{\[\[}}0, 1]] {ug.boundary} : tensor<1x64xf16> into tensor<64xf16>
// REM: {{.*}}:20:{{[0-9]+}}: remark: mirage-lift: '@forward': lifted 1 subprogram (@forward_lax0); 0 tensor ops left in place
// REM: {{.*}}:21:{{[0-9]+}}: remark: mirage-lift: @forward_lax0: 15 ops -> kernel graph of 8 μGraph ops, 4 inputs, 1 output
// REM-NOT: is not lifted
// NUM-NOT: ill-conditioned
// NUM: ok
