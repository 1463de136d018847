// REQUIRES: ptxas, libdevice
// The tail loops of copy-tails.mlir as PTX for sm_90, accepted by ptxas.
// Their trip counts are constants, so LLVM unrolls them: a thread's two
// passes are two loads written out, the second behind the tail's bounds
// check (the first pass is in range for every thread, which LLVM proves
// from the block size). Thread-dependent bounds left one load in a loop.
// RUN: mirage-opt --mirage-lower %S/copy-tails.mlir -o %t.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.mlir %t | FileCheck %s --check-prefix=FILES
// RUN: %ptxas -arch=sm_90 %t/tail_rows_gpu.ptx -o %t/rows.cubin
// RUN: %ptxas -arch=sm_90 %t/tail_carry_gpu.ptx -o %t/carry.cubin
// RUN: %ptxas -arch=sm_90 %t/tail_flat_gpu.ptx -o %t/flat.cubin
// RUN: FileCheck %s --check-prefix=ROWS < %t/tail_rows_gpu.ptx
// RUN: FileCheck %s --check-prefix=CARRY < %t/tail_carry_gpu.ptx
// RUN: FileCheck %s --check-prefix=FLAT < %t/tail_flat_gpu.ptx

// FILES: tail_rows_gpu.ptx
// FILES: tail_carry_gpu.ptx
// FILES: tail_flat_gpu.ptx

// Rows 0-31 for every thread, rows 32-39 checked (row > 39 skips), for
// the stages of iterations 0-2 before the loop (four stages of 1.25 KiB)
// and for the next stage inside the loop.
// ROWS-LABEL: .entry tail_rows_gpu_k1(
// ROWS: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// ROWS: setp.gt.u64 [[P:%p[0-9]+]], {{.*}}, 39;
// ROWS: @[[P]] bra
// ROWS: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// ROWS-NEXT: $L__
// ROWS: cp.async.commit_group;
// ROWS-NOT: cp.async.wait_group
// ROWS: cp.async.commit_group;
// ROWS-NOT: cp.async.wait_group
// ROWS: cp.async.commit_group;
// ROWS-NOT: cp.async.commit_group
// ROWS: cp.async.wait_group 2;
// ROWS: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// ROWS: @[[P]] bra
// ROWS: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// ROWS-NEXT: $L__
// ROWS: cp.async.commit_group;

// 90 vectors over 64 threads: vectors 0-63, then 64-89 checked, both
// by cp.async and waited for once.
// CARRY-LABEL: .entry tail_carry_gpu_k1(
// CARRY: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CARRY: setp.gt.u64 [[P:%p[0-9]+]], {{.*}}, 89;
// CARRY: @[[P]] bra
// CARRY: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CARRY-NOT: ld.global
// CARRY: cp.async.commit_group;
// CARRY-NEXT: cp.async.wait_group 0;
// CARRY-NEXT: bar.sync 0;

// 100 halves over 64 threads: elements 0-63, then 64-99 (128 bytes on).
// FLAT-LABEL: .entry tail_flat_gpu_k1(
// FLAT: ld.global.b16 %{{.*}}, [[[A:%rd[0-9]+]]];
// FLAT: setp.gt.u64 [[P:%p[0-9]+]], {{.*}}, 99;
// FLAT-NEXT: @[[P]] bra
// FLAT-NEXT: ld.global.b16 %{{.*}}, [[[A]]+128];
// FLAT-NOT: ld.global
