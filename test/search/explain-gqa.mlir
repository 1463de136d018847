// --mirage-explain on GQA decoding attention (the small shapes of
// test/lift/gqa-tosa.mlir, lifted by mirage-superopt): the candidates of
// the one-kernel size are put off and tested with the two-kernel ones
// (docs/search.md); the cheapest, a two-kernel form, verifies.
// A first run without the explanation fills a cache; the explanation does
// not read it (a cached answer has no candidates to show), so the search
// runs again.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache-dir=%t.cache lower=false" %s -o %t.plain
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache-dir=%t.cache lower=false explain-top=3 explain-file=%t.json" --mirage-explain --mirage-remarks %s -o %t.out 2>%t.explain
// RUN: diff %t.out %t.plain
// RUN: %python -m json.tool %t.json > %t.pretty
// RUN: mirage-opt --mirage-cost %t.out 2>%t.cost >/dev/null
// RUN: cat %t.explain %t.cost %t.pretty | FileCheck %s

// CHECK-NOT: from the cache
// CHECK: remark: mirage-search: '@gqa_small_lax0' replaced by a verified μGraph: 5 kernel(s) -> 2, {{.*}} on sm_90{{$}}
// CHECK-NEXT: remark: mirage-explain: '@gqa_small_lax0' on sm_90 (H100 SXM5), ranked by the estimate: input 5 kernel(s), estimated [[IN:[0-9.]+ us]], roofline {{[0-9.]+}} us; program bound {{[0-9.]+}} us (DRAM {{[0-9.]+}} MB once at 3.35 TB/s, {{[0-9.e+]+}} flop at the tensor-core peak) + one launch 2.00 us; 3 best candidate(s) of the search:
// CHECK-NEXT: remark: mirage-explain: '@gqa_small_lax0' #1 (chosen): [[PROG:2 kernel\(s\), estimated [0-9.]+ us, roofline [0-9.]+ us]]; verified: [[TESTS:[0-9]+]] test(s), error bound <= 2^-[[BITS:[0-9.]+]]; estimate = launches 4.00 us + latency-bound {{[0-9.]+}} us; {{.*}}; DRAM {{.*}} sfu op{{$}}
// CHECK-NEXT: #2: 2 kernel(s), {{.*}}; not tested: a cheaper candidate was verified first;
// CHECK-NEXT: #3: 2 kernel(s), {{.*}}; not tested: a cheaper candidate was verified first;
// CHECK-NEXT: remark: mirage-explain: '@gqa_small_lax0' chosen kernel 1 'ug.custom': [[K1:.*]]{{$}}
// CHECK-NEXT: remark: mirage-explain: '@gqa_small_lax0' chosen kernel 2 'ug.custom': [[K2:.*]]{{$}}
// CHECK-NEXT: remark: mirage-explain: '@gqa_small_lax0' chose #1, the cheapest verified candidate: estimated [[IN]] -> {{[0-9.]+}} us, {{.*}}; verifier: [[TESTS]] test(s), error bound <= 2^-[[BITS]] (asked 2^-40){{$}}
// Both sizes were searched; exps and sums the target never makes are
// pruned by roles and anchors, the rest by abstract expressions.
// CHECK-NEXT: remark: mirage-explain: '@gqa_small_lax0' pruned by rule: shape {{[0-9]+}} dims {{[1-9][0-9]*}} reduce {{[0-9]+}} anchor {{[1-9][0-9]*}} canonical {{[0-9]+}} absexpr {{[1-9][0-9]*}} duplicate {{[0-9]+}} {{.*}}; {{[1-9][0-9]*}} states, {{[1-9][0-9]*}} candidates, 1 evaluated, 1 verified; kernel-graph sizes searched 2; parts searched separately 0{{$}}
// The chosen program's kernels, as --mirage-cost prints them.
// CHECK: remark: mirage-cost: '@gqa_small_lax0' on sm_90 (H100 SXM5): [[PROG]]; program bound {{[0-9.]+}} us ({{.*}}) + one launch 2.00 us{{$}}
// CHECK-NEXT: remark: mirage-cost: 'ug.custom' @gqa_small_lax0_k1: [[K1]]{{$}}
// CHECK-NEXT: remark: mirage-cost: emitted:
// CHECK-NEXT: remark: mirage-cost: 'ug.custom' @gqa_small_lax0_k2: [[K2]]{{$}}
// The JSON.
// CHECK:      "function": "gqa_small_lax0",
// CHECK:      "input": {
// CHECK-NEXT: "kernels": 5,
// CHECK:      "kernel_ops": [
// CHECK-NEXT: {
// CHECK-NEXT: "op": "ug.matmul",
// CHECK:      "chosen": {
// CHECK-NEXT: "kept_input": false,
// CHECK-NEXT: "reason": "chose #1, {{.*}}",
// CHECK-NEXT: "rank": 1,
// CHECK-NEXT: "parts": 0,
// CHECK-NEXT: "verify": {
// CHECK-NEXT: "verdict": "equivalent",
// CHECK-NEXT: "tests": [[TESTS]],
// CHECK-NEXT: "redraws": 0,
// CHECK-NEXT: "log2_bound": -[[BITS]]
// CHECK:      "kernels": 2,
// CHECK-NEXT: "estimated_us":
// CHECK-NEXT: "roofline_us":
// CHECK-NEXT: "launch_us": 4,
// CHECK:      "top": [
// CHECK-NEXT: {
// CHECK-NEXT: "rank": 1,
// CHECK-NEXT: "chosen": true,
// CHECK-NEXT: "fate": "verified",
// CHECK:      "rank": 3,
// CHECK-NEXT: "chosen": false,
// CHECK-NEXT: "fate": "untested",
// CHECK:      "pruned": {
// CHECK-NEXT: "shape": {{[0-9]+}},
// CHECK-NEXT: "dims": {{[1-9][0-9]*}},
// CHECK:      "absexpr": {{[1-9][0-9]*}},
// CHECK:      "search": {
// CHECK:      "evaluated": 1,
// CHECK-NEXT: "verified": 1,
// CHECK:      "kernel_ops_searched": 2,

func.func @gqa_small(%q: tensor<2x4x8xf16>, %k: tensor<2x8x16xf16>, %v: tensor<2x16x8xf16>) -> tensor<2x4x8xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %qk = tosa.matmul %q, %k, %zp, %zp : (tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x16xf16>
  %e = tosa.exp %qk : (tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x16xf16>) -> tensor<2x4x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x4x16xf16>, tensor<2x4x1xf16>, tensor<1xi8>) -> tensor<2x4x16xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x16xf16>, tensor<2x16x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x8xf16>
  return %o : tensor<2x4x8xf16>
}
