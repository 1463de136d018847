// The two calling conventions of the host code (docs/lower.md, "Host
// code"): host=copy (the default) keeps the kernel graph's tensor
// signature and copies every input to the device and every output back on
// each call; host=device takes device-resident memrefs, inputs then
// outputs (destination passing), and allocates only intermediates.
// RUN: mirage-opt --mirage-lower="ptx=false" %s -o %t.default.mlir
// RUN: mirage-opt --mirage-lower="ptx=false host=copy" %s -o %t.copy.mlir
// RUN: diff %t.default.mlir %t.copy.mlir
// RUN: FileCheck %s --check-prefix=COPY < %t.copy.mlir
// RUN: mirage-opt --mirage-lower="ptx=false host=device" %s -o %t.device.mlir
// RUN: FileCheck %s --check-prefix=DEVICE < %t.device.mlir
//
// Both go through upstream's pipelines to LLVM IR (README, "Lowering";
// docs/lower.md): the kernels to PTX in gpu.binary ops (CUDA_ROOT= makes
// gpu-module-to-binary link no libdevice, so no CUDA toolkit is needed;
// these kernels call no libdevice function), then the host code:
// bufferization of what tensors remain (identity layouts at function
// boundaries, or it copies every argument into a contiguous buffer first),
// gpu-to-llvm for the runtime calls, the rest to LLVM.
// RUN: env CUDA_ROOT= %mlir_opt %t.copy.mlir --pass-pipeline='builtin.module(nvvm-attach-target{chip=sm_90 O=3},gpu.module(convert-nvgpu-to-nvvm,convert-scf-to-cf,expand-strided-metadata,lower-affine,convert-gpu-to-nvvm,convert-vector-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,canonicalize,cse,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})' -o %t.copy.bin.mlir
// RUN: %mlir_opt %t.copy.bin.mlir --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},convert-scf-to-cf,expand-strided-metadata,gpu-to-llvm,convert-to-llvm,reconcile-unrealized-casts)' -o %t.copy.llvm.mlir
// RUN: %mlir_translate --mlir-to-llvmir %t.copy.llvm.mlir -o %t.copy.ll
// RUN: FileCheck %s --check-prefix=COPY-LL < %t.copy.ll
// RUN: FileCheck %s --check-prefix=COPY-CPY < %t.copy.ll
// RUN: env CUDA_ROOT= %mlir_opt %t.device.mlir --pass-pipeline='builtin.module(nvvm-attach-target{chip=sm_90 O=3},gpu.module(convert-nvgpu-to-nvvm,convert-scf-to-cf,expand-strided-metadata,lower-affine,convert-gpu-to-nvvm,convert-vector-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,canonicalize,cse,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})' -o %t.device.bin.mlir
// RUN: %mlir_opt %t.device.bin.mlir --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},convert-scf-to-cf,expand-strided-metadata,gpu-to-llvm,convert-to-llvm,reconcile-unrealized-casts)' -o %t.device.llvm.mlir
// RUN: %mlir_translate --mlir-to-llvmir %t.device.llvm.mlir -o %t.device.ll
// RUN: FileCheck %s --check-prefix=DEVICE-LL < %t.device.ll
//
// Errors: an unknown mode; an output that is an input stored transposed
// (copy mode transposes it on the host, device mode has no kernel for it).
// RUN: not mirage-opt --mirage-lower="host=pinned" %s 2>&1 | FileCheck %s --check-prefix=BAD-MODE
// RUN: not mirage-opt --mirage-lower="ptx=false host=device" %S/Inputs/layout-output.mlir 2>&1 | FileCheck %s --check-prefix=LAYOUT
// RUN: mirage-opt --mirage-lower="ptx=false host=copy" %S/Inputs/layout-output.mlir | FileCheck %s --check-prefix=LAYOUT-COPY
// BAD-MODE: unknown host mode 'pinned' (expected copy or device)
// LAYOUT: error: mirage-lower: '@layout_out': cannot lower an output that is an input stored transposed with host=device (host=copy returns it)
// LAYOUT-COPY: func.func @layout_out(%arg0: tensor<6x10xf32>) -> tensor<10x6xf32>

//===----------------------------------------------------------------------===//
// One kernel, y = x·w.
//===----------------------------------------------------------------------===//
// COPY-LABEL: func.func @one_kernel(%arg0: tensor<32x64xf32>, %arg1: tensor<64x16xf32>) -> tensor<32x16xf32> {
// COPY: %[[X:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<32x64xf32>
// COPY: %[[XH:.*]] = bufferization.to_buffer %arg0
// COPY: gpu.memcpy async [%{{.*}}] %[[X]], %[[XH]]
// COPY: %[[W:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<64x16xf32>
// COPY: %[[WH:.*]] = bufferization.to_buffer %arg1
// COPY: gpu.memcpy async [%{{.*}}] %[[W]], %[[WH]]
// COPY: %[[Y:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<32x16xf32>
// COPY: gpu.launch_func {{.*}} args(%[[X]] : memref<32x64xf32>, %[[W]] : memref<64x16xf32>, %[[Y]] : memref<32x16xf32>)
// COPY: %[[YH:.*]] = memref.alloc() : memref<32x16xf32>
// COPY: gpu.memcpy async [%{{.*}}] %[[YH]], %[[Y]]
// COPY-COUNT-3: gpu.dealloc async
// COPY: gpu.wait [
// COPY: bufferization.to_tensor %[[YH]]
//
// The arguments are the kernel's: nothing allocated or copied. They come
// as any strided view, checked at entry (offset 0, the dense strides, a
// 16-byte aligned pointer: test/lower/host-strides.mlir runs the checks)
// and made the identity types the kernel takes.
// DEVICE-LABEL: func.func @one_kernel(%arg0: memref<32x64xf32, strided<[?, ?], offset: ?>>, %arg1: memref<64x16xf32, strided<[?, ?], offset: ?>>, %arg2: memref<32x16xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface} {
// DEVICE-NOT: gpu.
// DEVICE: %[[X:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [32, 64], strides: [64, 1] : memref<32x64xf32, strided<[?, ?], offset: ?>> to memref<32x64xf32>
// DEVICE-NOT: gpu.
// DEVICE: %[[W:.*]] = memref.reinterpret_cast %arg1 {{.*}} to memref<64x16xf32>
// DEVICE-NOT: gpu.
// DEVICE: %[[Y:.*]] = memref.reinterpret_cast %arg2 {{.*}} to memref<32x16xf32>
// DEVICE-NEXT: %[[T:.*]] = gpu.wait async
// DEVICE-NOT: gpu.alloc
// DEVICE-NOT: gpu.memcpy
// DEVICE: gpu.launch_func async [%[[T]]] {{.*}} args(%[[X]] : memref<32x64xf32>, %[[W]] : memref<64x16xf32>, %[[Y]] : memref<32x16xf32>)
// DEVICE-NEXT: gpu.wait [
// DEVICE-NEXT: return
// DEVICE-NEXT: }
// The messages (3 per argument), then the declarations they need.
// DEVICE-NEXT: llvm.mlir.global private constant @one_kernel.arg_error0("mirage: @one_kernel: argument 0 (memref<32x64xf32>) has a non-zero offset;
// DEVICE-NEXT: llvm.mlir.global private constant @one_kernel.arg_error1("mirage: @one_kernel: argument 0 (memref<32x64xf32>) is not dense row-major: its kernels need strides [64, 1]
// DEVICE-NEXT: llvm.mlir.global private constant @one_kernel.arg_error2("mirage: @one_kernel: argument 0 (memref<32x64xf32>) is not 16-byte aligned;
// DEVICE-COUNT-6: llvm.mlir.global private constant @one_kernel.arg_error
// DEVICE-NEXT: func.func private @write(i32, !llvm.ptr, i64) -> i64
// DEVICE-NEXT: func.func private @abort()
// @caller (below) calls it on tensors: its adapter follows it.
// DEVICE-LABEL: func.func private @one_kernel_tensor(%arg0: tensor<32x64xf32>, %arg1: tensor<64x16xf32>) -> tensor<32x16xf32> {
// DEVICE-NEXT: %[[A:.*]] = bufferization.to_buffer %arg0 read_only : tensor<32x64xf32> to memref<32x64xf32>
// DEVICE-NEXT: %[[AC:.*]] = memref.cast %[[A]] : memref<32x64xf32> to memref<32x64xf32, strided<[?, ?], offset: ?>>
// DEVICE-NEXT: %[[B:.*]] = bufferization.to_buffer %arg1 read_only : tensor<64x16xf32> to memref<64x16xf32>
// DEVICE-NEXT: %[[BC:.*]] = memref.cast %[[B]]
// DEVICE-NEXT: %[[O:.*]] = memref.alloc() {alignment = 16 : i64} : memref<32x16xf32>
// DEVICE-NEXT: %[[OC:.*]] = memref.cast %[[O]]
// DEVICE-NEXT: call @one_kernel(%[[AC]], %[[BC]], %[[OC]]) : (memref<32x64xf32, strided<[?, ?], offset: ?>>, memref<64x16xf32, strided<[?, ?], offset: ?>>, memref<32x16xf32, strided<[?, ?], offset: ?>>) -> ()
// DEVICE-NEXT: %[[R:.*]] = bufferization.to_tensor %[[O]] restrict writable
// DEVICE-NEXT: return %[[R]]
func.func @one_kernel(%x: tensor<32x64xf32>, %w: tensor<64x16xf32>) -> tensor<32x16xf32> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  func.return %y : tensor<32x16xf32>
}

//===----------------------------------------------------------------------===//
// Two kernels: s = x + x (an intermediate), y = s·w returned through a
// rank-3 reshape (a free view), and x returned as it is.
//===----------------------------------------------------------------------===//
// COPY-LABEL: func.func @two_kernels(%arg0: tensor<32x64xf32>, %arg1: tensor<64x16xf32>) -> (tensor<1x32x16xf32>, tensor<32x64xf32>) {
// COPY-COUNT-2: gpu.memcpy async
// COPY-COUNT-2: gpu.launch_func
// COPY-COUNT-2: gpu.memcpy async
// COPY: gpu.wait [
//
// Only the intermediate is allocated; the matmul writes into a view of the
// caller's first output buffer; the input returned is copied device to
// device into the second.
// DEVICE-LABEL: func.func @two_kernels(%arg0: memref<32x64xf32, strided<[?, ?], offset: ?>>, %arg1: memref<64x16xf32, strided<[?, ?], offset: ?>>, %arg2: memref<1x32x16xf32, strided<[?, ?, ?], offset: ?>>, %arg3: memref<32x64xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface} {
// DEVICE: %[[X:.*]] = memref.reinterpret_cast %arg0
// DEVICE: %[[W:.*]] = memref.reinterpret_cast %arg1
// The rank-3 output's dim of size 1 may have any stride: two compared.
// DEVICE: memref.extract_strided_metadata %arg2
// DEVICE-NOT: arith.cmpi ne, %strides{{.*}}#0,
// DEVICE: %[[O:.*]] = memref.reinterpret_cast %arg2
// DEVICE: %[[X2:.*]] = memref.reinterpret_cast %arg3
// DEVICE-NEXT: gpu.wait async
// DEVICE-NEXT: %[[S:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<32x64xf32>
// DEVICE-NEXT: %[[FLAT:.*]] = memref.collapse_shape %[[O]]
// DEVICE-NEXT: %[[Y:.*]] = memref.expand_shape %[[FLAT]] {{.*}} into memref<32x16xf32>
// DEVICE-NOT: gpu.alloc
// DEVICE: gpu.launch_func {{.*}} args(%[[X]] : memref<32x64xf32>, %[[X]] : memref<32x64xf32>, %[[S]] : memref<32x64xf32>)
// DEVICE: gpu.launch_func {{.*}} args(%[[S]] : memref<32x64xf32>, %[[W]] : memref<64x16xf32>, %[[Y]] : memref<32x16xf32>)
// DEVICE-NEXT: %[[C:.*]] = gpu.memcpy async [%{{.*}}] %[[X2]], %[[X]] : memref<32x64xf32>, memref<32x64xf32>
// DEVICE-NEXT: %[[D:.*]] = gpu.dealloc async [%[[C]]] %[[S]]
// DEVICE-NEXT: gpu.wait [%[[D]]]
// DEVICE-NEXT: return
// DEVICE: @two_kernels.arg_error7("mirage: @two_kernels: argument 2 (memref<1x32x16xf32>) is not dense row-major: its kernels need strides [512, 16, 1]
// The module declares write and abort once (@one_kernel's lowering did).
// DEVICE-NOT: func.func private @write
// DEVICE-NOT: func.func private @abort
func.func @two_kernels(%x: tensor<32x64xf32>, %w: tensor<64x16xf32>) -> (tensor<1x32x16xf32>, tensor<32x64xf32>) attributes {ug.level = "kernel"} {
  %s = "ug.add"(%x, %x) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  %y = "ug.matmul"(%s, %w) : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  %r = "ug.reshape"(%y) : (tensor<32x16xf32>) -> tensor<1x32x16xf32>
  func.return %r, %x : tensor<1x32x16xf32>, tensor<32x64xf32>
}

//===----------------------------------------------------------------------===//
// A caller on tensors (as mirage-superopt's lifted subprograms have):
// host=copy leaves it alone; host=device redirects it to a private adapter
// with the tensor signature that passes its operands' buffers and fresh
// result buffers to the device function (@one_kernel_tensor, above).
//===----------------------------------------------------------------------===//
// COPY-LABEL: func.func @caller(
// COPY: call @one_kernel(
// COPY-NOT: one_kernel_tensor
//
// DEVICE-LABEL: func.func @caller(
// DEVICE: call @one_kernel_tensor(%arg0, %arg1) : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
func.func @caller(%x: tensor<32x64xf32>, %w: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %y = func.call @one_kernel(%x, %w) : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

//===----------------------------------------------------------------------===//
// The LLVM IR: copy mode allocates and copies for every argument; device
// mode for none (the one allocation left is @two_kernels' intermediate, the
// one copy its returned input); both launch through the CUDA runtime
// wrappers and wait on their stream. The device functions have the C
// interface a runtime calls (memref descriptors by pointer).
//===----------------------------------------------------------------------===//
// COPY-LL-LABEL: define {{.*}} @one_kernel(
// COPY-LL-COUNT-3: call ptr @mgpuMemAlloc(
// COPY-LL: call void @mgpuLaunchKernel(
// COPY-LL-COUNT-3: call void @mgpuMemFree(
// COPY-LL: call void @mgpuStreamSynchronize(
// COPY-LL-LABEL: define {{.*}} @two_kernels(
// COPY-LL-COUNT-3: call ptr @mgpuMemAlloc(
// COPY-LL-COUNT-2: call void @mgpuLaunchKernel(
// COPY-LL-COUNT-3: call void @mgpuMemFree(
// COPY-LL-LABEL: define {{.*}} @caller(
// COPY-LL: call {{.*}} @one_kernel(
// COPY-LL-NOT: _mlir_ciface
// The copies in and out: 3 for @one_kernel, 4 for @two_kernels.
// COPY-CPY-LABEL: define {{.*}} @one_kernel(
// COPY-CPY-COUNT-3: call void @mgpuMemcpy(
// COPY-CPY-NOT: call void @mgpuMemcpy(
// COPY-CPY-LABEL: define {{.*}} @two_kernels(
// COPY-CPY-COUNT-4: call void @mgpuMemcpy(
// COPY-CPY-NOT: call void @mgpuMemcpy(
// COPY-CPY-LABEL: define {{.*}} @caller(
//
// DEVICE-LL-LABEL: define {{.*}} @one_kernel(
// DEVICE-LL-NOT: call {{.*}} @mgpuMem
// DEVICE-LL: call ptr @mgpuStreamCreate(
// DEVICE-LL-NOT: call {{.*}} @mgpuMem
// DEVICE-LL: call void @mgpuLaunchKernel(
// DEVICE-LL-NOT: call {{.*}} @mgpuMem
// DEVICE-LL: call void @mgpuStreamSynchronize(
// DEVICE-LL-NOT: call {{.*}} @mgpuMem
// DEVICE-LL-LABEL: define void @_mlir_ciface_one_kernel(ptr %0, ptr %1, ptr %2)
// DEVICE-LL-LABEL: define {{.*}} @one_kernel_tensor(
// DEVICE-LL-NOT: call {{.*}} @mgpu
// DEVICE-LL: call void @one_kernel(
// DEVICE-LL-NOT: call {{.*}} @mgpu
// DEVICE-LL-LABEL: define {{.*}} @two_kernels(
// DEVICE-LL-NOT: call {{.*}} @mgpuMem
// DEVICE-LL: call ptr @mgpuMemAlloc(i64 8192,
// DEVICE-LL-NOT: call {{.*}} @mgpuMemAlloc
// DEVICE-LL-COUNT-2: call void @mgpuLaunchKernel(
// DEVICE-LL-NOT: call {{.*}} @mgpuMemAlloc
// DEVICE-LL: call void @mgpuMemcpy(ptr %{{.*}}, ptr %{{.*}}, i64 8192,
// DEVICE-LL: call void @mgpuMemFree(
// DEVICE-LL-NOT: call {{.*}} @mgpuMem
// DEVICE-LL-LABEL: define void @_mlir_ciface_two_kernels(ptr %0, ptr %1, ptr %2, ptr %3)
// DEVICE-LL-LABEL: define {{.*}} @caller(
// DEVICE-LL: call {{.*}} @one_kernel_tensor(
