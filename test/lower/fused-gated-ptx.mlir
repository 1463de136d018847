// REQUIRES: ptxas, libdevice
// UNSUPPORTED: asan
// The PTX of the gated MLP's one-kernel form (two matmuls sharing A,
// lib/lower/decide/fused_plan.c) on sm_90 and sm_80: both streams' 16-byte
// cp.async.cg into the one ring, a commit per iteration and wait_group 3,
// 16-byte shared loads back, FMAs, one barrier, the silu's ex2; ptxas
// accepts it and spills nothing. At the paper's shape
// (Inputs/fused-gated-paper.mlir) the same, and the CPU form agrees.
// RUN: mirage-opt --mirage-lower %S/fused-gated.mlir -o %t.sm90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90.mlir %t.sm90 > /dev/null
// RUN: FileCheck %s < %t.sm90/gated_gpu.ptx
// RUN: %ptxas -arch=sm_90 -v %t.sm90/gated_gpu.ptx -o %t.sm90/gated.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/three_gpu.ptx -o %t.sm90/three.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: mirage-opt --mirage-lower="target=sm_80" %S/fused-gated.mlir -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir %t.sm80 > /dev/null
// RUN: FileCheck %s < %t.sm80/gated_gpu.ptx
// RUN: %ptxas -arch=sm_80 -v %t.sm80/gated_gpu.ptx -o %t.sm80/gated.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 -v %t.sm80/three_gpu.ptx -o %t.sm80/three.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: mirage-opt --mirage-lower %S/Inputs/fused-gated-paper.mlir -o %t.p90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.p90.mlir %t.p90 > /dev/null
// RUN: FileCheck %s --check-prefix=PAPER < %t.p90/gated_gpu.ptx
// RUN: %ptxas -arch=sm_90 -v %t.p90/gated_gpu.ptx -o %t.p90/gated.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: mirage-opt --mirage-lower="target=sm_80" %S/Inputs/fused-gated-paper.mlir -o %t.p80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.p80.mlir %t.p80 > /dev/null
// RUN: FileCheck %s --check-prefix=PAPER < %t.p80/gated_gpu.ptx
// RUN: %ptxas -arch=sm_80 -v %t.p80/gated_gpu.ptx -o %t.p80/gated.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: mirage-run --lower %S/Inputs/fused-gated-paper.mlir | FileCheck %s --check-prefix=NUM

// CHECK-LABEL: .entry gated_gpu_k3(
// CHECK-NOT: .align 1{{[^0-9]}}
// CHECK: .maxntid 128, 1, 1
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group {{[[:space:]]*}}3;
// CHECK: ld.shared.v4.b32
// CHECK: fma.rn.f32
// CHECK: bar.sync
// CHECK-NOT: bar.sync
// CHECK: ex2.approx

// NOSPILL: 0 bytes spill stores, 0 bytes spill loads

// 256 blocks of 128 threads; in the ring loop 4 rows of B per thread and
// stage, all by cp.async (no 16-byte global load through registers), the
// loop's exit compares with an immediate (32 groups: no thread-dependent
// trip count).
// PAPER-LABEL: .entry gated_gpu_k3(
// PAPER: .maxntid 128, 1, 1
// PAPER-NOT: ld.global.v4
// PAPER: cp.async.commit_group;
// PAPER: cp.async.commit_group;
// PAPER: cp.async.commit_group;
// PAPER: cp.async.commit_group;
// PAPER-NEXT: cp.async.wait_group {{[[:space:]]*}}3;
// PAPER-COUNT-4: ld.shared.v4.b32
// PAPER: fma.rn.f32
// PAPER: setp.{{[a-z]+}}.{{[bsu]}}64 {{[^,]*}}, {{[^,]*}}, {{[0-9]+}};
// PAPER-NEXT: @{{.*}} bra

// NUM: @gated: 1 output, 32768 elements, max abs error {{[0-9.]+}} (tolerance {{.*}}): ok
