//===- online.c - The max and online-softmax accumulators -----------------===//
//
// MG_ACCUM_MAX keeps max_i x_i: its f32 tile starts at -inf (ops.c's
// mg_lower_accum_init) and every iteration takes arith.maximumf with the
// tile, which is exactly the interpreter's "first tile, then max" because
// maximumf(-inf, x) = x for every x, NaN included.
//
// MG_ACCUM_ONLINE (x_i, m_i) keeps Σ_i x_i·exp(m_i − M), M = max_i m_i, in
// the FlashAttention-2 running form lib/interp/online.c runs: iteration 0
// sets acc = x, M = m; iteration i > 0 computes mn = max(M, m),
// acc = acc·exp(M − mn) + x·exp(m − mn), M = mn. Initialising from the
// first iteration (a branch on the uniform for-loop index, no per-element
// cost) rather than from M = -inf avoids exp(-inf − -inf) = NaN for rows
// whose logits are all -inf, and is the interpreter's first step: a copy,
// no exp.
//
// The running max M lives beside the accumulator in an f32 buffer of m's
// shape (the "aux" state, shared memory on the GPU), each element owned by
// one thread across iterations like the accumulator's own elements, so
// neither needs a barrier of its own. When x has m's shape (a row sum)
// one loop updates both. When x is larger (rows × d against rows × 1) the
// rescale factors exp(M − mn) and exp(m − mn) are computed once per
// element of m into two more slots of the buffer, then, after a barrier,
// applied to x's elements: two exps per row instead of two per element of
// the tile, at the price of one barrier per iteration.
//
//===----------------------------------------------------------------------===//
#include "write/write.h"

#include <stdio.h>
#include <string.h>

static const MgTensor *tensor(const Emit *e, MgTensorId id) {
  return &e->g->tensors[id];
}

// Slots of the aux buffer: the running max, then the two rescale factors
// when x is larger than m.
enum { SLOT_MAX, SLOT_OLD, SLOT_NEW };

// aux[slot, at...] as an index list.
static void aux_at(Emit *e, int64_t slot, const MgTensor *m, Index at,
                   char *list, size_t size) {
  Name s;
  mg_lower_index(e, slot, s);
  size_t n = (size_t)snprintf(list, size, "%s", s);
  for (uint32_t d = 0; d < m->rank; d++)
    n += (size_t)snprintf(list + n, n < size ? size - n : 0, ", %s", at[d]);
}

static void aux_load(Emit *e, const MgOp *op, int64_t slot, Index at,
                     Name out) {
  MgTensorId t = op->outputs[0];
  char list[(MG_MAX_DIMS + 1) * (NAME_LEN + 2)];
  aux_at(e, slot, tensor(e, op->inputs[1]), at, list, sizeof list);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.load %s[%s] : %s", out, e->aux_buf[t], list,
                e->aux_type[t]);
}

static void aux_store(Emit *e, const MgOp *op, int64_t slot, Index at,
                      const char *v) {
  MgTensorId t = op->outputs[0];
  char list[(MG_MAX_DIMS + 1) * (NAME_LEN + 2)];
  aux_at(e, slot, tensor(e, op->inputs[1]), at, list, sizeof list);
  mg_lower_line(e, "memref.store %s, %s[%s] : %s", v, e->aux_buf[t], list,
                e->aux_type[t]);
}

// m's element for x's element `idx` (m broadcasts: same rank, dims 1 or
// equal).
static void m_index(Emit *e, const MgTensor *m, Index idx, Index at) {
  for (uint32_t d = 0; d < m->rank; d++) {
    if (m->dims[d] == 1)
      mg_lower_index(e, 0, at[d]);
    else
      memcpy(at[d], idx[d], NAME_LEN);
  }
}

static void accum_max(Emit *e, const MgOp *op) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  Index idx;
  mg_lower_elems_begin(e, out, idx);
  Name old, x, r;
  mg_lower_load_at(e, op->outputs[0], idx, old);
  mg_lower_load(e, op->inputs[0], idx, out->rank, x);
  mg_lower_binary(e, "arith.maximumf", old, x, r);
  mg_lower_store(e, op->outputs[0], idx, r);
  mg_lower_elems_end(e);
}

// Iteration 0: acc = x, M = m.
static void online_first(Emit *e, const MgOp *op) {
  const MgTensor *x = tensor(e, op->inputs[0]), *m = tensor(e, op->inputs[1]);
  Index idx;
  Name v;
  mg_lower_elems_begin(e, x, idx);
  mg_lower_load(e, op->inputs[0], idx, x->rank, v);
  mg_lower_store(e, op->outputs[0], idx, v);
  mg_lower_elems_end(e);
  mg_lower_elems_begin(e, m, idx);
  mg_lower_load(e, op->inputs[1], idx, m->rank, v);
  aux_store(e, op, SLOT_MAX, idx, v);
  mg_lower_elems_end(e);
}

// mn = max(M, m) at m's element `at`, M = mn; the two factors into
// `old_f` = exp(M − mn) and `new_f` = exp(m − mn).
static void rescale(Emit *e, const MgOp *op, Index at, Name old_f,
                    Name new_f) {
  const MgTensor *m = tensor(e, op->inputs[1]);
  Name prev, mv, mn, d;
  aux_load(e, op, SLOT_MAX, at, prev);
  mg_lower_load(e, op->inputs[1], at, m->rank, mv);
  mg_lower_binary(e, "arith.maximumf", prev, mv, mn);
  mg_lower_binary(e, "arith.subf", prev, mn, d);
  mg_lower_unary(e, "math.exp", d, old_f);
  mg_lower_binary(e, "arith.subf", mv, mn, d);
  mg_lower_unary(e, "math.exp", d, new_f);
  aux_store(e, op, SLOT_MAX, at, mn);
}

// acc = acc·old_f + x·new_f at x's element `idx`, in the interpreter's
// order (the product may contract into an FMA).
static void update(Emit *e, const MgOp *op, Index idx, const char *old_f,
                   const char *new_f) {
  const MgTensor *x = tensor(e, op->inputs[0]);
  Name acc, scaled, xv, term, r;
  mg_lower_load_at(e, op->outputs[0], idx, acc);
  mg_lower_binary(e, "arith.mulf", acc, old_f, scaled);
  mg_lower_load(e, op->inputs[0], idx, x->rank, xv);
  mg_lower_binary(e, "arith.mulf", xv, new_f, term);
  mg_lower_binary(e, "arith.addf", scaled, term, r);
  mg_lower_store(e, op->outputs[0], idx, r);
}

// Iteration i > 0.
static void online_step(Emit *e, const MgOp *op) {
  const MgTensor *x = tensor(e, op->inputs[0]), *m = tensor(e, op->inputs[1]);
  Index idx, at;
  Name a, b;
  if (mg_lower_aux_slots(e->g, op) == 1) { // one loop: the factors stay in registers
    mg_lower_elems_begin(e, x, idx);
    rescale(e, op, idx, a, b);
    update(e, op, idx, a, b);
    mg_lower_elems_end(e);
    return;
  }
  mg_lower_elems_begin(e, m, at);
  rescale(e, op, at, a, b);
  aux_store(e, op, SLOT_OLD, at, a);
  aux_store(e, op, SLOT_NEW, at, b);
  mg_lower_elems_end(e);
  // Other threads read the factors. The branch around this is uniform
  // (the for-loop index), so every thread of the block reaches it.
  if (e->mode == MG_LOWER_GPU)
    mg_lower_line(e, "gpu.barrier");
  mg_lower_elems_begin(e, x, idx);
  m_index(e, m, idx, at);
  aux_load(e, op, SLOT_OLD, at, a);
  aux_load(e, op, SLOT_NEW, at, b);
  update(e, op, idx, a, b);
  mg_lower_elems_end(e);
}

void mg_lower_accum_online(Emit *e, const MgOp *op) {
  if (op->acc == MG_ACCUM_MAX) {
    accum_max(e, op);
    return;
  }
  if (!e->aux_buf || !e->aux_buf[op->outputs[0]][0]) {
    e->error = "an online accumulator without its running-max buffer";
    return;
  }
  if (e->g->forloop <= 1) { // a single iteration: acc = x
    online_first(e, op);
    return;
  }
  Name zero, first;
  mg_lower_index(e, 0, zero);
  mg_lower_index_op(e, "arith.cmpi eq,", e->iter, zero, first);
  mg_lower_line(e, "scf.if %s {", first);
  e->indent++;
  online_first(e, op);
  e->indent--;
  mg_lower_line(e, "} else {");
  e->indent++;
  online_step(e, op);
  e->indent--;
  mg_lower_line(e, "}");
}
