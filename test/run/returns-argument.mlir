// A reference that returns its argument (and the same value twice)
// bufferizes to returned block arguments, on which MLIR 22's
// buffer-results-to-out-params crashed; mirage-run returns copies.
// RUN: mirage-run --compare=ref,ker %s | FileCheck %s
// CHECK: @ref vs @ker: 3 outputs, 9 elements, max abs error 0

func.func @ref(%a: tensor<1x3xf32>, %b: tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) {
  %s = tosa.sub %b, %b : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  return %a, %s, %s : tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>
}
func.func @ker(%a: tensor<1x3xf32>, %b: tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) attributes {ug.level = "kernel"} {
  %s = "ug.sub"(%b, %b) : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  %t = "ug.mul_scalar"(%s) {scalar = 1.000000e+00 : f64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  func.return %a, %s, %t : tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>
}
