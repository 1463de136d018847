//===- stability.c - Is every exp argument bounded above by 0? ------------===//
//
// An abstract domain of upper bounds, one forward pass per graph. Each
// tensor gets `nonpos` (every element <= 0, proven) and up to MAX_FACTS
// dominance facts (src, mask): every element of this tensor is >= the
// element of `src` it is broadcast against, where `mask` lists the dims
// this tensor has reduced (size 1) and src has not. Rules:
//   reduce_max(X, d)  dominates X over {d}, and Y over mask ∪ {d} for every
//                     (Y, mask) X dominates (max X >= X >= Y);
//   maximum(A, B)     dominates A, B and whatever they dominate;
//   sub(X, M)         is nonpos when M dominates X and every dim of M is
//                     X's or is 1 and in the mask (so M is broadcast only
//                     along dims it reduced);
//   add of two nonpos, mul/div by a constant >= 0, views, iterators,
//   savers and kernel/thread call boundaries keep nonpos.
// A fact names a tensor of one graph; at a call (custom or thread op) the
// facts between operands become facts between the callee's inputs, and an
// iterator tile of a dominating input dominates an iterator tile of the
// dominated one when both cut every dim outside the mask alike (same
// imap axes, same fmap). What no rule proves counts as unguarded: a false
// alarm loses a candidate, never admits an unstable one. The online
// accumulator's internal exps, exp(m_i − max_i m_i), are guarded by
// construction and not counted.
//
//===----------------------------------------------------------------------===//
#include "mirage/verify.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FACTS 4

typedef struct Fact {
  MgTensorId src;
  uint8_t mask;
} Fact;

typedef struct Bound {
  bool nonpos;
  uint8_t n;
  Fact f[MAX_FACTS];
} Bound;

typedef struct Walk {
  const MgProgram *p;
  MgStability *out;
  MgDiag *diag;
} Walk;

static void add_fact(Bound *b, MgTensorId src, uint8_t mask) {
  for (uint8_t i = 0; i < b->n; ++i)
    if (b->f[i].src == src && b->f[i].mask == mask)
      return;
  if (b->n < MAX_FACTS) // dropping a fact only loses proofs
    b->f[b->n++] = (Fact){src, mask};
}

// r inherits x's facts, with `reduced` added to their masks: what x
// dominates, anything >= x dominates too.
static void inherit(Bound *r, const Bound *x, uint8_t reduced) {
  for (uint8_t k = 0; k < x->n; ++k)
    add_fact(r, x->f[k].src, (uint8_t)(x->f[k].mask | reduced));
}

// True when M (shape tm, facts bm) dominates X (tensor x of shape tx) and
// is broadcast against it only along dims it reduced.
static bool dominates(const Bound *bm, const MgTensor *tm, MgTensorId x,
                      const MgTensor *tx) {
  if (tm->rank != tx->rank)
    return false;
  for (uint8_t i = 0; i < bm->n; ++i) {
    if (bm->f[i].src != x)
      continue;
    bool ok = true;
    for (uint32_t d = 0; d < tm->rank && ok; ++d)
      ok = tm->dims[d] == tx->dims[d] ||
           (tm->dims[d] == 1 && ((bm->f[i].mask >> d) & 1));
    if (ok)
      return true;
  }
  return false;
}

// Facts passed into a call name operand positions instead of tensors.
static MgStatus walk(Walk *w, MgGraphId gid, const Bound *in, bool *out,
                     int depth);

// Runs the body of a custom or thread op: the operands' bounds in (facts
// between operands re-expressed by position), the results' nonpos out.
static MgStatus walk_call(Walk *w, const MgOp *op, Bound *b, int depth) {
  Bound in[MG_MAX_OP_INPUTS];
  bool out[MG_MAX_OP_OUTPUTS] = {false};
  memset(in, 0, sizeof in);
  for (uint32_t i = 0; i < op->num_inputs && i < MG_MAX_OP_INPUTS; ++i) {
    const Bound *x = &b[op->inputs[i]];
    in[i].nonpos = x->nonpos;
    for (uint8_t k = 0; k < x->n; ++k)
      for (uint32_t j = 0; j < op->num_inputs; ++j)
        if (op->inputs[j] == x->f[k].src)
          add_fact(&in[i], j, x->f[k].mask);
  }
  if (op->attr < 0 || (uint32_t)op->attr >= w->p->num_graphs || depth > 4)
    return mg_diag_set(w->diag, MG_STATUS_INVALID, -1, -1,
                       "call to a graph that does not exist");
  MgStatus st = walk(w, (MgGraphId)op->attr, in, out, depth + 1);
  for (uint32_t i = 0; i < op->num_outputs && i < MG_MAX_OP_OUTPUTS; ++i)
    b[op->outputs[i]].nonpos = out[i];
  return st;
}

// Iterator tiles cut dim d alike.
static bool same_cut(const MgOp *x, const MgOp *y, int d) {
  for (int a = 0; a < 3; ++a)
    if ((x->imap[a] == d) != (y->imap[a] == d))
      return false;
  return (x->fmap == d) == (y->fmap == d);
}

// Tile `t` = iterator `it` of an input that dominates others: the tiles of
// those inputs cut alike outside the mask are dominated tile by tile.
static void iterator_facts(const MgGraph *gr, const MgOp *it, const Bound *a,
                           Bound *r) {
  for (uint8_t k = 0; k < a->n; ++k)
    for (uint32_t j = 0; j < gr->num_ops; ++j) {
      const MgOp *u = &gr->ops[j];
      if (u->kind != MG_OP_ITERATOR || u->inputs[0] != a->f[k].src)
        continue;
      bool ok = true;
      for (int d = 0; d < MG_MAX_DIMS && ok; ++d)
        ok = ((a->f[k].mask >> d) & 1) || same_cut(it, u, d);
      if (ok)
        add_fact(r, u->outputs[0], a->f[k].mask);
    }
}

static MgStatus walk(Walk *w, MgGraphId gid, const Bound *in, bool *out,
                     int depth) {
  const MgGraph *gr = &w->p->graphs[gid];
  Bound *b = calloc(gr->num_tensors ? gr->num_tensors : 1, sizeof *b);
  if (!b)
    return mg_diag_set(w->diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  // Input positions to tensors, for the facts a caller passed in.
  MgTensorId at[MG_MAX_OP_INPUTS];
  for (uint32_t k = 0; k < MG_MAX_OP_INPUTS; ++k)
    at[k] = MG_NO_ID;
  for (uint32_t i = 0; i < gr->num_ops; ++i)
    if (gr->ops[i].kind == MG_OP_INPUT && gr->ops[i].attr >= 0 &&
        gr->ops[i].attr < MG_MAX_OP_INPUTS)
      at[gr->ops[i].attr] = gr->ops[i].outputs[0];
  MgStatus st = MG_STATUS_OK;
  for (uint32_t i = 0; i < gr->num_ops && st == MG_STATUS_OK; ++i) {
    const MgOp *op = &gr->ops[i];
    if (op->kind == MG_OP_CUSTOM || op->kind == MG_OP_THREAD) {
      st = walk_call(w, op, b, depth);
      continue;
    }
    if (op->num_outputs == 0)
      continue;
    MgTensorId t = op->outputs[0];
    const Bound *a = op->num_inputs > 0 ? &b[op->inputs[0]] : NULL;
    const Bound *c = op->num_inputs > 1 ? &b[op->inputs[1]] : NULL;
    Bound r;
    memset(&r, 0, sizeof r);
    switch ((MgOpKind)op->kind) {
    case MG_OP_INPUT:
      if (in && op->attr >= 0 && op->attr < MG_MAX_OP_INPUTS) {
        const Bound *x = &in[op->attr];
        r.nonpos = x->nonpos;
        for (uint8_t k = 0; k < x->n; ++k)
          if (x->f[k].src < MG_MAX_OP_INPUTS && at[x->f[k].src] != MG_NO_ID)
            add_fact(&r, at[x->f[k].src], x->f[k].mask);
      }
      break;
    case MG_OP_REDUCE_MAX: {
      uint8_t d = (uint8_t)(1u << op->attr);
      add_fact(&r, op->inputs[0], d);
      inherit(&r, a, d);
      r.nonpos = a->nonpos;
      break;
    }
    case MG_OP_MAX:
      for (uint32_t j = 0; j < 2; ++j) {
        add_fact(&r, op->inputs[j], 0);
        inherit(&r, j ? c : a, 0);
      }
      r.nonpos = a->nonpos && c->nonpos;
      break;
    case MG_OP_SUB:
      r.nonpos = dominates(c, &gr->tensors[op->inputs[1]], op->inputs[0],
                           &gr->tensors[op->inputs[0]]);
      break;
    case MG_OP_ADD:
      r.nonpos = a->nonpos && c->nonpos;
      break;
    case MG_OP_MUL_SCALAR: case MG_OP_DIV_SCALAR:
      r.nonpos = a->nonpos && op->scalar >= 0;
      break;
    case MG_OP_ADD_SCALAR:
      r.nonpos = a->nonpos && op->scalar <= 0;
      break;
    case MG_OP_MAX_SCALAR: // >= x: dominates it, as MAX does
      add_fact(&r, op->inputs[0], 0);
      inherit(&r, a, 0);
      r.nonpos = a->nonpos && op->scalar <= 0;
      break;
    case MG_OP_MIN_SCALAR: // <= x and <= the constant
      r.nonpos = a->nonpos || op->scalar <= 0;
      break;
    case MG_OP_EXP:
      w->out->exps++;
      if (!a->nonpos && w->out->unguarded++ == 0) {
        w->out->graph = (int32_t)gid;
        w->out->op = (int32_t)i;
      }
      break;
    case MG_OP_ITERATOR:
      r.nonpos = a->nonpos;
      iterator_facts(gr, op, a, &r);
      break;
    case MG_OP_SAVER: case MG_OP_TRANSPOSE:
    case MG_OP_RESHAPE: case MG_OP_SLICE:
    case MG_OP_IM2COL: // padding zeros are non-positive too
      r.nonpos = a->nonpos;
      break;
    case MG_OP_CONCAT: {
      r.nonpos = true;
      for (uint32_t k = 0; k < op->num_inputs; ++k)
        r.nonpos = r.nonpos && b[op->inputs[k]].nonpos;
      break;
    }
    case MG_OP_ACCUM:
      // A max of non-positive tiles is non-positive; sums are not bounded.
      r.nonpos = op->acc == MG_ACCUM_MAX && a->nonpos;
      break;
    default:
      break;
    }
    b[t] = r;
  }
  if (st == MG_STATUS_OK && out)
    for (uint32_t k = 0; k < gr->num_outputs && k < MG_MAX_OP_OUTPUTS; ++k)
      out[k] = b[gr->outputs[k]].nonpos;
  free(b);
  return st;
}

MgStatus mg_verify_stability(const MgProgram *program, MgStability *out,
                             MgDiag *diag) {
  memset(out, 0, sizeof *out);
  out->graph = out->op = -1;
  if (!program || program->num_graphs == 0)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "empty program");
  Walk w = {program, out, diag};
  return walk(&w, 0, NULL, NULL, 0);
}

bool mg_verify_keeps_stability(const MgStability *original,
                               const MgStability *candidate) {
  return original->unguarded > 0 || candidate->unguarded == 0;
}
