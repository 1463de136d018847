//===- gemv.c - A kernel-level matmul with few rows as a split-K GEMV -----===//
//
// C = A·B with A M x K (M <= 8 rows, the batch of a decoding step) and B
// K x N is a bandwidth problem: B's K·N elements are read once, and one
// output per thread (the generic predefined kernel) reads B column-wise,
// 2 bytes per thread per load. Here each block owns CG groups of V
// adjacent columns (V: one 16-byte vector of B's row) and its 32·CG
// threads split K: thread t takes column group t mod CG and the rows
// k ≡ t / CG (mod SLICES). It loads UNROLL such rows' 16-byte vectors of B
// (and A's M scalars for each) before it uses any, so that many bytes are
// in flight per thread, then accumulates the M x V products in f32
// registers (FMA) in k order. The SLICES partial sums of each output meet
// in shared memory after one barrier and are added in slice order by the
// thread that stores the output.
//
// CG is 8 (a warp reads 4 rows x 128 contiguous bytes) unless that leaves
// fewer blocks than GEMV_MIN_BLOCKS (about one per SM on A100/H100): then
// 4 or 2, so that a 6144-wide B still fills the GPU.
//
// The CPU form runs the same blocks and threads one after the other (the
// partial sums in a buffer), so the JIT checks the split and the order.
//
//===----------------------------------------------------------------------===//
#include "lower_internal.h"

#include <stdio.h>
#include <string.h>

#define SLICES 32
#define GEMV_MAX_ROWS 8
#define GEMV_MIN_BLOCKS 128
#define GEMV_MAX_UNROLL 8

typedef struct Gemv {
  int64_t m, k, n, v, blocks;
  int64_t cg;      // column groups per block; 32·cg threads
  int64_t unroll;  // rows of B each thread loads before it uses them
  MgDType dt;     // of A and B
  MgTensorId a, b, c;
} Gemv;

// All dims but the last two are 1 (no batch), A and B of one type.
static bool gemv_shape(const MgProgram *p, const MgOp *op, Gemv *g) {
  const MgGraph *r = &p->graphs[0];
  if (op->kind != MG_OP_MATMUL)
    return false;
  const MgTensor *a = &r->tensors[op->inputs[0]], *b = &r->tensors[op->inputs[1]];
  const MgTensor *c = &r->tensors[op->outputs[0]];
  if (a->rank < 2 || b->rank < 2 || a->dtype != b->dtype ||
      mg_lower_has_layout(r, op->inputs[0]) ||
      mg_lower_has_layout(r, op->inputs[1]))
    return false; // its vector loads need rows stored as read
  for (const MgTensor *t = a; t; t = t == a ? b : t == b ? c : NULL)
    for (uint32_t d = 0; d + 2 < t->rank; d++)
      if (t->dims[d] != 1)
        return false;
  g->m = a->dims[a->rank - 2];
  g->k = a->dims[a->rank - 1];
  g->n = b->dims[b->rank - 1];
  g->dt = (MgDType)a->dtype;
  g->v = MG_LOWER_VECTOR_BYTES / (int64_t)mg_dtype_bytes(g->dt);
  g->a = op->inputs[0];
  g->b = op->inputs[1];
  g->c = op->outputs[0];
  int64_t groups = g->n / g->v;
  for (g->cg = 8;; g->cg /= 2) {
    g->blocks = (groups + g->cg - 1) / g->cg;
    if (g->cg == 2 || g->blocks >= GEMV_MIN_BLOCKS)
      break;
  }
  // The accumulators (M x V f32) and the loaded vectors share registers.
  g->unroll = g->m <= 2 ? GEMV_MAX_UNROLL : 4;
  return g->m >= 1 && g->m <= GEMV_MAX_ROWS && g->k >= SLICES &&
         g->n % g->v == 0 && g->blocks <= 65535 &&
         SLICES * g->m * g->cg * g->v * 4 <= MG_LOWER_STATIC_SMEM;
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

// "%r, %c" etc.: A and B may carry leading unit dims.
static void at2(const MgTensor *t, const char *row, const char *col,
                const char *zero, char *out, size_t size) {
  size_t n = 0;
  out[0] = '\0';
  for (uint32_t d = 0; d + 2 < t->rank; d++)
    n += (size_t)snprintf(out + n, size - n, "%s, ", zero);
  snprintf(out + n, size - n, "%s, %s", row, col);
}

// One FMA step of thread's k loop for the rows `ks[0..n)` of B: every load
// first (B's vectors, A's scalars), then the FMAs in k order. `acc` holds
// the M accumulators' names on entry and their new names on exit.
static void fma_rows(Emit *e, const Gemv *g, Name *ks, int64_t n,
                     const char *col, const char *c0, Name *acc) {
  const MgGraph *r = &e->p->graphs[0];
  const MgTensor *bt = &r->tensors[g->b], *atn = &r->tensors[g->a];
  char vf[32], vn[32], at[MG_MAX_DIMS * (NAME_LEN + 2)];
  snprintf(vf, sizeof vf, "vector<%lldxf32>", (long long)g->v);
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  Name braw[GEMV_MAX_UNROLL], araw[GEMV_MAX_UNROLL][GEMV_MAX_ROWS];
  for (int64_t u = 0; u < n; u++) {
    at2(bt, ks[u], col, c0, at, sizeof at);
    mg_lower_fresh(e, braw[u]);
    mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", braw[u], e->val[g->b],
                  at, e->type[g->b], vn);
    for (int64_t m = 0; m < g->m; m++) {
      Name row;
      mg_lower_index(e, m, row);
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
    }
  }
}

// scf.for `k` = `from` to `to` step `step` over the M accumulators `acc`
// (replaced by the loop's results); `unroll` rows per iteration, SLICES
// apart.
static void k_loop(Emit *e, const Gemv *g, const char *from, int64_t to,
                   int64_t step, int64_t unroll, const char *col,
                   const char *c0, Name *acc) {
  char vf[32];
  snprintf(vf, sizeof vf, "vector<%lldxf32>", (long long)g->v);
  Name hi, st, k, res;
  mg_lower_index(e, to, hi);
  mg_lower_index(e, step, st);
  mg_lower_fresh(e, res);
  mg_lower_fresh(e, k);
  char iters[GEMV_MAX_ROWS * 40] = "", types[GEMV_MAX_ROWS * 24] = "";
  size_t ni = 0, nt = 0;
  Name arg[GEMV_MAX_ROWS];
  for (int64_t m = 0; m < g->m; m++) {
    mg_lower_fresh(e, arg[m]);
    ni += (size_t)snprintf(iters + ni, sizeof iters - ni, "%s%s = %s",
                           m ? ", " : "", arg[m], acc[m]);
    nt += (size_t)snprintf(types + nt, sizeof types - nt, "%s%s",
                           m ? ", " : "", vf);
  }
  mg_lower_line(e, "%s:%lld = scf.for %s = %s to %s step %s iter_args(%s) -> "
                   "(%s) {", res, (long long)g->m, k, from, hi, st, iters,
                types);
  e->indent++;
  Name ks[GEMV_MAX_UNROLL];
  snprintf(ks[0], NAME_LEN, "%s", k);
  for (int64_t u = 1; u < unroll; u++) {
    Name off;
    mg_lower_index(e, u * SLICES, off);
    mg_lower_index_op(e, "arith.addi", k, off, ks[u]);
  }
  fma_rows(e, g, ks, unroll, col, c0, arg);
  char yields[GEMV_MAX_ROWS * 16] = "";
  size_t ny = 0;
  for (int64_t m = 0; m < g->m; m++)
    ny += (size_t)snprintf(yields + ny, sizeof yields - ny, "%s%s",
                           m ? ", " : "", arg[m]);
  mg_lower_line(e, "scf.yield %s : %s", yields, types);
  e->indent--;
  mg_lower_line(e, "}");
  // "%res#m": the loop's names are short ("%v123"), far below NAME_LEN.
  for (int64_t m = 0; m < g->m; m++) {
    int n = snprintf(acc[m], NAME_LEN, "%.12s#%d", res, (int)m);
    if (n < 0 || n >= NAME_LEN)
      e->error = "a GEMV accumulator name too long";
  }
}

// Phase 1 for thread `tid` of block `bid`: partial sums into `part`. The
// rows k = slice, slice + SLICES, ... are taken UNROLL at a time while a
// whole group remains, then one at a time: the same k order either way.
static void partials(Emit *e, const Gemv *g, const char *bid, const char *tid,
                     const char *part, const char *part_type) {
  Name cg, slice, groups, cgs, col, valid, zero, c0;
  mg_lower_index(e, g->cg, cgs);
  mg_lower_index(e, 0, c0);
  mg_lower_index_op(e, "arith.remui", tid, cgs, cg);
  mg_lower_index_op(e, "arith.divui", tid, cgs, slice);
  Name gbase, gidx, vw;
  mg_lower_index_op(e, "arith.muli", bid, cgs, gbase);
  mg_lower_index_op(e, "arith.addi", gbase, cg, gidx);
  mg_lower_index(e, g->v, vw);
  mg_lower_index_op(e, "arith.muli", gidx, vw, col);
  mg_lower_index(e, g->n / g->v, groups);
  mg_lower_index_op(e, "arith.cmpi ult,", gidx, groups, valid);
  mg_lower_line(e, "scf.if %s {", valid);
  e->indent++;
  char vf[32];
  snprintf(vf, sizeof vf, "vector<%lldxf32>", (long long)g->v);
  mg_lower_fresh(e, zero);
  mg_lower_line(e, "%s = arith.constant dense<0.0> : %s", zero, vf);
  Name acc[GEMV_MAX_ROWS];
  for (int64_t m = 0; m < g->m; m++)
    memcpy(acc[m], zero, sizeof zero);
  int64_t group = SLICES * g->unroll, whole = g->k / group * group;
  if (whole > 0)
    k_loop(e, g, slice, whole, group, g->unroll, col, c0, acc);
  if (whole < g->k) {
    Name from, w;
    mg_lower_index(e, whole, w);
    mg_lower_index_op(e, "arith.addi", slice, w, from);
    k_loop(e, g, from, g->k, SLICES, 1, col, c0, acc);
  }
  // part[slice, m, cg·V .. cg·V + V)
  Name off;
  mg_lower_index_op(e, "arith.muli", cg, vw, off);
  for (int64_t m = 0; m < g->m; m++) {
    Name row;
    mg_lower_index(e, m, row);
    mg_lower_line(e, "vector.store %s, %s[%s, %s, %s] : %s, %s", acc[m], part,
                  slice, row, off, part_type, vf);
  }
  e->indent--;
  mg_lower_line(e, "}");
}

// Phase 2: the block's outputs, each the slices' sum in slice order.
static void combine(Emit *e, const Gemv *g, const char *bid, const char *tid,
                    const char *part, const char *part_type) {
  const MgGraph *r = &e->p->graphs[0];
  int64_t width = g->cg * g->v, outs = g->m * width;
  Name n, step, idx, wd, m, c, base, col, nn, ok, c0;
  mg_lower_index(e, outs, n);
  mg_lower_index(e, SLICES * g->cg, step);
  mg_lower_index(e, 0, c0);
  mg_lower_fresh(e, idx);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", idx, tid, n, step);
  e->indent++;
  mg_lower_index(e, width, wd);
  mg_lower_index_op(e, "arith.divui", idx, wd, m);
  mg_lower_index_op(e, "arith.remui", idx, wd, c);
  mg_lower_index_op(e, "arith.muli", bid, wd, base);
  mg_lower_index_op(e, "arith.addi", base, c, col);
  mg_lower_index(e, g->n, nn);
  mg_lower_index_op(e, "arith.cmpi ult,", col, nn, ok);
  mg_lower_line(e, "scf.if %s {", ok);
  e->indent++;
  Name sum = "";
  for (int64_t s = 0; s < SLICES; s++) {
    Name si, v;
    mg_lower_index(e, s, si);
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = memref.load %s[%s, %s, %s] : %s", v, part, si, m,
                  c, part_type);
    if (s == 0) {
      snprintf(sum, NAME_LEN, "%s", v);
    } else {
      Name t;
      mg_lower_fresh(e, t);
      mg_lower_line(e, "%s = arith.addf %s, %s : f32", t, sum, v);
      snprintf(sum, NAME_LEN, "%s", t);
    }
  }
  const MgTensor *ct = &r->tensors[g->c];
  Name x;
  snprintf(x, NAME_LEN, "%s", sum);
  if (ct->dtype != MG_DTYPE_F32) {
    mg_lower_fresh(e, x);
    mg_lower_line(e, "%s = arith.truncf %s : f32 to %s", x, sum,
                  mg_lower_elt((MgDType)ct->dtype));
  }
  char at[MG_MAX_DIMS * (NAME_LEN + 2)];
  at2(ct, m, col, c0, at, sizeof at);
  mg_lower_line(e, "memref.store %s, %s[%s] : %s", x, e->val[g->c], at,
                e->type[g->c]);
  e->indent--;
  mg_lower_line(e, "}");
  e->indent--;
  mg_lower_line(e, "}");
}

// The partial sums' buffer: [slice][row][column of the block], f32, in
// workgroup memory on the GPU.
static void partials_type(const Gemv *g, bool gpu, char *out, size_t size) {
  snprintf(out, size, "memref<%dx%lldx%lldxf32%s%s>", SLICES, (long long)g->m,
           (long long)(g->cg * g->v), gpu ? ", " : "",
           gpu ? MG_LOWER_WORKGROUP : "");
}

void mg_lower_gemv(Emit *e, const MgOp *op, const char *part) {
  Gemv g;
  if (!gemv_shape(e->p, op, &g)) {
    e->error = "a matmul that is not a GEMV lowered as one";
    return;
  }
  char part_type[TYPE_LEN];
  partials_type(&g, e->mode != MG_LOWER_CPU, part_type, sizeof part_type);
  if (e->mode != MG_LOWER_CPU) {
    Name bid, tid;
    mg_lower_fresh(e, bid);
    mg_lower_line(e, "%s = gpu.block_id x", bid);
    mg_lower_fresh(e, tid);
    mg_lower_line(e, "%s = gpu.thread_id x", tid);
    partials(e, &g, bid, tid, part, part_type);
    mg_lower_line(e, "gpu.barrier");
    combine(e, &g, bid, tid, part, part_type);
    return;
  }
  // CPU: blocks, then each phase's threads, one after the other.
  Name buf, zero, one, nb, nt, bid, tid;
  mg_lower_fresh(e, buf);
  mg_lower_line(e, "%s = memref.alloc() : %s", buf, part_type);
  mg_lower_index(e, 0, zero);
  mg_lower_index(e, 1, one);
  mg_lower_index(e, g.blocks, nb);
  mg_lower_index(e, SLICES * g.cg, nt);
  mg_lower_fresh(e, bid);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", bid, zero, nb, one);
  e->indent++;
  for (int phase = 0; phase < 2; phase++) {
    mg_lower_fresh(e, tid);
    mg_lower_line(e, "scf.for %s = %s to %s step %s {", tid, zero, nt, one);
    e->indent++;
    if (phase == 0)
      partials(e, &g, bid, tid, buf, part_type);
    else
      combine(e, &g, bid, tid, buf, part_type);
    e->indent--;
    mg_lower_line(e, "}");
  }
  e->indent--;
  mg_lower_line(e, "}");
  mg_lower_line(e, "memref.dealloc %s : %s", buf, part_type);
}

int64_t mg_lower_gemv_smem(const MgProgram *p, MgOpId op, char *type,
                           size_t size) {
  Gemv g;
  if (!gemv_shape(p, &p->graphs[0].ops[op], &g))
    return 0;
  partials_type(&g, true, type, size);
  return SLICES * g.m * g.cg * g.v * 4;
}
