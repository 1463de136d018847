//===- test_bridge.c - --mirage-test-bridge --------------------------------===//
//
// Test-only: replaces every kernel graph (and the graphs it runs) by
// export(import(graph)). Printing the result must reproduce the input.
//
//===----------------------------------------------------------------------===//
#include "ugraph_funcs.h"

#include <stdio.h>
#include <stdlib.h>

static bool roundtrip_one(MlirOperation module, MlirOperation func, void *ud) {
  (void)ud;
  MgBridgeMap map;
  MgProgram *p = mg_pass_import_checked(module, func, NULL, &map);
  if (!p)
    return false;
  bool ok = mlirLogicalResultIsSuccess(mg_bridge_export(
      module, p, map.graph_names[0], (const char *const *)map.graph_names));
  mg_program_destroy(p);
  mg_bridge_map_free(&map);
  return ok;
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  (void)values;
  // Collect roots first: exporting replaces functions while we iterate.
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  size_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    ++n;
  char (*names)[256] = calloc(n ? n : 1, sizeof *names);
  if (!names) {
    mlirExternalPassSignalFailure(pass);
    return;
  }
  size_t roots = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MgLevel level;
    if (mg_bridge_func_level(op, &level) && level == MG_LEVEL_KERNEL) {
      MlirStringRef s = mlirStringAttrGetValue(mlirOperationGetAttributeByName(
          op, mlirStringRefCreateFromCString("sym_name")));
      snprintf(names[roots++], sizeof names[0], "%.*s", (int)s.length, s.data);
    }
  }
  bool ok = true;
  for (size_t i = 0; i < roots; ++i) {
    MlirOperation func = mg_pass_lookup_func(module, names[i]);
    ok = !mlirOperationIsNull(func) && roundtrip_one(module, func, NULL) && ok;
  }
  free(names);
  if (!ok)
    mlirExternalPassSignalFailure(pass);
}

const MgPassDef mg_pass_test_bridge = {
    "mirage-test-bridge",
    "Test only: re-import and re-export every μGraph (must be lossless)",
    NULL, 0, NULL, run};
