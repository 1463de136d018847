//===- smem.c - Shared memory per kernel op ------------------------------===//
//
// The totals the launch and the plan read: a graph-defined kernel's tiles
// (tiles.c), online state (aux.c) and GEMV buffers (gemv_plan.c); kept
// apart from tiles.c so that the GEMV's plan, which asks tiles.c about
// layouts, is not also asked back.
//
//===----------------------------------------------------------------------===//
#include "decide/gemv_plan.h"

#include <stdlib.h>

int64_t mg_lower_tile_bytes(const MgProgram *program, MgOpId op) {
  const MgOp *o = mg_graph_op(mg_program_graph(program, 0), op);
  if (o->kind != MG_OP_CUSTOM)
    return 0;
  char type[TYPE_LEN];
  int64_t stages, part = mg_lower_gemv_smem(program, op, type, sizeof type);
  if (part > 0) // fused.c's form: no tiles
    return part + mg_lower_gemv_ring(program, op, &stages, type, sizeof type) +
           mg_lower_gemv_stats(program, op, type, sizeof type);
  const MgGraph *b = mg_program_graph(program, (MgGraphId)o->attr);
  bool *reg = calloc(b->num_tensors + 1, sizeof *reg);
  if (reg && !mg_lower_register_values(b, reg))
    memset(reg, 0, (b->num_tensors + 1) * sizeof *reg); // count them all
  int64_t bytes = 0;
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    if (mg_lower_is_tile(b, t) && !(reg && reg[t]))
      bytes += mg_lower_tile_bytes_of(b, t);
    bytes += mg_lower_aux_bytes(b, t); // online accumulators' running max
  }
  free(reg);
  return bytes;
}

int64_t mg_lower_smem_bytes(const MgProgram *program, MgOpId op) {
  int64_t blocks, threads;
  if (mg_lower_is_gemv(program, op, &blocks, &threads))
    return 0; // fused.c's form: static partial sums, ring, statistics
  int64_t bytes = mg_lower_tile_bytes(program, op);
  return bytes > MG_LOWER_STATIC_SMEM ? bytes : 0;
}
