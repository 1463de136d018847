// A kernel graph returning an input read through a layout (its transpose):
// host=device rejects it (input of host-modes.mlir; not a test).
func.func @layout_out(%w: tensor<6x10xf32>) -> tensor<10x6xf32> attributes {ug.level = "kernel"} {
  %wt = "ug.transpose"(%w) {perm = array<i64: 1, 0>} : (tensor<6x10xf32>) -> tensor<10x6xf32>
  func.return %wt : tensor<10x6xf32>
}
