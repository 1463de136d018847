//===- partition.h - State shared by partition.c and chunk.c -------------===//
//
// One block being partitioned: its ops with their classification, the run
// being formed (block indices), and the chunks of that run before they are
// committed to the plan.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIFT_PARTITION_H
#define MIRAGE_LIFT_PARTITION_H

#include "lift_internal.h"

typedef struct MgLiftOpInfo {
  MlirOperation op;
  uint8_t cls;
  bool cut;          // failed in context: never lifted again
  bool member;       // scratch: member of the run being formed
  bool chunk_member; // scratch: member of the chunk being finalised
  bool in_chunk;     // member of a committed chunk
  char why[MG_LIFT_WHY_SIZE];
} MgLiftOpInfo;

typedef struct MgLiftBlock {
  MgLiftPlan *plan;
  MlirBlock block;
  MgLiftOpInfo *ops;
  uint32_t n;
  MgPtrMap pos;
  uint32_t *members; // current run, block indices
  uint32_t num_members;
  uint32_t *counts;    // μGraph ops emitted per run member
  MgLiftChunk *chunks; // chunks of the current run
  uint32_t num_chunks;
} MgLiftBlock;

/// Outcome of forming a run: done, retry (one more op was cut), no memory.
enum { MG_LIFT_RUN_OK, MG_LIFT_RUN_RETRY, MG_LIFT_RUN_NOMEM };

/// Index of `op` in the block, or -1.
int32_t mg_lift_block_pos(const MgLiftBlock *bs, MlirOperation op);
/// Cuts `blame` (when it is a run member not cut yet, else the member at
/// block index `fallback`) with reason `why`.
void mg_lift_block_cut(MgLiftBlock *bs, MlirOperation blame, uint32_t fallback,
                       const char *why);
/// Checks run positions [from, to) built in `b` (outputs, operands the
/// reference needs, validation) and appends them to bs->chunks as a chunk;
/// `note` says why the chunk starts where it does. MG_LIFT_RUN_RETRY after a
/// cut.
int mg_lift_block_finalize(MgLiftBlock *bs, uint32_t from, uint32_t to,
                           MgLiftBuilder *b, const char *note);

#endif // MIRAGE_LIFT_PARTITION_H
