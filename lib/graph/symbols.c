//===- symbols.c - Sizes known only at run time (issue 29) -----------------===//
//
// A symbolic dim keeps its current size in dims[] and its symbol in the
// tensor's `sym` bits; shape inference (shape.c) carries the bits along and
// refuses what would hold at one size only (a symbol against a static size
// other than 1, a symbol split by a static grid axis, a sum of symbols).
// Because a symbolic dim is exactly its symbol, re-sizing a program is a
// substitution in place: no op needs re-inferring.
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <string.h>

MgStatus mg_graph_set_input_sym(MgProgram *p, MgGraphId g, MgTensorId t,
                                uint32_t d, unsigned s, MgDiag *diag) {
  if (!p || g >= p->num_graphs)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "no graph %u", g);
  MgGraph *gr = mg_program_graph(p, g);
  if (t >= gr->num_tensors ||
      gr->ops[gr->tensors[t].producer].kind != MG_OP_INPUT)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, -1,
                       "only a graph input is given a symbol");
  if (gr->level == MG_LEVEL_THREAD)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, -1,
                       "thread-graph inputs are tiles: their dims are static");
  MgTensor *x = &gr->tensors[t];
  if (d >= x->rank || s > MG_MAX_SYMS)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g,
                       (int32_t)x->producer,
                       "symbol %u for dim %u of a rank-%u input", s, d,
                       x->rank);
  for (uint32_t i = x->producer + 1; i < gr->num_ops; i++)
    for (uint32_t k = 0; k < gr->ops[i].num_inputs; k++)
      if (gr->ops[i].inputs[k] == t)
        return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, (int32_t)i,
                           "input %u is read before its symbols are set",
                           gr->ops[x->producer].attr);
  mg_tensor_set_sym(x, d, s);
  return MG_STATUS_OK;
}

MgTensorId mg_graph_add_input_as(MgProgram *p, MgGraphId g,
                                 const MgTensor *like, const MgOp *layout,
                                 MgDiag *diag) {
  MgTensorId t = mg_graph_add_input(p, g, (MgDType)like->dtype, like->rank,
                                    like->dims, diag);
  for (uint32_t d = 0; t != MG_NO_ID && d < like->rank; d++)
    if (mg_tensor_sym(like, d) &&
        mg_graph_set_input_sym(p, g, t, d, mg_tensor_sym(like, d), diag) !=
            MG_STATUS_OK)
      t = MG_NO_ID;
  int8_t perm[MG_MAX_DIMS];
  if (t != MG_NO_ID && layout && mg_op_input_perm(layout, like->rank, perm) &&
      mg_graph_set_input_perm(p, g, t, perm, diag) != MG_STATUS_OK)
    t = MG_NO_ID;
  return t;
}

unsigned mg_program_syms(const MgProgram *p) {
  unsigned mask = 0;
  for (uint32_t g = 0; p && g < p->num_graphs; g++) {
    const MgGraph *gr = &p->graphs[g];
    for (uint32_t t = 0; t < gr->num_tensors; t++)
      for (uint32_t d = 0; d < gr->tensors[t].rank; d++)
        if (mg_tensor_sym(&gr->tensors[t], d))
          mask |= 1u << (mg_tensor_sym(&gr->tensors[t], d) - 1);
  }
  return mask;
}

int64_t mg_program_sym_size(const MgProgram *p, unsigned s) {
  for (uint32_t g = 0; p && g < p->num_graphs; g++) {
    const MgGraph *gr = &p->graphs[g];
    for (uint32_t t = 0; t < gr->num_tensors; t++)
      for (uint32_t d = 0; d < gr->tensors[t].rank; d++)
        if (s && mg_tensor_sym(&gr->tensors[t], d) == s)
          return gr->tensors[t].dims[d];
  }
  return 0;
}

void mg_program_instantiate(MgProgram *p, const int64_t sizes[MG_MAX_SYMS]) {
  for (uint32_t g = 0; g < p->num_graphs; g++) {
    MgGraph *gr = &p->graphs[g];
    for (uint32_t t = 0; t < gr->num_tensors; t++) {
      MgTensor *x = &gr->tensors[t];
      for (uint32_t d = 0; d < x->rank && d < MG_MAX_DIMS; d++)
        if (mg_tensor_sym(x, d))
          x->dims[d] = sizes[mg_tensor_sym(x, d) - 1];
    }
    for (int a = 0; a < 3; a++)
      if (gr->grid_sym[a]) { // the last block may hold fewer rows
        int64_t rows = gr->grid_rows[a] > 0 ? gr->grid_rows[a] : 1;
        gr->grid[a] = (int32_t)((sizes[gr->grid_sym[a] - 1] + rows - 1) / rows);
      }
    if (gr->forloop_sym) { // the last iteration may hold fewer rows
      int64_t rows = gr->forloop_rows > 0 ? gr->forloop_rows : 1;
      gr->forloop = (int32_t)((sizes[gr->forloop_sym - 1] + rows - 1) / rows);
    }
  }
}

MgProgram *mg_program_clone_at(const MgProgram *p, int64_t size) {
  MgProgram *q = mg_program_clone(p);
  const int64_t sizes[MG_MAX_SYMS] = {size, size, size};
  if (q)
    mg_program_instantiate(q, sizes);
  return q;
}

void mg_program_clear_syms(MgProgram *p) {
  for (uint32_t g = 0; g < p->num_graphs; g++) {
    MgGraph *gr = &p->graphs[g];
    for (uint32_t t = 0; t < gr->num_tensors; t++)
      gr->tensors[t].sym = 0;
    memset(gr->grid_sym, 0, sizeof gr->grid_sym);
    gr->grid_rows[0] = gr->grid_rows[1] = gr->grid_rows[2] = 1;
    // A for-loop over a symbol keeps its range at the current size: the
    // static program is valid at sizes its rows divide.
    gr->forloop_sym = 0;
    gr->forloop_rows = 1;
    // A reshape naming a symbol names its current size instead.
    for (uint32_t i = 0; i < gr->num_ops; i++) {
      MgOp *op = &gr->ops[i];
      if (op->kind != MG_OP_RESHAPE)
        continue;
      const MgTensor *out = &gr->tensors[op->outputs[0]];
      for (int32_t d = 0; d < op->attr && d < MG_MAX_DIMS; d++)
        if (op->shape[d] < 0)
          op->shape[d] = out->dims[d];
    }
  }
}
