//===- ops.c - Each op kind as loops over its result's elements -----------===//
//
// An op's result elements are split over the threads (or, on the CPU, run
// in order) by a strided scf.for over the linear index, delinearized
// row-major; its trip count does not depend on the thread (a bounds check
// takes the tail), so the copies it makes can be unrolled. Operands broadcast size-1 dims right-aligned, as lib/interp
// does. Arithmetic is f32: loads extend, stores truncate to the tensor's
// element type. Reductions (matmul's k, SUM's and REDUCE_MAX's dim, the
// last dim of the SUM_LAST accumulators) run sequentially per result
// element, or cooperatively (below). The max and online accumulators are
// online.c's, kernel-level view ops views.c's; the element loops and loads
// and stores here are shared with them (elements.c, write.h).
//
//===----------------------------------------------------------------------===//
#include "write/write.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const MgTensor *tensor(Emit *e, MgTensorId id) {
  return &e->g->tensors[id];
}

// How a reduction combines its terms. Sums start from 0 and add; maxima
// start from -inf and take arith.maximumf: maximumf(-inf, x) = x for every
// x, NaN included, so this is the interpreter's start from the first term.
// maximumf is associative, so the lanes' order only matters for sums.
typedef enum Combine { COMBINE_ADD, COMBINE_MAX } Combine;

static void combine(Emit *e, Combine how, const char *a, const char *b,
                    Name out) {
  mg_lower_binary(e, how == COMBINE_MAX ? "arith.maximumf" : "arith.addf", a, b, out);
}

static void combine_init(Emit *e, Combine how, Name out) {
  if (how == COMBINE_ADD) {
    mg_lower_f32_const(e, 0.0, out);
    return;
  }
  mg_lower_fresh(e, out); // -inf ("%e" would print "-inf")
  mg_lower_line(e, "%s = arith.constant 0xFF800000 : f32", out);
}

// A term at index k of dim `dim` of tile t, kept as it is unless that dim
// holds the rows of a for-loop over a symbol and k is past the rows this
// iteration has: then the reduction's neutral element (0, or -inf), as
// the interpreter's shorter last tile gives (docs/verification.md §4c).
// A select, so whatever the padding rows hold never reaches the result.
static void mask_term(Emit *e, MgTensorId t, uint32_t dim, const char *k,
                      Combine how, Name x) {
  if (!e->loop_dims || !((e->loop_dims[t] >> dim) & 1u))
    return;
  Name inside, neutral, kept;
  mg_lower_index_op(e, "arith.cmpi ult,", k, e->loop_valid, inside);
  combine_init(e, how, neutral);
  mg_lower_fresh(e, kept);
  mg_lower_line(e, "%s = arith.select %s, %s, %s : f32", kept, inside, x,
                neutral);
  snprintf(x, NAME_LEN, "%s", kept);
}

static void elementwise(Emit *e, const MgOp *op) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  Index idx;
  mg_lower_elems_begin(e, out, idx);
  Name a, b = "", r;
  mg_lower_load(e, op->inputs[0], idx, out->rank, a);
  if (op->num_inputs > 1)
    mg_lower_load(e, op->inputs[1], idx, out->rank, b);
  if (!mg_lower_scalar(e, (MgOpKind)op->kind, op->scalar, a, b, r))
    e->error = "an op kind the lowering does not know";
  else
    mg_lower_store(e, op->outputs[0], idx, r);
  mg_lower_elems_end(e);
}

// Opens `scf.for %k = 0 to n iter_args(%acc = init) -> (f32)` (init: 0
// or -inf); the caller yields the new value and closes it with close_sum,
// which names the result.
static void open_sum(Emit *e, Combine how, int64_t n, Name k, Name acc,
                     Name result) {
  Name zero, upper, one;
  combine_init(e, how, zero);
  mg_lower_index(e, n, upper);
  mg_lower_index(e, 1, one);
  Name lo;
  mg_lower_index(e, 0, lo);
  mg_lower_fresh(e, result);
  mg_lower_fresh(e, k);
  mg_lower_fresh(e, acc);
  mg_lower_line(e, "%s = scf.for %s = %s to %s step %s iter_args(%s = %s) "
                   "-> (f32) {", result, k, lo, upper, one, acc, zero);
  e->indent++;
}

static void close_sum(Emit *e, const char *next) {
  mg_lower_line(e, "scf.yield %s : f32", next);
  e->indent--;
  mg_lower_line(e, "}");
}

//===--- Cooperative reductions -------------------------------------------===//
//
// A reduction of n >= 32 terms per result element, when the block has
// fewer result elements than threads (most would sit idle), is done by a
// group of G = 32·m threads per element: lane l of the group sums the terms
// k ≡ l (mod G) in order; each warp combines its 32 partial sums by an xor
// butterfly of shuffles (offsets 16, 8, 4, 2, 1: lane l adds lane l^o's
// value to its own); with m > 1 warps per element, the first lane of each
// warp puts its sum in shared memory and the group's first thread adds the
// m sums in warp order. m > 1 only when the element count times m is the
// warp count, so every warp runs the element loop exactly once and the
// barrier inside it is uniform. The CPU form makes the same choices and
// runs the same additions in the same order, its lanes a loop over a buffer,
// so `mirage-run --lower` checks this arithmetic too. REDUCE_MAX takes
// the same path with maxima for the additions (Combine).

/// One term of a reduction at index `k` (f32 into `out`).
typedef void (*TermFn)(Emit *e, const void *ctx, const char *k, Name out);

// A reduction's `n` terms: term k is fn(ctx, k).
typedef struct Terms {
  int64_t n;
  TermFn fn;
  const void *ctx;
} Terms;

typedef struct Coop {
  int64_t m, group;  // warps per element; threads per element (32·m)
  Combine how;       // sums or maxima
  Name gid, glane, lane, warp, buf;
} Coop;

static void i32_const(Emit *e, int64_t v, Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = arith.constant %lld : i32", out, (long long)v);
}

// Opens the element loop over `t` with one group of threads per element.
static void coop_begin(Emit *e, const MgTensor *t, int64_t m, Combine how,
                       Index idx, Coop *c) {
  c->m = m;
  c->how = how;
  c->group = 32 * m;
  Name g;
  mg_lower_index(e, c->group, g);
  if (e->mode == MG_LOWER_CPU) {
    // Hoisted: an alloca inside the loop would grow the stack per element.
    mg_lower_fresh(e, c->buf);
    mg_lower_line(e, "%s = memref.alloca() : memref<%lldxf32>", c->buf,
                  (long long)c->group);
    // The groups one after the other, each with the GPU's element split.
    int64_t step_value = e->step_value;
    e->step_value = e->coop_threads / c->group;
    mg_lower_elems_begin(e, t, idx);
    e->step_value = step_value;
    return;
  }
  Name c32, ngroups;
  mg_lower_index(e, 32, c32);
  mg_lower_fresh(e, c->gid);
  mg_lower_line(e, "%s = arith.divui %s, %s : index", c->gid, e->tid, g);
  mg_lower_fresh(e, c->glane);
  mg_lower_line(e, "%s = arith.remui %s, %s : index", c->glane, e->tid, g);
  mg_lower_fresh(e, c->lane);
  mg_lower_line(e, "%s = arith.remui %s, %s : index", c->lane, e->tid, c32);
  mg_lower_fresh(e, c->warp);
  mg_lower_line(e, "%s = arith.divui %s, %s : index", c->warp, e->tid, c32);
  mg_lower_index(e, e->coop_threads / c->group, ngroups);
  Name lo, step;
  snprintf(lo, NAME_LEN, "%s", e->lo);
  snprintf(step, NAME_LEN, "%s", e->step);
  int64_t step_value = e->step_value;
  snprintf(e->lo, NAME_LEN, "%s", c->gid);
  snprintf(e->step, NAME_LEN, "%s", ngroups);
  e->step_value = e->coop_threads / c->group;
  mg_lower_elems_begin(e, t, idx);
  snprintf(e->lo, NAME_LEN, "%s", lo);
  snprintf(e->step, NAME_LEN, "%s", step);
  e->step_value = step_value;
}

// Σ_{k<n} term(k) (or the max) over `first`, `first` + G, ... in order
// (one lane of `c`'s group of G).
static void lane_sum(Emit *e, const Coop *c, Terms t, const char *first,
                     Name out) {
  Combine how = c->how;
  Name zero, upper, step, k, acc, x, s;
  combine_init(e, how, zero);
  mg_lower_index(e, t.n, upper);
  mg_lower_index(e, c->group, step);
  mg_lower_fresh(e, out);
  mg_lower_fresh(e, k);
  mg_lower_fresh(e, acc);
  mg_lower_line(e, "%s = scf.for %s = %s to %s step %s iter_args(%s = %s) "
                   "-> (f32) {", out, k, first, upper, step, acc, zero);
  e->indent++;
  t.fn(e, t.ctx, k, x);
  combine(e, how, acc, x, s);
  mg_lower_line(e, "scf.yield %s : f32", s);
  e->indent--;
  mg_lower_line(e, "}");
}

// buf[w·32 + l] ⊕= buf[w·32 + l + o] for l < o, o = 16 .. 1: the butterfly
// as lane 0's value sees it (CPU form).
static void cpu_butterfly(Emit *e, const Coop *c) {
  Name zero, one;
  mg_lower_index(e, 0, zero);
  mg_lower_index(e, 1, one);
  for (int64_t w = 0; w < c->m; w++)
    for (int64_t o = 16; o >= 1; o /= 2) {
      Name hi, l, base, i, j, a, b, r, off;
      mg_lower_index(e, o, hi);
      mg_lower_fresh(e, l);
      mg_lower_line(e, "scf.for %s = %s to %s step %s {", l, zero, hi, one);
      e->indent++;
      mg_lower_index(e, w * 32, base);
      mg_lower_fresh(e, i);
      mg_lower_line(e, "%s = arith.addi %s, %s : index", i, l, base);
      mg_lower_index(e, o, off);
      mg_lower_fresh(e, j);
      mg_lower_line(e, "%s = arith.addi %s, %s : index", j, i, off);
      mg_lower_fresh(e, a);
      mg_lower_line(e, "%s = memref.load %s[%s] : memref<%lldxf32>", a, c->buf,
                    i, (long long)c->group);
      mg_lower_fresh(e, b);
      mg_lower_line(e, "%s = memref.load %s[%s] : memref<%lldxf32>", b, c->buf,
                    j, (long long)c->group);
      combine(e, c->how, a, b, r);
      mg_lower_line(e, "memref.store %s, %s[%s] : memref<%lldxf32>", r,
                    c->buf, i, (long long)c->group);
      e->indent--;
      mg_lower_line(e, "}");
    }
}

// Indices `base` + w·`stride` for w < `count` (`base` NULL: 0).
typedef struct Strided {
  const char *base;
  int64_t count, stride;
} Strided;

// out = v_0 ⊕ v_1 ⊕ ... in order, v_w loaded from `mem` (of type `type`)
// at index w of `at`.
static void sum_in_order(Emit *e, Combine how, const char *mem,
                         const char *type, Strided at, Name out) {
  for (int64_t w = 0; w < at.count; w++) {
    Name i, v;
    mg_lower_index(e, w * at.stride, i);
    if (at.base) {
      Name off;
      snprintf(off, NAME_LEN, "%s", i);
      mg_lower_fresh(e, i);
      mg_lower_line(e, "%s = arith.addi %s, %s : index", i, at.base, off);
    }
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = memref.load %s[%s] : %s", v, mem, i, type);
    if (w == 0) {
      snprintf(out, NAME_LEN, "%s", v);
    } else {
      Name sum;
      combine(e, how, out, v, sum);
      snprintf(out, NAME_LEN, "%s", sum);
    }
  }
}

// The element's total into `out`, valid up to coop_end: on the GPU inside
// an scf.if on the thread that stores it.
static void coop_reduce(Emit *e, const Coop *c, Terms t, Name out) {
  char buf_type[48];
  snprintf(buf_type, sizeof buf_type, "memref<%lldxf32>",
           (long long)c->group);
  if (e->mode == MG_LOWER_CPU) {
    Name zero, g, one, l, p;
    mg_lower_index(e, 0, zero);
    mg_lower_index(e, c->group, g);
    mg_lower_index(e, 1, one);
    mg_lower_fresh(e, l);
    mg_lower_line(e, "scf.for %s = %s to %s step %s {", l, zero, g, one);
    e->indent++;
    lane_sum(e, c, t, l, p);
    mg_lower_line(e, "memref.store %s, %s[%s] : %s", p, c->buf, l, buf_type);
    e->indent--;
    mg_lower_line(e, "}");
    cpu_butterfly(e, c);
    sum_in_order(e, c->how, c->buf, buf_type, (Strided){NULL, c->m, 32}, out);
    return;
  }
  Name p, width, zero;
  lane_sum(e, c, t, c->glane, p);
  i32_const(e, 32, width);
  for (int64_t o = 16; o >= 1; o /= 2) {
    Name off, sh, valid, s;
    i32_const(e, o, off);
    mg_lower_fresh(e, sh);
    mg_lower_fresh(e, valid);
    mg_lower_line(e, "%s, %s = gpu.shuffle xor %s, %s, %s : f32", sh, valid,
                  p, off, width);
    combine(e, c->how, p, sh, s); // shuffles move bits: NaN travels
    snprintf(p, NAME_LEN, "%s", s);
  }
  mg_lower_index(e, 0, zero);
  char red_type[64];
  snprintf(red_type, sizeof red_type, "memref<%lldxf32, %s>",
           (long long)(e->coop_threads / 32), MG_LOWER_WORKGROUP);
  if (c->m > 1) {
    Name first_lane;
    mg_lower_fresh(e, first_lane);
    mg_lower_line(e, "%s = arith.cmpi eq, %s, %s : index", first_lane,
                  c->lane, zero);
    mg_lower_line(e, "scf.if %s {", first_lane);
    mg_lower_line(e, "  memref.store %s, %s[%s] : %s", p, e->scratch, c->warp,
                  red_type);
    mg_lower_line(e, "}");
    mg_lower_line(e, "gpu.barrier");
  }
  Name leader;
  mg_lower_fresh(e, leader);
  mg_lower_line(e, "%s = arith.cmpi eq, %s, %s : index", leader, c->glane,
                zero);
  mg_lower_line(e, "scf.if %s {", leader);
  e->indent++;
  if (c->m == 1) {
    snprintf(out, NAME_LEN, "%s", p);
    return;
  }
  Name mm, base;
  mg_lower_index(e, c->m, mm);
  mg_lower_fresh(e, base);
  mg_lower_line(e, "%s = arith.muli %s, %s : index", base, c->gid, mm);
  sum_in_order(e, c->how, e->scratch, red_type, (Strided){base, c->m, 1},
               out);
}

static void coop_end(Emit *e) {
  if (e->mode != MG_LOWER_CPU) {
    e->indent--;
    mg_lower_line(e, "}");
  }
  mg_lower_elems_end(e);
}

// Terms of the three reductions.
typedef struct RowTerm { // in[at with at[dim] = k], squared or not
  MgTensorId in;
  const Name *at;
  uint32_t dim;
  bool square;
  Combine how;
} RowTerm;

static void row_term(Emit *e, const void *ctx, const char *k, Name out) {
  const RowTerm *r = ctx;
  Index at;
  memcpy(at, r->at, sizeof at);
  snprintf(at[r->dim], NAME_LEN, "%s", k);
  Name x;
  mg_lower_load_at(e, r->in, at, x);
  if (r->square)
    mg_lower_binary(e, "arith.mulf", x, x, out);
  else
    snprintf(out, NAME_LEN, "%s", x);
  mask_term(e, r->in, r->dim, k, r->how, out);
}

typedef struct DotTerm { // a[.., i, k] · b[.., k, j]
  MgTensorId a, b;
  const Name *ia, *ib;
} DotTerm;

static void dot_term(Emit *e, const void *ctx, const char *k, Name out) {
  const DotTerm *d = ctx;
  const MgTensor *a = tensor(e, d->a), *b = tensor(e, d->b);
  Index ia, ib;
  memcpy(ia, d->ia, sizeof ia);
  memcpy(ib, d->ib, sizeof ib);
  snprintf(ia[a->rank - 1], NAME_LEN, "%s", k);
  snprintf(ib[b->rank - 2], NAME_LEN, "%s", k);
  Name x, y;
  mg_lower_load_at(e, d->a, ia, x);
  mg_lower_load_at(e, d->b, ib, y);
  mg_lower_binary(e, "arith.mulf", x, y, out);
  mask_term(e, d->a, a->rank - 1, k, COMBINE_ADD, out);
}

// Operand indices of matmul for result element `idx` (k filled per term).
static void dot_indices(Emit *e, const MgOp *op, Index idx, Index ia,
                        Index ib) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  const MgTensor *a = tensor(e, op->inputs[0]), *b = tensor(e, op->inputs[1]);
  mg_lower_broadcast(e, a, idx, out->rank, ia); // batch dims; the last two below
  mg_lower_broadcast(e, b, idx, out->rank, ib);
  snprintf(ia[a->rank - 2], NAME_LEN, "%s", idx[out->rank - 2]);
  snprintf(ib[b->rank - 1], NAME_LEN, "%s", idx[out->rank - 1]);
}

static void add_to_accum(Emit *e, const void *ctx, Index idx, const char *v);

// An element-wise chain: n ops, each one's result stored where keep says,
// over a result of rank `rank`.
typedef struct Chain {
  const MgOp *const *ops;
  uint32_t n;
  const bool *keep;
  uint32_t rank;
} Chain;

// The chain's ops at element `idx`: an operand an earlier member made
// comes from its register, `pre` (when not NULL) is the value of ops[0]'s
// result, the rest is loaded.
static void chain_at(Emit *e, const Chain *ch, Index idx, const char *pre) {
  const MgOp *const *ops = ch->ops;
  uint32_t n = ch->n, rank = ch->rank;
  const bool *keep = ch->keep;
  Name regs[64];
  for (uint32_t c = 0; c < n && c < 64; c++) {
    const MgOp *op = ops[c];
    if (c == 0 && pre) {
      snprintf(regs[0], NAME_LEN, "%s", pre);
    } else if (op->kind == MG_OP_ACCUM) {
      // A sum accumulator folded into the chain (decide/schedule.c): the member's
      // value goes straight into it, never to a tile.
      for (uint32_t j = 0; j < c; j++)
        if (ops[j]->outputs[0] == op->inputs[0])
          add_to_accum(e, op, idx, regs[j]);
      continue;
    } else {
      Name in[2] = {"", ""};
      for (uint32_t k = 0; k < op->num_inputs && k < 2; k++) {
        int32_t from = -1;
        for (uint32_t j = 0; j < c; j++)
          if (ops[j]->outputs[0] == op->inputs[k])
            from = (int32_t)j;
        if (from >= 0)
          snprintf(in[k], NAME_LEN, "%s", regs[from]);
        else
          mg_lower_load(e, op->inputs[k], idx, rank, in[k]);
      }
      mg_lower_scalar(e, (MgOpKind)op->kind, op->scalar, in[0], in[1], regs[c]);
    }
    if (keep[c])
      mg_lower_store(e, op->outputs[0], idx, regs[c]);
  }
}

// The matmul's result elements; each finishes with `finish` (store, or
// add into an accumulator). Tensor cores where mg_lower_mma_plan says so
// (mma.c), else a dot product per element on the FP32 lanes.
static void matmul_into(Emit *e, const MgOp *op, const void *dest,
                        FinishFn finish) {
  if (mg_lower_matmul_mma(e, op, dest, finish))
    return;
  const MgTensor *out = tensor(e, op->outputs[0]);
  const MgTensor *a = tensor(e, op->inputs[0]);
  int64_t n = a->dims[a->rank - 1];
  Index idx, ia, ib;
  int64_t m = mg_lower_coop_warps(e, mg_tensor_numel(out), n);
  Coop c;
  if (m)
    coop_begin(e, out, m, COMBINE_ADD, idx, &c);
  else
    mg_lower_elems_begin(e, out, idx);
  dot_indices(e, op, idx, ia, ib);
  DotTerm d = {op->inputs[0], op->inputs[1], ia, ib};
  Name sum;
  if (m) {
    coop_reduce(e, &c, (Terms){n, dot_term, &d}, sum);
    finish(e, dest, idx, sum);
    coop_end(e);
    return;
  }
  Name k, acc, x, s;
  open_sum(e, COMBINE_ADD, n, k, acc, sum);
  dot_term(e, &d, k, x);
  mg_lower_binary(e, "arith.addf", acc, x, s);
  close_sum(e, s);
  finish(e, dest, idx, sum);
  mg_lower_elems_end(e);
}

static void store_result(Emit *e, const void *ctx, Index idx, const char *v) {
  const MgOp *op = ctx;
  mg_lower_store(e, op->outputs[0], idx, v);
}

static void add_to_accum(Emit *e, const void *ctx, Index idx, const char *v) {
  const MgOp *op = ctx;
  Name old, r;
  mg_lower_load_at(e, op->outputs[0], idx, old);
  mg_lower_binary(e, "arith.addf", old, v, r);
  mg_lower_store(e, op->outputs[0], idx, r);
}

static void matmul(Emit *e, const MgOp *op) {
  matmul_into(e, op, op, store_result);
}

void mg_lower_matmul_accum(Emit *e, const MgOp *mm, const MgOp *acc) {
  matmul_into(e, mm, acc, add_to_accum);
}

static void run_chain(Emit *e, const void *ctx, Index idx, const char *v) {
  chain_at(e, ctx, idx, v);
}

void mg_lower_matmul_chain(Emit *e, const MgOp *const *ops, uint32_t n,
                           const bool *keep) {
  Chain c = {ops, n, keep, tensor(e, ops[0]->outputs[0])->rank};
  matmul_into(e, ops[0], &c, run_chain);
}

// Σ (or max) over dim `dim` of `in` at result element `idx` (result dim
// = 1), each term squared when `square`: sequential in one thread. When the
// terms are contiguous (rows of a tile), thread t sums row t: rows of a
// multiple of 128 bytes would put every lane of a warp on one shared-
// memory bank, so each row visits its terms from a start staggered by its
// row index (one 4-byte word per row): k xor s for n a power of two, else
// k + s wrapped below n. The lanes' accesses fall in different banks, no
// thread idles, and nothing needs a shuffle; the CPU form runs the same
// code, so it adds in the same order.
static void reduce(Emit *e, Combine how, const RowTerm *r, Name out) {
  const Name *idx = r->at;
  uint32_t dim = r->dim;
  const MgTensor *t = tensor(e, r->in);
  int64_t n = t->dims[dim];
  int ops = mg_lower_stagger_ops(t, dim);
  Name rot = "", nn;
  if (ops) {
    int64_t per_word = 4 / (int64_t)mg_dtype_bytes((MgDType)t->dtype);
    Name w, scaled;
    mg_lower_index(e, per_word < 1 ? 1 : per_word, w);
    mg_lower_index_op(e, "arith.muli", idx[mg_lower_stagger_dim(t, dim)], w, scaled);
    mg_lower_index(e, n, nn);
    mg_lower_index_op(e, "arith.remui", scaled, nn, rot);
  }
  Name k, acc, x, s;
  open_sum(e, how, n, k, acc, out);
  if (ops == 1) {
    Name at;
    mg_lower_index_op(e, "arith.xori", k, rot, at);
    snprintf(k, NAME_LEN, "%s", at);
  } else if (ops) {
    Name sum, wrapped, over, at;
    mg_lower_index_op(e, "arith.addi", k, rot, sum);
    mg_lower_index_op(e, "arith.subi", sum, nn, wrapped);
    mg_lower_index_op(e, "arith.cmpi uge,", sum, nn, over);
    mg_lower_fresh(e, at);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : index", at, over,
                  wrapped, sum);
    snprintf(k, NAME_LEN, "%s", at);
  }
  row_term(e, r, k, x);
  combine(e, how, acc, x, s);
  close_sum(e, s);
}

// What a reduction computes: the sum (or max) along `dim`, of squared
// terms when `square`.
typedef struct Reduction {
  uint32_t dim;
  bool square;
  Combine how;
} Reduction;

// A reduction op over its result `out`: for each element, `finish` gets
// `red` of `in`, cooperatively where coop_warps says so.
static void reduce_op(Emit *e, const MgOp *op, Reduction red, const void *dest,
                      FinishFn finish) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  MgTensorId in = op->inputs[0];
  uint32_t dim = red.dim;
  bool square = red.square;
  Combine how = red.how;
  int64_t n = tensor(e, in)->dims[dim];
  Index idx;
  int64_t m = mg_lower_coop_warps(e, mg_tensor_numel(out), n);
  Name r;
  if (m) {
    Coop c;
    coop_begin(e, out, m, how, idx, &c);
    RowTerm t = {in, idx, dim, square, how};
    coop_reduce(e, &c, (Terms){n, row_term, &t}, r);
    finish(e, dest, idx, r);
    coop_end(e);
    return;
  }
  mg_lower_elems_begin(e, out, idx);
  reduce(e, how, &(RowTerm){in, idx, dim, square, how}, r);
  finish(e, dest, idx, r);
  mg_lower_elems_end(e);
}

static void sum(Emit *e, const MgOp *op) {
  Combine how = op->kind == MG_OP_REDUCE_MAX ? COMBINE_MAX : COMBINE_ADD;
  reduce_op(e, op, (Reduction){(uint32_t)op->attr, false, how}, op,
            store_result);
}

void mg_lower_reduce_accum(Emit *e, const MgOp *red, const MgOp *acc) {
  reduce_op(e, red, (Reduction){(uint32_t)red->attr, false, COMBINE_ADD}, acc,
            add_to_accum);
}

void mg_lower_accum_init(Emit *e, const MgOp *op) {
  if (op->acc == MG_ACCUM_ONLINE)
    return; // its first iteration sets it (online.c)
  Index idx;
  mg_lower_elems_begin(e, tensor(e, op->outputs[0]), idx);
  Name init; // the running max starts at -inf: max(-inf, x) = x
  combine_init(e, op->acc == MG_ACCUM_MAX ? COMBINE_MAX : COMBINE_ADD, init);
  mg_lower_store(e, op->outputs[0], idx, init);
  mg_lower_elems_end(e);
}

static void accum(Emit *e, const MgOp *op) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  if (op->acc == MG_ACCUM_MAX || op->acc == MG_ACCUM_ONLINE) {
    mg_lower_accum_online(e, op);
    return;
  }
  if (op->acc != MG_ACCUM_SUM) {
    Reduction red = {out->rank - 1, op->acc == MG_ACCUM_SUM_SQ_LAST,
                     COMBINE_ADD};
    reduce_op(e, op, red, op, add_to_accum);
    return;
  }
  Index idx;
  mg_lower_elems_begin(e, out, idx);
  Name add;
  mg_lower_load(e, op->inputs[0], idx, out->rank, add);
  add_to_accum(e, op, idx, add);
  mg_lower_elems_end(e);
}

// acc (has: already a sum) += index * factor.
static void add_offset_term(Emit *e, Name acc, bool *has, const char *index,
                            int64_t factor) {
  Name c, term;
  mg_lower_index(e, factor, c);
  mg_lower_fresh(e, term);
  mg_lower_line(e, "%s = arith.muli %s, %s : index", term, index, c);
  if (*has) {
    Name s;
    mg_lower_fresh(e, s);
    mg_lower_line(e, "%s = arith.addi %s, %s : index", s, acc, term);
    snprintf(acc, NAME_LEN, "%s", s);
  } else {
    snprintf(acc, NAME_LEN, "%s", term);
  }
  *has = true;
}

// Offset of the block's (and iteration's) tile along each dim of the
// kernel tensor an iterator reads or a saver writes.
// A tile's offset in its kernel tensor per dim (has[d]: it has one).
typedef struct Offsets {
  Name off[MG_MAX_DIMS];
  bool has[MG_MAX_DIMS];
} Offsets;

static void tile_offsets(Emit *e, const MgOp *op, const MgTensor *tile,
                         bool saver, Offsets *o) {
  Name *off = o->off;
  bool *has = o->has;
  for (uint32_t d = 0; d < tile->rank; d++) {
    has[d] = false;
    Name acc = "";
    for (int a = 0; a < 3; a++) {
      int8_t m = saver ? op->omap[a] : op->imap[a];
      if (m != (int8_t)d)
        continue;
      int64_t chunk = tile->dims[d];
      if (!saver && op->fmap == (int8_t)d)
        chunk *= e->g->forloop;
      add_offset_term(e, acc, &has[d], e->block[a], chunk);
    }
    if (!saver && op->fmap == (int8_t)d)
      add_offset_term(e, acc, &has[d], e->iter, tile->dims[d]);
    snprintf(off[d], NAME_LEN, "%s", acc);
  }
}

// `m` (tensor `t`'s shape, after `lead` leading stage dims) viewed with
// its dims from `rank` on folded into dim `rank` - 1 (all of size 1):
// memref.collapse_shape. Unchanged when nothing folds.
static void collapse(Emit *e, const MgTensor *t, uint32_t rank, uint32_t lead,
                     const char *space, Memref *m) {
  char *val = m->val, *type = m->type;
  if (rank == t->rank)
    return;
  MgTensor c = *t;
  c.rank = (uint8_t)rank;
  char ctype[TYPE_LEN], inner[TYPE_LEN];
  mg_lower_memref_type(&c, (MgDType)t->dtype, space, inner);
  if (lead) // the stage dim
    snprintf(ctype, sizeof ctype, "memref<%lldx%.*s",
             (long long)mg_lower_stages(e->g), TYPE_LEN - 12, inner + 7);
  else
    snprintf(ctype, sizeof ctype, "%s", inner);
  char groups[96];
  size_t n = 0;
  uint32_t total = t->rank + lead, kept = rank + lead;
  for (uint32_t d = 0; d + 1 < kept; d++)
    n += (size_t)snprintf(groups + n, sizeof groups - n, "[%u], ", d);
  n += (size_t)snprintf(groups + n, sizeof groups - n, "[");
  for (uint32_t d = kept - 1; d < total; d++)
    n += (size_t)snprintf(groups + n, sizeof groups - n, "%s%u",
                          d + 1 == kept ? "" : ", ", d);
  snprintf(groups + n, sizeof groups - n, "]");
  Name out;
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.collapse_shape %s [%s] : %s into %s", out,
                val, groups, type, ctype);
  snprintf(val, NAME_LEN, "%s", out);
  snprintf(type, TYPE_LEN, "%s", ctype);
}

// at[d] = idx[d] + o->off[d] where the tile has an offset along d.
static void offset_positions(Emit *e, Index idx, const Offsets *o,
                             uint32_t rank, Index at) {
  for (uint32_t d = 0; d < rank; d++) {
    if (!o->has[d]) {
      snprintf(at[d], NAME_LEN, "%s", idx[d]);
      continue;
    }
    mg_lower_index_op(e, "arith.addi", idx[d], o->off[d], at[d]);
  }
}

// Both sides of a vector copy as views without their common trailing unit
// dims; with `staged` the tile side is the tile's staged buffer.
typedef struct CopyViews {
  Memref dram, tile;
  uint32_t rank;
} CopyViews;

static void copy_views(Emit *e, MgTensorId tile_id, MgTensorId dram_id,
                       bool staged, CopyViews *v) {
  v->rank = mg_lower_copy_rank(e->g, tile_id, dram_id);
  snprintf(v->dram.val, NAME_LEN, "%s", e->val[dram_id]);
  snprintf(v->dram.type, TYPE_LEN, "%s", e->type[dram_id]);
  snprintf(v->tile.val, NAME_LEN, "%s",
           staged ? e->stage_buf[tile_id] : e->val[tile_id]);
  snprintf(v->tile.type, TYPE_LEN, "%s",
           staged ? e->stage_type[tile_id] : e->type[tile_id]);
  collapse(e, tensor(e, dram_id), v->rank, 0, NULL, &v->dram);
  collapse(e, tensor(e, tile_id), v->rank, staged ? 1 : 0,
           e->mode == MG_LOWER_CPU ? NULL : MG_LOWER_WORKGROUP, &v->tile);
}

// Opens the loop over a tile of input `dram`, which has a layout, in the
// stored order: consecutive threads read consecutive addresses (coalesced)
// and write the shared tile with a stride instead.
static void stored_elems_begin(Emit *e, MgTensorId dram, const MgTensor *tile,
                               Index idx) {
  int8_t perm[MG_MAX_DIMS];
  mg_graph_tensor_perm(e->g, tensor(e, dram), perm);
  MgTensor st = *tile;
  for (uint32_t d = 0; d < tile->rank; d++)
    st.dims[perm[d]] = tile->dims[d];
  Index sidx;
  mg_lower_elems_begin(e, &st, sidx);
  for (uint32_t d = 0; d < tile->rank; d++)
    snprintf(idx[d], NAME_LEN, "%s", sidx[perm[d]]);
}

// The view of input `dram` (with a layout) in the order of memory,
// dim `inner` (stride 1) last: memref.transpose of the logical view, so
// its innermost stride is 1, as vector.load needs. ord[j] gets the logical
// dim at stored position j.
static void stored_order_view(Emit *e, MgTensorId dram, uint32_t inner,
                              uint32_t *ord, Name val, char type[TYPE_LEN]) {
  const MgTensor *y = tensor(e, dram);
  uint32_t r = y->rank, n = 0;
  int8_t perm[MG_MAX_DIMS];
  int64_t stride[MG_MAX_DIMS], offset;
  mg_graph_tensor_perm(e->g, y, perm);
  if (!mg_lower_view_strides(e->p, e->g, dram, stride, &offset)) {
    e->error = "a strided view whose caller is not found";
    return;
  }
  for (uint32_t j = 0; j < r; j++)
    for (uint32_t d = 0; d < r; d++)
      if ((uint32_t)perm[d] == j && d != inner)
        ord[n++] = d;
  ord[n] = inner;
  MgTensor st = *y, sto = mg_graph_stored_tensor(e->g, dram);
  st.sym = 0;
  // A stride past a symbolic dim of the stored array is `?`.
  bool dyn[MG_MAX_DIMS], past = false;
  for (uint32_t j = r; j-- > 0;) {
    dyn[j] = past;
    past |= mg_tensor_sym(&sto, j) != 0;
  }
  char map[96], strides[128], plain[TYPE_LEN]; // rank 6, strides < 2^48
  size_t m = (size_t)snprintf(map, sizeof map, "(");
  for (uint32_t d = 0; d < r; d++)
    m += (size_t)snprintf(map + m, sizeof map - m, "%sd%u", d ? ", " : "", d);
  m += (size_t)snprintf(map + m, sizeof map - m, ") -> (");
  size_t k = 0;
  for (uint32_t j = 0; j < r; j++) {
    st.dims[j] = y->dims[ord[j]];
    mg_tensor_set_sym(&st, j, mg_tensor_sym(y, ord[j]));
    m += (size_t)snprintf(map + m, sizeof map - m, "%sd%u", j ? ", " : "",
                          ord[j]);
    if (dyn[perm[ord[j]]])
      k += (size_t)snprintf(strides + k, sizeof strides - k, "%s?",
                            j ? ", " : "");
    else
      k += (size_t)snprintf(strides + k, sizeof strides - k, "%s%lld",
                            j ? ", " : "", (long long)stride[ord[j]]);
  }
  snprintf(map + m, sizeof map - m, ")");
  mg_lower_memref_type(&st, (MgDType)e->dtype[dram], NULL, plain);
  snprintf(type, TYPE_LEN, "%.*s, strided<[%s], offset: %lld>>",
           (int)strlen(plain) - 1, plain, strides, (long long)offset);
  mg_lower_fresh(e, val);
  mg_lower_line(e, "%s = memref.transpose %s %s : %s to %s", val,
                e->val[dram], map, e->type[dram], type);
}

// An iterator of input `dram` with a layout whose rows in memory are whole
// 16-byte vectors (mg_lower_stored_vector_width): each thread loads one
// vector along dim `inner`, contiguous in memory, through the stored-order
// view and stores its elements into the tile one by one at their logical
// positions (the tile is written with a stride), or as one vector when
// they are contiguous there too (`whole`: the tile's dims after `inner`
// are 1, folded away). Consecutive threads read consecutive vectors.
static void move_stored_vectors(Emit *e, const MgOp *op, int64_t vw,
                                uint32_t inner, bool whole, const Offsets *o) {
  MgTensorId tile_id = op->outputs[0], dram_id = op->inputs[0];
  const MgTensor *tile = tensor(e, tile_id);
  uint32_t r = tile->rank, ord[MG_MAX_DIMS];
  Name view;
  char vtype[TYPE_LEN];
  stored_order_view(e, dram_id, inner, ord, view, vtype);
  if (e->error)
    return;
  Memref tv; // the tile, its dims after `inner` folded away when whole
  snprintf(tv.val, NAME_LEN, "%s", e->val[tile_id]);
  snprintf(tv.type, TYPE_LEN, "%s", e->type[tile_id]);
  if (whole)
    collapse(e, tile, inner + 1, 0,
             e->mode == MG_LOWER_CPU ? NULL : MG_LOWER_WORKGROUP, &tv);
  MgTensor st = *tile; // the tile in stored order
  for (uint32_t j = 0; j < r; j++)
    st.dims[j] = tile->dims[ord[j]];
  Index sidx, idx, at;
  mg_lower_vector_elems_begin(e, &st, r, vw, sidx);
  for (uint32_t j = 0; j < r; j++)
    memcpy(idx[ord[j]], sidx[j], sizeof idx[0]);
  offset_positions(e, idx, o, r, at);
  Name spos[MG_MAX_DIMS];
  for (uint32_t j = 0; j < r; j++)
    memcpy(spos[j], at[ord[j]], sizeof spos[j]);
  char lf[MG_MAX_DIMS * (NAME_LEN + 2)], vec[32];
  mg_lower_index_list(spos, r, lf, sizeof lf);
  const char *elt = mg_lower_elt((MgDType)e->dtype[tile_id]);
  snprintf(vec, sizeof vec, "vector<%lldx%s>", (long long)vw, elt);
  // mg_lower_stored_vector_width checked the alignment (the buffer is
  // 16-byte aligned, the kernel argument says so); the CPU form states
  // nothing (its buffers come from the caller).
  Name x;
  mg_lower_fresh(e, x);
  mg_lower_line(e, "%s = vector.load %s[%s]%s : %s, %s", x, view, lf,
                e->mode == MG_LOWER_CPU ? "" : " {alignment = 16 : i64}",
                vtype, vec);
  if (whole) {
    char lt[MG_MAX_DIMS * (NAME_LEN + 2)];
    mg_lower_index_list(idx, inner + 1, lt, sizeof lt);
    mg_lower_line(e, "vector.store %s, %s[%s] : %s, %s", x, tv.val, lt,
                  tv.type, vec);
    mg_lower_elems_end(e);
    return;
  }
  Name first;
  snprintf(first, NAME_LEN, "%s", idx[inner]);
  for (int64_t k = 0; k < vw; k++) {
    Name el, kk;
    if (k) {
      mg_lower_index(e, k, kk);
      mg_lower_index_op(e, "arith.addi", first, kk, idx[inner]);
    }
    mg_lower_fresh(e, el);
    mg_lower_line(e, "%s = vector.extract %s[%lld] : %s from %s", el, x,
                  (long long)k, elt, vec);
    char lt[MG_MAX_DIMS * (NAME_LEN + 2)];
    mg_lower_index_list(idx, r, lt, sizeof lt);
    mg_lower_line(e, "memref.store %s, %s[%s] : %s", el, tv.val, lt, tv.type);
  }
  mg_lower_elems_end(e);
}

// Block-graph input `t` gathers a folded im2col's patches (implicit
// GEMM, MG_FOLDED_IM2COL): its parameters and the input's shape. The
// block graph has one caller (mg_graph_im2col_folds).
static bool folded_patches(Emit *e, MgTensorId t, MgIm2col *c,
                           MgTensor *x) {
  const MgOp *in = &e->g->ops[tensor(e, t)->producer];
  if (in->kind != MG_OP_INPUT || (in->folded != MG_FOLDED_IM2COL &&
                                  in->folded != MG_FOLDED_IM2COL_VEC))
    return false;
  const MgGraph *root = &e->p->graphs[0];
  int32_t id = (int32_t)(e->g - e->p->graphs);
  for (uint32_t i = 0; i < root->num_ops; i++) {
    const MgOp *op = &root->ops[i];
    if (op->kind != MG_OP_CUSTOM || op->attr != id || in->attr < 0 ||
        (uint32_t)in->attr >= op->num_inputs)
      continue;
    const MgOp *im = mg_graph_folded_im2col(root, op->inputs[in->attr]);
    if (!im)
      return false;
    *c = mg_op_im2col(im);
    *x = root->tensors[im->inputs[0]];
    return true;
  }
  return false;
}

// An iterator of folded patches: each tile element from the input through
// the index map (clamped load, 0 outside), one by one, or vw channels at
// once when they are whole vectors (MG_FOLDED_IM2COL_VEC: a vector never
// crosses a group's channels, so one position and one select serve it).
static void gather_patches(Emit *e, const MgOp *op, const Offsets *o,
                           const MgIm2col *c, const MgTensor *x) {
  MgTensorId tile_id = op->outputs[0], dram_id = op->inputs[0];
  const MgTensor *tile = tensor(e, tile_id);
  Index idx, at, xat;
  Name inside, v;
  int64_t vw = mg_lower_vector_width(e->g, tile_id, dram_id);
  if (vw > 1) {
    char vec[32], list[4 * (NAME_LEN + 2)], lt[MG_MAX_DIMS * (NAME_LEN + 2)];
    const char *elt = mg_lower_elt((MgDType)x->dtype);
    snprintf(vec, sizeof vec, "vector<%lldx%s>", (long long)vw, elt);
    mg_lower_vector_elems_begin(e, tile, tile->rank, vw, idx);
    offset_positions(e, idx, o, tile->rank, at);
    mg_lower_im2col_source(e, c, x, at, xat, inside);
    mg_lower_index_list(xat, 4, list, sizeof list);
    mg_lower_index_list(idx, tile->rank, lt, sizeof lt);
    Name z, s;
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = vector.load %s[%s]%s : %s, %s", v, e->val[dram_id],
                  list, e->mode == MG_LOWER_CPU ? "" : " {alignment = 16 : i64}",
                  e->type[dram_id], vec);
    mg_lower_fresh(e, z);
    mg_lower_line(e, "%s = arith.constant dense<0.0> : %s", z, vec);
    mg_lower_fresh(e, s);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : %s", s, inside, v, z,
                  vec);
    mg_lower_line(e, "vector.store %s, %s[%s] : %s, %s", s, e->val[tile_id],
                  lt, e->type[tile_id], vec);
    mg_lower_elems_end(e);
    return;
  }
  mg_lower_elems_begin(e, tile, idx);
  offset_positions(e, idx, o, tile->rank, at);
  mg_lower_im2col_source(e, c, x, at, xat, inside);
  Memref xm = mg_lower_tensor_memref(e, dram_id);
  mg_lower_im2col_value(e, &xm, (MgDType)x->dtype, xat, inside, v);
  mg_lower_store(e, tile_id, idx, v);
  mg_lower_elems_end(e);
}

// Copies between a tile and its kernel tensor: the iterator reads the
// kernel tensor, the saver writes it. Element types are usually equal; an
// f32 tile saved to a narrower tensor (a target output stored in the
// frontend's dtype) converts per vector, f16 <-> bf16 per element.
// Whole 16-byte vectors per thread where the layout allows (vector_width),
// so consecutive threads read consecutive 16-byte chunks of a row.
static void move_tile(Emit *e, const MgOp *op, bool saver) {
  MgTensorId tile_id = saver ? op->inputs[0] : op->outputs[0];
  MgTensorId dram_id = saver ? op->outputs[0] : op->inputs[0];
  const MgTensor *tile = tensor(e, tile_id);
  Offsets o;
  tile_offsets(e, op, tile, saver, &o);
  MgIm2col patches;
  MgTensor x;
  if (!saver && folded_patches(e, dram_id, &patches, &x)) {
    gather_patches(e, op, &o, &patches, &x);
    return;
  }
  Index idx, at;
  int64_t vw = mg_lower_vector_width(e->g, tile_id, dram_id);
  MgDType dt_tile = (MgDType)e->dtype[tile_id];
  MgDType dt_dram = (MgDType)e->dtype[dram_id];
  if (dt_tile != dt_dram && dt_tile != MG_DTYPE_F32 && dt_dram != MG_DTYPE_F32)
    vw = 1;
  uint32_t rank = tile->rank; // of the copy: trailing unit dims folded
  uint32_t inner = 0;
  bool whole = false;
  int64_t svw = saver ? 1 : mg_lower_stored_vector_width(e->p, e->g, tile_id,
                                                          dram_id, &inner,
                                                          &whole);
  if (svw > 1) {
    move_stored_vectors(e, op, svw, inner, whole, &o);
    return;
  }
  CopyViews v;
  if (vw > 1) {
    copy_views(e, tile_id, dram_id, false, &v);
    rank = v.rank;
    mg_lower_vector_elems_begin(e, tile, rank, vw, idx);
  } else if (!saver && mg_lower_has_layout(e->g, dram_id)) {
    stored_elems_begin(e, dram_id, tile, idx);
  } else {
    mg_lower_elems_begin(e, tile, idx);
  }
  offset_positions(e, idx, &o, rank, at);
  MgTensorId from = saver ? tile_id : dram_id, to = saver ? dram_id : tile_id;
  Name *from_at = saver ? idx : at, *to_at = saver ? at : idx;
  if (vw > 1) {
    char lf[MG_MAX_DIMS * (NAME_LEN + 2)], lt[MG_MAX_DIMS * (NAME_LEN + 2)];
    mg_lower_index_list(from_at, rank, lf, sizeof lf);
    mg_lower_index_list(to_at, rank, lt, sizeof lt);
    char vec[32], vto[32];
    snprintf(vec, sizeof vec, "vector<%lldx%s>", (long long)vw,
             mg_lower_elt((MgDType)e->dtype[from]));
    snprintf(vto, sizeof vto, "vector<%lldx%s>", (long long)vw,
             mg_lower_elt((MgDType)e->dtype[to]));
    const Memref *fm = saver ? &v.tile : &v.dram;
    const Memref *tm = saver ? &v.dram : &v.tile;
    const char *fv = fm->val, *ft = fm->type, *tv = tm->val, *tt = tm->type;
    Name x;
    mg_lower_fresh(e, x);
    mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", x, fv, lf, ft, vec);
    if (e->dtype[from] != e->dtype[to]) {
      Name y;
      mg_lower_fresh(e, y);
      mg_lower_line(e, "%s = arith.%s %s : %s to %s", y,
                    e->dtype[from] == MG_DTYPE_F32 ? "truncf" : "extf", x,
                    vec, vto);
      snprintf(x, NAME_LEN, "%s", y);
    }
    mg_lower_line(e, "vector.store %s, %s[%s] : %s, %s", x, tv, lt, tt, vto);
  } else if (e->dtype[from] == e->dtype[to]) {
    char lf[MG_MAX_DIMS * (NAME_LEN + 2)], lt[MG_MAX_DIMS * (NAME_LEN + 2)];
    mg_lower_index_list(from_at, tile->rank, lf, sizeof lf);
    mg_lower_index_list(to_at, tile->rank, lt, sizeof lt);
    Name v;
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = memref.load %s[%s] : %s", v, e->val[from], lf,
                  e->type[from]);
    mg_lower_line(e, "memref.store %s, %s[%s] : %s", v, e->val[to], lt,
                  e->type[to]);
  } else { // an f32 accumulator tile saved to a narrower tensor
    Name v;
    mg_lower_load_at(e, from, from_at, v);
    mg_lower_store(e, to, to_at, v);
  }
  mg_lower_elems_end(e);
}

void mg_lower_prefetch(Emit *e, const MgOp *op, const char *iter,
                       const char *stage) {
  MgTensorId tile_id = op->outputs[0], dram_id = op->inputs[0];
  const MgTensor *tile = tensor(e, tile_id);
  int64_t vw = mg_lower_vector_width(e->g, tile_id, dram_id);
  Name saved;
  snprintf(saved, NAME_LEN, "%s", e->iter);
  snprintf(e->iter, NAME_LEN, "%s", iter);
  Offsets o;
  tile_offsets(e, op, tile, false, &o);
  snprintf(e->iter, NAME_LEN, "%s", saved);
  // The copy runs on views without the trailing unit dims (move_tile).
  CopyViews v;
  copy_views(e, tile_id, dram_id, stage != NULL, &v);
  uint32_t rank = v.rank;
  Index idx, at;
  bool barrier = e->barrier;
  e->barrier = false; // nothing to wait for until the copies are waited on
  mg_lower_vector_elems_begin(e, tile, rank, vw, idx);
  offset_positions(e, idx, &o, rank, at);
  char src[MG_MAX_DIMS * (NAME_LEN + 2)];
  char dst[(MG_MAX_DIMS + 1) * (NAME_LEN + 2)]; // a stage index too
  mg_lower_index_list(at, rank, src, sizeof src);
  size_t lead = stage ? (size_t)snprintf(dst, sizeof dst, "%s, ", stage) : 0;
  mg_lower_index_list(idx, rank, dst + lead, sizeof dst - lead);
  if (e->mode == MG_LOWER_CPU) {
    char vec[32];
    snprintf(vec, sizeof vec, "vector<%lldx%s>", (long long)vw,
             mg_lower_elt((MgDType)e->dtype[tile_id]));
    Name x;
    mg_lower_fresh(e, x);
    mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", x, v.dram.val, src,
                  v.dram.type, vec);
    mg_lower_line(e, "vector.store %s, %s[%s] : %s, %s", x, v.tile.val, dst,
                  v.tile.type, vec);
  } else {
    // 16 bytes global -> shared, bypassing L1 (cp.async.cg).
    Name tok;
    mg_lower_fresh(e, tok);
    mg_lower_line(e, "%s = nvgpu.device_async_copy %s[%s], %s[%s], %lld "
                     "{bypassL1} : %s to %s", tok, v.dram.val, src,
                  v.tile.val, dst, (long long)vw, v.dram.type, v.tile.type);
  }
  mg_lower_elems_end(e);
  e->barrier = barrier;
}

static void concat(Emit *e, const MgOp *op) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  const MgTensor *a = tensor(e, op->inputs[0]);
  uint32_t d = (uint32_t)op->attr;
  Index idx;
  mg_lower_elems_begin(e, out, idx);
  Name split, cond, v;
  mg_lower_index(e, a->dims[d], split);
  mg_lower_fresh(e, cond);
  mg_lower_line(e, "%s = arith.cmpi ult, %s, %s : index", cond, idx[d],
                split);
  mg_lower_fresh(e, v);
  mg_lower_line(e, "%s = scf.if %s -> (f32) {", v, cond);
  e->indent++;
  Name x;
  mg_lower_load_at(e, op->inputs[0], idx, x);
  mg_lower_line(e, "scf.yield %s : f32", x);
  e->indent--;
  mg_lower_line(e, "} else {");
  e->indent++;
  Index at;
  mg_lower_concat_source(e, op, 1, idx, at);
  mg_lower_load_at(e, op->inputs[1], at, x);
  mg_lower_line(e, "scf.yield %s : f32", x);
  e->indent--;
  mg_lower_line(e, "}");
  mg_lower_store(e, op->outputs[0], idx, v);
  mg_lower_elems_end(e);
}

// A thread graph evaluated per element in registers: its inputs are the
// op's operands at the element (broadcast to the result's shape), its
// outputs the op's results. Results of different shapes get a loop each
// (the chain is evaluated again per loop, storing only that result).
static void thread_loop(Emit *e, const MgOp *op, uint32_t first,
                        uint32_t last) {
  const MgGraph *tg = &e->p->graphs[op->attr];
  const MgTensor *out = tensor(e, op->outputs[first]);
  Index idx;
  mg_lower_elems_begin(e, out, idx);
  Name vals[64];
  for (uint32_t i = 0; i < tg->num_ops; i++) {
    const MgOp *t = &tg->ops[i];
    if (t->kind == MG_OP_INPUT) {
      mg_lower_load(e, op->inputs[t->attr], idx, out->rank, vals[t->outputs[0]]);
      continue;
    }
    const char *b = t->num_inputs > 1 ? vals[t->inputs[1]] : "";
    if (!mg_lower_scalar(e, (MgOpKind)t->kind, t->scalar, vals[t->inputs[0]], b,
                vals[t->outputs[0]]))
      e->error = "a thread graph op that is not element-wise";
  }
  for (uint32_t k = first; k <= last; k++)
    mg_lower_store(e, op->outputs[k], idx, vals[tg->outputs[k]]);
  mg_lower_elems_end(e);
}

static void thread(Emit *e, const MgOp *op) {
  const MgGraph *tg = &e->p->graphs[op->attr];
  if (tg->num_tensors > 64) {
    e->error = "thread graph with more than 64 values";
    return;
  }
  uint32_t n = op->num_outputs < tg->num_outputs ? op->num_outputs
                                                 : tg->num_outputs;
  bool uniform = true;
  for (uint32_t k = 1; k < n; k++)
    uniform &= mg_graph_same_shape(tensor(e, op->outputs[k]),
                                   tensor(e, op->outputs[0]));
  if (uniform) {
    if (n)
      thread_loop(e, op, 0, n - 1);
    return;
  }
  for (uint32_t k = 0; k < n; k++)
    thread_loop(e, op, k, k);
}

void mg_lower_chain(Emit *e, const MgOp *const *ops, uint32_t n,
                    const bool *keep) {
  const MgTensor *out = tensor(e, ops[0]->outputs[0]);
  Index idx;
  mg_lower_elems_begin(e, out, idx);
  chain_at(e, &(Chain){ops, n, keep, out->rank}, idx, NULL);
  mg_lower_elems_end(e);
}

void mg_lower_op(Emit *e, const MgOp *op) {
  switch ((MgOpKind)op->kind) {
  case MG_OP_MATMUL: matmul(e, op); return;
  case MG_OP_SUM: case MG_OP_REDUCE_MAX: sum(e, op); return;
  case MG_OP_ACCUM: accum(e, op); return;
  case MG_OP_ITERATOR: move_tile(e, op, false); return;
  case MG_OP_SAVER: move_tile(e, op, true); return;
  case MG_OP_CONCAT: // a view op at kernel level (write/views.c)
    if (e->g->level == MG_LEVEL_KERNEL)
      mg_lower_view(e, op);
    else
      concat(e, op);
    return;
  case MG_OP_TRANSPOSE: case MG_OP_RESHAPE: case MG_OP_SLICE:
  case MG_OP_IM2COL:
    mg_lower_view(e, op);
    return;
  case MG_OP_THREAD: thread(e, op); return;
  case MG_OP_INPUT: return;
  case MG_OP_CUSTOM: case MG_OP_COUNT:
    e->error = "a graph-defined kernel inside a block graph";
    return;
  default:
    elementwise(e, op);
    return;
  }
}
