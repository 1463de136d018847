//===- views.c - Kernel-level view ops: transpose, reshape, slice ---------===//
//
// A view only moves cells, so it runs here once for every domain (floats,
// residue pairs, error estimates): the domain is never called. Each view
// writes an owned copy rather than borrowing its operand's cells, because
// the kernel executor frees an operand right after its last reader. Shapes
// come from the operand and the op's attributes, as everywhere in the
// executor, so a malformed view gets a diagnostic. Kernel-level CONCAT is
// the block-level one on whole tensors (ops.c).
//
//===----------------------------------------------------------------------===//
#include "exec_internal.h"

#include <string.h>

static MgStatus eval_transpose(MgExec *ex, const MgOp *op, const MgBuffer *a,
                               MgExecValue *out) {
  int64_t dense[MG_MAX_DIMS], stride[MG_MAX_DIMS], dims[MG_MAX_DIMS];
  bool seen[MG_MAX_DIMS] = {false};
  int64_t s = 1;
  for (uint32_t d = a->rank; d-- > 0;) {
    dense[d] = s;
    s *= a->dims[d];
  }
  for (uint32_t d = 0; d < a->rank; ++d) {
    int8_t from = op->perm[d];
    if (from < 0 || (uint32_t)from >= a->rank || seen[from])
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "transpose perm is not a permutation of rank %u",
                            a->rank);
    seen[from] = true;
    dims[d] = a->dims[from];
    stride[d] = dense[from]; // result dim d walks operand dim perm[d]
  }
  MgStatus st = mg_interp_value_shape(ex, out, a->rank, dims);
  if (st == MG_STATUS_OK)
    mg_interp_strided_copy(a->data, stride, out->buf.data, a->rank, dims);
  return st;
}

static MgStatus eval_reshape(MgExec *ex, const MgOp *op, const MgBuffer *a,
                             MgExecValue *out) {
  size_t n, m;
  uint32_t rank = (uint32_t)op->attr;
  if (op->attr < 1 || op->attr > MG_MAX_DIMS ||
      !mg_interp_numel(rank, op->shape, &n) ||
      !mg_interp_numel(a->rank, a->dims, &m) || n != m)
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "reshape does not keep the element count");
  // Row-major on both sides: the cells keep their order.
  MgStatus st = mg_interp_value_shape(ex, out, rank, op->shape);
  if (st == MG_STATUS_OK && n)
    memcpy(out->buf.data, a->data, n * sizeof(MgCell));
  return st;
}

static MgStatus eval_slice(MgExec *ex, const MgOp *op, const MgBuffer *a,
                           MgExecValue *out) {
  int32_t d = op->attr;
  int64_t first = op->shape[0], count = op->shape[1];
  if (d < 0 || (uint32_t)d >= a->rank || first < 0 || count < 0 ||
      first > a->dims[d] - count)
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "slice is out of the operand's bounds");
  int64_t dims[MG_MAX_DIMS], soff[MG_MAX_DIMS] = {0}, doff[MG_MAX_DIMS] = {0};
  memcpy(dims, a->dims, sizeof dims);
  dims[d] = count;
  soff[d] = first;
  MgStatus st = mg_interp_value_shape(ex, out, a->rank, dims);
  if (st == MG_STATUS_OK)
    mg_interp_copy_box(a->data, (MgBoxAt){a->dims, soff}, out->buf.data,
                       (MgBoxAt){dims, doff}, dims, a->rank);
  return st;
}

// Patches: each result cell is an input cell or, outside the input, the
// domain's zero (the one value a view makes rather than moves).
static MgStatus eval_im2col(MgExec *ex, const MgOp *op, const MgBuffer *a,
                            MgExecValue *out) {
  MgIm2col c = mg_op_im2col(op);
  MgTensor x = {.rank = (uint8_t)a->rank};
  memcpy(x.dims, a->dims, sizeof x.dims);
  int64_t ho, wo;
  if (a->rank != 4 || c.groups < 1 || a->dims[3] % c.groups)
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "im2col of a tensor that is not NHWC with channels "
                          "in whole groups");
  mg_im2col_out_hw(&c, a->dims[1], a->dims[2], &ho, &wo);
  if (ho < 1 || wo < 1)
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "im2col window does not fit its input");
  int64_t dims[3] = {c.groups, a->dims[0] * ho * wo,
                     c.kh * c.kw * (a->dims[3] / c.groups)};
  MgStatus st = mg_interp_value_shape(ex, out, 3, dims);
  if (st != MG_STATUS_OK)
    return st;
  MgCell *o = out->buf.data;
  int64_t idx[3], at[4];
  for (idx[0] = 0; idx[0] < dims[0]; idx[0]++)
    for (idx[1] = 0; idx[1] < dims[1]; idx[1]++)
      for (idx[2] = 0; idx[2] < dims[2]; idx[2]++)
        *o++ = mg_im2col_source(&c, &x, idx, at)
                   ? a->data[((at[0] * a->dims[1] + at[1]) * a->dims[2] +
                              at[2]) * a->dims[3] + at[3]]
                   : ex->dom->zero;
  return MG_STATUS_OK;
}

MgStatus mg_interp_eval_view(MgExec *ex, const MgOp *op, MgExecValue *vals) {
  const MgBuffer *a = mg_interp_operand(ex, op, 0, vals);
  if (!a)
    return MG_STATUS_INVALID;
  MgExecValue *out = &vals[op->outputs[0]];
  switch ((MgOpKind)op->kind) {
  case MG_OP_TRANSPOSE:
    return eval_transpose(ex, op, a, out);
  case MG_OP_RESHAPE:
    return eval_reshape(ex, op, a, out);
  case MG_OP_SLICE:
    return eval_slice(ex, op, a, out);
  case MG_OP_IM2COL:
    return eval_im2col(ex, op, a, out);
  default:
    return mg_interp_fail(ex, MG_STATUS_INVALID, "'%s' is not a view op",
                          mg_op_kind_name((MgOpKind)op->kind));
  }
}
