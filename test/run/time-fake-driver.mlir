// REQUIRES: libdevice
// mirage-run --time's device path, driven through the stand-in driver
// built with mirage-run (tools/mirage-run/fake_cuda.c): it keeps device
// memory on the host and runs no kernel, but checks every launch against
// the PTX (entry, parameter count, .ptr parameters inside allocations,
// threads within .maxntid, dynamic shared memory opted in) and logs it
// with pointers as b<allocation>; each launch takes 10 us of its clock.
// What a real GPU computes is not tested here: no GPU is available.
// DEFINE: %{fake} = env MIRAGE_CUDA_LIBRARY="$(dirname "$(command -v mirage-run)")/libmirage-fake-cuda.so" MIRAGE_FAKE_CUDA_LOG=1

// The launches are those of the host code mirage-opt --mirage-lower writes
// (test/lower/ptx.mlir): the same kernels, grids, threads and dynamic
// shared memory, memrefs as expanded descriptors (pointer, pointer,
// offset, sizes, strides). Kernels leave the outputs as allocated (zero):
// a mismatch for each graph that launches any, exit 1. @passthrough
// launches none: its outputs are its inputs' buffers (a free reshape; an
// input read through a layout, transposed back on the host) and agree.
// RUN: %{fake} not mirage-run --time=3 --warmup=1 --toolkit=%cuda_toolkit %s > %t.out 2> %t.log
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=LOG < %t.log
// CHECK: mirage-run: --time: NVIDIA H100 80GB HBM3 (fake) (sm_90, 132 SMs, 4.19 MB L2, DRAM 3.35 TB/s from the memory clock x bus width), CUDA driver 12.4; PTX for sm_90; 1 warm-up and 3 timed runs, L2 evicted before each
// CHECK-NEXT: @rms: 1 kernel: 10.00 us (median of 3, min 10.00); estimate {{[0-9.]+}} us; DRAM >= 0.026 MB, bound 0.0077 us: 0.077% of 3.35 TB/s; MISMATCH at output 0 element 0: gpu 0 vs interpreter {{.*}}
// CHECK-NEXT: @big: 2 kernels: 20.0 us (median of 3, min 20.0); estimate {{[0-9.]+}} us; DRAM >= 0.26 MB, bound 0.078 us: 0.39% of 3.35 TB/s; MISMATCH at output 0 element 0: gpu 0 vs interpreter {{.*}}
// CHECK-NEXT: @passthrough: 0 kernels: 0 us (median of 3, min 0); estimate 0 us; DRAM >= 0.00056 MB, bound 0.00017 us: - of 3.35 TB/s; 2 outputs, 100 elements, max abs error 0 (tolerance {{.*}}): ok
// CHECK-NOT: @
// LOG: fake-cuda: module loaded: PTX .target sm_90
// LOG-COUNT-4: fake-cuda: launch rms_gpu_k2 grid 4x1x1 block 256 smem 0: b0 b0 0 2 64 64 1 b1 b1 0 64 96 96 1 b2 b2 0 2 96 96 1
// LOG-NEXT: fake-cuda: module loaded: PTX .target sm_90
// LOG-NEXT: fake-cuda: big_gpu_k1: max dynamic shared memory 131072
// LOG-COUNT-4: fake-cuda: launch big_gpu_k1 grid 2x1x1 block 256 smem 131072: b[[X:[0-9]+]] b[[X]] 0 256 128 128 1 b[[Y:[0-9]+]] b[[Y]] 0 256 128 128 1
// LOG-SAME: {{$}}
// LOG-NEXT: fake-cuda: launch big_gpu_k2 grid 128x1x1 block 256 smem 0: b[[Y]] b[[Y]] 0 256 128 128 1 b{{[0-9]+}} b{{[0-9]+}} 0 256 128 128 1
// LOG-NOT: error
// LOG: fake-cuda: at exit: everything freed

// --target picks the PTX's target; the memory bandwidth falls back to the
// data sheet of the device's name when the driver reports no memory clock.
// RUN: %{fake} MIRAGE_FAKE_CUDA=no-clock not mirage-run --time=1 --warmup=0 --warm-l2 --target=sm_80 --toolkit=%cuda_toolkit %s > %t.sm80 2> %t.sm80.log
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80
// RUN: FileCheck %s --check-prefix=SM80-LOG < %t.sm80.log
// SM80: mirage-run: --time: NVIDIA H100 80GB HBM3 (fake) (sm_90, {{.*}}, DRAM 3.35 TB/s from the data sheet), CUDA driver 12.4; PTX for sm_80; 0 warm-up and 1 timed run{{$}}
// SM80-NEXT: @rms: 1 kernel: 10.00 us (median of 1, min 10.00)
// SM80-LOG: module loaded: PTX .target sm_80
// SM80-LOG-COUNT-1: launch rms_gpu_k2
// SM80-LOG-NOT: launch rms_gpu_k2

// The driver's PTX compiler rejects the PTX: its error log, at the kernel
// graph; the graph without kernels still runs.
// RUN: %{fake} MIRAGE_FAKE_CUDA=bad-ptx not mirage-run --time --toolkit=%cuda_toolkit %s 2>&1 | FileCheck %s --check-prefix=BADPTX
// BADPTX: time-fake-driver.mlir:{{[0-9]+}}:{{[0-9]+}}: error: @rms: cuModuleLoadDataEx(@rms_gpu): CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed: ptxas fatal   : fake rejection
// BADPTX: error: @big: cuModuleLoadDataEx(@big_gpu): CUDA_ERROR_INVALID_PTX
// BADPTX: @passthrough: 0 kernels{{.*}}: ok

// A device older than every lowering target.
// RUN: %{fake} MIRAGE_FAKE_CUDA=sm_75 not mirage-run --time --toolkit=%cuda_toolkit %s 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: mirage-run: --time: NVIDIA H100 80GB HBM3 (fake) is sm_75; the lowering targets sm_80 and newer (--target=... to try anyway)

// A module already lowered (mirage-opt --mirage-superopt with lower=true)
// has lost its μGraphs: --time asks for the lower=false output instead.
// RUN: mirage-opt --mirage-lower="toolkit=%cuda_toolkit" %s -o %t.lowered.mlir
// RUN: %{fake} not mirage-run --time %t.lowered.mlir 2>&1 | FileCheck %s --check-prefix=LOWERED
// LOWERED: mirage-run: --time: '{{.*}}lowered.mlir' holds lowered code (gpu.binary) but no kernel graph: its μGraphs, needed to check the results and to estimate the time, are gone; time the output of mirage-opt --mirage-superopt="lower=false" instead, which --time lowers the same way

// Without libdevice under --toolkit there is no PTX to run.
// RUN: %{fake} not mirage-run --time --toolkit=%t.nowhere %s 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// TOOLKIT: mirage-run: --time: the mirage-lower pass: ptx=true needs libdevice from the CUDA toolkit, not found under '{{.*}}nowhere/nvvm/libdevice'

// RMSNorm's matmul over a for-loop of 4 (test/lower/ptx.mlir).
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

// 128 KiB of tiles: dynamic shared memory, opted in before the launch;
// then a predefined exp over the whole tensor.
func.func @big_block(%x: tensor<256x128xf32>) -> tensor<256x128xf32> attributes {ug.block_threads = 256 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<256x128xf32>) -> tensor<128x128xf32>
  %e = "ug.exp"(%t) : (tensor<128x128xf32>) -> tensor<128x128xf32>
  %o = "ug.saver"(%e) {omap = array<i64: 0, -1, -1>} : (tensor<128x128xf32>) -> tensor<256x128xf32>
  func.return %o : tensor<256x128xf32>
}
func.func @big(%x: tensor<256x128xf32>) -> tensor<256x128xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @big_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<256x128xf32>) -> tensor<256x128xf32>
  %z = "ug.exp"(%y) : (tensor<256x128xf32>) -> tensor<256x128xf32>
  func.return %z : tensor<256x128xf32>
}

// No kernel: an input with a layout returned as it is, and a free reshape.
func.func @passthrough(%w: tensor<6x10xf16>, %x: tensor<4x10xf32>) -> (tensor<10x6xf16>, tensor<40xf32>) attributes {ug.level = "kernel"} {
  %wt = "ug.transpose"(%w) {perm = array<i64: 1, 0>} : (tensor<6x10xf16>) -> tensor<10x6xf16>
  %r = "ug.reshape"(%x) : (tensor<4x10xf32>) -> tensor<40xf32>
  func.return %wt, %r : tensor<10x6xf16>, tensor<40xf32>
}
