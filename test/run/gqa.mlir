// GQA attention (benchmark 2: E = exp(Q·K), S = Σ_last E, O = (E / S) · V)
// at Q(2,8,16), K(2,16,32), V(2,32,16): TOSA in f16, linalg in f32, kernel
// graphs unfused and as one custom kernel with a block per batch.
// RUN: mirage-run --compare=gqa_tosa_f16,gqa_ug_f16 %s | FileCheck %s --check-prefix=TOSA16
// RUN: mirage-run --compare=gqa_linalg_f32,gqa_ug_f32 %s | FileCheck %s --check-prefix=LINALG32
// RUN: mirage-run --compare=gqa_linalg_f32,gqa_fused_f32 --seed=3 %s | FileCheck %s --check-prefix=FUSED32
// RUN: not mirage-run --compare=gqa_linalg_f32,gqa_no_exp_f32 %s | FileCheck %s --check-prefix=WRONG
// The lifter on the same file: every function it lifts must agree with the
// kernel graph it produced (the hand-written kernel graphs above carry no
// ug.reference, so only the lifter's pairs are checked).
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=LIFT

// TOSA16: @gqa_tosa_f16 vs @gqa_ug_f16: 1 output, 256 elements, max abs error {{.*}}: ok
// LINALG32: @gqa_linalg_f32 vs @gqa_ug_f32: 1 output, 256 elements, max abs error {{[0-9.]+}}e-{{0[6-9]|1[0-9]}} (tolerance {{.*}}): ok
// FUSED32: @gqa_linalg_f32 vs @gqa_fused_f32: 1 output, 256 elements, max abs error {{.*}}: ok
// WRONG: @gqa_linalg_f32 vs @gqa_no_exp_f32: MISMATCH at output 0 element 0:

// LIFT-DAG: @gqa_tosa_f16_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-DAG: @gqa_linalg_f32_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-NOT: MISMATCH

//===----------------------------------------------------------------------===//
// f16, TOSA
//===----------------------------------------------------------------------===//

func.func @gqa_tosa_f16(%q: tensor<2x8x16xf16>, %k: tensor<2x16x32xf16>, %v: tensor<2x32x16xf16>) -> tensor<2x8x16xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<2x8x16xf16>, tensor<2x16x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x8x32xf16>
  %e = tosa.exp %s : (tensor<2x8x32xf16>) -> tensor<2x8x32xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x8x32xf16>) -> tensor<2x8x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<2x8x1xf16>) -> tensor<2x8x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x8x32xf16>, tensor<2x8x1xf16>, tensor<1xi8>) -> tensor<2x8x32xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x8x32xf16>, tensor<2x32x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x8x16xf16>
  return %o : tensor<2x8x16xf16>
}

func.func @gqa_ug_f16(%q: tensor<2x8x16xf16>, %k: tensor<2x16x32xf16>, %v: tensor<2x32x16xf16>) -> tensor<2x8x16xf16> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<2x8x16xf16>, tensor<2x16x32xf16>) -> tensor<2x8x32xf16>
  %e = "ug.exp"(%s) : (tensor<2x8x32xf16>) -> tensor<2x8x32xf16>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<2x8x32xf16>) -> tensor<2x8x1xf16>
  %p = "ug.div"(%e, %sum) : (tensor<2x8x32xf16>, tensor<2x8x1xf16>) -> tensor<2x8x32xf16>
  %o = "ug.matmul"(%p, %v) : (tensor<2x8x32xf16>, tensor<2x32x16xf16>) -> tensor<2x8x16xf16>
  func.return %o : tensor<2x8x16xf16>
}

//===----------------------------------------------------------------------===//
// f32, linalg on tensors
//===----------------------------------------------------------------------===//

func.func @gqa_linalg_f32(%q: tensor<2x8x16xf32>, %k: tensor<2x16x32xf32>, %v: tensor<2x32x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x8x32xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %s = linalg.batch_matmul ins(%q, %k : tensor<2x8x16xf32>, tensor<2x16x32xf32>) outs(%z0 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x8x32xf32>) outs(%e0 : tensor<2x8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = math.exp %a : f32
    linalg.yield %x : f32
  } -> tensor<2x8x32xf32>
  %e1 = tensor.empty() : tensor<2x8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %sum = linalg.reduce ins(%e : tensor<2x8x32xf32>) outs(%z1 : tensor<2x8xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<2x8x32xf32>, tensor<2x8xf32>) outs(%e0 : tensor<2x8x32xf32>) {
  ^bb0(%a: f32, %d: f32, %o: f32):
    %x = arith.divf %a, %d : f32
    linalg.yield %x : f32
  } -> tensor<2x8x32xf32>
  %e2 = tensor.empty() : tensor<2x8x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x8x32xf32>, tensor<2x32x16xf32>) outs(%z2 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

func.func @gqa_ug_f32(%q: tensor<2x8x16xf32>, %k: tensor<2x16x32xf32>, %v: tensor<2x32x16xf32>) -> tensor<2x8x16xf32> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<2x8x16xf32>, tensor<2x16x32xf32>) -> tensor<2x8x32xf32>
  %e = "ug.exp"(%s) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %p = "ug.div"(%e, %sum) : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %o = "ug.matmul"(%p, %v) : (tensor<2x8x32xf32>, tensor<2x32x16xf32>) -> tensor<2x8x16xf32>
  func.return %o : tensor<2x8x16xf32>
}

// One custom kernel: a block per batch (grid x over dim 0), no for-loop.
func.func @gqa_fused_f32_block(%q: tensor<2x8x16xf32>, %k: tensor<2x16x32xf32>, %v: tensor<2x32x16xf32>) -> tensor<2x8x16xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %qt = "ug.iterator"(%q) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<2x8x16xf32>) -> tensor<1x8x16xf32>
  %kt = "ug.iterator"(%k) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<2x16x32xf32>) -> tensor<1x16x32xf32>
  %vt = "ug.iterator"(%v) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<2x32x16xf32>) -> tensor<1x32x16xf32>
  %s = "ug.matmul"(%qt, %kt) : (tensor<1x8x16xf32>, tensor<1x16x32xf32>) -> tensor<1x8x32xf32>
  %e = "ug.exp"(%s) : (tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<1x8x32xf32>) -> tensor<1x8x1xf32>
  %p = "ug.div"(%e, %sum) : (tensor<1x8x32xf32>, tensor<1x8x1xf32>) -> tensor<1x8x32xf32>
  %o = "ug.matmul"(%p, %vt) : (tensor<1x8x32xf32>, tensor<1x32x16xf32>) -> tensor<1x8x16xf32>
  %out = "ug.saver"(%o) {omap = array<i64: 0, -1, -1>} : (tensor<1x8x16xf32>) -> tensor<2x8x16xf32>
  func.return %out : tensor<2x8x16xf32>
}
func.func @gqa_fused_f32(%q: tensor<2x8x16xf32>, %k: tensor<2x16x32xf32>, %v: tensor<2x32x16xf32>) -> tensor<2x8x16xf32> attributes {ug.level = "kernel"} {
  %o = "ug.custom"(%q, %k, %v) {kernel = @gqa_fused_f32_block, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x8x16xf32>, tensor<2x16x32xf32>, tensor<2x32x16xf32>) -> tensor<2x8x16xf32>
  func.return %o : tensor<2x8x16xf32>
}

// Wrong on purpose: forgets the exponential.
func.func @gqa_no_exp_f32(%q: tensor<2x8x16xf32>, %k: tensor<2x16x32xf32>, %v: tensor<2x32x16xf32>) -> tensor<2x8x16xf32> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<2x8x16xf32>, tensor<2x16x32xf32>) -> tensor<2x8x32xf32>
  %sum = "ug.sum"(%s) {dim = 2 : i64} : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %p = "ug.div"(%s, %sum) : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %o = "ug.matmul"(%p, %v) : (tensor<2x8x32xf32>, tensor<2x32x16xf32>) -> tensor<2x8x16xf32>
  func.return %o : tensor<2x8x16xf32>
}
