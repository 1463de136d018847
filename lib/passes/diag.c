//===- diag.c - Errors and remarks with source locations ------------------===//
#include "pass.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mg_format_location(MlirLocation loc, char *buf, size_t size) {
  for (int depth = 0; depth < 8; ++depth) {
    if (mlirLocationIsAFileLineColRange(loc)) {
      MlirIdentifier file = mlirLocationFileLineColRangeGetFilename(loc);
      MlirStringRef f = mlirIdentifierStr(file);
      snprintf(buf, size, "%.*s:%d:%d", (int)f.length, f.data,
               mlirLocationFileLineColRangeGetStartLine(loc),
               mlirLocationFileLineColRangeGetStartColumn(loc));
      return;
    }
    if (mlirLocationIsACallSite(loc)) {
      loc = mlirLocationCallSiteGetCaller(loc);
      continue;
    }
    if (mlirLocationIsAFused(loc) && mlirLocationFusedGetNumLocations(loc) > 0) {
      intptr_t n = mlirLocationFusedGetNumLocations(loc);
      MlirLocation *locs = malloc(sizeof *locs * (size_t)n);
      if (!locs)
        break;
      mlirLocationFusedGetLocations(loc, locs);
      loc = locs[0];
      free(locs);
      continue;
    }
    if (mlirLocationIsAName(loc)) {
      loc = mlirLocationNameGetChildLoc(loc);
      continue;
    }
    break;
  }
  snprintf(buf, size, "<unknown>");
}

void mg_pass_error(MlirLocation loc, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mlirEmitError(loc, msg);
}

void mg_pass_remark(MlirLocation loc, const char *fmt, ...) {
  char where[512];
  mg_format_location(loc, where, sizeof where);
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s: remark: %s\n", where, msg);
}

bool mg_pass_remarks_enabled(bool option_value) {
  const char *env = getenv("MIRAGE_REMARKS");
  return option_value || (env && *env && strcmp(env, "0") != 0);
}

void mg_op_name(MlirOperation op, char *buf, size_t size) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(buf, size, "%.*s", (int)n.length, n.data);
}

bool mg_op_is(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && !memcmp(n.data, name, n.length);
}
