//===- aux.c - The online accumulators' running-max state -----------------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const MgOp *online_of(const MgGraph *b, MgTensorId t) {
  const MgOp *op = &b->ops[b->tensors[t].producer];
  return op->kind == MG_OP_ACCUM && op->acc == MG_ACCUM_ONLINE ? op : NULL;
}

int64_t mg_lower_aux_slots(const MgGraph *b, const MgOp *op) {
  return mg_tensor_numel(&b->tensors[op->inputs[0]]) ==
                 mg_tensor_numel(&b->tensors[op->inputs[1]])
             ? 1 : 3;
}

int64_t mg_lower_aux_bytes(const MgGraph *b, MgTensorId t) {
  const MgOp *op = online_of(b, t);
  if (!op)
    return 0;
  int64_t bytes = mg_lower_aux_slots(b, op) * mg_tensor_numel(&b->tensors[op->inputs[1]]) *
                  (int64_t)sizeof(float);
  return (bytes + 15) / 16 * 16;
}

void mg_lower_aux_type(const MgGraph *b, MgTensorId t, const char *space,
                       char out[TYPE_LEN]) {
  const MgOp *op = online_of(b, t);
  out[0] = '\0';
  if (!op)
    return;
  const MgTensor *m = &b->tensors[op->inputs[1]];
  size_t n = (size_t)snprintf(out, TYPE_LEN, "memref<%lldx",
                              (long long)mg_lower_aux_slots(b, op));
  for (uint32_t d = 0; d < m->rank; d++)
    n += (size_t)snprintf(out + n, TYPE_LEN - n, "%lldx",
                          (long long)m->dims[d]);
  snprintf(out + n, TYPE_LEN - n, "f32%s%s>", space ? ", " : "",
           space ? space : "");
}
