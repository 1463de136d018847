//===- check_equiv.c - --mirage-check-equiv="lhs=F rhs=G" ------------------===//
//
// Engineers validate a hand-fused kernel against its reference: both
// functions are compared by the finite-field verifier. "Equivalent" is a
// remark at lhs (exit 0); "not equivalent" is an error there (exit 1).
//
//===----------------------------------------------------------------------===//
#include "ugraph_funcs.h"

#include <math.h>
#include <stdio.h>

#include "mirage/verify.h"

enum { OPT_LHS, OPT_RHS, OPT_ERROR_BITS, OPT_SEED, OPT_MAX_TESTS };

static const MgOptionSpec options[] = {
    {"lhs", MG_OPTION_STRING, "", "first function (required)", 0, 0},
    {"rhs", MG_OPTION_STRING, "", "second function (required)", 0, 0},
    {"error-bits", MG_OPTION_INT, "40",
     "accept once the false-acceptance bound is below 2^-N", 1, 200},
    {"seed", MG_OPTION_INT, "1", "seed of the random tests", 0, INT64_MAX},
    {"max-tests", MG_OPTION_INT, "64", "give up after this many tests", 1,
     100000},
};

static bool check(const MgOptionValue *values, char *error, size_t size) {
  if (!values[OPT_LHS].s[0] || !values[OPT_RHS].s[0]) {
    snprintf(error, size,
             "'mirage-check-equiv' needs both 'lhs' and 'rhs' options");
    return false;
  }
  return true;
}

static MgProgram *load(MlirOperation module, const char *name,
                       MgBridgeMap *map) {
  MlirOperation func = mg_bridge_lookup_func(module, name);
  if (mlirOperationIsNull(func)) {
    mg_pass_error(mlirOperationGetLocation(module),
                  "no function named '@%s' to check", name);
    return NULL;
  }
  MgLevel level;
  if (!mg_bridge_func_level(func, &level) || level != MG_LEVEL_KERNEL) {
    mg_pass_error(mlirOperationGetLocation(func),
                  "'@%s' is not a kernel-level μGraph function "
                  "(ug.level = \"kernel\")",
                  name);
    return NULL;
  }
  MlirSymbolTable symbols = mlirSymbolTableCreate(module);
  MgProgram *p = mg_pass_import_checked(symbols, func, NULL, map);
  mlirSymbolTableDestroy(symbols);
  return p;
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  const char *lhs = values[OPT_LHS].s, *rhs = values[OPT_RHS].s;
  MgBridgeMap lmap = {0}, rmap = {0};
  MgProgram *a = load(module, lhs, &lmap);
  MgProgram *b = a ? load(module, rhs, &rmap) : NULL;
  if (!a || !b) {
    mg_program_destroy(a);
    mg_bridge_map_free(&lmap);
    mlirExternalPassSignalFailure(pass);
    return;
  }
  MlirLocation loc = mlirOperationGetLocation(lmap.graph_funcs[0]);
  MgVerifyOptions opts = mg_verify_options_default();
  opts.target_error = ldexp(1.0, -(int)values[OPT_ERROR_BITS].i);
  opts.seed = (uint64_t)values[OPT_SEED].i;
  opts.max_tests = (uint32_t)values[OPT_MAX_TESTS].i;
  MgVerifyResult result;
  MgDiag diag = {-1, -1, ""};
  MgStatus s = mg_verify_equivalent(a, b, &opts, &result, &diag);
  bool failed = true;
  if (s != MG_STATUS_OK) {
    mg_pass_error(loc, "cannot compare '@%s' with '@%s': %s", lhs, rhs,
                  diag.message);
  } else if (result.verdict == MG_VERDICT_EQUIVALENT) {
    mg_pass_remark(loc,
                   "'@%s' and '@%s' are equivalent (error bound <= 2^%.1f, "
                   "%u tests)",
                   lhs, rhs, result.log2_bound, result.tests);
    failed = false;
  } else if (result.verdict == MG_VERDICT_NOT_EQUIVALENT) {
    mg_pass_error(loc,
                  "'@%s' and '@%s' are not equivalent: output %u differs at "
                  "element %lld (test %u)",
                  lhs, rhs, result.output, (long long)result.index,
                  result.tests);
  } else {
    mg_pass_error(loc,
                  "could not decide whether '@%s' and '@%s' are equivalent: "
                  "bound 2^%.1f after %u tests (%u voided by zero divisors)",
                  lhs, rhs, result.log2_bound, result.tests, result.redraws);
  }
  mg_program_destroy(a);
  mg_program_destroy(b);
  mg_bridge_map_free(&lmap);
  mg_bridge_map_free(&rmap);
  if (failed)
    mlirExternalPassSignalFailure(pass);
}

const MgPassDef mg_pass_check_equiv = {
    "mirage-check-equiv",
    "Check that two functions compute the same tensors (finite-field tests)",
    options, sizeof options / sizeof options[0], check, run, NULL};
