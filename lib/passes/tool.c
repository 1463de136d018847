//===- tool.c - What the command-line tools share --------------------------===//
#include "mirage/tool.h"

#include "mirage/passes.h"
#include "mlir-c/Diagnostics.h"
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

// What the implicit module adds around the file's ops.
static const char module_open[] = "module {", module_close[] = "\n}\n";
#define OPEN_LEN (sizeof module_open - 1)
#define CLOSE_LEN (sizeof module_close - 1)

/// +1 for an opening bracket, -1 for a closing one, 0 otherwise.
static int bracket_delta(char c) {
  return (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
}

static bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$' ||
         c == '-';
}

/// Skips a string literal or a `//` comment starting at `pos`; returns the
/// offset after it, or `pos` when neither starts there.
static size_t skip_literal(const char *text, size_t end, size_t pos) {
  if (text[pos] == '"') {
    for (++pos; pos < end && text[pos] != '"' && text[pos] != '\n'; ++pos)
      if (text[pos] == '\\' && pos + 1 < end)
        ++pos;
    return pos < end ? pos + 1 : end;
  }
  if (text[pos] == '/' && pos + 1 < end && text[pos + 1] == '/') {
    while (pos < end && text[pos] != '\n')
      ++pos;
    return pos;
  }
  return pos;
}

/// Length of the alias name (`#map`, `!t`) at `pos` when a top-level alias
/// definition starts there, else 0.
static size_t alias_name_length(const char *text, size_t end, size_t pos) {
  if (text[pos] != '#' && text[pos] != '!')
    return 0;
  size_t p = pos + 1;
  while (p < end && is_ident_char(text[p]))
    ++p;
  size_t name = p - pos;
  while (p < end && (text[p] == ' ' || text[p] == '\t'))
    ++p;
  return name > 1 && p < end && text[p] == '=' ? name : 0;
}

/// End of the alias definition starting at `pos`: the end of the line where
/// its brackets close and the next line does not continue it (indented).
static size_t alias_end(const char *text, size_t end, size_t pos) {
  int depth = 0;
  while (pos < end) {
    size_t next = skip_literal(text, end, pos);
    if (next != pos) {
      pos = next;
      continue;
    }
    char c = text[pos];
    depth += bracket_delta(c);
    if (c == '\n' && depth <= 0 &&
        !(pos + 1 < end && (text[pos + 1] == ' ' || text[pos + 1] == '\t') &&
          pos + 2 < end && text[pos + 2] != '\n'))
      return pos;
    ++pos;
  }
  return end;
}

/// True when `#name` is used as a token in [from, to) outside strings and
/// comments: a forward reference mlir-opt rejects, so the alias must stay.
static bool alias_used_in(const char *text, size_t from, size_t to,
                          const char *name, size_t n) {
  for (size_t pos = from; pos < to;) {
    size_t next = skip_literal(text, to, pos);
    if (next != pos) {
      pos = next;
      continue;
    }
    if (pos + n <= to && !memcmp(text + pos, name, n) &&
        (pos + n == to || !is_ident_char(text[pos + n])))
      return true;
    ++pos;
  }
  return false;
}

typedef struct {
  size_t wrapped, original, length; // a moved alias: where it is, was, its size
} Hoisted;

/// How the wrapped text maps back to the file, for diagnostics.
typedef struct {
  const char *text, *name, *wrapped_text;
  size_t len, wrapped_len, at, end;
  size_t moved; // bytes of aliases put before the opening
  Hoisted *hoisted;
  size_t num_hoisted;
  bool reemitting;
} Wrapping;

/// mlir-opt accepts alias definitions anywhere at the top level; inside the
/// implicit module they are a syntax error. Each one after `at` (the module's
/// opening) is moved, on one line, to just before the opening, and its text
/// blanked in place with its newlines kept, so no other line moves. Appends
/// the moved definitions to `hoisted` (each followed by a space).
static void hoist_aliases(char *text, size_t at, size_t end, char *hoisted,
                          size_t *hoisted_len, Wrapping *w) {
  int depth = 0;
  bool line_start = true;
  for (size_t pos = at; pos < end;) {
    size_t name = line_start && depth == 0 ? alias_name_length(text, end, pos)
                                           : 0;
    line_start = false;
    if (name && !alias_used_in(text, at, pos, text + pos, name)) {
      size_t stop = alias_end(text, end, pos);
      w->hoisted[w->num_hoisted++] =
          (Hoisted){at + *hoisted_len, pos, stop - pos};
      for (size_t i = pos; i < stop; ++i) {
        char c = text[i];
        hoisted[(*hoisted_len)++] = c == '\n' || c == '\r' ? ' ' : c;
        if (c != '\n')
          text[i] = ' ';
      }
      hoisted[(*hoisted_len)++] = ' ';
      pos = stop;
      continue;
    }
    size_t next = skip_literal(text, end, pos);
    if (next != pos) {
      pos = next;
      continue;
    }
    char c = text[pos++];
    depth += bracket_delta(c);
    line_start = c == '\n';
  }
}

/// The file offset of offset `pos` of the wrapped text.
static size_t original_offset(const Wrapping *w, size_t pos) {
  if (pos < w->at)
    return pos;
  for (size_t i = 0; i < w->num_hoisted; ++i) {
    const Hoisted *h = &w->hoisted[i];
    if (pos >= h->wrapped && pos < h->wrapped + h->length + 1)
      return h->original + (pos - h->wrapped < h->length ? pos - h->wrapped
                                                          : h->length);
  }
  if (pos < w->at + w->moved + OPEN_LEN)
    return w->at;
  pos -= w->moved + OPEN_LEN;
  if (pos < w->end)
    return pos;
  return pos < w->end + CLOSE_LEN ? w->end : pos - CLOSE_LEN;
}

/// Re-emits a parser error at the file's own line and column: the wrapping
/// moved text (the opening, moved aliases), and diagnostics must not say so.
static MlirLogicalResult remap_diagnostic(MlirDiagnostic diag, void *data) {
  Wrapping *w = data;
  MlirLocation loc = mlirDiagnosticGetLocation(diag);
  if (w->reemitting || mlirDiagnosticGetSeverity(diag) != MlirDiagnosticError ||
      !mlirLocationIsAFileLineColRange(loc))
    return mlirLogicalResultFailure();
  int line = mlirLocationFileLineColRangeGetStartLine(loc);
  int col = mlirLocationFileLineColRangeGetStartColumn(loc);
  if (line <= 0 || col <= 0)
    return mlirLogicalResultFailure();
  // Walk the wrapped text's lines to the offset, then the file's back.
  size_t pos = 0;
  for (int l = 1; l < line && pos < w->wrapped_len; ++pos)
    l += w->wrapped_text[pos] == '\n';
  size_t orig = original_offset(w, pos + (size_t)(col - 1));
  if (orig > w->len)
    orig = w->len;
  int oline = 1, ocol = 1;
  for (size_t i = 0; i < orig; ++i)
    w->text[i] == '\n' ? (++oline, ocol = 1) : ++ocol;
  MgToolText msg = {0};
  mlirDiagnosticPrint(diag, mg_tool_collect, &msg);
  w->reemitting = true;
  mlirEmitError(mlirLocationFileLineColGet(mlirLocationGetContext(loc),
                                           mlirStringRefCreateFromCString(w->name),
                                           (unsigned)oline, (unsigned)ocol),
                msg.text);
  w->reemitting = false;
  return mlirLogicalResultSuccess();
}

/// Parses like mlir-opt: top-level ops go into an implicit module, unless
/// the input is one builtin.module, which is then the result. Diagnostics
/// keep the file's lines and columns (see hoist_aliases, remap_diagnostic).
MlirOperation mg_tool_parse_module(MlirContext ctx, const char *text,
                                   size_t len, const char *name) {
  size_t at = module_open_offset(text, len);
  size_t end = resources_start(text, len);
  if (end < at)
    end = at;
  size_t total = 2 * len + OPEN_LEN + CLOSE_LEN;
  char *wrapped = malloc(total + 1), *body = malloc(len + 1);
  Hoisted *hoisted = malloc(sizeof *hoisted * (len / 4 + 1));
  if (!wrapped || !body || !hoisted) {
    free(wrapped);
    free(body);
    free(hoisted);
    return (MlirOperation){NULL};
  }
  Wrapping w = {.text = text, .name = name, .len = len, .at = at,
                .end = end, .hoisted = hoisted};
  memcpy(body, text, len);
  size_t n = 0;
  memcpy(wrapped + n, text, at), n += at;
  hoist_aliases(body, at, end, wrapped + n, &w.moved, &w);
  n += w.moved;
  memcpy(wrapped + n, module_open, OPEN_LEN), n += OPEN_LEN;
  memcpy(wrapped + n, body + at, end - at), n += end - at;
  memcpy(wrapped + n, module_close, CLOSE_LEN), n += CLOSE_LEN;
  memcpy(wrapped + n, text + end, len - end), n += len - end;
  wrapped[n] = 0;
  free(body);
  w.wrapped_text = wrapped;
  w.wrapped_len = n;
  MlirDiagnosticHandlerID id =
      mlirContextAttachDiagnosticHandler(ctx, remap_diagnostic, &w, NULL);
  MlirOperation outer =
      mlirOperationCreateParse(ctx, mlirStringRefCreate(wrapped, n),
                               mlirStringRefCreateFromCString(name));
  mlirContextDetachDiagnosticHandler(ctx, id);
  free(wrapped);
  free(hoisted);
  if (mlirOperationIsNull(outer))
    return outer;
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(outer, 0));
  MlirOperation first = mlirBlockGetFirstOperation(block);
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
