//===- samples_stable.c - Numerically stable softmax and attention -------===//
//
// The programs frontends emit (the row max subtracted before exp) and the
// fused forms the search should find for them: FlashAttention-2 (one
// kernel, online accumulators over the KV for-loop) and flash-decoding
// (split-KV: each chunk returns its rescaled partials and its max; a second
// kernel merges them with the same online accumulator).
//
//===----------------------------------------------------------------------===//
#include "samples_build.h"

static MgTensorId row_max(Build *b, MgGraphId g, MgTensorId x, int32_t dim) {
  return BUILD_STEP(b,
                    mg_graph_reduce(b->p, g, MG_OP_REDUCE_MAX, x, dim, NULL));
}

static MgTensorId online(Build *b, MgGraphId g, MgTensorId x, MgTensorId m) {
  return BUILD_STEP(b, mg_graph_accum_online(b->p, g, x, m, NULL));
}

// exp(x − max_dim x): every element in (0, 1].
static MgTensorId stable_exp(Build *b, MgGraphId g, MgTensorId x,
                             MgTensorId m) {
  return unary(b, g, MG_OP_EXP, binary(b, g, MG_OP_SUB, x, m));
}

MgProgram *mg_sample_stable_softmax(int64_t m, int64_t n) {
  if (!positive(m, n, 1, 1))
    return NULL;
  Build b = start();
  MgTensorId x = input(&b, 0, 2, m, n, 0);
  MgTensorId e = stable_exp(&b, 0, x, row_max(&b, 0, x, 1));
  output(&b, 0, binary(&b, 0, MG_OP_DIV, e, sum(&b, 0, e, 1)));
  return finish(&b);
}

MgProgram *mg_sample_stable_softmax_fused(int64_t m, int64_t n,
                                          int32_t grid) {
  if (!positive(m, n, grid, 1))
    return NULL;
  Build b = start();
  MgTensorId in = input(&b, 0, 2, m, n, 0);
  MgGraphId g = block(&b, grid, 1, 1);
  MgTensorId xt =
      iter(&b, g, input(&b, g, 2, m, n, 0), (Map3){0, PHI, PHI}, PHI);
  MgTensorId e = stable_exp(&b, g, xt, row_max(&b, g, xt, 1));
  save(&b, g, binary(&b, g, MG_OP_DIV, e, sum(&b, g, e, 1)), 0, PHI, PHI);
  output(&b, 0, custom(&b, g, 1, &in, NULL));
  return finish(&b);
}

// (exp(S − max S) / sum_last(exp(S − max S))) · v, S = q·k, in graph 0.
static MgTensorId stable_attention(Build *b, MgTensorId q, MgTensorId k,
                                   MgTensorId v) {
  MgTensorId sc = matmul(b, 0, q, k);
  MgTensorId e = stable_exp(b, 0, sc, row_max(b, 0, sc, 2));
  MgTensorId p = binary(b, 0, MG_OP_DIV, e, sum(b, 0, e, 2));
  return matmul(b, 0, p, v);
}

MgProgram *mg_sample_stable_attention(int64_t bs, int64_t s, int64_t d,
                                      int64_t l) {
  return attention_program(bs, s, d, l, stable_attention, false);
}

MgProgram *mg_sample_stable_qknorm(int64_t bs, int64_t s, int64_t d,
                                   int64_t l) {
  return attention_program(bs, s, d, l, stable_attention, true);
}

// What one for-loop step of FlashAttention-2 leaves: the two online sums,
// of P·V and of P's rows, and the tile's own max they are keyed by.
typedef struct FlashSums {
  MgTensorId num, den, max;
} FlashSums;

// One for-loop step of FlashAttention-2 in block graph g on tiles qt, kt,
// vt: the tile's own max m, P = exp(S − m), and the two online sums of
// P·V and of P's rows, rescaled to the running max.
static FlashSums flash_step(Build *b, MgGraphId g, MgTensorId qt,
                            MgTensorId kt, MgTensorId vt) {
  FlashSums f;
  MgTensorId sc = matmul(b, g, qt, kt);
  f.max = row_max(b, g, sc, 2);
  MgTensorId p = stable_exp(b, g, sc, f.max);
  f.num = online(b, g, matmul(b, g, p, vt), f.max);
  f.den = online(b, g, sum(b, g, p, 2), f.max);
  return f;
}

// Block (x, y): query rows x of batch y, looping over the KV length.
static void flash(Build *b, const BlockedAttention *a) {
  MgGraphId g = a->g;
  FlashSums f = flash_step(b, g, iter(b, g, a->q, (Map3){1, 0, PHI}, PHI),
                           iter(b, g, a->k, (Map3){PHI, 0, PHI}, 2),
                           iter(b, g, a->v, (Map3){PHI, 0, PHI}, 1));
  save(b, g, binary(b, g, MG_OP_DIV, f.num, f.den), 1, 0, PHI);
  output(b, 0, custom(b, g, 3, a->ins, NULL));
}

MgProgram *mg_sample_stable_attention_flash(int64_t bs, int64_t s, int64_t d,
                                            int64_t l, int32_t row_blocks,
                                            int32_t forloop) {
  return blocked_attention_program((AttentionShape){bs, s, d, l}, row_blocks,
                                   forloop, flash);
}

// Kernel 1: block (x, y) takes KV chunk x of batch y and writes its
// rescaled partials and its max side by side along dim 1.
static void stable_split_kv(Build *b, const BlockedAttention *a) {
  MgGraphId g1 = a->g;
  FlashSums f = flash_step(b, g1, iter(b, g1, a->q, (Map3){PHI, 0, PHI}, PHI),
                           iter(b, g1, a->k, (Map3){2, 0, PHI}, 2),
                           iter(b, g1, a->v, (Map3){1, 0, PHI}, 1));
  save(b, g1, f.num, 1, 0, PHI);
  save(b, g1, f.den, 1, 0, PHI);
  save(b, g1, accum(b, g1, f.max, MG_ACCUM_MAX), 1, 0, PHI);
  MgTensorId part[3];
  custom(b, g1, 3, a->ins, part);
  // Kernel 2: batch y merges its chunks over the for-loop with the same
  // online sums, keyed by each chunk's max, then divides.
  MgTensorId pnsm[3]; // Σ P·V, Σ P, the max
  MgGraphId g2 = split_kv_merge_block(b, a, 3, pnsm);
  MgTensorId mt = iter(b, g2, pnsm[2], (Map3){0, PHI, PHI}, 1);
  MgTensorId n2 =
      online(b, g2, iter(b, g2, pnsm[0], (Map3){0, PHI, PHI}, 1), mt);
  MgTensorId s2 =
      online(b, g2, iter(b, g2, pnsm[1], (Map3){0, PHI, PHI}, 1), mt);
  save(b, g2, binary(b, g2, MG_OP_DIV, n2, s2), 0, PHI, PHI);
  output(b, 0, custom(b, g2, 3, part, NULL));
}

MgProgram *mg_sample_stable_attention_split_kv(int64_t bs, int64_t s,
                                               int64_t d, int64_t l,
                                               int32_t chunks,
                                               int32_t forloop) {
  return blocked_attention_program((AttentionShape){bs, s, d, l}, chunks,
                                   forloop, stable_split_kv);
}
