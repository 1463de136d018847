// Element-wise maxima and max reductions outside softmax: tosa.maximum of
// two computed tensors, linalg.max, a linalg.generic with arith.maxnumf
// (broadcast operand), max reductions from the lowest finite f32 (absorbed)
// and from 0 (max(reduce_max x, 0): relu), a bf16 tosa.reduce_max.
// max(x, 0) stays relu and is cut with lift-relu=false, where every other
// maximum still lifts. max(x, -inf) is x (NaN included): no op, and the
// reference's -inf is checked by mirage-run. A max of an exp result is an
// exp result for the LAX rule (ug.maximum returns one of its operands): exp
// of it starts a new subprogram.
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift=lift-relu=false --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=NORELU
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift --range=1 %s | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --lift --range=8 %s | FileCheck %s --check-prefix=VAL
//
// REM: '@maximum_tosa': lifted 1 subprogram (@maximum_tosa_lax0); 0 tensor ops left in place
// REM: '@exp_of_max_of_exp': lifted 2 subprograms (@exp_of_max_of_exp_lax0, @exp_of_max_of_exp_lax1); 0 tensor ops left in place
// REM: @exp_of_max_of_exp_lax1: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output; it starts here because an exp here reads an exp result of the previous subprogram
// REM: module: 19 of 19 tensor ops lifted (100.0 %) into 10 subprograms
//
// NORELU: '@relu': lifted 2 subprograms (@relu_lax0, @relu_lax1); 1 tensor op left in place
// NORELU: 'tosa.maximum' is not lifted: relu is not lifted with lift-relu=false
// NORELU: '@reduce_max_from_zero': nothing lifted; 1 tensor op left in place
// NORELU: 'linalg.generic' is not lifted: relu is not lifted with lift-relu=false
// NORELU: module: 17 of 19 tensor ops lifted
//
// VAL: @maximum_tosa_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// VAL-NEXT: @maximum_neg_inf_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// VAL-NEXT: @relu_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// VAL-NEXT: @max_named_lax0: 1 output, 128 elements, max abs error {{.*}}: ok
// VAL-NEXT: @max_generic_maxnumf_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// VAL-NEXT: @reduce_max_lowest_lax0: 1 output, 16 elements, max abs error 0 (tolerance {{.*}}): ok
// VAL-NEXT: @reduce_max_from_zero_lax0: 1 output, 16 elements, max abs error 0 (tolerance {{.*}}): ok
// VAL-NEXT: @reduce_max_bf16_lax0: 1 output, 8 elements, max abs error {{.*}}: ok
// VAL-NEXT: @exp_of_max_of_exp_lax0: 1 output, 128 elements, max abs error {{.*}}: ok
// VAL-NEXT: @exp_of_max_of_exp_lax1: 1 output, 128 elements, max abs error {{.*}}: ok
// VAL-NOT: {{MISMATCH|OVERFLOW}}

func.func @maximum_tosa(%x: tensor<2x8x16xf16>, %y: tensor<2x8x16xf16>) -> tensor<2x8x16xf16> {
  %e = tosa.exp %x : (tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  %m = tosa.maximum %e, %y : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  return %m : tensor<2x8x16xf16>
}

func.func @maximum_neg_inf(%x: tensor<2x8x16xf16>) -> tensor<2x8x16xf16> {
  %ninf = "tosa.const"() <{values = dense<0xFC00> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %half = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %d = tosa.mul %x, %half, %shift : (tensor<2x8x16xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x8x16xf16>
  %m = tosa.maximum %d, %ninf : (tensor<2x8x16xf16>, tensor<1x1x1xf16>) -> tensor<2x8x16xf16>
  %e = tosa.exp %m : (tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  return %e : tensor<2x8x16xf16>
}

func.func @relu(%x: tensor<2x8x16xf16>, %y: tensor<2x8x16xf16>) -> tensor<2x8x16xf16> {
  %zero = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %a = tosa.sub %x, %y : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  %r = tosa.maximum %a, %zero : (tensor<2x8x16xf16>, tensor<1x1x1xf16>) -> tensor<2x8x16xf16>
  %m = tosa.maximum %r, %y : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  return %m : tensor<2x8x16xf16>
}

func.func @max_named(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %x = linalg.exp ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.max ins(%x, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

func.func @max_generic_maxnumf(%a: tensor<2x8x16xf32>, %b: tensor<16xf32>) -> tensor<2x8x16xf32> {
  %e = tensor.empty() : tensor<2x8x16xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a, %b : tensor<2x8x16xf32>, tensor<16xf32>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.mulf %in, %in : f32
    %r = arith.maxnumf %s, %in_1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x16xf32>
  return %m : tensor<2x8x16xf32>
}

func.func @reduce_max_lowest(%a: tensor<2x8x16xf32>) -> tensor<2x8x1xf32> {
  %lowest = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %f = linalg.fill ins(%lowest : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = linalg.reduce ins(%a : tensor<2x8x16xf32>) outs(%f : tensor<2x8xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %m = arith.maxnumf %in, %init : f32
      linalg.yield %m : f32
    }
  %o = tensor.expand_shape %r [[0], [1, 2]] output_shape [2, 8, 1] : tensor<2x8xf32> into tensor<2x8x1xf32>
  return %o : tensor<2x8x1xf32>
}

func.func @reduce_max_from_zero(%a: tensor<2x8x16xf32>) -> tensor<2x8x1xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<2x8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a : tensor<2x8x16xf32>) outs(%f : tensor<2x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<2x8x1xf32>
  return %r : tensor<2x8x1xf32>
}

func.func @reduce_max_bf16(%a: tensor<8x16xbf16>) -> tensor<8x1xbf16> {
  %r = tosa.reduce_max %a {axis = 1 : i32} : (tensor<8x16xbf16>) -> tensor<8x1xbf16>
  %e = tosa.exp %r : (tensor<8x1xbf16>) -> tensor<8x1xbf16>
  return %e : tensor<8x1xbf16>
}

func.func @exp_of_max_of_exp(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tosa.exp %x : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = tosa.maximum %e, %y : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = tosa.exp %m : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func private @maximum_tosa_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8x16xf16>, %[[Y:[^:]+]]: tensor<2x8x16xf16>)
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
// CHECK-NEXT: %[[MAXIMUM:.*]] = "ug.maximum"(%[[EXP]], %[[Y]]) : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
// CHECK-NEXT: return %[[MAXIMUM]]
// CHECK-LABEL: func.func private @maximum_neg_inf_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8x16xf16>)
// CHECK-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[X]]) {scalar = 5.000000e-01 : f64} : (tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MULS]]) : (tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
// CHECK-NEXT: return %[[EXP]]
// CHECK-LABEL: func.func private @maximum_neg_inf_lax0_ref(
// CHECK: tosa.maximum
// CHECK-LABEL: func.func private @relu_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8x16xf16>, %[[Y:[^:]+]]: tensor<2x8x16xf16>)
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[X]], %[[Y]])
// CHECK-NEXT: %[[RELU:.*]] = "ug.relu"(%[[SUB]]) : (tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
// CHECK-NEXT: %[[MAXIMUM:.*]] = "ug.maximum"(%[[RELU]], %[[Y]]) : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
// CHECK-NEXT: return %[[MAXIMUM]]
// CHECK-LABEL: func.func private @max_named_lax0(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x16xf32>, %[[B:[^:]+]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[A]]) : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[MAXIMUM:.*]] = "ug.maximum"(%[[EXP]], %[[B]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: return %[[MAXIMUM]]
// CHECK-LABEL: func.func @max_generic_maxnumf(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x8x16xf32>, %[[B:[^:]+]]: tensor<16xf32>)
// CHECK: call @max_generic_maxnumf_lax0(%[[A]], %expanded) : (tensor<2x8x16xf32>, tensor<1x1x16xf32>) -> tensor<2x8x16xf32>
// CHECK-LABEL: func.func private @max_generic_maxnumf_lax0(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x8x16xf32>, %[[EXPANDED:[^:]+]]: tensor<1x1x16xf32>)
// CHECK-NEXT: %[[SQ:.*]] = "ug.square"(%[[A]]) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[MAXIMUM:.*]] = "ug.maximum"(%[[SQ]], %[[EXPANDED]]) : (tensor<2x8x16xf32>, tensor<1x1x16xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: return %[[MAXIMUM]]
// CHECK-LABEL: func.func private @reduce_max_lowest_lax0(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x8x16xf32>)
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[A]]) {dim = 2 : i64} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: return %[[MAX]]
// CHECK-LABEL: func.func private @reduce_max_from_zero_lax0(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x8x16xf32>)
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[A]]) {dim = 2 : i64} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[RELU:.*]] = "ug.relu"(%[[MAX]]) : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: return %[[RELU]]
// CHECK-LABEL: func.func private @reduce_max_bf16_lax0(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x16xbf16>)
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[A]]) {dim = 1 : i64} : (tensor<8x16xbf16>) -> tensor<8x1xbf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MAX]]) : (tensor<8x1xbf16>) -> tensor<8x1xbf16>
// CHECK-NEXT: return %[[EXP]]
// CHECK-LABEL: func.func @exp_of_max_of_exp(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x16xf32>, %[[Y:[^:]+]]: tensor<8x16xf32>)
// CHECK: %[[M:[0-9]+]] = call @exp_of_max_of_exp_lax0(%[[X]], %[[Y]])
// CHECK-NEXT: call @exp_of_max_of_exp_lax1(%[[M]])
