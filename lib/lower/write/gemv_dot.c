//===- gemv_dot.c - A GEMV whose B is stored transposed: dot products -----===//
//
// The dot form of gemv.c's GEMV (its shape, warps and shuffle stages are
// gemv.c's, through gemv.h): see the comment below.
//
//===----------------------------------------------------------------------===//
#include "write/gemv.h"

#include <stdio.h>
#include <string.h>

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
#define DOT_MAX_SUMS 32   // a lane's M·C sums
#define DOT_MAX_PIECES 8  // V / accw

// What a thread's products read: B's stored rows (dot_stored_b), A's
// chunk in shared memory (dot_stage_a), its lane and first column
// (dot_lane).
typedef struct DotIn {
  Memref bt, smem;
  Name lane, col0;
} DotIn;

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
                        const char *ch, const Memref *smem) {
  const MgTensor *at = &e->p->graphs[0].tensors[g->a];
  int64_t per_row = g->chunk / g->v;
  Name mj[2], vw, kk, k, c0;
  const char *m = mj[0], *j = mj[1];
  char vn[32], from[MG_MAX_DIMS * (NAME_LEN + 2)];
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  mg_lower_index(e, 0, c0);
  mg_gemv_strided_items_begin(e, g, tid, g->m * per_row, per_row, mj);
  mg_lower_index(e, g->v, vw);
  mg_lower_index_op(e, "arith.muli", j, vw, kk);
  mg_lower_index_op(e, "arith.addi", ch, kk, k);
  mg_gemv_at2(at, m, k, c0, from, sizeof from);
  Name x;
  mg_lower_fresh(e, x);
  mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", x, e->val[g->a], from,
                e->type[g->a], vn);
  mg_lower_line(e, "vector.store %s, %s[%s, %s] : %s, %s", x, smem->val, m,
                kk, smem->type, vn);
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
static void dot_products(Emit *e, const Gemv *g, const DotIn *in,
                         const char *ch, Name *acc) {
  Name vw, kk, k, c0;
  char vn[32];
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  mg_lower_index(e, g->v, vw);
  mg_lower_index_op(e, "arith.muli", in->lane, vw, kk);
  mg_lower_index_op(e, "arith.addi", ch, kk, k);
  mg_lower_index(e, 0, c0);
  const MgTensor *btn = &e->p->graphs[0].tensors[g->b];
  Name w[DOT_MAX_ROWS];
  for (int64_t c = 0; c < g->cols; c++) { // W's rows first: DRAM
    Name ci, col;
    char at[MG_MAX_DIMS * (NAME_LEN + 2)];
    mg_lower_index(e, c, ci);
    mg_lower_index_op(e, "arith.addi", in->col0, ci, col);
    mg_gemv_at2(btn, col, k, c0, at, sizeof at);
    mg_lower_fresh(e, w[c]);
    mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", w[c], in->bt.val,
                  at, in->bt.type, vn);
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
    mg_lower_line(e, "%s = vector.load %s[%s, %s] : %s, %s", x, in->smem.val,
                  mi, kk, in->smem.type, vn);
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
  mg_gemv_lanes_open(e, w);
  Name flag, pos, lane, col0, cs;
  mg_gemv_state_get(e, w, 1, flag);
  mg_gemv_state_get(e, w, 0, pos);
  dot_lane(e, g, bid, w->tid, lane, col0);
  mg_lower_index(e, g->cols, cs);
  mg_lower_line(e, "scf.if %s {", flag);
  e->indent++;
  const HeldAt at = {pos, cs, col0};
  for (int64_t i = 0; i < w->n; i++) {
    Name v, mc[2];
    mg_gemv_held_value(e, w, &at, i, v, mc);
    mg_gemv_store_output(e, g, mc[0], mc[1], v);
  }
  e->indent--;
  mg_lower_line(e, "}");
  mg_gemv_lanes_close(e, w);
}

// B's stored rows: its view transposed back in the last two dims (unit
// stride along K, as vector.load needs).
static void dot_stored_b(Emit *e, const Gemv *g, Memref *bt) {
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
  snprintf(bt->type, TYPE_LEN, "%.*s, strided<[%s]>>",
           (int)strlen(dense) - 1, dense, strides);
  mg_lower_fresh(e, bt->val);
  mg_lower_line(e, "%s = memref.transpose %s %s : %s to %s", bt->val,
                e->val[g->b], map, e->type[g->b], bt->type);
}

void mg_gemv_dot_gpu(Emit *e, const Gemv *g, const char *smem) {
  char types[DOT_MAX_SUMS * 20] = "";
  DotIn in;
  snprintf(in.smem.val, NAME_LEN, "%s", smem);
  mg_gemv_dot_smem_type(g, true, in.smem.type, sizeof in.smem.type);
  Warp w = {.g = g, .cpu = false, .n = g->m * g->cols};
  Name bid, zero, lo, hi, st, ch, res;
  mg_lower_fresh(e, bid);
  mg_lower_line(e, "%s = gpu.block_id x", bid);
  mg_lower_fresh(e, w.tid);
  mg_lower_line(e, "%s = gpu.thread_id x", w.tid);
  dot_lane(e, g, bid, w.tid, in.lane, in.col0);
  dot_stored_b(e, g, &in.bt);
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
  dot_stage_a(e, g, w.tid, ch, &in.smem);
  mg_lower_line(e, "gpu.barrier");
  dot_products(e, g, &in, ch, acc);
  mg_lower_line(e, "gpu.barrier");
  char yields[DOT_MAX_SUMS * 16];
  mg_gemv_join_names(acc, w.n, yields, sizeof yields);
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
  mg_gemv_state_set(e, &w, 0, lo);
  mg_gemv_state_set(e, &w, 1, t);
  for (int64_t o = 16; o >= 1; o /= 2)
    mg_gemv_meet_stage(e, &w, o);
  dot_store(e, &w, bid);
}

// The CPU form's partial accumulator `i` of the current thread in `accb`:
// stores `set` when given, else loads it into `get`.
static void acc_at(Emit *e, const Warp *w, const Memref *accb, int64_t i,
                   const char *set, char *get) {
  Name ii, c0;
  mg_lower_index(e, i, ii);
  mg_lower_index(e, 0, c0);
  if (set) {
    mg_lower_line(e, "vector.store %s, %s[%s, %s, %s] : %s, vector<%dxf32>",
                  set, accb->val, w->tid, ii, c0, accb->type, w->g->accw);
    return;
  }
  mg_lower_fresh(e, get);
  mg_lower_line(e, "%s = vector.load %s[%s, %s, %s] : %s, vector<%dxf32>",
                get, accb->val, w->tid, ii, c0, accb->type, w->g->accw);
}

// The CPU form: blocks, then each segment's threads one after the other;
// a thread's sums live in a buffer between segments.
void mg_gemv_dot_cpu(Emit *e, const Gemv *g) {
  DotIn in;
  mg_gemv_dot_smem_type(g, false, in.smem.type, sizeof in.smem.type);
  Warp w = {.g = g, .cpu = true, .n = g->m * g->cols};
  Name zero, bid, fz, lo, hi, st, ch, t;
  mg_gemv_cpu_buffers_alloc(e, &w, in.smem.val, in.smem.type);
  // The lanes' partial accumulators between segments: [thread][sum][lane].
  Memref accb;
  snprintf(accb.type, sizeof accb.type, "memref<%lldx%lldx%dxf32>",
           (long long)(SLICES * g->cg), (long long)w.n, g->accw);
  mg_lower_fresh(e, accb.val);
  mg_lower_line(e, "%s = memref.alloc() : %s", accb.val, accb.type);
  dot_stored_b(e, g, &in.bt);
  mg_lower_fresh(e, fz);
  mg_lower_line(e, "%s = arith.constant dense<0.0> : vector<%dxf32>", fz,
                g->accw);
  mg_lower_fresh(e, t);
  mg_lower_line(e, "%s = arith.constant true", t);
  mg_lower_index(e, 0, zero);
  mg_gemv_cpu_blocks_begin(e, g, bid);
  mg_gemv_lanes_open(e, &w);
  for (int64_t i = 0; i < w.n; i++)
    acc_at(e, &w, &accb, i, fz, NULL);
  mg_gemv_state_set(e, &w, 0, zero);
  mg_gemv_state_set(e, &w, 1, t);
  mg_gemv_lanes_close(e, &w);
  mg_lower_index(e, 0, lo);
  mg_lower_index(e, g->k, hi);
  mg_lower_index(e, g->chunk, st);
  mg_lower_fresh(e, ch);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", ch, lo, hi, st);
  e->indent++;
  mg_gemv_lanes_open(e, &w);
  dot_stage_a(e, g, w.tid, ch, &in.smem);
  mg_gemv_lanes_close(e, &w);
  mg_gemv_lanes_open(e, &w);
  Name acc[DOT_MAX_SUMS];
  dot_lane(e, g, bid, w.tid, in.lane, in.col0);
  for (int64_t i = 0; i < w.n; i++)
    acc_at(e, &w, &accb, i, NULL, acc[i]);
  dot_products(e, g, &in, ch, acc);
  for (int64_t i = 0; i < w.n; i++)
    acc_at(e, &w, &accb, i, acc[i], NULL);
  mg_gemv_lanes_close(e, &w);
  e->indent--;
  mg_lower_line(e, "}");
  mg_gemv_lanes_open(e, &w); // the partial sums summed: the lanes' values
  for (int64_t i = 0; i < w.n; i++) {
    Name v, s;
    acc_at(e, &w, &accb, i, NULL, v);
    dot_reduce(e, g, v, s);
    mg_gemv_reg_set(e, &w, i, s);
  }
  mg_gemv_lanes_close(e, &w);
  for (int64_t o = 16; o >= 1; o /= 2)
    mg_gemv_meet_stage(e, &w, o);
  dot_store(e, &w, bid);
  e->indent--;
  mg_lower_line(e, "}");
  mg_lower_line(e, "memref.dealloc %s : %s", accb.val, accb.type);
  mg_gemv_cpu_buffers_free(e, &w, in.smem.val, in.smem.type);
}

