//===- ptxas_run.h - Running the CUDA assembler on PTX text ---------------===//
//
// One place that runs ptxas: `ptxas -arch=<chip> -v <file> -o /dev/null`
// on PTX written into a private temporary directory (mkdtemp, mode 0700,
// removed afterwards), no shell, stdout and stderr captured, killed past a
// deadline. --mirage-ptxas checks PTX with it; the search's ranking by
// ptxas facts (ptx_rank.c) reads registers and shared memory from it.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_PTXAS_RUN_H
#define MIRAGE_PASSES_PTXAS_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "mirage/support.h"

typedef struct MgPtxasJob {
  const char *ptxas; // the executable
  const char *arch;  // "sm_90"
  double timeout_s;  // killed past it (0: 60 s)
} MgPtxasJob;

/// Assembles `len` bytes of PTX at `ptx`; `log` gets what ptxas printed.
/// False with a reason in `why` when it could not run, ran past the
/// deadline or rejected the PTX (then the log's first error line).
bool mg_ptxas_assemble(const MgPtxasJob *job, const char *ptx, size_t len,
                       MgText *log, char *why, size_t size);

/// The ptxas `spec` names: "none" none (false); "auto" the toolkit's
/// (/usr/local/cuda/bin/ptxas), else the first `ptxas` on PATH; else
/// `spec` itself, a path. True with the path in `out` when executable.
bool mg_ptxas_find(const char *spec, char *out, size_t size);

/// The last line `ptxas --version` prints (its build), into `out`.
bool mg_ptxas_version(const char *ptxas, char *out, size_t size);

#endif // MIRAGE_PASSES_PTXAS_RUN_H
