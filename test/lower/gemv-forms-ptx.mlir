// REQUIRES: ptxas, libdevice
// The sanitized run leaves this test out: it repeats a plain-run PTX check,
// whose time is upstream's NVPTX back end and ptxas; the code of ours it
// runs is sanitized in gemv-forms.mlir.
// UNSUPPORTED: asan
// The GEMV forms of gemv-forms.mlir as PTX for sm_90 and sm_80: ptxas
// accepts them without spills. The transposed weight of @dot16 is read
// 16 bytes per load along its stored rows (no 2-byte global loads), A
// from shared memory 16 bytes per load, 256 FMAs a chunk (16 rows x 2
// columns x 8), and the lanes' 32 sums meet in 31 shuffles. The split-K
// GEMV @rows16 (8 rows a block, 64 threads, K = 256: 2 groups of 4 rows)
// streams B by 16-byte cp.async.cg into a ring of 4 stages: the prologue
// issues both groups (4 copies each) and commits 3 groups, the loop
// commits one per iteration and waits for all but 3, then reads its 4
// vectors back from shared memory, and no 16-byte global load of B stays.
// RUN: mirage-opt --mirage-lower %S/gemv-forms.mlir -o %t.sm90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90.mlir %t.sm90 > /dev/null
// RUN: FileCheck %s < %t.sm90/dot16_gpu.ptx
// RUN: grep -c "fma.rn.f32" %t.sm90/dot16_gpu.ptx | FileCheck %s --check-prefix=FMA
// RUN: %ptxas -arch=sm_90 -v %t.sm90/dot16_gpu.ptx -o %t.sm90/dot16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/rows16_gpu.ptx -o %t.sm90/rows16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s --check-prefix=RING < %t.sm90/rows16_gpu.ptx
// RUN: %ptxas -arch=sm_90 -v %t.sm90/dot3_gpu.ptx -o %t.sm90/dot3.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: mirage-opt --mirage-lower="target=sm_80" %S/gemv-forms.mlir -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir %t.sm80 > /dev/null
// RUN: FileCheck %s < %t.sm80/dot16_gpu.ptx
// RUN: FileCheck %s --check-prefix=RING < %t.sm80/rows16_gpu.ptx
// RUN: %ptxas -arch=sm_80 -v %t.sm80/dot16_gpu.ptx -o %t.sm80/dot16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK-LABEL: .entry dot16_gpu_k2(
// CHECK-NOT: ld.global{{(.nc)?}}.{{b16|u16}}
// CHECK: ld.global{{(.nc)?}}.v4.{{b32|u32|f32}}
// CHECK: st.shared.v4
// CHECK: bar.sync
// CHECK-COUNT-16: ld.shared.v4
// CHECK: bar.sync
// CHECK-COUNT-31: shfl.sync.bfly.b32
// CHECK-NOT: shfl.sync
// CHECK-NOT: ld.global{{(.nc)?}}.{{b16|u16}}

// FMA: 256
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill

// RING-LABEL: .entry rows16_gpu_k2(
// RING-NOT: ld.global{{(.nc)?}}.v4
// RING-COUNT-4: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// RING-NEXT: cp.async.commit_group;
// RING-COUNT-4: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// RING-NEXT: cp.async.commit_group;
// RING-NEXT: cp.async.commit_group;
// RING-NOT: ld.global{{(.nc)?}}.v4
// RING: cp.async.commit_group;
// RING-NEXT: cp.async.wait_group {{[[:space:]]*}}3;
// RING-COUNT-4: ld.shared.v4
// RING-NOT: ld.global{{(.nc)?}}.v4
// RING: bar.sync
