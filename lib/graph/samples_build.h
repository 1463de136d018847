//===- samples_build.h - Helpers the sample programs are written with ----===//
//
// A Build threads the program and a sticky "ok" flag through the helpers:
// after the first rejected op every helper returns MG_NO_ID and the sample
// returns NULL. Shared by samples.c and samples_stable.c (not exported).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_GRAPH_SAMPLES_BUILD_H
#define MIRAGE_GRAPH_SAMPLES_BUILD_H

#include "mirage/samples.h"

#include <stddef.h>

#define PHI MG_MAP_NONE

typedef struct Build {
  MgProgram *p;
  bool ok;
} Build;

static inline MgTensorId check(Build *b, MgTensorId t) {
  if (t == MG_NO_ID)
    b->ok = false;
  return t;
}

// One builder step: skipped (MG_NO_ID) once an op was rejected, else the
// op `call`, whose rejection clears ok. `call` is evaluated only when ok.
#define BUILD_STEP(b, call) ((b)->ok ? check((b), (call)) : MG_NO_ID)

static inline Build start(void) {
  Build b;
  b.p = mg_program_create();
  b.ok = b.p != NULL && mg_program_add_graph(b.p, MG_LEVEL_KERNEL) == 0;
  return b;
}

static inline MgProgram *finish(Build *b) {
  if (b->ok)
    return b->p;
  mg_program_destroy(b->p);
  return NULL;
}

static inline bool positive(int64_t a, int64_t b, int64_t c, int64_t d) {
  return a > 0 && b > 0 && c > 0 && d > 0;
}

static inline MgTensorId input(Build *b, MgGraphId g, uint32_t rank, int64_t d0,
                        int64_t d1, int64_t d2) {
  int64_t dims[3] = {d0, d1, d2};
  return BUILD_STEP(b,
                    mg_graph_add_input(b->p, g, MG_DTYPE_F16, rank, dims, NULL));
}

static inline MgTensorId matmul(Build *b, MgGraphId g, MgTensorId x, MgTensorId y) {
  return BUILD_STEP(b, mg_graph_matmul(b->p, g, x, y, NULL));
}

static inline MgTensorId binary(Build *b, MgGraphId g, MgOpKind kind, MgTensorId x,
                         MgTensorId y) {
  return BUILD_STEP(b, mg_graph_binary(b->p, g, kind, x, y, NULL));
}

static inline MgTensorId unary(Build *b, MgGraphId g, MgOpKind kind, MgTensorId x) {
  return BUILD_STEP(b, mg_graph_unary(b->p, g, kind, x, NULL));
}

static inline MgTensorId scalar(Build *b, MgGraphId g, MgOpKind kind, MgTensorId x,
                         double s) {
  return BUILD_STEP(b, mg_graph_scalar(b->p, g, kind, x, s, NULL));
}

static inline MgTensorId sum(Build *b, MgGraphId g, MgTensorId x, int32_t dim) {
  return BUILD_STEP(b, mg_graph_sum(b->p, g, x, dim, NULL));
}

// Grid axis x, y, z -> tensor dim (an imap; PHI: none).
typedef int8_t Map3[3];

static inline MgTensorId iter(Build *b, MgGraphId g, MgTensorId x,
                              const Map3 imap, int8_t fmap) {
  return BUILD_STEP(b, mg_graph_iterator(b->p, g, x, imap, fmap, NULL));
}

static inline MgTensorId accum(Build *b, MgGraphId g, MgTensorId x, MgAccumKind k) {
  return BUILD_STEP(b, mg_graph_accum(b->p, g, x, k, NULL));
}

static inline MgTensorId save(Build *b, MgGraphId g, MgTensorId x, int8_t ox,
                       int8_t oy, int8_t oz) {
  int8_t omap[3] = {ox, oy, oz};
  if (!b->ok)
    return MG_NO_ID;
  MgTensorId t = check(b, mg_graph_saver(b->p, g, x, omap, NULL));
  if (b->ok && mg_graph_mark_output(b->p, g, t, NULL) != MG_STATUS_OK)
    b->ok = false;
  return t;
}

static inline void output(Build *b, MgGraphId g, MgTensorId t) {
  if (b->ok && mg_graph_mark_output(b->p, g, t, NULL) != MG_STATUS_OK)
    b->ok = false;
}

static inline MgGraphId block(Build *b, int32_t gx, int32_t gy, int32_t forloop) {
  if (!b->ok)
    return MG_NO_ID;
  MgGraphId g = mg_program_add_graph(b->p, MG_LEVEL_BLOCK);
  int32_t grid[3] = {gx, gy, 1};
  if (g == MG_NO_ID ||
      mg_graph_set_launch(b->p, g, grid, 128, forloop, NULL) != MG_STATUS_OK)
    b->ok = false;
  return g;
}

// Runs block graph `sub` as a kernel op; returns its first output and
// writes all of them to outs (may be NULL).
static inline MgTensorId custom(Build *b, MgGraphId sub, uint32_t n,
                         const MgTensorId *ins, MgTensorId *outs) {
  MgTensorId local[MG_MAX_OP_OUTPUTS];
  if (!outs)
    outs = local;
  if (!b->ok)
    return MG_NO_ID;
  if (mg_graph_custom(b->p, 0, (MgCall){sub, n, ins}, outs, NULL) == MG_NO_ID) {
    b->ok = false;
    return MG_NO_ID;
  }
  return outs[0];
}

// x / sqrt(sum_last(x²) / n) over the last dim (of size n) of a rank-r x.
static inline MgTensorId rmsnorm(Build *b, MgGraphId g, MgTensorId x, uint32_t rank,
                          int64_t n) {
  MgTensorId s = sum(b, g, unary(b, g, MG_OP_SQUARE, x), (int32_t)rank - 1);
  MgTensorId r = unary(b, g, MG_OP_SQRT,
                       scalar(b, g, MG_OP_DIV_SCALAR, s, (double)n));
  return binary(b, g, MG_OP_DIV, x, r);
}

// The sizes of an attention sample: batch bs, query length s, head size d,
// key/value length l.
typedef struct AttentionShape {
  int64_t bs, s, d, l;
} AttentionShape;

// Attention inputs Q(b,s,d), K(b,d,l), V(b,l,d) of graph g, into qkv[3].
static inline void attention_inputs(Build *b, MgGraphId g, AttentionShape sh,
                                    MgTensorId *qkv) {
  qkv[0] = input(b, g, 3, sh.bs, sh.s, sh.d);
  qkv[1] = input(b, g, 3, sh.bs, sh.d, sh.l);
  qkv[2] = input(b, g, 3, sh.bs, sh.l, sh.d);
}

// Attention over kernel inputs Q, K, V: `body` computes it in kernel graph
// 0, on Q and V normalized by their rms over d first with `qknorm`.
typedef MgTensorId (*AttentionBody)(Build *b, MgTensorId q, MgTensorId k,
                                    MgTensorId v);
static inline MgProgram *attention_program(int64_t bs, int64_t s, int64_t d,
                                           int64_t l, AttentionBody body,
                                           bool qknorm) {
  if (!positive(bs, s, d, l))
    return NULL;
  Build b = start();
  MgTensorId qkv[3];
  attention_inputs(&b, 0, (AttentionShape){bs, s, d, l}, qkv);
  MgTensorId q = qkv[0], k = qkv[1], v = qkv[2];
  if (qknorm) { // V's first: the op order these samples always had
    v = rmsnorm(&b, 0, v, 3, d);
    q = rmsnorm(&b, 0, q, 3, d);
  }
  output(&b, 0, body(&b, q, k, v));
  return finish(&b);
}

// A blocked attention sample as its body sees it: the sizes, kernel inputs
// Q, K, V and a first block graph g of grid (blocks, bs) and for-loop
// `forloop` with inputs q, k, v reading them.
typedef struct BlockedAttention {
  int64_t bs, s, d, l;
  int32_t blocks, forloop;
  MgTensorId ins[3];
  MgGraphId g;
  MgTensorId q, k, v;
} BlockedAttention;

// Builds the rest of the program from block graph a->g on, its kernel
// graph output included.
typedef void (*BlockedBody)(Build *b, const BlockedAttention *a);

// The one start of the blocked attention samples (split-KV, FlashAttention
// and their stable forms): NULL for sizes they do not accept (the grid's y
// is bs), else the program `body` completes.
static inline MgProgram *blocked_attention_program(AttentionShape sh,
                                                   int32_t blocks,
                                                   int32_t forloop,
                                                   BlockedBody body) {
  if (!positive(sh.bs, sh.s, sh.d, sh.l) || blocks <= 0 || forloop <= 0 ||
      sh.bs > INT32_MAX)
    return NULL;
  Build b = start();
  BlockedAttention a = {sh.bs, sh.s, sh.d, sh.l, blocks, forloop, {0}, 0,
                        0, 0, 0};
  attention_inputs(&b, 0, sh, a.ins);
  a.g = block(&b, blocks, (int32_t)sh.bs, forloop);
  MgTensorId qkv[3];
  attention_inputs(&b, a.g, sh, qkv);
  a.q = qkv[0];
  a.k = qkv[1];
  a.v = qkv[2];
  body(&b, &a);
  return finish(&b);
}

// The second kernel of a split-KV sample: a block graph of grid (bs, 1)
// looping over the chunks, with inputs the n partials kernel 1 wrote side
// by side (`blocks` chunks of s rows per batch): the first of width d, the
// others of width 1. Returns the graph; the partials go to in[n].
static inline MgGraphId split_kv_merge_block(Build *b,
                                             const BlockedAttention *a,
                                             uint32_t n, MgTensorId *in) {
  int64_t rows = a->blocks * a->s;
  MgGraphId g = block(b, (int32_t)a->bs, 1, a->blocks);
  for (uint32_t i = 0; i < n; ++i)
    in[i] = input(b, g, 3, a->bs, rows, i == 0 ? a->d : 1);
  return g;
}

#endif // MIRAGE_GRAPH_SAMPLES_BUILD_H
