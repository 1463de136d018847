//===- ugraph_funcs.c - Finding and importing μGraph functions ------------===//
#include "ugraph_funcs.h"

#include <stdlib.h>
#include <string.h>

MgProgram *mg_pass_import_checked(MlirSymbolTable symbols, MlirOperation func,
                                  const MgTarget *target, MgBridgeMap *map) {
  MgProgram *program = NULL;
  MlirLocation loc;
  MgDiag diag = MG_DIAG_INIT;
  if (mg_bridge_import(symbols, func, &program, map, &loc, &diag) !=
      MG_STATUS_OK) {
    mg_pass_error(loc, "%s", diag.message);
    return NULL;
  }
  if (mg_program_validate(program, target, &diag) != MG_STATUS_OK) {
    mg_pass_error(mg_bridge_map_location(map, diag.graph, diag.op,
                                         mlirOperationGetLocation(func)),
                  "%s", diag.message);
    mg_program_destroy(program);
    mg_bridge_map_free(map);
    return NULL;
  }
  return program;
}

uint32_t mg_pass_count_kernel_funcs(MlirOperation module) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  uint32_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MgLevel level;
    n += mg_bridge_func_level(op, &level) && level == MG_LEVEL_KERNEL;
  }
  return n;
}

bool mg_pass_for_each_kernel_func(MlirOperation module,
                                  bool (*fn)(MlirOperation module,
                                             MlirSymbolTable symbols,
                                             MlirOperation func, void *ud),
                                  void *ud) {
  // Names first: `fn` may replace functions (and so the ops we walk).
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  size_t count = 0, n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    ++count;
  char **names = calloc(count ? count : 1, sizeof *names);
  if (!names) {
    mg_pass_error(mlirOperationGetLocation(module), "out of memory");
    return false;
  }
  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op) && ok; op = mlirOperationGetNextInBlock(op)) {
    MgLevel level;
    if (!mg_bridge_func_level(op, &level) || level != MG_LEVEL_KERNEL)
      continue;
    MlirStringRef s = mlirStringAttrGetValue(mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name")));
    names[n] = malloc(s.length + 1);
    if (!names[n]) {
      ok = false;
      break;
    }
    memcpy(names[n], s.data, s.length);
    names[n++][s.length] = 0;
  }
  if (!ok)
    mg_pass_error(mlirOperationGetLocation(module), "out of memory");
  MlirSymbolTable symbols = mlirSymbolTableCreate(module);
  for (size_t i = 0; i < n; ++i) {
    MlirOperation func = ok ? mg_bridge_lookup_func_in(symbols, names[i])
                            : (MlirOperation){NULL};
    if (!mlirOperationIsNull(func))
      ok = fn(module, symbols, func, ud) && ok;
    free(names[i]);
  }
  mlirSymbolTableDestroy(symbols);
  free(names);
  return ok;
}

typedef struct EachProgram {
  const MgTarget *target;
  MgPassProgramFn fn;
  void *ud;
} EachProgram;

static bool import_then_call(MlirOperation module, MlirSymbolTable symbols,
                             MlirOperation func, void *ud) {
  const EachProgram *each = ud;
  MgBridgeMap map;
  MgProgram *p = mg_pass_import_checked(symbols, func, each->target, &map);
  if (!p)
    return false;
  bool ok = each->fn(module, symbols, func, p, &map, each->ud);
  mg_program_destroy(p);
  mg_bridge_map_free(&map);
  return ok;
}

bool mg_pass_for_each_kernel_program(MlirOperation module,
                                     const MgTarget *target, MgPassProgramFn fn,
                                     void *ud) {
  EachProgram each = {target, fn, ud};
  return mg_pass_for_each_kernel_func(module, import_then_call, &each);
}

bool mg_pass_has_custom_ops(const MgProgram *p) {
  const MgGraph *g = &p->graphs[0];
  for (uint32_t i = 0; i < g->num_ops; ++i)
    if (g->ops[i].kind == MG_OP_CUSTOM)
      return true;
  return false;
}
