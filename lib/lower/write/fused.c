//===- fused.c - The fused GEMV's epilogue --------------------------------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "write/gemv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mg_lower_fused_finish(Emit *e, const Gemv *g, const char *m,
                           const Name *sums, const GemvBufs *bf, Name out) {
  enum { MAX_VALS = GEMV_MAX_B + GEMV_MAX_STATS + GEMV_MAX_EPILOGUE };
  MgTensorId ids[MAX_VALS];
  Name vals[MAX_VALS];
  uint32_t n = 0;
  for (int j = 0; j < g->nb; j++) {
    ids[n] = g->mm_t[j];
    snprintf(vals[n++], NAME_LEN, "%s", sums[j]);
  }
  for (int j = 0; j < g->nstats; j++) { // the slices' sums, in slice order
    Name ji, s = "";
    mg_lower_index(e, j, ji);
    for (int64_t k = 0; k < GEMV_SLICES; k++) {
      Name ki, x;
      mg_lower_index(e, k, ki);
      mg_lower_fresh(e, x);
      mg_lower_line(e, "%s = memref.load %s[%s, %s, %s] : %s", x, bf->stat,
                    ji, ki, m, bf->stat_type);
      if (k == 0) {
        snprintf(s, NAME_LEN, "%s", x);
      } else {
        Name t;
        mg_lower_binary(e, "arith.addf", s, x, t);
        snprintf(s, NAME_LEN, "%s", t);
      }
    }
    ids[n] = g->stat_t[j];
    snprintf(vals[n++], NAME_LEN, "%s", s);
  }
  for (uint32_t i = 0; i < g->nepi; i++) {
    const MgOp *op = &g->blk->ops[g->epi[i]];
    Name in[2] = {"", ""};
    for (uint32_t k = 0; k < op->num_inputs; k++)
      for (uint32_t j = 0; j < n; j++)
        if (ids[j] == op->inputs[k])
          memcpy(in[k], vals[j], NAME_LEN);
    if (!mg_lower_scalar(e, (MgOpKind)op->kind, op->scalar, in[0], in[1],
                         vals[n])) {
      e->error = "an op kind the lowering does not know";
      return;
    }
    ids[n++] = op->outputs[0];
  }
  for (uint32_t j = 0; j < n; j++)
    if (ids[j] == g->out_t)
      memcpy(out, vals[j], NAME_LEN);
}
