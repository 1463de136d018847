//===- schedule.c - When each block-graph op runs, grouped how -----------===//
//
// The decisions behind the block graph's body (write/block.c): which ops
// run before, inside and after the for-loop (mg_lower_op_phases), how ops
// group (fused element-wise chains, a matmul or sum with its accumulator,
// single ops: mg_lower_for_each_group), which values stay in registers
// (mg_lower_register_values), the cp.async batches a loop waits for and
// the threads that reduce cooperatively. The writer and the plan
// (plan.c) both walk these, so they agree.
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The block graph's body: accumulator zero fill, the for-loop, the rest.
// Element-wise ops fuse into one loop when they follow each other and make
// results of one shape: values only the chain reads stay in registers, as
// Mirage's thread graphs keep them (one barrier for the chain, no shared
// memory round trip).
static bool fusable(const MgGraph *b, const MgOp *op, const MgOp *first) {
  if (!mg_op_kind_is_elementwise((MgOpKind)op->kind))
    return false;
  if (!first)
    return true;
  const MgTensor *x = &b->tensors[op->outputs[0]];
  const MgTensor *y = &b->tensors[first->outputs[0]];
  return x->rank == y->rank &&
         memcmp(x->dims, y->dims, x->rank * sizeof x->dims[0]) == 0;
}

// Whether chain member `c` must be stored: an op outside the chain (or the
// graph's outputs) reads its result.
bool mg_lower_chain_keeps(const MgGraph *b, const MgOp *const *ops, uint32_t n,
                        uint32_t c) {
  MgTensorId t = ops[c]->outputs[0];
  for (uint32_t k = 0; k < b->num_outputs; k++)
    if (b->outputs[k] == t)
      return true;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *r = &b->ops[i];
    bool inside = false;
    for (uint32_t j = 0; j < n; j++)
      inside |= ops[j] == r;
    for (uint32_t k = 0; !inside && k < r->num_inputs; k++)
      if (r->inputs[k] == t)
        return true;
  }
  return false;
}

// Readers of tensor `t` in `b`.
static uint32_t readers(const MgGraph *b, MgTensorId t) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < b->num_ops; i++)
    for (uint32_t k = 0; k < b->ops[i].num_inputs; k++)
      n += b->ops[i].inputs[k] == t;
  for (uint32_t k = 0; k < b->num_outputs; k++)
    n += b->outputs[k] == t;
  return n;
}

// The sum accumulator that is the only reader of `op`'s result, in the
// same phase: the pair is one group, the values added straight into the
// f32 accumulator by the thread that computes them (no tile, no rounding
// to the op's declared type, no barrier between them). Each element is
// added by the same thread in every iteration, so the accumulator stays
// private to its threads (see Barriers). Moving the accumulator up to
// its producer is safe: it reads nothing else, and only ops after the
// loop read it.
static const MgOp *sole_sum_accum(const MgGraph *b, const uint8_t *phase,
                                  const MgOp *op) {
  if (!op->num_outputs || readers(b, op->outputs[0]) != 1)
    return NULL;
  for (uint32_t j = (uint32_t)(op - b->ops) + 1; j < b->num_ops; j++) {
    const MgOp *acc = &b->ops[j];
    if (acc->kind == MG_OP_ACCUM && acc->acc == MG_ACCUM_SUM &&
        acc->inputs[0] == op->outputs[0])
      return phase[j] == phase[op - b->ops] ? acc : NULL;
  }
  return NULL;
}

// A reduction whose results can go straight into a sum accumulator (a
// maximum cannot: its accumulator is not a sum).
static bool sums(const MgOp *op) {
  return op->kind == MG_OP_MATMUL || op->kind == MG_OP_SUM;
}

static const MgOp *folded_accum(const MgGraph *b, const uint8_t *phase,
                                const MgOp *op) {
  return sums(op) ? sole_sum_accum(b, phase, op) : NULL;
}

// A group of a reduction (matmul or sum) and the accumulator it feeds.
bool mg_lower_is_reduction_accum(const MgGraph *b, const MgOp *const *ops,
                               uint32_t n) {
  return n == 2 && sums(ops[0]) &&
         ops[1]->kind == MG_OP_ACCUM && ops[1]->inputs[0] == ops[0]->outputs[0] &&
         readers(b, ops[0]->outputs[0]) == 1;
}

bool mg_lower_op_phases(const MgGraph *b, uint8_t *phase) {
  bool *in_loop = calloc(b->num_ops + 1, sizeof *in_loop);
  if (!in_loop || !mg_graph_ops_in_loop(b, in_loop)) {
    free(in_loop);
    return false;
  }
  // In op order, so an op's producers are decided before it.
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    bool hoist = in_loop[i] && op->kind != MG_OP_ACCUM &&
                 op->kind != MG_OP_INPUT &&
                 !(op->kind == MG_OP_ITERATOR && op->fmap != MG_MAP_NONE);
    for (uint32_t k = 0; hoist && op->kind != MG_OP_ITERATOR &&
                         k < op->num_inputs; k++)
      hoist = phase[b->tensors[op->inputs[k]].producer] ==
              MG_LOWER_PHASE_BEFORE;
    phase[i] = hoist ? MG_LOWER_PHASE_BEFORE
               : in_loop[i] ? MG_LOWER_PHASE_LOOP : MG_LOWER_PHASE_AFTER;
  }
  free(in_loop);
  return true;
}

// A matmul whose only reader is the element-wise op right after it in the
// phase, with the matmul's shape: it heads a chain, its dot products going
// to the chain in registers (no tile, no barrier before the chain).
static bool starts_chain(const MgGraph *b, const uint8_t *phase,
                         const MgOp *mm) {
  if (mm->kind != MG_OP_MATMUL || readers(b, mm->outputs[0]) != 1)
    return false;
  uint32_t i = (uint32_t)(mm - b->ops);
  for (uint32_t j = i + 1; j < b->num_ops; j++) {
    if (phase[j] != phase[i] || b->ops[j].kind == MG_OP_INPUT)
      continue;
    const MgOp *next = &b->ops[j];
    bool reads = false;
    for (uint32_t k = 0; k < next->num_inputs; k++)
      reads |= next->inputs[k] == mm->outputs[0];
    return reads && fusable(b, next, mm);
  }
  return false;
}

// A walk over one phase's groups (mg_lower_for_each_group): the graph, each op's
// phase, per op whether a chain took it (NULL: none can), where the
// groups go.
typedef struct Walk {
  const MgGraph *b;
  const uint8_t *phase;
  bool *taken;
  GroupFn fn;
  void *ctx;
} Walk;

// Calls fn on a chain, with the sum accumulators its members alone feed
// folded in after it (taken: moved up from where they stand).
static void flush_chain(const Walk *w, const MgOp **chain, uint32_t n) {
  const MgGraph *b = w->b;
  bool *taken = w->taken;
  uint32_t m = n;
  for (uint32_t c = 0; taken && c < n; c++) {
    const MgOp *acc = chain[c]->kind == MG_OP_MATMUL
                          ? NULL // it heads the chain: its reader is a member
                          : sole_sum_accum(b, w->phase, chain[c]);
    if (acc) {
      chain[m++] = acc;
      taken[acc - b->ops] = true;
    }
  }
  w->fn(w->ctx, chain, m);
}

// Calls `fn` on the ops of phase `want` in order, grouped: each chain of
// fusable ops (n >= 1) with the sum accumulators it alone feeds, a matmul
// or sum with its accumulator (n = 2), or one other op (n = 1). Emission
// and the tile plan both walk this, so they agree on what stays in
// registers. With `skip_loads`, the loop's tile loads are left out (the
// pipeline issues them, or mg_lower_block_body where they are read).
void mg_lower_for_each_group(const MgGraph *b, const uint8_t *phase,
                           uint8_t want, bool skip_loads, GroupFn fn,
                           void *ctx) {
  const MgOp *chain[GROUP_MAX];
  uint32_t n = 0;
  bool *taken = calloc(b->num_ops + 1, sizeof *taken); // accumulators moved up
  Walk w = {b, phase, taken, fn, ctx};
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (phase[i] != want || op->kind == MG_OP_INPUT || (taken && taken[i]) ||
        (skip_loads && mg_lower_is_loop_tile_load(op)))
      continue;
    if (n < CHAIN_MAX && fusable(b, op, n ? chain[0] : NULL)) {
      chain[n++] = op;
      continue;
    }
    if (n)
      flush_chain(&w, chain, n);
    n = 0;
    if (taken && taken[i])
      continue; // the chain just took this accumulator
    const MgOp *acc = taken ? folded_accum(b, phase, op) : NULL;
    if (fusable(b, op, NULL) || starts_chain(b, phase, op)) {
      chain[n++] = op;
    } else if (acc) {
      const MgOp *pair[2] = {op, acc};
      taken[acc - b->ops] = true;
      fn(ctx, pair, 2);
    } else {
      fn(ctx, &op, 1);
    }
  }
  if (n)
    flush_chain(&w, chain, n);
  free(taken);
}

//===--- Barriers ---------------------------------------------------------===//
//

// Whether group `ops` reads tensor `t` (every group does when ops is NULL:
// the loads no group read, issued at the end).
bool mg_lower_group_reads(const MgOp *const *ops, uint32_t n, MgTensorId t) {
  bool read = !ops;
  for (uint32_t c = 0; c < n; c++)
    for (uint32_t k = 0; k < ops[c]->num_inputs; k++)
      read |= ops[c]->inputs[k] == t;
  return read;
}

typedef struct Plan {
  const MgGraph *b;
  bool *reg;
} Plan;

static void plan_group(void *ctx, const MgOp *const *ops, uint32_t n) {
  Plan *p = ctx;
  if (mg_lower_is_reduction_accum(p->b, ops, n)) {
    p->reg[ops[0]->outputs[0]] = true;
    return;
  }
  for (uint32_t c = 0; n > 1 && c < n; c++)
    if (ops[c]->kind != MG_OP_ACCUM) // accumulators are always tiles
      p->reg[ops[c]->outputs[0]] = !mg_lower_chain_keeps(p->b, ops, n, c);
}

bool mg_lower_register_values(const MgGraph *b, bool *reg) {
  memset(reg, 0, b->num_tensors * sizeof *reg);
  uint8_t *phase = malloc(b->num_ops + 1);
  if (!phase || !mg_lower_op_phases(b, phase)) {
    free(phase);
    return false;
  }
  Plan p = {b, reg};
  for (uint8_t ph = 0; ph < MG_LOWER_PHASE_COUNT; ph++)
    mg_lower_for_each_group(b, phase, ph, false, plan_group, &p);
  free(phase);
  return true;
}

