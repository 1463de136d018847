//===- superopt.c - --mirage-superopt: the whole pipeline ------------------===//
//
// lift -> LAX partition -> search (verify, rank by cost) -> lower -> PTX.
// With lower=false the verified μGraphs stay in the module (their
// ug.reference keeps the original ops: --mirage-unlift restores them).
// Otherwise subprograms the search could not improve go back to their
// original ops, and the improved ones become GPU kernels and host launch
// code (lower_pass.c); PTX comes from upstream passes appended to the pipeline.
//
//===----------------------------------------------------------------------===//
#include "lower_pass.h"
#include "search_pass.h"
#include "ugraph_funcs.h"

#include <string.h>

#include "mirage/lift.h"

// The search options come first, in the same order, so `values` can be
// passed to mg_search_pass_run_on as it is.
enum {
  OPT_MAX_LAX_OPS = SEARCH_OPT_COUNT,
  OPT_LIFT_RELU,
  OPT_LOWER,
  OPT_PTX, // then the other MG_LOWER_OPTION_SPECS
};

static const MgOptionSpec options[] = {
    MG_SEARCH_OPTION_SPECS,
    {"max-lax-ops", MG_OPTION_INT, "16",
     "most μGraph ops per lifted LAX subprogram", 1, 4096},
    {"lift-relu", MG_OPTION_BOOL, "true",
     "lift relu-shaped clamps as ug.relu (false: cut there as Mirage does)", 0, 0},
    {"lower", MG_OPTION_BOOL, "true",
     "lower the kernel graphs to GPU kernels and host code (false: keep the "
     "μGraphs)", 0, 0},
    MG_LOWER_OPTION_SPECS,
};

static bool check(const MgOptionValue *values, char *error, size_t size) {
  return mg_search_pass_check(values, error, size) &&
         mg_lower_pass_check(&values[OPT_PTX], error, size);
}

static bool extend(MlirOpPassManager pm, const MgOptionValue *values,
                   char *error, size_t size) {
  if (!values[OPT_LOWER].b)
    return true;
  return mg_lower_pass_extend(pm, &values[OPT_PTX],
                              values[SEARCH_OPT_TARGET].s,
                              values[SEARCH_OPT_REMARKS].b, error, size);
}

static MlirWalkResult find_custom(MlirOperation op, void *ud) {
  if (mg_bridge_op_is(op, "ug.custom")) {
    *(bool *)ud = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

// What a kernel graph's lowering is asked for: the module (for the callee
// graphs), the host mode, whether to say why one goes back.
typedef struct Keep {
  MlirOperation module;
  MgLowerHost host;
  bool remarks;
} Keep;

// A kernel graph with symbolic dims the lowering cannot take yet.
static bool symbols_unlowerable(MlirOperation kernel, const Keep *k) {
  MlirSymbolTable symbols = mlirSymbolTableCreate(k->module);
  MgBridgeMap map;
  MgProgram *p = mg_pass_import_checked(symbols, kernel, NULL, &map);
  const char *why =
      p ? mg_lower_symbols_unsupported(p, MG_LOWER_HOST, k->host) : NULL;
  if (why && k->remarks)
    mg_pass_remark(mlirOperationGetLocation(kernel), "mirage-superopt: "
                   "'@%s' goes back to its original ops: cannot lower %s "
                   "yet", map.graph_names[0], why);
  if (p)
    mg_bridge_map_free(&map);
  mg_program_destroy(p);
  mlirSymbolTableDestroy(symbols);
  return why != NULL;
}

// Kernel graphs the search left as they were (no graph-defined kernel) go
// back to their original ops before lowering: upstream compiles those as
// it did before, where one-op kernels of ours would be naive. So do those
// whose dynamic dims the lowering cannot take yet.
static bool unimproved(MlirOperation kernel, void *ud) {
  bool custom = false;
  mlirOperationWalk(kernel, find_custom, &custom, MlirWalkPreOrder);
  return !custom || symbols_unlowerable(kernel, ud);
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  bool remarks = mg_pass_remarks_enabled(values[SEARCH_OPT_REMARKS].b);
  MgLiftOptions lift = mg_lift_options_default();
  lift.max_ops = (uint32_t)values[OPT_MAX_LAX_OPS].i;
  lift.lift_relu = values[OPT_LIFT_RELU].b;
  if (remarks)
    lift.remark = mg_pass_print_remark;
  MgLiftStats stats = {0};
  MgDiag diag = MG_DIAG_INIT;
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
  bool lower = values[OPT_LOWER].b;
  uint32_t kept = 0;
  Keep keep = {module,
               strcmp(values[OPT_PTX + MG_LOWER_OPT_HOST].s, "device")
                   ? MG_LOWER_HOST_COPY
                   : MG_LOWER_HOST_DEVICE,
               remarks};
  if (lower && mg_lift_unlift_module(module, unimproved, &keep, &kept,
                                     &diag) != MG_STATUS_OK) {
    mg_pass_error(mlirOperationGetLocation(module), "mirage-superopt: %s",
                  diag.message);
    mlirExternalPassSignalFailure(pass);
    return;
  }
  if (lower && !mg_lower_pass_run_on(
                   module, mg_target_lookup(values[SEARCH_OPT_TARGET].s),
                   &values[OPT_PTX], remarks)) {
    mlirExternalPassSignalFailure(pass);
    return;
  }
  if (remarks && stats.subprograms > 0 && lower)
    mg_pass_remark(mlirOperationGetLocation(module),
                   "mirage-superopt: %u LAX subprogram(s) lifted and "
                   "searched; %u lowered to GPU kernels, %u left as the "
                   "original ops (nothing faster was verified, or it cannot be "
                   "lowered yet: the remarks above say)",
                   stats.subprograms, stats.subprograms - kept, kept);
  else if (remarks && stats.subprograms > 0)
    mg_pass_remark(mlirOperationGetLocation(module),
                   "mirage-superopt: %u LAX subprogram(s) lifted and "
                   "searched; lower=false keeps the μGraphs "
                   "(--mirage-unlift restores the original ops)",
                   stats.subprograms);
}

const MgPassDef mg_pass_superopt = {
    "mirage-superopt",
    "Superoptimize tensor programs: lift to μGraphs, search, verify, lower "
    "to GPU kernels and PTX",
    options, sizeof options / sizeof options[0], check, run, extend};
