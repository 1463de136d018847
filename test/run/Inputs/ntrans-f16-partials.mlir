// Input of partials-f32.mlir: the one-kernel nTrans the search finds for its
// f16 program, with the sums of squares (an accumulator and a block-level
// sum) and the scales after them declared f16, as the search wrote them
// before partial sums were kept in f32.
module {
  func.func @ntrans_f16_partials_k1(%arg0: tensor<8x64xf16>, %arg1: tensor<8x64xf16>, %arg2: tensor<8x64xf16>) -> tensor<8x64xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 8, 1, 1>, ug.level = "block"} {
    %0 = "ug.iterator"(%arg0) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x64xf16>) -> tensor<1x64xf16>
    %1 = "ug.iterator"(%arg1) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x64xf16>) -> tensor<1x64xf16>
    %2 = "ug.iterator"(%arg2) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x64xf16>) -> tensor<1x64xf16>
    %3 = "ug.accum"(%0) {kind = "sum_sq_last"} : (tensor<1x64xf16>) -> tensor<1x1xf16>
    %4 = "ug.mul_scalar"(%3) {scalar = 1.562500e-02 : f64} : (tensor<1x1xf16>) -> tensor<1x1xf16>
    %5 = "ug.rsqrt"(%4) : (tensor<1x1xf16>) -> tensor<1x1xf16>
    %6 = "ug.mul"(%0, %5) : (tensor<1x64xf16>, tensor<1x1xf16>) -> tensor<1x64xf16>
    %7 = "ug.add"(%1, %6) : (tensor<1x64xf16>, tensor<1x64xf16>) -> tensor<1x64xf16>
    %8 = "ug.mul"(%2, %7) : (tensor<1x64xf16>, tensor<1x64xf16>) -> tensor<1x64xf16>
    %9 = "ug.add"(%1, %8) : (tensor<1x64xf16>, tensor<1x64xf16>) -> tensor<1x64xf16>
    %10 = "ug.mul"(%9, %9) : (tensor<1x64xf16>, tensor<1x64xf16>) -> tensor<1x64xf16>
    %11 = "ug.sum"(%10) {dim = 1 : i64} : (tensor<1x64xf16>) -> tensor<1x1xf16>
    %12 = "ug.mul_scalar"(%11) {scalar = 1.562500e-02 : f64} : (tensor<1x1xf16>) -> tensor<1x1xf16>
    %13 = "ug.rsqrt"(%12) : (tensor<1x1xf16>) -> tensor<1x1xf16>
    %14 = "ug.mul"(%9, %13) : (tensor<1x64xf16>, tensor<1x1xf16>) -> tensor<1x64xf16>
    %15 = "ug.saver"(%14) {omap = array<i64: 0, -1, -1>} : (tensor<1x64xf16>) -> tensor<8x64xf16>
    return %15 : tensor<8x64xf16>
  }
  func.func @ntrans_f16_partials(%arg0: tensor<8x64xf16>, %arg1: tensor<8x64xf16>, %arg2: tensor<8x64xf16>) -> tensor<8x64xf16> attributes {ug.level = "kernel"} {
    %0 = "ug.custom"(%arg0, %arg1, %arg2) {kernel = @ntrans_f16_partials_k1, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
    return %0 : tensor<8x64xf16>
  }
}
