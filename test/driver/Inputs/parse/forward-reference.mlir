// A use before the definition: rejected by both.
func.func private @f(tensor<4xf32, #e>)
#e = "foo"
