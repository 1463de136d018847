//===- kernel.c - Enumerating kernel graphs of a given size ---------------===//
//
// Level L enumerates kernel graphs of exactly L ops over the target's
// inputs: predefined ops (the target's vocabulary) and graph-defined
// kernels, whose block graphs come from menus (menu.c, block.c). Ops are
// appended in canonical order (canon.c); a custom kernel's key carries the
// signature of its menu entry. Rules per op: non-LAX budget, custom-kernel
// limit, dimension roles, builders, abstract expression (subexpression, no
// repeated expression). The last op must read every value nobody has read
// yet and every unused input, and produce the target outputs exactly (its
// block graphs are generated for that exact goal); earlier custom kernels
// use free goals.
//
// Parallel split: the first op's choices are listed (after computing the
// menus they need in parallel, one task per block skeleton), then each
// choice is one task that enumerates the rest of the graph. Complete kernel
// graphs are materialized into concrete programs right away (replay.c).
//
// Invariant of KRun: graph 0 of `p` holds the inputs and the ops of the
// current path (custom kernels replayed with their first recipe at its
// representative launch, so later ops see plausible shapes); ops[] mirrors
// them; keys strictly increase along the path.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

#define K_MAX_TENSORS 64
#define K_MAX_OPS 16

typedef struct Choice {
  bool custom;
  MgOp op;                 // predefined op, or custom operands
  const MenuEntry *entry;
  uint64_t attr;
} Choice;

typedef struct KRun {
  Worker *w;
  Search *s;
  MgProgram *p;
  uint32_t nin, depth, level;
  TInfo ti[K_MAX_TENSORS];
  MgAbsId cls[K_MAX_TENSORS];
  KOp ops[K_MAX_OPS];
  uint32_t customs;
  uint16_t kinds[MG_OP_COUNT];
  OpKey last;
  bool has_last;
  // Listing mode: first-op choices are recorded instead of explored.
  Choice *list;
  uint32_t num_list, cap_list;
  bool listing;
} KRun;

static void kdfs(KRun *k);

//===--- State queries ----------------------------------------------------===//

static const MgGraph *kgraph(const KRun *k) { return &k->p->graphs[0]; }

// Does tensor t satisfy goal output `g` (class, type, roles)?
static bool matches_goal(const KRun *k, MgTensorId t, uint32_t g) {
  const Search *s = k->s;
  const MgTensor *x = &kgraph(k)->tensors[t];
  if (!mg_graph_same_shape(x, &s->facts.outputs.type[g])) // dtype: see block.c
    return false;
  if (s->abs && k->cls[t] != s->facts.outputs.cls[g])
    return false;
  if (!mg_sup_equal(&k->ti[t].sup, &s->facts.outputs.sup[g]))
    return false;
  if (s->opt.use_dims &&
      memcmp(k->ti[t].role, s->facts.outputs.role[g], x->rank * sizeof(MgRole)))
    return false;
  return true;
}

// Outputs already made (abstract expressions on: by class; off: none until
// the end) and the tensors the last op must read.
typedef struct Needs {
  uint32_t num_missing;
  uint32_t missing[SEARCH_MAX_OUTPUTS];   // goal indices not yet made
  uint32_t num_read;
  MgTensorId read[K_MAX_TENSORS];         // unread values and inputs
} Needs;

static void needs_of(const KRun *k, Needs *n) {
  const MgGraph *g = kgraph(k);
  bool made[SEARCH_MAX_OUTPUTS] = {false};
  n->num_read = 0;
  for (MgTensorId t = 0; t < g->num_tensors; t++) {
    if (k->ti[t].uses)
      continue;
    bool is_out = false;
    if (t >= k->nin && k->s->abs)
      for (uint32_t o = 0; o < k->s->facts.outputs.n && !is_out; o++)
        if (!made[o] && matches_goal(k, t, o))
          made[o] = is_out = true;
    if (!is_out)
      n->read[n->num_read++] = t;
  }
  n->num_missing = 0;
  for (uint32_t o = 0; o < k->s->facts.outputs.n; o++)
    if (!made[o])
      n->missing[n->num_missing++] = o;
}

static bool reads(const MgOp *op, MgTensorId t) {
  for (uint32_t i = 0; i < op->num_inputs; i++)
    if (op->inputs[i] == t)
      return true;
  return false;
}

static bool reads_all(const MgOp *op, const Needs *n) {
  for (uint32_t i = 0; i < n->num_read; i++)
    if (!reads(op, n->read[i]))
      return false;
  return true;
}

// Is (cls, type, roles) already held by one of tensors 0..limit-1?
static bool duplicate(const KRun *k, MgTensorId limit, MgAbsId cls,
                      const MgTensor *type, const MgRole *roles) {
  const MgGraph *g = kgraph(k);
  for (MgTensorId t = 0; t < limit && t < g->num_tensors; t++)
    if (k->cls[t] == cls && mg_graph_same_type(&g->tensors[t], type) &&
        memcmp(k->ti[t].role, roles, type->rank * sizeof(MgRole)) == 0)
      return true;
  return false;
}

//===--- Completion -------------------------------------------------------===//

static void complete(KRun *k) {
  const MgGraph *g = kgraph(k);
  const Search *s = k->s;
  MgTensorId outputs[SEARCH_MAX_OUTPUTS];
  bool used[SEARCH_MAX_OUTPUTS] = {false};
  uint32_t found = 0;
  for (MgTensorId t = 0; t < g->num_tensors; t++) {
    if (k->ti[t].uses)
      continue;
    if (t < k->nin) {
      mg_worker_prune(k->w, MG_SEARCH_RULE_PENDING, NULL);
      return; // an input nobody reads
    }
    bool ok = false;
    for (uint32_t o = 0; o < s->facts.outputs.n && !ok; o++)
      if (!used[o] && matches_goal(k, t, o)) {
        used[o] = ok = true;
        outputs[o] = t;
        found++;
      }
    if (!ok) {
      mg_worker_prune(k->w, MG_SEARCH_RULE_PENDING, NULL);
      return; // a value nobody reads
    }
  }
  if (found != s->facts.outputs.n) {
    mg_worker_prune(k->w, MG_SEARCH_RULE_OUTPUT, NULL);
    return;
  }
  k->w->stats.kernel_graphs++;
  mg_replay_kernel_graph(k->w, k->ops, k->depth, outputs);
}

//===--- Appending --------------------------------------------------------===//

static void push(KRun *k, const MgOp *op, const OpKey *key, void (*next)(KRun *),
                 const uint16_t *kinds, bool custom) {
  for (uint32_t i = 0; i < op->num_inputs; i++)
    k->ti[op->inputs[i]].uses++;
  OpKey saved = k->last;
  bool had = k->has_last;
  k->last = *key;
  k->has_last = true;
  k->depth++;
  k->customs += custom;
  for (uint32_t i = 0; i < MG_OP_COUNT; i++)
    k->kinds[i] += kinds[i];
  next(k);
  for (uint32_t i = 0; i < MG_OP_COUNT; i++)
    k->kinds[i] -= kinds[i];
  k->customs -= custom;
  k->depth--;
  k->has_last = had;
  k->last = saved;
  for (uint32_t i = 0; i < op->num_inputs; i++)
    k->ti[op->inputs[i]].uses--;
}

static bool add_choice(KRun *k, const Choice *c) {
  if (!mg_array_reserve(&k->list, &k->cap_list, k->num_list + 1,
                        sizeof *k->list, 64))
    return false;
  k->list[k->num_list++] = *c;
  return true;
}

static bool last_op(const KRun *k) { return k->depth + 1 == k->level; }

static bool try_kernel_op(void *ctx, MgOp *op, uint64_t attr) {
  KRun *k = ctx;
  Worker *w = k->w;
  const Search *s = k->s;
  MgOpKind kind = (MgOpKind)op->kind;
  OpKey key;
  mg_opkey_of(op, attr, &key);
  if (k->has_last && mg_opkey_compare(&key, &k->last) <= 0) {
    mg_worker_prune(w, MG_SEARCH_RULE_CANONICAL, NULL);
    return true;
  }
  uint16_t kinds[MG_OP_COUNT] = {0};
  kinds[kind] = 1;
  if (s->opt.use_kind_budget && mg_search_budgeted(kind) &&
      k->kinds[kind] >= s->facts.vocab.budget[kind]) {
    mg_worker_prune(w, MG_SEARCH_RULE_BUDGET, NULL);
    return true;
  }
  Needs needs;
  needs.num_missing = needs.num_read = 0;
  if (last_op(k)) {
    needs_of(k, &needs);
    if (needs.num_missing != 1 || !reads_all(op, &needs)) {
      mg_worker_prune(w, MG_SEARCH_RULE_PENDING, NULL);
      return true;
    }
  }
  const MgGraph *g = kgraph(k);
  MgTensorId a = op->inputs[0];
  MgTensorId b = op->num_inputs > 1 ? op->inputs[1] : MG_NO_ID;
  MgRole roles[MG_MAX_DIMS];
  const Operands x = mg_operands_of(g, op, k->ti, k->cls);
  if (!mg_roles_of_op(s->opt.use_dims ? s->facts.reduced : NULL, op, &x,
                      ROLE_NONE, s->opt.use_dims, roles)) {
    mg_worker_prune(w, MG_SEARCH_RULE_DIMS, NULL);
    return true;
  }
  if (!mg_search_anchor_ok(s, op, k->cls[a],
                           b == MG_NO_ID ? MG_ABS_NONE : k->cls[b])) {
    mg_worker_prune(w, MG_SEARCH_RULE_ANCHOR, NULL);
    return true;
  }
  if (!mg_search_op_reductions_ok(s, op, &x, ROLE_NONE)) {
    mg_worker_prune(w, MG_SEARCH_RULE_REDUCE, NULL);
    return true;
  }
  mg_worker_states(w, 1, true);
  MgDiag diag;
  MgTensorId out;
  MgOpId id = mg_graph_add_op(k->p, 0, op, &out, &diag);
  if (id == MG_NO_ID) {
    mg_worker_prune(w, MG_SEARCH_RULE_SHAPE, &diag);
    return true;
  }
  MgAbsId cls[MG_MAX_OP_OUTPUTS];
  MgSearchRule drop = MG_SEARCH_RULE_COUNT;
  if (out >= K_MAX_TENSORS) {
    drop = MG_SEARCH_RULE_BUDGET;
  } else {
    mg_search_classes(s, k->p, 0, id, k->cls, cls);
    k->cls[out] = cls[0];
    memset(&k->ti[out], 0, sizeof k->ti[out]);
    memcpy(k->ti[out].role, roles, sizeof roles);
    const Operands y = mg_operands_of(kgraph(k), op, k->ti, k->cls);
    mg_sup_of_op(s, op, &y, &k->ti[out].sup);
    if (s->abs && (cls[0] == MG_ABS_NONE ||
                   !mg_absexpr_is_subexpr(s->abs, cls[0])))
      drop = MG_SEARCH_RULE_ABSEXPR;
    else if (s->abs && duplicate(k, out, cls[0], &g->tensors[out], roles))
      drop = MG_SEARCH_RULE_DUPLICATE;
    else if (last_op(k) && !matches_goal(k, out, needs.missing[0]))
      drop = MG_SEARCH_RULE_OUTPUT;
  }
  if (drop != MG_SEARCH_RULE_COUNT) {
    mg_worker_prune(w, drop, NULL);
    mg_program_truncate(k->p, k->p->num_graphs, id, out);
    return true;
  }
  if (k->listing) {
    Choice c = {false, *op, NULL, attr};
    if (!add_choice(k, &c)) {
      atomic_store(&k->s->failed, true);
      atomic_store(&k->s->stop, true);
    }
  } else {
    k->ops[k->depth].custom = false;
    k->ops[k->depth].op = *op;
    k->ops[k->depth].entry = NULL;
    push(k, op, &key, kdfs, kinds, false);
  }
  mg_program_truncate(k->p, k->p->num_graphs, id, out);
  return !mg_worker_stopped(w);
}

// Appends custom op (operands in op->inputs) running `e`'s first recipe.
static bool apply_custom(KRun *k, const MgOp *op, const MenuEntry *e) {
  const Recipe *r = &e->recipes[0];
  MgTensorId outs[MG_MAX_OP_OUTPUTS];
  const MgGraph *g = kgraph(k);
  if (g->num_tensors + e->num_out > K_MAX_TENSORS)
    return false;
  if (!mg_replay_recipe(k->p, r, op->inputs, op->num_inputs, &r->sk.launch,
                        outs))
    return false;
  for (uint32_t i = 0; i < e->num_out; i++) {
    memset(&k->ti[outs[i]], 0, sizeof k->ti[outs[i]]);
    memcpy(k->ti[outs[i]].role, e->role[i], sizeof e->role[i]);
    k->ti[outs[i]].sup = e->sup[i];
    k->cls[outs[i]] = e->cls[i];
  }
  return true;
}

// Lower bound over the entry's recipes of each budgeted kind.
static void entry_kinds(const MenuEntry *e, uint16_t *kinds) {
  for (uint32_t i = 0; i < MG_OP_COUNT; i++) {
    uint16_t m = UINT16_MAX;
    for (uint32_t j = 0; j < e->num_recipes; j++)
      if (e->recipes[j].kinds[i] < m)
        m = e->recipes[j].kinds[i];
    kinds[i] = mg_search_budgeted((MgOpKind)i) && e->num_recipes ? m : 0;
  }
}

static void try_entry(KRun *k, const MgOp *op, const MenuEntry *e) {
  Worker *w = k->w;
  const Search *s = k->s;
  OpKey key;
  mg_opkey_of(op, e->sig, &key);
  if (k->has_last && mg_opkey_compare(&key, &k->last) <= 0) {
    mg_worker_prune(w, MG_SEARCH_RULE_CANONICAL, NULL);
    return;
  }
  uint16_t kinds[MG_OP_COUNT];
  entry_kinds(e, kinds);
  bool over = k->customs >= s->opt.max_custom_kernels;
  for (uint32_t i = 0; i < MG_OP_COUNT && s->opt.use_kind_budget; i++)
    over |= mg_search_budgeted((MgOpKind)i) &&
            k->kinds[i] + kinds[i] > s->facts.vocab.budget[i];
  if (over) {
    mg_worker_prune(w, MG_SEARCH_RULE_BUDGET, NULL);
    return;
  }
  for (uint32_t i = 0; s->abs && i < e->num_out; i++)
    if (duplicate(k, kgraph(k)->num_tensors, e->cls[i], &e->type[i],
                  e->role[i])) {
      mg_worker_prune(w, MG_SEARCH_RULE_DUPLICATE, NULL);
      return;
    }
  mg_worker_states(w, 1, true);
  uint32_t graphs = k->p->num_graphs, ops = kgraph(k)->num_ops,
           tensors = kgraph(k)->num_tensors;
  if (k->listing) {
    Choice c = {true, *op, e, e->sig};
    if (!add_choice(k, &c)) {
      atomic_store(&k->s->failed, true);
      atomic_store(&k->s->stop, true);
    }
    return;
  }
  if (!apply_custom(k, op, e)) {
    mg_program_truncate(k->p, graphs, ops, tensors);
    mg_worker_prune(w, MG_SEARCH_RULE_SHAPE, NULL);
    return;
  }
  k->ops[k->depth].custom = true;
  k->ops[k->depth].op = *op;
  k->ops[k->depth].entry = e;
  push(k, op, &key, kdfs, kinds, true);
  mg_program_truncate(k->p, graphs, ops, tensors);
}

static BlockSig sig_of(const KRun *k, const MgOp *op) {
  BlockSig sig;
  memset(&sig, 0, sizeof sig);
  sig.n = op->num_inputs;
  for (uint32_t i = 0; i < op->num_inputs; i++) {
    sig.type[i] = kgraph(k)->tensors[op->inputs[i]];
    sig.type[i].producer = 0;
    sig.info[i] = k->ti[op->inputs[i]];
    sig.info[i].uses = 0;
    sig.info[i].cls = k->cls[op->inputs[i]];
  }
  return sig;
}

static Goal goal_of(const KRun *k, const Needs *needs) {
  Goal goal;
  memset(&goal, 0, sizeof goal);
  if (!last_op(k))
    return goal; // free
  goal.exact = true;
  goal.n = needs->num_missing;
  for (uint32_t i = 0; i < needs->num_missing; i++) {
    uint32_t o = needs->missing[i];
    goal.cls[i] = k->s->facts.outputs.cls[o];
    goal.type[i] = k->s->facts.outputs.type[o];
    memcpy(goal.role[i], k->s->facts.outputs.role[o], sizeof goal.role[i]);
    goal.sup[i] = k->s->facts.outputs.sup[o];
  }
  return goal;
}

// The last kernel reads what it must (unread values, unused inputs) plus
// optional operands; each optional one must be needed to reach the
// outputs' variables (supports), else a smaller operand set does the same.
static bool minimal(const KRun *k, const MgOp *op, const Needs *needs,
                    const Goal *goal) {
  for (uint32_t i = 0; i < op->num_inputs; i++) {
    bool must = false;
    for (uint32_t j = 0; j < needs->num_read && !must; j++)
      must = needs->read[j] == op->inputs[i];
    if (must)
      continue;
    MgOp less = *op;
    less.num_inputs = 0;
    for (uint32_t j = 0; j < op->num_inputs; j++)
      if (j != i)
        less.inputs[less.num_inputs++] = op->inputs[j];
    BlockSig sig = sig_of(k, &less);
    if (mg_search_goal_reachable(k->s, &sig, goal))
      return false;
  }
  return true;
}

// Custom kernels whose largest operand is tensor m.
static void try_customs(KRun *k, uint32_t m) {
  Needs needs;
  needs_of(k, &needs);
  bool last = last_op(k);
  if (last && needs.num_missing == 0)
    return;
  for (uint32_t read = 0; read < needs.num_read; read++)
    if (last && needs.read[read] > m)
      return; // the op must read a tensor beyond its largest operand
  uint32_t below = m; // operands chosen among 0..m-1, plus m
  if (below > 16)
    below = 16;
  for (uint64_t mask = 0; mask < ((uint64_t)1 << below); mask++) {
    if ((uint32_t)__builtin_popcountll(mask) + 1 > MG_MAX_OP_INPUTS)
      continue;
    MgOp op = mg_op_blank(MG_OP_CUSTOM);
    for (uint32_t t = 0; t < below; t++)
      if (mask & ((uint64_t)1 << t))
        op.inputs[op.num_inputs++] = t;
    op.inputs[op.num_inputs++] = m;
    if (last && !reads_all(&op, &needs)) {
      continue; // (not counted: the last op's operands are forced)
    }
    BlockSig sig = sig_of(k, &op);
    Goal goal = goal_of(k, &needs);
    if (!mg_search_goal_reachable(k->s, &sig, &goal)) {
      mg_worker_prune(k->w, MG_SEARCH_RULE_OUTPUT, NULL);
      continue;
    }
    if (last && !minimal(k, &op, &needs, &goal)) {
      mg_worker_prune(k->w, MG_SEARCH_RULE_PENDING, NULL);
      continue;
    }
    const Menu *menu = mg_menu_get(k->w, &sig, &goal);
    if (!menu)
      return;
    for (uint32_t i = 0; i < menu->num && !mg_worker_stopped(k->w); i++)
      try_entry(k, &op, &menu->entries[i]);
    if (mg_worker_stopped(k->w))
      return;
  }
}

static void kdfs(KRun *k) {
  if (mg_worker_stopped(k->w))
    return;
  if (k->depth == k->level) {
    complete(k);
    return;
  }
  const MgGraph *g = kgraph(k);
  uint32_t n = g->num_tensors;
  uint32_t from = k->has_last ? k->last.max_in : 0;
  for (uint32_t m = from; m < n && !mg_worker_stopped(k->w); m++) {
    if (!mg_gen_ops(&k->s->facts.vocab, false, m, 0, g->tensors[m].rank,
                    (GenSink){try_kernel_op, k}))
      return;
    if (k->customs < k->s->opt.max_custom_kernels)
      try_customs(k, m);
    g = kgraph(k);
  }
}

//===--- Level driver -----------------------------------------------------===//

static bool krun_init(KRun *k, Worker *w, uint32_t level) {
  memset(k, 0, sizeof *k);
  k->w = w;
  k->s = w->s;
  k->level = level;
  k->p = mg_program_create();
  if (!k->p || mg_program_add_graph(k->p, MG_LEVEL_KERNEL) != 0)
    return false;
  const Search *s = w->s;
  k->nin = s->facts.num_inputs;
  for (uint32_t i = 0; i < s->facts.num_inputs; i++) {
    const MgTensor *t = &s->facts.in_type[i];
    if (mg_graph_add_input(k->p, 0, (MgDType)t->dtype, t->rank, t->dims,
                           NULL) != i)
      return false;
    k->ti[i] = s->facts.in_info[i];
    k->ti[i].uses = 0;
    k->cls[i] = s->facts.in_info[i].cls;
  }
  return true;
}

typedef struct LevelTasks {
  Choice *list;
  uint32_t level;
} LevelTasks;

static void run_choice(Worker *w, uint32_t index, void *arg) {
  LevelTasks *lt = arg;
  const Choice *c = &lt->list[index];
  KRun k;
  if (!krun_init(&k, w, lt->level)) {
    mg_program_destroy(k.p);
    atomic_store(&w->s->failed, true);
    atomic_store(&w->s->stop, true);
    return;
  }
  if (c->custom) {
    uint16_t kinds[MG_OP_COUNT];
    entry_kinds(c->entry, kinds);
    OpKey key;
    mg_opkey_of(&c->op, c->attr, &key);
    if (apply_custom(&k, &c->op, c->entry)) {
      k.ops[0].custom = true;
      k.ops[0].op = c->op;
      k.ops[0].entry = c->entry;
      push(&k, &c->op, &key, kdfs, kinds, true);
    }
  } else {
    MgOp op = c->op;
    MgTensorId out;
    MgOpId id = mg_graph_add_op(k.p, 0, &op, &out, NULL);
    if (id != MG_NO_ID) {
      MgRole roles[MG_MAX_DIMS];
      const Operands x = mg_operands_of(kgraph(&k), &op, k.ti, k.cls);
      mg_roles_of_op(NULL, &op, &x, ROLE_NONE, false, roles);
      MgAbsId cls[MG_MAX_OP_OUTPUTS];
      mg_search_classes(k.s, k.p, 0, id, k.cls, cls);
      k.cls[out] = cls[0];
      memset(&k.ti[out], 0, sizeof k.ti[out]);
      memcpy(k.ti[out].role, roles, sizeof roles);
      mg_sup_of_op(k.s, &op, &x, &k.ti[out].sup);
      uint16_t kinds[MG_OP_COUNT] = {0};
      kinds[op.kind] = 1;
      OpKey key;
      mg_opkey_of(&op, c->attr, &key);
      k.ops[0].custom = false;
      k.ops[0].op = op;
      k.ops[0].entry = NULL;
      push(&k, &op, &key, kdfs, kinds, false);
    }
  }
  mg_program_destroy(k.p);
}

// The menus the first op needs: every subset of the inputs (the exact
// goal when the graph has one op), computed in parallel.
static void prefetch_first(Search *s, Worker *workers, uint32_t nw,
                           uint32_t level) {
  uint32_t n = s->facts.num_inputs;
  if (n > MG_MAX_OP_INPUTS || n > 12)
    return; // left to the lazy path
  uint32_t count = (1u << n) - 1;
  BlockSig *sigs = calloc(count ? count : 1, sizeof *sigs);
  Goal *goals = calloc(count ? count : 1, sizeof *goals);
  uint32_t m = 0;
  for (uint32_t mask = 1; sigs && goals && mask <= count; mask++) {
    if (level == 1 && mask != count)
      continue; // one op must read every input
    BlockSig *sig = &sigs[m];
    for (uint32_t i = 0; i < n; i++)
      if (mask & (1u << i)) {
        sig->type[sig->n] = s->facts.in_type[i];
        sig->type[sig->n].producer = 0;
        sig->info[sig->n] = s->facts.in_info[i];
        sig->n++;
      }
    if (level == 1)
      goals[m] = s->facts.outputs;
    m++;
  }
  if (sigs && goals)
    mg_menu_prefetch(s, workers, nw, sigs, goals, m);
  free(sigs);
  free(goals);
}

void mg_kernel_level(Search *s, Worker *workers, uint32_t num_workers) {
  uint32_t level = s->level;
  if (s->opt.max_custom_kernels > 0)
    prefetch_first(s, workers, num_workers, level);
  if (atomic_load(&s->stop))
    return;
  // List the first op's choices on worker 0 (menus are cached).
  KRun k;
  if (!krun_init(&k, &workers[0], level)) {
    mg_program_destroy(k.p);
    atomic_store(&s->failed, true);
    atomic_store(&s->stop, true);
    return;
  }
  k.listing = true;
  kdfs(&k);
  LevelTasks lt = {k.list, level};
  if (!atomic_load(&s->stop))
    mg_search_parallel(s, workers, num_workers, k.num_list, run_choice, &lt);
  free(k.list);
  mg_program_destroy(k.p);
}
