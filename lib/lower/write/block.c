//===- block.c - The block graph's body: groups, barriers, pipeline -------===//
//
// Every writer (form/gpu.c, form/cpu.c) runs a block graph through
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
#include "write/write.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void emit_group(void *ctx, const MgOp *const *ops, uint32_t n);

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
    if (!mg_lower_group_reads(ops, n, load->outputs[0]))
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
  if (mg_lower_is_reduction_accum(e->g, ops, n) && ops[0]->kind == MG_OP_MATMUL)
    mg_lower_matmul_accum(e, ops[0], ops[1]);
  else if (mg_lower_is_reduction_accum(e->g, ops, n))
    mg_lower_reduce_accum(e, ops[0], ops[1]);
  else if (n == 1)
    mg_lower_op(e, ops[0]);
  else {
    bool keep[GROUP_MAX];
    for (uint32_t c = 0; c < n; c++)
      keep[c] = mg_lower_chain_keeps(e->g, ops, n, c);
    if (ops[0]->kind == MG_OP_MATMUL)
      mg_lower_matmul_chain(e, ops, n, keep);
    else
      mg_lower_chain(e, ops, n, keep);
  }
  if (y->pending)
    group_conflicts(y, ops, n, true);
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
  MgTensor padded; // the buffer's rows may be padded (decide/tiles.c)
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
    mg_lower_for_each_group(b, phase, MG_LOWER_PHASE_LOOP, true, emit_group, &d);
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

// A for-loop over a symbol (docs/verification.md §4c): `size` = the
// symbol's size (the CPU form's, or the kernel's argument: the buffers
// are padded to whole iterations, so their dims do not say it), and `hi`
// = ceil(size / rows) iterations; the tensors' loop dims for the masks
// of write/ops.c.
static void loop_over_symbol(Emit *e, Name size, Name hi) {
  const MgGraph *b = e->g;
  memcpy(size, e->sym[b->forloop_sym], NAME_LEN);
  if (!size[0]) {
    e->error = "a for-loop over a dynamic dim whose size is not known here";
    return;
  }
  Name rows, less, sum;
  mg_lower_index(e, b->forloop_rows, rows);
  mg_lower_index(e, b->forloop_rows - 1, less);
  mg_lower_index_op(e, "arith.addi", size, less, sum);
  mg_lower_index_op(e, "arith.divui", sum, rows, hi);
  e->loop_dims = calloc(b->num_tensors + 1, 1);
  if (!e->loop_dims)
    e->error = "out of memory";
  else
    mg_lower_loop_dims(b, e->loop_dims);
}

// In iteration e->iter: e->loop_valid = min(rows, size - iter * rows).
static void iteration_rows(Emit *e, const char *size) {
  Name rows, first, left;
  mg_lower_index(e, e->g->forloop_rows, rows);
  mg_lower_index_op(e, "arith.muli", e->iter, rows, first);
  mg_lower_index_op(e, "arith.subi", size, first, left);
  mg_lower_index_op(e, "arith.minui", left, rows, e->loop_valid);
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
  mg_lower_for_each_group(b, phase, MG_LOWER_PHASE_BEFORE, false, emit_group, &y);
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
  Name lo, hi, one, size = "";
  mg_lower_index(e, 0, lo);
  if (b->forloop_sym)
    loop_over_symbol(e, size, hi);
  else
    mg_lower_index(e, b->forloop, hi);
  mg_lower_index(e, 1, one);
  if (staged)
    stage_first(e, lo);
  mg_lower_fresh(e, e->iter);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", e->iter, lo, hi, one);
  e->indent++;
  if (b->forloop_sym)
    iteration_rows(e, size);
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
    mg_lower_for_each_group(b, phase, MG_LOWER_PHASE_LOOP, true, emit_group, &y);
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
  free(e->loop_dims);
  e->loop_dims = NULL;
  e->loop_valid[0] = '\0';
  mg_lower_for_each_group(b, phase, MG_LOWER_PHASE_AFTER, false, emit_group, &y);
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
