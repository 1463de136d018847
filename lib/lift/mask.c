//===- mask.c - Boolean masks written as tosa.select ----------------------===//
//
// Causal and padding masks reach attention as `tosa.select %mask, %x, %fill`
// (ONNX Where, torch masked_fill) with an i1 mask and a splat fill (-inf or
// a large negative). The mask is a constant, a function argument (padding),
// or computed at run time from integers (a causal mask from
// tosa.greater_equal on position ids, or arith.cmpi in a linalg.generic).
// The μGraph has no select, but it is an addition:
//   select(mask, x, fill) = x + A,  A = select(mask, 0, fill)
// (fill on the true side: A = select(mask, fill, 0)). x + (-inf) = -inf
// keeps -inf exact; a product x·m + fill·(1 - m) would not (-inf·0 = NaN).
//
// A is a new value, so it becomes a kernel graph input keyed by the
// select's own result (inputs are values, and A has none until rewriting);
// the i1 mask itself never enters the kernel graph or its reference, and
// the ops computing it stay in the caller:
//  - the caller computes A just before the call, as a tosa.select of the
//    mask, a zero splat and the fill, both new ops marked ug.boundary (the
//    mask dominates the call: it is defined before the select, and it is
//    computed from no float value, so from no member of the chunk);
//  - the reference computes `tosa.add %x, %A {ug.boundary}` in place of the
//    select, so that it is the function of its arguments the kernel graph
//    is (tools/mirage-run feeds both the same A, drawn at random: the
//    identity x + A holds for every A, so checking on random A is sound);
//  - unlift rebuilds the select from that add and the caller's boundary
//    select (mask and fill), then erases A and the zero splat.
// The same masks written as an arith.select in a linalg.generic body
// (torch-mlir's linalg, JAX) take the same path with their own IR surgery
// (mask_linalg.c); the functions below dispatch on the op.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static bool is_i1_tensor(MlirValue v) {
  MlirType t = mlirValueGetType(v);
  return mlirTypeIsARankedTensor(t) &&
         mlirTypeIsAInteger(mlirShapedTypeGetElementType(t)) &&
         mlirIntegerTypeGetWidth(mlirShapedTypeGetElementType(t)) == 1;
}

bool mg_lift_is_boundary(MlirOperation op) {
  return !mlirOperationIsNull(op) &&
         !mlirAttributeIsNull(mg_lift_attr(op, "ug.boundary"));
}

// Integer, index or boolean scalars and tensors: what a mask is computed
// from (iotas, position ids, comparisons).
static bool is_integer_valued(MlirValue v) {
  MlirType t = mlirValueGetType(v);
  if (mlirTypeIsAShaped(t))
    t = mlirShapedTypeGetElementType(t);
  return mlirTypeIsAInteger(t) || mlirTypeIsAIndex(t);
}

typedef struct MaskWalk {
  uint32_t budget; // ops still to visit: masks come from short integer chains
  bool ok;
} MaskWalk;

static bool integer_slice(MlirValue v, void *ud);

// True when `op` computes its results from integer values only (operands
// and the values its regions capture), recursively.
static bool integer_op(MlirOperation op, MaskWalk *w) {
  if (w->budget == 0)
    return w->ok = false;
  --w->budget;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (!integer_slice(mlirOperationGetOperand(op, i), w))
      return false;
  return mg_lift_for_each_capture(op, integer_slice, w);
}

// Constants of any type (a !tosa.shape, a float splat) read nothing
// computed either.
static bool integer_slice(MlirValue v, void *ud) {
  MaskWalk *w = ud;
  MlirOperation def = mg_lift_def_op(v);
  if (w->ok && !mlirOperationIsNull(def) && mg_lift_is_floating(def))
    return true;
  if (!w->ok || !is_integer_valued(v))
    return w->ok = false;
  return mlirOperationIsNull(def) || integer_op(def, w); // an argument
}

const char *mg_lift_mask_why(MlirValue mask) {
  if (!is_i1_tensor(mask))
    return "the mask is not an i1 tensor";
  MaskWalk w = {64, true};
  if (!integer_slice(mask, &w))
    return "its mask is computed from float values (a mask lifts when it "
           "is a constant, an argument or computed from integers)";
  return NULL;
}

int mg_lift_mask_operand(MlirOperation op) {
  if (mg_bridge_op_is(op, "tosa.select"))
    return 0;
  int k;
  return mlirOperationIsNull(mg_lift_generic_select(op, &k)) ? -1 : k;
}

int mg_lift_select_fill(MlirOperation sel) {
  if (mg_bridge_op_is(sel, "linalg.generic"))
    return mg_lift_generic_fill(sel);
  if (!mg_bridge_op_is(sel, "tosa.select") ||
      mlirOperationGetNumOperands(sel) != 3 || mg_lift_is_boundary(sel) ||
      mg_lift_mask_why(mlirOperationGetOperand(sel, 0)))
    return -1;
  double s;
  if (mg_lift_get_scalar(mlirOperationGetOperand(sel, 2), &s))
    return 2;
  if (mg_lift_get_scalar(mlirOperationGetOperand(sel, 1), &s))
    return 1;
  return -1;
}

MlirOperation mg_lift_select_input(const MgLiftChunk *c, uint32_t i) {
  MlirValue v = c->inputs[i];
  if (!mlirValueIsAOpResult(v))
    return (MlirOperation){NULL};
  MlirOperation def = mlirOpResultGetOwner(v);
  for (uint32_t k = 0; k < c->num_members; ++k)
    if (mlirOperationEqual(c->members[k], def))
      return mg_lift_mask_operand(def) >= 0 ? def : (MlirOperation){NULL};
  return (MlirOperation){NULL};
}

// The state of a tosa op `name` on `n` operands with one result of `type`
// (all three ops this file creates: the select A, the add and the select
// unlift restores).
static MlirOperationState tosa_state(const char *name, MlirLocation loc,
                                     intptr_t n, const MlirValue *operands,
                                     MlirType type) {
  MlirOperationState s = mlirOperationStateGet(str(name), loc);
  mlirOperationStateAddOperands(&s, n, operands);
  mlirOperationStateAddResults(&s, 1, &type);
  return s;
}

MlirOperation mg_lift_boundary_op(MlirOperationState *s) {
  MlirContext ctx = mlirLocationGetContext(s->location);
  MlirNamedAttribute mark = mlirNamedAttributeGet(
      mlirIdentifierGet(ctx, str("ug.boundary")), mlirUnitAttrGet(ctx));
  mlirOperationStateAddAttributes(s, 1, &mark);
  return mlirOperationCreate(s);
}

MlirType mg_lift_mask_type(MlirOperation sel, MlirType input) {
  int k;
  MlirOperation body_sel = mg_lift_generic_select(sel, &k);
  if (mlirOperationIsNull(body_sel))
    return input;
  MlirType mt = mlirValueGetType(mlirOperationGetOperand(sel, k));
  intptr_t rank = mlirShapedTypeGetRank(mt);
  int64_t dims[MG_LIFT_MAX_RANK];
  for (intptr_t d = 0; d < rank && d < MG_LIFT_MAX_RANK; ++d)
    dims[d] = mlirShapedTypeGetDimSize(mt, d);
  return mlirRankedTensorTypeGet(
      rank, dims, mlirShapedTypeGetElementType(input), mlirAttributeGetNull());
}

MlirValue mg_lift_mask_make(MlirBlock block, MlirOperation at,
                            MlirOperation sel, MlirType type,
                            MlirLocation loc) {
  if (mg_bridge_op_is(sel, "linalg.generic"))
    return mg_lift_generic_mask_make(block, at, sel, type, loc);
  int fill = mg_lift_select_fill(sel);
  intptr_t rank = mlirShapedTypeGetRank(type);
  if (fill < 0 || rank > MG_LIFT_MAX_RANK)
    return (MlirValue){NULL};
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType elem = mlirShapedTypeGetElementType(type);
  int64_t ones[MG_LIFT_MAX_RANK];
  for (intptr_t d = 0; d < rank; ++d)
    ones[d] = 1;
  MlirType zt = mlirRankedTensorTypeGet(rank, ones, elem,
                                        mlirAttributeGetNull());
  MlirAttribute zeros = mlirDenseElementsAttrSplatGet(
      zt, mlirFloatAttrDoubleGet(ctx, elem, 0.0));
  MlirNamedAttribute values =
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("values")), zeros);
  MlirOperationState cs = mlirOperationStateGet(str("tosa.const"), loc);
  mlirOperationStateAddAttributes(&cs, 1, &values);
  mlirOperationStateAddResults(&cs, 1, &zt);
  MlirOperation zero = mg_lift_boundary_op(&cs);
  MlirValue operands[3] = {mlirOperationGetOperand(sel, 0),
                           mlirOperationGetResult(zero, 0),
                           mlirOperationGetOperand(sel, fill)};
  if (fill == 1) { // the fill where the mask holds
    operands[1] = operands[2];
    operands[2] = mlirOperationGetResult(zero, 0);
  }
  MlirOperationState ss = tosa_state("tosa.select", loc, 3, operands, type);
  MlirOperation a = mg_lift_boundary_op(&ss);
  mg_lift_place_before(block, at, zero, a);
  return mlirOperationGetResult(a, 0);
}

void mg_lift_place_before(MlirBlock block, MlirOperation at,
                          MlirOperation first, MlirOperation second) {
  if (mlirOperationIsNull(at)) {
    mlirBlockAppendOwnedOperation(block, first);
    mlirBlockAppendOwnedOperation(block, second);
  } else {
    mlirBlockInsertOwnedOperationBefore(block, at, first);
    mlirBlockInsertOwnedOperationBefore(block, at, second);
  }
}

MlirOperation mg_lift_mask_stand_in(MlirOperation sel,
                                    const MlirValue *operands, MlirValue a) {
  if (mg_bridge_op_is(sel, "linalg.generic"))
    return mg_lift_generic_stand_in(sel, operands, a);
  int fill = mg_lift_select_fill(sel);
  if (fill < 0 || mlirValueIsNull(operands[3 - fill]))
    return (MlirOperation){NULL};
  MlirValue xa[2] = {operands[3 - fill], a};
  MlirType type = mlirValueGetType(mlirOperationGetResult(sel, 0));
  MlirOperationState s =
      tosa_state("tosa.add", mlirOperationGetLocation(sel), 2, xa, type);
  return mg_lift_boundary_op(&s);
}

// The select a tosa.add stand-in (operands mapped) stands for, or null.
static MlirOperation restore_select(MlirOperation add) {
  if (mlirOperationGetNumOperands(add) != 2 || !mg_lift_is_boundary(add) ||
      !mg_bridge_op_is(add, "tosa.add"))
    return (MlirOperation){NULL};
  MlirValue x = mlirOperationGetOperand(add, 0),
            a = mlirOperationGetOperand(add, 1);
  if (!mlirValueIsAOpResult(a))
    return (MlirOperation){NULL};
  MlirOperation def = mlirOpResultGetOwner(a);
  if (!mg_lift_is_boundary(def) || !mg_bridge_op_is(def, "tosa.select"))
    return (MlirOperation){NULL};
  // The zero splat is the boundary operand; the fill is the other one.
  MlirValue on_true = mlirOperationGetOperand(def, 1),
            on_false = mlirOperationGetOperand(def, 2);
  bool fill_true = !mg_lift_is_boundary(mg_lift_def_op(on_true));
  MlirValue operands[3] = {mlirOperationGetOperand(def, 0),
                           fill_true ? on_true : x, fill_true ? x : on_false};
  MlirType type = mlirValueGetType(mlirOperationGetResult(add, 0));
  MlirOperationState s = tosa_state(
      "tosa.select", mlirOperationGetLocation(add), 3, operands, type);
  return mlirOperationCreate(&s);
}

MlirOperation mg_lift_mask_restore(MlirOperation copy) {
  if (mg_bridge_op_is(copy, "linalg.generic"))
    return mg_lift_generic_restore(copy);
  return restore_select(copy);
}
