// A block graph that is a GEMV with row statistics and an element-wise
// epilogue (Mirage's one-kernel RMSNorm + matmul) lowers through gemv.c's
// split-K form (lib/lower/decide/fused_plan.c): B's slices stream through the
// cp.async ring of 4 stages (wait_group 3) over a loop of constant trip
// count, each thread sums its scalars of X (or their squares) beside the
// FMAs, the 32 slices' statistics meet in shared memory, and the epilogue
// runs per output after the one barrier. The CPU form runs the same code
// with the threads as loops: mirage-run checks the split, the idle lanes
// of a block whose columns are not a power-of-two count of vectors
// (@rms: 3 vectors of 8, 4 column groups), row groups from a grid axis
// that cuts X's rows (@rows), a K with a tail past the ring's whole
// groups and two statistics (@rows: K = 336), against the interpreter.
// RUN: mirage-run --lower %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s

// NUM: @rms: 1 output, 384 elements, max abs error {{0\.00[0-9]+}} (tolerance {{.*}}): ok
// NUM: @rows: 1 output, 768 elements, max abs error {{0\.0[0-9]+}} (tolerance {{.*}}): ok

// CHECK-LABEL: gpu.func @rms_gpu_k2(
// The partial sums, the ring (4 stages x 4 rows x 128 threads x 8 f16),
// the sums of squares (1 statistic x 32 slices x 2 rows); 128 threads,
// one block per 24 columns.
// CHECK-SAME: workgroup(%{{.*}} : memref<4x2x32xf32, #gpu.address_space<workgroup>> {{.*}}, %[[RING:.*]] : memref<4x4x128x8xf16, #gpu.address_space<workgroup>> {{.*}}, %[[STAT:.*]] : memref<1x32x2xf32, #gpu.address_space<workgroup>> {{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 8, 1, 1>}
// CHECK-NOT: gpu.barrier
// Column group 3 of 4 idles.
// CHECK: arith.cmpi ult, %{{.*}}, %c3
// The prologue commits 3 groups: K = 256 is 2 groups of 4 rows x 32
// slices, so the third is empty (the wait count stays uniform).
// CHECK: nvgpu.device_async_copy {{.*}}, %[[RING]][{{.*}}], 8 {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvgpu.device_async_copy {{.*}}, %[[RING]][{{.*}}], 8 {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.commit.group
// The ring loop: constant bounds (every thread runs 2 iterations).
// CHECK-NEXT: %[[LO:c0[_0-9]*]] = arith.constant 0 : index
// CHECK-NEXT: %[[HI:c2[_0-9]*]] = arith.constant 2 : index
// CHECK-NEXT: %[[ONE:c1[_0-9]*]] = arith.constant 1 : index
// CHECK-NEXT: scf.for %{{.*}} = %[[LO]] to %[[HI]] step %[[ONE]] iter_args(
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 3
// CHECK: vector.fma
// CHECK: math.fma
// CHECK-NOT: gpu.barrier
// Each slice's first column group stores its sums of squares.
// CHECK: memref.store %{{.*}}, %[[STAT]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// The epilogue per output: 32 slice sums loaded, the mean, sqrt, divide.
// CHECK: memref.load %[[STAT]]
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: arith.truncf
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @rows_gpu_k2(
// Two statistics; 2 row groups x 4 column blocks, rows fastest.
// CHECK-SAME: memref<2x32x2xf32, #gpu.address_space<workgroup>>
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 8, 1, 1>
// CHECK: nvvm.cp.async.wait.group 3
// CHECK: math.fma
// CHECK: arith.addf
// CHECK: math.rsqrt
// CHECK: gpu.return

func.func private @rms_k(%x: tensor<1x2x256xf16>, %w: tensor<1x256x192xf16>) -> tensor<1x2x192xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 8, 1, 1>, ug.level = "block"} {
  %0 = "ug.iterator"(%x) {fmap = 2 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x2x256xf16>) -> tensor<1x2x64xf16>
  %1 = "ug.iterator"(%w) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x256x192xf16>) -> tensor<1x64x24xf16>
  %2 = "ug.matmul"(%0, %1) : (tensor<1x2x64xf16>, tensor<1x64x24xf16>) -> tensor<1x2x24xf16>
  %3 = "ug.accum"(%2) {kind = "sum"} : (tensor<1x2x24xf16>) -> tensor<1x2x24xf32>
  %4 = "ug.accum"(%0) {kind = "sum_sq_last"} : (tensor<1x2x64xf16>) -> tensor<1x2x1xf32>
  %5 = "ug.mul_scalar"(%4) {scalar = 3.906250e-03 : f64} : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %6 = "ug.sqrt"(%5) : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %7 = "ug.div"(%3, %6) : (tensor<1x2x24xf32>, tensor<1x2x1xf32>) -> tensor<1x2x24xf32>
  %8 = "ug.saver"(%7) {omap = array<i64: 2, -1, -1>} : (tensor<1x2x24xf32>) -> tensor<1x2x192xf16>
  return %8 : tensor<1x2x192xf16>
}
func.func @rms(%x: tensor<1x2x256xf16>, %w: tensor<1x256x192xf16>) -> tensor<1x2x192xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%x, %w) {kernel = @rms_k, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x2x256xf16>, tensor<1x256x192xf16>) -> tensor<1x2x192xf16>
  return %0 : tensor<1x2x192xf16>
}

// F = 1: the matmul feeds the epilogue directly; y = (X·W) · rsqrt(Σx²/K)
// - Σx/K.
func.func private @rows_k(%x: tensor<4x336xf16>, %w: tensor<336x192xf16>) -> tensor<4x192xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 4, 1>, ug.level = "block"} {
  %0 = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<4x336xf16>) -> tensor<2x336xf16>
  %1 = "ug.iterator"(%w) {fmap = -1 : i64, imap = array<i64: -1, 1, -1>} : (tensor<336x192xf16>) -> tensor<336x48xf16>
  %2 = "ug.matmul"(%0, %1) : (tensor<2x336xf16>, tensor<336x48xf16>) -> tensor<2x48xf32>
  %3 = "ug.accum"(%0) {kind = "sum_sq_last"} : (tensor<2x336xf16>) -> tensor<2x1xf32>
  %4 = "ug.accum"(%0) {kind = "sum_last"} : (tensor<2x336xf16>) -> tensor<2x1xf32>
  %5 = "ug.div_scalar"(%3) {scalar = 3.360000e+02 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %6 = "ug.rsqrt"(%5) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %7 = "ug.mul"(%2, %6) : (tensor<2x48xf32>, tensor<2x1xf32>) -> tensor<2x48xf32>
  %8 = "ug.div_scalar"(%4) {scalar = 3.360000e+02 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %9 = "ug.sub"(%7, %8) : (tensor<2x48xf32>, tensor<2x1xf32>) -> tensor<2x48xf32>
  %10 = "ug.saver"(%9) {omap = array<i64: 0, 1, -1>} : (tensor<2x48xf32>) -> tensor<4x192xf16>
  return %10 : tensor<4x192xf16>
}
func.func @rows(%x: tensor<4x336xf16>, %w: tensor<336x192xf16>) -> tensor<4x192xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%x, %w) {kernel = @rows_k, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x336xf16>, tensor<336x192xf16>) -> tensor<4x192xf16>
  return %0 : tensor<4x192xf16>
}
