// RUN: not mirage-opt %s 2>&1 | FileCheck %s
// A syntax error is one diagnostic with the file, line and column.

func.func @broken(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 tensor<4xf32>
}
// CHECK: malformed.mlir:6:12: error: expected ':'
// CHECK-NOT: error:
