// LoRA (paper benchmark 4): O = X.W + (X.A).B with X(16,256), W(256,4096),
// A(256,16), B(16,4096), and a small version.
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
// RUN: mirage-run --compare=lora_small_lax0_ref,lora_small_lax0 %t.lifted | FileCheck %s --check-prefix=NUM

func.func @lora_small(%x: tensor<4x32xf16>, %w: tensor<32x64xf16>, %a: tensor<32x4xf16>, %b: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %zero = arith.constant 0.0 : f16
  %xw_acc_e = tensor.empty() : tensor<4x64xf16>
  %xw_acc = linalg.fill ins(%zero : f16) outs(%xw_acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %xw = linalg.matmul ins(%x, %w : tensor<4x32xf16>, tensor<32x64xf16>) outs(%xw_acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %xa_acc_e = tensor.empty() : tensor<4x4xf16>
  %xa_acc = linalg.fill ins(%zero : f16) outs(%xa_acc_e : tensor<4x4xf16>) -> tensor<4x4xf16>
  %xa = linalg.matmul ins(%x, %a : tensor<4x32xf16>, tensor<32x4xf16>) outs(%xa_acc : tensor<4x4xf16>) -> tensor<4x4xf16>
  %xab_acc_e = tensor.empty() : tensor<4x64xf16>
  %xab_acc = linalg.fill ins(%zero : f16) outs(%xab_acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %xab = linalg.matmul ins(%xa, %b : tensor<4x4xf16>, tensor<4x64xf16>) outs(%xab_acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %o_e = tensor.empty() : tensor<4x64xf16>
  %o = linalg.add ins(%xw, %xab : tensor<4x64xf16>, tensor<4x64xf16>) outs(%o_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %o : tensor<4x64xf16>
}

func.func @lora_paper(%x: tensor<16x256xf16>, %w: tensor<256x4096xf16>, %a: tensor<256x16xf16>, %b: tensor<16x4096xf16>) -> tensor<16x4096xf16> {
  %zero = arith.constant 0.0 : f16
  %xw_acc_e = tensor.empty() : tensor<16x4096xf16>
  %xw_acc = linalg.fill ins(%zero : f16) outs(%xw_acc_e : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %xw = linalg.matmul ins(%x, %w : tensor<16x256xf16>, tensor<256x4096xf16>) outs(%xw_acc : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %xa_acc_e = tensor.empty() : tensor<16x16xf16>
  %xa_acc = linalg.fill ins(%zero : f16) outs(%xa_acc_e : tensor<16x16xf16>) -> tensor<16x16xf16>
  %xa = linalg.matmul ins(%x, %a : tensor<16x256xf16>, tensor<256x16xf16>) outs(%xa_acc : tensor<16x16xf16>) -> tensor<16x16xf16>
  %xab_acc_e = tensor.empty() : tensor<16x4096xf16>
  %xab_acc = linalg.fill ins(%zero : f16) outs(%xab_acc_e : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %xab = linalg.matmul ins(%xa, %b : tensor<16x16xf16>, tensor<16x4096xf16>) outs(%xab_acc : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %o_e = tensor.empty() : tensor<16x4096xf16>
  %o = linalg.add ins(%xw, %xab : tensor<16x4096xf16>, tensor<16x4096xf16>) outs(%o_e : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  return %o : tensor<16x4096xf16>
}

// CHECK-LABEL: func.func @lora_small(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x32xf16>, %[[W:[^:]+]]: tensor<32x64xf16>, %[[A:[^:]+]]: tensor<32x4xf16>, %[[B:[^:]+]]: tensor<4x64xf16>)
// CHECK: %[[R:.*]] = call @lora_small_lax0(%[[X]], %[[W]], %[[A]], %[[B]]) : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @lora_small_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x32xf16>, %[[W:[^:]+]]: tensor<32x64xf16>, %[[A:[^:]+]]: tensor<32x4xf16>, %[[B:[^:]+]]: tensor<4x64xf16>) -> tensor<4x64xf16> attributes {ug.level = "kernel", ug.reference = @lora_small_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[W]]) : (tensor<4x32xf16>, tensor<32x64xf16>) -> tensor<4x64xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[A]]) : (tensor<4x32xf16>, tensor<32x4xf16>) -> tensor<4x4xf16>
// CHECK-NEXT: %[[MM2:.*]] = "ug.matmul"(%[[MM1]], %[[B]]) : (tensor<4x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[MM0]], %[[MM2]]) : (tensor<4x64xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
// CHECK-NEXT: return %[[ADD]] : tensor<4x64xf16>
// CHECK-LABEL: func.func @lora_paper(
// CHECK-SAME: %[[X:[^:]+]]: tensor<16x256xf16>, %[[W:[^:]+]]: tensor<256x4096xf16>, %[[A:[^:]+]]: tensor<256x16xf16>, %[[B:[^:]+]]: tensor<16x4096xf16>)
// CHECK: %[[R:.*]] = call @lora_paper_lax0(%[[X]], %[[W]], %[[A]], %[[B]]) : (tensor<16x256xf16>, tensor<256x4096xf16>, tensor<256x16xf16>, tensor<16x4096xf16>) -> tensor<16x4096xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @lora_paper_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<16x256xf16>, %[[W:[^:]+]]: tensor<256x4096xf16>, %[[A:[^:]+]]: tensor<256x16xf16>, %[[B:[^:]+]]: tensor<16x4096xf16>) -> tensor<16x4096xf16> attributes {ug.level = "kernel", ug.reference = @lora_paper_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[W]]) : (tensor<16x256xf16>, tensor<256x4096xf16>) -> tensor<16x4096xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[A]]) : (tensor<16x256xf16>, tensor<256x16xf16>) -> tensor<16x16xf16>
// CHECK-NEXT: %[[MM2:.*]] = "ug.matmul"(%[[MM1]], %[[B]]) : (tensor<16x16xf16>, tensor<16x4096xf16>) -> tensor<16x4096xf16>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[MM0]], %[[MM2]]) : (tensor<16x4096xf16>, tensor<16x4096xf16>) -> tensor<16x4096xf16>
// CHECK-NEXT: return %[[ADD]] : tensor<16x4096xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
