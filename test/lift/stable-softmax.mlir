// The numerically stable softmax, exp(x - max x) / Σ exp(x - max x) over
// the last dim, as frontends write it, at a GQA score shape (2 x 256
// queries x 4096 keys) in f16. Each function lifts to exactly ONE
// subprogram (@F_lax0, nothing left in place) whose kernel graph is
// ug.reduce_max, sub, exp, sum, div:
//  - @softmax_tosa: torch-mlir's TOSA for `softmax(x.float(), -1).half()`
//    (tosa.cast f16 -> f32 around it, e times the reciprocal of Σ e);
//  - @softmax_linalg: torch-mlir's linalg: extf to f32, a keepdim max
//    generic (output map (d0, d1, 0)) from a -inf fill, broadcast generics,
//    truncf in the division;
//  - @softmax_jax: JAX after StableHLO -> linalg: linalg.reduce with
//    arith.maxnumf from the lowest finite f16 (-65504), tensor.expand_shape,
//    the sum accumulated in f32 (extf in the reduce body).
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// The numbers at the GQA shape (about 3 s per run): in [-8, 8] an unstable
// f16 softmax overflows (Σ exp over 4096 keys passes 65504); the stable one
// is finite and agrees with the interpreter, every element compared.
// RUN: mirage-run --lift --range=1 %s | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --lift --range=8 %s | FileCheck %s --check-prefix=VAL
//
// REM: '@softmax_tosa': lifted 1 subprogram (@softmax_tosa_lax0); 0 tensor ops left in place
// REM: @softmax_tosa_lax0: 8 ops -> kernel graph of 5 μGraph ops, 1 input, 1 output
// REM: '@softmax_linalg': lifted 1 subprogram (@softmax_linalg_lax0); 0 tensor ops left in place
// REM: @softmax_linalg_lax0: 5 ops -> kernel graph of 5 μGraph ops, 1 input, 1 output
// REM: '@softmax_jax': lifted 1 subprogram (@softmax_jax_lax0); 0 tensor ops left in place
// REM: @softmax_jax_lax0: 7 ops -> kernel graph of 5 μGraph ops, 1 input, 1 output
// REM: module: 20 of 20 tensor ops lifted (100.0 %) into 3 subprograms, 5.0 μGraph ops each on average; 0 left in place{{$}}
//
// VAL: @softmax_tosa_lax0: 1 output, 2097152 elements, max abs error {{.*}}: ok
// VAL-NEXT: @softmax_linalg_lax0: 1 output, 2097152 elements, max abs error {{.*}}: ok
// VAL-NEXT: @softmax_jax_lax0: 1 output, 2097152 elements, max abs error {{.*}}: ok
// VAL-NOT: {{MISMATCH|OVERFLOW|ill-conditioned|nan|inf}}

func.func @softmax_tosa(%x: tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16> {
  %0 = tosa.cast %x : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf32>
  %1 = tosa.reduce_max %0 {axis = 2 : i32} : (tensor<2x256x4096xf32>) -> tensor<2x256x1xf32>
  %2 = tosa.sub %0, %1 : (tensor<2x256x4096xf32>, tensor<2x256x1xf32>) -> tensor<2x256x4096xf32>
  %3 = tosa.exp %2 : (tensor<2x256x4096xf32>) -> tensor<2x256x4096xf32>
  %4 = tosa.reduce_sum %3 {axis = 2 : i32} : (tensor<2x256x4096xf32>) -> tensor<2x256x1xf32>
  %5 = tosa.reciprocal %4 : (tensor<2x256x1xf32>) -> tensor<2x256x1xf32>
  %6 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %7 = tosa.mul %3, %5, %6 : (tensor<2x256x4096xf32>, tensor<2x256x1xf32>, tensor<1xi8>) -> tensor<2x256x4096xf32>
  %8 = tosa.cast %7 : (tensor<2x256x4096xf32>) -> tensor<2x256x4096xf16>
  return %8 : tensor<2x256x4096xf16>
}

func.func @softmax_linalg(%arg0: tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16> {
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x256x4096xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x256x4096xf16>) outs(%0 : tensor<2x256x4096xf32>) {
  ^bb0(%in: f16, %out: f32):
    %12 = arith.extf %in : f16 to f32
    linalg.yield %12 : f32
  } -> tensor<2x256x4096xf32>
  %2 = tensor.empty() : tensor<2x256x1xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x256x1xf32>) -> tensor<2x256x1xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%1 : tensor<2x256x4096xf32>) outs(%3 : tensor<2x256x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.maximumf %in, %out : f32
    linalg.yield %12 : f32
  } -> tensor<2x256x1xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %4 : tensor<2x256x4096xf32>, tensor<2x256x1xf32>) outs(%0 : tensor<2x256x4096xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %12 = arith.subf %in, %in_1 : f32
    %13 = math.exp %12 : f32
    linalg.yield %13 : f32
  } -> tensor<2x256x4096xf32>
  %6 = linalg.fill ins(%cst_0 : f32) outs(%2 : tensor<2x256x1xf32>) -> tensor<2x256x1xf32>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%5 : tensor<2x256x4096xf32>) outs(%6 : tensor<2x256x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.addf %in, %out : f32
    linalg.yield %12 : f32
  } -> tensor<2x256x1xf32>
  %8 = tensor.empty() : tensor<2x256x4096xf16>
  %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %7 : tensor<2x256x4096xf32>, tensor<2x256x1xf32>) outs(%8 : tensor<2x256x4096xf16>) {
  ^bb0(%in: f32, %in_1: f32, %out: f16):
    %12 = arith.divf %in, %in_1 : f32
    %13 = arith.truncf %12 : f32 to f16
    linalg.yield %13 : f16
  } -> tensor<2x256x4096xf16>
  return %9 : tensor<2x256x4096xf16>
}

func.func @softmax_jax(%arg0: tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16> {
  %lowest = arith.constant -6.550400e+04 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<2x256xf16>
  %f1 = linalg.fill ins(%lowest : f16) outs(%e1 : tensor<2x256xf16>) -> tensor<2x256xf16>
  %max = linalg.reduce ins(%arg0 : tensor<2x256x4096xf16>) outs(%f1 : tensor<2x256xf16>) dimensions = [2]
    (%in: f16, %init: f16) {
      %m = arith.maxnumf %in, %init : f16
      linalg.yield %m : f16
    }
  %m3 = tensor.expand_shape %max [[0], [1, 2]] output_shape [2, 256, 1] : tensor<2x256xf16> into tensor<2x256x1xf16>
  %e3 = tensor.empty() : tensor<2x256x4096xf16>
  %sub = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %m3 : tensor<2x256x4096xf16>, tensor<2x256x1xf16>) outs(%e3 : tensor<2x256x4096xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %r = arith.subf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<2x256x4096xf16>
  %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sub : tensor<2x256x4096xf16>) outs(%e3 : tensor<2x256x4096xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = math.exp %a : f16
    linalg.yield %r : f16
  } -> tensor<2x256x4096xf16>
  %es = tensor.empty() : tensor<2x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%es : tensor<2x256xf32>) -> tensor<2x256xf32>
  %sum = linalg.reduce ins(%exp : tensor<2x256x4096xf16>) outs(%f0 : tensor<2x256xf32>) dimensions = [2]
    (%in: f16, %init: f32) {
      %w = arith.extf %in : f16 to f32
      %s = arith.addf %w, %init : f32
      linalg.yield %s : f32
    }
  %s3 = tensor.expand_shape %sum [[0], [1, 2]] output_shape [2, 256, 1] : tensor<2x256xf32> into tensor<2x256x1xf32>
  %div = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%exp, %s3 : tensor<2x256x4096xf16>, tensor<2x256x1xf32>) outs(%e3 : tensor<2x256x4096xf16>) {
  ^bb0(%a: f16, %b: f32, %o: f16):
    %w = arith.extf %a : f16 to f32
    %q = arith.divf %w, %b : f32
    %r = arith.truncf %q : f32 to f16
    linalg.yield %r : f16
  } -> tensor<2x256x4096xf16>
  return %div : tensor<2x256x4096xf16>
}

// CHECK-LABEL: func.func @softmax_tosa(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x256x4096xf16>)
// CHECK: call @softmax_tosa_lax0(%[[X]]) : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-LABEL: func.func private @softmax_tosa_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16> attributes {ug.level = "kernel", ug.reference = @softmax_tosa_lax0_ref} {
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[X]]) {dim = 2 : i64} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf32>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[X]], %[[MAX]]) : (tensor<2x256x4096xf16>, tensor<2x256x1xf32>) -> tensor<2x256x4096xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[SUB]]) : (tensor<2x256x4096xf32>) -> tensor<2x256x4096xf32>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x256x4096xf32>) -> tensor<2x256x1xf32>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]]) : (tensor<2x256x4096xf32>, tensor<2x256x1xf32>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: return %[[DIV]] : tensor<2x256x4096xf16>
// CHECK-LABEL: func.func @softmax_linalg(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x256x4096xf16>)
// CHECK: call @softmax_linalg_lax0(%[[X]]) : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-LABEL: func.func private @softmax_linalg_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16> attributes {ug.level = "kernel", ug.reference = @softmax_linalg_lax0_ref} {
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[X]]) {dim = 2 : i64} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf32>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[X]], %[[MAX]]) : (tensor<2x256x4096xf16>, tensor<2x256x1xf32>) -> tensor<2x256x4096xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[SUB]]) : (tensor<2x256x4096xf32>) -> tensor<2x256x4096xf32>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x256x4096xf32>) -> tensor<2x256x1xf32>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]]) : (tensor<2x256x4096xf32>, tensor<2x256x1xf32>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: return %[[DIV]] : tensor<2x256x4096xf16>
// CHECK-LABEL: func.func @softmax_jax(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x256x4096xf16>)
// CHECK: call @softmax_jax_lax0(%[[X]]) : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-LABEL: func.func private @softmax_jax_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16> attributes {ug.level = "kernel", ug.reference = @softmax_jax_lax0_ref} {
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[X]]) {dim = 2 : i64} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf16>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[X]], %[[MAX]]) : (tensor<2x256x4096xf16>, tensor<2x256x1xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[SUB]]) : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf32>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]]) : (tensor<2x256x4096xf16>, tensor<2x256x1xf32>) -> tensor<2x256x4096xf16>
// CHECK-NEXT: return %[[DIV]] : tensor<2x256x4096xf16>
