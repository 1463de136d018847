//===- passes.h - C API for the Mirage MLIR passes --------------*- C -*-===//
//
// Every Mirage pass is a module pass written in C (mlirCreateExternalPass).
// Each is also registered by name as a pass pipeline whose raw option string
// is parsed in C, so `builtin.module(mirage-superopt{max-block-ops=7})` works
// in textual pipelines, in mirage-opt and in stock mlir-opt with the plugin.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_H
#define MIRAGE_PASSES_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mirage/support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every Mirage pass by name in MLIR's global pass registry.
/// Safe to call more than once.
MG_API void mg_passes_register(void);

/// Number of Mirage passes and their command-line names ("mirage-superopt").
MG_API size_t mg_passes_count(void);
MG_API const char *mg_passes_name(size_t index);
/// Writes a --help style description of pass `index` and its options.
MG_API void mg_passes_print_help(size_t index, MlirStringCallback callback,
                                 void *user_data);

/// Creates pass `name` with `options` ("key=value ...") and adds it to the
/// module-level pass manager `pm`. On a bad name or option returns false and
/// writes a message naming the culprit into `error` (size `error_size`).
MG_API bool mg_passes_add(MlirOpPassManager pm, const char *name,
                          MlirStringRef options, char *error,
                          size_t error_size);

/// Loads the μGraph (`ug`) IRDL dialect, embedded from
/// dialects/ugraph.irdl.mlir at build time, into `ctx`. Idempotent.
MG_API MlirLogicalResult mg_passes_load_ugraph_dialect(MlirContext ctx);

/// Under `mpirun -np N` (docs/scale-out.md): true on ranks other than 0,
/// which search their share of the module for rank 0 and must write no
/// output. False in a plain run.
MG_API bool mg_passes_mpi_is_worker(void);
/// Ends MPI, if a pass started it, with the process's exit `status`; call
/// it before exiting (mirage-opt does). A no-op in a plain run.
MG_API void mg_passes_mpi_finish(int status);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_PASSES_H
