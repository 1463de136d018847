// A kernel graph whose ug.reference names no function. Used by ../errors.mlir.
func.func private @f_lax0(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ug.level = "kernel", ug.reference = @f_lax0_ref} {
  %c = "ug.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}
