// REQUIRES: ptxas, libdevice
// The max kernels of max-ops.mlir as PTX for sm_90 and sm_80, accepted by
// ptxas without spills: arith.maximumf becomes max.NaN.f32 (NaN-
// propagating, as the interpreter's maximum; LLVM narrows an f16 max of
// extended values to max.NaN.f16, which is exact), the block reduction is
// lanes of maxima, a butterfly of shuffles taking maxima and the warps'
// maxima combined from the shared scratch, with no addition anywhere.
// RUN: mirage-opt --mirage-lower %S/max-ops.mlir -o %t.sm90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90.mlir %t.sm90 | FileCheck %s --check-prefix=FILES
// RUN: %ptxas -arch=sm_90 -v %t.sm90/kernel_max_gpu.ptx -o %t.sm90/kernel_max.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/one_row_gpu.ptx -o %t.sm90/one_row.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/two_rows_gpu.ptx -o %t.sm90/two_rows.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/columns_gpu.ptx -o %t.sm90/columns.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/running_max_gpu.ptx -o %t.sm90/running_max.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/odd_running_max_gpu.ptx -o %t.sm90/odd.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s < %t.sm90/one_row_gpu.ptx
// RUN: FileCheck %s --check-prefix=KERNEL < %t.sm90/kernel_max_gpu.ptx
// RUN: mirage-opt --mirage-lower="target=sm_80" %S/max-ops.mlir -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir %t.sm80
// RUN: %ptxas -arch=sm_80 -v %t.sm80/kernel_max_gpu.ptx -o %t.sm80/kernel_max.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 -v %t.sm80/one_row_gpu.ptx -o %t.sm80/one_row.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 -v %t.sm80/two_rows_gpu.ptx -o %t.sm80/two_rows.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 -v %t.sm80/columns_gpu.ptx -o %t.sm80/columns.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 -v %t.sm80/running_max_gpu.ptx -o %t.sm80/running_max.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 -v %t.sm80/odd_running_max_gpu.ptx -o %t.sm80/odd.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s < %t.sm80/one_row_gpu.ptx

// FILES: kernel_max_gpu.ptx
// FILES: one_row_gpu.ptx
// FILES: two_rows_gpu.ptx
// FILES: columns_gpu.ptx
// FILES: running_max_gpu.ptx
// FILES: odd_running_max_gpu.ptx

// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill stores

// CHECK-LABEL: .entry one_row_gpu_k1(
// CHECK-NOT: add.f32
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK: cp.async.wait_group 0;
// CHECK: max.NaN.f32
// CHECK: shfl.sync.bfly.b32 [[S16:%r[0-9]+]], [[V16:%r[0-9]+]], 16, 31, -1;
// CHECK-NEXT: max.NaN.f32 {{%r[0-9]+}}, [[V16]], [[S16]];
// CHECK-COUNT-4: shfl.sync.bfly.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared
// CHECK: max.NaN.f32
// CHECK-NOT: add.f32
// CHECK: ret;

// KERNEL-LABEL: .entry kernel_max_gpu_k3(
// KERNEL: max.NaN.f32
// KERNEL-LABEL: .entry kernel_max_gpu_k4(
// KERNEL: max.NaN.f32
// KERNEL-LABEL: .entry kernel_max_gpu_k5(
// KERNEL: max.NaN.{{f16|f32}}
