// Lifted pairs where the second kernel graph does not compute its reference
// (it multiplies where the reference adds). Used by ../lifted.mlir.
func.func @mlp(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %m = func.call @mlp_lax0(%x, %w) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %y = func.call @mlp_lax1(%m, %b) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
func.func private @mlp_lax0(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<4x16xf32> attributes {ug.level = "kernel", ug.reference = @mlp_lax0_ref} {
  %m = "ug.matmul"(%x, %w) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  func.return %m : tensor<4x16xf32>
}
func.func private @mlp_lax0_ref(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}
func.func private @mlp_lax1(%m: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> attributes {ug.level = "kernel", ug.reference = @mlp_lax1_ref} {
  %y = "ug.mul"(%m, %b) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}
func.func private @mlp_lax1_ref(%m: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %y = tosa.add %m, %b : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
