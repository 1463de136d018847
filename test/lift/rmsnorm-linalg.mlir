// RMSNorm + matmul (paper benchmark 1): Y = (X / rms(X)) . W, rms over the
// last dim, no weight, no epsilon; small shapes and the paper's X(2,4096),
// W(4096,6144).
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
// RUN: mirage-run --compare=rmsnorm_small_lax0_ref,rmsnorm_small_lax0 %t.lifted | FileCheck %s --check-prefix=NUM

func.func @rmsnorm_small(%x: tensor<2x64xf16>, %w: tensor<64x96xf16>) -> tensor<2x96xf16> {
  %zero = arith.constant 0.0 : f16
  %x_sq_e = tensor.empty() : tensor<2x64xf16>
  %x_sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x64xf16>) outs(%x_sq_e : tensor<2x64xf16>) {
    ^bb0(%a: f16, %o: f16):
      %m = arith.mulf %a, %a : f16
      linalg.yield %m : f16
  } -> tensor<2x64xf16>
  %x_sum_acc_e = tensor.empty() : tensor<2xf16>
  %x_sum_acc = linalg.fill ins(%zero : f16) outs(%x_sum_acc_e : tensor<2xf16>) -> tensor<2xf16>
  %x_sum = linalg.reduce ins(%x_sq : tensor<2x64xf16>) outs(%x_sum_acc : tensor<2xf16>) dimensions = [1]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %x_rms_e = tensor.empty() : tensor<2xf16>
  %x_rms = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x_sum : tensor<2xf16>) outs(%x_rms_e : tensor<2xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 64.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<2xf16>
  %x_n_e = tensor.empty() : tensor<2x64xf16>
  %x_n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %x_rms : tensor<2x64xf16>, tensor<2xf16>) outs(%x_n_e : tensor<2x64xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<2x64xf16>
  %y_acc_e = tensor.empty() : tensor<2x96xf16>
  %y_acc = linalg.fill ins(%zero : f16) outs(%y_acc_e : tensor<2x96xf16>) -> tensor<2x96xf16>
  %y = linalg.matmul ins(%x_n, %w : tensor<2x64xf16>, tensor<64x96xf16>) outs(%y_acc : tensor<2x96xf16>) -> tensor<2x96xf16>
  return %y : tensor<2x96xf16>
}

func.func @rmsnorm_paper(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %zero = arith.constant 0.0 : f16
  %x_sq_e = tensor.empty() : tensor<2x4096xf16>
  %x_sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x4096xf16>) outs(%x_sq_e : tensor<2x4096xf16>) {
    ^bb0(%a: f16, %o: f16):
      %m = arith.mulf %a, %a : f16
      linalg.yield %m : f16
  } -> tensor<2x4096xf16>
  %x_sum_acc_e = tensor.empty() : tensor<2xf16>
  %x_sum_acc = linalg.fill ins(%zero : f16) outs(%x_sum_acc_e : tensor<2xf16>) -> tensor<2xf16>
  %x_sum = linalg.reduce ins(%x_sq : tensor<2x4096xf16>) outs(%x_sum_acc : tensor<2xf16>) dimensions = [1]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %x_rms_e = tensor.empty() : tensor<2xf16>
  %x_rms = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x_sum : tensor<2xf16>) outs(%x_rms_e : tensor<2xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 4096.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<2xf16>
  %x_n_e = tensor.empty() : tensor<2x4096xf16>
  %x_n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %x_rms : tensor<2x4096xf16>, tensor<2xf16>) outs(%x_n_e : tensor<2x4096xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<2x4096xf16>
  %y_acc_e = tensor.empty() : tensor<2x6144xf16>
  %y_acc = linalg.fill ins(%zero : f16) outs(%y_acc_e : tensor<2x6144xf16>) -> tensor<2x6144xf16>
  %y = linalg.matmul ins(%x_n, %w : tensor<2x4096xf16>, tensor<4096x6144xf16>) outs(%y_acc : tensor<2x6144xf16>) -> tensor<2x6144xf16>
  return %y : tensor<2x6144xf16>
}

// CHECK-LABEL: func.func @rmsnorm_small(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x64xf16>, %[[W:[^:]+]]: tensor<64x96xf16>)
// CHECK: %[[R:.*]] = call @rmsnorm_small_lax0(%[[X]], %[[W]]) : (tensor<2x64xf16>, tensor<64x96xf16>) -> tensor<2x96xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @rmsnorm_small_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x64xf16>, %[[W:[^:]+]]: tensor<64x96xf16>) -> tensor<2x96xf16> attributes {ug.level = "kernel", ug.reference = @rmsnorm_small_lax0_ref} {
// CHECK-NEXT: %[[SQ:.*]] = "ug.square"(%[[X]]) : (tensor<2x64xf16>) -> tensor<2x64xf16>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[SQ]]) {dim = 1 : i64} : (tensor<2x64xf16>) -> tensor<2x1xf16>
// CHECK-NEXT: %[[DIVS:.*]] = "ug.div_scalar"(%[[SUM]]) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf16>) -> tensor<2x1xf16>
// CHECK-NEXT: %[[SQRT:.*]] = "ug.sqrt"(%[[DIVS]]) : (tensor<2x1xf16>) -> tensor<2x1xf16>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[X]], %[[SQRT]]) : (tensor<2x64xf16>, tensor<2x1xf16>) -> tensor<2x64xf16>
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[DIV]], %[[W]]) : (tensor<2x64xf16>, tensor<64x96xf16>) -> tensor<2x96xf16>
// CHECK-NEXT: return %[[MM]] : tensor<2x96xf16>
// CHECK-LABEL: func.func @rmsnorm_paper(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x4096xf16>, %[[W:[^:]+]]: tensor<4096x6144xf16>)
// CHECK: %[[R:.*]] = call @rmsnorm_paper_lax0(%[[X]], %[[W]]) : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @rmsnorm_paper_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x4096xf16>, %[[W:[^:]+]]: tensor<4096x6144xf16>) -> tensor<2x6144xf16> attributes {ug.level = "kernel", ug.reference = @rmsnorm_paper_lax0_ref} {
// CHECK-NEXT: %[[SQ:.*]] = "ug.square"(%[[X]]) : (tensor<2x4096xf16>) -> tensor<2x4096xf16>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[SQ]]) {dim = 1 : i64} : (tensor<2x4096xf16>) -> tensor<2x1xf16>
// CHECK-NEXT: %[[DIVS:.*]] = "ug.div_scalar"(%[[SUM]]) {scalar = 4.096000e+03 : f64} : (tensor<2x1xf16>) -> tensor<2x1xf16>
// CHECK-NEXT: %[[SQRT:.*]] = "ug.sqrt"(%[[DIVS]]) : (tensor<2x1xf16>) -> tensor<2x1xf16>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[X]], %[[SQRT]]) : (tensor<2x4096xf16>, tensor<2x1xf16>) -> tensor<2x4096xf16>
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[DIV]], %[[W]]) : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
// CHECK-NEXT: return %[[MM]] : tensor<2x6144xf16>
// NUM-NOT: ill-conditioned
// NUM: ok
