//===- gemv_plan.h - The split-K GEMV's shape (decide/) -----------------===//
//
// A Gemv describes one kernel of write/gemv.c's split-K form: C = A·B over the
// root graph's tensors a, b, c. For a kernel-level matmul it is derived
// from the op (gemv_plan.c); for a graph-defined kernel that is a GEMV with
// row statistics and an epilogue (fused_plan.c) it also names the block graph's
// statistics (sums over K of A's elements or squares, accumulated beside
// the FMAs from the same scalars of A) and the element-wise ops after the
// loop, applied to each output as it is stored. Such a graph may have
// several matmuls sharing A, one per B stream (the gated MLP's W1 and
// W3): the block's column groups are the streams' side by side ("virtual
// columns"), so each thread still holds one stream's M x V sums.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_GEMV_PLAN_H
#define MIRAGE_LIB_LOWER_GEMV_PLAN_H

#include "decide/decide.h"

#define GEMV_SLICES 32
#define GEMV_MAX_ROWS 8      // per block: a row group
#define GEMV_MAX_STATS 2     // fused: row statistics per kernel
#define GEMV_MAX_EPILOGUE 16 // fused: element-wise ops after the loop
#define GEMV_MAX_B 4         // fused: B streams (matmuls sharing A)

typedef struct Gemv {
  int64_t m, k, n, v, blocks; // m: rows per block; blocks: all of them
  int64_t rows, rgroups, colblocks; // A's rows = rgroups row groups of m
  int64_t cg;      // column groups per block; 32·cg threads
  int64_t cgv;     // of which hold columns (fused: the block graph's tile
                   // may be narrower than cg groups; else cg)
  int64_t cgb;     // column groups per B stream: cgv = nb · cgb
  int nb;          // B streams (1 but for a fused graph's shared A)
  int64_t unroll;  // rows of B each thread loads before it uses them
  int64_t stages;  // ring stages of `unroll` rows (0: loads to registers)
  MgDType dt;     // of A and B
  MgTensorId a, b, c;  // b: the first B stream, bs[0]
  MgTensorId bs[GEMV_MAX_B];
  bool dot;        // B stored transposed (the dot form): cols per warp,
  int64_t cols, chunk; // K per staging of A in shared memory, and
  int accw;            // f32 lanes of a sum's partial accumulator
  // Fused (a graph-defined kernel, fused.c): tensors of block graph `blk`.
  bool fused;
  const MgGraph *blk;
  int nstats;                        // row statistics
  bool stat_sq[GEMV_MAX_STATS];      // Σ a² (else Σ a)
  MgTensorId stat_t[GEMV_MAX_STATS]; // their accumulators' results
  MgTensorId mm_t[GEMV_MAX_B];       // the matmuls' values after the loop
  MgTensorId out_t;                  // what the saver stores
  uint32_t nepi;                     // the epilogue's ops, in graph order
  MgOpId epi[GEMV_MAX_EPILOGUE];
} Gemv;

/// Accumulators a thread carries through its k loop: M vectors of V f32
/// sums, then M f32 sums per statistic.
static inline int64_t mg_gemv_accs(const Gemv *g) {
  return g->m * (1 + g->nstats);
}

/// Fills `g`'s shape (all but unroll and stages) when kernel op `kop`, a
/// ug.custom, is a GEMV with row statistics and an element-wise epilogue
/// (fused.c's header); false otherwise.
bool mg_lower_fused_shape(const MgProgram *p, const MgOp *kop, Gemv *g);
/// Bytes of the fused form's statistics buffer (f32 [stat][slice][row]).
int64_t mg_lower_fused_stat_bytes(const Gemv *g);
/// The shared buffers of one GEMV kernel: the warps' partial sums and
/// The statistics buffer's type (f32 [stat][slice][row], in workgroup
/// memory on the GPU).
void mg_lower_fused_stat_type(const Gemv *g, bool gpu, char *out,
                              size_t size);

#define SLICES GEMV_SLICES
#define GEMV_MAX_UNROLL 8
// The dot form (write/gemv_dot.c): warps per block, rows of A at most.
#define DOT_WARPS 8
#define DOT_MAX_ROWS 16
#define GEMV_MAX_ACCS (GEMV_MAX_ROWS * (1 + GEMV_MAX_STATS))

/// Fills `g` (unroll and stages included) when kernel op `op` is a GEMV:
/// a kernel-level matmul or a fused ug.custom (fused_plan.c).
bool mg_lower_gemv_shape(const MgProgram *p, const MgOp *op, Gemv *g);
/// The warps' partial sums, f32 [warp][row][column of the block]: in
/// workgroup memory on the GPU.
void mg_lower_gemv_partials_type(const Gemv *g, bool gpu, char *out,
                                 size_t size);
/// The ring's type (write/gemv_loop.c reads it).
void mg_gemv_ring_type(const Gemv *g, bool gpu, char *out, size_t size);
/// The dot form (write/gemv_dot.c): B stored transposed.
bool mg_gemv_dot_shape(const MgGraph *r, const MgOp *op, Gemv *g);
void mg_gemv_dot_smem_type(const Gemv *g, bool gpu, char *out, size_t size);

#endif // MIRAGE_LIB_LOWER_GEMV_PLAN_H
