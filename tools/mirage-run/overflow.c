//===- overflow.c - Values past their element type's range ---------------===//
//
// The reference (JIT) computes in its storage types, so one intermediate
// past f16's 65504 can spoil its results without an inf or NaN reaching
// the output: a sum of squares that saturates to inf and is read through
// rsqrt gives 0, and x·0 = ±0 (an f16 RMSNorm of 4,096 values of size 64
// does this). The interpreter computes in f64, so the kernel graph's own
// tensors show how large every intermediate of the computation is: a
// tensor typed f16 that holds a value past 65504 is an intermediate that
// overflows when computed in its type, as the original program computes it
// (the lifter's kernel graphs mirror the original ops one for one). The
// probe runs the kernel graph with every kernel-level tensor kept and finds
// the one furthest past its type's range; tiles inside graph-defined
// kernels are not seen.
//
// The range to suggest: inputs are uniform in [-range, range], so a
// smaller range scales them; the largest power of two below the range at
// which the probe finds every tensor within half its type's range
// (headroom for the reference's own rounding and partial sums), found by
// bisection on the exponent (values grow with the range), is suggested.
// Without the runs (large inputs) the bracket's lower end is: range /
// (2 ratio) is within half the range for any quantity of degree >= 1 in
// the inputs, a conservative answer.
//
//===----------------------------------------------------------------------===//
#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mirage/interp.h"

/// A copy of `p` whose root graph also outputs every tensor an op computes
/// (after its own outputs, which are looked at too); NULL on no memory.
static MgProgram *keep_tensors(const MgProgram *p) {
  MgProgram *c = mg_program_clone(p);
  if (!c)
    return NULL;
  MgGraph *g = &c->graphs[0];
  uint32_t n = g->num_tensors;
  for (MgTensorId t = 0; t < n; ++t) {
    const MgTensor *tt = &g->tensors[t];
    bool output = false;
    for (uint32_t k = 0; k < p->graphs[0].num_outputs; ++k)
      output = output || g->outputs[k] == t;
    if (g->ops[tt->producer].kind == MG_OP_INPUT || output)
      continue;
    MgDiag diag;
    if (mg_graph_mark_output(c, 0, t, &diag) != MG_STATUS_OK) {
      mg_program_destroy(c);
      return NULL;
    }
  }
  return c;
}

/// Runs the probe on `inputs` scaled by `scale` (1: the inputs themselves)
/// and copies the program's own outputs into `outputs` unless NULL; false
/// on failure.
static bool probe(const MgProgram *p, const double *const *inputs,
                  double scale, double *const *outputs, MgRunOverflow *out) {
  memset(out, 0, sizeof *out);
  MgProgram *c = keep_tensors(p);
  if (!c)
    return false;
  const MgGraph *g = &c->graphs[0];
  double **values = calloc(g->num_outputs + 1, sizeof *values);
  double **scaled = calloc(g->num_inputs + 1, sizeof *scaled);
  bool ok = values && scaled;
  for (uint32_t k = 0; ok && k < g->num_outputs; ++k) {
    int64_t n = mg_tensor_numel(&g->tensors[g->outputs[k]]);
    ok = (values[k] = malloc((size_t)(n ? n : 1) * sizeof **values));
  }
  for (uint32_t i = 0; ok && scale != 1 && i < g->num_inputs; ++i) {
    const MgTensor *t = mg_graph_input_tensor(g, i);
    int64_t n = t ? mg_tensor_numel(t) : 0;
    ok = t && (scaled[i] = malloc((size_t)(n ? n : 1) * sizeof **scaled));
    for (int64_t x = 0; ok && x < n; ++x)
      scaled[i][x] = mg_dtype_round((MgDType)t->dtype, inputs[i][x] * scale);
  }
  MgDiag diag;
  ok = ok && mg_interp_run_f64(c,
                               scale != 1 ? (const double *const *)scaled
                                          : inputs,
                               values, &diag) == MG_STATUS_OK;
  for (uint32_t k = 0; ok && outputs && k < p->graphs[0].num_outputs; ++k)
    memcpy(outputs[k], values[k],
           (size_t)mg_tensor_numel(&g->tensors[g->outputs[k]]) *
               sizeof **values);
  for (uint32_t k = 0; ok && k < g->num_outputs; ++k) {
    const MgTensor *t = &g->tensors[g->outputs[k]];
    double limit = mg_dtype_max_finite((MgDType)t->dtype), peak = 0;
    for (int64_t x = 0; x < mg_tensor_numel(t); ++x)
      if (fabs(values[k][x]) > peak) // NaN is not a size
        peak = fabs(values[k][x]);
    if (peak / limit > out->ratio) {
      out->ratio = peak / limit;
      out->peak = peak;
      out->dtype = (MgDType)t->dtype;
      snprintf(out->op, sizeof out->op, "%s",
               mg_op_kind_name((MgOpKind)g->ops[t->producer].kind));
    }
  }
  for (uint32_t k = 0; values && k < g->num_outputs; ++k)
    free(values[k]);
  for (uint32_t i = 0; scaled && i < g->num_inputs; ++i)
    free(scaled[i]);
  free(values);
  free(scaled);
  mg_program_destroy(c);
  return ok;
}

bool mg_run_overflow_probe(const MgProgram *program,
                           const double *const *inputs, MgRunOverflow *out) {
  return probe(program, inputs, 1.0, NULL, out);
}

MgStatus mg_run_interpret(const MgProgram *program,
                          const double *const *inputs,
                          double *const *outputs, MgRunOverflow *peaks,
                          MgDiag *diag) {
  // Keeping every tensor costs their sizes at once: only when that is
  // small, else the plain run (and the probe later, if it is needed).
  const MgGraph *g = &program->graphs[0];
  double kept = 0;
  for (MgTensorId t = 0; t < g->num_tensors; ++t)
    if (g->ops[g->tensors[t].producer].kind != MG_OP_INPUT)
      kept += (double)mg_tensor_numel(&g->tensors[t]);
  peaks->ratio = -1; // unknown
  if (kept * sizeof(MgCell) < MG_RUN_PARALLEL_BYTES &&
      probe(program, inputs, 1.0, outputs, peaks))
    return MG_STATUS_OK;
  peaks->ratio = -1;
  return mg_interp_run_f64(program, inputs, outputs, diag);
}

double mg_run_overflow_range(const MgProgram *program,
                             const double *const *inputs, double range,
                             const MgRunOverflow *at_range, bool verify) {
  // Powers of two below `range`, by bisection on the exponent: `bad` is
  // known to overflow (the range itself), `good` is assumed not to. A
  // quantity of degree d >= 1 in the inputs shrinks at least as fast as
  // the range does, so range / (2 ratio) is within half the type's range:
  // a narrow bracket when the ratio is known and finite.
  int bad = (int)ceil(log2(range));
  double ratio = at_range->ratio;
  int good = isfinite(ratio) && ratio >= 1
                 ? (int)floor(log2(range / (2 * ratio)))
                 : bad - 64;
  if (good < bad - 64)
    good = bad - 64;
  while (verify && bad - good > 1) {
    int mid = good + (bad - good) / 2;
    MgRunOverflow o;
    if (probe(program, inputs, exp2(mid) / range, NULL, &o) &&
        o.ratio <= 0.5)
      good = mid;
    else
      bad = mid;
  }
  return exp2(good);
}
