// A block graph with several matmuls sharing A's iterator, each over its
// own B (the gated MLP's one-kernel form, silu(X·W1) * (X·W3)), lowers
// through gemv.c's split-K form (lib/lower/decide/fused_plan.c): the streams' column
// groups sit side by side in the block, each thread streams its B (a
// select of the kernel's memrefs, no branch) through the one cp.async
// ring, and the thread storing an output adds each stream's warp sums and
// applies the epilogue once in f32. mirage-run checks the CPU form, which
// runs the same code with the threads as loops, against the interpreter:
// @gated (2 streams x 2 vectors, 4 column groups, F = 4, K = 256: two
// ring groups and an empty third), @three (3 streams x 2 vectors: 6 of 8
// column groups, 2 idle; F = 1, the matmuls read directly; row groups
// from a grid axis; K = 336, a tail past the ring; a statistic, Σx²),
// @same_b and @two_a (fall back: the same B twice, two A's).
// RUN: mirage-run --lower %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s

// NUM: @gated: 1 output, 1024 elements, max abs error {{0\.[0-9]+}} (tolerance {{.*}}): ok
// NUM: @three: 1 output, 384 elements, max abs error {{0\.[0-9]+}} (tolerance {{.*}}): ok
// NUM: @same_b: 1 output, {{.*}}: ok
// NUM: @two_a: 1 output, {{.*}}: ok

// CHECK-LABEL: gpu.func @gated_gpu_k3(
// Partial sums over both streams' columns (4 warps x 8 rows x 32), the
// ring (4 stages x 4 rows x 128 threads x 8 f16); 128 threads, 8 blocks.
// CHECK-SAME: workgroup(%{{.*}} : memref<4x8x32xf32, #gpu.address_space<workgroup>> {{.*}}, %[[RING:.*]] : memref<4x4x128x8xf16, #gpu.address_space<workgroup>> {{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 8, 1, 1>}
// CHECK: %[[W1:.*]] = memref.assume_alignment %arg1, 16
// CHECK: %[[W3:.*]] = memref.assume_alignment %arg2, 16
// The thread's stream: column group / 2 selects W3 or W1.
// CHECK: %[[S:.*]] = arith.cmpi eq,
// CHECK: %[[SEL:.*]] = arith.select %[[S]], %[[W3]], %[[W1]] : memref<1x256x128xf16>
// CHECK: %[[B:.*]] = memref.assume_alignment %[[SEL]], 16
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.device_async_copy %[[B]][{{.*}}], %[[RING]][{{.*}}], 8 {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvgpu.device_async_copy %[[B]][{{.*}}], %[[RING]][{{.*}}], 8 {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.commit.group
// The ring loop: constant bounds, every thread runs 2 iterations.
// CHECK-NEXT: %[[LO:c0[_0-9]*]] = arith.constant 0 : index
// CHECK-NEXT: %[[HI:c2[_0-9]*]] = arith.constant 2 : index
// CHECK-NEXT: %[[ONE:c1[_0-9]*]] = arith.constant 1 : index
// CHECK-NEXT: scf.for %{{.*}} = %[[LO]] to %[[HI]] step %[[ONE]] iter_args(
// CHECK: nvgpu.device_async_copy %[[B]]
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 3
// CHECK: vector.fma
// CHECK-NOT: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// Per output: stream 1's sums 16 columns on, silu (exp), the product, one
// store.
// CHECK: arith.constant 16 : index
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: arith.truncf
// CHECK: memref.store
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @three_gpu_k4(
// 8 column groups (256 threads), 2 row groups x 6 column blocks, rows
// fastest; the statistic's buffer.
// CHECK-SAME: memref<1x32x2xf32, #gpu.address_space<workgroup>>
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 12, 1, 1>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : memref<336x96xf16>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : memref<336x96xf16>
// Column groups 6 and 7 idle.
// CHECK: arith.cmpi ult, %{{.*}}, %c6
// CHECK: nvvm.cp.async.wait.group 3
// CHECK: math.fma
// CHECK: math.rsqrt
// CHECK: gpu.return

// The generic tile path: the block's 256 threads, no stream select.
// CHECK-LABEL: gpu.func @same_b_gpu_k2(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-NOT: arith.select {{.*}} : memref
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @two_a_gpu_k4(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: gpu.return

func.func private @gated_k(%x: tensor<1x8x256xf16>, %w1: tensor<1x256x128xf16>, %w3: tensor<1x256x128xf16>) -> tensor<1x8x128xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 8, 1, 1>, ug.level = "block"} {
  %0 = "ug.iterator"(%x) {fmap = 2 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x8x256xf16>) -> tensor<1x8x64xf16>
  %1 = "ug.iterator"(%w1) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x256x128xf16>) -> tensor<1x64x16xf16>
  %2 = "ug.iterator"(%w3) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x256x128xf16>) -> tensor<1x64x16xf16>
  %3 = "ug.matmul"(%0, %1) : (tensor<1x8x64xf16>, tensor<1x64x16xf16>) -> tensor<1x8x16xf16>
  %4 = "ug.accum"(%3) {kind = "sum"} : (tensor<1x8x16xf16>) -> tensor<1x8x16xf32>
  %5 = "ug.matmul"(%0, %2) : (tensor<1x8x64xf16>, tensor<1x64x16xf16>) -> tensor<1x8x16xf16>
  %6 = "ug.accum"(%5) {kind = "sum"} : (tensor<1x8x16xf16>) -> tensor<1x8x16xf32>
  %7 = "ug.silu"(%4) : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %8 = "ug.mul"(%7, %6) : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %9 = "ug.saver"(%8) {omap = array<i64: 2, -1, -1>} : (tensor<1x8x16xf32>) -> tensor<1x8x128xf16>
  return %9 : tensor<1x8x128xf16>
}
func.func @gated(%x: tensor<1x8x256xf16>, %w1: tensor<1x256x128xf16>, %w3: tensor<1x256x128xf16>) -> tensor<1x8x128xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%x, %w1, %w3) {kernel = @gated_k, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x8x256xf16>, tensor<1x256x128xf16>, tensor<1x256x128xf16>) -> tensor<1x8x128xf16>
  return %0 : tensor<1x8x128xf16>
}

func.func private @three_k(%x: tensor<4x336xf16>, %w1: tensor<336x96xf16>, %w2: tensor<336x96xf16>, %w3: tensor<336x96xf16>) -> tensor<4x96xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 6, 1>, ug.level = "block"} {
  %0 = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<4x336xf16>) -> tensor<2x336xf16>
  %1 = "ug.iterator"(%w1) {fmap = -1 : i64, imap = array<i64: -1, 1, -1>} : (tensor<336x96xf16>) -> tensor<336x16xf16>
  %2 = "ug.iterator"(%w2) {fmap = -1 : i64, imap = array<i64: -1, 1, -1>} : (tensor<336x96xf16>) -> tensor<336x16xf16>
  %3 = "ug.iterator"(%w3) {fmap = -1 : i64, imap = array<i64: -1, 1, -1>} : (tensor<336x96xf16>) -> tensor<336x16xf16>
  %4 = "ug.matmul"(%0, %1) : (tensor<2x336xf16>, tensor<336x16xf16>) -> tensor<2x16xf32>
  %5 = "ug.matmul"(%0, %2) : (tensor<2x336xf16>, tensor<336x16xf16>) -> tensor<2x16xf32>
  %6 = "ug.matmul"(%0, %3) : (tensor<2x336xf16>, tensor<336x16xf16>) -> tensor<2x16xf32>
  %7 = "ug.accum"(%0) {kind = "sum_sq_last"} : (tensor<2x336xf16>) -> tensor<2x1xf32>
  %8 = "ug.div_scalar"(%7) {scalar = 3.360000e+02 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %9 = "ug.rsqrt"(%8) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %10 = "ug.silu"(%4) : (tensor<2x16xf32>) -> tensor<2x16xf32>
  %11 = "ug.mul"(%10, %5) : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  %12 = "ug.sub"(%11, %6) : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  %13 = "ug.mul"(%12, %9) : (tensor<2x16xf32>, tensor<2x1xf32>) -> tensor<2x16xf32>
  %14 = "ug.saver"(%13) {omap = array<i64: 0, 1, -1>} : (tensor<2x16xf32>) -> tensor<4x96xf16>
  return %14 : tensor<4x96xf16>
}
func.func @three(%x: tensor<4x336xf16>, %w1: tensor<336x96xf16>, %w2: tensor<336x96xf16>, %w3: tensor<336x96xf16>) -> tensor<4x96xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%x, %w1, %w2, %w3) {kernel = @three_k, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x336xf16>, tensor<336x96xf16>, tensor<336x96xf16>, tensor<336x96xf16>) -> tensor<4x96xf16>
  return %0 : tensor<4x96xf16>
}

// Fall back: both matmuls read the same B.
func.func private @same_b_k(%x: tensor<1x8x256xf16>, %w1: tensor<1x256x128xf16>) -> tensor<1x8x128xf16> attributes {ug.block_threads = 256 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 8, 1, 1>, ug.level = "block"} {
  %0 = "ug.iterator"(%x) {fmap = 2 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x8x256xf16>) -> tensor<1x8x64xf16>
  %1 = "ug.iterator"(%w1) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x256x128xf16>) -> tensor<1x64x16xf16>
  %2 = "ug.iterator"(%w1) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x256x128xf16>) -> tensor<1x64x16xf16>
  %3 = "ug.matmul"(%0, %1) : (tensor<1x8x64xf16>, tensor<1x64x16xf16>) -> tensor<1x8x16xf16>
  %4 = "ug.accum"(%3) {kind = "sum"} : (tensor<1x8x16xf16>) -> tensor<1x8x16xf32>
  %5 = "ug.matmul"(%0, %2) : (tensor<1x8x64xf16>, tensor<1x64x16xf16>) -> tensor<1x8x16xf16>
  %6 = "ug.accum"(%5) {kind = "sum"} : (tensor<1x8x16xf16>) -> tensor<1x8x16xf32>
  %7 = "ug.silu"(%4) : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %8 = "ug.mul"(%7, %6) : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %9 = "ug.saver"(%8) {omap = array<i64: 2, -1, -1>} : (tensor<1x8x16xf32>) -> tensor<1x8x128xf16>
  return %9 : tensor<1x8x128xf16>
}
func.func @same_b(%x: tensor<1x8x256xf16>, %w1: tensor<1x256x128xf16>) -> tensor<1x8x128xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%x, %w1) {kernel = @same_b_k, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x8x256xf16>, tensor<1x256x128xf16>) -> tensor<1x8x128xf16>
  return %0 : tensor<1x8x128xf16>
}

// Fall back: the matmuls read two A's.
func.func private @two_a_k(%x: tensor<1x8x256xf16>, %y: tensor<1x8x256xf16>, %w1: tensor<1x256x128xf16>, %w3: tensor<1x256x128xf16>) -> tensor<1x8x128xf16> attributes {ug.block_threads = 256 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 8, 1, 1>, ug.level = "block"} {
  %0 = "ug.iterator"(%x) {fmap = 2 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x8x256xf16>) -> tensor<1x8x64xf16>
  %a = "ug.iterator"(%y) {fmap = 2 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x8x256xf16>) -> tensor<1x8x64xf16>
  %1 = "ug.iterator"(%w1) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x256x128xf16>) -> tensor<1x64x16xf16>
  %2 = "ug.iterator"(%w3) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x256x128xf16>) -> tensor<1x64x16xf16>
  %3 = "ug.matmul"(%0, %1) : (tensor<1x8x64xf16>, tensor<1x64x16xf16>) -> tensor<1x8x16xf16>
  %4 = "ug.accum"(%3) {kind = "sum"} : (tensor<1x8x16xf16>) -> tensor<1x8x16xf32>
  %5 = "ug.matmul"(%a, %2) : (tensor<1x8x64xf16>, tensor<1x64x16xf16>) -> tensor<1x8x16xf16>
  %6 = "ug.accum"(%5) {kind = "sum"} : (tensor<1x8x16xf16>) -> tensor<1x8x16xf32>
  %7 = "ug.mul"(%4, %6) : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %9 = "ug.saver"(%7) {omap = array<i64: 2, -1, -1>} : (tensor<1x8x16xf32>) -> tensor<1x8x128xf16>
  return %9 : tensor<1x8x128xf16>
}
func.func @two_a(%x: tensor<1x8x256xf16>, %y: tensor<1x8x256xf16>, %w1: tensor<1x256x128xf16>, %w3: tensor<1x256x128xf16>) -> tensor<1x8x128xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%x, %y, %w1, %w3) {kernel = @two_a_k, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x8x256xf16>, tensor<1x8x256xf16>, tensor<1x256x128xf16>, tensor<1x256x128xf16>) -> tensor<1x8x128xf16>
  return %0 : tensor<1x8x128xf16>
}
