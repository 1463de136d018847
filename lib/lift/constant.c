//===- constant.c - The values of constant tensors ------------------------===//
//
// A function lifted whole (whole.c) is compared with another on random
// arguments, but its constants keep their values: the verifier fixes those
// inputs (MgVerifyConstant). This file reads them: a splat through the
// floating views mg_lift_get_scalar follows, or the elements of a dense
// tosa.const / arith.constant of f16, bf16 or f32. f16 and bf16 are decoded
// from the raw data, because mlirDenseElementsAttrGetFloatValue reads f32
// only.
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
  MlirOperation def = mg_lift_def_op(v);
  MlirAttribute a =
      mlirOperationIsNull(def) ? (MlirAttribute){NULL} : dense_of(def);
  uint8_t dtype;
  if (mlirAttributeIsNull(a) ||
      !mg_lift_float_dtype(
          mlirShapedTypeGetElementType(mlirAttributeGetType(a)), &dtype))
    return false;
  int64_t n = mlirElementsAttrGetNumElements(a);
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
