//===- float_domain.c - The float reference domain (doubles in cells) -----===//
//
// Cells hold IEEE doubles, moved in and out with memcpy (no aliasing
// tricks; compilers turn the 8-byte memcpy into a register move). Every
// operation is the real definition in f64: division by zero gives inf/nan as
// IEEE says, never an error, so this domain only fails on an op kind it does
// not know. The domain is stateless: ctx is ignored.
//
//===----------------------------------------------------------------------===//
#include "mirage/interp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

MgCell mg_cell_from_double(double v) {
  MgCell c;
  memcpy(&c, &v, sizeof c);
  return c;
}

double mg_cell_to_double(MgCell c) {
  double v;
  memcpy(&v, &c, sizeof v);
  return v;
}

static inline double ld(const MgCell *p) {
  double v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline void st(MgCell *p, double v) { memcpy(p, &v, sizeof v); }

static MgStatus f_binary(void *ctx, MgOpKind kind, const MgCell *a,
                         const MgCell *b, MgCell *out, size_t n) {
  (void)ctx;
  switch (kind) {
  case MG_OP_ADD:
    for (size_t i = 0; i < n; ++i)
      st(out + i, ld(a + i) + ld(b + i));
    return MG_STATUS_OK;
  case MG_OP_SUB:
    for (size_t i = 0; i < n; ++i)
      st(out + i, ld(a + i) - ld(b + i));
    return MG_STATUS_OK;
  case MG_OP_MUL:
    for (size_t i = 0; i < n; ++i)
      st(out + i, ld(a + i) * ld(b + i));
    return MG_STATUS_OK;
  case MG_OP_DIV:
    for (size_t i = 0; i < n; ++i)
      st(out + i, ld(a + i) / ld(b + i));
    return MG_STATUS_OK;
  case MG_OP_MAX: // NaN wins, as in tosa.maximum and torch.maximum
    for (size_t i = 0; i < n; ++i) {
      double x = ld(a + i), y = ld(b + i);
      st(out + i, x > y || isnan(x) ? x : y);
    }
    return MG_STATUS_OK;
  default:
    return MG_STATUS_UNSUPPORTED;
  }
}

static double silu(double x) { return x / (1.0 + exp(-x)); }
static double gelu(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }
static double square(double x) { return x * x; }
static double rsqrt(double x) { return 1.0 / sqrt(x); }
static double relu(double x) { return x > 0.0 ? x : 0.0; }

// The real function of a unary op without a scalar; NULL for others.
static double (*unary_fn(MgOpKind kind))(double) {
  switch (kind) {
  case MG_OP_EXP: return exp;
  case MG_OP_SQUARE: return square;
  case MG_OP_SQRT: return sqrt;
  case MG_OP_RSQRT: return rsqrt;
  case MG_OP_SILU: return silu;
  case MG_OP_GELU: return gelu;
  case MG_OP_RELU: return relu;
  case MG_OP_LOG: return log;
  case MG_OP_TANH: return tanh;
  case MG_OP_ERF: return erf;
  default: return NULL;
  }
}

static MgStatus f_unary(void *ctx, MgOpKind kind, double scalar,
                        const MgCell *a, MgCell *out, size_t n) {
  (void)ctx;
  double (*fn)(double) = unary_fn(kind);
  if (fn) {
    for (size_t i = 0; i < n; ++i)
      st(out + i, fn(ld(a + i)));
    return MG_STATUS_OK;
  }
  switch (kind) {
  case MG_OP_MUL_SCALAR:
    for (size_t i = 0; i < n; ++i)
      st(out + i, ld(a + i) * scalar);
    return MG_STATUS_OK;
  case MG_OP_DIV_SCALAR:
    for (size_t i = 0; i < n; ++i)
      st(out + i, ld(a + i) / scalar);
    return MG_STATUS_OK;
  case MG_OP_ADD_SCALAR:
    for (size_t i = 0; i < n; ++i)
      st(out + i, ld(a + i) + scalar);
    return MG_STATUS_OK;
  case MG_OP_MAX_SCALAR: // NaN wins, as MG_OP_MAX and tosa.clamp
    for (size_t i = 0; i < n; ++i) {
      double x = ld(a + i);
      st(out + i, x > scalar || isnan(x) ? x : scalar);
    }
    return MG_STATUS_OK;
  case MG_OP_MIN_SCALAR:
    for (size_t i = 0; i < n; ++i) {
      double x = ld(a + i);
      st(out + i, x < scalar || isnan(x) ? x : scalar);
    }
    return MG_STATUS_OK;
  default:
    return MG_STATUS_UNSUPPORTED;
  }
}

static MgStatus f_add_into(void *ctx, MgCell *acc, const MgCell *x,
                           size_t n) {
  (void)ctx;
  for (size_t i = 0; i < n; ++i)
    st(acc + i, ld(acc + i) + ld(x + i));
  return MG_STATUS_OK;
}

/// i-k-j order: the inner loop streams one row of b into one row of c, both
/// contiguous, so it vectorises and stays in cache.
static MgStatus f_matmul(void *ctx, const MgCell *a, const MgCell *b,
                         MgCell *c, MgMatmulShape shape) {
  (void)ctx;
  const int64_t m = shape.m, k = shape.k, n = shape.n;
  memset(c, 0, (size_t)(m * n) * sizeof(MgCell)); // all-zero bits = +0.0
  for (int64_t i = 0; i < m; ++i) {
    MgCell *ci = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      double aip = ld(a + i * k + p);
      const MgCell *bp = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        st(ci + j, ld(ci + j) + aip * ld(bp + j));
    }
  }
  return MG_STATUS_OK;
}

static const MgDomain float_domain = {
    .binary = f_binary,
    .unary = f_unary,
    .add_into = f_add_into,
    .matmul = f_matmul,
    .zero = 0, // the bits of +0.0
};

const MgDomain *mg_interp_float_domain(void) { return &float_domain; }

MgStatus mg_interp_run_f64(const MgProgram *program,
                           const double *const *inputs,
                           double *const *outputs, MgDiag *diag) {
  if (!program || program->num_graphs == 0 || !program->graphs ||
      (program->graphs[0].num_ops && !program->graphs[0].ops))
    return mg_diag_set(diag, MG_STATUS_INVALID, 0, -1, "no root graph");
  const MgGraph *g = &program->graphs[0];
  uint32_t ni = g->num_inputs, no = g->num_outputs;
  MgBuffer *in = calloc(ni ? ni : 1, sizeof *in);
  MgBuffer *out = calloc(no ? no : 1, sizeof *out);
  MgStatus status = MG_STATUS_OK;
  if (!in || !out) {
    status = mg_diag_set(diag, MG_STATUS_NOMEM, 0, -1, "out of memory");
    goto done;
  }
  // Input shapes come from the root graph's INPUT ops (position = attr).
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    if (op->kind != MG_OP_INPUT)
      continue;
    if (op->attr < 0 || (uint32_t)op->attr >= ni || op->num_outputs != 1 ||
        op->outputs[0] >= g->num_tensors || in[op->attr].data) {
      status = mg_diag_set(diag, MG_STATUS_INVALID, 0, (int32_t)o,
                           "malformed input op");
      goto done;
    }
    const MgTensor *t = &g->tensors[op->outputs[0]];
    MgBuffer *b = &in[op->attr];
    if (!mg_buffer_alloc(b, t->rank, t->dims)) {
      status = mg_diag_set(diag, MG_STATUS_NOMEM, 0, (int32_t)o,
                           "cannot allocate input %d", op->attr);
      goto done;
    }
    int64_t n = mg_buffer_numel(b);
    for (int64_t i = 0; i < n; ++i)
      b->data[i] = mg_cell_from_double(inputs[op->attr][i]);
  }
  status = mg_exec_run(program, &float_domain, NULL, in, out, diag);
  if (status == MG_STATUS_OK)
    for (uint32_t j = 0; j < no; ++j) {
      int64_t n = mg_buffer_numel(&out[j]);
      for (int64_t i = 0; i < n; ++i)
        outputs[j][i] = mg_cell_to_double(out[j].data[i]);
    }
done:
  for (uint32_t j = 0; in && j < ni; ++j)
    mg_buffer_free(&in[j]);
  for (uint32_t j = 0; out && j < no; ++j)
    mg_buffer_free(&out[j]);
  free(in);
  free(out);
  return status;
}

bool mg_interp_stored_to_logical(const MgProgram *program,
                                 double *const *values) {
  const MgGraph *g = &program->graphs[0];
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    const MgTensor *t = &g->tensors[op->outputs[0]];
    int8_t perm[MG_MAX_DIMS];
    if (op->kind != MG_OP_INPUT || !mg_op_input_perm(op, t->rank, perm))
      continue;
    int64_t sdims[MG_MAX_DIMS], sstride[MG_MAX_DIMS], stride[MG_MAX_DIMS];
    mg_graph_stored_dims(g, op->outputs[0], sdims);
    int64_t n = 1;
    for (uint32_t d = t->rank; d-- > 0;) {
      sstride[d] = n;
      n *= sdims[d];
    }
    for (uint32_t d = 0; d < t->rank; ++d)
      stride[d] = sstride[perm[d]]; // logical dim d walks stored dim perm[d]
    double *stored = values[op->attr];
    double *logical = malloc((size_t)(n ? n : 1) * sizeof *logical);
    if (!logical)
      return false;
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = i, at = 0;
      for (uint32_t d = t->rank; d-- > 0;) {
        at += (rest % t->dims[d]) * stride[d];
        rest /= t->dims[d];
      }
      logical[i] = stored[at];
    }
    memcpy(stored, logical, (size_t)n * sizeof *logical);
    free(logical);
  }
  return true;
}
