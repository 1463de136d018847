// The fused 4096^3 matmul + exp is estimated far cheaper than our two
// predefined kernels (the generic matmul kernel reads its terms from
// global memory one by one), so it is tested; one finite-field test of
// 4096^3 multiply-adds does not finish within a 1 s budget, and the input
// is kept.
// RUN: mirage-opt --mirage-search="cache=false time-budget-s=1" --mirage-stats --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s

// CHECK: mirage-search @big: {{.*}} 1 evaluated, 0 verified, stopped by the time budget
// CHECK: remark: mirage-search: '@big' kept: no cheaper verified μGraph found (stopped by the time budget)
func.func @big(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> attributes {ug.level = "kernel"} {
  %c = "ug.matmul"(%a, %b) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %e = "ug.exp"(%c) : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  func.return %e : tensor<4096x4096xf32>
}
