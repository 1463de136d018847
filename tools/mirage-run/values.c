//===- values.c - f16/bf16/f32 rounding, storage and random inputs --------===//
//
// Conversions are written out rather than left to the compiler: _Float16 and
// __bf16 are not portable C11, and the interpreter must see exactly the
// values the JIT sees. A double is rounded to the format once, nearest-even,
// straight from the double (no double rounding through float), by lib/
// support's soft-float encoding, the same the JIT's helpers use.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // sysconf
#include "run.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

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

double mg_run_unit_roundoff(MgDType dtype) {
  return ldexp(1.0, -precision(dtype));
}

// The encodings are lib/support's soft-float conversions, the same ones the
// JIT's helpers use.
uint16_t mg_run_f16_bits(double v) {
  return mg_softfloat_f64_to_f16(mg_f64_bits(v));
}

// Decoding is a table lookup: every 16-bit pattern decoded once (LLM
// weights are read by the hundred million).
static double f16_values[1 << 16], bf16_values[1 << 16];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void fill_tables(void) {
  for (uint32_t b = 0; b < (1u << 16); ++b) {
    f16_values[b] =
        (double)mg_f32_from_bits(mg_softfloat_f16_to_f32((uint16_t)b));
    bf16_values[b] =
        (double)mg_f32_from_bits(mg_softfloat_bf16_to_f32((uint16_t)b));
  }
}

double mg_run_f16_value(uint16_t bits) {
  pthread_once(&tables_once, fill_tables);
  return f16_values[bits];
}

uint16_t mg_run_bf16_bits(double v) {
  return mg_softfloat_f64_to_bf16(mg_f64_bits(v));
}

double mg_run_bf16_value(uint16_t bits) {
  pthread_once(&tables_once, fill_tables);
  return bf16_values[bits];
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

/// Draws [lo, hi) of a stream: element i is the stream's draw i, whoever
/// draws it, so the values do not depend on how the work is split.
typedef struct FillPart {
  uint64_t state; // the stream's state before draw 0
  MgDType dtype;
  double range;
  double *values; // NULL: storage only
  void *storage;
  size_t lo, hi;
} FillPart;

static void *fill_part(void *ud) {
  const FillPart *p = ud;
  MgRng rng = {p->state};
  mg_rng_skip(&rng, p->lo);
  for (size_t i = p->lo; i < p->hi; ++i) {
    // 53 random bits -> [0, 1) -> [-range, range).
    double unit = (double)(mg_rng_next(&rng) >> 11) * 0x1p-53; // exact
    double v = (2.0 * unit - 1.0) * p->range;
    // Storing rounds to nearest-even; the double is the stored value.
    mg_run_store(p->dtype, p->storage, i, v);
    if (p->values)
      p->values[i] = mg_run_load(p->dtype, p->storage, i);
  }
  return NULL;
}

/// Fills in parallel above a few million elements (LLM weights take
/// seconds to draw on one core).
static void fill(uint64_t *state, MgDType dtype, double range,
                 double *values, void *storage, size_t n) {
  enum { MAX_THREADS = 8, PER_THREAD = 1 << 21 };
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t threads = n / PER_THREAD;
  if (threads > (size_t)(cpus > 0 ? cpus : 1))
    threads = (size_t)(cpus > 0 ? cpus : 1);
  if (threads > MAX_THREADS)
    threads = MAX_THREADS;
  if (threads < 1)
    threads = 1;
  FillPart parts[MAX_THREADS];
  pthread_t ids[MAX_THREADS];
  bool started[MAX_THREADS] = {false};
  for (size_t t = 0; t < threads; ++t)
    parts[t] = (FillPart){*state, dtype, range, values, storage,
                          n / threads * t,
                          t + 1 == threads ? n : n / threads * (t + 1)};
  for (size_t t = 1; t < threads; ++t)
    started[t] = pthread_create(&ids[t], NULL, fill_part, &parts[t]) == 0;
  fill_part(&parts[0]);
  for (size_t t = 1; t < threads; ++t)
    if (started[t])
      pthread_join(ids[t], NULL);
    else
      fill_part(&parts[t]); // no thread: draw it here
  MgRng rng = {*state};
  mg_rng_skip(&rng, n);
  *state = rng.state;
}

void mg_run_random_fill(uint64_t *state, MgDType dtype, double range,
                        double *values, void *storage, size_t n) {
  fill(state, dtype, range, values, storage, n);
}

void mg_run_random_fill_storage(uint64_t *state, MgDType dtype, double range,
                                void *storage, size_t n) {
  fill(state, dtype, range, NULL, storage, n);
}
