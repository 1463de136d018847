// Does not parse. Used by ../errors.mlir.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a tensor<4xf32>
}
