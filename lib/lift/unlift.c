//===- unlift.c - Putting the original ops back ---------------------------===//
//
// For every call to a kernel graph with ug.reference, the reference body is
// cloned in front of the call (its arguments mapped to the call's operands)
// and the call's results are replaced by what its func.return returns. With
// the reference's ug.unlift slots (see rewrite.c) each op returns to its
// place among the ops that stayed in the span, and copies of floating ops
// are dropped for the originals still in the function, so lift followed by
// unlift prints the input again. Without slots (a hand-written or edited
// reference) everything goes just before the call.
//
// Calls are processed last to first: the ops in front of a call are then
// exactly as lifting left them.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <stdlib.h>
#include <string.h>

static MlirOperation lookup(MlirSymbolTable table, MlirStringRef name) {
  return mlirSymbolTableLookup(table, name);
}

// The reference of a kernel graph called by `call`, or null.
static MlirOperation reference_of(MlirSymbolTable table, MlirOperation call,
                                  MlirOperation *kernel) {
  MlirAttribute callee = mg_lift_attr(call, "callee");
  if (mlirAttributeIsNull(callee) || !mlirAttributeIsAFlatSymbolRef(callee))
    return (MlirOperation){NULL};
  *kernel = lookup(table, mlirFlatSymbolRefAttrGetValue(callee));
  if (mlirOperationIsNull(*kernel))
    return *kernel;
  MlirAttribute level = mg_lift_attr(*kernel, "ug.level");
  MlirAttribute ref = mg_lift_attr(*kernel, "ug.reference");
  if (mlirAttributeIsNull(level) || mlirAttributeIsNull(ref) ||
      !mlirAttributeIsAFlatSymbolRef(ref))
    return (MlirOperation){NULL};
  MlirOperation r = lookup(table, mlirFlatSymbolRefAttrGetValue(ref));
  if (mlirOperationIsNull(r) || !mg_bridge_op_is(r, "func.func") ||
      mlirOperationGetNumRegions(r) != 1 ||
      mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(r, 0))))
    return (MlirOperation){NULL};
  return r;
}

typedef struct Calls {
  MlirSymbolTable table;
  MgUnliftFilter filter;
  void *filter_data;
  MlirOperation *calls, *kernels, *refs;
  uint32_t num, cap;
  bool nomem;
} Calls;

static MlirWalkResult collect(MlirOperation op, void *ud) {
  Calls *c = ud;
  if (!mg_bridge_op_is(op, "func.call"))
    return MlirWalkResultAdvance;
  MlirOperation kernel = {NULL};
  MlirOperation ref = reference_of(c->table, op, &kernel);
  if (mlirOperationIsNull(ref) ||
      (c->filter && !c->filter(kernel, c->filter_data)))
    return MlirWalkResultAdvance;
  if (c->num == c->cap) {
    uint32_t cap = c->cap ? 2 * c->cap : 8;
    MlirOperation *a = realloc(c->calls, cap * sizeof *a);
    if (a)
      c->calls = a;
    MlirOperation *k = realloc(c->kernels, cap * sizeof *k);
    if (k)
      c->kernels = k;
    MlirOperation *r = realloc(c->refs, cap * sizeof *r);
    if (r)
      c->refs = r;
    if (!a || !k || !r) {
      c->nomem = true;
      return MlirWalkResultInterrupt;
    }
    c->cap = cap;
  }
  c->calls[c->num] = op;
  c->kernels[c->num] = kernel;
  c->refs[c->num++] = ref;
  return MlirWalkResultAdvance;
}

static bool same_attrs(MlirOperation a, MlirOperation b) {
  static const char *const inherent[] = {"value",         "values",
                                         "perms",         "permutation",
                                         "reassociation", "static_output_shape",
                                         "axis",          "dimensions",
                                         "min_val",       "max_val"};
  for (size_t i = 0; i < sizeof inherent / sizeof *inherent; ++i) {
    MlirAttribute x = mg_lift_attr(a, inherent[i]),
                  y = mg_lift_attr(b, inherent[i]);
    if (mlirAttributeIsNull(x) != mlirAttributeIsNull(y) ||
        (!mlirAttributeIsNull(x) && !mlirAttributeEqual(x, y)))
      return false;
  }
  intptr_t n = mlirOperationGetNumAttributes(a);
  if (n != mlirOperationGetNumAttributes(b))
    return false;
  for (intptr_t i = 0; i < n; ++i) {
    MlirNamedAttribute x = mlirOperationGetAttribute(a, i);
    MlirAttribute y =
        mlirOperationGetAttributeByName(b, mlirIdentifierStr(x.name));
    if (mlirAttributeIsNull(y) || !mlirAttributeEqual(x.attribute, y))
      return false;
  }
  return true;
}

bool mg_lift_ops_identical(MlirOperation a, MlirOperation b,
                           const MgPtrMap *map, const MlirValue *to) {
  if (!mlirIdentifierEqual(mlirOperationGetName(a), mlirOperationGetName(b)) ||
      mlirOperationGetNumOperands(a) != mlirOperationGetNumOperands(b) ||
      mlirOperationGetNumResults(a) != mlirOperationGetNumResults(b) ||
      !same_attrs(a, b))
    return false;
  for (intptr_t i = 0; i < mlirOperationGetNumResults(a); ++i)
    if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(a, i)),
                       mlirValueGetType(mlirOperationGetResult(b, i))))
      return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(a); ++i) {
    MlirValue v = mlirOperationGetOperand(a, i);
    uint32_t k = map ? mg_ptrmap_get(map, v.ptr) : UINT32_MAX;
    if (k != UINT32_MAX)
      v = to[k];
    if (!mlirValueEqual(v, mlirOperationGetOperand(b, i)))
      return false;
  }
  return true;
}

// The nearest op before `anchor` (in its block, then in enclosing blocks)
// identical to `copy`, whose operands are ref values mapped by map/to.
static MlirOperation find_original(MlirOperation anchor, MlirOperation copy,
                                   const MgPtrMap *map,
                                   const MlirValue *to) {
  for (MlirOperation at = anchor; !mlirOperationIsNull(at);
       at = mlirOperationGetParentOperation(at)) {
    MlirBlock block = mlirOperationGetBlock(at);
    if (mlirBlockIsNull(block))
      break;
    MlirOperation found = {NULL};
    for (MlirOperation op = mlirBlockGetFirstOperation(block);
         !mlirOperationIsNull(op) && !mlirOperationEqual(op, at);
         op = mlirOperationGetNextInBlock(op))
      if (mg_lift_ops_identical(copy, op, map, to))
        found = op;
    if (!mlirOperationIsNull(found))
      return found;
    if (mg_bridge_op_is(mlirOperationGetParentOperation(at), "func.func"))
      break;
  }
  return (MlirOperation){NULL};
}

// True when every operand of `op` is defined before `anchor` (so `op` may
// be inserted there). Values from enclosing blocks always are.
static bool fits_before(MlirOperation op, MlirOperation anchor) {
  MlirBlock block = mlirOperationGetBlock(anchor);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!mlirValueIsAOpResult(v))
      continue;
    MlirOperation def = mlirOpResultGetOwner(v);
    if (mlirBlockEqual(mlirOperationGetBlock(def), block) &&
        !mlirOperationIsBeforeInBlock(def, anchor))
      return false;
  }
  return true;
}

static bool map_results(MgPtrMap *map, MlirValue *to, uint32_t *num,
                        MlirOperation from, MlirOperation onto) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(from); ++i) {
    to[*num] = mlirOperationGetResult(onto, i);
    if (!mg_ptrmap_put(map, mlirOperationGetResult(from, i).ptr, (*num)++))
      return false;
  }
  return true;
}

static bool is_boundary(MlirOperation op) {
  return !mlirOperationIsNull(op) &&
         !mlirAttributeIsNull(mg_lift_attr(op, "ug.boundary"));
}

// The value of type `type` that the caller's boundary reshapes started
// from on their way to `x` (rewrite.c), or null.
static MlirValue boundary_source(MlirValue x, MlirType type) {
  for (int depth = 0; depth < 4; ++depth) {
    if (mlirTypeEqual(mlirValueGetType(x), type))
      return x;
    if (!mlirValueIsAOpResult(x) || !is_boundary(mlirOpResultGetOwner(x)))
      break;
    x = mlirOperationGetOperand(mlirOpResultGetOwner(x), 0);
  }
  return (MlirValue){NULL};
}

// Erases the caller's boundary ops feeding `x` that nothing reads: the
// reshapes, the additive mask and its zero splat (mask.c).
static void erase_unused_boundary(MlirValue x, int depth) {
  if (depth > 8 || !mlirValueIsAOpResult(x) ||
      !is_boundary(mlirOpResultGetOwner(x)) ||
      !mlirOpOperandIsNull(mlirValueGetFirstUse(x)))
    return;
  MlirOperation op = mlirOpResultGetOwner(x);
  MlirValue operands[3];
  intptr_t n = mlirOperationGetNumOperands(op);
  for (intptr_t i = 0; i < n && i < 3; ++i)
    operands[i] = mlirOperationGetOperand(op, i);
  mlirOperationDestroy(op);
  for (intptr_t i = 0; i < n && i < 3; ++i)
    erase_unused_boundary(operands[i], depth + 1);
}

static bool inline_call(MlirOperation call, MlirOperation ref) {
  MlirBlock block = mlirOperationGetBlock(call);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(ref, 0));
  intptr_t nargs = mlirBlockGetNumArguments(body);
  if (nargs != mlirOperationGetNumOperands(call))
    return false;
  uint32_t nops = 0, cap = (uint32_t)nargs;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    nops++;
    cap += (uint32_t)mlirOperationGetNumResults(op);
  }
  MlirOperation ret = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(ret) || !mg_bridge_op_is(ret, "func.return") ||
      mlirOperationGetNumOperands(ret) != mlirOperationGetNumResults(call))
    return false;
  // Slots: only trusted when they describe this reference and the j ops in
  // front of the call exist.
  MlirAttribute sa = mg_lift_attr(ref, "ug.unlift");
  int64_t j = 0;
  const int64_t *slots = NULL;
  int64_t *slot_buf = NULL;
  if (!mlirAttributeIsNull(sa) && mlirAttributeIsADenseI64Array(sa) &&
      mlirDenseArrayGetNumElements(sa) == (intptr_t)nops) {
    slot_buf = malloc(nops * sizeof *slot_buf);
    if (!slot_buf)
      return false;
    for (uint32_t i = 0; i < nops; ++i)
      slot_buf[i] = mlirDenseI64ArrayGetElement(sa, i);
    j = slot_buf[0];
    slots = slot_buf + 1;
  }
  MlirOperation *before =
      malloc(((size_t)(j > 0 ? j : 0) + 1) * sizeof *before);
  MlirValue *to = malloc((cap + 1) * sizeof *to);
  if (!before || !to) {
    free(slot_buf);
    free(before);
    free(to);
    return false;
  }
  if (j > 0) { // the j ops right before the call, in order
    int64_t seen = 0;
    for (MlirOperation op = mlirBlockGetFirstOperation(block);
         !mlirOperationIsNull(op) && !mlirOperationEqual(op, call);
         op = mlirOperationGetNextInBlock(op)) {
      if (is_boundary(op)) // the call's own reshapes, dropped below
        continue;
      if (seen >= j)
        memmove(before, before + 1, (size_t)(j - 1) * sizeof *before);
      before[seen >= j ? j - 1 : seen] = op;
      seen++;
    }
    if (seen < j)
      j = 0, slots = NULL;
  }
  MgPtrMap map;
  mg_ptrmap_init(&map);
  uint32_t num = 0;
  bool ok = true;
  for (intptr_t i = 0; i < nargs && ok; ++i) {
    to[num] = mlirOperationGetOperand(call, i);
    ok = mg_ptrmap_put(&map, mlirBlockGetArgument(body, i).ptr, num++);
  }
  uint32_t k = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       ok && !mlirOperationEqual(op, ret);
       op = mlirOperationGetNextInBlock(op), ++k) {
    int64_t slot = slots ? slots[k] : j;
    MlirOperation original = {NULL};
    // Where the next member goes: floating copies that have no original
    // go there too, just before it.
    int64_t next = j;
    if (slots)
      for (uint32_t m = k; m + 1 < nops; ++m)
        if (slots[m] >= 0) {
          next = slots[m];
          break;
        }
    MlirOperation anchor = next < j ? before[next] : call;
    if (is_boundary(op) && mlirOperationGetNumOperands(op) == 1) {
      // The inverse of the call's reshape: read what the call reshaped.
      uint32_t v = mg_ptrmap_get(&map, mlirOperationGetOperand(op, 0).ptr);
      MlirValue src =
          v == UINT32_MAX
              ? (MlirValue){NULL}
              : boundary_source(to[v], mlirValueGetType(
                                           mlirOperationGetResult(op, 0)));
      if (!mlirValueIsNull(src)) {
        to[num] = src;
        ok = mg_ptrmap_put(&map, mlirOperationGetResult(op, 0).ptr, num++);
        continue;
      }
    }
    MlirOperation copy = mlirOperationClone(op);
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(copy) && ok; ++i) {
      uint32_t v = mg_ptrmap_get(&map, mlirOperationGetOperand(copy, i).ptr);
      if (v != UINT32_MAX)
        mlirOperationSetOperand(copy, i, to[v]);
      else
        ok = false;
    }
    if (ok && mlirOperationGetNumOperands(copy) == 2) {
      // The stand-in of a masked select: the select again (mask.c).
      MlirOperation sel =
          mg_lift_mask_restore(copy, mlirOperationGetOperand(copy, 0),
                               mlirOperationGetOperand(copy, 1));
      if (!mlirOperationIsNull(sel)) {
        mlirOperationDestroy(copy);
        copy = sel;
      }
    }
    ok = ok && mg_lift_remap_nested(copy, &map, to);
    if (!ok) {
      mlirOperationDestroy(copy);
      break;
    }
    if (slot <= -2 && -slot - 2 < j &&
        mg_lift_ops_identical(copy, before[-slot - 2], NULL, NULL))
      original = before[-slot - 2];
    else if (slot == -1)
      original = find_original(j > 0 ? before[0] : call, copy, NULL, NULL);
    if (!mlirOperationIsNull(original)) {
      mlirOperationDestroy(copy);
      ok = map_results(&map, to, &num, op, original);
    } else {
      MlirOperation at = slot >= 0 && slot < j ? before[slot] : anchor;
      if (!fits_before(copy, at)) {
        // The ops in front of the call are not the ones lifting left there
        // (another pass ran in between): put the rest just before the call.
        slots = NULL;
        j = 0;
        at = call;
      }
      mlirBlockInsertOwnedOperationBefore(block, at, copy);
      ok = map_results(&map, to, &num, op, copy);
    }
  }
  if (ok) {
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(ret); ++i) {
      uint32_t v = mg_ptrmap_get(&map, mlirOperationGetOperand(ret, i).ptr);
      if (v == UINT32_MAX) {
        ok = false;
        break;
      }
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(call, i), to[v]);
    }
  }
  if (ok) {
    intptr_t n = mlirOperationGetNumOperands(call);
    MlirValue *operands = malloc(((size_t)n + 1) * sizeof *operands);
    for (intptr_t i = 0; operands && i < n; ++i)
      operands[i] = mlirOperationGetOperand(call, i);
    mlirOperationDestroy(call);
    for (intptr_t i = 0; operands && i < n; ++i)
      erase_unused_boundary(operands[i], 0);
    free(operands);
  }
  mg_ptrmap_free(&map);
  free(slot_buf);
  free(before);
  free(to);
  return ok;
}

// Symbol names referenced (as flat symbol references) by the module outside
// the kernel graphs that may go; sorted for binary search.
typedef struct Names {
  MgPtrMap skip; // kernel graph funcs whose own references do not count
  MlirStringRef *names;
  uint32_t num, cap;
  bool nomem;
} Names;

static void add_name(Names *n, MlirStringRef name) {
  if (n->num == n->cap) {
    uint32_t cap = n->cap ? 2 * n->cap : 64;
    MlirStringRef *a = realloc(n->names, cap * sizeof *a);
    if (!a) {
      n->nomem = true;
      return;
    }
    n->names = a;
    n->cap = cap;
  }
  n->names[n->num++] = name;
}

static MlirWalkResult gather_names(MlirOperation op, void *ud) {
  Names *n = ud;
  if (mg_ptrmap_get(&n->skip, op.ptr) != UINT32_MAX)
    return MlirWalkResultSkip;
  for (intptr_t i = 0; i < mlirOperationGetNumAttributes(op); ++i) {
    MlirAttribute a = mlirOperationGetAttribute(op, i).attribute;
    if (mlirAttributeIsAFlatSymbolRef(a))
      add_name(n, mlirFlatSymbolRefAttrGetValue(a));
  }
  MlirAttribute callee = mg_lift_attr(op, "callee");
  if (!mlirAttributeIsNull(callee) && mlirAttributeIsAFlatSymbolRef(callee))
    add_name(n, mlirFlatSymbolRefAttrGetValue(callee));
  return MlirWalkResultAdvance;
}

static int compare_names(const void *a, const void *b) {
  const MlirStringRef *x = a, *y = b;
  size_t n = x->length < y->length ? x->length : y->length;
  int c = memcmp(x->data, y->data, n);
  if (c)
    return c;
  return x->length < y->length ? -1 : x->length > y->length;
}

static bool named(const Names *n, MlirOperation func) {
  MlirAttribute a = mg_lift_attr(func, "sym_name");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return true; // not a symbol: keep
  MlirStringRef key = mlirStringAttrGetValue(a);
  // No names: bsearch must not see a null array (UB even for 0 elements).
  return n->num &&
         bsearch(&key, n->names, n->num, sizeof *n->names, compare_names);
}

// Erases the kernel graphs nothing calls any more, then the references
// nothing names any more (kernel graphs that stay keep theirs).
static bool erase_unused(MlirOperation module, const Calls *c) {
  Names n = {{0}, NULL, 0, 0, false};
  mg_ptrmap_init(&n.skip);
  for (uint32_t i = 0; i < c->num; ++i)
    if (!mg_ptrmap_put(&n.skip, c->kernels[i].ptr, i))
      n.nomem = true;
  mlirOperationWalk(module, gather_names, &n, MlirWalkPreOrder);
  bool ok = !n.nomem;
  if (ok && n.num) // qsort(NULL, 0, ...) is undefined (UBSan)
    qsort(n.names, n.num, sizeof *n.names, compare_names);
  uint8_t *gone = calloc(c->num + 1, 1);
  ok = ok && gone;
  // Kernel graphs that stay name their references.
  for (uint32_t i = 0; ok && i < c->num; ++i)
    if (named(&n, c->kernels[i])) {
      MlirAttribute r = mg_lift_attr(c->kernels[i], "ug.reference");
      add_name(&n, mlirFlatSymbolRefAttrGetValue(r));
    } else {
      gone[i] = 1;
    }
  ok = ok && !n.nomem;
  if (ok && n.num) // qsort(NULL, 0, ...) is undefined (UBSan)
    qsort(n.names, n.num, sizeof *n.names, compare_names);
  bool *dead_ref = calloc(c->num + 1, sizeof *dead_ref);
  ok = ok && dead_ref;
  for (uint32_t i = 0; ok && i < c->num; ++i)
    dead_ref[i] = !named(&n, c->refs[i]);
  // Each function once, even when several calls share it.
  MgPtrMap done;
  mg_ptrmap_init(&done);
  for (uint32_t i = 0; ok && i < c->num; ++i)
    if (gone[i] && mg_ptrmap_get(&done, c->kernels[i].ptr) == UINT32_MAX) {
      ok = mg_ptrmap_put(&done, c->kernels[i].ptr, 1);
      mlirOperationDestroy(c->kernels[i]);
    }
  for (uint32_t i = 0; ok && i < c->num; ++i)
    if (dead_ref[i] && mg_ptrmap_get(&done, c->refs[i].ptr) == UINT32_MAX) {
      ok = mg_ptrmap_put(&done, c->refs[i].ptr, 1);
      mlirOperationDestroy(c->refs[i]);
    }
  mg_ptrmap_free(&done);
  mg_ptrmap_free(&n.skip);
  free(n.names);
  free(gone);
  free(dead_ref);
  return ok;
}

MgStatus mg_lift_unlift_module(MlirOperation module, MgUnliftFilter filter,
                               void *user_data, uint32_t *inlined,
                               MgDiag *diag) {
  if (inlined)
    *inlined = 0;
  Calls c = {mlirSymbolTableCreate(module), filter, user_data, NULL, NULL,
             NULL, 0, 0, false};
  mlirOperationWalk(module, collect, &c, MlirWalkPreOrder);
  mlirSymbolTableDestroy(c.table);
  MgStatus status = MG_STATUS_OK;
  if (c.nomem)
    status = mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  for (uint32_t i = c.num; status == MG_STATUS_OK && i-- > 0;) {
    if (!inline_call(c.calls[i], c.refs[i])) {
      status = mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                           "could not inline the reference of a kernel graph "
                           "call");
      break;
    }
    if (inlined)
      (*inlined)++;
  }
  if (status == MG_STATUS_OK && !erase_unused(module, &c))
    status = mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  free(c.calls);
  free(c.kernels);
  free(c.refs);
  return status;
}
