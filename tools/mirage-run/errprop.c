//===- errprop.c - Per-element rounding-error estimates of a kernel graph -===//
//
// The analytic bound in tolerance.c assumes that an output's error is of
// the size of the output. Cancellation (large terms summing to a small
// result), division by a small denominator, rsqrt near zero or exp of a
// large argument break that assumption, and they do occur: a lifted
// subprogram whose inputs are intermediate values gets uniform random
// inputs, so "a sum of squares" can be a sum of signed values near zero.
//
// This file estimates the error of every output element instead, by
// first-order propagation of rounding errors through the kernel graph. The
// JIT rounds the result v of every operation, adding an error of standard
// deviation u·|v|/√3 (uniform in [-u·|v|, u·|v|]); every product and every
// partial sum of a matmul and every step of a sum or accumulator is such a
// rounding, as in the JIT's loops. An operation's own roundings are
// independent of everything before them and add in quadrature (the
// probabilistic model of Higham & Mary, 2019), so a reduction's roundings
// grow like √n, not n. How the errors carried in by operands combine
// depends on their correlation, which a cell cannot record, so there are
// two runs (on one copy of the inputs):
//  - independent: carried errors are independent and add in
//    quadrature, σ = √(Σ(∂f/∂x·σ_x)² + own²). Right for errors of distinct
//    origin; too small for shared ones: a row sum s divides every element
//    of its row, a later matmul adds the quotients up, and the error of s
//    reaches the result in full, not diluted by √n.
//  - linear: carried errors add linearly through |∂f/∂x|,
//    σ = √((Σ|∂f/∂x|·σ_x)² + own²), a first-order bound over every
//    correlation; about √n too large for independent errors.
// A running sum keeps one number per value (all an 8-byte cell holds next
// to the value): σ_acc ← √(σ_acc² + own²) ⊕ σ_x, with ⊕ the mode's
// combination. Exact when only one kind of error is present; otherwise it
// can be up to 2x below the two-part estimate (carried errors absorb new
// roundings).
//
// A cell holds the value and the deviation as two floats (a float value is
// plenty for a sensitivity). An argument of sqrt/rsqrt or a divisor within
// MG_RUN_SINGULAR_SIGMAS deviations of zero makes the result
// ill-conditioned: its deviation becomes +inf, propagates as such, and the
// element is not compared (rounding alone can flip its sign). A value beyond
// the float cell's range (exp of a large argument) has no estimate either,
// but is marked apart, with a NaN deviation that wins over +inf: such an
// element must still be compared, or an overflow would pass as
// ill-conditioned.
//
//===----------------------------------------------------------------------===//
#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mirage/interp.h"

typedef struct Cell {
  float v; // value
  float s; // deviation of its error; +inf: ill-conditioned; NaN: out of range
} Cell;

_Static_assert(sizeof(Cell) == sizeof(MgCell), "the pair must fill a cell");

typedef struct ErrProp {
  double unit; // u/√3: deviation of one rounding, relative
  bool linear; // carried errors add linearly (else in quadrature)
} ErrProp;

static Cell ld(const MgCell *c) {
  Cell cell;
  memcpy(&cell, c, sizeof cell);
  return cell;
}

static void st(MgCell *c, double v, double s) {
  Cell cell = {(float)v, (float)s};
  if (fabs(v) > 3.0e38) // inf included, NaN not (a domain error)
    cell = (Cell){0, NAN};
  else if (!(s <= 3.0e38)) // NaN, inf, too large: ill-conditioned
    cell = (Cell){0, INFINITY};
  memcpy(c, &cell, sizeof cell);
}

/// Ill-conditioned or out of range: no estimate.
static bool ill(Cell x) { return !isfinite(x.s); }

/// The deviation of a result with an ill operand: out of range wins.
static float ill_of(Cell x, Cell y) {
  return isnan(x.s) || isnan(y.s) ? NAN : INFINITY;
}

static void st_ill(MgCell *c, float s) {
  Cell cell = {0, s};
  memcpy(c, &cell, sizeof cell);
}

/// Near zero within the error band: rounding alone can change the sign.
static bool near_zero(Cell x) {
  return !(fabs((double)x.v) > MG_RUN_SINGULAR_SIGMAS * (double)x.s);
}

/// Combines two carried contributions according to the mode.
static double join(const ErrProp *e, double a, double b) {
  return e->linear ? a + b : sqrt(a * a + b * b);
}

/// A fresh result v with carried deviation `carried` and `roundings`
/// roundings of its own.
static void put(const ErrProp *e, MgCell *c, double v, double carried,
                double roundings) {
  double own = sqrt(roundings) * e->unit * fabs(v);
  st(c, v, sqrt(carried * carried + own * own));
}

static MgStatus e_binary(void *ctx, MgOpKind kind, const MgCell *a,
                         const MgCell *b, MgCell *out, size_t n) {
  const ErrProp *e = ctx;
  for (size_t i = 0; i < n; ++i) {
    Cell x = ld(a + i), y = ld(b + i);
    if (ill(x) || ill(y)) {
      st_ill(out + i, ill_of(x, y));
      continue;
    }
    double xv = x.v, yv = y.v, v, carried;
    switch (kind) {
    case MG_OP_ADD:
      v = xv + yv;
      carried = join(e, x.s, y.s);
      break;
    case MG_OP_SUB:
      // x − x is exactly 0. Equal cells (value and deviation) are one
      // value: a max selects one of its operands, and the online
      // accumulator's rescale exp(M − max(M, m)) is exp(0) = 1 whenever
      // the running max stays; its error is not carried twice per step.
      if (xv == yv && x.s == y.s) {
        st(out + i, 0, 0);
        continue;
      }
      v = xv - yv;
      carried = join(e, x.s, y.s);
      break;
    case MG_OP_MUL:
      v = xv * yv;
      carried = join(e, fabs(yv) * x.s, fabs(xv) * y.s);
      break;
    case MG_OP_DIV:
      if (near_zero(y)) {
        st(out + i, 0, INFINITY);
        continue;
      }
      v = xv / yv;
      carried = join(e, x.s / fabs(yv), fabs(v) * y.s / fabs(yv));
      break;
    case MG_OP_MAX: // exact: the result is one of the operands; near a tie
                    // either may win, so it carries the larger deviation
      v = xv > yv || isnan(xv) ? xv : yv;
      st(out + i, v, x.s > y.s ? x.s : y.s);
      continue;
    default:
      return MG_STATUS_UNSUPPORTED;
    }
    put(e, out + i, v, carried, 1);
  }
  return MG_STATUS_OK;
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/// Value and derivative of a unary op at x; false for an unknown kind.
/// `roundings` is how many roundings the JIT's expansion of the op makes
/// (silu is x·σ(x) with σ = 1/(1+exp(-x)): four).
static bool unary_at(MgOpKind kind, double scalar, double x, double *v,
                     double *d, double *roundings) {
  *roundings = 1;
  switch (kind) {
  case MG_OP_EXP:
    *v = exp(x);
    *d = *v;
    return true;
  case MG_OP_SQUARE:
    *v = x * x;
    *d = 2 * x;
    return true;
  case MG_OP_SQRT:
    *v = sqrt(x);
    *d = 0.5 / *v;
    return true;
  case MG_OP_RSQRT:
    *v = 1.0 / sqrt(x);
    *d = -0.5 * *v / x;
    *roundings = 2;
    return true;
  case MG_OP_SILU: {
    double s = sigmoid(x);
    *v = x * s;
    *d = s * (1 + x * (1 - s));
    *roundings = 4;
    return true;
  }
  case MG_OP_GELU: {
    double phi = exp(-0.5 * x * x) / sqrt(2 * 3.14159265358979323846);
    *v = 0.5 * x * (1 + erf(x / sqrt(2.0)));
    *d = 0.5 * (1 + erf(x / sqrt(2.0))) + x * phi;
    *roundings = 5;
    return true;
  }
  case MG_OP_RELU:
    *v = x > 0 ? x : 0;
    *d = x > 0 ? 1 : 0;
    return true;
  case MG_OP_LOG:
    *v = log(x);
    *d = 1 / x;
    return true;
  case MG_OP_TANH:
    *v = tanh(x);
    *d = 1 - *v * *v;
    *roundings = 2;
    return true;
  case MG_OP_ERF:
    *v = erf(x);
    *d = 2 / sqrt(3.14159265358979323846) * exp(-x * x);
    *roundings = 2;
    return true;
  case MG_OP_MUL_SCALAR:
    *v = x * scalar;
    *d = scalar;
    return true;
  case MG_OP_DIV_SCALAR:
    *v = x / scalar;
    *d = 1 / scalar;
    return true;
  case MG_OP_ADD_SCALAR:
    *v = x + scalar;
    *d = 1;
    return true;
  case MG_OP_MAX_SCALAR: // x or the constant, NaN winning; exact
    *v = x > scalar || isnan(x) ? x : scalar;
    *d = *v == x ? 1 : 0;
    *roundings = 0;
    return true;
  case MG_OP_MIN_SCALAR:
    *v = x < scalar || isnan(x) ? x : scalar;
    *d = *v == x ? 1 : 0;
    *roundings = 0;
    return true;
  default:
    return false;
  }
}

static MgStatus e_unary(void *ctx, MgOpKind kind, double scalar,
                        const MgCell *a, MgCell *out, size_t n) {
  const ErrProp *e = ctx;
  for (size_t i = 0; i < n; ++i) {
    Cell x = ld(a + i);
    double v, d, roundings;
    if (!unary_at(kind, scalar, x.v, &v, &d, &roundings))
      return MG_STATUS_UNSUPPORTED;
    if (ill(x)) {
      st_ill(out + i, x.s);
      continue;
    }
    if ((kind == MG_OP_SQRT || kind == MG_OP_RSQRT || kind == MG_OP_LOG) &&
        near_zero(x)) {
      st(out + i, 0, INFINITY);
      continue;
    }
    if (kind == MG_OP_RELU && near_zero(x))
      d = 1; // the kink: either side may be taken
    if ((kind == MG_OP_MAX_SCALAR || kind == MG_OP_MIN_SCALAR) &&
        fabs(x.v - scalar) <= x.s)
      d = 1; // near the bound either side may be taken
    put(e, out + i, v, fabs(d) * x.s, roundings);
  }
  return MG_STATUS_OK;
}

/// One step of a running reduction: the new rounding is independent of the
/// accumulator's error; the operand's error joins according to the mode.
static MgStatus e_add_into(void *ctx, MgCell *acc, const MgCell *x,
                           size_t n) {
  const ErrProp *e = ctx;
  for (size_t i = 0; i < n; ++i) {
    Cell s = ld(acc + i), t = ld(x + i);
    if (ill(s) || ill(t)) {
      st_ill(acc + i, ill_of(s, t));
      continue;
    }
    double v = (double)s.v + t.v, own = e->unit * v;
    st(acc + i, v, join(e, sqrt((double)s.s * s.s + own * own), t.s));
  }
  return MG_STATUS_OK;
}

/// Sequential accumulation over k, as the JIT's loops do: every product and
/// every partial sum is rounded. Row by row, k outer and n inner, so that b
/// is read along its rows; each element still adds its products in the
/// order of k. Carried deviations accumulate as a plain sum (linear) or a
/// sum of squares (independent, one square root at the end): the same
/// combination as joining term by term, in linear time.
static MgStatus e_matmul(void *ctx, const MgCell *a, const MgCell *b,
                         MgCell *c, MgMatmulShape shape) {
  const ErrProp *e = ctx;
  const int64_t m = shape.m, k = shape.k, n = shape.n;
  size_t row = (size_t)(n > 0 ? n : 1);
  double *acc = malloc(3 * row * sizeof *acc);
  float *mark = malloc(row * sizeof *mark); // an ill operand's deviation
  if (!acc || !mark) {
    free(acc);
    free(mark);
    return MG_STATUS_NOMEM;
  }
  double *carried = acc + row, *own2 = acc + 2 * row;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j)
      acc[j] = carried[j] = own2[j] = 0, mark[j] = 0;
    for (int64_t q = 0; q < k; ++q) {
      Cell x = ld(a + i * k + q);
      const MgCell *bq = b + q * n;
      double xv = x.v, xs = x.s;
      for (int64_t j = 0; j < n; ++j) {
        Cell y = ld(bq + j);
        if (ill(x) || ill(y))
          mark[j] = isnan(mark[j]) ? NAN : ill_of(x, y);
        double prod = xv * y.v, cx = fabs((double)y.v) * xs,
               cy = fabs(xv) * y.s;
        acc[j] += prod;
        carried[j] += e->linear ? cx + cy : cx * cx + cy * cy;
        own2[j] += prod * prod + acc[j] * acc[j];
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      if (!isfinite(mark[j])) {
        st_ill(c + i * n + j, mark[j]);
        continue;
      }
      double cj = e->linear ? carried[j] : sqrt(carried[j]);
      st(c + i * n + j, acc[j],
         sqrt(cj * cj + e->unit * e->unit * own2[j]));
    }
  }
  free(acc);
  free(mark);
  return MG_STATUS_OK;
}

MgStatus mg_run_error_sigmas(const MgProgram *program,
                             const MgRunSignature *sig,
                             const double *const *inputs, double u,
                             MgRunSigmas sigmas, MgDiag *diag) {
  ErrProp modes[2] = {{u / sqrt(3.0), false}, {u / sqrt(3.0), true}};
  double *const *into[2] = {sigmas.sigma, sigmas.sigma_lin};
  MgDomain domain = {e_binary, e_unary, e_add_into, e_matmul, 0};
  MgBuffer in[MG_RUN_MAX_VALUES], out[MG_RUN_MAX_VALUES];
  memset(in, 0, sizeof in);
  memset(out, 0, sizeof out);
  MgStatus status = MG_STATUS_OK;
  // The inputs are exact (deviation 0) in both modes: converted once.
  for (uint32_t i = 0; i < sig->num_inputs; ++i) {
    // The logical shape: an input with a layout differs from the signature.
    const MgTensor *t = mg_graph_input_tensor(&program->graphs[0], i);
    if (!t || !mg_buffer_alloc(&in[i], t->rank, t->dims)) {
      status = mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
      break;
    }
    int64_t n = mg_buffer_numel(&in[i]);
    for (int64_t x = 0; x < n; ++x)
      st(&in[i].data[x], inputs[i][x], 0);
  }
  for (int m = 0; m < 2 && status == MG_STATUS_OK; ++m) {
    status = mg_exec_run(program, &domain, &modes[m], in, out, diag);
    for (uint32_t k = 0; k < sig->num_outputs && status == MG_STATUS_OK;
         ++k) {
      int64_t n = mg_buffer_numel(&out[k]);
      for (int64_t x = 0; x < n; ++x)
        into[m][k][x] = ld(&out[k].data[x]).s;
    }
    for (uint32_t k = 0; k < MG_RUN_MAX_VALUES; ++k)
      mg_buffer_free(&out[k]);
  }
  for (uint32_t i = 0; i < MG_RUN_MAX_VALUES; ++i)
    mg_buffer_free(&in[i]);
  return status;
}
