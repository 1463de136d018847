// The time budget also bounds finite-field runs at large shapes: one test of
// this 4096³ matmul takes minutes, so the search must abandon it at the
// deadline, say so and keep the input. (Under the proxy ranking: the cost
// model finds the fused kernel dearer than the two library calls and never
// tests it; test/search/cost.mlir checks that.)
// RUN: mirage-opt --mirage-search="cache=false rank=proxy time-budget-s=1" --mirage-remarks %s 2>&1 >%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=KEPT < %t

// CHECK: remark: mirage-search: '@big' kept: no cheaper verified μGraph found (stopped by the time budget)
// KEPT-LABEL: func.func @big(
// KEPT-NEXT: "ug.matmul"
func.func @big(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> attributes {ug.level = "kernel"} {
  %c = "ug.matmul"(%a, %b) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %e = "ug.exp"(%c) : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  func.return %e : tensor<4096x4096xf32>
}
