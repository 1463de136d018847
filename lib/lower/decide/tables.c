//===- tables.c - Per-tensor name, type and dtype tables ------------------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Per-tensor names and types of graph `g`, freed by the caller.
bool mg_lower_alloc_tables(Emit *e, const MgGraph *g) {
  e->g = g;
  e->val = calloc(g->num_tensors + 1, sizeof *e->val);
  e->type = calloc(g->num_tensors + 1, sizeof *e->type);
  e->dtype = calloc(g->num_tensors + 1, sizeof *e->dtype);
  e->stage_buf = calloc(g->num_tensors + 1, sizeof *e->stage_buf);
  e->stage_type = calloc(g->num_tensors + 1, sizeof *e->stage_type);
  e->aux_buf = calloc(g->num_tensors + 1, sizeof *e->aux_buf);
  e->aux_type = calloc(g->num_tensors + 1, sizeof *e->aux_type);
  if (!e->val || !e->type || !e->dtype || !e->stage_buf || !e->stage_type ||
      !e->aux_buf || !e->aux_type)
    return false;
  for (MgTensorId t = 0; t < g->num_tensors; t++)
    e->dtype[t] = (uint8_t)mg_lower_kept_dtype(g, t);
  return true;
}

void mg_lower_free_tables(Emit *e) {
  free(e->val);
  free(e->type);
  free(e->dtype);
  free(e->stage_buf);
  free(e->stage_type);
  free(e->aux_buf);
  free(e->aux_type);
  e->aux_buf = NULL;
  e->aux_type = NULL;
  e->stage_buf = NULL;
  e->stage_type = NULL;
  e->val = NULL;
  e->type = NULL;
  e->dtype = NULL;
}
