// --mirage-explain on RMSNorm + matmul (the small shapes of
// test/lift/rmsnorm-tosa.mlir, lifted by mirage-superopt): the best
// candidates with the cost model's breakdown, the choice and why, the
// verifier's bound and the pruning counts, as remarks and as JSON
// (docs/search.md, "Reading the explanation").
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false explain=true explain-file=%t.json" %s -o %t.out 2>%t.explain
// RUN: %python -m json.tool %t.json > %t.pretty
// The chosen program's figures are those --mirage-cost prints for it.
// RUN: mirage-opt --mirage-cost %t.out 2>%t.cost >/dev/null
// RUN: cat %t.explain %t.cost %t.pretty | FileCheck %s
// Explaining changes nothing the search chooses.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false" %s -o %t.plain
// RUN: diff %t.out %t.plain
// The driver's flag, one thread: the same JSON (the list does not depend
// on the thread count).
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false threads=1" --mirage-explain=%t.flag.json %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: diff %t.json %t.flag.json

// The input, then the five cheapest candidates in the search's order: the
// cheapest verified and is chosen, the next ones were not tested (a
// cheaper one verified first). Each: the figures --mirage-cost prints for
// a kernel graph, the fate, the estimate as launches + the body time by
// what bounds it, each resource's time, the roofline's traffic and work.
// The program bound is the input's: X, W and Y once, (2*64 + 64*96 +
// 2*96) * 2 B = 12928 B / 3.35e12 B/s = 0.0039 us (its 2*2*96*64 = 24576
// flops take 2.5e-5 us at the tensor-core peak); --mirage-cost says the
// same of the chosen program, which computes the same.
// CHECK: remark: mirage-explain: '@rmsnorm_small_lax0' on sm_90 (H100 SXM5), ranked by the estimate: input 6 kernel(s), estimated [[IN:[0-9.]+ us]], roofline [[INR:[0-9.]+ us]]; program bound 0.004 us (DRAM 0.013 MB once at 3.35 TB/s, 2.458e+04 flop at the tensor-core peak) + one launch 2.00 us; 5 best candidate(s) of the search:
// CHECK-NEXT: remark: mirage-explain: '@rmsnorm_small_lax0' #1 (chosen): [[PROG:1 kernel\(s\), estimated [0-9.]+ us, roofline [0-9.]+ us]]; verified: [[TESTS:[0-9]+]] test(s), error bound <= 2^-[[BITS:[0-9.]+]]; estimate = launches 2.00 us + latency-bound {{[0-9.]+}} us; resource time (us, over kernels): dram {{[0-9.]+}}, l2 {{[0-9.]+}}, smem {{[0-9.]+}}, {{.*}}latency {{[0-9.]+}}; DRAM {{[0-9.]+}} MB, L2 {{[0-9.]+}} MB, smem {{[0-9.]+}} MB, {{.*}} tensor flop, {{.*}} simt op, {{.*}} sfu op{{$}}
// CHECK-NEXT: remark: mirage-explain: '@rmsnorm_small_lax0' #2: 1 kernel(s), {{.*}}; not tested: a cheaper candidate was verified first; estimate = launches 2.00 us + {{.*}}
// CHECK-NEXT: #3: {{.*}}; not tested: a cheaper candidate was verified first;
// CHECK-NEXT: #4: {{.*}}; not tested: a cheaper candidate was verified first;
// CHECK-NEXT: #5: {{.*}}; not tested: a cheaper candidate was verified first;
// CHECK-NEXT: remark: mirage-explain: '@rmsnorm_small_lax0' chosen kernel 1 'ug.custom': [[K1:64 block.*]]{{$}}
// CHECK-NEXT: remark: mirage-explain: '@rmsnorm_small_lax0' chose #1, the cheapest verified candidate: estimated [[IN]] -> {{[0-9.]+}} us, roofline [[INR]] -> {{[0-9.]+}} us, {{[0-9]+\.[0-9][0-9]}}x the program bound + one launch (2.00 us); verifier: [[TESTS]] test(s), error bound <= 2^-[[BITS]] (asked 2^-40){{$}}
// The counts --mirage-stats prints (the prologue cut's two parts
// included): abstract expressions, dimension roles and duplicates prune.
// CHECK-NEXT: remark: mirage-explain: '@rmsnorm_small_lax0' pruned by rule: shape {{[0-9]+}} dims {{[1-9][0-9]*}} reduce {{[0-9]+}} anchor {{[0-9]+}} canonical {{[1-9][0-9]*}} absexpr {{[1-9][0-9]*}} duplicate {{[1-9][0-9]*}} pending {{[0-9]+}} budget {{[0-9]+}} saver {{[0-9]+}} launch {{[0-9]+}} smem {{[0-9]+}} work {{[0-9]+}} output {{[0-9]+}} shift {{[0-9]+}} generalize 0; fingerprint mismatches 0, verifier rejections 0, unstable 0, not tested (no cheaper than the best) {{[0-9]+}}; {{[1-9][0-9]*}} states, {{[1-9][0-9]*}} candidates, {{[0-9]+}} evaluated, {{[1-9][0-9]*}} verified; kernel-graph sizes searched 1; parts searched separately 2{{$}}
// --mirage-cost on the result says the same of the chosen program.
// CHECK: remark: mirage-cost: '@rmsnorm_small_lax0' on sm_90 (H100 SXM5): [[PROG]]; program bound 0.004 us (DRAM 0.013 MB once at 3.35 TB/s, 2.458e+04 flop at the tensor-core peak) + one launch 2.00 us{{$}}
// CHECK-NEXT: remark: mirage-cost: 'ug.custom' @rmsnorm_small_lax0_k1: [[K1]]{{$}}
// The JSON (json.tool's layout, keys in the order written).
// CHECK:      "tool": "mirage-explain",
// CHECK:      "target": "sm_90",
// CHECK-NEXT: "gpu": "H100 SXM5",
// CHECK-NEXT: "rank": "cost",
// CHECK-NEXT: "verify_log2_goal": -40,
// CHECK:      "function": "rmsnorm_small_lax0",
// CHECK-NEXT: "location": "{{.*}}explain-rmsnorm.mlir:{{[0-9]+}}:{{[0-9]+}}",
// CHECK-NEXT: "same_as": null,
// CHECK-NEXT: "program_bound": {
// CHECK-NEXT: "us": 0.00385910448,
// CHECK-NEXT: "launch_us": 2,
// CHECK-NEXT: "dram_mb": 0.012928,
// CHECK-NEXT: "tensor_flop": 24576
// CHECK-NEXT: },
// CHECK-NEXT: "input": {
// CHECK-NEXT: "kernels": 6,
// CHECK:      "chosen": {
// CHECK-NEXT: "kept_input": false,
// CHECK-NEXT: "reason": "chose #1, the cheapest verified candidate: estimated [[IN]] -> {{.*}}",
// CHECK-NEXT: "rank": 1,
// CHECK-NEXT: "parts": 0,
// CHECK-NEXT: "verify": {
// CHECK-NEXT: "verdict": "equivalent",
// CHECK-NEXT: "tests": [[TESTS]],
// CHECK-NEXT: "redraws": 0,
// CHECK-NEXT: "log2_bound": -[[BITS]]
// CHECK:      "kernels": 1,
// CHECK-NEXT: "estimated_us": {{[0-9.]+}},
// CHECK-NEXT: "roofline_us": {{[0-9.]+}},
// CHECK-NEXT: "launch_us": 2,
// CHECK-NEXT: "body_us_by_bound": {
// CHECK-NEXT: "latency": {{[0-9.]+}}
// CHECK:      "resource_us": {
// CHECK-NEXT: "dram": {{[0-9.e-]+}},
// CHECK-NEXT: "l2": {{[0-9.e-]+}},
// CHECK:      "kernel_ops": [
// CHECK-NEXT: {
// CHECK-NEXT: "op": "ug.custom",
// CHECK-NEXT: "blocks": 64,
// CHECK:      "top": [
// CHECK-NEXT: {
// CHECK-NEXT: "rank": 1,
// CHECK-NEXT: "chosen": true,
// CHECK-NEXT: "fate": "verified",
// CHECK:      "rank": 2,
// CHECK-NEXT: "chosen": false,
// CHECK-NEXT: "fate": "untested",
// CHECK-NEXT: "parts": 0,
// CHECK-NEXT: "verify": null,
// CHECK:      "rank": 5,
// CHECK:      "pruned": {
// CHECK-NEXT: "shape": {{[0-9]+}},
// CHECK-NEXT: "dims": {{[1-9][0-9]*}},
// CHECK:      "absexpr": {{[1-9][0-9]*}},
// CHECK-NEXT: "duplicate": {{[1-9][0-9]*}},
// CHECK:      "shift": 0
// CHECK:      "search": {
// CHECK-NEXT: "states": {{[1-9][0-9]*}},
// CHECK:      "cut_parts": 2,
// CHECK:      "timed_out": false,
// FLAG: remark: mirage-explain: '@rmsnorm_small_lax0' chose #1, the cheapest verified candidate

func.func @rmsnorm_small(%x: tensor<1x2x64xf16>, %w: tensor<1x64x96xf16>) -> tensor<1x2x96xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_n = "tosa.const"() <{values = dense<0.015625> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %sq = tosa.pow %x, %two : (tensor<1x2x64xf16>, tensor<1x1x1xf16>) -> tensor<1x2x64xf16>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x2x64xf16>) -> tensor<1x2x1xf16>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x2x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x1xf16>
  %rms = tosa.pow %mean, %half : (tensor<1x2x1xf16>, tensor<1x1x1xf16>) -> tensor<1x2x1xf16>
  %inv = tosa.reciprocal %rms : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %normed = tosa.mul %x, %inv, %shift : (tensor<1x2x64xf16>, tensor<1x2x1xf16>, tensor<1xi8>) -> tensor<1x2x64xf16>
  %y = tosa.matmul %normed, %w, %zp, %zp : (tensor<1x2x64xf16>, tensor<1x64x96xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x96xf16>
  return %y : tensor<1x2x96xf16>
}
