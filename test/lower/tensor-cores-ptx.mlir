// REQUIRES: ptxas, libdevice
// The kernels of tensor-cores.mlir as PTX for sm_90 and sm_80, accepted by
// ptxas without spills: block matmuls of f16 and bf16 tiles are
// ldmatrix (.x4 for A, .x4/.x2 .trans for B) and
// mma.sync.aligned.m16n8k16.row.col with f32 accumulators; the shapes the
// mma tiles do not cover and f32 have neither.
// RUN: mirage-opt --mirage-lower %S/tensor-cores.mlir -o %t.sm90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90.mlir %t.sm90 > /dev/null
// RUN: for k in tc_store tc_batched_chain tc_loop_accum tc_loop_accum_bf16 tc_one_warp_bf16 tc_n24 tc_two_step_bf16 fma_tail_f16 fma_tail_bf16 fma_gemv_f16 fma_k1_f16 fma_f32; do echo "== $k"; cat %t.sm90/${k}_gpu.ptx; %ptxas -arch=sm_90 -v %t.sm90/${k}_gpu.ptx -o /dev/null 2>&1 || echo "ptxas failed"; done > %t.sm90.txt
// RUN: FileCheck %s < %t.sm90.txt
// RUN: mirage-opt --mirage-lower="target=sm_80" %S/tensor-cores.mlir -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir %t.sm80 > /dev/null
// RUN: for k in tc_store tc_batched_chain tc_loop_accum tc_loop_accum_bf16 tc_one_warp_bf16 tc_n24 tc_two_step_bf16 fma_tail_f16 fma_tail_bf16 fma_gemv_f16 fma_k1_f16 fma_f32; do echo "== $k"; cat %t.sm80/${k}_gpu.ptx; %ptxas -arch=sm_80 -v %t.sm80/${k}_gpu.ptx -o /dev/null 2>&1 || echo "ptxas failed"; done > %t.sm80.txt
// RUN: FileCheck %s < %t.sm80.txt

// CHECK-LABEL: == tc_store
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == tc_batched_chain
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: ex2.approx
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == tc_loop_accum{{$}}
// CHECK: cp.async.cg.shared.global
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == tc_loop_accum_bf16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == tc_one_warp_bf16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == tc_n24
// CHECK: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == tc_two_step_bf16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: bar.sync
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == fma_tail_f16
// CHECK-NOT: {{mma.sync|ldmatrix}}
// CHECK: fma.rn.f32
// CHECK-NOT: {{mma.sync|ldmatrix}}
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == fma_tail_bf16
// CHECK-NOT: {{mma.sync|ldmatrix}}
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == fma_gemv_f16
// CHECK-NOT: {{mma.sync|ldmatrix}}
// CHECK: shfl.sync.bfly.b32
// CHECK-NOT: {{mma.sync|ldmatrix}}
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == fma_k1_f16
// CHECK-NOT: {{mma.sync|ldmatrix}}
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed

// CHECK-LABEL: == fma_f32
// CHECK-NOT: {{mma.sync|ldmatrix}}
// CHECK: fma.rn.f32
// CHECK-NOT: {{mma.sync|ldmatrix}}
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: ptxas failed
