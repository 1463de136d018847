// rank-ptxas=none (the default): the model alone ranks, exactly as
// without the option: the same output, no ptxas line in the
// explanation, one verified candidate per size. A ptxas asked for by a
// path that is not there: a warning, and the same model-only run.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache=false lower=false" %s -o %t.default
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache=false lower=false rank-ptxas=none explain=true" %s -o %t.none 2>&1 | FileCheck %s
// RUN: diff %t.none %t.default
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache=false lower=false rank-ptxas=%t.no-such-ptxas" %s -o %t.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: diff %t.missing %t.default

// CHECK: remark: mirage-explain: '@gated_mlp_small_lax0' #1 (chosen):
// CHECK-NOT: '@gated_mlp_small_lax0' ptxas
// CHECK: remark: mirage-explain: '@gated_mlp_small_lax0' chose #1, the cheapest verified candidate: {{.*}}
// CHECK-NOT: '@gated_mlp_small_lax0' ptxas
// CHECK: 1 verified; kernel-graph sizes searched

// MISSING: warning: mirage-search: rank-ptxas: no executable ptxas at '{{.*}}no-such-ptxas'; ranked by the cost model alone

func.func @gated_mlp_small(%x: tensor<1x8x64xf16>, %w1: tensor<1x64x64xf16>, %w2: tensor<1x64x64xf16>) -> tensor<1x8x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %h1 = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x8x64xf16>, tensor<1x64x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x64xf16>
  %sig = tosa.sigmoid %h1 : (tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
  %silu = tosa.mul %h1, %sig, %shift : (tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1xi8>) -> tensor<1x8x64xf16>
  %h2 = tosa.matmul %x, %w2, %zp, %zp : (tensor<1x8x64xf16>, tensor<1x64x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x64xf16>
  %o = tosa.mul %silu, %h2, %shift : (tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1xi8>) -> tensor<1x8x64xf16>
  return %o : tensor<1x8x64xf16>
}
