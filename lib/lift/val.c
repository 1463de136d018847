//===- val.c - Values of the kernel graph under construction --------------===//
//
// The builder owns one MgProgram (a single kernel graph) and the images of
// IR values in it. External values become graph inputs on first use, in
// order of use, so the kernel function's arguments are deterministic. Views
// (see mg_lift_internal.h) are manipulated here; nothing in this file emits an
// op except the emitters and mg_lift_materialize.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

bool mg_lift_builder_init(MgLiftBuilder *b, const MgLiftOptions *opts) {
  memset(b, 0, sizeof *b);
  b->opts = opts;
  b->dynamic_mark = mg_lift_dynamic_reads;
  mg_ptrmap_init(&b->index);
  b->prog = mg_program_create();
  return b->prog && mg_program_add_graph(b->prog, MG_LEVEL_KERNEL) == 0;
}

void mg_lift_builder_free(MgLiftBuilder *b) {
  mg_program_destroy(b->prog);
  mg_ptrmap_free(&b->index);
  free(b->vals);
  free(b->inputs);
  free(b->input_ids);
  free(b->input_reshaped);
  free(b->taint);
  free(b->sink);
  memset(b, 0, sizeof *b);
}

bool mg_lift_fail(MgLiftBuilder *b, MlirOperation op, const char *fmt, ...) {
  if (b->failed) // keep the first (innermost) reason
    return false;
  b->failed = true;
  b->blame = mlirOperationIsNull(op) ? b->current : op;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->why, sizeof b->why, fmt, ap);
  va_end(ap);
  return false;
}

const MgTensor *mg_lift_tensor(const MgLiftBuilder *b, MgTensorId t) {
  return &b->prog->graphs[0].tensors[t];
}

bool mg_lift_has(const MgLiftBuilder *b, MlirValue v) {
  return mg_ptrmap_get(&b->index, v.ptr) != UINT32_MAX;
}

bool mg_lift_set(MgLiftBuilder *b, MlirValue v, const MgLiftVal *val) {
  uint32_t i = mg_ptrmap_get(&b->index, v.ptr);
  if (i == UINT32_MAX) {
    if (b->num_vals == b->cap_vals) {
      uint32_t cap = b->cap_vals ? 2 * b->cap_vals : 32;
      MgLiftVal *vals = realloc(b->vals, cap * sizeof *vals);
      if (!vals)
        return mg_lift_fail(b, (MlirOperation){NULL}, "out of memory");
      b->vals = vals;
      b->cap_vals = cap;
    }
    i = b->num_vals++;
    if (!mg_ptrmap_put(&b->index, v.ptr, i))
      return mg_lift_fail(b, (MlirOperation){NULL}, "out of memory");
  }
  b->vals[i] = *val;
  return true;
}

void mg_lift_val_exact(const MgLiftBuilder *b, MgTensorId t, uint8_t dtype,
                       MlirOperation origin, MgLiftVal *out) {
  const MgTensor *tt = mg_lift_tensor(b, t);
  memset(out, 0, sizeof *out);
  out->kind = MG_LIFT_TENSOR;
  out->dtype = dtype;
  out->rank = tt->rank;
  out->t = t;
  out->origin = origin;
  for (uint32_t d = 0; d < MG_LIFT_MAX_RANK; ++d)
    out->map[d] = -1;
  for (uint32_t d = 0; d < tt->rank; ++d) {
    out->dims[d] = tt->dims[d];
    out->map[d] = tt->dims[d] > 1 ? (int8_t)d : -1;
  }
}

bool mg_lift_val_is_exact(const MgLiftBuilder *b, const MgLiftVal *v) {
  if (v->kind != MG_LIFT_TENSOR || v->t == MG_NO_ID)
    return false;
  const MgTensor *t = mg_lift_tensor(b, v->t);
  if (t->rank != v->rank)
    return false;
  for (uint32_t d = 0; d < v->rank; ++d)
    if (t->dims[d] != v->dims[d] || (v->dims[d] > 1 && v->map[d] != (int)d))
      return false;
  return true;
}

MgTensorId mg_lift_input(MgLiftBuilder *b, MlirValue v) {
  return mg_lift_input_shaped(b, v, 0, NULL, NULL);
}

MgTensorId mg_lift_input_shaped(MgLiftBuilder *b, MlirValue v, uint32_t rank,
                                const int64_t *dims, const int8_t *perm) {
  for (uint32_t i = 0; i < b->num_inputs; ++i) {
    if (!mlirValueEqual(b->inputs[i], v))
      continue;
    const MgTensor *t = mg_lift_tensor(b, b->input_ids[i]);
    int8_t have[MG_MAX_DIMS];
    bool moved = mg_graph_tensor_perm(&b->prog->graphs[0], t, have);
    bool same = !dims ? !b->input_reshaped[i]
                      : t->rank == rank &&
                            !memcmp(t->dims, dims, rank * sizeof *dims) &&
                            (perm ? !memcmp(have, perm, rank) : !moved);
    if (same)
      return b->input_ids[i];
  }
  MgLiftType ty;
  const char *why = NULL;
  if (!mg_lift_read_type(mlirValueGetType(v), &ty, &why)) {
    mg_lift_fail(b, (MlirOperation){NULL}, "an operand %s", why);
    return MG_NO_ID;
  }
  if (ty.rank > MG_MAX_DIMS) {
    mg_lift_fail(
        b, (MlirOperation){NULL},
        "an operand of rank %u exceeds the μGraph limit of %d",
        ty.rank, MG_MAX_DIMS);
    return MG_NO_ID;
  }
  void *const arrays[] = {&b->inputs, &b->input_ids, &b->input_reshaped};
  const size_t sizes[] = {sizeof *b->inputs, sizeof *b->input_ids,
                          sizeof *b->input_reshaped};
  if (!mg_array_reserve_parallel(arrays, sizes, 3, &b->cap_inputs,
                                 b->num_inputs + 1, 8)) {
    mg_lift_fail(b, (MlirOperation){NULL}, "out of memory");
    return MG_NO_ID;
  }
  MgDiag diag = MG_DIAG_INIT;
  MgTensorId t = mg_graph_add_input(b->prog, 0, (MgDType)ty.dtype,
                                    dims ? rank : ty.rank,
                                    dims ? dims : ty.dims, &diag);
  if (t != MG_NO_ID && perm &&
      mg_graph_set_input_perm(b->prog, 0, t, perm, &diag) != MG_STATUS_OK)
    t = MG_NO_ID;
  if (t == MG_NO_ID) {
    mg_lift_fail(b, (MlirOperation){NULL}, "μGraph input rejected: %s",
                 diag.message);
    return MG_NO_ID;
  }
  b->inputs[b->num_inputs] = v;
  b->input_reshaped[b->num_inputs] = dims != NULL;
  b->input_ids[b->num_inputs++] = t;
  return t;
}

bool mg_lift_get(MgLiftBuilder *b, MlirValue v, MgLiftVal *out) {
  uint32_t i = mg_ptrmap_get(&b->index, v.ptr);
  if (i != UINT32_MAX) {
    *out = b->vals[i];
    return true;
  }
  double s;
  if (mg_lift_get_scalar(v, &s)) {
    // A splat: its frame is its own IR shape and its map points at the dims
    // of the exact input it becomes if a tensor is ever needed.
    memset(out, 0, sizeof *out);
    out->kind = MG_LIFT_SCALAR;
    out->scalar = s;
    out->t = MG_NO_ID;
    out->ir = v;
    out->origin = mg_lift_def_op(v);
    for (uint32_t d = 0; d < MG_LIFT_MAX_RANK; ++d)
      out->map[d] = -1;
    MlirType type = mlirValueGetType(v);
    if (mlirTypeIsAShaped(type)) {
      MgLiftType ty;
      const char *why;
      if (!mg_lift_read_type(type, &ty, &why))
        return mg_lift_fail(b, (MlirOperation){NULL}, "a constant operand %s",
                            why);
      out->dtype = ty.dtype;
      out->rank = ty.rank;
      for (uint32_t d = 0; d < ty.rank; ++d) {
        out->dims[d] = ty.dims[d];
        out->map[d] = ty.dims[d] > 1 ? (int8_t)d : -1;
      }
    } else {
      mg_lift_float_dtype(type, &out->dtype);
      out->ir = (MlirValue){NULL}; // a scalar SSA value is never a tensor
    }
    return true;
  }
  MgTensorId t = mg_lift_input(b, v);
  if (t == MG_NO_ID)
    return false;
  mg_lift_val_exact(b, t, mg_lift_tensor(b, t)->dtype, mg_lift_def_op(v), out);
  return mg_lift_set(b, v, out);
}

//===--- Emitters ---------------------------------------------------------===//

static bool grow_taint(MgLiftBuilder *b) {
  uint32_t need = b->prog->graphs[0].num_tensors;
  if (need <= b->cap_taint)
    return true;
  uint32_t cap = b->cap_taint ? b->cap_taint : 64;
  while (cap < need)
    cap *= 2;
  uint8_t *taint = realloc(b->taint, cap);
  if (!taint)
    return mg_lift_fail(b, (MlirOperation){NULL}, "out of memory");
  memset(taint + b->cap_taint, 0, cap - b->cap_taint);
  b->taint = taint;
  b->cap_taint = cap;
  return true;
}

static bool tainted(MgLiftBuilder *b, MgTensorId t) {
  return t < b->cap_taint && b->taint[t];
}

// Bookkeeping shared by all emitters: result dtype and taint (finish and
// finish_view add the op count). The dialect lets only binary ops, matmul
// and sum change the element type (unary and scalar ops keep their
// operand's): KEEP_DTYPE says so.
#define KEEP_DTYPE 0xff
static MgTensorId record(MgLiftBuilder *b, MgTensorId r, uint8_t dtype,
                         bool taint, const MgDiag *diag) {
  if (r == MG_NO_ID) {
    // Its numbers count a `?` as the stand-in size (symbols.c).
    bool dynamic = false;
    MlirOperation op = b->current;
    for (intptr_t i = 0; !mlirOperationIsNull(op) &&
                         i < mlirOperationGetNumResults(op); ++i)
      dynamic |= mg_lift_type_is_dynamic(
          mlirValueGetType(mlirOperationGetResult(op, i)));
    mg_lift_fail(b, (MlirOperation){NULL}, "the μGraph rejected the op: %s%s",
                 diag->message,
                 dynamic ? " (a '?' dim counts " MG_LIFT_SYM_SIZE_STR
                           " here: a dynamic dim merged with a static one is "
                           "not a symbol)"
                         : "");
    return MG_NO_ID;
  }
  MgDiag d2 = MG_DIAG_INIT;
  if (dtype != KEEP_DTYPE && mg_lift_tensor(b, r)->dtype != dtype &&
      mg_graph_set_dtype(b->prog, 0, r, (MgDType)dtype, &d2) != MG_STATUS_OK) {
    mg_lift_fail(b, (MlirOperation){NULL}, "%s", d2.message);
    return MG_NO_ID;
  }
  if (!grow_taint(b))
    return MG_NO_ID;
  b->taint[r] = taint;
  return r;
}

// ORDER MG_OP: dialects/ugraph.irdl.mlir ties the result type of every
// unary and scalar op to its operand type; view ops (transpose, reshape,
// slice, concat) copy their operand and keep its type too. A new kind that
// may store another type goes here.
bool mg_lift_kind_retypes(MgOpKind kind) {
  return kind == MG_OP_ADD || kind == MG_OP_SUB || kind == MG_OP_MUL ||
         kind == MG_OP_DIV || kind == MG_OP_MAX || kind == MG_OP_MATMUL ||
         kind == MG_OP_SUM || kind == MG_OP_REDUCE_MAX;
}

// The tensors from `t` back through reshape and transpose views to a
// producer that may retype (a conv's matmul before its reshape to NHWC),
// `t` first: each read by the next view alone and no graph output, `t`
// read by no op. Their number, 0 when there is no such chain.
static uint32_t retype_chain(const MgLiftBuilder *b, MgTensorId t,
                             MgTensorId *chain) {
  const MgGraph *g = &b->prog->graphs[0];
  for (uint32_t n = 0; n < MG_MAX_DIMS; ++n) {
    for (uint32_t o = 0; o < g->num_ops; ++o)
      for (uint32_t i = 0; i < g->ops[o].num_inputs; ++i)
        if (g->ops[o].inputs[i] == t && (n == 0 || g->ops[o].outputs[0] !=
                                                       chain[n - 1]))
          return 0;
    for (uint32_t o = 0; n > 0 && o < g->num_outputs; ++o)
      if (g->outputs[o] == t)
        return 0;
    chain[n] = t;
    const MgOp *def = &g->ops[g->tensors[t].producer];
    if (mg_lift_kind_retypes((MgOpKind)def->kind))
      return n + 1;
    if (def->kind != MG_OP_RESHAPE && def->kind != MG_OP_TRANSPOSE)
      return 0;
    t = def->inputs[0];
  }
  return 0;
}

bool mg_lift_can_retype(const MgLiftBuilder *b, MgTensorId t) {
  MgTensorId chain[MG_MAX_DIMS];
  return retype_chain(b, t, chain) > 0;
}

bool mg_lift_retype(MgLiftBuilder *b, MgTensorId t, uint8_t dtype) {
  MgTensorId chain[MG_MAX_DIMS];
  uint32_t n = retype_chain(b, t, chain);
  MgDiag diag = MG_DIAG_INIT;
  for (uint32_t i = n; i-- > 0;)
    if (mg_graph_set_dtype(b->prog, 0, chain[i], (MgDType)dtype, &diag) !=
        MG_STATUS_OK)
      return false;
  return n > 0;
}

// A compute op's result: counted toward max-ops and the remarks.
static MgTensorId finish(MgLiftBuilder *b, MgTensorId r, uint8_t dtype,
                         bool taint, const MgDiag *diag) {
  r = record(b, r, dtype, taint, diag);
  b->num_compute += r != MG_NO_ID;
  return r;
}

MgTensorId mg_lift_emit_unary(MgLiftBuilder *b, MgOpKind kind, MgTensorId a,
                              uint8_t dtype) {
  if (kind == MG_OP_EXP && tainted(b, a))
    b->lax_break = true;
  MgDiag diag = MG_DIAG_INIT;
  MgTensorId r = mg_graph_unary(b->prog, 0, kind, a, &diag);
  // Non-LAX ops are uninterpreted functions for the verifier: fresh values.
  bool t = kind == MG_OP_EXP || (kind == MG_OP_SQUARE && tainted(b, a));
  (void)dtype;
  return finish(b, r, KEEP_DTYPE, t, &diag);
}

MgTensorId mg_lift_emit_binary(MgLiftBuilder *b, MgOpKind kind, MgTensorId a,
                               MgTensorId c, uint8_t dtype) {
  MgDiag diag = MG_DIAG_INIT;
  MgTensorId r = mg_graph_binary(b->prog, 0, kind, a, c, &diag);
  return finish(b, r, dtype, tainted(b, a) || tainted(b, c), &diag);
}

MgTensorId mg_lift_emit_scalar(MgLiftBuilder *b, MgOpKind kind, MgTensorId a,
                               double s, uint8_t dtype) {
  MgDiag diag = MG_DIAG_INIT;
  MgTensorId r = mg_graph_scalar(b->prog, 0, kind, a, s, &diag);
  (void)dtype;
  return finish(b, r, KEEP_DTYPE, tainted(b, a), &diag);
}

MgTensorId mg_lift_emit_sum(MgLiftBuilder *b, MgTensorId a, int32_t dim,
                            uint8_t dtype) {
  return mg_lift_emit_reduce(b, MG_OP_SUM, a, dim, dtype);
}

// A max is one of its operands: it keeps their taint (an exp of a max of
// exp results reads an exp result).
MgTensorId mg_lift_emit_reduce(MgLiftBuilder *b, MgOpKind kind, MgTensorId a,
                               int32_t dim, uint8_t dtype) {
  MgDiag diag = MG_DIAG_INIT;
  MgTensorId r = mg_graph_reduce(b->prog, 0, kind, a, dim, &diag);
  return finish(b, r, dtype, tainted(b, a), &diag);
}

MgTensorId mg_lift_emit_matmul(MgLiftBuilder *b, MgTensorId a, MgTensorId c,
                               uint8_t dtype) {
  MgDiag diag = MG_DIAG_INIT;
  MgTensorId r = mg_graph_matmul(b->prog, 0, a, c, &diag);
  return finish(b, r, dtype, tainted(b, a) || tainted(b, c), &diag);
}

bool mg_lift_materialize(MgLiftBuilder *b, MgLiftVal *v) {
  MgTensorId t;
  switch ((MgLiftKind)v->kind) {
  case MG_LIFT_TENSOR:
    return true;
  case MG_LIFT_SCALAR:
    if (mlirValueIsNull(v->ir))
      return mg_lift_fail(b, (MlirOperation){NULL},
                          "a constant would have to become a tensor, and only "
                          "constants defined as tensors can");
    // The map already points at the dims of the (exact) input.
    t = mg_lift_input(b, v->ir);
    if (t == MG_NO_ID)
      return false;
    v->t = t;
    v->kind = MG_LIFT_TENSOR;
    return true;
  case MG_LIFT_NEG:
    t = mg_lift_emit_scalar(b, MG_OP_MUL_SCALAR, v->t, -1.0, v->dtype);
    break;
  case MG_LIFT_EXPNEG:
    t = mg_lift_emit_scalar(b, MG_OP_MUL_SCALAR, v->t, -1.0, v->dtype);
    if (t != MG_NO_ID)
      t = mg_lift_emit_unary(b, MG_OP_EXP, t, v->dtype);
    break;
  case MG_LIFT_SIGMOID:
    return mg_lift_fail(b, v->origin,
                        "sigmoid lifts only inside x * sigmoid(x) (silu); the "
                        "μGraph has no sigmoid");
  case MG_LIFT_RECIP:
    return mg_lift_fail(b, v->origin,
                        "a reciprocal lifts only as the divisor of a product "
                        "(a * (1/b) = a / b); the μGraph has no reciprocal");
  case MG_LIFT_ONE_PLUS_EXPNEG:
    return mg_lift_fail(b, v->origin,
                        "1 + exp(-x) lifts only inside sigmoid or silu");
  case MG_LIFT_PAD:
    return mg_lift_fail(b, mg_lift_def_op(v->ir),
                        "a tensor.pad lifts only as the padding of the "
                        "convolutions and pooling ops that read it (the "
                        "μGraph has no pad)");
  default:
    return mg_lift_fail(b, v->origin, "value has no μGraph image");
  }
  if (t == MG_NO_ID)
    return false;
  v->t = t;
  v->kind = MG_LIFT_TENSOR;
  return true;
}

//===--- Frames and views -------------------------------------------------===//

static void clear_map(MgLiftVal *v) {
  for (uint32_t d = 0; d < MG_LIFT_MAX_RANK; ++d)
    v->map[d] = -1;
}

bool mg_lift_frame_in(MgLiftBuilder *b, const MgLiftVal *v, uint32_t rank,
                      const int64_t *fdims, const int8_t *phi, MgLiftVal *out) {
  if (v->kind == MG_LIFT_PAD) { // no frame holds a pad (conv.c)
    MgLiftVal p = *v;
    return mg_lift_materialize(b, &p);
  }
  MgLiftVal r = *v;
  r.rank = (uint8_t)rank;
  memcpy(r.dims, fdims, rank * sizeof *fdims);
  clear_map(&r);
  for (uint32_t j = 0; j < v->rank; ++j) {
    if (v->dims[j] == 1)
      continue; // broadcast along this frame dim (or a constant index)
    int f = phi[j];
    if (f < 0 || (uint32_t)f >= rank)
      return mg_lift_fail(b, (MlirOperation){NULL},
                          "operand dim %u (size %lld) is not walked by a loop",
                          j, (long long)v->dims[j]);
    if (fdims[f] != v->dims[j])
      return mg_lift_fail(b, (MlirOperation){NULL},
                          "operand dim %u has size %lld but the loop has %lld",
                          j, (long long)v->dims[j], (long long)fdims[f]);
    if (r.map[f] != -1)
      return mg_lift_fail(
          b, (MlirOperation){NULL},
          "two operand dims walk the same loop (diagonal access)");
    r.map[f] = v->map[j];
  }
  *out = r;
  return true;
}

bool mg_lift_frame_out(MgLiftBuilder *b, const MgLiftVal *v, uint32_t rank,
                       const int64_t *odims, const int8_t *psi,
                       MgLiftVal *out) {
  if (v->kind == MG_LIFT_PAD) {
    MgLiftVal p = *v;
    return mg_lift_materialize(b, &p);
  }
  MgLiftVal r = *v;
  r.rank = (uint8_t)rank;
  memcpy(r.dims, odims, rank * sizeof *odims);
  clear_map(&r);
  if (v->kind == MG_LIFT_SCALAR) { // a splat stays a splat of the new shape
    r.ir = (MlirValue){NULL};
    *out = r;
    return true;
  }
  bool used[MG_LIFT_MAX_RANK] = {false};
  for (uint32_t k = 0; k < rank; ++k) {
    if (odims[k] == 1)
      continue;
    int f = psi[k];
    if (f < 0 || (uint32_t)f >= v->rank || v->dims[f] != odims[k])
      return mg_lift_fail(b, (MlirOperation){NULL},
                          "result dim %u does not match the loops", k);
    if (v->map[f] < 0)
      return mg_lift_fail(b, (MlirOperation){NULL},
                          "the result is broadcast along dim %u; the μGraph "
                          "cannot broadcast to a larger shape",
                          k);
    if (used[f])
      return mg_lift_fail(b, (MlirOperation){NULL},
                          "two result dims read the same loop");
    used[f] = true;
    r.map[k] = v->map[f];
  }
  for (uint32_t f = 0; f < v->rank; ++f)
    if (v->map[f] >= 0 && !used[f])
      return mg_lift_fail(b, (MlirOperation){NULL},
                          "loop %u varies but is neither reduced nor stored",
                          f);
  *out = r;
  return true;
}

// A view op's result: not compute (a subprogram of views only computes
// nothing), same taint as its operand.
static MgTensorId finish_view(MgLiftBuilder *b, MgTensorId a, MgTensorId r,
                              const MgDiag *diag) {
  return record(b, r, KEEP_DTYPE, tainted(b, a), diag);
}

MgTensorId mg_lift_emit_im2col(MgLiftBuilder *b, MgTensorId x,
                               const MgIm2col *c) {
  MgDiag diag = MG_DIAG_INIT;
  MgTensorId r = mg_graph_im2col(b->prog, 0, x, c, &diag);
  return finish_view(b, x, r, &diag);
}

MgTensorId mg_lift_emit_transpose(MgLiftBuilder *b, MgTensorId a,
                                  const int8_t *perm) {
  MgDiag diag = MG_DIAG_INIT;
  MgTensorId r = mg_graph_transpose(b->prog, 0, a, perm, &diag);
  return finish_view(b, a, r, &diag);
}

// Realises `v` on a tensor of dims `eff`: v's frame dims, but 1 where v
// is broadcast (map -1 on a dim larger than 1, an operand in a binary op's
// frame); such dims stay broadcast.
bool mg_lift_realize(MgLiftBuilder *b, MgLiftVal *v) {
  if (!mg_lift_materialize(b, v))
    return false;
  if (mg_lift_val_is_exact(b, v))
    return true;
  if (v->rank > MG_MAX_DIMS)
    return mg_lift_fail(b, v->origin,
                        "a view of rank %u would have to be materialised, "
                        "which exceeds the μGraph limit of %d", v->rank,
                        MG_MAX_DIMS);
  int64_t eff[MG_LIFT_MAX_RANK];
  for (uint32_t f = 0; f < v->rank; ++f)
    eff[f] = v->map[f] >= 0 ? v->dims[f] : 1;
  MgTensorId t = v->t;
  const MgTensor *x = mg_lift_tensor(b, t);
  // The tensor's dims in the frame's order. Of equal ranks, its unit dims
  // fill the frame's unit positions (then no reshape follows); else they
  // go last.
  int8_t perm[MG_MAX_DIMS];
  uint32_t n = 0;
  if (x->rank == v->rank) {
    for (uint32_t f = 0, u = 0; f < v->rank; ++f, ++n) {
      if (eff[f] > 1) {
        perm[f] = v->map[f];
        continue;
      }
      while (u < x->rank && x->dims[u] != 1)
        ++u;
      perm[f] = (int8_t)u++;
    }
  } else {
    // Non-unit dims walked in their stored order list the elements in
    // row-major order already: a reshape alone (a 1x1 filter's
    // [1, 1, C, F] read as [1, C, F]).
    bool ordered = true;
    for (uint32_t f = 0, last = 0; f < v->rank; ++f)
      if (eff[f] > 1) {
        ordered &= n == 0 || (uint32_t)v->map[f] > last;
        last = (uint32_t)v->map[f];
        perm[n++] = v->map[f];
      }
    for (uint32_t d = 0; d < x->rank && n < MG_MAX_DIMS; ++d)
      if (x->dims[d] == 1)
        perm[n++] = (int8_t)d;
    for (uint32_t d = 0; ordered && d < x->rank; ++d)
      perm[d] = (int8_t)d;
  }
  bool identity = n == x->rank;
  for (uint32_t d = 0; identity && d < n; ++d)
    identity = perm[d] == (int8_t)d;
  MgDiag diag = MG_DIAG_INIT;
  if (!identity) {
    if ((t = mg_lift_emit_transpose(b, t, perm)) == MG_NO_ID)
      return false;
    x = mg_lift_tensor(b, t);
  }
  bool same = x->rank == v->rank;
  for (uint32_t d = 0; same && d < v->rank; ++d)
    same = x->dims[d] == eff[d];
  if (!same) {
    MgTensorId r = mg_graph_reshape(b->prog, 0, t, v->rank, eff, &diag);
    if ((t = finish_view(b, t, r, &diag)) == MG_NO_ID)
      return false;
  }
  v->t = t;
  for (uint32_t f = 0; f < v->rank; ++f)
    v->map[f] = eff[f] > 1 ? (int8_t)f : -1;
  v->viewed = false;
  return true;
}

bool mg_lift_view_slice(MgLiftBuilder *b, const MgLiftVal *v, uint32_t dim,
                        int64_t first, int64_t count, MgLiftVal *out) {
  MgLiftVal r = *v;
  if (r.kind == MG_LIFT_SCALAR && dim < r.rank) { // a splat stays one
    r.dims[dim] = count;
    r.ir = (MlirValue){NULL};
    *out = r;
    return true;
  }
  if (!mg_lift_materialize(b, &r))
    return false;
  if (dim >= r.rank || first < 0 || count < 1 || first + count > r.dims[dim])
    return mg_lift_fail(b, (MlirOperation){NULL}, "slice out of range");
  if (count == r.dims[dim]) {
    *out = r;
    return true;
  }
  MgDiag diag = MG_DIAG_INIT;
  MgSlice slice = {r.map[dim], first, count};
  MgTensorId t = mg_graph_slice(b->prog, 0, r.t, slice, &diag);
  if ((t = finish_view(b, r.t, t, &diag)) == MG_NO_ID)
    return false;
  r.t = t;
  r.dims[dim] = count;
  if (count == 1)
    r.map[dim] = -1; // a unit dim walks nothing (the tensor keeps it)
  *out = r;
  return true;
}

bool mg_lift_view_concat(MgLiftBuilder *b, const MgLiftVal *x,
                         const MgLiftVal *y, uint32_t dim, MgLiftVal *out) {
  MgLiftVal a = *x, c = *y;
  if (!mg_lift_realize(b, &a) || !mg_lift_realize(b, &c))
    return false;
  if (dim >= a.rank)
    return mg_lift_fail(b, (MlirOperation){NULL}, "concat axis out of range");
  if (mg_lift_tensor(b, a.t)->dtype != mg_lift_tensor(b, c.t)->dtype)
    return mg_lift_fail(b, (MlirOperation){NULL},
                        "concat operands have different element types");
  MgDiag diag = MG_DIAG_INIT;
  MgTensorId t = mg_graph_concat(b->prog, 0, a.t, c.t, (int32_t)dim, &diag);
  if ((t = finish_view(b, a.t, t, &diag)) == MG_NO_ID)
    return false;
  if (tainted(b, c.t))
    b->taint[t] = 1;
  mg_lift_val_exact(b, t, a.dtype, a.origin, out);
  return true;
}

// A row-major reshape of `a` to `dims`. A reshape of a reshape reshapes
// the first one's operand (both keep row-major order), and one back to
// that operand's shape is the operand: the chains frontends write around
// rank-3 matmuls (GQA's [1,8,s,d] -> [1,2,4,s,d] -> [2,4s,d] and back)
// become one view op or none; an intermediate nothing else reads is
// dropped with the dead ops.
static MgTensorId reshape_of(MgLiftBuilder *b, MgTensorId a, uint32_t rank,
                             const int64_t *dims) {
  const MgGraph *g = &b->prog->graphs[0];
  const MgOp *def = &g->ops[g->tensors[a].producer];
  if (def->kind == MG_OP_RESHAPE)
    a = def->inputs[0];
  const MgTensor *x = mg_lift_tensor(b, a);
  if (x->rank == rank && !memcmp(x->dims, dims, rank * sizeof *dims))
    return a;
  MgDiag diag = MG_DIAG_INIT;
  MgTensorId t = mg_graph_reshape(b->prog, 0, a, rank, dims, &diag);
  return finish_view(b, a, t, &diag);
}

// A reshape of a value broadcast along some frame dims (a bias broadcast
// into a convolution's init, then split into groups by expand_shape):
// the non-unit dims of both shapes in groups of equal products, each group
// broadcast throughout or not at all; the part that is not broadcast is
// reshaped, the broadcast dims stay broadcast. False (no failure) when a
// group mixes them.
static bool reshape_broadcast(MgLiftBuilder *b, const MgLiftVal *v,
                              uint32_t rank, const int64_t *dims,
                              MgLiftVal *out) {
  MgLiftVal nb = *v;
  int64_t dims2[MG_LIFT_MAX_RANK];
  memcpy(dims2, dims, rank * sizeof *dims);
  uint32_t i = 0, j = 0;
  while (i < v->rank || j < rank) {
    // One group: src dims [i, i2), dst dims [j, j2) of equal product.
    uint32_t i2 = i, j2 = j;
    int64_t ps = i2 < v->rank ? v->dims[i2++] : 1;
    int64_t pd = j2 < rank ? dims[j2++] : 1;
    while (ps != pd) {
      if (ps < pd && i2 < v->rank)
        ps *= v->dims[i2++];
      else if (pd < ps && j2 < rank)
        pd *= dims[j2++];
      else
        return false;
    }
    int bcast = -1; // unknown, 0 no, 1 yes
    for (uint32_t f = i; f < i2; ++f) {
      if (v->dims[f] == 1)
        continue;
      int here = v->map[f] < 0;
      if (bcast >= 0 && bcast != here)
        return false;
      bcast = here;
    }
    if (bcast == 1) {
      for (uint32_t f = i; f < i2; ++f)
        nb.dims[f] = 1;
      for (uint32_t d = j; d < j2; ++d)
        dims2[d] = 1;
    }
    i = i2, j = j2;
  }
  MgLiftVal r;
  if (!mg_lift_view_reshape(b, &nb, rank, dims2, &r))
    return false;
  memcpy(r.dims, dims, rank * sizeof *dims);
  *out = r;
  return true;
}

static bool is_broadcast(const MgLiftVal *v) {
  for (uint32_t d = 0; v->kind == MG_LIFT_TENSOR && d < v->rank; ++d)
    if (v->dims[d] > 1 && v->map[d] < 0)
      return true;
  return false;
}

bool mg_lift_view_reshape(MgLiftBuilder *b, const MgLiftVal *v, uint32_t rank,
                          const int64_t *dims, MgLiftVal *out) {
  if (v->kind == MG_LIFT_PAD) { // still pending (conv.c), in the new shape
    *out = *v;
    out->rank = (uint8_t)rank;
    memcpy(out->dims, dims, rank * sizeof *dims);
    return true;
  }
  uint32_t src[MG_LIFT_MAX_RANK], ns = 0, dst[MG_LIFT_MAX_RANK], nd = 0;
  for (uint32_t d = 0; d < v->rank; ++d)
    if (v->dims[d] > 1)
      src[ns++] = d;
  for (uint32_t d = 0; d < rank; ++d)
    if (dims[d] > 1)
      dst[nd++] = d;
  bool same = ns == nd;
  for (uint32_t i = 0; same && i < ns; ++i)
    same = v->dims[src[i]] == dims[dst[i]];
  if (!same && is_broadcast(v) && reshape_broadcast(b, v, rank, dims, out))
    return true;
  if (!same && v->kind != MG_LIFT_SCALAR) {
    // Dims merge or split: the value in its own frame's layout, then a
    // row-major reshape of its non-unit dims (unit dims stay free).
    MgLiftVal x = *v;
    if (!mg_lift_realize(b, &x))
      return false;
    // The IR shape when it fits (then the result is exact), else its
    // non-unit dims.
    int64_t nd_dims[MG_MAX_DIMS];
    uint32_t r_rank = 0;
    bool whole = rank <= MG_MAX_DIMS;
    for (uint32_t d = 0; d < rank; ++d)
      if (whole || dims[d] > 1) {
        if (r_rank == MG_MAX_DIMS)
          return mg_lift_fail(b, (MlirOperation){NULL},
                              "the reshape has more than %d dims larger than "
                              "1 (the μGraph limit of %d)", MG_MAX_DIMS,
                              MG_MAX_DIMS);
        nd_dims[r_rank++] = dims[d];
      }
    if (r_rank == 0)
      nd_dims[r_rank++] = 1;
    MgTensorId t = reshape_of(b, x.t, r_rank, nd_dims);
    if (t == MG_NO_ID)
      return false;
    MgLiftVal r = x;
    r.t = t;
    r.rank = (uint8_t)rank;
    memcpy(r.dims, dims, rank * sizeof *dims);
    clear_map(&r);
    for (uint32_t d = 0, k = 0; d < rank; ++d) {
      if (dims[d] > 1)
        r.map[d] = (int8_t)k;
      k += whole || dims[d] > 1;
    }
    r.viewed = !whole;
    *out = r;
    return true;
  }
  if (!same)
    return mg_lift_fail(b, (MlirOperation){NULL},
                        "the reshape merges or splits dims of a splat");
  MgLiftVal r = *v;
  r.rank = (uint8_t)rank;
  memcpy(r.dims, dims, rank * sizeof *dims);
  clear_map(&r);
  for (uint32_t i = 0; i < ns; ++i)
    r.map[dst[i]] = v->map[src[i]];
  *out = r;
  return true;
}

bool mg_lift_view_transpose(MgLiftBuilder *b, const MgLiftVal *v,
                            const int64_t *perm, MgLiftVal *out) {
  bool seen[MG_LIFT_MAX_RANK] = {false};
  MgLiftVal r = *v;
  for (uint32_t i = 0; i < v->rank; ++i) {
    int64_t p = perm[i];
    if (p < 0 || p >= v->rank || seen[p])
      return mg_lift_fail(b, (MlirOperation){NULL}, "invalid permutation");
    seen[p] = true;
    r.dims[i] = v->dims[p];
    r.map[i] = v->map[p];
  }
  *out = r;
  return true;
}

bool mg_lift_view_permute(MgLiftBuilder *b, MlirOperation op, const char *attr,
                          bool i64, const MgLiftVal *v, MgLiftVal *out) {
  MlirAttribute p = mg_lift_attr(op, attr);
  if (mlirAttributeIsNull(p) ||
      !(i64 ? mlirAttributeIsADenseI64Array(p)
            : mlirAttributeIsADenseI32Array(p)) ||
      mlirDenseArrayGetNumElements(p) != v->rank)
    return mg_lift_fail(b, op, "missing '%s'", attr);
  int64_t perm[MG_LIFT_MAX_RANK];
  for (uint32_t i = 0; i < v->rank; ++i)
    perm[i] = i64 ? mlirDenseI64ArrayGetElement(p, i)
                  : mlirDenseI32ArrayGetElement(p, i);
  return mg_lift_view_transpose(b, v, perm, out);
}

//===--- Dead ops ---------------------------------------------------------===//

// True when input k is unused and its IR value also enters as another
// input (reshaped or transposed at the boundary): then it goes.
static bool unused_twin(const MgLiftBuilder *b, uint32_t k,
                        const uint8_t *live) {
  if (live[b->input_ids[k]])
    return false;
  for (uint32_t i = 0; i < b->num_inputs; ++i)
    if (i != k && mlirValueEqual(b->inputs[i], b->inputs[k]))
      return true;
  return false;
}

bool mg_lift_prune(MgLiftBuilder *b) {
  const MgGraph *g = &b->prog->graphs[0];
  uint8_t *live = calloc(g->num_tensors + 1, 1);
  MgTensorId *map = malloc((g->num_tensors + 1) * sizeof *map);
  if (!live || !map) {
    free(live);
    free(map);
    return mg_lift_fail(b, (MlirOperation){NULL}, "out of memory");
  }
  for (uint32_t i = 0; i < g->num_outputs; ++i)
    live[g->outputs[i]] = 1;
  uint32_t dead = 0;
  for (uint32_t o = g->num_ops; o-- > 0;) {
    const MgOp *op = &g->ops[o];
    bool used =
        op->kind == MG_OP_INPUT && !unused_twin(b, (uint32_t)op->attr, live);
    for (uint32_t k = 0; k < op->num_outputs; ++k)
      used |= live[op->outputs[k]];
    if (!used) {
      dead++;
      continue;
    }
    for (uint32_t k = 0; k < op->num_inputs; ++k)
      live[op->inputs[k]] = 1;
    for (uint32_t k = 0; k < op->num_outputs; ++k)
      live[op->outputs[k]] = 1;
  }
  bool ok = true;
  MgProgram *q = dead ? mg_program_create() : NULL;
  if (dead && (!q || mg_program_add_graph(q, MG_LEVEL_KERNEL) != 0))
    ok = mg_lift_fail(b, (MlirOperation){NULL}, "out of memory");
  MgDiag diag = MG_DIAG_INIT;
  uint32_t compute = 0;
  // Every input stays, in its position (first, so positions are kept), but
  // an unused twin. Input k is the one at position k (order_inputs).
  for (uint32_t k = 0; dead && ok && k < b->num_inputs; ++k) {
    MgTensorId t = b->input_ids[k];
    if (unused_twin(b, k, live)) {
      map[t] = MG_NO_ID; // dropped
      continue;
    }
    const MgTensor *x = &g->tensors[t];
    map[t] =
        mg_graph_add_input(q, 0, (MgDType)x->dtype, x->rank, x->dims, &diag);
    int8_t perm[MG_MAX_DIMS];
    if (map[t] != MG_NO_ID && mg_graph_tensor_perm(g, x, perm) &&
        mg_graph_set_input_perm(q, 0, map[t], perm, &diag) != MG_STATUS_OK)
      map[t] = MG_NO_ID;
    ok = map[t] != MG_NO_ID;
  }
  for (uint32_t o = 0; dead && ok && o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    if (op->kind == MG_OP_INPUT || !live[op->outputs[0]])
      continue;
    MgOp copy = *op;
    for (uint32_t k = 0; k < op->num_inputs; ++k)
      copy.inputs[k] = map[op->inputs[k]];
    MgTensorId outs[MG_MAX_OP_OUTPUTS];
    ok = mg_graph_add_op(q, 0, &copy, outs, &diag) != MG_NO_ID;
    for (uint32_t k = 0; ok && k < op->num_outputs; ++k) {
      map[op->outputs[k]] = outs[k];
      ok = mg_graph_set_dtype(q, 0, outs[k],
                              (MgDType)g->tensors[op->outputs[k]].dtype,
                              &diag) == MG_STATUS_OK;
    }
    compute += !mg_op_is_view(op, MG_LEVEL_KERNEL); // views are not compute
  }
  for (uint32_t i = 0; dead && ok && i < g->num_outputs; ++i)
    ok = mg_graph_mark_output(q, 0, map[g->outputs[i]], &diag) == MG_STATUS_OK;
  if (dead && ok) {
    // The input list follows (kept <= k: compaction in place).
    uint32_t kept = 0;
    for (uint32_t k = 0; k < b->num_inputs; ++k)
      if (map[b->input_ids[k]] != MG_NO_ID) {
        b->inputs[kept] = b->inputs[k];
        b->input_reshaped[kept] = b->input_reshaped[k];
        b->input_ids[kept++] = map[b->input_ids[k]];
      }
    b->num_inputs = kept;
    mg_program_destroy(b->prog);
    b->prog = q;
    b->num_compute = compute;
  } else if (dead) {
    mg_program_destroy(q);
    if (!b->failed)
      mg_lift_fail(b, (MlirOperation){NULL}, "internal: %s", diag.message);
  }
  free(live);
  free(map);
  return ok;
}
