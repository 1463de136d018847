//===- tosa.c - Translating TOSA ops (MLIR 22 TOSA 1.0 forms) -------------===//
//
// TOSA broadcasting is explicit-rank: operands have the result's rank and
// broadcast along size-1 dims, which is exactly the μGraph rule when the
// operands' images are exact. Operand forms of MLIR 22: tosa.mul carries an
// i8 `shift` (zero for floats), tosa.matmul and tosa.negate carry zero-point
// operands (zero for floats), tosa.reshape takes a !tosa.shape operand,
// tosa.reduce_sum and reduce_max keep the reduced dim with size 1 (as ug.sum
// and ug.reduce_max do).
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <string.h>

static void identity_phi(int8_t *phi, uint32_t rank) {
  for (uint32_t i = 0; i < rank; ++i)
    phi[i] = (int8_t)i;
}

// A splat integer constant equal to zero (the shift of tosa.mul).
static bool is_int_zero(MlirValue v) {
  MlirOperation def = mg_lift_def_op(v);
  if (mlirOperationIsNull(def) || !mg_bridge_op_is(def, "tosa.const"))
    return false;
  MlirAttribute a = mg_lift_attr(def, "values");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseElements(a) ||
      !mlirDenseElementsAttrIsSplat(a))
    return false;
  MlirAttribute s = mlirDenseElementsAttrGetSplatValue(a);
  return mlirAttributeIsAInteger(s) && mlirIntegerAttrGetValueInt(s) == 0;
}

static bool float_zero(MlirValue v) {
  double s;
  return mg_lift_get_scalar(v, &s) && s == 0.0;
}

static bool check_zero_points(MgLiftBuilder *b, MlirOperation op,
                              intptr_t from) {
  for (intptr_t i = from; i < mlirOperationGetNumOperands(op); ++i)
    if (!float_zero(mlirOperationGetOperand(op, i)))
      return mg_lift_fail(b, op, "zero point operand %d is not a zero constant",
                          (int)i);
  return true;
}

// Operand `i` re-expressed in the result's frame (TOSA broadcasting).
static bool operand_in(MgLiftBuilder *b, MlirOperation op, intptr_t i,
                       const MgLiftType *rt, MgLiftVal *out) {
  MgLiftVal x;
  int8_t phi[MG_LIFT_MAX_RANK];
  if (!mg_lift_get(b, mlirOperationGetOperand(op, i), &x))
    return false;
  if (x.rank != rt->rank)
    return mg_lift_fail(b, op, "operand %d has rank %u, result rank %u", (int)i,
                        x.rank, rt->rank);
  identity_phi(phi, rt->rank);
  return mg_lift_frame_in(b, &x, rt->rank, rt->dims, phi, out);
}

static bool binary(MgLiftBuilder *b, MlirOperation op, MgLiftAlg alg,
                   const MgLiftType *rt) {
  MgLiftVal x, y, r;
  if (!operand_in(b, op, 0, rt, &x) || !operand_in(b, op, 1, rt, &y) ||
      !mg_lift_alg_binary(b, alg, &x, &y, rt->dtype, &r))
    return false;
  return mg_lift_set_result(b, op, &r);
}

static bool unary(MgLiftBuilder *b, MlirOperation op, MgLiftAlg alg,
                  const MgLiftType *rt) {
  MgLiftVal x, r;
  if (!operand_in(b, op, 0, rt, &x) ||
      !mg_lift_alg_unary(b, alg, &x, rt->dtype, &r))
    return false;
  return mg_lift_set_result(b, op, &r);
}

// tosa.clamp (float, classify.c): max with min_val, then min with max_val
// (ReLU6, hardtanh, hardswish's inner clamp): ug.max_scalar and
// ug.min_scalar, min_val 0 as relu (behind lift-relu). A bound at the
// type's lowest or largest finite value bounds nothing and is left out, so
// [lowest, largest] is the identity. NaN wins, as nan_mode "PROPAGATE"
// (the default); "IGNORE" differs only where the input holds NaN.
static bool clamp(MgLiftBuilder *b, MlirOperation op, const MgLiftType *rt) {
  double lo = mlirFloatAttrGetValueDouble(mg_lift_attr(op, "min_val"));
  double hi = mlirFloatAttrGetValueDouble(mg_lift_attr(op, "max_val"));
  double top = mg_lift_max_finite(rt->dtype);
  MgLiftVal x, c, r;
  if (!operand_in(b, op, 0, rt, &x))
    return false;
  if (lo > -top) {
    mg_lift_alg_scalar(&x, lo, rt->dtype, &c);
    if (!mg_lift_alg_binary(b, MG_LIFT_ALG_MAX, &x, &c, rt->dtype, &r))
      return false;
    x = r;
  }
  if (hi < top) {
    mg_lift_alg_scalar(&x, hi, rt->dtype, &c);
    if (!mg_lift_alg_binary(b, MG_LIFT_ALG_MIN, &x, &c, rt->dtype, &r))
      return false;
    x = r;
  }
  return mg_lift_set_result(b, op, &x);
}

// tosa.reduce_sum / reduce_max: the reduced dim stays with size 1, as in
// ug.sum / ug.reduce_max. reduce_max's nan_mode = "IGNORE" differs from
// ug.reduce_max (NaN wins) only where the input holds NaN (docs/lift.md).
static bool reduce(MgLiftBuilder *b, MlirOperation op, const MgLiftType *rt,
                   bool max) {
  MlirAttribute a = mg_lift_attr(op, "axis");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return mg_lift_fail(b, op, "missing 'axis'");
  int64_t axis = mlirIntegerAttrGetValueInt(a);
  MgLiftVal x, s, r;
  if (!mg_lift_get(b, mlirOperationGetOperand(op, 0), &x))
    return false;
  if (axis < 0 || axis >= x.rank)
    return mg_lift_fail(b, op, "axis %lld out of range", (long long)axis);
  bool dims[MG_LIFT_MAX_RANK] = {false};
  dims[axis] = true;
  int8_t psi[MG_LIFT_MAX_RANK];
  identity_phi(psi, rt->rank);
  if (!(max ? mg_lift_alg_reduce_max(b, &x, dims, rt->dtype, &s)
            : mg_lift_alg_reduce(b, &x, dims, rt->dtype, &s)) ||
      !mg_lift_frame_out(b, &s, rt->rank, rt->dims, psi, &r))
    return false;
  return mg_lift_set_result(b, op, &r);
}

// tosa.select on an i1 mask (constant, argument or computed from
// integers) with a splat fill: x + A, A the additive mask (0 where x is
// kept, the fill elsewhere), a kernel input keyed by the select's result
// (mask.c). Exact for a -inf fill; a finite fill must be a large negative
// (x + fill for fill: docs/lift.md).
static bool select_mask(MgLiftBuilder *b, MlirOperation op,
                        const MgLiftType *rt) {
  const char *why = mg_lift_mask_why(mlirOperationGetOperand(op, 0));
  if (why)
    return mg_lift_fail(b, op, "%s", why);
  if (!mlirAttributeIsNull(mg_lift_attr(op, "ug.boundary")))
    return mg_lift_fail(b, op, "it computes the additive mask of a select "
                               "lifted before");
  int fill = mg_lift_select_fill(op);
  double f = 0;
  if (fill < 0 ||
      !mg_lift_get_scalar(mlirOperationGetOperand(op, fill), &f))
    return mg_lift_fail(b, op,
                        "tosa.select lifts only on an i1 mask with a "
                        "splat constant on one side");
  if (!(f <= MG_LIFT_MASK_FILL)) // -inf included
    return mg_lift_fail(b, op,
                        "a masked select lifts only with a -inf or large "
                        "negative fill (got %g)",
                        f);
  MgLiftType ft;
  MlirValue mask = mlirOperationGetOperand(op, 0);
  if (!mg_lift_read_type(mlirValueGetType(mlirOperationGetOperand(op, fill)),
                         &ft, &why) ||
      !mlirTypeIsARankedTensor(mlirValueGetType(mask)) ||
      !mlirShapedTypeHasStaticShape(mlirValueGetType(mask)) ||
      mlirShapedTypeGetRank(mlirValueGetType(mask)) != rt->rank ||
      ft.rank != rt->rank || rt->rank > MG_MAX_DIMS)
    return mg_lift_fail(b, op,
                        "the mask is not a static tensor of the result's "
                        "rank (at most %d)",
                        MG_MAX_DIMS);
  int64_t dims[MG_MAX_DIMS]; // A's: the mask's and the fill's, broadcast
  for (uint32_t d = 0; d < rt->rank; ++d) {
    int64_t m = mlirShapedTypeGetDimSize(mlirValueGetType(mask), d);
    dims[d] = m > ft.dims[d] ? m : ft.dims[d];
  }
  MgTensorId t =
      mg_lift_input_shaped(b, mlirOperationGetResult(op, 0), rt->rank, dims,
                           NULL);
  if (t == MG_NO_ID)
    return false;
  MgLiftVal a, fa, x, r;
  int8_t phi[MG_LIFT_MAX_RANK];
  identity_phi(phi, rt->rank);
  mg_lift_val_exact(b, t, rt->dtype, op, &a);
  if (!mg_lift_frame_in(b, &a, rt->rank, rt->dims, phi, &fa) ||
      !operand_in(b, op, 3 - fill, rt, &x) ||
      !mg_lift_alg_binary(b, MG_LIFT_ALG_ADD, &x, &fa, rt->dtype, &r))
    return false;
  return mg_lift_set_result(b, op, &r);
}

static bool matmul(MgLiftBuilder *b, MlirOperation op, const MgLiftType *rt) {
  MgLiftVal a, c, fa, fc, m, r;
  if (!check_zero_points(b, op, 2) ||
      !mg_lift_get(b, mlirOperationGetOperand(op, 0), &a) ||
      !mg_lift_get(b, mlirOperationGetOperand(op, 1), &c))
    return false;
  if (a.rank != 3 || c.rank != 3 || rt->rank != 3)
    return mg_lift_fail(b, op, "tosa.matmul operands must have rank 3");
  // Loops (batch, m, n, k): A(b,m,k) x B(b,k,n) -> C(b,m,n).
  int64_t fdims[4] = {a.dims[0], a.dims[1], c.dims[2], a.dims[2]};
  const int8_t phi_a[3] = {0, 1, 3}, phi_c[3] = {0, 3, 2}, psi[3] = {0, 1, 2};
  const uint8_t roles[4] = {MG_LIFT_DIM_BATCH, MG_LIFT_DIM_M, MG_LIFT_DIM_N,
                            MG_LIFT_DIM_K};
  if (!mg_lift_frame_in(b, &a, 4, fdims, phi_a, &fa) ||
      !mg_lift_frame_in(b, &c, 4, fdims, phi_c, &fc) ||
      !mg_lift_alg_contract(b, &fa, &fc, roles, rt->dtype, &m) ||
      !mg_lift_frame_out(b, &m, 3, rt->dims, psi, &r))
    return false;
  return mg_lift_set_result(b, op, &r);
}

static bool has_one_use(MlirValue v) {
  MlirOpOperand use = mlirValueGetFirstUse(v);
  return !mlirOpOperandIsNull(use) &&
         mlirOpOperandIsNull(mlirOpOperandGetNextUse(use));
}

// A narrowing cast that is the only reader of an op's wider result (the
// f32 tosa.matmul result cast back to f16, as torch-mlir writes it): the
// op stores the narrow type itself, so the element-wise ops after the cast
// compute in the type the IR writes. One rounding instead of two (to f32,
// then to f16): within the f16 rounding error either way.
// Only an op that may store another type than it reads does so (a binary
// op, matmul or reduction: mg_lift_kind_retypes); after an exp, rsqrt or
// mul_scalar the cast stays a view, as everywhere else. The wide value
// must reach the cast alone: every IR value from the producer to the cast
// (through views of the same tensor) has that one use, and no op of the
// graph reads the tensor yet, so nothing else sees the narrow type.
void mg_lift_narrow_result(MgLiftBuilder *b, MlirOperation cast, MgLiftVal *r,
                           uint8_t dtype) {
  if (r->kind != MG_LIFT_TENSOR ||
      mg_dtype_bytes((MgDType)dtype) >=
          mg_dtype_bytes((MgDType)mg_lift_tensor(b, r->t)->dtype) ||
      !mg_lift_can_retype(b, r->t))
    return;
  MlirValue v = mlirOperationGetOperand(cast, 0);
  for (;;) {
    if (!mlirValueIsAOpResult(v) || !has_one_use(v))
      return;
    MlirOperation def = mlirOpResultGetOwner(v);
    char why[MG_LIFT_WHY_SIZE];
    if (mg_lift_classify(def, b->opts, why, sizeof why) != MG_LIFT_CLASS_VIEW)
      break; // the producer (or an op that returns its operand)
    MlirValue src = mg_lift_view_source(def);
    uint32_t k = mg_ptrmap_get(&b->index, src.ptr);
    if (k == UINT32_MAX || b->vals[k].t != r->t)
      break;
    v = src;
  }
  mg_lift_retype(b, r->t, dtype);
}

static bool view(MgLiftBuilder *b, MlirOperation op, const MgLiftType *rt) {
  MgLiftVal x, r;
  if (!mg_lift_get(b, mg_lift_view_source(op), &x))
    return false;
  if (mg_bridge_op_is(op, "tosa.reshape")) {
    if (!mg_lift_view_reshape(b, &x, rt->rank, rt->dims, &r))
      return false;
  } else if (mg_bridge_op_is(op, "tosa.transpose")) {
    if (!mg_lift_view_permute(b, op, "perms", false, &x, &r))
      return false;
  } else { // cast, identity: same elements, maybe another storage type
    r = x;
    if (r.kind == MG_LIFT_SCALAR)
      r.scalar = mg_lift_round(r.scalar, rt->dtype);
    else
      mg_lift_narrow_result(b, op, &r, rt->dtype);
  }
  r.dtype = rt->dtype;
  return mg_lift_set_result(b, op, &r);
}

// The values of a !tosa.shape operand defined by tosa.const_shape.
static bool const_shape(MlirValue v, uint32_t rank, int64_t *out) {
  MlirOperation def = mg_lift_def_op(v);
  if (mlirOperationIsNull(def) || !mg_bridge_op_is(def, "tosa.const_shape"))
    return false;
  MlirAttribute a = mg_lift_attr(def, "values");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseElements(a) ||
      mlirElementsAttrGetNumElements(a) != (int64_t)rank)
    return false;
  for (uint32_t d = 0; d < rank; ++d)
    out[d] = mlirDenseElementsAttrGetIndexValue(a, d);
  return true;
}

// tosa.slice with constant start: one slice view op per sliced dim.
static bool slice(MgLiftBuilder *b, MlirOperation op, const MgLiftType *rt) {
  MgLiftVal x;
  int64_t start[MG_LIFT_MAX_RANK];
  if (!mg_lift_get(b, mlirOperationGetOperand(op, 0), &x))
    return false;
  if (mlirOperationGetNumOperands(op) < 2 || x.rank != rt->rank ||
      !const_shape(mlirOperationGetOperand(op, 1), x.rank, start))
    return mg_lift_fail(b, op, "tosa.slice needs a constant start");
  for (uint32_t d = 0; d < x.rank; ++d)
    if (rt->dims[d] != x.dims[d] &&
        !mg_lift_view_slice(b, &x, d, start[d], rt->dims[d], &x))
      return false;
  x.dtype = rt->dtype;
  return mg_lift_set_result(b, op, &x);
}

static bool concat(MgLiftBuilder *b, MlirOperation op, const MgLiftType *rt) {
  MlirAttribute a = mg_lift_attr(op, "axis");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return mg_lift_fail(b, op, "tosa.concat needs an integer 'axis'");
  return mg_lift_concat_operands(b, op, (uint32_t)mlirIntegerAttrGetValueInt(a),
                                 rt->dtype);
}

bool mg_lift_translate_tosa(MgLiftBuilder *b, MlirOperation op) {
  MgLiftType rt;
  if (!mg_lift_result_type(op, 0, &rt))
    return mg_lift_fail(b, op, "unsupported result type");
  if (mg_bridge_op_is(op, "tosa.reshape") ||
      mg_bridge_op_is(op, "tosa.transpose") || mg_bridge_op_is(op, "tosa.cast") ||
      mg_bridge_op_is(op, "tosa.identity"))
    return view(b, op, &rt);
  if (mg_bridge_op_is(op, "tosa.slice"))
    return slice(b, op, &rt);
  if (mg_bridge_op_is(op, "tosa.concat"))
    return concat(b, op, &rt);
  if (mg_bridge_op_is(op, "tosa.add"))
    return binary(b, op, MG_LIFT_ALG_ADD, &rt);
  if (mg_bridge_op_is(op, "tosa.sub"))
    return binary(b, op, MG_LIFT_ALG_SUB, &rt);
  if (mg_bridge_op_is(op, "tosa.mul")) {
    if (mlirOperationGetNumOperands(op) > 2 &&
        !is_int_zero(mlirOperationGetOperand(op, 2)))
      return mg_lift_fail(b, op, "tosa.mul with a non-zero shift");
    return binary(b, op, MG_LIFT_ALG_MUL, &rt);
  }
  if (mg_bridge_op_is(op, "tosa.pow"))
    return binary(b, op, MG_LIFT_ALG_POW, &rt);
  if (mg_bridge_op_is(op, "tosa.maximum"))
    return binary(b, op, MG_LIFT_ALG_MAX, &rt);
  if (mg_bridge_op_is(op, "tosa.minimum"))
    return binary(b, op, MG_LIFT_ALG_MIN, &rt);
  if (mg_bridge_op_is(op, "tosa.clamp"))
    return clamp(b, op, &rt);
  static const struct {
    const char *name;
    MgLiftAlg alg;
  } unaries[] = {
      {"tosa.exp", MG_LIFT_ALG_EXP},       {"tosa.log", MG_LIFT_ALG_LOG},
      {"tosa.tanh", MG_LIFT_ALG_TANH},     {"tosa.erf", MG_LIFT_ALG_ERF},
      {"tosa.rsqrt", MG_LIFT_ALG_RSQRT},   {"tosa.reciprocal", MG_LIFT_ALG_RECIP},
      {"tosa.sigmoid", MG_LIFT_ALG_SIGMOID},
  };
  for (size_t i = 0; i < sizeof unaries / sizeof *unaries; ++i)
    if (mg_bridge_op_is(op, unaries[i].name))
      return unary(b, op, unaries[i].alg, &rt);
  if (mg_bridge_op_is(op, "tosa.negate"))
    return check_zero_points(b, op, 1) && unary(b, op, MG_LIFT_ALG_NEG, &rt);
  if (mg_bridge_op_is(op, "tosa.reduce_sum"))
    return reduce(b, op, &rt, false);
  if (mg_bridge_op_is(op, "tosa.reduce_max"))
    return reduce(b, op, &rt, true);
  if (mg_bridge_op_is(op, "tosa.matmul"))
    return matmul(b, op, &rt);
  if (mg_bridge_op_is(op, "tosa.select"))
    return select_mask(b, op, &rt);
  return mg_lift_fail(b, op, "no translation for this TOSA op");
}
