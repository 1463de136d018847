// Names: subprogram k of @F is @F_lax<k> and @F_lax<k>_ref, numbered in op
// order; a name already taken in the module is skipped (here @f_lax0 is a
// user function). Lifting is idempotent: a second run finds nothing to lift,
// because references (named by a kernel graph's ug.reference) and μGraph
// functions are never lifted, and what is left in @f does not lift.
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift %s > %t.once
// RUN: mirage-opt --mirage-lift --mirage-lift %s > %t.twice
// RUN: diff %t.once %t.twice
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.floor %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.rsqrt %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = func.call @f_lax0(%c) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

func.func private @f_lax0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

func.func private @g(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @f(
// CHECK-NEXT:    %[[A:.*]] = call @f_lax1(%arg0)
// CHECK-NEXT:    %[[B:.*]] = tosa.floor %[[A]]
// CHECK-NEXT:    %[[C:.*]] = call @f_lax2(%[[B]])
// CHECK-NEXT:    %[[D:.*]] = call @f_lax0(%[[C]])
// CHECK-NEXT:    return %[[D]]
// CHECK:       func.func private @f_lax1({{.*}} attributes {ug.level = "kernel", ug.reference = @f_lax1_ref}
// CHECK:       func.func private @f_lax1_ref(
// CHECK:       func.func private @f_lax2({{.*}} attributes {ug.level = "kernel", ug.reference = @f_lax2_ref}
// CHECK:       func.func private @f_lax2_ref(
// CHECK:       func.func private @f_lax0(
// CHECK:       func.func private @g(
// CHECK-NEXT:    "ug.exp"
