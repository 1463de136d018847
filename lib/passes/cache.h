//===- cache.h - On-disk cache of search results --------------------------===//
//
// One file per (LAX subprogram, target, search options) key, holding the
// chosen μGraph in the dialect's textual form behind a header line with a
// checksum. Files are written to a temporary name and renamed, so readers
// never see a partial entry; a corrupted or stale entry is detected and
// ignored (the caller searches again and overwrites it).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_CACHE_H
#define MIRAGE_PASSES_CACHE_H

#include "mirage/graph.h"
#include "mlir-c/IR.h"

/// Resolves the cache directory: `option` if non-empty, else
/// $XDG_CACHE_HOME/mirage, else $HOME/.cache/mirage. False if none.
bool mg_cache_dir(const char *option, char *buf, size_t size);

/// Stores `program` under `key`; creates the directory. Non-OK with a
/// message on I/O errors (the caller reports it as a remark: a cache that
/// cannot be written is not fatal).
MgStatus mg_cache_store(const char *dir, uint64_t key, const MgProgram *program,
                        MgDiag *diag);

/// Loads the entry for `key` into a new program (parsed with `ctx`,
/// imported and validated for `target`). Returns NULL when absent (`*found`
/// false) or unusable (`*found` true, `diag` says why: bad header,
/// checksum, parse, import or validation failure).
MgProgram *mg_cache_load(MlirContext ctx, const char *dir, uint64_t key,
                         const MgTarget *target, bool *found, MgDiag *diag);

#endif // MIRAGE_PASSES_CACHE_H
