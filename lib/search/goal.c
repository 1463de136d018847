//===- goal.c - What the search learns from the target program ------------===//
//
// Before enumerating, the search reads the target once:
//  - its vocabulary: the element-wise kinds, scalars, matmul and sums it
//    uses (candidates are built from the same words, plus the block-level
//    iterators, accumulators and savers);
//  - the budget: how many exp and non-LAX ops (sqrt, silu, ...) it applies;
//    an equivalent candidate applies each such function to the same
//    arguments, so it needs no more of them (use_kind_budget);
//  - dimension roles of its inputs, by union-find over (tensor, dim) pairs
//    through its ops (roles.c says how candidates use them);
//  - the exact goal: the classes, types and roles of its outputs.
// Roles are numbered in the order their first (tensor, dim) appears, so the
// numbering is deterministic.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

bool mg_search_counted(MgOpKind kind) {
  return kind != MG_OP_INPUT && kind != MG_OP_ITERATOR &&
         kind != MG_OP_SAVER && !mg_op_kind_is_unary(kind);
}

bool mg_search_budgeted(MgOpKind kind) {
  return kind == MG_OP_EXP || mg_op_kind_is_opaque(kind);
}

MgAbsId mg_search_input_class(const Search *s, uint32_t position) {
  if (!s->abs)
    return MG_ABS_NONE;
  return mg_absexpr_lookup(s->abs, MG_ABS_INPUT, position, MG_ABS_NONE,
                           MG_ABS_NONE);
}

//===--- Union-find over (tensor, dim) ------------------------------------===//

typedef struct Uf {
  uint32_t *parent;
  uint32_t n;
} Uf;

static uint32_t uf_find(Uf *u, uint32_t x) {
  while (u->parent[x] != x) {
    u->parent[x] = u->parent[u->parent[x]];
    x = u->parent[x];
  }
  return x;
}

// Keeps the smaller index as root so the numbering follows first use.
static void uf_union(Uf *u, uint32_t a, uint32_t b) {
  a = uf_find(u, a);
  b = uf_find(u, b);
  if (a == b)
    return;
  if (a < b)
    u->parent[b] = a;
  else
    u->parent[a] = b;
}

#define SLOT(t, d) ((t) * MG_MAX_DIMS + (d))

static void suffix_products(const MgTensor *t, int64_t *stride) {
  stride[t->rank] = 1;
  for (uint32_t d = t->rank; d-- > 0;)
    stride[d] = stride[d + 1] * t->dims[d];
}

// A reshape keeps a dim only where a result dim and an operand dim own the
// same digits of the row-major flat index (same extent, same stride): the
// dims a head split leaves alone. Split or merged dims get roles of their
// own: a part of a dim does not index what the whole does.
static void unify_reshape(Uf *u, MgTensorId a, const MgTensor *ta,
                          MgTensorId o, const MgTensor *to) {
  int64_t S[MG_MAX_DIMS + 1], T[MG_MAX_DIMS + 1];
  suffix_products(to, S);
  suffix_products(ta, T);
  for (uint32_t d = 0; d < to->rank; d++)
    for (uint32_t e = 0; e < ta->rank; e++)
      if (S[d] == T[e] && S[d + 1] == T[e + 1])
        uf_union(u, SLOT(a, e), SLOT(o, d));
}

// Unifies dims of graph 0 of the target as its ops relate them. Only true
// equalities: two dims share a role when they index the same thing.
static void unify_op(Uf *u, const MgGraph *g, const MgOp *op) {
  if (op->num_outputs != 1 || op->num_inputs < 1)
    return;
  MgTensorId o = op->outputs[0], a = op->inputs[0];
  const MgTensor *to = &g->tensors[o], *ta = &g->tensors[a];
  switch ((MgOpKind)op->kind) {
  case MG_OP_MATMUL: {
    MgTensorId b = op->inputs[1];
    uint32_t r = ta->rank;
    for (uint32_t d = 0; d + 2 < r; d++) {
      uf_union(u, SLOT(a, d), SLOT(o, d));
      uf_union(u, SLOT(b, d), SLOT(o, d));
    }
    uf_union(u, SLOT(a, r - 1), SLOT(b, r - 2));
    uf_union(u, SLOT(a, r - 2), SLOT(o, r - 2));
    uf_union(u, SLOT(b, r - 1), SLOT(o, r - 1));
    return;
  }
  case MG_OP_SUM: case MG_OP_REDUCE_MAX:
    for (uint32_t d = 0; d < ta->rank; d++)
      if ((int32_t)d != op->attr)
        uf_union(u, SLOT(a, d), SLOT(o, d));
    return;
  case MG_OP_TRANSPOSE: // result dim d is operand dim perm[d]
    for (uint32_t d = 0; d < to->rank; d++)
      uf_union(u, SLOT(a, (uint32_t)op->perm[d]), SLOT(o, d));
    return;
  case MG_OP_RESHAPE:
    unify_reshape(u, a, ta, o, to);
    return;
  case MG_OP_SLICE: case MG_OP_CONCAT:
    // The cut or joined dim indexes a part or a union of what the operand
    // dims index: a role of its own. The other dims are the operands'.
    for (uint32_t i = 0; i < op->num_inputs; i++)
      for (uint32_t d = 0; d < to->rank; d++)
        if ((int32_t)d != op->attr)
          uf_union(u, SLOT(op->inputs[i], d), SLOT(o, d));
    return;
  case MG_OP_IM2COL: // patches: roles of their own, as a custom op's
  case MG_OP_CUSTOM:
    return; // results get roles of their own
  default: // element-wise: every non-broadcast dim meets the result's
    for (uint32_t i = 0; i < op->num_inputs; i++) {
      const MgTensor *ti = &g->tensors[op->inputs[i]];
      for (uint32_t d = 0; d < ti->rank && d < to->rank; d++)
        if (ti->dims[d] == to->dims[d])
          uf_union(u, SLOT(op->inputs[i], d), SLOT(o, d));
    }
    return;
  }
}

// Roles of every tensor dim of graph 0, numbered from 1 by first use;
// size-1 dims are ROLE_ONE.
static MgStatus target_roles(const MgGraph *g, MgRole *roles, MgDiag *diag) {
  uint32_t n = g->num_tensors * MG_MAX_DIMS;
  Uf u = {malloc((n ? n : 1) * sizeof(uint32_t)), n};
  uint32_t *label = malloc((n ? n : 1) * sizeof(uint32_t));
  if (!u.parent || !label) {
    free(u.parent);
    free(label);
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  }
  for (uint32_t i = 0; i < n; i++) {
    u.parent[i] = i;
    label[i] = 0;
  }
  for (uint32_t i = 0; i < g->num_ops; i++)
    unify_op(&u, g, &g->ops[i]);
  MgRole next = 1;
  MgStatus st = MG_STATUS_OK;
  for (uint32_t t = 0; t < g->num_tensors; t++)
    for (uint32_t d = 0; d < MG_MAX_DIMS; d++) {
      const MgTensor *tt = &g->tensors[t];
      if (d >= tt->rank || tt->dims[d] == 1) {
        roles[SLOT(t, d)] = ROLE_ONE;
        continue;
      }
      uint32_t root = uf_find(&u, SLOT(t, d));
      if (!label[root]) {
        if (next > ROLE_MAX_TARGET) {
          st = mg_diag_set(diag, MG_STATUS_UNSUPPORTED, 0, -1,
                           "target has more than %u dimension roles",
                           ROLE_MAX_TARGET);
          break;
        }
        label[root] = next++;
      }
      roles[SLOT(t, d)] = label[root];
    }
  free(u.parent);
  free(label);
  return st;
}

//===--- Vocabulary -------------------------------------------------------===//

static void add_scalar(Vocab *v, const MgOp *op) {
  for (uint32_t i = 0; i < v->num_scalars; i++)
    if (v->scalars[i].kind == op->kind &&
        memcmp(&v->scalars[i].value, &op->scalar, sizeof(double)) == 0)
      return;
  if (v->num_scalars < SEARCH_MAX_SCALARS)
    v->scalars[v->num_scalars++] = (ScalarOp){op->kind, op->scalar};
}

static void build_vocab(const MgProgram *t, Vocab *v) {
  memset(v, 0, sizeof *v);
  for (uint32_t g = 0; g < t->num_graphs; g++)
    for (uint32_t i = 0; i < t->graphs[g].num_ops; i++) {
      const MgOp *op = &t->graphs[g].ops[i];
      MgOpKind k = (MgOpKind)op->kind;
      if (mg_op_kind_has_scalar(k))
        add_scalar(v, op);
      else if (mg_op_kind_is_elementwise(k) || k == MG_OP_MATMUL ||
               k == MG_OP_SUM || k == MG_OP_REDUCE_MAX)
        v->kind[k] = true;
      if (k == MG_OP_ACCUM && op->acc < MG_ACCUM_COUNT)
        v->accum[op->acc] = true;
      if (mg_search_budgeted(k) && v->budget[k] < UINT16_MAX)
        v->budget[k]++;
    }
  // A for-loop needs a plain accumulator; row sums and sums of squares
  // become accumulators when the loop runs over the summed dim.
  v->accum[MG_ACCUM_SUM] = true;
  if (v->kind[MG_OP_SUM])
    v->accum[MG_ACCUM_SUM_LAST] = true;
  if (v->kind[MG_OP_SUM] && v->kind[MG_OP_SQUARE])
    v->accum[MG_ACCUM_SUM_SQ_LAST] = true;
  // A row max over the loop needs a running max; a stable softmax's sums
  // over the loop need the online rescale (FlashAttention-2, split-KV).
  if (v->kind[MG_OP_REDUCE_MAX])
    v->accum[MG_ACCUM_MAX] = true;
  if (v->kind[MG_OP_REDUCE_MAX] && v->kind[MG_OP_EXP])
    v->accum[MG_ACCUM_ONLINE] = true;
}

//===--- Analysis ---------------------------------------------------------===//

static const MgTensor *input_tensor(const MgGraph *g, uint32_t pos,
                                    MgTensorId *id) {
  for (uint32_t i = 0; i < g->num_ops; i++)
    if (g->ops[i].kind == MG_OP_INPUT && g->ops[i].attr == (int32_t)pos) {
      *id = g->ops[i].outputs[0];
      return &g->tensors[*id];
    }
  return NULL;
}

// Anchors: the operand classes of the target's unary and scalar ops and
// the divisor classes of its divisions (graph 0).
static void find_anchors(Search *s, const MgGraph *g, const MgAbsId *cls) {
  s->facts.num_anchors = 0;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    bool div = op->kind == MG_OP_DIV;
    if (!div && !mg_op_kind_is_unary((MgOpKind)op->kind))
      continue;
    if (s->facts.num_anchors == 64) {
      s->facts.num_anchors++; // overflow: the rule is off
      return;
    }
    s->facts.anchors[s->facts.num_anchors].kind = op->kind;
    s->facts.anchors[s->facts.num_anchors].scalar =
        mg_op_kind_has_scalar((MgOpKind)op->kind) ? op->scalar : 0.0;
    s->facts.anchors[s->facts.num_anchors++].operand =
        cls[op->inputs[div ? 1 : 0]];
  }
}

// Support slots: inputs, then the target's atoms and divisors, each with
// the roles of the target tensor it stands for.
static void add_slot(Search *s, uint8_t kind, MgAbsId cls, const MgTensor *t,
                     const MgRole *roles) {
  for (uint32_t i = 0; i < s->facts.num_slots; i++)
    if (s->facts.slots[i].kind == kind && s->facts.slots[i].cls == cls)
      return;
  if (s->facts.num_slots == SUP_SLOTS)
    return; // beyond: counted as a constant
  s->facts.slots[s->facts.num_slots].kind = kind;
  s->facts.slots[s->facts.num_slots].cls = cls;
  s->facts.slots[s->facts.num_slots].rank = t->rank;
  memcpy(s->facts.slots[s->facts.num_slots].role, roles,
         sizeof(MgRole) * MG_MAX_DIMS);
  s->facts.num_slots++;
}

static void find_slots(Search *s, const MgGraph *g, const MgAbsId *cls,
                       const MgRole *roles) {
  s->facts.num_slots = 0;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_INPUT)
      add_slot(s, MG_OP_INPUT, (MgAbsId)op->attr, &g->tensors[op->outputs[0]],
               &roles[SLOT(op->outputs[0], 0)]);
  }
  if (!cls)
    return;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (mg_search_budgeted((MgOpKind)op->kind))
      add_slot(s, op->kind, cls[op->inputs[0]], &g->tensors[op->outputs[0]],
               &roles[SLOT(op->outputs[0], 0)]);
    else if (op->kind == MG_OP_DIV)
      add_slot(s, MG_OP_DIV, cls[op->inputs[1]], &g->tensors[op->inputs[1]],
               &roles[SLOT(op->inputs[1], 0)]);
  }
}

// Supports of the target's tensors and its sums (roles they reduce and
// summand supports).
static MgStatus find_reductions(Search *s, const MgGraph *g,
                                const MgAbsId *cls, const MgRole *roles,
                                MgDiag *diag) {
  memset(s->facts.reduced, 0, sizeof s->facts.reduced);
  s->facts.num_reductions = 0;
  Support *sup = malloc((g->num_tensors ? g->num_tensors : 1) * sizeof *sup);
  if (!sup)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_INPUT) {
      mg_sup_input(s, (uint32_t)op->attr, &sup[op->outputs[0]]);
      continue;
    }
    const Support *sa = &sup[op->inputs[0]];
    const Support *sb = op->num_inputs > 1 ? &sup[op->inputs[1]] : NULL;
    MgAbsId ca = cls ? cls[op->inputs[0]] : MG_ABS_NONE;
    MgAbsId cb = cls && op->num_inputs > 1 ? cls[op->inputs[1]] : MG_ABS_NONE;
    Support summand;
    MgRole r = ROLE_ONE;
    if ((op->kind == MG_OP_SUM || op->kind == MG_OP_REDUCE_MAX) &&
        op->attr >= 0) {
      // A max reduces its role like a sum (roles.c); its summand rule is
      // checked only for sums (monomials.c), so recording it is harmless.
      r = roles[SLOT(op->inputs[0], (uint32_t)op->attr)];
      summand = *sa;
    } else if (op->kind == MG_OP_MATMUL) {
      r = roles[SLOT(op->inputs[0], g->tensors[op->inputs[0]].rank - 1)];
      mg_sup_product(sa, sb, &summand);
    }
    for (uint32_t k = 0; k < op->num_outputs; k++) {
      if (op->kind == MG_OP_CUSTOM) {
        memset(&sup[op->outputs[k]], 0, sizeof(Support));
        sup[op->outputs[k]].top = true; // not analysed
      } else {
        mg_sup_of_op(s, op,
                     &(Operands){{NULL, NULL, ca, sa}, {NULL, NULL, cb, sb}},
                     &sup[op->outputs[k]]);
      }
    }
    if (r == ROLE_ONE || r > ROLE_MAX_TARGET)
      continue;
    s->facts.reduced[r] = 1;
    mg_search_add_reduction(s, r, &summand);
  }
  for (uint32_t k = 0; k < s->facts.outputs.n; k++)
    s->facts.outputs.sup[k] = sup[g->outputs[k]];
  // What each atom / divisor slot is made from (its argument's slots).
  for (uint32_t i = 0; cls && i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    bool div = op->kind == MG_OP_DIV;
    if (!div && !mg_search_budgeted((MgOpKind)op->kind))
      continue;
    MgTensorId arg = op->inputs[div ? 1 : 0];
    for (uint32_t j = 0; j < s->facts.num_slots; j++)
      if (s->facts.slots[j].kind == op->kind &&
          s->facts.slots[j].cls == cls[arg])
        s->facts.slots[j].needs = sup[arg].top ? 0 : mg_sup_slots(&sup[arg]);
  }
  free(sup);
  return MG_STATUS_OK;
}

bool mg_search_bounds_by_max(const MgGraph *g, MgTensorId a, MgTensorId m) {
  const MgOp *op = &g->ops[g->tensors[m].producer];
  if (op->kind == MG_OP_REDUCE_MAX)
    return op->inputs[0] == a;
  if (op->kind == MG_OP_MAX)
    return op->inputs[0] == a || op->inputs[1] == a;
  return false;
}

// The shift rule (block.c) holds candidates to what a stable target does:
// every exp guarded, every max it subtracts a max of the operand itself.
// Without it, sub(m, m') of any two maxes erases to the constant 0 (the
// exponent of a rescale factor), and a block graph with several maxes
// makes millions of such zeros.
static bool shift_rule_applies(const Search *s, const MgGraph *g,
                               const MgAbsId *cls) {
  if (!s->abs || !s->facts.stability.exps || s->facts.stability.unguarded)
    return false;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_SUB && mg_absexpr_is_max(s->abs, cls[op->inputs[1]]) &&
        !mg_search_bounds_by_max(g, op->inputs[0], op->inputs[1]))
      return false;
  }
  return true;
}

MgStatus mg_search_analyze(Search *s, MgDiag *diag) {
  const MgProgram *t = s->target;
  const MgGraph *g = &t->graphs[0];
  if (g->num_inputs > sizeof s->facts.in_type / sizeof s->facts.in_type[0])
    return mg_diag_set(diag, MG_STATUS_UNSUPPORTED, 0, -1,
                       "target has %u inputs; the search handles at most %zu",
                       g->num_inputs,
                       sizeof s->facts.in_type / sizeof s->facts.in_type[0]);
  if (g->num_outputs == 0 || g->num_outputs > SEARCH_MAX_OUTPUTS)
    return mg_diag_set(diag, MG_STATUS_UNSUPPORTED, 0, -1,
                       "target has %u outputs; the search handles 1 to %d",
                       g->num_outputs, SEARCH_MAX_OUTPUTS);
  // Roles, supports and anchors are read off predefined ops; a graph-defined
  // kernel in the target would hide them.
  for (uint32_t i = 0; i < g->num_ops; i++)
    if (g->ops[i].kind == MG_OP_CUSTOM)
      return mg_diag_set(diag, MG_STATUS_UNSUPPORTED, 0, (int32_t)i,
                         "target op %u is a graph-defined kernel; the search "
                         "takes kernel graphs of predefined ops", i);
  build_vocab(t, &s->facts.vocab);
  MgRole *roles = malloc((g->num_tensors ? g->num_tensors : 1) *
                         MG_MAX_DIMS * sizeof(MgRole));
  if (!roles)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  MgStatus st = target_roles(g, roles, diag);
  s->facts.num_inputs = g->num_inputs;
  for (uint32_t i = 0; st == MG_STATUS_OK && i < g->num_inputs; i++) {
    MgTensorId id;
    const MgTensor *in = input_tensor(g, i, &id);
    if (!in) {
      st = mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                       "target lacks input %u", i);
      break;
    }
    s->facts.in_type[i] = *in;
    memset(&s->facts.in_info[i], 0, sizeof s->facts.in_info[i]);
    s->facts.in_info[i].cls = mg_search_input_class(s, i);
    memcpy(s->facts.in_info[i].role, &roles[SLOT(id, 0)],
           sizeof(MgRole) * MG_MAX_DIMS);
  }
  Goal *goal = &s->facts.outputs;
  memset(goal, 0, sizeof *goal);
  goal->exact = true;
  goal->n = g->num_outputs;
  for (uint32_t k = 0; st == MG_STATUS_OK && k < g->num_outputs; k++) {
    MgTensorId id = g->outputs[k];
    goal->type[k] = g->tensors[id];
    goal->type[k].producer = 0;
    goal->cls[k] = s->abs ? mg_absexpr_output(s->abs, k) : MG_ABS_NONE;
    memcpy(goal->role[k], &roles[SLOT(id, 0)], sizeof(MgRole) * MG_MAX_DIMS);
    if (s->abs && goal->cls[k] == MG_ABS_NONE)
      st = mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                       "output %u has no abstract expression", k);
  }
  // Classes of the target's tensors, then anchors, slots and sums.
  MgAbsId *cls = NULL;
  if (st == MG_STATUS_OK && s->abs) {
    cls = malloc((g->num_tensors ? g->num_tensors : 1) * sizeof *cls);
    if (!cls)
      st = mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
    for (uint32_t i = 0; cls && i < g->num_ops; i++) {
      MgAbsId out[MG_MAX_OP_OUTPUTS];
      mg_search_classes(s, s->target, 0, i, cls, out);
      for (uint32_t k = 0; k < g->ops[i].num_outputs; k++)
        cls[g->ops[i].outputs[k]] = out[k];
    }
  }
  s->facts.num_cut_classes = 0;
  for (uint32_t id = 0; cls && id < g->num_tensors; id++) {
    bool seen = cls[id] == MG_ABS_NONE;
    for (uint32_t j = 0; j < s->facts.num_cut_classes && !seen; j++)
      seen = s->facts.cut_classes[j] == cls[id];
    if (!seen && s->facts.num_cut_classes < 256)
      s->facts.cut_classes[s->facts.num_cut_classes++] = cls[id];
  }
  s->facts.shift_rule = cls && shift_rule_applies(s, g, cls);
  if (st == MG_STATUS_OK) {
    if (cls)
      find_anchors(s, g, cls);
    find_slots(s, g, cls, roles);
    for (uint32_t i = 0; i < s->facts.num_inputs; i++)
      mg_sup_input(s, i, &s->facts.in_info[i].sup);
    st = find_reductions(s, g, cls, roles, diag);
  }
  free(cls);
  free(roles);
  return st;
}

bool mg_search_anchor_ok(const Search *s, const MgOp *op, MgAbsId ca,
                         MgAbsId cb) {
  bool div = op->kind == MG_OP_DIV;
  if (!s->abs || s->facts.num_anchors > 64 ||
      (!div && !mg_op_kind_is_unary((MgOpKind)op->kind)))
    return true;
  MgAbsId operand = div ? cb : ca;
  double scalar =
      mg_op_kind_has_scalar((MgOpKind)op->kind) ? op->scalar : 0.0;
  for (uint32_t i = 0; i < s->facts.num_anchors; i++)
    if (s->facts.anchors[i].kind == op->kind &&
        s->facts.anchors[i].operand == operand &&
        memcmp(&s->facts.anchors[i].scalar, &scalar, sizeof(double)) == 0)
      return true;
  return false;
}

MgAbsId mg_search_classes(const Search *s, const MgProgram *p, MgGraphId g,
                          MgOpId op, const MgAbsId *tensor_cls, MgAbsId *cls) {
  const MgOp *o = &p->graphs[g].ops[op];
  for (uint32_t k = 0; k < o->num_outputs; k++)
    cls[k] = MG_ABS_NONE;
  if (!s->abs)
    return MG_ABS_NONE;
  mg_absexpr_of_op(s->abs, p, g, op, tensor_cls, cls);
  return cls[0];
}

//===--- Abstract class of an op before it is built -------------------------===//
//
// lib/absexpr's own mapping (mg_absexpr_of_proto), used to drop ops before
// paying for a builder call; built ops take theirs from mg_absexpr_of_op,
// which shares that code.

MgAbsId mg_search_term(const Search *s, const MgOp *op, const MgTensor *ta,
                       MgAbsId a, MgAbsId b, int32_t forloop) {
  // The same mapping as mg_absexpr_of_op (one implementation in absexpr).
  return s->abs ? mg_absexpr_of_proto(s->abs, op, ta, a, b, forloop)
                : MG_ABS_NONE;
}
