//===- field.c - Exponentiation, inverses and exact scalar images ---------===//
//
// Scalars of MUL_SCALAR / DIV_SCALAR are doubles. Every finite double is
// exactly mant * 2^e with |mant| < 2^53 an integer, and both Z_p and Z_q
// contain 2^-1, so the map v -> mant * 2^e mod m is a ring homomorphism on
// the dyadic rationals: 0.5 + 0.5 = 1 and 4096 * (1/4096) = 1 hold in the
// model exactly as over the reals.
//
//===----------------------------------------------------------------------===//
#include "mirage/field.h"

#include <math.h>

uint32_t mg_ff_pow(uint32_t base, uint64_t e, uint32_t m) {
  uint64_t r = 1 % m, b = base % m;
  while (e) {
    if (e & 1)
      r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1;
  }
  return (uint32_t)r;
}

uint32_t mg_ff_inv(uint32_t a, uint32_t m) { return mg_ff_pow(a, m - 2, m); }

bool mg_ff_scalar(double v, uint32_t m, uint32_t *out) {
  if (isnan(v) || isinf(v))
    return false;
  if (v == 0.0) {
    *out = 0;
    return true;
  }
  int e = 0;
  double f = frexp(v, &e); // v = f * 2^e, 0.5 <= |f| < 1
  bool neg = f < 0;
  // f * 2^53 is an integer below 2^53 (doubles have 53 significant bits).
  uint64_t mant = (uint64_t)ldexp(neg ? -f : f, 53);
  int64_t shift = (int64_t)e - 53;
  uint32_t r = (uint32_t)(mant % m);
  // 2 is a unit mod m, so 2^shift = 2^(shift mod (m-1)) by Fermat.
  int64_t order = (int64_t)m - 1;
  int64_t k = shift % order;
  if (k < 0)
    k += order;
  r = mg_ff_mul(r, mg_ff_pow(2, (uint64_t)k, m), m);
  *out = neg ? mg_ff_sub(0, r, m) : r;
  return true;
}

// One Miller-Rabin round: is n a strong probable prime to base a?
static bool strong_probable_prime(uint32_t n, uint32_t a) {
  if (a % n == 0)
    return true; // the base says nothing about n (n = 61)
  uint32_t d = n - 1;
  unsigned s = 0;
  while (!(d & 1)) {
    d >>= 1;
    ++s;
  }
  uint64_t x = mg_ff_pow(a % n, d, n);
  if (x == 1 || x == n - 1)
    return true;
  for (unsigned r = 1; r < s; ++r) {
    x = (x * x) % n;
    if (x == n - 1)
      return true;
  }
  return false;
}

// Bases 2, 7 and 61 decide every n < 4759123141 (Jaeschke, 1993).
bool mg_ff_is_prime(uint32_t n) {
  static const uint32_t small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  if (n < 2)
    return false;
  for (unsigned i = 0; i < sizeof small / sizeof *small; ++i) {
    if (n == small[i])
      return true;
    if (n % small[i] == 0)
      return false;
  }
  return strong_probable_prime(n, 2) && strong_probable_prime(n, 7) &&
         strong_probable_prime(n, 61);
}

// Rejection sampling over the window: every candidate q is equally likely,
// so the accepted one is uniform over the set. About 1 in 170 odd
// candidates is kept; the trial divisions reject most of the rest cheaply.
MgFfField mg_ff_field_draw(uint64_t key) {
  uint64_t state = key ^ 0x6669656c64736574ull; // "fieldset"
  for (;;) {
    state = mg_ff_mix(state);
    uint32_t q = MG_FF_Q_LO + (uint32_t)(state % (MG_FF_Q_HI - MG_FF_Q_LO));
    if (mg_ff_is_prime(q) && mg_ff_is_prime(2 * q + 1))
      return (MgFfField){2 * q + 1, q};
  }
}
