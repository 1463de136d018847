// REQUIRES: ptxas, libdevice
// The sanitized run leaves this test out: it repeats a plain-run PTX check,
// whose time is upstream's NVPTX back end and ptxas; the code of ours it
// runs is sanitized in transposed-loads.mlir.
// UNSUPPORTED: asan
// The kernels of transposed-loads.mlir's stored-order copies as PTX for
// sm_90 and sm_80: ptxas accepts them, and Wᵀ's tiles arrive as 16-byte
// loads of W's stored rows (ld.global.v4.b32), not as 2-byte ones, in f16
// and bf16, for a tile scattered into shared memory (8 stores a vector)
// and a column tile (one 16-byte shared store). With rows of 12 halves the
// copies stay element by element (ld.global.b16).
// RUN: mirage-opt --mirage-lower %s -o %t.sm90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90.mlir %t.sm90 | FileCheck %s --check-prefix=FILES
// RUN: %ptxas -arch=sm_90 %t.sm90/tiles_f16_gpu.ptx -o %t.sm90/tiles_f16.cubin
// RUN: %ptxas -arch=sm_90 %t.sm90/tiles_bf16_gpu.ptx -o %t.sm90/tiles_bf16.cubin
// RUN: %ptxas -arch=sm_90 %t.sm90/columns_bf16_gpu.ptx -o %t.sm90/columns_bf16.cubin
// RUN: %ptxas -arch=sm_90 %t.sm90/odd_rows_f16_gpu.ptx -o %t.sm90/odd_rows_f16.cubin
// RUN: FileCheck %s --check-prefix=TILES < %t.sm90/tiles_f16_gpu.ptx
// RUN: FileCheck %s --check-prefix=TILES < %t.sm90/tiles_bf16_gpu.ptx
// RUN: FileCheck %s --check-prefix=COLUMNS < %t.sm90/columns_bf16_gpu.ptx
// RUN: FileCheck %s --check-prefix=ODD < %t.sm90/odd_rows_f16_gpu.ptx
// RUN: mirage-opt --mirage-lower="target=sm_80" %s -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir %t.sm80
// RUN: %ptxas -arch=sm_80 %t.sm80/tiles_f16_gpu.ptx -o %t.sm80/tiles_f16.cubin
// RUN: %ptxas -arch=sm_80 %t.sm80/tiles_bf16_gpu.ptx -o %t.sm80/tiles_bf16.cubin
// RUN: %ptxas -arch=sm_80 %t.sm80/columns_bf16_gpu.ptx -o %t.sm80/columns_bf16.cubin
// RUN: %ptxas -arch=sm_80 %t.sm80/odd_rows_f16_gpu.ptx -o %t.sm80/odd_rows_f16.cubin
// RUN: FileCheck %s --check-prefix=TILES < %t.sm80/tiles_f16_gpu.ptx
// RUN: FileCheck %s --check-prefix=TILES < %t.sm80/tiles_bf16_gpu.ptx
// RUN: FileCheck %s --check-prefix=COLUMNS < %t.sm80/columns_bf16_gpu.ptx
// RUN: FileCheck %s --check-prefix=ODD < %t.sm80/odd_rows_f16_gpu.ptx

// FILES: tiles_f16_gpu.ptx
// FILES: tiles_bf16_gpu.ptx
// FILES: columns_bf16_gpu.ptx
// FILES: odd_rows_f16_gpu.ptx

// X's (16, 32) tile and Wᵀ's (32, 16) tile: 16-byte loads only; Wᵀ's
// vectors go into the tile by 2-byte shared stores.
// TILES-LABEL: .entry
// TILES-NOT: ld.global.b16
// TILES-NOT: ld.global.nc.b16
// TILES: ld.global.v4.b32
// TILES-NOT: ld.global.b16
// TILES-NOT: ld.global.nc.b16
// TILES: st.shared.b16
// TILES-NOT: ld.global.b16
// TILES-NOT: ld.global.nc.b16

// COLUMNS-LABEL: .entry
// COLUMNS-NOT: ld.global.b16
// COLUMNS-NOT: ld.global.nc.b16
// COLUMNS: ld.global.v4.b32
// COLUMNS: st.shared.v4.b32
// COLUMNS-NOT: ld.global.b16
// COLUMNS-NOT: ld.global.nc.b16

// Rows of 12 halves (24 bytes), X's and W's: no 16-byte loads.
// ODD-LABEL: .entry
// ODD-NOT: ld.global.v4
// ODD: ld.global.b16
// ODD-NOT: ld.global.v4

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
