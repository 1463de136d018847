//===- module.c - Lifting a module: functions, blocks, naming, remarks ----===//
//
// Each func.func that is neither a μGraph function nor a reference is
// planned as a whole first (its blocks, and the blocks nested in ops that
// stay, such as scf.for bodies), so subprograms can be numbered in op order
// (pre-order); then each is rewritten. Planning reads the IR only, so a
// function whose rewrite fails is left as it was.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <stdlib.h>
#include <string.h>

MgLiftOptions mg_lift_options_default(void) {
  MgLiftOptions o = {MG_LIFT_DEFAULT_MAX_OPS, true, NULL, NULL};
  return o;
}

typedef struct Numbering {
  MgPtrMap *map;
  uint32_t next;
  bool nomem;
} Numbering;

static MlirWalkResult number(MlirOperation op, void *ud) {
  Numbering *n = ud;
  if (!mg_ptrmap_put(n->map, op.ptr, n->next++)) {
    n->nomem = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

static bool symbol_name(MlirOperation op, char *buf, size_t size) {
  MlirAttribute a = mg_lift_attr(op, "sym_name");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return false;
  MlirStringRef s = mlirStringAttrGetValue(a);
  if (s.length + 1 > size)
    return false;
  memcpy(buf, s.data, s.length);
  buf[s.length] = 0;
  return true;
}

static bool has_symbol(MlirSymbolTable symbols, const char *name) {
  return !mlirOperationIsNull(
      mlirSymbolTableLookup(symbols, mlirStringRefCreateFromCString(name)));
}

// Blocks of `region`, then the blocks nested in ops that stay.
static void plan_region(MgLiftPlan *plan, MlirRegion region,
                        MgPtrMap *lifted) {
  for (MlirBlock block = mlirRegionGetFirstBlock(region);
       !mlirBlockIsNull(block) && plan->status == MG_STATUS_OK;
       block = mlirBlockGetNextInRegion(block)) {
    uint32_t first = plan->num_chunks;
    mg_lift_plan_block(plan, block);
    for (uint32_t c = first; c < plan->num_chunks; ++c)
      for (uint32_t k = 0; k < plan->chunks[c].num_members; ++k)
        if (!mg_ptrmap_put(lifted, plan->chunks[c].members[k].ptr, 1))
          plan->status = MG_STATUS_NOMEM;
    for (MlirOperation op = mlirBlockGetFirstOperation(block);
         !mlirOperationIsNull(op) && plan->status == MG_STATUS_OK;
         op = mlirOperationGetNextInBlock(op)) {
      // Linalg bodies are scalar code; symbol tables are other scopes.
      if (mg_ptrmap_get(lifted, op.ptr) != UINT32_MAX ||
          mg_lift_op_has_prefix(op, "linalg.") ||
          !mlirAttributeIsNull(mg_lift_attr(op, "sym_name")))
        continue;
      for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r)
        plan_region(plan, mlirOperationGetRegion(op, r), lifted);
    }
  }
}

typedef struct Remark {
  uint32_t order, seq;
  MlirLocation loc;
  const char *text;
} Remark;

static int by_order(const void *a, const void *b) {
  const Remark *x = a, *y = b;
  if (x->order != y->order)
    return x->order < y->order ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void emit_notes(const MgLiftPlan *plan) {
  const MgLiftOptions *o = plan->opts;
  Remark *r = malloc((plan->num_notes + 1) * sizeof *r);
  if (!r)
    return;
  for (uint32_t i = 0; i < plan->num_notes; ++i)
    r[i] = (Remark){plan->notes[i].order, i, plan->notes[i].loc,
                    plan->notes[i].text};
  qsort(r, plan->num_notes, sizeof *r, by_order);
  char msg[MG_LIFT_WHY_SIZE + 128];
  for (uint32_t i = 0; i < plan->num_notes; ++i) {
    snprintf(msg, sizeof msg, "mirage-lift: %s", r[i].text);
    o->remark(o->remark_data, r[i].loc, msg);
  }
  free(r);
}

static bool is_empty_function(MlirRegion body) {
  MlirBlock b = mlirRegionGetFirstBlock(body);
  if (mlirBlockIsNull(b))
    return true;
  MlirOperation first = mlirBlockGetFirstOperation(b);
  return mlirBlockIsNull(mlirBlockGetNextInRegion(b)) &&
         (mlirOperationIsNull(first) ||
          mlirOperationIsNull(mlirOperationGetNextInBlock(first)));
}

static void remark(const MgLiftOptions *o, MlirOperation op, const char *fmt,
                   const char *name, const char *tail) {
  if (!o->remark)
    return;
  char msg[1200]; // a name (< 400) and a tail (< 640) fit whole
  snprintf(msg, sizeof msg, fmt, name, tail);
  o->remark(o->remark_data, mlirOperationGetLocation(op), msg);
}

static MgStatus lift_function(MgBridgeModule m, MlirOperation func,
                              const char *name, const MgLiftOptions *opts,
                              MgLiftStats *stats, MgDiag *diag) {
  MlirSymbolTable symbols = m.symbols;
  MlirRegion body = mlirOperationGetRegion(func, 0);
  if (is_empty_function(body)) {
    remark(opts, func, "mirage-lift: '@%s': nothing to lift%s", name,
           mlirBlockIsNull(mlirRegionGetFirstBlock(body))
               ? " (a declaration)"
               : " (the function is empty)");
    return MG_STATUS_OK;
  }
  MgLiftPlan plan;
  memset(&plan, 0, sizeof plan);
  plan.opts = opts;
  plan.stats = stats;
  mg_ptrmap_init(&plan.order);
  MgPtrMap lifted;
  mg_ptrmap_init(&lifted);
  Numbering n = {&plan.order, 0, false};
  mlirOperationWalk(func, number, &n, MlirWalkPreOrder);
  if (n.nomem)
    plan.status = MG_STATUS_NOMEM;
  else
    plan_region(&plan, body, &lifted);
  MgStatus status = plan.status;
  if (status != MG_STATUS_OK)
    mg_diag_set(diag, status, -1, -1, "out of memory while lifting '@%s'",
                name);
  // Number the subprograms in op order, skipping names already taken.
  for (uint32_t i = 1; i < plan.num_chunks; ++i)
    for (uint32_t k = i;
         k > 0 && plan.chunks[k - 1].order > plan.chunks[k].order; --k) {
      MgLiftChunk t = plan.chunks[k];
      plan.chunks[k] = plan.chunks[k - 1];
      plan.chunks[k - 1] = t;
    }
  char kname[512], rname[520], list[512] = "";
  uint32_t next = 0, lifted_ops = 0;
  MlirOperation after = func;
  for (uint32_t i = 0; i < plan.num_chunks && status == MG_STATUS_OK; ++i) {
    MgLiftChunk *c = &plan.chunks[i];
    for (;; ++next) {
      snprintf(kname, sizeof kname, "%s_lax%u", name, next);
      snprintf(rname, sizeof rname, "%s_ref", kname);
      if (!has_symbol(symbols, kname) && !has_symbol(symbols, rname))
        break;
    }
    c->index = next++;
    mg_lift_plan_note(&plan, c->members[0],
                      "@%s: %u op%s -> kernel graph of %u μGraph op%s, %u "
                      "input%s, %u output%s%s%s",
                      kname, c->num_members, c->num_members == 1 ? "" : "s",
                      c->compute, c->compute == 1 ? "" : "s", c->num_inputs,
                      c->num_inputs == 1 ? "" : "s", c->num_outputs,
                      c->num_outputs == 1 ? "" : "s",
                      c->note[0] ? "; it starts here because " : "", c->note);
    size_t len = strlen(list);
    if (len + strlen(kname) + 8 < sizeof list)
      snprintf(list + len, sizeof list - len, "%s@%s", i ? ", " : "", kname);
    lifted_ops += c->num_members;
    if (stats)
      stats->ugraph_ops += c->compute;
    MlirOperation call = {NULL};
    status = mg_lift_rewrite_chunk(m, &after, kname, c, &call, diag);
    // Later subprograms that read this one's results now read the call's.
    for (uint32_t d = i + 1; d < plan.num_chunks && status == MG_STATUS_OK; ++d)
      for (uint32_t in = 0; in < plan.chunks[d].num_inputs; ++in)
        for (uint32_t o = 0; o < c->num_outputs; ++o)
          if (plan.chunks[d].inputs[in].ptr == c->outputs[o].ptr)
            plan.chunks[d].inputs[in] = mlirOperationGetResult(call, o);
  }
  if (status == MG_STATUS_OK && opts->remark) {
    char tail[640];
    if (plan.num_chunks)
      snprintf(tail, sizeof tail,
               "lifted %u subprogram%s (%s); %u tensor "
               "op%s left in place",
               plan.num_chunks, plan.num_chunks == 1 ? "" : "s", list,
               plan.ops_left, plan.ops_left == 1 ? "" : "s");
    else
      snprintf(tail, sizeof tail,
               "nothing lifted; %u tensor op%s left in "
               "place",
               plan.ops_left, plan.ops_left == 1 ? "" : "s");
    remark(opts, func, "mirage-lift: '@%s': %s", name, tail);
    emit_notes(&plan);
  }
  if (stats) {
    stats->subprograms += plan.num_chunks;
    stats->ops_lifted += lifted_ops;
    stats->ops_left += plan.ops_left;
  }
  for (uint32_t i = 0; i < plan.num_chunks; ++i)
    mg_lift_chunk_free(&plan.chunks[i]);
  free(plan.chunks);
  free(plan.notes);
  mg_ptrmap_free(&plan.order);
  mg_ptrmap_free(&lifted);
  return status;
}

void mg_lift_stats_count(MgLiftStats *stats, const char *op_name,
                         const char *why) {
  char text[sizeof stats->reasons[0].text];
  int n = snprintf(text, sizeof text, "'%s': ", op_name);
  size_t at = n > 0 ? (size_t)n : 0;
  // A digit run becomes one N, unless it follows a letter (f32 stays).
  bool in_number = false, glued = false;
  for (const char *p = why; *p && at + 1 < sizeof text; ++p) {
    bool digit = *p >= '0' && *p <= '9';
    if (digit && !in_number && !glued)
      glued = p > why && ((p[-1] >= 'a' && p[-1] <= 'z') ||
                          (p[-1] >= 'A' && p[-1] <= 'Z'));
    if (!digit)
      glued = false;
    if (digit && !glued) {
      if (!in_number)
        text[at++] = 'N';
      in_number = true;
      continue;
    }
    in_number = false;
    text[at++] = *p;
  }
  text[at] = 0;
  uint32_t i = 0;
  while (i < stats->num_reasons && strcmp(stats->reasons[i].text, text))
    ++i;
  if (i == stats->num_reasons) {
    if (i == MG_LIFT_MAX_REASONS) {
      ++stats->other_reasons;
      return;
    }
    snprintf(stats->reasons[i].text, sizeof stats->reasons[i].text, "%s",
             text);
    stats->reasons[i].count = 0;
    ++stats->num_reasons;
  }
  ++stats->reasons[i].count;
  // Most frequent first (stable: earlier ties stay ahead).
  for (; i > 0 && stats->reasons[i - 1].count < stats->reasons[i].count; --i) {
    MgLiftReason t = stats->reasons[i];
    stats->reasons[i] = stats->reasons[i - 1];
    stats->reasons[i - 1] = t;
  }
}

/// The module's coverage, after every function's remarks.
static void summary_remarks(MlirOperation module, const MgLiftOptions *o,
                            const MgLiftStats *st) {
  if (!o->remark)
    return;
  uint32_t total = st->ops_lifted + st->ops_left;
  char msg[MG_LIFT_WHY_SIZE + 320];
  snprintf(msg, sizeof msg,
           "mirage-lift: module: %u of %u tensor ops lifted (%.1f %%) into "
           "%u subprogram%s, %.1f μGraph ops each on average; %u left in "
           "place%s",
           st->ops_lifted, total, total ? 100.0 * st->ops_lifted / total : 0.0,
           st->subprograms, st->subprograms == 1 ? "" : "s",
           st->subprograms ? (double)st->ugraph_ops / st->subprograms : 0.0,
           st->ops_left, st->ops_left ? ", by reason:" : "");
  MlirLocation loc = mlirOperationGetLocation(module);
  o->remark(o->remark_data, loc, msg);
  for (uint32_t i = 0; i < st->num_reasons; ++i) {
    snprintf(msg, sizeof msg, "mirage-lift: module: %5u x %s",
             st->reasons[i].count, st->reasons[i].text);
    o->remark(o->remark_data, loc, msg);
  }
  if (st->other_reasons) {
    snprintf(msg, sizeof msg, "mirage-lift: module: %5u x other reasons",
             st->other_reasons);
    o->remark(o->remark_data, loc, msg);
  }
}

MgStatus mg_lift_module(MlirOperation module, const MgLiftOptions *options,
                        MgLiftStats *stats, MgDiag *diag) {
  MgLiftOptions opts = options ? *options : mg_lift_options_default();
  if (opts.max_ops < 1)
    opts.max_ops = 1;
  MgLiftStats local;
  if (!stats && opts.remark)
    stats = &local; // the summary needs them
  if (stats)
    memset(stats, 0, sizeof *stats);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  uint32_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    ++n;
  MlirOperation *funcs = malloc((n + 1) * sizeof *funcs);
  if (!funcs)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  // One symbol table for the whole module, kept current as functions are
  // added: looking names up by scanning the module made lifting quadratic
  // in the number of functions.
  MlirSymbolTable symbols = mlirSymbolTableCreate(module);
  // Functions first: lifting adds functions to the module as it goes.
  // References (named by some kernel graph's ug.reference) are never lifted.
  MgPtrMap references;
  mg_ptrmap_init(&references);
  MgStatus status = MG_STATUS_OK;
  uint32_t nf = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!mg_bridge_op_is(op, "func.func"))
      continue;
    funcs[nf++] = op;
    MlirAttribute r = mg_lift_attr(op, "ug.reference");
    if (!mlirAttributeIsNull(r) && mlirAttributeIsAFlatSymbolRef(r) &&
        !mg_ptrmap_put(&references,
                       mlirSymbolTableLookup(symbols,
                                             mlirFlatSymbolRefAttrGetValue(r))
                           .ptr,
                       1))
      status = mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  }
  for (uint32_t i = 0; i < nf && status == MG_STATUS_OK; ++i) {
    MlirOperation f = funcs[i];
    char name[400];
    if (!mlirAttributeIsNull(mg_lift_attr(f, "ug.level")) ||
        !symbol_name(f, name, sizeof name) ||
        mg_ptrmap_get(&references, f.ptr) != UINT32_MAX)
      continue;
    if (stats)
      stats->functions++;
    if (!mg_lift_is_bare_identifier(name)) {
      remark(&opts, f, "mirage-lift: '@%s': not lifted%s", name,
             " (its name needs quoting, which kernel graph names cannot "
             "carry)");
      continue;
    }
    status = lift_function((MgBridgeModule){module, symbols}, f, name, &opts,
                           stats, diag);
  }
  mg_ptrmap_free(&references);
  mlirSymbolTableDestroy(symbols);
  free(funcs);
  if (status == MG_STATUS_OK && stats && stats->functions)
    summary_remarks(module, &opts, stats);
  return status;
}
