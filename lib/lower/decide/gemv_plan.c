//===- gemv_plan.c - The split-K GEMV's shape, ring and buffers -----------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "decide/gemv_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEMV_MIN_GROUP_ROWS 4  // row groups smaller than this: not a GEMV
#define GEMV_MAX_TOTAL_ROWS 32
#define GEMV_MIN_BLOCKS 128
// The ring: per block, at most GEMV_RING_BYTES (32 KiB: a block alone
// keeps about Little's law's worth of DRAM bytes in flight on H100/A100,
// two resident blocks twice that) in GEMV_STAGES stages where 2 rows per
// thread and stage still fit, else fewer stages (at least 2).
#define GEMV_RING_BYTES 32768
#define GEMV_STAGES 4

static int64_t ring_bytes(const Gemv *g) {
  return g->stages * g->unroll * SLICES * g->cg * MG_LOWER_VECTOR_BYTES;
}

// The ring's stages and rows per stage within `left` bytes of static
// shared memory: GEMV_STAGES stages of fewer rows rather than fewer
// stages of more, down to 2 rows; no ring (stages 0) when no whole group
// of rows exists or 2 stages of 1 row do not fit.
static void choose_ring(Gemv *g, int64_t left) {
  int64_t row = SLICES * g->cg * MG_LOWER_VECTOR_BYTES; // one row a thread
  int64_t budget = left < GEMV_RING_BYTES ? left : GEMV_RING_BYTES;
  g->stages = 0;
  for (int64_t s = GEMV_STAGES; s >= 2 && !g->stages; s--)
    for (int64_t u = g->unroll; u >= (s > 2 ? 2 : 1) && !g->stages; u /= 2)
      if (s * u * row <= budget && g->k >= SLICES * u) {
        g->stages = s;
        g->unroll = u;
      }
}

// A fused kernel's ring and unroll, as the GEMV's (below); its
// statistics buffer beside the partial sums.
static bool fused_shape(const MgProgram *p, const MgOp *op, Gemv *g) {
  if (!mg_lower_fused_shape(p, op, g))
    return false;
  g->unroll = g->m <= 2 ? GEMV_MAX_UNROLL : 4;
  int64_t part = g->cg * g->m * g->cg * g->v * 4;
  int64_t stat = mg_lower_fused_stat_bytes(g);
  choose_ring(g, MG_LOWER_STATIC_SMEM - part - stat);
  return g->m >= 1 && g->m <= GEMV_MAX_ROWS && g->k >= SLICES &&
         g->blocks <= 65535 &&
         part + stat + ring_bytes(g) <= MG_LOWER_STATIC_SMEM;
}

// All dims but the last two are 1 (no batch), A and B of one type.
bool mg_lower_gemv_shape(const MgProgram *p, const MgOp *op, Gemv *g) {
  const MgGraph *r = &p->graphs[0];
  if (op->kind == MG_OP_CUSTOM)
    return fused_shape(p, op, g);
  if (op->kind != MG_OP_MATMUL)
    return false;
  const MgTensor *a = &r->tensors[op->inputs[0]], *b = &r->tensors[op->inputs[1]];
  const MgTensor *c = &r->tensors[op->outputs[0]];
  memset(g, 0, sizeof *g);
  if (a->rank < 2 || b->rank < 2 || a->dtype != b->dtype ||
      mg_lower_has_layout(r, op->inputs[0]))
    return false; // its vector loads need rows stored as read
  if (mg_lower_has_layout(r, op->inputs[1]))
    return mg_gemv_dot_shape(r, op, g);
  for (const MgTensor *t = a; t; t = t == a ? b : t == b ? c : NULL)
    for (uint32_t d = 0; d + 2 < t->rank; d++)
      if (t->dims[d] != 1)
        return false;
  g->rows = a->dims[a->rank - 2];
  g->m = g->rows < GEMV_MAX_ROWS ? g->rows : GEMV_MAX_ROWS;
  while (g->m > 1 && g->rows % g->m)
    g->m--;
  g->rgroups = g->m ? g->rows / g->m : 0;
  g->k = a->dims[a->rank - 1];
  g->n = b->dims[b->rank - 1];
  g->dt = (MgDType)a->dtype;
  g->v = MG_LOWER_VECTOR_BYTES / (int64_t)mg_dtype_bytes(g->dt);
  g->a = op->inputs[0];
  g->b = op->inputs[1];
  g->c = op->outputs[0];
  int64_t groups = g->n / g->v;
  for (g->cg = 8;; g->cg /= 2) {
    g->colblocks = (groups + g->cg - 1) / g->cg;
    g->blocks = g->colblocks * g->rgroups;
    if (g->cg == 2 || g->blocks >= GEMV_MIN_BLOCKS)
      break;
  }
  g->cgv = g->cgb = g->cg;
  g->nb = 1;
  g->bs[0] = g->b;
  // The accumulators (M x V f32) and the vectors read back share registers.
  g->unroll = g->m <= 2 ? GEMV_MAX_UNROLL : 4;
  int64_t part = g->cg * g->m * g->cg * g->v * 4;
  choose_ring(g, MG_LOWER_STATIC_SMEM - part);
  return g->rows >= 1 && g->rows <= GEMV_MAX_TOTAL_ROWS &&
         (g->rgroups == 1 || g->m >= GEMV_MIN_GROUP_ROWS) && g->k >= SLICES &&
         g->n % g->v == 0 && g->blocks <= 65535 &&
         part + ring_bytes(g) <= MG_LOWER_STATIC_SMEM;
}

bool mg_lower_is_gemv(const MgProgram *p, MgOpId op, int64_t *blocks,
                      int64_t *threads) {
  Gemv g;
  if (!mg_lower_gemv_shape(p, &p->graphs[0].ops[op], &g))
    return false;
  *blocks = g.blocks;
  *threads = SLICES * g.cg;
  return true;
}

int64_t mg_lower_gemv_unroll(const MgProgram *p, MgOpId op) {
  Gemv g;
  return mg_lower_gemv_shape(p, &p->graphs[0].ops[op], &g) ? g.unroll : 0;
}

int64_t mg_lower_gemv_rows(const MgProgram *p, MgOpId op) {
  Gemv g;
  return mg_lower_gemv_shape(p, &p->graphs[0].ops[op], &g) ? g.m : 0;
}

int64_t mg_lower_gemv_dot_cols(const MgProgram *p, MgOpId op,
                               int64_t *chunks, int64_t *acc_lanes) {
  Gemv g;
  if (!mg_lower_gemv_shape(p, &p->graphs[0].ops[op], &g) || !g.dot)
    return 0;
  *chunks = g.k / g.chunk;
  *acc_lanes = g.accw;
  return g.cols;
}

// The warps' partial sums, f32 [warp][row][column of the block]: in
// workgroup memory on the GPU.
void mg_lower_gemv_partials_type(const Gemv *g, bool gpu, char *out, size_t size) {
  snprintf(out, size, "memref<%lldx%lldx%lldxf32%s%s>", (long long)g->cg,
           (long long)g->m,
           (long long)(g->cg * g->v), gpu ? ", " : "",
           gpu ? MG_LOWER_WORKGROUP : "");
}

int64_t mg_lower_gemv_smem(const MgProgram *p, MgOpId op, char *type,
                           size_t size) {
  Gemv g;
  if (!mg_lower_gemv_shape(p, &p->graphs[0].ops[op], &g))
    return 0;
  if (g.dot) {
    mg_gemv_dot_smem_type(&g, true, type, size);
    return g.m * g.chunk * (int64_t)mg_dtype_bytes(g.dt);
  }
  mg_lower_gemv_partials_type(&g, true, type, size);
  return g.cg * g.m * g.cg * g.v * 4;
}

int64_t mg_lower_gemv_ring(const MgProgram *p, MgOpId op, int64_t *stages,
                           char *type, size_t size) {
  Gemv g;
  if (!mg_lower_gemv_shape(p, &p->graphs[0].ops[op], &g) || !g.stages)
    return 0;
  *stages = g.stages;
  mg_gemv_ring_type(&g, true, type, size);
  return ring_bytes(&g);
}

int64_t mg_lower_gemv_stats(const MgProgram *p, MgOpId op, char *type,
                            size_t size) {
  Gemv g;
  if (!mg_lower_gemv_shape(p, &p->graphs[0].ops[op], &g) || !g.nstats)
    return 0;
  mg_lower_fused_stat_type(&g, true, type, size);
  return mg_lower_fused_stat_bytes(&g);
}

void mg_lower_gemv_fill_plan(const MgProgram *p, MgOpId op,
                             MgLowerKernelPlan *plan) {
  Gemv g;
  if (!mg_lower_gemv_shape(p, &p->graphs[0].ops[op], &g))
    return;
  plan->gemv_a = g.a;
  plan->gemv_b = g.b;
  plan->col_groups = g.cgv;
  plan->streams = g.nb > 0 ? g.nb : 1;
  plan->stats = g.nstats;
  plan->num_epilogue = 0;
  for (uint32_t i = 0; i < g.nepi && i < 16; i++)
    plan->epilogue[plan->num_epilogue++] = g.blk->ops[g.epi[i]].kind;
}

// B's view is its stored transpose in the last two dims (an input's
// layout, not a folded view): column n is row n of the stored array.
bool mg_gemv_dot_shape(const MgGraph *r, const MgOp *op, Gemv *g) {
  const MgTensor *a = &r->tensors[op->inputs[0]], *b = &r->tensors[op->inputs[1]];
  const MgTensor *c = &r->tensors[op->outputs[0]];
  int8_t perm[MG_MAX_DIMS];
  MgStridedView view;
  uint32_t rk = b->rank;
  if (mg_graph_folded_view(r, op->inputs[1], &view) ||
      !mg_graph_tensor_perm(r, b, perm) || perm[rk - 2] != (int8_t)(rk - 1) ||
      perm[rk - 1] != (int8_t)(rk - 2))
    return false;
  for (const MgTensor *t = a; t; t = t == a ? b : t == b ? c : NULL)
    for (uint32_t d = 0; d + 2 < t->rank; d++)
      if (t->dims[d] != 1)
        return false;
  g->dot = true;
  g->m = g->rows = a->dims[a->rank - 2];
  g->rgroups = 1;
  g->k = a->dims[a->rank - 1];
  g->n = b->dims[rk - 1];
  g->dt = (MgDType)a->dtype;
  g->v = MG_LOWER_VECTOR_BYTES / (int64_t)mg_dtype_bytes(g->dt);
  g->a = op->inputs[0];
  g->b = op->inputs[1];
  g->c = op->outputs[0];
  // Each A vector read from shared memory serves C columns: as many as
  // the lane's M·C partial sums (accw wide) fit in 64 registers.
  g->cols = g->m <= 8 ? 4 : 2;
  g->accw = g->m * g->cols <= 8 ? 4 : 2;
  if (g->accw > g->v)
    g->accw = (int)g->v;
  g->chunk = 32 * g->v;        // one vector per lane and chunk
  g->cg = DOT_WARPS;           // 32·cg threads, as the split-K form
  g->unroll = 1;
  g->colblocks = g->blocks = g->n / (DOT_WARPS * g->cols);
  return g->m >= 1 && g->m <= DOT_MAX_ROWS && g->k % g->chunk == 0 &&
         g->n % (DOT_WARPS * g->cols) == 0 && g->blocks <= 65535 &&
         g->m * g->chunk * (int64_t)mg_dtype_bytes(g->dt) <=
             MG_LOWER_STATIC_SMEM;
}

void mg_gemv_dot_smem_type(const Gemv *g, bool gpu, char *out, size_t size) {
  snprintf(out, size, "memref<%lldx%lldx%s%s%s>", (long long)g->m,
           (long long)g->chunk, mg_lower_elt(g->dt), gpu ? ", " : "",
           gpu ? MG_LOWER_WORKGROUP : "");
}

void mg_gemv_ring_type(const Gemv *g, bool gpu, char *out, size_t size) {
  snprintf(out, size, "memref<%lldx%lldx%lldx%lldx%s%s%s>",
           (long long)g->stages, (long long)g->unroll,
           (long long)(SLICES * g->cg), (long long)g->v, mg_lower_elt(g->dt),
           gpu ? ", " : "", gpu ? MG_LOWER_WORKGROUP : "");
}
