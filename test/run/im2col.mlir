// ug.im2col (issue 30) by hand against upstream's convolutions: each kernel
// graph is im2col (patches as rows, zero outside the input) and a matmul
// with the filter, the reference a tensor.pad and a linalg convolution.
// The interpreter against the JIT-compiled reference, and the lowered CPU
// form (the copy kernel's clamped loads and selects) against the
// interpreter.
// RUN: mirage-opt --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-run %s | FileCheck %s
// RUN: mirage-run --lower %s | FileCheck %s
// A padding moved (same shapes) mismatches; a stride, dilation or group
// count changed changes the patches' shape, which the verifier refuses.
// RUN: sed 's/pad = array<i64: 1, 1, 1, 1>/pad = array<i64: 2, 0, 1, 1>/' %s > %t.pad.mlir
// RUN: not mirage-run %t.pad.mlir | FileCheck %s --check-prefix=WRONG-S
// RUN: sed 's/pad = array<i64: 1, 0, 0, 1>/pad = array<i64: 0, 1, 0, 1>/' %s > %t.pad2.mlir
// RUN: not mirage-run %t.pad2.mlir | FileCheck %s --check-prefix=WRONG-DW
// The filter's [kh*kw, c] read as [c, kh*kw] (a layout swap, same shapes).
// RUN: sed 's/%wt = "ug.transpose"(%wf) {perm = array<i64: 1, 0>}/%wt = "ug.reshape"(%wf)/' %s > %t.layout.mlir
// RUN: not mirage-run %t.layout.mlir | FileCheck %s --check-prefix=WRONG-DW
// RUN: sed 's/dilations = array<i64: 2, 2>/dilations = array<i64: 2, 1>/' %s > %t.dil.mlir
// RUN: not mirage-opt --mirage-verify-ugraph %t.dil.mlir 2>&1 | FileCheck %s --check-prefix=SHAPE-DIL
// RUN: sed 's/strides = array<i64: 2, 2>/strides = array<i64: 1, 2>/' %s > %t.stride.mlir
// RUN: not mirage-opt --mirage-verify-ugraph %t.stride.mlir 2>&1 | FileCheck %s --check-prefix=SHAPE-STRIDE
// RUN: sed 's/groups = 4 : i64/groups = 2 : i64/' %s > %t.groups.mlir
// RUN: not mirage-opt --mirage-verify-ugraph %t.groups.mlir 2>&1 | FileCheck %s --check-prefix=SHAPE-GROUPS

// CHECK: @strided: 1 output, 200 elements, {{.*}}: ok
// CHECK: @dilated: 1 output, 80 elements, {{.*}}: ok
// CHECK: @depthwise: 1 output, 100 elements, {{.*}}: ok
// WRONG-S: @strided: MISMATCH
// WRONG-DW: @depthwise: MISMATCH
// SHAPE-DIL: error: result type does not match the inferred type 'tensor<1x24x27xf32>'
// SHAPE-STRIDE: error: result type does not match the inferred type 'tensor<1x45x36xf32>'
// SHAPE-GROUPS: error: result type does not match the inferred type 'tensor<2x25x18xf32>'


// 3x3, stride 2, padding 1 on every side: 9x9 -> 5x5.
func.func private @strided(%x: tensor<1x9x9x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32> attributes {ug.level = "kernel", ug.reference = @strided_ref} {
  %p = "ug.im2col"(%x) {window = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, groups = 1 : i64} : (tensor<1x9x9x4xf32>) -> tensor<1x25x36xf32>
  %f = "ug.reshape"(%w) : (tensor<3x3x4x8xf32>) -> tensor<1x36x8xf32>
  %y = "ug.matmul"(%p, %f) : (tensor<1x25x36xf32>, tensor<1x36x8xf32>) -> tensor<1x25x8xf32>
  %o = "ug.reshape"(%y) : (tensor<1x25x8xf32>) -> tensor<1x5x5x8xf32>
  func.return %o : tensor<1x5x5x8xf32>
}
func.func private @strided_ref(%x: tensor<1x9x9x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x9x9x4xf32> to tensor<1x11x11x4xf32>
  %e = tensor.empty() : tensor<1x5x5x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x8xf32>) -> tensor<1x5x5x8xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%xp, %w : tensor<1x11x11x4xf32>, tensor<3x3x4x8xf32>) outs(%z : tensor<1x5x5x8xf32>) -> tensor<1x5x5x8xf32>
  return %y : tensor<1x5x5x8xf32>
}

// 3x3, dilation 2, no padding: 8x8 -> 4x4.
func.func private @dilated(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x5xf32>) -> tensor<1x4x4x5xf32> attributes {ug.level = "kernel", ug.reference = @dilated_ref} {
  %p = "ug.im2col"(%x) {window = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, groups = 1 : i64} : (tensor<1x8x8x3xf32>) -> tensor<1x16x27xf32>
  %f = "ug.reshape"(%w) : (tensor<3x3x3x5xf32>) -> tensor<1x27x5xf32>
  %y = "ug.matmul"(%p, %f) : (tensor<1x16x27xf32>, tensor<1x27x5xf32>) -> tensor<1x16x5xf32>
  %o = "ug.reshape"(%y) : (tensor<1x16x5xf32>) -> tensor<1x4x4x5xf32>
  func.return %o : tensor<1x4x4x5xf32>
}
func.func private @dilated_ref(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x5xf32>) -> tensor<1x4x4x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x3xf32>, tensor<3x3x3x5xf32>) outs(%z : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  return %y : tensor<1x4x4x5xf32>
}

// Depthwise 3x3 (groups = channels) with asymmetric padding (top 1,
// right 1): 6x6 -> 5x5. Patches [4, 25, 9] times the filter per channel
// [4, 9, 1], then channels back last.
func.func private @depthwise(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x5x5x4xf32> attributes {ug.level = "kernel", ug.reference = @depthwise_ref} {
  %p = "ug.im2col"(%x) {window = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 1, 0, 0, 1>, groups = 4 : i64} : (tensor<1x6x6x4xf32>) -> tensor<4x25x9xf32>
  %wf = "ug.reshape"(%w) : (tensor<3x3x4xf32>) -> tensor<9x4xf32>
  %wt = "ug.transpose"(%wf) {perm = array<i64: 1, 0>} : (tensor<9x4xf32>) -> tensor<4x9xf32>
  %f = "ug.reshape"(%wt) : (tensor<4x9xf32>) -> tensor<4x9x1xf32>
  %y = "ug.matmul"(%p, %f) : (tensor<4x25x9xf32>, tensor<4x9x1xf32>) -> tensor<4x25x1xf32>
  %y2 = "ug.reshape"(%y) : (tensor<4x25x1xf32>) -> tensor<4x25xf32>
  %t = "ug.transpose"(%y2) {perm = array<i64: 1, 0>} : (tensor<4x25xf32>) -> tensor<25x4xf32>
  %o = "ug.reshape"(%t) : (tensor<25x4xf32>) -> tensor<1x5x5x4xf32>
  func.return %o : tensor<1x5x5x4xf32>
}
func.func private @depthwise_ref(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x5x5x4xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 1, 0, 0] high[0, 0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x4xf32> to tensor<1x7x7x4xf32>
  %e = tensor.empty() : tensor<1x5x5x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xp, %w : tensor<1x7x7x4xf32>, tensor<3x3x4xf32>) outs(%z : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  return %y : tensor<1x5x5x4xf32>
}
