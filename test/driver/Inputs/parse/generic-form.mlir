"func.func"() <{function_type = () -> (), sym_name = "f", sym_visibility = "private"}> ({
}) : () -> ()
!i = i32
"func.func"() <{function_type = (!i) -> (), sym_name = "g", sym_visibility = "private"}> ({
}) : () -> ()
