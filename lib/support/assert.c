//===- assert.c - The report of a failed MG_ASSERT ------------------------===//
//
// Out of line so the macro stays one compare and one call; always built, so
// objects compiled with and without MG_ENABLE_ASSERT link together.
//
//===----------------------------------------------------------------------===//
#include "mirage/support.h"

#include <stdio.h>
#include <stdlib.h>

void mg_assert_fail(const char *expr, const char *file, int line,
                    const char *func) {
  fprintf(stderr, "%s:%d: %s: assertion failed: %s\n", file, line, func, expr);
  fflush(stderr);
  abort();
}
