// The CPU form of the lowering (lib/lower: the same op bodies as the GPU
// kernels, blocks run as loops) computes what the interpreter computes, for
// every op kind, broadcasting, partial sums laid side by side, f32/f16/bf16.
// mirage-run JIT-compiles it through the ExecutionEngine and compares every
// output element with the interpreter.
// RUN: mirage-run --lower %s | FileCheck %s
// The kernels of every function are valid GPU IR too.
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU

// CHECK-DAG: @partial_sums: 1 output, 16 elements, max abs error {{.*}}: ok
// CHECK-DAG: @block_mix: 1 output, 16 elements, max abs error {{.*}}: ok
// CHECK-DAG: @kernel_ops: 2 outputs, 28 elements, max abs error {{.*}}: ok
// CHECK-DAG: @bf16_ops: 1 output, 32 elements, max abs error {{.*}}: ok
// CHECK-DAG: @chains: 2 outputs, 16 elements, max abs error {{.*}}: ok
// GPU-COUNT-5: gpu.module @
// GPU-NOT: ug.

// Row sums of X (8x256) split two ways: the grid cuts the row into 2 halves
// (imap x -> 1) and the for-loop cuts each half into 4 (fmap 1); each block
// saves its partial sum beside the other's (omap x -> 1): out[r, b].
func.func @partial_sums_block(%x: tensor<8x256xf32>) -> tensor<8x2xf32> attributes {ug.block_threads = 64 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<8x256xf32>) -> tensor<8x32xf32>
  %s = "ug.accum"(%t) {kind = "sum_last"} : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %o = "ug.saver"(%s) {omap = array<i64: 1, -1, -1>} : (tensor<8x1xf32>) -> tensor<8x2xf32>
  func.return %o : tensor<8x2xf32>
}
func.func @partial_sums(%x: tensor<8x256xf32>) -> tensor<8x2xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @partial_sums_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x256xf32>) -> tensor<8x2xf32>
  func.return %y : tensor<8x2xf32>
}

// One block per 4 rows (grid over dim 0, F = 1): sums, squares, rsqrt,
// concat, scalars, relu, gelu, sub; in f16 with f32 arithmetic.
func.func @block_mix_block(%x: tensor<8x16xf16>) -> tensor<8x2xf16> attributes {ug.block_threads = 32 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x16xf16>) -> tensor<4x16xf16>
  %sq = "ug.square"(%t) : (tensor<4x16xf16>) -> tensor<4x16xf16>
  %s1 = "ug.sum"(%sq) {dim = 1 : i64} : (tensor<4x16xf16>) -> tensor<4x1xf16>
  %m = "ug.mul_scalar"(%s1) {scalar = 6.250000e-02 : f64} : (tensor<4x1xf16>) -> tensor<4x1xf16>
  %r = "ug.rsqrt"(%m) : (tensor<4x1xf16>) -> tensor<4x1xf16>
  %s2 = "ug.sum"(%t) {dim = 1 : i64} : (tensor<4x16xf16>) -> tensor<4x1xf16>
  %g = "ug.gelu"(%s2) : (tensor<4x1xf16>) -> tensor<4x1xf16>
  %d = "ug.div_scalar"(%g) {scalar = 4.000000e+00 : f64} : (tensor<4x1xf16>) -> tensor<4x1xf16>
  %u = "ug.relu"(%d) : (tensor<4x1xf16>) -> tensor<4x1xf16>
  %v = "ug.sub"(%r, %u) : (tensor<4x1xf16>, tensor<4x1xf16>) -> tensor<4x1xf16>
  %c = "ug.concat"(%v, %s2) {dim = 1 : i64} : (tensor<4x1xf16>, tensor<4x1xf16>) -> tensor<4x2xf16>
  %o = "ug.saver"(%c) {omap = array<i64: 0, -1, -1>} : (tensor<4x2xf16>) -> tensor<8x2xf16>
  func.return %o : tensor<8x2xf16>
}
func.func @block_mix(%x: tensor<8x16xf16>) -> tensor<8x2xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @block_mix_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x16xf16>) -> tensor<8x2xf16>
  func.return %y : tensor<8x2xf16>
}

// Predefined ops over whole tensors: a batched matmul, broadcasting
// element-wise ops, a sum over dim 0, silu, sqrt of a square; two outputs.
func.func @kernel_ops(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>, %c: tensor<1x4x1xf32>) -> (tensor<2x4x3xf32>, tensor<1x4x1xf32>) attributes {ug.level = "kernel"} {
  %m = "ug.matmul"(%a, %b) : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  %p = "ug.add"(%m, %c) : (tensor<2x4x3xf32>, tensor<1x4x1xf32>) -> tensor<2x4x3xf32>
  %q = "ug.div"(%p, %c) : (tensor<2x4x3xf32>, tensor<1x4x1xf32>) -> tensor<2x4x3xf32>
  %e = "ug.silu"(%q) : (tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %s = "ug.sum"(%a) {dim = 0 : i64} : (tensor<2x4x8xf32>) -> tensor<1x4x8xf32>
  %sq = "ug.square"(%s) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %rt = "ug.sqrt"(%sq) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %t = "ug.sum"(%rt) {dim = 2 : i64} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %w = "ug.mul"(%t, %c) : (tensor<1x4x1xf32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  func.return %e, %w : tensor<2x4x3xf32>, tensor<1x4x1xf32>
}

// bf16 storage, f32 arithmetic: exp and a scaled product.
func.func @bf16_ops(%a: tensor<4x8xbf16>, %b: tensor<4x8xbf16>) -> tensor<4x8xbf16> attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%a) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %m = "ug.mul"(%e, %b) : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %s = "ug.mul_scalar"(%m) {scalar = 5.000000e-01 : f64} : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  func.return %s : tensor<4x8xbf16>
}

// Element-wise chains fuse into one loop with values in registers; a value
// of a chain that a later op reads (here e = exp(t), read by the sum and by
// the second chain) must still be stored. In the loop (F = 2) the chain
// exp, mul feeds an accumulator; after it, a second chain divides.
func.func @chains_block(%x: tensor<8x32xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>) attributes {ug.block_threads = 32 : i64, ug.forloop = 2 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x32xf32>) -> tensor<4x16xf32>
  %e = "ug.exp"(%t) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = "ug.mul"(%e, %t) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %a = "ug.accum"(%m) {kind = "sum_last"} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %b = "ug.accum"(%e) {kind = "sum_last"} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %q = "ug.div"(%a, %b) : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %r = "ug.mul_scalar"(%q) {scalar = 3.000000e+00 : f64} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %s = "ug.sub"(%r, %q) : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %o1 = "ug.saver"(%q) {omap = array<i64: 0, -1, -1>} : (tensor<4x1xf32>) -> tensor<8x1xf32>
  %o2 = "ug.saver"(%s) {omap = array<i64: 0, -1, -1>} : (tensor<4x1xf32>) -> tensor<8x1xf32>
  func.return %o1, %o2 : tensor<8x1xf32>, tensor<8x1xf32>
}
func.func @chains(%x: tensor<8x32xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>) attributes {ug.level = "kernel"} {
  %y:2 = "ug.custom"(%x) {kernel = @chains_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<8x32xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>)
  func.return %y#0, %y#1 : tensor<8x1xf32>, tensor<8x1xf32>
}
