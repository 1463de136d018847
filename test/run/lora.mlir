// LoRA (benchmark 4: O = X·W + (X·A)·B) at X(8,32), W(32,64), A(32,4),
// B(4,64): TOSA in f16 and bf16, linalg in f32, kernel graphs unfused and as
// one custom kernel holding the three matmuls.
// RUN: mirage-run --compare=lora_tosa_f16,lora_ug_f16 %s | FileCheck %s --check-prefix=TOSA16
// RUN: mirage-run --compare=lora_tosa_bf16,lora_ug_bf16 %s | FileCheck %s --check-prefix=TOSABF16
// RUN: mirage-run --compare=lora_linalg_f32,lora_ug_f32 %s | FileCheck %s --check-prefix=LINALG32
// RUN: mirage-run --compare=lora_linalg_f32,lora_fused_f32 %s | FileCheck %s --check-prefix=FUSED32
// RUN: not mirage-run --compare=lora_linalg_f32,lora_no_adapter_f32 %s | FileCheck %s --check-prefix=WRONG
// The lifter on the same file: every function it lifts must agree with the
// kernel graph it produced (the hand-written kernel graphs above carry no
// ug.reference, so only the lifter's pairs are checked).
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=LIFT

// TOSA16: @lora_tosa_f16 vs @lora_ug_f16: 1 output, 512 elements, max abs error {{.*}}: ok
// TOSABF16: @lora_tosa_bf16 vs @lora_ug_bf16: 1 output, 512 elements, max abs error {{.*}}: ok
// LINALG32: @lora_linalg_f32 vs @lora_ug_f32: 1 output, 512 elements, max abs error {{[0-9.]+}}e-{{0[6-9]|1[0-9]}} (tolerance {{.*}}): ok
// FUSED32: @lora_linalg_f32 vs @lora_fused_f32: 1 output, 512 elements, max abs error {{.*}}: ok
// WRONG: @lora_linalg_f32 vs @lora_no_adapter_f32: MISMATCH at output 0 element {{[0-9]+}}: jit

// LIFT-DAG: @lora_tosa_f16_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-DAG: @lora_tosa_bf16_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-DAG: @lora_linalg_f32_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-NOT: MISMATCH

//===----------------------------------------------------------------------===//
// f16 and bf16, TOSA (3-D, batch 1)
//===----------------------------------------------------------------------===//

func.func @lora_tosa_f16(%x: tensor<1x8x32xf16>, %w: tensor<1x32x64xf16>, %a: tensor<1x32x4xf16>, %b: tensor<1x4x64xf16>) -> tensor<1x8x64xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %xw = tosa.matmul %x, %w, %zp, %zp : (tensor<1x8x32xf16>, tensor<1x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x64xf16>
  %xa = tosa.matmul %x, %a, %zp, %zp : (tensor<1x8x32xf16>, tensor<1x32x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x4xf16>
  %xab = tosa.matmul %xa, %b, %zp, %zp : (tensor<1x8x4xf16>, tensor<1x4x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x64xf16>
  %o = tosa.add %xw, %xab : (tensor<1x8x64xf16>, tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
  return %o : tensor<1x8x64xf16>
}

func.func @lora_ug_f16(%x: tensor<1x8x32xf16>, %w: tensor<1x32x64xf16>, %a: tensor<1x32x4xf16>, %b: tensor<1x4x64xf16>) -> tensor<1x8x64xf16> attributes {ug.level = "kernel"} {
  %xw = "ug.matmul"(%x, %w) : (tensor<1x8x32xf16>, tensor<1x32x64xf16>) -> tensor<1x8x64xf16>
  %xa = "ug.matmul"(%x, %a) : (tensor<1x8x32xf16>, tensor<1x32x4xf16>) -> tensor<1x8x4xf16>
  %xab = "ug.matmul"(%xa, %b) : (tensor<1x8x4xf16>, tensor<1x4x64xf16>) -> tensor<1x8x64xf16>
  %o = "ug.add"(%xw, %xab) : (tensor<1x8x64xf16>, tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
  func.return %o : tensor<1x8x64xf16>
}

func.func @lora_tosa_bf16(%x: tensor<1x8x32xbf16>, %w: tensor<1x32x64xbf16>, %a: tensor<1x32x4xbf16>, %b: tensor<1x4x64xbf16>) -> tensor<1x8x64xbf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %xw = tosa.matmul %x, %w, %zp, %zp : (tensor<1x8x32xbf16>, tensor<1x32x64xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x64xbf16>
  %xa = tosa.matmul %x, %a, %zp, %zp : (tensor<1x8x32xbf16>, tensor<1x32x4xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x4xbf16>
  %xab = tosa.matmul %xa, %b, %zp, %zp : (tensor<1x8x4xbf16>, tensor<1x4x64xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x64xbf16>
  %o = tosa.add %xw, %xab : (tensor<1x8x64xbf16>, tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16>
  return %o : tensor<1x8x64xbf16>
}

func.func @lora_ug_bf16(%x: tensor<1x8x32xbf16>, %w: tensor<1x32x64xbf16>, %a: tensor<1x32x4xbf16>, %b: tensor<1x4x64xbf16>) -> tensor<1x8x64xbf16> attributes {ug.level = "kernel"} {
  %xw = "ug.matmul"(%x, %w) : (tensor<1x8x32xbf16>, tensor<1x32x64xbf16>) -> tensor<1x8x64xbf16>
  %xa = "ug.matmul"(%x, %a) : (tensor<1x8x32xbf16>, tensor<1x32x4xbf16>) -> tensor<1x8x4xbf16>
  %xab = "ug.matmul"(%xa, %b) : (tensor<1x8x4xbf16>, tensor<1x4x64xbf16>) -> tensor<1x8x64xbf16>
  %o = "ug.add"(%xw, %xab) : (tensor<1x8x64xbf16>, tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16>
  func.return %o : tensor<1x8x64xbf16>
}

//===----------------------------------------------------------------------===//
// f32, linalg on tensors (2-D)
//===----------------------------------------------------------------------===//

func.func @lora_linalg_f32(%x: tensor<8x32xf32>, %w: tensor<32x64xf32>, %a: tensor<32x4xf32>, %b: tensor<4x64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x64xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %xw = linalg.matmul ins(%x, %w : tensor<8x32xf32>, tensor<32x64xf32>) outs(%z0 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %xa = linalg.matmul ins(%x, %a : tensor<8x32xf32>, tensor<32x4xf32>) outs(%z1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  // Accumulating into X·W: linalg.matmul adds to its init.
  %o = linalg.matmul ins(%xa, %b : tensor<8x4xf32>, tensor<4x64xf32>) outs(%xw : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %o : tensor<8x64xf32>
}

func.func @lora_ug_f32(%x: tensor<8x32xf32>, %w: tensor<32x64xf32>, %a: tensor<32x4xf32>, %b: tensor<4x64xf32>) -> tensor<8x64xf32> attributes {ug.level = "kernel"} {
  %xw = "ug.matmul"(%x, %w) : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
  %xa = "ug.matmul"(%x, %a) : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  %xab = "ug.matmul"(%xa, %b) : (tensor<8x4xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
  %o = "ug.add"(%xw, %xab) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  func.return %o : tensor<8x64xf32>
}

// One custom kernel holding the three matmuls (as in the paper's best
// μGraph): grid over the output columns, no for-loop.
func.func @lora_fused_f32_block(%x: tensor<8x32xf32>, %w: tensor<32x64xf32>, %a: tensor<32x4xf32>, %b: tensor<4x64xf32>) -> tensor<8x64xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %wt = "ug.iterator"(%w) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<32x64xf32>) -> tensor<32x32xf32>
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<32x4xf32>) -> tensor<32x4xf32>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<4x64xf32>) -> tensor<4x32xf32>
  %xw = "ug.matmul"(%xt, %wt) : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
  %xa = "ug.matmul"(%xt, %at) : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  %xab = "ug.matmul"(%xa, %bt) : (tensor<8x4xf32>, tensor<4x32xf32>) -> tensor<8x32xf32>
  %o = "ug.add"(%xw, %xab) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %out = "ug.saver"(%o) {omap = array<i64: 1, -1, -1>} : (tensor<8x32xf32>) -> tensor<8x64xf32>
  func.return %out : tensor<8x64xf32>
}
func.func @lora_fused_f32(%x: tensor<8x32xf32>, %w: tensor<32x64xf32>, %a: tensor<32x4xf32>, %b: tensor<4x64xf32>) -> tensor<8x64xf32> attributes {ug.level = "kernel"} {
  %o = "ug.custom"(%x, %w, %a, %b) {kernel = @lora_fused_f32_block, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x32xf32>, tensor<32x64xf32>, tensor<32x4xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
  func.return %o : tensor<8x64xf32>
}

// Wrong on purpose: drops the low-rank adapter (O = X·W only).
func.func @lora_no_adapter_f32(%x: tensor<8x32xf32>, %w: tensor<32x64xf32>, %a: tensor<32x4xf32>, %b: tensor<4x64xf32>) -> tensor<8x64xf32> attributes {ug.level = "kernel"} {
  %xw = "ug.matmul"(%x, %w) : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
  func.return %xw : tensor<8x64xf32>
}
