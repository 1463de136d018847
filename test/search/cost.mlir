// The search ranks verified candidates by the model of the code lib/lower
// emits for them (lib/cost/emitted.c) and tests only those estimated
// cheaper than the input.
// Attention with a long KV length: two kernels (the first writes exp(Q·K),
// the second multiplies by V and divides by the row sums).
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false" --mirage-remarks %s 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// (test_search_find checks that the programs found verify against the input.)
// RUN: not mirage-opt --mirage-search="rank=fastest" %s 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @attn(
// CHECK-NEXT: "ug.custom"{{.*}}kernel = @attn_k1
// CHECK-NEXT: "ug.custom"{{.*}}kernel = @attn_k2
// CHECK-NEXT: return
// The model of the emitted code ranks; the roofline is shown beside it.
// REMARK: remark: mirage-search: '@attn' replaced by a verified μGraph: 5 kernel(s) -> 2, estimated 59.6 us -> 8.6 us, roofline 10.3 us -> 5.3 us on sm_90{{$}}
// BAD: unknown rank 'fastest' (expected cost or proxy)
func.func @attn(%q: tensor<2x16x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> tensor<2x16x64xf16> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<2x16x64xf16>, tensor<2x64x1024xf16>) -> tensor<2x16x1024xf16>
  %e = "ug.exp"(%s) : (tensor<2x16x1024xf16>) -> tensor<2x16x1024xf16>
  %z = "ug.sum"(%e) {dim = 2 : i64} : (tensor<2x16x1024xf16>) -> tensor<2x16x1xf16>
  %p = "ug.div"(%e, %z) : (tensor<2x16x1024xf16>, tensor<2x16x1xf16>) -> tensor<2x16x1024xf16>
  %o = "ug.matmul"(%p, %v) : (tensor<2x16x1024xf16>, tensor<2x1024x64xf16>) -> tensor<2x16x64xf16>
  func.return %o : tensor<2x16x64xf16>
}
