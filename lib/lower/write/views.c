//===- views.c - Kernel-level view ops: free views and copy kernels -------===//
//
// View ops (transpose, reshape, slice, kernel-level concat) only move
// elements. A reshape of a contiguous buffer that keeps its element type
// is free (so is a transpose moving only unit dims, or a slice of a whole
// dim: reshapes too): its result is a view of the operand's buffer
// (memref.collapse_shape to one dim, then memref.expand_shape; host.c and
// cpu.c make it), it gets no kernel, and the buffer is freed with the
// others after the last kernel. Every other view op is one copy kernel
// whose threads stride over the result's elements in row-major order, so
// consecutive threads store consecutive addresses; each reads the operand
// element the op's index map gives. The maps (result index -> operand
// index) are one function per op and pure index arithmetic, so a later
// step can fold a view into its consumer's tile loads. Where every 16-byte
// vector of the result is one contiguous, aligned vector of the operand
// (the innermost dim is not permuted; a slice or concat along it stays on
// vector boundaries) each thread moves whole vectors.
//
//===----------------------------------------------------------------------===//
#include "write/write.h"

#include <stdio.h>
#include <string.h>

static const MgTensor *tensor(Emit *e, MgTensorId id) {
  return &e->g->tensors[id];
}

// "[[0, 1, ..., rank - 1]]": one reassociation group of every dim.
static void one_group(uint32_t rank, char *out, size_t size) {
  size_t n = (size_t)snprintf(out, size, "[[");
  for (uint32_t d = 0; d < rank; d++)
    n += (size_t)snprintf(out + n, size - n, "%s%u", d ? ", " : "", d);
  snprintf(out + n, size - n, "]]");
}

Memref mg_lower_tensor_memref(const Emit *e, MgTensorId t) {
  Memref m;
  snprintf(m.val, NAME_LEN, "%s", e->val[t]);
  snprintf(m.type, TYPE_LEN, "%s", e->type[t]);
  return m;
}

void mg_lower_bind_memref(Emit *e, MgTensorId t, const Memref *m) {
  snprintf(e->val[t], NAME_LEN, "%s", m->val);
  snprintf(e->type[t], TYPE_LEN, "%s", m->type);
}

void mg_lower_reshape_view(Emit *e, const MgTensor *from, const MgTensor *to,
                           Memref *m) {
  char *out = m->val, *out_type = m->type;
  if (from->rank == to->rank &&
      memcmp(from->dims, to->dims, to->rank * sizeof to->dims[0]) == 0)
    return;
  char groups[64];
  if (from->rank > 1) {
    MgTensor flat = *from;
    flat.rank = 1;
    flat.dims[0] = mg_tensor_numel(from);
    char flat_type[TYPE_LEN];
    mg_lower_memref_type(&flat, (MgDType)from->dtype, NULL, flat_type);
    one_group(from->rank, groups, sizeof groups);
    Name v;
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = memref.collapse_shape %s %s : %s into %s", v, out,
                  groups, out_type, flat_type);
    snprintf(out, NAME_LEN, "%s", v);
    snprintf(out_type, TYPE_LEN, "%s", flat_type);
  }
  if (to->rank > 1) {
    char to_type[TYPE_LEN], shape[96];
    mg_lower_memref_type(to, (MgDType)to->dtype, NULL, to_type);
    one_group(to->rank, groups, sizeof groups);
    size_t n = 0;
    shape[0] = '\0';
    for (uint32_t d = 0; d < to->rank; d++)
      n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%lld",
                            d ? ", " : "", (long long)to->dims[d]);
    Name v;
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = memref.expand_shape %s %s output_shape [%s] : %s "
                     "into %s", v, out, groups, shape, out_type, to_type);
    snprintf(out, NAME_LEN, "%s", v);
    snprintf(out_type, TYPE_LEN, "%s", to_type);
  }
}

//===--- Index maps: result element -> operand element --------------------===//

// Result dim d is operand dim perm[d].
static void transpose_source(const MgOp *op, uint32_t rank, Index idx,
                             Index at) {
  for (uint32_t d = 0; d < rank; d++)
    snprintf(at[op->perm[d]], NAME_LEN, "%s", idx[d]);
}

// The slice starts at `first` along its dim.
static void slice_source(Emit *e, const MgOp *op, uint32_t rank, Index idx,
                         Index at) {
  memcpy(at, idx, rank * sizeof(Name));
  uint32_t d = (uint32_t)op->attr;
  if (op->shape[0] == 0)
    return;
  Name first;
  mg_lower_index(e, op->shape[0], first);
  mg_lower_index_op(e, "arith.addi", idx[d], first, at[d]);
}

// Row-major: the result's linear index, delinearized over the operand.
// Divisions by constants only (multiplications and shifts in PTX).
static void reshape_source(Emit *e, const MgOp *op, Index idx, Index at) {
  const MgTensor *r = tensor(e, op->outputs[0]);
  Name lin = "";
  for (uint32_t d = 0; d < r->rank; d++) {
    if (r->dims[d] == 1)
      continue; // index 0: adds nothing
    if (!lin[0]) {
      snprintf(lin, NAME_LEN, "%s", idx[d]);
      continue;
    }
    Name n, scaled;
    mg_lower_index(e, r->dims[d], n);
    mg_lower_index_op(e, "arith.muli", lin, n, scaled);
    mg_lower_index_op(e, "arith.addi", scaled, idx[d], lin);
  }
  if (!lin[0])
    mg_lower_index(e, 0, lin);
  const MgTensor *a = tensor(e, op->inputs[0]);
  mg_lower_delinearize(e, a, a->rank, lin, at);
}

void mg_lower_concat_source(Emit *e, const MgOp *op, uint32_t k, Index idx,
                            Index at) {
  const MgTensor *r = tensor(e, op->outputs[0]);
  uint32_t d = (uint32_t)op->attr;
  memcpy(at, idx, r->rank * sizeof(Name));
  int64_t offset = 0;
  for (uint32_t j = 0; j < k; j++)
    offset += tensor(e, op->inputs[j])->dims[d];
  if (offset == 0)
    return;
  Name c;
  mg_lower_index(e, offset, c);
  mg_lower_index_op(e, "arith.subi", idx[d], c, at[d]);
}

void mg_lower_view_source(Emit *e, const MgOp *op, Index idx, Index at) {
  uint32_t rank = tensor(e, op->outputs[0])->rank;
  switch ((MgOpKind)op->kind) {
  case MG_OP_TRANSPOSE: transpose_source(op, rank, idx, at); return;
  case MG_OP_SLICE: slice_source(e, op, rank, idx, at); return;
  case MG_OP_RESHAPE: reshape_source(e, op, idx, at); return;
  default:
    e->error = "an index map of an op that is not a single-operand view";
    return;
  }
}

//===--- Copy kernels -----------------------------------------------------===//

// Result element `idx` (with vw > 1: the vector starting there) from the
// operand element `at`. One type: moved as it is; else through f32.
static void copy_at(Emit *e, MgTensorId from, Index at, MgTensorId to,
                    Index idx, int64_t vw) {
  char lf[MG_MAX_DIMS * (NAME_LEN + 2)], lt[MG_MAX_DIMS * (NAME_LEN + 2)];
  mg_lower_index_list(at, tensor(e, from)->rank, lf, sizeof lf);
  mg_lower_index_list(idx, tensor(e, to)->rank, lt, sizeof lt);
  Name x;
  if (vw > 1) {
    char vec[32];
    snprintf(vec, sizeof vec, "vector<%lldx%s>", (long long)vw,
             mg_lower_elt((MgDType)e->dtype[to]));
    // mg_lower_view_vector_width checked that both addresses are 16-byte
    // aligned (the buffers are, kernel arguments say so): one 128-bit
    // access each. The CPU form states nothing (its buffers come from
    // the caller).
    const char *align =
        e->mode == MG_LOWER_CPU ? "" : " {alignment = 16 : i64}";
    mg_lower_fresh(e, x);
    mg_lower_line(e, "%s = vector.load %s[%s]%s : %s, %s", x, e->val[from], lf,
                  align, e->type[from], vec);
    mg_lower_line(e, "vector.store %s, %s[%s]%s : %s, %s", x, e->val[to], lt,
                  align, e->type[to], vec);
    return;
  }
  if (e->dtype[from] == e->dtype[to]) {
    mg_lower_fresh(e, x);
    mg_lower_line(e, "%s = memref.load %s[%s] : %s", x, e->val[from], lf,
                  e->type[from]);
    mg_lower_line(e, "memref.store %s, %s[%s] : %s", x, e->val[to], lt,
                  e->type[to]);
    return;
  }
  mg_lower_load_at(e, from, at, x);
  mg_lower_store(e, to, idx, x);
}

// Opens the loop over `t`'s elements, or its vectors when vw > 1.
static void copy_loop_begin(Emit *e, const MgTensor *t, int64_t vw,
                            Index idx) {
  if (vw > 1)
    mg_lower_vector_elems_begin(e, t, t->rank, vw, idx);
  else
    mg_lower_elems_begin(e, t, idx);
}

// Concat: one loop per operand over its part of the result (no branch per
// element); part k's element `rel` is result element rel + offset.
static void concat_parts(Emit *e, const MgOp *op, int64_t vw) {
  uint32_t d = (uint32_t)op->attr;
  int64_t offset = 0;
  for (uint32_t k = 0; k < op->num_inputs; k++) {
    const MgTensor *part = tensor(e, op->inputs[k]);
    Index rel, idx, at;
    copy_loop_begin(e, part, vw, rel);
    memcpy(idx, rel, sizeof idx);
    if (offset) {
      Name c;
      mg_lower_index(e, offset, c);
      mg_lower_index_op(e, "arith.addi", rel[d], c, idx[d]);
    }
    mg_lower_concat_source(e, op, k, idx, at);
    copy_at(e, op->inputs[k], at, op->outputs[0], idx, vw);
    mg_lower_elems_end(e);
    offset += part->dims[d];
  }
}

// out = clamp(v, 0, hi - 1) and `inside` = (v == out): the patch element
// is read at a clamped (in-bounds) position and replaced by 0 when it was
// outside, so the copy needs no branch.
static void clamp_row(Emit *e, const char *v, int64_t hi, Name out,
                      Name inside) {
  Name zero, top, low;
  mg_lower_index(e, 0, zero);
  mg_lower_index(e, hi - 1, top);
  mg_lower_index_op(e, "arith.maxsi", v, zero, low);
  mg_lower_index_op(e, "arith.minsi", low, top, out);
  mg_lower_index_op(e, "arith.cmpi eq,", v, out, inside);
}

// The input row of output row `o` and window tap `t` as index
// arithmetic: o * step[0] + t * step[1] - step[2] (stride, dilation and
// the leading padding, constants).
static void window_pos(Emit *e, const char *o, const char *t,
                       const int64_t step[3], Name out) {
  Name cc, dd, pp, x, y, s;
  mg_lower_index(e, step[0], cc);
  mg_lower_index(e, step[1], dd);
  mg_lower_index_op(e, "arith.muli", o, cc, x);
  mg_lower_index_op(e, "arith.muli", t, dd, y);
  mg_lower_index_op(e, "arith.addi", x, y, s);
  if (!step[2]) {
    snprintf(out, NAME_LEN, "%s", s);
    return;
  }
  mg_lower_index(e, step[2], pp);
  mg_lower_index_op(e, "arith.subi", s, pp, out);
}

void mg_lower_im2col_source(Emit *e, const MgIm2col *c, const MgTensor *x,
                            Name *gmk, Index at, Name inside) {
  int64_t ho, wo, cg = x->dims[3] / c->groups;
  mg_im2col_out_hw(c, x->dims[1], x->dims[2], &ho, &wo);
  MgTensor rows = {.rank = 3, .dims = {x->dims[0], ho, wo}};
  MgTensor cols = {.rank = 3, .dims = {c->kh, c->kw, cg}};
  Index m, k;
  mg_lower_delinearize(e, &rows, 3, gmk[1], m);
  mg_lower_delinearize(e, &cols, 3, gmk[2], k);
  Name h, w, in_h, in_w, base, cgn;
  window_pos(e, m[1], k[0], (const int64_t[3]){c->sh, c->dh, c->pad_top}, h);
  window_pos(e, m[2], k[1], (const int64_t[3]){c->sw, c->dw, c->pad_left},
             w);
  snprintf(at[0], NAME_LEN, "%s", m[0]);
  clamp_row(e, h, x->dims[1], at[1], in_h);
  clamp_row(e, w, x->dims[2], at[2], in_w);
  mg_lower_index(e, cg, cgn);
  mg_lower_index_op(e, "arith.muli", gmk[0], cgn, base);
  mg_lower_index_op(e, "arith.addi", base, k[2], at[3]);
  mg_lower_fresh(e, inside);
  mg_lower_line(e, "%s = arith.andi %s, %s : i1", inside, in_h, in_w);
}

void mg_lower_im2col_value(Emit *e, const Memref *x, MgDType dt, Index at,
                           const char *inside, Name out) {
  char list[4 * (NAME_LEN + 2)];
  mg_lower_index_list(at, 4, list, sizeof list);
  Name raw, v, zero;
  mg_lower_fresh(e, raw);
  mg_lower_line(e, "%s = memref.load %s[%s] : %s", raw, x->val, list,
                x->type);
  if (dt == MG_DTYPE_F32) {
    snprintf(v, NAME_LEN, "%s", raw);
  } else {
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = arith.extf %s : %s to f32", v, raw,
                  mg_lower_elt(dt));
  }
  mg_lower_f32_const(e, 0.0, zero);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = arith.select %s, %s, %s : f32", out, inside, v,
                zero);
}

// Im2col: result element (g, m, k) is input element (n, h, w, g·Cg + c)
// with m = (n, ho, wo), k = (i, j, c), h = ho·sh + i·dh − top and
// w = wo·sw + j·dw − left (mg_im2col_source), 0 outside the input.
static void im2col(Emit *e, const MgOp *op) {
  MgIm2col c = mg_op_im2col(op);
  Index idx, at;
  Name inside, out;
  mg_lower_elems_begin(e, tensor(e, op->outputs[0]), idx);
  mg_lower_im2col_source(e, &c, tensor(e, op->inputs[0]), idx, at, inside);
  MgTensorId x = op->inputs[0];
  Memref xm = mg_lower_tensor_memref(e, x);
  mg_lower_im2col_value(e, &xm, (MgDType)e->dtype[x], at, inside, out);
  mg_lower_store(e, op->outputs[0], idx, out);
  mg_lower_elems_end(e);
}

void mg_lower_view(Emit *e, const MgOp *op) {
  if (e->g->level != MG_LEVEL_KERNEL || !mg_op_is_view(op, MG_LEVEL_KERNEL)) {
    e->error = "a view op outside a kernel graph";
    return;
  }
  MgOpId id = (MgOpId)(op - e->g->ops);
  int64_t vw = mg_lower_view_vector_width(e->g, op);
  // The launch (decide/launch.c) is fixed, so the step is a known constant: each
  // thread's position is then split once or carried (ops.c), never divided
  // by a run-time value. The CPU form runs the same threads in turn.
  int64_t threads =
      mg_lower_predefined_blocks(e->p, id) * MG_LOWER_PREDEFINED_THREADS;
  Name step;
  int64_t step_value = e->step_value;
  snprintf(step, NAME_LEN, "%s", e->step);
  if (e->mode != MG_LOWER_CPU)
    mg_lower_index(e, threads, e->step);
  e->step_value = threads;
  if (op->kind == MG_OP_CONCAT) {
    concat_parts(e, op, vw);
  } else if (op->kind == MG_OP_IM2COL) {
    im2col(e, op);
  } else {
    const MgTensor *r = tensor(e, op->outputs[0]);
    Index idx, at;
    copy_loop_begin(e, r, vw, idx);
    mg_lower_view_source(e, op, idx, at);
    copy_at(e, op->inputs[0], at, op->outputs[0], idx, vw);
    mg_lower_elems_end(e);
  }
  snprintf(e->step, NAME_LEN, "%s", step);
  e->step_value = step_value;
}
