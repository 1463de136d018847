//===- cost.h - Analytic GPU cost model for μGraph programs -------*- C -*-===//
//
// Estimates the run time of a program on a GPU target without running it:
// each kernel costs a launch plus the time of its busiest resource (DRAM,
// L2, shared memory, tensor cores, SIMT lanes, special-function units),
// divided by the fraction of SM time its grid keeps busy (wave
// quantization). The search ranks verified candidates by this estimate and
// uses mg_cost_lower_bound to stop deepening; docs/cost.md gives the
// formulas, the hardware figures and what the model ignores.
//
// The model is deterministic (same program and GPU, same double) and cheap
// (one pass over the ops), so it can rank millions of candidates.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_COST_H
#define MIRAGE_COST_H

#include "mirage/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Hardware figures of one GPU, peak values from vendor data sheets; the
/// model applies its sustained-fraction factors (docs/cost.md) on top.
typedef struct MgGpu {
  const char *target;      // "sm_90": the MgTarget it describes
  const char *model;       // "H100 SXM5"
  uint32_t sms;            // streaming multiprocessors
  double clock_hz;         // boost clock
  double dram_bw;          // DRAM bytes/s
  double l2_bytes;         // L2 capacity
  double l2_bw;            // L2 bytes/s (approximate: microbenchmarks)
  double tensor_flops;     // dense f16 tensor-core flops/s (f32 accumulate)
  uint32_t simt_lanes;     // FP32 lanes per SM (one element op per clock)
  uint32_t sfu_lanes;      // special-function lanes per SM (exp, rsqrt)
  uint32_t smem_bytes_clk; // shared-memory bytes per SM per clock
  double launch_s;         // launch and fill/drain of one kernel
} MgGpu;

/// The figures for `target` (by name); the default GPU (sm_90) when the
/// target is NULL or unknown. Never NULL.
MG_API const MgGpu *mg_cost_gpu(const MgTarget *target);

/// The resource that bounds a kernel's time.
typedef enum MgCostBound {
  MG_COST_BOUND_LAUNCH, // nothing to do: the launch alone
  MG_COST_BOUND_DRAM,
  MG_COST_BOUND_L2,
  MG_COST_BOUND_SMEM,
  MG_COST_BOUND_TENSOR,
  MG_COST_BOUND_SIMT,
  MG_COST_BOUND_SFU,
  MG_COST_BOUND_COUNT
} MgCostBound;

/// Lower-case name of a bound ("dram", ...); NULL when out of range.
MG_API const char *mg_cost_bound_name(MgCostBound bound);

/// The estimate for one kernel op of the root graph.
typedef struct MgKernelCost {
  double time_s;        // launch_s + body_s
  double body_s;        // busiest resource's time / utilization
  double dram_bytes;    // DRAM traffic (re-reads that hit L2 excluded)
  double l2_bytes;      // every global load and store
  double smem_bytes;    // shared-memory traffic of the block ops
  double tensor_flops;  // matmul flops (2 per multiply-add; f32 counts
                        // twice: TF32 runs at half the f16 rate)
  double simt_ops;      // element-wise and reduction lane ops
  double sfu_ops;       // exp, sqrt, rsqrt, silu, gelu evaluations
  uint64_t blocks;      // grid size; 0 for a predefined op
  double utilization;   // busy fraction of SM time in (0, 1]
  MgCostBound bound;
} MgKernelCost;

/// Estimate for the op `op` of the root graph of `program` (a predefined
/// op or a graph-defined kernel). False, with `out` zeroed, when the op is
/// an input or out of range.
MG_API bool mg_cost_kernel(const MgProgram *program, MgOpId op,
                           const MgGpu *gpu, MgKernelCost *out);

/// Estimated time of the whole program: the sum over its kernels (they run
/// one after the other). 0 for an empty program.
MG_API double mg_cost_program(const MgProgram *program, const MgGpu *gpu);

/// A lower bound on the estimate of any program of `kernels` kernels that
/// computes the outputs of `target`: a launch per kernel plus reading every
/// input the target reads and writing every output once, at full DRAM
/// bandwidth.
MG_API double mg_cost_lower_bound(const MgProgram *target, uint32_t kernels,
                                  const MgGpu *gpu);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_COST_H
