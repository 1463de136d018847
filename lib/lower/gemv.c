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
         g->cg * g->m * g->cg * g->v * 4 <= MG_LOWER_STATIC_SMEM;
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

// "a, b, c": the first `n` of `names` (the M accumulators' yields).
static void join_names(Name *names, int64_t n, char *out, size_t size) {
  size_t k = 0;
  out[0] = '\0';
  for (int64_t i = 0; i < n && k < size; i++)
    k += (size_t)snprintf(out + k, size - k, "%s%s", i ? ", " : "", names[i]);
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
  char yields[GEMV_MAX_ROWS * 16];
  join_names(arg, g->m, yields, sizeof yields);
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

// Where thread `tid` of block `bid` works: its column group, K slice,
// first column, and whether the column group exists (the last block may
// have fewer).
typedef struct Lane {
  Name cg, slice, col, valid, vw;
} Lane;

static void lane_of(Emit *e, const Gemv *g, const char *bid, const char *tid,
                    Lane *l) {
  Name cgs, gbase, gidx, groups;
  mg_lower_index(e, g->cg, cgs);
  mg_lower_index_op(e, "arith.remui", tid, cgs, l->cg);
  mg_lower_index_op(e, "arith.divui", tid, cgs, l->slice);
  mg_lower_index_op(e, "arith.muli", bid, cgs, gbase);
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
static void partials(Emit *e, const Gemv *g, const Lane *l, Name *acc) {
  char vf[32], types[GEMV_MAX_ROWS * 24] = "", zeros[GEMV_MAX_ROWS * 16] = "";
  snprintf(vf, sizeof vf, "vector<%lldxf32>", (long long)g->v);
  Name zero, c0, res;
  mg_lower_fresh(e, zero);
  mg_lower_line(e, "%s = arith.constant dense<0.0> : %s", zero, vf);
  mg_lower_index(e, 0, c0);
  size_t nt = 0, nz = 0;
  for (int64_t m = 0; m < g->m; m++) {
    nt += (size_t)snprintf(types + nt, sizeof types - nt, "%s%s",
                           m ? ", " : "", vf);
    nz += (size_t)snprintf(zeros + nz, sizeof zeros - nz, "%s%s",
                           m ? ", " : "", zero);
    memcpy(acc[m], zero, sizeof zero);
  }
  mg_lower_fresh(e, res);
  mg_lower_line(e, "%s:%lld = scf.if %s -> (%s) {", res, (long long)g->m,
                l->valid, types);
  e->indent++;
  int64_t group = SLICES * g->unroll, whole = g->k / group * group;
  if (whole > 0)
    k_loop(e, g, l->slice, whole, group, g->unroll, l->col, c0, acc);
  if (whole < g->k) {
    Name from, w;
    mg_lower_index(e, whole, w);
    mg_lower_index_op(e, "arith.addi", l->slice, w, from);
    k_loop(e, g, from, g->k, SLICES, 1, l->col, c0, acc);
  }
  char yields[GEMV_MAX_ROWS * 16];
  join_names(acc, g->m, yields, sizeof yields);
  mg_lower_line(e, "scf.yield %s : %s", yields, types);
  e->indent--;
  mg_lower_line(e, "} else {");
  mg_lower_line(e, "  scf.yield %s : %s", zeros, types);
  mg_lower_line(e, "}");
  for (int64_t m = 0; m < g->m; m++)
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
    Name v, at, ii, row, c, col;
    reg_get(e, w, i, v);
    mg_lower_index(e, i, ii);
    mg_lower_index_op(e, "arith.addi", pos, ii, at);
    mg_lower_index_op(e, "arith.divui", at, vw, row);
    mg_lower_index_op(e, "arith.remui", at, vw, c);
    mg_lower_index_op(e, "arith.addi", base, c, col);
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

// Phase 2: the block's outputs, each the warps' sums added in warp order.
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

// The warps' partial sums, f32 [warp][row][column of the block]: in
// workgroup memory on the GPU.
static void partials_type(const Gemv *g, bool gpu, char *out, size_t size) {
  snprintf(out, size, "memref<%lldx%lldx%lldxf32%s%s>", (long long)g->cg,
           (long long)g->m,
           (long long)(g->cg * g->v), gpu ? ", " : "",
           gpu ? MG_LOWER_WORKGROUP : "");
}

void mg_lower_gemv(Emit *e, const MgOp *op, const char *part) {
  Gemv g;
  if (!gemv_shape(e->p, op, &g)) {
    e->error = "a matmul that is not a GEMV lowered as one";
    return;
  }
  bool cpu = e->mode == MG_LOWER_CPU;
  char part_type[TYPE_LEN];
  partials_type(&g, !cpu, part_type, sizeof part_type);
  Name acc[GEMV_MAX_ROWS], bid;
  Lane l;
  Warp w = {.g = &g, .cpu = cpu, .n = g.m * g.v};
  int64_t threads = SLICES * g.cg;
  if (!cpu) {
    mg_lower_fresh(e, bid);
    mg_lower_line(e, "%s = gpu.block_id x", bid);
    mg_lower_fresh(e, w.tid);
    mg_lower_line(e, "%s = gpu.thread_id x", w.tid);
    lane_of(e, &g, bid, w.tid, &l);
    partials(e, &g, &l, acc);
    warp_start(e, &w, &l, acc);
    warp_meet(e, &w, part, part_type);
    mg_lower_line(e, "gpu.barrier");
    combine(e, &g, bid, w.tid, part, part_type);
    return;
  }
  // CPU: blocks, then each segment's threads, one after the other.
  static const char *const bufs[] = {"f32", "f32", "index", "i1"};
  Name *names[] = {&w.regs, &w.xchg, &w.posb, &w.flagb};
  snprintf(w.regs_type, sizeof w.regs_type, "memref<%lldx%lldxf32>",
           (long long)threads, (long long)w.n);
  Name buf, zero, one, nb;
  mg_lower_fresh(e, buf);
  mg_lower_line(e, "%s = memref.alloc() : %s", buf, part_type);
  for (int i = 0; i < 4; i++) {
    mg_lower_fresh(e, *names[i]);
    if (i < 2)
      mg_lower_line(e, "%s = memref.alloc() : %s", *names[i], w.regs_type);
    else
      mg_lower_line(e, "%s = memref.alloc() : memref<%lldx%s>", *names[i],
                    (long long)threads, bufs[i]);
  }
  mg_lower_index(e, 0, zero);
  mg_lower_index(e, 1, one);
  mg_lower_index(e, g.blocks, nb);
  mg_lower_fresh(e, bid);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", bid, zero, nb, one);
  e->indent++;
  lanes_open(e, &w);
  lane_of(e, &g, bid, w.tid, &l);
  partials(e, &g, &l, acc);
  warp_start(e, &w, &l, acc);
  lanes_close(e, &w);
  warp_meet(e, &w, buf, part_type);
  lanes_open(e, &w);
  combine(e, &g, bid, w.tid, buf, part_type);
  lanes_close(e, &w);
  e->indent--;
  mg_lower_line(e, "}");
  mg_lower_line(e, "memref.dealloc %s : %s", buf, part_type);
  for (int i = 0; i < 4; i++)
    if (i < 2)
      mg_lower_line(e, "memref.dealloc %s : %s", *names[i], w.regs_type);
    else
      mg_lower_line(e, "memref.dealloc %s : memref<%lldx%s>", *names[i],
                    (long long)threads, bufs[i]);
}

int64_t mg_lower_gemv_smem(const MgProgram *p, MgOpId op, char *type,
                           size_t size) {
  Gemv g;
  if (!gemv_shape(p, &p->graphs[0].ops[op], &g))
    return 0;
  partials_type(&g, true, type, size);
  return g.cg * g.m * g.cg * g.v * 4;
}
