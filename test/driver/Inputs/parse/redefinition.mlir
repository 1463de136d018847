// Two definitions of one alias: rejected by both.
#m = affine_map<(d0) -> (d0)>
func.func private @f() -> f64
#m = affine_map<(d0) -> (d0)>
