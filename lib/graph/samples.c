//===- samples.c - The benchmark programs, built with the builders --------===//
//
// Each sample is written once against the public builders, so it is valid
// by construction whenever the builders accept it (helpers in
// samples_build.h).
//
//===----------------------------------------------------------------------===//
#include "samples_build.h"

//===--- RMSNorm + matmul --------------------------------------------------===//

MgProgram *mg_sample_rmsnorm_matmul(int64_t m, int64_t k, int64_t n) {
  if (!positive(m, k, n, 1))
    return NULL;
  Build b = start();
  MgTensorId x = input(&b, 0, 2, m, k, 0), w = input(&b, 0, 2, k, n, 0);
  output(&b, 0, matmul(&b, 0, rmsnorm(&b, 0, x, 2, k), w));
  return finish(&b);
}

MgProgram *mg_sample_rmsnorm_matmul_fused(int64_t m, int64_t k, int64_t n,
                                          int32_t grid, int32_t forloop) {
  if (!positive(m, k, n, 1) || grid <= 0 || forloop <= 0)
    return NULL;
  Build b = start();
  MgTensorId ins[2] = {input(&b, 0, 2, m, k, 0), input(&b, 0, 2, k, n, 0)};
  MgGraphId g = block(&b, grid, 1, forloop);
  MgTensorId x = input(&b, g, 2, m, k, 0), w = input(&b, g, 2, k, n, 0);
  MgTensorId xt = iter(&b, g, x, (Map3){PHI, PHI, PHI}, 1);
  MgTensorId wt = iter(&b, g, w, (Map3){1, PHI, PHI}, 0);
  MgTensorId xw = accum(&b, g, matmul(&b, g, xt, wt), MG_ACCUM_SUM);
  MgTensorId ss = accum(&b, g, xt, MG_ACCUM_SUM_SQ_LAST);
  MgTensorId r = unary(&b, g, MG_OP_SQRT,
                       scalar(&b, g, MG_OP_DIV_SCALAR, ss, (double)k));
  save(&b, g, binary(&b, g, MG_OP_DIV, xw, r), 1, PHI, PHI);
  output(&b, 0, custom(&b, g, 2, ins, NULL));
  return finish(&b);
}

//===--- Attention ---------------------------------------------------------===//

// (exp(q·k) / sum_last(exp(q·k))) · v in kernel graph 0.
static MgTensorId attention(Build *b, MgTensorId q, MgTensorId k,
                            MgTensorId v) {
  MgTensorId e = unary(b, 0, MG_OP_EXP, matmul(b, 0, q, k));
  MgTensorId p = binary(b, 0, MG_OP_DIV, e, sum(b, 0, e, 2));
  return matmul(b, 0, p, v);
}

MgProgram *mg_sample_attention(int64_t bs, int64_t s, int64_t d, int64_t l) {
  return attention_program(bs, s, d, l, attention, false);
}

// Kernel 1: block (x, y) takes KV chunk x of batch y.
static void split_kv(Build *b, const BlockedAttention *a) {
  MgGraphId g1 = a->g;
  MgTensorId qt = iter(b, g1, a->q, (Map3){PHI, 0, PHI}, PHI);
  MgTensorId kt = iter(b, g1, a->k, (Map3){2, 0, PHI}, 2);
  MgTensorId vt = iter(b, g1, a->v, (Map3){1, 0, PHI}, 1);
  MgTensorId e = unary(b, g1, MG_OP_EXP, matmul(b, g1, qt, kt));
  MgTensorId num = accum(b, g1, matmul(b, g1, e, vt), MG_ACCUM_SUM);
  MgTensorId den = accum(b, g1, e, MG_ACCUM_SUM_LAST);
  save(b, g1, num, 1, 0, PHI);
  save(b, g1, den, 1, 0, PHI);
  MgTensorId part[2];
  custom(b, g1, 3, a->ins, part);
  // Kernel 2: batch y adds its chunks' partials over the for-loop, then
  // divides: (Σ_c N_c) / (Σ_c S_c).
  MgTensorId pns[2]; // Σ P·V, Σ P
  MgGraphId g2 = split_kv_merge_block(b, a, 2, pns);
  MgTensorId n2 =
      accum(b, g2, iter(b, g2, pns[0], (Map3){0, PHI, PHI}, 1), MG_ACCUM_SUM);
  MgTensorId s2 =
      accum(b, g2, iter(b, g2, pns[1], (Map3){0, PHI, PHI}, 1), MG_ACCUM_SUM);
  save(b, g2, binary(b, g2, MG_OP_DIV, n2, s2), 0, PHI, PHI);
  output(b, 0, custom(b, g2, 2, part, NULL));
}

MgProgram *mg_sample_attention_split_kv(int64_t bs, int64_t s, int64_t d,
                                        int64_t l, int32_t chunks,
                                        int32_t forloop) {
  return blocked_attention_program((AttentionShape){bs, s, d, l}, chunks,
                                   forloop, split_kv);
}

MgProgram *mg_sample_qknorm(int64_t bs, int64_t s, int64_t d, int64_t l) {
  return attention_program(bs, s, d, l, attention, true);
}

//===--- LoRA --------------------------------------------------------------===//

MgProgram *mg_sample_lora(int64_t m, int64_t k, int64_t n, int64_t r) {
  if (!positive(m, k, n, r))
    return NULL;
  Build b = start();
  MgTensorId x = input(&b, 0, 2, m, k, 0), w = input(&b, 0, 2, k, n, 0);
  MgTensorId a = input(&b, 0, 2, k, r, 0), bb = input(&b, 0, 2, r, n, 0);
  MgTensorId xw = matmul(&b, 0, x, w);
  MgTensorId xab = matmul(&b, 0, matmul(&b, 0, x, a), bb);
  output(&b, 0, binary(&b, 0, MG_OP_ADD, xw, xab));
  return finish(&b);
}

MgProgram *mg_sample_lora_fused(int64_t m, int64_t k, int64_t n, int64_t r,
                                int32_t grid) {
  if (!positive(m, k, n, r) || grid <= 0)
    return NULL;
  Build b = start();
  MgTensorId ins[4] = {input(&b, 0, 2, m, k, 0), input(&b, 0, 2, k, n, 0),
                       input(&b, 0, 2, k, r, 0), input(&b, 0, 2, r, n, 0)};
  MgGraphId g = block(&b, grid, 1, 1);
  MgTensorId x = input(&b, g, 2, m, k, 0), w = input(&b, g, 2, k, n, 0);
  MgTensorId a = input(&b, g, 2, k, r, 0), bb = input(&b, g, 2, r, n, 0);
  MgTensorId xt = iter(&b, g, x, (Map3){PHI, PHI, PHI}, PHI);
  MgTensorId wt = iter(&b, g, w, (Map3){1, PHI, PHI}, PHI);
  MgTensorId at = iter(&b, g, a, (Map3){PHI, PHI, PHI}, PHI);
  MgTensorId bt = iter(&b, g, bb, (Map3){1, PHI, PHI}, PHI);
  MgTensorId xw = matmul(&b, g, xt, wt);
  MgTensorId xab = matmul(&b, g, matmul(&b, g, xt, at), bt);
  save(&b, g, binary(&b, g, MG_OP_ADD, xw, xab), 1, PHI, PHI);
  output(&b, 0, custom(&b, g, 4, ins, NULL));
  return finish(&b);
}

//===--- Gated MLP ---------------------------------------------------------===//

// The MLP inputs X(m,k), W1(k,n), W2(k,n) of graph g, into xw[3].
static void mlp_inputs(Build *b, MgGraphId g, int64_t m, int64_t k, int64_t n,
                       MgTensorId *xw) {
  xw[0] = input(b, g, 2, m, k, 0);
  xw[1] = input(b, g, 2, k, n, 0);
  xw[2] = input(b, g, 2, k, n, 0);
}

// An unfused MLP sample's start: its sizes checked, *b started and the
// kernel inputs in xw[3]. False when the sizes are not accepted.
static bool mlp_start(Build *b, int64_t m, int64_t k, int64_t n,
                      MgTensorId *xw) {
  if (!positive(m, k, n, 1))
    return false;
  *b = start();
  mlp_inputs(b, 0, m, k, n, xw);
  return true;
}

MgProgram *mg_sample_gated_mlp(int64_t m, int64_t k, int64_t n) {
  Build b;
  MgTensorId in[3]; // x, w1, w2
  if (!mlp_start(&b, m, k, n, in))
    return NULL;
  MgTensorId gate = unary(&b, 0, MG_OP_SILU, matmul(&b, 0, in[0], in[1]));
  output(&b, 0, binary(&b, 0, MG_OP_MUL, gate, matmul(&b, 0, in[0], in[2])));
  return finish(&b);
}

// What follows the two accumulators of an MLP kernel (graph g).
typedef MgTensorId (*MlpPost)(Build *b, MgGraphId g, MgTensorId h1,
                              MgTensorId h2);

// One kernel: grid (grid,1,1) over n, for-loop over k, the accumulators
// X·W1 and X·W2, then `post` after the loop.
static MgProgram *mlp_fused(int64_t m, int64_t k, int64_t n, int32_t grid,
                            int32_t forloop, MlpPost post) {
  if (!positive(m, k, n, 1) || grid <= 0 || forloop <= 0)
    return NULL;
  Build b = start();
  MgTensorId ins[3], xw[3];
  mlp_inputs(&b, 0, m, k, n, ins);
  MgGraphId g = block(&b, grid, 1, forloop);
  mlp_inputs(&b, g, m, k, n, xw);
  MgTensorId xt = iter(&b, g, xw[0], (Map3){PHI, PHI, PHI}, 1);
  MgTensorId w1t = iter(&b, g, xw[1], (Map3){1, PHI, PHI}, 0);
  MgTensorId w2t = iter(&b, g, xw[2], (Map3){1, PHI, PHI}, 0);
  MgTensorId h1 = accum(&b, g, matmul(&b, g, xt, w1t), MG_ACCUM_SUM);
  MgTensorId h2 = accum(&b, g, matmul(&b, g, xt, w2t), MG_ACCUM_SUM);
  save(&b, g, post(&b, g, h1, h2), 1, PHI, PHI);
  output(&b, 0, custom(&b, g, 3, ins, NULL));
  return finish(&b);
}

static MgTensorId gated_post(Build *b, MgGraphId g, MgTensorId h1,
                             MgTensorId h2) {
  return binary(b, g, MG_OP_MUL, unary(b, g, MG_OP_SILU, h1), h2);
}

MgProgram *mg_sample_gated_mlp_fused(int64_t m, int64_t k, int64_t n,
                                     int32_t grid, int32_t forloop) {
  return mlp_fused(m, k, n, grid, forloop, gated_post);
}

//===--- An MLP with log, tanh and erf ------------------------------------===//

// tanh(x·w1) · erf(x·w2) + log((x·w1)²): the non-LAX functions frontends
// spell (GELU's tanh and erf forms, log-sum forms) in one program.
static MgTensorId math_post(Build *b, MgGraphId g, MgTensorId h1,
                            MgTensorId h2) {
  MgTensorId t = binary(b, g, MG_OP_MUL, unary(b, g, MG_OP_TANH, h1),
                        unary(b, g, MG_OP_ERF, h2));
  return binary(b, g, MG_OP_ADD, t,
                unary(b, g, MG_OP_LOG, unary(b, g, MG_OP_SQUARE, h1)));
}

MgProgram *mg_sample_math_mlp(int64_t m, int64_t k, int64_t n) {
  Build b;
  MgTensorId in[3]; // x, w1, w2
  if (!mlp_start(&b, m, k, n, in))
    return NULL;
  output(&b, 0, math_post(&b, 0, matmul(&b, 0, in[0], in[1]),
                          matmul(&b, 0, in[0], in[2])));
  return finish(&b);
}

MgProgram *mg_sample_math_mlp_fused(int64_t m, int64_t k, int64_t n,
                                    int32_t grid, int32_t forloop) {
  return mlp_fused(m, k, n, grid, forloop, math_post);
}

//===--- nTrans ------------------------------------------------------------===//

// rmsnorm(x + α * (rmsnorm(h) + x)) in graph g, rows of length n.
static MgTensorId ntrans(Build *b, MgGraphId g, MgTensorId h, MgTensorId x,
                         MgTensorId alpha, int64_t n) {
  MgTensorId inner = binary(b, g, MG_OP_ADD, rmsnorm(b, g, h, 2, n), x);
  MgTensorId y = binary(b, g, MG_OP_ADD, x,
                        binary(b, g, MG_OP_MUL, alpha, inner));
  return rmsnorm(b, g, y, 2, n);
}

MgProgram *mg_sample_ntrans(int64_t m, int64_t n) {
  if (!positive(m, n, 1, 1))
    return NULL;
  Build b = start();
  MgTensorId h = input(&b, 0, 2, m, n, 0), x = input(&b, 0, 2, m, n, 0);
  MgTensorId alpha = input(&b, 0, 2, m, n, 0);
  output(&b, 0, ntrans(&b, 0, h, x, alpha, n));
  return finish(&b);
}

MgProgram *mg_sample_ntrans_fused(int64_t m, int64_t n, int32_t grid) {
  if (!positive(m, n, 1, 1) || grid <= 0)
    return NULL;
  Build b = start();
  MgTensorId ins[3] = {input(&b, 0, 2, m, n, 0), input(&b, 0, 2, m, n, 0),
                       input(&b, 0, 2, m, n, 0)};
  MgGraphId g = block(&b, grid, 1, 1);
  MgTensorId h = input(&b, g, 2, m, n, 0), x = input(&b, g, 2, m, n, 0);
  MgTensorId alpha = input(&b, g, 2, m, n, 0);
  MgTensorId ht = iter(&b, g, h, (Map3){0, PHI, PHI}, PHI);
  MgTensorId xt = iter(&b, g, x, (Map3){0, PHI, PHI}, PHI);
  MgTensorId at = iter(&b, g, alpha, (Map3){0, PHI, PHI}, PHI);
  save(&b, g, ntrans(&b, g, ht, xt, at, n), 0, PHI, PHI);
  output(&b, 0, custom(&b, g, 3, ins, NULL));
  return finish(&b);
}

//===--- Row sums ----------------------------------------------------------===//

MgProgram *mg_sample_sum_last(int64_t m, int64_t n) {
  if (!positive(m, n, 1, 1))
    return NULL;
  Build b = start();
  output(&b, 0, sum(&b, 0, input(&b, 0, 2, m, n, 0), 1));
  return finish(&b);
}

MgProgram *mg_sample_sum_last_fused(int64_t m, int64_t n, int32_t grid,
                                    int32_t forloop) {
  if (!positive(m, n, 1, 1) || grid <= 0 || forloop <= 0)
    return NULL;
  Build b = start();
  MgTensorId in = input(&b, 0, 2, m, n, 0);
  MgGraphId g = block(&b, grid, 1, forloop);
  MgTensorId x = input(&b, g, 2, m, n, 0);
  MgTensorId s = accum(&b, g, iter(&b, g, x, (Map3){0, PHI, PHI}, 1),
                       MG_ACCUM_SUM_LAST);
  save(&b, g, s, 0, PHI, PHI);
  output(&b, 0, custom(&b, g, 1, &in, NULL));
  return finish(&b);
}
