//===- explain.c - --mirage-explain: why the search chose what it chose ---===//
//
// The search pass hands over, per kernel graph, the search's result with
// its best candidates (MgSearchResult.top, lib/search/explain.c); this file
// only prints. Every figure is recomputed from the programs with lib/cost
// on the search's target, in the words --mirage-cost uses
// (cost_pass.h): an explanation whose numbers differ from what
// --mirage-cost says of the chosen program would explain nothing.
//
// The estimate of a program is the sum over its kernels of launch + the
// time of the kernel's busiest resource (docs/cost.md), so it is shown as
// launches + the body time of each kernel summed by what bounds it; the
// time every resource would take, summed over the kernels, is shown beside
// it (how close the runners-up are), then the roofline's traffic and work.
//
// The JSON holds no timings of the search itself, so that it is the same
// on every run, like the pass's output.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // open_memstream

#include "explain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_pass.h"
#include "mirage/tool.h"
#include "search_pass.h"

//===--- The cost model's breakdown of one program ------------------------===//

typedef struct Breakdown {
  uint32_t kernels;
  double estimated_s, roofline_s;  // what ranks (emitted model), the ideal
  double launch_s;                 // the kernels' launches
  double body_s[MG_COST_BOUND_COUNT];     // body times by what bounds them
  double resource_s[MG_COST_BOUND_COUNT]; // each resource's time, summed
  double dram, l2, smem;                  // the roofline's bytes
  double tensor_flops, simt_ops, sfu_ops; // ... and work
} Breakdown;

static void breakdown_of(const MgProgram *p, const MgGpu *gpu,
                         Breakdown *b) {
  memset(b, 0, sizeof *b);
  b->estimated_s = mg_cost_emitted_program(p, gpu);
  b->roofline_s = mg_cost_program(p, gpu);
  const MgGraph *g = &p->graphs[0];
  for (uint32_t i = 0; i < g->num_ops; i++) {
    MgKernelCost c;
    MgEmittedCost e;
    if (!mg_cost_kernel(p, i, gpu, &c) || !mg_cost_emitted_kernel(p, i, gpu, &e))
      continue;
    b->kernels++;
    b->launch_s += e.time_s - e.body_s;
    b->body_s[e.bound] += e.body_s;
    for (int r = 0; r < MG_COST_BOUND_COUNT; r++)
      b->resource_s[r] += e.t[r];
    b->dram += c.dram_bytes;
    b->l2 += c.l2_bytes;
    b->smem += c.smem_bytes;
    b->tensor_flops += c.tensor_flops;
    b->simt_ops += c.simt_ops;
    b->sfu_ops += c.sfu_ops;
  }
}

// "estimate = launches 2.00 us + latency-bound 0.93 us; resource time (us,
// over kernels): dram 0.01, ...; DRAM 0.026 MB, ... sfu op"
static void breakdown_text(const Breakdown *b, char *buf, size_t size) {
  int n = snprintf(buf, size, "estimate = launches %.2f us",
                   1e6 * b->launch_s);
  for (int r = 0; r < MG_COST_BOUND_COUNT && n > 0 && (size_t)n < size; r++)
    if (b->body_s[r] > 0)
      n += snprintf(buf + n, size - (size_t)n, " + %s-bound %.2f us",
                    mg_cost_bound_name((MgCostBound)r), 1e6 * b->body_s[r]);
  const char *sep = "; resource time (us, over kernels):";
  for (int r = 1; r < MG_COST_BOUND_COUNT && n > 0 && (size_t)n < size; r++)
    if (b->resource_s[r] > 0) {
      n += snprintf(buf + n, size - (size_t)n, "%s %s %.2f", sep,
                    mg_cost_bound_name((MgCostBound)r),
                    1e6 * b->resource_s[r]);
      sep = ",";
    }
  if (n > 0 && (size_t)n < size)
    snprintf(buf + n, size - (size_t)n,
             "; DRAM %.3f MB, L2 %.3f MB, smem %.3f MB, %.4g tensor flop, "
             "%.4g simt op, %.4g sfu op", b->dram / 1e6, b->l2 / 1e6,
             b->smem / 1e6, b->tensor_flops, b->simt_ops, b->sfu_ops);
}

//===--- Remarks ----------------------------------------------------------===//

// What became of a candidate, in words.
static void fate_text(const MgSearchCandidate *c, char *buf, size_t size) {
  const MgVerifyResult *r = &c->check;
  switch (c->fate) {
  case MG_SEARCH_FATE_VERIFIED:
    if (c->parts)
      snprintf(buf, size, "verified: %u part(s) searched and verified on "
               "their own, %u test(s) in all, error bound <= 2^%.1f",
               c->parts, r->tests, r->log2_bound);
    else
      snprintf(buf, size, "verified: %u test(s), error bound <= 2^%.1f",
               r->tests, r->log2_bound);
    break;
  case MG_SEARCH_FATE_FINGERPRINT:
    snprintf(buf, size, "rejected: its first test differed (output %u, "
             "element %lld)", r->output, (long long)r->index);
    break;
  case MG_SEARCH_FATE_REJECTED:
    snprintf(buf, size, "rejected by the verifier after %u test(s)",
             r->tests);
    break;
  case MG_SEARCH_FATE_WEAK_BOUND:
    snprintf(buf, size, "not tested: its error bound would need more than "
             "max-tests tests");
    break;
  case MG_SEARCH_FATE_UNSTABLE:
    snprintf(buf, size, "rejected: numerically unstable (an exp the input "
             "guards by subtracting a max is unguarded)");
    break;
  case MG_SEARCH_FATE_SIBLING:
    snprintf(buf, size, "not tested: a launch variant of the same block "
             "graphs failed its first test");
    break;
  case MG_SEARCH_FATE_NOT_CHEAPER:
    if (c->parts)
      snprintf(buf, size, "its %u parts verified, but estimated no faster "
               "than the input or the best verified", c->parts);
    else
      snprintf(buf, size, "not tested: estimated no faster than the input "
               "or the best verified");
    break;
  case MG_SEARCH_FATE_UNTESTED:
    snprintf(buf, size, "not tested: a cheaper candidate was verified "
             "first");
    break;
  default:
    snprintf(buf, size, "not tested: the search was stopped by its time "
             "budget or memory bound");
    break;
  }
}

// Position of `chosen` among the listed candidates, -1 when not listed.
static int32_t chosen_rank(const MgSearchResult *r, const MgProgram *chosen) {
  for (uint32_t i = 0; r && chosen && i < r->num_top; i++)
    if (mg_program_equal(r->top[i].program, chosen))
      return (int32_t)i;
  return -1;
}

// The chosen program's kernels in --mirage-cost's words.
static void remark_kernels(MlirLocation loc, const char *name,
                           const MgProgram *p, const MgGpu *gpu) {
  const MgGraph *g = &p->graphs[0];
  uint32_t k = 0;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    MgKernelCost c;
    MgEmittedCost e;
    if (!mg_cost_kernel(p, i, gpu, &c) || !mg_cost_emitted_kernel(p, i, gpu, &e))
      continue;
    char figures[512];
    mg_cost_pass_kernel_figures(&g->ops[i], &c, &e, figures, sizeof figures);
    mg_pass_remark(loc, "mirage-explain: '@%s' chosen kernel %u 'ug.%s': %s",
                   name, ++k, mg_op_kind_name((MgOpKind)g->ops[i].kind),
                   figures);
  }
}

// The choice and why, with the verifier's bound of the chosen program.
static void choice_text(const MgExplainPass *x, const MgExplainFunction *fn,
                        char *buf, size_t size) {
  const MgProgram *target = fn->target, *chosen = fn->chosen;
  const MgSearchResult *r = fn->result;
  const MgGpu *gpu = mg_cost_gpu(x->options->target);
  double goal = log2(x->options->verify_error);
  if (!chosen) {
    const MgSearchStats *st = &r->stats;
    snprintf(buf, size, "kept the input: nothing estimated faster was "
             "verified (%llu candidate(s) tested, %llu verified, %llu not "
             "tested: no cheaper)%s%s%s", (unsigned long long)st->evaluated,
             (unsigned long long)st->verified,
             (unsigned long long)st->cost_skips,
             st->timed_out ? "; stopped by the time budget" : "",
             st->memory_limited ? "; stopped by the memory bound" : "",
             st->states_limited ? "; stopped by max-states" : "");
    return;
  }
  if (r->best < 0 || (uint32_t)r->best >= r->num_found) {
    snprintf(buf, size, "chose a program this search did not find");
    return; // not reached: under explain the cache is not read
  }
  int32_t at = chosen_rank(r, chosen);
  const MgSearchFound *f = &r->found[r->best];
  char which[96];
  if (at >= 0)
    snprintf(which, sizeof which, "#%d", at + 1);
  else
    snprintf(which, sizeof which, "a candidate ranked below the %u listed",
             r->num_top);
  MgProgramBound pb;
  mg_cost_program_bound(target, gpu, &pb);
  double chosen_s = mg_cost_emitted_program(chosen, gpu);
  snprintf(buf, size, "chose %s, %s%s: "
           "estimated %.2f us -> %.2f us, roofline %.2f us -> %.2f us, "
           "%.2fx the program bound + one launch (%.2f us); "
           "verifier: %u test(s), error bound <= 2^%.1f (asked 2^%.0f)",
           which, fn->chosen_by ? fn->chosen_by
                                : "the cheapest verified candidate",
           f->num_parts ? " (the input cut into parts, each verified)"
                               : "",
           1e6 * mg_cost_emitted_program(target, gpu), 1e6 * chosen_s,
           1e6 * mg_cost_program(target, gpu), 1e6 * mg_cost_program(chosen, gpu),
           chosen_s / (pb.time_s + gpu->launch_s),
           1e6 * (pb.time_s + gpu->launch_s), f->check.tests,
           f->check.log2_bound, goal);
}

// The counts --mirage-stats prints, in its words.
static void remark_pruning(MlirLocation loc, const char *name,
                           const MgSearchStats *st) {
  char rules[512];
  int n = 0;
  for (int r = 0; r < MG_SEARCH_RULE_COUNT && n >= 0 &&
                  (size_t)n < sizeof rules; r++)
    n += snprintf(rules + n, sizeof rules - (size_t)n, " %s %llu",
                  mg_search_rule_name((MgSearchRule)r),
                  (unsigned long long)st->pruned[r]);
  mg_pass_remark(loc, "mirage-explain: '@%s' pruned by rule:%s; fingerprint "
                 "mismatches %llu, verifier rejections %llu, unstable %llu, "
                 "not tested (no cheaper than the best) %llu; %llu states, "
                 "%llu candidates, %llu evaluated, %llu verified; "
                 "kernel-graph sizes searched %u; parts searched separately "
                 "%u", name, rules,
                 (unsigned long long)st->fingerprint_mismatches,
                 (unsigned long long)st->verifier_rejected,
                 (unsigned long long)st->unstable,
                 (unsigned long long)st->cost_skips,
                 (unsigned long long)st->states,
                 (unsigned long long)st->candidates,
                 (unsigned long long)st->evaluated,
                 (unsigned long long)st->verified, st->kernel_ops_searched,
                 st->cut_parts);
}

static void remarks(const MgExplainPass *x, const MgExplainFunction *fn) {
  MlirLocation loc = fn->loc;
  const char *name = fn->name;
  const MgProgram *target = fn->target, *chosen = fn->chosen;
  const MgSearchResult *r = fn->result;
  const MgGpu *gpu = mg_cost_gpu(x->options->target);
  char figures[160], bound[192], text[768];
  mg_cost_pass_program_figures(target, gpu, figures, sizeof figures);
  mg_cost_pass_bound_figures(target, gpu, bound, sizeof bound);
  mg_pass_remark(loc, "mirage-explain: '@%s' on %s (%s), ranked by %s: "
                 "input %s; %s; %u best candidate(s) of the search:", name,
                 gpu->target, gpu->model,
                 x->options->rank == MG_SEARCH_RANK_COST
                     ? "the estimate" : "the proxy (kernels, DRAM bytes)",
                 figures, bound, r->num_top);
  int32_t at = chosen_rank(r, chosen);
  for (uint32_t i = 0; i < r->num_top; i++) {
    const MgSearchCandidate *c = &r->top[i];
    Breakdown b;
    breakdown_of(c->program, gpu, &b);
    char fate[192];
    fate_text(c, fate, sizeof fate);
    mg_cost_pass_program_figures(c->program, gpu, figures, sizeof figures);
    breakdown_text(&b, text, sizeof text);
    mg_pass_remark(loc, "mirage-explain: '@%s' #%u%s: %s; %s; %s", name,
                   i + 1, (int32_t)i == at ? " (chosen)" : "", figures, fate,
                   text);
  }
  if (fn->more)
    fn->more(fn->more_ud);
  if (chosen)
    remark_kernels(loc, name, chosen, gpu);
  choice_text(x, fn, text, sizeof text);
  mg_pass_remark(loc, "mirage-explain: '@%s' %s", name, text);
  remark_pruning(loc, name, &r->stats);
}

//===--- JSON -------------------------------------------------------------===//

static void json_str(MgText *t, const char *s) {
  mg_text_printf(t, "\"");
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\')
      mg_text_printf(t, "\\%c", *c);
    else if (*c < 0x20)
      mg_text_printf(t, "\\u%04x", *c);
    else
      mg_text_printf(t, "%c", *c);
  }
  mg_text_printf(t, "\"");
}

// JSON has no infinities or NaN: those are null.
static void json_num(MgText *t, const char *key, double v, bool comma) {
  if (isfinite(v))
    mg_text_printf(t, "\"%s\": %.9g%s", key, v, comma ? ", " : "");
  else
    mg_text_printf(t, "\"%s\": null%s", key, comma ? ", " : "");
}

// One kernel op per entry: both models' figures, as --mirage-cost prints.
static void json_kernels(MgText *t, const MgProgram *p, const MgGpu *gpu) {
  const MgGraph *g = &p->graphs[0];
  mg_text_printf(t, "\"kernel_ops\": [");
  const char *sep = "";
  for (uint32_t i = 0; i < g->num_ops; i++) {
    MgKernelCost c;
    MgEmittedCost e;
    if (!mg_cost_kernel(p, i, gpu, &c) || !mg_cost_emitted_kernel(p, i, gpu, &e))
      continue;
    mg_text_printf(t, "%s{\"op\": \"ug.%s\", \"blocks\": %llu, "
                   "\"planned\": %s, \"bound\": \"%s\", \"roofline_bound\": "
                   "\"%s\", ", sep, mg_op_kind_name((MgOpKind)g->ops[i].kind),
                   (unsigned long long)c.blocks, e.planned ? "true" : "false",
                   mg_cost_bound_name(e.bound), mg_cost_bound_name(c.bound));
    json_num(t, "utilization", c.utilization, true);
    json_num(t, "estimated_us", 1e6 * e.time_s, true);
    json_num(t, "roofline_us", 1e6 * c.time_s, true);
    json_num(t, "dram_mb", c.dram_bytes / 1e6, true);
    json_num(t, "l2_mb", c.l2_bytes / 1e6, true);
    json_num(t, "smem_mb", c.smem_bytes / 1e6, true);
    json_num(t, "tensor_flop", c.tensor_flops, true);
    json_num(t, "simt_op", c.simt_ops, true);
    json_num(t, "sfu_op", c.sfu_ops, false);
    mg_text_printf(t, "}");
    sep = ", ";
  }
  mg_text_printf(t, "]");
}

static void json_breakdown(MgText *t, const MgProgram *p, const MgGpu *gpu) {
  Breakdown b;
  breakdown_of(p, gpu, &b);
  mg_text_printf(t, "\"kernels\": %u, ", b.kernels);
  json_num(t, "estimated_us", 1e6 * b.estimated_s, true);
  json_num(t, "roofline_us", 1e6 * b.roofline_s, true);
  json_num(t, "launch_us", 1e6 * b.launch_s, true);
  const char *field[2] = {"body_us_by_bound", "resource_us"};
  for (int k = 0; k < 2; k++) {
    const double *v = k ? b.resource_s : b.body_s;
    mg_text_printf(t, "\"%s\": {", field[k]);
    const char *sep = "";
    for (int r = 1; r < MG_COST_BOUND_COUNT; r++)
      if (v[r] > 0) {
        mg_text_printf(t, "%s", sep);
        json_num(t, mg_cost_bound_name((MgCostBound)r), 1e6 * v[r], false);
        sep = ", ";
      }
    mg_text_printf(t, "}, ");
  }
  json_num(t, "dram_mb", b.dram / 1e6, true);
  json_num(t, "l2_mb", b.l2 / 1e6, true);
  json_num(t, "smem_mb", b.smem / 1e6, true);
  json_num(t, "tensor_flop", b.tensor_flops, true);
  json_num(t, "simt_op", b.simt_ops, true);
  json_num(t, "sfu_op", b.sfu_ops, true);
  json_kernels(t, p, gpu);
}

static void json_check(MgText *t, const MgVerifyResult *r, bool tested) {
  if (!tested) {
    mg_text_printf(t, "\"verify\": null");
    return;
  }
  mg_text_printf(t, "\"verify\": {\"verdict\": \"%s\", \"tests\": %u, "
                 "\"redraws\": %u, ", r->verdict == MG_VERDICT_EQUIVALENT
                     ? "equivalent"
                     : r->verdict == MG_VERDICT_NOT_EQUIVALENT
                           ? "not-equivalent" : "unknown",
                 r->tests, r->redraws);
  json_num(t, "log2_bound", r->log2_bound, false);
  mg_text_printf(t, "}");
}

static void json_candidates(MgText *t, const MgSearchResult *r,
                            int32_t chosen, const MgGpu *gpu) {
  mg_text_printf(t, "\"top\": [");
  for (uint32_t i = 0; r && i < r->num_top; i++) {
    const MgSearchCandidate *c = &r->top[i];
    mg_text_printf(t, "%s{\"rank\": %u, \"chosen\": %s, \"fate\": \"%s\", "
                   "\"parts\": %u, ", i ? ", " : "", i + 1,
                   (int32_t)i == chosen ? "true" : "false",
                   mg_search_fate_name(c->fate), c->parts);
    json_check(t, &c->check, c->check.tests > 0 || c->parts > 0);
    mg_text_printf(t, ", ");
    json_breakdown(t, c->program, gpu);
    mg_text_printf(t, "}");
  }
  mg_text_printf(t, "]");
}

static void json_stats(MgText *t, const MgSearchStats *st) {
  mg_text_printf(t, "\"pruned\": {");
  for (int r = 0; r < MG_SEARCH_RULE_COUNT; r++)
    mg_text_printf(t, "%s\"%s\": %llu", r ? ", " : "",
                   mg_search_rule_name((MgSearchRule)r),
                   (unsigned long long)st->pruned[r]);
  mg_text_printf(t, "}, \"search\": {\"states\": %llu, \"candidates\": %llu, "
                 "\"evaluated\": %llu, \"verified\": %llu, "
                 "\"fingerprint_mismatches\": %llu, \"verifier_rejected\": "
                 "%llu, \"weak_bound\": %llu, \"unstable\": %llu, "
                 "\"not_cheaper\": %llu, \"sibling_skips\": %llu, "
                 "\"kernel_ops_searched\": %u, \"cut_parts\": %u, "
                 "\"cost_bound_stop\": %s, \"absexpr_saturated\": %s, "
                 "\"timed_out\": %s, \"memory_limited\": %s, "
                 "\"states_limited\": %s}",
                 (unsigned long long)st->states,
                 (unsigned long long)st->candidates,
                 (unsigned long long)st->evaluated,
                 (unsigned long long)st->verified,
                 (unsigned long long)st->fingerprint_mismatches,
                 (unsigned long long)st->verifier_rejected,
                 (unsigned long long)st->weak_bound,
                 (unsigned long long)st->unstable,
                 (unsigned long long)st->cost_skips,
                 (unsigned long long)st->sibling_skips,
                 st->kernel_ops_searched, st->cut_parts,
                 st->cost_bound_stop ? "true" : "false",
                 st->absexpr_saturated ? "true" : "false",
                 st->timed_out ? "true" : "false",
                 st->memory_limited ? "true" : "false",
                 st->states_limited ? "true" : "false");
}

static void json_location(MgText *t, MlirLocation loc) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f) {
    mg_tool_print_location(loc, f);
    fclose(f);
  }
  json_str(t, text ? text : "");
  free(text);
}

// The function's JSON entry; fn->result is not read when fn->same_as is
// set (the entry points to that function's).
static void json_function(MgExplainPass *x, const MgExplainFunction *fn) {
  MlirLocation loc = fn->loc;
  const char *name = fn->name, *same_as = fn->same_as;
  const MgProgram *target = fn->target, *chosen = fn->chosen;
  const MgSearchResult *r = same_as ? NULL : fn->result;
  MgText *t = &x->json;
  const MgGpu *gpu = mg_cost_gpu(x->options->target);
  mg_text_printf(t, "%s\n    {\"function\": ", x->functions ? "," : "");
  json_str(t, name);
  mg_text_printf(t, ", \"location\": ");
  json_location(t, loc);
  mg_text_printf(t, ", \"same_as\": ");
  if (same_as)
    json_str(t, same_as);
  else
    mg_text_printf(t, "null");
  MgProgramBound pb;
  mg_cost_program_bound(target, gpu, &pb);
  mg_text_printf(t, ",\n     \"program_bound\": {");
  json_num(t, "us", 1e6 * pb.time_s, true);
  json_num(t, "launch_us", 1e6 * gpu->launch_s, true);
  json_num(t, "dram_mb", pb.dram_bytes / 1e6, true);
  json_num(t, "tensor_flop", pb.tensor_flops, false);
  mg_text_printf(t, "},\n     \"input\": {");
  json_breakdown(t, target, gpu);
  int32_t at = chosen_rank(r, chosen);
  char reason[768];
  if (r)
    choice_text(x, fn, reason, sizeof reason);
  else
    snprintf(reason, sizeof reason, "the same μGraph as '@%s'", same_as);
  mg_text_printf(t, "},\n     \"chosen\": {\"kept_input\": %s, \"reason\": ",
                 chosen ? "false" : "true");
  json_str(t, reason);
  mg_text_printf(t, ", \"rank\": ");
  mg_text_printf(t, at >= 0 ? "%d" : "null", at + 1);
  if (chosen && r && r->best >= 0) {
    const MgSearchFound *f = &r->found[r->best];
    mg_text_printf(t, ", \"parts\": %u, ", f->num_parts);
    json_check(t, &f->check, true);
    mg_text_printf(t, ", ");
    json_breakdown(t, chosen, gpu);
  }
  mg_text_printf(t, "}");
  if (r) {
    mg_text_printf(t, ",\n     ");
    json_candidates(t, r, at, gpu);
    mg_text_printf(t, ",\n     ");
    json_stats(t, &r->stats);
  }
  mg_text_printf(t, "}");
}

//===--- Entry points -----------------------------------------------------===//

bool mg_explain_pass_begin(MgExplainPass *x, const MgOptionValue *values,
                           const MgSearchOptions *options) {
  memset(x, 0, sizeof *x);
  x->remarks = mg_pass_env_flag("MIRAGE_EXPLAIN", values[SEARCH_OPT_EXPLAIN].b);
  const char *env = getenv("MIRAGE_EXPLAIN_FILE");
  const char *path = values[SEARCH_OPT_EXPLAIN_FILE].s[0]
                         ? values[SEARCH_OPT_EXPLAIN_FILE].s
                         : env ? env : "";
  snprintf(x->path, sizeof x->path, "%s", path);
  x->options = options;
  return x->remarks || x->path[0];
}

void mg_explain_pass_function(MgExplainPass *x, const MgExplainFunction *fn) {
  if (x->remarks && fn->same_as)
    mg_pass_remark(fn->loc, "mirage-explain: '@%s' is the same μGraph as "
                   "'@%s': searched once, see its explanation", fn->name,
                   fn->same_as);
  else if (x->remarks && fn->result)
    remarks(x, fn);
  if (x->path[0])
    json_function(x, fn);
  x->functions++;
}

bool mg_explain_pass_end(MgExplainPass *x, MlirLocation loc) {
  bool ok = true;
  if (x->path[0]) {
    const MgSearchOptions *o = x->options;
    const MgGpu *gpu = mg_cost_gpu(o->target);
    MgOutFile f;
    MgDiag diag = MG_DIAG_INIT;
    MgStatus st = x->json.failed ? MG_STATUS_NOMEM
                                 : mg_outfile_open(&f, x->path, &diag);
    if (st == MG_STATUS_OK) {
      fprintf(f.stream, "{\"tool\": \"mirage-explain\", \"version\": \"%s\", "
              "\"target\": \"%s\", \"gpu\": \"%s\", \"rank\": \"%s\", "
              "\"verify_log2_goal\": %.9g, \"functions\": [%s\n  ]}\n",
              MIRAGE_VERSION, gpu->target, gpu->model,
              o->rank == MG_SEARCH_RANK_COST ? "cost" : "proxy",
              log2(o->verify_error), x->json.data ? x->json.data : "");
      st = mg_outfile_commit(&f, &diag);
    } else if (st == MG_STATUS_NOMEM) {
      snprintf(diag.message, sizeof diag.message, "out of memory");
    }
    if (st != MG_STATUS_OK) {
      mg_pass_error(loc, "mirage-explain: cannot write '%s': %s", x->path,
                    diag.message);
      ok = false;
    }
  }
  mg_text_free(&x->json);
  return ok;
}
