// Tiles of a kernel tensor read through a layout (nn.Linear's weight as
// Wᵀ, an input stored transposed; Kᵀ of a computed K, a folded view) move
// as 16-byte vectors along the dim that is contiguous in memory: each
// thread loads one vector through a memref.transpose view in stored order
// (innermost stride 1) and stores its elements into the tile at their
// transposed positions, one by one, or as one vector when they are
// contiguous in the tile too (a column tile, its trailing unit dim folded
// away). Where the stored rows are not whole aligned vectors (an extent
// not a multiple of 8 halves or 4 floats, a view starting mid-vector) the
// copy stays element by element in stored order. The CPU form runs the
// same code, so mirage-run --lower checks its indices against the
// interpreter, which reads the inputs in their logical shape.
//
// RUN: mirage-run --lower %s | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU
// The transposed-weight MLP and attention with Kᵀ of a computed K, as the
// search composes them, against their TOSA originals:
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false" %S/../lift/transposed-weights.mlir -o %t.mlp.mlir
// RUN: mirage-run --lower %t.mlp.mlir | FileCheck %s --check-prefix=MLP
// RUN: mirage-opt --mirage-lower="ptx=false" %t.mlp.mlir | FileCheck %s --check-prefix=MLP-GPU
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false" %S/../search/superopt-attention-views.mlir -o %t.att.mlir
// RUN: mirage-run --lower --range=0.25 %t.att.mlir | FileCheck %s --check-prefix=ATT
// RUN: mirage-opt --mirage-lower="ptx=false" %t.att.mlir | FileCheck %s --check-prefix=ATT-GPU

// CHECK-DAG: @tiles_f16: 1 output, 512 elements, max abs error {{.*}}: ok
// CHECK-DAG: @tiles_bf16: 1 output, 512 elements, max abs error {{.*}}: ok
// CHECK-DAG: @tiles_f32: 1 output, 512 elements, max abs error {{.*}}: ok
// CHECK-DAG: @columns_bf16: 1 output, 512 elements, max abs error {{.*}}: ok
// CHECK-DAG: @rank3_f16: 1 output, 1024 elements, max abs error {{.*}}: ok
// CHECK-DAG: @odd_rows_f16: 1 output, 512 elements, max abs error {{.*}}: ok
// CHECK-DAG: @folded_f16: 1 output, 512 elements, max abs error {{.*}}: ok
// CHECK-DAG: @folded_mid_vector_f16: 1 output, 512 elements, max abs error {{.*}}: ok
// CHECK-NOT: MISMATCH

// MLP-COUNT-4: : ok
// MLP-NOT: MISMATCH
// ATT-COUNT-3: : ok
// ATT-NOT: MISMATCH

// The MLP's kernels read Wᵀ's (1, 64, 1) and (1, 128, 1) column tiles as
// whole vectors of the stored rows.
// MLP-GPU-LABEL: gpu.func @mlp_f16_lax0_gpu_k4(
// MLP-GPU-COUNT-2: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x128x64xf16, strided<[8192, 64, 1]>>, vector<8xf16>
// MLP-GPU-LABEL: gpu.func @mlp_f16_lax0_gpu_k5(
// MLP-GPU: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x64x128xf16, strided<[8192, 128, 1]>>, vector<8xf16>
// MLP-GPU-LABEL: gpu.func @mlp_bf16_lax0_gpu_k4(
// MLP-GPU-COUNT-2: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x128x64xbf16, strided<[8192, 64, 1]>>, vector<8xbf16>
// MLP-GPU-LABEL: gpu.func @mlp_bf16_lax0_gpu_k5(
// MLP-GPU: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x64x128xbf16, strided<[8192, 128, 1]>>, vector<8xbf16>

// Q·Kᵀ reads Kᵀ, a folded view of the K projection's buffer (B, S, H, D),
// in the order of that buffer: 8 of D at a time.
// ATT-GPU-LABEL: gpu.func @attention_f16_lax0_gpu_k15(
// ATT-GPU: %[[KT:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 1, 16, 16], strides: [16, 512, 1, 32] : memref<1x16x2x16xf16> to memref<2x1x16x16xf16, strided<[16, 512, 1, 32]>>
// ATT-GPU: %[[KS:.*]] = memref.transpose %[[KT]] (d0, d1, d2, d3) -> (d1, d3, d0, d2) : memref<2x1x16x16xf16, strided<[16, 512, 1, 32]>> to memref<1x16x2x16xf16, strided<[512, 32, 16, 1]>>
// ATT-GPU: vector.load %[[KS]][{{.*}}] {alignment = 16 : i64} : memref<1x16x2x16xf16, strided<[512, 32, 16, 1]>>, vector<8xf16>
// ATT-GPU-LABEL: gpu.func @attention_bf16_lax0_gpu_k15(
// ATT-GPU: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x16x2x16xbf16, strided<[512, 32, 16, 1]>>, vector<8xbf16>

//===----------------------------------------------------------------------===//
// Inputs stored transposed
//===----------------------------------------------------------------------===//

// x·Wᵀ with W stored (32, 64): the tiles of Wᵀ are (32 k, 16 n); k is
// contiguous in memory, so a thread loads 8 k of one n and stores them
// down a column of the tile (8 scalar stores).
// GPU-LABEL: gpu.func @tiles_f16_gpu_k2(
// GPU: %[[W:.*]] = memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<32x64xf16> to memref<64x32xf16, strided<[1, 64]>>
// GPU: %[[S:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0) : memref<64x32xf16, strided<[1, 64]>> to memref<32x64xf16, strided<[64, 1]>>
// GPU: %[[V:.*]] = vector.load %[[S]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<32x64xf16, strided<[64, 1]>>, vector<8xf16>
// GPU-COUNT-8: vector.extract %[[V]][{{[0-7]}}] : f16 from vector<8xf16>
// GPU-NOT: memref.load %[[W]]
// GPU-LABEL: gpu.func @tiles_bf16_gpu_k2(
// GPU: vector.load %{{.*}} {alignment = 16 : i64} : memref<32x64xbf16, strided<[64, 1]>>, vector<8xbf16>
// GPU-COUNT-8: vector.extract %{{.*}} : bf16 from vector<8xbf16>
// GPU-LABEL: gpu.func @tiles_f32_gpu_k2(
// GPU: vector.load %{{.*}} {alignment = 16 : i64} : memref<32x64xf32, strided<[64, 1]>>, vector<4xf32>
// GPU-COUNT-4: vector.extract %{{.*}} : f32 from vector<4xf32>
// A column tile (64 k, 1 n): the vector lands whole in the tile.
// GPU-LABEL: gpu.func @columns_bf16_gpu_k2(
// GPU: %[[C:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<64x1xbf16, #gpu.address_space<workgroup>> into memref<64xbf16, #gpu.address_space<workgroup>>
// GPU: %[[CV:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<32x64xbf16, strided<[64, 1]>>, vector<8xbf16>
// GPU-NEXT: vector.store %[[CV]], %[[C]][%{{.*}}] : memref<64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// A batched weight (2, 32, 64) read as (2, 64, 32).
// GPU-LABEL: gpu.func @rank3_f16_gpu_k2(
// GPU: vector.load %{{.*}} {alignment = 16 : i64} : memref<2x32x64xf16, strided<[2048, 64, 1]>>, vector<8xf16>
// Rows of 12 halves are not whole vectors: element by element, in stored
// order, through the logical view.
// GPU-LABEL: gpu.func @odd_rows_f16_gpu_k2(
// GPU: %[[OW:.*]] = memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<32x12xf16> to memref<12x32xf16, strided<[1, 12]>>
// GPU-NOT: from vector<8xf16>
// GPU: memref.load %[[OW]][%{{.*}}, %{{.*}}] : memref<12x32xf16, strided<[1, 12]>>
// GPU-NOT: from vector<8xf16>
// GPU: gpu.return

func.func @tiles_f16_block(%x: tensor<16x64xf16>, %ws: tensor<32x64xf16>) -> tensor<16x32xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 2 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 1, 0>} : (tensor<32x64xf16>) -> tensor<64x32xf16>
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x64xf16>) -> tensor<16x32xf16>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x32xf16>) -> tensor<32x16xf16>
  %mm = "ug.matmul"(%xt, %wt) : (tensor<16x32xf16>, tensor<32x16xf16>) -> tensor<16x16xf32>
  %acc = "ug.accum"(%mm) {kind = "sum"} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = "ug.saver"(%acc) {omap = array<i64: 1, -1, -1>} : (tensor<16x16xf32>) -> tensor<16x32xf32>
  func.return %o : tensor<16x32xf32>
}
func.func @tiles_f16(%x: tensor<16x64xf16>, %ws: tensor<32x64xf16>) -> tensor<16x32xf32> attributes {ug.level = "kernel"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 1, 0>} : (tensor<32x64xf16>) -> tensor<64x32xf16>
  %y = "ug.custom"(%x, %w) {kernel = @tiles_f16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x64xf16>, tensor<64x32xf16>) -> tensor<16x32xf32>
  func.return %y : tensor<16x32xf32>
}

func.func @tiles_bf16_block(%x: tensor<16x64xbf16>, %ws: tensor<32x64xbf16>) -> tensor<16x32xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 2 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 1, 0>} : (tensor<32x64xbf16>) -> tensor<64x32xbf16>
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x64xbf16>) -> tensor<16x32xbf16>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x32xbf16>) -> tensor<32x16xbf16>
  %mm = "ug.matmul"(%xt, %wt) : (tensor<16x32xbf16>, tensor<32x16xbf16>) -> tensor<16x16xf32>
  %acc = "ug.accum"(%mm) {kind = "sum"} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = "ug.saver"(%acc) {omap = array<i64: 1, -1, -1>} : (tensor<16x16xf32>) -> tensor<16x32xf32>
  func.return %o : tensor<16x32xf32>
}
func.func @tiles_bf16(%x: tensor<16x64xbf16>, %ws: tensor<32x64xbf16>) -> tensor<16x32xf32> attributes {ug.level = "kernel"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 1, 0>} : (tensor<32x64xbf16>) -> tensor<64x32xbf16>
  %y = "ug.custom"(%x, %w) {kernel = @tiles_bf16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x64xbf16>, tensor<64x32xbf16>) -> tensor<16x32xf32>
  func.return %y : tensor<16x32xf32>
}

func.func @tiles_f32_block(%x: tensor<16x64xf32>, %ws: tensor<32x64xf32>) -> tensor<16x32xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 2 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x64xf32>) -> tensor<16x32xf32>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x32xf32>) -> tensor<32x16xf32>
  %mm = "ug.matmul"(%xt, %wt) : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
  %acc = "ug.accum"(%mm) {kind = "sum"} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = "ug.saver"(%acc) {omap = array<i64: 1, -1, -1>} : (tensor<16x16xf32>) -> tensor<16x32xf32>
  func.return %o : tensor<16x32xf32>
}
func.func @tiles_f32(%x: tensor<16x64xf32>, %ws: tensor<32x64xf32>) -> tensor<16x32xf32> attributes {ug.level = "kernel"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
  %y = "ug.custom"(%x, %w) {kernel = @tiles_f32_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  func.return %y : tensor<16x32xf32>
}

func.func @columns_bf16_block(%x: tensor<16x64xbf16>, %ws: tensor<32x64xbf16>) -> tensor<16x32xf32> attributes {ug.block_threads = 64 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 32, 1, 1>, ug.level = "block"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 1, 0>} : (tensor<32x64xbf16>) -> tensor<64x32xbf16>
  %xt = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %wt = "ug.iterator"(%w) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x32xbf16>) -> tensor<64x1xbf16>
  %mm = "ug.matmul"(%xt, %wt) : (tensor<16x64xbf16>, tensor<64x1xbf16>) -> tensor<16x1xf32>
  %o = "ug.saver"(%mm) {omap = array<i64: 1, -1, -1>} : (tensor<16x1xf32>) -> tensor<16x32xf32>
  func.return %o : tensor<16x32xf32>
}
func.func @columns_bf16(%x: tensor<16x64xbf16>, %ws: tensor<32x64xbf16>) -> tensor<16x32xf32> attributes {ug.level = "kernel"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 1, 0>} : (tensor<32x64xbf16>) -> tensor<64x32xbf16>
  %y = "ug.custom"(%x, %w) {kernel = @columns_bf16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x64xbf16>, tensor<64x32xbf16>) -> tensor<16x32xf32>
  func.return %y : tensor<16x32xf32>
}

func.func @rank3_f16_block(%x: tensor<2x16x64xf16>, %ws: tensor<2x32x64xf16>) -> tensor<2x16x32xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 2 : i64, ug.grid = array<i64: 2, 2, 1>, ug.level = "block"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 0, 2, 1>} : (tensor<2x32x64xf16>) -> tensor<2x64x32xf16>
  %xt = "ug.iterator"(%x) {fmap = 2 : i64, imap = array<i64: -1, 0, -1>} : (tensor<2x16x64xf16>) -> tensor<1x16x32xf16>
  %wt = "ug.iterator"(%w) {fmap = 1 : i64, imap = array<i64: 2, 0, -1>} : (tensor<2x64x32xf16>) -> tensor<1x32x16xf16>
  %mm = "ug.matmul"(%xt, %wt) : (tensor<1x16x32xf16>, tensor<1x32x16xf16>) -> tensor<1x16x16xf32>
  %acc = "ug.accum"(%mm) {kind = "sum"} : (tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
  %o = "ug.saver"(%acc) {omap = array<i64: 2, 0, -1>} : (tensor<1x16x16xf32>) -> tensor<2x16x32xf32>
  func.return %o : tensor<2x16x32xf32>
}
func.func @rank3_f16(%x: tensor<2x16x64xf16>, %ws: tensor<2x32x64xf16>) -> tensor<2x16x32xf32> attributes {ug.level = "kernel"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 0, 2, 1>} : (tensor<2x32x64xf16>) -> tensor<2x64x32xf16>
  %y = "ug.custom"(%x, %w) {kernel = @rank3_f16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x16x64xf16>, tensor<2x64x32xf16>) -> tensor<2x16x32xf32>
  func.return %y : tensor<2x16x32xf32>
}

func.func @odd_rows_f16_block(%x: tensor<16x12xf16>, %ws: tensor<32x12xf16>) -> tensor<16x32xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 1, 0>} : (tensor<32x12xf16>) -> tensor<12x32xf16>
  %xt = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x12xf16>) -> tensor<16x12xf16>
  %wt = "ug.iterator"(%w) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<12x32xf16>) -> tensor<12x16xf16>
  %mm = "ug.matmul"(%xt, %wt) : (tensor<16x12xf16>, tensor<12x16xf16>) -> tensor<16x16xf32>
  %o = "ug.saver"(%mm) {omap = array<i64: 1, -1, -1>} : (tensor<16x16xf32>) -> tensor<16x32xf32>
  func.return %o : tensor<16x32xf32>
}
func.func @odd_rows_f16(%x: tensor<16x12xf16>, %ws: tensor<32x12xf16>) -> tensor<16x32xf32> attributes {ug.level = "kernel"} {
  %w = "ug.transpose"(%ws) {perm = array<i64: 1, 0>} : (tensor<32x12xf16>) -> tensor<12x32xf16>
  %y = "ug.custom"(%x, %w) {kernel = @odd_rows_f16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x12xf16>, tensor<12x32xf16>) -> tensor<16x32xf32>
  func.return %y : tensor<16x32xf32>
}

//===----------------------------------------------------------------------===//
// Folded views of a computed value
//===----------------------------------------------------------------------===//

// Kᵀ of a computed K (32, 72) after a slice of 64 columns: the block graph
// reads the exp kernel's buffer through strides [1, 72]. From column 8 the
// stored rows start on whole vectors; from column 4 they start mid-vector,
// and the copy stays element by element.
// GPU-LABEL: gpu.func @folded_f16_gpu_k5(
// GPU: %[[F:.*]] = memref.reinterpret_cast %{{.*}} to offset: [8], sizes: [64, 32], strides: [1, 72] : memref<32x72xf16> to memref<64x32xf16, strided<[1, 72], offset: 8>>
// GPU: %[[FS:.*]] = memref.transpose %[[F]] (d0, d1) -> (d1, d0) : memref<64x32xf16, strided<[1, 72], offset: 8>> to memref<32x64xf16, strided<[72, 1], offset: 8>>
// GPU: vector.load %[[FS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<32x64xf16, strided<[72, 1], offset: 8>>, vector<8xf16>
// GPU-LABEL: gpu.func @folded_mid_vector_f16_gpu_k5(
// GPU: %[[M:.*]] = memref.reinterpret_cast %{{.*}} to offset: [4], sizes: [64, 32], strides: [1, 72]
// GPU-NOT: from vector<8xf16>
// GPU: memref.load %[[M]]
// GPU-NOT: from vector<8xf16>
// GPU: gpu.return

func.func @folded_f16_block(%x: tensor<16x64xf16>, %w: tensor<64x32xf16>) -> tensor<16x32xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 2 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x64xf16>) -> tensor<16x32xf16>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x32xf16>) -> tensor<32x16xf16>
  %mm = "ug.matmul"(%xt, %wt) : (tensor<16x32xf16>, tensor<32x16xf16>) -> tensor<16x16xf32>
  %acc = "ug.accum"(%mm) {kind = "sum"} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = "ug.saver"(%acc) {omap = array<i64: 1, -1, -1>} : (tensor<16x16xf32>) -> tensor<16x32xf32>
  func.return %o : tensor<16x32xf32>
}
func.func @folded_f16(%x: tensor<16x64xf16>, %k: tensor<32x72xf16>) -> tensor<16x32xf32> attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%k) : (tensor<32x72xf16>) -> tensor<32x72xf16>
  %s = "ug.slice"(%e) {dim = 1 : i64, offset = 8 : i64} : (tensor<32x72xf16>) -> tensor<32x64xf16>
  %t = "ug.transpose"(%s) {perm = array<i64: 1, 0>} : (tensor<32x64xf16>) -> tensor<64x32xf16>
  %y = "ug.custom"(%x, %t) {kernel = @folded_f16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x64xf16>, tensor<64x32xf16>) -> tensor<16x32xf32>
  func.return %y : tensor<16x32xf32>
}

func.func @folded_mid_vector_f16_block(%x: tensor<16x64xf16>, %w: tensor<64x32xf16>) -> tensor<16x32xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 2 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<16x64xf16>) -> tensor<16x32xf16>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x32xf16>) -> tensor<32x16xf16>
  %mm = "ug.matmul"(%xt, %wt) : (tensor<16x32xf16>, tensor<32x16xf16>) -> tensor<16x16xf32>
  %acc = "ug.accum"(%mm) {kind = "sum"} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = "ug.saver"(%acc) {omap = array<i64: 1, -1, -1>} : (tensor<16x16xf32>) -> tensor<16x32xf32>
  func.return %o : tensor<16x32xf32>
}
func.func @folded_mid_vector_f16(%x: tensor<16x64xf16>, %k: tensor<32x72xf16>) -> tensor<16x32xf32> attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%k) : (tensor<32x72xf16>) -> tensor<32x72xf16>
  %s = "ug.slice"(%e) {dim = 1 : i64, offset = 4 : i64} : (tensor<32x72xf16>) -> tensor<32x64xf16>
  %t = "ug.transpose"(%s) {perm = array<i64: 1, 0>} : (tensor<32x64xf16>) -> tensor<64x32xf16>
  %y = "ug.custom"(%x, %t) {kernel = @folded_mid_vector_f16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x64xf16>, tensor<64x32xf16>) -> tensor<16x32xf32>
  func.return %y : tensor<16x32xf32>
}
