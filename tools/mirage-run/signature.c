//===- signature.c - Function signatures as MgRunTensorType lists ---------===//
//
// Both sides of a comparison are described by the same flat signature, read
// from the func.func's `function_type`: the JIT needs it to build memref
// descriptors, the interpreter to size its buffers, and the comparison to
// refuse functions whose types differ.
//
//===----------------------------------------------------------------------===//
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mirage/bridge.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

static bool read_type(MlirType type, const char *what, intptr_t index,
                      MgRunTensorType *out, char *err, size_t err_size) {
  char text[128];
  if (!mlirTypeIsARankedTensor(type) || mlirShapedTypeGetRank(type) < 1 ||
      mlirShapedTypeGetRank(type) > MG_MAX_DIMS ||
      !mg_bridge_dtype(mlirShapedTypeGetElementType(type), &out->dtype)) {
    mg_bridge_type_text(type, text, sizeof text);
    snprintf(err, err_size,
             "unsupported %s %ld type '%s' (expected a ranked tensor of rank "
             "1-%d with element type f16, bf16 or f32)",
             what, (long)index, text, MG_MAX_DIMS);
    return false;
  }
  out->rank = (uint32_t)mlirShapedTypeGetRank(type);
  for (uint32_t d = 0; d < out->rank; ++d)
    out->dims[d] = mlirShapedTypeIsDynamicDim(type, d)
                       ? MG_RUN_DYNAMIC
                       : mlirShapedTypeGetDimSize(type, d);
  return true;
}

bool mg_run_signature_dynamic(const MgRunSignature *sig) {
  for (uint32_t i = 0; i < sig->num_inputs + sig->num_outputs; ++i) {
    const MgRunTensorType *t = i < sig->num_inputs
                                   ? &sig->inputs[i]
                                   : &sig->outputs[i - sig->num_inputs];
    for (uint32_t d = 0; d < t->rank; ++d)
      if (t->dims[d] == MG_RUN_DYNAMIC)
        return true;
  }
  return false;
}

MgRunSignature mg_run_signature_at(const MgRunSignature *sig, int64_t n) {
  MgRunSignature at = *sig;
  for (uint32_t i = 0; i < at.num_inputs + at.num_outputs; ++i) {
    MgRunTensorType *t = i < at.num_inputs ? &at.inputs[i]
                                           : &at.outputs[i - at.num_inputs];
    for (uint32_t d = 0; d < t->rank; ++d)
      if (t->dims[d] == MG_RUN_DYNAMIC)
        t->dims[d] = n;
  }
  return at;
}

bool mg_run_signature_read(MlirOperation func, MgRunSignature *sig, char *err,
                           size_t err_size) {
  memset(sig, 0, sizeof *sig);
  MlirAttribute attr = mlirOperationGetAttributeByName(
      func, mlirStringRefCreateFromCString("function_type"));
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsAType(attr)) {
    snprintf(err, err_size, "not a function");
    return false;
  }
  MlirType type = mlirTypeAttrGetValue(attr);
  intptr_t ni = mlirFunctionTypeGetNumInputs(type);
  intptr_t no = mlirFunctionTypeGetNumResults(type);
  if (ni > MG_RUN_MAX_VALUES || no > MG_RUN_MAX_VALUES) {
    snprintf(err, err_size, "more than %d arguments or results",
             MG_RUN_MAX_VALUES);
    return false;
  }
  if (no == 0) {
    snprintf(err, err_size, "the function has no results to compare");
    return false;
  }
  sig->num_inputs = (uint32_t)ni;
  sig->num_outputs = (uint32_t)no;
  for (intptr_t i = 0; i < ni; ++i)
    if (!read_type(mlirFunctionTypeGetInput(type, i), "argument", i,
                   &sig->inputs[i], err, err_size))
      return false;
  for (intptr_t i = 0; i < no; ++i)
    if (!read_type(mlirFunctionTypeGetResult(type, i), "result", i,
                   &sig->outputs[i], err, err_size))
      return false;
  return true;
}

static bool same_type(const MgRunTensorType *a, const MgRunTensorType *b) {
  if (a->dtype != b->dtype || a->rank != b->rank)
    return false;
  for (uint32_t d = 0; d < a->rank; ++d)
    if (a->dims[d] != b->dims[d])
      return false;
  return true;
}

bool mg_run_signature_equal(const MgRunSignature *a, const MgRunSignature *b,
                            char *err, size_t err_size) {
  if (a->num_inputs != b->num_inputs || a->num_outputs != b->num_outputs) {
    snprintf(err, err_size, "%u arguments and %u results vs %u and %u",
             a->num_inputs, a->num_outputs, b->num_inputs, b->num_outputs);
    return false;
  }
  char ta[64], tb[64];
  for (uint32_t i = 0; i < a->num_inputs + a->num_outputs; ++i) {
    bool input = i < a->num_inputs;
    uint32_t k = input ? i : i - a->num_inputs;
    const MgRunTensorType *x = input ? &a->inputs[k] : &a->outputs[k];
    const MgRunTensorType *y = input ? &b->inputs[k] : &b->outputs[k];
    if (!same_type(x, y)) {
      mg_run_type_str(x, ta, sizeof ta);
      mg_run_type_str(y, tb, sizeof tb);
      snprintf(err, err_size, "%s %u is '%s' vs '%s'",
               input ? "argument" : "result", k, ta, tb);
      return false;
    }
  }
  return true;
}

int64_t mg_run_numel(const MgRunTensorType *t) {
  int64_t n = 1;
  for (uint32_t d = 0; d < t->rank; ++d)
    n *= t->dims[d];
  return n;
}

void mg_run_type_str(const MgRunTensorType *t, char *buf, size_t size) {
  size_t len = (size_t)snprintf(buf, size, "tensor<");
  for (uint32_t d = 0; d < t->rank && len < size; ++d)
    len += t->dims[d] == MG_RUN_DYNAMIC
               ? (size_t)snprintf(buf + len, size - len, "?x")
               : (size_t)snprintf(buf + len, size - len, "%ldx",
                                  (long)t->dims[d]);
  if (len < size)
    snprintf(buf + len, size - len, "%s>", mg_dtype_name(t->dtype));
}

typedef struct Types {
  double u;        // largest unit roundoff
  double max;      // smallest largest finite value
  MgDType narrow;  // the type with that range
} Types;

static void note_type(Types *r, MlirType type) {
  if (mlirTypeIsAShaped(type))
    type = mlirShapedTypeGetElementType(type);
  MgDType dtype;
  if (!mg_bridge_dtype(type, &dtype))
    return;
  if (mg_run_unit_roundoff(dtype) > r->u)
    r->u = mg_run_unit_roundoff(dtype);
  if (mg_dtype_max_finite(dtype) < r->max) {
    r->max = mg_dtype_max_finite(dtype);
    r->narrow = dtype;
  }
}

static MlirWalkResult note_results(MlirOperation op, void *ud) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    note_type(ud, mlirValueGetType(mlirOperationGetResult(op, i)));
  return MlirWalkResultAdvance;
}

// The float element types of every value of `func`, its signature included.
static Types func_types(MlirOperation func) {
  Types r = {0, INFINITY, MG_DTYPE_F32};
  MlirAttribute attr = mlirOperationGetAttributeByName(
      func, mlirStringRefCreateFromCString("function_type"));
  if (!mlirAttributeIsNull(attr) && mlirAttributeIsAType(attr)) {
    MlirType type = mlirTypeAttrGetValue(attr);
    for (intptr_t i = 0; i < mlirFunctionTypeGetNumInputs(type); ++i)
      note_type(&r, mlirFunctionTypeGetInput(type, i));
    for (intptr_t i = 0; i < mlirFunctionTypeGetNumResults(type); ++i)
      note_type(&r, mlirFunctionTypeGetResult(type, i));
  }
  mlirOperationWalk(func, note_results, &r, MlirWalkPreOrder);
  return r;
}

double mg_run_func_roundoff(MlirOperation func) {
  Types r = func_types(func);
  return r.u > 0 ? r.u : mg_run_unit_roundoff(MG_DTYPE_F32);
}

MgDType mg_run_func_narrowest(MlirOperation func) {
  return func_types(func).narrow;
}
