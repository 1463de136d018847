//===- exec_internal.h - Executor state shared by lib/interp ----*- C -*-===//
//
// The executor keeps one MgExecValue per tensor of the graph it is running.
// Invariants:
//  - a value either owns `buf.data` (capacity `cap` cells, cap >= numel of
//    buf's shape) or borrows it (`borrowed`, cap == 0) from a graph input or
//    an enclosing graph; borrowed data is never written or freed;
//  - every tensor shape is computed at run time from the operands (the
//    declared shapes are only used to size kernel outputs of savers and to
//    check the root inputs), so a wrong declaration yields a diagnostic, not
//    an out-of-bounds access;
//  - all arithmetic goes through the domain, one call per array or tile;
//    the helpers here only move cells.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_INTERP_EXEC_INTERNAL_H
#define MIRAGE_LIB_INTERP_EXEC_INTERNAL_H

#include "mirage/interp.h"

/// Scratch slots: each op helper uses only its own slots, and only while it
/// runs, so nested graphs (thread graphs inside a block) can share them.
typedef enum MgExecScratch {
  MG_EXEC_SCRATCH_LHS,  // broadcast expansion of a binary lhs
  MG_EXEC_SCRATCH_RHS,  // broadcast expansion of a binary rhs
  MG_EXEC_SCRATCH_PERM, // reduction transpose
  MG_EXEC_SCRATCH_SQ,   // squared tile of a SUM_SQ_LAST accumulator
  MG_EXEC_SCRATCH_RED,  // reduced tile of a SUM_LAST accumulator
  MG_EXEC_SCRATCH_MAX,  // ONLINE accumulator: the new running max
  MG_EXEC_SCRATCH_SCALE,// ONLINE accumulator: exp of a max difference
  MG_EXEC_SCRATCH_TERM, // ONLINE accumulator: the rescaled tile
  MG_EXEC_SCRATCH_COUNT
} MgExecScratch;

typedef struct MgExecValue {
  MgBuffer buf;
  size_t cap;    // cells owned by buf.data; 0 when borrowed or empty
  bool borrowed; // buf.data belongs to someone else
} MgExecValue;

typedef struct MgExec {
  const MgProgram *program;
  const MgDomain *dom;
  void *dctx;
  MgDiag *diag;
  int32_t cur_graph, cur_op; // location reported by mg_interp_fail
  MgCell *scratch[MG_EXEC_SCRATCH_COUNT];
  size_t scratch_cap[MG_EXEC_SCRATCH_COUNT];
} MgExec;

//===--- State (buffer.c) -------------------------------------------------===//

/// Fills the diagnostic at the current location and returns `status`.
MgStatus mg_interp_fail(MgExec *ex, MgStatus status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/// Reports a failing domain call by the op it served.
MgStatus mg_interp_domain_fail(MgExec *ex, MgStatus status, const char *what);
/// `status` of a domain call: MG_STATUS_OK as it is, a failure reported
/// through mg_interp_domain_fail.
MgStatus mg_interp_domain_check(MgExec *ex, MgStatus status, const char *what);
/// Element count of a shape; false on a negative dim, rank > MG_MAX_DIMS or
/// a byte size that does not fit in size_t.
bool mg_interp_numel(uint32_t rank, const int64_t *dims, size_t *out);
/// Gives `v` shape (rank, dims) with owned, uninitialised storage, reusing
/// its allocation when large enough.
MgStatus mg_interp_value_shape(MgExec *ex, MgExecValue *v, uint32_t rank,
                               const int64_t *dims);
/// Makes `v` a read-only view of `buf`.
void mg_interp_value_borrow(MgExecValue *v, const MgBuffer *buf);
/// Frees owned storage; `v` becomes empty.
void mg_interp_value_release(MgExecValue *v);
/// Moves an owned value into `out`, or copies a borrowed one.
MgStatus mg_interp_value_take(MgExec *ex, MgExecValue *v, MgBuffer *out);
/// Copies `src` (shape and cells) into `dst`.
MgStatus mg_interp_value_copy(MgExec *ex, MgExecValue *dst,
                              const MgBuffer *src);
/// A scratch array of at least n cells, valid until the slot is reused.
MgCell *mg_interp_scratch(MgExec *ex, MgExecScratch slot, size_t n);
void mg_interp_exec_dispose(MgExec *ex);

//===--- Cell movement (layout.c) -----------------------------------------===//

void mg_interp_fill(MgCell *dst, MgCell v, size_t n);
/// dst (contiguous, shape dims) = src read with per-dim strides `sstride`
/// (stride 0 repeats an element: broadcasting; any order: transposes).
void mg_interp_strided_copy(const MgCell *src, const int64_t *sstride,
                            MgCell *dst, uint32_t rank, const int64_t *dims);
/// Where a box sits in a dense row-major array: the array's dims and the
/// box's first index, `rank` of each.
typedef struct MgBoxAt {
  const int64_t *dims, *off;
} MgBoxAt;
/// Copies the box `region` at `from` in src to `to` in dst.
void mg_interp_copy_box(const MgCell *src, MgBoxAt from, MgCell *dst,
                        MgBoxAt to, const int64_t *region, uint32_t rank);
/// Right-aligned broadcast of src (srank, sdims) to the shape (rank, dims);
/// the shapes must be compatible.
void mg_interp_broadcast(const MgCell *src, uint32_t srank,
                         const int64_t *sdims, MgCell *dst, uint32_t rank,
                         const int64_t *dims);

//===--- Ops common to every level (ops.c) --------------------------------===//

/// dst(outer, inner) = Σ_j src(outer, j, inner), j < n.
MgStatus mg_interp_reduce(MgExec *ex, const MgCell *src, size_t outer,
                          size_t n, size_t inner, MgCell *dst);
/// The same with max (the domain's MG_OP_MAX) for Σ; n >= 1.
MgStatus mg_interp_reduce_max(MgExec *ex, const MgCell *src, size_t outer,
                              size_t n, size_t inner, MgCell *dst);
/// MG_ACCUM_MAX step: acc = x on the first step of a block, else max(acc, x).
MgStatus mg_interp_accum_max(MgExec *ex, MgExecValue *acc, const MgBuffer *x,
                             bool first);
/// An MG_ACCUM_ONLINE accumulator: its sum, rescaled to the running max,
/// and that max.
typedef struct MgOnlineAcc {
  MgExecValue *acc, *runmax;
} MgOnlineAcc;
/// MG_ACCUM_ONLINE: `count` steps of tile x with max m (broadcasting to x)
/// into `on` (online.c).
MgStatus mg_interp_accum_online(MgExec *ex, MgOnlineAcc on, const MgBuffer *x,
                                const MgBuffer *m, int64_t count, bool first);
/// Runs a matmul, element-wise, SUM or CONCAT op over the value table.
MgStatus mg_interp_eval_basic(MgExec *ex, const MgOp *op, MgExecValue *vals);
/// Input `k` of `op`, or NULL (after a diagnostic) when it was never computed.
const MgBuffer *mg_interp_operand(MgExec *ex, const MgOp *op, uint32_t k,
                                  MgExecValue *vals);

//===--- Kernel-level views (views.c) -------------------------------------===//

/// Runs a TRANSPOSE, RESHAPE or SLICE op over the value table (cells are
/// moved, never combined: no domain call).
MgStatus mg_interp_eval_view(MgExec *ex, const MgOp *op, MgExecValue *vals);

//===--- Graphs (exec.c, block.c) -----------------------------------------===//

/// Checks ids, counts and ranks of graph `gid` so that running it cannot
/// index out of bounds; `level` is the level it must have.
MgStatus mg_interp_check_graph(MgExec *ex, MgGraphId gid, MgLevel level);
/// Runs a kernel or thread graph whose INPUT k is bound to inputs[k]; the
/// results stay in vals (one per tensor, caller-owned, may be reused across
/// calls). With `free_dead`, values are released after their last reader.
MgStatus mg_interp_run_flat(MgExec *ex, MgGraphId gid, const MgBuffer *inputs,
                            uint32_t num_inputs, MgExecValue *vals,
                            bool free_dead);
/// Runs the graph-defined kernel `op` of kernel graph `g` (id gid).
MgStatus mg_interp_run_custom(MgExec *ex, MgGraphId gid, MgOpId oid,
                              MgExecValue *vals);

#endif // MIRAGE_LIB_INTERP_EXEC_INTERNAL_H
