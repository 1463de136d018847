//===- fused.c - A graph-defined kernel that is a GEMV with an epilogue ---===//
//
// Mirage's one-kernel forms of a few-row matmul with a row statistic
// (RMSNorm + matmul: (X·W) / sqrt(mean(X²))) are block graphs whose
// for-loop runs over K: per iteration a tile of A (all the block's rows,
// a slice of K) and a tile of B (that slice of K, the block's columns),
// their matmul into a sum accumulator, A's tile into sum(_sq)_last
// accumulators; after the loop element-wise ops and one saver. The
// generic block-graph path copies both tiles into shared memory per
// iteration and is latency-bound; such a graph is a GEMV over the
// block's columns plus per-row sums of A, so it is lowered by gemv.c's
// split-K form instead: B streams through its cp.async ring, each thread
// also sums the A scalars it loads (or their squares) in f32, the
// slices' statistics meet in shared memory (stat[j][slice][row], stored
// by each slice's first column group), and the thread that adds an
// output's partial sums adds its row's 32 slice statistics in slice order
// and applies the epilogue in f32 registers before the one store.
//
// What matches (else the generic path, unchanged): one matmul of two
// iterators over kernel inputs A (rows x K) and B (K x N), no batch, one
// element type, no layouts; each grid axis of more than one block cuts
// either A's rows (at most 8 per block, a row group) or B's columns (a
// multiple of a 16-byte vector per block, at most 8 vectors), and the
// saver maps it to the same dim of C; with F > 1 both iterators' fmaps
// cut K; the matmul feeds one sum accumulator (or, with F = 1, the
// epilogue directly); the other accumulators sum A's tile (or its
// squares) along K; every other op is element-wise and reads only those
// values and each other. A block's columns are cgv vectors, rounded up to
// cg, a power of two (the warp's shuffle offsets): the lanes of the other
// cg - cgv groups idle.
//
// Several matmuls (the gated MLP's silu(X·W1) * (X·W3)) match when they
// read the same A iterator and each its own B, kernel inputs of one shape
// read through iterators of one mapping, each into its own accumulator
// (or read directly with F = 1). Their column groups sit side by side in
// the block (cgv = nb · cgb, stream b's first): every thread still holds
// one stream's M x V sums, streams its B through the same ring, and the
// thread that stores an output adds each stream's warp sums for it and
// applies the epilogue to all of them.
//
//===----------------------------------------------------------------------===//
#include "decide/gemv_plan.h"

#include <stdio.h>
#include <string.h>

static const MgOp *producer(const MgGraph *b, MgTensorId t) {
  return &b->ops[b->tensors[t].producer];
}

// All dims but the last two are 1.
static bool plain2(const MgTensor *t) {
  if (t->rank < 2)
    return false;
  for (uint32_t d = 0; d + 2 < t->rank; d++)
    if (t->dims[d] != 1)
      return false;
  return true;
}

static bool same_dims(const MgTensor *x, int64_t r, int64_t c) {
  return plain2(x) && x->dims[x->rank - 2] == r && x->dims[x->rank - 1] == c;
}

// The kernel tensor `*k` an iterator of `kop`'s block graph reads: false
// when it is not a kernel input read as stored.
static bool iterator_input(const MgProgram *p, const MgOp *kop,
                           const MgGraph *b, const MgOp *it, MgTensorId *k) {
  if (it->kind != MG_OP_ITERATOR)
    return false;
  const MgOp *in = producer(b, it->inputs[0]);
  if (in->kind != MG_OP_INPUT || in->folded || in->attr < 0 ||
      (uint32_t)in->attr >= kop->num_inputs)
    return false;
  *k = kop->inputs[in->attr];
  const MgGraph *root = &p->graphs[0];
  MgStridedView v;
  return !mg_lower_has_layout(root, *k) && !mg_graph_folded_view(root, *k, &v);
}

static bool known(const Gemv *g, MgTensorId t) {
  for (int j = 0; j < g->nb; j++)
    if (t == g->mm_t[j])
      return true;
  for (int j = 0; j < g->nstats; j++)
    if (t == g->stat_t[j])
      return true;
  for (uint32_t i = 0; i < g->nepi; i++)
    if (t == g->blk->ops[g->epi[i]].outputs[0])
      return true;
  return false;
}

// The grid: per axis of more than one block, A's rows or B's columns,
// mapped to the same dim of C by the saver. Sets rgroups, colblocks.
static bool fused_grid(const MgGraph *b, const MgOp *ia, const MgOp *ib,
                       const MgOp *sv, uint32_t rank, Gemv *g) {
  g->rgroups = g->colblocks = 1;
  bool rows = false, cols = false;
  for (int a = 0; a < 3; a++) {
    if (b->grid[a] == 1)
      continue;
    bool ra = ia->imap[a] == (int8_t)(rank - 2);
    bool cb = ib->imap[a] == (int8_t)(rank - 1);
    if ((ia->imap[a] != MG_MAP_NONE && !ra) ||
        (ib->imap[a] != MG_MAP_NONE && !cb) || ra == cb)
      return false;
    if (ra) {
      if (rows || sv->omap[a] != (int8_t)(rank - 2))
        return false;
      rows = true;
      g->rgroups = b->grid[a];
    } else {
      if (cols || sv->omap[a] != (int8_t)(rank - 1))
        return false;
      cols = true;
      g->colblocks = b->grid[a];
    }
  }
  return true;
}

// The matmul of `mms` (nb of them) whose result `t` is, or -1.
static int matmul_of(const Gemv *g, const MgOp *const *mms, MgTensorId t) {
  for (int j = 0; j < g->nb; j++)
    if (mms[j]->outputs[0] == t)
      return j;
  return -1;
}

// The ops but iterators, the matmuls and the saver: their sum
// accumulators, the statistics, the element-wise epilogue.
static bool fused_ops(const MgGraph *b, const MgOp *const *mms,
                      const MgOp *ia, const MgOp *sv, Gemv *g) {
  uint32_t readers[GEMV_MAX_B] = {0};
  for (int j = 0; j < g->nb; j++)
    g->mm_t[j] = mms[j]->outputs[0];
  for (uint32_t i = 0; i < b->num_ops; i++)
    for (uint32_t k = 0; k < b->ops[i].num_inputs; k++) {
      int j = matmul_of(g, mms, b->ops[i].inputs[k]);
      if (j >= 0)
        readers[j]++;
    }
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    MgOpKind kind = (MgOpKind)op->kind;
    if (kind == MG_OP_INPUT || kind == MG_OP_ITERATOR || op == sv ||
        (kind == MG_OP_MATMUL && matmul_of(g, mms, op->outputs[0]) >= 0))
      continue;
    const MgTensor *out = &b->tensors[op->outputs[0]];
    int j = kind == MG_OP_ACCUM ? matmul_of(g, mms, op->inputs[0]) : -1;
    if (j >= 0) {
      if (op->acc != MG_ACCUM_SUM || readers[j] != 1)
        return false;
      g->mm_t[j] = op->outputs[0];
      continue;
    }
    if (kind == MG_OP_ACCUM) {
      if (op->inputs[0] != ia->outputs[0] || g->nstats == GEMV_MAX_STATS ||
          (op->acc != MG_ACCUM_SUM_LAST && op->acc != MG_ACCUM_SUM_SQ_LAST))
        return false;
      g->stat_sq[g->nstats] = op->acc == MG_ACCUM_SUM_SQ_LAST;
      g->stat_t[g->nstats++] = op->outputs[0];
      continue;
    }
    if (!mg_op_kind_is_elementwise(kind) || g->nepi == GEMV_MAX_EPILOGUE ||
        op->num_outputs != 1 || op->num_inputs > 2 ||
        (!same_dims(out, g->m, g->cgb * g->v) && !same_dims(out, g->m, 1)))
      return false;
    for (uint32_t k = 0; k < op->num_inputs; k++)
      if (!known(g, op->inputs[k]))
        return false; // reads a tile, or a value made later
    g->epi[g->nepi++] = i;
  }
  for (int j = 0; j < g->nb; j++)
    if (b->forloop > 1 && g->mm_t[j] == mms[j]->outputs[0])
      return false; // a per-iteration matmul read after the loop
  g->out_t = sv->inputs[0];
  return known(g, g->out_t) &&
         same_dims(&b->tensors[g->out_t], g->m, g->cgb * g->v);
}

// The block graph's matmuls (at most GEMV_MAX_B) and its one saver.
static bool matmuls_and_saver(const MgGraph *b, const MgOp **mms, int *nb,
                              const MgOp **sv) {
  *nb = 0;
  *sv = NULL;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (op->kind == MG_OP_MATMUL && *nb == GEMV_MAX_B)
      return false;
    if (op->kind == MG_OP_MATMUL)
      mms[(*nb)++] = op;
    if (op->kind == MG_OP_SAVER && *sv)
      return false;
    if (op->kind == MG_OP_SAVER)
      *sv = op;
  }
  return *nb > 0 && *sv && b->num_outputs == 1;
}

// B stream j's iterator reads another kernel input than the streams
// before it, of stream 0's shape and type, through the same mapping and
// tile; and its matmul reads stream 0's A iterator.
static bool same_stream(const MgProgram *p, const MgOp *kop,
                        const MgOp *const *mms, int j, Gemv *g) {
  const MgGraph *root = &p->graphs[0], *b = g->blk;
  const MgOp *i0 = producer(b, mms[0]->inputs[1]);
  const MgOp *ij = producer(b, mms[j]->inputs[1]);
  if (mms[j]->inputs[0] != mms[0]->inputs[0] ||
      !iterator_input(p, kop, b, ij, &g->bs[j]))
    return false;
  for (int i = 0; i < j; i++)
    if (g->bs[i] == g->bs[j])
      return false;
  const MgTensor *t0 = &root->tensors[g->bs[0]], *tj = &root->tensors[g->bs[j]];
  if (tj->rank != t0->rank || tj->dtype != t0->dtype || ij->fmap != i0->fmap)
    return false;
  for (uint32_t d = 0; d < t0->rank; d++)
    if (tj->dims[d] != t0->dims[d])
      return false;
  for (int a = 0; a < 3; a++)
    if (ij->imap[a] != i0->imap[a])
      return false;
  const MgTensor *x0 = &b->tensors[i0->outputs[0]];
  const MgTensor *xj = &b->tensors[ij->outputs[0]];
  return xj->rank == x0->rank &&
         !memcmp(xj->dims, x0->dims, x0->rank * sizeof x0->dims[0]);
}

bool mg_lower_fused_shape(const MgProgram *p, const MgOp *kop, Gemv *g) {
  memset(g, 0, sizeof *g);
  if (kop->kind != MG_OP_CUSTOM || kop->attr < 1 ||
      (uint32_t)kop->attr >= p->num_graphs || kop->num_outputs != 1)
    return false;
  const MgGraph *root = &p->graphs[0], *b = &p->graphs[kop->attr];
  const MgOp *mms[GEMV_MAX_B], *sv;
  if (b->forloop_sym) // the generic body masks the loop's last rows
    return false;
  g->blk = b;
  if (!matmuls_and_saver(b, mms, &g->nb, &sv))
    return false;
  const MgOp *ia = producer(b, mms[0]->inputs[0]);
  const MgOp *ib = producer(b, mms[0]->inputs[1]);
  MgTensorId ka;
  if (!iterator_input(p, kop, b, ia, &ka) ||
      !iterator_input(p, kop, b, ib, &g->bs[0]))
    return false;
  for (int j = 1; j < g->nb; j++)
    if (!same_stream(p, kop, mms, j, g))
      return false;
  const MgTensor *ta = &root->tensors[ka], *tb = &root->tensors[g->bs[0]];
  const MgTensor *tc = &root->tensors[kop->outputs[0]];
  uint32_t rk = ta->rank;
  if (!plain2(ta) || !plain2(tb) || tb->rank != rk || tc->rank != rk ||
      ta->dtype != tb->dtype)
    return false;
  g->fused = true;
  g->rows = ta->dims[rk - 2];
  g->k = ta->dims[rk - 1];
  g->n = tb->dims[rk - 1];
  g->dt = (MgDType)ta->dtype;
  g->v = MG_LOWER_VECTOR_BYTES / (int64_t)mg_dtype_bytes(g->dt);
  g->a = ka;
  g->b = g->bs[0];
  g->c = kop->outputs[0];
  if (tb->dims[rk - 2] != g->k || !same_dims(tc, g->rows, g->n) ||
      !fused_grid(b, ia, ib, sv, rk, g) || g->rows % g->rgroups ||
      g->n % g->colblocks)
    return false;
  if (b->forloop > 1 && (ia->fmap != (int8_t)(rk - 1) ||
                         ib->fmap != (int8_t)(rk - 2)))
    return false;
  g->m = g->rows / g->rgroups;
  int64_t width = g->n / g->colblocks;
  if (width % g->v)
    return false;
  g->cgb = width / g->v;
  g->cgv = g->nb * g->cgb;
  for (g->cg = 1; g->cg < g->cgv; g->cg *= 2)
    ;
  g->blocks = g->rgroups * g->colblocks;
  int64_t kt = g->k / b->forloop;
  const MgTensor *at = &b->tensors[ia->outputs[0]];
  const MgTensor *bt = &b->tensors[ib->outputs[0]];
  return g->cg <= 8 && g->m <= GEMV_MAX_ROWS && same_dims(at, g->m, kt) &&
         same_dims(bt, kt, width) && fused_ops(b, mms, ia, sv, g);
}

int64_t mg_lower_fused_stat_bytes(const Gemv *g) {
  int64_t bytes = g->nstats * GEMV_SLICES * g->m * 4;
  return (bytes + 15) / 16 * 16;
}

void mg_lower_fused_stat_type(const Gemv *g, bool gpu, char *out,
                              size_t size) {
  snprintf(out, size, "memref<%dx%dx%lldxf32%s%s>", g->nstats, GEMV_SLICES,
           (long long)g->m, gpu ? ", " : "", gpu ? MG_LOWER_WORKGROUP : "");
}
