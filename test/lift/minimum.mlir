// Minimum of two tensors as frontends spell it: tosa.minimum, the named
// linalg.min, arith.minimumf in a linalg.generic body (torch.minimum) and
// on whole tensors (JAX). The μGraph has no min op: min(x, y) lifts as
// -max(-x, -y) (three mul_scalar -1 and a ug.maximum), exact in floats, so
// the verifier's and the search's treatment of max covers it. A clamp to
// the type's whole range is the identity (clamps with constant bounds:
// clamp.mlir). Numbers
// agree with the original ops through the interpreter
// and through the searched and lowered kernels' CPU form; the verifier
// tells min from max and from a min with one operand changed.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="lower=false cache=false time-budget-s=0" %s > %t.opt
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=LOWER
// RUN: (mirage-opt --mirage-check-equiv="lhs=tosa_min rhs=tosa_min_swapped" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=SWAP
// RUN: (mirage-opt --mirage-check-equiv="lhs=tosa_min rhs=tosa_max" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=MAX
// RUN: (mirage-opt --mirage-check-equiv="lhs=tosa_min rhs=tosa_min_other" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=OTHER
// RUN: (mirage-opt --mirage-check-equiv="lhs=tosa_min rhs=generic_min" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=FORMS

// CHECK-LABEL: func.func private @tosa_min_lax0(
// CHECK: %[[S:.*]] = "ug.add"
// CHECK: %[[P:.*]] = "ug.mul"
// CHECK: %[[NS:.*]] = "ug.mul_scalar"(%[[S]]) {scalar = -1.000000e+00 : f64}
// CHECK: %[[NP:.*]] = "ug.mul_scalar"(%[[P]]) {scalar = -1.000000e+00 : f64}
// CHECK: %[[M:.*]] = "ug.maximum"(%[[NS]], %[[NP]])
// CHECK: "ug.mul_scalar"(%[[M]]) {scalar = -1.000000e+00 : f64}
// CHECK-LABEL: func.func private @named_min_lax0(
// CHECK: "ug.maximum"
// CHECK-LABEL: func.func private @generic_min_lax0(
// CHECK: "ug.maximum"
// CHECK-LABEL: func.func private @tensor_min_lax0(
// CHECK: "ug.maximum"
// CHECK-LABEL: func.func private @clamp_unbounded_lax0(
// CHECK-NOT: ug.maximum
// CHECK: "ug.add"
// CHECK-NEXT: return

// REM-DAG: remark: mirage-lift: @tosa_min_lax0: 3 ops -> kernel graph of 6 μGraph ops, 2 inputs, 1 output
// REM-DAG: remark: mirage-lift: @named_min_lax0: 3 ops -> kernel graph of 6 μGraph ops, 2 inputs, 1 output

// NUM-DAG: @tosa_min_lax0: 1 output, 128 elements, max abs error {{.*}}: ok
// NUM-DAG: @named_min_lax0: 1 output, 32 elements, max abs error {{.*}}: ok
// NUM-DAG: @generic_min_lax0: 1 output, 128 elements, max abs error {{.*}}: ok
// NUM-DAG: @tensor_min_lax0: 1 output, 64 elements, max abs error {{.*}}: ok
// NUM-DAG: @clamp_unbounded_lax0: 1 output, 32 elements, max abs error {{.*}}: ok
// NUM-NOT: MISMATCH
// LOWER-DAG: @tosa_min_lax0: 1 output, 128 elements, max abs error {{.*}}: ok
// LOWER-DAG: @generic_min_lax0: 1 output, 128 elements, max abs error {{.*}}: ok
// LOWER-NOT: MISMATCH

// SWAP: remark: '@tosa_min' and '@tosa_min_swapped' are equivalent
// SWAP-NEXT: exit 0
// MAX: error: '@tosa_min' and '@tosa_max' are not equivalent
// MAX-NEXT: exit 1
// OTHER: error: '@tosa_min' and '@tosa_min_other' are not equivalent
// OTHER-NEXT: exit 1
// FORMS: remark: '@tosa_min' and '@generic_min' are equivalent
// FORMS-NEXT: exit 0

func.func @tosa_min(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.add %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = tosa.mul %a, %b, %shift : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<1xi8>) -> tensor<8x16xf32>
  %r = tosa.minimum %s, %p : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

func.func @tosa_min_swapped(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.add %b, %a : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = tosa.mul %b, %a, %shift : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<1xi8>) -> tensor<8x16xf32>
  %r = tosa.minimum %p, %s : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// A mutation: max where min was meant.
func.func @tosa_max(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.add %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = tosa.mul %a, %b, %shift : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<1xi8>) -> tensor<8x16xf32>
  %r = tosa.maximum %s, %p : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// A mutation: one operand changed (a - b for a + b).
func.func @tosa_min_other(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.sub %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = tosa.mul %a, %b, %shift : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<1xi8>) -> tensor<8x16xf32>
  %r = tosa.minimum %s, %p : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

func.func @named_min(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = linalg.mul ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.min ins(%s, %p : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

#id = affine_map<(d0, d1) -> (d0, d1)>
// torch.minimum(a + b, a * b) as torch-mlir lowers it: one generic.
func.func @generic_min(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %p = arith.mulf %x, %y : f32
    %m = arith.minimumf %s, %p : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// jnp.minimum on whole tensors (f16, minnumf taken as minimumf).
func.func @tensor_min(%a: tensor<4x16xf16>, %b: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %s = arith.addf %a, %b : tensor<4x16xf16>
  %m = arith.minnumf %s, %b : tensor<4x16xf16>
  return %m : tensor<4x16xf16>
}

// A clamp to the type's whole range bounds nothing: the identity.
func.func @clamp_unbounded(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = tosa.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.clamp %s {max_val = 3.40282347E+38 : f32, min_val = -3.40282347E+38 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
