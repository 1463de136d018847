// The generalized μGraph superopt finds for stable decode attention over a
// `?` KV cache (test/search/dynamic-reduce.mlir), lower=false: a scores kernel
// of 64 KV rows a block and a softmax·V kernel looping over 256 KV rows an
// iteration (ug.forloop_sym) with online accumulators.
module {
  func.func @decode_attention(%arg0: tensor<1x1x64xf32>, %arg1: tensor<1x?x64xf32>, %arg2: tensor<1x?x64xf32>) -> tensor<1x1x64xf32> {
    %0 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %1 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %2 = call @decode_attention_lax0(%arg0, %arg1, %arg2) : (tensor<1x1x64xf32>, tensor<1x?x64xf32>, tensor<1x?x64xf32>) -> tensor<1x1x64xf32>
    return %2 : tensor<1x1x64xf32>
  }
  func.func private @decode_attention_lax0_k2(%arg0: tensor<1x?x64xf32> {ug.sym = array<i64: 0, 1, 0>}, %arg1: tensor<1x1x?xf32> {ug.sym = array<i64: 0, 0, 1>}) -> tensor<1x1x64xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.forloop_rows = 256 : i64, ug.forloop_sym = 1 : i64, ug.grid = array<i64: 64, 1, 1>, ug.level = "block"} {
    %0 = "ug.iterator"(%arg0) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x?x64xf32>) -> tensor<1x256x1xf32>
    %1 = "ug.iterator"(%arg1) {fmap = 2 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x1x?xf32>) -> tensor<1x1x256xf32>
    %2 = "ug.reduce_max"(%1) {dim = 2 : i64} : (tensor<1x1x256xf32>) -> tensor<1x1x1xf32>
    %3 = "ug.sub"(%1, %2) : (tensor<1x1x256xf32>, tensor<1x1x1xf32>) -> tensor<1x1x256xf32>
    %4 = "ug.exp"(%3) : (tensor<1x1x256xf32>) -> tensor<1x1x256xf32>
    %5 = "ug.matmul"(%4, %0) : (tensor<1x1x256xf32>, tensor<1x256x1xf32>) -> tensor<1x1x1xf32>
    %6 = "ug.sum"(%4) {dim = 2 : i64} : (tensor<1x1x256xf32>) -> tensor<1x1x1xf32>
    %7 = "ug.accum"(%5, %2) {kind = "online"} : (tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    %8 = "ug.accum"(%6, %2) {kind = "online"} : (tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    %9 = "ug.div"(%7, %8) : (tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    %10 = "ug.saver"(%9) {omap = array<i64: 2, -1, -1>} : (tensor<1x1x1xf32>) -> tensor<1x1x64xf32>
    return %10 : tensor<1x1x64xf32>
  }
  func.func private @decode_attention_lax0_k1(%arg0: tensor<1x1x64xf32>, %arg1: tensor<1x?x64xf32> {ug.sym = array<i64: 0, 1, 0>}) -> tensor<1x1x?xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 16, 1, 1>, ug.grid_rows = array<i64: 64, 1, 1>, ug.grid_sym = array<i64: 1, 0, 0>, ug.level = "block"} {
    %0 = "ug.transpose"(%arg1) {perm = array<i64: 0, 2, 1>} : (tensor<1x?x64xf32>) -> tensor<1x64x?xf32>
    %1 = "ug.iterator"(%arg0) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x1x64xf32>) -> tensor<1x1x64xf32>
    %2 = "ug.iterator"(%0) {fmap = -1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x64x?xf32>) -> tensor<1x64x64xf32>
    %3 = "ug.matmul"(%1, %2) : (tensor<1x1x64xf32>, tensor<1x64x64xf32>) -> tensor<1x1x64xf32>
    %4 = "ug.saver"(%3) {omap = array<i64: 2, -1, -1>} : (tensor<1x1x64xf32>) -> tensor<1x1x?xf32>
    return %4 : tensor<1x1x?xf32>
  }
  func.func private @decode_attention_lax0(%arg0: tensor<1x1x64xf32>, %arg1: tensor<1x?x64xf32> {ug.sym = array<i64: 0, 1, 0>}, %arg2: tensor<1x?x64xf32> {ug.sym = array<i64: 0, 1, 0>}) -> tensor<1x1x64xf32> attributes {ug.level = "kernel", ug.reference = @decode_attention_lax0_ref, ug.syms = array<i64: 1009, 0, 0>} {
    %0 = "ug.transpose"(%arg1) {perm = array<i64: 0, 2, 1>} : (tensor<1x?x64xf32>) -> tensor<1x64x?xf32>
    %1 = "ug.custom"(%arg0, %0) {kernel = @decode_attention_lax0_k1, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x1x64xf32>, tensor<1x64x?xf32>) -> tensor<1x1x?xf32>
    %2 = "ug.custom"(%arg2, %1) {kernel = @decode_attention_lax0_k2, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x?x64xf32>, tensor<1x1x?xf32>) -> tensor<1x1x64xf32>
    return %2 : tensor<1x1x64xf32>
  }
  func.func private @decode_attention_lax0_ref(%arg0: tensor<1x1x64xf32>, %arg1: tensor<1x?x64xf32>, %arg2: tensor<1x?x64xf32>) -> tensor<1x1x64xf32> attributes {ug.unlift = array<i64: 2, 0, -2, 1, 1, 1, 1, 1, 1, 1, -3, 2>} {
    %0 = tosa.transpose %arg1 {perms = array<i32: 0, 2, 1>} : (tensor<1x?x64xf32>) -> tensor<1x64x?xf32>
    %1 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %2 = tosa.matmul %arg0, %0, %1, %1 : (tensor<1x1x64xf32>, tensor<1x64x?xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x?xf32>
    %3 = tosa.reduce_max %2 {axis = 2 : i32} : (tensor<1x1x?xf32>) -> tensor<1x1x1xf32>
    %4 = tosa.sub %2, %3 : (tensor<1x1x?xf32>, tensor<1x1x1xf32>) -> tensor<1x1x?xf32>
    %5 = tosa.exp %4 : (tensor<1x1x?xf32>) -> tensor<1x1x?xf32>
    %6 = tosa.reduce_sum %5 {axis = 2 : i32} : (tensor<1x1x?xf32>) -> tensor<1x1x1xf32>
    %7 = tosa.matmul %5, %arg2, %1, %1 : (tensor<1x1x?xf32>, tensor<1x?x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x64xf32>
    %8 = tosa.reciprocal %6 : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    %9 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %10 = tosa.mul %7, %8, %9 : (tensor<1x1x64xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x64xf32>
    return %10 : tensor<1x1x64xf32>
  }
}

