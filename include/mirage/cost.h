//===- cost.h - Analytic GPU cost models for μGraph programs ------*- C -*-===//
//
// Estimates the run time of a program on a GPU target without running it,
// with two models side by side (docs/cost.md):
//  - the roofline (mg_cost_kernel, mg_cost_program): what a tuned
//    implementation of each kernel would take. A kernel costs a launch
//    plus the time of its busiest resource (DRAM, L2, shared memory,
//    tensor cores at 70 % of peak, SIMT lanes, special-function units),
//    divided by the fraction of SM time its grid keeps busy (wave
//    quantization). The search ranks verified candidates by it and uses
//    mg_cost_lower_bound to stop deepening.
//  - the model of the emitted code (mg_cost_emitted_kernel,
//    mg_cost_emitted_program): what lib/lower's kernel for it would take,
//    from its plan (mg_lower_kernel_plan): the FMA loops, copies and
//    reductions it emits, their serial chains, barriers and memory
//    round trips, bytes in flight and occupancy.
//
// Both are deterministic (same program and GPU, same double). The roofline
// is one pass over the ops, cheap enough to rank millions of candidates;
// the emitted model also writes each graph-defined kernel's text once to
// count its barriers.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_COST_H
#define MIRAGE_COST_H

#include "mirage/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Revision of the two models. The search ranks by them, so a cached
/// search result is only valid for the revision that ranked it: the cache
/// key includes it. Bump it with any change to either model's figures.
#define MG_COST_MODEL_REVISION 3

/// The figures of `target` (its row of the target table, mirage/target.h);
/// the default GPU's (sm_90) when the target is NULL or has none. Never
/// NULL.
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
  // The emitted model's own: instruction issue, and one block's critical
  // path (memory round trips, serial chains, barriers) times the rounds of
  // resident blocks. It also reports "smem" for the load/store unit
  // (shared and global accesses, shuffles) and "simt" for the FP32 pipe.
  MG_COST_BOUND_ISSUE,
  MG_COST_BOUND_LATENCY,
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

/// Roofline estimate for the op `op` of the root graph of `program` (a predefined
/// op or a graph-defined kernel). False, with `out` zeroed, when the op is
/// an input or out of range.
MG_API bool mg_cost_kernel(const MgProgram *program, MgOpId op,
                           const MgGpu *gpu, MgKernelCost *out);

/// Roofline estimate of the whole program: the sum over its kernels (they
/// run one after the other). 0 for an empty program.
MG_API double mg_cost_program(const MgProgram *program, const MgGpu *gpu);

/// A lower bound on the estimate of any program of `kernels` kernels that
/// computes the outputs of `target`: a launch per kernel plus reading every
/// input the target reads and writing every output once, at full DRAM
/// bandwidth.
MG_API double mg_cost_lower_bound(const MgProgram *target, uint32_t kernels,
                                  const MgGpu *gpu);

/// The program's own bound: no implementation of it runs faster on `gpu`
/// than reading each input it reads and writing each output once through
/// DRAM at the data-sheet bandwidth, or than its matmul flops at the
/// tensor-core peak. Unlike mg_cost_program (the bound of the kernels a
/// program is made of, with their re-reads and launches), it depends only
/// on what the program computes, so an estimate set beside it shows how
/// far the chosen kernels are from the best any could do.
typedef struct MgProgramBound {
  double time_s;       // max(dram_s, flops_s); no launch included
  double dram_s, flops_s;
  double dram_bytes;   // inputs once + outputs once
  double tensor_flops; // matmul flops of the program's kernels
} MgProgramBound;

MG_API void mg_cost_program_bound(const MgProgram *program, const MgGpu *gpu,
                                  MgProgramBound *out);

//===--- The model of the emitted code (emitted.c) ------------------------===//

/// The estimate of the kernel lib/lower emits for one kernel op:
///   time = launch + max over resources r of t[r]
/// t[DRAM], t[L2]: traffic at the sustained bandwidths (the roofline's
/// traffic, but a predefined matmul's, which reads through L2 per term);
/// t[SIMT], t[SFU], t[SMEM] (the load/store unit), t[ISSUE]: the busiest
/// SM's instructions at the pipes' peak rates; t[LATENCY]: one block's
/// critical path times the rounds of resident blocks on the busiest SM.
typedef struct MgEmittedCost {
  double time_s;          // launch_s + body_s
  double body_s;          // the largest t[r]
  double t[MG_COST_BOUND_COUNT]; // each resource's time (s); LAUNCH unused
  MgCostBound bound;      // the resource of body_s
  bool planned;           // false: lib/lower has no plan for the kernel
                          // (rejected, or too many ops); the roofline's
                          // figures stand in and t[] is zero
  // Launch and occupancy.
  uint64_t blocks;
  int64_t threads;
  int64_t smem_bytes;     // per block (the plan's)
  int regs_thread;        // assumed (MgGpu.regs_thread), or ptxas's
  bool facts;             // registers, smem, stages from ptxas (MgKernelFacts)
  uint32_t stages;        // cp.async stages the estimate assumed (0: none)
  uint32_t resident;      // blocks per SM that fit at once
  char limit;             // what bounds them: 't'hreads, 'r'egisters,
                          // 's'hared memory, 'b'lock count per SM
  uint32_t rounds;        // ceil(ceil(blocks / SMs) / resident)
  double inflight_bytes;  // global bytes an SM has in flight in the main
                          // phase (the for-loop's if it loads tiles)
  // One block's critical path (s) and its parts.
  double block_s, path_memory_s, path_chain_s, path_barrier_s;
  uint32_t barriers_per_iteration;
  int64_t forloop;
  bool pipelined;
  // The whole kernel's work.
  double dram_bytes, l2_bytes;
  double fma;             // FP32 multiply-adds of the emitted loops
  double fp32_ops;        // FP32-pipe instructions (thread level): FMAs,
                          // adds, compares, conversions, libdevice bodies
  double sfu_ops;         // special-function instructions
  double lsu_cycles;      // load/store-unit cycles: a warp-wide access of
                          // up to 128 bytes, or a shuffle, takes one
  double instructions;    // thread-level instructions counted
  double tensor_flops;    // block matmuls on tensor cores (none yet)
} MgEmittedCost;

/// The emitted model's estimate for op `op` of the root graph of `program`
/// on `gpu` (NULL: the default). False, with `out` zeroed, when the op gets
/// no kernel (an input, a free view) or is out of range.
MG_API bool mg_cost_emitted_kernel(const MgProgram *program, MgOpId op,
                                   const MgGpu *gpu, MgEmittedCost *out);

/// The emitted model's estimate of the whole program: the sum over its
/// kernels. 0 for an empty program.
MG_API double mg_cost_emitted_program(const MgProgram *program,
                                      const MgGpu *gpu);

//===--- What ptxas made of a kernel (facts.c) ----------------------------===//

/// The facts of one compiled kernel: what `ptxas -v` reports and the
/// cp.async depth its PTX waits with. They replace the model's guesses
/// (registers per thread, the plan's shared memory and stages) in
/// mg_cost_emitted_kernel_facts; docs/cost.md, "Facts from ptxas".
typedef struct MgKernelFacts {
  bool known;           // false: no facts, the model's guesses stand
  int registers;        // per thread ("Used N registers")
  int64_t smem_static;  // static shared memory, bytes ("N bytes smem")
  int64_t stack_bytes;  // stack frame per thread
  int64_t spill_stores; // bytes of spill stores (static, not executed)
  int64_t spill_loads;  // bytes of spill loads
  int async_wait;       // largest N of the PTX's cp.async.wait_group N;
                        // -1: none
} MgKernelFacts;

/// Reads `log` (what `ptxas -v` printed) and `ptx` (the module it
/// assembled; NULL: no cp.async depth) into `facts[op]` for each kernel
/// named "<module>_k<op>" with op < num_ops (lib/lower's names); other
/// entries are left as they are. Returns how many kernels it filled.
MG_API uint32_t mg_cost_facts_parse(const char *log, const char *ptx,
                                    const char *module, MgKernelFacts *facts,
                                    uint32_t num_ops);

/// mg_cost_emitted_kernel with `facts` (NULL or not known: the same):
/// resident blocks from its registers, floor(regs/SM / (roundup(regs, 8)
/// x threads)), and its static shared memory plus the launch's dynamic
/// shared memory; a pipelined for-loop's or the GEMV ring's stages from
/// its cp.async depth (wait_group S - 2, the GEMV's S - 1); the loads a
/// synchronous copy keeps in flight no more than its registers hold.
MG_API bool mg_cost_emitted_kernel_facts(const MgProgram *program, MgOpId op,
                                         const MgGpu *gpu,
                                         const MgKernelFacts *facts,
                                         MgEmittedCost *out);

/// The program's estimate with `facts[op]` per root op (num_ops entries,
/// or NULL: mg_cost_emitted_program).
MG_API double mg_cost_emitted_program_facts(const MgProgram *program,
                                            const MgGpu *gpu,
                                            const MgKernelFacts *facts);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_COST_H
