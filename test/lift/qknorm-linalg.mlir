// QKNorm attention (paper benchmark 3): GQA with Q <- Q/rms(Q) and
// V <- V/rms(V) over the last dim; small and paper shapes. The whole
// program (15 μGraph ops) stays one kernel graph under the default bound.
//
// Written in linalg on tensors: named ops, linalg.generic bodies, linalg.reduce
// (which drops the reduced dim; the image keeps ug.sum's unit dim) and
// zero-filled accumulators.
//
// Checked: the exact kernel graph and call site, that every kernel graph
// validates, that lift + unlift prints the input again, and that the
// kernel graph computes what the original ops compute (mirage-run: f64
// interpreter vs the upstream lowering JIT-compiled on the CPU).
// At the paper's shapes the numbers were checked by hand (mirage-run takes
// seconds to minutes there, too slow for the suite; GQA and QKNorm need
// --range=0.25 so that exp sums stay finite in f16).
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-opt --mirage-lift %s -o %t.lifted
// RUN: mirage-run --compare=qknorm_small_lax0_ref,qknorm_small_lax0 %t.lifted | FileCheck %s --check-prefix=NUM

func.func @qknorm_small(%q: tensor<2x4x8xf16>, %k: tensor<2x8x16xf16>, %v: tensor<2x16x8xf16>) -> tensor<2x4x8xf16> {
  %zero = arith.constant 0.0 : f16
  %q_sq_e = tensor.empty() : tensor<2x4x8xf16>
  %q_sq = linalg.square ins(%q : tensor<2x4x8xf16>) outs(%q_sq_e : tensor<2x4x8xf16>) -> tensor<2x4x8xf16>
  %q_sum_acc_e = tensor.empty() : tensor<2x4xf16>
  %q_sum_acc = linalg.fill ins(%zero : f16) outs(%q_sum_acc_e : tensor<2x4xf16>) -> tensor<2x4xf16>
  %q_sum = linalg.reduce ins(%q_sq : tensor<2x4x8xf16>) outs(%q_sum_acc : tensor<2x4xf16>) dimensions = [2]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %q_rms_e = tensor.empty() : tensor<2x4xf16>
  %q_rms = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q_sum : tensor<2x4xf16>) outs(%q_rms_e : tensor<2x4xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 8.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<2x4xf16>
  %q_n_e = tensor.empty() : tensor<2x4x8xf16>
  %q_n = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %q_rms : tensor<2x4x8xf16>, tensor<2x4xf16>) outs(%q_n_e : tensor<2x4x8xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<2x4x8xf16>
  %v_sq_e = tensor.empty() : tensor<2x16x8xf16>
  %v_sq = linalg.square ins(%v : tensor<2x16x8xf16>) outs(%v_sq_e : tensor<2x16x8xf16>) -> tensor<2x16x8xf16>
  %v_sum_acc_e = tensor.empty() : tensor<2x16xf16>
  %v_sum_acc = linalg.fill ins(%zero : f16) outs(%v_sum_acc_e : tensor<2x16xf16>) -> tensor<2x16xf16>
  %v_sum = linalg.reduce ins(%v_sq : tensor<2x16x8xf16>) outs(%v_sum_acc : tensor<2x16xf16>) dimensions = [2]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %v_rms_e = tensor.empty() : tensor<2x16xf16>
  %v_rms = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%v_sum : tensor<2x16xf16>) outs(%v_rms_e : tensor<2x16xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 8.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<2x16xf16>
  %v_n_e = tensor.empty() : tensor<2x16x8xf16>
  %v_n = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v, %v_rms : tensor<2x16x8xf16>, tensor<2x16xf16>) outs(%v_n_e : tensor<2x16x8xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<2x16x8xf16>
  %qk_acc_e = tensor.empty() : tensor<2x4x16xf16>
  %qk_acc = linalg.fill ins(%zero : f16) outs(%qk_acc_e : tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %qk = linalg.batch_matmul ins(%q_n, %k : tensor<2x4x8xf16>, tensor<2x8x16xf16>) outs(%qk_acc : tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %e_e = tensor.empty() : tensor<2x4x16xf16>
  %e = linalg.exp ins(%qk : tensor<2x4x16xf16>) outs(%e_e : tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %sum_acc_e = tensor.empty() : tensor<2x4xf16>
  %sum_acc = linalg.fill ins(%zero : f16) outs(%sum_acc_e : tensor<2x4xf16>) -> tensor<2x4xf16>
  %sum = linalg.reduce ins(%e : tensor<2x4x16xf16>) outs(%sum_acc : tensor<2x4xf16>) dimensions = [2]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %p_e = tensor.empty() : tensor<2x4x16xf16>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x4x16xf16>, tensor<2x4xf16>) outs(%p_e : tensor<2x4x16xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<2x4x16xf16>
  %o_acc_e = tensor.empty() : tensor<2x4x8xf16>
  %o_acc = linalg.fill ins(%zero : f16) outs(%o_acc_e : tensor<2x4x8xf16>) -> tensor<2x4x8xf16>
  %o = linalg.batch_matmul ins(%p, %v_n : tensor<2x4x16xf16>, tensor<2x16x8xf16>) outs(%o_acc : tensor<2x4x8xf16>) -> tensor<2x4x8xf16>
  return %o : tensor<2x4x8xf16>
}

func.func @qknorm_paper(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %zero = arith.constant 0.0 : f16
  %q_sq_e = tensor.empty() : tensor<2x256x64xf16>
  %q_sq = linalg.square ins(%q : tensor<2x256x64xf16>) outs(%q_sq_e : tensor<2x256x64xf16>) -> tensor<2x256x64xf16>
  %q_sum_acc_e = tensor.empty() : tensor<2x256xf16>
  %q_sum_acc = linalg.fill ins(%zero : f16) outs(%q_sum_acc_e : tensor<2x256xf16>) -> tensor<2x256xf16>
  %q_sum = linalg.reduce ins(%q_sq : tensor<2x256x64xf16>) outs(%q_sum_acc : tensor<2x256xf16>) dimensions = [2]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %q_rms_e = tensor.empty() : tensor<2x256xf16>
  %q_rms = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q_sum : tensor<2x256xf16>) outs(%q_rms_e : tensor<2x256xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 64.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<2x256xf16>
  %q_n_e = tensor.empty() : tensor<2x256x64xf16>
  %q_n = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %q_rms : tensor<2x256x64xf16>, tensor<2x256xf16>) outs(%q_n_e : tensor<2x256x64xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<2x256x64xf16>
  %v_sq_e = tensor.empty() : tensor<2x4096x64xf16>
  %v_sq = linalg.square ins(%v : tensor<2x4096x64xf16>) outs(%v_sq_e : tensor<2x4096x64xf16>) -> tensor<2x4096x64xf16>
  %v_sum_acc_e = tensor.empty() : tensor<2x4096xf16>
  %v_sum_acc = linalg.fill ins(%zero : f16) outs(%v_sum_acc_e : tensor<2x4096xf16>) -> tensor<2x4096xf16>
  %v_sum = linalg.reduce ins(%v_sq : tensor<2x4096x64xf16>) outs(%v_sum_acc : tensor<2x4096xf16>) dimensions = [2]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %v_rms_e = tensor.empty() : tensor<2x4096xf16>
  %v_rms = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%v_sum : tensor<2x4096xf16>) outs(%v_rms_e : tensor<2x4096xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 64.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<2x4096xf16>
  %v_n_e = tensor.empty() : tensor<2x4096x64xf16>
  %v_n = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v, %v_rms : tensor<2x4096x64xf16>, tensor<2x4096xf16>) outs(%v_n_e : tensor<2x4096x64xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<2x4096x64xf16>
  %qk_acc_e = tensor.empty() : tensor<2x256x4096xf16>
  %qk_acc = linalg.fill ins(%zero : f16) outs(%qk_acc_e : tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
  %qk = linalg.batch_matmul ins(%q_n, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>) outs(%qk_acc : tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
  %e_e = tensor.empty() : tensor<2x256x4096xf16>
  %e = linalg.exp ins(%qk : tensor<2x256x4096xf16>) outs(%e_e : tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
  %sum_acc_e = tensor.empty() : tensor<2x256xf16>
  %sum_acc = linalg.fill ins(%zero : f16) outs(%sum_acc_e : tensor<2x256xf16>) -> tensor<2x256xf16>
  %sum = linalg.reduce ins(%e : tensor<2x256x4096xf16>) outs(%sum_acc : tensor<2x256xf16>) dimensions = [2]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %p_e = tensor.empty() : tensor<2x256x4096xf16>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x256x4096xf16>, tensor<2x256xf16>) outs(%p_e : tensor<2x256x4096xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<2x256x4096xf16>
  %o_acc_e = tensor.empty() : tensor<2x256x64xf16>
  %o_acc = linalg.fill ins(%zero : f16) outs(%o_acc_e : tensor<2x256x64xf16>) -> tensor<2x256x64xf16>
  %o = linalg.batch_matmul ins(%p, %v_n : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>) outs(%o_acc : tensor<2x256x64xf16>) -> tensor<2x256x64xf16>
  return %o : tensor<2x256x64xf16>
}

// CHECK-LABEL: func.func @qknorm_small(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x8xf16>, %[[K:[^:]+]]: tensor<2x8x16xf16>, %[[V:[^:]+]]: tensor<2x16x8xf16>)
// CHECK: %[[R:.*]] = call @qknorm_small_lax0(%[[Q]], %[[K]], %[[V]]) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @qknorm_small_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x8xf16>, %[[K:[^:]+]]: tensor<2x8x16xf16>, %[[V:[^:]+]]: tensor<2x16x8xf16>) -> tensor<2x4x8xf16> attributes {ug.level = "kernel", ug.reference = @qknorm_small_lax0_ref} {
// CHECK-NEXT: %[[SQ0:.*]] = "ug.square"(%[[Q]]) : (tensor<2x4x8xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT: %[[SUM0:.*]] = "ug.sum"(%[[SQ0]]) {dim = 2 : i64} : (tensor<2x4x8xf16>) -> tensor<2x4x1xf16>
// CHECK-NEXT: %[[DIVS0:.*]] = "ug.div_scalar"(%[[SUM0]]) {scalar = 8.000000e+00 : f64} : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
// CHECK-NEXT: %[[SQRT0:.*]] = "ug.sqrt"(%[[DIVS0]]) : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
// CHECK-NEXT: %[[DIV0:.*]] = "ug.div"(%[[Q]], %[[SQRT0]]) : (tensor<2x4x8xf16>, tensor<2x4x1xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT: %[[SQ1:.*]] = "ug.square"(%[[V]]) : (tensor<2x16x8xf16>) -> tensor<2x16x8xf16>
// CHECK-NEXT: %[[SUM1:.*]] = "ug.sum"(%[[SQ1]]) {dim = 2 : i64} : (tensor<2x16x8xf16>) -> tensor<2x16x1xf16>
// CHECK-NEXT: %[[DIVS1:.*]] = "ug.div_scalar"(%[[SUM1]]) {scalar = 8.000000e+00 : f64} : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
// CHECK-NEXT: %[[SQRT1:.*]] = "ug.sqrt"(%[[DIVS1]]) : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
// CHECK-NEXT: %[[DIV1:.*]] = "ug.div"(%[[V]], %[[SQRT1]]) : (tensor<2x16x8xf16>, tensor<2x16x1xf16>) -> tensor<2x16x8xf16>
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[DIV0]], %[[K]]) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>) -> tensor<2x4x16xf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MM0]]) : (tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
// CHECK-NEXT: %[[SUM2:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x4x16xf16>) -> tensor<2x4x1xf16>
// CHECK-NEXT: %[[DIV2:.*]] = "ug.div"(%[[EXP]], %[[SUM2]]) : (tensor<2x4x16xf16>, tensor<2x4x1xf16>) -> tensor<2x4x16xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[DIV2]], %[[DIV1]]) : (tensor<2x4x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT: return %[[MM1]] : tensor<2x4x8xf16>
// CHECK-LABEL: func.func @qknorm_paper(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x256x64xf16>, %[[K:[^:]+]]: tensor<2x64x4096xf16>, %[[V:[^:]+]]: tensor<2x4096x64xf16>)
// CHECK: %[[R:.*]] = call @qknorm_paper_lax0(%[[Q]], %[[K]], %[[V]]) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @qknorm_paper_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x256x64xf16>, %[[K:[^:]+]]: tensor<2x64x4096xf16>, %[[V:[^:]+]]: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> attributes {ug.level = "kernel", ug.reference = @qknorm_paper_lax0_ref} {
// CHECK-NEXT: %[[SQ0:.*]] = "ug.square"(%[[Q]]) : (tensor<2x256x64xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: %[[SUM0:.*]] = "ug.sum"(%[[SQ0]]) {dim = 2 : i64} : (tensor<2x256x64xf16>) -> tensor<2x256x1xf16>
// CHECK-NEXT: %[[DIVS0:.*]] = "ug.div_scalar"(%[[SUM0]]) {scalar = 6.400000e+01 : f64} : (tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
// CHECK-NEXT: %[[SQRT0:.*]] = "ug.sqrt"(%[[DIVS0]]) : (tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
// CHECK-NEXT: %[[DIV0:.*]] = "ug.div"(%[[Q]], %[[SQRT0]]) : (tensor<2x256x64xf16>, tensor<2x256x1xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: %[[SQ1:.*]] = "ug.square"(%[[V]]) : (tensor<2x4096x64xf16>) -> tensor<2x4096x64xf16>
// CHECK-NEXT: %[[SUM1:.*]] = "ug.sum"(%[[SQ1]]) {dim = 2 : i64} : (tensor<2x4096x64xf16>) -> tensor<2x4096x1xf16>
// CHECK-NEXT: %[[DIVS1:.*]] = "ug.div_scalar"(%[[SUM1]]) {scalar = 6.400000e+01 : f64} : (tensor<2x4096x1xf16>) -> tensor<2x4096x1xf16>
// CHECK-NEXT: %[[SQRT1:.*]] = "ug.sqrt"(%[[DIVS1]]) : (tensor<2x4096x1xf16>) -> tensor<2x4096x1xf16>
// CHECK-NEXT: %[[DIV1:.*]] = "ug.div"(%[[V]], %[[SQRT1]]) : (tensor<2x4096x64xf16>, tensor<2x4096x1xf16>) -> tensor<2x4096x64xf16>
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[DIV0]], %[[K]]) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MM0]]) : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[SUM2:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf16>
// CHECK-NEXT: %[[DIV2:.*]] = "ug.div"(%[[EXP]], %[[SUM2]]) : (tensor<2x256x4096xf16>, tensor<2x256x1xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[DIV2]], %[[DIV1]]) : (tensor<2x256x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
// CHECK-NEXT: return %[[MM1]] : tensor<2x256x64xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
