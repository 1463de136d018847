//===- symbols.c - Dynamic dims lift as a symbol (issue 29) ----------------===//
//
// The lift reads every `?` of an IR type as one stand-in size,
// MG_LIFT_SYM_SIZE (mg_lift_read_type), so the translation of ops stays
// the static one. A finished kernel graph is then rebuilt with the dims of
// that size as symbol 1: shape inference carries the symbol through every
// op and refuses what would hold at one size only (a reshape merging the
// symbol with other dims, a symbol broadcast against a static size). All
// the `?` of one subprogram are one symbol: the kernels assume they are
// equal, and the host checks it (docs/lift.md).
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Thread_local uint64_t mg_lift_dynamic_reads;

bool mg_lift_type_is_dynamic(MlirType type) {
  return mlirTypeIsARankedTensor(type) && !mlirShapedTypeHasStaticShape(type);
}

// True when a static dim of `type` is the stand-in size: it could not be
// told from a `?`.
static bool has_stand_in(MlirType type) {
  if (!mlirTypeIsARankedTensor(type))
    return false;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    if (!mlirShapedTypeIsDynamicDim(type, d) &&
        mlirShapedTypeGetDimSize(type, d) == MG_LIFT_SYM_SIZE)
      return true;
  return false;
}

// The symbolic rebuild of b->prog into q: same ops through the builders,
// inputs' stand-in dims made symbol 1. Tensor ids come out the same
// (ops in order, results numbered as made), which the caller's maps rely on.
static bool rebuild(const MgProgram *p, MgProgram *q, MgDiag *d) {
  const MgGraph *g = &p->graphs[0];
  if (mg_program_add_graph(q, MG_LEVEL_KERNEL) == MG_NO_ID)
    return mg_diag_set(d, MG_STATUS_NOMEM, -1, -1, "out of memory"), false;
  MgTensorId *map = malloc((g->num_tensors + 1) * sizeof *map);
  if (!map)
    return mg_diag_set(d, MG_STATUS_NOMEM, -1, -1, "out of memory"), false;
  bool ok = true;
  for (uint32_t i = 0; ok && i < g->num_ops; ++i) {
    const MgOp *op = &g->ops[i];
    if (op->kind == MG_OP_INPUT) {
      MgTensor x = g->tensors[op->outputs[0]];
      for (uint32_t k = 0; k < x.rank; ++k)
        mg_tensor_set_sym(&x, k, x.dims[k] == MG_LIFT_SYM_SIZE);
      MgTensorId t = mg_graph_add_input_as(q, 0, &x, op, d);
      map[op->outputs[0]] = t;
      ok = t == op->outputs[0];
      continue;
    }
    MgOp c = *op;
    if (c.kind == MG_OP_RESHAPE)
      for (int32_t k = 0; k < c.attr && k < MG_MAX_DIMS; ++k)
        if (c.shape[k] == MG_LIFT_SYM_SIZE)
          c.shape[k] = -1;
    ok = mg_graph_copy_op(q, 0, g, &c, map, d) == MG_STATUS_OK;
    for (uint32_t k = 0; ok && k < op->num_outputs; ++k)
      ok = map[op->outputs[k]] == op->outputs[k];
  }
  for (uint32_t k = 0; ok && k < g->num_outputs; ++k)
    ok = mg_graph_mark_output(q, 0, g->outputs[k], d) == MG_STATUS_OK;
  free(map);
  return ok;
}

// A tensor dim of the stand-in size that is not the symbol, or a multiple
// of it: the symbol merged with other dims, which a symbol cannot say.
static bool stray_size(const MgProgram *q) {
  const MgGraph *g = &q->graphs[0];
  for (uint32_t t = 0; t < g->num_tensors; ++t)
    for (uint32_t k = 0; k < g->tensors[t].rank; ++k)
      if (!mg_tensor_sym(&g->tensors[t], k) &&
          g->tensors[t].dims[k] % MG_LIFT_SYM_SIZE == 0)
        return true;
  return false;
}

bool mg_lift_symbolize(MgLiftBuilder *b, const MlirValue *outputs,
                       uint32_t num_outputs) {
  bool dynamic = false, clash = false;
  for (uint32_t i = 0; i < b->num_inputs + num_outputs; ++i) {
    MlirType t = mlirValueGetType(i < b->num_inputs ? b->inputs[i]
                                                   : outputs[i - b->num_inputs]);
    dynamic |= mg_lift_type_is_dynamic(t);
    clash |= has_stand_in(t);
  }
  // A `?` inside a subprogram of static ends (through casts, say) would
  // stay the stand-in size: refused, as no symbol reaches it.
  if (!dynamic)
    return b->dynamic_mark == mg_lift_dynamic_reads
               ? true
               : mg_lift_fail(b, (MlirOperation){NULL},
                              "a dynamic dim inside a subprogram whose "
                              "inputs and outputs are static");
  if (clash)
    return mg_lift_fail(b, (MlirOperation){NULL},
                        "a static dim of %d cannot be told from a dynamic "
                        "dim", MG_LIFT_SYM_SIZE);
  MgProgram *q = mg_program_create();
  MgDiag d = MG_DIAG_INIT;
  if (!q)
    return mg_lift_fail(b, (MlirOperation){NULL}, "out of memory");
  if (!rebuild(b->prog, q, &d) || stray_size(q) ||
      mg_program_validate(q, NULL, &d) != MG_STATUS_OK) {
    mg_program_destroy(q);
    return mg_lift_fail(b, (MlirOperation){NULL},
                        "its dynamic dims are not one symbol throughout%s%s",
                        d.message[0] ? ": " : "", d.message);
  }
  mg_program_destroy(b->prog);
  b->prog = q;
  return true;
}
