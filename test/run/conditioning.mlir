// Subprograms cut out of a larger program get uniform random inputs where
// the original had structured ones: a "sum of squares" becomes a signed sum
// that can sit near zero, a softmax denominator can be tiny. The tolerance
// then follows each element's own error estimate: elements whose rsqrt
// argument or divisor is within the error band of zero are not compared
// (the count is printed; rsqrt of a negative sum is NaN on both sides and
// counted too), and large but well-defined errors (division by a small
// row sum, the error shared by a whole row) are allowed for.
// RUN: mirage-run --compare=rsqrt_sum_tosa,rsqrt_sum_ug %s | FileCheck %s --check-prefix=RSQRT
// RUN: mirage-run --compare=rsqrt_sum_tosa,rsqrt_sum_ug --seed=7 %s | FileCheck %s --check-prefix=RSQRT
// RUN: mirage-run --compare=div_by_sum_tosa,div_by_sum_ug %s | FileCheck %s --check-prefix=DIV
// RUN: mirage-run --compare=div_by_sum_tosa,div_by_sum_ug --seed=9 %s | FileCheck %s --check-prefix=DIV
// The estimate does not hide real differences: the mean over 4, not 16.
// RUN: not mirage-run --compare=rsqrt_sum_tosa,rsqrt_sum_wrong_ug %s | FileCheck %s --check-prefix=WRONG

// RSQRT: @rsqrt_sum_tosa vs @rsqrt_sum_ug: 1 output, 64 elements ({{[1-9][0-9]*}} ill-conditioned, not compared), max abs error {{.*}}: ok
// DIV: @div_by_sum_tosa vs @div_by_sum_ug: 1 output, 256 elements{{( \([0-9]+ ill-conditioned, not compared\))?}}, max abs error {{.*}}: ok
// WRONG: @rsqrt_sum_tosa vs @rsqrt_sum_wrong_ug: MISMATCH at output 0 element

// rsqrt(mean(x)) over rows of a signed f16 tensor.
func.func @rsqrt_sum_tosa(%x: tensor<2x32x16xf16>) -> tensor<2x32x1xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_n = "tosa.const"() <{values = dense<6.250000e-02> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %s = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<2x32x16xf16>) -> tensor<2x32x1xf16>
  %m = tosa.mul %s, %inv_n, %shift : (tensor<2x32x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x32x1xf16>
  %r = tosa.rsqrt %m : (tensor<2x32x1xf16>) -> tensor<2x32x1xf16>
  return %r : tensor<2x32x1xf16>
}
func.func @rsqrt_sum_ug(%x: tensor<2x32x16xf16>) -> tensor<2x32x1xf16> attributes {ug.level = "kernel"} {
  %s = "ug.sum"(%x) {dim = 2 : i64} : (tensor<2x32x16xf16>) -> tensor<2x32x1xf16>
  %m = "ug.mul_scalar"(%s) {scalar = 6.250000e-02 : f64} : (tensor<2x32x1xf16>) -> tensor<2x32x1xf16>
  %r = "ug.rsqrt"(%m) : (tensor<2x32x1xf16>) -> tensor<2x32x1xf16>
  func.return %r : tensor<2x32x1xf16>
}
func.func @rsqrt_sum_wrong_ug(%x: tensor<2x32x16xf16>) -> tensor<2x32x1xf16> attributes {ug.level = "kernel"} {
  %s = "ug.sum"(%x) {dim = 2 : i64} : (tensor<2x32x16xf16>) -> tensor<2x32x1xf16>
  %m = "ug.div_scalar"(%s) {scalar = 4.000000e+00 : f64} : (tensor<2x32x1xf16>) -> tensor<2x32x1xf16>
  %r = "ug.rsqrt"(%m) : (tensor<2x32x1xf16>) -> tensor<2x32x1xf16>
  func.return %r : tensor<2x32x1xf16>
}

// The tail of attention: (E / Σ_last E) · V with E random and signed, so
// the row sums can be small and their error is shared by the whole row.
func.func @div_by_sum_tosa(%e: tensor<2x8x32xf16>, %v: tensor<2x32x16xf16>) -> tensor<2x8x16xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x8x32xf16>) -> tensor<2x8x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<2x8x1xf16>) -> tensor<2x8x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x8x32xf16>, tensor<2x8x1xf16>, tensor<1xi8>) -> tensor<2x8x32xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x8x32xf16>, tensor<2x32x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x8x16xf16>
  return %o : tensor<2x8x16xf16>
}
func.func @div_by_sum_ug(%e: tensor<2x8x32xf16>, %v: tensor<2x32x16xf16>) -> tensor<2x8x16xf16> attributes {ug.level = "kernel"} {
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<2x8x32xf16>) -> tensor<2x8x1xf16>
  %p = "ug.div"(%e, %sum) : (tensor<2x8x32xf16>, tensor<2x8x1xf16>) -> tensor<2x8x32xf16>
  %o = "ug.matmul"(%p, %v) : (tensor<2x8x32xf16>, tensor<2x32x16xf16>) -> tensor<2x8x16xf16>
  func.return %o : tensor<2x8x16xf16>
}
