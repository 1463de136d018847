// A cast right after an op whose μGraph result keeps its operand's type
// (exp, rsqrt, tanh, square, mul_scalar: the dialect ties their result type
// to the operand type). A narrowing cast that is the only reader of a
// *binary* op's, matmul's or reduction's result makes that op store the
// narrow type (@matmul_narrow_exp); after any other op it must not (that
// gave `ug.exp` an f32 operand and an f16 result, which the dialect
// rejects: "internal: could not insert kernel graph"). There the cast is a
// view like any other: where the value leaves the kernel graph in the
// cast's type, the cast is left in place (the kernel graph returns the
// op's type and the cast follows the call), where a binary op reads it, it
// stays inside. Widening casts behave the same. linalg writes the casts as
// arith.truncf / extf generics, or in the op's own body (then the whole
// generic is left in place).
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM

//===----------------------------------------------------------------------===//
// Unary op, then a narrowing cast that leaves (TOSA)
//===----------------------------------------------------------------------===//

func.func @exp_narrow(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf16> {
  %e = tosa.exp %x : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %h = tosa.cast %e : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
  return %h : tensor<2x16x64xf16>
}

func.func @rsqrt_narrow(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf16> {
  %e = tosa.rsqrt %x : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %h = tosa.cast %e : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
  return %h : tensor<2x16x64xf16>
}

func.func @tanh_narrow(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf16> {
  %e = tosa.tanh %x : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %h = tosa.cast %e : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
  return %h : tensor<2x16x64xf16>
}

// x * x is ug.square (unary) when stored in its operand's type; x * 0.125
// is mul_scalar; bf16 narrows like f16.
func.func @square_narrow(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xbf16> {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.mul %x, %x, %z : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<1xi8>) -> tensor<2x16x64xf32>
  %h = tosa.cast %s : (tensor<2x16x64xf32>) -> tensor<2x16x64xbf16>
  return %h : tensor<2x16x64xbf16>
}

func.func @mul_scalar_narrow(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf16> {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s = tosa.mul %x, %c, %z : (tensor<2x16x64xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x64xf32>
  %h = tosa.cast %s : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
  return %h : tensor<2x16x64xf16>
}

//===----------------------------------------------------------------------===//
// Unary op, then a widening cast that leaves (TOSA)
//===----------------------------------------------------------------------===//

func.func @exp_widen(%x: tensor<2x16x64xf16>) -> tensor<2x16x64xf32> {
  %e = tosa.exp %x : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
  %w = tosa.cast %e : (tensor<2x16x64xf16>) -> tensor<2x16x64xf32>
  return %w : tensor<2x16x64xf32>
}

func.func @rsqrt_widen(%x: tensor<2x16x64xf16>) -> tensor<2x16x64xf32> {
  %e = tosa.rsqrt %x : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
  %w = tosa.cast %e : (tensor<2x16x64xf16>) -> tensor<2x16x64xf32>
  return %w : tensor<2x16x64xf32>
}

func.func @tanh_widen(%x: tensor<2x16x64xf16>) -> tensor<2x16x64xf32> {
  %e = tosa.tanh %x : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
  %w = tosa.cast %e : (tensor<2x16x64xf16>) -> tensor<2x16x64xf32>
  return %w : tensor<2x16x64xf32>
}

//===----------------------------------------------------------------------===//
// The cast read inside the kernel graph
//===----------------------------------------------------------------------===//

// A binary op reads the cast: it stays a view, the sum stores f16.
func.func @exp_narrow_add(%x: tensor<2x16x64xf32>, %y: tensor<2x16x64xf16>) -> tensor<2x16x64xf16> {
  %e = tosa.exp %x : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %h = tosa.cast %e : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
  %s = tosa.add %h, %y : (tensor<2x16x64xf16>, tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
  return %s : tensor<2x16x64xf16>
}

// A unary op reads the narrow value: it cannot compute in f16 what the exp
// stored in f32, so the cast is left between two subprograms.
func.func @exp_narrow_tanh(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf16> {
  %e = tosa.exp %x : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %h = tosa.cast %e : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
  %t = tosa.tanh %h : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
  return %t : tensor<2x16x64xf16>
}

// The matmul's f32 result reaches the cast alone (through a reshape that
// drops the unit batch dim): the matmul stores f16 and the exp computes in
// f16, as written.
func.func @matmul_narrow_exp(%a: tensor<1x16x32xf16>, %b: tensor<1x32x64xf16>) -> tensor<16x64xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<1x16x32xf16>, tensor<1x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x64xf32>
  %shape = tosa.const_shape {values = dense<[16, 64]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %m, %shape : (tensor<1x16x64xf32>, !tosa.shape<2>) -> tensor<16x64xf32>
  %h = tosa.cast %r : (tensor<16x64xf32>) -> tensor<16x64xf16>
  %e = tosa.exp %h : (tensor<16x64xf16>) -> tensor<16x64xf16>
  return %e : tensor<16x64xf16>
}

// The matmul's f32 result is also read in f32: it stays f32, and the exp
// after the cast gets its f16 operand as an input.
func.func @matmul_two_readers(%a: tensor<2x16x32xf16>, %b: tensor<2x32x64xf16>, %c: tensor<2x16x64xf32>) -> (tensor<2x16x64xf16>, tensor<2x16x64xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<2x16x32xf16>, tensor<2x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x64xf32>
  %h = tosa.cast %m : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
  %e = tosa.exp %h : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
  %s = tosa.add %m, %c : (tensor<2x16x64xf32>, tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  return %e, %s : tensor<2x16x64xf16>, tensor<2x16x64xf32>
}

//===----------------------------------------------------------------------===//
// linalg: arith.truncf / extf generics, and a cast in the op's own body
//===----------------------------------------------------------------------===//

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func @linalg_exp_truncf(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf16> {
  %e0 = tensor.empty() : tensor<2x16x64xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x16x64xf32>) outs(%e0 : tensor<2x16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<2x16x64xf32>
  %h0 = tensor.empty() : tensor<2x16x64xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e : tensor<2x16x64xf32>) outs(%h0 : tensor<2x16x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<2x16x64xf16>
  return %h : tensor<2x16x64xf16>
}

func.func @linalg_extf_rsqrt(%x: tensor<2x16x64xf16>) -> tensor<2x16x64xf32> {
  %w0 = tensor.empty() : tensor<2x16x64xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x16x64xf16>) outs(%w0 : tensor<2x16x64xf32>) {
  ^bb0(%in: f16, %out: f32):
    %r = arith.extf %in : f16 to f32
    linalg.yield %r : f32
  } -> tensor<2x16x64xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<2x16x64xf32>) outs(%w0 : tensor<2x16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.rsqrt %in : f32
    linalg.yield %r : f32
  } -> tensor<2x16x64xf32>
  return %s : tensor<2x16x64xf32>
}

// tanh then truncf in one body: the generic cannot be split, so it is left
// in place whole, with the reason.
func.func @linalg_tanh_truncf_fused(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf16> {
  %h0 = tensor.empty() : tensor<2x16x64xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x16x64xf32>) outs(%h0 : tensor<2x16x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = math.tanh %in : f32
    %r = arith.truncf %t : f32 to f16
    linalg.yield %r : f16
  } -> tensor<2x16x64xf16>
  return %h : tensor<2x16x64xf16>
}

// The narrowing and widening casts after a unary op follow the call; the
// kernel graph returns the op's own type.
// CHECK-LABEL: func.func @exp_narrow(
// CHECK-NEXT: %[[R:.*]] = call @exp_narrow_lax0(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: %[[H:.*]] = tosa.cast %[[R]] : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
// CHECK-NEXT: return %[[H]]
// CHECK-LABEL: func.func private @exp_narrow_lax0(%arg0: tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: %[[E:.*]] = "ug.exp"(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: return %[[E]]
// CHECK-LABEL: func.func @rsqrt_narrow(
// CHECK-NEXT: %[[R:.*]] = call @rsqrt_narrow_lax0(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: tosa.cast %[[R]] : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
// CHECK-LABEL: func.func private @rsqrt_narrow_lax0(
// CHECK-NEXT: "ug.rsqrt"(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-LABEL: func.func @tanh_narrow(
// CHECK-NEXT: %[[R:.*]] = call @tanh_narrow_lax0(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: tosa.cast %[[R]] : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
// CHECK-LABEL: func.func private @tanh_narrow_lax0(
// CHECK-NEXT: "ug.tanh"(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-LABEL: func.func @square_narrow(
// CHECK: %[[R:.*]] = call @square_narrow_lax0(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: tosa.cast %[[R]] : (tensor<2x16x64xf32>) -> tensor<2x16x64xbf16>
// CHECK-LABEL: func.func private @square_narrow_lax0(
// CHECK-NEXT: "ug.square"(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-LABEL: func.func @mul_scalar_narrow(
// CHECK: %[[R:.*]] = call @mul_scalar_narrow_lax0(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: tosa.cast %[[R]] : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
// CHECK-LABEL: func.func private @mul_scalar_narrow_lax0(
// CHECK-NEXT: "ug.mul_scalar"(%arg0) {scalar = 1.250000e-01 : f64} : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-LABEL: func.func @exp_widen(
// CHECK-NEXT: %[[R:.*]] = call @exp_widen_lax0(%arg0) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
// CHECK-NEXT: tosa.cast %[[R]] : (tensor<2x16x64xf16>) -> tensor<2x16x64xf32>
// CHECK-LABEL: func.func private @exp_widen_lax0(
// CHECK-NEXT: "ug.exp"(%arg0) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
// CHECK-LABEL: func.func @rsqrt_widen(
// CHECK-NEXT: %[[R:.*]] = call @rsqrt_widen_lax0(%arg0) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
// CHECK-NEXT: tosa.cast %[[R]] : (tensor<2x16x64xf16>) -> tensor<2x16x64xf32>
// CHECK-LABEL: func.func private @rsqrt_widen_lax0(
// CHECK-NEXT: "ug.rsqrt"(%arg0) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
// CHECK-LABEL: func.func @tanh_widen(
// CHECK-NEXT: %[[R:.*]] = call @tanh_widen_lax0(%arg0) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
// CHECK-NEXT: tosa.cast %[[R]] : (tensor<2x16x64xf16>) -> tensor<2x16x64xf32>
// CHECK-LABEL: func.func private @tanh_widen_lax0(
// CHECK-NEXT: "ug.tanh"(%arg0) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>

// CHECK-LABEL: func.func @exp_narrow_add(
// CHECK-NEXT: call @exp_narrow_add_lax0(%arg0, %arg1) : (tensor<2x16x64xf32>, tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
// CHECK-LABEL: func.func private @exp_narrow_add_lax0(
// CHECK-NEXT: %[[E:.*]] = "ug.exp"(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: "ug.add"(%[[E]], %arg1) : (tensor<2x16x64xf32>, tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
// CHECK-LABEL: func.func @exp_narrow_tanh(
// CHECK-NEXT: %[[E:.*]] = call @exp_narrow_tanh_lax0(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: %[[H:.*]] = tosa.cast %[[E]] : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
// CHECK-NEXT: call @exp_narrow_tanh_lax1(%[[H]]) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
// CHECK-LABEL: func.func private @exp_narrow_tanh_lax1(
// CHECK-NEXT: "ug.tanh"(%arg0) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
// CHECK-LABEL: func.func @matmul_narrow_exp(
// CHECK-NOT: tosa.cast
// CHECK: call @matmul_narrow_exp_lax0(%arg0, %arg1) : (tensor<1x16x32xf16>, tensor<1x32x64xf16>) -> tensor<16x64xf16>
// CHECK-LABEL: func.func private @matmul_narrow_exp_lax0(
// CHECK-NEXT: %[[M:.*]] = "ug.matmul"(%arg0, %arg1) : (tensor<1x16x32xf16>, tensor<1x32x64xf16>) -> tensor<1x16x64xf16>
// CHECK-NEXT: "ug.exp"(%[[M]]) : (tensor<1x16x64xf16>) -> tensor<1x16x64xf16>
// CHECK-LABEL: func.func @matmul_two_readers(
// CHECK: %[[M:.*]] = call @matmul_two_readers_lax0(%arg0, %arg1) : (tensor<2x16x32xf16>, tensor<2x32x64xf16>) -> tensor<2x16x64xf32>
// CHECK-NEXT: %[[H:.*]] = tosa.cast %[[M]] : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
// CHECK-NEXT: call @matmul_two_readers_lax1(%[[H]]) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
// CHECK-NEXT: call @matmul_two_readers_lax2(%arg2, %[[M]])
// CHECK-LABEL: func.func private @matmul_two_readers_lax0(
// CHECK-NEXT: "ug.matmul"(%arg0, %arg1) : (tensor<2x16x32xf16>, tensor<2x32x64xf16>) -> tensor<2x16x64xf32>

// CHECK-LABEL: func.func @linalg_exp_truncf(
// CHECK: %[[E:.*]] = call @linalg_exp_truncf_lax0(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK: linalg.generic {{.*}} ins(%[[E]] : tensor<2x16x64xf32>)
// CHECK-LABEL: func.func private @linalg_exp_truncf_lax0(
// CHECK-NEXT: "ug.exp"(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-LABEL: func.func @linalg_extf_rsqrt(
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x16x64xf16>)
// CHECK: call @linalg_extf_rsqrt_lax0(%[[W]]) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-LABEL: func.func private @linalg_extf_rsqrt_lax0(
// CHECK-NEXT: "ug.rsqrt"(%arg0) : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
// CHECK-LABEL: func.func @linalg_tanh_truncf_fused(
// CHECK-NOT: call
// CHECK: return

// REM: '@exp_narrow': lifted 1 subprogram (@exp_narrow_lax0); 1 tensor op left in place
// REM-NEXT: @exp_narrow_lax0: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output
// REM-NEXT: 'tosa.cast' is not lifted: its result would leave the kernel graph as f16, computed in f32 by an op that cannot change element types
// REM: '@exp_narrow_tanh': lifted 2 subprograms (@exp_narrow_tanh_lax0, @exp_narrow_tanh_lax1); 1 tensor op left in place
// REM: 'tosa.cast' is not lifted: an element-wise op would compute in f32 what is written in f16 (the μGraph's unary ops keep their operand's type)
// REM: '@matmul_narrow_exp': lifted 1 subprogram (@matmul_narrow_exp_lax0); 0 tensor ops left in place
// REM: '@linalg_tanh_truncf_fused': nothing lifted; 1 tensor op left in place
// REM-NEXT: 'linalg.generic' is not lifted: its result would leave the kernel graph as f16, computed in f32 by an op that cannot change element types
// REM: module: 22 of 35 tensor ops lifted (62.9 %) into 17 subprograms
// REM-NOT: internal

// NUM-COUNT-17: {{^}}@{{[a-z_]+}}_lax{{[0-9]}}: 1 output, {{[0-9]+}} elements{{.*}}: ok{{$}}
// NUM-NOT: MISMATCH
