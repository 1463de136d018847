//===- gemv.h - The GEMV writers' shared pieces (write/) ------------------===//
//
// The split-K form (gemv.c), its k loop (gemv_loop.c), the warp's shuffles
// and the CPU emulation of its lanes (gemv_warp.c), the dot form
// (gemv_dot.c) and the fused epilogue (fused.c). Calls go gemv.c ->
// gemv_dot.c -> gemv_loop.c, gemv_warp.c, fused.c -> elements.c, never
// back; the shape they write is decided in decide/gemv_plan.h.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_WRITE_GEMV_H
#define MIRAGE_LIB_LOWER_WRITE_GEMV_H

#include "decide/gemv_plan.h"
#include "write/write.h"

/// The shared buffers of one GEMV kernel: the warps' partial sums and
/// the fused form's statistics (GPU: workgroup attributions; CPU: buffers).
typedef struct GemvBufs {
  Name part, stat;
  char part_type[TYPE_LEN], stat_type[TYPE_LEN];
} GemvBufs;

/// The epilogue of an output of the block's local row `m` whose sums (one
/// per B stream) are `sums`: the statistics of row m added over the slices
/// from `bf->stat`, the ops applied in f32; the value saved into `out`.
/// The epilogue of an output of the block's local row `m` whose sums (one
/// per B stream) are `sums`: the statistics of row m added over the slices
/// from `bf->stat`, the ops applied in f32; the value saved into `out`.
void mg_lower_fused_finish(Emit *e, const Gemv *g, const char *m,
                           const Name *sums, const GemvBufs *bf, Name out);

//===--- Shared by the split-K form (gemv.c) and the dot form (gemv_dot.c) ===//

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
void mg_gemv_dot_gpu(Emit *e, const Gemv *g, const char *smem);
void mg_gemv_dot_cpu(Emit *e, const Gemv *g);

#endif // MIRAGE_LIB_LOWER_WRITE_GEMV_H
