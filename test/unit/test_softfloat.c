//===- test_softfloat.c - Bit-exact float conversions (lib/support) -------===//
//
// Every conversion is checked against an independent reference written with
// double arithmetic (frexp/ldexp/rint, exact for these formats): widenings
// over all 2^16 inputs; narrowings at every rounding boundary of the target
// (each midpoint between neighbours and the inputs just beside it), over a
// strided sweep of all 2^32 binary32 patterns and random binary64 values,
// with NaNs, infinities, zeros and subnormals on both sides.
//
//===----------------------------------------------------------------------===//
#include "mirage/support.h"
#include "test.h"

#include <math.h>
#include <string.h>

/// Precision p (with the implicit bit), normal exponent range and bias.
typedef struct Fmt {
  int p, emin, emax;
} Fmt;

static const Fmt HALF = {11, -14, 15}, BFLOAT = {8, -126, 127};

/// The value of a 16-bit pattern of format `f` (not NaN).
static double value16(Fmt f, uint16_t b) {
  int m = f.p - 1, ebits = f.p == 11 ? 5 : 8;
  double sign = b & 0x8000 ? -1.0 : 1.0;
  int exp = (b >> m) & ((1 << ebits) - 1);
  int man = b & ((1 << m) - 1);
  if (exp == (1 << ebits) - 1)
    return sign * INFINITY;
  if (exp == 0)
    return sign * ldexp(man, f.emin - m);
  return sign * ldexp((1 << m) + man, exp - f.emax - m);
}

static bool is_nan16(Fmt f, uint16_t b) {
  int m = f.p - 1;
  uint16_t exp_mask = (uint16_t)(0x7fff & ~((1 << m) - 1));
  return (b & exp_mask) == exp_mask && (b & ((1 << m) - 1));
}

/// Reference narrowing of a non-NaN double: round with rint at the
/// target's quantum, then find the pattern by search over the sorted
/// non-negative patterns (value16 is monotonic in the bits).
static uint16_t reference16(Fmt f, double x) {
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  double a = fabs(x);
  double r = a;
  if (a != 0 && isfinite(a)) {
    int e;
    frexp(a, &e);
    int lead = e - 1 < f.emin ? f.emin : e - 1;
    int quantum = lead - (f.p - 1);
    r = ldexp(rint(ldexp(a, -quantum)), quantum);
  }
  uint16_t lo = 0, hi = f.p == 11 ? 0x7c00 : 0x7f80; // +0 .. +inf
  if (r > value16(f, (uint16_t)(hi - 1))) // past the largest finite value
    return sign | hi;
  while (lo < hi) { // first pattern whose value >= r
    uint16_t mid = (uint16_t)((lo + hi) / 2);
    if (value16(f, mid) < r)
      lo = (uint16_t)(mid + 1);
    else
      hi = mid;
  }
  CHECK(value16(f, lo) == r);
  return sign | lo;
}

static void test_softfloat_widen_all(void) {
  int bad_f16 = 0, bad_bf16 = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint16_t h = (uint16_t)b;
    uint32_t got = mg_softfloat_f16_to_f32(h);
    if (is_nan16(HALF, h)) {
      // Quiet NaN, same sign, payload moved to the top.
      uint32_t want = (h & 0x8000u) << 16 | 0x7fc00000u | (h & 0x3ffu) << 13;
      bad_f16 += got != want;
    } else {
      float want = (float)value16(HALF, h); // exact
      bad_f16 += got != mg_f32_bits(want);
    }
    got = mg_softfloat_bf16_to_f32(h);
    uint32_t want = (uint32_t)h << 16;
    if (is_nan16(BFLOAT, h))
      want |= 0x00400000u;
    bad_bf16 += got != want;
  }
  CHECK_EQ_INT(bad_f16, 0);
  CHECK_EQ_INT(bad_bf16, 0);
}

typedef uint16_t (*Narrow32)(uint32_t);
typedef uint16_t (*Narrow64)(uint64_t);

static int check32(Fmt f, Narrow32 fn, uint32_t u) {
  float x = mg_f32_from_bits(u);
  uint16_t got = fn(u);
  if (isnan(x)) {
    int m = f.p - 1;
    uint16_t want = (uint16_t)((u >> 16 & 0x8000) |
                               (f.p == 11 ? 0x7c00 : 0x7f80) |
                               1u << (m - 1) | (u & 0x7fffff) >> (23 - m));
    return got != want;
  }
  uint16_t want = reference16(f, x);
  if (got != want)
    fprintf(stderr, "  f32 0x%08x -> got 0x%04x, want 0x%04x\n", u, got, want);
  return got != want;
}

static int check64(Fmt f, Narrow64 fn, double x) {
  uint16_t got = fn(mg_f64_bits(x));
  if (isnan(x))
    return !is_nan16(f, got) || (got & 0x8000) != (signbit(x) ? 0x8000 : 0);
  uint16_t want = reference16(f, x);
  if (got != want)
    fprintf(stderr, "  f64 %a -> got 0x%04x, want 0x%04x\n", x, got, want);
  return got != want;
}

/// Every boundary of the target format: for each pair of neighbours, the
/// midpoint (a tie, exactly representable in binary32 and binary64) and the
/// values one binary32/binary64 step beside it; also each target value
/// itself and past the largest finite value.
static void boundaries(Fmt f, Narrow32 fn32, Narrow64 fn64) {
  int bad32 = 0, bad64 = 0;
  uint16_t top = f.p == 11 ? 0x7c00 : 0x7f80;
  for (uint32_t b = 0; b < top; ++b) {
    for (int neg = 0; neg < 2; ++neg) {
      double s = neg ? -1.0 : 1.0;
      double lo = s * value16(f, (uint16_t)b);
      double hi = b + 1 < top ? s * value16(f, (uint16_t)(b + 1))
                              : s * ldexp(2.0, f.emax); // rounds to inf
      double mid = (lo + hi) / 2;
      double pts64[] = {lo, mid, nextafter(mid, 0), nextafter(mid, 2 * mid)};
      for (size_t i = 0; i < sizeof pts64 / sizeof *pts64; ++i)
        bad64 += check64(f, fn64, pts64[i]);
      float m32 = (float)mid; // exact: mid has at most p + 1 bits
      float pts32[] = {(float)lo, m32, nextafterf(m32, 0),
                       nextafterf(m32, 2 * m32)};
      for (size_t i = 0; i < sizeof pts32 / sizeof *pts32; ++i)
        bad32 += check32(f, fn32, mg_f32_bits(pts32[i]));
    }
  }
  CHECK_EQ_INT(bad32, 0);
  CHECK_EQ_INT(bad64, 0);
}

static void test_softfloat_f16_boundaries(void) {
  boundaries(HALF, mg_softfloat_f32_to_f16, mg_softfloat_f64_to_f16);
}

static void test_softfloat_bf16_boundaries(void) {
  boundaries(BFLOAT, mg_softfloat_f32_to_bf16, mg_softfloat_f64_to_bf16);
}

// Sanitized builds sweep a tenth of the points: the sweeps check values,
// which the plain build checks in full.
#ifdef MIRAGE_TEST_SANITIZED
#define SWEEP_STEP 10007u
#define RANDOM_DRAWS (1 << 17)
#else
#define SWEEP_STEP 1021u
#define RANDOM_DRAWS (1 << 20)
#endif

/// A strided sweep over all 2^32 binary32 patterns (every exponent, sign,
/// NaN and subnormal region is hit), step coprime to 2^32 (a prime).
static void test_softfloat_f32_sweep(void) {
  int bad_f16 = 0, bad_bf16 = 0;
  const uint32_t step = SWEEP_STEP;
  uint32_t u = 0;
  for (uint32_t i = 0; i < (uint32_t)((UINT64_C(1) << 32) / step); ++i, u += step) {
    bad_f16 += check32(HALF, mg_softfloat_f32_to_f16, u);
    bad_bf16 += check32(BFLOAT, mg_softfloat_f32_to_bf16, u);
  }
  CHECK_EQ_INT(bad_f16, 0);
  CHECK_EQ_INT(bad_bf16, 0);
}

/// Random binary64 values over every exponent, and some special values.
static void test_softfloat_f64_random(void) {
  MgRng rng = {42};
  int bad = 0;
  for (int i = 0; i < RANDOM_DRAWS; ++i) {
    uint64_t u = mg_rng_next(&rng);
    double x;
    memcpy(&x, &u, sizeof x);
    bad += check64(HALF, mg_softfloat_f64_to_f16, x);
    bad += check64(BFLOAT, mg_softfloat_f64_to_bf16, x);
    // Concentrated where the targets' finite values are.
    double y = ldexp((double)(u >> 11) / 9007199254740992.0 + 0.5,
                     (int)(u % 300) - 150);
    bad += check64(HALF, mg_softfloat_f64_to_f16, y);
    bad += check64(BFLOAT, mg_softfloat_f64_to_bf16, y);
  }
  double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 65504.0,
                      65519.99, 65520.0, 5.96e-8, 2.98e-8, 2.9802322387695312e-8,
                      1e-300, -1e300, 3.4e38, 3.3961775292304e38};
  for (size_t i = 0; i < sizeof special / sizeof *special; ++i) {
    bad += check64(HALF, mg_softfloat_f64_to_f16, special[i]);
    bad += check64(BFLOAT, mg_softfloat_f64_to_bf16, special[i]);
  }
  CHECK_EQ_INT(bad, 0);
}

/// Values worked out by hand, so the reference itself is checked too.
static void test_softfloat_known_values(void) {
  CHECK_EQ_INT(mg_softfloat_f32_to_bf16(mg_f32_bits(1.0f)), 0x3f80);
  CHECK_EQ_INT(mg_softfloat_f32_to_bf16(0x3f808000), 0x3f80); // tie, even
  CHECK_EQ_INT(mg_softfloat_f32_to_bf16(0x3f818000), 0x3f82); // tie, odd up
  CHECK_EQ_INT(mg_softfloat_f32_to_bf16(0x3f808001), 0x3f81);
  CHECK_EQ_INT(mg_softfloat_f32_to_bf16(0x7f7fffff), 0x7f80); // max -> inf
  CHECK_EQ_INT(mg_softfloat_f32_to_bf16(0x00000001), 0x0000); // subnormal
  CHECK_EQ_INT(mg_softfloat_f32_to_bf16(0x00018000), 0x0002); // subnormal tie
  CHECK_EQ_INT(mg_softfloat_f32_to_bf16(0xff800001), 0xffc0); // sNaN quieted
  CHECK_EQ_INT(mg_softfloat_f32_to_f16(mg_f32_bits(65504.0f)), 0x7bff);
  CHECK_EQ_INT(mg_softfloat_f32_to_f16(mg_f32_bits(65519.0f)), 0x7bff);
  CHECK_EQ_INT(mg_softfloat_f32_to_f16(mg_f32_bits(65520.0f)), 0x7c00);
  CHECK_EQ_INT(mg_softfloat_f32_to_f16(mg_f32_bits(0x1p-24f)), 0x0001);
  CHECK_EQ_INT(mg_softfloat_f32_to_f16(mg_f32_bits(0x1p-25f)), 0x0000); // tie
  CHECK_EQ_INT(mg_softfloat_f32_to_f16(mg_f32_bits(0x1.8p-24f)), 0x0002);
  CHECK_EQ_INT(mg_softfloat_f32_to_f16(mg_f32_bits(-0.0f)), 0x8000);
  CHECK_EQ_INT(mg_softfloat_f32_to_f16(mg_f32_bits(0x1.ffcp-15f)), 0x0400);
  // One rounding from binary64: through binary32 this would round twice.
  double d = 1.0 + 0x1p-11 + 0x1p-40; // above the f16 tie by 2^-40
  CHECK_EQ_INT(mg_softfloat_f64_to_f16(mg_f64_bits(d)), 0x3c01);
  CHECK_EQ_INT(mg_softfloat_f32_to_f16(mg_f32_bits((float)d)), 0x3c00);
  CHECK_EQ_INT(mg_softfloat_f16_to_f32(0x0001), mg_f32_bits(0x1p-24f));
  CHECK_EQ_INT(mg_softfloat_f16_to_f32(0xfc00), 0xff800000u);
  CHECK_EQ_INT(mg_softfloat_f16_to_f32(0x7d00), 0x7fe00000u); // sNaN quieted
  CHECK_EQ_INT(mg_softfloat_bf16_to_f32(0x3f80), 0x3f800000u);
}

#ifdef __FLT16_MAX__
/// Where the compiler has _Float16 (GCC 12+ and clang 15+ on x86-64), its
/// conversion (F16C or libgcc) agrees with ours.
static void test_softfloat_matches_compiler_f16(void) {
  int bad = 0;
  const uint32_t step = 4099;
  uint32_t u = 0;
  for (uint32_t i = 0; i < (uint32_t)((UINT64_C(1) << 32) / step); ++i, u += step) {
    volatile float x = mg_f32_from_bits(u);
    _Float16 h = (_Float16)x;
    uint16_t hb;
    memcpy(&hb, &h, sizeof hb);
    uint16_t got = mg_softfloat_f32_to_f16(u);
    bad += isnan(x) ? !is_nan16(HALF, got) : got != hb;
  }
  CHECK_EQ_INT(bad, 0);
}
#endif

int main(void) {
  RUN_TEST(test_softfloat_known_values);
  RUN_TEST(test_softfloat_widen_all);
  RUN_TEST(test_softfloat_f16_boundaries);
  RUN_TEST(test_softfloat_bf16_boundaries);
  RUN_TEST(test_softfloat_f32_sweep);
  RUN_TEST(test_softfloat_f64_random);
#ifdef __FLT16_MAX__
  RUN_TEST(test_softfloat_matches_compiler_f16);
#endif
  return TEST_SUMMARY();
}
