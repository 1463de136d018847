// The generalized μGraph superopt finds for grouped-query decode attention
// over a `?` KV cache (test/search/dynamic-gqa.mlir), lower=false: a scores
// kernel of 128 KV rows a block per KV head and a softmax·V kernel looping
// over 256 KV rows an iteration (ug.forloop_sym). K and V are [2,?,64]: the
// `?` comes after the 2 KV heads, so the padded buffers' head stride
// depends on the padded length.
module {
  func.func @gqa_decode_groups(%arg0: tensor<1x8x1x64xf16>, %arg1: tensor<1x2x?x64xf16>, %arg2: tensor<1x2x?x64xf16>) -> tensor<1x8x1x64xf16> {
    %0 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
    %1 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %2 = tosa.const_shape  {values = dense<[2, 4, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %3 = tosa.const_shape  {values = dense<[2, 64, -1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %4 = tosa.const_shape  {values = dense<[1, 2, 4, 1, -1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %5 = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1x1x1xf32>}> : () -> tensor<1x1x1x1x1xf32>
    %6 = tosa.const_shape  {values = dense<[2, 4, -1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %7 = tosa.const_shape  {values = dense<[2, -1, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %8 = tosa.const_shape  {values = dense<[1, 8, 1, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %collapsed = tensor.collapse_shape %arg1 [[0, 1], [2], [3]] {ug.boundary} : tensor<1x2x?x64xf16> into tensor<2x?x64xf16>
    %collapsed_0 = tensor.collapse_shape %arg2 [[0, 1], [2], [3]] {ug.boundary} : tensor<1x2x?x64xf16> into tensor<2x?x64xf16>
    %9 = call @gqa_decode_groups_lax0(%arg0, %collapsed, %collapsed_0) : (tensor<1x8x1x64xf16>, tensor<2x?x64xf16>, tensor<2x?x64xf16>) -> tensor<1x8x1x64xf16>
    return %9 : tensor<1x8x1x64xf16>
  }
  func.func private @gqa_decode_groups_lax0_k2(%arg0: tensor<2x?x64xf16> {ug.sym = array<i64: 0, 1, 0>}, %arg1: tensor<2x4x?xf16> {ug.sym = array<i64: 0, 0, 1>}) -> tensor<2x4x64xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.forloop_rows = 256 : i64, ug.forloop_sym = 1 : i64, ug.grid = array<i64: 4, 64, 1>, ug.level = "block"} {
    %0 = "ug.iterator"(%arg0) {fmap = 1 : i64, imap = array<i64: -1, 2, -1>} : (tensor<2x?x64xf16>) -> tensor<2x256x1xf16>
    %1 = "ug.iterator"(%arg1) {fmap = 2 : i64, imap = array<i64: 1, -1, -1>} : (tensor<2x4x?xf16>) -> tensor<2x1x256xf16>
    %2 = "ug.reduce_max"(%1) {dim = 2 : i64} : (tensor<2x1x256xf16>) -> tensor<2x1x1xf16>
    %3 = "ug.sub"(%1, %2) : (tensor<2x1x256xf16>, tensor<2x1x1xf16>) -> tensor<2x1x256xf16>
    %4 = "ug.exp"(%3) : (tensor<2x1x256xf16>) -> tensor<2x1x256xf16>
    %5 = "ug.matmul"(%4, %0) : (tensor<2x1x256xf16>, tensor<2x256x1xf16>) -> tensor<2x1x1xf16>
    %6 = "ug.sum"(%4) {dim = 2 : i64} : (tensor<2x1x256xf16>) -> tensor<2x1x1xf32>
    %7 = "ug.accum"(%5, %2) {kind = "online"} : (tensor<2x1x1xf16>, tensor<2x1x1xf16>) -> tensor<2x1x1xf32>
    %8 = "ug.accum"(%6, %2) {kind = "online"} : (tensor<2x1x1xf32>, tensor<2x1x1xf16>) -> tensor<2x1x1xf32>
    %9 = "ug.div"(%7, %8) : (tensor<2x1x1xf32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf16>
    %10 = "ug.saver"(%9) {omap = array<i64: 1, 2, -1>} : (tensor<2x1x1xf16>) -> tensor<2x4x64xf16>
    return %10 : tensor<2x4x64xf16>
  }
  func.func private @gqa_decode_groups_lax0_k1(%arg0: tensor<2x4x64xf16>, %arg1: tensor<2x?x64xf16> {ug.sym = array<i64: 0, 1, 0>}) -> tensor<2x4x?xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 8, 1>, ug.grid_rows = array<i64: 1, 128, 1>, ug.grid_sym = array<i64: 0, 1, 0>, ug.level = "block"} {
    %0 = "ug.transpose"(%arg1) {perm = array<i64: 0, 2, 1>} : (tensor<2x?x64xf16>) -> tensor<2x64x?xf16>
    %1 = "ug.iterator"(%arg0) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<2x4x64xf16>) -> tensor<1x4x64xf16>
    %2 = "ug.iterator"(%0) {fmap = -1 : i64, imap = array<i64: 0, 2, -1>} : (tensor<2x64x?xf16>) -> tensor<1x64x128xf16>
    %3 = "ug.matmul"(%1, %2) : (tensor<1x4x64xf16>, tensor<1x64x128xf16>) -> tensor<1x4x128xf16>
    %4 = "ug.mul_scalar"(%3) {scalar = 1.250000e-01 : f64} : (tensor<1x4x128xf16>) -> tensor<1x4x128xf16>
    %5 = "ug.saver"(%4) {omap = array<i64: 0, 2, -1>} : (tensor<1x4x128xf16>) -> tensor<2x4x?xf16>
    return %5 : tensor<2x4x?xf16>
  }
  func.func private @gqa_decode_groups_lax0(%arg0: tensor<1x8x1x64xf16>, %arg1: tensor<2x?x64xf16> {ug.sym = array<i64: 0, 1, 0>}, %arg2: tensor<2x?x64xf16> {ug.sym = array<i64: 0, 1, 0>}) -> tensor<1x8x1x64xf16> attributes {ug.level = "kernel", ug.reference = @gqa_decode_groups_lax0_ref, ug.syms = array<i64: 1009, 0, 0>} {
    %0 = "ug.transpose"(%arg1) {perm = array<i64: 0, 2, 1>} : (tensor<2x?x64xf16>) -> tensor<2x64x?xf16>
    %1 = "ug.reshape"(%arg0) : (tensor<1x8x1x64xf16>) -> tensor<2x4x64xf16>
    %2 = "ug.custom"(%1, %0) {kernel = @gqa_decode_groups_lax0_k1, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x4x64xf16>, tensor<2x64x?xf16>) -> tensor<2x4x?xf16>
    %3 = "ug.custom"(%arg2, %2) {kernel = @gqa_decode_groups_lax0_k2, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x?x64xf16>, tensor<2x4x?xf16>) -> tensor<2x4x64xf16>
    %4 = "ug.reshape"(%3) : (tensor<2x4x64xf16>) -> tensor<1x8x1x64xf16>
    return %4 : tensor<1x8x1x64xf16>
  }
  func.func private @gqa_decode_groups_lax0_ref(%arg0: tensor<1x8x1x64xf16>, %arg1: tensor<2x?x64xf16>, %arg2: tensor<2x?x64xf16>) -> tensor<1x8x1x64xf16> attributes {ug.unlift = array<i64: 6, 6, 6, 6, 6, 6, 6, -1, -1, -1, 0, 0, -2, 1, 1, -3, 2, -4, 3, 3, 3, 3, 3, 3, 3, 3, -5, 4, -6, 5, 5, 5, -7, 6>} {
    %c1 = arith.constant {ug.boundary} 1 : index
    %dim = tensor.dim {ug.boundary} %arg1, %c1 : tensor<2x?x64xf16>
    %expanded = tensor.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, %dim, 64] {ug.boundary} : tensor<2x?x64xf16> into tensor<1x2x?x64xf16>
    %c1_0 = arith.constant {ug.boundary} 1 : index
    %dim_1 = tensor.dim {ug.boundary} %arg2, %c1_0 : tensor<2x?x64xf16>
    %expanded_2 = tensor.expand_shape %arg2 [[0, 1], [2], [3]] output_shape [1, 2, %dim_1, 64] {ug.boundary} : tensor<2x?x64xf16> into tensor<1x2x?x64xf16>
    %0 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
    %1 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %2 = tosa.const_shape  {values = dense<[2, 4, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %3 = tosa.reshape %arg0, %2 : (tensor<1x8x1x64xf16>, !tosa.shape<3>) -> tensor<2x4x64xf16>
    %4 = tosa.transpose %expanded {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x?x64xf16>) -> tensor<1x2x64x?xf16>
    %5 = tosa.const_shape  {values = dense<[2, 64, -1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %6 = tosa.reshape %4, %5 : (tensor<1x2x64x?xf16>, !tosa.shape<3>) -> tensor<2x64x?xf16>
    %7 = tosa.matmul %3, %6, %0, %0 : (tensor<2x4x64xf16>, tensor<2x64x?xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x?xf32>
    %8 = tosa.const_shape  {values = dense<[1, 2, 4, 1, -1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %9 = tosa.reshape %7, %8 : (tensor<2x4x?xf32>, !tosa.shape<5>) -> tensor<1x2x4x1x?xf32>
    %10 = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1x1x1xf32>}> : () -> tensor<1x1x1x1x1xf32>
    %11 = tosa.mul %9, %10, %1 : (tensor<1x2x4x1x?xf32>, tensor<1x1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x2x4x1x?xf32>
    %12 = tosa.reduce_max %11 {axis = 4 : i32} : (tensor<1x2x4x1x?xf32>) -> tensor<1x2x4x1x1xf32>
    %13 = tosa.sub %11, %12 : (tensor<1x2x4x1x?xf32>, tensor<1x2x4x1x1xf32>) -> tensor<1x2x4x1x?xf32>
    %14 = tosa.exp %13 : (tensor<1x2x4x1x?xf32>) -> tensor<1x2x4x1x?xf32>
    %15 = tosa.reduce_sum %14 {axis = 4 : i32} : (tensor<1x2x4x1x?xf32>) -> tensor<1x2x4x1x1xf32>
    %16 = tosa.reciprocal %15 : (tensor<1x2x4x1x1xf32>) -> tensor<1x2x4x1x1xf32>
    %17 = tosa.mul %14, %16, %1 : (tensor<1x2x4x1x?xf32>, tensor<1x2x4x1x1xf32>, tensor<1xi8>) -> tensor<1x2x4x1x?xf32>
    %18 = tosa.cast %17 : (tensor<1x2x4x1x?xf32>) -> tensor<1x2x4x1x?xf16>
    %19 = tosa.const_shape  {values = dense<[2, 4, -1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %20 = tosa.reshape %18, %19 : (tensor<1x2x4x1x?xf16>, !tosa.shape<3>) -> tensor<2x4x?xf16>
    %21 = tosa.const_shape  {values = dense<[2, -1, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %22 = tosa.reshape %expanded_2, %21 : (tensor<1x2x?x64xf16>, !tosa.shape<3>) -> tensor<2x?x64xf16>
    %23 = tosa.matmul %20, %22, %0, %0 : (tensor<2x4x?xf16>, tensor<2x?x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x64xf32>
    %24 = tosa.cast %23 : (tensor<2x4x64xf32>) -> tensor<2x4x64xf16>
    %25 = tosa.const_shape  {values = dense<[1, 8, 1, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %26 = tosa.reshape %24, %25 : (tensor<2x4x64xf16>, !tosa.shape<4>) -> tensor<1x8x1x64xf16>
    return %26 : tensor<1x8x1x64xf16>
  }
}

