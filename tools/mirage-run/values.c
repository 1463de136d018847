//===- values.c - f16/bf16/f32 rounding, storage and random inputs --------===//
//
// Conversions are written out rather than left to the compiler: _Float16 and
// __bf16 are not portable C11, and the interpreter must see exactly the
// values the JIT sees. A double is rounded to the format once, nearest-even,
// straight from the double (no double rounding through float), by lib/
// support's soft-float encoding, the same the JIT's helpers use.
//
//===----------------------------------------------------------------------===//
#include "run.h"

#include <math.h>
#include <string.h>

#include "mirage/support.h"

/// Significand bits (with the implicit one) of an element type.
static int precision(MgDType dtype) {
  switch (dtype) {
  case MG_DTYPE_F16:
    return 11;
  case MG_DTYPE_BF16:
    return 8;
  default:
    return 24;
  }
}

// One rounding to nearest-even straight from the double: the soft-float
// encoding for f16/bf16 (the JIT's own helpers), the hardware's for f32.
double mg_run_round(MgDType dtype, double x) {
  switch (dtype) {
  case MG_DTYPE_F16:
    return mg_run_f16_value(mg_run_f16_bits(x));
  case MG_DTYPE_BF16:
    return mg_run_bf16_value(mg_run_bf16_bits(x));
  default:
    return (float)x;
  }
}

double mg_run_unit_roundoff(MgDType dtype) {
  return ldexp(1.0, -precision(dtype));
}

double mg_run_max_finite(MgDType dtype) {
  switch (dtype) {
  case MG_DTYPE_F16:
    return 65504.0;
  case MG_DTYPE_BF16:
    return ldexp(255.0, 120); // 0x7f7f
  default:
    return ldexp(16777215.0, 104); // FLT_MAX
  }
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
