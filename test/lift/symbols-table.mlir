// Names through the module's symbol table (one table per pass run, kept
// current as functions are added and replaced): a generated name is skipped
// when the kernel graph's name (@a_lax2) or its reference's (@a_lax0_ref)
// is taken, wherever in the module the taken name is (here after @a); a
// function named by a kernel graph's ug.reference is never lifted, even
// when it comes before that kernel graph (@c_ref). Re-exporting every kernel
// graph (--mirage-test-bridge, which keeps the graphs only) replaces each
// in place: the functions keep their order. Lift + unlift prints the input
// again.
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift %s > %t.once
// RUN: mirage-opt --mirage-lift --mirage-lift %s > %t.twice
// RUN: diff %t.once %t.twice
// RUN: mirage-opt --mirage-lift --mirage-test-bridge %s | FileCheck %s --check-prefix=BRIDGE
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt

func.func private @c_ref(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

func.func @a(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.floor %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.rsqrt %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

func.func @b(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

func.func private @a_lax0_ref(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

func.func private @a_lax2(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

func.func private @c(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @c_ref} {
  %0 = "ug.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func private @c_ref(
// CHECK-NEXT:    tosa.exp
// CHECK-LABEL: func.func @a(
// CHECK-NEXT:    %[[A:.*]] = call @a_lax1(%arg0)
// CHECK-NEXT:    %[[B:.*]] = tosa.floor %[[A]]
// CHECK-NEXT:    %[[C:.*]] = call @a_lax3(%[[B]])
// CHECK-NEXT:    return %[[C]]
// CHECK:       func.func private @a_lax1({{.*}} attributes {ug.level = "kernel", ug.reference = @a_lax1_ref}
// CHECK:       func.func private @a_lax1_ref(
// CHECK:       func.func private @a_lax3({{.*}} attributes {ug.level = "kernel", ug.reference = @a_lax3_ref}
// CHECK:       func.func private @a_lax3_ref(
// CHECK-LABEL: func.func @b(
// CHECK-NEXT:    call @b_lax0(%arg0)
// CHECK:       func.func private @b_lax0({{.*}} attributes {ug.level = "kernel", ug.reference = @b_lax0_ref}
// CHECK:       func.func private @b_lax0_ref(
// CHECK:       func.func private @a_lax0_ref(
// CHECK-NEXT:    return
// CHECK:       func.func private @a_lax2(
// CHECK-NEXT:    return
// CHECK:       func.func private @c(
// CHECK-NEXT:    "ug.exp"

// BRIDGE: func.func private @c_ref(
// BRIDGE: func.func @a(
// BRIDGE: func.func @a_lax1(
// BRIDGE: func.func private @a_lax1_ref(
// BRIDGE: func.func @a_lax3(
// BRIDGE: func.func private @a_lax3_ref(
// BRIDGE: func.func @b(
// BRIDGE: func.func @b_lax0(
// BRIDGE: func.func private @b_lax0_ref(
// BRIDGE: func.func private @a_lax0_ref(
// BRIDGE: func.func private @a_lax2(
// BRIDGE: func.func @c(
// BRIDGE-NEXT: "ug.exp"
