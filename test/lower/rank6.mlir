// Lowering at ranks 5 and 6 (the μGraph limit): graph-defined kernels whose
// imap, fmap and omap address dims past 3 (their two-stage tile buffers
// are rank-7 memrefs), a matmul with three batch dims reading a rank-5
// input through its layout (a strided memref.transpose), predefined ops
// and rank-6 view ops. The CPU form (the GPU kernels' op bodies, blocks
// run as loops) agrees with the interpreter; a rank-6 RMSNorm lifted from
// TOSA agrees with its reference, and so do the search's candidates for
// it, lowered. The GPU form is valid GPU IR.
// RUN: mirage-run --lift --lower --lower-candidates=8 %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU
//
// CHECK-DAG: @rank6: 3 outputs, 13312 elements, max abs error {{.*}}: ok
// CHECK-DAG: @rmsnorm_rank6_lax0: 1 output, 6144 elements, max abs error {{.*}}: ok
// CHECK-DAG: @rmsnorm_rank6_lax0: [[N:[1-9][0-9]*]] search candidate(s) lowered, [[N]] agree with the interpreter
// CHECK-NOT: MISMATCH
//
// GPU-LABEL: gpu.module @rank6_gpu
// GPU: gpu.func @rank6_gpu_k{{[0-9]+}}(%arg0: memref<2x3x2x2x4x64xf32> {{.*}}workgroup(%arg2 : memref<4x1x1x2x2x4x16xf32, #gpu.address_space<workgroup>>
// GPU: memref.transpose {{.*}} (d0, d1, d2, d3, d4) -> (d0, d1, d2, d4, d3) : memref<2x2x2x16x32xf16> to memref<2x2x2x32x16xf16, strided<[2048, 1024, 512, 1, 32]>>
// GPU-LABEL: gpu.module @rmsnorm_rank6_lax0_gpu
// GPU-NOT: "ug.

// A matmul with three batch dims: the grid cuts batch dims 1 and 2 (x, y),
// the for-loop the contraction (A's dim 4, B's dim 3); B arrives stored
// with its last two dims swapped (an input layout at rank 5).
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

// RMSNorm over the last dim of rank-6 f16 activations with a rank-1
// weight (entering as 1x1x1x1x1x64), the statistics in f32.
func.func @rmsnorm_rank6(%x: tensor<2x3x2x2x4x64xf16>, %w: tensor<64xf16>) -> tensor<2x3x2x2x4x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %xf = tosa.cast %x : (tensor<2x3x2x2x4x64xf16>) -> tensor<2x3x2x2x4x64xf32>
  %sq = tosa.mul %xf, %xf, %shift : (tensor<2x3x2x2x4x64xf32>, tensor<2x3x2x2x4x64xf32>, tensor<1xi8>) -> tensor<2x3x2x2x4x64xf32>
  %ss = tosa.reduce_sum %sq {axis = 5 : i32} : (tensor<2x3x2x2x4x64xf32>) -> tensor<2x3x2x2x4x1xf32>
  %n = "tosa.const"() <{values = dense<1.562500e-02> : tensor<1x1x1x1x1x1xf32>}> : () -> tensor<1x1x1x1x1x1xf32>
  %mean = tosa.mul %ss, %n, %shift : (tensor<2x3x2x2x4x1xf32>, tensor<1x1x1x1x1x1xf32>, tensor<1xi8>) -> tensor<2x3x2x2x4x1xf32>
  %r = tosa.rsqrt %mean : (tensor<2x3x2x2x4x1xf32>) -> tensor<2x3x2x2x4x1xf32>
  %y = tosa.mul %xf, %r, %shift : (tensor<2x3x2x2x4x64xf32>, tensor<2x3x2x2x4x1xf32>, tensor<1xi8>) -> tensor<2x3x2x2x4x64xf32>
  %yh = tosa.cast %y : (tensor<2x3x2x2x4x64xf32>) -> tensor<2x3x2x2x4x64xf16>
  %s6 = tosa.const_shape {values = dense<[1, 1, 1, 1, 1, 64]> : tensor<6xindex>} : () -> !tosa.shape<6>
  %w6 = tosa.reshape %w, %s6 : (tensor<64xf16>, !tosa.shape<6>) -> tensor<1x1x1x1x1x64xf16>
  %o = tosa.mul %yh, %w6, %shift : (tensor<2x3x2x2x4x64xf16>, tensor<1x1x1x1x1x64xf16>, tensor<1xi8>) -> tensor<2x3x2x2x4x64xf16>
  return %o : tensor<2x3x2x2x4x64xf16>
}
