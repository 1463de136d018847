// The gated MLP's one-kernel form at the paper's shape (X 8x4096, W1 and W3
// 4096x4096 f16; 256 blocks of 16 columns, F 64), for fused-gated-ptx.mlir.
func.func private @gated_k(%x: tensor<1x8x4096xf16>, %w1: tensor<1x4096x4096xf16>, %w3: tensor<1x4096x4096xf16>) -> tensor<1x8x4096xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 64 : i64, ug.grid = array<i64: 256, 1, 1>, ug.level = "block"} {
  %0 = "ug.iterator"(%x) {fmap = 2 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x8x4096xf16>) -> tensor<1x8x64xf16>
  %1 = "ug.iterator"(%w1) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x4096x4096xf16>) -> tensor<1x64x16xf16>
  %2 = "ug.iterator"(%w3) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x4096x4096xf16>) -> tensor<1x64x16xf16>
  %3 = "ug.matmul"(%0, %1) : (tensor<1x8x64xf16>, tensor<1x64x16xf16>) -> tensor<1x8x16xf16>
  %4 = "ug.accum"(%3) {kind = "sum"} : (tensor<1x8x16xf16>) -> tensor<1x8x16xf32>
  %5 = "ug.matmul"(%0, %2) : (tensor<1x8x64xf16>, tensor<1x64x16xf16>) -> tensor<1x8x16xf16>
  %6 = "ug.accum"(%5) {kind = "sum"} : (tensor<1x8x16xf16>) -> tensor<1x8x16xf32>
  %7 = "ug.silu"(%4) : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %8 = "ug.mul"(%7, %6) : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %9 = "ug.saver"(%8) {omap = array<i64: 2, -1, -1>} : (tensor<1x8x16xf32>) -> tensor<1x8x4096xf16>
  return %9 : tensor<1x8x4096xf16>
}
func.func @gated(%x: tensor<1x8x4096xf16>, %w1: tensor<1x4096x4096xf16>, %w3: tensor<1x4096x4096xf16>) -> tensor<1x8x4096xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%x, %w1, %w3) {kernel = @gated_k, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x8x4096xf16>, tensor<1x4096x4096xf16>, tensor<1x4096x4096xf16>) -> tensor<1x8x4096xf16>
  return %0 : tensor<1x8x4096xf16>
}
