//===- export.c - Putting an MgProgram back into a module ------------------===//
#include "mirage/bridge.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#include <stdlib.h>
#include <string.h>

static bool is_named(MlirOperation op, MlirStringRef name) {
  MlirAttribute a = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("sym_name"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return false;
  MlirStringRef n = mlirStringAttrGetValue(a);
  return n.length == name.length && !memcmp(n.data, name.data, n.length);
}

static bool replaced(MlirOperation op, MlirModule fresh) {
  MlirBlock b = mlirModuleGetBody(fresh);
  for (MlirOperation f = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f)) {
    MlirAttribute a = mlirOperationGetAttributeByName(
        f, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(a) && is_named(op, mlirStringAttrGetValue(a)))
      return true;
  }
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

MlirLogicalResult mg_bridge_export(MlirOperation module,
                                   const MgProgram *program,
                                   const char *root_name,
                                   const char *const *names,
                                   MlirLocation loc, MlirOperation *funcs) {
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
  // New functions go where the old root was, before its first survivor.
  MlirStringRef root = mlirStringRefCreateFromCString(
      names && names[0] ? names[0] : root_name);
  MlirOperation anchor = {NULL};
  bool after_root = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (is_named(op, root))
      after_root = true;
    else if (after_root && !replaced(op, fresh)) {
      anchor = op;
      break;
    }
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (replaced(op, fresh))
      mlirOperationDestroy(op);
    op = next;
  }
  MlirBlock fresh_body = mlirModuleGetBody(fresh);
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
    f = next;
  }
  mlirModuleDestroy(fresh);
  return mlirLogicalResultSuccess();
}
