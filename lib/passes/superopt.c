//===- superopt.c - --mirage-superopt: the whole pipeline ------------------===//
//
// lift -> LAX partition -> search -> verify -> (cost) -> (lower). The stages
// that exist run; the pass never claims work it did not do. Lowering to
// NVVM/PTX is not implemented yet, so the optimized μGraphs stay in the
// module (their ug.reference keeps the original ops: --mirage-unlift
// restores them) and a remark says so.
//
//===----------------------------------------------------------------------===//
#include "search_pass.h"


#include "mirage/lift.h"

// The search options come first, in the same order, so `values` can be
// passed to mg_search_pass_run_on as it is.
enum { OPT_MAX_LAX_OPS = SEARCH_OPT_COUNT, OPT_LIFT_RELU };

static const MgOptionSpec options[] = {
    MG_SEARCH_OPTION_SPECS,
    {"max-lax-ops", MG_OPTION_INT, "16",
     "most μGraph ops per lifted LAX subprogram", 1, 4096},
    {"lift-relu", MG_OPTION_BOOL, "false",
     "lift relu-shaped clamps as ug.relu instead of cutting there", 0, 0},
};

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  bool remarks = mg_pass_remarks_enabled(values[SEARCH_OPT_REMARKS].b);
  MgLiftOptions lift = mg_lift_options_default();
  lift.max_ops = (uint32_t)values[OPT_MAX_LAX_OPS].i;
  lift.lift_relu = values[OPT_LIFT_RELU].b;
  if (remarks)
    lift.remark = mg_pass_print_remark;
  MgLiftStats stats = {0};
  MgDiag diag = {-1, -1, ""};
  if (mg_lift_module(module, &lift, &stats, &diag) != MG_STATUS_OK) {
    mg_pass_error(mlirOperationGetLocation(module), "mirage-superopt: %s",
                  diag.message);
    mlirExternalPassSignalFailure(pass);
    return;
  }
  if (!mg_search_pass_run_on(module, values)) {
    mlirExternalPassSignalFailure(pass);
    return;
  }
  if (remarks && stats.subprograms > 0)
    mg_pass_remark(mlirOperationGetLocation(module),
                   "mirage-superopt: %u LAX subprogram(s) lifted and searched; "
                   "lowering to NVVM/PTX is not implemented yet, so the "
                   "μGraphs stay in the module (--mirage-unlift restores the "
                   "original ops)",
                   stats.subprograms);
}

const MgPassDef mg_pass_superopt = {
    "mirage-superopt",
    "Superoptimize tensor programs: lift to μGraphs, search, verify (lowering "
    "to PTX not yet implemented)",
    options, sizeof options / sizeof options[0], mg_search_pass_check, run, NULL};
