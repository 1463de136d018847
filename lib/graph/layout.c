//===- layout.c - Input layouts: inputs stored as transposed views --------===//
//
// A kernel input may arrive as a transposed view of the caller's array
// (x·Wᵀ reads nn.Linear's weight W as stored). The layout is a property of
// the INPUT op only: every op, interpreter and verifier sees the logical
// tensor; the call boundary, the lowering and the cost model read the
// stored one. A block graph's input takes the layout of the kernel tensor
// its custom op passes, so the lowering of a block graph sees it locally.
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <string.h>

bool mg_op_input_perm(const MgOp *op, uint32_t rank, int8_t *perm) {
  bool set = false;
  for (uint32_t d = 0; op->kind == MG_OP_INPUT && d < rank && d < MG_MAX_DIMS;
       d++)
    set |= op->perm[d] != 0;
  bool moved = false;
  for (uint32_t d = 0; d < rank && d < MG_MAX_DIMS; d++) {
    perm[d] = set ? op->perm[d] : (int8_t)d;
    moved |= perm[d] != (int8_t)d;
  }
  return moved;
}

bool mg_graph_tensor_perm(const MgGraph *g, const MgTensor *t,
                          int8_t *perm) {
  return mg_op_input_perm(mg_graph_op(g, t->producer), t->rank, perm);
}

bool mg_graph_same_layout(const MgGraph *ga, const MgTensor *a,
                          const MgGraph *gb, const MgTensor *b) {
  // A folded view's layout is derived from the whole kernel graph
  // (mg_program_fold_layouts, rerun by the lowering), not checked op by
  // op: it agrees with the computed tensor it receives.
  const MgOp *oa = mg_graph_op(ga, a->producer);
  const MgOp *ob = mg_graph_op(gb, b->producer);
  if ((oa->folded && ob->kind != MG_OP_INPUT) ||
      (ob->folded && oa->kind != MG_OP_INPUT))
    return true;
  int8_t pa[MG_MAX_DIMS], pb[MG_MAX_DIMS];
  mg_graph_tensor_perm(ga, a, pa);
  mg_graph_tensor_perm(gb, b, pb);
  return a->rank == b->rank && memcmp(pa, pb, a->rank) == 0;
}

bool mg_graph_is_permutation(const int8_t *perm, uint32_t rank) {
  bool seen[MG_MAX_DIMS] = {false};
  for (uint32_t d = 0; d < rank; d++) {
    if (perm[d] < 0 || (uint32_t)perm[d] >= rank || seen[perm[d]])
      return false;
    seen[perm[d]] = true;
  }
  return true;
}

void mg_graph_stored_dims(const MgGraph *g, MgTensorId t, int64_t *dims) {
  const MgTensor *x = mg_graph_tensor(g, t);
  int8_t perm[MG_MAX_DIMS];
  // A block input receiving a folded view gets it in its logical shape.
  if (mg_graph_op(g, x->producer)->folded || !mg_graph_tensor_perm(g, x, perm)) {
    memcpy(dims, x->dims, x->rank * sizeof *dims);
    return;
  }
  for (uint32_t d = 0; d < x->rank; d++)
    dims[perm[d]] = x->dims[d];
}

MgTensor mg_graph_stored_tensor(const MgGraph *g, MgTensorId t) {
  MgTensor s = *mg_graph_tensor(g, t);
  mg_graph_stored_dims(g, t, s.dims);
  int8_t perm[MG_MAX_DIMS];
  if (!mg_graph_op(g, s.producer)->folded && mg_graph_tensor_perm(g, &s, perm)) {
    s.sym = 0;
    for (uint32_t d = 0; d < s.rank; d++)
      mg_tensor_set_sym(&s, (uint32_t)perm[d], mg_tensor_sym(mg_graph_tensor(g, t), d));
  }
  return s;
}

MgStatus mg_graph_set_input_perm(MgProgram *p, MgGraphId g, MgTensorId t,
                                 const int8_t *perm, MgDiag *diag) {
  if (!p || g >= p->num_graphs)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "no graph %u", g);
  MgGraph *gr = mg_program_graph(p, g);
  if (t >= gr->num_tensors || gr->ops[gr->tensors[t].producer].kind !=
                                  MG_OP_INPUT)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, -1,
                       "only a graph input has a layout");
  if (gr->level == MG_LEVEL_THREAD)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, -1,
                       "thread-graph inputs are tiles: they have no layout");
  MgOp *op = mg_graph_producer(gr, t);
  uint32_t rank = gr->tensors[t].rank;
  if (!mg_graph_is_permutation(perm, rank))
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g,
                       (int32_t)gr->tensors[t].producer,
                       "input layout is not a permutation of 0..%u", rank - 1);
  bool moved = false;
  for (uint32_t d = 0; d < rank; d++)
    moved |= perm[d] != (int8_t)d;
  memset(op->perm, 0, sizeof op->perm);
  if (moved)
    memcpy(op->perm, perm, rank);
  return MG_STATUS_OK;
}

bool mg_program_has_layouts(const MgProgram *p) {
  for (uint32_t g = 0; g < p->num_graphs; g++)
    for (uint32_t i = 0; i < p->graphs[g].num_ops; i++)
      for (uint32_t d = 0; d < MG_MAX_DIMS; d++)
        if (p->graphs[g].ops[i].perm[d] != 0)
          return true;
  return false;
}

// Only INPUT ops: a TRANSPOSE view keeps its permutation in the same field.
void mg_program_clear_layouts(MgProgram *p) {
  for (uint32_t g = 0; g < p->num_graphs; g++)
    for (uint32_t i = 0; i < p->graphs[g].num_ops; i++)
      if (p->graphs[g].ops[i].kind == MG_OP_INPUT)
        memset(p->graphs[g].ops[i].perm, 0, sizeof p->graphs[g].ops[i].perm);
}

MgStatus mg_program_copy_layouts(MgProgram *dst, const MgProgram *src,
                                 MgDiag *diag) {
  if (!dst->num_graphs || !src->num_graphs)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "no root graph");
  MgGraph *root = mg_program_graph(dst, 0);
  const MgGraph *sroot = mg_program_graph(src, 0);
  for (uint32_t i = 0; i < root->num_ops; i++) {
    MgOp *op = &root->ops[i];
    if (op->kind != MG_OP_INPUT)
      continue;
    const MgTensor *st = mg_graph_input_tensor(sroot, (uint32_t)op->attr);
    if (!st || st->rank != root->tensors[op->outputs[0]].rank)
      return mg_diag_set(diag, MG_STATUS_INVALID, 0, (int32_t)i,
                         "input %d has no counterpart", op->attr);
    const MgOp *sop = mg_graph_op(sroot, st->producer);
    memcpy(op->perm, sop->perm, sizeof op->perm);
  }
  // Each block graph's inputs take the layouts of what its callers pass
  // (fold.c); a body called with two different layouts cannot be lowered
  // once.
  return mg_program_fold_layouts(dst, diag);
}

// The result lists the operand's elements in their row-major order.
static bool keeps_order(const MgGraph *g, const MgOp *op) {
  const MgTensor *a = &g->tensors[op->inputs[0]];
  const MgTensor *r = &g->tensors[op->outputs[0]];
  switch ((MgOpKind)op->kind) {
  case MG_OP_RESHAPE:
    return true;
  case MG_OP_TRANSPOSE: {
    int prev = -1;
    for (uint32_t d = 0; d < r->rank; d++) {
      if (r->dims[d] == 1)
        continue;
      if (op->perm[d] < prev)
        return false;
      prev = op->perm[d];
    }
    return true;
  }
  case MG_OP_SLICE:
    return r->dims[op->attr] == a->dims[op->attr];
  default:
    return false;
  }
}

bool mg_graph_view_is_free(const MgGraph *g, const MgOp *op) {
  int8_t perm[MG_MAX_DIMS];
  if (!mg_op_is_view(op, (MgLevel)g->level) || !keeps_order(g, op))
    return false;
  // A transposed input is strided (no reshape of it is a view), and a new
  // element type needs a conversion: both are copies.
  const MgTensor *a = &g->tensors[op->inputs[0]];
  return a->dtype == g->tensors[op->outputs[0]].dtype &&
         !mg_graph_tensor_perm(g, a, perm);
}
