// A kernel-level matmul with at most 8 rows is a split-K GEMV: each block
// owns CG groups of one 16-byte vector of B's columns (8, or 4 or 2 when 8
// would leave fewer than 128 blocks), its 32·CG threads split K 32 ways,
// load 8 (rows <= 2), 4 (<= 4) or 2 rows of B ahead before their FMAs
// while a whole group of rows remains, then one at a time, accumulate rows
// x vector products in f32 registers (FMA). The 32/CG slices a warp holds
// of each output meet by shuffles (lane offsets 16 .. CG; a lane halves
// its values while their count is even, then adds its partner's), the CG
// warps' sums meet in shared memory and are added in warp order. The CPU
// form runs the same code with the threads as loops and the shuffles as
// an exchange buffer, so mirage-run checks the split (K not a multiple of
// the unrolled group, a last block with fewer column groups, f16 and f32)
// and the shuffles' selects and positions against the interpreter.
// RUN: mirage-run --lower %s | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU

// CHECK-DAG: @gemv_f16: 1 output, 144 elements, max abs error {{.*}}: ok
// CHECK-DAG: @gemv_f32: 1 output, 60 elements, max abs error {{.*}}: ok
// CHECK-DAG: @many_rows: 1 output, 360 elements, max abs error {{.*}}: ok
// CHECK-DAG: @gemv_bf16: 1 output, 256 elements, max abs error {{.*}}: ok
// CHECK-DAG: @gemv_mixed: 1 output, 32 elements, max abs error {{.*}}: ok
// CHECK-DAG: @gemv_wide: 1 output, 8192 elements, max abs error {{.*}}: ok
// CHECK-DAG: @gemv_half_groups: 1 output, 16384 elements, max abs error {{.*}}: ok
// CHECK-NOT: MISMATCH

// N = 72 halves: 9 column groups of 8; 8 per block would be 2 blocks, so
// 2 per block: 5 blocks (the last with one) of 64 threads. K = 600: two
// groups of 8 rows x 32 slices (to 512), then 88 rows one at a time. A
// warp holds 16 slices: 4 stages, each halving 2 x 8 values: 8 + 4 + 2 +
// 1 shuffles; the last block's lanes past the 9th column group take part
// with zeros (shfl.sync needs the whole warp) and store nothing.
// GPU-LABEL: gpu.func @gemv_f16_gpu_k2(
// GPU-SAME: workgroup(%[[PART:.*]] : memref<2x2x16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 5, 1, 1>
// GPU: scf.for %{{.*}} = %{{.*}} to %c512{{.*}} step %c256{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8xf32>, vector<8xf32>)
// GPU-COUNT-8: vector.load %{{.*}} : memref<600x72xf16>, vector<8xf16>
// GPU-NOT: vector.fma
// GPU-COUNT-16: vector.fma
// GPU: scf.yield
// GPU: scf.for %{{.*}} = %{{.*}} to %c600{{.*}} step %c32{{.*}} iter_args(
// GPU: vector.load %{{.*}} : memref<600x72xf16>, vector<8xf16>
// GPU-COUNT-2: vector.fma
// GPU-COUNT-15: gpu.shuffle  xor
// GPU-NOT: gpu.shuffle
// GPU: memref.store %{{.*}}, %[[PART]]
// GPU: gpu.barrier
// GPU: memref.load %[[PART]]
// GPU-LABEL: func.func @gemv_f16(
// GPU: %[[B:.*]] = arith.constant 5 : index
// GPU: %[[T:.*]] = arith.constant 64 : index
// GPU: gpu.launch_func {{.*}} blocks in (%[[B]], {{.*}}) threads in (%[[T]],
func.func @gemv_f16(%x: tensor<2x600xf16>, %w: tensor<600x72xf16>) -> tensor<2x72xf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<2x600xf16>, tensor<600x72xf16>) -> tensor<2x72xf16>
  func.return %y : tensor<2x72xf16>
}

// 1024 column groups: 8 per block, 128 blocks of 256 threads; K = 256 is
// one group of 8 rows ahead, no rows one at a time. 4 slices per warp:
// 4 + 2 shuffles; 8 warps x 64 columns of partial sums.
// GPU-LABEL: gpu.func @gemv_wide_gpu_k2(
// GPU-SAME: memref<8x1x64xf32, #gpu.address_space<workgroup>>
// GPU-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 128, 1, 1>
// GPU: scf.for %{{.*}} to %c256{{.*}} step %c256
// GPU-COUNT-8: vector.load
// GPU-NOT: scf.for
// GPU-COUNT-6: gpu.shuffle  xor %{{.*}}, %c{{16|8}}_i32
// GPU-NOT: gpu.shuffle
// GPU: gpu.barrier
func.func @gemv_wide(%x: tensor<1x256xf16>, %w: tensor<256x8192xf16>) -> tensor<1x8192xf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<1x256xf16>, tensor<256x8192xf16>) -> tensor<1x8192xf16>
  func.return %y : tensor<1x8192xf16>
}

// 512 column groups: 8 per block would be 64 blocks, 4 per block 128.
// 4 rows of A: 4 rows of B ahead.
// GPU-LABEL: gpu.func @gemv_half_groups_gpu_k2(
// GPU-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 128, 1, 1>
// GPU: scf.for %{{.*}} to %c256{{.*}} step %c128
// GPU-COUNT-4: vector.load
// GPU-NOT: vector.load
// GPU-COUNT-16: vector.fma
func.func @gemv_half_groups(%x: tensor<4x256xf16>, %w: tensor<256x4096xf16>) -> tensor<4x4096xf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<4x256xf16>, tensor<256x4096xf16>) -> tensor<4x4096xf16>
  func.return %y : tensor<4x4096xf16>
}

// f32 (vectors of 4), 3 rows, rank-3 operands with a unit batch: 5
// column groups, 2 per block. 3 x 4 values halve to 6, then 3, which is
// odd: the last two stages add all 3 (a butterfly), 6 + 3 + 3 + 3
// shuffles, and only lanes with bits 4 and 2 clear store.
// GPU-LABEL: gpu.func @gemv_f32_gpu_k2(
// GPU-SAME: memref<2x3x8xf32, #gpu.address_space<workgroup>>
// GPU-SAME: known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 3, 1, 1>
// GPU-COUNT-3: vector.fma
// GPU-COUNT-15: gpu.shuffle
// GPU-NOT: gpu.shuffle
// GPU: arith.xori %{{.*}}, %true
// GPU: gpu.barrier
func.func @gemv_f32(%x: tensor<1x3x64xf32>, %w: tensor<1x64x20xf32>) -> tensor<1x3x20xf32> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<1x3x64xf32>, tensor<1x64x20xf32>) -> tensor<1x3x20xf32>
  func.return %y : tensor<1x3x20xf32>
}

// 9 rows: the generic kernel (one output per thread).
// GPU-LABEL: gpu.func @many_rows_gpu_k2(
// GPU-NOT: workgroup
// GPU-NOT: vector.fma
// GPU: gpu.return
func.func @many_rows(%x: tensor<9x64xf16>, %w: tensor<64x40xf16>) -> tensor<9x40xf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<9x64xf16>, tensor<64x40xf16>) -> tensor<9x40xf16>
  func.return %y : tensor<9x40xf16>
}

// bf16 (vector extension to f32 on both forms), and f16 operands with an
// f32 result.
func.func @gemv_bf16(%x: tensor<4x96xbf16>, %w: tensor<96x64xbf16>) -> tensor<4x64xbf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<4x96xbf16>, tensor<96x64xbf16>) -> tensor<4x64xbf16>
  func.return %y : tensor<4x64xbf16>
}
func.func @gemv_mixed(%x: tensor<2x64xf16>, %w: tensor<64x16xf16>) -> tensor<2x16xf32> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<2x64xf16>, tensor<64x16xf16>) -> tensor<2x16xf32>
  func.return %y : tensor<2x16xf32>
}
