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
// Boundary reshapes. An input whose μGraph tensor differs from its IR type
// by unit dims (a rank-1 bias read as 1x1xD, a 2-D weight as 1xKxN: see
// reroot_input in alg.c) enters the call through tensor.expand_shape /
// collapse_shape ops inserted just before the call, and the reference
// starts with the inverse reshapes; both carry the unit attribute
// `ug.boundary`, which tells unlift to drop the pair. Both are views: no
// data moves. A select on an i1 mask lifted as an addition gets its
// additive mask the same way (boundary ops before the call, a boundary
// tosa.add in the reference: mask.c).
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include "mirage/bridge.h"

#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

/// The type of kernel input `i`: its μGraph tensor's stored shape (the
/// layout undone) with the IR type's element type.
static MlirType kernel_input_type(const MgLiftChunk *c, uint32_t i,
                                  MlirType ir) {
  const MgGraph *g = &c->prog->graphs[0];
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    if (op->kind != MG_OP_INPUT || op->attr != (int32_t)i)
      continue;
    const MgTensor *t = &g->tensors[op->outputs[0]];
    int64_t dims[MG_MAX_DIMS];
    mg_graph_stored_dims(g, op->outputs[0], dims);
    for (uint32_t d = 0; d < t->rank; ++d) // a symbol is the IR's `?`
      if (dims[d] == MG_LIFT_SYM_SIZE && mg_lift_type_is_dynamic(ir))
        dims[d] = mlirShapedTypeGetDynamicSize();
    return mlirRankedTensorTypeGet(t->rank, dims,
                                   mlirShapedTypeGetElementType(ir),
                                   mlirAttributeGetNull());
  }
  return ir;
}

/// Reassociation that folds the dims of `to` (rank m) into the dims of
/// `from` (rank n >= m) they come from, matching each dim of `to` in order
/// and unit dims of `from` to the group before (or the first); false when
/// the shapes are not a unit-dim reshape of each other in that order.
static bool fold_groups(const int64_t *from, intptr_t n, const int64_t *to,
                        intptr_t m, int *group_of) {
  intptr_t p = 0;
  for (intptr_t j = 0; j < m; ++j) {
    while (p < n && from[p] != to[j] && from[p] == 1)
      group_of[p++] = j == 0 ? 0 : (int)j - 1;
    if (p == n || from[p] != to[j])
      return false;
    group_of[p++] = (int)j;
  }
  for (; p < n; ++p) {
    if (from[p] != 1)
      return false;
    group_of[p] = m ? (int)m - 1 : 0;
  }
  return m > 0;
}

static MlirAttribute reassociation(MlirContext ctx, const int *group_of,
                                   intptr_t n, intptr_t m) {
  MlirAttribute groups[MG_MAX_DIMS + 1], idx[MG_MAX_DIMS + 1];
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  for (intptr_t j = 0; j < m; ++j) {
    intptr_t k = 0;
    for (intptr_t p = 0; p < n; ++p)
      if (group_of[p] == j)
        idx[k++] = mlirIntegerAttrGet(i64, p);
    groups[j] = mlirArrayAttrGet(ctx, k, idx);
  }
  return mlirArrayAttrGet(ctx, m, groups);
}

static void insert_op(MlirBlock block, MlirOperation at, MlirOperation op) {
  if (mlirOperationIsNull(at))
    mlirBlockAppendOwnedOperation(block, op);
  else
    mlirBlockInsertOwnedOperationBefore(block, at, op);
}

/// `tensor.dim %v, d` (and its index constant), both marked ug.boundary and
/// inserted before `at`: the size an expand_shape needs for each `?` it
/// makes, which unlift drops with the reshape.
static MlirValue boundary_dim(MlirBlock block, MlirOperation at, MlirValue v,
                              int64_t d, MlirLocation loc) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType index = mlirIndexTypeGet(ctx);
  MlirNamedAttribute value = mlirNamedAttributeGet(
      mlirIdentifierGet(ctx, str("value")), mlirIntegerAttrGet(index, d));
  MlirOperationState cs = mlirOperationStateGet(str("arith.constant"), loc);
  mlirOperationStateAddAttributes(&cs, 1, &value);
  mlirOperationStateAddResults(&cs, 1, &index);
  MlirOperation c = mg_lift_boundary_op(&cs);
  insert_op(block, at, c);
  MlirValue operands[2] = {v, mlirOperationGetResult(c, 0)};
  MlirOperationState ds = mlirOperationStateGet(str("tensor.dim"), loc);
  mlirOperationStateAddOperands(&ds, 2, operands);
  mlirOperationStateAddResults(&ds, 1, &index);
  MlirOperation dim = mg_lift_boundary_op(&ds);
  insert_op(block, at, dim);
  return mlirOperationGetResult(dim, 0);
}

/// One reshape op `v` -> `to` (expand or collapse), marked ug.boundary; an
/// expand to dynamic dims reads their sizes from `v` by tensor.dim ops
/// inserted before `at` in `block`. The reshape itself is not inserted.
static MlirOperation reshape_op(MlirBlock block, MlirOperation at, MlirValue v,
                                MlirType to, MlirLocation loc) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType from = mlirValueGetType(v);
  intptr_t n = mlirShapedTypeGetRank(from), m = mlirShapedTypeGetRank(to);
  int64_t fd[MG_MAX_DIMS + 1], td[MG_MAX_DIMS + 1];
  int group_of[MG_MAX_DIMS + 1];
  if (n > MG_MAX_DIMS + 1 || m > MG_MAX_DIMS + 1)
    return (MlirOperation){NULL};
  for (intptr_t i = 0; i < n; ++i)
    fd[i] = mlirShapedTypeGetDimSize(from, i);
  for (intptr_t i = 0; i < m; ++i)
    td[i] = mlirShapedTypeGetDimSize(to, i);
  bool expand = m > n;
  if (expand ? !fold_groups(td, m, fd, n, group_of)
             : !fold_groups(fd, n, td, m, group_of))
    return (MlirOperation){NULL};
  MlirValue sizes[MG_MAX_DIMS + 1];
  intptr_t num_sizes = 0;
  for (intptr_t j = 0; expand && j < m; ++j)
    if (mlirShapedTypeIsDynamicSize(td[j]))
      sizes[num_sizes++] = boundary_dim(block, at, v, group_of[j], loc);
  MlirNamedAttribute attrs[2];
  int na = 0;
  attrs[na++] = mlirNamedAttributeGet(
      mlirIdentifierGet(ctx, str("reassociation")),
      reassociation(ctx, group_of, expand ? m : n, expand ? n : m));
  if (expand)
    attrs[na++] = mlirNamedAttributeGet(
        mlirIdentifierGet(ctx, str("static_output_shape")),
        mlirDenseI64ArrayGet(ctx, m, td));
  MlirOperationState s = mlirOperationStateGet(
      str(expand ? "tensor.expand_shape" : "tensor.collapse_shape"), loc);
  mlirOperationStateAddOperands(&s, 1, &v);
  mlirOperationStateAddOperands(&s, num_sizes, sizes);
  mlirOperationStateAddResults(&s, 1, &to);
  mlirOperationStateAddAttributes(&s, na, attrs);
  return mg_lift_boundary_op(&s);
}

/// `v` reshaped to `to` by ops inserted before `at` in `block` (or appended
/// when `at` is null): one expand or collapse where the unit dims allow it,
/// else a collapse to the non-unit dims and an expand from them. Null on
/// failure.
static MlirValue reshape_to(MlirBlock block, MlirOperation at, MlirValue v,
                            MlirType to, MlirLocation loc) {
  MlirType from = mlirValueGetType(v);
  if (mlirTypeEqual(from, to))
    return v;
  MlirOperation op = reshape_op(block, at, v, to, loc);
  if (mlirOperationIsNull(op)) {
    int64_t dims[MG_MAX_DIMS + 1];
    intptr_t n = 0;
    for (intptr_t i = 0; i < mlirShapedTypeGetRank(from); ++i)
      if (mlirShapedTypeGetDimSize(from, i) != 1 && n < MG_MAX_DIMS + 1)
        dims[n++] = mlirShapedTypeGetDimSize(from, i);
    if (n == 0)
      dims[n++] = 1;
    MlirType core = mlirRankedTensorTypeGet(
        n, dims, mlirShapedTypeGetElementType(from), mlirAttributeGetNull());
    if (mlirTypeEqual(core, from) || mlirTypeEqual(core, to))
      return (MlirValue){NULL};
    // The collapse first: the expand's sizes are read from its result.
    MlirOperation first = reshape_op(block, at, v, core, loc);
    if (mlirOperationIsNull(first))
      return (MlirValue){NULL};
    insert_op(block, at, first);
    op = reshape_op(block, at, mlirOperationGetResult(first, 0), to, loc);
    if (mlirOperationIsNull(op)) {
      mlirOperationDestroy(first); // erases it from the block
      return (MlirValue){NULL};
    }
  }
  insert_op(block, at, op);
  return mlirOperationGetResult(op, 0);
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

// Clones `src` with operands mapped (through `pref` first, when not null);
// records its results in `map`, or in `pref` for a result that `map`
// already holds (an input: see build_reference). Null on failure.
static MlirOperation clone_mapped(MlirOperation src, MgPtrMap *pref,
                                  MgPtrMap *map, MlirValue *to,
                                  uint32_t *num_to) {
  MlirOperation c = mlirOperationClone(src);
  bool ok = true;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(c) && ok; ++i) {
    const void *v = mlirOperationGetOperand(c, i).ptr;
    uint32_t k = pref ? mg_ptrmap_get(pref, v) : UINT32_MAX;
    if (k == UINT32_MAX)
      k = mg_ptrmap_get(map, v);
    if (k == UINT32_MAX)
      ok = false;
    else
      mlirOperationSetOperand(c, i, to[k]);
  }
  ok = ok && mg_lift_remap_nested(c, map, to);
  for (intptr_t i = 0; i < mlirOperationGetNumResults(src) && ok; ++i) {
    const void *r = mlirOperationGetResult(src, i).ptr;
    to[*num_to] = mlirOperationGetResult(c, i);
    ok = mg_ptrmap_put(pref && mg_ptrmap_get(map, r) != UINT32_MAX ? pref : map,
                       r, (*num_to)++);
  }
  if (!ok) {
    mlirOperationDestroy(c);
    return (MlirOperation){NULL};
  }
  return c;
}

// A select lifted as x + A becomes its stand-in in the reference (mask.c:
// `tosa.add x, A`, or the generic reading A), A its block argument; null
// for every other op.
static MlirOperation mask_stand_in(const MgLiftChunk *c, const MlirValue *masks,
                                   MlirOperation src, MgPtrMap *map,
                                   MlirValue *to, uint32_t *num_to) {
  int fill = mg_lift_select_fill(src);
  intptr_t n = mlirOperationGetNumOperands(src);
  for (uint32_t i = 0; fill > 0 && i < c->num_inputs; ++i) {
    if (!mlirOperationEqual(mg_lift_select_input(c, i), src))
      continue;
    MlirValue *operands = malloc(((size_t)n + 1) * sizeof *operands);
    if (!operands)
      return (MlirOperation){NULL};
    for (intptr_t j = 0; j < n; ++j) { // unmapped (the mask): null
      uint32_t k = mg_ptrmap_get(map, mlirOperationGetOperand(src, j).ptr);
      operands[j] = k == UINT32_MAX ? (MlirValue){NULL} : to[k];
    }
    MlirOperation op = mg_lift_mask_stand_in(src, operands, masks[i]);
    free(operands);
    if (mlirOperationIsNull(op))
      return op;
    to[*num_to] = mlirOperationGetResult(op, 0);
    if (!mg_lift_remap_nested(op, map, to) ||
        !mg_ptrmap_put(map, mlirOperationGetResult(src, 0).ptr, (*num_to)++)) {
      mlirOperationDestroy(op);
      return (MlirOperation){NULL};
    }
    return op;
  }
  return (MlirOperation){NULL};
}

static MlirOperation build_reference(MgLiftChunk *c, const char *name,
                                     MlirLocation loc, MlirType *in_types,
                                     MlirType *out_types,
                                     uint32_t *num_boundary) {
  MlirContext ctx = mlirLocationGetContext(loc);
  uint32_t cap = c->num_inputs;
  for (uint32_t i = 0; i < c->num_ref_ops; ++i)
    cap += (uint32_t)mlirOperationGetNumResults(c->ref_ops[i]);
  MlirValue *to = malloc((cap + 1) * sizeof *to);
  MlirValue *rets = malloc((c->num_outputs + 1) * sizeof *rets);
  MlirLocation *locs = malloc((c->num_inputs + 1) * sizeof *locs);
  int64_t *slots =
      malloc((c->num_ref_ops + 2 * c->num_inputs + 1) * sizeof *slots);
  MlirValue *masks = malloc((c->num_inputs + 1) * sizeof *masks);
  MgPtrMap map;
  mg_ptrmap_init(&map);
  MlirOperation ref = {NULL};
  MlirBlock block = {NULL};
  bool ok = to && rets && locs && slots && masks;
  if (ok) {
    for (uint32_t i = 0; i < c->num_inputs; ++i)
      locs[i] = loc;
    block = mlirBlockCreate(c->num_inputs, in_types, locs);
  }
  uint32_t num_to = 0;
  *num_boundary = 0;
  for (uint32_t i = 0; ok && i < c->num_inputs; ++i) {
    MlirValue arg = mlirBlockGetArgument(block, i);
    MlirType ir = mlirValueGetType(c->inputs[i]);
    MlirOperation sel = mg_lift_select_input(c, i);
    if (!mlirOperationIsNull(sel)) { // read by the select's stand-in only
      masks[i] = reshape_to(block, (MlirOperation){NULL}, arg,
                            mg_lift_mask_type(sel, in_types[i]), loc);
      ok = !mlirValueIsNull(masks[i]);
      continue;
    }
    MlirValue v = reshape_to(block, (MlirOperation){NULL}, arg, ir, loc);
    ok = !mlirValueIsNull(v);
    if (!ok)
      break;
    // Inputs are distinct values (twins.c): one read through two block
    // arguments would make the reference another function than the kernel
    // graph, so it is an internal error.
    ok = mg_ptrmap_get(&map, c->inputs[i].ptr) == UINT32_MAX;
    if (!ok)
      break;
    to[num_to] = v;
    ok = mg_ptrmap_put(&map, c->inputs[i].ptr, num_to++);
  }
  for (MlirOperation op = ok ? mlirBlockGetFirstOperation(block)
                            : (MlirOperation){NULL};
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    ++*num_boundary; // so far only the boundary reshapes
  // A constant the kernel graph takes as an input may also be folded into
  // a floating op it reads by value (x + c next to x * reciprocal(c)): the
  // copy of that floating op reads the copied constant (`consts`, looked up
  // first for floating ops), the members read the argument, so the
  // reference is the kernel graph's function of its arguments (mirage-run
  // draws them at random).
  MgPtrMap consts;
  mg_ptrmap_init(&consts);
  for (uint32_t i = 0; ok && i < c->num_ref_ops; ++i) {
    MlirOperation op =
        mask_stand_in(c, masks, c->ref_ops[i], &map, to, &num_to);
    if (mlirOperationIsNull(op))
      op = clone_mapped(c->ref_ops[i],
                        mg_lift_is_floating(c->ref_ops[i]) ? &consts : NULL,
                        &map, to, &num_to);
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
    // Boundary reshapes go back just before the call (unlift drops them).
    slots[0] = c->num_stayed;
    for (uint32_t i = 0; i < *num_boundary; ++i)
      slots[1 + i] = c->num_stayed;
    memcpy(slots + 1 + *num_boundary, c->slots,
           c->num_ref_ops * sizeof *slots);
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
            mlirDenseI64ArrayGet(ctx, c->num_ref_ops + 1 + *num_boundary,
                                 slots)),
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
  mg_ptrmap_free(&consts);
  mg_ptrmap_free(&map);
  free(to);
  free(rets);
  free(locs);
  free(slots);
  free(masks);
  return ref;
}

MgStatus mg_lift_rewrite_chunk(MgBridgeModule m, MlirOperation *after,
                               const char *name, MgLiftChunk *c,
                               MlirOperation *call_out, MgDiag *diag) {
  MlirOperation module = m.op;
  MlirSymbolTable symbols = m.symbols;
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
    in_types[i] = kernel_input_type(c, i, mlirValueGetType(c->inputs[i]));
  for (uint32_t i = 0; i < c->num_outputs; ++i)
    out_types[i] = mlirValueGetType(c->outputs[i]);
  for (uint32_t i = 0; i < c->num_members; ++i)
    locs[i] = mlirOperationGetLocation(c->members[i]);
  MlirLocation loc = c->num_members == 1
                         ? locs[0]
                         : mlirLocationFusedGet(ctx, c->num_members, locs,
                                                mlirAttributeGetNull());
  MgStatus status = MG_STATUS_OK;
  uint32_t num_boundary = 0;
  MlirOperation ref =
      build_reference(c, ref_name, loc, in_types, out_types, &num_boundary);
  MlirOperation kernel = {NULL};
  if (mlirOperationIsNull(ref)) {
    status = mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                         "internal: could not copy the ops of '@%s'", name);
  } else if (mlirLogicalResultIsFailure(
                 mg_bridge_export(m, c->prog, name, NULL, loc, &kernel)) ||
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
    mlirSymbolTableInsert(symbols, ref); // already placed: only named
    *after = ref;

    MlirNamedAttribute callee =
        mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("callee")),
                              mlirFlatSymbolRefAttrGet(ctx, str(name)));
    // The call's operands: the inputs, reshaped where the kernel reads
    // them with other unit dims (inserted after the last member, before
    // the call, so every input is defined there).
    MlirValue *operands = malloc((c->num_inputs + 1) * sizeof *operands);
    MlirOperation last = c->members[c->num_members - 1];
    MlirOperation next = mlirOperationGetNextInBlock(last);
    bool reshaped = operands != NULL, masked = true;
    for (uint32_t i = 0; reshaped && i < c->num_inputs; ++i) {
      MlirOperation sel = mg_lift_select_input(c, i);
      operands[i] =
          !mlirOperationIsNull(sel)
              ? mg_lift_mask_make(c->block, next, sel,
                                  mg_lift_mask_type(sel, in_types[i]), loc)
              : c->inputs[i];
      if (!mlirValueIsNull(operands[i]) &&
          !mlirTypeEqual(mlirValueGetType(operands[i]), in_types[i]))
        operands[i] = reshape_to(c->block, next, operands[i], in_types[i], loc);
      reshaped = !mlirValueIsNull(operands[i]);
      masked = reshaped || mlirOperationIsNull(sel);
    }
    if (!reshaped) { // only out of memory: the reference made the inverse
      free(operands);
      operands = NULL;
    }
    // Without its additive mask the call would read the select's result,
    // erased below: an internal error rather than broken IR.
    if (!masked) {
      free(in_types);
      free(out_types);
      free(locs);
      return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                         "internal: could not compute the additive mask of "
                         "'@%s'",
                         name);
    }
    MlirOperationState cs = mlirOperationStateGet(str("func.call"), loc);
    mlirOperationStateAddOperands(&cs, c->num_inputs,
                                  operands ? operands : c->inputs);
    mlirOperationStateAddResults(&cs, c->num_outputs, out_types);
    mlirOperationStateAddAttributes(&cs, 1, &callee);
    MlirOperation call = mlirOperationCreate(&cs);
    free(operands);
    *call_out = call;
    if (mlirOperationIsNull(next))
      mlirBlockAppendOwnedOperation(c->block, call);
    else
      mlirBlockInsertOwnedOperationBefore(c->block, next, call);
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
