//===- gemv.h - The split-K GEMV's shape, shared by gemv.c and fused.c ----===//
//
// A Gemv describes one kernel of gemv.c's split-K form: C = A·B over the
// root graph's tensors a, b, c. For a kernel-level matmul it is derived
// from the op (gemv.c); for a graph-defined kernel that is a GEMV with
// row statistics and an epilogue (fused.c) it also names the block graph's
// statistics (sums over K of A's elements or squares, accumulated beside
// the FMAs from the same scalars of A) and the element-wise ops after the
// loop, applied to each output as it is stored.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_GEMV_H
#define MIRAGE_LIB_LOWER_GEMV_H

#include "lower_internal.h"

#define GEMV_SLICES 32
#define GEMV_MAX_ROWS 8      // per block: a row group
#define GEMV_MAX_STATS 2     // fused: row statistics per kernel
#define GEMV_MAX_EPILOGUE 16 // fused: element-wise ops after the loop

typedef struct Gemv {
  int64_t m, k, n, v, blocks; // m: rows per block; blocks: all of them
  int64_t rows, rgroups, colblocks; // A's rows = rgroups row groups of m
  int64_t cg;      // column groups per block; 32·cg threads
  int64_t cgv;     // of which hold columns (fused: the block graph's tile
                   // may be narrower than cg groups; else cg)
  int64_t unroll;  // rows of B each thread loads before it uses them
  int64_t stages;  // ring stages of `unroll` rows (0: loads to registers)
  MgDType dt;     // of A and B
  MgTensorId a, b, c;
  bool dot;        // B stored transposed (the dot form): cols per warp,
  int64_t cols, chunk; // K per staging of A in shared memory, and
  int accw;            // f32 lanes of a sum's partial accumulator
  // Fused (a graph-defined kernel, fused.c): tensors of block graph `blk`.
  bool fused;
  const MgGraph *blk;
  int nstats;                        // row statistics
  bool stat_sq[GEMV_MAX_STATS];      // Σ a² (else Σ a)
  MgTensorId stat_t[GEMV_MAX_STATS]; // their accumulators' results
  MgTensorId mm_t;                   // the matmul's value after the loop
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
/// The epilogue of an output of the block's local row `m` whose sum is
/// `sum`: the statistics of row m added over the slices from `stat` (of
/// type `stat_type`), the ops applied in f32; the value saved into `out`.
void mg_lower_fused_finish(Emit *e, const Gemv *g, const char *m,
                           const char *sum, const char *stat,
                           const char *stat_type, Name out);
/// The statistics buffer's type (f32 [stat][slice][row], in workgroup
/// memory on the GPU).
void mg_lower_fused_stat_type(const Gemv *g, bool gpu, char *out,
                              size_t size);

#endif // MIRAGE_LIB_LOWER_GEMV_H
