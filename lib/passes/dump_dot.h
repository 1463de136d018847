//===- dump_dot.h - Pictures of the chosen μGraphs (dump-dot=DIR) --------===//
#ifndef MIRAGE_PASSES_DUMP_DOT_H
#define MIRAGE_PASSES_DUMP_DOT_H

#include "pass.h"

/// The directory pictures go to: the option's value, else the environment's
/// MIRAGE_DUMP_DOT (mirage-opt --mirage-dump-dot=DIR sets it), else "" (no
/// pictures).
const char *mg_dump_dot_dir(const char *option_value);
/// Option check: creates the directory when missing; false with a message
/// naming it and why when it cannot be made or written into.
bool mg_dump_dot_check(const char *option_value, char *error, size_t size);
/// Writes `program` as DIR/<func>.dot (a file name that keeps the symbol's
/// safe bytes and writes the others as %XX), replacing the file as a whole.
/// False after emitting an error at `loc`.
bool mg_dump_dot_write(const char *dir, const char *func,
                       const MgProgram *program, const char *caption,
                       MlirLocation loc);

#endif // MIRAGE_PASSES_DUMP_DOT_H
