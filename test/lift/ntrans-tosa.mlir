// nTrans (paper benchmark 6): O = rmsnorm(X + alpha * (rmsnorm(H) + X)),
// H, X, alpha (8,4096), and a small version (13 μGraph ops).
//
// Written in TOSA (MLIR 22 forms: tosa.mul shift, tosa.matmul zero points).
//
// Checked: the exact kernel graph and call site, that every kernel graph
// validates, that lift + unlift prints the input again, and that the
// kernel graph computes what the original ops compute (mirage-run: f64
// interpreter vs the upstream lowering JIT-compiled on the CPU).
// At the paper's shapes the run uses an absolute tolerance of 0.5: the
// derived one counts these f16 statistics over 4096 elements as
// ill-conditioned and would compare nothing.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-opt --mirage-lift %s -o %t.lifted
// RUN: mirage-run --compare=ntrans_small_lax0_ref,ntrans_small_lax0 %t.lifted | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --tolerance=0.5 --compare=ntrans_paper_lax0_ref,ntrans_paper_lax0 %t.lifted | FileCheck %s --check-prefix=NUM

func.func @ntrans_small(%h: tensor<8x64xf16>, %x: tensor<8x64xf16>, %alpha: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_n = "tosa.const"() <{values = dense<0.015625> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %h_sq = tosa.mul %h, %h, %shift : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<1xi8>) -> tensor<8x64xf16>
  %h_sum = tosa.reduce_sum %h_sq {axis = 1 : i32} : (tensor<8x64xf16>) -> tensor<8x1xf16>
  %h_mean = tosa.mul %h_sum, %inv_n, %shift : (tensor<8x1xf16>, tensor<1x1xf16>, tensor<1xi8>) -> tensor<8x1xf16>
  %h_inv = tosa.rsqrt %h_mean : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %h_n = tosa.mul %h, %h_inv, %shift : (tensor<8x64xf16>, tensor<8x1xf16>, tensor<1xi8>) -> tensor<8x64xf16>
  %t1 = tosa.add %h_n, %x : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %t2 = tosa.mul %alpha, %t1, %shift : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<1xi8>) -> tensor<8x64xf16>
  %z = tosa.add %x, %t2 : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %z_sq = tosa.mul %z, %z, %shift : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<1xi8>) -> tensor<8x64xf16>
  %z_sum = tosa.reduce_sum %z_sq {axis = 1 : i32} : (tensor<8x64xf16>) -> tensor<8x1xf16>
  %z_mean = tosa.mul %z_sum, %inv_n, %shift : (tensor<8x1xf16>, tensor<1x1xf16>, tensor<1xi8>) -> tensor<8x1xf16>
  %z_inv = tosa.rsqrt %z_mean : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %z_n = tosa.mul %z, %z_inv, %shift : (tensor<8x64xf16>, tensor<8x1xf16>, tensor<1xi8>) -> tensor<8x64xf16>
  return %z_n : tensor<8x64xf16>
}

func.func @ntrans_paper(%h: tensor<8x4096xf16>, %x: tensor<8x4096xf16>, %alpha: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_n = "tosa.const"() <{values = dense<0.000244140625> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %h_sq = tosa.mul %h, %h, %shift : (tensor<8x4096xf16>, tensor<8x4096xf16>, tensor<1xi8>) -> tensor<8x4096xf16>
  %h_sum = tosa.reduce_sum %h_sq {axis = 1 : i32} : (tensor<8x4096xf16>) -> tensor<8x1xf16>
  %h_mean = tosa.mul %h_sum, %inv_n, %shift : (tensor<8x1xf16>, tensor<1x1xf16>, tensor<1xi8>) -> tensor<8x1xf16>
  %h_inv = tosa.rsqrt %h_mean : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %h_n = tosa.mul %h, %h_inv, %shift : (tensor<8x4096xf16>, tensor<8x1xf16>, tensor<1xi8>) -> tensor<8x4096xf16>
  %t1 = tosa.add %h_n, %x : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %t2 = tosa.mul %alpha, %t1, %shift : (tensor<8x4096xf16>, tensor<8x4096xf16>, tensor<1xi8>) -> tensor<8x4096xf16>
  %z = tosa.add %x, %t2 : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %z_sq = tosa.mul %z, %z, %shift : (tensor<8x4096xf16>, tensor<8x4096xf16>, tensor<1xi8>) -> tensor<8x4096xf16>
  %z_sum = tosa.reduce_sum %z_sq {axis = 1 : i32} : (tensor<8x4096xf16>) -> tensor<8x1xf16>
  %z_mean = tosa.mul %z_sum, %inv_n, %shift : (tensor<8x1xf16>, tensor<1x1xf16>, tensor<1xi8>) -> tensor<8x1xf16>
  %z_inv = tosa.rsqrt %z_mean : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %z_n = tosa.mul %z, %z_inv, %shift : (tensor<8x4096xf16>, tensor<8x1xf16>, tensor<1xi8>) -> tensor<8x4096xf16>
  return %z_n : tensor<8x4096xf16>
}

// CHECK-LABEL: func.func @ntrans_small(
// CHECK-SAME: %[[H:[^:]+]]: tensor<8x64xf16>, %[[X:[^:]+]]: tensor<8x64xf16>, %[[ALPHA:[^:]+]]: tensor<8x64xf16>)
// CHECK: %[[R:.*]] = call @ntrans_small_lax0(%[[H]], %[[X]], %[[ALPHA]]) : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @ntrans_small_lax0(
// CHECK-SAME: %[[H:[^:]+]]: tensor<8x64xf16>, %[[X:[^:]+]]: tensor<8x64xf16>, %[[ALPHA:[^:]+]]: tensor<8x64xf16>) -> tensor<8x64xf16> attributes {ug.level = "kernel", ug.reference = @ntrans_small_lax0_ref} {
// CHECK-NEXT: %[[SQ0:.*]] = "ug.square"(%[[H]]) : (tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[SUM0:.*]] = "ug.sum"(%[[SQ0]]) {dim = 1 : i64} : (tensor<8x64xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[MULS0:.*]] = "ug.mul_scalar"(%[[SUM0]]) {scalar = 1.562500e-02 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[RSQRT0:.*]] = "ug.rsqrt"(%[[MULS0]]) : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[MUL0:.*]] = "ug.mul"(%[[H]], %[[RSQRT0]]) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[ADD0:.*]] = "ug.add"(%[[MUL0]], %[[X]]) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[MUL1:.*]] = "ug.mul"(%[[ALPHA]], %[[ADD0]]) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[ADD1:.*]] = "ug.add"(%[[X]], %[[MUL1]]) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[SQ1:.*]] = "ug.square"(%[[ADD1]]) : (tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[SUM1:.*]] = "ug.sum"(%[[SQ1]]) {dim = 1 : i64} : (tensor<8x64xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[MULS1:.*]] = "ug.mul_scalar"(%[[SUM1]]) {scalar = 1.562500e-02 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[RSQRT1:.*]] = "ug.rsqrt"(%[[MULS1]]) : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[MUL2:.*]] = "ug.mul"(%[[ADD1]], %[[RSQRT1]]) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: return %[[MUL2]] : tensor<8x64xf16>
// CHECK-LABEL: func.func @ntrans_paper(
// CHECK-SAME: %[[H:[^:]+]]: tensor<8x4096xf16>, %[[X:[^:]+]]: tensor<8x4096xf16>, %[[ALPHA:[^:]+]]: tensor<8x4096xf16>)
// CHECK: %[[R:.*]] = call @ntrans_paper_lax0(%[[H]], %[[X]], %[[ALPHA]]) : (tensor<8x4096xf16>, tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @ntrans_paper_lax0(
// CHECK-SAME: %[[H:[^:]+]]: tensor<8x4096xf16>, %[[X:[^:]+]]: tensor<8x4096xf16>, %[[ALPHA:[^:]+]]: tensor<8x4096xf16>) -> tensor<8x4096xf16> attributes {ug.level = "kernel", ug.reference = @ntrans_paper_lax0_ref} {
// CHECK-NEXT: %[[SQ0:.*]] = "ug.square"(%[[H]]) : (tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[SUM0:.*]] = "ug.sum"(%[[SQ0]]) {dim = 1 : i64} : (tensor<8x4096xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[MULS0:.*]] = "ug.mul_scalar"(%[[SUM0]]) {scalar = 2.44140625E-4 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[RSQRT0:.*]] = "ug.rsqrt"(%[[MULS0]]) : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[MUL0:.*]] = "ug.mul"(%[[H]], %[[RSQRT0]]) : (tensor<8x4096xf16>, tensor<8x1xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[ADD0:.*]] = "ug.add"(%[[MUL0]], %[[X]]) : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[MUL1:.*]] = "ug.mul"(%[[ALPHA]], %[[ADD0]]) : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[ADD1:.*]] = "ug.add"(%[[X]], %[[MUL1]]) : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[SQ1:.*]] = "ug.square"(%[[ADD1]]) : (tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[SUM1:.*]] = "ug.sum"(%[[SQ1]]) {dim = 1 : i64} : (tensor<8x4096xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[MULS1:.*]] = "ug.mul_scalar"(%[[SUM1]]) {scalar = 2.44140625E-4 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[RSQRT1:.*]] = "ug.rsqrt"(%[[MULS1]]) : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[MUL2:.*]] = "ug.mul"(%[[ADD1]], %[[RSQRT1]]) : (tensor<8x4096xf16>, tensor<8x1xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: return %[[MUL2]] : tensor<8x4096xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
