//===- ugraph_funcs.h - Finding and importing μGraph functions -----------===//
#ifndef MIRAGE_PASSES_UGRAPH_FUNCS_H
#define MIRAGE_PASSES_UGRAPH_FUNCS_H

#include "mirage/bridge.h"
#include "pass.h"

/// Imports kernel graph `func` and validates it for `target`. On failure
/// emits an error at the offending op and returns NULL.
MgProgram *mg_pass_import_checked(MlirOperation module, MlirOperation func,
                                  const MgTarget *target, MgBridgeMap *map);

/// How many kernel-level μGraph functions `module` holds.
uint32_t mg_pass_count_kernel_funcs(MlirOperation module);

/// Calls `fn` on every func.func of the module with ug.level = "kernel"
/// (those present when the walk starts; `fn` may replace functions).
/// Returns false if any call returned false (all are still visited).
bool mg_pass_for_each_kernel_func(MlirOperation module,
                                  bool (*fn)(MlirOperation module,
                                             MlirOperation func, void *ud),
                                  void *ud);


#endif // MIRAGE_PASSES_UGRAPH_FUNCS_H
