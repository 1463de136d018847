// Element-wise math as frontends spell it: tosa.log / tanh / erf, relu as a
// clamp (lifted by default), GELU's tanh approximation (GPT-2, written out
// as torch-mlir's TOSA does) and its erf form; linalg.generic bodies with
// math.fpowi x^2 (torch's x.pow(2)), math.tanh, math.erf, math.log; the
// named linalg.log / tanh / erf. Each function lifts as one subprogram;
// log, tanh and erf are non-LAX ops the verifier treats as uninterpreted
// functions (like silu). Numbers agree with the original ops through the
// interpreter and through the lowered kernels' CPU form.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="lower=false cache=false time-budget-s=0" %s > %t.opt
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=LOWER

// CHECK-LABEL: func.func private @gelu_tanh_lax0(
// CHECK-DAG: "ug.tanh"
// CHECK-DAG: "ug.mul_scalar"
// CHECK-LABEL: func.func private @gelu_erf_lax0(
// CHECK: "ug.erf"
// CHECK-LABEL: func.func private @log_relu_lax0(
// CHECK-DAG: "ug.relu"
// CHECK-DAG: "ug.log"
// CHECK-LABEL: func.func private @generic_math_lax0(
// CHECK-DAG: "ug.square"
// CHECK-DAG: "ug.tanh"
// CHECK-DAG: "ug.erf"
// CHECK-DAG: "ug.log"
// CHECK-LABEL: func.func private @named_math_lax0(
// CHECK-DAG: "ug.log"
// CHECK-DAG: "ug.tanh"
// CHECK-DAG: "ug.erf"

// REM-NOT: is not lifted
// REM: module: {{[0-9]+}} of {{[0-9]+}} tensor ops lifted (100.0 %) into 5 subprograms
// NUM-COUNT-5: : ok
// NUM-NOT: mismatch
// LOWER-NOT: mismatch
// LOWER: ok

func.func @gelu_tanh(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c3 = "tosa.const"() <{values = dense<3.000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %k = "tosa.const"() <{values = dense<4.471500e-02> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %s = "tosa.const"() <{values = dense<0.797884583> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %one = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %half = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %x2 = tosa.mul %x, %x, %shift : (tensor<4x32xf32>, tensor<4x32xf32>, tensor<1xi8>) -> tensor<4x32xf32>
  %x3 = tosa.mul %x2, %x, %shift : (tensor<4x32xf32>, tensor<4x32xf32>, tensor<1xi8>) -> tensor<4x32xf32>
  %kx3 = tosa.mul %x3, %k, %shift : (tensor<4x32xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x32xf32>
  %in = tosa.add %x, %kx3 : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %sin = tosa.mul %in, %s, %shift : (tensor<4x32xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x32xf32>
  %t = tosa.tanh %sin : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %t1 = tosa.add %t, %one : (tensor<4x32xf32>, tensor<1x1xf32>) -> tensor<4x32xf32>
  %hx = tosa.mul %x, %half, %shift : (tensor<4x32xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x32xf32>
  %y = tosa.mul %hx, %t1, %shift : (tensor<4x32xf32>, tensor<4x32xf32>, tensor<1xi8>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

func.func @gelu_erf(%x: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r2 = "tosa.const"() <{values = dense<0.707106769> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %one = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %half = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %a = tosa.mul %x, %r2, %shift : (tensor<4x32xf16>, tensor<1x1xf16>, tensor<1xi8>) -> tensor<4x32xf16>
  %e = tosa.erf %a : (tensor<4x32xf16>) -> tensor<4x32xf16>
  %e1 = tosa.add %e, %one : (tensor<4x32xf16>, tensor<1x1xf16>) -> tensor<4x32xf16>
  %hx = tosa.mul %x, %half, %shift : (tensor<4x32xf16>, tensor<1x1xf16>, tensor<1xi8>) -> tensor<4x32xf16>
  %y = tosa.mul %hx, %e1, %shift : (tensor<4x32xf16>, tensor<4x32xf16>, tensor<1xi8>) -> tensor<4x32xf16>
  return %y : tensor<4x32xf16>
}

// log(relu(x) + 1) · w: relu as the clamp torch-mlir emits.
func.func @log_relu(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %one = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %r = tosa.clamp %x {max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %r1 = tosa.add %r, %one : (tensor<8x16xf32>, tensor<1x1xf32>) -> tensor<8x16xf32>
  %l = tosa.log %r1 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %l3 = tosa.const_shape {values = dense<[1, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.const_shape {values = dense<[1, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %a = tosa.reshape %l, %l3 : (tensor<8x16xf32>, !tosa.shape<3>) -> tensor<1x8x16xf32>
  %b = tosa.reshape %w, %w3 : (tensor<16x8xf32>, !tosa.shape<3>) -> tensor<1x16x8xf32>
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %o2 = tosa.const_shape {values = dense<[8, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %o = tosa.reshape %m, %o2 : (tensor<1x8x8xf32>, !tosa.shape<2>) -> tensor<8x8xf32>
  return %o : tensor<8x8xf32>
}

#id = affine_map<(d0, d1) -> (d0, d1)>
// tanh(x^2) + erf(x) + log(y), one linalg.generic as torch-mlir's linalg
// backend fuses element-wise chains.
func.func @generic_math(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %c2 = arith.constant 2 : i32
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %sq = math.fpowi %a, %c2 : f32, i32
    %t = math.tanh %sq : f32
    %er = math.erf %a : f32
    %lg = math.log %b : f32
    %s1 = arith.addf %t, %er : f32
    %s2 = arith.addf %s1, %lg : f32
    linalg.yield %s2 : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

func.func @named_math(%x: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %e = tensor.empty() : tensor<4x16xbf16>
  %l = linalg.log ins(%x : tensor<4x16xbf16>) outs(%e : tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %t = linalg.tanh ins(%l : tensor<4x16xbf16>) outs(%e : tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %r = linalg.erf ins(%t : tensor<4x16xbf16>) outs(%e : tensor<4x16xbf16>) -> tensor<4x16xbf16>
  return %r : tensor<4x16xbf16>
}
