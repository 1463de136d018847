// torch's `softmax(x.float() * scale, -1).half()` on f16 scores x: a
// widening tosa.cast, the scale as a tosa.mul by a 1x1x1 f32 constant, the
// stable softmax in f32, a narrowing cast. A splat product is mul_scalar,
// which stores in its operand's type; here that operand is the f16 input
// seen through the cast, so mul_scalar would round x·scale to f16 where the
// IR computes it in f32. The product is therefore ug.mul with the constant
// passed in (as for x + c), which stores f32, and the casts stay views: ONE
// subprogram with the f16 scores as input, like `softmax(x.float()).half()`
// (stable-softmax.mlir). Before, the leading cast was cut and the kernel
// graph took x.float() as an f32 input.
//  - @scaled_tosa: the scale as a product;
//  - @divided_tosa: `x.float() / 8` as torch-mlir writes it, a product
//    with the reciprocal of the constant (the reciprocal is floating: it
//    stays in @F and its result is passed in);
//  - @scaled_before_cast_tosa: `softmax(x * scale).float()...`: the scale in
//    f16 before the cast is mul_scalar as before;
//  - @scaled_linalg: torch-mlir's linalg, the scale an f32 scalar captured
//    by the body: it has no tensor form to pass in, so the extf generic is
//    still left in place (the kernel graph reads its f32 result);
//  - @scale_passed_and_folded: the scale is passed in for the product and
//    also read by a floating tosa.reciprocal, which the kernel graph folds
//    (mul_scalar 8): the reference's copy of the reciprocal reads the
//    copied constant and the product reads the argument, so the reference
//    is the kernel graph's function of its arguments (mirage-run draws the
//    scale at random; the reference used to read the copy in both).
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift --range=1 %s | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --lift --range=8 %s | FileCheck %s --check-prefix=VAL
//
// REM: '@scaled_tosa': lifted 1 subprogram (@scaled_tosa_lax0); 0 tensor ops left in place
// REM-NEXT: @scaled_tosa_lax0: 9 ops -> kernel graph of 6 μGraph ops, 2 inputs, 1 output
// REM: '@divided_tosa': lifted 1 subprogram (@divided_tosa_lax0); 0 tensor ops left in place
// REM-NEXT: @divided_tosa_lax0: 9 ops -> kernel graph of 6 μGraph ops, 2 inputs, 1 output
// REM: '@scaled_before_cast_tosa': lifted 1 subprogram (@scaled_before_cast_tosa_lax0); 0 tensor ops left in place
// REM-NEXT: @scaled_before_cast_tosa_lax0: 9 ops -> kernel graph of 6 μGraph ops, 1 input, 1 output
// REM: '@scaled_linalg': lifted 1 subprogram (@scaled_linalg_lax0); 1 tensor op left in place
// REM-NEXT: 'linalg.generic' is not lifted: an element-wise op would compute in f16 what is written in f32 (the μGraph's unary ops keep their operand's type)
// REM-NEXT: @scaled_linalg_lax0: 5 ops -> kernel graph of 6 μGraph ops, 1 input, 1 output
//
// VAL: @scaled_tosa_lax0: 1 output, 32768 elements, max abs error {{.*}}: ok
// VAL-NEXT: @divided_tosa_lax0: 1 output, 32768 elements, max abs error {{.*}}: ok
// VAL-NEXT: @scaled_before_cast_tosa_lax0: 1 output, 32768 elements, max abs error {{.*}}: ok
// VAL-NEXT: @scaled_linalg_lax0: 1 output, 32768 elements, max abs error {{.*}}: ok
// VAL-NEXT: @scale_passed_and_folded_lax0: 1 output, 32768 elements, max abs error {{.*}}: ok
// VAL-NOT: {{MISMATCH|OVERFLOW|nan|inf}}

func.func @scaled_tosa(%x: tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %0 = tosa.cast %x : (tensor<2x64x256xf16>) -> tensor<2x64x256xf32>
  %1 = tosa.mul %0, %scale, %shift : (tensor<2x64x256xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x256xf32>
  %2 = tosa.reduce_max %1 {axis = 2 : i32} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %3 = tosa.sub %1, %2 : (tensor<2x64x256xf32>, tensor<2x64x1xf32>) -> tensor<2x64x256xf32>
  %4 = tosa.exp %3 : (tensor<2x64x256xf32>) -> tensor<2x64x256xf32>
  %5 = tosa.reduce_sum %4 {axis = 2 : i32} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %6 = tosa.reciprocal %5 : (tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %7 = tosa.mul %4, %6, %shift : (tensor<2x64x256xf32>, tensor<2x64x1xf32>, tensor<1xi8>) -> tensor<2x64x256xf32>
  %8 = tosa.cast %7 : (tensor<2x64x256xf32>) -> tensor<2x64x256xf16>
  return %8 : tensor<2x64x256xf16>
}

func.func @divided_tosa(%x: tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %d = "tosa.const"() <{values = dense<8.000000e+00> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %r = tosa.reciprocal %d : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %0 = tosa.cast %x : (tensor<2x64x256xf16>) -> tensor<2x64x256xf32>
  %1 = tosa.mul %0, %r, %shift : (tensor<2x64x256xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x256xf32>
  %2 = tosa.reduce_max %1 {axis = 2 : i32} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %3 = tosa.sub %1, %2 : (tensor<2x64x256xf32>, tensor<2x64x1xf32>) -> tensor<2x64x256xf32>
  %4 = tosa.exp %3 : (tensor<2x64x256xf32>) -> tensor<2x64x256xf32>
  %5 = tosa.reduce_sum %4 {axis = 2 : i32} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %6 = tosa.reciprocal %5 : (tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %7 = tosa.mul %4, %6, %shift : (tensor<2x64x256xf32>, tensor<2x64x1xf32>, tensor<1xi8>) -> tensor<2x64x256xf32>
  %8 = tosa.cast %7 : (tensor<2x64x256xf32>) -> tensor<2x64x256xf16>
  return %8 : tensor<2x64x256xf16>
}

func.func @scaled_before_cast_tosa(%x: tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %0 = tosa.mul %x, %scale, %shift : (tensor<2x64x256xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x64x256xf16>
  %1 = tosa.cast %0 : (tensor<2x64x256xf16>) -> tensor<2x64x256xf32>
  %2 = tosa.reduce_max %1 {axis = 2 : i32} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %3 = tosa.sub %1, %2 : (tensor<2x64x256xf32>, tensor<2x64x1xf32>) -> tensor<2x64x256xf32>
  %4 = tosa.exp %3 : (tensor<2x64x256xf32>) -> tensor<2x64x256xf32>
  %5 = tosa.reduce_sum %4 {axis = 2 : i32} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %6 = tosa.reciprocal %5 : (tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %7 = tosa.mul %4, %6, %shift : (tensor<2x64x256xf32>, tensor<2x64x1xf32>, tensor<1xi8>) -> tensor<2x64x256xf32>
  %8 = tosa.cast %7 : (tensor<2x64x256xf32>) -> tensor<2x64x256xf16>
  return %8 : tensor<2x64x256xf16>
}

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

func.func @scaled_linalg(%arg0: tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  %scale = arith.constant 1.250000e-01 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e32 = tensor.empty() : tensor<2x64x256xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x64x256xf16>) outs(%e32 : tensor<2x64x256xf32>) {
  ^bb0(%in: f16, %out: f32):
    %r = arith.extf %in : f16 to f32
    linalg.yield %r : f32
  } -> tensor<2x64x256xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<2x64x256xf32>) outs(%e32 : tensor<2x64x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %scale : f32
    linalg.yield %r : f32
  } -> tensor<2x64x256xf32>
  %er = tensor.empty() : tensor<2x64x1xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%s : tensor<2x64x256xf32>) outs(%fm : tensor<2x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x64x1xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %m : tensor<2x64x256xf32>, tensor<2x64x1xf32>) outs(%e32 : tensor<2x64x256xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %d = arith.subf %in, %in_1 : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x64x256xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%er : tensor<2x64x1xf32>) -> tensor<2x64x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<2x64x256xf32>) outs(%fz : tensor<2x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x64x1xf32>
  %e16 = tensor.empty() : tensor<2x64x256xf16>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<2x64x256xf32>, tensor<2x64x1xf32>) outs(%e16 : tensor<2x64x256xf16>) {
  ^bb0(%in: f32, %in_1: f32, %out: f16):
    %q = arith.divf %in, %in_1 : f32
    %r = arith.truncf %q : f32 to f16
    linalg.yield %r : f16
  } -> tensor<2x64x256xf16>
  return %p : tensor<2x64x256xf16>
}

func.func @scale_passed_and_folded(%x: tensor<2x64x256xf16>) -> tensor<2x64x256xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %0 = tosa.cast %x : (tensor<2x64x256xf16>) -> tensor<2x64x256xf32>
  %1 = tosa.mul %0, %scale, %shift : (tensor<2x64x256xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x256xf32>
  %r = tosa.reciprocal %scale : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %2 = tosa.mul %1, %r, %shift : (tensor<2x64x256xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x64x256xf32>
  return %2 : tensor<2x64x256xf32>
}

// CHECK-LABEL: func.func @scaled_tosa(
// CHECK-NOT: tosa.cast
// CHECK: %[[C:.*]] = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1xf32>}>
// CHECK-NOT: tosa.cast
// CHECK: call @scaled_tosa_lax0(%arg0, %[[C]]) : (tensor<2x64x256xf16>, tensor<1x1x1xf32>) -> tensor<2x64x256xf16>
// CHECK-LABEL: func.func private @scaled_tosa_lax0(%arg0: tensor<2x64x256xf16>, %arg1: tensor<1x1x1xf32>) -> tensor<2x64x256xf16>
// CHECK-NEXT: %[[S:.*]] = "ug.mul"(%arg0, %arg1) : (tensor<2x64x256xf16>, tensor<1x1x1xf32>) -> tensor<2x64x256xf32>
// CHECK-NEXT: %[[M:.*]] = "ug.reduce_max"(%[[S]]) {dim = 2 : i64} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
// CHECK-NEXT: %[[D:.*]] = "ug.sub"(%[[S]], %[[M]]) : (tensor<2x64x256xf32>, tensor<2x64x1xf32>) -> tensor<2x64x256xf32>
// CHECK-NEXT: %[[E:.*]] = "ug.exp"(%[[D]]) : (tensor<2x64x256xf32>) -> tensor<2x64x256xf32>
// CHECK-NEXT: %[[Z:.*]] = "ug.sum"(%[[E]]) {dim = 2 : i64} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
// CHECK-NEXT: %[[P:.*]] = "ug.div"(%[[E]], %[[Z]]) : (tensor<2x64x256xf32>, tensor<2x64x1xf32>) -> tensor<2x64x256xf16>
// CHECK-NEXT: return %[[P]]
// The reference reads the scale from its argument (mirage-run draws it).
// CHECK-LABEL: func.func private @scaled_tosa_lax0_ref(%arg0: tensor<2x64x256xf16>, %arg1: tensor<1x1x1xf32>)
// CHECK: %[[W:.*]] = tosa.cast %arg0
// CHECK-NEXT: tosa.mul %[[W]], %arg1,

// CHECK-LABEL: func.func @divided_tosa(
// CHECK: %[[R:.*]] = tosa.reciprocal
// CHECK-NOT: tosa.cast
// CHECK: call @divided_tosa_lax0(%arg0, %[[R]]) : (tensor<2x64x256xf16>, tensor<1x1x1xf32>) -> tensor<2x64x256xf16>
// CHECK-LABEL: func.func private @divided_tosa_lax0(
// CHECK-NEXT: "ug.mul"(%arg0, %arg1) : (tensor<2x64x256xf16>, tensor<1x1x1xf32>) -> tensor<2x64x256xf32>

// CHECK-LABEL: func.func @scaled_before_cast_tosa(
// CHECK: call @scaled_before_cast_tosa_lax0(%arg0) : (tensor<2x64x256xf16>) -> tensor<2x64x256xf16>
// CHECK-LABEL: func.func private @scaled_before_cast_tosa_lax0(
// CHECK-NEXT: %[[S:.*]] = "ug.mul_scalar"(%arg0) {scalar = 1.250000e-01 : f64} : (tensor<2x64x256xf16>) -> tensor<2x64x256xf16>
// CHECK-NEXT: "ug.reduce_max"(%[[S]]) {dim = 2 : i64} : (tensor<2x64x256xf16>) -> tensor<2x64x1xf32>

// CHECK-LABEL: func.func @scaled_linalg(
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x64x256xf16>)
// CHECK: call @scaled_linalg_lax0(%[[W]]) : (tensor<2x64x256xf32>) -> tensor<2x64x256xf16>
// CHECK-LABEL: func.func private @scaled_linalg_lax0(
// CHECK-NEXT: "ug.mul_scalar"(%arg0) {scalar = 1.250000e-01 : f64} : (tensor<2x64x256xf32>) -> tensor<2x64x256xf32>

// CHECK-LABEL: func.func @scale_passed_and_folded(
// CHECK: %[[C:.*]] = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1xf32>}>
// CHECK: call @scale_passed_and_folded_lax0(%arg0, %[[C]]) : (tensor<2x64x256xf16>, tensor<1x1x1xf32>) -> tensor<2x64x256xf32>
// CHECK-LABEL: func.func private @scale_passed_and_folded_lax0(
// CHECK-NEXT: %[[S:.*]] = "ug.mul"(%arg0, %arg1) : (tensor<2x64x256xf16>, tensor<1x1x1xf32>) -> tensor<2x64x256xf32>
// CHECK-NEXT: "ug.mul_scalar"(%[[S]]) {scalar = 8.000000e+00 : f64} : (tensor<2x64x256xf32>) -> tensor<2x64x256xf32>
// CHECK-LABEL: func.func private @scale_passed_and_folded_lax0_ref(%arg0: tensor<2x64x256xf16>, %arg1: tensor<1x1x1xf32>)
// CHECK: %[[K:.*]] = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1xf32>}>
// CHECK-NEXT: %[[W:.*]] = tosa.cast %arg0
// CHECK-NEXT: tosa.mul %[[W]], %arg1,
// CHECK-NEXT: tosa.reciprocal %[[K]]
