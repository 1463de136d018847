// Max ops in the lowering: ug.maximum (element-wise, NaN-propagating
// arith.maximumf), ug.reduce_max (the sum's structure with maximumf, from
// -inf: sequential per element, or lanes + a shuffle butterfly + the warps'
// scratch), and the "max" accumulator (an f32 tile from -inf, maximumf per
// iteration). mirage-run JIT-compiles the CPU form (the GPU's lane split
// and combine order, emulated) and compares every element with the
// interpreter, in f32 and f16, odd sizes included; the GPU form is checked
// for its structure (PTX: max-ptx.mlir).
// RUN: mirage-run --lower %s | FileCheck %s
// RUN: mirage-run --lower --seed=7 --range=8 %s | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU

// CHECK-DAG: @kernel_max: 3 outputs, 45 elements, max abs error {{.*}}: ok
// CHECK-DAG: @one_row: 1 output, 2 elements, max abs error {{.*}}: ok
// CHECK-DAG: @two_rows: 2 outputs, 1028 elements, max abs error {{.*}}: ok
// CHECK-DAG: @columns: 2 outputs, 176 elements, max abs error {{.*}}: ok
// CHECK-DAG: @running_max: 2 outputs, 260 elements, max abs error {{.*}}: ok
// CHECK-DAG: @odd_running_max: 1 output, 63 elements, max abs error {{.*}}: ok
// CHECK-NOT: MISMATCH

// Predefined kernels: a broadcasting maximum, then maxima over dim 0 and
// over dim 1 (f16, odd sizes): one thread per result element, from -inf.
// GPU-LABEL: gpu.module @kernel_max_gpu
// GPU: gpu.func @kernel_max_gpu_k3(
// GPU: arith.maximumf %{{.*}}, %{{.*}} : f32
// GPU: gpu.func @kernel_max_gpu_k4(
// GPU: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// GPU: scf.for {{.*}} iter_args(%{{.*}} = %[[NEG]]) -> (f32)
// GPU: arith.maximumf
// GPU-NOT: gpu.shuffle
// GPU: gpu.return
func.func @kernel_max(%a: tensor<5x7xf32>, %b: tensor<1x7xf32>, %c: tensor<3x9xf16>) -> (tensor<5x7xf32>, tensor<1x7xf32>, tensor<3x1xf16>) attributes {ug.level = "kernel"} {
  %m = "ug.maximum"(%a, %b) : (tensor<5x7xf32>, tensor<1x7xf32>) -> tensor<5x7xf32>
  %r = "ug.reduce_max"(%m) {dim = 0 : i64} : (tensor<5x7xf32>) -> tensor<1x7xf32>
  %s = "ug.reduce_max"(%c) {dim = 1 : i64} : (tensor<3x9xf16>) -> tensor<3x1xf16>
  func.return %m, %r, %s : tensor<5x7xf32>, tensor<1x7xf32>, tensor<3x1xf16>
}

// One row of 1000 per block of 128 threads: the 4 warps share the element
// (lanes stride over the row, the 1000 = 7·128 + 104 tail in the lane
// loop's bound), each warp's butterfly takes maxima, the warps' maxima meet
// in the scratch and the first thread combines them in warp order.
// GPU-LABEL: gpu.func @one_row_gpu_k1(
// GPU-SAME: workgroup({{.*}}, %[[RED:arg[0-9]+]] : memref<4xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU: %[[INIT:.*]] = arith.constant 0xFF800000 : f32
// GPU: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
// GPU: arith.maximumf %[[ACC]], %{{.*}} : f32
// GPU: %[[S0:.*]], %{{.*}} = gpu.shuffle xor %[[P0:[0-9]+]], %c16_i32, %c32_i32 : f32
// GPU-NEXT: arith.maximumf %[[P0]], %[[S0]] : f32
// GPU-COUNT-4: gpu.shuffle xor
// GPU: memref.store %{{.*}}, %[[RED]][%{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>
// GPU-NEXT: }
// GPU-NEXT: gpu.barrier
// GPU: memref.load %[[RED]]
// GPU: memref.load %[[RED]]
// GPU-NEXT: arith.maximumf
// GPU-NOT: arith.addf
// GPU: gpu.return
func.func @one_row_block(%x: tensor<2x1000xf32>) -> tensor<2x1xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<2x1000xf32>) -> tensor<1x1000xf32>
  %s = "ug.reduce_max"(%t) {dim = 1 : i64} : (tensor<1x1000xf32>) -> tensor<1x1xf32>
  %o = "ug.saver"(%s) {omap = array<i64: 0, -1, -1>} : (tensor<1x1xf32>) -> tensor<2x1xf32>
  func.return %o : tensor<2x1xf32>
}
func.func @one_row(%x: tensor<2x1000xf32>) -> tensor<2x1xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @one_row_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x1000xf32>) -> tensor<2x1xf32>
  func.return %y : tensor<2x1xf32>
}

// f16, two rows per block (2 warps per row): a maximum broadcasting a
// loop-invariant row over the tile, fused with the exp after it in one
// element loop (the maximum's result stays in a register), saved, and the
// row maxima of the exp.
// GPU-LABEL: gpu.func @two_rows_gpu_k2(
// GPU: arith.maximumf
// GPU-NEXT: math.exp
// GPU: gpu.shuffle xor
// GPU: gpu.return
func.func @two_rows_block(%x: tensor<4x256xf16>, %w: tensor<1x256xf16>) -> (tensor<4x1xf16>, tensor<4x256xf16>) attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<4x256xf16>) -> tensor<2x256xf16>
  %u = "ug.iterator"(%w) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x256xf16>) -> tensor<1x256xf16>
  %m = "ug.maximum"(%t, %u) : (tensor<2x256xf16>, tensor<1x256xf16>) -> tensor<2x256xf16>
  %e = "ug.exp"(%m) : (tensor<2x256xf16>) -> tensor<2x256xf16>
  %s = "ug.reduce_max"(%e) {dim = 1 : i64} : (tensor<2x256xf16>) -> tensor<2x1xf16>
  %o = "ug.saver"(%s) {omap = array<i64: 0, -1, -1>} : (tensor<2x1xf16>) -> tensor<4x1xf16>
  %oe = "ug.saver"(%e) {omap = array<i64: 0, -1, -1>} : (tensor<2x256xf16>) -> tensor<4x256xf16>
  func.return %o, %oe : tensor<4x1xf16>, tensor<4x256xf16>
}
func.func @two_rows(%x: tensor<4x256xf16>, %w: tensor<1x256xf16>) -> (tensor<4x1xf16>, tensor<4x256xf16>) attributes {ug.level = "kernel"} {
  %y:2 = "ug.custom"(%x, %w) {kernel = @two_rows_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<4x256xf16>, tensor<1x256xf16>) -> (tensor<4x1xf16>, tensor<4x256xf16>)
  func.return %y#0, %y#1 : tensor<4x1xf16>, tensor<4x256xf16>
}

// Odd sizes: 48 rows of 40 per block of 128 threads. Row maxima: one warp
// per row (48 rows do not divide the 4 warps), 40 terms for 32 lanes;
// column maxima over the 48 rows of a thread graph max(x, y)·x.
func.func @columns_thread(%a: tensor<48x40xf32>, %b: tensor<48x40xf32>) -> tensor<48x40xf32> attributes {ug.level = "thread"} {
  %m = "ug.maximum"(%a, %b) : (tensor<48x40xf32>, tensor<48x40xf32>) -> tensor<48x40xf32>
  %p = "ug.mul"(%m, %a) : (tensor<48x40xf32>, tensor<48x40xf32>) -> tensor<48x40xf32>
  func.return %p : tensor<48x40xf32>
}
func.func @columns_block(%x: tensor<96x40xf32>, %y: tensor<96x40xf32>) -> (tensor<96x1xf32>, tensor<2x40xf32>) attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<96x40xf32>) -> tensor<48x40xf32>
  %u = "ug.iterator"(%y) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<96x40xf32>) -> tensor<48x40xf32>
  %p = "ug.thread"(%t, %u) {kernel = @columns_thread, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<48x40xf32>, tensor<48x40xf32>) -> tensor<48x40xf32>
  %r = "ug.reduce_max"(%t) {dim = 1 : i64} : (tensor<48x40xf32>) -> tensor<48x1xf32>
  %c = "ug.reduce_max"(%p) {dim = 0 : i64} : (tensor<48x40xf32>) -> tensor<1x40xf32>
  %or = "ug.saver"(%r) {omap = array<i64: 0, -1, -1>} : (tensor<48x1xf32>) -> tensor<96x1xf32>
  %oc = "ug.saver"(%c) {omap = array<i64: 0, -1, -1>} : (tensor<1x40xf32>) -> tensor<2x40xf32>
  func.return %or, %oc : tensor<96x1xf32>, tensor<2x40xf32>
}
func.func @columns(%x: tensor<96x40xf32>, %y: tensor<96x40xf32>) -> (tensor<96x1xf32>, tensor<2x40xf32>) attributes {ug.level = "kernel"} {
  %z:2 = "ug.custom"(%x, %y) {kernel = @columns_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<96x40xf32>, tensor<96x40xf32>) -> (tensor<96x1xf32>, tensor<2x40xf32>)
  func.return %z#0, %z#1 : tensor<96x1xf32>, tensor<2x40xf32>
}

// A max accumulator over a for-loop of 8 (f16 input, f32 tile): the
// running maximum of each row's 64-wide chunks, saved as it is (f32 ->
// f16) and reduced to the row maximum after the loop. The tile starts at
// -inf before the loop and takes one maximumf per iteration.
// GPU-LABEL: gpu.func @running_max_gpu_k1(
// GPU: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// GPU-NEXT: memref.store %[[NEG]]
// GPU: scf.for
// GPU: %[[OLD:.*]] = memref.load %[[TILE:.*]][
// GPU: %[[NEW:.*]] = arith.extf
// GPU-NEXT: %[[MAX:.*]] = arith.maximumf %[[OLD]], %[[NEW]] : f32
// GPU-NEXT: memref.store %[[MAX]], %[[TILE]][
// GPU: } {mirage.for_loop}
// GPU: gpu.return
func.func @running_max_block(%x: tensor<4x512xf16>) -> (tensor<4x64xf16>, tensor<4x1xf16>) attributes {ug.block_threads = 64 : i64, ug.forloop = 8 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<4x512xf16>) -> tensor<1x64xf16>
  %a = "ug.accum"(%t) {kind = "max"} : (tensor<1x64xf16>) -> tensor<1x64xf16>
  %r = "ug.reduce_max"(%a) {dim = 1 : i64} : (tensor<1x64xf16>) -> tensor<1x1xf16>
  %oa = "ug.saver"(%a) {omap = array<i64: 0, -1, -1>} : (tensor<1x64xf16>) -> tensor<4x64xf16>
  %or = "ug.saver"(%r) {omap = array<i64: 0, -1, -1>} : (tensor<1x1xf16>) -> tensor<4x1xf16>
  func.return %oa, %or : tensor<4x64xf16>, tensor<4x1xf16>
}
func.func @running_max(%x: tensor<4x512xf16>) -> (tensor<4x64xf16>, tensor<4x1xf16>) attributes {ug.level = "kernel"} {
  %y:2 = "ug.custom"(%x) {kernel = @running_max_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<4x512xf16>) -> (tensor<4x64xf16>, tensor<4x1xf16>)
  func.return %y#0, %y#1 : tensor<4x64xf16>, tensor<4x1xf16>
}

// Odd sizes, f32: 3 rows of 105 in 5 chunks of 21 (no vector copies).
func.func @odd_running_max_block(%x: tensor<3x105xf32>) -> tensor<3x21xf32> attributes {ug.block_threads = 32 : i64, ug.forloop = 5 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<3x105xf32>) -> tensor<3x21xf32>
  %a = "ug.accum"(%t) {kind = "max"} : (tensor<3x21xf32>) -> tensor<3x21xf32>
  %o = "ug.saver"(%a) {omap = array<i64: -1, -1, -1>} : (tensor<3x21xf32>) -> tensor<3x21xf32>
  func.return %o : tensor<3x21xf32>
}
func.func @odd_running_max(%x: tensor<3x105xf32>) -> tensor<3x21xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @odd_running_max_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<3x105xf32>) -> tensor<3x21xf32>
  func.return %y : tensor<3x21xf32>
}
