//===- search.c - mg_search_run: levels, testing, the result --------------===//
//
// The driver. For L = 1, 2, ... max_kernel_ops: enumerate kernel graphs of
// exactly L ops (kernel.c), keep the max_candidates cheapest, test them in
// that order in the finite field (check.c) until max_verified are verified
// or the rest cannot beat a program already verified. Deepening stops:
//  - rank=proxy: at the first level that verified one (fewer kernels rank
//    first, so larger graphs could not win);
//  - rank=cost: when the cost model's lower bound for L kernels is no
//    better than the best verified estimate (no L-kernel program can win),
//    or `extra_levels` sizes after the first that verified one (a cap on
//    search time: larger sizes are costly to enumerate);
//  - never before max_kernel_ops when `exhaustive` is set.
//
// Determinism: candidates are tested one after the other in their (total)
// order; the workers share the tests of one candidate, which are read back
// in index order (check). So the verified set, the chosen program and the
// statistics are the same for any thread count:
//  - a candidate is skipped when an earlier one of the same structure (a
//    launch variant of the same block graphs) failed its fingerprint;
//  - testing stops at the max_verified-th verified candidate.
// A time budget or memory bound makes the outcome depend on timing; the
// stats say when that happened.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


//===--- Testing one level's candidates -----------------------------------===//

typedef struct Batch {
  const MgProgram *p;
  uint32_t first;            // test index of task 0
  TestOutcome out[256];
  MgVerifyResult diff[256];
} Batch;

static void test_task(Worker *w, uint32_t index, void *arg) {
  Batch *b = arg;
  memset(&b->diff[index], 0, sizeof b->diff[index]);
  b->out[index] = mg_check_test(w, b->p, b->first + index, &b->diff[index]);
}

typedef enum Verdict {
  VERDICT_VERIFIED,
  VERDICT_FINGERPRINT, // the first test that counts differed
  VERDICT_REJECTED,    // a later test differed, or no tests left
  VERDICT_WEAK_BOUND,  // the bound needs more than max_tests tests
  VERDICT_STOPPED,     // the budget ran out
} Verdict;

// Tests candidate `p`: its tests run in index order, up to one per worker
// at a time, and are read back in order, so the verdict does not depend on
// the number of workers.
static Verdict check(Search *s, Worker *workers, uint32_t nw,
                     const MgProgram *p, MgVerifyResult *r) {
  memset(r, 0, sizeof *r);
  r->verdict = MG_VERDICT_UNKNOWN;
  r->error_bound = 1.0;
  r->index = -1;
  double eps = mg_verify_test_bound(s->target, p);
  if (!(eps < 1.0))
    return VERDICT_WEAK_BOUND; // no bound: it cannot be verified
  double log2_eps = log2(eps), log2_goal = log2(s->opt.verify_error);
  if (ceil(log2_goal / log2_eps) > (double)s->opt.max_tests)
    return VERDICT_WEAK_BOUND;
  Batch *b = malloc(sizeof *b);
  if (!b) {
    atomic_store(&s->failed, true);
    return VERDICT_STOPPED;
  }
  b->p = p;
  uint32_t max = mg_check_max_tests(), t = 0;
  if (max > s->opt.max_tests + 8) // room for a few void tests
    max = s->opt.max_tests + 8;
  Verdict v = VERDICT_REJECTED;
  bool done = false;
  while (!done && t < max) {
    if (s->deadline > 0 && mg_clock_now() > s->deadline) {
      atomic_store(&s->timed_out, true);
      atomic_store(&s->stop, true);
    }
    if (atomic_load(&s->stop)) {
      v = VERDICT_STOPPED;
      break;
    }
    // Tests still needed if none is void.
    double need = ceil((log2_goal - r->log2_bound) / log2_eps);
    uint32_t n = need < 1 ? 1 : need > nw ? nw : (uint32_t)need;
    if (n > max - t)
      n = max - t;
    b->first = t;
    mg_search_parallel(s, workers, nw, n, test_task, b);
    for (uint32_t i = 0; i < n && !done; i++) {
      switch (b->out[i]) {
      case TEST_VOID_ALL:
        break;
      case TEST_VOID:
        r->redraws++;
        break;
      case TEST_ERROR:
        v = atomic_load(&s->stop) ? VERDICT_STOPPED : VERDICT_REJECTED;
        done = true;
        break;
      case TEST_DIFFER:
        r->tests++;
        r->verdict = MG_VERDICT_NOT_EQUIVALENT;
        r->error_bound = 0.0;
        r->log2_bound = -INFINITY;
        r->output = b->diff[i].output;
        r->index = b->diff[i].index;
        r->value_a = b->diff[i].value_a;
        r->value_b = b->diff[i].value_b;
        v = r->tests == 1 ? VERDICT_FINGERPRINT : VERDICT_REJECTED;
        done = true;
        break;
      case TEST_EQUAL:
        r->tests++;
        r->log2_bound += log2_eps;
        r->error_bound = exp2(r->log2_bound);
        if (r->log2_bound <= log2_goal) {
          r->verdict = MG_VERDICT_EQUIVALENT;
          v = VERDICT_VERIFIED;
          done = true;
        }
        break;
      }
    }
    t += n;
  }
  free(b);
  return v;
}

typedef struct Found {
  uint32_t n, cap;
  MgSearchFound *items;
} Found;

static bool found_add(Found *f, Kept *k, const MgVerifyResult *check) {
  if (!mg_array_reserve(&f->items, &f->cap, f->n + 1, sizeof *f->items, 4))
    return false;
  MgSearchFound *x = &f->items[f->n++];
  x->program = k->program;
  x->cost = k->cost;
  x->hash = k->hash;
  x->check = *check;
  x->num_parts = 0;
  k->program = NULL;
  return true;
}

static uint32_t best_index(const Found *f) {
  uint32_t best = 0;
  for (uint32_t i = 1; i < f->n; i++)
    if (mg_search_cost_compare(&f->items[i].cost, &f->items[best].cost) < 0)
      best = i;
  return best;
}

static double best_time(const Found *f) {
  return f->n ? f->items[best_index(f)].cost.time_s : INFINITY;
}

// The target cut at its prologues (cut.c), kept in `found` when its parts
// composed into a program cheaper than every program found so far.
static bool add_cut(Search *s, Found *found, MgSearchStats *st) {
  MgVerifyResult check;
  MgProgram *parts[MG_SEARCH_MAX_PARTS];
  uint32_t num_parts = 0;
  MgProgram *p = mg_search_cut(s, st, &check, parts, &num_parts);
  if (!p)
    return true;
  Kept k = {p, mg_search_cost(p, &s->opt), mg_program_hash(p), 0};
  MgSearchCost bar = mg_search_cost(s->target, &s->opt);
  if (found->n &&
      mg_search_cost_compare(&found->items[best_index(found)].cost, &bar) < 0)
    bar = found->items[best_index(found)].cost;
  bool cheaper = mg_search_cost_compare(&k.cost, &bar) < 0;
  // Listed before `found` takes it; each part was verified on its own.
  bool ok = mg_explain_offer(&s->explain, &k,
                             cheaper ? MG_SEARCH_FATE_VERIFIED
                                     : MG_SEARCH_FATE_NOT_CHEAPER,
                             &check, num_parts);
  bool taken = false;
  if (ok && cheaper) {
    ok = found_add(found, &k, &check);
    taken = ok && !k.program;
  }
  mg_program_destroy(k.program); // NULL when `found` took it
  MgSearchFound *x = taken ? &found->items[found->n - 1] : NULL;
  for (uint32_t i = 0; i < num_parts; i++) {
    if (x)
      x->parts[i] = parts[i];
    else
      mg_program_destroy(parts[i]);
  }
  if (x)
    x->num_parts = num_parts;
  return ok;
}

// One search_logical call: the search, its workers, the programs verified
// so far, the candidates of a size whose testing was put off
// (search_levels; one size at most), and the statistics it fills.
typedef struct Run {
  Search *s;
  Worker *workers;
  uint32_t nw;
  Found found;
  Collector pending;
  MgSearchStats *stats;
} Run;

// Tests the collected candidates in order; moves the verified ones into
// run->found. A candidate is skipped when an earlier one of the same structure
// (a launch variant of the same block graphs) failed its fingerprint.
// Candidates that do not rank before `bar` (the best verified so far, NULL
// when none) are not tested unless the search is exhaustive. `x` (NULL:
// none) gets the fate of each of the first candidates (explain.c).
static bool evaluate(Run *run, Collector *c, const MgSearchCost *bar,
                     ExplainRound *x) {
  Search *s = run->s;
  Found *found = &run->found;
  MgSearchStats *st = run->stats;
  bool ok = true;
  uint32_t verified = 0;
  uint64_t *failed = calloc(c->num + 1, sizeof *failed);
  uint32_t num_failed = 0;
  if (!failed)
    return false;
  s->verifying = true;
  for (uint32_t i = 0; i < c->num && verified < s->opt.max_verified; i++) {
    if (bar && !s->opt.exhaustive &&
        mg_search_cost_compare(&c->items[i].cost, bar) >= 0) {
      st->cost_skips += c->num - i; // sorted: the rest cannot win either
      for (uint32_t j = i; x && j < x->n; j++)
        mg_explain_note(x, j, MG_SEARCH_FATE_NOT_CHEAPER, NULL);
      break;
    }
    bool sibling = false;
    for (uint32_t j = 0; j < num_failed && !sibling; j++)
      sibling = failed[j] == c->items[i].structure;
    if (sibling) {
      st->sibling_skips++;
      mg_explain_note(x, i, MG_SEARCH_FATE_SIBLING, NULL);
      continue;
    }
    // Stability is part of equivalence: a candidate that drops a max
    // subtraction the target has is algebraically equal (the field test
    // would accept it) but overflows. The first one is still tested, so
    // that the statistics can say it was equal and rejected for this.
    // Only a target whose exps are all guarded constrains candidates.
    MgStability cs;
    bool unstable =
        s->facts.stability.exps && !s->facts.stability.unguarded &&
        mg_verify_stability(c->items[i].program, &cs, NULL) == MG_STATUS_OK &&
        !mg_verify_keeps_stability(&s->facts.stability, &cs);
    if (unstable && st->unstable++ > 0) {
      mg_explain_note(x, i, MG_SEARCH_FATE_UNSTABLE, NULL);
      continue;
    }
    MgVerifyResult r;
    Verdict v = check(s, run->workers, run->nw, c->items[i].program, &r);
    if (v == VERDICT_STOPPED) {
      for (uint32_t j = i; x && j < x->n; j++)
        mg_explain_note(x, j, MG_SEARCH_FATE_STOPPED, NULL);
      break; // the budget ran out here
    }
    if (unstable) {
      st->tests_run += r.tests + r.redraws;
      st->unstable_equal += v == VERDICT_VERIFIED;
      mg_explain_note(x, i, MG_SEARCH_FATE_UNSTABLE, &r);
      continue;
    }
    st->evaluated++;
    st->tests_run += r.tests + r.redraws;
    atomic_fetch_add(&s->live_evaluated, 1);
    switch (v) {
    case VERDICT_VERIFIED:
      st->verified++;
      verified++;
      atomic_fetch_add(&s->live_verified, 1);
      mg_explain_note(x, i, MG_SEARCH_FATE_VERIFIED, &r);
      ok &= found_add(found, &c->items[i], &r);
      break;
    case VERDICT_FINGERPRINT:
      st->fingerprint_mismatches++;
      failed[num_failed++] = c->items[i].structure;
      mg_explain_note(x, i, MG_SEARCH_FATE_FINGERPRINT, &r);
      break;
    case VERDICT_WEAK_BOUND:
      st->weak_bound++;
      st->verifier_rejected++;
      mg_explain_note(x, i, MG_SEARCH_FATE_WEAK_BOUND, &r);
      break;
    default:
      st->verifier_rejected++;
      mg_explain_note(x, i, MG_SEARCH_FATE_REJECTED, &r);
      break;
    }
  }
  s->verifying = false;
  free(failed);
  return ok;
}

//===--- Setup and teardown -----------------------------------------------===//

static void free_menus(Search *s, MgSearchStats *st) {
  if (!s->menu_table)
    return;
  for (uint32_t b = 0; b < s->menu_buckets; b++) {
    MenuSlot *m = s->menu_table[b];
    while (m) {
      MenuSlot *next = m->next;
      if (m->menu)
        st->recipes_dropped += m->menu->dropped;
      mg_menu_destroy(m->menu);
      free(m);
      m = next;
    }
  }
  free(s->menu_table);
  s->menu_table = NULL;
}

uint32_t mg_search_threads(const MgSearchOptions *o) {
  if (o->threads)
    return o->threads;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 256 ? 256 : (uint32_t)n;
}

static MgStatus check_target(const MgProgram *t, MgDiag *diag) {
  if (!t || t->num_graphs == 0 || !t->graphs ||
      t->graphs[0].level != MG_LEVEL_KERNEL)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "target has no root kernel graph");
  return mg_program_validate(t, mg_target_unlimited(), diag);
}

static int cmp_found(const void *pa, const void *pb) {
  const MgSearchFound *a = pa, *b = pb;
  int c = mg_search_cost_compare(&a->cost, &b->cost);
  if (!c)
    c = a->hash < b->hash ? -1 : a->hash > b->hash;
  return c;
}

static int cmp_reason(const void *pa, const void *pb) {
  return strcmp(((const MgSearchReason *)pa)->text,
                ((const MgSearchReason *)pb)->text);
}

// Tests the candidates `c` collected (evaluate) against the bar: the
// target, or the best found so far when it ranks before it (under
// rank=proxy any program found is the bar, and without one nothing is).
// The time counts as verification (the cut's searches count their own).
static bool test_collected(Run *run, Collector *c,
                           const MgSearchCost *target_cost) {
  Search *s = run->s;
  const Found *found = &run->found;
  double t0 = mg_clock_now();
  // A copy: testing appends to `found`, which may move its items.
  MgSearchCost bar = *target_cost;
  bool proxy = s->opt.rank == MG_SEARCH_RANK_PROXY;
  if (found->n &&
      (proxy || mg_search_cost_compare(&found->items[best_index(found)].cost,
                                       &bar) < 0))
    bar = found->items[best_index(found)].cost;
  bool has_bar = found->n || !proxy;
  // The explanation snapshots the first candidates before testing moves
  // the verified ones into `found`, and lists them after.
  ExplainRound x;
  bool ok = mg_explain_round_begin(&x, &s->explain, c);
  ok = ok && evaluate(run, c, has_bar ? &bar : NULL, &x);
  ok &= mg_explain_round_end(&x, &s->explain);
  run->stats->verify_s += mg_clock_now() - t0;
  return ok;
}

// A search over target with checked options; NULL when out of memory. Its
// menu table may be missing (the caller checks).
static Search *search_create(const MgProgram *target,
                             const MgSearchOptions *opt) {
  Search *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->target = target;
  s->opt = *opt;
  mg_explain_init(&s->explain, opt->explain_top);
  s->gpu = opt->target ? opt->target : mg_target_default();
  s->min_blocks = opt->min_blocks ? opt->min_blocks
                                  : mg_cost_gpu(s->gpu)->sms;
  s->max_work = opt->max_work_ratio * mg_search_work(target);
  s->start = mg_clock_now();
  if (opt->time_budget_s > 0) {
    s->deadline = s->start + opt->time_budget_s;
    s->enum_deadline = s->start + 0.6 * opt->time_budget_s;
  }
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->menu_ready, NULL);
  s->menu_buckets = 1024;
  s->menu_table = calloc(s->menu_buckets, sizeof *s->menu_table);
  return s;
}

// What the search needs to know about its target before enumerating: the
// abstract expressions for pruning, stability facts, the analysis, and
// the checker.
static MgStatus search_prepare(Search *s, MgSearchStats *stats,
                               MgDiag *diag) {
  if (s->opt.use_absexpr) {
    MgDiag ad;
    s->abs = mg_absexpr_create(s->target, &s->opt.absexpr, &ad);
    // A target the e-graph cannot take is searched without pruning.
    if (s->abs)
      stats->absexpr_saturated = mg_absexpr_stats(s->abs).saturated;
  }
  stats->absexpr_used = s->abs != NULL;
  MgStatus st = mg_verify_stability(s->target, &s->facts.stability, diag);
  if (st == MG_STATUS_OK)
    st = mg_search_analyze(s, diag);
  if (st == MG_STATUS_OK)
    st = mg_check_create(s, diag);
  return st;
}

// Whether the search ends before this kernel graph size: a stop, or
// (unless exhaustive) enough sizes past the first verified program, or no
// program of this size could beat the best found (cost lower bound).
static bool stop_before_level(Search *s, uint32_t level,
                              uint32_t first_found, const Found *found,
                              const MgGpu *gpu, MgSearchStats *stats) {
  if (atomic_load(&s->stop) || atomic_load(&s->enum_stop))
    return true;
  if (!first_found || s->opt.exhaustive)
    return false;
  if (s->opt.rank == MG_SEARCH_RANK_PROXY ||
      level > first_found + s->opt.extra_levels)
    return true;
  if (mg_cost_lower_bound(s->target, level, gpu) >= best_time(found)) {
    stats->cost_bound_stop = true;
    return true;
  }
  return false;
}

// Enumerates the current level's candidates and gathers them, with the
// put-off ones, into all (initialized here); false when out of memory.
static bool collect_level(Run *run, Collector *all) {
  double t0 = mg_clock_now();
  mg_kernel_level(run->s, run->workers, run->nw);
  mg_collector_init(all, run->s->opt.max_candidates);
  bool ok = true;
  for (uint32_t i = 0; i < run->nw; i++)
    ok &= mg_collector_merge(all, &run->workers[i].collector);
  ok &= mg_collector_merge(all, &run->pending);
  run->stats->enumerate_s += mg_clock_now() - t0;
  return ok;
}

// Nothing found yet and even the cheapest candidate of this size is
// estimated far slower than an ideal implementation of the input's own
// kernels (its roofline): the emitted code of this size loses much to the
// ideal, and a larger kernel graph may lower better (GQA's one-kernel form
// against split-KV). So this size's candidates are not tested now
// (whole-shape field tests are the search's costliest step): the next size
// is searched and both are tested together, in one cost order.
static bool should_defer(const Search *s, uint32_t level, bool deferred,
                         const Found *found, const Collector *all,
                         double target_roofline) {
  return s->opt.rank == MG_SEARCH_RANK_COST && !s->opt.exhaustive &&
         !deferred && found->n == 0 && level < s->opt.max_kernel_ops &&
         all->num > 0 &&
         all->items[0].cost.time_s > MG_SEARCH_DEFER_RATIO * target_roofline;
}

// Searches kernel graphs of growing size, testing each size's candidates
// (or putting one size's off into pending, tested with the next).
static MgStatus search_levels(Run *run, MgDiag *diag) {
  Search *s = run->s;
  Found *found = &run->found;
  Collector *pending = &run->pending;
  MgSearchStats *stats = run->stats;
  const MgGpu *gpu = mg_cost_gpu(s->gpu);
  // Under rank=cost the target itself is the first bar: a candidate no
  // cheaper than it is not worth testing.
  MgSearchCost target_cost = mg_search_cost(s->target, &s->opt);
  double target_roofline = mg_cost_program(s->target, gpu);
  uint32_t first_found = 0; // level that verified the first program
  bool deferred = false;
  for (uint32_t level = 1; level <= s->opt.max_kernel_ops; level++) {
    if (stop_before_level(s, level, first_found, found, gpu, stats))
      break;
    s->level = level;
    stats->kernel_ops_searched = level;
    Collector all;
    bool ok = collect_level(run, &all);
    uint32_t before = found->n;
    // The cut first: its composed program is usually the bar that spares
    // testing the whole target's one-kernel candidates (whole-shape field
    // tests are the search's costliest step).
    if (ok && level == 1 && s->opt.rank == MG_SEARCH_RANK_COST &&
        s->opt.cut_prologues && !atomic_load(&s->stop))
      ok = add_cut(s, found, stats);
    if (ok && should_defer(s, level, deferred, found, &all, target_roofline)) {
      deferred = true;
      ok = mg_collector_merge(pending, &all);
      mg_collector_dispose(&all);
      if (!ok)
        return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1,
                           "out of memory during the search");
      continue;
    }
    if (ok && !atomic_load(&s->failed))
      ok = test_collected(run, &all, &target_cost);
    mg_collector_dispose(&all);
    if (!ok || atomic_load(&s->failed))
      return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1,
                         "out of memory during the search");
    if (found->n > before && !first_found)
      first_found = level;
  }
  // Put off, and no larger size came to test them with (a stop, or the
  // loop's end).
  if (pending->num && !atomic_load(&s->failed) &&
      !test_collected(run, pending, &target_cost))
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1,
                       "out of memory during the search");
  return MG_STATUS_OK;
}

// Frees the search, its workers and pending candidates, after folding
// their statistics into run->stats and the explanation into result
// (run->found stays).
static void search_destroy(Run *run, MgSearchResult *result) {
  Search *s = run->s;
  Worker *workers = run->workers;
  uint32_t nw = run->nw;
  MgSearchStats *stats = run->stats;
  mg_collector_dispose(&run->pending);
  for (uint32_t i = 0; workers && i < nw; i++) {
    mg_stats_add(stats, &workers[i].stats);
    mg_collector_dispose(&workers[i].collector);
    mg_check_worker_dispose(&workers[i]);
  }
  free(workers);
  free_menus(s, stats);
  mg_check_destroy(s);
  mg_absexpr_destroy(s->abs);
  stats->canonical_skips = stats->pruned[MG_SEARCH_RULE_CANONICAL];
  qsort(stats->reasons, stats->num_reasons, sizeof stats->reasons[0],
        cmp_reason);
  stats->timed_out = atomic_load(&s->timed_out);
  stats->memory_limited = atomic_load(&s->memory_limited);
  stats->states_limited = atomic_load(&s->states_limited);
  stats->memory_high_water = atomic_load(&s->memory_high);
  stats->elapsed_s = mg_clock_now() - s->start;
  pthread_mutex_destroy(&s->lock);
  pthread_cond_destroy(&s->menu_ready);
  mg_explain_move(&s->explain, result);
  free(s);
}

static MgStatus search_logical(const MgProgram *target,
                               const MgSearchOptions *options,
                               MgSearchResult *result, MgDiag *diag) {
  if (!result)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "no result slot");
  memset(result, 0, sizeof *result);
  result->best = -1;
  MgSearchOptions opt = options ? *options : mg_search_options_default();
  MgStatus st = mg_search_check_options(&opt, diag);
  if (st == MG_STATUS_OK)
    st = check_target(target, diag);
  if (st != MG_STATUS_OK)
    return st;

  Search *s = search_create(target, &opt);
  if (!s)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  Run run = {s, NULL, mg_search_threads(&opt), {0, 0, NULL}, {0},
             &result->stats};
  run.workers = calloc(run.nw, sizeof *run.workers);
  mg_collector_init(&run.pending, opt.max_candidates);
  if (!s->menu_table || !run.workers)
    st = mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  else
    st = search_prepare(s, run.stats, diag);
  if (st == MG_STATUS_OK) {
    for (uint32_t i = 0; i < run.nw; i++) {
      run.workers[i].s = s;
      run.workers[i].index = i;
      mg_collector_init(&run.workers[i].collector, opt.max_candidates);
    }
    run.stats->threads = run.nw;
    st = search_levels(&run, diag);
  }
  search_destroy(&run, result);
  Found found = run.found;
  if (found.n)
    qsort(found.items, found.n, sizeof *found.items, cmp_found);
  result->found = found.items;
  result->num_found = found.n;
  result->best = found.n ? 0 : -1;
  if (st != MG_STATUS_OK)
    mg_search_result_free(result);
  return st;
}

void mg_search_result_free(MgSearchResult *result) {
  if (!result)
    return;
  for (uint32_t i = 0; i < result->num_found; i++) {
    mg_program_destroy(result->found[i].program);
    for (uint32_t k = 0; k < result->found[i].num_parts; k++)
      mg_program_destroy(result->found[i].parts[k]);
  }
  free(result->found);
  for (uint32_t i = 0; i < result->num_top; i++)
    mg_program_destroy(result->top[i].program);
  free(result->top);
  MgSearchStats stats = result->stats;
  memset(result, 0, sizeof *result);
  result->stats = stats; // the counts stay readable after a failure
  result->best = -1;
}

const MgProgram *mg_search_result_best(const MgSearchResult *result) {
  if (!result || result->best < 0 ||
      (uint32_t)result->best >= result->num_found)
    return NULL;
  return result->found[result->best].program;
}

// Input layouts do not change what a program computes, so the search runs
// on the logical target and every program found gets the target's layouts.
MgStatus mg_search_run(const MgProgram *target, const MgSearchOptions *options,
                       MgSearchResult *result, MgDiag *diag) {
  if (target && target->num_graphs && result && mg_search_has_views(target))
    return mg_search_views(target, options, result, diag);
  if (!target || !target->num_graphs || !mg_program_has_layouts(target))
    return search_logical(target, options, result, diag);
  MgProgram *logical = mg_program_clone(target);
  if (!logical) {
    if (result) {
      memset(result, 0, sizeof *result);
      result->best = -1;
    }
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  }
  mg_program_clear_layouts(logical);
  MgSearchOptions laid = options ? *options : mg_search_options_default();
  laid.layouts = target;
  // Candidates are generalized before they get the layouts, so against
  // the program with symbols without its layouts.
  MgProgram *symbolic = NULL;
  if (laid.symbolic) {
    symbolic = mg_program_clone(laid.symbolic);
    if (symbolic)
      mg_program_clear_layouts(symbolic);
    laid.symbolic = symbolic;
  }
  MgStatus st = search_logical(logical, &laid, result, diag);
  mg_program_destroy(logical);
  mg_program_destroy(symbolic);
  // A program whose block graphs cannot take the layouts is dropped.
  uint32_t kept = 0;
  for (uint32_t i = 0; st == MG_STATUS_OK && i < result->num_found; i++) {
    MgSearchFound *f = &result->found[i];
    MgDiag d;
    if (mg_program_copy_layouts(f->program, target, &d) != MG_STATUS_OK ||
        mg_program_validate(f->program, options ? options->target : NULL,
                            &d) != MG_STATUS_OK) {
      mg_program_destroy(f->program);
      for (uint32_t k = 0; k < f->num_parts; k++)
        mg_program_destroy(f->parts[k]);
      continue;
    }
    f->hash = mg_program_hash(f->program);
    result->found[kept++] = *f;
  }
  // The explanation's candidates get the layouts too, so that their
  // figures are those of the programs the caller would get (one that
  // cannot take them stays as the search ranked it).
  for (uint32_t i = 0; st == MG_STATUS_OK && i < result->num_top; i++) {
    MgSearchCandidate *c = &result->top[i];
    MgDiag d;
    if (mg_program_copy_layouts(c->program, target, &d) != MG_STATUS_OK)
      mg_program_clear_layouts(c->program);
    c->hash = mg_program_hash(c->program);
  }
  if (st == MG_STATUS_OK) {
    result->num_found = kept;
    result->best = kept ? 0 : -1;
  }
  return st;
}
