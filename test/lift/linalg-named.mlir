// linalg named element-wise ops (and linalg.elementwise) are read through
// their bodies: div, negf, exp, reciprocal (1/x folds into the following mul
// as a division), mul, square, rsqrt, sub, powf with a splat 2, max with a
// zero splat (relu: lifted by default, cut with lift-relu=false), sqrt.
//
// RUN: mirage-opt --mirage-lift=lift-relu=false %s | FileCheck %s
// RUN: mirage-opt --mirage-lift %s | FileCheck %s --check-prefix=RELU
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM

func.func @named(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.div ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = linalg.negf ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%b : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = linalg.reciprocal ins(%c : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %f = linalg.mul ins(%x, %d : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = linalg.square ins(%f : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.rsqrt ins(%g : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %i = linalg.sub ins(%h, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %cst = arith.constant dense<2.0> : tensor<4x8xf32>
  %j = linalg.powf ins(%i, %cst : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %z = arith.constant dense<0.0> : tensor<4x8xf32>
  %k = linalg.max ins(%j, %z : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = linalg.sqrt ins(%k : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %l : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @named(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
// CHECK: %[[LAX0:.*]] = call @named_lax0(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[MAX:.*]] = linalg.max ins(%[[LAX0]], %[[ZERO]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: call @named_lax1(%[[MAX]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func private @named_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @named_lax0_ref} {
// CHECK-NEXT: %[[DIV0:.*]] = "ug.div"(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[DIV0]]) {scalar = -1.000000e+00 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MULS]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[DIV1:.*]] = "ug.div"(%[[X]], %[[EXP]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SQ0:.*]] = "ug.square"(%[[DIV1]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[SQ0]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[RSQRT]], %[[X]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SQ1:.*]] = "ug.square"(%[[SUB]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[SQ1]] : tensor<4x8xf32>
// CHECK-LABEL: func.func private @named_lax1(
// CHECK-SAME: %[[MAX:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @named_lax1_ref} {
// CHECK-NEXT: %[[SQRT:.*]] = "ug.sqrt"(%[[MAX]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[SQRT]] : tensor<4x8xf32>

// RELU-LABEL: func.func @named(
// RELU-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
// RELU: call @named_lax0(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-LABEL: func.func private @named_lax0(
// RELU-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @named_lax0_ref} {
// RELU-NEXT: %[[DIV0:.*]] = "ug.div"(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[DIV0]]) {scalar = -1.000000e+00 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[EXP:.*]] = "ug.exp"(%[[MULS]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[DIV1:.*]] = "ug.div"(%[[X]], %[[EXP]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[SQ0:.*]] = "ug.square"(%[[DIV1]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[SQ0]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[SUB:.*]] = "ug.sub"(%[[RSQRT]], %[[X]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[SQ1:.*]] = "ug.square"(%[[SUB]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[RELU:.*]] = "ug.relu"(%[[SQ1]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %[[SQRT:.*]] = "ug.sqrt"(%[[RELU]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: return %[[SQRT]] : tensor<4x8xf32>
// NUM-NOT: ill-conditioned
// NUM: @named_lax0: {{.*}}: ok
