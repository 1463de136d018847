// A kernel-level matmul with at most 8 rows is a split-K GEMV: each block
// owns 8 groups of one 16-byte vector of B's columns, its 256 threads split
// K 32 ways, accumulate rows x vector products in f32 registers (FMA), and
// the 32 partial sums of each output meet in shared memory and are added
// in slice order. The CPU form runs the same blocks and threads in turn,
// so mirage-run checks the split (K not a multiple of 32, a last block
// with fewer column groups, f16 and f32) against the interpreter.
// RUN: mirage-run --lower %s | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU

// CHECK-DAG: @gemv_f16: 1 output, 144 elements, max abs error {{.*}}: ok
// CHECK-DAG: @gemv_f32: 1 output, 60 elements, max abs error {{.*}}: ok
// CHECK-DAG: @many_rows: 1 output, 360 elements, max abs error {{.*}}: ok
// CHECK-DAG: @gemv_bf16: 1 output, 256 elements, max abs error {{.*}}: ok
// CHECK-DAG: @gemv_mixed: 1 output, 32 elements, max abs error {{.*}}: ok
// CHECK-NOT: MISMATCH

// N = 72 halves: 9 column groups of 8, 2 blocks (the second with one).
// GPU-LABEL: gpu.func @gemv_f16_gpu_k2(
// GPU-SAME: workgroup(%[[PART:.*]] : memref<32x2x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 2, 1, 1>
// GPU: scf.for %{{.*}} = %{{.*}} to %c200{{.*}} step %c32{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8xf32>, vector<8xf32>)
// GPU: vector.load %{{.*}} : memref<200x72xf16>, vector<8xf16>
// GPU-COUNT-2: vector.fma
// GPU: vector.store %{{.*}}, %[[PART]]
// GPU: gpu.barrier
// GPU: memref.load %[[PART]]
// GPU-LABEL: func.func @gemv_f16(
// GPU: %[[B:.*]] = arith.constant 2 : index
// GPU: %[[T:.*]] = arith.constant 256 : index
// GPU: gpu.launch_func {{.*}} blocks in (%[[B]], {{.*}}) threads in (%[[T]],
func.func @gemv_f16(%x: tensor<2x200xf16>, %w: tensor<200x72xf16>) -> tensor<2x72xf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<2x200xf16>, tensor<200x72xf16>) -> tensor<2x72xf16>
  func.return %y : tensor<2x72xf16>
}

// f32 (vectors of 4), 3 rows, rank-3 operands with a unit batch.
// GPU-LABEL: gpu.func @gemv_f32_gpu_k2(
// GPU-SAME: memref<32x3x32xf32, #gpu.address_space<workgroup>>
// GPU-COUNT-3: vector.fma
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
