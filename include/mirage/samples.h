//===- samples.h - The benchmark programs, built with the builders -*- C -*-===//
//
// Reference programs (kernel-level, one predefined op per kernel) and hand
// fused forms of the six benchmark programs of the Mirage paper and a few
// helpers. Tests use small shapes, benches the paper's; the search uses the
// kernel-level forms as targets. Every function returns a new program the
// caller must mg_program_destroy, or NULL when a shape or launch parameter
// is invalid (non-positive, or a grid / for-loop range that does not divide
// the dim it cuts).
//
// Inputs are numbered in the order of the parameters' letters below; every
// program has one output. All tensors are f16 (as in the paper).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SAMPLES_H
#define MIRAGE_SAMPLES_H

#include "mirage/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/// RMSNorm + matmul, inputs X(m,k), W(k,n):
/// Y = (X / sqrt(sum_last(X²) / k)) · W, one kernel op per step.
MG_API MgProgram *mg_sample_rmsnorm_matmul(int64_t m, int64_t k, int64_t n);
/// The paper's one-kernel form: grid (grid,1,1), for-loop `forloop` over k.
/// X: imap φ, fmap dim 1 -> SUM_SQ_LAST accumulator; W: imap x->dim 1, fmap
/// dim 0; X·W -> SUM accumulator; after the loop div_scalar k, sqrt, div;
/// saver omap x->dim 1.
MG_API MgProgram *mg_sample_rmsnorm_matmul_fused(int64_t m, int64_t k,
                                                 int64_t n, int32_t grid,
                                                 int32_t forloop);

/// Attention, inputs Q(b,s,d), K(b,d,l), V(b,l,d):
/// E = exp(Q·K), O = (E / sum_last(E)) · V.
MG_API MgProgram *mg_sample_attention(int64_t b, int64_t s, int64_t d,
                                      int64_t l);
/// Split-KV attention in two custom kernels. Kernel 1 runs grid
/// (chunks, b, 1), block x taking chunk x of the KV length and looping
/// `forloop` times inside it; it writes the partial numerators Σ exp(Q·K_c)
/// V_c (b, chunks*s, d) and partial sums Σ exp(Q·K_c) (b, chunks*s, 1) side
/// by side along dim 1. Kernel 2 (grid (b,1,1), for-loop over the chunks)
/// adds the partials and only then divides.
MG_API MgProgram *mg_sample_attention_split_kv(int64_t b, int64_t s,
                                               int64_t d, int64_t l,
                                               int32_t chunks,
                                               int32_t forloop);
/// Stable softmax over the last dim of X(m,n): E = exp(X − max_last X),
/// Y = E / sum_last(E); and the same in one custom kernel, grid (grid,1,1)
/// over the rows.
MG_API MgProgram *mg_sample_stable_softmax(int64_t m, int64_t n);
MG_API MgProgram *mg_sample_stable_softmax_fused(int64_t m, int64_t n,
                                                 int32_t grid);
/// Stable attention, inputs as mg_sample_attention: S = Q·K,
/// E = exp(S − max_last S), O = (E / sum_last(E)) · V.
MG_API MgProgram *mg_sample_stable_attention(int64_t b, int64_t s, int64_t d,
                                             int64_t l);
/// QKNorm (mg_sample_qknorm) with the stable softmax.
MG_API MgProgram *mg_sample_stable_qknorm(int64_t b, int64_t s, int64_t d,
                                          int64_t l);
/// FlashAttention-2: one custom kernel, grid (row_blocks, b, 1), looping
/// `forloop` times over the KV length with online accumulators
/// (MG_ACCUM_ONLINE) keyed by each tile's row max.
MG_API MgProgram *mg_sample_stable_attention_flash(int64_t b, int64_t s,
                                                   int64_t d, int64_t l,
                                                   int32_t row_blocks,
                                                   int32_t forloop);
/// Flash-decoding: as mg_sample_attention_split_kv, kernel 1 also writes
/// each chunk's max (MG_ACCUM_MAX) and its partials are rescaled to it;
/// kernel 2 merges the chunks with online accumulators.
MG_API MgProgram *mg_sample_stable_attention_split_kv(int64_t b, int64_t s,
                                                      int64_t d, int64_t l,
                                                      int32_t chunks,
                                                      int32_t forloop);
/// QKNorm attention: as mg_sample_attention with Q <- Q / rms(Q) and
/// V <- V / rms(V), rms over the last dim (rms(x) = sqrt(sum_last(x²)/d)).
MG_API MgProgram *mg_sample_qknorm(int64_t b, int64_t s, int64_t d,
                                   int64_t l);

/// LoRA, inputs X(m,k), W(k,n), A(k,r), B(r,n): O = X·W + (X·A)·B.
MG_API MgProgram *mg_sample_lora(int64_t m, int64_t k, int64_t n, int64_t r);
/// One kernel with three matmuls, grid (grid,1,1) over n, for-loop range 1
/// (X·A must be complete before it meets B).
MG_API MgProgram *mg_sample_lora_fused(int64_t m, int64_t k, int64_t n,
                                       int64_t r, int32_t grid);

/// Gated MLP, inputs X(m,k), W1(k,n), W2(k,n): O = silu(X·W1) * (X·W2).
MG_API MgProgram *mg_sample_gated_mlp(int64_t m, int64_t k, int64_t n);
/// One kernel: grid (grid,1,1) over n, for-loop over k, two matmul
/// accumulators, then silu and mul after the loop.
MG_API MgProgram *mg_sample_gated_mlp_fused(int64_t m, int64_t k, int64_t n,
                                            int32_t grid, int32_t forloop);

/// tanh(X·W1) · erf(X·W2) + log((X·W1)²), and a fused kernel (as the gated
/// MLP's): the non-LAX log, tanh and erf in one program.
MG_API MgProgram *mg_sample_math_mlp(int64_t m, int64_t k, int64_t n);
MG_API MgProgram *mg_sample_math_mlp_fused(int64_t m, int64_t k, int64_t n,
                                           int32_t grid, int32_t forloop);

/// nTrans, inputs H, X, α, all (m,n):
/// O = rmsnorm(X + α * (rmsnorm(H) + X)), rmsnorm(x) = x / rms(x).
MG_API MgProgram *mg_sample_ntrans(int64_t m, int64_t n);
/// One kernel, grid (grid,1,1) over rows, for-loop range 1.
MG_API MgProgram *mg_sample_ntrans_fused(int64_t m, int64_t n, int32_t grid);

/// Row sums, input X(m,n): Y = sum_last(X), shape (m,1).
MG_API MgProgram *mg_sample_sum_last(int64_t m, int64_t n);
/// The same in one kernel: grid (grid,1,1) over rows, for-loop over the
/// columns into a SUM_LAST accumulator.
MG_API MgProgram *mg_sample_sum_last_fused(int64_t m, int64_t n, int32_t grid,
                                           int32_t forloop);

/// Convolutions (issue 30) over an NHWC input (n, h, w, c) with `conv`'s
/// window, strides, dilations and padding: im2col and a batched matmul
/// with the HWCF filter viewed as (1, K, f), and the same as (Wᵀ·Pᵀ)ᵀ on
/// 2-D views; a depthwise one (groups = c) as a batched matmul with the
/// taps, and as the patches times the taps summed; a max pool (groups =
/// c) as reduce_max over the window, and as its separable 1 x kw then
/// kh x 1 form.
MG_API MgProgram *mg_sample_conv2d(int64_t n, int64_t h, int64_t w, int64_t c,
                                   int64_t f, const MgIm2col *conv);
MG_API MgProgram *mg_sample_conv2d_transposed(int64_t n, int64_t h, int64_t w,
                                              int64_t c, int64_t f,
                                              const MgIm2col *conv);
MG_API MgProgram *mg_sample_depthwise_conv2d(int64_t n, int64_t h, int64_t w,
                                             int64_t c, const MgIm2col *conv);
MG_API MgProgram *mg_sample_depthwise_conv2d_mul(int64_t n, int64_t h,
                                                 int64_t w, int64_t c,
                                                 const MgIm2col *conv);
MG_API MgProgram *mg_sample_max_pool2d(int64_t n, int64_t h, int64_t w,
                                       int64_t c, const MgIm2col *conv);
MG_API MgProgram *mg_sample_max_pool2d_separable(int64_t n, int64_t h,
                                                 int64_t w, int64_t c,
                                                 const MgIm2col *conv);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_SAMPLES_H
