//===- ops.c - Each op kind as loops over its result's elements -----------===//
//
// An op's result elements are split over the threads (or, on the CPU, run
// in order) by a strided scf.for over the linear index, delinearized
// row-major. Operands broadcast size-1 dims right-aligned, as lib/interp
// does. Arithmetic is f32: loads extend, stores truncate to the tensor's
// element type. Reductions (matmul's k, SUM's dim, the last dim of the
// SUM_LAST accumulators) run sequentially per result element.
//
//===----------------------------------------------------------------------===//
#include "lower_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef Name Index[MG_MAX_DIMS];

static const MgTensor *tensor(Emit *e, MgTensorId id) {
  return &e->g->tensors[id];
}

// Opens the element loop over `t`; idx gets one index per dim.
static void elems_begin(Emit *e, const MgTensor *t, Index idx) {
  Name n, lin;
  mg_lower_index(e, mg_tensor_numel(t), n);
  mg_lower_fresh(e, lin);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", lin, e->lo, n,
                e->step);
  e->indent++;
  Name rest;
  snprintf(rest, sizeof rest, "%s", lin);
  for (uint32_t d = t->rank; d-- > 0;) {
    if (t->dims[d] == 1) {
      mg_lower_index(e, 0, idx[d]);
      continue;
    }
    if (d == 0) {
      snprintf(idx[d], NAME_LEN, "%s", rest);
      break;
    }
    Name size, q;
    mg_lower_index(e, t->dims[d], size);
    mg_lower_fresh(e, idx[d]);
    mg_lower_line(e, "%s = arith.remui %s, %s : index", idx[d], rest, size);
    mg_lower_fresh(e, q);
    mg_lower_line(e, "%s = arith.divui %s, %s : index", q, rest, size);
    snprintf(rest, sizeof rest, "%s", q);
  }
}

static void elems_end(Emit *e) {
  e->indent--;
  mg_lower_line(e, "}");
  if (e->barrier)
    mg_lower_line(e, "gpu.barrier");
}

// "%a, %b, %c": the index list of a load or store.
static void index_list(Name *idx, uint32_t rank, char *out, size_t size) {
  size_t n = 0;
  out[0] = '\0';
  for (uint32_t d = 0; d < rank; d++)
    n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s%s",
                          d ? ", " : "", idx[d]);
}

// Indices into operand `a` for the result element `idx` of rank `rank`:
// right-aligned, size-1 dims of `a` read index 0.
static void broadcast(Emit *e, const MgTensor *a, Index idx, uint32_t rank,
                      Index out) {
  for (uint32_t d = 0; d < a->rank; d++) {
    uint32_t r = d + rank - a->rank;
    if (a->dims[d] == 1)
      mg_lower_index(e, 0, out[d]);
    else
      snprintf(out[d], NAME_LEN, "%s", idx[r]);
  }
}

// Loads element `at` of tensor `id` as f32 into `out`.
static void load_at(Emit *e, MgTensorId id, Name *at, Name out) {
  const MgTensor *t = tensor(e, id);
  char list[MG_MAX_DIMS * (NAME_LEN + 2)];
  index_list(at, t->rank, list, sizeof list);
  Name raw;
  mg_lower_fresh(e, raw);
  mg_lower_line(e, "%s = memref.load %s[%s] : %s", raw, e->val[id], list,
                e->type[id]);
  MgDType dt = (MgDType)e->dtype[id];
  if (dt == MG_DTYPE_F32) {
    snprintf(out, NAME_LEN, "%s", raw);
    return;
  }
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = arith.extf %s : %s to f32", out, raw,
                mg_lower_elt(dt));
}

// Loads operand `id` at the result element `idx` (broadcasting).
static void load(Emit *e, MgTensorId id, Index idx, uint32_t rank,
                 Name out) {
  Index at;
  broadcast(e, tensor(e, id), idx, rank, at);
  load_at(e, id, at, out);
}

static void store(Emit *e, MgTensorId id, Index idx, const char *v) {
  const MgTensor *t = tensor(e, id);
  Name x;
  snprintf(x, sizeof x, "%s", v);
  MgDType dt = (MgDType)e->dtype[id];
  if (dt != MG_DTYPE_F32) {
    mg_lower_fresh(e, x);
    mg_lower_line(e, "%s = arith.truncf %s : f32 to %s", x, v,
                  mg_lower_elt(dt));
  }
  char list[MG_MAX_DIMS * (NAME_LEN + 2)];
  index_list(idx, t->rank, list, sizeof list);
  mg_lower_line(e, "memref.store %s, %s[%s] : %s", x, e->val[id], list,
                e->type[id]);
}

static void f32_const(Emit *e, double v, Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = arith.constant %.9e : f32", out, v);
}

// x op s for an f64 scalar: in f32 when s is exact there, else in f64 as
// the interpreter does (an f32 constant could round s, or overflow).
static void scalar_op(Emit *e, const char *op, const char *x, double s,
                      Name out) {
  if ((double)(float)s == s) {
    Name c;
    mg_lower_fresh(e, c);
    mg_lower_line(e, "%s = arith.constant %.9e : f32", c, s);
    mg_lower_fresh(e, out);
    mg_lower_line(e, "%s = %s %s, %s : f32", out, op, x, c);
    return;
  }
  Name wide, c, r;
  mg_lower_fresh(e, wide);
  mg_lower_line(e, "%s = arith.extf %s : f32 to f64", wide, x);
  mg_lower_fresh(e, c);
  mg_lower_line(e, "%s = arith.constant %.17e : f64", c, s);
  mg_lower_fresh(e, r);
  mg_lower_line(e, "%s = %s %s, %s : f64", r, op, wide, c);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = arith.truncf %s : f64 to f32", out, r);
}

// Adds, subtracts and multiplies may contract into FMAs (one rounding
// fewer, never a reassociation); divisions stay exact IEEE.
static void binary(Emit *e, const char *op, const char *a, const char *b,
                   Name out) {
  mg_lower_fresh(e, out);
  bool contract = strcmp(op, "arith.divf") != 0;
  mg_lower_line(e, "%s = %s %s, %s%s : f32", out, op, a, b,
                contract ? " fastmath<contract>" : "");
}

static void unary(Emit *e, const char *op, const char *a, Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = %s %s : f32", out, op, a);
}

// One element of an element-wise op on f32 values `a` (and `b`).
static bool scalar(Emit *e, MgOpKind kind, double s, const char *a,
                   const char *b, Name out) {
  Name t1, t2, c;
  switch (kind) {
  case MG_OP_ADD: binary(e, "arith.addf", a, b, out); return true;
  case MG_OP_SUB: binary(e, "arith.subf", a, b, out); return true;
  case MG_OP_MUL: binary(e, "arith.mulf", a, b, out); return true;
  case MG_OP_DIV: binary(e, "arith.divf", a, b, out); return true;
  case MG_OP_EXP: unary(e, "math.exp", a, out); return true;
  case MG_OP_SQUARE: binary(e, "arith.mulf", a, a, out); return true;
  case MG_OP_SQRT: unary(e, "math.sqrt", a, out); return true;
  case MG_OP_RSQRT: unary(e, "math.rsqrt", a, out); return true;
  case MG_OP_SILU: // x / (1 + exp(-x))
    unary(e, "arith.negf", a, t1);
    unary(e, "math.exp", t1, t2);
    f32_const(e, 1.0, c);
    binary(e, "arith.addf", t2, c, t1);
    binary(e, "arith.divf", a, t1, out);
    return true;
  case MG_OP_GELU: // x/2 (1 + erf(x / sqrt 2)), as lib/interp
    f32_const(e, 0.70710678118654752, c);
    binary(e, "arith.mulf", a, c, t1);
    unary(e, "math.erf", t1, t2);
    f32_const(e, 1.0, c);
    binary(e, "arith.addf", t2, c, t1);
    binary(e, "arith.mulf", a, t1, t2);
    f32_const(e, 0.5, c);
    binary(e, "arith.mulf", t2, c, out);
    return true;
  case MG_OP_RELU: // x > 0 ? x : 0, so NaN gives 0 as in lib/interp
    f32_const(e, 0.0, c);
    mg_lower_fresh(e, t1);
    mg_lower_line(e, "%s = arith.cmpf ogt, %s, %s : f32", t1, a, c);
    mg_lower_fresh(e, out);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : f32", out, t1, a, c);
    return true;
  case MG_OP_MUL_SCALAR:
    scalar_op(e, "arith.mulf", a, s, out);
    return true;
  case MG_OP_DIV_SCALAR:
    scalar_op(e, "arith.divf", a, s, out);
    return true;
  default:
    return false;
  }
}

static void elementwise(Emit *e, const MgOp *op) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  Index idx;
  elems_begin(e, out, idx);
  Name a, b = "", r;
  load(e, op->inputs[0], idx, out->rank, a);
  if (op->num_inputs > 1)
    load(e, op->inputs[1], idx, out->rank, b);
  scalar(e, (MgOpKind)op->kind, op->scalar, a, b, r);
  store(e, op->outputs[0], idx, r);
  elems_end(e);
}

// Opens `scf.for %k = 0 to n iter_args(%acc = 0) -> (f32)`; the caller
// yields the new sum and closes it with close_sum, which names the result.
static void open_sum(Emit *e, int64_t n, Name k, Name acc, Name result) {
  Name zero, upper, one;
  f32_const(e, 0.0, zero);
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

static void matmul(Emit *e, const MgOp *op) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  const MgTensor *a = tensor(e, op->inputs[0]), *b = tensor(e, op->inputs[1]);
  Index idx;
  elems_begin(e, out, idx);
  Name k, acc, sum;
  open_sum(e, a->dims[a->rank - 1], k, acc, sum);
  Index ia, ib;
  broadcast(e, a, idx, out->rank, ia); // batch dims; the last two below
  broadcast(e, b, idx, out->rank, ib);
  snprintf(ia[a->rank - 2], NAME_LEN, "%s", idx[out->rank - 2]);
  snprintf(ia[a->rank - 1], NAME_LEN, "%s", k);
  snprintf(ib[b->rank - 2], NAME_LEN, "%s", k);
  snprintf(ib[b->rank - 1], NAME_LEN, "%s", idx[out->rank - 1]);
  Name x, y, m, s;
  load_at(e, op->inputs[0], ia, x);
  load_at(e, op->inputs[1], ib, y);
  binary(e, "arith.mulf", x, y, m);
  binary(e, "arith.addf", acc, m, s);
  close_sum(e, s);
  store(e, op->outputs[0], idx, sum);
  elems_end(e);
}

// Σ over dim `dim` of `in` at result element `idx` (result dim = 1), each
// term squared when `square`.
static void reduce(Emit *e, MgTensorId in, Index idx, uint32_t dim,
                   bool square, Name out) {
  const MgTensor *t = tensor(e, in);
  Name k, acc;
  open_sum(e, t->dims[dim], k, acc, out);
  Index at;
  memcpy(at, idx, sizeof at);
  snprintf(at[dim], NAME_LEN, "%s", k);
  Name x, s;
  load_at(e, in, at, x);
  if (square) {
    Name sq;
    binary(e, "arith.mulf", x, x, sq);
    binary(e, "arith.addf", acc, sq, s);
  } else {
    binary(e, "arith.addf", acc, x, s);
  }
  close_sum(e, s);
}

static void sum(Emit *e, const MgOp *op) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  Index idx;
  elems_begin(e, out, idx);
  Name r;
  reduce(e, op->inputs[0], idx, (uint32_t)op->attr, false, r);
  store(e, op->outputs[0], idx, r);
  elems_end(e);
}

void mg_lower_accum_init(Emit *e, const MgOp *op) {
  Index idx;
  elems_begin(e, tensor(e, op->outputs[0]), idx);
  Name zero;
  f32_const(e, 0.0, zero);
  store(e, op->outputs[0], idx, zero);
  elems_end(e);
}

static void accum(Emit *e, const MgOp *op) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  Index idx;
  elems_begin(e, out, idx);
  Name add, old, r;
  if (op->acc == MG_ACCUM_SUM)
    load(e, op->inputs[0], idx, out->rank, add);
  else
    reduce(e, op->inputs[0], idx, out->rank - 1,
           op->acc == MG_ACCUM_SUM_SQ_LAST, add);
  load_at(e, op->outputs[0], idx, old);
  binary(e, "arith.addf", old, add, r);
  store(e, op->outputs[0], idx, r);
  elems_end(e);
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
static void tile_offsets(Emit *e, const MgOp *op, const MgTensor *tile,
                         bool saver, Name *off, bool *has) {
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

/// Bytes one vector access of a tile copy moves (ld.global.v4 / st.v4).
#define VECTOR_BYTES 16

// Elements per 16-byte vector when the copy between `tile` and `dram` can
// move whole vectors, else 1: same element type, and the innermost dims of
// both are multiples of the vector, so every row of the tile starts on a
// 16-byte boundary of both buffers (tile offsets along that dim are
// multiples of the tile's extent, hence of the vector).
static int64_t vector_width(Emit *e, MgTensorId tile_id, MgTensorId dram_id) {
  const MgTensor *tile = tensor(e, tile_id), *dram = tensor(e, dram_id);
  if (e->dtype[tile_id] != e->dtype[dram_id] || tile->rank != dram->rank)
    return 1;
  int64_t v = VECTOR_BYTES / (int64_t)mg_dtype_bytes((MgDType)e->dtype[tile_id]);
  uint32_t last = tile->rank - 1;
  if (tile->dims[last] % v || dram->dims[last] % v)
    return 1;
  return v;
}

// Copies between a tile and its kernel tensor: the iterator reads the
// kernel tensor, the saver writes it. Element types are equal: no f32.
// Whole 16-byte vectors per thread where the layout allows (vector_width),
// so consecutive threads read consecutive 16-byte chunks of a row.
static void move_tile(Emit *e, const MgOp *op, bool saver) {
  MgTensorId tile_id = saver ? op->inputs[0] : op->outputs[0];
  MgTensorId dram_id = saver ? op->outputs[0] : op->inputs[0];
  const MgTensor *tile = tensor(e, tile_id);
  Name off[MG_MAX_DIMS];
  bool has[MG_MAX_DIMS];
  tile_offsets(e, op, tile, saver, off, has);
  Index idx, at;
  int64_t vw = vector_width(e, tile_id, dram_id);
  if (vw > 1) {
    // Loop over the tile's vectors; the innermost index counts vectors.
    MgTensor vt = *tile;
    uint32_t last = tile->rank - 1;
    vt.dims[last] /= vw;
    elems_begin(e, &vt, idx);
    Name w, first;
    mg_lower_index(e, vw, w);
    mg_lower_fresh(e, first);
    mg_lower_line(e, "%s = arith.muli %s, %s : index", first, idx[last], w);
    snprintf(idx[last], NAME_LEN, "%s", first);
  } else {
    elems_begin(e, tile, idx);
  }
  for (uint32_t d = 0; d < tile->rank; d++) {
    if (!has[d]) {
      snprintf(at[d], NAME_LEN, "%s", idx[d]);
      continue;
    }
    mg_lower_fresh(e, at[d]);
    mg_lower_line(e, "%s = arith.addi %s, %s : index", at[d], idx[d], off[d]);
  }
  MgTensorId from = saver ? tile_id : dram_id, to = saver ? dram_id : tile_id;
  Name *from_at = saver ? idx : at, *to_at = saver ? at : idx;
  if (vw > 1) {
    char lf[MG_MAX_DIMS * (NAME_LEN + 2)], lt[MG_MAX_DIMS * (NAME_LEN + 2)];
    index_list(from_at, tile->rank, lf, sizeof lf);
    index_list(to_at, tile->rank, lt, sizeof lt);
    char vec[32];
    snprintf(vec, sizeof vec, "vector<%lldx%s>", (long long)vw,
             mg_lower_elt((MgDType)e->dtype[from]));
    Name v;
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", v, e->val[from], lf,
                  e->type[from], vec);
    mg_lower_line(e, "vector.store %s, %s[%s] : %s, %s", v, e->val[to], lt,
                  e->type[to], vec);
  } else if (e->dtype[from] == e->dtype[to]) {
    char lf[MG_MAX_DIMS * (NAME_LEN + 2)], lt[MG_MAX_DIMS * (NAME_LEN + 2)];
    index_list(from_at, tile->rank, lf, sizeof lf);
    index_list(to_at, tile->rank, lt, sizeof lt);
    Name v;
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = memref.load %s[%s] : %s", v, e->val[from], lf,
                  e->type[from]);
    mg_lower_line(e, "memref.store %s, %s[%s] : %s", v, e->val[to], lt,
                  e->type[to]);
  } else { // an f32 accumulator tile saved to a narrower tensor
    Name v;
    load_at(e, from, from_at, v);
    store(e, to, to_at, v);
  }
  elems_end(e);
}

static void concat(Emit *e, const MgOp *op) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  const MgTensor *a = tensor(e, op->inputs[0]);
  uint32_t d = (uint32_t)op->attr;
  Index idx;
  elems_begin(e, out, idx);
  Name split, cond, v;
  mg_lower_index(e, a->dims[d], split);
  mg_lower_fresh(e, cond);
  mg_lower_line(e, "%s = arith.cmpi ult, %s, %s : index", cond, idx[d],
                split);
  mg_lower_fresh(e, v);
  mg_lower_line(e, "%s = scf.if %s -> (f32) {", v, cond);
  e->indent++;
  Name x;
  load_at(e, op->inputs[0], idx, x);
  mg_lower_line(e, "scf.yield %s : f32", x);
  e->indent--;
  mg_lower_line(e, "} else {");
  e->indent++;
  Index at;
  memcpy(at, idx, sizeof at);
  mg_lower_fresh(e, at[d]);
  mg_lower_line(e, "%s = arith.subi %s, %s : index", at[d], idx[d], split);
  load_at(e, op->inputs[1], at, x);
  mg_lower_line(e, "scf.yield %s : f32", x);
  e->indent--;
  mg_lower_line(e, "}");
  store(e, op->outputs[0], idx, v);
  elems_end(e);
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
  elems_begin(e, out, idx);
  Name vals[64];
  for (uint32_t i = 0; i < tg->num_ops; i++) {
    const MgOp *t = &tg->ops[i];
    if (t->kind == MG_OP_INPUT) {
      load(e, op->inputs[t->attr], idx, out->rank, vals[t->outputs[0]]);
      continue;
    }
    const char *b = t->num_inputs > 1 ? vals[t->inputs[1]] : "";
    if (!scalar(e, (MgOpKind)t->kind, t->scalar, vals[t->inputs[0]], b,
                vals[t->outputs[0]]))
      e->error = "a thread graph op that is not element-wise";
  }
  for (uint32_t k = first; k <= last; k++)
    store(e, op->outputs[k], idx, vals[tg->outputs[k]]);
  elems_end(e);
}

static bool same_shape(const MgTensor *a, const MgTensor *b) {
  return a->rank == b->rank &&
         memcmp(a->dims, b->dims, a->rank * sizeof a->dims[0]) == 0;
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
    uniform &= same_shape(tensor(e, op->outputs[k]), tensor(e, op->outputs[0]));
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
  elems_begin(e, out, idx);
  Name regs[32];
  for (uint32_t c = 0; c < n && c < 32; c++) {
    const MgOp *op = ops[c];
    Name in[2] = {"", ""};
    for (uint32_t k = 0; k < op->num_inputs && k < 2; k++) {
      int32_t from = -1;
      for (uint32_t j = 0; j < c; j++)
        if (ops[j]->outputs[0] == op->inputs[k])
          from = (int32_t)j;
      if (from >= 0)
        snprintf(in[k], NAME_LEN, "%s", regs[from]);
      else
        load(e, op->inputs[k], idx, out->rank, in[k]);
    }
    scalar(e, (MgOpKind)op->kind, op->scalar, in[0], in[1], regs[c]);
    if (keep[c])
      store(e, op->outputs[0], idx, regs[c]);
  }
  elems_end(e);
}

void mg_lower_op(Emit *e, const MgOp *op) {
  switch ((MgOpKind)op->kind) {
  case MG_OP_MATMUL: matmul(e, op); return;
  case MG_OP_SUM: sum(e, op); return;
  case MG_OP_ACCUM: accum(e, op); return;
  case MG_OP_ITERATOR: move_tile(e, op, false); return;
  case MG_OP_SAVER: move_tile(e, op, true); return;
  case MG_OP_CONCAT: concat(e, op); return;
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
