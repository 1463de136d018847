//===- bridge.h - μGraph dialect <-> MgProgram, both directions -*- C -*-===//
//
// Import reads the `ug` functions of a module (a kernel-level func.func and
// every block/thread graph it names) into an MgProgram, keeping the function
// names and an op -> location table for diagnostics. Export prints a program
// as `ug` functions (textual, generic form) and can insert them in a module.
// import(export(p)) == p for every valid program.
//
// The small MLIR helpers every MLIR-facing layer (lift, passes, the tools)
// uses to name ops, print types and find functions live here too, in
// names.c: the bridge is the lowest library that links MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_BRIDGE_H
#define MIRAGE_BRIDGE_H

#include "mirage/graph.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

//===--- MLIR helpers (names.c) -------------------------------------------===//

/// True when `op` is named `name` ("func.func").
MG_API bool mg_bridge_op_is(MlirOperation op, const char *name);
/// The `n` values of dense i64 array attribute `a` into `out`; false when
/// `a` is null, not such an array or of another length.
MG_API bool mg_bridge_i64s(MlirAttribute a, intptr_t n, int64_t *out);
/// The name of `op` as a NUL-terminated string in `buf`.
MG_API void mg_bridge_op_name(MlirOperation op, char *buf, size_t size);
/// `type` as MLIR prints it, NUL-terminated in `buf` (cut at size - 1).
MG_API void mg_bridge_type_text(MlirType type, char *buf, size_t size);
/// The μGraph dtype of the MLIR element type `element` (f16, bf16, f32);
/// false, `*dtype` untouched, for any other type.
MG_API bool mg_bridge_dtype(MlirType element, MgDType *dtype);
/// The func.func named `name` in `module`, or a null operation. Builds the
/// module's symbol table (O(functions)): for repeated lookups build one with
/// mlirSymbolTableCreate and use mg_bridge_lookup_func_in.
MG_API MlirOperation mg_bridge_lookup_func(MlirOperation module,
                                           const char *name);
/// The func.func named `name` in symbol table `symbols`, or a null operation.
MG_API MlirOperation mg_bridge_lookup_func_in(MlirSymbolTable symbols,
                                              const char *name);

//===--- Import and export (import.c, export.c, print.c) ------------------===//

/// Where each graph and op of an imported program came from.
typedef struct MgBridgeMap {
  uint32_t num_graphs;
  char **graph_names;         // symbol name per graph (malloc'd)
  MlirOperation *graph_funcs; // func.func per graph
  uint32_t *num_ops;          // per graph
  MlirLocation **op_locs;     // per graph, per op (INPUT ops: the func)
} MgBridgeMap;

/// Frees the map's arrays (not the IR). Accepts a zeroed map.
MG_API void mg_bridge_map_free(MgBridgeMap *map);

/// True when `func` is a func.func carrying `ug.level`; writes the level.
MG_API bool mg_bridge_func_level(MlirOperation func, MgLevel *level);

/// Imports the kernel graph `root` (a func.func with ug.level = "kernel" in
/// the module whose symbol table is `symbols`, borrowed) and the graphs it
/// references, looked up there. On failure returns non-OK, fills
/// `diag`, sets `*error_loc` to the offending op's location and leaves `map`
/// empty (nothing to free). On success the caller frees `map` with
/// mg_bridge_map_free. The program is built with the checking builders but
/// not yet mg_program_validate'd.
MG_API MgStatus mg_bridge_import(MlirSymbolTable symbols, MlirOperation root,
                                 MgProgram **program, MgBridgeMap *map,
                                 MlirLocation *error_loc, MgDiag *diag);

/// Location of (graph, op) from a diagnostic; the graph's func, or `fallback`.
MG_API MlirLocation mg_bridge_map_location(const MgBridgeMap *map,
                                           int32_t graph, int32_t op,
                                           MlirLocation fallback);

/// Prints `program` as `ug` func.funcs in generic form. `names` gives each
/// graph's symbol (NULL entries or NULL array: "<root_name>_<level><index>").
/// Returns a malloc'd NUL-terminated string, or NULL on no memory.
MG_API char *mg_bridge_print(const MgProgram *program, const char *root_name,
                             const char *const *names);

/// A module and its symbol table, both borrowed: functions that enter or
/// leave the module through mg_bridge_export enter or leave the table too.
typedef struct MgBridgeModule {
  MlirOperation op;
  MlirSymbolTable symbols;
} MgBridgeModule;

/// Replaces (or adds) the functions of `program` in `module`: functions of
/// the same names are erased first. New functions go where the old root
/// was, or at the end of the module. Lookups in the module's symbol table
/// take constant time, so exporting into a module of n functions costs
/// O(size of the program), not O(n); the table is kept current: erased
/// functions leave it, inserted ones enter it. Every created op gets
/// location `loc` (the source the graphs stand for). `funcs` (NULL, or one
/// slot per graph) receives the inserted function of each graph. Returns
/// failure if the text does not parse (a bug, reported as a diagnostic).
MG_API MlirLogicalResult mg_bridge_export(MgBridgeModule module,
                                          const MgProgram *program,
                                          const char *root_name,
                                          const char *const *names,
                                          MlirLocation loc,
                                          MlirOperation *funcs);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_BRIDGE_H
