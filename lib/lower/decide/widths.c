//===- widths.c - Vector widths of tile and view copies -------------------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t mg_lower_copy_rank(const MgGraph *b, MgTensorId tile,
                            MgTensorId dram) {
  const MgTensor *x = &b->tensors[tile], *y = &b->tensors[dram];
  uint32_t r = x->rank;
  while (r > 1 && x->dims[r - 1] == 1 && y->dims[r - 1] == 1)
    r--;
  return r;
}

int64_t mg_lower_vector_width(const MgGraph *b, MgTensorId tile,
                              MgTensorId dram) {
  const MgTensor *x = &b->tensors[tile], *y = &b->tensors[dram];
  MgDType dt = mg_lower_kept_dtype(b, tile);
  if (dt != mg_lower_kept_dtype(b, dram) || x->rank != y->rank)
    return 1;
  // A transposed view is read element by element, in stored order; a
  // folded view whose rows stay contiguous moves whole vectors along them
  // (through its strided view, which admits no collapse of unit dims).
  uint8_t folded = b->ops[y->producer].folded;
  if (mg_lower_has_layout(b, dram) &&
      ((folded != 2 && folded != MG_FOLDED_IM2COL_VEC) ||
       mg_lower_copy_rank(b, tile, dram) != x->rank))
    return 1;
  int64_t v = MG_LOWER_VECTOR_BYTES / (int64_t)mg_dtype_bytes(dt);
  // Trailing unit dims (a 256x1 column of an Nx1 tensor) do not break
  // contiguity: the vectors run along the last dim of size > 1.
  uint32_t last = mg_lower_copy_rank(b, tile, dram) - 1;
  return x->dims[last] % v || y->dims[last] % v ? 1 : v;
}

// The caller's kernel tensor behind block-graph input `t` of `b` (one of
// the program's graphs), or MG_NO_ID. A block graph reading a folded view
// has exactly one caller (mg_graph_view_folds); others may have more, all
// passing tensors of one layout.
static MgTensorId caller_tensor(const MgProgram *p, const MgGraph *b,
                                MgTensorId t) {
  const MgOp *in = &b->ops[b->tensors[t].producer];
  if (!p || b < p->graphs + 1 || b >= p->graphs + p->num_graphs ||
      in->kind != MG_OP_INPUT)
    return MG_NO_ID;
  const MgGraph *root = &p->graphs[0];
  int32_t id = (int32_t)(b - p->graphs);
  for (uint32_t i = 0; i < root->num_ops; i++) {
    const MgOp *op = &root->ops[i];
    if (op->kind == MG_OP_CUSTOM && op->attr == id &&
        in->attr >= 0 && (uint32_t)in->attr < op->num_inputs)
      return op->inputs[in->attr];
  }
  return MG_NO_ID;
}

bool mg_lower_view_strides(const MgProgram *p, const MgGraph *b, MgTensorId t,
                           int64_t *stride, int64_t *offset) {
  const MgTensor *x = &b->tensors[t];
  int8_t perm[MG_MAX_DIMS];
  *offset = 0;
  if (b->ops[x->producer].folded) { // the caller's strided view
    MgTensorId k = caller_tensor(p, b, t);
    MgStridedView v;
    if (k == MG_NO_ID || !mg_graph_folded_view(&p->graphs[0], k, &v) ||
        v.rank != x->rank)
      return false;
    memcpy(stride, v.stride, x->rank * sizeof *stride);
    *offset = v.offset;
    return true;
  }
  mg_graph_tensor_perm(b, x, perm); // the identity when none was set
  int64_t sdims[MG_MAX_DIMS], sstride[MG_MAX_DIMS], n = 1;
  mg_graph_stored_dims(b, t, sdims);
  for (uint32_t d = x->rank; d-- > 0;) {
    sstride[d] = n;
    n *= sdims[d];
  }
  for (uint32_t d = 0; d < x->rank; d++)
    stride[d] = sstride[perm[d]]; // as mg_lower_layout_view's transpose
  return true;
}

int64_t mg_lower_stored_vector_width(const MgProgram *p, const MgGraph *b,
                                     MgTensorId tile, MgTensorId dram,
                                     uint32_t *dim, bool *whole) {
  const MgTensor *x = &b->tensors[tile], *y = &b->tensors[dram];
  MgDType dt = mg_lower_kept_dtype(b, tile);
  if (!mg_lower_has_layout(b, dram) || mg_lower_vector_width(b, tile, dram) > 1 ||
      dt != mg_lower_kept_dtype(b, dram) || x->rank != y->rank)
    return 1;
  int64_t stride[MG_MAX_DIMS], offset;
  if (!mg_lower_view_strides(p, b, dram, stride, &offset))
    return 1;
  int64_t v = MG_LOWER_VECTOR_BYTES / (int64_t)mg_dtype_bytes(dt);
  // The dim contiguous in memory; every other dim (of extent > 1) must
  // step by whole vectors and the view start on one, so that each
  // vector's first element is 16-byte aligned in the 16-byte aligned
  // buffer.
  uint32_t inner = MG_MAX_DIMS;
  for (uint32_t d = 0; d < y->rank; d++) {
    if (stride[d] == 1 && y->dims[d] > 1 && inner == MG_MAX_DIMS)
      inner = d;
    else if (y->dims[d] > 1 && stride[d] % v)
      return 1;
  }
  if (inner == MG_MAX_DIMS || offset % v || x->dims[inner] % v ||
      y->dims[inner] % v)
    return 1;
  if (dim)
    *dim = inner;
  if (whole) { // the tile's dims after `inner` are all 1
    *whole = true;
    for (uint32_t d = inner + 1; d < x->rank; d++)
      *whole &= x->dims[d] == 1;
  }
  return v;
}

int64_t mg_lower_view_vector_width(const MgGraph *g, const MgOp *op) {
  const MgTensor *r = &g->tensors[op->outputs[0]];
  for (uint32_t k = 0; k < op->num_inputs; k++)
    if (g->tensors[op->inputs[k]].dtype != r->dtype ||
        mg_lower_has_layout(g, op->inputs[k]))
      return 1; // converted or strided: element by element
  int64_t v = MG_LOWER_VECTOR_BYTES / (int64_t)mg_dtype_bytes(r->dtype);
  uint32_t last = r->rank - 1;
  // Every operand row then starts at a multiple of its length.
  bool rows = r->dims[last] % v == 0;
  const MgTensor *a = &g->tensors[op->inputs[0]];
  switch ((MgOpKind)op->kind) {
  case MG_OP_TRANSPOSE:
    return op->perm[last] == (int8_t)last && rows ? v : 1;
  case MG_OP_SLICE:
    if (op->attr != (int32_t)last)
      return rows ? v : 1;
    return rows && op->shape[0] % v == 0 && a->dims[last] % v == 0 ? v : 1;
  case MG_OP_CONCAT:
    if (op->attr != (int32_t)last)
      return rows ? v : 1;
    for (uint32_t k = 0; k < op->num_inputs; k++) // parts on vectors
      if (g->tensors[op->inputs[k]].dims[last] % v)
        return 1;
    return v;
  default: // a reshape copies only to convert or to undo a layout
    return 1;
  }
}
