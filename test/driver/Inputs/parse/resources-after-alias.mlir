func.func @f() -> tensor<2xf32> {
  %0 = arith.constant dense_resource<blob> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
#unused = affine_map<(d0) -> (d0)>

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
