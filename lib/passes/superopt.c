//===- superopt.c - --mirage-superopt: the whole pipeline ------------------===//
//
// lift -> LAX partition -> search -> verify -> cost -> lower. Only the stages
// that exist run; the pass never claims work it did not do. Until lifting
// lands it leaves the module unchanged and says so under remarks.
//
//===----------------------------------------------------------------------===//
#include "pass.h"

#include <stdio.h>

#include "mirage/graph.h"

enum {
  OPT_MAX_BLOCK_OPS,
  OPT_MAX_KERNEL_OPS,
  OPT_MAX_CUSTOM_KERNELS,
  OPT_TIME_BUDGET,
  OPT_TARGET,
  OPT_THREADS,
  OPT_CACHE_DIR,
  OPT_REMARKS,
};

static const MgOptionSpec options[] = {
    {"max-block-ops", MG_OPTION_INT, "9", "most ops in one block graph", 1,
     64},
    {"max-kernel-ops", MG_OPTION_INT, "8", "most ops in one kernel graph", 1,
     64},
    {"max-custom-kernels", MG_OPTION_INT, "2",
     "most graph-defined kernels per kernel graph", 0, 16},
    {"time-budget-s", MG_OPTION_FLOAT, "30",
     "search time budget per LAX subprogram, seconds", 0, 0},
    {"target", MG_OPTION_STRING, "sm_90",
     "GPU target (sm_80, sm_86, sm_89, sm_90)", 0, 0},
    {"threads", MG_OPTION_INT, "0", "search threads (0: one per core)", 0,
     256},
    {"cache-dir", MG_OPTION_STRING, "",
     "search cache directory (default $XDG_CACHE_HOME/mirage)", 0, 0},
    {"remarks", MG_OPTION_BOOL, "false",
     "explain per function what was done (also MIRAGE_REMARKS=1)", 0, 0},
};

static bool check(const MgOptionValue *values, char *error, size_t size) {
  if (mg_target_lookup(values[OPT_TARGET].s))
    return true;
  snprintf(error, size,
           "unknown target '%s' (expected sm_80, sm_86, sm_89 or sm_90)",
           values[OPT_TARGET].s);
  return false;
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  (void)pass;
  if (!mg_pass_remarks_enabled(values[OPT_REMARKS].b))
    return;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!mg_op_is(op, "func.func"))
      continue;
    MlirStringRef name = mlirStringAttrGetValue(mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name")));
    mg_pass_remark(mlirOperationGetLocation(op),
                   "mirage-superopt: '@%.*s' left unchanged: lifting of "
                   "TOSA/linalg into μGraphs is not implemented yet, so "
                   "nothing was searched or lowered",
                   (int)name.length, name.data);
  }
}

const MgPassDef mg_pass_superopt = {
    "mirage-superopt",
    "Superoptimize tensor programs: lift to μGraphs, search, verify, lower",
    options, sizeof options / sizeof options[0], check, run};
