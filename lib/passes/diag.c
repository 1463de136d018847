//===- diag.c - Errors and remarks with source locations ------------------===//
#include "pass.h"
#include "mpi_ranks.h"
#include "mirage/tool.h"

#include "mirage/graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mg_pass_error(MlirLocation loc, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mlirEmitError(loc, msg);
}

// "file:line:col: <severity>: message" on stderr (the 22 C API emits only
// errors through the diagnostic engine).
static void print_note(MlirLocation loc, const char *severity,
                       const char *fmt, va_list ap) {
  if (mg_mpi_is_worker()) // under mpirun, rank 0 alone reports
    return;
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  fflush(stdout); // keep output already printed before the note
  mg_tool_print_location(loc, stderr);
  fprintf(stderr, ": %s: %s\n", severity, msg);
}

void mg_pass_remark(MlirLocation loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  print_note(loc, "remark", fmt, ap);
  va_end(ap);
}

void mg_pass_warning(MlirLocation loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  print_note(loc, "warning", fmt, ap);
  va_end(ap);
}

bool mg_pass_env_flag(const char *env_name, bool option_value) {
  const char *env = getenv(env_name);
  return option_value || (env && *env && strcmp(env, "0") != 0);
}

bool mg_pass_remarks_enabled(bool option_value) {
  return mg_pass_env_flag("MIRAGE_REMARKS", option_value);
}

void mg_pass_print_remark(void *user_data, MlirLocation loc,
                          const char *message) {
  (void)user_data;
  mg_pass_remark(loc, "%s", message);
}

bool mg_pass_check_first_target(const MgOptionValue *values, char *error,
                                size_t size) {
  return mg_pass_check_target(values[0].s, error, size);
}

bool mg_pass_check_target(const char *name, char *error, size_t size) {
  if (mg_target_lookup(name))
    return true;
  snprintf(error, size, "unknown target '%s' (expected %s)", name,
           mg_target_names());
  return false;
}
