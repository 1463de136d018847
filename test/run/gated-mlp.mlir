// Gated MLP (benchmark 5: O = silu(X·W1) * (X·W2)) at X(8,32), W1, W2
// (32,64): TOSA in f16, linalg in f32, kernel graphs unfused and as one
// custom kernel with a thread graph for silu·mul.
// RUN: mirage-run --compare=mlp_tosa_f16,mlp_ug_f16 %s | FileCheck %s --check-prefix=TOSA16
// RUN: mirage-run --compare=mlp_linalg_f32,mlp_ug_f32 %s | FileCheck %s --check-prefix=LINALG32
// RUN: mirage-run --compare=mlp_linalg_f32,mlp_fused_f32 %s | FileCheck %s --check-prefix=FUSED32
// RUN: not mirage-run --compare=mlp_linalg_f32,mlp_gelu_f32 %s | FileCheck %s --check-prefix=WRONG
// The lifter on the same file: every function it lifts must agree with the
// kernel graph it produced (the hand-written kernel graphs above carry no
// ug.reference, so only the lifter's pairs are checked).
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=LIFT

// TOSA16: @mlp_tosa_f16 vs @mlp_ug_f16: 1 output, 512 elements, max abs error {{.*}}: ok
// LINALG32: @mlp_linalg_f32 vs @mlp_ug_f32: 1 output, 512 elements, max abs error {{[0-9.]+}}e-{{0[6-9]|1[0-9]}} (tolerance {{.*}}): ok
// FUSED32: @mlp_linalg_f32 vs @mlp_fused_f32: 1 output, 512 elements, max abs error {{.*}}: ok
// gelu is close to silu but not within rounding error.
// WRONG: @mlp_linalg_f32 vs @mlp_gelu_f32: MISMATCH at output 0 element {{[0-9]+}}: jit

// LIFT-DAG: @mlp_tosa_f16_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-DAG: @mlp_linalg_f32_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-NOT: MISMATCH

//===----------------------------------------------------------------------===//
// f16, TOSA (3-D, batch 1); silu(x) = x · sigmoid(x)
//===----------------------------------------------------------------------===//

func.func @mlp_tosa_f16(%x: tensor<1x8x32xf16>, %w1: tensor<1x32x64xf16>, %w2: tensor<1x32x64xf16>) -> tensor<1x8x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %g = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x8x32xf16>, tensor<1x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x64xf16>
  %u = tosa.matmul %x, %w2, %zp, %zp : (tensor<1x8x32xf16>, tensor<1x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x64xf16>
  %sig = tosa.sigmoid %g : (tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
  %silu = tosa.mul %g, %sig, %shift : (tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1xi8>) -> tensor<1x8x64xf16>
  %o = tosa.mul %silu, %u, %shift : (tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1xi8>) -> tensor<1x8x64xf16>
  return %o : tensor<1x8x64xf16>
}

func.func @mlp_ug_f16(%x: tensor<1x8x32xf16>, %w1: tensor<1x32x64xf16>, %w2: tensor<1x32x64xf16>) -> tensor<1x8x64xf16> attributes {ug.level = "kernel"} {
  %g = "ug.matmul"(%x, %w1) : (tensor<1x8x32xf16>, tensor<1x32x64xf16>) -> tensor<1x8x64xf16>
  %u = "ug.matmul"(%x, %w2) : (tensor<1x8x32xf16>, tensor<1x32x64xf16>) -> tensor<1x8x64xf16>
  %s = "ug.silu"(%g) : (tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
  %o = "ug.mul"(%s, %u) : (tensor<1x8x64xf16>, tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
  func.return %o : tensor<1x8x64xf16>
}

//===----------------------------------------------------------------------===//
// f32, linalg on tensors (2-D); silu written out as x / (1 + exp(-x))
//===----------------------------------------------------------------------===//

func.func @mlp_linalg_f32(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<32x64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %g = linalg.matmul ins(%x, %w1 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%z : tensor<8x64xf32>) -> tensor<8x64xf32>
  %u = linalg.matmul ins(%x, %w2 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%z : tensor<8x64xf32>) -> tensor<8x64xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%g, %u : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %den = arith.addf %one, %ex : f32
    %s = arith.divf %a, %den : f32
    %m = arith.mulf %s, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x64xf32>
  return %o : tensor<8x64xf32>
}

func.func @mlp_ug_f32(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<32x64xf32>) -> tensor<8x64xf32> attributes {ug.level = "kernel"} {
  %g = "ug.matmul"(%x, %w1) : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
  %u = "ug.matmul"(%x, %w2) : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
  %s = "ug.silu"(%g) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %o = "ug.mul"(%s, %u) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  func.return %o : tensor<8x64xf32>
}

// One custom kernel: grid over the output columns, for-loop over k with two
// matmul accumulators, silu·mul fused in a thread graph after the loop.
func.func @mlp_fused_f32_thread(%g: tensor<8x16xf32>, %u: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {ug.level = "thread"} {
  %s = "ug.silu"(%g) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = "ug.mul"(%s, %u) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %o : tensor<8x16xf32>
}
func.func @mlp_fused_f32_block(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<32x64xf32>) -> tensor<8x64xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<8x32xf32>) -> tensor<8x8xf32>
  %w1t = "ug.iterator"(%w1) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<32x64xf32>) -> tensor<8x16xf32>
  %w2t = "ug.iterator"(%w2) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<32x64xf32>) -> tensor<8x16xf32>
  %g = "ug.matmul"(%xt, %w1t) : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %u = "ug.matmul"(%xt, %w2t) : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %ga = "ug.accum"(%g) {kind = "sum"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %ua = "ug.accum"(%u) {kind = "sum"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = "ug.thread"(%ga, %ua) {kernel = @mlp_fused_f32_thread, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %out = "ug.saver"(%o) {omap = array<i64: 1, -1, -1>} : (tensor<8x16xf32>) -> tensor<8x64xf32>
  func.return %out : tensor<8x64xf32>
}
func.func @mlp_fused_f32(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<32x64xf32>) -> tensor<8x64xf32> attributes {ug.level = "kernel"} {
  %o = "ug.custom"(%x, %w1, %w2) {kernel = @mlp_fused_f32_block, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x32xf32>, tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
  func.return %o : tensor<8x64xf32>
}

// Wrong on purpose: gelu instead of silu.
func.func @mlp_gelu_f32(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<32x64xf32>) -> tensor<8x64xf32> attributes {ug.level = "kernel"} {
  %g = "ug.matmul"(%x, %w1) : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
  %u = "ug.matmul"(%x, %w2) : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
  %s = "ug.gelu"(%g) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %o = "ug.mul"(%s, %u) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  func.return %o : tensor<8x64xf32>
}
