// QKNorm attention (paper benchmark 3): GQA with Q <- Q/rms(Q) and
// V <- V/rms(V) over the last dim; small and paper shapes. The whole
// program (15 μGraph ops) stays one kernel graph under the default bound.
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
// RUN: mirage-run --compare=qknorm_small_lax0_ref,qknorm_small_lax0 %t.lifted | FileCheck %s --check-prefix=NUM

func.func @qknorm_small(%q: tensor<2x4x8xf16>, %k: tensor<2x8x16xf16>, %v: tensor<2x16x8xf16>) -> tensor<2x4x8xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_d = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %q_sq = tosa.mul %q, %q, %shift : (tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<1xi8>) -> tensor<2x4x8xf16>
  %q_sum = tosa.reduce_sum %q_sq {axis = 2 : i32} : (tensor<2x4x8xf16>) -> tensor<2x4x1xf16>
  %q_mean = tosa.mul %q_sum, %inv_d, %shift : (tensor<2x4x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x4x1xf16>
  %q_inv = tosa.rsqrt %q_mean : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
  %q_n = tosa.mul %q, %q_inv, %shift : (tensor<2x4x8xf16>, tensor<2x4x1xf16>, tensor<1xi8>) -> tensor<2x4x8xf16>
  %v_sq = tosa.mul %v, %v, %shift : (tensor<2x16x8xf16>, tensor<2x16x8xf16>, tensor<1xi8>) -> tensor<2x16x8xf16>
  %v_sum = tosa.reduce_sum %v_sq {axis = 2 : i32} : (tensor<2x16x8xf16>) -> tensor<2x16x1xf16>
  %v_mean = tosa.mul %v_sum, %inv_d, %shift : (tensor<2x16x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x16x1xf16>
  %v_inv = tosa.rsqrt %v_mean : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %v_n = tosa.mul %v, %v_inv, %shift : (tensor<2x16x8xf16>, tensor<2x16x1xf16>, tensor<1xi8>) -> tensor<2x16x8xf16>
  %qk = tosa.matmul %q_n, %k, %zp, %zp : (tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x16xf16>
  %e = tosa.exp %qk : (tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x16xf16>) -> tensor<2x4x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x4x16xf16>, tensor<2x4x1xf16>, tensor<1xi8>) -> tensor<2x4x16xf16>
  %o = tosa.matmul %p, %v_n, %zp, %zp : (tensor<2x4x16xf16>, tensor<2x16x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x8xf16>
  return %o : tensor<2x4x8xf16>
}

func.func @qknorm_paper(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_d = "tosa.const"() <{values = dense<0.015625> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %q_sq = tosa.mul %q, %q, %shift : (tensor<2x256x64xf16>, tensor<2x256x64xf16>, tensor<1xi8>) -> tensor<2x256x64xf16>
  %q_sum = tosa.reduce_sum %q_sq {axis = 2 : i32} : (tensor<2x256x64xf16>) -> tensor<2x256x1xf16>
  %q_mean = tosa.mul %q_sum, %inv_d, %shift : (tensor<2x256x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x256x1xf16>
  %q_inv = tosa.rsqrt %q_mean : (tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
  %q_n = tosa.mul %q, %q_inv, %shift : (tensor<2x256x64xf16>, tensor<2x256x1xf16>, tensor<1xi8>) -> tensor<2x256x64xf16>
  %v_sq = tosa.mul %v, %v, %shift : (tensor<2x4096x64xf16>, tensor<2x4096x64xf16>, tensor<1xi8>) -> tensor<2x4096x64xf16>
  %v_sum = tosa.reduce_sum %v_sq {axis = 2 : i32} : (tensor<2x4096x64xf16>) -> tensor<2x4096x1xf16>
  %v_mean = tosa.mul %v_sum, %inv_d, %shift : (tensor<2x4096x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x4096x1xf16>
  %v_inv = tosa.rsqrt %v_mean : (tensor<2x4096x1xf16>) -> tensor<2x4096x1xf16>
  %v_n = tosa.mul %v, %v_inv, %shift : (tensor<2x4096x64xf16>, tensor<2x4096x1xf16>, tensor<1xi8>) -> tensor<2x4096x64xf16>
  %qk = tosa.matmul %q_n, %k, %zp, %zp : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x256x4096xf16>
  %e = tosa.exp %qk : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x256x4096xf16>, tensor<2x256x1xf16>, tensor<1xi8>) -> tensor<2x256x4096xf16>
  %o = tosa.matmul %p, %v_n, %zp, %zp : (tensor<2x256x4096xf16>, tensor<2x4096x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x256x64xf16>
  return %o : tensor<2x256x64xf16>
}

// CHECK-LABEL: func.func @qknorm_small(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x8xf16>, %[[K:[^:]+]]: tensor<2x8x16xf16>, %[[V:[^:]+]]: tensor<2x16x8xf16>)
// CHECK: %[[R:.*]] = call @qknorm_small_lax0(%[[Q]], %[[K]], %[[V]]) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @qknorm_small_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x8xf16>, %[[K:[^:]+]]: tensor<2x8x16xf16>, %[[V:[^:]+]]: tensor<2x16x8xf16>) -> tensor<2x4x8xf16> attributes {ug.level = "kernel", ug.reference = @qknorm_small_lax0_ref} {
// CHECK-NEXT: %[[SQ0:.*]] = "ug.square"(%[[Q]]) : (tensor<2x4x8xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT: %[[SUM0:.*]] = "ug.sum"(%[[SQ0]]) {dim = 2 : i64} : (tensor<2x4x8xf16>) -> tensor<2x4x1xf16>
// CHECK-NEXT: %[[MULS0:.*]] = "ug.mul_scalar"(%[[SUM0]]) {scalar = 1.250000e-01 : f64} : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
// CHECK-NEXT: %[[RSQRT0:.*]] = "ug.rsqrt"(%[[MULS0]]) : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
// CHECK-NEXT: %[[MUL0:.*]] = "ug.mul"(%[[Q]], %[[RSQRT0]]) : (tensor<2x4x8xf16>, tensor<2x4x1xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT: %[[SQ1:.*]] = "ug.square"(%[[V]]) : (tensor<2x16x8xf16>) -> tensor<2x16x8xf16>
// CHECK-NEXT: %[[SUM1:.*]] = "ug.sum"(%[[SQ1]]) {dim = 2 : i64} : (tensor<2x16x8xf16>) -> tensor<2x16x1xf16>
// CHECK-NEXT: %[[MULS1:.*]] = "ug.mul_scalar"(%[[SUM1]]) {scalar = 1.250000e-01 : f64} : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
// CHECK-NEXT: %[[RSQRT1:.*]] = "ug.rsqrt"(%[[MULS1]]) : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
// CHECK-NEXT: %[[MUL1:.*]] = "ug.mul"(%[[V]], %[[RSQRT1]]) : (tensor<2x16x8xf16>, tensor<2x16x1xf16>) -> tensor<2x16x8xf16>
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[MUL0]], %[[K]]) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>) -> tensor<2x4x16xf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MM0]]) : (tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
// CHECK-NEXT: %[[SUM2:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x4x16xf16>) -> tensor<2x4x1xf16>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM2]]) : (tensor<2x4x16xf16>, tensor<2x4x1xf16>) -> tensor<2x4x16xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[DIV]], %[[MUL1]]) : (tensor<2x4x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT: return %[[MM1]] : tensor<2x4x8xf16>
// CHECK-LABEL: func.func @qknorm_paper(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x256x64xf16>, %[[K:[^:]+]]: tensor<2x64x4096xf16>, %[[V:[^:]+]]: tensor<2x4096x64xf16>)
// CHECK: %[[R:.*]] = call @qknorm_paper_lax0(%[[Q]], %[[K]], %[[V]]) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @qknorm_paper_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x256x64xf16>, %[[K:[^:]+]]: tensor<2x64x4096xf16>, %[[V:[^:]+]]: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> attributes {ug.level = "kernel", ug.reference = @qknorm_paper_lax0_ref} {
// CHECK-NEXT: %[[SQ0:.*]] = "ug.square"(%[[Q]]) : (tensor<2x256x64xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: %[[SUM0:.*]] = "ug.sum"(%[[SQ0]]) {dim = 2 : i64} : (tensor<2x256x64xf16>) -> tensor<2x256x1xf16>
// CHECK-NEXT: %[[MULS0:.*]] = "ug.mul_scalar"(%[[SUM0]]) {scalar = 1.562500e-02 : f64} : (tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
// CHECK-NEXT: %[[RSQRT0:.*]] = "ug.rsqrt"(%[[MULS0]]) : (tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
// CHECK-NEXT: %[[MUL0:.*]] = "ug.mul"(%[[Q]], %[[RSQRT0]]) : (tensor<2x256x64xf16>, tensor<2x256x1xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: %[[SQ1:.*]] = "ug.square"(%[[V]]) : (tensor<2x4096x64xf16>) -> tensor<2x4096x64xf16>
// CHECK-NEXT: %[[SUM1:.*]] = "ug.sum"(%[[SQ1]]) {dim = 2 : i64} : (tensor<2x4096x64xf16>) -> tensor<2x4096x1xf16>
// CHECK-NEXT: %[[MULS1:.*]] = "ug.mul_scalar"(%[[SUM1]]) {scalar = 1.562500e-02 : f64} : (tensor<2x4096x1xf16>) -> tensor<2x4096x1xf16>
// CHECK-NEXT: %[[RSQRT1:.*]] = "ug.rsqrt"(%[[MULS1]]) : (tensor<2x4096x1xf16>) -> tensor<2x4096x1xf16>
// CHECK-NEXT: %[[MUL1:.*]] = "ug.mul"(%[[V]], %[[RSQRT1]]) : (tensor<2x4096x64xf16>, tensor<2x4096x1xf16>) -> tensor<2x4096x64xf16>
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[MUL0]], %[[K]]) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MM0]]) : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[SUM2:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf16>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM2]]) : (tensor<2x256x4096xf16>, tensor<2x256x1xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[DIV]], %[[MUL1]]) : (tensor<2x256x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: return %[[MM1]] : tensor<2x256x64xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
