//===- terms.c - From μGraph ops to abstract expressions; the public API --===//
//
// One function, eval_op, maps every op kind to its term, for the target
// (inserting into the e-graph) and for candidates (looking up only), so the
// two can never disagree. The mapping (docs/absexpr.md):
//   input i          -> input(i)           (kernel level)
//   matmul, k        -> sum(k, mul(a, b))   k = a's last dim
//   add, mul, div    -> add, mul, div
//   sub a-b          -> add(a, mul(const -1, b))   (but see the erasure)
//   square x         -> mul(x, x)
//   exp .. relu      -> their symbol
//   mul/div_scalar s -> mul(a, const s) / div(a, const s)
//   add_scalar s     -> add(a, const s)
//   max_scalar s     -> maximum(a, const s)
//   min_scalar s     -> mul(maximum(mul(a, const -1), const -s), const -1)
//   sum over dim d   -> sum(n, a)           n = a's dim d
//   max a, b         -> maximum(a, b)
//   reduce_max dim d -> max(n, a)           n = a's dim d
//   iterator, saver  -> their operand       (a tile of X is X)
//   accum SUM        -> sum(F, x)
//   accum SUM_LAST   -> sum(F, sum(e, x))   e = the tile's last dim
//   accum SUM_SQ_LAST-> sum(F, sum(e, mul(x, x)))
//   accum MAX        -> max(F, x)
//   accum ONLINE x,m -> sum(F, x)           (m a max; see the erasure)
//   concat(x, x)     -> x; concat(x, y) -> concat(x, y), an opaque symbol
//   transpose, reshape, slice -> their operand (views, kernel level)
//   custom, thread   -> the body, its inputs bound to the op's operands
// sum(1, x) and max(1, x) are x everywhere (F = 1, size-1 dims).
//
// Shift erasure (docs/absexpr.md): terms forget which max is subtracted:
// x - m is shift(x) whatever max m is, so FlashAttention's tile maxes, the
// row max and split-KV's chunk maxes give one term, and the rescale factors
// between them are 1. (shift(x) is not x: an op computing x - m must not
// look like a copy of x, which the search drops as a duplicate, and the
// unstable exp(x) is no subexpression of the stable exp(shift(x)).) A class
// is a max when it holds a MAX or MAXIMUM node (mg_abs_class_is_max). The
// term builders below map
//   sub(a, m), m a max, a not  -> shift(a)   (which max is forgotten;
//                                             shift(shift(a)) is shift(a))
//   sub(m, m'), both maxes     -> const 0    (a rescale exponent)
//   sub(x, x)                  -> const 0
//   exp(const 0)               -> const 1
//   mul(x, const 1), mul(const 1, x), div(x, const 1) -> x, and
//   mul_scalar 1 / div_scalar 1 -> their operand
//   maximum(x, x)              -> x
//   accum ONLINE (x, m)        -> Σ_F x·exp(m - M), M = max(F, m), built
//                                 with the same maps: sum(F, x) when m is
//                                 a max, sum(F, x·exp(shift(m))) when not,
//                                 x at F = 1
// and, while building the target, keep the classes they drop reachable
// (the max subtracted, the running max M, the constants 0 and 1 of the
// rescale factors), since they are subterms of the target as written.
//
//===----------------------------------------------------------------------===//
#include "egraph.h"

#include <stdlib.h>
#include <string.h>

/// Term builder: inserts into `g` when `insert`, else looks up in `cg`.
typedef struct Eval {
  MgAbsGraph *g;
  const MgAbsGraph *cg;
  bool insert;
} Eval;

// -0.0 and 0.0 are one constant.
static int64_t const_bits(double v) {
  if (v == 0.0)
    v = 0.0;
  int64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return bits;
}

static MgAbsId term(const Eval *e, MgAbsOp op, int64_t param, MgAbsId a,
                    MgAbsId b) {
  return e->insert ? mg_abs_add(e->g, op, param, a, b)
                   : mg_absexpr_lookup(e->cg, op, param, a, b);
}

static MgAbsId bin(const Eval *e, MgAbsOp op, MgAbsId a, MgAbsId b) {
  return term(e, op, 0, a, b);
}

static MgAbsId sum(const Eval *e, int64_t n, MgAbsId a) {
  return term(e, MG_ABS_SUM, n, a, MG_ABS_NONE);
}

static MgAbsId constant(const Eval *e, double v) {
  return term(e, MG_ABS_CONST, const_bits(v), MG_ABS_NONE, MG_ABS_NONE);
}

//===--- The shift erasure's term builders (see the file comment) ---------===//

static const MgAbsGraph *graph_of(const Eval *e) {
  return e->insert ? e->g : e->cg;
}

static MgAbsId canon(const Eval *e, MgAbsId c) {
  const MgAbsGraph *g = graph_of(e);
  return g && c < g->num_nodes ? mg_abs_find_frozen(g, c) : MG_ABS_NONE;
}

// Whether `c` is the class of the constant 0 or 1 (without inserting it;
// a frozen graph has both classes cached).
static bool is_const(const Eval *e, MgAbsId c, bool one) {
  if (c == MG_ABS_NONE || !graph_of(e))
    return false;
  MgAbsId k = !e->insert ? (one ? e->cg->one : e->cg->zero)
                         : mg_abs_lookup_node(e->g, MG_ABS_CONST,
                                              const_bits(one ? 1.0 : 0.0),
                                              MG_ABS_NONE, MG_ABS_NONE);
  return k != MG_ABS_NONE && canon(e, c) == k;
}

static bool is_max(const Eval *e, MgAbsId c) {
  const MgAbsGraph *g = graph_of(e);
  return g && mg_abs_class_is_max(g, c);
}

static bool is_shift(const Eval *e, MgAbsId c) {
  const MgAbsGraph *g = graph_of(e);
  return g && mg_abs_class_op(g, c) == MG_ABS_SHIFT;
}

// Target only: class `c`, dropped from a term by the erasure, stays
// reachable (candidates computing it are kept).
static void keep(const Eval *e, MgAbsId c) {
  if (e->insert)
    mg_abs_add_root(e->g, c);
}

// Target only: a shift by max `m` was erased. Keeps m, and the constants a
// rescale factor exp(m' - m) erases to (0, and exp(0) = 1), so that
// candidates combining partial results under different maxes survive.
static void erased_shift(const Eval *e, MgAbsId m) {
  if (!e->insert)
    return;
  keep(e, m);
  keep(e, constant(e, 0.0));
  keep(e, constant(e, 1.0));
}

static MgAbsId mul(const Eval *e, MgAbsId a, MgAbsId b) {
  if (is_const(e, b, true)) { // x·1 = x
    keep(e, b);
    return a;
  }
  if (is_const(e, a, true)) {
    keep(e, a);
    return b;
  }
  return bin(e, MG_ABS_MUL, a, b);
}

static MgAbsId quot(const Eval *e, MgAbsId a, MgAbsId b) {
  if (is_const(e, b, true)) { // x/1 = x
    keep(e, b);
    return a;
  }
  return bin(e, MG_ABS_DIV, a, b);
}

static MgAbsId expo(const Eval *e, MgAbsId a) {
  if (is_const(e, a, false)) { // exp(0) = 1
    keep(e, a);
    return constant(e, 1.0);
  }
  return term(e, MG_ABS_EXP, 0, a, MG_ABS_NONE);
}

// shift(a): a minus some max (a shift of a shift is one shift).
static MgAbsId shifted(const Eval *e, MgAbsId a) {
  return is_shift(e, a) ? canon(e, a)
                        : term(e, MG_ABS_SHIFT, 0, a, MG_ABS_NONE);
}

static MgAbsId sub(const Eval *e, MgAbsId a, MgAbsId b) {
  a = canon(e, a);
  b = canon(e, b);
  if (a == MG_ABS_NONE || b == MG_ABS_NONE)
    return MG_ABS_NONE;
  bool ma = is_max(e, a), mb = is_max(e, b);
  if (a == b || (ma && mb)) { // x - x; m - m', the exponent of a rescale
    keep(e, a);
    keep(e, b);
    return constant(e, 0.0);
  }
  if (mb) { // x - m: which max is forgotten
    erased_shift(e, b);
    return shifted(e, a);
  }
  return bin(e, MG_ABS_ADD, a, bin(e, MG_ABS_MUL, constant(e, -1.0), b));
}

static MgAbsId maximum(const Eval *e, MgAbsId a, MgAbsId b) {
  a = canon(e, a);
  b = canon(e, b);
  return a != MG_ABS_NONE && a == b ? a : bin(e, MG_ABS_MAXIMUM, a, b);
}

// Σ_i x_i·exp(m_i - M) over F iterations, M = max_i m_i = max(F, m),
// erased as sub, exp and mul above erase it.
static MgAbsId online(const Eval *e, MgAbsId x, MgAbsId m, int32_t forloop) {
  if (x == MG_ABS_NONE || m == MG_ABS_NONE)
    return MG_ABS_NONE;
  erased_shift(e, m);
  if (forloop <= 1) // M = m: exp(m - m) = 1
    return x;
  if (e->insert) // the running max M: a candidate may compute it
    keep(e, term(e, MG_ABS_MAX, forloop, m, MG_ABS_NONE));
  // m - M is 0 when m is a max too (then exp(0)·x = x), shift(m) when it
  // is not (tiles one element wide: m is the element itself).
  return sum(e, forloop,
             is_max(e, m) ? x : mul(e, x, expo(e, shifted(e, m))));
}

static MgAbsOp unary_symbol(MgOpKind kind) {
  switch (kind) {
  case MG_OP_EXP:
    return MG_ABS_EXP;
  case MG_OP_SQRT:
    return MG_ABS_SQRT;
  case MG_OP_RSQRT:
    return MG_ABS_RSQRT;
  case MG_OP_SILU:
    return MG_ABS_SILU;
  case MG_OP_GELU:
    return MG_ABS_GELU;
  case MG_OP_LOG:
    return MG_ABS_LOG;
  case MG_OP_TANH:
    return MG_ABS_TANH;
  case MG_OP_ERF:
    return MG_ABS_ERF;
  default:
    return MG_ABS_RELU;
  }
}

static int64_t last_dim(const MgTensor *t) {
  return t->rank ? t->dims[t->rank - 1] : 1;
}

static uint32_t eval_op(const Eval *e, const MgProgram *p, MgGraphId gid,
                        MgOpId oid, const MgAbsId *ids, MgAbsId *out);

// Runs the body graph that call `op` (a custom or thread op in a graph of
// `level`) names, with its inputs bound to the operands of `op`; writes
// its outputs.
static uint32_t eval_body(const Eval *e, const MgProgram *p, uint8_t level,
                          const MgOp *op, const MgAbsId *ids, MgAbsId *out) {
  const MgGraphId sub = (MgGraphId)op->attr;
  for (uint32_t i = 0; i < op->num_outputs; ++i)
    out[i] = MG_ABS_NONE;
  // Bodies sit one level down (kernel -> block -> thread), so expanding
  // them always ends, even on a program no builder checked.
  if (sub >= p->num_graphs || p->graphs[sub].level != level + 1)
    return op->num_outputs;
  const MgGraph *body = &p->graphs[sub];
  MgAbsId local[256];
  MgAbsId *t = body->num_tensors <= 256
                   ? local
                   : malloc((size_t)body->num_tensors * sizeof *t);
  if (!t) {
    if (e->insert)
      e->g->nomem = true;
    return op->num_outputs;
  }
  for (uint32_t i = 0; i < body->num_tensors; ++i)
    t[i] = MG_ABS_NONE;
  for (uint32_t i = 0; i < body->num_ops; ++i) {
    const MgOp *bop = &body->ops[i];
    if (bop->kind == MG_OP_INPUT) {
      if (bop->attr >= 0 && (uint32_t)bop->attr < op->num_inputs)
        t[bop->outputs[0]] = ids[op->inputs[bop->attr]];
      continue;
    }
    MgAbsId res[MG_MAX_OP_OUTPUTS];
    uint32_t n = eval_op(e, p, sub, i, t, res);
    for (uint32_t j = 0; j < n; ++j)
      t[bop->outputs[j]] = res[j];
  }
  for (uint32_t i = 0; i < op->num_outputs && i < body->num_outputs; ++i)
    out[i] = t[body->outputs[i]];
  if (t != local)
    free(t);
  return op->num_outputs;
}

// The term of a single-output op that needs no body: `in0` is the type of
// its first operand (contraction and reduction extents), `forloop` the
// block graph's F (accumulators). MG_ABS_NONE for the other kinds.
static MgAbsId eval_local(const Eval *e, const MgOp *op, const MgTensor *in0,
                          MgAbsId a, MgAbsId b, int32_t forloop) {
  if (mg_op_kind_is_opaque((MgOpKind)op->kind))
    return term(e, unary_symbol((MgOpKind)op->kind), 0, a, MG_ABS_NONE);
  switch ((MgOpKind)op->kind) {
  case MG_OP_MATMUL:
    return sum(e, last_dim(in0), mul(e, a, b));
  case MG_OP_ADD:
    return bin(e, MG_ABS_ADD, a, b);
  case MG_OP_SUB:
    return sub(e, a, b);
  case MG_OP_MUL:
    return mul(e, a, b);
  case MG_OP_DIV:
    return quot(e, a, b);
  case MG_OP_SQUARE:
    return mul(e, a, a);
  case MG_OP_MAX:
    return maximum(e, a, b);
  case MG_OP_EXP:
    return expo(e, a);
  case MG_OP_MUL_SCALAR: // x·1 is x (and needs no constant 1 to exist)
    return op->scalar == 1.0 ? a : mul(e, a, constant(e, op->scalar));
  case MG_OP_DIV_SCALAR:
    return op->scalar == 1.0 ? a : quot(e, a, constant(e, op->scalar));
  case MG_OP_ADD_SCALAR: // x + 0 is x
    return op->scalar == 0.0 ? a
                             : bin(e, MG_ABS_ADD, a, constant(e, op->scalar));
  case MG_OP_MAX_SCALAR:
    return maximum(e, a, constant(e, op->scalar));
  case MG_OP_MIN_SCALAR: { // -max(-x, -c), as a minimum of tensors lifts
    MgAbsId neg = constant(e, -1.0);
    MgAbsId m = maximum(e, mul(e, a, neg), constant(e, -op->scalar));
    return mul(e, m, neg);
  }
  case MG_OP_SUM:
  case MG_OP_REDUCE_MAX:
    return term(e, op->kind == MG_OP_SUM ? MG_ABS_SUM : MG_ABS_MAX,
                op->attr >= 0 && op->attr < in0->rank ? in0->dims[op->attr]
                                                       : 0,
                a, MG_ABS_NONE);
  case MG_OP_ACCUM: {
    MgAbsId inner = a;
    if (op->acc == MG_ACCUM_MAX)
      return term(e, MG_ABS_MAX, forloop, a, MG_ABS_NONE);
    if (op->acc == MG_ACCUM_ONLINE)
      return online(e, a, b, forloop);
    if (op->acc == MG_ACCUM_SUM_LAST)
      inner = sum(e, last_dim(in0), a);
    else if (op->acc == MG_ACCUM_SUM_SQ_LAST)
      inner = sum(e, last_dim(in0), mul(e, a, a));
    return sum(e, forloop, inner);
  }
  default:
    return MG_ABS_NONE;
  }
}

static uint32_t eval_op(const Eval *e, const MgProgram *p, MgGraphId gid,
                        MgOpId oid, const MgAbsId *ids, MgAbsId *out) {
  const MgGraph *gr = &p->graphs[gid];
  const MgOp *op = &gr->ops[oid];
  MgAbsId a = op->num_inputs > 0 ? ids[op->inputs[0]] : MG_ABS_NONE;
  MgAbsId b = op->num_inputs > 1 ? ids[op->inputs[1]] : MG_ABS_NONE;
  MgAbsId r = MG_ABS_NONE;
  switch ((MgOpKind)op->kind) {
  case MG_OP_INPUT:
    // Kernel inputs are symbols; body inputs carry the classes the caller
    // bound (the enclosing custom op's operands).
    r = gr->level == MG_LEVEL_KERNEL
            ? term(e, MG_ABS_INPUT, op->attr, MG_ABS_NONE, MG_ABS_NONE)
            : ids[op->outputs[0]];
    break;
  case MG_OP_CUSTOM:
  case MG_OP_THREAD:
    return eval_body(e, p, gr->level, op, ids, out);
  case MG_OP_ITERATOR:
  case MG_OP_SAVER:
    r = a;
    break;
  case MG_OP_TRANSPOSE:
  case MG_OP_RESHAPE:
  case MG_OP_SLICE:
    // A term describes one element and forgets its position, and a sum's
    // term records how many terms it adds (sum(n, x)), never which dim they
    // came from: so an element of a view is an element of its operand, and
    // a later sum over a moved, split or merged dim is still sum(n, x) for
    // its own extent n (SUM_SPLIT relates a merged extent to its factors).
    r = a;
    break;
  case MG_OP_IM2COL:
    // Patches: each element is one of the operand's or a padding zero; the
    // search never builds one (views.c splits at it), so both sides of any
    // comparison see the same op: its operand's term serves.
    r = a;
    break;
  case MG_OP_CONCAT: // at either level
    // Abstract expressions forget which part of a tensor is which, so the
    // concat of two tiles of one expression is that expression; anything
    // else is an opaque symbol (never equal to a sum or product).
    r = a;
    for (uint32_t i = 1; i < op->num_inputs && r != MG_ABS_NONE; ++i) {
      MgAbsId x = ids[op->inputs[i]];
      if (x != r)
        r = bin(e, MG_ABS_CONCAT, r, x);
    }
    break;
  default:
    if (op->num_inputs > 0)
      r = eval_local(e, op, &gr->tensors[op->inputs[0]], a, b, gr->forloop);
    break;
  }
  for (uint32_t i = 0; i < op->num_outputs; ++i)
    out[i] = i == 0 ? r : MG_ABS_NONE;
  return op->num_outputs;
}

//===--- Public API -------------------------------------------------------===//

MgAbsOptions mg_absexpr_options_default(void) {
  MgAbsOptions o;
  o.max_nodes = 200000;
  o.max_iterations = 32;
  return o;
}

MgAbsStats mg_absexpr_stats(const MgAbsGraph *graph) {
  MgAbsStats s = {0, 0, 0, false};
  return graph ? graph->stats : s;
}

MgAbsGraph *mg_absexpr_create(const MgProgram *target,
                              const MgAbsOptions *options, MgDiag *diag) {
  return mg_abs_create_rules(target, options, MG_ABS_RULES_ALL, diag);
}

MgAbsGraph *mg_abs_create_rules(const MgProgram *target,
                                const MgAbsOptions *options, uint32_t rules,
                                MgDiag *diag) {
  if (!target || target->num_graphs == 0 ||
      target->graphs[0].level != MG_LEVEL_KERNEL) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "target has no root kernel graph");
    return NULL;
  }
  // The verifier's stance: structure is checked, GPU limits are not.
  if (mg_program_validate(target, mg_target_unlimited(), diag) != MG_STATUS_OK)
    return NULL;
  MgAbsOptions opts = options ? *options : mg_absexpr_options_default();
  MgAbsGraph *g = mg_abs_graph_new(&opts);
  if (g) {
    g->rules = rules & MG_ABS_RULES_ALL;
    g->naive = (rules & MG_ABS_NAIVE) != 0;
  }
  const MgGraph *root = &target->graphs[0];
  MgAbsId *ids = malloc(((size_t)root->num_tensors + 1) * sizeof *ids);
  if (g)
    g->outputs = malloc(((size_t)root->num_outputs + 1) * sizeof *g->outputs);
  if (!g || !ids || !g->outputs)
    goto nomem;
  Eval e = {g, NULL, true};
  for (uint32_t i = 0; i < root->num_tensors; ++i)
    ids[i] = MG_ABS_NONE;
  for (uint32_t i = 0; i < root->num_ops; ++i) {
    MgAbsId res[MG_MAX_OP_OUTPUTS];
    uint32_t n = eval_op(&e, target, 0, i, ids, res);
    for (uint32_t j = 0; j < n; ++j)
      ids[root->ops[i].outputs[j]] = res[j];
  }
  g->num_outputs = root->num_outputs;
  for (uint32_t i = 0; i < root->num_outputs; ++i)
    g->outputs[i] = ids[root->outputs[i]];
  free(ids);
  ids = NULL;
  if (g->nomem || !mg_abs_saturate(g) || !mg_abs_finalize(g))
    goto nomem;
  return g;
nomem:
  free(ids);
  mg_absexpr_destroy(g);
  mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1,
              "out of memory building the abstract-expression e-graph");
  return NULL;
}

MgAbsId mg_absexpr_lookup(const MgAbsGraph *graph, MgAbsOp op, int64_t param,
                          MgAbsId a, MgAbsId b) {
  if (!graph || (uint32_t)op >= MG_ABS_COUNT)
    return MG_ABS_NONE;
  uint32_t n = graph->num_nodes;
  // ORDER MG_ABS: arities as in egraph.c's op_arity.
  bool leaf = op == MG_ABS_INPUT || op == MG_ABS_CONST;
  bool binary = op == MG_ABS_ADD || op == MG_ABS_MUL || op == MG_ABS_DIV ||
                op == MG_ABS_CONCAT || op == MG_ABS_MAXIMUM;
  if (leaf) {
    a = b = MG_ABS_NONE;
  } else {
    if (a >= n || (binary && b >= n))
      return MG_ABS_NONE;
    a = graph->parent[a]; // frozen: the union-find is fully compressed
    b = binary ? graph->parent[b] : MG_ABS_NONE;
  }
  if (op == MG_ABS_SUM || op == MG_ABS_MAX) {
    if (param < 1)
      return MG_ABS_NONE;
    if (param == 1)
      return a;
  }
  if (op == MG_ABS_MAXIMUM && a == b)
    return a;
  if (op == MG_ABS_CONST && param == INT64_MIN) // the bits of -0.0
    param = 0;
  MgAbsId r = mg_abs_lookup_node(graph, op, param, a, b);
  if (r == MG_ABS_NONE && a != b &&
      (op == MG_ABS_ADD || op == MG_ABS_MUL || op == MG_ABS_MAXIMUM))
    r = mg_abs_lookup_node(graph, op, param, b, a); // saturation may stop early
  return r;
}

bool mg_absexpr_is_subexpr(const MgAbsGraph *graph, MgAbsId id) {
  return graph && id < graph->num_nodes && graph->reach[graph->parent[id]];
}

bool mg_absexpr_is_max(const MgAbsGraph *graph, MgAbsId id) {
  return graph && mg_abs_class_is_max(graph, id);
}

MgAbsId mg_absexpr_output(const MgAbsGraph *graph, uint32_t index) {
  return graph && index < graph->num_outputs ? graph->outputs[index]
                                             : MG_ABS_NONE;
}

MgAbsId mg_absexpr_of_proto(const MgAbsGraph *graph, const MgOp *op,
                             const MgTensor *in0, MgAbsId a, MgAbsId b,
                             int32_t forloop) {
  Eval e = {NULL, graph, false};
  return eval_local(&e, op, in0, a, b, forloop);
}

uint32_t mg_absexpr_of_op(const MgAbsGraph *graph, const MgProgram *program,
                          MgGraphId g, MgOpId op, const MgAbsId *tensor_ids,
                          MgAbsId *out_ids) {
  if (!graph || !program || g >= program->num_graphs ||
      op >= program->graphs[g].num_ops)
    return 0;
  Eval e = {NULL, graph, false};
  return eval_op(&e, program, g, op, tensor_ids, out_ids);
}
