// Overflow in the lifter's pairs (ug.reference): every pair gets its line,
// and the exit status is 2 when a reference overflows and nothing worse
// happened (docs/mirage-run.md). The attention's f16 exp overflows at
// --range=2; doubling x stays within f16 there.
// RUN: (mirage-run --range=2 %s; echo "exit $?") | FileCheck %s --check-prefix=RANGE2
// RUN: (mirage-run --range=0.05 %s; echo "exit $?") | FileCheck %s --check-prefix=SMALL

// RANGE2: @attn_lax0: OVERFLOW: the original program overflows f16 at --range=2 (16 of 64 elements of output 0 are inf/NaN)
// RANGE2-NEXT: @double_lax0: 1 output, 64 elements, max abs error 0 (tolerance {{.*}}): ok
// RANGE2-NEXT: exit 2
// SMALL: @attn_lax0: 1 output, 64 elements, max abs error {{.*}}: ok
// SMALL-NEXT: @double_lax0: 1 output, 64 elements, max abs error 0 (tolerance {{.*}}): ok
// SMALL-NEXT: exit 0

func.func @attn_lax0_ref(%q: tensor<1x8x16xf16>, %k: tensor<1x16x16xf16>, %v: tensor<1x16x8xf16>) -> tensor<1x8x8xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<1x8x16xf16>, tensor<1x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x16xf16>
  %e = tosa.exp %s : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x8x16xf16>) -> tensor<1x8x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<1x8x1xf16>) -> tensor<1x8x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<1x8x16xf16>, tensor<1x8x1xf16>, tensor<1xi8>) -> tensor<1x8x16xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<1x8x16xf16>, tensor<1x16x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x8xf16>
  return %o : tensor<1x8x8xf16>
}
func.func @attn_lax0(%q: tensor<1x8x16xf16>, %k: tensor<1x16x16xf16>, %v: tensor<1x16x8xf16>) -> tensor<1x8x8xf16> attributes {ug.level = "kernel", ug.reference = @attn_lax0_ref} {
  %s = "ug.matmul"(%q, %k) : (tensor<1x8x16xf16>, tensor<1x16x16xf16>) -> tensor<1x8x16xf16>
  %e = "ug.exp"(%s) : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<1x8x16xf16>) -> tensor<1x8x1xf16>
  %p = "ug.div"(%e, %sum) : (tensor<1x8x16xf16>, tensor<1x8x1xf16>) -> tensor<1x8x16xf16>
  %o = "ug.matmul"(%p, %v) : (tensor<1x8x16xf16>, tensor<1x16x8xf16>) -> tensor<1x8x8xf16>
  func.return %o : tensor<1x8x8xf16>
}

func.func @double_lax0_ref(%x: tensor<8x8xf16>) -> tensor<8x8xf16> {
  %y = tosa.add %x, %x : (tensor<8x8xf16>, tensor<8x8xf16>) -> tensor<8x8xf16>
  return %y : tensor<8x8xf16>
}
func.func @double_lax0(%x: tensor<8x8xf16>) -> tensor<8x8xf16> attributes {ug.level = "kernel", ug.reference = @double_lax0_ref} {
  %y = "ug.mul_scalar"(%x) {scalar = 2.000000e+00 : f64} : (tensor<8x8xf16>) -> tensor<8x8xf16>
  func.return %y : tensor<8x8xf16>
}
