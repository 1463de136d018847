// --mirage-lower turns each kernel graph into a gpu.module of kernels and
// host code with the kernel graph's name and signature.
// RUN: mirage-opt --mirage-lower="ptx=false" --mirage-remarks %s 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: not mirage-opt --mirage-lower="ptx=maybe" %s 2>&1 | FileCheck %s --check-prefix=BAD-MODE
// RUN: not mirage-opt --mirage-lower="ptx=true toolkit=%t.nowhere" %s 2>&1 | FileCheck %s --check-prefix=NO-TOOLKIT
// RUN: not mirage-opt --mirage-lower="target=sm_70" %s 2>&1 | FileCheck %s --check-prefix=BAD-TARGET

// CHECK: module attributes {gpu.container_module}
// The fused RMSNorm kernel: tiles fit the static limit, so they are
// workgroup buffers; one barrier after every op.
// CHECK: gpu.module @rms_gpu {
// Kernel tensors and tiles are 16-byte aligned (vector copies rely on it);
// the tiles the for-loop reloads (X, W) have two stages.
// CHECK: gpu.func @rms_gpu_k2(%arg0: memref<2x64xf32> {llvm.align = 16 : i64}, %arg1: memref<64x96xf32> {llvm.align = 16 : i64}, %arg2: memref<2x96xf32> {llvm.align = 16 : i64}) workgroup(%{{.*}} : memref<2x2x16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<2x16x24xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}
// CHECK: %[[X:.*]] = memref.assume_alignment %arg0, 16 : memref<2x64xf32>
// CHECK: gpu.block_id x
// CHECK: gpu.thread_id x
// CHECK: scf.for
// Iterators copy 16 bytes per thread asynchronously from the aligned
// kernel tensor into a stage of their tile: iteration 0 before the loop,
// iteration i+1 while i computes.
// CHECK: nvgpu.device_async_copy %[[X]][%{{.*}}, %{{.*}}], %{{.*}}[%c0{{.*}}, %{{.*}}, %{{.*}}], 4 {bypassL1} : memref<2x64xf32> to memref<2x2x16xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy %[[X]]
// CHECK: nvvm.cp.async.commit.group
// CHECK: math.sqrt
// CHECK: gpu.return
// Host code: same name and tensor signature; copies in, one launch with the
// block graph's grid and threads, copies out, all on one async chain.
// CHECK: func.func @rms(%arg0: tensor<2x64xf32>, %arg1: tensor<64x96xf32>) -> tensor<2x96xf32> {
// CHECK: gpu.wait async
// CHECK: gpu.alloc async
// CHECK: bufferization.to_buffer %arg0
// CHECK: gpu.memcpy async
// CHECK-DAG: %[[GX:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[TX:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[SMEM:.*]] = arith.constant 0 : i32
// CHECK: gpu.launch_func async [%{{.*}}] @rms_gpu::@rms_gpu_k2 blocks in (%[[GX]], %{{.*}}, %{{.*}}) threads in (%[[TX]], %{{.*}}, %{{.*}}) dynamic_shared_memory_size %[[SMEM]] args(
// CHECK: gpu.wait [
// CHECK: bufferization.to_tensor
// A kernel whose tiles (128x128 f32 twice, 128 KiB) exceed the static
// limit: views of dynamic shared memory, launched with its size.
// CHECK: gpu.module @big_gpu
// CHECK: gpu.dynamic_shared_memory
// CHECK: memref.view
// CHECK: func.func @big(
// CHECK: arith.constant 131072 : i32
// The block graphs are gone.
// CHECK-NOT: ug.level
// Tiles of @rms, f32, each rounded up to 16 bytes: X 2x16 (128) and W
// 16x24 (1536) twice (two stages), the accumulator and the quotient 2x24
// (2 x 192; the matmul adds into its accumulator directly), the sum of
// squares and the sqrt 2x1 (2 x 16; the mean between them stays in a
// register of the fused div_scalar-sqrt loop): 3744 bytes.
// REMARK: remark: mirage-lower: '@rms': 1 kernel(s) in gpu.module @rms_gpu, at most 3744 bytes of shared memory per block
// REMARK: remark: mirage-lower: '@big': 1 kernel(s) in gpu.module @big_gpu, at most 131072 bytes of shared memory per block
// BAD-MODE: unknown ptx mode 'maybe' (expected auto, true or false)
// NO-TOOLKIT: ptx=true needs libdevice from the CUDA toolkit, not found under
// BAD-TARGET: unknown target 'sm_70'

func.func @rms_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x16xf32>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf32>) -> tensor<16x24xf32>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x16xf32>, tensor<16x24xf32>) -> tensor<2x24xf32>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<2x24xf32>) -> tensor<2x24xf32>
  %ss = "ug.accum"(%xt) {kind = "sum_sq_last"} : (tensor<2x16xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "ug.div"(%acc, %rms) : (tensor<2x24xf32>, tensor<2x1xf32>) -> tensor<2x24xf32>
  %o = "ug.saver"(%y) {omap = array<i64: 1, -1, -1>} : (tensor<2x24xf32>) -> tensor<2x96xf32>
  func.return %o : tensor<2x96xf32>
}
func.func @rms(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}

func.func @big_block(%x: tensor<256x128xf32>) -> tensor<256x128xf32> attributes {ug.block_threads = 256 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<256x128xf32>) -> tensor<128x128xf32>
  %e = "ug.exp"(%t) : (tensor<128x128xf32>) -> tensor<128x128xf32>
  %o = "ug.saver"(%e) {omap = array<i64: 0, -1, -1>} : (tensor<128x128xf32>) -> tensor<256x128xf32>
  func.return %o : tensor<256x128xf32>
}
func.func @big(%x: tensor<256x128xf32>) -> tensor<256x128xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @big_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<256x128xf32>) -> tensor<256x128xf32>
  func.return %y : tensor<256x128xf32>
}
