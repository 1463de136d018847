// RUN: mirage-opt --help | FileCheck %s
// RUN: mirage-opt --version | FileCheck %s --check-prefix=VERSION

// CHECK: USAGE: mirage-opt
// CHECK: --mirage-superopt
// CHECK-NEXT: max-kernel-ops=<int>
// CHECK-NEXT: max-block-ops=<int>
// CHECK-SAME: (default: 9)
// CHECK: time-budget-s=<number>
// CHECK-SAME: at most 86400
// CHECK-NEXT: max-states=<int>
// CHECK-SAME: a bound on work, not time
// CHECK: target=<string>
// CHECK-SAME: (default: sm_90)
// CHECK: rank=<string>
// CHECK-SAME: (default: cost)
// CHECK: cuts=<bool>
// CHECK: max-lax-ops=<int>
// CHECK: lower=<bool>
// CHECK-SAME: (default: true)
// CHECK: ptx=<string>
// CHECK-SAME: (default: auto)
// CHECK: --mirage-verify-ugraph
// CHECK: --mirage-check-equiv
// CHECK-SAME: kernel-level μGraph functions, or TOSA / linalg-on-tensors functions lifted whole
// CHECK-NEXT: lhs=<string>
// CHECK: --mirage-cost
// CHECK-NEXT: target=<string>
// CHECK: --mirage-lower
// CHECK-NEXT: ptx=<string>
// CHECK-NEXT: toolkit=<string>
// CHECK-NEXT: ptxas=<bool>
// CHECK: --mirage-ptxas
// VERSION: mirage-opt 0.1.0 (MLIR 22
