//===- options.c - Search defaults, names and option checks ---------------===//
//
// The defaults follow the issue and the paper: at most 9 counted block ops
// per block graph, a few kernel ops, grid and for-loop sizes from the
// divisors of the dims they cut, abstract-expression pruning on, results
// verified to a false-acceptance bound of 2^-40, and a 2 GiB memory bound.
// ORDER MG_SEARCH_RULE: rule_names follows the enum.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <math.h>
#include <string.h>

MgSearchOptions mg_search_options_default(void) {
  MgSearchOptions o;
  memset(&o, 0, sizeof o);
  o.max_kernel_ops = 4;
  o.max_custom_kernels = 4;
  o.max_block_ops = 9;
  o.max_unary_ops = 8;
  o.max_grid_dims = 2;
  o.min_blocks = 0;
  o.max_blocks = 65536;
  o.max_forloop = 64;
  o.loop_tile = 128;
  o.launch_variants = 1;
  o.pow2_launch = true;
  o.max_recipes = 16;
  o.max_work_ratio = 4.0;
  o.target = NULL;
  o.use_absexpr = true;
  o.use_dims = true;
  o.use_kind_budget = true;
  o.absexpr = mg_absexpr_options_default();
  o.rank = MG_SEARCH_RANK_COST;
  o.extra_levels = 0;
  o.cut_prologues = true;
  o.exhaustive = false;
  o.max_candidates = 256;
  o.max_verified = 1;
  o.verify_error = ldexp(1.0, -40);
  o.seed = 1;
  o.max_tests = 16;
  o.threads = 0;
  o.time_budget_s = 0;
  o.memory_limit = (uint64_t)2 << 30;
  o.progress_interval_s = 1.0;
  return o;
}

static const char *const rule_names[MG_SEARCH_RULE_COUNT] = {
    "shape",   "dims",   "reduce", "anchor", "canonical", "absexpr",
    "duplicate", "pending", "budget", "saver", "launch", "smem", "work",
    "output", "shift", "generalize",
};

const char *mg_search_rule_name(MgSearchRule rule) {
  return (unsigned)rule < MG_SEARCH_RULE_COUNT ? rule_names[rule] : NULL;
}

// Rejects option values the generator cannot honour (bad input, not a
// bug: they may come from a pass option string).
static bool in_range(uint64_t v, uint64_t lo, uint64_t hi) {
  return v >= lo && v <= hi;
}

MgStatus mg_search_check_options(const MgSearchOptions *o, MgDiag *diag) {
#define RANGE(field, lo, hi)                                                   \
  if (!in_range(o->field, lo, hi))                                             \
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,                        \
                       "option '" #field "' is %llu, expected %llu..%llu",     \
                       (unsigned long long)o->field, (unsigned long long)(lo), \
                       (unsigned long long)(hi));
  RANGE(max_kernel_ops, 1, 12)
  RANGE(max_custom_kernels, 0, 12)
  RANGE(max_block_ops, 1, 32)
  RANGE(max_unary_ops, 0, 32)
  RANGE(max_grid_dims, 0, 3)
  RANGE(max_blocks, 1, 1u << 30)
  RANGE(max_forloop, 1, 1u << 20)
  RANGE(max_recipes, 1, 64)
  RANGE(loop_tile, 1, 1u << 20)
  RANGE(launch_variants, 1, 64)
  RANGE(max_candidates, 1, 1u << 16)
  RANGE(max_verified, 1, 1024)
  RANGE(threads, 0, 256)
  RANGE(max_tests, 1, 64)
  RANGE(rank, 0, MG_SEARCH_RANK_COUNT - 1)
  RANGE(extra_levels, 0, 12)
  RANGE(explain_top, 0, 1u << 16)
  RANGE(max_states, 0, MG_SEARCH_MAX_STATES)
#undef RANGE
  if (!(o->verify_error > 0 && o->verify_error < 1))
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "option 'verify_error' is %g, expected (0, 1)",
                       o->verify_error);
  if (!(o->max_work_ratio >= 1) || !isfinite(o->max_work_ratio))
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "option 'max_work_ratio' is %g, expected >= 1",
                       o->max_work_ratio);
  // Above the cap a budget means "none" (1e308 did): 0 says that.
  if (!(o->time_budget_s >= 0 &&
        o->time_budget_s <= MG_SEARCH_MAX_TIME_BUDGET_S))
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "option 'time_budget_s' is %g, expected 0..%g "
                       "seconds (0: no budget)",
                       o->time_budget_s, MG_SEARCH_MAX_TIME_BUDGET_S);
  if (o->memory_limit < ((uint64_t)16 << 20))
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "option 'memory_limit' is %llu bytes, expected at "
                       "least 16 MiB", (unsigned long long)o->memory_limit);
  return MG_STATUS_OK;
}
