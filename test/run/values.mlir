// Input values: rounding to f16/bf16 and their encodings must give the JIT
// and the interpreter exactly the same numbers. Doubling is exact in every
// float type, so any encoding slip (normal, subnormal) shows up as a
// non-zero error.
// RUN: mirage-run --compare=double_tosa_f16,double_ug_f16 %s | FileCheck %s --check-prefix=F16
// RUN: mirage-run --compare=double_tosa_f16,double_ug_f16 --range=1e-5 %s | FileCheck %s --check-prefix=F16-SUBNORMAL
// RUN: mirage-run --compare=double_tosa_bf16,double_ug_bf16 --range=1e30 %s | FileCheck %s --check-prefix=BF16
// RUN: mirage-run --compare=double_tosa_bf16,double_ug_bf16 --range=1e-39 %s | FileCheck %s --check-prefix=BF16-SUBNORMAL
// The reference overflows f16 (the interpreter does not round to the storage
// type): reported as an overflow of the original program, exit 2.
// RUN: not mirage-run --compare=double_tosa_f16,double_ug_f16 --range=60000 %s | FileCheck %s --check-prefix=OVERFLOW
// RUN: not mirage-run --range=0 %s 2>&1 | FileCheck %s --check-prefix=RANGE

// F16: @double_tosa_f16 vs @double_ug_f16: 1 output, 256 elements, max abs error 0 (tolerance {{.*}}): ok
// F16-SUBNORMAL: @double_tosa_f16 vs @double_ug_f16: 1 output, 256 elements, max abs error 0 (tolerance {{.*}}e-{{.*}}): ok
// BF16: @double_tosa_bf16 vs @double_ug_bf16: 1 output, 256 elements, max abs error 0 (tolerance {{.*}}e+{{.*}}): ok
// BF16-SUBNORMAL: @double_tosa_bf16 vs @double_ug_bf16: 1 output, 256 elements, max abs error 0 (tolerance {{.*}}): ok
// OVERFLOW: @double_tosa_f16 vs @double_ug_f16: OVERFLOW: the original program overflows f16 at --range=60000 (125 of 256 elements of output 0 are inf/NaN)
// RANGE: mirage-run: invalid --range value '0'

func.func @double_tosa_f16(%x: tensor<16x16xf16>) -> tensor<16x16xf16> {
  %y = tosa.add %x, %x : (tensor<16x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>
  return %y : tensor<16x16xf16>
}
func.func @double_ug_f16(%x: tensor<16x16xf16>) -> tensor<16x16xf16> attributes {ug.level = "kernel"} {
  %y = "ug.mul_scalar"(%x) {scalar = 2.000000e+00 : f64} : (tensor<16x16xf16>) -> tensor<16x16xf16>
  func.return %y : tensor<16x16xf16>
}

func.func @double_tosa_bf16(%x: tensor<256xbf16>) -> tensor<256xbf16> {
  %y = tosa.add %x, %x : (tensor<256xbf16>, tensor<256xbf16>) -> tensor<256xbf16>
  return %y : tensor<256xbf16>
}
func.func @double_ug_bf16(%x: tensor<256xbf16>) -> tensor<256xbf16> attributes {ug.level = "kernel"} {
  %y = "ug.mul_scalar"(%x) {scalar = 2.000000e+00 : f64} : (tensor<256xbf16>) -> tensor<256xbf16>
  func.return %y : tensor<256xbf16>
}
