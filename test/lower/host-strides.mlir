// host=device's @F uses the caller's memrefs where they are, and its
// kernels read each through the aligned pointer alone as a dense,
// 16-byte aligned row-major array. @F therefore takes every argument with
// a dynamic strided layout and checks offset, strides and alignment at
// entry: a view that breaks them (a memref.subview with an offset, with
// other strides; an unaligned base pointer) ends the call with a message
// on stderr and abort() instead of wrong numbers (docs/lower.md, "The
// device contract"). Run on the CPU: the host code goes through upstream
// to LLVM IR (as in host-modes.mlir), is linked with a caller
// (Inputs/host-strides-driver.mlir) whose stand-in for the CUDA runtime
// wrappers runs this test's one kernel, c = a + b, on the CPU, and lli
// runs each case.
// RUN: mirage-opt --mirage-lower="ptx=false host=device" %s -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: env CUDA_ROOT= %mlir_opt %t.mlir --pass-pipeline='builtin.module(nvvm-attach-target{chip=sm_90 O=3},gpu.module(convert-scf-to-cf,expand-strided-metadata,convert-gpu-to-nvvm,convert-arith-to-llvm,convert-index-to-llvm,canonicalize,cse,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})' -o %t.bin.mlir
// RUN: %mlir_opt %t.bin.mlir --pass-pipeline='builtin.module(convert-scf-to-cf,expand-strided-metadata,gpu-to-llvm,convert-to-llvm,reconcile-unrealized-casts)' -o %t.llvm.mlir
// RUN: %mlir_translate --mlir-to-llvmir %t.llvm.mlir -o %t.host.ll
// RUN: %mlir_opt %S/Inputs/host-strides-driver.mlir --pass-pipeline='builtin.module(convert-scf-to-cf,expand-strided-metadata,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)' -o %t.driver.mlir
// RUN: %mlir_translate --mlir-to-llvmir %t.driver.mlir -o %t.driver.ll
// RUN: llvm-link %t.host.ll %t.driver.ll -o %t.bc
// RUN: lli -entry-function=dense %t.bc 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: not --crash lli -entry-function=offset %t.bc 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: not --crash lli -entry-function=stride %t.bc 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not --crash lli -entry-function=row_stride %t.bc 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not --crash lli -entry-function=unaligned %t.bc 2>&1 | FileCheck %s --check-prefix=ALIGN
//
// DENSE: launch
// DENSE-NEXT: dense: c = a + b
// OFFSET-NOT: launch
// OFFSET: mirage: @add: argument 1 (memref<4x8xf32>) has a non-zero offset; its kernels read from the aligned pointer: pass offset 0 and the first element's address
// OFFSET-NOT: launch
// STRIDE-NOT: launch
// STRIDE: mirage: @add: argument 2 (memref<4x8xf32>) is not dense row-major: its kernels need strides [8, 1] (a dim of size 1 may have any); pass a contiguous copy
// STRIDE-NOT: launch
// ALIGN-NOT: launch
// ALIGN: mirage: @add: argument 0 (memref<4x8xf32>) is not 16-byte aligned; its kernels use 16-byte vector accesses
// ALIGN-NOT: launch

// The signature takes any strided view; each argument is checked, then
// made the identity type the kernel takes (offset 0, the dense strides).
// CHECK-LABEL: func.func @add(%arg0: memref<4x8xf32, strided<[?, ?], offset: ?>>, %arg1: memref<4x8xf32, strided<[?, ?], offset: ?>>, %arg2: memref<4x8xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface} {
// CHECK: memref.extract_strided_metadata %arg0
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[A:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4, 8], strides: [8, 1] : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<4x8xf32>
// CHECK: %[[B:.*]] = memref.reinterpret_cast %arg1
// CHECK: %[[C:.*]] = memref.reinterpret_cast %arg2
// CHECK: gpu.wait async
// CHECK: gpu.launch_func {{.*}} args(%[[A]] : memref<4x8xf32>, %[[B]] : memref<4x8xf32>, %[[C]] : memref<4x8xf32>)
// CHECK-COUNT-9: llvm.mlir.global private constant @add.arg_error
// CHECK: func.func private @write(i32, !llvm.ptr, i64) -> i64
// CHECK: func.func private @abort()
func.func @add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %c = "ug.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}
