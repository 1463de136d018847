// REQUIRES: ptxas, libdevice
// The FlashAttention-2 kernels of online-softmax.mlir as PTX for sm_90 and
// sm_80, accepted by ptxas: the row max is lanes of max.NaN.f32 and a
// butterfly of shuffles taking maxima (the sums' shuffles take add.f32),
// exp is libdevice's ex2.approx.ftz.f32, one in P = exp(S − m) and two per
// online sum's rescale, and the f16 kernel's tiles arrive through the
// cp.async pipeline. ptxas spills nothing, but for the f32 kernel on sm_80
// (its 50 KiB of tiles are views of dynamic shared memory; ptxas keeps 4
// bytes on the stack).
// RUN: mirage-opt --mirage-lower %S/online-softmax.mlir -o %t.sm90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90.mlir %t.sm90 | FileCheck %s --check-prefix=FILES
// RUN: %ptxas -arch=sm_90 -v %t.sm90/flash_gpu.ptx -o %t.sm90/flash.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/flash_f16_gpu.ptx -o %t.sm90/flash_f16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/flash_odd_gpu.ptx -o %t.sm90/flash_odd.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/split_kv_gpu.ptx -o %t.sm90/split_kv.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/single_gpu.ptx -o %t.sm90/single.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 %t.sm90/unstable_f16_gpu.ptx -o %t.sm90/unstable.cubin
// RUN: FileCheck %s < %t.sm90/flash_f16_gpu.ptx
// RUN: FileCheck %s --check-prefix=SINGLE < %t.sm90/single_gpu.ptx
// RUN: mirage-opt --mirage-lower="target=sm_80" %S/online-softmax.mlir -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir %t.sm80
// RUN: %ptxas -arch=sm_80 %t.sm80/flash_gpu.ptx -o %t.sm80/flash.cubin
// RUN: %ptxas -arch=sm_80 -v %t.sm80/flash_f16_gpu.ptx -o %t.sm80/flash_f16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 -v %t.sm80/flash_odd_gpu.ptx -o %t.sm80/flash_odd.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 -v %t.sm80/split_kv_gpu.ptx -o %t.sm80/split_kv.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 -v %t.sm80/single_gpu.ptx -o %t.sm80/single.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 %t.sm80/unstable_f16_gpu.ptx -o %t.sm80/unstable.cubin
// RUN: FileCheck %s < %t.sm80/flash_f16_gpu.ptx

// FILES: flash_gpu.ptx
// FILES: flash_f16_gpu.ptx
// FILES: flash_odd_gpu.ptx
// FILES: split_kv_gpu.ptx
// FILES: single_gpu.ptx
// FILES: unstable_f16_gpu.ptx

// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill stores

// CHECK-LABEL: .entry flash_f16_gpu_k3(
// CHECK-NOT: {{\.align 1[^0-9]}}
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK: cp.async.wait_group 0;
// The row max of S: each lane's maximum, then the butterfly.
// CHECK: max.NaN.f32
// CHECK: shfl.sync.bfly.b32 [[S16:%r[0-9]+]], [[V16:%r[0-9]+]], 16, 31, -1;
// CHECK-NEXT: max.NaN.f32 {{%r[0-9]+}}, [[V16]], [[S16]];
// CHECK-COUNT-4: shfl.sync.bfly.b32
// P = exp(S − m).
// CHECK: ex2.approx.ftz.f32
// The rescale of the online sums: a max and two exps each.
// CHECK: max.NaN.f32
// CHECK: ex2.approx.ftz.f32
// CHECK: ex2.approx.ftz.f32
// CHECK: max.NaN.f32
// CHECK: ex2.approx.ftz.f32
// CHECK: ex2.approx.ftz.f32
// CHECK-NOT: ex2.approx
// CHECK: ret;

// F = 1: no rescale, the one exp is P's; its element loop (4 rows of 32
// over 64 threads: 2 rows a pass, 2 passes, a constant trip count) is
// unrolled, so it appears once per pass.
// SINGLE-LABEL: .entry single_gpu_k1(
// SINGLE: shfl.sync.bfly.b32
// SINGLE-COUNT-2: ex2.approx.ftz.f32
// SINGLE-NOT: ex2.approx
// SINGLE: ret;
