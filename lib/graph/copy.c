//===- copy.c - Copying graphs between programs ---------------------------===//
//
// Ops are re-added through the builders, so a copy is checked like any new
// graph; graphs named by custom and thread ops are copied along. The search
// composes programs found for parts of a target this way.
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <stdlib.h>
#include <string.h>

MgStatus mg_graph_append(MgProgram *dst, MgGraphId dg, const MgProgram *src,
                         MgGraphId sg, MgTensorId *map, MgDiag *diag) {
  if (sg >= src->num_graphs || dg >= dst->num_graphs)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "no such graph");
  const MgGraph *g = &src->graphs[sg];
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    const MgTensor *t0 = op->num_outputs ? &g->tensors[op->outputs[0]] : NULL;
    if (op->kind == MG_OP_INPUT) {
      if (map[op->outputs[0]] != MG_NO_ID)
        continue; // bound by the caller
      // Positions follow op order, as the builders number inputs.
      map[op->outputs[0]] =
          mg_graph_add_input_as(dst, dg, t0, op, diag);
      if (map[op->outputs[0]] == MG_NO_ID)
        return MG_STATUS_INVALID;
      continue;
    }
    MgOp renamed = *op; // a custom or thread op names its graph's copy
    if (op->kind == MG_OP_CUSTOM || op->kind == MG_OP_THREAD) {
      MgGraphId sub = mg_program_copy_graph(dst, src, (MgGraphId)op->attr,
                                            diag);
      if (sub == MG_NO_ID)
        return MG_STATUS_INVALID;
      renamed.attr = (int32_t)sub;
    }
    if (mg_graph_copy_op(dst, dg, g, &renamed, map, diag) != MG_STATUS_OK)
      return MG_STATUS_INVALID;
  }
  return MG_STATUS_OK;
}

MgStatus mg_graph_copy_op(MgProgram *dst, MgGraphId dg, const MgGraph *g,
                          const MgOp *op, MgTensorId *map, MgDiag *diag) {
  MgOp c = *op;
  for (uint32_t k = 0; k < op->num_inputs; k++)
    c.inputs[k] = map[op->inputs[k]];
  MgTensorId out[MG_MAX_OP_OUTPUTS];
  if (mg_graph_add_op(dst, dg, &c, out, diag) == MG_NO_ID)
    return MG_STATUS_INVALID;
  MgStatus st = MG_STATUS_OK;
  for (uint32_t k = 0; st == MG_STATUS_OK && k < op->num_outputs; k++) {
    const MgTensor *t = &g->tensors[op->outputs[k]];
    map[op->outputs[k]] = out[k];
    const MgGraph *dgr = mg_program_graph(dst, dg);
    if (mg_graph_tensor(dgr, out[k])->dtype != t->dtype)
      st = mg_graph_set_dtype(dst, dg, out[k], (MgDType)t->dtype, diag);
  }
  return st;
}

MgGraphId mg_program_copy_graph(MgProgram *dst, const MgProgram *src,
                                MgGraphId g, MgDiag *diag) {
  if (g >= src->num_graphs) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "graph %u does not exist", g);
    return MG_NO_ID;
  }
  const MgGraph *s = &src->graphs[g];
  MgGraphId ng = mg_program_add_graph(dst, (MgLevel)s->level);
  if (ng == MG_NO_ID) {
    mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
    return MG_NO_ID;
  }
  if (s->level == MG_LEVEL_BLOCK &&
      mg_graph_set_launch(dst, ng, s->grid, s->block_threads, s->forloop,
                          diag) != MG_STATUS_OK)
    return MG_NO_ID;
  memcpy(mg_program_graph(dst, ng)->grid_sym, s->grid_sym, sizeof s->grid_sym);
  memcpy(mg_program_graph(dst, ng)->grid_rows, s->grid_rows,
         sizeof s->grid_rows);
  mg_program_graph(dst, ng)->forloop_sym = s->forloop_sym;
  mg_program_graph(dst, ng)->forloop_rows = s->forloop_rows;
  MgTensorId *map = malloc((s->num_tensors + 1) * sizeof *map);
  if (!map) {
    mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
    return MG_NO_ID;
  }
  for (uint32_t t = 0; t < s->num_tensors; t++)
    map[t] = MG_NO_ID;
  MgStatus st = mg_graph_append(dst, ng, src, g, map, diag);
  for (uint32_t k = 0; st == MG_STATUS_OK && k < s->num_outputs; k++)
    st = mg_graph_mark_output(dst, ng, map[s->outputs[k]], diag);
  free(map);
  return st == MG_STATUS_OK ? ng : MG_NO_ID;
}
