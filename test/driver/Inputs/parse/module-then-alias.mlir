module {
  func.func private @a() -> f32
}
#m = affine_map<(d0) -> (d0)>
module attributes {test.map = #m} {
}
