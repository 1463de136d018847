// Element and copy loops whose step (the block's threads) does not divide
// their extent: every loop has a constant trip count, each thread's
// position is its id plus the pass's offset, and a bounds check skips the
// tail (docs/lower.md, element loops). The CPU form runs the same index
// arithmetic thread by thread, so the JIT checks the offsets and the
// checks against the interpreter: a dropped check writes past the tile, a
// dropped offset leaves elements unwritten.
// RUN: mirage-run --lower %s | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=BOUNDS

// CHECK-DAG: @tail_rows: 1 output, 1280 elements, max abs error {{.*}}: ok
// CHECK-DAG: @tail_carry: 1 output, 1440 elements, max abs error {{.*}}: ok
// CHECK-DAG: @tail_flat: 1 output, 200 elements, max abs error {{.*}}: ok
// CHECK-NOT: MISMATCH

// Every loop starts at a constant (no bound depends on the thread).
// BOUNDS-NOT: scf.for %{{[a-z0-9_]+}} = %{{[^c]}}
// BOUNDS: gpu.module @tail_flat_gpu
// BOUNDS-NOT: scf.for %{{[a-z0-9_]+}} = %{{[^c]}}

// 40 rows of 2 vectors (80) over 64 threads, two per row: 32 rows a pass,
// two passes, the second checked; the prefetch into the other stage too.
// GPU-LABEL: gpu.func @tail_rows_gpu_k1(
// GPU: %[[ROW0:.*]] = arith.divui %thread_id_x, %c2
// GPU: scf.for %[[P:.*]] = %c0{{.*}} to %c40{{.*}} step %c32
// GPU-NEXT: %[[ROW:.*]] = arith.addi %[[ROW0]], %[[P]] : index
// GPU-NEXT: %[[N:.*]] = arith.constant 40 : index
// GPU-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %[[N]] : index
// GPU-NEXT: scf.if %[[IN]] {
// GPU: nvgpu.device_async_copy
// GPU: scf.for {{.*}} = %c0{{.*}} to %c40{{.*}} step %c32
// GPU: scf.if
// GPU: nvgpu.device_async_copy
// GPU: } {mirage.for_loop}
func.func @tail_rows_block(%x: tensor<80x64xf16>) -> tensor<80x16xf32> attributes {ug.block_threads = 64 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<80x64xf16>) -> tensor<40x16xf16>
  %a = "ug.accum"(%t) {kind = "sum"} : (tensor<40x16xf16>) -> tensor<40x16xf32>
  %o = "ug.saver"(%a) {omap = array<i64: 0, -1, -1>} : (tensor<40x16xf32>) -> tensor<80x16xf32>
  func.return %o : tensor<80x16xf32>
}
func.func @tail_rows(%x: tensor<80x64xf16>) -> tensor<80x16xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @tail_rows_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<80x64xf16>) -> tensor<80x16xf32>
  func.return %y : tensor<80x16xf32>
}

// 30 rows of 3 vectors (90) over 64 threads: neither divides the other, so
// the (row, vector) position is carried; two passes, the second checked.
// The tile is loop-invariant and whole vectors: cp.async, every copy in
// flight, one wait and one barrier before its reader.
// GPU-LABEL: gpu.func @tail_carry_gpu_k1(
// GPU: %{{.*}}:2 = scf.for %[[P:.*]] = %c0{{.*}} to %c90{{.*}} step %c64{{.*}} iter_args(
// GPU-NEXT: %[[LIN:.*]] = arith.addi %thread_id_x, %[[P]] : index
// GPU-NEXT: %[[N:.*]] = arith.constant 90 : index
// GPU-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[LIN]], %[[N]] : index
// GPU-NEXT: scf.if %[[IN]] {
// GPU: nvgpu.device_async_copy {{.*}} : memref<60x24xf16> to memref<30x24xf16, #gpu.address_space<workgroup>>
// GPU: }
// GPU: scf.yield
// GPU: nvvm.cp.async.commit.group
// GPU-NEXT: nvvm.cp.async.wait.group 0
// GPU-NEXT: gpu.barrier
func.func @tail_carry_block(%x: tensor<60x24xf16>) -> tensor<60x24xf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<60x24xf16>) -> tensor<30x24xf16>
  %e = "ug.exp"(%t) : (tensor<30x24xf16>) -> tensor<30x24xf16>
  %o = "ug.saver"(%e) {omap = array<i64: 0, -1, -1>} : (tensor<30x24xf16>) -> tensor<60x24xf16>
  func.return %o : tensor<60x24xf16>
}
func.func @tail_carry(%x: tensor<60x24xf16>) -> tensor<60x24xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @tail_carry_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<60x24xf16>) -> tensor<60x24xf16>
  func.return %y : tensor<60x24xf16>
}

// A row of 100 halves (not whole vectors: element by element) over 64
// threads: two passes over the linear index, the second checked.
// GPU-LABEL: gpu.func @tail_flat_gpu_k1(
// GPU: scf.for %[[P:.*]] = %c0{{.*}} to %c100{{.*}} step %c64
// GPU-NEXT: %[[LIN:.*]] = arith.addi %thread_id_x, %[[P]] : index
// GPU-NEXT: %[[N:.*]] = arith.constant 100 : index
// GPU-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[LIN]], %[[N]] : index
// GPU-NEXT: scf.if %[[IN]] {
// GPU: memref.load {{.*}} : memref<2x100xf16>
func.func @tail_flat_block(%x: tensor<2x100xf16>) -> tensor<2x100xf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<2x100xf16>) -> tensor<1x100xf16>
  %e = "ug.exp"(%t) : (tensor<1x100xf16>) -> tensor<1x100xf16>
  %o = "ug.saver"(%e) {omap = array<i64: 0, -1, -1>} : (tensor<1x100xf16>) -> tensor<2x100xf16>
  func.return %o : tensor<2x100xf16>
}
func.func @tail_flat(%x: tensor<2x100xf16>) -> tensor<2x100xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @tail_flat_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x100xf16>) -> tensor<2x100xf16>
  func.return %y : tensor<2x100xf16>
}
