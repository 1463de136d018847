// --mirage-cost prints the cost model's estimate (lib/cost, docs/cost.md)
// per kernel graph and per kernel; the numbers below are worked out by hand
// in the comments from the formulas of docs/cost.md.
// RUN: mirage-opt --mirage-cost %s 2>&1 >/dev/null | FileCheck %s
// RUN: mirage-opt --mirage-cost="target=sm_80" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=A100
// RUN: not mirage-opt --mirage-cost="target=sm_70" %s 2>&1 | FileCheck %s --check-prefix=BAD
// The module is not changed.
// RUN: mirage-opt --mirage-cost %s 2>/dev/null | FileCheck %s --check-prefix=SAME

// One f16 matmul (64x128)(128x256) on sm_90 (H100 SXM5):
//   DRAM = (64*128 + 128*256 + 64*256) * 2 B = 114688 B -> 114688 / (3.35e12
//   * 0.85) = 0.0403 us; 2*64*256*128 flops / (989.4e12 * 0.7) = 0.0061 us;
//   time = 2 us launch + 0.0403 us.
// CHECK: cost.mlir:[[@LINE+3]]:1: remark: mirage-cost: '@mm' on sm_90 (H100 SXM5): 1 kernel(s), estimated 2.04 us
// CHECK-NEXT: cost.mlir:[[@LINE+3]]:8: remark: mirage-cost: 'ug.matmul': 2.04 us (dram-bound), DRAM 0.115 MB, L2 0.115 MB, smem 0.000 MB, 4.194e+06 tensor flop, 0 simt op, 0 sfu op
// A100: '@mm' on sm_80 (A100 SXM4 80GB): 1 kernel(s), estimated 2.07 us
func.func @mm(%a: tensor<64x128xf16>, %b: tensor<128x256xf16>) -> tensor<64x256xf16> attributes {ug.level = "kernel"} {
  %c = "ug.matmul"(%a, %b) : (tensor<64x128xf16>, tensor<128x256xf16>) -> tensor<64x256xf16>
  func.return %c : tensor<64x256xf16>
}

// The fused RMSNorm kernel, grid 4, for-loop 4, f32:
//   iterators: X tiles 128 B x 4 loads x 4 blocks = 2048 B through L2, X is
//   512 B and fits the L2, so DRAM reads it once; W tiles 1536 B x 16 =
//   24576 B = W, read once; saver 192 B x 4 = 768 B.
//   DRAM 512 + 24576 + 768 = 25856 B; L2 2048 + 24576 + 768 = 27392 B.
//   In the loop (x16): matmul 2*2*24*16 flops, f32 counted twice = 3072;
//   accumulators 48 + 32 lane ops. After it (x4): div_scalar 2, div 48 lane
//   ops, sqrt 2 sfu ops. simt = 16*80 + 4*50 = 1480.
//   smem: iterators 2048 + 24576, loop ops 16 * (1856 + 384 + 136), post
//   ops 4 * (16 + 16 + 392), saver 768: 67104 B.
//   DRAM time 25856 / 2.8475e12 = 9.08 ns is the largest; 4 blocks on 132
//   SMs keep 4/132 of the SM time busy: body 0.2996 us.
// CHECK: cost.mlir:[[@LINE+21]]:1: remark: mirage-cost: '@rms_fused' on sm_90 (H100 SXM5): 1 kernel(s), estimated 2.30 us
// CHECK-NEXT: remark: mirage-cost: 'ug.custom' @rms_fused_block: 4 block(s), utilization 0.03, 2.30 us (dram-bound), DRAM 0.026 MB, L2 0.027 MB, smem 0.067 MB, 4.915e+04 tensor flop, 1480 simt op, 8 sfu op
// A100: '@rms_fused' on sm_80 (A100 SXM4 80GB): 1 kernel(s)
// A100-NEXT: 'ug.custom' @rms_fused_block: 4 block(s), utilization 0.04
// BAD: unknown target 'sm_70'
// SAME: func.func @mm(
// SAME: "ug.custom"
// The paper's fused kernel: grid over W's columns, for-loop over k, an rms
// accumulator next to the matmul accumulator, division after the loop.
func.func @rms_fused_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x16xf32>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf32>) -> tensor<16x24xf32>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x16xf32>, tensor<16x24xf32>) -> tensor<2x24xf32>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<2x24xf32>) -> tensor<2x24xf32>
  %ss = "ug.accum"(%xt) {kind = "sum_sq_last"} : (tensor<2x16xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "ug.div"(%acc, %rms) : (tensor<2x24xf32>, tensor<2x1xf32>) -> tensor<2x24xf32>
  %o = "ug.saver"(%y) {omap = array<i64: 1, -1, -1>} : (tensor<2x24xf32>) -> tensor<2x96xf32>
  func.return %o : tensor<2x96xf32>
}
func.func @rms_fused(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_fused_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}

