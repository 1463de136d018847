// Clamps with constant bounds as frontends write them (issue 30 item 2):
// ReLU6 and hardtanh as tosa.clamp (torch-mlir's TOSA path), hardswish as
// torch-mlir decomposes it (x · clamp(x + 3, 0, 6) · 1/6), jax.nn.relu6 /
// jnp.clip as a linalg.generic with arith.maximumf and arith.minimumf on
// scalar constants, torch-mlir's linalg clamp (cmpf ult / ugt and select),
// and tosa.minimum against a splat constant. Each bound
// lifts as ug.max_scalar / ug.min_scalar (a lower bound of 0 as ug.relu),
// NaN winning as in tosa.clamp's default nan_mode; the verifier compares
// them in its random order of the field (docs/verification.md §4a), so a
// bound moved, or min for max, is told apart. The numbers agree with the
// original ops through the interpreter and through the searched and
// lowered kernels' CPU form.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="lower=false cache=false time-budget-s=0" %s > %t.opt
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=LOWER
// RUN: mirage-opt --mirage-superopt="cache=false time-budget-s=0 target=sm_80" %s | FileCheck %s --check-prefix=PTX
// RUN: (mirage-opt --mirage-check-equiv="lhs=relu6 rhs=relu6_minimum" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=SAME
// RUN: (mirage-opt --mirage-check-equiv="lhs=relu6 rhs=relu5" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=BOUND
// RUN: (mirage-opt --mirage-check-equiv="lhs=hardtanh rhs=hardtanh_flipped" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=FLIP

// CHECK-LABEL: func.func private @relu6_lax0(
// CHECK: %[[S:.*]] = "ug.add"
// CHECK-NEXT: %[[R:.*]] = "ug.relu"(%[[S]])
// CHECK-NEXT: "ug.min_scalar"(%[[R]]) {scalar = 6.000000e+00 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func private @relu6_minimum_lax0(
// CHECK: "ug.min_scalar"({{.*}}) {scalar = 6.000000e+00 : f64}
// CHECK-LABEL: func.func private @hardtanh_lax0(
// CHECK: %[[LO:.*]] = "ug.max_scalar"({{.*}}) {scalar = -1.000000e+00 : f64} : (tensor<2x16xf16>) -> tensor<2x16xf16>
// CHECK-NEXT: "ug.min_scalar"(%[[LO]]) {scalar = 1.000000e+00 : f64}
// CHECK-LABEL: func.func private @hardswish_lax0(
// CHECK: "ug.relu"
// CHECK: "ug.min_scalar"({{.*}}) {scalar = 6.000000e+00 : f64}
// CHECK: "ug.mul"
// CHECK-LABEL: func.func private @torch_hardtanh_lax0(
// CHECK: %[[LO:.*]] = "ug.max_scalar"({{.*}}) {scalar = -1.000000e+00 : f64}
// CHECK-NEXT: "ug.min_scalar"(%[[LO]]) {scalar = 1.000000e+00 : f64}
// CHECK-LABEL: func.func private @jax_clip_lax0(
// CHECK: "ug.max_scalar"({{.*}}) {scalar = -2.500000e-01 : f64}
// CHECK: "ug.min_scalar"({{.*}}) {scalar = 7.500000e-01 : f64}

// REM-DAG: remark: mirage-lift: '@relu6': lifted 1 subprogram (@relu6_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: '@hardswish': lifted 1 subprogram (@hardswish_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: '@jax_clip': lifted 1 subprogram (@jax_clip_lax0); 0 tensor ops left in place
// REM-NOT: is not lifted

// NUM-DAG: @relu6_lax0: 1 output, 32 elements, max abs error {{.*}}: ok
// NUM-DAG: @hardtanh_lax0: 1 output, 32 elements, max abs error {{.*}}: ok
// NUM-DAG: @hardswish_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// NUM-DAG: @jax_clip_lax0: 1 output, 64 elements, max abs error {{.*}}: ok
// NUM-DAG: @torch_hardtanh_lax0: 1 output, 64 elements, max abs error {{.*}}: ok
// NUM-DAG: @relu6_minimum_lax0: 1 output, 32 elements, max abs error {{.*}}: ok
// NUM-NOT: MISMATCH
// LOWER-DAG: @relu6_lax0: 1 output, 32 elements, max abs error {{.*}}: ok
// LOWER-DAG: @hardtanh_lax0: 1 output, 32 elements, max abs error {{.*}}: ok
// LOWER-DAG: @hardswish_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// LOWER-DAG: @jax_clip_lax0: 1 output, 64 elements, max abs error {{.*}}: ok
// LOWER-DAG: @torch_hardtanh_lax0: 1 output, 64 elements, max abs error {{.*}}: ok
// LOWER-NOT: MISMATCH

// The bounds reach the PTX as NaN-propagating min and max (sm_80 has both).
// PTX: gpu.binary @relu6_lax0_gpu
// PTX-SAME: min.NaN.f32
// PTX: gpu.binary @hardtanh_lax0_gpu
// PTX-SAME: max.NaN.f32
// PTX-SAME: min.NaN.f32

// SAME: remark: '@relu6' and '@relu6_minimum' are equivalent
// SAME-NEXT: exit 0
// BOUND: error: '@relu6' and '@relu5' are not equivalent
// BOUND-NEXT: exit 1
// FLIP: error: '@hardtanh' and '@hardtanh_flipped' are not equivalent
// FLIP-NEXT: exit 1

func.func @relu6(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = tosa.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.clamp %s {max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// A mutation: the upper bound moved.
func.func @relu5(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = tosa.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.clamp %s {max_val = 5.000000e+00 : f32, min_val = 0.000000e+00 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// The same ReLU6 as maximum and minimum against splat constants (an ONNX
// importer's Relu then Min).
func.func @relu6_minimum(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %six = "tosa.const"() <{values = dense<6.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %s = tosa.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = tosa.maximum %s, %zero : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  %r = tosa.minimum %p, %six : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// nn.Hardtanh in f16.
func.func @hardtanh(%x: tensor<2x16xf16>, %y: tensor<2x16xf16>) -> tensor<2x16xf16> {
  %s = tosa.sub %x, %y : (tensor<2x16xf16>, tensor<2x16xf16>) -> tensor<2x16xf16>
  %r = tosa.clamp %s {max_val = 1.000000e+00 : f16, min_val = -1.000000e+00 : f16} : (tensor<2x16xf16>) -> tensor<2x16xf16>
  return %r : tensor<2x16xf16>
}

// A mutation: the bounds exchanged, as maximum and minimum against splat
// constants (min(max(x, 1), -1) is -1 wherever x is not NaN).
func.func @hardtanh_flipped(%x: tensor<2x16xf16>, %y: tensor<2x16xf16>) -> tensor<2x16xf16> {
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %mone = "tosa.const"() <{values = dense<-1.0> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %s = tosa.sub %x, %y : (tensor<2x16xf16>, tensor<2x16xf16>) -> tensor<2x16xf16>
  %p = tosa.maximum %s, %one : (tensor<2x16xf16>, tensor<1x1xf16>) -> tensor<2x16xf16>
  %r = tosa.minimum %p, %mone : (tensor<2x16xf16>, tensor<1x1xf16>) -> tensor<2x16xf16>
  return %r : tensor<2x16xf16>
}

// nn.Hardswish as torch-mlir's TOSA path decomposes it.
func.func @hardswish(%x: tensor<1x16x16xf32>) -> tensor<1x16x16xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %three = "tosa.const"() <{values = dense<3.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %sixth = "tosa.const"() <{values = dense<0.166666672> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %a = tosa.add %x, %three : (tensor<1x16x16xf32>, tensor<1x1x1xf32>) -> tensor<1x16x16xf32>
  %c = tosa.clamp %a {max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32} : (tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<1xi8>) -> tensor<1x16x16xf32>
  %r = tosa.mul %m, %sixth, %shift : (tensor<1x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x16xf32>
  return %r : tensor<1x16x16xf32>
}

#id = affine_map<(d0, d1) -> (d0, d1)>
// nn.Hardtanh on torch-mlir's linalg path: compare and select against each
// bound (NaN picks the bound there; the lifted max/min propagate it).
func.func @torch_hardtanh(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %lo = arith.constant -1.0 : f32
  %hi = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.subf %x, %y : f32
    %p = arith.cmpf ult, %s, %lo : f32
    %m = arith.select %p, %lo, %s : f32
    %q = arith.cmpf ugt, %m, %hi : f32
    %n = arith.select %q, %hi, %m : f32
    linalg.yield %n : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// jnp.clip(a * b, -0.25, 0.75) as JAX lowers it to linalg: one generic,
// the bounds scalar constants outside the body.
func.func @jax_clip(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %lo = arith.constant -2.500000e-01 : f32
  %hi = arith.constant 7.500000e-01 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %p = arith.mulf %x, %y : f32
    %m = arith.maximumf %p, %lo : f32
    %n = arith.minimumf %m, %hi : f32
    linalg.yield %n : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
