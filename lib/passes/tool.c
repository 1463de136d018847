//===- tool.c - What the command-line tools share --------------------------===//
#include "mirage/tool.h"

#include "mirage/passes.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Target/LLVMIR.h"

#include <stdlib.h>
#include <string.h>

void mg_tool_print_chunk(MlirStringRef chunk, void *user_data) {
  fwrite(chunk.data, 1, chunk.length, (FILE *)user_data);
}

void mg_tool_print_location(MlirLocation loc, FILE *out) {
  for (int depth = 0; depth < 8; ++depth) {
    if (mlirLocationIsAFileLineColRange(loc)) {
      MlirStringRef f =
          mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
      int line = mlirLocationFileLineColRangeGetStartLine(loc);
      if (line <= 0) // the module itself: just the file
        fprintf(out, "%.*s", (int)f.length, f.data);
      else
        fprintf(out, "%.*s:%d:%d", (int)f.length, f.data, line,
                mlirLocationFileLineColRangeGetStartColumn(loc));
      return;
    }
    if (mlirLocationIsACallSite(loc)) {
      loc = mlirLocationCallSiteGetCaller(loc);
    } else if (mlirLocationIsAName(loc)) {
      loc = mlirLocationNameGetChildLoc(loc);
    } else if (mlirLocationIsAFused(loc) &&
               mlirLocationFusedGetNumLocations(loc) > 0) {
      // Lifted kernel graphs stand for several ops: point at the first.
      intptr_t n = mlirLocationFusedGetNumLocations(loc);
      MlirLocation *locs = malloc(sizeof *locs * (size_t)n);
      if (!locs)
        break;
      mlirLocationFusedGetLocations(loc, locs);
      loc = locs[0];
      free(locs);
    } else {
      break;
    }
  }
  mlirLocationPrint(loc, mg_tool_print_chunk, out);
}

MlirLogicalResult mg_tool_print_diagnostic(MlirDiagnostic diag,
                                           void *user_data) {
  static const char *const severity[] = {"error", "warning", "note",
                                         "remark"};
  MlirDiagnosticSeverity sev = mlirDiagnosticGetSeverity(diag);
  if (sev == MlirDiagnosticError && user_data)
    ++*(int *)user_data;
  fflush(stdout); // keep output already printed before the message
  mg_tool_print_location(mlirDiagnosticGetLocation(diag), stderr);
  fprintf(stderr, ": %s: ", severity[sev]);
  mlirDiagnosticPrint(diag, mg_tool_print_chunk, stderr);
  fputc('\n', stderr);
  for (intptr_t i = 0; i < mlirDiagnosticGetNumNotes(diag); ++i) {
    MlirDiagnostic note = mlirDiagnosticGetNote(diag, i);
    mg_tool_print_location(mlirDiagnosticGetLocation(note), stderr);
    fprintf(stderr, ": note: ");
    mlirDiagnosticPrint(note, mg_tool_print_chunk, stderr);
    fputc('\n', stderr);
  }
  return mlirLogicalResultSuccess();
}

void mg_tool_collect(MlirStringRef chunk, void *user_data) {
  MgToolText *t = user_data;
  size_t room = sizeof t->text - 1 - t->len;
  size_t n = chunk.length < room ? chunk.length : room;
  memcpy(t->text + t->len, chunk.data, n);
  t->len += n;
  t->text[t->len] = 0;
}

/// Where the implicit module opens: at the end of the last blank or alias
/// line (`#x = ...`, `!x = ...`) before the first top-level op, so aliases
/// stay at the top level, comments stay comments and no line moves; at the
/// very start when only comments precede the first op.
static size_t module_open_offset(const char *text, size_t len) {
  size_t pos = 0, at = 0;
  while (pos < len) {
    const char *eol = memchr(text + pos, '\n', len - pos);
    size_t line_end = eol ? (size_t)(eol - text) : len;
    size_t first = pos;
    while (first < line_end && (text[first] == ' ' || text[first] == '\t' ||
                                text[first] == '\r'))
      ++first;
    bool comment = first + 1 < line_end && text[first] == '/' &&
                   text[first + 1] == '/';
    bool alias = first == pos && first < line_end &&
                 (text[first] == '#' || text[first] == '!');
    if (first == line_end || alias)
      at = line_end;
    else if (!comment)
      return at;
    if (!eol)
      break;
    pos = line_end + 1;
  }
  return at;
}

/// Where it closes: before a trailing `{-#` resource section, else the end.
static size_t resources_start(const char *text, size_t len) {
  for (size_t pos = 0; pos + 3 <= len; ++pos)
    if ((pos == 0 || text[pos - 1] == '\n') && !memcmp(text + pos, "{-#", 3))
      return pos;
  return len;
}

/// Parses like mlir-opt: top-level ops go into an implicit module, unless
/// the input is one builtin.module, which is then the result. Line numbers
/// stay those of the file (see module_open_offset).
MlirOperation mg_tool_parse_module(MlirContext ctx, const char *text,
                                   size_t len, const char *name) {
  static const char open[] = "module {", close[] = "\n}\n";
  size_t at = module_open_offset(text, len);
  size_t end = resources_start(text, len);
  if (end < at)
    end = at;
  size_t total = len + sizeof open - 1 + sizeof close - 1;
  char *wrapped = malloc(total + 1);
  if (!wrapped)
    return (MlirOperation){NULL};
  size_t n = 0;
  memcpy(wrapped + n, text, at), n += at;
  memcpy(wrapped + n, open, sizeof open - 1), n += sizeof open - 1;
  memcpy(wrapped + n, text + at, end - at), n += end - at;
  memcpy(wrapped + n, close, sizeof close - 1), n += sizeof close - 1;
  memcpy(wrapped + n, text + end, len - end), n += len - end;
  wrapped[n] = 0;
  MlirOperation outer =
      mlirOperationCreateParse(ctx, mlirStringRefCreate(wrapped, n),
                               mlirStringRefCreateFromCString(name));
  free(wrapped);
  if (mlirOperationIsNull(outer))
    return outer;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(outer, 0));
  MlirOperation first = mlirBlockGetFirstOperation(body);
  MlirStringRef fname = mlirOperationIsNull(first)
                            ? mlirStringRefCreate("", 0)
                            : mlirIdentifierStr(mlirOperationGetName(first));
  if (!mlirOperationIsNull(first) &&
      mlirOperationIsNull(mlirOperationGetNextInBlock(first)) &&
      fname.length == 14 && !memcmp(fname.data, "builtin.module", 14)) {
    mlirOperationRemoveFromParent(first);
    mlirOperationDestroy(outer);
    return first;
  }
  return outer;
}

char *mg_tool_read_file(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (n < cap - 1)
      break;
    char *bigger = realloc(buf, cap *= 2);
    if (!bigger) {
      free(buf);
      buf = NULL;
    } else {
      buf = bigger;
    }
  }
  bool failed = ferror(f);
  if (f != stdin)
    fclose(f);
  if (!buf || failed) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}


MlirContext mg_tool_context_create(int *errors) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  // gpu-module-to-binary (PTX after --mirage-lower) translates to LLVM IR.
  mlirRegisterAllLLVMTranslations(ctx);
  mlirRegisterAllPasses();
  mg_passes_register();
  mlirContextAttachDiagnosticHandler(ctx, mg_tool_print_diagnostic, errors,
                                     NULL);
  if (mlirLogicalResultIsFailure(mg_passes_load_ugraph_dialect(ctx))) {
    fprintf(stderr, "internal error: the μGraph dialect did not load\n");
    mlirContextDestroy(ctx);
    return (MlirContext){NULL};
  }
  return ctx;
}
