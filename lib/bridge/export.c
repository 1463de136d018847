//===- export.c - Putting an MgProgram back into a module ------------------===//
#include "mirage/bridge.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#include <stdlib.h>
#include <string.h>

static MlirStringRef name_of(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("sym_name"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return (MlirStringRef){NULL, 0};
  return mlirStringAttrGetValue(a);
}

/// True when `op` has the name of a function of `fresh` (a few functions).
static bool replaced(MlirOperation op, MlirModule fresh) {
  MlirStringRef name = name_of(op);
  if (!name.data)
    return false;
  MlirBlock b = mlirModuleGetBody(fresh);
  for (MlirOperation f = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f))
    if (mlirStringRefEqual(name_of(f), name))
      return true;
  return false;
}

/// The parsed text has locations in an anonymous buffer; point the function
/// and its ops (ug ops have no regions) at `loc` instead.
static void set_locations(MlirOperation func, MlirLocation loc) {
  mlirOperationSetLocation(func, loc);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    mlirOperationSetLocation(op, loc);
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(body); ++i)
    mlirBlockArgumentSetLocation(mlirBlockGetArgument(body, i), loc);
}

MlirLogicalResult mg_bridge_export(MgBridgeModule m, const MgProgram *program,
                                   const char *root_name,
                                   const char *const *names,
                                   MlirLocation loc, MlirOperation *funcs) {
  MlirOperation module = m.op;
  MlirSymbolTable symbols = m.symbols;
  char *text = mg_bridge_print(program, root_name, names);
  if (!text) {
    mlirEmitError(mlirOperationGetLocation(module),
                  "out of memory printing a μGraph");
    return mlirLogicalResultFailure();
  }
  MlirContext ctx = mlirOperationGetContext(module);
  MlirModule fresh =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(fresh))
    return mlirLogicalResultFailure();
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirBlock fresh_body = mlirModuleGetBody(fresh);
  // New functions go where the old root was, before its first survivor
  // (the functions right after the root may be replaced too).
  MlirOperation anchor = mlirSymbolTableLookup(
      symbols, mlirStringRefCreateFromCString(names && names[0] ? names[0]
                                                                : root_name));
  while (!mlirOperationIsNull(anchor) && replaced(anchor, fresh))
    anchor = mlirOperationGetNextInBlock(anchor);
  for (MlirOperation f = mlirBlockGetFirstOperation(fresh_body);
       !mlirOperationIsNull(f); f = mlirOperationGetNextInBlock(f)) {
    MlirOperation old = mlirSymbolTableLookup(symbols, name_of(f));
    if (!mlirOperationIsNull(old))
      mlirSymbolTableErase(symbols, old);
  }
  uint32_t graph = program->num_graphs; // printed callees first: last graph
  for (MlirOperation f = mlirBlockGetFirstOperation(fresh_body);
       !mlirOperationIsNull(f);) {
    MlirOperation next = mlirOperationGetNextInBlock(f);
    if (funcs && graph > 0)
      funcs[--graph] = f;
    set_locations(f, loc);
    mlirOperationRemoveFromParent(f);
    if (mlirOperationIsNull(anchor))
      mlirBlockAppendOwnedOperation(body, f);
    else
      mlirBlockInsertOwnedOperationBefore(body, anchor, f);
    mlirSymbolTableInsert(symbols, f); // already placed: only named
    f = next;
  }
  mlirModuleDestroy(fresh);
  return mlirLogicalResultSuccess();
}
