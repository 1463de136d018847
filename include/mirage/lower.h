//===- lower.h - μGraph programs as MLIR text for the CPU or the GPU -*- C -*-===//
//
// mg_lower_emit turns a program into upstream MLIR (memref, scf, arith,
// math; gpu for the GPU) as text, op for op as lib/interp runs it, so the
// same semantics hold on both targets:
//  - GPU: one `gpu.func ... kernel` per graph-defined kernel (and per
//    predefined kernel op and view op but a free view, which is a
//    memref view of its operand's buffer) in a `gpu.module`: one workgroup
//    per block,
//    block_threads threads sharing every op's elements in a strided loop,
//    tiles in shared memory, a barrier after every op. Upstream
//    passes take it to NVVM and PTX (docs/lower.md).
//  - host: the `func.func` that launches those kernels in order (grid,
//    block_threads, dynamic shared memory): gpu.alloc / gpu.memcpy /
//    gpu.launch_func, which upstream's gpu-to-llvm takes to the CUDA
//    runtime calls. host=copy (MG_LOWER_HOST_COPY): on tensors (the
//    kernel graph's signature), inputs copied to the device and outputs
//    back on every call. host=device: on device-resident memrefs, inputs
//    read in place, outputs written into buffers the caller passes
//    (destination passing), only intermediates allocated per call.
//  - CPU: one `func.func` over memrefs (inputs, then outputs written in
//    place) that runs the whole program: blocks as loops, tiles in
//    buffers; it is what mirage-run JIT-compiles to check the lowering.
// Values are loaded, computed in f32 and stored back in the tensor's
// element type after every op, as a kernel keeping tiles in their declared
// types would. On sm_80+ block matmuls of f16/bf16 tiles run on tensor
// cores (ldmatrix + mma.sync, f32 accumulators), which the CPU form
// emulates lane by lane.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LOWER_H
#define MIRAGE_LOWER_H

#include "mirage/graph.h"
#include "mirage/target.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum MgLowerMode {
  MG_LOWER_CPU,
  MG_LOWER_GPU,
  MG_LOWER_HOST,
  MG_LOWER_MODE_COUNT
} MgLowerMode;

/// How the host function exchanges data with its caller (docs/lower.md,
/// "Host code").
typedef enum MgLowerHost {
  MG_LOWER_HOST_COPY,   // @F(tensors) -> tensors, host memory: device
                        // buffers, copies in and out on every call
  MG_LOWER_HOST_DEVICE, // @F(input memrefs, output memrefs) -> (): every
                        // memref device-resident, identity layout,
                        // 16-byte aligned; outputs written in place
  MG_LOWER_HOST_COUNT
} MgLowerHost;

typedef struct MgLowerOptions {
  MgLowerMode mode;
  const char *name;   // symbol: the CPU or host function, or the GPU module
                      // (its kernels are "<module>_k<op>")
  const char *module; // host: the GPU module the kernels are in
  bool c_interface;   // CPU: mark the function llvm.emit_c_interface (the
                      // host=device function always is)
  MgLowerHost host;   // host: the calling convention (0: copy)
  const char *tensor_adapter; // host=device: when not NULL, also a private
                      // function of this name with the tensor signature
                      // that calls the host function on its operands'
                      // buffers (for callers inside the module)
} MgLowerOptions;

/// The launch of kernel op `op` of the root graph: a custom op's grid and
/// block threads; a kernel-level matmul of at most 8 rows, the split-K
/// GEMV's; another predefined op's grid-stride launch. The host launches
/// with it and the kernel declares it (known_grid_size, known_block_size).
MG_API void mg_lower_launch(const MgProgram *p, MgOpId op, int64_t grid[3],
                            int64_t *threads);
/// True when root op `op` becomes a GPU kernel of its own: any op but an
/// input and a free view (a reshape of a contiguous buffer in its own
/// element type, or a transpose or slice that is one, lowered as a memref
/// view of that buffer).
MG_API bool mg_lower_is_kernel(const MgProgram *p, MgOpId op);
/// Threads per block of a predefined op's kernel (a grid-stride loop over
/// its result's elements, or a view op's vectors) and the grid it is
/// launched with.
#define MG_LOWER_PREDEFINED_THREADS 256
MG_API int64_t mg_lower_predefined_blocks(const MgProgram *program,
                                          MgOpId op);

/// Appends the lowering of a valid program to `out`. INVALID when the
/// program uses what the lowering does not support (ranks, kinds), NOMEM
/// when the text could not grow. For the default target, sm_90.
MG_API MgStatus mg_lower_emit(const MgProgram *program,
                              const MgLowerOptions *options, MgText *out,
                              MgDiag *diag);
/// The same for `target` (mg_target_lookup("sm_80"); NULL: the default,
/// sm_90, resolved here once: the emitter below never sees NULL). On a
/// target of compute capability 8.0 or more (MgTarget.sm >= 80) block
/// matmuls of f16 or bf16 tiles whose dims are multiples of the m16n8k16
/// shape run on tensor cores (ldmatrix + mma.sync), and the CPU form
/// emulates the same fragments; below, and for other matmuls, on the FP32
/// lanes (docs/lower.md).
MG_API MgStatus mg_lower_emit_for(const MgProgram *program,
                                  const MgLowerOptions *options,
                                  const MgTarget *target, MgText *out,
                                  MgDiag *diag);

/// NULL when the lowering takes `p`'s symbolic dims (issue 29) in `mode`
/// with `host`, else what it cannot take yet (static programs: NULL). A
/// program it cannot take fails mg_lower_emit with UNSUPPORTED.
MG_API const char *mg_lower_symbols_unsupported(const MgProgram *p,
                                                MgLowerMode mode,
                                                MgLowerHost host);

/// Shared memory the tiles of root op `op` take (each 16-byte aligned; 0
/// for a predefined op; for a ug.custom lowered as a GEMV with an
/// epilogue, lib/lower/decide/fused_plan.c, its partial sums, ring and statistics).
MG_API int64_t mg_lower_tile_bytes(const MgProgram *program, MgOpId op);
/// Tiles up to this many bytes are static workgroup buffers; above it (the
/// CUDA limit for static shared memory) they are views of dynamic shared
/// memory that the launch sizes.
#define MG_LOWER_STATIC_SMEM 49152
/// Dynamic shared memory bytes to launch the GPU kernel of root op `op`
/// with: its tile bytes when above MG_LOWER_STATIC_SMEM, else 0.
MG_API int64_t mg_lower_smem_bytes(const MgProgram *program, MgOpId op);

//===--- What the lowering emits for a kernel (plan.c) --------------------===//
//
// A plan states, for one kernel op, the structure of the GPU kernel that
// mg_lower_emit writes for it, taken from the lowering's own decisions:
// the cost model of the emitted code (lib/cost, docs/cost.md) estimates
// the plan rather than an idealised implementation of the μGraph.

/// The form of a kernel op's GPU kernel.
typedef enum MgLowerForm {
  MG_LOWER_FORM_NONE,   // no kernel: an input, a free view
  MG_LOWER_FORM_BLOCKS, // a graph-defined kernel: one workgroup per block
  MG_LOWER_FORM_GRID,   // a predefined op: threads stride over its result,
                        // one element each per step, reductions (and a
                        // matmul's k) sequential per element from DRAM
  MG_LOWER_FORM_GEMV,   // a kernel-level matmul of few rows: split-K GEMV
  MG_LOWER_FORM_COPY,   // a view op's copy kernel
  MG_LOWER_FORM_COUNT
} MgLowerForm;

/// When a block-graph op runs.
typedef enum MgLowerPhase {
  MG_LOWER_PHASE_BEFORE, // once before the for-loop: loop-invariant tiles
                         // and what only they feed
  MG_LOWER_PHASE_LOOP,   // every for-loop iteration (accumulators: their
                         // update; their fill runs before the loop)
  MG_LOWER_PHASE_AFTER,  // once after the for-loop (savers among them)
  MG_LOWER_PHASE_COUNT
} MgLowerPhase;

/// One op of a block graph (inputs excluded) as emitted.
typedef struct MgLowerStep {
  MgOpId op;         // the block-graph op
  uint8_t phase;     // MgLowerPhase
  bool registers;    // its result stays in registers: it is computed in
                     // its reader's element loop (a fused chain, a matmul
                     // into its sum accumulator) and gets no tile
  // Iterators and savers: the copy between the tile and the kernel tensor.
  int64_t vector;    // elements per global access: a 16-byte vector's
                     // worth, or 1 (element by element)
  bool async;        // iterator: cp.async into a stage of the pipeline,
                     // S - 1 iterations ahead, or (mg_lower_is_async_load)
                     // in a batch waited for once (all its copies in flight)
  bool stored_order; // iterator of a kernel tensor with a layout (an
                     // input stored transposed, a folded view) whose rows
                     // are not read as stored: read in stored order,
                     // `vector` elements along the dim contiguous in memory
  bool scattered;    // stored_order: each element goes into the tile by a
                     // shared store of its own (strided); false when a
                     // vector's elements are contiguous in the tile (one
                     // vector store)
  // Reductions: matmul's k, sum, reduce_max, the sum_last accumulators.
  int64_t terms;     // terms per result element (0: not a reduction)
  int64_t warps;     // warps per result element: 0, each thread reduces its
                     // elements in turn; 1, the lanes of one warp and a
                     // butterfly of 5 shuffles; m > 1, m warps meeting in
                     // the shared scratch after a barrier
  bool mma;          // a matmul on tensor cores (mg_lower_uses_mma)
  int stagger_ops;   // warps 0: index ops per term staggering each row's
                     // first term against bank conflicts (0: none)
} MgLowerStep;

#define MG_LOWER_PLAN_MAX_STEPS 64

/// The plan of one kernel op.
typedef struct MgLowerKernelPlan {
  MgLowerForm form;
  int64_t grid[3];          // the launch (mg_lower_launch)
  int64_t threads;
  int64_t forloop;          // the block graph's F (1 for other forms)
  bool pipelined;           // the for-loop is a cp.async pipeline of
                            // `stages` stages (mg_lower_stages)
  uint32_t async_batches;   // not pipelined: waits for batches of cp.async
                            // tile copies per iteration (lib/lower/decide/batches.c)
  int64_t smem_bytes;       // shared memory per block: tiles (every stage
                            // where staged), online state, the reduction
                            // scratch, the GEMV's partial sums and ring
  int64_t dynamic_smem_bytes; // of which launched as dynamic memory
  int64_t coop_threads;     // threads that reduce cooperatively (whole
                            // warps), 0: every reduction sequential
  // gpu.barrier ops the kernel runs before the for-loop, per iteration
  // (nested ones included: the online rescale's) and after it.
  uint32_t barriers_before, barriers_per_iteration, barriers_after;
  int64_t vector;           // GRID, COPY, GEMV: elements per global access
                            // of the operand streamed (B for the GEMV)
  int64_t unroll;           // GEMV: rows of B each thread loads before it
                            // uses them (then one at a time for the rest)
  int64_t stages;           // GEMV: stages of `unroll` rows in the cp.async
                            // ring of B in shared memory (0: no ring, B's
                            // vectors are loaded into registers); BLOCKS:
                            // the pipeline's stages (0: not pipelined)
  int64_t rows;             // GEMV: rows of A per block (its row group;
                            // A's rows / rows blocks read each column of B)
  int64_t cols;             // GEMV with B stored transposed: columns per
                            // warp (dot products along K; 0: split-K form)
  int64_t acc_lanes;        // its sums' partial accumulators: f32 lanes
  // GEMV: A's and B's kernel tensors (a matmul's operands, or a ug.custom's
  // that lowers as a GEMV with an epilogue: lib/lower/decide/fused_plan.c).
  MgTensorId gemv_a, gemv_b;
  int64_t col_groups;       // GEMV: of the threads / 32 column groups of a
                            // block, those holding columns (fewer when a
                            // fused tile is narrower; the others idle)
  int64_t streams;          // fused GEMV: B streams sharing A (matmuls
                            // side by side in col_groups; 1 otherwise)
  int64_t stats;            // fused GEMV: per-row sums of A (or squares)
                            // accumulated beside the FMAs
  uint32_t num_epilogue;    // fused GEMV: element-wise ops per output
  uint8_t epilogue[16];     // their MgOpKinds, in order
  uint32_t num_steps;       // BLOCKS: the block graph's ops but inputs,
  MgLowerStep steps[MG_LOWER_PLAN_MAX_STEPS]; // in graph order
} MgLowerKernelPlan;

/// The plan of kernel op `op` of the root graph on `target` (NULL: the
/// default, sm_90). False (form NONE) when the op gets no
/// kernel, is out of range, the lowering rejects it, or its block graph
/// has more than MG_LOWER_PLAN_MAX_STEPS ops.
MG_API bool mg_lower_kernel_plan(const MgProgram *program, MgOpId op,
                                 const MgTarget *target,
                                 MgLowerKernelPlan *plan);

/// Whether block matmul `op` of block graph `block` runs on tensor cores
/// (ldmatrix + mma.sync) on `target` (NULL: sm_90): the one place the plan takes that
/// decision from. False for now: the plan and the cost model describe
/// block matmuls as the FMA loops of ops.c (two shared loads per
/// multiply-add), although mma.c now lowers qualifying ones (f16/bf16,
/// m % 16, n % 8, k % 16, sm_80+) to tensor cores. To switch: return
/// mg_lower_mma_plan's decision here, count the plan's barriers in the
/// kernel emitted for the same target (plan.c), and give the cost model
/// the mma path's costs (lib/cost/emitted.c, `reduction`).
MG_API bool mg_lower_uses_mma(const MgGraph *block, const MgOp *op,
                              const MgTarget *target);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_LOWER_H
