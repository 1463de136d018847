//===- verify.c - Random tests over Z_p x Z_q until the bound is met ------===//
//
// One test: draw every input element uniformly from Z_p x Z_q (from a
// SplitMix64 stream keyed by (seed, attempt)), run both programs with the
// executor in the finite-field domain under one context (so both see the
// same uninterpreted functions), and compare the p components of all
// outputs. The q component only carries exponents; it is never compared.
//
// A test that meets a zero divisor residue is void: it is counted in
// `redraws` and the next attempt draws new inputs. Attempts (tests plus
// redraws) stop at max_tests. The bound of independent tests multiplies; it
// is accumulated as log2 so it stays finite far below DBL_MIN.
//
//===----------------------------------------------------------------------===//
#include "mirage/verify.h"

#include <pthread.h>

#include "bound.h"
#include "mirage/ff_domain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The fingerprint's fixed input stream ("mirage!" in ASCII).
#define MG_VERIFY_FINGERPRINT_SEED 0x6d697261676521ull
#define MG_VERIFY_FINGERPRINT_TRIES 8

uint64_t mg_verify_fresh_seed(void) {
  uint64_t seed = 0;
  FILE *f = fopen("/dev/urandom", "rb");
  bool got = f && fread(&seed, sizeof seed, 1, f) == 1;
  if (f)
    fclose(f);
  // Without the OS's generator, the clock and the address space still make
  // the seed unknown to whoever wrote the programs beforehand.
  if (!got)
    seed = mg_hash_u64(mg_hash_u64((uint64_t)(mg_clock_now() * 1e9), 0x73656564ull),
                       (uint64_t)(uintptr_t)&seed);
  return seed;
}

MgVerifyOptions mg_verify_options_default(void) {
  MgVerifyOptions o;
  o.target_error = ldexp(1.0, -40);
  o.seed = 1;
  o.max_tests = 64;
  o.threads = 1;
  o.memory_limit = 0;
  o.constants = NULL;
  o.num_constants = 0;
  return o;
}

static MgStatus check_program(const MgProgram *p, const char *which,
                              MgDiag *diag) {
  if (!p || p->num_graphs == 0 || p->graphs[0].level != MG_LEVEL_KERNEL)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "program %s has no root kernel graph", which);
  // Semantics, not a GPU's limits: structure is checked against a target
  // that admits any launch and footprint.
  MgStatus st = mg_program_validate(p, mg_target_unlimited(), diag);
  if (st != MG_STATUS_OK)
    return st;
  const MgGraph *g = &p->graphs[0];
  for (uint32_t i = 0; i < g->num_inputs; ++i)
    if (!mg_graph_input_tensor(g, i))
      return mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                         "program %s lacks input %u", which, i);
  return MG_STATUS_OK;
}

static MgStatus check_signatures(const MgProgram *a, const MgProgram *b,
                                 MgDiag *diag) {
  const MgGraph *ga = &a->graphs[0], *gb = &b->graphs[0];
  if (ga->num_inputs != gb->num_inputs)
    return mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                       "input counts differ: %u vs %u", ga->num_inputs,
                       gb->num_inputs);
  for (uint32_t i = 0; i < ga->num_inputs; ++i) {
    const MgTensor *x = mg_graph_input_tensor(ga, i);
    const MgTensor *y = mg_graph_input_tensor(gb, i);
    if (!mg_graph_same_shape(x, y))
      return mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                         "shapes of input %u differ", i);
    // Both read the same logical values below, so a program reading W
    // where the other reads Wᵀ of the caller's array would pass: the
    // layouts are part of the signature.
    if (!mg_graph_same_layout(ga, x, gb, y))
      return mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                         "input %u is stored in different layouts", i);
  }
  if (ga->num_outputs != gb->num_outputs)
    return mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                       "output counts differ: %u vs %u", ga->num_outputs,
                       gb->num_outputs);
  for (uint32_t k = 0; k < ga->num_outputs; ++k)
    if (!mg_graph_same_shape(&ga->tensors[ga->outputs[k]], &gb->tensors[gb->outputs[k]]))
      return mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                         "shapes of output %u differ", k);
  return MG_STATUS_OK;
}

// Inputs of one test, the output buffers and the domain context.
typedef struct Rig {
  uint32_t num_inputs, num_outputs;
  MgBuffer *inputs;
  const MgVerifyConstant *consts; // overwrite their inputs after each draw
  uint32_t num_consts;
  MgBuffer *out_a, *out_b;
  MgFfContext ctx;
} Rig;

static void rig_free_outputs(MgBuffer *outs, uint32_t n) {
  for (uint32_t k = 0; k < n; ++k)
    mg_buffer_free(&outs[k]);
}

static void rig_dispose(Rig *rig) {
  if (rig->inputs)
    for (uint32_t i = 0; i < rig->num_inputs; ++i)
      mg_buffer_free(&rig->inputs[i]);
  if (rig->out_a)
    rig_free_outputs(rig->out_a, rig->num_outputs);
  if (rig->out_b)
    rig_free_outputs(rig->out_b, rig->num_outputs);
  free(rig->inputs);
  free(rig->out_a);
  free(rig->out_b);
  mg_ff_context_dispose(&rig->ctx);
}

static MgStatus rig_init(Rig *rig, const MgProgram *p, MgDiag *diag) {
  memset(rig, 0, sizeof *rig);
  mg_ff_context_init(&rig->ctx, 0);
  const MgGraph *g = &p->graphs[0];
  rig->num_inputs = g->num_inputs;
  rig->num_outputs = g->num_outputs;
  rig->inputs = calloc(g->num_inputs + 1, sizeof(MgBuffer));
  rig->out_a = calloc(g->num_outputs + 1, sizeof(MgBuffer));
  rig->out_b = calloc(g->num_outputs + 1, sizeof(MgBuffer));
  if (!rig->inputs || !rig->out_a || !rig->out_b)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  for (uint32_t i = 0; i < g->num_inputs; ++i) {
    const MgTensor *t = mg_graph_input_tensor(g, i);
    if (!mg_buffer_alloc(&rig->inputs[i], t->rank, t->dims))
      return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1,
                         "out of memory for input %u", i);
  }
  return MG_STATUS_OK;
}

// The cell of a constant: its exact image in both components (check_constants
// has made sure it has one), so exp of a constant is g^c like any scalar.
static MgCell constant_cell(double v, MgFfField f) {
  uint32_t xp = 0, xq = 0;
  mg_ff_scalar(v, f.p, &xp);
  mg_ff_scalar(v, f.q, &xq);
  return mg_ff_cell(xp, xq);
}

// The constant inputs still take their draws from the stream (then
// overwritten), so the other inputs get the values they get without them.
static void rig_draw(Rig *rig, uint64_t key) {
  mg_ff_draw_inputs(rig->inputs, rig->num_inputs, key);
  mg_ff_rekey_test(&rig->ctx, key);
  for (uint32_t c = 0; c < rig->num_consts; ++c) {
    const MgVerifyConstant *k = &rig->consts[c];
    MgBuffer *in = &rig->inputs[k->input];
    int64_t n = mg_buffer_numel(in);
    for (int64_t e = 0; e < n; ++e)
      in->data[e] = constant_cell(k->values[k->count == 1 ? 0 : e],
                                  rig->ctx.field);
  }
}

static MgStatus check_constants(const MgProgram *p, const MgVerifyOptions *o,
                                MgDiag *diag) {
  const MgGraph *g = &p->graphs[0];
  for (uint32_t c = 0; c < o->num_constants; ++c) {
    const MgVerifyConstant *k = &o->constants[c];
    if (k->input >= g->num_inputs || !k->values)
      return mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                         "constant %u names no input", c);
    int64_t n = mg_tensor_numel(mg_graph_input_tensor(g, k->input));
    if (k->count != 1 && k->count != n)
      return mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                         "constant for input %u has %lld values, not 1 or %lld",
                         k->input, (long long)k->count, (long long)n);
    for (int64_t e = 0; e < k->count; ++e)
      if (!isfinite(k->values[e]))
        return mg_diag_set(diag, MG_STATUS_INVALID, 0, -1,
                           "constant for input %u holds %g at element %lld "
                           "(the field has no image of it)",
                           k->input, k->values[e], (long long)e);
  }
  return MG_STATUS_OK;
}

// Runs `p`; on a domain fault the context says which. `void_test` is set
// for a zero divisor (the caller redraws).
static MgStatus rig_run(Rig *rig, const MgProgram *p, MgBuffer *outs,
                       bool *void_test, MgDiag *diag) {
  MgDiag local;
  memset(&local, 0, sizeof local);
  rig->ctx.fault = MG_FF_FAULT_NONE;
  *void_test = false;
  MgStatus st = mg_exec_run(p, mg_ff_domain(), &rig->ctx, rig->inputs, outs,
                            &local);
  if (st == MG_STATUS_OK)
    return st;
  switch (rig->ctx.fault) {
  case MG_FF_FAULT_ZERO_DIVISOR:
    *void_test = true;
    return MG_STATUS_OK;
  case MG_FF_FAULT_EXP_OF_EXP:
  case MG_FF_FAULT_BAD_SCALAR:
  case MG_FF_FAULT_UNSUPPORTED:
    return mg_diag_set(diag, st, local.graph, local.op, "%s",
                       mg_ff_fault_message(rig->ctx.fault));
  default:
    if (diag)
      *diag = local;
    return st;
  }
}

static uint64_t attempt_key(uint64_t seed, uint32_t attempt) {
  return mg_hash_u64(mg_hash_u64(seed, 0x766572696679ull), attempt);
}

static void prepare(MgVerifyResult *result) {
  memset(result, 0, sizeof *result);
  result->verdict = MG_VERDICT_UNKNOWN;
  result->error_bound = 1.0;
  result->index = -1;
}

// The outcome of one test (attempt), computed by any thread and read by
// the caller in attempt order, so the result never depends on the threads.
typedef struct Attempt {
  MgStatus st;
  MgDiag diag;
  bool void_test;          // a zero divisor: redraw
  bool differs;            // an output element differs (`diff` says where)
  MgVerifyResult diff;
} Attempt;

static void run_attempt(const MgProgram *a, const MgProgram *b, Rig *rig,
                        uint64_t key, Attempt *out) {
  memset(out, 0, sizeof *out);
  out->diag.graph = out->diag.op = -1;
  out->diff.index = -1;
  rig_draw(rig, key);
  bool void_a = false, void_b = false;
  MgStatus st = rig_run(rig, a, rig->out_a, &void_a, &out->diag);
  if (st == MG_STATUS_OK && !void_a)
    st = rig_run(rig, b, rig->out_b, &void_b, &out->diag);
  out->void_test = st == MG_STATUS_OK && (void_a || void_b);
  if (st == MG_STATUS_OK && !out->void_test) {
    for (uint32_t k = 0; st == MG_STATUS_OK && k < rig->num_outputs; ++k)
      if (!mg_buffer_same_shape(&rig->out_a[k], &rig->out_b[k]))
        st = mg_diag_set(&out->diag, MG_STATUS_INVALID, 0, -1,
                         "output %u has different run-time shapes", k);
    // Shapes were checked equal above, so a difference is an element.
    if (st == MG_STATUS_OK)
      out->differs = mg_ff_first_difference(rig->out_a, rig->out_b,
                                            rig->num_outputs, &out->diff);
  }
  out->st = st;
  rig_free_outputs(rig->out_a, rig->num_outputs);
  rig_free_outputs(rig->out_b, rig->num_outputs);
}

typedef struct Worker {
  const MgProgram *a, *b;
  Rig rig;
  uint64_t key;
  Attempt out;
} Worker;

static void *worker_main(void *arg) {
  Worker *w = arg;
  run_attempt(w->a, w->b, &w->rig, w->key, &w->out);
  return NULL;
}

#define VERIFY_MAX_THREADS 16

// Bytes of one test's values: every root tensor of `a` and `b` as cells
// (inputs, intermediates and outputs live at once, at worst).
static uint64_t test_bytes(const MgProgram *a, const MgProgram *b) {
  uint64_t cells = 0;
  for (const MgProgram *p = a; p; p = p == a ? b : NULL)
    for (uint32_t t = 0; t < p->graphs[0].num_tensors; t++)
      cells += (uint64_t)mg_tensor_numel(&p->graphs[0].tensors[t]);
  return cells * sizeof(MgCell);
}

MgStatus mg_verify_equivalent(const MgProgram *a, const MgProgram *b,
                              const MgVerifyOptions *options,
                              MgVerifyResult *result, MgDiag *diag) {
  MgVerifyResult scratch;
  if (!result)
    result = &scratch;
  prepare(result);
  MgVerifyOptions opt = options ? *options : mg_verify_options_default();
  MgStatus st = check_program(a, "a", diag);
  if (st == MG_STATUS_OK)
    st = check_program(b, "b", diag);
  if (st == MG_STATUS_OK)
    st = check_signatures(a, b, diag);
  if (st == MG_STATUS_OK)
    st = check_constants(a, &opt, diag);
  MgVerifyBound bound = {1.0, 0.0};
  if (st == MG_STATUS_OK)
    st = mg_verify_pair_bound(a, b, opt.constants, opt.num_constants, &bound,
                              diag);
  if (st != MG_STATUS_OK)
    return st;
  result->seed = opt.seed;
  result->constants_bound = bound.constants;
  double log2_eps = log2(bound.eps);
  double log2_target =
      opt.target_error > 0 ? log2(opt.target_error) : -INFINITY;

  // One rig per thread; a batch of attempts runs at once, its outcomes are
  // taken in order and the rest of the batch is dropped at a verdict.
  uint32_t nt = opt.threads < 1 ? 1 : opt.threads;
  if (nt > VERIFY_MAX_THREADS)
    nt = VERIFY_MAX_THREADS;
  if (opt.memory_limit) {
    uint64_t fit = opt.memory_limit / (test_bytes(a, b) + 1);
    if (fit < nt)
      nt = fit > 1 ? (uint32_t)fit : 1;
  }
  // Both programs' bounding constants keep their real order in every
  // test's max order (docs/verification.md, bounds by a constant).
  double *bounds = NULL;
  uint32_t num_bounds = mg_ff_collect_bounds(a, b, &bounds);
  if (num_bounds == UINT32_MAX)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  Worker workers[VERIFY_MAX_THREADS];
  uint32_t ready = 0;
  for (; ready < nt && st == MG_STATUS_OK; ready++) {
    workers[ready].a = a;
    workers[ready].b = b;
    st = rig_init(&workers[ready].rig, a, diag);
    workers[ready].rig.consts = opt.constants;
    workers[ready].rig.num_consts = opt.num_constants;
    mg_ff_context_set_bounds(&workers[ready].rig.ctx, bounds, num_bounds);
  }
  for (uint32_t attempt = 0; st == MG_STATUS_OK && attempt < opt.max_tests;
       attempt += nt) {
    uint32_t batch = opt.max_tests - attempt < nt ? opt.max_tests - attempt
                                                  : nt;
    pthread_t tids[VERIFY_MAX_THREADS];
    bool spawned[VERIFY_MAX_THREADS] = {false};
    for (uint32_t i = 0; i < batch; i++) {
      workers[i].key = attempt_key(opt.seed, attempt + i);
      if (i > 0)
        spawned[i] = pthread_create(&tids[i], NULL, worker_main,
                                    &workers[i]) == 0;
    }
    worker_main(&workers[0]);
    for (uint32_t i = 1; i < batch; i++) {
      if (spawned[i])
        pthread_join(tids[i], NULL);
      else
        worker_main(&workers[i]); // no thread to be had: here
    }
    for (uint32_t i = 0; i < batch && result->verdict == MG_VERDICT_UNKNOWN;
         i++) {
      const Attempt *o = &workers[i].out;
      if (o->st != MG_STATUS_OK) {
        st = o->st;
        if (diag)
          *diag = o->diag;
        break;
      }
      if (o->void_test) {
        result->redraws++;
        continue;
      }
      result->tests++;
      // A difference is a certain answer; the bound fields keep describing
      // the tests that agreed before it (and stay finite).
      if (o->differs) {
        result->output = o->diff.output;
        result->index = o->diff.index;
        result->value_a = o->diff.value_a;
        result->value_b = o->diff.value_b;
        result->verdict = MG_VERDICT_NOT_EQUIVALENT;
      } else {
        result->log2_bound += log2_eps;
        result->error_bound = exp2(result->log2_bound);
        if (result->log2_bound <= log2_target)
          result->verdict = MG_VERDICT_EQUIVALENT;
      }
    }
    if (result->verdict != MG_VERDICT_UNKNOWN)
      break;
  }
  for (uint32_t i = 0; i < ready; i++)
    rig_dispose(&workers[i].rig);
  free(bounds);
  return st;
}

double mg_verify_test_bound(const MgProgram *a, const MgProgram *b) {
  // The analysis indexes ops and tensors: only run it on valid programs.
  MgVerifyBound bound = {1.0, 0.0};
  if (check_program(a, "a", NULL) != MG_STATUS_OK ||
      check_program(b, "b", NULL) != MG_STATUS_OK ||
      mg_verify_pair_bound(a, b, NULL, 0, &bound, NULL) != MG_STATUS_OK)
    return 1.0;
  return bound.eps;
}

MgStatus mg_verify_fingerprint(const MgProgram *program,
                               uint64_t *fingerprint, MgDiag *diag) {
  if (!fingerprint)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "no fingerprint slot");
  *fingerprint = 0;
  MgStatus st = check_program(program, "to fingerprint", diag);
  if (st != MG_STATUS_OK)
    return st;
  Rig rig;
  st = rig_init(&rig, program, diag);
  bool done = false;
  // A zero divisor on the fixed input moves to the next fixed input; two
  // equivalent programs agree on which inputs have one except with the
  // probability bounded by their zero-divisor mass.
  for (uint32_t t = 0; st == MG_STATUS_OK && !done &&
                       t < MG_VERIFY_FINGERPRINT_TRIES; ++t) {
    rig_draw(&rig, attempt_key(MG_VERIFY_FINGERPRINT_SEED, t));
    bool void_test = false;
    st = rig_run(&rig, program, rig.out_a, &void_test, diag);
    if (st == MG_STATUS_OK && !void_test) {
      uint64_t h = mg_hash_u64(0, rig.num_outputs);
      for (uint32_t k = 0; k < rig.num_outputs; ++k) {
        const MgBuffer *x = &rig.out_a[k];
        h = mg_hash_bytes(h, x->dims, sizeof(int64_t) * x->rank);
        int64_t n = mg_buffer_numel(x);
        for (int64_t e = 0; e < n; ++e)
          h = mg_hash_u64(h, mg_ff_cell_p(x->data[e]));
      }
      *fingerprint = h;
      done = true;
    }
    rig_free_outputs(rig.out_a, rig.num_outputs);
  }
  if (st == MG_STATUS_OK && !done)
    st = mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                     "every fixed input meets a zero divisor");
  rig_dispose(&rig);
  return st;
}
