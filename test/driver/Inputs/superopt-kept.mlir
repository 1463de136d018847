// A single GEMV (2 rows): nothing beats the split-K kernel lib/lower
// emits for it (input of superopt-kept.mlir; not a test).
func.func @mm(%a: tensor<1x2x512xf16>, %b: tensor<1x512x1024xf16>) -> tensor<1x2x1024xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %c = tosa.matmul %a, %b, %zp, %zp : (tensor<1x2x512xf16>, tensor<1x512x1024xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x1024xf16>
  return %c : tensor<1x2x1024xf16>
}
