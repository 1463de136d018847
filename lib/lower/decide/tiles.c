//===- tiles.c - Tile shapes, padded rows, bytes and the pipeline's stages ===//
//
// A tile's buffer (its rows padded for ldmatrix where the padded tiles
// stay static), its bytes, and the stages of the for-loop pipeline: the
// stages depend on the tiles' bytes and the staged tiles' bytes on the
// stages, so both live here. The totals per kernel op are smem.c's.
//
//===----------------------------------------------------------------------===//
#include "decide/decide.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMEM_ALIGN 16

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
        mg_lower_mma_plan(b, op, true, NULL)) // any target with tensor cores
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

// Stages of the for-loop's pipeline: the fewest from 2 up whose S - 1
// stages ahead hold MG_LOWER_STAGE_AHEAD bytes (Little's law: a block with
// 16 KiB in flight, two resident blocks give an SM the 32 KiB issue 28
// asks for), at most F and MG_LOWER_MAX_STAGES, while every stage stays in
// static shared memory. Tiles of 16 KiB or more keep two stages, as
// before: more would only take shared memory from resident blocks.
#define MG_LOWER_STAGE_AHEAD 16384
#define MG_LOWER_MAX_STAGES 16

int64_t mg_lower_stages(const MgGraph *b) {
  // A loop over a symbol runs a dynamic count: no prefetch ring yet.
  if (b->level != MG_LEVEL_BLOCK || b->forloop < 2 || b->forloop_sym)
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


