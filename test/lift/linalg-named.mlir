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
// CHECK: call @named_lax0(%arg0, %arg1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: call @named_lax1(%2) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func private @named_lax0(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @named_lax0_ref} {
// CHECK-NEXT: %0 = "ug.div"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %1 = "ug.mul_scalar"(%0) {scalar = -1.000000e+00 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %2 = "ug.exp"(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %3 = "ug.div"(%arg0, %2) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %4 = "ug.square"(%3) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %5 = "ug.rsqrt"(%4) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %6 = "ug.sub"(%5, %arg0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %7 = "ug.square"(%6) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %7 : tensor<4x8xf32>
// CHECK-LABEL: func.func private @named_lax1(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @named_lax1_ref} {
// CHECK-NEXT: %0 = "ug.sqrt"(%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %0 : tensor<4x8xf32>

// RELU-LABEL: func.func @named(
// RELU: call @named_lax0(%arg0, %arg1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-LABEL: func.func private @named_lax0(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @named_lax0_ref} {
// RELU-NEXT: %0 = "ug.div"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %1 = "ug.mul_scalar"(%0) {scalar = -1.000000e+00 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %2 = "ug.exp"(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %3 = "ug.div"(%arg0, %2) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %4 = "ug.square"(%3) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %5 = "ug.rsqrt"(%4) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %6 = "ug.sub"(%5, %arg0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %7 = "ug.square"(%6) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %8 = "ug.relu"(%7) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: %9 = "ug.sqrt"(%8) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// RELU-NEXT: return %9 : tensor<4x8xf32>
// NUM-NOT: ill-conditioned
// NUM: @named_lax0: {{.*}}: ok
