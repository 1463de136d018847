//===- ugraph_funcs.h - Finding and importing μGraph functions -----------===//
#ifndef MIRAGE_PASSES_UGRAPH_FUNCS_H
#define MIRAGE_PASSES_UGRAPH_FUNCS_H

#include "mirage/bridge.h"
#include "pass.h"

/// Imports kernel graph `func` (its callees looked up in `symbols`, the
/// module's symbol table) and validates it for `target`. On failure emits
/// an error at the offending op and returns NULL.
MgProgram *mg_pass_import_checked(MlirSymbolTable symbols, MlirOperation func,
                                  const MgTarget *target, MgBridgeMap *map);

/// How many kernel-level μGraph functions `module` holds.
uint32_t mg_pass_count_kernel_funcs(MlirOperation module);

/// Calls `fn` on every func.func of the module with ug.level = "kernel"
/// (those present when the walk starts, found by name: `fn` may replace
/// functions). `symbols` is the module's symbol table, built once for the
/// whole walk so that each call costs the same in a module of any size:
/// `fn` keeps it current (mg_bridge_export does; functions added or erased
/// otherwise go through mlirSymbolTableInsert / mlirSymbolTableErase).
/// Returns false if any call returned false (all are still visited).
bool mg_pass_for_each_kernel_func(MlirOperation module,
                                  bool (*fn)(MlirOperation module,
                                             MlirSymbolTable symbols,
                                             MlirOperation func, void *ud),
                                  void *ud);

/// A kernel graph as mg_pass_for_each_kernel_program hands it over:
/// imported and validated, `program` and `map` freed after the call.
typedef bool (*MgPassProgramFn)(MlirOperation module, MlirSymbolTable symbols,
                                MlirOperation func, const MgProgram *program,
                                const MgBridgeMap *map, void *ud);

/// mg_pass_for_each_kernel_func, each function imported and validated for
/// `target` first (mg_pass_import_checked: a function that fails counts as
/// a false return).
bool mg_pass_for_each_kernel_program(MlirOperation module,
                                     const MgTarget *target, MgPassProgramFn fn,
                                     void *ud);

/// The kernel graph of `p` holds custom (graph-defined) kernels: it was
/// searched or written so, and is not searched again.
bool mg_pass_has_custom_ops(const MgProgram *p);

#endif // MIRAGE_PASSES_UGRAPH_FUNCS_H
