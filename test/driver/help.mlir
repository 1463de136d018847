// RUN: mirage-opt --help | FileCheck %s
// RUN: mirage-opt --version | FileCheck %s --check-prefix=VERSION

// CHECK: USAGE: mirage-opt
// CHECK: --mirage-superopt
// CHECK-NEXT: max-kernel-ops=<int>
// CHECK-NEXT: max-block-ops=<int>
// CHECK-SAME: (default: 9)
// CHECK: time-budget-s=<number>
// CHECK: target=<string>
// CHECK-SAME: (default: sm_90)
// CHECK: max-lax-ops=<int>
// CHECK: --mirage-verify-ugraph
// CHECK: --mirage-check-equiv
// CHECK-NEXT: lhs=<string>
// VERSION: mirage-opt 0.1.0 (MLIR 22
