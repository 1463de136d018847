//===- block.c - Graph-defined kernels: running a block graph -------------===//
//
// A CUSTOM op runs its block graph the way a GPU would, serially: for every
// block index b = (bx,by,bz) (x fastest) and every for-loop iteration i < F,
//  - an ITERATOR cuts its tile from the whole kernel tensor: for each grid
//    axis a with imap[a] = d, dim d is cut into grid[a] equal chunks and the
//    block takes chunk b_a; then, if fmap = d, dim d is cut again into F
//    chunks and iteration i takes chunk i;
//  - in-loop ops run every iteration; ACCUMs add their (reduced) tile into a
//    value zeroed at the start of each block;
//  - after the loop, the other ops run once; a SAVER copies the final tile
//    into the kernel output: output dim omap[a] gets chunk b_a.
//
// Phases (computed once per launch, one per op):
//  - LOOP: F > 1 and the op depends on an iterator through no accumulator
//    (mg_graph_op_in_loop's rule); an ACCUM steps in the loop iff its
//    operand is LOOP;
//  - POST: everything else, run once per block after the loop. A POST ACCUM
//    (operand fixed across iterations) adds its tile F times, which is what
//    Σ_i means for a constant tile. With F = 1 everything is POST.
// A post-loop op that reads a LOOP tensor sees the last iteration's tile,
// as the GPU would; validation rejects such programs anyway.
//
// Every tensor keeps one value for the whole launch, so tiles are allocated
// once and overwritten by each block and iteration.
//
//===----------------------------------------------------------------------===//
#include "exec_internal.h"

#include <stdlib.h>
#include <string.h>

enum { PHASE_NONE, PHASE_LOOP, PHASE_POST };

typedef struct BlockRun {
  MgExec *ex;
  MgGraphId gid;
  const MgGraph *g;
  MgExecValue *vals;    // one per block-graph tensor
  uint8_t *phase;       // one per op
  bool *pending;        // ACCUM: zero before its next step
  MgExecValue *runmax;  // ONLINE ACCUM: the running max, one per op
  MgExecValue **frames; // THREAD: the thread graph's value table
  int64_t block[3];     // current block index
} BlockRun;

static void classify(const MgGraph *g, uint8_t *phase, bool *dep, bool *post) {
  bool loop = g->forloop > 1;
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    bool in_dep = false, in_post = false;
    for (uint32_t k = 0; k < op->num_inputs; ++k) {
      in_dep = in_dep || dep[op->inputs[k]];
      in_post = in_post || post[op->inputs[k]];
    }
    bool odep = in_dep, opost = in_post;
    uint8_t ph = loop && in_dep && !in_post ? PHASE_LOOP : PHASE_POST;
    switch ((MgOpKind)op->kind) {
    case MG_OP_INPUT:
      odep = opost = false;
      ph = PHASE_NONE;
      break;
    case MG_OP_ITERATOR:
      odep = true;
      ph = loop && !in_post ? PHASE_LOOP : PHASE_POST;
      break;
    case MG_OP_ACCUM:
      odep = false;
      opost = true;
      break;
    default:
      break;
    }
    phase[o] = ph;
    for (uint32_t k = 0; k < op->num_outputs; ++k) {
      dep[op->outputs[k]] = odep;
      post[op->outputs[k]] = opost;
    }
  }
}

static MgStatus bad_map(MgExec *ex, const char *what, int v, uint32_t rank) {
  return mg_interp_fail(ex, MG_STATUS_INVALID,
                        "%s entry %d out of range for rank %u", what, v, rank);
}

// A tile of `size` at `off` of `src` that runs past its end (a symbol's
// last block): the rows inside are copied, each row past the end is the
// last one inside (never zeros: a row of zeros would divide by zero in the
// field, and no row of the block reads another, docs/verification.md §4b).
static MgStatus copy_clamped(MgExec *ex, const MgBuffer *src,
                             const int64_t *off, const int64_t *size,
                             MgCell *tile, uint32_t rank) {
  int64_t valid[MG_MAX_DIMS];
  for (uint32_t d = 0; d < rank; ++d) {
    valid[d] = src->dims[d] - off[d] < size[d] ? src->dims[d] - off[d]
                                               : size[d];
    if (valid[d] < 1)
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "a block's tile starts past dim %u", d);
  }
  static const int64_t zero[MG_MAX_DIMS] = {0};
  mg_interp_copy_box(src->data, (MgBoxAt){src->dims, off}, tile,
                     (MgBoxAt){size, zero}, valid, rank);
  int64_t region[MG_MAX_DIMS];
  memcpy(region, valid, sizeof region);
  for (uint32_t d = 0; d < rank; ++d) {
    int64_t from[MG_MAX_DIMS] = {0}, to[MG_MAX_DIMS] = {0};
    from[d] = valid[d] - 1;
    region[d] = 1;
    for (int64_t k = valid[d]; k < size[d]; ++k) {
      to[d] = k;
      mg_interp_copy_box(tile, (MgBoxAt){size, from}, tile,
                         (MgBoxAt){size, to}, region, rank);
    }
    region[d] = size[d]; // filled along d from here on
  }
  return MG_STATUS_OK;
}

static MgStatus run_iterator(BlockRun *r, const MgOp *op, int64_t iter) {
  MgExec *ex = r->ex;
  const MgBuffer *src = mg_interp_operand(ex, op, 0, r->vals);
  if (!src)
    return MG_STATUS_INVALID;
  uint32_t rank = src->rank;
  int64_t size[MG_MAX_DIMS], off[MG_MAX_DIMS] = {0};
  memcpy(size, src->dims, sizeof size);
  bool partial = false;
  for (int a = 0; a < 3; ++a) {
    int d = op->imap[a];
    if (d == MG_MAP_NONE)
      continue;
    if (d < 0 || (uint32_t)d >= rank)
      return bad_map(ex, "imap", d, rank);
    if (r->g->grid_sym[a]) { // grid_rows rows; the last block's run past
      size[d] = r->g->grid_rows[a];
      off[d] = r->block[a] * size[d];
      partial |= off[d] + size[d] > src->dims[d];
      continue;
    }
    if (size[d] % r->g->grid[a])
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "grid %d does not divide dim %d (%lld)",
                            r->g->grid[a], d, (long long)size[d]);
    size[d] /= r->g->grid[a];
    off[d] += r->block[a] * size[d];
  }
  int d = op->fmap;
  if (d != MG_MAP_NONE && r->g->forloop_sym) {
    if (d < 0 || (uint32_t)d >= rank)
      return bad_map(ex, "fmap", d, rank);
    // forloop_rows rows an iteration; the last takes only the rows left,
    // so every reduction over them (block sums and maxima, a matmul's
    // contraction) skips the rest, as the lowering's masks do.
    off[d] += iter * r->g->forloop_rows;
    size[d] = size[d] - off[d] < r->g->forloop_rows ? size[d] - off[d]
                                                    : r->g->forloop_rows;
    if (size[d] < 1)
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "for-loop iteration %lld starts past dim %d",
                            (long long)iter, d);
  } else if (d != MG_MAP_NONE) {
    if (d < 0 || (uint32_t)d >= rank)
      return bad_map(ex, "fmap", d, rank);
    if (size[d] % r->g->forloop)
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "for-loop %d does not divide dim %d (%lld)",
                            r->g->forloop, d, (long long)size[d]);
    size[d] /= r->g->forloop;
    off[d] += iter * size[d];
  }
  MgExecValue *out = &r->vals[op->outputs[0]];
  MgStatus st = mg_interp_value_shape(ex, out, rank, size);
  if (st != MG_STATUS_OK)
    return st;
  static const int64_t zero[MG_MAX_DIMS] = {0};
  if (partial)
    return copy_clamped(ex, src, off, size, out->buf.data, rank);
  mg_interp_copy_box(src->data, (MgBoxAt){src->dims, off}, out->buf.data,
                     (MgBoxAt){size, zero}, size, rank);
  return MG_STATUS_OK;
}

static MgStatus run_accum(BlockRun *r, MgOpId o, const MgOp *op,
                          int64_t count) {
  MgExec *ex = r->ex;
  const MgBuffer *x = mg_interp_operand(ex, op, 0, r->vals);
  if (!x)
    return MG_STATUS_INVALID;
  size_t n = 1;
  for (uint32_t d = 0; d < x->rank; ++d)
    n *= (size_t)x->dims[d];
  int64_t dims[MG_MAX_DIMS];
  memcpy(dims, x->dims, sizeof dims);
  const MgCell *src = x->data;
  MgStatus st;
  MgExecValue *acc = &r->vals[op->outputs[0]];
  bool first = r->pending[o];
  r->pending[o] = false;
  if (op->acc == MG_ACCUM_MAX)
    return mg_interp_accum_max(ex, acc, x, first);
  if (op->acc == MG_ACCUM_ONLINE) {
    const MgBuffer *m = mg_interp_operand(ex, op, 1, r->vals);
    return m ? mg_interp_accum_online(
                   ex, (MgOnlineAcc){acc, &r->runmax[o]}, x, m, count, first)
             : MG_STATUS_INVALID;
  }
  if (op->acc == MG_ACCUM_SUM_LAST || op->acc == MG_ACCUM_SUM_SQ_LAST) {
    if (x->rank == 0)
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "accumulator over the last dim of a scalar");
    size_t last = (size_t)x->dims[x->rank - 1];
    size_t rows = last ? n / last : 0;
    if (op->acc == MG_ACCUM_SUM_SQ_LAST) {
      MgCell *sq = mg_interp_scratch(ex, MG_EXEC_SCRATCH_SQ, n);
      if (!sq)
        return mg_interp_fail(ex, MG_STATUS_NOMEM, "out of memory");
      st = ex->dom->unary(ex->dctx, MG_OP_SQUARE, 0.0, src, sq, n);
      if (st != MG_STATUS_OK)
        return mg_interp_domain_fail(ex, st, "square");
      src = sq;
    }
    MgCell *red = mg_interp_scratch(ex, MG_EXEC_SCRATCH_RED, rows);
    if (!red)
      return mg_interp_fail(ex, MG_STATUS_NOMEM, "out of memory");
    if ((st = mg_interp_reduce(ex, src, rows, last, 1, red)) != MG_STATUS_OK)
      return st;
    src = red;
    n = rows;
    dims[x->rank - 1] = 1;
  } else if (op->acc != MG_ACCUM_SUM) {
    return mg_interp_fail(ex, MG_STATUS_INVALID, "unknown accumulator %u",
                          op->acc);
  }
  if (first) {
    if ((st = mg_interp_value_shape(ex, acc, x->rank, dims)) != MG_STATUS_OK)
      return st;
    mg_interp_fill(acc->buf.data, ex->dom->zero, n);
  } else if (acc->buf.rank != x->rank ||
             memcmp(acc->buf.dims, dims, x->rank * sizeof(int64_t)) != 0) {
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "accumulated tiles change shape across iterations");
  }
  for (int64_t c = 0; c < count; ++c)
    if ((st = ex->dom->add_into(ex->dctx, acc->buf.data, src, n)) !=
        MG_STATUS_OK)
      return mg_interp_domain_fail(ex, st, "add_into");
  return MG_STATUS_OK;
}

static MgStatus run_saver(BlockRun *r, const MgOp *op) {
  MgExec *ex = r->ex;
  const MgBuffer *tile = mg_interp_operand(ex, op, 0, r->vals);
  if (!tile)
    return MG_STATUS_INVALID;
  MgBuffer *dst = &r->vals[op->outputs[0]].buf;
  uint32_t rank = tile->rank;
  if (dst->rank != rank)
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "saved tile has rank %u, output has rank %u", rank,
                          dst->rank);
  int64_t off[MG_MAX_DIMS] = {0}, region[MG_MAX_DIMS];
  memcpy(region, tile->dims, sizeof region);
  for (int a = 0; a < 3; ++a) {
    int d = op->omap[a];
    if (d == MG_MAP_NONE)
      continue;
    if (d < 0 || (uint32_t)d >= rank)
      return bad_map(ex, "omap", d, rank);
    off[d] += r->block[a] * tile->dims[d];
    // A symbol's last block writes only the rows inside the size.
    if (r->g->grid_sym[a] && off[d] < dst->dims[d] &&
        off[d] + region[d] > dst->dims[d])
      region[d] = dst->dims[d] - off[d];
  }
  for (uint32_t d = 0; d < rank; ++d)
    if (off[d] + region[d] > dst->dims[d])
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "saved tile exceeds output dim %u (%lld > %lld)",
                            d, (long long)(off[d] + tile->dims[d]),
                            (long long)dst->dims[d]);
  static const int64_t zero[MG_MAX_DIMS] = {0};
  mg_interp_copy_box(tile->data, (MgBoxAt){tile->dims, zero}, dst->data,
                     (MgBoxAt){dst->dims, off}, region, rank);
  return MG_STATUS_OK;
}

static MgStatus run_thread(BlockRun *r, MgOpId o, const MgOp *op) {
  MgExec *ex = r->ex;
  const MgProgram *p = ex->program;
  MgBuffer ins[MG_MAX_OP_INPUTS];
  for (uint32_t k = 0; k < op->num_inputs; ++k) {
    const MgBuffer *b = mg_interp_operand(ex, op, k, r->vals);
    if (!b)
      return MG_STATUS_INVALID;
    ins[k] = *b;
  }
  if (!r->frames[o]) {
    if (op->attr < 0)
      return mg_interp_fail(ex, MG_STATUS_INVALID, "thread graph %d",
                            op->attr);
    MgStatus st = mg_interp_check_graph(ex, (MgGraphId)op->attr,
                                        MG_LEVEL_THREAD);
    if (st != MG_STATUS_OK)
      return st;
    const MgGraph *tg = &p->graphs[op->attr];
    ex->cur_graph = (int32_t)r->gid;
    ex->cur_op = (int32_t)o;
    if (tg->num_outputs != op->num_outputs)
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "thread op has %u results, its graph %u",
                            op->num_outputs, tg->num_outputs);
    r->frames[o] = calloc(tg->num_tensors ? tg->num_tensors : 1,
                          sizeof(MgExecValue));
    if (!r->frames[o])
      return mg_interp_fail(ex, MG_STATUS_NOMEM, "out of memory");
  }
  const MgGraph *tg = &p->graphs[op->attr];
  MgStatus st = mg_interp_run_flat(ex, (MgGraphId)op->attr, ins,
                                   op->num_inputs, r->frames[o], false);
  ex->cur_graph = (int32_t)r->gid;
  ex->cur_op = (int32_t)o;
  for (uint32_t j = 0; j < op->num_outputs && st == MG_STATUS_OK; ++j) {
    const MgBuffer *res = &r->frames[o][tg->outputs[j]].buf;
    if (!res->data)
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "thread graph result %u was never computed", j);
    st = mg_interp_value_copy(ex, &r->vals[op->outputs[j]], res);
  }
  return st;
}

static MgStatus run_op(BlockRun *r, MgOpId o, int64_t iter) {
  MgExec *ex = r->ex;
  const MgOp *op = &r->g->ops[o];
  ex->cur_graph = (int32_t)r->gid;
  ex->cur_op = (int32_t)o;
  switch ((MgOpKind)op->kind) {
  case MG_OP_ITERATOR:
    return run_iterator(r, op, iter);
  case MG_OP_ACCUM:
    return run_accum(r, o, op,
                     r->phase[o] == PHASE_LOOP ? 1 : r->g->forloop);
  case MG_OP_SAVER:
    return run_saver(r, op);
  case MG_OP_THREAD:
    return run_thread(r, o, op);
  case MG_OP_INPUT:
    return MG_STATUS_OK;
  case MG_OP_CUSTOM:
    return mg_interp_fail(ex, MG_STATUS_UNSUPPORTED,
                          "'custom' is only allowed in a kernel graph");
  default:
    return mg_interp_eval_basic(ex, op, r->vals);
  }
}

/// Binds block-graph inputs to the kernel tensors and sizes the savers'
/// outputs by their declared shapes, zero-filled.
static MgStatus prepare(BlockRun *r, const MgOp *cop, MgExecValue *kvals) {
  MgExec *ex = r->ex;
  const MgGraph *g = r->g;
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    ex->cur_op = (int32_t)o;
    if (op->kind == MG_OP_INPUT) {
      if (op->attr < 0 || (uint32_t)op->attr >= cop->num_inputs)
        return mg_interp_fail(ex, MG_STATUS_INVALID,
                              "input position %d out of range (%u operands)",
                              op->attr, cop->num_inputs);
      const MgBuffer *b = &kvals[cop->inputs[op->attr]].buf;
      if (!b->data)
        return mg_interp_fail(ex, MG_STATUS_INVALID,
                              "kernel operand %d was never computed",
                              op->attr);
      mg_interp_value_borrow(&r->vals[op->outputs[0]], b);
    } else if (op->kind == MG_OP_SAVER) {
      const MgTensor *t = &g->tensors[op->outputs[0]];
      MgExecValue *v = &r->vals[op->outputs[0]];
      MgStatus st = mg_interp_value_shape(ex, v, t->rank, t->dims);
      if (st != MG_STATUS_OK)
        return st;
      mg_interp_fill(v->buf.data, ex->dom->zero,
                     (size_t)mg_buffer_numel(&v->buf));
    }
  }
  return MG_STATUS_OK;
}

static MgStatus run_blocks(BlockRun *r) {
  const MgGraph *g = r->g;
  MgStatus st = MG_STATUS_OK;
  int64_t *b = r->block;
  for (b[2] = 0; b[2] < g->grid[2]; ++b[2])
    for (b[1] = 0; b[1] < g->grid[1]; ++b[1])
      for (b[0] = 0; b[0] < g->grid[0]; ++b[0]) {
        for (uint32_t o = 0; o < g->num_ops; ++o)
          r->pending[o] = g->ops[o].kind == MG_OP_ACCUM;
        for (int64_t i = 0; g->forloop > 1 && i < g->forloop; ++i)
          for (uint32_t o = 0; o < g->num_ops; ++o)
            if (r->phase[o] == PHASE_LOOP &&
                (st = run_op(r, o, i)) != MG_STATUS_OK)
              return st;
        for (uint32_t o = 0; o < g->num_ops; ++o)
          if (r->phase[o] == PHASE_POST &&
              (st = run_op(r, o, 0)) != MG_STATUS_OK)
            return st;
      }
  return st;
}

/// Hands the block graph's outputs to the CUSTOM op's results.
static MgStatus publish(BlockRun *r, const MgOp *cop, MgExecValue *kvals) {
  const MgGraph *g = r->g;
  for (uint32_t j = 0; j < g->num_outputs; ++j) {
    MgTensorId t = g->outputs[j];
    MgExecValue *dst = &kvals[cop->outputs[j]];
    MgExecValue *src = &r->vals[t];
    bool again = false;
    for (uint32_t k = j + 1; k < g->num_outputs; ++k)
      again = again || g->outputs[k] == t;
    mg_interp_value_release(dst);
    if (!src->buf.data)
      return mg_interp_fail(r->ex, MG_STATUS_INVALID,
                            "kernel result %u was never computed", j);
    if (again || src->borrowed) {
      MgStatus st = mg_interp_value_copy(r->ex, dst, &src->buf);
      if (st != MG_STATUS_OK)
        return st;
    } else {
      *dst = *src;
      memset(src, 0, sizeof *src);
    }
  }
  return MG_STATUS_OK;
}

MgStatus mg_interp_run_custom(MgExec *ex, MgGraphId gid, MgOpId oid,
                              MgExecValue *kvals) {
  const MgProgram *p = ex->program;
  const MgOp *cop = &p->graphs[gid].ops[oid];
  if (cop->attr < 0)
    return mg_interp_fail(ex, MG_STATUS_INVALID, "block graph %d", cop->attr);
  MgGraphId bid = (MgGraphId)cop->attr;
  MgStatus st = mg_interp_check_graph(ex, bid, MG_LEVEL_BLOCK);
  if (st != MG_STATUS_OK)
    return st;
  const MgGraph *g = &p->graphs[bid];
  if (g->num_outputs != cop->num_outputs) {
    ex->cur_graph = (int32_t)gid;
    ex->cur_op = (int32_t)oid;
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "kernel has %u results, its block graph %u",
                          cop->num_outputs, g->num_outputs);
  }
  BlockRun r = {.ex = ex, .gid = bid, .g = g};
  size_t nt = g->num_tensors ? g->num_tensors : 1;
  size_t no = g->num_ops ? g->num_ops : 1;
  r.vals = calloc(nt, sizeof *r.vals);
  r.phase = calloc(no, 1);
  r.pending = calloc(no, sizeof *r.pending);
  r.frames = calloc(no, sizeof *r.frames);
  r.runmax = calloc(no, sizeof *r.runmax);
  bool *flags = calloc(2 * nt, sizeof *flags);
  if (!r.vals || !r.phase || !r.pending || !r.frames || !r.runmax || !flags) {
    st = mg_interp_fail(ex, MG_STATUS_NOMEM, "out of memory");
    goto done;
  }
  classify(g, r.phase, flags, flags + nt);
  ex->cur_graph = (int32_t)bid;
  if ((st = prepare(&r, cop, kvals)) != MG_STATUS_OK ||
      (st = run_blocks(&r)) != MG_STATUS_OK)
    goto done;
  ex->cur_graph = (int32_t)gid;
  ex->cur_op = (int32_t)oid;
  st = publish(&r, cop, kvals);
done:
  for (uint32_t o = 0; r.frames && o < g->num_ops; ++o) {
    if (!r.frames[o])
      continue;
    const MgGraph *tg = &p->graphs[g->ops[o].attr];
    for (uint32_t t = 0; t < tg->num_tensors; ++t)
      mg_interp_value_release(&r.frames[o][t]);
    free(r.frames[o]);
  }
  for (uint32_t t = 0; r.vals && t < g->num_tensors; ++t)
    mg_interp_value_release(&r.vals[t]);
  free(r.vals);
  free(r.phase);
  free(r.pending);
  free(r.frames);
  for (uint32_t o = 0; r.runmax && o < g->num_ops; ++o)
    mg_interp_value_release(&r.runmax[o]);
  free(r.runmax);
  free(flags);
  return st;
}
