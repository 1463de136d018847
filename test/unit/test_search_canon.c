//===- test_search_canon.c - Canonical forms, determinism, budgets --------===//
//
// - Canonical forms: every complete candidate the generator materializes
//   is a different program (hashes collected through on_candidate; equal
//   hashes are compared structurally), on small spaces with and without
//   abstract-expression pruning.
// - Determinism: threads = 1 and threads = 2 give the same verified set
//   (hashes in order), the same chosen program and the same counts.
// - Budgets: a tiny time budget stops cleanly and says so; so does a small
//   memory bound; the results are still valid.
// - Ablation: without abstract expressions the same best graph is found on
//   a small case.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // clock_gettime
#include "mirage/samples.h"
#include "mirage/search.h"
#include "test.h"

#include <string.h>
#include <time.h>

//===--- Duplicates ----------------------------------------------------===//
//
// Two candidates are duplicates when they are the same DAG of ops, in
// whatever order the ops are stored and whatever the tensor numbering:
// each tensor gets a structural hash from its producer and the hashes of
// the producer's operands (block graphs recursively), and a graph is keyed
// by the sorted multiset of its op hashes plus its outputs. Programs that
// differ only in op order collide on purpose; anything else differing
// (launch, maps, kinds, operand order) does not.

#define MERKLE_MAX 512

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t merkle_graph(const MgProgram *p, MgGraphId g);

static uint64_t merkle_op(const MgProgram *p, const MgGraph *gr,
                          const MgOp *op, const uint64_t *th) {
  uint64_t h = mg_hash_u64(0x6d65726bull, op->kind);
  h = mg_hash_u64(h, op->num_inputs);
  for (uint32_t k = 0; k < op->num_inputs; k++)
    h = mg_hash_u64(h, th[op->inputs[k]]);
  switch ((MgOpKind)op->kind) {
  case MG_OP_CUSTOM:
    h = mg_hash_u64(h, merkle_graph(p, (MgGraphId)op->attr));
    break;
  case MG_OP_INPUT: case MG_OP_SUM: case MG_OP_CONCAT:
    h = mg_hash_u64(h, (uint32_t)op->attr);
    break;
  case MG_OP_TRANSPOSE:
    h = mg_hash_bytes(h, op->perm, sizeof op->perm);
    break;
  case MG_OP_RESHAPE: case MG_OP_SLICE:
    h = mg_hash_u64(h, (uint32_t)op->attr);
    h = mg_hash_bytes(h, op->shape, sizeof op->shape);
    break;
  default:
    break;
  }
  h = mg_hash_u64(h, op->acc);
  h = mg_hash_bytes(h, op->imap, sizeof op->imap);
  h = mg_hash_u64(h, (uint8_t)op->fmap);
  h = mg_hash_bytes(h, op->omap, sizeof op->omap);
  h = mg_hash_bytes(h, &op->scalar, sizeof op->scalar);
  (void)gr;
  return h;
}

static uint64_t merkle_graph(const MgProgram *p, MgGraphId g) {
  const MgGraph *gr = &p->graphs[g];
  uint64_t th[MERKLE_MAX], oh[MERKLE_MAX];
  CHECK(gr->num_tensors <= MERKLE_MAX && gr->num_ops <= MERKLE_MAX);
  for (uint32_t i = 0; i < gr->num_ops && i < MERKLE_MAX; i++) {
    const MgOp *op = &gr->ops[i];
    oh[i] = merkle_op(p, gr, op, th);
    for (uint32_t k = 0; k < op->num_outputs; k++)
      if (op->outputs[k] < MERKLE_MAX)
        th[op->outputs[k]] = mg_hash_u64(oh[i], k);
  }
  qsort(oh, gr->num_ops, sizeof oh[0], cmp_u64);
  uint64_t h = mg_hash_u64(gr->level, gr->num_ops);
  for (int a = 0; a < 3; a++)
    h = mg_hash_u64(h, (uint32_t)gr->grid[a]);
  h = mg_hash_u64(h, (uint32_t)gr->forloop);
  h = mg_hash_bytes(h, oh, gr->num_ops * sizeof oh[0]);
  for (uint32_t i = 0; i < gr->num_outputs; i++)
    h = mg_hash_u64(h, th[gr->outputs[i]]);
  return h;
}

typedef struct Seen {
  uint32_t num, cap;
  uint64_t *key;
  uint32_t duplicates;
} Seen;

static void seen_add(const MgProgram *p, void *user) {
  Seen *s = user;
  uint64_t k = merkle_graph(p, 0);
  for (uint32_t i = 0; i < s->num; i++)
    if (s->key[i] == k) {
      s->duplicates++;
      return;
    }
  if (s->num == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->key = realloc(s->key, s->cap * sizeof *s->key);
  }
  s->key[s->num++] = k;
}

static void seen_free(Seen *s) {
  free(s->key);
  memset(s, 0, sizeof *s);
}

// The structural key sees through op order and tensor numbering.
static void test_search_merkle_key_ignores_op_order(void) {
  // sum_last(X) + X·1 built in two orders: (square, sum) vs (sum, square)
  // over independent inputs.
  int64_t dims[2] = {4, 8};
  MgProgram *a = mg_program_create(), *b = mg_program_create();
  mg_program_add_graph(a, MG_LEVEL_KERNEL);
  mg_program_add_graph(b, MG_LEVEL_KERNEL);
  MgTensorId xa = mg_graph_add_input(a, 0, MG_DTYPE_F16, 2, dims, NULL);
  MgTensorId ya = mg_graph_add_input(a, 0, MG_DTYPE_F16, 2, dims, NULL);
  MgTensorId xb = mg_graph_add_input(b, 0, MG_DTYPE_F16, 2, dims, NULL);
  MgTensorId yb = mg_graph_add_input(b, 0, MG_DTYPE_F16, 2, dims, NULL);
  MgTensorId sa = mg_graph_unary(a, 0, MG_OP_SQUARE, xa, NULL);
  MgTensorId ta = mg_graph_sum(a, 0, ya, 1, NULL);
  MgTensorId tb = mg_graph_sum(b, 0, yb, 1, NULL);
  MgTensorId sb = mg_graph_unary(b, 0, MG_OP_SQUARE, xb, NULL);
  mg_graph_mark_output(a, 0, mg_graph_binary(a, 0, MG_OP_ADD, sa, ta, NULL),
                       NULL);
  mg_graph_mark_output(b, 0, mg_graph_binary(b, 0, MG_OP_ADD, sb, tb, NULL),
                       NULL);
  CHECK(mg_program_hash(a) != mg_program_hash(b)); // different storage
  CHECK_EQ_INT(merkle_graph(a, 0), merkle_graph(b, 0)); // one DAG
  mg_program_destroy(b);
  b = mg_program_clone(a);
  b->graphs[0].ops[3].attr = 0; // sum over dim 0: another DAG
  CHECK(merkle_graph(a, 0) != merkle_graph(b, 0));
  mg_program_destroy(a);
  mg_program_destroy(b);
}

// Runs a search collecting every candidate; returns how many there were.
static uint32_t count_candidates(MgProgram *t, MgSearchOptions o,
                                 uint32_t *duplicates) {
  Seen seen;
  memset(&seen, 0, sizeof seen);
  o.on_candidate = seen_add;
  o.candidate_user_data = &seen;
  o.cut_prologues = false; // parts' candidates count in the stats only
  MgSearchResult r;
  MgDiag diag;
  CHECK_EQ_INT(mg_search_run(t, &o, &r, &diag), MG_STATUS_OK);
  CHECK(!r.stats.timed_out);
  CHECK_EQ_INT(r.stats.candidates, seen.num + seen.duplicates);
  uint32_t n = seen.num;
  *duplicates = seen.duplicates;
  mg_search_result_free(&r);
  seen_free(&seen);
  return n;
}

static void test_search_generates_no_duplicates(void) {
  struct {
    MgProgram *t;
    bool absexpr;
    uint32_t block_ops, unary_ops, kernel_ops;
  } cases[] = {
      {mg_sample_rmsnorm_matmul(2, 8, 16), true, 6, 3, 2},
      {mg_sample_lora(2, 8, 16, 2), true, 6, 2, 1},
      {mg_sample_attention(2, 4, 4, 16), true, 6, 2, 2},
      {mg_sample_gated_mlp(2, 8, 8), false, 4, 1, 1},
      {mg_sample_sum_last(4, 8), false, 3, 2, 2},
  };
  uint32_t total = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    MgSearchOptions o = mg_search_options_default();
    o.threads = 2;
    o.exhaustive = true; // every level, every candidate
    o.use_absexpr = cases[i].absexpr;
    o.max_block_ops = cases[i].block_ops;
    o.max_unary_ops = cases[i].unary_ops;
    o.max_kernel_ops = cases[i].kernel_ops;
    uint32_t dup = 0;
    uint32_t n = count_candidates(cases[i].t, o, &dup);
    CHECK(n > 0);
    CHECK_EQ_INT(dup, 0);
    total += n;
    mg_program_destroy(cases[i].t);
  }
  CHECK(total > 50);
}

//===--- Determinism -----------------------------------------------------===//

static void run_with_threads(MgProgram *t, uint32_t threads, bool exhaustive,
                             MgSearchResult *r) {
  MgSearchOptions o = mg_search_options_default();
  o.threads = threads;
  o.max_kernel_ops = 2;
  o.exhaustive = exhaustive;
  o.max_verified = 3;
  MgDiag diag;
  CHECK_EQ_INT(mg_search_run(t, &o, r, &diag), MG_STATUS_OK);
}

static void test_search_is_deterministic_across_threads(void) {
  MgProgram *targets[3] = {mg_sample_rmsnorm_matmul(2, 16, 32),
                           mg_sample_attention(2, 8, 4, 32),
                           mg_sample_ntrans(4, 16)};
  for (int k = 0; k < 3; k++) {
    MgSearchResult one, two;
    run_with_threads(targets[k], 1, k == 1, &one);
    run_with_threads(targets[k], 2, k == 1, &two);
    CHECK(one.num_found > 0);
    CHECK_EQ_INT(one.num_found, two.num_found);
    CHECK_EQ_INT(one.best, two.best);
    for (uint32_t i = 0; i < one.num_found && i < two.num_found; i++) {
      CHECK_EQ_INT(one.found[i].hash, two.found[i].hash);
      CHECK(mg_program_equal(one.found[i].program, two.found[i].program));
    }
    CHECK_EQ_INT(one.stats.threads, 1);
    CHECK_EQ_INT(two.stats.threads, 2);
    CHECK_EQ_INT(one.stats.states, two.stats.states);
    CHECK_EQ_INT(one.stats.candidates, two.stats.candidates);
    CHECK_EQ_INT(one.stats.evaluated, two.stats.evaluated);
    CHECK_EQ_INT(one.stats.verified, two.stats.verified);
    CHECK_EQ_INT(one.stats.tests_run, two.stats.tests_run);
    for (int rule = 0; rule < MG_SEARCH_RULE_COUNT; rule++)
      CHECK_EQ_INT(one.stats.pruned[rule], two.stats.pruned[rule]);
    mg_search_result_free(&one);
    mg_search_result_free(&two);
    mg_program_destroy(targets[k]);
  }
}

//===--- Budgets, progress -------------------------------------------------===//

// Every program a stopped search kept is equivalent to the target.
static void check_kept_verify(const MgProgram *t, const MgSearchResult *r) {
  for (uint32_t i = 0; i < r->num_found; i++) {
    MgVerifyResult vr;
    MgDiag diag;
    CHECK_EQ_INT(mg_verify_equivalent(t, r->found[i].program, NULL, &vr,
                                      &diag), MG_STATUS_OK);
    CHECK_EQ_INT(vr.verdict, MG_VERDICT_EQUIVALENT);
  }
}

static void count_progress(const MgSearchProgress *p, void *user) {
  uint32_t *calls = user;
  (*calls)++;
  CHECK(p->elapsed_s >= 0);
  CHECK(p->phase != NULL);
}

// CPU seconds of this process (all threads): unlike the wall clock, other
// work on the machine does not add to it.
static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void test_search_time_budget_stops_cleanly(void) {
  MgProgram *t = mg_sample_qknorm(2, 16, 8, 64);
  MgSearchOptions o = mg_search_options_default();
  o.threads = 2;
  o.time_budget_s = 0.01;
  o.exhaustive = true;
  uint32_t calls = 0;
  o.progress = count_progress;
  o.progress_user_data = &calls;
  o.progress_interval_s = 0.005;
  MgSearchResult r;
  MgDiag diag;
  double cpu0 = cpu_seconds();
  CHECK_EQ_INT(mg_search_run(t, &o, &r, &diag), MG_STATUS_OK);
  CHECK(r.stats.timed_out);
  // Stops soon after the budget: checked in CPU time, so a loaded machine
  // (less CPU per wall second) cannot fail it.
  CHECK(cpu_seconds() - cpu0 < 5.0);
  CHECK(calls > 0);
  check_kept_verify(t, &r); // whatever it kept verifies
  mg_search_result_free(&r);
  // Without a budget the same search completes and says it did.
  o.time_budget_s = 0;
  o.exhaustive = false;
  o.progress = NULL;
  CHECK_EQ_INT(mg_search_run(t, &o, &r, &diag), MG_STATUS_OK);
  CHECK(!r.stats.timed_out);
  CHECK(!r.stats.memory_limited);
  CHECK(r.num_found >= 1);
  CHECK(r.stats.memory_high_water > 0);
  CHECK(r.stats.memory_high_water < o.memory_limit);
  mg_search_result_free(&r);
  mg_program_destroy(t);
}

// Searching up to three kernels of QKNorm builds many menus; a 16 MiB bound
// stops enumeration, says so, and the result is still valid.
static void test_search_memory_bound_stops_enumeration(void) {
  MgProgram *t = mg_sample_qknorm(2, 8, 4, 16);
  MgSearchOptions o = mg_search_options_default();
  o.threads = 2;
  o.max_kernel_ops = 3;
  o.exhaustive = true;
  o.memory_limit = (uint64_t)16 << 20;
  MgSearchResult r;
  MgDiag diag;
  CHECK_EQ_INT(mg_search_run(t, &o, &r, &diag), MG_STATUS_OK);
  CHECK(r.stats.memory_limited);
  CHECK(!r.stats.timed_out);
  CHECK(r.stats.memory_high_water > o.memory_limit);
  CHECK(r.stats.memory_high_water < 4 * o.memory_limit);
  check_kept_verify(t, &r);
  mg_search_result_free(&r);
  mg_program_destroy(t);
}

// The work bound: with one thread the search stops at the same state on
// every run (the polls that read it are counted, not timed), reports it,
// tests what it found, and a time budget far too small to matter is not
// what stops it.
static void test_search_state_bound_is_reproducible(void) {
  MgProgram *t = mg_sample_qknorm(2, 16, 8, 64);
  MgSearchOptions o = mg_search_options_default();
  o.threads = 1;
  o.exhaustive = true;
  o.cut_prologues = false; // each part's search would have its own bound
  o.max_states = 2000;
  MgSearchResult a, b;
  MgDiag diag;
  CHECK_EQ_INT(mg_search_run(t, &o, &a, &diag), MG_STATUS_OK);
  CHECK_EQ_INT(mg_search_run(t, &o, &b, &diag), MG_STATUS_OK);
  CHECK(a.stats.states_limited);
  CHECK(!a.stats.timed_out);
  CHECK(a.stats.states >= o.max_states);
  CHECK(a.stats.states < o.max_states + 2000); // stops at the next polls
  CHECK_EQ_INT(a.stats.states, b.stats.states);
  CHECK_EQ_INT(a.stats.candidates, b.stats.candidates);
  CHECK_EQ_INT(a.stats.evaluated, b.stats.evaluated);
  CHECK_EQ_INT(a.num_found, b.num_found);
  for (uint32_t i = 0; i < a.num_found && i < b.num_found; i++)
    CHECK_EQ_INT(a.found[i].hash, b.found[i].hash);
  check_kept_verify(t, &a);
  mg_search_result_free(&a);
  mg_search_result_free(&b);
  // Without the bound the same search goes on past it.
  o.max_states = 0;
  o.exhaustive = false;
  CHECK_EQ_INT(mg_search_run(t, &o, &a, &diag), MG_STATUS_OK);
  CHECK(!a.stats.states_limited);
  CHECK(a.stats.states > 2000);
  mg_search_result_free(&a);
  mg_program_destroy(t);
}

//===--- Ablation ----------------------------------------------------------===//

static void test_search_ablation_finds_the_same_best(void) {
  MgProgram *targets[2] = {mg_sample_gated_mlp(2, 8, 8),
                           mg_sample_sum_last(4, 8)};
  uint32_t block_ops[2] = {5, 3}, unary_ops[2] = {1, 2};
  for (int k = 0; k < 2; k++) {
    MgSearchResult on, off;
    MgDiag diag;
    MgSearchOptions o = mg_search_options_default();
    o.threads = 2;
    o.max_kernel_ops = 1;
    o.max_block_ops = block_ops[k];
    o.max_unary_ops = unary_ops[k];
    o.rank = MG_SEARCH_RANK_PROXY; // the row sum has nothing cheaper
    CHECK_EQ_INT(mg_search_run(targets[k], &o, &on, &diag), MG_STATUS_OK);
    o.use_absexpr = false;
    CHECK_EQ_INT(mg_search_run(targets[k], &o, &off, &diag), MG_STATUS_OK);
    CHECK(on.stats.absexpr_used);
    CHECK(!off.stats.absexpr_used);
    CHECK_EQ_INT(off.stats.pruned[MG_SEARCH_RULE_ABSEXPR], 0);
    CHECK(on.num_found > 0 && off.num_found > 0);
    if (on.num_found && off.num_found)
      CHECK_EQ_INT(on.found[0].hash, off.found[0].hash);
    // Pruning never explores more.
    CHECK(off.stats.states >= on.stats.states);
    mg_search_result_free(&on);
    mg_search_result_free(&off);
    mg_program_destroy(targets[k]);
  }
}

int main(void) {
  RUN_TEST(test_search_merkle_key_ignores_op_order);
  RUN_TEST(test_search_generates_no_duplicates);
  RUN_TEST(test_search_is_deterministic_across_threads);
  RUN_TEST(test_search_time_budget_stops_cleanly);
  RUN_TEST(test_search_memory_bound_stops_enumeration);
  RUN_TEST(test_search_state_bound_is_reproducible);
  RUN_TEST(test_search_ablation_finds_the_same_best);
  return TEST_SUMMARY();
}
