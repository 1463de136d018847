// REQUIRES: ptxas, libdevice
// The sanitized run leaves this test out (six searches at the paper's
// shapes, then upstream's NVPTX back end and ptxas: minutes under ASan,
// mostly in code that is not ours); the paths of ours it runs are
// sanitized elsewhere: the searches and their lowering in search/ (e.g.
// superopt-qknorm.mlir, stable-softmax.mlir, superopt-attention-views.mlir)
// and the sm_90 and sm_80 PTX emission of the tensor-core and FP32 kernels
// in tensor-cores-ptx.mlir, ptx.mlir, online-ptx.mlir, max-ptx.mlir.
// UNSUPPORTED: asan
// The PTX of the six paper benchmarks at the paper's shapes (the kernels
// mirage-superopt emits for sm_90; ptx-benchmarks-sm80.mlir: sm_80). What
// the memory path must show in every kernel:
//  - kernel pointer parameters carry their alignment (no `.align 1`),
//  - DRAM tiles are loaded 16 bytes per thread (ld.global.v4, or
//    cp.async.cg of 16 bytes in pipelined for-loops and the GEMVs' rings),
//  - reductions over >= 32 elements with idle threads use warp shuffles,
//    and so does each GEMV (its K slices meet by shuffles before shared
//    memory); with as many results as threads each thread reduces its own
//    (docs/lower.md, Reductions),
//  - FMA contraction, and ptxas spills nothing;
//  - block matmuls whose tiles fit the m16n8k16 shape (GQA's and QKNorm's
//    Q·K and P·V, LoRA's three) run on tensor cores: ldmatrix and
//    mma.sync.aligned.m16n8k16 with f32 accumulators. RMSNorm's one kernel
//    and gated MLP's projections are GEMVs (lib/lower/write/gemv.c, fused.c):
//    no mma tile, so they keep the FP32 lanes.
// RUN: bash %S/Inputs/benchmark_ptx.sh sm_90 %t %mirage_src %ptxas %python > %t.txt
// RUN: FileCheck %s < %t.txt

// CHECK-LABEL: == rmsnorm
// CHECK-NOT: {{\.align 1[^0-9]|mma.sync|ldmatrix}}
// One kernel: the block graph of (X·W) / sqrt(mean(X²)) lowered as a GEMV
// with a row statistic (lib/lower/decide/fused_plan.c). In the PTX's block order:
// the slices meet at lane offsets 16, 8 and 4, one barrier; the ring
// (B streamed by 16-byte cp.async.cg into 4 stages: the prologue commits
// 3 groups; each iteration commits one and waits for all but 3), read
// back by 16-byte shared loads, FMAs; the epilogue's sqrt.
// CHECK: .entry rmsnorm_paper_lax0_gpu_k2(
// CHECK-NOT: ld.global.v4
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK: bar.sync
// CHECK: sqrt
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group {{[[:space:]]*}}3;
// CHECK: ld.shared.v4.b32
// CHECK: fma.rn.f32
// CHECK-NOT: .entry
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores

// CHECK-LABEL: == gqa
// CHECK-NOT: {{\.align 1[^0-9]}}
// CHECK: {{ld.global.v4.b32|cp.async.cg.shared.global \[.*\], \[.*\], 16;}}
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: fma.rn.f32
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores

// CHECK-LABEL: == qknorm
// CHECK-NOT: {{\.align 1[^0-9]}}
// CHECK: {{ld.global.v4.b32|cp.async.cg.shared.global \[.*\], \[.*\], 16;}}
// CHECK: shfl.sync.bfly.b32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores

// CHECK-LABEL: == lora
// CHECK-NOT: {{\.align 1[^0-9]}}
// CHECK: {{ld.global.v4.b32|cp.async.cg.shared.global \[.*\], \[.*\], 16;}}
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: fma.rn.f32
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores

// CHECK-LABEL: == gated-mlp
// CHECK-NOT: {{\.align 1[^0-9]|mma.sync|ldmatrix}}
// One kernel (lib/lower/decide/fused_plan.c): both projections as one GEMV whose
// column groups stream W1 and W3 through one ring, the silu's ex2 and
// the product after the one barrier; no other kernel.
// CHECK: .entry gated_mlp_paper_lax0_gpu_k3(
// CHECK-NOT: ld.global.v4
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group {{[[:space:]]*}}3;
// CHECK: ld.shared.v4.b32
// CHECK: fma.rn.f32
// CHECK: bar.sync
// CHECK: ex2.approx
// CHECK-NOT: .entry gated_mlp_paper_lax0_gpu_k4(
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores

// CHECK-LABEL: == ntrans
// CHECK-NOT: {{\.align 1[^0-9]|mma.sync|ldmatrix}}
// CHECK: {{ld.global.v4.b32|cp.async.cg.shared.global \[.*\], \[.*\], 16;}}
// CHECK: shfl.sync.bfly.b32
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores
