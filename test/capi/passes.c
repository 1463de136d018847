//===- passes.c - Using the Mirage passes from another C program ----------===//
//
// RUN: mirage-capi-test 2>&1 | FileCheck %s
//
// Builds a pass manager in C, adds Mirage passes through include/mirage/
// passes.h (no textual pipeline), and runs them on a μGraph module.
//
//===----------------------------------------------------------------------===//
#include <stdio.h>
#include <string.h>

#include "mirage/passes.h"
#include "mlir-c/RegisterEverything.h"

static const char module_text[] =
    "func.func @a(%x: tensor<4x8xf32>) -> tensor<4x1xf32> attributes "
    "{ug.level = \"kernel\"} {\n"
    "  %s = \"ug.sum\"(%x) {dim = 1 : i64} : (tensor<4x8xf32>) -> "
    "tensor<4x1xf32>\n"
    "  func.return %s : tensor<4x1xf32>\n"
    "}\n"
    "func.func @b(%x: tensor<4x8xf32>) -> tensor<4x1xf32> attributes "
    "{ug.level = \"kernel\"} {\n"
    "  %h = \"ug.mul_scalar\"(%x) {scalar = 5.0e-01 : f64} : "
    "(tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  %s = \"ug.sum\"(%h) {dim = 1 : i64} : (tensor<4x8xf32>) -> "
    "tensor<4x1xf32>\n"
    "  %t = \"ug.mul_scalar\"(%s) {scalar = 2.0e+00 : f64} : "
    "(tensor<4x1xf32>) -> tensor<4x1xf32>\n"
    "  func.return %t : tensor<4x1xf32>\n"
    "}\n";

static int run(MlirContext ctx, MlirModule module, const char *pass,
               const char *options) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  char error[256];
  if (!mg_passes_add(mlirPassManagerGetAsOpPassManager(pm), pass,
                     mlirStringRefCreateFromCString(options), error,
                     sizeof error)) {
    printf("add %s failed: %s\n", pass, error);
    mlirPassManagerDestroy(pm);
    return 2;
  }
  MlirLogicalResult r =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  mlirPassManagerDestroy(pm);
  return mlirLogicalResultIsSuccess(r) ? 0 : 1;
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  if (mlirLogicalResultIsFailure(mg_passes_load_ugraph_dialect(ctx))) {
    printf("dialect failed to load\n");
    return 1;
  }
  // CHECK: passes: mirage-superopt mirage-verify-ugraph mirage-check-equiv
  printf("passes:");
  for (size_t i = 0; i < mg_passes_count(); ++i)
    printf(" %s", mg_passes_name(i));
  printf("\n");
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(module_text));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }
  // CHECK: verify-ugraph: 0
  printf("verify-ugraph: %d\n", run(ctx, module, "mirage-verify-ugraph", ""));
  fflush(stdout);
  // CHECK: remark: '@a' and '@b' are equivalent
  // CHECK: check-equiv: 0
  printf("check-equiv: %d\n",
         run(ctx, module, "mirage-check-equiv", "lhs=a rhs=b"));
  // CHECK: add mirage-check-equiv failed: unknown option 'lsh' for pass 'mirage-check-equiv'
  // CHECK: bad option: 2
  printf("bad option: %d\n",
         run(ctx, module, "mirage-check-equiv", "lsh=a rhs=b"));
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
