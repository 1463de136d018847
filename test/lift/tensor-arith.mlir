// Element-wise arith / math ops applied to whole tensors (issue 32), as
// JAX (StableHLO -> linalg) and torch-mlir sometimes leave them instead of
// a linalg.generic: `math.exp %t : tensor<...>`, arith.mulf / addf,
// math.rsqrt / tanh, arith.extf / truncf on tensors. They lift
// as their generic forms do (casts are views). Our own text.
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift %s > %t.mlir
// RUN: mirage-opt --mirage-verify-ugraph %t.mlir > /dev/null
// RUN: python3 %S/Inputs/distinct_args.py %t.mlir > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lower %t.mlir | FileCheck %s --check-prefix=NUM
//
// REM: '@softmax_exp': lifted 1 subprogram (@softmax_exp_lax0); 0 tensor ops left in place
// REM: @softmax_exp_lax0: 5 ops -> kernel graph of 5 μGraph ops, 1 input, 1 output
// REM: '@gelu_tanh': lifted 1 subprogram (@gelu_tanh_lax0); 0 tensor ops left in place
// REM: '@rms_scale': lifted 1 subprogram (@rms_scale_lax0); 0 tensor ops left in place
// REM: module: {{[0-9]+}} of {{[0-9]+}} tensor ops lifted (100.0 %)
//
// CHECK-LABEL: func.func private @softmax_exp_lax0(
// CHECK: "ug.reduce_max"
// CHECK-NEXT: %[[D:[0-9]+]] = "ug.sub"
// CHECK-NEXT: %[[E:[0-9]+]] = "ug.exp"(%[[D]]) : (tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT: %[[S:[0-9]+]] = "ug.sum"(%[[E]])
// CHECK-NEXT: "ug.div"(%[[E]], %[[S]])
// CHECK-LABEL: func.func private @gelu_tanh_lax0(
// CHECK: "ug.tanh"
// CHECK-NOT: func.func private @gelu_tanh_lax1(
// CHECK-LABEL: func.func private @rms_scale_lax0(
// CHECK-SAME: tensor<4x32xf16>
// CHECK: "ug.rsqrt"
// CHECK: "ug.mul"({{.*}}) : (tensor<4x32xf16>, tensor<4x1xf32>) -> tensor<4x32xf16>
//
// NUM: @softmax_exp_lax0: 1 output, 128 elements, max abs error {{.*}}: ok
// NUM: @gelu_tanh_lax0: 1 output, 128 elements, max abs error {{.*}}: ok
// NUM: @rms_scale_lax0: 1 output, 128 elements{{.*}}: ok
// NUM-NOT: MISMATCH

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
// The stable softmax with the exp on the tensor (a JAX program after
// StableHLO -> linalg that kept `exponential` element-wise).
func.func @softmax_exp(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x32xf32>) outs(%fm : tensor<4x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<4x32xf32>, tensor<4x1xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  %p = math.exp %d : tensor<4x32xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%p : tensor<4x32xf32>) outs(%fs : tensor<4x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%p, %s : tensor<4x32xf32>, tensor<4x1xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// GELU's tanh form, every step an arith/math op on the tensor, constants
// as dense splats (torch-mlir's elementwise-to-arith form).
func.func @gelu_tanh(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %half = arith.constant dense<0.5> : tensor<4x32xf32>
  %one = arith.constant dense<1.0> : tensor<4x32xf32>
  %k = arith.constant dense<0.0447149985> : tensor<4x32xf32>
  %s = arith.constant dense<0.797884583> : tensor<4x32xf32>
  %x2 = arith.mulf %x, %x : tensor<4x32xf32>
  %x3 = arith.mulf %x2, %x : tensor<4x32xf32>
  %kx3 = arith.mulf %x3, %k : tensor<4x32xf32>
  %in = arith.addf %x, %kx3 : tensor<4x32xf32>
  %si = arith.mulf %in, %s : tensor<4x32xf32>
  %t = math.tanh %si : tensor<4x32xf32>
  %t1 = arith.addf %t, %one : tensor<4x32xf32>
  %hx = arith.mulf %x, %half : tensor<4x32xf32>
  %y = arith.mulf %hx, %t1 : tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// RMS scaling in f32 of f16 data: extf, rsqrt of (v² + eps) on a tensor,
// the broadcast product as a generic, truncf back (the product stores
// f16 itself, as after tosa.cast). mirage-run draws the eps splat (an
// input of the kernel graph) at random too, so rows whose v² + eps < 0 are
// NaN on both sides and not compared.
func.func @rms_scale(%x: tensor<4x32xf16>, %v: tensor<4x1xf32>) -> tensor<4x32xf16> {
  %xf = arith.extf %x : tensor<4x32xf16> to tensor<4x32xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<4x1xf32>
  %v2 = arith.mulf %v, %v : tensor<4x1xf32>
  %ve = arith.addf %v2, %eps : tensor<4x1xf32>
  %r = math.rsqrt %ve : tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%xf, %r : tensor<4x32xf32>, tensor<4x1xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<4x32xf32>
  %h = arith.truncf %y : tensor<4x32xf32> to tensor<4x32xf16>
  return %h : tensor<4x32xf16>
}
