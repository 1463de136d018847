// Mutations of lifted convolutions (issue 30: "mutation suite extended to
// conv: stride, padding, group, layout swaps: 0 escapes"). Each RUN below
// changes one thing in a lifted kernel graph that keeps every shape (a
// stride of 4 for 3 over 7x7, a dilation of 3 for 2, the padding moved or
// dropped on one side, the groups' results interleaved wrongly, the
// filter's groups or channels swapped, a layout transposed on the input,
// the filter or the result, a max pooling summed or padded); mirage-run
// must find each one different from the original ops (MISMATCH, exit 1).
// A group count changed alters the patches' shape and is refused outright.
// The finite-field verifier tells the same mutations apart at the IR level
// (mirage-check-equiv lifts both functions whole), and proves @padded equal
// to the same convolution written as tosa.conv2d.
// RUN: mirage-opt --mirage-lift %s > %t.lifted
// RUN: mirage-run %t.lifted | FileCheck %s --check-prefix=ORIG
//
// Stride and dilation.
// RUN: sed '/@stride3_lax0(/,/return/ s/strides = array<i64: 3, 3>/strides = array<i64: 4, 4>/' %t.lifted > %t.m1
// RUN: not mirage-run %t.m1 | FileCheck %s --check-prefix=STRIDE
// RUN: sed '/@stride3_lax0(/,/return/ s/strides = array<i64: 3, 3>/strides = array<i64: 3, 4>/' %t.lifted > %t.m2
// RUN: not mirage-run %t.m2 | FileCheck %s --check-prefix=STRIDE
// RUN: sed '/@dilation2_lax0(/,/return/ s/dilations = array<i64: 2, 2>/dilations = array<i64: 3, 3>/' %t.lifted > %t.m3
// RUN: not mirage-run %t.m3 | FileCheck %s --check-prefix=DILATION
//
// Padding (folded from the tensor.pad): moved, and dropped on one side of
// a max pooling with the window still fitting.
// RUN: sed '/@padded_lax0(/,/return/ s/pad = array<i64: 1, 1, 1, 1>/pad = array<i64: 2, 0, 1, 1>/' %t.lifted > %t.m4
// RUN: not mirage-run %t.m4 | FileCheck %s --check-prefix=PAD
// RUN: sed '/@padded_lax0(/,/return/ s/pad = array<i64: 1, 1, 1, 1>/pad = array<i64: 1, 1, 0, 2>/' %t.lifted > %t.m5
// RUN: not mirage-run %t.m5 | FileCheck %s --check-prefix=PAD
// RUN: sed '/@max_pool_lax0(/,/return/ s/pad = array<i64: 0, 0, 0, 0>/pad = array<i64: 1, 0, 1, 0>/' %t.lifted > %t.m6
// RUN: not mirage-run %t.m6 | FileCheck %s --check-prefix=POOL
// RUN: sed '/@max_pool_lax0(/,/return/ s/"ug.reduce_max"/"ug.sum"/' %t.lifted > %t.m7
// RUN: not mirage-run %t.m7 | FileCheck %s --check-prefix=POOL
//
// Groups: the [G, M, Fg] result reshaped instead of transposed to
// [M, G, Fg] (channels of different groups interleaved), the filter's G and
// FG swapped, a depthwise result's channels likewise; another group count.
// RUN: sed '/@grouped_lax0(/,/return/ s/"ug.transpose"(\(%[0-9]*\)) {perm = array<i64: 1, 0, 2>}/"ug.reshape"(\1)/' %t.lifted > %t.m8
// RUN: not mirage-run %t.m8 | FileCheck %s --check-prefix=GROUPS
// RUN: sed '/@grouped_lax0(/,/return/ s/perm = array<i64: 0, 3, 4, 2, 1>/perm = array<i64: 1, 3, 4, 2, 0>/' %t.lifted > %t.m9
// RUN: not mirage-run %t.m9 | FileCheck %s --check-prefix=GROUPS
// RUN: sed '/@depthwise_lax0(/,/return/ s/"ug.transpose"(\(%[0-9]*\)) {perm = array<i64: 1, 0, 2>}/"ug.reshape"(\1)/' %t.lifted > %t.m10
// RUN: not mirage-run %t.m10 | FileCheck %s --check-prefix=DEPTHWISE
// RUN: sed '/@grouped_lax0(/,/return/ s/groups = 2 : i64/groups = 1 : i64/' %t.lifted > %t.m11
// RUN: not mirage-run %t.m11 2>&1 | FileCheck %s --check-prefix=GROUP-COUNT
//
// Layouts of the NCHW convolution: H and W of the input swapped, C and F of
// the filter, its window transposed, H and W of the result.
// RUN: sed '/@nchw_lax0(/,/return/ s/perm = array<i64: 0, 2, 3, 1>/perm = array<i64: 0, 3, 2, 1>/' %t.lifted > %t.m12
// RUN: not mirage-run %t.m12 | FileCheck %s --check-prefix=LAYOUT
// RUN: sed '/@nchw_lax0(/,/return/ s/perm = array<i64: 2, 3, 1, 0>/perm = array<i64: 2, 3, 0, 1>/' %t.lifted > %t.m13
// RUN: not mirage-run %t.m13 | FileCheck %s --check-prefix=LAYOUT
// RUN: sed '/@nchw_lax0(/,/return/ s/perm = array<i64: 2, 3, 1, 0>/perm = array<i64: 3, 2, 1, 0>/' %t.lifted > %t.m14
// RUN: not mirage-run %t.m14 | FileCheck %s --check-prefix=LAYOUT
// RUN: sed '/@nchw_lax0(/,/return/ s/perm = array<i64: 0, 3, 1, 2>/perm = array<i64: 0, 3, 2, 1>/' %t.lifted > %t.m15
// RUN: not mirage-run %t.m15 | FileCheck %s --check-prefix=LAYOUT
//
// The finite-field verifier on the IR.
// RUN: (mirage-opt --mirage-check-equiv="lhs=padded rhs=padded_tosa" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=SAME
// RUN: (mirage-opt --mirage-check-equiv="lhs=padded rhs=padded_moved" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=MOVED
// RUN: (mirage-opt --mirage-check-equiv="lhs=padded_tosa rhs=padded_tosa_swapped" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=SWAPPED

// ORIG-COUNT-10: : ok
// ORIG-NOT: MISMATCH
// STRIDE: @stride3_lax0: MISMATCH
// DILATION: @dilation2_lax0: MISMATCH
// PAD: @padded_lax0: MISMATCH
// POOL: @max_pool_lax0: MISMATCH
// GROUPS: @grouped_lax0: MISMATCH
// DEPTHWISE: @depthwise_lax0: MISMATCH
// GROUP-COUNT: error: @grouped_lax0: result type does not match the inferred type 'tensor<1x16x36xf32>'
// LAYOUT: @nchw_lax0: MISMATCH
// SAME: remark: '@padded' and '@padded_tosa' are equivalent
// SAME: exit 0
// MOVED: error: '@padded' and '@padded_moved' are not equivalent
// MOVED: exit 1
// SWAPPED: error: '@padded_tosa' and '@padded_tosa_swapped' are not equivalent
// SWAPPED: exit 1

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias1 = affine_map<(d0, d1, d2, d3) -> (d1)>

// Stride 3 over 7x7 (a stride of 4 keeps the 2x2 result).
func.func @stride3(%x: tensor<1x7x7x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x2x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<3> : tensor<2xi64>} ins(%x, %w : tensor<1x7x7x4xf32>, tensor<3x3x4x4xf32>) outs(%z : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %y : tensor<1x2x2x4xf32>
}

// Dilation 2, stride 4 over 10x10 (a dilation of 3 keeps the 2x2 result).
func.func @dilation2(%x: tensor<1x10x10x4xf32>, %w: tensor<2x2x4x4xf32>) -> tensor<1x2x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<4> : tensor<2xi64>} ins(%x, %w : tensor<1x10x10x4xf32>, tensor<2x2x4x4xf32>) outs(%z : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %y : tensor<1x2x2x4xf32>
}

// Zero padding 1 on every side from a tensor.pad, 6x6 -> 6x6.
func.func @padded(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x6x6x4xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x4xf32> to tensor<1x8x8x4xf32>
  %e = tensor.empty() : tensor<1x6x6x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %y = linalg.conv_2d_nhwc_hwcf ins(%xp, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>) outs(%z : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %y : tensor<1x6x6x4xf32>
}

// The same padding moved (a mutation at the IR level).
func.func @padded_moved(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x6x6x4xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 2, 1, 0] high[0, 0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x4xf32> to tensor<1x8x8x4xf32>
  %e = tensor.empty() : tensor<1x6x6x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %y = linalg.conv_2d_nhwc_hwcf ins(%xp, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>) outs(%z : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %y : tensor<1x6x6x4xf32>
}

// @padded written as tosa.conv2d (the filter OHWI): the same function.
func.func @padded_tosa(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x6x6x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wt = tosa.transpose %w {perms = array<i32: 3, 0, 1, 2>} : (tensor<3x3x4x4xf32>) -> tensor<4x3x3x4xf32>
  %y = tosa.conv2d %x, %wt, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  return %y : tensor<1x6x6x4xf32>
}

// ... with the filter read as [KH, KW, F, C] (a mutation: C and F swapped).
func.func @padded_tosa_swapped(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x6x6x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wt = tosa.transpose %w {perms = array<i32: 2, 0, 1, 3>} : (tensor<3x3x4x4xf32>) -> tensor<4x3x3x4xf32>
  %y = tosa.conv2d %x, %wt, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  return %y : tensor<1x6x6x4xf32>
}

// NCHW as torch-mlir writes it, C = F = 4 and square, so that the layout
// mutations keep shapes.
func.func @nchw(%x: tensor<1x4x5x5xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x4x5x5xf32>, tensor<4x4x3x3xf32>) outs(%z : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %y : tensor<1x4x3x3xf32>
}

// nn.Conv2d(4, 4, 3, groups=2) on torch-mlir's linalg path (G = FG = 2).
func.func @grouped(%x: tensor<1x4x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %xe = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 6, 6] : tensor<1x4x6x6xf32> into tensor<1x2x2x6x6xf32>
  %we = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 2, 2, 3, 3] : tensor<4x2x3x3xf32> into tensor<2x2x2x3x3xf32>
  %ze = tensor.expand_shape %z [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 4, 4] : tensor<1x4x4x4xf32> into tensor<1x2x2x4x4xf32>
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%xe, %we : tensor<1x2x2x6x6xf32>, tensor<2x2x2x3x3xf32>) outs(%ze : tensor<1x2x2x4x4xf32>) -> tensor<1x2x2x4x4xf32>
  %r = tensor.collapse_shape %y [[0], [1, 2], [3], [4]] : tensor<1x2x2x4x4xf32> into tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// Depthwise 3x3, 6 channels.
func.func @depthwise(%x: tensor<1x6x6x6xf32>, %w: tensor<3x3x6xf32>) -> tensor<1x4x4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x6xf32>) -> tensor<1x4x4x6xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwc ins(%x, %w : tensor<1x6x6x6xf32>, tensor<3x3x6xf32>) outs(%z : tensor<1x4x4x6xf32>) -> tensor<1x4x4x6xf32>
  return %y : tensor<1x4x4x6xf32>
}

// Max pooling 2x2, stride 2.
func.func @max_pool(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x4x3xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x3xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %m : tensor<1x4x4x3xf32>
}
