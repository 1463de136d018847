//===- fold.c - Folded views: transposes and slices read through strides --===//
//
// A kernel-level transpose or slice of a computed tensor only moves
// elements, so instead of a copy kernel its readers can address the
// operand's buffer through strides: element idx of the view is element
// offset + Σ idx[d]·stride[d] of the buffer. Such a view op stays in the
// kernel graph (the interpreters and the verifier evaluate it as the exact
// index map it is, so every stage agrees on what it means); only where it
// lives changes: no kernel, no buffer, and each kernel reading it gets
// the buffer it views plus the strides (lib/lower), its reads counted as
// strided ones (lib/cost). A chain of folded views composes into one
// strided view of the first buffer: transposes permute the strides,
// slices move the offset, a reshape (a free view, contiguous) starts a
// new buffer. The other way round, a transpose whose operand a
// graph-defined kernel makes and only it reads is written in place: the
// kernel's savers store through the inverse strides into the transpose's
// buffer. The rules keep every folded view's buffer a dense one that
// lives as long as the kernel graph's others.
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <stdlib.h>
#include <string.h>

// True when custom op `op`'s block graph is called by another custom op
// of `g` too (its inputs then cannot take one caller's layout).
static bool shared_body(const MgGraph *g, const MgOp *op) {
  for (uint32_t i = 0; i < g->num_ops; i++)
    if (&g->ops[i] != op && g->ops[i].kind == MG_OP_CUSTOM &&
        g->ops[i].attr == op->attr)
      return true;
  return false;
}

// Read side: the view's readers address its operand's buffer.
static bool reads_through(const MgGraph *g, const MgOp *op) {
  if (g->level != MG_LEVEL_KERNEL ||
      (op->kind != MG_OP_TRANSPOSE && op->kind != MG_OP_SLICE) ||
      mg_graph_view_is_free(g, op))
    return false;
  MgTensorId a = op->inputs[0], r = op->outputs[0];
  int8_t perm[MG_MAX_DIMS];
  // A new element type needs a conversion; an input with a layout is
  // strided already (its views stay copies).
  if (g->tensors[a].dtype != g->tensors[r].dtype ||
      mg_graph_tensor_perm(g, &g->tensors[a], perm))
    return false;
  for (uint32_t k = 0; k < g->num_outputs; k++)
    if (g->outputs[k] == r)
      return false; // the caller gets a dense buffer
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *user = &g->ops[i];
    bool reads = false;
    for (uint32_t k = 0; k < user->num_inputs; k++)
      reads |= user->inputs[k] == r;
    if (!reads)
      continue;
    // A free view reinterprets its operand's dense buffer; a block graph
    // shared by two callers is lowered once, for one layout.
    if (mg_graph_view_is_free(g, user) ||
        (user->kind == MG_OP_CUSTOM && shared_body(g, user)))
      return false;
  }
  return true;
}

// The one op reading `t`, or NULL (none, several, or a graph output).
static const MgOp *only_reader(const MgGraph *g, MgTensorId t) {
  for (uint32_t k = 0; k < g->num_outputs; k++)
    if (g->outputs[k] == t)
      return NULL;
  const MgOp *found = NULL;
  for (uint32_t i = 0; i < g->num_ops; i++)
    for (uint32_t k = 0; k < g->ops[i].num_inputs; k++)
      if (g->ops[i].inputs[k] == t) {
        if (found && found != &g->ops[i])
          return NULL;
        found = &g->ops[i];
      }
  return found;
}

// Write side: a transpose that is its operand's only reader, the operand
// a graph-defined kernel's result (its savers store through strides); the
// kernel writes the transpose's buffer in place, so a result that leaves
// as a view (the head merge, a transpose then a reshape) is written in
// the layout its reader wants. Reading through is preferred when both
// apply.
static bool writes_through(const MgGraph *g, const MgOp *op) {
  if (g->level != MG_LEVEL_KERNEL || op->kind != MG_OP_TRANSPOSE ||
      mg_graph_view_is_free(g, op) || reads_through(g, op))
    return false;
  MgTensorId a = op->inputs[0];
  const MgOp *made = &g->ops[g->tensors[a].producer];
  return made->kind == MG_OP_CUSTOM && !shared_body(g, made) &&
         g->tensors[a].dtype == g->tensors[op->outputs[0]].dtype &&
         only_reader(g, a) == op;
}

bool mg_graph_view_folds(const MgGraph *g, const MgOp *op) {
  return reads_through(g, op) || writes_through(g, op);
}

// Implicit GEMM: the patches are never stored when every reader is a
// graph-defined kernel of its own (its iterators gather the tile from
// the input through the index map) and the input is a dense buffer.
bool mg_graph_im2col_folds(const MgGraph *g, const MgOp *op) {
  if (g->level != MG_LEVEL_KERNEL || op->kind != MG_OP_IM2COL)
    return false;
  MgTensorId x = op->inputs[0], r = op->outputs[0];
  int8_t perm[MG_MAX_DIMS];
  MgStridedView v;
  if (mg_graph_tensor_perm(g, &g->tensors[x], perm) ||
      mg_graph_folded_view(g, x, &v) ||
      g->tensors[x].dtype != g->tensors[r].dtype)
    return false;
  for (uint32_t k = 0; k < g->num_outputs; k++)
    if (g->outputs[k] == r)
      return false;
  bool read = false;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *user = &g->ops[i];
    for (uint32_t k = 0; k < user->num_inputs; k++) {
      if (user->inputs[k] != r)
        continue;
      if (user->kind != MG_OP_CUSTOM || shared_body(g, user))
        return false;
      read = true;
    }
  }
  return read;
}

const MgOp *mg_graph_folded_im2col(const MgGraph *g, MgTensorId t) {
  const MgOp *op = &g->ops[g->tensors[t].producer];
  return mg_graph_im2col_folds(g, op) ? op : NULL;
}

// `t` is written through a transpose (writes_through): its view of the
// transpose's result, whose dim d is t's dim perm[d].
static bool written_view(const MgGraph *g, MgTensorId t, MgStridedView *view) {
  const MgOp *v = only_reader(g, t);
  if (!v || !writes_through(g, v))
    return false;
  const MgTensor *r = &g->tensors[v->outputs[0]];
  memset(view, 0, sizeof *view);
  view->base = v->outputs[0];
  view->rank = r->rank;
  int64_t dense[MG_MAX_DIMS], n = 1;
  for (uint32_t d = r->rank; d-- > 0;) {
    dense[d] = n;
    n *= r->dims[d];
    view->stored[d] = r->dims[d];
  }
  for (uint32_t d = 0; d < r->rank; d++) { // t's dim perm[d] is r's dim d
    view->perm[v->perm[d]] = (int8_t)d;
    view->stride[v->perm[d]] = dense[d];
  }
  return true;
}

bool mg_graph_folded_view(const MgGraph *g, MgTensorId t,
                          MgStridedView *view) {
  const MgOp *op = &g->ops[g->tensors[t].producer];
  if (!reads_through(g, op))
    return g->level == MG_LEVEL_KERNEL && written_view(g, t, view);
  // Walking up the chain: logical dim d walks dim map[d] of the current
  // tensor, which starts at off[] (its own dims).
  uint32_t rank = g->tensors[t].rank;
  int8_t map[MG_MAX_DIMS];
  int64_t off[MG_MAX_DIMS] = {0};
  for (uint32_t d = 0; d < rank; d++)
    map[d] = (int8_t)d;
  MgTensorId cur = t;
  while (reads_through(g, op)) {
    if (op->kind == MG_OP_TRANSPOSE) { // result dim e is operand dim perm[e]
      int64_t was[MG_MAX_DIMS];
      memcpy(was, off, sizeof was);
      for (uint32_t e = 0; e < rank; e++)
        off[op->perm[e]] = was[e];
      for (uint32_t d = 0; d < rank; d++)
        map[d] = op->perm[map[d]];
    } else { // a slice: operand index = result index + first
      off[op->attr] += op->shape[0];
    }
    cur = op->inputs[0];
    op = &g->ops[g->tensors[cur].producer];
  }
  const MgTensor *b = &g->tensors[cur];
  memset(view, 0, sizeof *view);
  view->base = cur;
  view->rank = rank;
  int64_t dense[MG_MAX_DIMS], n = 1;
  for (uint32_t e = rank; e-- > 0;) {
    dense[e] = n;
    n *= b->dims[e];
  }
  for (uint32_t e = 0; e < rank; e++) {
    view->stored[e] = b->dims[e];
    view->offset += off[e] * dense[e];
  }
  for (uint32_t d = 0; d < rank; d++) {
    view->perm[d] = map[d];
    view->stride[d] = dense[map[d]];
  }
  return true;
}

bool mg_graph_is_strided(const MgGraph *g, MgTensorId t) {
  const MgOp *op = &g->ops[g->tensors[t].producer];
  int8_t perm[MG_MAX_DIMS];
  MgStridedView v;
  if (op->kind == MG_OP_INPUT)
    return op->folded || mg_op_input_perm(op, g->tensors[t].rank, perm);
  if (op->kind == MG_OP_SAVER)
    return op->folded;
  return mg_graph_folded_view(g, t, &v);
}

// MgOp.folded of a block tensor accessed through `v`: 2 when its
// innermost dim stays contiguous (rows can move as whole vectors), else 1.
static uint8_t contiguous_rows(const MgStridedView *v) {
  return v->stride[v->rank - 1] == 1 ? 2 : 1;
}

// The layout block-graph input `in` takes from root tensor `t`.
static void layout_from(const MgGraph *root, MgTensorId t, MgOp *in) {
  const MgOp *from = &root->ops[root->tensors[t].producer];
  MgStridedView v;
  memset(in->perm, 0, sizeof in->perm);
  in->folded = 0;
  if (from->kind == MG_OP_INPUT) {
    memcpy(in->perm, from->perm, sizeof in->perm);
  } else if (mg_graph_folded_im2col(root, t)) { // gathered through the map
    const MgOp *im = mg_graph_folded_im2col(root, t);
    const MgTensor *x = &root->tensors[im->inputs[0]];
    int64_t cg = x->dims[3] / mg_op_im2col(im).groups;
    in->folded = cg * (int64_t)mg_dtype_bytes((MgDType)x->dtype) % 16 == 0
                     ? MG_FOLDED_IM2COL_VEC
                     : MG_FOLDED_IM2COL;
  } else if (mg_graph_folded_view(root, t, &v)) {
    bool moved = false;
    for (uint32_t d = 0; d < v.rank; d++)
      moved |= v.perm[d] != (int8_t)d;
    if (moved) // the identity is all zeros
      memcpy(in->perm, v.perm, v.rank);
    in->folded = contiguous_rows(&v);
  }
}

MgStatus mg_program_fold_layouts(MgProgram *p, MgDiag *diag) {
  if (!p || !p->num_graphs)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "no root graph");
  MgGraph *root = &p->graphs[0];
  for (uint32_t g = 1; g < p->num_graphs; g++)
    if (p->graphs[g].level == MG_LEVEL_BLOCK)
      for (uint32_t i = 0; i < p->graphs[g].num_ops; i++) {
        p->graphs[g].ops[i].folded = 0;
        if (p->graphs[g].ops[i].kind == MG_OP_INPUT)
          memset(p->graphs[g].ops[i].perm, 0, sizeof p->graphs[g].ops[i].perm);
      }
  bool *set = calloc(p->num_graphs, sizeof *set);
  if (!set)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  MgStatus status = MG_STATUS_OK;
  for (uint32_t i = 0; i < root->num_ops && status == MG_STATUS_OK; i++) {
    const MgOp *op = &root->ops[i];
    if (op->kind != MG_OP_CUSTOM)
      continue;
    MgGraph *body = mg_program_graph(p, (MgGraphId)op->attr);
    for (uint32_t k = 0; k < body->num_ops; k++) {
      MgOp *in = &body->ops[k];
      if (in->kind != MG_OP_INPUT)
        continue;
      MgOp want = *in;
      layout_from(root, op->inputs[in->attr], &want);
      if (set[op->attr] && (memcmp(want.perm, in->perm, sizeof want.perm) ||
                            want.folded != in->folded)) {
        status = mg_diag_set(diag, MG_STATUS_INVALID, 0, (int32_t)i,
                             "block graph %d is called with two layouts",
                             op->attr);
        break;
      }
      memcpy(in->perm, want.perm, sizeof want.perm);
      in->folded = want.folded;
    }
    // Savers of results written through a transpose store through strides
    // (the body is not shared: writes_through checks).
    MgStridedView v;
    for (uint32_t k = 0; k < op->num_outputs && k < body->num_outputs; k++)
      body->ops[body->tensors[body->outputs[k]].producer].folded =
          mg_graph_folded_view(root, op->outputs[k], &v) ? contiguous_rows(&v)
                                                          : 0;
    set[op->attr] = true;
  }
  free(set);
  return status;
}
