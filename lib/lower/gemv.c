//===- gemv.c - A kernel-level matmul with few rows as a split-K GEMV -----===//
//
// C = A·B with A M x K (M <= 32 rows, the batch of a decoding step) and B
// K x N is a bandwidth problem: B's K·N elements are read once, and one
// output per thread (the generic predefined kernel) reads B column-wise,
// 2 bytes per thread per load. Here each block owns CG groups of V
// adjacent columns (V: one 16-byte vector of B's row) and its 32·CG
// threads split K: thread t takes column group t mod CG and the rows
// k ≡ t / CG (mod SLICES). It loads UNROLL such rows' 16-byte vectors of B
// (and A's M scalars for each) before it uses any, so that many bytes are
// in flight per thread, then accumulates the M x V products in f32
// registers (FMA) in k order. While whole groups of UNROLL rows remain,
// B's vectors do not go through registers: they stream by cp.async.cg
// (16 bytes, global to shared) into the thread's own slots of a ring of
// STAGES groups in shared memory (ring[stage][u][thread]), one commit
// group per stage. Iteration j issues group j + STAGES - 1, commits, and
// waits (cp.async.wait_group STAGES - 1) for group j, which it reads back
// from its slots: STAGES - 1 groups stay in flight while it computes,
// whatever registers ptxas allocates, and no barrier is needed (a thread
// reads only what it copied). Past the last group it commits empty
// groups, so the wait count stays uniform and the tail drains. The SLICES partial sums of each output meet
// in shared memory after one barrier and are added in slice order by the
// thread that stores the output.
//
// CG is 8 (a warp reads 4 rows x 128 contiguous bytes) unless that leaves
// fewer blocks than GEMV_MIN_BLOCKS (about one per SM on A100/H100): then
// 4 or 2, so that a 6144-wide B still fills the GPU.
//
// More than 8 rows go in row groups of RG <= 8 rows (the largest divisor
// of M, at least 4), one block per column block and row group; the row
// group is the block index's fastest digit, so the blocks that read the
// same columns of B run side by side and the later ones find B in L2.
// The M x V accumulators thus stay at most 64 registers.
//
// The CPU form runs the same blocks and threads one after the other (the
// partial sums in a buffer), so the JIT checks the split and the order.
//
//===----------------------------------------------------------------------===//
#include "gemv.h"

#include <stdio.h>
#include <string.h>

#define SLICES GEMV_SLICES
#define GEMV_MIN_GROUP_ROWS 4  // row groups smaller than this: not a GEMV
#define GEMV_MAX_TOTAL_ROWS 32
#define GEMV_MIN_BLOCKS 128
#define GEMV_MAX_UNROLL 8
#define GEMV_MAX_ACCS (GEMV_MAX_ROWS * (1 + GEMV_MAX_STATS))
// The ring: per block, at most GEMV_RING_BYTES (32 KiB: a block alone
// keeps about Little's law's worth of DRAM bytes in flight on H100/A100,
// two resident blocks twice that) in GEMV_STAGES stages where 2 rows per
// thread and stage still fit, else fewer stages (at least 2).
#define GEMV_RING_BYTES 32768
#define GEMV_STAGES 4

static bool dot_shape(const MgGraph *r, const MgOp *op, Gemv *g);

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
static bool gemv_shape(const MgProgram *p, const MgOp *op, Gemv *g) {
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
    return dot_shape(r, op, g);
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
  g->cgv = g->cg;
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
  if (!gemv_shape(p, &p->graphs[0].ops[op], &g))
    return false;
  *blocks = g.blocks;
  *threads = SLICES * g.cg;
  return true;
}

int64_t mg_lower_gemv_unroll(const MgProgram *p, MgOpId op) {
  Gemv g;
  return gemv_shape(p, &p->graphs[0].ops[op], &g) ? g.unroll : 0;
}

int64_t mg_lower_gemv_rows(const MgProgram *p, MgOpId op) {
  Gemv g;
  return gemv_shape(p, &p->graphs[0].ops[op], &g) ? g.m : 0;
}

int64_t mg_lower_gemv_dot_cols(const MgProgram *p, MgOpId op,
                               int64_t *chunks, int64_t *acc_lanes) {
  Gemv g;
  if (!gemv_shape(p, &p->graphs[0].ops[op], &g) || !g.dot)
    return 0;
  *chunks = g.k / g.chunk;
  *acc_lanes = g.accw;
  return g.cols;
}

// Block `bid`'s column block and first row (its row group's): with one
// row group the block index itself and no row offset (has_row0 false).
typedef struct BlockAt {
  Name colblock, row0;
  bool has_row0;
} BlockAt;

static void block_at(Emit *e, const Gemv *g, const char *bid, BlockAt *b) {
  b->has_row0 = g->rgroups > 1;
  if (!b->has_row0) {
    snprintf(b->colblock, NAME_LEN, "%s", bid);
    return;
  }
  Name rgs, rg, mm;
  mg_lower_index(e, g->rgroups, rgs);
  mg_lower_index_op(e, "arith.divui", bid, rgs, b->colblock);
  mg_lower_index_op(e, "arith.remui", bid, rgs, rg);
  mg_lower_index(e, g->m, mm);
  mg_lower_index_op(e, "arith.muli", rg, mm, b->row0);
}

// Row `m` of the block's row group, as an index of A or C.
static void row_at(Emit *e, const BlockAt *b, int64_t m, Name out) {
  if (!b->has_row0) {
    mg_lower_index(e, m, out);
    return;
  }
  Name mi;
  mg_lower_index(e, m, mi);
  mg_lower_index_op(e, "arith.addi", b->row0, mi, out);
}

// "%r, %c" etc.: A and B may carry leading unit dims.
static void at2(const MgTensor *t, const char *row, const char *col,
                const char *zero, char *out, size_t size) {
  size_t n = 0;
  out[0] = '\0';
  for (uint32_t d = 0; d + 2 < t->rank; d++)
    n += (size_t)snprintf(out + n, size - n, "%s, ", zero);
  snprintf(out + n, size - n, "%s, %s", row, col);
}

// "a, b, c": the first `n` of `names` (the M accumulators' yields).
static void join_names(Name *names, int64_t n, char *out, size_t size) {
  size_t k = 0;
  out[0] = '\0';
  for (int64_t i = 0; i < n && k < size; i++)
    k += (size_t)snprintf(out + k, size - k, "%s%s", i ? ", " : "", names[i]);
}

// The ring of B's vectors (gemv.c's header): on the GPU a workgroup
// attribution, in the CPU form a buffer of the same shape; `slot` names
// the stage read back (NULL: B's vectors are loaded from global memory).
typedef struct Ring {
  Name buf, tid, slot;
  char type[TYPE_LEN];
} Ring;

static void ring_type(const Gemv *g, bool gpu, char *out, size_t size) {
  snprintf(out, size, "memref<%lldx%lldx%lldx%lldx%s%s%s>",
           (long long)g->stages, (long long)g->unroll,
           (long long)(SLICES * g->cg), (long long)g->v, mg_lower_elt(g->dt),
           gpu ? ", " : "", gpu ? MG_LOWER_WORKGROUP : "");
}

// One FMA step of thread's k loop for the rows `ks[0..n)` of B: every load
// first (B's vectors, from the ring's slot when `ring`, A's scalars), then
// the FMAs in k order. `acc` holds the accumulators' names on entry and
// their new names on exit (mg_gemv_accs: the M vectors, then the fused
// form's statistics of A's scalars, summed in the same k order).
static void fma_rows(Emit *e, const Gemv *g, const BlockAt *blk, Name *ks,
                     int64_t n, const char *col, const char *c0,
                     const Ring *ring, Name *acc) {
  const MgGraph *r = &e->p->graphs[0];
  const MgTensor *bt = &r->tensors[g->b], *atn = &r->tensors[g->a];
  char vf[32], vn[32], at[MG_MAX_DIMS * (NAME_LEN + 2)];
  snprintf(vf, sizeof vf, "vector<%lldxf32>", (long long)g->v);
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  Name braw[GEMV_MAX_UNROLL], araw[GEMV_MAX_UNROLL][GEMV_MAX_ROWS];
  for (int64_t u = 0; u < n; u++) {
    mg_lower_fresh(e, braw[u]);
    if (ring) {
      Name ui;
      mg_lower_index(e, u, ui);
      mg_lower_line(e, "%s = vector.load %s[%s, %s, %s, %s] : %s, %s",
                    braw[u], ring->buf, ring->slot, ui, ring->tid, c0,
                    ring->type, vn);
    } else {
      at2(bt, ks[u], col, c0, at, sizeof at);
      mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", braw[u],
                    e->val[g->b], at, e->type[g->b], vn);
    }
    for (int64_t m = 0; m < g->m; m++) {
      Name row;
      row_at(e, blk, m, row);
      at2(atn, row, ks[u], c0, at, sizeof at);
      mg_lower_fresh(e, araw[u][m]);
      mg_lower_line(e, "%s = memref.load %s[%s] : %s", araw[u][m],
                    e->val[g->a], at, e->type[g->a]);
    }
  }
  bool wide = g->dt == MG_DTYPE_F32;
  for (int64_t u = 0; u < n; u++) {
    Name bv;
    memcpy(bv, braw[u], sizeof bv);
    if (!wide) {
      mg_lower_fresh(e, bv);
      mg_lower_line(e, "%s = arith.extf %s : %s to %s", bv, braw[u], vn, vf);
    }
    for (int64_t m = 0; m < g->m; m++) {
      Name a32, splat, next;
      memcpy(a32, araw[u][m], sizeof a32);
      if (!wide) {
        mg_lower_fresh(e, a32);
        mg_lower_line(e, "%s = arith.extf %s : %s to f32", a32, araw[u][m],
                      mg_lower_elt(g->dt));
      }
      mg_lower_fresh(e, splat);
      mg_lower_line(e, "%s = vector.broadcast %s : f32 to %s", splat, a32, vf);
      mg_lower_fresh(e, next);
      mg_lower_line(e, "%s = vector.fma %s, %s, %s : %s", next, splat, bv,
                    acc[m], vf);
      memcpy(acc[m], next, sizeof next);
      for (int j = 0; j < g->nstats; j++) {
        Name *s = &acc[g->m * (1 + j) + m];
        mg_lower_fresh(e, next);
        if (g->stat_sq[j])
          mg_lower_line(e, "%s = math.fma %s, %s, %s : f32", next, a32, a32,
                        *s);
        else
          mg_lower_line(e, "%s = arith.addf %s, %s : f32", next, *s, a32);
        memcpy(*s, next, sizeof next);
      }
    }
  }
}

// The type of accumulator `i` (mg_gemv_accs): a vector of V sums, or f32.
static void acc_type(const Gemv *g, int64_t i, char *out, size_t size) {
  if (i < g->m)
    snprintf(out, size, "vector<%lldxf32>", (long long)g->v);
  else
    snprintf(out, size, "f32");
}

// Opens scf.for `iv` = `from` to `hi` step `st` carrying the M
// accumulators `acc` as `arg` (of `types`); acc_for_close yields `arg` and
// points `acc` at the loop's results.
typedef struct AccFor {
  Name res, iv, arg[GEMV_MAX_ACCS];
  char types[GEMV_MAX_ACCS * 24];
} AccFor;

static void acc_for_open(Emit *e, const Gemv *g, const char *from,
                         const char *hi, const char *st, Name *acc,
                         AccFor *f) {
  char vf[32], iters[GEMV_MAX_ACCS * 40] = "";
  mg_lower_fresh(e, f->res);
  mg_lower_fresh(e, f->iv);
  size_t ni = 0, nt = 0;
  f->types[0] = '\0';
  for (int64_t m = 0; m < mg_gemv_accs(g); m++) {
    acc_type(g, m, vf, sizeof vf);
    mg_lower_fresh(e, f->arg[m]);
    ni += (size_t)snprintf(iters + ni, sizeof iters - ni, "%s%s = %s",
                           m ? ", " : "", f->arg[m], acc[m]);
    nt += (size_t)snprintf(f->types + nt, sizeof f->types - nt, "%s%s",
                           m ? ", " : "", vf);
  }
  mg_lower_line(e, "%s:%lld = scf.for %s = %s to %s step %s iter_args(%s) -> "
                   "(%s) {", f->res, (long long)mg_gemv_accs(g), f->iv, from,
                hi, st,
                iters, f->types);
  e->indent++;
}

static void acc_for_close(Emit *e, const Gemv *g, AccFor *f, Name *acc) {
  char yields[GEMV_MAX_ACCS * 16];
  join_names(f->arg, mg_gemv_accs(g), yields, sizeof yields);
  mg_lower_line(e, "scf.yield %s : %s", yields, f->types);
  e->indent--;
  mg_lower_line(e, "}");
  // "%res#m": the loop's names are short ("%v123"), far below NAME_LEN.
  for (int64_t m = 0; m < mg_gemv_accs(g); m++) {
    int n = snprintf(acc[m], NAME_LEN, "%.12s#%d", f->res, (int)m);
    if (n < 0 || n >= NAME_LEN)
      e->error = "a GEMV accumulator name too long";
  }
}

// `ks[u]` = `k` + u·SLICES for u < `unroll`: a step's rows.
static void step_rows(Emit *e, const char *k, int64_t unroll, Name *ks) {
  snprintf(ks[0], NAME_LEN, "%s", k);
  for (int64_t u = 1; u < unroll; u++) {
    Name off;
    mg_lower_index(e, u * SLICES, off);
    mg_lower_index_op(e, "arith.addi", k, off, ks[u]);
  }
}

// scf.for `k` = `from` to `to` step `step` over the M accumulators `acc`
// (replaced by the loop's results); `unroll` rows per iteration, SLICES
// apart, loaded from global memory.
static void k_loop(Emit *e, const Gemv *g, const BlockAt *blk,
                   const char *from, int64_t to, int64_t step,
                   int64_t unroll, const char *col, const char *c0,
                   Name *acc) {
  Name hi, st, ks[GEMV_MAX_UNROLL];
  mg_lower_index(e, to, hi);
  mg_lower_index(e, step, st);
  AccFor f;
  acc_for_open(e, g, from, hi, st, acc, &f);
  step_rows(e, f.iv, unroll, ks);
  fma_rows(e, g, blk, ks, unroll, col, c0, NULL, f.arg);
  acc_for_close(e, g, &f, acc);
}

// Group `j` (an index) of the thread's rows into its slots of ring stage
// j mod STAGES: cp.async.cg of 16 bytes each on the GPU, a vector copy in
// the CPU form.
static void ring_issue(Emit *e, const Gemv *g, const Ring *ring,
                       const char *slice, const char *j, const char *col,
                       const char *c0) {
  const MgTensor *bt = &e->p->graphs[0].tensors[g->b];
  Name grp, base, k0, ns, slot, ks[GEMV_MAX_UNROLL];
  mg_lower_index(e, SLICES * g->unroll, grp);
  mg_lower_index_op(e, "arith.muli", j, grp, base);
  mg_lower_index_op(e, "arith.addi", slice, base, k0);
  mg_lower_index(e, g->stages, ns);
  mg_lower_index_op(e, "arith.remui", j, ns, slot);
  step_rows(e, k0, g->unroll, ks);
  char vn[32], at[MG_MAX_DIMS * (NAME_LEN + 2)];
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  for (int64_t u = 0; u < g->unroll; u++) {
    Name ui, x;
    mg_lower_index(e, u, ui);
    at2(bt, ks[u], col, c0, at, sizeof at);
    mg_lower_fresh(e, x);
    if (e->mode == MG_LOWER_CPU) {
      mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", x, e->val[g->b],
                    at, e->type[g->b], vn);
      mg_lower_line(e, "vector.store %s, %s[%s, %s, %s, %s] : %s, %s", x,
                    ring->buf, slot, ui, ring->tid, c0, ring->type, vn);
    } else {
      mg_lower_line(e, "%s = nvgpu.device_async_copy %s[%s], %s[%s, %s, %s, "
                       "%s], %lld {bypassL1} : %s to %s", x, e->val[g->b], at,
                    ring->buf, slot, ui, ring->tid, c0, (long long)g->v,
                    e->type[g->b], ring->type);
    }
  }
}

static void ring_commit(Emit *e) {
  if (e->mode != MG_LOWER_CPU)
    mg_lower_line(e, "nvvm.cp.async.commit.group");
}

// The whole groups of rows (`groups` of them) through the ring (gemv.c's
// header): the prologue issues groups 0 .. STAGES - 2, iteration j issues
// group j + STAGES - 1 if it exists, commits (an empty group past the
// last), waits until at most STAGES - 1 groups are pending (its own is
// done) and computes on stage j mod STAGES.
static void ring_loop(Emit *e, const Gemv *g, const BlockAt *blk,
                      const char *slice, const char *col, Ring *ring,
                      int64_t groups, const char *c0, Name *acc) {
  for (int64_t j = 0; j + 1 < g->stages; j++) {
    if (j < groups) {
      Name ji;
      mg_lower_index(e, j, ji);
      ring_issue(e, g, ring, slice, ji, col, c0);
    }
    ring_commit(e);
  }
  Name lo, hi, one, ahead, next, more, ns, grp, base, k, ks[GEMV_MAX_UNROLL];
  mg_lower_index(e, 0, lo);
  mg_lower_index(e, groups, hi);
  mg_lower_index(e, 1, one);
  AccFor f;
  acc_for_open(e, g, lo, hi, one, acc, &f);
  mg_lower_index(e, g->stages - 1, ahead);
  mg_lower_index_op(e, "arith.addi", f.iv, ahead, next);
  mg_lower_index_op(e, "arith.cmpi ult,", next, hi, more);
  mg_lower_line(e, "scf.if %s {", more);
  e->indent++;
  ring_issue(e, g, ring, slice, next, col, c0);
  e->indent--;
  mg_lower_line(e, "}");
  ring_commit(e);
  if (e->mode != MG_LOWER_CPU)
    mg_lower_line(e, "nvvm.cp.async.wait.group %lld",
                  (long long)(g->stages - 1));
  mg_lower_index(e, g->stages, ns);
  mg_lower_index_op(e, "arith.remui", f.iv, ns, ring->slot);
  mg_lower_index(e, SLICES * g->unroll, grp);
  mg_lower_index_op(e, "arith.muli", f.iv, grp, base);
  mg_lower_index_op(e, "arith.addi", slice, base, k);
  step_rows(e, k, g->unroll, ks);
  fma_rows(e, g, blk, ks, g->unroll, col, c0, ring, f.arg);
  acc_for_close(e, g, &f, acc);
}

// Where thread `tid` of block `bid` works: its column group, K slice,
// first column, and whether the column group exists (the last block may
// have fewer).
typedef struct Lane {
  Name cg, slice, col, valid, vw;
  BlockAt blk;
} Lane;

static void lane_of(Emit *e, const Gemv *g, const char *bid, const char *tid,
                    Lane *l) {
  Name cgs, gbase, gidx, groups;
  mg_lower_index(e, g->cg, cgs);
  mg_lower_index_op(e, "arith.remui", tid, cgs, l->cg);
  mg_lower_index_op(e, "arith.divui", tid, cgs, l->slice);
  block_at(e, g, bid, &l->blk);
  if (g->cgv < g->cg) { // a block's cgv groups; lanes of the others idle
    Name cgv;
    mg_lower_index(e, g->cgv, cgv);
    mg_lower_index_op(e, "arith.muli", l->blk.colblock, cgv, gbase);
    mg_lower_index_op(e, "arith.addi", gbase, l->cg, gidx);
    mg_lower_index(e, g->v, l->vw);
    mg_lower_index_op(e, "arith.muli", gidx, l->vw, l->col);
    mg_lower_index_op(e, "arith.cmpi ult,", l->cg, cgv, l->valid);
    return;
  }
  mg_lower_index_op(e, "arith.muli", l->blk.colblock, cgs, gbase);
  mg_lower_index_op(e, "arith.addi", gbase, l->cg, gidx);
  mg_lower_index(e, g->v, l->vw);
  mg_lower_index_op(e, "arith.muli", gidx, l->vw, l->col);
  mg_lower_index(e, g->n / g->v, groups);
  mg_lower_index_op(e, "arith.cmpi ult,", gidx, groups, l->valid);
}

// Phase 1: the thread's M partial-sum vectors into `acc`. The rows k =
// slice, slice + SLICES, ... are taken UNROLL at a time while a whole group
// remains, then one at a time: the same k order either way. A thread past
// the last column group yields zeros (on the GPU it still shuffles).
static void partials(Emit *e, const Gemv *g, const Lane *l, Ring *ring,
                     Name *acc) {
  char vf[32], types[GEMV_MAX_ACCS * 24] = "", zeros[GEMV_MAX_ACCS * 16] = "";
  snprintf(vf, sizeof vf, "vector<%lldxf32>", (long long)g->v);
  Name zero, fzero = "", c0, res;
  mg_lower_fresh(e, zero);
  mg_lower_line(e, "%s = arith.constant dense<0.0> : %s", zero, vf);
  if (g->nstats) {
    mg_lower_fresh(e, fzero);
    mg_lower_line(e, "%s = arith.constant 0.0 : f32", fzero);
  }
  mg_lower_index(e, 0, c0);
  size_t nt = 0, nz = 0;
  int64_t n = mg_gemv_accs(g);
  for (int64_t m = 0; m < n; m++) {
    const char *z = m < g->m ? zero : fzero;
    acc_type(g, m, vf, sizeof vf);
    nt += (size_t)snprintf(types + nt, sizeof types - nt, "%s%s",
                           m ? ", " : "", vf);
    nz += (size_t)snprintf(zeros + nz, sizeof zeros - nz, "%s%s",
                           m ? ", " : "", z);
    snprintf(acc[m], NAME_LEN, "%s", z);
  }
  mg_lower_fresh(e, res);
  mg_lower_line(e, "%s:%lld = scf.if %s -> (%s) {", res, (long long)n,
                l->valid, types);
  e->indent++;
  int64_t group = SLICES * g->unroll, whole = g->k / group * group;
  if (whole > 0 && g->stages)
    ring_loop(e, g, &l->blk, l->slice, l->col, ring, whole / group, c0, acc);
  else if (whole > 0)
    k_loop(e, g, &l->blk, l->slice, whole, group, g->unroll, l->col, c0,
           acc);
  if (whole < g->k) {
    Name from, w;
    mg_lower_index(e, whole, w);
    mg_lower_index_op(e, "arith.addi", l->slice, w, from);
    k_loop(e, g, &l->blk, from, g->k, SLICES, 1, l->col, c0, acc);
  }
  char yields[GEMV_MAX_ACCS * 16];
  join_names(acc, n, yields, sizeof yields);
  mg_lower_line(e, "scf.yield %s : %s", yields, types);
  e->indent--;
  mg_lower_line(e, "} else {");
  mg_lower_line(e, "  scf.yield %s : %s", zeros, types);
  mg_lower_line(e, "}");
  for (int64_t m = 0; m < n; m++)
    snprintf(acc[m], NAME_LEN, "%.12s#%d", res, (int)m);
}

// Phase 1's end: the warp's slices of each column group meet by shuffles,
// lane offsets 16, 8, .., CG (lanes l and l ^ o, o a multiple of CG, share
// a column group). While a lane holds an even number of values it keeps
// half, sends its partner the other half and adds the partner's half to
// its own (recursive halving: every shuffle moves a value still needed);
// then it adds all its partner's values to its own (a butterfly), and
// only the lane with the offset's bit clear stores. Either way each add
// is own + partner's, which commutes exactly, so both lanes of a pair
// agree. The storing lanes put their values in part[warp][row][column].
//
// The CPU form runs this very code with the block's threads as a loop
// (one per segment between two exchanges), the lanes' values in buffers,
// and a shuffle as a store into an exchange buffer that the partner reads
// in the next segment: `mirage-run --lower` checks the GPU's selects,
// positions and order, not a model of them.
enum { MAX_VALUES = GEMV_MAX_ROWS * 8 };

typedef struct Warp {
  const Gemv *g;
  bool cpu;
  int64_t n;  // values per lane
  Name tid;   // the thread: gpu.thread_id, or the CPU form's loop variable
  Name val[MAX_VALUES], recv[MAX_VALUES], pos, store; // GPU: SSA values
  Name regs, xchg, posb, flagb; // CPU form: per-thread buffers
  char regs_type[TYPE_LEN];
} Warp;

static void lanes_open(Emit *e, Warp *w) {
  if (!w->cpu)
    return;
  Name c0, c1, nt;
  mg_lower_index(e, 0, c0);
  mg_lower_index(e, 1, c1);
  mg_lower_index(e, SLICES * w->g->cg, nt);
  mg_lower_fresh(e, w->tid);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", w->tid, c0, nt, c1);
  e->indent++;
}

static void lanes_close(Emit *e, const Warp *w) {
  if (!w->cpu)
    return;
  e->indent--;
  mg_lower_line(e, "}");
}

static void reg_get(Emit *e, Warp *w, int64_t i, Name out) {
  if (!w->cpu) {
    memcpy(out, w->val[i], sizeof w->val[i]);
    return;
  }
  Name at;
  mg_lower_index(e, i, at);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.load %s[%s, %s] : %s", out, w->regs, w->tid,
                at, w->regs_type);
}

static void reg_set(Emit *e, Warp *w, int64_t i, const char *v) {
  if (!w->cpu) {
    snprintf(w->val[i], NAME_LEN, "%s", v);
    return;
  }
  Name at;
  mg_lower_index(e, i, at);
  mg_lower_line(e, "memref.store %s, %s[%s, %s] : %s", v, w->regs, w->tid,
                at, w->regs_type);
}

// The lane's position (index) or store flag (i1): `which` 0 or 1.
static void state_get(Emit *e, Warp *w, int which, Name out) {
  if (!w->cpu) {
    memcpy(out, which ? w->store : w->pos, NAME_LEN);
    return;
  }
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.load %s[%s] : memref<%lldx%s>", out,
                which ? w->flagb : w->posb, w->tid,
                (long long)(SLICES * w->g->cg), which ? "i1" : "index");
}

static void state_set(Emit *e, Warp *w, int which, const char *v) {
  if (!w->cpu) {
    snprintf(which ? w->store : w->pos, NAME_LEN, "%s", v);
    return;
  }
  mg_lower_line(e, "memref.store %s, %s[%s] : memref<%lldx%s>", v,
                which ? w->flagb : w->posb, w->tid,
                (long long)(SLICES * w->g->cg), which ? "i1" : "index");
}

// Value `s` to the partner lane tid ^ `o`; what it sent arrives through
// receive (after the segment ends, in the CPU form).
static void send(Emit *e, Warp *w, int64_t i, const char *s, int64_t o) {
  if (w->cpu) {
    Name at;
    mg_lower_index(e, i, at);
    mg_lower_line(e, "memref.store %s, %s[%s, %s] : %s", s, w->xchg, w->tid,
                  at, w->regs_type);
    return;
  }
  Name off, width, ok;
  mg_lower_fresh(e, off);
  mg_lower_line(e, "%s = arith.constant %lld : i32", off, (long long)o);
  mg_lower_fresh(e, width);
  mg_lower_line(e, "%s = arith.constant 32 : i32", width);
  mg_lower_fresh(e, w->recv[i]);
  mg_lower_fresh(e, ok);
  mg_lower_line(e, "%s, %s = gpu.shuffle xor %s, %s, %s : f32", w->recv[i],
                ok, s, off, width);
}

static void receive(Emit *e, Warp *w, int64_t i, int64_t o, Name out) {
  if (!w->cpu) {
    memcpy(out, w->recv[i], sizeof w->recv[i]);
    return;
  }
  Name off, partner, at;
  mg_lower_index(e, o, off);
  mg_lower_index_op(e, "arith.xori", w->tid, off, partner);
  mg_lower_index(e, i, at);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.load %s[%s, %s] : %s", out, w->xchg, partner,
                at, w->regs_type);
}

// Is bit `o` of the thread's lane set?
static void lane_bit(Emit *e, const Warp *w, int64_t o, Name bit) {
  Name off, bits, zero;
  mg_lower_index(e, o, off);
  mg_lower_index_op(e, "arith.andi", w->tid, off, bits);
  mg_lower_index(e, 0, zero);
  mg_lower_index_op(e, "arith.cmpi ne,", bits, zero, bit);
}

// One stage at lane offset `o`.
static void meet_stage(Emit *e, Warp *w, int64_t o) {
  bool halve = w->n % 2 == 0;
  int64_t sends = halve ? w->n / 2 : w->n;
  Name bit;
  lanes_open(e, w);
  lane_bit(e, w, o, bit);
  for (int64_t i = 0; i < sends; i++) {
    Name lo, hi, s, k;
    reg_get(e, w, i, lo);
    if (!halve) {
      send(e, w, i, lo, o);
      continue;
    }
    reg_get(e, w, sends + i, hi); // the partner keeps what it is sent
    mg_lower_fresh(e, s);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : f32", s, bit, lo, hi);
    mg_lower_fresh(e, k);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : f32", k, bit, hi, lo);
    send(e, w, i, s, o);
    reg_set(e, w, i, k);
  }
  lanes_close(e, w);
  lanes_open(e, w);
  lane_bit(e, w, o, bit);
  for (int64_t i = 0; i < sends; i++) {
    Name k, r, sum;
    reg_get(e, w, i, k);
    receive(e, w, i, o, r);
    mg_lower_fresh(e, sum);
    mg_lower_line(e, "%s = arith.addf %s, %s : f32", sum, k, r);
    reg_set(e, w, i, sum);
  }
  Name state, next;
  if (halve) { // the lane with the bit set holds positions pos + n/2 ..
    Name h, zero, shift;
    mg_lower_index(e, sends, h);
    mg_lower_index(e, 0, zero);
    mg_lower_fresh(e, shift);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : index", shift, bit, h,
                  zero);
    state_get(e, w, 0, state);
    mg_lower_index_op(e, "arith.addi", state, shift, next);
    state_set(e, w, 0, next);
  } else { // both lanes hold the sums: the one with the bit clear stores
    Name t, clear;
    mg_lower_fresh(e, t);
    mg_lower_line(e, "%s = arith.constant true", t);
    mg_lower_fresh(e, clear);
    mg_lower_line(e, "%s = arith.xori %s, %s : i1", clear, bit, t);
    state_get(e, w, 1, state);
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s = arith.andi %s, %s : i1", next, state, clear);
    state_set(e, w, 1, next);
  }
  lanes_close(e, w);
  w->n = sends;
}

// Value `i` of the lane at position `pos` (`v`), placed in a grid of rows
// `width` wide: row (pos + i) / width, column `base` + (pos + i) mod width.
static void held_value(Emit *e, Warp *w, int64_t i, const char *pos,
                       const char *width, const char *base, Name v, Name row,
                       Name col) {
  Name ii, at, c;
  reg_get(e, w, i, v);
  mg_lower_index(e, i, ii);
  mg_lower_index_op(e, "arith.addi", pos, ii, at);
  mg_lower_index_op(e, "arith.divui", at, width, row);
  mg_lower_index_op(e, "arith.remui", at, width, c);
  mg_lower_index_op(e, "arith.addi", base, c, col);
}

// The stages, then the storing lanes' values into part[warp][row][column].
static void warp_meet(Emit *e, Warp *w, const char *part,
                      const char *part_type) {
  for (int64_t o = 16; o >= w->g->cg; o /= 2)
    meet_stage(e, w, o);
  lanes_open(e, w);
  Name flag, pos, c32, warp, cgs, cg, vw, base;
  state_get(e, w, 1, flag);
  state_get(e, w, 0, pos);
  mg_lower_index(e, 32, c32);
  mg_lower_index_op(e, "arith.divui", w->tid, c32, warp);
  mg_lower_index(e, w->g->cg, cgs);
  mg_lower_index_op(e, "arith.remui", w->tid, cgs, cg);
  mg_lower_index(e, w->g->v, vw);
  mg_lower_index_op(e, "arith.muli", cg, vw, base);
  mg_lower_line(e, "scf.if %s {", flag);
  e->indent++;
  for (int64_t i = 0; i < w->n; i++) {
    Name v, row, col;
    held_value(e, w, i, pos, vw, base, v, row, col);
    mg_lower_line(e, "memref.store %s, %s[%s, %s, %s] : %s", v, part, warp,
                  row, col, part_type);
  }
  e->indent--;
  mg_lower_line(e, "}");
  lanes_close(e, w);
}

// A lane's starting state from phase 1: its M·V values, position 0, and
// whether it stores (its column group exists).
static void warp_start(Emit *e, Warp *w, const Lane *l, Name *acc) {
  Name zero;
  mg_lower_index(e, 0, zero);
  state_set(e, w, 0, zero);
  state_set(e, w, 1, l->valid);
  if (w->cpu) {
    for (int64_t m = 0; m < w->g->m; m++) {
      Name at;
      mg_lower_index(e, m * w->g->v, at);
      mg_lower_line(e, "vector.store %s, %s[%s, %s] : %s, vector<%lldxf32>",
                    acc[m], w->regs, w->tid, at, w->regs_type,
                    (long long)w->g->v);
    }
    return;
  }
  for (int64_t i = 0; i < w->n; i++) {
    mg_lower_fresh(e, w->val[i]);
    mg_lower_line(e, "%s = vector.extract %s[%lld] : f32 from vector<%lldxf32>",
                  w->val[i], acc[i / w->g->v], (long long)(i % w->g->v),
                  (long long)w->g->v);
  }
}

// C[row][col] = v (an f32 sum), rounded to C's element type.
static void store_output(Emit *e, const Gemv *g, const char *row,
                         const char *col, const char *v) {
  const MgTensor *ct = &e->p->graphs[0].tensors[g->c];
  Name x, c0;
  snprintf(x, NAME_LEN, "%s", v);
  if (ct->dtype != MG_DTYPE_F32) {
    mg_lower_fresh(e, x);
    mg_lower_line(e, "%s = arith.truncf %s : f32 to %s", x, v,
                  mg_lower_elt((MgDType)ct->dtype));
  }
  mg_lower_index(e, 0, c0);
  char at[MG_MAX_DIMS * (NAME_LEN + 2)];
  at2(ct, row, col, c0, at, sizeof at);
  mg_lower_line(e, "memref.store %s, %s[%s] : %s", x, e->val[g->c], at,
                e->type[g->c]);
}

// The CPU form's loop over the blocks (`bid`), opened.
static void cpu_blocks_begin(Emit *e, const Gemv *g, Name bid) {
  Name zero, one, nb;
  mg_lower_index(e, 0, zero);
  mg_lower_index(e, 1, one);
  mg_lower_index(e, g->blocks, nb);
  mg_lower_fresh(e, bid);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", bid, zero, nb, one);
  e->indent++;
}

// Opens a loop of the block's threads striding over `total` items laid
// out in rows of `width`: `row`, `col` get the item's place.
static void strided_items_begin(Emit *e, const Gemv *g, const char *tid,
                                int64_t total, int64_t width, Name row,
                                Name col) {
  Name n, step, idx, wd;
  mg_lower_index(e, total, n);
  mg_lower_index(e, SLICES * g->cg, step);
  mg_lower_fresh(e, idx);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", idx, tid, n, step);
  e->indent++;
  mg_lower_index(e, width, wd);
  mg_lower_index_op(e, "arith.divui", idx, wd, row);
  mg_lower_index_op(e, "arith.remui", idx, wd, col);
}

// Phase 2: the block's outputs, each the warps' sums added in warp order.
// The fused form applies its epilogue to each sum (`stat`: the slices'
// statistics).
static void combine(Emit *e, const Gemv *g, const char *bid, const char *tid,
                    const char *part, const char *part_type, const char *stat,
                    const char *stat_type) {
  int64_t width = g->cgv * g->v, outs = g->m * width;
  Name wd, m, c, base, col, nn, ok, c0;
  mg_lower_index(e, 0, c0);
  strided_items_begin(e, g, tid, outs, width, m, c);
  mg_lower_index(e, width, wd);
  BlockAt blk;
  block_at(e, g, bid, &blk);
  mg_lower_index_op(e, "arith.muli", blk.colblock, wd, base);
  mg_lower_index_op(e, "arith.addi", base, c, col);
  mg_lower_index(e, g->n, nn);
  mg_lower_index_op(e, "arith.cmpi ult,", col, nn, ok);
  mg_lower_line(e, "scf.if %s {", ok);
  e->indent++;
  Name sum = "";
  for (int64_t w = 0; w < g->cg; w++) {
    Name wi, v;
    mg_lower_index(e, w, wi);
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = memref.load %s[%s, %s, %s] : %s", v, part, wi, m,
                  c, part_type);
    if (w == 0) {
      snprintf(sum, NAME_LEN, "%s", v);
    } else {
      Name t;
      mg_lower_fresh(e, t);
      mg_lower_line(e, "%s = arith.addf %s, %s : f32", t, sum, v);
      snprintf(sum, NAME_LEN, "%s", t);
    }
  }
  Name row;
  snprintf(row, NAME_LEN, "%s", m);
  if (blk.has_row0)
    mg_lower_index_op(e, "arith.addi", blk.row0, m, row);
  if (g->fused) {
    Name y;
    mg_lower_fused_finish(e, g, m, sum, stat, stat_type, y);
    store_output(e, g, row, col, y);
  } else {
    store_output(e, g, row, col, sum);
  }
  e->indent--;
  mg_lower_line(e, "}");
  e->indent--;
  mg_lower_line(e, "}");
}

// The warps' partial sums, f32 [warp][row][column of the block]: in
// workgroup memory on the GPU.
static void partials_type(const Gemv *g, bool gpu, char *out, size_t size) {
  snprintf(out, size, "memref<%lldx%lldx%lldxf32%s%s>", (long long)g->cg,
           (long long)g->m,
           (long long)(g->cg * g->v), gpu ? ", " : "",
           gpu ? MG_LOWER_WORKGROUP : "");
}


// The CPU form's per-thread buffers (lane values, exchange, positions,
// store flags) and a block-sized scratch `buf` of `buf_type`, allocated
// and freed around the blocks' loop.
static const char *const lane_buf_types[] = {"f32", "f32", "index", "i1"};

static void cpu_buffers_alloc(Emit *e, Warp *w, Name buf,
                              const char *buf_type) {
  int64_t threads = SLICES * w->g->cg;
  Name *names[] = {&w->regs, &w->xchg, &w->posb, &w->flagb};
  snprintf(w->regs_type, sizeof w->regs_type, "memref<%lldx%lldxf32>",
           (long long)threads, (long long)w->n);
  mg_lower_fresh(e, buf);
  mg_lower_line(e, "%s = memref.alloc() : %s", buf, buf_type);
  for (int i = 0; i < 4; i++) {
    mg_lower_fresh(e, *names[i]);
    if (i < 2)
      mg_lower_line(e, "%s = memref.alloc() : %s", *names[i], w->regs_type);
    else
      mg_lower_line(e, "%s = memref.alloc() : memref<%lldx%s>", *names[i],
                    (long long)threads, lane_buf_types[i]);
  }
}

static void cpu_buffers_free(Emit *e, const Warp *w, const char *buf,
                             const char *buf_type) {
  int64_t threads = SLICES * w->g->cg;
  const Name *names[] = {&w->regs, &w->xchg, &w->posb, &w->flagb};
  mg_lower_line(e, "memref.dealloc %s : %s", buf, buf_type);
  for (int i = 0; i < 4; i++)
    if (i < 2)
      mg_lower_line(e, "memref.dealloc %s : %s", *names[i], w->regs_type);
    else
      mg_lower_line(e, "memref.dealloc %s : memref<%lldx%s>", *names[i],
                    (long long)threads, lane_buf_types[i]);
}

//===--- B stored transposed: dot products along K ------------------------===//
//
// nn.Linear's weight W (N x K, rows contiguous) read as B = Wᵀ: column n
// of B is row n of W, contiguous along K, so a warp reads it along K (lane
// l takes the 16-byte vectors l, l + 32, ..) instead of across columns.
// Each warp owns DOT_COLS adjacent columns (C) and the block's 8 warps
// take 8·C of them. A (M <= 16 rows) is what every warp of the block
// reads: the block stages it in shared memory, DOT_CHUNK of K at a time
// (every thread copies 16-byte vectors of it, a barrier, the warps'
// products, a barrier), so L2 serves A once per block, not once per warp.
// A lane's M·C sums meet across the warp by the same shuffle stages as the
// split-K GEMV's (offsets 16 .. 1: recursive halving, then a butterfly),
// and the lanes left holding sums store them. The CPU form runs the same
// code with the threads as loops per segment (between barriers and
// exchanges), as the split-K GEMV's does.
#define DOT_WARPS 8
#define DOT_MAX_ROWS 16
#define DOT_MAX_SUMS 32   // a lane's M·C sums
#define DOT_MAX_PIECES 8  // V / accw

// B's view is its stored transpose in the last two dims (an input's
// layout, not a folded view): column n is row n of the stored array.
static bool dot_shape(const MgGraph *r, const MgOp *op, Gemv *g) {
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

// Where thread `tid` of block `bid` works: its lane and first column.
static void dot_lane(Emit *e, const Gemv *g, const char *bid, const char *tid,
                     Name lane, Name col0) {
  Name c32, warp, nw, bw, gw, cs;
  mg_lower_index(e, 32, c32);
  mg_lower_index_op(e, "arith.remui", tid, c32, lane);
  mg_lower_index_op(e, "arith.divui", tid, c32, warp);
  mg_lower_index(e, DOT_WARPS, nw);
  mg_lower_index_op(e, "arith.muli", bid, nw, bw);
  mg_lower_index_op(e, "arith.addi", bw, warp, gw);
  mg_lower_index(e, g->cols, cs);
  mg_lower_index_op(e, "arith.muli", gw, cs, col0);
}

// The block's threads copy A[:, ch .. ch + chunk) into `smem` (M x chunk,
// A's type: f32 would double the shared-memory reads that bound the
// products), 16-byte vectors, consecutive threads on consecutive vectors.
static void dot_stage_a(Emit *e, const Gemv *g, const char *tid,
                        const char *ch, const char *smem,
                        const char *smem_type) {
  const MgTensor *at = &e->p->graphs[0].tensors[g->a];
  int64_t per_row = g->chunk / g->v;
  Name m, j, vw, kk, k, c0;
  char vn[32], from[MG_MAX_DIMS * (NAME_LEN + 2)];
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  mg_lower_index(e, 0, c0);
  strided_items_begin(e, g, tid, g->m * per_row, per_row, m, j);
  mg_lower_index(e, g->v, vw);
  mg_lower_index_op(e, "arith.muli", j, vw, kk);
  mg_lower_index_op(e, "arith.addi", ch, kk, k);
  at2(at, m, k, c0, from, sizeof from);
  Name x;
  mg_lower_fresh(e, x);
  mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", x, e->val[g->a], from,
                e->type[g->a], vn);
  mg_lower_line(e, "vector.store %s, %s[%s, %s] : %s, %s", x, smem, m, kk,
                smem_type, vn);
  e->indent--;
  mg_lower_line(e, "}");
}

// A loaded vector `x` of V elements of A's type as f32 pieces of g->accw
// (`out[0..V/accw)`): converted, then split by vector.shuffle (which
// both forms lower), itself when V = accw and f32.
static void dot_pieces(Emit *e, const Gemv *g, const char *x, Name *out) {
  char vn[32], vf[32], va[32];
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  snprintf(vf, sizeof vf, "vector<%lldxf32>", (long long)g->v);
  snprintf(va, sizeof va, "vector<%dxf32>", g->accw);
  Name y;
  snprintf(y, NAME_LEN, "%s", x);
  if (g->dt != MG_DTYPE_F32) {
    mg_lower_fresh(e, y);
    mg_lower_line(e, "%s = arith.extf %s : %s to %s", y, x, vn, vf);
  }
  int64_t parts = g->v / g->accw;
  for (int64_t q = 0; q < parts; q++) {
    if (parts == 1) {
      snprintf(out[q], NAME_LEN, "%s", y);
      continue;
    }
    char lanes[64];
    size_t nl = 0;
    for (int64_t l = 0; l < g->accw; l++)
      nl += (size_t)snprintf(lanes + nl, sizeof lanes - nl, "%s%lld",
                             l ? ", " : "", (long long)(q * g->accw + l));
    mg_lower_fresh(e, out[q]);
    mg_lower_line(e, "%s = vector.shuffle %s, %s [%s] : %s, %s", out[q], y, y,
                  lanes, vf, vf);
  }
}

// One chunk's products: the lane's vector of each of the warp's C rows of
// W (B's columns) against the M rows of A in shared memory, converted to
// f32, as FMAs into accw-wide partial sums, V / accw per product;
// `acc` (M·C vector names, row-major) is replaced by the new sums.
static void dot_products(Emit *e, const Gemv *g, const char *bt,
                         const char *bt_type, const char *lane,
                         const char *col0, const char *ch, const char *smem,
                         const char *smem_type, Name *acc) {
  Name vw, kk, k, c0;
  char vn[32];
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  mg_lower_index(e, g->v, vw);
  mg_lower_index_op(e, "arith.muli", lane, vw, kk);
  mg_lower_index_op(e, "arith.addi", ch, kk, k);
  mg_lower_index(e, 0, c0);
  const MgTensor *btn = &e->p->graphs[0].tensors[g->b];
  Name w[DOT_MAX_ROWS];
  for (int64_t c = 0; c < g->cols; c++) { // W's rows first: DRAM
    Name ci, col;
    char at[MG_MAX_DIMS * (NAME_LEN + 2)];
    mg_lower_index(e, c, ci);
    mg_lower_index_op(e, "arith.addi", col0, ci, col);
    at2(btn, col, k, c0, at, sizeof at);
    mg_lower_fresh(e, w[c]);
    mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", w[c], bt, at,
                  bt_type, vn);
  }
  int64_t parts = g->v / g->accw;
  char va[32];
  snprintf(va, sizeof va, "vector<%dxf32>", g->accw);
  Name wp[DOT_MAX_ROWS][DOT_MAX_PIECES], ap[DOT_MAX_PIECES];
  for (int64_t c = 0; c < g->cols; c++)
    dot_pieces(e, g, w[c], wp[c]);
  for (int64_t m = 0; m < g->m; m++) {
    Name mi, x;
    mg_lower_index(e, m, mi);
    mg_lower_fresh(e, x);
    mg_lower_line(e, "%s = vector.load %s[%s, %s] : %s, %s", x, smem, mi, kk,
                  smem_type, vn);
    dot_pieces(e, g, x, ap);
    for (int64_t c = 0; c < g->cols; c++)
      for (int64_t q = 0; q < parts; q++) {
        Name sum;
        mg_lower_fresh(e, sum);
        mg_lower_line(e, "%s = vector.fma %s, %s, %s : %s", sum, ap[q],
                      wp[c][q], acc[m * g->cols + c], va);
        memcpy(acc[m * g->cols + c], sum, sizeof sum);
      }
  }
}

// A lane's partial accumulator `acc` (vector<accw x f32>) summed into
// one f32 `out`.
static void dot_reduce(Emit *e, const Gemv *g, const char *acc, Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = vector.reduction <add>, %s : vector<%dxf32> into "
                   "f32", out, acc, g->accw);
}

// The lanes left holding sums store them: value i of a lane at position
// pos is output (m, c) = ((pos + i) / C, (pos + i) mod C).
static void dot_store(Emit *e, Warp *w, const char *bid) {
  const Gemv *g = w->g;
  lanes_open(e, w);
  Name flag, pos, lane, col0, cs;
  state_get(e, w, 1, flag);
  state_get(e, w, 0, pos);
  dot_lane(e, g, bid, w->tid, lane, col0);
  mg_lower_index(e, g->cols, cs);
  mg_lower_line(e, "scf.if %s {", flag);
  e->indent++;
  for (int64_t i = 0; i < w->n; i++) {
    Name v, m, col;
    held_value(e, w, i, pos, cs, col0, v, m, col);
    store_output(e, g, m, col, v);
  }
  e->indent--;
  mg_lower_line(e, "}");
  lanes_close(e, w);
}

// B's stored rows: its view transposed back in the last two dims (unit
// stride along K, as vector.load needs).
static void dot_stored_b(Emit *e, const Gemv *g, Name bt,
                         char bt_type[TYPE_LEN]) {
  const MgTensor *b = &e->p->graphs[0].tensors[g->b];
  MgTensor s = *b;
  uint32_t rk = b->rank;
  s.dims[rk - 2] = b->dims[rk - 1];
  s.dims[rk - 1] = b->dims[rk - 2];
  char dense[TYPE_LEN], map[96], strides[128];
  mg_lower_memref_type(&s, g->dt, NULL, dense);
  size_t n = (size_t)snprintf(map, sizeof map, "("), k = 0;
  for (uint32_t d = 0; d < rk; d++)
    n += (size_t)snprintf(map + n, sizeof map - n, "%sd%u", d ? ", " : "", d);
  n += (size_t)snprintf(map + n, sizeof map - n, ") -> (");
  int64_t stride = 1, st[MG_MAX_DIMS];
  for (uint32_t d = rk; d-- > 0;) {
    st[d] = stride;
    stride *= s.dims[d];
  }
  for (uint32_t d = 0; d < rk; d++) {
    uint32_t from = d + 2 == rk ? rk - 1 : d + 1 == rk ? rk - 2 : d;
    n += (size_t)snprintf(map + n, sizeof map - n, "%sd%u", d ? ", " : "",
                          from);
    k += (size_t)snprintf(strides + k, sizeof strides - k, "%s%lld",
                          d ? ", " : "", (long long)st[d]);
  }
  snprintf(map + n, sizeof map - n, ")");
  snprintf(bt_type, TYPE_LEN, "%.*s, strided<[%s]>>", (int)strlen(dense) - 1,
           dense, strides);
  mg_lower_fresh(e, bt);
  mg_lower_line(e, "%s = memref.transpose %s %s : %s to %s", bt,
                e->val[g->b], map, e->type[g->b], bt_type);
}

static void smem_type_of(const Gemv *g, bool gpu, char *out, size_t size) {
  snprintf(out, size, "memref<%lldx%lldx%s%s%s>", (long long)g->m,
           (long long)g->chunk, mg_lower_elt(g->dt), gpu ? ", " : "",
           gpu ? MG_LOWER_WORKGROUP : "");
}

static void dot_gpu(Emit *e, const Gemv *g, const char *smem) {
  char smem_type[TYPE_LEN], bt_type[TYPE_LEN], types[DOT_MAX_SUMS * 20] = "";
  smem_type_of(g, true, smem_type, sizeof smem_type);
  Warp w = {.g = g, .cpu = false, .n = g->m * g->cols};
  Name bid, lane, col0, bt, zero, lo, hi, st, ch, res;
  mg_lower_fresh(e, bid);
  mg_lower_line(e, "%s = gpu.block_id x", bid);
  mg_lower_fresh(e, w.tid);
  mg_lower_line(e, "%s = gpu.thread_id x", w.tid);
  dot_lane(e, g, bid, w.tid, lane, col0);
  dot_stored_b(e, g, bt, bt_type);
  mg_lower_fresh(e, zero);
  mg_lower_line(e, "%s = arith.constant dense<0.0> : vector<%dxf32>", zero,
                g->accw);
  mg_lower_index(e, 0, lo);
  mg_lower_index(e, g->k, hi);
  mg_lower_index(e, g->chunk, st);
  mg_lower_fresh(e, res);
  mg_lower_fresh(e, ch);
  char iters[DOT_MAX_SUMS * 40] = "";
  Name acc[DOT_MAX_SUMS];
  size_t ni = 0, nt = 0;
  for (int64_t i = 0; i < w.n; i++) {
    mg_lower_fresh(e, acc[i]);
    ni += (size_t)snprintf(iters + ni, sizeof iters - ni, "%s%s = %s",
                           i ? ", " : "", acc[i], zero);
    nt += (size_t)snprintf(types + nt, sizeof types - nt,
                           "%svector<%dxf32>", i ? ", " : "", g->accw);
  }
  mg_lower_line(e, "%s:%lld = scf.for %s = %s to %s step %s iter_args(%s) "
                   "-> (%s) {", res, (long long)w.n, ch, lo, hi, st, iters,
                types);
  e->indent++;
  dot_stage_a(e, g, w.tid, ch, smem, smem_type);
  mg_lower_line(e, "gpu.barrier");
  dot_products(e, g, bt, bt_type, lane, col0, ch, smem, smem_type, acc);
  mg_lower_line(e, "gpu.barrier");
  char yields[DOT_MAX_SUMS * 16];
  join_names(acc, w.n, yields, sizeof yields);
  mg_lower_line(e, "scf.yield %s : %s", yields, types);
  e->indent--;
  mg_lower_line(e, "}");
  for (int64_t i = 0; i < w.n; i++) {
    Name r;
    snprintf(r, NAME_LEN, "%.12s#%d", res, (int)i);
    dot_reduce(e, g, r, w.val[i]);
  }
  Name t;
  mg_lower_fresh(e, t);
  mg_lower_line(e, "%s = arith.constant true", t);
  state_set(e, &w, 0, lo);
  state_set(e, &w, 1, t);
  for (int64_t o = 16; o >= 1; o /= 2)
    meet_stage(e, &w, o);
  dot_store(e, &w, bid);
}

// The CPU form's partial accumulator `i` of the current thread: stores
// `set` when given, else loads it into `get`.
static void acc_at(Emit *e, const Warp *w, const char *accb,
                   const char *acc_type, int64_t i, const char *set,
                   char *get) {
  Name ii, c0;
  mg_lower_index(e, i, ii);
  mg_lower_index(e, 0, c0);
  if (set) {
    mg_lower_line(e, "vector.store %s, %s[%s, %s, %s] : %s, vector<%dxf32>",
                  set, accb, w->tid, ii, c0, acc_type, w->g->accw);
    return;
  }
  mg_lower_fresh(e, get);
  mg_lower_line(e, "%s = vector.load %s[%s, %s, %s] : %s, vector<%dxf32>",
                get, accb, w->tid, ii, c0, acc_type, w->g->accw);
}

// The CPU form: blocks, then each segment's threads one after the other;
// a thread's sums live in a buffer between segments.
static void dot_cpu(Emit *e, const Gemv *g) {
  char smem_type[TYPE_LEN], bt_type[TYPE_LEN];
  smem_type_of(g, false, smem_type, sizeof smem_type);
  Warp w = {.g = g, .cpu = true, .n = g->m * g->cols};
  Name smem, zero, bid, bt, fz, lo, hi, st, ch, t, accb;
  cpu_buffers_alloc(e, &w, smem, smem_type);
  // The lanes' partial accumulators between segments: [thread][sum][lane].
  char acc_type[TYPE_LEN];
  snprintf(acc_type, sizeof acc_type, "memref<%lldx%lldx%dxf32>",
           (long long)(SLICES * g->cg), (long long)w.n, g->accw);
  mg_lower_fresh(e, accb);
  mg_lower_line(e, "%s = memref.alloc() : %s", accb, acc_type);
  dot_stored_b(e, g, bt, bt_type);
  mg_lower_fresh(e, fz);
  mg_lower_line(e, "%s = arith.constant dense<0.0> : vector<%dxf32>", fz,
                g->accw);
  mg_lower_fresh(e, t);
  mg_lower_line(e, "%s = arith.constant true", t);
  mg_lower_index(e, 0, zero);
  cpu_blocks_begin(e, g, bid);
  lanes_open(e, &w);
  for (int64_t i = 0; i < w.n; i++)
    acc_at(e, &w, accb, acc_type, i, fz, NULL);
  state_set(e, &w, 0, zero);
  state_set(e, &w, 1, t);
  lanes_close(e, &w);
  mg_lower_index(e, 0, lo);
  mg_lower_index(e, g->k, hi);
  mg_lower_index(e, g->chunk, st);
  mg_lower_fresh(e, ch);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", ch, lo, hi, st);
  e->indent++;
  lanes_open(e, &w);
  dot_stage_a(e, g, w.tid, ch, smem, smem_type);
  lanes_close(e, &w);
  lanes_open(e, &w);
  Name lane, col0, acc[DOT_MAX_SUMS];
  dot_lane(e, g, bid, w.tid, lane, col0);
  for (int64_t i = 0; i < w.n; i++)
    acc_at(e, &w, accb, acc_type, i, NULL, acc[i]);
  dot_products(e, g, bt, bt_type, lane, col0, ch, smem, smem_type, acc);
  for (int64_t i = 0; i < w.n; i++)
    acc_at(e, &w, accb, acc_type, i, acc[i], NULL);
  lanes_close(e, &w);
  e->indent--;
  mg_lower_line(e, "}");
  lanes_open(e, &w); // the partial sums summed: the lanes' values
  for (int64_t i = 0; i < w.n; i++) {
    Name v, s;
    acc_at(e, &w, accb, acc_type, i, NULL, v);
    dot_reduce(e, g, v, s);
    reg_set(e, &w, i, s);
  }
  lanes_close(e, &w);
  for (int64_t o = 16; o >= 1; o /= 2)
    meet_stage(e, &w, o);
  dot_store(e, &w, bid);
  e->indent--;
  mg_lower_line(e, "}");
  mg_lower_line(e, "memref.dealloc %s : %s", accb, acc_type);
  cpu_buffers_free(e, &w, smem, smem_type);
}

// The fused form's statistics of the thread's slice (`acc` past the M
// vectors) into stat[j][slice][row], by the slice's first column group
// (every column group holds the same sums).
static void stats_store(Emit *e, const Gemv *g, const Lane *l, Name *acc,
                        const char *stat, const char *stat_type) {
  if (!g->nstats)
    return;
  Name z, first;
  mg_lower_index(e, 0, z);
  mg_lower_index_op(e, "arith.cmpi eq,", l->cg, z, first);
  mg_lower_line(e, "scf.if %s {", first);
  e->indent++;
  for (int j = 0; j < g->nstats; j++)
    for (int64_t m = 0; m < g->m; m++) {
      Name ji, mi;
      mg_lower_index(e, j, ji);
      mg_lower_index(e, m, mi);
      mg_lower_line(e, "memref.store %s, %s[%s, %s, %s] : %s",
                    acc[g->m * (1 + j) + m], stat, ji, l->slice, mi,
                    stat_type);
    }
  e->indent--;
  mg_lower_line(e, "}");
}

void mg_lower_gemv(Emit *e, const MgOp *op, const char *part,
                   const char *ring, const char *stat) {
  Gemv g;
  if (!gemv_shape(e->p, op, &g)) {
    e->error = "a matmul that is not a GEMV lowered as one";
    return;
  }
  if (g.dot) {
    if (e->mode == MG_LOWER_CPU)
      dot_cpu(e, &g);
    else
      dot_gpu(e, &g, part);
    return;
  }
  bool cpu = e->mode == MG_LOWER_CPU;
  char part_type[TYPE_LEN];
  partials_type(&g, !cpu, part_type, sizeof part_type);
  Name acc[GEMV_MAX_ACCS], bid, stat_buf = "";
  Lane l;
  Warp w = {.g = &g, .cpu = cpu, .n = g.m * g.v};
  Ring rg;
  memset(&rg, 0, sizeof rg);
  ring_type(&g, !cpu, rg.type, sizeof rg.type);
  char stat_type[TYPE_LEN] = "";
  if (g.nstats)
    mg_lower_fused_stat_type(&g, !cpu, stat_type, sizeof stat_type);
  if (!cpu) {
    if ((g.stages && !ring) || (g.nstats && !stat)) {
      e->error = "a GEMV's ring or statistics without its buffer";
      return;
    }
    if (g.nstats)
      snprintf(stat_buf, NAME_LEN, "%s", stat);
    if (g.stages)
      snprintf(rg.buf, NAME_LEN, "%s", ring);
    mg_lower_fresh(e, bid);
    mg_lower_line(e, "%s = gpu.block_id x", bid);
    mg_lower_fresh(e, w.tid);
    mg_lower_line(e, "%s = gpu.thread_id x", w.tid);
    snprintf(rg.tid, NAME_LEN, "%s", w.tid);
    lane_of(e, &g, bid, w.tid, &l);
    partials(e, &g, &l, &rg, acc);
    stats_store(e, &g, &l, acc, stat_buf, stat_type);
    warp_start(e, &w, &l, acc);
    warp_meet(e, &w, part, part_type);
    mg_lower_line(e, "gpu.barrier");
    combine(e, &g, bid, w.tid, part, part_type, stat_buf, stat_type);
    return;
  }
  // CPU: blocks, then each segment's threads, one after the other; the
  // ring is a buffer indexed as on the GPU.
  Name buf;
  cpu_buffers_alloc(e, &w, buf, part_type);
  if (g.stages) {
    mg_lower_fresh(e, rg.buf);
    mg_lower_line(e, "%s = memref.alloc() : %s", rg.buf, rg.type);
  }
  if (g.nstats) {
    mg_lower_fresh(e, stat_buf);
    mg_lower_line(e, "%s = memref.alloc() : %s", stat_buf, stat_type);
  }
  cpu_blocks_begin(e, &g, bid);
  lanes_open(e, &w);
  snprintf(rg.tid, NAME_LEN, "%s", w.tid);
  lane_of(e, &g, bid, w.tid, &l);
  partials(e, &g, &l, &rg, acc);
  stats_store(e, &g, &l, acc, stat_buf, stat_type);
  warp_start(e, &w, &l, acc);
  lanes_close(e, &w);
  warp_meet(e, &w, buf, part_type);
  lanes_open(e, &w);
  combine(e, &g, bid, w.tid, buf, part_type, stat_buf, stat_type);
  lanes_close(e, &w);
  e->indent--;
  mg_lower_line(e, "}");
  if (g.nstats)
    mg_lower_line(e, "memref.dealloc %s : %s", stat_buf, stat_type);
  if (g.stages)
    mg_lower_line(e, "memref.dealloc %s : %s", rg.buf, rg.type);
  cpu_buffers_free(e, &w, buf, part_type);
}

int64_t mg_lower_gemv_smem(const MgProgram *p, MgOpId op, char *type,
                           size_t size) {
  Gemv g;
  if (!gemv_shape(p, &p->graphs[0].ops[op], &g))
    return 0;
  if (g.dot) {
    smem_type_of(&g, true, type, size);
    return g.m * g.chunk * (int64_t)mg_dtype_bytes(g.dt);
  }
  partials_type(&g, true, type, size);
  return g.cg * g.m * g.cg * g.v * 4;
}

int64_t mg_lower_gemv_ring(const MgProgram *p, MgOpId op, int64_t *stages,
                           char *type, size_t size) {
  Gemv g;
  if (!gemv_shape(p, &p->graphs[0].ops[op], &g) || !g.stages)
    return 0;
  *stages = g.stages;
  ring_type(&g, true, type, size);
  return ring_bytes(&g);
}

int64_t mg_lower_gemv_stats(const MgProgram *p, MgOpId op, char *type,
                            size_t size) {
  Gemv g;
  if (!gemv_shape(p, &p->graphs[0].ops[op], &g) || !g.nstats)
    return 0;
  mg_lower_fused_stat_type(&g, true, type, size);
  return mg_lower_fused_stat_bytes(&g);
}

void mg_lower_gemv_fill_plan(const MgProgram *p, MgOpId op,
                             MgLowerKernelPlan *plan) {
  Gemv g;
  if (!gemv_shape(p, &p->graphs[0].ops[op], &g))
    return;
  plan->gemv_a = g.a;
  plan->gemv_b = g.b;
  plan->col_groups = g.cgv;
  plan->stats = g.nstats;
  plan->num_epilogue = 0;
  for (uint32_t i = 0; i < g.nepi && i < 16; i++)
    plan->epilogue[plan->num_epilogue++] = g.blk->ops[g.epi[i]].kind;
}
