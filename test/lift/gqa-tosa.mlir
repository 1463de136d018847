// GQA decoding attention (paper benchmark 2): E = exp(Q.K), S = sum_last E,
// O = (E / S) . V; small shapes and the paper's Q(2,256,64), K(2,64,4096),
// V(2,4096,64) at b = 1.
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
// RUN: mirage-run --compare=gqa_small_lax0_ref,gqa_small_lax0 %t.lifted | FileCheck %s --check-prefix=NUM

func.func @gqa_small(%q: tensor<2x4x8xf16>, %k: tensor<2x8x16xf16>, %v: tensor<2x16x8xf16>) -> tensor<2x4x8xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %qk = tosa.matmul %q, %k, %zp, %zp : (tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x16xf16>
  %e = tosa.exp %qk : (tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x16xf16>) -> tensor<2x4x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x4x16xf16>, tensor<2x4x1xf16>, tensor<1xi8>) -> tensor<2x4x16xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x16xf16>, tensor<2x16x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x8xf16>
  return %o : tensor<2x4x8xf16>
}

func.func @gqa_paper(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %qk = tosa.matmul %q, %k, %zp, %zp : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x256x4096xf16>
  %e = tosa.exp %qk : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x256x4096xf16>, tensor<2x256x1xf16>, tensor<1xi8>) -> tensor<2x256x4096xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x256x4096xf16>, tensor<2x4096x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x256x64xf16>
  return %o : tensor<2x256x64xf16>
}

// CHECK-LABEL: func.func @gqa_small(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x8xf16>, %[[K:[^:]+]]: tensor<2x8x16xf16>, %[[V:[^:]+]]: tensor<2x16x8xf16>)
// CHECK: %[[R:.*]] = call @gqa_small_lax0(%[[Q]], %[[K]], %[[V]]) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @gqa_small_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x8xf16>, %[[K:[^:]+]]: tensor<2x8x16xf16>, %[[V:[^:]+]]: tensor<2x16x8xf16>) -> tensor<2x4x8xf16> attributes {ug.level = "kernel", ug.reference = @gqa_small_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[Q]], %[[K]]) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>) -> tensor<2x4x16xf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MM0]]) : (tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x4x16xf16>) -> tensor<2x4x1xf16>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]]) : (tensor<2x4x16xf16>, tensor<2x4x1xf16>) -> tensor<2x4x16xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[DIV]], %[[V]]) : (tensor<2x4x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT: return %[[MM1]] : tensor<2x4x8xf16>
// CHECK-LABEL: func.func @gqa_paper(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x256x64xf16>, %[[K:[^:]+]]: tensor<2x64x4096xf16>, %[[V:[^:]+]]: tensor<2x4096x64xf16>)
// CHECK: %[[R:.*]] = call @gqa_paper_lax0(%[[Q]], %[[K]], %[[V]]) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @gqa_paper_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x256x64xf16>, %[[K:[^:]+]]: tensor<2x64x4096xf16>, %[[V:[^:]+]]: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> attributes {ug.level = "kernel", ug.reference = @gqa_paper_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[Q]], %[[K]]) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MM0]]) : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf16>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]]) : (tensor<2x256x4096xf16>, tensor<2x256x1xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[DIV]], %[[V]]) : (tensor<2x256x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: return %[[MM1]] : tensor<2x256x64xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
