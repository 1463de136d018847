// Gated MLP (paper benchmark 5): O = silu(X.W1) * (X.W2), X(8,4096),
// W1, W2 (4096,4096), and a small version. silu is recognised from
// x * sigmoid(x) (TOSA) and x / (1 + exp(-x)) (linalg body).
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
// RUN: mirage-run --compare=gated_mlp_small_lax0_ref,gated_mlp_small_lax0 %t.lifted | FileCheck %s --check-prefix=NUM

func.func @gated_mlp_small(%x: tensor<1x8x64xf16>, %w1: tensor<1x64x64xf16>, %w2: tensor<1x64x64xf16>) -> tensor<1x8x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %h1 = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x8x64xf16>, tensor<1x64x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x64xf16>
  %sig = tosa.sigmoid %h1 : (tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
  %silu = tosa.mul %h1, %sig, %shift : (tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1xi8>) -> tensor<1x8x64xf16>
  %h2 = tosa.matmul %x, %w2, %zp, %zp : (tensor<1x8x64xf16>, tensor<1x64x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x64xf16>
  %o = tosa.mul %silu, %h2, %shift : (tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1xi8>) -> tensor<1x8x64xf16>
  return %o : tensor<1x8x64xf16>
}

func.func @gated_mlp_paper(%x: tensor<1x8x4096xf16>, %w1: tensor<1x4096x4096xf16>, %w2: tensor<1x4096x4096xf16>) -> tensor<1x8x4096xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %h1 = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x8x4096xf16>, tensor<1x4096x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x4096xf16>
  %sig = tosa.sigmoid %h1 : (tensor<1x8x4096xf16>) -> tensor<1x8x4096xf16>
  %silu = tosa.mul %h1, %sig, %shift : (tensor<1x8x4096xf16>, tensor<1x8x4096xf16>, tensor<1xi8>) -> tensor<1x8x4096xf16>
  %h2 = tosa.matmul %x, %w2, %zp, %zp : (tensor<1x8x4096xf16>, tensor<1x4096x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x4096xf16>
  %o = tosa.mul %silu, %h2, %shift : (tensor<1x8x4096xf16>, tensor<1x8x4096xf16>, tensor<1xi8>) -> tensor<1x8x4096xf16>
  return %o : tensor<1x8x4096xf16>
}

// CHECK-LABEL: func.func @gated_mlp_small(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x8x64xf16>, %[[W1:[^:]+]]: tensor<1x64x64xf16>, %[[W2:[^:]+]]: tensor<1x64x64xf16>)
// CHECK: %[[R:.*]] = call @gated_mlp_small_lax0(%[[X]], %[[W1]], %[[W2]]) : (tensor<1x8x64xf16>, tensor<1x64x64xf16>, tensor<1x64x64xf16>) -> tensor<1x8x64xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @gated_mlp_small_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x8x64xf16>, %[[W1:[^:]+]]: tensor<1x64x64xf16>, %[[W2:[^:]+]]: tensor<1x64x64xf16>) -> tensor<1x8x64xf16> attributes {ug.level = "kernel", ug.reference = @gated_mlp_small_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[W1]]) : (tensor<1x8x64xf16>, tensor<1x64x64xf16>) -> tensor<1x8x64xf16>
// CHECK-NEXT: %[[SILU:.*]] = "ug.silu"(%[[MM0]]) : (tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[W2]]) : (tensor<1x8x64xf16>, tensor<1x64x64xf16>) -> tensor<1x8x64xf16>
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[SILU]], %[[MM1]]) : (tensor<1x8x64xf16>, tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
// CHECK-NEXT: return %[[MUL]] : tensor<1x8x64xf16>
// CHECK-LABEL: func.func @gated_mlp_paper(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x8x4096xf16>, %[[W1:[^:]+]]: tensor<1x4096x4096xf16>, %[[W2:[^:]+]]: tensor<1x4096x4096xf16>)
// CHECK: %[[R:.*]] = call @gated_mlp_paper_lax0(%[[X]], %[[W1]], %[[W2]]) : (tensor<1x8x4096xf16>, tensor<1x4096x4096xf16>, tensor<1x4096x4096xf16>) -> tensor<1x8x4096xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @gated_mlp_paper_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x8x4096xf16>, %[[W1:[^:]+]]: tensor<1x4096x4096xf16>, %[[W2:[^:]+]]: tensor<1x4096x4096xf16>) -> tensor<1x8x4096xf16> attributes {ug.level = "kernel", ug.reference = @gated_mlp_paper_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[W1]]) : (tensor<1x8x4096xf16>, tensor<1x4096x4096xf16>) -> tensor<1x8x4096xf16>
// CHECK-NEXT: %[[SILU:.*]] = "ug.silu"(%[[MM0]]) : (tensor<1x8x4096xf16>) -> tensor<1x8x4096xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[W2]]) : (tensor<1x8x4096xf16>, tensor<1x4096x4096xf16>) -> tensor<1x8x4096xf16>
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[SILU]], %[[MM1]]) : (tensor<1x8x4096xf16>, tensor<1x8x4096xf16>) -> tensor<1x8x4096xf16>
// CHECK-NEXT: return %[[MUL]] : tensor<1x8x4096xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
