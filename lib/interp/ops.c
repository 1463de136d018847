//===- ops.c - Ops that mean the same at every level ----------------------===//
//
// Matmul, element-wise ops, SUM and CONCAT on whole arrays: a kernel op on
// DRAM tensors and a block op on tiles run the same code. Shapes are derived
// from the operands here (the executor's source of truth), so a malformed
// program gets a diagnostic. The domain is called once per array (or per
// 2-D matmul slice, or per reduced row block), never per element.
//
//===----------------------------------------------------------------------===//
#include "exec_internal.h"

#include <string.h>

const MgBuffer *mg_interp_operand(MgExec *ex, const MgOp *op, uint32_t k,
                                  MgExecValue *vals) {
  if (k >= op->num_inputs) {
    mg_interp_fail(ex, MG_STATUS_INVALID, "'%s' expects operand %u",
                   mg_op_kind_name((MgOpKind)op->kind), k);
    return NULL;
  }
  const MgBuffer *b = &vals[op->inputs[k]].buf;
  if (!b->data) {
    mg_interp_fail(ex, MG_STATUS_INVALID,
                   "operand %u of '%s' was never computed", k,
                   mg_op_kind_name((MgOpKind)op->kind));
    return NULL;
  }
  return b;
}

/// Right-aligned broadcast of two shapes (size-1 dims stretch).
static bool broadcast_shape(const MgBuffer *a, const MgBuffer *b,
                            uint32_t *rank, int64_t *dims) {
  uint32_t r = a->rank > b->rank ? a->rank : b->rank;
  for (uint32_t d = 0; d < r; ++d) {
    int64_t x = d + a->rank >= r ? a->dims[d + a->rank - r] : 1;
    int64_t y = d + b->rank >= r ? b->dims[d + b->rank - r] : 1;
    if (x != y && x != 1 && y != 1)
      return false;
    dims[d] = x == 1 ? y : x;
  }
  *rank = r;
  return true;
}

MgStatus mg_interp_reduce(MgExec *ex, const MgCell *src, size_t outer,
                          size_t n, size_t inner, MgCell *dst) {
  const MgDomain *dom = ex->dom;
  mg_interp_fill(dst, dom->zero, outer * inner);
  MgStatus st = MG_STATUS_OK;
  // Long inner runs (or a single outer block) are summed in place; short
  // ones are first transposed to (n, outer, inner) so that the domain sees
  // n calls of outer*inner cells instead of outer*n tiny calls.
  if (outer == 1 || inner >= 64) {
    for (size_t o = 0; o < outer && st == MG_STATUS_OK; ++o)
      for (size_t j = 0; j < n && st == MG_STATUS_OK; ++j)
        st = dom->add_into(ex->dctx, dst + o * inner,
                           src + (o * n + j) * inner, inner);
  } else {
    MgCell *t = mg_interp_scratch(ex, MG_EXEC_SCRATCH_PERM, outer * n * inner);
    if (!t)
      return mg_interp_fail(ex, MG_STATUS_NOMEM, "out of memory in a sum");
    int64_t dims[3] = {(int64_t)n, (int64_t)outer, (int64_t)inner};
    int64_t stride[3] = {(int64_t)inner, (int64_t)(n * inner), 1};
    mg_interp_strided_copy(src, stride, t, 3, dims);
    for (size_t j = 0; j < n && st == MG_STATUS_OK; ++j)
      st = dom->add_into(ex->dctx, dst, t + j * outer * inner, outer * inner);
  }
  return mg_interp_domain_check(ex, st, "add_into");
}

MgStatus mg_interp_reduce_max(MgExec *ex, const MgCell *src, size_t outer,
                              size_t n, size_t inner, MgCell *dst) {
  if (n == 0)
    return mg_interp_fail(ex, MG_STATUS_INVALID, "max over an empty dim");
  MgStatus st = MG_STATUS_OK;
  for (size_t o = 0; o < outer && st == MG_STATUS_OK; ++o) {
    MgCell *d = dst + o * inner;
    memcpy(d, src + o * n * inner, inner * sizeof(MgCell));
    for (size_t j = 1; j < n && st == MG_STATUS_OK; ++j)
      st = ex->dom->binary(ex->dctx, MG_OP_MAX, d, src + (o * n + j) * inner,
                           d, inner);
  }
  return mg_interp_domain_check(ex, st, "max");
}

// Operands 0 and 1 of a two-operand op into *a and *b; false (reported)
// when either is missing.
static bool two_operands(MgExec *ex, const MgOp *op, MgExecValue *vals,
                         const MgBuffer **a, const MgBuffer **b) {
  *a = mg_interp_operand(ex, op, 0, vals);
  *b = *a ? mg_interp_operand(ex, op, 1, vals) : NULL;
  return *b != NULL;
}

// The cells of operand x at the shape of the binary op's result `out`
// (already shaped): x's own when it has that shape, else x broadcast into
// scratch `slot`. NULL (reported) when out of memory.
static const MgCell *broadcast_operand(MgExec *ex, const MgBuffer *x,
                                       const MgBuffer *out,
                                       MgExecScratch slot) {
  if (mg_buffer_same_shape(x, out))
    return x->data;
  MgCell *t = mg_interp_scratch(ex, slot, (size_t)mg_buffer_numel(out));
  if (!t) {
    mg_interp_fail(ex, MG_STATUS_NOMEM, "out of memory broadcasting");
    return NULL;
  }
  mg_interp_broadcast(x->data, x->rank, x->dims, t, out->rank, out->dims);
  return t;
}

static MgStatus eval_binary(MgExec *ex, const MgOp *op, MgExecValue *vals) {
  const MgBuffer *a, *b;
  if (!two_operands(ex, op, vals, &a, &b))
    return MG_STATUS_INVALID;
  uint32_t rank;
  int64_t dims[MG_MAX_DIMS];
  if (!broadcast_shape(a, b, &rank, dims))
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "operands of '%s' do not broadcast",
                          mg_op_kind_name((MgOpKind)op->kind));
  MgExecValue *out = &vals[op->outputs[0]];
  MgStatus st = mg_interp_value_shape(ex, out, rank, dims);
  if (st != MG_STATUS_OK)
    return st;
  size_t n = (size_t)mg_buffer_numel(&out->buf);
  const MgCell *pa = broadcast_operand(ex, a, &out->buf, MG_EXEC_SCRATCH_LHS);
  const MgCell *pb =
      pa ? broadcast_operand(ex, b, &out->buf, MG_EXEC_SCRATCH_RHS) : NULL;
  if (!pb)
    return MG_STATUS_NOMEM;
  st = ex->dom->binary(ex->dctx, (MgOpKind)op->kind, pa, pb, out->buf.data, n);
  return mg_interp_domain_check(ex, st, "binary op");
}

static MgStatus eval_unary(MgExec *ex, const MgOp *op, MgExecValue *vals) {
  const MgBuffer *a = mg_interp_operand(ex, op, 0, vals);
  if (!a)
    return MG_STATUS_INVALID;
  MgExecValue *out = &vals[op->outputs[0]];
  MgStatus st = mg_interp_value_shape(ex, out, a->rank, a->dims);
  if (st != MG_STATUS_OK)
    return st;
  st = ex->dom->unary(ex->dctx, (MgOpKind)op->kind, op->scalar, a->data,
                      out->buf.data, (size_t)mg_buffer_numel(a));
  return mg_interp_domain_check(ex, st, "unary op");
}

static MgStatus eval_matmul(MgExec *ex, const MgOp *op, MgExecValue *vals) {
  const MgBuffer *a, *b;
  if (!two_operands(ex, op, vals, &a, &b))
    return MG_STATUS_INVALID;
  if (a->rank < 2 || b->rank < 2)
    return mg_interp_fail(ex, MG_STATUS_INVALID, "matmul needs rank >= 2");
  int64_t m = a->dims[a->rank - 2], k = a->dims[a->rank - 1];
  int64_t kb = b->dims[b->rank - 2], n = b->dims[b->rank - 1];
  if (k != kb)
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "matmul inner dims differ: %lld vs %lld",
                          (long long)k, (long long)kb);
  // Batch dims broadcast like element-wise shapes (right-aligned).
  MgBuffer ba = {.rank = a->rank - 2}, bb = {.rank = b->rank - 2};
  memcpy(ba.dims, a->dims, sizeof(int64_t) * ba.rank);
  memcpy(bb.dims, b->dims, sizeof(int64_t) * bb.rank);
  uint32_t br;
  int64_t dims[MG_MAX_DIMS];
  if (!broadcast_shape(&ba, &bb, &br, dims))
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "matmul batch dims do not broadcast");
  dims[br] = m;
  dims[br + 1] = n;
  MgExecValue *out = &vals[op->outputs[0]];
  MgStatus st = mg_interp_value_shape(ex, out, br + 2, dims);
  if (st != MG_STATUS_OK)
    return st;
  // Batch stride of each operand per output batch dim (0 = broadcast).
  int64_t sa[MG_MAX_DIMS] = {0}, sb[MG_MAX_DIMS] = {0};
  int64_t acc_a = m * k, acc_b = k * n;
  for (uint32_t d = br; d-- > 0;) {
    uint32_t lead_a = br - ba.rank, lead_b = br - bb.rank;
    if (d >= lead_a) {
      int64_t e = ba.dims[d - lead_a];
      sa[d] = e == 1 ? 0 : acc_a;
      acc_a *= e;
    }
    if (d >= lead_b) {
      int64_t e = bb.dims[d - lead_b];
      sb[d] = e == 1 ? 0 : acc_b;
      acc_b *= e;
    }
  }
  size_t batches = 1;
  for (uint32_t d = 0; d < br; ++d)
    batches *= (size_t)dims[d];
  int64_t idx[MG_MAX_DIMS] = {0};
  MgCell *c = out->buf.data;
  for (size_t s = 0; s < batches; ++s) {
    int64_t oa = 0, ob = 0;
    for (uint32_t d = 0; d < br; ++d) {
      oa += idx[d] * sa[d];
      ob += idx[d] * sb[d];
    }
    st = ex->dom->matmul(ex->dctx, a->data + oa, b->data + ob,
                         c + (int64_t)s * m * n,
                         (MgMatmulShape){m, k, n});
    if (st != MG_STATUS_OK)
      return mg_interp_domain_fail(ex, st, "matmul");
    for (uint32_t d = br; d-- > 0;) {
      if (++idx[d] < dims[d])
        break;
      idx[d] = 0;
    }
  }
  return MG_STATUS_OK;
}

static MgStatus eval_sum(MgExec *ex, const MgOp *op, MgExecValue *vals) {
  const MgBuffer *a = mg_interp_operand(ex, op, 0, vals);
  if (!a)
    return MG_STATUS_INVALID;
  if (op->attr < 0 || (uint32_t)op->attr >= a->rank)
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "sum dim %d out of range for rank %u", op->attr,
                          a->rank);
  uint32_t d = (uint32_t)op->attr;
  int64_t dims[MG_MAX_DIMS];
  size_t outer = 1, inner = 1;
  for (uint32_t e = 0; e < a->rank; ++e) {
    dims[e] = e == d ? 1 : a->dims[e];
    if (e < d)
      outer *= (size_t)a->dims[e];
    if (e > d)
      inner *= (size_t)a->dims[e];
  }
  MgExecValue *out = &vals[op->outputs[0]];
  MgStatus st = mg_interp_value_shape(ex, out, a->rank, dims);
  if (st != MG_STATUS_OK)
    return st;
  if (op->kind == MG_OP_REDUCE_MAX)
    return mg_interp_reduce_max(ex, a->data, outer, (size_t)a->dims[d], inner,
                                out->buf.data);
  return mg_interp_reduce(ex, a->data, outer, (size_t)a->dims[d], inner,
                          out->buf.data);
}

static MgStatus eval_concat(MgExec *ex, const MgOp *op, MgExecValue *vals) {
  const MgBuffer *in[MG_MAX_OP_INPUTS];
  if (op->num_inputs < 1)
    return mg_interp_fail(ex, MG_STATUS_INVALID, "concat needs operands");
  for (uint32_t k = 0; k < op->num_inputs; ++k)
    if (!(in[k] = mg_interp_operand(ex, op, k, vals)))
      return MG_STATUS_INVALID;
  uint32_t rank = in[0]->rank;
  if (op->attr < 0 || (uint32_t)op->attr >= rank)
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "concat dim %d out of range for rank %u", op->attr,
                          rank);
  uint32_t d = (uint32_t)op->attr;
  int64_t dims[MG_MAX_DIMS];
  memcpy(dims, in[0]->dims, sizeof dims);
  dims[d] = 0;
  for (uint32_t k = 0; k < op->num_inputs; ++k) {
    bool ok = in[k]->rank == rank;
    for (uint32_t e = 0; ok && e < rank; ++e)
      ok = e == d || in[k]->dims[e] == in[0]->dims[e];
    if (!ok)
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "concat operand %u has a mismatched shape", k);
    dims[d] += in[k]->dims[d];
  }
  MgExecValue *out = &vals[op->outputs[0]];
  MgStatus st = mg_interp_value_shape(ex, out, rank, dims);
  if (st != MG_STATUS_OK)
    return st;
  size_t outer = 1, inner = 1;
  for (uint32_t e = 0; e < rank; ++e) {
    if (e < d)
      outer *= (size_t)dims[e];
    if (e > d)
      inner *= (size_t)dims[e];
  }
  size_t row = (size_t)dims[d] * inner, at = 0;
  for (uint32_t k = 0; k < op->num_inputs; ++k) {
    size_t part = (size_t)in[k]->dims[d] * inner;
    for (size_t o = 0; o < outer; ++o)
      memcpy(out->buf.data + o * row + at, in[k]->data + o * part,
             part * sizeof(MgCell));
    at += part;
  }
  return MG_STATUS_OK;
}

MgStatus mg_interp_eval_basic(MgExec *ex, const MgOp *op, MgExecValue *vals) {
  if (mg_op_kind_is_unary((MgOpKind)op->kind))
    return eval_unary(ex, op, vals);
  switch ((MgOpKind)op->kind) {
  case MG_OP_MATMUL:
    return eval_matmul(ex, op, vals);
  case MG_OP_ADD:
  case MG_OP_SUB:
  case MG_OP_MUL:
  case MG_OP_DIV:
  case MG_OP_MAX:
    return eval_binary(ex, op, vals);
  case MG_OP_SUM:
  case MG_OP_REDUCE_MAX:
    return eval_sum(ex, op, vals);
  case MG_OP_CONCAT:
    return eval_concat(ex, op, vals);
  default:
    return mg_interp_fail(ex, MG_STATUS_UNSUPPORTED,
                          "op '%s' cannot run at this level",
                          mg_op_kind_name((MgOpKind)op->kind)
                              ? mg_op_kind_name((MgOpKind)op->kind)
                              : "?");
  }
}
