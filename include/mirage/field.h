//===- field.h - The finite fields Z_p and Z_q of the verifier --*- C -*-===//
//
// p = 2q + 1 is a safe prime just below 2^31 and g = 4 generates the
// subgroup of order q in Z_p* (4 = 2^2 is a quadratic residue and 4 != 1,
// so its order divides q and, q being prime, equals q). Hence
// x -> g^x is a homomorphism from (Z_q, +) onto that subgroup, which is what
// makes exp(a + b) = exp(a) * exp(b) hold in the model.
//
// A cell packs one residue pair: bits 0..31 hold x_p (< p), bits 32..63 hold
// x_q (< q) or MG_FF_BOTTOM (⊥) when the value came out of an exp and must
// not feed another one. Every residue is < 2^31, so a product fits in 62
// bits and never overflows uint64_t.
//
// The field is drawn per test (mg_ff_field_draw): q uniform among the primes
// of [MG_FF_Q_LO, 2^30) with 2q + 1 prime too, so that a constant of a
// program (c and c + p are one residue) collides with another only when p
// divides an integer the constants make, which few of the set's primes do
// (docs/verification.md, "Constants"). Every such p has p = 2q + 1 with q
// prime, so g = 4 works for all of them. MG_FF_P, MG_FF_Q, the largest safe
// prime below 2^31, is the field of a context nobody rekeyed; how it was
// found: for (p = 2^31 - 1; ; p -= 2) if (prime(p) && prime((p-1)/2)) break.
// The unit test re-checks both, and counts the set with a sieve.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_FIELD_H
#define MIRAGE_FIELD_H

#include "mirage/interp.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MG_FF_P 2147483579u
#define MG_FF_Q 1073741789u
#define MG_FF_G 4u
/// The set of fields: q in [MG_FF_Q_LO, MG_FF_Q_HI), q and 2q + 1 prime.
#define MG_FF_Q_LO 939524096u  // 2^30 - 2^27
#define MG_FF_Q_HI 1073741824u // 2^30
#define MG_FF_P_LO (2u * MG_FF_Q_LO + 1u)
/// How many fields the set holds (test_verify counts them with a sieve).
#define MG_FF_FIELDS 399294u

/// One test's field: p = 2q + 1, both prime, p < 2^31.
typedef struct MgFfField {
  uint32_t p, q;
} MgFfField;
/// The q component of an exp result: not a residue (every residue is < q).
#define MG_FF_BOTTOM 0xFFFFFFFFu

static inline uint32_t mg_ff_cell_p(MgCell c) { return (uint32_t)c; }
static inline uint32_t mg_ff_cell_q(MgCell c) { return (uint32_t)(c >> 32); }
static inline MgCell mg_ff_cell(uint32_t p, uint32_t q) {
  return (MgCell)p | ((MgCell)q << 32);
}
static inline bool mg_ff_cell_q_live(MgCell c) {
  return mg_ff_cell_q(c) != MG_FF_BOTTOM;
}

static inline uint32_t mg_ff_add(uint32_t a, uint32_t b, uint32_t m) {
  uint32_t s = a + b; // < 2^32: both operands are < 2^31
  return s >= m ? s - m : s;
}
static inline uint32_t mg_ff_sub(uint32_t a, uint32_t b, uint32_t m) {
  return a >= b ? a - b : a + (m - b);
}
static inline uint32_t mg_ff_mul(uint32_t a, uint32_t b, uint32_t m) {
  return (uint32_t)(((uint64_t)a * b) % m);
}

/// base^e mod m.
MG_API uint32_t mg_ff_pow(uint32_t base, uint64_t e, uint32_t m);
/// The inverse of a (non-zero, m prime) by Fermat: a^(m-2) mod m.
MG_API uint32_t mg_ff_inv(uint32_t a, uint32_t m);

/// Maps a finite double exactly: v = mant * 2^e with an integer mantissa,
/// so its image is (mant mod m) * 2^e mod m, using 2^-1 for negative e.
/// False for NaN and infinities.
MG_API bool mg_ff_scalar(double v, uint32_t m, uint32_t *out);

/// Deterministic primality for 32-bit n (Miller-Rabin, bases 2, 7, 61).
MG_API bool mg_ff_is_prime(uint32_t n);
/// The field of the test keyed `key`: uniform over the set (rejection
/// sampling from a stream keyed by `key`), the same for the same key.
MG_API MgFfField mg_ff_field_draw(uint64_t key);
/// log2 of the smallest q of the set: a non-zero integer of at most `bits`
/// bits is divisible by at most floor(bits / MG_FF_LOG2_Q_LO) of its primes.
#define MG_FF_LOG2_Q_LO 29.8 // log2(MG_FF_Q_LO) = 29.807.., rounded down

/// A strong 64-bit mix (SplitMix64 finaliser).
static inline uint64_t mg_ff_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_FIELD_H
