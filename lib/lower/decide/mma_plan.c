//===- mma_plan.c - Which block matmuls run on tensor cores ---------------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mg_lower_mma_plan(const MgGraph *b, const MgOp *op, bool tensor_cores,
                       MgMmaPlan *plan) {
  // A loop over a symbol masks its last rows per term (write/ops.c): the
  // FP32 dot products, not fragments.
  if (!tensor_cores || b->level != MG_LEVEL_BLOCK || op->kind != MG_OP_MATMUL ||
      b->forloop_sym)
    return false;
  int64_t threads = mg_lower_coop_threads(b);
  if (!threads)
    return false;
  MgTensorId ia = op->inputs[0], ib = op->inputs[1];
  if (!mg_lower_is_tile(b, ia) || !mg_lower_is_tile(b, ib))
    return false;
  MgDType dt = mg_lower_kept_dtype(b, ia);
  if (dt != mg_lower_kept_dtype(b, ib) ||
      (dt != MG_DTYPE_F16 && dt != MG_DTYPE_BF16))
    return false;
  const MgTensor *a = &b->tensors[ia], *bt = &b->tensors[ib];
  const MgTensor *out = &b->tensors[op->outputs[0]];
  if (a->rank < 2 || bt->rank < 2 || out->rank < 2)
    return false;
  int64_t m = out->dims[out->rank - 2], n = out->dims[out->rank - 1];
  int64_t k = a->dims[a->rank - 1];
  if (m % MMA_M || n % MMA_N || k % MMA_K ||
      bt->dims[bt->rank - 2] != k || a->dims[a->rank - 2] != m ||
      bt->dims[bt->rank - 1] != n)
    return false;
  int64_t batch = mg_tensor_numel(out) / (m * n), warps = threads / WARP;
  // The largest warp tile (at most 2 x 4 mma tiles: 32 accumulator
  // registers) that still gives every warp one; else single mma tiles.
  static const int64_t shapes[][2] = {{2, 4}, {2, 2}, {1, 4},
                                      {2, 1}, {1, 2}, {1, 1}};
  int64_t tm = 1, tn = 1;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    int64_t sm_ = shapes[s][0], sn = shapes[s][1];
    if ((m / MMA_M) % sm_ || (n / MMA_N) % sn)
      continue;
    if (batch * (m / MMA_M / sm_) * (n / MMA_N / sn) >= warps) {
      tm = sm_;
      tn = sn;
      break;
    }
  }
  if (plan) {
    plan->m = m;
    plan->n = n;
    plan->k = k;
    plan->tm = tm;
    plan->tn = tn;
    plan->mt = m / (MMA_M * tm);
    plan->nt = n / (MMA_N * tn);
    plan->batch = batch;
    plan->warps = warps;
    plan->dtype = dt;
  }
  return true;
}

bool mg_lower_target_has_mma(const MgTarget *target) {
  return target->sm >= 80;
}

bool mg_lower_emits_mma(const Emit *e) {
  return !e->fma_matmuls && mg_lower_target_has_mma(e->target);
}
