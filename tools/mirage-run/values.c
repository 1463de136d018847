//===- values.c - f16/bf16/f32 rounding, storage and random inputs --------===//
//
// Conversions are written out rather than left to the compiler: _Float16 and
// __bf16 are not portable C11, and the interpreter must see exactly the
// values the JIT sees. A double is first rounded to the format (one rounding,
// nearest-even, straight from the double so there is no double rounding
// through float), then encoded; encoding an already representable value is
// exact.
//
//===----------------------------------------------------------------------===//
#include "run.h"

#include <math.h>
#include <string.h>

#include "mirage/support.h"

/// A binary floating-point format: p significand bits (with the implicit
/// one), exponents of normal numbers in [emin, emax].
typedef struct Format {
  int p, emin, emax;
} Format;

static Format format_of(MgDType dtype) {
  switch (dtype) {
  case MG_DTYPE_F16:
    return (Format){11, -14, 15};
  case MG_DTYPE_BF16:
    return (Format){8, -126, 127};
  default:
    return (Format){24, -126, 127};
  }
}

static double round_to(Format f, double x) {
  if (x == 0 || !isfinite(x))
    return x;
  int e;
  frexp(x, &e); // |x| = m·2^e, m in [0.5, 1): leading bit has weight 2^(e-1)
  int lead = e - 1 < f.emin ? f.emin : e - 1; // subnormals share emin's quantum
  int quantum = lead - (f.p - 1);
  // Scaling by a power of two is exact; rint rounds to nearest-even in the
  // default rounding mode.
  double r = ldexp(rint(ldexp(x, -quantum)), quantum);
  double max = ldexp(2.0 - ldexp(1.0, 1 - f.p), f.emax);
  if (fabs(r) > max)
    return copysign(INFINITY, x);
  return r;
}

double mg_run_round(MgDType dtype, double x) {
  return round_to(format_of(dtype), x);
}

double mg_run_unit_roundoff(MgDType dtype) {
  return ldexp(1.0, -format_of(dtype).p);
}

uint16_t mg_run_f16_bits(double v) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double a = fabs(v);
  if (isnan(v))
    return 0x7e00;
  if (isinf(a))
    return sign | 0x7c00;
  if (a < ldexp(1.0, -14)) // subnormal (or zero): a = mant · 2^-24
    return sign | (uint16_t)ldexp(a, 24);
  int e;
  frexp(a, &e);
  int lead = e - 1;
  uint16_t mant = (uint16_t)(ldexp(a, 10 - lead) - 1024.0);
  return sign | (uint16_t)((lead + 15) << 10) | mant;
}

double mg_run_f16_value(uint16_t bits) {
  double sign = bits & 0x8000 ? -1.0 : 1.0;
  int exp = (bits >> 10) & 0x1f;
  int mant = bits & 0x3ff;
  if (exp == 0x1f)
    return mant ? NAN : sign * INFINITY;
  if (exp == 0)
    return sign * ldexp(mant, -24);
  return sign * ldexp(1024 + mant, exp - 25);
}

uint16_t mg_run_bf16_bits(double v) {
  if (isnan(v))
    return 0x7fc0;
  float f = (float)v; // exact: v is a bf16 value, hence a float value
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (uint16_t)(u >> 16);
}

double mg_run_bf16_value(uint16_t bits) {
  uint32_t u = (uint32_t)bits << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

double mg_run_load(MgDType dtype, const void *storage, size_t i) {
  if (dtype == MG_DTYPE_F32)
    return ((const float *)storage)[i];
  uint16_t bits = ((const uint16_t *)storage)[i];
  return dtype == MG_DTYPE_F16 ? mg_run_f16_value(bits)
                               : mg_run_bf16_value(bits);
}

void mg_run_store(MgDType dtype, void *storage, size_t i, double v) {
  if (dtype == MG_DTYPE_F32)
    ((float *)storage)[i] = (float)v;
  else
    ((uint16_t *)storage)[i] =
        dtype == MG_DTYPE_F16 ? mg_run_f16_bits(v) : mg_run_bf16_bits(v);
}

void mg_run_random_fill(uint64_t *state, MgDType dtype, double range,
                        double *values, void *storage, size_t n) {
  MgRng rng = {*state};
  for (size_t i = 0; i < n; ++i) {
    // 53 random bits -> [0, 1) -> [-range, range).
    double unit = ldexp((double)(mg_rng_next(&rng) >> 11), -53);
    double v = mg_run_round(dtype, (2.0 * unit - 1.0) * range);
    values[i] = v;
    mg_run_store(dtype, storage, i, v);
  }
  *state = rng.state;
}
