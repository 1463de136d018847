//===- registry.c - Turning pass table entries into MLIR passes ----------===//
//
// A pass instance owns a PassState (its definition plus parsed options).
// MLIR clones passes for multithreaded runs through the `clone` callback, so
// all per-run state lives there; there are no mutable statics besides the
// once-only registration flag.
//
//===----------------------------------------------------------------------===//
#include "pass.h"
#include "search_pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/IRDL.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/NVVM.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Support.h"

typedef bool (*MgPipelineBuilder)(MlirOpPassManager pm, MlirStringRef options,
                                  void *user_data, char *error,
                                  size_t error_size);
void mg_shim_register_pipeline(const char *name, const char *description,
                               MgPipelineBuilder build, void *user_data);

static const MgPassDef *const pass_defs[] = {
    &mg_pass_superopt,
    &mg_pass_verify_ugraph,
    &mg_pass_check_equiv,
    &mg_pass_test_bridge,
    &mg_pass_lift,
    &mg_pass_unlift,
    &mg_pass_search,
    &mg_pass_cost,
    &mg_pass_lower,
    &mg_pass_ptxas,
    &mg_pass_strip_compile_times,
};
#define NUM_PASSES (sizeof pass_defs / sizeof pass_defs[0])

typedef struct PassState {
  const MgPassDef *def;
  MgOptionValue values[MG_MAX_PASS_OPTIONS];
} PassState;

static void state_construct(void *user_data) { (void)user_data; }
static void state_destruct(void *user_data) { free(user_data); }
static MlirLogicalResult state_initialize(MlirContext ctx, void *user_data) {
  (void)user_data;
  return mg_passes_load_ugraph_dialect(ctx);
}
static void *state_clone(void *user_data) {
  PassState *copy = malloc(sizeof *copy);
  if (copy)
    memcpy(copy, user_data, sizeof *copy);
  return copy;
}
static void state_run(MlirOperation op, MlirExternalPass pass,
                      void *user_data) {
  PassState *state = user_data;
  if (!mg_bridge_op_is(op, "builtin.module")) {
    char name[128];
    mg_bridge_op_name(op, name, sizeof name);
    mg_pass_error(mlirOperationGetLocation(op),
                  "'%s' must run on 'builtin.module', not on '%s'",
                  state->def->name, name);
    mlirExternalPassSignalFailure(pass);
    return;
  }
  state->def->run(op, pass, state->values);
}

static const MgPassDef *find_def(const char *name) {
  for (size_t i = 0; i < NUM_PASSES; ++i)
    if (!strcmp(pass_defs[i]->name, name))
      return pass_defs[i];
  return NULL;
}

static bool add_pass(MlirOpPassManager pm, const MgPassDef *def,
                     MlirStringRef options, char *error, size_t error_size) {
  PassState *state = calloc(1, sizeof *state);
  if (!state) {
    snprintf(error, error_size, "out of memory");
    return false;
  }
  state->def = def;
  if (def->num_options > MG_MAX_PASS_OPTIONS) { // a table grew: a bug here
    snprintf(error, error_size, "internal: '%s' has more than %d options",
             def->name, MG_MAX_PASS_OPTIONS);
    free(state);
    return false;
  }
  if (!mg_options_parse(&(MgOptionTable){def->name, def->options,
                                         def->num_options},
                        options.data, options.length, state->values, error,
                        error_size) ||
      (def->check && !def->check(state->values, error, error_size))) {
    free(state);
    return false;
  }
  MlirExternalPassCallbacks callbacks = {state_construct, state_destruct,
                                         state_initialize, state_clone,
                                         state_run};
  // What the lowering creates, loaded before the pipeline resolves its
  // nested op names (a gpu.module(...) pipeline built while the GPU dialect
  // is not loaded would never match the modules the lowering adds).
  MlirDialectHandle deps[] = {
      mlirGetDialectHandle__gpu__(),    mlirGetDialectHandle__nvvm__(),
      mlirGetDialectHandle__llvm__(),   mlirGetDialectHandle__memref__(),
      mlirGetDialectHandle__scf__(),    mlirGetDialectHandle__arith__(),
      mlirGetDialectHandle__math__(),
      mlirGetDialectHandle__bufferization__()};
  // The definition's address is a unique, aligned TypeID for its pass kind.
  MlirPass pass = mlirCreateExternalPass(
      mlirTypeIDCreate(def), mlirStringRefCreateFromCString(def->name),
      mlirStringRefCreateFromCString(def->name),
      mlirStringRefCreateFromCString(def->summary), mlirStringRefCreate("", 0),
      sizeof deps / sizeof deps[0], deps, callbacks, state);
  mlirOpPassManagerAddOwnedPass(pm, pass);
  // The pass owns `state` now; its values stay valid while it lives.
  return !def->extend || def->extend(pm, state->values, error, error_size);
}

static bool build_pipeline(MlirOpPassManager pm, MlirStringRef options,
                           void *user_data, char *error, size_t error_size) {
  return add_pass(pm, user_data, options, error, error_size);
}

bool mg_passes_add(MlirOpPassManager pm, const char *name,
                   MlirStringRef options, char *error, size_t error_size) {
  const MgPassDef *def = find_def(name);
  if (!def) {
    snprintf(error, error_size, "unknown Mirage pass '%s'", name);
    return false;
  }
  return add_pass(pm, def, options, error, error_size);
}

void mg_passes_register(void) {
  static bool registered; // the registry is process-wide; register once
  if (registered)
    return;
  registered = true;
  for (size_t i = 0; i < NUM_PASSES; ++i)
    mg_shim_register_pipeline(pass_defs[i]->name, pass_defs[i]->summary,
                              build_pipeline, (void *)pass_defs[i]);
}

size_t mg_passes_count(void) { return NUM_PASSES; }

const char *mg_passes_name(size_t index) {
  return index < NUM_PASSES ? pass_defs[index]->name : NULL;
}

static void emit(MlirStringCallback cb, void *ud, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static void emit(MlirStringCallback cb, void *ud, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0)
    cb(mlirStringRefCreate(buf, strlen(buf)), ud);
}

void mg_passes_print_help(size_t index, MlirStringCallback callback,
                          void *user_data) {
  if (index >= NUM_PASSES)
    return;
  const MgPassDef *def = pass_defs[index];
  emit(callback, user_data, "  --%-28s - %s\n", def->name, def->summary);
  for (size_t i = 0; i < def->num_options; ++i) {
    const MgOptionSpec *o = &def->options[i];
    static const char *const kinds[] = {"<int>", "<number>", "<bool>",
                                        "<string>"};
    char head[96];
    snprintf(head, sizeof head, "%s=%s", o->name, kinds[o->kind]);
    emit(callback, user_data, "      %-26s - %s (default: %s)\n", head,
         o->help, *o->default_value ? o->default_value : "none");
  }
}

//===--- The embedded μGraph dialect --------------------------------------===//

static const unsigned char ugraph_irdl[] = {
#include "ugraph_irdl.inc"
    0};

MlirLogicalResult mg_passes_load_ugraph_dialect(MlirContext ctx) {
  if (mlirContextIsRegisteredOperation(ctx,
                                       mlirStringRefCreateFromCString("ug.matmul")))
    return mlirLogicalResultSuccess();
  MlirModule defs = mlirModuleCreateParse(
      ctx, mlirStringRefCreate((const char *)ugraph_irdl, sizeof ugraph_irdl - 1));
  if (mlirModuleIsNull(defs))
    return mlirLogicalResultFailure();
  MlirLogicalResult result = mlirLoadIRDLDialects(defs);
  mlirModuleDestroy(defs);
  return result;
}
