// The finite-field verifier on convolutions (issue 30): ug.im2col is an
// exact index map with zeros outside the input, so a depthwise convolution
// as a batched matmul and as a broadcast product summed over the window
// are equivalent, while a different padding, dilation or filter layout is
// not.
// RUN: mirage-opt --mirage-check-equiv="lhs=dw_matmul rhs=dw_mulsum" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=EQ
// RUN: not mirage-opt --mirage-check-equiv="lhs=dw_matmul rhs=dw_pad_moved" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=PAD
// RUN: not mirage-opt --mirage-check-equiv="lhs=dw_matmul rhs=dw_filter_swapped" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=LAYOUT

// EQ: remark: '@dw_matmul' and '@dw_mulsum' are equivalent (error bound <= 2^-{{[0-9]+}}
// PAD: error: '@dw_matmul' and '@dw_pad_moved' are not equivalent
// LAYOUT: error: '@dw_matmul' and '@dw_filter_swapped' are not equivalent

// Depthwise 3x3 over 4 channels, padding 1: patches [4, 36, 9] times the
// per-channel filter [4, 9, 1].
func.func @dw_matmul(%x: tensor<1x6x6x4xf32>, %w: tensor<4x9xf32>) -> tensor<4x36x1xf32> attributes {ug.level = "kernel"} {
  %p = "ug.im2col"(%x) {window = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : (tensor<1x6x6x4xf32>) -> tensor<4x36x9xf32>
  %f = "ug.reshape"(%w) : (tensor<4x9xf32>) -> tensor<4x9x1xf32>
  %y = "ug.matmul"(%p, %f) : (tensor<4x36x9xf32>, tensor<4x9x1xf32>) -> tensor<4x36x1xf32>
  func.return %y : tensor<4x36x1xf32>
}
func.func @dw_mulsum(%x: tensor<1x6x6x4xf32>, %w: tensor<4x9xf32>) -> tensor<4x36x1xf32> attributes {ug.level = "kernel"} {
  %p = "ug.im2col"(%x) {window = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : (tensor<1x6x6x4xf32>) -> tensor<4x36x9xf32>
  %f = "ug.reshape"(%w) : (tensor<4x9xf32>) -> tensor<4x1x9xf32>
  %m = "ug.mul"(%p, %f) : (tensor<4x36x9xf32>, tensor<4x1x9xf32>) -> tensor<4x36x9xf32>
  %s = "ug.sum"(%m) {dim = 2 : i64} : (tensor<4x36x9xf32>) -> tensor<4x36x1xf32>
  func.return %s : tensor<4x36x1xf32>
}
// The same shapes, the padding moved from the top to the bottom.
func.func @dw_pad_moved(%x: tensor<1x6x6x4xf32>, %w: tensor<4x9xf32>) -> tensor<4x36x1xf32> attributes {ug.level = "kernel"} {
  %p = "ug.im2col"(%x) {window = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 2, 1, 1>, groups = 4 : i64} : (tensor<1x6x6x4xf32>) -> tensor<4x36x9xf32>
  %f = "ug.reshape"(%w) : (tensor<4x9xf32>) -> tensor<4x9x1xf32>
  %y = "ug.matmul"(%p, %f) : (tensor<4x36x9xf32>, tensor<4x9x1xf32>) -> tensor<4x36x1xf32>
  func.return %y : tensor<4x36x1xf32>
}
// The filter's window read as [kw, kh] instead of [kh, kw].
func.func @dw_filter_swapped(%x: tensor<1x6x6x4xf32>, %w: tensor<4x9xf32>) -> tensor<4x36x1xf32> attributes {ug.level = "kernel"} {
  %p = "ug.im2col"(%x) {window = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : (tensor<1x6x6x4xf32>) -> tensor<4x36x9xf32>
  %w3 = "ug.reshape"(%w) : (tensor<4x9xf32>) -> tensor<4x3x3xf32>
  %wt = "ug.transpose"(%w3) {perm = array<i64: 0, 2, 1>} : (tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
  %f = "ug.reshape"(%wt) : (tensor<4x3x3xf32>) -> tensor<4x9x1xf32>
  %y = "ug.matmul"(%p, %f) : (tensor<4x36x9xf32>, tensor<4x9x1xf32>) -> tensor<4x36x1xf32>
  func.return %y : tensor<4x36x1xf32>
}
