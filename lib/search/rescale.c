//===- rescale.c - Sums of values shifted by different maxes --------------===//
//
// The shift erasure (docs/absexpr.md) lets abstract expressions forget which
// max a softmax subtracts, so a block graph that sums exp(S − m_i) over its
// for-loop with a plain accumulator, m_i the max of iteration i's tile
// only, has the target's expression although it adds values scaled by
// different exp(−m_i). So does split-KV that saves per-block partials
// without their max and sums them. The field test rejects such a
// candidate, but at attention shapes each test costs most of a second.
// This file rejects them structurally first.
//
// Each tensor gets a value class:
//   CLEAN     no max involved;
//   SHIFT S   x − Σ e_j·m_j (a max or maxes subtracted), S = {(m_j, e_j)};
//   REL S     a value scaled by exp(−Σ e_j·m_j): exp of a SHIFT, and
//             products, quotients and sums of those (a ratio of two values
//             with one max is CLEAN again);
//   MAX m     a max (reduce_max, maximum, a running max); m names it;
//   UNKNOWN   anything else: never judged.
// Every max m in S carries the dims along which it varies (`mask`; a
// reduce_max is constant along the dim it reduces) and whether it varies
// with the for-loop (`loop`). A candidate MIXES, and is rejected, when
//   - a plain sum accumulator folds a REL value whose max varies with the
//     loop (online accumulators rescale; plain ones do not), or
//   - a sum or matmul contracts a REL value along a dim its max varies
//     along (per-block partials summed without their maxes).
// Both add terms scaled by different factors, which no later op can undo:
// on any input where the maxes differ, the candidate differs from a target
// that subtracts each row's own max. UNKNOWN is never rejected.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

#define REL_MAX_TERMS 4

enum { V_CLEAN, V_SHIFT, V_REL, V_MAX, V_UNKNOWN };

typedef struct Term {
  uint64_t id;   // which max (a hash of where it was made)
  int8_t e;      // its coefficient
  bool loop;     // varies with the for-loop of the block graph at hand
  uint8_t mask;  // dims along which it varies
} Term;

typedef struct Val {
  uint8_t kind;
  uint8_t n;               // SHIFT/REL: terms; MAX: 1 (its name)
  Term t[REL_MAX_TERMS];
  bool varies;             // block level: changes with the for-loop
} Val;

typedef struct Ctx {
  const MgProgram *p;
  bool mixes;
} Ctx;

static Val unknown(void) {
  Val v;
  memset(&v, 0, sizeof v);
  v.kind = V_UNKNOWN;
  return v;
}

static Val clean(bool varies) {
  Val v;
  memset(&v, 0, sizeof v);
  v.kind = V_CLEAN;
  v.varies = varies;
  return v;
}

static Val max_named(uint64_t id, bool loop, uint8_t mask, bool varies) {
  Val v = clean(varies);
  v.kind = V_MAX;
  v.n = 1;
  v.t[0] = (Term){id, 1, loop, mask};
  return v;
}

static uint8_t all_dims(const MgTensor *t) {
  return (uint8_t)((1u << t->rank) - 1);
}

// dst += sign·src over terms (same name: coefficients add); false when
// the result does not fit.
static bool add_terms(Val *dst, const Val *src, int sign) {
  for (uint32_t k = 0; k < src->n; k++) {
    const Term *s = &src->t[k];
    uint32_t j = 0;
    while (j < dst->n && dst->t[j].id != s->id)
      j++;
    if (j == dst->n) {
      if (dst->n == REL_MAX_TERMS)
        return false;
      dst->t[dst->n++] = (Term){s->id, 0, false, 0};
    }
    dst->t[j].e = (int8_t)(dst->t[j].e + sign * s->e);
    dst->t[j].loop |= s->loop;
    dst->t[j].mask |= s->mask;
  }
  uint32_t n = 0;
  for (uint32_t j = 0; j < dst->n; j++)
    if (dst->t[j].e)
      dst->t[n++] = dst->t[j];
  dst->n = (uint8_t)n;
  return true;
}

// Product (sign 1) or quotient (sign −1) of CLEAN/REL values.
static Val scale(const Val *a, const Val *b, int sign) {
  if ((a->kind != V_CLEAN && a->kind != V_REL) ||
      (b->kind != V_CLEAN && b->kind != V_REL))
    return unknown();
  Val v = *a;
  v.kind = V_REL;
  v.varies = a->varies || b->varies;
  if (!add_terms(&v, b, sign))
    return unknown();
  if (!v.n)
    v.kind = V_CLEAN;
  return v;
}

// A REL value of type `t` summed along `dim`: mixes when a max varies
// along it (a dim of extent 1 sums one term).
static void check_sum(Ctx *c, const Val *v, const MgTensor *t, int dim) {
  if (v->kind != V_REL || dim < 0 || dim >= t->rank || t->dims[dim] == 1)
    return;
  for (uint32_t k = 0; k < v->n; k++)
    if (v->t[k].mask >> dim & 1)
      c->mixes = true;
}

// Removes dim `d` from every term's mask (a contracted or reduced dim).
static void drop_dim(Val *v, int d) {
  for (uint32_t k = 0; k < v->n; k++)
    v->t[k].mask &= (uint8_t)~(1u << d);
}

static uint64_t name_of(MgGraphId g, MgTensorId t) {
  return mg_hash_u64(mg_hash_u64(0x6d6178ull, g), t);
}

static uint64_t running(uint64_t id) { return mg_hash_u64(0x72756eull, id); }

// `v` (tensor `t` of graph `gid`) where a max is expected: a max, or a
// plain value taken as the max of itself (one-element tiles).
static Val as_max(const Val *v, MgGraphId gid, MgTensorId t,
                  const MgTensor *type) {
  if (v->kind == V_MAX)
    return *v;
  if (v->kind == V_CLEAN)
    return max_named(name_of(gid, t), v->varies, all_dims(type), v->varies);
  return unknown();
}

static Val accum(Ctx *c, MgGraphId gid, const MgOp *op, const Val *x,
                 const Val *m) {
  const MgGraph *g = &c->p->graphs[gid];
  const MgTensor *tx = &g->tensors[op->inputs[0]];
  bool folds = g->forloop > 1;
  int last = tx->rank - 1;
  Val v;
  switch (op->acc) {
  case MG_ACCUM_MAX:
    v = as_max(x, gid, op->inputs[0], tx);
    if (v.kind == V_MAX && folds)
      return max_named(running(v.t[0].id), false, v.t[0].mask, false);
    return v;
  case MG_ACCUM_ONLINE:
    // Σ x_i·exp(m_i − M): a value scaled by exp(−m_i) comes out scaled by
    // exp(−M), M the running max.
    if (!folds)
      return *x;
    if (op->num_inputs < 2)
      return unknown();
    Val mx = as_max(m, gid, op->inputs[1], &g->tensors[op->inputs[1]]);
    if (mx.kind != V_MAX || x->kind != V_REL)
      return unknown();
    v = *x;
    for (uint32_t k = 0; k < v.n; k++) {
      if (v.t[k].id == mx.t[0].id && v.t[k].e == 1)
        v.t[k] = (Term){running(mx.t[0].id), 1, false, mx.t[0].mask};
      else if (v.t[k].loop)
        return unknown();
    }
    v.varies = false;
    return v;
  default: // SUM, SUM_LAST, SUM_SQ_LAST
    v = op->acc == MG_ACCUM_SUM_SQ_LAST ? scale(x, x, 1) : *x;
    if (v.kind == V_UNKNOWN || v.kind == V_SHIFT || v.kind == V_MAX)
      return unknown();
    if (op->acc != MG_ACCUM_SUM) {
      check_sum(c, &v, tx, last);
      drop_dim(&v, last);
    }
    for (uint32_t k = 0; folds && k < v.n; k++)
      if (v.t[k].loop)
        c->mixes = true;
    for (uint32_t k = 0; k < v.n; k++)
      v.t[k].loop = false;
    v.varies = false;
    return v;
  }
}

static Val eval(Ctx *c, MgGraphId gid, const MgOp *op, const Val *vals);

// A block graph on operand values `in`; writes its outputs' values.
static void eval_block(Ctx *c, const MgOp *custom, const Val *in, Val *out) {
  for (uint32_t k = 0; k < custom->num_outputs; k++)
    out[k] = unknown();
  MgGraphId gid = (MgGraphId)custom->attr;
  if (gid >= c->p->num_graphs)
    return;
  const MgGraph *g = &c->p->graphs[gid];
  Val *vals = malloc((g->num_tensors ? g->num_tensors : 1) * sizeof *vals);
  if (!vals)
    return;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    Val v;
    if (op->kind == MG_OP_INPUT) {
      v = op->attr >= 0 && (uint32_t)op->attr < custom->num_inputs
              ? in[op->attr] : unknown();
    } else if (op->kind == MG_OP_ITERATOR) {
      v = vals[op->inputs[0]];
      v.varies = op->fmap != MG_MAP_NONE;
      for (uint32_t k = 0; k < v.n; k++)
        v.t[k].loop = op->fmap != MG_MAP_NONE && (v.t[k].mask >> op->fmap & 1);
    } else if (op->kind == MG_OP_SAVER) {
      // Per-block values laid side by side: their maxes vary along the
      // dims the grid maps to.
      v = vals[op->inputs[0]];
      v.varies = false;
      for (uint32_t k = 0; k < v.n; k++) {
        v.t[k].loop = false;
        for (int a = 0; a < 3; a++)
          if (op->omap[a] != MG_MAP_NONE && g->grid[a] > 1)
            v.t[k].mask |= (uint8_t)(1u << op->omap[a]);
      }
    } else {
      v = eval(c, gid, op, vals);
    }
    if (op->num_outputs)
      vals[op->outputs[0]] = v;
  }
  for (uint32_t k = 0; k < g->num_outputs && k < custom->num_outputs; k++)
    out[k] = vals[g->outputs[k]];
  free(vals);
}

static Val eval(Ctx *c, MgGraphId gid, const MgOp *op, const Val *vals) {
  const MgGraph *g = &c->p->graphs[gid];
  const Val *a = &vals[op->inputs[0]];
  const Val *b = op->num_inputs > 1 ? &vals[op->inputs[1]] : NULL;
  const MgTensor *ta = &g->tensors[op->inputs[0]];
  const MgTensor *to = &g->tensors[op->outputs[0]];
  bool varies = a->varies || (b && b->varies);
  Val v;
  switch ((MgOpKind)op->kind) {
  case MG_OP_SUB:
    if (b->kind != V_MAX)
      return a->kind == V_CLEAN && b->kind == V_CLEAN ? clean(varies)
                                                      : unknown();
    if (a->kind != V_CLEAN && a->kind != V_SHIFT && a->kind != V_MAX)
      return unknown();
    v = *a;
    v.kind = V_SHIFT;
    v.varies = varies;
    if (a->kind == V_CLEAN)
      v.n = 0;
    else if (a->kind == V_MAX)
      v.t[0].e = -1; // m' − m: the exponent of a rescale factor
    if (!add_terms(&v, b, 1))
      return unknown();
    return v.n ? v : clean(varies);
  case MG_OP_ADD:
    if (a->kind == V_CLEAN && b->kind == V_CLEAN)
      return clean(varies);
    if (a->kind == V_REL && b->kind == V_REL && a->n == b->n &&
        memcmp(a->t, b->t, a->n * sizeof a->t[0]) == 0) {
      v = *a;
      v.varies = varies;
      return v;
    }
    return unknown();
  case MG_OP_MUL:
    return scale(a, b, 1);
  case MG_OP_DIV:
    return scale(a, b, -1);
  case MG_OP_MATMUL: {
    int r = ta->rank;
    Val x = *a, y = *b;
    check_sum(c, &x, ta, r - 1);
    check_sum(c, &y, &g->tensors[op->inputs[1]], r - 2);
    drop_dim(&x, r - 1);
    drop_dim(&y, r - 2);
    return scale(&x, &y, 1);
  }
  case MG_OP_EXP:
    if (a->kind == V_CLEAN)
      return clean(varies);
    if (a->kind != V_SHIFT)
      return unknown();
    v = *a;
    v.kind = V_REL;
    return v;
  case MG_OP_SQUARE:
    return scale(a, a, 1);
  case MG_OP_MUL_SCALAR:
  case MG_OP_DIV_SCALAR:
    return a->kind == V_CLEAN || a->kind == V_REL ? *a : unknown();
  case MG_OP_ADD_SCALAR: // a constant added: clean stays clean
    return a->kind == V_CLEAN ? *a : unknown();
  case MG_OP_SUM:
  case MG_OP_REDUCE_MAX:
    // Over a dim of extent 1 (a loop tile one element wide): the identity,
    // though a max of one element is a max all the same.
    if (op->attr >= 0 && op->attr < ta->rank && ta->dims[op->attr] == 1)
      return op->kind == MG_OP_REDUCE_MAX && a->kind == V_CLEAN
                 ? as_max(a, gid, op->outputs[0], to) : *a;
    if (op->kind == MG_OP_REDUCE_MAX) {
      if (a->kind != V_CLEAN)
        return unknown();
      return max_named(name_of(gid, op->outputs[0]), a->varies,
                       (uint8_t)(all_dims(to) & ~(1u << op->attr)),
                       a->varies);
    }
    if (a->kind != V_CLEAN && a->kind != V_REL)
      return unknown();
    v = *a;
    check_sum(c, &v, ta, op->attr);
    drop_dim(&v, op->attr);
    return v;
  case MG_OP_MAX:
    if ((a->kind != V_CLEAN && a->kind != V_MAX) ||
        (b->kind != V_CLEAN && b->kind != V_MAX))
      return unknown();
    return max_named(name_of(gid, op->outputs[0]), varies, all_dims(to),
                     varies);
  case MG_OP_ACCUM:
    return accum(c, gid, op, a, b);
  default:
    // Other unary ops, views, concat, thread graphs: judged only when no
    // max is involved.
    for (uint32_t k = 0; k < op->num_inputs; k++) {
      if (vals[op->inputs[k]].kind != V_CLEAN)
        return unknown();
      varies |= vals[op->inputs[k]].varies;
    }
    return clean(varies);
  }
}

bool mg_search_mixes_maxes(const MgProgram *p) {
  if (!p->num_graphs)
    return false;
  const MgGraph *g = &p->graphs[0];
  Val *vals = malloc((g->num_tensors ? g->num_tensors : 1) * sizeof *vals);
  if (!vals)
    return false;
  Ctx c = {p, false};
  for (uint32_t i = 0; i < g->num_ops && !c.mixes; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_INPUT) {
      vals[op->outputs[0]] = clean(false);
    } else if (op->kind == MG_OP_CUSTOM) {
      Val in[MG_MAX_OP_INPUTS], out[MG_MAX_OP_OUTPUTS];
      for (uint32_t k = 0; k < op->num_inputs; k++)
        in[k] = vals[op->inputs[k]];
      eval_block(&c, op, in, out);
      for (uint32_t k = 0; k < op->num_outputs; k++)
        vals[op->outputs[k]] = out[k];
    } else {
      Val v = eval(&c, 0, op, vals);
      for (uint32_t k = 0; k < op->num_outputs; k++)
        vals[op->outputs[k]] = k ? unknown() : v;
    }
  }
  free(vals);
  return c.mixes;
}
