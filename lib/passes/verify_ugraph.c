//===- verify_ugraph.c - --mirage-verify-ugraph ----------------------------===//
//
// The semantic rules IRDL cannot state: shapes, map divisibility, loop
// placement of accumulators, shared memory, thread and grid limits. Each
// kernel graph is imported through the checking builders and validated.
//
//===----------------------------------------------------------------------===//
#include "ugraph_funcs.h"

#include <stdio.h>

enum { OPT_TARGET };

static const MgOptionSpec options[] = {
    {"target", MG_OPTION_STRING, "sm_90",
     "GPU target whose limits apply (sm_80, sm_86, sm_89, sm_90)", 0, 0},
};

// Importing and validating is the check: nothing more to do.
static bool verified(MlirOperation module, MlirSymbolTable symbols,
                     MlirOperation func, const MgProgram *program,
                     const MgBridgeMap *map, void *ud) {
  (void)module, (void)symbols, (void)func, (void)program, (void)map, (void)ud;
  return true;
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  const MgTarget *target = mg_target_lookup(values[OPT_TARGET].s);
  if (!mg_pass_for_each_kernel_program(module, target, verified, NULL))
    mlirExternalPassSignalFailure(pass);
}

const MgPassDef mg_pass_verify_ugraph = {
    "mirage-verify-ugraph",
    "Check the μGraph rules IRDL cannot express (shapes, maps, loops, limits)",
    options, sizeof options / sizeof options[0], mg_pass_check_first_target, run, NULL};
