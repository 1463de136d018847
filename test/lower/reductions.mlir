// Cooperative reductions: a reduction of >= 32 terms whose block has fewer
// result elements than threads runs on a group of 32·m threads per element
// (lanes stride over the terms, an xor butterfly of warp shuffles, then the
// m warp sums through shared memory in warp order). The CPU form runs the
// same additions in the same order, so mirage-run checks the lane split,
// the butterfly and the cross-warp step against the interpreter. With at
// least as many elements as threads no thread idles and each reduces its
// elements in turn; over the tile's innermost dim each row starts at a
// term staggered by its row index (thread t reading row t from term 0
// would put a warp's lanes on one shared-memory bank), over an outer dim
// consecutive lanes read consecutive addresses already.
// RUN: mirage-run --lower %s | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU

// CHECK-DAG: @one_row: 1 output, 2 elements, max abs error {{.*}}: ok
// CHECK-DAG: @two_rows: 1 output, 4 elements, max abs error {{.*}}: ok
// CHECK-DAG: @gemv: 1 output, 4 elements, max abs error {{.*}}: ok
// CHECK-DAG: @many_rows: 1 output, 96 elements, max abs error {{.*}}: ok
// CHECK-DAG: @norm_accum: 1 output, 4 elements, max abs error {{.*}}: ok
// CHECK-DAG: @rows_per_thread: 1 output, 512 elements, max abs error {{.*}}: ok
// CHECK-DAG: @columns: 1 output, 256 elements, max abs error {{.*}}: ok
// CHECK-DAG: @rows_wrapped: 1 output, 320 elements, max abs error {{.*}}: ok
// CHECK-NOT: MISMATCH

// One row of 1000 per block (128 threads: all 4 warps on the element, the
// tail of 1000 = 7·128 + 104 handled by the lane loop's bound).
// GPU-LABEL: gpu.func @one_row_gpu_k1(
// GPU-SAME: workgroup({{.*}}, %[[RED:arg[0-9]+]] : memref<4xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU: scf.for
// GPU-COUNT-5: gpu.shuffle xor
// GPU: memref.store %{{.*}}, %[[RED]][%{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>
// GPU-NEXT: }
// GPU-NEXT: gpu.barrier
// GPU: memref.load %[[RED]]
// GPU: gpu.return
func.func @one_row_block(%x: tensor<2x1000xf32>) -> tensor<2x1xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<2x1000xf32>) -> tensor<1x1000xf32>
  %s = "ug.sum"(%t) {dim = 1 : i64} : (tensor<1x1000xf32>) -> tensor<1x1xf32>
  %o = "ug.saver"(%s) {omap = array<i64: 0, -1, -1>} : (tensor<1x1xf32>) -> tensor<2x1xf32>
  func.return %o : tensor<2x1xf32>
}
func.func @one_row(%x: tensor<2x1000xf32>) -> tensor<2x1xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @one_row_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x1000xf32>) -> tensor<2x1xf32>
  func.return %y : tensor<2x1xf32>
}

// Two rows per block: 2 warps per row; f16 data, f32 arithmetic.
func.func @two_rows_block(%x: tensor<4x256xf16>) -> tensor<4x1xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<4x256xf16>) -> tensor<2x256xf16>
  %q = "ug.square"(%t) : (tensor<2x256xf16>) -> tensor<2x256xf16>
  %s = "ug.sum"(%q) {dim = 1 : i64} : (tensor<2x256xf16>) -> tensor<2x1xf16>
  %o = "ug.saver"(%s) {omap = array<i64: 0, -1, -1>} : (tensor<2x1xf16>) -> tensor<4x1xf16>
  func.return %o : tensor<4x1xf16>
}
func.func @two_rows(%x: tensor<4x256xf16>) -> tensor<4x1xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @two_rows_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x256xf16>) -> tensor<4x1xf16>
  func.return %y : tensor<4x1xf16>
}

// A matrix-vector product per block: one output, k = 320, 64 threads.
func.func @gemv_block(%x: tensor<1x320xf32>, %w: tensor<320x4xf32>) -> tensor<1x4xf32> attributes {ug.block_threads = 64 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %a = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x320xf32>) -> tensor<1x320xf32>
  %b = "ug.iterator"(%w) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<320x4xf32>) -> tensor<320x1xf32>
  %m = "ug.matmul"(%a, %b) : (tensor<1x320xf32>, tensor<320x1xf32>) -> tensor<1x1xf32>
  %o = "ug.saver"(%m) {omap = array<i64: 1, -1, -1>} : (tensor<1x1xf32>) -> tensor<1x4xf32>
  func.return %o : tensor<1x4xf32>
}
func.func @gemv(%x: tensor<1x320xf32>, %w: tensor<320x4xf32>) -> tensor<1x4xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @gemv_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x320xf32>, tensor<320x4xf32>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// 48 rows per block of 128 threads: one warp per row (48 does not divide
// the 4 warps), each warp looping over its rows.
func.func @many_rows_block(%x: tensor<96x40xf32>) -> tensor<96x1xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<96x40xf32>) -> tensor<48x40xf32>
  %s = "ug.sum"(%t) {dim = 1 : i64} : (tensor<48x40xf32>) -> tensor<48x1xf32>
  %o = "ug.saver"(%s) {omap = array<i64: 0, -1, -1>} : (tensor<48x1xf32>) -> tensor<96x1xf32>
  func.return %o : tensor<96x1xf32>
}
func.func @many_rows(%x: tensor<96x40xf32>) -> tensor<96x1xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @many_rows_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<96x40xf32>) -> tensor<96x1xf32>
  func.return %y : tensor<96x1xf32>
}

// A sum-of-squares accumulator over a for-loop (RMSNorm's shape): each
// iteration's 64 terms are reduced by the block's 2 warps, then added.
func.func @norm_accum_block(%x: tensor<4x512xf32>) -> tensor<4x1xf32> attributes {ug.block_threads = 64 : i64, ug.forloop = 8 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<4x512xf32>) -> tensor<1x64xf32>
  %s = "ug.accum"(%t) {kind = "sum_sq_last"} : (tensor<1x64xf32>) -> tensor<1x1xf32>
  %o = "ug.saver"(%s) {omap = array<i64: 0, -1, -1>} : (tensor<1x1xf32>) -> tensor<4x1xf32>
  func.return %o : tensor<4x1xf32>
}
func.func @norm_accum(%x: tensor<4x512xf32>) -> tensor<4x1xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @norm_accum_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x512xf32>) -> tensor<4x1xf32>
  func.return %y : tensor<4x1xf32>
}

// 256 rows of 64 halves per block of 128 threads: more rows than threads,
// each thread two rows in turn, row r's terms visited as k xor (2r mod 64)
// (a 4-byte word per row: the 32 lanes read 32 banks).
// GPU-LABEL: gpu.func @rows_per_thread_gpu_k1(
// GPU-NOT: gpu.shuffle
// GPU: scf.for %[[PASS:.*]] = %c0{{.*}} to %c256{{.*}} step %c128
// GPU-NEXT: %[[ROW:.*]] = arith.addi %thread_id_x, %[[PASS]] : index
// GPU: %[[SCALED:.*]] = arith.muli %[[ROW]], %c2
// GPU: %[[ROT:.*]] = arith.remui %[[SCALED]], %c64
// GPU: scf.for %[[K:.*]] = %{{.*}} to %c64{{.*}} step %c1
// GPU: %[[AT:.*]] = arith.xori %[[K]], %[[ROT]] : index
// GPU: memref.load %{{.*}}[%[[ROW]], %[[AT]]]
// GPU-NOT: gpu.shuffle
// GPU: gpu.return
func.func @rows_per_thread_block(%x: tensor<512x64xf16>) -> tensor<512x1xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<512x64xf16>) -> tensor<256x64xf16>
  %e = "ug.exp"(%t) : (tensor<256x64xf16>) -> tensor<256x64xf16>
  %s = "ug.sum"(%e) {dim = 1 : i64} : (tensor<256x64xf16>) -> tensor<256x1xf16>
  %o = "ug.saver"(%s) {omap = array<i64: 0, -1, -1>} : (tensor<256x1xf16>) -> tensor<512x1xf16>
  func.return %o : tensor<512x1xf16>
}
func.func @rows_per_thread(%x: tensor<512x64xf16>) -> tensor<512x1xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @rows_per_thread_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512x64xf16>) -> tensor<512x1xf16>
  func.return %y : tensor<512x1xf16>
}

// The same sizes summed over the outer dim: 128 columns per block, as many
// as threads, each thread its column's 64 terms in order, no shuffle.
// GPU-LABEL: gpu.func @columns_gpu_k1(
// GPU-NOT: gpu.shuffle
// GPU: gpu.return
func.func @columns_block(%x: tensor<64x256xf16>) -> tensor<1x256xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x256xf16>) -> tensor<64x128xf16>
  %s = "ug.sum"(%t) {dim = 0 : i64} : (tensor<64x128xf16>) -> tensor<1x128xf16>
  %o = "ug.saver"(%s) {omap = array<i64: 1, -1, -1>} : (tensor<1x128xf16>) -> tensor<1x256xf16>
  func.return %o : tensor<1x256xf16>
}
func.func @columns(%x: tensor<64x256xf16>) -> tensor<1x256xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @columns_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x256xf16>) -> tensor<1x256xf16>
  func.return %y : tensor<1x256xf16>
}

// 320 rows of 48 floats on 128 threads: 48 is no power of two, so row r
// starts at term r mod 48 and wraps (k + r, minus 48 past the end).
// GPU-LABEL: gpu.func @rows_wrapped_gpu_k1(
// GPU: scf.for %[[K:.*]] = %{{.*}} to %c48{{.*}} step %c1
// GPU: %[[SUM:.*]] = arith.addi %[[K]], %{{.*}} : index
// GPU: %[[LESS:.*]] = arith.subi %[[SUM]], %c48{{.*}} : index
// GPU: %[[OVER:.*]] = arith.cmpi uge, %[[SUM]], %c48{{.*}} : index
// GPU: arith.select %[[OVER]], %[[LESS]], %[[SUM]] : index
// GPU-NOT: gpu.shuffle
// GPU: gpu.return
func.func @rows_wrapped_block(%x: tensor<320x48xf32>) -> tensor<320x1xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<320x48xf32>) -> tensor<320x48xf32>
  %s = "ug.reduce_max"(%t) {dim = 1 : i64} : (tensor<320x48xf32>) -> tensor<320x1xf32>
  %o = "ug.saver"(%s) {omap = array<i64: -1, -1, -1>} : (tensor<320x1xf32>) -> tensor<320x1xf32>
  func.return %o : tensor<320x1xf32>
}
func.func @rows_wrapped(%x: tensor<320x48xf32>) -> tensor<320x1xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @rows_wrapped_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<320x48xf32>) -> tensor<320x1xf32>
  func.return %y : tensor<320x1xf32>
}
