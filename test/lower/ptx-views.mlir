// REQUIRES: ptxas, libdevice
// The sanitized run leaves this test out: it repeats a plain-run PTX check,
// whose time is upstream's NVPTX back end and ptxas; the code of ours it
// runs is sanitized in views.mlir.
// UNSUPPORTED: asan
// The view ops' copy kernels of views.mlir as PTX for sm_90 and sm_80,
// accepted by ptxas: 16-byte loads and stores where the rows stay whole
// vectors (a head transpose and a RoPE half that are outputs), 2-byte
// ones where the innermost dim moves (Kᵀ), where a folded view is read
// through strides (the concat of the RoPE halves) or no dim is a multiple
// of 8 (bf16, odd sizes).
// RUN: mirage-opt --mirage-lower %S/views.mlir -o %t.sm90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90.mlir %t.sm90 | FileCheck %s --check-prefix=FILES
// RUN: %ptxas -arch=sm_90 %t.sm90/rope_scores_gpu.ptx -o %t.sm90/rope.cubin
// RUN: %ptxas -arch=sm_90 %t.sm90/bf16_odd_gpu.ptx -o %t.sm90/bf16.cubin
// RUN: %ptxas -arch=sm_90 %t.sm90/layout_reshape_gpu.ptx -o %t.sm90/layout.cubin
// RUN: %ptxas -arch=sm_90 %t.sm90/single_head_gpu.ptx -o %t.sm90/single.cubin
// RUN: %ptxas -arch=sm_90 %t.sm90/views_out_gpu.ptx -o %t.sm90/out.cubin
// RUN: FileCheck %s --check-prefix=OUT < %t.sm90/views_out_gpu.ptx
// RUN: FileCheck %s < %t.sm90/rope_scores_gpu.ptx
// RUN: FileCheck %s --check-prefix=ODD < %t.sm90/bf16_odd_gpu.ptx
// RUN: mirage-opt --mirage-lower="target=sm_80" %S/views.mlir -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir %t.sm80
// RUN: %ptxas -arch=sm_80 %t.sm80/rope_scores_gpu.ptx -o %t.sm80/rope.cubin
// RUN: %ptxas -arch=sm_80 %t.sm80/bf16_odd_gpu.ptx -o %t.sm80/bf16.cubin
// RUN: %ptxas -arch=sm_80 %t.sm80/layout_reshape_gpu.ptx -o %t.sm80/layout.cubin
// RUN: %ptxas -arch=sm_80 %t.sm80/single_head_gpu.ptx -o %t.sm80/single.cubin
// RUN: %ptxas -arch=sm_80 %t.sm80/views_out_gpu.ptx -o %t.sm80/out.cubin
// RUN: FileCheck %s < %t.sm80/rope_scores_gpu.ptx
// RUN: FileCheck %s --check-prefix=ODD < %t.sm80/bf16_odd_gpu.ptx

// FILES: rope_scores_gpu.ptx
// FILES: views_out_gpu.ptx
// FILES: bf16_odd_gpu.ptx
// FILES: layout_reshape_gpu.ptx
// FILES: single_head_gpu.ptx

// No kernel for the free reshapes (ops 3, 9, 10, 12) nor the folded
// transpose and slices (ops 4, 5, 6).
// CHECK-NOT: .entry rope_scores_gpu_k3(
// CHECK-NOT: .entry rope_scores_gpu_k4(
// CHECK-LABEL: .entry rope_scores_gpu_k7(
// CHECK: .param .u64 .ptr .align 16
// CHECK-NOT: ld.global.v4
// CHECK: ld.global.b16
// CHECK: st.global.b16
// CHECK-LABEL: .entry rope_scores_gpu_k8(
// CHECK-NOT: ld.global.v4
// CHECK: ld.global.b16
// CHECK: st.global.b16
// CHECK-LABEL: .entry rope_scores_gpu_k11(
// CHECK-NOT: .entry rope_scores_gpu_k12(

// OUT-LABEL: .entry views_out_gpu_k4(
// OUT-NOT: ld.global.b16
// OUT: ld.global.v4.b32
// OUT-NOT: st.global.b16
// OUT: st.global.v4.b32
// OUT-LABEL: .entry views_out_gpu_k5(
// OUT-NOT: ld.global.b16
// OUT: ld.global.v4.b32
// OUT: st.global.v4.b32

// ODD-LABEL: .entry bf16_odd_gpu_k2(
// ODD-NOT: .v4
// ODD: ld.global.b16
// ODD: st.global.b16
// ODD-NOT: .entry bf16_odd_gpu_k5(
