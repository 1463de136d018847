//===- ir.c - Reading upstream IR: types, constants, purity ---------------===//
//
// Everything lib/lift knows about upstream ops that is not a translation:
// which tensor types a kernel graph can hold, which ops are side-effect free
// (so a subprogram may be formed around them), which are "floating"
// constants (copied into references, never lifted), and the value of splat
// constants. Purity is decided by dialect and name, because the C API
// cannot query memory-effect interfaces: tosa, tensor, arith, math and linalg
// ops on tensors are pure, minus a short list of stateful or
// control-flow ops.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

bool mg_lift_op_has_prefix(MlirOperation op, const char *prefix) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  size_t len = strlen(prefix);
  return n.length >= len && !memcmp(n.data, prefix, len);
}

MlirAttribute mg_lift_attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op,
                                         mlirStringRefCreateFromCString(name));
}

bool mg_lift_float_dtype(MlirType type, uint8_t *dtype) {
  MgDType d; // the lift keeps dtypes in uint8_t fields
  if (!mg_bridge_dtype(type, &d))
    return false;
  *dtype = (uint8_t)d;
  return true;
}

bool mg_lift_read_type(MlirType type, MgLiftType *out, const char **why) {
  if (!mlirTypeIsARankedTensor(type)) {
    *why = "is not a ranked tensor";
    return false;
  }
  if (!mlirAttributeIsNull(mlirRankedTensorTypeGetEncoding(type))) {
    *why = "has an encoding (sparse or other layouts are not lifted)";
    return false;
  }
  intptr_t rank = mlirShapedTypeGetRank(type);
  if (rank < 1) {
    *why = "is a rank-0 tensor";
    return false;
  }
  if (rank > MG_LIFT_MAX_RANK) {
    *why = "has more than 8 dims";
    return false;
  }
  if (!mg_lift_float_dtype(mlirShapedTypeGetElementType(type), &out->dtype)) {
    *why = "has an element type other than f16, bf16 or f32";
    return false;
  }
  out->rank = (uint8_t)rank;
  for (intptr_t d = 0; d < rank; ++d) {
    // A `?` lifts at the stand-in size, made a symbol at the end.
    bool dynamic = mlirShapedTypeIsDynamicDim(type, d);
    mg_lift_dynamic_reads += dynamic;
    out->dims[d] = dynamic ? MG_LIFT_SYM_SIZE
                           : mlirShapedTypeGetDimSize(type, d);
    if (out->dims[d] < 1) {
      *why = "has a zero-sized dim";
      return false;
    }
  }
  return true;
}

// Rounds |v| to `bits` significant bits with exponent floor `min_exp` (the
// exponent of the smallest normal), nearest even; beyond `max` -> inf.
static double round_bits(double v, int bits, int min_exp, double max) {
  if (!isfinite(v) || v == 0.0)
    return v;
  double a = fabs(v);
  int e;
  frexp(a, &e); // a = m * 2^e, m in [0.5, 1): leading bit has exponent e-1
  int lead = e - 1 < min_exp ? min_exp : e - 1;
  int lsb = lead - (bits - 1);
  double r = ldexp(nearbyint(ldexp(a, -lsb)), lsb);
  if (r > max)
    r = INFINITY;
  return copysign(r, v);
}

double mg_lift_round(double v, uint8_t dtype) {
  switch ((MgDType)dtype) {
  case MG_DTYPE_F16:
    return round_bits(v, 11, -14, 65504.0);
  case MG_DTYPE_BF16:
    return round_bits(v, 8, -126, ldexp(255.0, 120));
  case MG_DTYPE_F32:
    return isfinite(v) && fabs(v) > FLT_MAX ? copysign(INFINITY, v)
                                            : (double)(float)v;
  default:
    return v;
  }
}

double mg_lift_max_finite(uint8_t dtype) {
  return dtype == MG_DTYPE_F16    ? 65504.0
         : dtype == MG_DTYPE_BF16 ? ldexp(255.0, 120)
                                  : FLT_MAX;
}

MlirOperation mg_lift_def_op(MlirValue v) {
  if (mlirValueIsAOpResult(v))
    return mlirOpResultGetOwner(v);
  return (MlirOperation){NULL};
}

static bool is_memref(MlirType t) {
  return mlirTypeIsAMemRef(t) || mlirTypeIsAUnrankedMemRef(t);
}

bool mg_lift_is_pure(MlirOperation op) {
  static const char *const prefixes[] = {"tosa.", "tensor.", "arith.", "math.",
                                         "linalg."};
  static const char *const impure[] = {
      "tosa.custom",         "tosa.variable", "tosa.variable_read",
      "tosa.variable_write", "tosa.cond_if",  "tosa.while_loop",
      "tosa.yield",          "tensor.yield",  "linalg.yield",
      "linalg.index",        "tosa.custom_op"};
  bool known = false;
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes && !known; ++i)
    known = mg_lift_op_has_prefix(op, prefixes[i]);
  if (!known || mlirOperationGetNumResults(op) == 0)
    return false;
  for (size_t i = 0; i < sizeof impure / sizeof *impure; ++i)
    if (mg_bridge_op_is(op, impure[i]))
      return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (is_memref(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return false;
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    if (is_memref(mlirValueGetType(mlirOperationGetResult(op, i))))
      return false;
  return true;
}

static bool floating(MlirOperation op, int depth) {
  if (depth > 16 || !mg_lift_is_pure(op))
    return false;
  if (mlirOperationGetNumRegions(op) > 0 && !mg_bridge_op_is(op, "linalg.fill"))
    return false;
  // The size of a dynamic dim (tensor.empty(%n) of a linalg init, as
  // torch-mlir writes it) reads only its tensor's shape: the reference
  // gets that tensor as an input (chunk.c).
  bool dim = mg_bridge_op_is(op, "tensor.dim");
  for (intptr_t i = dim ? 1 : 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirOperation def = mg_lift_def_op(mlirOperationGetOperand(op, i));
    if (mlirOperationIsNull(def) || !floating(def, depth + 1))
      return false;
  }
  return true; // operand-free pure ops are constants (const, empty, ...)
}

bool mg_lift_is_floating(MlirOperation op) { return floating(op, 0); }

// Element type of a tensor or scalar type.
static bool value_dtype(MlirValue v, uint8_t *dtype) {
  MlirType t = mlirValueGetType(v);
  if (mlirTypeIsAShaped(t))
    t = mlirShapedTypeGetElementType(t);
  return mg_lift_float_dtype(t, dtype);
}

static bool attr_scalar(MlirAttribute a, double *out) {
  if (mlirAttributeIsNull(a))
    return false;
  if (mlirAttributeIsAFloat(a)) {
    *out = mlirFloatAttrGetValueDouble(a);
    return true;
  }
  if (mlirAttributeIsADenseElements(a) && mlirDenseElementsAttrIsSplat(a)) {
    MlirAttribute s = mlirDenseElementsAttrGetSplatValue(a);
    if (!mlirAttributeIsNull(s) && mlirAttributeIsAFloat(s)) {
      *out = mlirFloatAttrGetValueDouble(s);
      return true;
    }
  }
  return false;
}

static bool scalar_of(MlirValue v, double *out, int depth) {
  uint8_t dtype;
  MlirOperation def = mg_lift_def_op(v);
  if (depth > 16 || mlirOperationIsNull(def) || !value_dtype(v, &dtype))
    return false;
  double x;
  if (mg_bridge_op_is(def, "tosa.const") ||
      mg_bridge_op_is(def, "arith.constant")) {
    if (!attr_scalar(mg_lift_attr(def, "values"), &x) &&
        !attr_scalar(mg_lift_attr(def, "value"), &x))
      return false;
  } else if (mg_bridge_op_is(def, "linalg.fill") ||
             mg_bridge_op_is(def, "tosa.reshape") ||
             mg_bridge_op_is(def, "tosa.identity") ||
             mg_bridge_op_is(def, "tosa.transpose") ||
             mg_bridge_op_is(def, "tosa.cast") ||
             mg_bridge_op_is(def, "arith.extf") ||
             mg_bridge_op_is(def, "arith.truncf") ||
             mg_bridge_op_is(def, "tensor.expand_shape") ||
             mg_bridge_op_is(def, "tensor.collapse_shape")) {
    if (mlirOperationGetNumOperands(def) < 1 ||
        !scalar_of(mlirOperationGetOperand(def, 0), &x, depth + 1))
      return false;
  } else if (mg_bridge_op_is(def, "tosa.reciprocal")) {
    if (!scalar_of(mlirOperationGetOperand(def, 0), &x, depth + 1))
      return false;
    x = 1.0 / x;
  } else if (mg_bridge_op_is(def, "tosa.negate")) {
    if (!scalar_of(mlirOperationGetOperand(def, 0), &x, depth + 1))
      return false;
    x = -x;
  } else {
    return false;
  }
  *out = mg_lift_round(x, dtype);
  return true;
}

bool mg_lift_get_scalar(MlirValue v, double *out) {
  return scalar_of(v, out, 0);
}

bool mg_lift_is_empty(MlirValue v) {
  for (int depth = 0; depth < 16; ++depth) {
    MlirOperation def = mg_lift_def_op(v);
    if (mlirOperationIsNull(def))
      return false;
    if (mg_bridge_op_is(def, "tensor.empty"))
      return true;
    if (!(mg_bridge_op_is(def, "tosa.reshape") ||
          mg_bridge_op_is(def, "tosa.cast") ||
          mg_bridge_op_is(def, "tensor.expand_shape") ||
          mg_bridge_op_is(def, "tensor.collapse_shape")) ||
        mlirOperationGetNumOperands(def) < 1)
      return false;
    v = mlirOperationGetOperand(def, 0);
  }
  return false;
}

MlirOperation mg_lift_ancestor_in(MlirOperation op, MlirBlock block) {
  while (!mlirOperationIsNull(op)) {
    if (mlirBlockEqual(mlirOperationGetBlock(op), block))
      return op;
    op = mlirOperationGetParentOperation(op);
  }
  return op;
}

bool mg_lift_is_within(MlirOperation x, MlirOperation op) {
  for (; !mlirOperationIsNull(x); x = mlirOperationGetParentOperation(x))
    if (mlirOperationEqual(x, op))
      return true;
  return false;
}

typedef struct CaptureWalk {
  MlirOperation root;
  bool (*fn)(MlirValue v, void *ud);
  void *ud;
  bool ok;
} CaptureWalk;

static MlirWalkResult visit_capture(MlirOperation op, void *ud) {
  CaptureWalk *w = ud;
  if (mlirOperationEqual(op, w->root))
    return MlirWalkResultAdvance;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    MlirOperation owner =
        mlirValueIsAOpResult(v)
            ? mlirOpResultGetOwner(v)
            : mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
    if (mg_lift_is_within(owner, w->root))
      continue;
    if (!w->fn(v, w->ud)) {
      w->ok = false;
      return MlirWalkResultInterrupt;
    }
  }
  return MlirWalkResultAdvance;
}

bool mg_lift_for_each_capture(MlirOperation op,
                              bool (*fn)(MlirValue v, void *ud), void *ud) {
  if (mlirOperationGetNumRegions(op) == 0)
    return true;
  CaptureWalk w = {op, fn, ud, true};
  mlirOperationWalk(op, visit_capture, &w, MlirWalkPreOrder);
  return w.ok;
}

bool mg_lift_is_bare_identifier(const char *name) {
  if (!name[0] || !(name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z') ||
                    (name[0] >= 'A' && name[0] <= 'Z')))
    return false;
  for (const char *c = name; *c; ++c)
    if (!(*c == '_' || *c == '$' || *c == '.' || (*c >= 'a' && *c <= 'z') ||
          (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
      return false;
  return true;
}
