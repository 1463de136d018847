//===- views.c - Searching the parts between view ops ---------------------===//
//
// View ops (transpose, reshape, slice, kernel-level concat) only move
// elements; the search's kernel graphs are built from compute ops and
// graph-defined kernels and never contain them. So a target with views is
// split at them: each compute op gets a level, the number of view ops on
// the longest path from the inputs to it; compute ops of one level joined
// by direct edges form a part. Every edge between parts then goes up in
// level, so parts in level order (views of level L before the parts of
// level L) are a topological order. Each part is searched on its own, the
// program found (or the part itself where nothing cheaper was verified)
// takes its place, and the view ops stay as they are.
//
// Soundness: as for prologue cuts (cut.c), the composition computes what
// the target computes when each part's program computes what its part
// does; each part is verified to verify_error / parts, so the bounds sum
// to at most verify_error.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include "mirage/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Split {
  const MgGraph *g;
  uint32_t *level; // per op: views on the longest path from the inputs
  uint32_t *part;  // per compute op: its part; MG_NO_ID for inputs, views
  uint32_t num_parts;
  uint32_t *part_level; // per part
  bool *escapes;   // per tensor: a graph output, or read outside its part
} Split;

static bool is_view(const MgGraph *g, const MgOp *op) {
  return mg_op_is_view(op, (MgLevel)g->level);
}

static uint32_t find(uint32_t *parent, uint32_t x) {
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

static void split_free(Split *s) {
  free(s->level);
  free(s->part);
  free(s->part_level);
  free(s->escapes);
}

// Levels, then parts: union-find over direct edges between compute ops of
// the same level.
static bool split(Split *s, const MgGraph *g) {
  memset(s, 0, sizeof *s);
  s->g = g;
  uint32_t n = g->num_ops ? g->num_ops : 1;
  s->level = calloc(n, sizeof *s->level);
  s->part = malloc(n * sizeof *s->part);
  uint32_t *parent = malloc(n * sizeof *parent);
  s->part_level = malloc(n * sizeof *s->part_level);
  s->escapes = calloc(g->num_tensors + 1, sizeof *s->escapes);
  if (!s->level || !s->part || !parent || !s->part_level || !s->escapes) {
    free(parent);
    split_free(s);
    return false;
  }
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    uint32_t lv = 0;
    for (uint32_t k = 0; k < op->num_inputs; k++) {
      uint32_t l = s->level[g->tensors[op->inputs[k]].producer];
      lv = l > lv ? l : lv;
    }
    s->level[i] = lv + (is_view(g, op) ? 1 : 0);
    parent[i] = i;
  }
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_INPUT || is_view(g, op))
      continue;
    for (uint32_t k = 0; k < op->num_inputs; k++) {
      MgOpId j = g->tensors[op->inputs[k]].producer;
      const MgOp *src = &g->ops[j];
      if (src->kind != MG_OP_INPUT && !is_view(g, src) &&
          s->level[j] == s->level[i])
        parent[find(parent, j)] = find(parent, i);
    }
  }
  // Parts numbered by first op, so the order is the target's.
  for (uint32_t i = 0; i < g->num_ops; i++)
    s->part[i] = MG_NO_ID;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_INPUT || is_view(g, op))
      continue;
    uint32_t r = find(parent, i);
    if (s->part[r] == MG_NO_ID) {
      s->part_level[s->num_parts] = s->level[i];
      s->part[r] = s->num_parts++;
    }
    s->part[i] = s->part[r];
  }
  free(parent);
  for (uint32_t k = 0; k < g->num_outputs; k++)
    s->escapes[g->outputs[k]] = true;
  for (uint32_t i = 0; i < g->num_ops; i++)
    for (uint32_t k = 0; k < g->ops[i].num_inputs; k++) {
      MgTensorId t = g->ops[i].inputs[k];
      if (s->part[g->tensors[t].producer] != s->part[i])
        s->escapes[t] = true;
    }
  return true;
}

// The tensors part `p` returns (read outside it), in op order, written to
// `out`; their count.
static uint32_t part_outputs(const Split *s, uint32_t p, MgTensorId *out) {
  const MgGraph *g = s->g;
  uint32_t n = 0;
  for (uint32_t i = 0; i < g->num_ops; i++)
    for (uint32_t k = 0; s->part[i] == p && k < g->ops[i].num_outputs; k++)
      if (s->escapes[g->ops[i].outputs[k]])
        out[n++] = g->ops[i].outputs[k];
  return n;
}

// The tensors part `p` reads from outside, in first-read order
// (deduplicated), written to `in`; their count.
static uint32_t part_inputs(const Split *s, uint32_t p, MgTensorId *in) {
  const MgGraph *g = s->g;
  uint32_t n = 0;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    if (s->part[i] != p)
      continue;
    for (uint32_t k = 0; k < g->ops[i].num_inputs; k++) {
      MgTensorId t = g->ops[i].inputs[k];
      if (s->part[g->tensors[t].producer] == p)
        continue;
      bool seen = false;
      for (uint32_t j = 0; j < n && !seen; j++)
        seen = in[j] == t;
      if (!seen)
        in[n++] = t;
    }
  }
  return n;
}

// Where a part meets the rest of the target: the target tensors it reads
// (its inputs, in order) and those it returns (its outputs). The caller
// gives the arrays, room for every target tensor each.
typedef struct PartBoundary {
  MgTensorId *in;
  uint32_t num_in;
  MgTensorId *out;
  uint32_t num_out;
} PartBoundary;

// The part as a program of its own; fills its boundary `b`.
static MgProgram *make_part(const Split *s, uint32_t p, PartBoundary *b,
                            MgDiag *diag) {
  MgTensorId *const in = b->in, *const out = b->out;
  uint32_t *const num_in = &b->num_in, *const num_out = &b->num_out;
  const MgGraph *g = s->g;
  MgProgram *prog = mg_program_create();
  MgTensorId *map = malloc((g->num_tensors + 1) * sizeof *map);
  if (!prog || !map || mg_program_add_graph(prog, MG_LEVEL_KERNEL) == MG_NO_ID) {
    free(map);
    mg_program_destroy(prog);
    mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
    return NULL;
  }
  for (uint32_t t = 0; t < g->num_tensors; t++)
    map[t] = MG_NO_ID;
  MgStatus st = MG_STATUS_OK;
  *num_in = part_inputs(s, p, in);
  for (uint32_t k = 0; st == MG_STATUS_OK && k < *num_in; k++) {
    const MgTensor *t = &g->tensors[in[k]];
    map[in[k]] = mg_graph_add_input_as(prog, 0, t, NULL, diag);
    // A target input keeps its layout; the part's search handles it.
    int8_t perm[MG_MAX_DIMS];
    if (map[in[k]] == MG_NO_ID)
      st = MG_STATUS_INVALID;
    else if (mg_graph_tensor_perm(g, t, perm))
      st = mg_graph_set_input_perm(prog, 0, map[in[k]], perm, diag);
  }
  for (uint32_t i = 0; st == MG_STATUS_OK && i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (s->part[i] != p)
      continue;
    st = mg_graph_copy_op(prog, 0, g, op, map, diag);
  }
  *num_out = part_outputs(s, p, out);
  for (uint32_t k = 0; st == MG_STATUS_OK && k < *num_out; k++)
    st = mg_graph_mark_output(prog, 0, map[out[k]], diag);
  free(map);
  if (st != MG_STATUS_OK) {
    mg_program_destroy(prog);
    return NULL;
  }
  return prog;
}

// What the parts' searches share: the options theirs derive from, the
// number of parts and the deadline they split, and the totals they fill.
typedef struct Parts {
  const MgSearchOptions *base;
  uint32_t num;
  double deadline;       // 0: none
  MgSearchStats *stats;  // summed over the parts
  MgVerifyResult *check; // the composition's verification
  bool improved;         // a part's search found a cheaper program
} Parts;

// The part's program: the search's best when cheaper than the part, else
// the part (ownership moves to the caller either way). `left` parts,
// this one included, are still to be searched.
static MgProgram *search_part(Parts *ps, MgProgram *part,
                              const MgProgram *symbolic, uint32_t left) {
  const MgSearchOptions *base = ps->base;
  MgSearchStats *stats = ps->stats;
  double deadline = ps->deadline;
  MgSearchOptions o = *base;
  o.symbolic = symbolic;
  o.on_candidate = NULL; // it expects the target's signature
  o.progress = NULL;
  o.explain_top = 0; // the explanation lists the composition, not parts
  o.verify_error = base->verify_error / ps->num;
  if (deadline > 0) {
    o.time_budget_s = (deadline - mg_clock_now()) / left;
    if (o.time_budget_s <= 0.01) {
      stats->timed_out = true;
      return part;
    }
  }
  MgSearchResult r;
  MgDiag d;
  MgStatus st = mg_search_run(part, &o, &r, &d);
  mg_search_add_part_stats(stats, &r.stats);
  if (r.stats.memory_high_water > stats->memory_high_water)
    stats->memory_high_water = r.stats.memory_high_water;
  if (r.stats.kernel_ops_searched > stats->kernel_ops_searched)
    stats->kernel_ops_searched = r.stats.kernel_ops_searched;
  MgProgram *chosen = mg_search_part_choice(part, st, &r, base, ps->check);
  ps->improved |= chosen != part;
  mg_search_result_free(&r);
  return chosen;
}

bool mg_search_has_views(const MgProgram *target) {
  const MgGraph *g = &target->graphs[0];
  for (uint32_t i = 0; i < g->num_ops; i++)
    if (is_view(g, &g->ops[i]))
      return true;
  return false;
}

// Builds the composition: target inputs (with their layouts), then by
// level the view ops and the parts' programs.
static MgProgram *compose(const Split *s, MgProgram *const *programs,
                          const MgTarget *gpu, MgDiag *diag) {
  const MgGraph *g = s->g;
  MgProgram *out = mg_program_create();
  MgTensorId *map = malloc((g->num_tensors + 1) * sizeof *map);
  MgTensorId *in = malloc((g->num_tensors + 1) * sizeof *in);
  MgTensorId *bound = malloc((g->num_tensors + 1) * sizeof *bound);
  MgTensorId *outs = malloc((g->num_tensors + 1) * sizeof *outs);
  bool ok = out && map && in && bound && outs &&
            mg_program_add_graph(out, MG_LEVEL_KERNEL) != MG_NO_ID;
  uint32_t max_level = 0;
  for (uint32_t i = 0; ok && i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    max_level = s->level[i] > max_level ? s->level[i] : max_level;
    if (op->kind != MG_OP_INPUT)
      continue;
    const MgTensor *t = &g->tensors[op->outputs[0]];
    map[op->outputs[0]] = mg_graph_add_input(out, 0, (MgDType)t->dtype,
                                             t->rank, t->dims, diag);
    ok = map[op->outputs[0]] != MG_NO_ID;
    // Layouts first: the parts' custom ops are checked against them.
    int8_t perm[MG_MAX_DIMS];
    if (ok && mg_op_input_perm(op, t->rank, perm))
      ok = mg_graph_set_input_perm(out, 0, map[op->outputs[0]], perm, diag) ==
           MG_STATUS_OK;
  }
  for (uint32_t lv = 0; ok && lv <= max_level; lv++) {
    for (uint32_t i = 0; ok && i < g->num_ops; i++) {
      const MgOp *op = &g->ops[i];
      if (!is_view(g, op) || s->level[i] != lv)
        continue;
      MgOp copy = *op;
      for (uint32_t k = 0; k < op->num_inputs; k++)
        copy.inputs[k] = map[op->inputs[k]];
      MgTensorId made[MG_MAX_OP_OUTPUTS];
      ok = mg_graph_add_op(out, 0, &copy, made, diag) != MG_NO_ID;
      for (uint32_t k = 0; ok && k < op->num_outputs; k++)
        map[op->outputs[k]] = made[k];
    }
    for (uint32_t p = 0; ok && p < s->num_parts; p++) {
      if (s->part_level[p] != lv)
        continue;
      uint32_t ni = part_inputs(s, p, in);
      for (uint32_t k = 0; k < ni; k++)
        bound[k] = map[in[k]];
      ok = mg_search_append_part(out, programs[p], bound, outs, diag) ==
           MG_STATUS_OK;
      uint32_t no = part_outputs(s, p, in); // `in` is free again
      ok = ok && no == programs[p]->graphs[0].num_outputs;
      for (uint32_t k = 0; ok && k < no; k++)
        map[in[k]] = outs[k];
    }
  }
  for (uint32_t k = 0; ok && k < g->num_outputs; k++)
    ok = mg_graph_mark_output(out, 0, map[g->outputs[k]], diag) ==
         MG_STATUS_OK;
  // The parts' kernels read the transposes and slices between them
  // through strides (lib/graph/fold.c): their block graphs say so, so the
  // cost model counts those reads as strided.
  ok = ok && mg_program_fold_layouts(out, diag) == MG_STATUS_OK;
  ok = ok && mg_program_validate(out, gpu, diag) == MG_STATUS_OK;
  free(map);
  free(in);
  free(bound);
  free(outs);
  if (!ok) {
    mg_program_destroy(out);
    return NULL;
  }
  return out;
}

MgStatus mg_search_views(const MgProgram *target,
                         const MgSearchOptions *options,
                         MgSearchResult *result, MgDiag *diag) {
  MgSearchOptions opt = options ? *options : mg_search_options_default();
  memset(result, 0, sizeof *result);
  result->best = -1;
  if (mg_program_validate(target, opt.target, diag) != MG_STATUS_OK)
    return MG_STATUS_INVALID;
  double start = mg_clock_now();
  double deadline = opt.time_budget_s > 0 ? start + opt.time_budget_s : 0;
  Split s;
  if (!split(&s, &target->graphs[0]))
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  MgProgram **programs = calloc(s.num_parts ? s.num_parts : 1,
                                sizeof *programs);
  MgTensorId *in = malloc((target->graphs[0].num_tensors + 1) * sizeof *in);
  MgTensorId *out = malloc((target->graphs[0].num_tensors + 1) * sizeof *out);
  MgVerifyResult check;
  memset(&check, 0, sizeof check);
  check.verdict = MG_VERDICT_EQUIVALENT;
  check.index = -1;
  MgSearchStats *stats = &result->stats;
  Parts ps = {&opt, s.num_parts, deadline, stats, &check, false};
  MgStatus st = programs && in && out ? MG_STATUS_OK : MG_STATUS_NOMEM;
  for (uint32_t p = 0; st == MG_STATUS_OK && p < s.num_parts; p++) {
    PartBoundary b = {in, 0, out, 0};
    programs[p] = make_part(&s, p, &b, diag);
    if (!programs[p]) {
      st = MG_STATUS_NOMEM;
      break;
    }
    // The same part of the program with symbols the target stands for.
    MgProgram *symbolic = NULL;
    if (opt.symbolic &&
        mg_search_symbolic_same_structure(opt.symbolic, target)) {
      Split ss = s;
      ss.g = &opt.symbolic->graphs[0];
      PartBoundary sb = {in, 0, out, 0}; // the same tensors as b's
      symbolic = make_part(&ss, p, &sb, NULL);
    }
    // A part beyond the search's signature limits stays as it is.
    if (b.num_in <= 16 && b.num_out <= MG_MAX_OP_OUTPUTS)
      programs[p] = search_part(&ps, programs[p], symbolic, s.num_parts - p);
    mg_program_destroy(symbolic);
  }
  stats->cut_parts = s.num_parts;
  MgProgram *composed = NULL;
  if (st == MG_STATUS_OK && ps.improved) {
    composed = compose(&s, programs, opt.target, diag);
    st = composed ? MG_STATUS_OK : MG_STATUS_INVALID;
  }
  for (uint32_t p = 0; programs && p < s.num_parts; p++)
    mg_program_destroy(programs[p]);
  free(programs);
  free(in);
  free(out);
  split_free(&s);
  stats->elapsed_s = mg_clock_now() - start;
  if (st == MG_STATUS_NOMEM)
    return mg_diag_set(diag, st, -1, -1, "out of memory");
  if (!composed)
    return st; // nothing cheaper, or a composition that failed (diag says)
  result->found = calloc(1, sizeof *result->found);
  if (!result->found) {
    mg_program_destroy(composed);
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  }
  check.log2_bound = check.error_bound > 0 ? log2(check.error_bound)
                                           : -INFINITY;
  result->found[0].program = composed;
  result->found[0].cost = mg_search_cost(composed, &opt);
  result->found[0].hash = mg_program_hash(composed);
  result->found[0].check = check;
  result->num_found = 1;
  result->best = 0;
  // The explanation: the composition is the one candidate (its parts'
  // candidates were ranked by their own searches).
  Explain e;
  mg_explain_init(&e, opt.explain_top);
  Kept k = {composed, result->found[0].cost, result->found[0].hash, 0};
  bool ok = mg_explain_offer(&e, &k, MG_SEARCH_FATE_VERIFIED, &check,
                             stats->cut_parts);
  mg_explain_move(&e, result);
  if (!ok)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  return MG_STATUS_OK;
}
