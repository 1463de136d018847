// --mirage-cost prints the cost models' estimates (lib/cost, docs/cost.md)
// per kernel graph and per kernel: "estimated" is the model of the code
// lib/lower emits, "roofline" the idealised one the search ranks by; the
// numbers below are worked out by hand in the comments from the formulas
// and the figures of docs/cost.md.
// RUN: mirage-opt --mirage-cost %s 2>&1 >/dev/null | FileCheck %s
// RUN: mirage-opt --mirage-cost="target=sm_80" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=A100
// RUN: not mirage-opt --mirage-cost="target=sm_70" %s 2>&1 | FileCheck %s --check-prefix=BAD
// The module is not changed.
// RUN: mirage-opt --mirage-cost %s 2>/dev/null | FileCheck %s --check-prefix=SAME

// One f16 matmul (64x128)(128x256) on sm_90 (H100 SXM5).
// Roofline: DRAM = (64*128 + 128*256 + 64*256) * 2 B = 114688 B -> 114688 /
//   (3.35e12 * 0.85) = 0.0403 us; 2*64*256*128 flops / (989.4e12 * 0.7) =
//   0.0061 us; time = 2 us launch + 0.0403 us.
// Emitted: lib/lower's grid-stride kernel, 64 blocks of 256 threads, one
//   result per thread reading its 128 terms from global memory, 4 per
//   round trip (the loop unrolled by 4). Each warp and term loads a sector
//   of A and 32 halves of B: L2 16384/32 * 128 * (32 + 64) = 6291456 B, of
//   which DRAM serves 114688 (7/384): latency 260 + 220 * 7/384 = 264.01
//   cycles. A thread: 32 x (264.01 + 4 FMAs x 4) + 4 (conversion) = 8964.3
//   cycles = 4.527 us at 1.98 GHz, one block per SM: latency-bound (L2
//   6291456 / 4.9e12 = 1.28 us), 2 + 4.53 = 6.53 us.
// Program bound (what any kernels computing @mm take at least): its
//   inputs and output once, 114688 B / 3.35e12 B/s = 0.034 us, against
//   4194304 flops / 989.4e12 = 0.004 us at the tensor-core peak; one
//   launch beside it.
// CHECK: cost.mlir:[[@LINE+6]]:1: remark: mirage-cost: '@mm' on sm_90 (H100 SXM5): 1 kernel(s), estimated 6.53 us, roofline 2.04 us; program bound 0.034 us (DRAM 0.115 MB once at 3.35 TB/s, 4.194e+06 flop at the tensor-core peak) + one launch 2.00 us
// CHECK-NEXT: cost.mlir:[[@LINE+6]]:8: remark: mirage-cost: 'ug.matmul': estimated 6.53 us (latency-bound), roofline 2.04 us (dram-bound), DRAM 0.115 MB, L2 0.115 MB, smem 0.000 MB, 4.194e+06 tensor flop, 0 simt op, 0 sfu op
// CHECK-NEXT: cost.mlir:[[@LINE+5]]:8: remark: mirage-cost: emitted: 256 thread(s), smem 0 B, 4 block(s)/SM (r), 1 round(s), 4.1 KB in flight/SM; block path 4.53 us (memory 4.27, chains 0.26, barriers 0.00); DRAM 0.115 MB, L2 6.291 MB, 2.097e+06 fma
// A100 (1.41 GHz, L2 260, DRAM 470 cycles): 32 x (263.83 + 16) + 4 =
//   8958.5 cycles = 6.35 us.
// A100: '@mm' on sm_80 (A100 SXM4 80GB): 1 kernel(s), estimated 8.35 us, roofline 2.07 us
func.func @mm(%a: tensor<64x128xf16>, %b: tensor<128x256xf16>) -> tensor<64x256xf16> attributes {ug.level = "kernel"} {
  %c = "ug.matmul"(%a, %b) : (tensor<64x128xf16>, tensor<128x256xf16>) -> tensor<64x256xf16>
  func.return %c : tensor<64x256xf16>
}

// The fused RMSNorm kernel, grid 4, for-loop 4, f32. Roofline:
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
// Emitted (cycles at 1.98 GHz): the graph is a GEMV with a row statistic
//   (lib/lower/decide/fused_plan.c), so the split-K form: 24 columns = 6 vectors of 4
//   floats, 8 column groups (2 idle), 256 threads; u = 2 rows per stage
//   (4 stages x 2 x 256 x 16 B = 32 KiB), K = 64 is 1 group. Path: the
//   prologue's DRAM trip 480, the group max(L2 260 + 2 x 4, 480 / 3) =
//   268; 2 shuffle stages (offsets 16, 8) 2 x 34; the partial store 30;
//   the barrier 20; per output (48 on 256 threads: 1) the warp sums 30 +
//   8 x 4, the 32 slice sums 30 + 31 x 4, div_scalar, sqrt, div 3 x 36
//   (4 FP32 steps + 1 SFU each) = 324: 1190 cycles = 0.60 us (memory 480
//   + 260 = 0.37). One block per SM: 2 + 0.60 = 2.60 us, latency-bound.
//   In flight: the 192 threads holding columns x 4 stages x 2 rows x 16 B
//   = 24.6 KB. Before (tile copies, two-stage
//   pipeline): 3.14 us.
// CHECK: cost.mlir:[[@LINE+24]]:1: remark: mirage-cost: '@rms_fused' on sm_90 (H100 SXM5): 1 kernel(s), estimated 2.60 us, roofline 2.30 us
// CHECK-NEXT: remark: mirage-cost: 'ug.custom' @rms_fused_block: 4 block(s), utilization 0.03, estimated 2.60 us (latency-bound), roofline 2.30 us (dram-bound), DRAM 0.026 MB, L2 0.027 MB, smem 0.067 MB, 4.915e+04 tensor flop, 1480 simt op, 8 sfu op
// CHECK-NEXT: remark: mirage-cost: emitted: 256 thread(s), smem 35072 B, 4 block(s)/SM (r), 1 round(s), 24.6 KB in flight/SM; block path 0.60 us (memory 0.37, chains 0.22, barriers 0.01); DRAM 0.026 MB, L2 0.027 MB, 1.229e+04 fma
// A100 (1.41 GHz, DRAM 470): 470 + max(268, 157) + 68 + 30 + 20 + 324 =
//   1180 cycles = 0.84 us.
// A100: '@rms_fused' on sm_80 (A100 SXM4 80GB): 1 kernel(s), estimated 2.84 us, roofline 2.40 us
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


// A loop-invariant tile copy (F = 1: no pipeline): a 128x64 f16 tile is
// 1024 16-byte accesses, 8 per thread of 128, whole vectors from a dense
// buffer, so by cp.async (schedule.c): all 8 of a thread's copies in
// flight, waited for once: 1 round trip of DRAM latency (X is read once),
// 480 cycles = 0.24 us of memory at 1.98 GHz, and 128 x 8 x 16 B = 16.4 KB
// in flight per SM (one block per SM). Synchronous copies, 4 loads per
// wait, took 2 round trips (0.48 us) with 8.2 KB in flight.
// CHECK: remark: mirage-cost: '@copy_sync' on sm_90
// CHECK-NEXT: remark: mirage-cost: 'ug.custom' @copy_sync_block: 2 block(s)
// CHECK-NEXT: remark: mirage-cost: emitted: 128 thread(s), {{.*}}, 16.4 KB in flight/SM; block path {{.*}} (memory 0.24,
func.func @copy_sync_block(%x: tensor<256x64xf16>) -> tensor<256x64xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<256x64xf16>) -> tensor<128x64xf16>
  %e = "ug.exp"(%t) : (tensor<128x64xf16>) -> tensor<128x64xf16>
  %o = "ug.saver"(%e) {omap = array<i64: 0, -1, -1>} : (tensor<128x64xf16>) -> tensor<256x64xf16>
  func.return %o : tensor<256x64xf16>
}
func.func @copy_sync(%x: tensor<256x64xf16>) -> tensor<256x64xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @copy_sync_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<256x64xf16>) -> tensor<256x64xf16>
  func.return %y : tensor<256x64xf16>
}
