// Constants added in linalg bodies, as torch-mlir's linalg path and JAX
// write them: a norm's eps (x·(1/n) + eps before rsqrt) and GELU's tanh
// form (0.5·x·(1 + tanh(...))). Such a constant has no tensor in the IR to
// pass in (a splat tensor is passed in, test/lift/tensor-arith.mlir), so
// x + c lifts as ug.add_scalar, and c - x as -x + c; until issue 30 these
// generics were cut ("a constant would have to become a tensor"). The
// verifier sees the constant's exact image: x + 1 + 2 is x + 3, a changed
// eps is told apart. The numbers agree with the original ops through the
// interpreter and through the searched and lowered kernels' CPU form.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="lower=false cache=false time-budget-s=0" %s > %t.opt
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=NUM
// RUN: (mirage-opt --mirage-check-equiv="lhs=shift_twice rhs=shift_once" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=SAME
// RUN: (mirage-opt --mirage-check-equiv="lhs=rms_eps rhs=rms_other_eps" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=EPS

// CHECK-LABEL: func.func private @rms_eps_lax0(
// CHECK: %[[M:.*]] = "ug.mul_scalar"({{.*}}) {scalar = 1.562500e-02 : f64} : (tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[E:.*]] = "ug.add_scalar"(%[[M]]) {scalar = 9.9999997473787516E-6 : f64}
// CHECK-NEXT: "ug.rsqrt"(%[[E]])
// CHECK-LABEL: func.func private @gelu_tanh_lax0(
// CHECK: "ug.tanh"
// CHECK-NEXT: "ug.add_scalar"({{.*}}) {scalar = 1.000000e+00 : f64}
// CHECK-LABEL: func.func private @one_minus_lax0(
// CHECK: %[[N:.*]] = "ug.mul_scalar"(%arg0) {scalar = -1.000000e+00 : f64}
// CHECK-NEXT: "ug.add_scalar"(%[[N]]) {scalar = 1.000000e+00 : f64}

// REM-DAG: remark: mirage-lift: '@rms_eps': lifted 1 subprogram (@rms_eps_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: '@gelu_tanh': lifted 1 subprogram (@gelu_tanh_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: '@one_minus': lifted 1 subprogram (@one_minus_lax0); 0 tensor ops left in place
// REM-NOT: is not lifted

// NUM-DAG: @rms_eps_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// NUM-DAG: @gelu_tanh_lax0: 1 output, 128 elements, max abs error {{.*}}: ok
// NUM-DAG: @one_minus_lax0: 1 output, 32 elements, max abs error {{.*}}: ok
// NUM-NOT: MISMATCH

// SAME: remark: '@shift_twice' and '@shift_once' are equivalent
// SAME-NEXT: exit 0
// EPS: error: '@rms_eps' and '@rms_other_eps' are not equivalent
// EPS-NEXT: exit 1

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>

// RMSNorm over rows of 64, the statistics in one generic with eps inside.
func.func @rms_eps(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 1.562500e-02 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %ss = linalg.reduce ins(%sq : tensor<4x64xf32>) outs(%f1 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %e2 = tensor.empty() : tensor<4x1xf32>
  %rs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%ss2 : tensor<4x1xf32>) outs(%e2 : tensor<4x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %inv : f32
    %p = arith.addf %m, %eps : f32
    %r = math.rsqrt %p : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %rs : tensor<4x64xf32>, tensor<4x1xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// A mutation: eps 1e-6.
func.func @rms_other_eps(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 1.562500e-02 : f32
  %eps = arith.constant 9.99999997E-7 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %ss = linalg.reduce ins(%sq : tensor<4x64xf32>) outs(%f1 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %e2 = tensor.empty() : tensor<4x1xf32>
  %rs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%ss2 : tensor<4x1xf32>) outs(%e2 : tensor<4x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %inv : f32
    %p = arith.addf %m, %eps : f32
    %r = math.rsqrt %p : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %rs : tensor<4x64xf32>, tensor<4x1xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// jax.nn.gelu(approximate=True): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
func.func @gelu_tanh(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %c = arith.constant 4.471500e-02 : f32
  %k = arith.constant 0.797884583 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<2x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x64xf32>) outs(%e : tensor<2x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %a2 = arith.mulf %a, %a : f32
    %a3 = arith.mulf %a2, %a : f32
    %t = arith.mulf %a3, %c : f32
    %s = arith.addf %a, %t : f32
    %u = arith.mulf %s, %k : f32
    %th = math.tanh %u : f32
    %p = arith.addf %th, %one : f32
    %h = arith.mulf %a, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x64xf32>
  return %y : tensor<2x64xf32>
}

// 1 - x (a gate's complement), a constant minus a tensor.
func.func @one_minus(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.subf %one, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// x + 1 + 2 against x + 3, both in bodies.
func.func @shift_twice(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.addf %a, %one : f32
    %q = arith.addf %p, %two : f32
    %r = math.exp %q : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

func.func @shift_once(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.addf %a, %three : f32
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
