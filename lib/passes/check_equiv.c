//===- check_equiv.c - --mirage-check-equiv="lhs=F rhs=G" ------------------===//
//
// Engineers validate a hand-fused kernel against its reference, or one
// frontend's output against another's: both functions are compared by the
// finite-field verifier. "Equivalent" is a remark at lhs (exit 0); "not
// equivalent" is an error there (exit 1).
//
// A function is either a kernel-level μGraph function (ug.level =
// "kernel", imported as it is) or a TOSA / linalg-on-tensors function,
// lifted whole into one kernel graph (mg_lift_function): never partitioned,
// so the comparison is of the two functions, not of pieces. What cannot be
// lifted whole is an error at the first op that prevents it. Constants
// keep their values in the tests (MgVerifyConstant); see equiv_inputs.h.
//
// The bound is a probability over the seed (it picks each test's field), so
// by default the seed is fresh from the OS: two files cannot be crafted
// against fields known in advance. The remark prints it; seed=N reruns.
//
//===----------------------------------------------------------------------===//
#include "equiv_inputs.h"
#include "ugraph_funcs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mirage/verify.h"
#include "mlir-c/BuiltinTypes.h"

enum { OPT_LHS, OPT_RHS, OPT_ERROR_BITS, OPT_SEED, OPT_MAX_TESTS };

static const MgOptionSpec options[] = {
    {"lhs", MG_OPTION_STRING, "", "first function (required)", 0, 0},
    {"rhs", MG_OPTION_STRING, "", "second function (required)", 0, 0},
    {"error-bits", MG_OPTION_INT, "40",
     "accept once the false-acceptance bound is below 2^-N", 1, 200},
    {"seed", MG_OPTION_INT, "-1",
     "seed of the tests' fields and inputs (-1: a fresh one from the OS; "
     "the result prints the seed used)",
     -1, INT64_MAX},
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

/// One function under comparison.
typedef struct Side {
  const char *name;
  MlirOperation func;
  bool ugraph;          // a μGraph kernel function (else lifted whole)
  MgProgram *imported;  // ugraph
  MgBridgeMap map;      // ugraph
  MgLiftFunction whole; // tensor function
} Side;

static const MgProgram *side_program(const Side *s) {
  return s->ugraph ? s->imported : s->whole.program;
}

static void side_free(Side *s) {
  mg_program_destroy(s->imported);
  mg_bridge_map_free(&s->map);
  mg_lift_function_free(&s->whole);
}

static bool load_whole(Side *s) {
  MgLiftOptions opts = mg_lift_options_default();
  MgDiag diag = MG_DIAG_INIT;
  MgStatus st = mg_lift_function(s->func, &opts, &s->whole, &diag);
  if (st == MG_STATUS_OK)
    return true;
  MlirOperation blame = s->whole.blame;
  if (st != MG_STATUS_INVALID || mlirOperationIsNull(blame) ||
      mlirOperationEqual(blame, s->func)) {
    mg_pass_error(mlirOperationGetLocation(s->func),
                  "'@%s' cannot be checked: %s", s->name, diag.message);
    return false;
  }
  char name[96];
  mg_bridge_op_name(blame, name, sizeof name);
  mg_pass_error(mlirOperationGetLocation(blame),
                "'@%s' cannot be checked: '%s' is not liftable (%s)", s->name,
                name, diag.message);
  return false;
}

// Finds the function and what kind it is; false after an error.
static bool find(MlirOperation module, Side *s) {
  s->func = mg_bridge_lookup_func(module, s->name);
  if (mlirOperationIsNull(s->func)) {
    mg_pass_error(mlirOperationGetLocation(module),
                  "no function named '@%s' to check", s->name);
    return false;
  }
  MgLevel level;
  s->ugraph = mg_bridge_func_level(s->func, &level);
  if (s->ugraph && level != MG_LEVEL_KERNEL) {
    mg_pass_error(mlirOperationGetLocation(s->func),
                  "'@%s' is not a kernel-level μGraph function "
                  "(ug.level = \"kernel\")",
                  s->name);
    return false;
  }
  return true;
}

static bool load(MlirOperation module, Side *s) {
  if (!s->ugraph)
    return load_whole(s);
  MlirSymbolTable symbols = mlirSymbolTableCreate(module);
  s->imported = mg_pass_import_checked(symbols, s->func, NULL, &s->map);
  mlirSymbolTableDestroy(symbols);
  return s->imported != NULL;
}

static MlirType func_type(MlirOperation func) {
  return mlirTypeAttrGetValue(mlirOperationGetAttributeByName(
      func, mlirStringRefCreateFromCString("function_type")));
}

// Tensor functions are compared on the same arguments and results, types
// included (a μGraph pair is left to the verifier's shape checks, as
// before). False after an error at rhs.
static bool same_signature(const Side *a, const Side *b) {
  MlirType fa = func_type(a->func), fb = func_type(b->func);
  intptr_t counts[2][2] = {
      {mlirFunctionTypeGetNumInputs(fa), mlirFunctionTypeGetNumResults(fa)},
      {mlirFunctionTypeGetNumInputs(fb), mlirFunctionTypeGetNumResults(fb)}};
  static const char *const what[2] = {"argument", "result"};
  char why[512] = "", ta[200], tb[200];
  for (int w = 0; w < 2 && !why[0]; ++w) {
    if (counts[0][w] != counts[1][w]) {
      snprintf(why, sizeof why, "'@%s' has %d %s%s, '@%s' has %d", a->name,
               (int)counts[0][w], what[w], counts[0][w] == 1 ? "" : "s",
               b->name, (int)counts[1][w]);
      break;
    }
    for (intptr_t i = 0; i < counts[0][w] && !why[0]; ++i) {
      MlirType x = w ? mlirFunctionTypeGetResult(fa, i)
                     : mlirFunctionTypeGetInput(fa, i);
      MlirType y = w ? mlirFunctionTypeGetResult(fb, i)
                     : mlirFunctionTypeGetInput(fb, i);
      if (mlirTypeEqual(x, y))
        continue;
      mg_bridge_type_text(x, ta, sizeof ta);
      mg_bridge_type_text(y, tb, sizeof tb);
      snprintf(why, sizeof why, "%s %d is '%s' in '@%s' but '%s' in '@%s'",
               what[w], (int)i, ta, a->name, tb, b->name);
    }
  }
  if (!why[0])
    return true;
  mg_pass_error(mlirOperationGetLocation(b->func),
                "'@%s' and '@%s' have different signatures: %s", a->name,
                b->name, why);
  return false;
}

static MgEquivSide equiv_side(const Side *s) {
  const MgProgram *p = side_program(s);
  if (s->ugraph)
    return (MgEquivSide){p, p->graphs[0].num_inputs, true, NULL, 0};
  return (MgEquivSide){p, s->whole.num_args, false, s->whole.constants,
                       s->whole.num_constants};
}

// What comparing two sides came to: the status (of merging the inputs,
// then of the check), the verifier's result and message, and how many
// non-finite constants were compared as unknowns.
typedef struct Outcome {
  MgStatus status;
  const MgVerifyResult *result;
  const MgDiag *diag;
  uint32_t symbols;
} Outcome;

// Reports the outcome of comparing '@lhs' with '@rhs' at `loc`; true when
// they are equivalent.
static bool report(MlirLocation loc, const char *lhs, const char *rhs,
                   const Outcome *out) {
  const MgStatus s = out->status;
  const MgVerifyResult *r = out->result;
  const uint32_t symbols = out->symbols;
  char note[192] = "";
  size_t n = 0;
  // The part of each test's bound due to the constants (a test's prime
  // dividing an integer they make): shown when there is one.
  if (r->constants_bound > 0)
    n += (size_t)snprintf(note + n, sizeof note - n,
                          "; constants' term 2^%.1f per test",
                          log2(r->constants_bound));
  if (symbols && n < sizeof note)
    n += (size_t)snprintf(note + n, sizeof note - n,
                          "; %u non-finite constant%s compared as unknown%s",
                          symbols, symbols == 1 ? "" : "s",
                          symbols == 1 ? "" : "s");
  if (n < sizeof note)
    snprintf(note + n, sizeof note - n, "; seed %llu",
             (unsigned long long)r->seed);
  if (s != MG_STATUS_OK) {
    mg_pass_error(loc, "cannot compare '@%s' with '@%s': %s", lhs, rhs,
                  out->diag->message);
  } else if (r->verdict == MG_VERDICT_EQUIVALENT) {
    mg_pass_remark(loc,
                   "'@%s' and '@%s' are equivalent (error bound <= 2^%.1f, "
                   "%u tests%s)",
                   lhs, rhs, r->log2_bound, r->tests, note);
    return true;
  } else if (r->verdict == MG_VERDICT_NOT_EQUIVALENT) {
    mg_pass_error(loc,
                  "'@%s' and '@%s' are not equivalent: output %u differs at "
                  "element %lld (test %u%s)",
                  lhs, rhs, r->output, (long long)r->index, r->tests, note);
  } else {
    mg_pass_error(loc,
                  "could not decide whether '@%s' and '@%s' are equivalent: "
                  "bound 2^%.1f after %u tests (%u voided by zero divisors%s)",
                  lhs, rhs, r->log2_bound, r->tests, r->redraws, note);
  }
  return false;
}

// Compares two loaded sides; false after an error.
static bool compare(const Side *a, const Side *b, const MgOptionValue *values) {
  MgVerifyOptions opts = mg_verify_options_default();
  opts.target_error = ldexp(1.0, -(int)values[OPT_ERROR_BITS].i);
  opts.seed = values[OPT_SEED].i < 0 ? mg_verify_fresh_seed()
                                     : (uint64_t)values[OPT_SEED].i;
  opts.max_tests = (uint32_t)values[OPT_MAX_TESTS].i;
  MlirLocation loc = mlirOperationGetLocation(
      a->ugraph ? a->map.graph_funcs[0] : a->func);
  MgEquivSide ea = equiv_side(a), eb = equiv_side(b);
  MgEquivInputs merged = {0};
  MgDiag diag = MG_DIAG_INIT;
  MgStatus s = MG_STATUS_OK;
  const MgProgram *pa = ea.program, *pb = eb.program;
  // A lifted function needs the merged input list (its constants, layouts
  // undone on a μGraph side); μGraph pairs are compared as they are.
  if (!(a->ugraph && b->ugraph)) {
    s = mg_pass_equiv_merge(&ea, &eb, &merged, &diag);
    pa = merged.a;
    pb = merged.b;
    opts.constants = merged.fixed;
    opts.num_constants = merged.num_fixed;
  }
  MgVerifyResult result = {0};
  if (s == MG_STATUS_OK)
    s = mg_verify_equivalent(pa, pb, &opts, &result, &diag);
  bool ok = report(loc, a->name, b->name,
                   &(Outcome){s, &result, &diag, merged.symbols});
  mg_pass_equiv_free(&merged);
  return ok;
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  Side a = {.name = values[OPT_LHS].s}, b = {.name = values[OPT_RHS].s};
  // Signatures first: a mismatch says more than an op that cannot lift.
  bool ok = find(module, &a) && find(module, &b) &&
            ((a.ugraph && b.ugraph) || same_signature(&a, &b)) &&
            load(module, &a) && load(module, &b) && compare(&a, &b, values);
  side_free(&a);
  side_free(&b);
  if (!ok)
    mlirExternalPassSignalFailure(pass);
}

const MgPassDef mg_pass_check_equiv = {
    "mirage-check-equiv",
    "Check that two functions compute the same tensors (finite-field "
    "tests): kernel-level μGraph functions, or TOSA / linalg-on-tensors "
    "functions lifted whole (an op that cannot be lifted is an error at it)",
    options, sizeof options / sizeof options[0], check, run, NULL};
