//===- schedule.c - The block graph's body: groups, barriers, pipeline ----===//
//
// Every writer (gpu.c, cpu.c) runs a block graph through
// mg_lower_block_body: accumulators are zeroed and loop-invariant tiles
// loaded, then the for-loop runs the ops that depend on an iterator through
// no accumulator (mg_graph_ops_in_loop), then the others run once, savers
// included. Ops are emitted in groups (fused element-wise chains, a matmul
// with its accumulator or its chain, single ops); on the GPU a barrier
// goes only where a shared-memory dependence between groups needs one, and
// a for-loop whose tiles all move as 16-byte vectors is a pipeline of
// cp.async stages.
//
//===----------------------------------------------------------------------===//
#include "lower_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The block graph's body: accumulator zero fill, the for-loop, the rest.
// Element-wise ops fuse into one loop when they follow each other and make
// results of one shape: values only the chain reads stay in registers, as
// Mirage's thread graphs keep them (one barrier for the chain, no shared
// memory round trip).
#define CHAIN_MAX 32

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
static bool chain_keeps(const MgGraph *b, const MgOp *const *ops, uint32_t n,
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

typedef void (*GroupFn)(void *ctx, const MgOp *const *ops, uint32_t n);

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
static bool is_reduction_accum(const MgGraph *b, const MgOp *const *ops,
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

#define GROUP_MAX (2 * CHAIN_MAX) // a chain and the accumulators it feeds

// A walk over one phase's groups (for_each_group): the graph, each op's
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
static void for_each_group(const MgGraph *b, const uint8_t *phase,
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
// In a GPU block graph a barrier goes only where a shared-memory dependence
// needs one: before a group that reads a tile written since the last
// barrier (RAW), or writes a tile read or written since then (WAR, WAW).
// Inside the for-loop, accumulator tiles are private to the threads that
// own their elements (every update maps an element to the same thread), so
// they take no part; one barrier after the zero fill and one at the end of
// each iteration (the next iteration's iterators overwrite tiles this one
// read; after the last, the ops after the loop read the accumulators). A
// reduction that combines warps through the shared scratch counts as
// reading and writing it (index num_tensors).

enum { SYNC_READ = 1, SYNC_WRITE = 2 };

typedef struct Sync {
  Emit *e;
  uint8_t *pending; // per tensor (+ scratch): accesses since the last barrier
  const bool *reg;  // values kept in registers: no tile
  bool in_loop;
  bool dry;         // place barriers and track accesses, write nothing
  // A single-stage loop's tile loads, issued just before the first group
  // that reads their tile (NULL: in op order): per op, loaded already.
  bool *deferred;
  // Loop-invariant tiles issued by cp.async before everything (NULL: none).
  const bool *issued;
} Sync;

static bool is_shared(const Sync *y, MgTensorId t) {
  const MgGraph *b = y->e->g;
  if (!mg_lower_is_tile(b, t) || y->reg[t])
    return false;
  return !(y->in_loop && b->ops[b->tensors[t].producer].kind == MG_OP_ACCUM);
}

static bool uses_scratch(const Sync *y, const MgOp *op) {
  return mg_lower_reduction_warps(y->e, op) > 1;
}

// Whether the group touches a tile against the accesses since the last
// barrier; with `record`, adds its own accesses.
static bool group_conflicts(Sync *y, const MgOp *const *ops, uint32_t n,
                            bool record) {
  const MgGraph *b = y->e->g;
  bool conflict = false;
  for (uint32_t c = 0; c < n; c++) {
    const MgOp *op = ops[c];
    for (uint32_t k = 0; k < op->num_inputs; k++) {
      MgTensorId t = op->inputs[k];
      if (!is_shared(y, t))
        continue;
      conflict |= (y->pending[t] & SYNC_WRITE) != 0;
      if (record)
        y->pending[t] |= SYNC_READ;
    }
    for (uint32_t k = 0; k < op->num_outputs; k++) {
      MgTensorId t = op->outputs[k];
      if (!is_shared(y, t))
        continue;
      conflict |= y->pending[t] != 0;
      if (record)
        y->pending[t] |= SYNC_WRITE;
    }
    if (uses_scratch(y, op)) {
      conflict |= y->pending[b->num_tensors] != 0;
      if (record)
        y->pending[b->num_tensors] = SYNC_READ | SYNC_WRITE;
    }
  }
  return conflict;
}

static void barrier(Sync *y) {
  if (!y->dry)
    mg_lower_line(y->e, "gpu.barrier");
  memset(y->pending, 0, y->e->g->num_tensors + 1);
}

static void emit_group(void *ctx, const MgOp *const *ops, uint32_t n);

// Whether group `ops` reads tensor `t` (every group does when ops is NULL:
// the loads no group read, issued at the end).
static bool group_reads(const MgOp *const *ops, uint32_t n, MgTensorId t) {
  bool read = !ops;
  for (uint32_t c = 0; c < n; c++)
    for (uint32_t k = 0; k < ops[c]->num_inputs; k++)
      read |= ops[c]->inputs[k] == t;
  return read;
}

// One iterator copied by cp.async (not waited for): barriers as for any
// group that writes its tile.
static void issue_async(Sync *y, const MgOp *load) {
  if (y->pending && group_conflicts(y, &load, 1, false))
    barrier(y);
  if (!y->dry) {
    Name iter; // prefetch sets e->iter to it: not the same buffer
    snprintf(iter, NAME_LEN, "%s", y->e->iter);
    mg_lower_prefetch(y->e, load, iter, NULL);
  }
  if (y->pending)
    group_conflicts(y, &load, 1, true);
}

// Waits for the copies issued since the last wait (one commit group).
static void wait_async(Sync *y) {
  if (y->dry || y->e->mode == MG_LOWER_CPU)
    return;
  mg_lower_line(y->e, "nvvm.cp.async.commit.group");
  mg_lower_line(y->e, "nvvm.cp.async.wait.group 0");
}

// The deferred tile loads group `ops` reads (all left when ops is NULL),
// each a group of its own; those that move by cp.async are all in flight
// at once and waited for together before the group.
static void load_deferred(Sync *y, const MgOp *const *ops, uint32_t n) {
  const MgGraph *b = y->e->g;
  bool any_async = false;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *load = &b->ops[i];
    if (y->deferred[i] || !mg_lower_is_loop_tile_load(load))
      continue;
    if (!group_reads(ops, n, load->outputs[0]))
      continue;
    y->deferred[i] = true;
    if (mg_lower_is_async_load(b, load)) {
      issue_async(y, load);
      any_async = true;
    } else {
      emit_group(y, &load, 1);
    }
  }
  if (any_async)
    wait_async(y);
}

// Loop-invariant tiles that move by cp.async: all issued first, before any
// other op of the body, and waited for at once (their readers then pass
// the barrier their writes call for). `issued` marks them for emit_group.
static void issue_invariants(Sync *y, const uint8_t *phase, bool *issued) {
  const MgGraph *b = y->e->g;
  bool any = false;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (phase[i] != MG_LOWER_PHASE_BEFORE || op->kind != MG_OP_ITERATOR ||
        !mg_lower_is_async_load(b, op))
      continue;
    issue_async(y, op);
    issued[i] = any = true;
  }
  if (any)
    wait_async(y);
}

static void emit_group(void *ctx, const MgOp *const *ops, uint32_t n) {
  Sync *y = ctx;
  Emit *e = y->e;
  if (n == 1 && y->issued && y->issued[ops[0] - e->g->ops])
    return; // copied by issue_invariants
  if (y->deferred)
    load_deferred(y, ops, n);
  if (y->pending && group_conflicts(y, ops, n, false))
    barrier(y);
  if (y->dry) {
    group_conflicts(y, ops, n, true);
    return;
  }
  if (is_reduction_accum(e->g, ops, n) && ops[0]->kind == MG_OP_MATMUL)
    mg_lower_matmul_accum(e, ops[0], ops[1]);
  else if (is_reduction_accum(e->g, ops, n))
    mg_lower_reduce_accum(e, ops[0], ops[1]);
  else if (n == 1)
    mg_lower_op(e, ops[0]);
  else {
    bool keep[GROUP_MAX];
    for (uint32_t c = 0; c < n; c++)
      keep[c] = chain_keeps(e->g, ops, n, c);
    if (ops[0]->kind == MG_OP_MATMUL)
      mg_lower_matmul_chain(e, ops, n, keep);
    else
      mg_lower_chain(e, ops, n, keep);
  }
  if (y->pending)
    group_conflicts(y, ops, n, true);
}

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
    if (group_reads(ops, n, load->outputs[0])) {
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
    for_each_group(b, phase, MG_LOWER_PHASE_LOOP, true, count_batch, &c);
    c.count += batch_of(&c, NULL, 0);
  }
  free(phase);
  free(c.loaded);
  return c.count;
}

typedef struct Plan {
  const MgGraph *b;
  bool *reg;
} Plan;

static void plan_group(void *ctx, const MgOp *const *ops, uint32_t n) {
  Plan *p = ctx;
  if (is_reduction_accum(p->b, ops, n)) {
    p->reg[ops[0]->outputs[0]] = true;
    return;
  }
  for (uint32_t c = 0; n > 1 && c < n; c++)
    if (ops[c]->kind != MG_OP_ACCUM) // accumulators are always tiles
      p->reg[ops[c]->outputs[0]] = !chain_keeps(p->b, ops, n, c);
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
    for_each_group(b, phase, ph, false, plan_group, &p);
  free(phase);
  return true;
}

//===--- The stage pipeline -----------------------------------------------===//
//
// When every tile the for-loop reloads moves as 16-byte vectors and S >= 2
// copies of the tiles still fit static shared memory (mg_lower_stages),
// each such tile gets S stages: before the loop, iterations 0 .. S-2 are
// fetched into stages 0 .. S-2 (cp.async.cg on the GPU, one commit group
// per iteration, possibly empty); iteration i waits for its own group
// (cp.async.wait_group S-2: the S-2 groups after it may still fly),
// passes one barrier, and only then starts fetching i+S-1 into stage
// (i-1) mod S, which it computes on stage i mod S through a subview.
// Fetching after the barrier is what lets the iteration end without one:
// every thread has passed it, so nobody still reads the stage of i-1 that
// i+S-1 overwrites, and every other shared write of iteration i+1 also
// follows its barrier. The loads of S-1 iterations overlap the compute of
// i. The CPU form copies synchronously through the same stages and
// subviews.

static void prefetch(Emit *e, const char *iter,
                     const char *stage) {
  const MgGraph *b = e->g;
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (mg_lower_is_loop_tile_load(&b->ops[i]))
      mg_lower_prefetch(e, &b->ops[i], iter, stage);
  if (e->mode != MG_LOWER_CPU)
    mg_lower_line(e, "nvvm.cp.async.commit.group");
}

// Strided type of one stage of a staged tile.
static void stage_type(const MgGraph *b, MgTensorId t, bool gpu,
                       char out[TYPE_LEN]) {
  const MgTensor *x = &b->tensors[t];
  size_t n = (size_t)snprintf(out, TYPE_LEN, "memref<");
  for (uint32_t d = 0; d < x->rank; d++)
    n += (size_t)snprintf(out + n, TYPE_LEN - n, "%lldx",
                          (long long)x->dims[d]);
  n += (size_t)snprintf(out + n, TYPE_LEN - n, "%s, strided<[",
                        mg_lower_elt(mg_lower_kept_dtype(b, t)));
  MgTensor padded; // the buffer's rows may be padded (emit.c)
  mg_lower_tile_shape(b, t, &padded);
  for (uint32_t d = 0; d < x->rank; d++) {
    int64_t stride = 1;
    for (uint32_t k = d + 1; k < x->rank; k++)
      stride *= padded.dims[k];
    n += (size_t)snprintf(out + n, TYPE_LEN - n, "%s%lld", d ? ", " : "",
                          (long long)stride);
  }
  snprintf(out + n, TYPE_LEN - n, "], offset: ?>%s%s>", gpu ? ", " : "",
           gpu ? MG_LOWER_WORKGROUP : "");
}

// Inside the loop, after the barrier: fetch i+S-1 into its stage
// ((i+S-1) mod S), if there is such an iteration.
static void stage_next(Emit *e, const char *hi) {
  const MgGraph *b = e->g;
  int64_t stages = mg_lower_stages(b);
  Name ahead, count, next_stage, next, more;
  mg_lower_index(e, stages - 1, ahead);
  mg_lower_index(e, stages, count);
  mg_lower_index_op(e, "arith.addi", e->iter, ahead, next);
  mg_lower_index_op(e, "arith.remui", next, count, next_stage);
  mg_lower_index_op(e, "arith.cmpi ult,", next, hi, more);
  mg_lower_line(e, "scf.if %s {", more);
  e->indent++;
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (mg_lower_is_loop_tile_load(&b->ops[i]))
      mg_lower_prefetch(e, &b->ops[i], next, next_stage);
  e->indent--;
  mg_lower_line(e, "}");
  if (e->mode != MG_LOWER_CPU)
    mg_lower_line(e, "nvvm.cp.async.commit.group");
}

// Before the loop: iterations 0 .. S-2 into stages 0 .. S-2 (`lo` is 0).
static void stage_first(Emit *e, const char *lo) {
  int64_t stages = mg_lower_stages(e->g);
  prefetch(e, lo, lo);
  for (int64_t s = 1; s + 1 < stages; s++) {
    Name at;
    mg_lower_index(e, s, at);
    prefetch(e, at, at);
  }
}

// Inside the loop, before the barrier: wait for iteration i's tiles and
// point the staged tiles' names at stage i mod S (`stage`).
static void stage_iteration(Emit *e, Name stage) {
  const MgGraph *b = e->g;
  bool gpu = e->mode != MG_LOWER_CPU;
  int64_t stages = mg_lower_stages(b);
  Name count;
  mg_lower_index(e, stages, count);
  mg_lower_index_op(e, "arith.remui", e->iter, count, stage);
  if (gpu)
    mg_lower_line(e, "nvvm.cp.async.wait.group %lld", (long long)(stages - 2));
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (!mg_lower_is_loop_tile_load(op))
      continue;
    MgTensorId t = op->outputs[0];
    const MgTensor *x = &b->tensors[t];
    char offsets[64], sizes[96], strides[32];
    size_t no = (size_t)snprintf(offsets, sizeof offsets, "%s", stage);
    size_t ns = (size_t)snprintf(sizes, sizeof sizes, "1");
    size_t nt = (size_t)snprintf(strides, sizeof strides, "1");
    for (uint32_t d = 0; d < x->rank; d++) {
      no += (size_t)snprintf(offsets + no, sizeof offsets - no, ", 0");
      ns += (size_t)snprintf(sizes + ns, sizeof sizes - ns, ", %lld",
                             (long long)x->dims[d]);
      nt += (size_t)snprintf(strides + nt, sizeof strides - nt, ", 1");
    }
    char type[TYPE_LEN];
    stage_type(b, t, gpu, type);
    Name view;
    mg_lower_fresh(e, view);
    mg_lower_line(e, "%s = memref.subview %s[%s] [%s] [%s] : %s to %s", view,
                  e->stage_buf[t], offsets, sizes, strides, e->stage_type[t],
                  type);
    snprintf(e->val[t], NAME_LEN, "%s", view);
    snprintf(e->type[t], TYPE_LEN, "%s", type);
  }
}

// A single-stage loop has no barrier of its own at the end of an
// iteration: the accesses pending when an iteration starts are those of
// the loop's entry and those the body leaves at its end (the next
// iteration starts there), so the body's barriers are placed against
// both. The body is run dry (barriers placed, nothing written) until that
// set stops growing (it only grows; three bits per tile bound it). With
// its tile loads issued just before their first reader, a loop whose
// groups each read what the last barrier made visible needs no more
// barriers than shared-memory dependences inside one iteration.
static bool loop_entry(Sync *y, const uint8_t *phase) {
  const MgGraph *b = y->e->g;
  size_t n = b->num_tensors + 1;
  Sync d = *y;
  d.dry = true;
  d.pending = malloc(n);
  d.deferred = calloc(b->num_ops + 1, sizeof *d.deferred);
  bool ok = d.pending && d.deferred;
  for (int round = 0; ok && round < 32; round++) {
    memcpy(d.pending, y->pending, n);
    memset(d.deferred, 0, (b->num_ops + 1) * sizeof *d.deferred);
    for_each_group(b, phase, MG_LOWER_PHASE_LOOP, true, emit_group, &d);
    load_deferred(&d, NULL, 0);
    bool grew = false;
    for (size_t t = 0; t < n; t++) {
      grew |= (y->pending[t] | d.pending[t]) != y->pending[t];
      y->pending[t] |= d.pending[t];
    }
    if (!grew)
      break;
  }
  free(d.pending);
  free(d.deferred);
  return ok;
}

void mg_lower_block_body(Emit *e, const bool *reg) {
  const MgGraph *b = e->g;
  // GPU: barriers by dependence (above) instead of after every loop.
  bool gpu = e->barrier;
  Sync y = {e, NULL, reg, false, false, NULL, NULL};
  if (gpu) {
    y.pending = calloc(b->num_tensors + 1, 1);
    if (!y.pending) {
      e->error = "out of memory";
      return;
    }
    e->barrier = false;
  }
  uint8_t *phase = malloc(b->num_ops + 1);
  if (!phase || !mg_lower_op_phases(b, phase)) {
    free(phase);
    free(y.pending);
    e->error = "out of memory";
    return;
  }
  // Loop-invariant tiles and what only they feed run once, first.
  bool before = false; // work before the loop that its body reads
  for (uint32_t i = 0; i < b->num_ops; i++)
    before |= phase[i] == MG_LOWER_PHASE_BEFORE;
  bool *issued = calloc(b->num_ops + 1, sizeof *issued);
  if (!issued) {
    free(phase);
    free(y.pending);
    e->error = "out of memory";
    return;
  }
  issue_invariants(&y, phase, issued);
  y.issued = issued;
  for_each_group(b, phase, MG_LOWER_PHASE_BEFORE, false, emit_group, &y);
  y.issued = NULL;
  free(issued);
  bool accums = false;
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (b->ops[i].kind == MG_OP_ACCUM) {
      mg_lower_accum_init(e, &b->ops[i]);
      accums = true;
    }
  bool staged = mg_lower_pipelined(b);
  // Updates may map elements to other threads; tiles ready. A staged loop
  // opens each iteration with a barrier, which serves.
  if (gpu && (accums || before) && !staged)
    barrier(&y);
  Name lo, hi, one;
  mg_lower_index(e, 0, lo);
  mg_lower_index(e, b->forloop, hi);
  mg_lower_index(e, 1, one);
  if (staged)
    stage_first(e, lo);
  mg_lower_fresh(e, e->iter);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", e->iter, lo, hi, one);
  e->indent++;
  y.in_loop = true;
  e->in_loop = b->forloop > 1; // one pass: no per-iteration cost
  if (staged) {
    Name stage;
    stage_iteration(e, stage);
    if (gpu)
      barrier(&y); // this iteration's tiles have arrived for every thread
    stage_next(e, hi);
  }
  bool *deferred = staged ? NULL : calloc(b->num_ops + 1, sizeof *deferred);
  if (!staged && !deferred) {
    e->error = "out of memory";
  } else if (gpu && !staged && b->forloop > 1 && !loop_entry(&y, phase)) {
    e->error = "out of memory";
  } else {
    y.deferred = deferred;
    for_each_group(b, phase, MG_LOWER_PHASE_LOOP, true, emit_group, &y);
    if (deferred)
      load_deferred(&y, NULL, 0);
    y.deferred = NULL;
  }
  free(deferred);
  bool loop_work = false;
  for (uint32_t i = 0; gpu && i <= b->num_tensors; i++)
    loop_work |= y.pending[i] != 0;
  e->indent--;
  // Marked, so readers and bench/loop_barriers.py find the block graph's
  // for-loop among the element loops.
  mg_lower_line(e, "} {mirage.for_loop}");
  // No barrier ends an iteration: the next one starts from what this one
  // left pending (loop_entry), or, staged, with a barrier before any of its
  // shared writes. The ops after the loop need one.
  if (gpu && (loop_work || accums))
    barrier(&y);
  y.in_loop = false;
  e->in_loop = false;
  for_each_group(b, phase, MG_LOWER_PHASE_AFTER, false, emit_group, &y);
  free(phase);
  if (gpu) {
    e->barrier = true;
    free(y.pending);
  }
}

// Names the block graph's kernel tensors after the kernel op's operands
// and results (`kval`/`ktype`: per root tensor).
void mg_lower_bind_dram(Emit *e, const MgOp *op, Name *kval,
                      char (*ktype)[TYPE_LEN]) {
  const MgGraph *b = e->g;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *o = &b->ops[i];
    if (o->kind == MG_OP_INPUT) {
      MgTensorId k = op->inputs[o->attr];
      snprintf(e->val[o->outputs[0]], NAME_LEN, "%s", kval[k]);
      snprintf(e->type[o->outputs[0]], TYPE_LEN, "%s", ktype[k]);
    }
  }
  for (uint32_t k = 0; k < b->num_outputs; k++) {
    MgTensorId t = b->outputs[k];
    snprintf(e->val[t], NAME_LEN, "%s", kval[op->outputs[k]]);
    snprintf(e->type[t], TYPE_LEN, "%s", ktype[op->outputs[k]]);
    // The kernel tensor's storage dtype (the search stores a target output
    // in the target's dtype, which may be narrower than the saved tile).
    e->dtype[t] = e->p->graphs[0].tensors[op->outputs[k]].dtype;
  }
}

int64_t mg_lower_coop_threads(const MgGraph *b) {
  return b->block_threads >= 32 && b->block_threads % 32 == 0
             ? b->block_threads : 0;
}

