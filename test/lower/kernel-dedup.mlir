// Identical kernels are compiled once (lib/passes/kernel_dedup.c): @rms_b
// is @rms_a under another name (as a decoder's layers are), @twice holds
// two exps of one shape. Their launches name the first copy; @rms_c (another
// grid) and the exp of another shape keep their own kernels.
// RUN: mirage-opt --mirage-lower="ptx=false remarks=true" %s 2>%t.remarks -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// Stock mlir-opt verifies every launch against its kernel's signature, and
// upstream compiles the three kernels left (CUDA_ROOT= as in
// host-modes.mlir: no libdevice needed).
// RUN: env CUDA_ROOT= %mlir_opt %t.mlir --pass-pipeline='builtin.module(nvvm-attach-target{chip=sm_90 O=3},gpu.module(convert-nvgpu-to-nvvm,convert-scf-to-cf,expand-strided-metadata,lower-affine,convert-gpu-to-nvvm,convert-vector-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,canonicalize,cse,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})' | FileCheck %s --check-prefix=PTX
// Without the merge each kernel would be there: the count checked below is
// the merge's doing.
// RUN: grep -c "gpu.func @" %t.mlir | FileCheck %s --check-prefix=COUNT
// RUN: mirage-opt --mirage-lower="ptx=false dedup-kernels=false" %s | grep -c "gpu.func @" | FileCheck %s --check-prefix=ALL

// CHECK-LABEL: gpu.module @rms_a_gpu
// CHECK: gpu.func @[[RMS:rms_a_gpu_k[0-9]+]](
// CHECK-NOT: gpu.module @rms_b_gpu
// CHECK-LABEL: func.func @rms_a(
// CHECK: gpu.launch_func async [%{{.*}}] @rms_a_gpu::@[[RMS]] blocks in
// CHECK-LABEL: func.func @rms_b(
// CHECK: gpu.launch_func async [%{{.*}}] @rms_a_gpu::@[[RMS]] blocks in
// CHECK-LABEL: gpu.module @rms_c_gpu
// CHECK: gpu.func @[[RMSC:rms_c_gpu_k[0-9]+]](
// CHECK-LABEL: func.func @rms_c(
// CHECK: gpu.launch_func async [%{{.*}}] @rms_c_gpu::@[[RMSC]] blocks in
// CHECK-LABEL: gpu.module @twice_gpu
// CHECK: gpu.func @[[EXP:twice_gpu_k[0-9]+]](%{{.*}}: memref<64x32xf32>
// CHECK-NOT: gpu.func
// CHECK: gpu.func @[[EXPT:twice_gpu_k[0-9]+]](%{{.*}}: memref<32x64xf32>
// CHECK-LABEL: func.func @twice(
// CHECK: gpu.launch_func async [%{{.*}}] @twice_gpu::@[[EXP]] blocks in
// CHECK: gpu.launch_func async [%{{.*}}] @twice_gpu::@[[EXP]] blocks in
// CHECK: gpu.launch_func async [%{{.*}}] @twice_gpu::@[[EXPT]] blocks in

// REMARK: remark: mirage-lower: 2 of 6 kernels are identical to an earlier one and share it (4 distinct kernels to compile)

// PTX-COUNT-3: gpu.binary @
// PTX-NOT: gpu.binary @

// COUNT: 4
// ALL: 6

func.func @rms_a_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x16xf32>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf32>) -> tensor<16x24xf32>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x16xf32>, tensor<16x24xf32>) -> tensor<2x24xf32>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<2x24xf32>) -> tensor<2x24xf32>
  %o = "ug.saver"(%acc) {omap = array<i64: 1, -1, -1>} : (tensor<2x24xf32>) -> tensor<2x96xf32>
  func.return %o : tensor<2x96xf32>
}
func.func @rms_a(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_a_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}
func.func @rms_b_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x16xf32>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf32>) -> tensor<16x24xf32>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x16xf32>, tensor<16x24xf32>) -> tensor<2x24xf32>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<2x24xf32>) -> tensor<2x24xf32>
  %o = "ug.saver"(%acc) {omap = array<i64: 1, -1, -1>} : (tensor<2x24xf32>) -> tensor<2x96xf32>
  func.return %o : tensor<2x96xf32>
}
func.func @rms_b(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_b_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}
func.func @rms_c_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x16xf32>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf32>) -> tensor<16x48xf32>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x16xf32>, tensor<16x48xf32>) -> tensor<2x48xf32>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<2x48xf32>) -> tensor<2x48xf32>
  %o = "ug.saver"(%acc) {omap = array<i64: 1, -1, -1>} : (tensor<2x48xf32>) -> tensor<2x96xf32>
  func.return %o : tensor<2x96xf32>
}
func.func @rms_c(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_c_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}
func.func @twice(%a: tensor<64x32xf32>, %b: tensor<64x32xf32>, %c: tensor<32x64xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<32x64xf32>) attributes {ug.level = "kernel"} {
  %ea = "ug.exp"(%a) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %eb = "ug.exp"(%b) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %ec = "ug.exp"(%c) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  func.return %ea, %eb, %ec : tensor<64x32xf32>, tensor<64x32xf32>, tensor<32x64xf32>
}
