//===- lift_pass.c - --mirage-lift and --mirage-unlift --------------------===//
//
// Thin wrappers over lib/lift: options, remarks to stderr, errors as
// diagnostics. Unsupported input is never an error (it stays as written, and
// remarks say why); only a failed rewrite, an internal error, is.
//
//===----------------------------------------------------------------------===//
#include "pass.h"

#include <stdio.h>

#include "mirage/lift.h"

enum { OPT_MAX_OPS, OPT_LIFT_RELU, OPT_REMARKS };

static const MgOptionSpec options[] = {
    {"max-ops", MG_OPTION_INT, "16",
     "most μGraph ops per lifted kernel graph (larger subprograms are split "
     "in op order)",
     1, 4096},
    {"lift-relu", MG_OPTION_BOOL, "true",
     "lift relu-shaped tosa.clamp / maximum-with-0 as ug.relu (non-LAX, "
     "uninterpreted by the verifier like silu; false: cut there as Mirage "
     "does)",
     0, 0},
    {"remarks", MG_OPTION_BOOL, "false",
     "explain per function what was lifted and what was cut (also "
     "MIRAGE_REMARKS=1)",
     0, 0},
};

static void run_lift(MlirOperation module, MlirExternalPass pass,
                     const MgOptionValue *values) {
  MgLiftOptions opts = mg_lift_options_default();
  opts.max_ops = (uint32_t)values[OPT_MAX_OPS].i;
  opts.lift_relu = values[OPT_LIFT_RELU].b;
  if (mg_pass_remarks_enabled(values[OPT_REMARKS].b))
    opts.remark = mg_pass_print_remark;
  MgDiag diag = MG_DIAG_INIT;
  if (mg_lift_module(module, &opts, NULL, &diag) != MG_STATUS_OK) {
    mg_pass_error(mlirOperationGetLocation(module), "mirage-lift: %s",
                  diag.message);
    mlirExternalPassSignalFailure(pass);
  }
}

static void run_unlift(MlirOperation module, MlirExternalPass pass,
                       const MgOptionValue *values) {
  (void)values;
  MgDiag diag = MG_DIAG_INIT;
  uint32_t inlined = 0;
  if (mg_lift_unlift_module(module, NULL, NULL, &inlined, &diag) !=
      MG_STATUS_OK) {
    mg_pass_error(mlirOperationGetLocation(module), "mirage-unlift: %s",
                  diag.message);
    mlirExternalPassSignalFailure(pass);
    return;
  }
  if (mg_pass_remarks_enabled(false))
    mg_pass_remark(mlirOperationGetLocation(module),
                   "mirage-unlift: inlined %u kernel graph call%s", inlined,
                   inlined == 1 ? "" : "s");
}

const MgPassDef mg_pass_lift = {
    "mirage-lift",
    "Lift TOSA / linalg-on-tensors ops into μGraph kernel graphs (calls to "
    "@F_lax<k>, originals kept in @F_lax<k>_ref)",
    options,
    sizeof options / sizeof options[0],
    NULL,
    run_lift, NULL};

const MgPassDef mg_pass_unlift = {
    "mirage-unlift",
    "Inline the reference of every lifted kernel graph call (undoes "
    "mirage-lift)",
    NULL,
    0,
    NULL,
    run_unlift, NULL};
