// End to end at a shape where the prologue cuts pay off: TOSA QKNorm
// (Q 2x16x64, K 2x64x1024, V 2x1024x64, f16) is lifted and searched; the
// cost model picks one kernel per norm and split-KV attention (four
// kernels), and the result computes what the TOSA ops compute: mirage-run
// JIT-compiles the reference the lift keeps and runs the searched μGraph in
// the float interpreter on the same inputs.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false" --mirage-remarks %s -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mirage-opt --mirage-verify-ugraph %t > /dev/null
// RUN: mirage-run --range=0.25 %t | FileCheck %s --check-prefix=NUM
// The lowering of those four kernels (their CPU form) computes the same.
// RUN: mirage-run --lower --range=0.25 %t | FileCheck %s --check-prefix=NUM

// CHECK-LABEL: func.func private @qknorm_lax0(
// CHECK-COUNT-4: "ug.custom"
// CHECK-NEXT: return
// REMARK: '@qknorm_lax0' replaced by a verified μGraph: 15 kernel(s) -> 4, estimated
// NUM: @qknorm_lax0: 1 output, 2048 elements, max abs error {{.*}}: ok

func.func @qknorm(%q: tensor<2x16x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> tensor<2x16x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_d = "tosa.const"() <{values = dense<0.015625> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %q_sq = tosa.mul %q, %q, %shift : (tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<1xi8>) -> tensor<2x16x64xf16>
  %q_sum = tosa.reduce_sum %q_sq {axis = 2 : i32} : (tensor<2x16x64xf16>) -> tensor<2x16x1xf16>
  %q_mean = tosa.mul %q_sum, %inv_d, %shift : (tensor<2x16x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x16x1xf16>
  %q_inv = tosa.rsqrt %q_mean : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %q_n = tosa.mul %q, %q_inv, %shift : (tensor<2x16x64xf16>, tensor<2x16x1xf16>, tensor<1xi8>) -> tensor<2x16x64xf16>
  %v_sq = tosa.mul %v, %v, %shift : (tensor<2x1024x64xf16>, tensor<2x1024x64xf16>, tensor<1xi8>) -> tensor<2x1024x64xf16>
  %v_sum = tosa.reduce_sum %v_sq {axis = 2 : i32} : (tensor<2x1024x64xf16>) -> tensor<2x1024x1xf16>
  %v_mean = tosa.mul %v_sum, %inv_d, %shift : (tensor<2x1024x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x1024x1xf16>
  %v_inv = tosa.rsqrt %v_mean : (tensor<2x1024x1xf16>) -> tensor<2x1024x1xf16>
  %v_n = tosa.mul %v, %v_inv, %shift : (tensor<2x1024x64xf16>, tensor<2x1024x1xf16>, tensor<1xi8>) -> tensor<2x1024x64xf16>
  %qk = tosa.matmul %q_n, %k, %zp, %zp : (tensor<2x16x64xf16>, tensor<2x64x1024xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x1024xf16>
  %e = tosa.exp %qk : (tensor<2x16x1024xf16>) -> tensor<2x16x1024xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x1024xf16>) -> tensor<2x16x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x16x1024xf16>, tensor<2x16x1xf16>, tensor<1xi8>) -> tensor<2x16x1024xf16>
  %o = tosa.matmul %p, %v_n, %zp, %zp : (tensor<2x16x1024xf16>, tensor<2x1024x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x64xf16>
  return %o : tensor<2x16x64xf16>
}
