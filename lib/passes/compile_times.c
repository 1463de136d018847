//===- compile_times.c - --mirage-strip-compile-times ----------------------===//
//
// Upstream's gpu-module-to-binary records how long each translation took
// in the properties of the `#gpu.object` it makes (LLVMIRToISATimeInMs,
// ISAToBinaryTimeInMs), so the same input compiled twice differs. This pass
// removes every property whose name ends in "TimeInMs" and keeps the rest
// (e.g. the optimization level `O`), so identical input gives byte-identical
// output; --mirage-lower and --mirage-superopt append it after the PTX
// pipeline.
//
//===----------------------------------------------------------------------===//
#include "lower_pass.h"

#include <string.h>

#include "mlir-c/Dialect/GPU.h"

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static bool is_time(MlirStringRef name) {
  static const char suffix[] = "TimeInMs";
  size_t n = sizeof suffix - 1;
  return name.length >= n &&
         !memcmp(name.data + name.length - n, suffix, n);
}

/// `obj` without its time properties (itself when it has none).
static MlirAttribute strip(MlirContext ctx, MlirAttribute obj) {
  if (!mlirGPUObjectAttrHasProperties(obj))
    return obj;
  MlirAttribute props = mlirGPUObjectAttrGetProperties(obj);
  intptr_t n = mlirDictionaryAttrGetNumElements(props), kept = 0;
  MlirNamedAttribute entries[64];
  if (n > (intptr_t)(sizeof entries / sizeof *entries))
    return obj; // more than upstream records: leave it as it is
  for (intptr_t i = 0; i < n; i++) {
    MlirNamedAttribute e = mlirDictionaryAttrGetElement(props, i);
    if (!is_time(mlirIdentifierStr(e.name)))
      entries[kept++] = e;
  }
  if (kept == n)
    return obj;
  MlirAttribute new_props =
      kept ? mlirDictionaryAttrGet(ctx, kept, entries) : (MlirAttribute){0};
  MlirAttribute target = mlirGPUObjectAttrGetTarget(obj);
  uint32_t format = mlirGPUObjectAttrGetFormat(obj);
  MlirStringRef object = mlirGPUObjectAttrGetObject(obj);
  if (mlirGPUObjectAttrHasKernels(obj))
    return mlirGPUObjectAttrGetWithKernels(ctx, target, format, object,
                                           new_props,
                                           mlirGPUObjectAttrGetKernels(obj));
  return mlirGPUObjectAttrGet(ctx, target, format, object, new_props);
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  (void)pass;
  (void)values;
  MlirContext ctx = mlirOperationGetContext(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!mg_bridge_op_is(op, "gpu.binary"))
      continue;
    MlirAttribute objects =
        mlirOperationGetAttributeByName(op, str("objects"));
    if (mlirAttributeIsNull(objects) || !mlirAttributeIsAArray(objects))
      continue;
    intptr_t n = mlirArrayAttrGetNumElements(objects);
    MlirAttribute items[64];
    if (n > (intptr_t)(sizeof items / sizeof *items))
      continue; // one object per target: far fewer in practice
    bool changed = false;
    for (intptr_t i = 0; i < n; i++) {
      MlirAttribute obj = mlirArrayAttrGetElement(objects, i);
      items[i] = mlirAttributeIsAGPUObjectAttr(obj) ? strip(ctx, obj) : obj;
      changed |= !mlirAttributeEqual(items[i], obj);
    }
    if (changed)
      mlirOperationSetAttributeByName(op, str("objects"),
                                      mlirArrayAttrGet(ctx, n, items));
  }
}

const MgPassDef mg_pass_strip_compile_times = {
    "mirage-strip-compile-times",
    "Remove the compile times gpu-module-to-binary records in gpu.object "
    "properties, so identical input gives identical output",
    NULL, 0, NULL, run, NULL};
