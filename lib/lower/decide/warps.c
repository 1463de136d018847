//===- warps.c - The block's threads as whole warps ----------------------===//
//
// A leaf fact that the tensor-core plan, the reductions and the schedule
// all read, so it sits below them.
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

int64_t mg_lower_coop_threads(const MgGraph *b) {
  return b->block_threads >= 32 && b->block_threads % 32 == 0
             ? b->block_threads : 0;
}
