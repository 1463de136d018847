//===- test_absexpr.c - Abstract expressions and subexpression pruning ----===//
//
// Each axiom: a target written one way, the term written the other way must
// land in the target's output class, and must not once that rule is off
// (so the test proves the rule does the work). The op -> term mapping, the
// key property (every op of every known fused form is a subexpression of
// its kernel-level target, at small and at the paper's shapes), wrong ops
// rejected, soundness of every e-class under the scalar reading (Σn x =
// n·x), determinism, exact statistics of a tiny target, bounded saturation
// and the API's handling of bad arguments.
//
//===----------------------------------------------------------------------===//
#include "mirage/absexpr.h"
#include "mirage/samples.h"
#include "mirage/verify.h"
#include "test.h"

#include "../../lib/absexpr/egraph.h"

#include <pthread.h>
#include <string.h>

#define NONE MG_ABS_NONE
#define PHI MG_MAP_NONE

//===--- Building targets and terms ---------------------------------------===//

// A kernel program whose inputs all have shape (rows, cols).
typedef struct Prog {
  MgProgram *p;
  MgTensorId in[8];
} Prog;

static Prog prog(uint32_t inputs, int64_t rows, int64_t cols) {
  Prog r;
  CHECK(inputs <= 8);
  r.p = mg_program_create();
  mg_program_add_graph(r.p, MG_LEVEL_KERNEL);
  int64_t dims[2] = {rows, cols};
  for (uint32_t i = 0; i < inputs && i < 8; ++i)
    r.in[i] = mg_graph_add_input(r.p, 0, MG_DTYPE_F16, 2, dims, NULL);
  return r;
}

static MgTensorId bin(Prog *r, MgOpKind k, MgTensorId a, MgTensorId b) {
  MgTensorId t = mg_graph_binary(r->p, 0, k, a, b, NULL);
  CHECK(t != MG_NO_ID);
  return t;
}

static MgTensorId un(Prog *r, MgOpKind k, MgTensorId a) {
  MgTensorId t = mg_graph_unary(r->p, 0, k, a, NULL);
  CHECK(t != MG_NO_ID);
  return t;
}

static MgTensorId red(Prog *r, MgTensorId a, int32_t dim) {
  MgTensorId t = mg_graph_sum(r->p, 0, a, dim, NULL);
  CHECK(t != MG_NO_ID);
  return t;
}

static MgProgram *done(Prog *r, MgTensorId out) {
  CHECK_EQ_INT(mg_graph_mark_output(r->p, 0, out, NULL), MG_STATUS_OK);
  return r->p;
}

// Terms by lookup (MG_ABS_NONE as soon as a subterm is absent).
static MgAbsId in(const MgAbsGraph *g, int i) {
  return mg_absexpr_lookup(g, MG_ABS_INPUT, i, NONE, NONE);
}
static MgAbsId add(const MgAbsGraph *g, MgAbsId a, MgAbsId b) {
  return mg_absexpr_lookup(g, MG_ABS_ADD, 0, a, b);
}
static MgAbsId mul(const MgAbsGraph *g, MgAbsId a, MgAbsId b) {
  return mg_absexpr_lookup(g, MG_ABS_MUL, 0, a, b);
}
static MgAbsId dv(const MgAbsGraph *g, MgAbsId a, MgAbsId b) {
  return mg_absexpr_lookup(g, MG_ABS_DIV, 0, a, b);
}
static MgAbsId sm(const MgAbsGraph *g, int64_t n, MgAbsId a) {
  return mg_absexpr_lookup(g, MG_ABS_SUM, n, a, NONE);
}
static MgAbsId fn(const MgAbsGraph *g, MgAbsOp op, MgAbsId a) {
  return mg_absexpr_lookup(g, op, 0, a, NONE);
}
static MgAbsId mx(const MgAbsGraph *g, int64_t n, MgAbsId a) {
  return mg_absexpr_lookup(g, MG_ABS_MAX, n, a, NONE);
}
static MgAbsId shf(const MgAbsGraph *g, MgAbsId a) {
  return mg_absexpr_lookup(g, MG_ABS_SHIFT, 0, a, NONE);
}
static MgAbsId cst(const MgAbsGraph *g, double v) {
  int64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return mg_absexpr_lookup(g, MG_ABS_CONST, bits, NONE, NONE);
}

static MgAbsGraph *create(const MgProgram *p, uint32_t rules) {
  MgDiag d;
  MgAbsGraph *g = mg_abs_create_rules(p, NULL, rules, &d);
  CHECK(g != NULL);
  return g;
}

//===--- Scalar soundness ---------------------------------------------------===//
//
// Read every variable as a real number and Σn x as n·x: each axiom holds in
// that reading, so every node of a class must evaluate to the class value.
// Concat has no such reading (CONCAT_MATMUL is about indices), so nodes
// built on a concat are skipped: NaN propagates and is not compared.

static double node_value(const MgAbsNode *n, const double *v) {
  double a = n->a != NONE ? v[n->a] : 0.0, b = n->b != NONE ? v[n->b] : 0.0;
  switch ((MgAbsOp)n->op) {
  case MG_ABS_INPUT:
    return 0.61 + 0.29 * (double)n->param;
  case MG_ABS_CONST: {
    double d;
    memcpy(&d, &n->param, sizeof d);
    return d;
  }
  case MG_ABS_ADD:
    return a + b;
  case MG_ABS_MUL:
    return a * b;
  case MG_ABS_DIV:
    return a / b;
  case MG_ABS_EXP:
    return exp(a);
  case MG_ABS_SQRT:
    return sqrt(fabs(a));
  case MG_ABS_RSQRT:
    return 1.0 / sqrt(fabs(a));
  case MG_ABS_SILU:
    return a / (1.0 + exp(-a));
  case MG_ABS_GELU:
    return 0.7 * a + 0.01;
  case MG_ABS_RELU:
    return a > 0 ? a : 0.0;
  case MG_ABS_LOG:
    return log(fabs(a) + 1.0);
  case MG_ABS_TANH:
    return tanh(a);
  case MG_ABS_ERF:
    return erf(a);
  case MG_ABS_SUM:
    return (double)n->param * a;
  case MG_ABS_CONCAT: // no scalar meaning (it depends on indices)
    return NAN;
  case MG_ABS_MAX: // the max of n copies of one scalar
    return a;
  case MG_ABS_MAXIMUM:
    return fmax(a, b);
  case MG_ABS_SHIFT: // some function: no rule looks inside it
    return a - 0.75;
  case MG_ABS_COUNT:
    break;
  }
  return 0.0;
}

// Number of alive nodes whose value differs from their class's value.
static int unsound_nodes(const MgAbsGraph *g) {
  uint32_t n = g->num_nodes;
  double *v = calloc(n, sizeof *v);
  char *known = calloc(n, 1);
  int bad = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 0; i < n; ++i) {
      const MgAbsNode *x = &g->nodes[i];
      MgAbsId c = g->parent[x->cls];
      if (!x->alive || (known[c] && !isnan(v[c])) ||
          (x->a != NONE && !known[x->a]) || (x->b != NONE && !known[x->b]))
        continue;
      double val = node_value(x, v);
      if (known[c] && isnan(val))
        continue;
      v[c] = val;
      known[c] = changed = true;
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    const MgAbsNode *x = &g->nodes[i];
    if (!x->alive)
      continue;
    double got = node_value(x, v), want = v[g->parent[x->cls]];
    if (!isnan(got) && !(fabs(got - want) <= 1e-9 * (fabs(got) + fabs(want))))
      bad++;
  }
  free(v);
  free(known);
  return bad;
}

//===--- Axioms -------------------------------------------------------------===//

typedef MgProgram *(*TargetFn)(void);
typedef MgAbsId (*TermFn)(const MgAbsGraph *g);

// True when `term` is the output class of `target` saturated with `rules`;
// the e-graph must also be sound.
static bool finds(TargetFn target, TermFn term, uint32_t rules) {
  MgProgram *p = target();
  MgAbsGraph *g = create(p, rules);
  bool found = false;
  if (g) {
    CHECK(mg_absexpr_stats(g).saturated);
    CHECK_EQ_INT(unsound_nodes(g), 0);
    MgAbsId t = term(g);
    found = t != NONE && t == mg_absexpr_output(g, 0);
  }
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
  return found;
}

// Each axiom: found with all rules, not found without `rule` (and `also`).
static void check_axiom(TargetFn target, TermFn term, MgAbsRule rule,
                        int also, int line) {
  uint32_t off = 1u << rule;
  if (also >= 0)
    off |= 1u << also;
  bool with = finds(target, term, MG_ABS_RULES_ALL);
  bool without = finds(target, term, MG_ABS_RULES_ALL & ~off);
  CHECK(with);
  CHECK(!without);
  if (!with || without)
    fprintf(stderr, "  (axiom case at line %d)\n", line);
}
#define AXIOM(target, term, rule) check_axiom(target, term, rule, -1, __LINE__)

// Elementwise targets over A, B, C (inputs 0, 1, 2), all (4,4).
static MgProgram *t_add_left(void) { // (A+B)+C
  Prog r = prog(3, 4, 4);
  return done(&r, bin(&r, MG_OP_ADD, bin(&r, MG_OP_ADD, r.in[0], r.in[1]),
                      r.in[2]));
}
static MgAbsId q_add_swap(const MgAbsGraph *g) { // (A+C)+B
  return add(g, add(g, in(g, 0), in(g, 2)), in(g, 1));
}
static MgAbsId q_add_right(const MgAbsGraph *g) { // A+(B+C)
  return add(g, in(g, 0), add(g, in(g, 1), in(g, 2)));
}
static MgProgram *t_mul_left(void) { // (A·B)·C
  Prog r = prog(3, 4, 4);
  return done(&r, bin(&r, MG_OP_MUL, bin(&r, MG_OP_MUL, r.in[0], r.in[1]),
                      r.in[2]));
}
static MgAbsId q_mul_swap(const MgAbsGraph *g) { // (A·C)·B
  return mul(g, mul(g, in(g, 0), in(g, 2)), in(g, 1));
}
static MgAbsId q_mul_right(const MgAbsGraph *g) { // A·(B·C)
  return mul(g, in(g, 0), mul(g, in(g, 1), in(g, 2)));
}
static MgProgram *t_factored(void) { // A·(B+C)
  Prog r = prog(3, 4, 4);
  return done(&r, bin(&r, MG_OP_MUL, r.in[0],
                      bin(&r, MG_OP_ADD, r.in[1], r.in[2])));
}
static MgAbsId q_factored(const MgAbsGraph *g) {
  return mul(g, in(g, 0), add(g, in(g, 1), in(g, 2)));
}
static MgProgram *t_expanded(void) { // A·B + A·C
  Prog r = prog(3, 4, 4);
  return done(&r, bin(&r, MG_OP_ADD, bin(&r, MG_OP_MUL, r.in[0], r.in[1]),
                      bin(&r, MG_OP_MUL, r.in[0], r.in[2])));
}
static MgAbsId q_expanded(const MgAbsGraph *g) {
  return add(g, mul(g, in(g, 0), in(g, 1)), mul(g, in(g, 0), in(g, 2)));
}
static MgProgram *t_sum_over_c(void) { // (A+B)/C
  Prog r = prog(3, 4, 4);
  return done(&r, bin(&r, MG_OP_DIV, bin(&r, MG_OP_ADD, r.in[0], r.in[1]),
                      r.in[2]));
}
static MgAbsId q_sum_over_c(const MgAbsGraph *g) {
  return dv(g, add(g, in(g, 0), in(g, 1)), in(g, 2));
}
static MgProgram *t_split_over_c(void) { // A/C + B/C
  Prog r = prog(3, 4, 4);
  return done(&r, bin(&r, MG_OP_ADD, bin(&r, MG_OP_DIV, r.in[0], r.in[2]),
                      bin(&r, MG_OP_DIV, r.in[1], r.in[2])));
}
static MgAbsId q_split_over_c(const MgAbsGraph *g) {
  return add(g, dv(g, in(g, 0), in(g, 2)), dv(g, in(g, 1), in(g, 2)));
}
static MgProgram *t_mul_quot(void) { // A·(B/C)
  Prog r = prog(3, 4, 4);
  return done(&r, bin(&r, MG_OP_MUL, r.in[0],
                      bin(&r, MG_OP_DIV, r.in[1], r.in[2])));
}
static MgAbsId q_mul_quot(const MgAbsGraph *g) {
  return mul(g, in(g, 0), dv(g, in(g, 1), in(g, 2)));
}
static MgProgram *t_quot_mul(void) { // (A·B)/C
  Prog r = prog(3, 4, 4);
  return done(&r, bin(&r, MG_OP_DIV, bin(&r, MG_OP_MUL, r.in[0], r.in[1]),
                      r.in[2]));
}
static MgAbsId q_quot_mul(const MgAbsGraph *g) {
  return dv(g, mul(g, in(g, 0), in(g, 1)), in(g, 2));
}
static MgProgram *t_div_prod(void) { // A/(B·C)
  Prog r = prog(3, 4, 4);
  return done(&r, bin(&r, MG_OP_DIV, r.in[0],
                      bin(&r, MG_OP_MUL, r.in[1], r.in[2])));
}
static MgAbsId q_div_prod(const MgAbsGraph *g) {
  return dv(g, in(g, 0), mul(g, in(g, 1), in(g, 2)));
}
static MgProgram *t_div_div(void) { // (A/B)/C
  Prog r = prog(3, 4, 4);
  return done(&r, bin(&r, MG_OP_DIV, bin(&r, MG_OP_DIV, r.in[0], r.in[1]),
                      r.in[2]));
}
static MgAbsId q_div_div(const MgAbsGraph *g) {
  return dv(g, dv(g, in(g, 0), in(g, 1)), in(g, 2));
}

static void test_absexpr_axioms_ac(void) {
  AXIOM(t_add_left, q_add_swap, MG_ABS_RULE_ADD_COMM);
  AXIOM(t_add_left, q_add_right, MG_ABS_RULE_ADD_ASSOC);
  AXIOM(t_mul_left, q_mul_swap, MG_ABS_RULE_MUL_COMM);
  AXIOM(t_mul_left, q_mul_right, MG_ABS_RULE_MUL_ASSOC);
}

static void test_absexpr_axioms_distributivity(void) {
  AXIOM(t_factored, q_expanded, MG_ABS_RULE_DISTRIBUTE);
  AXIOM(t_expanded, q_factored, MG_ABS_RULE_FACTOR);
  AXIOM(t_sum_over_c, q_split_over_c, MG_ABS_RULE_DIV_ADD);
  AXIOM(t_split_over_c, q_sum_over_c, MG_ABS_RULE_DIV_ADD);
}

static void test_absexpr_axioms_division(void) {
  AXIOM(t_mul_quot, q_quot_mul, MG_ABS_RULE_MUL_DIV);
  AXIOM(t_quot_mul, q_mul_quot, MG_ABS_RULE_MUL_DIV);
  AXIOM(t_div_prod, q_div_div, MG_ABS_RULE_DIV_MUL);
  AXIOM(t_div_div, q_div_prod, MG_ABS_RULE_DIV_MUL);
}

// Sums: A, C are (4,12); sums run over dim 1 (12 terms).
static MgProgram *t_sum_of_add(void) { // Σ(A+B)
  Prog r = prog(2, 4, 12);
  return done(&r, red(&r, bin(&r, MG_OP_ADD, r.in[0], r.in[1]), 1));
}
static MgAbsId q_sum_of_add(const MgAbsGraph *g) {
  return sm(g, 12, add(g, in(g, 0), in(g, 1)));
}
static MgProgram *t_add_of_sums(void) { // ΣA + ΣB
  Prog r = prog(2, 4, 12);
  return done(&r, bin(&r, MG_OP_ADD, red(&r, r.in[0], 1), red(&r, r.in[1], 1)));
}
static MgAbsId q_add_of_sums(const MgAbsGraph *g) {
  return add(g, sm(g, 12, in(g, 0)), sm(g, 12, in(g, 1)));
}
static MgProgram *t_sum_of_mul(void) { // Σ(A·B)
  Prog r = prog(2, 4, 12);
  return done(&r, red(&r, bin(&r, MG_OP_MUL, r.in[0], r.in[1]), 1));
}
static MgAbsId q_sum_of_mul(const MgAbsGraph *g) {
  return sm(g, 12, mul(g, in(g, 0), in(g, 1)));
}
static MgProgram *t_mul_of_sum(void) { // (ΣA)·B, broadcasting ΣA
  Prog r = prog(2, 4, 12);
  return done(&r, bin(&r, MG_OP_MUL, red(&r, r.in[0], 1), r.in[1]));
}
static MgAbsId q_mul_of_sum(const MgAbsGraph *g) {
  return mul(g, sm(g, 12, in(g, 0)), in(g, 1));
}
static MgProgram *t_sum_of_div(void) { // Σ(A/B)
  Prog r = prog(2, 4, 12);
  return done(&r, red(&r, bin(&r, MG_OP_DIV, r.in[0], r.in[1]), 1));
}
static MgAbsId q_sum_of_div(const MgAbsGraph *g) {
  return sm(g, 12, dv(g, in(g, 0), in(g, 1)));
}
static MgProgram *t_div_of_sum(void) { // (ΣA)/B
  Prog r = prog(2, 4, 12);
  return done(&r, bin(&r, MG_OP_DIV, red(&r, r.in[0], 1), r.in[1]));
}
static MgAbsId q_div_of_sum(const MgAbsGraph *g) {
  return dv(g, sm(g, 12, in(g, 0)), in(g, 1));
}
static MgProgram *t_sum3_sum4(void) { // A(3,4): Σ over dim 1, then dim 0
  Prog r = prog(1, 3, 4);
  return done(&r, red(&r, red(&r, r.in[0], 1), 0));
}
static MgAbsId q_sum4_sum3(const MgAbsGraph *g) {
  return sm(g, 4, sm(g, 3, in(g, 0)));
}
static MgAbsId q_sum12(const MgAbsGraph *g) { return sm(g, 12, in(g, 0)); }
static MgProgram *t_sum12(void) {
  Prog r = prog(1, 4, 12);
  return done(&r, red(&r, r.in[0], 1));
}
static MgAbsId q_sum3_sum4(const MgAbsGraph *g) {
  return sm(g, 3, sm(g, 4, in(g, 0)));
}
static MgAbsId q_sum2_sum2_sum3(const MgAbsGraph *g) {
  return sm(g, 2, sm(g, 2, sm(g, 3, in(g, 0))));
}

static void test_absexpr_axioms_sums(void) {
  AXIOM(t_sum_of_add, q_add_of_sums, MG_ABS_RULE_SUM_ADD);
  AXIOM(t_add_of_sums, q_sum_of_add, MG_ABS_RULE_SUM_ADD);
  AXIOM(t_sum_of_mul, q_mul_of_sum, MG_ABS_RULE_SUM_MUL);
  AXIOM(t_mul_of_sum, q_sum_of_mul, MG_ABS_RULE_SUM_MUL);
  AXIOM(t_sum_of_div, q_div_of_sum, MG_ABS_RULE_SUM_DIV);
  AXIOM(t_div_of_sum, q_sum_of_div, MG_ABS_RULE_SUM_DIV);
  // Σm Σn = Σn Σm: SUM_SUM does it directly, and merging then splitting
  // does it too, so only turning both off loses it.
  CHECK(finds(t_sum3_sum4, q_sum4_sum3,
              MG_ABS_RULES_ALL & ~(1u << MG_ABS_RULE_SUM_SUM)));
  check_axiom(t_sum3_sum4, q_sum4_sum3, MG_ABS_RULE_SUM_SUM,
              MG_ABS_RULE_SUM_SPLIT, __LINE__);
  // Σ12 = Σ3 Σ4 = Σ2 Σ2 Σ3, both ways.
  AXIOM(t_sum12, q_sum3_sum4, MG_ABS_RULE_SUM_SPLIT);
  AXIOM(t_sum12, q_sum2_sum2_sum3, MG_ABS_RULE_SUM_SPLIT);
  AXIOM(t_sum3_sum4, q_sum12, MG_ABS_RULE_SUM_SPLIT);
  // Σ5 is not Σ12 and 5 does not divide 12.
  MgProgram *p = t_sum12();
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  CHECK_EQ_INT(sm(g, 5, in(g, 0)), NONE);
  CHECK_EQ_INT(sm(g, 24, in(g, 0)), NONE);
  CHECK_EQ_INT(sm(g, 2, sm(g, 2, sm(g, 2, in(g, 0)))), NONE);
  CHECK(mg_absexpr_is_subexpr(g, sm(g, 6, in(g, 0))));
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
}

// Σ1 x = x: lookups and ops never produce a one-term sum.
static void test_absexpr_sum_of_one(void) {
  Prog r = prog(2, 4, 1);
  MgTensorId s = red(&r, r.in[0], 1); // the dim has size 1
  MgProgram *p = done(&r, bin(&r, MG_OP_MUL, s, r.in[1]));
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  MgAbsId a = in(g, 0), b = in(g, 1);
  CHECK(a != NONE);
  CHECK_EQ_INT(sm(g, 1, a), a);
  CHECK_EQ_INT(sm(g, 1, sm(g, 1, a)), a);
  CHECK_EQ_INT(mul(g, a, b), mg_absexpr_output(g, 0));
  CHECK_EQ_INT(mg_absexpr_lookup(g, MG_ABS_SUM, 0, a, NONE), NONE);
  CHECK_EQ_INT(mg_absexpr_lookup(g, MG_ABS_SUM, -4, a, NONE), NONE);
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
}

// Consequences used by real kernels: matmul associativity, Σ of a quotient
// in attention, factoring an rms out of a matmul.
static MgProgram *t_xab(void) { // (X·A)·B with X(4,6) A(6,3) B(3,5)
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t dx[2] = {4, 6}, da[2] = {6, 3}, db[2] = {3, 5};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dx, NULL);
  MgTensorId a = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, da, NULL);
  MgTensorId b = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, db, NULL);
  MgTensorId xa = mg_graph_matmul(p, 0, x, a, NULL);
  mg_graph_mark_output(p, 0, mg_graph_matmul(p, 0, xa, b, NULL), NULL);
  return p;
}
static MgAbsId q_x_ab(const MgAbsGraph *g) { // Σ6 (X · Σ3 (A·B))
  return sm(g, 6, mul(g, in(g, 0), sm(g, 3, mul(g, in(g, 1), in(g, 2)))));
}

static void test_absexpr_matmul_associativity(void) {
  CHECK(finds(t_xab, q_x_ab, MG_ABS_RULES_ALL));
  CHECK(!finds(t_xab, q_x_ab,
               MG_ABS_RULES_ALL & ~(1u << MG_ABS_RULE_SUM_MUL)));
}

//===--- The op -> term mapping ---------------------------------------------===//

static void test_absexpr_op_mapping(void) {
  // out = relu(gelu(silu(rsqrt(sqrt(exp(A - B)))))) + square(A)*2.5 +
  //       matmul(A, C)/3, A, B (4,4), C (4,4).
  Prog r = prog(3, 4, 4);
  MgTensorId a = r.in[0], b = r.in[1], c = r.in[2];
  MgTensorId chain = bin(&r, MG_OP_SUB, a, b);
  const MgOpKind fns[6] = {MG_OP_EXP,  MG_OP_SQRT, MG_OP_RSQRT,
                           MG_OP_SILU, MG_OP_GELU, MG_OP_RELU};
  for (int i = 0; i < 6; ++i)
    chain = un(&r, fns[i], chain);
  MgTensorId sq = mg_graph_scalar(r.p, 0, MG_OP_MUL_SCALAR,
                                  un(&r, MG_OP_SQUARE, a), 2.5, NULL);
  MgTensorId mm = mg_graph_scalar(r.p, 0, MG_OP_DIV_SCALAR,
                                  mg_graph_matmul(r.p, 0, a, c, NULL), 3.0,
                                  NULL);
  MgProgram *p =
      done(&r, bin(&r, MG_OP_ADD, bin(&r, MG_OP_ADD, chain, sq), mm));
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  MgAbsId A = in(g, 0), B = in(g, 1), C = in(g, 2);
  MgAbsId t = add(g, A, mul(g, cst(g, -1.0), B));
  CHECK(t != NONE);
  const MgAbsOp syms[6] = {MG_ABS_EXP,  MG_ABS_SQRT, MG_ABS_RSQRT,
                           MG_ABS_SILU, MG_ABS_GELU, MG_ABS_RELU};
  for (int i = 0; i < 6; ++i)
    t = fn(g, syms[i], t);
  CHECK(t != NONE);
  MgAbsId sqt = mul(g, mul(g, A, A), cst(g, 2.5));
  MgAbsId mmt = dv(g, sm(g, 4, mul(g, A, C)), cst(g, 3.0));
  CHECK(sqt != NONE && mmt != NONE);
  CHECK_EQ_INT(add(g, add(g, t, sqt), mmt), mg_absexpr_output(g, 0));
  // -0.0 and 0.0 are one constant; other constants are not there.
  CHECK_EQ_INT(cst(g, 7.0), NONE);
  // A function symbol of the wrong argument is absent.
  CHECK_EQ_INT(fn(g, MG_ABS_EXP, A), NONE);
  CHECK_EQ_INT(fn(g, MG_ABS_SILU, t), NONE);
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
}

//===--- Walking candidate programs ---------------------------------------===//
//
// What the search does: evaluate each op of a program in order (kernel ops,
// and inside each custom op its block graph, and inside thread ops their
// thread graph), with block INPUT tensors carrying the classes of the
// custom op's operands, and count the ops whose expression is not a
// subexpression of the target.

static int walk(const MgAbsGraph *g, const MgProgram *p, MgGraphId gid,
                MgAbsId *ids) {
  const MgGraph *gr = &p->graphs[gid];
  int rejected = 0;
  for (uint32_t i = 0; i < gr->num_ops; ++i) {
    const MgOp *op = &gr->ops[i];
    if (op->kind == MG_OP_INPUT) { // given, not a candidate
      if (gr->level == MG_LEVEL_KERNEL)
        mg_absexpr_of_op(g, p, gid, i, ids, &ids[op->outputs[0]]);
      continue; // in a body: bound by the caller
    }
    if (op->kind == MG_OP_CUSTOM || op->kind == MG_OP_THREAD) {
      const MgGraph *body = &p->graphs[op->attr];
      MgAbsId *inner = malloc(sizeof *inner * (body->num_tensors + 1));
      for (uint32_t t = 0; t < body->num_tensors; ++t)
        inner[t] = NONE;
      for (uint32_t k = 0; k < body->num_ops; ++k)
        if (body->ops[k].kind == MG_OP_INPUT)
          inner[body->ops[k].outputs[0]] = ids[op->inputs[body->ops[k].attr]];
      rejected += walk(g, p, (MgGraphId)op->attr, inner);
      free(inner);
    }
    MgAbsId out[MG_MAX_OP_OUTPUTS];
    uint32_t n = mg_absexpr_of_op(g, p, gid, i, ids, out);
    if (n != op->num_outputs) // counted, not CHECKed: walk runs in threads
      rejected += 1000;
    for (uint32_t j = 0; j < n; ++j) {
      ids[op->outputs[j]] = out[j];
      if (!mg_absexpr_is_subexpr(g, out[j]))
        rejected++;
    }
  }
  return rejected;
}

// Rejected ops of `cand` against `target` (both destroyed); -1 when the
// candidate's output is not the target's output class.
static int rejected_ops_rules(MgProgram *target, MgProgram *cand,
                              const MgAbsOptions *opts, uint32_t rules) {
  CHECK(target != NULL && cand != NULL);
  if (!target || !cand) {
    mg_program_destroy(target);
    mg_program_destroy(cand);
    return -2;
  }
  MgDiag d;
  MgAbsGraph *g = mg_abs_create_rules(target, opts, rules, &d);
  CHECK(g != NULL);
  if (!g) {
    mg_program_destroy(target);
    mg_program_destroy(cand);
    return -3;
  }
  const MgGraph *root = &cand->graphs[0];
  MgAbsId *ids = malloc(sizeof *ids * (root->num_tensors + 1));
  int r = walk(g, cand, 0, ids);
  if (r == 0 && ids[root->outputs[0]] != mg_absexpr_output(g, 0))
    r = -1;
  free(ids);
  mg_absexpr_destroy(g);
  mg_program_destroy(target);
  mg_program_destroy(cand);
  return r;
}

static int rejected_ops(MgProgram *target, MgProgram *cand,
                        const MgAbsOptions *opts) {
  return rejected_ops_rules(target, cand, opts, MG_ABS_RULES_ALL);
}

#define ACCEPTED(target, cand) CHECK_EQ_INT(rejected_ops(target, cand, NULL), 0)

// Every op of every fused form, and of the target itself, at small shapes
// and several grid / for-loop choices (F = 1 included: Σ1 is the identity).
static void test_absexpr_fused_forms_small(void) {
  const int32_t loops[4] = {1, 2, 4, 8};
  for (int i = 0; i < 4; ++i) {
    int32_t f = loops[i];
    ACCEPTED(mg_sample_rmsnorm_matmul(4, 64, 48),
             mg_sample_rmsnorm_matmul_fused(4, 64, 48, 4, f));
    ACCEPTED(mg_sample_attention(2, 8, 16, 64),
             mg_sample_attention_split_kv(2, 8, 16, 64, 4, f));
    ACCEPTED(mg_sample_attention(2, 8, 16, 64),
             mg_sample_attention_split_kv(2, 8, 16, 64, f, 2));
    ACCEPTED(mg_sample_gated_mlp(4, 64, 48),
             mg_sample_gated_mlp_fused(4, 64, 48, 4, f));
    ACCEPTED(mg_sample_lora(8, 64, 48, 4),
             mg_sample_lora_fused(8, 64, 48, 4, f));
    ACCEPTED(mg_sample_ntrans(8, 64), mg_sample_ntrans_fused(8, 64, f));
    ACCEPTED(mg_sample_sum_last(8, 64), mg_sample_sum_last_fused(8, 64, 4, f));
  }
  // Non-power-of-two lengths: Σ24 = Σ3 Σ8 = Σ6 Σ4 ...
  ACCEPTED(mg_sample_rmsnorm_matmul(3, 24, 10),
           mg_sample_rmsnorm_matmul_fused(3, 24, 10, 2, 3));
  ACCEPTED(mg_sample_rmsnorm_matmul(3, 24, 10),
           mg_sample_rmsnorm_matmul_fused(3, 24, 10, 5, 6));
  ACCEPTED(mg_sample_attention(1, 4, 6, 36),
           mg_sample_attention_split_kv(1, 4, 6, 36, 3, 4));
  ACCEPTED(mg_sample_gated_mlp(2, 30, 4),
           mg_sample_gated_mlp_fused(2, 30, 4, 2, 5));
  // Targets against themselves.
  ACCEPTED(mg_sample_qknorm(2, 8, 16, 64), mg_sample_qknorm(2, 8, 16, 64));
  ACCEPTED(mg_sample_attention(2, 8, 16, 64),
           mg_sample_attention(2, 8, 16, 64));
}

// The same at the paper's shapes (b = 1).
static void test_absexpr_fused_forms_paper(void) {
  ACCEPTED(mg_sample_rmsnorm_matmul(2, 4096, 6144),
           mg_sample_rmsnorm_matmul_fused(2, 4096, 6144, 256, 32));
  ACCEPTED(mg_sample_rmsnorm_matmul(2, 4096, 6144),
           mg_sample_rmsnorm_matmul_fused(2, 4096, 6144, 96, 64));
  ACCEPTED(mg_sample_attention(2, 256, 64, 4096),
           mg_sample_attention_split_kv(2, 256, 64, 4096, 16, 4));
  ACCEPTED(mg_sample_attention(2, 256, 64, 4096),
           mg_sample_attention_split_kv(2, 256, 64, 4096, 32, 2));
  ACCEPTED(mg_sample_lora(16, 256, 4096, 16),
           mg_sample_lora_fused(16, 256, 4096, 16, 64));
  ACCEPTED(mg_sample_gated_mlp(8, 4096, 4096),
           mg_sample_gated_mlp_fused(8, 4096, 4096, 64, 64));
  ACCEPTED(mg_sample_ntrans(8, 4096), mg_sample_ntrans_fused(8, 4096, 8));
  ACCEPTED(mg_sample_qknorm(2, 256, 64, 4096),
           mg_sample_qknorm(2, 256, 64, 4096));
}

// Gated MLP with the element-wise tail in a thread graph (as in
// test_graph.c): X(8,64), W(64,64), grid 4, F 4.
static MgProgram *mlp_with_thread_graph(void) {
  MgProgram *p = mg_program_create();
  MgGraphId k = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  MgGraphId t = mg_program_add_graph(p, MG_LEVEL_THREAD);
  int64_t tile[2] = {8, 16}, dx[2] = {8, 64}, dw[2] = {64, 64};
  MgTensorId ta = mg_graph_add_input(p, t, MG_DTYPE_F16, 2, tile, NULL);
  MgTensorId tb = mg_graph_add_input(p, t, MG_DTYPE_F16, 2, tile, NULL);
  MgTensorId ts = mg_graph_unary(p, t, MG_OP_SILU, ta, NULL);
  mg_graph_mark_output(p, t, mg_graph_binary(p, t, MG_OP_MUL, ts, tb, NULL),
                       NULL);
  const int32_t grid[3] = {4, 1, 1};
  mg_graph_set_launch(p, b, grid, 128, 4, NULL);
  MgTensorId bx = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dx, NULL);
  MgTensorId b1 = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dw, NULL);
  MgTensorId b2 = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dw, NULL);
  const int8_t rep[3] = {PHI, PHI, PHI}, x1[3] = {1, PHI, PHI};
  MgTensorId xt = mg_graph_iterator(p, b, bx, rep, 1, NULL);
  MgTensorId w1 = mg_graph_iterator(p, b, b1, x1, 0, NULL);
  MgTensorId w2 = mg_graph_iterator(p, b, b2, x1, 0, NULL);
  MgTensorId a1 = mg_graph_accum(p, b, mg_graph_matmul(p, b, xt, w1, NULL),
                                 MG_ACCUM_SUM, NULL);
  MgTensorId a2 = mg_graph_accum(p, b, mg_graph_matmul(p, b, xt, w2, NULL),
                                 MG_ACCUM_SUM, NULL);
  MgTensorId ins[2] = {a1, a2}, fused;
  CHECK(mg_graph_thread(p, b, (MgCall){t, 2, ins}, &fused, NULL) != MG_NO_ID);
  mg_graph_mark_output(p, b, mg_graph_saver(p, b, fused, x1, NULL), NULL);
  MgTensorId kin[3] = {
      mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dx, NULL),
      mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dw, NULL),
      mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dw, NULL)};
  MgTensorId y;
  CHECK(mg_graph_custom(p, k, (MgCall){b, 3, kin}, &y, NULL) != MG_NO_ID);
  mg_graph_mark_output(p, k, y, NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

static void test_absexpr_thread_graph(void) {
  ACCEPTED(mg_sample_gated_mlp(8, 64, 64), mlp_with_thread_graph());
  // A fused target is expanded too: the kernel form is found in it.
  ACCEPTED(mlp_with_thread_graph(), mg_sample_gated_mlp(8, 64, 64));
  ACCEPTED(mg_sample_rmsnorm_matmul_fused(4, 64, 48, 4, 4),
           mg_sample_rmsnorm_matmul(4, 64, 48));
}

//===--- Wrong ops ----------------------------------------------------------===//

static void test_absexpr_wrong_terms_rejected(void) {
  MgProgram *p = mg_sample_gated_mlp(8, 64, 32); // X, W1, W2; k = 64
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  MgAbsId x = in(g, 0), w1 = in(g, 1), w2 = in(g, 2);
  MgAbsId h1 = sm(g, 64, mul(g, x, w1)), h2 = sm(g, 64, mul(g, x, w2));
  CHECK(mg_absexpr_is_subexpr(g, h1) && mg_absexpr_is_subexpr(g, h2));
  CHECK(mg_absexpr_is_subexpr(g, fn(g, MG_ABS_SILU, h1)));
  CHECK(mg_absexpr_is_subexpr(g, sm(g, 16, mul(g, x, w1)))); // a k-tile
  CHECK_EQ_INT(mul(g, x, x), NONE);                 // matmul of X with X
  CHECK_EQ_INT(mul(g, w1, w2), NONE);               // W1 with W2
  CHECK_EQ_INT(fn(g, MG_ABS_EXP, w1), NONE);        // exp of W1
  CHECK_EQ_INT(fn(g, MG_ABS_SILU, h2), NONE);       // silu on the wrong side
  CHECK_EQ_INT(sm(g, 3, mul(g, x, w1)), NONE);      // wrong extent
  CHECK_EQ_INT(sm(g, 128, mul(g, x, w1)), NONE);    // sums 2k terms
  CHECK_EQ_INT(add(g, h1, h2), NONE);               // + instead of ·
  CHECK_EQ_INT(mul(g, h1, h1), NONE);
  CHECK(!mg_absexpr_is_subexpr(g, NONE));
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
}

// RMSNorm kernel whose sum-of-squares accumulator reads X whole in every
// iteration (a second iterator with fmap φ): it adds F copies of each row,
// Σ(F·k) terms instead of Σk.
static MgProgram *rms_with_wrong_fmap(int64_t m, int64_t k, int64_t n,
                                      int32_t grid, int32_t f) {
  MgProgram *p = mg_program_create();
  MgGraphId kg = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  const int32_t launch[3] = {grid, 1, 1};
  mg_graph_set_launch(p, b, launch, 128, f, NULL);
  int64_t dx[2] = {m, k}, dw[2] = {k, n};
  MgTensorId x = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dx, NULL);
  MgTensorId w = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dw, NULL);
  const int8_t rep[3] = {PHI, PHI, PHI}, x1[3] = {1, PHI, PHI};
  MgTensorId xt = mg_graph_iterator(p, b, x, rep, 1, NULL);
  MgTensorId xall = mg_graph_iterator(p, b, x, rep, PHI, NULL);
  MgTensorId wt = mg_graph_iterator(p, b, w, x1, 0, NULL);
  MgTensorId xw = mg_graph_accum(p, b, mg_graph_matmul(p, b, xt, wt, NULL),
                                 MG_ACCUM_SUM, NULL);
  MgTensorId ss = mg_graph_accum(p, b, xall, MG_ACCUM_SUM_SQ_LAST, NULL);
  MgTensorId rms = mg_graph_unary(
      p, b, MG_OP_SQRT,
      mg_graph_scalar(p, b, MG_OP_DIV_SCALAR, ss, (double)k, NULL), NULL);
  MgTensorId o = mg_graph_binary(p, b, MG_OP_DIV, xw, rms, NULL);
  mg_graph_mark_output(p, b, mg_graph_saver(p, b, o, x1, NULL), NULL);
  MgTensorId kin[2] = {mg_graph_add_input(p, kg, MG_DTYPE_F16, 2, dx, NULL),
                       mg_graph_add_input(p, kg, MG_DTYPE_F16, 2, dw, NULL)};
  MgTensorId y;
  CHECK(mg_graph_custom(p, kg, (MgCall){b, 2, kin}, &y, NULL) != MG_NO_ID);
  mg_graph_mark_output(p, kg, y, NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

static void test_absexpr_wrong_programs_rejected(void) {
  // exp of W in a kernel graph.
  Prog r = prog(2, 2, 4096);
  MgProgram *cand = done(&r, un(&r, MG_OP_EXP, r.in[1]));
  CHECK(rejected_ops(mg_sample_rmsnorm_matmul(2, 4096, 6144), cand, NULL) >
        0);
  // Sum of squares over the wrong extent (F·e = 32·4096 terms).
  // Rejected: the accumulator and everything after it (div_scalar, sqrt,
  // div, the saver and the custom op's output): 6 ops.
  MgProgram *wrong = rms_with_wrong_fmap(2, 4096, 6144, 256, 32);
  CHECK_EQ_INT(
      rejected_ops(mg_sample_rmsnorm_matmul(2, 4096, 6144), wrong, NULL), 6);
  // With F = 1 the same kernel is right.
  ACCEPTED(mg_sample_rmsnorm_matmul(2, 4096, 6144),
           rms_with_wrong_fmap(2, 4096, 6144, 256, 1));
  // Gated MLP with W1 and W2 exchanged under silu.
  Prog s = prog(3, 64, 64);
  MgTensorId h1 = mg_graph_matmul(s.p, 0, s.in[0], s.in[1], NULL);
  MgTensorId h2 = mg_graph_matmul(s.p, 0, s.in[0], s.in[2], NULL);
  cand = done(&s, bin(&s, MG_OP_MUL, h1, un(&s, MG_OP_SILU, h2)));
  CHECK_EQ_INT(rejected_ops(mg_sample_gated_mlp(64, 64, 64), cand, NULL), 2);
  // Matmul of X with itself (shapes allow it when m = k).
  Prog t = prog(3, 64, 64);
  cand = done(&t, mg_graph_matmul(t.p, 0, t.in[0], t.in[0], NULL));
  CHECK(rejected_ops(mg_sample_gated_mlp(64, 64, 64), cand, NULL) > 0);
}

// concat(x, x) is x; concat of two different expressions is opaque and
// only found when the target has the same concat.
static MgProgram *concat_kernel(bool same) {
  MgProgram *p = mg_program_create();
  MgGraphId k = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  int64_t dx[2] = {8, 64};
  MgTensorId x = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dx, NULL);
  MgTensorId y = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dx, NULL);
  const int8_t rep[3] = {PHI, PHI, PHI};
  MgTensorId xt = mg_graph_iterator(p, b, x, rep, PHI, NULL);
  MgTensorId yt = same ? xt : mg_graph_iterator(p, b, y, rep, PHI, NULL);
  MgTensorId c = mg_graph_concat(p, b, xt, yt, 0, NULL);
  mg_graph_mark_output(p, b, mg_graph_saver(p, b, c, rep, NULL), NULL);
  MgTensorId kin[2] = {mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dx, NULL),
                       mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dx, NULL)};
  MgTensorId o;
  mg_graph_custom(p, k, (MgCall){b, 2, kin}, &o, NULL);
  mg_graph_mark_output(p, k, mg_graph_sum(p, k, o, 1, NULL), NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

static void test_absexpr_concat(void) {
  ACCEPTED(concat_kernel(false), concat_kernel(false));
  ACCEPTED(concat_kernel(true), concat_kernel(true));
  CHECK(rejected_ops(concat_kernel(true), concat_kernel(false), NULL) > 0);
  CHECK(rejected_ops(concat_kernel(false), concat_kernel(true), NULL) != 0);
  MgProgram *p = concat_kernel(true);
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  // Σ64 X: the concat of X with X is X.
  CHECK_EQ_INT(sm(g, 64, in(g, 0)), mg_absexpr_output(g, 0));
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
}

// Views forget positions: transpose, reshape and slice give their operand's
// term, and a sum over a dim a view made counts its own extent.
static void test_absexpr_views(void) {
  Prog r = prog(1, 4, 6);
  MgProgram *p = r.p;
  MgTensorId t = mg_graph_transpose(p, 0, r.in[0], (const int8_t[]){1, 0},
                                    NULL);                          // (6,4)
  MgTensorId v = mg_graph_reshape(p, 0, t, 3, (const int64_t[]){2, 3, 4},
                                  NULL);                            // (2,3,4)
  MgTensorId s3 = red(&r, v, 1);                                    // Σ3 X
  MgTensorId flat = mg_graph_reshape(p, 0, r.in[0], 1,
                                     (const int64_t[]){24}, NULL);
  MgTensorId s24 = red(&r, flat, 0);                                // Σ24 X
  MgTensorId lo = mg_graph_slice(p, 0, r.in[0], (MgSlice){1, 0, 3}, NULL);
  MgTensorId hi = mg_graph_slice(p, 0, r.in[0], (MgSlice){1, 3, 3}, NULL);
  MgTensorId swapped = mg_graph_concat(p, 0, hi, lo, 1, NULL);      // X
  MgTensorId neg = mg_graph_scalar(p, 0, MG_OP_MUL_SCALAR, hi, -1.0, NULL);
  MgTensorId rot = mg_graph_concat(p, 0, neg, lo, 1, NULL);
  CHECK(t != MG_NO_ID && v != MG_NO_ID && flat != MG_NO_ID &&
        swapped != MG_NO_ID && rot != MG_NO_ID);
  MgTensorId outs[] = {t, s3, s24, swapped, rot};
  for (int i = 0; i < 5; ++i)
    CHECK_EQ_INT(mg_graph_mark_output(p, 0, outs[i], NULL), MG_STATUS_OK);
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  MgAbsId x = in(g, 0);
  CHECK(x != NONE);
  CHECK_EQ_INT(mg_absexpr_output(g, 0), x);
  CHECK_EQ_INT(mg_absexpr_output(g, 1), sm(g, 3, x));
  CHECK_EQ_INT(mg_absexpr_output(g, 2), sm(g, 24, x));
  // The merged extent is the product of the factors (SUM_SPLIT).
  CHECK_EQ_INT(mg_absexpr_output(g, 2), sm(g, 4, sm(g, 6, x)));
  CHECK_EQ_INT(mg_absexpr_output(g, 3), x);
  // Rotate-half: -X beside X is an opaque concat, not X.
  MgAbsId rot_term = mg_absexpr_lookup(g, MG_ABS_CONCAT, 0,
                                       mul(g, x, cst(g, -1.0)), x);
  CHECK(rot_term != NONE);
  CHECK_EQ_INT(mg_absexpr_output(g, 4), rot_term);
  CHECK(rot_term != x);
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
}

// LoRA in one matmul over concatenated operands (the Mirage paper's form):
// O = [X, X·A] · [W; B], grid over n, F = 1.
static MgProgram *lora_concat(int64_t m, int64_t k, int64_t n, int64_t r,
                              int32_t grid) {
  MgProgram *p = mg_program_create();
  MgGraphId kg = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  const int32_t launch[3] = {grid, 1, 1};
  mg_graph_set_launch(p, b, launch, 128, 1, NULL);
  int64_t dims[4][2] = {{m, k}, {k, n}, {k, r}, {r, n}};
  MgTensorId bin_[4], kin[4];
  for (int i = 0; i < 4; ++i)
    bin_[i] = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dims[i], NULL);
  const int8_t rep[3] = {PHI, PHI, PHI}, x1[3] = {1, PHI, PHI};
  MgTensorId xt = mg_graph_iterator(p, b, bin_[0], rep, PHI, NULL);
  MgTensorId wt = mg_graph_iterator(p, b, bin_[1], x1, PHI, NULL);
  MgTensorId at = mg_graph_iterator(p, b, bin_[2], rep, PHI, NULL);
  MgTensorId bt = mg_graph_iterator(p, b, bin_[3], x1, PHI, NULL);
  MgTensorId xa = mg_graph_matmul(p, b, xt, at, NULL);
  MgTensorId lhs = mg_graph_concat(p, b, xt, xa, 1, NULL);
  MgTensorId rhs = mg_graph_concat(p, b, wt, bt, 0, NULL);
  MgTensorId o = mg_graph_matmul(p, b, lhs, rhs, NULL);
  mg_graph_mark_output(p, b, mg_graph_saver(p, b, o, x1, NULL), NULL);
  for (int i = 0; i < 4; ++i)
    kin[i] = mg_graph_add_input(p, kg, MG_DTYPE_F16, 2, dims[i], NULL);
  MgTensorId y;
  CHECK(mg_graph_custom(p, kg, (MgCall){b, 4, kin}, &y, NULL) != MG_NO_ID);
  mg_graph_mark_output(p, kg, y, NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

static void test_absexpr_lora_concat(void) {
  // It is equivalent (the verifier agrees) ...
  MgProgram *ref = mg_sample_lora(8, 64, 48, 4), *cat = lora_concat(8, 64, 48, 4, 4);
  MgVerifyOptions vo = mg_verify_options_default();
  MgVerifyResult vr;
  CHECK_EQ_INT(mg_verify_equivalent(ref, cat, &vo, &vr, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(vr.verdict, MG_VERDICT_EQUIVALENT);
  mg_program_destroy(ref);
  mg_program_destroy(cat);
  // ... every op is kept, at small and paper shapes ...
  ACCEPTED(mg_sample_lora(8, 64, 48, 4), lora_concat(8, 64, 48, 4, 4));
  ACCEPTED(mg_sample_lora(16, 256, 4096, 16),
           lora_concat(16, 256, 4096, 16, 64));
  // ... and it is the CONCAT_MATMUL rule that keeps the concats.
  CHECK_EQ_INT(rejected_ops_rules(
                   mg_sample_lora(8, 64, 48, 4), lora_concat(8, 64, 48, 4, 4),
                   NULL, MG_ABS_RULES_ALL & ~(1u << MG_ABS_RULE_CONCAT_MATMUL)),
               5); // two concats, the matmul, the saver, the kernel output
}

// Lookups only read the frozen e-graph: threads walking programs at once
// get the single-threaded answers.
typedef struct Walker {
  const MgAbsGraph *g;
  const MgProgram *p;
  MgAbsId out;
  int rejected;
} Walker;

static void *walker_run(void *arg) {
  Walker *w = arg;
  const MgGraph *root = &w->p->graphs[0];
  MgAbsId *ids = malloc(sizeof *ids * (root->num_tensors + 1));
  w->rejected = 0;
  for (int rep = 0; rep < 200; ++rep) {
    w->rejected += walk(w->g, w->p, 0, ids);
    if (rep == 0)
      w->out = ids[root->outputs[0]];
    else if (ids[root->outputs[0]] != w->out)
      w->rejected++;
  }
  free(ids);
  return NULL;
}

static void test_absexpr_threads_share_a_graph(void) {
  MgProgram *target = mg_sample_attention(2, 8, 16, 64);
  MgProgram *cand = mg_sample_attention_split_kv(2, 8, 16, 64, 4, 2);
  MgAbsGraph *g = create(target, MG_ABS_RULES_ALL);
  Walker w[4];
  pthread_t th[4];
  for (int i = 0; i < 4; ++i) {
    w[i] = (Walker){g, cand, NONE, -1};
    CHECK(pthread_create(&th[i], NULL, walker_run, &w[i]) == 0);
  }
  for (int i = 0; i < 4; ++i) {
    pthread_join(th[i], NULL);
    CHECK_EQ_INT(w[i].rejected, 0);
    CHECK_EQ_INT(w[i].out, mg_absexpr_output(g, 0));
  }
  mg_absexpr_destroy(g);
  mg_program_destroy(target);
  mg_program_destroy(cand);
}

//===--- Max ops and the shift erasure -------------------------------------===//

static MgTensorId rmax(Prog *r, MgTensorId a, int32_t dim) {
  MgTensorId t = mg_graph_reduce(r->p, 0, MG_OP_REDUCE_MAX, a, dim, NULL);
  CHECK(t != MG_NO_ID);
  return t;
}

// max over 12 = max over 3 of max over 4, both ways (A is (4,12) or (3,4)).
static MgProgram *t_max12(void) {
  Prog r = prog(1, 4, 12);
  return done(&r, rmax(&r, r.in[0], 1));
}
static MgProgram *t_max3_max4(void) {
  Prog r = prog(1, 3, 4);
  return done(&r, rmax(&r, rmax(&r, r.in[0], 1), 0));
}
static MgAbsId q_max12(const MgAbsGraph *g) { return mx(g, 12, in(g, 0)); }
static MgAbsId q_max3_max4(const MgAbsGraph *g) {
  return mx(g, 3, mx(g, 4, in(g, 0)));
}
static MgAbsId q_max4_max3(const MgAbsGraph *g) {
  return mx(g, 4, mx(g, 3, in(g, 0)));
}
// maximum(A, B) + maximum(B, A): one class only through commutativity.
static MgProgram *t_maximum_both(void) {
  Prog r = prog(2, 4, 4);
  return done(&r, bin(&r, MG_OP_ADD, bin(&r, MG_OP_MAX, r.in[0], r.in[1]),
                      bin(&r, MG_OP_MAX, r.in[1], r.in[0])));
}
static MgAbsId q_maximum_twice(const MgAbsGraph *g) {
  MgAbsId m = mg_absexpr_lookup(g, MG_ABS_MAXIMUM, 0, in(g, 0), in(g, 1));
  return add(g, m, m);
}

// (e) The max rules, each shown to do the work by switching it off.
static void test_absexpr_max_rules(void) {
  AXIOM(t_max12, q_max3_max4, MG_ABS_RULE_MAX_SPLIT);
  AXIOM(t_max3_max4, q_max12, MG_ABS_RULE_MAX_SPLIT);
  // Like Σ: merging then splitting also swaps, so only both off lose it.
  CHECK(finds(t_max3_max4, q_max4_max3,
              MG_ABS_RULES_ALL & ~(1u << MG_ABS_RULE_MAX_MAX)));
  check_axiom(t_max3_max4, q_max4_max3, MG_ABS_RULE_MAX_MAX,
              MG_ABS_RULE_MAX_SPLIT, __LINE__);
  AXIOM(t_maximum_both, q_maximum_twice, MG_ABS_RULE_MAXIMUM_COMM);
  // max(1, x) = x; a max of no terms is no term; max is not a sum.
  MgProgram *p = t_max12();
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  MgAbsId a = in(g, 0);
  CHECK_EQ_INT(mx(g, 1, a), a);
  CHECK_EQ_INT(mx(g, 0, a), NONE);
  CHECK_EQ_INT(mx(g, 5, a), NONE);
  CHECK_EQ_INT(sm(g, 12, a), NONE);
  CHECK_EQ_INT(mg_absexpr_lookup(g, MG_ABS_MAXIMUM, 0, a, a), a);
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
  // maximum(x, x) is x for the ops too; maximum(A, B) = maximum(B, A).
  Prog r = prog(2, 4, 4);
  p = done(&r, bin(&r, MG_OP_MAX, bin(&r, MG_OP_MAX, r.in[0], r.in[0]),
                   r.in[1]));
  g = create(p, MG_ABS_RULES_ALL);
  CHECK_EQ_INT(mg_absexpr_lookup(g, MG_ABS_MAXIMUM, 0, in(g, 1), in(g, 0)),
               mg_absexpr_output(g, 0));
  CHECK_EQ_INT(unsound_nodes(g), 0);
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
}

// Attention over Q(bs,s,d), K(bs,d,l), V(bs,l,d): S = Q·K,
// O = (exp(S') / Σ exp(S')) · V with S' = S − max_last S when `stable`,
// S' = S when not (the form frontends write, and the plain one).
static MgProgram *attention_target(int64_t bs, int64_t s, int64_t d,
                                   int64_t l, bool stable) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t dq[3] = {bs, s, d}, dk[3] = {bs, d, l}, dv[3] = {bs, l, d};
  MgTensorId q = mg_graph_add_input(p, 0, MG_DTYPE_F16, 3, dq, NULL);
  MgTensorId k = mg_graph_add_input(p, 0, MG_DTYPE_F16, 3, dk, NULL);
  MgTensorId v = mg_graph_add_input(p, 0, MG_DTYPE_F16, 3, dv, NULL);
  MgTensorId sc = mg_graph_matmul(p, 0, q, k, NULL);
  if (stable)
    sc = mg_graph_binary(p, 0, MG_OP_SUB, sc,
                         mg_graph_reduce(p, 0, MG_OP_REDUCE_MAX, sc, 2, NULL),
                         NULL);
  MgTensorId e = mg_graph_unary(p, 0, MG_OP_EXP, sc, NULL);
  MgTensorId pr = mg_graph_binary(p, 0, MG_OP_DIV, e,
                                  mg_graph_sum(p, 0, e, 2, NULL), NULL);
  mg_graph_mark_output(p, 0, mg_graph_matmul(p, 0, pr, v, NULL), NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

// One FlashAttention-2 step in block graph b: the tile's max m_i, P_i =
// exp(S_i − m_i), and the online sums of P_i·V_i and of P_i's rows.
static void flash_step(MgProgram *p, MgGraphId b, MgTensorId qt,
                       MgTensorId kt, MgTensorId vt, MgTensorId *num,
                       MgTensorId *den, MgTensorId *m) {
  MgTensorId sc = mg_graph_matmul(p, b, qt, kt, NULL);
  *m = mg_graph_reduce(p, b, MG_OP_REDUCE_MAX, sc, 2, NULL);
  MgTensorId pe = mg_graph_unary(
      p, b, MG_OP_EXP, mg_graph_binary(p, b, MG_OP_SUB, sc, *m, NULL), NULL);
  *num = mg_graph_accum_online(p, b, mg_graph_matmul(p, b, pe, vt, NULL), *m,
                               NULL);
  *den = mg_graph_accum_online(p, b, mg_graph_sum(p, b, pe, 2, NULL), *m,
                               NULL);
}

// Kernel with block graph b (grid gx × bs, for-loop f) on the three
// attention inputs; returns b (its inputs are tensors 0, 1, 2).
static MgGraphId attention_block(MgProgram *p, int64_t bs, int64_t s,
                                 int64_t d, int64_t l, int32_t gx,
                                 int32_t f) {
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  const int32_t launch[3] = {gx, (int32_t)bs, 1};
  CHECK_EQ_INT(mg_graph_set_launch(p, b, launch, 128, f, NULL), MG_STATUS_OK);
  int64_t dq[3] = {bs, s, d}, dk[3] = {bs, d, l}, dv[3] = {bs, l, d};
  mg_graph_add_input(p, b, MG_DTYPE_F16, 3, dq, NULL);
  mg_graph_add_input(p, b, MG_DTYPE_F16, 3, dk, NULL);
  mg_graph_add_input(p, b, MG_DTYPE_F16, 3, dv, NULL);
  return b;
}

static void attention_kernel_inputs(MgProgram *p, int64_t bs, int64_t s,
                                    int64_t d, int64_t l, MgTensorId *kin) {
  int64_t dq[3] = {bs, s, d}, dk[3] = {bs, d, l}, dv[3] = {bs, l, d};
  kin[0] = mg_graph_add_input(p, 0, MG_DTYPE_F16, 3, dq, NULL);
  kin[1] = mg_graph_add_input(p, 0, MG_DTYPE_F16, 3, dk, NULL);
  kin[2] = mg_graph_add_input(p, 0, MG_DTYPE_F16, 3, dv, NULL);
}

// FlashAttention-2 in one kernel: block (x, y) takes query rows x of batch
// y and loops f times over the KV length; O = A / B after the loop.
static MgProgram *flash_attention(int64_t bs, int64_t s, int64_t d,
                                  int64_t l, int32_t rows, int32_t f) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = attention_block(p, bs, s, d, l, rows, f);
  const int8_t iq[3] = {1, 0, PHI}, ikv[3] = {PHI, 0, PHI};
  MgTensorId num, den, m;
  flash_step(p, b, mg_graph_iterator(p, b, 0, iq, PHI, NULL),
             mg_graph_iterator(p, b, 1, ikv, 2, NULL),
             mg_graph_iterator(p, b, 2, ikv, 1, NULL), &num, &den, &m);
  mg_graph_mark_output(
      p, b,
      mg_graph_saver(p, b, mg_graph_binary(p, b, MG_OP_DIV, num, den, NULL),
                     iq, NULL),
      NULL);
  MgTensorId kin[3], y;
  attention_kernel_inputs(p, bs, s, d, l, kin);
  CHECK(mg_graph_custom(p, 0, (MgCall){b, 3, kin}, &y, NULL) != MG_NO_ID);
  mg_graph_mark_output(p, 0, y, NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

// Split-KV: kernel 1, block (x, y) on KV chunk x of batch y, saves the
// chunk's A_b, B_b (rescaled to its max) and its max M_b side by side along
// dim 1; then, at kernel level, M = max_b M_b, w = exp(M_b − M),
// O = Σ_b A_b·w / Σ_b B_b·w.
static MgProgram *split_kv_attention(int64_t bs, int64_t s, int64_t d,
                                     int64_t l, int32_t chunks, int32_t f) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = attention_block(p, bs, s, d, l, chunks, f);
  const int8_t iq[3] = {PHI, 0, PHI}, ik[3] = {2, 0, PHI},
               iv[3] = {1, 0, PHI}, o[3] = {1, 0, PHI};
  MgTensorId num, den, m;
  flash_step(p, b, mg_graph_iterator(p, b, 0, iq, PHI, NULL),
             mg_graph_iterator(p, b, 1, ik, 2, NULL),
             mg_graph_iterator(p, b, 2, iv, 1, NULL), &num, &den, &m);
  MgTensorId saved[3] = {num, den, mg_graph_accum(p, b, m, MG_ACCUM_MAX, NULL)};
  for (int i = 0; i < 3; ++i)
    mg_graph_mark_output(p, b, mg_graph_saver(p, b, saved[i], o, NULL), NULL);
  MgTensorId kin[3], part[3];
  attention_kernel_inputs(p, bs, s, d, l, kin);
  CHECK(mg_graph_custom(p, 0, (MgCall){b, 3, kin}, part, NULL) != MG_NO_ID);
  MgTensorId split[3];
  for (int i = 0; i < 3; ++i) // (bs, chunks·s, e) -> (bs, chunks, s, e)
    split[i] = mg_graph_reshape(
        p, 0, part[i], 4,
        (const int64_t[]){bs, chunks, s, i == 0 ? d : 1}, NULL);
  MgTensorId mall = mg_graph_reduce(p, 0, MG_OP_REDUCE_MAX, split[2], 1, NULL);
  MgTensorId w = mg_graph_unary(
      p, 0, MG_OP_EXP,
      mg_graph_binary(p, 0, MG_OP_SUB, split[2], mall, NULL), NULL);
  MgTensorId n2 = mg_graph_sum(
      p, 0, mg_graph_binary(p, 0, MG_OP_MUL, split[0], w, NULL), 1, NULL);
  MgTensorId d2 = mg_graph_sum(
      p, 0, mg_graph_binary(p, 0, MG_OP_MUL, split[1], w, NULL), 1, NULL);
  MgTensorId out = mg_graph_reshape(
      p, 0, mg_graph_binary(p, 0, MG_OP_DIV, n2, d2, NULL), 3,
      (const int64_t[]){bs, s, d}, NULL);
  CHECK(out != MG_NO_ID);
  mg_graph_mark_output(p, 0, out, NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

// S = Σd(Q·K) over inputs Q, K of graph g.
static MgAbsId scores(const MgAbsGraph *g, int64_t d) {
  return sm(g, d, mul(g, in(g, 0), in(g, 1)));
}

// (a) FlashAttention-2's terms are subexpressions of the stable target and
// its output is the target's output class; (b) so is split-KV's.
static void test_absexpr_flash_forms(void) {
  int64_t bs = 2, s = 8, d = 16, l = 64;
  MgProgram *p = attention_target(bs, s, d, l, true);
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  CHECK(mg_absexpr_stats(g).saturated);
  CHECK_EQ_INT(unsound_nodes(g), 0);
  MgAbsId sc = scores(g, d), v = in(g, 2);
  MgAbsId e = fn(g, MG_ABS_EXP, shf(g, sc)); // exp(S − m) for every max m
  // F iterations over tiles of t = l/F keys.
  const int64_t f = 4, t = l / f;
  MgAbsId mi = mx(g, t, sc);                              // m_i
  MgAbsId a = sm(g, f, sm(g, t, mul(g, e, v)));           // online(P_i·V_i)
  MgAbsId bb = sm(g, f, sm(g, t, e));                     // online(ΣP_i)
  CHECK(mg_absexpr_is_subexpr(g, mi));
  CHECK(mg_absexpr_is_subexpr(g, e)); // P_i = exp(S_i − m_i)
  CHECK(mg_absexpr_is_subexpr(g, a) && mg_absexpr_is_subexpr(g, bb));
  CHECK_EQ_INT(dv(g, a, bb), mg_absexpr_output(g, 0));
  // The running max and the split's maxes: max(F, m_i) = max over l.
  CHECK_EQ_INT(mx(g, f, mi), mx(g, l, sc));
  CHECK(mg_absexpr_is_subexpr(g, mx(g, 2, mx(g, f / 2, mi))));
  // Rescale factors exp(M_b − M) erase to 1, their exponents to 0.
  CHECK(mg_absexpr_is_subexpr(g, cst(g, 0.0)));
  CHECK(mg_absexpr_is_subexpr(g, cst(g, 1.0)));
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
  // Whole programs: every op kept, output in the target's class. F = l
  // has one-key tiles: m_i = max(1, S_i) = S_i, P_i = exp(0) = 1, and the
  // online sums are Σ_l V·exp(shift(S)) and Σ_l exp(shift(S)).
  const int32_t loops[5] = {1, 2, 4, 8, (int32_t)l};
  for (int i = 0; i < 5; ++i) {
    ACCEPTED(attention_target(bs, s, d, l, true),
             flash_attention(bs, s, d, l, 4, loops[i]));
    ACCEPTED(attention_target(bs, s, d, l, true),
             split_kv_attention(bs, s, d, l, 4, loops[i] > 8 ? 2 : loops[i]));
    ACCEPTED(attention_target(bs, s, d, l, true),
             split_kv_attention(bs, s, d, l, loops[i] > 8 ? 16 : loops[i], 2));
  }
  ACCEPTED(attention_target(1, 4, 6, 36, true),
           split_kv_attention(1, 4, 6, 36, 3, 4));
  // A fused target keeps its own ops and is found from the kernel form.
  ACCEPTED(flash_attention(bs, s, d, l, 4, 4),
           flash_attention(bs, s, d, l, 4, 4));
  ACCEPTED(split_kv_attention(bs, s, d, l, 4, 2),
           split_kv_attention(bs, s, d, l, 4, 2));
  ACCEPTED(flash_attention(bs, s, d, l, 4, 4),
           attention_target(bs, s, d, l, true));
  ACCEPTED(attention_target(bs, 256, 64, 4096, true),
           split_kv_attention(bs, 256, 64, 4096, 16, 4));
  // The samples' forms (split-KV merging with online accumulators).
  ACCEPTED(mg_sample_stable_attention(bs, s, d, l),
           mg_sample_stable_attention_flash(bs, s, d, l, 4, 8));
  ACCEPTED(mg_sample_stable_attention(bs, s, d, l),
           mg_sample_stable_attention_split_kv(bs, s, d, l, 4, 2));
  ACCEPTED(mg_sample_stable_attention(bs, 256, 64, 4096),
           mg_sample_stable_attention_flash(bs, 256, 64, 4096, 4, 64));
  ACCEPTED(mg_sample_stable_softmax(4, 32),
           mg_sample_stable_softmax_fused(4, 32, 2));
}

// Stable softmax over the last dim of X(m, n), or the plain one.
static MgProgram *softmax_target(int64_t m, int64_t n, bool stable,
                                 int64_t max_over) {
  Prog r = prog(1, m, n);
  MgTensorId x = r.in[0];
  if (stable) {
    MgSlice head = {1, 0, max_over};
    MgTensorId part =
        max_over == n ? x : mg_graph_slice(r.p, 0, x, head, NULL);
    x = bin(&r, MG_OP_SUB, x, rmax(&r, part, 1));
  }
  MgTensorId e = un(&r, MG_OP_EXP, x);
  return done(&r, bin(&r, MG_OP_DIV, e, red(&r, e, 1)));
}

// (c) The stable target's term is exp(shift(X)) / Σ exp(shift(X)), and the
// plain program is pruned at its exp (and what follows): it is the form
// the stability check would reject. (f) A subtrahend that is no max is not
// erased.
static void test_absexpr_shift_erasure(void) {
  CHECK_EQ_INT(rejected_ops(attention_target(2, 8, 16, 64, true),
                            attention_target(2, 8, 16, 64, false), NULL),
               4); // exp, sum, div, matmul
  CHECK_EQ_INT(rejected_ops(softmax_target(4, 32, true, 32),
                            softmax_target(4, 32, false, 32), NULL),
               3);
  MgProgram *p = softmax_target(4, 32, true, 32);
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  MgAbsId x = in(g, 0), e = fn(g, MG_ABS_EXP, shf(g, x));
  CHECK_EQ_INT(dv(g, e, sm(g, 32, e)), mg_absexpr_output(g, 0));
  CHECK_EQ_INT(fn(g, MG_ABS_EXP, x), NONE);
  CHECK(mg_absexpr_is_subexpr(g, mx(g, 32, x))); // the max itself is kept
  CHECK_EQ_INT(unsound_nodes(g), 0);
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
  // A shift of a shift is one shift: (X − m) − m' is shift(X).
  Prog q = prog(1, 4, 8);
  MgTensorId m = rmax(&q, q.in[0], 1);
  p = done(&q, bin(&q, MG_OP_SUB, bin(&q, MG_OP_SUB, q.in[0], m), m));
  g = create(p, MG_ABS_RULES_ALL);
  CHECK(shf(g, in(g, 0)) != NONE);
  CHECK_EQ_INT(shf(g, in(g, 0)), mg_absexpr_output(g, 0));
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
  // The plain target has no max, and nothing the erasure keeps.
  p = softmax_target(4, 32, false, 32);
  g = create(p, MG_ABS_RULES_ALL);
  CHECK_EQ_INT(mx(g, 32, in(g, 0)), NONE);
  CHECK_EQ_INT(cst(g, 0.0), NONE);
  CHECK_EQ_INT(cst(g, 1.0), NONE);
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
  // (f) exp(X − ΣY) and max(X) − Y keep their subtraction.
  Prog r = prog(2, 4, 8);
  MgTensorId s1 = bin(&r, MG_OP_SUB, r.in[0], red(&r, r.in[1], 1));
  MgTensorId s2 = bin(&r, MG_OP_SUB, rmax(&r, r.in[0], 1), r.in[1]);
  p = done(&r, bin(&r, MG_OP_ADD, un(&r, MG_OP_EXP, s1), s2));
  g = create(p, MG_ABS_RULES_ALL);
  MgAbsId a = in(g, 0), b = in(g, 1), neg = cst(g, -1.0);
  MgAbsId t1 = fn(g, MG_ABS_EXP, add(g, a, mul(g, neg, sm(g, 8, b))));
  MgAbsId t2 = add(g, mx(g, 8, a), mul(g, neg, b));
  CHECK(t1 != NONE && t2 != NONE);
  CHECK_EQ_INT(add(g, t1, t2), mg_absexpr_output(g, 0));
  CHECK_EQ_INT(fn(g, MG_ABS_EXP, a), NONE);
  CHECK_EQ_INT(cst(g, 0.0), NONE);
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
}

// (d) An output that is a max keeps its max(n, x) term: a max over a subset
// is a subexpression (through the split) but never the output's class. A
// subset max used as a softmax shift is erased like the full one: only the
// stability check tells them apart.
static void test_absexpr_subset_max(void) {
  Prog r = prog(1, 4, 8);
  MgProgram *target = done(&r, rmax(&r, r.in[0], 1));
  MgAbsGraph *g = create(target, MG_ABS_RULES_ALL);
  MgAbsId x = in(g, 0);
  CHECK_EQ_INT(mx(g, 8, x), mg_absexpr_output(g, 0));
  CHECK(mg_absexpr_is_subexpr(g, mx(g, 4, x)));
  CHECK(mx(g, 4, x) != mg_absexpr_output(g, 0));
  CHECK_EQ_INT(mx(g, 2, mx(g, 4, x)), mg_absexpr_output(g, 0));
  mg_absexpr_destroy(g);
  // As programs: the max over the first half is kept op by op, but its
  // output is not the target's (-1).
  r = prog(1, 4, 8);
  MgTensorId lo = mg_graph_slice(r.p, 0, r.in[0], (MgSlice){1, 0, 4}, NULL);
  MgProgram *half = done(&r, rmax(&r, lo, 1));
  CHECK_EQ_INT(rejected_ops(mg_program_clone(target), half, NULL), -1);
  r = prog(1, 4, 8);
  MgProgram *two_step = done(
      &r, rmax(&r, rmax(&r, mg_graph_reshape(r.p, 0, r.in[0], 3,
                                             (const int64_t[]){4, 2, 4}, NULL),
                        2),
               1));
  ACCEPTED(target, two_step);
  ACCEPTED(softmax_target(4, 32, true, 32), softmax_target(4, 32, true, 16));
}

// 1 for max nodes, 2 for shift nodes, 0 for the others.
static int kind_of(MgAbsOp op) {
  if (op == MG_ABS_MAX || op == MG_ABS_MAXIMUM)
    return 1;
  return op == MG_ABS_SHIFT ? 2 : 0;
}

// Max and shift classes hold nodes of their kind only (the O(1) query of
// the erasure relies on it), and semi-naive rounds still build the naive
// e-graph.
static void test_absexpr_max_classes(void) {
  MgProgram *ps[3] = {attention_target(2, 8, 16, 64, true),
                      split_kv_attention(2, 8, 16, 64, 4, 2), t_max3_max4()};
  for (int i = 0; i < 3; ++i) {
    MgAbsGraph *g = create(ps[i], MG_ABS_RULES_ALL);
    int mixed = 0, maxes = 0;
    for (uint32_t k = 0; k < g->num_nodes; ++k) {
      const MgAbsNode *n = &g->nodes[k];
      maxes += kind_of((MgAbsOp)n->op) == 1;
      mixed += n->alive && kind_of((MgAbsOp)n->op) !=
                               kind_of(mg_abs_class_op(g, n->cls));
    }
    CHECK(maxes > 0);
    CHECK_EQ_INT(mixed, 0);
    CHECK_EQ_INT(unsound_nodes(g), 0);
    MgAbsGraph *h = create(ps[i], MG_ABS_RULES_ALL | MG_ABS_NAIVE);
    CHECK_EQ_INT(g->num_nodes, h->num_nodes);
    CHECK_EQ_INT(mg_absexpr_stats(g).classes, mg_absexpr_stats(h).classes);
    mg_absexpr_destroy(g);
    mg_absexpr_destroy(h);
    mg_program_destroy(ps[i]);
  }
}

//===--- Soundness, determinism, statistics, bounds --------------------------===//

static void test_absexpr_sound_on_benchmarks(void) {
  MgProgram *ps[6] = {mg_sample_rmsnorm_matmul(2, 4096, 6144),
                      mg_sample_attention(2, 256, 64, 4096),
                      mg_sample_qknorm(2, 256, 64, 4096),
                      mg_sample_lora(16, 256, 4096, 16),
                      mg_sample_gated_mlp(8, 4096, 4096),
                      mg_sample_ntrans(8, 4096)};
  for (int i = 0; i < 6; ++i) {
    MgAbsGraph *g = create(ps[i], MG_ABS_RULES_ALL);
    MgAbsStats s = mg_absexpr_stats(g);
    CHECK(s.saturated);
    CHECK(s.nodes > s.classes && s.classes > 0);
    CHECK(s.iterations >= 2 && s.iterations < 32);
    CHECK_EQ_INT(unsound_nodes(g), 0);
    mg_absexpr_destroy(g);
    mg_program_destroy(ps[i]);
  }
}

static void test_absexpr_deterministic(void) {
  MgProgram *p = mg_sample_qknorm(2, 8, 16, 64);
  MgAbsGraph *a = create(p, MG_ABS_RULES_ALL), *b = create(p, MG_ABS_RULES_ALL);
  MgAbsStats sa = mg_absexpr_stats(a), sb = mg_absexpr_stats(b);
  CHECK_EQ_INT(sa.nodes, sb.nodes);
  CHECK_EQ_INT(sa.classes, sb.classes);
  CHECK_EQ_INT(sa.iterations, sb.iterations);
  CHECK_EQ_INT(mg_absexpr_output(a, 0), mg_absexpr_output(b, 0));
  CHECK_EQ_INT(a->num_nodes, b->num_nodes);
  int diffs = 0;
  for (uint32_t i = 0; i < a->num_nodes && i < b->num_nodes; ++i) {
    const MgAbsNode *x = &a->nodes[i], *y = &b->nodes[i];
    diffs += x->op != y->op || x->param != y->param || x->a != y->a ||
             x->b != y->b || x->alive != y->alive ||
             a->parent[i] != b->parent[i];
  }
  CHECK_EQ_INT(diffs, 0);
  mg_absexpr_destroy(a);
  mg_absexpr_destroy(b);
  mg_program_destroy(p);
}

// Semi-naive rounds (a node is matched again only when it or a child class
// changed) build exactly the e-graph that matching everything does.
static void test_absexpr_semi_naive_matches_naive(void) {
  MgProgram *ps[5] = {mg_sample_qknorm(2, 8, 16, 64), mg_sample_ntrans(8, 48),
                      mg_sample_lora(8, 64, 48, 4),
                      mg_sample_rmsnorm_matmul(2, 360, 16),
                      mg_sample_attention(2, 8, 16, 64)};
  for (int i = 0; i < 5; ++i) {
    MgAbsGraph *a = create(ps[i], MG_ABS_RULES_ALL);
    MgAbsGraph *b = create(ps[i], MG_ABS_RULES_ALL | MG_ABS_NAIVE);
    MgAbsStats sa = mg_absexpr_stats(a), sb = mg_absexpr_stats(b);
    CHECK(sa.saturated && sb.saturated);
    CHECK_EQ_INT(sa.nodes, sb.nodes);
    CHECK_EQ_INT(sa.classes, sb.classes);
    CHECK_EQ_INT(sa.iterations, sb.iterations);
    mg_absexpr_destroy(a);
    mg_absexpr_destroy(b);
    mg_program_destroy(ps[i]);
  }
}

// exp((A·B)·C)·D + exp(A·(B·C))·E, or with D/exp(..) and E/exp(..): the two
// exps become one class only by congruence, in the rebuild after round 1,
// when the sum was already matched; its child classes gain no node, only
// new child ids. The sum must be matched again (then it factors).
static MgProgram *t_congruent_exps(bool quotient) {
  Prog r = prog(5, 4, 4);
  MgTensorId *x = r.in;
  MgTensorId e1 = un(&r, MG_OP_EXP,
                     bin(&r, MG_OP_MUL, bin(&r, MG_OP_MUL, x[0], x[1]), x[2]));
  MgTensorId e2 = un(&r, MG_OP_EXP,
                     bin(&r, MG_OP_MUL, x[0], bin(&r, MG_OP_MUL, x[1], x[2])));
  MgOpKind k = quotient ? MG_OP_DIV : MG_OP_MUL;
  MgTensorId l = quotient ? bin(&r, k, x[3], e1) : bin(&r, k, e1, x[3]);
  MgTensorId rr = quotient ? bin(&r, k, x[4], e2) : bin(&r, k, e2, x[4]);
  return done(&r, bin(&r, MG_OP_ADD, l, rr));
}
static MgProgram *t_congruent_products(void) { return t_congruent_exps(false); }
static MgProgram *t_congruent_quotients(void) { return t_congruent_exps(true); }
static MgAbsId q_congruent_exp(const MgAbsGraph *g) {
  return fn(g, MG_ABS_EXP, mul(g, mul(g, in(g, 0), in(g, 1)), in(g, 2)));
}
static MgAbsId q_factored_exp(const MgAbsGraph *g) { // exp(ABC)·(D+E)
  return mul(g, q_congruent_exp(g), add(g, in(g, 3), in(g, 4)));
}
static MgAbsId q_quotient_exp(const MgAbsGraph *g) { // (D+E)/exp(ABC)
  return dv(g, add(g, in(g, 3), in(g, 4)), q_congruent_exp(g));
}

static void test_absexpr_rematch_after_congruence(void) {
  uint32_t assoc = 1u << MG_ABS_RULE_MUL_ASSOC;
  uint32_t factor = assoc | 1u << MG_ABS_RULE_FACTOR;
  uint32_t div_add = assoc | 1u << MG_ABS_RULE_DIV_ADD;
  CHECK(finds(t_congruent_products, q_factored_exp, factor));
  CHECK(finds(t_congruent_products, q_factored_exp, factor | MG_ABS_NAIVE));
  CHECK(finds(t_congruent_quotients, q_quotient_exp, div_add));
  CHECK(finds(t_congruent_quotients, q_quotient_exp, div_add | MG_ABS_NAIVE));
  CHECK(!finds(t_congruent_quotients, q_quotient_exp, assoc));
}

// Σ4 A: classes A, Σ2 A, Σ4 A; nodes input, Σ4 A, Σ2 A, Σ2(Σ2 A). Round 1
// adds the split, round 2 finds nothing new.
static void test_absexpr_stats_exact(void) {
  Prog r = prog(1, 3, 4);
  MgProgram *p = done(&r, red(&r, r.in[0], 1));
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  MgAbsStats s = mg_absexpr_stats(g);
  CHECK_EQ_INT(s.nodes, 4);
  CHECK_EQ_INT(s.classes, 3);
  CHECK_EQ_INT(s.iterations, 2);
  CHECK(s.saturated);
  MgAbsId a = in(g, 0), s2 = sm(g, 2, a);
  CHECK_EQ_INT(sm(g, 2, s2), mg_absexpr_output(g, 0));
  CHECK(mg_absexpr_is_subexpr(g, a) && mg_absexpr_is_subexpr(g, s2));
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
}

static void test_absexpr_bounded(void) {
  MgAbsOptions o = mg_absexpr_options_default();
  CHECK_EQ_INT(o.max_nodes, 200000);
  CHECK_EQ_INT(o.max_iterations, 32);
  MgProgram *p = mg_sample_qknorm(2, 256, 64, 4096);
  o.max_nodes = 1000;
  MgAbsGraph *g = mg_absexpr_create(p, &o, NULL);
  MgAbsStats s = mg_absexpr_stats(g);
  CHECK(!s.saturated);
  CHECK(s.nodes <= 1000);
  CHECK(g->num_nodes <= 1000);
  CHECK_EQ_INT(unsound_nodes(g), 0);
  mg_absexpr_destroy(g);
  o = mg_absexpr_options_default();
  o.max_iterations = 1;
  g = mg_absexpr_create(p, &o, NULL);
  s = mg_absexpr_stats(g);
  CHECK(!s.saturated);
  CHECK_EQ_INT(s.iterations, 1);
  mg_absexpr_destroy(g);
  // Target ops are always found; the fused form needs the full saturation.
  o.max_iterations = 0;
  ACCEPTED(mg_sample_qknorm(2, 8, 16, 64), mg_sample_qknorm(2, 8, 16, 64));
  CHECK_EQ_INT(rejected_ops(mg_sample_qknorm(2, 8, 16, 64),
                            mg_sample_qknorm(2, 8, 16, 64), &o), 0);
  CHECK(rejected_ops(mg_sample_rmsnorm_matmul(4, 64, 48),
                     mg_sample_rmsnorm_matmul_fused(4, 64, 48, 4, 4), &o) > 0);
  mg_program_destroy(p);
}

static void test_absexpr_bad_arguments(void) {
  MgDiag d;
  CHECK(mg_absexpr_create(NULL, NULL, &d) == NULL);
  CHECK(strstr(d.message, "no root kernel graph") != NULL);
  MgProgram *empty = mg_program_create();
  mg_program_add_graph(empty, MG_LEVEL_KERNEL);
  CHECK(mg_absexpr_create(empty, NULL, &d) == NULL); // no outputs
  mg_program_destroy(empty);
  mg_absexpr_destroy(NULL);
  MgAbsStats z = mg_absexpr_stats(NULL);
  CHECK_EQ_INT(z.nodes, 0);
  CHECK(!z.saturated);
  MgProgram *p = mg_sample_sum_last(4, 8);
  MgAbsGraph *g = create(p, MG_ABS_RULES_ALL);
  CHECK_EQ_INT(mg_absexpr_lookup(g, MG_ABS_COUNT, 0, NONE, NONE), NONE);
  CHECK_EQ_INT(mg_absexpr_lookup(g, MG_ABS_ADD, 0, 0, NONE), NONE);
  CHECK_EQ_INT(mg_absexpr_lookup(g, MG_ABS_EXP, 0, 123456789u, NONE), NONE);
  CHECK_EQ_INT(mg_absexpr_lookup(NULL, MG_ABS_INPUT, 0, NONE, NONE), NONE);
  CHECK_EQ_INT(in(g, 1), NONE);
  CHECK(!mg_absexpr_is_subexpr(g, 123456789u));
  CHECK(!mg_absexpr_is_subexpr(NULL, 0));
  CHECK_EQ_INT(mg_absexpr_output(g, 1), NONE);
  CHECK_EQ_INT(mg_absexpr_of_op(g, p, 5, 0, NULL, NULL), 0);
  CHECK_EQ_INT(mg_absexpr_of_op(g, p, 0, 99, NULL, NULL), 0);
  mg_absexpr_destroy(g);
  mg_program_destroy(p);
}

int main(void) {
  RUN_TEST(test_absexpr_axioms_ac);
  RUN_TEST(test_absexpr_axioms_distributivity);
  RUN_TEST(test_absexpr_axioms_division);
  RUN_TEST(test_absexpr_axioms_sums);
  RUN_TEST(test_absexpr_sum_of_one);
  RUN_TEST(test_absexpr_matmul_associativity);
  RUN_TEST(test_absexpr_op_mapping);
  RUN_TEST(test_absexpr_fused_forms_small);
  RUN_TEST(test_absexpr_fused_forms_paper);
  RUN_TEST(test_absexpr_thread_graph);
  RUN_TEST(test_absexpr_wrong_terms_rejected);
  RUN_TEST(test_absexpr_wrong_programs_rejected);
  RUN_TEST(test_absexpr_concat);
  RUN_TEST(test_absexpr_views);
  RUN_TEST(test_absexpr_lora_concat);
  RUN_TEST(test_absexpr_threads_share_a_graph);
  RUN_TEST(test_absexpr_max_rules);
  RUN_TEST(test_absexpr_flash_forms);
  RUN_TEST(test_absexpr_shift_erasure);
  RUN_TEST(test_absexpr_subset_max);
  RUN_TEST(test_absexpr_max_classes);
  RUN_TEST(test_absexpr_sound_on_benchmarks);
  RUN_TEST(test_absexpr_deterministic);
  RUN_TEST(test_absexpr_semi_naive_matches_naive);
  RUN_TEST(test_absexpr_rematch_after_congruence);
  RUN_TEST(test_absexpr_stats_exact);
  RUN_TEST(test_absexpr_bounded);
  RUN_TEST(test_absexpr_bad_arguments);
  return TEST_SUMMARY();
}
