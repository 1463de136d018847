// Until lifting lands, --mirage-superopt must leave the module unchanged and
// say so, per function, under --mirage-remarks.
// RUN: mirage-opt --mirage-superopt --mirage-remarks %s 2>&1 >%t | FileCheck %s --check-prefix=REMARK
// RUN: mirage-opt %s > %t.ref && diff %t.ref %t
// RUN: mirage-opt --mirage-superopt %s 2>&1 >/dev/null | count 0

// REMARK: superopt-remarks.mlir:[[@LINE+1]]:1: remark: mirage-superopt: '@rms' left unchanged: lifting of TOSA/linalg into μGraphs is not implemented yet
func.func @rms(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  %sq = arith.mulf %x, %x : tensor<2x8xf32>
  %init = tensor.empty() : tensor<2xf32>
  %s = linalg.reduce ins(%sq : tensor<2x8xf32>) outs(%init : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %e = tensor.expand_shape %s [[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
  return %e : tensor<2x1xf32>
}
