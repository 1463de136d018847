//===- pass.h - How a Mirage pass is described to the registry -----------===//
//
// Each pass is a table entry: name, summary, option specs, and a run
// function. registry.c turns an entry plus parsed options into an external
// MLIR pass and registers it by name.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_PASS_H
#define MIRAGE_PASSES_PASS_H

#include "mirage/bridge.h"
#include "mirage/passes.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "options.h"

typedef struct MgPassDef {
  const char *name;
  const char *summary;
  const MgOptionSpec *options;
  size_t num_options;
  /// Checks option values beyond their type (NULL: none); false + message.
  bool (*check)(const MgOptionValue *values, char *error, size_t error_size);
  /// Runs on the module; reports with mg_pass_error and signals failure.
  void (*run)(MlirOperation module, MlirExternalPass pass,
              const MgOptionValue *values);
  /// Appends upstream passes after this one (NULL: none), e.g. the PTX
  /// pipeline after lowering; false + message.
  bool (*extend)(MlirOpPassManager pm, const MgOptionValue *values,
                 char *error, size_t error_size);
} MgPassDef;

extern const MgPassDef mg_pass_superopt;
extern const MgPassDef mg_pass_verify_ugraph;
extern const MgPassDef mg_pass_check_equiv;
extern const MgPassDef mg_pass_test_bridge;
extern const MgPassDef mg_pass_lift, mg_pass_unlift;
extern const MgPassDef mg_pass_cost;
extern const MgPassDef mg_pass_lower;
extern const MgPassDef mg_pass_ptxas;
extern const MgPassDef mg_pass_strip_compile_times;

/// Emits an error diagnostic at `loc` (through the context's handlers).
void mg_pass_error(MlirLocation loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/// Prints "file:line:col: remark: ..." on stderr. The 22 C API can only emit
/// errors, so remarks bypass the diagnostic engine.
void mg_pass_remark(MlirLocation loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/// Prints "file:line:col: warning: ..." on stderr, always (like remarks,
/// outside the diagnostic engine).
void mg_pass_warning(MlirLocation loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/// True when the option is set or the environment variable is set and not
/// "0" (mirage-opt's --mirage-remarks/-progress/-stats set them).
bool mg_pass_env_flag(const char *env_name, bool option_value);
/// True when remarks were requested (option or MIRAGE_REMARKS=1).
bool mg_pass_remarks_enabled(bool option_value);
/// An MgLiftRemarkFn-shaped callback printing a remark (user_data unused).
void mg_pass_print_remark(void *user_data, MlirLocation loc,
                          const char *message);
/// Option check: `name` is a known GPU target; else a message listing them.
bool mg_pass_check_target(const char *name, char *error, size_t size);
/// The option check of a pass whose first option is its GPU target.
bool mg_pass_check_first_target(const MgOptionValue *values, char *error,
                                size_t size);


#endif // MIRAGE_PASSES_PASS_H
