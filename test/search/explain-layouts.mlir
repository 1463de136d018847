// The search runs on the logical program (input layouts cleared) but ranks
// each candidate with the layouts it will run with: a kernel whose form
// depends on them is costed as lowered. Here the down projection of the
// nn.Linear MLP (Wᵀ, an input stored transposed): as a predefined matmul
// on a dense B it would be a row-group GEMV (cheap), with B stored
// transposed and K = 128 (no whole chunk for the transposed-B GEMV) it is
// the grid-stride kernel (6.67 us). Ranked without the layouts, that
// candidate came first (9.80 us) and was chosen over the graph-defined
// pair (5.62 us).
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false" --mirage-explain %S/../lift/transposed-weights.mlir -o /dev/null 2>&1 | FileCheck %s

// CHECK: '@mlp_f16_lax0' #1 (chosen): 2 kernel(s), estimated 5.62 us
// CHECK: '@mlp_f16_lax0' #2: 2 kernel(s), estimated 5.63 us
// CHECK: '@mlp_f16_lax0' chosen kernel 1 'ug.custom'
// CHECK-NEXT: '@mlp_f16_lax0' chosen kernel 2 'ug.custom'
// CHECK: '@mlp_f16_lax0' chose #1, the cheapest verified candidate: estimated 19.87 us -> 5.62 us
