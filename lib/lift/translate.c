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
         mg_bridge_op_is(op, "tensor.concat") ||
         mg_bridge_op_is(op, "tensor.insert_slice") ||
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

// Static offsets, sizes and unit strides of a slice op (extract_slice or
// insert_slice) over a tensor of rank `rank`; false with a failure.
static bool static_slice(MgLiftBuilder *b, MlirOperation op, uint32_t rank,
                         int64_t *offsets, int64_t *sizes) {
  MlirAttribute off = mg_lift_attr(op, "static_offsets"),
                size = mg_lift_attr(op, "static_sizes"),
                stride = mg_lift_attr(op, "static_strides");
  if (mlirAttributeIsNull(off) || mlirAttributeIsNull(size) ||
      mlirAttributeIsNull(stride) || !mlirAttributeIsADenseI64Array(off) ||
      !mlirAttributeIsADenseI64Array(size) ||
      !mlirAttributeIsADenseI64Array(stride) ||
      mlirDenseArrayGetNumElements(off) != rank)
    return mg_lift_fail(b, op, "a slice without static offsets and sizes");
  for (uint32_t d = 0; d < rank; ++d) {
    offsets[d] = mlirDenseI64ArrayGetElement(off, d);
    sizes[d] = mlirDenseI64ArrayGetElement(size, d);
    if (mlirDenseI64ArrayGetElement(stride, d) != 1)
      return mg_lift_fail(b, op, "a strided slice (only unit strides lift)");
  }
  return true;
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
  int64_t off[MG_LIFT_MAX_RANK], size[MG_LIFT_MAX_RANK];
  if (!static_slice(b, op, x.rank, off, size))
    return false;
  for (uint32_t d = 0; d < x.rank; ++d)
    if (size[d] != x.dims[d] &&
        !mg_lift_view_slice(b, &x, d, off[d], size[d], &x))
      return false;
  MgLiftVal r;
  if (!mg_lift_view_reshape(b, &x, rt.rank, rt.dims, &r))
    return false;
  r.dtype = rt.dtype;
  return mg_lift_set_result(b, op, &r);
}

// tensor.concat (torch.cat as torch-mlir lowers it, RoPE's halves
// rejoined): a chain of ug.concat, as tosa.concat.
static bool translate_concat(MgLiftBuilder *b, MlirOperation op) {
  MlirAttribute a = mg_lift_attr(op, "dim");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return mg_lift_fail(b, op, "tensor.concat needs an integer 'dim'");
  MgLiftType rt;
  if (!mg_lift_result_type(op, 0, &rt))
    return mg_lift_fail(b, op, "unsupported result type");
  return mg_lift_concat_operands(b, op, (uint32_t)mlirIntegerAttrGetValueInt(a),
                                 rt.dtype);
}

bool mg_lift_concat_operands(MgLiftBuilder *b, MlirOperation op,
                             uint32_t dim, uint8_t dtype) {
  MgLiftVal r;
  if (!mg_lift_get(b, mlirOperationGetOperand(op, 0), &r))
    return false;
  for (intptr_t i = 1; i < mlirOperationGetNumOperands(op); ++i) {
    MgLiftVal y;
    if (!mg_lift_get(b, mlirOperationGetOperand(op, i), &y) ||
        !mg_lift_view_concat(b, &r, &y, dim, &r))
      return false;
  }
  r.dtype = dtype;
  return mg_lift_set_result(b, op, &r);
}

// tensor.insert_slice of `src` into `dst` (static, unit strides) as data
// movement: dst with the slice replaced, concat(dst[..o), src, dst[o+n..))
// along the one dim where the slice is not all of dst (a KV-cache write at
// a fixed position); a slice that is all of dst is src. dst must be a
// value: an insert into tensor.empty leaves the rest undefined (a concat
// written as inserts is not lifted; tensor.concat is).
static bool translate_insert_slice(MgLiftBuilder *b, MlirOperation op) {
  if (mlirOperationGetNumOperands(op) != 2)
    return mg_lift_fail(b, op, "a slice with dynamic offsets or sizes");
  MlirValue src = mlirOperationGetOperand(op, 0),
            dstv = mlirOperationGetOperand(op, 1);
  if (mg_lift_is_empty(dstv))
    return mg_lift_fail(b, op,
                        "an insert into tensor.empty leaves the rest "
                        "undefined (tensor.concat lifts)");
  MgLiftVal dst, s, r;
  MgLiftType rt;
  if (!mg_lift_result_type(op, 0, &rt))
    return mg_lift_fail(b, op, "unsupported result type");
  if (!mg_lift_get(b, dstv, &dst) || !mg_lift_get(b, src, &s))
    return false;
  int64_t off[MG_LIFT_MAX_RANK], size[MG_LIFT_MAX_RANK];
  if (!static_slice(b, op, dst.rank, off, size))
    return false;
  int dim = -1;
  for (uint32_t d = 0; d < dst.rank; ++d)
    if (off[d] != 0 || size[d] != dst.dims[d]) {
      if (dim >= 0)
        return mg_lift_fail(b, op,
                            "the inserted slice is partial in two dims "
                            "(%d and %u)",
                            dim, d);
      dim = (int)d;
    }
  // The source in dst's rank (a rank-reducing insert drops unit dims).
  if (!mg_lift_view_reshape(b, &s, dst.rank, size, &s))
    return false;
  if (dim < 0) {
    r = s;
  } else {
    uint32_t d = (uint32_t)dim;
    int64_t end = off[d] + size[d], n = dst.dims[d];
    r = s;
    if (off[d] > 0) {
      MgLiftVal lo;
      if (!mg_lift_view_slice(b, &dst, d, 0, off[d], &lo) ||
          !mg_lift_view_concat(b, &lo, &r, d, &r))
        return false;
    }
    if (end < n) {
      MgLiftVal hi;
      if (!mg_lift_view_slice(b, &dst, d, end, n - end, &hi) ||
          !mg_lift_view_concat(b, &r, &hi, d, &r))
        return false;
    }
  }
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
  else if (mg_bridge_op_is(op, "tensor.concat"))
    ok = translate_concat(b, op);
  else if (mg_bridge_op_is(op, "tensor.insert_slice"))
    ok = translate_insert_slice(b, op);
  else if (mg_lift_is_conv(op))
    ok = mg_lift_translate_conv(b, op);
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
