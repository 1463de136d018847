// nTrans (paper benchmark 6): O = rmsnorm(X + alpha * (rmsnorm(H) + X)),
// H, X, alpha (8,4096), and a small version (13 μGraph ops).
//
// Written in linalg on tensors: named ops, linalg.generic bodies, linalg.reduce
// (which drops the reduced dim; the image keeps ug.sum's unit dim) and
// zero-filled accumulators.
//
// Checked: the exact kernel graph and call site, that every kernel graph
// validates, that lift + unlift prints the input again, and that the
// kernel graph computes what the original ops compute (mirage-run: f64
// interpreter vs the upstream lowering JIT-compiled on the CPU).
// At the paper's shapes the run uses an absolute tolerance of 0.5: the
// derived one counts these f16 statistics over 4096 elements as
// ill-conditioned and would compare nothing.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-opt --mirage-lift %s -o %t.lifted
// RUN: mirage-run --compare=ntrans_small_lax0_ref,ntrans_small_lax0 %t.lifted | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --tolerance=0.5 --compare=ntrans_paper_lax0_ref,ntrans_paper_lax0 %t.lifted | FileCheck %s --check-prefix=NUM

func.func @ntrans_small(%h: tensor<8x64xf16>, %x: tensor<8x64xf16>, %alpha: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %zero = arith.constant 0.0 : f16
  %h_sq_e = tensor.empty() : tensor<8x64xf16>
  %h_sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x64xf16>) outs(%h_sq_e : tensor<8x64xf16>) {
    ^bb0(%a: f16, %o: f16):
      %m = arith.mulf %a, %a : f16
      linalg.yield %m : f16
  } -> tensor<8x64xf16>
  %h_sum_acc_e = tensor.empty() : tensor<8xf16>
  %h_sum_acc = linalg.fill ins(%zero : f16) outs(%h_sum_acc_e : tensor<8xf16>) -> tensor<8xf16>
  %h_sum = linalg.reduce ins(%h_sq : tensor<8x64xf16>) outs(%h_sum_acc : tensor<8xf16>) dimensions = [1]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %h_rms_e = tensor.empty() : tensor<8xf16>
  %h_rms = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%h_sum : tensor<8xf16>) outs(%h_rms_e : tensor<8xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 64.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<8xf16>
  %h_n_e = tensor.empty() : tensor<8x64xf16>
  %h_n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%h, %h_rms : tensor<8x64xf16>, tensor<8xf16>) outs(%h_n_e : tensor<8x64xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<8x64xf16>
  %t1_e = tensor.empty() : tensor<8x64xf16>
  %t1 = linalg.add ins(%h_n, %x : tensor<8x64xf16>, tensor<8x64xf16>) outs(%t1_e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %t2_e = tensor.empty() : tensor<8x64xf16>
  %t2 = linalg.mul ins(%alpha, %t1 : tensor<8x64xf16>, tensor<8x64xf16>) outs(%t2_e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %z_e = tensor.empty() : tensor<8x64xf16>
  %z = linalg.add ins(%x, %t2 : tensor<8x64xf16>, tensor<8x64xf16>) outs(%z_e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %z_sq_e = tensor.empty() : tensor<8x64xf16>
  %z_sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<8x64xf16>) outs(%z_sq_e : tensor<8x64xf16>) {
    ^bb0(%a: f16, %o: f16):
      %m = arith.mulf %a, %a : f16
      linalg.yield %m : f16
  } -> tensor<8x64xf16>
  %z_sum_acc_e = tensor.empty() : tensor<8xf16>
  %z_sum_acc = linalg.fill ins(%zero : f16) outs(%z_sum_acc_e : tensor<8xf16>) -> tensor<8xf16>
  %z_sum = linalg.reduce ins(%z_sq : tensor<8x64xf16>) outs(%z_sum_acc : tensor<8xf16>) dimensions = [1]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %z_rms_e = tensor.empty() : tensor<8xf16>
  %z_rms = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%z_sum : tensor<8xf16>) outs(%z_rms_e : tensor<8xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 64.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<8xf16>
  %z_n_e = tensor.empty() : tensor<8x64xf16>
  %z_n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%z, %z_rms : tensor<8x64xf16>, tensor<8xf16>) outs(%z_n_e : tensor<8x64xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<8x64xf16>
  return %z_n : tensor<8x64xf16>
}

func.func @ntrans_paper(%h: tensor<8x4096xf16>, %x: tensor<8x4096xf16>, %alpha: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %zero = arith.constant 0.0 : f16
  %h_sq_e = tensor.empty() : tensor<8x4096xf16>
  %h_sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x4096xf16>) outs(%h_sq_e : tensor<8x4096xf16>) {
    ^bb0(%a: f16, %o: f16):
      %m = arith.mulf %a, %a : f16
      linalg.yield %m : f16
  } -> tensor<8x4096xf16>
  %h_sum_acc_e = tensor.empty() : tensor<8xf16>
  %h_sum_acc = linalg.fill ins(%zero : f16) outs(%h_sum_acc_e : tensor<8xf16>) -> tensor<8xf16>
  %h_sum = linalg.reduce ins(%h_sq : tensor<8x4096xf16>) outs(%h_sum_acc : tensor<8xf16>) dimensions = [1]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %h_rms_e = tensor.empty() : tensor<8xf16>
  %h_rms = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%h_sum : tensor<8xf16>) outs(%h_rms_e : tensor<8xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 4096.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<8xf16>
  %h_n_e = tensor.empty() : tensor<8x4096xf16>
  %h_n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%h, %h_rms : tensor<8x4096xf16>, tensor<8xf16>) outs(%h_n_e : tensor<8x4096xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<8x4096xf16>
  %t1_e = tensor.empty() : tensor<8x4096xf16>
  %t1 = linalg.add ins(%h_n, %x : tensor<8x4096xf16>, tensor<8x4096xf16>) outs(%t1_e : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %t2_e = tensor.empty() : tensor<8x4096xf16>
  %t2 = linalg.mul ins(%alpha, %t1 : tensor<8x4096xf16>, tensor<8x4096xf16>) outs(%t2_e : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %z_e = tensor.empty() : tensor<8x4096xf16>
  %z = linalg.add ins(%x, %t2 : tensor<8x4096xf16>, tensor<8x4096xf16>) outs(%z_e : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %z_sq_e = tensor.empty() : tensor<8x4096xf16>
  %z_sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<8x4096xf16>) outs(%z_sq_e : tensor<8x4096xf16>) {
    ^bb0(%a: f16, %o: f16):
      %m = arith.mulf %a, %a : f16
      linalg.yield %m : f16
  } -> tensor<8x4096xf16>
  %z_sum_acc_e = tensor.empty() : tensor<8xf16>
  %z_sum_acc = linalg.fill ins(%zero : f16) outs(%z_sum_acc_e : tensor<8xf16>) -> tensor<8xf16>
  %z_sum = linalg.reduce ins(%z_sq : tensor<8x4096xf16>) outs(%z_sum_acc : tensor<8xf16>) dimensions = [1]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %z_rms_e = tensor.empty() : tensor<8xf16>
  %z_rms = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%z_sum : tensor<8xf16>) outs(%z_rms_e : tensor<8xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 4096.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<8xf16>
  %z_n_e = tensor.empty() : tensor<8x4096xf16>
  %z_n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%z, %z_rms : tensor<8x4096xf16>, tensor<8xf16>) outs(%z_n_e : tensor<8x4096xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<8x4096xf16>
  return %z_n : tensor<8x4096xf16>
}

// CHECK-LABEL: func.func @ntrans_small(
// CHECK-SAME: %[[H:[^:]+]]: tensor<8x64xf16>, %[[X:[^:]+]]: tensor<8x64xf16>, %[[ALPHA:[^:]+]]: tensor<8x64xf16>)
// CHECK: %[[R:.*]] = call @ntrans_small_lax0(%[[H]], %[[X]], %[[ALPHA]]) : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @ntrans_small_lax0(
// CHECK-SAME: %[[H:[^:]+]]: tensor<8x64xf16>, %[[X:[^:]+]]: tensor<8x64xf16>, %[[ALPHA:[^:]+]]: tensor<8x64xf16>) -> tensor<8x64xf16> attributes {ug.level = "kernel", ug.reference = @ntrans_small_lax0_ref} {
// CHECK-NEXT: %[[SQ0:.*]] = "ug.square"(%[[H]]) : (tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[SUM0:.*]] = "ug.sum"(%[[SQ0]]) {dim = 1 : i64} : (tensor<8x64xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[DIVS0:.*]] = "ug.div_scalar"(%[[SUM0]]) {scalar = 6.400000e+01 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[SQRT0:.*]] = "ug.sqrt"(%[[DIVS0]]) : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[DIV0:.*]] = "ug.div"(%[[H]], %[[SQRT0]]) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[ADD0:.*]] = "ug.add"(%[[DIV0]], %[[X]]) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[ALPHA]], %[[ADD0]]) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[ADD1:.*]] = "ug.add"(%[[X]], %[[MUL]]) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[SQ1:.*]] = "ug.square"(%[[ADD1]]) : (tensor<8x64xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: %[[SUM1:.*]] = "ug.sum"(%[[SQ1]]) {dim = 1 : i64} : (tensor<8x64xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[DIVS1:.*]] = "ug.div_scalar"(%[[SUM1]]) {scalar = 6.400000e+01 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[SQRT1:.*]] = "ug.sqrt"(%[[DIVS1]]) : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[DIV1:.*]] = "ug.div"(%[[ADD1]], %[[SQRT1]]) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16>
// CHECK-NEXT: return %[[DIV1]] : tensor<8x64xf16>
// CHECK-LABEL: func.func @ntrans_paper(
// CHECK-SAME: %[[H:[^:]+]]: tensor<8x4096xf16>, %[[X:[^:]+]]: tensor<8x4096xf16>, %[[ALPHA:[^:]+]]: tensor<8x4096xf16>)
// CHECK: %[[R:.*]] = call @ntrans_paper_lax0(%[[H]], %[[X]], %[[ALPHA]]) : (tensor<8x4096xf16>, tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @ntrans_paper_lax0(
// CHECK-SAME: %[[H:[^:]+]]: tensor<8x4096xf16>, %[[X:[^:]+]]: tensor<8x4096xf16>, %[[ALPHA:[^:]+]]: tensor<8x4096xf16>) -> tensor<8x4096xf16> attributes {ug.level = "kernel", ug.reference = @ntrans_paper_lax0_ref} {
// CHECK-NEXT: %[[SQ0:.*]] = "ug.square"(%[[H]]) : (tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[SUM0:.*]] = "ug.sum"(%[[SQ0]]) {dim = 1 : i64} : (tensor<8x4096xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[DIVS0:.*]] = "ug.div_scalar"(%[[SUM0]]) {scalar = 4.096000e+03 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[SQRT0:.*]] = "ug.sqrt"(%[[DIVS0]]) : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[DIV0:.*]] = "ug.div"(%[[H]], %[[SQRT0]]) : (tensor<8x4096xf16>, tensor<8x1xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[ADD0:.*]] = "ug.add"(%[[DIV0]], %[[X]]) : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[ALPHA]], %[[ADD0]]) : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[ADD1:.*]] = "ug.add"(%[[X]], %[[MUL]]) : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[SQ1:.*]] = "ug.square"(%[[ADD1]]) : (tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: %[[SUM1:.*]] = "ug.sum"(%[[SQ1]]) {dim = 1 : i64} : (tensor<8x4096xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[DIVS1:.*]] = "ug.div_scalar"(%[[SUM1]]) {scalar = 4.096000e+03 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[SQRT1:.*]] = "ug.sqrt"(%[[DIVS1]]) : (tensor<8x1xf16>) -> tensor<8x1xf16>
// CHECK-NEXT: %[[DIV1:.*]] = "ug.div"(%[[ADD1]], %[[SQRT1]]) : (tensor<8x4096xf16>, tensor<8x1xf16>) -> tensor<8x4096xf16>
// CHECK-NEXT: return %[[DIV1]] : tensor<8x4096xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
