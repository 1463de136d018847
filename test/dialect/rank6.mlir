// Round trip of μGraph ops at ranks 5 and 6 (the limit, MG_MAX_DIMS): maps
// (imap, fmap, omap) naming dims past 3, accumulators, an input layout of
// rank 5, reductions, transposes, reshapes, slices and concats of rank 6.
// parse -> print -> parse, the dialect bridge reproduces the printed
// module, and the semantic checks accept it. Rank 7 is rejected
// (verify-ugraph.mlir).
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s > %t.printed
// RUN: mirage-opt --mirage-test-bridge %s > %t.bridged
// RUN: diff %t.printed %t.bridged
// RUN: mirage-opt --mirage-verify-ugraph %s > /dev/null

// A matmul with three batch dims: the grid cuts batch dims 1 and 2 (x, y),
// the for-loop the contraction (A's dim 4, B's dim 3); B arrives stored
// with its last two dims swapped (an input layout at rank 5).
// CHECK-LABEL: func.func @bmm5_block
// CHECK: "ug.transpose"(%arg1) {perm = array<i64: 0, 1, 2, 4, 3>} : (tensor<2x2x2x16x32xf16>) -> tensor<2x2x2x32x16xf16>
// CHECK: "ug.iterator"(%arg0) {fmap = 4 : i64, imap = array<i64: 1, 2, -1>} : (tensor<2x2x2x8x32xf16>) -> tensor<2x1x1x8x16xf16>
// CHECK: "ug.iterator"(%{{.*}}) {fmap = 3 : i64, imap = array<i64: 1, 2, -1>} : (tensor<2x2x2x32x16xf16>) -> tensor<2x1x1x16x16xf16>
// CHECK: "ug.matmul"({{.*}}) : (tensor<2x1x1x8x16xf16>, tensor<2x1x1x16x16xf16>) -> tensor<2x1x1x8x16xf32>
// CHECK: "ug.saver"(%{{.*}}) {omap = array<i64: 1, 2, -1>} : (tensor<2x1x1x8x16xf32>) -> tensor<2x2x2x8x16xf32>
func.func @bmm5_block(%a: tensor<2x2x2x8x32xf16>, %bs: tensor<2x2x2x16x32xf16>) -> tensor<2x2x2x8x16xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 2 : i64, ug.grid = array<i64: 2, 2, 1>, ug.level = "block"} {
  %b = "ug.transpose"(%bs) {perm = array<i64: 0, 1, 2, 4, 3>} : (tensor<2x2x2x16x32xf16>) -> tensor<2x2x2x32x16xf16>
  %at = "ug.iterator"(%a) {fmap = 4 : i64, imap = array<i64: 1, 2, -1>} : (tensor<2x2x2x8x32xf16>) -> tensor<2x1x1x8x16xf16>
  %bt = "ug.iterator"(%b) {fmap = 3 : i64, imap = array<i64: 1, 2, -1>} : (tensor<2x2x2x32x16xf16>) -> tensor<2x1x1x16x16xf16>
  %mm = "ug.matmul"(%at, %bt) : (tensor<2x1x1x8x16xf16>, tensor<2x1x1x16x16xf16>) -> tensor<2x1x1x8x16xf32>
  %acc = "ug.accum"(%mm) {kind = "sum"} : (tensor<2x1x1x8x16xf32>) -> tensor<2x1x1x8x16xf32>
  %o = "ug.saver"(%acc) {omap = array<i64: 1, 2, -1>} : (tensor<2x1x1x8x16xf32>) -> tensor<2x2x2x8x16xf32>
  func.return %o : tensor<2x2x2x8x16xf32>
}

// RMS over the last dim of a rank-6 tensor, split over dims 0 and 1 (grid)
// and dim 5 (for-loop): imap, fmap and omap address dims past 3.
// CHECK-LABEL: func.func @rms6_block
// CHECK: "ug.iterator"(%arg0) {fmap = 5 : i64, imap = array<i64: 0, 1, -1>} : (tensor<2x3x2x2x4x64xf32>) -> tensor<1x1x2x2x4x16xf32>
// CHECK: "ug.accum"(%{{.*}}) {kind = "sum_sq_last"} : (tensor<1x1x2x2x4x16xf32>) -> tensor<1x1x2x2x4x1xf32>
// CHECK: "ug.saver"(%{{.*}}) {omap = array<i64: 0, 1, -1>} : (tensor<1x1x2x2x4x1xf32>) -> tensor<2x3x2x2x4x1xf32>
func.func @rms6_block(%x: tensor<2x3x2x2x4x64xf32>) -> tensor<2x3x2x2x4x1xf32> attributes {ug.block_threads = 64 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 2, 3, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 5 : i64, imap = array<i64: 0, 1, -1>} : (tensor<2x3x2x2x4x64xf32>) -> tensor<1x1x2x2x4x16xf32>
  %s = "ug.accum"(%t) {kind = "sum_sq_last"} : (tensor<1x1x2x2x4x16xf32>) -> tensor<1x1x2x2x4x1xf32>
  %m = "ug.div_scalar"(%s) {scalar = 6.400000e+01 : f64} : (tensor<1x1x2x2x4x1xf32>) -> tensor<1x1x2x2x4x1xf32>
  %r = "ug.sqrt"(%m) : (tensor<1x1x2x2x4x1xf32>) -> tensor<1x1x2x2x4x1xf32>
  %o = "ug.saver"(%r) {omap = array<i64: 0, 1, -1>} : (tensor<1x1x2x2x4x1xf32>) -> tensor<2x3x2x2x4x1xf32>
  func.return %o : tensor<2x3x2x2x4x1xf32>
}

// Kernel level: the two kernels, predefined ops at ranks 5 and 6, and view
// ops of rank 6 (transpose, reshape to rank 3 and back, slice along dim 5,
// concat along dim 5).
// CHECK-LABEL: func.func @rank6
// CHECK: "ug.reduce_max"(%{{.*}}) {dim = 4 : i64} : (tensor<2x2x2x8x16xf32>) -> tensor<2x2x2x8x1xf32>
// CHECK: "ug.transpose"(%{{.*}}) {perm = array<i64: 1, 0, 2, 3, 5, 4>} : (tensor<2x3x2x2x4x64xf32>) -> tensor<3x2x2x2x64x4xf32>
// CHECK: "ug.reshape"(%{{.*}}) : (tensor<3x2x2x2x64x4xf32>) -> tensor<6x4x256xf32>
// CHECK: "ug.slice"(%{{.*}}) {dim = 5 : i64, offset = 2 : i64} : (tensor<3x2x2x2x64x4xf32>) -> tensor<3x2x2x2x64x2xf32>
// CHECK: "ug.concat"(%{{.*}}, %{{.*}}) {dim = 5 : i64} : (tensor<3x2x2x2x64x2xf32>, tensor<3x2x2x2x64x2xf32>) -> tensor<3x2x2x2x64x4xf32>
func.func @rank6(%x: tensor<2x3x2x2x4x64xf32>, %a: tensor<2x2x2x8x32xf16>, %bs: tensor<2x2x2x16x32xf16>, %c: tensor<1x1x2x1x4x1xf32>) -> (tensor<2x3x2x2x4x64xf32>, tensor<2x2x2x8x16xf32>, tensor<2x3x2x2x4x64xf32>) attributes {ug.level = "kernel"} {
  %b = "ug.transpose"(%bs) {perm = array<i64: 0, 1, 2, 4, 3>} : (tensor<2x2x2x16x32xf16>) -> tensor<2x2x2x32x16xf16>
  %rms = "ug.custom"(%x) {kernel = @rms6_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x3x2x2x4x64xf32>) -> tensor<2x3x2x2x4x1xf32>
  %y = "ug.div"(%x, %rms) : (tensor<2x3x2x2x4x64xf32>, tensor<2x3x2x2x4x1xf32>) -> tensor<2x3x2x2x4x64xf32>
  %yc = "ug.mul"(%y, %c) : (tensor<2x3x2x2x4x64xf32>, tensor<1x1x2x1x4x1xf32>) -> tensor<2x3x2x2x4x64xf32>
  %mm = "ug.custom"(%a, %b) {kernel = @bmm5_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x2x2x8x32xf16>, tensor<2x2x2x32x16xf16>) -> tensor<2x2x2x8x16xf32>
  %mx = "ug.reduce_max"(%mm) {dim = 4 : i64} : (tensor<2x2x2x8x16xf32>) -> tensor<2x2x2x8x1xf32>
  %d = "ug.sub"(%mm, %mx) : (tensor<2x2x2x8x16xf32>, tensor<2x2x2x8x1xf32>) -> tensor<2x2x2x8x16xf32>
  %e = "ug.exp"(%d) : (tensor<2x2x2x8x16xf32>) -> tensor<2x2x2x8x16xf32>
  %s = "ug.sum"(%e) {dim = 4 : i64} : (tensor<2x2x2x8x16xf32>) -> tensor<2x2x2x8x1xf32>
  %p = "ug.div"(%e, %s) : (tensor<2x2x2x8x16xf32>, tensor<2x2x2x8x1xf32>) -> tensor<2x2x2x8x16xf32>
  %t = "ug.transpose"(%yc) {perm = array<i64: 1, 0, 2, 3, 5, 4>} : (tensor<2x3x2x2x4x64xf32>) -> tensor<3x2x2x2x64x4xf32>
  %r3 = "ug.reshape"(%t) : (tensor<3x2x2x2x64x4xf32>) -> tensor<6x4x256xf32>
  %sq = "ug.square"(%r3) : (tensor<6x4x256xf32>) -> tensor<6x4x256xf32>
  %r6 = "ug.reshape"(%sq) : (tensor<6x4x256xf32>) -> tensor<3x2x2x2x64x4xf32>
  %lo = "ug.slice"(%r6) {dim = 5 : i64, offset = 0 : i64} : (tensor<3x2x2x2x64x4xf32>) -> tensor<3x2x2x2x64x2xf32>
  %hi = "ug.slice"(%r6) {dim = 5 : i64, offset = 2 : i64} : (tensor<3x2x2x2x64x4xf32>) -> tensor<3x2x2x2x64x2xf32>
  %sw = "ug.concat"(%hi, %lo) {dim = 5 : i64} : (tensor<3x2x2x2x64x2xf32>, tensor<3x2x2x2x64x2xf32>) -> tensor<3x2x2x2x64x4xf32>
  %back = "ug.transpose"(%sw) {perm = array<i64: 1, 0, 2, 3, 5, 4>} : (tensor<3x2x2x2x64x4xf32>) -> tensor<2x3x2x2x4x64xf32>
  func.return %yc, %p, %back : tensor<2x3x2x2x4x64xf32>, tensor<2x2x2x8x16xf32>, tensor<2x3x2x2x4x64xf32>
}
