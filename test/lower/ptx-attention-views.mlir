// REQUIRES: ptxas, libdevice
// The sanitized run leaves this test out: it repeats a plain-run PTX check
// (upstream's NVPTX back end and ptxas) after two searches; the search and
// the lowering of the same kernels are sanitized in
// ../search/superopt-attention-views.mlir.
// UNSUPPORTED: asan
// The kernels of ../search/superopt-attention-views.mlir (attention with
// its head-split transposes and Kᵀ folded into the readers' loads, the
// head merge into the writer's stores) as PTX
// for sm_90 and sm_80: ptxas accepts every kernel, without spills.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false" %S/../search/superopt-attention-views.mlir -o %t.sm90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90.mlir %t.sm90 | FileCheck %s --check-prefix=FILES
// RUN: %ptxas -arch=sm_90 -v %t.sm90/attention_f16_lax0_gpu.ptx -o %t.sm90/f16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_90 -v %t.sm90/attention_bf16_lax0_gpu.ptx -o %t.sm90/bf16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s < %t.sm90/attention_f16_lax0_gpu.ptx
// RUN: FileCheck %s --check-prefix=QK < %t.sm90/attention_f16_lax0_gpu.ptx
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false target=sm_80" %S/../search/superopt-attention-views.mlir -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir %t.sm80
// RUN: %ptxas -arch=sm_80 -v %t.sm80/attention_f16_lax0_gpu.ptx -o %t.sm80/f16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -arch=sm_80 -v %t.sm80/attention_bf16_lax0_gpu.ptx -o %t.sm80/bf16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s < %t.sm80/attention_f16_lax0_gpu.ptx

// FILES: attention_f16_lax0_gpu.ptx
// FILES: attention_bf16_lax0_gpu.ptx

// Three kernels a module: the projections (one kernel for the four,
// docs/lower.md, identical kernels), Q·Kᵀ and softmax·V.
// NOSPILL-COUNT-3: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill

// CHECK-COUNT-3: .entry attention_f16_lax0_gpu_k
// CHECK-NOT: .entry

// Q·Kᵀ (op 15): both operands folded; Q's rows stay contiguous in the
// projection's buffer (16-byte loads through the strided view); Kᵀ's do
// not, but K's buffer stores D contiguously, so Kᵀ's tiles are read as
// 16-byte vectors of D in stored order too: no 2-byte loads.
// QK-LABEL: .entry attention_f16_lax0_gpu_k15(
// QK-NOT: ld.global.b16
// QK-COUNT-2: ld.global.v4.b32
// QK-NOT: ld.global.b16
// QK-LABEL: .entry attention_f16_lax0_gpu_k16(
