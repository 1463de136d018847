// Mixed precision as written. Result element types are storage choices in
// the μGraph: matmul, binary ops and sum may store in another type than they
// read (f16 x f16 -> f32 matmul in TOSA and linalg; f16 data squared and
// summed in f32 through arith.extf in a linalg.reduce body, as ug.mul with
// an f32 result); unary and scalar ops keep their operand's type, so a cast
// right before one (either direction) is cut and its result comes in as an
// input of the right type. bf16 lifts like f16.
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM

func.func @tosa_f16_to_f32(%x: tensor<1x4x8xf16>, %w: tensor<1x8x16xf16>) -> tensor<1x4x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x8xf16>, tensor<1x8x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x16xf32>
  %e = tosa.exp %m : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  return %e : tensor<1x4x16xf32>
}

func.func @linalg_f16_to_f32(%x: tensor<4x8xf16>, %w: tensor<8x16xf16>) -> tensor<4x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf16>, tensor<8x16xf16>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = linalg.sqrt ins(%m : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

func.func @bf16(%x: tensor<4x8xbf16>, %y: tensor<4x8xbf16>) -> tensor<4x1xbf16> {
  %a = tosa.add %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %e = tosa.exp %a : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<4x8xbf16>) -> tensor<4x1xbf16>
  return %s : tensor<4x1xbf16>
}

func.func @f32_accumulator(%x: tensor<4x8xf16>) -> tensor<4x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%x : tensor<4x8xf16>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f16, %init: f32) {
      %w = arith.extf %in : f16 to f32
      %sq = arith.mulf %w, %w : f32
      %s = arith.addf %sq, %init : f32
      linalg.yield %s : f32
    }
  %o = tensor.expand_shape %r [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  return %o : tensor<4x1xf32>
}

func.func @narrowing_cast(%x: tensor<4x8xf32>) -> tensor<4x8xf16> {
  %a = tosa.add %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.cast %a : (tensor<4x8xf32>) -> tensor<4x8xf16>
  %e = tosa.exp %c : (tensor<4x8xf16>) -> tensor<4x8xf16>
  return %e : tensor<4x8xf16>
}

func.func @widening_cast(%x: tensor<4x8xf16>) -> tensor<4x8xf32> {
  %c = tosa.cast %x : (tensor<4x8xf16>) -> tensor<4x8xf32>
  %e = tosa.exp %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.sub %e, %c : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @tosa_f16_to_f32(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x8xf16>, %[[W:[^:]+]]: tensor<1x8x16xf16>)
// CHECK: call @tosa_f16_to_f32_lax0(%[[X]], %[[W]]) : (tensor<1x4x8xf16>, tensor<1x8x16xf16>) -> tensor<1x4x16xf32>
// CHECK-LABEL: func.func private @tosa_f16_to_f32_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x8xf16>, %[[W:[^:]+]]: tensor<1x8x16xf16>) -> tensor<1x4x16xf32> attributes {ug.level = "kernel", ug.reference = @tosa_f16_to_f32_lax0_ref} {
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[X]], %[[W]]) : (tensor<1x4x8xf16>, tensor<1x8x16xf16>) -> tensor<1x4x16xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MM]]) : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<1x4x16xf32>
// CHECK-LABEL: func.func @linalg_f16_to_f32(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf16>, %[[W:[^:]+]]: tensor<8x16xf16>)
// CHECK: call @linalg_f16_to_f32_lax0(%[[X]], %[[W]]) : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
// CHECK-LABEL: func.func private @linalg_f16_to_f32_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf16>, %[[W:[^:]+]]: tensor<8x16xf16>) -> tensor<4x16xf32> attributes {ug.level = "kernel", ug.reference = @linalg_f16_to_f32_lax0_ref} {
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[X]], %[[W]]) : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[SQRT:.*]] = "ug.sqrt"(%[[MM]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[SQRT]] : tensor<4x16xf32>
// CHECK-LABEL: func.func @bf16(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xbf16>, %[[Y:[^:]+]]: tensor<4x8xbf16>)
// CHECK: call @bf16_lax0(%[[X]], %[[Y]]) : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x1xbf16>
// CHECK-LABEL: func.func private @bf16_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xbf16>, %[[Y:[^:]+]]: tensor<4x8xbf16>) -> tensor<4x1xbf16> attributes {ug.level = "kernel", ug.reference = @bf16_lax0_ref} {
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[X]], %[[Y]]) : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[ADD]]) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 1 : i64} : (tensor<4x8xbf16>) -> tensor<4x1xbf16>
// CHECK-NEXT: return %[[SUM]] : tensor<4x1xbf16>
// CHECK-LABEL: func.func @f32_accumulator(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf16>)
// CHECK: call @f32_accumulator_lax0(%[[X]]) : (tensor<4x8xf16>) -> tensor<4x1xf32>
// CHECK-LABEL: func.func private @f32_accumulator_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf16>) -> tensor<4x1xf32> attributes {ug.level = "kernel", ug.reference = @f32_accumulator_lax0_ref} {
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[X]], %[[X]]) : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[MUL]]) {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: return %[[SUM]] : tensor<4x1xf32>
// CHECK-LABEL: func.func @narrowing_cast(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>)
// The cast is the add's only reader: the add stores f16 itself.
// CHECK: call @narrowing_cast_lax0(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf16>
// CHECK-LABEL: func.func private @narrowing_cast_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf16> attributes {ug.level = "kernel", ug.reference = @narrowing_cast_lax0_ref} {
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[X]], %[[X]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf16>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[ADD]]) : (tensor<4x8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT: return %[[EXP]] : tensor<4x8xf16>
// CHECK-LABEL: func.func @widening_cast(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf16>)
// CHECK: %[[CAST:.*]] = tosa.cast %[[X]] : (tensor<4x8xf16>) -> tensor<4x8xf32>
// CHECK-NEXT: call @widening_cast_lax0(%[[CAST]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func private @widening_cast_lax0(
// CHECK-SAME: %[[CAST:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @widening_cast_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[CAST]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[EXP]], %[[CAST]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[SUB]] : tensor<4x8xf32>

// REM: {{.*}}:17:{{[0-9]+}}: remark: mirage-lift: '@tosa_f16_to_f32': lifted 1 subprogram (@tosa_f16_to_f32_lax0); 0 tensor ops left in place
// REM: {{.*}}:19:{{[0-9]+}}: remark: mirage-lift: @tosa_f16_to_f32_lax0: 2 ops -> kernel graph of 2 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:24:{{[0-9]+}}: remark: mirage-lift: '@linalg_f16_to_f32': lifted 1 subprogram (@linalg_f16_to_f32_lax0); 0 tensor ops left in place
// REM: {{.*}}:28:{{[0-9]+}}: remark: mirage-lift: @linalg_f16_to_f32_lax0: 2 ops -> kernel graph of 2 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:33:{{[0-9]+}}: remark: mirage-lift: '@bf16': lifted 1 subprogram (@bf16_lax0); 0 tensor ops left in place
// REM: {{.*}}:34:{{[0-9]+}}: remark: mirage-lift: @bf16_lax0: 3 ops -> kernel graph of 3 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:40:{{[0-9]+}}: remark: mirage-lift: '@f32_accumulator': lifted 1 subprogram (@f32_accumulator_lax0); 0 tensor ops left in place
// REM: {{.*}}:44:{{[0-9]+}}: remark: mirage-lift: @f32_accumulator_lax0: 2 ops -> kernel graph of 2 μGraph ops, 1 input, 1 output
// REM: {{.*}}:55:{{[0-9]+}}: remark: mirage-lift: '@narrowing_cast': lifted 1 subprogram (@narrowing_cast_lax0); 0 tensor ops left in place
// REM: {{.*}}:56:{{[0-9]+}}: remark: mirage-lift: @narrowing_cast_lax0: 3 ops -> kernel graph of 2 μGraph ops, 1 input, 1 output
// REM: {{.*}}:62:{{[0-9]+}}: remark: mirage-lift: '@widening_cast': lifted 1 subprogram (@widening_cast_lax0); 1 tensor op left in place
// REM: {{.*}}:63:{{[0-9]+}}: remark: mirage-lift: 'tosa.cast' is not lifted: an element-wise op would compute in f16 what is written in f32 (the μGraph's unary ops keep their operand's type)
// REM: {{.*}}:64:{{[0-9]+}}: remark: mirage-lift: @widening_cast_lax0: 2 ops -> kernel graph of 2 μGraph ops, 1 input, 1 output
// NUM: ok
// NUM-NOT: MISMATCH
