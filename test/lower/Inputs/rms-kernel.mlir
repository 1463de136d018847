// The fused RMSNorm kernel graph (input of upstream.mlir; not a test).
func.func @rms_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x16xf32>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf32>) -> tensor<16x24xf32>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x16xf32>, tensor<16x24xf32>) -> tensor<2x24xf32>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<2x24xf32>) -> tensor<2x24xf32>
  %ss = "ug.accum"(%xt) {kind = "sum_sq_last"} : (tensor<2x16xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "ug.div"(%acc, %rms) : (tensor<2x24xf32>, tensor<2x1xf32>) -> tensor<2x24xf32>
  %o = "ug.saver"(%y) {omap = array<i64: 1, -1, -1>} : (tensor<2x24xf32>) -> tensor<2x96xf32>
  func.return %o : tensor<2x96xf32>
}
func.func @rms(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}
