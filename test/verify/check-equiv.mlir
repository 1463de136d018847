// --mirage-check-equiv validates a hand-fused kernel against its reference.
// RUN: mirage-opt --mirage-check-equiv="lhs=rms_ref rhs=rms_fused" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=EQ
// RUN: not mirage-opt --mirage-check-equiv="lhs=rms_ref rhs=rms_fused_wrong_scale" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=NEQ
// RUN: not mirage-opt --mirage-check-equiv="lhs=rms_ref rhs=rms_fused_no_accum" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=NEQ2
// RUN: mirage-opt --mirage-check-equiv="lhs=sum_ref rhs=sum_split" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=SUM
// RUN: mirage-opt --mirage-check-equiv="lhs=sum_ref rhs=sum_split error-bits=100 seed=7" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=TIGHT
// RUN: not mirage-opt --mirage-check-equiv="lhs=rms_ref rhs=sum_ref" %s 2>&1 | FileCheck %s --check-prefix=SHAPES
// RUN: not mirage-opt --mirage-check-equiv="lhs=rms_ref rhs=nope" %s 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not mirage-opt --mirage-check-equiv="lhs=rms_ref rhs=rms_fused_block" %s 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: mirage-opt --mirage-check-equiv="lhs=rank6_ref rhs=rank6_split" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=RANK6
// RUN: not mirage-opt --mirage-check-equiv="lhs=rank6_ref rhs=rank6_swapped" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=RANK6-NEQ

// EQ: check-equiv.mlir:[[@LINE+8]]:1: remark: '@rms_ref' and '@rms_fused' are equivalent (error bound <= 2^-{{[0-9]+}}
// NEQ: check-equiv.mlir:[[@LINE+7]]:1: error: '@rms_ref' and '@rms_fused_wrong_scale' are not equivalent: output 0 differs at element 0
// NEQ2: error: '@rms_ref' and '@rms_fused_no_accum' are not equivalent
// SHAPES: error: cannot compare '@rms_ref' with '@sum_ref'
// MISSING: error: no function named '@nope' to check
// LEVEL: error: '@rms_fused_block' is not a kernel-level μGraph function

// Y = (X / sqrt(Σ_last X² / 64)) · W, unfused.
func.func @rms_ref(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %sq = "ug.square"(%x) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %ss = "ug.sum"(%sq) {dim = 1 : i64} : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = "ug.div"(%x, %rms) : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %y = "ug.matmul"(%n, %w) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}

// The paper's fused kernel: grid over W's columns, for-loop over k, an rms
// accumulator next to the matmul accumulator, division after the loop.
func.func @rms_fused_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x16xf32>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf32>) -> tensor<16x24xf32>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x16xf32>, tensor<16x24xf32>) -> tensor<2x24xf32>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<2x24xf32>) -> tensor<2x24xf32>
  %ss = "ug.accum"(%xt) {kind = "sum_sq_last"} : (tensor<2x16xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "ug.div"(%acc, %rms) : (tensor<2x24xf32>, tensor<2x1xf32>) -> tensor<2x24xf32>
  %o = "ug.saver"(%y) {omap = array<i64: 1, -1, -1>} : (tensor<2x24xf32>) -> tensor<2x96xf32>
  func.return %o : tensor<2x96xf32>
}
func.func @rms_fused(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_fused_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}

// Wrong: divides by 16 (the tile width) instead of 64.
func.func @rms_fused_wrong_scale_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x16xf32>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf32>) -> tensor<16x24xf32>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x16xf32>, tensor<16x24xf32>) -> tensor<2x24xf32>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<2x24xf32>) -> tensor<2x24xf32>
  %ss = "ug.accum"(%xt) {kind = "sum_sq_last"} : (tensor<2x16xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 1.600000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "ug.div"(%acc, %rms) : (tensor<2x24xf32>, tensor<2x1xf32>) -> tensor<2x24xf32>
  %o = "ug.saver"(%y) {omap = array<i64: 1, -1, -1>} : (tensor<2x24xf32>) -> tensor<2x96xf32>
  func.return %o : tensor<2x96xf32>
}
func.func @rms_fused_wrong_scale(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_fused_wrong_scale_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}

// Wrong: no for-loop over k (F = 1, the whole k at once) but the rms uses
// only a quarter of k (its tile is cut by the grid, not the loop).
func.func @rms_fused_no_accum_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %xq = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x16xf32>
  %wt = "ug.iterator"(%w) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf32>) -> tensor<64x24xf32>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x64xf32>, tensor<64x24xf32>) -> tensor<2x24xf32>
  %sq = "ug.square"(%xq) : (tensor<2x16xf32>) -> tensor<2x16xf32>
  %ss = "ug.sum"(%sq) {dim = 1 : i64} : (tensor<2x16xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "ug.div"(%m, %rms) : (tensor<2x24xf32>, tensor<2x1xf32>) -> tensor<2x24xf32>
  %o = "ug.saver"(%y) {omap = array<i64: 1, -1, -1>} : (tensor<2x24xf32>) -> tensor<2x96xf32>
  func.return %o : tensor<2x96xf32>
}
func.func @rms_fused_no_accum(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_fused_no_accum_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}

// SUM: remark: '@sum_ref' and '@sum_split' are equivalent (error bound <= 2^-
// TIGHT: remark: '@sum_ref' and '@sum_split' are equivalent (error bound <= 2^-1{{[0-9][0-9]}}
func.func @sum_ref(%x: tensor<8x256xf16>) -> tensor<8x1xf16> attributes {ug.level = "kernel"} {
  %s = "ug.sum"(%x) {dim = 1 : i64} : (tensor<8x256xf16>) -> tensor<8x1xf16>
  func.return %s : tensor<8x1xf16>
}
// Rows split over the grid, the reduction split over the for-loop.
func.func @sum_split_block(%x: tensor<8x256xf16>) -> tensor<8x1xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 8 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x256xf16>) -> tensor<4x32xf16>
  %s = "ug.accum"(%t) {kind = "sum_last"} : (tensor<4x32xf16>) -> tensor<4x1xf16>
  %o = "ug.saver"(%s) {omap = array<i64: 0, -1, -1>} : (tensor<4x1xf16>) -> tensor<8x1xf16>
  func.return %o : tensor<8x1xf16>
}
func.func @sum_split(%x: tensor<8x256xf16>) -> tensor<8x1xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @sum_split_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x256xf16>) -> tensor<8x1xf16>
  func.return %y : tensor<8x1xf16>
}

// Rank 6 (the μGraph limit): a sum over the last dim, split over dims 4
// and 3 by the grid and over dim 5 by the for-loop. Saving the blocks'
// tiles with the two grid axes swapped has the same shape but moves
// every element: not equivalent.
// RANK6: remark: '@rank6_ref' and '@rank6_split' are equivalent (error bound <= 2^-
// RANK6-NEQ: error: '@rank6_ref' and '@rank6_swapped' are not equivalent
func.func @rank6_ref(%x: tensor<2x1x2x4x4x64xf32>) -> tensor<2x1x2x4x4x1xf32> attributes {ug.level = "kernel"} {
  %s = "ug.sum"(%x) {dim = 5 : i64} : (tensor<2x1x2x4x4x64xf32>) -> tensor<2x1x2x4x4x1xf32>
  %y = "ug.mul_scalar"(%s) {scalar = 2.000000e+00 : f64} : (tensor<2x1x2x4x4x1xf32>) -> tensor<2x1x2x4x4x1xf32>
  func.return %y : tensor<2x1x2x4x4x1xf32>
}
func.func @rank6_split_block(%x: tensor<2x1x2x4x4x64xf32>) -> tensor<2x1x2x4x4x1xf32> attributes {ug.block_threads = 64 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 2, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 5 : i64, imap = array<i64: 4, 3, -1>} : (tensor<2x1x2x4x4x64xf32>) -> tensor<2x1x2x2x1x16xf32>
  %s = "ug.accum"(%t) {kind = "sum_last"} : (tensor<2x1x2x2x1x16xf32>) -> tensor<2x1x2x2x1x1xf32>
  %y = "ug.mul_scalar"(%s) {scalar = 2.000000e+00 : f64} : (tensor<2x1x2x2x1x1xf32>) -> tensor<2x1x2x2x1x1xf32>
  %o = "ug.saver"(%y) {omap = array<i64: 4, 3, -1>} : (tensor<2x1x2x2x1x1xf32>) -> tensor<2x1x2x4x4x1xf32>
  func.return %o : tensor<2x1x2x4x4x1xf32>
}
func.func @rank6_split(%x: tensor<2x1x2x4x4x64xf32>) -> tensor<2x1x2x4x4x1xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @rank6_split_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x1x2x4x4x64xf32>) -> tensor<2x1x2x4x4x1xf32>
  func.return %y : tensor<2x1x2x4x4x1xf32>
}
func.func @rank6_swapped_block(%x: tensor<2x1x2x4x4x64xf32>) -> tensor<2x1x2x4x4x1xf32> attributes {ug.block_threads = 64 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 4, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 5 : i64, imap = array<i64: 4, 3, -1>} : (tensor<2x1x2x4x4x64xf32>) -> tensor<2x1x2x1x1x16xf32>
  %s = "ug.accum"(%t) {kind = "sum_last"} : (tensor<2x1x2x1x1x16xf32>) -> tensor<2x1x2x1x1x1xf32>
  %y = "ug.mul_scalar"(%s) {scalar = 2.000000e+00 : f64} : (tensor<2x1x2x1x1x1xf32>) -> tensor<2x1x2x1x1x1xf32>
  %o = "ug.saver"(%y) {omap = array<i64: 3, 4, -1>} : (tensor<2x1x2x1x1x1xf32>) -> tensor<2x1x2x4x4x1xf32>
  func.return %o : tensor<2x1x2x4x4x1xf32>
}
func.func @rank6_swapped(%x: tensor<2x1x2x4x4x64xf32>) -> tensor<2x1x2x4x4x1xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @rank6_swapped_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x1x2x4x4x64xf32>) -> tensor<2x1x2x4x4x1xf32>
  func.return %y : tensor<2x1x2x4x4x1xf32>
}
