//===- tensors.c - What a block-graph tensor is: a tile, its kept type ---===//
//
// The leaf facts about one tensor (a tile or a kernel tensor, its kept
// element type, a stored layout, a reloaded tile) that every other
// decision builds on, so they sit below tiles.c and mma_plan.c.
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

#include <string.h>

bool mg_lower_has_layout(const MgGraph *g, MgTensorId t) {
  return mg_graph_is_strided(g, t);
}

void mg_lower_stored_type(const MgGraph *g, MgTensorId t, char out[TYPE_LEN]) {
  MgStridedView v;
  const MgOp *im = mg_graph_folded_im2col(g, t);
  if (im) { // the input its readers gather from
    mg_lower_stored_type(g, im->inputs[0], out);
    return;
  }
  if (mg_graph_folded_view(g, t, &v)) { // the dense buffer it views
    mg_lower_memref_type(&g->tensors[v.base], (MgDType)g->tensors[t].dtype,
                         NULL, out);
    return;
  }
  MgTensor s = mg_graph_stored_tensor(g, t);
  mg_lower_memref_type(&s, (MgDType)s.dtype, NULL, out);
}

// A block-graph tensor kept in shared memory (not a kernel tensor).
bool mg_lower_is_tile(const MgGraph *b, MgTensorId t) {
  MgOpKind k = (MgOpKind)mg_graph_producer(b, t)->kind;
  return k != MG_OP_INPUT && k != MG_OP_SAVER;
}

// The element type a tensor is kept in: accumulators in f32.
MgDType mg_lower_kept_dtype(const MgGraph *g, MgTensorId t) {
  if (mg_graph_producer(g, t)->kind == MG_OP_ACCUM)
    return MG_DTYPE_F32;
  return (MgDType)mg_graph_tensor(g, t)->dtype;
}

// An iterator the for-loop reloads every iteration (it has an fmap).
bool mg_lower_is_loop_tile_load(const MgOp *op) {
  return op->kind == MG_OP_ITERATOR && op->fmap != MG_MAP_NONE;
}

void mg_lower_loop_dims(const MgGraph *b, uint8_t *bits) {
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    uint8_t r = 0;
    switch ((MgOpKind)op->kind) {
    case MG_OP_INPUT:
    case MG_OP_ACCUM:
    case MG_OP_SAVER:
      break;
    case MG_OP_ITERATOR:
      if (b->forloop_sym && op->fmap != MG_MAP_NONE)
        r = (uint8_t)(1u << op->fmap);
      break;
    case MG_OP_MATMUL: {
      uint32_t rank = b->tensors[op->outputs[0]].rank;
      uint8_t la = bits[op->inputs[0]], lb = bits[op->inputs[1]];
      r = (uint8_t)(((la | lb) & ((1u << (rank - 2)) - 1)) |
                    (la & (1u << (rank - 2))) | (lb & (1u << (rank - 1))));
      break;
    }
    case MG_OP_SUM:
    case MG_OP_REDUCE_MAX:
      r = (uint8_t)(bits[op->inputs[0]] & ~(1u << op->attr));
      break;
    default: // element-wise: the rows broadcast
      for (uint32_t k = 0; k < op->num_inputs; k++)
        r |= bits[op->inputs[k]];
      break;
    }
    for (uint32_t k = 0; k < op->num_outputs; k++)
      bits[op->outputs[k]] = r;
  }
}
