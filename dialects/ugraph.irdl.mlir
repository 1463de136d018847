// μGraph dialect (`ug`), defined in IRDL and loaded at run time.
//
// ORDER MG_OP: one op per MgOpKind in include/mirage/graph.h (except `input`,
// which is a function argument). Every graph is a func.func whose `ug.level`
// attribute names its level ("kernel", "block", "thread") and that ends in
// func.return; `ug.custom` and `ug.thread` name the graph they run by symbol.
// IRDL has no traits or custom syntax: ops print in generic form, and the
// rules IRDL cannot state (shapes, map divisibility, shared memory, levels)
// are checked in C by --mirage-verify-ugraph. See docs/dialect.md.
irdl.dialect @ug {
  // (...,m,k) x (...,k,n) -> (...,m,n); kernel and block level
  irdl.operation @matmul {
    %in_lhs = irdl.base "!builtin.tensor"
    %in_rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %in_lhs, rhs: %in_rhs)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // element-wise add, size-1 dims broadcast; any level
  irdl.operation @add {
    %in_lhs = irdl.base "!builtin.tensor"
    %in_rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %in_lhs, rhs: %in_rhs)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // element-wise sub, size-1 dims broadcast; any level
  irdl.operation @sub {
    %in_lhs = irdl.base "!builtin.tensor"
    %in_rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %in_lhs, rhs: %in_rhs)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // element-wise mul, size-1 dims broadcast; any level
  irdl.operation @mul {
    %in_lhs = irdl.base "!builtin.tensor"
    %in_rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %in_lhs, rhs: %in_rhs)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // element-wise div, size-1 dims broadcast; any level
  irdl.operation @div {
    %in_lhs = irdl.base "!builtin.tensor"
    %in_rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %in_lhs, rhs: %in_rhs)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // element-wise exp, LAX; any level
  irdl.operation @exp {
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // element-wise square, LAX; any level
  irdl.operation @square {
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // element-wise sqrt, non-LAX (uninterpreted in verification); any level
  irdl.operation @sqrt {
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // element-wise rsqrt, non-LAX (uninterpreted in verification); any level
  irdl.operation @rsqrt {
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // element-wise silu, non-LAX (uninterpreted in verification); any level
  irdl.operation @silu {
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // element-wise gelu, non-LAX (uninterpreted in verification); any level
  irdl.operation @gelu {
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // element-wise relu, non-LAX (uninterpreted in verification); any level
  irdl.operation @relu {
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // element-wise natural logarithm, non-LAX (uninterpreted); any level
  irdl.operation @log {
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // element-wise tanh, non-LAX (uninterpreted in verification); any level
  irdl.operation @tanh {
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // element-wise erf, non-LAX (uninterpreted in verification); any level
  irdl.operation @erf {
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // x * scalar; any level
  irdl.operation @mul_scalar {
    %a0 = irdl.base "#builtin.float"
    irdl.attributes { "scalar" = %a0 }
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // x / scalar; any level
  irdl.operation @div_scalar {
    %a0 = irdl.base "#builtin.float"
    irdl.attributes { "scalar" = %a0 }
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // element-wise maximum, broadcasting size-1 dims
  irdl.operation @maximum {
    %in_lhs = irdl.base "!builtin.tensor"
    %in_rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %in_lhs, rhs: %in_rhs)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // max over `dim`, kept with size 1; kernel and block level
  irdl.operation @reduce_max {
    %a0 = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %a0 }
    %in_input = irdl.base "!builtin.tensor"
    irdl.operands(input: %in_input)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // max(x, scalar) and min(x, scalar): bounds by a constant (ReLU6, clamp);
  // any level
  irdl.operation @max_scalar {
    %a0 = irdl.base "#builtin.float"
    irdl.attributes { "scalar" = %a0 }
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // x + scalar; any level
  irdl.operation @add_scalar {
    %a0 = irdl.base "#builtin.float"
    irdl.attributes { "scalar" = %a0 }
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  irdl.operation @min_scalar {
    %a0 = irdl.base "#builtin.float"
    irdl.attributes { "scalar" = %a0 }
    %in_input = irdl.base "!builtin.tensor" // result type = operand type
    irdl.operands(input: %in_input)
    irdl.results(out: %in_input)
  }
  // sum over `dim`, kept with size 1; kernel and block level
  irdl.operation @sum {
    %a0 = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %a0 }
    %in_input = irdl.base "!builtin.tensor"
    irdl.operands(input: %in_input)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // result dim d is source dim perm[d]. On a function argument that is its only
  // use: the argument's layout (read through a view, no copy; kernel and block
  // level). On anything else: a kernel-level view op
  // (see docs/dialect.md, View ops)
  irdl.operation @transpose {
    %a0 = irdl.base "#builtin.dense_array"
    irdl.attributes { "perm" = %a0 }
    %in_source = irdl.base "!builtin.tensor"
    irdl.operands(source: %in_source)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // row-major reshape to the result type (same element count); kernel level
  irdl.operation @reshape {
    %in_source = irdl.base "!builtin.tensor"
    irdl.operands(source: %in_source)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // the elements offset .. offset + n - 1 of dim `dim`, n the result's extent
  // there; kernel level
  irdl.operation @slice {
    %a0 = irdl.base "#builtin.integer"
    %a1 = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %a0, "offset" = %a1 }
    %in_source = irdl.base "!builtin.tensor"
    irdl.operands(source: %in_source)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // a 2-D convolution's patches of an NHWC input as rows: result
  // [groups, N*Ho*Wo, kh*kw*C/groups], zero outside the input; window
  // [kh, kw], strides, dilations [h, w], pad [top, bottom, left, right]
  // (docs/dialect.md); kernel level
  irdl.operation @im2col {
    %a0 = irdl.base "#builtin.dense_array"
    %a1 = irdl.base "#builtin.dense_array"
    %a2 = irdl.base "#builtin.dense_array"
    %a3 = irdl.base "#builtin.dense_array"
    %a4 = irdl.base "#builtin.integer"
    irdl.attributes { "window" = %a0, "strides" = %a1, "dilations" = %a2, "pad" = %a3, "groups" = %a4 }
    %in_source = irdl.base "!builtin.tensor"
    irdl.operands(source: %in_source)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // graph-defined kernel: runs block graph `kernel`; kernel level
  irdl.operation @custom {
    %a0 = irdl.base "#builtin.symbol_ref"
    irdl.attributes { "kernel" = %a0 }
    // IRDL binds a constraint variable to one type, so a variadic list would
    // force one type on all inputs: each is an optional operand of its own
    // (generic syntax then carries operandSegmentSizes/resultSegmentSizes).
    %in0 = irdl.base "!builtin.tensor"
    %in1 = irdl.base "!builtin.tensor"
    %in2 = irdl.base "!builtin.tensor"
    %in3 = irdl.base "!builtin.tensor"
    %in4 = irdl.base "!builtin.tensor"
    %in5 = irdl.base "!builtin.tensor"
    %in6 = irdl.base "!builtin.tensor"
    %in7 = irdl.base "!builtin.tensor"
    irdl.operands(in0: optional %in0, in1: optional %in1, in2: optional %in2, in3: optional %in3, in4: optional %in4, in5: optional %in5, in6: optional %in6, in7: optional %in7)
    %out0 = irdl.base "!builtin.tensor"
    %out1 = irdl.base "!builtin.tensor"
    %out2 = irdl.base "!builtin.tensor"
    %out3 = irdl.base "!builtin.tensor"
    irdl.results(out0: optional %out0, out1: optional %out1, out2: optional %out2, out3: optional %out3)
  }
  // input iterator: tile of a kernel tensor by imap (grid x,y,z -> dim or -1) and fmap (for-loop -> dim or -1); block level
  irdl.operation @iterator {
    %a0 = irdl.base "#builtin.dense_array"
    %a1 = irdl.base "#builtin.integer"
    irdl.attributes { "imap" = %a0, "fmap" = %a1 }
    %in_source = irdl.base "!builtin.tensor"
    irdl.operands(source: %in_source)
    %out_tile = irdl.base "!builtin.tensor"
    irdl.results(tile: %out_tile)
  }
  // for-loop accumulator, kind "sum" | "sum_last" | "sum_sq_last" | "max" |
  // "online"; block level. "online" takes the tile's max as a second operand
  // (docs/dialect.md, Online softmax)
  irdl.operation @accum {
    %a0 = irdl.base "#builtin.string"
    irdl.attributes { "kind" = %a0 }
    %in_input = irdl.base "!builtin.tensor"
    %in_max = irdl.base "!builtin.tensor"
    irdl.operands(input: %in_input, max: optional %in_max)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // output saver: writes the block's tile into a kernel tensor by omap; block level
  irdl.operation @saver {
    %a0 = irdl.base "#builtin.dense_array"
    irdl.attributes { "omap" = %a0 }
    %in_input = irdl.base "!builtin.tensor"
    irdl.operands(input: %in_input)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // concatenation along `dim`; block level, and kernel level as a view op
  irdl.operation @concat {
    %a0 = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %a0 }
    %in_lhs = irdl.base "!builtin.tensor"
    %in_rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %in_lhs, rhs: %in_rhs)
    %out_out = irdl.base "!builtin.tensor"
    irdl.results(out: %out_out)
  }
  // fused element-wise chain in registers: runs thread graph `kernel`; block level
  irdl.operation @thread {
    %a0 = irdl.base "#builtin.symbol_ref"
    irdl.attributes { "kernel" = %a0 }
    // IRDL binds a constraint variable to one type, so a variadic list would
    // force one type on all inputs: each is an optional operand of its own
    // (generic syntax then carries operandSegmentSizes/resultSegmentSizes).
    %in0 = irdl.base "!builtin.tensor"
    %in1 = irdl.base "!builtin.tensor"
    %in2 = irdl.base "!builtin.tensor"
    %in3 = irdl.base "!builtin.tensor"
    %in4 = irdl.base "!builtin.tensor"
    %in5 = irdl.base "!builtin.tensor"
    %in6 = irdl.base "!builtin.tensor"
    %in7 = irdl.base "!builtin.tensor"
    irdl.operands(in0: optional %in0, in1: optional %in1, in2: optional %in2, in3: optional %in3, in4: optional %in4, in5: optional %in5, in6: optional %in6, in7: optional %in7)
    %out0 = irdl.base "!builtin.tensor"
    %out1 = irdl.base "!builtin.tensor"
    %out2 = irdl.base "!builtin.tensor"
    %out3 = irdl.base "!builtin.tensor"
    irdl.results(out0: optional %out0, out1: optional %out1, out2: optional %out2, out3: optional %out3)
  }
}
