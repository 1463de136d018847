//===- launch.c - Which ops are kernels, and their launches ---------------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mg_lower_is_kernel(const MgProgram *p, MgOpId op) {
  if (!p || p->num_graphs == 0 || op >= p->graphs[0].num_ops)
    return false;
  const MgOp *o = &p->graphs[0].ops[op];
  return o->kind != MG_OP_INPUT && !mg_graph_view_is_free(&p->graphs[0], o) &&
         !mg_graph_view_folds(&p->graphs[0], o) &&
         !mg_graph_im2col_folds(&p->graphs[0], o);
}

int64_t mg_lower_predefined_blocks(const MgProgram *program, MgOpId op) {
  const MgOp *o = &program->graphs[0].ops[op];
  int64_t n = mg_tensor_numel(&program->graphs[0].tensors[o->outputs[0]]);
  if (mg_op_is_view(o, MG_LEVEL_KERNEL)) // a thread per vector it moves
    n /= mg_lower_view_vector_width(&program->graphs[0], o);
  int64_t blocks = (n + MG_LOWER_PREDEFINED_THREADS - 1) /
                   MG_LOWER_PREDEFINED_THREADS;
  return blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks;
}

void mg_lower_launch(const MgProgram *p, MgOpId op, int64_t grid[3],
                     int64_t *threads) {
  const MgOp *o = &p->graphs[0].ops[op];
  grid[1] = grid[2] = 1;
  if (mg_lower_is_gemv(p, op, &grid[0], threads))
    return; // a split-K GEMV, or a ug.custom of that shape (fused.c)
  if (o->kind != MG_OP_CUSTOM) {
    grid[0] = mg_lower_predefined_blocks(p, op);
    grid[1] = grid[2] = 1;
    *threads = MG_LOWER_PREDEFINED_THREADS;
    return;
  }
  const MgGraph *b = &p->graphs[o->attr];
  for (int a = 0; a < 3; a++)
    grid[a] = b->grid[a];
  *threads = b->block_threads;
}
