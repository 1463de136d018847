//===- search_symbolic.c - The search pass on programs with symbols -------===//
//
// A kernel graph with symbolic dims is searched as its one-row program
// (every symbol 1: lib/search/symbolic.c), so the cache and the run's
// memo key it by its shape class. The answer is generalized to every size,
// tested in the field at sizes that differ in every way a row count can
// (1, 2 and a prime), and ranked by its estimates summed
// over mg_symbolic_cost_sizes.
//
//===----------------------------------------------------------------------===//
#include "search_symbolic.h"

#include "mirage/cost.h"

#include <stdio.h>
#include <string.h>

const int64_t mg_symbolic_cost_sizes[MG_SYMBOLIC_NUM_COST_SIZES] = {
    1, 16, 256, 4096};

const int64_t mg_symbolic_cost_lengths[MG_SYMBOLIC_NUM_COST_SIZES] = {
    128, 1024, 8192, 32768};

const int64_t *mg_symbolic_sizes_of(const MgProgram *p) {
  return mg_search_symbolic_reduces(p) || mg_search_symbolic_loops(p)
             ? mg_symbolic_cost_lengths
             : mg_symbolic_cost_sizes;
}

MgSearchCost mg_symbolic_cost(const MgProgram *p, const MgSearchOptions *o) {
  if (!mg_program_syms(p))
    return mg_search_cost(p, o);
  MgSearchCost sum = {0};
  const int64_t *at = mg_symbolic_sizes_of(p);
  for (int i = 0; i < MG_SYMBOLIC_NUM_COST_SIZES; i++) {
    MgProgram *q = mg_program_clone_at(p, at[i]);
    if (!q)
      continue;
    MgSearchCost c = mg_search_cost(q, o);
    sum.time_s += c.time_s;
    sum.dram_bytes += c.dram_bytes;
    sum.kernels = c.kernels;
    sum.smem_bytes = c.smem_bytes;
    mg_program_destroy(q);
  }
  return sum;
}

// One found program generalized and tested; NULL with `why`.
static MgProgram *answer_one(const MgProgram *full, const MgProgram *one_best,
                             int64_t at, const MgSearchOptions *o, char *why,
                             size_t why_size) {
  MgDiag diag = MG_DIAG_INIT;
  MgProgram *g = mg_search_symbolic_generalize(full, one_best, at, &diag);
  if (!g) {
    snprintf(why, why_size, "the μGraph found does not generalize: %s",
             diag.message);
    return NULL;
  }
  // The argument (docs/verification.md §4b, §4c) needs none of these
  // sizes; they check its implementation at full tiles and tails.
  int64_t sizes[8];
  MgSymbolicTest test = {sizes, mg_search_symbolic_test_sizes(g, sizes, 8),
                         mg_verify_options_default()};
  test.verify.target_error = o->verify_error;
  test.verify.seed = o->seed;
  MgSymbolicCheck check;
  MgStatus st = mg_search_symbolic_verify(full, g, &test, &check, &diag);
  MgStability s_full, s_g;
  if (st == MG_STATUS_OK && check.verdict == MG_VERDICT_EQUIVALENT &&
      mg_verify_stability(full, &s_full, &diag) == MG_STATUS_OK &&
      mg_verify_stability(g, &s_g, &diag) == MG_STATUS_OK &&
      mg_verify_keeps_stability(&s_full, &s_g))
    return g;
  if (st != MG_STATUS_OK)
    snprintf(why, why_size, "its field test at size %lld failed: %s",
             (long long)check.size, diag.message);
  else if (check.verdict != MG_VERDICT_EQUIVALENT)
    snprintf(why, why_size, "the field test at size %lld found it %s",
             (long long)check.size,
             check.verdict == MG_VERDICT_NOT_EQUIVALENT
                 ? "not equivalent"
                 : "unproven within the test budget");
  else
    snprintf(why, why_size, "it would make a stable exp unstable");
  mg_program_destroy(g);
  return NULL;
}

bool mg_symbolic_wins_at_largest(const MgProgram *full,
                                 const MgProgram *candidate,
                                 const MgSearchOptions *o) {
  int64_t n = mg_symbolic_sizes_of(full)[MG_SYMBOLIC_NUM_COST_SIZES - 1];
  MgProgram *a = mg_program_clone_at(full, n);
  MgProgram *b = mg_program_clone_at(candidate, n);
  bool wins = a && b &&
              mg_search_cost(b, o).time_s <= mg_search_cost(a, o).time_s;
  mg_program_destroy(a);
  mg_program_destroy(b);
  return wins;
}

MgProgram *mg_symbolic_answer(const MgProgram *full,
                              const MgSymbolicFound *found,
                              const MgSearchOptions *o, char *why,
                              size_t why_size) {
  why[0] = '\0';
  char other[400];
  for (uint32_t i = 0; i < found->n; i++) {
    MgProgram *g = answer_one(full, found->programs[i], found->at, o,
                              i ? other : why, i ? sizeof other : why_size);
    if (g)
      return g;
  }
  return NULL;
}

void mg_symbolic_remark_sizes(MlirLocation loc, const char *name,
                              const MgProgram *original,
                              const MgProgram *chosen,
                              const MgSearchOptions *o) {
  const MgGpu *gpu = mg_cost_gpu(o->target);
  for (int i = 0; i < MG_SYMBOLIC_NUM_COST_SIZES; i++) {
    int64_t n = mg_symbolic_sizes_of(original)[i];
    MgProgram *a = mg_program_clone_at(original, n);
    MgProgram *b = chosen ? mg_program_clone_at(chosen, n) : NULL;
    if (a && (b || !chosen)) {
      MgProgramBound bound;
      mg_cost_program_bound(a, gpu, &bound);
      double ta = mg_search_cost(a, o).time_s;
      if (b)
        mg_pass_remark(loc, "mirage-search: '@%s' at ?=%lld: estimated "
                            "%.2f us, the generalized μGraph %.2f us "
                            "(program bound %.3f us)",
                       name, (long long)n, 1e6 * ta,
                       1e6 * mg_search_cost(b, o).time_s, 1e6 * bound.time_s);
      else
        mg_pass_remark(loc, "mirage-search: '@%s' at ?=%lld: estimated "
                            "%.2f us (program bound %.3f us)",
                       name, (long long)n, 1e6 * ta, 1e6 * bound.time_s);
    }
    mg_program_destroy(a);
    mg_program_destroy(b);
  }
}
