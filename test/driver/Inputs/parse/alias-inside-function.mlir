// An alias is only allowed at the top level: rejected by both.
func.func @f() {
#m = affine_map<(d0) -> (d0)>
  return
}
