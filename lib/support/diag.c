//===- diag.c - Status names and the one path that fills an MgDiag --------===//
//
// Every library error goes through mg_diag_set, so messages are formatted in
// one place (as Lua routes compile errors through luaK_semerror). Libraries
// never print: the caller decides what to do with the diagnostic.
//
//===----------------------------------------------------------------------===//
#include "mirage/support.h"

#include <stdarg.h>
#include <stdio.h>

MgStatus mg_diag_set(MgDiag *diag, MgStatus status, int32_t graph, int32_t op,
                     const char *fmt, ...) {
  if (!diag)
    return status;
  diag->graph = graph;
  diag->op = op;
  diag->status = status;
  va_list ap;
  va_start(ap, fmt);
  // vsnprintf truncates long messages and always NUL-terminates.
  int n = vsnprintf(diag->message, sizeof diag->message, fmt, ap);
  va_end(ap);
  if (n < 0)
    diag->message[0] = '\0';
  return status;
}

const char *mg_status_name(MgStatus status) {
  static const char *const names[MG_STATUS_COUNT] = {
      "ok", "invalid", "unsupported", "nomem", "budget",
  };
  if ((unsigned)status >= MG_STATUS_COUNT)
    return "unknown";
  return names[status];
}
