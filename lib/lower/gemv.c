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
// The warps' shuffle stages are gemv_warp.c's, the dot form (B stored
// transposed) gemv_dot.c's, and a block graph of this shape with row
// statistics and an epilogue is matched by fused.c.
//
//===----------------------------------------------------------------------===//
#include "gemv.h"

#include <stdio.h>
#include <string.h>


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
void mg_gemv_at2(const MgTensor *t, const char *row, const char *col,
                const char *zero, char *out, size_t size) {
  size_t n = 0;
  out[0] = '\0';
  for (uint32_t d = 0; d + 2 < t->rank; d++)
    n += (size_t)snprintf(out + n, size - n, "%s, ", zero);
  snprintf(out + n, size - n, "%s, %s", row, col);
}

// "a, b, c": the first `n` of `names` (the M accumulators' yields).
void mg_gemv_join_names(Name *names, int64_t n, char *out, size_t size) {
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
      mg_gemv_at2(bt, ks[u], col, c0, at, sizeof at);
      mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", braw[u],
                    e->val[g->b], at, e->type[g->b], vn);
    }
    for (int64_t m = 0; m < g->m; m++) {
      Name row;
      row_at(e, blk, m, row);
      mg_gemv_at2(atn, row, ks[u], c0, at, sizeof at);
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
  mg_gemv_join_names(f->arg, mg_gemv_accs(g), yields, sizeof yields);
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
    mg_gemv_at2(bt, ks[u], col, c0, at, sizeof at);
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
  mg_gemv_join_names(acc, n, yields, sizeof yields);
  mg_lower_line(e, "scf.yield %s : %s", yields, types);
  e->indent--;
  mg_lower_line(e, "} else {");
  mg_lower_line(e, "  scf.yield %s : %s", zeros, types);
  mg_lower_line(e, "}");
  for (int64_t m = 0; m < n; m++)
    snprintf(acc[m], NAME_LEN, "%.12s#%d", res, (int)m);
}

// The stages, then the storing lanes' values into part[warp][row][column].
static void warp_meet(Emit *e, Warp *w, const char *part,
                      const char *part_type) {
  for (int64_t o = 16; o >= w->g->cg; o /= 2)
    mg_gemv_meet_stage(e, w, o);
  mg_gemv_lanes_open(e, w);
  Name flag, pos, c32, warp, cgs, cg, vw, base;
  mg_gemv_state_get(e, w, 1, flag);
  mg_gemv_state_get(e, w, 0, pos);
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
    mg_gemv_held_value(e, w, i, pos, vw, base, v, row, col);
    mg_lower_line(e, "memref.store %s, %s[%s, %s, %s] : %s", v, part, warp,
                  row, col, part_type);
  }
  e->indent--;
  mg_lower_line(e, "}");
  mg_gemv_lanes_close(e, w);
}

// A lane's starting state from phase 1: its M·V values, position 0, and
// whether it stores (its column group exists).
static void warp_start(Emit *e, Warp *w, const Lane *l, Name *acc) {
  Name zero;
  mg_lower_index(e, 0, zero);
  mg_gemv_state_set(e, w, 0, zero);
  mg_gemv_state_set(e, w, 1, l->valid);
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

// Phase 2: the block's outputs, each the warps' sums added in warp order.
// The fused form applies its epilogue to each sum (`stat`: the slices'
// statistics).
static void combine(Emit *e, const Gemv *g, const char *bid, const char *tid,
                    const char *part, const char *part_type, const char *stat,
                    const char *stat_type) {
  int64_t width = g->cgv * g->v, outs = g->m * width;
  Name wd, m, c, base, col, nn, ok, c0;
  mg_lower_index(e, 0, c0);
  mg_gemv_strided_items_begin(e, g, tid, outs, width, m, c);
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
    mg_gemv_store_output(e, g, row, col, y);
  } else {
    mg_gemv_store_output(e, g, row, col, sum);
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
      mg_gemv_dot_cpu(e, &g);
    else
      mg_gemv_dot_gpu(e, &g, part);
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
  mg_gemv_cpu_buffers_alloc(e, &w, buf, part_type);
  if (g.stages) {
    mg_lower_fresh(e, rg.buf);
    mg_lower_line(e, "%s = memref.alloc() : %s", rg.buf, rg.type);
  }
  if (g.nstats) {
    mg_lower_fresh(e, stat_buf);
    mg_lower_line(e, "%s = memref.alloc() : %s", stat_buf, stat_type);
  }
  mg_gemv_cpu_blocks_begin(e, &g, bid);
  mg_gemv_lanes_open(e, &w);
  snprintf(rg.tid, NAME_LEN, "%s", w.tid);
  lane_of(e, &g, bid, w.tid, &l);
  partials(e, &g, &l, &rg, acc);
  stats_store(e, &g, &l, acc, stat_buf, stat_type);
  warp_start(e, &w, &l, acc);
  mg_gemv_lanes_close(e, &w);
  warp_meet(e, &w, buf, part_type);
  mg_gemv_lanes_open(e, &w);
  combine(e, &g, bid, w.tid, buf, part_type, stat_buf, stat_type);
  mg_gemv_lanes_close(e, &w);
  e->indent--;
  mg_lower_line(e, "}");
  if (g.nstats)
    mg_lower_line(e, "memref.dealloc %s : %s", stat_buf, stat_type);
  if (g.stages)
    mg_lower_line(e, "memref.dealloc %s : %s", rg.buf, rg.type);
  mg_gemv_cpu_buffers_free(e, &w, buf, part_type);
}

int64_t mg_lower_gemv_smem(const MgProgram *p, MgOpId op, char *type,
                           size_t size) {
  Gemv g;
  if (!gemv_shape(p, &p->graphs[0].ops[op], &g))
    return 0;
  if (g.dot) {
    mg_gemv_dot_smem_type(&g, true, type, size);
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
