// Kernel graphs that return their inputs (input of edge-cases.mlir).
func.func @id(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  func.return %x : tensor<4x8xf32>
}
func.func @two(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %e, %x : tensor<4x8xf32>, tensor<4x8xf32>
}
