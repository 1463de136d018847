//===- gemv.c - A kernel-level matmul with few rows as a split-K GEMV -----===//
//
// C = A·B with A M x K (M <= 8 rows, the batch of a decoding step) and B
// K x N is a bandwidth problem: B's K·N elements are read once, and one
// output per thread (the generic predefined kernel) reads B column-wise,
// 2 bytes per thread per load. Here each block owns COLS_GROUPS groups of
// V adjacent columns (V: one 16-byte vector of B's row) and its threads
// split K: thread t takes column group t mod COLS_GROUPS and the rows
// k ≡ t / COLS_GROUPS (mod SLICES). Per row it loads one 16-byte vector of
// B (a warp covers 4 rows x 128 contiguous bytes) and A's M scalars, and
// accumulates M x V products in f32 registers (FMA). The SLICES partial
// sums of each output meet in shared memory after one barrier and are
// added in slice order by the thread that stores the output.
//
// The CPU form runs the same blocks and threads one after the other (the
// partial sums in a buffer), so the JIT checks the split and the order.
//
//===----------------------------------------------------------------------===//
#include "lower_internal.h"

#include <stdio.h>
#include <string.h>

#define GEMV_THREADS 256
#define COL_GROUPS 8
#define SLICES (GEMV_THREADS / COL_GROUPS)
#define GEMV_MAX_ROWS 8

typedef struct Gemv {
  int64_t m, k, n, v, blocks;
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
  g->blocks = (groups + COL_GROUPS - 1) / COL_GROUPS;
  return g->m >= 1 && g->m <= GEMV_MAX_ROWS && g->k >= SLICES &&
         g->n % g->v == 0 && g->blocks <= 65535 &&
         SLICES * g->m * COL_GROUPS * g->v * 4 <= MG_LOWER_STATIC_SMEM;
}

bool mg_lower_is_gemv(const MgProgram *p, MgOpId op, int64_t *blocks,
                      int64_t *threads) {
  Gemv g;
  if (!gemv_shape(p, &p->graphs[0].ops[op], &g))
    return false;
  *blocks = g.blocks;
  *threads = GEMV_THREADS;
  return true;
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

// Phase 1 for thread `tid` of block `bid`: partial sums into `part`.
static void partials(Emit *e, const Gemv *g, const char *bid, const char *tid,
                     const char *part, const char *part_type) {
  const MgGraph *r = &e->p->graphs[0];
  Name cg, slice, groups, cgs, col, valid, zero, c0;
  mg_lower_index(e, COL_GROUPS, cgs);
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
  char vf[32], vn[32];
  snprintf(vf, sizeof vf, "vector<%lldxf32>", (long long)g->v);
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  mg_lower_fresh(e, zero);
  mg_lower_line(e, "%s = arith.constant dense<0.0> : %s", zero, vf);
  Name kk, step, k, res, acc[GEMV_MAX_ROWS];
  mg_lower_index(e, g->k, kk);
  mg_lower_index(e, SLICES, step);
  mg_lower_fresh(e, res);
  mg_lower_fresh(e, k);
  char iters[GEMV_MAX_ROWS * 40] = "", types[GEMV_MAX_ROWS * 24] = "";
  size_t ni = 0, nt = 0;
  for (int64_t m = 0; m < g->m; m++) {
    mg_lower_fresh(e, acc[m]);
    ni += (size_t)snprintf(iters + ni, sizeof iters - ni, "%s%s = %s",
                           m ? ", " : "", acc[m], zero);
    nt += (size_t)snprintf(types + nt, sizeof types - nt, "%s%s",
                           m ? ", " : "", vf);
  }
  mg_lower_line(e, "%s:%lld = scf.for %s = %s to %s step %s iter_args(%s) -> "
                   "(%s) {", res, (long long)g->m, k, slice, kk, step, iters,
                types);
  e->indent++;
  char at[MG_MAX_DIMS * (NAME_LEN + 2)];
  const MgTensor *bt = &r->tensors[g->b], *atn = &r->tensors[g->a];
  at2(bt, k, col, c0, at, sizeof at);
  Name braw, bv;
  mg_lower_fresh(e, braw);
  mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", braw, e->val[g->b], at,
                e->type[g->b], vn);
  if (g->dt == MG_DTYPE_F32) {
    snprintf(bv, NAME_LEN, "%s", braw);
  } else {
    mg_lower_fresh(e, bv);
    mg_lower_line(e, "%s = arith.extf %s : %s to %s", bv, braw, vn, vf);
  }
  char yields[GEMV_MAX_ROWS * 16] = "";
  size_t ny = 0;
  for (int64_t m = 0; m < g->m; m++) {
    Name row, araw, a32, splat, next;
    mg_lower_index(e, m, row);
    at2(atn, row, k, c0, at, sizeof at);
    mg_lower_fresh(e, araw);
    mg_lower_line(e, "%s = memref.load %s[%s] : %s", araw, e->val[g->a], at,
                  e->type[g->a]);
    if (g->dt == MG_DTYPE_F32) {
      snprintf(a32, NAME_LEN, "%s", araw);
    } else {
      mg_lower_fresh(e, a32);
      mg_lower_line(e, "%s = arith.extf %s : %s to f32", a32, araw,
                    mg_lower_elt(g->dt));
    }
    mg_lower_fresh(e, splat);
    mg_lower_line(e, "%s = vector.broadcast %s : f32 to %s", splat, a32, vf);
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s = vector.fma %s, %s, %s : %s", next, splat, bv,
                  acc[m], vf);
    ny += (size_t)snprintf(yields + ny, sizeof yields - ny, "%s%s",
                           m ? ", " : "", next);
  }
  mg_lower_line(e, "scf.yield %s : %s", yields, types);
  e->indent--;
  mg_lower_line(e, "}");
  // part[slice, m, cg·V .. cg·V + V)
  Name off;
  mg_lower_index_op(e, "arith.muli", cg, vw, off);
  for (int64_t m = 0; m < g->m; m++) {
    Name row;
    mg_lower_index(e, m, row);
    mg_lower_line(e, "vector.store %s#%lld, %s[%s, %s, %s] : %s, %s", res,
                  (long long)m, part, slice, row, off, part_type, vf);
  }
  e->indent--;
  mg_lower_line(e, "}");
}

// Phase 2: the block's outputs, each the slices' sum in slice order.
static void combine(Emit *e, const Gemv *g, const char *bid, const char *tid,
                    const char *part, const char *part_type) {
  const MgGraph *r = &e->p->graphs[0];
  int64_t width = COL_GROUPS * g->v, outs = g->m * width;
  Name n, step, idx, wd, m, c, base, col, nn, ok, c0;
  mg_lower_index(e, outs, n);
  mg_lower_index(e, GEMV_THREADS, step);
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
           (long long)(COL_GROUPS * g->v), gpu ? ", " : "",
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
  mg_lower_index(e, GEMV_THREADS, nt);
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
  return SLICES * g.m * COL_GROUPS * g.v * 4;
}
