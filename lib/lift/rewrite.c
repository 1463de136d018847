//===- rewrite.c - Putting one subprogram into the module -----------------===//
//
// For chunk k of @F, in this order (so a failure leaves @F untouched):
//  1. build @F_lax<k>_ref: the members and the floating ops they read,
//     cloned in their original order, block arguments for the inputs,
//     func.return of the outputs;
//  2. export the kernel graph as @F_lax<k> (lib/bridge) and mark it private
//     with ug.reference = @F_lax<k>_ref;
//  3. insert func.call @F_lax<k> right after the last member, redirect the
//     outputs' uses to the call's results and erase the members, last first.
// Floating ops stay in @F (possibly unused): unlift puts everything back.
//
// The reference carries `ug.unlift = array<i64: j, s_0, s_1, ...>`: j is the
// number of ops left in place inside the span (they end up just before the
// call), and s_i says where op i of the reference goes back: a member goes
// before the s_i-th of those j ops (s_i = j: just before the call); a copy
// of a floating op is dropped for the original, which is the stayed op
// -(s_i + 2), or (s_i = -1) the nearest identical op before the span.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include "mirage/bridge.h"

#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}


typedef struct Remap {
  MlirOperation root;
  const MgPtrMap *map;
  const MlirValue *to;
  bool ok;
} Remap;

static MlirWalkResult remap_op(MlirOperation op, void *ud) {
  Remap *r = ud;
  if (mlirOperationEqual(op, r->root))
    return MlirWalkResultAdvance;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    uint32_t k = mg_ptrmap_get(r->map, v.ptr);
    if (k != UINT32_MAX) {
      mlirOperationSetOperand(op, i, r->to[k]);
      continue;
    }
    MlirOperation owner =
        mlirValueIsAOpResult(v)
            ? mlirOpResultGetOwner(v)
            : mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
    if (!mg_lift_is_within(owner, r->root))
      r->ok = false;
  }
  return MlirWalkResultAdvance;
}

bool mg_lift_remap_nested(MlirOperation op, const MgPtrMap *map,
                          const MlirValue *to) {
  if (mlirOperationGetNumRegions(op) == 0)
    return true;
  Remap r = {op, map, to, true};
  mlirOperationWalk(op, remap_op, &r, MlirWalkPreOrder);
  return r.ok;
}

// Clones `src` with operands mapped; records its results. Null on failure.
static MlirOperation clone_mapped(MlirOperation src, MgPtrMap *map,
                                  MlirValue *to, uint32_t *num_to) {
  MlirOperation c = mlirOperationClone(src);
  bool ok = true;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(c) && ok; ++i) {
    uint32_t k = mg_ptrmap_get(map, mlirOperationGetOperand(c, i).ptr);
    if (k == UINT32_MAX)
      ok = false;
    else
      mlirOperationSetOperand(c, i, to[k]);
  }
  ok = ok && mg_lift_remap_nested(c, map, to);
  for (intptr_t i = 0; i < mlirOperationGetNumResults(src) && ok; ++i) {
    to[*num_to] = mlirOperationGetResult(c, i);
    ok = mg_ptrmap_put(map, mlirOperationGetResult(src, i).ptr, (*num_to)++);
  }
  if (!ok) {
    mlirOperationDestroy(c);
    return (MlirOperation){NULL};
  }
  return c;
}

static MlirOperation build_reference(MlirContext ctx, MgLiftChunk *c,
                                     const char *name, MlirLocation loc,
                                     MlirType *in_types, MlirType *out_types) {
  uint32_t cap = c->num_inputs;
  for (uint32_t i = 0; i < c->num_ref_ops; ++i)
    cap += (uint32_t)mlirOperationGetNumResults(c->ref_ops[i]);
  MlirValue *to = malloc((cap + 1) * sizeof *to);
  MlirValue *rets = malloc((c->num_outputs + 1) * sizeof *rets);
  MlirLocation *locs = malloc((c->num_inputs + 1) * sizeof *locs);
  int64_t *slots = malloc((c->num_ref_ops + 1) * sizeof *slots);
  MgPtrMap map;
  mg_ptrmap_init(&map);
  MlirOperation ref = {NULL};
  MlirBlock block = {NULL};
  bool ok = to && rets && locs && slots;
  if (ok) {
    for (uint32_t i = 0; i < c->num_inputs; ++i)
      locs[i] = loc;
    block = mlirBlockCreate(c->num_inputs, in_types, locs);
  }
  uint32_t num_to = 0;
  for (uint32_t i = 0; ok && i < c->num_inputs; ++i) {
    to[num_to] = mlirBlockGetArgument(block, i);
    ok = mg_ptrmap_put(&map, c->inputs[i].ptr, num_to++);
  }
  for (uint32_t i = 0; ok && i < c->num_ref_ops; ++i) {
    MlirOperation op = clone_mapped(c->ref_ops[i], &map, to, &num_to);
    ok = !mlirOperationIsNull(op);
    if (ok)
      mlirBlockAppendOwnedOperation(block, op);
  }
  for (uint32_t i = 0; ok && i < c->num_outputs; ++i) {
    uint32_t k = mg_ptrmap_get(&map, c->outputs[i].ptr);
    ok = k != UINT32_MAX;
    if (ok)
      rets[i] = to[k];
  }
  if (ok) {
    MlirOperationState rs = mlirOperationStateGet(str("func.return"), loc);
    mlirOperationStateAddOperands(&rs, c->num_outputs, rets);
    mlirBlockAppendOwnedOperation(block, mlirOperationCreate(&rs));
    slots[0] = c->num_stayed;
    memcpy(slots + 1, c->slots, c->num_ref_ops * sizeof *slots);
    MlirNamedAttribute attrs[4] = {
        mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("sym_name")),
                              mlirStringAttrGet(ctx, str(name))),
        mlirNamedAttributeGet(
            mlirIdentifierGet(ctx, str("function_type")),
            mlirTypeAttrGet(mlirFunctionTypeGet(ctx, c->num_inputs, in_types,
                                                c->num_outputs, out_types))),
        mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("sym_visibility")),
                              mlirStringAttrGet(ctx, str("private"))),
        mlirNamedAttributeGet(
            mlirIdentifierGet(ctx, str("ug.unlift")),
            mlirDenseI64ArrayGet(ctx, c->num_ref_ops + 1, slots)),
    };
    MlirRegion region = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(region, block);
    block.ptr = NULL;
    MlirOperationState fs = mlirOperationStateGet(str("func.func"), loc);
    mlirOperationStateAddAttributes(&fs, 4, attrs);
    mlirOperationStateAddOwnedRegions(&fs, 1, &region);
    ref = mlirOperationCreate(&fs);
  }
  if (!mlirBlockIsNull(block))
    mlirBlockDestroy(block);
  mg_ptrmap_free(&map);
  free(to);
  free(rets);
  free(locs);
  free(slots);
  return ref;
}

MgStatus mg_lift_rewrite_chunk(MlirOperation module, MlirOperation *after,
                               const char *name, MgLiftChunk *c,
                               MlirOperation *call_out, MgDiag *diag) {
  MlirContext ctx = mlirOperationGetContext(module);
  char ref_name[512];
  snprintf(ref_name, sizeof ref_name, "%s_ref", name);
  MlirType *in_types = malloc((c->num_inputs + 1) * sizeof *in_types);
  MlirType *out_types = malloc((c->num_outputs + 1) * sizeof *out_types);
  MlirLocation *locs = malloc((c->num_members + 1) * sizeof *locs);
  if (!in_types || !out_types || !locs) {
    free(in_types);
    free(out_types);
    free(locs);
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  }
  for (uint32_t i = 0; i < c->num_inputs; ++i)
    in_types[i] = mlirValueGetType(c->inputs[i]);
  for (uint32_t i = 0; i < c->num_outputs; ++i)
    out_types[i] = mlirValueGetType(c->outputs[i]);
  for (uint32_t i = 0; i < c->num_members; ++i)
    locs[i] = mlirOperationGetLocation(c->members[i]);
  MlirLocation loc = c->num_members == 1
                         ? locs[0]
                         : mlirLocationFusedGet(ctx, c->num_members, locs,
                                                mlirAttributeGetNull());
  MgStatus status = MG_STATUS_OK;
  MlirOperation ref =
      build_reference(ctx, c, ref_name, loc, in_types, out_types);
  MlirOperation kernel = {NULL};
  if (mlirOperationIsNull(ref)) {
    status = mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                         "internal: could not copy the ops of '@%s'", name);
  } else if (mlirLogicalResultIsFailure(
                 mg_bridge_export(module, c->prog, name, NULL, loc, &kernel)) ||
             mlirOperationIsNull(kernel)) {
    mlirOperationDestroy(ref);
    status = mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                         "internal: could not insert kernel graph '@%s'", name);
  }
  if (status == MG_STATUS_OK) {
    mlirOperationSetAttributeByName(kernel, str("sym_visibility"),
                                    mlirStringAttrGet(ctx, str("private")));
    mlirOperationSetAttributeByName(
        kernel, str("ug.reference"),
        mlirFlatSymbolRefAttrGet(ctx, str(ref_name)));
    mlirOperationMoveAfter(kernel, *after);
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
    mlirBlockInsertOwnedOperationAfter(body, kernel, ref);
    *after = ref;

    MlirNamedAttribute callee =
        mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("callee")),
                              mlirFlatSymbolRefAttrGet(ctx, str(name)));
    MlirOperationState cs = mlirOperationStateGet(str("func.call"), loc);
    mlirOperationStateAddOperands(&cs, c->num_inputs, c->inputs);
    mlirOperationStateAddResults(&cs, c->num_outputs, out_types);
    mlirOperationStateAddAttributes(&cs, 1, &callee);
    MlirOperation call = mlirOperationCreate(&cs);
    *call_out = call;
    mlirBlockInsertOwnedOperationAfter(c->block, c->members[c->num_members - 1],
                                       call);
    for (uint32_t i = 0; i < c->num_outputs; ++i)
      mlirValueReplaceAllUsesOfWith(c->outputs[i],
                                    mlirOperationGetResult(call, i));
    // Members only read each other now; erase the readers first.
    for (uint32_t i = c->num_members; i-- > 0;)
      mlirOperationDestroy(c->members[i]);
  }
  free(in_types);
  free(out_types);
  free(locs);
  return status;
}
