// Kernel-level view ops (lib/lower/write/views.c): a reshape of a contiguous
// buffer is a view (no kernel), a transpose or slice of a computed value
// read by kernels is folded into their reads (no kernel), the other
// transposes and slices and every concat are copy kernels. Each kernel graph is checked against its TOSA reference
// (written as torch-mlir emits it) by the interpreter, and its CPU
// lowering against the interpreter.
// RUN: mirage-run %s | FileCheck %s --check-prefix=INTERP
// RUN: mirage-run --lower %s | FileCheck %s --check-prefix=LOWER
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU

// INTERP-DAG: @rope_scores: 1 output, 147 elements, max abs error {{.*}}: ok
// INTERP-DAG: @views_out: 2 outputs, 504 elements, max abs error {{.*}}: ok
// INTERP-DAG: @bf16_odd: 4 outputs, {{.*}}: ok
// INTERP-DAG: @layout_reshape: 1 output, 60 elements, max abs error 0 {{.*}}: ok
// INTERP-DAG: @single_head: 1 output, 49 elements, max abs error {{.*}}: ok
// INTERP-DAG: @layout_out: 2 outputs, 84 elements, max abs error {{.*}}: ok
// LOWER-DAG: @rope_scores: 1 output, 147 elements, max abs error {{.*}}: ok
// LOWER-DAG: @views_out: 2 outputs, 504 elements, max abs error {{.*}}: ok
// LOWER-DAG: @bf16_odd: 4 outputs, {{.*}}: ok
// LOWER-DAG: @layout_reshape: 1 output, 60 elements, max abs error 0 {{.*}}: ok
// LOWER-DAG: @single_head: 1 output, 49 elements, max abs error {{.*}}: ok
// LOWER-DAG: @layout_out: 2 outputs, 84 elements, max abs error {{.*}}: ok

// The head split's transpose and the two rotate-half slices are folded
// (lib/graph/fold.c): no kernel, no buffer; their readers get the Q
// projection's buffer and read it through one memref.reinterpret_cast
// (offsets and strides of the composed views), element by element. Kᵀ
// stays a copy (a free reshape reads it) and reads the folded transpose
// through strides too. Four kernels (seven before folding): the
// projection, the concat, Kᵀ, the scores.
// GPU-LABEL: gpu.module @rope_scores_gpu
// GPU: gpu.func @rope_scores_gpu_k2(
// GPU-NOT: gpu.func @rope_scores_gpu_k4(
// The concat: one loop per operand, no branch per element choosing the
// operand. Each loop has a constant trip count (21 rows of 8 over 512
// threads, 64 rows a pass: one pass) and one bounds check, the tail's.
// GPU: gpu.func @rope_scores_gpu_k7(%arg0: memref<1x7x3x16xf16> {{.*}}, %arg1: memref<1x7x3x16xf16> {{.*}}, %arg2: memref<1x3x7x16xf16>
// GPU-DAG: memref.reinterpret_cast {{.*}} to offset: [8], sizes: [1, 3, 7, 8], strides: [336, 16, 48, 1] : memref<1x7x3x16xf16> to memref<1x3x7x8xf16, strided<[336, 16, 48, 1], offset: 8>>
// GPU-DAG: memref.reinterpret_cast {{.*}} to offset: [0], sizes: [1, 3, 7, 8], strides: [336, 16, 48, 1] : memref<1x7x3x16xf16> to memref<1x3x7x8xf16, strided<[336, 16, 48, 1]>>
// GPU-NOT: scf.if
// GPU: scf.for %[[K0:.*]] = %c0{{.*}} to %c21{{.*}} step %c64
// GPU-NEXT: %[[ROW0:.*]] = arith.addi %{{.*}}, %[[K0]] : index
// GPU-NEXT: %[[N0:.*]] = arith.constant 21 : index
// GPU-NEXT: %[[IN0:.*]] = arith.cmpi ult, %[[ROW0]], %[[N0]] : index
// GPU-NEXT: scf.if %[[IN0]] {
// GPU-NOT: scf.if
// GPU: memref.load {{.*}} : memref<1x3x7x8xf16, strided<[336, 16, 48, 1], offset: 8>>
// GPU-NOT: scf.if
// GPU: scf.for %[[K1:.*]] = %c0{{.*}} to %c21{{.*}} step %c64
// GPU-NEXT: %[[ROW1:.*]] = arith.addi %{{.*}}, %[[K1]] : index
// GPU-NEXT: %[[N1:.*]] = arith.constant 21 : index
// GPU-NEXT: %[[IN1:.*]] = arith.cmpi ult, %[[ROW1]], %[[N1]] : index
// GPU-NEXT: scf.if %[[IN1]] {
// GPU-NOT: scf.if
// GPU: memref.load {{.*}} : memref<1x3x7x8xf16, strided<[336, 16, 48, 1]>>
// Kᵀ moves the innermost dim: element by element, stores in result order.
// GPU: gpu.func @rope_scores_gpu_k8(%arg0: memref<1x7x3x16xf16>
// GPU-NOT: vector.load
// GPU: memref.load {{.*}} : memref<1x3x7x16xf16, strided<[336, 16, 48, 1]>>
// GPU-NEXT: memref.store {{.*}} : memref<1x3x16x7xf16>
// GPU: gpu.func @rope_scores_gpu_k11(
// GPU-NOT: gpu.func
// GPU-LABEL: func.func @rope_scores(
// GPU-COUNT-4: memref.expand_shape
// GPU-COUNT-4: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: gpu.memcpy async [%{{.*}}] %{{.*}}, %expand_shape{{.*}} : memref<1x3x7x7xf16>
// GPU-COUNT-6: gpu.dealloc
// GPU-NOT: gpu.dealloc
// Views that are outputs stay copies, of whole vectors where they can.
// GPU-LABEL: gpu.module @views_out_gpu
// GPU: gpu.func @views_out_gpu_k4(
// GPU: vector.load {{.*}} {alignment = 16 : i64} : memref<1x7x3x16xf16>, vector<8xf16>
// GPU: vector.store {{.*}} {alignment = 16 : i64} : memref<1x3x7x16xf16>, vector<8xf16>
// GPU: gpu.func @views_out_gpu_k5(
// GPU: vector.load {{.*}} : memref<1x3x7x16xf16>, vector<8xf16>
// GPU-LABEL: func.func @views_out(
// GPU-COUNT-3: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU-LABEL: gpu.module @bf16_odd_gpu
// GPU-NOT: vector.load
// GPU-LABEL: func.func @bf16_odd(
// GPU: memref.expand_shape {{.*}} output_shape [45, 6] : memref<270xbf16> into memref<45x6xbf16>
// GPU-COUNT-3: gpu.launch_func
// GPU-LABEL: gpu.module @layout_reshape_gpu
// GPU: memref.transpose
// GPU-LABEL: func.func @layout_reshape(
// GPU-NOT: memref.expand_shape
// GPU: gpu.launch_func
// GPU-NOT: memref.expand_shape
// GPU: return
// A single head's transpose only moves a unit dim: a view, like the
// reshapes; Kᵀ and the scores are the two kernels.
// GPU-LABEL: gpu.module @single_head_gpu
// GPU-COUNT-2: gpu.func
// GPU-NOT: gpu.func
// GPU-LABEL: func.func @single_head(
// GPU-COUNT-2: gpu.launch_func
// GPU-NOT: gpu.launch_func
// An input read through a layout and returned as it is: the device
// copy comes back stored and is transposed on the host for the caller.
// GPU-LABEL: func.func @layout_out(
// GPU: gpu.wait [
// GPU: %[[T:.*]] = memref.transpose %[[H:.*]] (d0, d1) -> (d1, d0) : memref<6x10xf16> to memref<10x6xf16, strided<[1, 10]>>
// GPU: %[[L:.*]] = memref.alloc() : memref<10x6xf16>
// GPU: memref.load %[[T]]
// GPU: memref.dealloc %[[H]] : memref<6x10xf16>
// GPU: bufferization.to_tensor %[[L]] restrict writable : memref<10x6xf16> to tensor<10x6xf16>

//===----------------------------------------------------------------------===//
// Attention's head split and RoPE's rotate-half in f16: projection,
// reshape (free), transpose of the heads (16-byte vectors: the innermost
// dim stays), two halves sliced and concatenated in the other order
// (vectors: 8 halves each), Kᵀ (the innermost dim moves: element by
// element), and the scores through rank-3 reshapes (free) as torch-mlir
// writes them.
//===----------------------------------------------------------------------===//

func.func @rope_scores(%x: tensor<1x7x48xf16>, %w: tensor<1x48x48xf16>) -> tensor<1x3x7x7xf16> attributes {ug.level = "kernel", ug.reference = @rope_scores_ref} {
  %q = "ug.matmul"(%x, %w) : (tensor<1x7x48xf16>, tensor<1x48x48xf16>) -> tensor<1x7x48xf16>
  %h = "ug.reshape"(%q) : (tensor<1x7x48xf16>) -> tensor<1x7x3x16xf16>
  %t = "ug.transpose"(%h) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x7x3x16xf16>) -> tensor<1x3x7x16xf16>
  %a = "ug.slice"(%t) {dim = 3 : i64, offset = 0 : i64} : (tensor<1x3x7x16xf16>) -> tensor<1x3x7x8xf16>
  %b = "ug.slice"(%t) {dim = 3 : i64, offset = 8 : i64} : (tensor<1x3x7x16xf16>) -> tensor<1x3x7x8xf16>
  %r = "ug.concat"(%b, %a) {dim = 3 : i64} : (tensor<1x3x7x8xf16>, tensor<1x3x7x8xf16>) -> tensor<1x3x7x16xf16>
  %kt = "ug.transpose"(%t) {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x3x7x16xf16>) -> tensor<1x3x16x7xf16>
  %r3 = "ug.reshape"(%r) : (tensor<1x3x7x16xf16>) -> tensor<3x7x16xf16>
  %k3 = "ug.reshape"(%kt) : (tensor<1x3x16x7xf16>) -> tensor<3x16x7xf16>
  %s3 = "ug.matmul"(%r3, %k3) : (tensor<3x7x16xf16>, tensor<3x16x7xf16>) -> tensor<3x7x7xf16>
  %s = "ug.reshape"(%s3) : (tensor<3x7x7xf16>) -> tensor<1x3x7x7xf16>
  func.return %s : tensor<1x3x7x7xf16>
}
func.func private @rope_scores_ref(%x: tensor<1x7x48xf16>, %w: tensor<1x48x48xf16>) -> tensor<1x3x7x7xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %q = tosa.matmul %x, %w, %zp, %zp : (tensor<1x7x48xf16>, tensor<1x48x48xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x7x48xf16>
  %s0 = tosa.const_shape {values = dense<[1, 7, 3, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %h = tosa.reshape %q, %s0 : (tensor<1x7x48xf16>, !tosa.shape<4>) -> tensor<1x7x3x16xf16>
  %t = tosa.transpose %h {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x7x3x16xf16>) -> tensor<1x3x7x16xf16>
  %st0 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %sz = tosa.const_shape {values = dense<[1, 3, 7, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %a = tosa.slice %t, %st0, %sz : (tensor<1x3x7x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x3x7x8xf16>
  %st8 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %b = tosa.slice %t, %st8, %sz : (tensor<1x3x7x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x3x7x8xf16>
  %r = tosa.concat %b, %a {axis = 3 : i32} : (tensor<1x3x7x8xf16>, tensor<1x3x7x8xf16>) -> tensor<1x3x7x16xf16>
  %kt = tosa.transpose %t {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x3x7x16xf16>) -> tensor<1x3x16x7xf16>
  %s1 = tosa.const_shape {values = dense<[3, 7, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r3 = tosa.reshape %r, %s1 : (tensor<1x3x7x16xf16>, !tosa.shape<3>) -> tensor<3x7x16xf16>
  %s2 = tosa.const_shape {values = dense<[3, 16, 7]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k3 = tosa.reshape %kt, %s2 : (tensor<1x3x16x7xf16>, !tosa.shape<3>) -> tensor<3x16x7xf16>
  %m = tosa.matmul %r3, %k3, %zp, %zp : (tensor<3x7x16xf16>, tensor<3x16x7xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<3x7x7xf16>
  %s3 = tosa.const_shape {values = dense<[1, 3, 7, 7]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s = tosa.reshape %m, %s3 : (tensor<3x7x7xf16>, !tosa.shape<4>) -> tensor<1x3x7x7xf16>
  return %s : tensor<1x3x7x7xf16>
}

// A head split and one of its halves returned: copies (an output needs a
// dense buffer of its own), the slice read from the transpose's copy.
func.func @views_out(%x: tensor<1x7x48xf16>, %w: tensor<1x48x48xf16>) -> (tensor<1x3x7x16xf16>, tensor<1x3x7x8xf16>) attributes {ug.level = "kernel", ug.reference = @views_out_ref} {
  %q = "ug.matmul"(%x, %w) : (tensor<1x7x48xf16>, tensor<1x48x48xf16>) -> tensor<1x7x48xf16>
  %h = "ug.reshape"(%q) : (tensor<1x7x48xf16>) -> tensor<1x7x3x16xf16>
  %t = "ug.transpose"(%h) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x7x3x16xf16>) -> tensor<1x3x7x16xf16>
  %b = "ug.slice"(%t) {dim = 3 : i64, offset = 8 : i64} : (tensor<1x3x7x16xf16>) -> tensor<1x3x7x8xf16>
  func.return %t, %b : tensor<1x3x7x16xf16>, tensor<1x3x7x8xf16>
}
func.func private @views_out_ref(%x: tensor<1x7x48xf16>, %w: tensor<1x48x48xf16>) -> (tensor<1x3x7x16xf16>, tensor<1x3x7x8xf16>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %q = tosa.matmul %x, %w, %zp, %zp : (tensor<1x7x48xf16>, tensor<1x48x48xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x7x48xf16>
  %s0 = tosa.const_shape {values = dense<[1, 7, 3, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %h = tosa.reshape %q, %s0 : (tensor<1x7x48xf16>, !tosa.shape<4>) -> tensor<1x7x3x16xf16>
  %t = tosa.transpose %h {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x7x3x16xf16>) -> tensor<1x3x7x16xf16>
  %st8 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %sz = tosa.const_shape {values = dense<[1, 3, 7, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %b = tosa.slice %t, %st8, %sz : (tensor<1x3x7x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x3x7x8xf16>
  return %t, %b : tensor<1x3x7x16xf16>, tensor<1x3x7x8xf16>
}

//===----------------------------------------------------------------------===//
// bf16, no dim a multiple of 8: a transpose moving every dim, a slice in
// the middle dim, a concat along the outer dim (element by element), and
// the input's free reshape returned (the host copies the view out; the
// CPU form copies it into its output).
//===----------------------------------------------------------------------===//

func.func @bf16_odd(%x: tensor<5x9x6xbf16>, %y: tensor<3x9x6xbf16>) -> (tensor<6x5x9xbf16>, tensor<5x4x6xbf16>, tensor<8x9x6xbf16>, tensor<45x6xbf16>) attributes {ug.level = "kernel", ug.reference = @bf16_odd_ref} {
  %t = "ug.transpose"(%x) {perm = array<i64: 2, 0, 1>} : (tensor<5x9x6xbf16>) -> tensor<6x5x9xbf16>
  %s = "ug.slice"(%x) {dim = 1 : i64, offset = 2 : i64} : (tensor<5x9x6xbf16>) -> tensor<5x4x6xbf16>
  %c = "ug.concat"(%x, %y) {dim = 0 : i64} : (tensor<5x9x6xbf16>, tensor<3x9x6xbf16>) -> tensor<8x9x6xbf16>
  %r = "ug.reshape"(%x) : (tensor<5x9x6xbf16>) -> tensor<45x6xbf16>
  func.return %t, %s, %c, %r : tensor<6x5x9xbf16>, tensor<5x4x6xbf16>, tensor<8x9x6xbf16>, tensor<45x6xbf16>
}
func.func private @bf16_odd_ref(%x: tensor<5x9x6xbf16>, %y: tensor<3x9x6xbf16>) -> (tensor<6x5x9xbf16>, tensor<5x4x6xbf16>, tensor<8x9x6xbf16>, tensor<45x6xbf16>) {
  %t = tosa.transpose %x {perms = array<i32: 2, 0, 1>} : (tensor<5x9x6xbf16>) -> tensor<6x5x9xbf16>
  %st = tosa.const_shape {values = dense<[0, 2, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sz = tosa.const_shape {values = dense<[5, 4, 6]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s = tosa.slice %x, %st, %sz : (tensor<5x9x6xbf16>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<5x4x6xbf16>
  %c = tosa.concat %x, %y {axis = 0 : i32} : (tensor<5x9x6xbf16>, tensor<3x9x6xbf16>) -> tensor<8x9x6xbf16>
  %sh = tosa.const_shape {values = dense<[45, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %sh : (tensor<5x9x6xbf16>, !tosa.shape<2>) -> tensor<45x6xbf16>
  return %t, %s, %c, %r : tensor<6x5x9xbf16>, tensor<5x4x6xbf16>, tensor<8x9x6xbf16>, tensor<45x6xbf16>
}

//===----------------------------------------------------------------------===//
// A reshape of an input read through a layout (stored transposed) is no
// view of its buffer: a copy kernel reads the stored array through the
// strided view.
//===----------------------------------------------------------------------===//

func.func @layout_reshape(%w: tensor<6x10xf16>) -> tensor<4x15xf16> attributes {ug.level = "kernel", ug.reference = @layout_reshape_ref} {
  %wt = "ug.transpose"(%w) {perm = array<i64: 1, 0>} : (tensor<6x10xf16>) -> tensor<10x6xf16>
  %r = "ug.reshape"(%wt) : (tensor<10x6xf16>) -> tensor<4x15xf16>
  func.return %r : tensor<4x15xf16>
}
func.func private @layout_reshape_ref(%w: tensor<6x10xf16>) -> tensor<4x15xf16> {
  %wt = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<6x10xf16>) -> tensor<10x6xf16>
  %sh = tosa.const_shape {values = dense<[4, 15]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %wt, %sh : (tensor<10x6xf16>, !tosa.shape<2>) -> tensor<4x15xf16>
  return %r : tensor<4x15xf16>
}

//===----------------------------------------------------------------------===//
// One key head (multi-query attention): (1, 7, 1, 16) -> (1, 1, 7, 16) moves
// only the unit dim, so it is a reshape: a view of K's buffer.
//===----------------------------------------------------------------------===//

func.func @single_head(%k: tensor<1x7x1x16xf16>, %q: tensor<1x1x7x16xf16>) -> tensor<1x1x7x7xf16> attributes {ug.level = "kernel", ug.reference = @single_head_ref} {
  %kh = "ug.transpose"(%k) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x7x1x16xf16>) -> tensor<1x1x7x16xf16>
  %kt = "ug.transpose"(%kh) {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x1x7x16xf16>) -> tensor<1x1x16x7xf16>
  %q3 = "ug.reshape"(%q) : (tensor<1x1x7x16xf16>) -> tensor<1x7x16xf16>
  %k3 = "ug.reshape"(%kt) : (tensor<1x1x16x7xf16>) -> tensor<1x16x7xf16>
  %s3 = "ug.matmul"(%q3, %k3) : (tensor<1x7x16xf16>, tensor<1x16x7xf16>) -> tensor<1x7x7xf16>
  %s = "ug.reshape"(%s3) : (tensor<1x7x7xf16>) -> tensor<1x1x7x7xf16>
  func.return %s : tensor<1x1x7x7xf16>
}
func.func private @single_head_ref(%k: tensor<1x7x1x16xf16>, %q: tensor<1x1x7x16xf16>) -> tensor<1x1x7x7xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %kh = tosa.transpose %k {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x7x1x16xf16>) -> tensor<1x1x7x16xf16>
  %kt = tosa.transpose %kh {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x1x7x16xf16>) -> tensor<1x1x16x7xf16>
  %s1 = tosa.const_shape {values = dense<[1, 7, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %q, %s1 : (tensor<1x1x7x16xf16>, !tosa.shape<3>) -> tensor<1x7x16xf16>
  %s2 = tosa.const_shape {values = dense<[1, 16, 7]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k3 = tosa.reshape %kt, %s2 : (tensor<1x1x16x7xf16>, !tosa.shape<3>) -> tensor<1x16x7xf16>
  %m = tosa.matmul %q3, %k3, %zp, %zp : (tensor<1x7x16xf16>, tensor<1x16x7xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x7x7xf16>
  %s3 = tosa.const_shape {values = dense<[1, 1, 7, 7]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s = tosa.reshape %m, %s3 : (tensor<1x7x7xf16>, !tosa.shape<4>) -> tensor<1x1x7x7xf16>
  return %s : tensor<1x1x7x7xf16>
}

//===----------------------------------------------------------------------===//
// An input read through a layout (nn.Linear's Wᵀ) that is also an output.
//===----------------------------------------------------------------------===//

func.func @layout_out(%w: tensor<6x10xf16>, %x: tensor<4x10xf16>) -> (tensor<10x6xf16>, tensor<4x6xf16>) attributes {ug.level = "kernel", ug.reference = @layout_out_ref} {
  %wt = "ug.transpose"(%w) {perm = array<i64: 1, 0>} : (tensor<6x10xf16>) -> tensor<10x6xf16>
  %y = "ug.matmul"(%x, %wt) : (tensor<4x10xf16>, tensor<10x6xf16>) -> tensor<4x6xf16>
  func.return %wt, %y : tensor<10x6xf16>, tensor<4x6xf16>
}
func.func private @layout_out_ref(%w: tensor<6x10xf16>, %x: tensor<4x10xf16>) -> (tensor<10x6xf16>, tensor<4x6xf16>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %wt = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<6x10xf16>) -> tensor<10x6xf16>
  %s1 = tosa.const_shape {values = dense<[1, 4, 10]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %s1 : (tensor<4x10xf16>, !tosa.shape<3>) -> tensor<1x4x10xf16>
  %s2 = tosa.const_shape {values = dense<[1, 10, 6]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %wt, %s2 : (tensor<10x6xf16>, !tosa.shape<3>) -> tensor<1x10x6xf16>
  %m = tosa.matmul %x3, %w3, %zp, %zp : (tensor<1x4x10xf16>, tensor<1x10x6xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x6xf16>
  %s3 = tosa.const_shape {values = dense<[4, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %y = tosa.reshape %m, %s3 : (tensor<1x4x6xf16>, !tosa.shape<2>) -> tensor<4x6xf16>
  return %wt, %y : tensor<10x6xf16>, tensor<4x6xf16>
}
