//===- emit.c - mg_lower_emit and what its writers share ------------------===//
//
// The entry point picks a writer: gpu.c (`gpu.module @<name>` with one
// `gpu.func @<name>_k<op>` per kernel op of the root graph), host.c (the
// launching function) or cpu.c (the CPU form). Shared here: text helpers,
// tile sizes, types and stages, and per-tensor tables; the block-graph body
// every writer uses is schedule.c's.
//
//===----------------------------------------------------------------------===//
#include "lower_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMEM_ALIGN 16

void mg_lower_fresh(Emit *e, Name out) {
  MG_ASSERT(e->counter); // set by the function being written
  snprintf(out, NAME_LEN, "%%v%u", (*e->counter)++);
}

void mg_lower_line(Emit *e, const char *fmt, ...) {
  MG_ASSERT(e->t && e->indent >= 0); // every close matches an open
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

bool mg_lower_has_layout(const MgGraph *g, MgTensorId t) {
  return mg_graph_is_strided(g, t);
}

void mg_lower_stored_type(const MgGraph *g, MgTensorId t, char out[TYPE_LEN]) {
  MgStridedView v;
  if (mg_graph_folded_view(g, t, &v)) { // the dense buffer it views
    mg_lower_memref_type(&g->tensors[v.base], (MgDType)g->tensors[t].dtype,
                         NULL, out);
    return;
  }
  MgTensor s = g->tensors[t];
  mg_graph_stored_dims(g, t, s.dims);
  mg_lower_memref_type(&s, (MgDType)s.dtype, NULL, out);
}

// A folded view: `val`, the dense buffer it views, becomes the logical
// shape over it through memref.reinterpret_cast (offset and strides of
// the composed view ops; nothing copied).
static void folded_view(Emit *e, const MgTensor *x, const MgStridedView *v,
                        Name val, char type[TYPE_LEN]) {
  char sizes[128], strides[128], view[TYPE_LEN], logical[TYPE_LEN];
  size_t n = 0, k = 0;
  for (uint32_t d = 0; d < x->rank; d++) {
    n += (size_t)snprintf(sizes + n, sizeof sizes - n, "%s%lld",
                          d ? ", " : "", (long long)x->dims[d]);
    k += (size_t)snprintf(strides + k, sizeof strides - k, "%s%lld",
                          d ? ", " : "", (long long)v->stride[d]);
  }
  mg_lower_memref_type(x, (MgDType)x->dtype, NULL, logical);
  if (snprintf(view, sizeof view, "%.*s, strided<[%s], offset: %lld>>",
               (int)strlen(logical) - 1, logical, strides,
               (long long)v->offset) >= (int)sizeof view) {
    e->error = "a folded view whose memref type is too long";
    return;
  }
  Name out;
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.reinterpret_cast %s to offset: [%lld], "
                   "sizes: [%s], strides: [%s] : %s to %s", out, val,
                (long long)v->offset, sizes, strides, type, view);
  snprintf(val, NAME_LEN, "%s", out);
  snprintf(type, TYPE_LEN, "%s", view);
}

void mg_lower_layout_view(Emit *e, const MgGraph *g, MgTensorId t, Name val,
                          char type[TYPE_LEN]) {
  const MgTensor *x = &g->tensors[t];
  int8_t perm[MG_MAX_DIMS];
  MgStridedView v;
  if (mg_graph_folded_view(g, t, &v)) {
    folded_view(e, x, &v, val, type);
    return;
  }
  if (g->ops[x->producer].folded || !mg_graph_tensor_perm(g, x, perm))
    return; // a block input gets its kernel tensor's view made already
  int64_t sdims[MG_MAX_DIMS], sstride[MG_MAX_DIMS], n = 1;
  mg_graph_stored_dims(g, t, sdims);
  for (uint32_t d = x->rank; d-- > 0;) {
    sstride[d] = n;
    n *= sdims[d];
  }
  char map[96], strides[128], view[TYPE_LEN]; // rank 6, strides < 2^48
  size_t m = (size_t)snprintf(map, sizeof map, "(");
  for (uint32_t d = 0; d < x->rank; d++)
    m += (size_t)snprintf(map + m, sizeof map - m, "%sd%u", d ? ", " : "", d);
  m += (size_t)snprintf(map + m, sizeof map - m, ") -> (");
  size_t k = 0;
  for (uint32_t d = 0; d < x->rank; d++) {
    m += (size_t)snprintf(map + m, sizeof map - m, "%sd%d", d ? ", " : "",
                          perm[d]);
    k += (size_t)snprintf(strides + k, sizeof strides - k, "%s%lld",
                          d ? ", " : "", (long long)sstride[perm[d]]);
  }
  snprintf(map + m, sizeof map - m, ")");
  // memref<AxBxT> -> memref<BxAxT, strided<[1, B]>>: the logical shape
  // over the stored array, nothing copied.
  char logical[TYPE_LEN];
  mg_lower_memref_type(x, (MgDType)x->dtype, NULL, logical);
  snprintf(view, sizeof view, "%.*s, strided<[%s]>>",
           (int)strlen(logical) - 1, logical, strides);
  Name out;
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.transpose %s %s : %s to %s", out, val, map,
                type, view);
  snprintf(val, NAME_LEN, "%s", out);
  snprintf(type, TYPE_LEN, "%s", view);
}

// A block-graph tensor kept in shared memory (not a kernel tensor).
bool mg_lower_is_tile(const MgGraph *b, MgTensorId t) {
  MgOpKind k = (MgOpKind)mg_graph_producer(b, t)->kind;
  return k != MG_OP_INPUT && k != MG_OP_SAVER;
}

// The element type a tensor is kept in: accumulators in f32.
MgDType mg_lower_kept_dtype(const MgGraph *g, MgTensorId t) {
  if (mg_graph_producer(g, t)->kind == MG_OP_ACCUM)
    return MG_DTYPE_F32;
  return (MgDType)mg_graph_tensor(g, t)->dtype;
}

// An iterator the for-loop reloads every iteration (it has an fmap).
bool mg_lower_is_loop_tile_load(const MgOp *op) {
  return op->kind == MG_OP_ITERATOR && op->fmap != MG_MAP_NONE;
}

// Bytes of one copy of tile `t` (rows padded by `pad` elements), rounded
// up to the alignment.
static int64_t padded_tile_bytes(const MgGraph *b, MgTensorId t,
                                 int64_t pad) {
  const MgTensor *x = mg_graph_tensor(b, t);
  int64_t row = x->dims[x->rank - 1];
  int64_t bytes = mg_tensor_numel(x) / row * (row + pad) *
                  (int64_t)mg_dtype_bytes(mg_lower_kept_dtype(b, t));
  return (bytes + SMEM_ALIGN - 1) / SMEM_ALIGN * SMEM_ALIGN;
}

//===--- Padded rows for ldmatrix -----------------------------------------===//
//
// ldmatrix reads 8 rows of 16 bytes per phase; rows whose stride is an
// even multiple of 16 bytes (a last dim that is a multiple of 16 halves)
// fall on the same banks (8-way for 128 or 256-byte rows). Tiles that are
// operands of a matmul on tensor cores get 8 more elements (16 bytes) per
// row, an odd multiple of 16 bytes: the 8 rows of a phase then hit 8
// different groups of 4 banks. The padding is never read: every access
// indexes the logical dims through the padded memref. It must not change
// what the launch and the schedule decided without it, so a graph's tiles
// are padded only when, padded:
//  - tiles that fit the static shared memory doubled (every tile the
//    for-loop reloads twice: the two-stage pipeline's test) still do;
//  - tiles that fit it single still do (static, not pipelined);
//  - tiles beyond it (dynamic) stay within the smallest per-block limit
//    of the targets that could hold them unpadded (a kernel of 104 KiB can
//    only be for sm_80 or sm_90, 163 KiB or more).

static bool pad_candidate(const MgGraph *b, MgTensorId t) {
  const MgTensor *x = &b->tensors[t];
  if (!mg_lower_is_tile(b, t) || x->rank < 2 || x->dims[x->rank - 1] % 16)
    return false;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (op->kind == MG_OP_MATMUL &&
        (op->inputs[0] == t || op->inputs[1] == t) &&
        mg_lower_mma_plan(b, op, 80, NULL)) // any target with tensor cores
      return true;
  }
  return false;
}

// The smallest per-block shared memory of the known targets that is at
// least `bytes` (0: none).
static int64_t smallest_limit(int64_t bytes) {
  int64_t best = 0;
  for (size_t i = 0; i < mg_target_count(); i++) {
    const MgTarget *t = mg_target_at(i);
    if (t->smem_bytes >= bytes && (!best || t->smem_bytes < best))
      best = t->smem_bytes;
  }
  return best;
}

static bool padding_fits(const MgGraph *b) {
  bool *reg = calloc(b->num_tensors + 1, sizeof *reg);
  if (!reg || !mg_lower_register_values(b, reg)) {
    free(reg);
    return false;
  }
  // Single-stage bytes and the second stages, as mg_lower_pipelined counts.
  int64_t u1 = 0, u2 = 0, p1 = 0, p2 = 0;
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    int64_t aux = mg_lower_aux_bytes(b, t);
    u1 += aux;
    p1 += aux;
    if (!mg_lower_is_tile(b, t) || reg[t])
      continue;
    const MgOp *op = &b->ops[b->tensors[t].producer];
    int64_t u = padded_tile_bytes(b, t, 0);
    int64_t p = padded_tile_bytes(b, t, pad_candidate(b, t) ? 8 : 0);
    bool twice = mg_lower_is_loop_tile_load(op);
    u1 += u;
    p1 += p;
    u2 += twice ? u : 0;
    p2 += twice ? p : 0;
  }
  free(reg);
  u2 += u1;
  p2 += p1;
  if (u2 <= MG_LOWER_STATIC_SMEM)
    return p2 <= MG_LOWER_STATIC_SMEM;
  if (u1 <= MG_LOWER_STATIC_SMEM)
    return p1 <= MG_LOWER_STATIC_SMEM;
  // The reduction scratch (one f32 per warp, gpu.c) shares the block's
  // shared memory with the dynamic tiles.
  int64_t scratch = (mg_lower_coop_threads(b) / 32 * 4 + SMEM_ALIGN - 1) /
                    SMEM_ALIGN * SMEM_ALIGN;
  int64_t limit = smallest_limit(u1);
  return limit && p1 + scratch <= limit;
}

int64_t mg_lower_row_pad(const MgGraph *b, MgTensorId t) {
  if (b->level != MG_LEVEL_BLOCK || !pad_candidate(b, t))
    return 0;
  return padding_fits(b) ? MG_LOWER_VECTOR_BYTES / 2 : 0;
}

void mg_lower_tile_shape(const MgGraph *b, MgTensorId t, MgTensor *out) {
  *out = b->tensors[t];
  out->dims[out->rank - 1] += mg_lower_row_pad(b, t);
}

// Bytes of one copy of tile `t`, rounded up to the alignment.
static int64_t one_tile_bytes(const MgGraph *b, MgTensorId t) {
  return padded_tile_bytes(b, t, mg_lower_row_pad(b, t));
}

int64_t mg_lower_tile_bytes_of(const MgGraph *b, MgTensorId t) {
  return one_tile_bytes(b, t) *
         (mg_lower_is_staged(b, t) ? mg_lower_stages(b) : 1);
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
  // A transposed view is read element by element, in stored order; a
  // folded view whose rows stay contiguous moves whole vectors along them
  // (through its strided view, which admits no collapse of unit dims).
  if (mg_lower_has_layout(b, dram) &&
      (b->ops[y->producer].folded != 2 ||
       mg_lower_copy_rank(b, tile, dram) != x->rank))
    return 1;
  int64_t v = MG_LOWER_VECTOR_BYTES / (int64_t)mg_dtype_bytes(dt);
  // Trailing unit dims (a 256x1 column of an Nx1 tensor) do not break
  // contiguity: the vectors run along the last dim of size > 1.
  uint32_t last = mg_lower_copy_rank(b, tile, dram) - 1;
  return x->dims[last] % v || y->dims[last] % v ? 1 : v;
}

// The caller's kernel tensor behind block-graph input `t` of `b` (one of
// the program's graphs), or MG_NO_ID. A block graph reading a folded view
// has exactly one caller (mg_graph_view_folds); others may have more, all
// passing tensors of one layout.
static MgTensorId caller_tensor(const MgProgram *p, const MgGraph *b,
                                MgTensorId t) {
  const MgOp *in = &b->ops[b->tensors[t].producer];
  if (!p || b < p->graphs + 1 || b >= p->graphs + p->num_graphs ||
      in->kind != MG_OP_INPUT)
    return MG_NO_ID;
  const MgGraph *root = &p->graphs[0];
  int32_t id = (int32_t)(b - p->graphs);
  for (uint32_t i = 0; i < root->num_ops; i++) {
    const MgOp *op = &root->ops[i];
    if (op->kind == MG_OP_CUSTOM && op->attr == id &&
        in->attr >= 0 && (uint32_t)in->attr < op->num_inputs)
      return op->inputs[in->attr];
  }
  return MG_NO_ID;
}

bool mg_lower_view_strides(const MgProgram *p, const MgGraph *b, MgTensorId t,
                           int64_t *stride, int64_t *offset) {
  const MgTensor *x = &b->tensors[t];
  int8_t perm[MG_MAX_DIMS];
  *offset = 0;
  if (b->ops[x->producer].folded) { // the caller's strided view
    MgTensorId k = caller_tensor(p, b, t);
    MgStridedView v;
    if (k == MG_NO_ID || !mg_graph_folded_view(&p->graphs[0], k, &v) ||
        v.rank != x->rank)
      return false;
    memcpy(stride, v.stride, x->rank * sizeof *stride);
    *offset = v.offset;
    return true;
  }
  mg_graph_tensor_perm(b, x, perm); // the identity when none was set
  int64_t sdims[MG_MAX_DIMS], sstride[MG_MAX_DIMS], n = 1;
  mg_graph_stored_dims(b, t, sdims);
  for (uint32_t d = x->rank; d-- > 0;) {
    sstride[d] = n;
    n *= sdims[d];
  }
  for (uint32_t d = 0; d < x->rank; d++)
    stride[d] = sstride[perm[d]]; // as mg_lower_layout_view's transpose
  return true;
}

int64_t mg_lower_stored_vector_width(const MgProgram *p, const MgGraph *b,
                                     MgTensorId tile, MgTensorId dram,
                                     uint32_t *dim, bool *whole) {
  const MgTensor *x = &b->tensors[tile], *y = &b->tensors[dram];
  MgDType dt = mg_lower_kept_dtype(b, tile);
  if (!mg_lower_has_layout(b, dram) || mg_lower_vector_width(b, tile, dram) > 1 ||
      dt != mg_lower_kept_dtype(b, dram) || x->rank != y->rank)
    return 1;
  int64_t stride[MG_MAX_DIMS], offset;
  if (!mg_lower_view_strides(p, b, dram, stride, &offset))
    return 1;
  int64_t v = MG_LOWER_VECTOR_BYTES / (int64_t)mg_dtype_bytes(dt);
  // The dim contiguous in memory; every other dim (of extent > 1) must
  // step by whole vectors and the view start on one, so that each
  // vector's first element is 16-byte aligned in the 16-byte aligned
  // buffer.
  uint32_t inner = MG_MAX_DIMS;
  for (uint32_t d = 0; d < y->rank; d++) {
    if (stride[d] == 1 && y->dims[d] > 1 && inner == MG_MAX_DIMS)
      inner = d;
    else if (y->dims[d] > 1 && stride[d] % v)
      return 1;
  }
  if (inner == MG_MAX_DIMS || offset % v || x->dims[inner] % v ||
      y->dims[inner] % v)
    return 1;
  if (dim)
    *dim = inner;
  if (whole) { // the tile's dims after `inner` are all 1
    *whole = true;
    for (uint32_t d = inner + 1; d < x->rank; d++)
      *whole &= x->dims[d] == 1;
  }
  return v;
}

// Stages of the for-loop's pipeline: the fewest from 2 up whose S - 1
// stages ahead hold MG_LOWER_STAGE_AHEAD bytes (Little's law: a block with
// 16 KiB in flight, two resident blocks give an SM the 32 KiB issue 28
// asks for), at most F and MG_LOWER_MAX_STAGES, while every stage stays in
// static shared memory. Tiles of 16 KiB or more keep two stages, as
// before: more would only take shared memory from resident blocks.
#define MG_LOWER_STAGE_AHEAD 16384
#define MG_LOWER_MAX_STAGES 16

int64_t mg_lower_stages(const MgGraph *b) {
  if (b->level != MG_LEVEL_BLOCK || b->forloop < 2)
    return 0;
  bool any = false;
  int64_t bytes = 0, extra = 0;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (!mg_lower_is_loop_tile_load(op))
      continue;
    // Every copy must be a 16-byte asynchronous one, from a dense buffer
    // (cp.async needs 16-byte aligned sources, which strides do not give).
    if (mg_lower_vector_width(b, op->outputs[0], op->inputs[0]) < 2 ||
        mg_lower_has_layout(b, op->inputs[0]))
      return 0;
    any = true;
    extra += one_tile_bytes(b, op->outputs[0]);
  }
  if (!any)
    return 0;
  bool *reg = calloc(b->num_tensors + 1, sizeof *reg);
  if (!reg || !mg_lower_register_values(b, reg)) {
    free(reg);
    return 0;
  }
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    if (mg_lower_is_tile(b, t) && !reg[t])
      bytes += one_tile_bytes(b, t);
    bytes += mg_lower_aux_bytes(b, t);
  }
  free(reg);
  // Only while the tiles stay static: more stages must not change the
  // launch (dynamic shared memory) or push a kernel over the target.
  if (bytes + extra > MG_LOWER_STATIC_SMEM)
    return 0;
  int64_t stages = 2;
  while (stages < b->forloop && stages < MG_LOWER_MAX_STAGES &&
         (stages - 1) * extra < MG_LOWER_STAGE_AHEAD &&
         bytes + stages * extra <= MG_LOWER_STATIC_SMEM)
    stages++;
  return stages;
}

bool mg_lower_pipelined(const MgGraph *b) { return mg_lower_stages(b) >= 2; }

// What mg_lower_stages asks of every staged tile, so staged tiles are
// among these.
bool mg_lower_is_async_load(const MgGraph *b, const MgOp *op) {
  return op->kind == MG_OP_ITERATOR && b->level == MG_LEVEL_BLOCK &&
         mg_lower_vector_width(b, op->outputs[0], op->inputs[0]) >= 2 &&
         !mg_lower_has_layout(b, op->inputs[0]);
}

bool mg_lower_is_staged(const MgGraph *b, MgTensorId t) {
  const MgOp *op = mg_graph_producer(b, t);
  return mg_lower_is_loop_tile_load(op) && mg_lower_pipelined(b);
}

void mg_lower_tile_type(const MgGraph *b, MgTensorId t, const char *space,
                        char out[TYPE_LEN]) {
  MgTensor shape;
  mg_lower_tile_shape(b, t, &shape);
  mg_lower_memref_type(&shape, mg_lower_kept_dtype(b, t), space, out);
  if (mg_lower_is_staged(b, t)) { // memref<A x ...> -> memref<SxA x ...>
    char rest[TYPE_LEN];
    memcpy(rest, out + 7, TYPE_LEN - 7);
    rest[TYPE_LEN - 8] = '\0';
    snprintf(out, TYPE_LEN, "memref<%lldx%.*s", (long long)mg_lower_stages(b),
             TYPE_LEN - 12, rest);
  }
}

int64_t mg_lower_tile_bytes(const MgProgram *program, MgOpId op) {
  const MgOp *o = mg_graph_op(mg_program_graph(program, 0), op);
  if (o->kind != MG_OP_CUSTOM)
    return 0;
  char type[TYPE_LEN];
  int64_t stages, part = mg_lower_gemv_smem(program, op, type, sizeof type);
  if (part > 0) // fused.c's form: no tiles
    return part + mg_lower_gemv_ring(program, op, &stages, type, sizeof type) +
           mg_lower_gemv_stats(program, op, type, sizeof type);
  const MgGraph *b = mg_program_graph(program, (MgGraphId)o->attr);
  bool *reg = calloc(b->num_tensors + 1, sizeof *reg);
  if (reg && !mg_lower_register_values(b, reg))
    memset(reg, 0, (b->num_tensors + 1) * sizeof *reg); // count them all
  int64_t bytes = 0;
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    if (mg_lower_is_tile(b, t) && !(reg && reg[t]))
      bytes += mg_lower_tile_bytes_of(b, t);
    bytes += mg_lower_aux_bytes(b, t); // online accumulators' running max
  }
  free(reg);
  return bytes;
}

int64_t mg_lower_smem_bytes(const MgProgram *program, MgOpId op) {
  int64_t blocks, threads;
  if (mg_lower_is_gemv(program, op, &blocks, &threads))
    return 0; // fused.c's form: static partial sums, ring, statistics
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
  e->aux_buf = calloc(g->num_tensors + 1, sizeof *e->aux_buf);
  e->aux_type = calloc(g->num_tensors + 1, sizeof *e->aux_type);
  if (!e->val || !e->type || !e->dtype || !e->stage_buf || !e->stage_type ||
      !e->aux_buf || !e->aux_type)
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
  free(e->aux_buf);
  free(e->aux_type);
  e->aux_buf = NULL;
  e->aux_type = NULL;
  e->stage_buf = NULL;
  e->stage_type = NULL;
  e->val = NULL;
  e->type = NULL;
  e->dtype = NULL;
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

static MgStatus emit_program(const MgProgram *program, const MgLowerOptions *o,
                             int sm, MgText *out, MgDiag *diag);

MgStatus mg_lower_emit(const MgProgram *program, const MgLowerOptions *o,
                       MgText *out, MgDiag *diag) {
  return mg_lower_emit_for(program, o, 0, out, diag);
}

MgStatus mg_lower_emit_for(const MgProgram *program, const MgLowerOptions *o,
                           int sm, MgText *out, MgDiag *diag) {
  if (!program || program->num_graphs == 0 || !o || !o->name ||
      o->mode >= MG_LOWER_MODE_COUNT || o->host >= MG_LOWER_HOST_COUNT)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "no program, name or mode to lower");
  // Symbols are written quoted (@"name"), so any name without a quote,
  // backslash or control character is fine.
  const char *names[3] = {o->name, o->module ? o->module : "",
                          o->tensor_adapter ? o->tensor_adapter : ""};
  for (int k = 0; k < 3; k++)
    for (const char *n = names[k]; *n; n++)
      if (*n == '"' || *n == '\\' || (unsigned char)*n < 0x20)
        return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                           "cannot lower into a symbol named '%s'", names[k]);
  const char *why = unsupported(program);
  if (why)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot lower %s", why);
  // Block graphs see which of their inputs arrive through folded views
  // (fold.c): a copy of the program with those layouts derived.
  MgProgram *folded = mg_program_clone(program);
  if (!folded)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  MgStatus st = mg_program_fold_layouts(folded, diag);
  if (st == MG_STATUS_OK)
    st = emit_program(folded, o, sm, out, diag);
  mg_program_destroy(folded);
  return st;
}

static MgStatus emit_program(const MgProgram *program, const MgLowerOptions *o,
                             int sm, MgText *out, MgDiag *diag) {
  uint32_t counter = 0;
  Emit e;
  memset(&e, 0, sizeof e);
  e.t = out;
  e.mode = o->mode;
  e.p = program;
  e.counter = &counter;
  e.sm = sm ? sm : 90;
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
      if (mg_lower_is_kernel(program, i))
        mg_lower_gpu_kernel(&e, o->name, i);
    e.indent--;
    mg_lower_line(&e, "}");
  }
  // A writer that finishes closes every region it opened.
  MG_ASSERT(e.error || e.indent == 0);
  if (e.error)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "cannot lower %s",
                       e.error);
  if (out->failed)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  return MG_STATUS_OK;
}
