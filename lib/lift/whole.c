//===- whole.c - One function lifted whole into one kernel graph ----------===//
//
// mirage-check-equiv compares two tensor functions as wholes: each becomes
// one kernel graph, never partitioned into LAX subprograms, or the first op
// that prevents it is named. The translation is the partitioner's (every op
// through mg_lift_translate into one builder); the frame differs:
//  - the inputs are the function's arguments, every one at its IR type and
//    in order (used or not), then the constants the body reads as tensors;
//  - an op that cannot be translated, or an exp that reads an exp result
//    (outside LAX: the finite-field verifier rejects it), ends the attempt
//    where the partitioner would cut; ops whose results are unused are
//    skipped, since they change no result;
//  - the outputs are the func.return operands, at their IR shapes.
// The builder may read one IR value through several inputs (a bias rerooted
// to the activation's rank, a weight read through a layout: alg.c). The
// verifier draws every input independently, so the graph is copied onto one
// input per IR value, each rerooted read rebuilt from it by reshape and
// transpose view ops.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct Whole {
  MgLiftBuilder b;
  MlirOperation func;
  MlirBlock body;
  MgLiftFunction *out;
  MgDiag *diag;
  MlirValue *const_vals; // IR value of each constant in out->constants
  MgTensorId *canon;     // canonical input tensors: args, then constants
  uint32_t cap;          // of const_vals, canon - num_args, out->constants
} Whole;

static MgStatus fail(Whole *w, MlirOperation op, const char *why) {
  w->out->blame = mlirOperationIsNull(op) ? w->func : op;
  return mg_diag_set(w->diag, MG_STATUS_INVALID, -1, -1, "%s", why);
}

// A type a kernel graph input or output can have; else why not into `msg`.
static bool boundary_type(MlirType type, const char *what, intptr_t i,
                          MgLiftType *ty, char *msg, size_t size) {
  const char *why = NULL;
  // A whole function is compared at one size: a `?` (symbols.c) would be
  // checked at the stand-in size only.
  if (mg_lift_type_is_dynamic(type))
    snprintf(msg, size, "%s %d has a dynamic shape", what, (int)i);
  else if (!mg_lift_read_type(type, ty, &why))
    snprintf(msg, size, "%s %d %s", what, (int)i, why);
  else if (ty->rank > MG_MAX_DIMS)
    snprintf(msg, size, "%s %d has rank %u (kernel graphs take rank 1 to %d)",
             what, (int)i, ty->rank, MG_MAX_DIMS);
  else
    return true;
  return false;
}

static MgStatus add_args(Whole *w) {
  char msg[MG_LIFT_WHY_SIZE];
  for (uint32_t i = 0; i < w->out->num_args; ++i) {
    MlirValue a = mlirBlockGetArgument(w->body, i);
    MgLiftType ty;
    if (!boundary_type(mlirValueGetType(a), "argument", i, &ty, msg,
                       sizeof msg))
      return fail(w, w->func, msg);
    if (mg_lift_input(&w->b, a) == MG_NO_ID)
      return fail(w, w->func, w->b.why);
  }
  return MG_STATUS_OK;
}

static bool has_used_result(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    if (!mlirOpOperandIsNull(
            mlirValueGetFirstUse(mlirOperationGetResult(op, i))))
      return true;
  return false;
}

static MgStatus lift_body(Whole *w, MlirOperation *ret) {
  MgLiftBuilder *b = &w->b;
  char why[MG_LIFT_WHY_SIZE];
  *ret = (MlirOperation){NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(w->body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (mg_bridge_op_is(op, "func.return")) {
      *ret = op;
      continue;
    }
    MgLiftClass cls = mg_lift_classify(op, b->opts, why, sizeof why);
    if (cls == MG_LIFT_CLASS_FLOATING ||
        (mlirOperationGetNumResults(op) > 0 && !has_used_result(op)))
      continue;
    if (cls == MG_LIFT_CLASS_PURE || cls == MG_LIFT_CLASS_OTHER)
      return fail(w, op, why);
    b->lax_break = false;
    if (!mg_lift_translate(b, op))
      return fail(w, b->blame, b->why);
    if (b->lax_break)
      return fail(w, op,
                  "an exp reads an exp result (two exps on one path leave "
                  "LAX, which the finite-field verifier cannot model)");
  }
  if (mlirOperationIsNull(*ret))
    return fail(w, w->func, "its body does not end in func.return");
  return MG_STATUS_OK;
}

static bool is_input_or_output(const MgLiftBuilder *b, MgTensorId t) {
  const MgGraph *g = &b->prog->graphs[0];
  bool taken = g->ops[g->tensors[t].producer].kind == MG_OP_INPUT;
  for (uint32_t o = 0; o < g->num_outputs; ++o)
    taken |= g->outputs[o] == t;
  return taken;
}

static MgStatus add_outputs(Whole *w, MlirOperation ret) {
  MgLiftBuilder *b = &w->b;
  char msg[MG_LIFT_WHY_SIZE];
  b->current = ret;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(ret); ++i) {
    MlirValue v = mlirOperationGetOperand(ret, i);
    MgLiftType ty;
    if (!boundary_type(mlirValueGetType(v), "result", i, &ty, msg, sizeof msg))
      return fail(w, ret, msg);
    MgLiftVal val;
    if (!mg_lift_get(b, v, &val) || !mg_lift_materialize(b, &val) ||
        !mg_lift_realize(b, &val))
      return fail(w, b->blame, b->why);
    // An output is its own tensor: an argument or a value returned twice
    // leaves through a copy (mul_scalar 1, as chunk.c does).
    MgTensorId t = val.t;
    if (is_input_or_output(b, t))
      t = mg_lift_emit_scalar(b, MG_OP_MUL_SCALAR, t, 1.0, ty.dtype);
    MgDiag d = MG_DIAG_INIT;
    if (t == MG_NO_ID)
      return fail(w, ret, b->why);
    if (mg_graph_mark_output(b->prog, 0, t, &d) != MG_STATUS_OK)
      return fail(w, ret, d.message);
  }
  return MG_STATUS_OK;
}

static bool is_own_arg(const Whole *w, MlirValue v) {
  return mlirValueIsABlockArgument(v) &&
         mlirBlockEqual(mlirBlockArgumentGetOwner(v), w->body);
}

static bool grow_constants(Whole *w) {
  uint32_t n = w->out->num_constants;
  if (n < w->cap)
    return true;
  uint32_t cap = w->cap ? 2 * w->cap : 4;
  MlirValue *vals = realloc(w->const_vals, cap * sizeof *vals);
  if (vals)
    w->const_vals = vals;
  MgTensorId *canon =
      realloc(w->canon, (w->out->num_args + cap) * sizeof *canon);
  if (canon)
    w->canon = canon;
  MgLiftConstant *c = realloc(w->out->constants, cap * sizeof *c);
  if (c)
    w->out->constants = c;
  if (!vals || !canon || !c)
    return false;
  w->cap = cap;
  return true;
}

// The canonical input of constant `v` in `q`, added on first sight.
static MgStatus constant_input(Whole *w, MgProgram *q, MlirValue v,
                               MgTensorId *out) {
  MgLiftFunction *f = w->out;
  for (uint32_t c = 0; c < f->num_constants; ++c)
    if (mlirValueEqual(w->const_vals[c], v)) {
      *out = w->canon[f->num_args + c];
      return MG_STATUS_OK;
    }
  MlirOperation def = mg_lift_def_op(v);
  if (mlirOperationIsNull(def))
    return fail(w, w->func, "internal: an input is not an argument");
  // The additive mask of a select (mask.c) is computed at the call site:
  // no constant of the function holds it.
  if (mg_lift_mask_operand(def) >= 0)
    return fail(w, def,
                "a select on an i1 mask lifts as an addition of a mask "
                "computed outside the kernel graph, which a whole-function "
                "check cannot read");
  if (mg_lift_is_empty(v))
    return fail(w, def, "its contents are undefined, and a kernel graph "
                        "would read them as an input");
  if (!mg_lift_is_floating(def))
    return fail(w, def, "internal: its result enters the kernel graph as "
                        "an input");
  MgLiftType ty;
  const char *why = NULL;
  if (!mg_lift_read_type(mlirValueGetType(v), &ty, &why))
    return fail(w, def, "internal: a constant input of unsupported type");
  if (!grow_constants(w))
    return mg_diag_set(w->diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  MgLiftConstant *c = &f->constants[f->num_constants];
  memset(c, 0, sizeof *c);
  c->op = def;
  if (!mg_lift_read_constant(v, &c->values, &c->count))
    return fail(w, def,
                "it computes a constant tensor whose values cannot be read: "
                "only splats and dense f16/bf16/f32 constants, through "
                "reshapes and casts, can");
  w->const_vals[f->num_constants] = v;
  MgDiag d = MG_DIAG_INIT;
  *out = mg_graph_add_input(q, 0, (MgDType)ty.dtype, ty.rank, ty.dims, &d);
  w->canon[f->num_args + f->num_constants++] = *out;
  if (*out == MG_NO_ID)
    return fail(w, def, d.message);
  return MG_STATUS_OK;
}

// map[input k of the builder's graph] = its canonical input in `q`,
// reshaped to the stored shape it was rerooted to and read through its
// layout.
static MgStatus bind_input(Whole *w, MgProgram *q, uint32_t k,
                           MgTensorId *map) {
  const MgGraph *g = &w->b.prog->graphs[0];
  MlirValue v = w->b.inputs[k];
  MgTensorId t = w->b.input_ids[k], c;
  if (is_own_arg(w, v)) {
    c = w->canon[mlirBlockArgumentGetArgNumber(v)];
  } else {
    MgStatus st = constant_input(w, q, v, &c);
    if (st != MG_STATUS_OK)
      return st;
  }
  const MgTensor *gt = &g->tensors[t];
  int64_t stored[MG_MAX_DIMS];
  mg_graph_stored_dims(g, t, stored);
  const MgTensor *ct = &q->graphs[0].tensors[c];
  bool same = ct->rank == gt->rank &&
              !memcmp(ct->dims, stored, gt->rank * sizeof *stored);
  MgDiag d = MG_DIAG_INIT;
  if (!same)
    c = mg_graph_reshape(q, 0, c, gt->rank, stored, &d);
  int8_t perm[MG_MAX_DIMS];
  if (c != MG_NO_ID && mg_graph_tensor_perm(g, gt, perm))
    c = mg_graph_transpose(q, 0, c, perm, &d);
  if (c == MG_NO_ID)
    return fail(w, w->func, d.message);
  map[t] = c;
  return MG_STATUS_OK;
}

// The builder's graph copied onto canonical inputs (see the file comment).
static MgStatus canonicalize(Whole *w) {
  const MgGraph *g = &w->b.prog->graphs[0];
  MgProgram *q = mg_program_create();
  MgTensorId *map = malloc((g->num_tensors + 1) * sizeof *map);
  MgStatus st = MG_STATUS_OK;
  if (!q || !map || mg_program_add_graph(q, MG_LEVEL_KERNEL) != 0)
    st = mg_diag_set(w->diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  MgDiag d = MG_DIAG_INIT;
  for (uint32_t i = 0; st == MG_STATUS_OK && i < w->out->num_args; ++i) {
    MgLiftType ty;
    const char *why = NULL;
    mg_lift_read_type(mlirValueGetType(mlirBlockGetArgument(w->body, i)), &ty,
                      &why); // checked by add_args
    w->canon[i] =
        mg_graph_add_input(q, 0, (MgDType)ty.dtype, ty.rank, ty.dims, &d);
    if (w->canon[i] == MG_NO_ID)
      st = fail(w, w->func, d.message);
  }
  for (uint32_t t = 0; map && t < g->num_tensors; ++t)
    map[t] = MG_NO_ID;
  for (uint32_t k = 0; st == MG_STATUS_OK && k < w->b.num_inputs; ++k)
    st = bind_input(w, q, k, map);
  if (st == MG_STATUS_OK && mg_graph_append(q, 0, w->b.prog, 0, map, &d))
    st = fail(w, w->func, d.message);
  for (uint32_t o = 0; st == MG_STATUS_OK && o < g->num_outputs; ++o)
    if (mg_graph_mark_output(q, 0, map[g->outputs[o]], &d))
      st = fail(w, w->func, d.message);
  if (st == MG_STATUS_OK && mg_program_validate(q, NULL, &d))
    st = fail(w, w->func, d.message);
  free(map);
  if (st == MG_STATUS_OK)
    w->out->program = q;
  else
    mg_program_destroy(q);
  return st;
}

void mg_lift_function_free(MgLiftFunction *f) {
  if (!f)
    return;
  mg_program_destroy(f->program);
  for (uint32_t c = 0; c < f->num_constants; ++c)
    free(f->constants[c].values);
  free(f->constants);
  memset(f, 0, sizeof *f);
}

MgStatus mg_lift_function(MlirOperation func, const MgLiftOptions *options,
                          MgLiftFunction *out, MgDiag *diag) {
  memset(out, 0, sizeof *out);
  Whole w = {.func = func, .out = out, .diag = diag};
  MgLiftOptions opts = options ? *options : mg_lift_options_default();
  MlirRegion body = mlirOperationGetNumRegions(func) == 1
                        ? mlirOperationGetRegion(func, 0)
                        : (MlirRegion){NULL};
  w.body = mlirRegionIsNull(body) ? (MlirBlock){NULL}
                                  : mlirRegionGetFirstBlock(body);
  if (mlirBlockIsNull(w.body) ||
      !mlirBlockIsNull(mlirBlockGetNextInRegion(w.body))) {
    out->blame = func;
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "it has no body, or more than one block");
  }
  out->num_args = (uint32_t)mlirBlockGetNumArguments(w.body);
  w.canon = malloc((out->num_args + 1) * sizeof *w.canon);
  MgStatus st = w.canon && mg_lift_builder_init(&w.b, &opts)
                    ? MG_STATUS_OK
                    : mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1,
                                  "out of memory");
  MlirOperation ret = {NULL};
  if (st == MG_STATUS_OK)
    st = add_args(&w);
  if (st == MG_STATUS_OK)
    st = lift_body(&w, &ret);
  if (st == MG_STATUS_OK)
    st = add_outputs(&w, ret);
  if (st == MG_STATUS_OK && !mg_lift_prune(&w.b))
    st = fail(&w, func, w.b.why);
  if (st == MG_STATUS_OK)
    st = canonicalize(&w);
  MlirOperation blame = out->blame;
  if (st != MG_STATUS_OK) {
    mg_lift_function_free(out);
    out->blame = blame;
  }
  mg_lift_builder_free(&w.b);
  free(w.const_vals);
  free(w.canon);
  return st;
}
