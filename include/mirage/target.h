//===- target.h - The supported GPU targets: one table -----------*- C -*-===//
//
// Every fact this project keeps about a GPU target lives in one table
// (lib/target/target.c): the limits a μGraph must respect (shared memory
// per block, threads per block, grid extents: validation and lowering read
// them) and the hardware figures the cost models use (SMs, clock,
// bandwidths, per-SM limits, latencies: docs/cost.md gives the source of
// each). A target is named by its compute capability ("sm_90").
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_TARGET_H
#define MIRAGE_TARGET_H

#include "mirage/support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Hardware figures of one GPU: peaks from vendor data sheets and the CUDA
/// programming guide, latencies from published microbenchmarks
/// (lib/target/target.c and docs/cost.md give the source of each; none is
/// measured by this project yet). The roofline applies its
/// sustained-fraction factors on top; the emitted model uses the peaks of
/// the pipes and the latencies.
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
  // Used by the model of the emitted code only.
  int sm;                  // compute capability x 10 (its MgTarget's sm)
  uint32_t max_threads_sm; // resident threads per SM
  uint32_t max_blocks_sm;  // resident blocks per SM
  uint32_t regs_sm;        // 32-bit registers per SM
  uint32_t smem_sm;        // shared memory per SM for blocks (bytes)
  uint32_t smem_reserved;  // shared memory the driver reserves per block
  uint32_t issue_clk;      // warp instructions issued per SM per clock
  uint32_t regs_thread;    // registers per thread (assumed: no ptxas here)
  // Latencies in SM clock cycles.
  double lat_fp;           // dependent FP32 add / multiply / FMA
  double lat_sfu;          // special-function unit (ex2, rsqrt, rcp)
  double lat_smem;         // shared-memory load
  double lat_shfl;         // warp shuffle
  double lat_bar;          // bar.sync once every warp has arrived
  double lat_l2;           // global load that hits L2
  double lat_dram;         // global load served by DRAM
} MgGpu;

/// A GPU target: the limits validation and lowering apply, and the
/// hardware figures of its GPU. A target made by hand (a copy with other
/// limits, mg_target_unlimited) may leave `gpu` NULL: mg_cost_gpu then
/// gives the default GPU's figures.
typedef struct MgTarget {
  const char *name;        // "sm_80", "sm_90", ...
  int64_t smem_bytes;      // shared memory per block
  int32_t max_threads;     // threads per block
  int64_t max_grid[3];
  const MgGpu *gpu;        // the table's figures for `name`
  int32_t sm;              // compute capability x 10 (90 for sm_90): the
                           // lowering puts block matmuls on tensor cores
                           // from 80 (gpu->sm repeats it for the cost model)
} MgTarget;

/// Target by name, or NULL. mg_target_default() is sm_90.
MG_API const MgTarget *mg_target_lookup(const char *name);
MG_API const MgTarget *mg_target_default(void);
/// The known targets, oldest first: mg_target_at(i) for i <
/// mg_target_count(); NULL past the end.
MG_API size_t mg_target_count(void);
MG_API const MgTarget *mg_target_at(size_t i);
/// "sm_80, sm_86, sm_89 or sm_90": the known names, for messages.
MG_API const char *mg_target_names(void);
/// A target that admits any launch and footprint, for checks of structure
/// and semantics (the verifier, the search's target): no GPU figures.
MG_API const MgTarget *mg_target_unlimited(void);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_TARGET_H
