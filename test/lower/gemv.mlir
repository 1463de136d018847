// A kernel-level matmul with at most 8 rows is a split-K GEMV: each block
// owns CG groups of one 16-byte vector of B's columns (8, or 4 or 2 when 8
// would leave fewer than 128 blocks), its 32·CG threads split K 32 ways,
// stream groups of rows of B (8 rows <= 2, else 4, fewer where the ring
// would pass 32 KiB) by cp.async into a ring of 4 stages in shared
// memory while a whole group remains (each thread its own slots, a commit
// group per stage, wait_group 3 before it reads a stage back), then one
// row at a time from global memory, and accumulate rows x vector products
// in f32 registers (FMA). The 32/CG slices a warp holds
// of each output meet by shuffles (lane offsets 16 .. CG; a lane halves
// its values while their count is even, then adds its partner's), the CG
// warps' sums meet in shared memory and are added in warp order. The CPU
// form runs the same code with the threads as loops and the shuffles as
// an exchange buffer and the ring as a buffer the same copies fill, so
// mirage-run checks the split (K not a multiple of the unrolled group, a
// last block with fewer column groups, f16 and f32), the ring's stages
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
// CHECK-DAG: @gemv_ring_f32: 1 output, 192 elements, max abs error {{.*}}: ok
// CHECK-NOT: MISMATCH

// N = 72 halves: 9 column groups of 8; 8 per block would be 2 blocks, so
// 2 per block: 5 blocks (the last with one) of 64 threads. K = 600: two
// groups of 8 rows x 32 slices (to 512) stream through a ring of 4
// stages of 8 rows (a thread's 8 x 16 bytes each, 32 KiB a block): the
// prologue issues groups 0 and 1 and commits 3 groups (the third empty),
// iteration j issues group j + 3 (none here), commits, waits for all but
// 3 groups (its own is done) and reads stage j mod 4 back; then 88 rows
// one at a time from global memory. A warp holds 16 slices: 4 stages,
// each halving 2 x 8 values: 8 + 4 + 2 + 1 shuffles; the last block's
// lanes past the 9th column group take part with zeros (shfl.sync needs
// the whole warp) and store nothing.
// GPU-LABEL: gpu.func @gemv_f16_gpu_k2(
// GPU-SAME: workgroup(%[[PART:[a-z0-9]+]] : memref<2x2x16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[RING:[a-z0-9]+]] : memref<4x8x64x8xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 5, 1, 1>
// GPU: %[[TID:.*]] = gpu.thread_id x
// GPU: %[[S0:.*]] = arith.remui %c0{{.*}}, %c4{{.*}} : index
// GPU-COUNT-8: nvgpu.device_async_copy %{{.*}}, %[[RING]][%[[S0]], %c{{[0-7]}}{{.*}}, %[[TID]], %c0], 8 {bypassL1} : memref<600x72xf16> to memref<4x8x64x8xf16, #gpu.address_space<workgroup>>
// GPU-NEXT: nvvm.cp.async.commit.group
// GPU: %[[S1:.*]] = arith.remui %c1{{.*}}, %c4{{.*}} : index
// GPU-COUNT-8: nvgpu.device_async_copy %{{.*}}, %[[RING]][%[[S1]],
// GPU-NEXT: nvvm.cp.async.commit.group
// GPU-NEXT: nvvm.cp.async.commit.group
// GPU: scf.for %[[J:.*]] = %{{.*}} to %[[N:c2[_0-9]*]] step %c1{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8xf32>, vector<8xf32>)
// GPU: %[[AHEAD:.*]] = arith.addi %[[J]], %c3{{.*}} : index
// GPU: %[[MORE:.*]] = arith.cmpi ult, %[[AHEAD]], %[[N]] : index
// GPU: scf.if %[[MORE]] {
// GPU: %[[SN:.*]] = arith.remui %[[AHEAD]], %c4{{.*}} : index
// GPU-COUNT-8: nvgpu.device_async_copy %{{.*}}, %[[RING]][%[[SN]],
// GPU-NEXT: {{^ +}}}{{$}}
// GPU-NEXT: nvvm.cp.async.commit.group
// GPU-NEXT: nvvm.cp.async.wait.group 3
// GPU: %[[SLOT:.*]] = arith.remui %[[J]], %c4{{.*}} : index
// GPU-COUNT-8: vector.load %[[RING]][%[[SLOT]], %c{{[0-7]}}{{.*}}, %[[TID]], %c0] : memref<4x8x64x8xf16, #gpu.address_space<workgroup>>, vector<8xf16>
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

// 1024 column groups: 8 per block, 128 blocks of 256 threads; a ring of
// 4 stages of 8 rows would take 128 KiB, so 4 stages of 2 rows (32 KiB):
// K = 256 is 4 groups, no rows one at a time. 4 slices per warp: 4 + 2
// shuffles; 8 warps x 64 columns of partial sums.
// GPU-LABEL: gpu.func @gemv_wide_gpu_k2(
// GPU-SAME: memref<8x1x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<4x2x256x8xf16, #gpu.address_space<workgroup>>
// GPU-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 128, 1, 1>
// GPU-COUNT-3: nvvm.cp.async.commit.group
// GPU: scf.for %{{.*}} to %c4{{.*}} step %c1
// GPU-COUNT-2: nvgpu.device_async_copy
// GPU: nvvm.cp.async.wait.group 3
// GPU-COUNT-2: vector.load
// GPU-NOT: scf.for
// GPU-COUNT-6: gpu.shuffle  xor %{{.*}}, %c{{16|8}}_i32
// GPU-NOT: gpu.shuffle
// GPU: gpu.barrier
func.func @gemv_wide(%x: tensor<1x256xf16>, %w: tensor<256x8192xf16>) -> tensor<1x8192xf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<1x256xf16>, tensor<256x8192xf16>) -> tensor<1x8192xf16>
  func.return %y : tensor<1x8192xf16>
}

// 512 column groups: 8 per block would be 64 blocks, 4 per block 128.
// 4 rows of A: stages of 4 rows of B, 4 stages (32 KiB); K = 256 is 2
// groups.
// GPU-LABEL: gpu.func @gemv_half_groups_gpu_k2(
// GPU-SAME: memref<4x4x128x8xf16, #gpu.address_space<workgroup>>
// GPU-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 128, 1, 1>
// GPU: scf.for %{{.*}} to %c2{{.*}} step %c1
// GPU: nvvm.cp.async.wait.group 3
// GPU-COUNT-4: vector.load %{{.*}} : memref<4x4x128x8xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// GPU-NOT: vector.load %{{.*}} : memref<4x4x128x8xf16
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

// The ring's stages checked deep: f32 (a tolerance of about 1e-5), 3
// rows, 16 column groups of 4, 2 per block (8 blocks of 64 threads), 4
// stages of 4 rows; K = 2100 is 16 groups (the ring's slots reused 4
// times, the last 3 iterations issue nothing and commit empty groups)
// and 52 rows one at a time. Reading any other stage than j mod 4, or
// issuing a group into another, sums the wrong rows of B.
// GPU-LABEL: gpu.func @gemv_ring_f32_gpu_k2(
// GPU-SAME: memref<4x4x64x4xf32, #gpu.address_space<workgroup>>
// GPU-SAME: known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 8, 1, 1>
// GPU: scf.for %{{.*}} to %c16{{.*}} step %c1
// GPU: nvvm.cp.async.wait.group 3
// GPU: scf.for %{{.*}} to %c2100{{.*}} step %c32
func.func @gemv_ring_f32(%x: tensor<3x2100xf32>, %w: tensor<2100x64xf32>) -> tensor<3x64xf32> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<3x2100xf32>, tensor<2100x64xf32>) -> tensor<3x64xf32>
  func.return %y : tensor<3x64xf32>
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
