// rank-ptxas: the best verified candidates compiled to PTX, assembled by
// ptxas -v, and re-ranked by the cost model with the facts of their
// kernels (registers, static shared memory, cp.async depth) in place of
// its guesses (docs/cost.md, "Facts from ptxas"). The gated MLP at the
// small shapes of test/lift/gated-mlp-tosa.mlir.
// REQUIRES: ptxas, libdevice
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache=false lower=false explain=true rank-ptxas=%ptxas" %s -o %t.facts 2>&1 | FileCheck %s
// The facts do not change this choice: the same program as the model's.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache=false lower=false" %s -o %t.model
// RUN: diff %t.facts %t.model
// A stand-in ptxas that reports, for the first candidate only, 200000
// bytes of static shared memory: 1 block per SM, where its 256 blocks
// need 2 per SM: two rounds, and the second candidate becomes the
// cheapest.
// RUN: rm -f %t.state
// RUN: env REAL_PTXAS=%ptxas PTXAS_STATE=%t.state mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache=false lower=false explain=true rank-ptxas=%S/Inputs/ptxas-first-big-smem.sh" %s -o %t.reranked 2>&1 | FileCheck %s --check-prefix=RERANK
// RUN: not diff %t.reranked %t.model > /dev/null
// Cached with the candidate: the ranking's settings (and ptxas's build)
// are part of the key, so a model-only run does not get the re-ranked
// entry, and a second re-ranked run gets it from the cache without
// running ptxas (its counter stays at 2).
// RUN: rm -rf %t.cache && rm -f %t.state
// RUN: env REAL_PTXAS=%ptxas PTXAS_STATE=%t.state mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache-dir=%t.cache lower=false rank-ptxas=%S/Inputs/ptxas-first-big-smem.sh" %s -o %t.c1
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache-dir=%t.cache lower=false" %s -o %t.c2
// RUN: env REAL_PTXAS=%ptxas PTXAS_STATE=%t.state mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache-dir=%t.cache lower=false rank-ptxas=%S/Inputs/ptxas-first-big-smem.sh" %s -o %t.c3
// RUN: diff %t.c1 %t.reranked
// RUN: diff %t.c2 %t.model
// RUN: diff %t.c3 %t.reranked
// RUN: cat %t.state | FileCheck %s --check-prefix=STATE

// Per verified candidate (the search verified up to rank-ptxas-top = 3 per
// size): the model's estimate, each kernel's facts (registers, static
// shared memory, spill stores/loads, residency with them and [with the
// model's guess of 64 registers]) and the estimate with them.
// CHECK: remark: mirage-explain: '@gated_mlp_small_lax0' ptxas, verified candidate 1 (chosen): model [[M1:[0-9.]+]] us; ptxas facts: k3: {{[0-9]+}} regs, {{[0-9]+}} B smem, spills 0/0 B, {{[0-9]+}} block(s)/SM ({{[trsb]}}) [model 8 (r)] [[M1]] us; re-estimate [[M1]] us
// CHECK-NEXT: remark: mirage-explain: '@gated_mlp_small_lax0' ptxas, verified candidate 2: model [[M2:[0-9.]+]] us; ptxas facts: k3: {{.*}}; re-estimate [[M2]] us
// CHECK-NEXT: remark: mirage-explain: '@gated_mlp_small_lax0' ptxas re-ranking of 2 verified candidate(s): the model's first stays first
// CHECK: remark: mirage-explain: '@gated_mlp_small_lax0' chose #1, the cheapest verified candidate by its ptxas facts:

// The first candidate's 256 blocks, 2 per SM of 132, now take two rounds
// of 1 resident block: its latency-bound body twice, above the second's.
// RERANK: remark: mirage-explain: '@gated_mlp_small_lax0' ptxas, verified candidate 1: model [[M1:[0-9.]+]] us; ptxas facts: k3: {{[0-9]+}} regs, 200000 B smem, spills 0/0 B, 1 block(s)/SM (s) [model 8 (r)] {{[0-9.]+}} us; re-estimate [[R1:[0-9.]+]] us
// RERANK-NEXT: remark: mirage-explain: '@gated_mlp_small_lax0' ptxas, verified candidate 2 (chosen): model [[M2:[0-9.]+]] us; ptxas facts: {{.*}}; re-estimate [[M2]] us
// RERANK-NEXT: remark: mirage-explain: '@gated_mlp_small_lax0' ptxas re-ranking of 2 verified candidate(s): the facts changed the choice
// RERANK: remark: mirage-explain: '@gated_mlp_small_lax0' chose #2, the cheapest verified candidate by its ptxas facts:

// Two candidates assembled by the first run, none by the cached one.
// STATE: {{^}}2{{$}}

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
