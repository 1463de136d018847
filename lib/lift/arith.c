//===- arith.c - Element-wise arith / math ops applied to tensors ---------===//
//
// arith and math ops are elementwise-mappable: JAX (StableHLO -> linalg)
// and torch-mlir sometimes leave `math.exp %t : tensor<...>` or
// `arith.mulf %a, %b : tensor<...>` on whole tensors instead of wrapping
// them in a linalg.generic. Operands and result then have one and the same
// shape (no broadcast), so each lifts exactly as the same op in a generic
// body over the identity maps: through the algebra (mg_lift_alg_*), in the
// result's frame. arith.extf / truncf on tensors are cast views, as
// tosa.cast is. Scalar arith stays as it is (classified by result type).
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <string.h>

typedef struct ArithOp {
  const char *name;
  MgLiftAlg alg;
  int arity;
} ArithOp;

static const ArithOp kTable[] = {
    {"arith.addf", MG_LIFT_ALG_ADD, 2},     {"arith.subf", MG_LIFT_ALG_SUB, 2},
    {"arith.mulf", MG_LIFT_ALG_MUL, 2},     {"arith.divf", MG_LIFT_ALG_DIV, 2},
    {"arith.maximumf", MG_LIFT_ALG_MAX, 2}, {"arith.maxnumf", MG_LIFT_ALG_MAX, 2},
    {"arith.minimumf", MG_LIFT_ALG_MIN, 2}, {"arith.minnumf", MG_LIFT_ALG_MIN, 2},
    {"math.powf", MG_LIFT_ALG_POW, 2},      {"arith.negf", MG_LIFT_ALG_NEG, 1},
    {"math.exp", MG_LIFT_ALG_EXP, 1},       {"math.sqrt", MG_LIFT_ALG_SQRT, 1},
    {"math.rsqrt", MG_LIFT_ALG_RSQRT, 1},   {"math.log", MG_LIFT_ALG_LOG, 1},
    {"math.tanh", MG_LIFT_ALG_TANH, 1},     {"math.erf", MG_LIFT_ALG_ERF, 1},
    {"arith.extf", MG_LIFT_ALG_CAST, 1},    {"arith.truncf", MG_LIFT_ALG_CAST, 1},
};

static const ArithOp *find(MlirOperation op) {
  for (size_t i = 0; i < sizeof kTable / sizeof *kTable; ++i)
    if (mg_bridge_op_is(op, kTable[i].name))
      return &kTable[i];
  return NULL;
}

static bool tensor_result(MlirOperation op) {
  return mlirOperationGetNumResults(op) == 1 &&
         mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0)));
}

int mg_lift_arith_kind(MlirOperation op) {
  const ArithOp *a = tensor_result(op) ? find(op) : NULL;
  if (!a)
    return 0;
  return a->alg == MG_LIFT_ALG_CAST ? 2 : 1;
}

// Operand i in the result's frame: same shape, identity map.
static bool operand(MgLiftBuilder *b, MlirOperation op, intptr_t i,
                    const MgLiftType *rt, MgLiftVal *out) {
  MgLiftVal x;
  int8_t phi[MG_LIFT_MAX_RANK];
  if (!mg_lift_get(b, mlirOperationGetOperand(op, i), &x))
    return false;
  if (x.rank != rt->rank)
    return mg_lift_fail(b, op, "operand %d has rank %u, result rank %u",
                        (int)i, x.rank, rt->rank);
  for (uint32_t d = 0; d < rt->rank; ++d)
    phi[d] = (int8_t)d;
  return mg_lift_frame_in(b, &x, rt->rank, rt->dims, phi, out);
}

bool mg_lift_translate_arith(MgLiftBuilder *b, MlirOperation op) {
  const ArithOp *a = find(op);
  MgLiftType rt;
  if (!a || !mg_lift_result_type(op, 0, &rt))
    return mg_lift_fail(b, op, "unsupported element-wise op or type");
  if (mlirOperationGetNumOperands(op) != a->arity)
    return mg_lift_fail(b, op, "expected %d operands", a->arity);
  MgLiftVal x, y, r;
  if (!operand(b, op, 0, &rt, &x))
    return false;
  if (a->alg == MG_LIFT_ALG_CAST) { // a view: same elements
    r = x;
    if (r.kind == MG_LIFT_SCALAR)
      r.scalar = mg_lift_round(r.scalar, rt.dtype);
    else
      mg_lift_narrow_result(b, op, &r, rt.dtype);
    r.dtype = rt.dtype;
  } else if (a->arity == 1) {
    if (!mg_lift_alg_unary(b, a->alg, &x, rt.dtype, &r))
      return false;
  } else if (!operand(b, op, 1, &rt, &y) ||
             !mg_lift_alg_binary(b, a->alg, &x, &y, rt.dtype, &r)) {
    return false;
  }
  return mg_lift_set_result(b, op, &r);
}
