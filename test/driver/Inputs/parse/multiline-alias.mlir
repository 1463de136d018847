func.func private @f() -> f64
#transpose = affine_map<(d0, d1)
    -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @t(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = linalg.generic {indexing_maps = [#transpose, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
