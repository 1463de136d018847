// Block matmuls on tensor cores (lib/lower/write/mma.c). On sm_80+ a matmul of
// f16 (or bf16) tiles in shared memory with m a multiple of 16, n of 8 and
// k of 16 runs as m16n8k16 mma tiles: per warp tile (up to 2 x 4 mma
// tiles) a loop over k loads the A fragments with ldmatrix .x4, B's with
// ldmatrix .trans (.x4 for two n-blocks, .x2 for one) and runs one
// mma.sync per mma tile into f32 accumulators in registers; each lane then
// hands its accumulator elements to the matmul's finish (store, an
// element-wise chain, or an add into the f32 sum accumulator). Operand
// tiles whose rows are a multiple of 32 bytes get 16 bytes of padding per
// row (72 halves for 64, 40 for 32, 24 for 16), so ldmatrix's 8 rows fall
// on different banks. Tails, one-row matmuls, K = 1 and f32 keep the FP32
// path.
//
// The CPU form emulates the warp's 32 lanes with the same fragment mapping
// (the addresses lanes give ldmatrix, the B split, the accumulator
// positions) and the PTX ISA's ldmatrix and m16n8k16 layouts, so
// mirage-run compares that mapping with the interpreter.
// RUN: mirage-run --lower %s | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU
// tensor-cores-ptx.mlir has ptxas check the PTX for sm_80 and sm_90.

// CHECK-DAG: @tc_store: 1 output, 2048 elements, max abs error {{.*}}: ok
// CHECK-DAG: @tc_batched_chain: 1 output, 8192 elements, max abs error {{.*}}: ok
// CHECK-DAG: @tc_loop_accum: 1 output, 2048 elements, max abs error {{.*}}: ok
// CHECK-DAG: @tc_loop_accum_bf16: 1 output, 2048 elements, max abs error {{.*}}: ok
// CHECK-DAG: @tc_one_warp_bf16: 1 output, 128 elements, max abs error {{.*}}: ok
// CHECK-DAG: @tc_n24: 1 output, 768 elements, max abs error {{.*}}: ok
// CHECK-DAG: @tc_two_step_bf16: 1 output, 1024 elements, max abs error {{.*}}: ok
// CHECK-DAG: @fma_tail_f16: 1 output, 480 elements, max abs error {{.*}}: ok
// CHECK-DAG: @fma_tail_bf16: 1 output, 192 elements, max abs error {{.*}}: ok
// CHECK-DAG: @fma_gemv_f16: 1 output, 32 elements, max abs error {{.*}}: ok
// CHECK-DAG: @fma_k1_f16: 1 output, 256 elements, max abs error {{.*}}: ok
// CHECK-DAG: @fma_f32: 1 output, 512 elements, max abs error {{.*}}: ok
// CHECK-NOT: MISMATCH

//===----------------------------------------------------------------------===//
// Tensor cores
//===----------------------------------------------------------------------===//

// 32x64 by 64x32 per block, 4 warps: warp tiles of 2 x 1 mma tiles (32 x
// 8), so B loads one n-block (.x2 .trans); A's rows of 128 bytes are padded
// to 144, B's of 64 to 80. The result is stored into its f16 tile.
// GPU-LABEL: gpu.func @tc_store_gpu_k2(
// GPU-SAME: workgroup(%[[A:.*]] : memref<32x72xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[B:.*]] : memref<64x40xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[C:.*]] : memref<32x32xf16, #gpu.address_space<workgroup>>
// GPU: %[[LANE:.*]] = arith.remui %thread_id_x, %{{.*}} : index
// GPU: scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %c4
// GPU: %{{.*}}:2 = scf.for %{{.*}} = %{{.*}} to %c64{{.*}} step %c16{{.*}} iter_args(%[[C0:.*]] = %cst, %[[C1:.*]] = %cst) -> (vector<2x2xf32>, vector<2x2xf32>) {
// GPU: %[[FA0:.*]] = nvgpu.ldmatrix %[[A]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<32x72xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// GPU: %[[FA1:.*]] = nvgpu.ldmatrix %[[A]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<32x72xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// GPU: %[[FB:.*]] = nvgpu.ldmatrix %[[B]][%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = true} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// GPU-NEXT: nvgpu.mma.sync(%[[FA0]], %[[FB]], %[[C0]]) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// GPU-NEXT: nvgpu.mma.sync(%[[FA1]], %[[FB]], %[[C1]]) {mmaShape = [16, 8, 16]}
// GPU: vector.extract %{{.*}}#0[0, 0] : f32 from vector<2x2xf32>
// GPU-NEXT: arith.truncf %{{.*}} : f32 to f16
// GPU-NEXT: memref.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] : memref<32x32xf16, #gpu.address_space<workgroup>>
// GPU-NOT: arith.mulf
// GPU: gpu.return

func.func @tc_store_block(%a: tensor<64x64xf16>, %b: tensor<64x32xf16>) -> tensor<64x32xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<64x64xf16>) -> tensor<32x64xf16>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<64x32xf16>) -> tensor<64x32xf16>
  %m = "ug.matmul"(%at, %bt) : (tensor<32x64xf16>, tensor<64x32xf16>) -> tensor<32x32xf16>
  %o = "ug.saver"(%m) {omap = array<i64: 0, -1, -1>} : (tensor<32x32xf16>) -> tensor<64x32xf16>
  func.return %o : tensor<64x32xf16>
}
func.func @tc_store(%a: tensor<64x64xf16>, %b: tensor<64x32xf16>) -> tensor<64x32xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%a, %b) {kernel = @tc_store_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x64xf16>, tensor<64x32xf16>) -> tensor<64x32xf16>
  func.return %y : tensor<64x32xf16>
}


// Batched (2 x 32x32 by 2 x 32x64), the matmul heading an exp chain:
// warp tiles of 2 x 4 mma tiles (8 accumulators), B as two .x4 .trans
// loads each sliced into two n-blocks; each accumulator element goes
// through exp in registers (no tile for the scores: the tiles are A, B,
// exp's result and the reduction scratch).
// GPU-LABEL: gpu.func @tc_batched_chain_gpu_k2(
// GPU-SAME: workgroup(%[[A:.*]] : memref<2x32x40xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[B:.*]] : memref<2x32x72xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<2x32x64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<4xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU: iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// GPU: nvgpu.ldmatrix %[[A]][%[[BATCH:.*]], %{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false}
// GPU: %[[X4:.*]] = nvgpu.ldmatrix %[[B]][%[[BATCH]], %{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<2x32x72xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// GPU-NEXT: vector.extract_strided_slice %[[X4]] {offsets = [0, 0], sizes = [2, 2], strides = [1, 1]} : vector<4x2xf16> to vector<2x2xf16>
// GPU-NEXT: vector.extract_strided_slice %[[X4]] {offsets = [2, 0], sizes = [2, 2], strides = [1, 1]} : vector<4x2xf16> to vector<2x2xf16>
// GPU: nvgpu.ldmatrix %[[B]]{{.*}}transpose = true
// GPU-COUNT-8: nvgpu.mma.sync
// GPU: %[[V:.*]] = vector.extract %{{.*}}#0[0, 0] : f32 from vector<2x2xf32>
// GPU-NEXT: math.exp %[[V]] : f32
// GPU: vector.extract %{{.*}}#7[1, 1] : f32 from vector<2x2xf32>
// GPU-NEXT: math.exp
// GPU: gpu.return

func.func @tc_batched_chain_block(%a: tensor<2x64x32xf16>, %b: tensor<2x32x64xf16>) -> tensor<2x64x64xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<2x64x32xf16>) -> tensor<2x32x32xf16>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x32x64xf16>) -> tensor<2x32x64xf16>
  %m = "ug.matmul"(%at, %bt) : (tensor<2x32x32xf16>, tensor<2x32x64xf16>) -> tensor<2x32x64xf16>
  %e = "ug.exp"(%m) : (tensor<2x32x64xf16>) -> tensor<2x32x64xf16>
  %o = "ug.saver"(%e) {omap = array<i64: 1, -1, -1>} : (tensor<2x32x64xf16>) -> tensor<2x64x64xf16>
  func.return %o : tensor<2x64x64xf16>
}
func.func @tc_batched_chain(%a: tensor<2x64x32xf16>, %b: tensor<2x32x64xf16>) -> tensor<2x64x64xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%a, %b) {kernel = @tc_batched_chain_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64x32xf16>, tensor<2x32x64xf16>) -> tensor<2x64x64xf16>
  func.return %y : tensor<2x64x64xf16>
}


// A pipelined for-loop (F = 4, three stages of 9.5 KiB): the stages of the padded tiles arrive by
// cp.async, ldmatrix reads the iteration's stage through its strided
// subview, and each dot product is added into the f32 accumulator tile:
// no f16 tile for the matmul, no rounding of partials.
// GPU-LABEL: gpu.func @tc_loop_accum_gpu_k2(
// GPU-SAME: workgroup(%[[X:.*]] : memref<3x32x72xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[W:.*]] : memref<3x64x40xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[ACC:.*]] : memref<32x32xf32, #gpu.address_space<workgroup>>
// GPU: nvgpu.device_async_copy {{.*}} : memref<32x256xf16> to memref<3x32x72xf16, #gpu.address_space<workgroup>>
// GPU: nvgpu.device_async_copy {{.*}} : memref<256x64xf16> to memref<3x64x40xf16, #gpu.address_space<workgroup>>
// GPU: %[[SX:.*]] = memref.subview %[[X]][%{{.*}}, 0, 0] [1, 32, 64] [1, 1, 1] : memref<3x32x72xf16, #gpu.address_space<workgroup>> to memref<32x64xf16, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>>
// GPU: %[[SW:.*]] = memref.subview %[[W]][%{{.*}}, 0, 0] [1, 64, 32] [1, 1, 1] : memref<3x64x40xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, strided<[40, 1], offset: ?>, #gpu.address_space<workgroup>>
// GPU: nvgpu.ldmatrix %[[SX]]{{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x64xf16, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// GPU: nvgpu.ldmatrix %[[SW]]{{.*}} {numTiles = 4 : i32, transpose = true} : memref<64x32xf16, strided<[40, 1], offset: ?>, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// GPU-COUNT-4: nvgpu.mma.sync
// GPU: %[[V:.*]] = vector.extract %{{.*}}#0[0, 0] : f32 from vector<2x2xf32>
// GPU-NEXT: %[[OLD:.*]] = memref.load %[[ACC]][%{{.*}}, %{{.*}}] : memref<32x32xf32, #gpu.address_space<workgroup>>
// GPU-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %[[V]] fastmath<contract> : f32
// GPU-NEXT: memref.store %[[NEW]], %[[ACC]][%{{.*}}, %{{.*}}] : memref<32x32xf32, #gpu.address_space<workgroup>>
// GPU: } {mirage.for_loop}
// GPU: gpu.return

func.func @tc_loop_accum_block(%x: tensor<32x256xf16>, %w: tensor<256x64xf16>) -> tensor<32x64xf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<32x256xf16>) -> tensor<32x64xf16>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<256x64xf16>) -> tensor<64x32xf16>
  %m = "ug.matmul"(%xt, %wt) : (tensor<32x64xf16>, tensor<64x32xf16>) -> tensor<32x32xf16>
  %s = "ug.accum"(%m) {kind = "sum"} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %o = "ug.saver"(%s) {omap = array<i64: 1, -1, -1>} : (tensor<32x32xf16>) -> tensor<32x64xf16>
  func.return %o : tensor<32x64xf16>
}
func.func @tc_loop_accum(%x: tensor<32x256xf16>, %w: tensor<256x64xf16>) -> tensor<32x64xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @tc_loop_accum_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x256xf16>, tensor<256x64xf16>) -> tensor<32x64xf16>
  func.return %y : tensor<32x64xf16>
}


// The same in bf16: nvgpu's mma.sync conversion has no bf16, so the
// fragments go to nvvm.mma.sync as i32 pairs.
// GPU-LABEL: gpu.func @tc_loop_accum_bf16_gpu_k2(
// GPU: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x64xbf16, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// GPU: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true} : memref<64x32xbf16, strided<[40, 1], offset: ?>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// GPU: vector.bitcast %{{.*}} : vector<4x2xbf16> to vector<4x1xi32>
// GPU: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// GPU-NOT: nvgpu.mma.sync
// GPU: gpu.return

func.func @tc_loop_accum_bf16_block(%x: tensor<32x256xbf16>, %w: tensor<256x64xbf16>) -> tensor<32x64xbf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<32x256xbf16>) -> tensor<32x64xbf16>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<256x64xbf16>) -> tensor<64x32xbf16>
  %m = "ug.matmul"(%xt, %wt) : (tensor<32x64xbf16>, tensor<64x32xbf16>) -> tensor<32x32xbf16>
  %s = "ug.accum"(%m) {kind = "sum"} : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
  %o = "ug.saver"(%s) {omap = array<i64: 1, -1, -1>} : (tensor<32x32xbf16>) -> tensor<32x64xbf16>
  func.return %o : tensor<32x64xbf16>
}
func.func @tc_loop_accum_bf16(%x: tensor<32x256xbf16>, %w: tensor<256x64xbf16>) -> tensor<32x64xbf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @tc_loop_accum_bf16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x256xbf16>, tensor<256x64xbf16>) -> tensor<32x64xbf16>
  func.return %y : tensor<32x64xbf16>
}


// One mma tile, one warp, bf16: A's 32-byte rows padded to 48; B's rows of
// 16 bytes already fall on different banks (no padding).
// GPU-LABEL: gpu.func @tc_one_warp_bf16_gpu_k2(
// GPU-SAME: workgroup(%{{.*}} : memref<16x24xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<16x8xbf16, #gpu.address_space<workgroup>>
// GPU: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true} : memref<16x8xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// GPU-COUNT-1: nvvm.mma.sync
// GPU-NOT: nvvm.mma.sync
// GPU: gpu.return

func.func @tc_one_warp_bf16_block(%a: tensor<16x16xbf16>, %b: tensor<16x8xbf16>) -> tensor<16x8xbf16> attributes {ug.block_threads = 32 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x16xbf16>) -> tensor<16x16xbf16>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x8xbf16>) -> tensor<16x8xbf16>
  %m = "ug.matmul"(%at, %bt) : (tensor<16x16xbf16>, tensor<16x8xbf16>) -> tensor<16x8xbf16>
  %o = "ug.saver"(%m) {omap = array<i64: -1, -1, -1>} : (tensor<16x8xbf16>) -> tensor<16x8xbf16>
  func.return %o : tensor<16x8xbf16>
}
func.func @tc_one_warp_bf16(%a: tensor<16x16xbf16>, %b: tensor<16x8xbf16>) -> tensor<16x8xbf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%a, %b) {kernel = @tc_one_warp_bf16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x16xbf16>, tensor<16x8xbf16>) -> tensor<16x8xbf16>
  func.return %y : tensor<16x8xbf16>
}


// n = 24 (three n-blocks: .x2 loads); B's 48-byte rows need no padding.
// GPU-LABEL: gpu.func @tc_n24_gpu_k2(
// GPU-SAME: workgroup(%{{.*}} : memref<32x40xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<32x24xf16, #gpu.address_space<workgroup>>
// GPU: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true} : memref<32x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// GPU: nvgpu.mma.sync
// GPU: gpu.return

func.func @tc_n24_block(%a: tensor<32x32xf16>, %b: tensor<32x24xf16>) -> tensor<32x24xf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<32x24xf16>) -> tensor<32x24xf16>
  %m = "ug.matmul"(%at, %bt) : (tensor<32x32xf16>, tensor<32x24xf16>) -> tensor<32x24xf16>
  %o = "ug.saver"(%m) {omap = array<i64: -1, -1, -1>} : (tensor<32x24xf16>) -> tensor<32x24xf16>
  func.return %o : tensor<32x24xf16>
}
func.func @tc_n24(%a: tensor<32x32xf16>, %b: tensor<32x24xf16>) -> tensor<32x24xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%a, %b) {kernel = @tc_n24_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x32xf16>, tensor<32x24xf16>) -> tensor<32x24xf16>
  func.return %y : tensor<32x24xf16>
}


// LoRA's shape in bf16: X·A (16x64 by 64x16 per iteration) into a tile,
// read by the second matmul (16x16 by 16x32) adding into the accumulator.
// GPU-LABEL: gpu.func @tc_two_step_bf16_gpu_k3(
// GPU: nvgpu.ldmatrix %{{.*}} : memref<16x64xbf16, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// GPU: nvgpu.ldmatrix %{{.*}} : memref<64x16xbf16, strided<[24, 1], offset: ?>, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// GPU: nvvm.mma.sync
// GPU: gpu.barrier
// GPU: nvgpu.ldmatrix %{{.*}} : memref<16x24xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// GPU: nvgpu.ldmatrix %{{.*}} : memref<16x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// GPU: nvvm.mma.sync
// GPU: gpu.return

func.func @tc_two_step_bf16_block(%x: tensor<16x256xbf16>, %a: tensor<256x16xbf16>, %b: tensor<16x64xbf16>) -> tensor<16x64xbf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x256xbf16>) -> tensor<16x64xbf16>
  %at = "ug.iterator"(%a) {fmap = 0 : i64, imap = array<i64: -1, -1, -1>} : (tensor<256x16xbf16>) -> tensor<64x16xbf16>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<16x64xbf16>) -> tensor<16x32xbf16>
  %xa = "ug.matmul"(%xt, %at) : (tensor<16x64xbf16>, tensor<64x16xbf16>) -> tensor<16x16xbf16>
  %xab = "ug.matmul"(%xa, %bt) : (tensor<16x16xbf16>, tensor<16x32xbf16>) -> tensor<16x32xbf16>
  %s = "ug.accum"(%xab) {kind = "sum"} : (tensor<16x32xbf16>) -> tensor<16x32xbf16>
  %o = "ug.saver"(%s) {omap = array<i64: 1, -1, -1>} : (tensor<16x32xbf16>) -> tensor<16x64xbf16>
  func.return %o : tensor<16x64xbf16>
}
func.func @tc_two_step_bf16(%x: tensor<16x256xbf16>, %a: tensor<256x16xbf16>, %b: tensor<16x64xbf16>) -> tensor<16x64xbf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %a, %b) {kernel = @tc_two_step_bf16_block, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x256xbf16>, tensor<256x16xbf16>, tensor<16x64xbf16>) -> tensor<16x64xbf16>
  func.return %y : tensor<16x64xbf16>
}

//===----------------------------------------------------------------------===//
// The FP32 path: shapes the mma tiles do not cover, f32
//===----------------------------------------------------------------------===//


// m = 20 (not a multiple of 16), a bf16 m of 24, one row (a GEMV), K = 1,
// f32: dot products per element, tiles unpadded.
// GPU-LABEL: gpu.func @fma_tail_f16_gpu_k2(
// GPU-SAME: workgroup(%{{.*}} : memref<20x48xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<48x24xf16, #gpu.address_space<workgroup>>
// GPU-NOT: mma.sync
// GPU-NOT: ldmatrix
// GPU: arith.mulf
// GPU: gpu.return
// GPU-LABEL: gpu.func @fma_tail_bf16_gpu_k2(
// GPU-NOT: mma.sync
// GPU: arith.mulf
// GPU: gpu.return
// GPU-LABEL: gpu.func @fma_gemv_f16_gpu_k2(
// GPU-NOT: mma.sync
// GPU: gpu.shuffle xor
// GPU: gpu.return
// GPU-LABEL: gpu.func @fma_k1_f16_gpu_k2(
// GPU-NOT: mma.sync
// GPU: arith.mulf
// GPU: gpu.return
// GPU-LABEL: gpu.func @fma_f32_gpu_k2(
// GPU-NOT: mma.sync
// GPU: arith.mulf
// GPU: gpu.return

func.func @fma_tail_f16_block(%a: tensor<20x48xf16>, %b: tensor<48x24xf16>) -> tensor<20x24xf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<20x48xf16>) -> tensor<20x48xf16>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<48x24xf16>) -> tensor<48x24xf16>
  %m = "ug.matmul"(%at, %bt) : (tensor<20x48xf16>, tensor<48x24xf16>) -> tensor<20x24xf16>
  %o = "ug.saver"(%m) {omap = array<i64: -1, -1, -1>} : (tensor<20x24xf16>) -> tensor<20x24xf16>
  func.return %o : tensor<20x24xf16>
}
func.func @fma_tail_f16(%a: tensor<20x48xf16>, %b: tensor<48x24xf16>) -> tensor<20x24xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%a, %b) {kernel = @fma_tail_f16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<20x48xf16>, tensor<48x24xf16>) -> tensor<20x24xf16>
  func.return %y : tensor<20x24xf16>
}

func.func @fma_tail_bf16_block(%a: tensor<24x32xbf16>, %b: tensor<32x8xbf16>) -> tensor<24x8xbf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<24x32xbf16>) -> tensor<24x32xbf16>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<32x8xbf16>) -> tensor<32x8xbf16>
  %m = "ug.matmul"(%at, %bt) : (tensor<24x32xbf16>, tensor<32x8xbf16>) -> tensor<24x8xbf16>
  %o = "ug.saver"(%m) {omap = array<i64: -1, -1, -1>} : (tensor<24x8xbf16>) -> tensor<24x8xbf16>
  func.return %o : tensor<24x8xbf16>
}
func.func @fma_tail_bf16(%a: tensor<24x32xbf16>, %b: tensor<32x8xbf16>) -> tensor<24x8xbf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%a, %b) {kernel = @fma_tail_bf16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<24x32xbf16>, tensor<32x8xbf16>) -> tensor<24x8xbf16>
  func.return %y : tensor<24x8xbf16>
}

func.func @fma_gemv_f16_block(%a: tensor<1x64xf16>, %b: tensor<64x32xf16>) -> tensor<1x32xf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x64xf16>) -> tensor<1x64xf16>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<64x32xf16>) -> tensor<64x32xf16>
  %m = "ug.matmul"(%at, %bt) : (tensor<1x64xf16>, tensor<64x32xf16>) -> tensor<1x32xf16>
  %o = "ug.saver"(%m) {omap = array<i64: -1, -1, -1>} : (tensor<1x32xf16>) -> tensor<1x32xf16>
  func.return %o : tensor<1x32xf16>
}
func.func @fma_gemv_f16(%a: tensor<1x64xf16>, %b: tensor<64x32xf16>) -> tensor<1x32xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%a, %b) {kernel = @fma_gemv_f16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x64xf16>, tensor<64x32xf16>) -> tensor<1x32xf16>
  func.return %y : tensor<1x32xf16>
}

func.func @fma_k1_f16_block(%a: tensor<16x1xf16>, %b: tensor<1x16xf16>) -> tensor<16x16xf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x1xf16>) -> tensor<16x1xf16>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x16xf16>) -> tensor<1x16xf16>
  %m = "ug.matmul"(%at, %bt) : (tensor<16x1xf16>, tensor<1x16xf16>) -> tensor<16x16xf16>
  %o = "ug.saver"(%m) {omap = array<i64: -1, -1, -1>} : (tensor<16x16xf16>) -> tensor<16x16xf16>
  func.return %o : tensor<16x16xf16>
}
func.func @fma_k1_f16(%a: tensor<16x1xf16>, %b: tensor<1x16xf16>) -> tensor<16x16xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%a, %b) {kernel = @fma_k1_f16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x1xf16>, tensor<1x16xf16>) -> tensor<16x16xf16>
  func.return %y : tensor<16x16xf16>
}

func.func @fma_f32_block(%a: tensor<32x32xf32>, %b: tensor<32x16xf32>) -> tensor<32x16xf32> attributes {ug.block_threads = 64 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<32x16xf32>) -> tensor<32x16xf32>
  %m = "ug.matmul"(%at, %bt) : (tensor<32x32xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %o = "ug.saver"(%m) {omap = array<i64: -1, -1, -1>} : (tensor<32x16xf32>) -> tensor<32x16xf32>
  func.return %o : tensor<32x16xf32>
}
func.func @fma_f32(%a: tensor<32x32xf32>, %b: tensor<32x16xf32>) -> tensor<32x16xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%a, %b) {kernel = @fma_f32_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x32xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  func.return %y : tensor<32x16xf32>
}
