// bf16 and f16 programs whose JIT code needs soft-float conversions. Run for
// the architecture's baseline CPU (no F16C, AVX512-BF16 or AVX-NE-CONVERT),
// LLVM calls __truncsfbf2 / __truncsfhf2 / __extendhfsf2, which mirage-run
// provides itself (GCC 12's libgcc has no __truncsfbf2); on the host CPU
// the same programs may use native conversions. Both must agree with the
// interpreter. The suite runs every JIT test with MIRAGE_JIT_CPU=baseline
// (test/lit.cfg.py); this file also names both CPUs explicitly.
//
// RUN: mirage-run --jit-cpu=baseline --lift %s | FileCheck %s
// RUN: mirage-run --jit-cpu=host --lift %s | FileCheck %s
// RUN: mirage-run --jit-cpu=baseline --lift --lower %s | FileCheck %s --check-prefix=LOWER
// RUN: not mirage-run --jit-cpu=skylake %s 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-DAG: @llama_mlp_bf16_lax0: 1 output, 192 elements, max abs error {{.*}}: ok
// CHECK-DAG: @exp_sum_bf16_lax0: 1 output, 8 elements, max abs error {{.*}}: ok
// CHECK-DAG: @silu_f16_lax0: 1 output, 64 elements, max abs error {{.*}}: ok
// CHECK-NOT: MISMATCH
// LOWER-COUNT-3: ok
// LOWER-NOT: MISMATCH
// BAD: mirage-run: invalid JIT CPU 'skylake' (expected host or baseline)

// A bf16 Llama MLP: silu(x Wg) * (x Wu), silu as x * sigmoid(x).
func.func @llama_mlp_bf16(%x: tensor<1x4x16xbf16>, %wg: tensor<1x16x48xbf16>, %wu: tensor<1x16x48xbf16>) -> tensor<1x4x48xbf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %g = tosa.matmul %x, %wg, %zp, %zp : (tensor<1x4x16xbf16>, tensor<1x16x48xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x4x48xbf16>
  %s = tosa.sigmoid %g : (tensor<1x4x48xbf16>) -> tensor<1x4x48xbf16>
  %silu = tosa.mul %g, %s, %shift : (tensor<1x4x48xbf16>, tensor<1x4x48xbf16>, tensor<1xi8>) -> tensor<1x4x48xbf16>
  %u = tosa.matmul %x, %wu, %zp, %zp : (tensor<1x4x16xbf16>, tensor<1x16x48xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x4x48xbf16>
  %o = tosa.mul %silu, %u, %shift : (tensor<1x4x48xbf16>, tensor<1x4x48xbf16>, tensor<1xi8>) -> tensor<1x4x48xbf16>
  return %o : tensor<1x4x48xbf16>
}

// exp then a row sum, in bf16 (softmax's numerator and denominator).
func.func @exp_sum_bf16(%x: tensor<8x32xbf16>) -> tensor<8x1xbf16> {
  %e = tosa.exp %x : (tensor<8x32xbf16>) -> tensor<8x32xbf16>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<8x32xbf16>) -> tensor<8x1xbf16>
  return %s : tensor<8x1xbf16>
}

// silu in f16 (truncation and extension helpers for half).
func.func @silu_f16(%x: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.sigmoid %x : (tensor<4x16xf16>) -> tensor<4x16xf16>
  %o = tosa.mul %x, %s, %shift : (tensor<4x16xf16>, tensor<4x16xf16>, tensor<1xi8>) -> tensor<4x16xf16>
  return %o : tensor<4x16xf16>
}
