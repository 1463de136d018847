// RMSNorm + matmul's one-kernel form at the paper's shapes (X 2x4096, W
// 4096x6144, grid 256, F 32: Mirage's published μGraph), for fused-gemv-ptx.mlir.
func.func private @rms_k(%x: tensor<1x2x4096xf16>, %w: tensor<1x4096x6144xf16>) -> tensor<1x2x6144xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 32 : i64, ug.grid = array<i64: 256, 1, 1>, ug.level = "block"} {
  %0 = "ug.iterator"(%x) {fmap = 2 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x2x4096xf16>) -> tensor<1x2x128xf16>
  %1 = "ug.iterator"(%w) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x4096x6144xf16>) -> tensor<1x128x24xf16>
  %2 = "ug.matmul"(%0, %1) : (tensor<1x2x128xf16>, tensor<1x128x24xf16>) -> tensor<1x2x24xf16>
  %3 = "ug.accum"(%2) {kind = "sum"} : (tensor<1x2x24xf16>) -> tensor<1x2x24xf32>
  %4 = "ug.accum"(%0) {kind = "sum_sq_last"} : (tensor<1x2x128xf16>) -> tensor<1x2x1xf32>
  %5 = "ug.mul_scalar"(%4) {scalar = 2.44140625E-4 : f64} : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %6 = "ug.sqrt"(%5) : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %7 = "ug.div"(%3, %6) : (tensor<1x2x24xf32>, tensor<1x2x1xf32>) -> tensor<1x2x24xf32>
  %8 = "ug.saver"(%7) {omap = array<i64: 2, -1, -1>} : (tensor<1x2x24xf32>) -> tensor<1x2x6144xf16>
  return %8 : tensor<1x2x6144xf16>
}
func.func @rms(%x: tensor<1x2x4096xf16>, %w: tensor<1x4096x6144xf16>) -> tensor<1x2x6144xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%x, %w) {kernel = @rms_k, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x2x4096xf16>, tensor<1x4096x6144xf16>) -> tensor<1x2x6144xf16>
  return %0 : tensor<1x2x6144xf16>
}
