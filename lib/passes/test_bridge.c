//===- test_bridge.c - --mirage-test-bridge --------------------------------===//
//
// Test-only: replaces every kernel graph (and the graphs it runs) by
// export(import(graph)). Printing the result must reproduce the input.
//
//===----------------------------------------------------------------------===//
#include "ugraph_funcs.h"

static bool roundtrip_one(MlirOperation module, MlirSymbolTable symbols,
                          MlirOperation func, const MgProgram *p,
                          const MgBridgeMap *map, void *ud) {
  (void)ud;
  return mlirLogicalResultIsSuccess(mg_bridge_export(
      (MgBridgeModule){module, symbols}, p, map->graph_names[0],
      (const char *const *)map->graph_names, mlirOperationGetLocation(func),
      NULL));
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  (void)values;
  if (!mg_pass_for_each_kernel_program(module, NULL, roundtrip_one, NULL))
    mlirExternalPassSignalFailure(pass);
}

const MgPassDef mg_pass_test_bridge = {
    "mirage-test-bridge",
    "Test only: re-import and re-export every μGraph (must be lossless)",
    NULL, 0, NULL, run, NULL};
