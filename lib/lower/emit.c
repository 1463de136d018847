//===- emit.c - mg_lower_emit and what its writers share ------------------===//
//
// The entry point picks a writer: gpu.c (`gpu.module @<name>` with one
// `gpu.func @<name>_k<op>` per kernel op of the root graph), host.c (the
// launching function) or cpu.c (the CPU form). Shared here: text helpers,
// tile sizes and types, per-tensor tables, and the block-graph body every
// writer uses: accumulators are zeroed, then the for-loop runs the ops
// that depend on an iterator through no accumulator (mg_graph_ops_in_loop),
// then the others run once, savers included.
//
//===----------------------------------------------------------------------===//
#include "lower_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMEM_ALIGN 16

void mg_lower_fresh(Emit *e, Name out) {
  snprintf(out, NAME_LEN, "%%v%u", (*e->counter)++);
}

void mg_lower_line(Emit *e, const char *fmt, ...) {
  mg_text_printf(e->t, "%*s", 2 * e->indent, "");
  va_list ap;
  va_start(ap, fmt);
  mg_text_vprintf(e->t, fmt, ap);
  va_end(ap);
  mg_text_printf(e->t, "\n");
}

void mg_lower_index_op(Emit *e, const char *op, const char *a, const char *b,
                       Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = %s %s, %s : index", out, op, a, b);
}

void mg_lower_index(Emit *e, int64_t v, Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = arith.constant %lld : index", out, (long long)v);
}

const char *mg_lower_elt(MgDType dtype) {
  switch (dtype) {
  case MG_DTYPE_F16: return "f16";
  case MG_DTYPE_BF16: return "bf16";
  default: return "f32";
  }
}

void mg_lower_memref_type(const MgTensor *t, MgDType dtype, const char *space,
                          char out[TYPE_LEN]) {
  size_t n = (size_t)snprintf(out, TYPE_LEN, "memref<");
  for (uint32_t d = 0; d < t->rank; d++)
    n += (size_t)snprintf(out + n, TYPE_LEN - n, "%lldx",
                          (long long)t->dims[d]);
  snprintf(out + n, TYPE_LEN - n, "%s%s%s>", mg_lower_elt(dtype),
           space ? ", " : "", space ? space : "");
}

// A block-graph tensor kept in shared memory (not a kernel tensor).
bool mg_lower_is_tile(const MgGraph *b, MgTensorId t) {
  MgOpKind k = (MgOpKind)b->ops[b->tensors[t].producer].kind;
  return k != MG_OP_INPUT && k != MG_OP_SAVER;
}

// The element type a tensor is kept in: accumulators in f32.
MgDType mg_lower_kept_dtype(const MgGraph *g, MgTensorId t) {
  if (g->ops[g->tensors[t].producer].kind == MG_OP_ACCUM)
    return MG_DTYPE_F32;
  return (MgDType)g->tensors[t].dtype;
}

// An iterator the for-loop reloads every iteration (it has an fmap).
static bool is_loop_tile_load(const MgOp *op) {
  return op->kind == MG_OP_ITERATOR && op->fmap != MG_MAP_NONE;
}

// Bytes of one copy of tile `t`, rounded up to the alignment.
static int64_t one_tile_bytes(const MgGraph *b, MgTensorId t) {
  int64_t bytes = mg_tensor_numel(&b->tensors[t]) *
                  (int64_t)mg_dtype_bytes(mg_lower_kept_dtype(b, t));
  return (bytes + SMEM_ALIGN - 1) / SMEM_ALIGN * SMEM_ALIGN;
}

int64_t mg_lower_tile_bytes_of(const MgGraph *b, MgTensorId t) {
  return one_tile_bytes(b, t) * (mg_lower_is_staged(b, t) ? 2 : 1);
}

uint32_t mg_lower_copy_rank(const MgGraph *b, MgTensorId tile,
                            MgTensorId dram) {
  const MgTensor *x = &b->tensors[tile], *y = &b->tensors[dram];
  uint32_t r = x->rank;
  while (r > 1 && x->dims[r - 1] == 1 && y->dims[r - 1] == 1)
    r--;
  return r;
}

int64_t mg_lower_vector_width(const MgGraph *b, MgTensorId tile,
                              MgTensorId dram) {
  const MgTensor *x = &b->tensors[tile], *y = &b->tensors[dram];
  MgDType dt = mg_lower_kept_dtype(b, tile);
  if (dt != mg_lower_kept_dtype(b, dram) || x->rank != y->rank)
    return 1;
  int64_t v = MG_LOWER_VECTOR_BYTES / (int64_t)mg_dtype_bytes(dt);
  // Trailing unit dims (a 256x1 column of an Nx1 tensor) do not break
  // contiguity: the vectors run along the last dim of size > 1.
  uint32_t last = mg_lower_copy_rank(b, tile, dram) - 1;
  return x->dims[last] % v || y->dims[last] % v ? 1 : v;
}

bool mg_lower_pipelined(const MgGraph *b) {
  if (b->level != MG_LEVEL_BLOCK || b->forloop < 2)
    return false;
  bool any = false;
  int64_t bytes = 0, extra = 0;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (!is_loop_tile_load(op))
      continue;
    if (mg_lower_vector_width(b, op->outputs[0], op->inputs[0]) < 2)
      return false; // every copy must be a 16-byte asynchronous one
    any = true;
    extra += one_tile_bytes(b, op->outputs[0]);
  }
  if (!any)
    return false;
  bool *reg = calloc(b->num_tensors + 1, sizeof *reg);
  if (!reg || !mg_lower_register_values(b, reg)) {
    free(reg);
    return false;
  }
  for (MgTensorId t = 0; t < b->num_tensors; t++)
    if (mg_lower_is_tile(b, t) && !reg[t])
      bytes += one_tile_bytes(b, t);
  free(reg);
  // Only while the tiles stay static: the second stage must not change the
  // launch (dynamic shared memory) or push a kernel over the target.
  return bytes + extra <= MG_LOWER_STATIC_SMEM;
}

bool mg_lower_is_staged(const MgGraph *b, MgTensorId t) {
  const MgOp *op = &b->ops[b->tensors[t].producer];
  return is_loop_tile_load(op) && mg_lower_pipelined(b);
}

void mg_lower_tile_type(const MgGraph *b, MgTensorId t, const char *space,
                        char out[TYPE_LEN]) {
  mg_lower_memref_type(&b->tensors[t], mg_lower_kept_dtype(b, t), space, out);
  if (mg_lower_is_staged(b, t)) { // memref<A x ...> -> memref<2xA x ...>
    char rest[TYPE_LEN];
    memcpy(rest, out + 7, TYPE_LEN - 7);
    rest[TYPE_LEN - 8] = '\0';
    snprintf(out, TYPE_LEN, "memref<2x%.*s", TYPE_LEN - 10, rest);
  }
}

int64_t mg_lower_tile_bytes(const MgProgram *program, MgOpId op) {
  const MgOp *o = &program->graphs[0].ops[op];
  if (o->kind != MG_OP_CUSTOM)
    return 0;
  const MgGraph *b = &program->graphs[o->attr];
  bool *reg = calloc(b->num_tensors + 1, sizeof *reg);
  if (reg && !mg_lower_register_values(b, reg))
    memset(reg, 0, (b->num_tensors + 1) * sizeof *reg); // count them all
  int64_t bytes = 0;
  for (MgTensorId t = 0; t < b->num_tensors; t++)
    if (mg_lower_is_tile(b, t) && !(reg && reg[t]))
      bytes += mg_lower_tile_bytes_of(b, t);
  free(reg);
  return bytes;
}

int64_t mg_lower_smem_bytes(const MgProgram *program, MgOpId op) {
  int64_t bytes = mg_lower_tile_bytes(program, op);
  return bytes > MG_LOWER_STATIC_SMEM ? bytes : 0;
}


// Per-tensor names and types of graph `g`, freed by the caller.
bool mg_lower_alloc_tables(Emit *e, const MgGraph *g) {
  e->g = g;
  e->val = calloc(g->num_tensors + 1, sizeof *e->val);
  e->type = calloc(g->num_tensors + 1, sizeof *e->type);
  e->dtype = calloc(g->num_tensors + 1, sizeof *e->dtype);
  e->stage_buf = calloc(g->num_tensors + 1, sizeof *e->stage_buf);
  e->stage_type = calloc(g->num_tensors + 1, sizeof *e->stage_type);
  if (!e->val || !e->type || !e->dtype || !e->stage_buf || !e->stage_type)
    return false;
  for (MgTensorId t = 0; t < g->num_tensors; t++)
    e->dtype[t] = (uint8_t)mg_lower_kept_dtype(g, t);
  return true;
}

void mg_lower_free_tables(Emit *e) {
  free(e->val);
  free(e->type);
  free(e->dtype);
  free(e->stage_buf);
  free(e->stage_type);
  e->stage_buf = NULL;
  e->stage_type = NULL;
  e->val = NULL;
  e->type = NULL;
  e->dtype = NULL;
}

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

// The sum accumulator that is the only reader of matmul `mm`'s result, in
// the same phase: the pair is one group, the dot products added straight
// into the f32 accumulator (no tile, no rounding to the matmul's declared
// type, no barrier between them). Moving the accumulator up to its matmul
// is safe: it reads nothing else, and only ops after the loop read it.
static const MgOp *matmul_accum(const MgGraph *b, const bool *in_loop,
                                const MgOp *mm) {
  if (mm->kind != MG_OP_MATMUL || readers(b, mm->outputs[0]) != 1)
    return NULL;
  for (uint32_t j = (uint32_t)(mm - b->ops) + 1; j < b->num_ops; j++) {
    const MgOp *acc = &b->ops[j];
    if (acc->kind == MG_OP_ACCUM && acc->acc == MG_ACCUM_SUM &&
        acc->inputs[0] == mm->outputs[0])
      return in_loop[j] == in_loop[mm - b->ops] ? acc : NULL;
  }
  return NULL;
}

static bool is_matmul_accum(const MgGraph *b, const MgOp *const *ops,
                            uint32_t n) {
  return n == 2 && ops[0]->kind == MG_OP_MATMUL &&
         ops[1]->kind == MG_OP_ACCUM && ops[1]->inputs[0] == ops[0]->outputs[0] &&
         readers(b, ops[0]->outputs[0]) == 1;
}

// An iterator whose tile does not depend on the for-loop's iteration (no
// fmap): loaded once, before the loop (mg_lower_block_body).
static bool is_invariant_tile_load(const MgOp *op) {
  return op->kind == MG_OP_ITERATOR && op->fmap == MG_MAP_NONE;
}

// A matmul whose only reader is the element-wise op right after it in the
// phase, with the matmul's shape: it heads a chain, its dot products going
// to the chain in registers (no tile, no barrier before the chain).
static bool starts_chain(const MgGraph *b, const bool *in_loop,
                         const MgOp *mm) {
  if (mm->kind != MG_OP_MATMUL || readers(b, mm->outputs[0]) != 1)
    return false;
  uint32_t i = (uint32_t)(mm - b->ops);
  for (uint32_t j = i + 1; j < b->num_ops; j++) {
    if (in_loop[j] != in_loop[i] || b->ops[j].kind == MG_OP_INPUT)
      continue;
    const MgOp *next = &b->ops[j];
    bool reads = false;
    for (uint32_t k = 0; k < next->num_inputs; k++)
      reads |= next->inputs[k] == mm->outputs[0];
    return reads && fusable(b, next, mm);
  }
  return false;
}

// Calls `fn` on the ops of one phase in order, grouped: each chain of
// fusable ops (n >= 1), a matmul with its accumulator (n = 2), or one
// other op (n = 1). Emission and the tile plan both walk this, so they
// agree on what stays in registers. With `staged`, the loop's tile loads
// are left out (the pipeline issues them).
static void for_each_group(const MgGraph *b, const bool *in_loop, bool loop,
                           bool staged, GroupFn fn, void *ctx) {
  const MgOp *chain[CHAIN_MAX];
  uint32_t n = 0;
  bool *taken = calloc(b->num_ops + 1, sizeof *taken); // accumulators moved up
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (in_loop[i] != loop || op->kind == MG_OP_INPUT || (taken && taken[i]) ||
        (loop && is_invariant_tile_load(op)) ||
        (loop && staged && is_loop_tile_load(op)))
      continue;
    if (n < CHAIN_MAX && fusable(b, op, n ? chain[0] : NULL)) {
      chain[n++] = op;
      continue;
    }
    if (n)
      fn(ctx, chain, n);
    n = 0;
    const MgOp *acc = taken ? matmul_accum(b, in_loop, op) : NULL;
    if (fusable(b, op, NULL) || starts_chain(b, in_loop, op)) {
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
    fn(ctx, chain, n);
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
  mg_lower_line(y->e, "gpu.barrier");
  memset(y->pending, 0, y->e->g->num_tensors + 1);
}

static void emit_group(void *ctx, const MgOp *const *ops, uint32_t n) {
  Sync *y = ctx;
  Emit *e = y->e;
  if (y->pending && group_conflicts(y, ops, n, false))
    barrier(y);
  if (is_matmul_accum(e->g, ops, n))
    mg_lower_matmul_accum(e, ops[0], ops[1]);
  else if (n == 1)
    mg_lower_op(e, ops[0]);
  else {
    bool keep[CHAIN_MAX];
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

typedef struct Plan {
  const MgGraph *b;
  bool *reg;
} Plan;

static void plan_group(void *ctx, const MgOp *const *ops, uint32_t n) {
  Plan *p = ctx;
  if (is_matmul_accum(p->b, ops, n)) {
    p->reg[ops[0]->outputs[0]] = true;
    return;
  }
  for (uint32_t c = 0; n > 1 && c < n; c++)
    p->reg[ops[c]->outputs[0]] = !chain_keeps(p->b, ops, n, c);
}

bool mg_lower_register_values(const MgGraph *b, bool *reg) {
  memset(reg, 0, b->num_tensors * sizeof *reg);
  bool *in_loop = NULL;
  if (!mg_lower_loop_flags(b, &in_loop)) {
    free(in_loop);
    return false;
  }
  Plan p = {b, reg};
  for_each_group(b, in_loop, true, false, plan_group, &p);
  for_each_group(b, in_loop, false, false, plan_group, &p);
  free(in_loop);
  return true;
}

//===--- Two-stage pipeline -----------------------------------------------===//
//
// When every tile the for-loop reloads moves as 16-byte vectors and the
// doubled tiles still fit static shared memory (mg_lower_pipelined), each
// such tile gets two stages: before the loop, iteration 0 is fetched into
// stage 0; iteration i first starts fetching i+1 into the other stage
// (cp.async.cg on the GPU, one commit group per iteration, possibly
// empty), then waits for all but that newest group (cp.async.wait_group 1)
// and a barrier, and computes on stage i mod 2 through a subview. The
// barrier ending iteration i-1 guarantees nobody still reads the stage
// that i fetches into. The CPU form copies synchronously through the same
// stages and subviews.

static void prefetch(Emit *e, const bool *in_loop, const char *iter,
                     const char *stage) {
  const MgGraph *b = e->g;
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (in_loop[i] && is_loop_tile_load(&b->ops[i]))
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
  for (uint32_t d = 0; d < x->rank; d++) {
    int64_t stride = 1;
    for (uint32_t k = d + 1; k < x->rank; k++)
      stride *= x->dims[k];
    n += (size_t)snprintf(out + n, TYPE_LEN - n, "%s%lld", d ? ", " : "",
                          (long long)stride);
  }
  snprintf(out + n, TYPE_LEN - n, "], offset: ?>%s%s>", gpu ? ", " : "",
           gpu ? MG_LOWER_WORKGROUP : "");
}

// Inside the loop: fetch i+1 if any, wait for i, and point the staged
// tiles' names at stage i mod 2.
static void stage_iteration(Emit *e, const bool *in_loop, const char *hi) {
  const MgGraph *b = e->g;
  bool gpu = e->mode != MG_LOWER_CPU;
  Name two, one, stage, next_stage, next, more;
  mg_lower_index(e, 2, two);
  mg_lower_index(e, 1, one);
  mg_lower_fresh(e, stage);
  mg_lower_line(e, "%s = arith.remui %s, %s : index", stage, e->iter, two);
  mg_lower_fresh(e, next_stage);
  mg_lower_line(e, "%s = arith.subi %s, %s : index", next_stage, one, stage);
  mg_lower_fresh(e, next);
  mg_lower_line(e, "%s = arith.addi %s, %s : index", next, e->iter, one);
  mg_lower_fresh(e, more);
  mg_lower_line(e, "%s = arith.cmpi ult, %s, %s : index", more, next, hi);
  mg_lower_line(e, "scf.if %s {", more);
  e->indent++;
  Name iter;
  snprintf(iter, NAME_LEN, "%s", e->iter);
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (in_loop[i] && is_loop_tile_load(&b->ops[i]))
      mg_lower_prefetch(e, &b->ops[i], next, next_stage);
  snprintf(e->iter, NAME_LEN, "%s", iter);
  e->indent--;
  mg_lower_line(e, "}");
  if (gpu) {
    mg_lower_line(e, "nvvm.cp.async.commit.group");
    mg_lower_line(e, "nvvm.cp.async.wait.group 1");
  }
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (!in_loop[i] || !is_loop_tile_load(op))
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

void mg_lower_block_body(Emit *e, const bool *in_loop) {
  const MgGraph *b = e->g;
  // GPU: barriers by dependence (above) instead of after every loop.
  bool gpu = e->barrier;
  Sync y = {e, NULL, NULL, false};
  bool *reg = NULL;
  if (gpu) {
    y.pending = calloc(b->num_tensors + 1, 1);
    reg = calloc(b->num_tensors + 1, sizeof *reg);
    if (!y.pending || !reg || !mg_lower_register_values(b, reg)) {
      e->error = "out of memory";
      free(y.pending);
      free(reg);
      return;
    }
    y.reg = reg;
    e->barrier = false;
  }
  bool before = false; // work before the loop that its body reads
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (in_loop[i] && is_invariant_tile_load(&b->ops[i])) {
      mg_lower_op(e, &b->ops[i]);
      before = true;
    }
  bool accums = false;
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (b->ops[i].kind == MG_OP_ACCUM) {
      mg_lower_accum_init(e, &b->ops[i]);
      accums = true;
    }
  if (gpu && (accums || before))
    barrier(&y); // updates may map elements to other threads; tiles ready
  Name lo, hi, one;
  mg_lower_index(e, 0, lo);
  mg_lower_index(e, b->forloop, hi);
  mg_lower_index(e, 1, one);
  bool staged = mg_lower_pipelined(b);
  if (staged)
    prefetch(e, in_loop, lo, lo); // iteration 0 into stage 0
  mg_lower_fresh(e, e->iter);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", e->iter, lo, hi, one);
  e->indent++;
  y.in_loop = true;
  e->in_loop = b->forloop > 1; // one pass: no per-iteration cost
  if (staged) {
    stage_iteration(e, in_loop, hi);
    if (gpu)
      barrier(&y); // this iteration's tiles have arrived for every thread
  }
  for_each_group(b, in_loop, true, staged, emit_group, &y);
  bool loop_work = false;
  for (uint32_t i = 0; gpu && i <= b->num_tensors; i++)
    loop_work |= y.pending[i] != 0;
  if (gpu && (loop_work || accums))
    barrier(&y);
  e->indent--;
  // Marked, so readers and bench/loop_barriers.py find the block graph's
  // for-loop among the element loops.
  mg_lower_line(e, "} {mirage.for_loop}");
  y.in_loop = false;
  e->in_loop = false;
  for_each_group(b, in_loop, false, false, emit_group, &y);
  if (gpu) {
    e->barrier = true;
    free(y.pending);
    free(reg);
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
  }
}

int64_t mg_lower_coop_threads(const MgGraph *b) {
  return b->block_threads >= 32 && b->block_threads % 32 == 0
             ? b->block_threads : 0;
}

bool mg_lower_loop_flags(const MgGraph *b, bool **in_loop) {
  *in_loop = calloc(b->num_ops + 1, sizeof **in_loop);
  return *in_loop && mg_graph_ops_in_loop(b, *in_loop);
}

//===--- Entry ------------------------------------------------------------===//

static const char *unsupported(const MgProgram *p) {
  for (uint32_t g = 0; g < p->num_graphs; g++) {
    const MgGraph *gr = &p->graphs[g];
    if (gr->num_tensors > 4096)
      return "a graph with more than 4096 tensors";
    for (uint32_t t = 0; t < gr->num_tensors; t++)
      if (gr->tensors[t].rank == 0)
        return "a rank-0 tensor";
  }
  if (p->graphs[0].num_outputs > 64)
    return "more than 64 outputs";
  return NULL;
}

MgStatus mg_lower_emit(const MgProgram *program, const MgLowerOptions *o,
                       MgText *out, MgDiag *diag) {
  if (!program || program->num_graphs == 0 || !o || !o->name ||
      o->mode >= MG_LOWER_MODE_COUNT)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "no program, name or mode to lower");
  // Symbols are written quoted (@"name"), so any name without a quote,
  // backslash or control character is fine.
  const char *names[2] = {o->name, o->module ? o->module : ""};
  for (int k = 0; k < 2; k++)
    for (const char *n = names[k]; *n; n++)
      if (*n == '"' || *n == '\\' || (unsigned char)*n < 0x20)
        return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                           "cannot lower into a symbol named '%s'", names[k]);
  const char *why = unsupported(program);
  if (why)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot lower %s", why);
  uint32_t counter = 0;
  Emit e;
  memset(&e, 0, sizeof e);
  e.t = out;
  e.mode = o->mode;
  e.p = program;
  e.counter = &counter;
  if (o->mode == MG_LOWER_HOST && !o->module)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "no GPU module named for the host code");
  if (o->mode == MG_LOWER_CPU) {
    mg_lower_cpu_program(&e, o);
  } else if (o->mode == MG_LOWER_HOST) {
    mg_lower_host_program(&e, o);
  } else {
    mg_lower_line(&e, "gpu.module @\"%s\" {", o->name);
    e.indent++;
    const MgGraph *root = &program->graphs[0];
    for (MgOpId i = 0; i < root->num_ops && !e.error; i++)
      if (root->ops[i].kind != MG_OP_INPUT)
        mg_lower_gpu_kernel(&e, o->name, i);
    e.indent--;
    mg_lower_line(&e, "}");
  }
  if (e.error)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "cannot lower %s",
                       e.error);
  if (out->failed)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  return MG_STATUS_OK;
}
