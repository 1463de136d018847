//===- test_verify_constants.c - Per-test fields and sound constants ------===//
//
// The set of fields is what the bound counts (MG_FF_FIELDS, re-counted here
// with a sieve); the draw stays in it and is reproducible; constants that
// are one residue in a fixed field (c and c + p, 69 and 2^31 for the old
// p = 2^31 - 69) are told apart for every seed; equal programs with large
// constants stay equal, and their bound carries the constants' term.
//
//===----------------------------------------------------------------------===//
#include "mirage/ff_domain.h"
#include "mirage/field.h"
#include "mirage/verify.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Odd-only sieve of [lo, hi) (lo odd): composite[(n - lo) / 2].
static uint8_t *sieve_odd(uint64_t lo, uint64_t hi) {
  uint64_t n = (hi - lo + 1) / 2;
  uint8_t *composite = calloc(n, 1);
  CHECK(composite != NULL);
  for (uint64_t d = 3; d * d < hi; d += 2) {
    if (!mg_ff_is_prime((uint32_t)d))
      continue; // multiples of a composite are crossed out by its factors
    uint64_t first = (lo + d - 1) / d * d;
    if (first < d * d)
      first = d * d;
    if (!(first & 1))
      first += d;
    for (uint64_t m = first; m < hi; m += 2 * d)
      composite[(m - lo) / 2] = 1;
  }
  return composite;
}

static void test_constants_field_set_count(void) {
  // q odd in [Q_LO + 1, Q_HI), p = 2q + 1 odd in [P_LO + 2, 2^31 + 1).
  uint64_t qlo = MG_FF_Q_LO + 1, qhi = MG_FF_Q_HI;
  uint64_t plo = 2 * qlo + 1, phi = 2 * qhi + 1;
  uint8_t *cq = sieve_odd(qlo, qhi), *cp = sieve_odd(plo, phi);
  uint32_t count = 0, checked = 0;
  for (uint64_t q = qlo; q < qhi; q += 2)
    if (!cq[(q - qlo) / 2] && !cp[(2 * q + 1 - plo) / 2]) {
      ++count;
      // The library's primality test agrees on a sample of the set.
      if (count % 4096 == 0) {
        CHECK(mg_ff_is_prime((uint32_t)q));
        CHECK(mg_ff_is_prime((uint32_t)(2 * q + 1)));
        ++checked;
      }
    }
  CHECK_EQ_INT(count, MG_FF_FIELDS);
  CHECK(checked > 90);
  // The largest field is the fixed one of earlier versions.
  CHECK(!cq[(MG_FF_Q - qlo) / 2] && !cp[(MG_FF_P - plo) / 2]);
  free(cq);
  free(cp);
  // Miller-Rabin against trial division below 70000 (bases 7 and 61 among
  // them), then against known composites: strong pseudoprimes to some of
  // its bases, Carmichael numbers, a square of a prime near 2^15.
  const uint32_t composites[] = {2047, 3215031751u, 561, 1105, 25326001,
                                 46337u * 46337u, 4294967295u};
  for (unsigned i = 0; i < sizeof composites / sizeof *composites; ++i)
    CHECK(!mg_ff_is_prime(composites[i]));
  CHECK(mg_ff_is_prime(4294967291u));
  for (uint32_t n = 0; n < 70000; ++n) {
    bool prime = n >= 2;
    for (uint32_t d = 2; prime && d * d <= n; ++d)
      prime = n % d != 0;
    if (prime != mg_ff_is_prime(n))
      CHECK_EQ_INT(mg_ff_is_prime(n), prime);
  }
}

static void test_constants_field_draw(void) {
  uint32_t distinct = 0;
  uint32_t seen[256];
  for (uint64_t key = 0; key < 256; ++key) {
    MgFfField f = mg_ff_field_draw(key);
    CHECK(f.q >= MG_FF_Q_LO && f.q < MG_FF_Q_HI);
    CHECK_EQ_INT(f.p, 2ull * f.q + 1);
    CHECK(mg_ff_is_prime(f.p) && mg_ff_is_prime(f.q));
    CHECK_EQ_INT(mg_ff_field_draw(key).p, f.p); // reproducible
    bool again = false;
    for (uint32_t i = 0; i < distinct; ++i)
      again = again || seen[i] == f.p;
    if (!again)
      seen[distinct++] = f.p;
  }
  // 256 draws from ~400k fields: a repeat is unlikely, many are impossible.
  CHECK(distinct >= 250);
  // The exp homomorphism holds in a drawn field as in the fixed one.
  MgFfContext ctx;
  mg_ff_context_init(&ctx, 1);
  mg_ff_rekey_test(&ctx, 12345);
  MgFfField f = mg_ff_field_draw(12345);
  CHECK_EQ_INT(ctx.field.p, f.p);
  uint32_t a = 123456789 % f.q, b = 987654 % f.q;
  CHECK_EQ_INT(mg_ff_exp(&ctx, mg_ff_add(a, b, f.q)),
               mg_ff_mul(mg_ff_exp(&ctx, a), mg_ff_exp(&ctx, b), f.p));
  CHECK_EQ_INT(mg_ff_exp(&ctx, f.q - 1),
               mg_ff_inv(mg_ff_exp(&ctx, 1), f.p)); // g^(q-1) = g^-1
  mg_ff_context_dispose(&ctx);
}

// out = x·c (kind MUL_SCALAR) or x/c (DIV_SCALAR) on a 4x8 input, then
// exp of it when `exp_after`, then + x when `plus_x`.
static MgProgram *scaled(MgOpKind kind, double c, bool exp_after,
                         bool plus_x) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t dims[2] = {4, 8};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, dims, NULL);
  MgTensorId r = mg_graph_scalar(p, 0, kind, x, c, NULL);
  if (exp_after)
    r = mg_graph_unary(p, 0, MG_OP_EXP, r, NULL);
  if (plus_x)
    r = mg_graph_binary(p, 0, MG_OP_ADD, r, x, NULL);
  mg_graph_mark_output(p, 0, r, NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

// The verdict on a, b for `seeds` seeds: each must be `want`.
static void verdict_for_seeds(const MgProgram *a, const MgProgram *b,
                              MgVerdict want, uint32_t seeds) {
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    MgVerifyOptions opt = mg_verify_options_default();
    opt.seed = seed;
    MgVerifyResult r;
    CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r, NULL), MG_STATUS_OK);
    CHECK_EQ_INT(r.verdict, want);
    CHECK_EQ_INT(r.seed, seed);
  }
}

static void test_constants_colliding_pairs_differ(void) {
  // 2^31 ≡ 69 (mod 2^31 - 69), the fixed prime of earlier versions; the
  // same pair scaled by 2^-20 (f32 constants 6.58e-5 and 2048); 2^30 ≡ 35
  // (mod its q) inside exp; c against c + p.
  const double p0 = 2147483579.0;
  const struct { double c1, c2; MgOpKind kind; bool exp; } pairs[] = {
      {69.0, 2147483648.0, MG_OP_MUL_SCALAR, false},
      {ldexp(69.0, -20), 2048.0, MG_OP_MUL_SCALAR, false},
      {35.0, 1073741824.0, MG_OP_MUL_SCALAR, true},
      {1.0, 1.0 + p0, MG_OP_MUL_SCALAR, false},
      {3.0, 3.0 + 2 * p0, MG_OP_DIV_SCALAR, false},
  };
  for (unsigned i = 0; i < sizeof pairs / sizeof *pairs; ++i) {
    MgProgram *a = scaled(pairs[i].kind, pairs[i].c1, pairs[i].exp, true);
    MgProgram *b = scaled(pairs[i].kind, pairs[i].c2, pairs[i].exp, true);
    verdict_for_seeds(a, b, MG_VERDICT_NOT_EQUIVALENT, 32);
    mg_program_destroy(a);
    mg_program_destroy(b);
  }
  // In the fixed field of earlier versions the first pair is one program:
  // what the verifier used to accept.
  uint32_t r1, r2;
  CHECK(mg_ff_scalar(69.0, MG_FF_P, &r1) && mg_ff_scalar(2147483648.0, MG_FF_P, &r2));
  CHECK_EQ_INT(r1, r2);
}

static double constants_term(const MgProgram *a, const MgProgram *b) {
  MgVerifyOptions opt = mg_verify_options_default();
  MgVerifyResult r;
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_EQUIVALENT);
  return r.constants_bound;
}

static void test_constants_equal_programs_stay_equal(void) {
  // x·(2^41 + 2) against x·(2^40 + 1)·2: equal. The constant's odd part
  // has 40 bits, so one prime of the set may divide it: the bound carries
  // a constants' term of 1 / MG_FF_FIELDS per test.
  MgProgram *a = scaled(MG_OP_MUL_SCALAR, ldexp(1.0, 41) + 2, false, true);
  MgProgram *b = mg_program_create();
  mg_program_add_graph(b, MG_LEVEL_KERNEL);
  int64_t dims[2] = {4, 8};
  MgTensorId x = mg_graph_add_input(b, 0, MG_DTYPE_F32, 2, dims, NULL);
  MgTensorId s = mg_graph_scalar(b, 0, MG_OP_MUL_SCALAR, x,
                                 ldexp(1.0, 40) + 1, NULL);
  s = mg_graph_scalar(b, 0, MG_OP_MUL_SCALAR, s, 2.0, NULL);
  mg_graph_mark_output(b, 0, mg_graph_binary(b, 0, MG_OP_ADD, s, x, NULL),
                       NULL);
  verdict_for_seeds(a, b, MG_VERDICT_EQUIVALENT, 4);
  CHECK(constants_term(a, b) >= 1.0 / MG_FF_FIELDS);
  // A constant whose odd part is small makes no such integer, whatever
  // its power of two: no term.
  MgProgram *c = scaled(MG_OP_MUL_SCALAR, ldexp(12345.0, -60), false, false);
  CHECK_EQ_INT(constants_term(c, c), 0.0);
  // Added to x, the same constant makes 2^60 + 12345: a term again.
  MgProgram *d = scaled(MG_OP_MUL_SCALAR, ldexp(12345.0, -60), false, true);
  CHECK(constants_term(d, d) > 0.0);
  mg_program_destroy(a);
  mg_program_destroy(b);
  mg_program_destroy(c);
  mg_program_destroy(d);
}

int main(void) {
  RUN_TEST(test_constants_field_set_count);
  RUN_TEST(test_constants_field_draw);
  RUN_TEST(test_constants_colliding_pairs_differ);
  RUN_TEST(test_constants_equal_programs_stay_equal);
  return TEST_SUMMARY();
}
