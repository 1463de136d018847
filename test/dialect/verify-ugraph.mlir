// The μGraph rules IRDL cannot express, checked by --mirage-verify-ugraph.
// Each rule has a case that must fail, at the offending op.
// RUN: not mirage-opt --mirage-verify-ugraph --split-input-file %s 2>&1 | FileCheck %s

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: matmul contraction mismatch: 'lhs' dim 1 is 8 but 'rhs' dim 0 is 4
func.func @matmul_contraction_mismatch(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: 'add' shape mismatch: 'lhs' dim 1 is 8 but 'rhs' dim 1 is 3 (neither is 1)
func.func @add_shapes_do_not_broadcast(%a: tensor<4x8xf32>, %b: tensor<4x3xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: result type does not match the inferred type 'tensor<4x1xf32>'
func.func @sum_result_type_wrong(%a: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.sum"(%a) {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: sum dim 2 is out of range for rank 2
func.func @sum_dim_out_of_range(%a: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.sum"(%a) {dim = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: 'iterator' is not allowed in a kernel graph
func.func @iterator_at_kernel_level(%a: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: imap axis 'x' of size 4 does not divide dim 0 of size 6
func.func @imap_not_divisible_block(%x: tensor<6x8xf32>) -> tensor<6x8xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<6x8xf32>) -> tensor<3x8xf32>
  %o = "ug.saver"(%t) {omap = array<i64: 0, -1, -1>} : (tensor<3x8xf32>) -> tensor<6x8xf32>
  func.return %o : tensor<6x8xf32>
}
func.func @imap_not_divisible(%x: tensor<6x8xf32>) -> tensor<6x8xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @imap_not_divisible_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<6x8xf32>) -> tensor<6x8xf32>
  func.return %y : tensor<6x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: for-loop range 4 does not divide tile dim 1 of size 6
func.func @fmap_not_divisible_block(%x: tensor<4x6xf32>) -> tensor<4x1xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %s = "ug.accum"(%t) {kind = "sum_last"} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %o = "ug.saver"(%s) {omap = array<i64: -1, -1, -1>} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  func.return %o : tensor<4x1xf32>
}
func.func @fmap_not_divisible(%x: tensor<4x6xf32>) -> tensor<4x1xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @fmap_not_divisible_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  func.return %y : tensor<4x1xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: imap axes 'x' and 'y' both map to dim 0
func.func @two_axes_one_dim_block(%x: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 2, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, 0, -1>} : (tensor<8x8xf32>) -> tensor<2x8xf32>
  %o = "ug.saver"(%t) {omap = array<i64: 0, 1, -1>} : (tensor<2x8xf32>) -> tensor<8x8xf32>
  func.return %o : tensor<8x8xf32>
}
func.func @two_axes_one_dim(%x: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @two_axes_one_dim_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  func.return %y : tensor<8x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+3]]:8: error: grid axis 'x' of size 2 is not mapped by omap
func.func @omap_misses_axis_block(%x: tensor<8x8xf32>) -> tensor<4x8xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x8xf32>) -> tensor<4x8xf32>
  %o = "ug.saver"(%t) {omap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}
func.func @omap_misses_axis(%x: tensor<8x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @omap_misses_axis_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+3]]:8: error: saver input is in-loop but the for-loop range is 4; accumulate it first
func.func @saver_before_accum_block(%x: tensor<4x8xf32>) -> tensor<4x2xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x2xf32>
  %o = "ug.saver"(%t) {omap = array<i64: -1, -1, -1>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  func.return %o : tensor<4x2xf32>
}
func.func @saver_before_accum(%x: tensor<4x8xf32>) -> tensor<4x2xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @saver_before_accum_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+4]]:8: error: accumulator input is already post-loop
func.func @accum_of_accum_block(%x: tensor<4x8xf32>) -> tensor<4x2xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x2xf32>
  %a = "ug.accum"(%t) {kind = "sum"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %b = "ug.accum"(%a) {kind = "sum"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %o = "ug.saver"(%b) {omap = array<i64: -1, -1, -1>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  func.return %o : tensor<4x2xf32>
}
func.func @accum_of_accum(%x: tensor<4x8xf32>) -> tensor<4x2xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @accum_of_accum_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+4]]:8: error: 'add' mixes in-loop and post-loop values
func.func @mixes_loop_values_block(%x: tensor<4x8xf32>) -> tensor<4x2xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x2xf32>
  %a = "ug.accum"(%t) {kind = "sum"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %m = "ug.add"(%a, %t) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %o = "ug.saver"(%m) {omap = array<i64: -1, -1, -1>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  func.return %o : tensor<4x2xf32>
}
func.func @mixes_loop_values(%x: tensor<4x8xf32>) -> tensor<4x2xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @mixes_loop_values_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+1]]:1: error: block_threads is 2048, expected 1..1024
func.func @too_many_threads_block(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.block_threads = 2048 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %o = "ug.saver"(%t) {omap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}
func.func @too_many_threads(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @too_many_threads_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+1]]:1: error: block_threads is 100, expected a multiple of 32
func.func @threads_not_warp_multiple_block(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.block_threads = 100 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %o = "ug.saver"(%t) {omap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}
func.func @threads_not_warp_multiple(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @threads_not_warp_multiple_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+1]]:1: error: grid axis 'y' has size 131072 but target 'sm_90' allows at most 65535
func.func @grid_too_large_block(%x: tensor<4x131072xf32>) -> tensor<4x131072xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 131072, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, 1, -1>} : (tensor<4x131072xf32>) -> tensor<4x1xf32>
  %o = "ug.saver"(%t) {omap = array<i64: -1, 1, -1>} : (tensor<4x1xf32>) -> tensor<4x131072xf32>
  func.return %o : tensor<4x131072xf32>
}
func.func @grid_too_large(%x: tensor<4x131072xf32>) -> tensor<4x131072xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @grid_too_large_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x131072xf32>) -> tensor<4x131072xf32>
  func.return %y : tensor<4x131072xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+1]]:1: error: block graph 1 needs 262144 bytes of shared memory but target 'sm_90' has 232448
func.func @smem_exceeded_block(%x: tensor<256x256xf32>) -> tensor<256x256xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<256x256xf32>) -> tensor<256x256xf32>
  %o = "ug.saver"(%t) {omap = array<i64: -1, -1, -1>} : (tensor<256x256xf32>) -> tensor<256x256xf32>
  func.return %o : tensor<256x256xf32>
}
func.func @smem_exceeded(%x: tensor<256x256xf32>) -> tensor<256x256xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @smem_exceeded_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<256x256xf32>) -> tensor<256x256xf32>
  func.return %y : tensor<256x256xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+7]]:8: error: 'custom' operand 0 has type f32[4,16] but graph 1 expects f32[4,8]
func.func @custom_input_mismatch_block(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 1, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %o = "ug.saver"(%t) {omap = array<i64: -1, -1, -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}
func.func @custom_input_mismatch(%x: tensor<4x16xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @custom_input_mismatch_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+5]]:8: error: 'kernel' must name a block graph
func.func @custom_names_kernel_graph_callee(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ug.level = "kernel"} {
  func.return %x : tensor<4xf32>
}
func.func @custom_names_kernel_graph(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @custom_names_kernel_graph_callee, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+5]]:8: error: 'kernel' must name a block graph
func.func @unknown_level_block(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ug.level = "warp"} {
  func.return %x : tensor<4xf32>
}
func.func @unknown_level(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @unknown_level_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: unexpected op 'arith.addf' in a μGraph function
func.func @foreign_op(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ug.level = "kernel"} {
  %0 = arith.addf %a, %a : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+1]]:27: error: argument type: element type must be f16, bf16 or f32
func.func @integer_tensor(%a: tensor<4xi32>) -> tensor<4xi32> attributes {ug.level = "kernel"} {
  func.return %a : tensor<4xi32>
}

// -----

// A `?` dim is a symbol: the argument says which, the kernel graph its size.
// CHECK: verify-ugraph.mlir:[[@LINE+1]]:26: error: each '?' dim of an argument needs its symbol in 'ug.sym' (1..3), each static dim 0
func.func @dynamic_shape(%a: tensor<?xf32>) -> tensor<?xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.exp"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+1]]:27: error: a symbol needs its size in the kernel graph's 'ug.syms'
func.func @unsized_symbol(%a: tensor<?xf32> {ug.sym = array<i64: 1>}) -> tensor<?xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.exp"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: result type does not match the inferred type 'tensor<?x1xf32>'
func.func @symbol_kept(%a: tensor<?x8xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<4x1xf32> attributes {ug.level = "kernel", ug.syms = array<i64: 4, 0, 0>} {
  %0 = "ug.sum"(%a) {dim = 1 : i64} : (tensor<?x8xf32>) -> tensor<4x1xf32>
  func.return %0 : tensor<4x1xf32>
}

// -----

// A symbol is never reduced into a static size by a reshape.
// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: {{.*}}reshape drops symbol 1 of its operand
func.func @symbol_merged(%a: tensor<?x8xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<32xf32> attributes {ug.level = "kernel", ug.syms = array<i64: 4, 0, 0>} {
  %0 = "ug.reshape"(%a) : (tensor<?x8xf32>) -> tensor<32xf32>
  func.return %0 : tensor<32xf32>
}

// -----

// Two symbols meet only where they are broadcast against a static 1.
// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: {{.*}}'add' dim 0 is symbol 1 in 'lhs' but symbol 2 in 'rhs'
func.func @two_symbols(%a: tensor<?x8xf32> {ug.sym = array<i64: 1, 0>}, %b: tensor<?x8xf32> {ug.sym = array<i64: 2, 0>}) -> tensor<?x8xf32> attributes {ug.level = "kernel", ug.syms = array<i64: 4, 4, 0>} {
  %0 = "ug.add"(%a, %b) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %0 : tensor<?x8xf32>
}

// -----

// A block graph splits a symbol only by a grid axis of its size.
// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: imap axis 'x' (static, 0) maps dim 0 (symbol 1)
func.func private @split_b(%a: tensor<?x8xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<?x8xf32> attributes {ug.level = "block", ug.grid = array<i64: 2, 1, 1>, ug.block_threads = 128 : i64, ug.forloop = 1 : i64} {
  %0 = "ug.iterator"(%a) {imap = array<i64: 0, -1, -1>, fmap = -1 : i64} : (tensor<?x8xf32>) -> tensor<2x8xf32>
  %1 = "ug.saver"(%0) {omap = array<i64: 0, -1, -1>} : (tensor<2x8xf32>) -> tensor<?x8xf32>
  func.return %1 : tensor<?x8xf32>
}
func.func @split(%a: tensor<?x8xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<?x8xf32> attributes {ug.level = "kernel", ug.syms = array<i64: 4, 0, 0>} {
  %0 = "ug.custom"(%a) {kernel = @split_b, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %0 : tensor<?x8xf32>
}

// -----

// A for-loop splits a symbol only when it runs over it (ug.forloop_sym):
// a static range would assume the size divides by it.
// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: fmap names dim 0 (symbol 1) but the for-loop has a static range: a symbol is split only by a for-loop over it
func.func private @loop_b(%a: tensor<?x8xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<1x8xf32> attributes {ug.level = "block", ug.grid = array<i64: 1, 1, 1>, ug.block_threads = 128 : i64, ug.forloop = 2 : i64} {
  %0 = "ug.iterator"(%a) {imap = array<i64: -1, -1, -1>, fmap = 0 : i64} : (tensor<?x8xf32>) -> tensor<2x8xf32>
  %1 = "ug.sum"(%0) {dim = 0 : i64} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %2 = "ug.accum"(%1) {kind = "sum"} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %3 = "ug.saver"(%2) {omap = array<i64: -1, -1, -1>} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  func.return %3 : tensor<1x8xf32>
}
func.func @loop(%a: tensor<?x8xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<1x8xf32> attributes {ug.level = "kernel", ug.syms = array<i64: 4, 0, 0>} {
  %0 = "ug.custom"(%a) {kernel = @loop_b, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<?x8xf32>) -> tensor<1x8xf32>
  func.return %0 : tensor<1x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+1]]:1: error: 'ug.forloop_sym' names a symbol the kernel graph's 'ug.syms' does not size, or 'ug.forloop_rows' is not positive
func.func private @loop_rows_b(%a: tensor<?x8xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<1x8xf32> attributes {ug.level = "block", ug.grid = array<i64: 1, 1, 1>, ug.block_threads = 128 : i64, ug.forloop = 2 : i64, ug.forloop_sym = 1 : i64, ug.forloop_rows = 0 : i64} {
  %0 = "ug.iterator"(%a) {imap = array<i64: -1, -1, -1>, fmap = 0 : i64} : (tensor<?x8xf32>) -> tensor<2x8xf32>
  %1 = "ug.sum"(%0) {dim = 0 : i64} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %2 = "ug.accum"(%1) {kind = "sum"} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %3 = "ug.saver"(%2) {omap = array<i64: -1, -1, -1>} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  func.return %3 : tensor<1x8xf32>
}
func.func @loop_rows(%a: tensor<?x8xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<1x8xf32> attributes {ug.level = "kernel", ug.syms = array<i64: 4, 0, 0>} {
  %0 = "ug.custom"(%a) {kernel = @loop_rows_b, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<?x8xf32>) -> tensor<1x8xf32>
  func.return %0 : tensor<1x8xf32>
}

// -----

// The rank limit (MG_MAX_DIMS, 8): a rank-9 argument is reported at the
// argument, a rank-9 result at its op.
// CHECK: verify-ugraph.mlir:[[@LINE+1]]:24: error: argument type: rank 9 exceeds the μGraph limit of 8
func.func @rank9_input(%a: tensor<1x2x1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x1x2x4xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.exp"(%a) : (tensor<1x2x1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x1x2x4xf32>
  func.return %0 : tensor<1x2x1x2x1x2x1x2x4xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: result type: rank 9 exceeds the μGraph limit of 8
func.func @rank9_reshape(%a: tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x1x2x1x2x2xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.reshape"(%a) : (tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x1x2x1x2x2xf32>
  func.return %0 : tensor<2x3x2x3x1x2x1x2x2xf32>
}

// -----

// A reduction dim past the rank limit.
// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: 'ug.sum' needs an integer 'dim' in [0, 8)
func.func @sum_dim_past_limit(%a: tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x2x4xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.sum"(%a) {dim = 8 : i64} : (tensor<2x3x2x3x2x4xf32>) -> tensor<2x3x2x3x2x4xf32>
  func.return %0 : tensor<2x3x2x3x2x4xf32>
}

// -----

// A transpose of an argument that has other uses is a view op (a copy),
// not a layout; its result type is checked like any op's.
// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: result type does not match the inferred type 'tensor<8x4xf32>'
func.func @view_and_plain_use(%a: tensor<4x8xf32>, %w: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %t = "ug.transpose"(%w) {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = "ug.add"(%a, %w) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: 'ug.transpose' perm is not a permutation
func.func @layout_not_a_permutation(%a: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> attributes {ug.level = "kernel"} {
  %t = "ug.transpose"(%w) {perm = array<i64: 0, 0>} : (tensor<8x4xf32>) -> tensor<8x8xf32>
  %0 = "ug.matmul"(%a, %t) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x4xf32>
  func.return %0 : tensor<4x4xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: 'ug.transpose' result is not its argument permuted by perm
func.func @layout_wrong_result(%a: tensor<4x8xf32>, %w: tensor<4x8xf32>) -> tensor<4x4xf32> attributes {ug.level = "kernel"} {
  %t = "ug.transpose"(%w) {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = "ug.matmul"(%a, %t) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  func.return %0 : tensor<4x4xf32>
}

// -----

// A transpose of a computed value is a view op.
// CHECK: verify-ugraph.mlir:[[@LINE+3]]:8: error: transpose perm is not a permutation of 0..1
func.func @view_transpose_not_a_permutation(%a: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = "ug.transpose"(%e) {perm = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %t : tensor<4x8xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+3]]:8: error: reshape to 30 elements of a tensor of 32
func.func @view_reshape_count(%a: tensor<4x8xf32>) -> tensor<5x6xf32> attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = "ug.reshape"(%e) : (tensor<4x8xf32>) -> tensor<5x6xf32>
  func.return %r : tensor<5x6xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+3]]:8: error: slice [6, 6 + 4) is out of dim 1's 0..8
func.func @view_slice_out_of_range(%a: tensor<4x8xf32>) -> tensor<4x4xf32> attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = "ug.slice"(%e) {dim = 1 : i64, offset = 6 : i64} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  func.return %s : tensor<4x4xf32>
}

// -----

// CHECK: verify-ugraph.mlir:[[@LINE+2]]:8: error: 'ug.slice' op attribute "offset" is expected but not provided
func.func @view_slice_no_offset(%a: tensor<4x8xf32>) -> tensor<4x4xf32> attributes {ug.level = "kernel"} {
  %s = "ug.slice"(%a) {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  func.return %s : tensor<4x4xf32>
}
