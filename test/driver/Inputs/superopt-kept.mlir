// A single small matmul: nothing beats the one library kernel (input of
// superopt-kept.mlir; not a test).
func.func @mm(%a: tensor<1x16x32xf16>, %b: tensor<1x32x64xf16>) -> tensor<1x16x64xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %c = tosa.matmul %a, %b, %zp, %zp : (tensor<1x16x32xf16>, tensor<1x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x64xf16>
  return %c : tensor<1x16x64xf16>
}
