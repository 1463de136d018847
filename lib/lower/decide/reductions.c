//===- reductions.c - Cooperative reductions and staggered rows -----------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const MgTensor *tensor(Emit *e, MgTensorId id) {
  return &e->g->tensors[id];
}

// Warps per result element for a reduction of n terms over `numel`
// elements; 0: sequential per element (with at least as many elements as
// threads none sits idle; `reduce` staggers contiguous terms).
int64_t mg_lower_coop_warps(Emit *e, int64_t numel, int64_t n) {
  int64_t threads = e->coop_threads, warps = threads / 32;
  if (!threads || n < 32 || numel >= threads)
    return 0;
  // Inside the for-loop a cross-warp combine would add a barrier to every
  // iteration: one warp per element there.
  if (e->in_loop)
    return 1;
  int64_t m = numel < warps && warps % numel == 0 ? warps / numel : 1;
  return 32 * m <= n ? m : 1;
}

// Are the terms along `dim` adjacent in `t` (every later dim of extent 1)?
static bool terms_contiguous(const MgTensor *t, uint32_t dim) {
  for (uint32_t d = dim + 1; d < t->rank; d++)
    if (t->dims[d] != 1)
      return false;
  return true;
}

int64_t mg_lower_reduction_warps(Emit *e, const MgOp *op) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  const MgTensor *in = tensor(e, op->inputs[0]);
  int64_t n;
  if (op->kind == MG_OP_MATMUL)
    n = in->dims[in->rank - 1];
  else if (op->kind == MG_OP_SUM || op->kind == MG_OP_REDUCE_MAX)
    n = in->dims[op->attr];
  else if (op->kind == MG_OP_ACCUM && (op->acc == MG_ACCUM_SUM_LAST ||
                                       op->acc == MG_ACCUM_SUM_SQ_LAST))
    n = in->dims[in->rank - 1];
  else
    return 0;
  MgMmaPlan plan;
  if (op->kind == MG_OP_MATMUL && mg_lower_mma_plan(e->g, op, mg_lower_emits_mma(e), &plan))
    return 0; // tensor cores: no scratch
  return mg_lower_coop_warps(e, mg_tensor_numel(out), n);
}

// The element dim consecutive threads step along: the last one before
// `dim` of extent > 1 (-1: none).
int mg_lower_stagger_dim(const MgTensor *t, uint32_t dim) {
  for (int d = (int)dim - 1; d >= 0; d--)
    if (t->dims[d] > 1)
      return d;
  return -1;
}

int mg_lower_stagger_ops(const MgTensor *in, uint32_t dim) {
  int64_t n = in->dims[dim];
  if (n < 32 || !terms_contiguous(in, dim) || mg_lower_stagger_dim(in, dim) < 0)
    return 0;
  return (n & (n - 1)) == 0 ? 1 : 4;
}
