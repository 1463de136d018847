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
  void *const arrays[] = {&c->calls, &c->kernels, &c->refs};
  const size_t sizes[] = {sizeof *c->calls, sizeof *c->kernels,
                          sizeof *c->refs};
  if (!mg_array_reserve_parallel(arrays, sizes, 3, &c->cap, c->num + 1, 8)) {
    c->nomem = true;
    return MlirWalkResultInterrupt;
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
  MlirValue operands[MG_MAX_DIMS + 2];
  intptr_t n = mlirOperationGetNumOperands(op);
  if (n > MG_MAX_DIMS + 2)
    n = MG_MAX_DIMS + 2;
  for (intptr_t i = 0; i < n; ++i)
    operands[i] = mlirOperationGetOperand(op, i);
  // A size an expand read (tensor.dim of its source): only its constant
  // goes with it; the expand reaches the source itself, after its sizes.
  intptr_t first = mg_bridge_op_is(op, "tensor.dim") ? 1 : 0;
  mlirOperationDestroy(op);
  for (intptr_t i = n - 1; i >= first; --i)
    erase_unused_boundary(operands[i], depth + 1);
}

// Inlining one call of a reference function: where the copies go and
// what each reference value became in the caller.
typedef struct Inline {
  MlirOperation call;
  MlirBlock block;       // the call's
  uint32_t nops;         // ops in the reference body, return included
  int64_t j;             // ops in front of the call the slots refer to
  const int64_t *slots;  // per body op, or NULL: everything before the call
  MlirOperation *before; // the j ops right before the call, in order
  MgPtrMap map;          // reference value -> index into to
  MlirValue *to;
  uint32_t num;
} Inline;

// Reads the reference's slots (rewrite.c) into *slot_buf, setting in->j
// and in->slots; they are only trusted when they describe this reference.
// False when out of memory.
static bool read_slots(MlirOperation ref, Inline *in, int64_t **slot_buf) {
  MlirAttribute sa = mg_lift_attr(ref, "ug.unlift");
  if (mlirAttributeIsNull(sa) || !mlirAttributeIsADenseI64Array(sa) ||
      mlirDenseArrayGetNumElements(sa) != (intptr_t)in->nops)
    return true;
  *slot_buf = malloc(in->nops * sizeof **slot_buf);
  if (!*slot_buf)
    return false;
  for (uint32_t i = 0; i < in->nops; ++i)
    (*slot_buf)[i] = mlirDenseI64ArrayGetElement(sa, i);
  in->j = (*slot_buf)[0];
  in->slots = *slot_buf + 1;
  return true;
}

// Finds the j ops right before the call, in order, skipping the call's own
// reshapes (dropped later); when there are fewer, the slots are not used.
static void find_before(Inline *in) {
  if (in->j <= 0)
    return;
  int64_t seen = 0, j = in->j;
  for (MlirOperation op = mlirBlockGetFirstOperation(in->block);
       !mlirOperationIsNull(op) && !mlirOperationEqual(op, in->call);
       op = mlirOperationGetNextInBlock(op)) {
    if (is_boundary(op)) // the call's own reshapes, dropped below
      continue;
    if (seen >= j)
      memmove(in->before, in->before + 1, (size_t)(j - 1) * sizeof *in->before);
    in->before[seen >= j ? j - 1 : seen] = op;
    seen++;
  }
  if (seen < j)
    in->j = 0, in->slots = NULL;
}

// Where body op k goes when it has no slot of its own: just before the
// next member (floating copies that have no original go there too), else
// just before the call.
static MlirOperation next_anchor(const Inline *in, uint32_t k) {
  int64_t next = in->j;
  if (in->slots)
    for (uint32_t m = k; m + 1 < in->nops; ++m)
      if (in->slots[m] >= 0) {
        next = in->slots[m];
        break;
      }
  return next < in->j ? in->before[next] : in->call;
}

// When op is the inverse of one of the call's boundary reshapes, maps its
// result to what the call reshaped and returns true (*ok says whether that
// worked); else false.
static bool undo_boundary(Inline *in, MlirOperation op, bool *ok) {
  // A reshape's operand 0 is what it reshapes; an expand to `?` dims also
  // reads their sizes (boundary_dim in rewrite.c).
  bool reshape = mg_bridge_op_is(op, "tensor.expand_shape") ||
                 mg_bridge_op_is(op, "tensor.collapse_shape");
  if (!is_boundary(op) || mlirOperationGetNumOperands(op) < 1 ||
      (!reshape && mlirOperationGetNumOperands(op) != 1))
    return false;
  uint32_t v = mg_ptrmap_get(&in->map, mlirOperationGetOperand(op, 0).ptr);
  MlirValue src =
      v == UINT32_MAX
          ? (MlirValue){NULL}
          : boundary_source(in->to[v],
                            mlirValueGetType(mlirOperationGetResult(op, 0)));
  if (mlirValueIsNull(src))
    return false;
  in->to[in->num] = src;
  *ok = mg_ptrmap_put(&in->map, mlirOperationGetResult(op, 0).ptr, in->num++);
  return true;
}

// A copy of body op `op` reading the caller's values (a masked select's
// stand-in becomes the select again, mask.c); null when an operand has no
// image.
static MlirOperation clone_remapped(Inline *in, MlirOperation op) {
  MlirOperation copy = mlirOperationClone(op);
  bool ok = true;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(copy) && ok; ++i) {
    uint32_t v = mg_ptrmap_get(&in->map, mlirOperationGetOperand(copy, i).ptr);
    if (v != UINT32_MAX)
      mlirOperationSetOperand(copy, i, in->to[v]);
    else
      ok = false;
  }
  if (ok) {
    // The stand-in of a masked select: the select again (mask.c).
    MlirOperation sel = mg_lift_mask_restore(copy);
    if (!mlirOperationIsNull(sel) && !mlirOperationEqual(sel, copy)) {
      mlirOperationDestroy(copy);
      copy = sel;
    }
  }
  ok = ok && mg_lift_remap_nested(copy, &in->map, in->to);
  if (!ok) {
    mlirOperationDestroy(copy);
    return (MlirOperation){NULL};
  }
  return copy;
}

// The op already in the caller that `copy` (of a body op in `slot`)
// duplicates: the stayed op it copies, or for a floating op, an identical
// one found before the span; else null.
static MlirOperation find_existing(const Inline *in, MlirOperation copy,
                                   int64_t slot) {
  if (slot <= -2 && -slot - 2 < in->j &&
      mg_lift_ops_identical(copy, in->before[-slot - 2], NULL, NULL))
    return in->before[-slot - 2];
  if (slot == -1)
    return find_original(in->j > 0 ? in->before[0] : in->call, copy, NULL,
                         NULL);
  return (MlirOperation){NULL};
}

// Puts body op k (op) into the caller: reusing what is already there, or
// a copy in its slot. False on failure.
static bool inline_op(Inline *in, MlirOperation op, uint32_t k) {
  int64_t slot = in->slots ? in->slots[k] : in->j;
  MlirOperation anchor = next_anchor(in, k);
  bool ok = true;
  if (undo_boundary(in, op, &ok))
    return ok;
  // The sizes a boundary expand read: dropped with it.
  if (is_boundary(op) && (mg_bridge_op_is(op, "tensor.dim") ||
                          mg_bridge_op_is(op, "arith.constant")))
    return true;
  MlirOperation copy = clone_remapped(in, op);
  if (mlirOperationIsNull(copy))
    return false;
  MlirOperation original = find_existing(in, copy, slot);
  if (!mlirOperationIsNull(original)) {
    mlirOperationDestroy(copy);
    return map_results(&in->map, in->to, &in->num, op, original);
  }
  MlirOperation at = slot >= 0 && slot < in->j ? in->before[slot] : anchor;
  if (!fits_before(copy, at)) {
    // The ops in front of the call are not the ones lifting left there
    // (another pass ran in between): put the rest just before the call.
    in->slots = NULL;
    in->j = 0;
    at = in->call;
  }
  mlirBlockInsertOwnedOperationBefore(in->block, at, copy);
  return map_results(&in->map, in->to, &in->num, op, copy);
}

// Replaces the call's results by the images of what the body returns.
static bool replace_results(Inline *in, MlirOperation ret) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(ret); ++i) {
    uint32_t v = mg_ptrmap_get(&in->map, mlirOperationGetOperand(ret, i).ptr);
    if (v == UINT32_MAX)
      return false;
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(in->call, i),
                                  in->to[v]);
  }
  return true;
}

// Erases the call, then the boundary ops feeding it that nothing else
// reads.
static void erase_call(MlirOperation call) {
  intptr_t n = mlirOperationGetNumOperands(call);
  MlirValue *operands = malloc(((size_t)n + 1) * sizeof *operands);
  for (intptr_t i = 0; operands && i < n; ++i)
    operands[i] = mlirOperationGetOperand(call, i);
  mlirOperationDestroy(call);
  for (intptr_t i = 0; operands && i < n; ++i)
    erase_unused_boundary(operands[i], 0);
  free(operands);
}

static bool inline_call(MlirOperation call, MlirOperation ref) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(ref, 0));
  intptr_t nargs = mlirBlockGetNumArguments(body);
  if (nargs != mlirOperationGetNumOperands(call))
    return false;
  Inline in = {call, mlirOperationGetBlock(call), 0, 0, NULL, NULL,
               {0}, NULL, 0};
  uint32_t cap = (uint32_t)nargs;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    in.nops++;
    cap += (uint32_t)mlirOperationGetNumResults(op);
  }
  MlirOperation ret = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(ret) || !mg_bridge_op_is(ret, "func.return") ||
      mlirOperationGetNumOperands(ret) != mlirOperationGetNumResults(call))
    return false;
  // Slots: only trusted when they describe this reference and the j ops in
  // front of the call exist.
  int64_t *slot_buf = NULL;
  if (!read_slots(ref, &in, &slot_buf))
    return false;
  in.before = malloc(((size_t)(in.j > 0 ? in.j : 0) + 1) * sizeof *in.before);
  in.to = malloc((cap + 1) * sizeof *in.to);
  if (!in.before || !in.to) {
    free(slot_buf);
    free(in.before);
    free(in.to);
    return false;
  }
  find_before(&in);
  mg_ptrmap_init(&in.map);
  bool ok = true;
  for (intptr_t i = 0; i < nargs && ok; ++i) {
    in.to[in.num] = mlirOperationGetOperand(call, i);
    ok = mg_ptrmap_put(&in.map, mlirBlockGetArgument(body, i).ptr, in.num++);
  }
  uint32_t k = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       ok && !mlirOperationEqual(op, ret);
       op = mlirOperationGetNextInBlock(op), ++k)
    ok = inline_op(&in, op, k);
  ok = ok && replace_results(&in, ret);
  if (ok)
    erase_call(call);
  mg_ptrmap_free(&in.map);
  free(slot_buf);
  free(in.before);
  free(in.to);
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
  if (!mg_array_reserve(&n->names, &n->cap, n->num + 1, sizeof *n->names,
                        64)) {
    n->nomem = true;
    return;
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

// Names every op under `op` refers to (its block and thread graphs, for a
// kernel graph that a search replaced).
static MlirWalkResult gather_all(MlirOperation op, void *ud) {
  Names *n = ud;
  for (intptr_t i = 0; i < mlirOperationGetNumAttributes(op); ++i) {
    MlirAttribute a = mlirOperationGetAttribute(op, i).attribute;
    if (mlirAttributeIsAFlatSymbolRef(a))
      add_name(n, mlirFlatSymbolRefAttrGetValue(a));
  }
  return MlirWalkResultAdvance;
}

static bool is_graph_func(MlirOperation op) {
  MgLevel level;
  return mg_bridge_op_is(op, "func.func") &&
         mg_bridge_func_level(op, &level) && level != MG_LEVEL_KERNEL;
}

// The block and thread graphs of erased kernel graphs (`erased`: the names
// those referred to) that nothing else names, and then theirs: a searched
// kernel graph's graph-defined kernels go with it. Graph functions the
// input had on its own (nothing erased named them) stay.
static bool erase_graphs(MlirOperation module, Names *erased) {
  for (int round = 0; round < 4 && erased->num; ++round) {
    qsort(erased->names, erased->num, sizeof *erased->names, compare_names);
    Names live = {{0}, NULL, 0, 0, false};
    mg_ptrmap_init(&live.skip);
    mlirOperationWalk(module, gather_names, &live, MlirWalkPreOrder);
    if (live.nomem) {
      mg_ptrmap_free(&live.skip);
      return false;
    }
    if (live.num)
      qsort(live.names, live.num, sizeof *live.names, compare_names);
    Names next = {{0}, NULL, 0, 0, false};
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
    for (MlirOperation op = mlirBlockGetFirstOperation(body);
         !mlirOperationIsNull(op);) {
      MlirOperation after = mlirOperationGetNextInBlock(op);
      if (is_graph_func(op) && named(erased, op) && !named(&live, op)) {
        mlirOperationWalk(op, gather_all, &next, MlirWalkPreOrder);
        mlirOperationDestroy(op);
      }
      op = after;
    }
    mg_ptrmap_free(&live.skip);
    free(live.names);
    free(erased->names);
    *erased = next;
    if (next.nomem)
      return false;
  }
  return true;
}

// Erases the kernel graphs nothing calls any more, then the references
// nothing names any more (kernel graphs that stay keep theirs), then the
// graph-defined kernels only the erased ones used.
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
  Names erased = {{0}, NULL, 0, 0, false};
  for (uint32_t i = 0; ok && i < c->num; ++i)
    if (gone[i] && mg_ptrmap_get(&done, c->kernels[i].ptr) == UINT32_MAX) {
      ok = mg_ptrmap_put(&done, c->kernels[i].ptr, 1);
      mlirOperationWalk(c->kernels[i], gather_all, &erased, MlirWalkPreOrder);
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
  ok = ok && !erased.nomem && erase_graphs(module, &erased);
  free(erased.names);
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
