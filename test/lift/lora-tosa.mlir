// LoRA (paper benchmark 4): O = X.W + (X.A).B with X(16,256), W(256,4096),
// A(256,16), B(16,4096), and a small version.
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
// RUN: mirage-run --compare=lora_small_lax0_ref,lora_small_lax0 %t.lifted | FileCheck %s --check-prefix=NUM

func.func @lora_small(%x: tensor<1x4x32xf16>, %w: tensor<1x32x64xf16>, %a: tensor<1x32x4xf16>, %b: tensor<1x4x64xf16>) -> tensor<1x4x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %xw = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x32xf16>, tensor<1x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x64xf16>
  %xa = tosa.matmul %x, %a, %zp, %zp : (tensor<1x4x32xf16>, tensor<1x32x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x4xf16>
  %xab = tosa.matmul %xa, %b, %zp, %zp : (tensor<1x4x4xf16>, tensor<1x4x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x64xf16>
  %o = tosa.add %xw, %xab : (tensor<1x4x64xf16>, tensor<1x4x64xf16>) -> tensor<1x4x64xf16>
  return %o : tensor<1x4x64xf16>
}

func.func @lora_paper(%x: tensor<1x16x256xf16>, %w: tensor<1x256x4096xf16>, %a: tensor<1x256x16xf16>, %b: tensor<1x16x4096xf16>) -> tensor<1x16x4096xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %xw = tosa.matmul %x, %w, %zp, %zp : (tensor<1x16x256xf16>, tensor<1x256x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x4096xf16>
  %xa = tosa.matmul %x, %a, %zp, %zp : (tensor<1x16x256xf16>, tensor<1x256x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x16xf16>
  %xab = tosa.matmul %xa, %b, %zp, %zp : (tensor<1x16x16xf16>, tensor<1x16x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x4096xf16>
  %o = tosa.add %xw, %xab : (tensor<1x16x4096xf16>, tensor<1x16x4096xf16>) -> tensor<1x16x4096xf16>
  return %o : tensor<1x16x4096xf16>
}

// CHECK-LABEL: func.func @lora_small(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x32xf16>, %[[W:[^:]+]]: tensor<1x32x64xf16>, %[[A:[^:]+]]: tensor<1x32x4xf16>, %[[B:[^:]+]]: tensor<1x4x64xf16>)
// CHECK: %[[R:.*]] = call @lora_small_lax0(%[[X]], %[[W]], %[[A]], %[[B]]) : (tensor<1x4x32xf16>, tensor<1x32x64xf16>, tensor<1x32x4xf16>, tensor<1x4x64xf16>) -> tensor<1x4x64xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @lora_small_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x32xf16>, %[[W:[^:]+]]: tensor<1x32x64xf16>, %[[A:[^:]+]]: tensor<1x32x4xf16>, %[[B:[^:]+]]: tensor<1x4x64xf16>) -> tensor<1x4x64xf16> attributes {ug.level = "kernel", ug.reference = @lora_small_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[W]]) : (tensor<1x4x32xf16>, tensor<1x32x64xf16>) -> tensor<1x4x64xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[A]]) : (tensor<1x4x32xf16>, tensor<1x32x4xf16>) -> tensor<1x4x4xf16>
// CHECK-NEXT: %[[MM2:.*]] = "ug.matmul"(%[[MM1]], %[[B]]) : (tensor<1x4x4xf16>, tensor<1x4x64xf16>) -> tensor<1x4x64xf16>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[MM0]], %[[MM2]]) : (tensor<1x4x64xf16>, tensor<1x4x64xf16>) -> tensor<1x4x64xf16>
// CHECK-NEXT: return %[[ADD]] : tensor<1x4x64xf16>
// CHECK-LABEL: func.func @lora_paper(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x16x256xf16>, %[[W:[^:]+]]: tensor<1x256x4096xf16>, %[[A:[^:]+]]: tensor<1x256x16xf16>, %[[B:[^:]+]]: tensor<1x16x4096xf16>)
// CHECK: %[[R:.*]] = call @lora_paper_lax0(%[[X]], %[[W]], %[[A]], %[[B]]) : (tensor<1x16x256xf16>, tensor<1x256x4096xf16>, tensor<1x256x16xf16>, tensor<1x16x4096xf16>) -> tensor<1x16x4096xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @lora_paper_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x16x256xf16>, %[[W:[^:]+]]: tensor<1x256x4096xf16>, %[[A:[^:]+]]: tensor<1x256x16xf16>, %[[B:[^:]+]]: tensor<1x16x4096xf16>) -> tensor<1x16x4096xf16> attributes {ug.level = "kernel", ug.reference = @lora_paper_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[W]]) : (tensor<1x16x256xf16>, tensor<1x256x4096xf16>) -> tensor<1x16x4096xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[A]]) : (tensor<1x16x256xf16>, tensor<1x256x16xf16>) -> tensor<1x16x16xf16>
// CHECK-NEXT: %[[MM2:.*]] = "ug.matmul"(%[[MM1]], %[[B]]) : (tensor<1x16x16xf16>, tensor<1x16x4096xf16>) -> tensor<1x16x4096xf16>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[MM0]], %[[MM2]]) : (tensor<1x16x4096xf16>, tensor<1x16x4096xf16>) -> tensor<1x16x4096xf16>
// CHECK-NEXT: return %[[ADD]] : tensor<1x16x4096xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
