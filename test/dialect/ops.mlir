// Round trip of every μGraph op at every level: parse -> print -> parse, and
// the dialect bridge (IR -> MgProgram -> IR) reproduces the printed module.
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s > %t.printed
// RUN: mirage-opt --mirage-test-bridge %s > %t.bridged
// RUN: diff %t.printed %t.bridged
// RUN: mirage-opt --mirage-verify-ugraph %s > /dev/null

//===----------------------------------------------------------------------===//
// Thread level: a fused element-wise chain in registers.
//===----------------------------------------------------------------------===//
// CHECK-LABEL: func.func @gated_thread
// CHECK-SAME: ug.level = "thread"
// CHECK: "ug.silu"
// CHECK: "ug.mul"
func.func @gated_thread(%a: tensor<8x64xf16>, %b: tensor<8x64xf16>) -> tensor<8x64xf16> attributes {ug.level = "thread"} {
  %s = "ug.silu"(%a) : (tensor<8x64xf16>) -> tensor<8x64xf16>
  %m = "ug.mul"(%s, %b) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  func.return %m : tensor<8x64xf16>
}

//===----------------------------------------------------------------------===//
// Block level: iterators, accumulators, savers, a thread op.
//===----------------------------------------------------------------------===//
// CHECK-LABEL: func.func @gated_block
// CHECK-SAME: ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 64, 1, 1>, ug.level = "block"
// CHECK: "ug.iterator"(%{{.*}}) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>}
// CHECK: "ug.iterator"(%{{.*}}) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>}
// CHECK: "ug.matmul"
// CHECK: "ug.accum"(%{{.*}}) {kind = "sum"}
// CHECK: "ug.thread"(%{{.*}}, %{{.*}}) {kernel = @gated_thread, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
// CHECK: "ug.saver"(%{{.*}}) {omap = array<i64: 1, -1, -1>}
func.func @gated_block(%x: tensor<8x1024xf16>, %w1: tensor<1024x4096xf16>, %w2: tensor<1024x4096xf16>) -> tensor<8x4096xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 64, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<8x1024xf16>) -> tensor<8x256xf16>
  %w1t = "ug.iterator"(%w1) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<1024x4096xf16>) -> tensor<256x64xf16>
  %w2t = "ug.iterator"(%w2) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<1024x4096xf16>) -> tensor<256x64xf16>
  %m1 = "ug.matmul"(%xt, %w1t) : (tensor<8x256xf16>, tensor<256x64xf16>) -> tensor<8x64xf16>
  %m2 = "ug.matmul"(%xt, %w2t) : (tensor<8x256xf16>, tensor<256x64xf16>) -> tensor<8x64xf16>
  %a1 = "ug.accum"(%m1) {kind = "sum"} : (tensor<8x64xf16>) -> tensor<8x64xf16>
  %a2 = "ug.accum"(%m2) {kind = "sum"} : (tensor<8x64xf16>) -> tensor<8x64xf16>
  %g = "ug.thread"(%a1, %a2) {kernel = @gated_thread, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %o = "ug.saver"(%g) {omap = array<i64: 1, -1, -1>} : (tensor<8x64xf16>) -> tensor<8x4096xf16>
  func.return %o : tensor<8x4096xf16>
}

//===----------------------------------------------------------------------===//
// Kernel level: a graph-defined kernel next to predefined ops.
//===----------------------------------------------------------------------===//
// CHECK-LABEL: func.func @gated_mlp
// CHECK-SAME: ug.level = "kernel"
// CHECK: "ug.custom"(%{{.*}}, %{{.*}}, %{{.*}}) {kernel = @gated_block, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
func.func @gated_mlp(%x: tensor<8x1024xf16>, %w1: tensor<1024x4096xf16>, %w2: tensor<1024x4096xf16>) -> tensor<8x4096xf16> attributes {ug.level = "kernel"} {
  %o = "ug.custom"(%x, %w1, %w2) {kernel = @gated_block, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x1024xf16>, tensor<1024x4096xf16>, tensor<1024x4096xf16>) -> tensor<8x4096xf16>
  func.return %o : tensor<8x4096xf16>
}

// RMSNorm + matmul fused as in the paper (rms accumulator, div after loop).
// CHECK-LABEL: func.func @rms_block
// CHECK: {kind = "sum_sq_last"}
// CHECK: "ug.div_scalar"(%{{.*}}) {scalar = 6.400000e+01 : f64}
// CHECK: "ug.sqrt"
// CHECK: "ug.div"
func.func @rms_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
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
// CHECK-LABEL: func.func @rms
func.func @rms(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}

// Split reduction: partial row sums per block (sum_last accumulator), saved
// side by side, then concatenated partials (concat) and kernel-level ops.
// CHECK-LABEL: func.func @partials_block
// CHECK: {kind = "sum_last"}
// CHECK: "ug.concat"(%{{.*}}, %{{.*}}) {dim = 1 : i64}
func.func @partials_block(%x: tensor<4x256xbf16>) -> tensor<4x4xbf16> attributes {ug.block_threads = 64 : i64, ug.forloop = 2 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<4x256xbf16>) -> tensor<4x64xbf16>
  %s = "ug.accum"(%t) {kind = "sum_last"} : (tensor<4x64xbf16>) -> tensor<4x1xbf16>
  %c = "ug.concat"(%s, %s) {dim = 1 : i64} : (tensor<4x1xbf16>, tensor<4x1xbf16>) -> tensor<4x2xbf16>
  %o = "ug.saver"(%c) {omap = array<i64: 1, -1, -1>} : (tensor<4x2xbf16>) -> tensor<4x4xbf16>
  func.return %o : tensor<4x4xbf16>
}
// CHECK-LABEL: func.func @all_kernel_ops
// CHECK: "ug.matmul"
// CHECK: "ug.add"
// CHECK: "ug.sub"
// CHECK: "ug.mul"
// CHECK: "ug.div"
// CHECK: "ug.exp"
// CHECK: "ug.square"
// CHECK: "ug.sqrt"
// CHECK: "ug.rsqrt"
// CHECK: "ug.silu"
// CHECK: "ug.gelu"
// CHECK: "ug.relu"
// CHECK: "ug.mul_scalar"(%{{.*}}) {scalar = 5.000000e-01 : f64}
// CHECK: "ug.div_scalar"(%{{.*}}) {scalar = 3.000000e+00 : f64}
// CHECK: "ug.sum"(%{{.*}}) {dim = 1 : i64}
// CHECK: "ug.custom"(%{{.*}}) {kernel = @partials_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}
func.func @all_kernel_ops(%a: tensor<2x4x8xbf16>, %b: tensor<2x8x4xbf16>, %x: tensor<4x256xbf16>) -> (tensor<2x1x4xbf16>, tensor<4x4xbf16>) attributes {ug.level = "kernel"} {
  %m = "ug.matmul"(%a, %b) : (tensor<2x4x8xbf16>, tensor<2x8x4xbf16>) -> tensor<2x4x4xbf16>
  %1 = "ug.add"(%m, %m) : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %2 = "ug.sub"(%1, %m) : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %3 = "ug.mul"(%2, %m) : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %4 = "ug.div"(%3, %m) : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %5 = "ug.exp"(%4) : (tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %6 = "ug.square"(%5) : (tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %7 = "ug.sqrt"(%6) : (tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %8 = "ug.rsqrt"(%7) : (tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %9 = "ug.silu"(%8) : (tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %10 = "ug.gelu"(%9) : (tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %11 = "ug.relu"(%10) : (tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %12 = "ug.mul_scalar"(%11) {scalar = 5.000000e-01 : f64} : (tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %13 = "ug.div_scalar"(%12) {scalar = 3.000000e+00 : f64} : (tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %14 = "ug.sum"(%13) {dim = 1 : i64} : (tensor<2x4x4xbf16>) -> tensor<2x1x4xbf16>
  %p = "ug.custom"(%x) {kernel = @partials_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x256xbf16>) -> tensor<4x4xbf16>
  func.return %14, %p : tensor<2x1x4xbf16>, tensor<4x4xbf16>
}

//===----------------------------------------------------------------------===//
// Kernel level: view ops (head split, transpose, rotate-half's slices and
// concat) between compute ops.
//===----------------------------------------------------------------------===//
// CHECK-LABEL: func.func @views
// CHECK: "ug.reshape"(%{{.*}}) : (tensor<4x48xf16>) -> tensor<4x6x8xf16>
// CHECK: "ug.transpose"(%{{.*}}) {perm = array<i64: 1, 0, 2>}
// CHECK: "ug.slice"(%{{.*}}) {dim = 2 : i64, offset = 4 : i64} : (tensor<6x4x8xf16>) -> tensor<6x4x4xf16>
// CHECK: "ug.concat"(%{{.*}}, %{{.*}}) {dim = 2 : i64} : (tensor<6x4x4xf16>, tensor<6x4x4xf16>) -> tensor<6x4x8xf16>
func.func @views(%q: tensor<4x48xf16>) -> tensor<6x4x8xf16> attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%q) : (tensor<4x48xf16>) -> tensor<4x48xf16>
  %r = "ug.reshape"(%e) : (tensor<4x48xf16>) -> tensor<4x6x8xf16>
  %t = "ug.transpose"(%r) {perm = array<i64: 1, 0, 2>} : (tensor<4x6x8xf16>) -> tensor<6x4x8xf16>
  %a = "ug.slice"(%t) {dim = 2 : i64, offset = 4 : i64} : (tensor<6x4x8xf16>) -> tensor<6x4x4xf16>
  %b = "ug.slice"(%t) {dim = 2 : i64, offset = 0 : i64} : (tensor<6x4x8xf16>) -> tensor<6x4x4xf16>
  %c = "ug.concat"(%a, %b) {dim = 2 : i64} : (tensor<6x4x4xf16>, tensor<6x4x4xf16>) -> tensor<6x4x8xf16>
  func.return %c : tensor<6x4x8xf16>
}

//===----------------------------------------------------------------------===//
// Kernel level: a convolution as im2col (patches as rows, zero padding)
// and a matmul with the filter [kh*kw*c, f].
//===----------------------------------------------------------------------===//
// CHECK-LABEL: func.func @conv
// CHECK: "ug.im2col"(%{{.*}}) {dilations = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} : (tensor<1x8x8x4xf16>) -> tensor<1x16x36xf16>
func.func @conv(%x: tensor<1x8x8x4xf16>, %w: tensor<1x36x16xf16>) -> tensor<1x16x16xf16> attributes {ug.level = "kernel"} {
  %p = "ug.im2col"(%x) {window = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, groups = 1 : i64} : (tensor<1x8x8x4xf16>) -> tensor<1x16x36xf16>
  %y = "ug.matmul"(%p, %w) : (tensor<1x16x36xf16>, tensor<1x36x16xf16>) -> tensor<1x16x16xf16>
  func.return %y : tensor<1x16x16xf16>
}
