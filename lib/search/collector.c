//===- collector.c - Ranking keys and the best-first candidate list -------===//
//
// Candidates are ranked by (estimated time, kernels, DRAM bytes, shared
// memory), compared lexicographically, then by program hash, then by
// structural comparison of the canonical keys so the order is total and the
// same on every run. The time is lib/cost's model of the code lib/lower
// emits for the program (0 for every program under rank=proxy, which
// leaves the proxy order). DRAM bytes of a kernel
// op in the proxy:
//  - predefined op: its operands read once plus its result written once;
//  - graph-defined kernel: every block reads its iterators' tiles, once per
//    for-loop iteration when the fmap cuts a dim (else once), and the savers
//    write their kernel tensors once. Replicated inputs (imap φ on a grid
//    axis of size > 1) are therefore read once per block, as on a GPU
//    without L2 reuse.
// Shared memory is the sum of mg_graph_smem_bytes over the block graphs.
//
// Collector invariant: items[0..num) sorted best first, no two programs
// equal, num <= cap. Because the order is total, the best `cap` of a union
// equal the best `cap` of the union of per-worker lists: merging is
// deterministic whatever the split of the work.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t custom_dram(const MgGraph *b) {
  uint64_t blocks = (uint64_t)b->grid[0] * (uint64_t)b->grid[1] *
                    (uint64_t)b->grid[2];
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (op->kind == MG_OP_ITERATOR) {
      uint64_t reads = op->fmap == MG_MAP_NONE ? 1 : (uint64_t)b->forloop;
      bytes += (uint64_t)mg_tensor_bytes(&b->tensors[op->outputs[0]]) *
               reads * blocks;
    } else if (op->kind == MG_OP_SAVER) {
      bytes += (uint64_t)mg_tensor_bytes(&b->tensors[op->outputs[0]]);
    }
  }
  return bytes;
}

uint64_t mg_search_block_dram(const MgProgram *p, MgGraphId g) {
  return g < p->num_graphs ? custom_dram(&p->graphs[g]) : 0;
}

MgSearchCost mg_search_proxy_cost(const MgProgram *program) {
  MgSearchCost c = {0, 0, 0, 0};
  if (!program || program->num_graphs == 0)
    return c;
  const MgGraph *g = &program->graphs[0];
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    // A free or folded view is no launch and moves no data of its own
    // (docs/lower.md).
    if (op->kind == MG_OP_INPUT || mg_graph_view_is_free(g, op) ||
        mg_graph_view_folds(g, op) || mg_graph_im2col_folds(g, op))
      continue;
    c.kernels++;
    if (op->kind == MG_OP_CUSTOM && op->attr >= 0 &&
        (uint32_t)op->attr < program->num_graphs) {
      c.dram_bytes += custom_dram(&program->graphs[op->attr]);
      c.smem_bytes += (uint64_t)mg_graph_smem_bytes(program,
                                                   (MgGraphId)op->attr);
      continue;
    }
    for (uint32_t k = 0; k < op->num_inputs; k++)
      c.dram_bytes +=
          (uint64_t)mg_tensor_bytes(&g->tensors[op->inputs[k]]);
    for (uint32_t k = 0; k < op->num_outputs; k++)
      c.dram_bytes +=
          (uint64_t)mg_tensor_bytes(&g->tensors[op->outputs[k]]);
  }
  return c;
}

MgSearchCost mg_search_cost(const MgProgram *program,
                            const MgSearchOptions *options) {
  MgSearchCost c = mg_search_proxy_cost(program);
  MgSearchRank rank = options ? options->rank : MG_SEARCH_RANK_COST;
  if (rank != MG_SEARCH_RANK_COST)
    return c;
  const MgGpu *gpu = mg_cost_gpu(options ? options->target : NULL);
  // With the layouts the program will run with, where it takes them (one
  // that cannot is dropped later and costed here as it is).
  MgProgram *laid = options && options->layouts ? mg_program_clone(program)
                                                : NULL;
  MgDiag d;
  if (laid && mg_program_copy_layouts(laid, options->layouts, &d) ==
                  MG_STATUS_OK)
    c.time_s = mg_cost_emitted_program(laid, gpu);
  else
    c.time_s = mg_cost_emitted_program(program, gpu);
  mg_program_destroy(laid);
  return c;
}

// Work of one compute op on its operand/result types: multiply-adds for
// matmul, elements touched otherwise.
static double op_work(const MgGraph *g, const MgOp *op) {
  if (op->kind == MG_OP_INPUT || op->num_outputs == 0)
    return 0;
  const MgTensor *out = &g->tensors[op->outputs[0]];
  if (op->kind == MG_OP_MATMUL) {
    const MgTensor *a = &g->tensors[op->inputs[0]];
    return (double)mg_tensor_numel(out) * (double)a->dims[a->rank - 1];
  }
  if (op->kind == MG_OP_SUM || op->kind == MG_OP_REDUCE_MAX ||
      op->kind == MG_OP_ACCUM)
    return (double)mg_tensor_numel(&g->tensors[op->inputs[0]]);
  return (double)mg_tensor_numel(out);
}

double mg_search_work(const MgProgram *program) {
  double work = 0;
  const MgGraph *g = &program->graphs[0];
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind != MG_OP_CUSTOM) {
      work += op_work(g, op);
      continue;
    }
    if (op->attr < 0 || (uint32_t)op->attr >= program->num_graphs)
      continue;
    const MgGraph *b = &program->graphs[op->attr];
    bool small[64];
    bool *in_loop = mg_graph_loop_flags(b, small, 64);
    if (!in_loop)
      return INFINITY; // no memory: too much work, never kept
    double per_block = 0;
    for (uint32_t j = 0; j < b->num_ops; j++) {
      MgOpKind k = (MgOpKind)b->ops[j].kind;
      if (k == MG_OP_INPUT || k == MG_OP_ITERATOR || k == MG_OP_SAVER)
        continue; // data movement: the DRAM proxy counts it
      double w = op_work(b, &b->ops[j]);
      if (b->forloop > 1 && in_loop[j])
        w *= b->forloop;
      per_block += w;
    }
    if (in_loop != small)
      free(in_loop);
    work += per_block * (double)b->grid[0] * (double)b->grid[1] *
            (double)b->grid[2];
  }
  return work;
}

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

int mg_search_cost_compare(const MgSearchCost *a, const MgSearchCost *b) {
  int c = a->time_s < b->time_s ? -1 : a->time_s > b->time_s;
  if (!c)
    c = cmp_u64(a->kernels, b->kernels);
  if (!c)
    c = cmp_u64(a->dram_bytes, b->dram_bytes);
  if (!c)
    c = cmp_u64(a->smem_bytes, b->smem_bytes);
  return c;
}

// Tie-break for equal cost and hash (practically never reached): compare
// the raw launch and op words of the programs.
static int cmp_programs(const MgProgram *a, const MgProgram *b) {
  int c = cmp_u64(a->num_graphs, b->num_graphs);
  for (uint32_t g = 0; !c && g < a->num_graphs; g++) {
    const MgGraph *x = &a->graphs[g], *y = &b->graphs[g];
    c = cmp_u64(x->num_ops, y->num_ops);
    for (int k = 0; !c && k < 3; k++)
      c = cmp_u64((uint32_t)x->grid[k], (uint32_t)y->grid[k]);
    if (!c)
      c = cmp_u64((uint32_t)x->forloop, (uint32_t)y->forloop);
    for (uint32_t i = 0; !c && i < x->num_ops; i++) {
      const MgOp *p = &x->ops[i], *q = &y->ops[i];
      c = cmp_u64(p->kind, q->kind);
      for (uint32_t k = 0; !c && k < MG_MAX_OP_INPUTS; k++)
        c = cmp_u64(k < p->num_inputs ? p->inputs[k] : 0,
                    k < q->num_inputs ? q->inputs[k] : 0);
      if (!c)
        c = cmp_u64((uint32_t)p->attr, (uint32_t)q->attr);
      for (int k = 0; !c && k < 3; k++) {
        c = cmp_u64((uint8_t)p->imap[k], (uint8_t)q->imap[k]);
        if (!c)
          c = cmp_u64((uint8_t)p->omap[k], (uint8_t)q->omap[k]);
      }
      if (!c) {
        uint64_t sp, sq;
        memcpy(&sp, &p->scalar, sizeof sp);
        memcpy(&sq, &q->scalar, sizeof sq);
        c = cmp_u64(sp, sq);
      }
      if (!c)
        c = cmp_u64((uint8_t)p->fmap, (uint8_t)q->fmap);
      if (!c)
        c = cmp_u64(p->acc, q->acc);
    }
  }
  return c;
}

int mg_kept_compare(const Kept *a, const Kept *b) {
  int c = mg_search_cost_compare(&a->cost, &b->cost);
  if (!c)
    c = cmp_u64(a->hash, b->hash);
  if (!c)
    c = cmp_programs(a->program, b->program);
  return c;
}

void mg_collector_init(Collector *c, uint32_t cap) {
  memset(c, 0, sizeof *c);
  c->cap = cap ? cap : 1;
}

void mg_collector_dispose(Collector *c) {
  for (uint32_t i = 0; i < c->num; i++)
    mg_program_destroy(c->items[i].program);
  free(c->items);
  memset(c, 0, sizeof *c);
}

// Position where `k` belongs, or -1 when an equal program is present or it
// ranks beyond the cap.
static int32_t find_slot(const Collector *c, const Kept *k) {
  uint32_t lo = 0, hi = c->num;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    int cmp = mg_kept_compare(&c->items[mid], k);
    if (cmp == 0)
      return -1;
    if (cmp < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  // Equal programs compare equal (same cost, hash and words), but a hash
  // collision between different programs would not; check neighbours.
  for (uint32_t i = lo > 0 ? lo - 1 : 0; i < c->num && i <= lo; i++)
    if (c->items[i].hash == k->hash &&
        mg_program_equal(c->items[i].program, k->program))
      return -1;
  if (lo >= c->cap)
    return -1;
  return (int32_t)lo;
}

static bool insert(Collector *c, Kept k, bool take) {
  int32_t at = find_slot(c, &k);
  if (at < 0) {
    if (take)
      mg_program_destroy(k.program);
    return true;
  }
  if (!c->items) {
    c->items = calloc(c->cap + 1, sizeof *c->items);
    if (!c->items) {
      if (take)
        mg_program_destroy(k.program);
      return false;
    }
  }
  if (!take) {
    k.program = mg_program_clone(k.program);
    if (!k.program)
      return false;
  }
  memmove(&c->items[at + 1], &c->items[at],
          (c->num - (uint32_t)at) * sizeof *c->items);
  c->items[at] = k;
  if (c->num < c->cap)
    c->num++;
  else
    mg_program_destroy(c->items[c->cap].program); // pushed past the end
  return true;
}

bool mg_collector_offer(Collector *c, const MgProgram *p, MgSearchCost cost,
                        uint64_t hash, uint64_t structure) {
  Kept k = {(MgProgram *)p, cost, hash, structure};
  return insert(c, k, false);
}

bool mg_collector_merge(Collector *dst, Collector *src) {
  bool ok = true;
  for (uint32_t i = 0; i < src->num; i++) {
    ok &= insert(dst, src->items[i], true);
    src->items[i].program = NULL;
  }
  src->num = 0;
  return ok;
}
