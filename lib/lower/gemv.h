//===- gemv.h - The split-K GEMV's shape, shared by gemv.c and fused.c ----===//
//
// A Gemv describes one kernel of gemv.c's split-K form: C = A·B over the
// root graph's tensors a, b, c. For a kernel-level matmul it is derived
// from the op (gemv.c); for a graph-defined kernel that is a GEMV with
// row statistics and an epilogue (fused.c) it also names the block graph's
// statistics (sums over K of A's elements or squares, accumulated beside
// the FMAs from the same scalars of A) and the element-wise ops after the
// loop, applied to each output as it is stored. Such a graph may have
// several matmuls sharing A, one per B stream (the gated MLP's W1 and
// W3): the block's column groups are the streams' side by side ("virtual
// columns"), so each thread still holds one stream's M x V sums.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_GEMV_H
#define MIRAGE_LIB_LOWER_GEMV_H

#include "lower_internal.h"

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
/// the fused form's statistics (GPU: workgroup attributions; CPU: buffers).
typedef struct GemvBufs {
  Name part, stat;
  char part_type[TYPE_LEN], stat_type[TYPE_LEN];
} GemvBufs;

/// The epilogue of an output of the block's local row `m` whose sums (one
/// per B stream) are `sums`: the statistics of row m added over the slices
/// from `bf->stat`, the ops applied in f32; the value saved into `out`.
void mg_lower_fused_finish(Emit *e, const Gemv *g, const char *m,
                           const Name *sums, const GemvBufs *bf, Name out);
/// The statistics buffer's type (f32 [stat][slice][row], in workgroup
/// memory on the GPU).
void mg_lower_fused_stat_type(const Gemv *g, bool gpu, char *out,
                              size_t size);

//===--- Shared by the split-K form (gemv.c) and the dot form (gemv_dot.c) ===//

#define SLICES GEMV_SLICES

/// A warp's values on their way through the shuffle stages (gemv.c).
enum { MAX_VALUES = GEMV_MAX_ROWS * 8 };

typedef struct Warp {
  const Gemv *g;
  bool cpu;
  int64_t n;  // values per lane
  Name tid;   // the thread: gpu.thread_id, or the CPU form's loop variable
  Name val[MAX_VALUES], recv[MAX_VALUES], pos, store; // GPU: SSA values
  Name regs, xchg, posb, flagb; // CPU form: per-thread buffers
  char regs_type[TYPE_LEN];
} Warp;

/// "%r, %c" etc.: a 2-D index of `t` (leading unit dims get `zero`).
void mg_gemv_at2(const MgTensor *t, const char *row, const char *col,
                 const char *zero, char *out, size_t size);
/// "a, b, c": the first `n` of `names`.
void mg_gemv_join_names(Name *names, int64_t n, char *out, size_t size);
/// The CPU form's loop over the block's threads (a segment), opened and
/// closed; nothing on the GPU.
void mg_gemv_lanes_open(Emit *e, Warp *w);
void mg_gemv_lanes_close(Emit *e, const Warp *w);
/// Value `i` of the thread's lane: set; the lane's position (0) or store
/// flag (1): get and set.
void mg_gemv_reg_set(Emit *e, Warp *w, int64_t i, const char *v);
void mg_gemv_state_get(Emit *e, Warp *w, int which, Name out);
void mg_gemv_state_set(Emit *e, Warp *w, int which, const char *v);
/// One shuffle stage at lane offset `o` (halving while the count is even,
/// else a butterfly).
void mg_gemv_meet_stage(Emit *e, Warp *w, int64_t o);
/// Where a lane's values go: value i of the lane at position `pos` is
/// item pos + i of rows `width` wide from column `base` (index values).
typedef struct HeldAt {
  const char *pos, *width, *base;
} HeldAt;
/// Value `i` of the lane (`v`) and its place `rc`: row, column.
void mg_gemv_held_value(Emit *e, Warp *w, const HeldAt *at, int64_t i,
                        Name v, Name rc[2]);
/// C[row][col] = v (f32), rounded to C's type.
void mg_gemv_store_output(Emit *e, const Gemv *g, const char *row,
                          const char *col, const char *v);
/// The CPU form's loop over the blocks, opened (closed by the caller).
void mg_gemv_cpu_blocks_begin(Emit *e, const Gemv *g, Name bid);
/// A loop of the block's threads over `total` items in rows of `width`;
/// `rc` gets the item's row and column.
void mg_gemv_strided_items_begin(Emit *e, const Gemv *g, const char *tid,
                                 int64_t total, int64_t width, Name rc[2]);
/// The CPU form's per-thread buffers and a block scratch `buf`.
void mg_gemv_cpu_buffers_alloc(Emit *e, Warp *w, Name buf,
                               const char *buf_type);
void mg_gemv_cpu_buffers_free(Emit *e, const Warp *w, const char *buf,
                              const char *buf_type);

#define GEMV_MAX_UNROLL 8
#define GEMV_MAX_ACCS (GEMV_MAX_ROWS * (1 + GEMV_MAX_STATS))

/// Block `bid`'s column block and first row (its row group's): with one
/// row group the block index itself and no row offset (has_row0 false).
typedef struct BlockAt {
  Name colblock, row0;
  bool has_row0;
} BlockAt;

/// The ring of B's vectors (gemv.c's header): on the GPU a workgroup
/// attribution, in the CPU form a buffer of the same shape; `slot` names
/// the stage read back.
typedef struct Ring {
  Name buf, tid, slot;
  char type[TYPE_LEN];
} Ring;

/// Where a thread works: its column group (of the block's cg), K slice,
/// first column of its stream, whether the group holds columns, and the
/// memref of its B stream; c0 an index 0 (set by mg_gemv_partials).
typedef struct Lane {
  const Gemv *g;
  Name cg, slice, col, valid, vw, c0, bmem;
  BlockAt blk;
} Lane;

/// The k loop (gemv_loop.c): block `bid`'s place; thread `tid`'s lane;
/// its partial sums (mg_gemv_accs of them) into `acc`, zeros for a lane
/// past the block's column groups; the ring's type.
void mg_gemv_block_at(Emit *e, const Gemv *g, const char *bid, BlockAt *b);
void mg_gemv_lane_of(Emit *e, const Gemv *g, const char *bid,
                     const char *tid, Lane *l);
void mg_gemv_partials(Emit *e, Lane *l, Ring *ring, Name *acc);
void mg_gemv_ring_type(const Gemv *g, bool gpu, char *out, size_t size);

/// The dot form (gemv_dot.c): B stored transposed.
bool mg_gemv_dot_shape(const MgGraph *r, const MgOp *op, Gemv *g);
void mg_gemv_dot_gpu(Emit *e, const Gemv *g, const char *smem);
void mg_gemv_dot_cpu(Emit *e, const Gemv *g);
void mg_gemv_dot_smem_type(const Gemv *g, bool gpu, char *out, size_t size);

#endif // MIRAGE_LIB_LOWER_GEMV_H
