// --mirage-unlift inlines the reference of every call to a kernel graph
// that carries ug.reference, then erases the kernel graphs and references
// nothing refers to any more. A reference without ug.unlift slots (written by
// hand, or by another tool) is inlined just before the call, constants and
// all. Calls to ordinary functions, and kernel graphs without a reference,
// are left alone.
//
// RUN: mirage-opt --mirage-unlift %s | FileCheck %s
// RUN: mirage-opt --mirage-unlift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM

func.func @twice(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = func.call @k(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = func.call @k(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = func.call @helper(%b) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = func.call @no_reference(%c) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

func.func private @k(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @k_ref} {
  %0 = "ug.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "ug.mul_scalar"(%0) {scalar = 2.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

func.func private @k_ref(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = "tosa.const"() <{values = dense<2.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = tosa.mul %e, %c, %s : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

func.func private @helper(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

func.func private @no_reference(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @twice(
// CHECK-NEXT:    %[[C1:.*]] = "tosa.const"() <{values = dense<2.000000e+00> : tensor<1x1xf32>}>
// CHECK-NEXT:    %[[S1:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
// CHECK-NEXT:    %[[E1:.*]] = tosa.exp %arg0
// CHECK-NEXT:    %[[M1:.*]] = tosa.mul %[[E1]], %[[C1]], %[[S1]]
// CHECK-NEXT:    %[[C2:.*]] = "tosa.const"() <{values = dense<2.000000e+00> : tensor<1x1xf32>}>
// CHECK-NEXT:    %[[S2:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
// CHECK-NEXT:    %[[E2:.*]] = tosa.exp %[[M1]]
// CHECK-NEXT:    %[[M2:.*]] = tosa.mul %[[E2]], %[[C2]], %[[S2]]
// CHECK-NEXT:    %[[H:.*]] = call @helper(%[[M2]])
// CHECK-NEXT:    %[[N:.*]] = call @no_reference(%[[H]])
// CHECK-NEXT:    return %[[N]]
// CHECK-NOT:   @k(
// CHECK-NOT:   @k_ref(
// CHECK:       func.func private @helper(
// CHECK:       func.func private @no_reference(
// CHECK-NOT:   @k

// REM: remark: mirage-unlift: inlined 2 kernel graph calls
