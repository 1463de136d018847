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

//===--- Convolutions and pooling (issue 30) -------------------------------===//
//
// As the lifter writes them: im2col (MG_OP_IM2COL) of the NHWC input and a
// batched matmul with the filter reshaped to (groups, kh·kw·C/groups, F/
// groups), or a reduction over the patches' columns; every result leaves
// through views to NHWC. Each comes with an equivalent form that computes
// it otherwise (the mutation suite's pairs, test_mutation.c). Not yet in
// mirage/samples.h: declared where they are used. All kernel level, f16.

static MgTensorId input4(Build *b, int64_t d0, int64_t d1, int64_t d2,
                         int64_t d3) {
  int64_t dims[4] = {d0, d1, d2, d3};
  return BUILD_STEP(b,
                    mg_graph_add_input(b->p, 0, MG_DTYPE_F16, 4, dims, NULL));
}

static MgTensorId patches(Build *b, MgTensorId x, const MgIm2col *c) {
  return BUILD_STEP(b, mg_graph_im2col(b->p, 0, x, c, NULL));
}

static MgTensorId reshape(Build *b, MgTensorId x, uint32_t rank, int64_t d0,
                          int64_t d1, int64_t d2, int64_t d3) {
  int64_t dims[4] = {d0, d1, d2, d3};
  return BUILD_STEP(b, mg_graph_reshape(b->p, 0, x, rank, dims, NULL));
}

static MgTensorId transpose(Build *b, MgTensorId x, int8_t p0, int8_t p1,
                            int8_t p2, int8_t p3) {
  int8_t perm[4] = {p0, p1, p2, p3};
  return BUILD_STEP(b, mg_graph_transpose(b->p, 0, x, perm, NULL));
}

// The output size of `c` over an (n, h, w, ch) input with `ch` channels,
// or false when a size is not positive, `c` is missing, its groups are not
// `groups` or the window does not fit (the builders check the rest).
static bool conv_sizes(int64_t n, int64_t h, int64_t w, int64_t ch,
                       const MgIm2col *c, int64_t groups, int64_t *ho,
                       int64_t *wo) {
  if (!c || !positive(n, h, w, ch) || c->groups != groups)
    return false;
  mg_im2col_out_hw(c, h, w, ho, wo);
  return *ho > 0 && *wo > 0;
}

/// A 2-D convolution, inputs X (n,h,w,c) NHWC and the filter W (kh,kw,c,f)
/// HWCF, `conv` of groups 1: Y (n,ho,wo,f) = im2col(X) · reshape(W,
/// (1, kh·kw·c, f)), the (1, n·ho·wo, f) product reshaped to NHWC.
MG_API MgProgram *mg_sample_conv2d(int64_t n, int64_t h, int64_t w, int64_t c,
                                   int64_t f, const MgIm2col *conv) {
  int64_t ho, wo;
  if (!conv_sizes(n, h, w, c, conv, 1, &ho, &wo) || f <= 0)
    return NULL;
  Build b = start();
  MgTensorId x = input4(&b, n, h, w, c);
  MgTensorId flt = input4(&b, conv->kh, conv->kw, c, f);
  int64_t k = conv->kh * conv->kw * c;
  MgTensorId y = matmul(&b, 0, patches(&b, x, conv),
                        reshape(&b, flt, 3, 1, k, f, 0));
  output(&b, 0, reshape(&b, y, 4, n, ho, wo, f));
  return finish(&b);
}

/// The same convolution as (Wᵀ · Pᵀ)ᵀ on 2-D views: P = im2col(X) reshaped
/// (n·ho·wo, kh·kw·c), W reshaped (kh·kw·c, f).
MG_API MgProgram *mg_sample_conv2d_transposed(int64_t n, int64_t h, int64_t w,
                                              int64_t c, int64_t f,
                                              const MgIm2col *conv) {
  int64_t ho, wo;
  if (!conv_sizes(n, h, w, c, conv, 1, &ho, &wo) || f <= 0)
    return NULL;
  Build b = start();
  MgTensorId x = input4(&b, n, h, w, c);
  MgTensorId flt = input4(&b, conv->kh, conv->kw, c, f);
  int64_t k = conv->kh * conv->kw * c, m = n * ho * wo;
  MgTensorId p = reshape(&b, patches(&b, x, conv), 2, m, k, 0, 0);
  MgTensorId wt = transpose(&b, reshape(&b, flt, 2, k, f, 0, 0), 1, 0, 0, 0);
  MgTensorId yt = matmul(&b, 0, wt, transpose(&b, p, 1, 0, 0, 0));
  output(&b, 0, reshape(&b, transpose(&b, yt, 1, 0, 0, 0), 4, n, ho, wo, f));
  return finish(&b);
}

// The depthwise filter W (kh,kw,c), a new input, as (c, kh·kw):
// channel-major taps.
static MgTensorId depthwise_taps(Build *b, const MgIm2col *conv, int64_t c) {
  MgTensorId flt = BUILD_STEP(
      b, mg_graph_add_input(b->p, 0, MG_DTYPE_F16, 3,
                            (const int64_t[]){conv->kh, conv->kw, c}, NULL));
  return transpose(b, reshape(b, flt, 2, conv->kh * conv->kw, c, 0, 0), 1, 0,
                   0, 0);
}

/// A depthwise convolution, inputs X (n,h,w,c) NHWC and the filter W
/// (kh,kw,c), `conv` of groups c: Y[n,ho,wo,ch] = Σ_ij patch · W[i,j,ch],
/// as the batched matmul of im2col(X) (c, n·ho·wo, kh·kw) with W's taps
/// (c, kh·kw, 1); the (c, n·ho·wo, 1) result transposed to NHWC.
MG_API MgProgram *mg_sample_depthwise_conv2d(int64_t n, int64_t h, int64_t w,
                                             int64_t c, const MgIm2col *conv) {
  int64_t ho, wo;
  if (!conv_sizes(n, h, w, c, conv, c, &ho, &wo))
    return NULL;
  Build b = start();
  MgTensorId x = input4(&b, n, h, w, c);
  int64_t taps = conv->kh * conv->kw;
  MgTensorId wt = reshape(&b, depthwise_taps(&b, conv, c), 3, c, taps,
                          1, 0);
  MgTensorId y = matmul(&b, 0, patches(&b, x, conv), wt);
  output(&b, 0, transpose(&b, reshape(&b, y, 4, c, n, ho, wo), 1, 2, 3, 0));
  return finish(&b);
}

/// The same depthwise convolution as an element-wise product of the
/// patches with W's taps broadcast over the rows, (c, 1, kh·kw), summed
/// over the taps; the (c, n·ho·wo, 1) sums leave as (n·ho·wo, c) rows.
MG_API MgProgram *mg_sample_depthwise_conv2d_mul(int64_t n, int64_t h,
                                                 int64_t w, int64_t c,
                                                 const MgIm2col *conv) {
  int64_t ho, wo;
  if (!conv_sizes(n, h, w, c, conv, c, &ho, &wo))
    return NULL;
  Build b = start();
  MgTensorId x = input4(&b, n, h, w, c);
  int64_t taps = conv->kh * conv->kw, m = n * ho * wo;
  MgTensorId wt = reshape(&b, depthwise_taps(&b, conv, c), 3, c, 1,
                          taps, 0);
  MgTensorId y =
      sum(&b, 0, binary(&b, 0, MG_OP_MUL, patches(&b, x, conv), wt), 2);
  MgTensorId rows = transpose(&b, reshape(&b, y, 2, c, m, 0, 0), 1, 0, 0, 0);
  output(&b, 0, reshape(&b, rows, 4, n, ho, wo, c));
  return finish(&b);
}

// The pooling of X (n,h,w,c) by `c` (groups = channels): the maxima of the
// patches' rows, (c, n·ho·wo, 1), transposed to NHWC.
static MgTensorId max_pool(Build *b, MgTensorId x, const MgIm2col *conv,
                           int64_t n, int64_t h, int64_t w, int64_t ch) {
  int64_t ho, wo;
  mg_im2col_out_hw(conv, h, w, &ho, &wo);
  MgTensorId y = BUILD_STEP(b, mg_graph_reduce(b->p, 0, MG_OP_REDUCE_MAX,
                                               patches(b, x, conv), 2, NULL));
  return transpose(b, reshape(b, y, 4, ch, n, ho, wo), 1, 2, 3, 0);
}

/// Max pooling of X (n,h,w,c) NHWC by the window of `conv` (groups c): the
/// maximum of each window of the zero-padded input (after a ReLU, as in
/// ResNet's stem, the same as padding with −inf), as reduce_max over the
/// columns of im2col(X).
MG_API MgProgram *mg_sample_max_pool2d(int64_t n, int64_t h, int64_t w,
                                       int64_t c, const MgIm2col *conv) {
  int64_t ho, wo;
  if (!conv_sizes(n, h, w, c, conv, c, &ho, &wo))
    return NULL;
  Build b = start();
  MgTensorId x = input4(&b, n, h, w, c);
  output(&b, 0, max_pool(&b, x, conv, n, h, w, c));
  return finish(&b);
}

/// The same pooling separated: a 1 x kw pooling along the rows (stride,
/// dilation and padding of the width), then a kh x 1 pooling of that
/// along the columns. Zero padding keeps it exact: a padded row of the
/// second pass is the zero a padded row of the window would have given.
MG_API MgProgram *mg_sample_max_pool2d_separable(int64_t n, int64_t h,
                                                 int64_t w, int64_t c,
                                                 const MgIm2col *conv) {
  int64_t ho, wo;
  if (!conv_sizes(n, h, w, c, conv, c, &ho, &wo))
    return NULL;
  MgIm2col rows = *conv, cols = *conv;
  rows.kh = rows.sh = rows.dh = 1;
  rows.pad_top = rows.pad_bottom = 0;
  cols.kw = cols.sw = cols.dw = 1;
  cols.pad_left = cols.pad_right = 0;
  Build b = start();
  MgTensorId x = input4(&b, n, h, w, c);
  MgTensorId t = max_pool(&b, x, &rows, n, h, w, c);
  output(&b, 0, max_pool(&b, t, &cols, n, h, wo, c));
  return finish(&b);
}
