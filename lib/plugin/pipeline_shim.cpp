//===- pipeline_shim.cpp - The only C++ in the tree ------------------------===//
//
// The MLIR C API cannot add entries to the pass registry. This registers a
// named pass pipeline whose raw option string goes to a C builder, which
// parses the options and adds the C pass (see lib/passes/registry.c).
//
//===----------------------------------------------------------------------===//
#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassRegistry.h"

extern "C" {
typedef bool (*MgPipelineBuilder)(MlirOpPassManager pm, MlirStringRef options,
                                  void *user_data, char *error,
                                  size_t error_size);

__attribute__((visibility("default"))) void
mg_shim_register_pipeline(const char *name, const char *description,
                          MgPipelineBuilder build, void *user_data) {
  mlir::registerPassPipeline(
      name, description,
      [build, user_data](mlir::OpPassManager &pm, llvm::StringRef options,
                         llvm::function_ref<mlir::LogicalResult(
                             const llvm::Twine &)> errorHandler) {
        char error[512] = "";
        if (!build(wrap(&pm), MlirStringRef{options.data(), options.size()},
                   user_data, error, sizeof error))
          return errorHandler(error);
        return mlir::success();
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
}
}
