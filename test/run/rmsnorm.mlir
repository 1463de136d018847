// RMSNorm + matmul (benchmark 1, Y = (X / rms(X)) · W) at a small shape:
// references in TOSA (f16) and linalg (f32), kernel graphs unfused and fused
// (the paper's custom kernel: grid over W's columns, for-loop over k).
// RUN: mirage-run --compare=rms_tosa_f16,rms_ug_f16 %s | FileCheck %s --check-prefix=TOSA16
// RUN: mirage-run --compare=rms_tosa_f16,rms_fused_f16 %s | FileCheck %s --check-prefix=FUSED16
// RUN: mirage-run --compare=rms_linalg_f32,rms_ug_f32 %s | FileCheck %s --check-prefix=LINALG32
// RUN: mirage-run --compare=rms_linalg_f32,rms_fused_f32 --seed=7 %s | FileCheck %s --check-prefix=FUSED32
// RUN: not mirage-run --compare=rms_linalg_f32,rms_fused_wrong_scale_f32 %s | FileCheck %s --check-prefix=WRONG
// RUN: not mirage-run --compare=rms_tosa_f16,rms_ug_f16 --tolerance=1e-9 %s | FileCheck %s --check-prefix=TIGHT
// The lifter on the same file: every function it lifts must agree with the
// kernel graph it produced (the hand-written kernel graphs above carry no
// ug.reference, so only the lifter's pairs are checked).
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=LIFT

// TOSA16: @rms_tosa_f16 vs @rms_ug_f16: 1 output, 192 elements, max abs error {{.*}} (tolerance {{.*}}): ok
// FUSED16: @rms_tosa_f16 vs @rms_fused_f16: 1 output, 192 elements, max abs error {{.*}}: ok
// LINALG32: @rms_linalg_f32 vs @rms_ug_f32: 1 output, 192 elements, max abs error {{[0-9.]+}}e-{{0[6-9]|1[0-9]}} (tolerance {{.*}}): ok
// FUSED32: @rms_linalg_f32 vs @rms_fused_f32: 1 output, 192 elements, max abs error {{.*}}: ok
// The wrong kernel divides by 16 instead of 64: every output is half the
// reference, so the very first element differs.
// WRONG: @rms_linalg_f32 vs @rms_fused_wrong_scale_f32: MISMATCH at output 0 element 0: jit {{-?[0-9.]+}} vs interpreter {{-?[0-9.]+}}
// With an absolute tolerance of 1e-9 f16 rounding shows up at once.
// TIGHT: @rms_tosa_f16 vs @rms_ug_f16: MISMATCH at output 0 element {{[0-9]+}}: {{.*}}tolerance 1e-09)

// LIFT-DAG: @rms_tosa_f16_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-DAG: @rms_linalg_f32_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-NOT: MISMATCH

//===----------------------------------------------------------------------===//
// f16, TOSA (3-D: tosa.matmul is batched)
//===----------------------------------------------------------------------===//

func.func @rms_tosa_f16(%x: tensor<1x2x64xf16>, %w: tensor<1x64x96xf16>) -> tensor<1x2x96xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_n = "tosa.const"() <{values = dense<1.5625e-02> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %sq = tosa.mul %x, %x, %shift : (tensor<1x2x64xf16>, tensor<1x2x64xf16>, tensor<1xi8>) -> tensor<1x2x64xf16>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x2x64xf16>) -> tensor<1x2x1xf16>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x2x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x1xf16>
  %inv_rms = tosa.rsqrt %mean : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %normed = tosa.mul %x, %inv_rms, %shift : (tensor<1x2x64xf16>, tensor<1x2x1xf16>, tensor<1xi8>) -> tensor<1x2x64xf16>
  %y = tosa.matmul %normed, %w, %zp, %zp : (tensor<1x2x64xf16>, tensor<1x64x96xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x96xf16>
  return %y : tensor<1x2x96xf16>
}

func.func @rms_ug_f16(%x: tensor<1x2x64xf16>, %w: tensor<1x64x96xf16>) -> tensor<1x2x96xf16> attributes {ug.level = "kernel"} {
  %sq = "ug.square"(%x) : (tensor<1x2x64xf16>) -> tensor<1x2x64xf16>
  %ss = "ug.sum"(%sq) {dim = 2 : i64} : (tensor<1x2x64xf16>) -> tensor<1x2x1xf16>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %rms = "ug.sqrt"(%mean) : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %n = "ug.div"(%x, %rms) : (tensor<1x2x64xf16>, tensor<1x2x1xf16>) -> tensor<1x2x64xf16>
  %y = "ug.matmul"(%n, %w) : (tensor<1x2x64xf16>, tensor<1x64x96xf16>) -> tensor<1x2x96xf16>
  func.return %y : tensor<1x2x96xf16>
}

func.func @rms_fused_f16_block(%x: tensor<1x2x64xf16>, %w: tensor<1x64x96xf16>) -> tensor<1x2x96xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 2 : i64, imap = array<i64: -1, -1, -1>} : (tensor<1x2x64xf16>) -> tensor<1x2x16xf16>
  %wt = "ug.iterator"(%w) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x64x96xf16>) -> tensor<1x16x24xf16>
  %m = "ug.matmul"(%xt, %wt) : (tensor<1x2x16xf16>, tensor<1x16x24xf16>) -> tensor<1x2x24xf16>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<1x2x24xf16>) -> tensor<1x2x24xf16>
  %ss = "ug.accum"(%xt) {kind = "sum_sq_last"} : (tensor<1x2x16xf16>) -> tensor<1x2x1xf16>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %rms = "ug.sqrt"(%mean) : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %y = "ug.div"(%acc, %rms) : (tensor<1x2x24xf16>, tensor<1x2x1xf16>) -> tensor<1x2x24xf16>
  %o = "ug.saver"(%y) {omap = array<i64: 2, -1, -1>} : (tensor<1x2x24xf16>) -> tensor<1x2x96xf16>
  func.return %o : tensor<1x2x96xf16>
}
func.func @rms_fused_f16(%x: tensor<1x2x64xf16>, %w: tensor<1x64x96xf16>) -> tensor<1x2x96xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_fused_f16_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x2x64xf16>, tensor<1x64x96xf16>) -> tensor<1x2x96xf16>
  func.return %y : tensor<1x2x96xf16>
}

//===----------------------------------------------------------------------===//
// f32, linalg on tensors (2-D)
//===----------------------------------------------------------------------===//

func.func @rms_linalg_f32(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x64xf32>) outs(%z : tensor<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %e2 = tensor.empty() : tensor<2x64xf32>
  %xn = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "parallel"]} ins(%x, %ss : tensor<2x64xf32>, tensor<2xf32>) outs(%e2 : tensor<2x64xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %r = math.sqrt %m : f32
    %d = arith.divf %a, %r : f32
    linalg.yield %d : f32
  } -> tensor<2x64xf32>
  %e3 = tensor.empty() : tensor<2x96xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x96xf32>) -> tensor<2x96xf32>
  %y = linalg.matmul ins(%xn, %w : tensor<2x64xf32>, tensor<64x96xf32>) outs(%z3 : tensor<2x96xf32>) -> tensor<2x96xf32>
  return %y : tensor<2x96xf32>
}

func.func @rms_ug_f32(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %sq = "ug.square"(%x) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %ss = "ug.sum"(%sq) {dim = 1 : i64} : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = "ug.div"(%x, %rms) : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %y = "ug.matmul"(%n, %w) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}

// The fused kernel of test/verify/check-equiv.mlir.
func.func @rms_fused_f32_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
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
func.func @rms_fused_f32(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_fused_f32_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}

// Wrong on purpose: divides the sum of squares by 16 (the tile width).
func.func @rms_fused_wrong_scale_f32_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
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
func.func @rms_fused_wrong_scale_f32(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_fused_wrong_scale_f32_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}
