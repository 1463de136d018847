// RMSNorm + matmul (paper benchmark 1): Y = (X / rms(X)) . W, rms over the
// last dim, no weight, no epsilon; small shapes and the paper's X(2,4096),
// W(4096,6144).
//
// Written in TOSA (MLIR 22 forms: tosa.mul shift, tosa.matmul zero points).
//
// Checked: the exact kernel graph and call site, that every kernel graph
// validates, that lift + unlift prints the input again, and that the
// kernel graph computes what the original ops compute (mirage-run: f64
// interpreter vs the upstream lowering JIT-compiled on the CPU).
// At the paper's shapes the numbers were checked by hand (mirage-run takes
// seconds to minutes there, too slow for the suite; GQA and QKNorm need
// --range=0.25 so that exp sums stay finite in f16).
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-opt --mirage-lift %s -o %t.lifted
// RUN: mirage-run --compare=rmsnorm_small_lax0_ref,rmsnorm_small_lax0 %t.lifted | FileCheck %s --check-prefix=NUM

func.func @rmsnorm_small(%x: tensor<1x2x64xf16>, %w: tensor<1x64x96xf16>) -> tensor<1x2x96xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_n = "tosa.const"() <{values = dense<0.015625> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %sq = tosa.pow %x, %two : (tensor<1x2x64xf16>, tensor<1x1x1xf16>) -> tensor<1x2x64xf16>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x2x64xf16>) -> tensor<1x2x1xf16>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x2x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x1xf16>
  %rms = tosa.pow %mean, %half : (tensor<1x2x1xf16>, tensor<1x1x1xf16>) -> tensor<1x2x1xf16>
  %inv = tosa.reciprocal %rms : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %normed = tosa.mul %x, %inv, %shift : (tensor<1x2x64xf16>, tensor<1x2x1xf16>, tensor<1xi8>) -> tensor<1x2x64xf16>
  %y = tosa.matmul %normed, %w, %zp, %zp : (tensor<1x2x64xf16>, tensor<1x64x96xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x96xf16>
  return %y : tensor<1x2x96xf16>
}

func.func @rmsnorm_paper(%x: tensor<1x2x4096xf16>, %w: tensor<1x4096x6144xf16>) -> tensor<1x2x6144xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_n = "tosa.const"() <{values = dense<0.000244140625> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %sq = tosa.mul %x, %x, %shift : (tensor<1x2x4096xf16>, tensor<1x2x4096xf16>, tensor<1xi8>) -> tensor<1x2x4096xf16>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x2x4096xf16>) -> tensor<1x2x1xf16>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x2x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x1xf16>
  %inv = tosa.rsqrt %mean : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %normed = tosa.mul %x, %inv, %shift : (tensor<1x2x4096xf16>, tensor<1x2x1xf16>, tensor<1xi8>) -> tensor<1x2x4096xf16>
  %y = tosa.matmul %normed, %w, %zp, %zp : (tensor<1x2x4096xf16>, tensor<1x4096x6144xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x6144xf16>
  return %y : tensor<1x2x6144xf16>
}

// CHECK-LABEL: func.func @rmsnorm_small(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x2x64xf16>, %[[W:[^:]+]]: tensor<1x64x96xf16>)
// CHECK: %[[R:.*]] = call @rmsnorm_small_lax0(%[[X]], %[[W]]) : (tensor<1x2x64xf16>, tensor<1x64x96xf16>) -> tensor<1x2x96xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @rmsnorm_small_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x2x64xf16>, %[[W:[^:]+]]: tensor<1x64x96xf16>) -> tensor<1x2x96xf16> attributes {ug.level = "kernel", ug.reference = @rmsnorm_small_lax0_ref} {
// CHECK-NEXT: %[[SQ:.*]] = "ug.square"(%[[X]]) : (tensor<1x2x64xf16>) -> tensor<1x2x64xf16>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[SQ]]) {dim = 2 : i64} : (tensor<1x2x64xf16>) -> tensor<1x2x1xf16>
// CHECK-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[SUM]]) {scalar = 1.562500e-02 : f64} : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
// CHECK-NEXT: %[[SQRT:.*]] = "ug.sqrt"(%[[MULS]]) : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[X]], %[[SQRT]]) : (tensor<1x2x64xf16>, tensor<1x2x1xf16>) -> tensor<1x2x64xf16>
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[DIV]], %[[W]]) : (tensor<1x2x64xf16>, tensor<1x64x96xf16>) -> tensor<1x2x96xf16>
// CHECK-NEXT: return %[[MM]] : tensor<1x2x96xf16>
// CHECK-LABEL: func.func @rmsnorm_paper(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x2x4096xf16>, %[[W:[^:]+]]: tensor<1x4096x6144xf16>)
// CHECK: %[[R:.*]] = call @rmsnorm_paper_lax0(%[[X]], %[[W]]) : (tensor<1x2x4096xf16>, tensor<1x4096x6144xf16>) -> tensor<1x2x6144xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @rmsnorm_paper_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x2x4096xf16>, %[[W:[^:]+]]: tensor<1x4096x6144xf16>) -> tensor<1x2x6144xf16> attributes {ug.level = "kernel", ug.reference = @rmsnorm_paper_lax0_ref} {
// CHECK-NEXT: %[[SQ:.*]] = "ug.square"(%[[X]]) : (tensor<1x2x4096xf16>) -> tensor<1x2x4096xf16>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[SQ]]) {dim = 2 : i64} : (tensor<1x2x4096xf16>) -> tensor<1x2x1xf16>
// CHECK-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[SUM]]) {scalar = 2.44140625E-4 : f64} : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
// CHECK-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[MULS]]) : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[X]], %[[RSQRT]]) : (tensor<1x2x4096xf16>, tensor<1x2x1xf16>) -> tensor<1x2x4096xf16>
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[MUL]], %[[W]]) : (tensor<1x2x4096xf16>, tensor<1x4096x6144xf16>) -> tensor<1x2x6144xf16>
// CHECK-NEXT: return %[[MM]] : tensor<1x2x6144xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
