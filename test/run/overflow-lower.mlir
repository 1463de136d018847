// Overflow with --lower, where the interpreter's result is the reference
// and the lowered code the candidate (docs/mirage-run.md). The interpreter
// computes in f64 and does not round intermediates, so only a result beyond
// its output type's range is an overflow of the original program: the
// unnormalized exp(Q·K)·V at --range=2. The softmax's f16 intermediate
// exp(Q·K) overflows in the lowered code only (it stores the f16 tensor):
// a mismatch naming the lowered code, which outranks the overflow (exit 1).
// RUN: (mirage-run --lower --range=2 %s; echo "exit $?") | FileCheck %s --check-prefix=RANGE2
// RUN: (mirage-run --lower --range=0.05 %s; echo "exit $?") | FileCheck %s --check-prefix=SMALL

// RANGE2: @attn_ug_f16: MISMATCH at output 0 element 0: jit {{-?}}nan vs interpreter {{.*}}; the lowered code overflows f16 (16 of 64 elements of output 0 are inf/NaN, the reference's are finite)
// RANGE2-NEXT: @unnormalized_ug_f16: OVERFLOW: the original program overflows f16 at --range=2 (11 of 64 elements of output 0 are inf/NaN)
// RANGE2-NEXT: exit 1
// SMALL: @attn_ug_f16: 1 output, 64 elements, max abs error {{.*}}: ok
// SMALL-NEXT: @unnormalized_ug_f16: 1 output, 64 elements, max abs error {{.*}}: ok
// SMALL-NEXT: exit 0

func.func @attn_ug_f16(%q: tensor<1x8x16xf16>, %k: tensor<1x16x16xf16>, %v: tensor<1x16x8xf16>) -> tensor<1x8x8xf16> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<1x8x16xf16>, tensor<1x16x16xf16>) -> tensor<1x8x16xf16>
  %e = "ug.exp"(%s) : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %sum = "ug.sum"(%e) {dim = 2 : i64} : (tensor<1x8x16xf16>) -> tensor<1x8x1xf16>
  %p = "ug.div"(%e, %sum) : (tensor<1x8x16xf16>, tensor<1x8x1xf16>) -> tensor<1x8x16xf16>
  %o = "ug.matmul"(%p, %v) : (tensor<1x8x16xf16>, tensor<1x16x8xf16>) -> tensor<1x8x8xf16>
  func.return %o : tensor<1x8x8xf16>
}
func.func @unnormalized_ug_f16(%q: tensor<1x8x16xf16>, %k: tensor<1x16x16xf16>, %v: tensor<1x16x8xf16>) -> tensor<1x8x8xf16> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<1x8x16xf16>, tensor<1x16x16xf16>) -> tensor<1x8x16xf16>
  %e = "ug.exp"(%s) : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %o = "ug.matmul"(%e, %v) : (tensor<1x8x16xf16>, tensor<1x16x8xf16>) -> tensor<1x8x8xf16>
  func.return %o : tensor<1x8x8xf16>
}
