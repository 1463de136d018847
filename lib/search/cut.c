//===- cut.c - Searching the parts of a target separately -----------------===//
//
// A prologue is a value the target computes from one input alone through a
// reduction (V / rms(V)) and that ops combining it with other inputs read.
// Recomputing it in every block of one fused kernel can cost more than
// computing it once (QKNorm), and the kernel graphs that compute it once
// are several kernels deep, where the whole target's space is too large to
// enumerate. So the target is cut at its maximal prologues: each prologue's
// ops form a part, the other ops (reading the prologues as inputs) another
// part; each part is searched on its own (without further cuts) and the
// programs found, or the part itself where nothing cheaper was verified,
// are composed in order.
//
// Soundness: the parts, composed, compute exactly what the target computes
// (the cut only renames values), so if each part's program is equivalent
// to its part, the composition is equivalent to the target; the chance that
// some part's program was accepted wrongly is at most the sum of their
// bounds, which is the bound reported. Each of the n parts is verified to
// verify_error / n, so the sum is within verify_error.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CUT_MAX_TENSORS 256
#define CUT_MAX_PARTS 4

typedef struct Cuts {
  const MgGraph *g;
  uint32_t deps[CUT_MAX_TENSORS];   // bit i: depends on input i
  bool reduces[CUT_MAX_TENSORS];    // a SUM on the way from the inputs
  uint32_t cone[CUT_MAX_PARTS];     // tensors cut (prologues)
  uint8_t owner[CUT_MAX_TENSORS];   // 1 + part owning the producer, 0: rest
  uint32_t n;
} Cuts;

// Marks the producers of `t` back to the inputs with `mark` in `in_cone`.
static void mark_cone(const MgGraph *g, MgTensorId t, bool *in_cone) {
  const MgOp *op = &g->ops[g->tensors[t].producer];
  if (op->kind == MG_OP_INPUT || in_cone[t])
    return;
  in_cone[t] = true;
  for (uint32_t k = 0; k < op->num_inputs; k++)
    mark_cone(g, op->inputs[k], in_cone);
}

static bool is_output(const MgGraph *g, MgTensorId t) {
  for (uint32_t k = 0; k < g->num_outputs; k++)
    if (g->outputs[k] == t)
      return true;
  return false;
}

// True when `t` is a prologue: one input, a reduction, not an output, read
// by an op that mixes in another input, and no value of its cone but `t`
// read outside the cone.
static bool is_prologue(Cuts *c, MgTensorId t, bool *in_cone) {
  const MgGraph *g = c->g;
  if (g->ops[g->tensors[t].producer].kind == MG_OP_INPUT ||
      __builtin_popcount(c->deps[t]) != 1 || !c->reduces[t] ||
      is_output(g, t))
    return false;
  memset(in_cone, 0, g->num_tensors);
  mark_cone(g, t, in_cone);
  bool mixed = false;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_INPUT || in_cone[op->outputs[0]])
      continue;
    for (uint32_t k = 0; k < op->num_inputs; k++) {
      MgTensorId u = op->inputs[k];
      if (u == t)
        mixed |= __builtin_popcount(c->deps[op->outputs[0]]) > 1;
      else if (in_cone[u])
        return false; // an inner value escapes
    }
  }
  return mixed;
}

static bool find_cuts(Cuts *c, const MgGraph *g) {
  memset(c, 0, sizeof *c);
  c->g = g;
  if (g->num_tensors > CUT_MAX_TENSORS || g->num_ops > CUT_MAX_TENSORS ||
      g->num_inputs > 32)
    return false;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    uint32_t deps = 0;
    bool red = op->kind == MG_OP_SUM || op->kind == MG_OP_REDUCE_MAX;
    if (op->kind == MG_OP_INPUT)
      deps = 1u << op->attr;
    for (uint32_t k = 0; k < op->num_inputs; k++) {
      deps |= c->deps[op->inputs[k]];
      red |= c->reduces[op->inputs[k]];
    }
    for (uint32_t k = 0; k < op->num_outputs; k++) {
      c->deps[op->outputs[k]] = deps;
      c->reduces[op->outputs[k]] = red;
    }
  }
  bool in_cone[CUT_MAX_TENSORS];
  for (MgTensorId t = 0; t < g->num_tensors && c->n < CUT_MAX_PARTS; t++) {
    if (!is_prologue(c, t, in_cone))
      continue;
    // Prologues found so far lie in no later one's cone (the later one
    // would read them... and they escape), so cones are disjoint.
    c->cone[c->n++] = t;
    for (uint32_t u = 0; u < g->num_tensors; u++)
      if (in_cone[u])
        c->owner[g->tensors[u].producer] = (uint8_t)c->n;
  }
  return c->n > 0;
}

// The part computing prologue `part` (1-based owner) from its input, or
// the rest of the target when `part` is 0 (prologues become inputs).
static MgProgram *make_part(const Cuts *c, uint8_t part, MgDiag *diag) {
  const MgGraph *g = c->g;
  MgProgram *p = mg_program_create();
  if (!p || mg_program_add_graph(p, MG_LEVEL_KERNEL) == MG_NO_ID) {
    mg_program_destroy(p);
    mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
    return NULL;
  }
  MgTensorId map[CUT_MAX_TENSORS];
  for (uint32_t t = 0; t < g->num_tensors; t++)
    map[t] = MG_NO_ID;
  // Inputs first, in the target's order: those the part's ops read, then
  // (rest only) the prologues.
  bool reads[CUT_MAX_TENSORS] = {false};
  for (uint32_t i = 0; i < g->num_ops; i++)
    if (g->ops[i].kind != MG_OP_INPUT && c->owner[i] == part)
      for (uint32_t k = 0; k < g->ops[i].num_inputs; k++)
        reads[g->ops[i].inputs[k]] = true;
  MgStatus st = MG_STATUS_OK;
  for (uint32_t i = 0; st == MG_STATUS_OK && i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    const MgTensor *t = &g->tensors[op->outputs[0]];
    if (op->kind == MG_OP_INPUT && reads[op->outputs[0]]) {
      map[op->outputs[0]] = mg_graph_add_input_as(p, 0, t, NULL, diag);
      st = map[op->outputs[0]] == MG_NO_ID ? MG_STATUS_INVALID : st;
    }
  }
  for (uint32_t k = 0; part == 0 && st == MG_STATUS_OK && k < c->n; k++) {
    const MgTensor *t = &g->tensors[c->cone[k]];
    map[c->cone[k]] = mg_graph_add_input_as(p, 0, t, NULL, diag);
    st = map[c->cone[k]] == MG_NO_ID ? MG_STATUS_INVALID : st;
  }
  for (uint32_t i = 0; st == MG_STATUS_OK && i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_INPUT || c->owner[i] != part)
      continue;
    st = mg_graph_copy_op(p, 0, g, op, map, diag);
  }
  if (part)
    st = st == MG_STATUS_OK
             ? mg_graph_mark_output(p, 0, map[c->cone[part - 1]], diag) : st;
  for (uint32_t k = 0; !part && st == MG_STATUS_OK && k < g->num_outputs; k++)
    st = mg_graph_mark_output(p, 0, map[g->outputs[k]], diag);
  if (st != MG_STATUS_OK) {
    mg_program_destroy(p);
    return NULL;
  }
  return p;
}

MgStatus mg_search_append_part(MgProgram *dst, const MgProgram *prog,
                               const MgTensorId *inputs, MgTensorId *outs,
                               MgDiag *diag) {
  const MgGraph *g = &prog->graphs[0];
  MgTensorId *map = malloc((g->num_tensors + 1) * sizeof *map);
  if (!map)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  for (uint32_t t = 0; t < g->num_tensors; t++)
    map[t] = MG_NO_ID;
  for (uint32_t i = 0; i < g->num_ops; i++)
    if (g->ops[i].kind == MG_OP_INPUT)
      map[g->ops[i].outputs[0]] = inputs[g->ops[i].attr];
  MgStatus st = mg_graph_append(dst, 0, prog, 0, map, diag);
  for (uint32_t k = 0; st == MG_STATUS_OK && k < g->num_outputs; k++)
    outs[k] = map[g->outputs[k]];
  free(map);
  return st;
}

// The target input tensors a part reads, in its input order.
static void part_inputs(const Cuts *c, uint8_t part, const MgTensorId *root,
                        const MgTensorId *cut, MgTensorId *inputs) {
  const MgGraph *g = c->g;
  bool reads[CUT_MAX_TENSORS] = {false};
  for (uint32_t i = 0; i < g->num_ops; i++)
    if (g->ops[i].kind != MG_OP_INPUT && c->owner[i] == part)
      for (uint32_t k = 0; k < g->ops[i].num_inputs; k++)
        reads[g->ops[i].inputs[k]] = true;
  uint32_t n = 0;
  for (uint32_t i = 0; i < g->num_ops; i++)
    if (g->ops[i].kind == MG_OP_INPUT && reads[g->ops[i].outputs[0]])
      inputs[n++] = root[g->ops[i].attr];
  for (uint32_t k = 0; part == 0 && k < c->n; k++)
    inputs[n++] = cut[k];
}

// What the parts' searches share: the outer search (its options, deadline
// and memory), the number of parts, and the totals they fill.
typedef struct Parts {
  Search *s;
  uint32_t num;
  MgSearchStats *stats;
  MgVerifyResult *check; // the composition's verification
  MgDiag *diag;
} Parts;

// Searches one of the parts, `left` of which (this one included) are still
// to be searched; its best program, or (nothing cheaper verified) the part
// itself. Adds the part's statistics and bound to the totals. Each part is
// verified to 1/ps->num of the bound asked for, so their sum stays within
// it.
static MgProgram *search_part(const Parts *ps, MgProgram *part,
                              const MgProgram *symbolic, uint32_t left) {
  Search *s = ps->s;
  uint32_t parts = ps->num;
  MgSearchStats *st = ps->stats;
  MgVerifyResult *check = ps->check;
  MgDiag *diag = ps->diag;
  MgSearchOptions o = s->opt;
  o.cut_prologues = false;
  o.symbolic = symbolic;
  o.on_candidate = NULL; // the caller's callback expects the target's
                         // signature, which a part does not have
  o.verify_error = s->opt.verify_error / parts;
  o.explain_top = 0; // the explanation lists the composition, not parts
  // The whole search stays within its memory bound: the part gets what the
  // outer search is not holding.
  uint64_t held = atomic_load(&s->memory);
  if (held + ((uint64_t)16 << 20) > s->opt.memory_limit) {
    st->memory_limited = true;
    ++st->parts_memory_limited;
    return part;
  }
  o.memory_limit = s->opt.memory_limit - held;
  o.progress = NULL;
  if (s->deadline > 0) {
    // A fair share of what is left: `left` parts still to search.
    o.time_budget_s = (s->deadline - mg_clock_now()) / left;
    if (o.time_budget_s <= 0.01)
      return part;
  }
  MgSearchResult r;
  MgStatus status = mg_search_run(part, &o, &r, diag);
  mg_search_add_part_stats(st, &r.stats);
  uint64_t peak = held + r.stats.memory_high_water,
           high = atomic_load(&s->memory_high);
  while (peak > high &&
         !atomic_compare_exchange_weak(&s->memory_high, &high, peak))
    ;
  MgProgram *chosen = mg_search_part_choice(part, status, &r, &s->opt, check);
  mg_search_result_free(&r);
  return chosen;
}

MgProgram *mg_search_part_choice(MgProgram *part, MgStatus status,
                                 const MgSearchResult *r,
                                 const MgSearchOptions *opt,
                                 MgVerifyResult *check) {
  const MgProgram *best = status == MG_STATUS_OK ? mg_search_result_best(r)
                                                 : NULL;
  if (!best)
    return part;
  MgSearchCost a = mg_search_cost(best, opt), b = mg_search_cost(part, opt);
  MgProgram *copy = mg_search_cost_compare(&a, &b) < 0 ? mg_program_clone(best)
                                                       : NULL;
  if (!copy)
    return part;
  check->tests += r->found[r->best].check.tests;
  check->error_bound += r->found[r->best].check.error_bound;
  mg_program_destroy(part);
  return copy;
}

void mg_search_add_part_stats(MgSearchStats *st, const MgSearchStats *part) {
  mg_stats_add(st, part);
  st->enumerate_s += part->enumerate_s;
  st->verify_s += part->verify_s;
  st->evaluated += part->evaluated;
  st->verified += part->verified;
  st->tests_run += part->tests_run;
  st->unstable += part->unstable;
  st->unstable_equal += part->unstable_equal;
  st->fingerprint_mismatches += part->fingerprint_mismatches;
  st->cost_skips += part->cost_skips;
  st->timed_out |= part->timed_out;
  st->memory_limited |= part->memory_limited;
  st->states_limited |= part->states_limited;
  st->parts_memory_limited += part->memory_limited;
}

uint32_t mg_search_cut_parts(const MgProgram *target,
                             MgProgram *parts[MG_SEARCH_MAX_PARTS],
                             MgDiag *diag) {
  Cuts c;
  _Static_assert(CUT_MAX_PARTS + 1 <= MG_SEARCH_MAX_PARTS, "parts fit");
  if (!target || !target->num_graphs || !find_cuts(&c, &target->graphs[0]))
    return 0;
  for (uint8_t k = 0; k <= c.n; k++) {
    parts[k] = make_part(&c, k, diag);
    if (!parts[k]) {
      while (k-- > 0)
        mg_program_destroy(parts[k]);
      return 0;
    }
  }
  return c.n + 1;
}

MgProgram *mg_search_cut_join(const MgProgram *target,
                              const MgProgram *const *programs,
                              uint32_t num_programs, const MgTarget *gpu,
                              MgDiag *diag) {
  Cuts c;
  if (!target || !target->num_graphs || !find_cuts(&c, &target->graphs[0]) ||
      num_programs != c.n + 1) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "%u programs do not fit the target's cut parts", num_programs);
    return NULL;
  }
  const MgGraph *g = &target->graphs[0];
  // Each program must have its part's signature (the composition binds
  // inputs and outputs by position and type).
  for (uint8_t k = 0; k <= c.n; k++) {
    MgProgram *part = make_part(&c, k, diag);
    bool fits = part && mg_program_same_signature(part, programs[k]);
    mg_program_destroy(part);
    if (!fits) {
      mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                  "the program for part %u does not have its signature", k);
      return NULL;
    }
  }
  MgProgram *out = mg_program_create();
  bool ok = out && mg_program_add_graph(out, MG_LEVEL_KERNEL) != MG_NO_ID;
  MgTensorId root[32], cut[CUT_MAX_PARTS], inputs[32 + CUT_MAX_PARTS];
  for (uint32_t i = 0; ok && i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind != MG_OP_INPUT)
      continue;
    const MgTensor *t = &g->tensors[op->outputs[0]];
    root[op->attr] = mg_graph_add_input(out, 0, (MgDType)t->dtype, t->rank,
                                        t->dims, diag);
    ok = root[op->attr] != MG_NO_ID;
  }
  // Prologues first (parts 1..n), then the rest (part 0).
  for (uint8_t k = 1; ok && k <= c.n; k++) {
    part_inputs(&c, k, root, cut, inputs);
    ok = mg_search_append_part(out, programs[k], inputs, &cut[k - 1],
                               diag) == MG_STATUS_OK;
  }
  MgTensorId outs[MG_MAX_OP_OUTPUTS * 4];
  if (ok) {
    part_inputs(&c, 0, root, cut, inputs);
    ok = programs[0]->graphs[0].num_outputs == g->num_outputs &&
         mg_search_append_part(out, programs[0], inputs, outs, diag) ==
             MG_STATUS_OK;
  }
  for (uint32_t k = 0; ok && k < g->num_outputs; k++)
    ok = mg_graph_mark_output(out, 0, outs[k], diag) == MG_STATUS_OK;
  // Parts are logical programs: the target's input layouts come back here.
  ok = ok && mg_program_copy_layouts(out, target, diag) == MG_STATUS_OK;
  ok = ok && mg_program_validate(out, gpu, diag) == MG_STATUS_OK;
  if (!ok) {
    mg_program_destroy(out);
    return NULL;
  }
  return out;
}

MgProgram *mg_search_cut(Search *s, MgSearchStats *stats,
                         MgVerifyResult *check,
                         MgProgram *chosen[MG_SEARCH_MAX_PARTS],
                         uint32_t *num_chosen) {
  Cuts c;
  const MgGraph *g = &s->target->graphs[0];
  memset(check, 0, sizeof *check);
  check->verdict = MG_VERDICT_EQUIVALENT;
  check->index = -1;
  *num_chosen = 0;
  if (!find_cuts(&c, g))
    return NULL;
  MgDiag diag;
  MgProgram *parts[CUT_MAX_PARTS + 1] = {NULL};
  bool ok = true;
  const Parts ps = {s, c.n + 1, stats, check, &diag};
  // The prologues (parts 1..n, small) first, the rest (part 0) last, so
  // that it gets whatever time they leave.
  for (uint32_t j = 0; j <= c.n && ok; j++) {
    uint8_t k = (uint8_t)(j < c.n ? j + 1 : 0);
    parts[k] = make_part(&c, k, &diag);
    ok = parts[k] != NULL;
    // The same part of the program with symbols the target stands for.
    MgProgram *symbolic = NULL;
    if (ok && s->opt.symbolic &&
        mg_search_symbolic_same_structure(s->opt.symbolic, s->target)) {
      Cuts cs = c;
      cs.g = &s->opt.symbolic->graphs[0];
      symbolic = make_part(&cs, k, NULL);
    }
    if (ok)
      parts[k] = search_part(&ps, parts[k], symbolic, c.n + 1 - j);
    mg_program_destroy(symbolic);
  }
  MgProgram *out =
      ok ? mg_search_cut_join(s->target, (const MgProgram *const *)parts,
                              c.n + 1, s->gpu, &diag)
         : NULL;
  if (!out) {
    for (uint32_t k = 0; k <= c.n; k++)
      mg_program_destroy(parts[k]);
    return NULL;
  }
  for (uint32_t k = 0; k <= c.n; k++)
    chosen[k] = parts[k];
  *num_chosen = c.n + 1;
  stats->cut_parts = c.n + 1;
  check->log2_bound = check->error_bound > 0 ? log2(check->error_bound)
                                             : -INFINITY;
  return out;
}
