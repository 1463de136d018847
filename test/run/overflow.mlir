// Overflow of the original program vs mismatch (docs/mirage-run.md).
// An unstable softmax attention, O = (E / Σ_last E)·V with E = exp(Q·K) and
// no max subtracted, at Q(1,8,16), K(1,16,16), V(1,16,8). In f16 exp
// overflows 65504 once a score passes 11.09: at --range=2 some scores do,
// at --range=8 every row has one. The reference (JIT, f16) then gives
// inf/NaN where the interpreter (f64) is finite: an overflow of the
// original program, exit status 2, not a mismatch, with a range to try
// (the largest power of two at which the kernel graph's intermediates,
// computed exactly, stay within half their type's range; f16 and f32
// agree there below). A NaN poisons its whole row through
// P·V, hence counts in multiples of 8.
// RUN: (mirage-run --compare=attn_tosa_f16,attn_ug_f16 --range=2 %s; echo "exit $?") | FileCheck %s --check-prefix=RANGE2
// RUN: (mirage-run --compare=attn_tosa_f16,attn_ug_f16 --range=8 %s; echo "exit $?") | FileCheck %s --check-prefix=RANGE8
// The same program at small ranges agrees.
// RUN: (mirage-run --compare=attn_tosa_f16,attn_ug_f16 --range=0.05 %s; echo "exit $?") | FileCheck %s --check-prefix=SMALL
// RUN: (mirage-run --compare=attn_tosa_f16,attn_ug_f16 --range=1 %s; echo "exit $?") | FileCheck %s --check-prefix=RANGE1
// Values beyond the float range of the error estimate (exp(250)) are still
// compared, not passed as ill-conditioned: bf16 and f32 overflow too.
// RUN: (mirage-run --compare=attn_tosa_bf16,attn_ug_bf16 --range=8 %s; echo "exit $?") | FileCheck %s --check-prefix=BF16
// RUN: (mirage-run --compare=attn_tosa_f32,attn_ug_f32 --range=8 %s; echo "exit $?") | FileCheck %s --check-prefix=F32
// RUN: (mirage-run --compare=attn_tosa_f32,attn_ug_f32 --range=1 %s; echo "exit $?") | FileCheck %s --check-prefix=F32-OK
// RUN: (mirage-run --compare=attn_tosa_f32,attn_ug_f32 --range=4 %s; echo "exit $?") | FileCheck %s --check-prefix=F32-OK
// A fixed tolerance does not change the verdict.
// RUN: (mirage-run --compare=attn_tosa_f16,attn_ug_f16 --range=2 --tolerance=0.01 %s; echo "exit $?") | FileCheck %s --check-prefix=RANGE2
// Only the μGraph side overflows (exp(8·Q·K) in the numerator: values past
// f16's range; exp(1000·Q·K): past f64's, NaN): a mismatch, exit status 1,
// naming the μGraph side. Without the overflow the line has no such note.
// RUN: (mirage-run --compare=attn_tosa_f16,attn_scaled_ug_f16 --range=1 %s; echo "exit $?") | FileCheck %s --check-prefix=SCALED
// RUN: (mirage-run --compare=attn_tosa_f16,attn_scaled_huge_ug_f16 --range=1 %s; echo "exit $?") | FileCheck %s --check-prefix=HUGE
// RUN: (mirage-run --compare=attn_tosa_f16,attn_scaled_ug_f16 --range=0.05 %s; echo "exit $?") | FileCheck %s --check-prefix=PLAIN
// When both overflow, the original program's overflow is what is reported.
// RUN: (mirage-run --compare=attn_tosa_f16,attn_scaled_huge_ug_f16 --range=2 %s; echo "exit $?") | FileCheck %s --check-prefix=RANGE2-HUGE

// RANGE2: @attn_tosa_f16 vs @attn_ug_f16: OVERFLOW: the original program overflows f16 at --range=2 (16 of 64 elements of output 0 are inf/NaN); try --range=1
// RANGE2-NEXT: exit 2
// RANGE8: @attn_tosa_f16 vs @attn_ug_f16: OVERFLOW: the original program overflows f16 at --range=8 (64 of 64 elements of output 0 are inf/NaN); try --range=1
// RANGE8-NEXT: exit 2
// SMALL: @attn_tosa_f16 vs @attn_ug_f16: 1 output, 64 elements, max abs error {{[0-9.]+}}e-0{{[5-9]}} (tolerance {{.*}}): ok
// SMALL-NEXT: exit 0
// RANGE1: @attn_tosa_f16 vs @attn_ug_f16: 1 output, 64 elements, max abs error {{.*}}: ok
// RANGE1-NEXT: exit 0
// BF16: @attn_tosa_bf16 vs @attn_ug_bf16: OVERFLOW: the original program overflows bf16 at --range=8 (64 of 64 elements of output 0 are inf/NaN); try --range=4
// BF16-NEXT: exit 2
// F32: @attn_tosa_f32 vs @attn_ug_f32: OVERFLOW: the original program overflows f32 at --range=8 (64 of 64 elements of output 0 are inf/NaN); try --range=4
// F32-NEXT: exit 2
// F32-OK: @attn_tosa_f32 vs @attn_ug_f32: 1 output, 64 elements, max abs error {{.*}}: ok
// F32-OK-NEXT: exit 0
// SCALED: @attn_tosa_f16 vs @attn_scaled_ug_f16: MISMATCH at output 0 element 0: jit {{[-0-9.e]+}} vs interpreter {{[0-9]+}} (abs error {{.*}}); the μGraph side overflows f16 (39 of 64 elements of output 0 are inf/NaN, the reference's are finite)
// SCALED-NEXT: exit 1
// HUGE: @attn_tosa_f16 vs @attn_scaled_huge_ug_f16: MISMATCH at output 0 element 0: jit {{[-0-9.e]+}} vs interpreter {{-?}}nan (abs error nan, tolerance {{.*}}); the μGraph side overflows f16 (64 of 64 elements of output 0 are inf/NaN, the reference's are finite)
// HUGE-NEXT: exit 1
// PLAIN: @attn_tosa_f16 vs @attn_scaled_ug_f16: MISMATCH at output 0 element 4: jit {{[^;]*}}{{$}}
// PLAIN-NEXT: exit 1
// RANGE2-HUGE: @attn_tosa_f16 vs @attn_scaled_huge_ug_f16: OVERFLOW: the original program overflows f16 at --range=2 (16 of 64 elements of output 0 are inf/NaN)
// RANGE2-HUGE-NEXT: exit 2

func.func @attn_tosa_f16(%q: tensor<1x8x16xf16>, %k: tensor<1x16x16xf16>, %v: tensor<1x16x8xf16>) -> tensor<1x8x8xf16> {
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
func.func @attn_ug_f16(%q: tensor<1x8x16xf16>, %k: tensor<1x16x16xf16>, %v: tensor<1x16x8xf16>) -> tensor<1x8x8xf16> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<1x8x16xf16>, tensor<1x16x16xf16>) -> tensor<1x8x16xf16>
  %e = "ug.exp"(%s) : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<1x8x16xf16>) -> tensor<1x8x1xf16>
  %p = "ug.div"(%e, %sum) : (tensor<1x8x16xf16>, tensor<1x8x1xf16>) -> tensor<1x8x16xf16>
  %o = "ug.matmul"(%p, %v) : (tensor<1x8x16xf16>, tensor<1x16x8xf16>) -> tensor<1x8x8xf16>
  func.return %o : tensor<1x8x8xf16>
}
func.func @attn_scaled_ug_f16(%q: tensor<1x8x16xf16>, %k: tensor<1x16x16xf16>, %v: tensor<1x16x8xf16>) -> tensor<1x8x8xf16> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<1x8x16xf16>, tensor<1x16x16xf16>) -> tensor<1x8x16xf16>
  %s2 = "ug.mul_scalar"(%s) {scalar = 8.000000e+00 : f64} : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %e2 = "ug.exp"(%s2) : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %e = "ug.exp"(%s) : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<1x8x16xf16>) -> tensor<1x8x1xf16>
  %p = "ug.div"(%e2, %sum) : (tensor<1x8x16xf16>, tensor<1x8x1xf16>) -> tensor<1x8x16xf16>
  %o = "ug.matmul"(%p, %v) : (tensor<1x8x16xf16>, tensor<1x16x8xf16>) -> tensor<1x8x8xf16>
  func.return %o : tensor<1x8x8xf16>
}
func.func @attn_scaled_huge_ug_f16(%q: tensor<1x8x16xf16>, %k: tensor<1x16x16xf16>, %v: tensor<1x16x8xf16>) -> tensor<1x8x8xf16> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<1x8x16xf16>, tensor<1x16x16xf16>) -> tensor<1x8x16xf16>
  %s2 = "ug.mul_scalar"(%s) {scalar = 1.000000e+03 : f64} : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %e2 = "ug.exp"(%s2) : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %e = "ug.exp"(%s) : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<1x8x16xf16>) -> tensor<1x8x1xf16>
  %p = "ug.div"(%e2, %sum) : (tensor<1x8x16xf16>, tensor<1x8x1xf16>) -> tensor<1x8x16xf16>
  %o = "ug.matmul"(%p, %v) : (tensor<1x8x16xf16>, tensor<1x16x8xf16>) -> tensor<1x8x8xf16>
  func.return %o : tensor<1x8x8xf16>
}
func.func @attn_tosa_bf16(%q: tensor<1x8x16xbf16>, %k: tensor<1x16x16xbf16>, %v: tensor<1x16x8xbf16>) -> tensor<1x8x8xbf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<1x8x16xbf16>, tensor<1x16x16xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x16xbf16>
  %e = tosa.exp %s : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x8x16xbf16>) -> tensor<1x8x1xbf16>
  %inv = tosa.reciprocal %sum : (tensor<1x8x1xbf16>) -> tensor<1x8x1xbf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<1x8x16xbf16>, tensor<1x8x1xbf16>, tensor<1xi8>) -> tensor<1x8x16xbf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<1x8x16xbf16>, tensor<1x16x8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x8xbf16>
  return %o : tensor<1x8x8xbf16>
}
func.func @attn_ug_bf16(%q: tensor<1x8x16xbf16>, %k: tensor<1x16x16xbf16>, %v: tensor<1x16x8xbf16>) -> tensor<1x8x8xbf16> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<1x8x16xbf16>, tensor<1x16x16xbf16>) -> tensor<1x8x16xbf16>
  %e = "ug.exp"(%s) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<1x8x16xbf16>) -> tensor<1x8x1xbf16>
  %p = "ug.div"(%e, %sum) : (tensor<1x8x16xbf16>, tensor<1x8x1xbf16>) -> tensor<1x8x16xbf16>
  %o = "ug.matmul"(%p, %v) : (tensor<1x8x16xbf16>, tensor<1x16x8xbf16>) -> tensor<1x8x8xbf16>
  func.return %o : tensor<1x8x8xbf16>
}
func.func @attn_tosa_f32(%q: tensor<1x8x16xf32>, %k: tensor<1x16x16xf32>, %v: tensor<1x16x8xf32>) -> tensor<1x8x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %e = tosa.exp %s : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x8x16xf32>) -> tensor<1x8x1xf32>
  %inv = tosa.reciprocal %sum : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %p = tosa.mul %e, %inv, %shift : (tensor<1x8x16xf32>, tensor<1x8x1xf32>, tensor<1xi8>) -> tensor<1x8x16xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  return %o : tensor<1x8x8xf32>
}
func.func @attn_ug_f32(%q: tensor<1x8x16xf32>, %k: tensor<1x16x16xf32>, %v: tensor<1x16x8xf32>) -> tensor<1x8x8xf32> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<1x8x16xf32>, tensor<1x16x16xf32>) -> tensor<1x8x16xf32>
  %e = "ug.exp"(%s) : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<1x8x16xf32>) -> tensor<1x8x1xf32>
  %p = "ug.div"(%e, %sum) : (tensor<1x8x16xf32>, tensor<1x8x1xf32>) -> tensor<1x8x16xf32>
  %o = "ug.matmul"(%p, %v) : (tensor<1x8x16xf32>, tensor<1x16x8xf32>) -> tensor<1x8x8xf32>
  func.return %o : tensor<1x8x8xf32>
}
