//===- plugin.c - Entry point for `mlir-opt --load-pass-plugin` -----------===//
//
// PassPluginLibraryInfo is a plain C struct, so the entry point needs no C++.
//
//===----------------------------------------------------------------------===//
#include <stdint.h>

#include "mirage/passes.h"

typedef struct MgPassPluginLibraryInfo {
  uint32_t api_version; // MLIR_PLUGIN_API_VERSION
  const char *plugin_name;
  const char *plugin_version;
  void (*register_pass_registry_callbacks)(void);
} MgPassPluginLibraryInfo;

MG_API MgPassPluginLibraryInfo mlirGetPassPluginInfo(void);

MgPassPluginLibraryInfo mlirGetPassPluginInfo(void) {
  MgPassPluginLibraryInfo info = {1, "MiragePlugin", MIRAGE_VERSION,
                                  mg_passes_register};
  return info;
}
