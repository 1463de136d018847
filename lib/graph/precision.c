//===- precision.c - Partial sums kept in f32 inside and between kernels --===//
//
// A result's type is its storage type: the lowering rounds every stored
// value to it (docs/lower.md). The builders give a sum the type of what it
// adds, so a program built from f16 tensors declares its sums f16 too,
// although no source program asked for that rounding (the interpreter, the
// reference of every check, adds exactly) and a kernel that keeps the sum
// in an accumulator keeps it in f32. An f16 sum of squares overflows above
// 65504 where the f32 one does not: two norms of the same program (nTrans)
// would differ in range by where the search put them. The rule here: a
// reduction's result (a sum, an accumulator, a matmul's partial a later
// kernel adds up) is declared f32 wherever it is a 16-bit default, in
// block graphs and in the kernel tensors between kernels; the block graphs
// reading such a tensor take it as f32 (their input and its iterators).
// Kept as they are: graph outputs (their type is the program's), results
// declared narrower than their operand (a cast the program wrote), maxima
// (exact in any type) and values a typed body (thread op) or a view reads.
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <stdlib.h>

typedef struct Widen {
  MgProgram *p;
  uint8_t **orig;   // per graph and tensor: the type before any change
  uint32_t *callers; // per graph: custom ops naming it
} Widen;

static bool is_16bit(uint8_t dt) {
  return dt == MG_DTYPE_F16 || dt == MG_DTYPE_BF16;
}

static bool reads(const MgOp *op, MgTensorId t) {
  for (uint32_t k = 0; k < op->num_inputs; k++)
    if (op->inputs[k] == t)
      return true;
  return false;
}

static bool is_graph_output(const MgGraph *g, MgTensorId t) {
  for (uint32_t k = 0; k < g->num_outputs; k++)
    if (g->outputs[k] == t)
      return true;
  return false;
}

// Op `op` of graph g declares its (first) result 16-bit because its first
// operand is: the builders' default, not a rounding the program wrote.
static bool default_16bit(const Widen *w, MgGraphId g, const MgOp *op) {
  uint8_t r = w->orig[g][op->outputs[0]];
  return is_16bit(r) && r == w->orig[g][op->inputs[0]];
}

// The INPUT tensor of block graph b at position `pos` (MG_NO_ID: none).
static MgTensorId block_input(const MgGraph *b, uint32_t pos) {
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (b->ops[i].kind == MG_OP_INPUT && (uint32_t)b->ops[i].attr == pos)
      return b->ops[i].outputs[0];
  return MG_NO_ID;
}

// Tensor `t` of graph g and the values that must take its type with it:
// the results of its unary and scalar readers (the dialect's rule: their
// result has their operand's type), of its iterators, and, for a kernel
// tensor, the inputs of the block graphs reading it. False when one of
// them cannot be f32: a kernel graph's output, a value a thread op, a
// concat or a view reads (they move or compute in the declared type), a
// block graph another custom op calls too. With `apply`, declares them
// f32 (after a check that returned true).
static bool walk(Widen *w, MgGraphId g, MgTensorId t, bool apply) {
  MgGraph *gr = &w->p->graphs[g];
  if (apply)
    gr->tensors[t].dtype = MG_DTYPE_F32;
  if (gr->level == MG_LEVEL_KERNEL && is_graph_output(gr, t))
    return false;
  for (uint32_t i = 0; i < gr->num_ops; i++) {
    const MgOp *op = &gr->ops[i];
    if (!reads(op, t))
      continue;
    MgOpKind k = (MgOpKind)op->kind;
    if (mg_op_kind_is_unary(k) || k == MG_OP_ITERATOR) {
      if (!walk(w, g, op->outputs[0], apply))
        return false;
    } else if (k == MG_OP_THREAD || k == MG_OP_CONCAT ||
               mg_op_is_view(op, (MgLevel)gr->level)) {
      return false;
    } else if (k == MG_OP_CUSTOM) {
      if (w->callers[op->attr] != 1)
        return false;
      for (uint32_t j = 0; j < op->num_inputs; j++) {
        MgTensorId in = op->inputs[j] == t
                            ? block_input(&w->p->graphs[op->attr], j)
                            : MG_NO_ID;
        if (in != MG_NO_ID && !walk(w, (MgGraphId)op->attr, in, apply))
          return false;
      }
    }
  }
  return true;
}

// Declares `t` and what takes its type f32 when all of them can be.
static bool widen(Widen *w, MgGraphId g, MgTensorId t) {
  if (!walk(w, g, t, false))
    return false;
  walk(w, g, t, true);
  return true;
}

// Sums and accumulators of block graph g (maxima included: their running
// value is kept in f32 anyway, and the split-KV merge rescales by it).
static void widen_block(Widen *w, MgGraphId g) {
  MgGraph *b = &w->p->graphs[g];
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if ((op->kind == MG_OP_SUM || op->kind == MG_OP_ACCUM) &&
        default_16bit(w, g, op))
      widen(w, g, op->outputs[0]);
  }
}

// Block graph b sums the tiles its iterators take from input `in`.
static bool sums_input(const MgGraph *b, MgTensorId in) {
  for (uint32_t j = 0; j < b->num_ops; j++) {
    const MgOp *it = &b->ops[j];
    if (it->kind != MG_OP_ITERATOR || !reads(it, in))
      continue;
    for (uint32_t r = 0; r < b->num_ops; r++) {
      const MgOp *op = &b->ops[r];
      if ((op->kind == MG_OP_SUM ||
           (op->kind == MG_OP_ACCUM && op->acc != MG_ACCUM_MAX)) &&
          reads(op, it->outputs[0]))
        return true;
    }
  }
  return false;
}

// Some reader of kernel tensor `t` adds it up: a kernel-level sum, or a
// block graph summing its tiles (split-K partials a later kernel merges).
static bool reduced_later(const Widen *w, MgTensorId t) {
  const MgGraph *g = &w->p->graphs[0];
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_SUM && op->inputs[0] == t)
      return true;
    for (uint32_t k = 0; op->kind == MG_OP_CUSTOM && k < op->num_inputs; k++)
      if (op->inputs[k] == t &&
          sums_input(&w->p->graphs[op->attr],
                     block_input(&w->p->graphs[op->attr], k)))
        return true;
  }
  return false;
}

// Output k of custom op `op`: f32 when the tile its saver stores is a
// sum or accumulator declared f32 (widen_block), or a matmul's partial a
// later kernel adds up (its tile then becomes f32 too).
static void widen_custom_output(Widen *w, const MgOp *op, uint32_t k) {
  MgGraphId bg = (MgGraphId)op->attr;
  MgGraph *b = &w->p->graphs[bg];
  MgTensorId t = op->outputs[k], saved = b->outputs[k];
  const MgOp *saver = &b->ops[b->tensors[saved].producer];
  // The kernel tensor is declared in the tile's own type: no narrowing
  // cast of the program's sits on the saver.
  if (saver->kind != MG_OP_SAVER || !is_16bit(w->orig[0][t]) ||
      w->orig[0][t] != w->orig[bg][saver->inputs[0]])
    return;
  MgTensorId tile = saver->inputs[0];
  const MgOp *maker = &b->ops[b->tensors[tile].producer];
  bool sum = (maker->kind == MG_OP_SUM || maker->kind == MG_OP_ACCUM) &&
             b->tensors[tile].dtype == MG_DTYPE_F32;
  bool partial = maker->kind == MG_OP_MATMUL &&
                 default_16bit(w, bg, maker) && reduced_later(w, t) &&
                 walk(w, bg, tile, false);
  if ((sum || partial) && widen(w, 0, t)) {
    if (partial)
      walk(w, bg, tile, true);
    b->tensors[saved].dtype = MG_DTYPE_F32;
  }
}

static void widen_kernel(Widen *w) {
  MgGraph *g = &w->p->graphs[0];
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_SUM && default_16bit(w, 0, op))
      widen(w, 0, op->outputs[0]);
    for (uint32_t k = 0; op->kind == MG_OP_CUSTOM && k < op->num_outputs; k++)
      widen_custom_output(w, op, k);
  }
}

static bool snapshot(Widen *w) {
  const MgProgram *p = w->p;
  w->orig = calloc(p->num_graphs, sizeof *w->orig);
  w->callers = calloc(p->num_graphs, sizeof *w->callers);
  if (!w->orig || !w->callers)
    return false;
  for (MgGraphId g = 0; g < p->num_graphs; g++) {
    const MgGraph *gr = &p->graphs[g];
    w->orig[g] = malloc(gr->num_tensors ? gr->num_tensors : 1);
    if (!w->orig[g])
      return false;
    for (MgTensorId t = 0; t < gr->num_tensors; t++)
      w->orig[g][t] = gr->tensors[t].dtype;
  }
  const MgGraph *root = &p->graphs[0];
  for (uint32_t i = 0; i < root->num_ops; i++)
    if (root->ops[i].kind == MG_OP_CUSTOM &&
        (uint32_t)root->ops[i].attr < p->num_graphs)
      w->callers[root->ops[i].attr]++;
  return true;
}

MgStatus mg_program_widen_partials(MgProgram *p, MgDiag *diag) {
  if (!p || p->num_graphs == 0 || p->graphs[0].level != MG_LEVEL_KERNEL)
    return MG_STATUS_OK;
  Widen w = {p, NULL, NULL};
  MgStatus st = MG_STATUS_OK;
  if (!snapshot(&w)) {
    st = mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  } else {
    for (MgGraphId g = 1; g < p->num_graphs; g++)
      if (p->graphs[g].level == MG_LEVEL_BLOCK && w.callers[g] > 0)
        widen_block(&w, g);
    widen_kernel(&w);
  }
  for (MgGraphId g = 0; w.orig && g < p->num_graphs; g++)
    free(w.orig[g]);
  free(w.orig);
  free(w.callers);
  return st;
}
