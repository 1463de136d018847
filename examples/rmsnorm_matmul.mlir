// RMSNorm followed by a matmul (the Mirage paper's first benchmark, b = 1):
// Y = (X / rms(X)) · W with X: 2x4096, W: 4096x6144, in fp16 TOSA.
// rms(X) = sqrt(mean(X², last dim)).
func.func @rmsnorm_matmul(%x: tensor<1x2x4096xf16>, %w: tensor<1x4096x6144xf16>) -> tensor<1x2x6144xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_n = "tosa.const"() <{values = dense<2.44140625e-04> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %sq = tosa.mul %x, %x, %shift : (tensor<1x2x4096xf16>, tensor<1x2x4096xf16>, tensor<1xi8>) -> tensor<1x2x4096xf16>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x2x4096xf16>) -> tensor<1x2x1xf16>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x2x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x1xf16>
  %inv_rms = tosa.rsqrt %mean : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %normed = tosa.mul %x, %inv_rms, %shift : (tensor<1x2x4096xf16>, tensor<1x2x1xf16>, tensor<1xi8>) -> tensor<1x2x4096xf16>
  %y = tosa.matmul %normed, %w, %zp, %zp : (tensor<1x2x4096xf16>, tensor<1x4096x6144xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x6144xf16>
  return %y : tensor<1x2x6144xf16>
}
