// Gated MLP (silu(x W1^T) * (x W2^T), nn.Linear without bias) in the form
// torch-mlir's TOSA backend emits: weights transposed with tosa.transpose,
// rank-2 activations reshaped to rank 3 around tosa.matmul, silu as
// x * sigmoid(x), a shift constant per multiplication.
//
// Checked: the reshapes to rank 3 around tosa.matmul become views, so the
// whole program is the paper's 4-op kernel graph on rank-2 tensors; the
// weights enter as stored, read through layouts (ug.transpose): no copy
// and no cut.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM

func.func @forward(%arg0: tensor<8x64xf32>, %arg1: tensor<96x64xf32>, %arg2: tensor<96x64xf32>) -> tensor<8x96xf32> {
  %0 = tosa.transpose %arg1 {perms = array<i32: 1, 0>} : (tensor<96x64xf32>) -> tensor<64x96xf32>
  %1 = tosa.const_shape  {values = dense<[1, 8, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %2 = tosa.reshape %arg0, %1 : (tensor<8x64xf32>, !tosa.shape<3>) -> tensor<1x8x64xf32>
  %3 = tosa.const_shape  {values = dense<[1, 64, 96]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %4 = tosa.reshape %0, %3 : (tensor<64x96xf32>, !tosa.shape<3>) -> tensor<1x64x96xf32>
  %5 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %6 = tosa.matmul %2, %4, %5, %5 : (tensor<1x8x64xf32>, tensor<1x64x96xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x96xf32>
  %7 = tosa.const_shape  {values = dense<[8, 96]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %8 = tosa.reshape %6, %7 : (tensor<1x8x96xf32>, !tosa.shape<2>) -> tensor<8x96xf32>
  %9 = tosa.sigmoid %8 : (tensor<8x96xf32>) -> tensor<8x96xf32>
  %10 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %11 = tosa.mul %8, %9, %10 : (tensor<8x96xf32>, tensor<8x96xf32>, tensor<1xi8>) -> tensor<8x96xf32>
  %12 = tosa.transpose %arg2 {perms = array<i32: 1, 0>} : (tensor<96x64xf32>) -> tensor<64x96xf32>
  %13 = tosa.const_shape  {values = dense<[1, 8, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %14 = tosa.reshape %arg0, %13 : (tensor<8x64xf32>, !tosa.shape<3>) -> tensor<1x8x64xf32>
  %15 = tosa.const_shape  {values = dense<[1, 64, 96]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %16 = tosa.reshape %12, %15 : (tensor<64x96xf32>, !tosa.shape<3>) -> tensor<1x64x96xf32>
  %17 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %18 = tosa.matmul %14, %16, %17, %17 : (tensor<1x8x64xf32>, tensor<1x64x96xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x96xf32>
  %19 = tosa.const_shape  {values = dense<[8, 96]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %20 = tosa.reshape %18, %19 : (tensor<1x8x96xf32>, !tosa.shape<2>) -> tensor<8x96xf32>
  %21 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %22 = tosa.mul %11, %20, %21 : (tensor<8x96xf32>, tensor<8x96xf32>, tensor<1xi8>) -> tensor<8x96xf32>
  return %22 : tensor<8x96xf32>
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
// REM: {{.*}}:18:{{[0-9]+}}: remark: mirage-lift: '@forward': lifted 1 subprogram (@forward_lax0); 0 tensor ops left in place
// REM: {{.*}}:19:{{[0-9]+}}: remark: mirage-lift: @forward_lax0: 13 ops -> kernel graph of 4 μGraph ops, 3 inputs, 1 output
// NUM-NOT: ill-conditioned
// NUM: ok
