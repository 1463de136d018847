//===- placement.c - For-loop placement of block-graph values -------------===//
//
// Every block-graph tensor has a phase (MgPhase): DRAM (INPUT and SAVER
// results, whole kernel tensors), LOOP (one value per for-loop iteration) or
// POST (computed once, after the loop). Iterator tiles are LOOP; accumulator
// results are POST; any other op's result is POST if it reads a POST value,
// else LOOP. The phase depends only on the producers, so one forward pass in
// topological order computes all of them.
//
// Rules (checked for every new op):
//  - an accumulator never reads a POST value (it would sum a constant);
//  - when F > 1, no op reads both a LOOP and a POST value, and a saver reads
//    no LOOP value (a block writes its output once, after the loop). An
//    iterator tile is LOOP even when its fmap is φ (loop-invariant): simple
//    and conservative; such a value can be moved after the loop by
//    accumulating or by the search choosing F = 1.
//  - when F = 1 there is a single iteration, so mixing is harmless: a LOOP
//    value read after the loop is simply that iteration's value.
//
// mg_graph_op_in_loop follows the header: an op runs per iteration when it
// reads, directly or not, an iterator and no accumulator. Iterators and
// accumulators (which add their input every iteration) are in the loop;
// INPUT and SAVER are not.
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <stdlib.h>
#include <string.h>

MgPhase mg_graph_op_phase(const MgGraph *gr, const MgOp *op,
                          const uint8_t *phase) {
  switch ((MgOpKind)op->kind) {
  case MG_OP_INPUT: case MG_OP_SAVER:
    return MG_PHASE_DRAM;
  case MG_OP_ITERATOR:
    return MG_PHASE_LOOP;
  case MG_OP_ACCUM:
    return MG_PHASE_POST;
  default:
    break;
  }
  uint32_t n = op->num_inputs < MG_MAX_OP_INPUTS ? op->num_inputs
                                                 : MG_MAX_OP_INPUTS;
  for (uint32_t i = 0; i < n; i++)
    if (op->inputs[i] < gr->num_tensors &&
        phase[op->inputs[i]] == MG_PHASE_POST)
      return MG_PHASE_POST;
  return MG_PHASE_LOOP;
}

void mg_graph_phases(const MgGraph *gr, uint8_t *phase) {
  memset(phase, MG_PHASE_DRAM, gr->num_tensors);
  for (uint32_t i = 0; i < gr->num_ops; i++) {
    const MgOp *op = &gr->ops[i];
    MgPhase ph = mg_graph_op_phase(gr, op, phase);
    for (uint32_t k = 0; k < op->num_outputs && k < MG_MAX_OP_OUTPUTS; k++)
      if (op->outputs[k] < gr->num_tensors)
        phase[op->outputs[k]] = (uint8_t)ph;
  }
}

MgStatus mg_graph_check_phase(const MgProgram *p, MgGraphId g,
                              uint32_t op_index, const MgOp *op,
                              const uint8_t *phase, MgDiag *diag) {
  const MgGraph *gr = mg_program_graph(p, g);
  bool loop = false, post = false;
  for (uint32_t i = 0; i < op->num_inputs; i++) {
    MG_ASSERT(op->inputs[i] < gr->num_tensors); // mg_graph_infer checked
    loop |= phase[op->inputs[i]] == MG_PHASE_LOOP;
    post |= phase[op->inputs[i]] == MG_PHASE_POST;
  }
  if (op->kind == MG_OP_ACCUM && post)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, (int32_t)op_index,
                       "accumulator input is already post-loop");
  if (gr->forloop <= 1)
    return MG_STATUS_OK;
  if (loop && post)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, (int32_t)op_index,
                       "'%s' mixes in-loop and post-loop values",
                       mg_op_kind_name((MgOpKind)op->kind));
  if (op->kind == MG_OP_SAVER && loop)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, (int32_t)op_index,
                       "saver input is in-loop but the for-loop range is %d; "
                       "accumulate it first", gr->forloop);
  return MG_STATUS_OK;
}

bool mg_graph_op_in_loop(const MgProgram *p, MgGraphId g, MgOpId op) {
  if (!p || g >= p->num_graphs)
    return false;
  const MgGraph *gr = &p->graphs[g];
  if (gr->level != MG_LEVEL_BLOCK || op >= gr->num_ops)
    return false;
  MgOpKind kind = (MgOpKind)gr->ops[op].kind;
  if (kind == MG_OP_ITERATOR)
    return true;
  if (kind == MG_OP_INPUT || kind == MG_OP_SAVER)
    return false;
  uint8_t small[256];
  uint8_t *phase = gr->num_tensors <= sizeof small
                       ? small : malloc(gr->num_tensors);
  if (!phase)
    return false;
  // Only the ops before `op` matter.
  MgGraph prefix = *gr;
  prefix.num_ops = op;
  mg_graph_phases(&prefix, phase);
  const MgOp *o = &gr->ops[op];
  bool reads_post = false;
  for (uint32_t i = 0; i < o->num_inputs && i < MG_MAX_OP_INPUTS; i++)
    reads_post |= o->inputs[i] < gr->num_tensors &&
                  phase[o->inputs[i]] == MG_PHASE_POST;
  if (phase != small)
    free(phase);
  return !reads_post;
}

bool mg_graph_ops_in_loop(const MgGraph *gr, bool *in_loop) {
  uint8_t small[256];
  uint8_t *phase = gr->num_tensors <= sizeof small
                       ? small : malloc(gr->num_tensors);
  if (!phase)
    return false;
  memset(phase, MG_PHASE_DRAM, gr->num_tensors);
  for (uint32_t i = 0; i < gr->num_ops; i++) {
    const MgOp *op = &gr->ops[i];
    MgPhase ph = mg_graph_op_phase(gr, op, phase);
    // An accumulator's result is POST but it adds its input every
    // iteration.
    in_loop[i] = ph == MG_PHASE_LOOP || op->kind == MG_OP_ACCUM;
    for (uint32_t k = 0; k < op->num_outputs && k < MG_MAX_OP_OUTPUTS; k++)
      if (op->outputs[k] < gr->num_tensors)
        phase[op->outputs[k]] = (uint8_t)ph;
  }
  if (phase != small)
    free(phase);
  return true;
}

bool *mg_graph_loop_flags(const MgGraph *gr, bool *small, size_t n) {
  bool *in_loop =
      gr->num_ops <= n ? small : malloc(gr->num_ops * sizeof *in_loop);
  if (in_loop && !mg_graph_ops_in_loop(gr, in_loop)) {
    if (in_loop != small)
      free(in_loop);
    return NULL;
  }
  return in_loop;
}
