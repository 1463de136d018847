// An LM head at a real model's shape (Qwen2-1.5B's: 40 tokens of width
// 1536 times a 1536 x 151,936 vocabulary projection, f16): a full check
// would take 9.3e9 multiply-adds. The check samples columns of the logits
// (the first, the last and the others at random) and states it; the
// reference computes only those (upstream's tiling), the interpreter and
// the estimates run on the kernel graph sliced to them. It takes seconds
// (docs/benchmarks.md, "mirage-run at LLM shapes"); nothing here measures
// time.
// The sanitized run leaves it out (the inputs alone are 467 MB of f16 the
// instrumented code fills and reads: about 2 min under ASan); its paths
// (the sampled check, the sliced kernel graph, the tiled reference) run
// there at small shapes in sample.mlir.
// UNSUPPORTED: asan
// RUN: mirage-run --compare=lm_head,lm_head_ug %s | FileCheck %s

// CHECK: @lm_head vs @lm_head_ug: sampled: 1627 of 151936 indices of dim 2 of output 0 (the first, the last and 1625 chosen at random with seed 1): 65080 of 6077440 elements; a full check would take about 9.3e+09 operations (--sample-above=1e+08)
// CHECK-NEXT: @lm_head vs @lm_head_ug: 1 output, 65080 elements, max abs error {{.*}}: ok

func.func @lm_head(%x: tensor<1x40x1536xf16>, %w: tensor<1x1536x151936xf16>) -> tensor<1x40x151936xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %y = tosa.matmul %x, %w, %zp, %zp : (tensor<1x40x1536xf16>, tensor<1x1536x151936xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x40x151936xf16>
  return %y : tensor<1x40x151936xf16>
}

func.func @lm_head_ug(%x: tensor<1x40x1536xf16>, %w: tensor<1x1536x151936xf16>) -> tensor<1x40x151936xf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<1x40x1536xf16>, tensor<1x1536x151936xf16>) -> tensor<1x40x151936xf16>
  func.return %y : tensor<1x40x151936xf16>
}
