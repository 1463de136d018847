// QKNorm attention (benchmark 3: GQA with Q ← Q/rms(Q) and V ← V/rms(V),
// rms over the last dim) at Q(2,8,16), K(2,16,32), V(2,32,16): TOSA in f16,
// linalg in f32, against unfused kernel graphs.
// RUN: mirage-run --compare=qknorm_tosa_f16,qknorm_ug_f16 %s | FileCheck %s --check-prefix=TOSA16
// RUN: mirage-run --compare=qknorm_linalg_f32,qknorm_ug_f32 %s | FileCheck %s --check-prefix=LINALG32
// RUN: not mirage-run --compare=qknorm_linalg_f32,qknorm_no_vnorm_f32 %s | FileCheck %s --check-prefix=WRONG
// The lifter on the same file: every function it lifts must agree with the
// kernel graph it produced (the hand-written kernel graphs above carry no
// ug.reference, so only the lifter's pairs are checked).
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=LIFT
// Cut into pieces of at most three ops, the later pieces start from random
// values where the program had sums of squares and softmax denominators:
// they must still agree (ill-conditioned elements are not compared).
// RUN: mirage-run --lift="max-ops=3" %s | FileCheck %s --check-prefix=LIFT3

// TOSA16: @qknorm_tosa_f16 vs @qknorm_ug_f16: 1 output, 256 elements, max abs error {{.*}}: ok
// LINALG32: @qknorm_linalg_f32 vs @qknorm_ug_f32: 1 output, 256 elements, max abs error {{[0-9.]+}}e-{{0[6-9]|1[0-9]}} (tolerance {{.*}}): ok
// WRONG: @qknorm_linalg_f32 vs @qknorm_no_vnorm_f32: MISMATCH at output 0 element 0: jit

// LIFT-DAG: @qknorm_tosa_f16_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-DAG: @qknorm_linalg_f32_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-NOT: MISMATCH
// LIFT3: @qknorm_tosa_f16_lax4: {{.*}}: ok
// LIFT3: @qknorm_linalg_f32_lax{{[0-9]+}}: {{.*}}: ok
// LIFT3-NOT: MISMATCH

//===----------------------------------------------------------------------===//
// f16, TOSA
//===----------------------------------------------------------------------===//

func.func @qknorm_tosa_f16(%q: tensor<2x8x16xf16>, %k: tensor<2x16x32xf16>, %v: tensor<2x32x16xf16>) -> tensor<2x8x16xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_n = "tosa.const"() <{values = dense<6.250000e-02> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %q2 = tosa.mul %q, %q, %shift : (tensor<2x8x16xf16>, tensor<2x8x16xf16>, tensor<1xi8>) -> tensor<2x8x16xf16>
  %qs = tosa.reduce_sum %q2 {axis = 2 : i32} : (tensor<2x8x16xf16>) -> tensor<2x8x1xf16>
  %qm = tosa.mul %qs, %inv_n, %shift : (tensor<2x8x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x8x1xf16>
  %qr = tosa.rsqrt %qm : (tensor<2x8x1xf16>) -> tensor<2x8x1xf16>
  %qn = tosa.mul %q, %qr, %shift : (tensor<2x8x16xf16>, tensor<2x8x1xf16>, tensor<1xi8>) -> tensor<2x8x16xf16>
  %v2 = tosa.mul %v, %v, %shift : (tensor<2x32x16xf16>, tensor<2x32x16xf16>, tensor<1xi8>) -> tensor<2x32x16xf16>
  %vs = tosa.reduce_sum %v2 {axis = 2 : i32} : (tensor<2x32x16xf16>) -> tensor<2x32x1xf16>
  %vm = tosa.mul %vs, %inv_n, %shift : (tensor<2x32x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x32x1xf16>
  %vr = tosa.rsqrt %vm : (tensor<2x32x1xf16>) -> tensor<2x32x1xf16>
  %vn = tosa.mul %v, %vr, %shift : (tensor<2x32x16xf16>, tensor<2x32x1xf16>, tensor<1xi8>) -> tensor<2x32x16xf16>
  %s = tosa.matmul %qn, %k, %zp, %zp : (tensor<2x8x16xf16>, tensor<2x16x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x8x32xf16>
  %e = tosa.exp %s : (tensor<2x8x32xf16>) -> tensor<2x8x32xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x8x32xf16>) -> tensor<2x8x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<2x8x1xf16>) -> tensor<2x8x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x8x32xf16>, tensor<2x8x1xf16>, tensor<1xi8>) -> tensor<2x8x32xf16>
  %o = tosa.matmul %p, %vn, %zp, %zp : (tensor<2x8x32xf16>, tensor<2x32x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x8x16xf16>
  return %o : tensor<2x8x16xf16>
}

func.func @qknorm_ug_f16(%q: tensor<2x8x16xf16>, %k: tensor<2x16x32xf16>, %v: tensor<2x32x16xf16>) -> tensor<2x8x16xf16> attributes {ug.level = "kernel"} {
  %q2 = "ug.square"(%q) : (tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  %qs = "ug.sum"(%q2) {dim = 2 : i64} : (tensor<2x8x16xf16>) -> tensor<2x8x1xf16>
  %qm = "ug.div_scalar"(%qs) {scalar = 1.600000e+01 : f64} : (tensor<2x8x1xf16>) -> tensor<2x8x1xf16>
  %qr = "ug.sqrt"(%qm) : (tensor<2x8x1xf16>) -> tensor<2x8x1xf16>
  %qn = "ug.div"(%q, %qr) : (tensor<2x8x16xf16>, tensor<2x8x1xf16>) -> tensor<2x8x16xf16>
  %v2 = "ug.square"(%v) : (tensor<2x32x16xf16>) -> tensor<2x32x16xf16>
  %vs = "ug.sum"(%v2) {dim = 2 : i64} : (tensor<2x32x16xf16>) -> tensor<2x32x1xf16>
  %vm = "ug.div_scalar"(%vs) {scalar = 1.600000e+01 : f64} : (tensor<2x32x1xf16>) -> tensor<2x32x1xf16>
  %vr = "ug.sqrt"(%vm) : (tensor<2x32x1xf16>) -> tensor<2x32x1xf16>
  %vn = "ug.div"(%v, %vr) : (tensor<2x32x16xf16>, tensor<2x32x1xf16>) -> tensor<2x32x16xf16>
  %s = "ug.matmul"(%qn, %k) : (tensor<2x8x16xf16>, tensor<2x16x32xf16>) -> tensor<2x8x32xf16>
  %e = "ug.exp"(%s) : (tensor<2x8x32xf16>) -> tensor<2x8x32xf16>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<2x8x32xf16>) -> tensor<2x8x1xf16>
  %p = "ug.div"(%e, %sum) : (tensor<2x8x32xf16>, tensor<2x8x1xf16>) -> tensor<2x8x32xf16>
  %o = "ug.matmul"(%p, %vn) : (tensor<2x8x32xf16>, tensor<2x32x16xf16>) -> tensor<2x8x16xf16>
  func.return %o : tensor<2x8x16xf16>
}

//===----------------------------------------------------------------------===//
// f32, linalg on tensors
//===----------------------------------------------------------------------===//

// X / sqrt(mean(X², last dim)) for a 2x?x16 tensor, as a callee: exercises
// copying called functions into the JIT module.
func.func private @rms_normalize_rows(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 16.0 : f32
  %e1 = tensor.empty() : tensor<2x8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x8x16xf32>) outs(%z1 : tensor<2x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x8x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %ss : tensor<2x8x16xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %r = math.sqrt %m : f32
    %d = arith.divf %a, %r : f32
    linalg.yield %d : f32
  } -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

func.func @qknorm_linalg_f32(%q: tensor<2x8x16xf32>, %k: tensor<2x16x32xf32>, %v: tensor<2x32x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qn = func.call @rms_normalize_rows(%q) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  // V (2x32x16) goes through the same callee in four 2x8x16 pieces: this
  // exercises calls, reshapes, slices and concat in the JIT lowering.
  %v3 = tensor.collapse_shape %v [[0, 1], [2]] : tensor<2x32x16xf32> into tensor<64x16xf32>
  %v4 = tensor.expand_shape %v3 [[0, 1], [2]] output_shape [8, 8, 16] : tensor<64x16xf32> into tensor<8x8x16xf32>
  %v5 = tensor.extract_slice %v4[0, 0, 0] [2, 8, 16] [1, 1, 1] : tensor<8x8x16xf32> to tensor<2x8x16xf32>
  %v6 = tensor.extract_slice %v4[2, 0, 0] [2, 8, 16] [1, 1, 1] : tensor<8x8x16xf32> to tensor<2x8x16xf32>
  %v7 = tensor.extract_slice %v4[4, 0, 0] [2, 8, 16] [1, 1, 1] : tensor<8x8x16xf32> to tensor<2x8x16xf32>
  %v8 = tensor.extract_slice %v4[6, 0, 0] [2, 8, 16] [1, 1, 1] : tensor<8x8x16xf32> to tensor<2x8x16xf32>
  %n5 = func.call @rms_normalize_rows(%v5) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %n6 = func.call @rms_normalize_rows(%v6) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %n7 = func.call @rms_normalize_rows(%v7) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %n8 = func.call @rms_normalize_rows(%v8) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %cat = tensor.concat dim(0) %n5, %n6, %n7, %n8 : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<8x8x16xf32>
  %c3 = tensor.collapse_shape %cat [[0, 1], [2]] : tensor<8x8x16xf32> into tensor<64x16xf32>
  %vn = tensor.expand_shape %c3 [[0, 1], [2]] output_shape [2, 32, 16] : tensor<64x16xf32> into tensor<2x32x16xf32>
  %e0 = tensor.empty() : tensor<2x8x32xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %s = linalg.batch_matmul ins(%qn, %k : tensor<2x8x16xf32>, tensor<2x16x32xf32>) outs(%z0 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %e = linalg.exp ins(%s : tensor<2x8x32xf32>) outs(%e0 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %e1 = tensor.empty() : tensor<2x8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %sum = linalg.reduce ins(%e : tensor<2x8x32xf32>) outs(%z1 : tensor<2x8xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  %sumb = linalg.broadcast ins(%sum : tensor<2x8xf32>) outs(%e0 : tensor<2x8x32xf32>) dimensions = [2]
  %p = linalg.div ins(%e, %sumb : tensor<2x8x32xf32>, tensor<2x8x32xf32>) outs(%e0 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %e2 = tensor.empty() : tensor<2x8x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %vn : tensor<2x8x32xf32>, tensor<2x32x16xf32>) outs(%z2 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

func.func @qknorm_ug_f32(%q: tensor<2x8x16xf32>, %k: tensor<2x16x32xf32>, %v: tensor<2x32x16xf32>) -> tensor<2x8x16xf32> attributes {ug.level = "kernel"} {
  %q2 = "ug.square"(%q) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %qs = "ug.sum"(%q2) {dim = 2 : i64} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
  %qm = "ug.div_scalar"(%qs) {scalar = 1.600000e+01 : f64} : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %qr = "ug.sqrt"(%qm) : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %qn = "ug.div"(%q, %qr) : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
  %v2 = "ug.square"(%v) : (tensor<2x32x16xf32>) -> tensor<2x32x16xf32>
  %vs = "ug.sum"(%v2) {dim = 2 : i64} : (tensor<2x32x16xf32>) -> tensor<2x32x1xf32>
  %vm = "ug.div_scalar"(%vs) {scalar = 1.600000e+01 : f64} : (tensor<2x32x1xf32>) -> tensor<2x32x1xf32>
  %vr = "ug.sqrt"(%vm) : (tensor<2x32x1xf32>) -> tensor<2x32x1xf32>
  %vn = "ug.div"(%v, %vr) : (tensor<2x32x16xf32>, tensor<2x32x1xf32>) -> tensor<2x32x16xf32>
  %s = "ug.matmul"(%qn, %k) : (tensor<2x8x16xf32>, tensor<2x16x32xf32>) -> tensor<2x8x32xf32>
  %e = "ug.exp"(%s) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %p = "ug.div"(%e, %sum) : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %o = "ug.matmul"(%p, %vn) : (tensor<2x8x32xf32>, tensor<2x32x16xf32>) -> tensor<2x8x16xf32>
  func.return %o : tensor<2x8x16xf32>
}

// Wrong on purpose: normalizes Q but not V.
func.func @qknorm_no_vnorm_f32(%q: tensor<2x8x16xf32>, %k: tensor<2x16x32xf32>, %v: tensor<2x32x16xf32>) -> tensor<2x8x16xf32> attributes {ug.level = "kernel"} {
  %q2 = "ug.square"(%q) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %qs = "ug.sum"(%q2) {dim = 2 : i64} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
  %qm = "ug.div_scalar"(%qs) {scalar = 1.600000e+01 : f64} : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %qr = "ug.sqrt"(%qm) : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %qn = "ug.div"(%q, %qr) : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
  %s = "ug.matmul"(%qn, %k) : (tensor<2x8x16xf32>, tensor<2x16x32xf32>) -> tensor<2x8x32xf32>
  %e = "ug.exp"(%s) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %p = "ug.div"(%e, %sum) : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %o = "ug.matmul"(%p, %v) : (tensor<2x8x32xf32>, tensor<2x32x16xf32>) -> tensor<2x8x16xf32>
  func.return %o : tensor<2x8x16xf32>
}
