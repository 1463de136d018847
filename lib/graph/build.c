//===- build.c - Builders: add inputs, ops and outputs with checks --------===//
//
// Every op enters a graph through mg_graph_add_op (or mg_graph_add_input for
// inputs), which runs shape inference and the local rules, then the loop
// placement rules for block graphs, and only then appends. So a graph made
// by the builders always satisfies the invariants in mirage/graph.h, and a
// rejected op leaves the graph unchanged. Stored ops are canonical: fields
// the kind does not use hold fixed defaults (maps φ, ids MG_NO_ID, zeros).
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <stdlib.h>
#include <string.h>

// The graph's index for diagnostics, or -1 when it does not exist.
static MgStatus check_graph(const MgProgram *p, MgGraphId g, MgDiag *diag) {
  if (!p)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "program is null");
  if (g >= p->num_graphs)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "graph %u does not exist (the program has %u graphs)",
                       g, p->num_graphs);
  return MG_STATUS_OK;
}

MgOp mg_op_blank(MgOpKind kind) {
  MgOp op;
  memset(&op, 0, sizeof op);
  op.kind = (uint8_t)kind;
  for (int a = 0; a < 3; a++)
    op.imap[a] = op.omap[a] = MG_MAP_NONE;
  op.fmap = MG_MAP_NONE;
  for (int i = 0; i < MG_MAX_OP_INPUTS; i++)
    op.inputs[i] = MG_NO_ID;
  for (int i = 0; i < MG_MAX_OP_OUTPUTS; i++)
    op.outputs[i] = MG_NO_ID;
  return op;
}

// A blank op of `kind` on `a`, and on `b` unless it is MG_NO_ID.
static MgOp op_on(MgOpKind kind, MgTensorId a, MgTensorId b) {
  MgOp op = mg_op_blank(kind);
  op.num_inputs = b == MG_NO_ID ? 1 : 2;
  op.inputs[0] = a;
  op.inputs[1] = b;
  return op;
}

// The stored form of `op`: its kind's fields, defaults elsewhere.
static MgOp canonical_op(const MgOp *op) {
  MgOp c = mg_op_blank((MgOpKind)op->kind);
  c.num_inputs = op->num_inputs;
  memcpy(c.inputs, op->inputs, op->num_inputs * sizeof(MgTensorId));
  switch ((MgOpKind)op->kind) {
  case MG_OP_INPUT:
    memcpy(c.perm, op->perm, sizeof c.perm);
    c.attr = op->attr;
    break;
  case MG_OP_SUM: case MG_OP_REDUCE_MAX: case MG_OP_CONCAT: case MG_OP_CUSTOM:
  case MG_OP_THREAD:
    c.attr = op->attr;
    break;
  case MG_OP_TRANSPOSE:
    memcpy(c.perm, op->perm, sizeof c.perm);
    break;
  case MG_OP_RESHAPE: case MG_OP_SLICE: case MG_OP_IM2COL:
    c.attr = op->attr;
    memcpy(c.shape, op->shape, sizeof c.shape);
    break;
  case MG_OP_MUL_SCALAR: case MG_OP_DIV_SCALAR:
  case MG_OP_MAX_SCALAR: case MG_OP_MIN_SCALAR:
  case MG_OP_ADD_SCALAR:
    c.scalar = op->scalar;
    break;
  case MG_OP_ACCUM:
    c.acc = op->acc;
    break;
  case MG_OP_ITERATOR:
    memcpy(c.imap, op->imap, sizeof c.imap);
    c.fmap = op->fmap;
    break;
  case MG_OP_SAVER:
    memcpy(c.omap, op->omap, sizeof c.omap);
    break;
  default:
    break;
  }
  return c;
}

// Appends `op` (already checked) with result tensors `res`.
static MgOpId append_op(MgProgram *p, MgGraphId g, const MgOp *op,
                        const MgOpResults *res, MgTensorId *out_ids,
                        MgDiag *diag) {
  const MgTensor *out = res->t;
  const uint32_t n = res->n;
  if (mg_graph_reserve(p, g, 1, n, 0) != MG_STATUS_OK) {
    mg_diag_set(diag, MG_STATUS_NOMEM, (int32_t)g,
                (int32_t)p->graphs[g].num_ops, "out of memory");
    return MG_NO_ID;
  }
  MgGraph *gr = mg_program_graph(p, g);
  MG_ASSERT(gr->num_ops < gr->cap_ops &&
            n <= gr->cap_tensors - gr->num_tensors);
  MgOp stored = canonical_op(op);
  MgOpId id = gr->num_ops;
  for (uint32_t i = 0; i < n; i++) {
    MgTensorId t = gr->num_tensors++;
    gr->tensors[t] = out[i];
    gr->tensors[t].producer = id;
    stored.outputs[i] = t;
    if (out_ids)
      out_ids[i] = t;
  }
  stored.num_outputs = (uint8_t)n;
  gr->ops[gr->num_ops++] = stored;
  return id;
}

void mg_graph_pop_op(MgProgram *program, MgGraphId graph) {
  MgGraph *gr = mg_program_graph(program, graph);
  if (gr->num_ops)
    gr->num_tensors -= gr->ops[--gr->num_ops].num_outputs;
}

MgOpId mg_graph_add_op(MgProgram *program, MgGraphId graph, const MgOp *op,
                       MgTensorId *out_ids, MgDiag *diag) {
  if (check_graph(program, graph, diag) != MG_STATUS_OK)
    return MG_NO_ID;
  const MgGraph *gr = mg_program_graph(program, graph);
  uint32_t index = gr->num_ops;
  if (!op) {
    mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)graph, (int32_t)index,
                "op is null");
    return MG_NO_ID;
  }
  MgOpResults res;
  if (mg_graph_infer(program, graph, index, op, &res, diag) != MG_STATUS_OK)
    return MG_NO_ID;
  if (gr->level == MG_LEVEL_BLOCK) {
    uint8_t small[256];
    uint8_t *phase = gr->num_tensors <= sizeof small
                         ? small : malloc(gr->num_tensors);
    if (!phase) {
      mg_diag_set(diag, MG_STATUS_NOMEM, (int32_t)graph, (int32_t)index,
                  "out of memory");
      return MG_NO_ID;
    }
    mg_graph_phases(gr, phase);
    MgStatus st = mg_graph_check_phase(program, graph, index, op, phase, diag);
    if (phase != small)
      free(phase);
    if (st != MG_STATUS_OK)
      return MG_NO_ID;
  }
  return append_op(program, graph, op, &res, out_ids, diag);
}

MgTensorId mg_graph_add_input(MgProgram *program, MgGraphId graph,
                              MgDType dtype, uint32_t rank,
                              const int64_t *dims, MgDiag *diag) {
  if (check_graph(program, graph, diag) != MG_STATUS_OK)
    return MG_NO_ID;
  MgGraph *gr = mg_program_graph(program, graph);
  int32_t index = (int32_t)gr->num_ops;
  if (!dims && rank > 0) {
    mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)graph, index,
                "input dims are null");
    return MG_NO_ID;
  }
  if (mg_graph_check_type((MgGraphType){(uint32_t)dtype, rank, dims}, "input",
                          (int32_t)graph, index, diag) != MG_STATUS_OK)
    return MG_NO_ID;
  MgOpResults res;
  memset(&res, 0, sizeof res); // dims past the rank stay 0
  MgTensor *t = &res.t[0];
  res.n = 1;
  t->dtype = (uint8_t)dtype;
  t->rank = (uint8_t)rank;
  memcpy(t->dims, dims, rank * sizeof(int64_t));
  MgOp op = mg_op_blank(MG_OP_INPUT);
  op.attr = (int32_t)gr->num_inputs;
  MgTensorId id;
  if (append_op(program, graph, &op, &res, &id, diag) == MG_NO_ID)
    return MG_NO_ID;
  mg_program_graph(program, graph)->num_inputs++;
  return id;
}

// Adds a one-result op and returns the result id.
static MgTensorId add_single(MgProgram *p, MgGraphId g, const MgOp *op,
                             MgDiag *diag) {
  MgTensorId out[MG_MAX_OP_OUTPUTS];
  if (mg_graph_add_op(p, g, op, out, diag) == MG_NO_ID)
    return MG_NO_ID;
  return out[0];
}

MgTensorId mg_graph_matmul(MgProgram *p, MgGraphId g, MgTensorId a,
                           MgTensorId b, MgDiag *diag) {
  MgOp op = op_on(MG_OP_MATMUL, a, b);
  return add_single(p, g, &op, diag);
}

// Rejects a kind passed to the wrong typed builder (the generic path would
// accept it, but the caller's intent is clearly different).
static bool kind_in(MgOpKind kind, const MgOpKind *kinds, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (kinds[i] == kind)
      return true;
  return false;
}

static MgTensorId wrong_kind(MgProgram *p, MgGraphId g, MgOpKind kind,
                             const char *builder, MgDiag *diag) {
  const char *name = mg_op_kind_name(kind);
  mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g,
              (int32_t)p->graphs[g].num_ops, "'%s' is not a %s op",
              name ? name : "?", builder);
  return MG_NO_ID;
}

// A typed builder (mg_graph_binary, _unary, _scalar): its name in messages
// and the op kinds it makes.
typedef struct TypedBuilder {
  const char *name;
  const MgOpKind *kinds;
  size_t num_kinds;
} TypedBuilder;

// Adds `op`, of the caller's `kind`, when that is one the typed builder
// `b` makes.
static MgTensorId add_kind_in(MgProgram *p, MgGraphId g, MgOpKind kind,
                              const MgOp *op, const TypedBuilder *b,
                              MgDiag *diag) {
  if (check_graph(p, g, diag) != MG_STATUS_OK)
    return MG_NO_ID;
  if (!kind_in(kind, b->kinds, b->num_kinds))
    return wrong_kind(p, g, kind, b->name, diag);
  return add_single(p, g, op, diag);
}

MgTensorId mg_graph_binary(MgProgram *p, MgGraphId g, MgOpKind kind,
                           MgTensorId a, MgTensorId b, MgDiag *diag) {
  static const MgOpKind ok[] = {MG_OP_ADD, MG_OP_SUB, MG_OP_MUL, MG_OP_DIV,
                                MG_OP_MAX};
  MgOp op = op_on(kind, a, b);
  static const TypedBuilder builder = {"binary", ok, sizeof ok / sizeof ok[0]};
  return add_kind_in(p, g, kind, &op, &builder, diag);
}

MgTensorId mg_graph_unary(MgProgram *p, MgGraphId g, MgOpKind kind,
                          MgTensorId a, MgDiag *diag) {
  static const MgOpKind ok[] = {
      MG_OP_EXP,  MG_OP_SQUARE, MG_OP_SQRT, MG_OP_RSQRT, MG_OP_SILU,
      MG_OP_GELU, MG_OP_RELU,   MG_OP_LOG,  MG_OP_TANH,  MG_OP_ERF};
  MgOp op = op_on(kind, a, MG_NO_ID);
  static const TypedBuilder builder = {"unary", ok, sizeof ok / sizeof ok[0]};
  return add_kind_in(p, g, kind, &op, &builder, diag);
}

MgTensorId mg_graph_scalar(MgProgram *p, MgGraphId g, MgOpKind kind,
                           MgTensorId a, double scalar, MgDiag *diag) {
  static const MgOpKind ok[] = {MG_OP_MUL_SCALAR, MG_OP_DIV_SCALAR,
                                MG_OP_MAX_SCALAR, MG_OP_MIN_SCALAR,
                                MG_OP_ADD_SCALAR};
  MgOp op = op_on(kind, a, MG_NO_ID);
  op.scalar = scalar;
  static const TypedBuilder builder = {"scalar", ok, sizeof ok / sizeof ok[0]};
  return add_kind_in(p, g, kind, &op, &builder, diag);
}

MgTensorId mg_graph_sum(MgProgram *p, MgGraphId g, MgTensorId a, int32_t dim,
                        MgDiag *diag) {
  return mg_graph_reduce(p, g, MG_OP_SUM, a, dim, diag);
}

MgTensorId mg_graph_reduce(MgProgram *p, MgGraphId g, MgOpKind kind,
                           MgTensorId a, int32_t dim, MgDiag *diag) {
  if (kind != MG_OP_SUM && kind != MG_OP_REDUCE_MAX) {
    if (check_graph(p, g, diag) != MG_STATUS_OK)
      return MG_NO_ID;
    return wrong_kind(p, g, kind, "reduction", diag);
  }
  MgOp op = op_on(kind, a, MG_NO_ID);
  op.attr = dim;
  return add_single(p, g, &op, diag);
}

MgTensorId mg_graph_concat(MgProgram *p, MgGraphId g, MgTensorId a,
                           MgTensorId b, int32_t dim, MgDiag *diag) {
  MgOp op = op_on(MG_OP_CONCAT, a, b);
  op.attr = dim;
  return add_single(p, g, &op, diag);
}

MgTensorId mg_graph_transpose(MgProgram *p, MgGraphId g, MgTensorId a,
                              const int8_t *perm, MgDiag *diag) {
  MgOp op = op_on(MG_OP_TRANSPOSE, a, MG_NO_ID);
  if (p && g < p->num_graphs && a < p->graphs[g].num_tensors)
    for (uint32_t d = 0; d < p->graphs[g].tensors[a].rank; d++)
      op.perm[d] = perm[d];
  return add_single(p, g, &op, diag);
}

MgTensorId mg_graph_reshape(MgProgram *p, MgGraphId g, MgTensorId a,
                            uint32_t rank, const int64_t *dims, MgDiag *diag) {
  MgOp op = op_on(MG_OP_RESHAPE, a, MG_NO_ID);
  op.attr = (int32_t)rank;
  for (uint32_t d = 0; d < rank && d < MG_MAX_DIMS; d++)
    op.shape[d] = dims[d];
  return add_single(p, g, &op, diag);
}

MgTensorId mg_graph_slice(MgProgram *p, MgGraphId g, MgTensorId a,
                          MgSlice slice, MgDiag *diag) {
  MgOp op = op_on(MG_OP_SLICE, a, MG_NO_ID);
  op.attr = slice.dim;
  op.shape[0] = slice.first;
  op.shape[1] = slice.count;
  return add_single(p, g, &op, diag);
}

// Pads are below 2^31 (checked by shape inference), two to a word.
void mg_op_set_im2col(MgOp *op, const MgIm2col *c) {
  op->attr = c->groups;
  int64_t v[6] = {c->kh, c->kw, c->sh, c->sw, c->dh, c->dw};
  for (int i = 0; i < 6; i++)
    op->shape[i] = v[i];
  op->shape[6] = (int64_t)((uint64_t)(uint32_t)c->pad_top << 32 |
                           (uint32_t)c->pad_bottom);
  op->shape[7] = (int64_t)((uint64_t)(uint32_t)c->pad_left << 32 |
                           (uint32_t)c->pad_right);
}

MgTensorId mg_graph_im2col(MgProgram *p, MgGraphId g, MgTensorId x,
                           const MgIm2col *c, MgDiag *diag) {
  MgOp op = op_on(MG_OP_IM2COL, x, MG_NO_ID);
  mg_op_set_im2col(&op, c);
  return add_single(p, g, &op, diag);
}

MgIm2col mg_op_im2col(const MgOp *op) {
  MgIm2col c;
  c.groups = op->attr;
  c.kh = op->shape[0], c.kw = op->shape[1];
  c.sh = op->shape[2], c.sw = op->shape[3];
  c.dh = op->shape[4], c.dw = op->shape[5];
  c.pad_top = (int64_t)(uint32_t)((uint64_t)op->shape[6] >> 32);
  c.pad_bottom = (int64_t)(uint32_t)op->shape[6];
  c.pad_left = (int64_t)(uint32_t)((uint64_t)op->shape[7] >> 32);
  c.pad_right = (int64_t)(uint32_t)op->shape[7];
  return c;
}

void mg_im2col_out_hw(const MgIm2col *c, int64_t h, int64_t w, int64_t *ho,
                      int64_t *wo) {
  int64_t eh = h + c->pad_top + c->pad_bottom - c->dh * (c->kh - 1) - 1;
  int64_t ew = w + c->pad_left + c->pad_right - c->dw * (c->kw - 1) - 1;
  *ho = eh < 0 || c->sh < 1 ? 0 : eh / c->sh + 1;
  *wo = ew < 0 || c->sw < 1 ? 0 : ew / c->sw + 1;
}

bool mg_im2col_source(const MgIm2col *c, const MgTensor *x,
                      const int64_t *idx, int64_t *at) {
  int64_t ho, wo, cg = x->dims[3] / c->groups;
  mg_im2col_out_hw(c, x->dims[1], x->dims[2], &ho, &wo);
  int64_t m = idx[1], k = idx[2];
  int64_t n = m / (ho * wo), oh = m / wo % ho, ow = m % wo;
  int64_t i = k / (c->kw * cg), j = k / cg % c->kw, ch = k % cg;
  int64_t h = oh * c->sh + i * c->dh - c->pad_top;
  int64_t w = ow * c->sw + j * c->dw - c->pad_left;
  at[0] = n, at[1] = h, at[2] = w, at[3] = idx[0] * cg + ch;
  return h >= 0 && h < x->dims[1] && w >= 0 && w < x->dims[2];
}

MgTensorId mg_graph_iterator(MgProgram *p, MgGraphId g, MgTensorId a,
                             const int8_t imap[3], int8_t fmap, MgDiag *diag) {
  MgOp op = op_on(MG_OP_ITERATOR, a, MG_NO_ID);
  if (imap)
    memcpy(op.imap, imap, sizeof op.imap);
  op.fmap = fmap;
  return add_single(p, g, &op, diag);
}

MgTensorId mg_graph_accum(MgProgram *p, MgGraphId g, MgTensorId a,
                          MgAccumKind acc, MgDiag *diag) {
  MgOp op = op_on(MG_OP_ACCUM, a, MG_NO_ID);
  op.acc = (uint8_t)((unsigned)acc < 256 ? acc : 255);
  return add_single(p, g, &op, diag);
}

MgTensorId mg_graph_accum_online(MgProgram *p, MgGraphId g, MgTensorId x,
                                 MgTensorId max, MgDiag *diag) {
  MgOp op = op_on(MG_OP_ACCUM, x, max);
  op.acc = MG_ACCUM_ONLINE;
  return add_single(p, g, &op, diag);
}

MgTensorId mg_graph_saver(MgProgram *p, MgGraphId g, MgTensorId a,
                          const int8_t omap[3], MgDiag *diag) {
  MgOp op = op_on(MG_OP_SAVER, a, MG_NO_ID);
  if (omap)
    memcpy(op.omap, omap, sizeof op.omap);
  return add_single(p, g, &op, diag);
}

// A CUSTOM or THREAD op (`kind`): a call of graph `call.sub`.
static MgOpId add_call(MgProgram *p, MgGraphId g, MgOpKind kind, MgCall call,
                       MgTensorId *outs, MgDiag *diag) {
  const MgGraphId sub = call.sub;
  const uint32_t num_inputs = call.num_inputs;
  const MgTensorId *const inputs = call.inputs;
  if (check_graph(p, g, diag) != MG_STATUS_OK)
    return MG_NO_ID;
  int32_t index = (int32_t)p->graphs[g].num_ops;
  if (num_inputs > MG_MAX_OP_INPUTS) {
    mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, index,
                "'%s' takes 0 to %d operands but got %u", mg_op_kind_name(kind),
                MG_MAX_OP_INPUTS, num_inputs);
    return MG_NO_ID;
  }
  if (num_inputs > 0 && !inputs) {
    mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, index,
                "'%s' operands are null", mg_op_kind_name(kind));
    return MG_NO_ID;
  }
  MgOp op = mg_op_blank(kind);
  op.num_inputs = (uint8_t)num_inputs;
  if (num_inputs)
    memcpy(op.inputs, inputs, num_inputs * sizeof(MgTensorId));
  op.attr = sub > INT32_MAX ? -1 : (int32_t)sub;
  return mg_graph_add_op(p, g, &op, outs, diag);
}

MgOpId mg_graph_custom(MgProgram *p, MgGraphId g, MgCall call,
                       MgTensorId *outs, MgDiag *diag) {
  return add_call(p, g, MG_OP_CUSTOM, call, outs, diag);
}

MgOpId mg_graph_thread(MgProgram *p, MgGraphId g, MgCall call,
                       MgTensorId *outs, MgDiag *diag) {
  return add_call(p, g, MG_OP_THREAD, call, outs, diag);
}

MgStatus mg_graph_mark_output(MgProgram *p, MgGraphId g, MgTensorId t,
                              MgDiag *diag) {
  MgStatus st = check_graph(p, g, diag);
  if (st != MG_STATUS_OK)
    return st;
  MgGraph *gr = mg_program_graph(p, g);
  if (t >= gr->num_tensors)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, -1,
                       "output tensor %u does not exist (the graph has %u "
                       "tensors)", t, gr->num_tensors);
  MgOpId pid = gr->tensors[t].producer;
  if (pid >= gr->num_ops)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, -1,
                       "output tensor %u has no producer op", t);
  int32_t producer = (int32_t)pid;
  if (gr->level == MG_LEVEL_BLOCK &&
      gr->ops[producer].kind != MG_OP_SAVER) {
    const char *k = mg_op_kind_name((MgOpKind)gr->ops[producer].kind);
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, producer,
                       "block-graph outputs must be saver results, but tensor "
                       "%u comes from '%s'", t, k ? k : "?");
  }
  for (uint32_t i = 0; i < gr->num_outputs; i++)
    if (gr->outputs[i] == t)
      return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, producer,
                         "tensor %u is already output %u", t, i);
  if (mg_graph_reserve(p, g, 0, 0, 1) != MG_STATUS_OK)
    return mg_diag_set(diag, MG_STATUS_NOMEM, (int32_t)g, producer,
                       "out of memory");
  gr = mg_program_graph(p, g);
  MG_ASSERT(gr->num_outputs < gr->cap_outputs);
  gr->outputs[gr->num_outputs++] = t;
  return MG_STATUS_OK;
}

MgStatus mg_graph_set_launch(MgProgram *program, MgGraphId graph,
                             const int32_t grid[3], int32_t block_threads,
                             int32_t forloop, MgDiag *diag) {
  MgStatus st = check_graph(program, graph, diag);
  if (st != MG_STATUS_OK)
    return st;
  MgGraph *gr = mg_program_graph(program, graph);
  int32_t g = (int32_t)graph;
  if (gr->level != MG_LEVEL_BLOCK) {
    const char *lv = mg_level_name((MgLevel)gr->level);
    return mg_diag_set(diag, MG_STATUS_INVALID, g, -1,
                       "launch shape applies to block graphs, but graph %d is "
                       "a %s graph", g, lv ? lv : "?");
  }
  if (!grid)
    return mg_diag_set(diag, MG_STATUS_INVALID, g, -1, "grid is null");
  for (int a = 0; a < 3; a++)
    if (grid[a] < 1)
      return mg_diag_set(diag, MG_STATUS_INVALID, g, -1,
                         "grid axis '%s' has size %d, expected >= 1",
                         mg_graph_axis_name(a), grid[a]);
  if (forloop < 1)
    return mg_diag_set(diag, MG_STATUS_INVALID, g, -1,
                       "for-loop range is %d, expected >= 1", forloop);
  if (block_threads < 1 || block_threads > 1024)
    return mg_diag_set(diag, MG_STATUS_INVALID, g, -1,
                       "block_threads is %d, expected 1..1024", block_threads);
  // Iterator tiles and saver shapes were inferred from the old launch.
  for (uint32_t i = 0; i < gr->num_ops; i++)
    if (gr->ops[i].kind != MG_OP_INPUT)
      return mg_diag_set(diag, MG_STATUS_INVALID, g, (int32_t)i,
                         "launch shape must be set before adding iterators");
  memcpy(gr->grid, grid, sizeof gr->grid);
  gr->block_threads = block_threads;
  gr->forloop = forloop;
  return MG_STATUS_OK;
}

MgStatus mg_graph_set_dtype(MgProgram *p, MgGraphId g, MgTensorId t,
                            MgDType dtype, MgDiag *diag) {
  if (g >= p->num_graphs || t >= p->graphs[g].num_tensors)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, -1,
                       "tensor %u does not exist", t);
  if (dtype >= MG_DTYPE_COUNT)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g, -1,
                       "unknown dtype %u", (unsigned)dtype);
  const MgGraph *gr = mg_program_graph(p, g);
  MgTensor *tensor = mg_graph_tensor(gr, t);
  if (mg_graph_producer(gr, t)->kind == MG_OP_INPUT)
    return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)g,
                       (int32_t)tensor->producer,
                       "the dtype of a graph input is fixed");
  tensor->dtype = (uint8_t)dtype;
  return MG_STATUS_OK;
}
