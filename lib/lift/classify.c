//===- classify.c - Which upstream ops lift, and why the others do not ----===//
//
// Classification is local: the op's name, attributes and tensor types. A
// COMPUTE or VIEW op may still fail to translate in context (a broadcast the
// μGraph cannot express, a non-additive reduction body); the partitioner
// then cuts it with the translator's reason. Reasons are sentences that
// complete "'<op>' is not lifted: ...".
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <math.h>
#include <string.h>

static const char *const tosa_compute[] = {
    "tosa.add",    "tosa.sub",        "tosa.mul",        "tosa.pow",
    "tosa.exp",    "tosa.rsqrt",      "tosa.reciprocal", "tosa.sigmoid",
    "tosa.negate", "tosa.reduce_sum", "tosa.matmul",     "tosa.maximum",
    "tosa.clamp",  "tosa.log",        "tosa.tanh",       "tosa.erf",
    "tosa.reduce_max", "tosa.select", "tosa.minimum"};
static const char *const linalg_compute[] = {
    "linalg.generic",     "linalg.matmul", "linalg.batch_matmul",
    "linalg.elementwise", "linalg.reduce", "linalg.add",
    "linalg.sub",         "linalg.mul",    "linalg.div",
    "linalg.exp",         "linalg.sqrt",   "linalg.rsqrt",
    "linalg.square",      "linalg.negf",   "linalg.reciprocal",
    "linalg.max",         "linalg.powf",   "linalg.log",
    "linalg.tanh",        "linalg.erf",    "linalg.min"};
static const char *const views[] = {
    "tosa.reshape",          "tosa.transpose",   "tosa.cast",
    "tosa.identity",         "linalg.transpose", "tensor.expand_shape",
    "tensor.collapse_shape", "linalg.copy",      "tosa.slice",
    "tosa.concat",           "tensor.extract_slice", "tensor.concat",
    "tensor.insert_slice"};

static bool in_list(MlirOperation op, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (mg_bridge_op_is(op, list[i]))
      return true;
  return false;
}

// Number of leading operands that carry tensor data (the rest are shift,
// zero points or shapes, checked by the translation).
static intptr_t data_operands(MlirOperation op) {
  intptr_t n = mlirOperationGetNumOperands(op);
  if (mg_lift_is_conv(op))
    return mg_lift_conv_data_operands(op);
  if (mg_bridge_op_is(op, "tosa.mul") || mg_bridge_op_is(op, "tosa.matmul"))
    return n < 2 ? n : 2;
  if (mg_bridge_op_is(op, "tosa.negate") || mg_bridge_op_is(op, "tosa.reshape") ||
      mg_bridge_op_is(op, "tosa.slice") ||
      mg_bridge_op_is(op, "tensor.extract_slice"))
    return n < 1 ? n : 1;
  return n;
}

static bool check_types(MlirOperation op, char *why, size_t size) {
  char name[96];
  mg_bridge_op_name(op, name, sizeof name);
  const char *reason = NULL;
  MgLiftType t;
  intptr_t n = data_operands(op);
  bool linalg = mg_lift_op_has_prefix(op, "linalg.");
  // A select's i1 mask is read apart (mask.c, mask_linalg.c).
  intptr_t mask = mg_lift_mask_operand(op);
  // A pooling window's shape is all that is read of it (conv.c).
  intptr_t window = mg_lift_conv_window_operand(op);
  for (intptr_t i = 0; i < n; ++i) {
    if (i == mask || i == window)
      continue;
    MlirType type = mlirValueGetType(mlirOperationGetOperand(op, i));
    uint8_t dt;
    if (linalg && !mlirTypeIsAShaped(type) && mg_lift_float_dtype(type, &dt))
      continue; // a scalar operand of a linalg op
    if (!mg_lift_read_type(type, &t, &reason)) {
      snprintf(why, size, "operand %d %s", (int)i, reason);
      return false;
    }
  }
  if (mlirOperationGetNumResults(op) != 1) {
    snprintf(why, size, "it has %d results (one is supported)",
             (int)mlirOperationGetNumResults(op));
    return false;
  }
  if (!mg_lift_read_type(mlirValueGetType(mlirOperationGetResult(op, 0)), &t,
                         &reason)) {
    snprintf(why, size, "its result %s", reason);
    return false;
  }
  return true;
}

// Float clamps lift as max and min with constants (tosa.c); a clamp to
// [0, ...] starts with relu, behind lift-relu.
static MgLiftClass classify_clamp(MlirOperation op, const MgLiftOptions *opts,
                                  char *why, size_t size) {
  MlirAttribute lo = mg_lift_attr(op, "min_val"),
                hi = mg_lift_attr(op, "max_val");
  if (mlirAttributeIsNull(lo) || mlirAttributeIsNull(hi) ||
      !mlirAttributeIsAFloat(lo) || !mlirAttributeIsAFloat(hi)) {
    snprintf(why, size, "only float clamps are lifted");
    return MG_LIFT_CLASS_PURE;
  }
  double a = mlirFloatAttrGetValueDouble(lo),
         b = mlirFloatAttrGetValueDouble(hi);
  if (isnan(a) || isnan(b)) {
    snprintf(why, size, "a clamp bound is NaN");
    return MG_LIFT_CLASS_PURE;
  }
  if (a == 0.0 && !opts->lift_relu) {
    snprintf(why, size, "relu is not lifted with lift-relu=false");
    return MG_LIFT_CLASS_PURE;
  }
  return MG_LIFT_CLASS_COMPUTE;
}

MgLiftClass mg_lift_classify(MlirOperation op, const MgLiftOptions *opts,
                             char *why, size_t size) {
  char name[96];
  mg_bridge_op_name(op, name, sizeof name);
  why[0] = 0;
  if (mg_lift_is_floating(op))
    return MG_LIFT_CLASS_FLOATING;
  bool pure = mg_lift_is_pure(op);
  // Convolutions, pooling and tensor.pad: conv.c has the list.
  bool compute =
      mg_lift_is_conv(op) ||
      in_list(op, tosa_compute, sizeof tosa_compute / sizeof *tosa_compute) ||
      in_list(op, linalg_compute,
              sizeof linalg_compute / sizeof *linalg_compute);
  bool view = in_list(op, views, sizeof views / sizeof *views);
  // arith/math on whole tensors (scalar arith is never lifted).
  int arith = mg_lift_arith_kind(op);
  compute |= arith == 1;
  view |= arith == 2;
  if (!pure || (!compute && !view)) {
    if (pure)
      snprintf(why, size, "the μGraph has no counterpart of '%s'", name);
    else if (mlirOperationGetNumRegions(op) > 0)
      snprintf(why, size, "control flow and region ops are not lifted");
    else
      snprintf(why, size, "'%s' is not a known side-effect-free tensor op",
               name);
    return pure ? MG_LIFT_CLASS_PURE : MG_LIFT_CLASS_OTHER;
  }
  if (!check_types(op, why, size))
    return MG_LIFT_CLASS_PURE;
  if (mg_bridge_op_is(op, "tosa.clamp"))
    return classify_clamp(op, opts, why, size);
  // A maximum is ug.maximum, or relu when one side is 0: the translation
  // decides (and cuts the relu with lift-relu=false).
  return view ? MG_LIFT_CLASS_VIEW : MG_LIFT_CLASS_COMPUTE;
}

MlirValue mg_lift_view_source(MlirOperation op) {
  return mlirOperationGetOperand(op, 0);
}
