// RUN: not mirage-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s
// CHECK: mirage-opt: cannot read '{{.*}}does-not-exist.mlir': No such file or directory
// CHECK-NOT: error
