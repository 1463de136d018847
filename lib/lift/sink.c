//===- sink.c - Element-wise ops moved in front of a convolution's views --===//
//
// A convolution's matmul writes [G, N·Ho·Wo, Fg]; the reshape (and for
// G > 1 the transpose) to NHWC comes after it, and the bias, ReLU or
// residual the IR applies to the NHWC result after that. The search
// splits kernel graphs at view ops (lib/search/views.c), so the
// element-wise epilogue would be a kernel of its own. Before a chunk is
// settled, such views are moved after the element-wise ops that read them:
//   unary(view(x))     = view(unary(x))
//   binary(view(x), o) = view(binary(x, view⁻¹(o)))   (o of view(x)'s shape)
// as long as each viewed value has that one reader and is no graph
// output; another reader gets the views applied where it reads them. Only
// the output views of convolutions and pooling (conv.c records them) move.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CHAIN 4

typedef struct Pending {
  MgTensorId inner;           // in the new graph
  uint32_t num;               // views to apply to it, innermost first
  MgOpId views[MAX_CHAIN];    // (op ids of the old graph)
} Pending;

typedef struct Sink {
  MgLiftBuilder *b;
  const MgGraph *g; // the old graph
  MgProgram *q;
  MgTensorId *map;   // old tensor -> new, MG_NO_ID while pending
  Pending *pend;     // per old tensor; num == 0: not pending
  uint32_t *readers; // per old tensor: op operands reading it
  bool *output;      // per old tensor
  bool *deferred;    // per old op: a view moved later
  MgDiag diag;
} Sink;

static bool sinks_unary(MgOpKind k) {
  return (k >= MG_OP_EXP && k <= MG_OP_DIV_SCALAR) || k == MG_OP_MAX_SCALAR ||
         k == MG_OP_MIN_SCALAR || k == MG_OP_ADD_SCALAR;
}

static bool sinks_binary(MgOpKind k) {
  return k == MG_OP_ADD || k == MG_OP_SUB || k == MG_OP_MUL ||
         k == MG_OP_DIV || k == MG_OP_MAX;
}

// Adds `proto` (an old op) on new inputs `in`, its result typed as the
// old one's; MG_NO_ID on failure.
static MgTensorId emit(Sink *s, const MgOp *proto, const MgTensorId *in) {
  MgOp op = *proto;
  for (uint32_t k = 0; k < op.num_inputs; ++k)
    op.inputs[k] = in[k];
  MgTensorId out[MG_MAX_OP_OUTPUTS];
  if (mg_graph_add_op(s->q, 0, &op, out, &s->diag) == MG_NO_ID)
    return MG_NO_ID;
  for (uint32_t k = 0; k < op.num_outputs; ++k)
    if (mg_graph_set_dtype(s->q, 0, out[k],
                           (MgDType)s->g->tensors[proto->outputs[k]].dtype,
                           &s->diag) != MG_STATUS_OK)
      return MG_NO_ID;
  return out[0];
}

// The new tensor for old tensor t, applying its pending views now.
static MgTensorId value(Sink *s, MgTensorId t) {
  if (s->map[t] != MG_NO_ID || !s->pend[t].num)
    return s->map[t];
  Pending *p = &s->pend[t];
  MgTensorId x = p->inner;
  for (uint32_t i = 0; i < p->num && x != MG_NO_ID; ++i) {
    const MgOp *v = &s->g->ops[p->views[i]];
    MgOp proto = *v;
    // Views keep their operand's type; the pending value's is the view's.
    proto.outputs[0] = t;
    x = emit(s, &proto, &x);
  }
  p->num = 0;
  return s->map[t] = x;
}

// A pending operand that may stay pending through its one reader.
static bool movable(const Sink *s, MgTensorId t) {
  return s->map[t] == MG_NO_ID && s->pend[t].num && s->readers[t] == 1 &&
         !s->output[t];
}

// o (new) viewed back through p's views: the shape of p's inner tensor.
static MgTensorId unview(Sink *s, const Pending *p, MgTensorId o) {
  for (uint32_t i = p->num; i-- > 0 && o != MG_NO_ID;) {
    const MgOp *v = &s->g->ops[p->views[i]];
    const MgTensor *src = &s->g->tensors[v->inputs[0]];
    MgOp proto = *v;
    proto.inputs[0] = o;
    if (v->kind == MG_OP_TRANSPOSE) {
      for (uint32_t d = 0; d < src->rank; ++d)
        proto.perm[v->perm[d]] = (int8_t)d;
    } else { // RESHAPE back to the operand's shape
      proto.attr = (int32_t)src->rank;
      for (uint32_t d = 0; d < MG_MAX_DIMS; ++d)
        proto.shape[d] = d < src->rank ? src->dims[d] : 0;
    }
    MgTensorId out[MG_MAX_OP_OUTPUTS];
    if (mg_graph_add_op(s->q, 0, &proto, out, &s->diag) == MG_NO_ID)
      return MG_NO_ID;
    o = out[0];
  }
  return o;
}

static bool same_shape(const MgTensor *a, const MgTensor *c) {
  return a->rank == c->rank && !a->sym && !c->sym &&
         !memcmp(a->dims, c->dims, a->rank * sizeof *a->dims);
}

// One old op into the new graph: deferred, moved in front of its operand's
// views, or emitted on materialised operands.
static bool step(Sink *s, MgOpId o) {
  const MgOp *op = &s->g->ops[o];
  MgTensorId r = op->outputs[0];
  if (s->deferred[o]) {
    MgTensorId a = op->inputs[0];
    Pending p = {MG_NO_ID, 0, {0}};
    if (s->map[a] == MG_NO_ID && s->pend[a].num)
      p = s->pend[a];
    else
      p.inner = s->map[a];
    if (p.num == MAX_CHAIN || p.inner == MG_NO_ID)
      return false;
    p.views[p.num++] = o;
    s->pend[r] = p;
    return true;
  }
  MgOpKind k = (MgOpKind)op->kind;
  if (op->num_outputs == 1 && sinks_unary(k) && movable(s, op->inputs[0])) {
    Pending p = s->pend[op->inputs[0]];
    MgTensorId n = emit(s, op, &p.inner);
    if (n == MG_NO_ID)
      return false;
    p.inner = n;
    s->pend[r] = p;
    return true;
  }
  if (sinks_binary(k) && op->inputs[0] != op->inputs[1]) {
    for (int side = 0; side < 2; ++side) {
      MgTensorId a = op->inputs[side], c = op->inputs[1 - side];
      if (!movable(s, a) || (s->map[c] == MG_NO_ID && s->pend[c].num) ||
          !same_shape(&s->g->tensors[a], &s->g->tensors[c]))
        continue;
      Pending p = s->pend[a];
      MgTensorId in[2];
      in[side] = p.inner;
      in[1 - side] = unview(s, &p, s->map[c]);
      if (in[1 - side] == MG_NO_ID)
        return false;
      MgTensorId n = emit(s, op, in);
      if (n == MG_NO_ID)
        return false;
      p.inner = n;
      s->pend[r] = p;
      return true;
    }
  }
  MgTensorId in[MG_MAX_OP_INPUTS];
  for (uint32_t i = 0; i < op->num_inputs; ++i)
    if ((in[i] = value(s, op->inputs[i])) == MG_NO_ID)
      return false;
  MgOp copy = *op;
  for (uint32_t i = 0; i < op->num_inputs; ++i)
    copy.inputs[i] = in[i];
  MgTensorId out[MG_MAX_OP_OUTPUTS];
  if (mg_graph_add_op(s->q, 0, &copy, out, &s->diag) == MG_NO_ID)
    return false;
  for (uint32_t i = 0; i < op->num_outputs; ++i) {
    s->map[op->outputs[i]] = out[i];
    if (mg_graph_set_dtype(s->q, 0, out[i],
                           (MgDType)s->g->tensors[op->outputs[i]].dtype,
                           &s->diag) != MG_STATUS_OK)
      return false;
  }
  return true;
}

// Marks the views from each recorded convolution output back to the first
// value that is not one, as long as each value between has one reader and
// is no output. True when any is marked.
static bool defer_views(Sink *s) {
  bool any = false;
  for (uint32_t i = 0; i < s->b->num_sink; ++i) {
    MgTensorId t = s->b->sink[i];
    for (uint32_t n = 0; n < MAX_CHAIN && t < s->g->num_tensors; ++n) {
      MgOpId p = s->g->tensors[t].producer;
      const MgOp *v = &s->g->ops[p];
      if ((v->kind != MG_OP_RESHAPE && v->kind != MG_OP_TRANSPOSE) ||
          s->deferred[p] || (n > 0 && (s->readers[t] != 1 || s->output[t])))
        break;
      s->deferred[p] = any = true;
      t = v->inputs[0];
    }
  }
  return any;
}

bool mg_lift_sink_views(MgLiftBuilder *b) {
  if (!b->num_sink)
    return true;
  const MgGraph *g = &b->prog->graphs[0];
  uint32_t nt = g->num_tensors + 1, no = g->num_ops + 1;
  Sink s = {b, g, NULL, malloc(nt * sizeof *s.map), calloc(nt, sizeof *s.pend),
            calloc(nt, sizeof *s.readers), calloc(nt, sizeof *s.output),
            calloc(no, sizeof *s.deferred), MG_DIAG_INIT};
  bool ok = s.map && s.pend && s.readers && s.output && s.deferred;
  for (uint32_t t = 0; ok && t < nt; ++t)
    s.map[t] = MG_NO_ID;
  for (uint32_t o = 0; ok && o < g->num_ops; ++o)
    for (uint32_t k = 0; k < g->ops[o].num_inputs; ++k)
      s.readers[g->ops[o].inputs[k]]++;
  for (uint32_t i = 0; ok && i < g->num_outputs; ++i)
    s.output[g->outputs[i]] = true;
  if (!ok || !defer_views(&s)) {
    free(s.map), free(s.pend), free(s.readers), free(s.output);
    free(s.deferred);
    return ok || mg_lift_fail(b, (MlirOperation){NULL}, "out of memory");
  }
  s.q = mg_program_create();
  ok = s.q && mg_program_add_graph(s.q, MG_LEVEL_KERNEL) == 0;
  // Inputs first, in position order (input k is at position k).
  for (uint32_t k = 0; ok && k < b->num_inputs; ++k) {
    MgTensorId t = b->input_ids[k];
    const MgTensor *x = &g->tensors[t];
    int8_t perm[MG_MAX_DIMS];
    s.map[t] = mg_graph_add_input(s.q, 0, (MgDType)x->dtype, x->rank, x->dims,
                                  &s.diag);
    ok = s.map[t] != MG_NO_ID;
    if (ok && mg_graph_tensor_perm(g, x, perm))
      ok = mg_graph_set_input_perm(s.q, 0, s.map[t], perm, &s.diag) ==
           MG_STATUS_OK;
  }
  for (uint32_t o = 0; ok && o < g->num_ops; ++o)
    ok = g->ops[o].kind == MG_OP_INPUT || step(&s, o);
  for (uint32_t i = 0; ok && i < g->num_outputs; ++i) {
    MgTensorId t = value(&s, g->outputs[i]);
    ok = t != MG_NO_ID &&
         mg_graph_mark_output(s.q, 0, t, &s.diag) == MG_STATUS_OK;
  }
  if (ok) {
    for (uint32_t k = 0; k < b->num_inputs; ++k)
      b->input_ids[k] = s.map[b->input_ids[k]];
    mg_program_destroy(b->prog);
    b->prog = s.q;
    b->num_sink = 0;
  } else {
    mg_program_destroy(s.q);
    mg_lift_fail(b, (MlirOperation){NULL}, "internal: moving views: %s",
                 s.diag.message);
  }
  free(s.map), free(s.pend), free(s.readers), free(s.output);
  free(s.deferred);
  return ok;
}

bool mg_lift_record_sink(MgLiftBuilder *b, MgTensorId t) {
  if (!mg_array_reserve(&b->sink, &b->cap_sink, b->num_sink + 1,
                        sizeof *b->sink, 8))
    return mg_lift_fail(b, (MlirOperation){NULL}, "out of memory");
  b->sink[b->num_sink++] = t;
  return true;
}
