//===- constant.c - The values of constant tensors ------------------------===//
//
// A function lifted whole (whole.c) is compared with another on random
// arguments, but its constants keep their values: the verifier fixes those
// inputs (MgVerifyConstant). This file reads them: a splat through the
// floating views mg_lift_get_scalar follows, or the elements of a dense
// tosa.const / arith.constant of f16, bf16 or f32, through reshapes and
// casts (rounded to the cast's type). f16 and bf16 are decoded from the raw
// data, because mlirDenseElementsAttrGetFloatValue reads f32 only.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double half_to_double(uint16_t h) {
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0x1f)
    v = mant ? NAN : INFINITY;
  else if (exp == 0)
    v = ldexp(mant, -24); // subnormal: mant * 2^-14 * 2^-10
  else
    v = ldexp(mant | 0x400, exp - 25);
  return (h & 0x8000) ? -v : v;
}

static double bf16_to_double(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static MlirAttribute dense_of(MlirOperation def) {
  if (!mg_bridge_op_is(def, "tosa.const") &&
      !mg_bridge_op_is(def, "arith.constant"))
    return (MlirAttribute){NULL};
  MlirAttribute a = mg_lift_attr(def, "values");
  if (mlirAttributeIsNull(a))
    a = mg_lift_attr(def, "value");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseFPElements(a))
    return (MlirAttribute){NULL};
  return a;
}

// Ops that keep a constant's elements in row-major order; a cast rounds
// them to its element type.
static bool keeps_order(MlirOperation def) {
  return mg_bridge_op_is(def, "tosa.cast") ||
         mg_bridge_op_is(def, "tosa.reshape") ||
         mg_bridge_op_is(def, "tosa.identity") ||
         mg_bridge_op_is(def, "tensor.expand_shape") ||
         mg_bridge_op_is(def, "tensor.collapse_shape");
}

static bool read_dense(MlirValue v, double **values, int64_t *count,
                       int depth) {
  MlirOperation def = mg_lift_def_op(v);
  if (mlirOperationIsNull(def) || depth > 16)
    return false;
  uint8_t dtype;
  MlirType type = mlirValueGetType(v);
  if (!mlirTypeIsAShaped(type) ||
      !mg_lift_float_dtype(mlirShapedTypeGetElementType(type), &dtype))
    return false;
  if (keeps_order(def) && mlirOperationGetNumOperands(def) >= 1) {
    if (!read_dense(mlirOperationGetOperand(def, 0), values, count,
                    depth + 1))
      return false;
    for (int64_t i = 0; i < *count; ++i)
      (*values)[i] = mg_lift_round((*values)[i], dtype);
    return true;
  }
  MlirAttribute a = dense_of(def);
  if (mlirAttributeIsNull(a))
    return false;
  // A splat's raw data holds one element.
  int64_t n = mlirDenseElementsAttrIsSplat(a) ? 1
                                               : mlirElementsAttrGetNumElements(a);
  if (n < 1 || (uint64_t)n > SIZE_MAX / sizeof(double))
    return false;
  double *out = malloc((size_t)n * sizeof *out);
  if (!out)
    return false;
  const char *raw = mlirDenseElementsAttrGetRawData(a);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h = 0;
    if (dtype != MG_DTYPE_F32)
      memcpy(&h, raw + 2 * i, sizeof h);
    out[i] = dtype == MG_DTYPE_F32
                 ? (double)mlirDenseElementsAttrGetFloatValue(a, (intptr_t)i)
             : dtype == MG_DTYPE_F16 ? half_to_double(h)
                                     : bf16_to_double(h);
  }
  *values = out;
  *count = n;
  return true;
}

bool mg_lift_read_constant(MlirValue v, double **values, int64_t *count) {
  *values = NULL;
  *count = 0;
  double s;
  if (mg_lift_get_scalar(v, &s)) {
    *values = malloc(sizeof **values);
    if (!*values)
      return false;
    **values = s;
    *count = 1;
    return true;
  }
  if (read_dense(v, values, count, 0))
    return true;
  free(*values);
  *values = NULL;
  *count = 0;
  return false;
}
