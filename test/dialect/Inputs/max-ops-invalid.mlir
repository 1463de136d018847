// Invalid max ops, one per split, checked by test/dialect/max-ops.mlir.
func.func @online_without_max(%x: tensor<2x4xf32>) -> tensor<2x2xf32> attributes {ug.level = "block", ug.grid = array<i64: 1, 1, 1>, ug.block_threads = 128 : i64, ug.forloop = 2 : i64} {
  %t = "ug.iterator"(%x) {imap = array<i64: -1, -1, -1>, fmap = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  %a = "ug.accum"(%t) {kind = "online"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %o = "ug.saver"(%a) {omap = array<i64: -1, -1, -1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %o : tensor<2x2xf32>
}


func.func @online_without_max_caller(%a0: tensor<2x4xf32>) -> tensor<2x2xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%a0) {kernel = @online_without_max, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
// -----

func.func @online_max_does_not_broadcast(%x: tensor<2x8xf32>, %y: tensor<2x6xf32>) -> tensor<2x4xf32> attributes {ug.level = "block", ug.grid = array<i64: 1, 1, 1>, ug.block_threads = 128 : i64, ug.forloop = 2 : i64} {
  %t = "ug.iterator"(%x) {imap = array<i64: -1, -1, -1>, fmap = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  %u = "ug.iterator"(%y) {imap = array<i64: -1, -1, -1>, fmap = 1 : i64} : (tensor<2x6xf32>) -> tensor<2x3xf32>
  %a = "ug.accum"(%t, %u) {kind = "online"} : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<2x4xf32>
  %o = "ug.saver"(%a) {omap = array<i64: -1, -1, -1>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %o : tensor<2x4xf32>
}


func.func @online_max_does_not_broadcast_caller(%a0: tensor<2x8xf32>, %a1: tensor<2x6xf32>) -> tensor<2x4xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%a0, %a1) {kernel = @online_max_does_not_broadcast, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x8xf32>, tensor<2x6xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
// -----

func.func @reduce_max_dim(%a: tensor<4x8xf32>) -> tensor<4x1xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.reduce_max"(%a) {dim = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  func.return %0 : tensor<4x1xf32>
}

// -----

func.func @maximum_shapes(%a: tensor<4x8xf32>, %b: tensor<4x3xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.maximum"(%a, %b) : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

func.func @unknown_accum(%x: tensor<2x4xf32>) -> tensor<2x2xf32> attributes {ug.level = "block", ug.grid = array<i64: 1, 1, 1>, ug.block_threads = 128 : i64, ug.forloop = 2 : i64} {
  %t = "ug.iterator"(%x) {imap = array<i64: -1, -1, -1>, fmap = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  %a = "ug.accum"(%t) {kind = "min"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %o = "ug.saver"(%a) {omap = array<i64: -1, -1, -1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %o : tensor<2x2xf32>
}

func.func @unknown_accum_caller(%a0: tensor<2x4xf32>) -> tensor<2x2xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.custom"(%a0) {kernel = @unknown_accum, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
