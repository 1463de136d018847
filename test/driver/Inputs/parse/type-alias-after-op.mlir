// Type and attribute aliases interleaved with functions, as a script that
// concatenates printed modules produces.
func.func private @g(%a: tensor<2x3xf16>) -> tensor<2x3xf16>
!act = tensor<2x3xf16>
func.func @h(%a: !act) -> !act {
  %0 = call @g(%a) : (!act) -> !act
  return %0 : !act
}
#attr = {note = "uses #act = 1 and // not a comment"}
func.func private @k() attributes {test.note = #attr}
