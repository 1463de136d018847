//===- rules.c - The axioms as e-graph rewrites, applied in rounds --------===//
//
// One round: for every alive node that existed when the round began (in
// index order, so the result is deterministic), every rule whose left side
// matches that node and the nodes of its child classes adds its right side
// and merges it into the node's class. Child classes are read from the CSR
// snapshot of the last rebuild, so nodes added during the round are matched
// in the next one. Then mg_abs_rebuild restores congruence.
//
// Rounds are semi-naive: a rule reads a node and the nodes of its child
// classes, so re-matching a node whose child classes did not change can only
// rediscover what is there. A node is matched when it is new (then also the
// rules that read the node alone: commutativity, splitting) or when a child
// class is dirty (see egraph.h). Tests check that this builds exactly the
// e-graph of matching every node in every round (MG_ABS_NAIVE).
//
// Each rule states an axiom of docs/absexpr.md, in both directions unless
// said otherwise:
//   ADD_COMM    a+b = b+a                 MUL_COMM   a·b = b·a
//   ADD_ASSOC   (a+b)+c = a+(b+c)         MUL_ASSOC  (a·b)·c = a·(b·c)
//   DISTRIBUTE  a·(b+c) -> a·b + a·c   (only when a is an atom: an input,
//               a constant or a function symbol; with associativity and the
//               Σ rules this expands every monomial times a sum, but never
//               a sum times a sum, whose partial sums are exponentially
//               many and never computed by a kernel)
//   FACTOR      a·b + a·c -> a·(b+c)
//   DIV_ADD     (a+b)/c = a/c + b/c
//   MUL_DIV     a·(b/c) = (a·b)/c
//   DIV_MUL     a/(b·c) = (a/b)/c
//   SUM_ADD     Σn(a+b) = Σn a + Σn b
//   SUM_MUL     Σn(a·c) = (Σn a)·c        (indices are abstracted away)
//   SUM_DIV     Σn(a/c) = (Σn a)/c
//   SUM_SUM     Σm Σn a = Σn Σm a
//   SUM_SPLIT   Σ(j·k) a = Σj Σk a        for every divisor pair (j,k)
//   CONCAT_MATMUL  Σn(a·c) + Σm(b·d) -> Σ(n+m)(concat(a,b)·concat(c,d)),
//               for sums of two matmuls as the target writes them
//   MAX_MAX     max(m, max(n, a)) = max(n, max(m, a))
//   MAX_SPLIT   max(j·k, a) = max(j, max(k, a))   as SUM_SPLIT
//   MAXIMUM_COMM maximum(a, b) = maximum(b, a)
//   Σ1 a = a and max(1, a) = a are not rules: mg_abs_add never makes a
//   one-term sum or max.
// No rule relates a max or a shift to anything else (max and shift nodes
// stay in classes of their own kind; egraph.h relies on it).
//
// A round stops early when mg_abs_add refuses a node (max_nodes); the
// e-graph is then sound but incomplete, and stats.saturated says so.
//
//===----------------------------------------------------------------------===//
#include "egraph.h"

#include <stdlib.h>
#include <string.h>

// One node of a class, copied (mg_abs_add may move g->nodes).
static MgAbsNode node_at(const MgAbsGraph *g, uint32_t k) {
  return g->nodes[g->class_nodes[k]];
}

static uint32_t first_of(const MgAbsGraph *g, MgAbsId c) {
  return c < g->csr_nodes ? g->class_start[c] : 0;
}

static uint32_t end_of(const MgAbsGraph *g, MgAbsId c) {
  return c < g->csr_nodes ? g->class_start[c + 1] : 0;
}

static bool on(const MgAbsGraph *g, MgAbsRule rule) {
  return (g->rules >> rule) & 1u;
}

// True when the class holds a leaf or an uninterpreted function: its value
// is no sum, product or quotient, whatever rules add later (no rule makes a
// symbol equal to anything else), so this test does not change as the
// e-graph grows.
static bool class_is_atom(const MgAbsGraph *g, MgAbsId c) {
  for (uint32_t k = first_of(g, c); k < end_of(g, c); ++k) {
    uint8_t op = g->nodes[g->class_nodes[k]].op;
    if (op != MG_ABS_ADD && op != MG_ABS_MUL && op != MG_ABS_DIV &&
        op != MG_ABS_SUM)
      return true;
  }
  return false;
}

static MgAbsId add2(MgAbsGraph *g, MgAbsOp op, MgAbsId a, MgAbsId b) {
  return mg_abs_add(g, op, 0, a, b);
}

static MgAbsId sum(MgAbsGraph *g, int64_t n, MgAbsId a) {
  return mg_abs_add(g, MG_ABS_SUM, n, a, MG_ABS_NONE);
}

// ADD and MUL: commutativity and associativity both ways.
static void rules_ac(MgAbsGraph *g, MgAbsOp op, MgAbsId c, MgAbsId a,
                     MgAbsId b, bool fresh) {
  bool add = op == MG_ABS_ADD;
  if (fresh && on(g, add ? MG_ABS_RULE_ADD_COMM : MG_ABS_RULE_MUL_COMM))
    mg_abs_merge(g, c, add2(g, op, b, a));
  if (!on(g, add ? MG_ABS_RULE_ADD_ASSOC : MG_ABS_RULE_MUL_ASSOC))
    return;
  for (uint32_t k = first_of(g, a); k < end_of(g, a); ++k) {
    MgAbsNode m = node_at(g, k); // (x∘y)∘b -> x∘(y∘b)
    if (m.op == op)
      mg_abs_merge(g, c, add2(g, op, m.a, add2(g, op, m.b, b)));
  }
  for (uint32_t k = first_of(g, b); k < end_of(g, b); ++k) {
    MgAbsNode m = node_at(g, k); // a∘(x∘y) -> (a∘x)∘y
    if (m.op == op)
      mg_abs_merge(g, c, add2(g, op, add2(g, op, a, m.a), m.b));
  }
}

// a+b where both sides have the same shape of node: factor out the shared
// part (a product's first factor, a quotient's divisor, a sum's length).
static void rules_add(MgAbsGraph *g, MgAbsId c, MgAbsId a, MgAbsId b,
                      bool fresh) {
  rules_ac(g, MG_ABS_ADD, c, a, b, fresh);
  for (uint32_t i = first_of(g, a); i < end_of(g, a); ++i) {
    MgAbsNode x = node_at(g, i);
    if (x.op != MG_ABS_MUL && x.op != MG_ABS_DIV && x.op != MG_ABS_SUM)
      continue;
    for (uint32_t j = first_of(g, b); j < end_of(g, b); ++j) {
      MgAbsNode y = node_at(g, j);
      if (y.op != x.op)
        continue;
      if (x.op == MG_ABS_MUL && on(g, MG_ABS_RULE_FACTOR) &&
          mg_abs_find(g, x.a) == mg_abs_find(g, y.a))
        // p·q + p·r -> p·(q+r)
        mg_abs_merge(g, c, add2(g, MG_ABS_MUL, x.a,
                                add2(g, MG_ABS_ADD, x.b, y.b)));
      else if (x.op == MG_ABS_DIV && on(g, MG_ABS_RULE_DIV_ADD) &&
               mg_abs_find(g, x.b) == mg_abs_find(g, y.b))
        // q/d + r/d -> (q+r)/d
        mg_abs_merge(g, c, add2(g, MG_ABS_DIV,
                                add2(g, MG_ABS_ADD, x.a, y.a), x.b));
      else if (x.op == MG_ABS_SUM && on(g, MG_ABS_RULE_SUM_ADD) &&
               x.param == y.param)
        // Σn q + Σn r -> Σn (q+r)
        mg_abs_merge(g, c, sum(g, x.param, add2(g, MG_ABS_ADD, x.a, y.a)));
    }
  }
}

// Σn(a·c) + Σm(b·d) -> Σ(n+m)(concat(a,b) · concat(c,d)), both orders: one
// matmul over concatenated operands computes the sum of two matmuls when
// the concats run along the contracted dim (as in LoRA's X·W + (X·A)·B =
// [X, X·A]·[W; B]). Only for a sum of two matmuls as the target writes them
// (nodes below num_target_nodes): the rule reads which operand is which,
// and the concat symbols it makes feed no other rule but AC and Σ rules.
static void rules_concat_matmul(MgAbsGraph *g, MgAbsId c, MgAbsId a,
                                MgAbsId b) {
  uint32_t t = g->num_target_nodes;
  for (uint32_t i = first_of(g, a); i < end_of(g, a); ++i) {
    MgAbsNode x = node_at(g, i);
    if (g->class_nodes[i] >= t || x.op != MG_ABS_SUM)
      continue;
    for (uint32_t j = first_of(g, b); j < end_of(g, b); ++j) {
      MgAbsNode y = node_at(g, j);
      if (g->class_nodes[j] >= t || y.op != MG_ABS_SUM ||
          x.param > MG_ABS_MAX_SUM - y.param)
        continue;
      for (uint32_t k = first_of(g, x.a); k < end_of(g, x.a); ++k) {
        MgAbsNode p = node_at(g, k);
        if (g->class_nodes[k] >= t || p.op != MG_ABS_MUL)
          continue;
        for (uint32_t l = first_of(g, y.a); l < end_of(g, y.a); ++l) {
          MgAbsNode q = node_at(g, l);
          if (g->class_nodes[l] >= t || q.op != MG_ABS_MUL)
            continue;
          int64_t n = x.param + y.param;
          mg_abs_merge(g, c, sum(g, n, add2(g, MG_ABS_MUL,
                                            add2(g, MG_ABS_CONCAT, p.a, q.a),
                                            add2(g, MG_ABS_CONCAT, p.b, q.b))));
          mg_abs_merge(g, c, sum(g, n, add2(g, MG_ABS_MUL,
                                            add2(g, MG_ABS_CONCAT, q.a, p.a),
                                            add2(g, MG_ABS_CONCAT, q.b, p.b))));
        }
      }
    }
  }
}

static void rules_mul(MgAbsGraph *g, MgAbsId c, MgAbsId a, MgAbsId b,
                      bool fresh) {
  rules_ac(g, MG_ABS_MUL, c, a, b, fresh);
  bool a_is_atom = class_is_atom(g, a);
  for (uint32_t k = first_of(g, b); k < end_of(g, b); ++k) {
    MgAbsNode m = node_at(g, k);
    if (m.op == MG_ABS_ADD && a_is_atom && on(g, MG_ABS_RULE_DISTRIBUTE))
      // a·(x+y) -> a·x + a·y
      mg_abs_merge(g, c, add2(g, MG_ABS_ADD, add2(g, MG_ABS_MUL, a, m.a),
                              add2(g, MG_ABS_MUL, a, m.b)));
    else if (m.op == MG_ABS_DIV && on(g, MG_ABS_RULE_MUL_DIV))
      // a·(x/d) -> (a·x)/d
      mg_abs_merge(g, c, add2(g, MG_ABS_DIV, add2(g, MG_ABS_MUL, a, m.a),
                              m.b));
  }
  for (uint32_t k = first_of(g, a); k < end_of(g, a); ++k) {
    MgAbsNode m = node_at(g, k);
    if (m.op == MG_ABS_SUM && on(g, MG_ABS_RULE_SUM_MUL))
      // (Σn x)·b -> Σn (x·b)
      mg_abs_merge(g, c, sum(g, m.param, add2(g, MG_ABS_MUL, m.a, b)));
  }
}

static void rules_div(MgAbsGraph *g, MgAbsId c, MgAbsId a, MgAbsId d) {
  for (uint32_t k = first_of(g, a); k < end_of(g, a); ++k) {
    MgAbsNode m = node_at(g, k);
    switch (m.op) {
    case MG_ABS_ADD: // (x+y)/d -> x/d + y/d
      if (on(g, MG_ABS_RULE_DIV_ADD))
        mg_abs_merge(g, c, add2(g, MG_ABS_ADD, add2(g, MG_ABS_DIV, m.a, d),
                              add2(g, MG_ABS_DIV, m.b, d)));
      break;
    case MG_ABS_MUL: // (p·q)/d -> p·(q/d)
      if (on(g, MG_ABS_RULE_MUL_DIV))
        mg_abs_merge(g, c, add2(g, MG_ABS_MUL, m.a,
                              add2(g, MG_ABS_DIV, m.b, d)));
      break;
    case MG_ABS_DIV: // (x/y)/d -> x/(y·d)
      if (on(g, MG_ABS_RULE_DIV_MUL))
        mg_abs_merge(g, c, add2(g, MG_ABS_DIV, m.a,
                              add2(g, MG_ABS_MUL, m.b, d)));
      break;
    case MG_ABS_SUM: // (Σn x)/d -> Σn (x/d)
      if (on(g, MG_ABS_RULE_SUM_DIV))
        mg_abs_merge(g, c, sum(g, m.param, add2(g, MG_ABS_DIV, m.a, d)));
      break;
    default:
      break;
    }
  }
  for (uint32_t k = first_of(g, d); k < end_of(g, d); ++k) {
    MgAbsNode m = node_at(g, k);
    if (m.op == MG_ABS_MUL && on(g, MG_ABS_RULE_DIV_MUL))
      // a/(x·y) -> (a/x)/y
      mg_abs_merge(g, c, add2(g, MG_ABS_DIV, add2(g, MG_ABS_DIV, a, m.a),
                              m.b));
  }
}

static void rules_sum(MgAbsGraph *g, MgAbsId c, int64_t n, MgAbsId a,
                      bool fresh) {
  for (uint32_t k = first_of(g, a); k < end_of(g, a); ++k) {
    MgAbsNode m = node_at(g, k);
    switch (m.op) {
    case MG_ABS_ADD: // Σn(x+y) -> Σn x + Σn y
      if (on(g, MG_ABS_RULE_SUM_ADD))
        mg_abs_merge(g, c, add2(g, MG_ABS_ADD, sum(g, n, m.a), sum(g, n, m.b)));
      break;
    case MG_ABS_MUL: // Σn(x·y) -> (Σn x)·y
      if (on(g, MG_ABS_RULE_SUM_MUL))
        mg_abs_merge(g, c, add2(g, MG_ABS_MUL, sum(g, n, m.a), m.b));
      break;
    case MG_ABS_DIV: // Σn(x/y) -> (Σn x)/y
      if (on(g, MG_ABS_RULE_SUM_DIV))
        mg_abs_merge(g, c, add2(g, MG_ABS_DIV, sum(g, n, m.a), m.b));
      break;
    case MG_ABS_SUM: // Σn Σk x -> Σk Σn x and -> Σ(n·k) x
      if (on(g, MG_ABS_RULE_SUM_SUM))
        mg_abs_merge(g, c, sum(g, m.param, sum(g, n, m.a)));
      if (on(g, MG_ABS_RULE_SUM_SPLIT) && m.param <= MG_ABS_MAX_SUM / n)
        mg_abs_merge(g, c, sum(g, n * m.param, m.a));
      break;
    default:
      break;
    }
  }
  if (!fresh || !on(g, MG_ABS_RULE_SUM_SPLIT))
    return;
  uint32_t count;
  const int64_t *div = mg_abs_divisors(g, n, &count);
  for (uint32_t i = 0; i < count; ++i) // Σn a -> Σj Σ(n/j) a
    mg_abs_merge(g, c, sum(g, div[i], sum(g, n / div[i], a)));
}

// The mirror of rules_sum's nesting and splitting for max(n, a): a max of
// maxes over a split range is the max over the whole range.
static MgAbsId max_of(MgAbsGraph *g, int64_t n, MgAbsId a) {
  return mg_abs_add(g, MG_ABS_MAX, n, a, MG_ABS_NONE);
}

static void rules_max(MgAbsGraph *g, MgAbsId c, int64_t n, MgAbsId a,
                      bool fresh) {
  for (uint32_t k = first_of(g, a); k < end_of(g, a); ++k) {
    MgAbsNode m = node_at(g, k);
    if (m.op != MG_ABS_MAX)
      continue;
    if (on(g, MG_ABS_RULE_MAX_MAX)) // max(n, max(k, x)) -> max(k, max(n, x))
      mg_abs_merge(g, c, max_of(g, m.param, max_of(g, n, m.a)));
    if (on(g, MG_ABS_RULE_MAX_SPLIT) && m.param <= MG_ABS_MAX_SUM / n)
      mg_abs_merge(g, c, max_of(g, n * m.param, m.a)); // -> max(n·k, x)
  }
  if (!fresh || !on(g, MG_ABS_RULE_MAX_SPLIT))
    return;
  uint32_t count;
  const int64_t *div = mg_abs_divisors(g, n, &count);
  for (uint32_t i = 0; i < count; ++i) // max(n, a) -> max(j, max(n/j, a))
    mg_abs_merge(g, c, max_of(g, div[i], max_of(g, n / div[i], a)));
}

// `fresh`: the node is new since the last round, so rules that read only
// the node itself (commutativity, splitting) run; the others run whenever
// the node is fresh or a child class is dirty.
static void apply_rules(MgAbsGraph *g, uint32_t i, bool fresh) {
  MgAbsNode n = g->nodes[i];
  if (!n.alive)
    return;
  if (n.op == MG_ABS_ADD && i < g->num_target_nodes &&
      on(g, MG_ABS_RULE_CONCAT_MATMUL))
    rules_concat_matmul(g, n.cls, n.a, n.b); // reads two levels: always
  bool stale = !fresh && !(n.a != MG_ABS_NONE && g->dirty[n.a]) &&
               !(n.b != MG_ABS_NONE && g->dirty[n.b]);
  if (stale)
    return;
  switch (n.op) {
  case MG_ABS_ADD:
    rules_add(g, n.cls, n.a, n.b, fresh);
    break;
  case MG_ABS_MUL:
    rules_mul(g, n.cls, n.a, n.b, fresh);
    break;
  case MG_ABS_DIV:
    rules_div(g, n.cls, n.a, n.b);
    break;
  case MG_ABS_SUM:
    rules_sum(g, n.cls, n.param, n.a, fresh);
    break;
  case MG_ABS_MAX:
    rules_max(g, n.cls, n.param, n.a, fresh);
    break;
  case MG_ABS_MAXIMUM: // reads the node alone
    if (fresh && on(g, MG_ABS_RULE_MAXIMUM_COMM))
      mg_abs_merge(g, n.cls, mg_abs_add(g, MG_ABS_MAXIMUM, 0, n.b, n.a));
    break;
  default:
    break;
  }
}

// Marks the classes that changed in the round that created nodes
// [start, num_nodes): new nodes' classes and every touched class.
static bool mark_dirty(MgAbsGraph *g, uint32_t start) {
  uint8_t *d = realloc(g->dirty, (size_t)g->num_nodes + 1);
  if (!d)
    return false;
  g->dirty = d;
  memset(d, g->changed_overflow ? 1 : 0, (size_t)g->num_nodes + 1);
  for (uint32_t i = start; i < g->num_nodes; ++i)
    if (g->nodes[i].alive)
      d[mg_abs_find(g, g->nodes[i].cls)] = 1;
  for (uint32_t i = 0; i < g->num_changed; ++i)
    d[mg_abs_find(g, g->changed[i])] = 1;
  g->num_changed = 0;
  g->changed_overflow = false;
  return true;
}

bool mg_abs_saturate(MgAbsGraph *g) {
  g->stats.iterations = 0;
  g->stats.saturated = false;
  g->bounded = true;
  g->num_target_nodes = g->num_nodes;
  if (!mg_abs_rebuild(g) || !mark_dirty(g, 0)) {
    g->nomem = true;
    return false;
  }
  uint32_t fresh_from = 0; // nodes at or above were made by the last round
  while (g->stats.iterations < g->options.max_iterations) {
    uint32_t start = g->num_nodes;
    g->round_start = start;
    g->old_merges = 0;
    for (uint32_t i = 0; i < start && !g->full && !g->nomem; ++i)
      apply_rules(g, i, g->naive || i >= fresh_from);
    if (!mg_abs_rebuild(g) || !mark_dirty(g, start)) {
      g->nomem = true;
      return false;
    }
    g->stats.iterations++;
    bool grew = false;
    for (uint32_t i = start; i < g->num_nodes && !grew; ++i)
      grew = g->nodes[i].alive;
    if (g->full)
      break;
    if (!grew && g->old_merges == 0) {
      g->stats.saturated = true;
      break;
    }
    fresh_from = start;
  }
  g->round_start = 0;
  g->bounded = false;
  return true;
}
