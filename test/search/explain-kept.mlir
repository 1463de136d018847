// --mirage-explain when the input is kept, for a repeated subprogram, and
// for a JSON file that cannot be written.
// Without graph-defined kernels the only candidate is the row sum itself,
// no cheaper than the input: nothing is tested and the input is kept.
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false max-custom-kernels=0 explain=true explain-file=%t.json" %s 2>&1 >/dev/null | FileCheck %s
// RUN: %python -m json.tool %t.json | FileCheck %s --check-prefix=JSON
// RUN: not mirage-opt --mirage-search="cache=false max-custom-kernels=0 explain-file=%t.missing/x.json" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=BAD
// RUN: not mirage-opt --mirage-search="explain-top=0" %s 2>&1 | FileCheck %s --check-prefix=TOP

// CHECK: remark: mirage-explain: '@row_sum' on sm_90 (H100 SXM5), ranked by the estimate: input 1 kernel(s), estimated [[IN:[0-9.]+ us, roofline [0-9.]+ us]]; program bound {{[0-9.]+}} us ({{.*}}) + one launch 2.00 us; 1 best candidate(s) of the search:
// CHECK-NEXT: remark: mirage-explain: '@row_sum' #1: 1 kernel(s), estimated [[IN]]; not tested: estimated no faster than the input or the best verified; estimate = launches 2.00 us + latency-bound {{.*}}
// CHECK-NEXT: remark: mirage-explain: '@row_sum' kept the input: nothing estimated faster was verified (0 candidate(s) tested, 0 verified, 1 not tested: no cheaper){{$}}
// CHECK-NEXT: remark: mirage-explain: '@row_sum' pruned by rule: shape {{[0-9]+}} dims {{[0-9]+}} {{.*}}, 1 candidates, 0 evaluated, 0 verified;
// CHECK-NEXT: remark: mirage-explain: '@row_sum_copy' is the same μGraph as '@row_sum': searched once, see its explanation{{$}}
// JSON: "function": "row_sum",
// JSON: "chosen": {
// JSON-NEXT: "kept_input": true,
// JSON-NEXT: "reason": "kept the input: nothing estimated faster was verified {{.*}}",
// JSON-NEXT: "rank": null
// JSON: "top": [
// JSON-NEXT: {
// JSON-NEXT: "rank": 1,
// JSON-NEXT: "chosen": false,
// JSON-NEXT: "fate": "not-cheaper",
// JSON-NEXT: "parts": 0,
// JSON-NEXT: "verify": null,
// JSON: "not_cheaper": 1,
// JSON: "function": "row_sum_copy",
// JSON: "same_as": "row_sum",
// JSON: "chosen": {
// JSON-NEXT: "kept_input": true,
// JSON-NEXT: "reason": "the same {{(μ|\\u03bc)}}Graph as '@row_sum'",
// JSON-NEXT: "rank": null
// JSON-NEXT: }
// JSON-NEXT: }
// JSON-NEXT: ]
// BAD: error: mirage-explain: cannot write '{{.*}}x.json'
// TOP: value 0 of option 'explain-top' of 'mirage-search' is out of range [1, 256]
func.func @row_sum(%x: tensor<64x256xf32>) -> tensor<64x1xf32> attributes {ug.level = "kernel"} {
  %s = "ug.sum"(%x) {dim = 1 : i64} : (tensor<64x256xf32>) -> tensor<64x1xf32>
  func.return %s : tensor<64x1xf32>
}
func.func @row_sum_copy(%x: tensor<64x256xf32>) -> tensor<64x1xf32> attributes {ug.level = "kernel"} {
  %s = "ug.sum"(%x) {dim = 1 : i64} : (tensor<64x256xf32>) -> tensor<64x1xf32>
  func.return %s : tensor<64x1xf32>
}
