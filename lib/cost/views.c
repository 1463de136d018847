//===- views.c - What a view op's copy kernel moves -----------------------===//
//
// Kernel-level view ops (transpose, reshape, slice, concat) compute
// nothing; lib/lower makes each a copy kernel whose threads walk the
// result in row-major order (stores contiguous) and read the operand
// element the view maps it to, except a free view: a reshape of a
// contiguous buffer keeping its element type (or a transpose or slice
// that is one) is a view of that buffer, no kernel.
//
// A copy kernel's traffic is counted in the 32-byte sectors its accesses
// touch, walked in the kernel's order: a run of elements contiguous in
// memory (the innermost dims whose strides chain from 1) costs its
// sectors, plus one when runs do not start on sector boundaries; when the
// innermost dim visited is strided in memory (a transpose that moves the
// innermost dim) every element costs min(32, stride) bytes, a whole
// sector once the stride reaches 32 bytes. L2 sees every sector; DRAM sees
// an operand's sectors once when the operand fits in half the L2 (the
// other elements of a sector are read again from L2 by later threads),
// else every time, as kernel.c's iterators do.
//
//===----------------------------------------------------------------------===//
#include "mirage/cost.h"
#include "cost_internal.h"

#include <math.h>
#include <string.h>

#define SECTOR 32.0

// Elements visited in the kernel's order: extents, strides (elements) in
// the buffer accessed, offset of the first, bytes per element.
typedef struct Access {
  uint32_t rank;
  int64_t extent[MG_MAX_DIMS], stride[MG_MAX_DIMS];
  int64_t base;
  double elem;
} Access;

// Sector bytes of one pass over `a` (see the file comment).
static double sector_bytes(const Access *a) {
  int64_t ext[MG_MAX_DIMS], str[MG_MAX_DIMS];
  uint32_t r = 0;
  double n = 1;
  for (uint32_t d = 0; d < a->rank; d++)
    if (a->extent[d] > 1) { // unit dims move nothing
      ext[r] = a->extent[d];
      str[r++] = a->stride[d];
      n *= (double)a->extent[d];
    }
  if (r == 0)
    return SECTOR * ceil(a->elem / SECTOR);
  if (str[r - 1] != 1)
    return n * fmin(SECTOR, fmax(a->elem, (double)str[r - 1] * a->elem));
  int64_t run = ext[r - 1];
  uint32_t d = r - 1;
  while (d > 0 && str[d - 1] == run)
    run *= ext[--d];
  bool aligned = fmod((double)a->base * a->elem, SECTOR) == 0;
  for (uint32_t k = 0; k < d; k++)
    aligned &= fmod((double)str[k] * a->elem, SECTOR) == 0;
  double sectors = ceil((double)run * a->elem / SECTOR) + (aligned ? 0 : 1);
  return n / (double)run * sectors * SECTOR;
}

// Row-major strides of `dims`.
static void row_major(uint32_t rank, const int64_t *dims, int64_t *stride) {
  int64_t s = 1;
  for (uint32_t d = rank; d-- > 0;) {
    stride[d] = s;
    s *= dims[d];
  }
}

// Strides of tensor `t`'s logical dims in its buffer (an input with a
// layout is stored permuted: logical dim d is stored dim perm[d]).
static void logical_strides(const MgGraph *g, MgTensorId t, int64_t *stride) {
  const MgTensor *x = &g->tensors[t];
  MgStridedView v; // a folded view: its strides over the buffer it views
  if (mg_graph_folded_view(g, t, &v)) {
    memcpy(stride, v.stride, x->rank * sizeof *stride);
    return;
  }
  int64_t sdims[MG_MAX_DIMS], sstride[MG_MAX_DIMS];
  int8_t perm[MG_MAX_DIMS];
  mg_graph_stored_dims(g, t, sdims);
  row_major(x->rank, sdims, sstride);
  mg_graph_tensor_perm(g, x, perm); // the identity when none
  for (uint32_t d = 0; d < x->rank; d++)
    stride[d] = sstride[perm[d]];
}

static Access access_of(const MgTensor *shape, const int64_t *stride,
                        int64_t base, const MgTensor *elems) {
  Access a = {shape->rank, {0}, {0}, base,
              (double)mg_dtype_bytes((MgDType)elems->dtype)};
  memcpy(a.extent, shape->dims, shape->rank * sizeof a.extent[0]);
  memcpy(a.stride, stride, shape->rank * sizeof a.stride[0]);
  return a;
}

// Adds one operand's reads: L2 every sector, DRAM as the file comment says.
static void add_read(const MgGraph *g, MgTensorId t, const Access *a,
                     const MgGpu *gpu, MgKernelCost *c) {
  double read = sector_bytes(a);
  double whole = (double)mg_tensor_bytes(&g->tensors[t]);
  c->l2_bytes += read;
  c->dram_bytes += whole <= gpu->l2_bytes / 2 ? fmin(read, whole) : read;
}

static void add_write(const Access *a, MgKernelCost *c) {
  double write = sector_bytes(a);
  c->l2_bytes += write;
  c->dram_bytes += write;
}

void mg_cost_view(const MgProgram *p, const MgOp *op, const MgGpu *gpu,
                  MgKernelCost *c) {
  const MgGraph *g = &p->graphs[0];
  const MgTensor *r = &g->tensors[op->outputs[0]];
  const MgTensor *a = &g->tensors[op->inputs[0]];
  int64_t rs[MG_MAX_DIMS], as[MG_MAX_DIMS], s[MG_MAX_DIMS];
  row_major(r->rank, r->dims, rs);
  logical_strides(g, op->inputs[0], as);
  Access whole_result = access_of(r, rs, 0, r);
  switch ((MgOpKind)op->kind) {
  case MG_OP_TRANSPOSE: { // result dim d walks operand dim perm[d]
    for (uint32_t d = 0; d < r->rank; d++)
      s[d] = as[op->perm[d]];
    Access in = access_of(r, s, 0, a);
    add_read(g, op->inputs[0], &in, gpu, c);
    add_write(&whole_result, c);
    break;
  }
  case MG_OP_IM2COL: { // (g, n, ho, wo, i, j, c) over the input's strides
    MgIm2col k = mg_op_im2col(op);
    int64_t ho, wo, cg = a->dims[3] / k.groups;
    mg_im2col_out_hw(&k, a->dims[1], a->dims[2], &ho, &wo);
    MgTensor walk = {.dtype = a->dtype, .rank = 7,
                     .dims = {k.groups, a->dims[0], ho, wo, k.kh, k.kw, cg}};
    int64_t st[7] = {cg * as[3], as[0], k.sh * as[1], k.sw * as[2],
                     k.dh * as[1], k.dw * as[2], as[3]};
    Access in = access_of(&walk, st, 0, a); // padding reads clamp in bounds
    add_read(g, op->inputs[0], &in, gpu, c);
    add_write(&whole_result, c);
    break;
  }
  case MG_OP_SLICE: {
    Access in = access_of(r, as, op->shape[0] * as[op->attr], a);
    add_read(g, op->inputs[0], &in, gpu, c);
    add_write(&whole_result, c);
    break;
  }
  case MG_OP_RESHAPE: { // the operand in its logical row-major order
    Access in = access_of(a, as, 0, a);
    add_read(g, op->inputs[0], &in, gpu, c);
    add_write(&whole_result, c);
    break;
  }
  case MG_OP_CONCAT: { // one pass per operand over its part of the result
    int64_t offset = 0;
    for (uint32_t k = 0; k < op->num_inputs; k++) {
      const MgTensor *part = &g->tensors[op->inputs[k]];
      logical_strides(g, op->inputs[k], s);
      Access in = access_of(part, s, 0, part);
      add_read(g, op->inputs[k], &in, gpu, c);
      Access out = access_of(part, rs, offset * rs[op->attr], r);
      add_write(&out, c);
      offset += part->dims[op->attr];
    }
    break;
  }
  default:
    break;
  }
  c->utilization = 1.0; // its own grid-stride launch, as predefined ops
}
