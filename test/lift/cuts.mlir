// Ops that are recognised but cannot be lifted where they stand are cut,
// with the reason, and the rest around them still lifts: pow with exponent
// 3, a sigmoid or reciprocal no product consumes, a broadcast to a larger
// shape, a matmul accumulating into tensor.empty, exp of exp within one op.
// Also what lifts: max reductions (ug.reduce_max; ug.maximum with a real
// accumulator), a matmul reading a transposed argument (a layout), a transpose
// cancelled by a transposed matmul operand, a matmul accumulating into a
// tensor, a dropped-dim reduction returned as is, a merging reshape.
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM

func.func @reduce_max(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %a = tosa.reduce_max %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %b = tosa.exp %a : (tensor<4x1xf32>) -> tensor<4x1xf32>
  return %b : tensor<4x1xf32>
}

func.func @pow3(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = "tosa.const"() <{values = dense<3.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %a = tosa.pow %e, %c : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

func.func @sigmoid_alone(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.sigmoid %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

func.func @reciprocal_alone(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.reciprocal %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @transposed_weight(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>) -> tensor<2x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %xe = linalg.exp ins(%x : tensor<2x8xf32>) outs(%x : tensor<2x8xf32>) -> tensor<2x8xf32>
  %m = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%xe, %w : tensor<2x8xf32>, tensor<4x8xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

func.func @transpose_cancels(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %ey = tensor.empty() : tensor<8x4xf32>
  %y = linalg.exp ins(%w : tensor<8x4xf32>) outs(%ey : tensor<8x4xf32>) -> tensor<8x4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %t = linalg.transpose ins(%y : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) permutation = [1, 0]
  %m = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x, %t : tensor<2x8xf32>, tensor<4x8xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

func.func @reduce_returned(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %z = arith.constant 0.0 : f32
  %ee = tensor.empty() : tensor<4x8xf32>
  %sq = linalg.mul ins(%x, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%ee : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%sq : tensor<4x8xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

func.func @merging_reshape(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  %e = tosa.exp %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = tosa.const_shape {values = dense<[8]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %r = tosa.reshape %e, %s : (tensor<2x4xf32>, !tosa.shape<1>) -> tensor<8xf32>
  %o = tosa.exp %r : (tensor<8xf32>) -> tensor<8xf32>
  return %o : tensor<8xf32>
}

func.func @broadcast_up(%x: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

func.func @max_reduction(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.maximumf %a, %o : f32
      linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @empty_accumulator(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x8xf32>, tensor<8x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

func.func @accumulate_into(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %m = linalg.matmul ins(%x, %w : tensor<2x8xf32>, tensor<8x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

func.func @exp_of_exp_in_one_op(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %p = math.exp %a : f32
      %q = math.exp %p : f32
      linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @reduce_max(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>)
// CHECK: call @reduce_max_lax0(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-LABEL: func.func private @reduce_max_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> tensor<4x1xf32> attributes {ug.level = "kernel", ug.reference = @reduce_max_lax0_ref} {
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[X]]) {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MAX]]) : (tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<4x1xf32>
// CHECK-LABEL: func.func @pow3(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>)
// CHECK: call @pow3_lax0(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func private @pow3_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @pow3_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<4x8xf32>
// CHECK-LABEL: func.func @sigmoid_alone(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>)
// CHECK: call @sigmoid_alone_lax0(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func private @sigmoid_alone_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @sigmoid_alone_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<4x8xf32>
// CHECK-LABEL: func.func @reciprocal_alone(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>)
// CHECK: call @reciprocal_alone_lax0(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func private @reciprocal_alone_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @reciprocal_alone_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<4x8xf32>
// CHECK-LABEL: func.func @transposed_weight(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8xf32>, %[[W:[^:]+]]: tensor<4x8xf32>)
// CHECK: call @transposed_weight_lax0(%[[X]], %[[W]]) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
// CHECK-LABEL: func.func private @transposed_weight_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8xf32>, %[[W:[^:]+]]: tensor<4x8xf32>) -> tensor<2x4xf32> attributes {ug.level = "kernel", ug.reference = @transposed_weight_lax0_ref} {
// CHECK-NEXT: %[[T:.*]] = "ug.transpose"(%[[W]]) {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[EXP]], %[[T]]) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[MM]] : tensor<2x4xf32>
// CHECK-LABEL: func.func @transpose_cancels(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8xf32>, %[[W:[^:]+]]: tensor<8x4xf32>)
// CHECK: call @transpose_cancels_lax0(%[[X]], %[[W]]) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
// CHECK-LABEL: func.func private @transpose_cancels_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8xf32>, %[[W:[^:]+]]: tensor<8x4xf32>) -> tensor<2x4xf32> attributes {ug.level = "kernel", ug.reference = @transpose_cancels_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[W]]) : (tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[X]], %[[EXP]]) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[MM]] : tensor<2x4xf32>
// CHECK-LABEL: func.func @reduce_returned(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>)
// CHECK: call @reduce_returned_lax0(%[[X]]) : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func private @reduce_returned_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> tensor<4xf32> attributes {ug.level = "kernel", ug.reference = @reduce_returned_lax0_ref} {
// CHECK-NEXT: %[[SQ:.*]] = "ug.square"(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[SQ]]) {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[RESHAPE:.*]] = "ug.reshape"(%[[SUM]]) : (tensor<4x1xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[RESHAPE]] : tensor<4xf32>
// CHECK-LABEL: func.func @merging_reshape(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x4xf32>)
// CHECK: %[[LAX0:.*]] = call @merging_reshape_lax0(%[[X]]) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: call @merging_reshape_lax1(%[[LAX0]]) : (tensor<2x4xf32>) -> tensor<8xf32>
// CHECK-LABEL: func.func private @merging_reshape_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {ug.level = "kernel", ug.reference = @merging_reshape_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<2x4xf32>
// CHECK-LABEL: func.func private @merging_reshape_lax1(
// CHECK-SAME: %[[LAX0:[^:]+]]: tensor<2x4xf32>) -> tensor<8xf32> attributes {ug.level = "kernel", ug.reference = @merging_reshape_lax1_ref} {
// CHECK-NEXT: %[[RESHAPE:.*]] = "ug.reshape"(%[[LAX0]]) : (tensor<2x4xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[RESHAPE]]) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<8xf32>
// CHECK-LABEL: func.func @broadcast_up(
// CHECK-LABEL: func.func @max_reduction(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[INIT:[^:]+]]: tensor<4xf32>)
// CHECK: call @max_reduction_lax0(%[[X]], %expanded) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func private @max_reduction_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[EXPANDED:[^:]+]]: tensor<4x1xf32>) -> tensor<4xf32> attributes {ug.level = "kernel", ug.reference = @max_reduction_lax0_ref} {
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[X]]) {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[MAXIMUM:.*]] = "ug.maximum"(%[[EXPANDED]], %[[MAX]]) : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[RESHAPE:.*]] = "ug.reshape"(%[[MAXIMUM]]) : (tensor<4x1xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[RESHAPE]] : tensor<4xf32>
// CHECK-LABEL: func.func @empty_accumulator(
// CHECK-LABEL: func.func @accumulate_into(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8xf32>, %[[W:[^:]+]]: tensor<8x4xf32>, %[[C:[^:]+]]: tensor<2x4xf32>)
// CHECK: call @accumulate_into_lax0(%[[X]], %[[W]], %[[C]]) : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-LABEL: func.func private @accumulate_into_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8xf32>, %[[W:[^:]+]]: tensor<8x4xf32>, %[[C:[^:]+]]: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {ug.level = "kernel", ug.reference = @accumulate_into_lax0_ref} {
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[X]], %[[W]]) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[C]], %[[MM]]) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[ADD]] : tensor<2x4xf32>
// CHECK-LABEL: func.func @exp_of_exp_in_one_op(

// REM: {{.*}}:18:{{[0-9]+}}: remark: mirage-lift: '@reduce_max': lifted 1 subprogram (@reduce_max_lax0); 0 tensor ops left in place
// REM: {{.*}}:19:{{[0-9]+}}: remark: mirage-lift: @reduce_max_lax0: 2 ops -> kernel graph of 2 μGraph ops, 1 input, 1 output
// REM: {{.*}}:24:{{[0-9]+}}: remark: mirage-lift: '@pow3': lifted 1 subprogram (@pow3_lax0); 1 tensor op left in place
// REM: {{.*}}:25:{{[0-9]+}}: remark: mirage-lift: @pow3_lax0: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output
// REM: {{.*}}:27:{{[0-9]+}}: remark: mirage-lift: 'tosa.pow' is not lifted: pow lifts only with exponent 2, 0.5 or -0.5 (got 3)
// REM: {{.*}}:31:{{[0-9]+}}: remark: mirage-lift: '@sigmoid_alone': lifted 1 subprogram (@sigmoid_alone_lax0); 1 tensor op left in place
// REM: {{.*}}:32:{{[0-9]+}}: remark: mirage-lift: @sigmoid_alone_lax0: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output
// REM: {{.*}}:33:{{[0-9]+}}: remark: mirage-lift: 'tosa.sigmoid' is not lifted: sigmoid lifts only inside x * sigmoid(x) (silu); the μGraph has no sigmoid
// REM: {{.*}}:37:{{[0-9]+}}: remark: mirage-lift: '@reciprocal_alone': lifted 1 subprogram (@reciprocal_alone_lax0); 1 tensor op left in place
// REM: {{.*}}:38:{{[0-9]+}}: remark: mirage-lift: @reciprocal_alone_lax0: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output
// REM: {{.*}}:39:{{[0-9]+}}: remark: mirage-lift: 'tosa.reciprocal' is not lifted: a reciprocal lifts only as the divisor of a product (a * (1/b) = a / b); the μGraph has no reciprocal
// REM: {{.*}}:43:{{[0-9]+}}: remark: mirage-lift: '@transposed_weight': lifted 1 subprogram (@transposed_weight_lax0); 0 tensor ops left in place
// REM: {{.*}}:47:{{[0-9]+}}: remark: mirage-lift: @transposed_weight_lax0: 2 ops -> kernel graph of 2 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:53:{{[0-9]+}}: remark: mirage-lift: '@transpose_cancels': lifted 1 subprogram (@transpose_cancels_lax0); 0 tensor ops left in place
// REM: {{.*}}:58:{{[0-9]+}}: remark: mirage-lift: @transpose_cancels_lax0: 3 ops -> kernel graph of 2 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:66:{{[0-9]+}}: remark: mirage-lift: '@reduce_returned': lifted 1 subprogram (@reduce_returned_lax0); 0 tensor ops left in place
// REM: {{.*}}:69:{{[0-9]+}}: remark: mirage-lift: @reduce_returned_lax0: 2 ops -> kernel graph of 2 μGraph ops, 1 input, 1 output
// REM: {{.*}}:80:{{[0-9]+}}: remark: mirage-lift: '@merging_reshape': lifted 2 subprograms (@merging_reshape_lax0, @merging_reshape_lax1); 0 tensor ops left in place
// REM: {{.*}}:81:{{[0-9]+}}: remark: mirage-lift: @merging_reshape_lax0: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output
// REM: {{.*}}:83:{{[0-9]+}}: remark: mirage-lift: @merging_reshape_lax1: 2 ops -> kernel graph of 1 μGraph op, 1 input, 1 output; it starts here because an exp here reads an exp result of the previous subprogram
// REM: {{.*}}:88:{{[0-9]+}}: remark: mirage-lift: '@broadcast_up': nothing lifted; 1 tensor op left in place
// REM: {{.*}}:90:{{[0-9]+}}: remark: mirage-lift: 'linalg.generic' is not lifted: the result is broadcast along dim 1; the μGraph cannot broadcast to a larger shape
// REM: {{.*}}:99:{{[0-9]+}}: remark: mirage-lift: '@max_reduction': lifted 1 subprogram (@max_reduction_lax0); 0 tensor ops left in place
// REM: {{.*}}:100:{{[0-9]+}}: remark: mirage-lift: @max_reduction_lax0: 1 op -> kernel graph of 2 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:109:{{[0-9]+}}: remark: mirage-lift: '@empty_accumulator': nothing lifted; 1 tensor op left in place
// REM: {{.*}}:111:{{[0-9]+}}: remark: mirage-lift: 'linalg.matmul' is not lifted: the accumulator starts from tensor.empty (undefined values)
// REM: {{.*}}:115:{{[0-9]+}}: remark: mirage-lift: '@accumulate_into': lifted 1 subprogram (@accumulate_into_lax0); 0 tensor ops left in place
// REM: {{.*}}:116:{{[0-9]+}}: remark: mirage-lift: @accumulate_into_lax0: 1 op -> kernel graph of 2 μGraph ops, 3 inputs, 1 output
// REM: {{.*}}:120:{{[0-9]+}}: remark: mirage-lift: '@exp_of_exp_in_one_op': nothing lifted; 1 tensor op left in place
// REM: {{.*}}:122:{{[0-9]+}}: remark: mirage-lift: 'linalg.generic' is not lifted: an exp reads an exp result within this op (outside LAX)
// NUM: ok
// NUM-NOT: MISMATCH
