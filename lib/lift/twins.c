//===- twins.c - One kernel graph input per IR value ----------------------===//
//
// The translation may read one IR value through several inputs: a RoPE
// table read plain in one op and, rerooted, as 1x1xSxD in a broadcast
// multiply (reroot_input, alg.c), or a weight read through a layout next to
// its plain use. A kernel graph must be a function of its arguments, the
// same function as its reference (mirage-run and the verifier draw each
// argument independently), so before a chunk is recorded every IR value
// read through more than one input ("twins") enters once, at its IR type,
// and each twin's read is rebuilt from it by reshape and transpose view
// ops (as whole.c does for whole functions). Values read once keep their
// boundary reshape or layout: the call passes a view, no data moves.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <stdlib.h>
#include <string.h>

// First position with the same IR value as input k (k itself when none).
static uint32_t first_of(const MgLiftBuilder *b, uint32_t k) {
  uint32_t f = 0;
  while (!mlirValueEqual(b->inputs[f], b->inputs[k]))
    ++f;
  return f;
}

static bool has_twin(const MgLiftBuilder *b, uint32_t k) {
  for (uint32_t i = 0; i < b->num_inputs; ++i)
    if (i != k && mlirValueEqual(b->inputs[i], b->inputs[k]))
      return true;
  return false;
}

// Adds the one input of `q` for IR value b->inputs[k]: the old tensor's
// shape and layout when it has no twin, else the IR type.
static MgTensorId add_canonical(const MgLiftBuilder *b, MgProgram *q,
                                uint32_t k, bool twinned, MgDiag *d) {
  const MgGraph *g = &b->prog->graphs[0];
  const MgTensor *x = &g->tensors[b->input_ids[k]];
  if (!twinned) {
    MgTensorId t =
        mg_graph_add_input(q, 0, (MgDType)x->dtype, x->rank, x->dims, d);
    int8_t perm[MG_MAX_DIMS];
    if (t != MG_NO_ID && mg_graph_tensor_perm(g, x, perm) &&
        mg_graph_set_input_perm(q, 0, t, perm, d) != MG_STATUS_OK)
      t = MG_NO_ID;
    return t;
  }
  MgLiftType ty;
  const char *why = NULL;
  if (!mg_lift_read_type(mlirValueGetType(b->inputs[k]), &ty, &why) ||
      ty.rank > MG_MAX_DIMS) {
    mg_diag_set(d, MG_STATUS_INVALID, -1, -1, "an input of rank above %d",
                MG_MAX_DIMS);
    return MG_NO_ID;
  }
  return mg_graph_add_input(q, 0, (MgDType)x->dtype, ty.rank, ty.dims, d);
}

// The twin tensor t (of b's graph) rebuilt from canonical input c of `q`:
// reshaped to t's stored shape, then read through t's layout.
static MgTensorId rebuild(const MgLiftBuilder *b, MgProgram *q, MgTensorId t,
                          MgTensorId c, MgDiag *d) {
  const MgGraph *g = &b->prog->graphs[0];
  const MgTensor *gt = &g->tensors[t];
  int64_t stored[MG_MAX_DIMS];
  mg_graph_stored_dims(g, t, stored);
  const MgTensor *ct = &q->graphs[0].tensors[c];
  if (ct->rank != gt->rank ||
      memcmp(ct->dims, stored, gt->rank * sizeof *stored))
    c = mg_graph_reshape(q, 0, c, gt->rank, stored, d);
  int8_t perm[MG_MAX_DIMS];
  if (c != MG_NO_ID && mg_graph_tensor_perm(g, gt, perm))
    c = mg_graph_transpose(q, 0, c, perm, d);
  return c;
}

// Moves the first input of each IR value to the front, in order (first[k]
// == k marks one), with its canonical tensor.
static uint32_t compact(MgLiftBuilder *b, const uint32_t *first,
                        const bool *twinned, const MgTensorId *canon) {
  uint32_t kept = 0;
  for (uint32_t k = 0; k < b->num_inputs; ++k) {
    if (first[k] != k)
      continue;
    b->inputs[kept] = b->inputs[k];
    b->input_reshaped[kept] = !twinned[k] && b->input_reshaped[k];
    b->input_ids[kept++] = canon[k];
  }
  return kept;
}

bool mg_lift_merge_twins(MgLiftBuilder *b) {
  if (mg_lift_inputs_distinct(b))
    return true;
  const MgGraph *g = &b->prog->graphs[0];
  uint32_t n = b->num_inputs;
  MgProgram *q = mg_program_create();
  MgTensorId *map = malloc((g->num_tensors + 1) * sizeof *map);
  MgTensorId *canon = malloc((n + 1) * sizeof *canon);
  uint32_t *first = malloc((n + 1) * sizeof *first);
  bool *twinned = malloc(n + 1);
  MgDiag d = MG_DIAG_INIT;
  bool ok = q && map && canon && first && twinned &&
            mg_program_add_graph(q, MG_LEVEL_KERNEL) == 0;
  if (!ok)
    mg_diag_set(&d, MG_STATUS_NOMEM, -1, -1, "out of memory");
  for (uint32_t t = 0; ok && t < g->num_tensors; ++t)
    map[t] = MG_NO_ID;
  for (uint32_t k = 0; ok && k < n; ++k) {
    first[k] = first_of(b, k);
    twinned[k] = has_twin(b, k);
  }
  // Twins are adjacent (order_inputs), so the first of each value keeps
  // the values' relative order and its input position.
  for (uint32_t k = 0; ok && k < n; ++k) {
    if (first[k] == k)
      canon[k] = add_canonical(b, q, k, twinned[k], &d);
    MgTensorId t = b->input_ids[k], c = canon[first[k]];
    map[t] = c == MG_NO_ID ? MG_NO_ID
             : twinned[k]  ? rebuild(b, q, t, c, &d)
                           : c;
    ok = map[t] != MG_NO_ID;
  }
  if (ok)
    ok = mg_graph_append(q, 0, b->prog, 0, map, &d) == MG_STATUS_OK;
  for (uint32_t o = 0; ok && o < g->num_outputs; ++o)
    ok = mg_graph_mark_output(q, 0, map[g->outputs[o]], &d) == MG_STATUS_OK;
  if (ok) {
    b->num_inputs = compact(b, first, twinned, canon);
    mg_program_destroy(b->prog);
    b->prog = q;
  } else {
    mg_program_destroy(q);
    mg_lift_fail(b, (MlirOperation){NULL}, "internal: %s", d.message);
  }
  free(map);
  free(canon);
  free(first);
  free(twinned);
  return ok;
}

bool mg_lift_inputs_distinct(const MgLiftBuilder *b) {
  for (uint32_t k = 0; k < b->num_inputs; ++k)
    if (has_twin(b, k))
      return false;
  return true;
}
