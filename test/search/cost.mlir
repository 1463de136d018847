// The search ranks verified candidates by the cost model (lib/cost) and
// tests only those estimated cheaper than the input.
// Attention with a long KV length: the split-KV form wins (two kernels: the
// first spreads the KV length over the grid and saves partial numerators
// and sums side by side, the second adds them and divides).
// RUN: mirage-opt --mirage-search="cache=false" --mirage-remarks %s 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// (test_search_find checks that the programs found verify against the input.)
// The fused 4096^3 matmul + exp would move far more data than the two
// library kernels: nothing is tested, the input is kept.
// RUN: mirage-opt --mirage-search="cache=false" --mirage-stats --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=BIG
// RUN: not mirage-opt --mirage-search="rank=fastest" %s 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @attn(
// CHECK-NEXT: "ug.custom"{{.*}}resultSegmentSizes = array<i32: 1, 1, 0, 0>
// CHECK-NEXT: "ug.custom"
// CHECK-NEXT: return
// The roofline ranks; the model of the emitted code is shown beside it.
// REMARK: remark: mirage-search: '@attn' replaced by a verified μGraph: 5 kernel(s) -> 2, estimated {{[0-9.]+}} us -> {{[0-9.]+}} us, roofline 10.3 us -> 4.6 us on sm_90{{$}}
// BIG: mirage-search @big: {{.*}} 0 evaluated, 0 verified
// BIG: not tested (no cheaper than the best) {{[1-9][0-9]*}}
// BIG: remark: mirage-search: '@big' kept: no cheaper verified μGraph found
// BAD: unknown rank 'fastest' (expected cost or proxy)
func.func @attn(%q: tensor<2x16x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> tensor<2x16x64xf16> attributes {ug.level = "kernel"} {
  %s = "ug.matmul"(%q, %k) : (tensor<2x16x64xf16>, tensor<2x64x1024xf16>) -> tensor<2x16x1024xf16>
  %e = "ug.exp"(%s) : (tensor<2x16x1024xf16>) -> tensor<2x16x1024xf16>
  %z = "ug.sum"(%e) {dim = 2 : i64} : (tensor<2x16x1024xf16>) -> tensor<2x16x1xf16>
  %p = "ug.div"(%e, %z) : (tensor<2x16x1024xf16>, tensor<2x16x1xf16>) -> tensor<2x16x1024xf16>
  %o = "ug.matmul"(%p, %v) : (tensor<2x16x1024xf16>, tensor<2x1024x64xf16>) -> tensor<2x16x64xf16>
  func.return %o : tensor<2x16x64xf16>
}
func.func @big(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> attributes {ug.level = "kernel"} {
  %c = "ug.matmul"(%a, %b) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %e = "ug.exp"(%c) : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  func.return %e : tensor<4096x4096xf32>
}
