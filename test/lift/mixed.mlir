// Mixed modules: ops the μGraph cannot express (tosa.floor; tosa.gather;
// scf.for; and, with lift-relu=false, a clamp that is relu) stay exactly
// where they were, between calls to separate subprograms; the loop body is
// lifted on its own. By default the relu clamp is lifted as ug.relu and
// @clamp_split becomes one subprogram.
//
// RUN: mirage-opt --mirage-lift=lift-relu=false %s | FileCheck %s
// RUN: mirage-opt --mirage-lift %s | FileCheck %s --check-prefix=RELU
// RUN: mirage-opt --mirage-lift=lift-relu=false --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift=lift-relu=false --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift=lift-relu=false --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt2
// RUN: diff %t.in %t.rt2
// RUN: mirage-run --lift=lift-relu=false %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM

func.func @clamp_split(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.clamp %e {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.sub %r, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.rsqrt %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

func.func @floor_split(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %e = tosa.exp %x : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %c = tosa.floor %e : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %s = tosa.rsqrt %c : (tensor<4x8xf16>) -> tensor<4x8xf16>
  return %s : tensor<4x8xf16>
}

func.func @gather_split(%x: tensor<1x4x8xf32>, %idx: tensor<1x3xi32>) -> tensor<1x3x8xf32> {
  %e = tosa.exp %x : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.mul %e, %r, %shift : (tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  %g = tosa.gather %p, %idx : (tensor<1x4x8xf32>, tensor<1x3xi32>) -> tensor<1x3x8xf32>
  %g2 = tosa.mul %g, %g, %shift : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1xi8>) -> tensor<1x3x8xf32>
  %o = tosa.add %g2, %g : (tensor<1x3x8xf32>, tensor<1x3x8xf32>) -> tensor<1x3x8xf32>
  return %o : tensor<1x3x8xf32>
}

func.func @loop_split(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %init = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<4x8xf32>) {
    %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %m = linalg.matmul ins(%acc, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    %n = linalg.add ins(%m, %acc : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
    scf.yield %n : tensor<4x8xf32>
  }
  %out = linalg.mul ins(%r, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %out : tensor<4x8xf32>
}

// Each caller keeps the ops in between as written; then its kernel graphs.
// CHECK-LABEL: func.func @clamp_split(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[A:.*]] = call @clamp_split_lax0(%[[X]], %[[Y]])
// CHECK-NEXT:    %[[C:.*]] = tosa.clamp %[[A]] {max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[B:.*]] = call @clamp_split_lax1(%[[Y]], %[[C]])
// CHECK-NEXT:    return %[[B]]
// CHECK-LABEL: func.func private @clamp_split_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @clamp_split_lax0_ref} {
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[ADD]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<4x8xf32>
// CHECK-LABEL: func.func private @clamp_split_lax1(
// CHECK-SAME: %[[Y:[^:]+]]: tensor<4x8xf32>, %[[CLAMP:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @clamp_split_lax1_ref} {
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[CLAMP]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[SUB]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[RSQRT]] : tensor<4x8xf32>
// CHECK-LABEL: func.func @floor_split(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf16>)
// CHECK-NEXT:    %[[E:.*]] = call @floor_split_lax0(%[[X]])
// CHECK-NEXT:    %[[C:.*]] = tosa.floor %[[E]]
// CHECK-NEXT:    %[[S:.*]] = call @floor_split_lax1(%[[C]])
// CHECK-NEXT:    return %[[S]]
// CHECK-LABEL: func.func private @floor_split_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf16>) -> tensor<4x8xf16> attributes {ug.level = "kernel", ug.reference = @floor_split_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<4x8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT: return %[[EXP]] : tensor<4x8xf16>
// CHECK-LABEL: func.func private @floor_split_lax1(
// CHECK-SAME: %[[CLAMP:[^:]+]]: tensor<4x8xf16>) -> tensor<4x8xf16> attributes {ug.level = "kernel", ug.reference = @floor_split_lax1_ref} {
// CHECK-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[CLAMP]]) : (tensor<4x8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT: return %[[RSQRT]] : tensor<4x8xf16>
// CHECK-LABEL: func.func @gather_split(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x8xf32>, %[[IDX:[^:]+]]: tensor<1x3xi32>)
// CHECK:         %[[P:.*]] = call @gather_split_lax0(%[[X]])
// CHECK-NEXT:    %[[G:.*]] = tosa.gather %[[P]], %[[IDX]]
// CHECK-NEXT:    %[[O:.*]] = call @gather_split_lax1(%[[G]])
// CHECK-NEXT:    return %[[O]]
// CHECK-LABEL: func.func private @gather_split_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> attributes {ug.level = "kernel", ug.reference = @gather_split_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]]) : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: return %[[DIV]] : tensor<1x4x8xf32>
// CHECK-LABEL: func.func private @gather_split_lax1(
// CHECK-SAME: %[[GATHER:[^:]+]]: tensor<1x3x8xf32>) -> tensor<1x3x8xf32> attributes {ug.level = "kernel", ug.reference = @gather_split_lax1_ref} {
// CHECK-NEXT: %[[SQ:.*]] = "ug.square"(%[[GATHER]]) : (tensor<1x3x8xf32>) -> tensor<1x3x8xf32>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[SQ]], %[[GATHER]]) : (tensor<1x3x8xf32>, tensor<1x3x8xf32>) -> tensor<1x3x8xf32>
// CHECK-NEXT: return %[[ADD]] : tensor<1x3x8xf32>
// CHECK-LABEL: func.func @loop_split(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[W:[^:]+]]: tensor<8x8xf32>)
// CHECK:         %[[I:.*]] = call @loop_split_lax0(%[[X]])
// CHECK-NEXT:    %[[L:.*]] = scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%[[ACC:.*]] = %[[I]])
// CHECK-NEXT:      linalg.fill
// CHECK-NEXT:      %[[N:.*]] = func.call @loop_split_lax1(%[[W]], %[[ACC]])
// CHECK-NEXT:      scf.yield %[[N]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = call @loop_split_lax2(%[[X]], %[[L]])
// CHECK-NEXT:    return %[[R]]

// CHECK-LABEL: func.func private @loop_split_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @loop_split_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<4x8xf32>
// CHECK-LABEL: func.func private @loop_split_lax1(
// CHECK-SAME: %[[W:[^:]+]]: tensor<8x8xf32>, %[[ACC:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @loop_split_lax1_ref} {
// CHECK-NEXT: %[[MM:.*]] = "ug.matmul"(%[[ACC]], %[[W]]) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[MM]], %[[ACC]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[ADD]] : tensor<4x8xf32>
// CHECK-LABEL: func.func private @loop_split_lax2(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[LOOP:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @loop_split_lax2_ref} {
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[LOOP]], %[[X]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[MUL]] : tensor<4x8xf32>

// RELU-LABEL: func.func @clamp_split(
// RELU-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
// RELU: call @clamp_split_lax0(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-LABEL: func.func private @clamp_split_lax0(
// RELU-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @clamp_split_lax0_ref} {
// RELU-NEXT: %[[ADD:.*]] = "ug.add"(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[EXP:.*]] = "ug.exp"(%[[ADD]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[RELU:.*]] = "ug.relu"(%[[EXP]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[SUB:.*]] = "ug.sub"(%[[RELU]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[SUB]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: return %[[RSQRT]] : tensor<4x8xf32>
// RELU-NOT: @clamp_split_lax1

// REM: {{.*}}:19:{{[0-9]+}}: remark: mirage-lift: '@clamp_split': lifted 2 subprograms (@clamp_split_lax0, @clamp_split_lax1); 1 tensor op left in place
// REM: {{.*}}:20:{{[0-9]+}}: remark: mirage-lift: @clamp_split_lax0: 2 ops -> kernel graph of 2 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:22:{{[0-9]+}}: remark: mirage-lift: 'tosa.clamp' is not lifted: relu is not lifted with lift-relu=false
// REM: {{.*}}:23:{{[0-9]+}}: remark: mirage-lift: @clamp_split_lax1: 2 ops -> kernel graph of 2 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:28:{{[0-9]+}}: remark: mirage-lift: '@floor_split': lifted 2 subprograms (@floor_split_lax0, @floor_split_lax1); 1 tensor op left in place
// REM: {{.*}}:29:{{[0-9]+}}: remark: mirage-lift: @floor_split_lax0: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output
// REM: {{.*}}:30:{{[0-9]+}}: remark: mirage-lift: 'tosa.floor' is not lifted: the μGraph has no counterpart of 'tosa.floor'
// REM: {{.*}}:31:{{[0-9]+}}: remark: mirage-lift: @floor_split_lax1: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output
// REM: {{.*}}:35:{{[0-9]+}}: remark: mirage-lift: '@gather_split': lifted 2 subprograms (@gather_split_lax0, @gather_split_lax1); 1 tensor op left in place
// REM: {{.*}}:36:{{[0-9]+}}: remark: mirage-lift: @gather_split_lax0: 4 ops -> kernel graph of 3 μGraph ops, 1 input, 1 output
// REM: {{.*}}:41:{{[0-9]+}}: remark: mirage-lift: 'tosa.gather' is not lifted: the μGraph has no counterpart of 'tosa.gather'
// REM: {{.*}}:42:{{[0-9]+}}: remark: mirage-lift: @gather_split_lax1: 2 ops -> kernel graph of 2 μGraph ops, 1 input, 1 output
// REM: {{.*}}:47:{{[0-9]+}}: remark: mirage-lift: '@loop_split': lifted 3 subprograms (@loop_split_lax0, @loop_split_lax1, @loop_split_lax2); 1 tensor op left in place
// REM: {{.*}}:53:{{[0-9]+}}: remark: mirage-lift: @loop_split_lax0: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output
// REM: {{.*}}:54:{{[0-9]+}}: remark: mirage-lift: 'scf.for' is not lifted: control flow and region ops are not lifted
// REM: {{.*}}:56:{{[0-9]+}}: remark: mirage-lift: @loop_split_lax1: 2 ops -> kernel graph of 2 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:60:{{[0-9]+}}: remark: mirage-lift: @loop_split_lax2: 1 op -> kernel graph of 1 μGraph op, 2 inputs, 1 output
// NUM: ok
