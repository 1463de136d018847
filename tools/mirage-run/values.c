//===- values.c - f16/bf16/f32 rounding, storage and random inputs --------===//
//
// Conversions are written out rather than left to the compiler: _Float16 and
// __bf16 are not portable C11, and the interpreter must see exactly the
// values the JIT sees. A double is rounded to the format once, nearest-even,
// straight from the double (no double rounding through float); encoding
// (lib/support's soft-float, as the JIT's helpers) is then exact.
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

// The encodings are lib/support's soft-float conversions, the same ones the
// JIT's helpers use.
uint16_t mg_run_f16_bits(double v) {
  return mg_softfloat_f64_to_f16(mg_f64_bits(v));
}

double mg_run_f16_value(uint16_t bits) {
  return (double)mg_f32_from_bits(mg_softfloat_f16_to_f32(bits));
}

uint16_t mg_run_bf16_bits(double v) {
  return mg_softfloat_f64_to_bf16(mg_f64_bits(v));
}

double mg_run_bf16_value(uint16_t bits) {
  return (double)mg_f32_from_bits(mg_softfloat_bf16_to_f32(bits));
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
