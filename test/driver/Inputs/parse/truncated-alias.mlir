func.func private @f() -> f64
#m = affine_map<(d0) ->
