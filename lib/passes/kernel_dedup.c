//===- kernel_dedup.c - One copy of each distinct GPU kernel ---------------===//
//
// Identical subprograms (a decoder's layers) and identical kernels within
// one (the Q, K and V projections) lower to identical gpu.func bodies, one
// per launch site. Upstream's PTX pipeline would compile each of them
// again: for a 32-layer decoder that is 992 kernels where 31 differ, and
// most of a warm compile's time. Kernels whose text, printed with the name
// replaced, is the same are the same program, so each launch is pointed
// at the first copy and the others are erased (an emptied gpu.module
// too). A kernel that refers to any symbol is left alone: its meaning
// would depend on what the symbol names in its own module.
//
//===----------------------------------------------------------------------===//
#include "kernel_dedup.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mirage/bridge.h"
#include "mirage/support.h"
#include "mlir-c/BuiltinAttributes.h"

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

typedef struct Kernel {
  MlirOperation func;
  MlirAttribute module_name, name; // StringAttrs of the gpu.module and func
  char *text;                      // printed with the name replaced
  uint64_t hash;
  int32_t same_as; // index of the first identical kernel, or -1
} Kernel;

typedef struct Kernels {
  Kernel *items;
  uint32_t count, cap;
  bool failed;
} Kernels;

static void append(MlirStringRef chunk, void *ud) {
  mg_text_printf(ud, "%.*s", (int)chunk.length, chunk.data);
}

static MlirWalkResult find_symbol_ref(MlirOperation op, void *ud) {
  intptr_t n = mlirOperationGetNumAttributes(op);
  for (intptr_t i = 0; i < n; i++) {
    MlirAttribute a = mlirOperationGetAttribute(op, i).attribute;
    if (mlirAttributeIsASymbolRef(a) || mlirAttributeIsAFlatSymbolRef(a)) {
      *(bool *)ud = true;
      return MlirWalkResultInterrupt;
    }
  }
  return MlirWalkResultAdvance;
}

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

// The kernel's text under a fixed name, local SSA numbering (printing from
// the kernel alone, not the whole module: linear in the kernel's size).
static char *kernel_text(MlirOperation func, MlirAttribute name) {
  MlirContext ctx = mlirOperationGetContext(func);
  mlirOperationSetAttributeByName(func, str("sym_name"),
                                  mlirStringAttrGet(ctx, str("kernel")));
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsUseLocalScope(flags);
  MgText text = {0};
  mlirOperationPrintWithFlags(func, flags, append, &text);
  mlirOpPrintingFlagsDestroy(flags);
  mlirOperationSetAttributeByName(func, str("sym_name"), name);
  if (text.failed) {
    mg_text_free(&text);
    return NULL;
  }
  return text.data;
}

static void add_kernel(Kernels *ks, MlirOperation func,
                       MlirAttribute module_name) {
  MlirAttribute name = mlirOperationGetAttributeByName(func, str("sym_name"));
  if (mlirAttributeIsNull(mlirOperationGetAttributeByName(
          func, str("gpu.kernel"))) ||
      mlirAttributeIsNull(name))
    return;
  bool refers = false;
  mlirOperationWalk(func, find_symbol_ref, &refers, MlirWalkPreOrder);
  if (refers)
    return;
  if (!mg_array_reserve(&ks->items, &ks->cap, ks->count + 1, sizeof(Kernel),
                        64)) {
    ks->failed = true;
    return;
  }
  char *text = kernel_text(func, name);
  if (!text) {
    ks->failed = true;
    return;
  }
  Kernel *k = &ks->items[ks->count];
  *k = (Kernel){func, module_name, name, text, fnv1a(text), -1};
  for (uint32_t i = 0; i < ks->count; i++) {
    const Kernel *o = &ks->items[i];
    if (o->same_as < 0 && o->hash == k->hash && !strcmp(o->text, text)) {
      k->same_as = (int32_t)i;
      break;
    }
  }
  if (k->same_as >= 0) { // only the first copy's text is compared again
    free(k->text);
    k->text = NULL;
  }
  ks->count++;
}

typedef struct Redirect {
  const Kernels *ks;
  MlirContext ctx;
} Redirect;

static MlirWalkResult redirect_launch(MlirOperation op, void *ud) {
  const Redirect *r = ud;
  if (!mg_bridge_op_is(op, "gpu.launch_func"))
    return MlirWalkResultAdvance;
  MlirAttribute ref = mlirOperationGetAttributeByName(op, str("kernel"));
  if (mlirAttributeIsNull(ref) || !mlirAttributeIsASymbolRef(ref) ||
      mlirSymbolRefAttrGetNumNestedReferences(ref) != 1)
    return MlirWalkResultAdvance;
  MlirStringRef mod = mlirSymbolRefAttrGetRootReference(ref);
  MlirStringRef fn = mlirFlatSymbolRefAttrGetValue(
      mlirSymbolRefAttrGetNestedReference(ref, 0));
  for (uint32_t i = 0; i < r->ks->count; i++) {
    const Kernel *k = &r->ks->items[i];
    if (k->same_as < 0 ||
        !mlirStringRefEqual(mlirStringAttrGetValue(k->name), fn) ||
        !mlirStringRefEqual(mlirStringAttrGetValue(k->module_name), mod))
      continue;
    const Kernel *first = &r->ks->items[k->same_as];
    MlirAttribute nested = mlirFlatSymbolRefAttrGet(
        r->ctx, mlirStringAttrGetValue(first->name));
    mlirOperationSetAttributeByName(
        op, str("kernel"),
        mlirSymbolRefAttrGet(r->ctx,
                             mlirStringAttrGetValue(first->module_name), 1,
                             &nested));
    break;
  }
  return MlirWalkResultAdvance;
}

static MlirBlock region_block(MlirOperation op) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
}

bool mg_lower_dedup_kernels(MlirOperation module, MgKernelDedup *stats) {
  *stats = (MgKernelDedup){0};
  Kernels ks = {0};
  for (MlirOperation m = mlirBlockGetFirstOperation(region_block(module));
       !mlirOperationIsNull(m); m = mlirOperationGetNextInBlock(m)) {
    if (!mg_bridge_op_is(m, "gpu.module"))
      continue;
    MlirAttribute mname = mlirOperationGetAttributeByName(m, str("sym_name"));
    for (MlirOperation f = mlirBlockGetFirstOperation(region_block(m));
         !mlirOperationIsNull(f); f = mlirOperationGetNextInBlock(f))
      if (mg_bridge_op_is(f, "gpu.func") && !mlirAttributeIsNull(mname))
        add_kernel(&ks, f, mname);
  }
  bool ok = !ks.failed;
  if (ok) {
    Redirect r = {&ks, mlirOperationGetContext(module)};
    mlirOperationWalk(module, redirect_launch, &r, MlirWalkPreOrder);
    for (uint32_t i = 0; i < ks.count; i++) {
      stats->kernels++;
      if (ks.items[i].same_as >= 0) {
        stats->merged++;
        mlirOperationDestroy(ks.items[i].func);
      }
    }
    // GPU modules whose every kernel had an earlier copy are empty now.
    MlirOperation m = mlirBlockGetFirstOperation(region_block(module));
    while (!mlirOperationIsNull(m)) {
      MlirOperation next = mlirOperationGetNextInBlock(m);
      if (mg_bridge_op_is(m, "gpu.module") &&
          mlirOperationIsNull(mlirBlockGetFirstOperation(region_block(m)))) {
        mlirOperationDestroy(m);
        stats->modules_erased++;
      }
      m = next;
    }
  }
  for (uint32_t i = 0; i < ks.count; i++)
    free(ks.items[i].text);
  free(ks.items);
  return ok;
}
