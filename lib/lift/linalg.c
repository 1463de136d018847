//===- linalg.c - Translating linalg structured ops by their bodies -------===//
//
// Every linalg op here is read the same way: indexing maps give each
// operand's place in the iteration space (the frame), the body (named ops
// carry one too) says what is computed per point, and the dims missing from
// the output map are reduced. Four shapes lift:
//  - element-wise: the body's yield, an arith/math expression of the inputs
//    (and maybe the output's old value);
//  - additive reduction: yield = addf(E, acc) with E an element-wise
//    expression of the inputs; E is summed over the reduced dims;
//  - max reduction: yield = maximumf/maxnumf(E, acc), the stable softmax's
//    row max; a -inf or lowest-finite start is absorbed;
//  - contraction: yield = addf(acc, mulf(a, b)) with a, b two inputs whose
//    maps put one reduced dim k in both: a (batched) matmul. A transposed
//    operand lifts only if its image is itself a transposed view.
// In any of them, an arith.select on an i1 mask input with a constant
// fill is an addition of an additive mask (mask_linalg.c).
// The accumulator's initial value must be a neutral constant (absorbed) or
// a real tensor (combined); tensor.empty there would be undefined and is
// refused.
// Reductions drop the reduced dims from the IR type: the image keeps ug.sum's
// size-1 dims, as a view, so the value can feed later ops; it can leave the
// kernel graph only after a tensor.expand_shape restores the unit dim (as
// torch-mlir emits it), otherwise the reduction is cut and its input leaves
// instead.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct Structured {
  MlirOperation op;
  uint32_t nin;   // inputs; one output follows
  uint32_t loops; // iteration space rank
  int64_t sizes[MG_LIFT_MAX_RANK];
  int8_t phi[MG_LIFT_MAX_RANK + 1]
            [MG_LIFT_MAX_RANK];        // per operand: dim -> loop
  uint32_t rank[MG_LIFT_MAX_RANK + 1]; // per operand rank (0: scalar)
  bool reduced[MG_LIFT_MAX_RANK];
  MlirBlock body;
  uint8_t out_dtype;
  MgLiftType out_type;
} Structured;

typedef struct BodyEval {
  MgLiftBuilder *b;
  Structured *s;
  MgPtrMap memo; // body value -> vals[]
  MgLiftVal *vals;
  uint32_t num, cap;
  bool acc_allowed; // may the body read the output's old value?
  int depth;
} BodyEval;

static const char *const named_elementwise[] = {
    "linalg.add",  "linalg.sub",        "linalg.mul",   "linalg.div",
    "linalg.exp",  "linalg.sqrt",       "linalg.rsqrt", "linalg.square",
    "linalg.negf", "linalg.reciprocal", "linalg.max",   "linalg.powf",
    "linalg.log",  "linalg.tanh",       "linalg.erf",   "linalg.min"};

static bool is_named_elementwise(MlirOperation op) {
  for (size_t i = 0; i < sizeof named_elementwise / sizeof *named_elementwise;
       ++i)
    if (mg_bridge_op_is(op, named_elementwise[i]))
      return true;
  return false;
}

static bool operand_rank(MlirValue v, uint32_t *rank, int64_t *dims) {
  MlirType t = mlirValueGetType(v);
  if (!mlirTypeIsAShaped(t)) {
    *rank = 0;
    return true;
  }
  if (!mlirTypeIsARankedTensor(t) || mlirShapedTypeGetRank(t) > MG_LIFT_MAX_RANK)
    return false;
  *rank = (uint32_t)mlirShapedTypeGetRank(t);
  for (uint32_t d = 0; d < *rank; ++d) {
    bool dynamic = mlirShapedTypeIsDynamicDim(t, d);
    mg_lift_dynamic_reads += dynamic; // a `?` reads as the stand-in size
    dims[d] = dynamic ? MG_LIFT_SYM_SIZE : mlirShapedTypeGetDimSize(t, d);
  }
  return true;
}

// Reads one indexing map into phi (dim -> loop; -1 for a constant 0).
static bool read_map(MgLiftBuilder *b, Structured *s, uint32_t k,
                     MlirAffineMap map) {
  if (mlirAffineMapGetNumResults(map) != (intptr_t)s->rank[k])
    return mg_lift_fail(b, s->op, "indexing map %u has the wrong arity", k);
  for (uint32_t j = 0; j < s->rank[k]; ++j) {
    MlirAffineExpr e = mlirAffineMapGetResult(map, j);
    if (mlirAffineExprIsADim(e)) {
      s->phi[k][j] = (int8_t)mlirAffineDimExprGetPosition(e);
    } else if (mlirAffineExprIsAConstant(e) &&
               mlirAffineConstantExprGetValue(e) == 0) {
      s->phi[k][j] = -1;
    } else {
      return mg_lift_fail(b, s->op,
                          "indexing map %u uses an expression other "
                          "than a loop or 0",
                          k);
    }
  }
  return true;
}

static bool read_structure(MgLiftBuilder *b, MlirOperation op, Structured *s) {
  memset(s, 0, sizeof *s);
  s->op = op;
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirAttribute seg = mg_lift_attr(op, "operandSegmentSizes");
  if (!mlirAttributeIsNull(seg) && mlirAttributeIsADenseI32Array(seg) &&
      mlirDenseArrayGetNumElements(seg) == 2) {
    s->nin = (uint32_t)mlirDenseI32ArrayGetElement(seg, 0);
    if (mlirDenseI32ArrayGetElement(seg, 1) != 1)
      return mg_lift_fail(b, op, "only single-output linalg ops lift");
  } else if (mg_bridge_op_is(op, "linalg.reduce") && n == 2) {
    s->nin = 1;
  } else {
    return mg_lift_fail(b, op, "unexpected operand layout");
  }
  if ((intptr_t)s->nin + 1 != n || s->nin > MG_LIFT_MAX_RANK)
    return mg_lift_fail(b, op, "unexpected operand count");
  int64_t dims[MG_LIFT_MAX_RANK + 1][MG_LIFT_MAX_RANK];
  for (uint32_t k = 0; k <= s->nin; ++k)
    if (!operand_rank(mlirOperationGetOperand(op, k), &s->rank[k], dims[k]))
      return mg_lift_fail(b, op, "operand %u is not a supported tensor", k);
  if (!mg_lift_result_type(op, 0, &s->out_type))
    return mg_lift_fail(b, op, "unsupported result type");
  s->out_dtype = s->out_type.dtype;
  uint32_t out_rank = s->rank[s->nin];
  MlirAttribute maps = mg_lift_attr(op, "indexing_maps");
  if (!mlirAttributeIsNull(maps) && mlirAttributeIsAArray(maps) &&
      mlirArrayAttrGetNumElements(maps) == (intptr_t)s->nin + 1) {
    MlirAffineMap m0 =
        mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 0));
    s->loops = (uint32_t)mlirAffineMapGetNumDims(m0);
    if (s->loops > MG_LIFT_MAX_RANK)
      return mg_lift_fail(b, op, "more than 8 loops");
    for (uint32_t k = 0; k <= s->nin; ++k) {
      MlirAttribute a = mlirArrayAttrGetElement(maps, k);
      if (!mlirAttributeIsAAffineMap(a) ||
          !read_map(b, s, k, mlirAffineMapAttrGetValue(a)))
        return mg_lift_fail(b, op, "unreadable indexing map");
    }
  } else if (mg_bridge_op_is(op, "linalg.reduce")) {
    MlirAttribute d = mg_lift_attr(op, "dimensions");
    if (mlirAttributeIsNull(d) || !mlirAttributeIsADenseI64Array(d))
      return mg_lift_fail(b, op, "missing 'dimensions'");
    s->loops = s->rank[0];
    bool red[MG_LIFT_MAX_RANK] = {false};
    for (intptr_t i = 0; i < mlirDenseArrayGetNumElements(d); ++i) {
      int64_t x = mlirDenseI64ArrayGetElement(d, i);
      if (x < 0 || x >= s->loops)
        return mg_lift_fail(b, op, "reduced dim out of range");
      red[x] = true;
    }
    uint32_t j = 0;
    for (uint32_t i = 0; i < s->loops; ++i) {
      s->phi[0][i] = (int8_t)i;
      if (!red[i])
        s->phi[1][j++] = (int8_t)i;
    }
    if (j != out_rank)
      return mg_lift_fail(b, op, "reduction output rank mismatch");
  } else if (is_named_elementwise(op)) {
    s->loops = out_rank;
    for (uint32_t k = 0; k <= s->nin; ++k) {
      if (s->rank[k] != out_rank)
        return mg_lift_fail(b, op, "operand %u does not have the result's rank",
                            k);
      for (uint32_t j = 0; j < out_rank; ++j)
        s->phi[k][j] = (int8_t)j;
    }
  } else {
    return mg_lift_fail(b, op, "no indexing maps");
  }
  // Loop sizes from the operands; loops absent from the output are reduced.
  for (uint32_t i = 0; i < s->loops; ++i)
    s->sizes[i] = -1;
  for (uint32_t k = 0; k <= s->nin; ++k)
    for (uint32_t j = 0; j < s->rank[k]; ++j) {
      int p = s->phi[k][j];
      if (p >= (int)s->loops)
        return mg_lift_fail(b, op, "indexing map names loop %d of %u", p,
                            s->loops);
      if (p >= 0)
        s->sizes[p] = dims[k][j];
    }
  for (uint32_t i = 0; i < s->loops; ++i) {
    if (s->sizes[i] < 1)
      return mg_lift_fail(b, op, "loop %u has no static size", i);
    s->reduced[i] = true;
  }
  for (uint32_t j = 0; j < out_rank; ++j)
    if (s->phi[s->nin][j] >= 0)
      s->reduced[(int)s->phi[s->nin][j]] = false;
  if (mlirOperationGetNumRegions(op) < 1 ||
      mlirBlockIsNull(
          s->body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
    return mg_lift_fail(b, op, "no body");
  if (mlirBlockGetNumArguments(s->body) != (intptr_t)s->nin + 1)
    return mg_lift_fail(b, op, "unexpected body arguments");
  return true;
}

// Image of operand k in the loop frame.
static bool operand_in_frame(MgLiftBuilder *b, Structured *s, uint32_t k,
                             MgLiftVal *out) {
  MgLiftVal x;
  if (!mg_lift_get(b, mlirOperationGetOperand(s->op, k), &x))
    return false;
  if (s->rank[k] == 0) { // a scalar operand: a splat over the frame
    if (x.kind != MG_LIFT_SCALAR)
      return mg_lift_fail(b, s->op, "a scalar operand is not a constant");
    x.rank = (uint8_t)s->loops;
    memcpy(x.dims, s->sizes, s->loops * sizeof *s->sizes);
    for (uint32_t i = 0; i < MG_LIFT_MAX_RANK; ++i)
      x.map[i] = -1;
    *out = x;
    return true;
  }
  return mg_lift_frame_in(b, &x, s->loops, s->sizes, s->phi[k], out);
}

//===--- Body expressions -------------------------------------------------===//

static int arg_index(const Structured *s, MlirValue v) {
  if (!mlirValueIsABlockArgument(v) ||
      !mlirBlockEqual(mlirBlockArgumentGetOwner(v), s->body))
    return -1;
  return (int)mlirBlockArgumentGetArgNumber(v);
}

static bool eval(BodyEval *e, MlirValue v, MgLiftVal *out);

static bool remember(BodyEval *e, MlirValue v, const MgLiftVal *val) {
  if (!mg_array_reserve(&e->vals, &e->cap, e->num + 1, sizeof *e->vals, 16))
    return mg_lift_fail(e->b, e->s->op, "out of memory");
  e->vals[e->num] = *val;
  if (!mg_ptrmap_put(&e->memo, v.ptr, e->num))
    return mg_lift_fail(e->b, e->s->op, "out of memory");
  e->num++;
  return true;
}

static void scalar_val(const BodyEval *e, double v, uint8_t dtype,
                       MgLiftVal *out) {
  memset(out, 0, sizeof *out);
  out->kind = MG_LIFT_SCALAR;
  out->dtype = dtype;
  out->scalar = mg_lift_round(v, dtype);
  out->t = MG_NO_ID;
  out->rank = (uint8_t)e->s->loops;
  memcpy(out->dims, e->s->sizes, e->s->loops * sizeof *e->s->sizes);
  for (uint32_t i = 0; i < MG_LIFT_MAX_RANK; ++i)
    out->map[i] = -1;
}

/// math.fpowi x, n (torch-mlir's x.pow(2)): a pow with the constant n.
static bool eval_fpowi(BodyEval *e, MlirOperation op, uint8_t dtype,
                       MgLiftVal *out) {
  MlirOperation c = mg_lift_def_op(mlirOperationGetOperand(op, 1));
  MlirAttribute a = mlirOperationIsNull(c) ||
                            !mg_bridge_op_is(c, "arith.constant")
                        ? (MlirAttribute){NULL}
                        : mg_lift_attr(c, "value");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return mg_lift_fail(e->b, e->s->op,
                        "math.fpowi lifts only with a constant exponent");
  MgLiftVal x, y;
  if (!eval(e, mlirOperationGetOperand(op, 0), &x))
    return false;
  scalar_val(e, (double)mlirIntegerAttrGetValueInt(a), dtype, &y);
  return mg_lift_alg_binary(e->b, MG_LIFT_ALG_POW, &x, &y, dtype, out);
}

// select(cmpf(p, a, c), a, c) and select(cmpf(p, a, c), c, a) pick the
// smaller or the larger of a and c: min or max, so max_scalar/min_scalar
// with a constant (torch-mlir's clamp, hardtanh and relu6: `cmpf ult x,
// lo; select lo else x`, then `cmpf ugt r, hi; select hi else r`). For a
// NaN x the unordered predicates pick the bound where the μGraph's max and
// min propagate NaN (as PyTorch's clamp does): they differ on NaN inputs
// only (docs/lift.md). 1 done, 0 failed (recorded), -1 no such select.
static int compare_select(BodyEval *e, MlirOperation op, uint8_t dtype,
                          MgLiftVal *out) {
  enum { OGT = 2, OGE = 3, OLT = 4, OLE = 5, UGT = 9, UGE = 10, ULT = 11,
         ULE = 12 }; // arith::CmpFPredicate
  MlirOperation cmp = mg_lift_def_op(mlirOperationGetOperand(op, 0));
  if (mlirOperationIsNull(cmp) || !mg_bridge_op_is(cmp, "arith.cmpf") ||
      !mlirBlockEqual(mlirOperationGetBlock(cmp), e->s->body))
    return -1;
  MlirAttribute pa = mg_lift_attr(cmp, "predicate");
  if (mlirAttributeIsNull(pa) || !mlirAttributeIsAInteger(pa))
    return -1;
  int64_t p = mlirIntegerAttrGetValueInt(pa);
  bool less = p == OLT || p == OLE || p == ULT || p == ULE;
  bool greater = p == OGT || p == OGE || p == UGT || p == UGE;
  MlirValue a = mlirOperationGetOperand(cmp, 0),
            c = mlirOperationGetOperand(cmp, 1),
            t = mlirOperationGetOperand(op, 1),
            f = mlirOperationGetOperand(op, 2);
  bool same = mlirValueEqual(t, a) && mlirValueEqual(f, c);
  bool swapped = mlirValueEqual(t, c) && mlirValueEqual(f, a);
  if ((!less && !greater) || (!same && !swapped))
    return -1;
  MgLiftVal x, y;
  bool min = less == same;
  return eval(e, a, &x) && eval(e, c, &y) &&
         mg_lift_alg_binary(e->b, min ? MG_LIFT_ALG_MIN : MG_LIFT_ALG_MAX,
                            &x, &y, dtype, out);
}

/// arith.select: a min or max (compare_select), else one on the generic's
/// i1 mask input with a constant fill: v + A,
/// A the additive mask (0 where v is kept, the fill elsewhere), a kernel
/// input keyed by the generic's result, of the mask operand's shape, read
/// through its indexing map (mask_linalg.c).
static bool eval_select(BodyEval *e, MlirOperation op, uint8_t dtype,
                        MgLiftVal *out) {
  MgLiftBuilder *b = e->b;
  Structured *s = e->s;
  int picked = compare_select(e, op, dtype, out);
  if (picked >= 0)
    return picked;
  int k;
  if (!mlirOperationEqual(mg_lift_generic_select(s->op, &k), op))
    return mg_lift_fail(b, s->op,
                        "arith.select lifts only on an i1 mask that is an "
                        "input of the linalg.generic, read by that select "
                        "alone");
  if (mg_lift_is_boundary(s->op))
    return mg_lift_fail(b, s->op,
                        "it computes the additive mask of a select "
                        "lifted before");
  MlirValue mask = mlirOperationGetOperand(s->op, k);
  const char *why = mg_lift_mask_why(mask);
  if (why)
    return mg_lift_fail(b, s->op, "%s", why);
  int fill = mg_lift_select_fill(s->op);
  double f = 0;
  if (fill < 0 || !mg_lift_get_scalar(mlirOperationGetOperand(op, fill), &f))
    return mg_lift_fail(b, s->op,
                        "arith.select lifts only on an i1 mask with a "
                        "constant on one side");
  if (!(f <= MG_LIFT_MASK_FILL)) // -inf included
    return mg_lift_fail(b, s->op,
                        "a masked select lifts only with a -inf or large "
                        "negative fill (got %g)",
                        f);
  if (dtype != s->out_dtype)
    return mg_lift_fail(b, s->op,
                        "the masked select computes in another type than "
                        "the generic's result");
  if (s->rank[k] < 1 || s->rank[k] > MG_MAX_DIMS)
    return mg_lift_fail(b, s->op, "the mask has rank %u (1 to %d lift)",
                        s->rank[k], MG_MAX_DIMS);
  int64_t dims[MG_MAX_DIMS];
  for (uint32_t d = 0; d < s->rank[k]; ++d)
    dims[d] = mlirShapedTypeGetDimSize(mlirValueGetType(mask), d);
  MgTensorId t = mg_lift_input_shaped(b, mlirOperationGetResult(s->op, 0),
                                      s->rank[k], dims, NULL);
  if (t == MG_NO_ID)
    return false;
  MgLiftVal a, fa, x;
  mg_lift_val_exact(b, t, dtype, s->op, &a);
  return mg_lift_frame_in(b, &a, s->loops, s->sizes, s->phi[k], &fa) &&
         eval(e, mlirOperationGetOperand(op, 3 - fill), &x) &&
         mg_lift_alg_binary(b, MG_LIFT_ALG_ADD, &x, &fa, dtype, out);
}

static bool eval_op(BodyEval *e, MlirOperation op, MgLiftVal *out) {
  MgLiftBuilder *b = e->b;
  char name[64];
  mg_bridge_op_name(op, name, sizeof name);
  uint8_t dtype = e->s->out_dtype;
  if (mlirOperationGetNumResults(op) == 1 &&
      !mg_lift_float_dtype(mlirValueGetType(mlirOperationGetResult(op, 0)),
                           &dtype))
    return mg_lift_fail(b, e->s->op, "body op '%s' is not on f16/bf16/f32",
                        name);
  if (mg_bridge_op_is(op, "arith.constant")) {
    MlirAttribute a = mg_lift_attr(op, "value");
    if (mlirAttributeIsNull(a) || !mlirAttributeIsAFloat(a))
      return mg_lift_fail(b, e->s->op, "non-float constant in the body");
    scalar_val(e, mlirFloatAttrGetValueDouble(a), dtype, out);
    return true;
  }
  if (mg_bridge_op_is(op, "math.fpowi"))
    return eval_fpowi(e, op, dtype, out);
  if (mg_bridge_op_is(op, "arith.select"))
    return eval_select(e, op, dtype, out);
  static const struct {
    const char *name;
    MgLiftAlg alg;
    int arity;
  } table[] = {
      {"arith.addf", MG_LIFT_ALG_ADD, 2},
      {"arith.subf", MG_LIFT_ALG_SUB, 2},
      {"arith.mulf", MG_LIFT_ALG_MUL, 2},
      {"arith.divf", MG_LIFT_ALG_DIV, 2},
      {"arith.maximumf", MG_LIFT_ALG_MAX, 2},
      {"arith.maxnumf", MG_LIFT_ALG_MAX, 2},
      {"arith.minimumf", MG_LIFT_ALG_MIN, 2},
      {"arith.minnumf", MG_LIFT_ALG_MIN, 2},
      {"math.powf", MG_LIFT_ALG_POW, 2},
      {"arith.negf", MG_LIFT_ALG_NEG, 1},
      {"math.exp", MG_LIFT_ALG_EXP, 1},
      {"math.sqrt", MG_LIFT_ALG_SQRT, 1},
      {"math.rsqrt", MG_LIFT_ALG_RSQRT, 1},
      {"math.log", MG_LIFT_ALG_LOG, 1},
      {"math.tanh", MG_LIFT_ALG_TANH, 1},
      {"math.erf", MG_LIFT_ALG_ERF, 1},
      {"arith.extf", MG_LIFT_ALG_CAST, 1},
      {"arith.truncf", MG_LIFT_ALG_CAST, 1},
  };
  for (size_t i = 0; i < sizeof table / sizeof *table; ++i) {
    if (!mg_bridge_op_is(op, table[i].name))
      continue;
    if (mlirOperationGetNumOperands(op) != table[i].arity)
      break;
    MgLiftVal x, y;
    if (!eval(e, mlirOperationGetOperand(op, 0), &x))
      return false;
    if (table[i].alg == MG_LIFT_ALG_CAST) {
      *out = x;
      out->dtype = dtype;
      if (out->kind == MG_LIFT_SCALAR)
        out->scalar = mg_lift_round(out->scalar, dtype);
      return true;
    }
    if (table[i].arity == 1)
      return mg_lift_alg_unary(b, table[i].alg, &x, dtype, out);
    if (!eval(e, mlirOperationGetOperand(op, 1), &y))
      return false;
    return mg_lift_alg_binary(b, table[i].alg, &x, &y, dtype, out);
  }
  return mg_lift_fail(b, e->s->op, "body op '%s' does not lift", name);
}

static bool eval(BodyEval *e, MlirValue v, MgLiftVal *out) {
  uint32_t k = mg_ptrmap_get(&e->memo, v.ptr);
  if (k != UINT32_MAX) {
    *out = e->vals[k];
    return true;
  }
  if (++e->depth > 256)
    return mg_lift_fail(e->b, e->s->op, "body too deep");
  bool ok;
  int arg = arg_index(e->s, v);
  if (arg >= 0) {
    if ((uint32_t)arg == e->s->nin && !e->acc_allowed)
      ok = mg_lift_fail(e->b, e->s->op,
                        "the reduced expression reads the "
                        "accumulator");
    else if ((uint32_t)arg == e->s->nin &&
             mg_lift_is_empty(mlirOperationGetOperand(e->s->op, e->s->nin)))
      ok = mg_lift_fail(e->b, e->s->op,
                        "the body reads an output that is "
                        "tensor.empty (undefined)");
    else
      ok = operand_in_frame(e->b, e->s, (uint32_t)arg, out);
  } else {
    MlirOperation def = mg_lift_def_op(v);
    double c;
    if (!mlirOperationIsNull(def) &&
        mlirBlockEqual(mlirOperationGetBlock(def), e->s->body)) {
      ok = eval_op(e, def, out);
    } else if (mg_lift_get_scalar(v, &c)) { // a constant from outside the body
      memset(out, 0, sizeof *out);
      out->kind = MG_LIFT_SCALAR;
      out->scalar = c;
      out->t = MG_NO_ID;
      mg_lift_float_dtype(mlirValueGetType(v), &out->dtype);
      out->rank = (uint8_t)e->s->loops;
      memcpy(out->dims, e->s->sizes, e->s->loops * sizeof *e->s->sizes);
      for (uint32_t i = 0; i < MG_LIFT_MAX_RANK; ++i)
        out->map[i] = -1;
      ok = true;
    } else {
      ok = mg_lift_fail(e->b, e->s->op,
                        "the body uses a value from outside that is not a "
                        "constant");
    }
  }
  e->depth--;
  return ok && remember(e, v, out);
}

static MlirValue yielded(const Structured *s) {
  MlirOperation last = mlirBlockGetTerminator(s->body);
  if (mlirOperationIsNull(last) || !mg_bridge_op_is(last, "linalg.yield") ||
      mlirOperationGetNumOperands(last) != 1)
    return (MlirValue){NULL};
  return mlirOperationGetOperand(last, 0);
}

// Strips arith.extf/truncf inside the body.
static MlirValue strip_casts(const Structured *s, MlirValue v) {
  for (int i = 0; i < 8; ++i) {
    MlirOperation def = mg_lift_def_op(v);
    if (mlirOperationIsNull(def) ||
        !mlirBlockEqual(mlirOperationGetBlock(def), s->body) ||
        !(mg_bridge_op_is(def, "arith.extf") ||
          mg_bridge_op_is(def, "arith.truncf")))
      return v;
    v = mlirOperationGetOperand(def, 0);
  }
  return v;
}

// yield = <combine>(E, acc) or <combine>(acc, E) with `combine` one of
// the NULL-terminated names: writes E.
static bool accumulates(const Structured *s, MlirValue y,
                        const char *const *combine, MlirValue *expr) {
  MlirOperation op = mg_lift_def_op(y);
  if (mlirOperationIsNull(op) || mlirOperationGetNumOperands(op) != 2 ||
      !mlirBlockEqual(mlirOperationGetBlock(op), s->body))
    return false;
  bool named = false;
  for (const char *const *c = combine; *c && !named; ++c)
    named = mg_bridge_op_is(op, *c);
  if (!named)
    return false;
  for (int i = 0; i < 2; ++i)
    if (arg_index(s, mlirOperationGetOperand(op, i)) == (int)s->nin) {
      *expr = mlirOperationGetOperand(op, 1 - i);
      return true;
    }
  return false;
}

// yield = addf(E, acc) or addf(acc, E): writes E.
static bool additive(const Structured *s, MlirValue y, MlirValue *expr) {
  static const char *const add[] = {"arith.addf", NULL};
  return accumulates(s, y, add, expr);
}

// yield = maximumf / maxnumf (E, acc): a max reduction. maxnumf ignores
// NaN where ug.reduce_max propagates it: they differ only on NaN inputs.
static bool maximal(const Structured *s, MlirValue y, MlirValue *expr) {
  static const char *const max[] = {"arith.maximumf", "arith.maxnumf", NULL};
  return accumulates(s, y, max, expr);
}

// A max accumulator's start that changes no maximum: -inf, or (torch's
// max.dim, some importers) the lowest finite value, which differs from
// -inf only when a whole reduced row is -inf.
static bool absorbs_max(MlirValue init, uint8_t dtype) {
  double z;
  return mg_lift_get_scalar(init, &z) && z <= -mg_lift_max_finite(dtype);
}

// E = mulf(a, b) with a, b two distinct inputs (through casts): the input
// indices in order of appearance.
static bool contraction(const Structured *s, MlirValue expr, int *ia, int *ib) {
  MlirOperation mul = mg_lift_def_op(strip_casts(s, expr));
  if (s->nin != 2 || mlirOperationIsNull(mul) ||
      !mg_bridge_op_is(mul, "arith.mulf"))
    return false;
  *ia = arg_index(s, strip_casts(s, mlirOperationGetOperand(mul, 0)));
  *ib = arg_index(s, strip_casts(s, mlirOperationGetOperand(mul, 1)));
  return *ia >= 0 && *ib >= 0 && *ia != *ib && *ia < 2 && *ib < 2;
}

static bool uses_loop(const Structured *s, uint32_t k, uint32_t loop) {
  for (uint32_t j = 0; j < s->rank[k]; ++j)
    if (s->phi[k][j] == (int)loop)
      return true;
  return false;
}

// Where loop `loop` is among operand k's dims, or -1.
static int dim_of_loop(const Structured *s, uint32_t k, uint32_t loop) {
  for (uint32_t j = 0; j < s->rank[k]; ++j)
    if (s->phi[k][j] == (int)loop)
      return (int)j;
  return -1;
}

// A contraction with several M loops and no batch (JAX's and torch's
// x @ W with x of rank 3: (b, s, k) x (k, n) -> (b, s, n)): when the M
// loops are consecutive, in one order, in A and in the output, A is a
// view (Mprod, k) or (k, Mprod), the matmul is 2-D, and its result a view
// back to the M dims: reshapes of row-major data, no copy.
static bool contract_rows(MgLiftBuilder *b, Structured *s, int ia, int ib,
                          const uint8_t *roles, MgLiftVal *out) {
  uint32_t A = (uint32_t)ia, B = (uint32_t)ib, O = s->nin;
  uint32_t ms[MG_LIFT_MAX_RANK], nm = 0, n = 0, k = 0;
  for (uint32_t i = 0; i < s->loops; ++i) {
    if (roles[i] == MG_LIFT_DIM_N)
      n = i;
    else if (roles[i] == MG_LIFT_DIM_K)
      k = i;
  }
  // The M loops in A's dim order; they must be consecutive there and in
  // the output, in the same order, and B must be (k, n) or (n, k).
  int first_a = -1, first_o = -1;
  for (uint32_t j = 0; j < s->rank[A]; ++j) {
    int l = s->phi[A][j];
    if (l >= 0 && roles[l] == MG_LIFT_DIM_M) {
      if (first_a < 0)
        first_a = (int)j;
      ms[nm++] = (uint32_t)l;
    }
  }
  bool ok = nm >= 2 && s->rank[A] == nm + 1 && s->rank[B] == 2 &&
            s->rank[O] == nm + 1;
  if (ok)
    first_o = dim_of_loop(s, O, ms[0]);
  int64_t rows = 1;
  for (uint32_t i = 0; ok && i < nm; ++i) {
    ok = dim_of_loop(s, A, ms[i]) == first_a + (int)i &&
         dim_of_loop(s, O, ms[i]) == first_o + (int)i;
    rows *= s->sizes[ms[i]];
  }
  if (!ok || first_o != 0 || dim_of_loop(s, O, n) != (int)nm)
    return mg_lift_fail(b, s->op, "the contraction is not a (batched) matmul");
  MgLiftVal a, c, fa, fc, m, r2, r3;
  if (!mg_lift_get(b, mlirOperationGetOperand(s->op, (intptr_t)A), &a) ||
      !mg_lift_get(b, mlirOperationGetOperand(s->op, (intptr_t)B), &c))
    return false;
  bool k_first = first_a == 1;
  int64_t adims[2] = {k_first ? s->sizes[k] : rows,
                      k_first ? rows : s->sizes[k]};
  // Frame (m, n, k) of the 2-D matmul.
  int64_t fdims[3] = {rows, s->sizes[n], s->sizes[k]};
  int8_t phi_a[2] = {k_first ? 2 : 0, k_first ? 0 : 2};
  int8_t phi_c[2] = {(int8_t)(s->phi[B][0] == (int)k ? 2 : 1),
                     (int8_t)(s->phi[B][0] == (int)k ? 1 : 2)};
  const uint8_t roles2[3] = {MG_LIFT_DIM_M, MG_LIFT_DIM_N, MG_LIFT_DIM_K};
  const int8_t psi2[2] = {0, 1};
  int64_t odims2[2] = {rows, s->sizes[n]}, odims[MG_LIFT_MAX_RANK];
  int8_t phi_o[MG_LIFT_MAX_RANK];
  for (uint32_t i = 0; i < nm; ++i) {
    odims[i] = s->sizes[ms[i]];
    phi_o[i] = (int8_t)ms[i];
  }
  odims[nm] = s->sizes[n];
  phi_o[nm] = (int8_t)n;
  return mg_lift_view_reshape(b, &a, 2, adims, &a) &&
         mg_lift_frame_in(b, &a, 3, fdims, phi_a, &fa) &&
         mg_lift_frame_in(b, &c, 3, fdims, phi_c, &fc) &&
         mg_lift_alg_contract(b, &fa, &fc, roles2, s->out_dtype, &m) &&
         mg_lift_frame_out(b, &m, 2, odims2, psi2, &r2) &&
         mg_lift_view_reshape(b, &r2, nm + 1, odims, &r3) &&
         mg_lift_frame_in(b, &r3, s->loops, s->sizes, phi_o, out);
}

static bool contract(MgLiftBuilder *b, Structured *s, int ia, int ib,
                     MgLiftVal *out) {
  uint8_t roles[MG_LIFT_MAX_RANK];
  int count[4] = {0, 0, 0, 0};
  for (uint32_t i = 0; i < s->loops; ++i) {
    bool a = uses_loop(s, (uint32_t)ia, i), c = uses_loop(s, (uint32_t)ib, i);
    bool o = !s->reduced[i];
    if (a && c && o)
      roles[i] = MG_LIFT_DIM_BATCH;
    else if (a && !c && o)
      roles[i] = MG_LIFT_DIM_M;
    else if (!a && c && o)
      roles[i] = MG_LIFT_DIM_N;
    else if (a && c && !o)
      roles[i] = MG_LIFT_DIM_K;
    else
      return mg_lift_fail(b, s->op, "loop %u is not a matmul dim", i);
    count[roles[i]]++;
  }
  if (count[MG_LIFT_DIM_M] > 1 && count[MG_LIFT_DIM_BATCH] == 0 &&
      count[MG_LIFT_DIM_N] == 1 && count[MG_LIFT_DIM_K] == 1)
    return contract_rows(b, s, ia, ib, roles, out);
  if (count[MG_LIFT_DIM_M] != 1 || count[MG_LIFT_DIM_N] != 1 ||
      count[MG_LIFT_DIM_K] != 1)
    return mg_lift_fail(b, s->op, "the contraction is not a (batched) matmul");
  MgLiftVal x, y;
  return operand_in_frame(b, s, (uint32_t)ia, &x) &&
         operand_in_frame(b, s, (uint32_t)ib, &y) &&
         mg_lift_alg_contract(b, &x, &y, roles, s->out_dtype, out);
}

static bool any_reduced(const Structured *s) {
  for (uint32_t i = 0; i < s->loops; ++i)
    if (s->reduced[i])
      return true;
  return false;
}

static bool structured(MgLiftBuilder *b, MlirOperation op) {
  Structured s;
  if (!read_structure(b, op, &s))
    return false;
  MlirValue y = yielded(&s);
  if (mlirValueIsNull(y))
    return mg_lift_fail(b, op, "the body must yield one value");
  BodyEval e = {b, &s, {0}, NULL, 0, 0, !any_reduced(&s), 0};
  mg_ptrmap_init(&e.memo);
  MgLiftVal r, res;
  bool ok;
  if (!any_reduced(&s)) {
    ok = eval(&e, y, &r);
  } else {
    MlirValue expr;
    int ia, ib;
    MlirValue init = mlirOperationGetOperand(op, s.nin);
    double z;
    bool max = false, absorbed = false;
    MgLiftVal x;
    if (additive(&s, y, &expr)) {
      absorbed = mg_lift_get_scalar(init, &z) && z == 0.0;
      if (contraction(&s, expr, &ia, &ib))
        ok = contract(b, &s, ia, ib, &r);
      else
        ok = eval(&e, expr, &x) &&
             mg_lift_alg_reduce(b, &x, s.reduced, s.out_dtype, &r);
    } else if (maximal(&s, y, &expr)) {
      max = true;
      absorbed = absorbs_max(init, s.out_dtype);
      ok = eval(&e, expr, &x) &&
           mg_lift_alg_reduce_max(b, &x, s.reduced, s.out_dtype, &r);
    } else {
      ok = mg_lift_fail(b, op,
                        "the reduction is neither a sum nor a maximum (the "
                        "μGraph reduces with sum and reduce_max only)");
    }
    if (ok && !absorbed) { // the accumulator's start takes part
      MgLiftVal acc;
      if (mg_lift_is_empty(init))
        ok = mg_lift_fail(b, op,
                          "the accumulator starts from tensor.empty "
                          "(undefined values)");
      else
        ok = operand_in_frame(b, &s, s.nin, &acc) &&
             mg_lift_alg_binary(b, max ? MG_LIFT_ALG_MAX : MG_LIFT_ALG_ADD,
                                &acc, &r, s.out_dtype, &r);
    }
  }
  ok = ok &&
       mg_lift_frame_out(b, &r, s.out_type.rank, s.out_type.dims, s.phi[s.nin],
                         &res) &&
       mg_lift_set_result(b, op, &res);
  mg_ptrmap_free(&e.memo);
  free(e.vals);
  return ok;
}

bool mg_lift_translate_linalg(MgLiftBuilder *b, MlirOperation op) {
  MgLiftType rt;
  if (!mg_lift_result_type(op, 0, &rt))
    return mg_lift_fail(b, op, "unsupported result type");
  if (mg_bridge_op_is(op, "linalg.transpose") ||
      mg_bridge_op_is(op, "linalg.copy")) {
    MgLiftVal x, r;
    if (!mg_lift_get(b, mg_lift_view_source(op), &x))
      return false;
    if (mg_bridge_op_is(op, "linalg.transpose")) {
      if (!mg_lift_view_permute(b, op, "permutation", true, &x, &r))
        return false;
    } else {
      r = x;
    }
    r.dtype = rt.dtype;
    return mg_lift_set_result(b, op, &r);
  }
  int bias = mg_lift_translate_conv_init(b, op); // torch-mlir's conv bias
  if (bias >= 0)
    return bias == 1;
  return structured(b, op);
}
