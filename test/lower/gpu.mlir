// --mirage-lower turns each kernel graph into a gpu.module of kernels and
// host code with the kernel graph's name and signature.
// RUN: mirage-opt --mirage-lower="ptx=false" --mirage-remarks %s 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: not mirage-opt --mirage-lower="ptx=maybe" %s 2>&1 | FileCheck %s --check-prefix=BAD-MODE
// RUN: not mirage-opt --mirage-lower="ptx=true toolkit=%t.nowhere" %s 2>&1 | FileCheck %s --check-prefix=NO-TOOLKIT
// RUN: not mirage-opt --mirage-lower="target=sm_70" %s 2>&1 | FileCheck %s --check-prefix=BAD-TARGET

// CHECK: module attributes {gpu.container_module}
// The fused RMSNorm kernel is a GEMV with a row statistic and an
// epilogue (lib/lower/decide/fused_plan.c): gpu.c gives it gemv.c's static buffers
// (the warps' partial sums, B's cp.async ring, the slices' sums of
// squares) instead of tiles, and 32·8 threads (each block's 24 columns
// are 6 vectors of 4, rounded up to 8 column groups).
// CHECK: gpu.module @rms_gpu {
// CHECK: gpu.func @rms_gpu_k2(%arg0: memref<2x64xf32> {llvm.align = 16 : i64}, %arg1: memref<64x96xf32> {llvm.align = 16 : i64}, %arg2: memref<2x96xf32> {llvm.align = 16 : i64}) workgroup(%{{.*}} : memref<8x2x32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[RING:.*]] : memref<4x2x256x4xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<1x32x2xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>}
// CHECK: %[[W:.*]] = memref.assume_alignment %arg1, 16 : memref<64x96xf32>
// CHECK: gpu.block_id x
// CHECK: gpu.thread_id x
// B's rows by cp.async.cg into the ring (W read as stored, 16 bytes).
// CHECK: nvgpu.device_async_copy %[[W]][%{{.*}}, %{{.*}}], %[[RING]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], 4 {bypassL1} : memref<64x96xf32> to memref<4x2x256x4xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 3
// The sum of squares beside the FMAs, from the same scalars of X.
// CHECK: vector.fma
// CHECK: math.fma
// CHECK: gpu.barrier
// The epilogue per output: the mean, its sqrt, the quotient, one store.
// CHECK: arith.divf
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: memref.store
// CHECK: gpu.return
// Host code: same name and tensor signature; copies in, one launch with the
// block graph's grid and threads, copies out, all on one async chain.
// CHECK: func.func @rms(%arg0: tensor<2x64xf32>, %arg1: tensor<64x96xf32>) -> tensor<2x96xf32> {
// CHECK: gpu.wait async
// CHECK: gpu.alloc async
// CHECK: bufferization.to_buffer %arg0
// CHECK: gpu.memcpy async
// CHECK-DAG: %[[GX:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[TX:.*]] = arith.constant 256 : index
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
// @rms's static buffers: partial sums 8x2x32 f32 (2048), the ring of 4
// stages x 2 rows x 256 threads x 16 bytes (32768), the sums of squares
// 1x32x2 f32 (256): 35072 bytes.
// REMARK: remark: mirage-lower: '@rms': 1 kernel(s) in gpu.module @rms_gpu, at most 35072 bytes of shared memory per block
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
