//===- block.c - Enumerating the block graphs of a custom kernel ----------===//
//
// A block graph is generated in three steps:
//  1. a skeleton (mg_block_skeletons): which dim roles the grid axes and the
//     for-loop cut. Every input that has a dim of an axis's role is cut
//     along it (imap), others are replicated (φ); the same for the loop
//     (fmap). Sizes are representative (small divisors); the real grid and
//     for-loop ranges are chosen when candidates are materialized
//     (replay.c), so structure is enumerated once for all launch sizes.
//  2. compute ops, appended one by one in canonical order (canon.c), each
//     checked, cheapest first, by: op limits and the non-LAX budget;
//     dimension roles (roles.c); anchors and the reduction rule (goal.c,
//     monomials.c); loop placement as the builder checks it; its abstract
//     expression (computed before building) must be a subexpression of a
//     target output; then the builder of lib/graph (shapes, maps); then no
//     repeated expression; then every value made so far must still be
//     usable within the remaining op budget (pending rule).
//  3. closing (at every state): the values nobody reads are saved; every
//     grid axis is mapped by the omap to the tile dim of its role, or, when
//     the tile has none (a partial result), to another dim whose output
//     then holds the partials side by side (a split role). An exact goal
//     needs exactly the target outputs (class, type, roles, support); a
//     free goal 1..4 outputs that are target cut points or partials. The
//     recipe's shared memory at the smallest tiles must fit the target.
// Each closed graph is recorded in the menu under its output signature.
//
// Invariant of Run: graph 1 of `p` holds the inputs, the iterators, then
// the ops of the current path; `ti`/`cls` describe its tensors, `pending`
// counts the non-input tensors nobody reads, and the path's ops have
// strictly increasing keys (`last` is the key of the newest).
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

#define RUN_MAX_TENSORS 128

typedef struct Run {
  Worker *w;
  const Search *s;
  const BlockSig *sig;
  const Goal *goal;
  const Skeleton *sk;
  Menu *menu;
  MgProgram *p;
  MgGraphId g;
  uint32_t nin;          // block inputs; iterators are nin..2*nin-1
  MgAbsId cls[RUN_MAX_TENSORS];
  TInfo ti[RUN_MAX_TENSORS];
  uint32_t counted, unary, pending, max_out;
  uint16_t kinds[MG_OP_COUNT];
  OpKey last;
  bool has_last;
} Run;

//===--- Skeletons --------------------------------------------------------===//

// Smallest launch size >= 2 dividing `d` (a power of two when asked) that
// leaves tiles of at least 2 when possible; 0 when none fits `limit`.
static int64_t rep_size(int64_t d, bool pow2, int64_t limit) {
  int64_t fallback = 0;
  for (int64_t r = 2; r <= d && r <= limit; r = pow2 ? r * 2 : r + 1) {
    if (d % r)
      continue;
    if (d / r >= 2)
      return r;
    if (!fallback)
      fallback = r;
  }
  return fallback;
}

typedef struct RoleSet {
  uint32_t n;
  MgRole role[MG_MAX_OP_INPUTS * MG_MAX_DIMS];
  int64_t size[MG_MAX_OP_INPUTS * MG_MAX_DIMS];
} RoleSet;

static void collect_roles(const BlockSig *sig, RoleSet *rs) {
  rs->n = 0;
  for (uint32_t i = 0; i < sig->n; i++)
    for (uint32_t d = 0; d < sig->type[i].rank; d++) {
      MgRole r = sig->info[i].role[d];
      int64_t size = sig->type[i].dims[d];
      if (r == ROLE_ONE || r == ROLE_NONE || size < 2)
        continue;
      uint32_t k = 0;
      while (k < rs->n && rs->role[k] != r)
        k++;
      if (k == rs->n) {
        rs->role[rs->n] = r;
        rs->size[rs->n++] = size;
      } else {
        rs->size[k] = mg_gcd_i64(rs->size[k], size);
      }
    }
  // Sorted by role value: a fixed enumeration order.
  for (uint32_t i = 1; i < rs->n; i++)
    for (uint32_t j = i; j > 0 && rs->role[j - 1] > rs->role[j]; j--) {
      MgRole r = rs->role[j];
      int64_t z = rs->size[j];
      rs->role[j] = rs->role[j - 1];
      rs->size[j] = rs->size[j - 1];
      rs->role[j - 1] = r;
      rs->size[j - 1] = z;
    }
}

static bool goal_has_role(const Goal *goal, MgRole r) {
  for (uint32_t k = 0; k < goal->n; k++)
    for (uint32_t d = 0; d < goal->type[k].rank; d++)
      if (goal->role[k][d] == r)
        return true;
  return false;
}

static int8_t dim_of_role(const BlockSig *sig, uint32_t i, MgRole r) {
  if (r == ROLE_NONE)
    return MG_MAP_NONE;
  for (uint32_t d = 0; d < sig->type[i].rank; d++)
    if (sig->info[i].role[d] == r && sig->type[i].dims[d] >= 2)
      return (int8_t)d;
  return MG_MAP_NONE;
}

// Completes `sk` (axes and loop chosen): representative sizes and maps.
static bool finish_skeleton(const Search *s, const BlockSig *sig,
                            const RoleSet *rs, Skeleton *sk) {
  const MgSearchOptions *o = &s->opt;
  for (int a = 0; a < 3; a++)
    sk->launch.grid[a] = 1;
  sk->launch.forloop = 1;
  int64_t loop_size = 0;
  for (uint32_t k = 0; k < rs->n; k++) {
    for (uint32_t a = 0; a < sk->num_axes; a++)
      if (rs->role[k] == sk->axis[a]) {
        int64_t r = rep_size(rs->size[k], o->pow2_launch,
                             s->gpu->max_grid[a]);
        if (!r)
          return false;
        sk->launch.grid[a] = (int32_t)r;
      }
    if (rs->role[k] == sk->loop)
      loop_size = rs->size[k];
  }
  if (sk->loop != ROLE_NONE) {
    for (uint32_t a = 0; a < sk->num_axes; a++)
      if (sk->axis[a] == sk->loop)
        loop_size /= sk->launch.grid[a];
    int64_t r = rep_size(loop_size, o->pow2_launch, o->max_forloop);
    if (!r)
      return false;
    sk->launch.forloop = (int32_t)r;
  }
  for (uint32_t i = 0; i < sig->n; i++) {
    for (int a = 0; a < 3; a++)
      sk->imap[i][a] = a < (int)sk->num_axes
                           ? dim_of_role(sig, i, sk->axis[a]) : MG_MAP_NONE;
    sk->fmap[i] = dim_of_role(sig, i, sk->loop);
  }
  return true;
}

uint32_t mg_block_skeletons(const Search *s, const BlockSig *sig,
                            const Goal *goal, Skeleton *out, uint32_t cap) {
  RoleSet rs;
  collect_roles(sig, &rs);
  // Axis candidates: an exact goal keeps every grid role in its outputs
  // (partials would need another kernel to combine them).
  uint32_t axis_ok[MG_MAX_OP_INPUTS * MG_MAX_DIMS], na = 0;
  for (uint32_t k = 0; k < rs.n; k++)
    if (!goal->exact || goal_has_role(goal, rs.role[k]))
      axis_ok[na++] = k;
  uint32_t max_axes = s->opt.max_grid_dims < 3 ? s->opt.max_grid_dims : 3;
  uint32_t n = 0;
  // Axis sets in lexicographic order of candidate indices, by size.
  for (uint32_t size = 0; size <= max_axes && size <= na; size++) {
    uint32_t pick[3] = {0, 1, 2};
    for (;;) {
      for (uint32_t l = 0; l <= rs.n; l++) { // l == rs.n: no loop
        Skeleton sk;
        memset(&sk, 0, sizeof sk);
        sk.num_axes = size;
        for (uint32_t a = 0; a < 3; a++)
          sk.axis[a] = a < size ? rs.role[axis_ok[pick[a]]] : ROLE_NONE;
        sk.loop = l < rs.n ? rs.role[l] : ROLE_NONE;
        if (s->opt.use_dims && !mg_role_foldable(s->facts.reduced, sk.loop))
          continue;
        // Accumulating over a role removes it, so an exact goal's own
        // roles cannot be looped over (split roles fold into a tile role).
        if (goal->exact && sk.loop != ROLE_NONE && !role_is_split(sk.loop) &&
            goal_has_role(goal, sk.loop))
          continue;
        if (finish_skeleton(s, sig, &rs, &sk) && n < cap)
          out[n++] = sk;
      }
      // Next combination of `size` indices out of na.
      int32_t i = (int32_t)size - 1;
      while (i >= 0 && pick[i] == na - size + (uint32_t)i)
        i--;
      if (i < 0)
        break;
      pick[i]++;
      for (uint32_t j = (uint32_t)i + 1; j < size; j++)
        pick[j] = pick[j - 1] + 1;
    }
  }
  return n;
}

//===--- Compute ops ------------------------------------------------------===//

static const MgGraph *graph(const Run *r) { return &r->p->graphs[r->g]; }

static bool is_pending(const Run *r, uint32_t t) {
  return t >= r->nin && r->ti[t].uses == 0;
}

static void dfs(Run *r);

static bool duplicate(const Run *r, MgTensorId t) {
  const MgGraph *g = graph(r);
  const MgTensor *x = &g->tensors[t];
  for (uint32_t u = r->nin; u < t; u++) {
    const MgTensor *y = &g->tensors[u];
    if (r->cls[u] != r->cls[t] || y->rank != x->rank)
      continue;
    if (memcmp(y->dims, x->dims, x->rank * sizeof(int64_t)) == 0 &&
        memcmp(r->ti[u].role, r->ti[t].role, x->rank * sizeof(MgRole)) == 0)
      return true;
  }
  return false;
}

// Shift rule (goal.c): a − m with m a max must subtract a max of a
// itself, or a max an earlier kernel computed (an input tile: the second
// pass of a two-pass softmax). Never x − y of one class (a zero: the
// target subtracts only maxes of the operand, which never erase to 0).
static bool shift_ok(const Run *r, MgTensorId a, MgTensorId m) {
  const Search *s = r->s;
  if (!s->facts.shift_rule)
    return true;
  if (r->cls[a] == r->cls[m])
    return false;
  if (!mg_absexpr_is_max(s->abs, r->cls[m]))
    return true;
  if (r->ti[m].tile)
    return !mg_absexpr_is_max(s->abs, r->cls[a]);
  return mg_search_bounds_by_max(graph(r), a, m);
}

// Canonical order (each block graph is built once, its ops in key order)
// and the op budgets; true (after counting the prune) when op is cut.
static bool prune_by_order_or_budget(Run *r, const MgOp *op,
                                     const OpKey *key) {
  const Search *s = r->s;
  const MgSearchOptions *o = &s->opt;
  MgOpKind kind = (MgOpKind)op->kind;
  if (r->has_last && mg_opkey_compare(key, &r->last) <= 0) {
    mg_worker_prune(r->w, MG_SEARCH_RULE_CANONICAL, NULL);
    return true;
  }
  bool counted = mg_search_counted(kind), unary = mg_op_kind_is_unary(kind);
  if ((counted && r->counted >= o->max_block_ops) ||
      (unary && r->unary >= o->max_unary_ops) ||
      (o->use_kind_budget && mg_search_budgeted(kind) &&
       r->kinds[kind] >= s->facts.vocab.budget[kind])) {
    mg_worker_prune(r->w, MG_SEARCH_RULE_BUDGET, NULL);
    return true;
  }
  return false;
}

// The rules on the operands' dimension roles, anchors, reductions and
// shifts; fills roles (the result's) and is true (after counting the
// prune) when op is cut.
static bool prune_by_operands(Run *r, const MgOp *op,
                              MgRole roles[MG_MAX_DIMS]) {
  const Search *s = r->s;
  const MgSearchOptions *o = &s->opt;
  const MgGraph *g = graph(r);
  MgTensorId a = op->inputs[0];
  MgTensorId b = op->num_inputs > 1 ? op->inputs[1] : MG_NO_ID;
  const Operands x = mg_operands_of(g, op, r->ti, r->cls);
  if (!mg_roles_of_op(o->use_dims ? s->facts.reduced : NULL, op, &x,
                      r->sk->loop, o->use_dims, roles)) {
    mg_worker_prune(r->w, MG_SEARCH_RULE_DIMS, NULL);
    return true;
  }
  if (!mg_search_anchor_ok(s, op, r->cls[a],
                           b == MG_NO_ID ? MG_ABS_NONE : r->cls[b])) {
    mg_worker_prune(r->w, MG_SEARCH_RULE_ANCHOR, NULL);
    return true;
  }
  if (!mg_search_op_reductions_ok(s, op, &x, r->sk->loop)) {
    mg_worker_prune(r->w, MG_SEARCH_RULE_REDUCE, NULL);
    return true;
  }
  if (op->kind == MG_OP_SUB && !shift_ok(r, a, b)) {
    mg_worker_prune(r->w, MG_SEARCH_RULE_SHIFT, NULL);
    return true;
  }
  return false;
}

// Loop placement, as the builder checks it, but before building; *post
// says whether an operand is post-loop. True (after counting the prune)
// when op is cut.
static bool prune_by_phase(Run *r, const MgOp *op, bool *post) {
  bool loop = false;
  *post = false;
  for (uint32_t k = 0; k < op->num_inputs; k++) {
    loop |= r->ti[op->inputs[k]].phase == PHASE_LOOP;
    *post |= r->ti[op->inputs[k]].phase == PHASE_POST;
  }
  if (op->kind == MG_OP_ACCUM && *post) {
    static const MgDiag why = {-1, -1, "accumulator input is already post-loop",
                               MG_STATUS_OK};
    mg_worker_prune(r->w, MG_SEARCH_RULE_SHAPE, &why);
    return true;
  }
  if (graph(r)->forloop > 1 && loop && *post) {
    static const MgDiag why = {-1, -1, "op mixes in-loop and post-loop values",
                               MG_STATUS_OK};
    mg_worker_prune(r->w, MG_SEARCH_RULE_SHAPE, &why);
    return true;
  }
  return false;
}

// The abstract expression op would compute must be a subexpression of the
// target's; true (after counting the prune) when it is not.
static bool prune_by_term(Run *r, const MgOp *op) {
  const Search *s = r->s;
  if (!s->abs)
    return false;
  const MgGraph *g = graph(r);
  MgTensorId a = op->inputs[0];
  MgTensorId b = op->num_inputs > 1 ? op->inputs[1] : MG_NO_ID;
  MgAbsId pre = mg_search_term(s, op, &g->tensors[a], r->cls[a],
                               b == MG_NO_ID ? MG_ABS_NONE : r->cls[b],
                               g->forloop);
  if (pre == MG_ABS_NONE || !mg_absexpr_is_subexpr(s->abs, pre)) {
    mg_worker_prune(r->w, MG_SEARCH_RULE_ABSEXPR, NULL);
    return true;
  }
  return false;
}

// Adds op to the block graph: 1 with its id and result in *id and *out, 0
// when the builder or the tensor limit cuts it (counted), -1 when out of
// memory (the search stops).
static int build_op(Run *r, MgOp *op, MgOpId *id, MgTensorId *out) {
  MgDiag diag;
  *id = mg_graph_add_op(r->p, r->g, op, out, &diag);
  if (*id == MG_NO_ID) {
    if (diag.status == MG_STATUS_NOMEM) {
      atomic_store(&r->w->s->failed, true);
      atomic_store(&r->w->s->stop, true);
      return -1;
    }
    mg_worker_prune(r->w, MG_SEARCH_RULE_SHAPE, &diag);
    return 0;
  }
  if (*out >= RUN_MAX_TENSORS) {
    mg_graph_pop_op(r->p, r->g);
    mg_worker_prune(r->w, MG_SEARCH_RULE_BUDGET, NULL);
    return 0;
  }
  return 1;
}

// Records the facts of op's result (class, roles, phase, support); true
// (after popping op and counting the prune) when its class is not a
// subexpression of the target's or duplicates a value already there.
static bool prune_by_result(Run *r, const MgOp *op, MgOpId id, MgTensorId out,
                            const MgRole roles[MG_MAX_DIMS], bool post) {
  const Search *s = r->s;
  MgAbsId cls[MG_MAX_OP_OUTPUTS];
  mg_search_classes(s, r->p, r->g, id, r->cls, cls);
  r->cls[out] = cls[0];
  if (s->abs && (cls[0] == MG_ABS_NONE ||
                 !mg_absexpr_is_subexpr(s->abs, cls[0]))) {
    mg_graph_pop_op(r->p, r->g);
    mg_worker_prune(r->w, MG_SEARCH_RULE_ABSEXPR, NULL);
    return true;
  }
  memset(&r->ti[out], 0, sizeof r->ti[out]);
  memcpy(r->ti[out].role, roles, MG_MAX_DIMS * sizeof *roles);
  r->ti[out].phase =
      op->kind == MG_OP_ACCUM || post ? PHASE_POST : PHASE_LOOP;
  const Operands x = mg_operands_of(graph(r), op, r->ti, r->cls);
  mg_sup_of_op(s, op, &x, &r->ti[out].sup);
  if (s->abs && duplicate(r, out)) {
    mg_graph_pop_op(r->p, r->g);
    mg_worker_prune(r->w, MG_SEARCH_RULE_DUPLICATE, NULL);
    return true;
  }
  return false;
}

// Pending rule: a binary op is the only counted op that lowers the number
// of unread values (two read, one made); every unread value must end in
// a saver. Sets *pending to the count after op; true (after popping op and
// counting the prune) when the ops left cannot save them all.
static bool prune_by_pending(Run *r, const MgOp *op, uint32_t *pending) {
  *pending = r->pending + 1;
  for (uint32_t k = 0; k < op->num_inputs; k++) {
    MgTensorId t = op->inputs[k];
    bool seen = false;
    for (uint32_t j = 0; j < k; j++)
      seen |= op->inputs[j] == t;
    if (!seen && is_pending(r, t))
      (*pending)--;
  }
  bool counted = mg_search_counted((MgOpKind)op->kind);
  uint32_t left = r->s->opt.max_block_ops - r->counted - (counted ? 1 : 0);
  if (*pending > r->max_out + left) {
    mg_graph_pop_op(r->p, r->g);
    mg_worker_prune(r->w, MG_SEARCH_RULE_PENDING, NULL);
    return true;
  }
  return false;
}

// Searches on from the block graph with op added (key, pending), then
// restores the run's counters and pops op.
static void descend(Run *r, const MgOp *op, const OpKey *key,
                    uint32_t pending) {
  MgOpKind kind = (MgOpKind)op->kind;
  bool counted = mg_search_counted(kind), unary = mg_op_kind_is_unary(kind);
  for (uint32_t k = 0; k < op->num_inputs; k++)
    r->ti[op->inputs[k]].uses++;
  uint32_t saved_pending = r->pending;
  OpKey saved_last = r->last;
  bool saved_has = r->has_last;
  r->pending = pending;
  r->last = *key;
  r->has_last = true;
  r->counted += counted;
  r->unary += unary;
  r->kinds[kind]++;
  dfs(r);
  r->kinds[kind]--;
  r->unary -= unary;
  r->counted -= counted;
  r->has_last = saved_has;
  r->last = saved_last;
  r->pending = saved_pending;
  for (uint32_t k = 0; k < op->num_inputs; k++)
    r->ti[op->inputs[k]].uses--;
  mg_graph_pop_op(r->p, r->g);
}

// The pruning rules run cheapest first: those that need no building, then
// those on the built op's result.
static bool try_op(void *ctx, MgOp *op, uint64_t attr) {
  Run *r = ctx;
  OpKey key;
  mg_opkey_of(op, attr, &key);
  MgRole roles[MG_MAX_DIMS];
  bool post;
  if (prune_by_order_or_budget(r, op, &key) ||
      prune_by_operands(r, op, roles) || prune_by_phase(r, op, &post) ||
      prune_by_term(r, op))
    return true;
  mg_worker_states(r->w, 1, false);
  MgOpId id;
  MgTensorId out;
  int built = build_op(r, op, &id, &out);
  if (built <= 0)
    return built == 0;
  uint32_t pending;
  if (prune_by_result(r, op, id, out, roles, post) ||
      prune_by_pending(r, op, &pending))
    return true;
  descend(r, op, &key, pending);
  return !mg_worker_stopped(r->w);
}

//===--- Closing: savers and the goal -------------------------------------===//

typedef struct Close {
  uint32_t n;
  MgTensorId tiles[SEARCH_MAX_OUTPUTS];
  MgTensorId saved[SEARCH_MAX_OUTPUTS];
  MgRole roles[SEARCH_MAX_OUTPUTS][MG_MAX_DIMS];
  MgAbsId cls[SEARCH_MAX_OUTPUTS];
} Close;

static uint64_t recipe_key(const Run *r) {
  const Skeleton *sk = r->sk;
  uint64_t h = mg_hash_u64(0x72656369ull, sk->num_axes);
  for (int a = 0; a < 3; a++)
    h = mg_hash_u64(h, sk->axis[a]);
  h = mg_hash_u64(h, sk->loop);
  h = mg_hash_bytes(h, sk->imap, sizeof sk->imap);
  h = mg_hash_bytes(h, sk->fmap, sizeof sk->fmap);
  const MgGraph *g = graph(r);
  for (uint32_t i = 2 * r->nin; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    h = mg_hash_u64(h, op->kind);
    for (uint32_t k = 0; k < op->num_inputs; k++)
      h = mg_hash_u64(h, op->inputs[k]);
    h = mg_hash_u64(h, (uint32_t)op->attr);
    h = mg_hash_u64(h, op->acc);
    h = mg_hash_bytes(h, &op->scalar, sizeof op->scalar);
    h = mg_hash_bytes(h, op->omap, sizeof op->omap);
  }
  return h;
}

// min(min_blocks, the largest grid the skeleton's roles allow).
static uint32_t parallelism(const Run *r) {
  const Search *s = r->s;
  int64_t blocks = 1;
  for (uint32_t a = 0; a < r->sk->num_axes; a++) {
    int64_t d = 0;
    for (uint32_t i = 0; i < r->sig->n; i++)
      if (r->sk->imap[i][a] != MG_MAP_NONE)
        d = mg_gcd_i64(d, r->sig->type[i].dims[(int)r->sk->imap[i][a]]);
    int64_t best = 1;
    for (int64_t g = 2; g <= d && g <= s->gpu->max_grid[a];
         g = s->opt.pow2_launch ? g * 2 : g + 1)
      if (d % g == 0)
        best = g;
    blocks *= best;
    if (blocks > (int64_t)s->opt.max_blocks)
      blocks = s->opt.max_blocks;
  }
  return blocks < (int64_t)s->min_blocks ? (uint32_t)blocks : s->min_blocks;
}

// Matches saved outputs with the goal; writes saver -> goal index.
static bool match_goal(const Run *r, const Close *c, uint8_t *index) {
  const Goal *goal = r->goal;
  const MgGraph *g = graph(r);
  if (!goal->exact)
    return true;
  if (c->n != goal->n)
    return false;
  bool used[SEARCH_MAX_OUTPUTS] = {false};
  for (uint32_t i = 0; i < c->n; i++) {
    const MgTensor *t = &g->tensors[c->saved[i]];
    bool found = false;
    for (uint32_t k = 0; k < goal->n && !found; k++) {
      // A target output's dtype is a storage choice (a narrowing cast the
      // frontend wrote last): matched by shape, stored in the target's
      // dtype (replay.c).
      if (used[k] || !mg_graph_same_shape(t, &goal->type[k]) ||
          (r->s->abs && c->cls[i] != goal->cls[k]) ||
          !mg_sup_equal(&r->ti[c->tiles[i]].sup, &goal->sup[k]) ||
          (r->s->opt.use_dims &&
           memcmp(c->roles[i], goal->role[k], t->rank * sizeof(MgRole))))
        continue;
      used[k] = found = true;
      index[i] = (uint8_t)k;
    }
    if (!found)
      return false;
  }
  return true;
}

// A free goal's outputs become kernel tensors read by later kernels: each
// must hold what the target holds in one of its kernel tensors (a cut point
// of the target), or per-block partials of one (a split role), which a
// later kernel combines. (Abstract expressions off: no restriction.)
static bool useful_outputs(const Run *r, const Close *c) {
  const Search *s = r->s;
  if (r->goal->exact || !s->abs)
    return true;
  for (uint32_t i = 0; i < c->n; i++) {
    bool ok = false;
    for (uint32_t d = 0; d < MG_MAX_DIMS && !ok; d++)
      ok = role_is_split(c->roles[i][d]);
    for (uint32_t j = 0; j < s->facts.num_cut_classes && !ok; j++)
      ok = s->facts.cut_classes[j] == c->cls[i];
    if (!ok)
      return false;
  }
  return true;
}

static void record(Run *r, const Close *c) {
  Worker *w = r->w;
  const MgGraph *g = graph(r);
  if (!useful_outputs(r, c)) {
    mg_worker_prune(w, MG_SEARCH_RULE_SAVER, NULL);
    return;
  }
  MenuEntry sig;
  memset(&sig, 0, sizeof sig);
  Recipe rec;
  memset(&rec, 0, sizeof rec);
  uint8_t goal_index[SEARCH_MAX_OUTPUTS];
  if (!match_goal(r, c, goal_index)) {
    mg_worker_prune(w, MG_SEARCH_RULE_SAVER, NULL);
    return;
  }
  sig.num_out = c->n;
  for (uint32_t i = 0; i < c->n; i++) {
    const MgTensor *t = &g->tensors[c->saved[i]];
    sig.cls[i] = c->cls[i];
    sig.type[i].dtype = t->dtype;
    sig.type[i].rank = t->rank;
    memcpy(sig.type[i].dims, t->dims, t->rank * sizeof(int64_t));
    memcpy(sig.role[i], c->roles[i], sizeof c->roles[i]);
    sig.sup[i] = r->ti[c->tiles[i]].sup;
  }
  rec.sk = *r->sk;
  rec.num_ops = g->num_ops - 2 * r->nin;
  rec.ops = &g->ops[2 * r->nin];
  rec.num_savers = c->n;
  for (uint32_t k = 0; k < MG_OP_COUNT; k++)
    rec.kinds[k] = r->kinds[k];
  rec.key = recipe_key(r);
  rec.par = parallelism(r);
  rec.smem = mg_recipe_min_smem(r->s, r->sig, &rec);
  if (rec.smem < 0 || rec.smem > r->s->gpu->smem_bytes) {
    mg_worker_prune(w, rec.smem < 0 ? MG_SEARCH_RULE_LAUNCH
                                    : MG_SEARCH_RULE_SMEM, NULL);
    return;
  }
  w->stats.block_graphs++;
  size_t before = mg_menu_bytes(r->menu);
  if (!mg_menu_add(r->menu, r->s->opt.max_recipes, &sig, &rec)) {
    atomic_store(&w->s->failed, true);
    atomic_store(&w->s->stop, true);
  }
  mg_search_memory(w->s, (int64_t)(mg_menu_bytes(r->menu) - before));
}

// Saves tiles[i..n) (tiles[0..i) already saved), enumerating omaps.
static void close_from(Run *r, Close *c, uint32_t i) {
  if (i == c->n) {
    record(r, c);
    return;
  }
  const Skeleton *sk = r->sk;
  MgTensorId t = c->tiles[i];
  const MgTensor *tile = &graph(r)->tensors[t];
  const MgRole *tr = r->ti[t].role;
  // Choices per axis: the dim of its role (forced), else split dims.
  int8_t choice[3][MG_MAX_DIMS];
  uint32_t nchoice[3] = {0, 0, 0};
  for (uint32_t a = 0; a < sk->num_axes; a++) {
    for (uint32_t d = 0; d < tile->rank && !nchoice[a]; d++)
      if (tr[d] == sk->axis[a])
        choice[a][nchoice[a]++] = (int8_t)d;
    if (nchoice[a])
      continue;
    if (r->goal->exact) // partials never match a target output
      break;
    for (uint32_t d = 0; d < tile->rank; d++)
      if (mg_role_split(sk->axis[a], tr[d]) != ROLE_NONE)
        choice[a][nchoice[a]++] = (int8_t)d;
  }
  uint32_t idx[3] = {0, 0, 0};
  for (uint32_t a = 0; a < sk->num_axes; a++)
    if (!nchoice[a]) {
      mg_worker_prune(r->w, MG_SEARCH_RULE_SAVER, NULL);
      return;
    }
  for (;;) {
    int8_t omap[3] = {MG_MAP_NONE, MG_MAP_NONE, MG_MAP_NONE};
    bool ok = true;
    for (uint32_t a = 0; a < sk->num_axes; a++) {
      omap[a] = choice[a][idx[a]];
      for (uint32_t b = 0; b < a; b++)
        ok &= omap[b] != omap[a];
    }
    if (ok) {
      MgRole roles[MG_MAX_DIMS];
      memcpy(roles, tr, sizeof roles);
      for (uint32_t a = 0; a < sk->num_axes; a++)
        if (tr[omap[a]] != sk->axis[a])
          roles[omap[a]] = mg_role_split(sk->axis[a], tr[omap[a]]);
      MgDiag diag;
      MgTensorId saved = mg_graph_saver(r->p, r->g, t, omap, &diag);
      if (saved == MG_NO_ID) {
        mg_worker_prune(r->w, MG_SEARCH_RULE_SHAPE, &diag);
      } else if (saved >= RUN_MAX_TENSORS ||
                 mg_graph_mark_output(r->p, r->g, saved, NULL) !=
                     MG_STATUS_OK) {
        mg_graph_pop_op(r->p, r->g);
      } else {
        MgAbsId cls[MG_MAX_OP_OUTPUTS];
        mg_search_classes(r->s, r->p, r->g, graph(r)->num_ops - 1, r->cls,
                          cls);
        r->cls[saved] = cls[0];
        c->saved[i] = saved;
        c->cls[i] = cls[0];
        memcpy(c->roles[i], roles, sizeof roles);
        close_from(r, c, i + 1);
        r->p->graphs[r->g].num_outputs--;
        mg_graph_pop_op(r->p, r->g);
      }
    }
    // Next combination.
    uint32_t a = 0;
    while (a < sk->num_axes && ++idx[a] == nchoice[a])
      idx[a++] = 0;
    if (a == sk->num_axes)
      break;
  }
}

static void try_close(Run *r) {
  if (r->pending == 0 || r->pending > r->max_out ||
      (r->goal->exact && r->pending != r->goal->n))
    return;
  const MgGraph *g = graph(r);
  Close c;
  c.n = 0;
  for (uint32_t t = r->nin; t < g->num_tensors; t++) {
    if (!is_pending(r, t))
      continue;
    if (r->ti[t].tile)
      return; // an unread input tile: dead input (or a plain copy)
    c.tiles[c.n++] = t;
  }
  close_from(r, &c, 0);
}

static bool dfs_ops(Run *r) {
  const MgGraph *g = graph(r);
  uint32_t n = g->num_tensors;
  uint32_t from = r->nin;
  if (r->has_last && r->last.max_in > from)
    from = r->last.max_in; // smaller largest operands: never canonical
  for (uint32_t m = from; m < n; m++)
    if (!mg_gen_ops(&r->s->facts.vocab, true, m, r->nin, g->tensors[m].rank,
                    (GenSink){try_op, r}))
      return false;
  return true;
}

static void dfs(Run *r) {
  if (mg_worker_stopped(r->w))
    return;
  try_close(r);
  if (r->counted >= r->s->opt.max_block_ops &&
      r->unary >= r->s->opt.max_unary_ops)
    return;
  dfs_ops(r);
}

//===--- Entry ------------------------------------------------------------===//

// Builds inputs and iterators of the skeleton; false when they do not fit.
static bool start(Run *r) {
  const BlockSig *sig = r->sig;
  const Skeleton *sk = r->sk;
  MgProgram *p = r->p;
  if (mg_program_add_graph(p, MG_LEVEL_KERNEL) != 0 ||
      mg_program_add_graph(p, MG_LEVEL_BLOCK) != 1)
    return false;
  r->g = 1;
  if (mg_graph_set_launch(p, 1, sk->launch.grid, 128, sk->launch.forloop,
                          NULL) !=
      MG_STATUS_OK)
    return false;
  r->nin = sig->n;
  for (uint32_t i = 0; i < sig->n; i++) {
    const MgTensor *t = &sig->type[i];
    if (mg_graph_add_input(p, 1, (MgDType)t->dtype, t->rank, t->dims,
                           NULL) != i)
      return false;
    r->ti[i] = sig->info[i];
    r->ti[i].uses = 1;
    r->ti[i].tile = 0;
    r->ti[i].phase = 0;
    r->cls[i] = sig->info[i].cls;
  }
  for (uint32_t i = 0; i < sig->n; i++) {
    MgDiag diag;
    MgTensorId t = mg_graph_iterator(p, 1, i, sk->imap[i], sk->fmap[i],
                                     &diag);
    if (t == MG_NO_ID)
      return false;
    r->ti[t] = sig->info[i];
    r->ti[t].uses = 0;
    r->ti[t].tile = 1;
    r->ti[t].phase = PHASE_LOOP;
    MgAbsId cls[MG_MAX_OP_OUTPUTS];
    mg_search_classes(r->s, p, 1, p->graphs[1].num_ops - 1, r->cls, cls);
    r->cls[t] = r->s->abs ? cls[0] : MG_ABS_NONE;
  }
  r->pending = sig->n;
  return true;
}

void mg_block_enumerate(Worker *w, const BlockSig *sig, const Goal *goal,
                        const Skeleton *sk, Menu *menu) {
  Run *r = calloc(1, sizeof *r);
  MgProgram *p = mg_program_create();
  if (!r || !p) {
    free(r);
    mg_program_destroy(p);
    atomic_store(&w->s->failed, true);
    atomic_store(&w->s->stop, true);
    return;
  }
  r->w = w;
  r->s = w->s;
  r->sig = sig;
  r->goal = goal;
  r->sk = sk;
  r->menu = menu;
  r->p = p;
  r->max_out = goal->exact ? goal->n : SEARCH_MAX_OUTPUTS;
  w->stats.skeletons++;
  if (start(r))
    dfs(r);
  else
    mg_worker_prune(w, MG_SEARCH_RULE_LAUNCH, NULL);
  mg_program_destroy(p);
  free(r);
}
