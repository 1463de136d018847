//===- elements.c - Element loops and the scalar helpers ------------------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "write/write.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const MgTensor *tensor(Emit *e, MgTensorId id) {
  return &e->g->tensors[id];
}

// Delinearizes `lin` over dims [0, end) of `t` (row-major) into idx.
void mg_lower_delinearize(Emit *e, const MgTensor *t, uint32_t end,
                          const char *lin, Index idx) {
  Name rest;
  snprintf(rest, sizeof rest, "%s", lin);
  for (uint32_t d = end; d-- > 0;) {
    if (t->dims[d] == 1) {
      mg_lower_index(e, 0, idx[d]);
      continue;
    }
    if (d == 0 || mg_tensor_numel(t) / t->dims[d] == 1) {
      snprintf(idx[d], NAME_LEN, "%s", rest);
      for (uint32_t z = 0; z < d; z++) // the rest are size 1
        mg_lower_index(e, 0, idx[z]);
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

// Opens `scf.if %pos < bound` around the body when `pos` may pass the
// bound (the step does not divide the loop's extent): the tail of a loop
// whose trip count is the same for every thread.
static void elems_guard(Emit *e, const char *pos, int64_t bound) {
  Name hi, in;
  mg_lower_index(e, bound, hi);
  mg_lower_index_op(e, "arith.cmpi ult,", pos, hi, in);
  mg_lower_line(e, "scf.if %s {", in);
  e->indent++;
  e->elem_guard = true;
}

// `scf.for %k = 0 to n step s` and pos = lo + k: a trip count of
// ceil(n / s) that does not depend on the thread (lo < s), so LLVM and
// ptxas can unroll the loop and issue its loads together.
static void elems_for(Emit *e, const char *lo, int64_t n, int64_t s,
                      Name pos) {
  Name zero, hi, st, k;
  mg_lower_index(e, 0, zero);
  mg_lower_index(e, n, hi);
  mg_lower_index(e, s, st);
  mg_lower_fresh(e, k);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", k, zero, hi, st);
  e->indent++;
  mg_lower_index_op(e, "arith.addi", lo, k, pos);
}

// Opens the element loop over `t`; idx gets one index per dim. Element
// lin goes to thread lin mod step, as a linear strided loop would give it.
// With a known step (the block's threads) no loop bound depends on the
// thread: each loop runs a constant trip count (elems_for), and threads
// past the end skip the body (elems_guard) only when the step does not
// divide the extent. The loops run over (outer, inner) positions directly
// (the step divides the innermost extent, or is a multiple of it, or the
// position is carried and advanced by it): no division by a non-power of
// two per element.
static void elems_begin_threads(Emit *e, const MgTensor *t, Index idx) {
  int64_t step = e->step_value;
  int last = -1;
  for (int d = (int)t->rank - 1; d >= 0 && last < 0; d--)
    if (t->dims[d] > 1)
      last = d;
  int64_t inner = last >= 0 ? t->dims[last] : 1;
  int64_t outer = mg_tensor_numel(t) / inner;
  for (uint32_t d = (uint32_t)(last + 1); d < t->rank; d++)
    mg_lower_index(e, 0, idx[d]);
  if (last >= 0 && step > 0 && inner % step == 0) {
    // Every thread visits every outer index, striding over the inner one.
    Name o = "", j;
    if (outer > 1) {
      Name zero, one, hi;
      mg_lower_index(e, 0, zero);
      mg_lower_index(e, 1, one);
      mg_lower_index(e, outer, hi);
      mg_lower_fresh(e, o);
      mg_lower_line(e, "scf.for %s = %s to %s step %s {", o, zero, hi, one);
      e->indent++;
    }
    elems_for(e, e->lo, inner, step, j);
    e->elem_loops = outer > 1 ? 2 : 1;
    snprintf(idx[last], NAME_LEN, "%s", j);
    if (outer > 1)
      mg_lower_delinearize(e, t, (uint32_t)last, o, idx);
    else
      for (int d = 0; d < last; d++)
        mg_lower_index(e, 0, idx[d]);
    return;
  }
  if (last >= 0 && step > 0 && step % inner == 0) {
    // The inner index is the thread's own; the outer one strides.
    Name n, j, o0, o;
    int64_t ostep = step / inner;
    mg_lower_index(e, inner, n);
    mg_lower_index_op(e, "arith.remui", e->lo, n, j);
    mg_lower_index_op(e, "arith.divui", e->lo, n, o0);
    elems_for(e, o0, outer, ostep, o);
    e->elem_loops = 1;
    if (outer % ostep)
      elems_guard(e, o, outer);
    snprintf(idx[last], NAME_LEN, "%s", j);
    mg_lower_delinearize(e, t, (uint32_t)last, o, idx);
    return;
  }
  int64_t total = mg_tensor_numel(t);
  if (last >= 0 && step > 0 && outer > 1) {
    // Neither divides the other: the (outer, inner) position is carried
    // through the loop and advanced by the step with one compare, instead
    // of a division and a remainder per element.
    Name n, j0, o0, zero, hi, st, k, res;
    mg_lower_index(e, inner, n);
    mg_lower_index_op(e, "arith.remui", e->lo, n, j0);
    mg_lower_index_op(e, "arith.divui", e->lo, n, o0);
    mg_lower_index(e, 0, zero);
    mg_lower_index(e, total, hi);
    mg_lower_index(e, step, st);
    mg_lower_fresh(e, res);
    mg_lower_fresh(e, k);
    mg_lower_fresh(e, e->carry_o);
    mg_lower_fresh(e, e->carry_j);
    mg_lower_line(e, "%s:2 = scf.for %s = %s to %s step %s iter_args(%s = %s, "
                     "%s = %s) -> (index, index) {", res, k, zero, hi, st,
                  e->carry_o, o0, e->carry_j, j0);
    e->indent++;
    e->elem_loops = 1;
    e->carry_inner = inner;
    e->carry_step = step;
    if (total % step) {
      Name lin;
      mg_lower_index_op(e, "arith.addi", e->lo, k, lin);
      elems_guard(e, lin, total);
    }
    snprintf(idx[last], NAME_LEN, "%s", e->carry_j);
    mg_lower_delinearize(e, t, (uint32_t)last, e->carry_o, idx);
    return;
  }
  Name lin;
  if (step > 0) {
    elems_for(e, e->lo, total, step, lin);
    if (total % step)
      elems_guard(e, lin, total);
  } else { // a grid-wide stride known only at run time
    Name n;
    mg_lower_index(e, total, n);
    mg_lower_fresh(e, lin);
    mg_lower_line(e, "scf.for %s = %s to %s step %s {", lin, e->lo, n,
                  e->step);
    e->indent++;
  }
  e->elem_loops = 1;
  mg_lower_delinearize(e, t, t->rank, lin, idx);
}

// The CPU form runs the GPU's threads one after the other (the elements
// of one loop are independent), with the GPU's index arithmetic, so the
// JIT checks that arithmetic too.
void mg_lower_elems_begin(Emit *e, const MgTensor *t, Index idx) {
  if (e->mode != MG_LOWER_CPU || e->step_value <= 1) {
    elems_begin_threads(e, t, idx);
    return;
  }
  Name zero, one, hi, tid, step;
  mg_lower_index(e, 0, zero);
  mg_lower_index(e, 1, one);
  mg_lower_index(e, e->step_value, hi);
  mg_lower_fresh(e, tid);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", tid, zero, hi, one);
  e->indent++;
  Name lo, st;
  snprintf(lo, NAME_LEN, "%s", e->lo);
  snprintf(st, NAME_LEN, "%s", e->step);
  snprintf(e->lo, NAME_LEN, "%s", tid);
  mg_lower_index(e, e->step_value, step);
  snprintf(e->step, NAME_LEN, "%s", step);
  elems_begin_threads(e, t, idx);
  snprintf(e->lo, NAME_LEN, "%s", lo);
  snprintf(e->step, NAME_LEN, "%s", st);
  e->elem_loops++;
}

void mg_lower_elems_end(Emit *e) {
  if (e->elem_guard) {
    e->indent--;
    mg_lower_line(e, "}");
    e->elem_guard = false;
  }
  if (e->carry_inner) {
    // The next position: j + step mod inner, o + step div inner + wrap.
    Name dj, dout, j1, o1, n, wrap, jw, ow, one, j2, o2;
    mg_lower_index(e, e->carry_step % e->carry_inner, dj);
    mg_lower_index(e, e->carry_step / e->carry_inner, dout);
    mg_lower_index(e, e->carry_inner, n);
    mg_lower_index(e, 1, one);
    mg_lower_index_op(e, "arith.addi", e->carry_j, dj, j1);
    mg_lower_index_op(e, "arith.addi", e->carry_o, dout, o1);
    mg_lower_index_op(e, "arith.cmpi uge,", j1, n, wrap);
    mg_lower_index_op(e, "arith.subi", j1, n, jw);
    mg_lower_index_op(e, "arith.addi", o1, one, ow);
    mg_lower_fresh(e, j2);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : index", j2, wrap, jw, j1);
    mg_lower_fresh(e, o2);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : index", o2, wrap, ow, o1);
    mg_lower_line(e, "scf.yield %s, %s : index, index", o2, j2);
    e->carry_inner = 0;
  }
  for (int k = 0; k < e->elem_loops; k++) {
    e->indent--;
    mg_lower_line(e, "}");
  }
  e->elem_loops = 0;
  if (e->barrier)
    mg_lower_line(e, "gpu.barrier");
}

// "%a, %b, %c": the index list of a load or store.
void mg_lower_index_list(Name *idx, uint32_t rank, char *out,
                         size_t size) {
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

void mg_lower_broadcast(Emit *e, const MgTensor *a, Index idx, uint32_t rank,
                        Index out) {
  broadcast(e, a, idx, rank, out);
}

// Loads element `at` of tensor `id` as f32 into `out`.
void mg_lower_load_at(Emit *e, MgTensorId id, Name *at, Name out) {
  const MgTensor *t = tensor(e, id);
  char list[MG_MAX_DIMS * (NAME_LEN + 2)];
  mg_lower_index_list(at, t->rank, list, sizeof list);
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
  mg_lower_load_at(e, id, at, out);
}

void mg_lower_load(Emit *e, MgTensorId id, Index idx, uint32_t rank,
                   Name out) {
  load(e, id, idx, rank, out);
}

void mg_lower_store(Emit *e, MgTensorId id, Index idx, const char *v) {
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
  mg_lower_index_list(idx, t->rank, list, sizeof list);
  mg_lower_line(e, "memref.store %s, %s[%s] : %s", x, e->val[id], list,
                e->type[id]);
}

void mg_lower_f32_const(Emit *e, double v, Name out) {
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
// fewer, never a reassociation); divisions stay exact IEEE, maxima exact.
static void binary(Emit *e, const char *op, const char *a, const char *b,
                   Name out) {
  mg_lower_fresh(e, out);
  bool contract = strcmp(op, "arith.divf") != 0 &&
                  strcmp(op, "arith.maximumf") != 0;
  mg_lower_line(e, "%s = %s %s, %s%s : f32", out, op, a, b,
                contract ? " fastmath<contract>" : "");
}

static void unary(Emit *e, const char *op, const char *a, Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = %s %s : f32", out, op, a);
}

void mg_lower_binary(Emit *e, const char *op, const char *a, const char *b,
                     Name out) {
  binary(e, op, a, b, out);
}

void mg_lower_unary(Emit *e, const char *op, const char *a, Name out) {
  unary(e, op, a, out);
}

static bool scalar(Emit *e, MgOpKind kind, double s, const char *a,
                   const char *b, Name out);

bool mg_lower_scalar(Emit *e, MgOpKind kind, double s, const char *a,
                     const char *b, Name out) {
  return scalar(e, kind, s, a, b, out);
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
  // NaN-propagating (llvm.maximum: max.NaN.f32 from sm_80), as lib/interp's
  // `x > y || isnan(x) ? x : y`; they differ only in max(-0, +0), which
  // maximumf makes +0 and the interpreter the second operand.
  case MG_OP_MAX: binary(e, "arith.maximumf", a, b, out); return true;
  case MG_OP_EXP: unary(e, "math.exp", a, out); return true;
  case MG_OP_SQUARE: binary(e, "arith.mulf", a, a, out); return true;
  case MG_OP_SQRT: unary(e, "math.sqrt", a, out); return true;
  case MG_OP_RSQRT: unary(e, "math.rsqrt", a, out); return true;
  case MG_OP_SILU: // x / (1 + exp(-x))
    unary(e, "arith.negf", a, t1);
    unary(e, "math.exp", t1, t2);
    mg_lower_f32_const(e, 1.0, c);
    binary(e, "arith.addf", t2, c, t1);
    binary(e, "arith.divf", a, t1, out);
    return true;
  case MG_OP_GELU: // x/2 (1 + erf(x / sqrt 2)), as lib/interp
    mg_lower_f32_const(e, 0.70710678118654752, c);
    binary(e, "arith.mulf", a, c, t1);
    unary(e, "math.erf", t1, t2);
    mg_lower_f32_const(e, 1.0, c);
    binary(e, "arith.addf", t2, c, t1);
    binary(e, "arith.mulf", a, t1, t2);
    mg_lower_f32_const(e, 0.5, c);
    binary(e, "arith.mulf", t2, c, out);
    return true;
  case MG_OP_LOG: unary(e, "math.log", a, out); return true;
  case MG_OP_TANH: unary(e, "math.tanh", a, out); return true;
  case MG_OP_ERF: unary(e, "math.erf", a, out); return true;
  case MG_OP_RELU: // x > 0 ? x : 0, so NaN gives 0 as in lib/interp
    mg_lower_f32_const(e, 0.0, c);
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
  case MG_OP_ADD_SCALAR:
    scalar_op(e, "arith.addf", a, s, out);
    return true;
  case MG_OP_MAX_SCALAR: // NaN-propagating, as MG_OP_MAX
    scalar_op(e, "arith.maximumf", a, s, out);
    return true;
  case MG_OP_MIN_SCALAR:
    scalar_op(e, "arith.minimumf", a, s, out);
    return true;
  default:
    return false;
  }
}

// Opens the loop over the tile's vectors (its first `rank` dims); idx gets
// element indices (the innermost one the vector's first element).
void mg_lower_vector_elems_begin(Emit *e, const MgTensor *tile,
                                 uint32_t rank, int64_t vw, Index idx) {
  MgTensor vt = *tile;
  vt.rank = (uint8_t)rank;
  uint32_t last = rank - 1;
  vt.dims[last] /= vw;
  mg_lower_elems_begin(e, &vt, idx);
  Name w, first;
  mg_lower_index(e, vw, w);
  mg_lower_index_op(e, "arith.muli", idx[last], w, first);
  snprintf(idx[last], NAME_LEN, "%s", first);
}
