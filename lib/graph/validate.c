//===- validate.c - Whole-program invariants and target limits ------------===//
//
// mg_program_validate trusts nothing: programs may come from the builders,
// from the dialect bridge or from hand-filled structs. It checks, in order:
//  1. program shape: at least one graph, graph 0 is a kernel graph, levels;
//  2. per graph, bodies before callers (thread, then block, then kernel
//     graphs), so a custom/thread op checks against a validated body:
//     a. block launch shape against the target (grid, threads, for-loop);
//     b. storage: ids in range, every tensor made by exactly one op;
//     c. inputs: the INPUT ops, numbered 0..num_inputs-1 exactly once;
//     d. every op, in order, through the same inference as the builders
//        (which also enforces topological order and the block DRAM rules),
//        comparing stored result types, plus the loop-placement rules;
//     e. outputs: at least one, distinct; in block graphs exactly the saver
//        results;
//     f. shared memory against the target.
// Each violation has its own message; the first one found is reported.
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD(diag, g, op, ...)                                                  \
  mg_diag_set((diag), MG_STATUS_INVALID, (int32_t)(g), (int32_t)(op),          \
              __VA_ARGS__)

int64_t mg_tensor_numel(const MgTensor *t) {
  if (!t)
    return 0;
  int64_t n = 1;
  for (uint32_t d = 0; d < t->rank && d < MG_MAX_DIMS; d++)
    n *= t->dims[d];
  return n;
}

int64_t mg_tensor_bytes(const MgTensor *t) {
  return t ? mg_tensor_numel(t) * (int64_t)mg_dtype_bytes((MgDType)t->dtype)
           : 0;
}

int64_t mg_graph_smem_bytes(const MgProgram *program, MgGraphId graph) {
  if (!program || graph >= program->num_graphs)
    return 0;
  const MgGraph *gr = &program->graphs[graph];
  if (gr->level != MG_LEVEL_BLOCK)
    return 0;
  int64_t bytes = 0;
  for (uint32_t i = 0; i < gr->num_tensors; i++) {
    const MgTensor *t = &gr->tensors[i];
    if (t->producer >= gr->num_ops)
      continue;
    MgOpKind k = (MgOpKind)gr->ops[t->producer].kind;
    if (k == MG_OP_INPUT || k == MG_OP_SAVER)
      continue; // whole kernel tensors in DRAM
    bytes += mg_tensor_bytes(t);
  }
  return bytes;
}

static MgStatus check_launch(const MgGraph *gr, MgGraphId g,
                             const MgTarget *target, MgDiag *diag) {
  for (int a = 0; a < 3; a++) {
    if (gr->grid[a] < 1)
      return BAD(diag, g, -1, "grid axis '%s' has size %d, expected >= 1",
                 mg_graph_axis_name(a), gr->grid[a]);
    if (gr->grid[a] > target->max_grid[a])
      return BAD(diag, g, -1, "grid axis '%s' has size %d but target '%s' "
                 "allows at most %lld", mg_graph_axis_name(a), gr->grid[a],
                 target->name, (long long)target->max_grid[a]);
  }
  if (gr->forloop < 1)
    return BAD(diag, g, -1, "for-loop range is %d, expected >= 1",
               gr->forloop);
  if (gr->forloop_sym > MG_MAX_SYMS ||
      (gr->forloop_sym && gr->forloop_rows < 1))
    return BAD(diag, g, -1, "the for-loop runs over symbol %u with %d rows an "
               "iteration (expected a symbol 0..%d and rows >= 1)",
               gr->forloop_sym, gr->forloop_rows, MG_MAX_SYMS);
  if (gr->block_threads < 1 || gr->block_threads > target->max_threads)
    return BAD(diag, g, -1, "block_threads is %d but target '%s' allows "
               "1..%d", gr->block_threads, target->name, target->max_threads);
  if (gr->block_threads % 32 != 0) // whole warps only
    return BAD(diag, g, -1, "block_threads is %d, expected a multiple of 32",
               gr->block_threads);
  return MG_STATUS_OK;
}

static MgStatus check_storage(const MgGraph *gr, MgGraphId g, MgDiag *diag) {
  if ((gr->num_ops && !gr->ops) || (gr->num_tensors && !gr->tensors) ||
      (gr->num_outputs && !gr->outputs))
    return BAD(diag, g, -1, "graph arrays are missing");
  for (uint32_t i = 0; i < gr->num_ops; i++) {
    const MgOp *op = &gr->ops[i];
    if (op->num_inputs > MG_MAX_OP_INPUTS)
      return BAD(diag, g, i, "op has %u operands, at most %d allowed",
                 op->num_inputs, MG_MAX_OP_INPUTS);
    if (op->num_outputs > MG_MAX_OP_OUTPUTS)
      return BAD(diag, g, i, "op has %u results, at most %d allowed",
                 op->num_outputs, MG_MAX_OP_OUTPUTS);
    for (uint32_t k = 0; k < op->num_outputs; k++) {
      MgTensorId t = op->outputs[k];
      if (t >= gr->num_tensors)
        return BAD(diag, g, i, "result %u names tensor %u but the graph has "
                   "%u tensors", k, t, gr->num_tensors);
      if (gr->tensors[t].producer != i)
        return BAD(diag, g, i, "result %u is tensor %u, whose producer is op "
                   "%u", k, t, gr->tensors[t].producer);
      for (uint32_t j = 0; j < k; j++)
        if (op->outputs[j] == t)
          return BAD(diag, g, i, "results %u and %u are both tensor %u", j,
                     k, t);
    }
  }
  // With the loop above, a tensor whose producer lists it has exactly one
  // producer (any other op listing it would have failed the check).
  for (uint32_t t = 0; t < gr->num_tensors; t++) {
    MgOpId p = gr->tensors[t].producer;
    bool listed = false;
    if (p < gr->num_ops)
      for (uint32_t k = 0; k < gr->ops[p].num_outputs; k++)
        listed |= gr->ops[p].outputs[k] == t;
    if (!listed)
      return BAD(diag, g, -1, "tensor %u is not made by any op", t);
  }
  return MG_STATUS_OK;
}

// An input layout is a permutation of the input's dims (or unset), and
// thread-graph inputs (tiles) have none.
static MgStatus check_layout(const MgGraph *gr, MgGraphId g, uint32_t i,
                             uint32_t rank, MgDiag *diag) {
  const MgOp *op = &gr->ops[i];
  bool set = false, beyond = false; // entries past the rank must stay 0
  for (uint32_t d = 0; d < MG_MAX_DIMS; d++) {
    set |= op->perm[d] != 0;
    beyond |= d >= rank && op->perm[d] != 0;
  }
  if (!set)
    return MG_STATUS_OK;
  if (gr->level == MG_LEVEL_THREAD)
    return BAD(diag, g, i, "a thread-graph input has no layout");
  if (beyond || !mg_graph_is_permutation(op->perm, rank))
    return BAD(diag, g, i, "input layout is not a permutation of 0..%u",
               rank - 1);
  return MG_STATUS_OK;
}

static MgStatus check_inputs(const MgGraph *gr, MgGraphId g, MgDiag *diag) {
  uint32_t count = 0;
  for (uint32_t i = 0; i < gr->num_ops; i++)
    count += gr->ops[i].kind == MG_OP_INPUT;
  if (count != gr->num_inputs)
    return BAD(diag, g, -1, "graph has %u input ops but num_inputs is %u",
               count, gr->num_inputs);
  uint8_t *seen = calloc(count ? count : 1, 1);
  if (!seen)
    return mg_diag_set(diag, MG_STATUS_NOMEM, (int32_t)g, -1, "out of memory");
  MgStatus st = MG_STATUS_OK;
  for (uint32_t i = 0; i < gr->num_ops && st == MG_STATUS_OK; i++) {
    const MgOp *op = &gr->ops[i];
    if (op->kind != MG_OP_INPUT)
      continue;
    if (op->num_inputs != 0 || op->num_outputs != 1)
      st = BAD(diag, g, i, "'input' takes 0 operands and has 1 result, but "
               "has %u and %u", op->num_inputs, op->num_outputs);
    else if (op->attr < 0 || (uint32_t)op->attr >= count)
      st = BAD(diag, g, i, "input position %d is out of range 0..%u",
               op->attr, count - 1);
    else if (seen[op->attr]++)
      st = BAD(diag, g, i, "input position %d is used twice", op->attr);
    else {
      const MgTensor *t = &gr->tensors[op->outputs[0]];
      st = mg_graph_check_type((MgGraphType){t->dtype, t->rank, t->dims},
                               "input", (int32_t)g, (int32_t)i, diag);
      if (st == MG_STATUS_OK)
        st = check_layout(gr, g, i, t->rank, diag);
    }
  }
  free(seen);
  return st;
}

// Re-infers every op and checks loop placement (block graphs).
static MgStatus check_ops(const MgProgram *p, MgGraphId g, MgDiag *diag) {
  const MgGraph *gr = &p->graphs[g];
  uint8_t *phase = calloc(gr->num_tensors ? gr->num_tensors : 1, 1);
  if (!phase)
    return mg_diag_set(diag, MG_STATUS_NOMEM, (int32_t)g, -1, "out of memory");
  MgStatus st = MG_STATUS_OK;
  for (uint32_t i = 0; i < gr->num_ops && st == MG_STATUS_OK; i++) {
    const MgOp *op = &gr->ops[i];
    if (op->kind != MG_OP_INPUT) {
      MgOpResults res;
      const char *name = mg_op_kind_name((MgOpKind)op->kind);
      st = mg_graph_infer(p, g, i, op, &res, diag);
      const MgTensor *out = res.t;
      uint32_t n = res.n;
      if (st == MG_STATUS_OK && n != op->num_outputs)
        st = BAD(diag, g, i, "'%s' has %u results but %u were inferred", name,
                 op->num_outputs, n);
      for (uint32_t k = 0; k < n && st == MG_STATUS_OK; k++) {
        const MgTensor *t = &gr->tensors[op->outputs[k]];
        // Storage dtypes of results are free (mixed precision is written
        // as in the source program); shapes are not.
        if (!mg_graph_same_shape(t, &out[k])) {
          char a[64], b[64];
          st = BAD(diag, g, i, "'%s' result %u has type %s but %s was "
                   "inferred", name, k, mg_graph_format_type(t, a, sizeof a),
                   mg_graph_format_type(&out[k], b, sizeof b));
        }
      }
      if (st == MG_STATUS_OK && gr->level == MG_LEVEL_BLOCK)
        st = mg_graph_check_phase(p, g, i, op, phase, diag);
    }
    MgPhase ph = mg_graph_op_phase(gr, op, phase);
    for (uint32_t k = 0; k < op->num_outputs; k++)
      phase[op->outputs[k]] = (uint8_t)ph;
  }
  free(phase);
  return st;
}

static MgStatus check_outputs(const MgGraph *gr, MgGraphId g, MgDiag *diag) {
  if (gr->num_outputs == 0)
    return BAD(diag, g, -1, "graph %u has no outputs", g);
  for (uint32_t i = 0; i < gr->num_outputs; i++) {
    MgTensorId t = gr->outputs[i];
    if (t >= gr->num_tensors)
      return BAD(diag, g, -1, "output %u names tensor %u but the graph has "
                 "%u tensors", i, t, gr->num_tensors);
    for (uint32_t j = 0; j < i; j++)
      if (gr->outputs[j] == t)
        return BAD(diag, g, gr->tensors[t].producer,
                   "outputs %u and %u are both tensor %u", j, i, t);
    if (gr->level == MG_LEVEL_BLOCK &&
        gr->ops[gr->tensors[t].producer].kind != MG_OP_SAVER)
      return BAD(diag, g, gr->tensors[t].producer,
                 "block-graph output %u (tensor %u) is not a saver result", i,
                 t);
  }
  if (gr->level != MG_LEVEL_BLOCK)
    return MG_STATUS_OK;
  // A saver whose result is not an output would write to no kernel tensor.
  for (uint32_t i = 0; i < gr->num_ops; i++) {
    if (gr->ops[i].kind != MG_OP_SAVER)
      continue;
    bool listed = false;
    for (uint32_t j = 0; j < gr->num_outputs; j++)
      listed |= gr->outputs[j] == gr->ops[i].outputs[0];
    if (!listed)
      return BAD(diag, g, i, "saver result tensor %u is not a graph output",
                 gr->ops[i].outputs[0]);
  }
  return MG_STATUS_OK;
}

static MgStatus check_graph(const MgProgram *p, MgGraphId g,
                            const MgTarget *target, MgDiag *diag) {
  const MgGraph *gr = &p->graphs[g];
  MgStatus st = MG_STATUS_OK;
  if (gr->level == MG_LEVEL_BLOCK)
    st = check_launch(gr, g, target, diag);
  if (st == MG_STATUS_OK)
    st = check_storage(gr, g, diag);
  if (st == MG_STATUS_OK)
    st = check_inputs(gr, g, diag);
  if (st == MG_STATUS_OK)
    st = check_ops(p, g, diag);
  if (st == MG_STATUS_OK)
    st = check_outputs(gr, g, diag);
  if (st == MG_STATUS_OK && gr->level == MG_LEVEL_BLOCK) {
    int64_t smem = mg_graph_smem_bytes(p, g);
    if (smem > target->smem_bytes)
      st = BAD(diag, g, -1, "block graph %u needs %lld bytes of shared memory "
               "but target '%s' has %lld", g, (long long)smem, target->name,
               (long long)target->smem_bytes);
  }
  return st;
}

MgStatus mg_program_validate(const MgProgram *program, const MgTarget *target,
                             MgDiag *diag) {
  if (!program)
    return BAD(diag, -1, -1, "program is null");
  if (!target)
    target = mg_target_default();
  if (program->num_graphs == 0 || !program->graphs)
    return BAD(diag, -1, -1, "program has no graphs");
  for (uint32_t g = 0; g < program->num_graphs; g++) {
    uint8_t lv = program->graphs[g].level;
    if (lv >= MG_LEVEL_COUNT)
      return BAD(diag, g, -1, "graph %u has unknown level %u", g, lv);
  }
  if (program->graphs[0].level != MG_LEVEL_KERNEL)
    return BAD(diag, 0, -1, "graph 0 must be a kernel graph, but it is a %s "
               "graph", mg_level_name((MgLevel)program->graphs[0].level));
  // Bodies first: thread graphs, then block graphs, then kernel graphs.
  for (int lv = MG_LEVEL_COUNT - 1; lv >= 0; lv--)
    for (uint32_t g = 0; g < program->num_graphs; g++) {
      if (program->graphs[g].level != lv)
        continue;
      MgStatus st = check_graph(program, g, target, diag);
      if (st != MG_STATUS_OK)
        return st;
    }
  return MG_STATUS_OK;
}
