//===- graph_internal.h - Shared helpers of lib/graph (not exported) ------===//
//
// The builders (build.c) and the validator (validate.c) share one shape
// inference (shape.c) and one loop-placement rule (placement.c), so a program
// that the builders accept is exactly one that mg_program_validate accepts
// (up to whole-program limits such as shared memory and targets).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_GRAPH_INTERNAL_H
#define MIRAGE_GRAPH_INTERNAL_H

#include "mirage/graph.h"

/// Largest number of elements a tensor may have; keeps byte counts (numel *
/// dtype bytes, summed over a graph) far from int64 overflow.
#define MG_MAX_NUMEL ((int64_t)1 << 48)

/// Makes room for `ops` more ops, `tensors` more tensors and `outputs` more
/// outputs in graph `g`: grows the arrays from the program's arena (a bigger
/// array, then a copy; the old space is abandoned until the arena dies).
MgStatus mg_graph_reserve(MgProgram *p, MgGraphId g, uint32_t ops,
                          uint32_t tensors, uint32_t outputs);

/// A tensor type as given, not yet checked (rank and dtype unclamped).
typedef struct MgGraphType {
  uint32_t dtype, rank;
  const int64_t *dims;
} MgGraphType;

/// Checks a tensor type: known dtype, rank 1..MG_MAX_DIMS, every dim >= 1
/// and at most MG_MAX_NUMEL elements. `what` names the tensor in messages,
/// which blame op `op` of graph `g`.
MgStatus mg_graph_check_type(MgGraphType t, const char *what, int32_t g,
                             int32_t op, MgDiag *diag);

/// The result tensors of one op, as mg_graph_infer infers them.
typedef struct MgOpResults {
  MgTensor t[MG_MAX_OP_OUTPUTS];
  uint32_t n;
} MgOpResults;

/// Infers the outputs of `op`, placed as op number `op_index` of graph `g`,
/// (any kind but INPUT, whose type is given, not inferred)
/// from the tensors already in the graph and checks its local rules: level,
/// operand count and ids (each made by an earlier op), shapes, maps, the
/// block-graph DRAM rules (only iterators read inputs, nothing reads saver
/// results) and custom/thread signatures. Writes the inferred tensors
/// (producer = op_index) and their count to `res`.
MgStatus mg_graph_infer(const MgProgram *p, MgGraphId g, uint32_t op_index,
                        const MgOp *op, MgOpResults *res, MgDiag *diag);

/// Loop phase of a block-graph tensor.
typedef enum MgPhase {
  MG_PHASE_DRAM, // a whole kernel tensor: INPUT or SAVER result
  MG_PHASE_LOOP, // one value per for-loop iteration
  MG_PHASE_POST, // computed once after the loop (depends on an accumulator)
} MgPhase;

/// Phase of the outputs of `op` given the phases of its inputs (no checks).
MgPhase mg_graph_op_phase(const MgGraph *gr, const MgOp *op,
                          const uint8_t *phase);

/// Checks the loop-placement rules of `op` (number `op_index` of block graph
/// `g`, operands already checked by mg_graph_infer) against the phases of
/// existing tensors.
MgStatus mg_graph_check_phase(const MgProgram *p, MgGraphId g,
                              uint32_t op_index, const MgOp *op,
                              const uint8_t *phase, MgDiag *diag);

/// Fills phase[t] for every tensor of `gr` (ids out of range are skipped, so
/// this is safe on unvalidated graphs).
void mg_graph_phases(const MgGraph *gr, uint8_t *phase);

/// Name of grid axis 0..2 ("x", "y", "z").
const char *mg_graph_axis_name(int axis);

/// True when perm[0..rank) is a permutation of 0..rank-1 (layout.c).
bool mg_graph_is_permutation(const int8_t *perm, uint32_t rank);
/// "f16[2,4096]" into buf, for messages.
const char *mg_graph_format_type(const MgTensor *t, char *buf, size_t size);

#endif // MIRAGE_GRAPH_INTERNAL_H
