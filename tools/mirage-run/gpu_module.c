//===- gpu_module.c - The lowered module: PTX and the kernels launched ----===//
//
// --time lowers a copy of the input with the mirage-lower pass, the pass
// mirage-opt --mirage-superopt ends with (lower=true), so the code timed is
// the code mirage-opt emits for the same programs and target. From the
// copy it takes, per kernel graph @F, what the lowered module says and the
// μGraph does not: which gpu.binary host function @F launches from (its
// symbol is made unique by the pass) and the names of its kernels, in
// launch order (gpu.launch_func ops of @F's body). The object of that
// binary is the PTX text (format isa) the driver JIT-compiles, or a cubin.
//
//===----------------------------------------------------------------------===//
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mirage/bridge.h"
#include "mirage/passes.h"
#include "mirage/tool.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Pass.h"

/// gpu::CompilationTarget (mlir/Dialect/GPU/IR/CompilationAttrInterfaces.td).
enum { FORMAT_ISA = 2, FORMAT_BIN = 3, FORMAT_FATBIN = 4 };

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

MlirOperation mg_run_lower_module(MlirOperation module, const char *target,
                                  const char *toolkit, char *err,
                                  size_t err_size) {
  MlirOperation copy = mlirOperationClone(module);
  MlirContext ctx = mlirOperationGetContext(module);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  // host=copy, stated: timing.c re-derives that mode's buffers (one per
  // root tensor, inputs copied in) and reads only the launches from @F,
  // so the module must stay in the mode its plan follows, whatever the
  // pass's default; each launch keeps its own kernel, in @F's GPU module
  // (dedup-kernels=false), so the launches map to the plan's ops.
  char options[4500];
  snprintf(options, sizeof options,
           "ptx=true host=copy dedup-kernels=false target=%s toolkit=\"%s\"",
           target, toolkit);
  char error[512];
  bool ok = mg_passes_add(mlirPassManagerGetAsOpPassManager(pm),
                          "mirage-lower", str(options), error, sizeof error);
  if (!ok)
    snprintf(err, err_size, "the mirage-lower pass: %s", error);
  else if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, copy))) {
    snprintf(err, err_size, "lowering to PTX for %s failed (mirage-lower "
             "%s)", target, options);
    ok = false;
  }
  mlirPassManagerDestroy(pm);
  if (!ok) {
    mlirOperationDestroy(copy);
    return (MlirOperation){NULL};
  }
  return copy;
}

void mg_run_gpu_image_free(MgRunGpuImage *image) {
  for (uint32_t i = 0; i < image->num_kernels; i++)
    free(image->kernels[i]);
  free(image->kernels);
  free(image->data);
  free(image->name);
  memset(image, 0, sizeof *image);
}

static char *dup_ref(MlirStringRef s) {
  char *out = malloc(s.length + 1);
  if (out) {
    memcpy(out, s.data, s.length);
    out[s.length] = 0;
  }
  return out;
}

/// The gpu.binary named `name` at the top level of `module`.
static MlirOperation find_binary(MlirOperation module, const char *name) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!mg_bridge_op_is(op, "gpu.binary"))
      continue;
    MlirAttribute sym = mlirOperationGetAttributeByName(op, str("sym_name"));
    if (!mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym) &&
        mlirStringRefEqual(mlirStringAttrGetValue(sym), str(name)))
      return op;
  }
  return (MlirOperation){NULL};
}

bool mg_run_gpu_image_find(MlirOperation lowered, const char *func_name,
                           const MgRunGpuPlan *plan, MgRunGpuImage *image,
                           char *err, size_t err_size) {
  memset(image, 0, sizeof *image);
  MlirOperation host = mg_bridge_lookup_func(lowered, func_name);
  if (mlirOperationIsNull(host)) {
    snprintf(err, err_size, "the lowered module has no host function "
             "'@%s'", func_name);
    return false;
  }
  image->kernels = calloc(plan->num_launches + 1, sizeof *image->kernels);
  if (!image->kernels) {
    snprintf(err, err_size, "out of memory");
    return false;
  }
  // The launches, in order (host.c emits them in the function's body).
  uint32_t n = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(host, 0));
  for (MlirOperation op = mlirBlockIsNull(body)
                              ? (MlirOperation){NULL}
                              : mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!mg_bridge_op_is(op, "gpu.launch_func"))
      continue;
    MlirAttribute kernel = mlirOperationGetAttributeByName(op, str("kernel"));
    if (mlirAttributeIsNull(kernel) || !mlirAttributeIsASymbolRef(kernel)) {
      snprintf(err, err_size, "a gpu.launch_func of '@%s' names no kernel",
               func_name);
      mg_run_gpu_image_free(image);
      return false;
    }
    MlirStringRef root = mlirSymbolRefAttrGetRootReference(kernel);
    MlirStringRef leaf = mlirSymbolRefAttrGetLeafReference(kernel);
    if (n == plan->num_launches) {
      n++;
      break;
    }
    if (!image->name && !(image->name = dup_ref(root))) {
      snprintf(err, err_size, "out of memory");
      mg_run_gpu_image_free(image);
      return false;
    }
    if (!mlirStringRefEqual(root, str(image->name))) {
      snprintf(err, err_size, "'@%s' launches kernels of two GPU modules "
               "('@%s', '@%.*s')", func_name, image->name, (int)root.length,
               root.data);
      mg_run_gpu_image_free(image);
      return false;
    }
    char suffix[32];
    int sl = snprintf(suffix, sizeof suffix, "_k%u", plan->launches[n].op);
    if (leaf.length < (size_t)sl ||
        memcmp(leaf.data + leaf.length - sl, suffix, (size_t)sl) != 0) {
      snprintf(err, err_size, "launch %u of '@%s' is '@%.*s', expected the "
               "kernel of op %u ('..%s')", n, func_name, (int)leaf.length,
               leaf.data, plan->launches[n].op, suffix);
      mg_run_gpu_image_free(image);
      return false;
    }
    if (!(image->kernels[n] = dup_ref(leaf))) {
      snprintf(err, err_size, "out of memory");
      mg_run_gpu_image_free(image);
      return false;
    }
    image->num_kernels = ++n;
  }
  if (n != plan->num_launches) {
    snprintf(err, err_size, "'@%s' has %s%u gpu.launch_func ops, the "
             "kernel graph %u kernels", func_name,
             n > plan->num_launches ? "more than " : "",
             n > plan->num_launches ? plan->num_launches : n,
             plan->num_launches);
    mg_run_gpu_image_free(image);
    return false;
  }
  if (!n)
    return true; // it passes its inputs through: no GPU module
  MlirOperation binary = find_binary(lowered, image->name);
  MlirAttribute objects =
      mlirOperationIsNull(binary)
          ? (MlirAttribute){NULL}
          : mlirOperationGetAttributeByName(binary, str("objects"));
  if (mlirAttributeIsNull(objects) || !mlirAttributeIsAArray(objects) ||
      mlirArrayAttrGetNumElements(objects) < 1) {
    snprintf(err, err_size, "no gpu.binary '@%s' with an object (was the "
             "GPU module compiled?)", image->name);
    mg_run_gpu_image_free(image);
    return false;
  }
  MlirAttribute obj = mlirArrayAttrGetElement(objects, 0);
  uint32_t format = mlirAttributeIsAGPUObjectAttr(obj)
                        ? mlirGPUObjectAttrGetFormat(obj) : 0;
  if (format != FORMAT_ISA && format != FORMAT_BIN &&
      format != FORMAT_FATBIN) {
    snprintf(err, err_size, "the object of gpu.binary '@%s' is neither PTX "
             "nor a cubin or fatbin (format %u)", image->name, format);
    mg_run_gpu_image_free(image);
    return false;
  }
  MlirStringRef data = mlirGPUObjectAttrGetObject(obj);
  if (!(image->data = dup_ref(data))) {
    snprintf(err, err_size, "out of memory");
    mg_run_gpu_image_free(image);
    return false;
  }
  image->size = data.length;
  image->is_ptx = format == FORMAT_ISA;
  return true;
}
