//===- tool.h - What the command-line tools share -------------*- C -*-===//
//
// Reading modules the way mlir-opt does, printing diagnostics as
// "file:line:col: severity: message", and collecting MLIR's string
// callbacks. Used by tools/mirage-opt and tools/mirage-run.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_TOOL_H
#define MIRAGE_TOOL_H

#include <stdio.h>

#include "mirage/support.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// An MlirStringCallback writing to the FILE * in `user_data`.
MG_API void mg_tool_print_chunk(MlirStringRef chunk, void *user_data);

/// Prints "file:line:col" for `loc` (call sites: the caller; names: the
/// child; the whole file when the line is 0), else MLIR's own form.
MG_API void mg_tool_print_location(MlirLocation loc, FILE *out);

/// A diagnostic handler for mlirContextAttachDiagnosticHandler: prints the
/// diagnostic and its notes on stderr; `user_data`, when not NULL, is an
/// int counting the errors.
MG_API MlirLogicalResult mg_tool_print_diagnostic(MlirDiagnostic diagnostic,
                                                  void *user_data);

/// A bounded text sink for MLIR string callbacks (error messages).
typedef struct MgToolText {
  char text[1024];
  size_t len;
} MgToolText;
/// An MlirStringCallback appending to the MgToolText in `user_data`.
MG_API void mg_tool_collect(MlirStringRef chunk, void *user_data);

/// Parses like mlir-opt: top-level ops go into an implicit builtin.module
/// (aliases stay at the top level), unless the input is one builtin.module,
/// which is then the result. Locations keep the file's line numbers. A null
/// operation on failure (diagnostics went to the context's handlers); the
/// caller owns the result.
MG_API MlirOperation mg_tool_parse_module(MlirContext ctx, const char *text,
                                          size_t len, const char *name);

/// A context with every upstream dialect and pass registered, the Mirage
/// passes registered, the μGraph dialect loaded and mg_tool_print_diagnostic
/// attached (counting errors into `errors`, may be NULL). A null context
/// (after a message) if the dialect does not load. Destroy with
/// mlirContextDestroy.
MG_API MlirContext mg_tool_context_create(int *errors);

/// Reads a whole file ("-": stdin) into a NUL-terminated malloc'd buffer;
/// NULL on failure (errno says why).
MG_API char *mg_tool_read_file(const char *path, size_t *len);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_TOOL_H
