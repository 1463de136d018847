//===- test_verify.c - Finite-field domain and equivalence verifier -------===//
//
// Field arithmetic (primes, generator, inverses, exp homomorphism, exact
// scalar images), the domain's matmul against a naive one, the known
// equivalences of the benchmark programs at small shapes, determinism,
// reporting of the first differing element, zero divisors and exp of exp.
//
//===----------------------------------------------------------------------===//
#include "mirage/samples.h"
#include "mirage/verify.h"
#include "test.h"

#include "mirage/ff_domain.h"
#include "mirage/field.h"
#include "../../lib/verify/matmul.h"

#include <string.h>

#define PHI MG_MAP_NONE

static bool is_prime(uint64_t n) {
  if (n < 2)
    return false;
  for (uint64_t d = 2; d * d <= n; ++d)
    if (n % d == 0)
      return false;
  return true;
}

static void test_verify_field_primes(void) {
  CHECK(is_prime(MG_FF_P));
  CHECK(is_prime(MG_FF_Q));
  CHECK_EQ_INT(MG_FF_P, 2ull * MG_FF_Q + 1);
  CHECK(MG_FF_P < (1ull << 31));
  // The largest such prime: no safe prime between p and 2^31.
  for (uint64_t c = MG_FF_P + 2; c < (1ull << 31); c += 2)
    CHECK(!(is_prime(c) && is_prime((c - 1) / 2)));
}

static void test_verify_field_generator_order(void) {
  CHECK(MG_FF_G != 1);
  CHECK_EQ_INT(mg_ff_pow(MG_FF_G, MG_FF_Q, MG_FF_P), 1);
  // Order q exactly: q is prime and g != 1, and g is not of order 2.
  CHECK(mg_ff_pow(MG_FF_G, 2, MG_FF_P) != 1);
  CHECK(mg_ff_pow(MG_FF_G, MG_FF_Q - 1, MG_FF_P) != 1);
}

static void test_verify_field_inverse(void) {
  const uint32_t xs[] = {1, 2, 3, 4096, 123456789, MG_FF_Q - 1, MG_FF_Q + 5};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; ++i) {
    uint32_t x = xs[i] % MG_FF_P;
    CHECK_EQ_INT(mg_ff_mul(x, mg_ff_inv(x, MG_FF_P), MG_FF_P), 1);
    uint32_t y = xs[i] % MG_FF_Q;
    if (y)
      CHECK_EQ_INT(mg_ff_mul(y, mg_ff_inv(y, MG_FF_Q), MG_FF_Q), 1);
  }
  CHECK_EQ_INT(mg_ff_sub(3, 5, MG_FF_P), MG_FF_P - 2);
  CHECK_EQ_INT(mg_ff_add(MG_FF_P - 1, 2, MG_FF_P), 1);
}

static void test_verify_field_scalar_mapping(void) {
  uint32_t r;
  CHECK(mg_ff_scalar(0.5, MG_FF_P, &r));
  CHECK_EQ_INT(r, mg_ff_inv(2, MG_FF_P));
  CHECK_EQ_INT(mg_ff_mul(r, 2, MG_FF_P), 1);
  CHECK(mg_ff_scalar(4096.0, MG_FF_P, &r));
  CHECK_EQ_INT(r, 4096);
  CHECK(mg_ff_scalar(1.0 / 4096.0, MG_FF_Q, &r));
  CHECK_EQ_INT(mg_ff_mul(r, 4096, MG_FF_Q), 1);
  CHECK(mg_ff_scalar(-3.0, MG_FF_P, &r));
  CHECK_EQ_INT(r, MG_FF_P - 3);
  CHECK(mg_ff_scalar(-3.0, MG_FF_Q, &r));
  CHECK_EQ_INT(r, MG_FF_Q - 3);
  CHECK(mg_ff_scalar(0.0, MG_FF_P, &r));
  CHECK_EQ_INT(r, 0);
  // 0.75 = 3/4 exactly.
  CHECK(mg_ff_scalar(0.75, MG_FF_P, &r));
  CHECK_EQ_INT(mg_ff_mul(r, 4, MG_FF_P), 3);
  CHECK(!mg_ff_scalar(NAN, MG_FF_P, &r));
  CHECK(!mg_ff_scalar(INFINITY, MG_FF_P, &r));
}

static void test_verify_domain_exp_homomorphism(void) {
  const MgDomain *dom = mg_ff_domain();
  MgFfContext ctx;
  mg_ff_context_init(&ctx, 7);
  MgRng rng = {42};
  for (int i = 0; i < 100; ++i) {
    uint32_t aq = (uint32_t)(mg_rng_next(&rng) % MG_FF_Q);
    uint32_t bq = (uint32_t)(mg_rng_next(&rng) % MG_FF_Q);
    MgCell a = mg_ff_cell(5, aq), b = mg_ff_cell(9, bq), s, ea, eb, es, prod;
    CHECK_EQ_INT(dom->binary(&ctx, MG_OP_ADD, &a, &b, &s, 1), MG_STATUS_OK);
    CHECK_EQ_INT(dom->unary(&ctx, MG_OP_EXP, 0, &a, &ea, 1), MG_STATUS_OK);
    CHECK_EQ_INT(dom->unary(&ctx, MG_OP_EXP, 0, &b, &eb, 1), MG_STATUS_OK);
    CHECK_EQ_INT(dom->unary(&ctx, MG_OP_EXP, 0, &s, &es, 1), MG_STATUS_OK);
    CHECK_EQ_INT(dom->binary(&ctx, MG_OP_MUL, &ea, &eb, &prod, 1),
                 MG_STATUS_OK);
    CHECK_EQ_INT(mg_ff_cell_p(es), mg_ff_cell_p(prod));
    CHECK_EQ_INT(mg_ff_cell_p(ea), mg_ff_pow(MG_FF_G, aq, MG_FF_P));
    CHECK(!mg_ff_cell_q_live(es));
    CHECK(!mg_ff_cell_q_live(prod));
  }
  // exp of an exp result is outside LAX.
  MgCell a = mg_ff_cell(3, 4), e, ee;
  CHECK_EQ_INT(dom->unary(&ctx, MG_OP_EXP, 0, &a, &e, 1), MG_STATUS_OK);
  CHECK(dom->unary(&ctx, MG_OP_EXP, 0, &e, &ee, 1) != MG_STATUS_OK);
  CHECK_EQ_INT(ctx.fault, MG_FF_FAULT_EXP_OF_EXP);
  mg_ff_context_dispose(&ctx);
}

static void test_verify_domain_zero_divisor(void) {
  const MgDomain *dom = mg_ff_domain();
  MgFfContext ctx;
  mg_ff_context_init(&ctx, 1);
  MgCell a[2] = {mg_ff_cell(6, 6), mg_ff_cell(1, 1)};
  MgCell b[2] = {mg_ff_cell(3, 2), mg_ff_cell(0, 5)}, out[2];
  CHECK(dom->binary(&ctx, MG_OP_DIV, a, b, out, 2) != MG_STATUS_OK);
  CHECK_EQ_INT(ctx.fault, MG_FF_FAULT_ZERO_DIVISOR);
  // A zero in the live q component is a zero divisor too.
  mg_ff_context_rekey(&ctx, 1);
  MgCell c = mg_ff_cell(4, 0);
  CHECK(dom->binary(&ctx, MG_OP_DIV, a, &c, out, 1) != MG_STATUS_OK);
  CHECK_EQ_INT(ctx.fault, MG_FF_FAULT_ZERO_DIVISOR);
  mg_ff_context_rekey(&ctx, 1);
  CHECK_EQ_INT(dom->binary(&ctx, MG_OP_DIV, a, b, out, 1), MG_STATUS_OK);
  CHECK_EQ_INT(mg_ff_cell_p(out[0]), 2);
  CHECK_EQ_INT(mg_ff_cell_q(out[0]), 3);
  CHECK(dom->unary(&ctx, MG_OP_DIV_SCALAR, 0.0, a, out, 1) != MG_STATUS_OK);
  CHECK_EQ_INT(ctx.fault, MG_FF_FAULT_ZERO_DIVISOR);
  mg_ff_context_dispose(&ctx);
}

static void test_verify_domain_uninterpreted(void) {
  const MgDomain *dom = mg_ff_domain();
  MgFfContext c1, c2;
  mg_ff_context_init(&c1, 11);
  mg_ff_context_init(&c2, 12);
  MgCell x[3] = {mg_ff_cell(5, 1), mg_ff_cell(5, 9), mg_ff_cell(6, 1)};
  MgCell r1[3], r2[3], s1[3];
  CHECK_EQ_INT(dom->unary(&c1, MG_OP_SQRT, 0, x, r1, 3), MG_STATUS_OK);
  CHECK_EQ_INT(dom->unary(&c2, MG_OP_SQRT, 0, x, r2, 3), MG_STATUS_OK);
  CHECK_EQ_INT(dom->unary(&c1, MG_OP_SILU, 0, x, s1, 3), MG_STATUS_OK);
  CHECK_EQ_INT(r1[0], r1[1]); // keyed on the p component only
  CHECK(r1[0] != r1[2]);
  CHECK(r1[0] != r2[0]); // a fresh function per test key
  CHECK(r1[0] != s1[0]); // and per op kind
  CHECK(mg_ff_cell_p(r1[0]) < MG_FF_P && mg_ff_cell_q(r1[0]) < MG_FF_Q);
  CHECK_EQ_INT(c1.uf_calls, 6);
  mg_ff_context_dispose(&c1);
  mg_ff_context_dispose(&c2);
}

static void test_verify_domain_matmul_matches_naive(void) {
  const MgDomain *dom = mg_ff_domain();
  MgFfContext ctx;
  mg_ff_context_init(&ctx, 3);
  enum { M = 15, K = 37, N = 7 }; // row groups of 8, 4, 2 and 1
  MgCell a[M * K], b[K * N], c[M * N];
  MgRng rng = {99};
  for (int i = 0; i < M * K; ++i) {
    uint32_t xp = (uint32_t)(mg_rng_next(&rng) % MG_FF_P);
    a[i] = mg_ff_cell(xp, (uint32_t)(mg_rng_next(&rng) % MG_FF_Q));
  }
  for (int i = 0; i < K * N; ++i) { // large residues: worst-case sums
    uint32_t xp = MG_FF_P - 1 - (uint32_t)(mg_rng_next(&rng) % 3);
    b[i] = mg_ff_cell(xp, (uint32_t)(mg_rng_next(&rng) % MG_FF_Q));
  }
  a[2 * K + 4] = mg_ff_cell(17, MG_FF_BOTTOM); // row 2 becomes ⊥ in q
  b[3 * N + 5] = mg_ff_cell(19, MG_FF_BOTTOM); // column 5 too
  CHECK_EQ_INT(dom->matmul(&ctx, a, b, c, (MgMatmulShape){M, K, N}),
               MG_STATUS_OK);
  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      uint64_t sp = 0, sq = 0;
      for (int k = 0; k < K; ++k) {
        sp = (sp + (uint64_t)mg_ff_cell_p(a[i * K + k]) *
                       mg_ff_cell_p(b[k * N + j])) % MG_FF_P;
        sq = (sq + (uint64_t)mg_ff_cell_q(a[i * K + k]) *
                       mg_ff_cell_q(b[k * N + j])) % MG_FF_Q;
      }
      bool bot = i == 2 || j == 5;
      bad += mg_ff_cell_p(c[i * N + j]) != sp;
      bad += bot ? mg_ff_cell_q_live(c[i * N + j])
                 : mg_ff_cell_q(c[i * N + j]) != sq;
    }
  CHECK_EQ_INT(bad, 0);
  // Every row of a holds a ⊥: the q plane is skipped, p is still exact.
  for (int i = 0; i < M; ++i)
    a[i * K + 1] = mg_ff_cell(mg_ff_cell_p(a[i * K + 1]), MG_FF_BOTTOM);
  MgCell c2[M * N];
  CHECK_EQ_INT(dom->matmul(&ctx, a, b, c2, (MgMatmulShape){M, K, N}),
               MG_STATUS_OK);
  bad = 0;
  for (int i = 0; i < M * N; ++i)
    bad += mg_ff_cell_q_live(c2[i]) ||
           mg_ff_cell_p(c2[i]) != mg_ff_cell_p(c[i]);
  CHECK_EQ_INT(bad, 0);
  mg_ff_context_dispose(&ctx);
}

// Each vector path this CPU has (AVX2, AVX-512) against the portable one
// and a naive sum, in a small field of the set with residues of a near p
// (the accumulators' limits), over columns that span several passes (256
// columns at 8 rows to 2048 at 1) and a tail of 5, with ⊥ in one row of a
// and one column of b.
static void test_verify_domain_matmul_paths_agree(void) {
  MgFfContext ctx;
  mg_ff_context_init(&ctx, 4);
  MgFfField f = {0, 0};
  for (uint64_t key = 0; f.p == 0 || f.q > MG_FF_Q_LO + (1u << 22); ++key)
    f = mg_ff_field_draw(key); // one of the small fields of the set
  mg_ff_context_set_field(&ctx, f);
  enum { M = 13, K = 45, N = 2053 }; // passes of 256 (8 rows) to 2048 (1)
  MgCell *a = malloc(sizeof(MgCell) * M * K), *b = malloc(sizeof(MgCell) * K * N);
  MgCell *c = malloc(sizeof(MgCell) * M * N), *d = malloc(sizeof(MgCell) * M * N);
  MgRng rng = {5};
  for (int i = 0; i < M * K; ++i)
    a[i] = mg_ff_cell(f.p - 1 - (uint32_t)(mg_rng_next(&rng) % 5),
                      f.q - 1 - (uint32_t)(mg_rng_next(&rng) % 5));
  for (int i = 0; i < K * N; ++i)
    b[i] = mg_ff_cell((uint32_t)(mg_rng_next(&rng) % f.p),
                      (uint32_t)(mg_rng_next(&rng) % f.q));
  a[9 * K + 3] = mg_ff_cell(8, MG_FF_BOTTOM);
  b[7 * N + 2050] = mg_ff_cell(9, MG_FF_BOTTOM);
  MgMatmulShape s = {M, K, N};
  CHECK_EQ_INT(mg_ff_matmul_on(&ctx, a, b, d, s, 0), MG_STATUS_OK);
  int bad = 0;
  for (int width = 4; width <= mg_ff_matmul_widest(); width *= 2) {
    memset(c, 0, sizeof(MgCell) * M * N);
    CHECK_EQ_INT(mg_ff_matmul_on(&ctx, a, b, c, s, width), MG_STATUS_OK);
    for (int i = 0; i < M * N; ++i)
      bad += c[i] != d[i];
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(mg_ff_matmul(&ctx, a, b, c, s), MG_STATUS_OK);
  for (int i = 0; i < M; i += 4) // naive sums on every fourth row
    for (int j = 0; j < N; ++j) {
      uint64_t sp = 0, sq = 0;
      for (int k = 0; k < K; ++k) {
        sp = (sp + (uint64_t)mg_ff_cell_p(a[i * K + k]) *
                       mg_ff_cell_p(b[k * N + j])) % f.p;
        sq = (sq + (uint64_t)mg_ff_cell_q(a[i * K + k]) *
                       mg_ff_cell_q(b[k * N + j])) % f.q;
      }
      bool bot = i == 9 || j == 2050;
      bad += mg_ff_cell_p(c[i * N + j]) != sp;
      bad += bot ? mg_ff_cell_q_live(c[i * N + j])
                 : mg_ff_cell_q(c[i * N + j]) != sq;
    }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(mg_ff_cell_q(c[9 * N]), MG_FF_BOTTOM);
  CHECK_EQ_INT(mg_ff_cell_q(c[2050]), MG_FF_BOTTOM);
  free(a), free(b), free(c), free(d);
  mg_ff_context_dispose(&ctx);
}

//===--- Equivalences -----------------------------------------------------===//

static void expect_equivalent(MgProgram *a, MgProgram *b, const char *what) {
  CHECK(a != NULL && b != NULL);
  if (!a || !b) {
    mg_program_destroy(a);
    mg_program_destroy(b);
    return;
  }
  MgVerifyOptions opt = mg_verify_options_default();
  MgVerifyResult r;
  MgDiag diag;
  memset(&diag, 0, sizeof diag);
  MgStatus st = mg_verify_equivalent(a, b, &opt, &r, &diag);
  if (st != MG_STATUS_OK || r.verdict != MG_VERDICT_EQUIVALENT)
    fprintf(stderr, "%s: status %d verdict %d tests %u message '%s'\n", what,
            st, r.verdict, r.tests, diag.message);
  CHECK_EQ_INT(st, MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_EQUIVALENT);
  CHECK(r.log2_bound <= -40.0);
  CHECK(r.error_bound <= ldexp(1.0, -40));
  CHECK(r.tests >= 1 && r.tests <= 8);
  CHECK_EQ_INT(r.redraws, 0);
  double eps = mg_verify_test_bound(a, b);
  CHECK(eps > 0 && eps < 1e-3);
  CHECK_NEAR(r.log2_bound, r.tests * log2(eps), 1e-9);
  // Symmetric.
  MgVerifyResult back;
  CHECK_EQ_INT(mg_verify_equivalent(b, a, &opt, &back, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(back.verdict, MG_VERDICT_EQUIVALENT);
  uint64_t fa = 0, fb = 1;
  CHECK_EQ_INT(mg_verify_fingerprint(a, &fa, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(mg_verify_fingerprint(b, &fb, NULL), MG_STATUS_OK);
  CHECK(fa == fb);
  mg_program_destroy(a);
  mg_program_destroy(b);
}

static void test_verify_rmsnorm_matmul_fused(void) {
  expect_equivalent(mg_sample_rmsnorm_matmul(2, 32, 12),
                    mg_sample_rmsnorm_matmul_fused(2, 32, 12, 3, 4), "rms");
}

static void test_verify_attention_split_kv(void) {
  expect_equivalent(mg_sample_attention(2, 4, 8, 16),
                    mg_sample_attention_split_kv(2, 4, 8, 16, 4, 2), "attn");
  expect_equivalent(mg_sample_attention(1, 3, 4, 8),
                    mg_sample_attention_split_kv(1, 3, 4, 8, 2, 1), "attn2");
}

static void test_verify_lora_one_kernel(void) {
  expect_equivalent(mg_sample_lora(4, 16, 12, 2),
                    mg_sample_lora_fused(4, 16, 12, 2, 3), "lora");
}

static void test_verify_sum_split_over_loop(void) {
  expect_equivalent(mg_sample_sum_last(4, 24),
                    mg_sample_sum_last_fused(4, 24, 2, 6), "sum");
}

static void test_verify_gated_mlp_fused(void) {
  expect_equivalent(mg_sample_gated_mlp(4, 16, 12),
                    mg_sample_gated_mlp_fused(4, 16, 12, 2, 4), "mlp");
}

static void test_verify_ntrans_fused(void) {
  expect_equivalent(mg_sample_ntrans(4, 16), mg_sample_ntrans_fused(4, 16, 2),
                    "ntrans");
}

//===--- Small hand-built programs -----------------------------------------===//

// A kernel graph with two (r,c) inputs, used by the tests below.
static MgProgram *two_inputs(int64_t r, int64_t c, MgTensorId *x,
                             MgTensorId *y) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t dims[2] = {r, c};
  *x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims, NULL);
  *y = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims, NULL);
  return p;
}

static MgVerifyResult verify(const MgProgram *a, const MgProgram *b,
                             MgStatus *st, MgDiag *diag) {
  MgVerifyOptions opt = mg_verify_options_default();
  MgVerifyResult r;
  *st = mg_verify_equivalent(a, b, &opt, &r, diag);
  return r;
}

static void test_verify_exp_identities(void) {
  MgTensorId x, y;
  // exp(x + y) == exp(x) * exp(y): the homomorphism at graph level.
  MgProgram *a = two_inputs(2, 3, &x, &y);
  mg_graph_mark_output(a, 0, mg_graph_unary(a, 0, MG_OP_EXP,
      mg_graph_binary(a, 0, MG_OP_ADD, x, y, NULL), NULL), NULL);
  MgProgram *b = two_inputs(2, 3, &x, &y);
  mg_graph_mark_output(b, 0, mg_graph_binary(b, 0, MG_OP_MUL,
      mg_graph_unary(b, 0, MG_OP_EXP, x, NULL),
      mg_graph_unary(b, 0, MG_OP_EXP, y, NULL), NULL), NULL);
  MgStatus st;
  MgVerifyResult r = verify(a, b, &st, NULL);
  CHECK_EQ_INT(st, MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_EQUIVALENT);
  // exp(2x) vs exp(x)^2, and exp(x/2) is not exp(x)/2.
  MgProgram *c = two_inputs(2, 3, &x, &y);
  mg_graph_mark_output(c, 0, mg_graph_unary(c, 0, MG_OP_EXP,
      mg_graph_scalar(c, 0, MG_OP_MUL_SCALAR, x, 2.0, NULL), NULL), NULL);
  MgProgram *d = two_inputs(2, 3, &x, &y);
  mg_graph_mark_output(d, 0, mg_graph_unary(d, 0, MG_OP_SQUARE,
      mg_graph_unary(d, 0, MG_OP_EXP, x, NULL), NULL), NULL);
  MgProgram *e = two_inputs(2, 3, &x, &y);
  mg_graph_mark_output(e, 0, mg_graph_scalar(e, 0, MG_OP_DIV_SCALAR,
      mg_graph_unary(e, 0, MG_OP_EXP, x, NULL), 2.0, NULL), NULL);
  r = verify(c, d, &st, NULL);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_EQUIVALENT);
  r = verify(c, e, &st, NULL);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_NOT_EQUIVALENT);
  mg_program_destroy(a);
  mg_program_destroy(b);
  mg_program_destroy(c);
  mg_program_destroy(d);
  mg_program_destroy(e);
}

// sqrt(x)^2 and x over two 2x2 inputs: equal over the reals for x >= 0,
// but only through sqrt's meaning, which the model does not have.
static void sqrt_squared_vs_x(MgProgram **a, MgProgram **b) {
  MgTensorId x, y;
  *a = two_inputs(2, 2, &x, &y);
  mg_graph_mark_output(*a, 0, mg_graph_unary(*a, 0, MG_OP_SQUARE,
      mg_graph_unary(*a, 0, MG_OP_SQRT, x, NULL), NULL), NULL);
  *b = two_inputs(2, 2, &x, &y);
  mg_graph_mark_output(*b, 0, mg_graph_scalar(*b, 0, MG_OP_MUL_SCALAR, x, 1.0,
                                              NULL), NULL);
}

static void test_verify_uninterpreted_not_proven(void) {
  // sqrt(x)^2 == x over the reals for x >= 0, but the identity needs sqrt's
  // meaning: reported not equivalent (the safe answer).
  MgTensorId x, y;
  MgProgram *a, *b;
  sqrt_squared_vs_x(&a, &b);
  MgStatus st;
  MgVerifyResult r = verify(a, b, &st, NULL);
  CHECK_EQ_INT(st, MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_NOT_EQUIVALENT);
  // Equal arguments give equal results: sqrt(x + y) == sqrt(y + x).
  MgProgram *c = two_inputs(2, 2, &x, &y);
  mg_graph_mark_output(c, 0, mg_graph_unary(c, 0, MG_OP_SQRT,
      mg_graph_binary(c, 0, MG_OP_ADD, x, y, NULL), NULL), NULL);
  MgProgram *d = two_inputs(2, 2, &x, &y);
  mg_graph_mark_output(d, 0, mg_graph_unary(d, 0, MG_OP_SQRT,
      mg_graph_binary(d, 0, MG_OP_ADD, y, x, NULL), NULL), NULL);
  r = verify(c, d, &st, NULL);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_EQUIVALENT);
  mg_program_destroy(a);
  mg_program_destroy(b);
  mg_program_destroy(c);
  mg_program_destroy(d);
}

// Gated MLP in one kernel whose epilogue silu(h1) * h2 is a thread graph.
static MgProgram *gated_mlp_thread(int64_t m, int64_t k, int64_t n,
                                   int32_t grid, int32_t forloop) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId blk = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  MgGraphId thr = mg_program_add_graph(p, MG_LEVEL_THREAD);
  int32_t g3[3] = {grid, 1, 1};
  mg_graph_set_launch(p, blk, g3, 128, forloop, NULL);
  int64_t dx[2] = {m, k}, dw[2] = {k, n}, dt[2] = {m, n / grid};
  MgTensorId h1 = mg_graph_add_input(p, thr, MG_DTYPE_F16, 2, dt, NULL);
  MgTensorId h2 = mg_graph_add_input(p, thr, MG_DTYPE_F16, 2, dt, NULL);
  mg_graph_mark_output(p, thr, mg_graph_binary(p, thr, MG_OP_MUL,
      mg_graph_unary(p, thr, MG_OP_SILU, h1, NULL), h2, NULL), NULL);
  MgTensorId x = mg_graph_add_input(p, blk, MG_DTYPE_F16, 2, dx, NULL);
  MgTensorId w1 = mg_graph_add_input(p, blk, MG_DTYPE_F16, 2, dw, NULL);
  MgTensorId w2 = mg_graph_add_input(p, blk, MG_DTYPE_F16, 2, dw, NULL);
  int8_t rep[3] = {PHI, PHI, PHI}, byx[3] = {1, PHI, PHI};
  MgTensorId xt = mg_graph_iterator(p, blk, x, rep, 1, NULL);
  MgTensorId acc[2];
  acc[0] = mg_graph_accum(p, blk, mg_graph_matmul(p, blk, xt,
      mg_graph_iterator(p, blk, w1, byx, 0, NULL), NULL), MG_ACCUM_SUM, NULL);
  acc[1] = mg_graph_accum(p, blk, mg_graph_matmul(p, blk, xt,
      mg_graph_iterator(p, blk, w2, byx, 0, NULL), NULL), MG_ACCUM_SUM, NULL);
  MgTensorId o = MG_NO_ID;
  mg_graph_thread(p, blk, (MgCall){thr, 2, acc}, &o, NULL);
  mg_graph_mark_output(p, blk, mg_graph_saver(p, blk, o, byx, NULL), NULL);
  MgTensorId ins[3], out = MG_NO_ID;
  for (int i = 0; i < 3; ++i)
    ins[i] = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, i ? dw : dx, NULL);
  mg_graph_custom(p, 0, (MgCall){blk, 3, ins}, &out, NULL);
  mg_graph_mark_output(p, 0, out, NULL);
  return p;
}

static void test_verify_thread_graph_epilogue(void) {
  MgProgram *t = gated_mlp_thread(4, 16, 12, 2, 4);
  CHECK_EQ_INT(mg_program_validate(t, NULL, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(t->graphs[0].num_outputs, 1);
  expect_equivalent(mg_sample_gated_mlp(4, 16, 12), t, "mlp-thread");
  // Same bound as the fused form without a thread graph.
  MgProgram *a = mg_sample_gated_mlp(4, 16, 12);
  MgProgram *f = mg_sample_gated_mlp_fused(4, 16, 12, 2, 4);
  MgProgram *t2 = gated_mlp_thread(4, 16, 12, 2, 4);
  CHECK_NEAR(mg_verify_test_bound(a, t2), mg_verify_test_bound(a, f), 1e-20);
  mg_program_destroy(a);
  mg_program_destroy(f);
  mg_program_destroy(t2);
}

static void test_verify_determinism(void) {
  MgProgram *a = mg_sample_attention(1, 4, 4, 8);
  MgProgram *b = mg_sample_attention_split_kv(1, 4, 4, 8, 2, 2);
  MgProgram *c = mg_sample_gated_mlp(2, 8, 4);
  MgProgram *d = mg_sample_gated_mlp_fused(2, 8, 4, 1, 2);
  MgVerifyOptions opt = mg_verify_options_default();
  opt.seed = 12345;
  MgVerifyResult r1, r2, r3;
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r1, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r2, NULL), MG_STATUS_OK);
  CHECK(memcmp(&r1, &r2, sizeof r1) == 0);
  // Another pair (uninterpreted silu inside): the same report each time.
  MgVerifyResult n1, n2;
  CHECK_EQ_INT(mg_verify_equivalent(c, c, &opt, &r3, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(r3.verdict, MG_VERDICT_EQUIVALENT);
  CHECK_EQ_INT(mg_verify_equivalent(c, d, &opt, &n1, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(mg_verify_equivalent(c, d, &opt, &n2, NULL), MG_STATUS_OK);
  CHECK(memcmp(&n1, &n2, sizeof n1) == 0);
  CHECK_EQ_INT(n1.verdict, MG_VERDICT_EQUIVALENT);
  mg_program_destroy(a);
  mg_program_destroy(b);
  mg_program_destroy(c);
  mg_program_destroy(d);
}

// W transposed by a custom kernel whose saver swaps the grid axes.
static MgTensorId transpose(MgProgram *p, MgTensorId w, int64_t n) {
  MgGraphId g = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  int32_t grid[3] = {(int32_t)n, (int32_t)n, 1};
  mg_graph_set_launch(p, g, grid, 32, 1, NULL);
  int64_t dims[2] = {n, n};
  MgTensorId in = mg_graph_add_input(p, g, MG_DTYPE_F16, 2, dims, NULL);
  int8_t imap[3] = {0, 1, PHI}, omap[3] = {1, 0, PHI};
  MgTensorId t = mg_graph_iterator(p, g, in, imap, PHI, NULL);
  MgTensorId s = mg_graph_saver(p, g, t, omap, NULL);
  mg_graph_mark_output(p, g, s, NULL);
  MgTensorId out = MG_NO_ID;
  mg_graph_custom(p, 0, (MgCall){g, 1, &w}, &out, NULL);
  return out;
}

static void test_verify_reports_first_difference(void) {
  // x ⊙ w versus x ⊙ wᵀ: equal on the diagonal, so the first difference
  // is element 1 (row 0, column 1).
  MgTensorId x, y;
  MgProgram *a = two_inputs(3, 3, &x, &y);
  mg_graph_mark_output(a, 0, mg_graph_binary(a, 0, MG_OP_MUL, x, y, NULL),
                       NULL);
  MgProgram *b = two_inputs(3, 3, &x, &y);
  MgTensorId yt = transpose(b, y, 3);
  CHECK(yt != MG_NO_ID);
  mg_graph_mark_output(b, 0, mg_graph_binary(b, 0, MG_OP_MUL, x, yt, NULL),
                       NULL);
  MgStatus st;
  MgDiag diag;
  MgVerifyResult r = verify(a, b, &st, &diag);
  CHECK_EQ_INT(st, MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_NOT_EQUIVALENT);
  CHECK_EQ_INT(r.tests, 1);
  CHECK_EQ_INT(r.output, 0);
  CHECK_EQ_INT(r.index, 1);
  CHECK(r.value_a != r.value_b);
  CHECK(r.value_a < MG_FF_P && r.value_b < MG_FF_P);
  // The difference came on the first test: no agreeing test before it.
  CHECK_EQ_INT(r.error_bound, 1.0);
  CHECK_EQ_INT(r.log2_bound, 0.0);
  uint64_t fa, fb;
  CHECK_EQ_INT(mg_verify_fingerprint(a, &fa, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(mg_verify_fingerprint(b, &fb, NULL), MG_STATUS_OK);
  CHECK(fa != fb);
  // Transposing twice is the identity.
  MgProgram *c = two_inputs(3, 3, &x, &y);
  MgTensorId ytt = transpose(c, transpose(c, y, 3), 3);
  mg_graph_mark_output(c, 0, mg_graph_binary(c, 0, MG_OP_MUL, x, ytt, NULL),
                       NULL);
  r = verify(a, c, &st, NULL);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_EQUIVALENT);
  mg_program_destroy(a);
  mg_program_destroy(b);
  mg_program_destroy(c);
}

//===--- Kernel-level views -------------------------------------------------===//

// A kernel graph with `n` f16 inputs of one shape.
static MgProgram *inputs_of(uint32_t n, uint32_t rank, const int64_t *dims,
                            MgTensorId *ids) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  for (uint32_t i = 0; i < n; ++i)
    ids[i] = mg_graph_add_input(p, 0, MG_DTYPE_F16, rank, dims, NULL);
  return p;
}

static MgTensorId tr(MgProgram *p, MgTensorId a, int8_t p0, int8_t p1,
                     int8_t p2) {
  const int8_t perm[3] = {p0, p1, p2};
  MgTensorId t = mg_graph_transpose(p, 0, a, perm, NULL);
  CHECK(t != MG_NO_ID);
  return t;
}

static MgTensorId rs(MgProgram *p, MgTensorId a, uint32_t rank, int64_t d0,
                     int64_t d1, int64_t d2) {
  const int64_t dims[3] = {d0, d1, d2};
  MgTensorId t = mg_graph_reshape(p, 0, a, rank, dims, NULL);
  CHECK(t != MG_NO_ID);
  return t;
}

static MgTensorId cut(MgProgram *p, MgTensorId a, int32_t dim, int64_t first,
                      int64_t count) {
  MgTensorId t = mg_graph_slice(p, 0, a, (MgSlice){dim, first, count}, NULL);
  CHECK(t != MG_NO_ID);
  return t;
}

// Output `x_view + y` (so every input reaches the output).
static MgProgram *plus_y(MgProgram *p, MgTensorId xv, MgTensorId y) {
  mg_graph_mark_output(p, 0, mg_graph_binary(p, 0, MG_OP_ADD, xv, y, NULL),
                       NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

static void expect_rejected(MgProgram *a, MgProgram *b, const char *what) {
  MgStatus st;
  MgDiag diag;
  memset(&diag, 0, sizeof diag);
  MgVerifyResult r = verify(a, b, &st, &diag);
  if (st != MG_STATUS_OK || r.verdict != MG_VERDICT_NOT_EQUIVALENT)
    fprintf(stderr, "%s: status %d verdict %d message '%s'\n", what, st,
            r.verdict, diag.message);
  CHECK_EQ_INT(st, MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_NOT_EQUIVALENT);
  mg_program_destroy(a);
  mg_program_destroy(b);
}

static MgProgram *cube_plus_y(int8_t p0, int8_t p1, int8_t p2, int8_t q0,
                              int8_t q1, int8_t q2) {
  const int64_t dims[3] = {3, 3, 3};
  MgTensorId in[2];
  MgProgram *p = inputs_of(2, 3, dims, in);
  return plus_y(p, tr(p, tr(p, in[0], p0, p1, p2), q0, q1, q2), in[1]);
}

static void test_verify_views_transpose(void) {
  const int64_t dims[3] = {3, 3, 3};
  MgTensorId in[2];
  MgProgram *x = inputs_of(2, 3, dims, in);
  plus_y(x, in[0], in[1]);
  // Two 3-cycles that undo each other, and a swap applied twice.
  expect_equivalent(cube_plus_y(1, 2, 0, 2, 0, 1), mg_program_clone(x),
                    "transpose cycle");
  expect_equivalent(cube_plus_y(1, 0, 2, 1, 0, 2), mg_program_clone(x),
                    "transpose swap twice");
  // The same cycle twice is the inverse cycle, not the identity.
  expect_rejected(cube_plus_y(1, 2, 0, 1, 2, 0), mg_program_clone(x),
                  "cycle twice");
  expect_rejected(cube_plus_y(1, 0, 2, 0, 2, 1), mg_program_clone(x),
                  "two different swaps");
  mg_program_destroy(x);
  // A view transpose is the custom kernel whose saver swaps the grid axes.
  MgTensorId a, b;
  MgProgram *c = two_inputs(3, 3, &a, &b);
  mg_graph_mark_output(c, 0, mg_graph_binary(c, 0, MG_OP_MUL, a,
                       transpose(c, b, 3), NULL), NULL);
  MgProgram *v = two_inputs(3, 3, &a, &b);
  mg_graph_mark_output(v, 0, mg_graph_binary(v, 0, MG_OP_MUL, a,
                       mg_graph_transpose(v, 0, b, (const int8_t[]){1, 0},
                                          NULL), NULL), NULL);
  expect_equivalent(c, v, "view vs kernel transpose");
}

// x(2,6) rebuilt from two slices along dim 1: [0, cut) and [from, 6).
static MgProgram *halves(int64_t cut_at, int64_t from, bool swap) {
  const int64_t dims[2] = {2, 6};
  MgTensorId in[2];
  MgProgram *p = inputs_of(2, 2, dims, in);
  MgTensorId lo = cut(p, in[0], 1, 0, cut_at);
  MgTensorId hi = cut(p, in[0], 1, from, 6 - cut_at);
  MgTensorId cat = swap ? mg_graph_concat(p, 0, hi, lo, 1, NULL)
                        : mg_graph_concat(p, 0, lo, hi, 1, NULL);
  CHECK(cat != MG_NO_ID);
  return plus_y(p, cat, in[1]);
}

static void test_verify_views_slice_concat(void) {
  const int64_t dims[2] = {2, 6};
  MgTensorId in[2];
  MgProgram *x = inputs_of(2, 2, dims, in);
  plus_y(x, in[0], in[1]);
  expect_equivalent(halves(2, 2, false), mg_program_clone(x), "2 + 4");
  expect_equivalent(halves(3, 3, false), mg_program_clone(x), "3 + 3");
  expect_rejected(halves(2, 1, false), mg_program_clone(x), "offset 1");
  expect_rejected(halves(3, 3, true), mg_program_clone(x), "swapped halves");
  // The first difference of the wrong offset is where the second slice
  // starts: element (0, 2).
  MgProgram *a = halves(2, 1, false);
  MgStatus st;
  MgVerifyResult r = verify(a, x, &st, NULL);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_NOT_EQUIVALENT);
  CHECK_EQ_INT(r.index, 2);
  mg_program_destroy(a);
  mg_program_destroy(x);
}

// x(4,6) reshaped to (r0, 24/r0), transposed, read back as (4,6).
static MgProgram *shuffle(int64_t r0) {
  const int64_t dims[2] = {4, 6};
  MgTensorId in[2];
  MgProgram *p = inputs_of(2, 2, dims, in);
  MgTensorId t = mg_graph_transpose(p, 0, rs(p, in[0], 2, r0, 24 / r0, 0),
                                    (const int8_t[]){1, 0}, NULL);
  return plus_y(p, rs(p, t, 2, 4, 6, 0), in[1]);
}

static void test_verify_views_reshape(void) {
  const int64_t dims[2] = {4, 6};
  MgTensorId in[2];
  MgProgram *x = inputs_of(2, 2, dims, in);
  plus_y(x, in[0], in[1]);
  MgProgram *a = inputs_of(2, 2, dims, in);
  plus_y(a, rs(a, rs(a, in[0], 2, 2, 12, 0), 2, 4, 6, 0), in[1]);
  expect_equivalent(a, mg_program_clone(x), "reshape there and back");
  // (2,12)ᵀ flattened is (2,2,6) with its first dim moved last.
  MgProgram *b = inputs_of(2, 2, dims, in);
  plus_y(b, rs(b, tr(b, rs(b, in[0], 3, 2, 2, 6), 1, 2, 0), 2, 4, 6, 0),
         in[1]);
  expect_equivalent(shuffle(2), b, "transpose of a reshape");
  expect_rejected(shuffle(2), shuffle(3), "another factorisation");
  expect_rejected(shuffle(2), mg_program_clone(x), "shuffled vs x");
  mg_program_destroy(x);
}

// exp(x)·y with x(rows,1) broadcast along the columns of y(rows,8): one
// atom per element that changes along dim 0 only.
static MgProgram *row_atoms(int64_t rows, MgTensorId *e) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  const int64_t dx[2] = {rows, 1}, dy[2] = {rows, 8};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dx, NULL);
  MgTensorId y = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dy, NULL);
  *e = mg_graph_binary(p, 0, MG_OP_MUL,
                       mg_graph_unary(p, 0, MG_OP_EXP, x, NULL), y, NULL);
  return p;
}

static MgProgram *out(MgProgram *p, MgTensorId t) {
  CHECK(t != MG_NO_ID);
  mg_graph_mark_output(p, 0, t, NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

static void test_verify_bound_views(void) {
  // The bound counts the atoms a sum gathers; a view must carry which dims
  // they change along. Σ over the rows of exp(x)·y gathers 4 atoms, read
  // directly or through a transpose (where the rows are dim 1) or a split
  // of the rows into (2,2) (where they are dims 0 and 1).
  MgTensorId e;
  MgProgram *direct = row_atoms(4, &e);
  out(direct, mg_graph_sum(direct, 0, e, 0, NULL));
  MgProgram *viaT = row_atoms(4, &e);
  out(viaT, mg_graph_sum(viaT, 0, tr(viaT, e, 1, 0, 0), 1, NULL));
  MgProgram *viaR = row_atoms(4, &e);
  MgTensorId split = rs(viaR, e, 3, 2, 2, 8);
  out(viaR, mg_graph_sum(viaR, 0, mg_graph_sum(viaR, 0, split, 0, NULL), 1,
                         NULL));
  // Degree 2 + 2, atoms 4 + 4, argument degree 1 (x), nothing nested:
  // the witness has min(4, 8) atoms.
  double p = MG_FF_P_LO, q = MG_FF_Q_LO; // every field's p, q are >= these
  double want = 4 / p + 4 / q + 4.0 * 8 * 2 / q;
  CHECK_NEAR(mg_verify_test_bound(direct, direct), want, 1e-22);
  CHECK_NEAR(mg_verify_test_bound(viaT, viaT), want, 1e-22);
  CHECK_NEAR(mg_verify_test_bound(viaR, viaR), want, 1e-22);
  // A merge into one dim of 32 can only be over-counted, never under.
  MgProgram *merged = row_atoms(4, &e);
  out(merged, mg_graph_sum(merged, 0, rs(merged, e, 1, 32, 0, 0), 0, NULL));
  CHECK(mg_verify_test_bound(merged, merged) >= want);
  // A slice of 2 rows gathers 2 atoms, as a program with 2 rows does.
  MgProgram *two = row_atoms(2, &e);
  out(two, mg_graph_sum(two, 0, e, 0, NULL));
  MgProgram *sliced = row_atoms(4, &e);
  out(sliced, mg_graph_sum(sliced, 0, cut(sliced, e, 0, 1, 2), 0, NULL));
  CHECK_NEAR(mg_verify_test_bound(sliced, sliced),
             mg_verify_test_bound(two, two), 1e-22);
  mg_program_destroy(direct);
  mg_program_destroy(viaT);
  mg_program_destroy(viaR);
  mg_program_destroy(merged);
  mg_program_destroy(two);
  mg_program_destroy(sliced);
}

static void test_verify_zero_divisor_redraws(void) {
  // x / (y - y): every draw divides by zero. The verifier must neither
  // accept nor reject: it redraws up to max_tests and answers UNKNOWN.
  MgTensorId x, y;
  MgProgram *a = two_inputs(2, 2, &x, &y);
  mg_graph_mark_output(a, 0, mg_graph_binary(a, 0, MG_OP_DIV, x,
      mg_graph_binary(a, 0, MG_OP_SUB, y, y, NULL), NULL), NULL);
  MgProgram *b = two_inputs(2, 2, &x, &y);
  mg_graph_mark_output(b, 0, mg_graph_binary(b, 0, MG_OP_ADD, x, y, NULL),
                       NULL);
  MgVerifyOptions opt = mg_verify_options_default();
  opt.max_tests = 10;
  MgVerifyResult r;
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_UNKNOWN);
  CHECK_EQ_INT(r.redraws, 10);
  CHECK_EQ_INT(r.tests, 0);
  CHECK_EQ_INT(mg_verify_equivalent(b, a, &opt, &r, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_UNKNOWN);
  CHECK_EQ_INT(r.redraws, 10);
  uint64_t f;
  CHECK_EQ_INT(mg_verify_fingerprint(a, &f, NULL), MG_STATUS_INVALID);
  mg_program_destroy(a);
  mg_program_destroy(b);
}

static void test_verify_rejects_exp_of_exp(void) {
  MgTensorId x, y;
  MgProgram *a = two_inputs(2, 2, &x, &y);
  mg_graph_mark_output(a, 0, mg_graph_unary(a, 0, MG_OP_EXP,
      mg_graph_unary(a, 0, MG_OP_EXP, x, NULL), NULL), NULL);
  MgStatus st;
  MgDiag diag;
  memset(&diag, 0, sizeof diag);
  MgVerifyResult r = verify(a, a, &st, &diag);
  CHECK_EQ_INT(st, MG_STATUS_INVALID);
  CHECK(strstr(diag.message, "exp applied to an exp result") != NULL);
  CHECK_EQ_INT(diag.graph, 0);
  CHECK_EQ_INT(diag.op, 3);
  CHECK_EQ_INT(r.tests, 0);
  // exp of an exp result mixed with anything is still outside LAX.
  MgProgram *b = two_inputs(2, 2, &x, &y);
  MgTensorId e = mg_graph_unary(b, 0, MG_OP_EXP, x, NULL);
  mg_graph_mark_output(b, 0, mg_graph_unary(b, 0, MG_OP_EXP,
      mg_graph_binary(b, 0, MG_OP_ADD, e, y, NULL), NULL), NULL);
  CHECK_EQ_INT(mg_verify_test_bound(b, b), 1.0);
  verify(b, b, &st, NULL);
  CHECK_EQ_INT(st, MG_STATUS_INVALID);
  mg_program_destroy(a);
  mg_program_destroy(b);
}

static void test_verify_rejects_nan_scalar(void) {
  // The builders refuse non-finite scalars; the domain refuses them too, so a
  // hand-made program cannot slip one through.
  MgTensorId x, y;
  MgProgram *a = two_inputs(2, 2, &x, &y);
  CHECK(mg_graph_scalar(a, 0, MG_OP_MUL_SCALAR, x, NAN, NULL) == MG_NO_ID);
  mg_program_destroy(a);
  const MgDomain *dom = mg_ff_domain();
  MgFfContext ctx;
  mg_ff_context_init(&ctx, 1);
  MgCell c = mg_ff_cell(3, 3), out;
  CHECK_EQ_INT(dom->unary(&ctx, MG_OP_MUL_SCALAR, NAN, &c, &out, 1),
               MG_STATUS_INVALID);
  CHECK_EQ_INT(ctx.fault, MG_FF_FAULT_BAD_SCALAR);
  CHECK(strstr(mg_ff_fault_message(ctx.fault), "NaN") != NULL);
  CHECK_EQ_INT(dom->unary(&ctx, MG_OP_DIV_SCALAR, -INFINITY, &c, &out, 1),
               MG_STATUS_INVALID);
  CHECK_EQ_INT(dom->unary(&ctx, MG_OP_DIV_SCALAR, -0.25, &c, &out, 1),
               MG_STATUS_OK);
  CHECK_EQ_INT(mg_ff_cell_p(out), MG_FF_P - 12);
  mg_ff_context_dispose(&ctx);
}

static void test_verify_rejects_mismatched_signatures(void) {
  MgProgram *a = mg_sample_sum_last(4, 8), *b = mg_sample_sum_last(4, 4);
  MgProgram *c = mg_sample_rmsnorm_matmul(2, 8, 4);
  MgStatus st;
  MgDiag diag;
  memset(&diag, 0, sizeof diag);
  verify(a, b, &st, &diag);
  CHECK_EQ_INT(st, MG_STATUS_INVALID);
  CHECK(strstr(diag.message, "input 0") != NULL);
  verify(a, c, &st, &diag);
  CHECK_EQ_INT(st, MG_STATUS_INVALID);
  CHECK(strstr(diag.message, "input counts") != NULL);
  verify(a, NULL, &st, &diag);
  CHECK_EQ_INT(st, MG_STATUS_INVALID);
  mg_program_destroy(a);
  mg_program_destroy(b);
  mg_program_destroy(c);
}

static void test_verify_bound_grows_with_degree(void) {
  // The per-test bound follows docs/verification.md: sum_last of X(4,24)
  // against itself has degree 1 on each side and no atoms: 2/p + 2/q.
  MgProgram *a = mg_sample_sum_last(4, 24);
  CHECK_NEAR(mg_verify_test_bound(a, a), 2.0 / MG_FF_P_LO + 2.0 / MG_FF_Q_LO,
             1e-22);
  // rmsnorm + matmul: X/r has degree (1,1) (r an atom), times W: (2,1),
  // so 3 per program; one sqrt atom per element, argument degree 2. The
  // 16 divisions X/r of each program may hit a zero residue in either
  // component with probability <= 1/q each: conditioning on no redraw
  // divides by 1 - 64/q.
  MgProgram *b = mg_sample_rmsnorm_matmul(2, 8, 4);
  // The witness monomial has min(atoms, D) = 2 atoms, none nested.
  double atoms = 2, arg = 2, witness = 2;
  double miss = 6.0 / MG_FF_P_LO + 6.0 / MG_FF_Q_LO +
                witness * atoms * 2 * arg / MG_FF_Q_LO;
  CHECK_NEAR(mg_verify_test_bound(b, b), miss / (1 - 64.0 / MG_FF_Q_LO),
             1e-22);
  MgVerifyOptions opt = mg_verify_options_default();
  opt.target_error = 1e-300;
  opt.max_tests = 40;
  MgVerifyResult r;
  CHECK_EQ_INT(mg_verify_equivalent(a, a, &opt, &r, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_EQUIVALENT);
  CHECK(r.log2_bound < -990 && isfinite(r.log2_bound));
  CHECK_EQ_INT(r.error_bound, 0.0); // underflows; log2_bound does not
  mg_program_destroy(a);
  mg_program_destroy(b);
}

// (x / sqrt(y)) · w or (x * sqrt(y)) · w with x(2,64), y(1,64), w(64,3):
// the atom sqrt(y) changes along the contracted dim.
static MgProgram *scaled_matmul(MgOpKind kind) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t dx[2] = {2, 64}, dy[2] = {1, 64}, dw[2] = {64, 3};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dx, NULL);
  MgTensorId y = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dy, NULL);
  MgTensorId w = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dw, NULL);
  MgTensorId r = mg_graph_unary(p, 0, MG_OP_SQRT, y, NULL);
  MgTensorId s = mg_graph_binary(p, 0, kind, x, r, NULL);
  mg_graph_mark_output(p, 0, mg_graph_matmul(p, 0, s, w, NULL), NULL);
  return p;
}

static void test_verify_bound_laurent(void) {
  MgProgram *a = scaled_matmul(MG_OP_DIV), *b = scaled_matmul(MG_OP_MUL);
  // Laurent mode: x·r^-1·w has degree 3 per program, no denominator; 64
  // atoms per output element per program; the witness has min(128, 6)
  // atoms; argument degree 1; 128 divisions per program, q live.
  double p = MG_FF_P_LO, q = MG_FF_Q_LO;
  double miss = 6 / p + 6 / q + 6.0 * 128 * 2 / q;
  CHECK_NEAR(mg_verify_test_bound(a, a), miss / (1 - 2 * 128 * 2 / q), 1e-20);
  // sqrt appears with both signs between a and b: every denominator is
  // cleared, so the 64 different r_k make the degree grow with k.
  CHECK(mg_verify_test_bound(a, b) > 10 * mg_verify_test_bound(a, a));
  CHECK(mg_verify_test_bound(b, b) < mg_verify_test_bound(a, a));
  MgStatus st;
  MgVerifyResult r = verify(a, b, &st, NULL);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_NOT_EQUIVALENT);
  r = verify(a, a, &st, NULL);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_EQUIVALENT);
  mg_program_destroy(a);
  mg_program_destroy(b);
}

// Tests run on several threads give the same result, field for field: an
// equivalent pair (several tests to the bound), a pair that differs, and a
// bound tight enough to need more tests than one batch.
static void same_with_threads(MgProgram *a, MgProgram *b, double target) {
  MgVerifyOptions one = mg_verify_options_default();
  one.target_error = target;
  MgVerifyOptions many = one;
  many.threads = 3;
  MgVerifyResult r1, r3;
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &one, &r1, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &many, &r3, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(r1.verdict, r3.verdict);
  CHECK_EQ_INT(r1.tests, r3.tests);
  CHECK_EQ_INT(r1.redraws, r3.redraws);
  CHECK_EQ_INT(r1.output, r3.output);
  CHECK_EQ_INT(r1.index, r3.index);
  CHECK(r1.value_a == r3.value_a && r1.value_b == r3.value_b);
  CHECK(r1.log2_bound == r3.log2_bound);
  // A memory bound below one test's values leaves one thread: same again.
  MgVerifyOptions tight = many;
  tight.memory_limit = 1;
  MgVerifyResult rt;
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &tight, &rt, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(rt.verdict, r1.verdict);
  CHECK_EQ_INT(rt.tests, r1.tests);
  CHECK_EQ_INT(rt.index, r1.index);
  mg_program_destroy(a);
  mg_program_destroy(b);
}

static void test_verify_threads_same_result(void) {
  same_with_threads(mg_sample_rmsnorm_matmul(2, 32, 12),
                    mg_sample_rmsnorm_matmul_fused(2, 32, 12, 3, 4),
                    ldexp(1.0, -40));
  same_with_threads(mg_sample_rmsnorm_matmul(2, 32, 12),
                    mg_sample_rmsnorm_matmul_fused(2, 32, 12, 3, 4),
                    ldexp(1.0, -200)); // many batches
  MgProgram *a, *b; // not equivalent in the model
  sqrt_squared_vs_x(&a, &b);
  same_with_threads(a, b, ldexp(1.0, -40));
}

// Inputs x(4,8), c(1,1), d(4,8); out = x + c, or (x + d) + d when
// `twice`. With c fixed to 2 and d to 1 everywhere they are equal; a wrong
// constant, or the constants left as random inputs, tells them apart.
static MgProgram *plus_constants(bool twice) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t dx[2] = {4, 8}, dc[2] = {1, 1};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, dx, NULL);
  MgTensorId c = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, dc, NULL);
  MgTensorId d = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, dx, NULL);
  MgTensorId y = twice ? mg_graph_binary(p, 0, MG_OP_ADD,
                                         mg_graph_binary(p, 0, MG_OP_ADD, x,
                                                         d, NULL),
                                         d, NULL)
                       : mg_graph_binary(p, 0, MG_OP_ADD, x, c, NULL);
  mg_graph_mark_output(p, 0, y, NULL);
  return p;
}

static void test_verify_constants(void) {
  MgProgram *a = plus_constants(false), *b = plus_constants(true);
  double two = 2.0, three = 3.0, ones[32], inf = -INFINITY;
  for (int i = 0; i < 32; ++i)
    ones[i] = 1.0;
  MgVerifyConstant k[2] = {{1, &two, 1}, {2, ones, 32}};
  MgVerifyOptions opt = mg_verify_options_default();
  MgVerifyResult r;
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_NOT_EQUIVALENT); // free inputs
  opt.constants = k;
  opt.num_constants = 2;
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_EQUIVALENT);
  k[0].values = &three;
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(r.verdict, MG_VERDICT_NOT_EQUIVALENT);
  k[0].values = &inf; // no image in the field
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r, NULL), MG_STATUS_INVALID);
  k[0] = (MgVerifyConstant){1, ones, 2}; // neither a splat nor every element
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r, NULL), MG_STATUS_INVALID);
  k[0] = (MgVerifyConstant){3, &two, 1}; // no such input
  CHECK_EQ_INT(mg_verify_equivalent(a, b, &opt, &r, NULL), MG_STATUS_INVALID);
  mg_program_destroy(a);
  mg_program_destroy(b);
}

int main(void) {
  RUN_TEST(test_verify_field_primes);
  RUN_TEST(test_verify_field_generator_order);
  RUN_TEST(test_verify_field_inverse);
  RUN_TEST(test_verify_field_scalar_mapping);
  RUN_TEST(test_verify_domain_exp_homomorphism);
  RUN_TEST(test_verify_domain_zero_divisor);
  RUN_TEST(test_verify_domain_uninterpreted);
  RUN_TEST(test_verify_domain_matmul_matches_naive);
  RUN_TEST(test_verify_domain_matmul_paths_agree);
  RUN_TEST(test_verify_rmsnorm_matmul_fused);
  RUN_TEST(test_verify_attention_split_kv);
  RUN_TEST(test_verify_lora_one_kernel);
  RUN_TEST(test_verify_sum_split_over_loop);
  RUN_TEST(test_verify_gated_mlp_fused);
  RUN_TEST(test_verify_ntrans_fused);
  RUN_TEST(test_verify_exp_identities);
  RUN_TEST(test_verify_uninterpreted_not_proven);
  RUN_TEST(test_verify_thread_graph_epilogue);
  RUN_TEST(test_verify_determinism);
  RUN_TEST(test_verify_reports_first_difference);
  RUN_TEST(test_verify_views_transpose);
  RUN_TEST(test_verify_views_slice_concat);
  RUN_TEST(test_verify_views_reshape);
  RUN_TEST(test_verify_bound_views);
  RUN_TEST(test_verify_zero_divisor_redraws);
  RUN_TEST(test_verify_rejects_exp_of_exp);
  RUN_TEST(test_verify_rejects_nan_scalar);
  RUN_TEST(test_verify_rejects_mismatched_signatures);
  RUN_TEST(test_verify_bound_grows_with_degree);
  RUN_TEST(test_verify_bound_laurent);
  RUN_TEST(test_verify_threads_same_result);
  RUN_TEST(test_verify_constants);
  return TEST_SUMMARY();
}
