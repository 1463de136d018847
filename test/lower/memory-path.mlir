// The memory path of a graph-defined kernel with a for-loop (F = 4):
// tiles move as 16-byte vectors; the tiles the loop reloads have two
// stages and arrive asynchronously (cp.async), iteration i+1's while i
// computes; the tile that does not depend on the iteration (no fmap) is
// loaded once, before the loop; each matmul adds into
// its f32 accumulator directly (no tile, no rounding to f16); barriers only
// where shared memory needs one: after waiting for the iteration's tiles
// (1 per iteration: the next stage is fetched after it, so no thread still
// reads what it overwrites), and once after the loop. The CPU form (the same bodies) equals the interpreter.
// RUN: mirage-run --lower %s | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU

// CHECK-DAG: @two_mm: 1 output, 512 elements, max abs error {{.*}}: ok
// CHECK-DAG: @column_sum: 1 output, 32 elements, max abs error {{.*}}: ok
// CHECK-DAG: @attention_block_sum: 2 outputs, 68 elements, max abs error {{.*}}: ok

// GPU-LABEL: gpu.func @two_mm_gpu_k3(
// The invariant tile V (32x32 of 32x64, picked by the block only), by
// cp.async, every copy in flight, waited for once.
// GPU: nvgpu.device_async_copy {{.*}} : memref<32x64xf16> to memref<32x32xf16, #gpu.address_space<workgroup>>
// GPU: nvvm.cp.async.commit.group
// GPU-NEXT: nvvm.cp.async.wait.group 0
// No barrier before the loop: each iteration opens with one.
// GPU-NOT: gpu.barrier
// The tiles of X and W make 2.5 KiB a stage, so the pipeline gets S = F =
// 4 stages (emit.c: stages until S - 1 hold 16 KiB, at most F): iterations
// 0, 1 and 2 start arriving before the loop, one commit group each.
// GPU: nvgpu.device_async_copy {{.*}}[%c0{{[_0-9]*}}, {{.*}} : memref<8x128xf16> to memref<4x8x32xf16, #gpu.address_space<workgroup>>
// GPU: nvgpu.device_async_copy {{.*}} : memref<128x64xf16> to memref<4x32x32xf16, #gpu.address_space<workgroup>>
// GPU: nvvm.cp.async.commit.group
// GPU: nvgpu.device_async_copy {{.*}}[%c1{{[_0-9]*}}, {{.*}} : memref<8x128xf16> to memref<4x8x32xf16, #gpu.address_space<workgroup>>
// GPU: nvvm.cp.async.commit.group
// GPU: nvgpu.device_async_copy {{.*}}[%c2{{[_0-9]*}}, {{.*}} : memref<8x128xf16> to memref<4x8x32xf16, #gpu.address_space<workgroup>>
// GPU: nvvm.cp.async.commit.group
// GPU-NOT: nvgpu.device_async_copy
// GPU: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1
// Wait for iteration i's tiles (the 2 groups after it may still fly), one
// barrier, then i+3's into stage (i+3) mod 4.
// GPU-NOT: gpu.barrier
// GPU: arith.remui %{{.*}}, %c4{{.*}} : index
// GPU-NEXT: nvvm.cp.async.wait.group 2
// GPU: memref.subview
// GPU-NOT: memref<32x64xf16>, vector<8xf16>
// GPU: gpu.barrier
// GPU: scf.if
// GPU: nvgpu.device_async_copy {{.*}} : memref<8x128xf16> to memref<4x8x32xf16, #gpu.address_space<workgroup>>
// GPU-NOT: gpu.barrier
// GPU: nvgpu.device_async_copy {{.*}} : memref<128x64xf16> to memref<4x32x32xf16, #gpu.address_space<workgroup>>
// GPU-NOT: gpu.barrier
// GPU: nvvm.cp.async.commit.group
// The two matmuls, each adding into its accumulator; no barrier between.
// GPU-NOT: gpu.barrier
// GPU: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// GPU-NOT: gpu.barrier
// GPU: %[[OLD:.*]] = memref.load %{{.*}} : memref<8x32xf32, #gpu.address_space<workgroup>>
// GPU-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} fastmath<contract> : f32
// GPU-NEXT: memref.store %[[NEW]], %{{.*}} : memref<8x32xf32, #gpu.address_space<workgroup>>
// GPU-NOT: gpu.barrier
// GPU: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// GPU-NOT: gpu.barrier
// GPU: memref.store %{{.*}}, %{{.*}} : memref<8x32xf32, #gpu.address_space<workgroup>>
// GPU-NEXT: }
// GPU-NEXT: } {mirage.for_loop}
// GPU-NEXT: gpu.barrier
// GPU: gpu.return
func.func @two_mm_block(%x: tensor<8x128xf16>, %v: tensor<32x64xf16>, %w: tensor<128x64xf16>) -> tensor<8x64xf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<8x128xf16>) -> tensor<8x32xf16>
  %vt = "ug.iterator"(%v) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<32x64xf16>) -> tensor<32x32xf16>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<128x64xf16>) -> tensor<32x32xf16>
  %m1 = "ug.matmul"(%xt, %wt) : (tensor<8x32xf16>, tensor<32x32xf16>) -> tensor<8x32xf16>
  %m2 = "ug.matmul"(%xt, %vt) : (tensor<8x32xf16>, tensor<32x32xf16>) -> tensor<8x32xf16>
  %a1 = "ug.accum"(%m1) {kind = "sum"} : (tensor<8x32xf16>) -> tensor<8x32xf16>
  %a2 = "ug.accum"(%m2) {kind = "sum"} : (tensor<8x32xf16>) -> tensor<8x32xf16>
  %s = "ug.add"(%a1, %a2) : (tensor<8x32xf16>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %o = "ug.saver"(%s) {omap = array<i64: 1, -1, -1>} : (tensor<8x32xf16>) -> tensor<8x64xf16>
  func.return %o : tensor<8x64xf16>
}
func.func @two_mm(%x: tensor<8x128xf16>, %v: tensor<32x64xf16>, %w: tensor<128x64xf16>) -> tensor<8x64xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %v, %w) {kernel = @two_mm_block, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x128xf16>, tensor<32x64xf16>, tensor<128x64xf16>) -> tensor<8x64xf16>
  func.return %y : tensor<8x64xf16>
}

// A column of an Nx1 tensor (the GQA combine's denominators): contiguous,
// so with the unit dim folded away it arrives as 16-byte vectors into its
// stages (S = F = 4).
// GPU-LABEL: gpu.func @column_sum_gpu_k1(
// GPU: %[[V:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : memref<2x64x1xf16> into memref<2x64xf16>
// GPU: %[[T:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<4x1x16x1xf16, #gpu.address_space<workgroup>> into memref<4x1x16xf16, #gpu.address_space<workgroup>>
// GPU: nvgpu.device_async_copy %[[V]][%{{.*}}, %{{.*}}], %[[T]][%{{.*}}, %{{.*}}, %{{.*}}], 8 {bypassL1}
func.func @column_sum_block(%x: tensor<2x64x1xf16>) -> tensor<2x16x1xf32> attributes {ug.block_threads = 32 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<2x64x1xf16>) -> tensor<1x16x1xf16>
  %a = "ug.accum"(%t) {kind = "sum"} : (tensor<1x16x1xf16>) -> tensor<1x16x1xf32>
  %o = "ug.saver"(%a) {omap = array<i64: 0, -1, -1>} : (tensor<1x16x1xf32>) -> tensor<2x16x1xf32>
  func.return %o : tensor<2x16x1xf32>
}
func.func @column_sum(%x: tensor<2x64x1xf16>) -> tensor<2x16x1xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @column_sum_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64x1xf16>) -> tensor<2x16x1xf32>
  func.return %y : tensor<2x16x1xf32>
}

// Attention-shaped (GQA's first kernel): the scores' exp is applied to each
// dot product in registers (no scores tile, no barrier between them); the
// exp values feed the second matmul and the row sums.
// GPU-LABEL: gpu.func @attention_block_sum_gpu_k
// GPU: scf.for
// GPU: %[[DOT:.*]] = scf.for {{.*}} -> (f32)
// GPU-NOT: gpu.barrier
// GPU: math.exp
// GPU: gpu.return
func.func @attention_block_sum_block(%q: tensor<4x16xf16>, %k: tensor<16x64xf16>, %v: tensor<64x16xf16>) -> (tensor<4x16xf32>, tensor<4x1xf32>) attributes {ug.block_threads = 32 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %qt = "ug.iterator"(%q) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<4x16xf16>) -> tensor<4x16xf16>
  %kt = "ug.iterator"(%k) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x64xf16>) -> tensor<16x16xf16>
  %vt = "ug.iterator"(%v) {fmap = 0 : i64, imap = array<i64: -1, -1, -1>} : (tensor<64x16xf16>) -> tensor<16x16xf16>
  %s = "ug.matmul"(%qt, %kt) : (tensor<4x16xf16>, tensor<16x16xf16>) -> tensor<4x16xf16>
  %e = "ug.exp"(%s) : (tensor<4x16xf16>) -> tensor<4x16xf16>
  %o = "ug.matmul"(%e, %vt) : (tensor<4x16xf16>, tensor<16x16xf16>) -> tensor<4x16xf16>
  %a = "ug.accum"(%o) {kind = "sum"} : (tensor<4x16xf16>) -> tensor<4x16xf32>
  %d = "ug.accum"(%e) {kind = "sum_last"} : (tensor<4x16xf16>) -> tensor<4x1xf32>
  %o1 = "ug.saver"(%a) {omap = array<i64: -1, -1, -1>} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %o2 = "ug.saver"(%d) {omap = array<i64: -1, -1, -1>} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  func.return %o1, %o2 : tensor<4x16xf32>, tensor<4x1xf32>
}
func.func @attention_block_sum(%q: tensor<4x16xf16>, %k: tensor<16x64xf16>, %v: tensor<64x16xf16>) -> (tensor<4x16xf32>, tensor<4x1xf32>) attributes {ug.level = "kernel"} {
  %y:2 = "ug.custom"(%q, %k, %v) {kernel = @attention_block_sum_block, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<4x16xf16>, tensor<16x64xf16>, tensor<64x16xf16>) -> (tensor<4x16xf32>, tensor<4x1xf32>)
  func.return %y#0, %y#1 : tensor<4x16xf32>, tensor<4x1xf32>
}
