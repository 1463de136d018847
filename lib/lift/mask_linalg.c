//===- mask_linalg.c - Boolean masks written as arith.select in linalg ----===//
//
// torch-mlir's linalg backend (torch.where, masked_fill) and JAX
// (jnp.where) write a mask as a linalg.generic whose body selects:
//   ins(%mask, %x : tensor<..xi1>, tensor<..xf32>)
//   ^bb0(%m: i1, %v: f32, %o: f32):
//     %r = arith.select %m, %v, %fill : f32   (or %fill, %v)
// with %fill a constant, in the body or captured from outside, and maybe
// more arithmetic around the select. It lifts as mask.c's tosa.select
// does: the select becomes v + A, A = select(mask, 0, fill) an input keyed
// by the generic's result, of the mask operand's own shape (read through
// the mask's indexing map). Here:
//  - the caller computes A just before the call, a linalg.generic over the
//    mask (identity maps) into a tensor.empty, both marked ug.boundary; A
//    has the mask's shape, and boundary reshapes (rewrite.c) give it the
//    unit dims the kernel graph reads it with, and take them off again at
//    the start of the reference;
//  - the reference keeps the generic with its mask operand replaced by A
//    (the body argument typed as A's element) and, in the body, the select
//    itself, now choosing by a ug.boundary constant between the fill and
//    `arith.addf %v, %a {ug.boundary}`: select(true, v + a, fill) is v + a,
//    so the reference is the kernel graph's function of A, and the select
//    keeps its place and its fill operand for unlift;
//  - unlift puts the mask back from the caller's boundary generic and the
//    select's condition and operand back, and drops the constant and the
//    addf.
// The mask's body argument must have that one use (the select's
// condition): anything else reading it would need the i1 mask in the
// kernel graph.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static bool is_i1(MlirType t) {
  return mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 1;
}

static MlirBlock body_of(MlirOperation op) {
  if (mlirOperationGetNumRegions(op) < 1)
    return (MlirBlock){NULL};
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
}

// Number of ins of a linalg.generic, or -1.
static intptr_t num_ins(MlirOperation op) {
  MlirAttribute seg = mg_lift_attr(op, "operandSegmentSizes");
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) ||
      mlirDenseArrayGetNumElements(seg) != 2)
    return -1;
  return mlirDenseI32ArrayGetElement(seg, 0);
}

MlirOperation mg_lift_generic_select(MlirOperation op, int *k) {
  MlirOperation none = {NULL};
  if (!mg_bridge_op_is(op, "linalg.generic"))
    return none;
  MlirBlock body = body_of(op);
  intptr_t n = num_ins(op);
  if (mlirBlockIsNull(body) || n < 0 || n > mlirOperationGetNumOperands(op) ||
      mlirBlockGetNumArguments(body) < n)
    return none;
  for (intptr_t i = 0; i < n; ++i) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (!mlirTypeIsARankedTensor(t) || !is_i1(mlirShapedTypeGetElementType(t)))
      continue;
    MlirOpOperand use = mlirValueGetFirstUse(mlirBlockGetArgument(body, i));
    if (mlirOpOperandIsNull(use) ||
        !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)) ||
        mlirOpOperandGetOperandNumber(use) != 0)
      continue;
    MlirOperation sel = mlirOpOperandGetOwner(use);
    if (!mg_bridge_op_is(sel, "arith.select") ||
        mlirOperationGetNumOperands(sel) != 3 ||
        !mlirBlockEqual(mlirOperationGetBlock(sel), body))
      continue;
    *k = (int)i;
    return sel;
  }
  return none;
}

int mg_lift_generic_fill(MlirOperation op) {
  int k;
  MlirOperation sel = mg_lift_generic_select(op, &k);
  if (mlirOperationIsNull(sel) || mg_lift_is_boundary(op) ||
      mg_lift_mask_why(mlirOperationGetOperand(op, k)))
    return -1;
  double s;
  if (mg_lift_get_scalar(mlirOperationGetOperand(sel, 2), &s))
    return 2;
  if (mg_lift_get_scalar(mlirOperationGetOperand(sel, 1), &s))
    return 1;
  return -1;
}

// An op's operands and its attributes, as the C API takes them.
typedef struct ValueList {
  intptr_t n;
  const MlirValue *v;
} ValueList;
typedef struct AttrList {
  intptr_t n;
  const MlirNamedAttribute *a;
} AttrList;

// `name` with one result of `type` (null: none); takes `region` (or NULL).
static MlirOperation create(const char *name, MlirLocation loc,
                            ValueList operands, MlirType type, AttrList attrs,
                            MlirRegion *region) {
  MlirOperationState s = mlirOperationStateGet(str(name), loc);
  mlirOperationStateAddOperands(&s, operands.n, operands.v);
  if (!mlirTypeIsNull(type))
    mlirOperationStateAddResults(&s, 1, &type);
  mlirOperationStateAddAttributes(&s, attrs.n, attrs.a);
  if (region)
    mlirOperationStateAddOwnedRegions(&s, 1, region);
  return mlirOperationCreate(&s);
}

static MlirNamedAttribute named(MlirContext ctx, const char *name,
                                MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, str(name)), a);
}

// `arith.constant` of `value` (a float, or an i1 when `type` is i1),
// marked ug.boundary when `boundary`.
static MlirOperation constant(MlirType type, double value, bool boundary,
                              MlirLocation loc) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirNamedAttribute attrs[2] = {
      named(ctx, "value",
            is_i1(type) ? mlirIntegerAttrGet(type, value != 0)
                        : mlirFloatAttrDoubleGet(ctx, type, value)),
      named(ctx, "ug.boundary", mlirUnitAttrGet(ctx))};
  return create("arith.constant", loc, (ValueList){0, NULL}, type,
                (AttrList){boundary ? 2 : 1, attrs}, NULL);
}

MlirValue mg_lift_generic_mask_make(MlirBlock block, MlirOperation at,
                                    MlirOperation gen, MlirType type,
                                    MlirLocation loc) {
  int k, fill = mg_lift_generic_fill(gen);
  MlirOperation sel = mg_lift_generic_select(gen, &k);
  double f;
  if (fill < 0 || !mg_lift_get_scalar(mlirOperationGetOperand(sel, fill), &f))
    return (MlirValue){NULL};
  MlirValue mask = mlirOperationGetOperand(gen, k);
  MlirType mt = mlirValueGetType(mask);
  intptr_t rank = mlirShapedTypeGetRank(mt);
  if (!mlirTypeIsARankedTensor(type) || mlirShapedTypeGetRank(type) != rank ||
      rank > MG_LIFT_MAX_RANK)
    return (MlirValue){NULL};
  for (intptr_t d = 0; d < rank; ++d)
    if (mlirShapedTypeGetDimSize(type, d) != mlirShapedTypeGetDimSize(mt, d))
      return (MlirValue){NULL};
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType elem = mlirShapedTypeGetElementType(type);
  MlirNamedAttribute mark = named(ctx, "ug.boundary", mlirUnitAttrGet(ctx));
  MlirOperation empty =
      create("tensor.empty", loc, (ValueList){0, NULL}, type,
             (AttrList){1, &mark}, NULL);
  // The body: select(m, 0, fill), or select(m, fill, 0).
  MlirType args[2] = {mlirShapedTypeGetElementType(mt), elem};
  MlirLocation locs[2] = {loc, loc};
  MlirBlock body = mlirBlockCreate(2, args, locs);
  MlirOperation zero = constant(elem, 0.0, false, loc),
                value = constant(elem, f, false, loc);
  mlirBlockAppendOwnedOperation(body, zero);
  mlirBlockAppendOwnedOperation(body, value);
  MlirValue so[3] = {mlirBlockGetArgument(body, 0),
                     mlirOperationGetResult(zero, 0),
                     mlirOperationGetResult(value, 0)};
  if (fill == 1) {
    so[1] = so[2];
    so[2] = mlirOperationGetResult(zero, 0);
  }
  MlirOperation s = create("arith.select", loc, (ValueList){3, so}, elem,
                           (AttrList){0, NULL}, NULL);
  mlirBlockAppendOwnedOperation(body, s);
  MlirValue r = mlirOperationGetResult(s, 0);
  mlirBlockAppendOwnedOperation(
      body, create("linalg.yield", loc, (ValueList){1, &r}, (MlirType){NULL},
                   (AttrList){0, NULL}, NULL));
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirAttribute id =
      mlirAffineMapAttrGet(mlirAffineMapMultiDimIdentityGet(ctx, rank));
  MlirAttribute maps[2] = {id, id};
  MlirAttribute parallel[MG_LIFT_MAX_RANK];
  MlirAttribute p =
      mlirAttributeParseGet(ctx, str("#linalg.iterator_type<parallel>"));
  for (intptr_t d = 0; d < rank && d < MG_LIFT_MAX_RANK; ++d)
    parallel[d] = p;
  int32_t segments[2] = {1, 1};
  MlirNamedAttribute attrs[4] = {
      named(ctx, "indexing_maps", mlirArrayAttrGet(ctx, 2, maps)),
      named(ctx, "iterator_types", mlirArrayAttrGet(ctx, rank, parallel)),
      named(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, segments)),
      mark};
  MlirValue operands[2] = {mask, mlirOperationGetResult(empty, 0)};
  MlirOperation a =
      create("linalg.generic", loc, (ValueList){2, operands}, type,
             (AttrList){4, attrs}, &region);
  mg_lift_place_before(block, at, empty, a);
  return mlirOperationGetResult(a, 0);
}

MlirOperation mg_lift_generic_stand_in(MlirOperation gen,
                                       const MlirValue *operands, MlirValue a) {
  int k, fill = mg_lift_generic_fill(gen);
  if (fill < 0 || mlirOperationIsNull(mg_lift_generic_select(gen, &k)))
    return (MlirOperation){NULL};
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(gen); ++i)
    if (i != k && mlirValueIsNull(operands[i]))
      return (MlirOperation){NULL};
  MlirOperation copy = mlirOperationClone(gen);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(copy); ++i)
    mlirOperationSetOperand(copy, i, i == k ? a : operands[i]);
  MlirValue arg = mlirBlockGetArgument(body_of(copy), k);
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(a));
  mlirValueSetType(arg, elem);
  MlirOperation sel = mlirOpOperandGetOwner(mlirValueGetFirstUse(arg));
  MlirLocation loc = mlirOperationGetLocation(sel);
  // select(true, v + a, fill) or select(false, fill, v + a): v + a.
  MlirOperation cond = constant(
      mlirIntegerTypeGet(mlirLocationGetContext(loc), 1), fill == 2, true, loc);
  MlirValue sum_in[2] = {mlirOperationGetOperand(sel, 3 - fill), arg};
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirNamedAttribute mark = named(ctx, "ug.boundary", mlirUnitAttrGet(ctx));
  MlirOperation sum =
      create("arith.addf", loc, (ValueList){2, sum_in},
             mlirValueGetType(sum_in[0]), (AttrList){1, &mark}, NULL);
  MlirBlock body = body_of(copy);
  mlirBlockInsertOwnedOperationBefore(body, sel, cond);
  mlirBlockInsertOwnedOperationBefore(body, sel, sum);
  mlirOperationSetOperand(sel, 0, mlirOperationGetResult(cond, 0));
  mlirOperationSetOperand(sel, 3 - fill, mlirOperationGetResult(sum, 0));
  return copy;
}

// The boundary op defining `v` in `block` (null block: anywhere), or null.
static MlirOperation boundary_def(MlirValue v, const char *name,
                                  MlirBlock block) {
  MlirOperation def = mg_lift_def_op(v);
  if (mlirOperationIsNull(def) || !mg_lift_is_boundary(def) ||
      !mg_bridge_op_is(def, name) ||
      (!mlirBlockIsNull(block) &&
       !mlirBlockEqual(mlirOperationGetBlock(def), block)))
    return (MlirOperation){NULL};
  return def;
}

MlirOperation mg_lift_generic_restore(MlirOperation copy) {
  MlirOperation none = {NULL};
  MlirBlock body = body_of(copy);
  if (!mg_bridge_op_is(copy, "linalg.generic") || mlirBlockIsNull(body))
    return none;
  for (MlirOperation sel = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(sel); sel = mlirOperationGetNextInBlock(sel)) {
    if (!mg_bridge_op_is(sel, "arith.select") ||
        mlirOperationGetNumOperands(sel) != 3)
      continue;
    MlirOperation cond =
        boundary_def(mlirOperationGetOperand(sel, 0), "arith.constant", body);
    int side = 1;
    MlirOperation sum = {NULL};
    for (; side <= 2 && mlirOperationIsNull(sum); ++side)
      sum =
          boundary_def(mlirOperationGetOperand(sel, side), "arith.addf", body);
    --side;
    if (mlirOperationIsNull(cond) || mlirOperationIsNull(sum))
      continue;
    MlirValue arg = mlirOperationGetOperand(sum, 1);
    if (!mlirValueIsABlockArgument(arg) ||
        !mlirBlockEqual(mlirBlockArgumentGetOwner(arg), body))
      continue;
    intptr_t k = mlirBlockArgumentGetArgNumber(arg);
    if (k >= mlirOperationGetNumOperands(copy))
      continue;
    MlirOperation a = boundary_def(mlirOperationGetOperand(copy, k),
                                   "linalg.generic", (MlirBlock){NULL});
    if (mlirOperationIsNull(a) || mlirOperationGetNumOperands(a) < 1)
      continue;
    MlirValue mask = mlirOperationGetOperand(a, 0);
    mlirOperationSetOperand(copy, k, mask);
    mlirValueSetType(arg, mlirShapedTypeGetElementType(mlirValueGetType(mask)));
    mlirOperationSetOperand(sel, 0, arg);
    mlirOperationSetOperand(sel, side, mlirOperationGetOperand(sum, 0));
    mlirOperationDestroy(sum);
    mlirOperationDestroy(cond);
    return copy;
  }
  return none;
}
