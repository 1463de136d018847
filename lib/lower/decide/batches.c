//===- batches.c - cp.async batches of a loop that is not pipelined ------===//
//
// Asks both the schedule (schedule.c: the groups in emission order) and
// the tiles (tiles.c: which loads are cp.async), so it sits above both.
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

#include <stdlib.h>

// Counts the batches load_deferred waits for in one iteration of a loop
// that is not pipelined: groups, in emission order, that read a cp.async
// tile not yet loaded (and one for those no group reads).
typedef struct Batches {
  const MgGraph *b;
  bool *loaded;
  uint32_t count;
} Batches;

static bool batch_of(Batches *c, const MgOp *const *ops, uint32_t n) {
  const MgGraph *b = c->b;
  bool any = false;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *load = &b->ops[i];
    if (c->loaded[i] || !mg_lower_is_loop_tile_load(load))
      continue;
    if (mg_lower_group_reads(ops, n, load->outputs[0])) {
      c->loaded[i] = true;
      any |= mg_lower_is_async_load(b, load);
    }
  }
  return any;
}

static void count_batch(void *ctx, const MgOp *const *ops, uint32_t n) {
  Batches *c = ctx;
  c->count += batch_of(c, ops, n);
}

uint32_t mg_lower_async_batches(const MgGraph *b) {
  uint8_t *phase = malloc(b->num_ops + 1);
  Batches c = {b, calloc(b->num_ops + 1, sizeof *c.loaded), 0};
  if (phase && c.loaded && mg_lower_op_phases(b, phase)) {
    mg_lower_for_each_group(b, phase, MG_LOWER_PHASE_LOOP, true, count_batch, &c);
    c.count += batch_of(&c, NULL, 0);
  }
  free(phase);
  free(c.loaded);
  return c.count;
}
