//===- softfloat.c - Float format conversions on bit patterns -------------===//
//
// One routine converts between any two binary formats given by their
// exponent and stored-mantissa widths. A finite input is read as an integer
// significand `sig` times 2^e; the target's quantum 2^q follows from the
// value's leading bit (or the target's smallest normal exponent, so
// subnormals come out right); `sig` is shifted to that quantum with
// round-to-nearest-even. The encoding (biased exponent - 1) << m plus the
// rounded significand, implicit bit included, is the same formula for
// normals and subnormals, and a rounding carry moves into the exponent (or
// onto infinity) by itself.
//
//===----------------------------------------------------------------------===//
#include "mirage/support.h"

typedef struct Format {
  int man; // stored mantissa bits
  int exp; // exponent bits
} Format;

static const Format F64 = {52, 11}, F32 = {23, 8}, F16 = {10, 5},
                    BF16 = {7, 8};

static int top_bit(uint64_t x) { return 63 - __builtin_clzll(x); }

static uint64_t convert(uint64_t x, Format src, Format dst) {
  const int64_t sbias = (1 << (src.exp - 1)) - 1;
  const int64_t dbias = (1 << (dst.exp - 1)) - 1;
  const uint64_t smax = (1u << src.exp) - 1, dmax = (1u << dst.exp) - 1;
  uint64_t sign = (x >> (src.man + src.exp)) & 1;
  uint64_t exp = (x >> src.man) & smax;
  uint64_t man = x & ((UINT64_C(1) << src.man) - 1);
  uint64_t out_sign = sign << (dst.man + dst.exp);
  uint64_t inf = out_sign | dmax << dst.man;
  if (exp == smax) {
    if (!man)
      return inf;
    // NaN: keep the leading payload bits, set the quiet bit.
    uint64_t payload = src.man >= dst.man ? man >> (src.man - dst.man)
                                          : man << (dst.man - src.man);
    return inf | UINT64_C(1) << (dst.man - 1) | payload;
  }
  if (!exp && !man)
    return out_sign;
  uint64_t sig = exp ? man | UINT64_C(1) << src.man : man;
  int64_t e = (exp ? (int64_t)exp : 1) - sbias - src.man; // value = sig·2^e
  int64_t lead = top_bit(sig) + e;
  int64_t min_exp = 1 - dbias; // exponent of the smallest normal
  int64_t target_exp = lead < min_exp ? min_exp : lead;
  if (target_exp + dbias >= (int64_t)dmax)
    return inf; // at least twice the largest finite value
  int64_t shift = (target_exp - dst.man) - e; // bits of sig below the quantum
  uint64_t r;
  if (shift <= 0) {
    r = sig << -shift; // exact (widening)
  } else if (shift > 63) {
    r = 0; // below half the smallest subnormal
  } else {
    uint64_t rem = sig & ((UINT64_C(1) << shift) - 1);
    uint64_t half = UINT64_C(1) << (shift - 1);
    r = sig >> shift;
    if (rem > half || (rem == half && (r & 1)))
      ++r;
  }
  // A rounding carry past the largest finite value lands exactly on the
  // pattern of infinity.
  return out_sign | (((uint64_t)(target_exp + dbias - 1) << dst.man) + r);
}

uint16_t mg_softfloat_f32_to_bf16(uint32_t f32) {
  return (uint16_t)convert(f32, F32, BF16);
}

uint16_t mg_softfloat_f32_to_f16(uint32_t f32) {
  return (uint16_t)convert(f32, F32, F16);
}

uint16_t mg_softfloat_f64_to_bf16(uint64_t f64) {
  return (uint16_t)convert(f64, F64, BF16);
}

uint16_t mg_softfloat_f64_to_f16(uint64_t f64) {
  // Fast path, the same arithmetic specialised: results in f16's normal
  // range (biased exponents 1..30, from binary64's 1009..1038) drop 42 of
  // the 52 mantissa bits with round-to-nearest-even, and a carry moves
  // into the exponent, up to infinity, by itself. mirage-run rounds
  // hundreds of millions of random weights through here.
  uint64_t exp = (f64 >> 52) & 0x7ff;
  if (exp >= 1023 - 14 && exp <= 1023 + 15) {
    uint64_t man = f64 & ((UINT64_C(1) << 52) - 1);
    uint64_t r = man >> 42, rem = man & ((UINT64_C(1) << 42) - 1);
    uint64_t half = UINT64_C(1) << 41;
    uint64_t bits = ((exp - 1023 + 15) << 10) + r;
    bits += rem > half || (rem == half && (r & 1));
    return (uint16_t)((f64 >> 63) << 15 | bits);
  }
  return (uint16_t)convert(f64, F64, F16);
}

uint32_t mg_softfloat_f16_to_f32(uint16_t f16) {
  return (uint32_t)convert(f16, F16, F32);
}

uint32_t mg_softfloat_bf16_to_f32(uint16_t bf16) {
  return (uint32_t)convert(bf16, BF16, F32);
}
