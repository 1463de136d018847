// Gated MLP (paper benchmark 5): O = silu(X.W1) * (X.W2), X(8,4096),
// W1, W2 (4096,4096), and a small version. silu is recognised from
// x * sigmoid(x) (TOSA) and x / (1 + exp(-x)) (linalg body).
//
// Written in linalg on tensors: named ops, linalg.generic bodies, linalg.reduce
// (which drops the reduced dim; the image keeps ug.sum's unit dim) and
// zero-filled accumulators.
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

func.func @gated_mlp_small(%x: tensor<8x64xf16>, %w1: tensor<64x64xf16>, %w2: tensor<64x64xf16>) -> tensor<8x64xf16> {
  %zero = arith.constant 0.0 : f16
  %h1_acc_e = tensor.empty() : tensor<8x64xf16>
  %h1_acc = linalg.fill ins(%zero : f16) outs(%h1_acc_e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<8x64xf16>, tensor<64x64xf16>) outs(%h1_acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  %silu_e = tensor.empty() : tensor<8x64xf16>
  %silu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%h1 : tensor<8x64xf16>) outs(%silu_e : tensor<8x64xf16>) {
    ^bb0(%a: f16, %o: f16):
      %one = arith.constant 1.0 : f16
      %neg = arith.negf %a : f16
      %ex = math.exp %neg : f16
      %den = arith.addf %ex, %one : f16
      %s = arith.divf %a, %den : f16
      linalg.yield %s : f16
  } -> tensor<8x64xf16>
  %h2_acc_e = tensor.empty() : tensor<8x64xf16>
  %h2_acc = linalg.fill ins(%zero : f16) outs(%h2_acc_e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %h2 = linalg.matmul ins(%x, %w2 : tensor<8x64xf16>, tensor<64x64xf16>) outs(%h2_acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  %o_e = tensor.empty() : tensor<8x64xf16>
  %o = linalg.mul ins(%silu, %h2 : tensor<8x64xf16>, tensor<8x64xf16>) outs(%o_e : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %o : tensor<8x64xf16>
}

func.func @gated_mlp_paper(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %zero = arith.constant 0.0 : f16
  %h1_acc_e = tensor.empty() : tensor<8x4096xf16>
  %h1_acc = linalg.fill ins(%zero : f16) outs(%h1_acc_e : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<8x4096xf16>, tensor<4096x4096xf16>) outs(%h1_acc : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %silu_e = tensor.empty() : tensor<8x4096xf16>
  %silu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%h1 : tensor<8x4096xf16>) outs(%silu_e : tensor<8x4096xf16>) {
    ^bb0(%a: f16, %o: f16):
      %one = arith.constant 1.0 : f16
      %neg = arith.negf %a : f16
      %ex = math.exp %neg : f16
      %den = arith.addf %ex, %one : f16
      %s = arith.divf %a, %den : f16
      linalg.yield %s : f16
  } -> tensor<8x4096xf16>
  %h2_acc_e = tensor.empty() : tensor<8x4096xf16>
  %h2_acc = linalg.fill ins(%zero : f16) outs(%h2_acc_e : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %h2 = linalg.matmul ins(%x, %w2 : tensor<8x4096xf16>, tensor<4096x4096xf16>) outs(%h2_acc : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %o_e = tensor.empty() : tensor<8x4096xf16>
  %o = linalg.mul ins(%silu, %h2 : tensor<8x4096xf16>, tensor<8x4096xf16>) outs(%o_e : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  return %o : tensor<8x4096xf16>
}

// CHECK-LABEL: func.func @gated_mlp_small(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x64xf16>, %[[W1:[^:]+]]: tensor<64x64xf16>, %[[W2:[^:]+]]: tensor<64x64xf16>)
// CHECK: %[[R:.*]] = call @gated_mlp_small_lax0(%[[X]], %[[W1]], %[[W2]]) : (tensor<8x64xf16>, tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @gated_mlp_small_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x64xf16>, %[[W1:[^:]+]]: tensor<64x64xf16>, %[[W2:[^:]+]]: tensor<64x64xf16>) -> tensor<8x64xf16> attributes {ug.level = "kernel", ug.reference = @gated_mlp_small_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[W1]]) : (tensor<8x64xf16>, tensor<64x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[SILU:.*]] = "ug.silu"(%[[MM0]]) : (tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[W2]]) : (tensor<8x64xf16>, tensor<64x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[SILU]], %[[MM1]]) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: return %[[MUL]] : tensor<8x64xf16>
// CHECK-LABEL: func.func @gated_mlp_paper(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x4096xf16>, %[[W1:[^:]+]]: tensor<4096x4096xf16>, %[[W2:[^:]+]]: tensor<4096x4096xf16>)
// CHECK: %[[R:.*]] = call @gated_mlp_paper_lax0(%[[X]], %[[W1]], %[[W2]]) : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @gated_mlp_paper_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x4096xf16>, %[[W1:[^:]+]]: tensor<4096x4096xf16>, %[[W2:[^:]+]]: tensor<4096x4096xf16>) -> tensor<8x4096xf16> attributes {ug.level = "kernel", ug.reference = @gated_mlp_paper_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[W1]]) : (tensor<8x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[SILU:.*]] = "ug.silu"(%[[MM0]]) : (tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[W2]]) : (tensor<8x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[SILU]], %[[MM1]]) : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: return %[[MUL]] : tensor<8x4096xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
