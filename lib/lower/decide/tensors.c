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
  if (mg_graph_folded_view(g, t, &v)) { // the dense buffer it views
    mg_lower_memref_type(&g->tensors[v.base], (MgDType)g->tensors[t].dtype,
                         NULL, out);
    return;
  }
  MgTensor s = g->tensors[t];
  mg_graph_stored_dims(g, t, s.dims);
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
