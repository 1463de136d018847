//===- translate.c - One upstream op -> μGraph ops: dispatch and results ---===//
//
// Each translation reads the images of its operands (mg_lift_get), emits ops
// through the algebra, and records the image of its result. The result's
// `origin` says whom to blame if the value later has to leave the kernel
// graph but is only a view: the view op itself, or the op that made an
// operand a view; never an op whose own layout is exact.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <string.h>

bool mg_lift_result_type(MlirOperation op, intptr_t i, MgLiftType *out) {
  const char *why;
  return i < mlirOperationGetNumResults(op) &&
         mg_lift_read_type(mlirValueGetType(mlirOperationGetResult(op, i)), out,
                           &why);
}

static bool is_view_op(MlirOperation op) {
  return mg_bridge_op_is(op, "tosa.reshape") ||
         mg_bridge_op_is(op, "tosa.transpose") ||
         mg_bridge_op_is(op, "tosa.cast") || mg_bridge_op_is(op, "tosa.identity") ||
         mg_bridge_op_is(op, "linalg.transpose") ||
         mg_bridge_op_is(op, "linalg.copy") ||
         mg_bridge_op_is(op, "tensor.expand_shape") ||
         mg_bridge_op_is(op, "tensor.collapse_shape") ||
         mg_bridge_op_is(op, "tosa.slice") || mg_bridge_op_is(op, "tosa.concat") ||
         mg_bridge_op_is(op, "tensor.extract_slice") ||
         mg_lift_arith_kind(op) == 2;
}

// Exactness of a stored value's layout, whatever its kind.
static bool layout_exact(const MgLiftBuilder *b, const MgLiftVal *v) {
  if (v->kind == MG_LIFT_SCALAR || v->kind == MG_LIFT_NONE || v->t == MG_NO_ID)
    return true;
  MgLiftVal tmp = *v;
  tmp.kind = MG_LIFT_TENSOR;
  return mg_lift_val_is_exact(b, &tmp);
}

bool mg_lift_set_result(MgLiftBuilder *b, MlirOperation op, MgLiftVal *val) {
  val->origin = op;
  val->viewed = !layout_exact(b, val);
  if (val->viewed && is_view_op(op) && !mg_bridge_op_is(op, "tosa.transpose") &&
      !mg_bridge_op_is(op, "linalg.transpose")) {
    // A reshape or cast of a view: the view that came first is to blame
    // (a transpose always answers for itself).
    uint32_t k = mg_ptrmap_get(&b->index, mg_lift_view_source(op).ptr);
    if (k != UINT32_MAX && b->vals[k].viewed &&
        !mlirOperationIsNull(b->vals[k].origin))
      val->origin = b->vals[k].origin;
  } else if (val->viewed && !is_view_op(op)) {
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
      MlirValue v = mlirOperationGetOperand(op, i);
      uint32_t k = mg_ptrmap_get(&b->index, v.ptr);
      if (k != UINT32_MAX && !layout_exact(b, &b->vals[k]) &&
          !mlirOperationIsNull(b->vals[k].origin)) {
        val->origin = b->vals[k].origin;
        break;
      }
    }
  }
  return mg_lift_set(b, mlirOperationGetResult(op, 0), val);
}

static bool translate_reshape(MgLiftBuilder *b, MlirOperation op) {
  MgLiftVal x, r;
  MgLiftType rt;
  if (!mg_lift_result_type(op, 0, &rt))
    return mg_lift_fail(b, op, "unsupported result type");
  if (!mg_lift_get(b, mg_lift_view_source(op), &x) ||
      !mg_lift_view_reshape(b, &x, rt.rank, rt.dims, &r))
    return false;
  return mg_lift_set_result(b, op, &r);
}

// tensor.extract_slice with static offsets, sizes and unit strides; a
// rank-reducing one drops unit dims afterwards (free).
static bool translate_extract_slice(MgLiftBuilder *b, MlirOperation op) {
  MgLiftVal x;
  MgLiftType rt;
  if (!mg_lift_result_type(op, 0, &rt))
    return mg_lift_fail(b, op, "unsupported result type");
  if (!mg_lift_get(b, mlirOperationGetOperand(op, 0), &x))
    return false;
  if (mlirOperationGetNumOperands(op) != 1)
    return mg_lift_fail(b, op, "a slice with dynamic offsets or sizes");
  MlirAttribute off = mg_lift_attr(op, "static_offsets"),
                size = mg_lift_attr(op, "static_sizes"),
                stride = mg_lift_attr(op, "static_strides");
  if (mlirAttributeIsNull(off) || mlirAttributeIsNull(size) ||
      mlirAttributeIsNull(stride) || !mlirAttributeIsADenseI64Array(off) ||
      !mlirAttributeIsADenseI64Array(size) ||
      !mlirAttributeIsADenseI64Array(stride) ||
      mlirDenseArrayGetNumElements(off) != x.rank)
    return mg_lift_fail(b, op, "a slice without static offsets and sizes");
  for (uint32_t d = 0; d < x.rank; ++d) {
    int64_t o = mlirDenseI64ArrayGetElement(off, d),
            n = mlirDenseI64ArrayGetElement(size, d);
    if (mlirDenseI64ArrayGetElement(stride, d) != 1)
      return mg_lift_fail(b, op, "a strided slice (only unit strides lift)");
    if (n != x.dims[d] && !mg_lift_view_slice(b, &x, d, o, n, &x))
      return false;
  }
  MgLiftVal r;
  if (!mg_lift_view_reshape(b, &x, rt.rank, rt.dims, &r))
    return false;
  r.dtype = rt.dtype;
  return mg_lift_set_result(b, op, &r);
}

bool mg_lift_translate(MgLiftBuilder *b, MlirOperation op) {
  b->current = op;
  bool ok;
  if (mg_bridge_op_is(op, "tensor.expand_shape") ||
      mg_bridge_op_is(op, "tensor.collapse_shape"))
    ok = translate_reshape(b, op);
  else if (mg_bridge_op_is(op, "tensor.extract_slice"))
    ok = translate_extract_slice(b, op);
  else if (mg_lift_op_has_prefix(op, "tosa."))
    ok = mg_lift_translate_tosa(b, op);
  else if (mg_lift_op_has_prefix(op, "linalg."))
    ok = mg_lift_translate_linalg(b, op);
  else if (mg_lift_arith_kind(op))
    ok = mg_lift_translate_arith(b, op);
  else
    ok = mg_lift_fail(b, op, "no translation");
  if (!ok) {
    if (!b->failed)
      mg_lift_fail(b, op, "translation failed");
    return false;
  }
  if (!mg_lift_has(b, mlirOperationGetResult(op, 0)))
    return mg_lift_fail(b, op, "internal: the result has no image");
  return true;
}
