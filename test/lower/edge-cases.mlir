// Edge cases found in review, each once wrong: a thread op whose results
// differ in shape (either order), a scalar outside the f32 range, relu of
// NaN (0, as in lib/interp), a kernel graph name longer than 255
// characters, more than 256 kernel tensors on the GPU path.
// RUN: mirage-run --lower %s | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU
// RUN: mirage-opt --mirage-lower="ptx=false dedup-kernels=false" %S/Inputs/long-chain.mlir | FileCheck %s --check-prefix=CHAIN
// The 260 exps are one kernel once identical kernels are merged (the
// default): 260 launches of it.
// RUN: mirage-opt --mirage-lower="ptx=false" %S/Inputs/long-chain.mlir | FileCheck %s --check-prefix=CHAIN-ONE
// A kernel graph that only returns its input needs no GPU module; one that
// also returns an input beside a result copies it back.
// RUN: mirage-opt --mirage-lower="ptx=false" --mirage-remarks %S/Inputs/pass-through.mlir 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: mirage-run --lower %S/Inputs/pass-through.mlir | FileCheck %s --check-prefix=THROUGH

// CHECK-DAG: @thread_shapes: 2 outputs, 72 elements, max abs error {{.*}}: ok
// CHECK-DAG: @swapped: 2 outputs, 72 elements, max abs error {{.*}}: ok
// CHECK-DAG: @huge_scalar: 1 output, 32 elements, max abs error {{.*}}: ok
// CHECK-DAG: @{{f+}}: 1 output, 32 elements, max abs error {{.*}}: ok
// GPU: arith.constant 9.9999999999999994E+38 : f64
// GPU: arith.cmpf ogt
// GPU: arith.select
// GPU: func.func @ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff(
// GPU: func.func @caller(
// GPU-NEXT: call @ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff(
// CHAIN: gpu.func @chain_gpu_k260(
// CHAIN-ONE: gpu.func @[[EXP:chain_gpu_k[0-9]+]](
// CHAIN-ONE-NOT: gpu.func
// CHAIN-ONE-COUNT-260: gpu.launch_func async [%{{.*}}] @chain_gpu::@[[EXP]] blocks
// CHAIN-ONE-NOT: gpu.launch_func
// PASS: remark: mirage-lower: '@id': no kernel (it passes its inputs through)
// PASS: remark: mirage-lower: '@two': 1 kernel(s) in gpu.module @two_gpu
// PASS-NOT: gpu.module @id_gpu
// THROUGH: @id: 1 output, 32 elements, max abs error 0
// THROUGH: @two: 2 outputs, 64 elements

func.func @th_mixed(%a: tensor<4x1xf32>, %b: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>) attributes {ug.level = "thread"} {
  %e = "ug.exp"(%a) : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %m = "ug.mul"(%a, %b) : (tensor<4x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %e, %m : tensor<4x1xf32>, tensor<4x8xf32>
}
func.func @thread_shapes_block(%x: tensor<8x1xf32>, %y: tensor<8x8xf32>) -> (tensor<8x1xf32>, tensor<8x8xf32>) attributes {ug.block_threads = 32 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x1xf32>) -> tensor<4x1xf32>
  %u = "ug.iterator"(%y) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x8xf32>) -> tensor<4x8xf32>
  %g:2 = "ug.thread"(%t, %u) {kernel = @th_mixed, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<4x1xf32>, tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>)
  %o1 = "ug.saver"(%g#0) {omap = array<i64: 0, -1, -1>} : (tensor<4x1xf32>) -> tensor<8x1xf32>
  %o2 = "ug.saver"(%g#1) {omap = array<i64: 0, -1, -1>} : (tensor<4x8xf32>) -> tensor<8x8xf32>
  func.return %o1, %o2 : tensor<8x1xf32>, tensor<8x8xf32>
}
func.func @thread_shapes(%x: tensor<8x1xf32>, %y: tensor<8x8xf32>) -> (tensor<8x1xf32>, tensor<8x8xf32>) attributes {ug.level = "kernel"} {
  %r:2 = "ug.custom"(%x, %y) {kernel = @thread_shapes_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<8x1xf32>, tensor<8x8xf32>) -> (tensor<8x1xf32>, tensor<8x8xf32>)
  func.return %r#0, %r#1 : tensor<8x1xf32>, tensor<8x8xf32>
}

func.func @th_swapped(%a: tensor<4x1xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) attributes {ug.level = "thread"} {
  %e = "ug.exp"(%a) : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %m = "ug.mul"(%a, %b) : (tensor<4x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %m, %e : tensor<4x8xf32>, tensor<4x1xf32>
}
func.func @swapped_block(%x: tensor<8x1xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x1xf32>) attributes {ug.block_threads = 32 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x1xf32>) -> tensor<4x1xf32>
  %u = "ug.iterator"(%y) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x8xf32>) -> tensor<4x8xf32>
  %g:2 = "ug.thread"(%t, %u) {kernel = @th_swapped, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<4x1xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>)
  %o1 = "ug.saver"(%g#0) {omap = array<i64: 0, -1, -1>} : (tensor<4x8xf32>) -> tensor<8x8xf32>
  %o2 = "ug.saver"(%g#1) {omap = array<i64: 0, -1, -1>} : (tensor<4x1xf32>) -> tensor<8x1xf32>
  func.return %o1, %o2 : tensor<8x8xf32>, tensor<8x1xf32>
}
func.func @swapped(%x: tensor<8x1xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x1xf32>) attributes {ug.level = "kernel"} {
  %r:2 = "ug.custom"(%x, %y) {kernel = @swapped_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<8x1xf32>, tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x1xf32>)
  func.return %r#0, %r#1 : tensor<8x8xf32>, tensor<8x1xf32>
}

func.func @huge_scalar(%x: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {ug.level = "kernel"} {
  %e = "ug.div_scalar"(%x) {scalar = 1.0e+39 : f64} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  func.return %e : tensor<8x4xf32>
}
func.func @relu_nan(%x: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {ug.level = "kernel"} {
  %s = "ug.sqrt"(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %e = "ug.relu"(%s) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  func.return %e : tensor<8x4xf32>
}
func.func @ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff(%x: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  func.return %e : tensor<8x4xf32>
}
func.func @caller(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %y = func.call @ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  func.return %y : tensor<8x4xf32>
}
