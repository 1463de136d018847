//===- dump_dot.c - Pictures of the chosen μGraphs (dump-dot=DIR) --------===//
//
// The search passes write each kernel-graph function's μGraph, as the
// search left it, to DIR/<func>.dot (lib/graph/dot.c draws it). The
// directory is made and checked when the pass is created, so a bad one
// fails before any search runs. A file name is a function of the symbol
// alone, so a rerun replaces the same files.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // getenv in strict C11

#include "dump_dot.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A file name needs at most NAME_MAX (255) bytes; beyond this many, the
// encoded symbol is cut and its hash appended, which keeps names distinct.
#define MAX_STEM 200

const char *mg_dump_dot_dir(const char *option_value) {
  if (option_value && *option_value)
    return option_value;
  const char *env = getenv("MIRAGE_DUMP_DOT");
  return env ? env : "";
}

bool mg_dump_dot_check(const char *option_value, char *error, size_t size) {
  const char *dir = mg_dump_dot_dir(option_value);
  if (!*dir)
    return true;
  MgDiag diag = MG_DIAG_INIT;
  if (mg_outfile_make_dirs(dir, &diag) == MG_STATUS_OK)
    return true;
  snprintf(error, size, "%s: %s",
           option_value && *option_value
               ? "option 'dump-dot'"
               : "MIRAGE_DUMP_DOT (--mirage-dump-dot)",
           diag.message);
  return false;
}

/// The file name for symbol `func`: [A-Za-z0-9_-] and non-leading '.' kept,
/// every other byte as %XX (so no name climbs out of DIR, hides, or
/// collides with another symbol's), then ".dot".
static void file_stem(const char *func, char *buf, size_t size) {
  MgText t = {NULL, 0, 0, false};
  for (const unsigned char *c = (const unsigned char *)func; *c; c++) {
    bool keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' ||
                (*c == '.' && c != (const unsigned char *)func);
    if (keep)
      mg_text_printf(&t, "%c", *c);
    else
      mg_text_printf(&t, "%%%02X", *c);
  }
  const char *stem = t.data && !t.failed ? t.data : "";
  size_t len = strlen(stem);
  if (len <= MAX_STEM) {
    snprintf(buf, size, "%s.dot", stem);
  } else {
    size_t cut = MAX_STEM - 17;
    while (stem[cut - 1] == '%' || stem[cut - 2] == '%')
      cut--; // never split a %XX
    snprintf(buf, size, "%.*s-%016llx.dot", (int)cut, stem,
             (unsigned long long)mg_hash_bytes(0, func, strlen(func)));
  }
  mg_text_free(&t);
}

bool mg_dump_dot_write(const char *dir, const char *func,
                       const MgProgram *program, const char *caption,
                       MlirLocation loc) {
  char stem[MAX_STEM + 8], path[PATH_MAX];
  file_stem(func, stem, sizeof stem);
  MgDiag diag = MG_DIAG_INIT;
  MgText text = {NULL, 0, 0, false};
  MgOutFile out;
  memset(&out, 0, sizeof out);
  bool ok = false;
  if (snprintf(path, sizeof path, "%s/%s", dir, stem) >= (int)sizeof path)
    snprintf(diag.message, sizeof diag.message, "the path is too long");
  else if (mg_program_write_dot(program, func, caption, &text, &diag) ==
               MG_STATUS_OK &&
           mg_outfile_open(&out, path, &diag) == MG_STATUS_OK) {
    fputs(text.data ? text.data : "", out.stream);
    ok = mg_outfile_commit(&out, &diag) == MG_STATUS_OK;
  }
  mg_outfile_discard(&out);
  mg_text_free(&text);
  if (!ok)
    mg_pass_error(loc, "cannot write the μGraph picture of '@%s' to '%s': %s",
                  func, dir, diag.message);
  return ok;
}
