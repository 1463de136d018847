//===- check.c - Finite-field tests against cached target outputs ---------===//
//
// The same tests as mg_verify_equivalent (lib/verify: inputs uniform in
// Z_p × Z_q, a fresh uninterpreted-function key per test, outputs compared
// on their p components, per-test bound from the degrees of both programs,
// tests repeated until the product of bounds is below verify_error), with
// one difference that matters at the paper's shapes: test t's inputs and
// the target's outputs on them are computed once per search and shared by
// every candidate, so a candidate test costs one run instead of two.
//
// A test is void for everyone when the target meets a zero divisor on it,
// and void for one candidate when that candidate does (conditioning on the
// absence of zero divisors, as lib/verify does). The driver (search.c) runs
// a candidate's tests in index order, several at once, and reads them back
// in order: the first test that is not void doubles as the fingerprint.
//
// Cache invariant: tests[t] moves from EMPTY to BUSY (one worker computes
// it, others wait) to READY and never changes afterwards. Inputs are kept
// while their bytes fit a quarter of the memory limit; later tests
// regenerate them from the key (same values) in the worker's scratch.
//
// The draw, the uninterpreted-function key and the comparison are lib/
// verify's own (mg_ff_draw_inputs, mg_ff_rekey_test, mg_ff_first_difference
// in ff_domain.h), so the two cannot drift apart.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include "mirage/ff_domain.h"

#include <stdlib.h>
#include <string.h>

#define CHECK_MAX_TESTS 64
#define CHECK_SALT 0x7365617263680000ull

enum { TEST_EMPTY, TEST_BUSY, TEST_READY };

typedef struct Test {
  int state;
  bool void_test;     // the target meets a zero divisor
  bool failed;        // the target could not run (no memory)
  MgBuffer *inputs;   // NULL when not cached
  MgBuffer *outputs;  // the target's outputs
} Test;

struct CheckCache {
  double *bounds; // the target's bounding constants (candidates take its
  uint32_t num_bounds; // scalars), in every worker's max order
  uint32_t num_inputs, num_outputs;
  MgTensor in_type[MG_MAX_OP_INPUTS * 2];
  uint64_t input_bytes;   // one test's inputs
  uint64_t target_bytes;  // one run of the target (run_bytes)
  uint64_t cached_bytes;
  uint64_t cache_cap;
  Test tests[CHECK_MAX_TESTS];
  pthread_mutex_t lock;
  pthread_cond_t ready;
};

struct WorkerFf {
  MgFfContext ctx;
  MgBuffer *inputs; // scratch for uncached tests
  MgBuffer *outs;
};

static void free_buffers(MgBuffer *b, uint32_t n) {
  if (!b)
    return;
  for (uint32_t i = 0; i < n; i++)
    mg_buffer_free(&b[i]);
  free(b);
}

static uint64_t run_bytes(const MgProgram *p);

// Stops the search at the memory bound (not a failure: stats say so).
static void stop_at_bound(Search *s) {
  atomic_store(&s->memory_limited, true);
  atomic_store(&s->stop, true);
}

MgStatus mg_check_create(Search *s, MgDiag *diag) {
  CheckCache *c = calloc(1, sizeof *c);
  if (!c)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  c->num_bounds = mg_ff_collect_bounds(s->target, NULL, &c->bounds);
  if (c->num_bounds == UINT32_MAX) {
    free(c);
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  }
  c->num_inputs = s->facts.num_inputs;
  c->num_outputs = s->facts.outputs.n;
  for (uint32_t i = 0; i < s->facts.num_inputs; i++) {
    c->in_type[i] = s->facts.in_type[i];
    c->input_bytes +=
        (uint64_t)mg_tensor_numel(&s->facts.in_type[i]) * sizeof(MgCell);
  }
  c->cache_cap = s->opt.memory_limit / 4;
  // One test of the target needs its inputs and every kernel tensor at
  // once (run_bytes counts the inputs too). A target that cannot be tested
  // within the bound cannot be verified at all: stop before enumerating,
  // before any of it is allocated.
  c->target_bytes = run_bytes(s->target);
  if (c->target_bytes > s->opt.memory_limit)
    stop_at_bound(s);
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->ready, NULL);
  s->check = c;
  return MG_STATUS_OK;
}

void mg_check_destroy(Search *s) {
  CheckCache *c = s->check;
  if (!c)
    return;
  for (uint32_t t = 0; t < CHECK_MAX_TESTS; t++) {
    free_buffers(c->tests[t].inputs, c->num_inputs);
    free_buffers(c->tests[t].outputs, c->num_outputs);
  }
  pthread_mutex_destroy(&c->lock);
  pthread_cond_destroy(&c->ready);
  free(c->bounds);
  free(c);
  s->check = NULL;
}

void mg_check_worker_dispose(Worker *w) {
  WorkerFf *f = w->ff;
  if (!f)
    return;
  CheckCache *c = w->s->check;
  mg_ff_context_dispose(&f->ctx);
  if (f->inputs && c)
    mg_search_memory(w->s, -(int64_t)c->input_bytes);
  free_buffers(f->inputs, c ? c->num_inputs : 0);
  free(f->outs);
  free(f);
  w->ff = NULL;
}

static WorkerFf *worker_ff(Worker *w) {
  if (w->ff)
    return w->ff;
  CheckCache *c = w->s->check;
  WorkerFf *f = calloc(1, sizeof *f);
  if (!f)
    return NULL;
  mg_ff_context_init(&f->ctx, 0);
  mg_ff_context_set_bounds(&f->ctx, c->bounds, c->num_bounds);
  f->ctx.deadline = w->s->deadline; // a huge run must not outlive the budget
  f->outs = calloc(c->num_outputs + 1, sizeof *f->outs);
  if (!f->outs) {
    free(f);
    return NULL;
  }
  w->ff = f;
  return f;
}

static uint64_t test_key(uint64_t seed, uint32_t t) {
  return mg_hash_u64(mg_hash_u64(seed, CHECK_SALT), t);
}

// Allocates (when needed) and fills the inputs of test key `key`.
static MgBuffer *fill_inputs(const CheckCache *c, MgBuffer *b, uint64_t key) {
  if (!b) {
    b = calloc(c->num_inputs + 1, sizeof *b);
    if (!b)
      return NULL;
    for (uint32_t i = 0; i < c->num_inputs; i++)
      if (!mg_buffer_alloc(&b[i], c->in_type[i].rank, c->in_type[i].dims)) {
        free_buffers(b, c->num_inputs);
        return NULL;
      }
  }
  mg_ff_draw_inputs(b, c->num_inputs, key);
  return b;
}

// One run of a test: its inputs, its uninterpreted-function key and the
// buffers the outputs go to.
typedef struct TestRun {
  const MgBuffer *inputs;
  uint64_t key;
  MgBuffer *outs;
} TestRun;

// Runs `p` as test run `tr`; *void_test on a zero divisor.
static MgStatus run(WorkerFf *f, const MgProgram *p, TestRun tr,
                    bool *void_test) {
  mg_ff_rekey_test(&f->ctx, tr.key);
  *void_test = false;
  MgStatus st =
      mg_exec_run(p, mg_ff_domain(), &f->ctx, tr.inputs, tr.outs, NULL);
  if (st != MG_STATUS_OK && f->ctx.fault == MG_FF_FAULT_ZERO_DIVISOR) {
    *void_test = true;
    return MG_STATUS_OK;
  }
  return st;
}

// Upper bound of the bytes one finite-field run of `p` holds: every tensor
// of the kernel graph at once, plus the tiles of its block graphs (their
// inputs and saver results alias kernel tensors).
static uint64_t run_bytes(const MgProgram *p) {
  uint64_t cells = 0;
  for (uint32_t g = 0; g < p->num_graphs; g++) {
    const MgGraph *gr = &p->graphs[g];
    for (uint32_t t = 0; t < gr->num_tensors; t++) {
      uint8_t kind = gr->ops[gr->tensors[t].producer].kind;
      if (g == 0 || (kind != MG_OP_INPUT && kind != MG_OP_SAVER))
        cells += (uint64_t)mg_tensor_numel(&gr->tensors[t]);
    }
  }
  return cells * sizeof(MgCell);
}

// Runs under the memory bound: the run's bytes are accounted while it runs;
// one that would cross the bound is not started and stops the search, as the
// bound does elsewhere.
static MgStatus run_bounded(Search *s, WorkerFf *f, const MgProgram *p,
                            TestRun tr, bool *void_test) {
  uint64_t bytes = run_bytes(p);
  if (atomic_load(&s->memory) + bytes > s->opt.memory_limit) {
    stop_at_bound(s);
    *void_test = false;
    return MG_STATUS_BUDGET;
  }
  mg_search_memory(s, (int64_t)bytes);
  MgStatus st = run(f, p, tr, void_test);
  mg_search_memory(s, -(int64_t)bytes);
  return st;
}

// A run abandoned at the deadline stops the search as the budget does
// elsewhere (timed out, not failed).
static bool stopped_by_deadline(Search *s, const WorkerFf *f) {
  if (f->ctx.fault != MG_FF_FAULT_DEADLINE)
    return false;
  atomic_store(&s->timed_out, true);
  atomic_store(&s->stop, true);
  return true;
}

// The worker's scratch inputs filled for test key `key`; allocated (and
// accounted under the bound) on first use; NULL when they do not fit.
static MgBuffer *scratch_inputs(Search *s, WorkerFf *f, uint64_t key) {
  CheckCache *c = s->check;
  if (!f->inputs) {
    if (atomic_load(&s->memory) + c->input_bytes > s->opt.memory_limit) {
      stop_at_bound(s);
      return NULL;
    }
    mg_search_memory(s, (int64_t)c->input_bytes);
    if (!(f->inputs = fill_inputs(c, NULL, key))) {
      mg_search_memory(s, -(int64_t)c->input_bytes);
      return NULL;
    }
    return f->inputs;
  }
  return fill_inputs(c, f->inputs, key);
}

// The inputs of test t for this worker (cached or regenerated).
static const MgBuffer *inputs_of(Worker *w, WorkerFf *f, const Test *test,
                                 uint32_t t) {
  if (test->inputs)
    return test->inputs;
  return scratch_inputs(w->s, f, test_key(w->s->opt.seed, t));
}

static const Test *get_test(Worker *w, WorkerFf *f, uint32_t t) {
  Search *s = w->s;
  CheckCache *c = s->check;
  Test *test = &c->tests[t];
  pthread_mutex_lock(&c->lock);
  while (test->state == TEST_BUSY)
    pthread_cond_wait(&c->ready, &c->lock);
  if (test->state == TEST_READY) {
    pthread_mutex_unlock(&c->lock);
    return test;
  }
  test->state = TEST_BUSY;
  bool cache = c->cached_bytes + c->input_bytes <= c->cache_cap;
  if (cache)
    c->cached_bytes += c->input_bytes;
  pthread_mutex_unlock(&c->lock);

  uint64_t key = test_key(s->opt.seed, t);
  // Cached inputs are accounted once filled (below), so they are checked
  // against the bound first, with the run they are for.
  bool over = cache && atomic_load(&s->memory) + c->input_bytes +
                               c->target_bytes >
                           s->opt.memory_limit;
  if (over)
    stop_at_bound(s);
  MgBuffer *inputs = over ? NULL
                     : cache ? fill_inputs(c, NULL, key)
                             : scratch_inputs(s, f, key);
  MgBuffer *outs = calloc(c->num_outputs + 1, sizeof *outs);
  bool void_test = false, failed = !inputs || !outs, stopped = false;
  MgStatus st = !inputs && atomic_load(&s->memory_limited) ? MG_STATUS_BUDGET
                : failed ? MG_STATUS_NOMEM
                       : run_bounded(s, f, s->target,
                                     (TestRun){inputs, key, outs}, &void_test);
  if (st != MG_STATUS_OK) {
    failed = true;
    stopped = st == MG_STATUS_BUDGET || stopped_by_deadline(s, f);
  }
  if (failed || void_test) {
    free_buffers(outs, c->num_outputs);
    outs = NULL;
  }
  uint64_t bytes = 0;
  for (uint32_t k = 0; outs && k < c->num_outputs; k++)
    bytes += (uint64_t)mg_buffer_numel(&outs[k]) * sizeof(MgCell);
  if (cache && inputs)
    bytes += c->input_bytes;
  mg_search_memory(s, (int64_t)bytes);
  pthread_mutex_lock(&c->lock);
  test->inputs = cache ? inputs : NULL;
  test->outputs = outs;
  test->void_test = void_test;
  test->failed = failed;
  test->state = TEST_READY;
  pthread_cond_broadcast(&c->ready);
  pthread_mutex_unlock(&c->lock);
  if (failed && !stopped) {
    atomic_store(&s->failed, true);
    atomic_store(&s->stop, true);
  }
  return test;
}

TestOutcome mg_check_test(Worker *w, const MgProgram *p, uint32_t t,
                          MgVerifyResult *diff) {
  Search *s = w->s;
  CheckCache *c = s->check;
  WorkerFf *f = worker_ff(w);
  if (!f || t >= CHECK_MAX_TESTS)
    return TEST_ERROR;
  const Test *test = get_test(w, f, t);
  if (test->failed)
    return TEST_ERROR;
  if (test->void_test)
    return TEST_VOID_ALL;
  const MgBuffer *inputs = inputs_of(w, f, test, t);
  if (!inputs)
    return TEST_ERROR;
  bool void_test;
  MgStatus st = run_bounded(
      s, f, p, (TestRun){inputs, test_key(s->opt.seed, t), f->outs},
      &void_test);
  if (st != MG_STATUS_OK) {
    stopped_by_deadline(s, f);
    return TEST_ERROR;
  }
  if (void_test)
    return TEST_VOID;
  bool differs =
      mg_ff_first_difference(test->outputs, f->outs, c->num_outputs, diff);
  for (uint32_t k = 0; k < c->num_outputs; k++)
    mg_buffer_free(&f->outs[k]);
  return differs ? TEST_DIFFER : TEST_EQUAL;
}

uint32_t mg_check_max_tests(void) { return CHECK_MAX_TESTS; }
