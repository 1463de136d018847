// REQUIRES: ptxas, libdevice
// UNSUPPORTED: asan
// The PTX of the GEMV with row statistics (lib/lower/decide/fused_plan.c) on sm_90
// and sm_80: B's 16-byte cp.async.cg into the ring, a commit per
// iteration and wait_group 3 (3 stages in flight while one is computed),
// 16-byte shared loads back, FMAs, the slices meeting by shuffles, one
// barrier, the epilogue's sqrt; ptxas accepts it and spills nothing. At
// the paper's shapes (Inputs/fused-rms-paper.mlir) the CPU form agrees.
// RUN: mirage-opt --mirage-lower %S/fused-gemv.mlir -o %t.sm90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90.mlir %t.sm90 > /dev/null
// RUN: FileCheck %s < %t.sm90/rms_gpu.ptx
// RUN: FileCheck %s --check-prefix=MEET < %t.sm90/rms_gpu.ptx
// RUN: %ptxas -arch=sm_90 -v %t.sm90/rms_gpu.ptx -o %t.sm90/rms.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/rows_gpu.ptx -o %t.sm90/rows.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: mirage-opt --mirage-lower="target=sm_80" %S/fused-gemv.mlir -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir %t.sm80 > /dev/null
// RUN: FileCheck %s < %t.sm80/rms_gpu.ptx
// RUN: FileCheck %s --check-prefix=MEET < %t.sm80/rms_gpu.ptx
// RUN: %ptxas -arch=sm_80 -v %t.sm80/rms_gpu.ptx -o %t.sm80/rms.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: mirage-opt --mirage-lower %S/Inputs/fused-rms-paper.mlir -o %t.paper.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.paper.mlir %t.paper > /dev/null
// RUN: FileCheck %s --check-prefix=PAPER < %t.paper/rms_gpu.ptx
// RUN: %ptxas -arch=sm_90 -v %t.paper/rms_gpu.ptx -o %t.paper/rms.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: mirage-run --lower %S/Inputs/fused-rms-paper.mlir | FileCheck %s --check-prefix=NUM

// CHECK-LABEL: .entry rms_gpu_k2(
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

// The slices meet (offsets 16 .. 4: 4 column groups), one barrier, the
// epilogue's sqrt (in whatever block order LLVM lays out).
// MEET-LABEL: .entry rms_gpu_k2(
// MEET-DAG: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// MEET-DAG: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// MEET-DAG: bar.sync
// MEET-DAG: sqrt
// MEET-NOT: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;

// NOSPILL: 0 bytes spill stores, 0 bytes spill loads

// 256 blocks of 128 threads; in the ring loop 4 rows of B per thread and
// stage, all by cp.async (no 16-byte global load goes through registers).
// PAPER-LABEL: .entry rms_gpu_k2(
// PAPER: .maxntid 128, 1, 1
// PAPER-NOT: ld.global.v4
// PAPER: cp.async.commit_group;
// PAPER: cp.async.commit_group;
// PAPER: cp.async.commit_group;
// PAPER: cp.async.commit_group;
// PAPER-NEXT: cp.async.wait_group {{[[:space:]]*}}3;
// PAPER-COUNT-4: ld.shared.v4.b32
// PAPER: fma.rn.f32

// NUM: @rms: 1 output, 12288 elements, max abs error {{0\.0[0-9]+}} (tolerance {{.*}}): ok
