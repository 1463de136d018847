// NOTHING: nothing-to-lift.mlir:{{[0-9]+}}:1: remark: mirage-lift: '@ints'
func.func @ints(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arith.addi %a, %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}
