// Checking a sample of output rows (docs/mirage-run.md, "Large programs"):
// when a full check would take more than --sample-above operations, the
// kernel graph is sliced along one dim of its output, the reference is
// tiled along it by upstream's tiling and run for the sampled indices only
// (the first, the last and the others at random), and one line says what
// was sampled. Here the budget is lowered to sample small programs.
//
// A matmul (an LM head in small): the widest dim, the columns, is sampled.
// RUN: mirage-run --compare=head_tosa,head_ug --sample-above=1000 %s | FileCheck %s --check-prefix=HEAD
// RUN: mirage-run --compare=head_tosa,head_ug --sample-above=1000 --seed=2 %s | FileCheck %s --check-prefix=SEED2
// RUN: mirage-run --compare=head_tosa,head_ug --sample-above=never %s | FileCheck %s --check-prefix=ALL
// RUN: mirage-run --compare=head_tosa,head_ug %s | FileCheck %s --check-prefix=ALL
// A wrong kernel is still caught.
// RUN: not mirage-run --compare=head_tosa,head_twice_ug --sample-above=1000 %s | FileCheck %s --check-prefix=WRONG
// A linalg reference; a graph-defined kernel, sampled by whole blocks of
// its grid (the fused RMSNorm of rmsnorm.mlir: a grid of 4 over the
// columns).
// RUN: mirage-run --compare=rms_linalg_f32,rms_ug_f32 --sample-above=0 %S/rmsnorm.mlir | FileCheck %s --check-prefix=LINALG
// RUN: mirage-run --compare=rms_tosa_f16,rms_fused_f16 --sample-above=0 %S/rmsnorm.mlir | FileCheck %s --check-prefix=BLOCKS
// A row reduced to one element cannot be sampled: every element is checked
// and the line says why.
// RUN: mirage-run --compare=total_tosa,total_ug --sample-above=0 %s | FileCheck %s --check-prefix=NONE
// RUN: not mirage-run --sample-above=-1 %s 2>&1 | FileCheck %s --check-prefix=OPTION

// HEAD: @head_tosa vs @head_ug: sampled: 15 of 32 indices of dim 2 of output 0 (the first, the last and 13 chosen at random with seed 1): 60 of 128 elements; a full check would take about 2e+03 operations (--sample-above=1e+03)
// HEAD-NEXT: @head_tosa vs @head_ug: 1 output, 60 elements, max abs error {{.*}}: ok
// SEED2: @head_tosa vs @head_ug: sampled: 15 of 32 indices of dim 2 of output 0 (the first, the last and 13 chosen at random with seed 2)
// SEED2-NEXT: @head_tosa vs @head_ug: 1 output, 60 elements, max abs error {{.*}}: ok
// ALL-NOT: sampled
// ALL: @head_tosa vs @head_ug: 1 output, 128 elements, max abs error {{.*}}: ok
// WRONG: @head_tosa vs @head_twice_ug: sampled: 14 of 32
// WRONG-NEXT: @head_tosa vs @head_twice_ug: MISMATCH at output 0 element 0: jit
// LINALG: @rms_linalg_f32 vs @rms_ug_f32: sampled: 1 of 96 indices of dim 1 of output 0 (the first): 2 of 192 elements
// LINALG-NEXT: @rms_linalg_f32 vs @rms_ug_f32: 1 output, 2 elements, max abs error {{.*}}: ok
// BLOCKS: @rms_tosa_f16 vs @rms_fused_f16: sampled: 24 of 96 indices of dim 2 of output 0 in 1 block of 24, the kernel's tiles (the first): 48 of 192 elements
// BLOCKS-NEXT: @rms_tosa_f16 vs @rms_fused_f16: 1 output, 48 elements, max abs error {{.*}}: ok
// NONE: @total_tosa vs @total_ug: every element is checked although that takes about 36 operations (--sample-above=0): no dim of the output can be sampled
// NONE-NEXT: @total_tosa vs @total_ug: 1 output, 1 elements, max abs error {{.*}}: ok
// OPTION: mirage-run: invalid --sample-above value '-1' (expected a number of operations or 'never')

func.func @head_tosa(%x: tensor<1x4x16xf16>, %w: tensor<1x16x32xf16>) -> tensor<1x4x32xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %y = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x16xf16>, tensor<1x16x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x32xf16>
  return %y : tensor<1x4x32xf16>
}

func.func @head_ug(%x: tensor<1x4x16xf16>, %w: tensor<1x16x32xf16>) -> tensor<1x4x32xf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<1x4x16xf16>, tensor<1x16x32xf16>) -> tensor<1x4x32xf16>
  func.return %y : tensor<1x4x32xf16>
}

func.func @head_twice_ug(%x: tensor<1x4x16xf16>, %w: tensor<1x16x32xf16>) -> tensor<1x4x32xf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<1x4x16xf16>, tensor<1x16x32xf16>) -> tensor<1x4x32xf16>
  %z = "ug.mul_scalar"(%y) {scalar = 2.0 : f64} : (tensor<1x4x32xf16>) -> tensor<1x4x32xf16>
  func.return %z : tensor<1x4x32xf16>
}

func.func @total_tosa(%x: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %r = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %t = tosa.reduce_sum %r {axis = 0 : i32} : (tensor<4x1xf32>) -> tensor<1x1xf32>
  return %t : tensor<1x1xf32>
}

func.func @total_ug(%x: tensor<4x8xf32>) -> tensor<1x1xf32> attributes {ug.level = "kernel"} {
  %r = "ug.sum"(%x) {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %t = "ug.sum"(%r) {dim = 0 : i64} : (tensor<4x1xf32>) -> tensor<1x1xf32>
  func.return %t : tensor<1x1xf32>
}
